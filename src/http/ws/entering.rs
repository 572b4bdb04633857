//! A connection entering a room and leaving it: the room opened (or reached on the instance
//! that runs it), asked whether one may come in, tried again when it closed or moved just
//! then, and the connection's presence kept with it.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{Connection, OUTBOX_FRAMES, REOPEN_TRIES};
use crate::common::{ErrorCode, RoomId, TableId, UserId};
use crate::world::protocol::{ClientMessage, ServerMessage};
use crate::world::{OpenError, Refusal, RoomHandle};

impl Connection {
    /// `enter`: into `room`, or a resync of the room one is in; the room's refusal, or an
    /// error, when not.
    pub(super) async fn enter(
        &mut self,
        room: RoomId,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<serde_json::Value>,
    ) {
        let handle = match self.world.open(&room).await {
            Ok(Some(handle)) => handle,
            Ok(None) => {
                self.refuse(
                    ErrorCode::NoSuchRoom,
                    format!("there is no room `{room}`"),
                    r#ref,
                )
                .await;
                return;
            }
            Err(e @ (OpenError::Elsewhere(_) | OpenError::Lease(_))) => {
                // Between owners (one died, its lease runs out) or Redis away.
                tracing::info!(error = %e, %room, "a room between owners");
                let moving = moving(self.clock.now_ms());
                self.send(&ServerMessage::refusal(&moving, r#ref)).await;
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, %room, "opening a room");
                self.refuse(
                    ErrorCode::Internal,
                    "that room cannot be opened now; try again",
                    r#ref,
                )
                .await;
                return;
            }
        };
        // Entering the room one is in again is a resync, not leaving: a seat and a
        // game in play are kept.
        if self.room.as_ref().is_some_and(|r| r.info.id == room) {
            let message = ClientMessage::Enter { room, since };
            if !handle
                .act(self.user.id.clone(), message, r#ref.clone())
                .await
            {
                self.refuse(ErrorCode::Internal, "that room is closed", r#ref)
                    .await;
            }
            return;
        }
        // Asked first, so a closed door leaves one where one was.
        let mut handle = handle;
        let mut may = may_enter(&handle, &self.user.id).await;
        let mut tries = REOPEN_TRIES.iter();
        let mut last = Reopened::Spent;
        while may.is_none() {
            // An idle apartment may have closed just now, or the room moved to
            // another instance: it opens again.
            last = self.reopen(&room, &mut tries).await;
            let Reopened::Open(again) = last.clone() else {
                break;
            };
            may = may_enter(&again, &self.user.id).await;
            handle = again;
        }
        let refusal = match may {
            Some(Ok(())) => {
                self.leave_room(false).await;
                let mut entered = self.enter_room(handle, since.clone(), r#ref.clone()).await;
                let mut tries = REOPEN_TRIES.iter();
                while entered.is_none() {
                    last = self.reopen(&room, &mut tries).await;
                    let Reopened::Open(again) = last.clone() else {
                        break;
                    };
                    entered = self.enter_room(again, since.clone(), r#ref.clone()).await;
                }
                match entered {
                    Some(Ok(())) => None,
                    Some(Err(refusal)) => Some(refusal),
                    None => Some(last.refusal(self.clock.now_ms())),
                }
            }
            Some(Err(refusal)) => Some(refusal),
            None => Some(last.refusal(self.clock.now_ms())),
        };
        if let Some(refusal) = refusal {
            self.send(&ServerMessage::refusal(&refusal, r#ref)).await;
        }
    }

    /// The room opened again after its handle went (an idle apartment that closed just then,
    /// a room that moved to another instance), trying after each pause of `tries` while it
    /// is between owners.
    async fn reopen(&self, room: &RoomId, tries: &mut std::slice::Iter<'_, u64>) -> Reopened {
        for pause in tries.by_ref() {
            tokio::time::sleep(Duration::from_millis(*pause)).await;
            match self.world.open(room).await {
                Ok(Some(handle)) => return Reopened::Open(handle),
                // Closed for good meanwhile (an operator): there is no such room now.
                Ok(None) => return Reopened::NoRoom,
                Err(e) => tracing::debug!(error = %e, room = %room, "a room between owners"),
            }
        }
        Reopened::Spent
    }

    /// Whether the room this connection was in has closed: it is no longer open.
    pub(super) fn room_closed(&self) -> bool {
        self.room
            .as_ref()
            .is_some_and(|r| !r.failed() && self.world.room(&r.info.id).is_none())
    }

    /// Enters a room through this connection: `None` when the room is gone, the room's
    /// refusal when it did not let us in.
    pub(super) async fn enter_room(
        &mut self,
        handle: RoomHandle,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<serde_json::Value>,
    ) -> Option<Result<(), Refusal>> {
        let (outbox, inbox) = mpsc::channel(OUTBOX_FRAMES);
        let user = self.user.clone();
        if let Err(refusal) = handle.enter(user, outbox, self.conn, since, r#ref).await? {
            return Some(Err(refusal));
        }
        self.world
            .set_presence(&self.user.id, &handle.info.id, self.conn);
        self.room = Some(handle);
        self.inbox = Some(inbox);
        Some(Ok(()))
    }

    /// Leaves the current room, if any, on purpose or because the connection dropped; returns
    /// its id.
    pub(super) async fn leave_room(&mut self, dropped: bool) -> Option<RoomId> {
        self.inbox = None;
        let room = self.room.take()?;
        self.world.clear_presence(&self.user.id, self.conn);
        room.leave(self.user.id.clone(), self.conn, dropped).await;
        Some(room.info.id.clone())
    }
}

/// When a client told `unavailable` should try `enter` again (ms): a room's new owner
/// takes it within a few round trips of the old one letting it go.
const RETRY_AFTER_MS: u64 = 500;

/// `unavailable` at `now`: the room exists but is between owners (or Redis is away);
/// `until` says when to try `enter` again.
fn moving(now: u64) -> Refusal {
    Refusal::until(
        ErrorCode::Unavailable,
        "that room is moving to another server; try again in a moment",
        now.saturating_add(RETRY_AFTER_MS),
    )
}

/// What trying a room again found.
#[derive(Clone)]
enum Reopened {
    Open(RoomHandle),
    /// Not in the store any more.
    NoRoom,
    /// Still between owners when the tries ran out.
    Spent,
}

impl Reopened {
    /// The refusal when the room could not be entered after all.
    fn refusal(&self, now: u64) -> Refusal {
        match self {
            Reopened::NoRoom => Refusal::new(ErrorCode::NoSuchRoom, "that room is closed"),
            // A room that exists and did not let us in (its task gone as we came) is moving.
            Reopened::Open(_) | Reopened::Spent => moving(now),
        }
    }
}

/// Whether a room lets `user_id` in; `None` when the room is gone.
async fn may_enter(handle: &RoomHandle, user_id: &UserId) -> Option<Result<(), Refusal>> {
    handle.may_enter(user_id).await.ok()
}
