//! Player specifications of `agon match --p1/--p2`:
//!
//! - `agon[:key=value,…]`: a built-in player running in this process. Keys:
//!   `search=auto|alphabeta|mcts` (as the engine's `Search` option: auto
//!   is perfect play where the game knows it, else the game's better search), `depth=N`,
//!   `nodes=N`, `threads=N`, `hash=MB`, `playout=auto|random|policy`,
//!   `exploration=N`, `parallel=tree|root` (MCTS, as the UGI options),
//!   `eval=auto|classic`, `evalfile=PATH` (as `Eval`/`EvalFile`),
//!   `hidden=expect|sample|ignore`, `samples=N` (as `HiddenInfo`/`Samples`),
//!   `secrets=auto|random` (CTOR with `Secrets`: the player picks its own
//!   secret squares, or the referee deals random ones, the default),
//!   `peek=true|false` (an oracle for measurements: the player sees the
//!   opponent's hidden information too, e.g. its secret squares, so a
//!   match against it bounds what any hidden-information search can gain),
//!   `player=engine|baseline|random`,
//!   `name=TEXT` (the name printed in results).
//! - `ugi:<command line>` / `uai:<command line>`: an external engine started
//!   as a process and driven over UGI or UAI. The command line is split on
//!   spaces; single or double quotes keep spaces inside one argument.

use crate::network::Network;
use crate::protocol::options::{
    EngineOptions, EvalChoice, HiddenChoice, MAX_SAMPLES, PlayoutChoice, SearchChoice,
    parse_parallel,
};
use crate::search::mcts::Parallel;
use std::sync::Arc;

/// What kind of built-in player moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinKind {
    /// The engine's search.
    Engine,
    /// The game's baseline player ([`crate::game::Game::baseline_move`]),
    /// uniformly random where the game has none.
    Baseline,
    /// Uniformly random legal moves.
    Random,
}

/// A built-in player's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinSpec {
    /// Engine, baseline or random.
    pub kind: BuiltinKind,
    /// Which search the engine runs.
    pub search: SearchChoice,
    /// Maximum depth per move, on top of the time control.
    pub depth: Option<u32>,
    /// Maximum nodes per move, on top of the time control.
    pub nodes: Option<u64>,
    /// Search threads (used by MCTS).
    pub threads: usize,
    /// Transposition table size, MiB.
    pub hash_mb: usize,
    /// MCTS playout policy.
    pub playout: PlayoutChoice,
    /// MCTS exploration constant × 100.
    pub exploration_centi: u32,
    /// How MCTS threads share the work.
    pub parallel: Parallel,
    /// Which evaluation alpha-beta uses.
    pub eval: EvalChoice,
    /// Networks loaded with `evalfile=` (see `EvalFile`).
    pub eval_files: Vec<Arc<Network>>,
    /// How hidden information is searched (`hidden=`, as `HiddenInfo`).
    pub hidden: HiddenChoice,
    /// Samples of hidden information per move (`samples=`).
    pub samples: usize,
    /// Whether this player picks its own secret squares (`secrets=auto`)
    /// rather than being dealt random ones (`secrets=random`).
    pub choose_secrets: bool,
    /// Whether this player sees what the rules hide from it (`peek=true`):
    /// an oracle for measurements, never a fair player.
    pub peek: bool,
}

impl Default for BuiltinSpec {
    fn default() -> Self {
        BuiltinSpec {
            kind: BuiltinKind::Engine,
            search: SearchChoice::Auto,
            depth: None,
            nodes: None,
            threads: 1,
            hash_mb: 16,
            playout: PlayoutChoice::Auto,
            exploration_centi: EngineOptions::default().exploration_centi,
            parallel: EngineOptions::default().parallel,
            eval: EvalChoice::Auto,
            eval_files: Vec::new(),
            hidden: EngineOptions::default().hidden,
            samples: EngineOptions::default().samples,
            choose_secrets: false,
            peek: false,
        }
    }
}

