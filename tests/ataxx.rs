//! Ataxx: perft against public figures (RULES.md and libataxx), notation,
//! every end condition of both rule sets, counters, and random-play
//! invariants.

mod common;

use agon::game::{Game, GameOptions, GameState, Outcome, Player};
use agon::games::ataxx::{Ataxx, AtaxxMove, AtaxxOptions, NoMoveRule, RuleSet};
use agon::harness::random_play;
use agon::search::perft::perft;
use agon::tools::positions::parse_positions;

const START: &str = "x5o/7/7/7/7/7/o5x x 0 1";

fn options(rules: RuleSet, no_move: NoMoveRule) -> AtaxxOptions {
    AtaxxOptions { rules, no_move }
}

fn seed() -> AtaxxOptions {
    options(RuleSet::Seed, NoMoveRule::Lose)
}

fn seed_pass() -> AtaxxOptions {
    options(RuleSet::Seed, NoMoveRule::Pass)
}

fn standard() -> AtaxxOptions {
    options(RuleSet::Standard, NoMoveRule::Lose)
}

fn position(fen: &str, options: AtaxxOptions) -> Ataxx {
    Ataxx::from_fen(fen, &options).unwrap_or_else(|e| panic!("cannot read '{fen}': {e}"))
}

/// Plays a move given as text, checking it is legal first.
fn play(position: &mut Ataxx, text: &str) {
    let mv = position
        .parse_move(text)
        .unwrap_or_else(|e| panic!("cannot parse '{text}': {e}"));
    assert!(
        position.is_legal(mv),
        "'{text}' illegal in {}",
        position.fen()
    );
    position.play(mv);
}

fn moves_text(position: &Ataxx) -> Vec<String> {
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    moves.iter().map(|&m| position.move_to_string(m)).collect()
}

fn assert_perft(fen: &str, options: AtaxxOptions, expected: &[u64]) {
    let pos = position(fen, options);
    for (depth, &nodes) in expected.iter().enumerate() {
        assert_eq!(
            perft(&pos, depth as u32),
            Ok(nodes),
            "perft({depth}) of '{fen}' under {options:?}"
        );
    }
}

// ---------------------------------------------------------------- perft

#[test]
fn perft_start_standard_matches_reference() {
    assert_perft(START, standard(), &[1, 16, 256, 6460, 155888, 4752668]);
    assert_perft(
        "x5o/7/7/7/7/7/o5x o 0 1",
        standard(),
        &[1, 16, 256, 6460, 155888],
    );
}

#[test]
fn perft_start_seed_equals_standard_at_low_depth() {
    // Nothing ends and nobody is blocked within five plies of the start, so
    // both rule sets (and both no-move rules) count the same tree.
    assert_perft(START, seed(), &[1, 16, 256, 6460, 155888, 4752668]);
    assert_perft(START, seed_pass(), &[1, 16, 256, 6460, 155888]);
}

/// The perft suite `positions/perft-ataxx.txt` (libataxx's figures); depth 6
/// of the start position is left to `agon perft`, as a benchmark.
const PERFT_SUITE: &str = include_str!("../positions/perft-ataxx.txt");

