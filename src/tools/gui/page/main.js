// The page: shows the game the server holds, sends the person's moves and
// the set-up of new games. The server decides legality and results; this
// module only draws and forwards clicks.
import { STRINGS, RULES, REASONS_FR } from './i18n.js';
import * as ataxx from './ataxx.js';
import * as dots from './dots.js';
import * as nim from './nim.js';
import * as mutorere from './mutorere.js';
import * as yote from './yote.js';
import * as ctor from './ctor.js';
import { el } from './svg.js';

const GAMES = { ataxx, dots, nim, mutorere, yote, ctor };
const $ = (id) => document.getElementById(id);

let config = null;
let state = null;
let receivedAt = 0;
let viewPly = null; // null: the live position
let flipped = false;
let drawPending = false; // a drawing is scheduled for the next frame
let drawnState = null; // the state last drawn
let shownFen = null; // the position last written in the position string
let clickedAt = null; // when the person's last move was clicked
let boardKey = null; // what the board was last drawn from
let selectionEpoch = 0; // grows when a game module's selection changes
let lang = localStorage.getItem('agon-lang') || ((navigator.language || '').startsWith('fr') ? 'fr' : 'en');

function t(key) {
  return (STRINGS[lang] && STRINGS[lang][key]) || STRINGS.en[key] || key;
}

function reasonText(reason) {
  if (lang !== 'fr') return reason;
  return REASONS_FR[reason] || reason;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = { error: `HTTP ${response.status}` };
  }
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function message(text) {
  $('message').textContent = text ? `${t('error')}: ${text}` : '';
}

async function post(path, body) {
  try {
    message('');
    const next = await api('POST', path, body || {});
    accept(next);
    return next;
  } catch (e) {
    message(e.message);
    return null;
  }
}

/** The wall clock, which the server stamps moves with (to the
 * millisecond: the page's finer clock, performance.now(), runs from its
 * own origin and drifts from the wall clock by milliseconds). */
const wallNow = () => Date.now();

let drewThisFrame = false; // a move was drawn since the last frame began
let unmeasured = []; // moves received, not yet drawn: their way so far

/** Takes a new state from the server (a POST's answer or an event);
 * `arrived` is when an event's bytes reached the page. */
function accept(next, arrived = null) {
  // A move's answer can arrive after an event that is already newer.
  if (state && next.id === state.id && next.version < state.version) return;
  const newGame = !state || next.id !== state.id;
  const before = newGame ? next.moves.length : Math.min(state.moves.length, next.moves.length);
  const moved = next.moves.length > before;
  if (newGame || next.moves.length < state.moves.length) unmeasured = [];
  const parsed = wallNow();
  // Every new move, even one whose own state the page never saw.
  for (let i = before; i < next.moves.length; i++) {
    const last = i === next.moves.length - 1;
    unmeasured.push({ index: i, arrived: last ? arrived : null, parsed });
  }
  state = next;
  receivedAt = performance.now();
  if (newGame) {
    viewPly = null;
    shownFen = null;
    // A game started elsewhere (another tab, the API): the form follows.
    if (config && $('game').value !== state.game) {
      $('game').value = state.game;
      updateOptions();
    }
  }
  if (viewPly !== null && viewPly > state.moves.length) viewPly = null;
  if (moved && !drewThisFrame) {
    // A move is drawn at once, so that the coming frame shows it: drawing
    // at that frame's start would add the drawing's time to the move's
    // way to the screen.
    drewThisFrame = true;
    requestAnimationFrame(() => { drewThisFrame = false; });
    render();
    return;
  }
  // Anything else, and more moves before the coming frame, is drawn once
  // at that frame's start: a burst of states (a CTOR turn's operations,
  // analysis updates) is drawn once, from the newest.
  if (!drawPending) {
    drawPending = true;
    requestAnimationFrame(drawFrame);
  }
}

function drawFrame() {
  drawPending = false;
  if (drawnState !== state) render();
}

