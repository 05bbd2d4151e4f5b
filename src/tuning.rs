//! The per-game parameter table of the alpha-beta search: plain data that a
//! game fills in and the search reads, so it sits below both (a game never
//! imports the search).
//!
//! Every pruning and reduction of [`crate::search::alphabeta`] is generic; whether it
//! runs for a game, and with which margins, is read from the
//! [`SearchTuning`] the game supplies through
//! [`crate::game::Game::search_tuning`]. A technique is switched off by
//! setting its entry to `None`. Margins are in the game's evaluation units
//! (100 ≈ one piece).

/// A margin that grows with the remaining depth: prune when
/// `eval ± (base + per_depth × depth)` is on the wrong side of the window,
/// at depths up to `max_depth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthMargin {
    /// Deepest remaining depth where the pruning applies.
    pub max_depth: i32,
    /// Constant part of the margin.
    pub base: i32,
    /// Part of the margin per ply of remaining depth.
    pub per_depth: i32,
}

impl DepthMargin {
    /// The margin at `depth`.
    pub fn at(&self, depth: i32) -> i32 {
        self.base + self.per_depth * depth
    }
}

/// Null-move pruning: give the opponent a free move; if the position still
/// fails high at a reduced depth, it would with a real move too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NullMove {
    /// Shallowest remaining depth where a null move is tried.
    pub min_depth: i32,
    /// Reduction: `base + depth / depth_divisor` plies.
    pub base: i32,
    /// See `base`.
    pub depth_divisor: i32,
    /// From this remaining depth on, a null-move cutoff is confirmed by a
    /// reduced search without null moves (for games where zugzwang is
    /// common). `None`: never verified.
    pub verify_from: Option<i32>,
}

/// Late-move reductions: `base + ln(depth) × ln(move number) / divisor`,
/// less for principal-variation nodes, killers and good history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LateMoveReductions {
    /// Shallowest remaining depth that is reduced.
    pub min_depth: i32,
    /// Moves searched before reductions start (the first is never reduced).
    pub min_moves: usize,
    /// Constant part of the reduction.
    pub base: f64,
    /// Divisor of the logarithmic part.
    pub divisor: f64,
    /// History score worth one ply less (or more) of reduction.
    pub history_divisor: i32,
    /// Plies less for a noisy move ([`crate::game::Game::is_noisy`]): 1 in
    /// most games, 0 where nearly every move is noisy and the flag says
    /// little about the move (Ataxx's clones).
    pub noisy_less: i32,
}

/// Late-move pruning: at low depth, quiet moves after the first
/// `base + depth²` are not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LateMovePruning {
    /// Deepest remaining depth where it applies.
    pub max_depth: i32,
    /// Quiet moves always searched.
    pub base: usize,
}

/// Singular extensions: when the table move is much better than every
/// other move (a search of the node without it, at half depth, fails low
/// against `table score − margin_per_depth × depth`), it is searched one
/// ply deeper. If even without it the node fails high, the node is cut
/// (multi-cut); if it was expected to fail high anyway, the table move is
/// searched one ply shallower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SingularExtension {
    /// Shallowest remaining depth where the test is made.
    pub min_depth: i32,
    /// The table entry must be at most this many plies shallower than the
    /// node.
    pub entry_depth_margin: i32,
    /// Margin below the table score, per ply of remaining depth.
    pub margin_per_depth: i32,
}

