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

use std::ops::Range;

use thiserror::Error;

use super::board::{Pit, Position, Side, PITS, SEEDS};
use super::rules::{Repetition, Rules};

mod cycles;

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

/// Where one seed count's layers sit in the database's bytes.
struct Table {
    /// Boards of this seed count.
    size: usize,
    /// Layers kept; the last one stands for every later one.
    layers: usize,
    /// Where the values start: layer `k`'s value of the board of rank `r` is at
    /// `offset + k * size + r`, one signed byte.
    offset: usize,
}

/// Where the moves of every board of one seed count lead, worked out once for every layer: for
/// board `i`, its first `counts[i]` moves, each the seeds it captures and the rank of the
/// board after, seen from the new mover's side. Kept as three flat lists (31 bytes a board),
/// since at 20 seeds there are 84 million boards.
struct Moves {
    captured: Vec<[u8; 6]>,
    child: Vec<[u32; 6]>,
    counts: Vec<u8>,
}

impl Moves {
    /// Board `i`'s moves: `(captured, child)`.
    fn of(&self, i: usize) -> impl Iterator<Item = (u8, u32)> + '_ {
        let k = usize::from(self.counts[i]);
        self.captured[i][..k]
            .iter()
            .copied()
            .zip(self.child[i][..k].iter().copied())
    }

    /// The boards a capture-less move of board `i` leads to.
    fn quiet(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.of(i)
            .filter(|&(captured, _)| captured == 0)
            .map(|(_, child)| child as usize)
    }
}

/// A database for one rule set up to `max_seeds` seeds on the board.
///
/// It is held as the bytes it is stored as, so [`Endgame::as_bytes`] and
/// [`Endgame::from_bytes`] copy nothing (a 16-seed database is 1.9 GB). The bytes, all
/// numbers little-endian:
///
/// | bytes | what |
/// | --- | --- |
/// | 8 | `AYOEGDB1` |
/// | 4 | `j`, the length of the rules' JSON |
/// | `j` | the rules, as JSON (as [`Rules`] serialises) |
/// | 1 | `max_seeds` |
///
/// then for each seed count `n` from 0 to `max_seeds`, a table:
///
/// | bytes | what |
/// | --- | --- |
/// | 4 | `L`, the layers kept (1 to the no-capture limit + 1; 2 where repetition ends the game) |
/// | `L × C(n + 11, 11)` | the values, layer by layer, each layer a signed byte a board in rank order |
///
/// Layer `k` holds, for every board of `n` seeds seen from the side to move (its own row
/// first), what that side gains with `k` capture-less plies left; boards are ranked in
/// lexicographic order of their twelve pits. Where repetition ends the game, layer 0 holds
/// the least the mover gains over every path to the board and layer 1 the most.
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

const MAGIC: &[u8; 8] = b"AYOEGDB1";

/// The longest no-capture limit a database is built for (kontest's 100 is within).
pub const MAX_LIMIT: u16 = 120;

/// Why bytes are not an endgame database (for the rules asked for).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EndgameError {
    #[error("not an endgame database: it does not start with `AYOEGDB1`")]
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
    #[error("{0} bytes follow the last table")]
    TrailingBytes(usize),
}

/// Rules as in the database's header, for error messages.
fn json(rules: &Rules) -> String {
    serde_json::to_string(rules).unwrap_or_default()
}

