//! Between instances: a session's commands go to the instance running its room,
//! and the room's frames come back, through Redis pub/sub. Each instance reads one channel
//! of its own (`{prefix}instance:{id}`) and publishes to the others'. Pub/sub rather than
//! streams: nothing here needs to outlive its reader (an instance that is gone has no
//! sessions left to deliver to, and its rooms open again elsewhere from the database), and a
//! PUBLISH that reaches nobody says at once that the instance it was for is gone.
//!
//! What crosses is `Wire` (`wire.rs`), as JSON, sealed with a MAC under the instances' key
//! (`cluster/seal.rs`): whoever else can publish on Redis is not heard. The owner's side of it (a member whose session is on
//! another instance) is here; the other side, a room seen from an instance that does not run
//! it, is `remote.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::cluster::Seal;
use crate::common::RoomId;

use super::super::civility::Civility;
use super::super::hotel::HotelError;
use super::super::room::RoomCommand;
use super::super::table::Refusal;
use super::super::Registry;
use super::notices::{Heard, Notice, NOTICES_KEPT};
use super::wire::{Wire, WireHotelError, WireRefusal};

/// Frames a member on another instance may have waiting here, as a session's own outbox.
const OUTBOX_FRAMES: usize = 256;

/// Where the answer to a request goes, as JSON.
type Answer = oneshot::Sender<Value>;

/// This instance's end of the relay: what it publishes, and where what it reads goes.
#[derive(Clone)]
pub struct Relay {
    conn: ConnectionManager,
    /// Every message carries a MAC under the instances' key; any other is dropped.
    seal: Seal,
    prefix: String,
    instance: String,
    /// Answers awaited, by request number.
    pending: Arc<Mutex<HashMap<u64, Answer>>>,
    next_req: Arc<AtomicU64>,
    /// Rooms run elsewhere with sessions here: where their frames go.
    remotes: Arc<Mutex<HashMap<RoomId, mpsc::UnboundedSender<Wire>>>>,
    /// What waits for each other instance (`outgoing.rs`).
    outgoing: super::outgoing::Shared,
    /// Answers awaited from every other instance, by request number (`Notice::Reach`).
    gathering: Arc<Mutex<HashMap<u64, mpsc::UnboundedSender<Value>>>>,
    /// Where the other instances' notices go, to whoever listens here.
    notices: broadcast::Sender<Heard>,
}

impl super::outgoing::Publisher for Relay {
    async fn publish(&self, instance: &str, text: &str) -> Option<i64> {
        self.publish_to(instance, text).await
    }

    fn outgoing(&self) -> &super::outgoing::Outgoing {
        &self.outgoing
    }
}

impl Relay {
    pub fn new(conn: ConnectionManager, seal: Seal, prefix: &str, instance: &str) -> Relay {
        Relay {
            conn,
            seal,
            prefix: prefix.to_owned(),
            instance: instance.to_owned(),
            pending: Arc::default(),
            next_req: Arc::new(AtomicU64::new(1)),
            remotes: Arc::default(),
            outgoing: Arc::default(),
            gathering: Arc::default(),
            notices: broadcast::channel(NOTICES_KEPT).0,
        }
    }

    /// Answers another instance's notice-borne question `req` (`Reach`, `Connected`).
    pub async fn answer_notice(&self, to: &str, req: u64, body: Value) {
        self.send(to, &Wire::Answer { req, body }).await;
    }

    pub fn instance(&self) -> &str {
        &self.instance
    }

    fn channel(&self, instance: &str) -> String {
        format!("{}instance:{instance}", self.prefix)
    }

    /// The channel every instance reads (`notices.rs`).
    fn hotel_channel(&self) -> String {
        format!("{}hotel", self.prefix)
    }

    /// Publishes `notice` to every instance (this one included, which skips it): how many
    /// read it, 0 when Redis could not be reached.
    pub(in crate::world) async fn tell_hotel(&self, notice: &Notice) -> usize {
        let wire = Wire::Notice {
            from: self.instance.clone(),
            notice: notice.clone(),
        };
        let Ok(text) = serde_json::to_string(&wire) else {
            return 0;
        };
        let readers = self.publish_on(self.hotel_channel(), &text).await;
        readers.map_or(0, |n| usize::try_from(n).unwrap_or(0))
    }

    /// The other instances' notices from now on.
    pub(in crate::world) fn notices(&self) -> broadcast::Receiver<Heard> {
        self.notices.subscribe()
    }

    /// A new request number for a question to every instance, and where their answers come.
    pub(in crate::world) fn gather(&self) -> (u64, mpsc::UnboundedReceiver<Value>) {
        let req = self.next_req.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.gathering().insert(req, tx);
        (req, rx)
    }

    /// No more answers are awaited to `req`.
    pub(in crate::world) fn forget_gathering(&self, req: u64) {
        self.gathering().remove(&req);
    }

