//! One game on the board: its position and record, who plays each side,
//! the clocks, and a worker thread that asks engines for their moves (and
//! runs the analysis) while the HTTP threads read and change the game.
//!
//! Every move, a person's or an engine's, is checked here with the rules of
//! Agon's game library; engine moves go through the referee of `agon
//! match` ([`referee::go_params`], [`referee::check_time`],
//! [`referee::checked_move`]), so clocks, forfeits, illegal moves and
//! crashes are scored the same way.

use super::{EngineEntry, Notifier};
use crate::engine::MAX_LISTED_MOVES;
use crate::game::{Game, GameOptions, GameState, OptionKind, Outcome, Player, view_for};
use crate::games::GameVisitor;
use crate::search::time::GoParams;
use crate::tools::matches::TimeControl;
use crate::tools::matches::adjudication::EngineScore;
use crate::tools::matches::external::{ExternalEngine, HANDSHAKE_TIMEOUT};
use crate::tools::matches::forfeit::Forfeit;
use crate::tools::matches::pgn::{pgn_game, today};
use crate::tools::matches::player::{Competitor, MoveRequest, make_competitor};
use crate::tools::matches::record::{GameRecord, REASON_REPETITION, REASON_RULES};
use crate::tools::matches::referee;
use crate::tools::matches::spec::{ExternalSpec, PlayerKind, PlayerSpec};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long an engine may think at a fixed depth or node count before it
/// counts as hung.
const UNTIMED_WAIT: Duration = Duration::from_secs(300);
/// How often the idle worker looks at a person's clock.
const IDLE_POLL: Duration = Duration::from_millis(50);

/// What the HTTP side can do with the game in progress, whatever the game.
pub trait Controller: Send + Sync {
    /// The whole state the page draws, as JSON.
    fn state(&self) -> Value;
    /// Plays a person's move; `ply`, when given, is the number of moves the
    /// page saw, so that a move sent for an older position is refused.
    fn play(&self, text: &str, ply: Option<usize>) -> Result<(), String>;
    /// Takes back the last move of a person (and the engine moves after
    /// it), or the last move when nobody is a person.
    fn take_back(&self) -> Result<(), String>;
    /// The side `side` (or the person to move) gives up.
    fn resign(&self, side: Option<Player>) -> Result<(), String>;
    /// Starts (or with `None` stops) analysing with an engine.
    fn set_analysis(&self, engine: Option<EngineChoice>) -> Result<(), String>;
    /// Reviews the finished game: `engine` analyses every position for
    /// `movetime_ms`, and each move is marked by what it lost.
    fn review(&self, engine: EngineChoice, movetime_ms: u64) -> Result<(), String>;
    /// The finished game as PGN, by the writer of `agon match --pgn`.
    fn pgn(&self) -> Result<String, String>;
    /// Ends the game's engines and worker (a new game replaces it).
    fn close(&self);
}

/// A configured engine chosen by the page, with the engine options it
/// sets (never a command).
#[derive(Clone, Debug)]
pub struct EngineChoice {
    /// The configured engine.
    pub entry: EngineEntry,
    /// `setoption` pairs for it.
    pub options: Vec<(String, String)>,
}

impl EngineChoice {
    /// The engine's command with the chosen options added to its own.
    fn spec(&self) -> ExternalSpec {
        let mut spec = self.entry.spec.clone();
        spec.options.extend(self.options.iter().cloned());
        spec
    }
}

/// Who plays one side.
#[derive(Clone, Debug)]
pub enum Seat {
    /// A person, moving on the page.
    Person,
    /// An engine, moving through the referee.
    Engine(EngineChoice),
}

/// How long engines (and, with a clock, persons) may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A fixed time per engine move; persons are not timed.
    MoveTime(u64),
    /// A clock for both sides, base and increment in ms; running out loses.
    Clock {
        /// Starting time, ms.
        base_ms: u64,
        /// Added after each move, ms.
        inc_ms: u64,
    },
    /// The seeds' rule: 30 s per move for everyone, loss on time.
    Seed30,
    /// Engines search to this depth; nobody is timed.
    Depth(u32),
    /// Engines search this many nodes; nobody is timed.
    Nodes(u64),
}

impl Limit {
    /// The referee's time control, for the limits that are timed.
    fn time_control(self) -> Option<TimeControl> {
        match self {
            Limit::MoveTime(ms) => Some(TimeControl::movetime(ms)),
            Limit::Clock { base_ms, inc_ms } => Some(TimeControl::Clock { base_ms, inc_ms }),
            Limit::Seed30 => Some(TimeControl::seed30()),
            Limit::Depth(_) | Limit::Nodes(_) => None,
        }
    }

    /// Whether persons are timed too.
    fn times_persons(self) -> bool {
        matches!(self, Limit::Clock { .. } | Limit::Seed30)
    }

    fn to_json(self) -> Value {
        match self {
            Limit::MoveTime(ms) => json!({"kind": "movetime", "ms": ms}),
            Limit::Clock { base_ms, inc_ms } => {
                json!({"kind": "clock", "base_ms": base_ms, "inc_ms": inc_ms})
            }
            Limit::Seed30 => json!({"kind": "seed30"}),
            Limit::Depth(depth) => json!({"kind": "depth", "depth": depth}),
            Limit::Nodes(nodes) => json!({"kind": "nodes", "nodes": nodes}),
        }
    }
}

/// Everything a new game is made from, as the page asked for it.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Game options (name, value), hidden information excluded.
    pub options: Vec<(String, String)>,
    /// A position string to start from, or the start position.
    pub fen: Option<String>,
    /// Who plays `x` and `o`.
    pub seats: [Seat; 2],
    /// The time or search limit.
    pub limit: Limit,
    /// Each side's hidden information chosen by its person (CTOR's five
    /// secret squares); `None`: dealt at random.
    pub hidden: [Option<String>; 2],
    /// An engine analysing the game, if any.
    pub analysis: Option<EngineChoice>,
    /// The game number shown by the page.
    pub id: u64,
    /// Seed for the dealt hidden information.
    pub seed: u64,
}

