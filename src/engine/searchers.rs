//! How the engine chooses a move, shared by the protocol's `go` and the
//! built-in players of `agon match`: a perfect-play oracle where the game has
//! one (with `Search auto`), else the chosen generic search, keeping the
//! search memory (transposition table or MCTS tree) between moves.

use super::MAX_LISTED_MOVES;
use super::options::{EngineOptions, HiddenChoice, PlayoutChoice, SearchChoice};
use super::turn_plan::TurnPlan;
use crate::game::{Game, GameState, Proven, SolveBudget, Solved};
use crate::search::alphabeta::AlphaBeta;
use crate::search::determinized;
use crate::search::mcts::{Mcts, MctsConfig, Playout};
use crate::search::time::TurnShape;
use crate::search::turns::TurnSearch;
use crate::search::{Limits, Report, SearchResult, loss_in, win_in};
use crate::tuning::TurnTuning;

/// What the engine found in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer<M> {
    /// The move to play (`None` only when there is none).
    pub best: Option<M>,
    /// Its score for the side to move (see [`crate::search::score_text`]).
    pub score: i32,
    /// Depth of the last completed iteration (1 for an oracle).
    pub depth: u32,
    /// Nodes or playouts searched (0 for an oracle).
    pub nodes: u64,
    /// The principal variation of the last report.
    pub pv: Vec<String>,
    /// The oracle's proof, when perfect play answered.
    pub solved: Option<Solved<M>>,
}

impl<M> Answer<M> {
    /// The `info string solved: …` line of an oracle's answer.
    pub fn solved_line(&self) -> Option<String> {
        let solved = self.solved.as_ref()?;
        let value = match solved.value {
            Proven::Win(_) => "win",
            Proven::Loss(_) => "loss",
            Proven::Draw => "draw",
        };
        let margin = solved
            .margin
            .map(|m| format!(", final margin {m}"))
            .unwrap_or_default();
        Some(format!(
            "info string solved: {value} for the side to move{margin}"
        ))
    }
}

/// How long a perfect-play oracle may think when `go` gives a depth or node
/// limit but no time.
pub const UNTIMED_ORACLE_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// The search state of one game, kept between searches: whichever search
/// ran last, with its memory (transposition table or MCTS tree). Allocated
/// on first use so that only the games actually played take memory, and only
/// one search holds the `Hash` memory at a time.
#[derive(Default)]
pub enum Searchers<G: Game> {
    /// Nothing allocated yet.
    #[default]
    Idle,
    /// Alpha-beta with its transposition table.
    AlphaBeta {
        /// Boxed: the searcher is large, and the enum should not be.
        search: Box<AlphaBeta<G>>,
        /// The `Hash` this table was made for (asked once: a refused size
        /// is not asked for again on every move).
        hash_mb: usize,
        /// The table's real size, smaller when `hash_mb` was refused.
        table_mb: usize,
    },
    /// MCTS with its tree.
    Mcts(Mcts<G>),
    /// The search over whole turns, which keeps nothing between searches
    /// but, on a clock, the rest of the turn it chose.
    Turns(Option<TurnPlan<G>>),
}

impl<G: Game> Searchers<G> {
    /// Allocates the memory of the search `options` choose in `position`,
    /// ahead of the first move. An allocation the system refuses is an
    /// error naming the table the search keeps instead (see
    /// `Searchers::alphabeta`).
    pub fn prepare(&mut self, options: &EngineOptions, position: &G) -> Result<(), String> {
        match chosen_search(options, position) {
            // Nothing kept between moves: its memory is one search's.
            GenericSearch::Turns(_) => {}
            GenericSearch::AlphaBeta => {
                let (_, refused) = self.alphabeta(options)?;
                if let Some(refused) = refused {
                    let kept = self.table_mb().unwrap_or(0);
                    return Err(format!("{refused}; the search keeps a {kept} MiB table"));
                }
            }
            GenericSearch::Mcts => {
                self.mcts(mcts_config::<G>(options));
            }
        }
        Ok(())
    }

