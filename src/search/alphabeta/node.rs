//! One search thread: the recursive principal-variation search with its
//! prunings, reductions and quiescence, over any [`Game`].
//!
//! A side may move several times in a row, so the search never negates
//! blindly: a child where the same side is still to move is searched with
//! the same window and its score kept as is; only a change of side negates.
//!
//! Bounds are fail-soft: a node returns the best score it saw even outside
//! the window, which makes table entries and aspiration re-searches tighter.
//! Proven scores (wins and losses) are never produced by pruning: every
//! pruning is skipped when a bound is a proven score, and moves are only
//! skipped once a non-losing score is in hand.

use super::eval_cache::EvalCache;
use super::history::{HISTORY_MAX, History};
use super::in_progress::InProgress;
use super::reductions::ReductionTable;
use crate::game::{Game, Outcome, Player};
use crate::network::Network;
use crate::search::tt::{Bound, StoreArgs, TranspositionTable};
use crate::search::{INFINITY, Limits, MATE_BOUND, is_proven, loss_in, win_in};
use crate::tuning::SearchTuning;
use ahash::AHashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Deepest ply the search goes to (depth plus same-side chains and
/// quiescence).
pub const MAX_PLY: usize = 128;
/// How often (in nodes) the clock and the stop flags are looked at.
const CHECK_EVERY: u64 = 256;
/// Ordering keys of the table move, killers and countermove, above every
/// hint and history score.
const TT_MOVE_KEY: i64 = i64::MAX;
const KILLER_KEY: i64 = 1 << 40;
const COUNTER_KEY: i64 = 1 << 39;
/// Weight of the game's move hint against history scores when ordering.
const HINT_WEIGHT: i64 = 64;
/// Remaining depth from which a node's moves are marked while searched and
/// a move another thread is searching is deferred (see [`InProgress`]).
pub const DEFER_MIN_DEPTH: i32 = 3;

/// What every thread of one search shares.
pub struct Context<'a> {
    /// The shared transposition table.
    pub tt: &'a TranspositionTable,
    /// The `go` limits (the protocol's stop flag among them).
    pub limits: &'a Limits,
    /// The game's parameters.
    pub tuning: &'a SearchTuning,
    /// Late-move reductions by depth and move number.
    pub reductions: &'a ReductionTable,
    /// Raised by the main thread when the search is over, to end helpers.
    pub finished: &'a AtomicBool,
    /// Nodes of all threads, flushed every `CHECK_EVERY` (256) nodes.
    pub total_nodes: &'a AtomicU64,
    /// Whether this thread owns the limits (the main thread).
    pub main: bool,
    /// The learned evaluation, `None` for the game's classic one.
    pub network: Option<&'a Network>,
    /// Positions other threads are searching (`None` with one thread).
    pub in_progress: Option<&'a InProgress>,
}

impl Context<'_> {
    fn must_stop(&self) -> bool {
        if self.finished.load(Ordering::Relaxed) || self.limits.must_stop() {
            return true;
        }
        let total = self.total_nodes.load(Ordering::Relaxed);
        self.main && self.limits.nodes.is_some_and(|n| total >= n)
    }
}

/// What the singular test found for the table move.
enum Singular {
    /// Search it this many plies deeper (negative: shallower).
    Extend(i32),
    /// Even without the table move the node fails high: this score.
    Cut(i32),
    /// A limit stopped the test.
    Aborted,
}

/// The state of one ply of the current path.
struct Frame<M> {
    moves: Vec<M>,
    keys: Vec<(i64, M)>,
    /// Codes of the moves tried so far that learn from cutoffs (quiet
    /// ones, or every move with `SearchTuning::history_from_every_move`).
    quiets_tried: Vec<u32>,
    /// Moves put back because another thread was searching them.
    deferred: Vec<(i64, M)>,
    pv: Vec<M>,
    /// Code of the move played from this ply (`None`: a null move or none).
    played: Option<u32>,
    /// Whether the move played from this ply is a null move.
    null: bool,
    /// The move left out while testing whether the table move is singular.
    excluded: Option<M>,
}

