//! One MCTS tree in a bounded node arena: selection (UCT), expansion,
//! playouts, backpropagation and the MCTS-Solver proof propagation.
//!
//! Every node stores its statistics and its proof from the point of view of
//! the player who made the move into it (`mover`), which is the side to move
//! of its parent. Nothing here assumes that the players alternate.

use crate::game::{Game, Outcome, Player};
use ahash::AHashMap;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::search::Limits;

/// Plies after which a playout stops and is scored by the sign of
/// [`Game::evaluate`]; keeps playouts finite in games that can cycle.
pub const PLAYOUT_CAP: usize = 512;

/// How many iterations run between two clock reads. The stop flag itself is
/// read every iteration, so `stop` is answered within one playout.
const CLOCK_EVERY: u32 = 8;

/// The game-theoretic value of a node, for the player who moved into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Not proven yet.
    Unknown,
    /// A win in this many plies.
    Win(u16),
    /// A loss in this many plies.
    Loss(u16),
    /// A draw with best play.
    Draw,
}

impl Proof {
    /// The same value seen by the other player.
    pub fn flip(self) -> Proof {
        match self {
            Proof::Win(d) => Proof::Loss(d),
            Proof::Loss(d) => Proof::Win(d),
            other => other,
        }
    }

    /// The result of the game with best play, if proven; `mover` is the
    /// player this proof is about.
    pub fn outcome(self, mover: Player) -> Option<Outcome> {
        match self {
            Proof::Unknown => None,
            Proof::Win(_) => Some(Outcome::Win(mover)),
            Proof::Loss(_) => Some(Outcome::Win(mover.other())),
            Proof::Draw => Some(Outcome::Draw),
        }
    }

    /// The proof of a finished game for `mover`.
    pub fn of_outcome(outcome: Outcome, mover: Player) -> Proof {
        match outcome.sign_for(mover) {
            1 => Proof::Win(0),
            -1 => Proof::Loss(0),
            _ => Proof::Draw,
        }
    }
}

/// One node of the arena. Children of a node are contiguous.
#[derive(Clone, Debug)]
pub struct Node<M> {
    /// The move into this node (`None` only for the root).
    pub mv: Option<M>,
    /// Sum of results for `mover` in half points (win 2, draw 1, loss 0).
    pub halves: u64,
    /// Playouts through this node.
    pub visits: u32,
    /// Index of the first child; meaningful when `child_count > 0`.
    pub first_child: u32,
    /// Number of children; 0 while unexpanded.
    pub child_count: u32,
    /// Proven value for `mover`.
    pub proof: Proof,
    /// The player who made the move into this node (for the root: the side
    /// to move there, so that the root's proof is the root's value).
    pub mover: Player,
    /// Whether the terminal test has been done for this node.
    pub checked: bool,
}

impl<M> Node<M> {
    fn new(mv: Option<M>, mover: Player) -> Self {
        Node {
            mv,
            halves: 0,
            visits: 0,
            first_child: 0,
            child_count: 0,
            proof: Proof::Unknown,
            mover,
            checked: false,
        }
    }

    /// Index range of the children.
    pub fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.child_count as usize
    }

    /// Mean result for `mover` in [0, 1]; 0.5 when unvisited.
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.5
        } else {
            self.halves as f64 / (2.0 * self.visits as f64)
        }
    }
}

/// Search parameters a tree needs for one iteration.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// UCT exploration constant.
    pub exploration: f64,
    /// Whether playouts use [`Game::playout_move`] instead of uniform random.
    pub policy: bool,
}

/// State shared by the threads of one search.
#[derive(Debug, Default)]
pub struct Shared {
    /// Playouts started so far in this search (all threads).
    pub playouts: AtomicU64,
    /// Set when some tree has proven the root: everybody stops.
    pub solved: AtomicBool,
}

