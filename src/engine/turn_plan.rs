//! The rest of a turn, played from the search that chose its first move.
//!
//! The search over whole turns (CTOR) chooses a whole turn when it is asked
//! for the turn's first operation. On a clock, that search gets the turn's
//! whole budget, and the operations after it are read from its line at
//! once instead of being searched again with a share of the time each:
//! one deep search of the turn rather than several shallow ones
//! (`Tune.turn_plan`; off by default, see `TurnTuning::plan_on_clock`).

use crate::game::Game;
use crate::search::{Report, line_text};
use crate::tuning::TurnTuning;
use std::time::Duration;

/// The moves still to play of the turn a search chose, each checked
/// against the position it was planned from.
pub struct TurnPlan<G: Game> {
    /// The search's whole line from the position it searched.
    line: Vec<G::Move>,
    /// The hash of the position before each planned move of the turn, by
    /// its index in `line` (the searched position's own move, index 0,
    /// included).
    before: Vec<u64>,
    /// The next move of `line` to play.
    next: usize,
    score: i32,
    depth: u32,
    /// The widths of the search that made it: followed only under them.
    tuning: TurnTuning,
}

impl<G: Game> TurnPlan<G> {
    /// The plan of `line`, searched from `position` to `depth` with
    /// `score` under `tuning`: the moves of the side to move's turn that
    /// follow the first one (which is played now). `None` when the turn
    /// has no move after the first, or the line leaves the side's turn at
    /// once.
    pub fn new(
        position: &G,
        line: &[G::Move],
        score: i32,
        depth: u32,
        tuning: TurnTuning,
    ) -> Option<TurnPlan<G>> {
        let side = position.side_to_move();
        let mut at = position.clone();
        let mut before = Vec::new();
        for &mv in line {
            if at.side_to_move() != side || at.outcome().is_some() || !at.is_legal(mv) {
                break;
            }
            before.push(at.hash());
            at.play(mv);
        }
        (before.len() > 1).then(|| TurnPlan {
            line: line.to_vec(),
            before,
            next: 1,
            score,
            depth,
            tuning,
        })
    }

    /// The widths of the search that made the plan.
    pub fn tuning(&self) -> TurnTuning {
        self.tuning
    }

    /// The planned move from `position` if it is the position the plan
    /// expects next (the turn went as planned), with the report of the
    /// line from there. `None` when the plan is spent or does not fit.
    pub fn next_move(&mut self, position: &G, elapsed: Duration) -> Option<(G::Move, Report)> {
        let expected = *self.before.get(self.next)?;
        let mv = self.line[self.next];
        if position.hash() != expected || !position.is_legal(mv) {
            return None;
        }
        let rest = &self.line[self.next..];
        let report = Report {
            depth: self.depth,
            seldepth: rest.len() as u32,
            score: self.score,
            nodes: 0,
            elapsed,
            pv: line_text(position, rest),
        };
        self.next += 1;
        Some((mv, report))
    }
}
