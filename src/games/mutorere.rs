//! Mū Tōrere (RULES.md §4): eight ring points and a centre, four pieces a
//! side, one empty point.
//!
//! Position `<points 1..8 then centre> <side> <plies>` (start
//! `xxxxoooo. x 0`), move `<from><to>` with points `1`–`8` and `c`.
//!
//! Perfect play comes from a table built once (lazily) by backward induction
//! over `(position, ply)`: 1,260 positions (9 places for the hole × 70 ways
//! to place the x pieces × 2 sides) times the 121 ply counts 0..=120. The
//! table is exact for the 120-ply rule (a win that cannot be completed by
//! ply 120 is a draw; at ply 120 a side without a move still loses).
//!
//! Repetition is history, not position, so the table ignores it. That is
//! safe for the winner: a fastest win strictly shortens the distance to the
//! end at every ply, so it never revisits a position and repetition cannot
//! spoil it (unless the earlier history already holds two copies of a
//! position on that line, which perfect play from the start never produces).
//! For the loser, repetition can only turn a loss into a draw, which the
//! winner's fastest line never allows; and a drawn table value stays a draw.

use crate::game::{
    Game, NoOptions, Outcome, Player, Proven, SolveBudget, Solved, parse_counter, split_fields,
    zobrist_keys,
};
use std::sync::OnceLock;

/// The ply at which a game not yet decided is drawn.
pub const PLY_LIMIT: u32 = 120;

/// Index of the centre among the nine points (ring points are 0..8).
const CENTRE: usize = 8;

/// A move: a piece goes from `from` to `to` (0..8 ring points 1–8, 8 centre).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MtMove {
    /// Origin point, 0-based (8 = centre).
    pub from: u8,
    /// Target point, 0-based (8 = centre).
    pub to: u8,
}

/// Contents of a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Cell {
    Empty,
    Piece(Player),
}

/// A Mū Tōrere position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuTorere {
    cells: [Cell; 9],
    side: Player,
    plies: u32,
    hash: u64,
}

/// Zobrist keys: 9 points × 2 colours, then the side key.
const KEYS: [u64; 19] = zobrist_keys::<19>(0x6D75_746F_7265_7265);

fn cell_key(point: usize, player: Player) -> u64 {
    KEYS[point * 2 + player.index()]
}

/// The two ring neighbours of ring point `p` (0..8).
fn ring_neighbours(p: usize) -> [usize; 2] {
    [(p + 7) % 8, (p + 1) % 8]
}

fn point_char(p: u8) -> char {
    if p as usize == CENTRE {
        'c'
    } else {
        (b'1' + p) as char
    }
}

fn parse_point(c: u8) -> Option<u8> {
    match c {
        b'1'..=b'8' => Some(c - b'1'),
        b'c' => Some(CENTRE as u8),
        _ => None,
    }
}

impl MuTorere {
    fn new(cells: [Cell; 9], side: Player, plies: u32) -> MuTorere {
        let mut game = MuTorere {
            cells,
            side,
            plies,
            hash: 0,
        };
        game.hash = game.hash_from_scratch();
        game
    }

    /// The plies played so far (the 120-ply counter).
    pub fn plies(&self) -> u32 {
        self.plies
    }

    fn empty_point(&self) -> usize {
        self.cells
            .iter()
            .position(|&c| c == Cell::Empty)
            .unwrap_or(CENTRE)
    }

    /// Board code in base 3 (0 empty, 1 x, 2 o) plus the side, the table key.
    fn code(&self) -> usize {
        let board = self.cells.iter().rev().fold(0usize, |acc, c| {
            acc * 3
                + match c {
                    Cell::Empty => 0,
                    Cell::Piece(Player::X) => 1,
                    Cell::Piece(Player::O) => 2,
                }
        });
        board * 2 + self.side.index()
    }

    /// The table value of this position, see [`Table::value`].
    fn table_value(&self) -> i32 {
        table().value(self)
    }

    /// The value for the side to move after `mv`, from the table.
    fn move_value(&self, mv: MtMove) -> i32 {
        let mut child = self.clone();
        child.play(mv);
        parent_value(child.table_value())
    }
}

/// Table value of a win for the side to move in `n` plies: `WIN - n`.
const WIN: i32 = 1000;

/// Converts a child's value (its side to move) to the parent's view, one ply
/// further from the end.
fn parent_value(child: i32) -> i32 {
    match child {
        0 => 0,
        v if v > 0 => -(v - 1),
        v => -v - 1,
    }
}

/// The value from a [`Table`] entry as a [`Proven`].
fn proven(value: i32) -> Proven {
    match value {
        0 => Proven::Draw,
        v if v > 0 => Proven::Win(Some((WIN - v) as u32)),
        v => Proven::Loss(Some((WIN + v) as u32)),
    }
}

/// Perfect-play values of every `(position, ply)`.
struct Table {
    /// Table index of each board code (base-3 board × 2 + side).
    index: Vec<u16>,
    /// `values[i][p]`: value of position `i` at ply `p` for the side to
    /// move: `WIN - n` for a win in n plies, `-(WIN - n)` for a loss, 0 draw.
    values: Vec<[i16; PLY_LIMIT as usize + 1]>,
}

