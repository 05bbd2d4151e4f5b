//! `go` parameters and time management: turns a clock or a fixed move time
//! into the soft and hard deadlines of [`Limits`].
//!
//! - `movetime`: both deadlines at `movetime − min(MoveOverhead, movetime/10)`
//!   (never beyond).
//! - a clock: plan on about [`MOVES_TO_GO`] more moves unless told
//!   (`movestogo`), add most of the increment, never plan more than half the
//!   clock, and allow the hard deadline up to three times the plan but never
//!   past a quarter of what is left.

use super::Limits;
use crate::game::Player;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Moves assumed left in the game when the clock does not say.
pub const MOVES_TO_GO: u64 = 30;
/// Smallest time a search is ever given, in milliseconds.
const MIN_THINK_MS: u64 = 1;

/// The parameters of one `go` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// Remaining clock time of each player, in ms (`p1time`/`p2time`).
    pub time: [Option<u64>; 2],
    /// Increment of each player, in ms (`p1inc`/`p2inc`).
    pub inc: [Option<u64>; 2],
    /// Moves until the next time control.
    pub movestogo: Option<u64>,
    /// Exact time for this move, in ms.
    pub movetime: Option<u64>,
    /// Maximum depth.
    pub depth: Option<u32>,
    /// Maximum nodes (or playouts).
    pub nodes: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
}

/// The protocol dialect, which decides the names of the clock parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// UGI: `p1time p2time p1inc p2inc`.
    Ugi,
    /// UAI: `btime wtime binc winc`, black (`x`) moving first.
    Uai,
}

impl GoParams {
    /// Parses the words after `go`. Every parameter but `infinite` takes a
    /// non-negative integer; anything unknown or malformed is an error.
    pub fn parse(words: &[&str], dialect: Dialect) -> Result<GoParams, String> {
        let mut params = GoParams::default();
        let mut i = 0;
        while i < words.len() {
            let word = words[i];
            if word == "infinite" {
                params.infinite = true;
                i += 1;
                continue;
            }
            let value = words
                .get(i + 1)
                .ok_or_else(|| format!("go parameter '{word}' needs a value"))?;
            let number = || -> Result<u64, String> {
                value.parse::<u64>().map_err(|_| {
                    format!("go parameter '{word}' needs a non-negative integer, not '{value}'")
                })
            };
            match (dialect, word) {
                (Dialect::Ugi, "p1time") | (Dialect::Uai, "btime") => {
                    params.time[0] = Some(number()?)
                }
                (Dialect::Ugi, "p2time") | (Dialect::Uai, "wtime") => {
                    params.time[1] = Some(number()?)
                }
                (Dialect::Ugi, "p1inc") | (Dialect::Uai, "binc") => params.inc[0] = Some(number()?),
                (Dialect::Ugi, "p2inc") | (Dialect::Uai, "winc") => params.inc[1] = Some(number()?),
                (_, "movestogo") => params.movestogo = Some(number()?.max(1)),
                (_, "movetime") => params.movetime = Some(number()?),
                (_, "nodes") => params.nodes = Some(number()?),
                (_, "depth") => {
                    let depth = number()?;
                    if depth == 0 || depth > super::alphabeta::MAX_DEPTH as u64 {
                        return Err(format!(
                            "go depth must be 1 to {}, not {depth}",
                            super::alphabeta::MAX_DEPTH
                        ));
                    }
                    params.depth = Some(depth as u32);
                }
                _ => return Err(format!("unknown go parameter '{word}'")),
            }
            i += 2;
        }
        Ok(params)
    }

    /// Whether nothing but `stop` ends the search.
    pub fn is_unbounded(&self) -> bool {
        self.infinite
            || (self.time == [None, None]
                && self.movetime.is_none()
                && self.depth.is_none()
                && self.nodes.is_none())
    }

