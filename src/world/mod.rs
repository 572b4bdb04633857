//! The live hotel: rooms, their occupants, tables, invitations and games. Each room is owned by
//! one task; the world reaches a room only through its handle in the registry, so a room could
//! later live on another instance.

pub mod apartment;
pub mod civility;
mod hotel;
pub mod matches;
mod moderate;
pub mod protocol;
mod resume;
mod room;
pub mod series;
pub mod table;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

pub use crate::common::{NameError, ServerClock, User, UserName};
pub use civility::{Civility, CivilityLimits, SlowMode};
pub use hotel::{
    new_room, operator_may_add_table, operator_may_close, CloseGames, Door, DoorState, HotelError,
    TableChange, MAX_TABLES,
};
pub use resume::resumable;
pub use room::{
    Moderation, Outbox, ResultsConfig, ResumedGame, ResumedMatch, RoomCommand, RoomConfig,
    RoomHandle, RoomSummary,
};
pub use table::Refusal;

use crate::common::{RoomId, TableId, UserId};
use crate::store::{blocking, Store, StoreError, StoredRoom};
use protocol::RoomInfo;

/// The open rooms by id: how everything reaches a room.
#[derive(Clone, Default)]
pub struct Registry(Arc<RwLock<BTreeMap<RoomId, RoomHandle>>>);

impl Registry {
    pub fn get(&self, id: &str) -> Option<RoomHandle> {
        self.read().get(id).cloned()
    }

    fn insert(&self, handle: RoomHandle) {
        self.0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(handle.info.id.clone(), handle);
        crate::metrics::METRICS.rooms.set(self.read().len() as i64);
    }

    /// Takes a room out: nobody reaches it any more.
    pub fn remove(&self, id: &str) {
        self.remove_if(id, |_| true);
    }

    /// Takes a room out if its handle there is the one `which` picks (a room that failed
    /// takes out itself, not a newer task opened meanwhile).
    pub fn remove_if(&self, id: &str, which: impl FnOnce(&RoomHandle) -> bool) {
        let mut rooms = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if rooms.get(id).is_some_and(which) {
            rooms.remove(id);
        }
        crate::metrics::METRICS.rooms.set(rooms.len() as i64);
    }

    fn all(&self) -> Vec<RoomHandle> {
        self.read().values().cloned().collect()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<RoomId, RoomHandle>> {
        // A panic elsewhere while holding it leaves a map that is still whole.
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.read().keys()).finish()
    }
}

