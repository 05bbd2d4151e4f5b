//! The one small game API that every game implements and every search,
//! tool and protocol command is written against.
//!
//! A game is a value type (`Clone`) holding one position. The searches use
//! copy-make: they clone the position and call [`Game::play`] on the copy.
//! History-dependent rules (repetition) are not part of the position; they are
//! handled generically by [`GameState`], which keeps the repetition keys of
//! the positions played so far.
//!
//! The side to move after a move is whatever [`Game::side_to_move`] says: it
//! may stay the same (Dots and Boxes after a box, CTOR within a turn), so no
//! code may assume strict alternation.

use crate::tuning::SearchTuning;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One of the two players. `X` moves first and is `p1` in UGI terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// The first player (`x`, UGI `p1`).
    X,
    /// The second player (`o`, UGI `p2`).
    O,
}

impl Player {
    /// The opponent.
    #[inline]
    pub fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// 0 for `X`, 1 for `O`; handy for indexing per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The letter used in position strings.
    pub fn to_char(self) -> char {
        match self {
            Player::X => 'x',
            Player::O => 'o',
        }
    }

    /// Parses the side-to-move field of a position string (`x` or `o`).
    pub fn parse(field: &str) -> Result<Player, String> {
        match field {
            "x" => Ok(Player::X),
            "o" => Ok(Player::O),
            _ => Err(format!("side to move must be 'x' or 'o', not '{field}'")),
        }
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The given player won.
    Win(Player),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// Decides a game by counting: more of something wins, equal is a draw.
    pub fn by_count(x: u32, o: u32) -> Outcome {
        match x.cmp(&o) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::X),
            std::cmp::Ordering::Less => Outcome::Win(Player::O),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// The answer to UGI `query result`.
    pub fn ugi_name(self) -> &'static str {
        match self {
            Outcome::Win(Player::X) => "p1win",
            Outcome::Win(Player::O) => "p2win",
            Outcome::Draw => "draw",
        }
    }

    /// +1 if `player` won, -1 if they lost, 0 for a draw.
    pub fn sign_for(self, player: Player) -> i32 {
        match self {
            Outcome::Win(p) if p == player => 1,
            Outcome::Win(_) => -1,
            Outcome::Draw => 0,
        }
    }
}

/// The type of a UGI option, as announced in the `option` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type check`: `true` or `false`.
    Check,
    /// `type spin` with inclusive bounds.
    Spin {
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// `type combo` with the accepted values.
    Combo(Vec<&'static str>),
    /// `type string`: free text validated by the owner.
    Text,
}

/// A UGI option: its name, type and default value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// Option name as sent in `setoption name <name>`.
    pub name: &'static str,
    /// Its type.
    pub kind: OptionKind,
    /// Its default value, as text.
    pub default: String,
}

impl OptionSpec {
    /// The `option name … type …` line announced after `ugi`.
    pub fn ugi_line(&self) -> String {
        let head = format!("option name {} type", self.name);
        match &self.kind {
            OptionKind::Check => format!("{head} check default {}", self.default),
            OptionKind::Spin { min, max } => {
                format!("{head} spin default {} min {min} max {max}", self.default)
            }
            OptionKind::Combo(vars) => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("{head} combo default {}{vars}", self.default)
            }
            OptionKind::Text => format!("{head} string default {}", self.default),
        }
    }
}

// The option-value parsers: one per kind of value, shared by the engine's
// options and every game's, so that a value is read the same way whatever
// option it is for (protocol.md, "Option values"). Words (check and combo
// values, games) are matched case-insensitively; integers are decimal
// digits (leading zeros allowed, no sign but a `-` where negatives are);
// lists are items separated by one character, each item trimmed and none
// empty (so a trailing separator is an error).

/// The value that stands for an empty string (UCI's spelling), announced as
/// the default of an option several games share with different defaults.
pub const EMPTY_DEFAULT: &str = "<empty>";

