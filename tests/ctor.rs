//! CTOR: notation, torus neighbourhoods, budgets, replacements, every end
//! condition and random-play invariants.

mod common;

use agon::game::{Game, GameOptions, GameState, Outcome, Player};
use agon::games::ctor::{Budget, Ctor, CtorMove, CtorOptions, budget};
use agon::harness::random_play;
use agon::search::perft::perft;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn opts(size: u8, team: u8) -> CtorOptions {
    CtorOptions::new(size, team)
}

fn pos(fen: &str) -> Ctor {
    pos_team(fen, 1)
}

fn pos_team(fen: &str, team: u8) -> Ctor {
    Ctor::from_fen(fen, &opts(8, team)).unwrap_or_else(|e| panic!("bad fen '{fen}': {e}"))
}

/// Board field from a grid of `.`, `x`, `o` given as `(square, char)`
/// pairs on an empty `n`×`n` board (squares 1-based).
fn board(n: usize, cells: &[(usize, char)]) -> String {
    let mut grid = vec!['.'; n * n];
    for &(sq, c) in cells {
        grid[sq - 1] = c;
    }
    let rows: Vec<String> = grid
        .chunks(n)
        .map(|row| {
            let mut out = String::new();
            let mut run = 0;
            for &c in row {
                if c == '.' {
                    run += 1;
                    continue;
                }
                if run > 0 {
                    out.push_str(&run.to_string());
                    run = 0;
                }
                out.push(c);
            }
            if run > 0 {
                out.push_str(&run.to_string());
            }
            out
        })
        .collect();
    rows.join("/")
}

fn moves(c: &Ctor) -> Vec<String> {
    let mut list = Vec::new();
    c.generate_moves(&mut list);
    list.iter().map(|&m| c.move_to_string(m)).collect()
}

fn play(c: &mut Ctor, text: &str) {
    let mv = c.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(c.is_legal(mv), "{text} should be legal in {}", c.fen());
    c.play(mv);
}

fn legal(c: &Ctor, text: &str) -> bool {
    c.parse_move(text).is_ok_and(|m| c.is_legal(m))
}

#[test]
fn options_and_start_positions() {
    let mut o = CtorOptions::default();
    assert_eq!(Ctor::start(&o).fen(), "8/8/8/8/8/8/8/8 x 1 0/0/0/0 0");
    o.set("size", "10").unwrap();
    o.set("TEAM", "3").unwrap();
    assert_eq!(o, opts(10, 3));
    assert_eq!(
        Ctor::start(&o).fen(),
        "10/10/10/10/10/10/10/10/10/10 x 1 0/0/0/0 0"
    );
    for (name, value) in [("Size", "9"), ("Team", "0"), ("Team", "4"), ("Colour", "x")] {
        assert!(o.set(name, value).is_err(), "{name}={value}");
    }
    assert_eq!(o, opts(10, 3));
    // A size written in the position wins over the option.
    let eight = Ctor::from_fen("8/8/8/8/8/8/8/8 o 4 1/0/0/0 0", &o).unwrap();
    assert_eq!(eight.size(), 8);
}

#[test]
fn notation_round_trips() {
    for fen in [
        "8/8/8/8/8/8/8/8 x 1 0/0/0/0 0",
        "x6o/8/2xx4/8/8/8/8/o6x o 7 2/1/1/3 0",
        "10/x9/9o/10/10/10/10/10/10/o8x x 12 0/2/0/0 1",
    ] {
        let c = Ctor::from_fen(fen, &CtorOptions::default()).unwrap();
        assert_eq!(c.fen(), fen);
    }
    let c = Ctor::start(&CtorOptions::default());
    for text in ["1", "64", "28-29", "1-8", "1-57", "12+27@23", "x31", "end"] {
        let mv = c.parse_move(text).unwrap();
        assert_eq!(c.move_to_string(mv), text);
    }
    // Landings read in either order, written smaller first.
    let mv = c.parse_move("27+12@23").unwrap();
    assert_eq!(mv, CtorMove::Land(11, 26, 22));
    assert_eq!(c.move_to_string(mv), "12+27@23");
}

