//! Yoté: notation, move generation, the no-straight-back rule, captures,
//! every end condition and random-play invariants.

mod common;

use agon::game::{Game, GameState, NoOptions, Outcome, Player};
use agon::games::yote::{Yote, YoteMove};
use agon::harness::random_play;
use agon::search::perft::perft;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn pos(fen: &str) -> Yote {
    Yote::from_fen(fen, &NoOptions).unwrap_or_else(|e| panic!("bad fen '{fen}': {e}"))
}

fn moves(y: &Yote) -> Vec<String> {
    let mut list = Vec::new();
    y.generate_moves(&mut list);
    let mut names: Vec<String> = list.iter().map(|&m| y.move_to_string(m)).collect();
    names.sort();
    names
}

fn play(y: &mut Yote, text: &str) {
    let mv = y.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(y.is_legal(mv), "{text} should be legal in {}", y.fen());
    y.play(mv);
}

#[test]
fn start_position_and_round_trip() {
    let start = Yote::start(&NoOptions);
    assert_eq!(start.fen(), "6/6/6/6/6 x 12 12 - - 0 1");
    for fen in [
        "6/2o3/2x3/6/6 x 0 0 - - 0 10",
        "5o/6/6/6/x5 o 11 11 c2c3 e5f5 17 4",
        "xoxoxo/oxoxox/6/6/6 x 6 6 - - 99 30",
    ] {
        assert_eq!(pos(fen).fen(), fen);
    }
    for text in ["@a1", "@f5", "c3c4", "c3c5xe2", "c3c5", "a1c1xf5"] {
        let mv = start.parse_move(text).unwrap();
        assert_eq!(start.move_to_string(mv), text);
    }
}

#[test]
fn malformed_input_is_rejected() {
    for fen in [
        "",
        "6/6/6/6 x 12 12 - - 0 1",
        "6/6/6/6/6/6 x 12 12 - - 0 1",
        "7/6/6/6/6 x 12 12 - - 0 1",
        "5/6/6/6/6 x 12 12 - - 0 1",
        "6/6/6/6/6 y 12 12 - - 0 1",
        "6/6/6/6/6 x 13 12 - - 0 1",
        "6/6/6/6/x5 x 12 12 - - 0 1",
        "6/6/6/6/6 x 12 12 c3c5 - 0 1",
        "6/6/6/6/6 x 12 12 c3 - 0 1",
        "6/6/6/6/6 x 12 12 - - 101 1",
        "6/6/6/6/6 x 12 12 - - 0 0",
        "6/6/6/6/6 x 12 12 - - -1 1",
        "6/6/6/6/6 x 12 12 - - 0 1 extra",
        "6/6/6/6/5é x 12 12 - - 0 1",
        "99999999999/6/6/6/6 x 12 12 - - 0 1",
    ] {
        assert!(Yote::from_fen(fen, &NoOptions).is_err(), "accepted '{fen}'");
    }
    let start = Yote::start(&NoOptions);
    for text in [
        "", "@", "@g1", "@a6", "a1", "a1a3x", "a1a2xb2", "a1b2", "a1a4", "a1a3xz9", "c3c4c5",
        "é1a2", "@a1b", "end",
    ] {
        assert!(start.parse_move(text).is_err(), "accepted '{text}'");
    }
}

#[test]
fn perft_counts() {
    let start = Yote::start(&NoOptions);
    assert_eq!(perft(&start, 1), Ok(30));
    assert_eq!(perft(&start, 2), Ok(30 * 29));
    // x at c3 facing o at c4: three steps and the jump to c5 (o has no other
    // stone, so no removal).
    let lone = pos("6/2o3/2x3/6/6 x 0 0 - - 0 10");
    assert_eq!(moves(&lone), ["c3b3", "c3c2", "c3c5", "c3d3"]);
    // One stone in reserve adds the 28 drops.
    assert_eq!(perft(&pos("6/2o3/2x3/6/6 x 1 0 - - 0 10"), 1), Ok(32));
    // Depth 2 from the lone position: after a step o has 3 steps and maybe a
    // jump; after the jump o has no stone and has lost.
    // c3b3: o c4 -> b4? occupied? no: o steps b4,d4,c5,c3(empty now) = 4.
    // c3c2: o steps 4 (c3 empty) = 4. c3d3: 4. c3c5: 0 (o lost).
    assert_eq!(perft(&lone, 2), Ok(12));
}

