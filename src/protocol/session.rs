//! One game as the protocol sees it: its options, the current game record
//! and its search state, behind an object-safe trait so that the protocol
//! loop can hold every game at once and switch with `setoption name Game`.

use super::output::Output;
use crate::engine::MAX_LISTED_MOVES;
use crate::engine::options::EngineOptions;
use crate::engine::searchers::{self, Searchers};
use crate::game::{Game, GameOptions, GameState, OptionSpec, Outcome, Player};
use crate::games::GameVisitor;
use crate::search::Report;
use crate::search::perft;
use crate::search::time::GoParams;
use crate::tuning::SearchTuning;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A game's protocol state, independent of which game it is.
pub trait Session: Send {
    /// The game's name (`Game` option value).
    fn name(&self) -> &'static str;
    /// The game's own options.
    fn option_specs(&self) -> Vec<OptionSpec>;
    /// The game's search parameters with `options`' `Tune.` values.
    fn search_tuning(&self, options: &EngineOptions) -> SearchTuning;
    /// Sets one of the game's options; resets the game to its start
    /// position, since the rules or the board may have changed.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// Forgets search state (transposition table, MCTS tree).
    fn new_game(&mut self);
    /// Frees the search memory (when another game is chosen).
    fn release(&mut self);
    /// Allocates the search memory for `options` now (at `isready`), so the
    /// first `go` does not spend its time on it.
    fn prepare(&mut self, options: &EngineOptions) -> Result<(), String>;
    /// Sets the position: `fen` or the start position, then `moves`. On
    /// error nothing changes.
    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String>;
    /// The current position string.
    fn fen(&self) -> String;
    /// The answer to `query secrets` (the secret squares this engine
    /// knows), `None` for games without hidden information.
    fn secrets(&self) -> Option<String>;
    /// A text diagram of the current position.
    fn diagram(&self) -> String;
    /// The side to move.
    fn side_to_move(&self) -> Player;
    /// The result if the game is over (repetition included).
    fn outcome(&self) -> Option<Outcome>;
    /// Which rule ended the game, if it is over.
    fn end_reason(&self) -> Option<&'static str>;
    /// The legal moves as strings; an error when there are too many.
    fn legal_moves(&self) -> Result<Vec<String>, String>;
    /// Starts perft split by root move on a new thread, like a search: it
    /// prints `<move>: <count>` as each root move is counted, then
    /// `nodes <total>`; `stop` (raising `signals.stop`) ends it early with
    /// an `info string`. `done` is set before the last line.
    fn start_perft(
        &self,
        depth: u32,
        out: Output,
        signals: SearchSignals,
    ) -> Result<JoinHandle<()>, String>;
    /// Starts a search of the current position on a new thread, which
    /// prints `info` lines and finally `bestmove`. The thread sets `done`
    /// just before it prints `bestmove`, so that a command arriving right
    /// after it never finds the search still running.
    fn start_search(
        &mut self,
        params: &GoParams,
        options: &EngineOptions,
        out: Output,
        signals: SearchSignals,
    ) -> Result<JoinHandle<()>, String>;
}

/// Flags shared by the input thread and a search thread.
#[derive(Clone, Debug, Default)]
pub struct SearchSignals {
    /// Set by the input thread: stop searching now.
    pub stop: Arc<AtomicBool>,
    /// Set by the search thread when its answer is final.
    pub done: Arc<AtomicBool>,
}

/// Creates the session of a game, for [`crate::games::visit_game`].
pub struct MakeSession;

impl GameVisitor for MakeSession {
    type Output = Box<dyn Session>;
    fn visit<G: Game>(self) -> Box<dyn Session> {
        Box::new(GameSession::<G>::new())
    }
}

/// [`Session`] for game `G`.
pub struct GameSession<G: Game> {
    options: G::Options,
    state: GameState<G>,
    /// The last `position` command's position string and moves, read again
    /// for a search when the options hold hidden information for the side
    /// to move ([`GameOptions::for_side`]).
    position_spec: (Option<String>, Vec<String>),
    searchers: Arc<Mutex<Searchers<G>>>,
}

impl<G: Game> GameSession<G> {
    /// A session at the start position with default options.
    pub fn new() -> Self {
        let options = G::Options::default();
        GameSession {
            state: GameState::new(G::start(&options)),
            options,
            position_spec: (None, Vec::new()),
            searchers: Arc::new(Mutex::new(Searchers::default())),
        }
    }

