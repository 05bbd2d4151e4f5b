// Ataxx: 7×7 board; select a piece to see its clone (distance 1) and jump
// (distance 2) targets; a click on an empty square that a clone reaches
// plays the clone at once. Passes ('0000') are offered as a button.
import { el, board, disc, arrow, hintRing, fields, readRows, file } from './svg.js';

const CELL = 60;
const MARGIN = 24;
let selected = null;
let selectedFen = null;

/** Whether a move is made by clicking the board (a pass is a button). */
export function boardMove(text) {
  return text !== '0000';
}

function squareName(col, row, size) {
  return `${file(col)}${size - row}`;
}

function parse(fen) {
  const [boardField, side] = fields(fen);
  const rows = readRows(boardField || '');
  return { rows, side: side || 'x', size: rows.length };
}

/** Piece counts shown under the board. */
export function summary(fen) {
  const { rows } = parse(fen);
  const count = (c) => rows.flat().filter((s) => s === c).length;
  return { x: count('x'), o: count('o') };
}

function centre(name, size, flipped) {
  const col = name.charCodeAt(0) - 97;
  const row = size - Number(name.slice(1));
  const c = flipped ? size - 1 - col : col;
  const r = flipped ? size - 1 - row : row;
  return [MARGIN + c * CELL + CELL / 2, r * CELL + CELL / 2];
}

export function draw(view) {
  const { rows, size } = parse(view.fen);
  if (selectedFen !== view.fen) {
    selected = null;
    selectedFen = view.fen;
  }
  const legal = view.legal;
  const clones = new Set(legal.filter((m) => m.length === 2));
  const jumps = legal.filter((m) => m.length === 4 && m !== '0000');
  const fromSelected = new Set(jumps.filter((m) => m.startsWith(selected || '-')).map((m) => m.slice(2)));
  const movable = new Set(jumps.map((m) => m.slice(0, 2)));
  // A piece next to a clone target can clone there.
  for (const target of clones) {
    const tc = target.charCodeAt(0) - 97;
    const tr = Number(target.slice(1));
    for (let dc = -1; dc <= 1; dc++) {
      for (let dr = -1; dr <= 1; dr++) {
        const c = tc + dc;
        const r = tr + dr;
        if (c < 0 || r < 1 || c >= size || r > size || (dc === 0 && dr === 0)) continue;
        const name = `${file(c)}${r}`;
        const piece = rows[size - r]?.[c];
        if (piece === view.side) movable.add(name);
      }
    }
  }
  const svg = board(MARGIN + size * CELL, size * CELL + MARGIN, 'Ataxx');
  const last = view.lastMove && view.lastMove !== '0000' ? view.lastMove : '';
  const lastSquares = new Set(last.length === 4 ? [last.slice(0, 2), last.slice(2)] : last ? [last] : []);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const name = squareName(col, row, size);
      const [cx, cy] = centre(name, size, view.flipped);
      const piece = rows[row][col];
      const classes = ['square'];
      if ((row + col) % 2) classes.push('dark');
      if (piece === '-') classes.push('blocked');
      if (lastSquares.has(name)) classes.push('last');
      if (name === selected) classes.push('selected');
      const cell = el('g', { 'data-sq': name, class: 'cell' }, [
        el('rect', { x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, class: classes.join(' ') }),
      ]);
      if (piece === 'x' || piece === 'o') cell.appendChild(disc(cx, cy, CELL * 0.38, piece));
      if (selected && clones.has(name) && near(selected, name) === 1) {
        cell.appendChild(el('circle', { cx, cy, r: CELL * 0.14, class: 'target clone' }));
      } else if (fromSelected.has(name)) {
        cell.appendChild(el('circle', { cx, cy, r: CELL * 0.3, class: 'target jump' }));
      }
      cell.addEventListener('click', () => click(name, piece, view, clones, fromSelected, movable));
      svg.appendChild(cell);
    }
  }
  for (let i = 0; i < size; i++) {
    const col = view.flipped ? size - 1 - i : i;
    const row = view.flipped ? size - 1 - i : i;
    svg.appendChild(el('text', { x: MARGIN + i * CELL + CELL / 2, y: size * CELL + 17, class: 'coord' }, [document.createTextNode(file(col))]));
    svg.appendChild(el('text', { x: 12, y: i * CELL + CELL / 2 + 5, class: 'coord' }, [document.createTextNode(String(size - row))]));
  }
  // The engine's line: jumps as arrows, clones as rings (passes are not
  // drawn, but counted).
  for (const step of view.pv) {
    const m = step.move;
    if (m.length < 2 || m === '0000') continue;
    const to = centre(m.slice(-2), size, view.flipped);
    if (m.length === 4) {
      const from = centre(m.slice(0, 2), size, view.flipped);
      svg.appendChild(arrow(from[0], from[1], to[0], to[1], 6, step));
    } else {
      svg.appendChild(hintRing(to[0], to[1], CELL * 0.44, step));
    }
  }
  return { svg };
}

