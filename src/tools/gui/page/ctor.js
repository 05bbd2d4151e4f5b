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

export function draw(view) {
  const p = parse(view.fen);
  const n = p.size;
  if (selectedFen !== view.fen) {
    selection = [];
    selectedFen = view.fen;
  }
  const cell = n > 8 ? 40 : 48;
  const span = (n + 2) * cell;
  const svg = board(span, span, 'CTOR');
  const legal = new Set(view.legal);
  // Screen position of board coordinates (row, col), -1 and n being the
  // faded copies of the opposite edges.
  const at = (row, col) => {
    const r = view.flipped ? n - 1 - row : row;
    const c = view.flipped ? n - 1 - col : col;
    return [(c + 1) * cell, (r + 1) * cell];
  };
  const number = (row, col) => row * n + col + 1;
  const mine = new Set(
    Object.entries(view.secrets || {})
      .filter(([side]) => side === view.personSide || view.showAllSecrets)
      .flatMap(([, squares]) => String(squares).split(',').map(Number)),
  );
  const used = new Set([...p.used.x, ...p.used.o]);
  const last = view.lastMove || '';
  const lastSquares = new Set((last.match(/\d+/g) || []).map(Number));
  for (let row = -1; row <= n; row++) {
    for (let col = -1; col <= n; col++) {
      const ghost = row < 0 || col < 0 || row >= n || col >= n;
      const rr = (row + n) % n;
      const cc = (col + n) % n;
      const sq = number(rr, cc);
      const [x, y] = at(row, col);
      const chip = p.rows[rr][cc];
      const classes = ['square'];
      if ((rr + cc) % 2) classes.push('dark');
      if (ghost) classes.push('ghost');
      if (!ghost && lastSquares.has(sq)) classes.push('last');
      if (!ghost && selection.includes(sq)) classes.push('selected');
      if (p.pending.includes(sq) || p.chosen.includes(sq)) classes.push('chosen');
      const group = el('g', ghost ? { class: 'ghost-cell' } : { 'data-sq': sq, class: 'cell' }, [
        el('rect', { x, y, width: cell, height: cell, class: classes.join(' ') }),
      ]);
      if (chip === 'x' || chip === 'o') group.appendChild(disc(x + cell / 2, y + cell / 2, cell * 0.36, chip));
      if (mine.has(sq)) {
        group.appendChild(el('rect', {
          x: x + 3, y: y + 3, width: cell - 6, height: cell - 6, class: used.has(sq) ? 'secret used' : 'secret',
        }));
      }
      if (!ghost) {
        const label = el('text', { x: x + 3, y: y + 11, class: 'sq-number' });
        label.textContent = String(sq);
        group.appendChild(label);
        group.addEventListener('click', () => click(sq, chip, view, legal));
      }
      svg.appendChild(group);
    }
  }
  // The board's edge, inside the faded copies.
  svg.appendChild(el('rect', { x: cell, y: cell, width: n * cell, height: n * cell, class: 'torus-edge' }));
  const centre = (sq) => {
    const [x, y] = at(Math.floor((sq - 1) / n), (sq - 1) % n);
    return [x + cell / 2, y + cell / 2];
  };
  // The engine's line, operation by operation: movements as arrows,
  // landings as two arrows to the square, placements, replacements and
  // substitutions as rings ('end' is not drawn, but counted).
  for (const step of view.pv) {
    const hint = step.move;
    let m;
    if ((m = /^(\d+)-(\d+)$/.exec(hint))) {
      const [x1, y1] = centre(Number(m[1]));
      const [x2, y2] = centre(Number(m[2]));
      svg.appendChild(arrow(x1, y1, x2, y2, 5, step));
    } else if ((m = /^(\d+)\+(\d+)@(\d+)$/.exec(hint))) {
      const [x, y] = centre(Number(m[3]));
      for (const [i, from] of [m[1], m[2]].entries()) {
        const [x1, y1] = centre(Number(from));
        svg.appendChild(arrow(x1, y1, x, y, 5, step, i === 0));
      }
    } else if ((m = /(\d+)$/.exec(hint)) && hint !== 'end') {
      const [x, y] = centre(Number(m[1]));
      svg.appendChild(hintRing(x, y, cell * 0.46, step));
    }
  }
  return { svg };
}

function click(sq, chip, view, legal) {
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
