//! Arena load: the start of an evening. Signs in `--players` guests who join tournament
//! `--tournament` and enter its room, and `--idle` more who only connect (the rest of the
//! hotel), then waits for the tournament's first pairing and plays: each player sows a legal
//! pit `--think-ms` after its turn comes, game after game, as the arena pairs it again.
//!
//! Reports when the first round's games started (from the tournament's start, and from the
//! first to the last, each as its player heard it), and the round trip of every move (sent
//! to the `game_state` carrying its ref): those sent within `--burst-ms` of the first game's
//! start apart from the rest. Bounded: it stops `--seconds` after the first game started.
//!
//! ```sh
//! cargo run --release --example arenaload -- --url http://127.0.0.1:8080 --room arena \
//!     --tournament ID --players 1000 --idle 9000 --think-ms 1000 --seconds 20
//! ```
//!
//! `bench/arena-load.sh` makes the room and the tournament and runs it.

use std::cell::RefCell;
use std::rc::Rc;
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

#[derive(Clone)]
struct Args {
    url: String,
    room: String,
    tournament: String,
    players: usize,
    idle: usize,
    think_ms: u64,
    burst_ms: u64,
    seconds: u64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: "http://127.0.0.1:8080".into(),
        room: "arena".into(),
        tournament: String::new(),
        players: 100,
        idle: 0,
        think_ms: 1000,
        burst_ms: 2000,
        seconds: 20,
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
            "--room" => a.room = value.clone(),
            "--tournament" => a.tournament = value.clone(),
            "--players" => a.players = number()? as usize,
            "--idle" => a.idle = number()? as usize,
            "--think-ms" => a.think_ms = number()?,
            "--burst-ms" => a.burst_ms = number()?,
            "--seconds" => a.seconds = number()?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.tournament.is_empty() {
        return Err("--tournament ID is needed".into());
    }
    Ok(a)
}

/// What the players saw, together.
#[derive(Default)]
struct Stats {
    /// When each player heard its first game start.
    first_games: Vec<Instant>,
    games_started: u64,
    /// Round trips of moves sent within the burst, and after it (ms).
    burst: Vec<f64>,
    after: Vec<f64>,
    errors: u64,
    first_error: Option<String>,
    dropped: u64,
}

type Shared = Rc<RefCell<Stats>>;

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(default)]
    table: Option<&'a str>,
}

/// A connected guest: frames out through a writer task; in, what concerns it (its own games,
/// its errors, the room's snapshot), already picked out by a reader task that answers pings.
struct Conn {
    id: String,
    out: mpsc::UnboundedSender<Message>,
    inbox: mpsc::UnboundedReceiver<Value>,
}

impl Conn {
    fn send(&self, v: Value) {
        let _ = self.out.send(Message::Text(v.to_string().into()));
    }
}

async fn connect(
    client: &awc::Client,
    url: &str,
    token: &str,
    id: String,
    stats: Shared,
) -> Result<Conn, String> {
    let ws_url = format!("{}/ws?token={token}", url.replacen("http", "ws", 1));
    let (_, socket) = client
        .ws(ws_url)
        .protocols(["lounge.batch"])
        .max_frame_size(1 << 22)
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
    let (pong, me) = (out.clone(), id.clone());
    actix_web::rt::spawn(async move {
        // The table this guest plays at now: the moves and ends it keeps.
        let mut mine: Option<String> = None;
        while let Some(frame) = stream.next().await {
            match frame {
                Ok(Frame::Text(bytes)) => {
                    let batch = if bytes.first() == Some(&b'[') {
                        serde_json::from_slice::<Vec<&RawValue>>(&bytes).unwrap_or_default()
                    } else {
                        serde_json::from_slice::<&RawValue>(&bytes)
                            .map(|m| vec![m])
                            .unwrap_or_default()
                    };
                    for m in batch {
                        let Ok(head) = serde_json::from_str::<Head<'_>>(m.get()) else {
                            continue;
                        };
                        let ours = match head.kind {
                            "room" | "error" => true,
                            // Every table's start reaches the room: only one names this guest.
                            "game_started" => m.get().contains(me.as_str()),
                            "game_state" | "game_over" => {
                                head.table.is_some() && head.table == mine.as_deref()
                            }
                            _ => false,
                        };
                        if !ours {
                            continue;
                        }
                        let Ok(v) = serde_json::from_str::<Value>(m.get()) else {
                            continue;
                        };
                        if head.kind == "game_started" {
                            mine = v["table"].as_str().map(str::to_owned);
                        }
                        let _ = deliver.send(v);
                    }
                }
                Ok(Frame::Ping(b)) => {
                    let _ = pong.send(Message::Pong(b));
                }
                Ok(Frame::Close(_)) | Err(_) => {
                    stats.borrow_mut().dropped += 1;
                    break;
                }
                _ => {}
            }
        }
    });
    Ok(Conn { id, out, inbox })
}

