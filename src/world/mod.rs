//! The live hotel: rooms, their occupants, tables, invitations and games. Each room is owned by
//! one task; the world reaches a room only through its handle in the registry, so a room could
//! later live on another instance.

pub mod account;
pub mod apartment;
pub mod civility;
mod cluster;
mod hotel;
pub mod matches;
mod moderate;
pub mod protocol;
pub mod records;
mod resume;
mod room;
mod rooms;
pub mod seeks;
pub mod series;
pub mod table;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub use crate::common::{NameError, ServerClock, User, UserName};
pub use civility::{Civility, CivilityLimits, SlowMode};
pub use cluster::notices::{Heard, Notice};
pub use cluster::owner::{OpenError, Owner, Taken};
pub use hotel::{
    new_room, operator_may_add_table, operator_may_close, CloseGames, Door, DoorState, HotelError,
    TableChange, MAX_TABLES,
};
pub use protocol::{TournamentStanding, TournamentView};
pub use resume::{resumable, resumable_at};
pub use room::{
    tournament_standing, tournament_view, Moderation, Outbox, ResultsConfig, ResumedGame,
    ResumedMatch, RoomCommand, RoomConfig, RoomHandle, RoomSummary,
};
pub use rooms::RoomOrder;
pub use table::{choose, Refusal};

use crate::common::{RoomId, TableId, UserId};
use crate::store::{blocking, Store, StoreError, StoredRoom};
use protocol::RoomInfo;

/// The open rooms by id: how everything reaches a room.
#[derive(Clone, Default)]
pub struct Registry(Arc<RwLock<BTreeMap<RoomId, RoomHandle>>>);

