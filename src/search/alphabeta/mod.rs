//! Iterative-deepening alpha-beta over any [`Game`], on any number of
//! threads (lazy SMP).
//!
//! - Each iteration runs a principal-variation search ([`node`]) inside an
//!   aspiration window around the previous score, widened on failure.
//! - Every thread runs its own iterative deepening over the same root; they
//!   cooperate only through the shared lock-free transposition table
//!   ([`crate::search::tt`]), where each thread finds what the others
//!   proved, and a small table of the positions in progress
//!   ([`in_progress`]): a thread defers a move another thread is already
//!   searching, so that two threads at one node split its moves instead of
//!   searching them in step. Helpers also start at staggered depths. The
//!   main thread alone reports and keeps the clock; when it stops, the
//!   helpers stop, and if one of them completed a deeper iteration than
//!   the main thread, its move is played (and its line reported last),
//!   since it has seen more.
//! - With one thread no helper exists, no position is marked in progress,
//!   and the search is deterministic.
//! - Scaling: threads share nothing but the table (plain relaxed loads and
//!   stores, no lock, no read-modify-write), the in-progress table (a load,
//!   a store and a compare-exchange per move searched with 3 or more plies
//!   left: a small fraction of the nodes), the node counter (one atomic add
//!   per 256 nodes) and two flags that are only read. History, killers,
//!   move lists and the path are per thread, and each thread allocates its
//!   own ~3 MiB of history tables. At 16 or 64 threads the limits are
//!   memory bandwidth and table capacity (every thread writes every node
//!   it searches, so `Hash` should grow with the thread count); the
//!   in-progress slots of the moves near the root, which every thread
//!   marks, become contended cache lines, and its 16,384 slots start to
//!   collide (a collision only costs a duplicated subtree). The staggering
//!   (odd helpers one ply deeper) matters less once deferral spreads the
//!   threads over the moves.
//! - Time: with a clock (an adaptive budget), the main thread ends after an
//!   iteration once the elapsed time passes a share of the planned time,
//!   scaled up when the best move changes or the score drops, and down when
//!   the best move is stable and took most of the nodes.

pub mod eval_cache;
pub mod history;
pub mod in_progress;
pub mod node;
pub mod reductions;

use crate::game::{Game, GameState};
use crate::network::Network;
use crate::search::tt::TranspositionTable;
use crate::search::{INFINITY, Limits, MATE, Report, SearchResult, is_proven};
use crate::tuning::SearchTuning;
use in_progress::InProgress;
use node::{Context, Worker};
use reductions::ReductionTable;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pub use node::MAX_PLY;

/// Deepest iteration allowed by `go depth`.
pub const MAX_DEPTH: u32 = 64;

/// The alpha-beta searcher. Keeps its transposition table and each thread's
/// history between searches; [`AlphaBeta::clear`] forgets them.
pub struct AlphaBeta<G: Game> {
    tt: TranspositionTable,
    workers: Vec<Worker<G>>,
    tuning: SearchTuning,
    reductions: ReductionTable,
    network: Option<Arc<Network>>,
}

impl<G: Game> AlphaBeta<G> {
    /// A single-threaded searcher with a transposition table of `hash_mb`
    /// MiB, or the allocation error.
    pub fn new(hash_mb: usize) -> Result<Self, String> {
        let tuning = G::search_tuning();
        Ok(AlphaBeta {
            tt: TranspositionTable::new(hash_mb)?,
            workers: vec![Worker::default()],
            reductions: ReductionTable::new(tuning.late_move_reductions.as_ref()),
            tuning,
            network: None,
        })
    }

    /// The same searcher with other parameters (tests and experiments).
    pub fn with_tuning(mut self, tuning: SearchTuning) -> Self {
        self.set_tuning(tuning);
        self
    }

    /// Searches with `tuning` from the next search on (the reduction table
    /// is made anew only when its parameters changed).
    pub fn set_tuning(&mut self, tuning: SearchTuning) {
        if tuning.late_move_reductions != self.tuning.late_move_reductions {
            self.reductions = ReductionTable::new(tuning.late_move_reductions.as_ref());
        }
        self.tuning = tuning;
    }

    /// Evaluates with `network` (checked to fit the game) from the next
    /// search on, or with the game's classic evaluation for `None`.
    pub fn set_network(&mut self, network: Option<Arc<Network>>) {
        let same = match (&self.network, &network) {
            (Some(old), Some(new)) => Arc::ptr_eq(old, new),
            _ => false,
        };
        if !same {
            // Cached values belong to the network that made them.
            self.workers.iter_mut().for_each(Worker::forget_evaluations);
        }
        self.network = network;
    }

