//! `GET /ws`: one task per connection, between the socket and the room it is in.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{get, web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};
use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};

use super::error::ApiError;
use super::AppState;
use crate::common::{ErrorCode, RoomId, TableId, UserId};
use crate::world::protocol::{parse_frame, ClientMessage, ServerMessage};
use crate::world::{Refusal, RoomCommand, RoomHandle, User, World};

/// The largest text frame a client may send.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;
/// Frames a room may queue for one client before the client is dropped as too slow.
const OUTBOX_FRAMES: usize = 256;
/// How often the server pings, and how long a silent client lives.
const HEARTBEAT: Duration = Duration::from_secs(10);
const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// Refused messages over the limit after which the connection is closed (1008).
const FLOOD_STRIKES: u32 = 50;

/// The WebSocket of the lounge protocol (docs/protocol.md). A missing, forged or expired
/// token, or one whose user does not exist, is refused with 401 before the upgrade.
#[utoipa::path(
    tag = "players",
    params(("token" = Option<String>, Query, description = "the player token, unless in Authorization: Bearer")),
    responses(
        (status = 101, description = "switching to the WebSocket protocol"),
        (status = 400, body = super::error::ErrorBody),
        (status = 401, body = super::error::ErrorBody),
    )
)]
#[get("/ws")]
pub async fn connect(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    // The user must exist: the name shown is the stored one.
    let claims = super::auth::player(&req).await?;
    let user = User {
        id: UserId::from(claims.sub),
        name: claims.name,
        house: false,
    };
    let (response, session, stream) =
        actix_ws::handle(&req, body).map_err(|e| ApiError::BadRequest {
            code: ErrorCode::NotWebsocket,
            message: e.to_string(),
        })?;
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    let (per_sec, burst) = state.ws_rate;
    let rate = Rate {
        per_sec,
        burst,
        tokens: burst,
        at: Instant::now(),
        strikes: 0,
    };
    actix_web::rt::spawn(run(user, session, stream, state.world.clone(), rate));
    Ok(response)
}

/// A token bucket.
struct Rate {
    per_sec: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
    strikes: u32,
}

impl Rate {
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.per_sec)
            .min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.strikes += 1;
            false
        }
    }
}

struct Connection {
    user: User,
    conn: u64,
    session: Session,
    world: World,
    room: Option<RoomHandle>,
    /// Frames from the room; `None` out of a room. The room holds the only sender, so a closed
    /// channel means the room dropped us.
    inbox: Option<mpsc::Receiver<Arc<str>>>,
}