/// Creates the game named by the visit and starts its worker.
pub struct Create {
    /// What to create.
    pub request: NewGame,
    /// Where changes are announced.
    pub notifier: Arc<Notifier>,
}

impl GameVisitor for Create {
    type Output = Result<Arc<dyn Controller>, String>;
    fn visit<G: Game>(self) -> Self::Output {
        let table = Arc::new(Table::<G>::new(self.request, self.notifier)?);
        let worker = Arc::clone(&table);
        std::thread::Builder::new()
            .name("gui-worker".into())
            .spawn(move || worker.work())
            .map_err(|e| format!("cannot start the game's worker thread: {e}"))?;
        Ok(table)
    }
}

/// The option specs of game `G` that the page offers (hidden information is
/// chosen apart, the squares of the person only), as JSON.
pub struct OptionSpecs;

impl GameVisitor for OptionSpecs {
    type Output = Value;
    fn visit<G: Game>(self) -> Value {
        let start = G::start(&G::Options::default()).fen();
        let specs: Vec<Value> = G::Options::specs()
            .into_iter()
            .filter(|spec| !HIDDEN_OPTIONS.contains(&spec.name))
            .map(|spec| {
                let mut value = json!({"name": spec.name, "default": spec.default});
                match spec.kind {
                    OptionKind::Check => value["type"] = json!("check"),
                    OptionKind::Spin { min, max } => {
                        value["type"] = json!("spin");
                        value["min"] = json!(min);
                        value["max"] = json!(max);
                    }
                    OptionKind::Combo(vars) => {
                        value["type"] = json!("combo");
                        value["vars"] = json!(vars);
                    }
                    OptionKind::Text => value["type"] = json!("string"),
                }
                value
            })
            .collect();
        json!({"name": G::NAME, "options": specs, "start": start})
    }
}

/// Options the page never sets directly: the secret squares are dealt by
/// the server, or chosen by a person for their own side only.
pub const HIDDEN_OPTIONS: &[&str] = &["SecretX", "SecretO", "SecretMine"];

/// The analysis shown on the page.
#[derive(Default)]
struct Analysis {
    /// The engine analysing.
    choice: Option<EngineChoice>,
    /// Its process, between searches (taken by the worker while it runs).
    engine: Option<ExternalEngine>,
    /// Set to end the running search (the position changed).
    until: Arc<AtomicBool>,
    /// The position (`epoch`) the last finished search was about, so that
    /// a search that ended by itself is not started again.
    done_epoch: Option<u64>,
    /// The latest `info` line, parsed, and its position's number of moves.
    info: Value,
    /// Updates received for the current position.
    updates: u64,
    /// The last failure.
    error: Option<String>,
    /// Which analysis this is (the change number it started at), so that a
    /// search of a replaced analysis does not hand its engine to the new.
    serial: u64,
}

/// A position's value in a review, from `x`'s point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PositionValue {
    /// The engine's score.
    Score(EngineScore),
    /// The game is over here.
    End(Outcome),
}

/// A proven result's size on the review's scale (above any centi score).
const PROVEN: i64 = 100_000;
/// Centi scores are clamped here before differences are taken, so that a
/// lost position's score swings do not count as mistakes.
const REVIEW_CLAMP: i64 = 1_000;

impl PositionValue {
    /// The value as a number from `x`'s point of view: centi-units, or
    /// ±(100 000 − moves) for a proven result.
    fn number(self) -> i64 {
        match self {
            PositionValue::Score(EngineScore::Centi(cp)) => i64::from(cp),
            PositionValue::Score(EngineScore::Mate(n)) if n > 0 => PROVEN - i64::from(n),
            PositionValue::Score(EngineScore::Mate(n)) => -PROVEN - i64::from(n),
            PositionValue::End(Outcome::Win(Player::X)) => PROVEN,
            PositionValue::End(Outcome::Win(Player::O)) => -PROVEN,
            PositionValue::End(Outcome::Draw) => 0,
        }
    }

    fn to_json(self) -> Value {
        match self {
            PositionValue::Score(score) => score_json(score, Player::X),
            PositionValue::End(outcome) => json!({"end": outcome_name(outcome)}),
        }
    }
}

/// The mark of a move that took the position from `before` to `after`
/// (both from `x`'s view), played by `mover`: `??` for a blunder (a proven
/// win given away, a proven loss walked into, or 300 centi-units lost),
/// `?` for a mistake (100), `?!` for an inaccuracy (50).
fn review_mark(before: PositionValue, after: PositionValue, mover: Player) -> Option<&'static str> {
    let sign = if mover == Player::X { 1 } else { -1 };
    let (b, a) = (sign * before.number(), sign * after.number());
    let proven = PROVEN - 10_000;
    if (b >= proven && a < proven) || (b > -proven && a <= -proven) {
        return Some("??");
    }
    let lost = b.clamp(-REVIEW_CLAMP, REVIEW_CLAMP) - a.clamp(-REVIEW_CLAMP, REVIEW_CLAMP);
    match lost {
        300.. => Some("??"),
        100..=299 => Some("?"),
        50..=99 => Some("?!"),
        _ => None,
    }
}

/// A review in progress or done.
struct Review {
    choice: EngineChoice,
    movetime_ms: u64,
    /// Its process, between positions (taken by the worker while it
    /// thinks).
    engine: Option<ExternalEngine>,
    /// Each position's value, from the start to the end.
    values: Vec<PositionValue>,
    /// The number of positions to value.
    total: usize,
    error: Option<String>,
    /// Which review this is (as [`Analysis::serial`]).
    serial: u64,
}

/// One side's engine.
struct EngineSeat<G: Game> {
    /// The player (taken by the worker while it thinks).
    competitor: Option<Box<dyn Competitor<G>>>,
    /// Set to cut its thinking short.
    stop: Arc<AtomicBool>,
    /// Whether `new_game` must be sent before its next move (a new
    /// process, or one stopped mid-thought).
    fresh: bool,
    /// The name shown.
    name: String,
}

