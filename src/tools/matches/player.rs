//! The players of a match, behind one trait: built-in players running in
//! this process and external engines driven over the protocol. The referee
//! ([`super::referee`]) asks them for moves as text and checks every move
//! against the rules itself.

use super::adjudication::EngineScore;
use super::external::ExternalEngine;
use super::forfeit::Forfeit;
use super::spec::{BuiltinKind, BuiltinSpec, PlayerKind, PlayerSpec};
use crate::engine::MAX_LISTED_MOVES;
use crate::engine::options::EngineOptions;
use crate::engine::searchers::{self, Searchers};
use crate::game::{Game, GameState, view_for};
use crate::search::Limits;
use crate::search::time::GoParams;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What a player is asked on its turn.
pub struct MoveRequest<'a, G: Game> {
    /// The game so far (current position and repetition history).
    pub state: &'a GameState<G>,
    /// The position the game started from.
    pub start: &'a str,
    /// The moves played since, as text.
    pub moves: &'a [String],
    /// The clocks or the move time, as `go` would carry them.
    pub go: GoParams,
    /// How long to wait for an answer before declaring a timeout.
    pub wait: Duration,
}

/// A match participant.
pub trait Competitor<G: Game>: Send {
    /// Gets the player ready before the first game (an external engine is
    /// started and must pass its handshake). A failure here stops the
    /// whole match, as in cutechess: a player that never ran cannot lose
    /// games on the other's behalf.
    fn start(&mut self) -> Result<(), Forfeit> {
        Ok(())
    }
    /// Prepares for a new game; `seed` makes random choices repeatable;
    /// `options` are this game's own option values for this player (its
    /// own hidden information, such as CTOR's secret squares).
    fn new_game(&mut self, seed: u64, options: &[(String, String)]) -> Result<(), Forfeit>;
    /// Returns the move to play, as text (the referee checks it).
    fn choose(&mut self, request: &MoveRequest<'_, G>) -> Result<String, Forfeit>;
    /// The score the player gave for its last chosen move, if it gave one
    /// (for score adjudication).
    fn last_score(&self) -> Option<EngineScore> {
        None
    }
    /// When the player's last move was read from it, if it is a process
    /// (for latency measurements; `None`: when `choose` returned).
    fn answered_at(&self) -> Option<Instant> {
        None
    }
}

/// Creates the player described by `spec` for game `G`. External engines
/// are started by [`Competitor::start`], not here. When `stop` is set (the
/// match was interrupted) the player gives up what it is doing: a
/// built-in search returns at once, an external engine's wait for an
/// answer ends.
pub fn make_competitor<G: Game>(
    spec: &PlayerSpec,
    options: &[(String, String)],
    handshake_timeout: Duration,
    stop: Option<&Arc<AtomicBool>>,
) -> Result<Box<dyn Competitor<G>>, String> {
    match &spec.kind {
        PlayerKind::Builtin(builtin) => Ok(Box::new(
            Builtin::<G>::new(builtin.clone())?.with_stop(stop),
        )),
        PlayerKind::External(external) => {
            // The game's options first (UGI engines learn the game from
            // them), then this engine's own.
            let all: Vec<_> = options.iter().chain(&external.options).cloned().collect();
            Ok(Box::new(
                ExternalEngine::new(external.clone(), G::NAME, &all)
                    .with_handshake_timeout(handshake_timeout)
                    .with_stop(stop),
            ))
        }
    }
}

impl<G: Game> Competitor<G> for ExternalEngine {
    fn start(&mut self) -> Result<(), Forfeit> {
        self.ensure_running()
    }

    fn new_game(&mut self, _seed: u64, options: &[(String, String)]) -> Result<(), Forfeit> {
        ExternalEngine::new_game(self, options)
    }

    fn choose(&mut self, request: &MoveRequest<'_, G>) -> Result<String, Forfeit> {
        self.best_move(request.start, request.moves, &request.go, request.wait)
    }

    fn last_score(&self) -> Option<EngineScore> {
        ExternalEngine::last_score(self)
    }

    fn answered_at(&self) -> Option<Instant> {
        ExternalEngine::answered_at(self)
    }
}

/// Time kept in reserve by built-in players on a clock, in ms.
const BUILTIN_OVERHEAD_MS: u64 = 10;

/// A player inside this process: the engine (exactly as `go` chooses its
/// move), the game's baseline player or random moves.
pub struct Builtin<G: Game> {
    spec: BuiltinSpec,
    searchers: Searchers<G>,
    rng: Xoshiro256PlusPlus,
    /// The search's score for the last move chosen.
    last_score: Option<EngineScore>,
    /// The match's stop flag, which ends a search at once.
    stop: Option<Arc<AtomicBool>>,
}

impl<G: Game> Builtin<G> {
    /// A built-in player.
    pub fn new(spec: BuiltinSpec) -> Result<Builtin<G>, String> {
        Ok(Builtin {
            spec,
            searchers: Searchers::default(),
            rng: Xoshiro256PlusPlus::seed_from_u64(0),
            last_score: None,
            stop: None,
        })
    }

