//! One game as the protocol sees it: its options, the current game record
//! and its search state, behind an object-safe trait so that the protocol
//! loop can hold every game at once and switch with `setoption name Game`.

use super::options::{EngineOptions, SearchChoice};
use super::output::Output;
use crate::game::{Game, GameOptions, GameState, OptionSpec, Outcome, Player, Proven, SolveBudget};
use crate::games::GameVisitor;
use crate::search::alphabeta::AlphaBeta;
use crate::search::time::GoParams;
use crate::search::{Limits, Report, SearchResult, loss_in, score_text, win_in};
use crate::tools::perft;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Most legal moves `query moves`, `perft` and the generic searches accept
/// at the root (Nim with huge heaps has more).
pub const MAX_LISTED_MOVES: u64 = 100_000;

/// How long a perfect-play oracle may think when `go` gives a depth or node
/// limit but no time.
pub const UNTIMED_ORACLE_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// A game's protocol state, independent of which game it is.
pub trait Session: Send {
    /// The game's name (`Game` option value).
    fn name(&self) -> &'static str;
    /// The game's own options.
    fn option_specs(&self) -> Vec<OptionSpec>;
    /// Sets one of the game's options; resets the game to its start
    /// position, since the rules or the board may have changed.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// Forgets search state (transposition table, MCTS tree).
    fn new_game(&mut self);
    /// Allocates the search memory for `options` now (at `isready`), so the
    /// first `go` does not spend its time on it.
    fn prepare(&mut self, options: &EngineOptions);
    /// Sets the position: `fen` or the start position, then `moves`. On
    /// error nothing changes.
    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String>;
    /// The current position string.
    fn fen(&self) -> String;
    /// A text diagram of the current position.
    fn diagram(&self) -> String;
    /// The side to move.
    fn side_to_move(&self) -> Player;
    /// The result if the game is over (repetition included).
    fn outcome(&self) -> Option<Outcome>;
    /// The legal moves as strings; an error when there are too many.
    fn legal_moves(&self) -> Result<Vec<String>, String>;
    /// Perft split by root move.
    fn divide(&self, depth: u32) -> Result<Vec<(String, u64)>, String>;
    /// Starts a search of the current position on a new thread, which
    /// prints `info` lines and finally `bestmove`.
    fn start_search(
        &mut self,
        params: &GoParams,
        options: &EngineOptions,
        out: Output,
        stop: Arc<AtomicBool>,
    ) -> Result<JoinHandle<()>, String>;
}

/// Creates the session of a game, for [`crate::games::visit_game`].
pub struct MakeSession;

impl GameVisitor for MakeSession {
    type Output = Box<dyn Session>;
    fn visit<G: Game>(self) -> Box<dyn Session> {
        Box::new(GameSession::<G>::new())
    }
}

/// The search state of one game, kept between searches. Allocated on first
/// use so that only the games actually played take memory.
struct Searchers<G: Game> {
    alphabeta: Option<AlphaBeta<G>>,
    hash_mb: usize,
}

impl<G: Game> Searchers<G> {
    fn alphabeta(&mut self, hash_mb: usize) -> &mut AlphaBeta<G> {
        if self.hash_mb != hash_mb {
            self.alphabeta = None;
            self.hash_mb = hash_mb;
        }
        self.alphabeta
            .get_or_insert_with(|| AlphaBeta::new(hash_mb))
    }
}

/// [`Session`] for game `G`.
pub struct GameSession<G: Game> {
    options: G::Options,
    state: GameState<G>,
    searchers: Arc<Mutex<Searchers<G>>>,
}

