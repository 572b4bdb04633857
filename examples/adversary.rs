//! Adversary tool: how much one abusive client hurts another player. Victims play as any
//! guest would while an adversary abuses the service, for a bounded time; it prints the
//! victims' reply times (p50, p99, max), what each side sent, received and was refused, and
//! the server's memory. `--baseline` (every adversary count 0) gives the quiet figures to
//! compare with. Loopback only; `bench/adversary.sh` starts a server with the room it needs.
//!
//! The server caps what one client address may hold and do, and a victim is, in life, someone
//! else somewhere else: the adversaries connect from 127.0.0.1, everyone else (victims, the
//! bystander, the new guest) from 127.0.0.2; both are loopback on Linux.
//!
//! ```sh
//! adversary draw-spam    [--spammers 6] [--spammer-level champion] [--no-offers] [--seconds 60]
//!                        [--replies N]
//! adversary stream-flood [--streams 19990] [--slow-bodies 2000] [--seconds 30]
//! adversary churn        [--churners 6] [--seconds 30]
//! adversary openapi      [--loops 16] [--seconds 30]
//!   all: --url http://127.0.0.1:PORT --room adv --server-pid PID --think-ms 100 --baseline
//! ```
//!
//! - draw-spam: spammers play Baba Ayo (`--spammer-level`) at tables of their own, moving at
//!   most once a second on their turn and offering a draw on every beat they do not move;
//!   the victim plays Baba Ayo (easy), timed from its move sent to his answering move received.
//!   `--no-offers`: the spammers only play, which tells the cost of their games from the offers'.
//! - stream-flood: `/champions/stream` connections until 16 in a row fail or this process's
//!   open files run out, then POSTs whose 10-byte body comes a byte a second, and a new guest.
//! - churn: guests sit, choose the match and stand, a frame a beat each; the last two play a
//!   match, resign it, and one presses rematch on every beat; a bystander counts what it gets.
//! - openapi: loops fetching `/api/v1/openapi.json`.
//!
//! In the last three the victims are a pair playing each other, timed from a move sent to its
//! `game_state` back. Victims answer no WebSocket ping (a pong written just before a move
//! would hold the move for Nagle's delay); they say `ping` when quiet, so the server keeps them.
//! Sign-ups told to wait (429) wait out `Retry-After`, as any client would: the budget is what
//! is measured, not what stops the tool. What the adversaries are refused is counted.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::rc::Rc;
use std::time::{Duration, Instant};

use awc::ws::{Frame, Message};
use futures_util::future::{join, join_all, LocalBoxFuture};
use futures_util::{SinkExt, StreamExt};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// Within the server's 20 frames a second, with room for the odd `ping`.
const PACE: Duration = Duration::from_micros(1_000_000 / 19);
/// How long a reply is waited for past the end of the run before it counts as unanswered.
const GRACE: Duration = Duration::from_secs(15);
/// Where the adversaries connect from, and everyone else.
const ADVERSARY: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const VICTIM: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

#[derive(Default)]
struct Args {
    scenario: String,
    url: String,
    room: String,
    server_pid: Option<u32>,
    seconds: u64,
    replies: Option<usize>,
    think: Duration,
    spammers: usize,
    spammer_level: String,
    no_offers: bool,
    churners: usize,
    loops: usize,
    streams: usize,
    slow_bodies: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: "http://127.0.0.1:18090".into(),
        room: "adv".into(),
        think: Duration::from_millis(100),
        spammers: 6,
        spammer_level: "champion".into(),
        churners: 6,
        loops: 16,
        streams: 19_990,
        slow_bodies: 2000,
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--baseline" {
            (a.spammers, a.churners, a.loops, a.streams, a.slow_bodies) = (0, 0, 0, 0, 0);
            continue;
        } else if flag == "--no-offers" {
            a.no_offers = true;
            continue;
        } else if !flag.starts_with("--") {
            a.scenario = flag;
            continue;
        }
        let v = it.next().ok_or(format!("{flag} wants a value"))?;
        let n = v.parse::<usize>().map_err(|_| format!("{flag} {v}?"));
        match flag.as_str() {
            "--url" => a.url = v,
            "--room" => a.room = v,
            "--server-pid" => a.server_pid = Some(n? as u32),
            "--seconds" => a.seconds = n? as u64,
            "--replies" => a.replies = Some(n?),
            "--think-ms" => a.think = Duration::from_millis(n? as u64),
            // Each at a table of its own in a room of 16, beside the victims'.
            "--spammers" => a.spammers = n?.min(15),
            "--spammer-level" => a.spammer_level = v,
            "--churners" => a.churners = n?.min(15),
            "--loops" => a.loops = n?,
            "--streams" => a.streams = n?,
            "--slow-bodies" => a.slow_bodies = n?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if !a.url.starts_with("http://127.0.0.1:") {
        return Err("--url must be http://127.0.0.1:PORT: loopback only".into());
    }
    if a.seconds == 0 {
        a.seconds = if a.scenario == "draw-spam" { 60 } else { 30 };
    }
    Ok(a)
}

fn rss_mib(pid: Option<u32>) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

type Counts = BTreeMap<String, u64>;

fn add(counts: &mut Counts, key: impl Into<String>, n: u64) {
    if n > 0 {
        *counts.entry(key.into()).or_default() += n;
    }
}

fn list(counts: &Counts) -> String {
    let all: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    Some(all.join(", "))
        .filter(|s| !s.is_empty())
        .unwrap_or("none".into())
}