/// One player: in the room, then game after game until `end`.
async fn play(
    mut conn: Conn,
    args: Args,
    stats: Shared,
    first_start: Rc<RefCell<Option<Instant>>>,
    end: Rc<RefCell<Option<Instant>>>,
    seed: u64,
) {
    let mut rng = seed | 1;
    let mut heard_first = false;
    let mut side = "south";
    let mut table = String::new();
    // The move sent and not yet answered: its ref and when.
    let mut pending: Option<(u64, Instant)> = None;
    let mut sent = 0u64;
    loop {
        if end.borrow().is_some_and(|end| Instant::now() >= end) {
            return;
        }
        let m = match tokio::time::timeout(Duration::from_millis(250), conn.inbox.recv()).await {
            Ok(Some(m)) => m,
            Ok(None) => return,
            Err(_) => continue,
        };
        let state = match m["type"].as_str() {
            Some("game_started") => {
                let now = Instant::now();
                {
                    let mut first = first_start.borrow_mut();
                    if first.is_none() {
                        *first = Some(now);
                        *end.borrow_mut() = Some(now + Duration::from_secs(args.seconds));
                    }
                }
                let mut s = stats.borrow_mut();
                s.games_started += 1;
                if !heard_first {
                    heard_first = true;
                    s.first_games.push(now);
                }
                side = if m["players"]["south"]["id"] == conn.id.as_str() {
                    "south"
                } else {
                    "north"
                };
                table = m["table"].as_str().unwrap_or_default().to_owned();
                m["state"].clone()
            }
            Some("game_state") => {
                if let Some((r, at)) = pending {
                    if m["ref"] == r {
                        pending = None;
                        let ms = at.elapsed().as_secs_f64() * 1000.0;
                        let burst = first_start.borrow().is_some_and(|f| {
                            at.saturating_duration_since(f) < Duration::from_millis(args.burst_ms)
                        });
                        let mut s = stats.borrow_mut();
                        if burst {
                            s.burst.push(ms);
                        } else {
                            s.after.push(ms);
                        }
                    }
                }
                m["state"].clone()
            }
            Some("error") => {
                let mut s = stats.borrow_mut();
                s.errors += 1;
                s.first_error.get_or_insert_with(|| m.to_string());
                pending = None;
                continue;
            }
            _ => continue,
        };
        if state["status"] != "playing" || state["to_move"] != side || pending.is_some() {
            continue;
        }
        let legal: Vec<u64> = state["legal"]
            .as_array()
            .map(|l| l.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        if legal.is_empty() {
            continue;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let pit = legal[(rng % legal.len() as u64) as usize];
        tokio::time::sleep(Duration::from_millis(args.think_ms)).await;
        sent += 1;
        pending = Some((sent, Instant::now()));
        conn.send(json!({"type": "move", "table": table, "pit": pit, "ref": sent}));
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(what: &str, mut v: Vec<f64>) {
    v.sort_by(f64::total_cmp);
    println!(
        "{what}: {} moves, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        v.len(),
        percentile(&v, 0.5),
        percentile(&v, 0.99),
        v.last().copied().unwrap_or(f64::NAN)
    );
}

fn main() {
    let args = args().unwrap_or_else(|e| {
        eprintln!("arenaload: {e}");
        std::process::exit(2);
    });
    actix_web::rt::System::new().block_on(async move {
        let client = awc::Client::builder()
            .connector(awc::Connector::new().limit(0))
            .timeout(Duration::from_secs(60))
            .finish();
        let stats: Shared = Rc::default();
        // The tournament's start, on this machine's clock (the server's is the same one).
        let mut t = client
            .get(format!("{}/api/v1/tournaments/{}", args.url, args.tournament))
            .send()
            .await
            .expect("the tournament is read");
        let t: Value = t.json().await.expect("a tournament");
        let starts_at = t["tournament"]["starts_at"].as_u64().expect("starts_at");
        let (url, tournament, room) = (&args.url, &args.tournament, &args.room);
        let joined = Instant::now();
        let players: Vec<Conn> = futures_util::stream::iter(0..args.players)
            .map(|i| {
                let (client, stats) = (&client, stats.clone());
                async move {
                    let (token, id) = sign_in(client, url, &format!("Arena {i}")).await?;
                    let status = client
                        .put(format!("{url}/api/v1/me/tournaments/{tournament}"))
                        .bearer_auth(&token)
                        .force_close()
                        .send()
                        .await
                        .map_err(|e| format!("join: {e}"))?
                        .status();
                    if !status.is_success() {
                        return Err(format!("join: {status}"));
                    }
                    let conn = connect(client, url, &token, id, stats).await?;
                    conn.send(json!({"type": "enter", "room": room}));
                    Ok::<_, String>(conn)
                }
            })
            .buffer_unordered(32)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("a player: {e}"));
        let idle: Vec<Conn> = futures_util::stream::iter(0..args.idle)
            .map(|i| {
                let (client, stats) = (&client, stats.clone());
                async move {
                    let (token, id) = sign_in(client, url, &format!("Idle {i}")).await?;
                    connect(client, url, &token, id, stats).await
                }
            })
            .buffer_unordered(32)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("an idle guest: {e}"));
        let quick = nodelay::no_delay_on_every_socket();
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        println!(
            "{} players in {} and {} idle guests connected in {:.1} s ({quick} sockets without delay); the tournament starts in {:.1} s",
            players.len(),
            args.room,
            idle.len(),
            joined.elapsed().as_secs_f64(),
            starts_at.saturating_sub(now_ms) as f64 / 1000.0
        );
        let start = Instant::now() + Duration::from_millis(starts_at.saturating_sub(now_ms));
        let first_start: Rc<RefCell<Option<Instant>>> = Rc::default();
        let end: Rc<RefCell<Option<Instant>>> = Rc::default();
        let tasks: Vec<_> = players
            .into_iter()
            .enumerate()
            .map(|(i, conn)| {
                actix_web::rt::spawn(play(
                    conn,
                    args.clone(),
                    stats.clone(),
                    first_start.clone(),
                    end.clone(),
                    0x9E37_79B9_7F4A_7C15 ^ (i as u64),
                ))
            })
            .collect();
        for task in tasks {
            let _ = task.await;
        }
        let s = stats.borrow();
        let mut firsts = s.first_games.clone();
        firsts.sort();
        let since = |at: Instant| at.saturating_duration_since(start).as_secs_f64() * 1000.0;
        if let (Some(a), Some(b)) = (firsts.first(), firsts.last()) {
            let within = |ms: u64| {
                firsts
                    .iter()
                    .filter(|t| t.saturating_duration_since(*a) <= Duration::from_millis(ms))
                    .count()
            };
            println!(
                "first round: {} players' games started, the first {:.0} ms and the last {:.0} ms after the tournament's start: {:.0} ms from first to last ({} within 1 s, {} within 2 s)",
                firsts.len(),
                since(*a),
                since(*b),
                b.saturating_duration_since(*a).as_secs_f64() * 1000.0,
                within(1000),
                within(2000),
            );
        } else {
            println!("no game started");
        }
        println!("games started in all (as heard by their players): {}", s.games_started);
        report(&format!("moves sent within {} ms of the first start", args.burst_ms), s.burst.clone());
        report("moves after", s.after.clone());
        println!(
            "errors: {}{}; sockets closed by the server: {}",
            s.errors,
            s.first_error
                .as_ref()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default(),
            s.dropped
        );
        drop(idle);
    });
}
