//! Alpha-beta on games where a side may move several times in a row: the
//! search must not negate blindly. Checked against a brute-force minimax of a
//! small test-only game.

use agon::game::{Game, GameState, NoOptions, Outcome, Player};
use agon::search::alphabeta::AlphaBeta;
use agon::search::{Limits, MATE_BOUND, is_proven};
use agon::tuning::{
    DepthMargin, LateMovePruning, LateMoveReductions, NullMove, SearchTuning, SingularExtension,
    ThreadTuning, TimeTuning,
};
use std::collections::HashMap;

/// "Nim with extra turns": take 1..=heap from one heap; taking exactly one
/// object (and leaving objects on the board) gives the mover another move.
/// Whoever takes the last object wins.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ExtraTurnNim {
    heaps: [u8; 3],
    side: Player,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Take {
    heap: u8,
    count: u8,
}

impl Game for ExtraTurnNim {
    type Move = Take;
    type Options = NoOptions;
    const NAME: &'static str = "extra-turn-nim";
    fn move_code(mv: Take) -> Option<u32> {
        Some((mv.heap as u32) << 8 | mv.count as u32)
    }
    fn move_from_code(code: u32) -> Option<Take> {
        Some(Take {
            heap: (code >> 8) as u8,
            count: code as u8,
        })
    }
    /// A free pass to the opponent, so that null-move pruning runs.
    fn null_move(&self) -> Option<Self> {
        self.outcome().is_none().then(|| ExtraTurnNim {
            heaps: self.heaps,
            side: self.side.other(),
        })
    }
    /// Emptying a heap, so that quiescence search has work.
    fn is_noisy(&self, mv: Take) -> bool {
        mv.count == self.heaps[mv.heap as usize]
    }

