//! Three instances, one hotel: real `lounge serve` processes sharing one
//! PostgreSQL database and one Redis, HAProxy in front (`helpers/hotel.rs`). A takeover waits
//! for the dead owner's lease to run out in Redis (1.5 s here): the tests poll for it.

use lounge::common::GameId;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::champions::wall_until;
use crate::helpers::hotel::Hotel;
use crate::helpers::{TestApp, Ws};

const LOUNGE: &str = "surulere-games-lounge";

/// Every win counts, and clocks are stopped at most 100 ms before an instance dies.
const SETTINGS: [(&str, &str); 3] = [
    ("LOUNGE_CHAMPIONS__MIN_MOVES", "0"),
    ("LOUNGE_CHAMPIONS__NEW_ACCOUNT_SECS", "0"),
    ("LOUNGE_WORLD__HEARTBEAT_MS", "100"),
];

/// Connects `token` to `app` and enters the lounge, as the web client does: `enter` again
/// at the `until` of an `unavailable` while the room is between owners, a new socket only
/// when one closes; the socket and the `room` snapshot.
pub(crate) async fn back_in(app: &TestApp, token: &str) -> (Ws, Value) {
    web_client_in(app, token, &mut 0).await
}

/// The next message of `kind` about `table` (each room member hears of every table's games).
async fn at(ws: &mut Ws, kind: &str, table: &str) -> Value {
    loop {
        let m = ws.next_of(kind).await;
        if m["table"] == table {
            return m;
        }
    }
}

