//! Yoté (RULES.md §5): a 6×5 board, 12 stones in reserve each, drops, steps
//! and jumping captures that also remove a second enemy stone.
//!
//! Position `<board> <side> <reserve_x> <reserve_o> <last_x> <last_o> <quiet>
//! <fullmove>`; moves `@c3` (drop), `c3c4` (step), `c3c5xe2` (capture with
//! removal, the `xe2` omitted when no enemy stone is left to remove).
//!
//! The board is a 30-bit bitboard per side, square = rank × 6 + file with
//! `a1` = 0, so captures and threats are a few shifts.

use super::board_text;
use crate::game::{
    Game, LearnedEvaluation, NoOptions, Outcome, Player, parse_counter, split_fields, zobrist_keys,
};
use crate::tuning::SearchTuning;
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Files (columns) of the board.
pub const FILES: usize = 6;
/// Ranks (rows) of the board.
pub const RANKS: usize = 5;
/// Number of squares.
pub const SQUARES: usize = FILES * RANKS;
/// Stones each side starts with in reserve.
pub const RESERVE: u8 = 12;
/// Plies without drop or capture that draw the game.
pub const QUIET_LIMIT: u32 = 100;

/// "No stone removed" marker in [`YoteMove::Capture`].
pub const NO_REMOVAL: u8 = u8::MAX;

const ALL: u32 = (1 << SQUARES) - 1;
const FILE_A: u32 = 0b000001_000001_000001_000001_000001;
const FILE_F: u32 = FILE_A << (FILES - 1);

/// A Yoté move. Squares are 0..30 (`a1` = 0, `f5` = 29).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum YoteMove {
    /// A stone from the reserve onto an empty square.
    Drop(u8),
    /// One stone one square orthogonally onto an empty square.
    Step(u8, u8),
    /// A jump `from` → `to` over the enemy stone between them, then removal
    /// of the enemy stone `remove` ([`NO_REMOVAL`] when none is left).
    Capture {
        /// Square of the jumping stone.
        from: u8,
        /// Landing square, two squares away.
        to: u8,
        /// Second enemy stone removed, or [`NO_REMOVAL`].
        remove: u8,
    },
}

/// The four orthogonal directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    North,
    South,
    East,
    West,
}

const DIRS: [Dir; 4] = [Dir::North, Dir::South, Dir::East, Dir::West];

/// Shifts a bitboard one square in `dir`, dropping stones that leave it.
#[inline]
fn shift(b: u32, dir: Dir) -> u32 {
    match dir {
        Dir::North => (b << FILES) & ALL,
        Dir::South => b >> FILES,
        Dir::East => (b & !FILE_F) << 1,
        Dir::West => (b & !FILE_A) >> 1,
    }
}

/// The reverse direction.
fn opposite(dir: Dir) -> Dir {
    match dir {
        Dir::North => Dir::South,
        Dir::South => Dir::North,
        Dir::East => Dir::West,
        Dir::West => Dir::East,
    }
}

/// Squares orthogonally adjacent to any square of `b`.
#[inline]
fn neighbours(b: u32) -> u32 {
    DIRS.iter().fold(0, |acc, &d| acc | shift(b, d))
}

/// The square next to `sq` in `dir`, if on the board.
fn step_square(sq: u8, dir: Dir) -> Option<u8> {
    let moved = shift(1 << sq, dir);
    (moved != 0).then(|| moved.trailing_zeros() as u8)
}

/// Iterates the squares of a bitboard.
fn squares(mut b: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if b == 0 {
            return None;
        }
        let sq = b.trailing_zeros() as u8;
        b &= b - 1;
        Some(sq)
    })
}

/// `c3`-style name of a square.
fn square_name(sq: u8) -> String {
    let file = (b'a' + sq % FILES as u8) as char;
    let rank = sq / FILES as u8 + 1;
    format!("{file}{rank}")
}

/// Reads a two-character square name at the start of `text`.
fn parse_square(text: &str) -> Result<u8, String> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 {
        return Err(format!("'{text}' is not a square (a1 to f5)"));
    }
    let file = bytes[0].wrapping_sub(b'a');
    let rank = bytes[1].wrapping_sub(b'1');
    if file as usize >= FILES || rank as usize >= RANKS {
        return Err(format!("'{text}' is not a square (a1 to f5)"));
    }
    Ok(rank * FILES as u8 + file)
}

