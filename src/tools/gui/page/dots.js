// Dots and Boxes: R×C boxes; click a line to draw it. Boxes take the colour
// of the side that closed them (worked out from the moves played), and the
// extra move after a box is announced under the board.
import { el, board, segment, fields, file } from './svg.js';

const STEP = 70;
const MARGIN = 30;

export function boardMove() {
  return true;
}

function parse(fen) {
  const [size, lines, sx, so, side] = fields(fen);
  const [rows, cols] = (size || '4x4').split('x').map(Number);
  return { rows, cols, lines: lines || '', score: { x: Number(sx), o: Number(so) }, side: side || 'x' };
}

/** Scores shown under the board. */
export function summary(fen) {
  return parse(fen).score;
}

/** Index in the line string of the line between two dots, or -1. */
function lineIndex(rows, cols, a, b) {
  if (a.r === b.r && Math.abs(a.c - b.c) === 1) {
    return a.r * cols + Math.min(a.c, b.c);
  }
  if (a.c === b.c && Math.abs(a.r - b.r) === 1) {
    return (rows + 1) * cols + Math.min(a.r, b.r) * (cols + 1) + a.c;
  }
  return -1;
}

function dot(text) {
  return { c: text.charCodeAt(0) - 97, r: Number(text.slice(1)) - 1 };
}

function moveDots(text) {
  const m = /^([a-z]\d+)([a-z]\d+)$/.exec(text);
  return m ? [dot(m[1]), dot(m[2])] : null;
}

/** The owner of every box ('x', 'o', '?' for one closed before the record). */
function owners(view, rows, cols) {
  const start = parse(view.start);
  const drawn = start.lines.split('').map((ch) => ch === '1');
  const owner = new Array(rows * cols).fill(null);
  const closed = (r, c) => {
    const h = (rr) => drawn[rr * cols + c];
    const v = (cc) => drawn[(rows + 1) * cols + r * (cols + 1) + cc];
    return h(r) && h(r + 1) && v(c) && v(c + 1);
  };
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (closed(r, c)) owner[r * cols + c] = '?';
  if (start.rows === rows && start.cols === cols) {
    view.moves.slice(0, view.ply).forEach((text, i) => {
      const ends = moveDots(text);
      if (!ends) return;
      const index = lineIndex(rows, cols, ends[0], ends[1]);
      if (index < 0) return;
      drawn[index] = true;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          if (owner[r * cols + c] === null && closed(r, c)) owner[r * cols + c] = view.movers[i];
        }
      }
    });
  }
  return owner;
}

export function draw(view) {
  const { rows, cols, lines } = parse(view.fen);
  const w = cols * STEP + 2 * MARGIN;
  const h = rows * STEP + 2 * MARGIN;
  const svg = board(w, h, 'Dots and Boxes');
  const flip = (x, y) => (view.flipped ? [w - x, h - y] : [x, y]);
  const at = (c, r) => flip(MARGIN + c * STEP, MARGIN + (rows - r) * STEP);
  const owner = owners(view, rows, cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [x1, y1] = at(c, r);
      const [x2, y2] = at(c + 1, r + 1);
      const who = owner[r * cols + c];
      svg.appendChild(el('rect', {
        x: Math.min(x1, x2), y: Math.min(y1, y2), width: STEP, height: STEP,
        class: who ? `box box-${who === '?' ? 'unknown' : who}` : 'box',
      }));
      if (who) {
        const [cx, cy] = at(c + 0.5, r + 0.5);
        const mark = el('text', { x: cx, y: cy + 9, class: `box-mark box-mark-${who}` });
        mark.textContent = who === '?' ? '·' : who;
        svg.appendChild(mark);
      }
    }
  }
  const legal = new Set(view.legal);
  const last = view.lastMove;
  const addLine = (index, a, b) => {
    const text = `${file(a.c)}${a.r + 1}${file(b.c)}${b.r + 1}`;
    const [x1, y1] = at(a.c, a.r);
    const [x2, y2] = at(b.c, b.r);
    const isDrawn = lines[index] === '1';
    const classes = ['line', isDrawn ? 'drawn' : 'open'];
    if (text === last) classes.push('last');
    // The area that takes the click: the line's length between the dots,
    // a finger wide.
    const pad = 9;
    const hit = el('rect', {
      x: Math.min(x1, x2) + (y1 === y2 ? pad : -pad),
      y: Math.min(y1, y2) + (y1 === y2 ? -pad : pad),
      width: Math.abs(x2 - x1) + (y1 === y2 ? -2 * pad : 2 * pad),
      height: Math.abs(y2 - y1) + (y1 === y2 ? 2 * pad : -2 * pad),
      class: 'line-hit',
    });
    const group = el('g', { 'data-move': text, class: legal.has(text) ? 'playable' : '' }, [
      hit,
      el('line', { x1, y1, x2, y2, class: classes.join(' ') }),
    ]);
    if (legal.has(text) && view.live) group.addEventListener('click', () => view.play(text));
    svg.appendChild(group);
  };
  for (let r = 0; r <= rows; r++) {
    for (let c = 0; c < cols; c++) addLine(r * cols + c, { c, r }, { c: c + 1, r });
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c <= cols; c++) {
      addLine((rows + 1) * cols + r * (cols + 1) + c, { c, r }, { c, r: r + 1 });
    }
  }
  for (let r = 0; r <= rows; r++) {
    for (let c = 0; c <= cols; c++) {
      const [x, y] = at(c, r);
      svg.appendChild(el('circle', { cx: x, cy: y, r: 5, class: 'dot' }));
    }
  }
  // The engine's line: each line to draw, numbered (a side that closes a
  // box moves again, so one colour can follow itself).
  for (const step of view.pv) {
    const ends = moveDots(step.move);
    if (!ends) continue;
    const [x1, y1] = at(ends[0].c, ends[0].r);
    const [x2, y2] = at(ends[1].c, ends[1].r);
    svg.appendChild(segment(x1, y1, x2, y2, step));
  }
  return { svg };
}