#[test]
fn malformed_input_is_rejected() {
    let o = CtorOptions::default();
    for fen in [
        "",
        "8/8/8/8/8/8/8 x 1 0/0/0/0 0",
        "9/9/9/9/9/9/9/9/9 x 1 0/0/0/0 0",
        "8/8/8/8/8/8/8/7 x 1 0/0/0/0 0",
        "8/8/8/8/8/8/8/9 x 1 0/0/0/0 0",
        "8/8/8/8/8/8/8/8 z 1 0/0/0/0 0",
        "8/8/8/8/8/8/8/8 x 0 0/0/0/0 0",
        "8/8/8/8/8/8/8/8 x 1 0/0/0 0",
        "8/8/8/8/8/8/8/8 x 1 2/0/0/0 0",
        "8/8/8/8/8/8/8/8 x 1 0/1/0/0 0",
        "8/8/8/8/8/8/8/8 x 5 0/0/2/0 0",
        "8/8/8/8/8/8/8/8 x 5 0/0/0/0 3",
        "8/8/8/8/8/8/8/8 x 5 0/0/0/0 -1",
        "8/8/8/8/8/8/8/7q x 5 0/0/0/0 0",
        "8/8/8/8/8/8/8/8 x 5 0/0/0/0 0 extra",
        "8/8/8/8/8/8/8/99999999999999 x 5 0/0/0/0 0",
    ] {
        assert!(Ctor::from_fen(fen, &o).is_err(), "accepted '{fen}'");
    }
    // Team 2 has no landings.
    assert!(Ctor::from_fen("8/8/8/8/8/8/8/8 x 5 0/0/1/0 0", &opts(8, 2)).is_err());
    let c = Ctor::start(&o);
    for text in [
        "", "0", "65", "-1", "1-", "1-3", "1-10", "x", "x0", "x65", "1+1@2", "1+2@2", "1+2",
        "1+2@", "+2@3", "@3", "END", "e2", "1.5", "é",
    ] {
        assert!(c.parse_move(text).is_err(), "accepted '{text}'");
    }
}

#[test]
fn perft_counts() {
    let start = Ctor::start(&CtorOptions::default());
    assert_eq!(perft(&start, 1), Ok(65));
    // A placement uses turn 1's budget: only `end` remains.
    assert_eq!(perft(&start, 2), Ok(64 + 65));
    // After an empty first turn, a second empty turn ends the game.
    assert_eq!(perft(&start, 3), Ok(64 * 64 + 64 * 64));
    let ten = Ctor::start(&opts(10, 1));
    assert_eq!(perft(&ten, 1), Ok(101));
    assert_eq!(perft(&ten, 2), Ok(100 + 101));
    // Mid-game: x has chips at 1 and 10, o at 64; turn 5 with full budgets.
    let c = pos(&format!(
        "{} x 5 0/0/0/0 0",
        board(8, &[(1, 'x'), (10, 'x'), (64, 'o')])
    ));
    // 61 placements + movements (1: 2, 8, 9, 57; 10: 2, 9, 11, 18) + end
    // + landings 1 pair × 61 empties.
    assert_eq!(perft(&c, 1), Ok(61 + 8 + 1 + 61));
    assert_eq!(c.count_moves(), moves(&c).len() as u64);
}

