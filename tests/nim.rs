//! Nim: notation, end conditions, random-play invariants, and perfect play
//! checked against an independent brute force.

use agon::game::{Game, GameOptions, GameState, Outcome, Player, Proven, SolveBudget};
use agon::games::nim::{Nim, NimOptions};
use agon::harness::random_play;
use agon::search::perft::{PerftError, perft};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

fn options(misere: bool) -> NimOptions {
    NimOptions {
        misere,
        ..NimOptions::default()
    }
}

fn nim(fen: &str, misere: bool) -> Nim {
    Nim::from_fen(fen, &options(misere)).expect("valid position")
}

fn solve(position: &Nim) -> Option<agon::game::Solved<agon::games::nim::NimMove>> {
    let stop = AtomicBool::new(false);
    position.solve(&SolveBudget::new(None, &stop))
}

/// Brute-force game value: does the side to move win? Independent of the
/// nim-sum theory: plain minimax over sorted heap multisets.
fn brute_force_wins(
    heaps: &[u64],
    misere: bool,
    memo: &mut HashMap<(Vec<u64>, bool), bool>,
) -> bool {
    let mut key: Vec<u64> = heaps.to_vec();
    key.sort_unstable();
    if let Some(&known) = memo.get(&(key.clone(), misere)) {
        return known;
    }
    let wins = if heaps.iter().all(|&h| h == 0) {
        // The previous player took the last object.
        misere
    } else {
        (0..heaps.len()).any(|i| {
            (1..=heaps[i]).any(|take| {
                let mut next = heaps.to_vec();
                next[i] -= take;
                !brute_force_wins(&next, misere, memo)
            })
        })
    };
    memo.insert((key, misere), wins);
    wins
}

#[test]
fn start_position_and_notation() {
    let start = Nim::start(&NimOptions::default());
    assert_eq!(start.fen(), "3/4/5 x");
    let mv = start.parse_move("1:3").expect("legal move");
    let mut next = start.clone();
    next.play(mv);
    assert_eq!(next.fen(), "0/4/5 o", "an emptied heap stays as 0");
    let mv = start.parse_move("1:2").expect("legal move");
    let mut next = start.clone();
    next.play(mv);
    assert_eq!(next.fen(), "1/4/5 o");
    assert_eq!(start.count_moves(), 12);
    assert_eq!(perft(&start, 1), Ok(12));
}

#[test]
fn malformed_positions_and_moves_are_rejected() {
    let opts = NimOptions::default();
    for bad in [
        "",
        "3/4/5",
        "3/4/5 y",
        "3//5 x",
        "3/-4/5 x",
        "a/b x",
        "3/4/5 x extra",
        "99999999999999999999999 x",
        "/ x",
    ] {
        assert!(Nim::from_fen(bad, &opts).is_err(), "accepted '{bad}'");
    }
    let start = Nim::start(&opts);
    for bad in [
        "",
        "1",
        "1:",
        ":1",
        "0:1",
        "4:1",
        "1:0",
        "1:-1",
        "x:y",
        "1:99999999999999999999999",
        "1 :1",
    ] {
        assert!(start.parse_move(bad).is_err(), "accepted '{bad}'");
    }
    let too_many = start.parse_move("1:4").expect("syntax is fine");
    assert!(!start.is_legal(too_many), "taking 4 from a heap of 3");
}

#[test]
fn options_are_validated() {
    let mut opts = NimOptions::default();
    assert!(opts.set("Heaps", "1/2/3/18446744073709551615").is_ok());
    assert_eq!(opts.heaps, vec![1, 2, 3, u64::MAX]);
    for bad in ["", "3/4/", "three", "18446744073709551616"] {
        assert!(opts.set("Heaps", bad).is_err(), "accepted '{bad}'");
    }
    assert_eq!(
        opts.heaps,
        vec![1, 2, 3, u64::MAX],
        "a bad value changes nothing"
    );
    assert!(opts.set("misere", "TRUE").is_ok());
    assert!(opts.misere);
    assert!(opts.set("Misere", "yes").is_err());
    assert!(opts.set("Size", "4x4").is_err());
}

