//! Engine-wide options (as opposed to each game's own options): memory,
//! threads, which search to use, and time reserved for communication.

use crate::game::{OptionKind, OptionSpec};
use crate::search::mcts::{MctsConfig, Parallel};

/// Which search `go` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchChoice {
    /// Perfect play where known, else the better search for the game.
    Auto,
    /// Always alpha-beta.
    AlphaBeta,
    /// Always MCTS.
    Mcts,
}

impl SearchChoice {
    /// The option value naming this choice.
    pub fn name(self) -> &'static str {
        match self {
            SearchChoice::Auto => "auto",
            SearchChoice::AlphaBeta => "alphabeta",
            SearchChoice::Mcts => "mcts",
        }
    }

    /// Reads an option value.
    pub fn parse(value: &str) -> Result<SearchChoice, String> {
        match value.to_ascii_lowercase().as_str() {
            "auto" => Ok(SearchChoice::Auto),
            "alphabeta" => Ok(SearchChoice::AlphaBeta),
            "mcts" => Ok(SearchChoice::Mcts),
            _ => Err(format!(
                "Search must be auto, alphabeta or mcts, not '{value}'"
            )),
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
        match value.to_ascii_lowercase().as_str() {
            "auto" => Ok(PlayoutChoice::Auto),
            "random" => Ok(PlayoutChoice::Random),
            "policy" => Ok(PlayoutChoice::Policy),
            _ => Err(format!(
                "Playout must be auto, random or policy, not '{value}'"
            )),
        }
    }
}

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
                kind: OptionKind::Combo(vec!["auto", "alphabeta", "mcts"]),
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
            _ => return Ok(false),
        }
        Ok(true)
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
    match value.to_ascii_lowercase().as_str() {
        "tree" => Ok(Parallel::Tree),
        "root" => Ok(Parallel::Root),
        _ => Err(format!("Parallel must be tree or root, not '{value}'")),
    }
}

/// Parses a `spin` value within its bounds.
pub fn parse_spin(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    let number: i64 = value.parse().map_err(|_| {
        format!("option {name} takes an integer from {min} to {max}, not '{value}'")
    })?;
    if number < min || number > max {
        return Err(format!(
            "option {name} must be from {min} to {max}, not {number}"
        ));
    }
    Ok(number)
}
