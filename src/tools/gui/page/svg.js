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

/** An arrow from (x1, y1) to (x2, y2) showing the engine's best move. */
export function arrow(x1, y1, x2, y2, width) {
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
  return el('g', { class: 'pv-arrow' }, [
    el('line', { x1, y1, x2: bx, y2: by, 'stroke-width': width }),
    el('polygon', { points: `${x2},${y2} ${bx + px},${by + py} ${bx - px},${by - py}` }),
  ]);
}

/** A ring marking a square or point for the engine's best move. */
export function hintRing(cx, cy, r) {
  return el('circle', { cx, cy, r, class: 'pv-ring' });
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
