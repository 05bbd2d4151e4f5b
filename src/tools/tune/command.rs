//! What `agon tune` does with its command line: write a game's parameters
//! file, merge shards' states, or start or resume a run.

use super::params::{Param, parse_params, tunables_of};
use super::spsa::{Schedule, Spsa, merge};
use super::{MatchPairs, RunConfig, run, value_lines};
use crate::game::Game;
use crate::games::{GameVisitor, visit_game};
use crate::tools::matches::spec::{PlayerKind, PlayerSpec};
use crate::tools::matches::{TimeControl, parse_shard, read_openings};
use crate::tuning::find_tunable;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The command line of `agon tune`, parsed.
#[derive(Clone, Debug, Default)]
pub struct TuneCommand {
    /// The game.
    pub game: Option<String>,
    /// Game options.
    pub options: Vec<(String, String)>,
    /// The parameters file of a new run.
    pub params: Option<PathBuf>,
    /// Write the game's tunables as a parameters file here (`-`: standard
    /// output) and stop.
    pub write_params: Option<PathBuf>,
    /// Games in the whole run (two per iteration).
    pub games: Option<u64>,
    /// Time per move, ms.
    pub movetime: Option<u64>,
    /// Clock `BASE+INC`, seconds.
    pub tc: Option<String>,
    /// Nodes per move (built-in players).
    pub nodes: Option<u64>,
    /// Pairs at once.
    pub concurrency: usize,
    /// The state file.
    pub state: Option<PathBuf>,
    /// The player both sides are copies of.
    pub engine: String,
    /// Its engine options (external engines).
    pub engine_options: Vec<(String, String)>,
    /// Openings file.
    pub openings: Option<PathBuf>,
    /// Seed.
    pub seed: u64,
    /// Adjudication after this many plies.
    pub max_plies: Option<u32>,
    /// Print the values every this many pairs.
    pub report_every: u64,
    /// Stop after this many pairs in this run.
    pub pairs: Option<u64>,
    /// `I/N`.
    pub shard: Option<String>,
    /// States of a round's shards to combine into `state`.
    pub merge: Vec<PathBuf>,
    /// Progress bar on standard error.
    pub progress: bool,
    /// How long an external engine may take to start, ms.
    pub handshake_timeout_ms: u64,
    /// The command line as typed, for the state file.
    pub command: String,
    /// Ctrl+C.
    pub stop: Option<Arc<AtomicBool>>,
}

impl TuneCommand {
    /// Runs the command, printing to `out`.
    pub fn execute(&self, out: &mut (dyn Write + Send)) -> Result<(), String> {
        if let Some(path) = &self.write_params {
            return self.write_params(path, out);
        }
        if !self.merge.is_empty() {
            return self.merge_states(out);
        }
        let spsa = self.starting_state()?;
        let pairs = self.pair_player(&spsa)?;
        let config = RunConfig {
            state_path: self.state_path()?.clone(),
            command: self.command.clone(),
            concurrency: self.concurrency.max(1),
            report_every: self.report_every,
            max_pairs: self.pairs,
            progress: self.progress,
            stop: self.stop.clone(),
        };
        run(spsa, &pairs, &config, out).map(|_| ())
    }

    fn state_path(&self) -> Result<&PathBuf, String> {
        self.state
            .as_ref()
            .ok_or_else(|| "--state FILE is required".to_owned())
    }

    fn game(&self) -> Result<&str, String> {
        self.game
            .as_deref()
            .ok_or_else(|| "--game is required".to_owned())
    }

    /// `--write-params FILE`.
    fn write_params(&self, path: &PathBuf, out: &mut dyn Write) -> Result<(), String> {
        let params = visit_game(self.game()?, Tunables)?;
        let mut text = format!(
            "# {}'s search parameters: NAME, int, VALUE, MIN, MAX, C_END, R_END\n",
            self.game()?
        );
        for param in params {
            text.push_str(&param.line());
            text.push('\n');
        }
        if path.as_os_str() == "-" {
            out.write_all(text.as_bytes()).map_err(|e| e.to_string())
        } else {
            std::fs::write(path, text)
                .map_err(|e| format!("cannot write '{}': {e}", path.display()))
        }
    }

