//! Load tool: signs in many users on loopback, seats pairs of them at tables in many rooms,
//! lets the rest watch, and plays random legal games, reporting moves a second, the round
//! trip of a move (p50, p99, max; of the games in play, from the moment the last one began,
//! and apart for the moves sent while they began), frames, messages and bytes delivered, and
//! the server's memory per connection. A pair that stops before the end without an error is
//! counted by what it waited for and how (nothing for 10 s, or its socket closed); an
//! invitation that does not come in 10 s is waited for 30 s more, to tell late from lost.
//!
//! ```sh
//! cargo run --release --example loadtest -- --url http://127.0.0.1:8080[,http://...] --rooms load \
//!     --tables-per-room 10 --users 10000 --games 2000 --think-ms 0 --seconds 60 \
//!     [--server-pid PID[,PID...]] [--clock 10+5] [--names Load]
//! ```
//!
//! Several instances (docs/deploy.md): `--url` lists them, and user `i` connects to the
//! `i`-th in turn, so a game's two players sit on two instances; `--server-pid` lists their
//! processes (memory is their sum). Metrics are read from the first.
//!
//! Game n is played at table `<rooms>-<r>-<t>` of room `<rooms>-<r>` (`--tables-per-room`
//! tables a room); users beyond the players enter those rooms in turn and each watches one
//! table (`watch`: a server without it refuses, and they receive every move instead). The rooms
//! must exist: `config/local.toml` can add them (BENCHMARKS.md shows how). `--think-ms` is how
//! long a player waits before each move (0: as fast as the server answers). `--clock` has
//! every game played on that clock (`none` by default; `set_match` before each invitation).
//! Bounded in time; it stops by itself.
//!
//! The players' sockets are read on one thread and the onlookers' on another, as clients on
//! machines of their own would be: a player's round trip is not measured behind the reading
//! of thousands of onlookers' frames (both threads on the same cores as the server still).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use awc::ws::{Frame, Message};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::mpsc;

#[path = "shared/guest.rs"]
mod guest;
#[path = "shared/nodelay.rs"]
mod nodelay;
use guest::sign_in;
use nodelay::no_delay_on_every_socket;

#[derive(Clone)]
struct Args {
    url: String,
    rooms: String,
    /// Users are named `<names> <i>`: a second run on one lounge needs names of its own.
    names: String,
    tables_per_room: usize,
    users: usize,
    games: Option<usize>,
    think_ms: u64,
    seconds: u64,
    /// Every server process, for its memory (several instances: each).
    server_pids: Vec<u32>,
    clock: String,
}

impl Args {
    /// The URL user `i` connects to: `--url` may list several instances, and users take
    /// them in turn (a game's two players then sit on two instances).
    fn url_of(&self, i: usize) -> &str {
        let urls: Vec<&str> = self.url.split(',').collect();
        urls[i % urls.len()]
    }

    /// The first instance: where the server's metrics are read.
    fn first_url(&self) -> &str {
        self.url_of(0)
    }