    fn start(_: &NoOptions) -> Self {
        ExtraTurnNim {
            heaps: [3, 3, 2],
            side: Player::X,
        }
    }
    fn from_fen(fen: &str, _: &NoOptions) -> Result<Self, String> {
        let (heaps, side) = fen.split_once(' ').ok_or("no side")?;
        let sizes: Vec<u8> = heaps
            .split('/')
            .map(|h| h.parse().map_err(|_| "bad heap"))
            .collect::<Result<_, _>>()?;
        let heaps: [u8; 3] = sizes.try_into().map_err(|_| "three heaps")?;
        Ok(ExtraTurnNim {
            heaps,
            side: Player::parse(side)?,
        })
    }
    fn fen(&self) -> String {
        let [a, b, c] = self.heaps;
        format!("{a}/{b}/{c} {}", self.side.to_char())
    }
    fn side_to_move(&self) -> Player {
        self.side
    }
    fn generate_moves(&self, moves: &mut Vec<Take>) {
        moves.clear();
        for (heap, &size) in self.heaps.iter().enumerate() {
            moves.extend((1..=size).map(|count| Take {
                heap: heap as u8,
                count,
            }));
        }
    }
    fn play(&mut self, mv: Take) {
        self.heaps[mv.heap as usize] -= mv.count;
        let objects_left = self.heaps.iter().any(|&h| h > 0);
        if !(mv.count == 1 && objects_left) {
            self.side = self.side.other();
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        // After the last take the turn passed: the player not to move won.
        self.heaps
            .iter()
            .all(|&h| h == 0)
            .then(|| Outcome::Win(self.side.other()))
    }
    fn hash(&self) -> u64 {
        self.hash_from_scratch()
    }
    fn hash_from_scratch(&self) -> u64 {
        let [a, b, c] = self.heaps;
        (a as u64) | (b as u64) << 8 | (c as u64) << 16 | (self.side as u64) << 24
    }
    /// A deliberately misleading guess, large enough to trigger every
    /// margin-based pruning: it must never turn into a wrong proof.
    fn evaluate(&self) -> i32 {
        let objects: i32 = self.heaps.iter().map(|&h| h as i32).sum();
        if objects % 2 == 1 { 700 } else { -500 }
    }
    fn parse_move(&self, text: &str) -> Result<Take, String> {
        let (heap, count) = text.split_once(':').ok_or("heap:count")?;
        Ok(Take {
            heap: heap.parse::<u8>().map_err(|_| "heap")?.wrapping_sub(1),
            count: count.parse().map_err(|_| "count")?,
        })
    }
    fn move_to_string(&self, mv: Take) -> String {
        format!("{}:{}", mv.heap + 1, mv.count)
    }
}

/// Does the side to move win? Plain minimax that keeps the sign when the
/// same side moves again.
fn wins(position: &ExtraTurnNim, memo: &mut HashMap<ExtraTurnNim, bool>) -> bool {
    if let Some(known) = memo.get(position) {
        return *known;
    }
    let result = match position.outcome() {
        Some(outcome) => outcome.sign_for(position.side) > 0,
        None => {
            let mut moves = Vec::new();
            position.generate_moves(&mut moves);
            moves.iter().any(|&mv| {
                let mut child = position.clone();
                child.play(mv);
                let child_wins = wins(&child, memo);
                if child.side == position.side {
                    child_wins
                } else {
                    !child_wins
                }
            })
        }
    };
    memo.insert(position.clone(), result);
    result
}

fn all_positions() -> Vec<ExtraTurnNim> {
    let mut out = Vec::new();
    for a in 0..=5 {
        for b in 0..=4 {
            for c in 0..=3 {
                for side in [Player::X, Player::O] {
                    out.push(ExtraTurnNim {
                        heaps: [a, b, c],
                        side,
                    });
                }
            }
        }
    }
    out
}

#[test]
fn the_toy_game_really_has_extra_turns() {
    let mut state = GameState::new(ExtraTurnNim::start(&NoOptions));
    state.play(Take { heap: 0, count: 1 });
    assert_eq!(
        state.position.side_to_move(),
        Player::X,
        "taking one moves again"
    );
    state.play(Take { heap: 0, count: 2 });
    assert_eq!(state.position.side_to_move(), Player::O);
}

/// Every pruning and reduction on, with margins far smaller than the
/// evaluation's swings, null moves unverified and quiescence.
const AGGRESSIVE: SearchTuning = SearchTuning {
    aspiration: Some((2, 10)),
    reverse_futility: Some(DepthMargin {
        max_depth: 8,
        base: 0,
        per_depth: 20,
    }),
    null_move: Some(NullMove {
        min_depth: 2,
        base: 2,
        depth_divisor: 3,
        verify_from: None,
    }),
    internal_reduction: Some(2),
    singular: Some(SingularExtension {
        min_depth: 2,
        entry_depth_margin: 3,
        margin_per_depth: 1,
    }),
    late_move_reductions: Some(LateMoveReductions {
        min_depth: 2,
        min_moves: 1,
        base: 1.0,
        divisor: 1.5,
        history_divisor: 8192,
        noisy_less: 1,
    }),
    late_move_pruning: Some(LateMovePruning {
        max_depth: 8,
        base: 1,
    }),
    futility: Some(DepthMargin {
        max_depth: 8,
        base: 10,
        per_depth: 10,
    }),
    futility_prunes_noisy: true,
    quiescence: Some(4),
    cheap_hints: true,
    history_from_every_move: true,
    continuation_history: true,
    eval_scale: 100,
    time: TimeTuning::DEFAULT,
    threads: ThreadTuning::DEFAULT,
    turns: None,
};

/// Checks every position of the toy game: the proven value equals brute
/// force and the chosen move keeps it.
fn check_against_brute_force(tuning: SearchTuning, threads: usize) {
    let mut memo = HashMap::new();
    let mut search = AlphaBeta::<ExtraTurnNim>::new(1)
        .unwrap()
        .with_tuning(tuning);
    search.set_threads(threads);
    let mut disagreements = Vec::new();
    for position in all_positions() {
        if position.outcome().is_some() {
            continue;
        }
        let state = GameState::new(position.clone());
        let expected = wins(&position, &mut memo);
        // Every iteration, shallow ones included (where pruning bites),
        // may only claim a proof that is true.
        let mut iterations = Vec::new();
        let result = search.search(&state, &Limits::depth(40), &mut |r| {
            iterations.push((r.depth, r.score))
        });
        for &(depth, score) in &iterations {
            if is_proven(score) && (score > 0) != expected {
                disagreements.push(format!("{} at depth {depth}", position.fen()));
            }
        }
        assert!(
            is_proven(result.score),
            "{} not solved: {}",
            position.fen(),
            result.score
        );
        if (result.score >= MATE_BOUND) != expected {
            disagreements.push(position.fen());
        }
        // The chosen move must keep the proven value.
        let best = result.best.expect("a move");
        let mut child = position.clone();
        child.play(best);
        let child_value = wins(&child, &mut memo);
        let keeps = if child.side == position.side {
            child_value
        } else {
            !child_value
        };
        assert_eq!(
            keeps,
            expected,
            "best move {best:?} from {}",
            position.fen()
        );
    }
    assert!(disagreements.is_empty(), "wrong values: {disagreements:?}");
}

#[test]
fn proven_scores_match_brute_force_with_extra_turns() {
    check_against_brute_force(SearchTuning::PLAIN, 1);
}

#[test]
fn default_pruning_keeps_proven_scores_exact() {
    check_against_brute_force(SearchTuning::DEFAULT, 1);
}

#[test]
fn aggressive_pruning_keeps_proven_scores_exact() {
    check_against_brute_force(AGGRESSIVE, 1);
}

#[test]
fn several_threads_keep_proven_scores_exact() {
    check_against_brute_force(AGGRESSIVE, 3);
}

#[test]
fn searches_are_deterministic_and_report_every_iteration() {
    let state = GameState::new(ExtraTurnNim::start(&NoOptions));
    let run = || {
        let mut search = AlphaBeta::<ExtraTurnNim>::new(1).unwrap();
        let mut depths = Vec::new();
        let result = search.search(&state, &Limits::depth(6), &mut |r| depths.push(r.depth));
        (result, depths)
    };
    let (first, depths) = run();
    assert_eq!(run().0, first);
    assert!(!depths.is_empty() && depths.windows(2).all(|w| w[1] == w[0] + 1));
    assert!(first.nodes > 0);
}

#[test]
fn stop_flag_and_node_limit_end_the_search_with_a_legal_move() {
    let state = GameState::new(ExtraTurnNim::start(&NoOptions));
    let limits = Limits::infinite();
    limits
        .stop
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let mut search = AlphaBeta::<ExtraTurnNim>::new(1).unwrap();
    let result = search.search(&state, &limits, &mut |_| {});
    let best = result.best.expect("a move even when stopped at once");
    assert!(state.position.is_legal(best));
    let result = search.search(&state, &Limits::nodes(300), &mut |_| {});
    assert!(
        result.nodes <= 300 + 256,
        "node limit respected: {}",
        result.nodes
    );
}