async fn run(
    user: User,
    session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
    world: World,
    mut rate: Rate,
) {
    let metrics = &*crate::metrics::METRICS;
    metrics.connections.inc();
    let mut conn = Connection {
        user,
        conn: World::next_connection(),
        session,
        world,
        room: None,
        inbox: None,
    };
    // A second connection of a user in a room takes the first one over, in that room.
    if let Some(room) = conn
        .world
        .room_of(&conn.user.id)
        .and_then(|r| conn.world.room(r.as_str()))
    {
        let _ = conn.enter_room(room, BTreeMap::new(), None).await;
    }
    let mut heartbeat = tokio::time::interval(HEARTBEAT);
    let mut last_heard = Instant::now();
    let welcome = ServerMessage::Welcome {
        user: conn.user.clone(),
    };
    let mut close: Option<CloseReason> = if conn.send(&welcome).await {
        None
    } else {
        Some(CloseCode::Away.into())
    };
    while close.is_none() {
        tokio::select! {
            frame = next_frame(&mut conn.inbox) => match frame {
                Some(frame) => if conn.session.text(&*frame).await.is_err() { break },
                None if conn.room_closed() => {
                    // An operator closed the room (it said so): we are in no room now.
                    conn.inbox = None;
                    conn.room = None;
                    conn.world.clear_presence(&conn.user.id, conn.conn);
                }
                None => {
                    // The room let us go: the service is stopping, another connection took
                    // over, or our queue was full.
                    close = Some(CloseReason { code: CloseCode::Away, description: Some("the room let this connection go".into()) });
                }
            },
            message = stream.next() => {
                last_heard = Instant::now();
                match message {
                    Some(Ok(AggregatedMessage::Text(text))) => {
                        if !rate.allow() {
                            if rate.strikes >= FLOOD_STRIKES {
                                close = Some(CloseReason { code: CloseCode::Policy, description: Some("flooding".into()) });
                            } else {
                                conn.send(&ServerMessage::error(ErrorCode::RateLimited, "slow down: too many messages", None)).await;
                            }
                            continue;
                        }
                        conn.on_text(&text).await;
                    }
                    Some(Ok(AggregatedMessage::Binary(_))) => {
                        conn.send(&ServerMessage::error(ErrorCode::BadJson, "frames are JSON text, not binary", None)).await;
                    }
                    Some(Ok(AggregatedMessage::Ping(bytes))) => {
                        if conn.session.pong(&bytes).await.is_err() { break }
                    }
                    Some(Ok(AggregatedMessage::Pong(_))) => {}
                    Some(Ok(AggregatedMessage::Close(_))) | None => break,
                    Some(Err(e)) => {
                        close = Some(CloseReason { code: CloseCode::Size, description: Some(e.to_string()) });
                    }
                }
            }
            _ = heartbeat.tick() => {
                if last_heard.elapsed() > CLIENT_TIMEOUT || conn.session.ping(b"").await.is_err() {
                    break;
                }
            }
        }
    }
    conn.leave_room(true).await;
    metrics.connections.dec();
    let _ = conn.session.close(close).await;
}

/// Whether a room lets `user_id` in; `None` when the room is gone.
async fn may_enter(handle: &RoomHandle, user_id: &UserId) -> Option<Result<(), Refusal>> {
    let (reply, answer) = oneshot::channel();
    let asked = RoomCommand::MayEnter {
        user_id: user_id.clone(),
        reply,
    };
    if handle.send(asked).await {
        answer.await.ok()
    } else {
        None
    }
}

