//! The time controls of a match: a fixed time per move or a clock with an
//! increment.

/// How much time players get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A fixed time per move; an answer later than `ms + margin_ms` loses.
    MoveTime {
        /// Time per move, ms.
        ms: u64,
        /// Grace before a late answer loses, ms.
        margin_ms: u64,
    },
    /// A clock per player with an increment; a player whose clock runs out
    /// loses.
    Clock {
        /// Starting time, ms.
        base_ms: u64,
        /// Added after each move, ms.
        inc_ms: u64,
    },
}

impl TimeControl {
    /// A fixed move time with the usual generous margin (one second plus a
    /// fifth of the move time), so that only a hung engine loses on time.
    pub fn movetime(ms: u64) -> TimeControl {
        TimeControl::MoveTime {
            ms,
            margin_ms: 1_000 + ms / 5,
        }
    }

    /// The time per move of a match or tuning run limited by nodes alone
    /// (`--nodes` without a time): ten seconds, generous, since the node
    /// limit ends each search; only a hung engine reaches it.
    pub fn for_nodes() -> TimeControl {
        TimeControl::movetime(10_000)
    }

    /// The seed websites' rule: 30 s per move and a player who takes longer
    /// loses, with no margin.
    pub fn seed30() -> TimeControl {
        TimeControl::MoveTime {
            ms: 30_000,
            margin_ms: 0,
        }
    }

    /// Parses `BASE+INC` in seconds, as cutechess's `tc=` (`10+0.1`); a bare
    /// `BASE` has no increment.
    pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
        let usage = || format!("--tc takes BASE+INC in seconds (e.g. 10+0.1), not '{text}'");
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |field: &str| -> Result<u64, String> {
            let value: f64 = field.trim().parse().map_err(|_| usage())?;
            if !(0.0..1e9).contains(&value) {
                return Err(usage());
            }
            Ok((value * 1000.0).round() as u64)
        };
        let base_ms = seconds(base)?;
        if base_ms == 0 {
            return Err(usage());
        }
        Ok(TimeControl::Clock {
            base_ms,
            inc_ms: seconds(inc)?,
        })
    }
}