/// The search parameters of one game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchTuning {
    /// Aspiration windows from this iteration on: `(min_depth, half
    /// width)`; the window widens by half again on every failure.
    pub aspiration: Option<(u32, i32)>,
    /// Reverse futility (static null-move) pruning.
    pub reverse_futility: Option<DepthMargin>,
    /// Null-move pruning (only where [`crate::game::Game::null_move`] gives
    /// a position).
    pub null_move: Option<NullMove>,
    /// Internal iterative reduction: one ply less without a table move from
    /// this depth on.
    pub internal_reduction: Option<i32>,
    /// Singular extensions of the table move (at non-PV nodes).
    pub singular: Option<SingularExtension>,
    /// Late-move reductions.
    pub late_move_reductions: Option<LateMoveReductions>,
    /// Late-move pruning of quiet moves.
    pub late_move_pruning: Option<LateMovePruning>,
    /// Futility pruning of quiet moves (and of noisy ones too with
    /// `futility_prunes_noisy`).
    pub futility: Option<DepthMargin>,
    /// Whether futility pruning skips noisy moves too, once one move has
    /// been searched: for games where nearly every move is noisy, so that
    /// sparing them would leave little to prune (Ataxx's clones and
    /// captures).
    pub futility_prunes_noisy: bool,
    /// Quiescence search over [`crate::game::Game::is_noisy`] moves at the
    /// horizon, up to this many plies.
    pub quiescence: Option<u32>,
    /// Whether [`crate::game::Game::move_hint`] is cheap enough to order
    /// every node with; otherwise only nodes of depth ≥ 2 use it and the
    /// others order by history alone.
    pub cheap_hints: bool,
    /// Whether history, killers and countermoves learn from the cutoffs of
    /// every move, not only of quiet ones: for games where most moves are
    /// noisy and the hint alone cannot order them (Ataxx's clones).
    pub history_from_every_move: bool,
    /// Whether move ordering uses continuation history (how good a move
    /// is as an answer to the previous one). Its table is a few megabytes:
    /// where move codes are too many for its slots (Ataxx's 2,401), each
    /// lookup misses the caches, for every move of every node ordered.
    pub continuation_history: bool,
    /// The static evaluation is multiplied by this, in percent, before
    /// the search compares it with its margins (a network's scores are
    /// shaped differently from the hand-written ones the margins were
    /// first set for).
    pub eval_scale: i32,
    /// How the time on a clock is spent.
    pub time: TimeTuning,
    /// How the threads of a search share the work.
    pub threads: ThreadTuning,
    /// The widths of the search over whole turns (`Search turns`), for
    /// games where a side makes several moves in a row; `None` elsewhere.
    pub turns: Option<TurnTuning>,
}

/// How wide the search over whole turns looks (see
/// `crate::search::turns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnTuning {
    /// Candidate turns kept at the root …
    pub root_width: u32,
    /// … unfinished turns kept there after each move while they are built …
    pub root_beam: u32,
    /// … and moves of each unfinished turn tried there, the best by the
    /// game's hints (moves that end the turn are tried besides).
    pub root_expand: u32,
    /// The same three below the root (the opponent's answers and beyond).
    pub width: u32,
    /// See `width`.
    pub beam: u32,
    /// See `width`.
    pub expand: u32,
    /// 1: on a clock, the search at a turn's first operation chooses the
    /// whole turn with the turn's whole time, and the turn's other
    /// operations are played from its line without a search
    /// (`engine::turn_plan`); 0: every operation is searched with an even
    /// share of the turn's time. 0 until a match says otherwise.
    pub plan_on_clock: u32,
}

impl TurnTuning {
    /// The widths first tried (CTOR, 8×8): the root's candidates built about
    /// as well as alpha-beta plays a turn at 100 ms per operation (by the
    /// evaluation of the position the turn leaves, 14 middle-game
    /// positions: 390 on average against alpha-beta's 334–387, in some
    /// 5,000 evaluations; 4 unfinished turns and 6 moves each gave 187), the
    /// answers more cheaply (301 in 1,000 evaluations).
    pub const DEFAULT: TurnTuning = TurnTuning {
        root_width: 8,
        root_beam: 24,
        root_expand: 60,
        width: 6,
        beam: 8,
        expand: 30,
        plan_on_clock: 0,
    };
}

