//! The WebSocket client speaking the lounge's protocol, and the scenes tests play over it.

use std::collections::VecDeque;
use std::time::Duration;

use awc::ws::{Frame, Message};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};

use super::app::TestApp;

pub type Socket = actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>;

/// A WebSocket client speaking the protocol. Unless it asked for batches (`lounge.batch`), it
/// takes every frame to be one JSON object, as a client written to the first contract does,
/// and fails the test on anything else.
pub struct Ws {
    socket: Socket,
    batching: bool,
    /// Messages of a batched frame not read yet.
    pending: VecDeque<Value>,
    /// Text frames read, and of those the batched ones (JSON arrays).
    pub frames: usize,
    pub batches: usize,
}

/// The message of one text frame sent to a client that did not ask for batches: one object.
pub fn messages(bytes: &[u8]) -> Vec<Value> {
    messages_of(bytes, false)
}

/// The messages of one text frame: the object, or (`batching`) each of a batch, a JSON array.
pub fn messages_of(bytes: &[u8], batching: bool) -> Vec<Value> {
    match serde_json::from_slice(bytes).expect("JSON") {
        Value::Array(batch) => {
            assert!(batching, "a batch to a client that never asked: {batch:?}");
            assert!(
                batch.len() > 1,
                "a batch holds two messages or more: {batch:?}"
            );
            batch
        }
        one => {
            assert!(one.is_object(), "a frame is one JSON object: {one}");
            vec![one]
        }
    }
}

impl Ws {
    /// Opens the socket at `url` and reads the `welcome`.
    pub async fn connect(client: &awc::Client, url: &str) -> Ws {
        let (_, socket) = client.ws(url).connect().await.expect("the socket opens");
        Ws::from_socket(socket).await
    }

    /// Opens the socket at `url` asking for batches, by the `lounge.batch` subprotocol (which
    /// the answer must name) or else in the URL (`batch=1`), and reads the `welcome`.
    pub async fn connect_batched(client: &awc::Client, url: &str, by_protocol: bool) -> Ws {
        let request = client.ws(url);
        let request = if by_protocol {
            request.protocols(["lounge.batch"])
        } else {
            request
        };
        let (response, socket) = request.connect().await.expect("the socket opens");
        let named = response.headers().get("sec-websocket-protocol");
        assert_eq!(
            named.map(|v| v.as_bytes()),
            by_protocol.then_some(&b"lounge.batch"[..]),
            "the subprotocol is answered when named, and only then"
        );
        let mut ws = Ws::from_socket(socket).await;
        ws.batching = true;
        ws
    }

    /// A socket opened as the web client opens it: asking for batches by the subprotocol;
    /// `None` when it does not open, or closes before its `welcome` (a balancer's server
    /// stopping just then): a client tries again.
    pub async fn try_connect_batched(client: &awc::Client, url: &str) -> Option<Ws> {
        let (_, socket) = client
            .ws(url)
            .protocols(["lounge.batch"])
            .connect()
            .await
            .ok()?;
        let mut ws = Ws {
            socket,
            batching: true,
            pending: VecDeque::new(),
            frames: 0,
            batches: 0,
        };
        let (seen, closed) = ws.until_quiet_or_closed(Duration::from_secs(5), 1).await;
        match seen.first() {
            Some(m) if m["type"] == "welcome" && closed.is_none() => {
                ws.pending.extend(seen.into_iter().skip(1));
                Some(ws)
            }
            _ => None,
        }
    }

    /// A socket opened otherwise; reads the `welcome`.
    pub async fn from_socket(socket: Socket) -> Ws {
        let mut ws = Ws {
            socket,
            batching: false,
            pending: VecDeque::new(),
            frames: 0,
            batches: 0,
        };
        assert_eq!(ws.next().await["type"], "welcome");
        ws
    }

    pub async fn send(&mut self, message: Value) {
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .expect("send");
    }

