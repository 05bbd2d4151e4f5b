//! MCTS: forced wins, exact solving (Nim and a toy game where a side may
//! move twice in a row), determinism, threads, bounded memory, tree reuse and
//! `stop` under stress.

use agon::game::{Game, GameState, NoOptions, Outcome, Player};
use agon::games::nim::{Nim, NimOptions};
use agon::search::mcts::{Mcts, MctsConfig, Parallel, Playout};
use agon::search::{Limits, Report, SearchResult, is_proven};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn nim(fen: &str) -> GameState<Nim> {
    GameState::new(Nim::from_fen(fen, &NimOptions::default()).unwrap())
}

fn search<G: Game>(
    mcts: &mut Mcts<G>,
    state: &GameState<G>,
    limits: &Limits,
) -> SearchResult<G::Move> {
    mcts.search(state, limits, &mut |_: &Report| {})
}

fn config(threads: usize) -> MctsConfig {
    MctsConfig {
        threads,
        ..MctsConfig::default()
    }
}

fn nim_sum(position: &Nim) -> u64 {
    position.heaps().iter().fold(0, |acc, &h| acc ^ h)
}

/// Plays `mv` and says whether the opponent is left in a lost position.
fn leaves_zero(state: &GameState<Nim>, mv: <Nim as Game>::Move) -> bool {
    let mut next = state.position.clone();
    next.play(mv);
    nim_sum(&next) == 0
}

#[test]
fn finds_forced_wins_in_nim() {
    for fen in ["1/2/0 x", "3/4/5 x", "2/2/1 o", "1/3/5 x", "6/0/4 o"] {
        let state = nim(fen);
        let mut mcts = Mcts::new(config(1));
        let result = search(&mut mcts, &state, &Limits::nodes(20_000));
        let best = result.best.expect("a move");
        assert!(leaves_zero(&state, best), "{fen}: {best:?} does not win");
        assert!(result.score > 0, "{fen}: score {}", result.score);
    }
}

#[test]
fn solver_proves_all_nim_positions_up_to_3_3_3() {
    let mut mcts = Mcts::new(config(1));
    for a in 0..=3 {
        for b in 0..=3 {
            for c in 0..=3 {
                if a + b + c == 0 {
                    continue;
                }
                let state = nim(&format!("{a}/{b}/{c} x"));
                mcts.clear();
                let result = search(&mut mcts, &state, &Limits::nodes(200_000));
                let fen = state.position.fen();
                assert!(
                    is_proven(result.score),
                    "{fen}: not proven ({})",
                    result.score
                );
                let winning = nim_sum(&state.position) != 0;
                assert_eq!(result.score > 0, winning, "{fen}: score {}", result.score);
                if winning {
                    assert!(leaves_zero(&state, result.best.unwrap()), "{fen}");
                }
            }
        }
    }
}

#[test]
fn proven_root_answers_at_once() {
    let state = nim("1/1/0 x");
    let mut mcts = Mcts::new(config(1));
    let first = search(&mut mcts, &state, &Limits::infinite());
    assert_eq!(first.score, agon::search::loss_in(2));
    let again = search(&mut mcts, &state, &Limits::infinite());
    assert_eq!(again.nodes, 0, "a proven root needs no playout");
    assert_eq!(again.score, first.score);
}

#[test]
fn fixed_seed_single_thread_is_deterministic() {
    let state = nim("5/6/7/3 x");
    let run = |parallel| {
        let mut mcts = Mcts::new(MctsConfig {
            parallel,
            ..config(1)
        });
        let mut lines = Vec::new();
        let result = mcts.search(&state, &Limits::nodes(5_000), &mut |r: &Report| {
            lines.push((r.score, r.nodes, r.depth, r.seldepth, r.pv.clone()))
        });
        (result, lines.pop(), mcts.root_visits(), mcts.tree_nodes())
    };
    let first = run(Parallel::Tree);
    assert_eq!(first, run(Parallel::Tree));
    // With one thread both schemes are the same sequential search.
    assert_eq!(first, run(Parallel::Root));
}

#[test]
fn two_threads_give_a_legal_move() {
    for parallel in [Parallel::Root, Parallel::Tree] {
        let state = nim("5/6/7/8 o");
        let mut mcts = Mcts::new(MctsConfig {
            parallel,
            ..config(2)
        });
        let result = search(&mut mcts, &state, &Limits::nodes(20_000));
        assert!(state.position.is_legal(result.best.unwrap()));
        assert_eq!(result.nodes, 20_000);
        let timed = search(
            &mut mcts,
            &state,
            &Limits::movetime(Duration::from_millis(30)),
        );
        assert!(state.position.is_legal(timed.best.unwrap()));
        let winning = nim("3/4/5 x");
        let result = search(&mut mcts, &winning, &Limits::nodes(200_000));
        assert!(leaves_zero(&winning, result.best.unwrap()), "{parallel:?}");
    }
}