    /// The learned evaluation in use, if any.
    pub fn network(&self) -> Option<&Arc<Network>> {
        self.network.as_ref()
    }

    /// Number of search threads (at least one).
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Uses `threads` search threads from the next search on.
    pub fn set_threads(&mut self, threads: usize) {
        self.workers.resize_with(threads.max(1), Worker::default);
    }

    /// Forgets the table, history and killers (`uginewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.workers.iter_mut().for_each(Worker::clear);
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
        let root_moves = state.legal_moves();
        let Some(&first) = root_moves.first() else {
            return SearchResult {
                best: None,
                score: 0,
                nodes: 0,
                depth: 0,
            };
        };
        let finished = AtomicBool::new(false);
        let total_nodes = AtomicU64::new(0);
        // Only worth its traffic when another thread can be on a position.
        let in_progress = (self.workers.len() > 1).then(InProgress::default);
        let context = |main| Context {
            tt: &self.tt,
            limits,
            tuning: &self.tuning,
            reductions: &self.reductions,
            finished: &finished,
            total_nodes: &total_nodes,
            main,
            network: self.network.as_deref(),
            in_progress: in_progress.as_ref(),
        };
        let (main, helpers) = self.workers.split_first_mut().expect("one worker");
        let (mut result, helper_results) = std::thread::scope(|scope| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(index, helper)| {
                    let ctx = context(false);
                    scope.spawn(move || iterate(helper, &ctx, state, None, index + 1))
                })
                .collect();
            let ctx = context(true);
            let result = iterate(main, &ctx, state, Some(&mut *report), 0);
            finished.store(true, Ordering::Relaxed);
            let helper_results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            (result, helper_results)
        });
        let deeper = helper_results
            .iter()
            .enumerate()
            .filter_map(|(index, r)| r.as_ref().ok().map(|r| (index, r)))
            .filter(|(_, r)| r.best.is_some() && r.depth > result.depth)
            .max_by_key(|(_, r)| r.depth);
        if let Some((index, helper)) = deeper {
            // A helper finished a deeper iteration than the main thread:
            // its move has seen more (lazy SMP's "best thread").
            result.best = helper.best;
            result.score = helper.score;
            result.depth = helper.depth;
            report(&completed_report(
                &helpers[index],
                &state.position,
                helper,
                total_nodes.load(Ordering::Relaxed),
                limits,
            ));
        }
        if result.best.is_none() {
            result.best = Some(first);
        }
        result
    }
}

/// The report of a helper's last completed iteration.
fn completed_report<G: Game>(
    worker: &Worker<G>,
    root: &G,
    result: &SearchResult<G::Move>,
    nodes: u64,
    limits: &Limits,
) -> Report {
    let (pv, seldepth) = worker.completed_iteration();
    Report {
        depth: result.depth,
        seldepth: seldepth.max(result.depth),
        score: result.score,
        nodes,
        elapsed: limits.elapsed(),
        pv: super::line_text(root, pv),
    }
}

/// What the main thread keeps between iterations to manage its time.
struct TimeState<M> {
    best: Option<M>,
    stable_iterations: u32,
    previous_score: Option<i32>,
}

/// One thread's iterative deepening. The main thread (`report` given)
/// decides when to stop; a helper with number `helper` > 0 searches until
/// the main thread finishes. Odd-numbered helpers search deeper than their
/// iteration count (by default one ply from the third iteration on, so
/// with two threads the helper is always one ply ahead of the main thread;
/// see `ThreadTuning`).
fn iterate<G: Game>(
    worker: &mut Worker<G>,
    ctx: &Context,
    state: &GameState<G>,
    mut report: Option<&mut dyn FnMut(&Report)>,
    helper: usize,
) -> SearchResult<G::Move> {
    worker.start(&state.keys);
    worker
        .history
        .use_continuation(ctx.tuning.continuation_history);
    let limits = ctx.limits;
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut result = SearchResult {
        best: None,
        score: 0,
        nodes: 0,
        depth: 0,
    };
    let mut time = TimeState {
        best: None,
        stable_iterations: 0,
        previous_score: None,
    };
    let mut depth = 1;
    while depth <= max_depth {
        let smp = &ctx.tuning.threads;
        let search_depth = if helper % 2 == 1 && depth >= smp.helper_ahead_from {
            (depth + smp.helper_ahead).min(max_depth)
        } else {
            depth
        };
        worker.seldepth = 0;
        worker.root_depth = search_depth as i32;
        worker.root_best = None;
        let score = aspiration(worker, ctx, &state.position, search_depth, result.score);
        if worker.aborted {
            // A root move is only recorded once searched within the window,
            // so a best move found before the stop is sound (the previous
            // best was searched first).
            if let Some((best, score)) = worker.root_best.filter(|_| depth > 1) {
                result.best = Some(best);
                result.score = score;
            }
            if result.best.is_none() {
                result.best = worker.root_best.map(|(m, _)| m);
            }
            break;
        }
        result.best = worker.root_best.map(|(m, _)| m).or(result.best);
        result.score = score;
        result.depth = search_depth;
        if !ctx.main {
            worker.keep_completed_iteration();
        }
        if let Some(report) = report.as_deref_mut() {
            worker.flush_nodes(ctx);
            report(&make_report(
                worker,
                ctx,
                &state.position,
                search_depth,
                score,
            ));
            // A proven result does not change with more depth.
            let proven_in_reach = is_proven(score) && (MATE - score.abs()) as u32 <= search_depth;
            if proven_in_reach || !keep_going(worker, ctx, &mut time, &result) {
                break;
            }
        }
        depth += 1;
    }
    worker.flush_nodes(ctx);
    result.nodes = if ctx.main {
        ctx.total_nodes.load(Ordering::Relaxed)
    } else {
        worker.nodes
    };
    result
}

