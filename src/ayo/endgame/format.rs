//! The database's bytes: written by the build, read back checked whole. Databases stored in
//! the first format (every layer in full) still read, as they are.

use std::ops::Range;

use super::{compositions, Counts, Endgame, EndgameError, Layout, Table, PITS};
use crate::ayo::board::SEEDS;
use crate::ayo::rules::{Repetition, Rules};

/// The packed format's magic, and the first format's (every layer a full byte array).
pub(super) const MAGIC: &[u8; 8] = b"AYOEGDB2";
const MAGIC_LAYERED: &[u8; 8] = b"AYOEGDB1";

/// Boards a block covers. A block is 64 bytes: the earlier changes before it (a u32) and
/// each board's slot, so a lookup reads one block, and the board's earlier changes only
/// when fewer plies are left than its last value holds from.
pub(super) const BLOCK: usize = 20;
/// A block's bytes.
pub(super) const BLOCK_BYTES: usize = 4 + 3 * BLOCK;

/// The most seeds whose bounds fit a byte a board (packed as pairs, below); more keep both
/// bounds whole.
pub(super) const PAIRED_SEEDS: u8 = 21;

/// Each pair's byte's bounds, `(a, b)`: a board of `n` seeds gains `2a − n` to `2b − n`.
const PAIRS: [(u8, u8); 256] = {
    let mut pairs = [(0u8, 0u8); 256];
    let (mut b, mut code) = (0u8, 0usize);
    while b <= PAIRED_SEEDS {
        let mut a = 0u8;
        while a <= b {
            pairs[code] = (a, b);
            a += 1;
            code += 1;
        }
        b += 1;
    }
    pairs
};

/// How many pairs a board of `n` seeds can have.
pub(super) fn pair_count(n: u8) -> usize {
    (usize::from(n) + 1) * (usize::from(n) + 2) / 2
}

/// The byte holding bounds `lo..=hi` of a board of `n` seeds: the seeds the mover ends with
/// are `(v + n) / 2` of a gain `v` (every seed goes to one side or the other, so a gain
/// has the parity of `n`), 0 to `n` at each end, and the pair `(a, b)` is `b(b + 1)/2 + a`.
pub(super) fn pair_byte(n: u8, lo: i8, hi: i8) -> u8 {
    let (twice_a, twice_b) = (i32::from(lo) + i32::from(n), i32::from(hi) + i32::from(n));
    // Bounds out of order or of the wrong parity are the build's own error: never stored.
    assert!(
        n <= PAIRED_SEEDS
            && twice_a % 2 == 0
            && twice_b % 2 == 0
            && 0 <= twice_a
            && twice_a <= twice_b
            && twice_b <= 2 * i32::from(n),
        "bounds {lo}..={hi} of a board of {n} seeds"
    );
    let (a, b) = (twice_a / 2, twice_b / 2);
    (b * (b + 1) / 2 + a) as u8
}

/// The bounds a pair's byte holds for a board of `n` seeds.
pub(super) fn pair(n: u8, byte: u8) -> (i8, i8) {
    let (a, b) = PAIRS[usize::from(byte)];
    (2 * a as i8 - n as i8, 2 * b as i8 - n as i8)
}

/// A board's three bytes in its block: how many changes it has before its last, the layer
/// its last value holds from (0: the sweep, no change), and that value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) earlier: u8,
    pub(super) from: u8,
    pub(super) value: i8,
}

impl Slot {
    /// A board whose value is `value` from layer `from` on, with no change before.
    pub(super) fn settled(from: u8, value: i8) -> Slot {
        Slot {
            earlier: 0,
            from,
            value,
        }
    }

    fn bytes(self) -> [u8; 3] {
        [self.earlier, self.from, self.value as u8]
    }

    pub(super) fn read(bytes: &[u8]) -> Slot {
        Slot {
            earlier: bytes[0],
            from: bytes[1],
            value: bytes[2] as i8,
        }
    }
}

/// The bytes before the tables.
pub(super) fn header(rules: &Rules, max_seeds: u8) -> Vec<u8> {
    let rules = serde_json::to_vec(rules).expect("rules are plain data");
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + rules.len() + 1);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&rules);
    bytes.push(max_seeds);
    bytes
}

