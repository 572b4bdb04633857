//! News for the whole hotel: what one instance learns that every other must know
//! at once, not at its next start. Published on one channel every instance reads
//! (`{prefix}hotel`, `relay.rs`); a room's own news goes to its owner instead (`Wire`).
//!
//! Mutes and blocks are the world's (every room here reads them); a user's connections, the
//! bans and invitations home are the HTTP layer's, which reads them from `World::notices`.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::common::{RoomId, UserId};

use super::super::{Moderation, RoomCommand, World};

/// How long a question to every other instance waits for their answers (`World::ask_hotel`).
const ANSWERS_WITHIN: Duration = Duration::from_secs(1);

/// Notices read but not yet taken by a slow reader, before the oldest are skipped.
pub(in crate::world) const NOTICES_KEPT: usize = 1024;

/// What one instance tells all the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// A connection of `user` opened on the instance that says so: it takes their others
    /// over. Answered to request `req` by every other instance with the room their
    /// connection there is in (its connections in no room close at once; one in a room is
    /// taken over by the room when the new connection enters it).
    Connected { user: UserId, req: u64 },
    /// An operator muted `user` (until then, server ms) or lifted their mute (`None`).
    Muted {
        user: UserId,
        until: Option<u64>,
        reason: String,
    },
    /// `user` blocked (`on`) or unblocked `other`.
    Blocked {
        user: UserId,
        other: UserId,
        on: bool,
    },
    /// An operator banned `user` (until then, ms since 1970; `None` until lifted).
    Banned {
        user: UserId,
        reason: String,
        until: Option<i64>,
    },
    /// An operator lifted `user`'s ban.
    BanLifted { user: UserId },
    /// The instance that says so stopped and let these rooms' leases go: whoever has a
    /// match in play opens here (the first to take its lease) without waiting for a sweep.
    HandedOn { rooms: Vec<RoomId> },
    /// Which of `users` have a connection on the instance that answers, and the room each
    /// is in there (`null` for none): answered by every other instance to request `req`, for
    /// a friends list.
    Whereabouts { users: Vec<UserId>, req: u64 },
    /// How many connections of `user` there are, each sent `frame` (an invitation home) when
    /// there is one: answered by every other instance to request `req`.
    Reach {
        user: UserId,
        frame: Option<String>,
        req: u64,
    },
}

/// A notice as it crosses: who sent it.
#[derive(Clone, Debug)]
pub struct Heard {
    pub from: String,
    pub notice: Notice,
}

impl World {
    /// Tells every other instance `notice`; nothing with one instance alone.
    pub async fn tell_hotel(&self, notice: Notice) {
        if let Some(relay) = &self.relay {
            relay.tell_hotel(&notice).await;
        }
    }

    /// The notices other instances send, as they come; `None` with one instance alone.
    pub fn notices(&self) -> Option<broadcast::Receiver<Heard>> {
        self.relay.as_ref().map(|r| r.notices())
    }

    /// Answers another instance's question `req` (`Reach`, `Connected`).
    pub async fn answer_hotel(&self, to: &str, req: u64, body: serde_json::Value) {
        if let Some(relay) = &self.relay {
            relay.answer_notice(to, req, body).await;
        }
    }

    /// Asks every other instance `ask(req)`: their answers, those that came within a second
    /// (none with one instance alone).
    async fn ask_hotel(&self, ask: impl FnOnce(u64) -> Notice) -> Vec<serde_json::Value> {
        let Some(relay) = &self.relay else {
            return Vec::new();
        };
        let (req, mut answers) = relay.gather();
        // Every reader of the channel but this instance answers.
        let others = relay.tell_hotel(&ask(req)).await.saturating_sub(1);
        let mut bodies = Vec::with_capacity(others);
        let waiting = async {
            while bodies.len() < others {
                match answers.recv().await {
                    Some(body) => bodies.push(body),
                    None => break,
                }
            }
        };
        let _ = tokio::time::timeout(ANSWERS_WITHIN, waiting).await;
        relay.forget_gathering(req);
        bodies
    }

    /// How many connections `user` has on the other instances, each sent `frame` if given.
    pub async fn reach_elsewhere(&self, user: &UserId, frame: Option<String>) -> usize {
        let user = user.clone();
        let answers = self
            .ask_hotel(|req| Notice::Reach { user, frame, req })
            .await;
        answers
            .iter()
            .map(|n| n.as_u64().unwrap_or(0) as usize)
            .sum()
    }

    /// Which of `users` are connected to the other instances, each with the room they are in
    /// there (if any): those that answered within a second.
    pub async fn whereabouts_elsewhere(&self, users: Vec<UserId>) -> Vec<(UserId, Option<RoomId>)> {
        if users.is_empty() {
            return Vec::new();
        }
        let answers = self
            .ask_hotel(|req| Notice::Whereabouts { users, req })
            .await;
        answers
            .into_iter()
            .filter_map(|a| serde_json::from_value::<Vec<(UserId, Option<RoomId>)>>(a).ok())
            .flatten()
            .collect()
    }

    /// A new connection of `user` here takes over those on the other instances: the room
    /// one of them is in, for the new one to enter (the room then lets the old one go).
    pub async fn connected_elsewhere(&self, user: &UserId) -> Option<RoomId> {
        let user = user.clone();
        let answers = self.ask_hotel(|req| Notice::Connected { user, req }).await;
        answers.into_iter().find_map(|room| {
            serde_json::from_value::<Option<RoomId>>(room)
                .ok()
                .flatten()
        })
    }

    /// Tells a guest whose session is here of a mute another instance made (every room here
    /// enforces it already: `relay.rs` set it as the notice came).
    pub(in crate::world) fn start_hearing(&self) {
        let Some(mut heard) = self.notices() else {
            return;
        };
        let world = self.clone();
        tokio::spawn(async move {
            loop {
                let notice = match heard.recv().await {
                    Ok(heard) => heard.notice,
                    Err(broadcast::error::RecvError::Lagged(skipped)) => {
                        tracing::warn!(skipped, "hotel notices skipped: too many at once");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                match notice {
                    Notice::Muted {
                        user,
                        until,
                        reason,
                    } => world.tell_muted(&user, until, &reason).await,
                    Notice::HandedOn { rooms } => {
                        let world = world.clone();
                        tokio::spawn(async move { world.sweep_rooms(Some(rooms)).await });
                    }
                    _ => {}
                }
            }
        });
    }

    /// Tells `user`, in the room their session here is in (if any), of their mute.
    pub(in crate::world) async fn tell_muted(
        &self,
        user: &UserId,
        until: Option<u64>,
        reason: &str,
    ) {
        let Some(handle) = self.room_of(user).and_then(|r| self.room(&r)) else {
            return;
        };
        let told = Moderation::Muted {
            user: user.clone(),
            until,
            reason: reason.to_owned(),
        };
        handle.send(RoomCommand::Moderate(told)).await;
    }
}
