//! Late-move reductions by remaining depth and move number, computed once
//! from a game's [`LateMoveReductions`].

use crate::tuning::LateMoveReductions;

/// Late-move reductions precomputed by remaining depth and move number.
#[derive(Clone, Debug)]
pub struct ReductionTable {
    table: Vec<[u8; Self::MOVES]>,
}

impl ReductionTable {
    const DEPTHS: usize = 64;
    const MOVES: usize = 64;

    /// The table for these parameters (all zero without reductions).
    pub fn new(lmr: Option<&LateMoveReductions>) -> Self {
        let mut table = vec![[0u8; Self::MOVES]; Self::DEPTHS];
        if let Some(lmr) = lmr {
            for (depth, row) in table.iter_mut().enumerate().skip(1) {
                for (moves, cell) in row.iter_mut().enumerate().skip(1) {
                    let r = lmr.base + (depth as f64).ln() * (moves as f64).ln() / lmr.divisor;
                    *cell = r.max(0.0).round() as u8;
                }
            }
        }
        ReductionTable { table }
    }

    /// Plies of reduction at `depth` for the `moves`-th move (1-based).
    pub fn get(&self, depth: i32, moves: usize) -> i32 {
        let depth = (depth.max(0) as usize).min(Self::DEPTHS - 1);
        self.table[depth][moves.min(Self::MOVES - 1)] as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::SearchTuning;

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        let table = ReductionTable::new(SearchTuning::DEFAULT.late_move_reductions.as_ref());
        assert_eq!(table.get(1, 1), 1, "base 0.5 rounds up, ln 1 = 0");
        assert!(table.get(3, 3) <= table.get(10, 3));
        assert!(table.get(10, 3) <= table.get(10, 30));
        assert!(table.get(20, 40) >= 4);
        let none = ReductionTable::new(None);
        assert_eq!(none.get(20, 40), 0);
    }
}
