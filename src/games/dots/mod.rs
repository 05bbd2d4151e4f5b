//! Dots and Boxes (RULES.md §2) on boards of up to 5×5 boxes.
//!
//! Lines are bits of a `u64` (at most 60 lines), numbered as in the position
//! string: horizontal lines dot-row by dot-row from rank 1 up, left to right,
//! then vertical lines box-row by box-row from the bottom, left to right.
//! Position `<R>x<C> <lines> <score_x> <score_o> <side>`; move `a1b1`
//! (horizontal) or `a1a2` (vertical), lower/left dot first when written,
//! either order accepted when read.
//!
//! A position string must have `score_x + score_o` equal to the number of
//! completed boxes: which player took which box is not recorded in the
//! lines, but every box drawn closed was scored by someone.
//!
//! [`solver`] holds the exact solver and [`root`] runs it on a root
//! position with several threads. [`Game::solve`] tries it when
//! [`Dots::predicted_solve_seconds`] says it fits the budget's time, and
//! gives up (`None`) when the budget expires all the same. Measured
//! (release, a 2-core AMD EPYC machine, two threads, value and every
//! optimal move, whole process, table allocation included): random 4×4
//! positions (only safe lines drawn) with 30 lines left 0.05–0.54 s, 32
//! left 0.56–1.4 s, 34 left 4.0–7.7 s, 35 left 6.4–10.3 s (an Intel
//! machine before center bias and parity bounds: 0.15–0.66 s, 1.0–2.1 s and
//! 8.5–10.9 s with 30, 32 and 34 left). Each two more lines cost about 3–5×;
//! 4×4 from empty takes 45.7–49.3 s (`agon solve --game dots --size 4x4`,
//! 1 GiB; six runs in one evening; the build before, six runs the same
//! evening: 47.8–62.8 s, the slowest the first of them: the same run
//! varies that much on that machine). At 10 s a move (`Threads 2`, `Hash
//! 1024`, 6 games against `Search alphabeta`: 6–0–0 with this build, 5–0–1
//! with one about 1.2× slower) `go` solved every move from 33 undrawn
//! lines on (from 32, and 2 of 3 with 33, with the slower build); at 30 s a
//! move it solves from 34 undrawn lines, and from 35 when four of them are
//! unsafe.

mod features;
pub mod geometry;
pub mod root;
pub mod solver;

