//! A room run by another instance, seen from this one: a handle like a room's
//! own, whose task relays what the sessions here ask to the room's owner (`relay.rs`) and
//! hands the frames that come back to their sessions, so `http/ws/` cannot tell it from a
//! room run here. It ends, as a failed room does (its sessions reconnect and find the room
//! where it runs then), when the owner is gone: a command that reaches nobody, an answer
//! that does not come, the owner saying it does not run the room, or its lease in other
//! hands.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::cluster::Leases;
use crate::common::{ErrorCode, RoomId, UserId};

use super::super::hotel::HotelError;
use super::super::protocol::RoomInfo;
use super::super::room::{Outbox, RoomCommand, RoomHandle};
use super::super::table::Refusal;
use super::relay::Relay;
use super::wire::{Wire, WireHotelError, WireModeration, WireRefusal};

/// How long the owner has to answer an `enter` (or whether one may): past it, the owner is
/// taken to be gone.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

struct Remote {
    room: RoomId,
    /// The instance that runs the room.
    owner: String,
    relay: Relay,
    /// The sessions here in the room, by connection.
    members: HashMap<u64, (UserId, Outbox)>,
    /// Where what the owner says comes in (and this task's own notes, `Gone` of a refused
    /// `enter`).
    incoming: mpsc::UnboundedSender<Wire>,
    /// Set the moment the owner is found gone, so the next visit looks for the room anew.
    failed: Arc<AtomicBool>,
}

/// How the task ended.
enum End {
    /// The owner is gone, or no longer runs the room: the sessions find it again.
    OwnerGone,
    /// The room closed (an operator, an idle apartment): the sessions are in no room.
    Closed,
    /// Nobody here reaches it any more.
    Unused,
}

/// Starts the task of room `info`, run by `owner`; `on_end` runs when it ends (after the
/// handle is failed or the room closed), before the sessions are let go.
pub fn spawn(
    info: RoomInfo,
    owner: String,
    relay: Relay,
    leases: Leases,
    on_end: impl FnOnce() + Send + 'static,
) -> RoomHandle {
    let (handle, commands, failed) = RoomHandle::relayed(info.clone());
    let (incoming, from_owner) = mpsc::unbounded_channel();
    relay.add_remote(&info.id, incoming.clone());
    let remote = Remote {
        room: info.id,
        owner,
        relay,
        members: HashMap::new(),
        incoming,
        failed: failed.clone(),
    };
    tokio::spawn(async move {
        let mut remote = remote;
        let end = remote.run(commands, from_owner, &leases).await;
        remote.relay.remove_remote(&remote.room, &remote.incoming);
        if matches!(end, End::OwnerGone) {
            failed.store(true, Ordering::SeqCst);
        }
        on_end();
        // The sessions' outboxes go with it: each ends, or is in no room (`Closed`).
        remote.members.clear();
    });
    handle
}

