//! Perft: count the leaf positions of the move tree to a fixed depth, the
//! standard check of a move generator (and a measure of its speed).
//!
//! Counting uses [`Game::count_moves`] at depth 1 ("bulk counting"), so a
//! game with a fast move counter is measured on that. Perft follows the
//! position's own rules only: repetition, which needs the game's history, is
//! not applied (as in the public Ataxx libraries).

use crate::game::Game;

/// Number of leaf positions `depth` plies below `position`.
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_moves(),
        _ => {
            // A plain loop: this is the measured hot path (an iterator
            // adapter over the children cost about 20 % at Ataxx depth 6).
            let mut moves = Vec::new();
            position.generate_moves(&mut moves);
            let mut total = 0;
            for &mv in &moves {
                total += leaves_after(position, mv, depth - 1);
            }
            total
        }
    }
}

/// Perft split by root move: `(move string, leaf count)` in move-generation
/// order.
pub fn divide<G: Game>(position: &G, depth: u32) -> Vec<(String, u64)> {
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    moves
        .iter()
        .map(|&mv| {
            (
                position.move_to_string(mv),
                leaves_after(position, mv, depth.max(1) - 1),
            )
        })
        .collect()
}

/// Leaves `depth` plies below the position after `mv`.
#[inline]
fn leaves_after<G: Game>(position: &G, mv: G::Move, depth: u32) -> u64 {
    let mut child = position.clone();
    child.play(mv);
    perft(&child, depth)
}
