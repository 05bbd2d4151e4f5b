//! MCTS playouts per second on Nim, for 1 and 2 threads and both parallel
//! schemes, plus the time to prove a Nim position (search quality per
//! second). `Heavy` is Nim with about 1 µs of extra work per move, standing
//! in for games with costly playouts (Ataxx, Dots and Boxes) until they land
//! on this branch.
//!
//! Run: `cargo bench --bench mcts`.

use agon::game::{Game, GameState, Outcome, Player};
use agon::games::nim::{Nim, NimMove, NimOptions};
use agon::search::Limits;
use agon::search::mcts::{Mcts, MctsConfig, Parallel};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// Playouts per measured search.
const PLAYOUTS: u64 = 20_000;

fn state<G: Game<Options = NimOptions>>(fen: &str) -> GameState<G> {
    GameState::new(G::from_fen(fen, &NimOptions::default()).unwrap())
}

/// Nim whose moves cost about a microsecond more.
#[derive(Clone, Debug)]
struct Heavy(Nim);

/// Busy work standing in for a real game's move generation.
fn burn(seed: u64) -> u64 {
    (0..300).fold(seed, |acc, i: u64| {
        black_box(acc.rotate_left(7) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    })
}

impl Game for Heavy {
    type Move = NimMove;
    type Options = NimOptions;
    const NAME: &'static str = "heavy";
    fn move_code(mv: NimMove) -> Option<u32> {
        Nim::move_code(mv)
    }
    fn move_from_code(code: u32) -> Option<NimMove> {
        Nim::move_from_code(code)
    }
    fn start(options: &NimOptions) -> Self {
        Heavy(Nim::start(options))
    }
    fn from_fen(fen: &str, options: &NimOptions) -> Result<Self, String> {
        Nim::from_fen(fen, options).map(Heavy)
    }
    fn fen(&self) -> String {
        self.0.fen()
    }
    fn side_to_move(&self) -> Player {
        self.0.side_to_move()
    }
    fn generate_moves(&self, moves: &mut Vec<NimMove>) {
        black_box(burn(self.0.hash()));
        self.0.generate_moves(moves)
    }
    fn play(&mut self, mv: NimMove) {
        self.0.play(mv)
    }
    fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }
    fn hash(&self) -> u64 {
        self.0.hash()
    }
    fn hash_from_scratch(&self) -> u64 {
        self.0.hash_from_scratch()
    }
    fn evaluate(&self) -> i32 {
        self.0.evaluate()
    }
    fn parse_move(&self, text: &str) -> Result<NimMove, String> {
        self.0.parse_move(text)
    }
    fn move_to_string(&self, mv: NimMove) -> String {
        self.0.move_to_string(mv)
    }
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
fn playouts<G: Game<Options = NimOptions>>(c: &mut Criterion, name: &str, count: u64) {
    let root = state::<G>("10/11/12/13/14 x");
    let mut group = c.benchmark_group(format!("mcts_{name}_playouts"));
    group.throughput(Throughput::Elements(count));
    group.sample_size(10);
    for (threads, parallel) in SCHEMES {
        let id = BenchmarkId::new(format!("{parallel:?}"), threads);
        group.bench_function(id, |b| {
            b.iter(|| {
                let mut mcts = Mcts::new(config(threads, parallel));
                black_box(mcts.search(&root, &Limits::nodes(count), &mut |_| {}))
            })
        });
    }
    group.finish();
}

/// Time until the solver proves `fen` (4/5/6 and 3/4/5 are wins) from an
/// empty tree.
fn solve<G: Game<Options = NimOptions>>(c: &mut Criterion, name: &str, fen: &str) {
    let root = state::<G>(fen);
    let mut group = c.benchmark_group(format!("mcts_{name}_solve"));
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

fn nim(c: &mut Criterion) {
    playouts::<Nim>(c, "nim", PLAYOUTS);
    solve::<Nim>(c, "nim", "4/5/6 x");
}

fn heavy(c: &mut Criterion) {
    playouts::<Heavy>(c, "heavy", PLAYOUTS / 10);
    solve::<Heavy>(c, "heavy", "3/4/5 x");
}

criterion_group!(benches, nim, heavy);
criterion_main!(benches);