    /// The player with the match's stop flag as its searches' stop signal
    /// (searches only read it).
    pub fn with_stop(mut self, stop: Option<&Arc<AtomicBool>>) -> Builtin<G> {
        self.stop = stop.cloned();
        self
    }

    fn random_move(&mut self, state: &GameState<G>) -> Option<G::Move> {
        let moves = state.legal_moves();
        if moves.is_empty() {
            return None;
        }
        Some(moves[self.rng.random_range(0..moves.len())])
    }

    /// The engine options this player's spec stands for.
    fn engine_options(&self) -> EngineOptions {
        EngineOptions {
            move_overhead_ms: BUILTIN_OVERHEAD_MS,
            ..self.spec.engine.clone()
        }
    }

    /// What this player may know of the referee's state: its side's view
    /// ([`view_for`]), or all of it for an oracle (`peek=true`).
    fn view(&self, state: &GameState<G>) -> GameState<G> {
        let side = state.position.side_to_move();
        let position = if self.spec.peek {
            state.position.clone()
        } else {
            view_for(&state.position, side)
        };
        GameState {
            position,
            keys: state.keys.clone(),
        }
    }

    fn engine_move(&mut self, request: &MoveRequest<'_, G>) -> Result<Option<G::Move>, String> {
        let view = self.view(request.state);
        let state = &view;
        let stop = self.stop.clone().unwrap_or_default();
        let options = self.engine_options();
        let turn = searchers::turn_shape(&state.position, &options);
        let plan = options.search_tuning::<G>().time;
        let mut limits: Limits = request.go.limits(turn, BUILTIN_OVERHEAD_MS, &plan, stop);
        limits.depth = self.spec.depth;
        limits.nodes = self.spec.nodes;
        let answer = self
            .searchers
            .think(state, &limits, &options, &mut |_| {})?;
        // Depth 0: a forced answer given without a search, so no score.
        self.last_score = (answer.depth > 0).then(|| EngineScore::from_search(answer.score));
        Ok(answer.best)
    }
}

impl<G: Game> Competitor<G> for Builtin<G> {
    fn new_game(&mut self, seed: u64, _options: &[(String, String)]) -> Result<(), Forfeit> {
        // The referee's state is shown through `game::view_for`, which
        // already hides what this player may not know.
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        self.searchers.clear();
        Ok(())
    }

    fn choose(&mut self, request: &MoveRequest<'_, G>) -> Result<String, Forfeit> {
        let position = &request.state.position;
        let engine = self.spec.kind == BuiltinKind::Engine;
        self.last_score = None;
        if !engine && position.count_moves() > MAX_LISTED_MOVES {
            // Listing the moves (Nim with huge heaps) would exhaust memory.
            return Err(Forfeit::IllegalMove(
                "(none): too many legal moves for this player".into(),
            ));
        }
        let mv = match self.spec.kind {
            BuiltinKind::Engine => self
                .engine_move(request)
                .map_err(|e| Forfeit::IllegalMove(format!("(none): {e}")))?,
            BuiltinKind::Baseline => match position.baseline_move(&mut self.rng) {
                Some(mv) => Some(mv),
                None => self.random_move(request.state),
            },
            BuiltinKind::Random => self.random_move(request.state),
        };
        mv.map(|mv| position.move_to_string(mv))
            .ok_or_else(|| Forfeit::IllegalMove("(none): no move found".into()))
    }

    fn last_score(&self) -> Option<EngineScore> {
        self.last_score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameOptions, Player};
    use crate::games::ctor::{Ctor, CtorOptions};

    #[test]
    fn only_an_oracle_sees_the_opponents_secret_squares() {
        let mut options = CtorOptions::default();
        for (name, value) in [
            ("Secrets", "true"),
            ("SecretX", "1,2,3,4,5"),
            ("SecretO", "60,61,62,63,64"),
        ] {
            options.set(name, value).expect("valid option");
        }
        let referee = GameState::new(Ctor::start(&options));
        let view_of = |peek: bool| {
            let spec = BuiltinSpec {
                peek,
                ..BuiltinSpec::default()
            };
            let player = Builtin::<Ctor>::new(spec).expect("a built-in player");
            player.view(&referee).position
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        // x to move: o's squares are hidden from x unless x peeks.
        let hidden = Ctor::hidden().expect("CTOR hides its secret squares");
        assert!(
            hidden
                .sample_hidden(&view_of(false), Player::X, &mut rng)
                .is_some()
        );
        assert!(
            hidden
                .sample_hidden(&view_of(true), Player::X, &mut rng)
                .is_none()
        );
    }
}
