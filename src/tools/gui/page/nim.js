// Nim: each heap is a column of objects; clicking an object takes it and
// every object above it. A heap and count form does the same for heaps too
// tall to draw.
import { el, board, badge, lineMark, fields } from './svg.js';

const COLUMN = 64;
const STONE = 34;
const MAX_DRAWN = 20;

export function boardMove() {
  return true;
}

function parse(fen) {
  const [heaps, side] = fields(fen);
  return { heaps: (heaps || '').split('/').map((h) => BigInt(/^\d+$/.test(h) ? h : 0)), side };
}

export function summary(fen) {
  const total = parse(fen).heaps.reduce((a, b) => a + b, 0n);
  return { left: total.toString() };
}

export function draw(view) {
  const { heaps } = parse(view.fen);
  const tallest = Math.min(MAX_DRAWN, Math.max(1, ...heaps.map((h) => Number(h > BigInt(MAX_DRAWN) ? MAX_DRAWN : h))));
  const w = heaps.length * COLUMN + 20;
  const h = tallest * STONE + 60;
  const svg = board(w, h, 'Nim');
  const legal = new Set(view.legal);
  const line = lineMarks(view.pv, heaps);
  heaps.forEach((size, index) => {
    const heap = index + 1;
    const column = view.flipped ? heaps.length - 1 - index : index;
    const x = 10 + column * COLUMN + COLUMN / 2;
    const drawn = Number(size > BigInt(MAX_DRAWN) ? MAX_DRAWN : size);
    const group = el('g', { class: 'heap' });
    for (let k = 0; k < drawn; k++) {
      // Object k from the bottom; taking it takes the `drawn - k` objects
      // from it to the top.
      const count = drawn - k;
      const text = `${heap}:${count}`;
      const y = h - 40 - k * STONE - STONE / 2;
      const step = line.get(`${heap}:${k}`);
      const stone = el('circle', {
        cx: x, cy: y, r: STONE * 0.42,
        class: `stone${step ? ' ' + lineMark(step) : ''}${legal.has(text) ? ' playable' : ''}`,
        'data-move': text, 'data-heap': heap, 'data-count': count,
      });
      if (legal.has(text) && view.live) {
        stone.addEventListener('click', () => view.play(text));
        stone.addEventListener('mouseenter', () => mark(group, count, true));
        stone.addEventListener('mouseleave', () => mark(group, count, false));
      }
      group.appendChild(stone);
      // The move's number beside the top object it takes.
      if (step && !line.has(`${heap}:${k}:${step.n}`)) group.appendChild(badge(x + STONE * 0.62, y, step));
    }
    const label = el('text', { x, y: h - 14, class: 'coord heap-label' });
    label.textContent = size > BigInt(MAX_DRAWN) ? `#${heap}: ${size}` : `#${heap} (${size})`;
    group.appendChild(label);
    svg.appendChild(group);
  });
  return { svg, panel: form(view, heaps) };
}

/**
 * The objects each move of the engine's line takes: `heap:k` (k from the
 * bottom, as drawn) to its move, and `heap:k:n` for every object but the
 * top one a move takes (so that only the top one is numbered).
 */
function lineMarks(pv, heaps) {
  const marks = new Map();
  const left = heaps.map((h) => Number(h > BigInt(MAX_DRAWN) ? MAX_DRAWN : h));
  for (const step of pv) {
    const m = /^(\d+):(\d+)$/.exec(step.move);
    if (!m || left[Number(m[1]) - 1] === undefined) continue;
    const heap = Number(m[1]);
    const top = left[heap - 1];
    const bottom = Math.max(0, top - Number(m[2]));
    for (let k = bottom; k < top; k++) {
      marks.set(`${heap}:${k}`, step);
      if (k > bottom) marks.set(`${heap}:${k - 1}:${step.n}`, step);
    }
    left[heap - 1] = bottom;
  }
  return marks;
}

/** Highlights the objects a click would take (the top `count`). */
function mark(group, count, on) {
  for (const stone of group.querySelectorAll('circle')) {
    if (Number(stone.getAttribute('data-count')) <= count) stone.classList.toggle('taking', on);
  }
}

function form(view, heaps) {
  if (!view.live) return null;
  const box = document.createElement('div');
  box.className = 'nim-form';
  const heap = document.createElement('select');
  heaps.forEach((size, i) => {
    if (size > 0n) heap.add(new Option(`#${i + 1}`, String(i + 1)));
  });
  const count = document.createElement('input');
  count.type = 'number';
  count.min = '1';
  count.value = '1';
  count.className = 'nim-count';
  const take = document.createElement('button');
  take.textContent = view.t('take');
  take.addEventListener('click', () => view.play(`${heap.value}:${count.value}`));
  box.append(view.t('heap'), ' ', heap, ' ', view.t('count'), ' ', count, ' ', take);
  return box;
}
