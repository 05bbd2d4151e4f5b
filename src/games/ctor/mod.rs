//! CTOR (RULES.md §6): a territory game on an 8×8 or 10×10 torus. A turn is
//! a sequence of operations by one side (placements, movements, landings,
//! replacements) closed by `end`; each operation is one move, so the side to
//! move stays the same until `end`.
//!
//! Position `<rows> <side> <turn> <placed>/<moved>/<landed>/<replaced>
//! <empty>`; moves `12`, `28-29`, `12+27@23`, `x31`, `end` (squares 1…N² row
//! by row from the top left).
//!
//! Both sizes use one `u128` bitboard per side (bit = row × N + column, row 0
//! at the top), so a single type serves both and every neighbour count is a
//! handful of wrapping shifts and a bit-sliced adder.

mod features;
pub mod secrets;

use super::board_text;
use crate::game::{
    Game, GameOptions, HiddenInformation, LearnedEvaluation, OptionKind, OptionSpec, Outcome,
    Player, parse_counter, split_fields, zobrist_keys,
};
use crate::tuning::{SearchTuning, TurnTuning};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use secrets::{SECRET_COUNT, SecretChoice, SecretState};

/// Largest board side.
pub const MAX_SIZE: usize = 10;
const MAX_SQUARES: usize = MAX_SIZE * MAX_SIZE;

/// CTOR's options: board size, team size and the secret squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtorOptions {
    /// Board side, 8 or 10 (`Size`).
    pub size: u8,
    /// Players per team, 1 to 3 (`Team`); decides the per-turn budgets.
    pub team: u8,
    /// Whether the game is played with secret squares (`Secrets`).
    pub secrets: bool,
    /// Each side's secret squares as far as this engine knows them
    /// (`SecretX`, `SecretO`).
    pub secret: [SecretChoice; 2],
    /// This engine's own squares, for whichever side it plays: the side to
    /// move when it is asked to search (`SecretMine`).
    pub mine: SecretChoice,
}

impl Default for CtorOptions {
    fn default() -> Self {
        CtorOptions {
            size: 8,
            team: 1,
            secrets: false,
            secret: [SecretChoice::Unknown; 2],
            mine: SecretChoice::Unknown,
        }
    }
}

impl CtorOptions {
    /// Options for a board side and team size, without secret squares.
    pub fn new(size: u8, team: u8) -> CtorOptions {
        CtorOptions {
            size,
            team,
            ..CtorOptions::default()
        }
    }

    /// Squares on the board these options make.
    fn squares(&self) -> u32 {
        u32::from(self.size) * u32::from(self.size)
    }

    fn set_size(&mut self, size: u8) -> Result<(), String> {
        let squares = u32::from(size) * u32::from(size);
        let x = self.secret[0].resized("SecretX", squares)?;
        let o = self.secret[1].resized("SecretO", squares)?;
        let mine = self.mine.resized("SecretMine", squares)?;
        self.size = size;
        self.secret = [x, o];
        self.mine = mine;
        Ok(())
    }
}

impl GameOptions for CtorOptions {
    fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                name: "Size",
                kind: OptionKind::Combo(vec!["8", "10"]),
                default: "8".into(),
            },
            OptionSpec {
                name: "Team",
                kind: OptionKind::Spin { min: 1, max: 3 },
                default: "1".into(),
            },
            OptionSpec {
                name: "Secrets",
                kind: OptionKind::Check,
                default: "false".into(),
            },
            OptionSpec {
                name: "SecretX",
                kind: OptionKind::Text,
                default: "-".into(),
            },
            OptionSpec {
                name: "SecretO",
                kind: OptionKind::Text,
                default: "-".into(),
            },
            OptionSpec {
                name: "SecretMine",
                kind: OptionKind::Text,
                default: "-".into(),
            },
        ]
    }

    fn for_side(&self, side: Player) -> Option<CtorOptions> {
        let mine = self.mine.mask()?;
        let mut options = *self;
        options.secret[side.index()] = SecretChoice::Squares {
            mask: mine,
            auto: false,
        };
        options.secret[side.other().index()] = SecretChoice::Unknown;
        Some(options)
    }

    fn hidden_option_names(&self) -> Option<[&'static str; 2]> {
        self.secrets.then_some(["SecretX", "SecretO"])
    }

    fn random_hidden_value(&self, rng: &mut Xoshiro256PlusPlus) -> String {
        secrets::square_list(secrets::random_squares(self.squares(), rng))
    }

    fn chosen_hidden_value(&self, rng: &mut Xoshiro256PlusPlus) -> String {
        secrets::square_list(secrets::choose_squares(self.squares(), rng))
    }

    fn hidden_value(&self, side: Player) -> String {
        self.secret[side.index()].text()
    }

    fn secrets(&self) -> Option<String> {
        let mut answer = format!("x {} o {}", self.secret[0].text(), self.secret[1].text());
        if self.mine.mask().is_some() {
            answer.push_str(&format!(" mine {}", self.mine.text()));
        }
        Some(answer)
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name.to_ascii_lowercase().as_str() {
            "size" => match crate::game::parse_spin("Size", value, 8, 10) {
                Ok(size @ (8 | 10)) => self.set_size(size as u8)?,
                _ => return Err(format!("option Size is 8 or 10, not '{value}'")),
            },
            "secrets" => self.secrets = crate::game::parse_check("Secrets", value)?,
            "secretx" => self.secret[0] = SecretChoice::parse("SecretX", value, self.squares())?,
            "secreto" => self.secret[1] = SecretChoice::parse("SecretO", value, self.squares())?,
            "secretmine" => self.mine = SecretChoice::parse("SecretMine", value, self.squares())?,
            "team" => self.team = crate::game::parse_spin("Team", value, 1, 3)? as u8,
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }
}

/// One operation of a CTOR turn. Squares are 0-based inside (written
/// 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtorMove {
    /// A new chip on an empty square.
    Place(u8),
    /// A chip one square orthogonally (wrapping) to an empty square.
    Move(u8, u8),
    /// Two own chips (`a < b`) taken off, one chip put on the empty `to`.
    Land(u8, u8, u8),
    /// An enemy chip with at least 5 own neighbours becomes own.
    Replace(u8),
    /// Finish the turn.
    End,
    /// The side's secret square, chosen by the opponent in the turn just
    /// ended, becomes its own (`s<sq>`; option `Secrets`).
    Substitute(u8),
}