/// Lazy SMP with more than one thread (see `crate::search::alphabeta`):
/// how far ahead helpers search and where threads split a node's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadTuning {
    /// Odd-numbered helpers search this many plies deeper than their
    /// iteration count …
    pub helper_ahead: u32,
    /// … from this iteration on.
    pub helper_ahead_from: u32,
    /// Remaining depth from which a node's moves are marked while searched,
    /// so that another thread defers them.
    pub defer_min_depth: i32,
}

impl ThreadTuning {
    /// The values measured by hand before the SPSA tool (issue 53).
    pub const DEFAULT: ThreadTuning = ThreadTuning {
        helper_ahead: 1,
        helper_ahead_from: 3,
        defer_min_depth: 3,
    };
}

/// Time management on a clock (not with `movetime`, which is the GUI's
/// own budget): the plan of each turn, its hard limit, and when iterative
/// deepening stops early (see `crate::search::time` and the alpha-beta
/// search's `keep_going`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeTuning {
    /// Turns assumed left in the game when the clock does not say.
    pub moves_to_go: u32,
    /// Share of the increment added to every turn's plan, in percent.
    pub increment_percent: u32,
    /// The hard limit, in percent of the plan …
    pub hard_percent: u32,
    /// … but never past the clock left divided by this (plus the
    /// increment's share).
    pub hard_clock_divisor: u32,
    /// No new iteration starts once this share of the planned time (in
    /// percent, scaled by the factors below) has gone.
    pub new_iteration_percent: u32,
    /// That share scaled by the iterations the best move has stayed the
    /// same: 0, 1, 2, 3, 4 and more (percent).
    pub stability_percent: [u32; 5],
    /// A score that fell by this much since the last iteration doubles the
    /// share …
    pub falling_divisor: u32,
    /// … up to this factor (percent).
    pub falling_max_percent: u32,
    /// The share is scaled by `effort − (the best move's share of the
    /// nodes)`, clamped to 0.7–1.5 (effort in percent).
    pub effort_percent: u32,
}

impl TimeTuning {
    /// The values measured by hand before the SPSA tool (issue 53).
    pub const DEFAULT: TimeTuning = TimeTuning {
        moves_to_go: 30,
        increment_percent: 50,
        hard_percent: 300,
        hard_clock_divisor: 5,
        new_iteration_percent: 55,
        stability_percent: [150, 120, 100, 90, 80],
        falling_divisor: 200,
        falling_max_percent: 150,
        effort_percent: 160,
    };
}

impl SearchTuning {
    /// Plain alpha-beta with no pruning or reduction at all (the reference
    /// that the exactness tests compare with).
    pub const PLAIN: SearchTuning = SearchTuning {
        aspiration: None,
        reverse_futility: None,
        null_move: None,
        internal_reduction: None,
        singular: None,
        late_move_reductions: None,
        late_move_pruning: None,
        futility: None,
        futility_prunes_noisy: false,
        quiescence: None,
        cheap_hints: false,
        history_from_every_move: false,
        continuation_history: true,
        eval_scale: 100,
        time: TimeTuning::DEFAULT,
        threads: ThreadTuning::DEFAULT,
        turns: None,
    };

    /// Conservative defaults for a game with a hand-written evaluation of
    /// about 100 per piece: every technique on, with safe margins, no null
    /// move (the game must opt in) and no quiescence.
    pub const DEFAULT: SearchTuning = SearchTuning {
        aspiration: Some((5, 40)),
        reverse_futility: Some(DepthMargin {
            max_depth: 6,
            base: 0,
            per_depth: 90,
        }),
        null_move: None,
        internal_reduction: Some(4),
        singular: None,
        late_move_reductions: Some(LateMoveReductions {
            min_depth: 3,
            min_moves: 2,
            base: 0.5,
            divisor: 2.5,
            history_divisor: 8192,
            noisy_less: 1,
        }),
        late_move_pruning: Some(LateMovePruning {
            max_depth: 4,
            base: 4,
        }),
        futility: Some(DepthMargin {
            max_depth: 5,
            base: 150,
            per_depth: 100,
        }),
        futility_prunes_noisy: false,
        quiescence: None,
        cheap_hints: false,
        history_from_every_move: false,
        continuation_history: true,
        eval_scale: 100,
        time: TimeTuning::DEFAULT,
        threads: ThreadTuning::DEFAULT,
        turns: None,
    };
}