/// The protocol an external engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// UGI (`ugi`/`ugiok`, `p1time`…).
    Ugi,
    /// UAI (`uai`/`uaiok`, `btime`…), Ataxx only.
    Uai,
}

/// An external engine: its protocol and command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalSpec {
    /// UGI or UAI.
    pub dialect: Dialect,
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Engine options (`setoption name N value V`), sent after the game's
    /// options each time the process starts (`--p1-option`).
    pub options: Vec<(String, String)>,
}

/// What plays: built in, or an external process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// A player running inside this process.
    Builtin(BuiltinSpec),
    /// An engine process.
    External(ExternalSpec),
}

/// One side of a match: what plays and the name printed for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// The name used in results and game records.
    pub name: String,
    /// What plays.
    pub kind: PlayerKind,
}

impl PlayerSpec {
    /// Gives an external engine these options (`--p1-option NAME=VALUE`,
    /// as cutechess-cli's `option.NAME=VALUE`); a built-in player takes
    /// its settings in its spec instead, so options for one are an error.
    pub fn with_engine_options(mut self, options: Vec<(String, String)>) -> Result<Self, String> {
        if options.is_empty() {
            return Ok(self);
        }
        match &mut self.kind {
            PlayerKind::External(external) => {
                external.options = options;
                Ok(self)
            }
            PlayerKind::Builtin(_) => Err(format!(
                "'{}' is a built-in player: engine options are for ugi:/uai: players (built-in players take agon:key=value)",
                self.name
            )),
        }
    }

    /// Parses a `--p1`/`--p2` value.
    pub fn parse(text: &str) -> Result<PlayerSpec, String> {
        let text = text.trim();
        if let Some(command) = text.strip_prefix("ugi:") {
            return external(text, Dialect::Ugi, command);
        }
        if let Some(command) = text.strip_prefix("uai:") {
            return external(text, Dialect::Uai, command);
        }
        let keys = match text.strip_prefix("agon") {
            Some("") => "",
            Some(rest) if rest.starts_with(':') => &rest[1..],
            _ => {
                return Err(format!(
                    "player '{text}' must be agon[:key=value,…], ugi:<command> or uai:<command>"
                ));
            }
        };
        let mut spec = BuiltinSpec::default();
        let mut name = text.to_owned();
        for pair in keys.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("player key '{pair}' must be key=value"))?;
            if key.trim() == "name" {
                name = value.trim().to_owned();
            } else {
                set_key(&mut spec, key.trim(), value.trim())?;
            }
        }
        Ok(PlayerSpec {
            name,
            kind: PlayerKind::Builtin(spec),
        })
    }
}

fn external(text: &str, dialect: Dialect, command: &str) -> Result<PlayerSpec, String> {
    let words = split_command_line(command)?;
    let Some((program, args)) = words.split_first() else {
        return Err(format!("player '{text}' has no command"));
    };
    // Name the engine after its program file, not its whole path.
    let base = std::path::Path::new(program)
        .file_name()
        .map_or(program.clone(), |f| f.to_string_lossy().into_owned());
    let prefix = match dialect {
        Dialect::Ugi => "ugi",
        Dialect::Uai => "uai",
    };
    let mut name = format!("{prefix}:{base}");
    for arg in args {
        name.push(' ');
        name.push_str(arg);
    }
    Ok(PlayerSpec {
        name,
        kind: PlayerKind::External(ExternalSpec {
            dialect,
            program: program.clone(),
            args: args.to_vec(),
            options: Vec::new(),
        }),
    })
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("player key {key} takes a positive integer, not '{value}'"))
}

