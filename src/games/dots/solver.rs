//! Exact Dots and Boxes solver: the net number of the *remaining* boxes the
//! side to move gets with best play. That value depends only on the drawn
//! lines, so scores already made never enter the search.
//!
//! MTD(f)-style null-window alpha-beta (negamax, fail-soft) with:
//! - a transposition table (two-slot buckets, deeper entries kept) keyed by
//!   the lines up to board symmetry (4 for rectangles, 8 for squares),
//!   storing lower and upper bounds;
//! - the capture rule of Barker & Korf (2012): when a box can be taken,
//!   taking it is optimal unless it starts the last two boxes of a chain or
//!   the last four of an opened loop; there only "take" and the
//!   double-dealing decline (draw the far line of the next box) are tried,
//!   and with several such chain ends the decline is left to the last one;
//! - move reductions: opening a long chain or a loop is tried at one line
//!   only, the two ends of a short chain count as one option;
//! - move ordering: safe lines first (by a history heuristic), then the
//!   sacrifices that hand over the fewest boxes; the sacrifices and their
//!   chain analysis are only generated when no safe line cut off.
//!
//! Every reduction is checked against plain minimax in `tests/dots.rs`.

use super::geometry::{Geometry, NO_BOX};
use crate::game::SolveBudget;

/// What the capture rule allows in a position.
enum Captures {
    /// No box can be taken.
    None,
    /// Take with this line (it completes `boxes` boxes); nothing else
    /// needs searching.
    Take(usize, i32),
    /// End of a chain or loop: take with the first line, or decline with the
    /// second (which completes nothing).
    Choice(usize, usize),
    /// Several chain ends: take at any one of them first (each line takes
    /// one box); the decline is decided at the last one.
    Several([usize; 8], usize),
}

/// One transposition table slot.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// Canonical lines with bit 63 set (0 marks an empty slot).
    key: u64,
    lower: i8,
    upper: i8,
    /// Undrawn lines: entries nearer the root are worth more.
    depth: u8,
}

/// A solver for one board size, keeping its table between calls.
pub struct Solver<'a> {
    geo: &'static Geometry,
    table: Vec<Entry>,
    shift: u32,
    /// Nodes searched so far.
    pub nodes: u64,
    budget: Option<&'a SolveBudget<'a>>,
    aborted: bool,
    /// History heuristic: how often each line caused a cutoff.
    history: [u32; 64],
}