use crate::game::{
    Game, GameOptions, LearnedEvaluation, OptionKind, OptionSpec, Outcome, Player, Proven,
    SolveBudget, Solved, parse_counter, split_fields, zobrist_keys,
};
use geometry::{Geometry, MAX_SIDE, NO_BOX};
use rand_xoshiro::Xoshiro256PlusPlus;
use solver::{DEFAULT_TABLE_BYTES, Table};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Options of Dots and Boxes: the board size for `startpos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotsOptions {
    /// Rows of boxes.
    pub rows: usize,
    /// Columns of boxes.
    pub cols: usize,
}

impl Default for DotsOptions {
    fn default() -> Self {
        DotsOptions { rows: 4, cols: 4 }
    }
}

impl GameOptions for DotsOptions {
    fn specs() -> Vec<OptionSpec> {
        vec![OptionSpec {
            name: "Size",
            kind: OptionKind::Text,
            default: "4x4".into(),
        }]
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        if !name.eq_ignore_ascii_case("size") {
            return Err(format!("unknown option '{name}'"));
        }
        let (rows, cols) = parse_size(value)?;
        self.rows = rows;
        self.cols = cols;
        Ok(())
    }
}

/// Parses `RxC` (or `RXC`) with R and C in `1..=5`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let err = || format!("size '{text}' must be RxC boxes with R and C from 1 to {MAX_SIDE}");
    let (r, c) = text.split_once(['x', 'X']).ok_or_else(err)?;
    let r: usize = parse_counter(r.trim(), "rows").map_err(|_| err())?;
    let c: usize = parse_counter(c.trim(), "columns").map_err(|_| err())?;
    if !(1..=MAX_SIDE).contains(&r) || !(1..=MAX_SIDE).contains(&c) {
        return Err(err());
    }
    Ok((r, c))
}

/// A move: the index of the line drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DotsMove(pub u8);

/// Zobrist keys: 60 lines, 26 scores per player, the side, 25 sizes.
const KEYS: [u64; 60 + 52 + 1 + 25] = zobrist_keys::<138>(0x646F_7473_626F_7865);
const SIDE_KEY: usize = 112;

fn score_key(player: Player, score: u8) -> u64 {
    KEYS[60 + player.index() * 26 + score.min(25) as usize]
}

/// The fitted model of [`Dots::predicted_solve_seconds`]: log10 of the
/// seconds on two threads is `BASE + PER_SAFE * safe + PER_OTHER * other`.
/// A least-squares fit to 42 random 4×4 positions with 26–35 undrawn lines
/// (0.02–35 s) gave a base of −7.68 (residual spread a factor of 1.5, at
/// worst 3.3 too low). The solver has since become faster (symmetric keys,
/// loony bounds, a denser table, then center bias and parity bounds): on
/// 17 new random positions with 30–35 lines left (0.12–10.3 s, `agon
/// solve` on two threads, AMD EPYC) the median base for the same slopes is
/// −8.13 (from −8.64 to −7.66, lowest with the most safe lines, so the
/// slopes err on the cautious side there); the base here is 0.28 higher,
/// a factor of 1.9 to spare. The solver became about 1.2× faster again
/// after that fit (hard-hearted handouts, handouts the table shows
/// failing); the same 17 and five more with 34–37 lines left, solved
/// again then (0.12–72.8 s), give a median base of −8.28 but −7.72 and
/// −7.83 at worst (a position with 37 lines left took 72.8 s, more than
/// 4×4 from empty: it has no symmetry), so the base stays.
const PREDICT_BASE: f64 = -7.85;
const PREDICT_PER_SAFE: f64 = 0.262;
const PREDICT_PER_OTHER: f64 = 0.204;

/// How long [`Game::solve`] may be expected to take when the budget has no
/// deadline (`go infinite`, depth- or node-limited searches stop it
/// otherwise): past this, the search answers while the user waits.
const UNTIMED_SOLVE_SECONDS: f64 = 10.0;

/// The table [`Game::solve`] keeps between calls (one board size at a
/// time), so that what one move's solve proved serves the next.
static SHARED_TABLE: Mutex<Option<(usize, usize, Arc<Table>)>> = Mutex::new(None);

/// A table of `bytes` for boards of `geo`: the kept one when it suits
/// (same size of board, at least as large), else a new one (halved until
/// the memory is granted), which is then kept. `None` when even 1 MiB is
/// refused.
fn shared_table(geo: &'static Geometry, bytes: usize) -> Option<Arc<Table>> {
    let mut kept = SHARED_TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((size, board, table)) = kept.as_ref()
        && *board == geo.rows * MAX_SIDE + geo.cols
        && *size >= bytes
    {
        return Some(Arc::clone(table));
    }
    *kept = None; // the old table's memory goes back before a new one is asked
    let table = Arc::new(granted_table(bytes, geo.lines)?);
    *kept = Some((bytes, geo.rows * MAX_SIDE + geo.cols, Arc::clone(&table)));
    Some(table)
}

/// A table of `bytes` for boards of `lines` lines, or of half, a quarter,
/// … (down to 1 MiB) when the memory is refused; `None` when even that is.
fn granted_table(bytes: usize, lines: usize) -> Option<Table> {
    let mut asked = bytes;
    loop {
        match Table::new(asked, lines) {
            Ok(table) => return Some(table),
            Err(_) if asked > 1 << 20 => asked /= 2,
            Err(_) => return None,
        }
    }
}