/// Per-thread working state: RNG, the current path and scratch buffers.
#[derive(Debug)]
pub struct Walker<M> {
    rng: Xoshiro256PlusPlus,
    /// Occurrence counts of the game's history keys (root included).
    history: AHashMap<u64, u32>,
    path: Vec<u32>,
    /// Occurrences of repetition keys since the root in this iteration (a
    /// map, so that long playouts stay linear).
    path_keys: AHashMap<u64, u32>,
    moves: Vec<M>,
    /// Sum of leaf depths in this search (for the average depth).
    pub depth_sum: u64,
    /// Deepest leaf in this search.
    pub depth_max: u32,
    /// Iterations in this search.
    pub iterations: u64,
}

impl<M: Copy> Walker<M> {
    /// A walker whose RNG starts from `seed`.
    pub fn new(seed: u64) -> Self {
        Walker {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            history: AHashMap::new(),
            path: Vec::new(),
            path_keys: AHashMap::new(),
            moves: Vec::new(),
            depth_sum: 0,
            depth_max: 0,
            iterations: 0,
        }
    }

    /// Prepares a search: history counts for repetition, per-search stats.
    pub fn begin(&mut self, keys: &[u64]) {
        self.history.clear();
        for &key in keys {
            *self.history.entry(key).or_insert(0) += 1;
        }
        self.depth_sum = 0;
        self.depth_max = 0;
        self.iterations = 0;
    }

    /// The repetition result of `pos` given the history and the current path.
    pub fn repetition<G: Game<Move = M>>(&self, pos: &G) -> Option<Outcome> {
        let key = pos.repetition_key()?;
        let before = self.history.get(&key).copied().unwrap_or(0) as usize;
        let on_path = self.path_keys.get(&key).copied().unwrap_or(0) as usize;
        (before + on_path >= pos.repetition_limit()).then(|| pos.repetition_outcome())
    }

    /// Plays random (or policy) moves to the end of the game, or to the cap
    /// where the evaluation's sign decides.
    pub fn playout<G: Game<Move = M>>(&mut self, pos: &mut G, policy: bool) -> Outcome {
        for _ in 0..PLAYOUT_CAP {
            if let Some(outcome) = pos.outcome().or_else(|| self.repetition(pos)) {
                return outcome;
            }
            pos.generate_moves(&mut self.moves);
            let mv = if policy {
                pos.playout_move(&self.moves, &mut self.rng)
            } else {
                self.moves[rand::RngExt::random_range(&mut self.rng, 0..self.moves.len())]
            };
            pos.play(mv);
            if let Some(key) = pos.repetition_key() {
                self.record(key);
            }
        }
        let side = pos.side_to_move();
        match pos.evaluate().signum() {
            1 => Outcome::Win(side),
            -1 => Outcome::Win(side.other()),
            _ => Outcome::Draw,
        }
    }

    /// Starts an iteration at the root: no key seen on the path yet.
    pub fn start_iteration(&mut self) {
        self.path_keys.clear();
    }

    /// Counts one more occurrence of a repetition key on this iteration.
    pub fn record(&mut self, key: u64) {
        *self.path_keys.entry(key).or_insert(0) += 1;
    }

    /// Records the depth of the iteration that just ended.
    fn count_iteration(&mut self) {
        let depth = (self.path.len() - 1) as u32;
        self.depth_sum += depth as u64;
        self.depth_max = self.depth_max.max(depth);
        self.iterations += 1;
    }
}

/// A tree in a bounded arena.
#[derive(Debug)]
pub struct Tree<G: Game> {
    /// The arena; index 0 is the root.
    pub nodes: Vec<Node<G::Move>>,
    capacity: usize,
}