impl<'a> Solver<'a> {
    /// A solver with a table of `2^log_size` entries that gives up when
    /// `budget` expires.
    pub fn new(
        geo: &'static Geometry,
        log_size: u32,
        budget: Option<&'a SolveBudget<'a>>,
    ) -> Solver<'a> {
        let log_size = log_size.clamp(8, 26);
        Solver {
            geo,
            table: vec![Entry::default(); 1 << log_size],
            shift: 64 - log_size,
            nodes: 0,
            budget,
            aborted: false,
            history: [0; 64],
        }
    }

    /// A table size suited to a position with `empty` undrawn lines.
    pub fn log_size_for(empty: u32) -> u32 {
        empty.saturating_sub(5).clamp(12, 24)
    }

    /// The exact value of the remaining boxes for the side to move, or
    /// `None` when the budget ran out.
    pub fn value(&mut self, lines: u64) -> Option<i32> {
        // MTD(f)-style: null-window tests narrow [lower, upper] to the value;
        // they prune far more than one full-window search.
        let (mut lower, mut upper) = (-self.remaining(lines), self.remaining(lines));
        let mut guess = 0;
        while lower < upper && !self.aborted {
            let beta = if guess == lower { guess + 1 } else { guess };
            guess = self.search(lines, beta - 1, beta);
            if guess < beta {
                upper = guess;
            } else {
                lower = guess;
            }
        }
        (!self.aborted).then_some(lower)
    }

    /// The exact value for the side to move of drawing `line` (including
    /// the boxes it completes), or `None` when the budget ran out.
    pub fn move_value(&mut self, lines: u64, line: usize) -> Option<i32> {
        let child = lines | 1 << line;
        let gained = self.geo.completes(lines, line) as i32;
        let rem = self.remaining(child);
        let v = if gained > 0 {
            gained + self.search(child, -rem, rem)
        } else {
            -self.search(child, -rem, rem)
        };
        (!self.aborted).then_some(v)
    }

    /// Whether drawing `line` scores at least `target` (a null-window test,
    /// cheaper than [`Solver::move_value`]).
    pub fn move_reaches(&mut self, lines: u64, line: usize, target: i32) -> Option<bool> {
        let child = lines | 1 << line;
        let gained = self.geo.completes(lines, line) as i32;
        let ok = if gained > 0 {
            let t = target - gained;
            self.search(child, t - 1, t) >= t
        } else {
            self.search(child, -target, -target + 1) <= -target
        };
        (!self.aborted).then_some(ok)
    }

    fn remaining(&self, lines: u64) -> i32 {
        (self.geo.boxes as u32 - self.geo.completed(lines)) as i32
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes & 0x3FFF == 0
            && let Some(budget) = self.budget
            && budget.expired()
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Fail-soft negamax on the remaining boxes.
    fn search(&mut self, lines: u64, alpha: i32, beta: i32) -> i32 {
        if lines == self.geo.full {
            return 0;
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        match self.captures(lines) {
            Captures::Take(line, k) => k + self.search(lines | 1 << line, alpha - k, beta - k),
            Captures::Choice(take, decline) => self.choice(lines, take, decline, alpha, beta),
            Captures::Several(takes, n) => self.several(lines, &takes[..n], alpha, beta),
            Captures::None => self.full_node(lines, alpha, beta),
        }
    }

    /// The end of a chain or loop: take the box or hand the rest over.
    fn choice(&mut self, lines: u64, take: usize, decline: usize, alpha: i32, beta: i32) -> i32 {
        let taken = 1 + self.search(lines | 1 << take, alpha - 1, beta - 1);
        if taken >= beta {
            return taken;
        }
        let a = alpha.max(taken);
        let declined = -self.search(lines | 1 << decline, -beta, -a);
        taken.max(declined)
    }

    /// Several chain ends: the one declined (if any) must be the last one
    /// dealt with, so try taking first at each of them.
    fn several(&mut self, lines: u64, takes: &[usize], alpha: i32, beta: i32) -> i32 {
        let mut best = i32::MIN;
        for &take in takes {
            let a = alpha.max(best);
            let v = 1 + self.search(lines | 1 << take, a - 1, beta - 1);
            best = best.max(v);
            if best >= beta {
                break;
            }
        }
        best
    }

    /// A position where nothing can be taken: every line passes the turn.
    fn full_node(&mut self, lines: u64, mut alpha: i32, mut beta: i32) -> i32 {
        let key = self.geo.canonical(lines) | 1 << 63;
        let home = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize & !1;
        let slot = if self.table[home + 1].key == key
            || (self.table[home].key != key && self.table[home + 1].depth < self.table[home].depth)
        {
            home + 1
        } else {
            home
        };
        let entry = self.table[slot];
        if entry.key == key {
            let (lo, hi) = (i32::from(entry.lower), i32::from(entry.upper));
            if lo >= beta || lo == hi {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let remaining = self.remaining(lines);
        if alpha >= remaining || beta <= -remaining {
            return if alpha >= remaining {
                remaining
            } else {
                -remaining
            };
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = -remaining - 1;
        let mut moves = [0u8; 64];
        // Safe lines first; the sacrifices (and their chain analysis) are
        // only generated when no safe line produced a cutoff.
        let safe = self.safe_moves(lines, &mut moves);
        if !self.try_moves(lines, &moves[..safe], alpha, beta, &mut best) {
            let count = self.sacrifices(lines, &mut moves);
            self.try_moves(lines, &moves[..count], alpha, beta, &mut best);
        }
        if self.aborted {
            return best;
        }
        let (lower, upper) = if best <= alpha0 {
            (-remaining, best)
        } else if best >= beta0 {
            (best, remaining)
        } else {
            (best, best)
        };
        let (mut lower, mut upper) = (lower, upper);
        if entry.key == key {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        self.table[slot] = Entry {
            key,
            lower: lower as i8,
            upper: upper.max(lower) as i8,
            depth: (self.geo.full & !lines).count_ones() as u8,
        };
        best
    }

    /// Searches `moves` in order, raising `best`; true on a beta cutoff.
    fn try_moves(
        &mut self,
        lines: u64,
        moves: &[u8],
        alpha: i32,
        beta: i32,
        best: &mut i32,
    ) -> bool {
        for &line in moves {
            let v = -self.search(lines | 1 << line, -beta, -alpha.max(*best));
            if v > *best {
                *best = v;
                if v >= beta {
                    let bonus = (moves.len() * moves.len()) as u32;
                    self.history[line as usize] = self.history[line as usize].saturating_add(bonus);
                    return true;
                }
            }
        }
        false
    }

    /// The lines that give no box a third side, by history. Returns the count.
    fn safe_moves(&self, lines: u64, out: &mut [u8; 64]) -> usize {
        let mut keyed = [(0u32, 0u8); 64];
        let mut n = 0;
        let mut free = self.geo.full & !lines;
        while free != 0 {
            let line = free.trailing_zeros() as usize;
            free &= free - 1;
            let safe = self.geo.line_boxes[line]
                .iter()
                .all(|&b| b == NO_BOX || self.geo.sides(lines, b as usize) < 2);
            if safe {
                keyed[n] = (u32::MAX - self.history[line], line as u8);
                n += 1;
            }
        }
        keyed[..n].sort_unstable();
        for (o, &(_, line)) in out.iter_mut().zip(&keyed[..n]) {
            *o = line;
        }
        n
    }

    /// The sacrifices (lines giving a box its third side), one per
    /// equivalent opening, the fewest boxes handed over first.
    fn sacrifices(&self, lines: u64, out: &mut [u8; 64]) -> usize {
        let mut keyed = [(0u8, 0u32, 0u8); 64];
        let mut n = 0;
        let mut free = self.geo.full & !lines;
        let (component, long) = self.components(lines);
        let mut opened = 0u32;
        while free != 0 {
            let line = free.trailing_zeros() as usize;
            free &= free - 1;
            let safe = self.geo.line_boxes[line]
                .iter()
                .all(|&b| b == NO_BOX || self.geo.sides(lines, b as usize) < 2);
            if safe || self.redundant_opening(line, &component, long, &mut opened) {
                continue;
            }
            let history = u32::MAX - self.history[line];
            keyed[n] = (self.giveaway(lines, line), history, line as u8);
            n += 1;
        }
        keyed[..n].sort_unstable();
        for (o, &(_, _, line)) in out.iter_mut().zip(&keyed[..n]) {
            *o = line;
        }
        n
    }

    /// Whether `line` opens a chain or loop in a way already covered by an
    /// earlier line: opening a long chain (three boxes or more) or a loop
    /// anywhere is equivalent (the opponent takes it all or all but the
    /// last two or four), and so are the two ends of a chain of one or two
    /// boxes (the taker's choices lead to the same lines). `opened` records
    /// the components already opened once (by an end line for short chains).
    fn redundant_opening(
        &self,
        line: usize,
        component: &[u8; 32],
        long: u32,
        opened: &mut u32,
    ) -> bool {
        let [p, q] = self.geo.line_boxes[line];
        let comp_of = |b: u8| {
            (b != NO_BOX)
                .then(|| component[b as usize])
                .filter(|&c| c != NO_BOX)
        };
        let (cp, cq) = (comp_of(p), comp_of(q));
        let Some(c) = cp.or(cq) else {
            return false;
        };
        let middle = cp.is_some() && cp == cq;
        if middle && long >> c & 1 == 0 {
            return false; // the middle of a two-box chain: a distinct option
        }
        let seen = *opened >> c & 1 == 1;
        *opened |= 1 << c;
        seen
    }

    /// Components of two-sided boxes (each a path or a cycle): the
    /// component of every box ([`NO_BOX`] for other boxes) and the set of
    /// long ones (chains of three or more boxes, and loops).
    fn components(&self, lines: u64) -> ([u8; 32], u32) {
        let mut component = [NO_BOX; 32];
        let mut long = 0u32;
        let mut count = 0u8;
        for start in 0..self.geo.boxes {
            if component[start] != NO_BOX || self.geo.sides(lines, start) != 2 {
                continue;
            }
            let (mut size, mut ends) = (0, 0);
            let mut stack = [0u8; 32];
            let mut top = 1;
            stack[0] = start as u8;
            component[start] = count;
            while top > 0 {
                top -= 1;
                let b = stack[top] as usize;
                size += 1;
                let mut open = self.geo.box_lines[b] & !lines;
                while open != 0 {
                    let line = open.trailing_zeros() as usize;
                    open &= open - 1;
                    let n = self.other_box(line, b);
                    if n == NO_BOX as usize || self.geo.sides(lines, n) != 2 {
                        ends += 1;
                    } else if component[n] == NO_BOX {
                        component[n] = count;
                        stack[top] = n as u8;
                        top += 1;
                    }
                }
            }
            if size >= 3 || ends == 0 {
                long |= 1 << count;
            }
            count += 1;
        }
        (component, long)
    }

    /// A rough cost of drawing `line`: 0 when safe, otherwise the length of
    /// the chain of two-sided boxes it opens.
    fn giveaway(&self, lines: u64, line: usize) -> u8 {
        let after = lines | 1 << line;
        let mut cost = 0u8;
        for &b in &self.geo.line_boxes[line] {
            if b != NO_BOX && self.geo.sides(after, b as usize) == 3 {
                cost += 1 + self.chain_from(after, b as usize) as u8;
            }
        }
        cost
    }

    /// Length of the chain of two-sided boxes entered from capturable box
    /// `b` (bounded).
    fn chain_from(&self, lines: u64, b: usize) -> usize {
        let mut prev = b;
        let mut open = self.geo.box_lines[b] & !lines;
        let mut len = 0;
        while open != 0 && len < 25 {
            let line = open.trailing_zeros() as usize;
            let next = self.other_box(line, prev);
            if next == NO_BOX as usize || self.geo.sides(lines, next) != 2 {
                break;
            }
            len += 1;
            open = self.geo.box_lines[next] & !lines & !(1 << line);
            prev = next;
        }
        len
    }

    fn other_box(&self, line: usize, b: usize) -> usize {
        let [p, q] = self.geo.line_boxes[line];
        let other = if p as usize == b { q } else { p };
        other as usize
    }

    /// Applies the capture rule: see [`Captures`].
    fn captures(&self, lines: u64) -> Captures {
        let mut choice = Captures::None;
        let mut takes = [0usize; 8];
        let mut n = 0;
        let mut distinct = false;
        for b in 0..self.geo.boxes {
            if self.geo.sides(lines, b) != 3 {
                continue;
            }
            let open = self.geo.box_lines[b] & !lines;
            let take = open.trailing_zeros() as usize;
            match self.chain_end(lines, b, take) {
                Some(decline) => {
                    match choice {
                        Captures::None => choice = Captures::Choice(take, decline),
                        // Both ends of one chain or loop share the decline.
                        Captures::Choice(_, d) if d != decline => distinct = true,
                        _ => {}
                    }
                    if n < takes.len() {
                        takes[n] = take;
                        n += 1;
                    }
                }
                None => return Captures::Take(take, self.geo.completes(lines, take) as i32),
            }
        }
        if distinct {
            Captures::Several(takes, n)
        } else {
            choice
        }
    }

    /// When capturable box `b` (taken with `take`) is the first of the last
    /// two boxes of a chain, or of the last four of an opened loop, the line
    /// that declines them; otherwise `None` (taking is optimal).
    fn chain_end(&self, lines: u64, b: usize, take: usize) -> Option<usize> {
        let n = self.other_box(take, b);
        if n == NO_BOX as usize || self.geo.sides(lines, n) != 2 {
            return None;
        }
        let far = (self.geo.box_lines[n] & !lines & !(1 << take)).trailing_zeros() as usize;
        let next = self.other_box(far, n);
        if next == NO_BOX as usize || self.geo.sides(lines, next) <= 1 {
            return Some(far); // last two boxes of a chain
        }
        if self.geo.sides(lines, next) == 3 {
            return None; // three boxes, both ends open: take them all
        }
        // `next` has two sides: a loop's last four if the box after it is
        // capturable.
        let far2 = (self.geo.box_lines[next] & !lines & !(1 << far)).trailing_zeros() as usize;
        let end = self.other_box(far2, next);
        (end != NO_BOX as usize && end != b && self.geo.sides(lines, end) == 3).then_some(far)
    }
}
