//! `agon tune`: SPSA over engine options, by games.
//!
//! Every parameter moves at once ([`spsa`]): each iteration plays one pair
//! of games (an opening with colours swapped) between two copies of the
//! same engine, one with every parameter nudged up or down by the
//! iteration's perturbation and one with the opposite nudges, and moves the
//! parameters towards the side that scored better. The parameters are
//! engine options ([`params`]): the built-in engine's `Tune.*` search
//! parameters, or any option of an external engine.
//!
//! The state is written after every pair (to a temporary file renamed over
//! the old one, so a machine that stops mid-write leaves the last whole
//! state), and a run resumes from it. Pairs run on `concurrency` threads;
//! each takes the parameters as they are when it starts (asynchronous SPSA,
//! as OpenBench's workers do), so with one thread a run is repeatable.

pub mod command;
pub mod params;
pub mod spsa;

use crate::tools::matches::adjudication::Adjudication;
use crate::tools::matches::spec::{PlayerKind, PlayerSpec};
use crate::tools::matches::writer::temporary_path;
use crate::tools::matches::{MatchConfig, TimeControl, run_match};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use spsa::{PairResult, Spsa};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Plays the pair of iteration `k` between the `+` and `−` option sets.
pub trait PairPlayer: Sync {
    /// The pair's result for the `+` side; `None` when the run was stopped
    /// during it (it is then not counted).
    fn play_pair(
        &self,
        k: u64,
        plus: &[(String, String)],
        minus: &[(String, String)],
    ) -> Result<Option<PairResult>, String>;
}

/// How a run goes, besides its state.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The state file, written after every pair.
    pub state_path: PathBuf,
    /// The command line, recorded in the state file.
    pub command: String,
    /// Pairs played at once.
    pub concurrency: usize,
    /// Print the values every this many pairs (0: only at the end).
    pub report_every: u64,
    /// Stop after this many pairs in this run (the state says where to go
    /// on), e.g. to commit the state at a given point.
    pub max_pairs: Option<u64>,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// Set by Ctrl+C: no pair starts, pairs in progress are dropped.
    pub stop: Option<Arc<AtomicBool>>,
}

/// What the workers share.
struct Shared {
    spsa: Spsa,
    /// This round's next pair to hand out.
    next: u64,
    /// Pairs finished in this run.
    finished: u64,
    /// The first error of a worker, which stops the run.
    error: Option<String>,
}

