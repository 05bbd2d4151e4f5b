// Mū Tōrere: the eight points of the star (1–8 clockwise from the top) and
// the centre. A piece has at most one move (to the one empty point), so a
// click on a piece that can move plays it.
import { el, board, disc, arrow, fields } from './svg.js';

const SIZE = 420;
const RADIUS = 150;

export function boardMove() {
  return true;
}

function parse(fen) {
  const [points, side, plies] = fields(fen);
  return { points: (points || '').split(''), side, plies: Number(plies) };
}

export function summary(fen) {
  return { plies: parse(fen).plies };
}

function position(point, flipped) {
  if (point === 'c' || point === 9) return [SIZE / 2, SIZE / 2];
  const index = Number(point) - 1;
  const angle = (index * Math.PI) / 4 + (flipped ? Math.PI : 0);
  return [SIZE / 2 + RADIUS * Math.sin(angle), SIZE / 2 - RADIUS * Math.cos(angle)];
}

export function draw(view) {
  const { points } = parse(view.fen);
  const svg = board(SIZE, SIZE, 'Mū Tōrere');
  // The star: the ring and the spokes.
  for (let i = 1; i <= 8; i++) {
    const [x, y] = position(i, view.flipped);
    const [nx, ny] = position((i % 8) + 1, view.flipped);
    svg.appendChild(el('line', { x1: x, y1: y, x2: nx, y2: ny, class: 'star' }));
    svg.appendChild(el('line', { x1: x, y1: y, x2: SIZE / 2, y2: SIZE / 2, class: 'star' }));
  }
  const legal = view.legal;
  const last = view.lastMove || '';
  const names = ['1', '2', '3', '4', '5', '6', '7', '8', 'c'];
  names.forEach((name, i) => {
    const [x, y] = position(name, view.flipped);
    const piece = points[i];
    const move = legal.find((m) => m.startsWith(name));
    const classes = ['point'];
    if (last.includes(name)) classes.push('last');
    const group = el('g', { 'data-point': name, class: move ? 'playable' : '' }, [
      el('circle', { cx: x, cy: y, r: 30, class: classes.join(' ') }),
    ]);
    if (piece === 'x' || piece === 'o') group.appendChild(disc(x, y, 24, piece));
    // Ring labels outside the ring, the centre's beside it.
    const [lx, ly] = name === 'c'
      ? [x + 40, y - 28]
      : [SIZE / 2 + ((x - SIZE / 2) * (RADIUS + 46)) / RADIUS, SIZE / 2 + ((y - SIZE / 2) * (RADIUS + 46)) / RADIUS + 5];
    const label = el('text', { x: lx, y: ly, class: 'coord' });
    label.textContent = name;
    group.appendChild(label);
    if (move && view.live) group.addEventListener('click', () => view.play(move));
    svg.appendChild(group);
  });
  // The engine's line, a numbered arrow per move.
  for (const step of view.pv) {
    if (step.move.length !== 2) continue;
    const [x1, y1] = position(step.move[0], view.flipped);
    const [x2, y2] = position(step.move[1], view.flipped);
    svg.appendChild(arrow(x1, y1, x2, y2, 6, step));
  }
  return { svg };
}