#[test]
fn no_straight_back() {
    // x's previous move was c2c3: c3c2 is forbidden, the other steps and
    // the jump are not.
    let y = pos("6/2o3/2x3/6/6 x 0 0 c2c3 - 0 10");
    assert_eq!(moves(&y), ["c3b3", "c3c5", "c3d3"]);
    // o's last step does not restrict x.
    let y = pos("6/2o3/2x3/6/6 x 0 0 - c2c3 0 10");
    assert_eq!(moves(&y).len(), 4);
    // Playing the step records it; a drop clears it.
    let mut y = pos("6/6/2x3/6/o5 x 1 11 - - 0 10");
    play(&mut y, "c3c4");
    assert!(y.fen().contains(" c3c4 - "), "{}", y.fen());
    play(&mut y, "a1a2");
    assert!(!moves(&y).contains(&"c4c3".to_string()));
    assert!(moves(&y).contains(&"c4c5".to_string()));
    play(&mut y, "@f5");
    assert!(y.fen().contains(" - a1a2 "), "{}", y.fen());
}

#[test]
fn compound_capture_with_and_without_removal() {
    // o at c4 and a1: the jump must remove a1 too.
    let mut y = pos("6/2o3/2x3/6/o5 x 0 0 - - 0 10");
    assert_eq!(moves(&y), ["c3b3", "c3c2", "c3c5xa1", "c3d3"]);
    let bare = y.parse_move("c3c5").unwrap();
    assert!(
        !y.is_legal(bare),
        "removal is mandatory when a stone is left"
    );
    play(&mut y, "c3c5xa1");
    assert_eq!(y.fen(), "2x3/6/6/6/6 o 0 0 - - 0 10");
    assert_eq!(y.outcome(), Some(Outcome::Win(Player::X)));
    // Without an enemy stone left, the suffix is omitted.
    let mut y = pos("6/2o3/2x3/6/6 x 0 3 - - 7 10");
    let with = y.parse_move("c3c5xc4").unwrap();
    assert!(!y.is_legal(with));
    play(&mut y, "c3c5");
    assert_eq!(y.fen(), "2x3/6/6/6/6 o 0 3 - - 0 10");
    // o still holds stones in reserve but none on the board: o has lost.
    assert_eq!(y.outcome(), Some(Outcome::Win(Player::X)));
    // A capture is not a step: it clears last_x and is allowed even
    // straight back over the stone.
    let mut y = pos("o5/6/2x3/2o3/6 x 0 0 c2c3 - 0 10");
    assert!(moves(&y).contains(&"c3c1xa5".to_string()));
    play(&mut y, "c3c1xa5");
    assert!(y.fen().contains(" - - 0 10"), "{}", y.fen());
}

#[test]
fn captures_every_direction_and_edges() {
    // x at c3 surrounded by o on all four sides with room behind.
    let y = pos("6/2o3/1oxo2/2o3/o5 x 0 0 - - 0 10");
    let caps: Vec<String> = moves(&y).into_iter().filter(|m| m.contains('x')).collect();
    // 4 jumps × 4 remaining enemy stones each.
    assert_eq!(caps.len(), 16);
    // No jump off the board: x at a1 next to o at a2 with nothing behind a1
    // on rank 0.
    let y = pos("6/6/o5/o5/x5 x 0 0 - - 0 10");
    assert_eq!(moves(&y), ["a1b1"]);
}

#[test]
fn end_conditions() {
    // Start: x has not moved, nothing is over.
    assert_eq!(Yote::start(&NoOptions).outcome(), None);
    // o to move with 12 in reserve and nothing on board has not lost.
    assert_eq!(pos("6/6/6/6/x5 o 11 12 - - 0 1").outcome(), None);
    // No stone on the board after having moved: loss, even with reserve.
    assert_eq!(
        pos("6/6/6/6/o5 x 5 11 - - 3 10").outcome(),
        Some(Outcome::Win(Player::O))
    );
    // Blocked with an empty reserve: loss.
    let blocked = pos("6/6/o5/o5/xoo3 x 0 5 - - 0 10");
    assert_eq!(blocked.outcome(), Some(Outcome::Win(Player::O)));
    assert!(moves(&blocked).is_empty());
    // The only step is the forbidden straight-back one: no legal move.
    let stuck = pos("6/6/6/6/xoo3 x 0 5 a2a1 - 0 10");
    assert!(moves(&stuck).is_empty());
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::O)));
    assert_eq!(pos("6/6/6/6/xoo3 x 0 5 - - 0 10").outcome(), None);
    // Same with a stone in reserve: the drop is a move.
    assert_eq!(pos("6/6/o5/o5/xoo3 x 1 5 - - 0 10").outcome(), None);
    // The loss is checked before the quiet draw.
    assert_eq!(
        pos("6/6/o5/o5/xoo3 x 0 5 - - 100 10").outcome(),
        Some(Outcome::Win(Player::O))
    );
    // Quiet counter reaching 100 draws.
    let mut y = pos("6/6/2x3/6/3o2 x 5 5 - - 99 40");
    assert_eq!(y.outcome(), None);
    play(&mut y, "c3c4");
    assert_eq!(y.outcome(), Some(Outcome::Draw));
    // A drop resets the counter.
    let mut y = pos("6/6/2x3/6/3o2 x 5 5 - - 99 40");
    play(&mut y, "@a1");
    assert!(y.fen().ends_with(" 0 40"), "{}", y.fen());
}