#[test]
fn perft_matches_libataxx_under_standard_rules() {
    let mut checked = 0;
    for line in parse_positions(PERFT_SUITE) {
        let line = line.expect("well-formed suite line");
        let position = position(&line.fen, standard());
        for depth in 1..=5u32 {
            let Some([count]) = line.operation(&format!("d{depth}")) else {
                continue;
            };
            let expected: u64 = count.parse().expect("a leaf count");
            assert_eq!(
                perft(&position, depth),
                Ok(expected),
                "{} depth {depth}",
                line.fen
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "the suite was read: {checked} counts");
}

// ---------------------------------------------------------------- notation

#[test]
fn fen_round_trips_and_canonical_form() {
    for fen in [
        START,
        "x5o/7/2-1-2/7/2-1-2/7/o5x o 17 123",
        "xxxoooo/xoxoxox/ooxx-xo/xo-1-ox/oxox1xo/xxxooo1/ooxxoo1 x 3 40",
        "7/7/7/7/7/7/7 x 4294967295 4294967295",
    ] {
        assert_eq!(position(fen, seed()).fen(), fen);
    }
    // Leading zeros in a digit run are read, and written canonically.
    assert_eq!(
        position("x05o/007/7/7/7/7/o5x x 00 01", seed()).fen(),
        START
    );
    assert_eq!(Ataxx::start(&seed()).fen(), START);
    assert_eq!(Ataxx::start(&standard()).fen(), START);
}

/// The eight images of a position (for training) are the board turned and
/// mirrored: the first is the position itself, the eight are distinct for
/// an asymmetric position, each keeps the side, counters and piece counts,
/// and each has as many moves and perft leaves as the original.
#[test]
fn symmetric_images_are_the_rotations_and_reflections() {
    let original = position("x5o/1x5/2x-3/7/3o3/7/o5x o 3 9", standard());
    let images = original.symmetric_images();
    assert_eq!(images.len(), 8);
    assert_eq!(images[0].fen(), original.fen());
    // Mirrored left to right; turned half round.
    assert!(
        images
            .iter()
            .any(|i| i.fen() == "o5x/5x1/3-x2/7/3o3/7/x5o o 3 9")
    );
    assert!(
        images
            .iter()
            .any(|i| i.fen() == "x5o/7/3o3/7/3-x2/5x1/o5x o 3 9")
    );
    let fens: std::collections::HashSet<String> = images.iter().map(Ataxx::fen).collect();
    assert_eq!(fens.len(), 8);
    for image in &images {
        assert_eq!(image.side_to_move(), original.side_to_move());
        for side in [Player::X, Player::O] {
            assert_eq!(
                image.pieces(side).count_ones(),
                original.pieces(side).count_ones()
            );
        }
        assert_eq!(image.canonical_key(), original.canonical_key());
        assert_eq!(perft(image, 3), perft(&original, 3), "{}", image.fen());
    }
}

#[test]
fn malformed_fens_are_rejected() {
    let long_digits = format!("x{}o/7/7/7/7/7/o5x x 0 1", "9".repeat(40));
    let bad = [
        "",
        "   ",
        "garbage",
        "x5o/7/7/7/7/7/o5x x 0",
        "x5o/7/7/7/7/7/o5x x 0 1 extra",
        "x5o/7/7/7/7/7 x 0 1",
        "x5o/7/7/7/7/7/7/o5x x 0 1",
        "x6o/7/7/7/7/7/o5x x 0 1",
        "x5oo/7/7/7/7/7/o5x x 0 1",
        "x4o/7/7/7/7/7/o5x x 0 1",
        "x5o/8/7/7/7/7/o5x x 0 1",
        "x5o/07/7/7/7/7/o5x x 0 1x",
        "x11111o/7/7/7/7/7/o5x x 0 1",
        "x0o/7/7/7/7/7/o5x x 0 1",
        "x5o//7/7/7/7/o5x x 0 1",
        "x5o/7/7/7/7/7/o5x/ x 0 1",
        "X5O/7/7/7/7/7/O5X x 0 1",
        "x5b/7/7/7/7/7/o5x x 0 1",
        "x5o/7/7/7/7/7/o5x X 0 1",
        "x5o/7/7/7/7/7/o5x - 0 1",
        "x5o/7/7/7/7/7/o5x x -1 1",
        "x5o/7/7/7/7/7/o5x x +1 1",
        "x5o/7/7/7/7/7/o5x x 0 0",
        "x5o/7/7/7/7/7/o5x x 1e3 1",
        "x5o/7/7/7/7/7/o5x x 4294967296 1",
        "x5o/7/7/7/7/7/o5x x 0 99999999999999999999999",
        "x5ö/7/7/7/7/7/o5x x 0 1",
        "x5o/7/7/7/7/7/o5x x ٣ 1",
        "x５o/7/7/7/7/7/o5x x 0 1",
        &long_digits,
    ];
    for fen in bad {
        let result = Ataxx::from_fen(fen, &seed());
        assert!(result.is_err(), "accepted bad fen '{fen}'");
        let message = result.err().unwrap_or_default();
        assert!(!message.is_empty(), "empty error for '{fen}'");
    }
}

#[test]
fn move_notation_round_trips_and_errors() {
    let pos = Ataxx::start(&seed());
    let clone = pos.parse_move("f2").expect("clone");
    assert!(clone.is_clone() && clone.to() == 12);
    let jump = pos.parse_move("g1e3").expect("jump");
    assert!(jump.is_jump() && jump.from() == 6 && jump.to() == 18);
    assert_eq!(pos.parse_move("0000"), Ok(AtaxxMove::PASS));
    for text in ["f2", "g1e3", "0000", "a7c5", "g7e7", "a1", "g7"] {
        let mv = pos.parse_move(text).expect(text);
        assert_eq!(pos.move_to_string(mv), text);
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    assert_eq!(moves.len(), 16);
    for &mv in &moves {
        assert_eq!(pos.parse_move(&pos.move_to_string(mv)), Ok(mv));
    }
    for bad in [
        "", "0", "000", "00000", "h1", "a8", "a0", "F2", "f2 ", " f2", "g1f2", "a1d4", "a1a1",
        "a1a3x", "é1", "ff", "11", "a1b", "g1-e3", "g1e", "ｆ２", "g1é",
    ] {
        assert!(pos.parse_move(bad).is_err(), "accepted bad move '{bad}'");
    }
}

#[test]
fn legality_checks() {
    let pos = position("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", seed());
    let legal = |text: &str| pos.is_legal(pos.parse_move(text).expect(text));
    assert!(legal("b7") && legal("a7c6") && legal("g1e2"));
    assert!(!legal("g1e3"), "jump onto a blocker");
    assert!(!legal("0000"), "pass while moves exist");
    assert!(!legal("d5"), "clone with no piece next to it");
    assert!(!legal("a7c5"), "jump onto a blocker");
    assert!(!legal("d4b4"), "jump from an empty square");
    assert!(!legal("g7e7"), "jump with an enemy piece");
    let crowded = position("xx5/7/o6/7/7/7/7 x 0 1", seed());
    let legal = |text: &str| crowded.is_legal(crowded.parse_move(text).expect(text));
    assert!(!legal("b7"), "clone onto an own piece");
    assert!(!legal("b7a5"), "jump onto an enemy piece");
    assert!(legal("b6") && legal("b7b5"));
}

#[test]
fn diagram_shows_board_and_counters() {
    let pos = position("x5o/7/2-1-2/7/7/7/o5x o 3 12", standard());
    let diagram = pos.diagram();
    let lines: Vec<&str> = diagram.lines().collect();
    assert_eq!(lines[1], "7 | x . . . . . o |");
    assert_eq!(lines[3], "5 | . . - . - . . |");
    assert_eq!(lines[7], "1 | o . . . . . x |");
    assert_eq!(lines[9], "    a b c d e f g");
    assert!(lines[10].starts_with("o to move, x 2 o 2, half-moves 3, full-move 12"));
}

#[test]
fn options_parse_case_insensitively() {
    let mut opts = AtaxxOptions::default();
    assert_eq!(opts, seed());
    opts.set("RULES", "Standard").expect("rules");
    assert_eq!(opts.rules, RuleSet::Standard);
    opts.set("nomoverule", "PASS").expect("no move rule");
    assert_eq!(opts.no_move, NoMoveRule::Pass);
    assert!(opts.set("Rules", "chess").is_err());
    assert!(opts.set("NoMoveRule", "draw").is_err());
    assert!(opts.set("Size", "7").is_err());
    assert_eq!(opts, options(RuleSet::Standard, NoMoveRule::Pass));
    let lines: Vec<String> = AtaxxOptions::specs().iter().map(|s| s.ugi_line()).collect();
    assert_eq!(
        lines,
        [
            "option name Rules type combo default seed var seed var standard",
            "option name NoMoveRule type combo default lose var lose var pass",
        ]
    );
}

// ---------------------------------------------------------------- end conditions

const ALL_RULES: [fn() -> AtaxxOptions; 3] = [seed, seed_pass, standard];

#[test]
fn full_board_is_decided_by_count() {
    let win = "xxxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo o 0 1";
    let draw = "-xxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo x 0 1";
    for rules in ALL_RULES {
        assert_eq!(
            position(win, rules()).outcome(),
            Some(Outcome::Win(Player::X))
        );
        assert_eq!(position(draw, rules()).outcome(), Some(Outcome::Draw));
        assert!(moves_text(&position(win, rules())).is_empty());
        assert_eq!(position(draw, rules()).count_moves(), 0);
    }
}

#[test]
fn side_without_pieces_loses() {
    for rules in ALL_RULES {
        for fen in ["x6/7/7/7/7/7/7 o 0 1", "x6/7/7/7/7/7/7 x 0 1"] {
            assert_eq!(
                position(fen, rules()).outcome(),
                Some(Outcome::Win(Player::X))
            );
        }
        // Converting the last enemy piece ends the game at once.
        let mut pos = position("x6/2o4/7/7/7/7/6- x 0 1", rules());
        play(&mut pos, "a7b5");
        assert_eq!(pos.outcome(), Some(Outcome::Win(Player::X)));
        assert_eq!(pos.count_moves(), 0);
    }
}

#[test]
fn seed_counter_80_is_decided_by_count() {
    let mut pos = position("xx5/7/7/7/7/7/6o x 79 1", seed());
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "b7d7");
    assert_eq!(pos.halfmoves(), 80);
    assert_eq!(pos.outcome(), Some(Outcome::Win(Player::X)));
    assert!(moves_text(&pos).is_empty());
    for counter in ["80", "81", "4000000000"] {
        let fen = format!("xx5/7/7/7/7/7/6o o {counter} 9");
        assert_eq!(
            position(&fen, seed()).outcome(),
            Some(Outcome::Win(Player::X))
        );
        assert_eq!(
            position(&fen, seed_pass()).outcome(),
            Some(Outcome::Win(Player::X))
        );
    }
    // Below the limit under standard rules, nothing happens at 80.
    assert_eq!(
        position("xx5/7/7/7/7/7/6o o 80 9", standard()).outcome(),
        None
    );
}

#[test]
fn standard_counter_100_is_a_draw() {
    let mut pos = position("xx5/7/7/7/7/7/6o x 99 1", standard());
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "b7d7");
    assert_eq!(pos.halfmoves(), 100);
    assert_eq!(pos.outcome(), Some(Outcome::Draw));
    assert_eq!(pos.count_moves(), 0);
    let at_limit = position("xx5/7/7/7/7/7/6o x 100 1", standard());
    assert_eq!(at_limit.outcome(), Some(Outcome::Draw));
    // Seed rules decide the same position by count.
    let seed_pos = position("xx5/7/7/7/7/7/6o x 100 1", seed());
    assert_eq!(seed_pos.outcome(), Some(Outcome::Win(Player::X)));
    // "Neither side can move" comes before the counter under standard rules.
    let stuck = position("7/7/7/7/-------/-------/xxxoo-- x 100 1", standard());
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::X)));
}

