//! A match of one or more games between two players: best of 1, 3, 5 or 7. A win is a point,
//! a draw half each; the first past half the games wins the match. Who moves first swaps
//! every game. Pure: the room asks it what a result means.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Games a match is played over at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct BestOf(u8);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a match is best of 1, 3, 5 or 7 games, not {0}")]
pub struct BestOfError(pub u8);

impl TryFrom<u8> for BestOf {
    type Error = BestOfError;

    fn try_from(n: u8) -> Result<Self, Self::Error> {
        if matches!(n, 1 | 3 | 5 | 7) {
            Ok(BestOf(n))
        } else {
            Err(BestOfError(n))
        }
    }
}

impl From<BestOf> for u8 {
    fn from(b: BestOf) -> u8 {
        b.0
    }
}

impl Default for BestOf {
    fn default() -> Self {
        BestOf(1)
    }
}

/// How a game of the match ended, for the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    /// Won by the player who was `first` (0) or `second` (1) when the match began.
    Won(usize),
    Draw,
}

/// Where a match stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    pub best_of: BestOf,
    /// Points in half points, for the match's first and second player.
    halves: [u32; 2],
    /// Games played.
    pub played: u8,
    /// The winner (0 or 1), once decided; `Some(None)` is a drawn match.
    decided: Option<Option<usize>>,
}

impl Series {
    pub fn new(best_of: BestOf) -> Series {
        Series {
            best_of,
            halves: [0, 0],
            played: 0,
            decided: None,
        }
    }

    /// Points of the first and second player (a draw is 0.5 each).
    pub fn points(&self) -> [f32; 2] {
        self.halves.map(|h| h as f32 / 2.0)
    }

    /// Whether the match's first player moves first in the next game: in the first game,
    /// then every other game, so the first move swaps every game.
    pub fn first_player_starts(&self) -> bool {
        self.played.is_multiple_of(2)
    }

    /// Counts a game; the match is decided when someone is past half the games, or when
    /// every game is played (level: a draw).
    pub fn record(&mut self, outcome: GameOutcome) {
        if self.decided.is_some() {
            return;
        }
        self.played += 1;
        match outcome {
            GameOutcome::Won(p) => self.halves[p.min(1)] += 2,
            GameOutcome::Draw => {
                self.halves[0] += 1;
                self.halves[1] += 1;
            }
        }
        // Past half: more than best_of points, in halves more than best_of.
        let needed = u32::from(self.best_of.0);
        if let Some(p) = (0..2).find(|&p| self.halves[p] > needed) {
            self.decided = Some(Some(p));
        } else if self.played >= self.best_of.0 {
            self.decided = Some(self.leader());
        }
    }

    /// The match ends before its games are played (a resignation of the match, or nobody
    /// pressed start): `resigned` loses it; with nobody to blame the leader wins, level is a
    /// draw.
    pub fn end_early(&mut self, resigned: Option<usize>) {
        if self.decided.is_some() {
            return;
        }
        self.decided = Some(match resigned {
            Some(p) => Some(1 - p.min(1)),
            None => self.leader(),
        });
    }

    /// Both players agreed to draw the match: it ends drawn, whatever the score (even when
    /// the game drawn with it put someone past half).
    pub fn agree_draw(&mut self) {
        self.decided = Some(None);
    }

    /// The match goes to `winner` (0 or 1), whatever the score: the other gave it up.
    pub fn award(&mut self, winner: usize) {
        self.decided = Some(Some(winner.min(1)));
    }

    /// Half points of the first and second player.
    pub fn halves(&self) -> [u32; 2] {
        self.halves
    }

    /// A series as stored: its games' outcomes replayed.
    pub fn replay(best_of: BestOf, outcomes: impl IntoIterator<Item = GameOutcome>) -> Series {
        let mut series = Series::new(best_of);
        for outcome in outcomes {
            series.record(outcome);
        }
        series
    }

    fn leader(&self) -> Option<usize> {
        match self.halves[0].cmp(&self.halves[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// `None` while the match goes on; `Some(Some(p))` won by player `p`; `Some(None)` drawn.
    pub fn result(&self) -> Option<Option<usize>> {
        self.decided
    }
}
