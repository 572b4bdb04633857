//! Which instance runs a room when several do (`crate::cluster`): a room opens
//! here only under its lease in Redis, taken in the database under the lease's fencing
//! number (`Store::take_room`), so that its writes are refused once a later owner takes it.
//! A keeper renews the lease while the room runs, drops the room when it cannot renew in
//! time, and lets the lease go when the room's task ends (a clean stop, an idle apartment).
//!
//! Leases are counted on their own clock (`Leases::clock`): the system's in the service,
//! whatever clock the rooms read, as Redis counts a lease's time to live in real time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use thiserror::Error;
use tokio::task::JoinHandle;

use crate::cluster::{Fence, Held, LeaseError, Leases};
use crate::common::RoomId;
use crate::store::{blocking, Store, StoreError};

use super::super::room::{RoomCommand, RoomHandle};

/// Why a room could not be opened here.
#[derive(Debug, Error)]
pub enum OpenError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("room leases: {0}")]
    Lease(#[from] LeaseError),
    /// Another instance runs the room now.
    #[error("room {0} is run by another instance")]
    Elsewhere(RoomId),
}

/// What taking a room's lease came to.
#[derive(Debug)]
pub enum Taken {
    /// The room is this instance's now, under `Held`; with the instance that ran it before,
    /// if any (its last heartbeat is when the room's clocks stopped).
    Here(Held, Option<String>),
    /// Another instance runs it.
    Elsewhere,
    /// The store has no such room.
    NoSuchRoom,
}

/// This instance's part in the cluster: the leases it takes.
#[derive(Clone)]
pub struct Owner {
    leases: Leases,
    /// The keepers of the leases held, awaited at a clean stop (each lets its lease go).
    keepers: Arc<Mutex<Vec<JoinHandle<Option<RoomId>>>>>,
}

impl Owner {
    pub fn new(leases: Leases) -> Owner {
        Owner {
            leases,
            keepers: Arc::default(),
        }
    }

    pub fn instance(&self) -> &str {
        self.leases.instance()
    }

    pub fn leases(&self) -> &Leases {
        &self.leases
    }

    /// Takes `room`'s lease for this instance, then the room in the database under the
    /// lease's number: `Elsewhere` when another instance holds it (or took it under a later
    /// number), `NoSuchRoom` (and nothing asked of Redis) when the store has no such room.
    pub async fn take(&self, store: &Store, room: &RoomId) -> Result<Taken, OpenError> {
        let floor = {
            let (store, room) = (store.clone(), room.clone());
            blocking(move || store.fence_of_room(&room)).await?
        };
        let Some(floor) = floor else {
            return Ok(Taken::NoSuchRoom);
        };
        crate::metrics::METRICS.redis_round_trips.inc();
        let Some(held) = self.leases.acquire(room, Fence(floor)).await? else {
            return Ok(Taken::Elsewhere);
        };
        let (fence, instance) = (held.fence.0, self.instance().to_owned());
        let taken = {
            let (store, room) = (store.clone(), room.clone());
            blocking(move || store.take_room(&room, fence, &instance)).await
        };
        match taken {
            Ok(before) => Ok(Taken::Here(held, before)),
            Err(e) => {
                // Not ours after all: the next taker need not wait for it to run out.
                if let Err(e) = self.leases.release(&held).await {
                    tracing::warn!(error = %e, %room, "letting a lease go");
                }
                match e {
                    StoreError::Fenced { .. } => Ok(Taken::Elsewhere),
                    e => Err(e.into()),
                }
            }
        }
    }

    /// Lets a lease go that no room was opened under (the room is not in the store).
    pub async fn release(&self, held: &Held) {
        if let Err(e) = self.leases.release(held).await {
            tracing::warn!(error = %e, room = %held.room, "letting a lease go");
        }
    }

    /// Keeps `held` for `room` while its task runs.
    pub fn keep(&self, held: Held, room: RoomHandle) {
        let keeper = tokio::spawn(keep(self.leases.clone(), held, room));
        let mut keepers = self.keepers();
        keepers.retain(|k| !k.is_finished());
        keepers.push(keeper);
    }