impl Default for SearchTuning {
    fn default() -> Self {
        SearchTuning::DEFAULT
    }
}

/// One search parameter that can be set by name (`setoption name
/// Tune.<name>`) and tuned by `agon tune`: an integer with its range and
/// the perturbation SPSA starts from (its `c_end`). Fractional parameters
/// are in hundredths.
#[derive(Clone, Copy, Debug)]
pub struct Tunable {
    /// The name after `Tune.`.
    pub name: &'static str,
    /// Smallest value allowed.
    pub min: i32,
    /// Largest value allowed.
    pub max: i32,
    /// A perturbation that changes play measurably but not wildly (SPSA's
    /// final `c`).
    pub step: i32,
    /// The value in a table, `None` when the technique is off there.
    get: fn(&SearchTuning) -> Option<i32>,
    /// Writes the value (only called where `get` gives one).
    set: fn(&mut SearchTuning, i32),
}

impl Tunable {
    /// The value in `tuning`, `None` where the technique is off (the game
    /// has no such parameter).
    pub fn value(&self, tuning: &SearchTuning) -> Option<i32> {
        (self.get)(tuning)
    }
}

/// A field of a technique that may be off (`Option`).
macro_rules! technique {
    // A technique that is a single number.
    ($name:literal, $min:literal ..= $max:literal, step $step:literal, $technique:ident as $ty:ty) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            step: $step,
            get: |t| t.$technique.map(|x| x as i32),
            set: |t, v| {
                if let Some(x) = &mut t.$technique {
                    *x = v as $ty;
                }
            },
        }
    };
    // A fractional field, in hundredths.
    ($name:literal, $min:literal ..= $max:literal, step $step:literal, $technique:ident . $field:ident in hundredths) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            step: $step,
            get: |t| t.$technique.map(|x| (x.$field * 100.0).round() as i32),
            set: |t, v| {
                if let Some(x) = &mut t.$technique {
                    x.$field = f64::from(v) / 100.0;
                }
            },
        }
    };
    ($name:literal, $min:literal ..= $max:literal, step $step:literal, $technique:ident . $field:tt as $ty:ty) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            step: $step,
            get: |t| t.$technique.map(|x| x.$field as i32),
            set: |t, v| {
                if let Some(x) = &mut t.$technique {
                    x.$field = v as $ty;
                }
            },
        }
    };
}

/// A field that every table has.
macro_rules! always {
    ($name:literal, $min:literal ..= $max:literal, step $step:literal, $($path:tt)+) => {
        Tunable {
            name: $name,
            min: $min,
            max: $max,
            step: $step,
            get: |t| Some(t.$($path)+ as i32),
            set: |t, v| t.$($path)+ = v as _,
        }
    };
}

