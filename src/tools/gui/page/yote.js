// Yoté: 6 files × 5 ranks. A click on an empty square drops a stone from the
// reserve; select a stone and click a square to step or jump; after a
// capturing jump, click the enemy stone to remove as well.
import { el, board, disc, arrow, hintRing, fields, readRows, file } from './svg.js';

const CELL = 70;
const MARGIN = 24;
let selected = null;
let pending = null;
let selectedFen = null;

export function boardMove() {
  return true;
}

function parse(fen) {
  const f = fields(fen);
  const rows = readRows(f[0] || '');
  return {
    rows, side: f[1], reserve: { x: Number(f[2]), o: Number(f[3]) }, quiet: Number(f[6]),
  };
}

/** Reserves and stones on the board, shown under it. */
export function summary(fen) {
  const { rows, reserve, quiet } = parse(fen);
  const count = (c) => rows.flat().filter((s) => s === c).length;
  return { x: `${count('x')} + ${reserve.x}`, o: `${count('o')} + ${reserve.o}`, quiet };
}

export function draw(view) {
  const { rows } = parse(view.fen);
  if (selectedFen !== view.fen) {
    selected = null;
    pending = null;
    selectedFen = view.fen;
  }
  const height = rows.length;
  const width = rows[0] ? rows[0].length : 6;
  const svg = board(MARGIN + width * CELL, height * CELL + MARGIN, 'Yoté');
  const centre = (name) => {
    const col = name.charCodeAt(0) - 97;
    const row = height - Number(name.slice(1));
    const c = view.flipped ? width - 1 - col : col;
    const r = view.flipped ? height - 1 - row : row;
    return [MARGIN + c * CELL + CELL / 2, r * CELL + CELL / 2];
  };
  const legal = view.legal;
  const drops = new Set(legal.filter((m) => m.startsWith('@')).map((m) => m.slice(1)));
  const steps = legal.filter((m) => !m.startsWith('@'));
  const movable = new Set(steps.map((m) => m.slice(0, 2)));
  const targets = new Set(steps.filter((m) => selected && m.startsWith(selected)).map((m) => m.slice(2, 4)));
  const removable = new Set(
    steps.filter((m) => pending && m.startsWith(pending + 'x')).map((m) => m.slice(5)),
  );
  const last = view.lastMove || '';
  const lastSquares = new Set((last.match(/[a-z]\d/g) || []));
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const name = `${file(col)}${height - row}`;
      const [cx, cy] = centre(name);
      const piece = rows[row][col];
      const classes = ['square'];
      if ((row + col) % 2) classes.push('dark');
      if (lastSquares.has(name)) classes.push('last');
      if (name === selected) classes.push('selected');
      const cell = el('g', { 'data-sq': name, class: 'cell' }, [
        el('rect', { x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, class: classes.join(' ') }),
      ]);
      if (piece === 'x' || piece === 'o') cell.appendChild(disc(cx, cy, CELL * 0.36, piece));
      if (targets.has(name) && !pending) {
        cell.appendChild(el('circle', { cx, cy, r: CELL * 0.14, class: 'target clone' }));
      }
      if (removable.has(name)) {
        cell.appendChild(el('circle', { cx, cy, r: CELL * 0.42, class: 'target remove' }));
      }
      cell.addEventListener('click', () => click(name, piece, view, { drops, movable, targets, removable, steps }));
      svg.appendChild(cell);
    }
  }
  for (let i = 0; i < width; i++) {
    const col = view.flipped ? width - 1 - i : i;
    svg.appendChild(text(MARGIN + i * CELL + CELL / 2, height * CELL + 17, file(col)));
  }
  for (let i = 0; i < height; i++) {
    const row = view.flipped ? height - 1 - i : i;
    svg.appendChild(text(12, i * CELL + CELL / 2 + 5, String(height - row)));
  }
  // The engine's line: drops as rings, steps and jumps as arrows, a
  // stone removed after a capture as a ring with the same number.
  for (const step of view.pv) {
    const squares = step.move.match(/[a-z]\d/g) || [];
    if (step.move.startsWith('@') && squares[0]) {
      const [x, y] = centre(squares[0]);
      svg.appendChild(hintRing(x, y, CELL * 0.44, step));
    } else if (squares.length >= 2) {
      const [x1, y1] = centre(squares[0]);
      const [x2, y2] = centre(squares[1]);
      svg.appendChild(arrow(x1, y1, x2, y2, 6, step));
      if (squares[2]) {
        const [x, y] = centre(squares[2]);
        svg.appendChild(hintRing(x, y, CELL * 0.44, step));
      }
    }
  }
  return { svg };
}

function text(x, y, content) {
  const node = el('text', { x, y, class: 'coord' });
  node.textContent = content;
  return node;
}

function click(name, piece, view, sets) {
  if (!view.live) return;
  if (pending) {
    if (sets.removable.has(name)) {
      view.play(`${pending}x${name}`);
      return;
    }
    pending = null;
    selected = null;
    view.redraw();
    return;
  }
  if (piece === view.side && sets.movable.has(name)) {
    selected = selected === name ? null : name;
    view.redraw();
    return;
  }
  if (selected && sets.targets.has(name)) {
    const base = selected + name;
    const options = sets.steps.filter((m) => m.startsWith(base));
    if (options.length === 1 && options[0] === base) {
      view.play(base);
      return;
    }
    pending = base;
    view.redraw();
    return;
  }
  if (piece === '.' && sets.drops.has(name)) {
    view.play(`@${name}`);
    return;
  }
  selected = null;
  view.redraw();
}
