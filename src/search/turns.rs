//! A search over whole turns, for games where a side makes several moves in
//! a row (CTOR's operations, ended by `end`). Alpha-beta counts each move
//! as a ply, so in such a game it spends its depth inside one turn and never
//! sees the opponent's answer. This search makes a turn one step instead:
//!
//! - **Candidate turns** of a position are built move by move, as a beam:
//!   every unfinished turn is extended by the moves the game's hints rank
//!   best ([`crate::game::Game::move_hints`]) and by any move that ends the
//!   turn; the unfinished turns are ranked by the evaluation and the best
//!   `beam` kept; orders of the same moves that reach the same position are
//!   one (the position's hash). The finished turns are ranked by the
//!   evaluation of the position they leave, the best `width` kept.
//! - **Iterative deepening over turns**: depth 1 chooses among the root's
//!   candidates by the position each leaves, depth 2 also answers each with
//!   the opponent's best candidate, and so on, with alpha-beta between
//!   turns. A turn's candidates are built once per search.
//!
//! Depth, `info` lines and the principal variation count turns, and the
//! line shows every move of them, the opponent's included. Nodes are
//! evaluations.

use super::{INFINITY, Limits, Report, SearchResult, loss_in, win_in};
use crate::game::{Game, GameState, Outcome, Player};
use crate::network::Network;
use crate::tuning::TurnTuning;
use ahash::{AHashMap, AHashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Moves one turn may have at most (a guard: CTOR's replacements are
/// unlimited but each needs an enemy chip, and the board is finite).
const MAX_TURN_MOVES: usize = 64;
/// How often (in evaluations) the limits are checked.
const CHECK_EVERY: u64 = 256;
/// Deepest iteration, in turns.
const MAX_TURNS: u32 = 32;

/// How candidates are built at one node (see [`TurnTuning`]).
#[derive(Clone, Copy)]
struct Widths {
    width: u32,
    beam: u32,
    expand: u32,
}

impl Widths {
    /// The root's widths or those below it.
    fn of(tuning: &TurnTuning, root: bool) -> Widths {
        if root {
            Widths {
                width: tuning.root_width,
                beam: tuning.root_beam,
                expand: tuning.root_expand,
            }
        } else {
            Widths {
                width: tuning.width,
                beam: tuning.beam,
                expand: tuning.expand,
            }
        }
    }
}

/// A finished turn: its moves and the position it leaves.
struct Turn<G: Game> {
    moves: Vec<G::Move>,
    end: G,
    /// The static value of `end` for the side that played the turn.
    score: i32,
}

/// The turn search's state for one search.
pub struct TurnSearch<'a, G: Game> {
    tuning: TurnTuning,
    limits: &'a Limits,
    network: Option<Arc<Network>>,
    inputs: Vec<u16>,
    nodes: u64,
    aborted: bool,
    /// The candidates of every position met, by hash and whether they
    /// were built as the root's.
    candidates: AHashMap<(u64, bool), Rc<Vec<Turn<G>>>>,
    /// The index of the candidate that was best at a position, tried first
    /// when the position is searched again.
    best_index: AHashMap<u64, usize>,
}

impl<'a, G: Game> TurnSearch<'a, G> {
    /// A search within `limits`, evaluating with `network` (checked to fit
    /// the game) or the game's own evaluation.
    pub fn new(
        tuning: TurnTuning,
        limits: &'a Limits,
        network: Option<Arc<Network>>,
    ) -> TurnSearch<'a, G> {
        TurnSearch {
            tuning,
            limits,
            network,
            inputs: Vec::new(),
            nodes: 0,
            aborted: false,
            candidates: AHashMap::new(),
            best_index: AHashMap::new(),
        }
    }

    /// Searches `state` until the limits say stop, calling `report` after
    /// each completed iteration. Returns a legal move whenever one exists.
    pub fn search(
        self,
        state: &GameState<G>,
        report: &mut dyn FnMut(&Report),
    ) -> SearchResult<G::Move> {
        self.search_with_line(state, report).0
    }

    /// [`TurnSearch::search`], with the best line found (the moves of the
    /// last iteration reported, the turn to play first; a first iteration
    /// cut short is reported too), so that the rest of the turn can be
    /// played from it.
    pub fn search_with_line(
        mut self,
        state: &GameState<G>,
        report: &mut dyn FnMut(&Report),
    ) -> (SearchResult<G::Move>, Vec<G::Move>) {
        let root = &state.position;
        let mut result = SearchResult {
            best: state.legal_moves().first().copied(),
            score: 0,
            nodes: 0,
            depth: 0,
        };
        let mut best_line = Vec::new();
        if result.best.is_none() || root.outcome().is_some() {
            return (result, best_line);
        }
        let max_depth = self.limits.depth.unwrap_or(MAX_TURNS).clamp(1, MAX_TURNS);
        for depth in 1..=max_depth {
            if depth > 1 && !self.limits.may_continue(self.nodes) {
                break;
            }
            let mut line = Vec::new();
            let score = self.negamax(root, depth, -INFINITY, INFINITY, 0, &mut line);
            if self.aborted && depth > 1 {
                break;
            }
            result.best = line.first().copied().or(result.best);
            result.score = score;
            result.depth = depth;
            report(&Report {
                depth,
                seldepth: line.len() as u32,
                score,
                nodes: self.nodes,
                elapsed: self.limits.elapsed(),
                pv: super::line_text(root, &line),
            });
            best_line = line;
            if self.aborted || super::is_proven(score) {
                break;
            }
        }
        result.nodes = self.nodes;
        (result, best_line)
    }

    /// The value of `position` for its side to move, searched `depth`
    /// turns deep; `line` receives the best line's moves.
    fn negamax(
        &mut self,
        position: &G,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: u32,
        line: &mut Vec<G::Move>,
    ) -> i32 {
        line.clear();
        let side = position.side_to_move();
        if let Some(outcome) = position.outcome() {
            return terminal_value(outcome, side, ply);
        }
        if depth == 0 {
            return self.value(position);
        }
        let turns = self.candidates_of(position, ply == 0, ply);
        let key = position.hash();
        let first = self.best_index.get(&key).copied().unwrap_or(0);
        let order = std::iter::once(first).chain((0..turns.len()).filter(|&i| i != first));
        let mut best = -INFINITY;
        let mut child_line = Vec::new();
        for index in order.filter(|&i| i < turns.len()) {
            let turn = &turns[index];
            let child_ply = ply + turn.moves.len() as u32;
            let value = if depth == 1 || turn.end.side_to_move() == side {
                // The turn's own value (built with it), or the game ended
                // inside the turn: no answer to search.
                child_line.clear();
                turn.score
            } else {
                -self.negamax(
                    &turn.end,
                    depth - 1,
                    -beta,
                    -alpha,
                    child_ply,
                    &mut child_line,
                )
            };
            if self.aborted {
                // A value from a search cut short is not trusted.
                break;
            }
            if value > best {
                best = value;
                line.clear();
                line.extend_from_slice(&turn.moves);
                line.extend_from_slice(&child_line);
                self.best_index.insert(key, index);
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        if best == -INFINITY {
            // Aborted before any candidate was searched: the static value.
            best = turns.first().map_or(0, |t| t.score);
            if let Some(turn) = turns.first() {
                line.extend_from_slice(&turn.moves);
            }
        }
        best
    }

    /// The candidate turns of `position`, built once per search.
    fn candidates_of(&mut self, position: &G, root: bool, ply: u32) -> Rc<Vec<Turn<G>>> {
        let key = (position.hash(), root);
        if let Some(found) = self.candidates.get(&key) {
            return Rc::clone(found);
        }
        let widths = Widths::of(&self.tuning, root);
        let turns = Rc::new(self.build_candidates(position, widths, ply));
        if !self.aborted {
            self.candidates.insert(key, Rc::clone(&turns));
        }
        turns
    }

    /// Builds the best `width` turns of `position`'s side to move by a beam
    /// over its moves (see the module's description).
    fn build_candidates(&mut self, root: &G, widths: Widths, ply: u32) -> Vec<Turn<G>> {
        let mover = root.side_to_move();
        let mut finished: Vec<Turn<G>> = Vec::new();
        let mut finished_keys = AHashSet::new();
        let mut seen = AHashSet::new();
        let mut frontier: Vec<(G, Vec<G::Move>)> = vec![(root.clone(), Vec::new())];
        let mut moves = Vec::new();
        let mut hints = Vec::new();
        let mut order = Vec::new();
        let mut keys = Vec::new();
        for _ in 0..MAX_TURN_MOVES {
            if frontier.is_empty() || self.aborted {
                break;
            }
            let mut next: Vec<(i32, G, Vec<G::Move>)> = Vec::new();
            for (position, turn) in &frontier {
                moves.clear();
                position.generate_moves(&mut moves);
                hints.clear();
                position.move_hints(&moves, &mut hints);
                tried_moves(
                    position,
                    &moves,
                    &hints,
                    widths.expand,
                    &mut order,
                    &mut keys,
                );
                for &i in &order {
                    let mv = moves[i];
                    let mut child = position.clone();
                    child.play(mv);
                    let child_key = child.hash();
                    let done = child.outcome().is_some() || child.side_to_move() != mover;
                    if done {
                        if finished_keys.insert(child_key) {
                            let plies = ply + turn.len() as u32 + 1;
                            let score = self.value_for(&child, mover, plies);
                            let mut line = turn.clone();
                            line.push(mv);
                            finished.push(Turn {
                                moves: line,
                                end: child,
                                score,
                            });
                        }
                    } else if seen.insert(child_key) {
                        let score = self.value(&child);
                        let mut line = turn.clone();
                        line.push(mv);
                        next.push((score, child, line));
                    }
                }
            }
            next.sort_by_key(|(score, ..)| std::cmp::Reverse(*score));
            next.truncate(widths.beam as usize);
            frontier = next.into_iter().map(|(_, p, line)| (p, line)).collect();
        }
        finished.sort_by_key(|turn| std::cmp::Reverse(turn.score));
        finished.truncate((widths.width as usize).max(1));
        finished
    }

    /// The value of `position` for `side`: proven when the game is over.
    fn value_for(&mut self, position: &G, side: Player, ply: u32) -> i32 {
        if let Some(outcome) = position.outcome() {
            return terminal_value(outcome, side, ply);
        }
        let value = self.value(position);
        if position.side_to_move() == side {
            value
        } else {
            -value
        }
    }

    /// The static evaluation for the side to move: the network's when the
    /// search has one (with the game's hidden-information term), else the
    /// game's own.
    fn value(&mut self, position: &G) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.check_limits();
        }
        match &self.network {
            Some(network) => {
                let hidden = G::hidden().map_or(0, |h| h.evaluation_term(position));
                network.evaluate_position(position, &mut self.inputs) + hidden
            }
            None => position.evaluate(),
        }
    }

    fn check_limits(&mut self) {
        let over_nodes = self.limits.nodes.is_some_and(|n| self.nodes >= n);
        if over_nodes || self.limits.must_stop() {
            self.aborted = true;
        }
    }
}

