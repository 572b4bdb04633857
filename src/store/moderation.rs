//! What operators decide to keep the lounge civil, kept so it outlives a restart: a room's
//! slow mode, guests muted, guests put out of a room. Every change is audited in the same
//! transaction.

use diesel::prelude::*;
use serde_json::json;

use super::schema::{mutes, room_bars, rooms, users};
use super::{Store, StoreError};
use crate::common::{OperatorName, RoomId, UserId};

fn ms_column(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

impl Store {
    /// A room's slow mode (seconds, 0 off).
    pub fn slow_mode(&self, room: &RoomId) -> Result<u32, StoreError> {
        let mut conn = self.conn()?;
        let secs: i32 = rooms::table
            .find(room)
            .select(rooms::slow_mode_secs)
            .first(&mut *conn)
            .optional()?
            .unwrap_or(0);
        Ok(u32::try_from(secs).unwrap_or(0))
    }

    /// An operator sets a room's slow mode, audited (`room.slow_mode`).
    pub fn set_slow_mode(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        secs: u32,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let changed =
                diesel::update(rooms::table.find(room).filter(rooms::closed_at.is_null()))
                    .set(rooms::slow_mode_secs.eq(i32::try_from(secs).unwrap_or(i32::MAX)))
                    .execute(conn)?;
            if changed == 0 {
                return Err(StoreError::NotFound(format!("room `{room}`")));
            }
            self.audit_in(
                conn,
                actor,
                "room.slow_mode",
                room.as_str(),
                &json!({"seconds": secs}),
            )
        })
    }

    /// An operator mutes a guest until `until_ms` (server ms), audited (`user.mute`); a new
    /// mute replaces the old.
    pub fn mute(
        &self,
        actor: &OperatorName,
        user: &UserId,
        until_ms: u64,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let known: i64 = users::table.find(user).count().get_result(conn)?;
            if known == 0 {
                return Err(StoreError::NotFound(format!("user `{user}`")));
            }
            diesel::delete(mutes::table.find(user)).execute(conn)?;
            diesel::insert_into(mutes::table)
                .values((
                    mutes::user_id.eq(user),
                    mutes::until_ms.eq(ms_column(until_ms)),
                    mutes::reason.eq(reason),
                    mutes::actor.eq(actor),
                    mutes::created_at.eq(self.now()),
                ))
                .execute(conn)?;
            let details = json!({"until_ms": until_ms, "reason": reason});
            self.audit_in(conn, actor, "user.mute", user.as_str(), &details)
        })
    }

    /// An operator lifts a guest's mute, audited (`user.unmute`); false when none was on.
    pub fn unmute(&self, actor: &OperatorName, user: &UserId) -> Result<bool, StoreError> {
        self.write(|conn| {
            let gone = diesel::delete(mutes::table.find(user)).execute(conn)?;
            if gone > 0 {
                self.audit_in(conn, actor, "user.unmute", user.as_str(), &json!({}))?;
            }
            Ok(gone > 0)
        })
    }

    /// Guests muted after `now_ms`, with the end of each mute.
    pub fn mutes(&self, now_ms: u64) -> Result<Vec<(UserId, u64)>, StoreError> {
        let mut conn = self.conn()?;
        let rows: Vec<(UserId, i64)> = mutes::table
            .filter(mutes::until_ms.gt(ms_column(now_ms)))
            .select((mutes::user_id, mutes::until_ms))
            .load(&mut *conn)?;
        Ok(rows
            .into_iter()
            .map(|(u, until)| (u, u64::try_from(until).unwrap_or(0)))
            .collect())
    }

    /// An operator puts a guest out of a room until `until_ms`, audited (`room.put_out`).
    pub fn put_out(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        user: &UserId,
        until_ms: u64,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let known: i64 = users::table.find(user).count().get_result(conn)?;
            if known == 0 {
                return Err(StoreError::NotFound(format!("user `{user}`")));
            }
            let room_known: i64 = rooms::table.find(room).count().get_result(conn)?;
            if room_known == 0 {
                return Err(StoreError::NotFound(format!("room `{room}`")));
            }
            diesel::delete(room_bars::table.find((room, user))).execute(conn)?;
            diesel::insert_into(room_bars::table)
                .values((
                    room_bars::room_id.eq(room),
                    room_bars::user_id.eq(user),
                    room_bars::until_ms.eq(ms_column(until_ms)),
                    room_bars::reason.eq(reason),
                    room_bars::actor.eq(actor),
                    room_bars::created_at.eq(self.now()),
                ))
                .execute(conn)?;
            let details = json!({"user": user, "until_ms": until_ms, "reason": reason});
            self.audit_in(conn, actor, "room.put_out", room.as_str(), &details)
        })
    }

    /// Guests kept out of `room` after `now_ms`, with when each may come back.
    pub fn room_bars(&self, room: &RoomId, now_ms: u64) -> Result<Vec<(UserId, u64)>, StoreError> {
        let mut conn = self.conn()?;
        let rows: Vec<(UserId, i64)> = room_bars::table
            .filter(room_bars::room_id.eq(room))
            .filter(room_bars::until_ms.gt(ms_column(now_ms)))
            .select((room_bars::user_id, room_bars::until_ms))
            .load(&mut *conn)?;
        Ok(rows
            .into_iter()
            .map(|(u, until)| (u, u64::try_from(until).unwrap_or(0)))
            .collect())
    }

    /// An operator removed a chat line from a room, audited (`chat.remove`); chat lines
    /// themselves are not stored.
    pub fn audit_chat_removed(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        line: u64,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            self.audit_in(
                conn,
                actor,
                "chat.remove",
                room.as_str(),
                &json!({"line": line}),
            )
        })
    }
}
