//! `agon bench`: fixed, deterministic searches over built-in positions of
//! every game. The total node count is a build signature (it changes only
//! when search or evaluation behaviour changes); nodes per second measure
//! speed. Games with an embedded network are searched by alpha-beta with
//! both evaluations (`alphabeta`: classic, `ab+net`: the network).

use crate::game::{Game, GameState};
use crate::games::{GAME_NAMES, GameVisitor, visit_game};
use crate::search::alphabeta::AlphaBeta;
use crate::search::mcts::{Mcts, MctsConfig, Playout};
use crate::search::{Limits, SearchResult};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::Write;
use std::time::{Duration, Instant};

/// Nodes searched per position by alpha-beta.
pub const BENCH_NODES: u64 = 200_000;
/// Playouts per position for MCTS (one thread, fixed seed).
pub const BENCH_PLAYOUTS: u64 = 5_000;
/// Positions per game: the start and positions a few random plies in.
const PLIES_INTO_GAME: [usize; 3] = [0, 6, 14];
/// Transposition table size used by the bench, in MiB.
const BENCH_HASH_MB: usize = 16;

/// Totals of one bench run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchTotals {
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time spent searching.
    pub time: Duration,
}

/// Runs the bench, printing one line per search and the final
/// `Bench: <nodes> nodes <nps> nps` line.
pub fn run(out: &mut dyn Write) -> std::io::Result<BenchTotals> {
    let mut totals = BenchTotals::default();
    for name in GAME_NAMES {
        let lines = visit_game(name, BenchGame).unwrap_or_default();
        for line in lines {
            writeln!(out, "{}", line.text)?;
            totals.nodes += line.nodes;
            totals.time += line.time;
        }
    }
    let nps = (totals.nodes as u128 * 1_000_000 / totals.time.as_micros().max(1)) as u64;
    writeln!(out, "Bench: {} nodes {nps} nps", totals.nodes)?;
    Ok(totals)
}

/// The positions the bench searches for game `G`: reached from the start by
/// seeded random moves, so they are the same on every run.
pub fn bench_positions<G: Game>() -> Vec<GameState<G>> {
    let options = G::Options::default();
    PLIES_INTO_GAME
        .iter()
        .filter_map(|&plies| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(plies as u64);
            let mut state = GameState::new(G::start(&options));
            for _ in 0..plies {
                let moves = state.legal_moves();
                if moves.is_empty() {
                    return None;
                }
                state.play(state.position.playout_move(&moves, &mut rng));
            }
            (state.outcome().is_none()).then_some(state)
        })
        .collect()
}

struct BenchLine {
    text: String,
    nodes: u64,
    time: Duration,
}

struct BenchGame;

impl GameVisitor for BenchGame {
    type Output = Vec<BenchLine>;
    fn visit<G: Game>(self) -> Vec<BenchLine> {
        let mut lines = Vec::new();
        for state in bench_positions::<G>() {
            let mut alphabeta =
                AlphaBeta::<G>::new(BENCH_HASH_MB).expect("the bench's small table");
            lines.push(bench_line(&state, "alphabeta", BENCH_NODES, |s, l| {
                alphabeta.search(s, l, &mut |_| {})
            }));
            if let Some(network) = crate::network::embedded_for(&state.position) {
                let mut alphabeta =
                    AlphaBeta::<G>::new(BENCH_HASH_MB).expect("the bench's small table");
                alphabeta.set_network(Some(network));
                lines.push(bench_line(&state, "ab+net", BENCH_NODES, |s, l| {
                    alphabeta.search(s, l, &mut |_| {})
                }));
            }
            let config = MctsConfig {
                memory_bytes: BENCH_HASH_MB << 20,
                playout: if G::policy_playouts() {
                    Playout::Policy
                } else {
                    Playout::Random
                },
                ..MctsConfig::default()
            };
            let mut mcts = Mcts::<G>::new(config);
            lines.push(bench_line(&state, "mcts", BENCH_PLAYOUTS, |s, l| {
                mcts.search(s, l, &mut |_| {})
            }));
        }
        lines
    }
}

/// Runs one node-limited search and describes it.
fn bench_line<G: Game>(
    state: &GameState<G>,
    search_name: &str,
    nodes: u64,
    mut search: impl FnMut(&GameState<G>, &Limits) -> SearchResult<G::Move>,
) -> BenchLine {
    let start = Instant::now();
    let result = search(state, &Limits::nodes(nodes));
    let time = start.elapsed();
    let best = result
        .best
        .map_or("(none)".into(), |m| state.position.move_to_string(m));
    let nps = (result.nodes as u128 * 1_000_000 / time.as_micros().max(1)) as u64;
    BenchLine {
        text: format!(
            "{:<9} {:<9} {:>9} nodes {:>9} nps depth {:>2} best {:<10} {}",
            G::NAME,
            search_name,
            result.nodes,
            nps,
            result.depth,
            best,
            state.position.fen()
        ),
        nodes: result.nodes,
        time,
    }
}