async fn next_frame(inbox: &mut Option<mpsc::Receiver<Arc<str>>>) -> Option<Arc<str>> {
    match inbox {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Connection {
    /// Sends one message; false when the socket is gone.
    async fn send(&mut self, message: &ServerMessage) -> bool {
        if let ServerMessage::Error { code, .. } = message {
            crate::metrics::METRICS
                .errors
                .with_label_values(&[code.as_str()])
                .inc();
        }
        self.session.text(&*message.to_frame()).await.is_ok()
    }

    async fn on_text(&mut self, text: &str) {
        let (message, r#ref) = match parse_frame(text) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.send(&ServerMessage::error(e.code, e.message, e.r#ref))
                    .await;
                return;
            }
        };
        match message {
            ClientMessage::Ping {} => {
                self.send(&ServerMessage::Pong { r#ref }).await;
            }
            ClientMessage::Enter { room, since } => {
                let handle = match self.world.open(room.as_str()).await {
                    Ok(Some(handle)) => handle,
                    Ok(None) => {
                        self.send(&ServerMessage::error(
                            ErrorCode::NoSuchRoom,
                            format!("there is no room `{room}`"),
                            r#ref,
                        ))
                        .await;
                        return;
                    }
                    Err(e) => {
                        tracing::error!(error = %e, %room, "opening a room");
                        self.send(&ServerMessage::error(
                            ErrorCode::Internal,
                            "that room cannot be opened now; try again",
                            r#ref,
                        ))
                        .await;
                        return;
                    }
                };
                // Entering the room one is in again is a resync, not leaving: a seat and a
                // game in play are kept.
                if self.room.as_ref().is_some_and(|r| r.info.id == room) {
                    let act = RoomCommand::Act {
                        user_id: self.user.id.clone(),
                        message: ClientMessage::Enter { room, since },
                        r#ref: r#ref.clone(),
                    };
                    if !handle.send(act).await {
                        self.send(&ServerMessage::error(
                            ErrorCode::Internal,
                            "that room is closed",
                            r#ref,
                        ))
                        .await;
                    }
                    return;
                }
                // Asked first, so a closed door leaves one where one was.
                let mut handle = handle;
                let mut may = may_enter(&handle, &self.user.id).await;
                if may.is_none() {
                    // An idle apartment may have closed just now: it opens again.
                    if let Ok(Some(again)) = self.world.open(room.as_str()).await {
                        may = may_enter(&again, &self.user.id).await;
                        handle = again;
                    }
                }
                let refusal = match may {
                    Some(Ok(())) => {
                        self.leave_room(false).await;
                        let mut entered =
                            self.enter_room(handle, since.clone(), r#ref.clone()).await;
                        if entered.is_none() {
                            // An idle apartment may have closed just now: it opens again.
                            if let Ok(Some(again)) = self.world.open(room.as_str()).await {
                                entered = self.enter_room(again, since, r#ref.clone()).await;
                            }
                        }
                        match entered {
                            Some(Ok(())) => None,
                            Some(Err(refusal)) => Some(refusal),
                            None => {
                                Some(Refusal::new(ErrorCode::NoSuchRoom, "that room is closed"))
                            }
                        }
                    }
                    Some(Err(refusal)) => Some(refusal),
                    None => Some(Refusal::new(ErrorCode::NoSuchRoom, "that room is closed")),
                };
                if let Some(refusal) = refusal {
                    self.send(&ServerMessage::refusal(&refusal, r#ref)).await;
                }
            }
            ClientMessage::Leave {} => match self.leave_room(false).await {
                Some(room) => {
                    self.send(&ServerMessage::Left { room }).await;
                }
                None => {
                    self.send(&ServerMessage::error(
                        ErrorCode::NotInRoom,
                        "you are not in a room",
                        r#ref,
                    ))
                    .await;
                }
            },
            message => match &self.room {
                Some(room) => {
                    let act = RoomCommand::Act {
                        user_id: self.user.id.clone(),
                        message,
                        r#ref,
                    };
                    room.send(act).await;
                }
                None => {
                    self.send(&ServerMessage::error(
                        ErrorCode::NotInRoom,
                        "enter a room first",
                        r#ref,
                    ))
                    .await;
                }
            },
        }
    }

    /// Whether the room this connection was in has closed: it is no longer open.
    fn room_closed(&self) -> bool {
        self.room
            .as_ref()
            .is_some_and(|r| !r.failed() && self.world.room(r.info.id.as_str()).is_none())
    }

    /// Enters a room through this connection: `None` when the room is gone, the room's
    /// refusal when it did not let us in.
    async fn enter_room(
        &mut self,
        handle: RoomHandle,
        since: BTreeMap<TableId, u64>,
        r#ref: Option<serde_json::Value>,
    ) -> Option<Result<(), Refusal>> {
        let (outbox, inbox) = mpsc::channel(OUTBOX_FRAMES);
        let (admitted, answer) = oneshot::channel();
        let enter = RoomCommand::Enter {
            user: self.user.clone(),
            outbox,
            conn: self.conn,
            since,
            r#ref,
            admitted,
        };
        if !handle.send(enter).await {
            return None;
        }
        match answer.await {
            Ok(Ok(())) => {}
            Ok(Err(refusal)) => return Some(Err(refusal)),
            Err(_) => return None,
        }
        self.world
            .set_presence(&self.user.id, &handle.info.id, self.conn);
        self.room = Some(handle);
        self.inbox = Some(inbox);
        Some(Ok(()))
    }

    /// Leaves the current room, if any, on purpose or because the connection dropped; returns
    /// its id.
    async fn leave_room(&mut self, dropped: bool) -> Option<RoomId> {
        self.inbox = None;
        let room = self.room.take()?;
        self.world.clear_presence(&self.user.id, self.conn);
        let (user_id, conn) = (self.user.id.clone(), self.conn);
        let command = if dropped {
            RoomCommand::Disconnect { user_id, conn }
        } else {
            RoomCommand::Leave { user_id, conn }
        };
        room.send(command).await;
        Some(room.info.id.clone())
    }
}