impl<M> Default for Frame<M> {
    fn default() -> Self {
        Frame {
            moves: Vec::new(),
            keys: Vec::new(),
            quiets_tried: Vec::new(),
            deferred: Vec::new(),
            pv: Vec::new(),
            played: None,
            null: false,
            excluded: None,
        }
    }
}

/// One search thread's private state. History and killers are kept
/// between searches; the rest is per search.
pub struct Worker<G: Game> {
    /// Move-ordering statistics.
    pub history: History,
    killers: Vec<[Option<G::Move>; 2]>,
    frames: Vec<Frame<G::Move>>,
    /// Repetition keys of the game so far plus the current search path.
    pub keys: Vec<u64>,
    /// Nodes searched by this thread in this search.
    pub nodes: u64,
    unflushed: u64,
    /// Deepest ply reached in the current iteration.
    pub seldepth: u32,
    /// Set when a limit stopped the search in the middle of an iteration.
    pub aborted: bool,
    /// The best root move of the current iteration so far and its score.
    pub root_best: Option<(G::Move, i32)>,
    /// Nodes spent under each root move (for time management).
    pub root_nodes: AHashMap<G::Move, u64>,
    /// Null moves are not tried at plies below this (verification search).
    null_free_below: usize,
    /// Depth of the current iteration (extensions stop at twice as many
    /// plies from the root).
    pub root_depth: i32,
    /// Scratch list of a position's network inputs.
    inputs: Vec<u16>,
    /// Network evaluations already made (large networks only).
    eval_cache: EvalCache,
    /// A helper's principal variation of its last completed iteration.
    completed_pv: Vec<G::Move>,
    /// The selective depth of that iteration.
    completed_seldepth: u32,
}

