//! Endgame databases by retrograde analysis: for every board with up to N seeds in its pits,
//! the seeds the side to move gains from the board under best play by both sides.
//!
//! Exact for rule sets that end a capture-less run with the no-capture limit and ignore
//! repetition (lagos, kontest, ayoayo): there the game from a board depends only on the pits
//! and on how many capture-less plies are left, so the database keeps one layer per number of
//! plies left, `W[k]`, built upwards:
//!
//! - `W[0]` and a board with no legal move: the sweep, the mover's row less the opponent's;
//! - `W[k]` = the best over legal moves of: a capture of `c` seeds, `c - W'[L]` of the smaller
//!   board (the count starts again); no capture, `-W[k-1]` of the board after.
//!
//! Once a layer equals the one before, all further layers do too: only layers up to that
//! point are kept. The majority rule is left out on purpose: it stops a game whose winner is
//! already certain, so the best play for the margin is also the best for the result, and a
//! result read from here is exact; the margin is the margin of play to the end. With
//! repetition ending the game (oware) the value depends on the path: there each board keeps
//! bounds that hold for every path, exact where no path can change it ([`cycles`]).

use thiserror::Error;

use super::board::{Pit, Position, Side, PITS, SEEDS};
use super::rules::{Repetition, Rules};

mod build;
mod cycles;
mod format;

/// Boards of `m` seeds over `parts` pits: `C(m + parts - 1, parts - 1)`.
fn compositions(m: usize, parts: usize) -> usize {
    if parts == 0 {
        return usize::from(m == 0);
    }
    // C(m + parts - 1, parts - 1), exact in u128 for the sizes here.
    let (n, k) = ((m + parts - 1) as u128, (parts - 1) as u128);
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * (n - i) / (i + 1);
    }
    c as usize
}

/// Counting tables for ranking boards of up to 48 seeds.
struct Counts {
    /// `c[m][p]`: boards of `m` seeds over `p` pits.
    c: Vec<[usize; PITS + 1]>,
}

impl Counts {
    fn new() -> Counts {
        Counts {
            c: (0..=usize::from(SEEDS))
                .map(|m| std::array::from_fn(|p| compositions(m, p)))
                .collect(),
        }
    }

    /// The board's place among all boards of its seed count, in lexicographic order.
    fn rank(&self, pits: &[u8; PITS]) -> usize {
        let mut rest: usize = pits.iter().map(|&n| usize::from(n)).sum();
        let mut rank = 0;
        for (i, &v) in pits.iter().enumerate().take(PITS - 1) {
            let v = usize::from(v);
            let parts = PITS - i;
            // Boards with this prefix and a smaller value here come first.
            rank += self.c[rest][parts] - self.c[rest - v][parts];
            rest -= v;
        }
        rank
    }
}

/// Every board of `n` seeds, in rank order.
fn boards(n: u8) -> Vec<[u8; PITS]> {
    fn fill(i: usize, rest: u8, board: &mut [u8; PITS], out: &mut Vec<[u8; PITS]>) {
        if i == PITS - 1 {
            board[i] = rest;
            out.push(*board);
            return;
        }
        for v in 0..=rest {
            board[i] = v;
            fill(i + 1, rest - v, board, out);
        }
    }
    let mut out = Vec::with_capacity(compositions(n.into(), PITS));
    fill(0, n, &mut [0; PITS], &mut out);
    out
}

/// The board as the mover sees it: its own row first.
fn from_mover(p: &Position) -> [u8; PITS] {
    let mut pits = p.pits();
    if p.to_move() == Side::North {
        pits.rotate_left(6);
    }
    pits
}

/// Where one seed count's values sit in the database's bytes.
struct Table {
    /// Boards of this seed count.
    size: usize,
    /// Layers kept; the last one stands for every later one.
    layers: usize,
    layout: Layout,
}

/// How a table's values are laid out.
enum Layout {
    /// Every layer whole: layer `k`'s value of the board of rank `r` is the signed byte at
    /// `offset + k * size + r` (the bounds under repetition; the first format).
    Full { offset: usize },
    /// The bounds under repetition, a byte a board: the byte at `offset + r` holds the
    /// pair of bounds of the board of rank `r` ([`format::pair`]).
    Pairs { offset: usize },
    /// Packed: each board's value starts as its sweep (layer 0) and changes at a few layers.
    /// From `blocks`, for each [`format::BLOCK`] boards, the earlier changes before them (a
    /// little-endian u32) and each one's slot (its last change, and how many came before);
    /// the earlier changes are listed board by board as `(layer, value)` byte pairs from
    /// `changes`.
    Changes { blocks: usize, changes: usize },
}

