//! The referee: plays one game between two competitors. Agon's own rules
//! code ([`GameState`]) decides whose turn it is (a side may move several
//! times in a row), checks every move, applies repetition and time, and
//! scores forfeits.

use super::adjudication::{Adjudication, Adjudicator};
use super::forfeit::Forfeit;
use super::player::{Competitor, MoveRequest};
use super::record::{GameRecord, REASON_ADJUDICATION, REASON_REPETITION, REASON_RULES};
use super::time_control::TimeControl;
use crate::game::{Game, GameOptions, GameState, Outcome, Player};
use crate::search::time::GoParams;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Everything about a game except who plays it.
pub struct GameSetup<'a, G: Game> {
    /// Game number in the match, from 1.
    pub number: usize,
    /// The start position.
    pub start: G,
    /// The game options, for the record (with both sides' hidden
    /// information, such as CTOR's secret squares, as dealt).
    pub options: Vec<(String, String)>,
    /// What each side's player alone is told for this game (`x`, `o`).
    pub player_options: [Vec<(String, String)>; 2],
    /// The match options the setup was made from.
    pub match_options: &'a [(String, String)],
    /// Names of the players of `x` and `o`.
    pub names: [String; 2],
    /// Time control.
    pub time: TimeControl,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<u32>,
    /// End the game early by the engines' scores.
    pub adjudication: Adjudication,
    /// Seed of the random choices of built-in players.
    pub seed: u64,
    /// When this is set the game is abandoned at the next move (an
    /// external engine's thinking is cut short).
    pub abandon: Option<&'a AtomicBool>,
}

impl<G: Game> GameSetup<'_, G> {
    /// Whether the game is to be abandoned ([`GameSetup::abandon`] set).
    fn abandoned(&self) -> bool {
        self.abandon
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// One game's hidden information as dealt by the referee.
pub struct Dealt<G: Game> {
    /// The start position under the referee's options (knowing every
    /// side's hidden information).
    pub start: G,
    /// The game's options with every side's hidden information, for the
    /// record.
    pub options: Vec<(String, String)>,
    /// What each side's player alone is told (`x`, `o`): its own
    /// information, `-` for the other side's.
    pub told: [Vec<(String, String)>; 2],
}

/// Deals the hidden information of one game (CTOR's secret squares) when
/// `options` play it: each side's squares random from `seed`, or picked
/// by the engine's own choice (`auto`) where `choose` says that side's
/// player picks. Without hidden information: `start` and `options`
/// unchanged, nothing told.
pub fn deal_hidden<G: Game>(
    start: &G,
    options: &[(String, String)],
    choose: [bool; 2],
    seed: u64,
) -> Dealt<G> {
    let mut options = options.to_vec();
    let mut game_options = G::Options::default();
    for (name, value) in &options {
        let _ = game_options.set(name, value); // checked when the match began
    }
    let Some(names) = game_options.hidden_option_names() else {
        return Dealt {
            start: start.clone(),
            options,
            told: [Vec::new(), Vec::new()],
        };
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EC2_E7D0_5EC2_E7D0);
    for side in [Player::X, Player::O] {
        let name = names[side.index()];
        let value = if choose[side.index()] {
            game_options.chosen_hidden_value(&mut rng)
        } else {
            game_options.random_hidden_value(&mut rng)
        };
        // A value the game itself just produced is always accepted.
        let _ = game_options.set(name, &value);
        options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        options.push((name.to_owned(), value));
    }
    let start = G::from_fen(&start.fen(), &game_options).unwrap_or_else(|_| start.clone());
    let told = |side: Player| {
        vec![
            (
                names[side.index()].to_owned(),
                game_options.hidden_value(side),
            ),
            (names[side.other().index()].to_owned(), "-".to_owned()),
        ]
    };
    Dealt {
        start,
        options,
        told: [told(Player::X), told(Player::O)],
    }
}

/// A game in progress: the state, the moves as text, the clocks.
struct Table<G: Game> {
    start: String,
    state: GameState<G>,
    moves: Vec<String>,
    clocks: [u64; 2],
}

/// Plays one game; `players[0]` plays `x`, `players[1]` plays `o`.
/// `None` when the game was abandoned ([`GameSetup::abandon`]).
pub fn play_game<G: Game>(
    setup: &GameSetup<'_, G>,
    mut players: [&mut dyn Competitor<G>; 2],
) -> Option<GameRecord> {
    let mut table = Table {
        start: setup.start.fen(),
        state: GameState::new(setup.start.clone()),
        moves: Vec::new(),
        clocks: match setup.time {
            TimeControl::Clock { base_ms, .. } => [base_ms; 2],
            TimeControl::MoveTime { .. } => [0; 2],
        },
    };
    let (outcome, reason) = match start_both(setup, &mut players) {
        // A start cut short by the stop costs neither side anything.
        Err(_) if setup.abandoned() => return None,
        Err(ended) => ended,
        Ok(()) => run(setup, &mut players, &mut table)?,
    };
    Some(GameRecord {
        number: setup.number,
        game: G::NAME.to_owned(),
        options: setup.options.clone(),
        players: setup.names.clone(),
        start: table.start,
        moves: table.moves,
        outcome,
        reason,
        clocks: match setup.time {
            TimeControl::Clock { .. } => Some(table.clocks),
            TimeControl::MoveTime { .. } => None,
        },
    })
}

/// The result and reason of a game `side` loses by forfeit.
pub fn forfeit(side: Player, why: &Forfeit) -> (Outcome, String) {
    (
        Outcome::Win(side.other()),
        format!("{} forfeits: {why}", side.to_char()),
    )
}

/// `new_game` for both; a player that cannot start loses (both: a draw).
fn start_both<G: Game>(
    setup: &GameSetup<'_, G>,
    players: &mut [&mut dyn Competitor<G>; 2],
) -> Result<(), (Outcome, String)> {
    let seeds = [setup.seed, setup.seed ^ 0x9E37_79B9_7F4A_7C15];
    let x = players[0].new_game(seeds[0], &setup.player_options[0]);
    let o = players[1].new_game(seeds[1], &setup.player_options[1]);
    match (x, o) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(why), Ok(())) => Err(forfeit(Player::X, &why)),
        (Ok(()), Err(why)) => Err(forfeit(Player::O, &why)),
        (Err(x), Err(o)) => Err((Outcome::Draw, format!("both forfeit: x {x}; o {o}"))),
    }
}