    /// Thinks about `state`: the oracle answers with `Search auto` (or
    /// when the position has too many moves for a generic search), else the
    /// chosen search does. Every progress report goes to `report`. An error
    /// only when no move can be found (too many moves and no oracle).
    pub fn think(
        &mut self,
        state: &GameState<G>,
        limits: &Limits,
        options: &EngineOptions,
        report: &mut dyn FnMut(&Report),
    ) -> Result<Answer<G::Move>, String> {
        let oracle_only = state.position.count_moves() > MAX_LISTED_MOVES;
        if (options.search == SearchChoice::Auto || oracle_only)
            && let Some(answer) = consult_oracle(state, limits, options, report)
        {
            return Ok(answer);
        }
        if oracle_only {
            return Err(
                "too many legal moves for a generic search here, and no oracle answered".into(),
            );
        }
        let mut last_pv = Vec::new();
        let mut keep = |r: &Report| {
            last_pv.clone_from(&r.pv);
            report(r);
        };
        if let Some(answer) = self.planned_move(state, limits, options, &mut keep) {
            return Ok(answer);
        }
        if let Some(answer) = self.think_hidden(state, limits, options, &mut keep)? {
            return Ok(answer);
        }
        let result = match chosen_search(options, &state.position) {
            GenericSearch::Turns(tuning) => {
                let network = options.network_for(&state.position);
                let (result, line) =
                    TurnSearch::new(tuning, limits, network).search_with_line(state, &mut keep);
                self.keep_plan(&state.position, &line, &result, limits, options);
                result
            }
            GenericSearch::AlphaBeta => {
                let search = self.alphabeta(options)?.0;
                search.set_network(options.network_for(&state.position));
                search.search(state, limits, &mut keep)
            }
            GenericSearch::Mcts => self
                .mcts(mcts_config::<G>(options))
                .search(state, limits, &mut keep),
        };
        Ok(Answer {
            best: result.best,
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            pv: last_pv,
            solved: None,
        })
    }

    /// Thinks about a position where something is hidden from the side to
    /// move (CTOR's secret squares), with alpha-beta (or, for one position,
    /// with the search over whole turns under `Search turns`): one search
    /// with the hidden information in expectation (`HiddenInfo expect`),
    /// over samples of it (`sample`), or as if nothing were hidden
    /// (`ignore`). `None` when nothing is hidden.
    fn think_hidden(
        &mut self,
        state: &GameState<G>,
        limits: &Limits,
        options: &EngineOptions,
        report: &mut dyn FnMut(&Report),
    ) -> Result<Option<Answer<G::Move>>, String> {
        let observer = state.position.side_to_move();
        let Some(hidden) = G::hidden() else {
            return Ok(None);
        };
        let Some(plain) = hidden.assume_nothing_hidden(&state.position, observer) else {
            return Ok(None);
        };
        let root_moves = state.legal_moves();
        if let [only] = root_moves[..] {
            // A due substitution (or another forced move): the searched
            // copies may not even have it, since they model the side's
            // own squares differently.
            return Ok(Some(Answer {
                best: Some(only),
                score: 0,
                depth: 0,
                nodes: 0,
                pv: Vec::new(),
                solved: None,
            }));
        }
        let single = match options.hidden {
            HiddenChoice::Ignore => Some(plain),
            HiddenChoice::Expect => hidden
                .expect_hidden(&state.position, observer)
                .or(Some(plain)),
            HiddenChoice::Sample => None,
        };
        let network = options.network_for(&state.position);
        let turns = match chosen_search(options, &state.position) {
            GenericSearch::Turns(tuning) => Some(tuning),
            _ => None,
        };
        let (result, pv) = match single {
            Some(position) => {
                let plain = GameState {
                    position,
                    keys: state.keys.clone(),
                };
                let mut pv = Vec::new();
                let mut show = |r: &Report| {
                    let mut shown = r.clone();
                    shown.pv = determinized::public_line(&plain.position, &r.pv);
                    pv.clone_from(&shown.pv);
                    report(&shown);
                };
                let result = match turns {
                    Some(tuning) => {
                        let (result, line) = TurnSearch::new(tuning, limits, network)
                            .search_with_line(&plain, &mut show);
                        // The plan is checked against the real positions:
                        // the searched copy models the hidden squares.
                        self.keep_plan(&state.position, &line, &result, limits, options);
                        result
                    }
                    None => {
                        let search = self.alphabeta(options)?.0;
                        search.set_network(network);
                        search.search(&plain, limits, &mut show)
                    }
                };
                (result, pv)
            }
            None => {
                let search = self.alphabeta(options)?.0;
                search.set_network(network);
                match determinized::search(search, state, limits, options.samples, report) {
                    Some(found) => (found.result, found.pv),
                    None => return Ok(None),
                }
            }
        };
        Ok(Some(Answer {
            best: result.best,
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            pv,
            solved: None,
        }))
    }

