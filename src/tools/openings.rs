//! `agon openings`: balanced opening positions for matches.
//!
//! Each candidate is the start position after a random number of uniformly
//! random plies (continued until the side to move changes, so that an
//! opening never starts inside a multi-move turn), judged by a short
//! alpha-beta search: only positions whose score for the side to move lies
//! within the window are kept, and only one of every set of positions equal
//! up to the board's symmetries ([`Game::canonical_key`]). Seeded, so the
//! same arguments give the same file.

use crate::game::{Game, GameState};
use crate::search::Limits;
use crate::search::alphabeta::AlphaBeta;
use ahash::AHashSet;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How many candidates may be tried per opening asked for before giving up.
const ATTEMPTS_PER_OPENING: usize = 500;
/// Table size of the judging search, in MiB.
const JUDGE_HASH_MB: usize = 16;

/// What `agon openings` is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningsConfig {
    /// Openings wanted.
    pub count: usize,
    /// Fewest random plies from the start.
    pub min_plies: u32,
    /// Most random plies from the start.
    pub max_plies: u32,
    /// Depth of the judging search.
    pub depth: u32,
    /// Largest absolute score (side to move) kept.
    pub window: i32,
    /// Seed of the random plies.
    pub seed: u64,
}

/// One opening kept, with the judging search's score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The position string.
    pub fen: String,
    /// Score for the side to move at the judging depth.
    pub score: i32,
}

/// Generates the openings for game `G` from `start`. `progress` is called
/// with the number kept so far after each candidate. Fewer than asked is an
/// error naming how many were found.
pub fn generate<G: Game>(
    start: &G,
    config: &OpeningsConfig,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Opening>, String> {
    if config.min_plies > config.max_plies {
        return Err(format!(
            "--min-plies {} is more than --max-plies {}",
            config.min_plies, config.max_plies
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut judge = AlphaBeta::<G>::new(JUDGE_HASH_MB)?;
    let mut seen = AHashSet::new();
    let mut kept = Vec::new();
    let attempts = config.count.saturating_mul(ATTEMPTS_PER_OPENING);
    for _ in 0..attempts {
        if kept.len() >= config.count {
            break;
        }
        let Some(state) = random_start(start, config.min_plies, config.max_plies, &mut rng) else {
            continue;
        };
        if !seen.insert(state.position.canonical_key()) {
            continue;
        }
        judge.clear();
        let result = judge.search(&state, &Limits::depth(config.depth), &mut |_| {});
        if result.score.abs() <= config.window {
            kept.push(Opening {
                fen: state.position.fen(),
                score: result.score,
            });
        }
        progress(kept.len());
    }
    if kept.len() < config.count {
        return Err(format!(
            "found only {} of {} openings within ±{} in {attempts} tries (widen --window or change --min-plies/--max-plies)",
            kept.len(),
            config.count,
            config.window
        ));
    }
    Ok(kept)
}

/// The start after `min_plies..=max_plies` random turns (each finished, so
/// that the position starts a turn), or `None` when the game ended on the
/// way.
pub fn random_start<G: Game>(
    start: &G,
    min_plies: u32,
    max_plies: u32,
    rng: &mut Xoshiro256PlusPlus,
) -> Option<GameState<G>> {
    let mut state = GameState::new(start.clone());
    let plies = rng.random_range(min_plies..=max_plies);
    let mut played = 0;
    loop {
        let moves = state.legal_moves();
        if moves.is_empty() {
            return None;
        }
        if played >= plies {
            return Some(state);
        }
        let mover = state.position.side_to_move();
        // Finish a multi-move turn so that the opening starts a turn.
        loop {
            let moves = state.legal_moves();
            if moves.is_empty() {
                return None;
            }
            state.play(moves[rng.random_range(0..moves.len())]);
            if state.position.side_to_move() != mover {
                break;
            }
        }
        played += 1;
    }
}

/// The openings file: a comment line saying how it was made, then one
/// position per line.
pub fn file_text(game: &str, command: &str, openings: &[Opening]) -> String {
    let mut text = format!(
        "# {} balanced openings for {game}, made by: {command}\n",
        openings.len()
    );
    for opening in openings {
        text.push_str(&opening.fen);
        text.push('\n');
    }
    text
}
