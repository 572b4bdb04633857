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
//! repetition ending the game (oware) the value depends on the path, and no database applies.

use std::io::{Read, Write};
use std::path::Path;

use super::board::{Pit, Position, Side, PITS, SEEDS};
use super::rules::{Repetition, Rules};

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

/// One seed count's layers.
struct Table {
    /// Boards of this seed count.
    size: usize,
    /// Layers kept; `values[k * size + rank]`, the last one stands for every later one.
    layers: usize,
    values: Vec<i8>,
}

impl Table {
    fn get(&self, left: usize, rank: usize) -> i8 {
        self.values[left.min(self.layers - 1) * self.size + rank]
    }
}

/// A database for one rule set up to `max_seeds` seeds on the board.
pub struct Endgame {
    rules: Rules,
    counts: Counts,
    tables: Vec<Table>,
}

const MAGIC: &[u8; 8] = b"AYOEGDB1";

/// The longest no-capture limit a database is built for (kontest's 100 is within).
pub const MAX_LIMIT: u16 = 120;

impl Endgame {
    /// Whether a database can be exact under `rules` (see the module's notes), within reason:
    /// values need not settle before the limit, so a database holds up to a layer a ply of
    /// the limit, and limits past `MAX_LIMIT` get none.
    pub fn possible(rules: &Rules) -> bool {
        rules.no_capture_limit > 0
            && rules.no_capture_limit <= MAX_LIMIT
            && rules.repetition == Repetition::Ignored
    }

    /// Builds the database for `rules` up to `max_seeds` seeds; `None` where none applies.
    pub fn build(rules: &Rules, max_seeds: u8) -> Option<Endgame> {
        if !Endgame::possible(rules) {
            return None;
        }
        let mut db = Endgame {
            rules: *rules,
            counts: Counts::new(),
            tables: Vec::new(),
        };
        for n in 0..=max_seeds.min(SEEDS) {
            let table = db.build_table(n);
            db.tables.push(table);
        }
        Some(db)
    }

    fn build_table(&self, n: u8) -> Table {
        let rules = &self.rules;
        let limit = usize::from(rules.no_capture_limit);
        let boards = boards(n);
        let size = boards.len();
        // The positions and, per legal move, where it leads: worked out once for all layers.
        // Each move is (captured, rank of the board after, from the new mover's side).
        let mut moves: Vec<[(u8, u32); 6]> = Vec::with_capacity(size);
        let mut counts: Vec<u8> = Vec::with_capacity(size);
        let mut sweep: Vec<i8> = Vec::with_capacity(size);
        let stores = [SEEDS - n, 0];
        for board in &boards {
            let p = Position::new(*board, stores, Side::South, 0).expect("48 seeds");
            let legal = p.legal_moves(rules);
            let mut list = [(0u8, 0u32); 6];
            let mut k = 0;
            for pit in legal.iter() {
                let mut child = p;
                let sown = child.sow(rules, pit);
                list[k] = (sown.captured, self.counts.rank(&from_mover(&child)) as u32);
                k += 1;
            }
            moves.push(list);
            counts.push(k as u8);
            sweep.push(
                (i32::from(p.row_seeds(Side::South)) - i32::from(p.row_seeds(Side::North))) as i8,
            );
        }
        let mut values: Vec<i8> = sweep.clone();
        let mut layers = 1;
        for left in 1..=limit {
            let before = &values[(left - 1) * size..left * size];
            let layer: Vec<i8> = (0..size)
                .map(|i| {
                    let k = usize::from(counts[i]);
                    if k == 0 {
                        return sweep[i];
                    }
                    moves[i][..k]
                        .iter()
                        .map(|&(captured, child)| {
                            if captured > 0 {
                                let smaller = &self.tables[usize::from(n - captured)];
                                i32::from(captured) - i32::from(smaller.get(limit, child as usize))
                            } else {
                                -i32::from(before[child as usize])
                            }
                        })
                        .max()
                        .unwrap_or(0) as i8
                })
                .collect();
            let settled = layer == before;
            if settled {
                break;
            }
            values.extend_from_slice(&layer);
            layers += 1;
        }
        Table {
            size,
            layers,
            values,
        }
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
            self.tables.iter().map(|t| t.values.len()).sum(),
        )
    }

    /// The seeds the side to move gains from the board from `p` on under best play (what it
    /// will add to its store less what the opponent will), or `None` past the database.
    pub fn value(&self, p: &Position) -> Option<i32> {
        let n = p.row_seeds(Side::South) + p.row_seeds(Side::North);
        let table = self.tables.get(usize::from(n))?;
        let left = usize::from(
            self.rules
                .no_capture_limit
                .saturating_sub(p.since_capture()),
        );
        Some(i32::from(table.get(left, self.counts.rank(&from_mover(p)))))
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

    /// Writes the database to `path`.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        out.write_all(MAGIC)?;
        let rules = serde_json::to_vec(&self.rules).map_err(std::io::Error::other)?;
        out.write_all(&(rules.len() as u32).to_le_bytes())?;
        out.write_all(&rules)?;
        out.write_all(&[self.max_seeds()])?;
        for t in &self.tables {
            out.write_all(&(t.layers as u32).to_le_bytes())?;
            let bytes: Vec<u8> = t.values.iter().map(|&v| v as u8).collect();
            out.write_all(&bytes)?;
        }
        out.flush()?;
        drop(out);
        // Whole or not at all: a crash mid-write leaves no half database behind.
        std::fs::rename(tmp, path)
    }

    /// Reads a database written by [`Endgame::save`].
    pub fn load(path: &Path) -> std::io::Result<Endgame> {
        let bad =
            |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
        let mut input = std::io::BufReader::new(std::fs::File::open(path)?);
        let mut magic = [0; 8];
        input.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(bad("not an endgame database"));
        }
        let mut len = [0; 4];
        input.read_exact(&mut len)?;
        let mut rules = vec![0; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut rules)?;
        let rules: Rules = serde_json::from_slice(&rules).map_err(|_| bad("bad rules"))?;
        let mut max = [0; 1];
        input.read_exact(&mut max)?;
        let counts = Counts::new();
        let mut tables = Vec::new();
        for n in 0..=max[0].min(SEEDS) {
            input.read_exact(&mut len)?;
            let layers = u32::from_le_bytes(len) as usize;
            let size = compositions(n.into(), PITS);
            if layers == 0 || layers > usize::from(rules.no_capture_limit) + 1 {
                return Err(bad("bad layer count"));
            }
            let mut bytes = vec![0u8; layers * size];
            input.read_exact(&mut bytes)?;
            tables.push(Table {
                size,
                layers,
                values: bytes.into_iter().map(|b| b as i8).collect(),
            });
        }
        Ok(Endgame {
            rules,
            counts,
            tables,
        })
    }

    /// Where the database for `rules` up to `max_seeds` lives under `dir`.
    pub fn file_name(rules: &Rules, max_seeds: u8) -> String {
        let json = serde_json::to_string(rules).unwrap_or_default();
        // FNV-1a: a stable name for the rule switches.
        let hash = json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        format!("endgame-{}-{hash:016x}-{max_seeds}.db", rules.preset.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_the_enumeration() {
        let counts = Counts::new();
        for n in [0u8, 1, 3, 7] {
            for (i, b) in boards(n).iter().enumerate() {
                assert_eq!(counts.rank(b), i);
            }
        }
    }
}
