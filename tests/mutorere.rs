//! Mū Tōrere: rules, notation, end conditions, and the perfect-play table
//! checked against an independent brute-force search.

use agon::game::{Game, GameState, NoOptions, Outcome, Player, Proven, SolveBudget};
use agon::games::mutorere::MuTorere;
use agon::harness::random_play;
use agon::tools::positions::parse_positions;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

fn pos(fen: &str) -> MuTorere {
    MuTorere::from_fen(fen, &NoOptions).expect("valid fen")
}

fn moves_of(g: &MuTorere) -> Vec<String> {
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    let mut out: Vec<String> = moves.iter().map(|&m| g.move_to_string(m)).collect();
    out.sort();
    out
}

fn solve(g: &MuTorere) -> Option<agon::game::Solved<agon::games::mutorere::MtMove>> {
    let stop = AtomicBool::new(false);
    g.solve(&SolveBudget::new(None, &stop))
}

/// Brute force through the public API only: +1 win, 0 draw, -1 loss for
/// the side to move, with the 120-ply rule, memoised on the position string.
fn brute(g: &MuTorere, memo: &mut HashMap<String, i32>) -> i32 {
    if let Some(outcome) = g.outcome() {
        return outcome.sign_for(g.side_to_move());
    }
    let key = g.fen();
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    let v = moves
        .iter()
        .map(|&m| {
            let mut c = g.clone();
            c.play(m);
            -brute(&c, memo)
        })
        .max()
        .unwrap_or(-1);
    memo.insert(key, v);
    v
}

fn sign(value: Proven) -> i32 {
    match value {
        Proven::Win(_) => 1,
        Proven::Loss(_) => -1,
        Proven::Draw => 0,
    }
}

#[test]
fn start_and_first_moves() {
    let g = MuTorere::start(&NoOptions);
    assert_eq!(g.fen(), "xxxxoooo. x 0");
    assert_eq!(moves_of(&g), vec!["1c", "4c"]);
    let c1 = g.parse_move("1c").expect("syntax");
    assert!(g.is_legal(c1));
    let c2 = g.parse_move("2c").expect("syntax");
    assert!(!g.is_legal(c2), "2 has no enemy neighbour");
    let mut g2 = g.clone();
    g2.play(c1);
    assert_eq!(g2.fen(), ".xxxoooox o 1");
    assert_eq!(moves_of(&g2), vec!["81"]);
}

#[test]
fn notation() {
    let g = MuTorere::start(&NoOptions);
    for text in ["1c", "c5", "23", "81", "18", "54"] {
        let mv = g.parse_move(text).expect(text);
        assert_eq!(g.move_to_string(mv), text);
    }
    for bad in [
        "", "1", "1c ", "13", "15", "cc", "11", "C5", "09", "19", "1c2", "x1", "é",
    ] {
        assert!(g.parse_move(bad).is_err(), "'{bad}' accepted");
    }
    for bad in [
        "",
        "xxxxoooo x 0",
        "xxxxoooo.. x 0",
        "xxxxooooo x 0",
        "xxxxxooo. x 0",
        "xxxxoooo. y 0",
        "xxxxoooo. x -1",
        "xxxxoooo. x",
        "xxxxoooo. x 0 0",
        "xxxxoooo_ x 0",
        "xxxxoooo. x 99999999999999999999",
    ] {
        assert!(MuTorere::from_fen(bad, &NoOptions).is_err(), "'{bad}'");
    }
    assert_eq!(pos("oxoxoxo.x o 17").fen(), "oxoxoxo.x o 17");
    assert!(!pos("oxoxoxo.x o 17").diagram().is_empty());
}

#[test]
fn end_conditions() {
    // x to move: the hole is 5; its neighbours 4 and 6 and the centre are o.
    let stuck = pos("xxxo.oxoo x 10");
    assert!(moves_of(&stuck).is_empty());
    assert_eq!(stuck.outcome(), Some(Outcome::Win(Player::O)));
    // At ply 120 a side without a move still loses …
    let stuck120 = pos("xxxo.oxoo x 120");
    assert_eq!(stuck120.outcome(), Some(Outcome::Win(Player::O)));
    // … and one with a move is drawn, with no moves left.
    let drawn = pos("xxxxoooo. x 120");
    assert_eq!(drawn.outcome(), Some(Outcome::Draw));
    assert!(moves_of(&drawn).is_empty());
    assert_eq!(pos("xxxxoooo. x 119").outcome(), None);
    assert_eq!(
        solve(&drawn).map(|s| s.value),
        None,
        "no move to play in a finished game"
    );
}

