// CTOR: an N×N torus. Around the board a faded copy of the opposite edge
// rows and columns shows the wrap-around. Within a turn: click an empty
// square to place; select one of your chips and click an empty neighbour
// to move; select two chips and click an empty square to land; click an
// enemy chip to replace it; 'end' (and due substitutions) are buttons.
import { el, board, disc, arrow, hintRing, fields, readRows } from './svg.js';

let selection = [];
let selectedFen = null;

export function boardMove(text) {
  return text !== 'end' && !text.startsWith('s');
}

function parse(fen) {
  const f = fields(fen);
  const rows = readRows(f[0] || '');
  const [placed, moved, landed, replaced] = (f[3] || '0/0/0/0').split('/').map(Number);
  const secret = (f[5] || '-/-/-/-').split('/').map((p) => (p === '-' || !p ? [] : p.split(',').map(Number)));
  return {
    rows, size: rows.length, side: f[1], turn: Number(f[2]), done: { placed, moved, landed, replaced },
    empty: Number(f[4]), used: { x: secret[0] || [], o: secret[1] || [] }, chosen: secret[2] || [], pending: secret[3] || [],
    secrets: f.length > 5,
  };
}

/** This turn's budgets (placements, movements, landings), as the rules set them. */
function budget(team, turn) {
  if (turn === 1) return [1, 0, 0];
  if (turn === 2) return [2, 0, 0];
  if (team === 3 && turn === 3) return [3, 0, 0];
  return [[2, 2, 1], [2, 2, 0], [3, 3, 0]][Math.min(Math.max(team, 1), 3) - 1];
}

/** Chip counts, the turn and its budgets, shown under the board. */
export function summary(fen, options) {
  const p = parse(fen);
  const count = (c) => p.rows.flat().filter((s) => s === c).length;
  const team = Number((options || []).find(([n]) => n.toLowerCase() === 'team')?.[1] || 1);
  const [places, moves, lands] = budget(team, p.turn);
  return {
    x: count('x'), o: count('o'), turn: p.turn,
    budget: `${p.done.placed}/${places} · ${p.done.moved}/${moves} · ${p.done.landed}/${lands} · ×${p.done.replaced}`,
  };
}

// The board's squares are built once per size and orientation and then
// updated in place: a CTOR board has up to 144 squares with their copies,
// and rebuilding them for every operation of a turn made each move's
// drawing and painting slow (the page showed an engine's move up to 100 ms
// after its bestmove). What the squares' clicks need is read from `shown`.
let built = null;
let shown = null;

/** Sets an attribute only when it changes (an unchanged square is then
 * not painted again). */
