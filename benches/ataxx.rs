//! Ataxx perft speed (bulk counting, single-threaded), standard rules from
//! the start position: `cargo bench --bench ataxx`.

use agon::game::Game;
use agon::games::ataxx::{Ataxx, AtaxxMove, AtaxxOptions, NoMoveRule, RuleSet};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Leaf count with bulk counting at depth 1; one reusable move list per ply.
fn perft(position: &Ataxx, depth: usize, lists: &mut [Vec<AtaxxMove>]) -> u64 {
    if depth <= 1 {
        return if depth == 1 {
            position.count_moves()
        } else {
            1
        };
    }
    let Some((list, rest)) = lists.split_first_mut() else {
        return 0;
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

fn bench_perft(c: &mut Criterion) {
    let options = AtaxxOptions {
        rules: RuleSet::Standard,
        no_move: NoMoveRule::Lose,
    };
    let start = Ataxx::start(&options);
    let mut lists: Vec<Vec<AtaxxMove>> = (0..6).map(|_| Vec::with_capacity(256)).collect();
    let mut group = c.benchmark_group("ataxx_perft");
    group.sample_size(10);
    group.bench_function("start_depth5", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 5, &mut lists), 4_752_668))
    });
    group.bench_function("start_depth6", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 6, &mut lists), 141_865_520))
    });
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