impl Table {
    /// The value of a valid position (plies above the limit count as the
    /// limit).
    fn value(&self, game: &MuTorere) -> i32 {
        let i = self.index[game.code()] as usize;
        let ply = game.plies.min(PLY_LIMIT) as usize;
        i32::from(self.values[i][ply])
    }

    /// Builds the table by backward induction from ply 120 down to 0.
    fn build() -> Table {
        let positions = all_positions();
        let mut index = vec![u16::MAX; 19683 * 2];
        for (i, p) in positions.iter().enumerate() {
            index[p.code()] = i as u16;
        }
        // Children of each position as table indices; empty = no move.
        let mut moves = Vec::new();
        let children: Vec<Vec<usize>> = positions
            .iter()
            .map(|p| {
                p.generate_raw(&mut moves);
                moves
                    .iter()
                    .map(|&m| {
                        let mut c = p.clone();
                        c.play(m);
                        index[c.code()] as usize
                    })
                    .collect()
            })
            .collect();
        let mut values = vec![[0i16; PLY_LIMIT as usize + 1]; positions.len()];
        for ply in (0..=PLY_LIMIT as usize).rev() {
            for i in 0..positions.len() {
                values[i][ply] = if children[i].is_empty() {
                    -(WIN as i16)
                } else if ply == PLY_LIMIT as usize {
                    0
                } else {
                    children[i]
                        .iter()
                        .map(|&c| parent_value(i32::from(values[c][ply + 1])) as i16)
                        .max()
                        .unwrap_or(0)
                };
            }
        }
        Table { index, values }
    }
}

/// Every valid position (four pieces a side, one hole), both sides to move.
fn all_positions() -> Vec<MuTorere> {
    let mut out = Vec::new();
    for hole in 0..9 {
        for mask in 0u32..256 {
            if mask.count_ones() != 4 {
                continue;
            }
            let mut cells = [Cell::Empty; 9];
            let mut k = 0;
            for (p, cell) in cells.iter_mut().enumerate() {
                if p == hole {
                    continue;
                }
                *cell = Cell::Piece(if mask >> k & 1 == 1 {
                    Player::X
                } else {
                    Player::O
                });
                k += 1;
            }
            for side in [Player::X, Player::O] {
                out.push(MuTorere::new(cells, side, 0));
            }
        }
    }
    out
}

/// The shared table, built on first use (a few milliseconds).
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::build)
}

impl MuTorere {
    /// Moves by the rules of piece movement only (ignores the ply limit).
    fn generate_raw(&self, moves: &mut Vec<MtMove>) {
        moves.clear();
        let me = Cell::Piece(self.side);
        let enemy = Cell::Piece(self.side.other());
        let empty = self.empty_point();
        if empty == CENTRE {
            // A ring piece may enter the centre only next to an enemy piece.
            for p in 0..8 {
                if self.cells[p] == me && ring_neighbours(p).iter().any(|&n| self.cells[n] == enemy)
                {
                    moves.push(MtMove {
                        from: p as u8,
                        to: CENTRE as u8,
                    });
                }
            }
        } else {
            for from in ring_neighbours(empty).into_iter().chain([CENTRE]) {
                if self.cells[from] == me {
                    moves.push(MtMove {
                        from: from as u8,
                        to: empty as u8,
                    });
                }
            }
        }
    }

    fn has_raw_move(&self) -> bool {
        let mut moves = Vec::new();
        self.generate_raw(&mut moves);
        !moves.is_empty()
    }
}

impl Game for MuTorere {
    type Move = MtMove;
    type Options = NoOptions;
    const NAME: &'static str = "mutorere";

    /// `from × 16 + to`.
    fn move_code(mv: MtMove) -> Option<u32> {
        Some(mv.from as u32 * 16 + mv.to as u32)
    }

    fn move_from_code(code: u32) -> Option<MtMove> {
        let (from, to) = (code / 16, code % 16);
        (from <= CENTRE as u32 && to <= CENTRE as u32 && from != to).then_some(MtMove {
            from: from as u8,
            to: to as u8,
        })
    }

    fn start(_options: &NoOptions) -> MuTorere {
        let x = Cell::Piece(Player::X);
        let o = Cell::Piece(Player::O);
        MuTorere::new([x, x, x, x, o, o, o, o, Cell::Empty], Player::X, 0)
    }