#[test]
fn threefold_repetition_draws() {
    let start = pos("5o/6/6/6/x5 x 11 11 - - 0 2");
    let mut state = GameState::new(start);
    let cycle = [
        "a1a2", "f5f4", "a2b2", "f4e4", "b2b1", "e4e5", "b1a1", "e5f5",
    ];
    let mut plies = 0;
    for text in cycle.iter().cycle() {
        if state.outcome().is_some() {
            break;
        }
        let mv = state.position.parse_move(text).unwrap();
        assert!(state.position.is_legal(mv));
        state.play(mv);
        plies += 1;
    }
    // Only the position after the very first ply differs between cycles
    // (o's last step is still empty there); the position after the second
    // ply of each cycle is the first to occur a third time.
    assert_eq!(plies, 18);
    assert_eq!(state.occurrences(), 3);
    assert_eq!(state.outcome(), Some(Outcome::Draw));
    assert_eq!(state.position.outcome(), None);
}

#[test]
fn repetition_key_ignores_counters_only() {
    let a = pos("5o/6/6/6/x5 x 11 11 - - 0 2");
    let b = pos("5o/6/6/6/x5 x 11 11 - - 57 31");
    assert_eq!(a.repetition_key(), b.repetition_key());
    for other in [
        "5o/6/6/6/x5 x 10 11 - - 0 2",
        "5o/6/6/6/x5 x 11 11 a2a1 - 0 2",
        "5o/6/6/6/x5 x 11 11 - f4f5 0 2",
        "5o/6/6/6/x5 o 11 11 - - 0 2",
    ] {
        assert_ne!(a.repetition_key(), pos(other).repetition_key(), "{other}");
    }
}

#[test]
fn baseline_captures_threatening_stone() {
    // x can jump c3 -> c5 over c4; of o's other stones, e2 threatens x's d2
    // (jump e2 -> c2) while a5 threatens nothing.
    let y = pos("o5/2o3/2x3/3xoo/6 x 0 0 - - 0 10");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..20 {
        let mv = y.baseline_move(&mut rng).unwrap();
        assert_eq!(y.move_to_string(mv), "c3c5xe2");
    }
    // Without a capture it avoids giving one.
    let y = pos("6/6/6/2o3/6 x 12 11 - - 0 1");
    for _ in 0..50 {
        let mv = y.baseline_move(&mut rng).unwrap();
        let mut next = y.clone();
        next.play(mv);
        let mut list = Vec::new();
        next.generate_moves(&mut list);
        let caps = list
            .iter()
            .filter(|m| matches!(m, YoteMove::Capture { .. }))
            .count();
        assert_eq!(caps, 0, "baseline gave a capture with {mv:?}");
    }
}

#[test]
fn evaluation_sees_material_and_threats() {
    let even = pos("6/6/2x3/6/3o2 x 5 5 - - 0 40");
    assert!(even.evaluate().abs() < 30, "{}", even.evaluate());
    let up = pos("6/6/2x3/6/3o2 x 5 4 - - 0 40");
    assert!(up.evaluate() > 50);
    // Side to move with a capture available is well ahead.
    let cap = pos("6/2o3/2x3/6/o5 x 0 0 - - 0 10");
    let no_cap = pos("2o3/6/2x3/6/o5 x 0 0 - - 0 10");
    assert!(
        cap.evaluate() > no_cap.evaluate() + 50,
        "{} {}",
        cap.evaluate(),
        no_cap.evaluate()
    );
}

#[test]
fn random_play_invariants() {
    let start = Yote::start(&NoOptions);
    let stats = random_play(&start, &NoOptions, 1500, 5000, 7);
    assert_eq!(stats.games, 1500);
    assert!(
        stats.wins_x > 0 && stats.wins_o > 0 && stats.draws > 0,
        "{stats:?}"
    );
    // Some positions reached from the middle of the game too.
    let mid = pos("6/2o3/1oxo2/2o3/o5 x 3 2 - - 0 10");
    random_play(&mid, &NoOptions, 300, 5000, 8);
}

