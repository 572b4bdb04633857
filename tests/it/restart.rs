//! Kill the real binary with SIGKILL in the middle of a game, start it again: the game is
//! there at the same ply and goes on.

use lounge::common::{GameId, MatchId};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::helpers::log::Log;
use crate::helpers::{game_between_two, house_game, TestApp, TestDb};

/// `lounge serve` on a free port over `db`, once it says it is open; the child and its port.
/// (Port 0 and the log line, not a port picked beforehand: tests run side by side.)
fn serve(db: &TestDb) -> (Child, u16) {
    let (child, port, _) = serve_logging(db, "info");
    (child, port)
}

/// `serve` at a log level, with the log it writes.
fn serve_logging(db: &TestDb, level: &str) -> (Child, u16, Arc<Log>) {
    serve_with(db, level, &[])
}

/// `serve_logging` with more settings.
fn serve_with(db: &TestDb, level: &str, extra: &[(&str, &str)]) -> (Child, u16, Arc<Log>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
        .env("LOUNGE_AUTH__SECRET", crate::helpers::app::TEST_SECRET)
        .envs(extra.iter().copied())
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("DATABASE_URL", db.url_string())
        .env("LOUNGE_LOG", level)
        .env("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")
        .env("LOUNGE_HOUSE__ENDGAME_SEEDS", "6")
        .env("LOUNGE_HOUSE__CHAMPION_MS", "50")
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lounge serve starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let log = Arc::new(Log::default());
    let port = loop {
        let line = lines.next().expect("lounge serve says it is open").unwrap();
        log.push(line.clone());
        if line.contains("the lounge is open") {
            let port = line
                .split("port=")
                .nth(1)
                .and_then(|p| p.split_whitespace().next());
            break port
                .and_then(|p| p.parse().ok())
                .expect("a port in the log line");
        }
    };
    // Keep reading the log so the child never blocks on a full pipe.
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            kept.push(line);
        }
    });
    (child, port, log)
}

/// What the service logs as it stores a heartbeat (at trace, target `lounge::heartbeat`).
const HEARTBEAT: &str = "a heartbeat stored";

