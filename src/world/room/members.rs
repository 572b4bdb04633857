//! Who is in the room: coming in, and the one path by which anyone goes (leaving, dropping,
//! being dropped for not reading, the grace running out, the room closing); and how frames
//! reach them, one serialisation for everyone and a `try_send` each, never a wait.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::common::{TableId, User, UserId};

use super::super::protocol::{Frame, ServerMessage};
use super::super::table::{Command, Departure, Refusal};
use super::render;
use super::{ms, Room};

/// Where a room sends a session its frames.
pub type Outbox = mpsc::Sender<Frame>;

pub(super) struct Member {
    pub(super) user: User,
    pub(super) outbox: Outbox,
    /// The connection this member speaks through; commands from an older one are ignored.
    pub(super) conn: u64,
    /// The table whose moves they receive besides their own (`watch`).
    pub(super) watching: Option<TableId>,
}

/// How someone goes from the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Going {
    /// They left on purpose: their seats go, matches in play resigned.
    Left,
    /// Their connection dropped: a match in play waits through the grace.
    Dropped,
    /// The room dropped them for not reading (already out of `members`): as `Dropped`.
    NotReading,
    /// The room closed for good (they were told `room_closed`, and are already out of
    /// `members`): their seats go.
    RoomClosed,
    /// The service stops (they were told `server_closing`): seats and matches stay, to
    /// resume at the next start.
    ServiceStopping,
}

