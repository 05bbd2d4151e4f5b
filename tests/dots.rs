//! Dots and Boxes: notation, rules, and the exact solver checked against an
//! independent brute-force minimax.

mod common;

use agon::game::{Game, GameOptions, GameState, Outcome, Player, Proven, SolveBudget};
use agon::games::dots::geometry::NO_BOX;
use agon::games::dots::{Dots, DotsMove, DotsOptions, solver::Table};
use agon::harness::random_play;
use agon::tools::positions::parse_positions;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn options(size: &str) -> DotsOptions {
    let mut o = DotsOptions::default();
    o.set("Size", size).expect("valid size");
    o
}

fn pos(fen: &str) -> Dots {
    Dots::from_fen(fen, &DotsOptions::default()).expect("valid fen")
}

fn play(game: &mut Dots, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = game.parse_move(m).expect("valid move");
        assert!(game.is_legal(mv), "{m} illegal");
        game.play(mv);
    }
}

// ---------------------------------------------------------------------
// Independent brute force: its own line numbering from RULES.md §2.
// ---------------------------------------------------------------------

/// Boxes of an R×C board as the four line indices of each, computed
/// directly from the position-string order.
fn brute_boxes(r: usize, c: usize) -> Vec<[usize; 4]> {
    let h = (r + 1) * c;
    let mut out = Vec::new();
    for row in 0..r {
        for col in 0..c {
            let bottom = row * c + col;
            let top = bottom + c;
            let left = h + row * (c + 1) + col;
            out.push([bottom, top, left, left + 1]);
        }
    }
    out
}

/// Net remaining boxes for the side to move, plain minimax with a memo.
fn brute(lines: u64, n: usize, boxes: &[[usize; 4]], memo: &mut HashMap<u64, i32>) -> i32 {
    if lines.count_ones() as usize == n {
        return 0;
    }
    if let Some(&v) = memo.get(&lines) {
        return v;
    }
    let full = |l: u64, b: &[usize; 4]| b.iter().all(|&i| l >> i & 1 == 1);
    let mut best = i32::MIN;
    for line in 0..n {
        if lines >> line & 1 == 1 {
            continue;
        }
        let after = lines | 1 << line;
        let gained = boxes
            .iter()
            .filter(|b| b.contains(&line) && full(after, b))
            .count() as i32;
        let v = if gained > 0 {
            gained + brute(after, n, boxes, memo)
        } else {
            -brute(after, n, boxes, memo)
        };
        best = best.max(v);
    }
    memo.insert(lines, best);
    best
}

/// Brute-force final margin (side to move minus opponent) of a position.
fn brute_margin(game: &Dots, memo: &mut HashMap<u64, i32>) -> i32 {
    let g = game.geometry();
    let boxes = brute_boxes(g.rows, g.cols);
    game.score_diff() + brute(game.lines(), g.lines, &boxes, memo)
}

fn budget_free() -> AtomicBool {
    AtomicBool::new(false)
}

#[test]
fn start_position_and_options() {
    let start = Dots::start(&DotsOptions::default());
    assert_eq!(
        start.fen(),
        "4x4 0000000000000000000000000000000000000000 0 0 x"
    );
    assert_eq!(
        Dots::start(&options("5x5")).fen(),
        format!("5x5 {} 0 0 x", "0".repeat(60))
    );
    assert_eq!(Dots::start(&options("2x3")).count_moves(), 17);
    for bad in ["0x3", "6x1", "3", "3x", "x3", "3x3x3", "-1x2", "+2x2", ""] {
        assert!(DotsOptions::default().set("Size", bad).is_err(), "{bad}");
    }
    // Read as every option value is: the separator in any case, blanks
    // around the numbers ignored, leading zeros allowed.
    for good in ["2X3", "2 x 3", "02x3"] {
        assert_eq!(Dots::start(&options(good)).count_moves(), 17, "{good}");
    }
    assert!(DotsOptions::default().set("Sizes", "3x3").is_err());
    // The size in a position string wins over the option.
    let g = Dots::from_fen("1x1 0000 0 0 o", &options("5x5")).expect("fen");
    assert_eq!(g.geometry().lines, 4);
}

