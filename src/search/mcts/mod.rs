//! Parallel Monte Carlo tree search with the MCTS-Solver, tree reuse and a
//! bounded node arena, generic over [`Game`].
//!
//! Parallel scheme ([`Parallel`]), default **tree parallelisation**: all
//! threads grow one tree behind a mutex; selection, expansion and
//! backpropagation run under the lock, playouts outside
//! it, and a virtual loss (the visit is counted at selection, the result at
//! backpropagation) spreads the threads over different lines. Root
//! parallelisation (one tree per thread, root statistics and proofs merged)
//! is kept as an option.
//!
//! Why tree by default, measured with `cargo bench --bench mcts` (release,
//! 2 cores shared with other builds at load 4–9, so no scheme ever got a
//! free second core and 2 threads never beat 1; three runs, figures vary by
//! about 20 %; last run quoted). Playouts/s are equal within noise: Nim
//! 332k/s with 1 thread, 256k/s root-2, 243k/s tree-2; heavy synthetic
//! 192k/s, 135k/s, 127k/s. The time to *prove* a position, the figure that
//! measures search quality, favours the shared tree in every run: Nim 4/5/6
//! 84 ms (1 thread), 168 ms (root-2), 115 ms (tree-2); heavy 3/4/5 47, 95,
//! 53 ms. Root parallelisation makes every tree prove the root on its own,
//! so its extra playouts are duplicated work for the MCTS-Solver, while the
//! shared tree pools them.
//! A lock-free shared tree (atomic statistics and proofs, children published
//! through `OnceLock`, virtual loss on the way down) was built and measured
//! too (commit 18b3656, `src/search/mcts/lockfree.rs`): with 2
//! threads it proved Nim 4/5/6 in 145 ms against 115 ms for the locked tree
//! and heavy 3/4/5 in 48 ms against 53 ms, playouts/s equal within noise.
//! No gain worth a second tree implementation (it lacked reuse and
//! reporting), so it was removed: the lock covers only the walk down and the
//! backup, small next to real games' playouts at 2 threads.
//! With `threads = 1` both schemes run exactly the sequential algorithm
//! (deterministic for a fixed seed).
//!
//! The search runs in rounds of 200 ms: threads work until the round ends,
//! then the trees are merged for the progress report. Round boundaries do not
//! change the sequence of iterations of a tree.

mod tree;

use crate::game::{Game, GameState, Player};
use crate::search::{Limits, Report, SearchResult, loss_in, win_in};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tree::{Budget, Node, Params, Proof, Shared, Tree, Walker};

/// Length of one round between progress reports.
const ROUND: Duration = Duration::from_millis(200);
/// How far (in plies) and how wide a new root is looked for in the old tree.
const REUSE_DEPTH: usize = 8;
/// Node budget of that look-up.
const REUSE_BUDGET: usize = 20_000;
/// Longest principal variation reported.
const PV_LEN: usize = 32;

/// How playouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Playout {
    /// Uniformly random legal moves.
    Random,
    /// The game's playout policy ([`Game::playout_move`]).
    Policy,
}

/// How threads share the work (see the module notes for the choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallel {
    /// One tree per thread, root statistics merged.
    Root,
    /// One shared tree behind a lock, with virtual loss (the default).
    Tree,
}

/// MCTS settings (UGI options).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// UCT exploration constant (results are in [0, 1]).
    pub exploration: f64,
    /// Playout move choice.
    pub playout: Playout,
    /// Search threads (at least 1).
    pub threads: usize,
    /// How the threads share the work.
    pub parallel: Parallel,
    /// Memory for the node arenas of all threads together, in bytes.
    pub memory_bytes: usize,
    /// Seed of the playout RNGs (thread `i` uses a mix of seed and `i`).
    pub seed: u64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            exploration: 1.0,
            playout: Playout::Policy,
            threads: 1,
            parallel: Parallel::Tree,
            memory_bytes: 64 << 20,
            seed: 0x00A6_0DC7,
        }
    }
}

/// The MCTS engine: the configuration and the trees kept between searches.
#[derive(Debug)]
pub struct Mcts<G: Game> {
    config: MctsConfig,
    trees: Vec<Tree<G>>,
    /// One per thread.
    walkers: Vec<Walker<G::Move>>,
    /// The root (position and history) the trees belong to.
    root: Option<GameState<G>>,
}

impl<G: Game> Default for Mcts<G> {
    fn default() -> Self {
        Mcts::new(MctsConfig::default())
    }
}

