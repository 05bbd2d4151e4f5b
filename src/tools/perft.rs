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
            let mut moves = Vec::new();
            position.generate_moves(&mut moves);
            moves
                .iter()
                .map(|&mv| {
                    let mut child = position.clone();
                    child.play(mv);
                    perft(&child, depth - 1)
                })
                .sum()
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
            let mut child = position.clone();
            child.play(mv);
            let count = if depth == 0 {
                1
            } else {
                perft(&child, depth - 1)
            };
            (position.move_to_string(mv), count)
        })
        .collect()
}