#[test]
fn move_notation() {
    let g = Dots::start(&DotsOptions::default());
    for (text, canonical) in [
        ("a1b1", "a1b1"),
        ("b1a1", "a1b1"),
        ("a1a2", "a1a2"),
        ("a2a1", "a1a2"),
        ("e5e4", "e4e5"),
        ("d5e5", "d5e5"),
    ] {
        let mv = g.parse_move(text).expect(text);
        assert_eq!(g.move_to_string(mv), canonical);
    }
    // Line order of the position string: horizontals from rank 1 up, then
    // verticals from the bottom box-row up.
    assert_eq!(g.parse_move("a1b1").expect("ok").0, 0);
    assert_eq!(g.parse_move("a2b2").expect("ok").0, 4);
    assert_eq!(g.parse_move("a1a2").expect("ok").0, 20);
    assert_eq!(g.parse_move("b1b2").expect("ok").0, 21);
    assert_eq!(g.parse_move("a2a3").expect("ok").0, 25);
    for bad in [
        "", "a1", "a1b", "a1b1 ", " a1b1", "A1B1", "a1B1", "a1c1", "a1b2", "a1a1", "a0a1", "f1f2",
        "a6b6", "e5f5", "a1a3", "11b1", "ab12", "a1b1c1", "é1b1", "a\u{0}b1", "aaaa",
    ] {
        assert!(g.parse_move(bad).is_err(), "'{bad}' accepted");
    }
    let mut g2 = g.clone();
    play(&mut g2, "a1b1");
    assert!(g2.parse_move("a1b1").is_err(), "drawn line accepted");
    assert!(g2.parse_move("b1a1").is_err(), "drawn line accepted");
}

#[test]
fn position_strings_rejected() {
    let o = DotsOptions::default();
    for bad in [
        "",
        "1x1 0000 0 0",
        "1x1 0000 0 0 x extra",
        "1x1 000 0 0 x",
        "1x1 00000 0 0 x",
        "1x1 0020 0 0 x",
        "1x1 0000 0 0 y",
        "1x1 0000 1 0 x",
        "1x1 1111 0 0 x",
        "1x1 1111 1 1 x",
        "1x1 0000 -1 0 x",
        "1x1 0000 a 0 x",
        "6x6 0000 0 0 x",
        "0x1 0 0 0 x",
        "1x1 0000 99999999999999999999 0 x",
    ] {
        assert!(Dots::from_fen(bad, &o).is_err(), "'{bad}' accepted");
    }
    for good in [
        "1x1 1111 1 0 o",
        "1x1 1111 0 1 x",
        "2x2 111111111111 3 1 x",
        "1x2 1111111 1 1 o",
    ] {
        let g = Dots::from_fen(good, &o).expect(good);
        assert_eq!(g.fen(), good);
    }
}

#[test]
fn extra_move_after_a_box() {
    let mut g = pos("1x2 0000000 0 0 x");
    play(&mut g, "a1b1");
    assert_eq!(g.side_to_move(), Player::O);
    play(&mut g, "a2b2");
    assert_eq!(g.side_to_move(), Player::X);
    play(&mut g, "a1a2");
    assert_eq!(g.side_to_move(), Player::O);
    // o completes the left box with b1b2 and moves again.
    play(&mut g, "b1b2");
    assert_eq!((g.side_to_move(), g.score(Player::O)), (Player::O, 1));
    play(&mut g, "b1c1");
    assert_eq!(g.side_to_move(), Player::X);
    play(&mut g, "b2c2");
    assert_eq!(g.side_to_move(), Player::O);
    // The last line completes the right box: the game ends 1-1 and the side
    // field keeps o, who drew the last line.
    play(&mut g, "c1c2");
    assert_eq!(g.fen(), "1x2 1111111 0 2 o");
    assert_eq!(g.outcome(), Some(Outcome::Win(Player::O)));
}

#[test]
fn one_line_completing_two_boxes() {
    let mut g = pos("1x2 1111101 0 0 x");
    let mv = g.parse_move("b1b2").expect("ok");
    g.play(mv);
    assert_eq!(g.fen(), "1x2 1111111 2 0 x");
    assert_eq!(g.outcome(), Some(Outcome::Win(Player::X)));
}

#[test]
fn end_conditions() {
    assert_eq!(pos("1x2 1111111 1 1 x").outcome(), Some(Outcome::Draw));
    assert_eq!(
        pos("1x1 1111 0 1 x").outcome(),
        Some(Outcome::Win(Player::O))
    );
    assert_eq!(pos("1x1 1110 0 0 x").outcome(), None);
    let done = pos("2x2 111111111111 1 3 o");
    assert_eq!(done.outcome(), Some(Outcome::Win(Player::O)));
    assert_eq!(done.count_moves(), 0);
    let mut moves = Vec::new();
    done.generate_moves(&mut moves);
    assert!(moves.is_empty());
    let stop = budget_free();
    let budget = SolveBudget::new(None, &stop);
    assert!(done.solve(&budget).is_none());
}

