//! Load tool: signs in many users on loopback, pairs them at tables, and plays random legal
//! games, reporting moves a second and the round trip of a move (p50, p99, max).
//!
//! ```sh
//! cargo run --release --example loadtest -- --url http://127.0.0.1:8080 --rooms load \
//!     --tables-per-room 10 --users 2000 --seconds 60 [--server-pid PID]
//! ```
//! Pair n plays at table `<rooms>-<r>-<t>` of room `<rooms>-<r>`, ten tables (by default) a room;
//! the rooms must exist (`config/local.toml` can add them; see BENCHMARKS.md). Bounded in
//! time; it stops by itself.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use awc::ws::{Frame, Message};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};

struct Args {
    url: String,
    rooms: String,
    tables_per_room: usize,
    users: usize,
    seconds: u64,
    server_pid: Option<u32>,
}

fn args() -> Args {
    let mut a = Args {
        url: "http://127.0.0.1:8080".into(),
        rooms: "load".into(),
        tables_per_room: 10,
        users: 200,
        seconds: 30,
        server_pid: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--url" => a.url = value,
            "--rooms" => a.rooms = value,
            "--tables-per-room" => a.tables_per_room = value.parse().expect("--tables-per-room N"),
            "--users" => a.users = value.parse().expect("--users N"),
            "--seconds" => a.seconds = value.parse().expect("--seconds N"),
            "--server-pid" => a.server_pid = value.parse().ok(),
            other => panic!("unknown flag {other}"),
        }
    }
    a.users -= a.users % 2;
    a
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[derive(Default)]
struct Stats {
    moves: u64,
    games: u64,
    round_trips_us: Vec<u64>,
    errors: u64,
}

type Socket = actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>;

async fn sign_in(client: &awc::Client, url: &str, name: &str) -> (String, String) {
    let mut resp = client
        .post(format!("{url}/api/v1/auth/guest"))
        .send_json(&json!({"name": name}))
        .await
        .expect("sign in");
    let body: Value = resp.json().await.expect("JSON");
    (
        body["token"].as_str().unwrap().to_owned(),
        body["user"]["id"].as_str().unwrap().to_owned(),
    )
}

async fn connect(client: &awc::Client, url: &str, token: &str) -> Socket {
    let ws_url = format!("{}/ws?token={token}", url.replacen("http", "ws", 1));
    let (_, socket) = client
        .ws(ws_url)
        .max_frame_size(1 << 20)
        .connect()
        .await
        .expect("socket");
    socket
}

/// The next JSON message; `None` when the socket closes or stays silent for 10 s.
async fn recv(socket: &mut Socket) -> Option<Value> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .ok()??;
        match frame {
            Ok(Frame::Text(b)) => return serde_json::from_slice(&b).ok(),
            Ok(Frame::Ping(b)) => {
                let _ = socket.send(Message::Pong(b)).await;
            }
            Ok(Frame::Close(_)) | Err(_) => return None,
            _ => {}
        }
    }
}

async fn send(socket: &mut Socket, v: Value) {
    let _ = socket.send(Message::Text(v.to_string().into())).await;
}

/// Plays games at one table until `end`; the two sockets belong to one pair.
async fn pair(
    mut a: Socket,
    mut b: Socket,
    b_id: String,
    room: String,
    table: String,
    end: Instant,
    stats: Rc<RefCell<Stats>>,
    seed: u64,
) {
    let mut rng = seed | 1;
    let mut next_rand = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for s in [&mut a, &mut b] {
        send(s, json!({"type": "enter", "room": room})).await;
        // Both must be in the room before the invitation.
        loop {
            match recv(s).await {
                Some(m) if m["type"] == "room" => break,
                Some(_) => {}
                None => return,
            }
        }
    }
    while Instant::now() < end {
        send(
            &mut a,
            json!({"type": "sit", "table": table, "seat": "south"}),
        )
        .await;
        send(
            &mut a,
            json!({"type": "invite", "table": table, "user": b_id}),
        )
        .await;
        let invitation = loop {
            match recv(&mut b).await {
                Some(m) if m["type"] == "invitation" => break m["id"].clone(),
                Some(_) => {}
                None => return,
            }
        };
        send(
            &mut b,
            json!({"type": "respond", "invitation": invitation, "accept": true}),
        )
        .await;
        // Learn who is South from b's game_started.
        let started = loop {
            match recv(&mut b).await {
                Some(m) if m["type"] == "game_started" && m["table"] == table.as_str() => break m,
                Some(_) => {}
                None => return,
            }
        };
        let b_is_south = started["players"]["south"]["id"] == b_id.as_str();
        let mut state = started["state"].clone();
        let mut ply = 0u64;
        while state["status"] == "playing" && Instant::now() < end {
            let south_to_move = state["to_move"] == "south";
            let mover = if south_to_move == b_is_south {
                &mut b
            } else {
                &mut a
            };
            let legal = state["legal"].as_array().cloned().unwrap_or_default();
            if legal.is_empty() {
                break;
            }
            let pit = legal[next_rand(legal.len())].clone();
            let sent = Instant::now();
            send(
                mover,
                json!({"type": "move", "table": table, "pit": pit, "ref": ply}),
            )
            .await;
            let reply = loop {
                match recv(mover).await {
                    // Everyone in the room sees every table's moves: ours is the one at our
                    // table carrying our ref.
                    Some(m)
                        if m["type"] == "game_state"
                            && m["table"] == table.as_str()
                            && m["ref"] == json!(ply) =>
                    {
                        break Some(m)
                    }
                    Some(m) if m["type"] == "error" => {
                        if stats.borrow().errors == 0 {
                            eprintln!("first error: {m}");
                        }
                        stats.borrow_mut().errors += 1;
                        break None;
                    }
                    Some(_) => {}
                    None => return,
                }
            };
            let Some(reply) = reply else { return };
            {
                let mut s = stats.borrow_mut();
                s.moves += 1;
                s.round_trips_us.push(sent.elapsed().as_micros() as u64);
            }
            state = reply["state"].clone();
            ply += 1;
        }
        if state["status"] != "playing" {
            stats.borrow_mut().games += 1;
        }
        // Drain what the other socket holds up to the end of the game, then play again.
        let other_done = tokio::time::timeout(Duration::from_millis(200), async {
            loop {
                match recv(&mut a).await {
                    Some(m) if m["type"] == "game_over" && m["table"] == table.as_str() => break,
                    Some(_) => {}
                    None => break,
                }
            }
        });
        let _ = other_done.await;
    }
}

