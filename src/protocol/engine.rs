//! The protocol engine: one command line in, zero or more lines out.
//!
//! The input thread owns the [`Engine`] and runs every command; `go` hands a
//! copy of the position to a search thread, so `isready`, `stop`, `query` and
//! even `position` are answered while it thinks. Every command either fully
//! succeeds or leaves the state exactly as it was and prints
//! `info string error: …`.

use super::output::Output;
use super::session::{MakeSession, SearchSignals, Session};
use crate::engine::options::{EngineOptions, TUNE_PREFIX};
use crate::game::{EMPTY_DEFAULT, OptionKind, OptionSpec, Player};
use crate::games::{GAME_NAMES, visit_game};
use crate::search::alphabeta::MAX_DEPTH;
use crate::search::time::{Dialect, GoParams};
use crate::tuning::find_tunable;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

/// What the input loop does after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A search running on its own thread.
struct RunningSearch {
    signals: SearchSignals,
    thread: JoinHandle<()>,
    /// Whether only `stop` ends it (`go infinite` or `go` with no limit).
    unbounded: bool,
}

/// The whole protocol state: every game's session, engine options and the
/// running search, if any.
pub struct Engine {
    sessions: Vec<Box<dyn Session>>,
    current: usize,
    options: EngineOptions,
    dialect: Dialect,
    out: Output,
    search: Option<RunningSearch>,
}

impl Engine {
    /// An engine writing to `out`, playing the default game (Ataxx).
    pub fn new(out: Output) -> Engine {
        let sessions = GAME_NAMES
            .iter()
            .filter_map(|name| visit_game(name, MakeSession).ok())
            .collect();
        Engine {
            sessions,
            current: 0,
            options: EngineOptions::default(),
            dialect: Dialect::Ugi,
            out,
            search: None,
        }
    }

    fn session(&self) -> &dyn Session {
        self.sessions[self.current].as_ref()
    }

    fn session_mut(&mut self) -> &mut dyn Session {
        self.sessions[self.current].as_mut()
    }

    /// Whether a search is still running (reaping a finished one).
    pub fn is_searching(&mut self) -> bool {
        // `done` is set before `bestmove` is printed: from then on the
        // thread only has to exit, so waiting for it is immediate.
        let answered =
            |s: &RunningSearch| s.signals.done.load(Ordering::Acquire) || s.thread.is_finished();
        if self.search.as_ref().is_some_and(answered) {
            self.wait_for_search();
        }
        self.search.is_some()
    }

    /// Asks the running search to stop and waits for its `bestmove`.
    pub fn stop_search(&mut self) {
        if let Some(search) = &self.search {
            search.signals.stop.store(true, Ordering::Relaxed);
        }
        self.wait_for_search();
    }

    /// At end of input: a bounded search is allowed to finish (so that
    /// `echo "go depth 8" | agon` prints its answer); an unbounded one is
    /// stopped.
    pub fn finish_at_end_of_input(&mut self) {
        if self.search.as_ref().is_some_and(|s| s.unbounded) {
            self.stop_search();
        } else {
            self.wait_for_search();
        }
    }

    fn wait_for_search(&mut self) {
        if let Some(search) = self.search.take()
            && search.thread.join().is_err()
        {
            self.out.error("the search thread failed");
        }
    }