/// The mutable part of a game.
struct Inner<G: Game> {
    id: u64,
    request: NewGame,
    /// Options for the record, both sides' hidden information included.
    record_options: Vec<(String, String)>,
    /// What each side's engine alone is told (its secret squares).
    told: [Vec<(String, String)>; 2],
    /// Each side's hidden information, for the page when a person plays it.
    hidden_values: [String; 2],
    start: G,
    start_fen: String,
    state: GameState<G>,
    moves: Vec<String>,
    movers: Vec<Player>,
    /// Position string after each move.
    fens: Vec<String>,
    /// Whether each move was played for a person (see [`played_for_person`]).
    forced: Vec<bool>,
    /// The engine's score of each move, from `x`'s point of view.
    scores: Vec<Option<Value>>,
    clocks: [u64; 2],
    /// When the side to move started (for a person's clock).
    turn_started: Instant,
    /// A result that is not the rules' own (forfeit, resignation).
    forfeit: Option<(Outcome, String)>,
    /// Grows with every change that makes an engine's pending answer moot.
    epoch: u64,
    /// Which side's engine is thinking now.
    thinking: Option<Player>,
    /// Grows with every change the page sees.
    version: u64,
    /// When each move was made (ms since 1970): an engine's when its
    /// `bestmove` was read, a person's when it reached the server; so that
    /// the page can measure how long a move takes to reach the board.
    moved_at_ms: Vec<f64>,
    engines: [Option<EngineSeat<G>>; 2],
    analysis: Analysis,
    /// The review of the finished game, once asked for.
    review: Option<Review>,
    closed: bool,
}

/// One game, shared by the HTTP threads and the worker.
pub struct Table<G: Game> {
    inner: Mutex<Inner<G>>,
    /// Wakes the worker after a change.
    wake: Condvar,
    notifier: Arc<Notifier>,
}

/// The engine process of an analysis or a review: `choice` told the game's
/// options, then its own.
fn helper_engine<G: Game>(choice: &EngineChoice, request: &NewGame) -> ExternalEngine {
    let spec = choice.spec();
    let options: Vec<_> = request
        .options
        .iter()
        .chain(&spec.options)
        .cloned()
        .collect();
    ExternalEngine::new(spec, G::NAME, &options)
}

fn options_of<G: Game>(pairs: &[(String, String)]) -> Result<G::Options, String> {
    let mut options = G::Options::default();
    for (name, value) in pairs {
        crate::game::set_option(&mut options, name, value)?;
    }
    Ok(options)
}

/// A score as JSON, from the point of view of `x` when `mover` gave it.
fn score_json(score: EngineScore, mover: Player) -> Value {
    let sign = if mover == Player::X { 1 } else { -1 };
    match score {
        EngineScore::Centi(cp) => json!({"cp": sign * cp}),
        EngineScore::Mate(moves) => json!({"mate": sign * moves}),
    }
}

/// The fields of an `info` line the page shows; `None` for lines without
/// a search report.
fn parse_info(line: &str, mover: Player) -> Option<Value> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    let mut info = json!({});
    while let Some(word) = words.next() {
        match word {
            "depth" | "seldepth" | "nodes" | "nps" | "time" => {
                let value: u64 = words.next()?.parse().ok()?;
                info[word] = json!(value);
            }
            "score" => {
                let kind = words.next()?;
                let value: i32 = words.next()?.parse().ok()?;
                let score = match kind {
                    "cp" => EngineScore::Centi(value),
                    "mate" => EngineScore::Mate(value),
                    _ => return None,
                };
                info["score"] = score_json(score, mover);
            }
            "pv" => {
                info["pv"] = json!(words.by_ref().collect::<Vec<_>>());
            }
            "string" => {
                info["string"] = json!(words.by_ref().collect::<Vec<_>>().join(" "));
            }
            _ => {}
        }
    }
    Some(info)
}

/// Whether `text`, a person's only legal move in game `game`, is played
/// for them at once: a move without a choice in it and with nothing to
/// click on the board (Ataxx's pass, CTOR's due substitution, CTOR's `end`
/// once nothing else is left). An only move on the board is still the
/// person's to make.
fn played_for_person(game: &str, text: &str) -> bool {
    match game {
        "ataxx" => text == "0000",
        "ctor" => text == "end" || text.starts_with('s'),
        _ => false,
    }
}

/// How many moves of an analysis line the page draws on the board.
pub const LINE_DRAWN: usize = 4;

/// Who plays each of the first [`LINE_DRAWN`] moves of an engine's line
/// from `position` (in Dots and Boxes and CTOR a side may move several
/// times in a row), as far as they are legal; in a game with hidden
/// information, as `observer` sees the position, and never up to a move
/// that would reveal what is hidden from them.
fn line_sides<G: Game>(position: &G, line: &[&str], observer: Option<Player>) -> Vec<Player> {
    let mut position = match observer {
        Some(observer) => view_for(position, observer),
        None => position.clone(),
    };
    let mut sides = Vec::new();
    for text in line.iter().take(LINE_DRAWN) {
        let Ok(mv) = position.parse_move(text) else {
            break;
        };
        if position.outcome().is_some()
            || !position.is_legal(mv)
            || G::hidden().is_some_and(|h| observer.is_some() && h.reveals_hidden(&position, mv))
        {
            break;
        }
        sides.push(position.side_to_move());
        position.play(mv);
    }
    sides
}

/// Milliseconds since 1970, to the microsecond (0 if the clock is before
/// it): the page's clock, for its latency measurements.
pub fn unix_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_micros() as f64 / 1000.0)
}

/// [`unix_ms`] at the past moment `at`.
fn unix_ms_at(at: Instant) -> f64 {
    unix_ms() - at.elapsed().as_micros() as f64 / 1000.0
}

