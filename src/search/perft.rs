//! Perft: count the leaf positions of the move tree to a fixed depth, the
//! standard check of a move generator (and a measure of its speed).
//!
//! Counting uses [`Game::count_moves`] at depth 1 ("bulk counting"), so a
//! game with a fast move counter is measured on that. Perft follows the
//! position's own rules only: repetition, which needs the game's history, is
//! not applied (as in the public Ataxx libraries).

use crate::game::Game;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a perft gave no count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftError {
    /// The count does not fit in 64 bits.
    Overflow,
    /// The stop flag was raised.
    Stopped,
    /// The position has this many moves, too many to generate one by one.
    TooManyMoves(u64),
}

/// The most moves perft generates in one position (Nim with huge heaps has
/// more than memory holds; counting them at depth 1 is still exact).
pub const MAX_GENERATED_MOVES: u64 = 1 << 20;

impl std::fmt::Display for PerftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerftError::Overflow => {
                write!(f, "the leaf count reaches 2^64 - 1, more than perft counts")
            }
            PerftError::Stopped => write!(f, "perft was stopped"),
            PerftError::TooManyMoves(n) => write!(
                f,
                "the position has {n} moves, more than the {MAX_GENERATED_MOVES} perft expands"
            ),
        }
    }
}

/// Number of leaf positions `depth` plies below `position`; an error if the
/// count does not fit in a `u64`.
pub fn perft<G: Game>(position: &G, depth: u32) -> Result<u64, PerftError> {
    perft_until(position, depth, &AtomicBool::new(false))
}

/// [`perft`] that gives up with [`PerftError::Stopped`] soon after `stop`
/// is raised (it is read at every node with two or more plies below).
pub fn perft_until<G: Game>(
    position: &G,
    depth: u32,
    stop: &AtomicBool,
) -> Result<u64, PerftError> {
    if depth >= 2 {
        check_expandable(position)?;
    }
    count_leaves(position, depth, stop)
}

/// Refuses a position with more moves than perft generates. Checked at the
/// root only: no position here has children with more moves than itself
/// by orders of magnitude.
fn check_expandable<G: Game>(position: &G) -> Result<(), PerftError> {
    match position.count_moves() {
        n if n > MAX_GENERATED_MOVES => Err(PerftError::TooManyMoves(n)),
        _ => Ok(()),
    }
}

fn count_leaves<G: Game>(position: &G, depth: u32, stop: &AtomicBool) -> Result<u64, PerftError> {
    match depth {
        0 => Ok(1),
        // Move counters saturate (Nim's huge heaps): the largest value is
        // an overflow, never a count.
        1 => match position.count_moves() {
            u64::MAX => Err(PerftError::Overflow),
            n => Ok(n),
        },
        _ => {
            if stop.load(Ordering::Relaxed) {
                return Err(PerftError::Stopped);
            }
            // A plain loop: this is the measured hot path (an iterator
            // adapter over the children cost about 20 % at Ataxx depth 6).
            let mut moves = Vec::new();
            position.generate_moves(&mut moves);
            let mut total = 0u64;
            for &mv in &moves {
                let leaves = leaves_after(position, mv, depth - 1, stop)?;
                total = total
                    .checked_add(leaves)
                    .filter(|&t| t < u64::MAX)
                    .ok_or(PerftError::Overflow)?;
            }
            Ok(total)
        }
    }
}

/// Perft split by root move: `(move string, leaf count)` in move-generation
/// order.
pub fn divide<G: Game>(position: &G, depth: u32) -> Result<Vec<(String, u64)>, PerftError> {
    let mut split = Vec::new();
    divide_until(position, depth, &AtomicBool::new(false), |mv, count| {
        split.push((mv.to_owned(), count))
    })?;
    Ok(split)
}

/// [`divide`] that hands each root move's count to `each` as soon as it is
/// known and returns the total; stops like [`perft_until`].
pub fn divide_until<G: Game>(
    position: &G,
    depth: u32,
    stop: &AtomicBool,
    mut each: impl FnMut(&str, u64),
) -> Result<u64, PerftError> {
    check_expandable(position)?;
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    let mut total = 0u64;
    for &mv in &moves {
        let count = leaves_after(position, mv, depth.max(1) - 1, stop)?;
        total = total
            .checked_add(count)
            .filter(|&t| t < u64::MAX)
            .ok_or(PerftError::Overflow)?;
        each(&position.move_to_string(mv), count);
    }
    Ok(total)
}

/// Leaves `depth` plies below the position after `mv`.
#[inline]
fn leaves_after<G: Game>(
    position: &G,
    mv: G::Move,
    depth: u32,
    stop: &AtomicBool,
) -> Result<u64, PerftError> {
    let mut child = position.clone();
    child.play(mv);
    count_leaves(&child, depth, stop)
}