/// The bytes before the tables.
fn header(rules: &Rules, max_seeds: u8) -> Vec<u8> {
    let rules = serde_json::to_vec(rules).expect("rules are plain data");
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + rules.len() + 1);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&rules);
    bytes.push(max_seeds);
    bytes
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
        let mut word = [0; 4];
        word.copy_from_slice(&self.bytes[range]);
        Ok(u32::from_le_bytes(word))
    }
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

    /// About the most memory [`Endgame::build`] holds at once, in bytes: every value, and the
    /// working lists of the largest seed count (its boards, their moves, the next layer; under
    /// repetition the components' lists and both bounds too). `None` where none applies.
    pub fn memory_to_build(rules: &Rules, max_seeds: u8) -> Option<u64> {
        if !Endgame::possible(rules) {
            return None;
        }
        let max_seeds = usize::from(max_seeds.min(SEEDS));
        let (layers, working) = match rules.repetition {
            // 12 + 31 + 1 + 1 a board; components 4 × 6 and the bounds 4 × 2 besides.
            Repetition::EndsGame => (2, 77),
            Repetition::Ignored => (u64::from(rules.no_capture_limit) + 1, 45),
        };
        let values: u64 = (0..=max_seeds)
            .map(|n| layers * compositions(n, PITS) as u64)
            .sum();
        Some(values + working * compositions(max_seeds, PITS) as u64)
    }

    /// Builds the database for `rules` up to `max_seeds` seeds; `None` where none applies.
    pub fn build(rules: &Rules, max_seeds: u8) -> Option<Endgame> {
        if !Endgame::possible(rules) {
            return None;
        }
        let max_seeds = max_seeds.min(SEEDS);
        let mut bytes = header(rules, max_seeds);
        // Every layer there can be, reserved at once: growing by doubling would hold the old
        // bytes and twice as many new ones together (a 20-seed lagos database is 13.8 GB).
        let layers = match rules.repetition {
            Repetition::EndsGame => 2,
            Repetition::Ignored => usize::from(rules.no_capture_limit) + 1,
        };
        bytes.reserve_exact(
            (0..=usize::from(max_seeds))
                .map(|n| 4 + layers * compositions(n, PITS))
                .sum(),
        );
        let mut db = Endgame {
            rules: *rules,
            counts: Counts::new(),
            bytes,
            tables: Vec::new(),
        };
        for n in 0..=max_seeds {
            if db.bounded() {
                db.build_bounded_table(n);
            } else {
                db.build_table(n);
            }
        }
        Some(db)
    }

    /// The value of the board of rank `rank` among those of `n` seeds, `left` capture-less
    /// plies from the limit.
    fn get(&self, n: usize, left: usize, rank: usize) -> i8 {
        let t = &self.tables[n];
        self.bytes[t.offset + left.min(t.layers - 1) * t.size + rank] as i8
    }

    /// The moves of every board of `n` seeds (from South's side, South to move) and each
    /// board's sweep, South's row less North's.
    fn moves(&self, n: u8) -> (Moves, Vec<i8>) {
        let rules = &self.rules;
        let boards = boards(n);
        let size = boards.len();
        let mut moves = Moves {
            captured: Vec::with_capacity(size),
            child: Vec::with_capacity(size),
            counts: Vec::with_capacity(size),
        };
        let mut sweep: Vec<i8> = Vec::with_capacity(size);
        for board in &boards {
            let p = Position::new(*board, [SEEDS - n, 0], Side::South, 0).expect("48 seeds");
            let (mut captured, mut child) = ([0u8; 6], [0u32; 6]);
            let mut k = 0;
            for pit in p.legal_moves(rules).iter() {
                let mut after = p;
                captured[k] = after.sow(rules, pit).captured;
                child[k] = self.counts.rank(&from_mover(&after)) as u32;
                k += 1;
            }
            moves.captured.push(captured);
            moves.child.push(child);
            moves.counts.push(k as u8);
            sweep.push(
                (i32::from(p.row_seeds(Side::South)) - i32::from(p.row_seeds(Side::North))) as i8,
            );
        }
        (moves, sweep)
    }

    /// Appends the table of `n` seeds, every smaller one being there.
    fn build_table(&mut self, n: u8) {
        let limit = usize::from(self.rules.no_capture_limit);
        let (moves, sweep) = self.moves(n);
        let size = sweep.len();
        // The layer count goes first; it is known once the layers settle or the limit is hit.
        let count_at = self.bytes.len();
        self.bytes.extend_from_slice(&0u32.to_le_bytes());
        let offset = self.bytes.len();
        self.bytes.extend(sweep.iter().map(|&v| v as u8));
        let mut layers = 1;
        for left in 1..=limit {
            let before = offset + (left - 1) * size..offset + left * size;
            let layer: Vec<u8> = (0..size)
                .map(|i| {
                    if moves.counts[i] == 0 {
                        return sweep[i] as u8;
                    }
                    moves
                        .of(i)
                        .map(|(captured, child)| {
                            if captured > 0 {
                                let smaller = usize::from(n - captured);
                                i32::from(captured)
                                    - i32::from(self.get(smaller, limit, child as usize))
                            } else {
                                -i32::from(self.bytes[before.start + child as usize] as i8)
                            }
                        })
                        .max()
                        .unwrap_or(0) as i8 as u8
                })
                .collect();
            if layer[..] == self.bytes[before] {
                break;
            }
            self.bytes.extend_from_slice(&layer);
            layers += 1;
        }
        self.bytes[count_at..offset].copy_from_slice(&(layers as u32).to_le_bytes());
        self.tables.push(Table {
            size,
            layers,
            offset,
        });
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

    fn read(bytes: Vec<u8>, wanted: Option<&Rules>) -> Result<Endgame, EndgameError> {
        if !bytes.starts_with(MAGIC) {
            return Err(if MAGIC.starts_with(&bytes) {
                EndgameError::Truncated {
                    what: "the magic",
                    at: 0,
                    needed: MAGIC.len(),
                    left: bytes.len(),
                }
            } else {
                EndgameError::BadMagic
            });
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
            if layers == 0 || layers as usize > most || (bounded && layers != 2) {
                return Err(EndgameError::BadLayers {
                    seeds: n,
                    layers: layers.into(),
                    most,
                });
            }
            let (layers, size) = (layers as usize, compositions(n.into(), PITS));
            let values = input.take(layers * size, "a table's values")?;
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
            tables.push(Table {
                size,
                layers,
                offset: values.start,
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

    /// Boards covered, and bytes of values held.
    pub fn size(&self) -> (usize, usize) {
        (
            self.tables.iter().map(|t| t.size).sum(),
            self.tables.iter().map(|t| t.layers * t.size).sum(),
        )
    }

    /// Boards whose value is known whatever the path: all of them but where repetition ends
    /// the game, there those whose bounds meet.
    pub fn known(&self) -> usize {
        if !self.bounded() {
            return self.size().0;
        }
        self.tables
            .iter()
            .map(|t| {
                let values = &self.bytes[t.offset..t.offset + 2 * t.size];
                let (lo, hi) = values.split_at(t.size);
                lo.iter().zip(hi).filter(|(l, h)| l == h).count()
            })
            .sum()
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
        let rank = self.counts.rank(&from_mover(p));
        if self.bounded() {
            return Some((
                i32::from(self.get(n, 0, rank)),
                i32::from(self.get(n, 1, rank)),
            ));
        }
        let left = usize::from(
            self.rules
                .no_capture_limit
                .saturating_sub(p.since_capture()),
        );
        let value = i32::from(self.get(n, left, rank));
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