    /// The alpha-beta searcher for `options`, made anew when `Hash`
    /// changed, and why the exact size could not be had, if it could not.
    /// A refused `Hash` keeps the alpha-beta table already held, else
    /// takes the largest smaller table that can be had (halving down to
    /// 1 MiB, after letting any MCTS tree go); the size asked for is
    /// remembered, so the next move does not ask again. An error only when
    /// not even 1 MiB can be had.
    fn alphabeta(
        &mut self,
        options: &EngineOptions,
    ) -> Result<(&mut AlphaBeta<G>, Option<String>), String> {
        let hash_mb = options.hash_mb;
        let asked = matches!(self, Searchers::AlphaBeta { hash_mb: size, .. } if *size == hash_mb);
        let mut refused = None;
        if !asked {
            // Made before the old memory goes, so that a refused allocation
            // leaves the engine as it was.
            match AlphaBeta::new(hash_mb) {
                Ok(search) => {
                    *self = Searchers::AlphaBeta {
                        search: Box::new(search),
                        hash_mb,
                        table_mb: hash_mb,
                    }
                }
                Err(why) => {
                    if let Searchers::AlphaBeta { hash_mb: asked, .. } = self {
                        *asked = hash_mb;
                    } else {
                        *self = Searchers::Idle;
                        let (search, table_mb) = Self::largest_table_below(hash_mb).ok_or(&why)?;
                        *self = Searchers::AlphaBeta {
                            search: Box::new(search),
                            hash_mb,
                            table_mb,
                        };
                    }
                    refused = Some(why);
                }
            }
        }
        match self {
            Searchers::AlphaBeta { search, .. } => {
                search.set_threads(options.threads);
                search.set_tuning(options.search_tuning::<G>());
                Ok((search.as_mut(), refused))
            }
            _ => unreachable!("an alpha-beta searcher was just made"),
        }
    }

    /// The largest table of half, a quarter, … of `hash_mb` (down to 1 MiB)
    /// that the system grants, with its size.
    fn largest_table_below(hash_mb: usize) -> Option<(AlphaBeta<G>, usize)> {
        let mut size = hash_mb;
        while size > 1 {
            size /= 2;
            if let Ok(search) = AlphaBeta::new(size) {
                return Some((search, size));
            }
        }
        None
    }

    /// The size of the alpha-beta table held, if any.
    fn table_mb(&self) -> Option<usize> {
        match self {
            Searchers::AlphaBeta { table_mb, .. } => Some(*table_mb),
            _ => None,
        }
    }

    fn mcts(&mut self, config: MctsConfig) -> &mut Mcts<G> {
        match self {
            Searchers::Mcts(mcts) if *mcts.config() == config => {}
            _ => *self = Searchers::Mcts(Mcts::new(config)),
        }
        match self {
            Searchers::Mcts(mcts) => mcts,
            _ => unreachable!("just made an MCTS searcher"),
        }
    }