fn set_key(spec: &mut BuiltinSpec, key: &str, value: &str) -> Result<(), String> {
    match key {
        "search" => {
            spec.search = SearchChoice::parse(value)?;
        }
        "player" => {
            spec.kind = match value {
                "engine" => BuiltinKind::Engine,
                "baseline" => BuiltinKind::Baseline,
                "random" => BuiltinKind::Random,
                _ => {
                    return Err(format!(
                        "player must be engine, baseline or random, not '{value}'"
                    ));
                }
            }
        }
        "depth" => {
            let depth: u32 = number(key, value)?;
            let max = crate::search::alphabeta::MAX_DEPTH;
            if depth == 0 || depth > max {
                return Err(format!("depth must be 1 to {max}, not {depth}"));
            }
            spec.depth = Some(depth);
        }
        "nodes" => spec.nodes = Some(number::<u64>(key, value)?.max(1)),
        "threads" => spec.threads = number::<usize>(key, value)?.clamp(1, 256),
        "hash" => spec.hash_mb = number::<usize>(key, value)?.clamp(1, 65_536),
        "playout" => spec.playout = PlayoutChoice::parse(value)?,
        "parallel" => spec.parallel = parse_parallel(value)?,
        "exploration" => spec.exploration_centi = number::<u32>(key, value)?.clamp(1, 1000),
        "eval" => spec.eval = EvalChoice::parse(value)?,
        "hidden" => spec.hidden = HiddenChoice::parse(value)?,
        "samples" => spec.samples = number::<usize>(key, value)?.clamp(1, MAX_SAMPLES as usize),
        "secrets" => {
            spec.choose_secrets = match value {
                "auto" => true,
                "random" => false,
                _ => return Err(format!("secrets must be auto or random, not '{value}'")),
            }
        }
        "peek" => {
            spec.peek = match value {
                "true" => true,
                "false" => false,
                _ => return Err(format!("peek must be true or false, not '{value}'")),
            }
        }
        "evalfile" => crate::protocol::options::load_eval_file(value, &mut spec.eval_files)?,
        _ => {
            return Err(format!(
                "unknown player key '{key}' (keys: search, depth, nodes, threads, hash, playout, exploration, parallel, eval, evalfile, hidden, samples, secrets, peek, player, name)"
            ));
        }
    }
    Ok(())
}

/// Splits a command line on blanks; `'…'` and `"…"` keep blanks inside one
/// argument, and a backslash outside single quotes escapes the next
/// character.
pub fn split_command_line(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => current.push(c),
            (_, '\\') => {
                let next = chars
                    .next()
                    .ok_or_else(|| format!("command line '{text}' ends with a backslash"))?;
                current.push(next);
                in_word = true;
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("command line '{text}' has an unclosed quote"));
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines_with_quotes() {
        assert_eq!(
            split_command_line(r#"/bin/eng --x "a b" 'c d' e\ f"#),
            Ok(vec![
                "/bin/eng".to_owned(),
                "--x".into(),
                "a b".into(),
                "c d".into(),
                "e f".into()
            ])
        );
        assert_eq!(split_command_line("''"), Ok(vec![String::new()]));
        assert!(split_command_line("\"open").is_err());
    }

    #[test]
    fn parses_builtin_and_external_specs() {
        let spec = PlayerSpec::parse("agon:depth=3,hash=8,player=random").expect("valid");
        let PlayerKind::Builtin(builtin) = spec.kind else {
            panic!("built-in expected");
        };
        assert_eq!(
            (builtin.depth, builtin.hash_mb, builtin.kind),
            (Some(3), 8, BuiltinKind::Random)
        );
        let spec = PlayerSpec::parse("agon:peek=true").expect("valid");
        assert!(matches!(spec.kind, PlayerKind::Builtin(ref b) if b.peek));
        let spec = PlayerSpec::parse("ugi:/usr/bin/agon ugi").expect("valid");
        assert_eq!(spec.name, "ugi:agon ugi");
        assert!(matches!(spec.kind, PlayerKind::External(ref e) if e.program == "/usr/bin/agon"));
        for bad in [
            "agon:depth=0",
            "agon:wibble=1",
            "agon:peek=yes",
            "agonx",
            "ugi:",
            "stockfish",
        ] {
            assert!(PlayerSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
