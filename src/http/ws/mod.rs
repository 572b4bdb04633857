//! `GET /ws`: one task per connection, between the socket and the room it is in.
//!
//! Every frame the client sends takes a token from its pace (`pace.rs`), text or not; every
//! frame the server writes has a deadline, and a connection whose writes stall is cut at the
//! socket (`peer.rs`), so a client that stops reading cannot hold a task, a descriptor or the
//! shutdown.
//!
//! A client that asks for batches (the `lounge.batch` subprotocol, or `?batch=1`) gets what a
//! room sends in as few frames as it can be: the frames waiting in the connection's outbox
//! when it comes to write (and those arriving within `ws_flush_micros`) go out as one
//! WebSocket frame holding a JSON array of the messages. A busy room then costs a write per
//! connection per turn, not one per event; a quiet one adds no wait. Every other client gets
//! one JSON object a frame, as the protocol first promised.

use std::collections::BTreeMap;
use std::pin::pin;
use std::time::{Duration, Instant};

use actix_web::{get, web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason, Session};
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{mpsc, watch};

mod entering;

use crate::common::{ErrorCode, ServerClock};
use crate::http::batch::batch;
use crate::http::connections::{Closing, Registration};
use crate::http::error::ApiError;
use crate::http::pace::{Pace, Ticker, Verdict};
use crate::http::peer::{elapse, Socket};
use crate::http::AppState;
use crate::world::protocol::{parse_frame, ClientMessage, Frame, ServerMessage};
use crate::world::{RoomHandle, User, World};

/// The subprotocol a client names to take several messages in one frame (a JSON array).
pub const BATCH_PROTOCOL: &str = "lounge.batch";

/// The largest text frame a client may send.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;
/// Frames a room may queue for one client before the client is dropped as too slow: room
/// enough for a burst a room makes in one turn (an arena's first round tells everyone in the
/// room three frames a table), held as shared frames, so cheap while a reader catches up.
const OUTBOX_FRAMES: usize = 2048;
/// Pauses (ms) before each try to open a room again whose handle went as one entered: a room
/// moving between instances takes a few round trips to settle.
const REOPEN_TRIES: [u64; 5] = [0, 50, 100, 200, 400];
/// How often the server pings, and how long a silent client lives.
const HEARTBEAT: Duration = Duration::from_secs(10);
const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest close reason a close frame carries (125 bytes of payload, less the code).
const MAX_REASON_BYTES: usize = 120;

/// How fast a client may go, and how long a write may take (`[server]` settings).
#[derive(Clone, Debug)]
pub struct WsLimits {
    /// Frames a second on average, and in a burst.
    pub per_sec: f64,
    pub burst: f64,
    /// Refused frames within `strike_window` that close the connection (1008).
    pub strikes: usize,
    pub strike_window: Duration,
    /// A write to the socket not done by then cuts the connection.
    pub write_timeout: Duration,
    /// How long to wait after a room's frame for more to send with it.
    pub flush: Duration,
}

