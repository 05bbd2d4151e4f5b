//! Player specifications of `agon match --p1/--p2`:
//!
//! - `agon[:key=value,…]`: a built-in player running in this process. Keys:
//!   `search=auto|alphabeta|mcts` (as the engine's `Search` option: auto
//!   is perfect play where the game knows it, else alpha-beta), `depth=N`,
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

use crate::engine::options::EngineOptions;
use crate::game::{parse_check, parse_combo, parse_spin};

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
    /// The engine's options, set by the keys named after them (`hash=`,
    /// `search=`, …) and read by the engine's one parser, so a value is
    /// refused here exactly as over the protocol.
    pub engine: EngineOptions,
    /// Maximum depth per move, on top of the time control.
    pub depth: Option<u32>,
    /// Maximum nodes per move, on top of the time control.
    pub nodes: Option<u64>,
    /// Whether this player picks its own secret squares (`secrets=auto`)
    /// rather than being dealt random ones (`secrets=random`).
    pub choose_secrets: bool,
    /// Whether this player sees what the rules hide from it (`peek=true`):
    /// an oracle for measurements, never a fair player.
    pub peek: bool,
}

/// Memory of a built-in player's search by default, MiB: less than the
/// engine's 64, as matches run several players and games at once.
pub const BUILTIN_HASH_MB: usize = 16;

impl Default for BuiltinSpec {
    fn default() -> Self {
        BuiltinSpec {
            kind: BuiltinKind::Engine,
            engine: EngineOptions {
                hash_mb: BUILTIN_HASH_MB,
                ..EngineOptions::default()
            },
            depth: None,
            nodes: None,
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
    /// How far below this program's the process's scheduling priority is
    /// set (Unix `nice`, 0 to 19): 0 in matches, where every engine gets
    /// the same share of the machine; the web board sets it so that the
    /// page it draws is not kept waiting by the engine it shows.
    pub niceness: i32,
    /// Nodes per move, sent with every `go` (`agon match --nodes`, as
    /// cutechess's `nodes=`).
    pub nodes: Option<u64>,
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
    /// Limits every move to `nodes` (`agon match --nodes`, as
    /// cutechess's `-each nodes=N`): an external engine is sent `go …
    /// nodes N`; a built-in player keeps a `nodes=` of its own spec (an
    /// MCTS player's nodes are playouts, not an alpha-beta's nodes).
    pub fn with_default_nodes(mut self, nodes: Option<u64>) -> Self {
        match &mut self.kind {
            PlayerKind::Builtin(builtin) => builtin.nodes = builtin.nodes.or(nodes),
            PlayerKind::External(external) => external.nodes = nodes,
        }
        self
    }

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
            niceness: 0,
            nodes: None,
        }),
    })
}

/// The player keys that set an engine option, and the option each sets.
const ENGINE_KEYS: [(&str, &str); 10] = [
    ("search", "Search"),
    ("threads", "Threads"),
    ("hash", "Hash"),
    ("playout", "Playout"),
    ("parallel", "Parallel"),
    ("exploration", "Exploration"),
    ("eval", "Eval"),
    ("evalfile", "EvalFile"),
    ("hidden", "HiddenInfo"),
    ("samples", "Samples"),
];

fn set_key(spec: &mut BuiltinSpec, key: &str, value: &str) -> Result<(), String> {
    if let Some(&(_, option)) = ENGINE_KEYS.iter().find(|(k, _)| *k == key) {
        spec.engine.set(option, value)?;
        return Ok(());
    }
    match key {
        "player" => {
            spec.kind = match parse_combo("player", value, &["engine", "baseline", "random"])? {
                "engine" => BuiltinKind::Engine,
                "baseline" => BuiltinKind::Baseline,
                _ => BuiltinKind::Random,
            }
        }
        "depth" => {
            let max = i64::from(crate::search::alphabeta::MAX_DEPTH);
            spec.depth = Some(parse_spin("depth", value, 1, max)? as u32);
        }
        "nodes" => spec.nodes = Some(parse_spin("nodes", value, 1, i64::MAX)? as u64),
        "secrets" => {
            spec.choose_secrets = parse_combo("secrets", value, &["auto", "random"])? == "auto"
        }
        "peek" => spec.peek = parse_check("peek", value)?,
        _ => {
            let engine_keys: Vec<&str> = ENGINE_KEYS.iter().map(|(k, _)| *k).collect();
            return Err(format!(
                "unknown player key '{key}' (keys: {}, depth, nodes, secrets, peek, player, name)",
                engine_keys.join(", ")
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
            (builtin.depth, builtin.engine.hash_mb, builtin.kind),
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

    #[test]
    fn engine_keys_are_refused_out_of_range_as_over_the_protocol() {
        // `threads` and `hash` used to be clamped silently here while the
        // protocol refused the same values.
        for (key, option) in ENGINE_KEYS {
            for value in ["0", "-1", "999999", "x"] {
                let mut protocol = EngineOptions::default();
                let over_protocol = protocol.set(option, value);
                let as_key = PlayerSpec::parse(&format!("agon:{key}={value}"));
                assert_eq!(
                    over_protocol.is_err(),
                    as_key.is_err(),
                    "{key}={value}: {over_protocol:?} {as_key:?}"
                );
                if let (Err(protocol), Err(key)) = (over_protocol, as_key) {
                    assert_eq!(protocol, key);
                }
            }
        }
        let spec = PlayerSpec::parse("agon:threads=2,hash=8,search=MCTS").expect("valid");
        let PlayerKind::Builtin(builtin) = spec.kind else {
            panic!("built-in expected");
        };
        let mut expected = BuiltinSpec::default().engine;
        for (name, value) in [("Threads", "2"), ("Hash", "8"), ("Search", "mcts")] {
            expected.set(name, value).expect("valid");
        }
        assert_eq!(builtin.engine, expected);
    }
}