    /// The search limits for `side` to move, with `overhead_ms` kept in
    /// reserve for communication.
    pub fn limits(&self, side: Player, overhead_ms: u64, stop: Arc<AtomicBool>) -> Limits {
        let start = Instant::now();
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            soft_deadline: None,
            hard_deadline: None,
            adaptive: false,
            stop,
            start,
        };
        if self.infinite {
            return limits;
        }
        let at = |ms: u64| Some(start + Duration::from_millis(ms.max(MIN_THINK_MS)));
        if let Some(movetime) = self.movetime {
            // A fixed move time is the GUI's own budget: keep back the
            // overhead, but never more than a tenth of it (20 ms of a 50 ms
            // move would waste 40 % of the time on a local pipe).
            let budget = movetime.saturating_sub(overhead_ms.min(movetime / 10));
            limits.soft_deadline = at(budget);
            limits.hard_deadline = at(budget);
        }
        if let Some(clock) = self.time[side.index()] {
            let (soft, hard) = clock_budget(
                clock,
                self.inc[side.index()].unwrap_or(0),
                self.movestogo,
                overhead_ms,
            );
            // With both a clock and a movetime, the tighter bound wins.
            limits.soft_deadline = min_instant(limits.soft_deadline, at(soft));
            limits.hard_deadline = min_instant(limits.hard_deadline, at(hard));
            limits.adaptive = self.movetime.is_none();
        }
        limits
    }
}

fn min_instant(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Soft and hard budgets, in ms, for a move on a clock.
pub fn clock_budget(clock: u64, inc: u64, movestogo: Option<u64>, overhead: u64) -> (u64, u64) {
    let left = clock.saturating_sub(overhead);
    let moves = movestogo.unwrap_or(MOVES_TO_GO).clamp(1, MOVES_TO_GO);
    let plan = (left / moves + inc * 3 / 4).min(left / 2);
    let hard = (plan * 3).min(left / 4 + inc / 2).max(plan).min(left);
    (plan, hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ugi_and_uai_clocks() {
        let ugi = GoParams::parse(
            &["p1time", "1000", "p2inc", "5", "depth", "3"],
            Dialect::Ugi,
        );
        assert_eq!(
            ugi,
            Ok(GoParams {
                time: [Some(1000), None],
                inc: [None, Some(5)],
                depth: Some(3),
                ..GoParams::default()
            })
        );
        let uai = GoParams::parse(&["btime", "7", "wtime", "9"], Dialect::Uai).map(|p| p.time);
        assert_eq!(uai, Ok([Some(7), Some(9)]));
        assert!(GoParams::parse(&["btime", "7"], Dialect::Ugi).is_err());
    }

    #[test]
    fn rejects_malformed_parameters() {
        for words in [
            &["movetime"][..],
            &["movetime", "-5"],
            &["nodes", "99999999999999999999999"],
            &["depth", "0"],
            &["depth", "65"],
            &["wibble", "3"],
        ] {
            assert!(GoParams::parse(words, Dialect::Ugi).is_err(), "{words:?}");
        }
    }

    #[test]
    fn movetime_keeps_the_overhead_in_reserve() {
        let params = GoParams {
            movetime: Some(1000),
            ..GoParams::default()
        };
        let limits = params.limits(Player::X, 50, Arc::new(AtomicBool::new(false)));
        let hard = limits.hard_deadline.map(|d| d - limits.start);
        assert_eq!(hard, Some(Duration::from_millis(950)));
        let short = GoParams {
            movetime: Some(50),
            ..GoParams::default()
        };
        let limits = short.limits(Player::X, 20, Arc::new(AtomicBool::new(false)));
        let hard = limits.hard_deadline.map(|d| d - limits.start);
        assert_eq!(hard, Some(Duration::from_millis(45)), "a tenth at most");
    }

    #[test]
    fn clock_budget_is_a_sane_share() {
        let (soft, hard) = clock_budget(60_000, 0, None, 0);
        assert_eq!(soft, 2_000);
        assert!(hard >= soft && hard <= 15_000);
        let (soft, hard) = clock_budget(100, 1_000, None, 10);
        assert!(
            soft <= 45 && hard <= 90,
            "never plan past the clock: {soft} {hard}"
        );
    }
}