#[test]
fn exact_values_of_small_boards_match_brute_force() {
    let stop = budget_free();
    let budget = SolveBudget::new(None, &stop);
    for size in ["1x1", "1x2", "2x1", "1x3", "2x2", "1x4", "2x3", "3x2"] {
        let start = Dots::start(&options(size));
        let mut memo = HashMap::new();
        let expected = brute_margin(&start, &mut memo);
        let solved = start.solve(&budget).expect("small board solved");
        assert_eq!(solved.margin, Some(expected), "{size}");
        let (margin, best) = start.solve_all(None).expect("solved");
        assert_eq!(margin, expected, "{size}");
        assert!(best.contains(&solved.best));
        let want = match expected.signum() {
            1 => Proven::Win(None),
            -1 => Proven::Loss(None),
            _ => Proven::Draw,
        };
        assert_eq!(solved.value, want);
    }
    // Known results: 1×1 is lost by 1, 2×2 won by 2 for the first player.
    let mut memo = HashMap::new();
    assert_eq!(brute_margin(&Dots::start(&options("1x1")), &mut memo), -1);
    let mut memo = HashMap::new();
    assert_eq!(brute_margin(&Dots::start(&options("2x2")), &mut memo), 2);
}

/// Plays `count` random lines from the start (policy: random).
fn random_position(size: &str, count: usize, rng: &mut Xoshiro256PlusPlus) -> Dots {
    let mut g = Dots::start(&options(size));
    let mut moves = Vec::new();
    for _ in 0..count {
        g.generate_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rand::RngExt::random_range(rng, 0..moves.len())];
        g.play(mv);
    }
    g
}

/// The solver's value of `g` (on `threads` threads, a table of `bytes`) is
/// brute force's, every listed move is optimal and every optimal move is
/// listed.
fn assert_solved_as_brute_force(g: &Dots, threads: usize, bytes: usize) {
    let mut memo = HashMap::new();
    let expected = brute_margin(g, &mut memo);
    let (margin, best, _) = g.solve_with(threads, bytes, true, None).expect("solved");
    assert_eq!(margin, expected, "margin of {}", g.fen());
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    for mv in moves {
        let mut child = g.clone();
        child.play(mv);
        let value = if child.side_to_move() == g.side_to_move() {
            brute_margin(&child, &mut memo)
        } else {
            -brute_margin(&child, &mut memo)
        };
        assert_eq!(
            best.contains(&mv),
            value == expected,
            "move {} of {}",
            g.move_to_string(mv),
            g.fen()
        );
    }
}

#[test]
fn solver_matches_brute_force_on_random_positions() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    // (size, lines drawn at random first, positions)
    for (size, drawn, count) in [
        ("2x2", 3, 40),
        ("2x3", 4, 40),
        ("3x2", 6, 30),
        ("1x5", 2, 30),
        ("3x3", 9, 30),
        ("2x4", 8, 30),
        ("4x4", 24, 20),
        ("5x5", 44, 15),
        ("3x5", 22, 15),
    ] {
        for i in 0..count {
            let g = random_position(size, drawn, &mut rng);
            if g.outcome().is_some() {
                continue;
            }
            // One and two threads (which split the root's lines and help
            // each other on one test) must give the same answers.
            assert_solved_as_brute_force(&g, 1 + i % 2, 1 << 22);
        }
    }
}

