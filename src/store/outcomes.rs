//! How games and matches stand and end, as the store keeps them: words in `Text` columns
//! (`column.rs` reads and writes them), shown in the match history as the same words.

use std::borrow::Cow;
use std::io::Write as _;

use diesel::deserialize::{self, FromSql};
use diesel::pg::Pg;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;

use crate::ayo::EndReason;

use super::column::{text_column, TextColumn};
use super::MultiBackend;

/// How a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    Playing,
    Won,
    Draw,
}

impl MatchStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Playing => "playing",
            MatchStatus::Won => "won",
            MatchStatus::Draw => "draw",
        }
    }
}

impl TextColumn for MatchStatus {
    const WHAT: &'static str = "match status";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        match s {
            "playing" => Ok(MatchStatus::Playing),
            "won" => Ok(MatchStatus::Won),
            "draw" => Ok(MatchStatus::Draw),
            other => Err(format!(
                "`{other}` is not a match status: playing, won or draw"
            )),
        }
    }
}

/// How a match ended: stored as its word (`games`, `resigned`, ...), shown as the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchEnd {
    /// Its games decided it: someone got past half, or every game was played.
    Games,
    /// A player resigned the match (or gave up the seat, or left the room).
    Resigned,
    /// Both agreed to draw the match.
    AgreedDraw,
    /// Nobody pressed start for the next game: the leader wins, level is a draw.
    NoStart,
    /// A player dropped out and did not come back in time.
    Abandoned,
    /// An operator closed the room: the leader wins, level is a draw.
    CalledOff,
}

impl MatchEnd {
    pub fn word(self) -> &'static str {
        match self {
            MatchEnd::Games => "games",
            MatchEnd::Resigned => "resigned",
            MatchEnd::AgreedDraw => "agreed_draw",
            MatchEnd::NoStart => "no_start",
            MatchEnd::Abandoned => "abandoned",
            MatchEnd::CalledOff => "called_off",
        }
    }
}

impl TextColumn for MatchEnd {
    const WHAT: &'static str = "match end";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.word())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        [
            MatchEnd::Games,
            MatchEnd::Resigned,
            MatchEnd::AgreedDraw,
            MatchEnd::NoStart,
            MatchEnd::Abandoned,
            MatchEnd::CalledOff,
        ]
        .into_iter()
        .find(|end| end.word() == s)
        .ok_or_else(|| format!("`{s}` is not how a match ends"))
    }
}

/// Why a game ended, as stored: the game's own reason (`resigned`, `timeout`, ...), or
/// `not_started` for a game lost by not pressing start, which the game itself never saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    Game(EndReason),
    NotStarted,
}

impl GameEnd {
    pub fn word(self) -> &'static str {
        match self {
            GameEnd::Game(reason) => end_reason_word(reason),
            GameEnd::NotStarted => "not_started",
        }
    }
}

impl From<EndReason> for GameEnd {
    fn from(reason: EndReason) -> GameEnd {
        GameEnd::Game(reason)
    }
}

/// An end reason's word: serde's, as the protocol shows it.
fn end_reason_word(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Majority => "majority",
        EndReason::NoLegalMove => "no_legal_move",
        EndReason::NoCaptureLimit => "no_capture_limit",
        EndReason::Repetition => "repetition",
        EndReason::Resigned => "resigned",
        EndReason::AgreedDraw => "agreed_draw",
        EndReason::Timeout => "timeout",
        EndReason::Abandoned => "abandoned",
    }
}

/// Shown as its word, as stored.
impl serde::Serialize for GameEnd {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.word())
    }
}

impl TextColumn for GameEnd {
    const WHAT: &'static str = "game end";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.word())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        EndReason::ALL
            .into_iter()
            .map(GameEnd::Game)
            .chain([GameEnd::NotStarted])
            .find(|end| end.word() == s)
            .ok_or_else(|| format!("`{s}` is not how a game ends"))
    }
}

text_column!(MatchStatus, MatchEnd, GameEnd);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_end_reads_back_from_its_word_as_serde_shows_it() {
        for reason in EndReason::ALL {
            let word = serde_json::to_value(reason).unwrap();
            assert_eq!(word, GameEnd::Game(reason).word());
            assert_eq!(
                GameEnd::read(word.as_str().unwrap()).unwrap(),
                GameEnd::Game(reason)
            );
        }
        assert_eq!(GameEnd::read("not_started").unwrap(), GameEnd::NotStarted);
        assert!(GameEnd::read("no_start").is_err());
        for end in [MatchEnd::Games, MatchEnd::NoStart, MatchEnd::CalledOff] {
            assert_eq!(serde_json::to_value(end).unwrap(), end.word());
            assert_eq!(MatchEnd::read(end.word()).unwrap(), end);
        }
    }
}