#[test]
fn seed_repetition_third_occurrence_is_decided_by_count() {
    let cycle = ["b7d7", "g1e1", "d7b7", "e1g1"];
    let fen = "xx5/7/7/7/7/7/6o x 0 1";
    let mut state = GameState::new(position(fen, seed()));
    for mv in cycle {
        let m = state.position.parse_move(mv).expect(mv);
        state.play(m);
    }
    assert_eq!(state.occurrences(), 2);
    assert_eq!(state.outcome(), None);
    for (i, mv) in cycle.iter().enumerate() {
        assert_eq!(state.outcome(), None, "ended early at ply {}", 4 + i);
        let m = state.position.parse_move(mv).expect(mv);
        state.play(m);
    }
    assert_eq!(state.occurrences(), 3);
    assert_eq!(state.outcome(), Some(Outcome::Win(Player::X)));
    assert!(state.legal_moves().is_empty());
    assert_eq!(state.position.halfmoves(), 8);

    // Standard rules have no repetition rule.
    let mut state = GameState::new(position(fen, standard()));
    for mv in cycle.iter().chain(&cycle).chain(&cycle) {
        let m = state.position.parse_move(mv).expect(mv);
        state.play(m);
    }
    assert_eq!(state.position.repetition_key(), None);
    assert_eq!(state.outcome(), None);
    assert_eq!(state.position.halfmoves(), 12);
}

