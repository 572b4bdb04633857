//! The transposition table: what the search learnt of positions, kept between moves, and the
//! Zobrist keys it is filed under.
//!
//! Two entries a bucket: the first keeps the deepest result of this search (a deep entry
//! saves the most work, so a shallow one does not push it out), the second always takes the
//! newest. A searcher is kept between moves, so each `think` is a new generation and the deep
//! slot gives way to anything once its entry is from an earlier one.

use std::sync::LazyLock;

use crate::ayo::board::PITS;

pub(super) const EXACT: u8 = 1;
pub(super) const LOWER: u8 = 2;
pub(super) const UPPER: u8 = 3;

/// What the table holds of one position.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub key: u64,
    pub value: i32,
    pub depth: u8,
    pub bound: u8,
    /// The best move's pit number, 0 for none.
    pub best: u8,
    /// The search (`think`) that wrote it, modulo 256.
    generation: u8,
}

impl Entry {
    pub fn new(key: u64, value: i32, depth: u8, bound: u8, best: u8) -> Entry {
        Entry {
            key,
            value,
            depth,
            bound,
            best,
            generation: 0,
        }
    }

    fn pack(self) -> [u64; 2] {
        [
            self.key,
            u64::from(self.value as u32)
                | u64::from(self.depth) << 32
                | u64::from(self.bound) << 40
                | u64::from(self.best) << 48
                | u64::from(self.generation) << 56,
        ]
    }

    fn unpack([key, data]: [u64; 2]) -> Entry {
        Entry {
            key,
            value: data as u32 as i32,
            depth: (data >> 32) as u8,
            bound: (data >> 40) as u8,
            best: (data >> 48) as u8,
            generation: (data >> 56) as u8,
        }
    }
}

pub(super) struct Table {
    /// Buckets of two packed entries: the deep one, then the newest.
    slots: Vec<[u64; 2]>,
    generation: u8,
}

impl Table {
    /// A table of `entries` (a power of two, at least 2) empty entries, every page written:
    /// a zeroed allocation is only mapped, and the first move's search would pay for the pages
    /// as it met them (tens of milliseconds of a 64 MiB champion's table), so they are paid
    /// for here, before any clock runs.
    pub fn new(entries: usize) -> Table {
        let mut slots = Vec::with_capacity(entries);
        slots.resize(entries, [0; 2]);
        Table {
            slots,
            generation: 0,
        }
    }

    /// A new search begins: what earlier ones found deep may now be pushed out.
    pub fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn bucket(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 2)
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.slots[b..b + 2]
            .iter()
            .map(|&s| Entry::unpack(s))
            .find(|e| e.key == key && e.bound != 0)
    }

    pub fn store(&mut self, mut entry: Entry) {
        entry.generation = self.generation;
        let b = self.bucket(entry.key);
        let deep = Entry::unpack(self.slots[b]);
        let slot = if deep.key == entry.key
            || deep.bound == 0
            || deep.generation != self.generation
            || entry.depth >= deep.depth
        {
            if deep.key != entry.key && deep.bound != 0 && deep.generation == self.generation {
                // The deep entry it replaces is still this search's: it becomes the newest.
                self.slots[b + 1] = deep.pack();
            }
            b
        } else {
            b + 1
        };
        self.slots[slot] = entry.pack();
    }
}

pub(super) struct Zobrist {
    pub pits: [[u64; 49]; PITS],
    pub store: [u64; 49],
    pub since: [u64; 256],
    pub north: u64,
}

pub(super) static ZOBRIST: LazyLock<Zobrist> = LazyLock::new(|| {
    // A fixed seed: keys are the same in every run, so searches repeat exactly.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut z = Zobrist {
        pits: [[0; 49]; PITS],
        store: [0; 49],
        since: [0; 256],
        north: next(),
    };
    for pit in z.pits.iter_mut() {
        pit.iter_mut().for_each(|k| *k = next());
    }
    z.store.iter_mut().for_each(|k| *k = next());
    z.since.iter_mut().for_each(|k| *k = next());
    z
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_entry_survives_shallow_ones_of_its_search_and_gives_way_in_the_next() {
        let mut table = Table::new(1 << 4);
        // Keys in one bucket: the same low bits.
        let (deep, a, b) = (0x100, 0x200, 0x300);
        table.store(Entry::new(deep, 7, 12, EXACT, 1));
        table.store(Entry::new(a, 1, 2, LOWER, 2));
        table.store(Entry::new(b, 2, 3, UPPER, 3));
        assert_eq!(table.probe(deep).map(|e| e.depth), Some(12));
        assert!(
            table.probe(a).is_none(),
            "the newest slot took the later one"
        );
        assert_eq!(table.probe(b).map(|e| e.value), Some(2));
        table.next_generation();
        table.store(Entry::new(a, 5, 1, EXACT, 4));
        assert_eq!(table.probe(a).map(|e| e.best), Some(4));
        assert!(table.probe(deep).is_none(), "an old deep entry gives way");
        assert!(table.probe(0x400).is_none());
    }

    #[test]
    fn a_deeper_entry_keeps_the_one_it_displaces_as_the_newest() {
        let mut table = Table::new(1 << 4);
        table.store(Entry::new(0x100, 1, 5, EXACT, 1));
        table.store(Entry::new(0x200, 2, 9, EXACT, 2));
        assert_eq!(table.probe(0x200).map(|e| e.depth), Some(9));
        assert_eq!(table.probe(0x100).map(|e| e.depth), Some(5));
    }
}