#[test]
fn the_border_lines_of_a_corner_box_are_interchangeable() {
    // The table counts a position with one border line of a corner box
    // drawn as the one with the other drawn: check that claim by brute
    // force on random positions, and that both share a table key.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut checked = 0;
    for (size, drawn) in [("2x3", 6), ("3x3", 10), ("3x2", 5)] {
        for _ in 0..40 {
            let g = random_position(size, drawn, &mut rng);
            let geo = g.geometry();
            let lines = g.lines();
            for line in (0..geo.lines).filter(|&l| lines >> l & 1 == 1) {
                let Some(other) = geo.corner_partner(line).filter(|&o| lines >> o & 1 == 0) else {
                    continue;
                };
                let swapped = lines ^ (1 << line) ^ (1 << other);
                let bits: String = (0..geo.lines)
                    .map(|l| if swapped >> l & 1 == 1 { '1' } else { '0' })
                    .collect();
                let fields: Vec<String> = g.fen().split(' ').map(str::to_owned).collect();
                let fen = format!(
                    "{} {bits} {} {} {}",
                    fields[0], fields[2], fields[3], fields[4]
                );
                let twin = pos(&fen);
                assert_eq!(geo.canonical(lines), geo.canonical(swapped), "{}", g.fen());
                let mut memo = HashMap::new();
                assert_eq!(
                    brute_margin(&g, &mut memo),
                    brute_margin(&twin, &mut memo),
                    "{fen}"
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} positions with one corner border line"
    );
}

#[test]
fn the_solver_is_tried_only_when_predicted_to_finish() {
    let stop = AtomicBool::new(false);
    let budget = SolveBudget::new(Some(Instant::now() + Duration::from_secs(5)), &stop);
    // 4×4 from empty would take far longer than 5 s: declined at once
    // (trying would run until the deadline).
    let start = Dots::start(&options("4x4"));
    assert!(start.predicted_solve_seconds(2) > 60.0);
    let began = Instant::now();
    assert!(start.solve(&budget).is_none());
    assert!(began.elapsed() < Duration::from_secs(4));
    // Fewer safe lines, a faster solve.
    let late = pos("4x4 0011100000010000001001001000001001011100 0 0 x");
    assert!(late.predicted_solve_seconds(2) < 1.0);
    assert!(late.predicted_solve_seconds(1) > late.predicted_solve_seconds(2));
    // 3×3 from empty is predicted quick and solved within the budget.
    let small = Dots::start(&options("3x3"));
    assert!(small.predicted_solve_seconds(1) < 1.0);
    assert_eq!(small.solve(&budget).expect("3x3 solved").margin, Some(-3));
}

#[test]
fn a_solver_table_too_large_is_an_error() {
    assert!(Table::new(usize::MAX, 40).is_err());
    assert!(Table::new(1 << 20, 40).is_ok());
}

#[test]
fn solve_respects_the_budget() {
    let stop = AtomicBool::new(true);
    let budget = SolveBudget::new(None, &stop);
    // A 4×4 board with many lines left cannot finish with `stop` already set.
    assert!(Dots::start(&options("4x4")).solve(&budget).is_none());
    assert!(Dots::start(&options("3x3")).solve(&budget).is_none());
}

#[test]
fn evaluate_and_policy_are_sensible() {
    // The mover can take a box: evaluation positive.
    let g = pos("1x2 1010100 0 0 x");
    assert!(g.evaluate() > 0);
    assert!(g.evaluate().abs() < 20_000);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    for _ in 0..20 {
        let mv = g.playout_move(&moves, &mut rng);
        assert_eq!(g.move_to_string(mv), "b1b2", "takes the box");
    }
    // With a safe line available, the policy never hands a box over.
    let g = pos("2x2 000000000000 0 0 x");
    let mut g2 = g.clone();
    play(&mut g2, "a1b1 a1a2");
    g2.generate_moves(&mut moves);
    for _ in 0..50 {
        let mv = g2.playout_move(&moves, &mut rng);
        assert_ne!(g2.move_to_string(mv), "a2b2");
        assert_ne!(g2.move_to_string(mv), "b1b2");
    }
    assert!(g.baseline_move(&mut rng).is_some());
    assert!(pos("1x1 1111 1 0 x").baseline_move(&mut rng).is_none());
    assert!(!g.diagram().is_empty());
}

#[test]
fn game_state_needs_no_repetition() {
    let mut state = GameState::new(Dots::start(&options("1x1")));
    for m in ["a1b1", "a2b2", "a1a2", "b1b2"] {
        assert!(state.outcome().is_none());
        let mv = state.position.parse_move(m).expect("ok");
        state.play(mv);
    }
    assert_eq!(state.outcome(), Some(Outcome::Win(Player::O)));
}

#[test]
fn random_play_invariants() {
    for (size, games) in [
        ("1x1", 300),
        ("1x3", 500),
        ("2x3", 800),
        ("3x3", 600),
        ("4x4", 600),
        ("3x5", 300),
        ("5x5", 300),
    ] {
        let o = options(size);
        let stats = random_play(&Dots::start(&o), &o, games, 61, 42);
        assert_eq!(stats.games, games);
        assert!(
            size == "1x1" || stats.repeated_turns > 0,
            "{size}: extra moves"
        );
        assert_eq!(stats.repetitions, 0);
    }
}

#[test]
fn positions_file_answers() {
    let text = include_str!("../positions/dots.txt");
    let mut count = 0;
    for line in parse_positions(text) {
        let line = line.expect("well-formed suite line");
        let g = pos(&line.fen);
        let operand = |opcode: &str| line.operation(opcode).map(|words| words.join(" "));
        let want_value = operand("value");
        let (margin, best) = g.solve_all(None).expect("solved");
        // Values are for the side to move, as `agon analyse` reads them.
        assert_eq!(Some(margin.to_string()), want_value, "{}", line.fen);
        let mut best: Vec<String> = best.iter().map(|&m| g.move_to_string(m)).collect();
        best.sort();
        let mut want: Vec<String> = line.operation("bm").expect("bm").to_vec();
        want.sort();
        assert_eq!(best, want, "{}", line.fen);
        if g.empty_lines() <= 17 {
            let mut memo = HashMap::new();
            assert_eq!(brute_margin(&g, &mut memo), margin, "{}", line.fen);
        }
        count += 1;
    }
    assert!(count >= 15);
}

#[test]
fn solve_tool_output() {
    let size = [("Size".to_string(), "2x2".to_string())];
    let mut out = Vec::new();
    let two_threads = agon::tools::solve::Resources {
        threads: 2,
        hash_mb: 16,
    };
    agon::tools::solve::run("dots", None, &size, two_threads, false, &mut out).expect("solved");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "margin 2\nbest a1b1 b1c1 a3b3 b3c3 a1a2 c1c2 a2a3 c2c3\n"
    );
    // The margin is x minus o whoever is to move.
    let mut out = Vec::new();
    agon::tools::solve::run(
        "dots",
        Some("1x1 1110 0 0 o"),
        &[],
        Default::default(),
        false,
        &mut out,
    )
    .expect("solved");
    assert_eq!(String::from_utf8_lossy(&out), "margin -1\nbest b1b2\n");
    let bad = [("Size".to_string(), "9x9".to_string())];
    assert!(
        agon::tools::solve::run("dots", None, &bad, Default::default(), false, &mut out).is_err()
    );
    assert!(
        agon::tools::solve::run("ataxx", None, &[], Default::default(), false, &mut out).is_err()
    );
}

/// Dots and Boxes' network inputs read from the position string, the slow
/// way (the layout of `src/games/dots/features.rs`): line and box slots on
/// the 5×5 layout, then the score, the long chains (three or more boxes
/// with two sides, joined through undrawn lines), the boxes with three
/// sides, the long-chain parity and the side.
fn network_inputs_from_text(position: &Dots) -> Vec<u16> {
    let fen = position.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let (rows, cols) = fields[0].split_once('x').expect("size");
    let (rows, cols): (usize, usize) = (rows.parse().unwrap(), cols.parse().unwrap());
    let drawn: Vec<bool> = fields[1].chars().map(|c| c == '1').collect();
    let horizontal = |y: usize, x: usize| drawn[y * cols + x];
    let vertical = |y: usize, x: usize| drawn[(rows + 1) * cols + y * (cols + 1) + x];
    let mut inputs = Vec::new();
    for y in 0..=rows {
        for x in 0..cols {
            if horizontal(y, x) {
                inputs.push((y * 5 + x) as u16);
            }
        }
    }
    for y in 0..rows {
        for x in 0..=cols {
            if vertical(y, x) {
                inputs.push((30 + y * 6 + x) as u16);
            }
        }
    }
    let sides = |r: usize, c: usize| {
        [
            horizontal(r, c),
            horizontal(r + 1, c),
            vertical(r, c),
            vertical(r, c + 1),
        ]
        .iter()
        .filter(|&&d| d)
        .count()
    };
    for r in 0..rows {
        for c in 0..cols {
            inputs.push((60 + (r * 5 + c) * 5 + sides(r, c)) as u16);
        }
    }
    let mover = fields[4];
    let (x_score, o_score): (i32, i32) = (fields[2].parse().unwrap(), fields[3].parse().unwrap());
    let diff = if mover == "x" {
        x_score - o_score
    } else {
        o_score - x_score
    };
    inputs.push((185 + diff.clamp(-12, 12) + 12) as u16);
    // Long chains: components of two-sided boxes, neighbours joined by an
    // undrawn shared side.
    let mut component = vec![usize::MAX; rows * cols];
    let mut long_chains = 0;
    for start in 0..rows * cols {
        if component[start] != usize::MAX || sides(start / cols, start % cols) != 2 {
            continue;
        }
        let mut stack = vec![start];
        component[start] = start;
        let mut size = 0;
        while let Some(b) = stack.pop() {
            size += 1;
            let (r, c) = (b / cols, b % cols);
            let mut next = Vec::new();
            if r > 0 && !horizontal(r, c) {
                next.push(b - cols);
            }
            if r + 1 < rows && !horizontal(r + 1, c) {
                next.push(b + cols);
            }
            if c > 0 && !vertical(r, c) {
                next.push(b - 1);
            }
            if c + 1 < cols && !vertical(r, c + 1) {
                next.push(b + 1);
            }
            for n in next {
                if component[n] == usize::MAX && sides(n / cols, n % cols) == 2 {
                    component[n] = start;
                    stack.push(n);
                }
            }
        }
        if size >= 3 {
            long_chains += 1;
        }
    }
    inputs.push((210 + long_chains.min(5)) as u16);
    let three_sided = (0..rows * cols)
        .filter(|&b| sides(b / cols, b % cols) == 3)
        .count();
    inputs.push((216 + three_sided.min(4)) as u16);
    let dots = (rows + 1) * (cols + 1);
    let x_happy = (dots + long_chains) % 2 == 0;
    inputs.push((221 + usize::from(x_happy == (mover == "x"))) as u16);
    inputs.push((223 + usize::from(mover == "o")) as u16);
    inputs
}

#[test]
fn network_inputs_are_lines_boxes_score_and_chains() {
    assert_eq!(Dots::learned().map(|l| l.inputs()), Some(225));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    let mut checked = 0;
    for size in ["4x4", "3x5", "5x5"] {
        let start = Dots::start(&options(size));
        checked += common::check_inputs_in_random_games(
            &start,
            20,
            60,
            &mut rng,
            network_inputs_from_text,
        );
    }
    assert!(checked > 1000, "{checked} positions");
}

/// The moves of `moves` under a map of the dots.
fn mapped_moves(moves: &str, map: impl Fn(u8, u8) -> (u8, u8)) -> String {
    let dot = |text: &[u8]| {
        let (file, rank) = map(text[0] - b'a', text[1] - b'1');
        format!("{}{}", (b'a' + file) as char, (b'1' + rank) as char)
    };
    moves
        .split_whitespace()
        .map(|m| format!("{}{}", dot(&m.as_bytes()[..2]), dot(&m.as_bytes()[2..])))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn symmetric_images_are_the_rotations_and_reflections() {
    // A box taken, so the score and the side to move are not the start's.
    let moves = "a1b1 a1a2 c4d4 b1b2 a2b2 c2c3 e4e5";
    let mut position = Dots::start(&DotsOptions::default());
    play(&mut position, moves);
    let images = position.symmetric_images();
    assert_eq!(images.len(), 8);
    assert_eq!(images[0].fen(), position.fen(), "the identity comes first");
    let fens: std::collections::HashSet<String> = images.iter().map(|i| i.fen()).collect();
    assert_eq!(fens.len(), 8, "an asymmetric position has eight images");
    for image in &images {
        assert_eq!(image.side_to_move(), position.side_to_move());
        assert_eq!(image.canonical_key(), position.canonical_key());
        assert_eq!(image.lines().count_ones(), position.lines().count_ones());
        assert_eq!(image.count_moves(), position.count_moves());
        // Size, scores and side: every field but the lines.
        let fields = |d: &Dots| {
            let fen = d.fen();
            let mut f: Vec<String> = fen.split_whitespace().map(String::from).collect();
            f.remove(1);
            f
        };
        assert_eq!(fields(image), fields(&position));
    }
    // The same moves mirrored left to right, and across the diagonal,
    // played from the start give two of the images.
    for map in [
        (|f: u8, r: u8| (4 - f, r)) as fn(u8, u8) -> (u8, u8),
        |f, r| (r, f),
        |f, r| (4 - f, 4 - r),
    ] {
        let mut mapped = Dots::start(&DotsOptions::default());
        play(&mut mapped, &mapped_moves(moves, map));
        assert!(fens.contains(&mapped.fen()), "{} missing", mapped.fen());
    }
    // A rectangle has four.
    let mut rectangle = Dots::start(&options("2x3"));
    play(&mut rectangle, "a1b1 a1a2");
    assert_eq!(rectangle.symmetric_images().len(), 4);
}

/// The symmetric keys a search updates line by line are those computed from
/// scratch, and their minimum is the canonical key by its definition: the
/// least image under the board's symmetries with the corner rule applied.
#[test]
fn symmetric_keys_follow_the_lines_drawn() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    let mut checked = 0;
    for size in ["4x4", "3x4", "2x5", "1x3", "5x5"] {
        for _ in 0..30 {
            let start = pos(&format!("{size} {} 0 0 x", "0".repeat(pos_lines(size))));
            let geo = start.geometry();
            let mut lines = 0u64;
            let mut keys = geo.keys(0);
            let mut order: Vec<usize> = (0..geo.lines).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rand::RngExt::random_range(&mut rng, 0..=i));
            }
            for line in order {
                keys = geo.keys_with(&keys, lines, line);
                lines |= 1 << line;
                assert_eq!(keys, geo.keys(lines), "{size} {lines:b}");
                let by_definition = (0..geo.symmetry_count())
                    .map(|sym| geo.corners_first(geo.image(sym, lines)))
                    .min();
                assert_eq!(Some(geo.canonical_of(&keys).0), by_definition);
                checked += 1;
            }
        }
    }
    assert!(checked > 5_000, "{checked}");
}

