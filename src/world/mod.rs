//! The live hotel: rooms, their occupants, tables, invitations and games. Each room is owned by
//! one task; the world reaches a room only through its handle in the registry, so a room could
//! later live on another instance.

pub mod protocol;
mod room;
mod user;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub use room::{Outbox, ResumedGame, RoomCommand, RoomConfig, RoomHandle, RoomSummary};
pub use user::{NameError, User, UserName};

use crate::ayo::Rules;
use crate::store::{RoomRow, Store, TableRow};
use protocol::RoomInfo;

/// Every room, by id, and which room each connected user is in.
#[derive(Clone)]
pub struct World {
    rooms: Arc<BTreeMap<String, RoomHandle>>,
    /// user id → (room id, connection): so a second connection can take the first one over.
    presence: Arc<Mutex<HashMap<String, (String, u64)>>>,
}

impl World {
    /// Starts a task for every stored room. Must run inside a tokio runtime.
    pub fn start(
        rooms: Vec<(RoomRow, Vec<TableRow>)>,
        games: Vec<ResumedGame>,
        store: Store,
        default_rules: Rules,
        config: RoomConfig,
    ) -> World {
        let mut games_at: HashMap<String, Vec<ResumedGame>> = HashMap::new();
        for game in games {
            games_at
                .entry(game.table_id.clone())
                .or_default()
                .push(game);
        }
        let handles: BTreeMap<String, RoomHandle> = rooms
            .into_iter()
            .map(|(room, tables)| {
                let games: Vec<ResumedGame> = tables
                    .iter()
                    .flat_map(|t| games_at.remove(&t.id).unwrap_or_default())
                    .collect();
                let tables = tables
                    .into_iter()
                    .map(|t| {
                        (
                            t.id,
                            serde_json::from_str(&t.rules).unwrap_or(default_rules),
                        )
                    })
                    .collect();
                let info = RoomInfo {
                    id: room.id.clone(),
                    name: room.name,
                    kind: room.kind,
                };
                (
                    room.id,
                    room::Room::spawn(info, tables, games, store.clone(), config.clone()),
                )
            })
            .collect();
        crate::metrics::METRICS.rooms.add(handles.len() as i64);
        World {
            rooms: Arc::new(handles),
            presence: Arc::default(),
        }
    }

    pub fn room(&self, id: &str) -> Option<&RoomHandle> {
        self.rooms.get(id)
    }

    pub fn rooms(&self) -> impl Iterator<Item = &RoomHandle> {
        self.rooms.values()
    }

    /// Tells every room the service is stopping and waits until each has let its people go.
    pub async fn close(&self) {
        for room in self.rooms.values() {
            let (done, closed) = tokio::sync::oneshot::channel();
            if room.send(RoomCommand::Close { done }).await {
                let _ = closed.await;
            }
        }
    }

    /// A new connection id.
    pub fn next_connection() -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    /// The room `user_id` is in, through whichever connection.
    pub fn room_of(&self, user_id: &str) -> Option<String> {
        self.presence().get(user_id).map(|(room, _)| room.clone())
    }

    /// `conn` of `user_id` is now in `room`.
    pub fn set_presence(&self, user_id: &str, room: &str, conn: u64) {
        self.presence()
            .insert(user_id.to_owned(), (room.to_owned(), conn));
    }

    /// `conn` of `user_id` is in no room (unless another connection took over).
    pub fn clear_presence(&self, user_id: &str, conn: u64) {
        let mut presence = self.presence();
        if presence.get(user_id).is_some_and(|(_, c)| *c == conn) {
            presence.remove(user_id);
        }
    }

    fn presence(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, u64)>> {
        // A panic elsewhere while holding it leaves a map that is still whole.
        self.presence
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