/// Per-turn budgets: placements, movements, landings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Placements allowed this turn.
    pub place: u8,
    /// Movements allowed this turn.
    pub moves: u8,
    /// Landings allowed this turn.
    pub land: u8,
}

/// The budgets of turn `turn` (from 1) for teams of `team` players.
pub fn budget(team: u8, turn: u32) -> Budget {
    let only_place = |place| Budget {
        place,
        moves: 0,
        land: 0,
    };
    match (team, turn) {
        // The opening ramp removes the first-move advantage.
        (_, 1) => only_place(1),
        (_, 2) => only_place(2),
        (3, 3) => only_place(3),
        (1, _) => Budget {
            place: 2,
            moves: 2,
            land: 1,
        },
        (2, _) => Budget {
            place: 2,
            moves: 2,
            land: 0,
        },
        _ => Budget {
            place: 3,
            moves: 3,
            land: 0,
        },
    }
}

/// The geometry of one board size: masks used by the wrapping shifts.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: u32,
    full: u128,
    first_col: u128,
    last_col: u128,
}

impl Geometry {
    const fn new(n: u32) -> Geometry {
        let mut first_col = 0u128;
        let mut r = 0;
        while r < n {
            first_col |= 1u128 << (r * n);
            r += 1;
        }
        Geometry {
            n,
            full: (1u128 << (n * n)) - 1,
            first_col,
            last_col: first_col << (n - 1),
        }
    }

    /// Every chip one column to the right, wrapping.
    #[inline]
    fn east(&self, b: u128) -> u128 {
        ((b & !self.last_col) << 1) | ((b & self.last_col) >> (self.n - 1))
    }

    /// Every chip one column to the left, wrapping.
    #[inline]
    fn west(&self, b: u128) -> u128 {
        ((b & !self.first_col) >> 1) | ((b & self.first_col) << (self.n - 1))
    }

    /// Every chip one row down, wrapping.
    #[inline]
    fn south(&self, b: u128) -> u128 {
        ((b << self.n) | (b >> (self.n * self.n - self.n))) & self.full
    }

    /// Every chip one row up, wrapping.
    #[inline]
    fn north(&self, b: u128) -> u128 {
        (b >> self.n) | ((b << (self.n * self.n - self.n)) & self.full)
    }

    /// The 8 neighbour images of `b`: bit q of image i is set when q's
    /// i-th neighbour is in `b`.
    #[inline]
    fn images(&self, b: u128) -> [u128; 8] {
        let (n, s) = (self.north(b), self.south(b));
        [
            n,
            s,
            self.east(b),
            self.west(b),
            self.east(n),
            self.west(n),
            self.east(s),
            self.west(s),
        ]
    }

    /// The number of neighbours in `b` of every square, bit-sliced: bit
    /// `i` of a square's count (0–8) is its bit in plane `i`.
    #[inline]
    fn neighbour_counts(&self, b: u128) -> [u128; 4] {
        let (mut c0, mut c1, mut c2, mut c3) = (0u128, 0u128, 0u128, 0u128);
        for img in self.images(b) {
            let carry0 = c0 & img;
            c0 ^= img;
            let carry1 = c1 & carry0;
            c1 ^= carry0;
            let carry2 = c2 & carry1;
            c2 ^= carry1;
            c3 |= carry2;
        }
        [c0, c1, c2, c3]
    }

    /// Squares with at least 4 and at least 5 neighbours in `b`.
    #[inline]
    fn counts_at_least_4_5(&self, b: u128) -> (u128, u128) {
        let [c0, c1, c2, c3] = self.neighbour_counts(b);
        (c3 | c2, c3 | (c2 & (c1 | c0)))
    }

    /// The orthogonal neighbours of one square.
    #[inline]
    fn orthogonal(&self, sq: u8) -> u128 {
        let b = 1u128 << sq;
        self.north(b) | self.south(b) | self.east(b) | self.west(b)
    }
}

/// The network shipped for CTOR, used on 8×8 with one player a team, the
/// games it learned from (how it was made: `networks/README.md`).
static CTOR_NETWORK: &[u8] = include_bytes!("../../../networks/ctor.net");

/// Evaluation of one placement still to make in the turn.
const PLACEMENT_VALUE: i32 = 90;
const GEOMETRY_8: Geometry = Geometry::new(8);
const GEOMETRY_10: Geometry = Geometry::new(10);

/// Iterates the squares of a bitboard.
pub(crate) fn squares(mut b: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if b == 0 {
            return None;
        }
        let sq = b.trailing_zeros() as u8;
        b &= b - 1;
        Some(sq)
    })
}

// Zobrist layout: chips (2 × 100), side, then the turn state: placed (4),
// moved (4), landed (2), replaced-any (1), empty (3), opening turn (4).
const KEY_SIDE: usize = 2 * MAX_SQUARES;
const KEY_PLACED: usize = KEY_SIDE + 1;
const KEY_MOVED: usize = KEY_PLACED + 4;
const KEY_LANDED: usize = KEY_MOVED + 4;
const KEY_REPLACED: usize = KEY_LANDED + 2;
const KEY_EMPTY: usize = KEY_REPLACED + 1;
const KEY_TURN: usize = KEY_EMPTY + 3;
const KEY_COUNT: usize = KEY_TURN + 4;
static KEYS: [u64; KEY_COUNT] = zobrist_keys::<KEY_COUNT>(0x00C7_0A0B_0A4D);

fn chip_key(p: usize, sq: u8) -> u64 {
    KEYS[p * MAX_SQUARES + sq as usize]
}

/// What a landing's hint is estimated from: the evaluation after a landing
/// that changed nothing on the board, and how much one chip more (on an
/// empty square) or less (off an own square) changes it.
struct LandingParts {
    base: i32,
    change: [i32; MAX_SQUARES],
}

impl LandingParts {
    /// The estimated evaluation after `a` and `b` are taken off and a chip
    /// is put on `to`.
    fn estimate(&self, a: u8, b: u8, to: u8) -> i32 {
        let change = |sq: u8| self.change[sq as usize];
        self.base + change(a) + change(b) + change(to)
    }
}