    /// Forgets the search memory (`uginewgame`).
    pub fn clear(&mut self) {
        match self {
            Searchers::Idle => {}
            Searchers::AlphaBeta { search, .. } => search.clear(),
            Searchers::Mcts(mcts) => mcts.clear(),
            Searchers::Turns(plan) => *plan = None,
        }
    }

    /// The next move of the turn the last search chose, on a clock, when
    /// the turn went as planned (see [`TurnPlan`]); the plan is dropped
    /// when it does not fit.
    fn planned_move(
        &mut self,
        state: &GameState<G>,
        limits: &Limits,
        options: &EngineOptions,
        report: &mut dyn FnMut(&Report),
    ) -> Option<Answer<G::Move>> {
        let Searchers::Turns(plan) = self else {
            return None;
        };
        let tuning = planning_tuning(&state.position, options).filter(|_| limits.adaptive);
        let next = match plan.as_mut() {
            Some(plan) if tuning == Some(plan.tuning()) => {
                plan.next_move(&state.position, limits.elapsed())
            }
            _ => None,
        };
        let Some((best, shown)) = next else {
            *plan = None;
            return None;
        };
        report(&shown);
        Some(Answer {
            best: Some(best),
            score: shown.score,
            depth: shown.depth,
            nodes: 0,
            pv: shown.pv,
            solved: None,
        })
    }

    /// Keeps the rest of the turn a search over whole turns chose from
    /// `position`, when the game is on a clock and `Tune.turn_plan` is on
    /// (the turn's budget was spent on this search; see [`turn_shape`]);
    /// otherwise forgets any.
    fn keep_plan(
        &mut self,
        position: &G,
        line: &[G::Move],
        result: &SearchResult<G::Move>,
        limits: &Limits,
        options: &EngineOptions,
    ) {
        let tuning = planning_tuning(position, options).filter(|_| limits.adaptive);
        let plan = tuning
            .filter(|_| line.first().copied() == result.best)
            .and_then(|tuning| TurnPlan::new(position, line, result.score, result.depth, tuning));
        match (plan, &mut *self) {
            (Some(plan), _) => *self = Searchers::Turns(Some(plan)),
            (None, Searchers::Turns(kept)) => *kept = None,
            (None, _) => {}
        }
    }
}

/// The shape of the turn `go` thinks about in `position` under `options`,
/// for the clock's plan: the search over whole turns chooses the whole turn
/// at its first move and plays the rest from it, so that search gets the
/// turn's whole budget.
pub fn turn_shape<G: Game>(position: &G, options: &EngineOptions) -> TurnShape {
    let shape = TurnShape::of(position);
    if planning_tuning(position, options).is_some() && position.starts_turn() {
        shape.whole_turn()
    } else {
        shape
    }
}

/// The widths of the search over whole turns `go` runs in `position`
/// under `options`, when it plans whole turns (`Tune.turn_plan` on, and not
/// `HiddenInfo sample`, which searches with alpha-beta when something is
/// hidden). A plan is followed only under the same widths.
fn planning_tuning<G: Game>(position: &G, options: &EngineOptions) -> Option<TurnTuning> {
    let GenericSearch::Turns(tuning) = chosen_search(options, position) else {
        return None;
    };
    // Only then the sampling check, which copies the position.
    let sampled = || {
        options.hidden == HiddenChoice::Sample
            && G::hidden().is_some_and(|hidden| {
                hidden
                    .assume_nothing_hidden(position, position.side_to_move())
                    .is_some()
            })
    };
    (tuning.plan_on_clock == 1 && !sampled()).then_some(tuning)
}

/// A generic search, for when no perfect-play oracle answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GenericSearch {
    /// Iterative-deepening alpha-beta.
    AlphaBeta,
    /// Monte Carlo tree search.
    Mcts,
    /// The search over whole turns, with these widths.
    Turns(TurnTuning),
}

