//! Checks that run on every registered game alike: the random-play
//! invariants, the searches, and a whole game played through the protocol.

use agon::game::Game;
use agon::games::{GAME_NAMES, GameVisitor, visit_game};
use agon::harness::random_play;
use agon::protocol::engine::{Engine, Flow};
use agon::protocol::output::Output;
use agon::search::Limits;
use agon::search::alphabeta::AlphaBeta;
use agon::tools::bench::bench_positions;
use std::time::{Duration, Instant};

#[test]
fn registry_names_are_unique_and_ataxx_is_the_default_when_present() {
    let mut names = GAME_NAMES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), GAME_NAMES.len());
    if GAME_NAMES.contains(&"ataxx") {
        assert_eq!(GAME_NAMES[0], "ataxx");
    }
    assert!(visit_game("chess", RandomPlay).is_err());
}

struct RandomPlay;

impl GameVisitor for RandomPlay {
    type Output = ();
    fn visit<G: Game>(self) {
        let options = G::Options::default();
        let start = G::start(&options);
        let stats = random_play(&start, &options, 20, 5_000, 11);
        assert_eq!(stats.games, 20, "{}", G::NAME);
    }
}

#[test]
fn every_game_keeps_its_invariants_in_random_play() {
    for name in GAME_NAMES {
        visit_game(name, RandomPlay).expect("registered");
    }
}

struct SearchesAnswer;

impl GameVisitor for SearchesAnswer {
    type Output = ();
    fn visit<G: Game>(self) {
        for state in bench_positions::<G>() {
            let mut search = AlphaBeta::<G>::new(1).unwrap();
            let result = search.search(&state, &Limits::nodes(2_000), &mut |_| {});
            let best = result.best.expect("a legal move exists");
            assert!(
                state.position.is_legal(best),
                "{}: {}",
                G::NAME,
                state.position.fen()
            );
            let again =
                AlphaBeta::<G>::new(1)
                    .unwrap()
                    .search(&state, &Limits::nodes(2_000), &mut |_| {});
            assert_eq!(again, result, "{}: searches are deterministic", G::NAME);
        }
    }
}

#[test]
fn alphabeta_answers_a_legal_move_in_every_game() {
    for name in GAME_NAMES {
        visit_game(name, SearchesAnswer).expect("registered");
    }
}

/// Plays one game of `name` through the protocol, the engine against
/// itself, asking the queries cutegames asks before every move.
fn play_through_protocol(name: &str, search: &str, max_plies: usize) {
    let (output, out) = Output::capture();
    let mut engine = Engine::new(output);
    for line in [
        "ugi",
        &format!("setoption name Game value {name}"),
        &format!("setoption name Search value {search}"),
        "uginewgame",
    ] {
        assert_eq!(engine.handle_line(line), Flow::Continue);
    }
    let mut moves: Vec<String> = Vec::new();
    let ask = |engine: &mut Engine, query: &str| -> String {
        out.clear();
        engine.handle_line(query);
        let lines = out.lines();
        assert_eq!(lines.len(), 1, "{name}: {query}: {lines:?}");
        lines[0].clone()
    };
    loop {
        out.clear();
        engine.handle_line(&format!("position startpos moves {}", moves.join(" ")));
        assert!(out.lines().is_empty(), "{name}: {:?}", out.lines());
        assert!(matches!(
            ask(&mut engine, "query p1turn").as_str(),
            "response true" | "response false"
        ));
        if ask(&mut engine, "query gameover") == "response true" {
            break;
        }
        assert!(
            moves.len() < max_plies,
            "{name}: no end after {max_plies} plies"
        );
        out.clear();
        // MCTS playouts cost far more than alpha-beta nodes (whole games).
        let nodes = if search == "mcts" { 20 } else { 300 };
        engine.handle_line(&format!("go nodes {nodes}"));
        let start = Instant::now();
        let best = loop {
            if let Some(line) = out.lines().into_iter().find(|l| l.starts_with("bestmove")) {
                break line;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{name}: no bestmove"
            );
            std::thread::sleep(Duration::from_micros(200));
        };
        let words: Vec<&str> = best.split(' ').collect();
        assert_eq!(words.len(), 2, "{name}: {best}");
        moves.push(words[1].to_owned());
    }
    let result = ask(&mut engine, "query result");
    assert!(
        ["response p1win", "response p2win", "response draw"].contains(&result.as_str()),
        "{name}: {result}"
    );
    // Why the game ended, named by its rule (new: a GUI could only learn
    // the result).
    let reason = ask(&mut engine, "query reason");
    assert!(
        reason.len() > "response ".len() && !reason.ends_with(" none"),
        "{name}: {reason}"
    );
    // The diagram names the side to move and prints the position once.
    out.clear();
    engine.handle_line("d");
    let diagram = out.lines();
    let fen = ask(&mut engine, "query fen");
    let fen = fen.trim_start_matches("response ");
    assert_eq!(
        diagram.iter().filter(|l| l.contains(fen)).count(),
        1,
        "{name}: {diagram:?}"
    );
    assert!(
        diagram.iter().any(|l| l.contains(" to move")),
        "{name}: {diagram:?}"
    );
    let go = {
        out.clear();
        engine.handle_line("go depth 1");
        out.lines()
    };
    assert_eq!(
        go.last().map(String::as_str),
        Some("bestmove (none)"),
        "{name}"
    );
}

#[test]
fn every_game_plays_to_the_end_through_the_protocol() {
    for name in GAME_NAMES {
        for search in ["alphabeta", "mcts", "auto"] {
            play_through_protocol(name, search, 2_000);
        }
    }
}

/// `agon bench`'s node count on this build: the build signature that
/// Stockfish quotes as `Bench:` in its commits. A change to the search, an
/// evaluation, a network or a game's move order changes it; such a change
/// updates this number and quotes the new `Bench:` line in its commit
/// message. A restructuring must leave it as it is.
const BENCH_NODES: u64 = 3_524_270;

#[test]
fn the_bench_node_count_is_the_builds_signature() {
    let mut out = Vec::new();
    let totals = agon::tools::bench::run(&mut out).expect("the bench runs");
    let text = String::from_utf8_lossy(&out);
    assert_eq!(
        totals.nodes, BENCH_NODES,
        "the bench node count changed: update BENCH_NODES if the search was meant to change\n{text}"
    );
    let last = text.lines().last().unwrap_or("");
    assert!(
        last.starts_with(&format!("Bench: {BENCH_NODES} nodes ")),
        "{last}"
    );
}
