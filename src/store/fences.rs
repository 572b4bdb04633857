//! Rooms' fencing numbers (issue 19): the database's half of a room's lease. A new owner
//! takes the room under its lease's number (`take_room`), refused if a later owner already
//! did; each of its writes runs in a transaction that first checks the number is still its
//! own (`fenced`), so the writes of an owner paused past its lease are refused once its
//! successor has taken the room, whatever the pause.
//!
//! The check is an UPDATE of the room's row, not a read: on PostgreSQL it holds the row's
//! lock until the write commits, so a successor's `take_room` waits for a write already
//! checked and then sees it, and no write checked before the takeover commits after it. On
//! SQLite every write transaction holds the database's lock anyway.

use diesel::prelude::*;

use super::schema::room_fences;
use super::{Db, Store, StoreError};
use crate::common::RoomId;

impl Store {
    /// The room's fencing number as the database has it: the floor of its next lease (0
    /// when no owner has taken it by lease).
    pub fn fence_of(&self, room: &RoomId) -> Result<u64, StoreError> {
        let fence: Option<i64> = room_fences::table
            .find(room)
            .select(room_fences::fence)
            .first(&mut *self.conn()?)
            .optional()?;
        Ok(fence.map_or(0, |f| f.max(0) as u64))
    }

    /// Takes `room` for the owner holding fencing number `fence`: refused (`Fenced`) when the
    /// database has seen a larger one, a later owner having taken it.
    pub fn take_room(&self, room: &RoomId, fence: u64) -> Result<(), StoreError> {
        let mine = number(fence)?;
        self.write(|conn| {
            let raised = diesel::update(
                room_fences::table
                    .find(room)
                    .filter(room_fences::fence.le(mine)),
            )
            .set(room_fences::fence.eq(mine))
            .execute(conn)?;
            if raised == 1 {
                return Ok(());
            }
            let latest: Option<i64> = room_fences::table
                .find(room)
                .select(room_fences::fence)
                .first(conn)
                .optional()?;
            match latest {
                Some(latest) => Err(fenced(room, fence, latest)),
                None => {
                    diesel::insert_into(room_fences::table)
                        .values((room_fences::room_id.eq(room), room_fences::fence.eq(mine)))
                        .execute(conn)?;
                    Ok(())
                }
            }
        })
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
    let latest: Option<i64> = room_fences::table
        .find(room)
        .select(room_fences::fence)
        .first(conn)
        .optional()?;
    Err(fenced(room, fence, latest.unwrap_or(0)))
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