fn side_name(side: Player) -> &'static str {
    match side {
        Player::X => "x",
        Player::O => "o",
    }
}

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Player::X) => "x",
        Outcome::Win(Player::O) => "o",
        Outcome::Draw => "draw",
    }
}

impl<G: Game> Table<G> {
    fn new(request: NewGame, notifier: Arc<Notifier>) -> Result<Table<G>, String> {
        let mut options = options_of::<G>(&request.options)?;
        let mut record_options = request.options.clone();
        let mut told = [Vec::new(), Vec::new()];
        let mut hidden_values = [String::new(), String::new()];
        if let Some(names) = options.hidden_option_names() {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(request.seed);
            for side in [Player::X, Player::O] {
                let value = match &request.hidden[side.index()] {
                    Some(chosen) => chosen.clone(),
                    None => options.random_hidden_value(&mut rng),
                };
                options
                    .set(names[side.index()], &value)
                    .map_err(|e| format!("{} secret squares: {e}", side_name(side)))?;
                record_options.push((names[side.index()].to_owned(), value));
            }
            for side in [Player::X, Player::O] {
                hidden_values[side.index()] = options.hidden_value(side);
                told[side.index()] = vec![
                    (names[side.index()].to_owned(), options.hidden_value(side)),
                    (names[side.other().index()].to_owned(), "-".to_owned()),
                ];
            }
        } else if request.hidden.iter().any(Option::is_some) {
            return Err(format!("{} has no hidden information to choose", G::NAME));
        }
        let start = match &request.fen {
            Some(fen) => G::from_fen(fen.trim(), &options)?,
            None => G::start(&options),
        };
        let mut engines = [None, None];
        for side in [Player::X, Player::O] {
            if let Seat::Engine(choice) = &request.seats[side.index()] {
                let stop = Arc::new(AtomicBool::new(false));
                let spec = PlayerSpec {
                    name: choice.entry.name.clone(),
                    kind: PlayerKind::External(choice.spec()),
                };
                let competitor =
                    make_competitor::<G>(&spec, &request.options, HANDSHAKE_TIMEOUT, Some(&stop))?;
                engines[side.index()] = Some(EngineSeat {
                    competitor: Some(competitor),
                    stop,
                    fresh: true,
                    name: choice.entry.name.clone(),
                });
            }
        }
        let clocks = match request.limit {
            Limit::Clock { base_ms, .. } => [base_ms; 2],
            _ => [0; 2],
        };
        let start_fen = start.fen();
        let analysis = Analysis {
            choice: request.analysis.clone(),
            ..Analysis::default()
        };
        let table = Table {
            inner: Mutex::new(Inner {
                id: request.id,
                request,
                record_options,
                told,
                hidden_values,
                state: GameState::new(start.clone()),
                start,
                start_fen,
                moves: Vec::new(),
                movers: Vec::new(),
                fens: Vec::new(),
                forced: Vec::new(),
                scores: Vec::new(),
                clocks,
                turn_started: Instant::now(),
                forfeit: None,
                epoch: 0,
                thinking: None,
                version: 0,
                moved_at_ms: Vec::new(),
                engines,
                analysis,
                review: None,
                closed: false,
            }),
            wake: Condvar::new(),
            notifier,
        };
        table.lock().play_forced();
        Ok(table)
    }

    fn lock(&self) -> MutexGuard<'_, Inner<G>> {
        // A panic while holding the lock would be a bug; the state is still
        // consistent enough to show, so poisoning is ignored.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells the worker and the pages that something changed, numbering
    /// the change under the lock so that the page can drop a state older
    /// than one it already has (a move's answer overtaken by an event).
    fn changed(&self, mut inner: MutexGuard<'_, Inner<G>>) {
        inner.version += 1;
        drop(inner);
        self.wake.notify_all();
        self.notifier.bump();
    }

    /// The worker: asks engines for moves, runs the analysis, and watches
    /// persons' clocks, until the game is closed.
    fn work(&self) {
        loop {
            let mut inner = self.lock();
            if inner.closed {
                return;
            }
            if inner.flag_person() {
                self.changed(inner);
                continue;
            }
            if let Some(side) = inner.engine_to_move() {
                self.engine_turn(inner, side);
            } else if inner.wants_analysis() {
                self.analyse(inner);
            } else if inner
                .review
                .as_ref()
                .is_some_and(|r| r.values.len() < r.total && r.error.is_none())
            {
                self.review_step(inner);
            } else {
                let _ = self.wake.wait_timeout(inner, IDLE_POLL);
            }
        }
    }