/// A CTOR position: the board, whose turn it is and what has been done in
/// this turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctor {
    n: u8,
    team: u8,
    chips: [u128; 2],
    side: Player,
    turn: u32,
    placed: u8,
    moved: u8,
    landed: u8,
    replaced: u32,
    empty: u8,
    /// Zobrist hash of the chips and the side to move (the repetition key).
    board_hash: u64,
    /// The secret squares (option `Secrets`).
    secrets: SecretState,
}

impl Ctor {
    fn geometry(&self) -> &'static Geometry {
        if self.n == 10 {
            &GEOMETRY_10
        } else {
            &GEOMETRY_8
        }
    }

    /// Board side (8 or 10).
    pub fn size(&self) -> usize {
        self.n as usize
    }

    /// Chips of `p`, as a bitboard (bit = row × N + column, row 0 on top).
    pub fn chips(&self, p: Player) -> u128 {
        self.chips[p.index()]
    }

    /// Number of chips of `p`.
    pub fn chip_count(&self, p: Player) -> u32 {
        self.chips[p.index()].count_ones()
    }

    /// The budgets of the current turn.
    pub fn budget(&self) -> Budget {
        budget(self.team, self.turn)
    }

    fn empties(&self) -> u128 {
        self.geometry().full & !(self.chips[0] | self.chips[1])
    }

    /// Enemy chips `p` may replace now (at least 5 of `p`'s chips around).
    pub fn replaceable(&self, p: Player) -> u128 {
        let (_, five) = self.geometry().counts_at_least_4_5(self.chips[p.index()]);
        five & self.chips[p.other().index()]
    }

    /// Whether no operation besides `end` has been made in this turn.
    fn turn_is_fresh(&self) -> bool {
        self.placed == 0 && self.moved == 0 && self.landed == 0 && self.replaced == 0
    }

    /// The turn number while it decides the budgets (the opening ramp),
    /// else 0: later turns all have the same budgets.
    fn opening_turn(&self) -> usize {
        let ramp = if self.team == 3 { 3 } else { 2 };
        if self.turn <= ramp {
            self.turn as usize
        } else {
            0
        }
    }

    /// The hash of everything besides the board and side.
    fn turn_state_key(&self) -> u64 {
        let mut h = KEYS[KEY_PLACED + self.placed.min(3) as usize]
            ^ KEYS[KEY_MOVED + self.moved.min(3) as usize]
            ^ KEYS[KEY_LANDED + self.landed.min(1) as usize]
            ^ KEYS[KEY_EMPTY + self.empty.min(2) as usize]
            ^ KEYS[KEY_TURN + self.opening_turn()];
        if self.replaced > 0 {
            h ^= KEYS[KEY_REPLACED];
        }
        h
    }

    fn board_hash_from_scratch(&self) -> u64 {
        let mut h = if self.side == Player::O {
            KEYS[KEY_SIDE]
        } else {
            0
        };
        for p in 0..2 {
            h = squares(self.chips[p]).fold(h, |acc, sq| acc ^ chip_key(p, sq));
        }
        h
    }

    /// The parts a landing's hint is estimated from (see
    /// [`Game::move_hints`]), for the side to move.
    fn landing_parts(&self) -> LandingParts {
        let me = self.side.index();
        let mut landed = self.clone();
        landed.landed += 1;
        let base = landed.evaluate();
        let mut change = [0; MAX_SQUARES];
        for sq in squares(self.empties() | self.chips[me]) {
            let mut after = landed.clone();
            after.toggle(me, sq);
            change[sq as usize] = after.evaluate() - base;
        }
        LandingParts { base, change }
    }

    fn toggle(&mut self, p: usize, sq: u8) {
        self.chips[p] ^= 1u128 << sq;
        self.board_hash ^= chip_key(p, sq);
    }

    fn squares_count(&self) -> u32 {
        (self.n as u32) * (self.n as u32)
    }

    fn parse_square(&self, text: &str) -> Result<u8, String> {
        let number: u32 = parse_counter(text, "ctor square")?;
        if number == 0 || number > self.squares_count() {
            return Err(format!(
                "square {number} is off the board (1 to {})",
                self.squares_count()
            ));
        }
        Ok((number - 1) as u8)
    }

    fn landings_allowed(&self) -> bool {
        self.landed < self.budget().land && self.chips[self.side.index()].count_ones() >= 2
    }

    /// Chip difference (`p` minus the other) after `p` replaces everything it
    /// can, repeatedly (each replacement only adds `p`'s neighbours).
    fn difference_after_replacements(&self, p: Player) -> i32 {
        let mut me = self.chips[p.index()];
        let mut you = self.chips[p.other().index()];
        let g = self.geometry();
        loop {
            let (_, five) = g.counts_at_least_4_5(me);
            let flips = five & you;
            if flips == 0 {
                break;
            }
            me |= flips;
            you &= !flips;
        }
        me.count_ones() as i32 - you.count_ones() as i32
    }

    /// Every non-`end` operation except replacements, for the baseline.
    fn building_moves(&self, out: &mut Vec<CtorMove>) {
        self.push_placements(out);
        self.push_movements(out);
        self.push_landings(out);
    }

    fn push_replacements(&self, out: &mut Vec<CtorMove>) {
        out.extend(squares(self.replaceable(self.side)).map(CtorMove::Replace));
    }

    fn push_placements(&self, out: &mut Vec<CtorMove>) {
        if self.placed < self.budget().place {
            out.extend(squares(self.empties()).map(CtorMove::Place));
        }
    }

    fn push_movements(&self, out: &mut Vec<CtorMove>) {
        if self.moved >= self.budget().moves {
            return;
        }
        let g = self.geometry();
        let empties = self.empties();
        for from in squares(self.chips[self.side.index()]) {
            out.extend(squares(g.orthogonal(from) & empties).map(|to| CtorMove::Move(from, to)));
        }
    }

    fn push_landings(&self, out: &mut Vec<CtorMove>) {
        if !self.landings_allowed() {
            return;
        }
        let own = self.chips[self.side.index()];
        let empties = self.empties();
        for a in squares(own) {
            for b in squares(own & !((2u128 << a) - 1)) {
                out.extend(squares(empties).map(|to| CtorMove::Land(a, b, to)));
            }
        }
    }

    fn parse_board(field: &str) -> Result<(u8, [u128; 2]), String> {
        let n = field.split('/').count();
        if n != 8 && n != 10 {
            return Err(format!("ctor board needs 8 or 10 rows, got {n}"));
        }
        let rows = board_text::parse_board(field, n, n, "xo")?;
        let mut chips = [0u128; 2];
        for (r, row) in rows.iter().enumerate() {
            for (c, square) in row.iter().enumerate() {
                if let Some(piece) = square {
                    chips[usize::from(*piece == 'o')] |= 1u128 << (r * n + c);
                }
            }
        }
        Ok((n as u8, chips))
    }

    fn board_string(&self) -> String {
        let n = self.n as usize;
        board_text::write_board(n, n, |r, c| {
            let bit = 1u128 << (r * n + c);
            if self.chips[0] & bit != 0 {
                Some('x')
            } else if self.chips[1] & bit != 0 {
                Some('o')
            } else {
                None
            }
        })
    }

    fn parse_turn_counters(field: &str) -> Result<(u8, u8, u8, u32), String> {
        let parts: Vec<&str> = field.split('/').collect();
        if parts.len() != 4 {
            return Err(format!(
                "turn counters '{field}' must be <placed>/<moved>/<landed>/<replaced>"
            ));
        }
        Ok((
            parse_counter(parts[0], "placed")?,
            parse_counter(parts[1], "moved")?,
            parse_counter(parts[2], "landed")?,
            parse_counter(parts[3], "replaced")?,
        ))
    }

    /// The secret-square state of a new or read position: each side's
    /// squares from `options` where given (they must include the used
    /// ones), `masks` = used by x, used by o, chosen, pending.
    fn secrets_from(
        options: &CtorOptions,
        masks: [u128; 4],
        squares: u32,
    ) -> Result<SecretState, String> {
        let [used_x, used_o, chosen, pending] = masks;
        let mut state = SecretState {
            on: true,
            used: [used_x, used_o],
            chosen,
            pending,
            ..SecretState::default()
        };
        for (side, name) in [(0, "SecretX"), (1, "SecretO")] {
            let Some(mask) = options.secret[side].mask() else {
                continue;
            };
            if mask >> squares != 0 {
                return Err(format!("{name} has a square beyond {squares}"));
            }
            if state.used[side] & !mask != 0 {
                return Err(format!(
                    "the position's used secret squares are not all among {name}"
                ));
            }
            state.known[side] = true;
            state.unused[side] = mask & !state.used[side];
        }
        Ok(state)
    }

    /// Updates the secret squares for `mv`, before it changes the board.
    fn note_secrets(&mut self, mv: CtorMove) {
        let me = self.side.index();
        if !matches!(mv, CtorMove::Substitute(_)) {
            self.resolve_risk(me);
        }
        match mv {
            CtorMove::Substitute(sq) => self.secrets.substitute(me, sq),
            CtorMove::Place(to) | CtorMove::Move(_, to) | CtorMove::Land(_, _, to) => {
                self.secrets.operate(me, Some(to))
            }
            CtorMove::Replace(sq) => self.secrets.operate(me, Some(sq)),
            CtorMove::End => self.secrets.operate(me, None),
        }
    }

    /// Whether some secret squares are unknown to `observer`: `None` when
    /// nothing is, else the opponent's side index when its squares are
    /// unknown and not all used (`Some(None)`: only the observer's own are
    /// unknown).
    fn hidden_from(&self, observer: Player) -> Option<Option<usize>> {
        let state = &self.secrets;
        if !state.on {
            return None;
        }
        let unknown = |side: usize| !state.known[side] && state.has_unused(side);
        let other = observer.other().index();
        match (unknown(observer.index()), unknown(other)) {
            (_, true) => Some(Some(other)),
            (true, false) => Some(None),
            (false, false) => None,
        }
    }

    /// Under the expectation model, when a side makes its first operation
    /// after the other side chose squares: the substitutions that may have
    /// happened there are credited to it by their expected value, and
    /// those squares stop being candidates.
    fn resolve_risk(&mut self, me: usize) {
        let pending = self.secrets.pending;
        let chips = self.chips[1 - me];
        if let Some(risk) = self.secrets.risk[me].as_mut()
            && pending != 0
        {
            risk.expected += risk.value(pending, chips);
            risk.candidates &= !pending;
        }
    }

    /// What the rest of this turn and the opponent's next turn are worth
    /// to the side to move: its placements left, minus half of the
    /// opponent's next placements. Counting only our own placements left
    /// made every `end` look like a loss of the opponent's whole next turn
    /// (−180 on 8×8, team 1), so the search put `end` off with useless
    /// operations at its horizon and its scores swung by a turn's worth
    /// from one depth to the next. With half of the next turn taken off,
    /// an `end` with nothing left to place changes the score by nothing
    /// once the budgets stop changing (after the opening ramp).
    fn tempo(&self, placements_left: i32) -> i32 {
        let next = budget(self.team, self.turn + 1).place as i32;
        PLACEMENT_VALUE * placements_left - PLACEMENT_VALUE * next / 2
    }

    /// Under the expectation model, the expected value of both sides'
    /// substitutions for the side to move: those credited, and those open
    /// on the squares chosen and not yet answered.
    fn risk_term(&self) -> i32 {
        let me = self.side.index();
        let gain = |side: usize| {
            self.secrets.risk[side].map_or(0, |risk| {
                // Open: chosen by the other side and not yet answered.
                let open = if side == me {
                    self.secrets.pending
                } else {
                    self.secrets.chosen
                };
                risk.expected + risk.value(open, self.chips[1 - side])
            })
        };
        gain(me) - gain(1 - me)
    }

    /// The hand-written evaluation: chips, what can be taken now and next
    /// turn, the tempo of placements left and the value of secret squares.
    #[inline(always)]
    fn classic_evaluation(&self) -> i32 {
        let me = self.side;
        let you = me.other();
        let g = self.geometry();
        let (my4, my5) = g.counts_at_least_4_5(self.chips[me.index()]);
        let (your4, your5) = g.counts_at_least_4_5(self.chips[you.index()]);
        let mine = self.chips[me.index()];
        let yours = self.chips[you.index()];
        // Chips I can take right now swing the count by two.
        let take_now = (my5 & yours).count_ones() as i32;
        // Mine the opponent takes next turn unless I act.
        let lose_next = (your5 & mine).count_ones() as i32;
        // One more chip next to them and they fall.
        let near_take = (my4 & !my5 & yours).count_ones() as i32;
        let near_lose = (your4 & !your5 & mine).count_ones() as i32;
        // Empty squares deep in my area: an enemy chip placed there is
        // (nearly) replaceable at once, so they are safe territory for me.
        let empties = self.empties();
        let hot = (my4 & empties).count_ones() as i32;
        // Of those one chip short, the ones next to an empty square fall
        // to a placement still to make in this turn (one each at most).
        let beside_empty = g.images(empties).iter().fold(0, |all, &b| all | b);
        let near_takes_in_reach = (my4 & !my5 & yours & beside_empty).count_ones() as i32;
        let placements_left = self.budget().place.saturating_sub(self.placed) as i32;
        let takes_by_placing = near_takes_in_reach.min(placements_left);
        let score = self.tempo(placements_left)
            + 100 * (mine.count_ones() as i32 - yours.count_ones() as i32)
            + 180 * take_now
            - 110 * lose_next
            + 25 * near_take
            + 120 * takes_by_placing
            - 35 * near_lose
            + 3 * hot
            + self.risk_term();
        score.clamp(-15_000, 15_000)
    }

    /// [`Self::classic_evaluation`] compiled with the `popcnt` instruction:
    /// the evaluation counts a dozen 128-bit sets, and the baseline x86-64
    /// target has no popcount instruction (CTOR's search runs 12–17 %
    /// faster with it).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn classic_evaluation_popcnt(&self) -> i32 {
        self.classic_evaluation()
    }

    /// Whether this game is played with secret squares.
    pub fn has_secrets(&self) -> bool {
        self.secrets.on
    }

    /// The public and known secret-square state.
    pub fn secret_state(&self) -> &SecretState {
        &self.secrets
    }

    /// The baseline's best building operation and its gain in chip
    /// difference, ties broken at random.
    fn best_building_move(&self, rng: &mut Xoshiro256PlusPlus) -> Option<(CtorMove, i32)> {
        let mut candidates = Vec::new();
        self.building_moves(&mut candidates);
        let mut best: Vec<CtorMove> = Vec::new();
        let mut best_score = i32::MIN;
        for mv in candidates {
            let mut next = self.clone();
            next.play(mv);
            let score = next.difference_after_replacements(self.side);
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push(mv);
            }
        }
        if best.is_empty() {
            return None;
        }
        let now = self.difference_after_replacements(self.side);
        Some((best[rng.random_range(0..best.len())], best_score - now))
    }
}