impl Remote {
    async fn run(
        &mut self,
        mut commands: mpsc::Receiver<RoomCommand>,
        mut from_owner: mpsc::UnboundedReceiver<Wire>,
        leases: &Leases,
    ) -> End {
        // Watching a room sends nothing: its owner's lease is looked at every so often.
        let mut look = tokio::time::interval(Duration::from_millis((leases.ttl() / 2).max(100)));
        loop {
            tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => {
                        if let Some(end) = self.relay_command(command).await {
                            return end;
                        }
                    }
                    None => return End::Unused,
                },
                wire = from_owner.recv() => match wire {
                    Some(wire) => {
                        if let Some(end) = self.take(wire).await {
                            return end;
                        }
                    }
                    None => return End::Unused,
                },
                _ = look.tick() => {
                    crate::metrics::METRICS.redis_round_trips.inc();
                    match leases.owner(&self.room).await {
                        Ok(Some((holder, _))) if holder == self.owner => {}
                        // Redis away: the owner is as likely there as before.
                        Err(_) => {}
                        Ok(_) => return End::OwnerGone,
                    }
                }
            }
        }
    }

    /// Sends `wire` to the owner: `OwnerGone` when it reaches nobody.
    async fn to_owner(&self, wire: &Wire) -> Option<End> {
        crate::metrics::METRICS.relayed_commands.inc();
        if self.relay.send(&self.owner, wire).await {
            return None;
        }
        self.failed.store(true, Ordering::SeqCst);
        Some(End::OwnerGone)
    }

    async fn relay_command(&mut self, command: RoomCommand) -> Option<End> {
        let room = self.room.clone();
        match command {
            RoomCommand::Enter {
                user,
                outbox,
                conn,
                since,
                r#ref,
                admitted,
            } => {
                self.members.insert(conn, (user.id.clone(), outbox));
                let (req, answer) = self.relay.request();
                let wire = Wire::Enter {
                    from: self.relay.instance().to_owned(),
                    room: room.clone(),
                    user,
                    conn,
                    since,
                    r#ref,
                    req,
                };
                if let Some(end) = self.to_owner(&wire).await {
                    self.relay.forget(req);
                    return Some(end);
                }
                let (relay, incoming) = (self.relay.clone(), self.incoming.clone());
                tokio::spawn(async move {
                    let answer = awaited(&relay, req, answer).await;
                    if !matches!(answer, Some(Ok(()))) {
                        // Not let in: the session here is not a member.
                        let _ = incoming.send(Wire::Gone {
                            room,
                            conn,
                            closed: false,
                            moved: false,
                        });
                    }
                    // Unanswered, `admitted` goes unsent: the session looks for the room anew.
                    if let Some(answer) = answer {
                        let _ = admitted.send(answer);
                    }
                });
            }
            RoomCommand::MayEnter { user_id, reply } => {
                let (req, answer) = self.relay.request();
                let wire = Wire::MayEnter {
                    from: self.relay.instance().to_owned(),
                    room,
                    user_id,
                    req,
                };
                if let Some(end) = self.to_owner(&wire).await {
                    self.relay.forget(req);
                    return Some(end);
                }
                let relay = self.relay.clone();
                tokio::spawn(async move {
                    if let Some(answer) = awaited(&relay, req, answer).await {
                        let _ = reply.send(answer);
                    }
                });
            }
            RoomCommand::Act {
                user_id,
                message,
                r#ref,
            } => {
                let wire = Wire::Act {
                    room,
                    user_id,
                    message,
                    r#ref,
                };
                return self.to_owner(&wire).await;
            }
            RoomCommand::Leave { user_id, conn } => {
                self.members.remove(&conn);
                return self
                    .to_owner(&Wire::Leave {
                        room,
                        user_id,
                        conn,
                    })
                    .await;
            }
            RoomCommand::Disconnect { user_id, conn } => {
                self.members.remove(&conn);
                return self
                    .to_owner(&Wire::Disconnect {
                        room,
                        user_id,
                        conn,
                    })
                    .await;
            }
            RoomCommand::Rename { name } => {
                return self.to_owner(&Wire::Rename { room, name }).await;
            }
            RoomCommand::DoorChanged => return self.to_owner(&Wire::DoorChanged { room }).await,
            RoomCommand::ScheduleChanged => {
                return self.to_owner(&Wire::ScheduleChanged { room }).await;
            }
            RoomCommand::Shut { games, reply } => {
                let from = self.relay.instance().to_owned();
                return self
                    .ask(
                        |req| Wire::Shut {
                            from,
                            room,
                            games,
                            req,
                        },
                        reply,
                    )
                    .await;
            }
            RoomCommand::Tables {
                actor,
                change,
                reply,
            } => {
                let from = self.relay.instance().to_owned();
                let (wired, answer) = tokio::sync::oneshot::channel::<
                    Result<Option<serde_json::Value>, WireHotelError>,
                >();
                tokio::spawn(async move {
                    let changed = match answer.await {
                        Ok(changed) => changed.map_err(WireHotelError::error),
                        // Unanswered in time, or the owner went: whether it changed is not
                        // known here, and the room shows it.
                        Err(_) => Err(HotelError::Relayed {
                            code: ErrorCode::Unavailable,
                            field: None,
                            message: "the server running this room did not answer: look at \
                                      the room before trying again"
                                .to_owned(),
                        }),
                    };
                    let _ = reply.send(changed);
                });
                let wire = |req| Wire::Tables {
                    from,
                    room,
                    actor,
                    change,
                    req,
                };
                return self.ask(wire, wired).await;
            }
            RoomCommand::Summary { reply } => {
                let from = self.relay.instance().to_owned();
                return self
                    .ask(|req| Wire::Summary { from, room, req }, reply)
                    .await;
            }
            RoomCommand::Moderate(moderation) => {
                let from = self.relay.instance().to_owned();
                let (moderation, reply) = WireModeration::of(moderation);
                let wire = |req| Wire::Moderate {
                    from,
                    room,
                    moderation,
                    req,
                };
                return match reply {
                    Some(reply) => self.ask(wire, reply).await,
                    None => self.to_owner(&wire(0)).await,
                };
            }
            RoomCommand::Close { done } => {
                // The service is stopping: the sessions here are told by their own
                // connections; the room runs on at its owner.
                let _ = done.send(());
                return Some(End::Unused);
            }
            other => {
                // Its own doing, never a session's: Baba Ayo, a lease, fault injection.
                tracing::warn!(room = %self.room, command = command_name(&other), "a command for a room run elsewhere that is not relayed");
            }
        }
        None
    }

    /// Asks the owner `wire(req)` and hands its answer to `reply` when it comes (none when
    /// it does not: the asker sees the room as gone).
    async fn ask<T: serde::de::DeserializeOwned + Send + 'static>(
        &self,
        wire: impl FnOnce(u64) -> Wire,
        reply: tokio::sync::oneshot::Sender<T>,
    ) -> Option<End> {
        let (req, answer) = self.relay.request();
        if let Some(end) = self.to_owner(&wire(req)).await {
            self.relay.forget(req);
            return Some(end);
        }
        let relay = self.relay.clone();
        tokio::spawn(async move {
            if let Ok(Ok(body)) = tokio::time::timeout(ANSWER_WITHIN, answer).await {
                if let Ok(answer) = serde_json::from_value(body) {
                    let _ = reply.send(answer);
                }
            } else {
                relay.forget(req);
            }
        });
        None
    }

    /// What the owner said.
    async fn take(&mut self, wire: Wire) -> Option<End> {
        match wire {
            Wire::Frames { conn, frames, .. } => {
                let (user_id, outbox) = self.members.get(&conn)?;
                let mut reading = true;
                for frame in frames {
                    if outbox.try_send(frame.into()).is_err() {
                        reading = false;
                        break;
                    }
                }
                if !reading {
                    // Full (not reading) or gone: dropped, as the owner drops one.
                    let user_id = user_id.clone();
                    self.members.remove(&conn);
                    let room = self.room.clone();
                    return self
                        .to_owner(&Wire::Disconnect {
                            room,
                            user_id,
                            conn,
                        })
                        .await;
                }
            }
            Wire::Gone {
                conn,
                closed,
                moved,
                ..
            } => {
                if moved {
                    // Its owner stopped (or lost it): every session here finds it again.
                    return Some(End::OwnerGone);
                }
                if closed {
                    return Some(End::Closed);
                }
                self.members.remove(&conn);
            }
            Wire::NotHere { .. } => return Some(End::OwnerGone),
            _ => {}
        }
        None
    }
}