    pub async fn send_raw(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.to_owned().into()))
            .await
            .expect("send");
    }

    /// The next frame as it comes (pings and closes too, nothing answered); panics after 5 s.
    pub async fn frame(&mut self) -> Option<Result<Frame, awc::error::WsProtocolError>> {
        tokio::time::timeout(Duration::from_secs(5), self.socket.next())
            .await
            .expect("a frame within 5 s")
    }

    /// The next JSON message (pings answered on the way); panics after 5 s.
    pub async fn next(&mut self) -> Value {
        if let Some(m) = self.pending.pop_front() {
            return m;
        }
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(5), self.socket.next())
                .await
                .expect("a message within 5 s")
                .expect("the socket is open")
                .expect("a good frame");
            match frame {
                Frame::Text(bytes) => {
                    self.frames += 1;
                    let mut batch = VecDeque::from(messages_of(&bytes, self.batching));
                    self.batches += usize::from(batch.len() > 1);
                    let first = batch.pop_front().expect("a message");
                    self.pending = batch;
                    return first;
                }
                Frame::Ping(b) => self.socket.send(Message::Pong(b)).await.expect("pong"),
                Frame::Close(reason) => panic!("closed: {reason:?}"),
                _ => {}
            }
        }
    }

    /// The messages that come until none has for `quiet`, `enough` have come, or the
    /// socket closes; with the close code when it closed (0: ended without a close frame).
    pub async fn until_quiet_or_closed(
        &mut self,
        quiet: Duration,
        enough: usize,
    ) -> (Vec<Value>, Option<u16>) {
        let mut seen: Vec<Value> = self.pending.drain(..).collect();
        while seen.len() < enough {
            match tokio::time::timeout(quiet, self.socket.next()).await {
                Err(_) => break,
                Ok(Some(Ok(Frame::Text(bytes)))) => {
                    seen.extend(messages_of(&bytes, self.batching));
                }
                Ok(Some(Ok(Frame::Ping(b)))) => {
                    if self.socket.send(Message::Pong(b)).await.is_err() {
                        return (seen, Some(0));
                    }
                }
                Ok(Some(Ok(Frame::Close(reason)))) => {
                    return (seen, Some(reason.map_or(0, |r| u16::from(r.code))));
                }
                Ok(Some(Ok(_))) => {}
                Ok(Some(Err(_)) | None) => return (seen, Some(0)),
            }
        }
        (seen, None)
    }

    /// What the server sent before answering a `ping` sent now: every message until its
    /// `pong` (left out). What the connection was told before the ping has come by then: a
    /// marker read off the socket, not a quiet spell waited out.
    pub async fn heard_until_pong(&mut self) -> Vec<Value> {
        let marker = format!("marker-{}", lounge::store::new_id());
        self.send(json!({"type": "ping", "ref": marker})).await;
        let mut heard = Vec::new();
        loop {
            let m = self.next().await;
            if m["type"] == "pong" && m["ref"] == marker.as_str() {
                return heard;
            }
            heard.push(m);
        }
    }

    /// Reads what comes until the server's clock shows `until` (ms since 1970, as an
    /// `unavailable` names when to try again) or the socket closes; the messages, kept to be
    /// read again, and whether it closed. A client told when to come back listens till then.
    pub async fn listen_until(&mut self, until: u64) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let told = Duration::from_millis(until.saturating_sub(now).min(2_000));
        let deadline = tokio::time::Instant::now() + told;
        let mut seen = Vec::new();
        let mut closed = false;
        while let Ok(frame) = tokio::time::timeout_at(deadline, self.socket.next()).await {
            match frame {
                Some(Ok(Frame::Text(bytes))) => seen.extend(messages_of(&bytes, self.batching)),
                Some(Ok(Frame::Ping(b))) => {
                    if self.socket.send(Message::Pong(b)).await.is_err() {
                        closed = true;
                        break;
                    }
                }
                Some(Ok(Frame::Close(_))) | Some(Err(_)) | None => {
                    closed = true;
                    break;
                }
                Some(Ok(_)) => {}
            }
        }
        self.pending.extend(seen);
        closed
    }

    /// Puts `messages` back, to be read first, in order.
    pub fn unread(&mut self, messages: Vec<Value>) {
        for m in messages.into_iter().rev() {
            self.pending.push_front(m);
        }
    }

    /// Skips messages until one of `kind`.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let m = self.next().await;
            if m["type"] == kind {
                return m;
            }
        }
    }

    /// Reads until the socket closes; the close code.
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(Duration::from_secs(5), self.socket.next())
                .await
                .expect("closes within 5 s")
            {
                Some(Ok(Frame::Close(reason))) => return reason.map(|r| u16::from(r.code)),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    }

    /// Enters `room`; the `room` snapshot or the error.
    pub async fn enter(&mut self, room: &str) -> Value {
        self.send(json!({"type": "enter", "room": room, "ref": "enter"}))
            .await;
        loop {
            let m = self.next().await;
            if m["type"] == "room" || (m["type"] == "error" && m["ref"] == "enter") {
                return m;
            }
        }
    }
}