/// Appends a packed table's count of earlier changes and its blocks for boards with
/// `slots`, and room for the earlier changes (zeros); returns where the blocks and the
/// changes start.
pub(super) fn write_changes(bytes: &mut Vec<u8>, slots: &[Slot]) -> (usize, usize) {
    let total: u64 = slots.iter().map(|s| u64::from(s.earlier)).sum();
    // The changes before a block are a u32: a table would pass that only averaging more than
    // 50 earlier changes a board at 20 seeds (84.7 million boards), where about one is
    // measured; a build that did would stop here rather than write a wrong table.
    let total32 = u32::try_from(total).expect("fewer than 2^32 earlier changes in a table");
    let size = 8 + BLOCK_BYTES * slots.len().div_ceil(BLOCK) + 2 * total as usize;
    bytes.reserve_exact(size);
    bytes.extend_from_slice(&u64::from(total32).to_le_bytes());
    let blocks = bytes.len();
    let mut before = 0u32;
    for block in slots.chunks(BLOCK) {
        bytes.extend_from_slice(&before.to_le_bytes());
        for slot in block {
            bytes.extend_from_slice(&slot.bytes());
        }
        bytes.resize(bytes.len() + 3 * (BLOCK - block.len()), 0);
        before += block.iter().map(|s| u32::from(s.earlier)).sum::<u32>();
    }
    let changes = bytes.len();
    bytes.resize(changes + 2 * total as usize, 0);
    (blocks, changes)
}