impl Room {
    /// Whether `user` may come in: the room is not closing, and an apartment's door lets
    /// them.
    pub(super) fn may_enter(&self, user: &UserId) -> Result<(), Refusal> {
        use crate::common::ErrorCode;
        if self.members.contains_key(user) {
            return Ok(());
        }
        // Players of the matches still in play come back to finish them.
        let plays_here = self
            .tables
            .iter()
            .any(|k| k.table.seat_of(user).is_some() && k.table.match_in_play());
        if self.closing && !plays_here {
            return Err(Refusal::new(ErrorCode::RoomClosing, "this room is closing"));
        }
        self.not_barred(user)?;
        if !self.door.admits(self.info.owner.as_ref(), user) {
            return Err(Refusal::new(
                ErrorCode::DoorClosed,
                format!(
                    "{} is open to invited guests only: ask the owner to invite you",
                    self.info.name
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn enter(
        &mut self,
        user: User,
        outbox: Outbox,
        conn: u64,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<Value>,
    ) {
        // Told after the snapshot and `occupant_joined`.
        let back = self.coming_back(&user.id);
        self.outside.remove(&user.id);
        let member = Member {
            user: user.clone(),
            outbox,
            conn,
            watching: None,
        };
        let old = self.members.insert(user.id.clone(), member);
        let rejoin = old.is_some();
        if let Some(old) = old.filter(|m| m.conn != conn) {
            // The older connection is told, then hears nothing more: its outbox is gone.
            let _ = old.outbox.try_send(ServerMessage::Replaced {}.to_frame());
        }
        self.count_occupants();
        self.send_snapshot(&user.id, since, r#ref);
        let id = user.id.clone();
        if !rejoin && self.members.contains_key(&id) {
            let joined = ServerMessage::OccupantJoined {
                room: self.info.id.clone(),
                user,
            };
            self.broadcast_frame(Some(&id), &joined.to_frame());
        }
        if let Some(back) = back {
            self.broadcast_frame(Some(&id), &back.to_frame());
        }
        self.tell_arenas_to(&id);
    }

    /// The `room` snapshot, then what the client missed at the tables it names.
    pub(super) fn send_snapshot(
        &mut self,
        user: &UserId,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<Value>,
    ) {
        let now = self.now();
        let snapshot = ServerMessage::Room {
            room: self.info.clone(),
            occupants: self.members.values().map(|m| m.user.clone()).collect(),
            tables: self
                .tables
                .iter()
                .map(|k| render::table_view(&k.table, now))
                .collect(),
            slow_mode: self.slow_mode_shown(),
            away: self.away_now(),
            chat: self.chat_backlog_for(user),
            seeks: self.seek_counts(),
        };
        self.send_to(user, &snapshot);
        // One answer a table at most: a longer list names tables that are not here.
        let tables = self.tables.len().max(1);
        for (table, version) in since.into_iter().take(tables) {
            let reply = match self.table_index(&table) {
                Ok(t) => self.missed(t, version, r#ref.clone()),
                Err(refusal) => ServerMessage::refusal(&refusal, r#ref.clone()),
            };
            self.send_to(user, &reply);
        }
    }

    /// Someone goes: the one path. They are out of the room's members (unless dropped
    /// already), everyone is told, and every table decides what becomes of their seat,
    /// invitations, rematch and match; a player of a match in play who did not leave on
    /// purpose has the grace period to come back.
    pub(super) async fn depart(&mut self, user: &UserId, going: Going) {
        // Told last, after what became of their seats (a reader dropped was told at once;
        // when the room closes or the service stops, everyone goes and nobody is told).
        let mut told = None;
        if !matches!(going, Going::NotReading | Going::RoomClosed) {
            let Some(member) = self.members.remove(user) else {
                return;
            };
            self.count_occupants();
            told = Some(member.user).filter(|_| matches!(going, Going::Left | Going::Dropped));
        }
        let why = match going {
            Going::Left | Going::RoomClosed => Departure::Left,
            Going::Dropped | Going::NotReading => Departure::Gone,
            Going::ServiceStopping => return,
        };
        for t in 0..self.tables.len() {
            let why = why.clone();
            self.apply(
                t,
                Command::Depart {
                    user: user.clone(),
                    why,
                },
            )
            .await;
        }
        let in_match = self
            .tables
            .iter()
            .any(|k| k.table.seat_of(user).is_some() && k.table.match_in_play());
        if let Some(user) = told {
            self.broadcast(&ServerMessage::OccupantLeft {
                room: self.info.id.clone(),
                user,
            });
        }
        // After `occupant_left`: the seat waits for them.
        if in_match && matches!(going, Going::Dropped | Going::NotReading) {
            let back = self.now().saturating_add(ms(self.config.grace));
            self.gone_away(user, back);
        }
    }

    /// Players whose grace ran out lose their matches as abandoned (all at once, so two who
    /// both stayed away blame nobody).
    pub(super) async fn end_graces(&mut self) {
        let now = self.now();
        let gone: Vec<UserId> = self
            .absent
            .iter()
            .filter(|(_, end)| **end <= now)
            .map(|(id, _)| id.clone())
            .collect();
        if gone.is_empty() {
            return;
        }
        for user in &gone {
            self.absent.remove(user);
        }
        for t in 0..self.tables.len() {
            let why = Departure::GraceOver(gone.clone());
            let user = gone[0].clone();
            self.apply(t, Command::Depart { user, why }).await;
        }
    }

    /// Readers dropped for not reading go as if their connection had dropped (their
    /// session's own goodbye will not count: they are no longer members).
    pub(super) async fn see_to_dropped(&mut self) {
        while let Some(user) = self.dropped.pop() {
            if !self.members.contains_key(&user) {
                self.depart(&user, Going::NotReading).await;
            }
        }
    }

    /// The service is stopping: everyone is told and let go (their sessions close when their
    /// outboxes are gone). Matches in play stay stored and resume at the next start.
    pub(super) async fn close(&mut self) {
        // Handed on, not closed: set before the outboxes close, so the sessions relayed
        // from other instances are told to find the room again (it opens on another
        // instance, or here at the next start) rather than left in no room.
        self.failed.store(true, Ordering::SeqCst);
        self.broadcast(&ServerMessage::ServerClosing {});
        self.outside.clear();
        self.everyone_goes(Going::ServiceStopping).await;
    }

    /// The room closes for good: nobody reaches it any more, everyone in it is told and is
    /// in no room, and the task ends.
    pub(super) async fn shut(&mut self) {
        if self.closed {
            return;
        }
        self.config.registry.remove(&self.info.id);
        self.outside.clear();
        self.broadcast(&ServerMessage::RoomClosed {
            room: self.info.id.clone(),
        });
        // Out at once, so nothing after `room_closed` reaches them; then their seats go.
        let everyone: Vec<UserId> = self.members.drain().map(|(id, _)| id).collect();
        self.count_occupants();
        for user in everyone {
            self.depart(&user, Going::RoomClosed).await;
        }
        self.closed = true;
        tracing::info!(room = %self.info.id, "the room is closed");
    }

    async fn everyone_goes(&mut self, going: Going) {
        let everyone: Vec<UserId> = self.members.keys().cloned().collect();
        for user in everyone {
            self.depart(&user, going).await;
        }
    }

    fn count_occupants(&self) {
        self.occupants.store(self.members.len(), Ordering::Relaxed);
    }

    pub(super) fn send_to(&mut self, user: &UserId, message: &ServerMessage) {
        let Some(member) = self.members.get(user) else {
            return;
        };
        if member.outbox.try_send(message.to_frame()).is_err() {
            self.drop_members(vec![user.clone()]);
        }
    }

    pub(super) fn broadcast(&mut self, message: &ServerMessage) {
        self.broadcast_frame(None, &message.to_frame());
    }

    /// One frame to everyone (but `except`), a `try_send` each; a reader whose queue is full
    /// is dropped.
    pub(super) fn broadcast_frame(&mut self, except: Option<&UserId>, frame: &Frame) {
        let slow: Vec<UserId> = self
            .members
            .iter()
            .filter(|(id, m)| Some(*id) != except && m.outbox.try_send(frame.clone()).is_err())
            .map(|(id, _)| id.clone())
            .collect();
        self.drop_members(slow);
    }

    /// Members whose outbox is full or closed are out of the room at once (their session
    /// closes when its outbox sender is gone); the rest are told. What becomes of their seats
    /// is seen to after the command, by `depart`.
    pub(super) fn drop_members(&mut self, ids: Vec<UserId>) {
        for id in ids {
            if let Some(member) = self.members.remove(&id) {
                self.count_occupants();
                tracing::info!(room = %self.info.id, user = %id, "dropping a slow or gone reader");
                self.dropped.push(id.clone());
                self.broadcast(&ServerMessage::OccupantLeft {
                    room: self.info.id.clone(),
                    user: member.user,
                });
            }
        }
    }
}
