//! Iterative-deepening alpha-beta (negamax with principal variation search),
//! generic over [`Game`].
//!
//! A side may move several times in a row, so the search never negates
//! blindly: a child where the same side is still to move is searched with
//! the same window and its score kept as is; only a change of side negates.
//!
//! Move ordering: the transposition-table move, then killer moves of the ply,
//! then the rest by history score plus, at depth ≥ 2, the static evaluation of
//! the child from the mover's point of view (cheap, generic, and a good guess
//! of the best move in every game here).

use super::tt::{Bound, StoreArgs, TranspositionTable};
use super::{INFINITY, Limits, MATE, Report, SearchResult, is_proven, loss_in, win_in};
use crate::game::{Game, GameState, Outcome};
use ahash::AHashMap;

/// Deepest ply the search goes to (depth plus same-side chains).
pub const MAX_PLY: usize = 128;
/// Deepest iteration allowed by `go depth`.
pub const MAX_DEPTH: u32 = 64;
/// How often (in nodes) the clock and the stop flag are looked at.
const CHECK_EVERY: u64 = 256;

/// The alpha-beta searcher. Keeps its transposition table and history
/// between searches; [`AlphaBeta::clear`] forgets them.
pub struct AlphaBeta<G: Game> {
    tt: TranspositionTable<G::Move>,
    history: AHashMap<(bool, G::Move), i32>,
    killers: Vec<[Option<G::Move>; 2]>,
    move_buffers: Vec<Vec<G::Move>>,
    pv: Vec<Vec<G::Move>>,
    /// Repetition keys of the game so far plus the current search path.
    keys: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    aborted: bool,
}

/// Window and position of one node, to keep argument lists short.
#[derive(Clone, Copy)]
struct Window {
    alpha: i32,
    beta: i32,
}

impl<G: Game> AlphaBeta<G> {
    /// A searcher with a transposition table of `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> Self {
        AlphaBeta {
            tt: TranspositionTable::new(hash_mb),
            history: AHashMap::new(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            move_buffers: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            pv: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            keys: Vec::new(),
            nodes: 0,
            seldepth: 0,
            aborted: false,
        }
    }

    /// Resizes the transposition table (clears it).
    pub fn resize(&mut self, hash_mb: usize) {
        self.tt = TranspositionTable::new(hash_mb);
    }