/// Whether two squares are orthogonally adjacent.
fn adjacent(a: u8, b: u8) -> bool {
    neighbours(1 << a) & (1 << b) != 0
}

/// The square between `a` and `b` when they are two squares apart in a line.
fn jumped_square(from: u8, to: u8) -> Option<u8> {
    DIRS.iter().find_map(|&d| {
        let mid = step_square(from, d)?;
        (step_square(mid, d)? == to).then_some(mid)
    })
}

// Zobrist layout: stones (2 × 30), reserves (2 × 13), last step origin and
// target (2 × 30 each), side to move.
const KEY_STONE: usize = 0;
const KEY_RESERVE: usize = KEY_STONE + 2 * SQUARES;
const KEY_LAST_FROM: usize = KEY_RESERVE + 2 * (RESERVE as usize + 1);
const KEY_LAST_TO: usize = KEY_LAST_FROM + 2 * SQUARES;
const KEY_SIDE: usize = KEY_LAST_TO + 2 * SQUARES;
const KEY_COUNT: usize = KEY_SIDE + 1;
static KEYS: [u64; KEY_COUNT] = zobrist_keys::<KEY_COUNT>(0x0059_07E0_5EED);

fn stone_key(p: usize, sq: u8) -> u64 {
    KEYS[KEY_STONE + p * SQUARES + sq as usize]
}

fn reserve_key(p: usize, n: u8) -> u64 {
    KEYS[KEY_RESERVE + p * (RESERVE as usize + 1) + n as usize]
}

fn last_key(p: usize, last: Option<(u8, u8)>) -> u64 {
    match last {
        Some((from, to)) => {
            KEYS[KEY_LAST_FROM + p * SQUARES + from as usize]
                ^ KEYS[KEY_LAST_TO + p * SQUARES + to as usize]
        }
        None => 0,
    }
}

/// A Yoté position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Yote {
    stones: [u32; 2],
    reserve: [u8; 2],
    last: [Option<(u8, u8)>; 2],
    side: Player,
    quiet: u32,
    fullmove: u32,
    hash: u64,
}

/// Network inputs: every line of three squares across the board (20 in the
/// rows, 18 in the columns: a capture is one such line, stone, enemy stone,
/// empty square) in one of 3³ states (empty, the side to move's, the
/// opponent's), then the side to move's reserve (one of 13 inputs), then
/// the opponent's.
const LINE_STATES: usize = 27;
/// The lines of three: their first square and the step to the next.
static LINES: [(u8, u8); 38] = lines_of_three();
/// First reserve input of the side to move.
const RESERVE_INPUTS: usize = LINES.len() * LINE_STATES;
/// Number of network inputs.
const NETWORK_INPUTS: usize = RESERVE_INPUTS + 2 * (RESERVE as usize + 1);
/// The network shipped for Yoté (how it was made: `networks/README.md`).
static YOTE_NETWORK: &[u8] = include_bytes!("../../networks/yote.net");

const fn lines_of_three() -> [(u8, u8); 38] {
    let mut lines = [(0u8, 0u8); 38];
    let mut n = 0;
    let mut rank = 0;
    while rank < RANKS {
        let mut file = 0;
        while file < FILES {
            if file + 2 < FILES {
                lines[n] = ((rank * FILES + file) as u8, 1);
                n += 1;
            }
            if rank + 2 < RANKS {
                lines[n] = ((rank * FILES + file) as u8, FILES as u8);
                n += 1;
            }
            file += 1;
        }
        rank += 1;
    }
    lines
}

impl Yote {
    /// The position reflected: files when bit 0 of `symmetry` is set,
    /// ranks when bit 1 is (stones and the no-straight-back steps alike).
    fn image(&self, symmetry: u8) -> Yote {
        let map_sq = |sq: u8| {
            let (f, r) = (sq as usize % FILES, sq as usize / FILES);
            let f = if symmetry & 1 != 0 { FILES - 1 - f } else { f };
            let r = if symmetry & 2 != 0 { RANKS - 1 - r } else { r };
            (r * FILES + f) as u8
        };
        let map = |bb: u32| squares(bb).fold(0u32, |acc, sq| acc | 1 << map_sq(sq));
        let mut image = self.clone();
        image.stones = [map(self.stones[0]), map(self.stones[1])];
        image.last = self.last.map(|l| l.map(|(a, b)| (map_sq(a), map_sq(b))));
        image.hash = image.hash_from_scratch();
        image
    }

