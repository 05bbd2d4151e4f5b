//! Sanity check of an evaluation: a plain fixed-depth negamax (alpha-beta)
//! over `Game::evaluate` plays the game's built-in baseline player.
//!
//! `cargo run --release --example strength -- <yote|ctor8|ctor10> [games] [depth] [team]`
//!
//! Depth 0 replaces the searcher by a uniformly random player, which
//! measures the baseline against random play.
//!
//! This is a stand-in until the engine's own search and match tool exist:
//! no transposition table, no iterative deepening, and for CTOR only the
//! first `MAX_BRANCH` operations of each node are searched (landings come
//! last in the move order, so they are mostly skipped).

use agon::game::{Game, GameState, Outcome, Player};
use agon::games::ctor::{Ctor, CtorOptions};
use agon::games::yote::Yote;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Moves searched per node at most.
const MAX_BRANCH: usize = 200;
/// Score of a won position before the depth bonus.
const WIN: i32 = 10_000;

/// Negamax with alpha-beta; the sign flips only when the side changes.
fn negamax<G: Game>(g: &G, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if let Some(outcome) = g.outcome() {
        return outcome.sign_for(g.side_to_move()) * (WIN + depth as i32);
    }
    if depth == 0 {
        return g.evaluate();
    }
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    moves.truncate(MAX_BRANCH);
    let mut best = -WIN * 2;
    for mv in moves {
        let mut child = g.clone();
        child.play(mv);
        let score = if child.side_to_move() == g.side_to_move() {
            negamax(&child, depth - 1, alpha, beta)
        } else {
            -negamax(&child, depth - 1, -beta, -alpha)
        };
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The searcher's move: best negamax score, ties broken at random.
fn search_move<G: Game>(g: &G, depth: u32, rng: &mut Xoshiro256PlusPlus) -> G::Move {
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    moves.truncate(MAX_BRANCH);
    let mut best = Vec::new();
    let mut best_score = i32::MIN;
    for &mv in &moves {
        let mut child = g.clone();
        child.play(mv);
        let score = if child.side_to_move() == g.side_to_move() {
            negamax(&child, depth - 1, -WIN * 2, WIN * 2)
        } else {
            -negamax(&child, depth - 1, -WIN * 2, WIN * 2)
        };
        if score > best_score {
            best_score = score;
            best.clear();
        }
        if score == best_score {
            best.push(mv);
        }
    }
    best[rand::RngExt::random_range(rng, 0..best.len())]
}

/// Plays one game; returns the outcome.
fn play_game<G: Game>(start: &G, searcher: Player, depth: u32, seed: u64) -> Outcome {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut state = GameState::new(start.clone());
    let mut moves = Vec::new();
    for ply in 0..4000 {
        if let Some(outcome) = state.outcome() {
            if std::env::var_os("STRENGTH_VERBOSE").is_some() {
                eprintln!("{ply} plies, {:?}: {}", outcome, state.position.fen());
            }
            return outcome;
        }
        let g = &state.position;
        let mv = if g.side_to_move() == searcher && depth == 0 {
            // Depth 0: the "searcher" is a uniformly random player, to
            // measure the baseline itself.
            g.generate_moves(&mut moves);
            moves[rand::RngExt::random_range(&mut rng, 0..moves.len())]
        } else if g.side_to_move() == searcher {
            search_move(g, depth, &mut rng)
        } else {
            match g.baseline_move(&mut rng) {
                Some(mv) => mv,
                None => {
                    g.generate_moves(&mut moves);
                    moves[rand::RngExt::random_range(&mut rng, 0..moves.len())]
                }
            }
        };
        state.play(mv);
    }
    Outcome::Draw
}

/// Plays `games` games alternating colours and prints the score.
fn run<G: Game>(start: &G, games: usize, depth: u32) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for i in 0..games {
        let searcher = if i % 2 == 0 { Player::X } else { Player::O };
        match play_game(start, searcher, depth, 1000 + i as u64).sign_for(searcher) {
            1 => wins += 1,
            0 => draws += 1,
            _ => losses += 1,
        }
    }
    let score = (wins as f64 + draws as f64 / 2.0) / games.max(1) as f64;
    println!(
        "{} depth {depth} vs baseline: +{wins} ={draws} -{losses} ({:.1}%)",
        G::NAME,
        score * 100.0
    );
}

/// Perft with bulk counting at the last ply.
fn perft<G: Game>(g: &G, depth: u32) -> u64 {
    if depth <= 1 {
        return g.count_moves();
    }
    let mut moves = Vec::new();
    g.generate_moves(&mut moves);
    moves
        .iter()
        .map(|&mv| {
            let mut child = g.clone();
            child.play(mv);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Times perft on a few positions (move generator speed).
fn perft_report() {
    let yote = Yote::from_fen("6/1o2x1/2xo2/1x2o1/6 x 9 9 - - 0 4", &Default::default());
    let ctor = Ctor::from_fen(
        "xo1x1o1x/1xo2xo1/o1x1o2x/2oxx1o1/x2o1x1o/1x1o2xo/o2x1o1x/1o1x2o1 x 9 0/0/0/0 0",
        &CtorOptions::default(),
    );
    if let Ok(y) = yote {
        time_perft("yote", &y, 4);
    }
    if let Ok(c) = ctor {
        time_perft("ctor8", &c, 3);
    }
}

fn time_perft<G: Game>(name: &str, g: &G, depth: u32) {
    for d in 1..=depth {
        let start = std::time::Instant::now();
        let nodes = perft(g, d);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name} perft {d}: {nodes} in {secs:.3}s ({:.1} M leaves/s)",
            nodes as f64 / secs.max(1e-9) / 1e6
        );
    }
}

/// Runs the negamax on every position of an EPD file with a `bm` and
/// prints whether it finds one of the best moves.
fn solve_positions<G: Game>(path: &str, options: &G::Options, depth: u32) {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("cannot read {path}");
        return;
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut parts = line.split(';').map(str::trim);
        let Some(Ok(g)) = parts.next().map(|fen| G::from_fen(fen, options)) else {
            eprintln!("bad position: {line}");
            continue;
        };
        let best: Vec<&str> = parts
            .clone()
            .filter_map(|p| p.strip_prefix("bm "))
            .flat_map(str::split_whitespace)
            .collect();
        let id = parts.find_map(|p| p.strip_prefix("id ")).unwrap_or("?");
        if best.is_empty() {
            continue;
        }
        let chosen = g.move_to_string(search_move(&g, depth, &mut rng));
        let verdict = if best.contains(&chosen.as_str()) {
            "ok"
        } else {
            "MISSED"
        };
        println!("{id}: {chosen} (bm {}) {verdict}", best.join(" "));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("perft") {
        perft_report();
        return;
    }
    if args.first().map(String::as_str) == Some("positions") {
        let depth = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2);
        solve_positions::<Yote>("positions/yote.txt", &Default::default(), depth);
        solve_positions::<Ctor>("positions/ctor.txt", &CtorOptions::default(), depth);
        return;
    }
    let game = args.first().map_or("yote", String::as_str);
    let games = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let depth = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    match game {
        "yote" => run(&Yote::start(&Default::default()), games, depth),
        "ctor8" | "ctor10" => {
            let size = if game == "ctor10" { 10 } else { 8 };
            let team = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
            run(&Ctor::start(&CtorOptions { size, team }), games, depth)
        }
        _ => eprintln!(
            "usage: strength <yote|ctor8|ctor10> [games] [depth] [team] | perft | positions [depth]"
        ),
    }
}
