//! Move-ordering statistics learnt during search, indexed by the game's
//! move codes: history (how often a quiet move caused a cutoff, per side),
//! countermoves (the reply that refuted the previous move) and continuation
//! history (how good a move is as an answer to the previous one).
//!
//! Codes are spread over fixed-size tables by a multiplicative hash, so the
//! tables suit every game, whatever its move count; two moves sharing a
//! slot only blur a heuristic.

/// Largest magnitude a history score reaches ("gravity" keeps it inside).
pub const HISTORY_MAX: i32 = 16_384;
/// log2 of the slots per side of the history and countermove tables.
const MAIN_BITS: u32 = 16;
/// log2 of the slots per move in the continuation table.
const CONTINUATION_BITS: u32 = 10;

/// Slot of a move code in a table of `2^bits` slots: the code itself when
/// it fits (games with a small, dense code space then touch only a few
/// cache lines per node instead of one line per move), else a
/// multiplicative hash of it.
#[inline]
fn slot(code: u32, bits: u32) -> usize {
    if code < 1 << bits {
        code as usize
    } else {
        (code.wrapping_add(1).wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
    }
}

/// The ordering statistics of one search thread.
#[derive(Clone, Debug)]
pub struct History {
    main: Vec<i16>,
    counters: Vec<u32>,
    continuation: Vec<i16>,
    /// Whether the continuation table is read and written (see
    /// [`History::use_continuation`]).
    follow: bool,
}

impl Default for History {
    fn default() -> Self {
        History {
            main: vec![0; 2 << MAIN_BITS],
            counters: vec![0; 2 << MAIN_BITS],
            continuation: vec![0; 1 << (2 * CONTINUATION_BITS)],
            follow: true,
        }
    }
}

impl History {
    /// Forgets everything (`uginewgame`).
    pub fn clear(&mut self) {
        self.main.fill(0);
        self.counters.fill(0);
        self.continuation.fill(0);
    }

    fn main_index(side: usize, code: u32) -> usize {
        (side << MAIN_BITS) | slot(code, MAIN_BITS)
    }

    fn continuation_index(previous: u32, code: u32) -> usize {
        (slot(previous, CONTINUATION_BITS) << CONTINUATION_BITS) | slot(code, CONTINUATION_BITS)
    }

    /// Turns the continuation table on or off (`SearchTuning::
    /// continuation_history`). Off, scores and updates leave it alone: for
    /// games whose move codes do not fit its slots, every lookup is a cache
    /// miss in a table of megabytes.
    pub fn use_continuation(&mut self, on: bool) {
        self.follow = on;
    }

    /// History plus continuation score of `code` for `side`, after the move
    /// `previous` (if any).
    pub fn score(&self, side: usize, code: u32, previous: Option<u32>) -> i32 {
        let main = self.main[Self::main_index(side, code)] as i32;
        let continuation = previous.filter(|_| self.follow).map_or(0, |p| {
            self.continuation[Self::continuation_index(p, code)] as i32
        });
        main + continuation
    }

    /// The code of the move that last refuted `previous` for `side`.
    pub fn countermove(&self, side: usize, previous: u32) -> Option<u32> {
        self.counters[Self::main_index(side, previous)].checked_sub(1)
    }

    /// Rewards (positive `bonus`) or punishes a move; the score moves by
    /// `bonus` scaled down as it nears [`HISTORY_MAX`].
    pub fn update(&mut self, side: usize, code: u32, previous: Option<u32>, bonus: i32) {
        gravity(&mut self.main[Self::main_index(side, code)], bonus);
        if let Some(p) = previous.filter(|_| self.follow) {
            gravity(
                &mut self.continuation[Self::continuation_index(p, code)],
                bonus,
            );
        }
    }

    /// Records `code` as the refutation of `previous`.
    pub fn set_countermove(&mut self, side: usize, previous: u32, code: u32) {
        self.counters[Self::main_index(side, previous)] = code + 1;
    }
}

/// `h += bonus − h·|bonus| / MAX`: large scores grow slowly and stay within
/// ±[`HISTORY_MAX`].
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let h = *entry as i32;
    *entry = (h + bonus - h * bonus.abs() / HISTORY_MAX) as i16;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_saturates_and_decays() {
        let mut h = History::default();
        for _ in 0..1000 {
            h.update(0, 42, Some(7), 2000);
        }
        let high = h.score(0, 42, None);
        assert!(high > HISTORY_MAX * 9 / 10 && high <= HISTORY_MAX, "{high}");
        assert_eq!(h.score(1, 42, None), 0, "per side");
        assert!(h.score(0, 42, Some(7)) > high, "continuation adds");
        h.update(0, 42, None, -HISTORY_MAX);
        assert!(h.score(0, 42, None) < high / 10);
    }

    #[test]
    fn small_codes_get_their_own_slot_and_large_ones_still_count() {
        // 1024 codes fill the 1024 continuation slots of one previous move
        // exactly: any hashing would make some of them share a slot.
        let mut h = History::default();
        let slots = 1u32 << CONTINUATION_BITS;
        for code in 0..slots {
            h.update(0, code, Some(5), 1 + code as i32 % 1000);
        }
        for code in 0..slots {
            let alone = h.score(0, code, None);
            assert_eq!(h.score(0, code, Some(5)) - alone, 1 + code as i32 % 1000);
        }
        let large = 7 << 20;
        h.update(1, large, Some(large + 1), 1000);
        assert!(h.score(1, large, None) > 0);
        assert!(h.score(1, large, Some(large + 1)) > h.score(1, large, None));
    }

    #[test]
    fn countermoves_are_remembered() {
        let mut h = History::default();
        assert_eq!(h.countermove(0, 5), None);
        h.set_countermove(0, 5, 0);
        assert_eq!(h.countermove(0, 5), Some(0));
        assert_eq!(h.countermove(1, 5), None);
        h.clear();
        assert_eq!(h.countermove(0, 5), None);
    }
}