impl<G: Game> Tree<G> {
    /// An empty tree of at most `capacity` nodes (the root's children are
    /// always allowed, so that a move can be chosen). The arena is reserved
    /// at once when the system allows; otherwise it grows as needed, and
    /// stops growing (the tree counts as full) when memory is refused, so
    /// a `Hash` larger than the machine never aborts the engine.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let mut nodes = Vec::new();
        // A refused reservation is not an error here: see above.
        let _ = nodes.try_reserve_exact(capacity);
        Tree { nodes, capacity }
    }

    /// Makes room for `more` nodes: the arena doubles, but never past the
    /// capacity (unless the root's children need it) and never with more
    /// than the system grants. False when even `more` cannot be had.
    fn make_room(&mut self, more: usize) -> bool {
        let needed = self.nodes.len() + more;
        if needed <= self.nodes.capacity() {
            return true;
        }
        let wanted = (2 * self.nodes.len()).clamp(needed, self.capacity.max(needed));
        let len = self.nodes.len();
        self.nodes.try_reserve_exact(wanted - len).is_ok()
            || self.nodes.try_reserve_exact(more).is_ok()
    }

    /// Throws the tree away and starts from a fresh root.
    pub fn reset(&mut self, side: Player) {
        self.nodes.clear();
        let mut root = Node::new(None, side);
        root.checked = true;
        self.nodes.push(root);
    }

    /// The root's proof (from the side to move at the root).
    pub fn root_proof(&self) -> Proof {
        self.nodes.first().map_or(Proof::Unknown, |n| n.proof)
    }

    /// Runs iterations until the round ends, the search must stop, the
    /// playout budget is used up or the root is proven.
    pub fn run(&mut self, w: &mut Walker<G::Move>, root: &G, budget: &Budget, p: Params) {
        let mut count = 0u32;
        while budget.take(count) {
            count = count.wrapping_add(1);
            self.iterate(w, root, p);
            if self.root_proof() != Proof::Unknown {
                budget.shared.solved.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// One MCTS iteration: select down to a leaf, expand it, play out and
    /// back the result up.
    pub fn iterate(&mut self, w: &mut Walker<G::Move>, root: &G, p: Params) {
        let (mut pos, proven) = self.select(w, root, p.exploration, false);
        let outcome = proven.unwrap_or_else(|| w.playout(&mut pos, p.policy));
        self.backpropagate(w, outcome, false);
    }

    /// Walks from the root to a leaf (expanding it when it has been visited
    /// before), leaving the path in `w`. Returns the leaf position and, when
    /// the leaf is proven, its result. With `virtual_loss` the path's visits
    /// are counted now, as losses until [`Tree::backpropagate`].
    pub fn select(
        &mut self,
        w: &mut Walker<G::Move>,
        root: &G,
        exploration: f64,
        virtual_loss: bool,
    ) -> (G, Option<Outcome>) {
        let mut pos = root.clone();
        w.path.clear();
        w.path.push(0);
        w.start_iteration();
        let mut node = 0usize;
        let proven = loop {
            let n = &self.nodes[node];
            if let Some(outcome) = n.proof.outcome(n.mover) {
                break Some(outcome);
            }
            let expandable = node == 0 || n.visits >= self.expansion_threshold();
            if n.child_count == 0 && !(expandable && self.expand(w, node, &pos)) {
                break None;
            }
            node = self.choose(node, exploration);
            self.descend(w, node, &mut pos);
        };
        if virtual_loss {
            for &i in &w.path {
                let node = &mut self.nodes[i as usize];
                node.visits = node.visits.saturating_add(1);
            }
        }
        (pos, proven)
    }

    /// Visits a leaf needs before it gets children: 1 while the arena is
    /// empty, doubling every quarter of it that fills up (16 when nearly
    /// full). Wide games would otherwise fill the arena within a second;
    /// this keeps the tree growing, ever more selectively, for much longer.
    fn expansion_threshold(&self) -> u32 {
        let quarters = 4 * self.nodes.len() / self.capacity;
        1 << quarters.min(4)
    }

    /// Plays the move into `child`, records it on the path and runs the
    /// terminal test the first time the node is reached.
    fn descend(&mut self, w: &mut Walker<G::Move>, child: usize, pos: &mut G) {
        pos.play(self.nodes[child].mv.expect("only the root has no move"));
        if let Some(key) = pos.repetition_key() {
            w.record(key);
        }
        w.path.push(child as u32);
        if !self.nodes[child].checked {
            let outcome = pos.outcome().or_else(|| w.repetition(pos));
            let node = &mut self.nodes[child];
            node.checked = true;
            if let Some(outcome) = outcome {
                node.proof = Proof::of_outcome(outcome, node.mover);
            }
        }
    }

    /// Adds all children of `node` if the arena has room (the root always
    /// gets its children). Returns whether the node is now expanded.
    fn expand(&mut self, w: &mut Walker<G::Move>, node: usize, pos: &G) -> bool {
        pos.generate_moves(&mut w.moves);
        let fits = self.nodes.len() + w.moves.len() <= self.capacity;
        if w.moves.is_empty() || (node != 0 && !fits) {
            return false;
        }
        if !self.make_room(w.moves.len()) {
            return false; // out of memory: the tree is full
        }
        let first = self.nodes.len();
        let mover = pos.side_to_move();
        self.nodes
            .extend(w.moves.iter().map(|&mv| Node::new(Some(mv), mover)));
        self.nodes[node].first_child = first as u32;
        self.nodes[node].child_count = w.moves.len() as u32;
        true
    }

    /// UCT choice among the children that are not proven losses for the
    /// mover; unvisited children first, in move order.
    fn choose(&self, node: usize, exploration: f64) -> usize {
        let parent = &self.nodes[node];
        let log_n = (parent.visits.max(1) as f64).ln();
        let mut best = parent.first_child as usize;
        let mut best_value = f64::NEG_INFINITY;
        for i in parent.children() {
            let child = &self.nodes[i];
            if matches!(child.proof, Proof::Loss(_)) {
                continue;
            }
            if child.visits == 0 {
                return i;
            }
            let n = child.visits as f64;
            let value = child.mean() + exploration * (log_n / n).sqrt();
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        best
    }

    /// Adds the result to every node of the walker's path (each from its
    /// mover's view), then propagates new proofs upwards. `counted` says the
    /// visits were already added by a virtual loss.
    pub fn backpropagate(&mut self, w: &mut Walker<G::Move>, outcome: Outcome, counted: bool) {
        for &i in &w.path {
            let node = &mut self.nodes[i as usize];
            if !counted {
                node.visits = node.visits.saturating_add(1);
            }
            node.halves += (outcome.sign_for(node.mover) + 1) as u64;
        }
        for k in (1..w.path.len()).rev() {
            let (child, parent) = (w.path[k] as usize, w.path[k - 1] as usize);
            let settled = self.nodes[parent].proof != Proof::Unknown;
            if self.nodes[child].proof == Proof::Unknown || settled || !self.try_prove(parent) {
                break;
            }
        }
        w.count_iteration();
    }

    /// MCTS-Solver: the side to move at `parent` (the children's mover) wins
    /// if some child is a proven win for it, and otherwise has a value only
    /// when every child is proven. The value is then stored for the parent's
    /// own mover, which is the same player when a side moves twice in a row.
    fn try_prove(&mut self, parent: usize) -> bool {
        let range = self.nodes[parent].children();
        let Some(side) = self.nodes.get(range.start).map(|c| c.mover) else {
            return false;
        };
        let Some(value) = combine(self.nodes[range].iter().map(|c| c.proof)) else {
            return false;
        };
        let node = &mut self.nodes[parent];
        node.proof = if node.mover == side {
            value
        } else {
            value.flip()
        };
        true
    }

    /// Moves the root to the node reached by `moves` and keeps only its
    /// subtree (compacted, breadth first, within the capacity). `side` is the
    /// side to move at the new root. Returns false when a move is not in the
    /// tree.
    pub fn reroot(&mut self, moves: &[G::Move], side: Player) -> bool {
        let mut node = 0usize;
        for &mv in moves {
            let range = self.nodes[node].children();
            match range.clone().find(|&i| self.nodes[i].mv == Some(mv)) {
                Some(i) => node = i,
                None => return false,
            }
        }
        if node != 0 {
            self.compact(node);
        }
        let root = &mut self.nodes[0];
        if root.mover != side {
            root.proof = root.proof.flip();
            root.mover = side;
        }
        root.checked = true;
        true
    }

    /// Copies the subtree of `from` into a fresh arena (at most as large as
    /// the old one). Without memory for it, the tree starts afresh from a
    /// root with no statistics (a kept proof without children would leave
    /// no move to choose).
    fn compact(&mut self, from: usize) {
        let mut fresh: Vec<Node<G::Move>> = Vec::new();
        if fresh.try_reserve_exact(self.nodes.len()).is_err() {
            let mover = self.nodes[from].mover;
            self.reset(mover);
            return;
        }
        fresh.push(self.nodes[from].clone());
        let mut queue = VecDeque::from([(from, 0usize)]);
        while let Some((old, new)) = queue.pop_front() {
            let range = self.nodes[old].children();
            if range.is_empty() {
                continue;
            }
            if new != 0 && fresh.len() + range.len() > self.capacity {
                fresh[new].child_count = 0;
                continue;
            }
            fresh[new].first_child = fresh.len() as u32;
            for i in range {
                queue.push_back((i, fresh.len()));
                fresh.push(self.nodes[i].clone());
            }
        }
        self.nodes = fresh;
    }

    /// Most-visited line from `node` (proven wins first, proven losses last).
    pub fn principal_line(&self, mut node: usize, max_len: usize) -> Vec<G::Move> {
        let mut line = Vec::new();
        while line.len() < max_len {
            let range = self.nodes[node].children();
            let best = range.max_by_key(|&i| preference(&self.nodes[i]));
            match best {
                Some(i) if self.nodes[i].visits > 0 => {
                    line.extend(self.nodes[i].mv);
                    node = i;
                }
                _ => break,
            }
        }
        line
    }
}

/// What one thread may still do in the current round.
#[derive(Clone, Copy, Debug)]
pub struct Budget<'a> {
    /// The search limits.
    pub limits: &'a Limits,
    /// Counters shared by the threads.
    pub shared: &'a Shared,
    /// End of the round.
    pub until: Instant,
}

impl Budget<'_> {
    /// Reserves one playout unless the search or the round must end.
    /// `count` is the caller's iteration count: the clock is read every
    /// [`CLOCK_EVERY`] iterations, the stop flag every time.
    pub fn take(&self, count: u32) -> bool {
        let (limits, shared) = (self.limits, self.shared);
        if shared.solved.load(Ordering::Relaxed) || limits.stop.load(Ordering::Relaxed) {
            return false;
        }
        if count.is_multiple_of(CLOCK_EVERY) && self.out_of_time() {
            return false;
        }
        let taken = shared.playouts.fetch_add(1, Ordering::Relaxed);
        if limits.nodes.is_some_and(|n| taken >= n) {
            shared.playouts.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Whether the clock or the limits say the round is over.
    fn out_of_time(&self) -> bool {
        let now = Instant::now();
        now >= self.until
            || self.limits.must_stop()
            || self.limits.soft_deadline.is_some_and(|d| now >= d)
    }
}

/// The value of a position for its side to move from the proofs of its
/// children (all for that side), or `None` when not yet decided.
pub fn combine(proofs: impl Iterator<Item = Proof>) -> Option<Proof> {
    let mut shortest_win: Option<u16> = None;
    let (mut longest_loss, mut any_draw, mut all_proven) = (0u16, false, true);
    for proof in proofs {
        match proof {
            Proof::Win(d) => shortest_win = Some(shortest_win.map_or(d, |w| w.min(d))),
            Proof::Loss(d) => longest_loss = longest_loss.max(d),
            Proof::Draw => any_draw = true,
            Proof::Unknown => all_proven = false,
        }
    }
    match shortest_win {
        Some(d) => Some(Proof::Win(d.saturating_add(1))),
        None if !all_proven => None,
        None if any_draw => Some(Proof::Draw),
        None => Some(Proof::Loss(longest_loss.saturating_add(1))),
    }
}

/// Sort key of a child for the move choice: proven wins (shortest first),
/// then by visits and mean; proven losses last (longest first).
pub fn preference<M>(node: &Node<M>) -> (u8, i64, u64) {
    match node.proof {
        Proof::Win(d) => (3, -(d as i64), 0),
        Proof::Loss(d) => (0, d as i64, 0),
        _ => (1, node.visits as i64, node.halves),
    }
}