/**
 * Measures the way of the moves just drawn, from the server's reading of
 * each (an engine's `bestmove`, a person's request) to the end of the
 * frame that shows it, and keeps them for the browser test's latency
 * report, by mover: the total and, for the move an event brought, its
 * steps (server: the referee, the stream's wake-up and the state written;
 * wire: to the page's event handler; parse: the state read; draw: the
 * DOM built; wait: until the next frame begins; paint: until that frame
 * has been laid out and painted).
 */
function measure(drawnAt) {
  const drawn = state;
  const moves = unmeasured.filter((m) => m.index < drawn.moves.length);
  unmeasured = [];
  if (moves.length === 0) return;
  const clicked = clickedAt;
  requestAnimationFrame(() => {
    const frameStart = wallNow();
    // The frame's rendering runs after its animation callbacks; a message
    // posted from one is handled once that frame has been painted.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const painted = wallNow();
      const log = (window.agonLatency = window.agonLatency || { engine: [], person: [], click: [], steps: [] });
      for (const m of moves) {
        const seat = drawn.players[drawn.movers[m.index] === 'x' ? 0 : 1].kind;
        const moved = drawn.moved_at_ms[m.index];
        log[seat].push(painted - moved);
        if (seat === 'person' && clicked !== null && clickedAt === clicked) {
          // From the person's click to their move on the screen.
          log.click.push(performance.now() - clicked);
          clickedAt = null;
        }
        if (seat !== 'engine' || m.arrived === null || drawn.sent_at_ms === undefined) continue;
        log.steps.push({
          game: drawn.game,
          ply: m.index + 1,
          total: painted - moved,
          server: drawn.sent_at_ms - moved,
          wire: m.arrived - drawn.sent_at_ms,
          parse: m.parsed - m.arrived,
          draw: drawnAt - m.parsed,
          wait: frameStart - drawnAt,
          paint: painted - frameStart,
        });
      }
    };
    channel.port2.postMessage(null);
  });
}

function module() {
  return GAMES[state.game];
}

function personSide() {
  const persons = ['x', 'o'].filter((s, i) => state.players[i].kind === 'person');
  return persons.length === 1 ? persons[0] : null;
}

/** The side to move after `ply` moves (the field's place in the position
 * string differs from game to game; the record says it for every game). */
function sideAt(ply) {
  return ply < state.moves.length ? state.movers[ply] : state.side;
}

function formatScore(score) {
  if (!score) return '';
  if (score.mate !== undefined) {
    const winner = score.mate > 0 ? 'x' : 'o';
    return `${winner} ${t('winIn')} ${Math.abs(score.mate)}`;
  }
  const value = score.cp / 100;
  return (value > 0 ? '+' : '') + value.toFixed(2);
}

function formatClock(ms) {
  const total = Math.max(0, Math.floor(ms / 100));
  const tenths = total % 10;
  const seconds = Math.floor(total / 10) % 60;
  const minutes = Math.floor(total / 600);
  return `${minutes}:${String(seconds).padStart(2, '0')}${minutes === 0 ? '.' + tenths : ''}`;
}

function updateClocks() {
  if (!state) return;
  ['x', 'o'].forEach((side, i) => {
    const node = $(`player-${side}`).querySelector('.clock');
    if (!state.clocks) {
      node.textContent = '';
      return;
    }
    let left = state.clocks[i];
    if (state.running === side) left -= performance.now() - receivedAt;
    node.textContent = formatClock(left);
    node.classList.toggle('running', state.running === side);
  });
}

