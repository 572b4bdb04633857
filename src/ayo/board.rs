//! The board: sides, pits, positions, sowing and capture.
//!
//! A position is twelve small numbers and two stores, `Copy`, and every operation on it works in
//! place with no allocation: the search and the random playouts run millions of these a second.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::rules::{Capture, GrandSlam, Repetition, Rules, Sowing, MAX_RELAY_LAPS};

/// Seeds in a game.
pub const SEEDS: u8 = 48;
/// Pits on the board; each side owns six.
pub const PITS: usize = 12;
/// More than this many seeds in a store wins at once.
pub const HALF: u8 = SEEDS / 2;

/// A seat at the board; South moves first.
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

/// What a move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sown {
    /// Seeds the move put in the mover's store.
    pub captured: u8,
    /// The move would have taken every seed on the opponent's row, and so took none.
    pub grand_slam: bool,
    /// Laps sown: 1 but for relay sowing, at most [`MAX_RELAY_LAPS`].
    pub laps: u16,
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

    /// The pits the side to move may sow under `rules`.
    ///
    /// Empty when the mover's row is empty, or when the opponent's row is empty and no move
    /// feeds it: both end the game.
    pub fn legal_moves(&self, rules: &Rules) -> Moves {
        let mut moves = self.occupied();
        if moves.is_empty() {
            return moves;
        }
        let them = self.to_move.opponent();
        if self.row_seeds(them) == 0 {
            moves = if rules.is_abapa() {
                // One lap reaches their row when the seeds outnumber the pits left on ours,
                // and the grand slam rule never takes back what a feeding move gave.
                let row = self.row(self.to_move);
                moves.filter(|p| row[p.0 as usize - 1] > 6 - p.0)
            } else {
                moves.filter(|p| self.after(rules, p).0.row_seeds(them) > 0)
            };
        }
        if rules.capture == Capture::TwoThree && rules.grand_slam == GrandSlam::Illegal {
            // Only a single lap whose last seed makes 2 or 3 on their row can capture at all;
            // sow the rest on a copy to see.
            let fair = moves.filter(|p| {
                let origin = p.index_for(self.to_move);
                if rules.sowing == Sowing::Single {
                    let (last, makes) = self.abapa_landing(origin);
                    if self.to_move.owns(last) || !(2..=3).contains(&makes) {
                        return true;
                    }
                    // A pit of theirs past the last seed keeps what it holds, plus a seed a lap.
                    let row_end = them.first_pit() + 6;
                    let laps = self.pits[origin] / 11;
                    if last + 1 < row_end
                        && (laps > 0 || self.pits[last + 1..row_end].iter().any(|&n| n > 0))
                    {
                        return true;
                    }
                }
                !self.after(rules, p).1.grand_slam
            });
            if !fair.is_empty() {
                moves = fair;
            }
        }
        moves
    }

    /// Why `pit` is not a legal move here, or `None` when it is.
    pub fn why_illegal(&self, rules: &Rules, pit: Pit) -> Option<IllegalReason> {
        let legal = self.legal_moves(rules);
        if legal.contains(pit) {
            None
        } else if !self.occupied().contains(pit) {
            Some(IllegalReason::EmptyPit)
        } else if self.after(rules, pit).0.row_seeds(self.to_move.opponent()) == 0 {
            // The move would leave the opponent with nothing: it does not feed.
            Some(IllegalReason::MustFeed)
        } else {
            Some(IllegalReason::GrandSlam)
        }
    }

    /// Where the last seed of one lap from `origin` lands and what it makes that pit hold.
    fn abapa_landing(&self, origin: usize) -> (usize, u8) {
        let seeds = self.pits[origin];
        let last = abapa_last_pit(origin, seeds);
        // Every whole lap drops one seed in it; a part lap ending there one more.
        (
            last,
            self.pits[last] + seeds / 11 + u8::from(!seeds.is_multiple_of(11)),
        )
    }

    /// The position after the side to move sows `pit`, legal or not.
    fn after(&self, rules: &Rules, pit: Pit) -> (Position, Sown) {
        let mut next = *self;
        let sown = next.sow(rules, pit);
        (next, sown)
    }

    /// Sows `pit` for the side to move and captures; the other side moves next.
    ///
    /// Checks nothing: call it with a pit from [`Position::legal_moves`]. An empty pit passes
    /// the turn without changing the board.
    pub fn sow(&mut self, rules: &Rules, pit: Pit) -> Sown {
        let origin = pit.index_for(self.to_move);
        let sown = if rules.is_abapa() {
            self.sow_abapa(origin)
        } else {
            self.sow_general(rules, origin)
        };
        self.stores[self.to_move.index()] += sown.captured;
        self.since_capture = if sown.captured > 0 {
            0
        } else {
            self.since_capture.saturating_add(1)
        };
        self.to_move = self.to_move.opponent();
        sown
    }

    /// One lap, then the 2-or-3 capture: the rules of every Abapa preset.
    fn sow_abapa(&mut self, origin: usize) -> Sown {
        let seeds = self.pits[origin];
        if seeds == 0 {
            return Sown::default();
        }
        self.pits[origin] = 0;
        // Eleven seeds go once round the other eleven pits; do whole laps at once.
        let (laps, rest) = (seeds / 11, seeds % 11);
        if laps > 0 {
            for n in self.pits.iter_mut() {
                *n += laps;
            }
            self.pits[origin] -= laps;
        }
        let mut at = origin;
        for _ in 0..rest {
            at = next_pit(at);
            self.pits[at] += 1;
        }
        Sown {
            laps: 1,
            ..self.capture_two_three(abapa_last_pit(origin, seeds))
        }
    }

    /// Relay sowing and collect-on-4, and their mixes with the Abapa switches.
    fn sow_general(&mut self, rules: &Rules, origin: usize) -> Sown {
        let mut from = origin;
        let mut hand = self.pits[from];
        if hand == 0 {
            return Sown::default();
        }
        self.pits[from] = 0;
        let mut at = from;
        let mut collected = 0u8;
        let mut laps = 0u16;
        loop {
            laps += 1;
            let mut made_four = false;
            while hand > 0 {
                at = next_pit(at);
                if at == from {
                    at = next_pit(at);
                }
                self.pits[at] += 1;
                hand -= 1;
                made_four = rules.capture == Capture::Four && self.pits[at] == 4;
                if made_four {
                    self.pits[at] = 0;
                    collected += 4;
                }
            }
            let landed = self.pits[at];
            let stops = rules.sowing == Sowing::Single
                || made_four
                || landed == 1
                || (rules.capture == Capture::TwoThree
                    && !self.to_move.owns(at)
                    && (2..=3).contains(&landed))
                || laps >= MAX_RELAY_LAPS;
            if stops {
                break;
            }
            hand = landed;
            self.pits[at] = 0;
            from = at;
        }
        match rules.capture {
            Capture::Four => Sown {
                captured: collected,
                grand_slam: false,
                laps,
            },
            Capture::TwoThree => Sown {
                laps,
                ..self.capture_two_three(at)
            },
        }
    }

    /// The last seed landed in `last`: take 2s and 3s backwards along the opponent's row, unless
    /// that would take every seed there (a grand slam, which takes nothing).
    fn capture_two_three(&mut self, last: usize) -> Sown {
        let them = self.to_move.opponent();
        if !them.owns(last) {
            return Sown::default();
        }
        let first = them.first_pit();
        let mut taken = 0u8;
        let mut i = last;
        loop {
            let n = self.pits[i];
            if n != 2 && n != 3 {
                break;
            }
            taken += n;
            if i == first {
                break;
            }
            i -= 1;
        }
        if taken == 0 {
            return Sown::default();
        }
        if taken == self.row_seeds(them) {
            return Sown {
                grand_slam: true,
                ..Sown::default()
            };
        }
        let mut i = last;
        while self.pits[i] == 2 || self.pits[i] == 3 {
            self.pits[i] = 0;
            if i == first {
                break;
            }
            i -= 1;
        }
        Sown {
            captured: taken,
            ..Sown::default()
        }
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

/// Why a pit may not be sown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    EmptyPit,
    MustFeed,
    GrandSlam,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalReason::EmptyPit => "that pit is empty",
            IllegalReason::MustFeed => {
                "the opponent has no seeds and another move gives them some: you must feed them"
            }
            IllegalReason::GrandSlam => {
                "that move would capture every seed the opponent has (a grand slam), and another move does not"
            }
        })
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

fn next_pit(i: usize) -> usize {
    if i == PITS - 1 {
        0
    } else {
        i + 1
    }
}

/// Where the last of `seeds` (at least 1) sown in one lap from `origin` lands, skipping `origin`.
fn abapa_last_pit(origin: usize, seeds: u8) -> usize {
    match seeds % 11 {
        // Whole laps of the other eleven pits end just before the origin.
        0 => (origin + PITS - 1) % PITS,
        rest => (origin + rest as usize) % PITS,
    }
}

/// Counts the positions reachable in exactly `depth` plies, an ended game counting as one.
///
/// Repetition needs a history and is not looked at; every other end is.
pub fn perft(position: &Position, rules: &Rules, depth: u32) -> u64 {
    let legal = position.legal_moves(rules);
    if depth == 0 || position.end_reason(rules, legal, false).is_some() {
        return 1;
    }
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|pit| {
            let mut next = *position;
            next.sow(rules, pit);
            perft(&next, rules, depth - 1)
        })
        .sum()
}