    /// Asks the engine of `side` for its move, without holding the lock
    /// while it thinks, and plays it if the game has not changed meanwhile.
    fn engine_turn(&self, mut inner: MutexGuard<'_, Inner<G>>, side: Player) {
        let epoch = inner.epoch;
        let Some(seat) = inner.engines[side.index()].as_mut() else {
            return;
        };
        let Some(mut competitor) = seat.competitor.take() else {
            return;
        };
        let fresh = std::mem::replace(&mut seat.fresh, false);
        let told = inner.told[side.index()].clone();
        let state = inner.state.clone();
        let start = inner.start_fen.clone();
        let moves = inner.moves.clone();
        let limit = inner.request.limit;
        let mut clocks = inner.clocks;
        let seed = inner.request.seed ^ (inner.moves.len() as u64);
        inner.thinking = Some(side);
        inner.turn_started = Instant::now();
        self.changed(inner);

        // When the answer was read from the engine: the start of its
        // way to the page.
        let mut answered_at = Instant::now();
        let answer = (|| -> Result<String, Forfeit> {
            if fresh {
                competitor.new_game(seed, &told)?;
            }
            // Starting the process and its handshake are not the move's
            // time (as in `agon match`, where they come before the game).
            let started = Instant::now();
            let (go, wait) = match limit.time_control() {
                Some(time) => referee::go_params(time, clocks, side),
                None => {
                    let go = GoParams {
                        depth: match limit {
                            Limit::Depth(depth) => Some(depth),
                            _ => None,
                        },
                        nodes: match limit {
                            Limit::Nodes(nodes) => Some(nodes),
                            _ => None,
                        },
                        ..GoParams::default()
                    };
                    (go, UNTIMED_WAIT)
                }
            };
            let request = MoveRequest {
                state: &state,
                start: &start,
                moves: &moves,
                go,
                wait,
            };
            let text = competitor.choose(&request)?;
            answered_at = competitor.answered_at().unwrap_or_else(Instant::now);
            if let Some(time) = limit.time_control() {
                let elapsed = started.elapsed().as_millis() as u64;
                referee::check_time(time, &mut clocks, side, elapsed)?;
            }
            referee::checked_move(&state.position, &text)?;
            Ok(text)
        })();

        let mut inner = self.lock();
        inner.thinking = None;
        let current = inner.epoch == epoch && !inner.closed;
        if let Some(seat) = inner.engines[side.index()].as_mut() {
            if !current {
                // The answer is moot; a search cut short by the stop flag
                // left a process that must be told the game again.
                seat.stop.store(false, Ordering::Relaxed);
                seat.fresh = true;
            }
            seat.competitor = Some(competitor);
        }
        if current {
            match answer {
                Ok(text) => {
                    let score = inner.engines[side.index()]
                        .as_ref()
                        .and_then(|seat| seat.competitor.as_ref())
                        .and_then(|c| c.last_score())
                        .map(|s| score_json(s, side));
                    inner.clocks = clocks;
                    // Checked above against this very position.
                    if let Ok(mv) = inner.state.position.parse_move(&text) {
                        inner.push_move(mv, score, answered_at);
                        inner.play_forced();
                    }
                }
                Err(why) => {
                    if matches!(why, Forfeit::Flag(_)) {
                        inner.clocks[side.index()] = 0;
                    }
                    inner.forfeit = Some(referee::forfeit(side, &why));
                    inner.epoch += 1;
                }
            }
        }
        self.changed(inner);
    }

    /// Values the next position of the review.
    fn review_step(&self, mut inner: MutexGuard<'_, Inner<G>>) {
        let Some(review) = inner.review.as_mut() else {
            return;
        };
        let index = review.values.len();
        let serial = review.serial;
        let movetime = review.movetime_ms;
        let choice = review.choice.clone();
        let engine = review.engine.take();
        let plies = inner.moves.len();
        if index == plies {
            // The final position: the result, not a search.
            let outcome = inner.result().map(|(outcome, _)| outcome);
            if let (Some(review), Some(outcome)) = (inner.review.as_mut(), outcome) {
                review.values.push(PositionValue::End(outcome));
                review.engine = engine;
            }
            self.changed(inner);
            return;
        }
        let mut engine = engine.unwrap_or_else(|| helper_engine::<G>(&choice, &inner.request));
        let start = inner.start_fen.clone();
        let moves = inner.moves[..index].to_vec();
        let mover = inner.movers[index];
        drop(inner);
        let go = GoParams {
            movetime: Some(movetime),
            ..GoParams::default()
        };
        let wait = Duration::from_millis(movetime + 1_000 + movetime / 5);
        let answer = engine
            .ensure_running()
            .and_then(|()| engine.best_move(&start, &moves, &go, wait))
            .and_then(|_| {
                engine
                    .last_score()
                    .ok_or_else(|| Forfeit::IllegalMove("no score before its bestmove".into()))
            });
        let mut inner = self.lock();
        if inner.closed {
            return;
        }
        if let Some(review) = inner.review.as_mut().filter(|r| r.serial == serial) {
            review.engine = Some(engine);
            match answer {
                // The engine's score is the side to move's: `mover`'s.
                Ok(score) => review.values.push(PositionValue::Score(match score {
                    EngineScore::Centi(cp) if mover == Player::O => EngineScore::Centi(-cp),
                    EngineScore::Mate(n) if mover == Player::O => EngineScore::Mate(-n),
                    score => score,
                })),
                Err(why) => review.error = Some(why.to_string()),
            }
        }
        self.changed(inner);
    }

    /// Runs the analysis engine on the current position until the position
    /// changes (or the engine ends the search itself).
    fn analyse(&self, mut inner: MutexGuard<'_, Inner<G>>) {
        let epoch = inner.epoch;
        let Some(choice) = inner.analysis.choice.clone() else {
            return;
        };
        let engine = inner
            .analysis
            .engine
            .take()
            .unwrap_or_else(|| helper_engine::<G>(&choice, &inner.request));
        let serial = inner.analysis.serial;
        let until = Arc::clone(&inner.analysis.until);
        until.store(false, Ordering::Relaxed);
        let start = inner.start_fen.clone();
        let moves = inner.moves.clone();
        let mover = inner.state.position.side_to_move();
        inner.analysis.info = json!({"ply": moves.len()});
        inner.analysis.updates = 0;
        self.changed(inner);

        let mut engine = engine;
        let ply = moves.len();
        let result = engine.analyse(&start, &moves, &until, &mut |line| {
            if let Some(mut info) = parse_info(line, mover) {
                let mut inner = self.lock();
                if inner.epoch != epoch || inner.analysis.serial != serial {
                    return;
                }
                info["ply"] = json!(ply);
                if let Some(line) = info["pv"].as_array() {
                    let line: Vec<&str> = line.iter().filter_map(Value::as_str).collect();
                    let sides = line_sides(&inner.state.position, &line, inner.observer());
                    info["pv_sides"] = json!(sides.into_iter().map(side_name).collect::<Vec<_>>());
                }
                // An `info string` alone keeps the last search report.
                if info.get("depth").is_none()
                    && let Some(text) = info.get("string").cloned()
                {
                    inner.analysis.info["string"] = text;
                } else {
                    if let Some(text) = inner.analysis.info.get("string").cloned()
                        && info.get("string").is_none()
                    {
                        info["string"] = text;
                    }
                    inner.analysis.info = info;
                }
                inner.analysis.updates += 1;
                inner.version += 1;
                drop(inner);
                self.notifier.bump();
            }
        });
        let mut inner = self.lock();
        if inner.closed || inner.analysis.serial != serial {
            return; // dropping the engine ends its process
        }
        inner.analysis.engine = Some(engine);
        match result {
            Ok(()) => inner.analysis.error = None,
            Err(why) => inner.analysis.error = Some(why.to_string()),
        }
        if inner.epoch == epoch {
            inner.analysis.done_epoch = Some(epoch);
        }
        self.changed(inner);
    }
}