/// Reads a database's bytes from the front, saying what is missing when they end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The next `needed` bytes' place.
    fn take(&mut self, needed: usize, what: &'static str) -> Result<Range<usize>, EndgameError> {
        let left = self.bytes.len() - self.at;
        if needed > left {
            return Err(EndgameError::Truncated {
                what,
                at: self.at,
                needed,
                left,
            });
        }
        let range = self.at..self.at + needed;
        self.at += needed;
        Ok(range)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, EndgameError> {
        let range = self.take(4, what)?;
        Ok(u32::from_le_bytes(
            self.bytes[range].try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, EndgameError> {
        let range = self.take(8, what)?;
        Ok(u64::from_le_bytes(
            self.bytes[range].try_into().expect("8 bytes"),
        ))
    }
}

impl Endgame {
    pub(super) fn read(bytes: Vec<u8>, wanted: Option<&Rules>) -> Result<Endgame, EndgameError> {
        let layered = bytes.starts_with(MAGIC_LAYERED);
        if !layered && !bytes.starts_with(MAGIC) {
            return Err(
                if MAGIC.starts_with(&bytes) || MAGIC_LAYERED.starts_with(&bytes) {
                    EndgameError::Truncated {
                        what: "the magic",
                        at: 0,
                        needed: MAGIC.len(),
                        left: bytes.len(),
                    }
                } else {
                    EndgameError::BadMagic
                },
            );
        }
        let mut input = Reader {
            bytes: &bytes,
            at: MAGIC.len(),
        };
        let len = input.u32("the rules' length")?;
        let json = input.take(len as usize, "the rules")?;
        let rules: Rules = serde_json::from_slice(&bytes[json])
            .map_err(|e| EndgameError::BadRules(e.to_string()))?;
        if let Some(wanted) = wanted.filter(|&w| *w != rules) {
            return Err(EndgameError::WrongRules {
                wanted: *wanted,
                found: rules,
            });
        }
        let max_seeds = bytes[input.take(1, "the number of seeds")?.start];
        if max_seeds > SEEDS {
            return Err(EndgameError::TooManySeeds(max_seeds));
        }
        let bounded = rules.repetition == Repetition::EndsGame;
        let most = if bounded {
            2
        } else {
            usize::from(rules.no_capture_limit) + 1
        };
        let mut tables = Vec::with_capacity(usize::from(max_seeds) + 1);
        for n in 0..=max_seeds {
            let layers = input.u32("a table's layer count")?;
            let paired = bounded && layers == 1;
            if paired && (n > PAIRED_SEEDS || layered) {
                return Err(EndgameError::BadPairing { seeds: n });
            }
            if layers == 0 || layers as usize > most || (bounded && layers != 2 && !paired) {
                return Err(EndgameError::BadLayers {
                    seeds: n,
                    layers: layers.into(),
                    most,
                });
            }
            let (layers, size) = (layers as usize, compositions(n.into(), PITS));
            tables.push(if paired {
                read_pairs(&mut input, n, size)?
            } else if bounded || layered {
                read_layers(&mut input, n, layers, size, bounded)?
            } else {
                read_changes(&mut input, n, layers, size)?
            });
        }
        if input.at != bytes.len() {
            return Err(EndgameError::TrailingBytes(bytes.len() - input.at));
        }
        Ok(Endgame {
            rules,
            counts: Counts::new(),
            bytes,
            tables,
        })
    }
}

/// A table of whole layers, a signed byte a board each (the first format; the bounds).
fn read_layers(
    input: &mut Reader<'_>,
    n: u8,
    layers: usize,
    size: usize,
    bounded: bool,
) -> Result<Table, EndgameError> {
    let values = input.take(layers * size, "a table's values")?;
    let bytes = input.bytes;
    // A side gains at most every seed on the board, and loses at most as many.
    if let Some(&v) = bytes[values.clone()]
        .iter()
        .find(|&&v| (v as i8).unsigned_abs() > n)
    {
        return Err(EndgameError::BadValue {
            seeds: n,
            value: v as i8,
        });
    }
    if bounded
        && bytes[values.start..values.start + size]
            .iter()
            .zip(&bytes[values.start + size..values.end])
            .any(|(&lo, &hi)| lo as i8 > hi as i8)
    {
        return Err(EndgameError::CrossedBounds { seeds: n });
    }
    Ok(Table {
        size,
        layers,
        layout: Layout::Full {
            offset: values.start,
        },
    })
}

/// A table of bounds paired, a byte a board.
fn read_pairs(input: &mut Reader<'_>, n: u8, size: usize) -> Result<Table, EndgameError> {
    let values = input.take(size, "a table's bounds")?;
    let count = pair_count(n);
    if let Some(&byte) = input.bytes[values.clone()]
        .iter()
        .find(|&&b| usize::from(b) >= count)
    {
        return Err(EndgameError::BadPair {
            seeds: n,
            byte,
            count,
        });
    }
    Ok(Table {
        size,
        layers: 1,
        layout: Layout::Pairs {
            offset: values.start,
        },
    })
}

/// A packed table: its blocks and changes, checked against each other.
fn read_changes(
    input: &mut Reader<'_>,
    n: u8,
    layers: usize,
    size: usize,
) -> Result<Table, EndgameError> {
    let total = input.u64("a table's change count")?;
    let blocks = input
        .take(BLOCK_BYTES * size.div_ceil(BLOCK), "a table's blocks")?
        .start;
    // The changes before a block are a u32, so no more than that in a table.
    let Some(needed) = u32::try_from(total)
        .ok()
        .and_then(|t| usize::try_from(t).ok())
        .map(|t| 2 * t)
    else {
        return Err(EndgameError::BadIndex { seeds: n });
    };
    let changes = input.take(needed, "a table's changes")?.start;
    let bytes = input.bytes;
    // A board whose value never changes holds its sweep.
    let sweeps = sweeps(n);
    let mut at = 0usize;
    for (k, block) in bytes[blocks..changes].chunks_exact(BLOCK_BYTES).enumerate() {
        let before = u32::from_le_bytes(block[..4].try_into().expect("4 bytes"));
        if before as usize != at {
            return Err(EndgameError::BadIndex { seeds: n });
        }
        for (j, slot) in block[4..].chunks_exact(3).enumerate() {
            let slot = Slot::read(slot);
            let earlier = usize::from(slot.earlier);
            // Past the last board a block is padded with empty slots.
            if k * BLOCK + j >= size && slot != Slot::settled(0, 0) || at + earlier > needed / 2 {
                return Err(EndgameError::BadIndex { seeds: n });
            }
            if slot.value.unsigned_abs() > n {
                return Err(EndgameError::BadValue {
                    seeds: n,
                    value: slot.value,
                });
            }
            let from = usize::from(slot.from);
            if from >= layers || (from == 0 && earlier > 0) {
                return Err(EndgameError::BadChanges { seeds: n, layers });
            }
            if from == 0 && sweeps.get(k * BLOCK + j).is_some_and(|&s| s != slot.value) {
                return Err(EndgameError::NotTheSweep { seeds: n });
            }
            let mut last = None;
            for pair in bytes[changes + 2 * at..changes + 2 * (at + earlier)].chunks_exact(2) {
                let (layer, value) = (usize::from(pair[0]), pair[1] as i8);
                // Layer 0 is the sweep: a change comes after it.
                if layer == 0 || layer >= from || last.is_some_and(|l| l >= layer) {
                    return Err(EndgameError::BadChanges { seeds: n, layers });
                }
                if value.unsigned_abs() > n {
                    return Err(EndgameError::BadValue { seeds: n, value });
                }
                last = Some(layer);
            }
            at += earlier;
        }
    }
    if at as u64 != total {
        return Err(EndgameError::BadIndex { seeds: n });
    }
    Ok(Table {
        size,
        layers,
        layout: Layout::Changes { blocks, changes },
    })
}

/// The sweep of every board of `n` seeds from the mover's side (its row less the
/// opponent's), in rank order, without listing the boards.
/// (Here, where the layers are read and written; the builder starts from it too.)
pub(super) fn sweeps(n: u8) -> Vec<i8> {
    fn fill(i: usize, rest: u8, sweep: i32, out: &mut Vec<i8>) {
        let sign = if i < PITS / 2 { 1 } else { -1 };
        if i == PITS - 1 {
            out.push((sweep + sign * i32::from(rest)) as i8);
            return;
        }
        for v in 0..=rest {
            fill(i + 1, rest - v, sweep + sign * i32::from(v), out);
        }
    }
    let mut out = Vec::with_capacity(super::compositions(n.into(), PITS));
    fill(0, n, 0, &mut out);
    out
}