/// What connections received: frames and bytes, messages and their bytes by type, refusals
/// by code, and sockets the server closed.
#[derive(Default)]
struct Tally {
    frames: u64,
    bytes: u64,
    types: Counts,
    type_bytes: Counts,
    codes: Counts,
    closed: u64,
}

type Counted = Rc<RefCell<Tally>>;

impl Tally {
    fn sum(all: &[Counted]) -> Tally {
        let mut t = Tally::default();
        for o in all.iter().map(|o| o.borrow()) {
            (t.frames, t.bytes, t.closed) =
                (t.frames + o.frames, t.bytes + o.bytes, t.closed + o.closed);
            o.types.iter().for_each(|(k, n)| add(&mut t.types, k, *n));
            o.codes.iter().for_each(|(k, n)| add(&mut t.codes, k, *n));
        }
        t
    }
}

/// One address's HTTP client, and how many of its sign-ups were told to wait (429).
#[derive(Clone)]
struct Side {
    http: awc::Client,
    url: String,
    waited: Rc<Cell<u64>>,
}

fn side(from: IpAddr, url: &str, timeout: Duration) -> Side {
    let connector = awc::Connector::new().limit(0).local_address(from);
    let http = awc::Client::builder().connector(connector).timeout(timeout);
    Side {
        http: http.finish(),
        url: url.to_owned(),
        waited: Rc::default(),
    }
}

/// One guest's WebSocket: frames out through a writer task; frames in counted by a reader
/// task, which passes them on while `keep` is on.
struct Conn {
    id: String,
    out: mpsc::UnboundedSender<Message>,
    inbox: mpsc::UnboundedReceiver<Value>,
    tally: Counted,
    keep: Rc<Cell<bool>>,
    last_sent: Cell<Instant>,
}

impl Conn {
    fn send(&self, v: Value) {
        self.last_sent.set(Instant::now());
        let _ = self.out.send(Message::Text(v.to_string().into()));
    }

    /// The next message `want` accepts; `None` once `until` passes or the socket closes.
    /// The server drops a client it has not heard from for 30 s: a quiet one says `ping`.
    async fn wait(&mut self, until: Instant, want: impl Fn(&Value) -> bool) -> Option<Value> {
        loop {
            if self.last_sent.get().elapsed() > Duration::from_secs(10) {
                self.send(json!({"type": "ping"}));
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            let step = (now + Duration::from_secs(2)).min(until);
            match tokio::time::timeout_at(step.into(), self.inbox.recv()).await {
                Ok(Some(m)) if want(&m) => return Some(m),
                Ok(Some(_)) | Err(_) => {}
                Ok(None) => return None,
            }
        }
    }

    /// The table's next `kind` message, within 10 s.
    async fn news(&mut self, kind: &str, table: &str) -> Option<Value> {
        self.wait(soon(), |m| is_at(m, kind, table)).await
    }
}

/// A new guest's token and id. A 429 (the address's requests or sign-ups spent) is waited
/// out for its `Retry-After` and counted.
async fn sign_up(s: &Side, name: &str) -> Result<(String, String), String> {
    loop {
        let req = s.http.post(format!("{}/api/v1/auth/guest", s.url));
        let sent = req.force_close().send_json(&json!({ "name": name })).await;
        let mut resp = sent.map_err(|e| format!("sign-up: {e}"))?;
        if resp.status() == 429 {
            let after = resp.headers().get("retry-after");
            let secs = after.and_then(|v| v.to_str().ok()?.parse().ok());
            s.waited.set(s.waited.get() + 1);
            tokio::time::sleep(Duration::from_secs(secs.unwrap_or(1))).await;
            continue;
        }
        let body: Value = resp.json().await.map_err(|e| format!("sign-up: {e}"))?;
        return match (body["token"].as_str(), body["user"]["id"].as_str()) {
            (Some(t), Some(id)) => Ok((t.to_owned(), id.to_owned())),
            _ => Err(format!("sign-up: {} {body}", resp.status())),
        };
    }
}

async fn open_ws(s: &Side, token: &str, id: String) -> Result<Conn, String> {
    let ws_url = format!("{}/ws?token={token}", s.url.replacen("http", "ws", 1));
    let connecting = s.http.ws(ws_url).max_frame_size(1 << 20).connect();
    let (_, socket) = connecting.await.map_err(|e| format!("WebSocket: {e}"))?;
    let (mut sink, mut stream) = socket.split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
    let (deliver, inbox) = mpsc::unbounded_channel();
    let (tally, keep): (Counted, _) = (Rc::default(), Rc::new(Cell::new(true)));
    actix_web::rt::spawn(async move {
        while let Some(m) = outgoing.recv().await {
            if sink.send(m).await.is_err() {
                break;
            }
        }
    });
    let (counts, kept) = (tally.clone(), keep.clone());
    actix_web::rt::spawn(async move {
        while let Some(frame) = stream.next().await {
            let bytes = match frame {
                Ok(Frame::Text(bytes)) => bytes,
                Ok(Frame::Close(_)) | Err(_) => break,
                _ => continue,
            };
            // One message, or a batch of them (a JSON array).
            let one = |m| vec![m];
            let batch: Vec<&RawValue> = if bytes.first() == Some(&b'[') {
                serde_json::from_slice(&bytes).unwrap_or_default()
            } else {
                serde_json::from_slice(&bytes).map(one).unwrap_or_default()
            };
            let mut t = counts.borrow_mut();
            (t.frames, t.bytes) = (t.frames + 1, t.bytes + bytes.len() as u64);
            for raw in batch {
                let m: Value = serde_json::from_str(raw.get()).unwrap_or_default();
                let kind = m["type"].as_str().unwrap_or("?");
                add(&mut t.types, kind, 1);
                add(&mut t.type_bytes, kind, raw.get().len() as u64);
                if let Some(code) = m["code"].as_str().filter(|_| kind == "error") {
                    add(&mut t.codes, code, 1);
                }
                if kept.get() {
                    let _ = deliver.send(m);
                }
            }
        }
        counts.borrow_mut().closed += 1;
    });
    let last_sent = Cell::new(Instant::now());
    Ok(Conn {
        id,
        out,
        inbox,
        tally,
        keep,
        last_sent,
    })
}

/// Signs a guest up, connects and enters the room; `keep`: whether it reads its messages.
async fn guest(s: &Side, room: &str, name: String, keep: bool) -> Conn {
    let failed = |e: String| -> ! { fail(&format!("{name}: {e}")) };
    let (token, id) = sign_up(s, &name).await.unwrap_or_else(|e| failed(e));
    let mut g = open_ws(s, &token, id).await.unwrap_or_else(|e| failed(e));
    g.send(json!({"type": "enter", "room": room}));
    let until = Instant::now() + Duration::from_secs(20);
    if g.wait(until, |m| m["type"] == "room").await.is_none() {
        failed(format!("not let into room {room}"));
    }
    g.keep.set(keep);
    g
}

fn fail(e: &str) -> ! {
    eprintln!("adversary: {e}");
    std::process::exit(1);
}

struct Rng(u64);

impl Rng {
    /// A random legal pit of `state`, if any.
    fn pit(&mut self, state: &Value) -> Option<Value> {
        let legal = state["legal"].as_array().filter(|l| !l.is_empty())?;
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Some(legal[(self.0 % legal.len() as u64) as usize].clone())
    }
}

/// What every task of a run shares.
#[derive(Default)]
struct Run {
    a: Args,
    /// When the run ends: a victim that stops by count, or the flood once open, moves it.
    end: Cell<Option<Instant>>,
    /// The victims' replies (when each request went, µs), requests never answered (how long
    /// they were waited for, ms), and what went wrong.
    rt: RefCell<Vec<(Instant, u64)>>,
    unanswered: RefCell<Vec<u128>>,
    notes: RefCell<Vec<String>>,
    /// What the adversaries sent by kind, how the spammers' games ended, the lines the
    /// adversaries add to the report.
    sent: RefCell<Counts>,
    ends: RefCell<Counts>,
    report: RefCell<Vec<String>>,
    /// The flood: when it began, and when all of it was open.
    phases: Cell<Option<[Instant; 2]>>,
}

type Cx = Rc<Run>;

impl Run {
    fn end(&self) -> Instant {
        let later = || Instant::now() + Duration::from_secs(3600);
        self.end.get().unwrap_or_else(later)
    }