#[test]
fn torus_neighbours_and_replacement() {
    // Square 1's eight neighbours wrap round: 2, 8, 9, 10, 16, 57, 58, 64.
    let around = [2, 8, 9, 10, 16, 57, 58, 64];
    for count in 0..=8 {
        let mut cells: Vec<(usize, char)> = around[..count].iter().map(|&s| (s, 'x')).collect();
        cells.push((1, 'o'));
        let c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &cells)));
        assert_eq!(legal(&c, "x1"), count >= 5, "{count} neighbours");
        assert_eq!(moves(&c).contains(&"x1".to_string()), count >= 5);
    }
    // Exactly 5 on the far side: 64, 57, 8, 16, 58.
    let cells = [
        (1, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let mut c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &cells)));
    play(&mut c, "x1");
    assert_eq!(c.chip_count(Player::X), 6);
    assert_eq!(c.chip_count(Player::O), 0);
    assert!(c.fen().ends_with(" 0/0/0/1 0"), "{}", c.fen());
    // 4 neighbours: not replaceable, and not by the other side either.
    let cells = [(1, 'o'), (64, 'x'), (57, 'x'), (8, 'x'), (16, 'x')];
    let c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &cells)));
    assert!(!legal(&c, "x1"));
    // 10×10: square 100's neighbours include 1, 10, 91 and 99.
    let cells = [
        (100, 'o'),
        (1, 'x'),
        (10, 'x'),
        (91, 'x'),
        (99, 'x'),
        (90, 'x'),
    ];
    let c = Ctor::from_fen(
        &format!("{} x 5 0/0/0/0 0", board(10, &cells)),
        &opts(10, 1),
    )
    .unwrap();
    assert!(legal(&c, "x100"));
    // Movements wrap too.
    let c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &[(1, 'x')])));
    for text in ["1-2", "1-8", "1-9", "1-57"] {
        assert!(legal(&c, text), "{text}");
    }
    assert!(c.parse_move("1-10").is_err());
    // A replacement works after the budgets are spent, and in the opening.
    let cells = [
        (1, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let c = pos(&format!("{} x 5 2/2/1/0 0", board(8, &cells)));
    assert_eq!(moves(&c), ["x1", "end"]);
    let c = pos(&format!("{} x 1 1/0/0/0 0", board(8, &cells)));
    assert_eq!(moves(&c), ["x1", "end"]);
}

#[test]
fn budgets_for_every_team() {
    let b = |place, moves, land| Budget { place, moves, land };
    for team in 1..=3 {
        assert_eq!(budget(team, 1), b(1, 0, 0));
        assert_eq!(budget(team, 2), b(2, 0, 0));
    }
    assert_eq!(budget(1, 3), b(2, 2, 1));
    assert_eq!(budget(2, 3), b(2, 2, 0));
    assert_eq!(budget(3, 3), b(3, 0, 0));
    assert_eq!(budget(3, 4), b(3, 3, 0));
    assert_eq!(budget(1, 99), b(2, 2, 1));
    assert_eq!(budget(2, 99), b(2, 2, 0));

    // Spend a team-1 turn in play: 2 placements, 2 movements, 1 landing.
    let fen = format!("{} x 7 0/0/0/0 0", board(8, &[(20, 'x'), (40, 'o')]));
    let mut c = pos(&fen);
    play(&mut c, "1");
    play(&mut c, "1-2");
    play(&mut c, "2-3");
    assert!(!legal(&c, "3-4"), "third movement");
    play(&mut c, "64");
    assert!(!legal(&c, "63"), "third placement");
    play(&mut c, "3+20@30");
    assert!(!legal(&c, "30+64@31"), "second landing");
    assert_eq!(moves(&c), ["end"]);
    assert_eq!(c.fen().split(' ').nth(3), Some("2/2/1/0"));
    play(&mut c, "end");
    assert_eq!(c.side_to_move(), Player::O);
    assert!(c.fen().ends_with(" o 8 0/0/0/0 0"), "{}", c.fen());
    // The same chip may move twice and a chip placed this turn may move
    // (checked above); landings need two own chips.
    let c = pos(&format!(
        "{} x 7 0/0/0/0 0",
        board(8, &[(20, 'x'), (40, 'o')])
    ));
    assert!(!legal(&c, "20+40@30"));

    // Team 2 never lands; team 3 places three in turn 3 without moving.
    let fen = format!("{} x 7 0/0/0/0 0", board(8, &[(20, 'x'), (21, 'x')]));
    let c = pos_team(&fen, 2);
    assert!(!legal(&c, "20+21@30"));
    assert!(legal(&c, "20-12"));
    let mut c = pos_team(&format!("{} x 3 0/0/0/0 0", board(8, &[(20, 'x')])), 3);
    assert!(!legal(&c, "20-12"));
    for sq in ["1", "2", "3"] {
        play(&mut c, sq);
    }
    assert_eq!(moves(&c), ["end"]);
    let mut c = pos_team(&format!("{} x 4 0/0/0/0 0", board(8, &[(20, 'x')])), 3);
    for op in ["1", "2", "3", "20-12", "12-4", "4-5"] {
        play(&mut c, op);
    }
    assert_eq!(moves(&c), ["end"]);

    // Opening ramp in play: x places 1, o places 2, then the table.
    let mut c = Ctor::start(&CtorOptions::default());
    play(&mut c, "1");
    assert_eq!(moves(&c), ["end"]);
    play(&mut c, "end");
    play(&mut c, "2");
    play(&mut c, "3");
    assert_eq!(moves(&c), ["end"]);
    play(&mut c, "end");
    assert_eq!(c.budget(), budget(1, 3));
    assert!(legal(&c, "1-9"));
}

#[test]
fn end_conditions() {
    // Board full in the middle of a turn: decided at once, by count.
    let mut cells: Vec<(usize, char)> = (1..64)
        .map(|s| (s, if s % 2 == 0 { 'x' } else { 'o' }))
        .collect();
    cells.retain(|&(s, _)| s != 64);
    let mut c = pos(&format!("{} x 9 0/0/0/0 0", board(8, &cells)));
    assert_eq!(c.outcome(), None);
    play(&mut c, "64");
    assert_eq!(c.outcome(), Some(Outcome::Draw), "32 each");
    assert!(moves(&c).is_empty(), "no move, not even end");
    let mut c = pos(&format!("{} o 9 0/0/0/0 0", board(8, &cells)));
    play(&mut c, "64");
    assert_eq!(c.outcome(), Some(Outcome::Win(Player::O)));

    // Two empty turns in a row.
    let fen = format!(
        "{} x 9 0/0/0/0 0",
        board(8, &[(5, 'x'), (6, 'x'), (7, 'o')])
    );
    let mut c = pos(&fen);
    play(&mut c, "end");
    assert!(c.fen().ends_with(" 1"));
    assert_eq!(c.outcome(), None);
    play(&mut c, "end");
    assert_eq!(c.outcome(), Some(Outcome::Win(Player::X)));
    assert!(moves(&c).is_empty());
    // The empty start position twice passed: a finished 0–0 draw.
    let c = pos("8/8/8/8/8/8/8/8 x 3 0/0/0/0 2");
    assert_eq!(c.outcome(), Some(Outcome::Draw));
    assert!(moves(&c).is_empty());
    // Any operation, a replacement included, resets the counter.
    let cells = [
        (1, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let mut c = pos(&format!("{} x 5 0/0/0/0 1", board(8, &cells)));
    play(&mut c, "x1");
    play(&mut c, "end");
    assert!(c.fen().ends_with(" 0"), "{}", c.fen());
    // A side with no chips is not lost.
    let c = pos(&format!("{} x 9 0/0/0/0 0", board(8, &[(7, 'o')])));
    assert_eq!(c.outcome(), None);
    assert!(legal(&c, "1"));
}

#[test]
fn third_occurrence_at_turn_start() {
    let fen = format!(
        "{} x 9 0/0/0/0 0",
        board(8, &[(20, 'x'), (30, 'x'), (44, 'o')])
    );
    let start = pos(&fen);
    assert!(start.repetition_key().is_some());
    let mut state = GameState::new(start);
    let cycle = [
        "20-21", "end", "44-45", "end", "21-20", "end", "45-44", "end",
    ];
    let mut plies = 0;
    for text in cycle.iter().cycle() {
        if state.outcome().is_some() {
            break;
        }
        let mv = state.position.parse_move(text).unwrap();
        assert!(state.position.is_legal(mv), "{text}");
        // Mid-turn positions carry no repetition key.
        state.play(mv);
        if *text != "end" {
            assert_eq!(state.position.repetition_key(), None);
        }
        plies += 1;
    }
    // The start occurs again after 8 and 16 plies: the third occurrence.
    assert_eq!(plies, 16);
    assert_eq!(state.occurrences(), 3);
    assert_eq!(state.outcome(), Some(Outcome::Win(Player::X)));
    assert_eq!(state.position.outcome(), None);
}

#[test]
fn baseline_is_greedy() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    // A replacement is taken first.
    let cells = [
        (1, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &cells)));
    assert_eq!(c.baseline_move(&mut rng), Some(CtorMove::Replace(0)));
    // With 4 around, the placement that completes the fifth wins two more
    // chips than any other: 2, 9 or 10.
    let cells = [(1, 'o'), (64, 'x'), (57, 'x'), (8, 'x'), (16, 'x')];
    let c = pos(&format!("{} x 5 0/0/0/0 0", board(8, &cells)));
    for _ in 0..10 {
        let mv = c.baseline_move(&mut rng).unwrap();
        assert!(
            ["2", "9", "10", "58"].contains(&c.move_to_string(mv).as_str()),
            "{mv:?}"
        );
    }
    // Placements always gain; after them movements that gain nothing are
    // skipped and the turn ends.
    let c = pos(&format!(
        "{} x 5 2/0/0/0 0",
        board(8, &[(20, 'x'), (40, 'o')])
    ));
    assert_eq!(c.baseline_move(&mut rng), Some(CtorMove::End));
}

#[test]
fn evaluation_sees_chips_and_threats() {
    let even = pos(&format!(
        "{} x 9 0/0/0/0 0",
        board(8, &[(20, 'x'), (40, 'o')])
    ));
    let up = pos(&format!(
        "{} x 9 0/0/0/0 0",
        board(8, &[(20, 'x'), (21, 'x'), (40, 'o')])
    ));
    assert!(up.evaluate() > even.evaluate() + 50);
    // A chip x can replace right now is worth more than a plain extra chip.
    let cells = [
        (1, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let threat = pos(&format!("{} x 9 2/2/1/0 0", board(8, &cells)));
    let cells = [
        (33, 'o'),
        (64, 'x'),
        (57, 'x'),
        (8, 'x'),
        (16, 'x'),
        (58, 'x'),
    ];
    let calm = pos(&format!("{} x 9 2/2/1/0 0", board(8, &cells)));
    assert!(threat.evaluate() > calm.evaluate() + 100);
}

/// An enemy chip one short of replacement, beside an empty square, counts
/// as nearly taken while a placement is left in the turn (one placement
/// completes it), and only as a threat once none is left.
#[test]
fn a_near_take_counts_while_a_placement_is_left() {
    let x_around_corner = [(64, 'x'), (57, 'x'), (8, 'x'), (16, 'x')];
    let with_o_at = |o: usize, counters: &str| {
        let mut cells = x_around_corner.to_vec();
        cells.push((o, 'o'));
        pos(&format!("{} x 9 {counters} 0", board(8, &cells)))
    };
    let gain = |o: usize| with_o_at(o, "0/0/0/0").evaluate() - with_o_at(o, "2/2/1/0").evaluate();
    // Square 1 has the four x chips around it (and empty squares), 36 none.
    assert_eq!(gain(1), gain(36) + 120);
}

/// The tempo is consistent across `end`: on a board with no threats, a
/// side that has made every placement it may scores the position as the
/// opponent, to move with a fresh turn, scores it negated. (Counting only
/// the placements left, an `end` cost a whole turn of the opponent's
/// placements, and the search put it off at its horizon.)
#[test]
fn ending_a_spent_turn_changes_no_score() {
    let cells = [(10, 'x'), (11, 'x'), (45, 'o'), (53, 'o')];
    for team in 1..=3u8 {
        let full = budget(team, 9);
        let counters = format!("{}/{}/{}/0", full.place, full.moves, full.land);
        let fen = format!("{} x 9 {counters} 0", board(8, &cells));
        let spent = pos_team(&fen, team);
        let mut passed = spent.clone();
        play(&mut passed, "end");
        assert_eq!(passed.side_to_move(), Player::O);
        assert_eq!(
            spent.evaluate(),
            -passed.evaluate(),
            "team {team}: {fen} and after end"
        );
        // Each placement still to make is worth the same, before and after.
        let fresh = pos_team(&format!("{} x 9 0/0/0/0 0", board(8, &cells)), team);
        assert_eq!(
            fresh.evaluate() - spent.evaluate(),
            90 * full.place as i32,
            "team {team}"
        );
    }
}

#[test]
fn random_play_invariants() {
    // Team 1 positions have thousands of landings each, which the harness
    // checks one by one (strings, parsing, sorting), so only a few full
    // harness games there; `light_random_games` covers many more.
    let runs: [(u8, u8, usize); 5] = [
        (8, 1, 4),
        (8, 2, 200),
        (10, 2, 40),
        (8, 3, 200),
        (10, 3, 40),
    ];
    for (size, team, games) in runs {
        let o = opts(size, team);
        let seed = 11 + size as u64 + team as u64;
        let stats = random_play(&Ctor::start(&o), &o, games, 5000, seed);
        assert_eq!(stats.games, games);
        assert!(stats.repeated_turns > 0);
    }
}

/// Random games (uniform over the legal moves, as the harness plays) that
/// check the cheap invariants at every position and the notation of a
/// sample of the moves.
fn light_random_games(o: CtorOptions, games: usize, seed: u64) -> usize {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut list = Vec::new();
    let mut landings = 0;
    for _ in 0..games {
        let mut state = GameState::new(Ctor::start(&o));
        for ply in 0.. {
            let c = &state.position;
            assert!(ply < 5000, "game too long at {}", c.fen());
            assert_eq!(c.hash(), c.hash_from_scratch(), "{}", c.fen());
            let reread = Ctor::from_fen(&c.fen(), &o).unwrap();
            assert_eq!(reread.fen(), c.fen());
            assert_eq!(reread.hash(), c.hash());
            c.generate_moves(&mut list);
            assert_eq!(c.count_moves(), list.len() as u64, "{}", c.fen());
            assert_eq!(c.outcome().is_some(), list.is_empty(), "{}", c.fen());
            if state.outcome().is_some() {
                break;
            }
            for &mv in list.iter().step_by(53) {
                let text = c.move_to_string(mv);
                assert_eq!(c.parse_move(&text), Ok(mv), "{text} at {}", c.fen());
                assert!(c.is_legal(mv), "{text} at {}", c.fen());
            }
            let mv = list[rand::RngExt::random_range(&mut rng, 0..list.len())];
            landings += usize::from(matches!(mv, CtorMove::Land(..)));
            state.play(mv);
        }
    }
    landings
}

#[test]
fn light_random_play_team_one() {
    assert!(light_random_games(opts(8, 1), 150, 5) > 0);
    assert!(light_random_games(opts(10, 1), 40, 6) > 0);
}

#[test]
fn positions_file_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/ctor.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut count = 0;
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut parts = line.split(';').map(str::trim);
        let c = Ctor::from_fen(parts.next().unwrap(), &CtorOptions::default()).unwrap();
        assert_eq!(c.outcome(), None, "{line}");
        for part in parts {
            if let Some(best) = part.strip_prefix("bm ") {
                for mv in best.split_whitespace() {
                    assert!(legal(&c, mv), "{mv} in {line}");
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
    let alphabet: Vec<char> = "x+@-/0123456789eno é".chars().collect();
    let start = Ctor::start(&CtorOptions::default());
    for _ in 0..20_000 {
        let len = rand::RngExt::random_range(&mut rng, 0..12);
        let text: String = (0..len)
            .map(|_| alphabet[rand::RngExt::random_range(&mut rng, 0..alphabet.len())])
            .collect();
        if let Ok(mv) = start.parse_move(&text) {
            let _ = start.is_legal(mv);
            let _ = start.move_to_string(mv);
        }
        let fen = format!("{text}/8/8/8/8/8/8/8 x 3 0/0/0/0 0");
        if let Ok(c) = Ctor::from_fen(&fen, &CtorOptions::default()) {
            assert_eq!(pos(&c.fen()).fen(), c.fen());
        }
        let fen = format!("8/8/8/8/8/8/8/8 x {text} 0");
        let _ = Ctor::from_fen(&fen, &CtorOptions::default());
    }
}

#[test]
fn the_clock_is_planned_per_turn() {
    use agon::search::time::{GoParams, TurnShape};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    // Turn 5 of a 1-player team: 2 placements, 2 movements, 1 landing and
    // `end`. The plan used to be made per operation, so a 10+0 game lost on
    // time (a 5-operation turn spent 7.4 s of its clock).
    let fresh = pos("8/1o1o4/8/x7/8/o2x4/8/8 x 5 0/0/0/0 0");
    assert_eq!(fresh.moves_in_turn(), 6);
    let mut placed = fresh.clone();
    placed.play(CtorMove::Place(0));
    assert_eq!(
        placed.moves_in_turn(),
        6,
        "an even share for every operation"
    );
    let go = GoParams {
        time: [Some(10_000), Some(10_000)],
        ..GoParams::default()
    };
    let soft = |p: &Ctor| {
        let limits = go.limits(
            TurnShape::of(p),
            0,
            &agon::tuning::TimeTuning::DEFAULT,
            Arc::new(AtomicBool::new(false)),
        );
        limits.soft_deadline.map(|d| (d - limits.start).as_millis())
    };
    assert_eq!(
        soft(&fresh),
        Some(333 / 6),
        "a turn's plan over six operations"
    );
    // Only `end` left (turn 1 places one chip): answered at once.
    let mut first = Ctor::start(&opts(8, 1));
    first.play(CtorMove::Place(9));
    assert_eq!(first.count_moves(), 1);
    assert_eq!(soft(&first), Some(1));
}

/// CTOR's network inputs read from the position string, the slow way (the
/// layout of `src/games/ctor/features.rs`): for every square its occupant
/// from the side to move's view and its neighbours of each side on the
/// torus; squares per state as a thermometer; then the turn's inputs.
fn network_inputs_from_text(position: &Ctor, team: u8) -> Vec<u16> {
    const LEVELS: [usize; 13] = [1, 2, 3, 4, 6, 8, 11, 15, 20, 27, 36, 48, 64];
    let fen = position.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let mover = fields[1].chars().next().expect("side");
    let n = position.size();
    // Rows come bottom first here; on the torus that changes no count.
    let cells: Vec<char> = common::board_from_text(fields[0], n, n).concat();
    let digit = |c: char| common::side_digit(c, mover);
    let mut squares_in_state = [0usize; 135];
    for r in 0..n {
        for f in 0..n {
            let (mut ours, mut theirs) = (0, 0);
            for dr in [n - 1, 0, 1] {
                for df in [n - 1, 0, 1] {
                    if (dr, df) == (0, 0) {
                        continue;
                    }
                    match digit(cells[(r + dr) % n * n + (f + df) % n]) {
                        1 => ours += 1,
                        2 => theirs += 1,
                        _ => {}
                    }
                }
            }
            let pair: usize = (0..ours).map(|o| 9 - o).sum::<usize>() + theirs;
            squares_in_state[digit(cells[r * n + f]) * 45 + pair] += 1;
        }
    }
    let mut inputs = Vec::new();
    for (state, &count) in squares_in_state.iter().enumerate() {
        for (level, &threshold) in LEVELS.iter().enumerate() {
            if count >= threshold {
                inputs.push((state * LEVELS.len() + level) as u16);
            }
        }
    }
    let turn: u32 = fields[2].parse().expect("turn");
    let done: Vec<u8> = fields[3]
        .split('/')
        .map(|c| c.parse().expect("counter"))
        .collect();
    let allowed = budget(team, turn);
    let left = |allowed: u8, used: u8| allowed.saturating_sub(used).min(3) as usize;
    let base = 135 * LEVELS.len();
    inputs.push((base + left(allowed.place, done[0])) as u16);
    inputs.push((base + 4 + left(allowed.moves, done[1])) as u16);
    inputs.push((base + 8 + left(allowed.land, done[2]).min(1)) as u16);
    inputs.push((base + 10 + turn.clamp(1, 4) as usize - 1) as u16);
    let empty: usize = fields[4].parse().expect("empty");
    inputs.push((base + 14 + empty.min(1)) as u16);
    if n == 10 {
        inputs.push((base + 16) as u16);
    }
    inputs.push((base + 17 + team as usize - 1) as u16);
    inputs
}

#[test]
fn network_inputs_are_square_states_and_the_turns_budget() {
    assert_eq!(Ctor::learned().map(|l| l.inputs()), Some(135 * 13 + 20));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut checked = 0;
    for (size, team) in [(8, 1), (10, 1), (8, 3)] {
        let start = Ctor::start(&opts(size, team));
        checked += common::check_inputs_in_random_games(&start, 12, 160, &mut rng, |position| {
            network_inputs_from_text(position, team)
        });
    }
    assert!(checked > 1000, "{checked} positions");
}

#[test]
fn the_embedded_network_loads_and_judges_chips() {
    let network = common::shipped_network::<Ctor>();
    let eval = |fen: &str, size: u8| {
        let position = Ctor::from_fen(fen, &opts(size, 1)).expect("valid position");
        common::network_score(&network, &position)
    };
    // Sixteen chips against two, at the start of a turn, on both sizes.
    let ahead = eval("xxxx4/xxxx4/xxxx4/xxxx4/8/8/8/o6o x 20 0/0/0/0 0", 8);
    let behind = eval("xxxx4/xxxx4/xxxx4/xxxx4/8/8/8/o6o o 20 0/0/0/0 0", 8);
    assert!(
        ahead > 300 && behind < -300,
        "ahead {ahead}, behind {behind}"
    );
    let ahead = eval(
        "xxxx6/xxxx6/xxxx6/xxxx6/10/10/10/10/10/o8o x 20 0/0/0/0 0",
        10,
    );
    let behind = eval(
        "xxxx6/xxxx6/xxxx6/xxxx6/10/10/10/10/10/o8o o 20 0/0/0/0 0",
        10,
    );
    assert!(
        ahead > 300 && behind < -300,
        "ahead {ahead}, behind {behind}"
    );
}