/// The WebSocket of the lounge protocol.
///
/// Needs a player token or a ticket. The messages, their framing and the rules of the room
/// are in docs/protocol.md (WebSocket). A missing, forged or expired token or ticket (a
/// ticket used before too), or one whose user does not exist, is refused with 401 before the
/// upgrade; a banned guest with 403; an address with too many connections open with 429.
#[utoipa::path(
    tag = "players",
    params(
        ("ticket" = Option<String>, Query, description = "a ticket from POST /api/v1/auth/ws-ticket, spent here (preferred: no token in the URL)"),
        ("token" = Option<String>, Query, description = "the player token, unless in Authorization: Bearer"),
    ),
    responses(
        (status = 101, description = "switching to the WebSocket protocol"),
        (status = 400, body = super::error::ErrorBody),
        (status = 401, body = super::error::ErrorBody),
        (status = 403, description = "an admin token, or a banned guest", body = super::error::ErrorBody),
        (status = 429, body = super::error::ErrorBody),
    )
)]
#[get("/ws")]
pub async fn connect(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    // The user must exist (the name shown is the stored one) and not be banned.
    let user = super::tickets::ws_user(&req, &state).await?;
    let conn = World::next_connection();
    let address = state.proxies.client_of(&req);
    let registration = state
        .connections
        .admit(&user.id, address, conn)
        .map_err(|e| {
            crate::metrics::METRICS
                .connections_refused
                .with_label_values(&["ws"])
                .inc();
            ApiError::TooMany {
                code: ErrorCode::TooManyConnections,
                message: e.to_string(),
                retry_after: None,
            }
        })?;
    // A ban made between the check above and the registry would miss this connection.
    if let Some(reason) = state.banlist.reason(&user.id) {
        return Err(ApiError::Banned(reason));
    }
    let (mut response, session, stream) =
        actix_ws::handle(&req, body).map_err(|e| ApiError::BadRequest {
            code: ErrorCode::NotWebsocket,
            message: e.to_string(),
        })?;
    let (batching, named) = asks_for_batches(&req);
    if named {
        // A browser that named a subprotocol fails the socket unless it is answered.
        response.headers_mut().insert(
            actix_web::http::header::SEC_WEBSOCKET_PROTOCOL,
            actix_web::http::header::HeaderValue::from_static(BATCH_PROTOCOL),
        );
    }
    let stream = stream
        .max_frame_size(MAX_FRAME_BYTES)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME_BYTES);
    let limits = &state.ws;
    let pace = Pace::new(
        limits.per_sec,
        limits.burst,
        limits.strikes,
        limits.strike_window,
        state.ticker.now_ms(),
    );
    let conn = Connection {
        user,
        conn,
        session,
        socket: Socket::of(&req),
        clock: state.clock.clone(),
        write_timeout: limits.write_timeout,
        flush: limits.flush,
        batching,
        stalled: false,
        world: state.world.clone(),
        room: None,
        inbox: None,
        carry: None,
    };
    let stopping = state.connections.stopping();
    actix_web::rt::spawn(run(
        conn,
        stream,
        pace,
        state.ticker.clone(),
        registration,
        stopping,
    ));
    Ok(response)
}

struct Connection {
    user: User,
    conn: u64,
    session: Session,
    /// The TCP socket underneath, cut when writes stall.
    socket: Option<Socket>,
    clock: ServerClock,
    write_timeout: Duration,
    flush: Duration,
    /// The client asked for several messages a frame.
    batching: bool,
    /// A write missed its deadline: the peer is not reading.
    stalled: bool,
    world: World,
    room: Option<RoomHandle>,
    /// Frames from the room; `None` out of a room. The room holds the only sender, so a closed
    /// channel means the room dropped us.
    inbox: Option<mpsc::Receiver<Frame>>,
    /// A frame from the room that did not fit in the last batch: written next.
    carry: Option<Frame>,
}

/// What the server writes.
enum Out<'a> {
    Text(Frame),
    Ping,
    Pong(&'a [u8]),
}