#[test]
fn two_threads_prove_the_same_values() {
    for parallel in [Parallel::Root, Parallel::Tree] {
        let mut mcts = Mcts::new(MctsConfig {
            parallel,
            ..config(2)
        });
        for fen in ["3/3/3 x", "1/2/3 o", "2/3/3 x", "3/0/2 o"] {
            let state = nim(fen);
            mcts.clear();
            let result = search(&mut mcts, &state, &Limits::nodes(200_000));
            assert!(is_proven(result.score), "{fen} {parallel:?}");
            assert_eq!(result.score > 0, nim_sum(&state.position) != 0, "{fen}");
        }
    }
}

#[test]
fn tiny_memory_still_answers_legal_moves() {
    for memory_bytes in [0, 1, 500, 5_000] {
        let mut mcts = Mcts::new(MctsConfig {
            memory_bytes,
            ..config(1)
        });
        let state = nim("4/5/6 x");
        let result = search(&mut mcts, &state, &Limits::nodes(3_000));
        assert!(state.position.is_legal(result.best.unwrap()));
        assert_eq!(result.nodes, 3_000);
        // Root and its 15 children, plus whatever fits.
        assert!(
            mcts.tree_nodes() <= 16 + memory_bytes / 40,
            "{}",
            mcts.tree_nodes()
        );
    }
}

#[test]
fn tree_is_reused_after_moves_played() {
    let mut state = nim("6/7/8/10 x");
    let mut mcts = Mcts::new(config(1));
    let first = search(&mut mcts, &state, &Limits::nodes(30_000));
    // Play the expected line: our move and the reply the tree likes most.
    let mut line = Vec::new();
    mcts.search(&state, &Limits::nodes(1), &mut |r: &Report| {
        line = r.pv.clone()
    });
    assert!(line.len() >= 2, "pv {line:?}");
    assert_eq!(state.position.move_to_string(first.best.unwrap()), line[0]);
    for text in &line[..2] {
        let mv = state.position.parse_move(text).unwrap();
        state.play(mv);
    }
    // A search without playouts shows what was kept from the first one.
    search(&mut mcts, &state, &Limits::nodes(0));
    let kept = mcts.root_visits();
    assert!(kept > 20, "reused {kept}");
    search(&mut mcts, &state, &Limits::nodes(100));
    assert_eq!(mcts.root_visits(), kept + 100);
    // An unrelated position starts from scratch.
    search(&mut mcts, &nim("9/9/9/9 x"), &Limits::nodes(100));
    assert_eq!(mcts.root_visits(), 100);
}

#[test]
fn stop_from_another_thread_200_times() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut mcts = Mcts::new(config(2));
    let mut state = nim("7/9/11/13 x");
    let (mut worst, mut total) = (Duration::ZERO, Duration::ZERO);
    for i in 0..200 {
        if i % 50 == 25 {
            // Switch schemes now and then (this also drops the trees).
            let parallel = [Parallel::Root, Parallel::Tree][i / 50 % 2];
            mcts.set_config(MctsConfig {
                parallel,
                ..config(2)
            });
        }
        let limits = Limits::infinite();
        let delay = Duration::from_micros(rand::RngExt::random_range(&mut rng, 0..3_000));
        let stop = limits.stop.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(delay);
            stop.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let result = search(&mut mcts, &state, &limits);
        let returned = Instant::now();
        let stopped = stopper.join().unwrap();
        let latency = returned.saturating_duration_since(stopped);
        worst = worst.max(latency);
        total += latency;
        let best = result.best.expect("a move");
        assert!(state.position.is_legal(best));
        // Walk down the game now and then so that reuse is exercised too.
        if i % 3 == 0 {
            state.play(best);
        }
        if state.outcome().is_some() {
            state = nim("7/9/11/13 x");
        }
    }
    println!("answer to stop: mean {:?}, slowest {worst:?}", total / 200);
    assert!(worst < Duration::from_millis(200), "slowest stop {worst:?}");
}

// ---------------------------------------------------------------------------
// A toy game where the same side often moves again: misère Nim in which
// emptying a heap (other than the last one) gives the mover another move,
// like completing a box in Dots and Boxes.

#[derive(Clone, Debug, PartialEq, Eq)]
struct Again {
    heaps: Vec<u8>,
    side: Player,
}

impl Game for Again {
    type Move = (u8, u8);
    type Options = NoOptions;
    const NAME: &'static str = "again";
    fn move_code((heap, count): (u8, u8)) -> Option<u32> {
        Some((heap as u32) << 8 | count as u32)
    }
    fn move_from_code(code: u32) -> Option<(u8, u8)> {
        Some(((code >> 8) as u8, code as u8))
    }

