//! Times Ataxx perft with bulk counting, single-threaded:
//! `cargo run --release --example ataxx_perft -- [depth] [standard|seed] [fen…]`
//! (defaults: depth 6, standard rules, the start position).

use agon::game::Game;
use agon::games::ataxx::{Ataxx, AtaxxMove, AtaxxOptions, RuleSet};
use std::time::Instant;

/// Leaf count with bulk counting at depth 1; one reusable move list per ply.
fn perft(position: &Ataxx, depth: usize, lists: &mut [Vec<AtaxxMove>]) -> u64 {
    if depth <= 1 {
        return if depth == 1 {
            position.count_moves()
        } else {
            1
        };
    }
    let (list, rest) = match lists.split_first_mut() {
        Some(split) => split,
        None => return 0,
    };
    position.generate_moves(list);
    let mut nodes = 0;
    for &mv in list.iter() {
        let mut child = position.clone();
        child.play(mv);
        nodes += perft(&child, depth - 1, rest);
    }
    nodes
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: usize = match args.first() {
        Some(text) => text.parse().map_err(|_| format!("bad depth '{text}'"))?,
        None => 6,
    };
    let rules = match args.get(1).map(String::as_str) {
        None | Some("standard") => RuleSet::Standard,
        Some("seed") => RuleSet::Seed,
        Some(other) => return Err(format!("rules must be standard or seed, not '{other}'")),
    };
    let options = AtaxxOptions {
        rules,
        ..AtaxxOptions::default()
    };
    let position = if args.len() > 2 {
        Ataxx::from_fen(&args[2..].join(" "), &options)?
    } else {
        Ataxx::start(&options)
    };
    let mut lists: Vec<Vec<AtaxxMove>> =
        (0..depth.max(1)).map(|_| Vec::with_capacity(256)).collect();
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = perft(&position, d, &mut lists);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "depth {d} nodes {nodes} time {:.3} s speed {:.1} M/s",
            seconds,
            nodes as f64 / seconds.max(1e-9) / 1e6
        );
    }
    Ok(())
}
