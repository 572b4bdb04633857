//! The world as one instance of several: the sweeper that opens rooms with games
//! in play nobody runs, the handles of rooms run by another instance, and whether this
//! instance reaches Redis. One instance alone has no owner and none of this runs.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::super::protocol::RoomInfo;
use super::super::{OpenError, Owner, RoomHandle, World};
use super::remote;
use crate::common::RoomId;
use crate::store::blocking;

impl World {
    /// Every `every` (a lease's time), opens here the rooms with a match in play or a
    /// tournament under way that no instance runs: their owner died and nobody has visited
    /// since, and their games (Baba Ayo's, a clock running) and tournaments must go on.
    pub(in crate::world) fn start_sweeper(&self, every: Duration) {
        let world = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if world.stopped.load(Ordering::SeqCst) {
                    break;
                }
                world.sweep().await;
            }
        });
    }

    /// Opens here the rooms with a match in play or a tournament under way that no instance
    /// runs; returns how many.
    pub async fn sweep(&self) -> usize {
        self.sweep_rooms(None).await
    }

    /// `sweep`, of `only` these rooms when given (those a stopping instance let go).
    pub(in crate::world) async fn sweep_rooms(&self, only: Option<Vec<RoomId>>) -> usize {
        let Some(owner) = &self.owner else {
            return 0;
        };
        if self.stopping() {
            return 0;
        }
        let store = self.store.clone();
        let rooms = match blocking(move || store.rooms_in_play()).await {
            Ok(rooms) => rooms,
            Err(e) => {
                tracing::warn!(error = %e, "looking for rooms in play nobody runs");
                return 0;
            }
        };
        let mut opened = 0;
        for room in rooms {
            if only.as_ref().is_some_and(|only| !only.contains(&room)) {
                continue;
            }
            if self.registry.get(&room).is_some() {
                continue;
            }
            // Held by a live instance: nothing to do (one round trip, no database).
            if matches!(owner.leases().owner(&room).await, Ok(Some(_))) {
                continue;
            }
            match self.open_as(&room, false).await {
                Ok(Some(_)) => {
                    tracing::info!(%room, "a room in play that nobody ran opens here");
                    opened += 1;
                }
                Ok(None) | Err(OpenError::Elsewhere(_)) => {}
                Err(e) => tracing::warn!(error = %e, %room, "opening a room in play nobody ran"),
            }
        }
        opened
    }

    /// One of several instances: whether it reaches Redis (without it, it can neither take
    /// a room nor relay to one). `None` for one instance alone.
    pub async fn redis_ready(&self) -> Option<bool> {
        let owner = self.owner.as_ref()?;
        crate::metrics::METRICS.redis_round_trips.inc();
        Some(owner.leases().ping().await)
    }

    /// A room run elsewhere that sessions here are in, unless it failed.
    pub(in crate::world) fn remote(&self, id: &RoomId) -> Option<RoomHandle> {
        let remotes = self
            .remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        remotes
            .get(id)
            .filter(|r| !r.failed() && !r.is_closed())
            .cloned()
    }

    /// Room `id`, run by another instance: a handle here that relays to it.
    pub(in crate::world) async fn open_remote(
        &self,
        owner: &Owner,
        id: RoomId,
    ) -> Result<Option<RoomHandle>, OpenError> {
        let Some(relay) = &self.relay else {
            return Err(OpenError::Elsewhere(id));
        };
        let _one = self.opening_remote.lock().await;
        // Another session here opened it while this one waited.
        if let Some(handle) = self.remote(&id) {
            return Ok(Some(handle));
        }
        crate::metrics::METRICS.redis_round_trips.inc();
        let holder = match owner.leases().owner(&id).await? {
            Some((holder, _)) if holder != owner.instance() => holder,
            // Let go just now, or held here under a number the database refused: the next
            // visit tries again.
            _ => return Err(OpenError::Elsewhere(id)),
        };
        // A holder that died holds the lease until it runs out: the room is nobody's till then.
        if !relay.reads(&holder).await {
            return Err(OpenError::Elsewhere(id));
        }
        let (store, reading) = (self.store.clone(), id.clone());
        let Some((row, _)) = blocking(move || store.room(&reading)).await? else {
            return Ok(None);
        };
        let info = RoomInfo {
            id: row.id,
            name: row.name,
            kind: row.kind,
            owner: row.owner_id,
        };
        let remotes = self.remotes.clone();
        let gone = id.clone();
        let handle = remote::spawn(
            info,
            holder,
            relay.clone(),
            owner.leases().clone(),
            move || {
                // Only a handle that ended: not one opened since in its place.
                remotes
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .retain(|room, handle| {
                        room != &gone || !(handle.failed() || handle.is_closed())
                    });
            },
        );
        self.remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, handle.clone());
        Ok(Some(handle))
    }
}