/// Sets one game option under the rule every option follows: an empty
/// value (or `<empty>`) is a string option's default, and an error for a
/// check, spin or combo option, which needs a value. The tools set game
/// options through this, so that `--option Heaps=` means what
/// `setoption name Heaps value` means.
pub fn set_option<O: GameOptions>(options: &mut O, name: &str, value: &str) -> Result<(), String> {
    if !value.is_empty() && value != EMPTY_DEFAULT {
        return options.set(name, value);
    }
    let spec = O::specs()
        .into_iter()
        .find(|spec| spec.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown option '{name}'"))?;
    if spec.kind != OptionKind::Text {
        return Err(format!(
            "option {} needs a value (only string options take an empty one, meaning their default)",
            spec.name
        ));
    }
    options.set(name, &spec.default)
}

/// Parses a `check` option value: `true` or `false`, in any case.
pub fn parse_check(name: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("option {name} takes true or false, not '{value}'")),
    }
}

/// Parses a `spin` option value within `min..=max`.
pub fn parse_spin(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    let usage = || format!("option {name} takes an integer from {min} to {max}, not '{value}'");
    let digits = value.strip_prefix('-').unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(usage());
    }
    let number: i64 = value.parse().map_err(|_| usage())?;
    if number < min || number > max {
        return Err(format!(
            "option {name} must be from {min} to {max}, not {number}"
        ));
    }
    Ok(number)
}

/// Parses a `combo` option value: one of `vars`, in any case; returns the
/// value as announced.
pub fn parse_combo(name: &str, value: &str, vars: &[&'static str]) -> Result<&'static str, String> {
    vars.iter()
        .find(|var| var.eq_ignore_ascii_case(value))
        .copied()
        .ok_or_else(|| format!("option {name} takes {}, not '{value}'", alternatives(vars)))
}

/// `a`, `a or b`, `a, b or c`.
fn alternatives(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [head @ .., last] => format!("{} or {last}", head.join(", ")),
    }
}

/// Splits a list option value at `separator`, each item trimmed; an empty
/// item (an empty value, a doubled or trailing separator) is an error.
pub fn split_list<'a>(name: &str, value: &'a str, separator: char) -> Result<Vec<&'a str>, String> {
    let items: Vec<&str> = value.split(separator).map(str::trim).collect();
    if items.iter().any(|item| item.is_empty()) {
        return Err(format!(
            "option {name}: '{value}' has an empty item (items are separated by '{separator}')"
        ));
    }
    Ok(items)
}

/// The options of one game (`Rules`, `Size`, `Heaps`, …).
///
/// Each game keeps its own option values; they decide the start position and
/// the rules applied to any position.
pub trait GameOptions: Clone + Default + Debug + Send + Sync + 'static {
    /// The options this game announces after `ugi`.
    fn specs() -> Vec<OptionSpec>;

    /// Sets one option. `name` is matched case-insensitively. On error
    /// nothing changes.
    fn set(&mut self, name: &str, value: &str) -> Result<(), String>;

    /// The answer to `query secrets` in games with hidden information (each
    /// side's secret squares as this engine knows them); `None` for the
    /// others.
    fn secrets(&self) -> Option<String> {
        None
    }

    /// These options with the hidden information this engine holds for
    /// "whichever side it plays" given to `side` (CTOR's `SecretMine`, for
    /// runners that set one option per engine for the whole match while
    /// the engines change sides); `None` when there is none.
    fn for_side(&self, side: Player) -> Option<Self> {
        let _ = side;
        None
    }

    /// Per side, the option that tells an engine that side's hidden
    /// information (CTOR with `Secrets`: `SecretX`, `SecretO`), so that a
    /// referee can deal it; `None` when these options play none.
    fn hidden_option_names(&self) -> Option<[&'static str; 2]> {
        None
    }

    /// A random value for a side's hidden-information option, as a referee
    /// deals it (five random squares).
    fn random_hidden_value(&self, rng: &mut Xoshiro256PlusPlus) -> String {
        let _ = rng;
        String::new()
    }

    /// The engine's own choice for a hidden-information option (what the
    /// value `auto` picks), drawn from `rng` so that a referee's match is
    /// repeatable.
    fn chosen_hidden_value(&self, rng: &mut Xoshiro256PlusPlus) -> String {
        self.random_hidden_value(rng)
    }

    /// The value of `side`'s hidden-information option as set (squares an
    /// `auto` value picked included); empty for games without.
    fn hidden_value(&self, side: Player) -> String {
        let _ = side;
        String::new()
    }
}