impl<G: Game> Default for Worker<G> {
    fn default() -> Self {
        Worker {
            history: History::default(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            frames: (0..=MAX_PLY + 1).map(|_| Frame::default()).collect(),
            keys: Vec::new(),
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            aborted: false,
            root_best: None,
            root_nodes: AHashMap::new(),
            null_free_below: 0,
            root_depth: 0,
            inputs: Vec::new(),
            eval_cache: EvalCache::default(),
            completed_pv: Vec::new(),
            completed_seldepth: 0,
        }
    }
}

impl<G: Game> Worker<G> {
    /// Forgets history and killers (`uginewgame`).
    pub fn clear(&mut self) {
        self.history.clear();
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    /// Prepares a new search from a game whose repetition keys are `keys`.
    pub fn start(&mut self, keys: &[u64]) {
        self.keys.clear();
        self.keys.extend_from_slice(keys);
        self.nodes = 0;
        self.unflushed = 0;
        self.aborted = false;
        self.root_nodes.clear();
        self.null_free_below = 0;
        self.completed_pv.clear();
    }

    /// The principal variation of the last root search.
    pub fn root_pv(&self) -> &[G::Move] {
        &self.frames[0].pv
    }

    /// The principal variation and selective depth kept by
    /// [`Worker::keep_completed_iteration`].
    pub fn completed_iteration(&self) -> (&[G::Move], u32) {
        (&self.completed_pv, self.completed_seldepth)
    }

    /// Keeps the principal variation and selective depth of the iteration
    /// just completed (a helper's, which the main thread may adopt).
    pub fn keep_completed_iteration(&mut self) {
        self.completed_pv.clear();
        self.completed_pv.extend_from_slice(&self.frames[0].pv);
        self.completed_seldepth = self.seldepth;
    }

    /// Adds this thread's unreported nodes to the shared count.
    pub fn flush_nodes(&mut self, ctx: &Context) {
        let total = ctx.total_nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
        self.unflushed = 0;
        if ctx.main
            && let Some(count) = &ctx.limits.node_count
        {
            count.store(total, Ordering::Relaxed);
        }
    }

    fn count_node(&mut self, ctx: &Context, ply: usize) {
        self.nodes += 1;
        self.unflushed += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if self.unflushed >= CHECK_EVERY {
            self.flush_nodes(ctx);
            if ctx.must_stop() {
                self.aborted = true;
            }
        }
    }

    /// The static evaluation: the network's when the search has one,
    /// scaled by `SearchTuning::eval_scale`.
    fn evaluate(&mut self, ctx: &Context, position: &G) -> i32 {
        let value = match ctx.network {
            Some(network) => {
                let hidden = G::hidden().map_or(0, |h| h.evaluation_term(position));
                self.network_value(network, position) + hidden
            }
            None => position.evaluate(),
        };
        match ctx.tuning.eval_scale {
            100 => value,
            // In i64: a game's win scores are far from overflowing i32, but
            // a scale of 400 % must not bring them there.
            scale => (i64::from(value) * i64::from(scale) / 100) as i32,
        }
    }

    /// The network's value of `position`, through the evaluation cache for a
    /// large network.
    fn network_value(&mut self, network: &Network, position: &G) -> i32 {
        let cached = network.is_large();
        let key = position.hash();
        if cached && let Some(value) = self.eval_cache.get(key) {
            return value;
        }
        let value = network.evaluate_position(position, &mut self.inputs);
        if cached {
            self.eval_cache.put(key, value);
        }
        value
    }

    /// Forgets the cached evaluations (the network changed).
    pub fn forget_evaluations(&mut self) {
        self.eval_cache.clear();
    }

    /// Score of a finished game for the side to move at `ply`.
    fn outcome_score(outcome: Outcome, position: &G, ply: usize) -> i32 {
        match outcome.sign_for(position.side_to_move()) {
            1 => win_in(ply as u32),
            -1 => loss_in(ply as u32),
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
        let seen = self.keys.iter().rev().filter(|&&k| k == key).count();
        (seen >= position.repetition_limit()).then(|| position.repetition_outcome())
    }

    /// Searches `child`: the same window and no negation when the same side
    /// is to move again, the negated swapped window otherwise.
    fn search_child(
        &mut self,
        ctx: &Context,
        child: &G,
        same_side: bool,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
    ) -> i32 {
        if same_side {
            self.negamax(ctx, child, depth, ply + 1, alpha, beta)
        } else {
            -self.negamax(ctx, child, depth, ply + 1, -beta, -alpha)
        }
    }

    /// The principal-variation search of one node. `depth` is the remaining
    /// depth; `ply` the distance from the root.
    pub fn negamax(
        &mut self,
        ctx: &Context,
        position: &G,
        mut depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        self.frames[ply].pv.clear();
        self.count_node(ctx, ply);
        if self.aborted && !root {
            return 0;
        }
        if !root && let Some(outcome) = self.node_outcome(position) {
            return Self::outcome_score(outcome, position, ply);
        }
        if ply >= MAX_PLY {
            return self.evaluate(ctx, position);
        }
        if depth <= 0 {
            return self.quiesce(ctx, position, ply, alpha, beta, 0);
        }
        self.frames[ply].null = false;
        let excluding = self.frames[ply].excluded.is_some();
        let key = position.hash();
        let entry = ctx.tt.probe(key, ply as u32);
        if let Some(entry) = entry
            && !root
            && !pv_node
            && !excluding
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
        let tt_move = entry.and_then(|e| e.best).and_then(G::move_from_code);
        let eval = self.evaluate(ctx, position);

        if !root
            && !pv_node
            && !excluding
            && let Some(score) = self.prune_node(ctx, position, depth, ply, beta, eval)
        {
            return score;
        }
        if let Some(min_depth) = ctx.tuning.internal_reduction
            && depth >= min_depth
            && tt_move.is_none()
        {
            depth -= 1;
        }
        let mut tt_extension = 0;
        if !pv_node
            && !excluding
            && let (Some(entry), Some(mv)) = (entry, tt_move)
        {
            match self.singular_test(ctx, position, depth, ply, beta, mv, entry) {
                Singular::Extend(plies) => tt_extension = plies,
                Singular::Cut(score) => return score,
                Singular::Aborted => return alpha.max(-INFINITY + 1),
            }
        }
        let moves = self.search_moves(
            ctx,
            position,
            depth,
            ply,
            (alpha, beta),
            eval,
            (tt_move, tt_extension),
        );
        let Some((best_score, best_move, bound)) = moves else {
            // Aborted: the caller ignores the score.
            return alpha.max(-INFINITY + 1);
        };
        if excluding {
            // A score without the best move says nothing about the node.
            return best_score;
        }
        let args = StoreArgs {
            best: best_move.and_then(G::move_code),
            score: best_score,
            depth: depth as i16,
            bound,
        };
        ctx.tt.store(key, args, ply as u32);
        best_score
    }

    /// Whether the table move `mv` is singular (see
    /// [`crate::tuning::SingularExtension`]): the plies to extend it
    /// by (−1, 0 or 1), or a multi-cut score for the node.
    #[allow(clippy::too_many_arguments)]
    fn singular_test(
        &mut self,
        ctx: &Context,
        position: &G,
        depth: i32,
        ply: usize,
        beta: i32,
        mv: G::Move,
        entry: crate::search::tt::Entry,
    ) -> Singular {
        let Some(se) = ctx.tuning.singular else {
            return Singular::Extend(0);
        };
        let singular_beta = entry.score - se.margin_per_depth * depth;
        if ply == 0
            || depth < se.min_depth
            || (entry.depth as i32) < depth - se.entry_depth_margin
            || entry.bound == Bound::Upper
            || is_proven(entry.score)
            || is_proven(singular_beta)
            || ply as i32 >= 2 * self.root_depth
        {
            return Singular::Extend(0);
        }
        self.frames[ply].excluded = Some(mv);
        let window = (singular_beta - 1, singular_beta);
        let score = self.negamax(ctx, position, (depth - 1) / 2, ply, window.0, window.1);
        self.frames[ply].excluded = None;
        if self.aborted {
            Singular::Aborted
        } else if score < singular_beta {
            Singular::Extend(1)
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else if entry.score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// Reverse futility and null-move pruning at a non-PV node: a score to
    /// return when the node is sure to fail high.
    fn prune_node(
        &mut self,
        ctx: &Context,
        position: &G,
        depth: i32,
        ply: usize,
        beta: i32,
        eval: i32,
    ) -> Option<i32> {
        if is_proven(beta) {
            return None;
        }
        if let Some(margin) = ctx.tuning.reverse_futility
            && depth <= margin.max_depth
            && eval - margin.at(depth) >= beta
        {
            return Some(eval);
        }
        let null = ctx.tuning.null_move?;
        let after_null = ply > 0 && self.frames[ply - 1].null;
        if depth < null.min_depth || eval < beta || after_null || ply < self.null_free_below {
            return None;
        }
        let child = position.null_move()?;
        let reduction = null.base + depth / null.depth_divisor;
        self.frames[ply].null = true;
        self.frames[ply].played = None;
        let same_side = child.side_to_move() == position.side_to_move();
        let window = (beta - 1, beta);
        let score = self.search_child(ctx, &child, same_side, depth - 1 - reduction, ply, window);
        self.frames[ply].null = false;
        if self.aborted || score < beta {
            return None;
        }
        let score = if is_proven(score) { beta } else { score };
        match null.verify_from {
            Some(from) if depth >= from => {
                // Zugzwang check: the same node without null moves for a
                // while, at the reduced depth.
                let saved = self.null_free_below;
                self.null_free_below = ply + (3 * (depth - reduction) / 4) as usize;
                let verified = self.negamax(ctx, position, depth - reduction, ply, beta - 1, beta);
                self.null_free_below = saved;
                (verified >= beta && !self.aborted).then_some(score)
            }
            _ => Some(score),
        }
    }

    /// The move loop. `None` when the search was aborted; else the best
    /// score, the move that raised alpha (if any) and the bound.
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        ctx: &Context,
        position: &G,
        depth: i32,
        ply: usize,
        (mut alpha, beta): (i32, i32),
        eval: i32,
        (tt_move, tt_extension): (Option<G::Move>, i32),
    ) -> Option<(i32, Option<G::Move>, Bound)> {
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        let side = position.side_to_move();
        let previous = if ply > 0 {
            self.frames[ply - 1].played
        } else {
            None
        };
        let mut moves = std::mem::take(&mut self.frames[ply].moves);
        let mut keys = std::mem::take(&mut self.frames[ply].keys);
        position.generate_moves(&mut moves);
        let mut hints_pending = self.order_moves(
            ctx, position, &moves, &mut keys, tt_move, ply, depth, previous,
        );
        let mut quiets_tried = std::mem::take(&mut self.frames[ply].quiets_tried);
        quiets_tried.clear();

        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut skip_quiets = false;
        let excluded = self.frames[ply].excluded;
        let in_progress = ctx.in_progress.filter(|_| depth >= DEFER_MIN_DEPTH);
        let mut deferred = std::mem::take(&mut self.frames[ply].deferred);
        deferred.clear();
        let (mut next, mut next_deferred) = (0, 0);
        loop {
            // The table move came first (the largest key, swapped to the
            // front): now the rest need their hints.
            if hints_pending && next == 1 {
                add_hints(position, &mut keys[1..]);
                hints_pending = false;
            }
            // Every move in key order, then the deferred ones in the order
            // they were put back.
            let (key, mv, second_look) = if next < keys.len() {
                next += 1;
                let (key, mv) = pick_best(&mut keys, next - 1);
                (key, mv, false)
            } else if let Some(&(key, mv)) = deferred.get(next_deferred) {
                next_deferred += 1;
                (key, mv, true)
            } else {
                break;
            };
            if Some(mv) == excluded {
                continue;
            }
            let code = G::move_code(mv);
            let quiet = !position.is_noisy(mv);
            let special = key >= COUNTER_KEY && key != TT_MOVE_KEY;
            if !root && best_score > -MATE_BOUND {
                let futile = || Self::futile(ctx, depth, searched, eval, alpha, pv_node);
                if quiet
                    && (skip_quiets || Self::late_move_pruned(ctx, depth, searched) || futile())
                {
                    skip_quiets = true;
                    continue;
                }
                if !quiet && ctx.tuning.futility_prunes_noisy && futile() {
                    continue;
                }
            }
            let mut child = position.clone();
            child.play(mv);
            let child_key = child.hash();
            ctx.tt.prefetch(child_key);
            if let Some(table) = in_progress {
                if !second_look && searched > 0 && table.is_busy(child_key) {
                    deferred.push((key, mv));
                    continue;
                }
                table.enter(child_key);
            }
            let same_side = child.side_to_move() == side;
            let pushed = child.repetition_key().map(|k| self.keys.push(k)).is_some();
            self.frames[ply].played = code;
            searched += 1;
            let nodes_before = self.nodes;
            let history = code.map_or(0, |c| self.history.score(side.index(), c, previous));
            let reduction = self.reduction(ctx, depth, searched, pv_node, special, quiet, history);
            let extension = if key == TT_MOVE_KEY { tt_extension } else { 0 };
            let score = self.search_one(
                ctx,
                &child,
                same_side,
                depth - 1 + extension,
                reduction,
                ply,
                (alpha, beta),
                searched == 1,
            );
            if pushed {
                self.keys.pop();
            }
            if let Some(table) = in_progress {
                table.leave(child_key);
            }
            if self.aborted {
                break;
            }
            if root {
                *self.root_nodes.entry(mv).or_insert(0) += self.nodes - nodes_before;
            }
            if score > best_score {
                best_score = score;
            }
            if score > alpha {
                best_move = Some(mv);
                alpha = score;
                self.update_pv(ply, mv);
                if root {
                    self.root_best = Some((mv, score));
                }
            }
            // The moves history learns from (see
            // `SearchTuning::history_from_every_move`).
            let learns = quiet || ctx.tuning.history_from_every_move;
            if score >= beta {
                if learns && let Some(code) = code {
                    self.reward_cutoff(side, code, mv, previous, &quiets_tried, ply, depth);
                }
                break;
            }
            if learns && let Some(code) = code {
                quiets_tried.push(code);
            }
        }
        self.frames[ply].moves = moves;
        self.frames[ply].keys = keys;
        self.frames[ply].quiets_tried = quiets_tried;
        self.frames[ply].deferred = deferred;
        if self.aborted {
            return None;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        Some((best_score, best_move, bound))
    }

    /// Late-move pruning: whether enough moves were searched at this low
    /// depth to skip the remaining quiet ones.
    fn late_move_pruned(ctx: &Context, depth: i32, searched: usize) -> bool {
        ctx.tuning.late_move_pruning.is_some_and(|lmp| {
            depth <= lmp.max_depth && searched >= lmp.base + (depth * depth) as usize
        })
    }

    /// Futility pruning: whether the static evaluation is so far below
    /// alpha that the moves after the first cannot be expected to reach it
    /// at this depth.
    fn futile(
        ctx: &Context,
        depth: i32,
        searched: usize,
        eval: i32,
        alpha: i32,
        pv_node: bool,
    ) -> bool {
        ctx.tuning.futility.is_some_and(|margin| {
            !pv_node
                && searched >= 1
                && depth <= margin.max_depth
                && !is_proven(alpha)
                && eval + margin.at(depth) <= alpha
        })
    }

    /// Plies of late-move reduction for the `searched`-th move.
    #[allow(clippy::too_many_arguments)]
    fn reduction(
        &self,
        ctx: &Context,
        depth: i32,
        searched: usize,
        pv_node: bool,
        special: bool,
        quiet: bool,
        history: i32,
    ) -> i32 {
        let Some(lmr) = ctx.tuning.late_move_reductions else {
            return 0;
        };
        if depth < lmr.min_depth || searched <= lmr.min_moves {
            return 0;
        }
        let mut r = ctx.reductions.get(depth, searched);
        r -= pv_node as i32 + special as i32;
        if !quiet {
            r -= lmr.noisy_less;
        }
        r -= history / lmr.history_divisor;
        r.clamp(0, (depth - 2).max(0))
    }

    /// Principal variation search of one child: the first move with the full
    /// window; the others reduced with a null window, then at full depth if
    /// they beat alpha, then with the full window if they may be best.
    #[allow(clippy::too_many_arguments)]
    fn search_one(
        &mut self,
        ctx: &Context,
        child: &G,
        same_side: bool,
        new_depth: i32,
        reduction: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
        first: bool,
    ) -> i32 {
        if first {
            return self.search_child(ctx, child, same_side, new_depth, ply, (alpha, beta));
        }
        let null = (alpha, alpha + 1);
        let mut score = self.search_child(ctx, child, same_side, new_depth - reduction, ply, null);
        if score > alpha && reduction > 0 && !self.aborted {
            score = self.search_child(ctx, child, same_side, new_depth, ply, null);
        }
        if score > alpha && score < beta && !self.aborted {
            score = self.search_child(ctx, child, same_side, new_depth, ply, (alpha, beta));
        }
        score
    }

    /// Quiescence search: the static evaluation, unless a noisy move
    /// improves on it.
    fn quiesce(
        &mut self,
        ctx: &Context,
        position: &G,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qply: u32,
    ) -> i32 {
        let stand_pat = self.evaluate(ctx, position);
        let Some(limit) = ctx.tuning.quiescence else {
            return stand_pat;
        };
        if qply >= limit || ply >= MAX_PLY || stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let mut best = stand_pat;
        let side = position.side_to_move();
        let mut moves = std::mem::take(&mut self.frames[ply].moves);
        position.generate_moves(&mut moves);
        let mut keys = std::mem::take(&mut self.frames[ply].keys);
        keys.clear();
        keys.extend(
            moves
                .iter()
                .filter(|&&mv| position.is_noisy(mv))
                .map(|&mv| (position.move_hint(mv) as i64, mv)),
        );
        for i in 0..keys.len() {
            let (_, mv) = pick_best(&mut keys, i);
            let mut child = position.clone();
            child.play(mv);
            self.count_node(ctx, ply + 1);
            if self.aborted {
                break;
            }
            let score = match child.outcome() {
                Some(outcome) => {
                    let s = Self::outcome_score(outcome, &child, ply + 1);
                    if child.side_to_move() == side { s } else { -s }
                }
                None if child.side_to_move() == side => {
                    self.quiesce(ctx, &child, ply + 1, alpha, beta, qply + 1)
                }
                None => -self.quiesce(ctx, &child, ply + 1, -beta, -alpha, qply + 1),
            };
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if score >= beta {
                    break;
                }
            }
        }
        self.frames[ply].moves = moves;
        self.frames[ply].keys = keys;
        best
    }

    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.frames.split_at_mut(ply + 1);
        let line = &mut head[ply].pv;
        line.clear();
        line.push(mv);
        if let Some(child) = tail.first() {
            line.extend_from_slice(&child.pv);
        }
    }

    /// A move that learns from cutoffs (a quiet one, or any with
    /// `SearchTuning::history_from_every_move`) caused a cutoff: it becomes
    /// a killer and the countermove of the previous move, and gains history
    /// while the learning moves tried before it (`quiets_tried`) lose some.
    #[allow(clippy::too_many_arguments)]
    fn reward_cutoff(
        &mut self,
        side: Player,
        code: u32,
        mv: G::Move,
        previous: Option<u32>,
        quiets_tried: &[u32],
        ply: usize,
        depth: i32,
    ) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        if let Some(p) = previous {
            self.history.set_countermove(side.index(), p, code);
        }
        let bonus = (depth * depth * 16).min(HISTORY_MAX / 4);
        self.history.update(side.index(), code, previous, bonus);
        for &tried in quiets_tried {
            self.history.update(side.index(), tried, previous, -bonus);
        }
    }

    /// Gives every move its ordering key: table move, killers,
    /// countermove, then the game's hint (at depth ≥ 2 unless hints are
    /// cheap) plus history. When the table move is among the moves, the
    /// hints are left out and `true` returned: the table move is searched
    /// first whatever they say and often cuts off, and a hint can cost a
    /// move and an evaluation (CTOR), so [`add_hints`] adds them only if
    /// the search goes on.
    #[allow(clippy::too_many_arguments)]
    fn order_moves(
        &self,
        ctx: &Context,
        position: &G,
        moves: &[G::Move],
        keys: &mut Vec<(i64, G::Move)>,
        tt_move: Option<G::Move>,
        ply: usize,
        depth: i32,
        previous: Option<u32>,
    ) -> bool {
        let side = position.side_to_move().index();
        let killers = self.killers[ply];
        let counter = previous
            .and_then(|p| self.history.countermove(side, p))
            .and_then(G::move_from_code);
        let wanted = ctx.tuning.cheap_hints || depth >= 2;
        let deferred = wanted && tt_move.is_some_and(|t| moves.contains(&t));
        let hints = wanted && !deferred;
        keys.clear();
        keys.extend(moves.iter().map(|&mv| {
            let key = if Some(mv) == tt_move {
                TT_MOVE_KEY
            } else if Some(mv) == killers[0] {
                KILLER_KEY + 1
            } else if Some(mv) == killers[1] {
                KILLER_KEY
            } else if Some(mv) == counter {
                COUNTER_KEY
            } else {
                let history = G::move_code(mv).map_or(0, |c| self.history.score(side, c, previous));
                let hint = if hints {
                    position.move_hint(mv) as i64
                } else {
                    0
                };
                hint * HINT_WEIGHT + history as i64
            };
            (key, mv)
        }));
        deferred
    }
}

/// Adds the game's hints that [`Worker::order_moves`] left out to the keys
/// of the moves that are not table move, killer or countermove: the same
/// keys as if they had been there from the start.
fn add_hints<G: Game>(position: &G, keys: &mut [(i64, G::Move)]) {
    for (key, mv) in keys.iter_mut().filter(|(key, _)| *key < COUNTER_KEY) {
        *key += position.move_hint(*mv) as i64 * HINT_WEIGHT;
    }
}

/// Moves picked one at a time before the rest is sorted at once.
const PICKED_ONE_BY_ONE: usize = 4;

/// The `i`-th move in key order, called for `i` = 0, 1, 2, … in turn. The
/// first few are picked by selection (a cutoff usually comes early and
/// leaves the rest unsorted); then the remainder is sorted once, so that
/// nodes with thousands of moves stay `n log n`.
fn pick_best<M: Copy>(keys: &mut [(i64, M)], i: usize) -> (i64, M) {
    if i < PICKED_ONE_BY_ONE {
        let mut best = i;
        for j in i + 1..keys.len() {
            if keys[j].0 > keys[best].0 {
                best = j;
            }
        }
        keys.swap(i, best);
    } else if i == PICKED_ONE_BY_ONE {
        keys[i..].sort_by_key(|&(key, _)| std::cmp::Reverse(key));
    }
    keys[i]
}