    /// The servers' resident memory together, if known.
    fn server_rss(&self) -> Option<u64> {
        if self.server_pids.is_empty() {
            return None;
        }
        self.server_pids.iter().map(|&p| rss_kib(p)).sum()
    }
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: "http://127.0.0.1:8080".into(),
        rooms: "load".into(),
        names: "Load".into(),
        tables_per_room: 10,
        users: 200,
        games: None,
        think_ms: 0,
        seconds: 30,
        server_pids: Vec::new(),
        clock: "none".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} wants a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag} wants a number, not {value:?}"))
        };
        match flag.as_str() {
            "--url" => a.url = value.clone(),
            "--rooms" => a.rooms = value.clone(),
            "--names" => a.names = value.clone(),
            "--tables-per-room" => a.tables_per_room = number()?.max(1) as usize,
            "--users" => a.users = number()? as usize,
            "--games" => a.games = Some(number()? as usize),
            "--think-ms" => a.think_ms = number()?,
            "--seconds" => a.seconds = number()?,
            "--server-pid" => {
                a.server_pids = value
                    .split(',')
                    .map(|p| p.trim().parse().map_err(|_| format!("--server-pid {p}")))
                    .collect::<Result<_, _>>()?
            }
            "--clock" => a.clock = value.clone(),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    let games = a.games.unwrap_or(a.users / 2);
    if games * 2 > a.users {
        return Err(format!("{games} games need {} users", games * 2));
    }
    a.games = Some(games);
    Ok(a)
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
    /// Each move: when it was sent, and its round trip.
    round_trips: Vec<(Instant, u64)>,
    /// Games begun so far, and when the last of them began: the figures are of the games in
    /// play, from then on; the moves before (2,000 games starting within one think time, a
    /// burst of invitations, new matches and first moves) are reported apart.
    games_begun: usize,
    all_in_play: Option<Instant>,
    errors: u64,
    first_error: Option<String>,
    /// Pairs that stopped without an error, by what they waited for and how (`stuck`).
    stuck: std::collections::BTreeMap<(&'static str, &'static str), u64>,
}

type Shared = Rc<RefCell<Stats>>;

/// What every socket received, counted by the readers of both threads.
#[derive(Default)]
struct Delivered {
    frames: AtomicU64,
    /// Messages in those frames (a frame may hold a batch), and their bytes.
    messages: AtomicU64,
    bytes: AtomicU64,
    /// Sockets the server closed.
    dropped: AtomicU64,
}

impl Delivered {
    fn now(&self) -> [u64; 3] {
        [&self.frames, &self.messages, &self.bytes].map(|c| c.load(Relaxed))
    }
}

/// One connected user: frames out through a writer task; frames in, already sorted by a
/// reader task that answers pings and keeps only what the player waits for.
struct Conn {
    id: String,
    out: mpsc::UnboundedSender<Message>,
    inbox: mpsc::UnboundedReceiver<Value>,
    /// Why the last `wait` came back empty: nothing for 10 s (or the end), not a closed socket.
    silent: bool,
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(default)]
    table: Option<&'a str>,
}

/// Connects; `table` is the one table whose messages this user's inbox keeps (players), or
/// none (onlookers keep nothing but count).
async fn connect(
    client: &awc::Client,
    url: &str,
    name: &str,
    table: Option<String>,
    delivered: Arc<Delivered>,
) -> Result<Conn, String> {
    let (token, id) = sign_in(client, url, name).await?;
    let ws_url = format!("{}/ws?token={token}", url.replacen("http", "ws", 1));
    // As the web client does: several messages may come in one frame.
    let (_, socket) = client
        .ws(ws_url)
        .protocols(["lounge.batch"])
        .max_frame_size(1 << 20)
        .connect()
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let (mut sink, mut stream) = socket.split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
    let (deliver, inbox) = mpsc::unbounded_channel();
    actix_web::rt::spawn(async move {
        while let Some(m) = outgoing.recv().await {
            if sink.send(m).await.is_err() {
                break;
            }
        }
    });
    let pong = out.clone();
    actix_web::rt::spawn(async move {
        while let Some(frame) = stream.next().await {
            match frame {
                Ok(Frame::Text(bytes)) => {
                    // One message, or a batch of them (a JSON array).
                    let batch = if bytes.first() == Some(&b'[') {
                        serde_json::from_slice::<Vec<&RawValue>>(&bytes).unwrap_or_default()
                    } else {
                        serde_json::from_slice::<&RawValue>(&bytes)
                            .map(|m| vec![m])
                            .unwrap_or_default()
                    };
                    delivered.frames.fetch_add(1, Relaxed);
                    delivered.messages.fetch_add(batch.len() as u64, Relaxed);
                    delivered.bytes.fetch_add(bytes.len() as u64, Relaxed);
                    for m in batch {
                        // Onlookers keep only their snapshot, to know they are in.
                        let Some(table) = &table else {
                            if m.get().starts_with(r#"{"type":"room""#) {
                                if let Ok(v) = serde_json::from_str(m.get()) {
                                    let _ = deliver.send(v);
                                }
                            }
                            continue;
                        };
                        let Ok(head) = serde_json::from_str::<Head<'_>>(m.get()) else {
                            continue;
                        };
                        let ours = match head.kind {
                            "invitation" | "error" | "room" => true,
                            "game_started" | "game_state" | "game_over" => {
                                head.table == Some(table.as_str())
                            }
                            _ => false,
                        };
                        if ours {
                            if let Ok(v) = serde_json::from_str(m.get()) {
                                let _ = deliver.send(v);
                            }
                        }
                    }
                }
                Ok(Frame::Ping(b)) => {
                    let _ = pong.send(Message::Pong(b));
                }
                Ok(Frame::Close(_)) | Err(_) => {
                    delivered.dropped.fetch_add(1, Relaxed);
                    break;
                }
                _ => {}
            }
        }
    });
    Ok(Conn {
        id,
        out,
        inbox,
        silent: false,
    })
}

