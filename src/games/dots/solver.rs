//! Exact Dots and Boxes solver: the net number of the *remaining* boxes the
//! side to move gets with best play. That value depends only on the drawn
//! lines, so scores already made never enter the search.
//!
//! Null-window alpha-beta (negamax, fail-soft; [`super::root`] drives the
//! tests) with:
//! - a transposition table shared by the threads without locks (exact
//!   keys in 8-byte slots, four-slot buckets, deeper entries kept, on huge
//!   pages where the kernel grants them; with 16-byte slots in two-slot
//!   buckets a 4×4 position with 36 lines left took 677 M nodes in 256 MiB,
//!   now 406 M), keyed by the lines up to board symmetry (4 for rectangles, 8
//!   for squares) and with the two border lines of a corner box counted as
//!   one (one drawn is one drawn, whichever), storing lower and upper
//!   bounds and the line that proved them. The corner rule alone cut the
//!   nodes of 3×4 from empty from 64 M to 21 M. Each node carries its
//!   lines' images under every symmetry ([`SymmetricKeys`]), which a drawn
//!   line updates with one OR each, so no node maps its whole position
//!   (4×4 with 32 lines left: 0.61× the time of mapping it at every node);
//! - enhanced transposition cutoffs with 18 or more lines left: a safe
//!   line whose position the table already bounds enough is a cutoff
//!   without a search (3×4: 12.5 s → 9.6 s), and so is a short handout (a
//!   lone box, or a chain of two by its middle) whose position after the
//!   opponent's forced capture is (4×4, 34 lines left: 116 M → 95 M nodes,
//!   25.4 s → 20.6 s; with 32 left 59.2 M → 49.5 M nodes, 0.92–1.0× the
//!   time); a short handout whose position the table bounds too high for
//!   it to raise alpha is left out of the sacrifices (five positions
//!   below: 62.2 M → 42.0 M nodes, 0.92× the time);
//! - the capture rule of Barker & Korf (2012): when a box can be taken,
//!   taking it is optimal unless it starts the last two boxes of a chain or
//!   the last four of an opened loop; there only "take" and the
//!   double-dealing decline (draw the far line of the next box) are tried,
//!   and with several such chain ends the decline is left to the last one;
//! - move reductions: opening a long chain or a loop is tried at one line
//!   only, a lone box at one of its two lines, and a chain of two boxes
//!   at its middle line only (the hard-hearted handout: the taker's one
//!   sensible answer, take both and move on, is also open after an end
//!   line, where declining is too; five positions below: 74.8 M → 64.3 M
//!   nodes, 0.95× the time); a loony move (a long chain or a loop opened)
//!   is not searched when its bound, `2 - size` (`4 - size` for a loop),
//!   cannot raise alpha (4×4, four positions with 32 lines left: 67.6 M →
//!   59.2 M nodes); every value has the parity of the boxes left, so a
//!   bound of the other parity is one less (with one 34-line position
//!   added to those four: 82.4 M → 76.2 M nodes);
//! - move ordering: the table's line, then safe lines, those nearest the
//!   centre of the board first (Barker and Korf's center bias; 4×4, four
//!   positions with 32 lines left: 0.64× the time of ordering by the
//!   fewest safe lines left to the opponent, the order before), at equal
//!   distance those whose boxes have the most sides (76.2 M → 74.8 M nodes
//!   on the five positions), then the sacrifices that hand over the fewest
//!   boxes (a history heuristic as the next key, dropped since: 4×4 from
//!   empty on one thread 226.8 M → 221.8 M nodes, the five positions 42.0 M
//!   → 41.3 M and 0.96× the time, two threads 0.99× the time, three
//!   pairs); safe lines whose position the table shows cannot raise alpha
//!   are not searched (with 18 lines left or more, where the children are
//!   looked up for enhanced cutoffs anyway); the sacrifices
//!   and their chain analysis are only generated when no safe line cut
//!   off. Trying the one-box sacrifices before the safe lines, killer
//!   lines per depth, or a countermove (the line that last refuted the
//!   previous line, first among the safe ones: 59.2 M → 78.5 M nodes on the
//!   positions above), the sacrifices first where one safe line or none is
//!   left (74.8 M → 81.1 M), or the safe lines the enhanced cutoff looks up
//!   ordered by their table bounds (74.8 M → 80.6–82.9 M) measured worse.
//!   Enhanced cutoffs from 16 lines left instead of 18 save 6 % of the
//!   nodes but no time (4×4 from empty, two threads: 1.03× the time,
//!   median of two pairs).
//!
//! Every reduction is checked against plain minimax in `tests/dots.rs`.

use super::geometry::{Geometry, NO_BOX, SymmetricKeys};
use crate::game::SolveBudget;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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

/// A position in the search: its lines and their symmetric keys, which
/// each drawn line updates (see [`SymmetricKeys`]).
#[derive(Clone, Copy)]
struct Node {
    lines: u64,
    keys: SymmetricKeys,
}

impl Node {
    fn new(geo: &Geometry, lines: u64) -> Node {
        Node {
            lines,
            keys: geo.keys(lines),
        }
    }

