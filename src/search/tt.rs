//! The transposition table: a fixed-size hash table of search results,
//! shared by every search thread and kept between searches.
//!
//! - Size comes from the `Hash` option (MiB) and never grows.
//! - Lock-free: an entry is two 64-bit words, the packed data and the key
//!   XOR-ed with that data. Threads read and write them with relaxed atomics
//!   and no lock; a write torn by another thread leaves words that no longer
//!   XOR to the key, so the probe sees a miss instead of a wrong result.
//! - Entries live in buckets of [`BUCKET_SIZE`] (64 bytes, one cache line);
//!   a position can only be stored in the bucket its key selects.
//! - Replacement is depth-preferred with ageing: the victim in a full bucket
//!   is the entry with the lowest `depth - AGE_WEIGHT × age`, where age counts
//!   searches since the entry was written.
//! - Proven scores are stored relative to the node (distance from the node,
//!   not from the root), so they stay correct when found again at another ply.
//! - Moves are stored as the game's compact code
//!   ([`crate::game::Game::move_code`]); a move without a code is not stored.

use super::MATE_BOUND;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Entries per bucket.
pub const BUCKET_SIZE: usize = 4;
/// How many plies of depth one search of age is worth when choosing a victim.
const AGE_WEIGHT: i32 = 4;
/// Bytes of one entry (two words).
const ENTRY_BYTES: usize = 16;
/// Generations wrap at this (six bits in an entry).
const GENERATIONS: u8 = 64;

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

impl Bound {
    fn bits(self) -> u64 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    fn from_bits(bits: u64) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// One stored search result, as a probe returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Code of the best (or refuting) move found, tried first next time.
    pub best: Option<u32>,
    /// Score (made relative to the probing node's ply for proven scores).
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i16,
    /// Meaning of the score.
    pub bound: Bound,
    /// Search generation that wrote the entry.
    generation: u8,
}

/// The arguments of [`TranspositionTable::store`].
#[derive(Clone, Copy, Debug)]
pub struct StoreArgs {
    /// Code of the best move found, if any.
    pub best: Option<u32>,
    /// Score relative to the root.
    pub score: i32,
    /// Remaining depth searched.
    pub depth: i16,
    /// Meaning of the score.
    pub bound: Bound,
}

/// Data word layout: move code + 1 (0 = none) in bits 32–63, score in
/// 16–31, depth in 8–15, bound in 6–7, generation in 0–5.
fn pack(entry: &Entry) -> u64 {
    let code = entry.best.map_or(0, |c| c as u64 + 1);
    (code << 32)
        | ((entry.score as i16 as u16 as u64) << 16)
        | ((entry.depth.clamp(-128, 127) as i8 as u8 as u64) << 8)
        | (entry.bound.bits() << 6)
        | (entry.generation % GENERATIONS) as u64
}

fn unpack(data: u64) -> Option<Entry> {
    let code = (data >> 32) as u32;
    Some(Entry {
        best: code.checked_sub(1),
        score: (data >> 16) as u16 as i16 as i32,
        depth: (data >> 8) as u8 as i8 as i16,
        bound: Bound::from_bits((data >> 6) & 3)?,
        generation: (data & 0x3F) as u8,
    })
}

/// One slot: the data and the key XOR-ed with it (both zero when empty).
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The slot's key and entry, or `None` when empty or torn.
    fn read(&self) -> Option<(u64, Entry)> {
        let data = self.data.load(Ordering::Relaxed);
        let key = self.check.load(Ordering::Relaxed) ^ data;
        unpack(data).map(|entry| (key, entry))
    }

    fn write(&self, key: u64, entry: &Entry) {
        let data = pack(entry);
        self.check.store(key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.check.store(0, Ordering::Relaxed);
        self.data.store(0, Ordering::Relaxed);
    }
}

/// One bucket, aligned so that it fills exactly one cache line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; BUCKET_SIZE]);

/// A fixed-size transposition table that any number of threads share.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} entries)", self.capacity())
    }
}

impl TranspositionTable {
    /// A table using about `megabytes` MiB (at least one bucket). An
    /// allocation the system refuses is an error, not an abort.
    pub fn new(megabytes: usize) -> Result<Self, String> {
        let count = (megabytes.saturating_mul(1 << 20) / (ENTRY_BYTES * BUCKET_SIZE)).max(1);
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate a {megabytes} MiB hash table"))?;
        crate::memory::advise_huge_pages(&mut buckets);
        buckets.resize_with(count, Bucket::default);
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Number of entries the table can hold.
    pub fn capacity(&self) -> usize {
        self.buckets.len() * BUCKET_SIZE
    }

    /// Forgets everything (`uginewgame`).
    pub fn clear(&self) {
        self.slots().for_each(Slot::clear);
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so older entries age.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) % GENERATIONS;
        self.generation.store(next, Ordering::Relaxed);
    }

    fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.buckets.iter().flat_map(|b| b.0.iter())
    }

    /// The slots of the bucket `key` selects. The high half of a 64×64-bit
    /// product is uniform over the bucket count without a power-of-two size.
    fn bucket(&self, key: u64) -> &[Slot; BUCKET_SIZE] {
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index].0
    }

    /// Asks the processor to start loading the bucket of `key`, so that
    /// the probe a little later does not wait for memory (a table much
    /// larger than the caches otherwise costs a memory round trip per
    /// node). Does nothing where the architecture offers no hint.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.bucket(key);
            // SAFETY: prefetching is only a hint and never faults; the
            // pointer is into this table. SSE is part of every x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.as_ptr().cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, with its score made relative to `ply`.
    pub fn probe(&self, key: u64, ply: u32) -> Option<Entry> {
        let mut entry = self
            .bucket(key)
            .iter()
            .filter_map(Slot::read)
            .find(|&(k, _)| k == key)?
            .1;
        entry.score = score_from_table(entry.score, ply);
        Some(entry)
    }

    /// Stores a result. `score` is relative to the root; `ply` is the node's
    /// distance from it.
    pub fn store(&self, key: u64, args: StoreArgs, ply: u32) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let contents: [Option<(u64, Entry)>; BUCKET_SIZE] =
            std::array::from_fn(|i| bucket[i].read());
        let slot = choose_slot(&contents, key, generation);
        // Keep the old best move when the new result has none for this key.
        let previous_best = contents[slot]
            .filter(|&(k, _)| k == key)
            .and_then(|(_, e)| e.best);
        let entry = Entry {
            best: args.best.or(previous_best),
            score: score_to_table(args.score, ply),
            depth: args.depth,
            bound: args.bound,
            generation,
        };
        bucket[slot].write(key, &entry);
    }
}

/// Picks the slot to write: the same key if present, else an empty slot,
/// else the least valuable entry (shallow and old).
fn choose_slot(bucket: &[Option<(u64, Entry)>; BUCKET_SIZE], key: u64, generation: u8) -> usize {
    if let Some(i) = bucket.iter().position(|e| e.is_some_and(|(k, _)| k == key)) {
        return i;
    }
    if let Some(i) = bucket.iter().position(Option::is_none) {
        return i;
    }
    let worth = |e: &Option<(u64, Entry)>| match e {
        Some((_, e)) => {
            let age = (generation + GENERATIONS - e.generation) % GENERATIONS;
            e.depth as i32 - AGE_WEIGHT * age as i32
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
    use crate::search::{MATE, win_in};

    fn args(score: i32, depth: i16) -> StoreArgs {
        StoreArgs {
            best: Some(7),
            score,
            depth,
            bound: Bound::Exact,
        }
    }

    #[test]
    fn stores_and_finds_by_key() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(0xDEAD_BEEF, args(42, 5), 0);
        let e = tt.probe(0xDEAD_BEEF, 0).expect("stored");
        assert_eq!((e.score, e.depth, e.best), (42, 5, Some(7)));
        assert!(tt.probe(0xBEEF_DEAD, 0).is_none());
    }

    #[test]
    fn packing_round_trips_extremes() {
        for (score, depth, best, bound) in [
            (-MATE, -1, None, Bound::Upper),
            (MATE, 127, Some(u32::MAX - 1), Bound::Lower),
            (0, 0, Some(0), Bound::Exact),
        ] {
            let entry = Entry {
                best,
                score,
                depth,
                bound,
                generation: 63,
            };
            assert_eq!(unpack(pack(&entry)), Some(entry));
        }
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let tt = TranspositionTable::new(0).unwrap();
        tt.store(1234, args(42, 5), 0);
        // Another thread's data word lands beside this key's check word.
        let slot = tt.bucket(1234).iter().find(|s| s.read().is_some()).unwrap();
        let other = Entry {
            best: Some(3),
            score: -900,
            depth: 9,
            bound: Bound::Lower,
            generation: 0,
        };
        slot.data.store(pack(&other), Ordering::Relaxed);
        assert!(tt.probe(1234, 0).is_none());
    }

    #[test]
    fn mate_scores_are_relative_to_the_node() {
        let tt = TranspositionTable::new(1).unwrap();
        // Found at ply 3: win 5 plies from the root = 2 plies from the node.
        tt.store(1, args(win_in(5), 4), 3);
        // Reached again at ply 1: the same win is 3 plies from the root.
        assert_eq!(tt.probe(1, 1).map(|e| e.score), Some(win_in(3)));
    }

    #[test]
    fn full_bucket_replaces_shallowest_then_oldest() {
        let tt = TranspositionTable::new(0).unwrap(); // one bucket
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

    #[test]
    fn threads_share_the_table_without_wrong_reads() {
        let tt = TranspositionTable::new(0).unwrap();
        std::thread::scope(|scope| {
            for t in 0..4u64 {
                let tt = &tt;
                scope.spawn(move || {
                    for i in 0..20_000u64 {
                        let key = (i % 8) * 1000 + t;
                        // Each key always carries its own score.
                        tt.store(key, args((key % 500) as i32, 1), 0);
                        if let Some(e) = tt.probe(key, 0) {
                            assert_eq!(e.score, (key % 500) as i32);
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn an_impossible_size_is_an_error() {
        assert!(TranspositionTable::new(usize::MAX >> 8).is_err());
    }
}