impl Conn {
    fn send(&self, v: Value) {
        let _ = self.out.send(Message::Text(v.to_string().into()));
    }

    /// An error among the messages waiting, taken out with those before it.
    fn waiting_error(&mut self) -> Option<Value> {
        while let Ok(m) = self.inbox.try_recv() {
            if m["type"] == "error" {
                return Some(m);
            }
        }
        None
    }

    /// The next kept message that `want` accepts; `None` when the socket closes, nothing comes
    /// for 10 s, or `end` passes.
    /// `silent` says which of the first two it was.
    async fn wait(&mut self, end: Instant, want: impl Fn(&Value) -> bool) -> Option<Value> {
        self.wait_within(Duration::from_secs(10), end, want).await
    }

    /// As `wait`, with nothing coming for `within` instead of 10 s.
    async fn wait_within(
        &mut self,
        within: Duration,
        end: Instant,
        want: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = (Instant::now() + within).min(end);
        loop {
            let m = match tokio::time::timeout_at(deadline.into(), self.inbox.recv()).await {
                Ok(Some(m)) => m,
                Ok(None) => {
                    self.silent = false;
                    return None;
                }
                Err(_) => {
                    self.silent = true;
                    return None;
                }
            };
            if want(&m) {
                return Some(m);
            }
        }
    }
}

/// A pair that stopped before the end without an error: what it waited for, and whether
/// nothing came for 10 s or the socket closed.
fn stuck(stats: &Shared, waiting_for: &'static str, conn: &Conn, end: Instant) {
    if Instant::now() < end {
        let how = if conn.silent {
            "silent 10 s"
        } else {
            "socket closed"
        };
        *stats
            .borrow_mut()
            .stuck
            .entry((waiting_for, how))
            .or_default() += 1;
    }
}

fn error(stats: &Shared, m: &Value) {
    let mut s = stats.borrow_mut();
    s.errors += 1;
    s.first_error.get_or_insert_with(|| m.to_string());
}

