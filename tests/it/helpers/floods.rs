//! Floods and their measures: a raw WebSocket client over a tokio `TcpStream` (it writes
//! frames by the thousand in one go, or never reads), sign-ups from a chosen address, and
//! another client's ping round trip.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::app::TestApp;
use super::ws::Ws;

/// WebSocket opcodes.
pub const TEXT: u8 = 0x1;
pub const BINARY: u8 = 0x2;
pub const PING: u8 = 0x9;

/// One client frame, masked as the protocol wants (the mask need not be secret here).
pub fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    let mut out = vec![0x80 | opcode];
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n <= u16::MAX as usize => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

/// `count` copies of one frame, to write in one go.
pub fn frames(opcode: u8, payload: &[u8], count: usize) -> Vec<u8> {
    frame(opcode, payload).repeat(count)
}

/// A WebSocket opened by hand: the upgrade done, nothing read since.
pub struct RawWs {
    pub stream: TcpStream,
}

/// What a raw client read until its socket ended.
#[derive(Debug, Default)]
pub struct Drained {
    /// The server's close code, if a close frame came.
    pub close: Option<u16>,
    /// Text frames read.
    pub texts: usize,
    /// Whether the socket ended (EOF or reset) within the time given.
    pub ended: bool,
}

impl RawWs {
    /// Reads every frame until the socket ends or `within` passes.
    pub async fn drain(&mut self, within: Duration) -> Drained {
        let mut drained = Drained::default();
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.stream.read(&mut chunk)).await {
                Err(_) => return drained,
                Ok(Ok(0)) | Ok(Err(_)) => {
                    drained.ended = true;
                    return drained;
                }
                Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            }
            // Server frames are not masked.
            while let Some((opcode, payload, used)) = parse(&buf) {
                match opcode {
                    TEXT => drained.texts += 1,
                    0x8 if payload.len() >= 2 => {
                        drained.close = Some(u16::from_be_bytes([payload[0], payload[1]]))
                    }
                    _ => {}
                }
                buf.drain(..used);
            }
        }
    }
}

/// One unmasked frame at the front of `buf`: its opcode, payload and length.
fn parse(buf: &[u8]) -> Option<(u8, Vec<u8>, usize)> {
    if buf.len() < 2 {
        return None;
    }
    let opcode = buf[0] & 0x0f;
    let (len, at) = match buf[1] & 0x7f {
        126 if buf.len() >= 4 => (u16::from_be_bytes([buf[2], buf[3]]) as usize, 4),
        127 if buf.len() >= 10 => (
            u64::from_be_bytes(buf[2..10].try_into().unwrap()) as usize,
            10,
        ),
        126 | 127 => return None,
        n => (n as usize, 2),
    };
    (buf.len() >= at + len).then(|| (opcode, buf[at..at + len].to_vec(), at + len))
}

impl TestApp {
    /// `GET /ws` by hand over a TCP socket with a small receive buffer (so a client that does
    /// not read fills it soon); the upgrade's status line read, and nothing more.
    pub async fn raw_ws(&self, token: &str) -> RawWs {
        let socket = TcpSocket::new_v4().expect("a socket");
        socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
        let mut stream = socket
            .connect(([127, 0, 0, 1], self.port).into())
            .await
            .expect("connects");
        stream.set_nodelay(true).unwrap();
        let request = format!(
            "GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n",
            self.port
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        // The answer's head, byte by byte, so not a byte of the first frames is taken.
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            stream.read_exact(&mut byte).await.expect("an answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        RawWs { stream }
    }

    /// `POST /api/v1/auth/guest` as if from `address`, through a proxy that says so in
    /// `X-Forwarded-For`; the status, body and `Retry-After`.
    pub async fn guest_from(&self, name: &str, address: &str) -> (u16, Value, Option<String>) {
        let mut resp = awc::Client::default()
            .post(self.url("/api/v1/auth/guest"))
            .insert_header(("X-Forwarded-For", address))
            .send_json(&json!({ "name": name }))
            .await
            .expect("request");
        let retry = resp
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null), retry)
    }

