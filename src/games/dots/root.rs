//! Solving a root position on several threads: the exact value and every
//! optimal line.
//!
//! The lines are grouped into classes that lead to equivalent positions
//! (board symmetry, corner border lines), and the value is found by
//! rounds of null-window tests "does this class reach `g`?" over the
//! classes, `g` stepping by two (a value has the parity of the boxes
//! left). Threads take the classes of a round from a shared counter; a
//! thread that finds none left joins a test still running (the two share
//! the table and diverge by their move-ordering history), and the first
//! answer abandons the other. All threads share one [`Table`], which keeps
//! what every test proved for the next ones. The helpers' orders differ
//! only by their history; a helper that broke the center bias's ties the
//! other way made 4×4 from empty 1.33× slower (two pairs of solves): a
//! good order matters more there than a different one.

use super::geometry::Geometry;
use super::solver::{Solver, Table};
use crate::game::SolveBudget;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};

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

/// The answer slot of one test of a round.
const UNKNOWN: u8 = 0;
const REACHED: u8 = 1;
const MISSED: u8 = 2;

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
    // The value has the parity of the boxes left: try 0 or 1 first.
    let mut level = remaining & 1;
    let mut candidates: Vec<usize> = (0..classes.len()).collect();
    let mut reached_below: Option<Vec<usize>> = None;
    // The level every class missed, once a round came down from it.
    let mut missed_above: Option<i32> = None;
    loop {
        let answers = round(
            geo,
            table,
            lines,
            &classes,
            &candidates,
            level,
            threads,
            all,
            budget,
            &nodes,
        )?;
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

/// One round: whether each candidate class reaches `level`, tested by
/// `threads` threads. Without `all`, stops at the first class that does
/// (the others may stay [`UNKNOWN`]). `None` when the budget ran out.
#[allow(clippy::too_many_arguments)]
fn round(
    geo: &'static Geometry,
    table: &Table,
    lines: u64,
    classes: &[Class],
    candidates: &[usize],
    level: i32,
    threads: usize,
    all: bool,
    budget: Option<&SolveBudget>,
    nodes: &AtomicU64,
) -> Option<Vec<u8>> {
    let answers: Vec<AtomicU8> = candidates.iter().map(|_| AtomicU8::new(UNKNOWN)).collect();
    let done: Vec<AtomicBool> = candidates.iter().map(|_| AtomicBool::new(false)).collect();
    let next = AtomicUsize::new(0);
    let gave_up = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let worker = |id: usize| {
        let mut solver = Solver::new(geo, table, budget);
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
            let line = classes[candidates[index]].lines[0];
            let answer = solver.move_reaches(lines, line, level);
            match answer {
                Some(reached) => {
                    let code = if reached { REACHED } else { MISSED };
                    let _ = answers[index].compare_exchange(
                        UNKNOWN,
                        code,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                    done[index].store(true, Ordering::Relaxed);
                    if reached && !all {
                        finished.store(true, Ordering::Relaxed);
                        done.iter().for_each(|d| d.store(true, Ordering::Relaxed));
                    }
                }
                None if done[index].load(Ordering::Relaxed) => {} // another thread answered
                None => gave_up.store(true, Ordering::Relaxed),
            }
        }
        nodes.fetch_add(solver.take_nodes(), Ordering::Relaxed);
    };
    std::thread::scope(|scope| {
        for id in 1..threads.clamp(1, MAX_THREADS) {
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