/// Plays games at one table until `end`.
#[allow(clippy::too_many_arguments)]
async fn pair(
    mut a: Conn,
    mut b: Conn,
    room: String,
    table: String,
    think: Duration,
    end: Instant,
    stats: Shared,
    seed: u64,
    clock: String,
    games_total: usize,
) {
    let mut rng = seed | 1;
    let mut next_rand = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for c in [&a, &b] {
        c.send(json!({"type": "enter", "room": room, "ref": "enter"}));
    }
    // Both must be in the room before the invitation (an invitation to someone not there yet
    // is refused, to the one inviting); a refusal to enter comes as an error.
    for c in [&mut a, &mut b] {
        match c
            .wait(end, |m| m["type"] == "room" || m["type"] == "error")
            .await
        {
            Some(m) if m["type"] == "room" => {}
            Some(m) => return error(&stats, &m),
            None => return stuck(&stats, "room", c, end),
        }
    }
    // The games start spread over the first think time.
    let stagger = 200 + next_rand(think.as_millis() as usize + 1) as u64;
    tokio::time::sleep(Duration::from_millis(stagger)).await;
    let is_error = |m: &Value| m["type"] == "error";
    let mut ply_total = 0u64;
    while Instant::now() < end {
        a.send(json!({"type": "sit", "table": table, "seat": "south"}));
        if clock != "none" {
            a.send(json!({"type": "set_match", "table": table, "clock": clock}));
        }
        a.send(json!({"type": "invite", "table": table, "user": b.id}));
        let mut invitation = b
            .wait(end, |m| m["type"] == "invitation" || is_error(m))
            .await;
        if invitation.is_none() && b.silent && Instant::now() < end {
            // Late or lost: 30 s more tell which.
            invitation = b
                .wait_within(
                    Duration::from_secs(30),
                    end + Duration::from_secs(30),
                    |m| m["type"] == "invitation" || is_error(m),
                )
                .await;
            if invitation.is_some() {
                stuck(
                    &stats,
                    "invitation (came after 10 s)",
                    &b,
                    end + Duration::from_secs(60),
                );
            }
        }
        let invitation = match invitation {
            Some(m) if m["type"] == "invitation" => m["id"].clone(),
            Some(m) => return error(&stats, &m),
            // The inviter may have been refused (its sit, its invitation): that is an error.
            None => match a.waiting_error() {
                Some(m) => return error(&stats, &m),
                None => return stuck(&stats, "invitation", &b, end),
            },
        };
        b.send(json!({"type": "respond", "invitation": invitation, "accept": true}));
        let started = match b
            .wait(end, |m| m["type"] == "game_started" || is_error(m))
            .await
        {
            Some(m) if m["type"] == "game_started" => m,
            Some(m) => return error(&stats, &m),
            None => return stuck(&stats, "game_started", &b, end),
        };
        if ply_total == 0 {
            let mut s = stats.borrow_mut();
            s.games_begun += 1;
            if s.games_begun == games_total {
                s.all_in_play = Some(Instant::now());
            }
        }
        let b_is_south = started["players"]["south"]["id"] == b.id.as_str();
        let mut state = started["state"].clone();
        let mut ply = 0u64;
        while state["status"] == "playing" && Instant::now() < end {
            if !think.is_zero() {
                // Between half and one and a half times the think time, so the games do not
                // move in lockstep.
                let ms = think.as_millis() as usize;
                let wait = ms / 2 + next_rand(ms + 1);
                tokio::time::sleep(Duration::from_millis(wait as u64)).await;
            }
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
            mover.send(json!({"type": "move", "table": table, "pit": pit, "ref": ply}));
            // Our move's reply carries our ref.
            let reply = mover
                .wait(end + Duration::from_secs(10), |m| {
                    m["ref"] == json!(ply) && (m["type"] == "game_state" || is_error(m))
                })
                .await;
            let reply = match reply {
                Some(m) if m["type"] == "game_state" => m,
                Some(m) => return error(&stats, &m),
                None => return stuck(&stats, "a move's game_state", mover, end),
            };
            {
                let mut s = stats.borrow_mut();
                s.moves += 1;
                s.round_trips
                    .push((sent, sent.elapsed().as_micros() as u64));
            }
            state = reply["state"].clone();
            ply += 1;
            ply_total += 1;
        }
        if state["status"] != "playing" {
            stats.borrow_mut().games += 1;
            // Both see the end before the next game begins.
            for c in [&mut a, &mut b] {
                if c.wait(end, |m| m["type"] == "game_over").await.is_none() {
                    return stuck(&stats, "game_over", c, end);
                }
            }
        }
    }
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("loadtest: {e}");
            std::process::exit(2);
        }
    };
    let games = args.games.unwrap_or(0);
    let delivered: Arc<Delivered> = Arc::default();
    let (tell_main, mut from_onlookers) = mpsc::unbounded_channel();
    let (tell_onlookers, told) = mpsc::unbounded_channel();
    let onlookers = {
        let (args, delivered) = (args.clone(), delivered.clone());
        std::thread::spawn(move || onlookers(args, delivered, tell_main, told))
    };
    actix_web::rt::System::new().block_on(async move {
        let client = client();
        let stats: Shared = Rc::default();
        let rss_before = args.server_rss();
        let started = Instant::now();
        // Sign in and connect 64 at a time (and as many onlookers on their thread).
        let players: Vec<Conn> = futures_util::stream::iter(0..games * 2)
            .map(|i| {
                let (client, url, delivered) = (&client, args.url_of(i), delivered.clone());
                let table = Some(place(&args, i).1);
                let name = format!("{} {i}", args.names);
                async move { (i, connect(client, url, &name, table, delivered).await) }
            })
            .buffered(64)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .map(|(i, c)| c.unwrap_or_else(|e| fail(&format!("user {i}: {e}"))))
            .collect();
        let onlookers_ready = |what: &str, m: Option<Result<(), String>>| match m {
            Some(Ok(())) => {}
            Some(Err(e)) => fail(&e),
            None => fail(&format!("the onlookers' thread stopped before {what}")),
        };
        onlookers_ready("connecting", from_onlookers.recv().await);
        let connected = started.elapsed();
        let quick = no_delay_on_every_socket();
        // Let the welcomes land before reading the server's memory.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss_after = args.server_rss();
        println!(
            "connected {} users in {:.1} s ({quick} sockets without delay)",
            args.users,
            connected.as_secs_f64()
        );
        if let (Some(b), Some(a)) = (rss_before, rss_after) {
            println!(
                "server memory: {} MiB before, {} MiB connected: {:.1} KiB a connection",
                b / 1024,
                a / 1024,
                a.saturating_sub(b) as f64 / args.users.max(1) as f64
            );
        }
        // All are in before the games start: a crowd coming in (everyone told of everyone)
        // is not what is measured.
        let _ = tell_onlookers.send(());
        onlookers_ready("entering", from_onlookers.recv().await);
        // What their coming in told the others drains first.
        tokio::time::sleep(Duration::from_secs(3)).await;
        println!(
            "onlookers in their rooms after {:.1} s",
            started.elapsed().as_secs_f64() - connected.as_secs_f64()
        );
        let play_start = Instant::now();
        let since_1970 = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        println!(
            "play begins at {:02}:{:02}:{:02} UTC (second 0 below)",
            since_1970 / 3600 % 24,
            since_1970 / 60 % 60,
            since_1970 % 60
        );
        let end = play_start + Duration::from_secs(args.seconds);
        let mut tasks = Vec::new();
        let mut it = players.into_iter();
        let mut n = 0;
        while let (Some(a), Some(b)) = (it.next(), it.next()) {
            let (room, table) = place(&args, n * 2);
            n += 1;
            tasks.push(actix_web::rt::spawn(pair(
                a,
                b,
                room,
                table,
                Duration::from_millis(args.think_ms),
                end,
                stats.clone(),
                n as u64 * 7919,
                args.clock.clone(),
                games,
            )));
        }
        let [frames_before, messages_before, bytes_before] = delivered.now();
        let mut peak_rss = 0;
        // The server's memory, and its store's times from the moment all games are in play.
        let sampler = {
            let (servers, stats, client, url) = (
                args.clone(),
                stats.clone(),
                client.clone(),
                args.first_url().to_owned(),
            );
            async move {
                let mut stores_from = None;
                loop {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    if let Some(rss) = servers.server_rss() {
                        peak_rss = peak_rss.max(rss);
                    }
                    if stores_from.is_none() && stats.borrow().all_in_play.is_some() {
                        stores_from = Some(store_times(&client, &url).await);
                    }
                    if Instant::now() > end {
                        return (peak_rss, stores_from);
                    }
                }
            }
        };
        let sampler = actix_web::rt::spawn(sampler);
        for t in tasks {
            let _ = t.await;
        }
        let (peak_rss, stores_from) = sampler.await.unwrap_or_default();
        let stores_to = store_times(&client, args.first_url()).await;
        let elapsed = play_start.elapsed().as_secs_f64();
        let s = stats.borrow();
        let [frames, messages, bytes] = delivered.now();
        // Percentiles in ms of the round trips of the moves `keep` accepts (by when sent).
        let summary = |keep: &dyn Fn(Instant) -> bool| {
            let mut v: Vec<u64> = s
                .round_trips
                .iter()
                .filter(|(at, _)| keep(*at))
                .map(|(_, us)| *us)
                .collect();
            v.sort_unstable();
            let pct = |p: f64| {
                v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
                    .copied()
                    .unwrap_or(0) as f64
                    / 1000.0
            };
            (v.len(), pct(0.50), pct(0.99), pct(1.0))
        };
        println!(
            "{n} games at once, {} onlookers, think {} ms, {elapsed:.0} s: {} moves ({:.0}/s), \
             {} games finished, {} errors, {} connections dropped",
            args.users - games * 2,
            args.think_ms,
            s.moves,
            s.moves as f64 / elapsed,
            s.games,
            s.errors,
            delivered.dropped.load(Relaxed)
        );
        for ((waiting_for, how), pairs) in &s.stuck {
            println!("pairs stopped before the end waiting for {waiting_for} ({how}): {pairs}");
        }
        println!(
            "delivered: {:.0} frames/s, {:.0} messages/s, {:.1} MB/s",
            (frames - frames_before) as f64 / elapsed,
            (messages - messages_before) as f64 / elapsed,
            (bytes - bytes_before) as f64 / elapsed / 1e6
        );
        // The games in play, from the moment the last one began; before it, apart.
        let from = s.all_in_play.unwrap_or(end);
        let (count, p50, p99, max) = summary(&|at| at >= from);
        println!(
            "move round trip, games in play ({} of {n} begun; {count} moves from {:.1} s on): \
             p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
            s.games_begun,
            from.saturating_duration_since(play_start).as_secs_f64()
        );
        let (count, p50, p99, max) = summary(&|at| at < from);
        println!(
            "while the games began ({count} moves): p50 {p50:.2} ms, p99 {p99:.2} ms, \
             max {max:.2} ms"
        );
        // The seconds of play with the slowest moves: a stall of the whole server shows as
        // one second where many games were slow at once, a slow client as one game.
        let mut seconds: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for (at, us) in &s.round_trips {
            let second = at.saturating_duration_since(play_start).as_secs();
            seconds.entry(second).or_default().push(*us);
        }
        let mut worst: Vec<(u64, usize, u64, u64)> = seconds
            .into_iter()
            .map(|(second, mut v)| {
                v.sort_unstable();
                let slow = v.iter().filter(|us| **us > 10_000).count();
                (second, slow, v[v.len() * 99 / 100], v[v.len() - 1])
            })
            .collect();
        worst.sort_by_key(|w| std::cmp::Reverse(w.3));
        for (second, slow, p99, max) in worst.iter().take(5) {
            println!(
                "second {second}: {slow} moves over 10 ms, p99 {:.2} ms, max {:.2} ms",
                *p99 as f64 / 1000.0,
                *max as f64 / 1000.0
            );
        }
        if let Some(from) = stores_from.filter(|f| !f.is_empty() && !stores_to.is_empty()) {
            // Bucket bounds and counts, the last bucket being +Inf, and the sum.
            let diff: Vec<(&str, f64)> = stores_to
                .iter()
                .zip(&from)
                .map(|((k, b), (_, a))| (k.as_str(), b - a))
                .collect();
            let count = diff
                .iter()
                .find(|(k, _)| *k == "count")
                .map_or(0.0, |d| d.1);
            let sum = diff.iter().find(|(k, _)| *k == "sum").map_or(0.0, |d| d.1);
            let over = |le: &str| {
                let under = diff.iter().find(|(k, _)| *k == le).map_or(count, |d| d.1);
                100.0 * (count - under) / count.max(1.0)
            };
            println!(
                "the server's stores while the games were in play: {count:.0}, mean {:.2} ms; \
                 over 1.6 ms {:.1}%, over 6.4 ms {:.2}%, over 25.6 ms {:.2}%",
                1000.0 * sum / count.max(1.0),
                over("0.0016"),
                over("0.0064"),
                over("0.0256")
            );
        }
        if let Some(e) = &s.first_error {
            println!("first error: {e}");
        }
        if peak_rss > 0 {
            println!(
                "server memory at its peak while playing: {} MiB",
                peak_rss / 1024
            );
        }
        let _ = tell_onlookers.send(());
    });
    let _ = onlookers.join();
}

