//! Engine-wide options (as opposed to each game's own options): memory,
//! threads, which search to use, and time reserved for communication.

use crate::game::{Game, OptionKind, OptionSpec, parse_combo, parse_spin};
use crate::games::{GameVisitor, visit_game};
use crate::network::Network;
use crate::search::mcts::{MctsConfig, Parallel};
use crate::tuning::{SearchTuning, find_tunable};
use std::sync::Arc;

/// The `EvalFile` value meaning "the networks built into the binary".
pub const EMBEDDED_NETWORK: &str = "<embedded>";

/// Which static evaluation alpha-beta uses (`Eval`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalChoice {
    /// The game's network where it has one, else its classic evaluation.
    Auto,
    /// The game's hand-written evaluation.
    Classic,
}

impl EvalChoice {
    /// The option value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            EvalChoice::Auto => "auto",
            EvalChoice::Classic => "classic",
        }
    }

    /// Reads an option value.
    pub fn parse(value: &str) -> Result<EvalChoice, String> {
        match parse_combo("Eval", value, &["auto", "classic"])? {
            "auto" => Ok(EvalChoice::Auto),
            _ => Ok(EvalChoice::Classic),
        }
    }
}

/// Which search `go` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchChoice {
    /// Perfect play where known, else alpha-beta (which beat MCTS in every
    /// game measured).
    Auto,
    /// Always alpha-beta.
    AlphaBeta,
    /// Always MCTS.
    Mcts,
    /// The search over whole turns, where the game has one (CTOR), else
    /// alpha-beta.
    Turns,
}

impl SearchChoice {
    /// The option value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            SearchChoice::Auto => "auto",
            SearchChoice::AlphaBeta => "alphabeta",
            SearchChoice::Mcts => "mcts",
            SearchChoice::Turns => "turns",
        }
    }

    /// Reads an option value.
    pub fn parse(value: &str) -> Result<SearchChoice, String> {
        match parse_combo("Search", value, &["auto", "alphabeta", "mcts", "turns"])? {
            "auto" => Ok(SearchChoice::Auto),
            "alphabeta" => Ok(SearchChoice::AlphaBeta),
            "turns" => Ok(SearchChoice::Turns),
            _ => Ok(SearchChoice::Mcts),
        }
    }
}

/// How MCTS playouts choose moves (`Playout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayoutChoice {
    /// The better of the two for the game ([`crate::game::Game::policy_playouts`]).
    Auto,
    /// Uniformly random moves.
    Random,
    /// The game's cheap playout policy.
    Policy,
}

impl PlayoutChoice {
    /// The option value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            PlayoutChoice::Auto => "auto",
            PlayoutChoice::Random => "random",
            PlayoutChoice::Policy => "policy",
        }
    }

    /// Reads an option value.
    pub fn parse(value: &str) -> Result<PlayoutChoice, String> {
        match parse_combo("Playout", value, &["auto", "random", "policy"])? {
            "auto" => Ok(PlayoutChoice::Auto),
            "random" => Ok(PlayoutChoice::Random),
            _ => Ok(PlayoutChoice::Policy),
        }
    }
}

/// How the search treats what the side to move cannot see (`HiddenInfo`;
/// CTOR's secret squares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HiddenChoice {
    /// Searches `Samples` samples of the hidden information consistent
    /// with what was observed and plays the best average.
    Sample,
    /// Plays as if nothing were hidden (the opponent has no secret squares
    /// left), still accepting what the opponent reveals.
    Ignore,
    /// One search in which the hidden information is taken in expectation
    /// ([`crate::game::HiddenInformation::expect_hidden`]).
    Expect,
}

impl HiddenChoice {
    /// The option value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            HiddenChoice::Sample => "sample",
            HiddenChoice::Ignore => "ignore",
            HiddenChoice::Expect => "expect",
        }
    }

    /// Reads an option value.
    pub fn parse(value: &str) -> Result<HiddenChoice, String> {
        match parse_combo("HiddenInfo", value, &["expect", "sample", "ignore"])? {
            "sample" => Ok(HiddenChoice::Sample),
            "ignore" => Ok(HiddenChoice::Ignore),
            _ => Ok(HiddenChoice::Expect),
        }
    }
}

/// Largest `Samples` value.
pub const MAX_SAMPLES: i64 = 64;