impl<G: Game> Inner<G> {
    /// The result, by forfeit or by the rules, and its reason.
    fn result(&self) -> Option<(Outcome, String)> {
        if let Some(forfeit) = &self.forfeit {
            return Some(forfeit.clone());
        }
        let outcome = self.state.outcome()?;
        Some((
            outcome,
            self.state.end_reason().unwrap_or("rules").to_owned(),
        ))
    }

    /// The side whose view the page shows when only one side is a
    /// person's (`None`: both sides' are, or neither's, and the page shows
    /// everything).
    fn observer(&self) -> Option<Player> {
        match [Player::X, Player::O].map(|s| self.seat_is_person(s)) {
            [true, false] => Some(Player::X),
            [false, true] => Some(Player::O),
            _ => None,
        }
    }

    fn seat_is_person(&self, side: Player) -> bool {
        matches!(self.request.seats[side.index()], Seat::Person)
    }

    /// The side whose engine must move now, if any.
    fn engine_to_move(&self) -> Option<Player> {
        if self.result().is_some() {
            return None;
        }
        let side = self.state.position.side_to_move();
        let seat = self.engines[side.index()].as_ref()?;
        seat.competitor.as_ref().map(|_| side)
    }

    fn wants_analysis(&self) -> bool {
        self.analysis.choice.is_some()
            && self.result().is_none()
            && self.analysis.done_epoch != Some(self.epoch)
            && self.seat_is_person(self.state.position.side_to_move())
    }

    /// Ends the game when the person to move has run out of time.
    fn flag_person(&mut self) -> bool {
        if self.result().is_some() || !self.request.limit.times_persons() {
            return false;
        }
        let side = self.state.position.side_to_move();
        if !self.seat_is_person(side) {
            return false;
        }
        let elapsed = self.turn_started.elapsed().as_millis() as u64;
        let Some(time) = self.request.limit.time_control() else {
            return false;
        };
        let mut clocks = self.clocks;
        match referee::check_time(time, &mut clocks, side, elapsed) {
            Ok(()) => false,
            Err(why) => {
                self.clocks = clocks;
                self.forfeit = Some(referee::forfeit(side, &why));
                self.epoch += 1;
                true
            }
        }
    }

