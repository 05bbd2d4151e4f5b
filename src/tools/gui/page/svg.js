// Small helpers shared by the game modules: SVG elements and colours.

const NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes and children. */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

/** An <svg> filling its box, with a view box of w × h units. */
export function board(w, h, label) {
  return el('svg', { viewBox: `0 0 ${w} ${h}`, class: 'board', role: 'img', 'aria-label': label });
}

/** A piece of side `side` ('x' or 'o') as a disc. */
export function disc(cx, cy, r, side, extra = {}) {
  return el('circle', { cx, cy, r, class: `piece piece-${side}`, ...extra });
}

/**
 * The engine's line on the board: its first moves, numbered from 1, each
 * in the colour of the side that plays it and fainter the later it comes.
 * `step` is one of them: { move, side, n } (n from 0).
 */
function lineClass(step, extra) {
  return `pv pv-${step.side} pv-${Math.min(step.n, 3)}${extra ? ' ' + extra : ''}`;
}

/** The number of the line's move `step`, in a small disc at (x, y). */
export function badge(x, y, step) {
  const label = el('text', { x, y: y + 4.5, class: 'pv-number' });
  label.textContent = String(step.n + 1);
  return el('g', { class: lineClass(step, 'pv-badge'), 'data-pv': step.n + 1 }, [
    el('circle', { cx: x, cy: y, r: 10 }),
    label,
  ]);
}

/** An arrow from (x1, y1) to (x2, y2) for the line's move `step`, its
 * number near the tail (`numbered` false: an arrow without one). */
export function arrow(x1, y1, x2, y2, width, step, numbered = true) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  const head = width * 3;
  const bx = x2 - ux * head;
  const by = y2 - uy * head;
  const px = -uy * head * 0.6;
  const py = ux * head * 0.6;
  const group = el('g', { class: lineClass(step, 'pv-arrow') }, [
    el('line', { x1, y1, x2: bx, y2: by, 'stroke-width': width }),
    el('polygon', { points: `${x2},${y2} ${bx + px},${by + py} ${bx - px},${by - py}` }),
  ]);
  return numbered ? el('g', {}, [group, badge(x1 + dx * 0.3, y1 + dy * 0.3, step)]) : group;
}

/** A ring marking a square or point for the line's move `step`, numbered
 * at its upper right. */
export function hintRing(cx, cy, r, step) {
  return el('g', {}, [
    el('circle', { cx, cy, r, class: lineClass(step, 'pv-ring') }),
    badge(cx + r * 0.72, cy - r * 0.72, step),
  ]);
}

/** A line segment (Dots and Boxes) for the line's move `step`, numbered
 * in its middle. */
export function segment(x1, y1, x2, y2, step) {
  return el('g', {}, [
    el('line', { x1, y1, x2, y2, class: lineClass(step, 'pv-segment') }),
    badge((x1 + x2) / 2, (y1 + y2) / 2, step),
  ]);
}

/** A mark on one object of the line's move `step` (Nim's stones). */
export function lineMark(step) {
  return lineClass(step);
}

/** Splits a position string into its fields. */
export function fields(fen) {
  return String(fen).trim().split(/\s+/);
}

/**
 * Reads the board field of a rectangular position (ranks top to bottom,
 * separated by '/', digit runs counting empty squares, one number per run)
 * into rows of characters ('.' for empty), top row first.
 */
export function readRows(field) {
  return field.split('/').map((rank) => {
    const row = [];
    for (const part of rank.match(/\d+|\D/g) || []) {
      if (/^\d+$/.test(part)) for (let i = 0; i < Number(part); i++) row.push('.');
      else row.push(part);
    }
    return row;
  });
}

/** File letter of a 0-based column. */
export function file(column) {
  return String.fromCharCode(97 + column);
}