    /// Stones of `p` on the board, as a bitboard (`a1` = bit 0).
    pub fn stones(&self, p: Player) -> u32 {
        self.stones[p.index()]
    }

    /// Stones `p` still holds in reserve.
    pub fn reserve(&self, p: Player) -> u8 {
        self.reserve[p.index()]
    }

    fn empty(&self) -> u32 {
        ALL & !(self.stones[0] | self.stones[1])
    }

    /// Landing squares of every capture `p` could make now, per direction.
    fn capture_targets(&self, p: Player, dir: Dir) -> u32 {
        let own = self.stones[p.index()];
        let enemy = self.stones[p.other().index()];
        shift(shift(own, dir) & enemy, dir) & self.empty()
    }

    /// Enemy stones `p` could jump now.
    fn victims(&self, p: Player) -> u32 {
        let own = self.stones[p.index()];
        let enemy = self.stones[p.other().index()];
        let empty = self.empty();
        DIRS.iter().fold(0, |acc, &d| {
            // A victim has `own` behind it and an empty square ahead.
            acc | (shift(own, d) & enemy & shift(empty, opposite(d)))
        })
    }

    /// Stones of `p` that could make a capture now.
    fn attackers(&self, p: Player) -> u32 {
        let own = self.stones[p.index()];
        let enemy = self.stones[p.other().index()];
        let empty = self.empty();
        DIRS.iter().fold(0, |acc, &d| {
            let back = opposite(d);
            acc | (own & shift(enemy & shift(empty, back), back))
        })
    }

    /// Whether `p` has any capture available.
    fn can_capture(&self, p: Player) -> bool {
        DIRS.iter().any(|&d| self.capture_targets(p, d) != 0)
    }

    /// Stones of `p` that could step (ignoring the no-straight-back rule).
    fn step_count(&self, p: Player) -> u32 {
        let own = self.stones[p.index()];
        let empty = self.empty();
        DIRS.iter()
            .map(|&d| (shift(own, d) & empty).count_ones())
            .sum()
    }

    fn push_captures(&self, moves: &mut Vec<YoteMove>) {
        let me = self.side;
        let own = self.stones[me.index()];
        let enemy = self.stones[me.other().index()];
        for from in squares(own) {
            for &d in &DIRS {
                let Some(mid) = step_square(from, d) else {
                    continue;
                };
                let Some(to) = step_square(mid, d) else {
                    continue;
                };
                if enemy & (1 << mid) == 0 || self.empty() & (1 << to) == 0 {
                    continue;
                }
                let left = enemy & !(1 << mid);
                if left == 0 {
                    moves.push(YoteMove::Capture {
                        from,
                        to,
                        remove: NO_REMOVAL,
                    });
                }
                for remove in squares(left) {
                    moves.push(YoteMove::Capture { from, to, remove });
                }
            }
        }
    }

    fn push_steps(&self, moves: &mut Vec<YoteMove>) {
        let empty = self.empty();
        let forbidden = self.last[self.side.index()].map(|(from, to)| (to, from));
        for from in squares(self.stones[self.side.index()]) {
            for to in squares(neighbours(1 << from) & empty) {
                if forbidden != Some((from, to)) {
                    moves.push(YoteMove::Step(from, to));
                }
            }
        }
    }

    /// Whether the side to move has at least one legal move, without
    /// generating them (this runs in every `outcome` call).
    fn has_move(&self) -> bool {
        let me = self.side.index();
        if self.reserve[me] > 0 && self.empty() != 0 {
            return true;
        }
        if self.can_capture(self.side) {
            return true;
        }
        match self.step_count(self.side) {
            0 => false,
            1 => {
                // The single step may be the forbidden straight-back one.
                let Some((from, to)) = self.last[me] else {
                    return true;
                };
                let back_possible =
                    self.stones[me] & (1 << to) != 0 && self.empty() & (1 << from) != 0;
                !back_possible
            }
            _ => true,
        }
    }