fn total(wall: &Value) -> u64 {
    wall["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["wins"].as_u64().unwrap())
        .sum()
}

#[actix_web::test]
async fn players_on_two_instances_play_a_game_watched_from_the_third_and_the_winner_is_on_every_wall_once(
) {
    let hotel = Hotel::start(3, &SETTINGS);
    let (i0, i1, i2) = (hotel.app(0), hotel.app(1), hotel.app(2));
    let (ta, a_id) = i0.guest("Ade").await;
    let (tb, b_id) = i1.guest("Bisi").await;
    let (tc, _) = i2.guest("Chidi").await;
    let (mut wa, _) = back_in(&i0, &ta).await;
    let (mut wb, _) = back_in(&i1, &tb).await;
    let (mut wc, room) = back_in(&i2, &tc).await;
    assert_eq!(
        hotel.owner_of(LOUNGE).await,
        Some(0),
        "the first visit's instance"
    );
    assert_eq!(room["occupants"].as_array().unwrap().len(), 3, "{room}");
    // Whoever else reaches Redis cannot speak for a guest: a hand-made relay message to the
    // lounge's owner, without the instances' MAC, is dropped and counted there.
    let forged = json!({"t": "act", "room": LOUNGE, "user_id": a_id,
        "message": {"type": "chat", "text": "Baba Ayo: send me your password"}, "ref": null});
    let mut redis = redis::Client::open(hotel.redis.onlooker_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let readers: i64 = redis::cmd("PUBLISH")
        .arg("lounge:instance:i0")
        .arg(forged.to_string())
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(readers, 1, "i0 reads its channel");
    // Refused when i0 has read it off Redis (another process): its log says so.
    hotel.instances[0]
        .log
        .until("without a good MAC", 1, Duration::from_secs(10))
        .await;
    let heard = wc.heard_until_pong().await;
    assert!(heard.iter().all(|m| m["type"] != "chat"), "{heard:?}");
    let (_, metrics) = i0.metrics().await;
    assert!(
        metrics.lines().any(|l| l == "lounge_relay_refused_total 1"),
        "counted: {metrics}"
    );

    let table = "surulere-games-lounge-1";
    wa.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    wa.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = wb.next_of("invitation").await;
    wb.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = wc.next_of("game_started").await;
    wc.send(json!({"type": "watch", "table": table, "since": started["version"]}))
        .await;
    wc.next_of("missed").await;
    let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
    let mut state = started["state"].clone();
    let mut version = started["version"].as_u64().unwrap();
    // South sows its first legal pit, North its last: a game with a winner.
    while state["status"] == "playing" {
        let south = state["to_move"] == "south";
        let player = if south == a_is_south {
            &mut wa
        } else {
            &mut wb
        };
        let legal = state["legal"].as_array().unwrap();
        let pit = if south {
            &legal[0]
        } else {
            &legal[legal.len() - 1]
        };
        player
            .send(json!({"type": "move", "table": table, "pit": pit}))
            .await;
        let update = wc.next_of("game_state").await;
        assert_eq!(update["last_move"]["pit"], *pit);
        let now = update["version"].as_u64().unwrap();
        assert!(now > version, "in order");
        version = now;
        for player in [&mut wa, &mut wb] {
            assert_eq!(player.next_of("game_state").await["state"], update["state"]);
        }
        state = update["state"].clone();
    }
    let over = wc.next_of("game_over").await;
    assert_eq!(over["counts_for_champions"], true, "{over}");
    let side = if over["result"] == "south_won" {
        "south"
    } else {
        "north"
    };
    let winner = started["players"][side]["id"].as_str().unwrap().to_owned();
    for app in [&i0, &i1, &i2] {
        let wall = wall_until(app, |w| total(w) == 1).await;
        assert_eq!(wall["entries"][0]["user"]["id"], winner.as_str(), "{wall}");
    }
    // Drained by one instance or several, it is counted once: once the outbox is empty no
    // instance reads the result again.
    crate::champions::outbox_drained(&[&i0, &i1, &i2]).await;
    assert_eq!(total(&crate::champions::wall_today(&i1).await), 1);
}

/// A game's moves as its players saw them acknowledged before the kill, and how many were
/// played after.
struct Seen {
    game_id: String,
    pits: Vec<u64>,
    after: usize,
}

#[actix_web::test]
async fn the_owner_killed_mid_three_games_loses_no_move_and_they_finish_on_the_others() {
    let mut hotel = Hotel::start(3, &SETTINGS);
    let (i0, i1, i2) = (hotel.app(0), hotel.app(1), hotel.app(2));
    // An onlooker on i0 opens the lounge there; every player is on i1 or i2.
    let (to, _) = i0.guest("Ola").await;
    let (_onlooker, _) = back_in(&i0, &to).await;
    let mut players = Vec::new();
    for (app, name) in [
        (&i1, "Ade"),
        (&i2, "Bisi"),
        (&i1, "Chidi"),
        (&i2, "Dayo"),
        (&i1, "Efe"),
    ] {
        let (token, id) = app.guest(name).await;
        let (ws, _) = back_in(app, &token).await;
        players.push((token, id, ws));
    }
    assert_eq!(hotel.owner_of(LOUNGE).await, Some(0));
    let apps = [&i1, &i2, &i1, &i2, &i1];

    // Table 1: Ade and Bisi, untimed. Table 2: Chidi and Baba Ayo. Table 3: Dayo and Efe on
    // a clock of 5 minutes.
    let [t1, t2, t3] = ["-1", "-2", "-3"].map(|n| format!("{LOUNGE}{n}"));
    let invite = |host: usize, guest: usize, table: &str, clock: Option<&str>| {
        (host, guest, table.to_owned(), clock.map(str::to_owned))
    };
    for (host, guest, table, clock) in [invite(0, 1, &t1, None), invite(3, 4, &t3, Some("5+0"))] {
        let guest_id = players[guest].1.clone();
        let ws = &mut players[host].2;
        ws.send(json!({"type": "sit", "table": table, "seat": "south"}))
            .await;
        if let Some(clock) = clock {
            ws.send(json!({"type": "set_match", "table": table, "clock": clock}))
                .await;
        }
        ws.send(json!({"type": "invite", "table": table, "user": guest_id}))
            .await;
        let invitation = players[guest].2.next_of("invitation").await;
        players[guest]
            .2
            .send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
            .await;
    }
    players[2]
        .2
        .send(json!({"type": "play_house", "table": t2, "level": "easy"}))
        .await;

    // A few moves each, every one acknowledged to the one who made it.
    let mut seen: Vec<Seen> = Vec::new();
    let mut clocked_left = 0;
    for (table, seats) in [(&t1, [0, 1]), (&t2, [2, 2]), (&t3, [3, 4])] {
        let started = at(&mut players[seats[0]].2, "game_started", table).await;
        let game_id = started["game_id"].as_str().unwrap().to_owned();
        let mut state = started["state"].clone();
        let mut pits = Vec::new();
        while state["ply"].as_u64().unwrap() < 4 {
            let south = state["to_move"] == "south";
            let south_id = &started["players"]["south"]["id"];
            let mover = seats
                .into_iter()
                .find(|&p| (players[p].1.as_str() == south_id) == south)
                .filter(|_| {
                    !(table == &t2
                        && started["players"][if south { "south" } else { "north" }]["house"]
                            == true)
                });
            if let Some(p) = mover {
                let pit = state["legal"][0].clone();
                players[p]
                    .2
                    .send(json!({"type": "move", "table": table, "pit": pit}))
                    .await;
            }
            let update = players[seats[0]].2.next_of("game_state").await;
            pits.push(update["last_move"]["pit"].as_u64().unwrap());
            if seats[0] != seats[1] {
                players[seats[1]].2.next_of("game_state").await;
            }
            if table == &t3 {
                clocked_left = update["clock"][if update["state"]["to_move"] == "south" {
                    "south_ms"
                } else {
                    "north_ms"
                }]
                .as_u64()
                .unwrap();
            }
            state = update["state"].clone();
        }
        seen.push(Seen {
            game_id,
            pits,
            after: 0,
        });
    }
    let killed_at = Instant::now();
    hotel.signal(0, "KILL");

    // Every player comes back on the instance it was on; the lounge opens on one of them,
    // each game at the ply its players saw.
    let mut back = Vec::new();
    for (p, (token, _, _)) in players.iter().enumerate() {
        back.push(back_in(apps[p], token).await);
    }
    let outage = killed_at.elapsed();
    let owner = hotel.owner_of(LOUNGE).await;
    assert!(matches!(owner, Some(1 | 2)), "{owner:?}");
    let room = &back[0].1;
    for (t, game) in seen.iter().enumerate() {
        let table = &room["tables"][t];
        assert_eq!(table["game"]["id"], game.game_id.as_str(), "{room}");
        let ply = table["game"]["state"]["ply"].as_u64().unwrap();
        let acknowledged = game.pits.len() as u64;
        // Baba Ayo (table 2) may have answered the last move, before the kill or on his new
        // owner: one move more, never one fewer.
        let house_reply = u64::from(t == 1 && ply == acknowledged + 1);
        assert_eq!(
            ply - house_reply,
            acknowledged,
            "no acknowledged move lost at table {t}"
        );
    }
    // The clock ran for what was thought before the kill, not for the outage.
    let clock = &room["tables"][2]["game"]["clock"];
    let running = clock["running"].as_str().unwrap();
    let left = clock[format!("{running}_ms")].as_u64().unwrap();
    assert!(
        clocked_left - left < outage.as_millis() as u64,
        "charged {} ms of an outage of {outage:?}",
        clocked_left - left
    );

    // The games finish on the survivors: table 1 played out, the others resigned.
    let mut state = room["tables"][0]["game"]["state"].clone();
    let south_id = room["tables"][0]["game"]["players"]["south"]["id"].clone();
    while state["status"] == "playing" {
        let south = state["to_move"] == "south";
        let p = [0, 1]
            .into_iter()
            .find(|&p| (players[p].1.as_str() == south_id) == south)
            .unwrap();
        let pit = state["legal"][0].clone();
        back[p]
            .0
            .send(json!({"type": "move", "table": t1, "pit": pit}))
            .await;
        state = back[0].0.next_of("game_state").await["state"].clone();
        back[1].0.next_of("game_state").await;
        if seen[0].after == 0 {
            // A figure for BENCHMARKS.md (with --nocapture), not a check: timers are not
            // asserted in tests.
            eprintln!(
                "takeover: {} ms from the kill to the first move the new owner accepted (lease {} ms)",
                killed_at.elapsed().as_millis(),
                crate::helpers::hotel::LEASE_MS
            );
        }
        seen[0].after += 1;
    }
    for (p, table) in [(2, &t2), (3, &t3)] {
        back[p]
            .0
            .send(json!({"type": "resign", "table": table}))
            .await;
        assert_eq!(
            at(&mut back[p].0, "game_over", table).await["reason"],
            "resigned"
        );
    }
    let store = hotel.db.store();
    for game in &seen {
        let stored = store.moves(&GameId::new(game.game_id.as_str())).unwrap();
        let stored: Vec<u64> = stored.into_iter().map(u64::from).collect();
        assert_eq!(
            stored[..game.pits.len()],
            game.pits[..],
            "0 lost: every acknowledged move is stored, in order"
        );
        let row = store
            .game(&GameId::new(game.game_id.as_str()))
            .unwrap()
            .unwrap();
        assert_ne!(lounge::store::status_word(row.status), "playing");
    }
    let first = store.moves(&GameId::new(seen[0].game_id.as_str())).unwrap();
    assert_eq!(
        first.len(),
        seen[0].pits.len() + seen[0].after,
        "table 1's every move stored once"
    );
}

#[actix_web::test]
async fn an_owner_paused_past_its_lease_writes_nothing_when_it_wakes_and_both_see_one_table() {
    let mut hotel = Hotel::start(3, &SETTINGS);
    let (i0, i1, i2) = (hotel.app(0), hotel.app(1), hotel.app(2));
    let (to, _) = i0.guest("Ola").await;
    let (_onlooker, _) = back_in(&i0, &to).await;
    let (ta, a_id) = i1.guest("Ade").await;
    let (tb, b_id) = i2.guest("Bisi").await;
    let (mut wa, _) = back_in(&i1, &ta).await;
    let (mut wb, _) = back_in(&i2, &tb).await;
    assert_eq!(hotel.owner_of(LOUNGE).await, Some(0));
    let table = format!("{LOUNGE}-1");
    wa.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    wa.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = wb.next_of("invitation").await;
    wb.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = at(&mut wa, "game_started", &table).await;
    let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
    let game_id = started["game_id"].as_str().unwrap().to_owned();
    let mut state = started["state"].clone();
    // Two moves, then the owner stops with a third on its way to it.
    let mover = |state: &Value| (state["to_move"] == "south") == a_is_south;
    for _ in 0..2 {
        let ws = if mover(&state) { &mut wa } else { &mut wb };
        ws.send(json!({"type": "move", "table": table, "pit": state["legal"][0]}))
            .await;
        state = wa.next_of("game_state").await["state"].clone();
        wb.next_of("game_state").await;
    }
    hotel.signal(0, "STOP");
    let (ws, other) = if mover(&state) {
        (&mut wa, &mut wb)
    } else {
        (&mut wb, &mut wa)
    };
    ws.send(json!({"type": "move", "table": table, "pit": state["legal"][0]}))
        .await;
    // Its lease runs out; the sessions find the room again, on i1 or i2.
    assert_eq!(ws.closed().await, Some(1001));
    assert_eq!(other.closed().await, Some(1001));
    let (mut wa, room) = back_in(&i1, &ta).await;
    let (mut wb, _) = back_in(&i2, &tb).await;
    assert!(matches!(hotel.owner_of(LOUNGE).await, Some(1 | 2)));
    let mut state = room["tables"][0]["game"]["state"].clone();
    assert_eq!(
        state["ply"], 2,
        "the move sent to the stopped owner was never made"
    );
    for _ in 0..2 {
        let ws = if mover(&state) { &mut wa } else { &mut wb };
        ws.send(json!({"type": "move", "table": table, "pit": state["legal"][0]}))
            .await;
        state = wa.next_of("game_state").await["state"].clone();
        wb.next_of("game_state").await;
    }

    // The old owner wakes with the move it was sent, and its lease gone.
    hotel.signal(0, "CONT");
    // Its log says so (another process): awaited line by line, 10 s at most.
    hotel.instances[0]
        .log
        .until_any(
            &["taken by a later owner", "could not be renewed"],
            Duration::from_secs(10),
        )
        .await;
    let stored = hotel
        .db
        .store()
        .moves(&GameId::new(game_id.as_str()))
        .unwrap();
    assert_eq!(stored.len(), 4, "none of the old owner's writes landed");
    // Seen from the old owner's instance, the table is the new owner's.
    let (_, from_old) = back_in(&i0, &to).await;
    assert_eq!(from_old["tables"][0]["game"]["state"], state, "{from_old}");
    assert_eq!(
        from_old["tables"][0]["version"],
        room_version(&mut wa, &table).await
    );
}

/// The table's version as the room says now (a `sync` from an old version answers with it).
async fn room_version(ws: &mut Ws, table: &str) -> Value {
    ws.send(json!({"type": "sync", "table": table, "version": 0}))
        .await;
    ws.next_of("missed").await["version"].clone()
}

/// A guest as the web client behaves: a socket opened through the balancer with a ticket,
/// `enter` tried again at the `until` of an `unavailable`, and a new socket only when the old
/// one closed. Whatever else it is told is an error of the test.
struct Guest {
    token: String,
    id: String,
    ws: Ws,
    /// Sockets opened again after one closed, and `unavailable` answers to `enter`.
    reconnects: usize,
    unavailable: usize,
    /// The `room` snapshot of the last time back in, until a game looks at it.
    snapshot: Option<Value>,
}

impl Guest {
    async fn new(front: &TestApp, name: &str) -> Guest {
        let (token, id) = front.guest(name).await;
        let mut unavailable = 0;
        let (ws, _) = web_client_in(front, &token, &mut unavailable).await;
        Guest {
            token,
            id,
            ws,
            reconnects: 0,
            unavailable,
            snapshot: None,
        }
    }

    /// Reads what comes until it is quiet: a socket that closes is opened again and the
    /// lounge entered; `server_closing` must be followed by the close; no error.
    async fn settle(&mut self, front: &TestApp) {
        let (mut seen, mut closed) = self
            .ws
            .until_quiet_or_closed(Duration::from_millis(400), usize::MAX)
            .await;
        if closed.is_none() && seen.iter().any(|m| m["type"] == "server_closing") {
            let (more, then) = self
                .ws
                .until_quiet_or_closed(Duration::from_secs(5), usize::MAX)
                .await;
            seen.extend(more);
            closed = then;
            assert!(closed.is_some(), "server_closing is followed by the close");
        }
        let errors: Vec<_> = seen.iter().filter(|m| m["type"] == "error").collect();
        assert!(errors.is_empty(), "{}: {errors:?}", self.id);
        if closed.is_some() {
            self.reconnects += 1;
            let (ws, room) = web_client_in(front, &self.token, &mut self.unavailable).await;
            self.ws = ws;
            self.snapshot = Some(room);
        } else {
            // Still in the room: what came is read as it comes.
            self.ws.unread(seen);
        }
    }
}

/// Opens a socket the web client's way through `front` and enters the lounge, as the web
/// client does: a new socket when one does not open or closes, `enter` again at the `until`
/// of an `unavailable`; the socket and the `room`.
async fn web_client_in(front: &TestApp, token: &str, unavailable: &mut usize) -> (Ws, Value) {
    let deadline = Instant::now() + Duration::from_secs(20);
    'socket: loop {
        assert!(Instant::now() < deadline, "back in the lounge within 20 s");
        // Not open (an instance stopping, the balancer not yet past it): at once again, the
        // answer of each try (another process's) what moves on, 20 s at most.
        let Some(mut ws) = front.try_web_socket(token).await else {
            continue;
        };
        'enter: loop {
            ws.send(json!({"type": "enter", "room": LOUNGE, "ref": "enter"}))
                .await;
            loop {
                let (seen, closed) = ws.until_quiet_or_closed(Duration::from_secs(10), 1).await;
                assert!(!seen.is_empty() || closed.is_some(), "enter is answered");
                let mut seen = seen.into_iter();
                while let Some(m) = seen.next() {
                    if m["type"] == "room" {
                        ws.unread(seen.collect());
                        return (ws, m);
                    }
                    if m["type"] == "error" && m["ref"] == "enter" {
                        assert_eq!(m["code"], "unavailable", "{m}");
                        *unavailable += 1;
                        // Told when to try again: it listens on its socket till then.
                        let until = m["until"].as_u64().expect("unavailable says until when");
                        ws.unread(seen.collect());
                        let closed = ws.listen_until(until).await;
                        assert!(Instant::now() < deadline, "the room is owned again");
                        if closed {
                            continue 'socket;
                        }
                        continue 'enter;
                    }
                }
                if closed.is_some() {
                    continue 'socket;
                }
            }
        }
    }
}

