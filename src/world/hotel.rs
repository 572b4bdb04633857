//! What operators and owners change in a live room: its tables, its door, whether it closes.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ayo::Rules;
pub use crate::common::Door;
use crate::store::StoreError;

/// Who may come into a room: everyone, unless it is an apartment whose door is `invited`.
#[derive(Debug, Clone, Default)]
pub struct DoorState {
    /// `None` for rooms without a door (the lounge, talk rooms).
    pub door: Option<Door>,
    pub guests: HashSet<String>,
}

impl DoorState {
    pub fn new(door: Option<Door>, guests: Vec<String>) -> DoorState {
        DoorState {
            door,
            guests: guests.into_iter().collect(),
        }
    }

    /// Whether `user_id` may come in to a room owned by `owner`.
    pub fn admits(&self, owner: Option<&str>, user_id: &str) -> bool {
        match self.door {
            None | Some(Door::Open) => true,
            Some(Door::Invited) => owner == Some(user_id) || self.guests.contains(user_id),
        }
    }
}

/// What happens to games in play when an operator closes a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CloseGames {
    /// Games in play end at once, drawn (`abandoned`); the room closes now.
    #[default]
    End,
    /// Games in play are played out; no new game starts and the room closes after the last.
    Finish,
}

impl CloseGames {
    pub fn as_str(self) -> &'static str {
        match self {
            CloseGames::End => "end",
            CloseGames::Finish => "finish",
        }
    }
}

/// A change to a room's tables.
#[derive(Debug, Clone)]
pub enum TableChange {
    /// A new table; `board` is the owned Ayo board that becomes it, at home.
    Add { rules: Rules, board: Option<String> },
    /// Takes an idle table away (a board goes back to its owner's inventory).
    Remove { table: String },
    /// Changes an idle table's rules.
    Rules { table: String, rules: Rules },
}

/// Why a change to the hotel was refused.
#[derive(Debug, Error)]
pub enum HotelError {
    #[error("there is no room `{0}`")]
    NoSuchRoom(String),
    #[error("there is no table `{0}` in this room")]
    NoSuchTable(String),
    #[error("table `{0}` is in use: wait until no game is in play and nobody sits there")]
    TableBusy(String),
    #[error("room `{0}` is closing")]
    RoomClosing(String),
    #[error("an apartment holds {0} boards at most: take one up first")]
    TooManyBoards(usize),
    #[error("there is no board `{0}` in your inventory")]
    NoSuchBoard(String),
    #[error("`{0}` is not an Ayo board")]
    NotABoard(String),
    #[error("board `{0}` is already placed")]
    BoardPlaced(String),
    #[error("the room is gone")]
    Gone,
    #[error(transparent)]
    Store(#[from] StoreError),
}
