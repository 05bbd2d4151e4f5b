//! Alpha-beta for games with hidden information, by determinisation: the
//! hidden part of the position (CTOR's secret squares) is sampled several
//! times consistently with what the side to move has observed
//! ([`HiddenInformation::sample_hidden`](crate::game::HiddenInformation::sample_hidden)), each sample is searched as a game of perfect
//! information, and the root move with the best score *averaged over the
//! samples* is played.
//!
//! Averaging (rather than letting each sample vote for its best move) is
//! what makes risk count: a square that is secret in a third of the samples
//! loses its chip there, and only the average sees that this outweighs a
//! small gain in the other two thirds.
//!
//! Two phases share the move's time: every sample is searched (60 %), which
//! names the candidate moves (each sample's best); then each candidate is
//! searched in every sample where it was not the best, one ply shallower
//! (40 %), most-voted candidates first, so that every candidate compared
//! has a score in every sample.

use super::alphabeta::AlphaBeta;
use super::{Limits, Report, SearchResult};
use crate::game::{Game, GameState};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

/// Share of the move's time for searching the samples; the rest scores
/// the candidates in the samples where they were not the best.
const SAMPLE_SHARE: f64 = 0.6;

/// One searched sample.
struct Sample<G: Game> {
    state: GameState<G>,
    best: G::Move,
    score: i32,
    depth: u32,
}

/// What the determinised search found, with the line to print (cut before
/// any move that would reveal hidden information).
pub struct Determinized<M> {
    /// The move, its average score, nodes and depth.
    pub result: SearchResult<M>,
    /// The principal variation of the sample that found the move.
    pub pv: Vec<String>,
}

/// Searches `state` over `samples` samples of what its side to move does
/// not know, with `search`'s table and threads. `None` when nothing is
/// hidden from the side to move (search as usual instead).
pub fn search<G: Game>(
    search: &mut AlphaBeta<G>,
    state: &GameState<G>,
    limits: &Limits,
    samples: usize,
    report: &mut dyn FnMut(&Report),
) -> Option<Determinized<G::Move>> {
    let observer = state.position.side_to_move();
    // Seeded by the position, so that the same game replays the same way.
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(state.position.hash() ^ state.keys.len() as u64);
    let hidden = G::hidden()?;
    let first = hidden.sample_hidden(&state.position, observer, &mut rng)?;
    // A forced move (a due substitution) is answered by the caller,
    // `Searchers::think_hidden`, before any hidden-information search.
    let root_moves = state.legal_moves();
    let samples = samples.max(1);
    let budget = Budget::of(limits);
    let mut nodes = 0;
    let mut searched: Vec<Sample<G>> = Vec::with_capacity(samples);
    let mut pvs = Vec::with_capacity(samples);
    for index in 0..samples {
        if index > 0 && limits.must_stop() {
            break;
        }
        let position = if index == 0 {
            first.clone()
        } else {
            hidden.sample_hidden(&state.position, observer, &mut rng)?
        };
        let sample_state = GameState {
            position,
            keys: state.keys.clone(),
        };
        let end = budget.at((index + 1) as f64 / samples as f64 * SAMPLE_SHARE);
        let sub = budget.limits(limits, end, samples * 2);
        let mut last_pv = Vec::new();
        let result = search.search(&sample_state, &sub, &mut |r: &Report| {
            let mut shown = r.clone();
            shown.pv = public_line(&sample_state.position, &r.pv);
            shown.nodes += nodes;
            shown.elapsed = limits.elapsed();
            last_pv.clone_from(&shown.pv);
            report(&shown);
        });
        nodes += result.nodes;
        let Some(best) = result.best.filter(|m| root_moves.contains(m)) else {
            continue;
        };
        pvs.push(last_pv);
        searched.push(Sample {
            state: sample_state,
            best,
            score: result.score,
            depth: result.depth,
        });
    }
    if searched.is_empty() {
        // Stopped before any sample answered: any legal move.
        return Some(Determinized {
            result: SearchResult {
                best: Some(root_moves[0]),
                score: 0,
                nodes,
                depth: 0,
            },
            pv: Vec::new(),
        });
    }
    let candidates = candidates_by_votes(&searched);
    let scores = score_candidates(
        search,
        &searched,
        &candidates,
        limits,
        &budget,
        observer,
        &mut nodes,
    );
    let (chosen, score) = scores
        .iter()
        .enumerate()
        .filter_map(|(c, s)| Some((c, average(s)?)))
        .max_by_key(|&(c, average)| (average, std::cmp::Reverse(c)))
        .unwrap_or((0, searched[0].score));
    let best = candidates[chosen];
    let (from, _) = searched
        .iter()
        .enumerate()
        .find(|(_, s)| s.best == best)
        .expect("every candidate is some sample's best");
    Some(Determinized {
        result: SearchResult {
            best: Some(best),
            score,
            nodes,
            depth: searched.iter().map(|s| s.depth).min().unwrap_or(0),
        },
        pv: pvs.swap_remove(from),
    })
}