    fn over(&self) -> bool {
        Instant::now() >= self.end()
    }

    fn table(&self, n: usize) -> String {
        format!("{}-{n}", self.a.room)
    }

    fn note(&self, what: String) {
        self.notes.borrow_mut().push(what);
    }

    fn count(&self, m: &Value) {
        let kind = m["type"].as_str().unwrap_or("?");
        add(&mut self.sent.borrow_mut(), kind, 1);
    }
}

fn is_at(m: &Value, kind: &str, table: &str) -> bool {
    m["type"] == kind && m["table"] == table
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

fn seat_of(started: &Value, id: &str) -> &'static str {
    ["north", "south"][usize::from(started["players"]["south"]["id"] == id)]
}

/// The victims play at `table`, random legal moves `--think-ms` apart. A pair plays each
/// other, timed from a move sent to its `game_state` back (matched by `ref`); their first
/// match starts by invitation, the next by rematch (invitations to one guest are limited a
/// minute). One alone plays Baba Ayo (easy), timed from its move to Baba Ayo's answering move.
async fn victims(mut p: Vec<Conn>, table: String, cx: Cx) {
    let (mut rng, mut n, mut invite, house) = (Rng(0x9e37_79b9_7f4a_7c15), 0, true, p.len() == 1);
    // The last one's inbox is read for the table's news (the first's keeps what it consumed).
    let last = p.len() - 1;
    while !cx.over() {
        if house {
            p[0].send(json!({"type": "play_house", "table": table, "level": "easy"}));
        } else if invite {
            p[0].send(json!({"type": "sit", "table": table, "seat": "south"}));
            p[0].send(json!({"type": "invite", "table": table, "user": p[1].id}));
            let Some(inv) = p[1].wait(soon(), |m| m["type"] == "invitation").await else {
                return cx.note("no invitation came in 10 s".into());
            };
            p[1].send(json!({"type": "respond", "invitation": inv["id"], "accept": true}));
        } else {
            p.iter()
                .for_each(|v| v.send(json!({"type": "rematch", "table": table})));
        }
        let Some(started) = p[last].news("game_started", &table).await else {
            if invite || house {
                return cx.note("no game_started in 10 s".into());
            }
            invite = true;
            continue;
        };
        let seats: Vec<_> = p.iter().map(|v| seat_of(&started, &v.id)).collect();
        let (mut state, mut refused) = (started["state"].clone(), false);
        while state["status"] == "playing" && !cx.over() {
            let to_move = seats.iter().position(|s| state["to_move"] == *s);
            let (sent, mine) = match to_move.zip(rng.pit(&state)) {
                Some((i, pit)) => {
                    tokio::time::sleep(cx.a.think).await;
                    n += 1;
                    p[i].send(json!({"type": "move", "table": table, "pit": pit, "ref": n}));
                    (Some(Instant::now()), i)
                }
                // Baba Ayo moves first: his move is waited for, not timed.
                None => (None, 0),
            };
            // A pair's reply is the move's own game_state; the victim of Baba Ayo passes
            // its own over and waits for his.
            let reply = |m: &Value| match house {
                false => m["ref"] == json!(n),
                true => {
                    (is_at(m, "game_state", &table) && m["last_move"]["seat"] != seats[0])
                        || is_at(m, "game_over", &table)
                        || (m["type"] == "error" && m["ref"] == json!(n))
                }
            };
            let at = sent.unwrap_or_else(Instant::now);
            match p[mine].wait(cx.end() + GRACE, reply).await {
                Some(m) if m["type"] == "game_state" => {
                    let took = at.elapsed().as_micros() as u64;
                    sent.inspect(|_| cx.rt.borrow_mut().push((at, took)));
                    state = m["state"].clone();
                }
                Some(m) if m["type"] == "error" => {
                    cx.note(format!("move refused: {m}"));
                    p[mine].send(json!({"type": "resign", "table": table, "scope": "match"}));
                    refused = true;
                    break;
                }
                Some(_) => break,
                None => return cx.unanswered.borrow_mut().push(at.elapsed().as_millis()),
            }
            if cx.a.replies.is_some_and(|r| cx.rt.borrow().len() >= r) {
                cx.end.set(Some(Instant::now()));
            }
        }
        if !cx.over() {
            // The players stand when the match ends.
            p[last].news("match_over", &table).await;
            invite = refused;
        }
    }
}

/// A beat of `PACE` that, once behind, does not catch up in a burst the server would refuse.
fn pace() -> tokio::time::Interval {
    let mut beat = tokio::time::interval(PACE);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    beat
}

/// A spammer plays Baba Ayo at `--spammer-level` at `table`, a move a second at most on its
/// turn (moving on every beat would be playing, not offering), and offers a draw on every
/// beat it does not move: each offer asks Baba Ayo to think his level's full time.
async fn spammer(mut c: Conn, table: String, cx: Cx, seed: u64) {
    let (mut rng, mut beat, mut moved) = (Rng(seed | 1), pace(), Instant::now());
    let (mut state, mut mine, mut moved_at, mut asked) = (Value::Null, "", -1, None::<Instant>);
    let level = cx.a.spammer_level.clone();
    while !cx.over() {
        beat.tick().await;
        while let Ok(m) = c.inbox.try_recv() {
            if is_at(&m, "game_started", &table) {
                mine = seat_of(&m, &c.id);
            } else if is_at(&m, "match_over", &table) {
                asked = None;
            } else if is_at(&m, "game_over", &table) {
                let reason = m["reason"].as_str().unwrap_or("?");
                add(&mut cx.ends.borrow_mut(), reason, 1);
            }
            if m["table"] == table.as_str() && m["state"].is_object() {
                state = m["state"].clone();
            }
        }
        let ply = state["ply"].as_i64().unwrap_or(-1);
        let my_turn = state["to_move"] == mine && moved_at != ply;
        let my_turn = my_turn && moved.elapsed() >= Duration::from_secs(1);
        let ask_again = asked.is_none_or(|at| at.elapsed() > Duration::from_secs(3));
        let m = if state["status"] != "playing" && ask_again {
            (asked, moved_at) = (Some(Instant::now()), -1);
            json!({"type": "play_house", "table": table, "level": level})
        } else if let Some(pit) = rng.pit(&state).filter(|_| my_turn) {
            (moved_at, moved) = (ply, Instant::now());
            json!({"type": "move", "table": table, "pit": pit})
        } else if cx.a.no_offers {
            continue;
        } else {
            json!({"type": "offer_draw", "table": table})
        };
        cx.count(&m);
        c.send(m);
    }
}

fn sit_stand(table: &str) -> Vec<Value> {
    vec![
        json!({"type": "sit", "table": table, "seat": "south"}),
        json!({"type": "set_match", "table": table, "best_of": 3}),
        json!({"type": "set_match", "table": table, "clock": "5m"}),
        json!({"type": "stand", "table": table}),
    ]
}

/// Sends `steps` in turn, one a beat, until the end.
async fn churner(c: Conn, steps: Vec<Value>, cx: Cx) {
    let mut beat = pace();
    for m in steps.iter().cycle() {
        beat.tick().await;
        if cx.over() {
            break;
        }
        cx.count(m);
        c.send(m.clone());
    }
}

/// `a` invites `b` to table `t`, the match starts, `a` resigns it; then `a` presses rematch on
/// every beat (each press is news to the whole room) while `b` churns at table `own`.
async fn rematch_pair(mut a: Conn, mut b: Conn, t: String, own: String, cx: Cx) {
    a.send(json!({"type": "sit", "table": t, "seat": "south"}));
    a.send(json!({"type": "invite", "table": t, "user": b.id}));
    let mut ready = false;
    if let Some(inv) = b.wait(soon(), |m| m["type"] == "invitation").await {
        b.send(json!({"type": "respond", "invitation": inv["id"], "accept": true}));
        if b.news("game_started", &t).await.is_some() {
            a.send(json!({"type": "resign", "table": t, "scope": "match"}));
            ready = a.news("match_over", &t).await.is_some();
        }
    }
    a.keep.set(false);
    b.keep.set(false);
    let presses = vec![json!({"type": "rematch", "table": t})];
    let a_steps = if ready { presses } else { sit_stand(&t) };
    let b_churns = churner(b, sit_stand(&own), cx.clone());
    join(churner(a, a_steps, cx), b_churns).await;
}

/// A bystander in the room reads nothing, and counts what it is sent from the start on.
async fn bystander(mut c: Conn, cx: Cx) {
    *c.tally.borrow_mut() = Tally::default();
    let started = Instant::now();
    c.wait(cx.end(), |_| false).await;
    let (t, secs) = (c.tally.borrow(), started.elapsed().as_secs_f64());
    let (n, b) = (t.types.get("table"), t.type_bytes.get("table"));
    let (n, kb) = (*n.unwrap_or(&0) as f64, *b.unwrap_or(&0) as f64 / 1e3);
    let (frames, all_kb, types) = (t.frames, t.bytes as f64 / 1e3, list(&t.types));
    cx.report.borrow_mut().push(format!(
        "bystander received {frames} frames, {all_kb:.0} KB ({:.1} KB/s); `table` messages \
         {n} ({:.1}/s, {kb:.0} KB, {:.1} KB/s); by type: {types}",
        all_kb / secs,
        n / secs,
        kb / secs
    ));
}

/// `--loops` loops fetching the OpenAPI document, each over a kept-alive connection; a 429
/// is counted and the loop goes on at once, as an adversary would.
async fn openapi_loops(s: Side, cx: Cx) {
    let (statuses, bytes) = (Rc::new(RefCell::new(Counts::new())), Rc::new(Cell::new(0)));
    let (started, url) = (Instant::now(), format!("{}/api/v1/openapi.json", s.url));
    let fetch = |_| {
        let (c, url, cx, statuses, bytes) = (&s.http, &url, &cx, &statuses, &bytes);
        async move {
            while !cx.over() {
                let status = match c.get(url).send().await {
                    Ok(mut r) => match r.body().limit(64 << 20).await {
                        Ok(body) => {
                            bytes.set(bytes.get() + body.len());
                            r.status().as_u16().to_string()
                        }
                        Err(e) => format!("body: {e}"),
                    },
                    Err(e) => e.to_string(),
                };
                add(&mut statuses.borrow_mut(), status, 1);
            }
        }
    };
    join_all((0..cx.a.loops).map(fetch)).await;
    let secs = started.elapsed().as_secs_f64();
    let statuses = statuses.borrow();
    let (n, ok) = (statuses.values().sum::<u64>(), statuses.get("200"));
    let (rate, ok_rate) = (n as f64 / secs, *ok.unwrap_or(&0) as f64 / secs);
    let (mbs, statuses) = (bytes.get() as f64 / 1e6 / secs, list(&statuses));
    cx.report.borrow_mut().push(format!(
        "openapi: {n} requests in {secs:.1} s ({rate:.0}/s, of them 200 {ok_rate:.1}/s; \
         {mbs:.1} MB/s); by status: {statuses}"
    ));
}

/// This process's open-file limit, and how many it has open.
fn fds() -> (usize, usize) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let line = limits.lines().find(|l| l.starts_with("Max open files"));
    let limit = line.and_then(|l| l.split_whitespace().nth(3)?.parse().ok());
    let open = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    (limit.unwrap_or(1024), open)
}