impl<G: Game> Mcts<G> {
    /// An engine with this configuration and no tree.
    pub fn new(config: MctsConfig) -> Self {
        Mcts {
            config,
            trees: Vec::new(),
            walkers: Vec::new(),
            root: None,
        }
    }

    /// The current configuration.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Changes the configuration; the trees are dropped (sizes and seeds
    /// depend on it).
    pub fn set_config(&mut self, config: MctsConfig) {
        self.config = config;
        self.clear();
    }

    /// Forgets the trees (`uginewgame`); the RNGs restart from the seed.
    pub fn clear(&mut self) {
        self.trees.clear();
        self.walkers.clear();
        self.root = None;
    }

    /// Playouts stored at the current root over all trees: after a search it
    /// includes the visits reused from earlier searches.
    pub fn root_visits(&self) -> u64 {
        self.trees
            .iter()
            .filter_map(|t| t.nodes.first())
            .map(|n| n.visits as u64)
            .sum()
    }

    /// Nodes currently stored over all trees.
    pub fn tree_nodes(&self) -> usize {
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }

    /// Searches `state` within `limits`, calling `report` every round and at
    /// the end. Returns the move with the most visits, or the proven best.
    pub fn search(
        &mut self,
        state: &GameState<G>,
        limits: &Limits,
        report: &mut dyn FnMut(&Report),
    ) -> SearchResult<G::Move> {
        if let Some(outcome) = state.outcome() {
            let score = match outcome.sign_for(state.position.side_to_move()) {
                1 => win_in(0),
                -1 => loss_in(0),
                _ => 0,
            };
            return SearchResult {
                best: None,
                score,
                nodes: 0,
                depth: 0,
            };
        }
        self.prepare(state);
        let shared = Shared::default();
        let mut last_report = Instant::now();
        let going = |mcts: &Self| {
            mcts.merged_proof() == Proof::Unknown && limits.may_continue(playouts(&shared))
        };
        while going(self) {
            self.run_round(&state.position, limits, &shared);
            // The final report below covers the last round.
            if last_report.elapsed() >= ROUND / 2 && going(self) {
                report(&self.report(&state.position, limits, &shared));
                last_report = Instant::now();
            }
        }
        let last = self.report(&state.position, limits, &shared);
        report(&last);
        SearchResult {
            best: self.best_move(&state.position),
            score: last.score,
            nodes: last.nodes,
            depth: last.depth,
        }
    }

    /// Reuses the trees when `state` follows from the previous root by moves
    /// stored in the first tree, otherwise builds fresh ones.
    fn prepare(&mut self, state: &GameState<G>) {
        let side = state.position.side_to_move();
        let threads = self.config.threads.max(1);
        let trees = match self.config.parallel {
            Parallel::Root => threads,
            Parallel::Tree => 1,
        };
        let path = self
            .root
            .as_ref()
            .and_then(|old| self.find_path(old, state));
        let reused = match path {
            Some(path) if self.trees.len() == trees && self.walkers.len() == threads => {
                self.trees.iter_mut().all(|t| t.reroot(&path, side))
            }
            _ => false,
        };
        if !reused {
            self.build_trees(trees, threads, side);
        }
        for walker in &mut self.walkers {
            walker.begin(&state.keys);
        }
        self.root = Some(state.clone());
    }

    /// Fresh trees; the arena budget is split between the threads.
    fn build_trees(&mut self, trees: usize, threads: usize, side: Player) {
        let node_size = std::mem::size_of::<Node<G::Move>>();
        let capacity = self.config.memory_bytes / trees / node_size;
        self.trees = (0..trees)
            .map(|_| {
                let mut tree = Tree::new(capacity);
                tree.reset(side);
                tree
            })
            .collect();
        let seed = self.config.seed;
        self.walkers = (0..threads)
            .map(|i| Walker::new(thread_seed(seed, i)))
            .collect();
    }

    /// The moves leading from the old root to `new` through the first tree,
    /// checking the position (hash, then text) and the repetition history.
    fn find_path(&self, old: &GameState<G>, new: &GameState<G>) -> Option<Vec<G::Move>> {
        let extra = new.keys.strip_prefix(old.keys.as_slice())?;
        let tree = self.trees.first()?;
        let target = Target {
            hash: new.position.hash(),
            fen: new.position.fen(),
            keys: extra,
        };
        let mut search = PathSearch {
            tree,
            target: &target,
            budget: REUSE_BUDGET,
            depth: 0,
            moves: Vec::new(),
            keys: Vec::new(),
        };
        // Iterative deepening: the usual case (one or two plies) is found
        // before the budget goes into deep lines.
        for depth in 0..=REUSE_DEPTH {
            search.depth = depth;
            if search.visit(0, &old.position) {
                return Some(search.moves);
            }
        }
        None
    }