/// A Dots and Boxes position.
#[derive(Clone, Debug)]
pub struct Dots {
    geo: &'static Geometry,
    lines: u64,
    score: [u8; 2],
    side: Player,
    hash: u64,
}

impl PartialEq for Dots {
    fn eq(&self, other: &Dots) -> bool {
        (
            self.geo.rows,
            self.geo.cols,
            self.lines,
            self.score,
            self.side,
        ) == (
            other.geo.rows,
            other.geo.cols,
            other.lines,
            other.score,
            other.side,
        )
    }
}

impl Eq for Dots {}

impl Dots {
    fn new(geo: &'static Geometry, lines: u64, score: [u8; 2], side: Player) -> Dots {
        let mut dots = Dots {
            geo,
            lines,
            score,
            side,
            hash: 0,
        };
        dots.hash = dots.hash_from_scratch();
        dots
    }

    /// The board geometry.
    pub fn geometry(&self) -> &'static Geometry {
        self.geo
    }

    /// The drawn lines as a bitboard.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Boxes scored by `player`.
    pub fn score(&self, player: Player) -> u32 {
        u32::from(self.score[player.index()])
    }

    /// Undrawn lines.
    pub fn empty_lines(&self) -> u32 {
        self.geo.lines as u32 - self.lines.count_ones()
    }

    /// Score of the side to move minus the opponent's.
    pub fn score_diff(&self) -> i32 {
        self.score(self.side) as i32 - self.score(self.side.other()) as i32
    }

    fn undrawn(&self) -> impl Iterator<Item = usize> + use<> {
        line_indices(self.geo.full & !self.lines)
    }

    /// Whether drawing `line` gives a box its third side.
    fn is_unsafe(&self, line: usize) -> bool {
        let after = self.lines | 1 << line;
        self.geo.line_boxes[line]
            .iter()
            .any(|&b| b != NO_BOX && self.geo.sides(after, b as usize) == 3)
    }

    /// Drawn lines.
    fn drawn(&self) -> impl Iterator<Item = usize> + use<> {
        line_indices(self.lines)
    }

    /// The long-chain rule with `chains` long chains: whether the side to
    /// move is the one who wants dots plus long chains to be even (x) or
    /// odd (o), i.e. the one the parity favours.
    fn parity_favours_mover(&self, chains: u32) -> bool {
        let dots = ((self.geo.rows + 1) * (self.geo.cols + 1)) as u32;
        let x_happy = (dots + chains).is_multiple_of(2);
        x_happy == (self.side == Player::X)
    }

    /// Boxes with three sides drawn (the mover can take them).
    fn capturable(&self) -> usize {
        (0..self.geo.boxes)
            .filter(|&b| self.geo.sides(self.lines, b) == 3)
            .count()
    }

    /// Long chains (three boxes or more) of two-sided boxes, an estimate
    /// for the long-chain rule.
    fn long_chains(&self) -> u32 {
        let mut seen = 0u32;
        let mut chains = 0;
        for start in 0..self.geo.boxes {
            if seen >> start & 1 == 1 || self.geo.sides(self.lines, start) != 2 {
                continue;
            }
            let mut stack = vec![start];
            seen |= 1 << start;
            let mut size = 0;
            while let Some(b) = stack.pop() {
                size += 1;
                let mut open = self.geo.box_lines[b] & !self.lines;
                while open != 0 {
                    let line = open.trailing_zeros() as usize;
                    open &= open - 1;
                    for &n in &self.geo.line_boxes[line] {
                        let n = n as usize;
                        if n != NO_BOX as usize
                            && seen >> n & 1 == 0
                            && self.geo.sides(self.lines, n) == 2
                        {
                            seen |= 1 << n;
                            stack.push(n);
                        }
                    }
                }
            }
            if size >= 3 {
                chains += 1;
            }
        }
        chains
    }

    /// The exact value (final score difference for the side to move) and
    /// every optimal move, or `None` if the budget ran out or the game is
    /// over. Used by `agon solve`.
    pub fn solve_all(&self, budget: Option<&SolveBudget>) -> Option<(i32, Vec<DotsMove>)> {
        let threads = budget.map_or(1, |b| b.threads);
        let memory = budget.map_or(
            Table::bytes_for(self.empty_lines()).min(DEFAULT_TABLE_BYTES),
            |b| b.memory_bytes,
        );
        self.solve_with(threads, memory, true, budget)
            .map(|(m, b, _)| (m, b))
    }

    /// Solves with `threads` threads and a new table of at most
    /// `memory_bytes`: the final margin for the side to move, the optimal
    /// moves (every one with `all`, else one) and the nodes searched.
    /// `None` if the budget ran out, the game is over or no table could be
    /// allocated.
    pub fn solve_with(
        &self,
        threads: usize,
        memory_bytes: usize,
        all: bool,
        budget: Option<&SolveBudget>,
    ) -> Option<(i32, Vec<DotsMove>, u64)> {
        let table = granted_table(
            memory_bytes.min(Table::bytes_for(self.empty_lines())),
            self.geo.lines,
        )?;
        self.solve_on(&table, threads, all, budget)
    }

    /// [`Dots::solve_with`] over a given table.
    fn solve_on(
        &self,
        table: &Table,
        threads: usize,
        all: bool,
        budget: Option<&SolveBudget>,
    ) -> Option<(i32, Vec<DotsMove>, u64)> {
        if self.lines == self.geo.full {
            return None;
        }
        let solved = root::solve(self.geo, table, self.lines, threads, all, budget)?;
        let best = solved.best.iter().map(|&l| DotsMove(l as u8)).collect();
        Some((self.score_diff() + solved.value, best, solved.nodes))
    }

    /// A guess of the seconds the solver needs here on `threads` threads,
    /// from the lines that are still safe to draw (the opening's fight,
    /// which the search tree grows with) and the other undrawn lines.
    /// Fitted to solves of random 4×4 positions on this project's 2-core
    /// machine (see the module documentation); meant to be right within a
    /// factor of a few, which is what deciding whether to try needs.
    pub fn predicted_solve_seconds(&self, threads: usize) -> f64 {
        let safe = self.undrawn().filter(|&l| !self.is_unsafe(l)).count() as f64;
        let others = f64::from(self.empty_lines()) - safe;
        let log10 = PREDICT_BASE + PREDICT_PER_SAFE * safe + PREDICT_PER_OTHER * others;
        10f64.powf(log10) * 2.0 / threads.clamp(1, 2) as f64
    }

    /// A cheap sensible move: take a box, else a line that gives nothing
    /// away, else a line that hands over the fewest boxes (greedy count).
    fn policy_move(&self, moves: &[DotsMove], rng: &mut Xoshiro256PlusPlus) -> DotsMove {
        let taking = |m: &DotsMove| self.geo.completes(self.lines, m.0 as usize) > 0;
        let safe = |m: &DotsMove| !self.is_unsafe(m.0 as usize);
        if let Some(mv) = pick_where(moves, taking, rng).or_else(|| pick_where(moves, safe, rng)) {
            return mv;
        }
        // Every line hands boxes over: give the fewest.
        let least = moves.iter().map(|m| self.greedy_loss(m.0 as usize)).min();
        pick_where(
            moves,
            |m| Some(self.greedy_loss(m.0 as usize)) == least,
            rng,
        )
        .unwrap_or(moves[0])
    }

    /// Boxes the opponent takes by greedy capturing after `line` is drawn.
    fn greedy_loss(&self, line: usize) -> u32 {
        let mut lines = self.lines | 1 << line;
        let mut lost = 0;
        while let Some(b) = (0..self.geo.boxes).find(|&b| self.geo.sides(lines, b) == 3) {
            let take = (self.geo.box_lines[b] & !lines).trailing_zeros() as usize;
            lost += self.geo.completes(lines, take);
            lines |= 1 << take;
        }
        lost
    }
}