/// Lines of a board given as `RxC`.
fn pos_lines(size: &str) -> usize {
    let (r, c) = size.split_once('x').expect("RxC");
    let (r, c): (usize, usize) = (r.parse().expect("rows"), c.parse().expect("cols"));
    (r + 1) * c + r * (c + 1)
}

/// A position where no safe line is left: random lines that give no box
/// a third side, drawn until there are none, from the start of `size`.
fn end_of_safe_phase(size: &str, rng: &mut Xoshiro256PlusPlus) -> Dots {
    let mut g = Dots::start(&options(size));
    let geo = g.geometry();
    loop {
        let lines = g.lines();
        let safe: Vec<usize> = (0..geo.lines)
            .filter(|&l| lines >> l & 1 == 0)
            .filter(|&l| {
                geo.line_boxes[l]
                    .iter()
                    .all(|&b| b == NO_BOX || geo.sides(lines, b as usize) < 2)
            })
            .collect();
        if safe.is_empty() {
            return g;
        }
        let line = safe[rand::RngExt::random_range(rng, 0..safe.len())];
        g.play(DotsMove(line as u8));
    }
}

/// Where every move opens a chain or a loop, the solver (which leaves
/// out loony moves by a bound) still finds the exact value and every
/// optimal move.
#[test]
fn solver_matches_brute_force_when_only_sacrifices_are_left() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(31);
    let mut loony_positions = 0;
    for (size, count) in [("3x3", 150), ("2x4", 100), ("3x4", 60), ("2x5", 60)] {
        for _ in 0..count {
            let g = end_of_safe_phase(size, &mut rng);
            if g.outcome().is_some() {
                continue;
            }
            assert_solved_as_brute_force(&g, 1, 1 << 20);
            loony_positions += 1;
        }
    }
    assert!(loony_positions > 200, "{loony_positions}");
}