#[actix_web::test]
async fn a_rolling_restart_during_play_hands_every_room_on_and_every_game_finishes() {
    // On Redis over TLS, as an ACL user with a password.
    let mut hotel = Hotel::start_secured(3, &SETTINGS);
    let front = hotel.front();
    let mut guests = Vec::new();
    for name in ["Ade", "Bisi", "Chidi", "Dayo", "Efe", "Funmi"] {
        guests.push(Guest::new(&front, name).await);
    }
    // Table 1: Ade and Bisi; table 2: Chidi and Dayo; table 3: Efe and Baba Ayo. Funmi looks on.
    let tables: Vec<String> = (1..=3).map(|n| format!("{LOUNGE}-{n}")).collect();
    for (host, guest, t) in [(0, 1, 0), (2, 3, 1)] {
        let guest_id = guests[guest].id.clone();
        let ws = &mut guests[host].ws;
        ws.send(json!({"type": "sit", "table": tables[t], "seat": "south"}))
            .await;
        ws.send(json!({"type": "invite", "table": tables[t], "user": guest_id}))
            .await;
        let invitation = guests[guest].ws.next_of("invitation").await;
        guests[guest]
            .ws
            .send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
            .await;
    }
    guests[4]
        .ws
        .send(json!({"type": "play_house", "table": tables[2], "level": "easy"}))
        .await;
    let mut games = Vec::new();
    for (t, players) in [(0, vec![0, 1]), (1, vec![2, 3]), (2, vec![4])] {
        let started = at(&mut guests[players[0]].ws, "game_started", &tables[t]).await;
        games.push(Game::new(t, players, &started, &guests));
    }
    let mut handovers = Vec::new();
    // Twice round, each time the lounge's owner first: the lounge moves at least twice.
    for round in 0..2 {
        let owner = hotel.owner_of(LOUNGE).await.expect("the lounge is owned");
        for i in (0..3).map(|k| (owner + k) % 3) {
            let term = Instant::now();
            let told = hotel.instances[i].log.lines_with(HANDED_ON);
            hotel.terminate(i);
            // Whoever was on it, or in a room it ran, is told and let go; they come back. Read
            // from when it says it has told them (its log, another process's: 20 s at most),
            // so a slow start of its stop on a loaded host is not taken for quiet.
            hotel.instances[i]
                .log
                .until(HANDED_ON, told + 1, Duration::from_secs(20))
                .await;
            futures_util::future::join_all(guests.iter_mut().map(|g| g.settle(&front))).await;
            // A move at every table: the first one accepted after the SIGTERM is timed.
            for game in &mut games {
                game.play(&mut guests, &tables, 1).await;
                if game.table == 0 && i == owner {
                    handovers.push(term.elapsed());
                }
            }
            assert!(
                hotel.reap(i),
                "instance {i} stopped cleanly (round {round})"
            );
            hotel.launch(i);
        }
    }
    // Every game is played to its end on whoever owns the lounge now.
    for game in &mut games {
        game.play(&mut guests, &tables, usize::MAX).await;
    }
    handovers.sort();
    // Figures for BENCHMARKS.md (with --nocapture), not checks: timers are not asserted.
    eprintln!(
        "handover on SIGTERM: p50 {} ms, max {} ms over {} ({} reconnects, {} unavailable)",
        handovers[handovers.len() / 2].as_millis(),
        handovers.last().unwrap().as_millis(),
        handovers.len(),
        guests.iter().map(|g| g.reconnects).sum::<usize>(),
        guests.iter().map(|g| g.unavailable).sum::<usize>(),
    );
    let store = hotel.db.store();
    for game in &games {
        let row = store.game(&GameId::new(game.id.as_str())).unwrap().unwrap();
        assert_ne!(
            lounge::store::status_word(row.status),
            "playing",
            "table {}",
            game.table
        );
        let stored = store.moves(&GameId::new(game.id.as_str())).unwrap();
        assert_eq!(stored.len(), game.plies, "every move stored once");
    }
}