    /// Plays a person's checked move, made at `at`, on their clock when
    /// persons are timed: a move made too late loses instead.
    fn person_move(&mut self, mv: G::Move, at: Instant) -> Result<(), String> {
        let side = self.state.position.side_to_move();
        if self.request.limit.times_persons()
            && let Some(time) = self.request.limit.time_control()
        {
            let elapsed = self.turn_started.elapsed().as_millis() as u64;
            let mut clocks = self.clocks;
            let timed = referee::check_time(time, &mut clocks, side, elapsed);
            self.clocks = clocks;
            if let Err(why) = timed {
                self.forfeit = Some(referee::forfeit(side, &why));
                self.epoch += 1;
                return Err(format!("too late: {why}"));
            }
        }
        self.push_move(mv, None, at);
        self.analysis.until.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Plays every move the rules leave a person no choice about (see
    /// [`played_for_person`]), marked as such in the record.
    fn play_forced(&mut self) {
        // Each is a pass or part of a turn; a game of passes only ends.
        for _ in 0..1_000 {
            if self.result().is_some() || !self.seat_is_person(self.state.position.side_to_move()) {
                return;
            }
            let position = &self.state.position;
            if position.count_moves() != 1 {
                return;
            }
            let moves = self.state.legal_moves();
            let [mv] = moves[..] else {
                return;
            };
            if !played_for_person(G::NAME, &position.move_to_string(mv)) {
                return;
            }
            if self.person_move(mv, Instant::now()).is_err() {
                return;
            }
            if let Some(last) = self.forced.last_mut() {
                *last = true;
            }
        }
    }

    /// Plays a checked move, chosen at `at`, and records it.
    fn push_move(&mut self, mv: G::Move, score: Option<Value>, at: Instant) {
        let mover = self.state.position.side_to_move();
        self.moves.push(self.state.position.move_to_string(mv));
        self.movers.push(mover);
        self.state.play(mv);
        self.fens.push(self.state.position.fen());
        self.forced.push(false);
        self.scores.push(score);
        self.turn_started = Instant::now();
        self.moved_at_ms.push(unix_ms_at(at));
        self.epoch += 1;
    }

    /// Stops every search in progress (its answer is then ignored).
    fn interrupt(&mut self) {
        for seat in self.engines.iter().flatten() {
            if seat.competitor.is_none() {
                seat.stop.store(true, Ordering::Relaxed);
            }
        }
        self.analysis.until.store(true, Ordering::Relaxed);
    }

    /// Replays the first `plies` moves from the start.
    fn truncate(&mut self, plies: usize) {
        let mut state = GameState::new(self.start.clone());
        for text in &self.moves[..plies] {
            match state.position.parse_move(text) {
                Ok(mv) => state.play(mv),
                Err(_) => break, // cannot happen: every move was checked
            }
        }
        self.state = state;
        self.moves.truncate(plies);
        self.movers.truncate(plies);
        self.fens.truncate(plies);
        self.forced.truncate(plies);
        self.scores.truncate(plies);
        self.moved_at_ms.truncate(plies);
        self.forfeit = None;
        self.review = None;
        self.turn_started = Instant::now();
        self.epoch += 1;
        self.analysis.done_epoch = None;
    }

    fn players_json(&self) -> Value {
        let seat = |side: Player| match &self.request.seats[side.index()] {
            Seat::Person => json!({"kind": "person"}),
            Seat::Engine(choice) => json!({
                "kind": "engine",
                "engine": choice.entry.name,
                "options": choice.options.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
            }),
        };
        json!([seat(Player::X), seat(Player::O)])
    }

    fn state_json(&self) -> Value {
        let position = &self.state.position;
        let side = position.side_to_move();
        let result = self.result();
        let person_to_move = result.is_none() && self.seat_is_person(side);
        // Only a person to move needs the moves; an engine's (CTOR's due
        // substitutions) would show its secret squares before it plays.
        let (legal, truncated) = if person_to_move {
            if position.count_moves() > MAX_LISTED_MOVES {
                (Vec::new(), true)
            } else {
                let moves = self.state.legal_moves();
                (
                    moves.iter().map(|&m| position.move_to_string(m)).collect(),
                    false,
                )
            }
        } else {
            (Vec::new(), false)
        };
        let timed = self.request.limit.time_control().is_some();
        let running = result.is_none()
            && timed
            && (self.request.limit.times_persons() || !self.seat_is_person(side));
        let secrets: Value = [Player::X, Player::O]
            .into_iter()
            // A person's own squares; an engine's only once the game is
            // over (as a match record shows them).
            .filter(|&s| {
                (self.seat_is_person(s) || result.is_some())
                    && !self.hidden_values[s.index()].is_empty()
            })
            .map(|s| {
                (
                    side_name(s).to_owned(),
                    json!(self.hidden_values[s.index()]),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
        let names: Vec<String> = [Player::X, Player::O]
            .into_iter()
            .map(|s| match &self.engines[s.index()] {
                Some(seat) => seat.name.clone(),
                None => "person".to_owned(),
            })
            .collect();
        json!({
            "id": self.id,
            "version": self.version,
            "moved_at_ms": self.moved_at_ms,
            "game": G::NAME,
            "options": self.request.options.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
            "start": self.start_fen,
            "moves": self.moves,
            "movers": self.movers.iter().map(|&m| side_name(m)).collect::<Vec<_>>(),
            "fens": self.fens,
            "forced": self.forced,
            "scores": self.scores,
            "fen": position.fen(),
            "side": side_name(side),
            "legal": legal,
            "legal_truncated": truncated,
            "result": result.map(|(outcome, reason)| json!({
                "winner": outcome_name(outcome),
                "reason": reason,
            })),
            "players": self.players_json(),
            "names": names,
            "limit": self.request.limit.to_json(),
            "clocks": if matches!(self.request.limit, Limit::Clock { .. } | Limit::Seed30) {
                json!(match self.request.limit {
                    Limit::Seed30 => {
                        let mut left = [30_000u64; 2];
                        left[side.index()] = 30_000u64
                            .saturating_sub(self.turn_started.elapsed().as_millis() as u64);
                        left
                    }
                    _ => {
                        let mut left = self.clocks;
                        if running {
                            left[side.index()] = left[side.index()]
                                .saturating_sub(self.turn_started.elapsed().as_millis() as u64);
                        }
                        left
                    }
                })
            } else {
                Value::Null
            },
            "running": running.then_some(side_name(side)),
            "thinking": self.thinking.map(side_name),
            "secrets": secrets,
            "analysis": self.analysis.choice.as_ref().map(|choice| json!({
                "engine": choice.entry.name,
                "info": self.analysis.info,
                "updates": self.analysis.updates,
                "error": self.analysis.error,
            })),
            "review": self.review.as_ref().map(|review| {
                let marks: Vec<Option<&str>> = (0..self.moves.len())
                    .map(|i| match (review.values.get(i), review.values.get(i + 1)) {
                        (Some(&before), Some(&after)) => review_mark(before, after, self.movers[i]),
                        _ => None,
                    })
                    .collect();
                json!({
                    "engine": review.choice.entry.name,
                    "ms": review.movetime_ms,
                    "done": review.values.len(),
                    "total": review.total,
                    "values": review.values.iter().map(|v| v.to_json()).collect::<Vec<_>>(),
                    "marks": marks,
                    "error": review.error,
                })
            }),
        })
    }
}

impl<G: Game> Controller for Table<G> {
    fn state(&self) -> Value {
        self.lock().state_json()
    }

    fn play(&self, text: &str, ply: Option<usize>) -> Result<(), String> {
        let received = Instant::now();
        let mut inner = self.lock();
        if let Some((_, reason)) = inner.result() {
            return Err(format!("the game is over ({reason})"));
        }
        if let Some(ply) = ply
            && ply != inner.moves.len()
        {
            return Err(format!(
                "the position changed: {} moves played, not {ply}",
                inner.moves.len()
            ));
        }
        let side = inner.state.position.side_to_move();
        if !inner.seat_is_person(side) {
            return Err(format!("{} is played by an engine", side_name(side)));
        }
        let position = &inner.state.position;
        let mv = position
            .parse_move(text.trim())
            .map_err(|e| format!("move '{}': {e}", text.trim()))?;
        if !position.is_legal(mv) {
            return Err(format!("move '{}' is illegal here", text.trim()));
        }
        let played = inner.person_move(mv, received);
        if played.is_ok() {
            inner.play_forced();
        }
        self.changed(inner);
        played
    }

    fn take_back(&self) -> Result<(), String> {
        let mut inner = self.lock();
        if inner.moves.is_empty() {
            return Err("no move to take back".into());
        }
        let any_person = [Player::X, Player::O]
            .into_iter()
            .any(|s| inner.seat_is_person(s));
        let mut plies = inner.moves.len() - 1;
        if any_person {
            // Back to before the last person's move, so that a person
            // playing an engine gets their own turn back.
            // Moves played for the person are taken back with the move
            // before (they would be played again at once).
            let chosen = (0..inner.moves.len())
                .rev()
                .find(|&i| inner.seat_is_person(inner.movers[i]) && !inner.forced[i]);
            match chosen {
                Some(last) => plies = last,
                None => return Err("no move of a person to take back".into()),
            }
        }
        inner.interrupt();
        inner.truncate(plies);
        self.changed(inner);
        Ok(())
    }

    fn resign(&self, side: Option<Player>) -> Result<(), String> {
        let mut inner = self.lock();
        if inner.result().is_some() {
            return Err("the game is already over".into());
        }
        let side = match side {
            Some(side) => side,
            None => {
                let to_move = inner.state.position.side_to_move();
                [to_move, to_move.other()]
                    .into_iter()
                    .find(|&s| inner.seat_is_person(s))
                    .ok_or("no person plays this game")?
            }
        };
        inner.interrupt();
        inner.forfeit = Some((
            Outcome::Win(side.other()),
            format!("{} resigns", side_name(side)),
        ));
        inner.epoch += 1;
        self.changed(inner);
        Ok(())
    }

    fn set_analysis(&self, engine: Option<EngineChoice>) -> Result<(), String> {
        let mut inner = self.lock();
        inner.analysis.until.store(true, Ordering::Relaxed);
        inner.analysis = Analysis {
            choice: engine,
            serial: inner.version + 1,
            ..Analysis::default()
        };
        self.changed(inner);
        Ok(())
    }

    fn review(&self, engine: EngineChoice, movetime_ms: u64) -> Result<(), String> {
        let mut inner = self.lock();
        if inner.result().is_none() {
            return Err("the game is not over: a review looks at a finished game".into());
        }
        inner.review = Some(Review {
            choice: engine,
            movetime_ms,
            engine: None,
            values: Vec::new(),
            total: inner.moves.len() + 1,
            error: None,
            serial: inner.version + 1,
        });
        self.changed(inner);
        Ok(())
    }

    fn pgn(&self) -> Result<String, String> {
        let inner = self.lock();
        let (outcome, reason) = inner
            .result()
            .ok_or("the game is not over: PGN records finished games")?;
        // The record's reason as `agon match` writes it, so that the PGN
        // writer names the rule (or the forfeit) the same way.
        let reason = if inner.forfeit.is_some() {
            reason
        } else if reason == REASON_REPETITION {
            REASON_REPETITION.to_owned()
        } else {
            REASON_RULES.to_owned()
        };
        let names = [Player::X, Player::O].map(|s| match &inner.engines[s.index()] {
            Some(seat) => seat.name.clone(),
            None => "person".to_owned(),
        });
        let record = GameRecord {
            number: inner.id as usize,
            game: G::NAME.to_owned(),
            options: inner.record_options.clone(),
            players: names,
            start: inner.start_fen.clone(),
            moves: inner.moves.clone(),
            outcome,
            reason,
            clocks: matches!(inner.request.limit, Limit::Clock { .. }).then_some(inner.clocks),
        };
        pgn_game(&record, "agon gui", &today())
    }

    fn close(&self) {
        let mut inner = self.lock();
        inner.closed = true;
        inner.interrupt();
        self.changed(inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_marks_follow_the_loss_and_proven_results() {
        let cp = |v| PositionValue::Score(EngineScore::Centi(v));
        let mate = |n| PositionValue::Score(EngineScore::Mate(n));
        assert_eq!(review_mark(cp(20), cp(0), Player::X), None);
        assert_eq!(review_mark(cp(20), cp(-40), Player::X), Some("?!"));
        assert_eq!(review_mark(cp(20), cp(-150), Player::X), Some("?"));
        assert_eq!(review_mark(cp(20), cp(-500), Player::X), Some("??"));
        // From o's point of view a rising score is a loss.
        assert_eq!(review_mark(cp(-20), cp(500), Player::O), Some("??"));
        assert_eq!(review_mark(cp(-20), cp(-500), Player::O), None);
        // A proven win given away, and one kept (a longer win is fine).
        assert_eq!(review_mark(mate(3), cp(0), Player::X), Some("??"));
        assert_eq!(review_mark(mate(3), mate(5), Player::X), None);
        assert_eq!(
            review_mark(
                mate(-3),
                PositionValue::End(Outcome::Win(Player::O)),
                Player::X
            ),
            None
        );
        assert_eq!(review_mark(cp(0), mate(-7), Player::X), Some("??"));
        // Lost either way: no mark for a worse lost score.
        assert_eq!(review_mark(cp(-1500), cp(-1900), Player::X), None);
    }

    #[test]
    fn an_analysis_line_is_drawn_with_who_plays_each_move() {
        use crate::games::dots::Dots;
        // 1×2 boxes; the left box has three sides: closing it moves again.
        let options = Default::default();
        let position = Dots::from_fen("1x2 1010100 0 0 x", &options).expect("a position");
        let line = ["b1b2", "b1c1", "b2c2", "c1c2", "a1b1"];
        let sides = line_sides(&position, &line, None);
        assert_eq!(sides, [Player::X, Player::X, Player::O, Player::X]);
        // An illegal move ends what is drawn.
        let sides = line_sides(&position, &["b1b2", "b1b2", "b1c1"], None);
        assert_eq!(sides, [Player::X]);
        assert!(line_sides(&position, &["zz"], None).is_empty());
    }

    #[test]
    fn info_lines_give_the_fields_the_page_shows() {
        let info = parse_info(
            "info depth 7 seldepth 9 score cp -35 nodes 1200 nps 60000 time 20 pv a1 b2",
            Player::O,
        )
        .expect("a report");
        assert_eq!(info["depth"], 7);
        assert_eq!(info["score"]["cp"], 35, "from x's point of view");
        assert_eq!(info["pv"], json!(["a1", "b2"]));
        let solved = parse_info("info string solved: win for the side to move", Player::X)
            .expect("a string");
        assert_eq!(solved["string"], "solved: win for the side to move");
        assert!(parse_info("bestmove a1", Player::X).is_none());
        assert!(parse_info("info depth x", Player::X).is_none());
    }
}