/// CTOR's learned evaluation: square states and the turn's budget; the
/// shipped network is for 8×8, team 1.
pub struct CtorEvaluation;

impl LearnedEvaluation<Ctor> for CtorEvaluation {
    fn inputs(&self) -> usize {
        features::NETWORK_INPUTS
    }

    fn active_inputs(&self, position: &Ctor, active: &mut Vec<u16>) {
        position.push_network_inputs(active);
    }

    /// The shipped network learned from 8×8 games with one player a team
    /// only (`networks/README.md`).
    fn embedded_network_fits(&self, position: &Ctor) -> bool {
        position.n == 8 && position.team == 1
    }

    fn embedded_network(&self) -> Option<&'static [u8]> {
        Some(CTOR_NETWORK)
    }
}

/// CTOR's hidden information: each side's secret squares (option
/// `Secrets`), which the opponent never sees until a substitution shows one.
pub struct CtorSecrets;

impl HiddenInformation<Ctor> for CtorSecrets {
    fn evaluation_term(&self, position: &Ctor) -> i32 {
        position.risk_term()
    }

    fn sample_hidden(
        &self,
        position: &Ctor,
        observer: Player,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<Ctor> {
        let hidden = position.hidden_from(observer)?;
        let mut sample = position.clone();
        let state = &mut sample.secrets;
        let me = observer.index();
        if !state.known[me] {
            state.known[me] = true;
            state.unused[me] = 0;
        }
        if let Some(side) = hidden {
            // Any square not used and not ruled out by observation.
            let full = position.geometry().full;
            let candidates = full & !state.used[side] & !state.cleared[side];
            let left = SECRET_COUNT - state.used_count(side);
            state.known[side] = true;
            state.unused[side] = secrets::sample_squares(candidates, left, rng);
        }
        Some(sample)
    }

    fn assume_nothing_hidden(&self, position: &Ctor, observer: Player) -> Option<Ctor> {
        position.hidden_from(observer)?;
        let mut copy = position.clone();
        for side in 0..2 {
            if !copy.secrets.known[side] {
                copy.secrets.known[side] = true;
                copy.secrets.unused[side] = 0;
            }
        }
        Some(copy)
    }

    /// Both sides' squares in expectation, the observer's own included:
    /// the opponent does not know them, so a search in which they were
    /// played out would let the opponent avoid them, which it cannot. The
    /// observer's own squares still take effect in the game itself (the
    /// due `s<sq>` are forced moves, played without a search).
    fn expect_hidden(&self, position: &Ctor, observer: Player) -> Option<Ctor> {
        position.hidden_from(observer)?;
        let mut copy = position.clone();
        let state = &position.secrets;
        for side in 0..2 {
            copy.secrets.known[side] = true;
            copy.secrets.unused[side] = 0;
            copy.secrets.risk[side] = state.has_unused(side).then(|| secrets::Risk {
                candidates: position.geometry().full & !state.used[side] & !state.cleared[side],
                left: SECRET_COUNT - state.used_count(side),
                expected: 0,
            });
        }
        Some(copy)
    }

    fn view_for(&self, position: &Ctor, observer: Player) -> Ctor {
        let mut view = position.clone();
        let other = observer.other().index();
        if view.secrets.on {
            view.secrets.known[other] = false;
            view.secrets.unused[other] = 0;
        }
        view
    }

    fn reveals_hidden(&self, _position: &Ctor, mv: CtorMove) -> bool {
        matches!(mv, CtorMove::Substitute(_))
    }
}

impl Game for Ctor {
    fn hidden() -> Option<&'static dyn HiddenInformation<Ctor>> {
        Some(&CtorSecrets)
    }