    /// Forgets the table, history and killers (`uginewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.clear();
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    /// Searches `state` until `limits` say stop, calling `report` after each
    /// completed iteration. Returns a legal move whenever one exists.
    pub fn search(
        &mut self,
        state: &GameState<G>,
        limits: &Limits,
        report: &mut dyn FnMut(&Report),
    ) -> SearchResult<G::Move> {
        self.tt.new_search();
        self.nodes = 0;
        self.aborted = false;
        self.keys.clone_from(&state.keys);
        let root_moves = state.legal_moves();
        let Some(&first) = root_moves.first() else {
            return SearchResult {
                best: None,
                score: 0,
                nodes: 0,
                depth: 0,
            };
        };
        let mut result = SearchResult {
            best: Some(first),
            score: 0,
            nodes: 0,
            depth: 0,
        };
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        for depth in 1..=max_depth {
            self.seldepth = 0;
            let window = Window {
                alpha: -INFINITY,
                beta: INFINITY,
            };
            let score = self.negamax(&state.position, depth as i32, 0, window, limits);
            if self.aborted && depth > 1 {
                // Root moves are only recorded once fully searched, so a best
                // move found before the stop is sound (the previous best was
                // searched first).
                if let Some(&best) = self.pv[0].first() {
                    result.best = Some(best);
                    result.score = score;
                }
                break;
            }
            result = SearchResult {
                best: self.pv[0].first().copied().or(result.best),
                score,
                nodes: self.nodes,
                depth,
            };
            report(&self.report(&state.position, depth, score, limits));
            // A proven result does not change with more depth, and a single
            // legal move needs no thought.
            let proven_in_reach = is_proven(score) && (MATE - score.abs()) as u32 <= depth;
            if self.aborted || proven_in_reach || !limits.may_continue(self.nodes) {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    fn report(&self, root: &G, depth: u32, score: i32, limits: &Limits) -> Report {
        let mut position = root.clone();
        let pv = self.pv[0]
            .iter()
            .map(|&mv| {
                let text = position.move_to_string(mv);
                position.play(mv);
                text
            })
            .collect();
        Report {
            depth,
            seldepth: self.seldepth.max(depth),
            score,
            nodes: self.nodes,
            elapsed: limits.elapsed(),
            pv,
        }
    }

    /// Score of a finished game for the side to move at `ply`.
    fn outcome_score(outcome: Outcome, position: &G, ply: u32) -> i32 {
        match outcome.sign_for(position.side_to_move()) {
            1 => win_in(ply),
            -1 => loss_in(ply),
            _ => 0,
        }
    }

    /// The result of the rules at this node, repetition included (the node's
    /// key is already on `self.keys`).
    fn node_outcome(&self, position: &G) -> Option<Outcome> {
        if let Some(outcome) = position.outcome() {
            return Some(outcome);
        }
        let key = position.repetition_key()?;
        let seen = self.keys.iter().filter(|&&k| k == key).count();
        (seen >= position.repetition_limit()).then(|| position.repetition_outcome())
    }

    fn poll_limits(&mut self, limits: &Limits) {
        if self.nodes.is_multiple_of(CHECK_EVERY)
            && (limits.must_stop() || limits.nodes.is_some_and(|n| self.nodes >= n))
        {
            self.aborted = true;
        }
    }

    fn negamax(
        &mut self,
        position: &G,
        depth: i32,
        ply: usize,
        window: Window,
        limits: &Limits,
    ) -> i32 {
        let Window { mut alpha, beta } = window;
        self.nodes += 1;
        self.pv[ply].clear();
        self.seldepth = self.seldepth.max(ply as u32);
        self.poll_limits(limits);
        if self.aborted && ply > 0 {
            return 0;
        }
        if let Some(outcome) = self.node_outcome(position) {
            return Self::outcome_score(outcome, position, ply as u32);
        }
        if depth <= 0 || ply >= MAX_PLY {
            return position.evaluate();
        }
        let key = position.hash();
        let tt_entry = self.tt.probe(key, ply as u32);
        if let Some(entry) = tt_entry
            && ply > 0
            && entry.depth as i32 >= depth
        {
            let usable = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => entry.score >= beta,
                Bound::Upper => entry.score <= alpha,
            };
            if usable {
                return entry.score;
            }
        }
        let mut moves = std::mem::take(&mut self.move_buffers[ply]);
        position.generate_moves(&mut moves);
        self.order_moves(
            position,
            &mut moves,
            tt_entry.and_then(|e| e.best),
            ply,
            depth,
        );

        let side = position.side_to_move();
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = position.clone();
            child.play(mv);
            let same_side = child.side_to_move() == side;
            let pushed = child.repetition_key().map(|k| self.keys.push(k)).is_some();
            // Principal variation search: the first move gets the full
            // window; the others must prove with a null window that they are
            // no better, and are searched again only if they might be.
            let full = Window { alpha, beta };
            let null = Window {
                alpha,
                beta: alpha + 1,
            };
            let first = if i == 0 { full } else { null };
            let mut score = self.search_child(&child, same_side, depth - 1, ply, first, limits);
            if i > 0 && score > alpha && score < beta && !self.aborted {
                score = self.search_child(&child, same_side, depth - 1, ply, full, limits);
            }
            if pushed {
                self.keys.pop();
            }
            if self.aborted {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
            if alpha >= beta {
                self.reward_cutoff(side == crate::game::Player::X, mv, ply, depth);
                break;
            }
        }
        self.move_buffers[ply] = moves;
        if self.aborted {
            return best_score.max(-INFINITY + 1);
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let args = StoreArgs {
            best: best_move,
            score: best_score,
            depth: depth as i16,
            bound,
        };
        self.tt.store(key, args, ply as u32);
        best_score
    }

    /// Searches a child: same window and no negation when the same side is
    /// to move again, the negated swapped window otherwise.
    fn search_child(
        &mut self,
        child: &G,
        same_side: bool,
        depth: i32,
        ply: usize,
        window: Window,
        limits: &Limits,
    ) -> i32 {
        if same_side {
            self.negamax(child, depth, ply + 1, window, limits)
        } else {
            let flipped = Window {
                alpha: -window.beta,
                beta: -window.alpha,
            };
            -self.negamax(child, depth, ply + 1, flipped, limits)
        }
    }

    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        if let Some(child_line) = tail.first() {
            line.extend_from_slice(child_line);
        }
    }

    fn reward_cutoff(&mut self, side_x: bool, mv: G::Move, ply: usize, depth: i32) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = depth * depth;
        let entry = self.history.entry((side_x, mv)).or_insert(0);
        *entry = (*entry + bonus).min(1 << 20);
    }

    /// Sorts moves best-first: TT move, killers, then history plus the
    /// child's static evaluation (at depth ≥ 2, where it pays for itself).
    fn order_moves(
        &self,
        position: &G,
        moves: &mut [G::Move],
        tt_move: Option<G::Move>,
        ply: usize,
        depth: i32,
    ) {
        let side = position.side_to_move();
        let side_x = side == crate::game::Player::X;
        let killers = self.killers[ply];
        let mut keyed: Vec<(i64, G::Move)> = moves
            .iter()
            .map(|&mv| {
                let key = if Some(mv) == tt_move {
                    i64::MAX
                } else if Some(mv) == killers[0] {
                    i64::MAX - 1
                } else if Some(mv) == killers[1] {
                    i64::MAX - 2
                } else {
                    let history = *self.history.get(&(side_x, mv)).unwrap_or(&0) as i64;
                    let eval = if depth >= 2 {
                        let mut child = position.clone();
                        child.play(mv);
                        let e = child.evaluate() as i64;
                        if child.side_to_move() == side { e } else { -e }
                    } else {
                        0
                    };
                    eval * 64 + history
                };
                (key, mv)
            })
            .collect();
        keyed.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
        for (slot, (_, mv)) in moves.iter_mut().zip(keyed) {
            *slot = mv;
        }
    }
}