/// Games without options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoOptions;

impl GameOptions for NoOptions {
    fn specs() -> Vec<OptionSpec> {
        Vec::new()
    }

    fn set(&mut self, name: &str, _value: &str) -> Result<(), String> {
        Err(format!("unknown option '{name}'"))
    }
}

/// A result proven by a perfect-play oracle or by a search, from the point of
/// view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    /// The side to move wins; `plies` until the end when known.
    Win(Option<u32>),
    /// The side to move loses; `plies` until the end when known.
    Loss(Option<u32>),
    /// Drawn with best play.
    Draw,
}

/// The answer of a perfect-play oracle: a best move and the proven value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved<M> {
    /// An optimal move.
    pub best: M,
    /// The game-theoretic value for the side to move.
    pub value: Proven,
    /// For scoring games (Dots and Boxes): the exact final score difference
    /// (side to move minus opponent) with best play from here.
    pub margin: Option<i32>,
}

/// How long a perfect-play oracle may work before giving up.
#[derive(Clone, Copy, Debug)]
pub struct SolveBudget<'a> {
    /// Give up (return `None`) once this instant has passed.
    pub deadline: Option<Instant>,
    /// Give up as soon as this becomes true (the protocol's `stop`).
    pub stop: &'a AtomicBool,
    /// Threads the oracle may use (the `Threads` option).
    pub threads: usize,
    /// Memory the oracle's tables may take (the `Hash` option), in bytes.
    pub memory_bytes: usize,
}