/// A database for one rule set up to `max_seeds` seeds on the board.
///
/// It is held as the bytes it is stored as, so [`Endgame::as_bytes`] and
/// [`Endgame::from_bytes`] copy nothing. The bytes, all numbers little-endian:
///
/// | bytes | what |
/// | --- | --- |
/// | 8 | `AYOEGDB2` (`AYOEGDB1`: the first format, still read) |
/// | 4 | `j`, the length of the rules' JSON |
/// | `j` | the rules, as JSON (as [`Rules`] serialises) |
/// | 1 | `max_seeds` |
///
/// then for each seed count `n` from 0 to `max_seeds`, of `B = C(n + 11, 11)` boards, a table:
///
/// | bytes | what |
/// | --- | --- |
/// | 4 | `L`, the layers kept (1 to the no-capture limit + 1; where repetition ends the game 1, the bounds paired, or 2, both whole) |
///
/// and, packed (`AYOEGDB2`, repetition ignored), each board's changes from its sweep:
///
/// | bytes | what |
/// | --- | --- |
/// | 8 | `m`, the earlier changes in the table (below 2^32) |
/// | `64 × ⌈B / 20⌉` | for each block of 20 boards, the earlier changes before it (4 bytes) and each board's slot: its earlier changes, the layer its last value holds from (0: no change) and that value (3 bytes; zeros past the last board) |
/// | `2 × m` | the earlier changes, board by board, each its layer and the value from there on (a signed byte), layers rising |
///
/// or, where repetition ends the game and `L` is 1 (up to [`format::PAIRED_SEEDS`]), `B`
/// bytes, each board's bounds paired in one ([`format::pair_byte`]); or whole (where
/// repetition ends the game and `L` is 2, and in `AYOEGDB1`): `L × B` bytes, layer by layer,
/// each layer a signed byte a board.
///
/// Layer `k` holds, for every board of `n` seeds seen from the side to move (its own row
/// first), what that side gains with `k` capture-less plies left; boards are ranked in
/// lexicographic order of their twelve pits. Layer 0 is the sweep, so packed a board lists
/// only the layers where its value changes: about two a board, where most layers would
/// repeat the one before (13.8 GB of whole layers at 20 seeds under lagos). Where
/// repetition ends the game, a board holds the least the mover gains over every path to it
/// and the most.
pub struct Endgame {
    rules: Rules,
    counts: Counts,
    bytes: Vec<u8>,
    tables: Vec<Table>,
}

impl std::fmt::Debug for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endgame")
            .field("rules", &self.rules)
            .field("max_seeds", &self.max_seeds())
            .field("bytes", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

/// The longest no-capture limit a database is built for (kontest's 100 is within).
pub const MAX_LIMIT: u16 = 120;

/// Why bytes are not an endgame database (for the rules asked for).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EndgameError {
    #[error("not an endgame database: it does not start with `AYOEGDB2` (or `AYOEGDB1`)")]
    BadMagic,
    #[error(
        "the database is cut short: {what} needs {needed} bytes at byte {at}, {left} are left"
    )]
    Truncated {
        what: &'static str,
        at: usize,
        needed: usize,
        left: usize,
    },
    #[error("the database's rules do not read as rules: {0}")]
    BadRules(String),
    #[error("the database is for other rules: {} where {} were asked for", json(.found), json(.wanted))]
    WrongRules { wanted: Rules, found: Rules },
    #[error("the database says it goes up to {0} seeds; a board holds {SEEDS}")]
    TooManySeeds(u8),
    #[error("the {seeds}-seed table says it keeps {layers} layers; 1 to {most} under its rules")]
    BadLayers { seeds: u8, layers: u64, most: usize },
    #[error("the {seeds}-seed table holds a gain of {value}, more seeds than are on the board")]
    BadValue { seeds: u8, value: i8 },
    #[error("the {seeds}-seed table holds a lower bound above its upper bound")]
    CrossedBounds { seeds: u8 },
    #[error("the {seeds}-seed table holds bounds {byte}; its boards have {count} pairs of bounds")]
    BadPair { seeds: u8, byte: u8, count: usize },
    #[error("the {seeds}-seed table says its bounds are paired, a byte a board: only `AYOEGDB2` tables of up to 21 seeds are")]
    BadPairing { seeds: u8 },
    #[error("the {seeds}-seed table's blocks disagree with their boards' slots")]
    BadIndex { seeds: u8 },
    #[error(
        "the {seeds}-seed table lists a board's changes out of order or past its {layers} layers"
    )]
    BadChanges { seeds: u8, layers: usize },
    #[error(
        "the {seeds}-seed table gives a board that never changes a value other than its sweep"
    )]
    NotTheSweep { seeds: u8 },
    #[error("{0} bytes follow the last table")]
    TrailingBytes(usize),
}