function render() {
  if (!state) return;
  drawnState = state;
  document.body.dataset.game = state.game;
  document.body.dataset.ply = String(state.moves.length);
  document.body.dataset.id = String(state.id);
  const ply = viewPly === null ? state.moves.length : viewPly;
  const live = viewPly === null && !state.result;
  const fen = ply === 0 ? state.start : state.fens[ply - 1];
  const info = state.analysis && state.analysis.info;
  // The first moves of the engine's line, with the side that plays each
  // (the server replays them by the rules).
  const sides = live && info && info.ply === state.moves.length && info.pv_sides ? info.pv_sides : [];
  const pv = sides.map((side, n) => ({ move: info.pv[n], side, n }));
  const game = module();
  const view = {
    fen, start: state.start, moves: state.moves, movers: state.movers, ply,
    legal: live ? state.legal : [], live, flipped, pv, lastMove: ply > 0 ? state.moves[ply - 1] : null,
    side: sideAt(ply), secrets: state.secrets, personSide: personSide(),
    showAllSecrets: !personSide() || !!state.result, options: state.options, t,
    play: (text) => {
      clickedAt = performance.now();
      return post('/api/move', { move: text, ply: state.moves.length });
    },
    redraw: () => {
      selectionEpoch += 1;
      render();
    },
  };
  // Redraw the board only when what it shows changed: analysis updates
  // arrive many times a second, and a board replaced between a person's
  // mouse-down and mouse-up would lose the click.
  const key = JSON.stringify([state.id, fen, ply, view.legal, live, flipped, pv, state.secrets, lang, selectionEpoch]);
  if (key !== boardKey) {
    boardKey = key;
    const drawn = game.draw(view);
    // A module may update its board in place (CTOR does): it is then
    // already there, and putting it back would paint it all again.
    const holder = $('board');
    if (holder.firstChild !== drawn.svg || holder.childNodes.length !== 1) holder.replaceChildren(drawn.svg);
    $('panel').replaceChildren(...(drawn.panel ? [drawn.panel] : []));
  }
  // Moves that are not made on the board: passes, 'end', substitutions.
  const special = (live ? state.legal : []).filter((m) => !game.boardMove(m));
  $('special').replaceChildren(...special.map((m) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.move = m;
    button.textContent = m === '0000' ? `${m} (${t('pass')})` : m === 'end' ? `end (${t('endTurn')})` : m;
    button.addEventListener('click', () => view.play(m));
    return button;
  }));
  renderSummary(game, fen, ply);
  renderPlayers();
  renderResult();
  renderMoves(ply);
  renderGraph(ply);
  renderAnalysis();
  measure(wallNow());
  // The board editor of the set-up, for the games that have one.
  if (!game.editor && !$('editor').hidden) {
    $('editor').hidden = true;
    $('editor').replaceChildren();
  }
  $('edit').hidden = !game.editor;
  $('edit').textContent = t($('editor').hidden ? 'editBoard' : 'closeEditor');
  // The position string follows the board when its position changes,
  // unless the person is editing it (by hand or with the board editor);
  // what they typed stays until then.
  if (fen !== shownFen && document.activeElement !== $('fen') && $('editor').hidden) {
    $('fen').value = fen;
    shownFen = fen;
  }
  $('pgn').classList.toggle('disabled', !state.result);
  // Moves played for a person are taken back with the move before them.
  $('takeback').disabled = !state.forced.includes(false);
  $('resign').disabled = !!state.result || !state.players.some((p) => p.kind === 'person');
  $('rules').textContent = RULES[state.game][lang];
  $('analyse').textContent = state.analysis ? t('stopAnalysis') : t('startAnalysis');
  $('review').disabled = !state.result;
  const review = state.review;
  $('review-progress').hidden = !review;
  if (review) {
    $('review-progress').max = review.total;
    $('review-progress').value = review.done;
    $('review-status').textContent = review.error
      ? `${t('error')}: ${review.error}`
      : `${review.done}/${review.total} ${t('reviewed')}${review.done === review.total ? ' — ' + t('marks') : ''}`;
  } else {
    $('review-status').textContent = '';
  }
  updateClocks();
}