    /// Once the rooms have closed (a clean stop): waits, a little, for their keepers to let
    /// the leases go, so the next owner takes each room at once instead of when it runs out.
    /// The rooms let go.
    pub async fn let_go(&self) -> Vec<RoomId> {
        let mut keepers = std::mem::take(&mut *self.keepers());
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        let mut released = Vec::new();
        for keeper in &mut keepers {
            match tokio::time::timeout_at(deadline, keeper).await {
                Ok(Ok(Some(room))) => released.push(room),
                Ok(_) => {}
                Err(_) => {
                    tracing::warn!(
                        "some leases were not let go in time: they run out by themselves"
                    );
                    break;
                }
            }
        }
        released
    }

    fn keepers(&self) -> std::sync::MutexGuard<'_, Vec<JoinHandle<Option<RoomId>>>> {
        self.keepers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the keeper does next, at `now`.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Wait this long, then look again.
    Wait(u64),
    /// Renew now, giving up on the try after this long (when the lease would no longer be
    /// acted on).
    Renew(u64),
    /// The lease is no longer to be acted on: drop the room.
    Lost,
}

/// The keeper's decision for `held` at `now`: pure, so it is tested on a hand-driven clock.
pub fn step(held: &Held, now: u64) -> Step {
    if !held.valid(now) {
        Step::Lost
    } else if held.renew_due(now) {
        Step::Renew(held.until().saturating_sub(now))
    } else {
        Step::Wait(held.renew_at().saturating_sub(now))
    }
}

/// A pause between tries of a renewal that failed on Redis itself.
const RETRY_MS: u64 = 100;

/// Keeps the lease while the room runs: the room, when its lease was let go as it closed.
async fn keep(leases: Leases, held: Held, room: RoomHandle) -> Option<RoomId> {
    let metrics = &crate::metrics::METRICS;
    metrics.rooms_owned.inc();
    let released = keeping(&leases, held, &room).await;
    metrics.rooms_owned.dec();
    released
}

async fn keeping(leases: &Leases, mut held: Held, room: &RoomHandle) -> Option<RoomId> {
    let clock = leases.clock().clone();
    loop {
        let wait = match step(&held, clock.now_ms()) {
            Step::Wait(ms) => ms,
            Step::Renew(within) => {
                crate::metrics::METRICS.redis_round_trips.inc();
                let renewed =
                    tokio::time::timeout(Duration::from_millis(within), leases.renew(&mut held));
                match renewed.await {
                    Ok(Ok(true)) => continue,
                    Ok(Ok(false)) => {
                        lose(room, "its lease was no longer this instance's").await;
                        return None;
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, room = %held.room, "renewing a lease");
                        RETRY_MS
                    }
                    // Looked at again: past its end, the room is dropped.
                    Err(_) => 0,
                }
            }
            Step::Lost => {
                lose(room, "its lease could not be renewed in time").await;
                return None;
            }
        };
        tokio::select! {
            () = room.closed() => {
                // The room's task ended here: the next owner need not wait for the lease.
                crate::metrics::METRICS.redis_round_trips.inc();
                return match leases.release(&held).await {
                    Ok(true) => Some(held.room),
                    Ok(false) => None,
                    Err(e) => {
                        tracing::warn!(error = %e, room = %held.room, "letting a lease go");
                        None
                    }
                };
            }
            () = tokio::time::sleep(Duration::from_millis(wait)) => {}
        }
    }
}

async fn lose(room: &RoomHandle, why: &'static str) {
    room.send(RoomCommand::LeaseLost { why }).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keeper_waits_renews_within_the_lease_and_gives_the_room_up_at_its_margin() {
        let clock = crate::common::ServerClock::manual(10_000);
        let mut held = Held::new(RoomId::new("lounge"), Fence(3), clock.now_ms(), 3_000);
        assert_eq!(step(&held, clock.now_ms()), Step::Wait(1_000));
        clock.advance(1_000);
        // Acted on until 300 ms (a tenth) before the end: the try may take 1.7 s.
        assert_eq!(step(&held, clock.now_ms()), Step::Renew(1_700));
        held.renewed(clock.now_ms());
        assert_eq!(step(&held, clock.now_ms()), Step::Wait(1_000));
        // Renewals that fail leave it to run out.
        clock.advance(2_699);
        assert_eq!(step(&held, clock.now_ms()), Step::Renew(1));
        clock.advance(1);
        assert_eq!(step(&held, clock.now_ms()), Step::Lost);
    }
}
