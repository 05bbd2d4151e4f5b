//! Criterion benchmarks over every registered game: perft (move generation),
//! alpha-beta nodes per second on the bench positions, and MCTS playouts per
//! second from the start position (random and policy playouts).
//!
//! `cargo bench --bench engine`; figures belong in issue notes, not tests.

use agon::game::{Game, GameState};
use agon::games::{GAME_NAMES, GameVisitor, visit_game};
use agon::search::Limits;
use agon::search::alphabeta::AlphaBeta;
use agon::search::mcts::{Mcts, MctsConfig, Playout};
use agon::search::perft::perft;
use agon::tools::bench::bench_positions;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Playouts per MCTS benchmark search (from the start position).
const PLAYOUTS: u64 = 2_000;
/// Nodes per alpha-beta benchmark search.
const SEARCH_NODES: u64 = 50_000;

struct PerftBench<'a>(&'a mut Criterion);

impl GameVisitor for PerftBench<'_> {
    type Output = ();
    fn visit<G: Game>(self) {
        let start = G::start(&G::Options::default());
        // The deepest depth whose tree stays around a million leaves.
        let depth = (1..=6)
            .take_while(|&d| perft(&start, d).is_ok_and(|n| n <= 2_000_000))
            .last()
            .unwrap_or(1);
        let leaves = perft(&start, depth).expect("fits in u64");
        let mut group = self.0.benchmark_group(format!("perft/{}", G::NAME));
        group.throughput(Throughput::Elements(leaves));
        group.sample_size(10);
        group.bench_function(format!("depth {depth}"), |b| {
            b.iter(|| perft(&start, depth))
        });
        group.finish();
    }
}

struct SearchBench<'a>(&'a mut Criterion);

impl GameVisitor for SearchBench<'_> {
    type Output = ();
    fn visit<G: Game>(self) {
        let positions: Vec<GameState<G>> = bench_positions::<G>();
        let mut group = self.0.benchmark_group(format!("alphabeta/{}", G::NAME));
        group.sample_size(10);
        group.throughput(Throughput::Elements(SEARCH_NODES * positions.len() as u64));
        group.bench_function("bench positions", |b| {
            b.iter(|| {
                for state in &positions {
                    let mut search = AlphaBeta::<G>::new(16).unwrap();
                    search.search(state, &Limits::nodes(SEARCH_NODES), &mut |_| {});
                }
            })
        });
        group.finish();
    }
}

struct PlayoutBench<'a>(&'a mut Criterion);

impl GameVisitor for PlayoutBench<'_> {
    type Output = ();
    fn visit<G: Game>(self) {
        let start = GameState::new(G::start(&G::Options::default()));
        let mut group = self.0.benchmark_group(format!("mcts/{}", G::NAME));
        group.sample_size(10);
        group.throughput(Throughput::Elements(PLAYOUTS));
        for (name, playout) in [("random", Playout::Random), ("policy", Playout::Policy)] {
            group.bench_function(format!("{name} playouts, 1 thread"), |b| {
                b.iter(|| {
                    let config = MctsConfig {
                        playout,
                        memory_bytes: 16 << 20,
                        ..MctsConfig::default()
                    };
                    Mcts::<G>::new(config).search(&start, &Limits::nodes(PLAYOUTS), &mut |_| {})
                })
            });
        }
        group.finish();
    }
}

fn playout_benches(c: &mut Criterion) {
    for name in GAME_NAMES {
        let _ = visit_game(name, PlayoutBench(c));
    }
}

fn perft_benches(c: &mut Criterion) {
    for name in GAME_NAMES {
        let _ = visit_game(name, PerftBench(c));
    }
}

fn search_benches(c: &mut Criterion) {
    for name in GAME_NAMES {
        let _ = visit_game(name, SearchBench(c));
    }
}

criterion_group!(benches, perft_benches, search_benches, playout_benches);
criterion_main!(benches);