    fn gathering(&self) -> std::sync::MutexGuard<'_, HashMap<u64, mpsc::UnboundedSender<Value>>> {
        self.gathering
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends `wire` to `instance`: false when nobody reads its channel (it is gone) or Redis
    /// could not be reached.
    pub async fn send(&self, instance: &str, wire: &Wire) -> bool {
        let Ok(text) = serde_json::to_string(wire) else {
            return false;
        };
        self.publish_to(instance, &text)
            .await
            .is_some_and(|n| n > 0)
    }

    /// Publishes `text` on `instance`'s channel: how many read it, `None` when Redis could
    /// not be reached.
    async fn publish_to(&self, instance: &str, text: &str) -> Option<i64> {
        let readers = self.publish_on(self.channel(instance), text).await;
        if readers.is_some_and(|n| n > 0) {
            self.outgoing.heard_from(instance);
        }
        readers
    }

    /// Publishes `text` on `channel`: how many read it, `None` when Redis could not be reached.
    async fn publish_on(&self, channel: String, text: &str) -> Option<i64> {
        crate::metrics::METRICS.redis_round_trips.inc();
        let readers: Result<i64, _> = redis::cmd("PUBLISH")
            .arg(&channel)
            .arg(
                self.seal
                    .seal(&channel, crate::cluster::seal::now_ms(), text),
            )
            .query_async(&mut self.conn.clone())
            .await;
        readers
            .inspect_err(
                |e| tracing::warn!(error = %e, %channel, "publishing to the other instances"),
            )
            .ok()
    }

    /// Whether `instance` reads its channel (is alive): before relaying to it at all.
    pub async fn reads(&self, instance: &str) -> bool {
        crate::metrics::METRICS.redis_round_trips.inc();
        let counts: Result<Vec<(String, i64)>, _> = redis::cmd("PUBSUB")
            .arg("NUMSUB")
            .arg(self.channel(instance))
            .query_async(&mut self.conn.clone())
            .await;
        counts.is_ok_and(|c| c.iter().any(|(_, n)| *n > 0))
    }

    /// A new request number, and where its answer will come.
    pub fn request(&self) -> (u64, oneshot::Receiver<Value>) {
        let req = self.next_req.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending().insert(req, tx);
        (req, rx)
    }

    /// Forgets a request whose answer will not come.
    pub fn forget(&self, req: u64) {
        self.pending().remove(&req);
    }

    /// Where frames for a room run elsewhere go (`remote.rs`).
    pub fn add_remote(&self, room: &RoomId, to: mpsc::UnboundedSender<Wire>) {
        self.remotes().insert(room.clone(), to);
    }