/// The seat of user `id` in a `game_started`.
pub fn seat_of(started: &Value, id: &str) -> &'static str {
    if started["players"]["south"]["id"] == id {
        "south"
    } else {
        "north"
    }
}

/// Ade and Bisi in the lounge, a game started between them at table 1; (ade, bisi, onlooker
/// watching table 1, ade's token, ade's id, the game_started message, bisi's token).
pub async fn game_between_two(app: &TestApp) -> (Ws, Ws, Ws, String, String, Value, String) {
    let (ta, a_id) = app.guest("Ade").await;
    let (tb, b_id) = app.guest("Bisi").await;
    let (tc, _) = app.guest("Chidi").await;
    let (mut a, mut b, mut c) = (app.ws(&ta).await, app.ws(&tb).await, app.ws(&tc).await);
    for ws in [&mut a, &mut b, &mut c] {
        ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
            .await;
        ws.next_of("room").await;
    }
    let table = "surulere-games-lounge-1";
    a.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    a.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = b.next_of("invitation").await;
    b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = c.next_of("game_started").await;
    // As people do: the onlooker watches the game (and is sent its moves).
    c.send(json!({"type": "watch", "table": table, "since": started["version"]}))
        .await;
    c.next_of("missed").await;
    (a, b, c, ta, a_id, started, tb)
}

/// Tunde in the lounge, a game against Baba Ayo at `level` started at table 1: (his socket,
/// his seat, the game_started message, his token).
pub async fn house_game(app: &TestApp, level: &str) -> (Ws, &'static str, Value, String) {
    house_game_as(app, "Tunde", level).await
}

/// `house_game` played by a guest of another name.
pub async fn house_game_as(
    app: &TestApp,
    name: &str,
    level: &str,
) -> (Ws, &'static str, Value, String) {
    let (token, me) = app.guest(name).await;
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    ws.next_of("room").await;
    ws.send(json!({"type": "play_house", "table": "surulere-games-lounge-1", "level": level}))
        .await;
    let started = ws.next_of("game_started").await;
    let mine = if started["players"]["south"]["id"] == me.as_str() {
        "south"
    } else {
        "north"
    };
    (ws, mine, started, token)
}

/// Plays random legal moves for `me` until the game at `table` ends; the `game_over` seen.
pub async fn play_out(ws: &mut Ws, table: &str, me: &str, mut state: Value) -> Value {
    let mut rng = 7u64;
    loop {
        if state["to_move"] == me {
            let legal = state["legal"].as_array().unwrap().clone();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let pit = legal[(rng % legal.len() as u64) as usize].clone();
            ws.send(json!({"type": "move", "table": table, "pit": pit}))
                .await;
        }
        loop {
            let m = ws.next().await;
            assert_ne!(m["type"], "error", "{m}");
            if m["type"] == "game_over" && m["table"] == table {
                return m;
            }
            if m["type"] == "game_state" && m["table"] == table {
                state = m["state"].clone();
                break;
            }
        }
    }
}