/// What a failed socket call says: a read that timed out is a server that does not answer.
fn why(e: std::io::Error) -> String {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => "no answer in 3 s".into(),
        kind => format!("{kind:?}"),
    }
}

/// A TCP connection from the adversary's address.
fn connect(to: SocketAddr) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    // A port bound before connecting is chosen by bind, which passes over ports an earlier
    // flood left in TIME_WAIT unless they may be reused.
    s.set_reuse_address(true)?;
    s.bind(&SocketAddr::new(ADVERSARY, 0).into())?;
    s.connect_timeout(&to.into(), Duration::from_secs(3))?;
    Ok(s.into())
}

/// An HTTP answer's status and error code ("429 rate_limited"), or its status alone.
fn status_code(answer: &str) -> String {
    let status = answer.split_whitespace().nth(1).unwrap_or("?");
    let code = answer
        .split("\"code\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next());
    code.map_or(status.into(), |c| format!("{status} {c}"))
}

/// Opens a stream: its socket once the head of a 200 came, or what came instead.
fn open_stream(to: SocketAddr) -> Result<TcpStream, String> {
    let get = b"GET /api/v1/champions/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let mut s = connect(to).map_err(|e| format!("connect: {}", why(e)))?;
    s.set_read_timeout(Some(Duration::from_secs(3)))
        .map_err(why)?;
    s.write_all(get).map_err(why)?;
    // Until the head and, for a refusal, its body's code (the body is small).
    let (mut got, mut buf) = (Vec::new(), [0u8; 4096]);
    loop {
        let text = String::from_utf8_lossy(&got);
        let head = text.contains("\r\n\r\n");
        if head && text.split_whitespace().nth(1) == Some("200") {
            return Ok(s);
        }
        if head && text.contains("\"code\":\"") && text.ends_with('}') {
            return Err(status_code(&text));
        }
        match s.read(&mut buf) {
            Ok(0) if got.is_empty() => return Err("closed at once".into()),
            Ok(n) if got.len() < 16_384 && n > 0 => got.extend_from_slice(&buf[..n]),
            Ok(_) => return Err(status_code(&text)),
            Err(e) if got.is_empty() => return Err(why(e)),
            Err(_) => return Err(status_code(&text)),
        }
    }
}

/// Opens up to `n` streams and holds them; gives up after 16 failures in a row (refused, or
/// a server that stopped accepting). The streams held, and every attempt by outcome.
fn open_streams(to: SocketAddr, n: usize) -> (Vec<TcpStream>, Counts) {
    let (mut held, mut outcomes, mut failing) = (Vec::new(), Counts::new(), 0);
    while held.len() < n && failing < 16 {
        let outcome = open_stream(to).map(|s| held.push(s));
        failing = if outcome.is_ok() { 0 } else { failing + 1 };
        add(&mut outcomes, outcome.err().unwrap_or("200".into()), 1);
    }
    (held, outcomes)
}

/// Whether the server still holds `s` open (what it sent meanwhile is read and dropped).
fn still_open(mut s: &TcpStream) -> bool {
    let mut buf = [0u8; 16_384];
    s.set_nonblocking(true).is_ok()
        && loop {
            match s.read(&mut buf) {
                Ok(0) => break false,
                Ok(_) => {}
                Err(e) => break e.kind() == ErrorKind::WouldBlock,
            }
        }
}

/// `n` POSTs whose body (10 bytes) comes a byte a second, watched every 100 ms, with up to
/// 10 s past the body for the answer: how long the server kept each (µs), by how it ended.
fn slow_bodies(to: SocketAddr, n: usize) -> BTreeMap<String, Vec<u64>> {
    let mut ended = BTreeMap::<String, Vec<u64>>::new();
    let mut end = |how: String, since: Instant| {
        let kept = since.elapsed().as_micros() as u64;
        ended.entry(how).or_default().push(kept);
    };
    let head = "POST /api/v1/auth/guest HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                Content-Type: application/json\r\nContent-Length: 10\r\n\r\n";
    let body = b"{        }";
    let mut open = Vec::new();
    for _ in 0..n {
        let since = Instant::now();
        let opened = connect(to).and_then(|mut s| {
            s.write_all(head.as_bytes())?;
            s.set_nonblocking(true).map(|_| s)
        });
        match opened {
            Ok(s) => open.push((s, since)),
            Err(e) => end(format!("connect: {}", why(e)), since),
        }
    }
    let (began, mut sent, mut chunk) = (Instant::now(), 0, [0u8; 1024]);
    let until = began + Duration::from_secs(body.len() as u64 + 10);
    while !open.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
        let due = (began.elapsed().as_secs() as usize + 1).min(body.len());
        open.retain_mut(|(s, since)| {
            let how = match s.read(&mut chunk) {
                Ok(0) => "closed by the server".to_owned(),
                Ok(n) => format!(
                    "answered {}",
                    status_code(&String::from_utf8_lossy(&chunk[..n]))
                ),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    match s.write_all(&body[sent..due]) {
                        Ok(()) => return true,
                        Err(e) => format!("write: {}", why(e)),
                    }
                }
                Err(e) => why(e),
            };
            end(how, *since);
            false
        });
        sent = due;
    }
    open.iter()
        .for_each(|(_, since)| end("no answer 10 s after the body".into(), *since));
    ended
}