    /// `--merge FILES… --state OUT`.
    fn merge_states(&self, out: &mut dyn Write) -> Result<(), String> {
        let states = self
            .merge
            .iter()
            .map(read_state)
            .collect::<Result<Vec<_>, _>>()?;
        let merged = merge(&states)?;
        let path = self.state_path()?;
        std::fs::write(path, merged.to_text(&self.command))
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
        for line in value_lines(&merged) {
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The state to run from: the state file's when it exists (checked
    /// against whatever the command line also says), else a new run.
    fn starting_state(&self) -> Result<Spsa, String> {
        let path = self.state_path()?;
        let params = self.params.as_ref().map(read_params).transpose()?;
        let mut spsa = if path.exists() {
            let state = read_state(path)?;
            self.check_resume(&state, params.as_deref())?;
            state
        } else {
            let params = params.ok_or("a new run needs --params FILE (or --state of a run)")?;
            let games = self.games.ok_or("a new run needs --games N")?;
            if games < 2 {
                return Err("--games must be at least 2 (one pair)".into());
            }
            Spsa::new(self.game()?, self.seed, Schedule::new(games / 2), params)
        };
        if let Some(text) = &self.shard {
            let (index, count) = parse_shard(text)?;
            let shard = Some((index as u64, count as u64));
            match spsa.shard {
                None if spsa.played == 0 => spsa.shard = shard,
                current if current == shard => {}
                None => {
                    return Err(
                        "this state has pairs of an unsharded round: merge or finish it first"
                            .into(),
                    );
                }
                Some((i, n)) => return Err(format!("this state is shard {i}/{n}, not {text}")),
            }
        }
        Ok(spsa)
    }

    fn check_resume(&self, state: &Spsa, params: Option<&[Param]>) -> Result<(), String> {
        let refuse = |why: String| Err(format!("--state is another run: {why}"));
        if let Some(game) = &self.game
            && !game.eq_ignore_ascii_case(&state.game)
        {
            return refuse(format!("it tunes {}, not {game}", state.game));
        }
        if let Some(games) = self.games
            && games / 2 != state.schedule.iterations
        {
            return refuse(format!(
                "it plans {} games, not {games}",
                state.schedule.iterations * 2
            ));
        }
        if let Some(params) = params {
            let names = |p: &[Param]| p.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
            if names(params) != names(&state.params) {
                return refuse("it tunes other parameters than --params lists".into());
            }
        }
        Ok(())
    }

    /// The games each pair plays, checked before the first: the player
    /// spec, the time, the openings and every parameter's option.
    fn pair_player(&self, spsa: &Spsa) -> Result<MatchPairs, String> {
        let player =
            PlayerSpec::parse(&self.engine)?.with_engine_options(self.engine_options.clone())?;
        if let PlayerKind::Builtin(_) = &player.kind {
            visit_game(&spsa.game, Applicable(&spsa.params))??;
        }
        let time = match (self.movetime, &self.tc, self.nodes) {
            (Some(ms), None, _) if ms > 0 => TimeControl::movetime(ms),
            (None, Some(tc), _) => TimeControl::parse_clock(tc)?,
            (None, None, Some(nodes)) if nodes > 0 => TimeControl::for_nodes(),
            _ => {
                return Err(
                    "give one of --movetime MS, --tc BASE+INC or --nodes N (above 0)".into(),
                );
            }
        };
        let openings = match &self.openings {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
                read_openings(&text).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => Vec::new(),
        };
        let pairs = MatchPairs {
            game: spsa.game.clone(),
            options: self.options.clone(),
            player,
            time,
            nodes: self.nodes,
            openings,
            seed: spsa.seed,
            max_plies: self.max_plies,
            handshake_timeout: Duration::from_millis(self.handshake_timeout_ms.max(1)),
            stop: self.stop.clone(),
        };
        // Both sides' specs are made (and their values checked) now.
        let trial = spsa.trial(spsa.iteration(spsa.played));
        pairs.side("plus", &spsa.side(&trial, 1.0))?;
        pairs.side("minus", &spsa.side(&trial, -1.0))?;
        Ok(pairs)
    }
}

fn read_params(path: &PathBuf) -> Result<Vec<Param>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    parse_params(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_state(path: &PathBuf) -> Result<Spsa, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    Spsa::from_text(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A game's tunables as parameters.
struct Tunables;

impl GameVisitor for Tunables {
    type Output = Vec<Param>;
    fn visit<G: Game>(self) -> Vec<Param> {
        tunables_of(&G::search_tuning())
    }
}

/// Checks that every `Tune.` parameter applies to the game's search (the
/// built-in player would otherwise ignore it silently).
struct Applicable<'a>(&'a [Param]);

impl GameVisitor for Applicable<'_> {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let tuning = G::search_tuning();
        for param in self.0 {
            let lower = param.name.to_ascii_lowercase();
            let Some(name) = lower.strip_prefix("tune.") else {
                continue;
            };
            let tunable = find_tunable(name)?;
            if tunable.value(&tuning).is_none() {
                return Err(format!(
                    "{} does not apply to {}: the technique it sets is off in its search",
                    param.name,
                    G::NAME
                ));
            }
            if param.min < f64::from(tunable.min) || param.max > f64::from(tunable.max) {
                return Err(format!(
                    "{} must be from {} to {}: the range {}..{} of --params goes outside it",
                    param.name, tunable.min, tunable.max, param.min, param.max
                ));
            }
        }
        Ok(())
    }
}