/// Largest `Hash` value, in MiB.
pub const MAX_HASH_MB: i64 = 65_536;
/// Largest `Threads` value.
pub const MAX_THREADS: i64 = 256;

/// The engine-wide option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Memory for the transposition table or the MCTS tree, in MiB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Which search to run.
    pub search: SearchChoice,
    /// Milliseconds kept in reserve on every move for communication.
    pub move_overhead_ms: u64,
    /// MCTS playout policy.
    pub playout: PlayoutChoice,
    /// MCTS exploration constant, in hundredths.
    pub exploration_centi: u32,
    /// How MCTS threads share the work.
    pub parallel: Parallel,
    /// Which evaluation alpha-beta uses.
    pub eval: EvalChoice,
    /// Networks loaded with `EvalFile`, at most one per game, used instead
    /// of the embedded one of their game.
    pub eval_files: Vec<Arc<Network>>,
    /// How hidden information is searched.
    pub hidden: HiddenChoice,
    /// Samples of the hidden information per move (`Samples`).
    pub samples: usize,
    /// Search parameters set with `Tune.<name>` (for `agon tune`), over
    /// the game's own [`SearchTuning`]; never announced after `ugi`.
    pub tuned: Vec<(&'static str, i32)>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: 64,
            threads: 1,
            search: SearchChoice::Auto,
            move_overhead_ms: 20,
            playout: PlayoutChoice::Auto,
            exploration_centi: 100,
            parallel: MctsConfig::default().parallel,
            eval: EvalChoice::Auto,
            eval_files: Vec::new(),
            // Neither `expect` nor `sample` has beaten `ignore` in a match
            // yet (CTOR 8×8, 200 ms per operation: 33–43 and 2–23).
            hidden: HiddenChoice::Ignore,
            samples: 4,
            tuned: Vec::new(),
        }
    }
}

impl EngineOptions {
    /// The engine-wide options announced after `ugi` (besides `Game`).
    pub fn specs() -> Vec<OptionSpec> {
        let defaults = EngineOptions::default();
        vec![
            OptionSpec {
                name: "Hash",
                kind: OptionKind::Spin {
                    min: 1,
                    max: MAX_HASH_MB,
                },
                default: defaults.hash_mb.to_string(),
            },
            OptionSpec {
                name: "Threads",
                kind: OptionKind::Spin {
                    min: 1,
                    max: MAX_THREADS,
                },
                default: defaults.threads.to_string(),
            },
            OptionSpec {
                name: "Search",
                kind: OptionKind::Combo(vec!["auto", "alphabeta", "mcts", "turns"]),
                default: defaults.search.name().into(),
            },
            OptionSpec {
                name: "MoveOverhead",
                kind: OptionKind::Spin { min: 0, max: 5000 },
                default: defaults.move_overhead_ms.to_string(),
            },
            OptionSpec {
                name: "Playout",
                kind: OptionKind::Combo(vec!["auto", "random", "policy"]),
                default: defaults.playout.name().into(),
            },
            OptionSpec {
                name: "Parallel",
                kind: OptionKind::Combo(vec!["tree", "root"]),
                default: parallel_name(defaults.parallel).into(),
            },
            OptionSpec {
                name: "Exploration",
                kind: OptionKind::Spin { min: 1, max: 1000 },
                default: defaults.exploration_centi.to_string(),
            },
            OptionSpec {
                name: "Eval",
                kind: OptionKind::Combo(vec!["auto", "classic"]),
                default: defaults.eval.name().into(),
            },
            OptionSpec {
                name: "EvalFile",
                kind: OptionKind::Text,
                default: EMBEDDED_NETWORK.into(),
            },
            OptionSpec {
                name: "HiddenInfo",
                kind: OptionKind::Combo(vec!["expect", "sample", "ignore"]),
                default: defaults.hidden.name().into(),
            },
            OptionSpec {
                name: "Samples",
                kind: OptionKind::Spin {
                    min: 1,
                    max: MAX_SAMPLES,
                },
                default: defaults.samples.to_string(),
            },
        ]
    }