#[test]
fn third_repetition_is_a_draw() {
    // Random games until one ends by repetition: then the position has
    // occurred exactly three times and the position alone is not finished.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut found = 0;
    for _ in 0..200 {
        let mut state = GameState::new(MuTorere::start(&NoOptions));
        while state.outcome().is_none() {
            let moves = state.legal_moves();
            let mv = moves[rand::RngExt::random_range(&mut rng, 0..moves.len())];
            state.play(mv);
        }
        if state.position.outcome().is_none() {
            assert_eq!(state.outcome(), Some(Outcome::Draw));
            assert_eq!(state.occurrences(), 3);
            found += 1;
        }
    }
    assert!(found > 0);
}

#[test]
fn table_matches_brute_force() {
    let mut memo = HashMap::new();
    for fen in [
        "xxxxoooo. x 0",
        "xxxxoooo. x 100",
        ".xxxoooox o 1",
        "xxx.oooox x 0",
        "xoxoxoxo. x 0",
        "xoxoxoxo. o 0",
        "xxooxxoo. x 3",
        "xxoo.xoox o 50",
        "oxoxoxo.x o 17",
        "x.ooxxoox x 110",
        "xxxoooo.x o 118",
    ] {
        let g = pos(fen);
        let expected = brute(&g, &mut memo);
        match solve(&g) {
            Some(s) => {
                assert_eq!(sign(s.value), expected, "{fen}");
                let mut c = g.clone();
                c.play(s.best);
                assert_eq!(-brute(&c, &mut memo), expected, "best move of {fen}");
            }
            None => assert!(g.outcome().is_some()),
        }
    }
    assert_eq!(sign(solve(&pos("xxxxoooo. x 0")).expect("s").value), 0);
}