function renderSummary(game, fen, ply) {
  const parts = [];
  const s = game.summary ? game.summary(fen, state.options) : {};
  const names = { ataxx: 'pieces', dots: 'boxes', yote: 'stones', ctor: 'chips' };
  if (s.x !== undefined) parts.push(`x ${s.x} · o ${s.o} ${t(names[state.game] || 'pieces')}`);
  if (s.left !== undefined) parts.push(`${s.left} ${t('left')}`);
  if (s.plies !== undefined) parts.push(`${s.plies} ${t('plies')}`);
  if (s.quiet !== undefined) parts.push(`${s.quiet} ${t('quiet')}`);
  if (s.turn !== undefined) parts.push(`${t('turn')} ${s.turn} — ${t('budget')}: ${s.budget}`);
  const side = sideAt(ply);
  if (!state.result || ply < state.moves.length) {
    let line = `${side} ${t('toMove')}`;
    if (ply > 0 && state.movers[ply - 1] === side && state.game === 'dots') line = `${side} ${t('again')}`;
    parts.push(line);
  }
  // A move played for the person (a pass, a due substitution, a turn's
  // end) is said where they look, not only in the move list.
  const forced = [];
  const person = (i) => state.players[state.movers[i] === 'x' ? 0 : 1].kind === 'person';
  for (let i = ply - 1; i >= 0 && (state.forced[i] || !person(i)); i--) {
    if (state.forced[i]) forced.unshift(`${state.movers[i]} ${state.moves[i]}`);
  }
  if (forced.length) parts.push(`${forced.join(', ')}: ${t('forcedNote')}`);
  if (viewPly !== null) parts.push(`${t('view')} ${ply}/${state.moves.length} — ${t('live')}: →/End`);
  $('summary').textContent = parts.join(' — ');
}

function renderPlayers() {
  ['x', 'o'].forEach((side, i) => {
    const player = state.players[i];
    const box = $(`player-${side}`);
    let name = player.kind === 'person' ? t('person') : state.names[i];
    if (state.thinking === side) name += ` (${t('thinking')})`;
    box.querySelector('.name').textContent = `${side}: ${name}`;
    box.classList.toggle('to-move', !state.result && state.side === side);
  });
}

function renderResult() {
  const node = $('result');
  if (!state.result) {
    node.textContent = '';
    delete node.dataset.winner;
    return;
  }
  const { winner, reason } = state.result;
  node.dataset.winner = winner;
  node.textContent = `${t('result')}: ${winner === 'draw' ? t('draw') : `${winner} ${t('wins')}`} — ${reasonText(reason)}`;
}

let listed = { id: null, items: [], marks: '', current: -1 }; // what the move list shows

/** The move list: items are added and removed as moves are, rather than
 * rebuilt after every move (a long CTOR game has hundreds). */
function renderMoves(ply) {
  const list = $('moves');
  const marks = state.review ? state.review.marks : [];
  const marksKey = JSON.stringify([marks, lang]);
  if (listed.id !== state.id || listed.marks !== marksKey) {
    listed = { id: state.id, items: [], marks: marksKey, current: -1 };
    list.replaceChildren();
  }
  // Keep the items that still show the same move.
  let keep = 0;
  const text = (i) => `${state.movers[i]} ${state.moves[i]}${state.forced[i] ? ' *' : ''}`;
  while (keep < listed.items.length && keep < state.moves.length && listed.items[keep].dataset.text === text(keep)) keep++;
  for (const item of listed.items.splice(keep)) item.remove();
  for (let i = keep; i < state.moves.length; i++) {
    const item = document.createElement('li');
    item.dataset.text = text(i);
    const number = document.createElement('span');
    number.className = 'n';
    number.textContent = `${i + 1}.`;
    item.append(number, ` ${state.movers[i]} ${state.moves[i]}`);
    if (state.forced[i]) {
      // Played by the server: the rules left no choice.
      item.classList.add('forced');
      item.title = t('forcedNote');
      const tag = document.createElement('span');
      tag.className = 'forced-tag';
      tag.textContent = ` (${t('forced')})`;
      item.appendChild(tag);
    }
    const score = state.scores[i];
    if (score) item.title = formatScore(score);
    const mark = marks[i];
    if (mark) {
      const badge = document.createElement('span');
      badge.className = `mark mark-${mark.length === 2 && mark[1] === '!' ? 'inaccuracy' : mark === '?' ? 'mistake' : 'blunder'}`;
      badge.textContent = mark;
      item.appendChild(badge);
    }
    item.addEventListener('click', () => {
      viewPly = i + 1 === state.moves.length ? null : i + 1;
      render();
    });
    listed.items.push(item);
    list.appendChild(item);
  }
  const current = ply - 1;
  const item = listed.items[current];
  if (current === listed.current && (!item || item.classList.contains('current'))) return;
  if (listed.items[listed.current]) listed.items[listed.current].classList.remove('current');
  listed.current = current;
  if (!item) return;
  item.classList.add('current');
  // Keep the current move in sight by scrolling the list alone (moving
  // the page to the list would hide the board on a phone), at the start
  // of the coming frame: measuring the list now would lay the page out
  // once more before that frame does.
  requestAnimationFrame(() => {
    if (!item.isConnected) return;
    const top = item.offsetTop;
    if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  });
}