impl<G: Game> GameSession<G> {
    /// A session at the start position with default options.
    pub fn new() -> Self {
        let options = G::Options::default();
        GameSession {
            state: GameState::new(G::start(&options)),
            options,
            searchers: Arc::new(Mutex::new(Searchers {
                alphabeta: None,
                hash_mb: 0,
            })),
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

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let mut options = self.options.clone();
        options.set(name, value)?;
        self.options = options;
        self.state = GameState::new(G::start(&self.options));
        Ok(())
    }

    fn new_game(&mut self) {
        let mut searchers = lock(&self.searchers);
        if let Some(alphabeta) = searchers.alphabeta.as_mut() {
            alphabeta.clear();
        }
    }

    fn prepare(&mut self, options: &EngineOptions) {
        lock(&self.searchers).alphabeta(options.hash_mb);
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        let start = match fen {
            Some(fen) => {
                G::from_fen(fen, &self.options).map_err(|e| format!("bad position '{fen}': {e}"))?
            }
            None => G::start(&self.options),
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
            let mv = state
                .position
                .parse_move(text)
                .map_err(|e| format!("move {number} '{text}' is not a {} move: {e}", G::NAME))?;
            if !state.position.is_legal(mv) {
                return Err(format!(
                    "move {number} '{text}' is illegal in '{}'",
                    state.position.fen()
                ));
            }
            state.play(mv);
        }
        self.state = state;
        Ok(())
    }

    fn fen(&self) -> String {
        self.state.position.fen()
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

    fn divide(&self, depth: u32) -> Result<Vec<(String, u64)>, String> {
        self.moves_allowed()?;
        Ok(perft::divide(&self.state.position, depth))
    }

    fn start_search(
        &mut self,
        params: &GoParams,
        options: &EngineOptions,
        out: Output,
        stop: Arc<AtomicBool>,
    ) -> Result<JoinHandle<()>, String> {
        let state = self.state.clone();
        let limits = params.limits(
            state.position.side_to_move(),
            options.move_overhead_ms,
            stop,
        );
        let options = options.clone();
        let searchers = Arc::clone(&self.searchers);
        let oracle_only = self.moves_allowed().is_err();
        std::thread::Builder::new()
            .name(format!("{}-search", G::NAME))
            .spawn(move || {
                let mut searchers = lock(&searchers);
                let best = run_search(&state, &limits, &options, &mut searchers, &out, oracle_only);
                let text = best.map_or_else(
                    || "(none)".to_owned(),
                    |mv| state.position.move_to_string(mv),
                );
                out.line(&format!("bestmove {text}"));
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))
    }
}

/// Chooses and runs the search; returns the move to play.
fn run_search<G: Game>(
    state: &GameState<G>,
    limits: &Limits,
    options: &EngineOptions,
    searchers: &mut Searchers<G>,
    out: &Output,
    oracle_only: bool,
) -> Option<G::Move> {
    if (options.search == SearchChoice::Auto || oracle_only)
        && let Some(mv) = consult_oracle(state, limits, out)
    {
        return Some(mv);
    }
    if oracle_only {
        out.error("too many legal moves for a generic search here; set Search to auto");
        return state.legal_moves().first().copied();
    }
    let mut print = |report: &Report| out.line(&report.info_line());
    let result: SearchResult<G::Move> = searchers
        .alphabeta(options.hash_mb)
        .search(state, limits, &mut print);
    result.best
}

/// Perfect play where the game knows it: answers with the oracle's move and
/// an `info` line carrying the proven score.
fn consult_oracle<G: Game>(state: &GameState<G>, limits: &Limits, out: &Output) -> Option<G::Move> {
    // The oracle gets half the planned time, so a search can still follow
    // when it gives up. Without a clock, `go infinite` lets it run until
    // `stop`, while a depth- or node-limited search, which asks for a quick
    // answer, gives it a fixed budget.
    let deadline = match limits.soft_deadline {
        Some(soft) => Some(limits.start + soft.saturating_duration_since(limits.start) / 2),
        None if limits.depth.is_some() || limits.nodes.is_some() => {
            Some(limits.start + UNTIMED_ORACLE_BUDGET)
        }
        None => None,
    };
    let budget = SolveBudget {
        deadline,
        stop: &limits.stop,
    };
    let solved = state.position.solve(&budget)?;
    let score = match (solved.value, solved.margin) {
        (_, Some(margin)) => margin * 100,
        (Proven::Win(plies), None) => win_in(plies.unwrap_or(1)),
        (Proven::Loss(plies), None) => loss_in(plies.unwrap_or(1)),
        (Proven::Draw, None) => 0,
    };
    let value = match solved.value {
        Proven::Win(_) => "win",
        Proven::Loss(_) => "loss",
        Proven::Draw => "draw",
    };
    let mv = state.position.move_to_string(solved.best);
    out.line(&format!(
        "info depth 1 score {} nodes 0 nps 0 time {} pv {mv}",
        score_text(score),
        limits.elapsed().as_millis()
    ));
    let margin = solved
        .margin
        .map(|m| format!(", final margin {m}"))
        .unwrap_or_default();
    out.line(&format!(
        "info string solved: {value} for the side to move{margin}"
    ));
    Some(solved.best)
}