    /// Sets an engine-wide option. `Ok(false)` when `name` is not one of
    /// them; on error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name.to_ascii_lowercase().as_str() {
            "hash" => self.hash_mb = parse_spin("Hash", value, 1, MAX_HASH_MB)? as usize,
            "threads" => self.threads = parse_spin("Threads", value, 1, MAX_THREADS)? as usize,
            "search" => self.search = SearchChoice::parse(value)?,
            "moveoverhead" => {
                self.move_overhead_ms = parse_spin("MoveOverhead", value, 0, 5000)? as u64
            }
            "playout" => self.playout = PlayoutChoice::parse(value)?,
            "parallel" => self.parallel = parse_parallel(value)?,
            "exploration" => {
                self.exploration_centi = parse_spin("Exploration", value, 1, 1000)? as u32
            }
            "eval" => self.eval = EvalChoice::parse(value)?,
            "evalfile" => self.set_eval_file(value)?,
            "hiddeninfo" => self.hidden = HiddenChoice::parse(value)?,
            "samples" => self.samples = parse_spin("Samples", value, 1, MAX_SAMPLES)? as usize,
            lower if lower.starts_with(TUNE_PREFIX) => {
                self.set_tunable(&lower[TUNE_PREFIX.len()..], value)?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `EvalFile`: loads a network file into `networks` for the game it
/// names, replacing that game's embedded network (and any file loaded
/// before for it); `<embedded>` or an empty value empties `networks`, so
/// the embedded networks apply again. A file that cannot be read, is not a
/// network or does not fit its game is refused and nothing changes.
pub fn load_eval_file(value: &str, networks: &mut Vec<Arc<Network>>) -> Result<(), String> {
    if value.is_empty() || value == EMBEDDED_NETWORK || value == "<empty>" {
        networks.clear();
        return Ok(());
    }
    let bytes =
        std::fs::read(value).map_err(|e| format!("EvalFile '{value}': cannot read it: {e}"))?;
    let network = Network::from_bytes(&bytes).map_err(|e| format!("EvalFile '{value}': {e}"))?;
    visit_game(network.game(), FitCheck(&network))
        .and_then(|fits| fits)
        .map_err(|e| format!("EvalFile '{value}': {e}"))?;
    networks.retain(|n| n.game() != network.game());
    networks.push(Arc::new(network));
    Ok(())
}

impl EngineOptions {
    /// `EvalFile` (see [`load_eval_file`]).
    fn set_eval_file(&mut self, value: &str) -> Result<(), String> {
        load_eval_file(value, &mut self.eval_files)
    }

    /// The network alpha-beta evaluates `position` with: none for `Eval
    /// classic`, else the `EvalFile` one, or the embedded one if there is
    /// one for the position's variant.
    pub fn network_for<G: Game>(&self, position: &G) -> Option<Arc<Network>> {
        if self.eval == EvalChoice::Classic {
            return None;
        }
        self.eval_files
            .iter()
            .find(|n| n.game() == G::NAME)
            .cloned()
            .or_else(|| crate::network::embedded_for(position))
    }
}

/// The prefix of the search parameters' option names (`Tune.rfp_base`),
/// in lower case.
pub const TUNE_PREFIX: &str = "tune.";

impl EngineOptions {
    /// `Tune.<name>`: any tunable, within its range (whether it applies to
    /// the game played is the caller's to check, with
    /// [`SearchTuning::set_tunable`]).
    fn set_tunable(&mut self, name: &str, value: &str) -> Result<(), String> {
        let tunable = find_tunable(name)?;
        let option = format!("Tune.{}", tunable.name);
        let value = parse_spin(&option, value, tunable.min.into(), tunable.max.into())? as i32;
        match self.tuned.iter_mut().find(|(n, _)| *n == tunable.name) {
            Some(entry) => entry.1 = value,
            None => self.tuned.push((tunable.name, value)),
        }
        Ok(())
    }

    /// Game `G`'s search parameters with the `Tune.` options applied.
    pub fn search_tuning<G: Game>(&self) -> SearchTuning {
        G::search_tuning().with_overrides(&self.tuned)
    }
}

/// Checks that a network fits the game it names.
struct FitCheck<'a>(&'a Network);

impl GameVisitor for FitCheck<'_> {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        self.0.check_fits::<G>()
    }
}

/// The option value naming an MCTS parallel scheme.
pub fn parallel_name(parallel: Parallel) -> &'static str {
    match parallel {
        Parallel::Tree => "tree",
        Parallel::Root => "root",
    }
}

/// Reads the `Parallel` option value.
pub fn parse_parallel(value: &str) -> Result<Parallel, String> {
    match parse_combo("Parallel", value, &["tree", "root"])? {
        "tree" => Ok(Parallel::Tree),
        _ => Ok(Parallel::Root),
    }
}