/// Every tunable parameter, in the order `query tunables` lists them.
pub static TUNABLES: &[Tunable] = &[
    technique!("aspiration_depth", 1..=16, step 1, aspiration.0 as u32),
    technique!("aspiration_width", 2..=400, step 3, aspiration.1 as i32),
    technique!("rfp_depth", 1..=16, step 1, reverse_futility.max_depth as i32),
    technique!("rfp_base", -200..=400, step 8, reverse_futility.base as i32),
    technique!("rfp_per_depth", 4..=400, step 4, reverse_futility.per_depth as i32),
    technique!("nmp_min_depth", 1..=12, step 1, null_move.min_depth as i32),
    technique!("nmp_base", 1..=8, step 1, null_move.base as i32),
    technique!("nmp_divisor", 1..=16, step 1, null_move.depth_divisor as i32),
    technique!("iir_depth", 1..=16, step 1, internal_reduction as i32),
    technique!("se_min_depth", 2..=20, step 1, singular.min_depth as i32),
    technique!("se_entry_margin", 1..=10, step 1, singular.entry_depth_margin as i32),
    technique!("se_margin", 1..=64, step 1, singular.margin_per_depth as i32),
    technique!("lmr_min_depth", 1..=10, step 1, late_move_reductions.min_depth as i32),
    technique!("lmr_min_moves", 1..=16, step 1, late_move_reductions.min_moves as usize),
    technique!("lmr_base", -100..=300, step 10, late_move_reductions.base in hundredths),
    technique!("lmr_divisor", 100..=800, step 15, late_move_reductions.divisor in hundredths),
    technique!("lmr_history_divisor", 512..=65536, step 512, late_move_reductions.history_divisor as i32),
    technique!("lmr_noisy_less", 0..=3, step 1, late_move_reductions.noisy_less as i32),
    technique!("lmp_depth", 1..=16, step 1, late_move_pruning.max_depth as i32),
    technique!("lmp_base", 0..=32, step 1, late_move_pruning.base as usize),
    technique!("fp_depth", 1..=16, step 1, futility.max_depth as i32),
    technique!("fp_base", 0..=600, step 8, futility.base as i32),
    technique!("fp_per_depth", 0..=400, step 6, futility.per_depth as i32),
    technique!("qs_depth", 1..=64, step 1, quiescence as u32),
    always!("eval_scale", 25..=400, step 5, eval_scale),
    always!("tm_moves_to_go", 5..=100, step 3, time.moves_to_go),
    always!("tm_increment", 0..=100, step 5, time.increment_percent),
    always!("tm_hard", 100..=1000, step 25, time.hard_percent),
    always!("tm_hard_divisor", 2..=20, step 1, time.hard_clock_divisor),
    always!("tm_new_iteration", 10..=150, step 5, time.new_iteration_percent),
    always!("tm_stable0", 30..=400, step 10, time.stability_percent[0]),
    always!("tm_stable1", 30..=400, step 10, time.stability_percent[1]),
    always!("tm_stable2", 30..=400, step 10, time.stability_percent[2]),
    always!("tm_stable3", 30..=400, step 8, time.stability_percent[3]),
    always!("tm_stable4", 30..=400, step 8, time.stability_percent[4]),
    always!("tm_falling_divisor", 20..=2000, step 20, time.falling_divisor),
    always!("tm_falling_max", 100..=400, step 10, time.falling_max_percent),
    always!("tm_effort", 80..=300, step 8, time.effort_percent),
    always!("smp_helper_ahead", 0..=4, step 1, threads.helper_ahead),
    always!("smp_helper_ahead_from", 1..=16, step 1, threads.helper_ahead_from),
    always!("smp_defer_depth", 1..=16, step 1, threads.defer_min_depth),
    technique!("turn_root_width", 1..=64, step 2, turns.root_width as u32),
    technique!("turn_root_beam", 1..=256, step 2, turns.root_beam as u32),
    technique!("turn_root_expand", 1..=100000, step 10, turns.root_expand as u32),
    technique!("turn_width", 1..=64, step 1, turns.width as u32),
    technique!("turn_beam", 1..=256, step 1, turns.beam as u32),
    technique!("turn_expand", 1..=100000, step 5, turns.expand as u32),
    technique!("turn_plan", 0..=1, step 1, turns.plan_on_clock as u32),
];

