//! What clients send (`protocol.md`, "Client messages"): the messages by their `type`, and
//! a frame parsed into one, with the error a bad one is answered with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ayo::{Pit, Side};
use crate::common::{ErrorCode, InvitationId, PairingId, RoomId, TableId, UserId};

use super::super::matches::Scope;

/// A client message, by its `type`; written again only to relay it to the instance running
/// its room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// `since`, optional (an addition): the last version the client saw of some tables of this
    /// room; after the `room` snapshot it gets a `missed` message for each.
    Enter {
        room: RoomId,
        #[serde(default, deserialize_with = "null_is_empty")]
        since: BTreeMap<TableId, u64>,
    },
    Leave {},
    /// `seats`, optional (an addition): a host sitting at an empty table chooses the
    /// seating with it (`lots`, `kept`), as `set_match` would.
    Sit {
        table: TableId,
        seat: Side,
        #[serde(default)]
        seats: Option<String>,
    },
    Stand {
        table: TableId,
    },
    /// `clock`, `best_of` and `seats`, optional (additions): the match's settings, as
    /// `set_match`.
    PlayHouse {
        table: TableId,
        level: crate::ayo::house::Level,
        #[serde(default)]
        clock: Option<String>,
        #[serde(default)]
        best_of: Option<u8>,
        #[serde(default)]
        seats: Option<String>,
    },
    /// How the table's next match is played (an addition): the host (seated, nobody opposite
    /// yet) chooses a clock (`none`, `90s`, `5m`, `1d`, `3+2`), best of 1, 3, 5 or 7, and
    /// seats (`lots`, `kept`).
    SetMatch {
        table: TableId,
        #[serde(default)]
        clock: Option<String>,
        #[serde(default)]
        best_of: Option<u8>,
        #[serde(default)]
        seats: Option<String>,
        /// Rated or casual (an addition; the table's as it is where not said).
        #[serde(default)]
        rated: Option<bool>,
    },
    /// Ready for the next game of the match (an addition).
    Start {
        table: TableId,
    },
    /// Play the same opponent again after a match (an addition): one press each.
    Rematch {
        table: TableId,
    },
    Invite {
        table: TableId,
        user: UserId,
    },
    Respond {
        invitation: InvitationId,
        accept: bool,
    },
    /// `version`, optional (an addition): the table version the client last saw; a move sent
    /// again after a lost reply is then recognised and applied once.
    Move {
        table: TableId,
        pit: Pit,
        version: Option<u64>,
    },
    /// `scope`, optional (an addition): `game` (the default) or `match`.
    Resign {
        table: TableId,
        #[serde(default)]
        scope: Scope,
    },
    /// `scope`, optional (an addition): `game` (the default) or `match`.
    OfferDraw {
        table: TableId,
        #[serde(default)]
        scope: Scope,
    },
    AnswerDraw {
        table: TableId,
        accept: bool,
    },
    /// Halve one's clock before one's first move, in a tournament game that allows it.
    Berserk {
        table: TableId,
    },
    Chat {
        text: String,
    },
    Ping {},
    /// What happened at a table since `version` (an addition); reply `missed`.
    Sync {
        table: TableId,
        version: u64,
    },
    /// Receive the moves of a game at `table` (an addition; one table at a time, a player
    /// always receives their own). The reply is `missed`: the events after `since` when given
    /// and still held, else the whole table.
    Watch {
        table: TableId,
        #[serde(default)]
        since: Option<u64>,
    },
    /// Stop receiving the moves of the table watched (an addition).
    Unwatch {},
    /// Ask the room's pool for a game now (an addition): a rule `family` (`abapa`, `ayoayo`),
    /// a `clock` as `set_match`'s (`5m` where not said), `rated` (true where not said), and
    /// the opponents' ratings taken, each bound where given. Replaces an earlier seek.
    Seek {
        family: String,
        #[serde(default)]
        clock: Option<String>,
        #[serde(default)]
        rated: Option<bool>,
        #[serde(default)]
        min_rating: Option<u32>,
        #[serde(default)]
        max_rating: Option<u32>,
    },
    /// Leave the pool (an addition); a pairing open is declined.
    Unseek {},
    /// Accept or decline a `pairing` (an addition).
    PairingAnswer {
        pairing: PairingId,
        accept: bool,
    },
    /// Wait for a seat at `table` (an addition): its queue.
    Queue {
        table: TableId,
    },
    /// Out of `table`'s queue (an addition).
    Unqueue {
        table: TableId,
    },
}

/// The message types a client may send, for the `unknown_type` error.
pub const CLIENT_TYPES: [&str; 25] = [
    "enter",
    "leave",
    "sit",
    "stand",
    "play_house",
    "set_match",
    "start",
    "rematch",
    "invite",
    "respond",
    "move",
    "resign",
    "offer_draw",
    "answer_draw",
    "berserk",
    "chat",
    "ping",
    "sync",
    "watch",
    "unwatch",
    "seek",
    "unseek",
    "pairing_answer",
    "queue",
    "unqueue",
];

/// Why a frame could not be read as a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    pub code: ErrorCode,
    pub message: String,
    pub r#ref: Option<Value>,
}

/// `"since": null` means no tables, as leaving it out does.
fn null_is_empty<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<TableId, u64>, D::Error> {
    Ok(Option::<BTreeMap<TableId, u64>>::deserialize(d)?.unwrap_or_default())
}

/// Reads one text frame: a JSON object with a known `type` and its fields.
pub fn parse_frame(text: &str) -> Result<(ClientMessage, Option<Value>), FrameError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FrameError {
        code: ErrorCode::BadJson,
        message: format!("a frame is one JSON object: {e}"),
        r#ref: None,
    })?;
    let r#ref = value.get("ref").cloned();
    let Some(kind) = value.get("type").and_then(Value::as_str).map(str::to_owned) else {
        return Err(FrameError {
            code: ErrorCode::BadMessage,
            message: "a message needs a \"type\"".into(),
            r#ref,
        });
    };
    if !CLIENT_TYPES.contains(&kind.as_str()) {
        return Err(FrameError {
            code: ErrorCode::UnknownType,
            message: format!(
                "unknown message type `{kind}`; expected one of {}",
                CLIENT_TYPES.join(", ")
            ),
            r#ref,
        });
    }
    let message = serde_json::from_value(value).map_err(|e| FrameError {
        code: ErrorCode::BadMessage,
        message: format!("`{kind}`: {e}"),
        r#ref: r#ref.clone(),
    })?;
    Ok((message, r#ref))
}