/// The owner's answer to request `req`: `None` when it was dropped unanswered (the owner
/// does not run the room: the asker looks for it anew), a refusal when it does not come in
/// time.
async fn awaited(
    relay: &Relay,
    req: u64,
    answer: tokio::sync::oneshot::Receiver<serde_json::Value>,
) -> Option<Result<(), Refusal>> {
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(body)) => Some(
            serde_json::from_value::<Result<(), WireRefusal>>(body)
                .map_err(|e| Refusal::new(ErrorCode::Internal, format!("the room's answer: {e}")))
                .and_then(|answer| answer.map_err(|r| r.refusal())),
        ),
        Ok(Err(_)) => None,
        Err(_) => {
            relay.forget(req);
            Some(Err(Refusal::new(
                ErrorCode::RoomMoved,
                "the server running this room did not answer: reconnecting finds it again",
            )))
        }
    }
}

fn command_name(command: &RoomCommand) -> &'static str {
    match command {
        RoomCommand::Rename { .. } => "rename",
        RoomCommand::Shut { .. } => "shut",
        RoomCommand::Tables { .. } => "tables",
        RoomCommand::DoorChanged => "door_changed",
        RoomCommand::ScheduleChanged => "schedule_changed",
        RoomCommand::Summary { .. } => "summary",
        RoomCommand::Moderate(_) => "moderate",
        _ => "other",
    }
}