    fn start(_: &NoOptions) -> Self {
        Again {
            heaps: vec![3, 3, 3],
            side: Player::X,
        }
    }

    fn from_fen(fen: &str, _: &NoOptions) -> Result<Self, String> {
        let (heaps, side) = fen.split_once(' ').ok_or("no side")?;
        let heaps = heaps.split('/').map(|h| h.parse().map_err(|_| "heap"));
        Ok(Again {
            heaps: heaps.collect::<Result<_, _>>()?,
            side: Player::parse(side)?,
        })
    }

    fn fen(&self) -> String {
        let heaps: Vec<String> = self.heaps.iter().map(u8::to_string).collect();
        format!("{} {}", heaps.join("/"), self.side.to_char())
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<(u8, u8)>) {
        moves.clear();
        for (i, &h) in self.heaps.iter().enumerate() {
            moves.extend((1..=h).map(|n| (i as u8, n)));
        }
    }

    fn play(&mut self, (heap, count): (u8, u8)) {
        self.heaps[heap as usize] -= count;
        let emptied = self.heaps[heap as usize] == 0;
        if !emptied || self.outcome().is_some() {
            self.side = self.side.other();
        }
    }

    /// Whoever took the last object (the player not to move) loses.
    fn outcome(&self) -> Option<Outcome> {
        self.heaps
            .iter()
            .all(|&h| h == 0)
            .then_some(Outcome::Win(self.side))
    }

    fn hash(&self) -> u64 {
        self.hash_from_scratch()
    }

    fn hash_from_scratch(&self) -> u64 {
        let heaps = self.heaps.iter().fold(0u64, |acc, &h| acc * 16 + h as u64);
        heaps * 2 + self.side.index() as u64
    }

    fn evaluate(&self) -> i32 {
        0
    }

    fn parse_move(&self, text: &str) -> Result<(u8, u8), String> {
        let (h, n) = text.split_once(':').ok_or("move")?;
        Ok((
            h.parse::<u8>().map_err(|e| e.to_string())? - 1,
            n.parse()
                .map_err(|e: std::num::ParseIntError| e.to_string())?,
        ))
    }

    fn move_to_string(&self, (heap, count): (u8, u8)) -> String {
        format!("{}:{count}", heap + 1)
    }
}