/// The generic search `go` runs under these options.
/// `Search auto` is alpha-beta in every game but CTOR: it beat MCTS in every game
/// measured (1 s a move, one thread, openings from positions/: 6-0 at
/// Ataxx, Yoté and Dots and Boxes, 2-0 at CTOR in a run stopped after two
/// games; at 100 ms 38-2, 39-0-1, 40-0, and 12-0 at CTOR at 50 ms), and Nim
/// and Mū Tōrere are answered by their oracles. (A per-game hook for a game
/// where MCTS wins was removed: no game used it.)
/// `Search turns` is the search over whole turns where the game's table
/// has widths for it, else alpha-beta. So is `Search auto` where the game
/// says the turn search plays better ([`Game::auto_searches_turns`]: CTOR
/// with one player a team).
fn chosen_search<G: Game>(options: &EngineOptions, position: &G) -> GenericSearch {
    let turns = || match options.search_tuning::<G>().turns {
        Some(tuning) => GenericSearch::Turns(tuning),
        None => GenericSearch::AlphaBeta,
    };
    match options.search {
        SearchChoice::AlphaBeta => GenericSearch::AlphaBeta,
        SearchChoice::Mcts => GenericSearch::Mcts,
        SearchChoice::Turns => turns(),
        SearchChoice::Auto if position.auto_searches_turns() => turns(),
        SearchChoice::Auto => GenericSearch::AlphaBeta,
    }
}

/// The MCTS configuration the engine options ask for, for game `G`.
fn mcts_config<G: Game>(options: &EngineOptions) -> MctsConfig {
    let policy = match options.playout {
        PlayoutChoice::Auto => G::policy_playouts(),
        PlayoutChoice::Random => false,
        PlayoutChoice::Policy => true,
    };
    MctsConfig {
        exploration: options.exploration_centi as f64 / 100.0,
        playout: if policy {
            Playout::Policy
        } else {
            Playout::Random
        },
        threads: options.threads,
        memory_bytes: options.hash_mb << 20,
        parallel: options.parallel,
        ..MctsConfig::default()
    }
}

/// Perfect play where the game knows it: the oracle's move, reported as a
/// depth-1 line with the proven score.
fn consult_oracle<G: Game>(
    state: &GameState<G>,
    limits: &Limits,
    options: &EngineOptions,
    report: &mut dyn FnMut(&Report),
) -> Option<Answer<G::Move>> {
    // The oracle gets half the planned time, so a search can still follow
    // when it gives up; oracles that may not finish (Dots and Boxes) only
    // start when they expect to. (Three quarters did not solve any earlier
    // at 10 s a move on 4×4: from 31 undrawn lines both ways, 6 games
    // each.) Without a clock, `go infinite` lets it run until
    // `stop`, while a depth- or node-limited search, which asks for a quick
    // answer, gives it a fixed budget.
    let deadline = match limits.soft_deadline {
        Some(soft) => Some(limits.start + soft.saturating_duration_since(limits.start) / 2),
        None if limits.depth.is_some() || limits.nodes.is_some() => {
            Some(limits.start + UNTIMED_ORACLE_BUDGET)
        }
        None => None,
    };
    let budget = SolveBudget {
        deadline,
        stop: &limits.stop,
        threads: options.threads,
        memory_bytes: options.hash_mb << 20,
    };
    let solved = state.position.solve(&budget)?;
    let score = match (solved.value, solved.margin) {
        (_, Some(margin)) => margin * 100,
        (Proven::Win(plies), None) => win_in(plies.unwrap_or(1)),
        (Proven::Loss(plies), None) => loss_in(plies.unwrap_or(1)),
        (Proven::Draw, None) => 0,
    };
    let pv = vec![state.position.move_to_string(solved.best)];
    report(&Report {
        depth: 1,
        seldepth: 1,
        score,
        nodes: 0,
        elapsed: limits.elapsed(),
        pv: pv.clone(),
    });
    Some(Answer {
        best: Some(solved.best),
        score,
        depth: 1,
        nodes: 0,
        pv,
        solved: Some(solved),
    })
}