#[test]
fn repetition_key_is_board_and_side() {
    let a = position("xx5/7/7/7/7/7/6o x 0 1", seed());
    let b = position("xx5/7/7/7/7/7/6o x 17 30", seed());
    let c = position("xx5/7/7/7/7/7/6o o 0 1", seed());
    let d = position("xx5/7/7/7/7/7/5-o x 0 1", seed());
    assert_eq!(a.repetition_key(), b.repetition_key());
    assert_ne!(a.repetition_key(), c.repetition_key());
    assert_ne!(a.repetition_key(), d.repetition_key());
    assert_eq!(a.repetition_outcome(), Outcome::Win(Player::X));
}

#[test]
fn neither_side_can_move_is_decided_by_count() {
    for rules in ALL_RULES {
        for side in ["x", "o"] {
            let win = format!("7/7/7/7/-------/-------/xxxoo-- {side} 0 1");
            assert_eq!(
                position(&win, rules()).outcome(),
                Some(Outcome::Win(Player::X))
            );
            let draw = format!("7/7/7/7/-------/-------/xxxooo- {side} 0 1");
            assert_eq!(position(&draw, rules()).outcome(), Some(Outcome::Draw));
        }
    }
}

#[test]
fn blocked_side_loses_or_passes_by_rule() {
    // x (3 pieces) is blocked, o (2 pieces) can jump e1g1.
    let fen = "7/7/7/7/-------/-------/xxxoo-1 x 5 9";
    let lose = position(fen, seed());
    assert_eq!(lose.outcome(), Some(Outcome::Win(Player::O)));
    assert!(moves_text(&lose).is_empty());
    assert_eq!(lose.count_moves(), 0);

    for (rules, counter_after) in [(seed_pass(), 5), (standard(), 6)] {
        let mut pos = position(fen, rules);
        assert_eq!(pos.outcome(), None);
        assert_eq!(moves_text(&pos), ["0000"]);
        assert_eq!(pos.count_moves(), 1);
        play(&mut pos, "0000");
        assert_eq!(pos.side_to_move(), Player::O);
        assert_eq!(pos.halfmoves(), counter_after, "{rules:?}");
        assert_eq!(pos.fullmoves(), 9, "x's pass keeps the full-move number");
        assert_eq!(moves_text(&pos), ["e1g1"]);
        assert!(!pos.is_legal(AtaxxMove::PASS));
    }

    // The counter check comes before the blocked-side rule under seed rules.
    let counted = position("7/7/7/7/-------/-------/xxxoo-1 x 80 9", seed());
    assert_eq!(counted.outcome(), Some(Outcome::Win(Player::X)));

    // o blocked: its pass advances the full-move number.
    let mut pos = position("7/7/7/7/-------/-------/oooxx-1 o 0 9", standard());
    play(&mut pos, "0000");
    assert_eq!((pos.side_to_move(), pos.fullmoves()), (Player::X, 10));
}