    /// Runs one command line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Flow::Continue;
        };
        let result = match command {
            "ugi" => {
                self.dialect = Dialect::Ugi;
                let prepared = self.prepare_if_idle();
                self.report_error(prepared);
                self.announce("ugiok");
                Ok(())
            }
            "uai" => self.enter_uai(),
            "isready" => {
                let prepared = self.prepare_if_idle();
                self.report_error(prepared);
                self.out.line("readyok");
                Ok(())
            }
            "setoption" => self.when_idle(|engine| engine.set_option(args)),
            "uginewgame" | "uainewgame" => self.when_idle(|engine| {
                engine.session_mut().new_game();
                Ok(())
            }),
            "position" => self.set_position(args),
            "go" => self.go(args),
            "stop" => {
                self.stop_search();
                Ok(())
            }
            "query" => self.query(args),
            "d" => {
                self.print_diagram();
                Ok(())
            }
            "perft" => self.when_idle(|engine| engine.perft(args)),
            "quit" => {
                self.stop_search();
                return Flow::Quit;
            }
            _ => Err(format!("unknown command '{}'", truncate(command))),
        };
        if let Err(message) = result {
            self.out.error(&message);
        }
        Flow::Continue
    }

    /// Prints the error line of a step that does not stop its command.
    fn report_error(&self, result: Result<(), String>) {
        if let Err(message) = result {
            self.out.error(&message);
        }
    }

    /// Runs a state-changing command only when no search is running.
    fn when_idle(
        &mut self,
        command: impl FnOnce(&mut Engine) -> Result<(), String>,
    ) -> Result<(), String> {
        if self.is_searching() {
            return Err("a search is running; send stop first".into());
        }
        command(self)
    }

    /// `id`, `option` lines and the closing `ugiok`/`uaiok`.
    fn announce(&self, closing: &str) {
        self.out
            .line(&format!("id name Agon {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the Agon developers");
        for spec in self.all_option_specs() {
            self.out.line(&spec.ugi_line());
        }
        self.out.line(closing);
    }

    /// `Game`, the engine options, then every game's options once by name
    /// (an option shared by several games, such as `Size`, is announced as
    /// free text when their types differ).
    fn all_option_specs(&self) -> Vec<OptionSpec> {
        let mut specs = vec![OptionSpec {
            name: "Game",
            kind: OptionKind::Combo(GAME_NAMES.to_vec()),
            default: GAME_NAMES[0].into(),
        }];
        specs.extend(EngineOptions::specs());
        for session in &self.sessions {
            for spec in session.option_specs() {
                match specs.iter_mut().find(|s| s.name == spec.name) {
                    // Shared by games that differ (`Size`: `4x4` for dots,
                    // `8` for ctor): a string whose empty default means
                    // "each game's own default".
                    Some(existing)
                        if existing.kind != spec.kind || existing.default != spec.default =>
                    {
                        existing.kind = OptionKind::Text;
                        existing.default = EMPTY_DEFAULT.into();
                    }
                    Some(_) => {}
                    None => specs.push(spec),
                }
            }
        }
        specs
    }

    /// `uai`: Ataxx with standard rules, clocks named `btime`/`wtime`.
    fn enter_uai(&mut self) -> Result<(), String> {
        self.when_idle(|engine| {
            let ataxx = engine
                .sessions
                .iter()
                .position(|s| s.name() == "ataxx")
                .ok_or("UAI needs the ataxx game, which is not built in")?;
            engine.sessions[ataxx].set_option("Rules", "standard")?;
            engine.switch_game(ataxx);
            engine.dialect = Dialect::Uai;
            let prepared = engine.prepare_search();
            engine.report_error(prepared);
            engine.announce("uaiok");
            Ok(())
        })
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        let (name, value) = parse_setoption(args)?;
        if let Some(tunable) = strip_prefix_ignore_case(&name, TUNE_PREFIX) {
            return self.set_tunable(&name, tunable, &value);
        }
        self.check_empty_value(&name, &value)?;
        if name.eq_ignore_ascii_case("Game") {
            let index = self
                .sessions
                .iter()
                .position(|s| s.name().eq_ignore_ascii_case(&value))
                .ok_or_else(|| {
                    format!(
                        "unknown game '{}' (games: {})",
                        truncate(&value),
                        GAME_NAMES.join(", ")
                    )
                })?;
            self.switch_game(index);
            // The option is set; memory the system refuses is a notice (the
            // search keeps a smaller table), as at `isready`.
            let prepared = self.prepare_search();
            self.report_error(prepared);
            return Ok(());
        }
        if self.options.set(&name, &value)? {
            // As Stockfish resizes its table at `setoption`: the memory is
            // made now, never inside a search's time.
            let prepared = self.prepare_search();
            self.report_error(prepared);
            return Ok(());
        }
        self.set_game_option(&name, &value)
    }

    /// `Tune.<tunable>`: refused when out of range or when the current
    /// game's search does not have the technique it sets.
    fn set_tunable(&mut self, name: &str, tunable: &str, value: &str) -> Result<(), String> {
        let mut options = self.options.clone();
        options.set(name, value)?;
        let applies = find_tunable(tunable)?
            .value(&self.session().search_tuning(&EngineOptions::default()))
            .is_some();
        if !applies {
            return Err(format!(
                "{name} does not apply to {}: the technique it sets is off in its search",
                self.session().name()
            ));
        }
        self.options = options;
        Ok(())
    }

    /// Makes game `index` the current one. One game's search memory at a
    /// time: a GUI that switches games does not keep a table per game.
    fn switch_game(&mut self, index: usize) {
        if index != self.current {
            self.session_mut().release();
            self.current = index;
        }
    }

    /// One rule for every option: an empty value (or `<empty>`) means the
    /// default of a string option, and is an error for the others (a check,
    /// spin or combo needs a value).
    fn check_empty_value(&self, name: &str, value: &str) -> Result<(), String> {
        if !value.is_empty() && value != EMPTY_DEFAULT {
            return Ok(());
        }
        match self
            .all_option_specs()
            .into_iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name))
        {
            None => Err(format!("unknown option '{}'", truncate(name))),
            Some(spec) if spec.kind == OptionKind::Text => Ok(()),
            Some(spec) => Err(format!(
                "option {} needs a value (only string options take an empty one, meaning their default)",
                spec.name
            )),
        }
    }

    /// [`Engine::prepare_search`] unless a search is running (which holds
    /// the memory).
    fn prepare_if_idle(&mut self) -> Result<(), String> {
        if self.is_searching() {
            return Ok(());
        }
        self.prepare_search()
    }

    /// Makes the current game's search memory for the current options now
    /// (the table `Hash` asks for), so that the next `go` spends none of its
    /// time on it. A size the system refuses is an error line; the search
    /// keeps the table it has (see `Searchers::prepare`).
    fn prepare_search(&mut self) -> Result<(), String> {
        let options = self.options.clone();
        self.session_mut().prepare(&options)
    }

    /// Offers a game option to every game that has one by that name: each
    /// keeps it if valid for it (`Size 4x4` is for dots, `Size 10` for
    /// ctor). An error only when no game accepts it.
    /// An empty value (or `<empty>`: only options announced as strings get
    /// here with one) gives every game its own default, whatever that game's
    /// own kind for the option (`Size` is a combo of `ctor`'s, a string
    /// over the protocol), so [`crate::game::set_option`], which judges by
    /// the game's kind, is not the rule here.
    fn set_game_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let mut errors = Vec::new();
        let mut accepted = false;
        let reset = value.is_empty() || value == EMPTY_DEFAULT;
        for session in &mut self.sessions {
            let spec = session
                .option_specs()
                .into_iter()
                .find(|s| s.name.eq_ignore_ascii_case(name));
            if let Some(spec) = spec {
                let value = if reset { spec.default.as_str() } else { value };
                match session.set_option(name, value) {
                    Ok(()) => accepted = true,
                    Err(e) => errors.push(format!("{}: {e}", session.name())),
                }
            }
        }
        match (accepted, errors.is_empty()) {
            (true, _) => Ok(()),
            (false, true) => Err(format!("unknown option '{}'", truncate(name))),
            (false, false) => Err(errors.join("; ")),
        }
    }

    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        let moves_at = args.iter().position(|&w| w == "moves");
        let (spec, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let fen = match spec.split_first() {
            Some((&"startpos", [])) => None,
            Some((&"fen", fields)) if !fields.is_empty() => Some(fields.join(" ")),
            _ => return Err("usage: position startpos|fen <position> [moves <move>…]".into()),
        };
        self.session_mut().set_position(fen.as_deref(), moves)
    }

    fn go(&mut self, args: &[&str]) -> Result<(), String> {
        if self.is_searching() {
            return Err("a search is already running; send stop first".into());
        }
        let params = GoParams::parse(args, self.dialect)?;
        if let Some(outcome) = self.session().outcome() {
            self.out.error(&format!(
                "the game is over ({}); no move to search",
                outcome.ugi_name()
            ));
            self.out.line("bestmove (none)");
            return Ok(());
        }
        let side = self.session().side_to_move();
        // Only when the clock is used (not with `infinite`).
        if let Some((_, _, true)) = params.clock_for(side).filter(|_| !params.infinite) {
            let (own, other) = match (self.dialect, side) {
                (Dialect::Ugi, Player::X) => ("p1time", "p2time"),
                (Dialect::Ugi, Player::O) => ("p2time", "p1time"),
                (Dialect::Uai, Player::X) => ("btime", "wtime"),
                (Dialect::Uai, Player::O) => ("wtime", "btime"),
            };
            self.out.line(&format!(
                "info string go gives no {own} for the side to move; using {other} for both sides"
            ));
        }
        let signals = SearchSignals::default();
        let out = self.out.clone();
        let options = self.options.clone();
        let thread = self
            .session_mut()
            .start_search(&params, &options, out, signals.clone())?;
        let unbounded = params.is_unbounded();
        self.search = Some(RunningSearch {
            signals,
            thread,
            unbounded,
        });
        Ok(())
    }

    fn query(&mut self, args: &[&str]) -> Result<(), String> {
        let session = self.session();
        let answer = match args {
            ["gameover"] => session.outcome().is_some().to_string(),
            ["p1turn"] => (session.side_to_move() == Player::X).to_string(),
            ["result"] => session
                .outcome()
                .map_or("none", |o| o.ugi_name())
                .to_owned(),
            ["reason"] => session.end_reason().unwrap_or("none").to_owned(),
            ["moves"] => session.legal_moves()?.join(" "),
            ["fen"] => session.fen(),
            ["secrets"] => session
                .secrets()
                .ok_or_else(|| format!("{} has no secret squares", session.name()))?,
            ["tunables"] => {
                let tuning = session.search_tuning(&self.options);
                for (tunable, value) in tuning.tunables() {
                    self.out.line(&format!(
                        "tunable name Tune.{} value {value} min {} max {} step {}",
                        tunable.name, tunable.min, tunable.max, tunable.step
                    ));
                }
                tuning.tunables().count().to_string()
            }
            _ => {
                return Err(
                    "usage: query gameover|p1turn|result|reason|moves|fen|secrets|tunables".into(),
                );
            }
        };
        let line = if answer.is_empty() {
            "response".to_owned()
        } else {
            format!("response {answer}")
        };
        self.out.line(&line);
        Ok(())
    }

    fn print_diagram(&self) {
        for line in self.session().diagram().lines() {
            self.out.line(line);
        }
        self.out.line(&format!("Fen: {}", self.session().fen()));
        let result = self.session().outcome().map_or("none", |o| o.ugi_name());
        self.out.line(&format!(
            "Game: {}, result: {result}",
            self.session().name()
        ));
    }

    fn perft(&mut self, args: &[&str]) -> Result<(), String> {
        let depth = match args {
            [depth] => depth.parse::<u32>().map_err(|_| {
                format!(
                    "perft depth must be a number from 1 to {MAX_DEPTH}, not '{}'",
                    truncate(depth)
                )
            })?,
            _ => return Err("usage: perft <depth>".into()),
        };
        if depth == 0 || depth > MAX_DEPTH {
            return Err(format!(
                "perft depth must be from 1 to {MAX_DEPTH}, not {depth}"
            ));
        }
        let signals = SearchSignals::default();
        let thread = self
            .session()
            .start_perft(depth, self.out.clone(), signals.clone())?;
        // Run like a bounded search: `isready` is answered meanwhile,
        // `stop` ends it, end of input lets it finish.
        self.search = Some(RunningSearch {
            signals,
            thread,
            unbounded: false,
        });
        Ok(())
    }
}

/// Splits `name <N…> [value <V…>]`; names and values may contain spaces.
fn parse_setoption(args: &[&str]) -> Result<(String, String), String> {
    let usage = "usage: setoption name <name> [value <value>]";
    let rest = match args.split_first() {
        Some((&"name", rest)) if !rest.is_empty() => rest,
        _ => return Err(usage.into()),
    };
    let value_at = rest.iter().position(|&w| w == "value");
    let (name, value) = match value_at {
        Some(0) => return Err(usage.into()),
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    Ok((name.join(" "), value.join(" ")))
}

/// Keeps error messages short when the input is huge.
/// `text` without `prefix` (compared in ASCII lower case), if it has it.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

fn truncate(text: &str) -> String {
    const LIMIT: usize = 40;
    if text.chars().count() <= LIMIT {
        text.to_owned()
    } else {
        let head: String = text.chars().take(LIMIT).collect();
        format!("{head}…")
    }
}
