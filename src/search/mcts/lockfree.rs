//! Experiment, used only by the bench: tree parallelisation without a lock.
//! Statistics and proofs are atomics, children are published once through a
//! `OnceLock`, the visit is counted on the way down (virtual loss). It has
//! no tree reuse, report or move choice; `benches/mcts.rs` compares its
//! playout rate and solve time with the locked shared tree.

use super::tree::{Proof, Walker, combine};
use crate::game::{Game, GameState, Player};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};

/// A node whose fields other threads may update at any time.
struct Node<M> {
    mv: Option<M>,
    mover: Player,
    visits: AtomicU32,
    halves: AtomicU64,
    proof: AtomicU32,
    checked: AtomicBool,
    expanding: AtomicBool,
    children: OnceLock<Box<[Node<M>]>>,
}

/// Packs a proof into a `u32` (0 is unknown).
fn encode(proof: Proof) -> u32 {
    match proof {
        Proof::Unknown => 0,
        Proof::Win(d) => 1 << 16 | d as u32,
        Proof::Loss(d) => 2 << 16 | d as u32,
        Proof::Draw => 3 << 16,
    }
}

/// Unpacks [`encode`].
fn decode(bits: u32) -> Proof {
    let d = (bits & 0xFFFF) as u16;
    match bits >> 16 {
        1 => Proof::Win(d),
        2 => Proof::Loss(d),
        3 => Proof::Draw,
        _ => Proof::Unknown,
    }
}

impl<M> Node<M> {
    fn new(mv: Option<M>, mover: Player) -> Self {
        Node {
            mv,
            mover,
            visits: AtomicU32::new(0),
            halves: AtomicU64::new(0),
            proof: AtomicU32::new(0),
            checked: AtomicBool::new(false),
            expanding: AtomicBool::new(false),
            children: OnceLock::new(),
        }
    }

    fn proof(&self) -> Proof {
        decode(self.proof.load(Acquire))
    }

    /// Sets the proof unless another thread already did.
    fn prove(&self, proof: Proof) {
        let _ = self
            .proof
            .compare_exchange(0, encode(proof), AcqRel, Acquire);
    }
}

/// The shared tree.
struct Tree<M> {
    root: Node<M>,
    used: AtomicUsize,
    capacity: usize,
}

impl<M: Copy + PartialEq> Tree<M> {
    /// Visits a leaf needs before expansion (as in the locked tree).
    fn threshold(&self) -> u32 {
        1 << (4 * self.used.load(Relaxed) / self.capacity).min(4)
    }

    /// One iteration; returns whether the root is proven.
    fn iterate<'a, G: Game<Move = M>>(
        &'a self,
        w: &mut Walker<M>,
        path: &mut Vec<&'a Node<M>>,
        moves: &mut Vec<M>,
        root: &G,
        exploration: f64,
    ) -> bool {
        let mut pos = root.clone();
        w.start_iteration();
        path.clear();
        let mut node = &self.root;
        node.visits.fetch_add(1, Relaxed);
        path.push(node);
        let proven = loop {
            if let Some(outcome) = node.proof().outcome(node.mover) {
                break Some(outcome);
            }
            let children = match node.children.get() {
                Some(children) => children,
                None => match self.expand(node, &pos, moves) {
                    Some(children) => children,
                    None => break None,
                },
            };
            node = choose(node, children, exploration);
            pos.play(node.mv.expect("children have moves"));
            if let Some(key) = pos.repetition_key() {
                w.record(key);
            }
            if !node.checked.load(Acquire) {
                if let Some(outcome) = pos.outcome().or_else(|| w.repetition(&pos)) {
                    node.prove(Proof::of_outcome(outcome, node.mover));
                }
                node.checked.store(true, Release);
            }
            node.visits.fetch_add(1, Relaxed);
            path.push(node);
        };
        let outcome = proven.unwrap_or_else(|| w.playout(&mut pos, true));
        for n in path.iter() {
            n.halves
                .fetch_add((outcome.sign_for(n.mover) + 1) as u64, Relaxed);
        }
        for k in (1..path.len()).rev() {
            let (child, parent) = (path[k], path[k - 1]);
            if child.proof() == Proof::Unknown || parent.proof() != Proof::Unknown {
                break;
            }
            if !try_prove(parent) {
                break;
            }
        }
        self.root.proof() != Proof::Unknown
    }

    /// Expands `node` if it is visited enough, nobody else is expanding it
    /// and the budget allows; otherwise the caller plays out from it.
    fn expand<'a, G: Game<Move = M>>(
        &self,
        node: &'a Node<M>,
        pos: &G,
        moves: &mut Vec<M>,
    ) -> Option<&'a [Node<M>]> {
        let is_root = std::ptr::eq(node, &self.root);
        if !is_root && node.visits.load(Relaxed) <= self.threshold() {
            return None;
        }
        if node.expanding.swap(true, AcqRel) {
            return None;
        }
        pos.generate_moves(moves);
        let used = self.used.fetch_add(moves.len(), Relaxed);
        if moves.is_empty() || (!is_root && used + moves.len() > self.capacity) {
            self.used.fetch_sub(moves.len(), Relaxed);
            node.expanding.store(false, Release);
            return None;
        }
        let side = pos.side_to_move();
        let children = moves.iter().map(|&mv| Node::new(Some(mv), side)).collect();
        let _ = node.children.set(children);
        node.children.get().map(|c| &c[..])
    }
}

