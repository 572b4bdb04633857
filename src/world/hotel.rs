//! What operators and owners change in a live room: its tables, its door, whether it closes.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ayo::Rules;
pub use crate::common::Door;
use crate::common::{ErrorCode, RoomId, RoomKind, TableId, UserId};
use crate::store::{RoomRow, StoreError, TableRow};

use super::OpenError;

/// Who may come into a room: everyone, unless it is an apartment whose door is `invited`.
#[derive(Debug, Clone, Default)]
pub struct DoorState {
    /// `None` for rooms without a door (the lounge, talk rooms).
    pub door: Option<Door>,
    pub guests: HashSet<UserId>,
}

impl DoorState {
    pub fn new(door: Option<Door>, guests: Vec<UserId>) -> DoorState {
        DoorState {
            door,
            guests: guests.into_iter().collect(),
        }
    }

    /// Whether `user_id` may come in to a room owned by `owner`.
    pub fn admits(&self, owner: Option<&UserId>, user_id: &UserId) -> bool {
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

/// A change to a room's tables (serialised to reach a room run by another instance).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum TableChange {
    /// A new table; `board` is the owned Ayo board that becomes it, at home.
    Add { rules: Rules, board: Option<String> },
    /// Takes an idle table away (a board goes back to its owner's inventory).
    Remove { table: TableId },
    /// Changes an idle table's rules.
    Rules { table: TableId, rules: Rules },
    /// Turns a table's queue on or off (off sends everyone in it away).
    Queue { table: TableId, on: bool },
}

/// Why a change to the hotel was refused.
#[derive(Debug, Error)]
pub enum HotelError {
    #[error("there is no room `{0}`")]
    NoSuchRoom(RoomId),
    #[error("there is no table `{0}` in this room")]
    NoSuchTable(TableId),
    #[error("table `{0}` is in use: wait until no game is in play and nobody sits there")]
    TableBusy(TableId),
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
    /// An operator's new room has the id of one made before.
    #[error("there is already a room `{0}`")]
    RoomExists(String),
    /// The room could not be opened (Redis away, the room between owners, the store).
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An input the hotel's rules do not allow; `field` names it.
    #[error("`{field}`: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("a talk room has no tables")]
    TalkRoom,
    /// An apartment is its owner's: operators neither close it nor set its tables.
    #[error("{0}")]
    Apartment(&'static str),
    #[error("there is no user `{0}`")]
    NoSuchUser(String),
    #[error("that user is not on your guest list")]
    NotAGuest,
    #[error("your user is not known here: sign in again")]
    UnknownUser,
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The refusal of the instance that runs the room, as it crossed (`relay.rs`).
    #[error("{message}")]
    Relayed {
        code: ErrorCode,
        field: Option<String>,
        message: String,
    },
}

impl HotelError {
    /// Its code in the one list HTTP and WebSocket answer with.
    pub fn code(&self) -> ErrorCode {
        match self {
            HotelError::NoSuchRoom(_)
            | HotelError::NoSuchTable(_)
            | HotelError::NoSuchBoard(_)
            | HotelError::NoSuchUser(_)
            | HotelError::NotAGuest
            | HotelError::UnknownUser
            | HotelError::Gone => ErrorCode::NotFound,
            HotelError::TableBusy(_) => ErrorCode::TableBusy,
            HotelError::RoomClosing(_) => ErrorCode::RoomClosing,
            HotelError::TooManyBoards(_) => ErrorCode::TooManyBoards,
            HotelError::NotABoard(_) => ErrorCode::NotABoard,
            HotelError::BoardPlaced(_) => ErrorCode::BoardPlaced,
            HotelError::Invalid { .. } => ErrorCode::InvalidField,
            HotelError::TalkRoom => ErrorCode::TalkRoom,
            HotelError::Apartment(_) => ErrorCode::Apartment,
            HotelError::RoomExists(_) => ErrorCode::RoomExists,
            HotelError::Open(OpenError::Store(_)) => ErrorCode::Internal,
            HotelError::Open(_) => ErrorCode::Unavailable,
            // A room whose write was fenced off has a new owner: asking again finds it.
            HotelError::Store(StoreError::Fenced { .. }) => ErrorCode::Unavailable,
            HotelError::Store(_) => ErrorCode::Internal,
            HotelError::Relayed { code, .. } => *code,
        }
    }

    fn invalid(field: &'static str, message: impl Into<String>) -> HotelError {
        HotelError::Invalid {
            field,
            message: message.into(),
        }
    }
}

/// The most tables an operator puts in one room.
pub const MAX_TABLES: u32 = 24;

/// A room an operator makes, checked against the hotel's rules: ids starting `apartment-`
/// are the players'; a room is a lounge (3 tables unless told) or a talk room (none); at
/// most [`MAX_TABLES`] tables, every one playing `rules`. Made at `created_at`.
pub fn new_room(
    id: String,
    name: String,
    kind: Option<&str>,
    tables: Option<u32>,
    rules: Rules,
    created_at: chrono::NaiveDateTime,
) -> Result<(RoomRow, Vec<TableRow>), HotelError> {
    if id.starts_with("apartment-") {
        return Err(HotelError::invalid(
            "id",
            "`apartment-` ids are the players' apartments",
        ));
    }
    let kind = match kind.unwrap_or("lounge").parse() {
        Ok(kind @ (RoomKind::Lounge | RoomKind::Talk)) => kind,
        _ => return Err(HotelError::invalid("kind", "`lounge` or `talk`")),
    };
    let tables = match kind {
        RoomKind::Talk => tables.unwrap_or(0),
        _ => tables.unwrap_or(3),
    };
    if tables > MAX_TABLES || (kind == RoomKind::Talk && tables > 0) {
        return Err(HotelError::invalid(
            "tables",
            format!("0 to {MAX_TABLES}, and none in a talk room"),
        ));
    }
    let tables = (1..=tables)
        .map(|n| TableRow {
            id: TableId::new(format!("{id}-{n}")),
            room_id: RoomId::new(id.clone()),
            position: n as i32,
            rules,
            queue: None,
        })
        .collect();
    let room = RoomRow {
        id: RoomId::new(id),
        name,
        kind,
        owner_id: None,
        created_at,
    };
    Ok((room, tables))
}

/// Whether an operator may close a room of `kind`: not an apartment.
pub fn operator_may_close(kind: RoomKind) -> Result<(), HotelError> {
    match kind {
        RoomKind::Apartment => Err(HotelError::Apartment(
            "an apartment is its owner's: it cannot be closed",
        )),
        RoomKind::Lounge | RoomKind::Talk => Ok(()),
    }
}

/// Whether an operator may add a table to a room of `kind`: only to a lounge.
pub fn operator_may_add_table(kind: RoomKind) -> Result<(), HotelError> {
    match kind {
        RoomKind::Talk => Err(HotelError::TalkRoom),
        RoomKind::Apartment => Err(HotelError::Apartment(
            "an apartment's tables are its owner's boards",
        )),
        RoomKind::Lounge => Ok(()),
    }
}
