//! `go` parameters and time management: turns a clock or a fixed move time
//! into the soft and hard deadlines of [`Limits`].
//!
//! - `movetime`: both deadlines at `movetime − min(MoveOverhead, movetime/10)`
//!   (never beyond).
//! - a clock: plan on about `moves_to_go` more turns unless told
//!   (`movestogo N`: N turns, plus one spare so that the last turn before
//!   the control never spends more than a quarter of the clock), add half
//!   the increment, and allow the hard deadline up to three times the plan
//!   but never past a fifth of what is left plus half the increment (or
//!   the plan, when that is larger: a quarter for `movestogo 1`). Half
//!   the increment (not more) keeps a reserve of about 15 increments on
//!   the clock in long games.
//! - a turn of several moves (CTOR's operations) shares one turn's plan:
//!   each move gets the clock's part of the plan (and of the hard limit)
//!   divided by the moves the turn is expected to have, plus half the
//!   increment, which is earned after every move ([`crate::game::Game::moves_in_turn`]). An
//!   even share, not one over the moves still left: that would give the
//!   later moves ever more and the turn about 1.5 plans in all.
//!   A search that chooses the whole turn at its first move (the search
//!   over whole turns, which plays the turn's other moves from it) gets
//!   the turn's whole plan instead, with the increment share of each of
//!   its moves; its hard limit counts only the increment on the clock.
//! - a forced move (the only legal one) on a clock is answered at once.
//! - only the other side's clock given: it is taken for both (better than
//!   searching without limit); the protocol says so in an `info string`.

use super::Limits;
use crate::game::{Game, Player};
use crate::tuning::TimeTuning;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What the clock plan needs to know of the position to move in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnShape {
    /// The side to move.
    pub side: Player,
    /// Moves the turn is expected to have (at least 1).
    pub moves_in_turn: u32,
    /// Whether there is exactly one legal move.
    pub forced: bool,
    /// Whether this move's search chooses the whole turn and the turn's
    /// other moves are played from it without a search: the move then gets
    /// the turn's whole plan (the clock's part and the increment share of
    /// each of its moves) instead of an even share.
    pub whole_turn: bool,
}

impl TurnShape {
    /// The shape of `position`'s turn.
    pub fn of<G: Game>(position: &G) -> TurnShape {
        TurnShape {
            side: position.side_to_move(),
            moves_in_turn: position.moves_in_turn().max(1),
            forced: position.count_moves() == 1,
            whole_turn: false,
        }
    }

    /// A turn of one move, with a choice, for `side`.
    pub fn single(side: Player) -> TurnShape {
        TurnShape {
            side,
            moves_in_turn: 1,
            forced: false,
            whole_turn: false,
        }
    }