/// UCT among children that are not proven losses; unvisited first.
fn choose<'a, M>(parent: &Node<M>, children: &'a [Node<M>], exploration: f64) -> &'a Node<M> {
    let log_n = (parent.visits.load(Relaxed).max(1) as f64).ln();
    let mut best = &children[0];
    let mut best_value = f64::NEG_INFINITY;
    for child in children {
        if matches!(child.proof(), Proof::Loss(_)) {
            continue;
        }
        let n = child.visits.load(Relaxed);
        if n == 0 {
            return child;
        }
        let mean = child.halves.load(Relaxed) as f64 / (2.0 * n as f64);
        let value = mean + exploration * (log_n / n as f64).sqrt();
        if value > best_value {
            best_value = value;
            best = child;
        }
    }
    best
}

/// MCTS-Solver step, as in the locked tree.
fn try_prove<M>(parent: &Node<M>) -> bool {
    let Some(children) = parent.children.get() else {
        return false;
    };
    let Some(value) = combine(children.iter().map(Node::proof)) else {
        return false;
    };
    let side = children[0].mover;
    parent.prove(if parent.mover == side {
        value
    } else {
        value.flip()
    });
    true
}

/// Runs `playouts` iterations (or until the root is proven) on `threads`
/// threads over one lock-free tree of `memory_bytes`. Returns the playouts
/// done and whether the root was proven.
#[doc(hidden)]
pub fn lock_free_search<G: Game>(
    state: &GameState<G>,
    threads: usize,
    playouts: u64,
    memory_bytes: usize,
) -> (u64, bool) {
    let side = state.position.side_to_move();
    let tree = Tree {
        root: Node::new(None, side),
        used: AtomicUsize::new(1),
        capacity: (memory_bytes / std::mem::size_of::<Node<G::Move>>()).max(1),
    };
    tree.root.checked.store(true, Relaxed);
    let done = AtomicU64::new(0);
    let solved = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for i in 0..threads {
            let (tree, done, solved) = (&tree, &done, &solved);
            scope.spawn(move || {
                let mut w = Walker::new(0xA6 ^ i as u64);
                w.begin(&state.keys);
                let (mut path, mut moves) = (Vec::new(), Vec::new());
                while !solved.load(Relaxed) && done.fetch_add(1, Relaxed) < playouts {
                    if tree.iterate(&mut w, &mut path, &mut moves, &state.position, 1.0) {
                        solved.store(true, Relaxed);
                    }
                }
            });
        }
    });
    let proven = tree.root.proof() != Proof::Unknown;
    (done.load(Relaxed).min(playouts), proven)
}
