//! MCTS playouts per second on Nim, for 1 and 2 threads and both parallel
//! schemes, plus the time to prove a Nim position (search quality per
//! second). Other games join this bench when they land on the branch.
//!
//! Run: `cargo bench --bench mcts`.

use agon::game::{Game, GameState};
use agon::games::nim::{Nim, NimOptions};
use agon::search::Limits;
use agon::search::mcts::{Mcts, MctsConfig, Parallel};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// Playouts per measured search.
const PLAYOUTS: u64 = 20_000;

fn state(fen: &str) -> GameState<Nim> {
    GameState::new(Nim::from_fen(fen, &NimOptions::default()).unwrap())
}

fn config(threads: usize, parallel: Parallel) -> MctsConfig {
    MctsConfig {
        threads,
        parallel,
        ..MctsConfig::default()
    }
}

const SCHEMES: [(usize, Parallel); 3] = [
    (1, Parallel::Root),
    (2, Parallel::Root),
    (2, Parallel::Tree),
];

/// Playouts per second: a fresh search of `PLAYOUTS` playouts on a position
/// too big to be proven.
fn playouts(c: &mut Criterion) {
    let root = state("10/11/12/13/14 x");
    let mut group = c.benchmark_group("mcts_nim_playouts");
    group.throughput(Throughput::Elements(PLAYOUTS));
    group.sample_size(10);
    for (threads, parallel) in SCHEMES {
        let id = BenchmarkId::new(format!("{parallel:?}"), threads);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut mcts = Mcts::new(config(threads, parallel));
                black_box(mcts.search(&root, &Limits::nodes(PLAYOUTS), &mut |_| {}))
            })
        });
    }
    group.finish();
}

/// Time until the solver proves 4/5/6 (a win, nim-sum 7) from an empty
/// tree.
fn solve(c: &mut Criterion) {
    let root = state("4/5/6 x");
    let mut group = c.benchmark_group("mcts_nim_solve");
    group.sample_size(10);
    for (threads, parallel) in SCHEMES {
        let id = BenchmarkId::new(format!("{parallel:?}"), threads);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut mcts = Mcts::new(config(threads, parallel));
                black_box(mcts.search(&root, &Limits::infinite(), &mut |_| {}))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, playouts, solve);
criterion_main!(benches);