/// The distinct best moves of the samples, most votes first (ties by
/// first appearance).
fn candidates_by_votes<G: Game>(searched: &[Sample<G>]) -> Vec<G::Move> {
    let mut votes: Vec<(G::Move, usize)> = Vec::new();
    for sample in searched {
        match votes.iter_mut().find(|(m, _)| *m == sample.best) {
            Some((_, count)) => *count += 1,
            None => votes.push((sample.best, 1)),
        }
    }
    // Stable: equal votes keep their order of appearance.
    votes.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
    votes.into_iter().map(|(m, _)| m).collect()
}

/// Each candidate's score in every sample (`None` where time ran out):
/// the sample's own score where it was the best, else a search of the
/// position after it, one ply shallower than the sample's.
fn score_candidates<G: Game>(
    search: &mut AlphaBeta<G>,
    searched: &[Sample<G>],
    candidates: &[G::Move],
    limits: &Limits,
    budget: &Budget,
    observer: crate::game::Player,
    nodes: &mut u64,
) -> Vec<Vec<Option<i32>>> {
    let mut scores = vec![vec![None; searched.len()]; candidates.len()];
    let mut jobs = Vec::new();
    for (c, &mv) in candidates.iter().enumerate() {
        for (s, sample) in searched.iter().enumerate() {
            if sample.best == mv {
                scores[c][s] = Some(sample.score);
            } else {
                jobs.push((c, s));
            }
        }
    }
    if candidates.len() == 1 {
        return scores;
    }
    let total = jobs.len();
    for (done, &(c, s)) in jobs.iter().enumerate() {
        if limits.must_stop() || budget.past_soft() {
            break;
        }
        let sample = &searched[s];
        let mut child = sample.state.clone();
        child.play(candidates[c]);
        let end = budget.at(SAMPLE_SHARE + (1.0 - SAMPLE_SHARE) * (done + 1) as f64 / total as f64);
        let mut sub = budget.limits(limits, end, total * 4);
        sub.depth = Some(sample.depth.saturating_sub(1).max(1));
        let result = search.search(&child, &sub, &mut |_| {});
        *nodes += result.nodes;
        if result.depth == 0 && !child.legal_moves().is_empty() {
            continue; // stopped before a whole iteration: no score
        }
        let score = if child.outcome().is_some() {
            terminal_score(&child, observer)
        } else if child.position.side_to_move() == observer {
            result.score
        } else {
            -result.score
        };
        scores[c][s] = Some(score);
    }
    scores
}

/// The score of a finished game for `observer` (as the search scores it).
fn terminal_score<G: Game>(state: &GameState<G>, observer: crate::game::Player) -> i32 {
    match state.outcome() {
        Some(outcome) => outcome.sign_for(observer) * super::win_in(1),
        None => 0,
    }
}

/// The mean of a candidate's scores, when it has one in every sample.
fn average(scores: &[Option<i32>]) -> Option<i32> {
    let sum: Option<i64> = scores.iter().map(|s| s.map(i64::from)).sum();
    Some((sum? / scores.len() as i64) as i32)
}

/// `pv` up to (not including) the first move that reveals hidden
/// information, so that no printed line tells a secret of the sample (or
/// of the engine's own side).
pub fn public_line<G: Game>(position: &G, pv: &[String]) -> Vec<String> {
    let mut walk = position.clone();
    let mut shown = Vec::new();
    for text in pv {
        let Ok(mv) = walk.parse_move(text) else { break };
        let reveals = G::hidden().is_some_and(|h| h.reveals_hidden(&walk, mv));
        if reveals || !walk.is_legal(mv) {
            break;
        }
        walk.play(mv);
        shown.push(text.clone());
    }
    shown
}

/// The move's time, to be split between the searches.
struct Budget {
    start: Instant,
    /// The planned time (the soft deadline), if the move has one.
    planned: Option<Duration>,
    hard: Option<Instant>,
}

impl Budget {
    fn of(limits: &Limits) -> Budget {
        Budget {
            start: Instant::now(),
            planned: limits
                .soft_deadline
                .map(|d| d.saturating_duration_since(Instant::now())),
            hard: limits.hard_deadline,
        }
    }

    /// The instant at `share` of the planned time.
    fn at(&self, share: f64) -> Option<Instant> {
        self.planned
            .map(|planned| self.start + planned.mul_f64(share.clamp(0.0, 1.0)))
    }

    fn past_soft(&self) -> bool {
        self.at(1.0).is_some_and(|end| Instant::now() >= end)
    }

    /// Limits for one of the searches: ending at `end` (never past the
    /// move's hard deadline), with the move's node limit split `parts`
    /// ways, stopped by the move's `stop`.
    fn limits(&self, limits: &Limits, end: Option<Instant>, parts: usize) -> Limits {
        let end = match (end, self.hard) {
            (Some(end), Some(hard)) => Some(end.min(hard)),
            (end, hard) => end.or(hard),
        };
        let split = |n: u64| (n / parts.max(1) as u64).max(1);
        Limits {
            depth: limits.depth,
            nodes: limits.nodes.map(split),
            soft_nodes: limits.soft_nodes.map(split),
            soft_deadline: end,
            hard_deadline: end,
            adaptive: false,
            stop: limits.stop.clone(),
            start: Instant::now(),
            node_count: None,
        }
    }
}