    fn set_last(&mut self, p: usize, last: Option<(u8, u8)>) {
        self.hash ^= last_key(p, self.last[p]) ^ last_key(p, last);
        self.last[p] = last;
    }

    fn toggle_stone(&mut self, p: usize, sq: u8) {
        self.stones[p] ^= 1 << sq;
        self.hash ^= stone_key(p, sq);
    }

    fn parse_step_field(field: &str) -> Result<Option<(u8, u8)>, String> {
        if field == "-" {
            return Ok(None);
        }
        if field.len() != 4 || !field.is_ascii() {
            return Err(format!("last step '{field}' must be '-' or like c3c4"));
        }
        let from = parse_square(&field[..2])?;
        let to = parse_square(&field[2..])?;
        if !adjacent(from, to) {
            return Err(format!("last step '{field}' is not a one-square step"));
        }
        Ok(Some((from, to)))
    }

    fn parse_board(field: &str) -> Result<[u32; 2], String> {
        let rows = board_text::parse_board(field, FILES, RANKS, "xo")?;
        let mut stones = [0u32; 2];
        for (i, row) in rows.iter().enumerate() {
            let rank = RANKS - 1 - i;
            for (file, square) in row.iter().enumerate() {
                if let Some(piece) = square {
                    stones[usize::from(*piece == 'o')] |= 1 << (rank * FILES + file);
                }
            }
        }
        Ok(stones)
    }

    fn board_string(&self) -> String {
        board_text::write_board(FILES, RANKS, |row, file| {
            let bit = 1 << ((RANKS - 1 - row) * FILES + file);
            if self.stones[0] & bit != 0 {
                Some('x')
            } else if self.stones[1] & bit != 0 {
                Some('o')
            } else {
                None
            }
        })
    }

    /// Whether a move is a capture.
    fn is_capture(mv: &YoteMove) -> bool {
        matches!(mv, YoteMove::Capture { .. })
    }

    /// The baseline's capture: one whose removal takes an enemy stone that
    /// threatens one of ours after the jump, else any capture.
    fn baseline_capture(&self, captures: &[YoteMove], rng: &mut Xoshiro256PlusPlus) -> YoteMove {
        let threatening: Vec<YoteMove> = captures
            .iter()
            .copied()
            .filter(|&mv| {
                let YoteMove::Capture { remove, .. } = mv else {
                    return false;
                };
                let mut jumped = self.clone();
                jumped.play_capture_jump(mv);
                remove != NO_REMOVAL && jumped.attackers(self.side.other()) & (1 << remove) != 0
            })
            .collect();
        let pool = if threatening.is_empty() {
            captures
        } else {
            &threatening
        };
        pool[rng.random_range(0..pool.len())]
    }

    /// Applies only the jump part of a capture (used by the baseline).
    fn play_capture_jump(&mut self, mv: YoteMove) {
        if let YoteMove::Capture { from, to, .. } = mv {
            let me = self.side.index();
            self.toggle_stone(me, from);
            self.toggle_stone(me, to);
            if let Some(mid) = jumped_square(from, to) {
                self.toggle_stone(1 - me, mid);
            }
        }
    }
}

/// Yoté's learned evaluation: the lines of three and the reserves.
pub struct YoteEvaluation;

impl LearnedEvaluation<Yote> for YoteEvaluation {
    fn inputs(&self) -> usize {
        NETWORK_INPUTS
    }

    fn active_inputs(&self, position: &Yote, active: &mut Vec<u16>) {
        let us = position.stones[position.side.index()];
        let them = position.stones[position.side.other().index()];
        let digit = |sq: u8| ((us >> sq) & 1) + 2 * ((them >> sq) & 1);
        for (index, &(first, step)) in LINES.iter().enumerate() {
            let state = digit(first) + 3 * digit(first + step) + 9 * digit(first + 2 * step);
            active.push((index * LINE_STATES) as u16 + state as u16);
        }
        let reserve = |p: Player| position.reserve[p.index()].min(RESERVE) as usize;
        active.push((RESERVE_INPUTS + reserve(position.side)) as u16);
        active
            .push((RESERVE_INPUTS + RESERVE as usize + 1 + reserve(position.side.other())) as u16);
    }

