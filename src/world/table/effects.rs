//! What a table decided: what to store, what to announce and whom to tell, and whether Baba
//! Ayo is to move. The room stores the writes first (a required one failing undoes the
//! command), then renders the events and sends them, in order.

use crate::ayo::{EndReason, Pit, Rules, Side, Status};
use crate::common::{ErrorCode, GameId, MatchId, TableId, User, UserId};

use super::super::matches::MatchSettings;
use super::TableEvent;

/// A refusal, sent to the one who asked: an error code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
    /// When it may be asked again (server ms), for refusals that only last a while.
    pub until: Option<u64>,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            until: None,
        }
    }

    /// A refusal that lasts until `until` (server ms).
    pub fn until(code: ErrorCode, message: impl Into<String>, until: u64) -> Refusal {
        Refusal {
            until: Some(until),
            ..Refusal::new(code, message)
        }
    }
}

/// `Err(Refusal)` in one call.
pub fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}

/// Something to store, in the order decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// A match begins (required: the command fails without it).
    NewMatch {
        id: MatchId,
        table: TableId,
        players: [User; 2],
        settings: MatchSettings,
        rules: Rules,
    },
    /// A game of a match begins (required). `clock_started` is when its clock started.
    NewGame(NewGame),
    /// A game a player lost by not pressing start, stored as over.
    UnstartedGame { game: NewGame, result: Status },
    /// A move (required), with the clocks after it.
    Move {
        game: GameId,
        ply: u32,
        pit: Pit,
        clock: Option<MoveClock>,
    },
    /// A game's end; its result counts for the champions when the store says so.
    GameOver {
        game: GameId,
        status: Status,
        reason: EndReason,
        win: Option<Win>,
    },
    /// A match's points after a game (halves: a draw is one each).
    MatchPoints { id: MatchId, halves: [u32; 2] },
    /// A match's end.
    MatchOver { id: MatchId, result: MatchResult },
    /// A player went berserk in the tournament game of the match (required).
    Berserk { r#match: MatchId, user: UserId },
}

impl Write {
    /// Whether the command stands or falls with this write.
    pub fn required(&self) -> bool {
        matches!(
            self,
            Write::NewMatch { .. } | Write::NewGame(_) | Write::Move { .. } | Write::Berserk { .. }
        )
    }
}

/// A new game's row.
#[derive(Debug, Clone, PartialEq)]
pub struct NewGame {
    pub id: GameId,
    pub table: TableId,
    pub r#match: MatchId,
    pub number: u8,
    pub south: User,
    pub north: User,
    /// The side that moves first.
    pub first: Side,
    pub rules: Rules,
    pub clock_started: Option<u64>,
}

/// The clocks after a move: when it was played and what each side had left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveClock {
    pub at_ms: u64,
    pub left: [u64; 2],
}

/// A game's win, for the champions: who beat whom, by how many seeds, in how many plies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Win {
    pub winner: UserId,
    pub loser: UserId,
    pub seeds: u8,
    pub plies: u32,
}

/// How a decided match is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchResult {
    pub winner: Option<UserId>,
    pub end_reason: super::super::matches::MatchEnd,
    pub halves: [u32; 2],
}

/// A table event and who hears of it.
#[derive(Debug, Clone)]
pub enum Event {
    /// To everyone in the room, kept in the table's log under its version.
    Table { version: u64, event: TableEvent },
    /// To one member.
    To(UserId, TableEvent),
    /// To one member: a move's reply sent again (the table event of its version).
    Again(UserId, TableEvent),
}

/// What one command did to a table.
#[derive(Debug, Default)]
pub struct Effects {
    pub writes: Vec<Write>,
    pub events: Vec<Event>,
    /// Baba Ayo is to move at this table now.
    pub house_to_move: bool,
    /// A draw was offered to Baba Ayo here: the room asks him to judge it.
    pub house_judges_draw: bool,
    /// Both pressed start: the room applies `Command::NextGame` next.
    pub start_next_game: bool,
    /// The command was refused (what it did before that stands, as told).
    pub refused: Option<Refusal>,
}

impl Effects {
    pub fn tell(&mut self, to: &UserId, event: TableEvent) {
        self.events.push(Event::To(to.clone(), event));
    }

    pub fn store(&mut self, write: Write) {
        self.writes.push(write);
    }

    /// Whether nothing is to be stored, sent or done.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
            && self.events.is_empty()
            && !self.house_to_move
            && !self.house_judges_draw
            && !self.start_next_game
            && self.refused.is_none()
    }
}