/** King-move distance between two squares. */
function near(a, b) {
  return Math.max(Math.abs(a.charCodeAt(0) - b.charCodeAt(0)), Math.abs(Number(a.slice(1)) - Number(b.slice(1))));
}

function click(name, piece, view, clones, fromSelected, movable) {
  if (!view.live) return;
  if (piece === view.side && movable.has(name)) {
    selected = selected === name ? null : name;
    view.redraw();
    return;
  }
  if (piece === '.') {
    if (selected && fromSelected.has(name)) {
      view.play(selected + name);
      return;
    }
    if (clones.has(name)) {
      view.play(name);
      return;
    }
  }
  selected = null;
  view.redraw();
}

/** The position string of `rows` (top row first, '.' empty, '-' blocked)
 * with `side` to move, the move counters reset. */
function writeFen(rows, side) {
  const ranks = rows.map((row) => row.join('').replace(/\.+/g, (run) => String(run.length)));
  return `${ranks.join('/')} ${side} 0 1`;
}

/**
 * The set-up's board editor: pick a tool (blocker, x, o, empty) and click
 * squares to set them (a click on a square that already holds the tool's
 * content empties it, so blockers toggle); `changed` gets the position
 * string after every change (the server checks it when it is set up).
 */
export function editor(fen, changed, t) {
  const [boardField, sideField] = fields(fen);
  const rows = readRows(boardField || '7/7/7/7/7/7/7');
  const size = rows.length;
  let side = sideField === 'o' ? 'o' : 'x';
  let tool = '-';
  const box = document.createElement('div');
  box.className = 'editor';
  const tools = document.createElement('div');
  tools.className = 'editor-tools';
  const buttons = [['-', t('blocker')], ['x', 'x'], ['o', 'o'], ['.', t('emptySquare')]].map(([value, label]) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.tool = value;
    button.textContent = label;
    button.addEventListener('click', () => {
      tool = value;
      update();
    });
    return button;
  });
  const sideSelect = document.createElement('select');
  sideSelect.id = 'editor-side';
  for (const s of ['x', 'o']) sideSelect.add(new Option(`${s} ${t('toMove')}`, s));
  sideSelect.value = side;
  sideSelect.addEventListener('change', () => {
    side = sideSelect.value;
    changed(writeFen(rows, side));
  });
  tools.append(...buttons, sideSelect);
  const holder = document.createElement('div');
  box.append(tools, holder);
  const cell = 36;
  function update() {
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.tool === tool));
    const svg = board(size * cell, size * cell, 'Ataxx editor');
    svg.classList.add('editor-board');
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        const name = squareName(col, row, size);
        const piece = rows[row][col];
        const [x, y] = [col * cell, row * cell];
        const classes = ['square'];
        if ((row + col) % 2) classes.push('dark');
        if (piece === '-') classes.push('blocked');
        const group = el('g', { 'data-edit-sq': name, class: 'cell' }, [
          el('rect', { x, y, width: cell, height: cell, class: classes.join(' ') }),
        ]);
        if (piece === 'x' || piece === 'o') group.appendChild(disc(x + cell / 2, y + cell / 2, cell * 0.36, piece));
        group.addEventListener('click', () => {
          rows[row][col] = rows[row][col] === tool ? '.' : tool;
          update();
          changed(writeFen(rows, side));
        });
        svg.appendChild(group);
      }
    }
    holder.replaceChildren(svg);
  }
  update();
  return box;
}