function renderGraph(ply) {
  const w = 300;
  const h = 90;
  const svg = el('svg', { viewBox: `0 0 ${w} ${h}`, class: 'graph' });
  svg.appendChild(el('line', { x1: 0, y1: h / 2, x2: w, y2: h / 2, class: 'axis' }));
  const n = Math.max(2, state.moves.length);
  const height = (score) => {
    let v = 0;
    if (score.end !== undefined) v = score.end === 'x' ? 1 : score.end === 'o' ? -1 : 0;
    else if (score.mate !== undefined) v = Math.sign(score.mate) || -1;
    else v = Math.tanh(score.cp / 400);
    return h / 2 - v * (h / 2 - 4);
  };
  // The review's value of every position, else the engines' own scores
  // after their moves.
  const values = state.review ? state.review.values.map((v, i) => [i, v]) : state.scores.map((v, i) => [i + 1, v]);
  const points = values.filter(([, v]) => v).map(([i, v]) => `${(i / n) * w},${height(v)}`);
  if (points.length) svg.appendChild(el('polyline', { points: points.join(' '), class: 'eval' }));
  if (state.review) {
    state.review.marks.forEach((mark, i) => {
      const after = state.review.values[i + 1];
      if (!mark || !after) return;
      const kind = mark === '?!' ? 'inaccuracy' : mark === '?' ? 'mistake' : 'blunder';
      svg.appendChild(el('circle', { cx: ((i + 1) / n) * w, cy: height(after), r: 3.5, class: `mark-dot mark-${kind}` }));
    });
  }
  svg.appendChild(el('line', { x1: (ply / n) * w, y1: 0, x2: (ply / n) * w, y2: h, class: 'cursor' }));
  $('graph').replaceChildren(svg);
}

function renderAnalysis() {
  const box = $('analysis');
  const a = state.analysis;
  if (!a) {
    box.textContent = '';
    return;
  }
  const info = a.info || {};
  const rows = [
    [t('engine'), a.engine],
    [t('depth'), info.depth ?? ''],
    [t('score'), formatScore(info.score)],
    [t('nodes'), info.nodes ?? ''],
    [t('nps'), info.nps ?? ''],
    [t('pv'), lineText(info)],
  ];
  const solved = /solved: (win|loss|draw)(?:.*final margin (-?\d+))?/.exec(info.string || '');
  if (solved) {
    // The exact value, said as a result rather than a score.
    const stm = state.side;
    const winner = solved[1] === 'win' ? stm : solved[1] === 'loss' ? (stm === 'x' ? 'o' : 'x') : null;
    let text = winner ? `${winner} ${t('wins')}` : t('draw');
    const margin = solved[2] === undefined ? 0 : Math.abs(Number(solved[2]));
    if (winner && margin) text += ` ${t('by')} ${margin} ${t('boxes')}`;
    if (winner && info.score && info.score.mate !== undefined) text += ` (${formatScore(info.score)})`;
    rows.splice(2, 1, [t('score'), `${text} — ${t('exact')}`]);
  } else if (info.string) {
    rows.push(['', info.string]);
  }
  if (a.error) rows.push([t('error'), a.error]);
  box.replaceChildren(...rows.map(([k, v]) => {
    const row = document.createElement('div');
    row.className = 'analysis-row';
    const key = document.createElement('span');
    key.textContent = k;
    const value = document.createElement('span');
    if (v instanceof Node) value.appendChild(v);
    else value.textContent = String(v);
    row.append(key, value);
    return row;
  }));
  box.dataset.updates = String(a.updates);
}

/** The engine's line as text, its moves drawn on the board numbered and
 * coloured as there. */