/// Rules as in the database's header, for error messages.
fn json(rules: &Rules) -> String {
    serde_json::to_string(rules).unwrap_or_default()
}

impl Endgame {
    /// Whether a database can be exact under `rules` (see the module's notes), within reason:
    /// values need not settle before the limit, so a database holds up to a layer a ply of
    /// the limit, and limits past `MAX_LIMIT` get none.
    pub fn possible(rules: &Rules) -> bool {
        match rules.repetition {
            Repetition::Ignored => {
                rules.no_capture_limit > 0 && rules.no_capture_limit <= MAX_LIMIT
            }
            // Bounds over every path; a limit as well would need them a ply left.
            Repetition::EndsGame => rules.no_capture_limit == 0,
        }
    }

    /// Whether a board keeps bounds (repetition ends the game) rather than one value.
    fn bounded(&self) -> bool {
        self.rules.repetition == Repetition::EndsGame
    }

    /// About the most memory [`Endgame::build`] holds at once, in bytes. Under repetition:
    /// the bounds of every board, and the largest seed count's working lists (its boards,
    /// their moves, the components, each board's parents inside its component). Otherwise:
    /// the packed values, taken at four changes a board (twice the mean measured from 6 to
    /// 14 seeds under lagos, kontest and ayoayo), each count's last layer, and the largest
    /// count's working lists (its boards and moves, two layers, the changes found). `None`
    /// where no database applies.
    pub fn memory_to_build(rules: &Rules, max_seeds: u8) -> Option<u64> {
        if !Endgame::possible(rules) {
            return None;
        }
        let max_seeds = usize::from(max_seeds.min(SEEDS));
        let boards: u64 = (0..=max_seeds).map(|n| compositions(n, PITS) as u64).sum();
        let largest = compositions(max_seeds, PITS) as u64;
        Some(match rules.repetition {
            // The tables, 1 a board (2 past `PAIRED_SEEDS`). The largest count's boards:
            // moves 32, sweep 1, components 12 (65 in all while Tarjan's runs), parents 4 and
            // 4 a move inside the component (at most 6), waiting 1, the queue 4, the bounds 2.
            Repetition::EndsGame => {
                let past: u64 = (usize::from(format::PAIRED_SEEDS) + 1..=max_seeds)
                    .map(|n| compositions(n, PITS) as u64)
                    .sum();
                boards + past + 80 * largest
            }
            // Packed: a slot of 3, 2 an earlier change, a fifth of a block's u32; and the last
            // layer.
            // Working: 12 + 32 + 3 a board, 6 a change found, 2 of cursor.
            Repetition::Ignored => {
                const CHANGES: u64 = 4;
                boards * (3 + 2 * (CHANGES - 1) + 1) + boards / 5 + largest * (47 + 6 * CHANGES + 4)
            }
        })
    }

    /// Builds the database for `rules` up to `max_seeds` seeds; `None` where none applies.
    pub fn build(rules: &Rules, max_seeds: u8) -> Option<Endgame> {
        if !Endgame::possible(rules) {
            return None;
        }
        let max_seeds = max_seeds.min(SEEDS);
        let mut db = Endgame {
            rules: *rules,
            counts: Counts::new(),
            bytes: format::header(rules, max_seeds),
            tables: Vec::new(),
        };
        // Each smaller count's values with the whole limit left, for captures.
        let mut finals = Vec::new();
        for n in 0..=max_seeds {
            if db.bounded() {
                db.build_bounded_table(n);
            } else {
                db.build_table(n, &mut finals);
            }
        }
        Some(db)
    }

    /// The bounds of the board of rank `rank` among those of `n` seeds, where repetition
    /// ends the game.
    fn bounds_of(&self, n: usize, rank: usize) -> (i8, i8) {
        let t = &self.tables[n];
        match t.layout {
            Layout::Full { offset } => (
                self.bytes[offset + rank] as i8,
                self.bytes[offset + t.size + rank] as i8,
            ),
            Layout::Pairs { offset } => format::pair(n as u8, self.bytes[offset + rank]),
            Layout::Changes { .. } => unreachable!("bounds are kept whole or paired"),
        }
    }