    /// `POST /api/v1/admin/users/{user}/ban`.
    pub async fn ban(&self, token: &str, user: &str, body: Value) -> (u16, Value) {
        let mut resp = awc::Client::default()
            .post(self.url(&format!("/api/v1/admin/users/{user}/ban")))
            .bearer_auth(token)
            .send_json(&body)
            .await
            .expect("request");
        (
            resp.status().as_u16(),
            resp.json().await.unwrap_or(Value::Null),
        )
    }

    /// `DELETE /api/v1/admin/users/{user}/ban`.
    pub async fn lift_ban(&self, token: &str, user: &str) -> (u16, Value) {
        let mut resp = awc::Client::default()
            .delete(self.url(&format!("/api/v1/admin/users/{user}/ban")))
            .bearer_auth(token)
            .send()
            .await
            .expect("request");
        (
            resp.status().as_u16(),
            resp.json().await.unwrap_or(Value::Null),
        )
    }

    /// The status the upgrade gets for `token` as if from `address` (`X-Forwarded-For`), and
    /// the socket when it opened.
    pub async fn ws_from(&self, token: &str, address: &str) -> (u16, Option<Ws>) {
        let url = format!("ws://127.0.0.1:{}/ws?token={token}", self.port);
        let client = awc::Client::default();
        match client
            .ws(url)
            .set_header("X-Forwarded-For", address)
            .connect()
            .await
        {
            Ok((resp, socket)) => (resp.status().as_u16(), Some(Ws::from_socket(socket).await)),
            Err(awc::error::WsClientError::InvalidResponseStatus(s)) => (s.as_u16(), None),
            Err(e) => panic!("{e}"),
        }
    }
}

/// Round trips of `ping` on `ws`, one at a time, `gap` apart on the server's hand-driven
/// `clock` (moved on by it after each: the client's pace sees a ping every `gap`), until
/// `stop` says so (at least `min` of them); each a `pong` answering it.
pub async fn ping_round_trips(
    ws: &mut Ws,
    clock: &lounge::common::ServerClock,
    min: usize,
    gap: Duration,
    stop: impl Fn() -> bool,
) -> Vec<Duration> {
    let mut trips = Vec::new();
    let began = Instant::now();
    while trips.len() < min || (!stop() && began.elapsed() < Duration::from_secs(60)) {
        let at = Instant::now();
        ws.send(json!({"type": "ping", "ref": trips.len()})).await;
        let pong = ws.next_of("pong").await;
        assert_eq!(pong["ref"], trips.len());
        trips.push(at.elapsed());
        clock.advance(gap.as_millis() as u64);
    }
    trips
}

/// The 99th percentile.
pub fn p99(mut trips: Vec<Duration>) -> Duration {
    trips.sort();
    trips[(trips.len() * 99 / 100).min(trips.len() - 1)]
}

/// `play_out` that times each of `me`'s moves: from sending it to the `game_state` (or
/// `game_over`) that answers it. The game's end, and the round trips.
pub async fn timed_play_out(
    ws: &mut Ws,
    table: &str,
    me: &str,
    mut state: Value,
    seed: u64,
) -> (Value, Vec<Duration>) {
    let mut rng = seed | 1;
    let mut trips = Vec::new();
    loop {
        let sent = (state["to_move"] == me).then(|| {
            let legal = state["legal"].as_array().unwrap().clone();
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            legal[(rng % legal.len() as u64) as usize].clone()
        });
        let at = Instant::now();
        if let Some(pit) = &sent {
            ws.send(json!({"type": "move", "table": table, "pit": pit}))
                .await;
        }
        loop {
            let m = ws.next().await;
            assert_ne!(m["type"], "error", "{m}");
            if m["table"] != table {
                continue;
            }
            if m["type"] == "game_over" {
                if sent.is_some() {
                    trips.push(at.elapsed());
                }
                return (m, trips);
            }
            if m["type"] == "game_state" {
                if sent.is_some() {
                    trips.push(at.elapsed());
                }
                state = m["state"].clone();
                break;
            }
        }
    }
}