#[test]
fn pass_is_generated_exactly_when_needed() {
    // Play random games under standard rules from crowded positions and check
    // at each step: pass in the list ⇔ it is the only move ⇔ no clone/jump.
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let mut passes = 0;
    for fen in [
        "x-1-o2/-1-1-1-/1-1-1-1/-1-1-1-/1-1-1-1/-1-1-1-/o1-1-1x x 0 1",
        "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
        START,
    ] {
        for _ in 0..100 {
            let mut pos = position(fen, standard());
            let mut moves = Vec::new();
            while pos.outcome().is_none() {
                pos.generate_moves(&mut moves);
                let has_pass = moves.contains(&AtaxxMove::PASS);
                if has_pass {
                    assert_eq!(moves.len(), 1, "pass beside other moves in {}", pos.fen());
                    passes += 1;
                }
                let mover_blocked = moves.iter().all(|m| m.is_pass());
                assert_eq!(has_pass, mover_blocked);
                let mv = pos.playout_move(&moves, &mut rng);
                pos.play(mv);
            }
        }
    }
    assert!(passes > 0, "no pass ever came up");
}

// ---------------------------------------------------------------- counters

#[test]
fn half_move_counter_semantics() {
    // (start fen, move, seed counter after, standard counter after)
    let cases = [
        ("x5o/7/7/7/7/7/o5x x 7 1", "a7c7", 8, 8),
        ("x5o/7/7/7/7/7/o5x x 7 1", "b7", 0, 0),
        ("x6/2o4/7/7/7/7/6o x 7 1", "a7b5", 0, 8),
        ("x6/2o4/7/7/7/7/6o x 7 1", "b7", 0, 0),
    ];
    for (fen, mv, seed_after, standard_after) in cases {
        for (rules, expected) in [(seed(), seed_after), (standard(), standard_after)] {
            let mut pos = position(fen, rules);
            play(&mut pos, mv);
            assert_eq!(pos.halfmoves(), expected, "{fen} {mv} {rules:?}");
        }
    }
}

#[test]
fn full_move_number_grows_after_o() {
    let mut pos = Ataxx::start(&standard());
    play(&mut pos, "b7");
    assert_eq!(pos.fen(), "xx4o/7/7/7/7/7/o5x o 0 1");
    play(&mut pos, "g7e5");
    assert_eq!(pos.fen(), "xx5/7/4o2/7/7/7/o5x x 1 2");
    play(&mut pos, "b7d6");
    assert_eq!(pos.fen(), "x6/3x3/4x2/7/7/7/o5x o 2 2");
}