/// The bound behind leaving loony moves out, checked against brute force:
/// opening a chain of two boxes or more at an end, or a longer chain
/// anywhere, gets the mover at most `2 - size` of the boxes left, and
/// opening a loop `4 - size`; the bound is reached, so it is the tightest
/// of its kind. Components are found here by a flood fill over box
/// coordinates, apart from the solver's own.
#[test]
fn a_loony_move_gets_at_most_two_minus_its_size() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(37);
    let (mut checked, mut tight) = (0, 0);
    for size in ["3x3", "2x4", "3x4"] {
        for _ in 0..40 {
            let g = end_of_safe_phase(size, &mut rng);
            let geo = g.geometry();
            let lines = g.lines();
            let two_sided = |b: usize| geo.sides(lines, b) == 2;
            let boxes = brute_boxes(geo.rows, geo.cols);
            let mut memo = HashMap::new();
            for line in (0..geo.lines).filter(|&l| lines >> l & 1 == 0) {
                let touched: Vec<usize> = geo.line_boxes[line]
                    .iter()
                    .filter(|&&b| b != NO_BOX && two_sided(b as usize))
                    .map(|&b| b as usize)
                    .collect();
                let Some(&start) = touched.first() else {
                    continue;
                };
                // The component of `start`: two-sided boxes joined by
                // undrawn lines, and whether it closes on itself.
                let mut seen = vec![start];
                let mut stack = vec![start];
                let mut exits = 0;
                while let Some(b) = stack.pop() {
                    let (r, c) = (b / geo.cols, b % geo.cols);
                    for l in (0..geo.lines).filter(|&l| geo.box_lines[b] >> l & 1 == 1) {
                        if lines >> l & 1 == 1 {
                            continue;
                        }
                        let next = geo.line_boxes[l].iter().copied().find(|&n| {
                            n != NO_BOX && {
                                let n = n as usize;
                                n != b
                                    && (n / geo.cols).abs_diff(r) + (n % geo.cols).abs_diff(c) == 1
                            }
                        });
                        match next.map(usize::from).filter(|&n| two_sided(n)) {
                            Some(n) if !seen.contains(&n) => {
                                seen.push(n);
                                stack.push(n);
                            }
                            Some(_) => {}
                            None => exits += 1,
                        }
                    }
                }
                let k = seen.len() as i32;
                let bound = if exits == 0 {
                    4 - k
                } else if k >= 3 || (k == 2 && touched.len() == 1) {
                    2 - k
                } else {
                    continue;
                };
                // The mover's net share of the boxes left (the line takes
                // nothing and passes the turn).
                let value = -brute(lines | 1 << line, geo.lines, &boxes, &mut memo);
                assert!(value <= bound, "{} line {line}: {value} > {bound}", g.fen());
                tight += usize::from(value == bound);
                checked += 1;
            }
        }
    }
    assert!(
        checked > 300 && tight > 20,
        "{checked} checked, {tight} tight"
    );
}