/// Exact value (+1 win / −1 loss) for the side to move, respecting repeated
/// turns: a child's value is negated only when the side to move changes.
fn minimax(pos: &Again, memo: &mut HashMap<u64, i32>) -> i32 {
    if let Some(outcome) = pos.outcome() {
        return outcome.sign_for(pos.side);
    }
    if let Some(&v) = memo.get(&pos.hash()) {
        return v;
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let best = moves
        .iter()
        .map(|&mv| value_after(pos, mv, memo))
        .max()
        .unwrap();
    memo.insert(pos.hash(), best);
    best
}

/// Value of `mv` for the player who plays it.
fn value_after(pos: &Again, mv: (u8, u8), memo: &mut HashMap<u64, i32>) -> i32 {
    let mut next = pos.clone();
    next.play(mv);
    let v = minimax(&next, memo);
    if next.side == pos.side { v } else { -v }
}

#[test]
fn solver_matches_minimax_when_a_side_moves_twice() {
    let mut memo = HashMap::new();
    let mut mcts: Mcts<Again> = Mcts::new(config(1));
    let (mut wins, mut losses) = (0, 0);
    for a in 0..=3 {
        for b in 0..=3 {
            for c in 0..=3 {
                let fen = format!("{a}/{b}/{c} o");
                let state = GameState::new(Again::from_fen(&fen, &NoOptions).unwrap());
                if state.outcome().is_some() {
                    continue;
                }
                let exact = minimax(&state.position, &mut memo);
                mcts.clear();
                let result = search(&mut mcts, &state, &Limits::nodes(200_000));
                assert!(is_proven(result.score), "{fen}: not proven");
                assert_eq!(result.score.signum(), exact, "{fen}");
                let best = result.best.unwrap();
                assert_eq!(
                    value_after(&state.position, best, &mut memo),
                    exact,
                    "{fen}: {best:?}"
                );
                if exact > 0 { wins += 1 } else { losses += 1 }
            }
        }
    }
    assert!(wins > 5 && losses > 5, "wins {wins} losses {losses}");
}

// ---------------------------------------------------------------------------
// A toy game with repetition: a token on squares 0..=4, each player moves it
// one step either way; x wins on 4, o wins on 0. The second occurrence of a
// position ends the game with a configurable result.

#[derive(Clone, Debug)]
struct Race {
    token: u8,
    side: Player,
    on_repetition: Outcome,
    /// Without the rule the game can go on forever.
    repetition: bool,
}

impl Game for Race {
    type Move = bool;
    type Options = NoOptions;
    const NAME: &'static str = "race";
    fn move_code(up: bool) -> Option<u32> {
        Some(up as u32)
    }
    fn move_from_code(code: u32) -> Option<bool> {
        (code < 2).then_some(code == 1)
    }

    fn start(_: &NoOptions) -> Self {
        Race {
            token: 2,
            side: Player::X,
            on_repetition: Outcome::Draw,
            repetition: true,
        }
    }

    fn from_fen(fen: &str, _: &NoOptions) -> Result<Self, String> {
        let (token, side) = fen.split_once(' ').ok_or("no side")?;
        Ok(Race {
            token: token.parse().map_err(|_| "token")?,
            side: Player::parse(side)?,
            on_repetition: Outcome::Draw,
            repetition: true,
        })
    }

    fn fen(&self) -> String {
        format!("{} {}", self.token, self.side.to_char())
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<bool>) {
        moves.clear();
        if self.outcome().is_none() {
            moves.extend([false, true]);
        }
    }

    fn play(&mut self, up: bool) {
        self.token = if up { self.token + 1 } else { self.token - 1 };
        self.side = self.side.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.token {
            0 => Some(Outcome::Win(Player::O)),
            4 => Some(Outcome::Win(Player::X)),
            _ => None,
        }
    }

    fn hash(&self) -> u64 {
        self.hash_from_scratch()
    }

    fn hash_from_scratch(&self) -> u64 {
        self.token as u64 * 2 + self.side.index() as u64
    }

    fn evaluate(&self) -> i32 {
        0
    }

    fn parse_move(&self, text: &str) -> Result<bool, String> {
        Ok(text == "+")
    }

    fn move_to_string(&self, up: bool) -> String {
        (if up { "+" } else { "-" }).into()
    }

    fn repetition_key(&self) -> Option<u64> {
        self.repetition.then(|| self.hash())
    }

    fn repetition_limit(&self) -> usize {
        2
    }

    fn repetition_outcome(&self) -> Outcome {
        self.on_repetition
    }
}

/// Exact value for the side to move of a game record, history included.
fn minimax_with_history(state: &GameState<Race>) -> i32 {
    if let Some(outcome) = state.outcome() {
        return outcome.sign_for(state.position.side);
    }
    let values = state.legal_moves().into_iter().map(|mv| {
        let mut next = state.clone();
        next.play(mv);
        let v = minimax_with_history(&next);
        if next.position.side == state.position.side {
            v
        } else {
            -v
        }
    });
    values.max().unwrap()
}

#[test]
fn solver_respects_repetition_and_history() {
    let mut mcts: Mcts<Race> = Mcts::new(config(1));
    let results = [
        Outcome::Draw,
        Outcome::Win(Player::X),
        Outcome::Win(Player::O),
    ];
    for on_repetition in results {
        for fen in ["1 x", "2 x", "3 x", "1 o", "2 o", "3 o"] {
            for prefix in [&[][..], &[true, false][..]] {
                let mut position = Race::from_fen(fen, &NoOptions).unwrap();
                position.on_repetition = on_repetition;
                let mut state = GameState::new(position);
                for &mv in prefix {
                    if state.outcome().is_none() {
                        state.play(mv);
                    }
                }
                if state.outcome().is_some() {
                    continue;
                }
                let exact = minimax_with_history(&state);
                mcts.clear();
                let result = search(&mut mcts, &state, &Limits::nodes(100_000));
                let what = format!("{fen} after {prefix:?}, repetition {on_repetition:?}");
                // A proven root (draws included) stops before the budget.
                assert!(result.nodes < 100_000, "{what}: not proven");
                assert!(
                    is_proven(result.score) || exact == 0,
                    "{what}: {}",
                    result.score
                );
                assert_eq!(result.score.signum(), exact, "{what}");
            }
        }
    }
}

#[test]
fn endless_game_still_answers() {
    // Without repetition the race can cycle forever: playouts stop at their
    // cap, nothing below the root is ever proven, the limits still end it.
    let mut position = Race::start(&NoOptions);
    position.repetition = false;
    let state = GameState::new(position);
    for playout in [Playout::Random, Playout::Policy] {
        let mut mcts = Mcts::new(MctsConfig {
            playout,
            ..config(2)
        });
        let result = search(&mut mcts, &state, &Limits::nodes(3_000));
        assert!(result.best.is_some());
        assert_eq!(result.nodes, 3_000);
        let timed = search(
            &mut mcts,
            &state,
            &Limits::movetime(Duration::from_millis(20)),
        );
        assert!(timed.best.is_some());
    }
}

#[test]
fn engine_can_move_to_a_search_thread() {
    fn assert_send<T: Send + 'static>() {}
    assert_send::<Mcts<Nim>>();
    assert_send::<Mcts<Again>>();
}