/// What a stopping instance logs once its rooms are handed on and their people told.
const HANDED_ON: &str = "the rooms are handed on and their people told";

/// A game at one of the lounge's tables, as its players see it.
struct Game {
    table: usize,
    id: String,
    /// Its players among the guests (one against Baba Ayo), and which of them is South.
    players: Vec<usize>,
    south: Option<usize>,
    state: Value,
    plies: usize,
}

impl Game {
    fn new(table: usize, players: Vec<usize>, started: &Value, guests: &[Guest]) -> Game {
        let south_id = &started["players"]["south"]["id"];
        Game {
            table,
            id: started["game_id"].as_str().unwrap().to_owned(),
            south: players.iter().copied().find(|&p| guests[p].id == *south_id),
            players,
            state: started["state"].clone(),
            plies: 0,
        }
    }

    /// Plays up to `moves` moves of its people (their first legal pit; Baba Ayo answers
    /// his), each seen by every player of the game.
    async fn play(&mut self, guests: &mut [Guest], tables: &[String], moves: usize) {
        let table = &tables[self.table];
        // Back in on a new socket: the game as the room showed it then.
        for &p in &self.players {
            if let Some(room) = guests[p].snapshot.take() {
                self.state = room["tables"][self.table]["game"]["state"].clone();
            }
        }
        let mut made = 0;
        while made < moves && self.state["status"] == "playing" {
            let south = self.state["to_move"] == "south";
            let mover = if south {
                self.south
            } else {
                self.players
                    .iter()
                    .copied()
                    .find(|&p| Some(p) != self.south)
            };
            if let Some(p) = mover {
                guests[p]
                    .ws
                    .send(json!({"type": "move", "table": table, "pit": self.state["legal"][0]}))
                    .await;
                made += 1;
            }
            let mut update = Value::Null;
            for &p in &self.players {
                update = at(&mut guests[p].ws, "game_state", table).await;
            }
            self.state = update["state"].clone();
            self.plies = self.state["ply"].as_u64().unwrap() as usize;
        }
    }
}