#[test]
fn hash_tracks_position_not_counters() {
    let start = Ataxx::start(&seed());
    let mut pos = start.clone();
    for mv in ["a7c7", "g7e7", "c7a7", "e7g7"] {
        play(&mut pos, mv);
        assert_eq!(pos.hash(), pos.hash_from_scratch());
    }
    assert_eq!(pos.hash(), start.hash());
    assert_ne!(pos.fen(), start.fen());
    play(&mut pos, "b6");
    assert_ne!(pos.hash(), start.hash());
}

// ---------------------------------------------------------------- random play

/// Start positions for random play with how many games each: the open
/// boards give long games, the blocked ones short games full of passes and
/// blocked sides.
const RANDOM_STARTS: [(&str, usize); 4] = [
    (START, 100),
    ("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", 100),
    (
        "x-1-o2/-1-1-1-/1-1-1-1/-1-1-1-/1-1-1-1/-1-1-1-/o1-1-1x x 0 1",
        400,
    ),
    ("7/7/7/7/-------/-------/x5o o 0 1", 1000),
];

fn random_games(options: AtaxxOptions, seed: u64) {
    for (i, &(fen, games)) in RANDOM_STARTS.iter().enumerate() {
        let start = position(fen, options);
        let stats = random_play(&start, &options, games, 20_000, seed + i as u64);
        assert_eq!(stats.games, games);
        // Both sides win some random games from every start.
        assert!(stats.wins_x > 0 && stats.wins_o > 0, "{fen}: {stats:?}");
        match options.rules {
            RuleSet::Standard => assert_eq!(stats.repetitions, 0, "{fen}"),
            // On the one-rank board, jumping back and forth while the other
            // side passes repeats positions.
            RuleSet::Seed if options.no_move == NoMoveRule::Pass && i == 3 => {
                assert!(stats.repetitions > 0, "{fen}: {stats:?}")
            }
            _ => {}
        }
    }
}

#[test]
fn random_play_seed_lose() {
    random_games(seed(), 1);
}

#[test]
fn random_play_seed_pass() {
    random_games(seed_pass(), 100);
}

#[test]
fn random_play_standard() {
    random_games(standard(), 200);
}

#[test]
fn evaluation_counts_material_exposure_edges_and_tempo() {
    // Same material, mirrored: only the tempo of the side to move counts,
    // the same for either side.
    let calm = position("xx5/xx5/7/7/7/5oo/5oo x 0 1", standard());
    let calm_o = position("xx5/xx5/7/7/7/5oo/5oo o 0 1", standard());
    assert!(calm.evaluate() > 0, "the side to move is better off");
    assert_eq!(calm.evaluate(), calm_o.evaluate());
    // One more piece: better for its owner, worse for the other side, by
    // the same amount around the tempo.
    let ahead = position("xx5/xxx4/7/7/7/5oo/5oo x 0 1", standard());
    let behind = position("xx5/xxx4/7/7/7/5oo/5oo o 0 1", standard());
    assert!(ahead.evaluate() > calm.evaluate());
    assert_eq!(ahead.evaluate() + behind.evaluate(), 2 * calm.evaluate());
    // Pieces that can be converted next move weigh against their owner:
    // o can jump next to a7 from c5, but not from c3.
    let exposed = position("x6/1--4/1-o4/7/7/7/7 x 0 1", standard());
    let safe = position("x6/1--4/1-5/7/2o4/7/7 x 0 1", standard());
    assert!(exposed.evaluate() < safe.evaluate());
    // A piece on the edge is worth more than one inside.
    let edge = position("7/7/7/x5o/7/7/7 x 0 1", standard());
    let inside = position("7/7/7/1x4o/7/7/7 x 0 1", standard());
    assert!(edge.evaluate() > inside.evaluate());
    assert!(calm.evaluate().abs() < 20000 && ahead.evaluate().abs() < 20000);
}