#[test]
fn last_object_decides_normal_and_misere() {
    // x took the last object, o is to move.
    assert_eq!(
        nim("0/0/0 o", false).outcome(),
        Some(Outcome::Win(Player::X))
    );
    assert_eq!(
        nim("0/0/0 o", true).outcome(),
        Some(Outcome::Win(Player::O))
    );
    assert_eq!(nim("0/1/0 o", false).outcome(), None);
    let mut state = GameState::new(nim("0/2/0 x", false));
    state.play(state.position.parse_move("2:2").expect("legal"));
    assert_eq!(state.outcome(), Some(Outcome::Win(Player::X)));
    assert!(state.legal_moves().is_empty());
}

#[test]
fn perfect_play_matches_brute_force() {
    let mut memo = HashMap::new();
    for misere in [false, true] {
        for a in 0..=5u64 {
            for b in 0..=5u64 {
                for c in 0..=4u64 {
                    let heaps = [a, b, c];
                    if heaps.iter().all(|&h| h == 0) {
                        continue;
                    }
                    let position = nim(&format!("{a}/{b}/{c} x"), misere);
                    let solved = solve(&position).expect("nim is always solved");
                    let wins = brute_force_wins(&heaps, misere, &mut memo);
                    assert!(position.is_legal(solved.best), "{heaps:?}");
                    let mut after = position.clone();
                    after.play(solved.best);
                    let after_heaps = after.heaps().to_vec();
                    match solved.value {
                        Proven::Win(_) => {
                            assert!(wins, "{heaps:?} misere={misere} claimed a win");
                            assert!(
                                !brute_force_wins(&after_heaps, misere, &mut memo),
                                "{heaps:?} misere={misere}: winning move must leave a lost position"
                            );
                        }
                        Proven::Loss(_) => {
                            assert!(!wins, "{heaps:?} misere={misere} claimed a loss")
                        }
                        Proven::Draw => panic!("nim has no draws"),
                    }
                }
            }
        }
    }
}

#[test]
fn huge_heaps_are_solved_instantly() {
    let position = nim("18446744073709551615/12345678901234567890/7 x", false);
    let solved = solve(&position).expect("solved");
    assert!(matches!(solved.value, Proven::Win(_)));
    let mut after = position.clone();
    after.play(solved.best);
    let sum = after.heaps().iter().fold(0, |acc, &h| acc ^ h);
    assert_eq!(sum, 0, "the winning move leaves nim-sum 0");
    assert_eq!(position.count_moves(), u64::MAX, "counting saturates");
    // A lost position still gets a legal move and reports the loss.
    let lost = nim("6/6 x", false);
    let solved = solve(&lost).expect("solved");
    assert_eq!(solved.value, Proven::Loss(None));
    assert!(lost.is_legal(solved.best));
}

#[test]
fn random_play_keeps_invariants() {
    for misere in [false, true] {
        let opts = NimOptions {
            heaps: vec![3, 4, 5, 2, 7],
            misere,
        };
        let start = Nim::start(&opts);
        let stats = random_play(&start, &opts, 2000, 100, 7 + misere as u64);
        assert_eq!(stats.games, 2000);
        assert!(stats.wins_x > 0 && stats.wins_o > 0);
        assert_eq!(stats.draws, 0);
    }
}

#[test]
fn perft_refuses_counts_beyond_64_bits() {
    // The move count used to saturate silently at 2^64 - 1.
    let huge = nim("18446744073709551615/3 x", false);
    assert_eq!(perft(&huge, 1), Err(PerftError::Overflow));
    let near = nim("18446744073709551613/1 x", false);
    assert_eq!(perft(&near, 1), Ok(u64::MAX - 1));
    assert_eq!(perft(&near, 2), Err(PerftError::TooManyMoves(u64::MAX - 1)));
    let split = agon::search::perft::divide(&nim("3/4 x", false), 1);
    assert_eq!(split.map(|s| s.len()), Ok(7));
}