    /// The position after `line` is drawn.
    #[inline]
    fn with(&self, geo: &Geometry, line: usize) -> Node {
        Node {
            lines: self.lines | 1 << line,
            keys: geo.keys_with(&self.keys, self.lines, line),
        }
    }
}

/// The components of two-sided boxes of a position (each a path or a
/// cycle), by [`Solver::components`].
struct Components {
    /// The component of every box ([`NO_BOX`] for boxes not two-sided).
    of_box: [u8; 32],
    /// The loops.
    loops: u32,
    /// Boxes in each component.
    sizes: [u8; 32],
}

impl Components {
    /// The component drawing `line` opens (`line` borders one of its
    /// boxes), and whether `line` lies between two of its boxes.
    fn opened_by(&self, geo: &Geometry, line: usize) -> Option<(u8, bool)> {
        let of = |b: u8| {
            (b != NO_BOX)
                .then(|| self.of_box[b as usize])
                .filter(|&c| c != NO_BOX)
        };
        let [p, q] = geo.line_boxes[line];
        let (cp, cq) = (of(p), of(q));
        cp.or(cq).map(|c| (c, cp.is_some() && cp == cq))
    }
}

/// What the table says of a full node's safe lines, by
/// [`Solver::scan_safe_children`].
enum SafeScan {
    /// This line scores at least this much: a beta cutoff.
    Cutoff(i32, u8),
    /// The first lines of the list that still need a search, and the most
    /// any dropped line scores (`i32::MIN` when none was dropped).
    Kept(usize, i32),
}

/// What the table says of a full node's short handouts, by
/// [`Solver::scan_handouts`].
enum HandoutScan {
    /// This handout scores at least this much: a beta cutoff.
    Cutoff(i32, u8),
    /// The handout lines that cannot raise alpha, and the most they score
    /// (`i32::MIN` when none).
    Dropped(u64, i32),
}

/// No move stored in a table entry.
const NO_MOVE: u8 = u8::MAX;

/// Undrawn lines from which a node first looks for a cutoff among its
/// children's table entries (enhanced transposition cutoff): near the
/// root a subtree saved is worth the probes.
const ETC_MIN_EMPTY: u32 = 18;

/// What the table knows of a position: bounds on its value, how far from
/// the end it is, and the line that proved the bound (in the canonical
/// orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bounds {
    lower: i8,
    upper: i8,
    /// Undrawn lines: entries nearer the root are worth more.
    depth: u8,
    best: u8,
}

/// Bits of a slot that hold the [`Bounds`]: six each for the two bounds
/// (offset by 32), the depth and the line.
const DATA_BITS: u32 = 24;

/// Bits of a slot that hold the key's tag: the key's bits that the bucket
/// index does not give.
const TAG_BITS: u32 = 64 - DATA_BITS;

/// The line field of a slot that holds no move.
const NO_LINE_FIELD: u64 = 63;

impl Bounds {
    /// The bounds in [`DATA_BITS`] bits; never zero, since a stored
    /// position has at least one undrawn line (zero marks an empty slot).
    fn pack(self) -> u64 {
        let bound = |v: i8| (i64::from(v).clamp(-32, 31) + 32) as u64;
        let best = if self.best == NO_MOVE {
            NO_LINE_FIELD
        } else {
            u64::from(self.best)
        };
        bound(self.lower) | bound(self.upper) << 6 | u64::from(self.depth & 63) << 12 | best << 18
    }

    fn unpack(data: u64) -> Bounds {
        let bound = |v: u64| ((v & 63) as i8) - 32;
        let best = (data >> 18 & 63) as u8;
        Bounds {
            lower: bound(data),
            upper: bound(data >> 6),
            depth: (data >> 12 & 63) as u8,
            best: if u64::from(best) == NO_LINE_FIELD {
                NO_MOVE
            } else {
                best
            },
        }
    }
}

/// Slots per bucket: four of 8 bytes, half a cache line.
const WAYS: usize = 4;

/// Four slots, aligned so that a bucket never straddles two cache lines.
#[derive(Default)]
#[repr(align(32))]
struct Bucket {
    slots: [AtomicU64; WAYS],
}

/// The solver's transposition table, shared by every thread of a solve
/// without locks. A slot is one 8-byte word: the key's tag and the
/// bounds, written and read whole, so two threads writing at once
/// leave one entry or the other, never a mix. The key is exact: a
/// bijective scramble of the canonical lines gives the bucket (its high
/// bits) and the tag (its low 40 bits), which together are all
/// of it; a board with more than 40 lines needs `2^(lines - 40)` buckets
/// for that, which [`Table::new`] grants at the least.
pub struct Table {
    buckets: Vec<Bucket>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
    /// Keys are below `2^key_bits` (the board's lines).
    key_bits: u32,
}