    fn learned() -> Option<&'static dyn LearnedEvaluation<Ctor>> {
        Some(&CtorEvaluation)
    }

    type Move = CtorMove;
    type Options = CtorOptions;
    const NAME: &'static str = "ctor";

    fn search_tuning() -> SearchTuning {
        SearchTuning {
            turns: Some(TurnTuning::DEFAULT),
            ..SearchTuning::DEFAULT
        }
    }

    /// One player a team, on both boards: there the search over whole
    /// turns beat alpha-beta at 100 ms per operation (8×8 with the network:
    /// SPRT H1, +151 ± 105; 10×10, classic evaluation: 68-32 in 100 games,
    /// +131 ± 74).
    /// With more players a team it lost: 2-98 in 100 games with 3 (1-7 in
    /// 8 with beams three times as wide), 0-10 with 2. Those turns have no
    /// landing but three or two movements, which alpha-beta finds
    /// operation by operation and the beam, ranking half-made turns by the
    /// evaluation, does not; so the turn search's gain with one player is
    /// probably the landings (thousands a position) more than the reply.
    fn auto_searches_turns(&self) -> bool {
        self.team == 1
    }

    fn ends_turn(&self, mv: CtorMove) -> bool {
        mv == CtorMove::End
    }

    /// No operation made yet in this turn (a due substitution is not one).
    fn starts_turn(&self) -> bool {
        self.turn_is_fresh()
    }

    /// Every hint as [`Game::move_hint`] gives it (the evaluation after the
    /// move), but a landing's from its parts: the value of its `to` as a
    /// placement plus the value of taking off each of its two chips, each
    /// reckoned once, so that the thousands of landings of a middle game
    /// cost some fifty evaluations (the sum ranks landings nearly as their
    /// exact values do: the parts interact only through shared neighbours).
    fn move_hints(&self, moves: &[CtorMove], hints: &mut Vec<i32>) {
        hints.clear();
        let parts = moves
            .iter()
            .any(|mv| matches!(mv, CtorMove::Land(..)))
            .then(|| self.landing_parts());
        hints.extend(moves.iter().map(|&mv| match (mv, &parts) {
            (CtorMove::Land(a, b, to), Some(parts)) => parts.estimate(a, b, to),
            _ => self.move_hint(mv),
        }));
    }

    fn moves_in_turn(&self) -> u32 {
        let b = self.budget();
        // Every operation the budgets allow, plus `end`; replacements are
        // free but rare, so they are not counted.
        u32::from(b.place) + u32::from(b.moves) + u32::from(b.land) + 1
    }

    /// A tag (0 place, 1 move, 2 land, 3 replace, 4 end, 5 substitute)
    /// above three
    /// square bytes.
    fn move_code(mv: CtorMove) -> Option<u32> {
        let pack = |tag: u8, a: u8, b: u8, c: u8| Some(u32::from_be_bytes([tag, a, b, c]));
        match mv {
            CtorMove::Place(sq) => pack(0, sq, 0, 0),
            CtorMove::Move(from, to) => pack(1, from, to, 0),
            CtorMove::Land(a, b, to) => pack(2, a, b, to),
            CtorMove::Replace(sq) => pack(3, sq, 0, 0),
            CtorMove::End => pack(4, 0, 0, 0),
            CtorMove::Substitute(sq) => pack(5, sq, 0, 0),
        }
    }

    fn move_from_code(code: u32) -> Option<CtorMove> {
        let [tag, a, b, c] = code.to_be_bytes();
        let squares = MAX_SQUARES as u8;
        if a >= squares || b >= squares || c >= squares {
            return None;
        }
        match (tag, a, b, c) {
            (0, sq, 0, 0) => Some(CtorMove::Place(sq)),
            (1, from, to, 0) => Some(CtorMove::Move(from, to)),
            (2, a, b, to) => Some(CtorMove::Land(a, b, to)),
            (3, sq, 0, 0) => Some(CtorMove::Replace(sq)),
            (4, 0, 0, 0) => Some(CtorMove::End),
            (5, sq, 0, 0) => Some(CtorMove::Substitute(sq)),
            _ => None,
        }
    }

    /// Decided by the chip count, as the rules decide every ending.
    fn adjudicate(&self) -> Outcome {
        Outcome::by_count(self.chips[0].count_ones(), self.chips[1].count_ones())
    }

    fn start(options: &CtorOptions) -> Ctor {
        let mut c = Ctor {
            n: if options.size == 10 { 10 } else { 8 },
            team: options.team.clamp(1, 3),
            chips: [0, 0],
            side: Player::X,
            turn: 1,
            placed: 0,
            moved: 0,
            landed: 0,
            replaced: 0,
            empty: 0,
            board_hash: 0,
            secrets: SecretState::default(),
        };
        if options.secrets {
            // Only squares off the board can fail here (options set
            // through `set` are checked); then no side's squares are known.
            c.secrets =
                Ctor::secrets_from(options, [0; 4], c.squares_count()).unwrap_or(SecretState {
                    on: true,
                    ..SecretState::default()
                });
        }
        c.board_hash = c.board_hash_from_scratch();
        c
    }

    fn from_fen(fen: &str, options: &CtorOptions) -> Result<Ctor, String> {
        // A sixth field (the secret squares) makes it a game with secrets.
        let with_secrets = fen.split_whitespace().count() == 6;
        let fields = split_fields(
            fen,
            if with_secrets { 6 } else { 5 },
            "<rows> <side> <turn> <placed>/<moved>/<landed>/<replaced> <empty> [<secrets>]",
        )?;
        let (n, chips) = Ctor::parse_board(fields[0])?;
        let side = Player::parse(fields[1])?;
        let turn: u32 = parse_counter(fields[2], "turn")?;
        if turn == 0 {
            return Err("turns are counted from 1".into());
        }
        let (placed, moved, landed, replaced) = Ctor::parse_turn_counters(fields[3])?;
        let empty: u8 = parse_counter(fields[4], "empty-turn counter")?;
        if empty > 2 {
            return Err(format!("empty-turn counter {empty} is above 2"));
        }
        let team = options.team.clamp(1, 3);
        let b = budget(team, turn);
        if placed > b.place || moved > b.moves || landed > b.land {
            return Err(format!(
                "counters {placed}/{moved}/{landed} exceed turn {turn}'s budget {}/{}/{} (team {team})",
                b.place, b.moves, b.land
            ));
        }
        if replaced > (n as u32) * (n as u32) * 64 {
            return Err(format!("replaced counter {replaced} is implausible"));
        }
        let mut c = Ctor {
            n,
            team,
            chips,
            side,
            turn,
            placed,
            moved,
            landed,
            replaced,
            empty,
            board_hash: 0,
            secrets: SecretState::default(),
        };
        if with_secrets || options.secrets {
            let squares = c.squares_count();
            let masks = match fields.get(5) {
                Some(field) => SecretState::parse_field(field, squares)?,
                None => [0; 4],
            };
            c.secrets = Ctor::secrets_from(options, masks, squares)?;
        }
        c.board_hash = c.board_hash_from_scratch();
        Ok(c)
    }

    fn fen(&self) -> String {
        let mut fen = format!(
            "{} {} {} {}/{}/{}/{} {}",
            self.board_string(),
            self.side.to_char(),
            self.turn,
            self.placed,
            self.moved,
            self.landed,
            self.replaced,
            self.empty
        );
        if self.secrets.on {
            fen.push(' ');
            fen.push_str(&self.secrets.field());
        }
        fen
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<CtorMove>) {
        moves.clear();
        if self.outcome().is_some() {
            return;
        }
        let me = self.side.index();
        if let Some(sq) = self.secrets.due(me) {
            // A due substitution is the only legal move.
            moves.push(CtorMove::Substitute(sq));
            return;
        }
        moves.extend(squares(self.secrets.possible(me)).map(CtorMove::Substitute));
        // Order for searches: replacements (pure gain), placements, end
        // (often right once the placements are made), movements, and the
        // huge landing list last.
        self.push_replacements(moves);
        self.push_placements(moves);
        moves.push(CtorMove::End);
        self.push_movements(moves);
        self.push_landings(moves);
    }

    fn play(&mut self, mv: CtorMove) {
        let me = self.side.index();
        if self.secrets.on {
            self.note_secrets(mv);
        }
        match mv {
            CtorMove::Place(sq) => {
                self.toggle(me, sq);
                self.placed += 1;
            }
            CtorMove::Move(from, to) => {
                self.toggle(me, from);
                self.toggle(me, to);
                self.moved += 1;
            }
            CtorMove::Land(a, b, to) => {
                self.toggle(me, a);
                self.toggle(me, b);
                self.toggle(me, to);
                self.landed += 1;
            }
            CtorMove::Replace(sq) => {
                self.toggle(1 - me, sq);
                self.toggle(me, sq);
                self.replaced += 1;
            }
            CtorMove::Substitute(sq) => {
                // The opponent's chip there changes colour; if it has moved
                // on, a chip of ours is put on the empty square.
                if self.chips[1 - me] & (1u128 << sq) != 0 {
                    self.toggle(1 - me, sq);
                }
                self.toggle(me, sq);
            }
            CtorMove::End => {
                self.empty = if self.turn_is_fresh() {
                    self.empty.saturating_add(1).min(2)
                } else {
                    0
                };
                self.placed = 0;
                self.moved = 0;
                self.landed = 0;
                self.replaced = 0;
                self.turn += 1;
                self.side = self.side.other();
                self.board_hash ^= KEYS[KEY_SIDE];
                self.secrets.pass_turn();
            }
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.empties() == 0 || self.empty >= 2 {
            Some(self.repetition_outcome())
        } else {
            None
        }
    }

    fn end_reason(&self) -> Option<&'static str> {
        if self.empties() == 0 {
            Some("board full")
        } else if self.empty >= 2 {
            Some("two empty turns in a row")
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        self.board_hash ^ self.turn_state_key() ^ self.secrets.key()
    }

    fn hash_from_scratch(&self) -> u64 {
        self.board_hash_from_scratch() ^ self.turn_state_key() ^ self.secrets.key()
    }

    fn evaluate(&self) -> i32 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("popcnt") {
                // SAFETY: the CPU supports popcnt, as checked just above.
                return unsafe { self.classic_evaluation_popcnt() };
            }
        }
        self.classic_evaluation()
    }

    fn parse_move(&self, text: &str) -> Result<CtorMove, String> {
        if text == "end" {
            return Ok(CtorMove::End);
        }
        if let Some(sq) = text.strip_prefix('x') {
            return Ok(CtorMove::Replace(self.parse_square(sq)?));
        }
        if let Some(sq) = text.strip_prefix('s') {
            if !self.secrets.on {
                return Err(format!(
                    "substitution '{text}' needs secret squares (option Secrets)"
                ));
            }
            return Ok(CtorMove::Substitute(self.parse_square(sq)?));
        }
        if let Some((pair, to)) = text.split_once('@') {
            let (a, b) = pair
                .split_once('+')
                .ok_or_else(|| format!("landing '{text}' must be like 12+27@23"))?;
            let (a, b, to) = (
                self.parse_square(a)?,
                self.parse_square(b)?,
                self.parse_square(to)?,
            );
            if a == b || to == a || to == b {
                return Err(format!("landing '{text}' needs three different squares"));
            }
            return Ok(CtorMove::Land(a.min(b), a.max(b), to));
        }
        if let Some((from, to)) = text.split_once('-') {
            let (from, to) = (self.parse_square(from)?, self.parse_square(to)?);
            if self.geometry().orthogonal(from) & (1u128 << to) == 0 {
                return Err(format!("movement '{text}' must go one square orthogonally"));
            }
            return Ok(CtorMove::Move(from, to));
        }
        self.parse_square(text)
            .map(CtorMove::Place)
            .map_err(|e| format!("ctor move '{text}': {e} (moves: 12, 28-29, 12+27@23, x31, end)"))
    }

    fn move_to_string(&self, mv: CtorMove) -> String {
        match mv {
            CtorMove::Place(sq) => format!("{}", sq + 1),
            CtorMove::Move(a, b) => format!("{}-{}", a + 1, b + 1),
            CtorMove::Land(a, b, to) => format!("{}+{}@{}", a + 1, b + 1, to + 1),
            CtorMove::Replace(sq) => format!("x{}", sq + 1),
            CtorMove::Substitute(sq) => format!("s{}", sq + 1),
            CtorMove::End => "end".into(),
        }
    }

    fn is_legal(&self, mv: CtorMove) -> bool {
        if self.outcome().is_some() {
            return false;
        }
        let own = self.chips[self.side.index()];
        let empties = self.empties();
        let on = |b: u128, sq: u8| (sq as u32) < self.squares_count() && b & (1u128 << sq) != 0;
        let budget = self.budget();
        let me = self.side.index();
        if let CtorMove::Substitute(sq) = mv {
            return (sq as u32) < self.squares_count() && self.secrets.may_substitute(me, sq);
        }
        if self.secrets.due(me).is_some() {
            return false;
        }
        match mv {
            CtorMove::Substitute(_) => unreachable!("answered above"),
            CtorMove::End => true,
            CtorMove::Place(sq) => self.placed < budget.place && on(empties, sq),
            CtorMove::Move(from, to) => {
                self.moved < budget.moves
                    && on(own, from)
                    && on(empties, to)
                    && self.geometry().orthogonal(from) & (1u128 << to) != 0
            }
            CtorMove::Land(a, b, to) => {
                self.landings_allowed() && a < b && on(own, a) && on(own, b) && on(empties, to)
            }
            CtorMove::Replace(sq) => on(self.replaceable(self.side), sq),
        }
    }

    fn count_moves(&self) -> u64 {
        if self.outcome().is_some() {
            return 0;
        }
        let me = self.side.index();
        if self.secrets.due(me).is_some() {
            return 1;
        }
        let budget = self.budget();
        let empties = self.empties().count_ones() as u64;
        let own = self.chips[me].count_ones() as u64;
        let mut count = 1
            + self.replaceable(self.side).count_ones() as u64
            + self.secrets.possible(me).count_ones() as u64;
        if self.placed < budget.place {
            count += empties;
        }
        if self.moved < budget.moves {
            let g = self.geometry();
            count += squares(self.chips[self.side.index()])
                .map(|sq| (g.orthogonal(sq) & self.empties()).count_ones() as u64)
                .sum::<u64>();
        }
        if self.landings_allowed() {
            count += own * (own - 1) / 2 * empties;
        }
        count
    }

    fn repetition_key(&self) -> Option<u64> {
        // Only the start of a turn counts; board and side alone.
        self.turn_is_fresh().then_some(self.board_hash)
    }

    fn repetition_outcome(&self) -> Outcome {
        Outcome::by_count(self.chip_count(Player::X), self.chip_count(Player::O))
    }

    fn playout_move(&self, moves: &[CtorMove], rng: &mut Xoshiro256PlusPlus) -> CtorMove {
        // A replacement is pure gain. Otherwise pick the kind of operation
        // first, so that the thousands of landings do not drown the rest.
        if let Some(&mv) = moves.iter().find(|m| matches!(m, CtorMove::Replace(_))) {
            return mv;
        }
        let kind = |m: &CtorMove| match m {
            CtorMove::Place(_) => 0,
            CtorMove::Move(..) => 1,
            CtorMove::Land(..) => 2,
            _ => 3,
        };
        let mut present = [false; 4];
        moves.iter().for_each(|m| present[kind(m)] = true);
        let kinds: Vec<usize> = (0..4).filter(|&k| present[k]).collect();
        let chosen = kinds[rng.random_range(0..kinds.len())];
        let pool: Vec<CtorMove> = moves
            .iter()
            .copied()
            .filter(|m| kind(m) == chosen)
            .collect();
        pool[rng.random_range(0..pool.len())]
    }

    fn baseline_move(&self, rng: &mut Xoshiro256PlusPlus) -> Option<CtorMove> {
        if self.outcome().is_some() {
            return None;
        }
        if let Some(sq) = self.secrets.due(self.side.index()) {
            return Some(CtorMove::Substitute(sq));
        }
        // Replacements first: each is worth two chips and may enable more.
        let replace = self.replaceable(self.side);
        if replace != 0 {
            let options: Vec<u8> = squares(replace).collect();
            return Some(CtorMove::Replace(
                options[rng.random_range(0..options.len())],
            ));
        }
        match self.best_building_move(rng) {
            Some((mv, gain)) if gain > 0 => Some(mv),
            _ => Some(CtorMove::End),
        }
    }

    fn diagram(&self) -> String {
        let n = self.n as usize;
        let mut out = String::new();
        for r in 0..n {
            for c in 0..n {
                let bit = 1u128 << (r * n + c);
                let ch = if self.chips[0] & bit != 0 {
                    " x"
                } else if self.chips[1] & bit != 0 {
                    " o"
                } else {
                    " ."
                };
                out.push_str(ch);
            }
            out.push_str(&format!("   {:>3}-{:>3}\n", r * n + 1, r * n + n));
        }
        let b = self.budget();
        out.push_str(&format!(
            "{} to move, turn {}, done {}/{} placements {}/{} movements {}/{} landings {} replacements; x {} o {}, team {}\n",
            self.side.to_char(),
            self.turn,
            self.placed,
            b.place,
            self.moved,
            b.moves,
            self.landed,
            b.land,
            self.replaced,
            self.chip_count(Player::X),
            self.chip_count(Player::O),
            self.team,
        ));
        if self.secrets.on {
            // Only what is public: never the unused squares.
            out.push_str(&format!(
                "secret squares used: x {} o {}; chosen this turn {}; open for substitution {}\n",
                secrets::square_list(self.secrets.used[0]),
                secrets::square_list(self.secrets.used[1]),
                secrets::square_list(self.secrets.chosen),
                secrets::square_list(self.secrets.pending),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The popcount build of the evaluation is the portable one compiled
    /// differently: both must score every position alike.
    #[test]
    fn the_evaluation_is_the_same_with_and_without_popcnt() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut moves = Vec::new();
        let mut positions = 0;
        for (size, team) in [(8, 1), (10, 1), (8, 3)] {
            for _ in 0..4 {
                let mut c = Ctor::start(&CtorOptions::new(size, team));
                while c.outcome().is_none() && positions < 4_000 {
                    assert_eq!(c.evaluate(), c.classic_evaluation(), "{}", c.fen());
                    positions += 1;
                    moves.clear();
                    c.generate_moves(&mut moves);
                    c.play(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
        assert!(positions > 1_000);
    }
}
