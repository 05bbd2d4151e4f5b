//! Solving a root position on several threads: the exact value and every
//! optimal line.
//!
//! The lines are grouped into classes that lead to equivalent positions
//! (board symmetry, corner border lines), and the value is found by
//! rounds over the classes at a level `g` that steps by two (a value has
//! the parity of the boxes left). For one optimal line (a move), a round
//! asks each class "does it reach `g`?" by a null-window test and stops
//! at the first that does. For every optimal line (`agon solve`), a round
//! searches each class that may be worth `g` with the window `(g - 2, g +
//! 2)`, which holds only `g` of the right parity: the answer is the
//! exact value or a bound beyond it, so a class worth `g` is settled by
//! one search instead of a test on each side (4×4 from empty, where every
//! first line is worth 0: 0.95× the time of the two tests, two pairs of
//! solves). Threads take the classes of a round from a shared counter; a
//! thread that finds none left joins a test still running (the two share
//! the table; every thread but the first breaks the move order's last ties
//! at random, so the two search in different orders), and the first answer
//! abandons the other. All threads share one [`Table`], which keeps what
//! every test proved for the next ones. The threads' orders differ only in
//! those ties; a helper that broke the center bias's ties the other way
//! made 4×4 from empty 1.33× slower (two pairs of solves): a good order
//! matters more there than a different one.

use super::geometry::Geometry;
use super::solver::{Solver, Table};
use crate::game::SolveBudget;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};

/// What a root solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootSolution {
    /// The value of the remaining boxes for the side to move.
    pub value: i32,
    /// The optimal lines: every one with `all`, else at least one.
    pub best: Vec<usize>,
    /// Nodes searched by every thread.
    pub nodes: u64,
}

/// Lines leading to equivalent positions: one is searched for all.
struct Class {
    lines: Vec<usize>,
}

/// At most this many threads work on one solve (the `Threads` maximum).
const MAX_THREADS: usize = 256;

/// An answer slot of a round not filled (yet).
const UNKNOWN: i32 = i32::MIN;

/// Solves `lines` (not the full board) with `threads` threads over
/// `table`. With `all`, every optimal line is listed; without, a round
/// ends at its first class that reaches the level, which is all a move
/// needs. `None` when the budget ran out.
pub fn solve(
    geo: &'static Geometry,
    table: &Table,
    lines: u64,
    threads: usize,
    all: bool,
    budget: Option<&SolveBudget>,
) -> Option<RootSolution> {
    let classes = classes(geo, lines);
    let remaining = (geo.boxes as u32 - geo.completed(lines)) as i32;
    let nodes = AtomicU64::new(0);
    let run = Run {
        geo,
        table,
        lines,
        classes: &classes,
        threads,
        budget,
        nodes: &nodes,
    };
    if all {
        return solve_every_class(&run, remaining);
    }
    // The value has the parity of the boxes left: try 0 or 1 first.
    let mut level = remaining & 1;
    let mut candidates: Vec<usize> = (0..classes.len()).collect();
    let mut reached_below: Option<Vec<usize>> = None;
    // The level every class missed, once a round came down from it.
    let mut missed_above: Option<i32> = None;
    loop {
        let answers = run.round(&candidates, true, |solver, line| {
            solver
                .move_reaches(lines, line, level)
                .map(|reached| if reached { REACHED } else { MISSED })
        })?;
        let reached: Vec<usize> = candidates
            .iter()
            .zip(&answers)
            .filter(|(_, a)| **a == REACHED)
            .map(|(&c, _)| c)
            .collect();
        if reached.is_empty() {
            if let Some(best) = reached_below {
                return Some(solution(&classes, level - 2, &best, &nodes));
            }
            missed_above = Some(level);
            level -= 2;
            continue;
        }
        if level + 2 > remaining || missed_above == Some(level + 2) {
            return Some(solution(&classes, level, &reached, &nodes));
        }
        // Classes that missed this level are out; those not tested (a
        // round that stopped at its first success) stay in.
        candidates = candidates
            .iter()
            .zip(&answers)
            .filter(|(_, a)| **a != MISSED)
            .map(|(&c, _)| c)
            .collect();
        reached_below = Some(reached);
        level += 2;
    }
}

/// A null-window test's answers ([`Run::round`] stops at the first
/// [`REACHED`]).
const REACHED: i32 = 1;
const MISSED: i32 = 0;

