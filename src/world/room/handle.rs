//! A way to reach a room: its inbox, how many are in it, whether its task failed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{Outbox, RoomCommand};
use crate::common::{TableId, User, UserId};
use crate::store::Actor;
use crate::world::hotel::{CloseGames, HotelError, TableChange};
use crate::world::protocol::{ClientMessage, RoomInfo};
use crate::world::Refusal;

/// A room as `GET /api/v1/rooms` shows it; its tables as they are sent (`TableView`), so
/// that one can cross from another instance.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RoomSummary {
    #[serde(flatten)]
    pub room: RoomInfo,
    pub occupants: usize,
    pub tables: Vec<Value>,
    /// How many wait in its pool, each kind of game (an addition).
    #[serde(default)]
    pub seeks: Vec<crate::world::protocol::SeekCount>,
}

/// A way to reach a room.
#[derive(Clone)]
pub struct RoomHandle {
    pub info: Arc<RoomInfo>,
    pub(super) inbox: mpsc::Sender<RoomCommand>,
    pub(super) occupants: Arc<AtomicUsize>,
    /// Its task panicked, lost its lease, or handed the room on as the service stopped: its
    /// sessions end, and find it again, opened here or elsewhere.
    pub(super) failed: Arc<AtomicBool>,
}

impl RoomHandle {
    /// Sends a command; false when the room is gone.
    pub async fn send(&self, command: RoomCommand) -> bool {
        self.inbox.send(command).await.is_ok()
    }

    pub fn occupants(&self) -> usize {
        self.occupants.load(Ordering::Relaxed)
    }

    /// Asks the room and waits for its answer, of the type the command's reply carries;
    /// `Gone` when the room's task ended before answering.
    pub async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> RoomCommand,
    ) -> Result<T, HotelError> {
        let (reply, answer) = oneshot::channel();
        if !self.send(command(reply)).await {
            return Err(HotelError::Gone);
        }
        answer.await.map_err(|_| HotelError::Gone)
    }

    pub async fn summary(&self) -> Option<RoomSummary> {
        self.ask(|reply| RoomCommand::Summary { reply }).await.ok()
    }

    /// Whether `user_id` may come in now (its door, a put-out, closing).
    pub async fn may_enter(&self, user_id: &UserId) -> Result<Result<(), Refusal>, HotelError> {
        let user_id = user_id.clone();
        self.ask(|reply| RoomCommand::MayEnter { user_id, reply })
            .await
    }

    /// `user` comes in through connection `conn` (or rejoins from a new connection, which
    /// replaces the old one): the room sends to `outbox` from now on, starting with its
    /// `room` snapshot and what each table of `since` missed. The room's refusal when it did
    /// not let them in; `None` when the room is gone.
    pub async fn enter(
        &self,
        user: User,
        outbox: Outbox,
        conn: u64,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<Value>,
    ) -> Option<Result<(), Refusal>> {
        self.ask(|admitted| RoomCommand::Enter {
            user,
            outbox,
            conn,
            since,
            r#ref,
            admitted,
        })
        .await
        .ok()
    }

    /// What a member sent, for the room to act on; false when the room is gone.
    pub async fn act(&self, user_id: UserId, message: ClientMessage, r#ref: Option<Value>) -> bool {
        self.send(RoomCommand::Act {
            user_id,
            message,
            r#ref,
        })
        .await
    }

    /// A member leaves on purpose (`dropped` false: any seat is given up, a match in play
    /// resigned) or its connection dropped (a player in a match keeps the seat for the grace
    /// period).
    pub async fn leave(&self, user_id: UserId, conn: u64, dropped: bool) {
        let command = if dropped {
            RoomCommand::Disconnect { user_id, conn }
        } else {
            RoomCommand::Leave { user_id, conn }
        };
        self.send(command).await;
    }

    /// An operator renamed the room (stored already): everyone in it is told.
    pub async fn rename(&self, name: String) -> bool {
        self.send(RoomCommand::Rename { name }).await
    }

    /// An operator closes the room: how many matches are still in play (it closes after
    /// them with `CloseGames::Finish`, at once otherwise).
    pub async fn shut(&self, games: CloseGames) -> Result<usize, HotelError> {
        self.ask(|reply| RoomCommand::Shut { games, reply }).await
    }

    /// An operator or the owner changes the tables: the table as it is now, as the `table`
    /// message shows it (`None` when taken away).
    pub async fn change_tables(
        &self,
        actor: Actor,
        change: TableChange,
    ) -> Result<Option<Value>, HotelError> {
        self.ask(|reply| RoomCommand::Tables {
            actor,
            change,
            reply,
        })
        .await?
    }

    /// A handle whose commands go to a task of the world's own (a room run by another
    /// instance, `remote.rs`), with that task's end of it and its failed flag.
    pub(in crate::world) fn relayed(
        info: RoomInfo,
    ) -> (RoomHandle, mpsc::Receiver<RoomCommand>, Arc<AtomicBool>) {
        let (inbox, commands) = mpsc::channel(1024);
        let failed = Arc::<AtomicBool>::default();
        let handle = RoomHandle {
            info: Arc::new(info),
            inbox,
            occupants: Arc::default(),
            failed: failed.clone(),
        };
        (handle, commands, failed)
    }

    /// Whether the room's task has ended.
    pub fn is_closed(&self) -> bool {
        self.inbox.is_closed()
    }

    /// Returns once the room's task has ended.
    pub async fn closed(&self) {
        self.inbox.closed().await;
    }

    /// Whether its task panicked, lost its lease or handed the room on at a stop (it is out
    /// of the registry, and opens again at the next visit, here or elsewhere).
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// The flag `failed` reads, for whoever outlives the handle (`relay.rs`).
    pub(in crate::world) fn failed_flag(&self) -> Arc<AtomicBool> {
        self.failed.clone()
    }
}
