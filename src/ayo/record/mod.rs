//! A game record: one game as plain text that people and programs read, after PGN (chess)
//! and PDN (draughts). docs/records.md specifies it; in short:
//!
//! ```text
//! [Site "Lagos Hotel lounge"]
//! [Date "2026-12-07"]
//! [Time "16:04:08"]
//! [TimeZone "Africa/Lagos"]
//! [Rules "lagos"]
//! [Rule "no_capture_limit=0"]
//! [Clock "3+2"]
//! [South "Ade"]
//! [North "Bisi"]
//! [First "south"]
//! [Result "south_won"]
//! [End "majority"]
//! [Stores "25-11"]
//!
//! 1. 3 6  2. 1 {a slip} 4  3. 2 (0:02:51.250) ...  south_won
//! ```
//!
//! Tag lines first, one blank line, then the moves: turns numbered from 1, each the first
//! mover's pit and the other's (numbers 1 to 6 along the mover's own row), each move
//! optionally followed by the time left on the mover's clock `(H:MM:SS.mmm)` and a comment
//! `{...}`, and last the result word. Several records in one file are separated by a blank
//! line.
//!
//! [`write`] writes a [`Record`]; [`read`] and [`read_all`] read records back and check them:
//! every move legal under the stated rules, and the stated result and end what the moves give
//! (for an end off the board, consistent with it). Pure: text in, text out.

use std::fmt;

use chrono::{NaiveDate, NaiveTime};
use thiserror::Error;

use super::clock::{ClockError, TimeControl};
use super::{EndReason, MoveError, Pit, Rules, RulesError, Side, Status};

mod read;
mod tags;
mod write;

#[cfg(test)]
mod tests;

pub use read::{read, read_all};
pub use write::{filename, slug, write};

/// One player as a record names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Player {
    /// The display name.
    pub name: String,
    /// The service's id, when known.
    pub id: Option<String>,
    /// The rating before the game, when known (a whole number).
    pub rating: Option<u32>,
}

/// How a game ended: the game's own reasons, or `not_started`, a game lost by not pressing
/// start, which the board never saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    Game(EndReason),
    NotStarted,
}

impl End {
    /// Every end, in the order documented.
    pub const ALL: [End; 9] = [
        End::Game(EndReason::Majority),
        End::Game(EndReason::NoCaptureLimit),
        End::Game(EndReason::Repetition),
        End::Game(EndReason::NoLegalMove),
        End::Game(EndReason::Resigned),
        End::Game(EndReason::Timeout),
        End::Game(EndReason::AgreedDraw),
        End::Game(EndReason::Abandoned),
        End::NotStarted,
    ];

    /// The end's word, as the protocol and the store write it.
    pub fn word(self) -> &'static str {
        match self {
            End::Game(EndReason::Majority) => "majority",
            End::Game(EndReason::NoLegalMove) => "no_legal_move",
            End::Game(EndReason::NoCaptureLimit) => "no_capture_limit",
            End::Game(EndReason::Repetition) => "repetition",
            End::Game(EndReason::Resigned) => "resigned",
            End::Game(EndReason::AgreedDraw) => "agreed_draw",
            End::Game(EndReason::Timeout) => "timeout",
            End::Game(EndReason::Abandoned) => "abandoned",
            End::NotStarted => "not_started",
        }
    }

    /// Decided on the board: the moves alone say it.
    pub fn on_board(self) -> bool {
        matches!(
            self,
            End::Game(
                EndReason::Majority
                    | EndReason::NoLegalMove
                    | EndReason::NoCaptureLimit
                    | EndReason::Repetition
            )
        )
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A result's word: `south_won`, `north_won` or `draw` (a record is of a game that is over).
pub fn result_word(status: Status) -> &'static str {
    match status {
        Status::SouthWon => "south_won",
        Status::NorthWon => "north_won",
        Status::Draw => "draw",
        Status::Playing => "playing",
    }
}

/// One ply as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    pub pit: Pit,
    /// Milliseconds left on the mover's clock once the move was made, when timed.
    pub left_ms: Option<u64>,
    /// A comment after the move: no braces, no line breaks.
    pub comment: Option<String>,
}

