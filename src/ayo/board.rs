//! The board: sides, pits, positions and how a game ends. What a move does (legal moves,
//! sowing and capture) is in [`sowing`].
//!
//! A position is twelve small numbers and two stores, `Copy`, and every operation on it works in
//! place with no allocation: the search and the random playouts run millions of these a second.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::rules::{Repetition, Rules};

mod sowing;

pub use sowing::{perft, IllegalReason, Sown};

/// Seeds in a game.
pub const SEEDS: u8 = 48;
/// Pits on the board; each side owns six.
pub const PITS: usize = 12;
/// More than this many seeds in a store wins at once.
pub const HALF: u8 = SEEDS / 2;

/// A seat at the board. South moves first unless a game is started otherwise
/// ([`Position::opening`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    South,
    North,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    pub fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North: the index into `stores`.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The index of this side's first pit in `pits`.
    fn first_pit(self) -> usize {
        self.index() * 6
    }

    fn owns(self, pit_index: usize) -> bool {
        pit_index / 6 == self.index()
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pit named by its number along the mover's own row, 1 to 6 in sowing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Pit(u8);

/// A pit number that is not 1 to 6.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PitError {
    #[error("a pit is a number from 1 to 6, not {0}")]
    OutOfRange(i64),
    #[error("a pit is a number from 1 to 6, not `{0}`")]
    NotANumber(String),
}

impl Pit {
    pub const ALL: [Pit; 6] = [Pit(1), Pit(2), Pit(3), Pit(4), Pit(5), Pit(6)];

    pub const fn new(number: u8) -> Option<Pit> {
        if number >= 1 && number <= 6 {
            Some(Pit(number))
        } else {
            None
        }
    }

    /// The pit's number, 1 to 6.
    pub fn number(self) -> u8 {
        self.0
    }

    /// Where this pit of `side` sits in `pits`.
    pub fn index_for(self, side: Side) -> usize {
        side.first_pit() + (self.0 as usize - 1)
    }
}

impl TryFrom<u8> for Pit {
    type Error = PitError;

    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Pit::new(n).ok_or(PitError::OutOfRange(n.into()))
    }
}

impl From<Pit> for u8 {
    fn from(p: Pit) -> u8 {
        p.0
    }
}

impl FromStr for Pit {
    type Err = PitError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let n: i64 = s
            .trim()
            .parse()
            .map_err(|_| PitError::NotANumber(s.to_owned()))?;
        u8::try_from(n)
            .ok()
            .and_then(Pit::new)
            .ok_or(PitError::OutOfRange(n))
    }
}

impl fmt::Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A set of pits of one side (bit `n - 1` for pit `n`); on the wire, the list of pit numbers.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Moves(u8);

impl Moves {
    pub const NONE: Moves = Moves(0);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn contains(self, pit: Pit) -> bool {
        self.0 & (1 << (pit.0 - 1)) != 0
    }

    pub fn insert(&mut self, pit: Pit) {
        self.0 |= 1 << (pit.0 - 1);
    }

    /// The `n`th pit of the set, counting from 0 in pit order.
    pub fn nth(self, n: usize) -> Option<Pit> {
        self.iter().nth(n)
    }

    pub fn iter(self) -> impl Iterator<Item = Pit> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Pit(i + 1))
        })
    }

    fn filter(self, mut keep: impl FnMut(Pit) -> bool) -> Moves {
        let mut out = Moves::NONE;
        for pit in self.iter() {
            if keep(pit) {
                out.insert(pit);
            }
        }
        out
    }
}

impl fmt::Debug for Moves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().map(u8::from)).finish()
    }
}

impl FromIterator<Pit> for Moves {
    fn from_iter<I: IntoIterator<Item = Pit>>(iter: I) -> Self {
        let mut m = Moves::NONE;
        for p in iter {
            m.insert(p);
        }
        m
    }
}

impl Serialize for Moves {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(u8::from))
    }
}

impl<'de> Deserialize<'de> for Moves {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Pit>::deserialize(d)?.into_iter().collect())
    }
}

/// Why a position cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("a board holds {SEEDS} seeds in its pits and stores, not {0}")]
    SeedCount(u32),
}

