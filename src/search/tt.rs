//! The transposition table: a fixed-size hash table of search results,
//! shared by all iterations of a search and kept between searches.
//!
//! - Size comes from the `Hash` option (MiB) and never grows.
//! - Entries live in buckets of [`BUCKET_SIZE`]; a position can only be stored
//!   in the bucket its key selects, so a probe looks at a handful of entries.
//! - Replacement is depth-preferred with ageing: the victim in a full bucket
//!   is the entry with the lowest `depth - AGE_WEIGHT × age`, where age counts
//!   searches since the entry was written. Old deep results therefore
//!   give way to fresh ones after a few moves.
//! - Proven scores are stored relative to the node (distance from the node,
//!   not from the root), so they stay correct when found again at another ply.

use super::MATE_BOUND;
use std::mem::size_of;

/// Entries per bucket.
pub const BUCKET_SIZE: usize = 4;
/// How many plies of depth one search of age is worth when choosing a victim.
const AGE_WEIGHT: i32 = 4;

/// What a stored score means relative to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value.
    Exact,
    /// The true value is at least this (the search failed high).
    Lower,
    /// The true value is at most this (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<M> {
    /// Full 64-bit key, to tell positions of the same bucket apart.
    pub key: u64,
    /// Best (or refuting) move found, tried first next time.
    pub best: Option<M>,
    /// Score, relative to the node for proven scores.
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i16,
    /// Meaning of the score.
    pub bound: Bound,
    /// Search generation that wrote the entry.
    generation: u8,
}

/// A fixed-size transposition table for moves of type `M`.
#[derive(Clone, Debug)]
pub struct TranspositionTable<M> {
    buckets: Vec<[Option<Entry<M>>; BUCKET_SIZE]>,
    generation: u8,
}

impl<M: Copy> TranspositionTable<M> {
    /// A table using about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> Self {
        let bucket_bytes = size_of::<[Option<Entry<M>>; BUCKET_SIZE]>();
        let count = (megabytes.saturating_mul(1 << 20) / bucket_bytes).max(1);
        TranspositionTable {
            buckets: vec![[None; BUCKET_SIZE]; count],
            generation: 0,
        }
    }

    /// Number of entries the table can hold.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET_SIZE
    }

    /// Forgets everything (`uginewgame`).
    pub fn clear(&mut self) {
        self.buckets.fill([None; BUCKET_SIZE]);
        self.generation = 0;
    }

    /// Marks the start of a new search, so older entries age.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// Maps a key to a bucket without a power-of-two size: the high half of
    /// a 64×64-bit product is uniform over `0..len`.
    fn bucket_index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// The entry stored for `key`, with its score made relative to `ply`.
    pub fn probe(&self, key: u64, ply: u32) -> Option<Entry<M>> {
        let bucket = &self.buckets[self.bucket_index(key)];
        let mut entry = bucket.iter().flatten().find(|e| e.key == key).copied()?;
        entry.score = score_from_table(entry.score, ply);
        Some(entry)
    }

    /// Stores a result. `score` is relative to the root; `ply` is the node's
    /// distance from it.
    pub fn store(&mut self, key: u64, entry: StoreArgs<M>, ply: u32) {
        let generation = self.generation;
        let index = self.bucket_index(key);
        let bucket = &mut self.buckets[index];
        let slot = choose_slot(bucket, key, generation);
        let previous = bucket[slot];
        // Keep the old best move when the new result has none for this key.
        let best = entry
            .best
            .or_else(|| previous.filter(|p| p.key == key).and_then(|p| p.best));
        bucket[slot] = Some(Entry {
            key,
            best,
            score: score_to_table(entry.score, ply),
            depth: entry.depth,
            bound: entry.bound,
            generation,
        });
    }
}

/// The arguments of [`TranspositionTable::store`].
#[derive(Clone, Copy, Debug)]
pub struct StoreArgs<M> {
    /// Best move found, if any.
    pub best: Option<M>,
    /// Score relative to the root.
    pub score: i32,
    /// Remaining depth searched.
    pub depth: i16,
    /// Meaning of the score.
    pub bound: Bound,
}

/// Picks the slot to write: the same key if present, else an empty slot,
/// else the least valuable entry (shallow and old).
fn choose_slot<M>(bucket: &[Option<Entry<M>>; BUCKET_SIZE], key: u64, generation: u8) -> usize {
    if let Some(i) = bucket
        .iter()
        .position(|e| e.as_ref().is_some_and(|e| e.key == key))
    {
        return i;
    }
    if let Some(i) = bucket.iter().position(Option::is_none) {
        return i;
    }
    let worth = |e: &Option<Entry<M>>| match e {
        Some(e) => {
            let age = generation.wrapping_sub(e.generation) as i32;
            e.depth as i32 - AGE_WEIGHT * age
        }
        None => i32::MIN,
    };
    (0..BUCKET_SIZE)
        .min_by_key(|&i| worth(&bucket[i]))
        .unwrap_or(0)
}

/// Proven scores count plies from the root during search; in the table they
/// count from the node itself.
fn score_to_table(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::win_in;

    fn args(score: i32, depth: i16) -> StoreArgs<u16> {
        StoreArgs {
            best: Some(7),
            score,
            depth,
            bound: Bound::Exact,
        }
    }

    #[test]
    fn stores_and_finds_by_key() {
        let mut tt = TranspositionTable::<u16>::new(1);
        tt.store(0xDEAD_BEEF, args(42, 5), 0);
        let e = tt.probe(0xDEAD_BEEF, 0).expect("stored");
        assert_eq!((e.score, e.depth, e.best), (42, 5, Some(7)));
        assert!(tt.probe(0xBEEF_DEAD, 0).is_none());
    }

    #[test]
    fn mate_scores_are_relative_to_the_node() {
        let mut tt = TranspositionTable::<u16>::new(1);
        // Found at ply 3: win 5 plies from the root = 2 plies from the node.
        tt.store(1, args(win_in(5), 4), 3);
        // Reached again at ply 1: the same win is 3 plies from the root.
        assert_eq!(tt.probe(1, 1).map(|e| e.score), Some(win_in(3)));
    }

    #[test]
    fn full_bucket_replaces_shallowest_then_oldest() {
        let mut tt = TranspositionTable::<u16>::new(0); // one bucket
        assert_eq!(tt.capacity(), BUCKET_SIZE);
        for (i, depth) in [9, 3, 7, 8].into_iter().enumerate() {
            tt.store(100 + i as u64, args(0, depth), 0);
        }
        tt.store(200, args(0, 5), 0);
        assert!(tt.probe(101, 0).is_none(), "depth 3 entry is the victim");
        assert!(tt.probe(200, 0).is_some());
        // Three searches later the deep entries are old and give way.
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(300, args(0, 1), 0);
        assert!(
            tt.probe(200, 0).is_none(),
            "oldest shallow entry is replaced"
        );
        tt.clear();
        assert!(tt.probe(100, 0).is_none());
    }
}
