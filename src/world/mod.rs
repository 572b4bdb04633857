//! The live hotel: rooms, their occupants, tables, invitations and games. Each room is owned by
//! one task; the world reaches a room only through its handle in the registry, so a room could
//! later live on another instance.

pub mod protocol;
mod room;
mod user;

use std::collections::BTreeMap;
use std::time::Duration;

pub use room::{Outbox, RoomCommand, RoomConfig, RoomHandle, RoomSummary};
pub use user::{NameError, User, UserName};

use crate::ayo::Rules;
use crate::store::{RoomRow, Store, TableRow};
use protocol::RoomInfo;

/// Every room, by id.
#[derive(Clone)]
pub struct World {
    rooms: std::sync::Arc<BTreeMap<String, RoomHandle>>,
}

impl World {
    /// Starts a task for every stored room. Must run inside a tokio runtime.
    pub fn start(
        rooms: Vec<(RoomRow, Vec<TableRow>)>,
        store: Store,
        default_rules: Rules,
    ) -> World {
        let config = RoomConfig {
            invitation_ttl: Duration::from_secs(60),
            chat_max_chars: 500,
        };
        let handles = rooms
            .into_iter()
            .map(|(room, tables)| {
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
                    room::Room::spawn(info, tables, store.clone(), config.clone()),
                )
            })
            .collect();
        World {
            rooms: std::sync::Arc::new(handles),
        }
    }

    pub fn room(&self, id: &str) -> Option<&RoomHandle> {
        self.rooms.get(id)
    }

    pub fn rooms(&self) -> impl Iterator<Item = &RoomHandle> {
        self.rooms.values()
    }
}
