//! The inputs of CTOR's learned evaluation ([`crate::network`]).
//!
//! The board is a torus: no square is special, so the inputs do not name
//! squares. Each square has a *state* seen from the side to move: who holds
//! it (nobody, us, them) and how many of its eight neighbours are ours and
//! theirs — exactly what decides a replacement (five of one side's chips
//! around an enemy chip) and what a placement there would threaten. The
//! inputs say how many squares are in each state, as a thermometer (one
//! input per level reached, so the count is read linearly and no input is
//! on twice), and the same network reads 8×8 and 10×10 boards. A few more
//! inputs give what is left of the turn's budgets, the opening ramp, the
//! `empty` counter, the board size and the team size: in the middle of a
//! turn, the operations still to make are worth as much as chips.
//!
//! Secret squares are not inputs: under the expectation model their value is
//! added beside the network (`HiddenInformation::evaluation_term`).

use super::{Ctor, budget};

/// Pairs (ours, theirs) of neighbour counts: both 0–8, at most 8 together.
const NEIGHBOUR_PAIRS: usize = 45;
/// Square states: occupant (empty, ours, theirs) × neighbour pair.
const STATES: usize = 3 * NEIGHBOUR_PAIRS;
/// Count thresholds of the thermometer: a state held by `k` squares turns
/// on one input per level at most `k`. Dense where a single square changes
/// the game (a few threatened chips), sparse for the bulk of a board.
const LEVELS: [u8; 13] = [1, 2, 3, 4, 6, 8, 11, 15, 20, 27, 36, 48, 64];

const STATE_INPUTS: usize = STATES * LEVELS.len();
/// Placements left in the turn, 0–3.
const PLACE_LEFT: usize = STATE_INPUTS;
/// Movements left in the turn, 0–3.
const MOVES_LEFT: usize = PLACE_LEFT + 4;
/// Landings left in the turn, 0–1.
const LANDINGS_LEFT: usize = MOVES_LEFT + 4;
/// Turn 1, 2, 3 or later (the opening ramp of placements).
const TURN: usize = LANDINGS_LEFT + 2;
/// The `empty` counter, 0–1 (2 ends the game).
const EMPTY: usize = TURN + 4;
/// On for the 10×10 board.
const LARGE_BOARD: usize = EMPTY + 2;
/// Team size 1–3.
const TEAM: usize = LARGE_BOARD + 1;
/// Number of inputs.
pub const NETWORK_INPUTS: usize = TEAM + 3;

/// Index of each (ours, theirs) neighbour pair, `ours × 9 + theirs`
/// (`u8::MAX` for the impossible pairs past 8 neighbours).
const PAIR_INDEX: [u8; 81] = {
    let mut table = [u8::MAX; 81];
    let mut next = 0;
    let mut ours = 0;
    while ours <= 8 {
        let mut theirs = 0;
        while ours + theirs <= 8 {
            table[ours * 9 + theirs] = next;
            next += 1;
            theirs += 1;
        }
        ours += 1;
    }
    table
};

/// How many thermometer levels a count reaches.
const LEVELS_REACHED: [u8; 101] = {
    let mut table = [0u8; 101];
    let mut count = 0;
    while count <= 100 {
        let mut reached = 0;
        while reached < LEVELS.len() && LEVELS[reached] as usize <= count {
            reached += 1;
        }
        table[count] = reached as u8;
        count += 1;
    }
    table
};

/// The squares of `full` whose neighbour count is `k`, for every `k` from
/// 0 to 8, from bit planes (bit `i` of the count in plane `i`).
#[inline(always)]
fn squares_by_count(planes: &[u128; 4], full: u128) -> [u128; 9] {
    let mut by_count = [0u128; 9];
    for (k, squares) in by_count.iter_mut().enumerate() {
        *squares = planes.iter().enumerate().fold(full, |acc, (bit, &plane)| {
            acc & if k >> bit & 1 == 1 { plane } else { !plane }
        });
    }
    by_count
}

impl Ctor {
    /// Pushes the active network inputs (see the module doc).
    pub(super) fn push_network_inputs(&self, active: &mut Vec<u16>) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("popcnt") {
                // SAFETY: the CPU supports popcnt, as checked just above.
                return unsafe { self.push_network_inputs_popcnt(active) };
            }
        }
        self.push_network_inputs_portable(active)
    }

    /// [`Self::push_network_inputs`] compiled with the `popcnt`
    /// instruction (the counts of the square states are 128-bit popcounts).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn push_network_inputs_popcnt(&self, active: &mut Vec<u16>) {
        self.push_network_inputs_portable(active)
    }

    /// The squares in each state are counted by sets, not square by
    /// square: the squares with each neighbour count of each side, crossed
    /// with the occupants (a loop over the squares reading each count out
    /// of the bit planes took five times as long, half of the turn
    /// search's time).
    #[inline(always)]
    fn push_network_inputs_portable(&self, active: &mut Vec<u16>) {
        let g = self.geometry();
        let us = self.chips[self.side.index()];
        let them = self.chips[self.side.other().index()];
        let ours = squares_by_count(&g.neighbour_counts(us), g.full);
        let theirs = squares_by_count(&g.neighbour_counts(them), g.full);
        let occupants = [g.full & !(us | them), us, them];
        let mut squares_in_state = [0u8; STATES];
        for (a, &with_ours) in ours.iter().enumerate() {
            if with_ours == 0 {
                continue;
            }
            for (b, &with_theirs) in theirs.iter().enumerate().take(9 - a) {
                let both = with_ours & with_theirs;
                if both == 0 {
                    continue;
                }
                let pair = PAIR_INDEX[a * 9 + b] as usize;
                for (occupant, &held) in occupants.iter().enumerate() {
                    squares_in_state[occupant * NEIGHBOUR_PAIRS + pair] =
                        (both & held).count_ones() as u8;
                }
            }
        }
        for (state, &count) in squares_in_state.iter().enumerate() {
            let first = state * LEVELS.len();
            for level in 0..LEVELS_REACHED[count as usize] as usize {
                active.push((first + level) as u16);
            }
        }
        let allowed = budget(self.team, self.turn);
        let left = |allowed: u8, used: u8| allowed.saturating_sub(used).min(3) as usize;
        active.push((PLACE_LEFT + left(allowed.place, self.placed)) as u16);
        active.push((MOVES_LEFT + left(allowed.moves, self.moved)) as u16);
        active.push((LANDINGS_LEFT + left(allowed.land, self.landed).min(1)) as u16);
        active.push((TURN + self.turn.clamp(1, 4) as usize - 1) as u16);
        active.push((EMPTY + self.empty.min(1) as usize) as u16);
        if self.n == 10 {
            active.push(LARGE_BOARD as u16);
        }
        active.push((TEAM + self.team.clamp(1, 3) as usize - 1) as u16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_possible_neighbour_pair_has_its_own_index() {
        let mut seen = [false; NEIGHBOUR_PAIRS];
        for ours in 0..=8 {
            for theirs in 0..=(8 - ours) {
                let index = PAIR_INDEX[ours * 9 + theirs] as usize;
                assert!(!seen[index], "pair ({ours}, {theirs}) shares an index");
                seen[index] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn the_thermometer_reaches_one_level_per_threshold() {
        assert_eq!(LEVELS_REACHED[0], 0);
        assert_eq!(LEVELS_REACHED[1], 1);
        assert_eq!(LEVELS_REACHED[5], 4);
        assert_eq!(LEVELS_REACHED[6], 5);
        assert_eq!(LEVELS_REACHED[100], LEVELS.len() as u8);
    }
}
