//! The kinds of things the hotel has, as stored and as shown: never a free string.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a room is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomKind {
    /// A games lounge, with Ayo tables.
    Lounge,
    /// A room to talk in, without tables.
    Talk,
    /// A guest's home, with the boards they placed.
    Apartment,
}

impl RoomKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            RoomKind::Lounge => "lounge",
            RoomKind::Talk => "talk",
            RoomKind::Apartment => "apartment",
        }
    }
}

impl fmt::Display for RoomKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a room kind: lounge, talk or apartment")]
pub struct UnknownRoomKind(pub String);

impl FromStr for RoomKind {
    type Err = UnknownRoomKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "lounge" => Ok(RoomKind::Lounge),
            "talk" => Ok(RoomKind::Talk),
            "apartment" => Ok(RoomKind::Apartment),
            other => Err(UnknownRoomKind(other.to_owned())),
        }
    }
}

/// An apartment's door.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Door {
    /// Only the owner and the guests they invited come in.
    #[default]
    Invited,
    /// Anyone comes in.
    Open,
}

impl Door {
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Invited => "invited",
            Door::Open => "open",
        }
    }
}

impl FromStr for Door {
    type Err = UnknownDoor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "invited" => Ok(Door::Invited),
            "open" => Ok(Door::Open),
            other => Err(UnknownDoor(other.to_owned())),
        }
    }
}

/// A door that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a door: invited or open")]
pub struct UnknownDoor(pub String);

/// How a match seats its players and who moves first: a match's setting, stored with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// The original contract: lots decide who sits South, and South moves first; the
    /// players swap seats every game so the first move swaps.
    #[default]
    Lots,
    /// Everyone keeps the seat they sat in: lots decide who moves first in the first game,
    /// and the first move swaps every game (an opt-in: a client must know `first`).
    Kept,
}

impl Seating {
    pub const fn as_str(self) -> &'static str {
        match self {
            Seating::Lots => "lots",
            Seating::Kept => "kept",
        }
    }
}

impl fmt::Display for Seating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Seating {
    type Err = UnknownSeating;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "lots" => Ok(Seating::Lots),
            "kept" => Ok(Seating::Kept),
            other => Err(UnknownSeating(other.to_owned())),
        }
    }
}

/// A seating that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seats are \"lots\" (lots decide who sits south and moves first) or \"kept\" (everyone keeps their seat, lots decide who moves first), not `{0}`")]
pub struct UnknownSeating(pub String);
