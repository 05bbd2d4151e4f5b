//! The positions other threads are searching right now, so that a thread
//! can leave them for later (ABDADA's deferral, on a small side table).
//!
//! With lazy SMP alone, two threads at the same node search its moves in
//! the same order and mostly duplicate each other. Here a thread about to
//! search a move (other than a node's first) that another thread is
//! already searching puts it back to the end of the node's move list; by
//! the time it comes back the other thread has usually stored its result
//! in the transposition table, and meanwhile this thread searches moves
//! nobody is on. Only nodes with enough depth left take part, which keeps
//! the table small and its traffic low.
//!
//! Each slot holds the key of one position in progress or 0. Marks are
//! plain atomic stores (a later mark may overwrite an earlier one) and an
//! unmark clears a slot only if it still holds its key, so a lost mark
//! costs one duplicated subtree, never a wrong result: the table only
//! changes the order moves are searched in.

use std::sync::atomic::{AtomicU64, Ordering};

/// Slots in the table (a power of two): far more than the nodes with
/// `ThreadTuning::defer_min_depth` (3) left that a few threads are inside at
/// once.
const SLOTS: usize = 1 << 14;

/// The table of positions in progress, shared by every thread of a search.
pub struct InProgress {
    slots: Vec<AtomicU64>,
}

impl Default for InProgress {
    fn default() -> Self {
        InProgress {
            slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl InProgress {
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (SLOTS - 1)]
    }

    /// Whether some thread has marked the position with this key.
    pub fn is_busy(&self, key: u64) -> bool {
        key != 0 && self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the position with this key as being searched.
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    /// Removes this thread's mark, unless another has replaced it.
    pub fn leave(&self, key: u64) {
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_lasts_until_its_owner_leaves() {
        let table = InProgress::default();
        let key = 0x1234_5678_9ABC_DEF0;
        assert!(!table.is_busy(key));
        table.enter(key);
        assert!(table.is_busy(key));
        // Another position in the same slot replaces the mark; the first
        // owner's leave then leaves the newer mark alone.
        let other = key ^ (1 << 40);
        table.enter(other);
        assert!(!table.is_busy(key));
        table.leave(key);
        assert!(table.is_busy(other));
        table.leave(other);
        assert!(!table.is_busy(other));
    }

    #[test]
    fn key_zero_is_never_busy() {
        let table = InProgress::default();
        table.enter(0);
        assert!(!table.is_busy(0));
    }
}