impl<'a> SolveBudget<'a> {
    /// A budget ending at `deadline` (if any) or at `stop`, for one thread
    /// and 64 MiB.
    pub fn new(deadline: Option<Instant>, stop: &'a AtomicBool) -> SolveBudget<'a> {
        SolveBudget {
            deadline,
            stop,
            threads: 1,
            memory_bytes: 64 << 20,
        }
    }

    /// Whether the oracle must give up now.
    pub fn expired(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// One game's rules, notation and evaluation.
///
/// Contract every implementation keeps (checked for every game by
/// [`crate::harness`]):
/// - when [`Game::outcome`] is `None`, [`Game::generate_moves`] yields at
///   least one move (a pass is an explicit move where the rules have one);
/// - [`Game::hash`] (incremental) equals [`Game::hash_from_scratch`];
/// - `from_fen(fen())` reproduces the position, and
///   `parse_move(move_to_string(m))` gives back `m`.
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// A move (or one operation of a multi-operation turn).
    type Move: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// The game's options.
    type Options: GameOptions;

    /// The name used by `setoption name Game value <NAME>`.
    const NAME: &'static str;

    /// The start position under these options.
    fn start(options: &Self::Options) -> Self;

    /// Reads a position string. The options supply the rules; a size written
    /// in the string wins over the `Size` option.
    fn from_fen(fen: &str, options: &Self::Options) -> Result<Self, String>;

    /// Writes the position string.
    fn fen(&self) -> String;

    /// The player to move. May be unchanged after a move.
    fn side_to_move(&self) -> Player;

    /// Clears `moves` and fills it with every legal move. Empty exactly when
    /// [`Game::outcome`] is `Some`.
    fn generate_moves(&self, moves: &mut Vec<Self::Move>);

    /// Plays a legal move.
    fn play(&mut self, mv: Self::Move);

    /// The result if this position is finished by the rules that depend on
    /// the position alone (repetition is handled by [`GameState`]).
    fn outcome(&self) -> Option<Outcome>;

    /// The incremental Zobrist hash of everything that affects legal moves
    /// and results, except pure move counters.
    fn hash(&self) -> u64;

    /// The same hash computed from scratch (tests compare the two).
    fn hash_from_scratch(&self) -> u64;

    /// Static evaluation from the side to move's point of view, in
    /// centi-units (100 ≈ one piece). Must stay well inside ±20000.
    fn evaluate(&self) -> i32;

    /// Reads a move string; checks its syntax and that it can apply to this
    /// position. Full legality is checked by [`Game::is_legal`].
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;

    /// Writes a move string (canonical form).
    fn move_to_string(&self, mv: Self::Move) -> String;

    /// Whether `mv` is legal here. Override when the move list is huge.
    fn is_legal(&self, mv: Self::Move) -> bool {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        moves.contains(&mv)
    }

    /// Number of legal moves (perft's bulk count at depth 1). Override with
    /// something faster than generating when possible.
    fn count_moves(&self) -> u64 {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        moves.len() as u64
    }

    /// The key of this position for the repetition rule, or `None` when the
    /// game has no repetition rule here (CTOR in the middle of a turn, or a
    /// game without one).
    fn repetition_key(&self) -> Option<u64> {
        None
    }

    /// How many occurrences of a position end the game (3 = third occurrence).
    fn repetition_limit(&self) -> usize {
        3
    }

    /// The result when the repetition rule ends the game in this position.
    fn repetition_outcome(&self) -> Outcome {
        Outcome::Draw
    }

    /// Perfect play where it is known (Nim by nim-sum, Mū Tōrere by table,
    /// Dots and Boxes by an exact solver when it can finish within the
    /// budget). `None` means "search instead". Called by `go` before any
    /// search when `Search` is `auto`.
    fn solve(&self, budget: &SolveBudget) -> Option<Solved<Self::Move>> {
        let _ = budget;
        None
    }

    /// The move a playout (MCTS `Playout policy`) plays here, chosen among
    /// the legal `moves` (never empty). The default is uniform random; games
    /// override it with a cheap policy where that measurably helps.
    fn playout_move(&self, moves: &[Self::Move], rng: &mut Xoshiro256PlusPlus) -> Self::Move {
        moves[rand::RngExt::random_range(rng, 0..moves.len())]
    }

    /// A compact code of `mv`, unique among the moves of any position, so
    /// that the shared transposition table can store it in a few bits and
    /// the history tables can index by it. `None` for a move too large to
    /// code (it is then never stored).
    fn move_code(mv: Self::Move) -> Option<u32>;

    /// The move of a code made by [`Game::move_code`], if the code is one.
    fn move_from_code(code: u32) -> Option<Self::Move>;

    /// Which rule ended the game, in a few words (`board full`, `blocked
    /// side loses`, `move counter`, …), when [`Game::outcome`] says it is
    /// over; `None` otherwise. Repetition is named by [`GameState`]. The
    /// default says only `rules`.
    fn end_reason(&self) -> Option<&'static str> {
        self.outcome().map(|_| "rules")
    }

    /// How many moves the current turn is expected to have (at least 1), so
    /// that the clock is planned per turn: each move gets an even share of
    /// the turn's plan. The default, 1, suits games where a turn is one
    /// move or where extra moves are rare (Dots and Boxes after a box);
    /// CTOR counts the operations its budgets allow, plus `end`.
    fn moves_in_turn(&self) -> u32 {
        1
    }

    /// The position after a "null move" (the opponent to move, nothing
    /// else changed), for null-move pruning. `None` where a null move means
    /// nothing: inside a multi-operation turn, in games where passing is
    /// unnatural, or when the game is over. Only games whose
    /// [`SearchTuning`] turns null moves on need it (Ataxx searches better
    /// without them, so it keeps this default).
    fn null_move(&self) -> Option<Self> {
        None
    }

    /// Whether `mv` is a tactical move that quiescence search follows and
    /// that late-move pruning never skips (a capture, a completed box).
    fn is_noisy(&self, mv: Self::Move) -> bool {
        let _ = mv;
        false
    }

    /// A guess of how good `mv` is for the side to move, used to order
    /// moves (larger first). The default plays the move and evaluates the
    /// child from the mover's point of view; games override it with
    /// something cheaper.
    fn move_hint(&self, mv: Self::Move) -> i32 {
        let mut child = self.clone();
        child.play(mv);
        let eval = child.evaluate();
        if child.side_to_move() == self.side_to_move() {
            eval
        } else {
            -eval
        }
    }

    /// [`Game::move_hint`] of every move of `moves`, in order, into `hints`
    /// (cleared first). Games where many moves share parts (CTOR's
    /// landings: two chips off, one chip on) override it to reckon each part
    /// once.
    fn move_hints(&self, moves: &[Self::Move], hints: &mut Vec<i32>) {
        hints.clear();
        hints.extend(moves.iter().map(|&mv| self.move_hint(mv)));
    }

    /// Whether playing `mv` passes the turn to the other side. The default
    /// plays it and looks; games override it with something cheaper.
    fn ends_turn(&self, mv: Self::Move) -> bool {
        let mut child = self.clone();
        child.play(mv);
        child.side_to_move() != self.side_to_move()
    }

    /// A key shared by every position equal to this one up to the board's
    /// symmetries (rotations, reflections), so that tools can keep one of
    /// each. The default, the hash, treats every position as distinct.
    fn canonical_key(&self) -> u64 {
        self.hash()
    }

    /// This position followed by its images under every symmetry of the
    /// board that the rules (and so the true value) do not see: `agon
    /// train` learns from each image too, several samples for one recorded
    /// position. The default is the position alone.
    fn symmetric_images(&self) -> Vec<Self> {
        vec![self.clone()]
    }

    /// The alpha-beta parameters for this game: which prunings and
    /// reductions run, and their margins (see [`SearchTuning`]).
    fn search_tuning() -> SearchTuning {
        SearchTuning::DEFAULT
    }

    /// Whether no move of the side to move's turn has been made yet (in a
    /// game of several moves a turn, the turn is at its first). Every
    /// position by default.
    fn starts_turn(&self) -> bool {
        true
    }

    /// Whether `Search auto` searches whole turns in this position, where
    /// [`SearchTuning::turns`] has widths for that search: the variants
    /// where it was measured to beat alpha-beta. Every position by default.
    fn auto_searches_turns(&self) -> bool {
        true
    }

    /// Whether MCTS playouts use [`Game::playout_move`] (`Playout auto`);
    /// `false` plays uniformly random playouts.
    fn policy_playouts() -> bool {
        true
    }

    /// The result when a game is stopped before its end (a match's ply
    /// limit): games decided by count are decided by the current count, the
    /// others are drawn.
    fn adjudicate(&self) -> Outcome {
        Outcome::Draw
    }

    /// The built-in baseline player (`agon:player=baseline` in matches), a
    /// weak but sensible opponent such as the seed websites' computer
    /// players. `None` when the game has none; it then plays uniformly at
    /// random.
    fn baseline_move(&self, rng: &mut Xoshiro256PlusPlus) -> Option<Self::Move> {
        let _ = rng;
        None
    }

    /// This game's learned-evaluation hooks (what [`crate::network`] reads
    /// of a position, the network shipped for it), `None` when it has no
    /// network: algorithm knowledge handed out by the game rather than
    /// methods of every position, as OpenSpiel keeps it out of its `State`.
    fn learned() -> Option<&'static dyn LearnedEvaluation<Self>> {
        None
    }