impl SearchTuning {
    /// The tunables that apply to this table (its techniques that are on),
    /// with their values here.
    pub fn tunables(&self) -> impl Iterator<Item = (&'static Tunable, i32)> + '_ {
        TUNABLES
            .iter()
            .filter_map(|t| t.value(self).map(|value| (t, value)))
    }

    /// Sets tunable `name` (without `Tune.`, any case) to `value`. An error
    /// when no tunable has that name, when its technique is off in this
    /// table, or when the value is out of range; nothing changes then.
    pub fn set_tunable(&mut self, name: &str, value: i32) -> Result<(), String> {
        let tunable = find_tunable(name)?;
        check_range(tunable, value)?;
        if tunable.value(self).is_none() {
            return Err(format!(
                "Tune.{} does not apply here: the technique it sets is off in this game's search",
                tunable.name
            ));
        }
        (tunable.set)(self, value);
        Ok(())
    }

    /// This table with `overrides` (tunable names and values) applied where
    /// their technique is on; the others are left out (they were checked
    /// against the game they were set for).
    pub fn with_overrides(mut self, overrides: &[(&'static str, i32)]) -> SearchTuning {
        for &(name, value) in overrides {
            let _ = self.set_tunable(name, value);
        }
        self
    }
}

/// The tunable named `name` (without `Tune.`, any case).
pub fn find_tunable(name: &str) -> Result<&'static Tunable, String> {
    TUNABLES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown tunable 'Tune.{name}' (`query tunables` lists them)"))
}

/// An error unless `value` is within `tunable`'s range.
pub fn check_range(tunable: &Tunable, value: i32) -> Result<(), String> {
    if value < tunable.min || value > tunable.max {
        return Err(format!(
            "option Tune.{} must be from {} to {}, not {value}",
            tunable.name, tunable.min, tunable.max
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_reads_back_what_it_writes() {
        let mut everything = SearchTuning {
            null_move: Some(NullMove {
                min_depth: 3,
                base: 2,
                depth_divisor: 4,
                verify_from: None,
            }),
            singular: Some(SingularExtension {
                min_depth: 6,
                entry_depth_margin: 3,
                margin_per_depth: 2,
            }),
            quiescence: Some(6),
            turns: Some(TurnTuning::DEFAULT),
            ..SearchTuning::DEFAULT
        };
        assert_eq!(everything.tunables().count(), TUNABLES.len());
        for tunable in TUNABLES {
            let default = tunable.value(&everything).unwrap();
            assert!(
                (tunable.min..=tunable.max).contains(&default),
                "{} default {default} outside its range",
                tunable.name
            );
            assert!(tunable.step >= 1 && tunable.step <= tunable.max - tunable.min);
            for value in [tunable.min, tunable.max] {
                everything.set_tunable(tunable.name, value).unwrap();
                assert_eq!(tunable.value(&everything), Some(value), "{}", tunable.name);
            }
        }
        let names: std::collections::HashSet<_> = TUNABLES.iter().map(|t| t.name).collect();
        assert_eq!(names.len(), TUNABLES.len(), "names are unique");
    }

    #[test]
    fn bad_names_values_and_techniques_that_are_off_are_refused() {
        let mut plain = SearchTuning::PLAIN;
        let before = plain;
        assert!(
            plain
                .set_tunable("rfp_margin", 3)
                .unwrap_err()
                .contains("unknown")
        );
        assert!(
            plain
                .set_tunable("rfp_base", 3)
                .unwrap_err()
                .contains("does not apply")
        );
        assert!(
            plain
                .set_tunable("tm_hard", 99)
                .unwrap_err()
                .contains("from 100 to 1000")
        );
        assert_eq!(plain, before, "nothing changed");
        plain.set_tunable("TM_HARD", 250).unwrap();
        assert_eq!(plain.time.hard_percent, 250);
    }

    #[test]
    fn overrides_apply_only_where_the_technique_is_on() {
        let tuned = SearchTuning::PLAIN.with_overrides(&[("rfp_base", 10), ("eval_scale", 120)]);
        assert_eq!(tuned.reverse_futility, None);
        assert_eq!(tuned.eval_scale, 120);
        let default = SearchTuning::DEFAULT.with_overrides(&[]);
        assert_eq!(default, SearchTuning::DEFAULT);
    }
}
