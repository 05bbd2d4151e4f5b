//! `agon datagen`: self-play games that become training data for the
//! learned evaluation (`agon train`).
//!
//! Every game starts from a balanced random opening (random whole turns,
//! kept when a search of the same size scores it within a window), then
//! both sides play alpha-beta searches with a soft node limit: each search
//! ends after the iteration that passes it, so moves come out of whole
//! iterations. Every position where the chosen move is quiet (not one of
//! the game's noisy moves) and the score is not a proven win or loss is
//! recorded with that score; when the game ends, each record gets the
//! result from its side to move's view ([`record`]).
//!
//! A game whose score stays beyond the adjudication bound for both sides'
//! searches for a number of plies in a row is given to the side ahead; a
//! proven score ends it at once; a game longer than the ply limit is
//! decided by the game's own count ([`Game::adjudicate`]).
//!
//! Reproducible: game `i` is played from a generator seeded by the seed
//! and `i` alone, with the search memory cleared before it, and games are
//! written in their order whatever the number of threads.

pub mod record;

use crate::game::{Game, GameState, Outcome, Player};
use crate::network::Network;
use crate::search::alphabeta::AlphaBeta;
use crate::search::{Limits, is_proven};
use crate::tools::openings::random_start;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use record::Record;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// How many random openings a game may try before it is skipped.
const OPENING_ATTEMPTS: u32 = 200;
/// Hard node limit of a search, as a multiple of the soft one.
const HARD_NODES_FACTOR: u64 = 8;

/// What `agon datagen` is asked for.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// Soft node limit of every search.
    pub soft_nodes: u64,
    /// Games to play.
    pub games: u64,
    /// Threads, each playing its own games.
    pub threads: usize,
    /// Seed of the openings.
    pub seed: u64,
    /// Fewest random turns of an opening.
    pub min_random_plies: u32,
    /// Most random turns of an opening.
    pub max_random_plies: u32,
    /// Largest absolute opening score kept.
    pub opening_window: i32,
    /// Score beyond which a game is adjudicated…
    pub adjudicate_score: i32,
    /// …once both sides' searches agreed for this many plies in a row.
    pub adjudicate_plies: u32,
    /// Plies after which the game's count decides.
    pub max_plies: u32,
    /// Transposition table of each thread, in MiB.
    pub hash_mb: usize,
    /// The evaluation the searches use (`None`: the classic one).
    pub network: Option<Arc<Network>>,
}

impl Default for DatagenConfig {
    fn default() -> Self {
        DatagenConfig {
            soft_nodes: 5_000,
            games: 100,
            threads: 1,
            seed: 1,
            min_random_plies: 4,
            max_random_plies: 8,
            opening_window: 300,
            adjudicate_score: 2_000,
            adjudicate_plies: 6,
            max_plies: 400,
            hash_mb: 16,
            network: None,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played (skipped ones not counted).
    pub games: u64,
    /// Records written.
    pub positions: u64,
    /// Games won by `x`, won by `o`, drawn.
    pub results: [u64; 3],
}

/// One finished game.
struct PlayedGame {
    records: Vec<Record>,
    outcome: Option<Outcome>,
}

/// Plays the games for `G` from `start` and writes their records to `out`
/// in game order. `progress` is called after each game with the summary so
/// far.
pub fn generate<G: Game>(
    start: &G,
    config: &DatagenConfig,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenSummary),
) -> Result<DatagenSummary, String> {
    if config.min_random_plies > config.max_random_plies {
        return Err("the fewest random plies exceed the most".into());
    }
    if let Some(network) = &config.network {
        network.check_fits::<G>()?;
    }
    let next_game = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Result<(u64, PlayedGame), String>>();
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let sender = sender.clone();
            let (next_game, failed) = (&next_game, &failed);
            scope.spawn(move || {
                let mut player = match AlphaBeta::<G>::new(config.hash_mb) {
                    Ok(player) => player,
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        let _ = sender.send(Err(e));
                        return;
                    }
                };
                player.set_network(config.network.clone());
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let game = play_game(start, config, index, &mut player);
                    if sender.send(Ok((index, game))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let written = write_in_order(receiver, out, progress);
        if written.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        written
    })
}

/// Receives finished games and writes them in index order.
fn write_in_order(
    receiver: mpsc::Receiver<Result<(u64, PlayedGame), String>>,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenSummary),
) -> Result<DatagenSummary, String> {
    let mut summary = DatagenSummary::default();
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    for message in receiver {
        let (index, game) = message?;
        waiting.insert(index, game);
        while let Some(game) = waiting.remove(&next) {
            next += 1;
            let Some(outcome) = game.outcome else {
                continue;
            };
            let mut bytes = Vec::new();
            game.records.iter().for_each(|r| r.write_to(&mut bytes));
            // Flushed game by game, so that a run stopped early keeps every
            // game it finished.
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write training data: {e}"))?;
            summary.games += 1;
            summary.positions += game.records.len() as u64;
            summary.results[match outcome {
                Outcome::Win(player) => player.index(),
                Outcome::Draw => 2,
            }] += 1;
            progress(&summary);
        }
    }
    out.flush()
        .map_err(|e| format!("cannot write training data: {e}"))?;
    Ok(summary)
}