fn main() {
    let args = args();
    actix_web::rt::System::new().block_on(async move {
        // No cap on connections: each socket holds one.
        let client = awc::Client::builder()
            .connector(awc::Connector::new().limit(0))
            .timeout(Duration::from_secs(30))
            .finish();
        let rss_before = args.server_pid.and_then(rss_kib);
        let started = Instant::now();
        let mut sockets = Vec::with_capacity(args.users);
        let mut ids = Vec::with_capacity(args.users);
        for i in 0..args.users {
            let (token, id) = sign_in(&client, &args.url, &format!("Load {i}")).await;
            let mut socket = connect(&client, &args.url, &token).await;
            let _welcome = recv(&mut socket).await;
            sockets.push(socket);
            ids.push(id);
        }
        let connected = started.elapsed();
        let rss_after = args.server_pid.and_then(rss_kib);
        println!(
            "connected {} users in {:.1} s",
            args.users,
            connected.as_secs_f64()
        );
        if let (Some(b), Some(a)) = (rss_before, rss_after) {
            println!(
                "server memory: {} MiB before, {} MiB after: {:.1} KiB a connection",
                b / 1024,
                a / 1024,
                (a.saturating_sub(b)) as f64 / args.users as f64
            );
        }
        let end = Instant::now() + Duration::from_secs(args.seconds);
        let stats = Rc::new(RefCell::new(Stats::default()));
        let mut tasks = Vec::new();
        let mut it = sockets.into_iter().zip(ids);
        let mut n = 0;
        while let (Some((a, _)), Some((b, b_id))) = (it.next(), it.next()) {
            let room = format!("{}-{}", args.rooms, n / args.tables_per_room + 1);
            let table = format!("{room}-{}", n % args.tables_per_room + 1);
            n += 1;
            tasks.push(actix_web::rt::spawn(pair(
                a,
                b,
                b_id,
                room,
                table,
                end,
                stats.clone(),
                n as u64 * 7919,
            )));
        }
        let play_start = Instant::now();
        for t in tasks {
            let _ = t.await;
        }
        let elapsed = play_start.elapsed().as_secs_f64();
        let mut s = stats.borrow_mut();
        s.round_trips_us.sort_unstable();
        let pct = |p: f64| {
            s.round_trips_us
                .get(
                    ((s.round_trips_us.len() as f64 * p) as usize)
                        .min(s.round_trips_us.len().saturating_sub(1)),
                )
                .copied()
                .unwrap_or(0)
        };
        println!(
            "{} games at once, {:.0} s: {} moves ({:.0}/s), {} games finished, {} errors",
            n,
            elapsed,
            s.moves,
            s.moves as f64 / elapsed,
            s.games,
            s.errors
        );
        println!(
            "move round trip: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            pct(0.50) as f64 / 1000.0,
            pct(0.99) as f64 / 1000.0,
            s.round_trips_us.last().copied().unwrap_or(0) as f64 / 1000.0
        );
        if let Some(pid) = args.server_pid {
            if let Some(rss) = rss_kib(pid) {
                println!("server memory at the end: {} MiB", rss / 1024);
            }
        }
    });
}