#[actix_web::test]
async fn entering_a_room_whose_owner_died_is_unavailable_until_it_is_owned_again_and_retried() {
    let hotel = Hotel::start(3, &SETTINGS);
    // The lounge's lease held by an instance that is gone: nobody reads its channel.
    let mut redis = redis::Client::open(hotel.redis.onlooker_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("lounge:{{room:{LOUNGE}}}:lease"))
        .arg("gone 1")
        .arg("PX")
        .arg(1_500)
        .query_async(&mut redis)
        .await
        .unwrap();
    let front = hotel.front();
    let (token, _) = front.guest("Ade").await;
    let mut unavailable = 0;
    let (_ws, room) = web_client_in(&front, &token, &mut unavailable).await;
    assert!(unavailable >= 1, "told unavailable, not no_such_room");
    assert_eq!(room["room"]["id"], LOUNGE);
    assert!(hotel.owner_of(LOUNGE).await.is_some(), "owned again");
}

#[actix_web::test]
async fn redis_restarted_under_the_hotel_rooms_are_leased_again_and_no_win_is_counted_twice() {
    let mut hotel = Hotel::start(3, &SETTINGS);
    let (i1, i2) = (hotel.app(1), hotel.app(2));
    let (ta, a_id) = i1.guest("Ade").await;
    let (tb, b_id) = i2.guest("Bisi").await;
    let winner = win_a_game(&i1, &ta, &a_id, &i2, &tb, &b_id).await;
    wall_until(&i1, |w| total(w) == 1).await;

    let owner = hotel.owner_of(LOUNGE).await.expect("leased");
    let port = hotel.redis.port;
    hotel.redis.stop();
    hotel.redis = crate::helpers::wall::OwnRedis::start(port);
    // The leases went with Redis: their owner drops its rooms at its next renewal (its log
    // says so, line by line, 10 s at most)...
    hotel.instances[owner]
        .log
        .until("taken by a later owner", 1, Duration::from_secs(10))
        .await;
    assert!(
        lost(&hotel.app(owner)).await > 0,
        "the owner lets the room go"
    );
    // ...and they are taken again at the next visit.
    let second = win_a_game(&i1, &ta, &a_id, &i2, &tb, &b_id).await;
    assert!(hotel.owner_of(LOUNGE).await.is_some(), "leased again");
    let wall = wall_until(&i2, |w| total(w) == 2).await;
    let wins = |id: &str| {
        wall["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["user"]["id"] == id)
            .map(|e| e["wins"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(second, winner, "Ade wins both");
    assert_eq!(wins(&winner), 2, "{wall}");
    let i0 = hotel.app(0);
    crate::champions::outbox_drained(&[&i0, &i1, &i2]).await;
    assert_eq!(total(&crate::champions::wall_today(&i1).await), 2);
}

/// Rooms an instance dropped because a later owner took them, or its lease went.
async fn lost(app: &TestApp) -> u64 {
    let (_, metrics) = app.metrics().await;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("lounge_leases_lost_total ")?.parse().ok())
        .unwrap_or(0)
}

/// Ade (on `ia`) and Bisi (on `ib`) play a game with a winner at the first table, coming
/// back in as often as the room moves; the winner's id.
async fn win_a_game(
    ia: &TestApp,
    ta: &str,
    a_id: &str,
    ib: &TestApp,
    tb: &str,
    b_id: &str,
) -> String {
    let (mut wa, _) = back_in(ia, ta).await;
    let (mut wb, _) = back_in(ib, tb).await;
    let table = format!("{LOUNGE}-1");
    wa.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    wa.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = wb.next_of("invitation").await;
    wb.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = at(&mut wa, "game_started", &table).await;
    // A few moves, so the win is one played.
    let a_is_south = started["players"]["south"]["id"] == a_id;
    let mut state = started["state"].clone();
    for _ in 0..4 {
        let ws = if (state["to_move"] == "south") == a_is_south {
            &mut wa
        } else {
            &mut wb
        };
        ws.send(json!({"type": "move", "table": table, "pit": state["legal"][0]}))
            .await;
        state = wa.next_of("game_state").await["state"].clone();
        wb.next_of("game_state").await;
    }
    wb.send(json!({"type": "resign", "table": table, "scope": "match"}))
        .await;
    let over = at(&mut wa, "game_over", &table).await;
    assert_eq!(over["reason"], "resigned", "{over}");
    assert_eq!(over["counts_for_champions"], true, "{over}");
    let side = if over["result"] == "south_won" {
        "south"
    } else {
        "north"
    };
    let winner = started["players"][side]["id"].as_str().unwrap().to_owned();
    assert_eq!(winner, a_id);
    winner
}