/// The indices of the moves of `position` to try, into `order`, best hint
/// first (ties in move order): the `expand` best by `hints` among the moves
/// that do not end the turn, and every move that does (`keys` is scratch
/// space). Only the best are sorted, as plain keys: a position with many
/// landings has thousands of moves, and sorting them all by their hints
/// took a quarter of the search.
fn tried_moves<G: Game>(
    position: &G,
    moves: &[G::Move],
    hints: &[i32],
    expand: u32,
    order: &mut Vec<usize>,
    keys: &mut Vec<u64>,
) {
    // Ascending keys: the hint descending (its bits flipped into an
    // unsigned order), then the index.
    let key = |i: usize| {
        let ascending = (hints[i] as u32) ^ 0x8000_0000;
        (u64::from(!ascending) << 32) | i as u64
    };
    order.clear();
    keys.clear();
    for (i, &mv) in moves.iter().enumerate() {
        if position.ends_turn(mv) {
            order.push(i);
        } else {
            keys.push(key(i));
        }
    }
    let expand = expand as usize;
    if keys.len() > expand {
        keys.select_nth_unstable(expand);
        keys.truncate(expand);
    }
    keys.extend(order.iter().map(|&i| key(i)));
    keys.sort_unstable();
    order.clear();
    order.extend(keys.iter().map(|&k| (k & 0xffff_ffff) as usize));
}

/// The value of a finished game for `side`, `ply` moves from the root.
fn terminal_value(outcome: Outcome, side: Player, ply: u32) -> i32 {
    match outcome {
        Outcome::Win(winner) if winner == side => win_in(ply),
        Outcome::Win(_) => loss_in(ply),
        Outcome::Draw => 0,
    }
}