/// Plays game number `index`; no outcome when no opening could be found.
fn play_game<G: Game>(
    start: &G,
    config: &DatagenConfig,
    index: u64,
    player: &mut AlphaBeta<G>,
) -> PlayedGame {
    let seed = config
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    player.clear();
    let Some(mut state) = balanced_opening(start, config, &mut rng, player) else {
        return PlayedGame {
            records: Vec::new(),
            outcome: None,
        };
    };
    // Noisy moves matter only where the search ends in a quiescence search
    // over them; elsewhere (Ataxx: nearly every move converts) every
    // position is a leaf the evaluation must judge.
    let quiet_only = G::search_tuning().quiescence.is_some();
    // Each record with the side it was recorded for, signed at the end.
    let mut pending = Vec::new();
    let mut seen = ahash::AHashSet::new();
    let mut adjudication = Adjudication::default();
    let mut plies = 0;
    let outcome = loop {
        if let Some(outcome) = state.outcome() {
            break outcome;
        }
        if plies >= config.max_plies {
            break state.position.adjudicate();
        }
        let mover = state.position.side_to_move();
        let result = player.search(&state, &search_limits(config), &mut |_| {});
        let Some(best) = result.best else {
            break state.position.adjudicate();
        };
        if is_proven(result.score) {
            break Outcome::Win(if result.score > 0 {
                mover
            } else {
                mover.other()
            });
        }
        // A position the game returns to (shuffling before a draw) is
        // recorded once.
        let first_visit = seen.insert(state.position.hash());
        if first_visit && (!quiet_only || !state.position.is_noisy(best)) {
            pending.push((state.position.fen(), result.score, mover));
        }
        if let Some(winner) = adjudication.observe(config, result.score, mover) {
            break Outcome::Win(winner);
        }
        state.play(best);
        plies += 1;
    };
    let records = pending
        .into_iter()
        .map(|(fen, score, mover)| Record {
            fen,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            result: outcome.sign_for(mover) as i8,
        })
        .collect();
    PlayedGame {
        records,
        outcome: Some(outcome),
    }
}

/// The limits of one self-play search.
fn search_limits(config: &DatagenConfig) -> Limits {
    Limits {
        soft_nodes: Some(config.soft_nodes),
        nodes: Some(config.soft_nodes.saturating_mul(HARD_NODES_FACTOR)),
        ..Limits::infinite()
    }
}

/// A random opening whose score lies within the window, judged by the same
/// search as the game's moves.
fn balanced_opening<G: Game>(
    start: &G,
    config: &DatagenConfig,
    rng: &mut Xoshiro256PlusPlus,
    player: &mut AlphaBeta<G>,
) -> Option<GameState<G>> {
    for _ in 0..OPENING_ATTEMPTS {
        let Some(state) =
            random_start(start, config.min_random_plies, config.max_random_plies, rng)
        else {
            continue;
        };
        let judged = player.search(&state, &search_limits(config), &mut |_| {});
        if judged.score.abs() <= config.opening_window {
            return Some(state);
        }
    }
    None
}

/// Counts the plies in a row that some side has been clearly ahead.
#[derive(Default)]
struct Adjudication {
    leader: Option<Player>,
    plies: u32,
}

impl Adjudication {
    /// Takes a search's score for `mover`; the winner once the lead held
    /// long enough.
    fn observe(&mut self, config: &DatagenConfig, score: i32, mover: Player) -> Option<Player> {
        if score.abs() < config.adjudicate_score {
            self.leader = None;
            self.plies = 0;
            return None;
        }
        let leader = if score > 0 { mover } else { mover.other() };
        if self.leader == Some(leader) {
            self.plies += 1;
        } else {
            self.leader = Some(leader);
            self.plies = 1;
        }
        (self.plies >= config.adjudicate_plies).then_some(leader)
    }
}

/// Elapsed seconds since `start`, at least a millisecond (for rates).
pub fn seconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64().max(1e-3)
}

/// Plays `config.games` games for `G` from `start`, appending their
/// records to the file `out` (created when missing), with a progress bar on
/// standard error when `show_progress`. Returns the closing summary line.
pub fn run<G: Game>(
    start: &G,
    config: &DatagenConfig,
    out: &std::path::Path,
    show_progress: bool,
) -> Result<String, String> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("cannot open '{}': {e}", out.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    let bar = progress_bar(show_progress, config.games);
    let begun = Instant::now();
    let summary = generate(start, config, &mut writer, &mut |s| {
        bar.set_position(s.games);
        bar.set_message(format!(
            "{} positions, {:.0} positions/s",
            s.positions,
            s.positions as f64 / seconds_since(begun)
        ));
    })?;
    bar.finish_and_clear();
    let [x, o, draws] = summary.results;
    Ok(format!(
        "{} games ({x} won by x, {o} by o, {draws} drawn), {} positions in {:.1} s ({:.0} positions/s), appended to {}",
        summary.games,
        summary.positions,
        seconds_since(begun),
        summary.positions as f64 / seconds_since(begun),
        out.display()
    ))
}

/// The games bar, hidden unless asked for.
fn progress_bar(show: bool, games: u64) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(games),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The network an `--eval`/`--eval-file` pair chooses for games from
/// `start`: `classic` none, `auto` the file's (checked to fit) or else the
/// embedded one where it was trained for `start`'s variant.
pub fn chosen_network<G: Game>(
    start: &G,
    eval: &str,
    eval_file: Option<&std::path::Path>,
) -> Result<Option<Arc<Network>>, String> {
    match eval.to_ascii_lowercase().as_str() {
        "classic" => Ok(None),
        "auto" => match eval_file {
            Some(path) => Ok(Some(Arc::new(Network::load_for::<G>(
                &path.display().to_string(),
            )?))),
            None => Ok(crate::network::embedded_for(start)),
        },
        _ => Err(format!("--eval must be auto or classic, not '{eval}'")),
    }
}