#[test]
fn playout_and_baseline_take_the_biggest_gain() {
    use rand::SeedableRng;
    // a7c6 converts c5, d5 and d6; every other move converts at most one.
    let pos = position("x6/3o3/2oo3/7/7/7/7 x 0 1", standard());
    let best = pos.parse_move("a7c6").expect("a7c6");
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    for seed in 0..20 {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        assert_eq!(pos.playout_move(&moves, &mut rng), best);
        assert_eq!(pos.baseline_move(&mut rng), Some(best));
    }
    // Among equal gains the choice varies with the random stream.
    let start = Ataxx::start(&standard());
    start.generate_moves(&mut moves);
    let chosen: std::collections::HashSet<AtaxxMove> = (0..40)
        .map(|seed| {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            start.playout_move(&moves, &mut rng)
        })
        .collect();
    assert!(chosen.len() > 1 && chosen.iter().all(|m| m.is_clone()));
    let finished = position("x6/7/7/7/7/7/7 o 0 1", standard());
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    assert_eq!(finished.baseline_move(&mut rng), None);
}

/// The network inputs read from the position string, the slow way: each
/// 2×2 window's squares as base-3 digits (0 empty or blocked, 1 the side
/// to move's, 2 the other side's), then one input per blocked square.
fn inputs_from_text(position: &Ataxx) -> Vec<u16> {
    let fen = position.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let mover = fields[1].chars().next().expect("side");
    let board = common::board_from_text(fields[0], 7, 7);
    let digit = |c: char| common::side_digit(c, mover);
    let mut inputs = Vec::new();
    for (rank, pair) in board.windows(2).enumerate() {
        for file in 0..6 {
            let state = digit(pair[0][file])
                + 3 * digit(pair[0][file + 1])
                + 9 * digit(pair[1][file])
                + 27 * digit(pair[1][file + 1]);
            inputs.push(((rank * 6 + file) * 81 + state) as u16);
        }
    }
    for (rank, row) in board.iter().enumerate() {
        for (file, &square) in row.iter().enumerate() {
            if square == '-' {
                inputs.push((2916 + rank * 7 + file) as u16);
            }
        }
    }
    inputs
}

#[test]
fn network_inputs_are_the_windows_of_the_board() {
    assert_eq!(Ataxx::learned().map(|l| l.inputs()), Some(2965));
    let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(5);
    let starts = [
        Ataxx::start(&standard()),
        position("x5o/1-3-1/7/2-1-2/7/1-3-1/o5x x 0 1", standard()),
    ];
    let checked: usize = starts
        .iter()
        .map(|start| {
            common::check_inputs_in_random_games(start, 40, 80, &mut rng, inputs_from_text)
        })
        .sum();
    assert!(checked > 1000, "{checked} positions");
}

#[test]
fn the_embedded_network_loads_and_judges_material() {
    let network = common::shipped_network::<Ataxx>();
    let eval = |fen: &str| common::network_score(&network, &position(fen, standard()));
    // Far ahead, far behind: the network must see a 20-piece lead. At its
    // scale of 200 units, ±400 is a win probability of 88 % (seen: the
    // fifth generation +519 / −485; this artificial position, three full
    // ranks, is far from anything in its training games).
    let ahead = eval("xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/o5o x 0 20");
    let behind = eval("xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/o5o o 0 20");
    assert!(
        ahead > 400 && behind < -400,
        "ahead {ahead}, behind {behind}"
    );
}

/// With helper threads the move played is the deepest completed
/// iteration's (the main thread's or a helper's), and the last `info`
/// report is that iteration: its depth, score and first move are the
/// result's, and a depth limit is never passed.
#[test]
fn several_threads_answer_with_their_deepest_completed_iteration() {
    use agon::search::Limits;
    use agon::search::alphabeta::AlphaBeta;
    let position = Ataxx::from_fen("x5o/7/3x3/7/7/6x/1o4x o 2 3", &standard()).unwrap();
    let state = GameState::new(position.clone());
    for threads in [2, 3] {
        for depth in [4, 7] {
            let mut search = AlphaBeta::<Ataxx>::new(8).unwrap();
            search.set_threads(threads);
            let mut reports = Vec::new();
            let result = search.search(&state, &Limits::depth(depth), &mut |r| {
                reports.push(r.clone())
            });
            let last = reports.last().expect("at least one report");
            let best = result.best.expect("a move");
            assert!(position.is_legal(best));
            assert_eq!(result.depth, depth, "{threads} threads");
            assert_eq!(last.depth, result.depth);
            assert_eq!(last.score, result.score);
            assert_eq!(last.pv.first(), Some(&position.move_to_string(best)));
        }
    }
}