function lineText(info) {
  const line = document.createDocumentFragment();
  const sides = info.ply === state.moves.length ? info.pv_sides || [] : [];
  (info.pv || []).forEach((move, n) => {
    if (n > 0) line.append(' ');
    if (n >= sides.length) {
      line.append(move);
      return;
    }
    const item = document.createElement('span');
    item.className = `pv-text pv-text-${sides[n]}`;
    const number = document.createElement('sup');
    number.textContent = String(n + 1);
    item.append(number, move);
    line.append(item);
  });
  return line;
}

function applyLanguage() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  $('language').textContent = t('language');
  render();
}

function optionInput(spec) {
  const label = document.createElement('label');
  label.append(spec.name, ' ');
  let input;
  if (spec.type === 'check') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = spec.default === 'true';
  } else if (spec.type === 'combo') {
    input = document.createElement('select');
    for (const v of spec.vars) input.add(new Option(v, v));
    input.value = spec.default;
  } else {
    input = document.createElement('input');
    input.type = spec.type === 'spin' ? 'number' : 'text';
    if (spec.type === 'spin') {
      input.min = spec.min;
      input.max = spec.max;
    }
    input.value = spec.default === '<empty>' ? '' : spec.default;
  }
  input.dataset.option = spec.name;
  input.dataset.type = spec.type;
  input.addEventListener('change', updateForm);
  label.appendChild(input);
  return label;
}

function updateOptions() {
  const game = config.games.find((g) => g.name === $('game').value);
  const box = $('game-options');
  box.replaceChildren(box.querySelector('legend'), ...game.options.map(optionInput));
  box.hidden = game.options.length === 0;
  updateForm();
}

function updateForm() {
  const mode = $('mode').value;
  for (const node of document.querySelectorAll('.mode-pe, .mode-ee, .mode-an')) {
    node.hidden = !node.classList.contains(`mode-${mode}`);
  }
  const limit = $('limit').value;
  for (const kind of ['movetime', 'clock', 'depth', 'nodes']) {
    for (const node of document.querySelectorAll(`.limit-${kind}`)) node.hidden = kind !== limit;
  }
  const secrets = document.querySelector('[data-option="Secrets"]');
  const withSecrets = $('game').value === 'ctor' && secrets && secrets.checked;
  $('secrets-box').hidden = !withSecrets || mode === 'ee';
  const side = $('person-side').value;
  document.querySelector('.secret-x').hidden = mode === 'pe' && side !== 'x';
  document.querySelector('.secret-o').hidden = mode === 'pe' && side !== 'o';
}

function engineChoice(selectId) {
  const options = [['Threads', $('opt-threads').value], ['Hash', $('opt-hash').value]];
  if ($('opt-search').value !== 'auto') options.push(['Search', $('opt-search').value]);
  if ($('opt-eval').value !== 'auto') options.push(['Eval', $('opt-eval').value]);
  if ($('opt-hidden').value !== 'ignore') options.push(['HiddenInfo', $('opt-hidden').value]);
  for (const part of $('opt-other').value.split(';')) {
    const [name, ...value] = part.split('=');
    if (name && name.trim()) options.push([name.trim(), value.join('=').trim()]);
  }
  return { kind: 'engine', engine: $(selectId).value, options };
}

/** The new-game request the set-up form describes. */
function newGameRequest(fen) {
  const options = [];
  for (const input of $('game-options').querySelectorAll('[data-option]')) {
    const value = input.dataset.type === 'check' ? String(input.checked) : input.value;
    options.push([input.dataset.option, value]);
  }
  const mode = $('mode').value;
  const person = { kind: 'person' };
  let players = [person, person];
  if (mode === 'pe') {
    players = $('person-side').value === 'x' ? [person, engineChoice('engine-a')] : [engineChoice('engine-a'), person];
  } else if (mode === 'ee') {
    players = [engineChoice('engine-x'), engineChoice('engine-o')];
  }
  const kind = $('limit').value;
  const limit = { kind };
  if (kind === 'movetime') limit.ms = Number($('limit-ms').value);
  if (kind === 'clock') {
    limit.base_ms = Math.round(Number($('limit-base').value) * 1000);
    limit.inc_ms = Math.round(Number($('limit-inc').value) * 1000);
  }
  if (kind === 'depth') limit.depth = Number($('limit-depth').value);
  if (kind === 'nodes') limit.nodes = Number($('limit-nodes').value);
  const request = { game: $('game').value, options, players, limit };
  if (!$('secrets-box').hidden) {
    request.secrets = {};
    for (const side of ['x', 'o']) {
      const box = document.querySelector(`.secret-${side}`);
      if (!box.hidden && $(`secret-${side}`).value.trim()) request.secrets[side] = $(`secret-${side}`).value.trim();
    }
  }
  if (mode === 'an') request.analysis = engineChoice('engine-a');
  if (fen) request.fen = fen;
  return request;
}