#[test]
fn table_sign_matches_brute_force_everywhere() {
    // Every valid position at a few ply counts.
    let mut memo = HashMap::new();
    let mut checked = 0;
    for hole in 0..9 {
        for mask in 0u32..256 {
            if mask.count_ones() != 4 {
                continue;
            }
            let mut board = String::new();
            let mut k = 0;
            for p in 0..9 {
                if p == hole {
                    board.push('.');
                } else {
                    board.push(if mask >> k & 1 == 1 { 'x' } else { 'o' });
                    k += 1;
                }
            }
            for side in ["x", "o"] {
                for ply in [0, 90, 117] {
                    let g = pos(&format!("{board} {side} {ply}"));
                    if g.outcome().is_some() {
                        continue;
                    }
                    let s = solve(&g).expect("solved");
                    assert_eq!(sign(s.value), brute(&g, &mut memo), "{}", g.fen());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000);
}

#[test]
fn solver_never_loses_and_wins_what_it_can() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let starts = [
        "xxxxoooo. x 0",
        "xxx.oooox x 0",
        "xoxoxoxo. x 0",
        "oxxxxooo. o 0",
        "x.ooxxoox x 0",
    ];
    for fen in starts {
        for game in 0..40 {
            let start = pos(fen);
            let solver_side = if game % 2 == 0 { Player::X } else { Player::O };
            let mut state = GameState::new(start.clone());
            let mut value_for_solver = None;
            while state.outcome().is_none() {
                let g = state.position.clone();
                let mv = if g.side_to_move() == solver_side {
                    let s = solve(&g).expect("solved");
                    value_for_solver.get_or_insert(sign(s.value));
                    s.best
                } else {
                    let mut moves = Vec::new();
                    g.generate_moves(&mut moves);
                    moves[rand::RngExt::random_range(&mut rng, 0..moves.len())]
                };
                state.play(mv);
            }
            let result = state.outcome().expect("over").sign_for(solver_side);
            // Never worse than the value at the solver's first turn.
            if let Some(v) = value_for_solver {
                assert!(result >= v, "{fen}: solver got {result}, value {v}");
            }
        }
    }
    // Solver against solver from the start: a draw.
    let mut state = GameState::new(MuTorere::start(&NoOptions));
    while state.outcome().is_none() {
        let s = solve(&state.position).expect("solved");
        state.play(s.best);
    }
    assert_eq!(state.outcome(), Some(Outcome::Draw));
}

#[test]
fn winning_positions_are_won_fast() {
    let g = pos("xxx.oooox x 0");
    let s = solve(&g).expect("solved");
    assert_eq!(s.value, Proven::Win(Some(1)));
    assert_eq!(g.move_to_string(s.best), "34");
    assert!(g.evaluate() > 0);
    let lost = pos("xxx.oooox x 0");
    let mut after = lost.clone();
    after.play(s.best);
    assert_eq!(after.outcome(), Some(Outcome::Win(Player::X)));
    assert!(after.evaluate() < 0);
}

#[test]
fn random_play_invariants() {
    let start = MuTorere::start(&NoOptions);
    let stats = random_play(&start, &NoOptions, 3000, 121, 11);
    assert_eq!(stats.games, 3000);
    assert!(stats.wins_x > 0 && stats.wins_o > 0);
    assert!(stats.repetitions > 0);
    let other = pos("xoxoxoxo. x 0");
    random_play(&other, &NoOptions, 1000, 121, 12);
}

#[test]
fn ply_limit_turns_a_late_win_into_a_draw() {
    let s = solve(&pos("xxxooox.o x 115")).expect("solved");
    assert_eq!(s.value, Proven::Win(Some(5)));
    let s = solve(&pos("xxxooox.o x 116")).expect("solved");
    assert_eq!(s.value, Proven::Draw);
    let mut memo = HashMap::new();
    assert_eq!(brute(&pos("xxxooox.o x 115"), &mut memo), 1);
    assert_eq!(brute(&pos("xxxooox.o x 116"), &mut memo), 0);
}

#[test]
fn positions_file_answers() {
    let text = include_str!("../positions/mutorere.txt");
    let mut count = 0;
    for line in parse_positions(text) {
        let line = line.expect("well-formed suite line");
        let g = pos(&line.fen);
        let operand = |opcode: &str| line.operation(opcode).map(|words| words.join(" "));
        let want_value = operand("value");
        let (value, best) = agon::games::mutorere::optimal_moves(&g);
        let mut best: Vec<String> = best.iter().map(|&m| g.move_to_string(m)).collect();
        best.sort();
        let mut want: Vec<String> = line.operation("bm").expect("bm").to_vec();
        want.sort();
        assert_eq!(best, want, "{}", line.fen);
        let text = match value {
            Proven::Win(Some(n)) => format!("win {n}"),
            Proven::Loss(Some(n)) => format!("loss {n}"),
            _ => "draw".to_string(),
        };
        assert_eq!(Some(text), want_value, "{}", line.fen);
        count += 1;
    }
    assert!(count >= 10);
}

#[test]
fn solve_tool_output() {
    let mut out = Vec::new();
    agon::tools::solve::run("mutorere", None, &[], Default::default(), false, &mut out)
        .expect("solved");
    assert_eq!(String::from_utf8_lossy(&out), "value draw\nbest 1c 4c\n");
    let mut out = Vec::new();
    agon::tools::solve::run(
        "mutorere",
        Some("xxx.oooox x 0"),
        &[],
        Default::default(),
        false,
        &mut out,
    )
    .expect("solved");
    assert_eq!(
        String::from_utf8_lossy(&out),
        "value win\nplies 1\nbest 34\n"
    );
    let mut out = Vec::new();
    assert!(
        agon::tools::solve::run(
            "mutorere",
            Some("bad"),
            &[],
            Default::default(),
            false,
            &mut out
        )
        .is_err()
    );
    assert!(
        agon::tools::solve::run("nim", None, &[], Default::default(), false, &mut out).is_err()
    );
}