    fn moves_allowed(&self) -> Result<(), String> {
        let count = self.state.position.count_moves();
        if count > MAX_LISTED_MOVES {
            return Err(format!(
                "this position has {count} legal moves, more than the {MAX_LISTED_MOVES} that can be listed"
            ));
        }
        Ok(())
    }
}

impl<G: Game> Default for GameSession<G> {
    fn default() -> Self {
        Self::new()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl<G: Game> Session for GameSession<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn option_specs(&self) -> Vec<OptionSpec> {
        G::Options::specs()
    }

    fn search_tuning(&self, options: &EngineOptions) -> SearchTuning {
        options.search_tuning::<G>()
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let mut options = self.options.clone();
        options.set(name, value)?;
        self.options = options;
        self.state = GameState::new(G::start(&self.options));
        // Another board or team: what the search remembers (its table, a
        // plan of a turn) was learned in another game.
        lock(&self.searchers).clear();
        Ok(())
    }

    fn new_game(&mut self) {
        lock(&self.searchers).clear();
    }

    fn release(&mut self) {
        *lock(&self.searchers) = Searchers::Idle;
    }

    fn prepare(&mut self, options: &EngineOptions) -> Result<(), String> {
        lock(&self.searchers).prepare(options, &self.state.position)
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        self.state = read_position(&self.options, fen, moves)?;
        self.position_spec = (
            fen.map(str::to_owned),
            moves.iter().map(|m| (*m).to_owned()).collect(),
        );
        Ok(())
    }

    fn fen(&self) -> String {
        self.state.position.fen()
    }

    fn secrets(&self) -> Option<String> {
        self.options.secrets()
    }

    fn diagram(&self) -> String {
        self.state.position.diagram()
    }

    fn side_to_move(&self) -> Player {
        self.state.position.side_to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.state.outcome()
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.state.end_reason()
    }

    fn legal_moves(&self) -> Result<Vec<String>, String> {
        if self.state.outcome().is_some() {
            return Ok(Vec::new());
        }
        self.moves_allowed()?;
        let position = &self.state.position;
        Ok(self
            .state
            .legal_moves()
            .into_iter()
            .map(|mv| position.move_to_string(mv))
            .collect())
    }

    fn start_perft(
        &self,
        depth: u32,
        out: Output,
        signals: SearchSignals,
    ) -> Result<JoinHandle<()>, String> {
        self.moves_allowed()?;
        let position = self.state.position.clone();
        std::thread::Builder::new()
            .name(format!("{}-perft", G::NAME))
            .spawn(move || {
                let counted = perft::divide_until(&position, depth, &signals.stop, |mv, count| {
                    out.line(&format!("{mv}: {count}"))
                });
                signals.done.store(true, Ordering::Release);
                match counted {
                    Ok(total) => out.line(&format!("nodes {total}")),
                    Err(perft::PerftError::Stopped) => out.line("info string perft stopped"),
                    Err(why) => out.error(&why.to_string()),
                }
            })
            .map_err(|e| format!("cannot start the perft thread: {e}"))
    }

    fn start_search(
        &mut self,
        params: &GoParams,
        options: &EngineOptions,
        out: Output,
        signals: SearchSignals,
    ) -> Result<JoinHandle<()>, String> {
        let state = self.state_to_search(&out);
        let mut limits = params.limits(
            searchers::turn_shape(&state.position, options),
            options.move_overhead_ms,
            &options.search_tuning::<G>().time,
            Arc::clone(&signals.stop),
        );
        let node_count = Arc::new(AtomicU64::new(0));
        limits.node_count = Some(Arc::clone(&node_count));
        let options = options.clone();
        let searchers = Arc::clone(&self.searchers);
        std::thread::Builder::new()
            .name(format!("{}-search", G::NAME))
            .spawn(move || {
                let mut searchers = lock(&searchers);
                let progress = Progress::start(out.clone(), node_count, limits.start);
                let mut print = |report: &Report| progress.print(report);
                let answer = searchers.think(&state, &limits, &options, &mut print);
                // No progress line after `bestmove`.
                progress.finish();
                let best = match answer {
                    Ok(answer) => {
                        if let Some(line) = answer.solved_line() {
                            out.line(&line);
                        }
                        answer.best
                    }
                    Err(message) => {
                        out.error(&message);
                        None
                    }
                };
                let text = best.map_or_else(
                    || "(none)".to_owned(),
                    |mv| state.position.move_to_string(mv),
                );
                signals.done.store(true, Ordering::Release);
                out.line(&format!("bestmove {text}"));
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))
    }
}

impl<G: Game> GameSession<G> {
    /// The game to search: the current one, or, when the options hold
    /// this engine's hidden information for whichever side it plays, the
    /// same moves read again with it given to the side to move. A game
    /// that does not fit that information (the side's used squares are not
    /// its own) is searched as it stands, with an error line.
    fn state_to_search(&self, out: &Output) -> GameState<G> {
        let side = self.state.position.side_to_move();
        let Some(options) = self.options.for_side(side) else {
            return self.state.clone();
        };
        let (fen, moves) = &self.position_spec;
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        match read_position(&options, fen.as_deref(), &moves) {
            Ok(state) => state,
            Err(why) => {
                out.error(&format!(
                    "the game does not fit this engine's own secrets: {why}"
                ));
                self.state.clone()
            }
        }
    }
}

/// Reads `fen` (or the start position) under `options`, then plays `moves`,
/// each checked.
fn read_position<G: Game>(
    options: &G::Options,
    fen: Option<&str>,
    moves: &[&str],
) -> Result<GameState<G>, String> {
    let start = match fen {
        Some(fen) => G::from_fen(fen, options).map_err(|e| format!("bad position '{fen}': {e}"))?,
        None => G::start(options),
    };
    let mut state = GameState::new(start);
    for (index, text) in moves.iter().enumerate() {
        let number = index + 1;
        if let Some(outcome) = state.outcome() {
            return Err(format!(
                "move {number} '{text}': the game is already over ({})",
                outcome.ugi_name()
            ));
        }
        let mv = state.position.parse_move(text).map_err(|e| {
            format!(
                "move {number} '{text}' is not a legal {} move here: {e}",
                G::NAME
            )
        })?;
        if !state.position.is_legal(mv) {
            return Err(format!(
                "move {number} '{text}' is illegal in '{}'",
                state.position.fen()
            ));
        }
        state.play(mv);
    }
    Ok(state)
}

/// How often a long search shows its progress at the least: the last
/// completed line again with the nodes, speed and time so far, so that a
/// GUI's analysis moves even while one iteration takes seconds.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Prints a search's progress lines between its reports, from a thread of
/// its own.
struct Progress {
    out: Output,
    /// The last report and when a line was last printed.
    last: Arc<Mutex<Option<(Report, Instant)>>>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts watching a search whose nodes `node_count` counts and that
    /// started at `start`. Without a thread to run on, shows nothing.
    fn start(out: Output, node_count: Arc<AtomicU64>, start: Instant) -> Progress {
        let last: Arc<Mutex<Option<(Report, Instant)>>> = Arc::default();
        let done = Arc::new(AtomicBool::new(false));
        let (watched, finished) = (Arc::clone(&last), Arc::clone(&done));
        let watcher_out = out.clone();
        let thread = std::thread::Builder::new()
            .name("search-progress".into())
            .spawn(move || {
                while !finished.load(Ordering::Acquire) {
                    // Woken at once by `finish`, so that `bestmove` never
                    // waits for this thread.
                    std::thread::park_timeout(PROGRESS_EVERY / 4);
                    if finished.load(Ordering::Acquire) {
                        break;
                    }
                    let mut last = lock(&watched);
                    let Some((report, printed)) = last.as_mut() else {
                        continue;
                    };
                    let nodes = node_count.load(Ordering::Relaxed);
                    // Only a search that counts its nodes as it goes (not
                    // an oracle, not MCTS) has progress to show.
                    if printed.elapsed() >= PROGRESS_EVERY && nodes > report.nodes {
                        let mut line = report.clone();
                        line.nodes = nodes;
                        line.elapsed = start.elapsed();
                        watcher_out.line(&line.info_line());
                        *printed = Instant::now();
                    }
                }
            })
            .ok();
        Progress {
            out,
            last,
            done,
            thread,
        }
    }

    /// Prints a report of the search and keeps it for the progress lines.
    /// Both under the lock the watcher prints under: otherwise the watcher
    /// could print the previous iteration's line after this one's.
    fn print(&self, report: &Report) {
        let mut last = lock(&self.last);
        self.out.line(&report.info_line());
        *last = Some((report.clone(), Instant::now()));
    }

    /// Stops the progress lines; none is printed after this returns.
    fn finish(mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