    /// A remote room is gone here; only `which` is taken out, not a newer one.
    pub fn remove_remote(&self, room: &RoomId, which: &mpsc::UnboundedSender<Wire>) {
        let mut remotes = self.remotes();
        if remotes.get(room).is_some_and(|r| r.same_channel(which)) {
            remotes.remove(room);
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Answer>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn remotes(&self) -> std::sync::MutexGuard<'_, HashMap<RoomId, mpsc::UnboundedSender<Wire>>> {
        self.remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reads this instance's channel and the hotel's for ever (subscribing again after Redis
    /// comes back), handing each message to the room it is for (`registry` holds the rooms
    /// run here) or, a notice, to whoever listens.
    pub fn listen(&self, client: redis::Client, registry: Registry, civility: Civility) {
        let relay = self.clone();
        tokio::spawn(async move {
            let channels = [relay.channel(&relay.instance), relay.hotel_channel()];
            // Kept across subscriptions: a message is read once, whenever it comes again.
            let mut fresh = crate::cluster::seal::Fresh::default();
            loop {
                match client.get_async_pubsub().await {
                    Ok(mut pubsub) => match pubsub.subscribe(&channels).await {
                        Ok(()) => {
                            tracing::info!(?channels, "reading this instance's relay channels");
                            let mut messages = pubsub.on_message();
                            while let Some(message) = messages.next().await {
                                let Ok(payload) = message.get_payload::<String>() else {
                                    continue;
                                };
                                let now = crate::cluster::seal::now_ms();
                                let channel = message.get_channel_name();
                                let Some(text) =
                                    relay.seal.open(channel, &payload, now, &mut fresh)
                                else {
                                    // Not from an instance of this hotel (or read already, or
                                    // too old): counted, not read.
                                    crate::metrics::METRICS.relay_refused.inc();
                                    tracing::debug!(
                                        "a relayed message without a good MAC: dropped"
                                    );
                                    continue;
                                };
                                match serde_json::from_str::<Wire>(text) {
                                    Ok(Wire::Batch { wires }) => {
                                        for wire in wires {
                                            relay.take(wire, &registry, &civility).await;
                                        }
                                    }
                                    Ok(wire) => relay.take(wire, &registry, &civility).await,
                                    Err(e) => {
                                        tracing::warn!(error = %e, "a relayed message that does not read")
                                    }
                                }
                            }
                            tracing::warn!("the relay channel closed: subscribing again");
                        }
                        Err(e) => tracing::warn!(error = %e, "subscribing to the relay channel"),
                    },
                    Err(e) => tracing::warn!(error = %e, "connecting to Redis for the relay"),
                }
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
        });
    }

    /// One message read from this instance's channel.
    async fn take(&self, wire: Wire, registry: &Registry, civility: &Civility) {
        match wire {
            Wire::Answer { req, body } => {
                if let Some(tx) = self.pending().remove(&req) {
                    let _ = tx.send(body);
                } else if let Some(tx) = self.gathering().get(&req) {
                    let _ = tx.send(body);
                }
            }
            Wire::Notice { from, notice } => {
                // Its own come back to it too.
                if from != self.instance {
                    // Mutes and blocks hold here before whatever the channels bring next (a
                    // line the blocked one says just after, relayed from the same instance).
                    match &notice {
                        Notice::Muted { user, until, .. } => civility.set_mute(user, *until),
                        Notice::Blocked { user, other, on } => civility.set_block(user, other, *on),
                        _ => {}
                    }
                    let _ = self.notices.send(Heard { from, notice });
                }
            }
            Wire::NotHere { ref room, req } => {
                if let Some(req) = req {
                    // Dropped unanswered: the asker looks for the room again.
                    self.pending().remove(&req);
                }
                let to = self.remotes().get(room).cloned();
                if let Some(to) = to {
                    let _ = to.send(wire);
                }
            }
            Wire::Frames { ref room, .. } | Wire::Gone { ref room, .. } => {
                let to = self.remotes().get(room).cloned();
                if let Some(to) = to {
                    let _ = to.send(wire);
                }
            }
            command => self.to_room(command, registry).await,
        }
    }

    /// A command for a room run here, from a session on another instance.
    async fn to_room(&self, wire: Wire, registry: &Registry) {
        let (room, from, req) = match &wire {
            Wire::Enter {
                room, from, req, ..
            }
            | Wire::MayEnter {
                room, from, req, ..
            } => (room.clone(), Some(from.clone()), Some(*req)),
            Wire::Shut {
                room, from, req, ..
            }
            | Wire::Moderate {
                room, from, req, ..
            }
            | Wire::Tables {
                room, from, req, ..
            }
            | Wire::Summary { room, from, req } => (room.clone(), Some(from.clone()), Some(*req)),
            Wire::Act { room, .. }
            | Wire::Leave { room, .. }
            | Wire::Disconnect { room, .. }
            | Wire::Rename { room, .. }
            | Wire::DoorChanged { room }
            | Wire::ScheduleChanged { room } => (room.clone(), None, None),
            _ => return,
        };
        let not_here = |room: RoomId| {
            // Not run here (any more): whoever asked finds the room again.
            if let Some(from) = from.clone() {
                let relay = self.clone();
                tokio::spawn(async move { relay.send(&from, &Wire::NotHere { room, req }).await });
            }
        };
        let Some(handle) = registry.get(&room).filter(|h| !h.is_closed()) else {
            not_here(room);
            return;
        };
        let command = match wire {
            Wire::Enter {
                from,
                room,
                user,
                conn,
                since,
                r#ref,
                req,
            } => {
                // A session there comes in: it is there, whatever was found before.
                self.outgoing.heard_from(&from);
                let outbox =
                    self.outbox_to(&from, &room, conn, handle.failed_flag(), registry.clone());
                let (admitted, answer) = oneshot::channel();
                self.answer_admitted(from, req, answer);
                RoomCommand::Enter {
                    user,
                    outbox,
                    conn,
                    since,
                    r#ref,
                    admitted,
                }
            }
            Wire::MayEnter {
                from, user_id, req, ..
            } => {
                let (reply, answer) = oneshot::channel();
                self.answer_admitted(from, req, answer);
                RoomCommand::MayEnter { user_id, reply }
            }
            Wire::Rename { name, .. } => RoomCommand::Rename { name },
            Wire::DoorChanged { .. } => RoomCommand::DoorChanged,
            Wire::ScheduleChanged { .. } => RoomCommand::ScheduleChanged,
            Wire::Shut {
                from, games, req, ..
            } => {
                let (reply, answer) = oneshot::channel();
                self.answer(from, req, answer);
                RoomCommand::Shut { games, reply }
            }
            Wire::Summary { from, req, .. } => {
                let (reply, answer) = oneshot::channel();
                self.answer(from, req, answer);
                RoomCommand::Summary { reply }
            }
            Wire::Tables {
                from,
                actor,
                change,
                req,
                ..
            } => {
                let (reply, answer) = oneshot::channel();
                let (wired, relayed) = oneshot::channel();
                tokio::spawn(async move {
                    if let Ok(changed) = answer.await {
                        let changed: Result<Option<Value>, HotelError> = changed;
                        let _ = wired.send(changed.map_err(|e| WireHotelError::of(&e)));
                    }
                });
                self.answer(from, req, relayed);
                RoomCommand::Tables {
                    actor,
                    change,
                    reply,
                }
            }
            Wire::Moderate {
                from,
                moderation,
                req,
                ..
            } => RoomCommand::Moderate(moderation.moderation(|| {
                let (reply, answer) = oneshot::channel();
                self.answer(from, req, answer);
                reply
            })),
            Wire::Act {
                user_id,
                message,
                r#ref,
                ..
            } => RoomCommand::Act {
                user_id,
                message,
                r#ref,
            },
            Wire::Leave { user_id, conn, .. } => RoomCommand::Leave { user_id, conn },
            Wire::Disconnect { user_id, conn, .. } => RoomCommand::Disconnect { user_id, conn },
            _ => return,
        };
        if !handle.send(command).await {
            not_here(room);
        }
    }

    /// Sends the room's answer to `enter` (or whether one may) back to `from` once the room
    /// gives it: a room that went without answering says it is closed.
    fn answer_admitted(
        &self,
        from: String,
        req: u64,
        answer: oneshot::Receiver<Result<(), Refusal>>,
    ) {
        let relay = self.clone();
        tokio::spawn(async move {
            let answer = match answer.await {
                Ok(answer) => answer.map_err(|r| WireRefusal::of(&r)),
                Err(_) => Err(WireRefusal {
                    code: crate::common::ErrorCode::NoSuchRoom.as_str().to_owned(),
                    message: "that room is closed".to_owned(),
                }),
            };
            let body = serde_json::to_value(answer).unwrap_or(Value::Null);
            relay.send(&from, &Wire::Answer { req, body }).await;
        });
    }

    /// Sends the room's answer to request `req` back to `from` once the room gives it; one
    /// that went without answering leaves the request unanswered ("not here").
    fn answer<T: Serialize + Send + 'static>(
        &self,
        from: String,
        req: u64,
        answer: oneshot::Receiver<T>,
    ) {
        let relay = self.clone();
        tokio::spawn(async move {
            let wire = match answer.await.map(|a| serde_json::to_value(a)) {
                Ok(Ok(body)) => Wire::Answer { req, body },
                _ => Wire::NotHere {
                    room: RoomId::new(""),
                    req: Some(req),
                },
            };
            relay.send(&from, &wire).await;
        });
    }

    /// The outbox a room here writes to for a member whose session is on `instance`: its
    /// frames are published there in order, those waiting together in one message; when
    /// the room lets the member go, `Gone` says so: `closed` only when the room itself
    /// closed, `moved` when it left this instance (`failed`, set before its members'
    /// outboxes close: lost to another owner, or handed on at a stop), whose members must
    /// find it again, not sit in no room.
    fn outbox_to(
        &self,
        instance: &str,
        room: &RoomId,
        conn: u64,
        failed: Arc<std::sync::atomic::AtomicBool>,
        registry: Registry,
    ) -> super::super::Outbox {
        let (outbox, mut frames) = mpsc::channel::<super::super::protocol::Frame>(OUTBOX_FRAMES);
        let (relay, instance, room) = (self.clone(), instance.to_owned(), room.clone());
        tokio::spawn(async move {
            while let Some(first) = frames.recv().await {
                let mut batch = vec![first.to_string()];
                while let Ok(more) = frames.try_recv() {
                    batch.push(more.to_string());
                }
                crate::metrics::METRICS
                    .relayed_frames
                    .inc_by(batch.len() as u64);
                let wire = Wire::Frames {
                    room: room.clone(),
                    conn,
                    frames: batch,
                };
                if !relay.outgoing.post(&relay, &instance, wire) {
                    // Its instance is gone or too far behind: the member drops, as one that
                    // does not read. Said at once, past the queue: its session must not
                    // wait in the room for frames that will not come.
                    drop(frames);
                    let gone = Wire::Gone {
                        room,
                        conn,
                        closed: false,
                        moved: false,
                    };
                    relay.send(&instance, &gone).await;
                    return;
                }
            }
            let moved = failed.load(Ordering::SeqCst);
            let closed = !moved
                && registry
                    .get(&room)
                    .is_none_or(|h| h.is_closed() && !h.failed());
            let gone = Wire::Gone {
                room,
                conn,
                closed,
                moved,
            };
            relay.outgoing.post(&relay, &instance, gone);
        });
        outbox
    }
}