/// Plays the game to its end; `None` when abandoned.
fn run<G: Game>(
    setup: &GameSetup<'_, G>,
    players: &mut [&mut dyn Competitor<G>; 2],
    table: &mut Table<G>,
) -> Option<(Outcome, String)> {
    let mut adjudicator = Adjudicator::new(setup.adjudication);
    loop {
        if let Some(outcome) = table.state.position.outcome() {
            return Some((outcome, REASON_RULES.to_owned()));
        }
        if let Some(outcome) = table.state.outcome() {
            return Some((outcome, REASON_REPETITION.to_owned()));
        }
        if setup.abandoned() {
            return None;
        }
        if let Some(limit) = setup.max_plies
            && table.moves.len() >= limit as usize
        {
            // Counting games are decided by the count, the others drawn.
            let outcome = table.state.position.adjudicate();
            return Some((
                outcome,
                format!(
                    "{REASON_ADJUDICATION}: {} at the {limit}-ply limit",
                    outcome.ugi_name()
                ),
            ));
        }
        let side = table.state.position.side_to_move();
        let player = &mut *players[side.index()];
        if let Err(why) = one_move(setup, player, table, side) {
            // A move cut short by the stop costs the side nothing.
            return (!setup.abandoned()).then(|| forfeit(side, &why));
        }
        // A game the move ended is the rules' to score.
        if table.state.outcome().is_none()
            && let Some(ended) = adjudicator.observe(side, player.last_score(), table.moves.len())
        {
            return Some(ended);
        }
    }
}

/// Asks `player` for a move, checks its time and legality, and plays it.
fn one_move<G: Game>(
    setup: &GameSetup<'_, G>,
    player: &mut dyn Competitor<G>,
    table: &mut Table<G>,
    side: Player,
) -> Result<(), Forfeit> {
    let (go, wait) = go_params(setup.time, table.clocks, side);
    let request = MoveRequest {
        state: &table.state,
        start: &table.start,
        moves: &table.moves,
        go,
        wait,
    };
    let started = Instant::now();
    let text = player.choose(&request)?;
    let elapsed = started.elapsed().as_millis() as u64;
    check_time(setup.time, &mut table.clocks, side, elapsed)?;
    let position = &table.state.position;
    let mv = checked_move(position, &text)?;
    table.moves.push(position.move_to_string(mv));
    table.state.play(mv);
    Ok(())
}

/// The move a player's `text` stands for, if it is readable and legal in
/// `position`; an illegal move forfeits.
pub fn checked_move<G: Game>(position: &G, text: &str) -> Result<G::Move, Forfeit> {
    let mv = position
        .parse_move(text)
        .map_err(|e| Forfeit::IllegalMove(format!("'{text}': {e}")))?;
    if !position.is_legal(mv) {
        return Err(Forfeit::IllegalMove(format!(
            "'{text}' in '{}'",
            position.fen()
        )));
    }
    Ok(mv)
}

/// The `go` parameters of a move and how long to wait for the answer.
pub fn go_params(time: TimeControl, clocks: [u64; 2], side: Player) -> (GoParams, Duration) {
    match time {
        TimeControl::MoveTime { ms, margin_ms } => (
            GoParams {
                movetime: Some(ms),
                ..GoParams::default()
            },
            Duration::from_millis(ms + margin_ms),
        ),
        TimeControl::Clock { inc_ms, .. } => (
            GoParams {
                time: [Some(clocks[0]), Some(clocks[1])],
                inc: [Some(inc_ms); 2],
                ..GoParams::default()
            },
            // Past the clock the move loses anyway; the extra second only
            // tells a late answer (loss on time) from silence (timeout).
            Duration::from_millis(clocks[side.index()] + 1_000),
        ),
    }
}

/// Charges `elapsed` ms to `side`; a loss when over the limit.
pub fn check_time(
    time: TimeControl,
    clocks: &mut [u64; 2],
    side: Player,
    elapsed: u64,
) -> Result<(), Forfeit> {
    match time {
        TimeControl::MoveTime { ms, margin_ms } => {
            if elapsed > ms + margin_ms {
                return Err(Forfeit::Timeout(format!("{elapsed} ms for a {ms} ms move")));
            }
        }
        TimeControl::Clock { inc_ms, .. } => {
            let clock = &mut clocks[side.index()];
            if elapsed > *clock {
                let left = std::mem::take(clock); // the flag fell: 0 left
                return Err(Forfeit::Flag(format!(
                    "{elapsed} ms used with {left} ms left"
                )));
            }
            *clock = *clock - elapsed + inc_ms;
        }
    }
    Ok(())
}