function set(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

function build(n, flipped) {
  const cell = n > 8 ? 40 : 48;
  const span = (n + 2) * cell;
  const svg = board(span, span, 'CTOR');
  // Screen position of board coordinates (row, col), -1 and n being the
  // faded copies of the opposite edges.
  const at = (row, col) => {
    const r = flipped ? n - 1 - row : row;
    const c = flipped ? n - 1 - col : col;
    return [(c + 1) * cell, (r + 1) * cell];
  };
  const squares = [];
  for (let row = -1; row <= n; row++) {
    for (let col = -1; col <= n; col++) {
      const ghost = row < 0 || col < 0 || row >= n || col >= n;
      const rr = (row + n) % n;
      const cc = (col + n) % n;
      const sq = rr * n + cc + 1;
      const [x, y] = at(row, col);
      const rect = el('rect', { x, y, width: cell, height: cell });
      const chip = disc(x + cell / 2, y + cell / 2, cell * 0.36, 'x', { visibility: 'hidden' });
      const secret = el('rect', { x: x + 3, y: y + 3, width: cell - 6, height: cell - 6, visibility: 'hidden' });
      const group = el('g', ghost ? { class: 'ghost-cell' } : { 'data-sq': sq, class: 'cell' }, [rect, chip, secret]);
      if (!ghost) {
        const label = el('text', { x: x + 3, y: y + 11, class: 'sq-number' });
        label.textContent = String(sq);
        group.appendChild(label);
        group.addEventListener('click', () => click(sq, rr, cc));
      }
      svg.appendChild(group);
      squares.push({ sq, rr, cc, ghost, dark: (rr + cc) % 2 === 1, rect, chip, secret });
    }
  }
  // The board's edge, inside the faded copies.
  svg.appendChild(el('rect', { x: cell, y: cell, width: n * cell, height: n * cell, class: 'torus-edge' }));
  const line = el('g', { class: 'engine-line' });
  svg.appendChild(line);
  const centre = (sq) => {
    const [x, y] = at(Math.floor((sq - 1) / n), (sq - 1) % n);
    return [x + cell / 2, y + cell / 2];
  };
  return { key: `${n} ${flipped}`, svg, squares, line, centre, cell };
}

export function draw(view) {
  const p = parse(view.fen);
  const n = p.size;
  if (selectedFen !== view.fen) {
    selection = [];
    selectedFen = view.fen;
  }
  if (!built || built.key !== `${n} ${!!view.flipped}`) built = build(n, !!view.flipped);
  shown = { view, p, legal: new Set(view.legal) };
  const mine = new Set(
    Object.entries(view.secrets || {})
      .filter(([side]) => side === view.personSide || view.showAllSecrets)
      .flatMap(([, squares]) => String(squares).split(',').map(Number)),
  );
  const used = new Set([...p.used.x, ...p.used.o]);
  const last = view.lastMove || '';
  const lastSquares = new Set((last.match(/\d+/g) || []).map(Number));
  for (const s of built.squares) {
    const classes = ['square'];
    if (s.dark) classes.push('dark');
    if (s.ghost) classes.push('ghost');
    if (!s.ghost && lastSquares.has(s.sq)) classes.push('last');
    if (!s.ghost && selection.includes(s.sq)) classes.push('selected');
    if (p.pending.includes(s.sq) || p.chosen.includes(s.sq)) classes.push('chosen');
    set(s.rect, 'class', classes.join(' '));
    const chip = p.rows[s.rr][s.cc];
    const hasChip = chip === 'x' || chip === 'o';
    set(s.chip, 'visibility', hasChip ? 'visible' : 'hidden');
    if (hasChip) set(s.chip, 'class', `piece piece-${chip}`);
    set(s.secret, 'visibility', mine.has(s.sq) ? 'visible' : 'hidden');
    set(s.secret, 'class', used.has(s.sq) ? 'secret used' : 'secret');
  }
  // The engine's line, operation by operation: movements as arrows,
  // landings as two arrows to the square, placements, replacements and
  // substitutions as rings ('end' is not drawn, but counted).
  const { centre, cell } = built;
  const marks = [];
  for (const step of view.pv) {
    const hint = step.move;
    let m;
    if ((m = /^(\d+)-(\d+)$/.exec(hint))) {
      const [x1, y1] = centre(Number(m[1]));
      const [x2, y2] = centre(Number(m[2]));
      marks.push(arrow(x1, y1, x2, y2, 5, step));
    } else if ((m = /^(\d+)\+(\d+)@(\d+)$/.exec(hint))) {
      const [x, y] = centre(Number(m[3]));
      for (const [i, from] of [m[1], m[2]].entries()) {
        const [x1, y1] = centre(Number(from));
        marks.push(arrow(x1, y1, x, y, 5, step, i === 0));
      }
    } else if ((m = /(\d+)$/.exec(hint)) && hint !== 'end') {
      const [x, y] = centre(Number(m[1]));
      marks.push(hintRing(x, y, cell * 0.46, step));
    }
  }
  if (marks.length || built.line.childNodes.length) built.line.replaceChildren(...marks);
  return { svg: built.svg };
}

function click(sq, rr, cc) {
  const { view, p, legal } = shown;
  const chip = p.rows[rr][cc];
  if (!view.live) return;
  if (chip === view.side) {
    if (selection.includes(sq)) selection = selection.filter((s) => s !== sq);
    else selection = [...selection.slice(-1), sq];
    view.redraw();
    return;
  }
  if (chip === '.') {
    let move = null;
    if (selection.length === 2) {
      const [a, b] = [...selection].sort((u, v) => u - v);
      move = `${a}+${b}@${sq}`;
    } else if (selection.length === 1) {
      move = `${selection[0]}-${sq}`;
    } else {
      move = String(sq);
    }
    if (legal.has(move)) {
      view.play(move);
      return;
    }
  } else if (legal.has(`x${sq}`)) {
    view.play(`x${sq}`);
    return;
  }
  selection = [];
  view.redraw();
}