impl Table {
    /// A table of at most `bytes` (at least 256 slots, a power of two, and
    /// at least the buckets an exact key needs) for keys of boards of
    /// `lines` lines, or an error when the memory is refused.
    pub fn new(bytes: usize, lines: usize) -> Result<Table, String> {
        let key_bits = (lines as u32).clamp(1, 63);
        let wanted = (bytes / std::mem::size_of::<Bucket>())
            .max(256 / WAYS)
            .max(1 << key_bits.saturating_sub(TAG_BITS));
        let bucket_bits = usize::BITS - 1 - wanted.leading_zeros();
        let count = 1usize << bucket_bits;
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count).map_err(|_| {
            format!(
                "cannot allocate a {} MiB solver table",
                (count * std::mem::size_of::<Bucket>()) >> 20
            )
        })?;
        crate::memory::advise_huge_pages(&mut buckets);
        buckets.resize_with(count, Bucket::default);
        Ok(Table {
            buckets,
            bucket_bits,
            key_bits,
        })
    }

    /// Bytes a table for a position with `empty` undrawn lines is worth at
    /// most: 8 bytes a slot, two slots per 2^7 positions of its size, from
    /// 64 KiB to 16 GiB. Larger is slower: 3×4 from empty (31 lines) took
    /// 6.8 s on one thread with 256 MiB and 11.5 s with 1 GiB (page
    /// clearing, address translation misses). [`DEFAULT_TABLE_BYTES`] caps
    /// what is taken without being asked.
    pub fn bytes_for(empty: u32) -> usize {
        16usize << empty.saturating_sub(7).clamp(12, 30)
    }

    /// The scrambled key: a bijection of the `key_bits`-bit keys (odd
    /// multipliers and a shift-xor, each invertible modulo `2^key_bits`).
    #[inline]
    fn scrambled(&self, key: u64) -> u64 {
        let mask = u64::MAX >> (64 - self.key_bits);
        let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        x ^= x >> (self.key_bits / 2 + 1);
        x.wrapping_mul(0xD6E8_FEB8_6659_FD93) & mask
    }

    /// The bucket and the tag of `key`.
    #[inline]
    fn place(&self, key: u64) -> (usize, u64) {
        let x = self.scrambled(key);
        let index = x >> self.key_bits.saturating_sub(self.bucket_bits);
        let bucket = index as usize & ((1 << self.bucket_bits) - 1);
        (bucket, x & (u64::MAX >> DATA_BITS))
    }

    /// Asks the processor to start loading the bucket of `key` (a hint;
    /// nothing where the architecture has none).
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = &self.buckets[self.place(key).0];
            // SAFETY: prefetching is only a hint and never faults; the
            // pointer is into this table. SSE is part of every x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((bucket as *const Bucket).cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn probe(&self, key: u64) -> Option<Bounds> {
        let (bucket, tag) = self.place(key);
        self.buckets[bucket].slots.iter().find_map(|slot| {
            let word = slot.load(Ordering::Relaxed);
            holds(word, tag).then(|| Bounds::unpack(word))
        })
    }

    /// Stores `bounds` for `key`: over the same key, else over the
    /// shallowest entry of the bucket (an empty slot is the shallowest).
    fn store(&self, key: u64, bounds: Bounds) {
        let (bucket, tag) = self.place(key);
        let slots = &self.buckets[bucket].slots;
        let mut target = 0;
        let mut shallowest = u8::MAX;
        for (i, slot) in slots.iter().enumerate() {
            let word = slot.load(Ordering::Relaxed);
            if holds(word, tag) {
                target = i;
                break;
            }
            let depth = if word == 0 {
                0
            } else {
                Bounds::unpack(word).depth
            };
            if depth < shallowest {
                shallowest = depth;
                target = i;
            }
        }
        slots[target].store(tag << DATA_BITS | bounds.pack(), Ordering::Relaxed);
    }
}

/// Whether a slot's `word` holds the entry of the key with `tag` (an empty
/// slot is zero, which no entry is).
#[inline]
fn holds(word: u64, tag: u64) -> bool {
    word != 0 && word >> DATA_BITS == tag
}

/// The most memory a solver table takes without being asked for more
/// (`agon solve` without `--hash`): 1 GiB. 4×4 from empty on two threads
/// (AMD EPYC, 2 cores) searched 746 M nodes in 100 s with 512 MiB, 505 M
/// in 75 s with 1 GiB, 491 M in 89 s with 2 GiB and 498 M in 96 s with
/// 4 GiB: past 1 GiB the table holds what the proof needs, and each
/// probe of a larger one costs more (random reads measured there: 170 ns
/// within 256 MiB, 250 ns within 1 GiB, 290 ns within 2 GiB).
pub const DEFAULT_TABLE_BYTES: usize = 1 << 30;

/// A solver for one board size over a (shared) table.
pub struct Solver<'a> {
    geo: &'static Geometry,
    table: &'a Table,
    /// Nodes searched so far.
    pub nodes: u64,
    budget: Option<&'a SolveBudget<'a>>,
    aborted: bool,
    /// The last key of the move order, which breaks the ties left by the
    /// others: zero for the first thread, random for the others so that
    /// they search in a different order ([`Solver::vary_order`]).
    tiebreak: [u32; 64],
    /// Each line's squared distance from the centre of the board (in half
    /// box widths), the first key of the safe lines' order.
    centrality: [u32; 64],
    /// Set by another thread when the test in hand is no longer needed.
    abandon: Option<&'a AtomicBool>,
}

