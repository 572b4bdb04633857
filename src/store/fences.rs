//! Rooms' fencing numbers: the database's half of a room's lease. A new owner
//! takes the room under its lease's number (`take_room`), refused if a later owner already
//! did; each of its writes runs in a transaction that first checks the number is still its
//! own (`fenced`), so the writes of an owner paused past its lease are refused once its
//! successor has taken the room, whatever the pause. The row also names the instance that
//! took the room: a Redis that restarted empty can grant one number twice (the floor it is
//! given is the largest number *taken*, and a grant may still be on its way), and of two
//! instances under one number only the first to take the room has it.
//!
//! The check is an UPDATE of the room's row, not a read: on PostgreSQL it holds the row's
//! lock until the write commits, so a successor's `take_room` waits for a write already
//! checked and then sees it, and no write checked before the takeover commits after it. On
//! SQLite every write transaction holds the database's lock anyway.

use diesel::prelude::*;

use super::schema::{room_fences, rooms};
use super::{Db, Store, StoreError};
use crate::common::RoomId;

impl Store {
    /// The room's fencing number as the database has it: the floor of its next lease (0
    /// when no owner has taken it by lease).
    pub fn fence_of(&self, room: &RoomId) -> Result<u64, StoreError> {
        Ok(self.fence_of_room(room)?.unwrap_or(0))
    }

    /// `fence_of` a room the store has (closed ones too: one closing opens while a match it
    /// let finish is in play, `open_room` decides); `None` when it has no such room (nothing
    /// is to be leased for it, nor any key written for it in Redis).
    pub fn fence_of_room(&self, room: &RoomId) -> Result<Option<u64>, StoreError> {
        let mut conn = self.conn()?;
        let exists: Option<RoomId> = rooms::table
            .find(room)
            .select(rooms::id)
            .first(&mut *conn)
            .optional()?;
        if exists.is_none() {
            return Ok(None);
        }
        let row = taken(&mut conn, room)?;
        Ok(Some(row.map_or(0, |(f, _)| f.max(0) as u64)))
    }

    /// Takes `room` for `owner` (an instance's id) under fencing number `fence`: refused
    /// (`Fenced`) when a later owner took it, or another instance under the same number (two
    /// grants of one number, from a Redis that restarted empty). The same owner under the
    /// same number takes it again (a retry). Returns the instance that had taken it before,
    /// if any: its last heartbeat is where the room's outage began.
    pub fn take_room(
        &self,
        room: &RoomId,
        fence: u64,
        owner: &str,
    ) -> Result<Option<String>, StoreError> {
        let mine = number(fence)?;
        // Two takers of a room with no row yet: the second INSERT fails on the key (a
        // `Conflict`) and tries again, seeing the first one's row.
        for _ in 0..3 {
            match self.write(|conn| take(conn, room, fence, mine, owner)) {
                Ok(Take::Taken { before }) => return Ok(before),
                Ok(Take::Again) | Err(StoreError::Conflict(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Conflict(format!(
            "room {room}: its fencing number kept changing"
        )))
    }

    /// Runs `f` in a write transaction of `room`'s owner under `fence`, after checking in the
    /// same transaction that the room is still that owner's: `Fenced` (and nothing written)
    /// when a later owner has taken it.
    pub fn fenced<T>(
        &self,
        room: &RoomId,
        fence: u64,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mine = number(fence)?;
        self.write(|conn| {
            check(conn, room, fence, mine)?;
            f(conn)
        })
    }

    /// Runs `f` as `write` does, or under `fence` (a room and its owner's number) as
    /// `fenced` does: how a room's own writes go, leased or not.
    pub fn write_under<T>(
        &self,
        fence: Option<(&RoomId, u64)>,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match fence {
            Some((room, number)) => self.fenced(room, number, f),
            None => self.write(f),
        }
    }
}

/// How one try of `take_room` went.
enum Take {
    /// Taken from `before`, the instance that had it (none: it was never taken by lease).
    Taken { before: Option<String> },
    /// The row changed between the update and the read: try again.
    Again,
}

fn take(
    conn: &mut Db,
    room: &RoomId,
    fence: u64,
    mine: i64,
    owner: &str,
) -> Result<Take, StoreError> {
    let before = taken(conn, room)?.map(|(_, holder)| holder);
    let raised = diesel::update(
        room_fences::table.find(room).filter(
            room_fences::fence.lt(mine).or(room_fences::fence
                .eq(mine)
                .and(room_fences::owner.eq(owner))),
        ),
    )
    .set((room_fences::fence.eq(mine), room_fences::owner.eq(owner)))
    .execute(conn)?;
    if raised == 1 {
        return Ok(Take::Taken { before });
    }
    match taken(conn, room)? {
        Some((latest, holder)) if latest > mine || (latest == mine && holder != owner) => {
            Err(fenced(room, fence, latest))
        }
        Some(_) => Ok(Take::Again),
        None => {
            diesel::insert_into(room_fences::table)
                .values((
                    room_fences::room_id.eq(room),
                    room_fences::fence.eq(mine),
                    room_fences::owner.eq(owner),
                ))
                .execute(conn)?;
            Ok(Take::Taken { before: None })
        }
    }
}

/// The room is still the owner's under `mine`: its row locked until the transaction ends.
fn check(conn: &mut Db, room: &RoomId, fence: u64, mine: i64) -> Result<(), StoreError> {
    let held = diesel::update(
        room_fences::table
            .find(room)
            .filter(room_fences::fence.eq(mine)),
    )
    .set(room_fences::fence.eq(mine))
    .execute(conn)?;
    if held == 1 {
        return Ok(());
    }
    let latest = taken(conn, room)?.map_or(0, |(f, _)| f);
    Err(fenced(room, fence, latest))
}

/// The room's fencing number and the instance that took the room under it, if any did.
fn taken(conn: &mut Db, room: &RoomId) -> Result<Option<(i64, String)>, StoreError> {
    Ok(room_fences::table
        .find(room)
        .select((room_fences::fence, room_fences::owner))
        .first(conn)
        .optional()?)
}

fn number(fence: u64) -> Result<i64, StoreError> {
    i64::try_from(fence).map_err(|_| StoreError::Conflict(format!("fencing number {fence}")))
}

fn fenced(room: &RoomId, mine: u64, latest: i64) -> StoreError {
    StoreError::Fenced {
        room: room.clone(),
        mine,
        latest: latest.max(0) as u64,
    }
}
