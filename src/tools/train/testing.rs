//! Seeded positions and records for the trainer's unit tests (a leaf: it
//! imports nothing of the trainer, so every part's tests may use it).

use crate::game::Game;
use crate::tools::datagen::record::Record;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `count` positions of game `G` met along seeded random games (uniform
/// legal moves, a new game from the start when one ends).
pub(super) fn random_positions<G: Game>(count: usize, seed: u64) -> Vec<G> {
    let options = G::Options::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut moves = Vec::new();
    let mut position = G::start(&options);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        position.generate_moves(&mut moves);
        if moves.is_empty() {
            position = G::start(&options);
            continue;
        }
        position.play(moves[rng.random_range(0..moves.len())]);
        out.push(position.clone());
    }
    out
}

/// Records of `count` positions of game `G` with seeded scores (±600) and
/// results.
pub(super) fn random_records<G: Game>(count: usize, seed: u64) -> Vec<Record> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    random_positions::<G>(count, seed)
        .iter()
        .map(|position| Record {
            fen: position.fen(),
            score: rng.random_range(-600..=600),
            result: rng.random_range(-1..=1),
        })
        .collect()
}
