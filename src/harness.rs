//! The random-simulation harness every game is tested with (in the spirit of
//! OpenSpiel's): play many seeded random games and check, at every position,
//! the invariants of the [`Game`] contract.
//!
//! Violations panic with the position string and the move history, so a
//! failing test says exactly where the game broke.

use crate::game::{Game, GameState};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a run of [`random_play`] saw, for tests that want to check that the
/// games covered the interesting cases.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RandomPlayStats {
    /// Games played.
    pub games: usize,
    /// Positions checked.
    pub positions: usize,
    /// Games won by `x`, won by `o`, drawn.
    pub wins_x: usize,
    /// Games won by `o`.
    pub wins_o: usize,
    /// Drawn games.
    pub draws: usize,
    /// Games ended by the repetition rule.
    pub repetitions: usize,
    /// Moves after which the same side was to move again.
    pub repeated_turns: usize,
    /// Longest game, in plies.
    pub longest: usize,
}

/// Plays `games` random games from `start` with moves drawn by a seeded RNG
/// and checks every invariant at every position. Panics on a violation or
/// when a game is longer than `max_plies`.
pub fn random_play<G: Game>(
    start: &G,
    options: &G::Options,
    games: usize,
    max_plies: usize,
    seed: u64,
) -> RandomPlayStats {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut stats = RandomPlayStats::default();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut state = GameState::new(start.clone());
        let mut history: Vec<String> = Vec::new();
        loop {
            stats.positions += 1;
            check_position(&state.position, options, &history, &mut moves);
            if let Some(outcome) = state.outcome() {
                if state.position.outcome().is_none() {
                    stats.repetitions += 1;
                    assert_eq!(state.end_reason(), Some("repetition"));
                }
                match outcome {
                    crate::game::Outcome::Win(crate::game::Player::X) => stats.wins_x += 1,
                    crate::game::Outcome::Win(crate::game::Player::O) => stats.wins_o += 1,
                    crate::game::Outcome::Draw => stats.draws += 1,
                }
                break;
            }
            assert!(
                history.len() < max_plies,
                "game longer than {max_plies} plies: {}",
                history.join(" ")
            );
            let mv = moves[rand::RngExt::random_range(&mut rng, 0..moves.len())];
            history.push(state.position.move_to_string(mv));
            let mover = state.position.side_to_move();
            state.play(mv);
            if state.position.outcome().is_none() && state.position.side_to_move() == mover {
                stats.repeated_turns += 1;
            }
        }
        stats.longest = stats.longest.max(history.len());
        stats.games += 1;
    }
    stats
}

/// The move codes that the transposition table, killers and history store
/// instead of moves: each code reads back as its move, and no two moves of
/// a position share one (a shared code would make the table's move for one
/// position another's).
fn check_move_codes<G: Game>(position: &G, moves: &[G::Move], context: &dyn Fn() -> String) {
    let mut codes = Vec::with_capacity(moves.len());
    for &mv in moves {
        let Some(code) = G::move_code(mv) else {
            continue;
        };
        let text = position.move_to_string(mv);
        assert_eq!(
            G::move_from_code(code),
            Some(mv),
            "move '{text}' has code {code}, which does not read back as it, at {}",
            context()
        );
        codes.push(code);
    }
    codes.sort_unstable();
    let coded = codes.len();
    codes.dedup();
    assert_eq!(
        codes.len(),
        coded,
        "two moves share a code at {}",
        context()
    );
}

/// Checks one position: hash, notation round trips, move codes, move list
/// consistency.
/// Leaves the legal moves in `moves`.
fn check_position<G: Game>(
    position: &G,
    options: &G::Options,
    history: &[String],
    moves: &mut Vec<G::Move>,
) {
    let fen = position.fen();
    let context = || format!("position '{fen}' after moves [{}]", history.join(" "));
    assert_eq!(
        position.hash(),
        position.hash_from_scratch(),
        "incremental hash differs from recomputation at {}",
        context()
    );
    let reread = G::from_fen(&fen, options)
        .unwrap_or_else(|e| panic!("cannot re-read own fen ({e}) at {}", context()));
    assert_eq!(reread.fen(), fen, "fen round trip changed {}", context());
    assert_eq!(
        reread.hash(),
        position.hash(),
        "re-read position hashes differently at {}",
        context()
    );
    position.generate_moves(moves);
    assert_eq!(
        position.outcome().is_some(),
        moves.is_empty(),
        "moves must be empty exactly when the game is over, at {}",
        context()
    );
    assert_eq!(
        position.count_moves(),
        moves.len() as u64,
        "count_moves disagrees with generate_moves at {}",
        context()
    );
    assert_eq!(
        position.end_reason().is_some(),
        position.outcome().is_some(),
        "an end reason exactly when the game is over, at {}",
        context()
    );
    assert_ne!(
        position.end_reason(),
        Some("rules"),
        "every game here names its end rule, at {}",
        context()
    );
    for &mv in moves.iter() {
        let text = position.move_to_string(mv);
        assert!(!text.contains(' '), "move '{text}' has a space");
        let parsed = position
            .parse_move(&text)
            .unwrap_or_else(|e| panic!("cannot parse own move '{text}' ({e}) at {}", context()));
        assert_eq!(parsed, mv, "move '{text}' round trip at {}", context());
        assert!(
            position.is_legal(mv),
            "generated move '{text}' not legal at {}",
            context()
        );
    }
    check_move_codes(position, moves, &context);
    let mut unique = moves.clone();
    unique.sort_by_key(|m| position.move_to_string(*m));
    unique.dedup();
    assert_eq!(
        unique.len(),
        moves.len(),
        "duplicate moves at {}",
        context()
    );
}