    /// The same turn, its whole plan spent on this move (see
    /// [`TurnShape::whole_turn`]).
    pub fn whole_turn(self) -> TurnShape {
        TurnShape {
            whole_turn: true,
            ..self
        }
    }
}
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

    /// The clock and increment that apply to `side`: its own, or the other
    /// side's when only that one is given (`borrowed` is then true).
    pub fn clock_for(&self, side: Player) -> Option<(u64, u64, bool)> {
        let own = side.index();
        let other = side.other().index();
        if let Some(clock) = self.time[own] {
            Some((clock, self.inc[own].unwrap_or(0), false))
        } else {
            let clock = self.time[other]?;
            Some((clock, self.inc[other].or(self.inc[own]).unwrap_or(0), true))
        }
    }

    /// The search limits for the turn `turn`, with `overhead_ms` kept in
    /// reserve for communication, on a clock planned by `plan`.
    pub fn limits(
        &self,
        turn: TurnShape,
        overhead_ms: u64,
        plan: &TimeTuning,
        stop: Arc<AtomicBool>,
    ) -> Limits {
        let start = Instant::now();
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            soft_nodes: None,
            soft_deadline: None,
            hard_deadline: None,
            adaptive: false,
            stop,
            start,
            node_count: None,
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
        if let Some((clock, inc, _)) = self.clock_for(turn.side) {
            let (soft, hard) = if turn.forced {
                (MIN_THINK_MS, MIN_THINK_MS)
            } else if turn.whole_turn {
                // The increments of the turn's later moves are earned at
                // once after this one, as they are played from its search:
                // the plan counts them, the hard limit (which bounds what a
                // search may take of the clock) only the one on it now.
                let incs = inc.saturating_mul(u64::from(turn.moves_in_turn.max(1)));
                let (soft, _) = clock_budget(clock, incs, self.movestogo, overhead_ms, 1, plan);
                let (_, hard) = clock_budget(clock, inc, self.movestogo, overhead_ms, 1, plan);
                (soft, hard.max(soft))
            } else {
                let share = u64::from(turn.moves_in_turn.max(1));
                clock_budget(clock, inc, self.movestogo, overhead_ms, share, plan)
            };
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

/// Soft and hard budgets, in ms, for one of the `share` moves of a turn on
/// a clock, as `plan` spends it. The clock's share is divided among the
/// turn's moves; the increment is not, since it is added after every move.
pub fn clock_budget(
    clock: u64,
    inc: u64,
    movestogo: Option<u64>,
    overhead: u64,
    share: u64,
    plan: &TimeTuning,
) -> (u64, u64) {
    let left = clock.saturating_sub(overhead);
    let share = share.max(1);
    let moves_to_go = u64::from(plan.moves_to_go.max(2));
    // One spare turn beyond a control: the clock never bets on it.
    let turns = movestogo
        .map_or(moves_to_go, |m| m.saturating_add(1))
        .clamp(2, moves_to_go);
    let inc_share = inc.saturating_mul(u64::from(plan.increment_percent)) / 100;
    let soft = (left / turns / share + inc_share).min(left / 4 / share);
    let hard_divisor = u64::from(plan.hard_clock_divisor.max(1));
    let hard = (soft.saturating_mul(u64::from(plan.hard_percent)) / 100)
        .min(left / hard_divisor / share + inc_share)
        .max(soft)
        .min(left);
    (soft, hard)
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
        let limits = params.limits(
            TurnShape::single(Player::X),
            50,
            &TimeTuning::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        );
        let hard = limits.hard_deadline.map(|d| d - limits.start);
        assert_eq!(hard, Some(Duration::from_millis(950)));
        let short = GoParams {
            movetime: Some(50),
            ..GoParams::default()
        };
        let limits = short.limits(
            TurnShape::single(Player::X),
            20,
            &TimeTuning::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        );
        let hard = limits.hard_deadline.map(|d| d - limits.start);
        assert_eq!(hard, Some(Duration::from_millis(45)), "a tenth at most");
    }

    #[test]
    fn clock_budget_is_a_sane_share() {
        let (soft, hard) = clock_budget(60_000, 0, None, 0, 1, &TimeTuning::DEFAULT);
        assert_eq!(soft, 2_000);
        assert!(hard >= soft && hard <= 12_000);
        let (soft, hard) = clock_budget(100, 1_000, None, 10, 1, &TimeTuning::DEFAULT);
        assert!(
            soft <= 45 && hard <= 90,
            "never plan past the clock: {soft} {hard}"
        );
    }

    #[test]
    fn the_plan_follows_its_tuning() {
        let longer = TimeTuning {
            moves_to_go: 20,
            increment_percent: 100,
            hard_percent: 200,
            ..TimeTuning::DEFAULT
        };
        assert_eq!(
            clock_budget(60_000, 100, None, 0, 1, &longer),
            (3_100, 6_200)
        );
        assert_eq!(
            clock_budget(60_000, 100, None, 0, 1, &TimeTuning::DEFAULT),
            (2_050, 6_150)
        );
    }

    #[test]
    fn the_last_turn_before_a_control_keeps_most_of_the_clock() {
        // It used to plan half the clock for `movestogo 1`.
        let (soft, hard) = clock_budget(10_000, 0, Some(1), 0, 1, &TimeTuning::DEFAULT);
        assert!(soft <= 2_500 && hard <= 2_500, "{soft} {hard}");
        let (soft, _) = clock_budget(10_000, 0, Some(9), 0, 1, &TimeTuning::DEFAULT);
        assert_eq!(soft, 1_000, "nine turns and a spare");
    }

    #[test]
    fn a_long_game_on_increment_keeps_a_reserve() {
        // 10 s + 0.1 s, every turn using its whole plan, for 300 turns: the
        // clock settles well above 5 % of the base time (it used to settle
        // near 0.75 s and ended games with 0.23 s in a GUI).
        let mut clock = 10_000u64;
        for _ in 0..300 {
            let (soft, _) = clock_budget(clock, 100, None, 10, 1, &TimeTuning::DEFAULT);
            clock = clock - soft + 100;
        }
        assert!(clock >= 1_000, "settled at {clock} ms");
    }

    fn soft_ms(params: &GoParams, turn: TurnShape) -> Option<u128> {
        let limits = params.limits(
            turn,
            0,
            &TimeTuning::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        );
        limits.soft_deadline.map(|d| (d - limits.start).as_millis())
    }

    #[test]
    fn a_turn_of_several_moves_shares_one_plan() {
        let params = GoParams {
            time: [Some(30_000), Some(30_000)],
            ..GoParams::default()
        };
        let one = soft_ms(&params, TurnShape::single(Player::X));
        let turn = TurnShape {
            moves_in_turn: 5,
            ..TurnShape::single(Player::X)
        };
        assert_eq!(one, Some(1_000));
        assert_eq!(soft_ms(&params, turn), Some(200));
    }

    #[test]
    fn a_search_of_the_whole_turn_gets_its_whole_plan() {
        let params = GoParams {
            time: [Some(30_000), Some(30_000)],
            inc: [Some(100), Some(100)],
            ..GoParams::default()
        };
        let turn = TurnShape {
            moves_in_turn: 5,
            ..TurnShape::single(Player::X)
        };
        // Half of each increment is spent (the default plan).
        assert_eq!(soft_ms(&params, turn), Some(200 + 50));
        assert_eq!(soft_ms(&params, turn.whole_turn()), Some(1_000 + 5 * 50));
        // Increments not yet on the clock never raise the hard limit.
        let hard_ms = |turn: TurnShape| {
            let limits = params.limits(turn, 0, &TimeTuning::DEFAULT, Arc::default());
            limits.hard_deadline.map(|d| (d - limits.start).as_millis())
        };
        assert_eq!(
            hard_ms(turn.whole_turn()),
            hard_ms(TurnShape::single(Player::X))
        );
        let forced = TurnShape {
            forced: true,
            ..turn.whole_turn()
        };
        assert_eq!(soft_ms(&params, forced), Some(MIN_THINK_MS as u128));
    }

    #[test]
    fn a_forced_move_on_a_clock_is_answered_at_once() {
        let params = GoParams {
            time: [Some(30_000), Some(30_000)],
            ..GoParams::default()
        };
        let forced = TurnShape {
            forced: true,
            ..TurnShape::single(Player::O)
        };
        assert_eq!(soft_ms(&params, forced), Some(MIN_THINK_MS as u128));
        let fixed = GoParams {
            movetime: Some(500),
            ..GoParams::default()
        };
        assert_eq!(soft_ms(&fixed, forced), Some(500), "movetime is the GUI's");
    }

    #[test]
    fn only_the_other_clock_is_taken_for_both() {
        // `go p2time 1000` with x to move used to search until `stop`.
        let params = GoParams::parse(&["p2time", "1000", "p2inc", "10"], Dialect::Ugi).unwrap();
        assert_eq!(params.clock_for(Player::X), Some((1_000, 10, true)));
        assert_eq!(params.clock_for(Player::O), Some((1_000, 10, false)));
        let limits = params.limits(
            TurnShape::single(Player::X),
            0,
            &TimeTuning::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        );
        assert!(limits.hard_deadline.is_some());
    }
}
