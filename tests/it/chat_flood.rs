//! The room caps its broadcasts, not the people: fifty guests each chatting at 19 lines a
//! second (under their own limit of 20) once got every member of the room dropped, their
//! queues full. Now the room's budget is spent, its own slow mode comes on, nobody is
//! dropped, and another member's ping round trip stays short.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use awc::ws::{Frame, Message};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;

use crate::helpers::ws::messages;
use crate::helpers::{TestApp, TestDb};

const ROOM: &str = "gist-lounge";
const CHATTERS: usize = 50;
/// Lines a second each, under the socket's own limit of 20.
const LINES_PER_SEC: u64 = 19;
const FLOOD: Duration = Duration::from_secs(5);

type Socket = actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>;

/// A socket in the room, its `room` snapshot read.
async fn in_room(app: &TestApp, client: &awc::Client, name: &str) -> Socket {
    let (token, _) = app.guest(name).await;
    let url = format!("ws://127.0.0.1:{}/ws?token={token}", app.port);
    let (_, mut socket) = client.ws(url).connect().await.expect("the socket opens");
    let enter = json!({"type": "enter", "room": ROOM}).to_string();
    socket.send(Message::Text(enter.into())).await.unwrap();
    while let Some(Ok(frame)) = socket.next().await {
        if let Frame::Text(bytes) = frame {
            if messages(&bytes).iter().any(|m| m["type"] == "room") {
                return socket;
            }
        }
    }
    panic!("{name} did not get into the room");
}

/// What the room's members lived through.
#[derive(Default)]
struct Seen {
    /// Chatters whose connection closed during the flood.
    closed: Cell<usize>,
    /// `occupant_left` the watcher saw.
    left: Cell<usize>,
    /// Chat lines the watcher heard.
    lines: Cell<u64>,
    /// The room's own slow mode came on.
    auto_slow: Cell<bool>,
    /// Chat lines the room refused (`slow_mode`).
    refused: Cell<u64>,
}

#[actix_web::test]
async fn fifty_chatters_within_their_limits_drop_nobody_and_pings_stay_quick() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let client = awc::Client::default();
    let seen = Rc::new(Seen::default());
    // The flood is over: a socket closing now is the chatter's doing.
    let stop = Rc::new(Cell::new(false));
    let mut chatters = Vec::new();
    for i in 0..CHATTERS {
        chatters.push(in_room(&app, &client, &format!("Chatter {i}")).await);
    }
    let mut watcher = in_room(&app, &client, "Watcher").await;
    // The flood in steps of the server's hand-driven clock, a nineteenth of a second each:
    // every chatter says a line, the clock moves on, and the watcher pings and waits for its
    // pong. The room's budget fills as it would at 19 lines a second, nobody sleeping.
    let clock = app.clock.clone();
    let start_ms = clock.now_ms();
    let mut sinks = Vec::new();
    let mut tasks = Vec::new();
    for socket in chatters {
        let (sink, mut stream) = socket.split();
        sinks.push(sink);
        // Each reads all it is sent, until its socket closes.
        let (stopped, counted) = (stop.clone(), seen.clone());
        tasks.push(actix_web::rt::spawn(async move {
            while let Some(frame) = stream.next().await {
                match frame {
                    Ok(Frame::Text(bytes)) => {
                        for m in messages(&bytes) {
                            if m["type"] == "error" && m["code"] == "slow_mode" {
                                counted.refused.set(counted.refused.get() + 1);
                            }
                        }
                    }
                    Ok(Frame::Close(_)) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            // Closed by the server during the flood, not by the chatter at its end.
            if !stopped.get() {
                counted.closed.set(counted.closed.get() + 1);
            }
        }));
    }
    let step = Duration::from_millis(1000 / LINES_PER_SEC);
    let steps = FLOOD.as_millis() / step.as_millis();
    let mut round_trips = Vec::new();
    for n in 0..steps {
        for (i, sink) in sinks.iter_mut().enumerate() {
            let line = json!({"type": "chat", "text": format!("{i}: line {n}")}).to_string();
            sink.send(Message::Text(line.into())).await.unwrap();
        }
        clock.advance(step.as_millis() as u64);
        // Meanwhile the watcher pings and waits for each pong.
        let ping = json!({"type": "ping", "ref": n as u64}).to_string();
        let sent = Instant::now();
        watcher.send(Message::Text(ping.into())).await.unwrap();
        loop {
            let frame = actix_web::rt::time::timeout(Duration::from_secs(10), watcher.next())
                .await
                .expect("the watcher hears back within 10 s");
            let bytes = match frame {
                Some(Ok(Frame::Text(bytes))) => bytes,
                // The server's pings (every 10 s) need no answer here.
                Some(Ok(Frame::Ping(_))) => continue,
                other => panic!("the watcher's connection ended: {other:?}"),
            };
            let mut ponged = false;
            for m in messages(&bytes) {
                match m["type"].as_str() {
                    Some("pong") if m["ref"] == n as u64 => ponged = true,
                    Some("chat") => seen.lines.set(seen.lines.get() + 1),
                    Some("occupant_left") => seen.left.set(seen.left.get() + 1),
                    Some("slow_mode") if m["auto"] == true => seen.auto_slow.set(true),
                    _ => {}
                }
            }
            if ponged {
                break;
            }
        }
        round_trips.push(sent.elapsed());
    }
    stop.set(true);
    for mut sink in sinks {
        let _ = sink.close().await;
    }
    for task in tasks {
        let _ = task.await;
    }
    let clock_secs = (app.clock.now_ms() - start_ms) / 1000 + 1;
    round_trips.sort();
    let p99 = round_trips[(round_trips.len() * 99 / 100).min(round_trips.len() - 1)];
    eprintln!(
        "pings {}, p99 {p99:?}; lines heard {}, refused {}, closed {}, left {}",
        round_trips.len(),
        seen.lines.get(),
        seen.refused.get(),
        seen.closed.get(),
        seen.left.get()
    );
    assert_eq!(seen.closed.get(), 0, "chatters were dropped");
    assert_eq!(seen.left.get(), 0, "members left the room");
    assert!(seen.auto_slow.get(), "the room's own slow mode came on");
    assert!(seen.refused.get() > 0);
    // Within the room's budget (10 a second, bursts of 30), with a line in flight to spare.
    assert!(
        seen.lines.get() <= 30 + 10 * clock_secs + 1,
        "{} lines",
        seen.lines.get()
    );
    // Generous for a loaded 2-core machine: unprotected, members are dropped within a second.
    assert!(p99 < Duration::from_millis(250), "ping p99 {p99:?}");
}