#[test]
fn positions_file_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/yote.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut count = 0;
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut parts = line.split(';').map(str::trim);
        let y = pos(parts.next().unwrap());
        assert_eq!(y.outcome(), None, "{line}");
        for part in parts {
            if let Some(best) = part.strip_prefix("bm ") {
                for mv in best.split_whitespace() {
                    assert!(moves(&y).contains(&mv.to_string()), "{mv} in {line}");
                }
            }
        }
        count += 1;
    }
    assert!(count >= 8);
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let alphabet: Vec<char> = "abcdefgxo0123456789@-/ é".chars().collect();
    let start = Yote::start(&NoOptions);
    for _ in 0..20_000 {
        let len = rand::RngExt::random_range(&mut rng, 0..12);
        let text: String = (0..len)
            .map(|_| alphabet[rand::RngExt::random_range(&mut rng, 0..alphabet.len())])
            .collect();
        if let Ok(mv) = start.parse_move(&text) {
            let _ = start.is_legal(mv);
            let _ = start.move_to_string(mv);
        }
        let fen = format!("{text}/6/6/6/6 x 12 12 - - 0 1");
        if let Ok(y) = Yote::from_fen(&fen, &NoOptions) {
            assert_eq!(pos(&y.fen()).fen(), y.fen());
        }
    }
}

/// The network inputs read from the position string, the slow way: each
/// line of three squares (rows, then columns, in board order) as base-3
/// digits (0 empty, 1 the side to move's, 2 the other's), then both
/// reserves one-hot.
fn inputs_from_text(position: &Yote) -> Vec<u16> {
    let fen = position.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let mover = fields[1].chars().next().expect("side");
    let board = common::board_from_text(fields[0], 6, 5);
    let digit = |c: char| common::side_digit(c, mover);
    let mut inputs = Vec::new();
    let mut line = 0;
    for rank in 0..5 {
        for file in 0..6 {
            let mut push = |squares: [(usize, usize); 3]| {
                let state: usize = squares
                    .iter()
                    .zip([1, 3, 9])
                    .map(|(&(r, f), weight)| weight * digit(board[r][f]))
                    .sum();
                inputs.push((line * 27 + state) as u16);
                line += 1;
            };
            if file + 2 < 6 {
                push([(rank, file), (rank, file + 1), (rank, file + 2)]);
            }
            if rank + 2 < 5 {
                push([(rank, file), (rank + 1, file), (rank + 2, file)]);
            }
        }
    }
    let (ours, theirs) = if mover == 'x' { (2, 3) } else { (3, 2) };
    let reserve = |field: usize| fields[field].parse::<usize>().expect("reserve");
    inputs.push((1026 + reserve(ours)) as u16);
    inputs.push((1039 + reserve(theirs)) as u16);
    inputs
}

#[test]
fn network_inputs_are_the_lines_of_three_and_the_reserves() {
    assert_eq!(Yote::learned().map(|l| l.inputs()), Some(1052));
    let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(9);
    let start = Yote::start(&Default::default());
    let checked = common::check_inputs_in_random_games(&start, 40, 120, &mut rng, inputs_from_text);
    assert!(checked > 1000, "{checked} positions");
}

#[test]
fn the_embedded_network_loads_and_judges_material() {
    let network = common::shipped_network::<Yote>();
    let eval = |fen: &str| {
        let position = Yote::from_fen(fen, &NoOptions).expect("valid position");
        common::network_score(&network, &position)
    };
    // Twelve stones on the board against one and two in reserve.
    let ahead = eval("xxxxxx/xxxxxx/6/6/o5 x 0 2 - - 0 30");
    let behind = eval("xxxxxx/xxxxxx/6/6/o5 o 0 2 - - 0 30");
    assert!(
        ahead > 300 && behind < -300,
        "ahead {ahead}, behind {behind}"
    );
}

#[test]
fn symmetric_images_are_the_four_reflections() {
    let position = pos("5o/1x4/6/2o3/x5 o 10 10 c2c3 e5f5 17 4");
    let images = position.symmetric_images();
    let fens: Vec<String> = images.iter().map(|i| i.fen()).collect();
    assert_eq!(fens.len(), 4);
    assert_eq!(fens[0], position.fen(), "the identity comes first");
    // Files mirrored (a ↔ f), ranks mirrored (1 ↔ 5), both: written out by
    // hand, the no-straight-back steps reflected with the stones.
    for expected in [
        "o5/4x1/6/3o2/5x o 10 10 d2d3 b5a5 17 4",
        "x5/2o3/6/1x4/5o o 10 10 c4c3 e1f1 17 4",
        "5x/3o2/6/4x1/o5 o 10 10 d4d3 b1a1 17 4",
    ] {
        assert!(fens.contains(&expected.to_string()), "{expected} missing");
    }
    for image in &images {
        assert_eq!(image.hash(), image.hash_from_scratch());
        assert_eq!(image.canonical_key(), position.canonical_key());
        assert_eq!(moves(image).len(), moves(&position).len());
        assert_eq!(perft(image, 2), perft(&position, 2));
    }
}