/// Runs SPSA from `spsa` until the plan (or `max_pairs`) is done or the run
/// is stopped, writing the state after every pair and the values every
/// `report_every` pairs to `out`. Returns the final state.
pub fn run(
    spsa: Spsa,
    player: &dyn PairPlayer,
    config: &RunConfig,
    out: &mut (dyn Write + Send),
) -> Result<Spsa, String> {
    write_state(&spsa, config)?;
    let first = spsa.played;
    let remaining = spsa.remaining();
    let todo = config.max_pairs.map_or(remaining, |m| m.min(remaining));
    let shared = Mutex::new(Shared {
        spsa,
        next: first,
        finished: 0,
        error: None,
    });
    let bar = progress_bar(config.progress, todo);
    let out = Mutex::new(out);
    let stopped = || {
        config
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    };
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, todo.max(1) as usize) {
            scope.spawn(|| {
                loop {
                    let (trial, plus, minus) = {
                        let mut s = lock(&shared);
                        let handed = s.next - first;
                        if s.error.is_some()
                            || stopped()
                            || handed >= todo
                            || !s.spsa.planned(s.next)
                        {
                            return;
                        }
                        let trial = s.spsa.trial(s.spsa.iteration(s.next));
                        s.next += 1;
                        let plus = s.spsa.side(&trial, 1.0);
                        let minus = s.spsa.side(&trial, -1.0);
                        (trial, plus, minus)
                    };
                    let result = player.play_pair(trial.k, &plus, &minus);
                    let mut s = lock(&shared);
                    let result = match result {
                        Ok(Some(result)) => result,
                        Ok(None) => return,
                        Err(error) => {
                            s.error.get_or_insert(error);
                            return;
                        }
                    };
                    s.spsa.apply(&trial, result);
                    s.finished += 1;
                    if let Err(error) = write_state(&s.spsa, config) {
                        s.error.get_or_insert(error);
                        return;
                    }
                    bar.inc(1);
                    bar.set_message(score_text(&s.spsa));
                    let every = config.report_every;
                    if every > 0 && s.spsa.played.is_multiple_of(every) {
                        let lines = value_lines(&s.spsa);
                        let _ = bar.suspend(|| {
                            let mut out = lock(&out);
                            lines.iter().try_for_each(|line| writeln!(out, "{line}"))
                        });
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    let shared = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(error) = shared.error {
        return Err(error);
    }
    let out = out.into_inner().unwrap_or_else(|e| e.into_inner());
    if stopped() {
        writeln!(
            out,
            "Tuning interrupted after {} pairs in this run; the state is saved",
            shared.finished
        )
        .map_err(|e| e.to_string())?;
    }
    for line in value_lines(&shared.spsa) {
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(shared.spsa)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// `pairs 120/5000: + side 97-31-112 (W-D-L)`.
fn score_text(spsa: &Spsa) -> String {
    let [w, d, l] = spsa.score;
    format!(
        "pairs {}/{}: + side {w}-{d}-{l} (W-D-L)",
        spsa.pairs(),
        spsa.schedule.iterations
    )
}

/// The score line and every parameter's value, as a parameters file line.
pub fn value_lines(spsa: &Spsa) -> Vec<String> {
    let mut lines = vec![score_text(spsa)];
    lines.extend(spsa.params.iter().map(|p| format!("  {}", p.line())));
    lines
}

/// Writes the state next to its path, then renames it over the old one.
fn write_state(spsa: &Spsa, config: &RunConfig) -> Result<(), String> {
    let path = &config.state_path;
    let temporary = temporary_path(path);
    let text = spsa.to_text(&config.command);
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write the state '{}': {e}", path.display()))
}

fn progress_bar(show: bool, pairs: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(pairs), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} pairs {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Plays each pair as a two-game `agon match` between copies of one
/// player spec with the two option sets.
#[derive(Clone, Debug)]
pub struct MatchPairs {
    /// The game.
    pub game: String,
    /// Its options.
    pub options: Vec<(String, String)>,
    /// The player both sides are copies of.
    pub player: PlayerSpec,
    /// Time control.
    pub time: TimeControl,
    /// Nodes per move (built-in players only), on top of the time.
    pub nodes: Option<u64>,
    /// Openings; pair `k` plays opening `(k − 1) mod len` (the start
    /// position when empty).
    pub openings: Vec<String>,
    /// Seed of the games' random choices, mixed with `k`.
    pub seed: u64,
    /// Adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// How long an external engine may take to start.
    pub handshake_timeout: Duration,
    /// Ctrl+C.
    pub stop: Option<Arc<AtomicBool>>,
}

impl MatchPairs {
    /// The player with `values` set: engine options of a built-in player
    /// (checked by its parser) or options sent to an external engine.
    pub fn side(&self, name: &str, values: &[(String, String)]) -> Result<PlayerSpec, String> {
        let mut spec = self.player.clone();
        spec.name = name.to_owned();
        match &mut spec.kind {
            PlayerKind::Builtin(builtin) => {
                for (option, value) in values {
                    if !builtin.engine.set(option, value)? {
                        return Err(format!(
                            "{option} is not an engine option of the built-in player"
                        ));
                    }
                }
                if self.nodes.is_some() {
                    builtin.nodes = self.nodes;
                }
            }
            PlayerKind::External(external) => {
                if self.nodes.is_some() {
                    return Err(
                        "--nodes limits built-in players only (give external engines a time)"
                            .into(),
                    );
                }
                external.options.extend(values.iter().cloned());
            }
        }
        Ok(spec)
    }
}

impl PairPlayer for MatchPairs {
    fn play_pair(
        &self,
        k: u64,
        plus: &[(String, String)],
        minus: &[(String, String)],
    ) -> Result<Option<PairResult>, String> {
        let openings = match self.openings.len() {
            0 => Vec::new(),
            n => vec![self.openings[((k - 1) % n as u64) as usize].clone()],
        };
        let config = MatchConfig {
            game: self.game.clone(),
            options: self.options.clone(),
            players: [self.side("plus", plus)?, self.side("minus", minus)?],
            games: 2,
            time: self.time,
            nodes: None,
            openings,
            concurrency: 1,
            out: None,
            sprt: None,
            seed: self.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ k,
            max_plies: self.max_plies,
            adjudication: Adjudication::default(),
            progress: false,
            handshake_timeout: self.handshake_timeout,
            verbose: false,
            report_every: 0,
            pgn: None,
            shard: None,
            stop: self.stop.clone(),
        };
        let report = run_match(&config, &mut std::io::sink())?;
        if report.interrupted || report.score.games() < 2 {
            return Ok(None);
        }
        Ok(Some(PairResult {
            wins: report.score.wins,
            draws: report.score.draws,
            losses: report.score.losses,
        }))
    }
}