fn reason(code: CloseCode, text: &str) -> CloseReason {
    let mut end = text.len().min(MAX_REASON_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    CloseReason {
        code,
        description: Some(text[..end].to_owned()),
    }
}

async fn run(
    mut conn: Connection,
    mut stream: actix_ws::AggregatedMessageStream,
    mut pace: Pace,
    ticker: Ticker,
    mut registration: Registration,
    mut stopping: watch::Receiver<bool>,
) {
    let metrics = &*crate::metrics::METRICS;
    metrics.connections.inc();
    // A second connection of a user in a room takes the first one over, in that room,
    // wherever the first one is (another instance says which room).
    let room = match conn.world.room_of(&conn.user.id) {
        Some(room) => conn.world.room(&room),
        None => match conn.world.connected_elsewhere(&conn.user.id).await {
            Some(room) => conn.world.open(&room).await.ok().flatten(),
            None => None,
        },
    };
    if let Some(room) = room {
        let _ = conn.enter_room(room, BTreeMap::new(), None).await;
    }
    // Then the user's other connections here, in no room, are told to close too.
    registration.take_over();
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
    while close.is_none() && !conn.stalled {
        tokio::select! {
            frame = next_frame(&mut conn.carry, &mut conn.inbox) => match frame {
                Some(frame) => {
                    let frame = conn.gather(frame).await;
                    if !conn.write(Out::Text(frame)).await { break }
                }
                None if conn.room_closed() => {
                    // An operator closed the room (it said so): we are in no room now.
                    conn.inbox = None;
                    conn.room = None;
                    conn.world.clear_presence(&conn.user.id, conn.conn);
                }
                None => {
                    // The room let us go: the service is stopping, another connection took
                    // over, or our queue was full.
                    close = Some(reason(CloseCode::Away, "the room let this connection go"));
                }
            },
            message = stream.next() => {
                last_heard = Instant::now();
                let message = match message {
                    Some(Ok(AggregatedMessage::Close(_))) | None => break,
                    Some(Err(e)) => {
                        close = Some(reason(CloseCode::Size, &e.to_string()));
                        continue;
                    }
                    Some(Ok(message)) => message,
                };
                // Every frame counts, whatever its kind: a flood of binary or ping frames
                // costs the others as much as one of text.
                match pace.frame(ticker.now_ms()) {
                    Verdict::Allowed => {}
                    Verdict::Refused => {
                        if !matches!(message, AggregatedMessage::Pong(_)) {
                            conn.refuse(ErrorCode::RateLimited, "slow down: too many messages", None).await;
                        }
                        continue;
                    }
                    Verdict::Flooding => {
                        close = Some(reason(CloseCode::Policy, "flooding"));
                        continue;
                    }
                }
                match message {
                    AggregatedMessage::Text(text) => conn.on_text(&text).await,
                    AggregatedMessage::Binary(_) => {
                        conn.refuse(ErrorCode::BadJson, "frames are JSON text, not binary", None).await;
                    }
                    AggregatedMessage::Ping(bytes) => {
                        if !conn.write(Out::Pong(&bytes)).await { break }
                    }
                    AggregatedMessage::Pong(_) | AggregatedMessage::Close(_) => {}
                }
            }
            frame = registration.frames.recv() => {
                // From outside the room (an invitation home): written like the room's.
                if let Some(frame) = frame {
                    if !conn.write(Out::Text(frame)).await { break }
                }
            }
            why = registration.closing.recv() => match why {
                Some(Closing::Replaced) => {
                    conn.send(&ServerMessage::Replaced {}).await;
                    close = Some(reason(CloseCode::Away, "another connection of this user took over"));
                }
                Some(Closing::Banned(why)) => {
                    close = Some(reason(CloseCode::Policy, &format!("banned: {why}")));
                }
                None => {}
            },
            _ = stopped(&mut stopping) => {
                conn.send(&ServerMessage::ServerClosing {}).await;
                close = Some(reason(CloseCode::Away, "the service is stopping"));
            }
            _ = heartbeat.tick() => {
                if last_heard.elapsed() > CLIENT_TIMEOUT || !conn.write(Out::Ping).await {
                    break;
                }
            }
        }
    }
    conn.leave_room(true).await;
    metrics.connections.dec();
    drop(registration);
    conn.close(close).await;
}

/// Returns once the service is stopping.
async fn stopped(stopping: &mut watch::Receiver<bool>) {
    loop {
        if *stopping.borrow_and_update() {
            return;
        }
        if stopping.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

/// Whether the client asks for batches, and whether it did so by the subprotocol (which the
/// answer must then name): `Sec-WebSocket-Protocol` listing `lounge.batch`, or `batch=1` (or
/// `true`) in the query string.
fn asks_for_batches(req: &HttpRequest) -> (bool, bool) {
    let named = req
        .headers()
        .get_all(actix_web::http::header::SEC_WEBSOCKET_PROTOCOL)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim() == BATCH_PROTOCOL);
    let queried = req
        .query_string()
        .split('&')
        .any(|pair| matches!(pair.split_once('='), Some(("batch", "1" | "true"))));
    (named || queried, named)
}

async fn next_frame(
    carry: &mut Option<Frame>,
    inbox: &mut Option<mpsc::Receiver<Frame>>,
) -> Option<Frame> {
    if let Some(frame) = carry.take() {
        return Some(frame);
    }
    match inbox {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Connection {
    /// Sends one message; false when the socket is gone.
    /// Tells the client a command of theirs (`ref`) was refused, and why.
    async fn refuse(
        &mut self,
        code: ErrorCode,
        message: impl Into<String>,
        r#ref: Option<serde_json::Value>,
    ) -> bool {
        self.send(&ServerMessage::error(code, message, r#ref)).await
    }

    async fn send(&mut self, message: &ServerMessage) -> bool {
        if let ServerMessage::Error { code, .. } = message {
            crate::metrics::METRICS
                .errors
                .with_label_values(&[code.as_str()])
                .inc();
        }
        self.write(Out::Text(message.to_frame())).await
    }

    /// `first` and the room's frames waiting behind it (after the flush window, if any), as
    /// one frame: itself alone, or a JSON array of them all, oldest first. Nothing is copied
    /// for a frame that goes alone.
    async fn gather(&mut self, first: Frame) -> Frame {
        if !self.batching {
            return first;
        }
        if !self.flush.is_zero() {
            tokio::time::sleep(self.flush).await;
        }
        let Some(inbox) = self.inbox.as_mut() else {
            return first;
        };
        let (frame, count, carry) = batch(first, || inbox.try_recv().ok());
        self.carry = carry;
        if count > 1 {
            crate::metrics::METRICS.batched.inc_by(count as u64);
        }
        frame
    }

    /// Writes one frame; false when the socket is gone, or the write missed its deadline (the
    /// peer stopped reading: `stalled`, and the connection ends).
    async fn write(&mut self, out: Out<'_>) -> bool {
        if self.stalled {
            return false;
        }
        let session = &mut self.session;
        let mut written = pin!(async move {
            match out {
                Out::Text(text) => {
                    crate::metrics::METRICS.frames.inc();
                    session.text(text).await
                }
                Out::Ping => session.ping(b"").await,
                Out::Pong(bytes) => session.pong(bytes).await,
            }
        });
        // Most writes find room at once: no timer for them.
        if let Some(done) = (&mut written).now_or_never() {
            return done.is_ok();
        }
        tokio::select! {
            done = written => done.is_ok(),
            _ = elapse(&self.clock, self.write_timeout) => {
                tracing::info!(user = %self.user.id, "a connection stopped reading: cut");
                self.stalled = true;
                false
            }
        }
    }

    /// Closes the connection: a close frame if there is room for one, the socket cut if the
    /// peer does not read (then, or within the write deadline).
    async fn close(self, close: Option<CloseReason>) {
        let Connection {
            session,
            socket,
            clock,
            write_timeout,
            stalled,
            ..
        } = self;
        let sent = !stalled && matches!(session.close(close).now_or_never(), Some(Ok(())));
        let Some(socket) = socket else { return };
        if !sent {
            socket.cut();
            return;
        }
        // The close frame still has to get through to a peer that may not read: if the
        // connection is still there after the deadline, it is cut (the hold is weak: the
        // socket closes as soon as the connection ends).
        actix_web::rt::spawn(async move {
            elapse(&clock, write_timeout).await;
            socket.cut();
        });
    }

    async fn on_text(&mut self, text: &str) {
        let (message, r#ref) = match parse_frame(text) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.refuse(e.code, e.message, e.r#ref).await;
                return;
            }
        };
        match message {
            ClientMessage::Ping {} => {
                self.send(&ServerMessage::Pong { r#ref }).await;
            }
            ClientMessage::Enter { room, since } => self.enter(room, since, r#ref).await,
            ClientMessage::Leave {} => match self.leave_room(false).await {
                Some(room) => {
                    self.send(&ServerMessage::Left { room }).await;
                }
                None => {
                    self.refuse(ErrorCode::NotInRoom, "you are not in a room", r#ref)
                        .await;
                }
            },
            message => match &self.room {
                Some(room) => {
                    room.act(self.user.id.clone(), message, r#ref).await;
                }
                None => {
                    self.refuse(ErrorCode::NotInRoom, "enter a room first", r#ref)
                        .await;
                }
            },
        }
    }
}