impl<'a> Solver<'a> {
    /// A solver over `table` that gives up when `budget` expires.
    pub fn new(
        geo: &'static Geometry,
        table: &'a Table,
        budget: Option<&'a SolveBudget<'a>>,
    ) -> Solver<'a> {
        Solver {
            geo,
            table,
            nodes: 0,
            budget,
            aborted: false,
            tiebreak: [0; 64],
            centrality: centrality(geo),
            abandon: None,
        }
    }

    /// Perturbs the move ordering by `seed` (0 keeps it), so that threads
    /// working on one test search different moves first.
    pub fn vary_order(&mut self, seed: u64) {
        if seed == 0 {
            return;
        }
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for tie in &mut self.tiebreak {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *tie = (state & 0xFF) as u32;
        }
    }

    /// Makes the next tests give up (answer `None`) once `flag` is set.
    pub fn abandon_when(&mut self, flag: &'a AtomicBool) {
        self.abandon = Some(flag);
    }

    /// The nodes searched since the last call.
    pub fn take_nodes(&mut self) -> u64 {
        std::mem::take(&mut self.nodes)
    }

    /// Whether drawing `line` scores at least `target` (the value for the
    /// side to move, including the boxes it completes): a null-window test.
    /// `None` when the budget ran out or the test was abandoned.
    pub fn move_reaches(&mut self, lines: u64, line: usize, target: i32) -> Option<bool> {
        self.move_value(lines, line, target - 1, target)
            .map(|value| value >= target)
    }

    /// What drawing `line` scores (the value for the side to move,
    /// including the boxes it completes), fail-soft within the window
    /// `(alpha, beta)`: exact inside it, else a bound on its side. `None`
    /// when the budget ran out or the search was abandoned.
    pub fn move_value(&mut self, lines: u64, line: usize, alpha: i32, beta: i32) -> Option<i32> {
        self.aborted = false;
        let child = Node::new(self.geo, lines).with(self.geo, line);
        let gained = self.geo.completes(lines, line) as i32;
        let value = if gained > 0 {
            gained + self.search(child, alpha - gained, beta - gained)
        } else {
            -self.search(child, -beta, -alpha)
        };
        (!self.aborted).then_some(value)
    }

    fn remaining(&self, lines: u64) -> i32 {
        (self.geo.boxes as u32 - self.geo.completed(lines)) as i32
    }

    fn out_of_time(&mut self) -> bool {
        if self.nodes & 0x3FFF == 0
            && (self.budget.is_some_and(|b| b.expired())
                || self.abandon.is_some_and(|a| a.load(Ordering::Relaxed)))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Fail-soft negamax on the remaining boxes.
    fn search(&mut self, node: Node, alpha: i32, beta: i32) -> i32 {
        if node.lines == self.geo.full {
            return 0;
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        match self.captures(node.lines) {
            Captures::Take(line, k) => {
                k + self.search(node.with(self.geo, line), alpha - k, beta - k)
            }
            Captures::Choice(take, decline) => self.choice(node, take, decline, alpha, beta),
            Captures::Several(takes, n) => self.several(node, &takes[..n], alpha, beta),
            Captures::None => self.full_node(node, alpha, beta),
        }
    }

    /// [`Solver::search`] of a position known to have no box to take (the
    /// child of a full node by a safe line).
    fn search_quiet(&mut self, node: Node, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        self.full_node(node, alpha, beta)
    }

    /// The end of a chain or loop: take the box or hand the rest over.
    /// Both lead to the same position once the last boxes are taken (by
    /// this side or the other), with this side to move after taking and
    /// the other after declining, so the value is `|t|` for the value `t`
    /// of taking: never below zero.
    fn choice(&mut self, node: Node, take: usize, decline: usize, alpha: i32, beta: i32) -> i32 {
        if beta <= 0 {
            // |t| is at least 0, and has the parity of the boxes left.
            return self.remaining(node.lines) & 1;
        }
        let taken = 1 + self.search(node.with(self.geo, take), alpha - 1, beta - 1);
        if taken >= beta {
            return taken;
        }
        let a = alpha.max(taken);
        let declined = -self.search(node.with(self.geo, decline), -beta, -a);
        taken.max(declined)
    }

    /// Several chain ends: the one declined (if any) must be the last one
    /// dealt with, so try taking first at each of them.
    fn several(&mut self, node: Node, takes: &[usize], alpha: i32, beta: i32) -> i32 {
        let mut best = i32::MIN;
        for &take in takes {
            let a = alpha.max(best);
            let v = 1 + self.search(node.with(self.geo, take), a - 1, beta - 1);
            best = best.max(v);
            if best >= beta {
                break;
            }
        }
        best
    }

    /// A position where nothing can be taken: every line passes the turn.
    fn full_node(&mut self, node: Node, mut alpha: i32, mut beta: i32) -> i32 {
        let lines = node.lines;
        let (key, sym) = self.geo.canonical_of(&node.keys);
        let remaining = self.remaining(lines);
        let empty = (self.geo.full & !lines).count_ones();
        let known = self.table.probe(key);
        let mut first = None;
        if let Some(entry) = known {
            let (lo, hi) = (i32::from(entry.lower), i32::from(entry.upper));
            if lo >= beta || lo == hi {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
            if entry.best != NO_MOVE {
                first = self
                    .undrawn_equivalent(lines, self.geo.from_canonical(sym, entry.best as usize));
            }
        }
        if alpha >= remaining {
            return remaining;
        }
        if beta <= -remaining {
            return -remaining;
        }
        let mut moves = [0u8; 64];
        let mut safe = self.safe_moves(lines, &mut moves);
        let mut best = (-remaining - 1, NO_MOVE);
        // Handouts the table shows cannot raise alpha.
        let mut dropped = 0u64;
        if empty >= ETC_MIN_EMPTY {
            let first_is_safe = first.is_some_and(|l| moves[..safe].contains(&l));
            let cutoff = match self.scan_safe_children(node, &mut moves, safe, alpha, beta) {
                SafeScan::Cutoff(v, line) => Some((v, line)),
                SafeScan::Kept(kept, failed) => {
                    safe = kept;
                    best.0 = best.0.max(failed);
                    None
                }
            };
            let cutoff = cutoff.or_else(|| {
                let scan = self.scan_handouts(node, alpha, beta);
                match scan {
                    HandoutScan::Cutoff(v, line) => Some((v, line)),
                    HandoutScan::Dropped(lines, failed) => {
                        dropped = lines;
                        best.0 = best.0.max(failed);
                        None
                    }
                }
            });
            if let Some((v, line)) = cutoff {
                self.save(key, sym, known, (v, remaining), empty, line);
                return v;
            }
            // The table's line is no better than the others once the
            // table shows that it fails (a safe line dropped by the scan, or
            // a handout dropped).
            let shown_failing =
                |l: u8| (first_is_safe && !moves[..safe].contains(&l)) || (dropped >> l) & 1 == 1;
            if first.is_some_and(shown_failing) {
                first = None;
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        // The table's move first, then safe lines; the sacrifices (and
        // their chain analysis) are only generated when no safe line
        // produced a cutoff.
        let mut cut = false;
        if let Some(line) = first {
            cut = self.try_moves(node, &[line], false, alpha, beta, &mut best);
        }
        if !cut {
            let safe = remove(&mut moves, safe, first);
            cut = self.try_moves(node, &moves[..safe], true, alpha, beta, &mut best);
        }
        if !cut {
            // The table's line was searched first.
            let skip = dropped | first.map_or(0, |l| 1 << l);
            let count = self.sacrifices(
                lines,
                remaining,
                alpha.max(best.0),
                skip,
                &mut moves,
                &mut best.0,
            );
            self.try_moves(node, &moves[..count], false, alpha, beta, &mut best);
        }
        if self.aborted {
            return best.0;
        }
        let bounds = if best.0 <= alpha0 {
            (-remaining, best.0)
        } else if best.0 >= beta0 {
            (best.0, remaining)
        } else {
            (best.0, best.0)
        };
        self.save(key, sym, known, bounds, empty, best.1);
        best.0
    }

    /// `line` if undrawn, else the corner line it stands for (the table
    /// merges positions that differ by a corner's border lines).
    fn undrawn_equivalent(&self, lines: u64, line: usize) -> Option<u8> {
        let undrawn = |l: usize| lines >> l & 1 == 0;
        if undrawn(line) {
            return Some(line as u8);
        }
        self.geo
            .corner_partner(line)
            .filter(|&l| undrawn(l))
            .map(|l| l as u8)
    }

    /// Stores `(lower, upper)` for the position of `key`, tightened by what
    /// the table knew, with its best `line` (in the position's orientation).
    fn save(
        &self,
        key: u64,
        sym: usize,
        known: Option<Bounds>,
        (mut lower, mut upper): (i32, i32),
        empty: u32,
        line: u8,
    ) {
        if let Some(entry) = known {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        let best = if line == NO_MOVE {
            known.map_or(NO_MOVE, |e| e.best)
        } else {
            self.geo.to_canonical(sym, line as usize) as u8
        };
        self.table.store(
            key,
            Bounds {
                lower: lower as i8,
                upper: upper.max(lower) as i8,
                depth: empty as u8,
                best,
            },
        );
    }

    /// Looks up the positions after each of the `count` safe lines of
    /// `moves` in the table. A line whose position the table bounds at or
    /// below `-beta` for the opponent is a cutoff without a search
    /// (enhanced transposition cutoff: a safe line takes nothing and
    /// passes the turn); a line whose position it bounds at or above
    /// `-alpha` cannot raise alpha and is dropped from `moves`, keeping
    /// the order of the others (4×4, four positions with 32 lines left:
    /// 49.5 M → 43.1 M nodes).
    fn scan_safe_children(
        &self,
        node: Node,
        moves: &mut [u8; 64],
        count: usize,
        alpha: i32,
        beta: i32,
    ) -> SafeScan {
        // All the keys first and their buckets asked for, so that the
        // memory round trips overlap instead of following each other.
        let mut keys = [0u64; 64];
        for (key, &line) in keys.iter_mut().zip(&moves[..count]) {
            *key = self
                .geo
                .canonical_of(&node.with(self.geo, line as usize).keys)
                .0;
            self.table.prefetch(*key);
        }
        let mut kept = 0;
        let mut failed = i32::MIN;
        for i in 0..count {
            let line = moves[i];
            if let Some(entry) = self.table.probe(keys[i]) {
                let (most, least) = (-i32::from(entry.lower), -i32::from(entry.upper));
                if least >= beta {
                    return SafeScan::Cutoff(least, line);
                }
                if most <= alpha {
                    failed = failed.max(most);
                    continue;
                }
            }
            moves[kept] = line;
            kept += 1;
        }
        SafeScan::Kept(kept, failed)
    }

    /// Enhanced transposition cutoff by a short handout: giving away a
    /// lone two-sided box, or a chain of two by its middle line, leaves the
    /// opponent nothing better than taking it (Barker and Korf's rule) and
    /// moving on in a position the table may already bound; the handout is
    /// a cutoff when that bound is low enough, and is not searched when it
    /// is high enough that the handout cannot score above `alpha`.
    fn scan_handouts(&self, node: Node, alpha: i32, beta: i32) -> HandoutScan {
        let lines = node.lines;
        let two_sided = |b: u8| b != NO_BOX && self.geo.sides(lines, b as usize) == 2;
        let mut handouts = [(0u64, 0i32, 0u8); 32];
        let mut n = 0;
        for b in 0..self.geo.boxes {
            if self.geo.sides(lines, b) != 2 {
                continue;
            }
            let open = self.geo.box_lines[b] & !lines;
            let (first, second) = (
                open.trailing_zeros() as usize,
                63 - open.leading_zeros() as usize,
            );
            let across = |line: usize| self.other_box(line, b) as u8;
            let (n1, n2) = (across(first), across(second));
            let after = match (two_sided(n1), two_sided(n2)) {
                (false, false) => {
                    Some((node.with(self.geo, first).with(self.geo, second), 1, first))
                }
                (true, false) | (false, true) => {
                    // A chain of two when the partner's other line leads out.
                    let (middle, partner) = if two_sided(n1) {
                        (first, n1)
                    } else {
                        (second, n2)
                    };
                    let far = self.geo.box_lines[partner as usize] & !lines & !(1 << middle);
                    let far_line = far.trailing_zeros() as usize;
                    let beyond = self.other_box(far_line, partner as usize) as u8;
                    let end = if middle == first { second } else { first };
                    (b < partner as usize && !two_sided(beyond)).then(|| {
                        let taken = node
                            .with(self.geo, middle)
                            .with(self.geo, end)
                            .with(self.geo, far_line);
                        (taken, 2, middle)
                    })
                }
                (true, true) => None,
            };
            if let Some((taken, boxes, line)) = after
                && taken.lines != self.geo.full
            {
                let key = self.geo.canonical_of(&taken.keys).0;
                self.table.prefetch(key);
                handouts[n] = (key, boxes, line as u8);
                n += 1;
            }
        }
        let mut dropped = 0u64;
        let mut failed = i32::MIN;
        for &(key, boxes, line) in &handouts[..n] {
            let Some(entry) = self.table.probe(key) else {
                continue;
            };
            let (least, most) = (
                -boxes - i32::from(entry.upper),
                -boxes - i32::from(entry.lower),
            );
            if least >= beta {
                return HandoutScan::Cutoff(least, line);
            }
            if most <= alpha {
                dropped |= 1 << line;
                failed = failed.max(most);
            }
        }
        HandoutScan::Dropped(dropped, failed)
    }

    /// Searches `moves` (all safe lines if `safe`) in order, raising `best`
    /// (value, line); true on a beta cutoff.
    fn try_moves(
        &mut self,
        node: Node,
        moves: &[u8],
        safe: bool,
        alpha: i32,
        beta: i32,
        best: &mut (i32, u8),
    ) -> bool {
        for &line in moves {
            let child = node.with(self.geo, line as usize);
            let (a, b) = (-beta, -alpha.max(best.0));
            let v = if safe {
                -self.search_quiet(child, a, b)
            } else {
                -self.search(child, a, b)
            };
            if v > best.0 {
                *best = (v, line);
                if v >= beta {
                    return true;
                }
            }
        }
        false
    }

    /// The lines that give no box a third side, those nearest the centre
    /// first, then those whose boxes have the most sides, then by the
    /// tie-break. Returns the count.
    fn safe_moves(&self, lines: u64, out: &mut [u8; 64]) -> usize {
        // A line is unsafe when one of its boxes has two sides already.
        let mut unsafe_lines = 0u64;
        let mut box_sides = [0u32; 32];
        for (count, &box_lines) in box_sides.iter_mut().zip(&self.geo.box_lines) {
            *count = (lines & box_lines).count_ones();
            if *count >= 2 {
                unsafe_lines |= box_lines;
            }
        }
        let mut keyed = [0u64; 64];
        let mut n = 0;
        let mut rest = self.geo.full & !lines & !unsafe_lines;
        while rest != 0 {
            let line = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let sides: u32 = self.geo.line_boxes[line]
                .iter()
                .filter(|&&b| b != NO_BOX)
                .map(|&b| box_sides[b as usize])
                .sum();
            // Nearest the centre first; at equal distance, the line whose
            // boxes have the most sides already (at most four in all, and
            // distances differ by more than that once multiplied by 8).
            let first = self.centrality[line] * 8 + 4 - sides;
            keyed[n] = order_key(first, self.tiebreak[line], line);
            n += 1;
        }
        keyed[..n].sort_unstable();
        for (o, &key) in out.iter_mut().zip(&keyed[..n]) {
            *o = key as u8;
        }
        n
    }

    /// The sacrifices (lines giving a box its third side), one per
    /// equivalent opening, the fewest boxes handed over first, leaving out
    /// the loony moves that cannot score above `alpha`
    /// ([`Solver::loony_bound`]); `pruned` is raised to the best of their
    /// bounds (what a fail-low may report for them); `remaining` is the
    /// boxes not yet taken, whose parity every value has. The lines of the
    /// set `skip` (searched already, or shown by the table to fail low) are
    /// left out too, after the equivalent openings they stand for.
    fn sacrifices(
        &self,
        lines: u64,
        remaining: i32,
        alpha: i32,
        skip: u64,
        out: &mut [u8; 64],
        pruned: &mut i32,
    ) -> usize {
        let mut keyed = [0u64; 64];
        let mut n = 0;
        let mut free = self.geo.full & !lines;
        let components = self.components(lines);
        let mut opened = 0u32;
        while free != 0 {
            let line = free.trailing_zeros() as usize;
            free &= free - 1;
            let safe = self.geo.line_boxes[line]
                .iter()
                .all(|&b| b == NO_BOX || self.geo.sides(lines, b as usize) < 2);
            if safe
                || self.redundant_opening(line, &components, &mut opened)
                || skip >> line & 1 == 1
            {
                continue;
            }
            if let Some(bound) = self.loony_bound(line, &components, remaining)
                && bound <= alpha
            {
                *pruned = (*pruned).max(bound);
                continue;
            }
            keyed[n] = order_key(self.giveaway(lines, line).into(), self.tiebreak[line], line);
            n += 1;
        }
        keyed[..n].sort_unstable();
        for (o, &key) in out.iter_mut().zip(&keyed[..n]) {
            *o = key as u8;
        }
        n
    }

    /// Whether `line` opens a chain or loop in a way already covered by
    /// another line: opening a long chain (three boxes or more) or a loop
    /// anywhere is equivalent (the opponent takes it all or all but the
    /// last two or four), and so are the two lines of a lone box; a chain
    /// of two boxes opened at an end is dominated by its middle line (see
    /// the module doc; checked against brute force in `tests/dots.rs`).
    /// `opened` records the components already opened once.
    fn redundant_opening(&self, line: usize, components: &Components, opened: &mut u32) -> bool {
        let Some((c, middle)) = components.opened_by(self.geo, line) else {
            return false;
        };
        if components.sizes[c as usize] == 2 {
            // Only the middle line of a chain of two (never a loop).
            return !middle;
        }
        let seen = *opened >> c & 1 == 1;
        *opened |= 1 << c;
        seen
    }

    /// Components of two-sided boxes (each a path or a cycle): see
    /// [`Components`].
    fn components(&self, lines: u64) -> Components {
        let mut component = [NO_BOX; 32];
        let mut loops = 0u32;
        let mut sizes = [0u8; 32];
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
            if ends == 0 {
                loops |= 1 << count;
            }
            sizes[count as usize] = size;
            count += 1;
        }
        Components {
            of_box: component,
            loops,
            sizes,
        }
    }

    /// The most the side to move can get by drawing `line` when it opens
    /// a long chain or a loop (a loony move): the opponent can take every
    /// box offered and move next, or all but the last two of a chain (four
    /// of a loop) and make the mover move next in the same position, so it
    /// gets at least `size - 2` (`size - 4`) whatever that position is
    /// worth; and since a value has the parity of the `remaining` boxes,
    /// one less when that bound has the other parity (4×4, four positions
    /// with 32 lines left and one with 34: 82.4 M → 76.2 M nodes). `None`
    /// for other lines.
    fn loony_bound(&self, line: usize, components: &Components, remaining: i32) -> Option<i32> {
        let (c, _) = components.opened_by(self.geo, line)?;
        let size = i32::from(components.sizes[c as usize]);
        let bound = if components.loops >> c & 1 == 1 {
            4 - size
        } else if size >= 3 {
            2 - size
        } else {
            return None;
        };
        Some(bound - (bound - remaining).rem_euclid(2))
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

/// The squared distance of each line's middle from the centre of the
/// board, in half box widths.
fn centrality(geo: &Geometry) -> [u32; 64] {
    let mut distance = [0; 64];
    for (d, &[(x1, y1), (x2, y2)]) in distance.iter_mut().zip(&geo.line_dots) {
        let dx = i32::from(x1 + x2) - geo.cols as i32;
        let dy = i32::from(y1 + y2) - geo.rows as i32;
        *d = (dx * dx + dy * dy) as u32;
    }
    distance
}

/// A sort key ordering lines by `first`, then by `tiebreak`, then by line
/// (all ascending): one integer, which sorts faster than a tuple.
#[inline]
fn order_key(first: u32, tiebreak: u32, line: usize) -> u64 {
    u64::from(first.min(0xFF_FFFF)) << 40 | u64::from(tiebreak) << 8 | line as u64
}

/// Removes `line` (if given) from the first `count` of `moves`, keeping
/// their order; returns the new count.
fn remove(moves: &mut [u8; 64], count: usize, line: Option<u8>) -> usize {
    let Some(line) = line else {
        return count;
    };
    match moves[..count].iter().position(|&m| m == line) {
        Some(at) => {
            moves.copy_within(at + 1..count, at);
            count - 1
        }
        None => count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn bounds(lower: i8, upper: i8, depth: u8, best: u8) -> Bounds {
        Bounds {
            lower,
            upper,
            depth,
            best,
        }
    }

    #[test]
    fn bounds_survive_packing() {
        for (lo, hi) in [(-25, 25), (-1, 3), (0, 0), (24, 25), (-26, -26)] {
            for depth in [1, 17, 60] {
                for best in [0, 39, 59, NO_MOVE] {
                    let b = bounds(lo, hi, depth, best);
                    let packed = b.pack();
                    assert!(packed != 0 && packed >> DATA_BITS == 0);
                    assert_eq!(Bounds::unpack(packed), b);
                }
            }
        }
    }

    /// Bucket and tag together give the key back: every key of a small
    /// key space lands on its own place, and so do keys of a 60-line board
    /// differing only in the bits above the tag in the smallest table.
    #[test]
    fn the_place_of_a_key_is_the_key() {
        let small = Table::new(0, 20).expect("table");
        let places: HashSet<(usize, u64)> = (0..1u64 << 20).map(|k| small.place(k)).collect();
        assert_eq!(places.len(), 1 << 20);
        let wide = Table::new(0, 60).expect("table");
        assert!(wide.bucket_bits >= 20);
        let places: HashSet<(usize, u64)> = (0..1u64 << 16)
            .map(|high| wide.place(high << 44 | 0x5_5555_5555))
            .collect();
        assert_eq!(places.len(), 1 << 16);
    }

    /// The value of the remaining boxes for the side to move, by plain
    /// minimax over every line.
    fn brute(geo: &Geometry, lines: u64, memo: &mut std::collections::HashMap<u64, i32>) -> i32 {
        if lines == geo.full {
            return 0;
        }
        if let Some(&v) = memo.get(&lines) {
            return v;
        }
        let mut best = i32::MIN;
        let mut free = geo.full & !lines;
        while free != 0 {
            let line = free.trailing_zeros() as usize;
            free &= free - 1;
            let k = geo.completes(lines, line) as i32;
            let after = lines | 1 << line;
            let v = if k > 0 {
                k + brute(geo, after, memo)
            } else {
                -brute(geo, after, memo)
            };
            best = best.max(v);
        }
        memo.insert(lines, best);
        best
    }

    /// Every window's answer is a sound fail-soft bound: at or below alpha
    /// an upper bound, at or above beta a lower bound, between them the
    /// value. The windows follow one another over one table, as the root's
    /// tests do, so a bound the search returns or stores too tight (a
    /// pruning bound of the wrong parity, a chain end's value) is caught.
    #[test]
    fn every_window_gets_a_sound_fail_soft_bound() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut random = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut checked = 0;
        for (rows, cols, drawn) in [(2, 2, 3), (2, 3, 5), (3, 3, 9), (2, 4, 7), (3, 3, 11)] {
            let geo = Geometry::get(rows, cols);
            let mut memo = std::collections::HashMap::new();
            for _ in 0..12 {
                let mut lines = 0u64;
                while lines.count_ones() < drawn {
                    lines |= 1 << random(geo.lines as u64);
                }
                if geo.completed(lines) > 0 {
                    continue;
                }
                let truth = brute(geo, lines, &mut memo);
                let table = Table::new(1 << 16, geo.lines).expect("table");
                let mut solver = Solver::new(geo, &table, None);
                let remaining = geo.boxes as i32;
                for alpha in -remaining - 1..=remaining {
                    let v = solver.search(Node::new(geo, lines), alpha, alpha + 1);
                    let sound = if v <= alpha { truth <= v } else { truth >= v };
                    assert!(
                        sound,
                        "{rows}x{cols} {lines:b}: window ({alpha}, {}) answered {v}, value {truth}",
                        alpha + 1
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} windows");
    }

    /// What was stored is read back for its own key only, and a full bucket
    /// gives way at its shallowest entry.
    #[test]
    fn entries_are_read_back_exactly_and_shallow_ones_go_first() {
        let table = Table::new(1 << 16, 40).expect("table");
        let keys: Vec<u64> = (0..20_000u64)
            .map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 24)
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            table.store(k, bounds((i % 7) as i8 - 3, 5, 1 + (i % 40) as u8, 3));
        }
        let mut found = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Some(b) = table.probe(k) {
                assert_eq!(b, bounds((i % 7) as i8 - 3, 5, 1 + (i % 40) as u8, 3));
                found += 1;
            }
        }
        assert!(found > 0 && found < keys.len());
        // Five keys of one bucket: the shallowest of the first four leaves.
        let bucket = |k: u64| table.place(k).0;
        let same: Vec<u64> = (0..1u64 << 30)
            .filter(|&k| bucket(k) == bucket(7))
            .take(5)
            .collect();
        let fresh = Table::new(1 << 16, 40).expect("table");
        for (depth, &k) in [9u8, 4, 12, 30].iter().zip(&same) {
            fresh.store(k, bounds(0, 1, *depth, NO_MOVE));
        }
        fresh.store(same[4], bounds(2, 2, 20, 1));
        assert_eq!(fresh.probe(same[1]), None);
        for &k in [same[0], same[2], same[3], same[4]].iter() {
            assert!(fresh.probe(k).is_some());
        }
    }
}