    /// The value of the board of rank `rank` among those of `n` seeds, its sweep being
    /// `sweep`, `left` capture-less plies from the limit.
    fn get(&self, n: usize, left: usize, rank: usize, sweep: i8) -> i8 {
        let t = &self.tables[n];
        let layer = left.min(t.layers - 1);
        match t.layout {
            Layout::Full { offset } => self.bytes[offset + layer * t.size + rank] as i8,
            Layout::Pairs { .. } => unreachable!("values under repetition are bounds"),
            Layout::Changes { blocks, changes } => {
                let at = blocks + format::BLOCK_BYTES * (rank / format::BLOCK);
                let block = &self.bytes[at..at + format::BLOCK_BYTES];
                let j = rank % format::BLOCK;
                let slot = format::Slot::read(&block[4 + 3 * j..]);
                // Most lookups stop here: the value holds from its last change on.
                if layer >= usize::from(slot.from) {
                    return slot.value;
                }
                let before = u32::from_le_bytes(block[..4].try_into().expect("4 bytes"));
                let start =
                    before as usize + (0..j).map(|i| usize::from(block[4 + 3 * i])).sum::<usize>();
                let count = usize::from(slot.earlier);
                let mut value = sweep;
                for pair in
                    self.bytes[changes + 2 * start..changes + 2 * (start + count)].chunks_exact(2)
                {
                    if usize::from(pair[0]) > layer {
                        break;
                    }
                    value = pair[1] as i8;
                }
                value
            }
        }
    }

    /// The database as bytes, to store (the format is on [`Endgame`]).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The database stored as `bytes` (by [`Endgame::as_bytes`]), checked whole: the bytes
    /// become the database's own, nothing is copied.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Endgame, EndgameError> {
        Endgame::read(bytes, None)
    }

    /// [`Endgame::from_bytes`] for a database that must be for `rules`: other rules are
    /// refused before the tables are read.
    pub fn from_bytes_for(rules: &Rules, bytes: Vec<u8>) -> Result<Endgame, EndgameError> {
        Endgame::read(bytes, Some(rules))
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether values read here hold under `rules`.
    pub fn applies_to(&self, rules: &Rules) -> bool {
        *rules == self.rules
    }

    /// The most seeds on the board it covers.
    pub fn max_seeds(&self) -> u8 {
        (self.tables.len() - 1) as u8
    }

    /// Boards covered, and bytes held (as stored).
    pub fn size(&self) -> (usize, usize) {
        (self.tables.iter().map(|t| t.size).sum(), self.bytes.len())
    }

    /// Boards whose value is known whatever the path: all of them but where repetition ends
    /// the game, there those whose bounds meet.
    pub fn known(&self) -> usize {
        self.gaps().first().copied().unwrap_or(0)
    }

    /// How many boards have bounds `k` apart, for each `k` (the most the value read can be
    /// off by, whatever the path, in gain: 2 is one seed that may end on either side); where
    /// repetition is ignored, every board at 0.
    pub fn gaps(&self) -> Vec<usize> {
        if !self.bounded() {
            return vec![self.size().0];
        }
        let mut gaps = vec![0; 2 * self.tables.len()];
        for (n, t) in self.tables.iter().enumerate() {
            for rank in 0..t.size {
                let (lo, hi) = self.bounds_of(n, rank);
                gaps[(hi - lo) as usize] += 1;
            }
        }
        while gaps.len() > 1 && gaps.last() == Some(&0) {
            gaps.pop();
        }
        gaps
    }

    /// The seeds the side to move gains from the board from `p` on under best play (what it
    /// will add to its store less what the opponent will), or `None` past the database (or,
    /// where repetition ends the game, where the path to `p` may change it).
    pub fn value(&self, p: &Position) -> Option<i32> {
        match self.bounds(p)? {
            (lo, hi) if lo == hi => Some(lo),
            _ => None,
        }
    }

    /// The least and the most the side to move gains from the board from `p` on under best
    /// play, whatever the path to it; equal where the value is known. `None` past the
    /// database.
    pub fn bounds(&self, p: &Position) -> Option<(i32, i32)> {
        let n = usize::from(p.row_seeds(Side::South) + p.row_seeds(Side::North));
        if n >= self.tables.len() {
            return None;
        }
        let pits = from_mover(p);
        let rank = self.counts.rank(&pits);
        if self.bounded() {
            let (lo, hi) = self.bounds_of(n, rank);
            return Some((i32::from(lo), i32::from(hi)));
        }
        let (mine, theirs) = pits.split_at(PITS / 2);
        let sweep = mine.iter().sum::<u8>() as i8 - theirs.iter().sum::<u8>() as i8;
        let left = usize::from(
            self.rules
                .no_capture_limit
                .saturating_sub(p.since_capture()),
        );
        let value = i32::from(self.get(n, left, rank, sweep));
        Some((value, value))
    }

    /// The best move at `p` by the database, with its value; `None` past it or at the end.
    pub fn best_move(&self, p: &Position) -> Option<(Pit, i32)> {
        p.legal_moves(&self.rules)
            .iter()
            .filter_map(|pit| {
                let mut child = *p;
                let captured = i32::from(child.sow(&self.rules, pit).captured);
                Some((pit, captured - self.value(&child)?))
            })
            .max_by_key(|&(_, v)| v)
    }
}

#[cfg(test)]
mod tests;
