//! What crosses between instances (`relay.rs`), as JSON: `Wire` and the forms a room's
//! commands and answers take on the way.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::common::{ErrorCode, RoomId, TableId, User, UserId};
use crate::store::Actor;

use super::super::hotel::{CloseGames, HotelError, TableChange};
use super::super::protocol::ClientMessage;
use super::super::room::Moderation;
use super::super::table::Refusal;
use super::notices::Notice;

/// What one instance tells another.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Wire {
    /// To a room's owner: a session on `from` comes in; answered `Admitted`.
    Enter {
        from: String,
        room: RoomId,
        user: User,
        conn: u64,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<Value>,
        req: u64,
    },
    /// To a room's owner: may this user come in; answered `Admitted`.
    MayEnter {
        from: String,
        room: RoomId,
        user_id: UserId,
        req: u64,
    },
    /// To a room's owner: a member's message.
    Act {
        room: RoomId,
        user_id: UserId,
        message: ClientMessage,
        r#ref: Option<Value>,
    },
    /// To a room's owner: a member left on purpose.
    Leave {
        room: RoomId,
        user_id: UserId,
        conn: u64,
    },
    /// To a room's owner: a member's connection dropped (or stopped reading).
    Disconnect {
        room: RoomId,
        user_id: UserId,
        conn: u64,
    },
    /// To a member's instance: frames for connection `conn`, in order.
    Frames {
        room: RoomId,
        conn: u64,
        frames: Vec<String>,
    },
    /// To a member's instance: the room let connection `conn` go; `closed` when the room
    /// itself closed (an operator, an idle apartment), `moved` when it left this owner (a
    /// stop handed it on, a later owner took it): its sessions find it again.
    Gone {
        room: RoomId,
        conn: u64,
        closed: bool,
        /// Absent from an older build's message: read as not moved.
        #[serde(default)]
        moved: bool,
    },
    /// To a room's owner: an operator renamed the room (stored already).
    Rename { room: RoomId, name: String },
    /// To a room's owner: its door or guest list changed in the store.
    DoorChanged { room: RoomId },
    /// To a room's owner: one of its tournaments was scheduled, joined or left.
    ScheduleChanged { room: RoomId },
    /// To a room's owner: an operator closes it; answered with the matches still in play.
    Shut {
        from: String,
        room: RoomId,
        games: CloseGames,
        req: u64,
    },
    /// To a room's owner: an operator's decision (stored already); a line's removal is
    /// answered whether there was one.
    Moderate {
        from: String,
        room: RoomId,
        moderation: WireModeration,
        req: u64,
    },
    /// To a room's owner: an operator's or the owner's change to its tables; answered with
    /// the table as it is now or a `WireHotelError`.
    Tables {
        from: String,
        room: RoomId,
        actor: Actor,
        change: TableChange,
        req: u64,
    },
    /// To a room's owner: how it stands (`RoomSummary`).
    Summary {
        from: String,
        room: RoomId,
        req: u64,
    },
    /// To whoever asked `req`: the room's answer, as JSON (`Result<(), WireRefusal>` for
    /// `enter`, a number for `shut`, a `RoomSummary`...).
    Answer { req: u64, body: Value },
    /// To a member's instance: the room is not run by the instance asked (any more); `req`
    /// the request it came with, left unanswered so the asker looks for the room anew.
    NotHere { room: RoomId, req: Option<u64> },
    /// Several of the above for one instance, taken in order (`outgoing.rs`).
    Batch { wires: Vec<Wire> },
    /// To every instance, on the hotel's channel: news from `from` (`notices.rs`).
    Notice { from: String, notice: Notice },
}

/// An operator's decision as it crosses (`Moderation`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireModeration {
    SlowMode {
        seconds: u32,
    },
    Muted {
        user: UserId,
        until: Option<u64>,
        reason: String,
    },
    PutOut {
        user: UserId,
        until: u64,
        reason: String,
    },
    RemoveLine {
        line: u64,
    },
}

impl WireModeration {
    /// `moderation` as it crosses, and where its answer goes (a line's removal alone has one).
    pub(in crate::world) fn of(
        moderation: Moderation,
    ) -> (WireModeration, Option<oneshot::Sender<bool>>) {
        match moderation {
            Moderation::SlowMode { seconds } => (WireModeration::SlowMode { seconds }, None),
            Moderation::Muted {
                user,
                until,
                reason,
            } => (
                WireModeration::Muted {
                    user,
                    until,
                    reason,
                },
                None,
            ),
            Moderation::PutOut {
                user,
                until,
                reason,
            } => (
                WireModeration::PutOut {
                    user,
                    until,
                    reason,
                },
                None,
            ),
            Moderation::RemoveLine { line, reply } => {
                (WireModeration::RemoveLine { line }, Some(reply))
            }
        }
    }

    /// The decision for the room on the owner; `answer` gives where a line's removal answers.
    pub(in crate::world) fn moderation(
        self,
        answer: impl FnOnce() -> oneshot::Sender<bool>,
    ) -> Moderation {
        match self {
            WireModeration::SlowMode { seconds } => Moderation::SlowMode { seconds },
            WireModeration::Muted {
                user,
                until,
                reason,
            } => Moderation::Muted {
                user,
                until,
                reason,
            },
            WireModeration::PutOut {
                user,
                until,
                reason,
            } => Moderation::PutOut {
                user,
                until,
                reason,
            },
            WireModeration::RemoveLine { line } => Moderation::RemoveLine {
                line,
                reply: answer(),
            },
        }
    }
}

/// A refusal of a change to the hotel as it crosses: its code, the field at fault, the
/// message, which is all a client is told of it.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireHotelError {
    pub code: String,
    pub field: Option<String>,
    pub message: String,
}

impl WireHotelError {
    pub(in crate::world) fn of(e: &HotelError) -> WireHotelError {
        let (field, message) = match e {
            HotelError::Invalid { field, message } => (Some(field.to_string()), message.clone()),
            HotelError::Relayed { field, message, .. } => (field.clone(), message.clone()),
            HotelError::Gone => (None, "the room is closed".to_owned()),
            // What went wrong inside the owner stays in its log.
            HotelError::Store(e) => {
                tracing::error!(error = %e, "a table change relayed");
                (None, "something went wrong on our side".to_owned())
            }
            e => (None, e.to_string()),
        };
        WireHotelError {
            code: e.code().as_str().to_owned(),
            field,
            message,
        }
    }

    pub fn error(self) -> HotelError {
        HotelError::Relayed {
            code: code_named(&self.code),
            field: self.field,
            message: self.message,
        }
    }
}

/// The code called `name`; one this build does not know is an internal error.
fn code_named(name: &str) -> ErrorCode {
    ErrorCode::ALL
        .iter()
        .copied()
        .find(|c| c.as_str() == name)
        .unwrap_or(ErrorCode::Internal)
}

/// A refusal as it crosses.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireRefusal {
    pub code: String,
    pub message: String,
}

impl WireRefusal {
    pub(in crate::world) fn of(refusal: &Refusal) -> WireRefusal {
        WireRefusal {
            code: refusal.code.as_str().to_owned(),
            message: refusal.message.clone(),
        }
    }

    pub fn refusal(&self) -> Refusal {
        Refusal::new(code_named(&self.code), self.message.clone())
    }
}