    /// This game's hidden-information hooks (CTOR's secret squares), `None`
    /// for games of perfect information, where a player's view is the
    /// whole position.
    fn hidden() -> Option<&'static dyn HiddenInformation<Self>> {
        None
    }

    /// A text diagram for the `d` command.
    fn diagram(&self) -> String {
        self.fen()
    }
}

/// A game's learned evaluation, as [`crate::network`] and `agon train` see
/// it: a network's inputs for a position, its output buckets, the
/// symmetries the trainer may use, and the network shipped in the binary.
/// A game that has one hands it out with [`Game::learned`].
pub trait LearnedEvaluation<G: Game>: Sync {
    /// Number of network inputs.
    fn inputs(&self) -> usize;

    /// Pushes onto `active` the indices (below [`LearnedEvaluation::inputs`])
    /// of the inputs that are on in `position`, seen from the side to move.
    fn active_inputs(&self, position: &G, active: &mut Vec<u16>);

    /// Which of a network's `buckets` output layers evaluates `position`
    /// (below `buckets`): a stage of the game (how full the board is), so
    /// that one hidden layer can be read differently in the opening and the
    /// endgame. 0 by default: the same output for every position.
    fn bucket(&self, position: &G, buckets: usize) -> usize {
        let _ = (position, buckets);
        0
    }

