//! The search over whole turns (`Search turns`): exact where it is
//! exhaustive, and seeing past the opponent's `end` in CTOR.

use agon::game::{Game, GameOptions, GameState, Player};
use agon::games::ctor::{Ctor, CtorOptions};
use agon::games::dots::{Dots, DotsOptions};
use agon::search::turns::TurnSearch;
use agon::search::{Limits, MATE_BOUND};
use agon::tuning::TurnTuning;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Widths that keep every turn: the search is then full minimax over turns.
const EXHAUSTIVE: TurnTuning = TurnTuning {
    root_width: 100_000,
    root_beam: 100_000,
    root_expand: 100_000,
    width: 100_000,
    beam: 100_000,
    expand: 100_000,
    plan_on_clock: 0,
};

/// The result of `position` for its side to move by plain minimax over
/// moves: 1 won, 0 drawn, −1 lost.
fn brute_force<G: Game>(position: &G) -> i32 {
    if let Some(outcome) = position.outcome() {
        return outcome.sign_for(position.side_to_move());
    }
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    moves
        .into_iter()
        .map(|mv| {
            let mut child = position.clone();
            child.play(mv);
            let value = brute_force(&child);
            if child.side_to_move() == position.side_to_move() {
                value
            } else {
                -value
            }
        })
        .max()
        .expect("an unfinished game has a move")
}

/// The sign of a search score: proven win, draw (0) or proven loss.
fn proven_sign(score: i32) -> i32 {
    if score >= MATE_BOUND {
        1
    } else if score <= -MATE_BOUND {
        -1
    } else {
        assert_eq!(score, 0, "an exhaustive search ends with a proven score");
        0
    }
}

/// Dots and Boxes positions with at most `left` undrawn lines, reached by
/// random play from the start.
fn dots_positions(size: &str, left: usize, count: usize) -> Vec<Dots> {
    let mut options = DotsOptions::default();
    options.set("Size", size).expect("a size");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(51);
    let mut found = Vec::new();
    while found.len() < count {
        let mut position = Dots::start(&options);
        let mut moves = Vec::new();
        loop {
            moves.clear();
            position.generate_moves(&mut moves);
            if moves.len() <= left {
                break;
            }
            position.play(moves[rng.random_range(0..moves.len())]);
        }
        if position.outcome().is_none() {
            found.push(position);
        }
    }
    found
}

#[test]
fn an_exhaustive_turn_search_is_exact_where_a_box_gives_another_move() {
    // Dots and Boxes: a completed box gives the mover another move, so
    // turns have one move or several.
    let mut several = 0;
    for position in dots_positions("2x3", 7, 60) {
        let exact = brute_force(&position);
        let limits = Limits::infinite();
        let state = GameState::new(position.clone());
        let result = TurnSearch::new(EXHAUSTIVE, &limits, None).search(&state, &mut |_| {});
        assert_eq!(
            proven_sign(result.score),
            exact,
            "{}: score {}",
            position.fen(),
            result.score
        );
        // The move chosen keeps that result.
        let best = result.best.expect("a move");
        let mut child = position.clone();
        child.play(best);
        let after = match brute_force(&child) {
            v if child.side_to_move() == position.side_to_move() => v,
            v => -v,
        };
        assert_eq!(after, exact, "{}: {best:?} throws it away", position.fen());
        if child.side_to_move() == position.side_to_move() && child.outcome().is_none() {
            several += 1;
        }
    }
    assert!(several > 0, "some chosen moves start a turn of several");
}

/// A CTOR middle game: 30 turns of one to four random operations each
/// from the start, then `x` to move at a turn's start.
fn ctor_middle_game() -> Ctor {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut position = Ctor::start(&CtorOptions::default());
    let end = position.parse_move("end").expect("end");
    let mut moves = Vec::new();
    for _turn in 0..30 {
        for _ in 0..rng.random_range(1..=4) {
            moves.clear();
            position.generate_moves(&mut moves);
            moves.retain(|&m| m != end);
            if moves.is_empty() {
                break;
            }
            position.play(moves[rng.random_range(0..moves.len())]);
        }
        position.play(end);
    }
    if position.side_to_move() == Player::O {
        position.play(end);
    }
    assert!(position.outcome().is_none(), "{}", position.fen());
    position
}

#[test]
fn the_turn_search_line_goes_past_the_opponents_end() {
    let position = ctor_middle_game();
    let state = GameState::new(position.clone());
    let limits = Limits::nodes(20_000);
    let mut reports = Vec::new();
    let result = TurnSearch::new(TurnTuning::DEFAULT, &limits, None)
        .search(&state, &mut |r| reports.push(r.clone()));
    let last = reports.last().expect("a report");
    assert!(last.depth >= 2, "depth {} in 20,000 nodes", last.depth);
    // The line: the turn to play, its `end`, then the opponent's turn.
    let ends: Vec<usize> = (0..last.pv.len())
        .filter(|&i| last.pv[i] == "end")
        .collect();
    assert!(ends.len() >= 2, "{:?}", last.pv);
    let mut replay = position.clone();
    for (ply, text) in last.pv.iter().enumerate() {
        let side = if ply <= ends[0] { Player::X } else { Player::O };
        if ply <= ends[1] {
            assert_eq!(replay.side_to_move(), side, "{text} in {:?}", last.pv);
        }
        let mv = replay.parse_move(text).expect("a move");
        assert!(replay.is_legal(mv), "{text} in {:?}", last.pv);
        replay.play(mv);
    }
    assert_eq!(
        result.best.map(|m| position.move_to_string(m)),
        Some(last.pv[0].clone())
    );
    assert!(result.nodes <= 20_000 + 256, "{} nodes", result.nodes);
}

#[test]
fn landing_hints_are_estimated_from_their_parts() {
    // The batched hints of a middle game: exact for every operation but
    // landings, and a landing's estimate close to its exact value for most.
    let position = ctor_middle_game();
    let end = position.parse_move("end").expect("end");
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    let mut hints = Vec::new();
    position.move_hints(&moves, &mut hints);
    assert_eq!(hints.len(), moves.len());
    let (mut landings, mut close) = (0, 0);
    for (&mv, &hint) in moves.iter().zip(&hints) {
        let exact = position.move_hint(mv);
        if position.move_to_string(mv).contains('@') {
            landings += 1;
            close += usize::from((hint - exact).abs() <= 100);
        } else {
            assert_eq!(hint, exact, "{}", position.move_to_string(mv));
        }
    }
    assert!(landings > 100, "{landings} landings in {}", position.fen());
    assert!(
        close * 10 >= landings * 8,
        "{close} of {landings} within a chip"
    );
    assert!(position.ends_turn(end));
    assert!(moves.iter().all(|&m| m == end || !position.ends_turn(m)));
}