/// Waits for a thread without holding up this one's tasks.
async fn joined<T>(t: std::thread::JoinHandle<T>) -> T {
    while !t.is_finished() {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    t.join().unwrap_or_else(|_| fail("a flood thread panicked"))
}

/// A new guest (at the victims' address) while the flood is held: signs up, then opens a
/// WebSocket (15 s for each).
async fn newcomer(url: &str, tag: &str) -> String {
    let (s, t) = (side(VICTIM, url, Duration::from_secs(10)), Instant::now());
    let (within, late) = (Duration::from_secs(15), |_| "no answer in 15 s".to_owned());
    let signed = tokio::time::timeout(within, sign_up(&s, &format!("Newcomer {tag}"))).await;
    let (token, id) = match signed.map_err(late).and_then(|r| r) {
        Ok(grant) => grant,
        Err(e) => return format!("{e} after {} ms", t.elapsed().as_millis()),
    };
    let (signed, waited) = (t.elapsed().as_millis(), s.waited.get());
    let ws = tokio::time::timeout(within, open_ws(&s, &token, id)).await;
    let how = ws
        .map_err(late)
        .and_then(|r| r)
        .map_or_else(|e| e, |_| "WebSocket open".into());
    let ms = t.elapsed().as_millis();
    format!("signed up in {signed} ms (told to wait {waited} times); {how} at {ms} ms")
}

/// How many, and p50, p99, max in ms of `v` (µs).
fn pct(v: &mut [u64]) -> (usize, f64, f64, f64) {
    v.sort_unstable();
    let at = |p: f64| v.get(((v.len() as f64 * p) as usize).min(v.len().max(1) - 1));
    let ms = |p| at(p).copied().unwrap_or(0) as f64 / 1e3;
    (v.len(), ms(0.5), ms(0.99), ms(1.0))
}

/// The flood: a few quiet seconds, the streams, then the slow bodies and a new guest; held
/// until `--seconds` after the streams are open.
async fn flood(cx: Cx, tag: String) {
    let a = &cx.a;
    let to: SocketAddr = a.url["http://".len()..]
        .parse()
        .unwrap_or_else(|_| fail("--url"));
    let (limit, open) = fds();
    // This process's descriptors bound the flood: room is kept for the slow bodies, the
    // victims' and the new guest's sockets.
    let tried = a
        .streams
        .min(limit.saturating_sub(open + a.slow_bodies + 64));
    tokio::time::sleep(Duration::from_secs(5)).await;
    let began = Instant::now();
    let (held, outcomes) = joined(std::thread::spawn(move || open_streams(to, tried))).await;
    let all_open = Instant::now();
    cx.phases.set(Some([began, all_open]));
    cx.end.set(Some(all_open + Duration::from_secs(a.seconds)));
    let n = a.slow_bodies;
    let slow = std::thread::spawn(move || slow_bodies(to, n));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let newcomer = newcomer(&a.url, &tag).await;
    let rss = rss_mib(a.server_pid).unwrap_or(0.0);
    let slow_ended = joined(slow).await;
    tokio::time::sleep_until(cx.end().into()).await;
    let (n_held, opened_in) = (held.len(), (all_open - began).as_secs_f64());
    let still = joined(std::thread::spawn(move || {
        held.iter().filter(|s| still_open(s)).count()
    }))
    .await;
    let slow: Vec<String> = slow_ended
        .into_iter()
        .map(|(how, mut kept)| {
            let (k, p50, _, max) = pct(&mut kept);
            format!("{how} {k} (kept p50 {p50:.0} ms, max {max:.0} ms)")
        })
        .collect();
    let (asked, outcomes, slow) = (a.streams, list(&outcomes), slow.join("; "));
    cx.report.borrow_mut().extend([
        format!(
            "streams: {n_held} held, {still} of them still open at the end ({asked} asked, \
             {tried} tried: this process may open {limit} files and had {open} open), opened \
             in {opened_in:.1} s; attempts: {outcomes}"
        ),
        format!("slow bodies ({n}): {slow}"),
        format!("new guest during the flood (127.0.0.2): {newcomer}"),
        format!("server RSS with the flood held: {rss:.1} MiB"),
    ]);
}

fn print_rt(label: &str, cx: &Run, keep: impl Fn(Instant) -> bool) {
    let rt = cx.rt.borrow();
    let mut v: Vec<u64> = rt.iter().filter(|r| keep(r.0)).map(|r| r.1).collect();
    let (n, p50, p99, max) = pct(&mut v);
    println!("| {label} | {n} | {p50:.2} | {p99:.2} | {max:.2} |");
}

type Task = LocalBoxFuture<'static, ()>;
/// The adversaries' tasks and counts, what they are, and the victims' table.
type Cast = (Vec<Task>, Vec<Counted>, String, usize);

/// The scenario's adversaries (from `adv`'s address), connected, and the churn's bystander
/// (from `victim`'s).
async fn adversaries(adv: &Side, victim: &Side, cx: &Cx, tag: &str) -> Cast {
    let (a, mut tasks, mut counted) = (&cx.a, Vec::<Task>::new(), Vec::new());
    let room = a.room.as_str();
    let (what, victims_at) = match a.scenario.as_str() {
        "draw-spam" => {
            for i in 0..a.spammers {
                let g = guest(adv, room, format!("Spam {tag} {i}"), true).await;
                counted.push(g.tally.clone());
                let (t, seed) = (cx.table(i + 1), i as u64 * 7919);
                tasks.push(Box::pin(spammer(g, t, cx.clone(), seed)));
            }
            let offers = ["", ", no offers"][usize::from(a.no_offers)];
            let what = format!("{} spammers at {}{offers}", a.spammers, a.spammer_level);
            (what, a.spammers + 1)
        }
        "churn" => {
            let b = guest(victim, room, format!("Bystander {tag}"), false).await;
            tasks.push(Box::pin(bystander(b, cx.clone())));
            let (n, mut churners) = (a.churners, Vec::new());
            for i in 0..n {
                // The last two, the rematch pair, read their messages to set their match up.
                let g = guest(adv, room, format!("Churn {tag} {i}"), n >= 2 && i + 2 >= n).await;
                counted.push(g.tally.clone());
                churners.push(g);
            }
            let pair = churners.split_off(n - n.min(2));
            for (i, g) in churners.into_iter().enumerate() {
                let steps = sit_stand(&cx.table(i + 1));
                tasks.push(Box::pin(churner(g, steps, cx.clone())));
            }
            if let Ok([x, y]) = <[Conn; 2]>::try_from(pair) {
                let (t, own) = (cx.table(n - 1), cx.table(n));
                tasks.push(Box::pin(rematch_pair(x, y, t, own, cx.clone())));
            }
            (format!("{n} churners"), n + 1)
        }
        "openapi" => {
            tasks.push(Box::pin(openapi_loops(adv.clone(), cx.clone())));
            (format!("{} loops", a.loops), 1)
        }
        "stream-flood" => {
            tasks.push(Box::pin(flood(cx.clone(), tag.to_owned())));
            let (streams, slow) = (a.streams, a.slow_bodies);
            (format!("up to {streams} streams, {slow} slow bodies"), 1)
        }
        other => fail(&format!("no scenario {other:?}: see the example's header")),
    };
    (tasks, counted, what, victims_at)
}

/// The server's own counts of refusals (the operators' `/metrics`, which takes no budget).
async fn refusals_counted(s: &Side) -> String {
    let url = format!("{}/metrics", s.url);
    let Ok(mut resp) = s.http.get(url).send().await else {
        return "no /metrics".into();
    };
    let body = resp.body().limit(16 << 20).await.unwrap_or_default();
    let wanted = [
        "lounge_errors_total",
        "lounge_connections_refused",
        "lounge_slow_bodies",
    ];
    let text = String::from_utf8_lossy(&body);
    let lines = text
        .lines()
        .filter(|l| wanted.iter().any(|w| l.starts_with(w)));
    Some(lines.collect::<Vec<_>>().join(", "))
        .filter(|s| !s.is_empty())
        .unwrap_or("none".into())
}

async fn run(cx: Cx) {
    let a = &cx.a;
    let (adv, victim) = (
        side(ADVERSARY, &a.url, Duration::from_secs(30)),
        side(VICTIM, &a.url, Duration::from_secs(30)),
    );
    // Apart from an earlier run's guests on the same server.
    let since_1970 = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    let tag = (since_1970.unwrap_or_default().as_secs() % 100_000).to_string();
    let house = a.scenario == "draw-spam";
    let mut victims_ = vec![guest(&victim, &a.room, format!("Victim {tag} A"), true).await];
    if !house {
        victims_.push(guest(&victim, &a.room, format!("Victim {tag} B"), true).await);
    }
    let victim_counts: Vec<Counted> = victims_.iter().map(|v| v.tally.clone()).collect();
    let (tasks, counted, what, victims_at) = adversaries(&adv, &victim, &cx, &tag).await;
    let rss_before = rss_mib(a.server_pid);
    if a.scenario != "stream-flood" {
        // The adversaries start 2 s before the victims: those come to a server under them.
        let end = Instant::now() + Duration::from_secs(a.seconds + 2);
        cx.end.set(Some(end));
    }
    let sampler = cx.clone();
    let peak = actix_web::rt::spawn(async move {
        let mut peak = 0f64;
        while !sampler.over() {
            peak = peak.max(rss_mib(sampler.a.server_pid).unwrap_or(0.0));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        peak
    });
    let started = Instant::now();
    let tasks: Vec<_> = tasks.into_iter().map(actix_web::rt::spawn).collect();
    tokio::time::sleep(Duration::from_secs(2)).await;
    victims(victims_, cx.table(victims_at), cx.clone()).await;
    cx.end.set(Some(cx.end().min(Instant::now())));
    for t in tasks {
        let _ = t.await;
    }
    let (peak, secs) = (peak.await.unwrap_or(0.0), started.elapsed().as_secs_f64());
    let server_counts = refusals_counted(&victim).await;
    let (scenario, think) = (&a.scenario, a.think.as_millis());
    println!("\n## {scenario}: {what}, {secs:.0} s, victims' think {think} ms\n");
    let label = ["move round trip", "house reply"][usize::from(house)];
    println!("| victim (127.0.0.2): {label} | replies | p50 ms | p99 ms | max ms |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    match cx.phases.get() {
        Some([began, open]) => {
            print_rt("before the flood", &cx, |at| at < began);
            print_rt("while the streams opened", &cx, |at| {
                (began..open).contains(&at)
            });
            print_rt("while the flood was held", &cx, |at| at >= open);
        }
        None => print_rt("whole run", &cx, |_| true),
    }
    let unanswered = cx.unanswered.borrow();
    if !unanswered.is_empty() {
        println!("\nvictim requests never answered, waited (ms): {unanswered:?}");
    }
    let vt = Tally::sum(&victim_counts);
    let (codes, closed) = (list(&vt.codes), vt.closed);
    println!("\nvictim refusals: {codes}; sockets the server closed: {closed}");
    for n in cx.notes.borrow().iter() {
        println!("victim: {n}");
    }
    let (adv_waits, victim_waits) = (adv.waited.get(), victim.waited.get());
    println!("sign-ups told to wait (429): adversaries {adv_waits}, victims {victim_waits}");
    let sent = cx.sent.borrow();
    if !sent.is_empty() {
        let total: u64 = sent.values().sum();
        let (rate, sent, t) = (total as f64 / secs, list(&sent), Tally::sum(&counted));
        println!("adversaries sent {total} ({rate:.1}/s): {sent}");
        println!("adversaries received: {}", list(&t.types));
        let (codes, closed) = (list(&t.codes), t.closed);
        println!("adversaries' refusals: {codes}; sockets the server closed: {closed}");
    }
    if !cx.ends.borrow().is_empty() {
        println!("spammers' games ended: {}", list(&cx.ends.borrow()));
    }
    cx.report.borrow().iter().for_each(|l| println!("{l}"));
    if let Some(before) = rss_before {
        let after = rss_mib(a.server_pid).unwrap_or(0.0);
        println!("server RSS: before {before:.1} MiB, peak {peak:.1} MiB, after {after:.1} MiB");
    }
    println!("server's counts: {server_counts}");
}

fn main() {
    let a = args().unwrap_or_else(|e| {
        eprintln!("adversary: {e}");
        std::process::exit(2);
    });
    let cx = Rc::new(Run {
        a,
        ..Run::default()
    });
    actix_web::rt::System::new().block_on(run(cx));
}
