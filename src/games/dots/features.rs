//! The inputs of Dots and Boxes' learned evaluation ([`crate::network`]).
//!
//! Every line and every box has its own input, laid out on the largest
//! board (5×5 boxes) so that one input count serves every size; a network
//! is trained for one size (the seed's 4×4). Beside the board: the score
//! from the side to move's view, and what the long-chain rule reads — the
//! number of long chains, the boxes the mover can take now, and whether the
//! parity of dots and long chains favours the mover — since a network this
//! small would otherwise have to rediscover chains from single lines.

use super::Dots;
use super::geometry::MAX_SIDE;
use crate::game::Player;

/// One input per line slot of the largest board: horizontal lines (6 dot
/// rows × 5), then vertical lines (5 box rows × 6).
const LINE_SLOTS: usize = (MAX_SIDE + 1) * MAX_SIDE * 2;
/// Per box slot, its drawn sides 0–4.
const BOXES: usize = LINE_SLOTS;
const BOX_STATES: usize = 5;
/// The score difference for the side to move, −12 to 12 (clamped).
const SCORE: usize = BOXES + MAX_SIDE * MAX_SIDE * BOX_STATES;
const SCORE_REACH: i32 = 12;
/// Long chains, 0–5 (clamped).
const CHAINS: usize = SCORE + 2 * SCORE_REACH as usize + 1;
/// Boxes the side to move can take now, 0–4 (clamped).
const CAPTURABLE: usize = CHAINS + 6;
/// Whether the parity of dots and long chains favours the side to move.
const MOVER_HAPPY: usize = CAPTURABLE + 5;
/// The side to move, x or o.
const SIDE: usize = MOVER_HAPPY + 2;
/// Number of inputs.
pub const NETWORK_INPUTS: usize = SIDE + 2;

impl Dots {
    /// Pushes the active network inputs (see the module doc).
    pub(super) fn push_network_inputs(&self, active: &mut Vec<u16>) {
        let geo = self.geo;
        for line in self.drawn() {
            let [(x, y), (x2, _)] = geo.line_dots[line];
            let (x, y) = (x as usize, y as usize);
            let slot = if x2 as usize != x {
                y * MAX_SIDE + x
            } else {
                (MAX_SIDE + 1) * MAX_SIDE + y * (MAX_SIDE + 1) + x
            };
            active.push(slot as u16);
        }
        for b in 0..geo.boxes {
            let (r, c) = (b / geo.cols, b % geo.cols);
            let sides = geo.sides(self.lines, b) as usize;
            active.push((BOXES + (r * MAX_SIDE + c) * BOX_STATES + sides) as u16);
        }
        let score = self.score_diff().clamp(-SCORE_REACH, SCORE_REACH);
        active.push((SCORE as i32 + score + SCORE_REACH) as u16);
        let chains = self.long_chains();
        active.push((CHAINS + chains.min(5) as usize) as u16);
        active.push((CAPTURABLE + self.capturable().min(4)) as u16);
        active.push((MOVER_HAPPY + usize::from(self.parity_favours_mover(chains))) as u16);
        active.push((SIDE + usize::from(self.side == Player::O)) as u16);
    }
}