    fn from_fen(fen: &str, _options: &NoOptions) -> Result<MuTorere, String> {
        let fields = split_fields(fen, 3, "<9 points> <side> <plies>")?;
        let board = fields[0].as_bytes();
        if board.len() != 9 {
            return Err(format!(
                "board '{}' must have 9 characters (points 1-8, then the centre)",
                fields[0]
            ));
        }
        let mut cells = [Cell::Empty; 9];
        for (cell, &b) in cells.iter_mut().zip(board) {
            *cell = match b {
                b'x' => Cell::Piece(Player::X),
                b'o' => Cell::Piece(Player::O),
                b'.' => Cell::Empty,
                _ => return Err(format!("board character '{}' is not x, o or .", b as char)),
            };
        }
        let count = |c: Cell| cells.iter().filter(|&&x| x == c).count();
        if count(Cell::Piece(Player::X)) != 4 || count(Cell::Piece(Player::O)) != 4 {
            return Err("each side must have exactly four pieces and one point be empty".into());
        }
        let side = Player::parse(fields[1])?;
        let plies: u32 = parse_counter(fields[2], "ply counter")?;
        Ok(MuTorere::new(cells, side, plies))
    }

    fn fen(&self) -> String {
        let board: String = self
            .cells
            .iter()
            .map(|c| match c {
                Cell::Empty => '.',
                Cell::Piece(p) => p.to_char(),
            })
            .collect();
        format!("{board} {} {}", self.side.to_char(), self.plies)
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<MtMove>) {
        self.generate_raw(moves);
        if self.plies >= PLY_LIMIT {
            // Drawn by the ply limit (a side without a move has lost instead).
            moves.clear();
        }
    }

    fn play(&mut self, mv: MtMove) {
        let (from, to) = (mv.from as usize, mv.to as usize);
        let piece = self.cells[from];
        if let Cell::Piece(p) = piece {
            self.hash ^= cell_key(from, p) ^ cell_key(to, p);
        }
        self.cells[to] = piece;
        self.cells[from] = Cell::Empty;
        self.side = self.side.other();
        self.hash ^= KEYS[18];
        self.plies = self.plies.saturating_add(1);
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.has_raw_move() {
            return Some(Outcome::Win(self.side.other()));
        }
        (self.plies >= PLY_LIMIT).then_some(Outcome::Draw)
    }

    fn end_reason(&self) -> Option<&'static str> {
        if !self.has_raw_move() {
            return Some("blocked side loses");
        }
        (self.plies >= PLY_LIMIT).then_some("ply limit")
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let side = if self.side == Player::O { KEYS[18] } else { 0 };
        self.cells
            .iter()
            .enumerate()
            .fold(side, |acc, (p, c)| match c {
                Cell::Piece(player) => acc ^ cell_key(p, *player),
                Cell::Empty => acc,
            })
    }

    /// From the perfect-play table: ±(10000 − 100 × plies to the end) for
    /// a decided position, 0 for a draw.
    fn evaluate(&self) -> i32 {
        match proven(self.table_value()) {
            Proven::Win(n) => 10_000 - 100 * n.unwrap_or(0) as i32,
            Proven::Loss(n) => -10_000 + 100 * n.unwrap_or(0) as i32,
            Proven::Draw => 0,
        }
    }

    fn parse_move(&self, text: &str) -> Result<MtMove, String> {
        let bytes = text.as_bytes();
        let points = match bytes {
            [a, b] => parse_point(*a).zip(parse_point(*b)),
            _ => None,
        };
        let (from, to) = points.ok_or_else(|| {
            format!("mutorere move '{text}' must be two points among 1-8 and c, e.g. 1c")
        })?;
        let joined = from as usize == CENTRE
            || to as usize == CENTRE
            || ring_neighbours(from as usize).contains(&(to as usize));
        if from == to || !joined {
            return Err(format!("points of '{text}' are not joined"));
        }
        Ok(MtMove { from, to })
    }

    fn move_to_string(&self, mv: MtMove) -> String {
        format!("{}{}", point_char(mv.from), point_char(mv.to))
    }

    fn repetition_key(&self) -> Option<u64> {
        Some(self.hash)
    }

    /// Perfect play from the table: win fastest, lose slowest, keep draws.
    fn solve(&self, _budget: &SolveBudget) -> Option<Solved<MtMove>> {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        let best = *moves.iter().max_by_key(|&&m| self.move_value(m))?;
        Some(Solved {
            best,
            value: proven(self.table_value()),
            margin: None,
        })
    }

    fn diagram(&self) -> String {
        let c = |p: usize| match self.cells[p] {
            Cell::Empty => '.',
            Cell::Piece(pl) => pl.to_char(),
        };
        format!(
            "      {}(1)\n  {}(8)     {}(2)\n{}(7)   {}(c)   {}(3)\n  {}(6)     {}(4)\n      {}(5)\n{} to move, ply {}\n",
            c(0),
            c(7),
            c(1),
            c(6),
            c(8),
            c(2),
            c(5),
            c(3),
            c(4),
            self.side.to_char(),
            self.plies
        )
    }
}

/// Every optimal move with the table value of the position (side to move),
/// for `agon solve`. Empty when the game is over.
pub fn optimal_moves(game: &MuTorere) -> (Proven, Vec<MtMove>) {
    let mut moves = Vec::new();
    game.generate_moves(&mut moves);
    let best = moves.iter().map(|&m| game.move_value(m)).max();
    moves.retain(|&m| Some(game.move_value(m)) == best);
    (proven(game.table_value()), moves)
}