impl RecordedMove {
    /// A bare move.
    pub fn new(pit: Pit) -> RecordedMove {
        RecordedMove {
            pit,
            left_ms: None,
            comment: None,
        }
    }
}

/// One game, from its tags to its last move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Where it was played (free text).
    pub site: Option<String>,
    /// When it began, in `zone` (the hotel's time zone): the day, and the time to the second.
    pub date: Option<NaiveDate>,
    pub time: Option<NaiveTime>,
    /// An IANA time zone name (`Africa/Lagos`).
    pub zone: Option<String>,
    /// The match it is a game of, and its number there (from 1).
    pub match_id: Option<String>,
    pub game_number: Option<u32>,
    pub game_id: Option<String>,
    pub rules: Rules,
    /// The time control; `None` when not stated.
    pub clock: Option<TimeControl>,
    pub south: Player,
    pub north: Player,
    /// The side that moved first (the lot, or a match's turn).
    pub first: Side,
    pub result: Status,
    pub end: End,
    pub moves: Vec<RecordedMove>,
}

/// Why a record was refused: the line (from 1, in the whole text read) and the reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {reason}")]
pub struct RecordError {
    pub line: usize,
    pub reason: Reason,
}

/// What is wrong with a record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Reason {
    #[error("a tag line is `[Name \"value\"]`, not `{0}`")]
    MalformedTag(String),
    #[error("unknown tag `{0}`")]
    UnknownTag(String),
    #[error("the tag `{0}` is given twice")]
    DuplicateTag(String),
    #[error("the tag `{0}` is missing")]
    MissingTag(&'static str),
    #[error("tag `{tag}` cannot be `{value}`: expected {expected}")]
    BadValue {
        tag: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("tag `Rules`/`Rule`: {0}")]
    Rules(RulesError),
    #[error("rule `{0}` is the preset's own: only switches that differ are written")]
    RuleUnchanged(String),
    #[error("tag `Clock`: {0}")]
    Clock(ClockError),
    #[error("the tag `{0}` needs the tag `{1}`")]
    NeedsTag(&'static str, &'static str),
    #[error("the tags end with one blank line and the moves follow: {0}")]
    MissingMoves(&'static str),
    #[error("expected {expected}, found `{found}`")]
    Malformed {
        expected: &'static str,
        found: String,
    },
    #[error("turn {found} where turn {expected} comes")]
    TurnNumber { expected: u32, found: String },
    #[error("a clock time `(H:MM:SS.mmm)` needs a `Clock` tag other than none")]
    ClockWithoutControl,
    #[error("ply {ply}: {error}")]
    IllegalMove { ply: u32, error: MoveError },
    #[error("the moves end the game by {played} at ply {ply}, not as tagged ({stated})")]
    EndedOnBoard { played: End, ply: u32, stated: End },
    #[error("the moves do not end the game, but the end is tagged `{0}`, decided on the board")]
    NotEnded(End),
    #[error("the result is `{stated}`, but {why}")]
    WrongResult { stated: String, why: String },
    #[error("the result at the end of the moves is `{found}`, the tag says `{tagged}`")]
    ResultMarker { found: String, tagged: &'static str },
    #[error("tag `Stores` says {stated}, the moves leave {played}")]
    WrongStores { stated: String, played: String },
}

impl Record {
    /// The game the moves play, from the side that began it, under the rules; on the first
    /// refused move, its index (from 0) and why.
    pub fn replay(&self) -> Result<super::Game, (usize, MoveError)> {
        super::Game::replay_from(self.rules, self.first, self.moves.iter().map(|m| m.pit))
    }

    /// The game as it ended: the moves replayed, and an end off the board applied to it.
    /// `None` when a move is refused, or the end does not fit the moves (what [`read`]
    /// refuses).
    pub fn game(&self) -> Option<super::Game> {
        let mut game = self.replay().ok()?;
        read::finish(self, &mut game).ok()?;
        Some(game)
    }
}