/** Opens the set-up's board editor on the position shown, or closes it. */
function toggleEditor() {
  if (!$('editor').hidden) {
    closeEditor();
    return;
  }
  const game = module();
  if (!game.editor) return;
  $('editor').replaceChildren(game.editor($('fen').value, (fen) => { $('fen').value = fen; }, t));
  $('editor').hidden = false;
  render();
}

function closeEditor() {
  if ($('editor').hidden) return;
  $('editor').hidden = true;
  $('editor').replaceChildren();
  shownFen = null; // the position string shows the board again
  render();
}

function walk(delta) {
  if (!state) return;
  const current = viewPly === null ? state.moves.length : viewPly;
  const next = Math.max(0, Math.min(state.moves.length, current + delta));
  viewPly = next === state.moves.length ? null : next;
  render();
}

function connect() {
  const events = new EventSource('/api/events');
  events.onmessage = (event) => {
    const arrived = wallNow();
    accept(JSON.parse(event.data), arrived);
  };
  events.onopen = () => { $('status').textContent = ''; };
  events.onerror = () => { $('status').textContent = '⚠'; };
}

async function init() {
  config = await api('GET', '/api/config');
  for (const game of config.games) $('game').add(new Option(game.name, game.name));
  for (const select of document.querySelectorAll('.engine-list')) {
    for (const engine of config.engines) select.add(new Option(engine.name, engine.name));
  }
  $('game').addEventListener('change', updateOptions);
  $('mode').addEventListener('change', updateForm);
  $('limit').addEventListener('change', updateForm);
  $('person-side').addEventListener('change', updateForm);
  $('setup-form').addEventListener('submit', (event) => {
    event.preventDefault();
    post('/api/new', newGameRequest(null));
  });
  $('takeback').addEventListener('click', () => post('/api/takeback'));
  $('resign').addEventListener('click', () => post('/api/resign'));
  $('flip').addEventListener('click', () => { flipped = !flipped; render(); });
  $('copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('fen').value);
      $('status').textContent = t('copied');
    } catch {
      $('fen').select();
    }
  });
  $('edit').addEventListener('click', toggleEditor);
  $('set').addEventListener('click', () => {
    // The position string is the current game's, so are the options.
    if (state && $('game').value !== state.game) {
      $('game').value = state.game;
      updateOptions();
    }
    post('/api/new', newGameRequest($('fen').value)).then((next) => {
      // Set up: the board shows it now. Refused: the editor stays open.
      if (next) closeEditor();
    });
  });
  $('analyse').addEventListener('click', () => {
    post('/api/analysis', { engine: state && state.analysis ? null : engineChoice('engine-a') });
  });
  $('review').addEventListener('click', () => {
    post('/api/review', { engine: engineChoice('engine-a'), ms: Number($('review-ms').value) });
  });
  $('pgn').addEventListener('click', (event) => {
    if (!state || !state.result) event.preventDefault();
  });
  $('language').addEventListener('click', () => {
    lang = lang === 'fr' ? 'en' : 'fr';
    localStorage.setItem('agon-lang', lang);
    applyLanguage();
  });
  document.addEventListener('keydown', (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === 'ArrowLeft') walk(-1);
    else if (event.key === 'ArrowRight') walk(1);
    else if (event.key === 'Home') walk(-Infinity);
    else if (event.key === 'End') walk(Infinity);
    else return;
    event.preventDefault();
  });
  updateOptions();
  accept(await api('GET', '/api/state'));
  $('game').value = state.game;
  updateOptions();
  applyLanguage();
  connect();
  setInterval(updateClocks, 100);
}

init().catch((e) => message(e.message));