/// An HTTP client with no cap on connections: each socket holds one.
fn client() -> awc::Client {
    awc::Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(Duration::from_secs(30))
        .finish()
}

/// The server's `lounge_store_seconds` histogram: its buckets by bound, then `sum` and
/// `count`; empty when the server does not answer.
async fn store_times(client: &awc::Client, url: &str) -> Vec<(String, f64)> {
    let Ok(mut resp) = client.get(format!("{url}/metrics")).send().await else {
        return Vec::new();
    };
    let Ok(body) = resp.body().limit(1 << 22).await else {
        return Vec::new();
    };
    String::from_utf8_lossy(&body)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("lounge_store_seconds")?;
            let (key, value) = rest.rsplit_once(' ')?;
            let key = match key {
                "_sum" => "sum",
                "_count" => "count",
                k => k.strip_prefix("_bucket{le=\"")?.strip_suffix("\"}")?,
            };
            Some((key.to_owned(), value.parse().ok()?))
        })
        .collect()
}

fn fail(e: &str) -> ! {
    eprintln!("loadtest: {e}");
    std::process::exit(1);
}

/// The room and table of user `i`: game n's two players sit at its table, and the users
/// after the players watch the tables in turn.
fn place(args: &Args, i: usize) -> (String, String) {
    let games = args.games.unwrap_or(0);
    let rooms_used = games.div_ceil(args.tables_per_room).max(1);
    let g = if i < games * 2 { i / 2 } else { i - games * 2 };
    let room = format!(
        "{}-{}",
        args.rooms,
        g / args.tables_per_room % rooms_used + 1
    );
    let table = format!("{room}-{}", g % args.tables_per_room + 1);
    (room, table)
}