    /// Where each input goes in each image of [`Game::symmetric_images`]
    /// (in their order): `maps[k][i]` is the input that input `i` of a
    /// position becomes in its `k`-th image, so that an image's active
    /// inputs are the position's mapped, and every image falls in the
    /// position's output bucket. With it `agon train` keeps one image per
    /// record and makes the others as it reads them (an eighth of the memory
    /// for a square board). `None`, the default: the trainer computes and
    /// keeps every image.
    fn image_input_maps(&self) -> Option<Vec<Vec<u16>>> {
        None
    }

    /// The network file shipped for this game (embedded in the binary).
    fn embedded_network(&self) -> Option<&'static [u8]> {
        None
    }

    /// Whether the shipped network was trained for `position`'s variant
    /// (board size, team size, …). Where it was not, `Eval auto` evaluates
    /// with the classic evaluation instead; a network loaded with
    /// `EvalFile` is used as given. Every variant by default.
    fn embedded_network_fits(&self, position: &G) -> bool {
        let _ = position;
        true
    }
}

/// What the rules hide from a player (CTOR's secret squares), for the
/// referee that hands each player its view and the searches that model
/// what they cannot see. A game that hides something hands this out with
/// [`Game::hidden`].
pub trait HiddenInformation<G: Game>: Sync {
    /// A copy of `position` in which the hidden information that `observer`
    /// does not know has been sampled, consistently with what has been
    /// observed (CTOR: the opponent's unused squares drawn from the squares
    /// not ruled out). `None` when nothing is hidden from `observer`: the
    /// searches then run as usual. What the observer should know but does
    /// not (its own secrets, not told) is taken as absent, so that it never
    /// plays a move it cannot justify.
    fn sample_hidden(
        &self,
        position: &G,
        observer: Player,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<G>;

    /// A copy in which everything hidden from `observer` is taken as absent
    /// (CTOR: the opponent is assumed to have no secret squares left), the
    /// stance of an engine that ignores hidden information. `None` when
    /// nothing is hidden from `observer`.
    fn assume_nothing_hidden(&self, position: &G, observer: Player) -> Option<G>;

    /// A copy in which what is hidden from `observer` is taken in
    /// expectation rather than sampled (CTOR: every candidate square is the
    /// opponent's secret with equal probability, and the evaluation counts
    /// each possible substitution by its expected value). `None` when
    /// nothing is hidden from `observer` or the game has no such model.
    fn expect_hidden(&self, position: &G, observer: Player) -> Option<G> {
        let _ = (position, observer);
        None
    }

    /// `position` as `observer` may see it: what only the other side knows
    /// is removed (a referee hands each player its own view).
    fn view_for(&self, position: &G, observer: Player) -> G;

    /// Whether `mv` reveals hidden information (a CTOR substitution shows
    /// the square was secret), so that lines searched in a sampled position
    /// are never printed past it.
    fn reveals_hidden(&self, position: &G, mv: G::Move) -> bool;

    /// What the evaluation adds for hidden information `position` only
    /// knows in expectation (CTOR's secret squares under `HiddenInfo
    /// expect`), so that a learned evaluation, which does not see it, gets
    /// it too. Part of [`Game::evaluate`] already; 0 by default.
    fn evaluation_term(&self, position: &G) -> i32 {
        let _ = position;
        0
    }
}

/// `position` as `observer` may see it: the game's
/// [`HiddenInformation::view_for`], or the whole position in a game of
/// perfect information.
pub fn view_for<G: Game>(position: &G, observer: Player) -> G {
    match G::hidden() {
        Some(hidden) => hidden.view_for(position, observer),
        None => position.clone(),
    }
}

/// A position together with what history-dependent rules need: the
/// repetition keys of the positions played so far in this game.
#[derive(Clone, Debug)]
pub struct GameState<G: Game> {
    /// The current position.
    pub position: G,
    /// Repetition keys of every position of the game so far, current included
    /// (positions without a key are skipped).
    pub keys: Vec<u64>,
}

impl<G: Game> GameState<G> {
    /// Starts a game record at `position`, which counts as its first
    /// occurrence.
    pub fn new(position: G) -> Self {
        let keys = position.repetition_key().into_iter().collect();
        GameState { position, keys }
    }