async fn killed_mid_game_and_back(db: TestDb) {
    let (mut first, first_port) = serve(&db);
    let mut app = TestApp::attach(db, first_port);
    let (mut a, mut b, _c, ta, a_id, started, tb) = game_between_two(&app).await;
    let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
    let game_id = started["game_id"].as_str().unwrap().to_owned();
    let table = "surulere-games-lounge-1";
    let (south, north) = if a_is_south {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    south
        .send(json!({"type": "move", "table": table, "pit": 3}))
        .await;
    north.next_of("game_state").await;
    north
        .send(json!({"type": "move", "table": table, "pit": 1}))
        .await;
    // South also holds the news of its own move: wait for the second ply.
    let seen = loop {
        let m = south.next_of("game_state").await;
        if m["state"]["ply"] == 2 {
            break m["version"].as_u64().unwrap();
        }
    };

    first.kill().expect("SIGKILL");
    first.wait().unwrap();
    drop((a, b));

    let (mut second, second_port) = serve(&app.db);
    app.port = second_port;
    let south_token = if a_is_south { &ta } else { &tb };
    let mut south = app.ws(south_token).await;
    south
        .send(json!({"type": "enter", "room": "surulere-games-lounge", "since": {table: seen}}))
        .await;
    let room = south.next_of("room").await;
    // The events of the last run are gone: the client is told to take the table as it is,
    // whose version is past any it saw.
    let missed = south.next_of("missed").await;
    assert_eq!(missed["resync"], true, "{missed}");
    assert!(room["tables"][0]["version"].as_u64().unwrap() > seen);
    let game = &room["tables"][0]["game"];
    assert_eq!(game["id"], game_id.as_str(), "{room}");
    assert_eq!(game["state"]["ply"], 2);
    assert_eq!(game["state"]["to_move"], "south");
    let pit = game["state"]["legal"][0].clone();
    south
        .send(json!({"type": "move", "table": table, "pit": pit}))
        .await;
    assert_eq!(south.next_of("game_state").await["state"]["ply"], 3);
    assert_eq!(
        app.db
            .store()
            .moves(&GameId::new(game_id.as_str()))
            .unwrap()
            .len(),
        3
    );
    second.kill().unwrap();
    second.wait().unwrap();
}

#[actix_web::test]
async fn a_game_survives_sigkill_on_sqlite() {
    killed_mid_game_and_back(TestDb::sqlite()).await;
}

#[actix_web::test]
async fn a_game_survives_sigkill_on_postgres() {
    killed_mid_game_and_back(TestDb::postgres()).await;
}

/// A timed game killed with SIGKILL while North thinks, down for a few seconds, and back:
/// North is charged what it had thought before the kill (to the last heartbeat), not the
/// outage, which is on the game's record.
async fn a_timed_game_killed_and_back(db: TestDb) {
    let beat = [("LOUNGE_WORLD__HEARTBEAT_MS", "100")];
    // Its heartbeats logged, one line each: what the test waits on while North thinks.
    let (mut first, port, log) = serve_with(&db, "info,lounge::heartbeat=trace", &beat);
    let mut app = TestApp::attach(db, port);
    let table = "surulere-games-lounge-2";
    let (ta, a) = app.guest("Ade").await;
    let (tb, b) = app.guest("Bisi").await;
    let (mut wa, mut wb) = (app.ws(&ta).await, app.ws(&tb).await);
    for w in [&mut wa, &mut wb] {
        w.enter("surulere-games-lounge").await;
    }
    wa.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    wa.send(json!({"type": "set_match", "table": table, "clock": "5+0", "best_of": 3}))
        .await;
    wa.send(json!({"type": "invite", "table": table, "user": b}))
        .await;
    let invitation = wb.next_of("invitation").await;
    wb.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = wa.next_of("game_started").await;
    wb.next_of("game_started").await;
    let a_is_south = started["players"]["south"]["id"] == a.as_str();
    let (south, north, north_token) = if a_is_south {
        (&mut wa, &mut wb, &tb)
    } else {
        (&mut wb, &mut wa, &ta)
    };
    south
        .send(json!({"type": "move", "table": table, "pit": 1}))
        .await;
    let state = north.next_of("game_state").await;
    let thinking = std::time::Instant::now();
    assert_eq!(state["clock"]["north_ms"], 300_000);
    // North thinks while the service stores ten heartbeats (100 ms apart on its own clock,
    // another process's): each awaited as the line it logs, 10 s at most.
    let beats = log.lines_with(HEARTBEAT);
    log.until(HEARTBEAT, beats + 10, Duration::from_secs(10))
        .await;
    let thought = thinking.elapsed().as_millis() as u64;
    first.kill().expect("SIGKILL");
    first.wait().unwrap();
    drop((wa, wb));
    // Down for two seconds at least, on the system clock both processes run on: the outage
    // the test is about is time that passes with no process up, so nothing to await but the
    // clock itself (a deadline, not a pause for something to happen).
    let down = std::time::Instant::now() + Duration::from_millis(2_000);
    tokio::time::sleep_until(down.into()).await;

    let (mut second, port, _) = serve_with(&app.db, "info", &beat);
    app.port = port;
    let mut north = app.ws(north_token).await;
    let room = north.enter("surulere-games-lounge").await;
    let game = &room["tables"][1]["game"];
    assert_eq!(game["id"], started["game_id"], "{room}");
    let left = game["clock"]["north_ms"].as_u64().unwrap();
    let charged = 300_000 - left;
    // What North had thought, give or take a heartbeat and the way messages travel (up to a
    // second on a loaded machine); the outage (over 2 s) is not in it.
    assert!(
        charged + 900 >= thought && charged <= thought + 1_500,
        "charged {charged} ms for {thought} ms of thought"
    );
    assert_eq!(game["clock"]["running"], "north");
    let record = app
        .db
        .store()
        .match_record(&MatchId::new(started["match"]["id"].as_str().unwrap()))
        .unwrap()
        .unwrap();
    let outage = record.games[0].outages[0];
    assert!(outage.resumed_ms - outage.stopped_ms >= 2_000, "{outage:?}");
    second.kill().unwrap();
    second.wait().unwrap();
}

#[actix_web::test]
async fn a_timed_game_survives_sigkill_without_charging_the_outage_on_sqlite() {
    a_timed_game_killed_and_back(TestDb::sqlite()).await;
}

#[actix_web::test]
async fn a_timed_game_survives_sigkill_without_charging_the_outage_on_postgres() {
    a_timed_game_killed_and_back(TestDb::postgres()).await;
}

/// A timed game of a match with seats kept, begun by North (Ade, the host), killed at ply 2
/// and back: replayed from North, North to move with North's clock running, the seats as they
/// were, and the next move accepted.
async fn a_game_north_began_killed_and_back(db: TestDb) {
    let (mut first, port) = serve(&db);
    let mut app = TestApp::attach(db, port);
    let table = "surulere-games-lounge-1";
    let ([mut a, mut b], [a_id, b_id], [ta, _], [mut started, _]) =
        crate::seats::kept_match(&app, "5+0").await;
    if started["first"] == "south" {
        // Game 2 is North's: Bisi resigns game 1 and both press start.
        b.send(json!({"type": "resign", "table": table})).await;
        a.next_of("game_over").await;
        for ws in [&mut a, &mut b] {
            ws.send(json!({"type": "start", "table": table})).await;
        }
        started = a.next_of("game_started").await;
    }
    assert_eq!(started["first"], "north", "{started}");
    assert_eq!(started["clock"]["running"], "north");
    let game_id = started["game_id"].as_str().unwrap().to_owned();
    a.send(json!({"type": "move", "table": table, "pit": 3}))
        .await;
    b.next_of("game_state").await;
    b.send(json!({"type": "move", "table": table, "pit": 1}))
        .await;
    loop {
        if a.next_of("game_state").await["state"]["ply"] == 2 {
            break;
        }
    }
    first.kill().expect("SIGKILL");
    first.wait().unwrap();
    drop((a, b));

    let (mut second, port) = serve(&app.db);
    app.port = port;
    let mut a = app.ws(&ta).await;
    let room = a.enter("surulere-games-lounge").await;
    let t = &room["tables"][0];
    let game = &t["game"];
    assert_eq!(game["id"], game_id.as_str(), "{room}");
    assert_eq!(game["first"], "north");
    assert_eq!(game["moves"], json!([3, 1]));
    assert_eq!(game["state"]["ply"], 2);
    assert_eq!(game["state"]["to_move"], "north");
    assert_eq!(game["clock"]["running"], "north");
    assert_eq!(t["seats"]["north"]["id"], a_id.as_str());
    assert_eq!(t["seats"]["south"]["id"], b_id.as_str());
    assert_eq!(t["settings"]["seats"], "kept");
    let pit = game["state"]["legal"][0].clone();
    a.send(json!({"type": "move", "table": table, "pit": pit}))
        .await;
    let moved = a.next_of("game_state").await;
    assert_eq!(moved["state"]["ply"], 3, "{moved}");
    assert_eq!(moved["last_move"]["seat"], "north");
    let stored = app
        .db
        .store()
        .game(&GameId::new(game_id.as_str()))
        .unwrap()
        .unwrap();
    assert_eq!(stored.first_side, lounge::ayo::Side::North);
    second.kill().unwrap();
    second.wait().unwrap();
}

#[actix_web::test]
async fn a_game_north_began_with_seats_kept_survives_sigkill_on_sqlite() {
    a_game_north_began_killed_and_back(TestDb::sqlite()).await;
}

#[actix_web::test]
async fn a_game_north_began_with_seats_kept_survives_sigkill_on_postgres() {
    a_game_north_began_killed_and_back(TestDb::postgres()).await;
}

#[actix_web::test]
async fn sigterm_tells_everyone_and_exits_cleanly() {
    // At the most verbose level, so the token check below covers every log line there is.
    let (mut child, port, log) = serve_logging(&TestDb::sqlite(), "trace");
    let app = TestApp::attach(TestDb::sqlite(), port);
    let (token, _) = app.guest("Tunde").await;
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": "gist-lounge"}))
        .await;
    ws.next_of("room").await;
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(ws.next_of("server_closing").await["type"], "server_closing");
    assert_eq!(ws.closed().await, Some(1001));
    let exit = child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    // The socket was opened with the token in its query string (TestApp::ws): no log line
    // holds it, nor its signature.
    let log = log.lock().join("\n");
    assert!(log.contains("the lounge is open"));
    let signature = token.rsplit('.').next().unwrap();
    assert!(!log.contains(signature), "the token reached the log");
}

#[actix_web::test]
async fn a_game_against_baba_ayo_goes_on_after_sigkill() {
    let db = TestDb::sqlite();
    let (mut first, port) = serve(&db);
    let mut app = TestApp::attach(db, port);
    let (mut ws, mine, started, token) = house_game(&app, "champion").await;
    let table = "surulere-games-lounge-1";
    // Play until two plies are stored, one of them Baba Ayo's.
    let mut state = started["state"].clone();
    while state["ply"].as_u64().unwrap() < 2 {
        if state["to_move"] == mine {
            let pit = state["legal"][0].clone();
            ws.send(json!({"type": "move", "table": table, "pit": pit}))
                .await;
        }
        state = ws.next_of("game_state").await["state"].clone();
    }
    first.kill().unwrap();
    first.wait().unwrap();
    drop(ws);

    let (mut second, port) = serve(&app.db);
    app.port = port;
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    let room = ws.next_of("room").await;
    let game = &room["tables"][0]["game"];
    assert_eq!(game["id"], started["game_id"]);
    let ply = game["state"]["ply"].as_u64().unwrap();
    assert!(ply >= 2, "{room}");
    // Whoever is to move, the game goes on: Baba Ayo answers after the restart.
    if game["state"]["to_move"] == mine {
        let pit = game["state"]["legal"][0].clone();
        ws.send(json!({"type": "move", "table": table, "pit": pit}))
            .await;
    }
    loop {
        let m = ws.next_of("game_state").await;
        if m["last_move"]["seat"] != mine {
            assert!(m["state"]["ply"].as_u64().unwrap() > ply);
            break;
        }
    }
    second.kill().unwrap();
    second.wait().unwrap();
}

#[actix_web::test]
async fn an_apartment_with_a_game_in_play_opens_again_after_a_kill() {
    let db = TestDb::sqlite();
    let (mut first, port) = serve(&db);
    let mut app = TestApp::attach(db, port);
    let (token, owner) = app.guest("Funmi").await;
    let table = app.place_a_board(&token).await;
    let home = format!("apartment-{owner}");
    let mut ws = app.ws(&token).await;
    ws.enter(&home).await;
    ws.send(json!({"type": "play_house", "table": table, "level": "easy"}))
        .await;
    let started = ws.next_of("game_started").await;
    first.kill().unwrap();
    first.wait().unwrap();

    let (mut second, port) = serve(&app.db);
    app.port = port;
    let mut ws = app.ws(&token).await;
    let room = ws.enter(&home).await;
    assert_eq!(room["type"], "room", "{room}");
    assert_eq!(room["tables"][0]["id"], table.as_str());
    assert_eq!(room["tables"][0]["game"]["id"], started["game_id"]);
    assert_eq!(room["tables"][0]["game"]["state"]["status"], "playing");
    ws.send(json!({"type": "resign", "table": table})).await;
    assert_eq!(ws.next_of("game_over").await["reason"], "resigned");
    second.kill().unwrap();
    second.wait().unwrap();
}

#[test]
fn without_redis_the_log_says_the_wall_is_in_process() {
    let db = TestDb::sqlite();
    let (mut child, _, log) = serve_logging(&db, "info");
    let said = log
        .lock()
        .iter()
        .any(|l| l.contains("the champions wall") && l.contains("in-process"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(said, "{:?}", log.lock());
}

#[actix_web::test]
async fn a_display_following_the_wall_does_not_hold_up_a_stop() {
    let db = TestDb::sqlite();
    // A drain long enough that waiting for it would show.
    let (mut child, port, _) = serve_with(
        &db,
        "info",
        &[("LOUNGE_SERVER__SHUTDOWN_TIMEOUT_SECS", "120")],
    );
    let app = TestApp::attach(db, port);
    let mut stream = app.champions_stream().await;
    let first = futures_util::StreamExt::next(&mut stream)
        .await
        .unwrap()
        .unwrap();
    assert!(std::str::from_utf8(&first)
        .unwrap()
        .starts_with("event: wall"));
    let stopped = std::time::Instant::now();
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = actix_web::rt::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    // Well inside the 120 s drain: the stream ended when the service stopped.
    assert!(
        stopped.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        stopped.elapsed()
    );
}