    fn embedded_network(&self) -> Option<&'static [u8]> {
        Some(YOTE_NETWORK)
    }
}

impl Game for Yote {
    fn learned() -> Option<&'static dyn LearnedEvaluation<Yote>> {
        Some(&YoteEvaluation)
    }

    type Move = YoteMove;
    type Options = NoOptions;
    const NAME: &'static str = "yote";

    /// A tag (0 drop, 1 step, 2 capture) above three square bytes.
    fn move_code(mv: YoteMove) -> Option<u32> {
        let pack = |tag: u8, a: u8, b: u8, c: u8| Some(u32::from_be_bytes([tag, a, b, c]));
        match mv {
            YoteMove::Drop(sq) => pack(0, sq, 0, 0),
            YoteMove::Step(from, to) => pack(1, from, to, 0),
            YoteMove::Capture { from, to, remove } => pack(2, from, to, remove),
        }
    }

    fn move_from_code(code: u32) -> Option<YoteMove> {
        let [tag, a, b, c] = code.to_be_bytes();
        match (tag, a, b, c) {
            (0, sq, 0, 0) => Some(YoteMove::Drop(sq)),
            (1, from, to, 0) => Some(YoteMove::Step(from, to)),
            (2, from, to, remove) => Some(YoteMove::Capture { from, to, remove }),
            _ => None,
        }
    }

    /// The opponent to move, nothing else changed, while the game goes on.
    fn null_move(&self) -> Option<Yote> {
        if self.outcome().is_some() {
            return None;
        }
        let mut child = self.clone();
        child.side = self.side.other();
        child.hash ^= KEYS[KEY_SIDE];
        Some(child)
    }

    /// The smallest hash over the four reflections of the board (files,
    /// ranks, both); the no-straight-back squares are reflected too.
    fn canonical_key(&self) -> u64 {
        (0..4)
            .map(|symmetry| self.image(symmetry).hash)
            .min()
            .unwrap_or(self.hash)
    }

    /// The four reflections of the board (the identity first), so that
    /// `agon train` learns from each record's mirror images.
    fn symmetric_images(&self) -> Vec<Yote> {
        (0..4).map(|symmetry| self.image(symmetry)).collect()
    }

    /// Captures.
    fn is_noisy(&self, mv: YoteMove) -> bool {
        matches!(mv, YoteMove::Capture { .. })
    }

    /// The defaults. Measured against the previous search (commit
    /// 149365a) at 100 ms per move, 60 games on the openings file:
    /// quiescence over captures (8 plies) with verified null moves lost
    /// 22-28-10; without quiescence 49-4-7; without quiescence and null
    /// moves 52-3-5. The evaluation already scores a capture in hand, and
    /// the removal choices make capture sequences very wide.
    fn search_tuning() -> SearchTuning {
        SearchTuning::DEFAULT
    }

    fn start(_options: &NoOptions) -> Yote {
        let mut y = Yote {
            stones: [0, 0],
            reserve: [RESERVE, RESERVE],
            last: [None, None],
            side: Player::X,
            quiet: 0,
            fullmove: 1,
            hash: 0,
        };
        y.hash = y.hash_from_scratch();
        y
    }

    fn from_fen(fen: &str, _options: &NoOptions) -> Result<Yote, String> {
        let fields = split_fields(
            fen,
            8,
            "<board> <side> <reserve_x> <reserve_o> <last_x> <last_o> <quiet> <fullmove>",
        )?;
        let stones = Yote::parse_board(fields[0])?;
        let side = Player::parse(fields[1])?;
        let rx: u8 = parse_counter(fields[2], "reserve of x")?;
        let ro: u8 = parse_counter(fields[3], "reserve of o")?;
        let reserve = [rx, ro];
        for p in 0..2 {
            if reserve[p] > RESERVE || stones[p].count_ones() + reserve[p] as u32 > RESERVE as u32 {
                return Err("a side has more than 12 stones on board and in reserve".into());
            }
        }
        let last = [
            Yote::parse_step_field(fields[4])?,
            Yote::parse_step_field(fields[5])?,
        ];
        let quiet: u32 = parse_counter(fields[6], "quiet counter")?;
        if quiet > QUIET_LIMIT {
            return Err(format!("quiet counter {quiet} is above {QUIET_LIMIT}"));
        }
        let fullmove: u32 = parse_counter(fields[7], "fullmove number")?;
        if fullmove == 0 {
            return Err("fullmove number starts at 1".into());
        }
        let mut y = Yote {
            stones,
            reserve,
            last,
            side,
            quiet,
            fullmove,
            hash: 0,
        };
        y.hash = y.hash_from_scratch();
        Ok(y)
    }

    fn fen(&self) -> String {
        let last = |l: Option<(u8, u8)>| match l {
            Some((a, b)) => format!("{}{}", square_name(a), square_name(b)),
            None => "-".into(),
        };
        format!(
            "{} {} {} {} {} {} {} {}",
            self.board_string(),
            self.side.to_char(),
            self.reserve[0],
            self.reserve[1],
            last(self.last[0]),
            last(self.last[1]),
            self.quiet,
            self.fullmove
        )
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<YoteMove>) {
        moves.clear();
        if self.outcome().is_some() {
            return;
        }
        // Captures first: they are what a search should look at first.
        self.push_captures(moves);
        if self.reserve[self.side.index()] > 0 {
            moves.extend(squares(self.empty()).map(YoteMove::Drop));
        }
        self.push_steps(moves);
    }

    fn play(&mut self, mv: YoteMove) {
        let me = self.side.index();
        match mv {
            YoteMove::Drop(sq) => {
                self.toggle_stone(me, sq);
                let r = self.reserve[me];
                self.hash ^= reserve_key(me, r) ^ reserve_key(me, r - 1);
                self.reserve[me] = r - 1;
                self.set_last(me, None);
                self.quiet = 0;
            }
            YoteMove::Step(from, to) => {
                self.toggle_stone(me, from);
                self.toggle_stone(me, to);
                self.set_last(me, Some((from, to)));
                self.quiet += 1;
            }
            YoteMove::Capture { remove, .. } => {
                self.play_capture_jump(mv);
                if remove != NO_REMOVAL {
                    self.toggle_stone(1 - me, remove);
                }
                self.set_last(me, None);
                self.quiet = 0;
            }
        }
        if self.side == Player::O {
            self.fullmove += 1;
        }
        self.side = self.side.other();
        self.hash ^= KEYS[KEY_SIDE];
    }

    fn outcome(&self) -> Option<Outcome> {
        let me = self.side.index();
        // Loss first: a side that has moved and has no stone or no move.
        if self.reserve[me] < RESERVE && (self.stones[me] == 0 || !self.has_move()) {
            return Some(Outcome::Win(self.side.other()));
        }
        (self.quiet >= QUIET_LIMIT).then_some(Outcome::Draw)
    }

    fn end_reason(&self) -> Option<&'static str> {
        let me = self.side.index();
        if self.reserve[me] < RESERVE && self.stones[me] == 0 {
            Some("no stones left")
        } else if self.reserve[me] < RESERVE && !self.has_move() {
            Some("blocked side loses")
        } else {
            (self.quiet >= QUIET_LIMIT).then_some("moves without capture")
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.side == Player::O {
            KEYS[KEY_SIDE]
        } else {
            0
        };
        for p in 0..2 {
            h = squares(self.stones[p]).fold(h, |acc, sq| acc ^ stone_key(p, sq));
            h ^= reserve_key(p, self.reserve[p]) ^ last_key(p, self.last[p]);
        }
        h
    }

    fn evaluate(&self) -> i32 {
        let me = self.side;
        let you = me.other();
        let term = |p: Player| -> i32 {
            let board = self.stones[p.index()].count_ones() as i32;
            let reserve = self.reserve[p.index()] as i32;
            // Reserve stones can be dropped anywhere, as threat or defence:
            // slightly worth more than a stone already placed.
            board * 100 + reserve * 110 + self.step_count(p) as i32 * 4
        };
        let mut score = term(me) - term(you);
        // The side to move cashes a capture at once: a jump is worth two
        // stones, but the opponent may answer in kind.
        if self.can_capture(me) {
            score += 140;
        }
        // Our stones the opponent threatens: one can usually be saved,
        // several cannot.
        let threatened = self.victims(you).count_ones() as i32;
        score -= match threatened {
            0 => 0,
            1 => 40,
            n => 40 + (n - 1) * 90,
        };
        score.clamp(-15_000, 15_000)
    }

    fn parse_move(&self, text: &str) -> Result<YoteMove, String> {
        if !text.is_ascii() {
            return Err(format!("yote move '{text}' is not ASCII"));
        }
        if let Some(sq) = text.strip_prefix('@') {
            return Ok(YoteMove::Drop(parse_square(sq)?));
        }
        if text.len() < 4 {
            return Err(format!("yote move '{text}' must be @c3, c3c4 or c3c5xe2"));
        }
        let from = parse_square(&text[..2])?;
        let to = parse_square(&text[2..4])?;
        let rest = &text[4..];
        if adjacent(from, to) {
            if !rest.is_empty() {
                return Err(format!("step '{text}' has trailing text"));
            }
            return Ok(YoteMove::Step(from, to));
        }
        if jumped_square(from, to).is_none() {
            return Err(format!(
                "'{text}': a step goes one square, a jump two, in a line"
            ));
        }
        let remove = match rest.strip_prefix('x') {
            Some(sq) => parse_square(sq)?,
            None if rest.is_empty() => NO_REMOVAL,
            None => return Err(format!("capture '{text}' must end like xe2")),
        };
        Ok(YoteMove::Capture { from, to, remove })
    }

    fn move_to_string(&self, mv: YoteMove) -> String {
        match mv {
            YoteMove::Drop(sq) => format!("@{}", square_name(sq)),
            YoteMove::Step(a, b) => format!("{}{}", square_name(a), square_name(b)),
            YoteMove::Capture { from, to, remove } => {
                let tail = if remove == NO_REMOVAL {
                    String::new()
                } else {
                    format!("x{}", square_name(remove))
                };
                format!("{}{}{tail}", square_name(from), square_name(to))
            }
        }
    }

    fn repetition_key(&self) -> Option<u64> {
        // The hash covers every field but quiet and fullmove.
        Some(self.hash)
    }

    fn playout_move(&self, moves: &[YoteMove], rng: &mut Xoshiro256PlusPlus) -> YoteMove {
        // Captures come first in the list; take one when there is any.
        let captures = moves.iter().take_while(|m| Yote::is_capture(m)).count();
        let n = if captures > 0 { captures } else { moves.len() };
        moves[rng.random_range(0..n)]
    }

    fn baseline_move(&self, rng: &mut Xoshiro256PlusPlus) -> Option<YoteMove> {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        if moves.is_empty() {
            return None;
        }
        let captures: Vec<YoteMove> = moves.iter().copied().filter(Yote::is_capture).collect();
        if !captures.is_empty() {
            return Some(self.baseline_capture(&captures, rng));
        }
        // Otherwise a random move after which the opponent cannot capture.
        let safe: Vec<YoteMove> = moves
            .iter()
            .copied()
            .filter(|&mv| {
                let mut next = self.clone();
                next.play(mv);
                !next.can_capture(next.side)
            })
            .collect();
        let pool = if safe.is_empty() { &moves } else { &safe };
        Some(pool[rng.random_range(0..pool.len())])
    }

    fn diagram(&self) -> String {
        let mut out = String::new();
        for rank in (0..RANKS).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..FILES {
                let bit = 1 << (rank * FILES + file);
                out.push(if self.stones[0] & bit != 0 {
                    'x'
                } else if self.stones[1] & bit != 0 {
                    'o'
                } else {
                    '.'
                });
                out.push(' ');
            }
            out.push('\n');
        }
        out.push_str("  a b c d e f\n");
        out.push_str(&format!(
            "{} to move, reserves x {} o {}, moves without capture {}, full-move {}\n",
            self.side.to_char(),
            self.reserve[0],
            self.reserve[1],
            self.quiet,
            self.fullmove
        ));
        out
    }
}