/// Positions with 18 to 20 lines left, where the solver also takes
/// enhanced transposition cutoffs (after safe lines and after short
/// handouts), against brute force: value and every optimal move.
#[test]
fn solver_matches_brute_force_where_it_takes_transposition_cutoffs() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    for (size, drawn, count) in [("3x3", 4, 4), ("3x3", 6, 6), ("2x4", 3, 4), ("2x4", 4, 4)] {
        for _ in 0..count {
            let g = random_position(size, drawn, &mut rng);
            assert_solved_as_brute_force(&g, 1, 1 << 20);
        }
    }
}

/// The reduction behind handing out a chain of two boxes by its middle
/// line only, checked against brute force: an end line (the half-hearted
/// handout) never scores more for the mover than the middle line (the
/// hard-hearted one), and scores less in some positions, wherever no box
/// can be taken (the solver's full nodes). Chains of two are found here
/// from the box list, apart from the solver's own.
#[test]
fn a_two_box_chain_handed_out_by_an_end_is_no_worse_for_the_taker() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
    let (mut checked, mut worse) = (0, 0);
    for (size, drawn) in [("3x3", 10), ("3x3", 13), ("2x4", 10), ("3x4", 17)] {
        for round in 0..40 {
            let g = if round % 2 == 0 {
                random_position(size, drawn, &mut rng)
            } else {
                end_of_safe_phase(size, &mut rng)
            };
            let geo = g.geometry();
            let lines = g.lines();
            let boxes = brute_boxes(geo.rows, geo.cols);
            let undrawn = |b: &[usize; 4]| -> Vec<usize> {
                b.iter().copied().filter(|&l| lines >> l & 1 == 0).collect()
            };
            let two_sided = |b: &[usize; 4]| undrawn(b).len() == 2;
            if boxes.iter().any(|b| undrawn(b).len() == 1) {
                continue; // a box to take: the solver hands out nothing there
            }
            // The two-sided box across `line` from box `from`, if any.
            let across = |line: usize, from: usize| {
                (0..boxes.len())
                    .find(|&o| o != from && boxes[o].contains(&line) && two_sided(&boxes[o]))
            };
            let mut memo = HashMap::new();
            for first in 0..boxes.len() {
                if !two_sided(&boxes[first]) {
                    continue;
                }
                for middle in undrawn(&boxes[first]) {
                    let Some(second) = across(middle, first).filter(|&s| s > first) else {
                        continue;
                    };
                    let end_of = |b: usize| undrawn(&boxes[b]).into_iter().find(|&l| l != middle);
                    let (Some(end1), Some(end2)) = (end_of(first), end_of(second)) else {
                        continue;
                    };
                    if across(end1, first).is_some() || across(end2, second).is_some() {
                        continue; // part of a longer chain
                    }
                    let value = |line: usize, memo: &mut HashMap<u64, i32>| {
                        -brute(lines | 1 << line, geo.lines, &boxes, memo)
                    };
                    let hard = value(middle, &mut memo);
                    for end in [end1, end2] {
                        let half = value(end, &mut memo);
                        assert!(half <= hard, "{} end {end}: {half} > {hard}", g.fen());
                        worse += usize::from(half < hard);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked > 120 && worse > 40,
        "{checked} checked, {worse} worse"
    );
}