    /// One round on every thread (the first one on the calling thread).
    fn run_round(&mut self, root: &G, limits: &Limits, shared: &Shared) {
        let params = Params {
            exploration: self.config.exploration,
            policy: self.config.playout == Playout::Policy,
        };
        let budget = Budget {
            limits,
            shared,
            until: Instant::now() + ROUND,
        };
        match self.config.parallel {
            Parallel::Root => self.root_round(root, &budget, params),
            Parallel::Tree => self.tree_round(root, &budget, params),
        }
    }

    /// Root parallelisation: each thread grows its own tree.
    fn root_round(&mut self, root: &G, budget: &Budget, params: Params) {
        let mut pairs = self.trees.iter_mut().zip(self.walkers.iter_mut());
        let (tree, walker) = pairs.next().expect("at least one tree");
        std::thread::scope(|scope| {
            for (tree, walker) in pairs {
                scope.spawn(move || tree.run(walker, root, budget, params));
            }
            tree.run(walker, root, budget, params);
        });
    }

    /// Tree parallelisation: all threads share one tree behind a lock,
    /// playouts run outside the lock, virtual loss spreads the threads.
    fn tree_round(&mut self, root: &G, budget: &Budget, params: Params) {
        let tree = Mutex::new(self.trees.pop().expect("one shared tree"));
        let (first, rest) = self.walkers.split_first_mut().expect("a walker");
        std::thread::scope(|scope| {
            for walker in rest {
                let tree = &tree;
                scope.spawn(move || shared_run(tree, walker, root, budget, params));
            }
            shared_run(&tree, first, root, budget, params);
        });
        self.trees
            .push(tree.into_inner().expect("no thread panicked"));
    }

    /// The root's proof from any tree (proofs never contradict each other).
    fn merged_proof(&self) -> Proof {
        self.trees
            .iter()
            .map(Tree::root_proof)
            .find(|&p| p != Proof::Unknown)
            .unwrap_or(Proof::Unknown)
    }

    /// Root children with visits and results summed over the trees and any
    /// tree's proof.
    fn merged_children(&self) -> Vec<Node<G::Move>> {
        let mut merged: Vec<Node<G::Move>> = Vec::new();
        for tree in &self.trees {
            for i in tree.nodes[0].children() {
                let node = &tree.nodes[i];
                match merged.iter_mut().find(|c| c.mv == node.mv) {
                    Some(child) => add_stats(child, node),
                    None => merged.push(node.clone()),
                }
            }
        }
        merged
    }

    /// The move to play: proven win (shortest), else most visits avoiding
    /// proven losses, else the longest loss. Falls back to the first legal
    /// move when no playout ran.
    fn best_move(&self, root: &G) -> Option<G::Move> {
        let merged = self.merged_children();
        let best = merged.iter().max_by_key(|c| tree::preference(c));
        best.and_then(|c| c.mv).or_else(|| {
            let mut moves = Vec::new();
            root.generate_moves(&mut moves);
            moves.first().copied()
        })
    }

    /// The progress report of the merged trees.
    fn report(&self, root: &G, limits: &Limits, shared: &Shared) -> Report {
        let merged = self.merged_children();
        let best = merged.iter().max_by_key(|c| tree::preference(c));
        let score = match (self.merged_proof(), best) {
            (Proof::Win(d), _) => win_in(d as u32),
            (Proof::Loss(d), _) => loss_in(d as u32),
            (Proof::Draw, _) => 0,
            (Proof::Unknown, Some(c)) => child_score(c),
            (Proof::Unknown, None) => 0,
        };
        let (sum, iterations, max) = self.walkers.iter().fold((0, 0, 0), |acc, t| {
            (
                acc.0 + t.depth_sum,
                acc.1 + t.iterations,
                acc.2.max(t.depth_max),
            )
        });
        let first_move = best.and_then(|c| c.mv);
        Report {
            depth: sum.checked_div(iterations).unwrap_or(0) as u32,
            seldepth: max,
            score,
            nodes: playouts(shared),
            elapsed: limits.elapsed(),
            pv: first_move.map_or_else(Vec::new, |mv| self.pv_strings(root, mv)),
        }
    }