/// The onlookers, on a thread of their own: they connect, say so, enter their rooms and
/// watch a table each when told, say when all are in, and hold their sockets until told again.
fn onlookers(
    args: Args,
    delivered: Arc<Delivered>,
    tell: mpsc::UnboundedSender<Result<(), String>>,
    mut told: mpsc::UnboundedReceiver<()>,
) {
    actix_web::rt::System::new().block_on(async move {
        let client = client();
        let players = args.games.unwrap_or(0) * 2;
        let conns: Vec<(usize, Result<Conn, String>)> =
            futures_util::stream::iter(players..args.users)
                .map(|i| {
                    let (client, url, delivered) = (&client, args.url_of(i), delivered.clone());
                    let name = format!("{} {i}", args.names);
                    async move { (i, connect(client, url, &name, None, delivered).await) }
                })
                .buffered(64)
                .collect()
                .await;
        let mut onlookers = Vec::new();
        for (i, c) in conns {
            match c {
                Ok(c) => onlookers.push((i, c)),
                Err(e) => {
                    let _ = tell.send(Err(format!("user {i}: {e}")));
                    return;
                }
            }
        }
        let _ = tell.send(Ok(()));
        if told.recv().await.is_none() {
            return;
        }
        for (i, c) in &onlookers {
            let (room, table) = place(&args, *i);
            c.send(json!({"type": "enter", "room": room}));
            c.send(json!({"type": "watch", "table": table}));
        }
        let settle = Instant::now() + Duration::from_secs(120);
        for (_, c) in onlookers.iter_mut() {
            c.wait(settle, |m| m["type"] == "room").await;
        }
        let _ = tell.send(Ok(()));
        told.recv().await;
    });
}