/// The exact value of every class that may be optimal, by rounds of
/// searches whose window `(level - 2, level + 2)` holds one value of the
/// right parity, `level`: each answer is that value, or a bound above or
/// below it (see the module doc).
fn solve_every_class(run: &Run, remaining: i32) -> Option<RootSolution> {
    // What is known of each class's value.
    let mut lower = vec![-remaining; run.classes.len()];
    let mut upper = vec![remaining; run.classes.len()];
    let mut level = remaining & 1;
    loop {
        let open: Vec<usize> = (0..run.classes.len())
            .filter(|&c| lower[c] < upper[c] && lower[c] <= level && level <= upper[c])
            .collect();
        let answers = run.round(&open, false, |solver, line| {
            solver.move_value(run.lines, line, level - 2, level + 2)
        })?;
        // A bound of the wrong parity is weakened to the right one.
        let odd = |v: i32| (v - remaining).rem_euclid(2);
        for (&c, &v) in open.iter().zip(&answers) {
            if v >= level + 2 {
                lower[c] = v - odd(v);
            } else if v <= level - 2 {
                upper[c] = v + odd(v);
            } else {
                (lower[c], upper[c]) = (v, v); // inside the window: exact
            }
        }
        let best_lower = lower.iter().copied().max().unwrap_or(level);
        let best_upper = upper.iter().copied().max().unwrap_or(level);
        if best_lower > level {
            level = best_lower; // a class is worth more: settle the top
        } else if best_upper < level {
            level = best_upper; // every class is worth less
        } else {
            // No class above `level` and one worth exactly it.
            let best: Vec<usize> = (0..run.classes.len())
                .filter(|&c| lower[c] == level)
                .collect();
            return Some(solution(run.classes, level, &best, run.nodes));
        }
    }
}

/// What every round of one root solve shares.
struct Run<'a> {
    geo: &'static Geometry,
    table: &'a Table,
    lines: u64,
    classes: &'a [Class],
    threads: usize,
    budget: Option<&'a SolveBudget<'a>>,
    nodes: &'a AtomicU64,
}

fn solution(classes: &[Class], value: i32, reached: &[usize], nodes: &AtomicU64) -> RootSolution {
    let mut best: Vec<usize> = reached
        .iter()
        .flat_map(|&c| classes[c].lines.iter().copied())
        .collect();
    best.sort_unstable();
    RootSolution {
        value,
        best,
        nodes: nodes.load(Ordering::Relaxed),
    }
}

/// The undrawn lines grouped by the canonical key of the position each
/// leads to.
fn classes(geo: &'static Geometry, lines: u64) -> Vec<Class> {
    let mut keyed: Vec<(u64, usize)> = (0..geo.lines)
        .filter(|&l| lines >> l & 1 == 0)
        .map(|l| (geo.canonical(lines | 1 << l), l))
        .collect();
    keyed.sort_unstable();
    let mut classes: Vec<Class> = Vec::new();
    let mut last = None;
    for (key, line) in keyed {
        if last == Some(key) {
            if let Some(class) = classes.last_mut() {
                class.lines.push(line);
            }
        } else {
            classes.push(Class { lines: vec![line] });
            last = Some(key);
        }
    }
    classes
}

impl Run<'_> {
    /// One round: `test` (a solver and a line of the class: an answer, or
    /// `None` when given up) on each candidate class, by `threads` threads.
    /// With `stop_at_reached`, the round stops at the first [`REACHED`]
    /// (the others may stay [`UNKNOWN`]). `None` when the budget ran out.
    fn round(
        &self,
        candidates: &[usize],
        stop_at_reached: bool,
        test: impl Fn(&mut Solver, usize) -> Option<i32> + Sync,
    ) -> Option<Vec<i32>> {
        let answers: Vec<AtomicI32> = candidates.iter().map(|_| AtomicI32::new(UNKNOWN)).collect();
        let done: Vec<AtomicBool> = candidates.iter().map(|_| AtomicBool::new(false)).collect();
        let next = AtomicUsize::new(0);
        let gave_up = AtomicBool::new(false);
        let finished = AtomicBool::new(false);
        let worker = |id: usize| {
            let mut solver = Solver::new(self.geo, self.table, self.budget);
            solver.vary_order(id as u64);
            loop {
                if finished.load(Ordering::Relaxed) || gave_up.load(Ordering::Relaxed) {
                    break;
                }
                let taken = next.fetch_add(1, Ordering::Relaxed);
                // Past the end: help with a test still running, if any.
                let index = if taken < candidates.len() {
                    taken
                } else {
                    match (0..candidates.len()).find(|&i| !done[i].load(Ordering::Relaxed)) {
                        Some(i) => i,
                        None => break,
                    }
                };
                solver.abandon_when(&done[index]);
                let line = self.classes[candidates[index]].lines[0];
                match test(&mut solver, line) {
                    Some(answer) => {
                        let _ = answers[index].compare_exchange(
                            UNKNOWN,
                            answer,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                        done[index].store(true, Ordering::Relaxed);
                        if stop_at_reached && answer == REACHED {
                            finished.store(true, Ordering::Relaxed);
                            done.iter().for_each(|d| d.store(true, Ordering::Relaxed));
                        }
                    }
                    None if done[index].load(Ordering::Relaxed) => {} // another thread answered
                    None => gave_up.store(true, Ordering::Relaxed),
                }
            }
            self.nodes.fetch_add(solver.take_nodes(), Ordering::Relaxed);
        };
        std::thread::scope(|scope| {
            for id in 1..self.threads.clamp(1, MAX_THREADS) {
                let worker = &worker;
                // A thread the system refuses only means fewer helpers.
                if std::thread::Builder::new()
                    .spawn_scoped(scope, move || worker(id))
                    .is_err()
                {
                    break;
                }
            }
            worker(0);
        });
        if gave_up.load(Ordering::Relaxed) {
            return None;
        }
        Some(answers.iter().map(|a| a.load(Ordering::Relaxed)).collect())
    }
}