/// Every room, by id, and which room each connected user is in.
#[derive(Clone)]
pub struct World {
    registry: Registry,
    /// user id → (room id, connection): so a second connection can take the first one over.
    presence: Arc<Mutex<HashMap<UserId, (RoomId, u64)>>>,
    store: Store,
    config: RoomConfig,
    /// One room opens at a time, so two visitors never start two tasks for one room.
    opening: Arc<tokio::sync::Mutex<()>>,
    /// The service is stopping: no more heartbeats.
    stopped: Arc<AtomicBool>,
    /// Wakes the heartbeat task to stop.
    stop_beating: Arc<tokio::sync::Notify>,
    /// The heartbeat task, awaited by `close`: a beat still being written would otherwise
    /// land after the last one and move the outage's start back.
    beating: Arc<tokio::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl World {
    /// Starts a task for every stored room given. Must run inside a tokio runtime.
    pub fn start(
        rooms: Vec<StoredRoom>,
        matches: Vec<ResumedMatch>,
        store: Store,
        mut config: RoomConfig,
    ) -> World {
        config.registry = Registry::default();
        let world = World {
            registry: config.registry.clone(),
            presence: Arc::default(),
            store,
            config,
            opening: Arc::default(),
            stopped: Arc::default(),
            stop_beating: Arc::default(),
            beating: Arc::default(),
        };
        let mut matches_at: HashMap<TableId, Vec<ResumedMatch>> = HashMap::new();
        for m in matches {
            matches_at.entry(m.table_id.clone()).or_default().push(m);
        }
        for room in rooms {
            let matches: Vec<ResumedMatch> = room
                .tables
                .iter()
                .flat_map(|t| matches_at.remove(t.id.as_str()).unwrap_or_default())
                .collect();
            world.spawn(room, matches);
        }
        for (table, matches) in matches_at {
            for m in matches {
                tracing::warn!(r#match = %m.r#match.id, %table, "a match in play at a table that is gone");
            }
        }
        let beating = world.start_heartbeat();
        World {
            beating: Arc::new(tokio::sync::Mutex::new(Some(beating))),
            ..world
        }
    }

    /// Every second (`heartbeat`), the service says in the store that it is alive: where an
    /// outage began, should it end without a clean stop.
    fn start_heartbeat(&self) -> tokio::task::JoinHandle<()> {
        let (store, clock, every) = (
            self.store.clone(),
            self.config.clock.clone(),
            self.config.heartbeat,
        );
        let (stopped, stop) = (self.stopped.clone(), self.stop_beating.clone());
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stop.notified() => break,
                }
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let (store, at) = (store.clone(), clock.now_ms());
                if let Err(e) = blocking(move || store.beat(at)).await {
                    tracing::warn!(error = %e, "writing the heartbeat");
                }
            }
        });
        task
    }

    /// Starts a room's task and puts it in the registry.
    fn spawn(&self, stored: StoredRoom, matches: Vec<ResumedMatch>) -> RoomHandle {
        let info = RoomInfo {
            id: stored.room.id.clone(),
            name: stored.room.name.clone(),
            kind: stored.room.kind,
            owner: stored.room.owner_id.clone(),
        };
        let tables = stored
            .tables
            .iter()
            // A table whose stored rules do not read was left out by the store, logged.
            .map(|t| (t.id.clone(), t.rules))
            .collect();
        let door = hotel::DoorState::new(stored.door, stored.guests);
        let opening = room::Opening {
            info,
            tables,
            matches,
            closing: stored.closing,
            door,
        };
        let handle = room::Room::spawn(opening, self.store.clone(), self.config.clone());
        self.registry.insert(handle.clone());
        handle
    }

    /// An open room; one not open (an apartment nobody visited lately, or a room whose task
    /// failed) opens from the store, its matches in play resumed.
    pub async fn open(&self, id: &str) -> Result<Option<RoomHandle>, StoreError> {
        if let Some(handle) = self.registry.get(id) {
            return Ok(Some(handle));
        }
        let _opening = self.opening.lock().await;
        if let Some(handle) = self.registry.get(id) {
            return Ok(Some(handle));
        }
        let (store, room_id) = (self.store.clone(), RoomId::from(id));
        let (clock, results) = (self.config.clock.clone(), self.config.results.clone());
        let found = blocking(move || {
            let Some(stored) = store.open_room(&room_id)? else {
                return Ok(None);
            };
            let tables: Vec<TableId> = stored.tables.iter().map(|t| t.id.clone()).collect();
            let matches = resume::resumable_at(&store, &clock, &results, &tables)?;
            Ok::<_, StoreError>(Some((stored, matches)))
        })
        .await?;
        Ok(found.map(|(stored, matches)| self.spawn(stored, matches)))
    }

    /// An apartment's door or guest list changed in the store: its room, if open, reads them
    /// again. Under the opening lock, so a room being opened meanwhile reads the new ones.
    pub async fn door_changed(&self, id: &str) {
        let _opening = self.opening.lock().await;
        if let Some(handle) = self.registry.get(id) {
            handle.send(RoomCommand::DoorChanged).await;
        }
    }

    /// Opens a room an operator just made.
    pub fn add_room(&self, stored: StoredRoom) -> RoomHandle {
        self.spawn(stored, Vec::new())
    }

    pub fn room(&self, id: &str) -> Option<RoomHandle> {
        self.registry.get(id)
    }

    /// Every open room.
    pub fn rooms(&self) -> Vec<RoomHandle> {
        self.registry.all()
    }

    /// Makes a room's task panic: fault injection for the supervision test.
    #[doc(hidden)]
    pub async fn crash_room(&self, id: &str) -> bool {
        match self.registry.get(id) {
            Some(room) => room.send(RoomCommand::Crash).await,
            None => false,
        }
    }

    /// Tells every room the service is stopping and waits until each has let its people go;
    /// the last heartbeat is then the moment every clock stopped.
    pub async fn close(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        // The heartbeat ends first, with any beat it is writing: a beat taken before the stop
        // and stored after the last one would charge the side to move for less than it ran.
        self.stop_beating.notify_one();
        if let Some(task) = self.beating.lock().await.take() {
            let _ = task.await;
        }
        for room in self.registry.all() {
            let (done, closed) = tokio::sync::oneshot::channel();
            if room.send(RoomCommand::Close { done }).await {
                let _ = closed.await;
            }
        }
        let (store, at) = (self.store.clone(), self.config.clock.now_ms());
        if let Err(e) = blocking(move || store.beat(at)).await {
            tracing::warn!(error = %e, "writing the last heartbeat");
        }
    }

    /// A new connection id.
    pub fn next_connection() -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    /// The room `user_id` is in, through whichever connection.
    pub fn room_of(&self, user_id: &UserId) -> Option<RoomId> {
        self.presence().get(user_id).map(|(room, _)| room.clone())
    }

    /// `conn` of `user_id` is now in `room`.
    pub fn set_presence(&self, user_id: &UserId, room: &RoomId, conn: u64) {
        self.presence()
            .insert(user_id.clone(), (room.clone(), conn));
    }

    /// `conn` of `user_id` is in no room (unless another connection took over).
    pub fn clear_presence(&self, user_id: &UserId, conn: u64) {
        let mut presence = self.presence();
        if presence.get(user_id).is_some_and(|(_, c)| *c == conn) {
            presence.remove(user_id);
        }
    }

    fn presence(&self) -> std::sync::MutexGuard<'_, HashMap<UserId, (RoomId, u64)>> {
        // A panic elsewhere while holding it leaves a map that is still whole.
        self.presence
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
