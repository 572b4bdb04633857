//! Operators moderating the live hotel: each decision is stored and audited first, then the
//! room (or every room, for a mute) learns of it through its handle, and the other
//! instances through a hotel notice (`notices.rs`).

use tokio::sync::oneshot;

use crate::common::{OperatorName, RoomId, UserId};
use crate::store::{blocking, BlockError, StoreError};

use super::cluster::notices::Notice;
use super::{HotelError, Moderation, RoomCommand, World};

impl World {
    /// The server's clock now (ms since 1970): what `until` times are on.
    pub fn now_ms(&self) -> u64 {
        self.config.clock.now_ms()
    }

    /// How long a guest put out of a room stays out unless told (ms).
    pub fn put_out_ms(&self) -> u64 {
        self.config.civility.limits.put_out_ms
    }

    /// Puts `room` in slow mode (`seconds` per chat line per guest; 0 off).
    pub async fn set_slow_mode(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        seconds: u32,
    ) -> Result<(), HotelError> {
        let (store, actor, id) = (self.store.clone(), actor.clone(), room.clone());
        blocking(move || store.set_slow_mode(&actor, &id, seconds)).await?;
        if let Some(handle) = self.reach(room).await {
            handle
                .send(RoomCommand::Moderate(Moderation::SlowMode { seconds }))
                .await;
        }
        Ok(())
    }

    /// Mutes `user` for `for_ms`; they are told in the room they are in. Returns the end.
    pub async fn mute(
        &self,
        actor: &OperatorName,
        user: &UserId,
        for_ms: u64,
        reason: &str,
    ) -> Result<u64, HotelError> {
        let until = self.now_ms().saturating_add(for_ms);
        let (store, actor, id, why) = (
            self.store.clone(),
            actor.to_owned(),
            user.clone(),
            reason.to_owned(),
        );
        blocking(move || store.mute(&actor, &id, until, &why)).await?;
        self.config.civility.set_mute(user, Some(until));
        self.tell_muted(user, Some(until), reason).await;
        self.tell_hotel(Notice::Muted {
            user: user.clone(),
            until: Some(until),
            reason: reason.to_owned(),
        })
        .await;
        Ok(until)
    }

    /// Lifts `user`'s mute; false when none was on.
    pub async fn unmute(&self, actor: &OperatorName, user: &UserId) -> Result<bool, HotelError> {
        let (store, actor, id) = (self.store.clone(), actor.to_owned(), user.clone());
        let lifted = blocking(move || store.unmute(&actor, &id)).await?;
        self.config.civility.set_mute(user, None);
        if lifted {
            self.tell_muted(user, None, "").await;
        }
        self.tell_hotel(Notice::Muted {
            user: user.clone(),
            until: None,
            reason: String::new(),
        })
        .await;
        Ok(lifted)
    }

    /// Puts `user` out of `room` for `for_ms`: out at once if in it, and kept out. Returns
    /// when they may come back.
    pub async fn put_out(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        user: &UserId,
        for_ms: u64,
        reason: &str,
    ) -> Result<u64, HotelError> {
        let until = self.now_ms().saturating_add(for_ms);
        let (store, actor, room_id, id, why) = (
            self.store.clone(),
            actor.clone(),
            room.clone(),
            user.clone(),
            reason.to_owned(),
        );
        blocking(move || store.put_out(&actor, &room_id, &id, until, &why)).await?;
        // A room not open now reads it from the store when it opens.
        if let Some(handle) = self.reach(room).await {
            let out = Moderation::PutOut {
                user: user.clone(),
                until,
                reason: reason.to_owned(),
            };
            handle.send(RoomCommand::Moderate(out)).await;
        }
        Ok(until)
    }

    /// Takes chat line `line` of `room` away for everyone in it; false when the room never
    /// had such a line (chat lines live only in the open room).
    pub async fn remove_chat_line(
        &self,
        actor: &OperatorName,
        room: &RoomId,
        line: u64,
    ) -> Result<bool, HotelError> {
        let handle = self
            .reach(room)
            .await
            .ok_or_else(|| HotelError::NoSuchRoom(room.clone()))?;
        let (reply, answer) = oneshot::channel();
        let remove = Moderation::RemoveLine { line, reply };
        if !handle.send(RoomCommand::Moderate(remove)).await {
            return Err(HotelError::Gone);
        }
        if !answer.await.map_err(|_| HotelError::Gone)? {
            return Ok(false);
        }
        let (store, actor, id) = (self.store.clone(), actor.clone(), room.clone());
        blocking(move || store.audit_chat_removed(&actor, &id, line)).await?;
        Ok(true)
    }

    /// `user` blocks `other`: their invitations and chat lines no longer reach `user`.
    pub async fn block(&self, user: &UserId, other: &UserId) -> Result<(), BlockError> {
        let (store, a, b) = (self.store.clone(), user.clone(), other.clone());
        tokio::task::spawn_blocking(move || store.block(&a, &b))
            .await
            .unwrap_or_else(|e| Err(StoreError::Task(e.to_string()).into()))?;
        self.config.civility.set_block(user, other, true);
        self.tell_blocked(user, other, true).await;
        Ok(())
    }

    /// Whether `user` blocks `other` (as every room knows it).
    pub fn blocks(&self, user: &UserId, other: &UserId) -> bool {
        self.config.civility.blocks(user, other)
    }

    /// `user` unblocks `other`; false when they did not block them.
    pub async fn unblock(&self, user: &UserId, other: &UserId) -> Result<bool, StoreError> {
        let (store, a, b) = (self.store.clone(), user.clone(), other.clone());
        let was = blocking(move || store.unblock(&a, &b)).await?;
        self.config.civility.set_block(user, other, false);
        self.tell_blocked(user, other, false).await;
        Ok(was)
    }

    async fn tell_blocked(&self, user: &UserId, other: &UserId, on: bool) {
        let notice = Notice::Blocked {
            user: user.clone(),
            other: other.clone(),
            on,
        };
        self.tell_hotel(notice).await;
    }
}