    /// The principal variation starting with `first`, from the first tree.
    fn pv_strings(&self, root: &G, first: G::Move) -> Vec<String> {
        let tree = &self.trees[0];
        let child = tree.nodes[0]
            .children()
            .find(|&i| tree.nodes[i].mv == Some(first));
        let mut line = vec![first];
        if let Some(child) = child {
            line.extend(tree.principal_line(child, PV_LEN - 1));
        }
        let mut pos = root.clone();
        line.into_iter()
            .map(|mv| {
                let text = pos.move_to_string(mv);
                pos.play(mv);
                text
            })
            .collect()
    }
}

/// The loop of one thread of tree parallelisation.
fn shared_run<G: Game>(
    tree: &Mutex<Tree<G>>,
    w: &mut Walker<G::Move>,
    root: &G,
    budget: &Budget,
    p: Params,
) {
    let mut count = 0u32;
    while budget.take(count) {
        count = count.wrapping_add(1);
        let (mut pos, proven) = lock(tree).select(w, root, p.exploration, true);
        let outcome = proven.unwrap_or_else(|| w.playout(&mut pos, p.policy));
        let mut tree = lock(tree);
        tree.backpropagate(w, outcome, true);
        if tree.root_proof() != Proof::Unknown {
            budget
                .shared
                .solved
                .store(true, std::sync::atomic::Ordering::Relaxed);
            return;
        }
    }
}

/// Locks the shared tree (a panic elsewhere already fails the search).
fn lock<G: Game>(tree: &Mutex<Tree<G>>) -> std::sync::MutexGuard<'_, Tree<G>> {
    tree.lock().unwrap_or_else(|e| e.into_inner())
}

/// Playouts done in this search.
fn playouts(shared: &Shared) -> u64 {
    shared.playouts.load(std::sync::atomic::Ordering::Relaxed)
}

/// Adds `other`'s statistics and proof to `into`.
fn add_stats<M>(into: &mut Node<M>, other: &Node<M>) {
    into.visits = into.visits.saturating_add(other.visits);
    into.halves += other.halves;
    if into.proof == Proof::Unknown {
        into.proof = other.proof;
    }
}

/// A root child's score for the side to move: its proof, or its mean mapped
/// to centi-units as 400·log10(p / (1 − p)) (Elo-like, ±1200 at most).
fn child_score<M>(node: &Node<M>) -> i32 {
    match node.proof {
        Proof::Win(d) => win_in(d as u32 + 1),
        Proof::Loss(d) => loss_in(d as u32 + 1),
        Proof::Draw => 0,
        Proof::Unknown => {
            let p = node.mean().clamp(0.001, 0.999);
            (400.0 * (p / (1.0 - p)).log10()).round() as i32
        }
    }
}

/// Seed of thread `index`: thread 0 uses the seed itself.
fn thread_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The position looked for when reusing the tree.
struct Target<'a> {
    hash: u64,
    fen: String,
    keys: &'a [u64],
}

/// Depth-first look-up of [`Target`] in a tree, with a node budget.
struct PathSearch<'a, G: Game> {
    tree: &'a Tree<G>,
    target: &'a Target<'a>,
    budget: usize,
    depth: usize,
    moves: Vec<G::Move>,
    keys: Vec<u64>,
}

impl<G: Game> PathSearch<'_, G> {
    /// Whether the target is `node` (at `pos`) or below it; on success
    /// `moves` holds the path.
    fn visit(&mut self, node: usize, pos: &G) -> bool {
        if self.budget == 0 || !self.target.keys.starts_with(&self.keys) {
            return false;
        }
        self.budget -= 1;
        let t = self.target;
        if pos.hash() == t.hash && self.keys.len() == t.keys.len() && pos.fen() == t.fen {
            return true;
        }
        if self.moves.len() >= self.depth {
            return false;
        }
        for i in self.tree.nodes[node].children() {
            let mv = self.tree.nodes[i].mv.expect("children have moves");
            let mut next = pos.clone();
            next.play(mv);
            let key = next.repetition_key();
            self.moves.push(mv);
            self.keys.extend(key);
            if self.visit(i, &next) {
                return true;
            }
            self.moves.pop();
            if key.is_some() {
                self.keys.pop();
            }
        }
        false
    }
}