/// One iteration: a window of the tuning's half width around the last
/// score, widened by half again on every failure, the full window when
/// the score is proven or the depth is low.
fn aspiration<G: Game>(
    worker: &mut Worker<G>,
    ctx: &Context,
    root: &G,
    depth: u32,
    previous: i32,
) -> i32 {
    let Some((min_depth, width)) = ctx.tuning.aspiration else {
        return worker.negamax(ctx, root, depth as i32, 0, -INFINITY, INFINITY);
    };
    if depth < min_depth || is_proven(previous) {
        return worker.negamax(ctx, root, depth as i32, 0, -INFINITY, INFINITY);
    }
    let mut delta = width;
    let (mut alpha, mut beta) = (previous - delta, previous + delta);
    loop {
        let score = worker.negamax(ctx, root, depth as i32, 0, alpha, beta);
        if worker.aborted {
            return score;
        }
        if score <= alpha {
            beta = (alpha + beta) / 2;
            alpha = (score - delta).max(-INFINITY);
        } else if score >= beta {
            beta = (score + delta).min(INFINITY);
        } else {
            return score;
        }
        delta += delta / 2;
        if delta > 1_000 {
            (alpha, beta) = (-INFINITY, INFINITY);
        }
    }
}

/// After a completed iteration of the main thread: whether to start
/// another.
fn keep_going<G: Game>(
    worker: &Worker<G>,
    ctx: &Context,
    time: &mut TimeState<G::Move>,
    result: &SearchResult<G::Move>,
) -> bool {
    let limits = ctx.limits;
    if !limits.may_continue(ctx.total_nodes.load(Ordering::Relaxed)) {
        return false;
    }
    if time.best == result.best {
        time.stable_iterations += 1;
    } else {
        time.stable_iterations = 0;
    }
    time.best = result.best;
    let dropped = time
        .previous_score
        .map_or(0, |previous| previous - result.score);
    time.previous_score = Some(result.score);
    let (Some(soft), true) = (limits.soft_deadline, limits.adaptive) else {
        return true;
    };
    let planned = soft.saturating_duration_since(limits.start).as_secs_f64();
    let plan = &ctx.tuning.time;
    let percent = |p: u32| f64::from(p) / 100.0;
    let stable = (time.stable_iterations as usize).min(plan.stability_percent.len() - 1);
    let stability = percent(plan.stability_percent[stable]);
    let falling = if is_proven(result.score) {
        1.0
    } else {
        (1.0 + dropped as f64 / f64::from(plan.falling_divisor.max(1)))
            .clamp(0.9, percent(plan.falling_max_percent).max(0.9))
    };
    let best_share = result
        .best
        .and_then(|m| worker.root_nodes.get(&m))
        .map_or(0.5, |&n| n as f64 / worker.nodes.max(1) as f64);
    let effort = if result.depth >= 6 {
        (percent(plan.effort_percent) - best_share).clamp(0.7, 1.5)
    } else {
        1.0
    };
    let target = planned * percent(plan.new_iteration_percent) * stability * falling * effort;
    limits.elapsed() < Duration::from_secs_f64(target)
}

fn make_report<G: Game>(
    worker: &Worker<G>,
    ctx: &Context,
    root: &G,
    depth: u32,
    score: i32,
) -> Report {
    let pv = super::line_text(root, worker.root_pv());
    Report {
        depth,
        seldepth: worker.seldepth.max(depth),
        score,
        nodes: ctx.total_nodes.load(Ordering::Relaxed),
        elapsed: ctx.limits.elapsed(),
        pv,
    }
}