impl Registry {
    pub fn get(&self, id: &RoomId) -> Option<RoomHandle> {
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
    pub fn remove(&self, id: &RoomId) {
        self.remove_if(id, |_| true);
    }

    /// Takes a room out if its handle there is the one `which` picks (a room that failed
    /// takes out itself, not a newer task opened meanwhile).
    pub fn remove_if(&self, id: &RoomId, which: impl FnOnce(&RoomHandle) -> bool) {
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
    /// Several instances: rooms open here only under their lease (`owner.rs`).
    owner: Option<Owner>,
    /// Several instances: how sessions here reach rooms run elsewhere (`relay.rs`).
    relay: Option<cluster::relay::Relay>,
    /// Rooms run elsewhere that sessions here are in, by id (`remote.rs`).
    remotes: Arc<Mutex<HashMap<RoomId, RoomHandle>>>,
    /// Held while a room run elsewhere is opened here: two sessions opening it at once would
    /// make two handles, and the frames for one's members would reach the other.
    opening_remote: Arc<tokio::sync::Mutex<()>>,
}

impl World {
    /// Starts a task for every stored room given. Must run inside a tokio runtime.
    pub fn start(
        rooms: Vec<StoredRoom>,
        matches: Vec<ResumedMatch>,
        store: Store,
        config: RoomConfig,
    ) -> World {
        let world = World::new(store, config, None);
        world.start_rooms(rooms, matches);
        let beating = world.start_heartbeat();
        World {
            beating: Arc::new(tokio::sync::Mutex::new(Some(beating))),
            ..world
        }
    }

    /// One of several instances: no room runs here until it is opened under its lease (a
    /// visit, or `sweep` for rooms with a match in play that nobody visits).
    pub fn start_leased(
        store: Store,
        config: RoomConfig,
        cluster: crate::cluster::Connected,
    ) -> World {
        let every = Duration::from_millis(cluster.leases.ttl());
        let relay = cluster::relay::Relay::new(
            cluster.conn,
            cluster.seal,
            &cluster.prefix,
            cluster.leases.instance(),
        );
        let mut world = World::new(store, config, Some(Owner::new(cluster.leases)));
        relay.listen(
            cluster.client,
            world.registry.clone(),
            world.config.civility.clone(),
        );
        world.relay = Some(relay);
        world.start_hearing();
        world.start_sweeper(every);
        let beating = world.start_heartbeat();
        World {
            beating: Arc::new(tokio::sync::Mutex::new(Some(beating))),
            ..world
        }
    }

    fn new(store: Store, mut config: RoomConfig, owner: Option<Owner>) -> World {
        config.registry = Registry::default();
        World {
            registry: config.registry.clone(),
            presence: Arc::default(),
            store,
            config,
            opening: Arc::default(),
            stopped: Arc::default(),
            stop_beating: Arc::default(),
            beating: Arc::default(),
            owner,
            relay: None,
            remotes: Arc::default(),
            opening_remote: Arc::default(),
        }
    }

    fn start_rooms(&self, rooms: Vec<StoredRoom>, matches: Vec<ResumedMatch>) {
        let world = self;
        let mut matches_at: HashMap<TableId, Vec<ResumedMatch>> = HashMap::new();
        for m in matches {
            matches_at.entry(m.table_id.clone()).or_default().push(m);
        }
        for room in rooms {
            let matches: Vec<ResumedMatch> = room
                .tables
                .iter()
                .flat_map(|t| matches_at.remove(&t.id).unwrap_or_default())
                .collect();
            world.spawn(room, matches, None);
        }
        for (table, matches) in matches_at {
            for m in matches {
                tracing::warn!(r#match = %m.r#match.id, %table, "a match in play at a table that is gone");
            }
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
        let beater = self.beater();
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
                let (store, at, beater) = (store.clone(), clock.now_ms(), beater.clone());
                match blocking(move || store.beat(&beater, at)).await {
                    Ok(_) => tracing::trace!(target: "lounge::heartbeat", at, "a heartbeat stored"),
                    Err(e) => tracing::warn!(error = %e, "writing the heartbeat"),
                }
            }
        });
        task
    }

    /// The heartbeat row this instance writes: its own when it is one of several.
    fn beater(&self) -> String {
        self.owner
            .as_ref()
            .map_or(Store::SERVICE, Owner::instance)
            .to_owned()
    }

    /// Starts a room's task (under its lease's fencing number when leased) and puts it in
    /// the registry.
    fn spawn(
        &self,
        stored: StoredRoom,
        matches: Vec<ResumedMatch>,
        fence: Option<u64>,
    ) -> RoomHandle {
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
            .map(|t| (t.id.clone(), t.rules, t.queue))
            .collect();
        let door = hotel::DoorState::new(stored.door, stored.guests);
        let opening = room::Opening {
            info,
            tables,
            matches,
            closing: stored.closing,
            door,
            fence,
        };
        let handle = room::Room::spawn(opening, self.store.clone(), self.config.clone());
        self.registry.insert(handle.clone());
        handle
    }

    /// An open room; one not open (an apartment nobody visited lately, or a room whose task
    /// failed) opens from the store, its matches in play resumed. With several instances it
    /// opens here only under its lease: `Elsewhere` when another instance runs it.
    pub async fn open(&self, id: &RoomId) -> Result<Option<RoomHandle>, OpenError> {
        self.open_as(id, true).await
    }

    /// `open`; a room run elsewhere gets a handle that relays to it only when `relaying`
    /// (else it is `Elsewhere`: the sweeper opens only what nobody runs).
    async fn open_as(&self, id: &RoomId, relaying: bool) -> Result<Option<RoomHandle>, OpenError> {
        if let Some(handle) = self.registry.get(id) {
            return Ok(Some(handle));
        }
        let _opening = self.opening.lock().await;
        if let Some(handle) = self.registry.get(id) {
            return Ok(Some(handle));
        }
        if let Some(remote) = self.remote(id) {
            return Ok(Some(remote));
        }
        let room_id = id.clone();
        let (held, beater) = match &self.owner {
            None => (None, Store::SERVICE.to_owned()),
            // Stopping: its rooms are handed on, and none is taken here again.
            Some(owner) if self.stopping() => return self.open_remote(owner, room_id).await,
            Some(owner) => match owner.take(&self.store, &room_id).await? {
                // Its clocks stopped with the last beat of whoever ran it before.
                Taken::Here(held, before) => (
                    Some(held),
                    before.unwrap_or_else(|| Store::SERVICE.to_owned()),
                ),
                Taken::Elsewhere if relaying => return self.open_remote(owner, room_id).await,
                Taken::Elsewhere => return Err(OpenError::Elsewhere(room_id)),
                // No lease taken, nothing written to Redis for a room that is not there.
                Taken::NoSuchRoom => return Ok(None),
            },
        };
        let (store, clock, results) = (
            self.store.clone(),
            self.config.clock.clone(),
            self.config.results.clone(),
        );
        let reading = room_id.clone();
        let fence = held.as_ref().map(|held| held.fence.0);
        let found = blocking(move || {
            let Some(stored) = store.open_room(&reading)? else {
                return Ok(None);
            };
            let tables: Vec<TableId> = stored.tables.iter().map(|t| t.id.clone()).collect();
            let fence = fence.map(|number| (&reading, number));
            let matches = resume::resumable_at(&store, &clock, &results, &tables, &beater, fence)?;
            Ok::<_, StoreError>(Some((stored, matches)))
        })
        .await;
        let (owner, held) = match (&self.owner, held) {
            (Some(owner), Some(held)) => (owner, held),
            _ => return Ok(found?.map(|(stored, matches)| self.spawn(stored, matches, None))),
        };
        match found {
            Ok(Some((stored, matches))) => {
                let handle = self.spawn(stored, matches, Some(held.fence.0));
                owner.keep(held, handle.clone());
                Ok(Some(handle))
            }
            Ok(None) => {
                owner.release(&held).await;
                Ok(None)
            }
            Err(e) => {
                owner.release(&held).await;
                Err(e.into())
            }
        }
    }

    /// An apartment's door or guest list changed in the store: its room, if open, reads them
    /// again. Under the opening lock, so a room being opened meanwhile reads the new ones.
    pub async fn door_changed(&self, id: &RoomId) {
        let _opening = self.opening.lock().await;
        if let Some(handle) = self.room(id) {
            handle.send(RoomCommand::DoorChanged).await;
        }
    }

    /// A tournament of room `id` was scheduled, joined or left: the room reads its
    /// tournaments now (wherever it runs) rather than at its next read.
    pub async fn schedule_changed(&self, id: &RoomId) {
        if let Some(handle) = self.reach(id).await {
            handle.send(RoomCommand::ScheduleChanged).await;
        }
    }

    /// Opens a room an operator just made (stored already): under its lease when leased.
    pub async fn add_room(&self, stored: StoredRoom) -> Result<RoomHandle, OpenError> {
        if self.owner.is_some() {
            let id = stored.room.id.clone();
            return self
                .open(&id)
                .await?
                .ok_or_else(|| OpenError::Store(StoreError::NotFound(format!("room `{id}`"))));
        }
        Ok(self.spawn(stored, Vec::new(), None))
    }

    /// A room to tell something: open here or relayed to, and with several instances also
    /// one run elsewhere that nobody here is in (a handle that relays is made for it), or one
    /// nobody runs (it opens here). `None` when it is not open (one instance) or not known.
    pub async fn reach(&self, id: &RoomId) -> Option<RoomHandle> {
        if self.owner.is_none() {
            return self.room(id);
        }
        match self.open(id).await {
            Ok(handle) => handle,
            Err(e) => {
                tracing::warn!(error = %e, room = %id, "reaching a room");
                None
            }
        }
    }

    /// Every public room (not apartments) with a handle: those open here, and with several
    /// instances every one in the store, wherever it runs.
    pub async fn public_rooms(&self) -> Vec<RoomHandle> {
        if self.owner.is_none() {
            return self.rooms();
        }
        let store = self.store.clone();
        let ids = match blocking(move || store.public_room_ids()).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "listing the rooms");
                return self.rooms();
            }
        };
        let mut rooms = Vec::new();
        for id in ids {
            if let Some(handle) = self.reach(&id).await {
                rooms.push(handle);
            }
        }
        rooms
    }

    /// An open room: run here, or elsewhere with sessions here in it.
    pub fn room(&self, id: &RoomId) -> Option<RoomHandle> {
        self.registry.get(id).or_else(|| self.remote(id))
    }

    /// Every open room.
    pub fn rooms(&self) -> Vec<RoomHandle> {
        self.registry.all()
    }

    /// Makes a room's task panic: fault injection for the supervision test.
    #[doc(hidden)]
    pub async fn crash_room(&self, id: &RoomId) -> bool {
        match self.registry.get(id) {
            Some(room) => room.send(RoomCommand::Crash).await,
            None => false,
        }
    }

    /// Tells every room the service is stopping and waits until each has let its people go;
    /// the last heartbeat is then the moment every clock stopped.
    pub async fn close(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        // A room being opened as the stop began is in the registry (and its lease kept)
        // before the rooms are gone through; none opens here after it.
        drop(self.opening.lock().await);
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
            // Closed: what other instances relay to it is answered "not here".
            self.registry.remove_if(&room.info.id, |h| h.is_closed());
        }
        if let Some(owner) = &self.owner {
            let handed = owner.let_go().await;
            // The others open at once what was in play here, rather than at their next sweep.
            if !handed.is_empty() {
                self.tell_hotel(Notice::HandedOn { rooms: handed }).await;
            }
        }
        let (store, at, beater) = (
            self.store.clone(),
            self.config.clock.now_ms(),
            self.beater(),
        );
        if let Err(e) = blocking(move || store.beat(&beater, at)).await {
            tracing::warn!(error = %e, "writing the last heartbeat");
        }
    }

    /// Whether the service is stopping: no room opens here any more.
    pub fn stopping(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// A new connection id, unique across instances too: each process starts its count at a
    /// random point (a room tells one connection of a user from another by it, wherever
    /// they are).
    pub fn next_connection() -> u64 {
        static NEXT: std::sync::LazyLock<AtomicU64> = std::sync::LazyLock::new(|| {
            // Below 2^53 whatever is added, should an id ever reach JavaScript.
            let start = getrandom::u64().unwrap_or_else(|_| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64)
            });
            AtomicU64::new(((start >> 43) << 32) | 1)
        });
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    /// The room `user_id` is in, through whichever connection.
    pub fn room_of(&self, user_id: &UserId) -> Option<RoomId> {
        self.present(user_id).map(|(room, _)| room)
    }

    /// The room `user_id` is in and the connection that is there.
    pub fn present(&self, user_id: &UserId) -> Option<(RoomId, u64)> {
        self.presence().get(user_id).cloned()
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