    /// Plays a legal move and records the new position.
    pub fn play(&mut self, mv: G::Move) {
        self.position.play(mv);
        if let Some(key) = self.position.repetition_key() {
            self.keys.push(key);
        }
    }

    /// How many times the current position has occurred.
    pub fn occurrences(&self) -> usize {
        match self.position.repetition_key() {
            Some(key) => self.keys.iter().filter(|&&k| k == key).count(),
            None => 0,
        }
    }

    /// The result if the game is over, repetition included.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(outcome) = self.position.outcome() {
            return Some(outcome);
        }
        if self.position.repetition_key().is_some()
            && self.occurrences() >= self.position.repetition_limit()
        {
            return Some(self.position.repetition_outcome());
        }
        None
    }

    /// Which rule ended the game (`repetition` or the position's own
    /// [`Game::end_reason`]), `None` while it goes on.
    pub fn end_reason(&self) -> Option<&'static str> {
        if self.position.outcome().is_some() {
            return self.position.end_reason();
        }
        self.outcome().map(|_| "repetition")
    }

    /// Legal moves, none when the game is over (repetition included).
    pub fn legal_moves(&self) -> Vec<G::Move> {
        let mut moves = Vec::new();
        if self.outcome().is_none() {
            self.position.generate_moves(&mut moves);
        }
        moves
    }
}

/// Deterministic Zobrist keys, computed at compile time with splitmix64 so
/// that hashes are identical on every build and machine.
pub const fn zobrist_keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut keys = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
}

/// Splits a position string into exactly `count` space-separated fields.
pub fn split_fields<'a>(fen: &'a str, count: usize, format: &str) -> Result<Vec<&'a str>, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() != count {
        return Err(format!(
            "position needs {count} fields ({format}), got {}",
            fields.len()
        ));
    }
    Ok(fields)
}

/// Parses a decimal counter field, with a clear error.
pub fn parse_counter<T: std::str::FromStr>(field: &str, what: &str) -> Result<T, String> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{what} must be a non-negative integer, not '{field}'"
        ));
    }
    field
        .parse()
        .map_err(|_| format!("{what} '{field}' is out of range"))
}
