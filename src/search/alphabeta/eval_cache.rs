//! A small per-thread cache of network evaluations, keyed by the position's
//! hash.
//!
//! Iterative deepening and re-searches evaluate the same positions again
//! and again. For a network whose first layer does not fit the processor's
//! second-level cache, an evaluation reads kilobytes of weights from far
//! away, and one probe here is cheaper; for a smaller network it is not
//! (measured in issue 10's notes), so the search only uses the cache for
//! [`crate::network::Network::is_large`] networks.

/// log2 of the number of slots: 65,536 slots of 8 bytes, 512 KiB.
const BITS: u32 = 16;
/// The low bits of a slot hold the value; the rest hold the key's high bits.
const VALUE_MASK: u64 = 0xFFFF;

/// Evaluations by position hash, direct-mapped: a new entry replaces
/// whatever shared its slot.
#[derive(Debug, Default)]
pub struct EvalCache {
    slots: Vec<u64>,
}

impl EvalCache {
    /// The cached value of the position with hash `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<i32> {
        let slot = *self.slots.get(Self::index(key))?;
        (slot != 0 && slot & !VALUE_MASK == key & !VALUE_MASK).then_some(slot as u16 as i16 as i32)
    }

    /// Remembers `value` for `key`. Values outside `i16` are not kept; when
    /// the memory for the table is refused, nothing is kept.
    #[inline]
    pub fn put(&mut self, key: u64, value: i32) {
        let Ok(value) = i16::try_from(value) else {
            return;
        };
        if self.slots.is_empty() && !self.allocate() {
            return;
        }
        let index = Self::index(key);
        self.slots[index] = (key & !VALUE_MASK) | u64::from(value as u16);
    }

    /// Forgets every value (the network changed).
    pub fn clear(&mut self) {
        self.slots.fill(0);
    }

    fn allocate(&mut self) -> bool {
        let count = 1usize << BITS;
        if self.slots.try_reserve_exact(count).is_err() {
            return false;
        }
        self.slots.resize(count, 0);
        true
    }

    /// The slot of `key`: its low bits, the same bits a slot replaces by
    /// the value, so slot and tag together still check the whole key.
    fn index(key: u64) -> usize {
        (key as usize) & ((1 << BITS) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_values_by_key_and_forgets_on_clear() {
        let mut cache = EvalCache::default();
        assert_eq!(cache.get(12345), None, "empty before the first put");
        cache.put(0xABCD_0000_0001_2345, -321);
        assert_eq!(cache.get(0xABCD_0000_0001_2345), Some(-321));
        // Same slot, other key: a miss, then a replacement.
        assert_eq!(cache.get(0xABCE_0000_0001_2345), None);
        cache.put(0xABCE_0000_0001_2345, 7);
        assert_eq!(cache.get(0xABCE_0000_0001_2345), Some(7));
        assert_eq!(cache.get(0xABCD_0000_0001_2345), None);
        cache.put(99, 100_000);
        assert_eq!(cache.get(99), None, "a value beyond i16 is not kept");
        cache.clear();
        assert_eq!(cache.get(0xABCE_0000_0001_2345), None);
    }
}