/// A uniformly random move among those satisfying `keep`, without
/// allocating (playouts call this at every ply).
fn pick_where(
    moves: &[DotsMove],
    keep: impl Fn(&DotsMove) -> bool,
    rng: &mut Xoshiro256PlusPlus,
) -> Option<DotsMove> {
    let count = moves.iter().filter(|m| keep(m)).count();
    if count == 0 {
        return None;
    }
    let k = rand::RngExt::random_range(rng, 0..count);
    moves.iter().filter(|m| keep(m)).nth(k).copied()
}

/// The indices of the lines set in `mask`, lowest first.
fn line_indices(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let line = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            line
        })
    })
}

/// Dots and Boxes' learned evaluation: lines, boxes, score and chains
/// (no network is shipped: none has beaten the classic evaluation).
pub struct DotsEvaluation;

impl LearnedEvaluation<Dots> for DotsEvaluation {
    fn inputs(&self) -> usize {
        features::NETWORK_INPUTS
    }

    fn active_inputs(&self, position: &Dots, active: &mut Vec<u16>) {
        position.push_network_inputs(active);
    }
}

impl Game for Dots {
    fn learned() -> Option<&'static dyn LearnedEvaluation<Dots>> {
        Some(&DotsEvaluation)
    }

    type Move = DotsMove;
    type Options = DotsOptions;
    const NAME: &'static str = "dots";

    /// The line index.
    fn move_code(mv: DotsMove) -> Option<u32> {
        Some(mv.0 as u32)
    }

    fn move_from_code(code: u32) -> Option<DotsMove> {
        u8::try_from(code).ok().map(DotsMove)
    }

    /// The lines up to the board's symmetries and with a corner box's two
    /// border lines counted as one (equivalent positions, see
    /// `Geometry::corners_first`), with the scores and the side.
    fn canonical_key(&self) -> u64 {
        let lines = self.geo.canonical(self.lines);
        let rest = score_key(Player::X, self.score[0])
            ^ score_key(Player::O, self.score[1])
            ^ if self.side == Player::O {
                KEYS[SIDE_KEY]
            } else {
                0
            };
        lines.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ rest
    }

    /// The images under the board's symmetries (8 on a square board, 4 on
    /// a rectangle; the identity first): the same score and side to move,
    /// the lines reflected or rotated.
    fn symmetric_images(&self) -> Vec<Dots> {
        (0..self.geo.symmetry_count())
            .map(|sym| {
                Dots::new(
                    self.geo,
                    self.geo.image(sym, self.lines),
                    self.score,
                    self.side,
                )
            })
            .collect()
    }

    /// Lines that complete a box.
    fn is_noisy(&self, mv: DotsMove) -> bool {
        self.geo.completes(self.lines, mv.0 as usize) > 0
    }

    fn start(options: &DotsOptions) -> Dots {
        Dots::new(
            Geometry::get(options.rows, options.cols),
            0,
            [0, 0],
            Player::X,
        )
    }

    fn from_fen(fen: &str, _options: &DotsOptions) -> Result<Dots, String> {
        let fields = split_fields(fen, 5, "<R>x<C> <lines> <score_x> <score_o> <side>")?;
        let (rows, cols) = parse_size(fields[0])?;
        let geo = Geometry::get(rows, cols);
        let text = fields[1].as_bytes();
        if text.len() != geo.lines || !text.iter().all(|&b| b == b'0' || b == b'1') {
            return Err(format!(
                "lines must be {} characters of 0 and 1 for a {rows}x{cols} board",
                geo.lines
            ));
        }
        let lines = text
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &b)| acc | u64::from(b - b'0') << i);
        let sx: u32 = parse_counter(fields[2], "score of x")?;
        let so: u32 = parse_counter(fields[3], "score of o")?;
        let done = geo.completed(lines);
        if sx.checked_add(so) != Some(done) {
            return Err(format!(
                "scores {sx} + {so} must add up to the {done} completed boxes"
            ));
        }
        let side = Player::parse(fields[4])?;
        Ok(Dots::new(geo, lines, [sx as u8, so as u8], side))
    }

    fn fen(&self) -> String {
        let lines: String = (0..self.geo.lines)
            .map(|i| if self.lines >> i & 1 == 1 { '1' } else { '0' })
            .collect();
        format!(
            "{}x{} {lines} {} {} {}",
            self.geo.rows,
            self.geo.cols,
            self.score[0],
            self.score[1],
            self.side.to_char()
        )
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<DotsMove>) {
        moves.clear();
        moves.extend(self.undrawn().map(|l| DotsMove(l as u8)));
    }

    fn play(&mut self, mv: DotsMove) {
        let line = mv.0 as usize;
        let gained = self.geo.completes(self.lines, line) as u8;
        self.lines |= 1 << line;
        self.hash ^= KEYS[line];
        if gained > 0 {
            let i = self.side.index();
            self.hash ^= score_key(self.side, self.score[i]);
            self.score[i] += gained;
            self.hash ^= score_key(self.side, self.score[i]);
        } else {
            self.side = self.side.other();
            self.hash ^= KEYS[SIDE_KEY];
        }
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.outcome().map(|_| "every line drawn")
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.lines == self.geo.full)
            .then(|| Outcome::by_count(self.score(Player::X), self.score(Player::O)))
    }

    /// Decided by the boxes scored so far.
    fn adjudicate(&self) -> Outcome {
        Outcome::by_count(self.score(Player::X), self.score(Player::O))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let size = KEYS[SIDE_KEY + 1 + (self.geo.rows - 1) * MAX_SIDE + self.geo.cols - 1];
        let side = if self.side == Player::O {
            KEYS[SIDE_KEY]
        } else {
            0
        };
        let lines = self.drawn_line_keys();
        size ^ side
            ^ lines
            ^ score_key(Player::X, self.score[0])
            ^ score_key(Player::O, self.score[1])
    }

    /// Score difference, plus the boxes the mover can take now, plus the
    /// long-chain rule: the first player wants dots + long chains even.
    fn evaluate(&self) -> i32 {
        let mut eval = 100 * self.score_diff() + 100 * self.capturable() as i32;
        let safe_left = self.undrawn().any(|l| !self.is_unsafe(l));
        let chains = self.long_chains();
        if chains > 0 || !safe_left {
            let bonus = 150 + 50 * chains as i32;
            eval += if self.parity_favours_mover(chains) {
                bonus
            } else {
                -bonus
            };
        }
        eval
    }

    fn parse_move(&self, text: &str) -> Result<DotsMove, String> {
        let bad = || format!("dots move '{text}' must be two adjacent dots such as a1b1 or a1a2");
        let b = text.as_bytes();
        if b.len() != 4 {
            return Err(bad());
        }
        let dot = |f: u8, r: u8| -> Option<(usize, usize)> {
            let file = f.checked_sub(b'a')? as usize;
            let rank = r.checked_sub(b'1')? as usize;
            (f.is_ascii_lowercase() && r.is_ascii_digit()).then_some((file, rank))
        };
        let (a, c) = dot(b[0], b[1]).zip(dot(b[2], b[3])).ok_or_else(bad)?;
        let line = self.geo.line_between(a, c).ok_or_else(bad)?;
        if self.lines >> line & 1 == 1 {
            return Err(format!("line {text} is already drawn"));
        }
        Ok(DotsMove(line as u8))
    }

    fn move_to_string(&self, mv: DotsMove) -> String {
        let [(f1, r1), (f2, r2)] = self
            .geo
            .line_dots
            .get(mv.0 as usize)
            .copied()
            .unwrap_or([(0, 0), (0, 0)]);
        format!(
            "{}{}{}{}",
            (b'a' + f1) as char,
            r1 + 1,
            (b'a' + f2) as char,
            r2 + 1
        )
    }

    fn is_legal(&self, mv: DotsMove) -> bool {
        (mv.0 as usize) < self.geo.lines && self.lines >> mv.0 & 1 == 0
    }

    fn count_moves(&self) -> u64 {
        u64::from(self.empty_lines())
    }

    /// Exact solution when the solver is predicted to finish within the
    /// budget's time ([`Dots::predicted_solve_seconds`]; without a deadline,
    /// within `UNTIMED_SOLVE_SECONDS`, 10 s) and does; `None` otherwise.
    fn solve(&self, budget: &SolveBudget) -> Option<Solved<DotsMove>> {
        if self.outcome().is_some() {
            return None;
        }
        let allowed = budget.deadline.map_or(UNTIMED_SOLVE_SECONDS, |d| {
            d.saturating_duration_since(Instant::now()).as_secs_f64()
        });
        if self.predicted_solve_seconds(budget.threads) > allowed {
            return None;
        }
        let bytes = budget
            .memory_bytes
            .min(Table::bytes_for(self.empty_lines()));
        let table = shared_table(self.geo, bytes)?;
        let (margin, best, _) = self.solve_on(&table, budget.threads, false, Some(budget))?;
        Some(Solved {
            best: *best.first()?,
            value: match margin.signum() {
                1 => Proven::Win(None),
                -1 => Proven::Loss(None),
                _ => Proven::Draw,
            },
            margin: Some(margin),
        })
    }

    /// Random playouts: the policy's playouts are about five times slower
    /// (57k against 284k per second on 4×4), and in a 20-game match at
    /// 100 ms per move MCTS with random playouts scored 10-7-3 against MCTS
    /// with the policy.
    fn policy_playouts() -> bool {
        false
    }

    fn playout_move(&self, moves: &[DotsMove], rng: &mut Xoshiro256PlusPlus) -> DotsMove {
        self.policy_move(moves, rng)
    }

    fn baseline_move(&self, rng: &mut Xoshiro256PlusPlus) -> Option<DotsMove> {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        (!moves.is_empty()).then(|| self.policy_move(&moves, rng))
    }

    fn diagram(&self) -> String {
        let (rows, cols) = (self.geo.rows, self.geo.cols);
        let drawn = |l: usize| self.lines >> l & 1 == 1;
        let mut out = String::new();
        for y in (0..=rows).rev() {
            out.push_str(&format!("{:>2} ", y + 1));
            for x in 0..=cols {
                out.push('+');
                if x < cols {
                    out.push_str(if drawn(y * cols + x) { "---" } else { "   " });
                }
            }
            out.push('\n');
            if y > 0 {
                out.push_str("   ");
                for x in 0..=cols {
                    let v = self.geo.horizontal() + (y - 1) * (cols + 1) + x;
                    out.push(if drawn(v) { '|' } else { ' ' });
                    if x < cols {
                        let full = self.geo.sides(self.lines, (y - 1) * cols + x) == 4;
                        out.push_str(if full { " # " } else { "   " });
                    }
                }
                out.push('\n');
            }
        }
        out.push_str("   ");
        for x in 0..=cols {
            out.push((b'a' + x as u8) as char);
            out.push_str("   ");
        }
        out.push_str(&format!(
            "\nx {} - o {}, {} to move\n",
            self.score[0],
            self.score[1],
            self.side.to_char()
        ));
        out
    }
}

impl Dots {
    fn drawn_line_keys(&self) -> u64 {
        (0..self.geo.lines)
            .filter(|&l| self.lines >> l & 1 == 1)
            .fold(0, |acc, l| acc ^ KEYS[l])
    }
}