/// The board between two plies: pits, stores, who moves, and plies since the last capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pits: [u8; PITS],
    stores: [u8; 2],
    to_move: Side,
    since_capture: u16,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// Four seeds in every pit, South to move.
    pub const fn start() -> Position {
        Position {
            pits: [4; PITS],
            stores: [0; 2],
            to_move: Side::South,
            since_capture: 0,
        }
    }

    /// Four seeds in every pit, `first` to move: who starts is decided outside the board
    /// (lots, or a match's turn).
    pub const fn opening(first: Side) -> Position {
        Position {
            to_move: first,
            ..Position::start()
        }
    }

    /// Any position whose pits and stores hold the game's 48 seeds.
    pub fn new(
        pits: [u8; PITS],
        stores: [u8; 2],
        to_move: Side,
        since_capture: u16,
    ) -> Result<Position, PositionError> {
        let total: u32 = pits.iter().chain(&stores).map(|&n| u32::from(n)).sum();
        if total != u32::from(SEEDS) {
            return Err(PositionError::SeedCount(total));
        }
        Ok(Position {
            pits,
            stores,
            to_move,
            since_capture,
        })
    }

    pub fn pits(&self) -> [u8; PITS] {
        self.pits
    }

    /// The same position seen from the other side: the rows, the stores and the side to move
    /// swapped. Every rule is the same for both sides, so it plays the same.
    pub fn mirrored(&self) -> Position {
        let mut pits = [0; PITS];
        pits[..6].copy_from_slice(&self.pits[6..]);
        pits[6..].copy_from_slice(&self.pits[..6]);
        Position {
            pits,
            stores: [self.stores[1], self.stores[0]],
            to_move: self.to_move.opponent(),
            since_capture: self.since_capture,
        }
    }

    pub fn stores(&self) -> [u8; 2] {
        self.stores
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Plies played since the last one that captured.
    pub fn since_capture(&self) -> u16 {
        self.since_capture
    }

    /// Seeds on `side`'s row.
    pub fn row_seeds(&self, side: Side) -> u8 {
        self.row(side).iter().sum()
    }

    fn row(&self, side: Side) -> &[u8] {
        let first = side.first_pit();
        &self.pits[first..first + 6]
    }

    /// The pits of the side to move that hold seeds.
    fn occupied(&self) -> Moves {
        let mut bits = 0u8;
        for (i, &n) in self.row(self.to_move).iter().enumerate() {
            bits |= u8::from(n != 0) << i;
        }
        Moves(bits)
    }

    /// Whether `side` could still end with more seeds than its opponent: its store and every
    /// seed left on the board against the opponent's store.
    pub fn can_still_win(&self, side: Side) -> bool {
        let on_board: u8 = self.pits.iter().sum();
        self.stores[side.index()] + on_board > self.stores[side.opponent().index()]
    }

    /// The side whose store holds more than half the seeds, if any.
    pub fn majority(&self) -> Option<Side> {
        Side::BOTH
            .into_iter()
            .find(|s| self.stores[s.index()] > HALF)
    }

    /// A key that is equal for two positions exactly when their pits and side to move are.
    pub fn repetition_key(&self) -> u128 {
        // Six bits a pit (at most 48 seeds), one for the side to move.
        self.pits
            .iter()
            .fold(self.to_move.index() as u128, |k, &n| {
                (k << 6) | u128::from(n)
            })
    }

    /// Ends the game the way every end but a majority does: each side adds its own row to its
    /// store.
    pub fn sweep(&mut self) {
        for side in Side::BOTH {
            self.stores[side.index()] += self.row_seeds(side);
        }
        self.pits = [0; PITS];
    }

    /// Why the game ends here, or `None` while it goes on; `repeated` says that this position
    /// came round again (only the game record knows). The first that applies names the end.
    pub fn end_reason(&self, rules: &Rules, legal: Moves, repeated: bool) -> Option<EndReason> {
        if self.majority().is_some() {
            Some(EndReason::Majority)
        } else if rules.no_capture_limit > 0 && self.since_capture >= rules.no_capture_limit {
            Some(EndReason::NoCaptureLimit)
        } else if repeated && rules.repetition == Repetition::EndsGame {
            Some(EndReason::Repetition)
        } else if legal.is_empty() {
            Some(EndReason::NoLegalMove)
        } else {
            None
        }
    }

    /// The result once the game has ended (after the sweep where there is one).
    pub fn result(&self) -> Status {
        match self.stores[0].cmp(&self.stores[1]) {
            std::cmp::Ordering::Greater => Status::SouthWon,
            std::cmp::Ordering::Less => Status::NorthWon,
            std::cmp::Ordering::Equal => Status::Draw,
        }
    }
}

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    SouthWon,
    NorthWon,
    Draw,
}

impl Status {
    pub fn won_by(side: Side) -> Status {
        match side {
            Side::South => Status::SouthWon,
            Side::North => Status::NorthWon,
        }
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            Status::SouthWon => Some(Side::South),
            Status::NorthWon => Some(Side::North),
            _ => None,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A store holds 25 or more.
    Majority,
    /// The side to move has no allowed move.
    NoLegalMove,
    /// The no-capture limit ran out.
    NoCaptureLimit,
    /// A position came round again.
    Repetition,
    Resigned,
    AgreedDraw,
    Timeout,
    Abandoned,
}

impl EndReason {
    pub const ALL: [EndReason; 8] = [
        EndReason::Majority,
        EndReason::NoLegalMove,
        EndReason::NoCaptureLimit,
        EndReason::Repetition,
        EndReason::Resigned,
        EndReason::AgreedDraw,
        EndReason::Timeout,
        EndReason::Abandoned,
    ];
}
