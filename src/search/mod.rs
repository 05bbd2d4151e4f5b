//! The searches, generic over [`crate::game::Game`]: alpha-beta with a
//! transposition table ([`alphabeta`], [`tt`]) and parallel MCTS
//! ([`mcts`]), plus what they share: limits, scores and progress reports.

pub mod alphabeta;
pub mod determinized;
pub mod mcts;
pub mod perft;
pub mod time;
pub mod tt;
pub mod turns;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Score of a won position: a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores at or beyond this magnitude are proven wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Larger than any score; the initial alpha-beta window.
pub const INFINITY: i32 = MATE + 1;

/// Score of a win in `plies` plies for the side to move.
pub fn win_in(plies: u32) -> i32 {
    MATE - plies.min(999) as i32
}

/// Score of a loss in `plies` plies for the side to move.
pub fn loss_in(plies: u32) -> i32 {
    -win_in(plies)
}

/// Whether a score is a proven win or loss.
pub fn is_proven(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// The UGI/UCI rendering of a score: `cp N`, or `mate N` with N in moves of
/// the side to move (negative when it is being mated), counted as plies
/// rounded up to whole moves as UCI does.
pub fn score_text(score: i32) -> String {
    if is_proven(score) {
        let plies = MATE - score.abs();
        let moves = (plies + 1) / 2;
        if score > 0 {
            format!("mate {}", moves.max(1))
        } else {
            format!("mate -{moves}")
        }
    } else {
        format!("cp {score}")
    }
}

/// When a search must stop. Built by the protocol from `go` parameters (see
/// [`time`]) and shared by every search.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum depth (alpha-beta iterations; ignored by MCTS).
    pub depth: Option<u32>,
    /// Maximum nodes (alpha-beta nodes, MCTS playouts).
    pub nodes: Option<u64>,
    /// No new iteration starts after this many nodes (a soft limit, as
    /// self-play data generation uses: every search ends on a whole
    /// iteration, and the hard `nodes` limit still applies).
    pub soft_nodes: Option<u64>,
    /// Do not start new work after this (iterative deepening's soft bound).
    pub soft_deadline: Option<Instant>,
    /// Stop at once after this, even in the middle of an iteration.
    pub hard_deadline: Option<Instant>,
    /// Whether the soft deadline is a plan that the search may shorten or
    /// stretch (towards the hard deadline) by how settled its result is:
    /// true on a clock, false for a fixed move time.
    pub adaptive: bool,
    /// Set by `stop` (or `quit`) from the input thread.
    pub stop: Arc<AtomicBool>,
    /// When the search started.
    pub start: Instant,
    /// Where the search keeps its running node count for whoever shows
    /// progress between reports (the protocol's periodic `info` lines of a
    /// long iteration); `None` when nobody watches.
    pub node_count: Option<Arc<AtomicU64>>,
}

impl Limits {
    /// No limit at all: runs until `stop`.
    pub fn infinite() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            soft_nodes: None,
            soft_deadline: None,
            hard_deadline: None,
            adaptive: false,
            stop: Arc::new(AtomicBool::new(false)),
            start: Instant::now(),
            node_count: None,
        }
    }

    /// A fixed depth, nothing else.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::infinite()
        }
    }

    /// A fixed number of nodes, nothing else.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::infinite()
        }
    }

    /// A fixed time, nothing else.
    pub fn movetime(time: Duration) -> Limits {
        let start = Instant::now();
        Limits {
            soft_deadline: Some(start + time),
            hard_deadline: Some(start + time),
            start,
            ..Limits::infinite()
        }
    }

    /// Whether `stop` was requested or the hard deadline passed.
    pub fn must_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.hard_deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether a new iteration (or a new batch of playouts) may start.
    pub fn may_continue(&self, nodes: u64) -> bool {
        !self.must_stop()
            && self.nodes.is_none_or(|n| nodes < n)
            && self.soft_nodes.is_none_or(|n| nodes < n)
            && self.soft_deadline.is_none_or(|d| Instant::now() < d)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// One progress report (an `info` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Iteration depth (alpha-beta) or average tree depth (MCTS).
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score for the side to move at the root (see [`score_text`]).
    pub score: i32,
    /// Nodes searched (alpha-beta) or playouts (MCTS).
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Principal variation, as move strings.
    pub pv: Vec<String>,
}

impl Report {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        (self.nodes as u128 * 1_000_000 / micros) as u64
    }

    /// The UGI `info` line.
    pub fn info_line(&self) -> String {
        let mut line = format!(
            "info depth {} seldepth {} score {} nodes {} nps {} time {}",
            self.depth,
            self.seldepth,
            score_text(self.score),
            self.nodes,
            self.nps(),
            self.elapsed.as_millis()
        );
        if !self.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&self.pv.join(" "));
        }
        line
    }
}

/// What a finished search returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// The move to play; `None` only when the root has no legal move.
    pub best: Option<M>,
    /// Its score for the side to move.
    pub score: i32,
    /// Nodes or playouts searched.
    pub nodes: u64,
    /// Depth of the last completed iteration.
    pub depth: u32,
}

/// A line of moves from `root` as move strings (a principal variation).
pub fn line_text<G: crate::game::Game>(root: &G, line: &[G::Move]) -> Vec<String> {
    let mut position = root.clone();
    line.iter()
        .map(|&mv| {
            let text = position.move_to_string(mv);
            position.play(mv);
            text
        })
        .collect()
}
