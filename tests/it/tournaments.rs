//! Arena tournaments over real sockets and HTTP, on the hand-driven clock: an operator
//! schedules one in the lounge, eight guests join; from its start the room pairs the free
//! ones at its tables (never the same opponent twice in a row), a win scores 2, two wins in a
//! row double the next, and one who went berserk (half their clock) takes a point more for a
//! win; the lounge restarts with games in play and they go on; at its end no new game is
//! paired, the games in play finish and count, and the winner is told. The standings equal a
//! recount of the games played.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{TestApp, TestDb, Ws};

const ROOM: &str = "surulere-games-lounge";
const NAMES: [&str; 8] = [
    "Ade", "Bisi", "Chidi", "Dayo", "Emeka", "Funmi", "Gbenga", "Hauwa",
];

struct Guest {
    name: &'static str,
    token: String,
    ws: Ws,
}

/// A time `secs` from the server's clock now, as RFC 3339.
fn in_secs(app: &TestApp, secs: i64) -> String {
    let now = i64::try_from(app.clock.now_ms()).unwrap();
    chrono::DateTime::from_timestamp_millis(now + secs * 1000)
        .unwrap()
        .to_rfc3339()
}

async fn schedule(app: &TestApp, body: Value) -> (u16, Value) {
    let admin = app.admin_token("ops");
    app.call(
        "POST",
        "/api/v1/admin/tournaments",
        Some(&admin),
        Some(body),
    )
    .await
}

async fn tournament(app: &TestApp, id: &str) -> Value {
    let (status, body) = app
        .call("GET", &format!("/api/v1/tournaments/{id}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    body["tournament"].clone()
}

/// A game in play: its table, its players by name (South, North), who moves first.
struct Game {
    table: String,
    players: [String; 2],
    first: usize,
}

/// Every game started that the guests have heard of since last asked, and not in `seen`
/// (each guest hears each game start: one may hear it later than another); added to it.
async fn games_started(guests: &mut [Guest], seen: &mut HashSet<String>) -> HashMap<String, Game> {
    let mut games = HashMap::new();
    for g in guests.iter_mut() {
        for m in g.ws.heard_until_pong().await {
            if m["type"] == "game_started" && seen.insert(m["game_id"].as_str().unwrap().to_owned())
            {
                let players = ["south", "north"]
                    .map(|s| m["players"][s]["name"].as_str().unwrap().to_owned());
                let first = usize::from(m["state"]["to_move"] == "north");
                games.insert(
                    m["game_id"].as_str().unwrap().to_owned(),
                    Game {
                        table: m["table"].as_str().unwrap().to_owned(),
                        players,
                        first,
                    },
                );
            }
        }
    }
    games
}

/// Who wins a game here: Ade whenever he plays, else the first name in the alphabet.
fn winner_of(players: &[String; 2]) -> usize {
    if players[0] == "Ade" {
        0
    } else if players[1] == "Ade" {
        1
    } else {
        usize::from(players[1] < players[0])
    }
}

/// Reads `ws` until a message of `kind`, keeping the others to be read again (another
/// table's `game_started` among them).
async fn until_kept(ws: &mut Ws, kind: &str) {
    let mut kept = Vec::new();
    loop {
        let m = ws.next().await;
        if m["type"] == kind {
            break;
        }
        kept.push(m);
    }
    ws.unread(kept);
}

/// Ade goes berserk in `game` if he plays in it (before his first move: he is told).
async fn ade_berserks(guests: &mut [Guest], game: &Game) {
    if !game.players.contains(&"Ade".to_owned()) {
        return;
    }
    let ade = guests.iter_mut().find(|g| g.name == "Ade").unwrap();
    ade.ws
        .send(json!({"type": "berserk", "table": game.table, "ref": "berserk"}))
        .await;
    let mut kept = Vec::new();
    loop {
        let m = ade.ws.next().await;
        assert!(m["type"] != "error" || m["ref"] != "berserk", "{m}");
        if m["type"] == "berserk" {
            assert_eq!(m["user"]["name"], "Ade");
            break;
        }
        kept.push(m);
    }
    ade.ws.unread(kept);
}

/// A game's first move: the first mover sows a pit (and is answered); Ade, moving first,
/// goes berserk before it.
async fn first_move(guests: &mut [Guest], game: &Game) {
    let first = game.players[game.first].clone();
    if first == "Ade" {
        ade_berserks(guests, game).await;
    }
    let mover = guests.iter_mut().find(|g| g.name == first).unwrap();
    mover
        .ws
        .send(json!({"type": "move", "table": game.table, "pit": 1}))
        .await;
    until_kept(&mut mover.ws, "game_state").await;
}

/// Ends a game whose first move is played: Ade, moving second, goes berserk (he has not
/// moved yet), then the loser resigns.
async fn end(guests: &mut [Guest], game: &Game) {
    if game.players[game.first] != "Ade" {
        ade_berserks(guests, game).await;
    }
    let loser = game.players[1 - winner_of(&game.players)].clone();
    let loser = guests.iter_mut().find(|g| g.name == loser).unwrap();
    loser
        .ws
        .send(json!({"type": "resign", "table": game.table, "scope": "match"}))
        .await;
    until_kept(&mut loser.ws, "match_over").await;
}

/// Plays a game out.
async fn finish(guests: &mut [Guest], game: &Game) {
    first_move(guests, game).await;
    end(guests, game).await;
}

/// The scores the arena's rules give these games, played in this order (Ade went berserk in
/// each of his).
fn recount(played: &[([String; 2], usize)]) -> HashMap<String, i64> {
    let mut score: HashMap<String, i64> = HashMap::new();
    let mut in_a_row: HashMap<String, i64> = HashMap::new();
    for (players, winner) in played {
        for (i, p) in players.iter().enumerate() {
            let row = in_a_row.entry(p.clone()).or_default();
            let times = if *row >= 2 { 2 } else { 1 };
            if i == *winner {
                let berserk = i64::from(p == "Ade");
                *score.entry(p.clone()).or_default() += 2 * times + berserk;
                *row += 1;
            } else {
                score.entry(p.clone()).or_default();
                *row = 0;
            }
        }
    }
    score
}

/// Waits (a few seconds at most) for the tournament's reader to have scored `games` games.
async fn scored(app: &TestApp, id: &str, games: i64) -> Value {
    for _ in 0..200 {
        let t = tournament(app, id).await;
        let counted: i64 = t["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["games"].as_i64().unwrap())
            .sum();
        if counted == 2 * games {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the results of {games} games were never all scored");
}

#[actix_web::test]
async fn a_whole_arena_pairs_scores_streaks_lives_a_restart_ends_with_games_in_play_and_names_its_winner(
) {
    let mut app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")],
    )
    .await;
    let (status, body) = schedule(
        &app,
        json!({"name": "Friday Ayo night", "room": ROOM, "starts_at": in_secs(&app, 60),
               "ends_at": in_secs(&app, 3600), "clock": "180+0", "rated": false,
               "berserk": true}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["tournament"]["id"].as_str().unwrap().to_owned();
    assert_eq!(body["tournament"]["status"], "upcoming");
    assert_eq!(body["tournament"]["berserk"], true);
    assert_eq!(body["tournament"]["tables"].as_array().unwrap().len(), 3);

    let mut guests = Vec::new();
    for name in NAMES {
        let (token, _) = app.guest(name).await;
        let (status, body) = app
            .call(
                "PUT",
                &format!("/api/v1/me/tournaments/{id}"),
                Some(&token),
                None,
            )
            .await;
        assert_eq!(status, 204, "{body}");
        let mut ws = app.ws(&token).await;
        ws.enter(ROOM).await;
        guests.push(Guest { name, token, ws });
    }
    let mut seen = HashSet::new();
    let listed = app.call("GET", "/api/v1/tournaments", None, None).await.1;
    assert_eq!(listed["tournaments"][0]["players"], 8, "{listed}");
    // Before its start nobody is paired.
    assert!(games_started(&mut guests, &mut seen).await.is_empty());

    app.clock.advance(60_000);
    let mut played: Vec<([String; 2], usize)> = Vec::new();
    let mut last: HashMap<String, String> = HashMap::new();
    let mut in_play: HashMap<String, Game> = HashMap::new();
    // Rounds until Ade has won three in a row (he wins every game he plays).
    while played
        .iter()
        .filter(|(p, _)| p.contains(&"Ade".to_owned()))
        .count()
        < 3
    {
        assert!(played.len() < 30, "Ade was never paired three times");
        for _ in 0..100 {
            in_play.extend(games_started(&mut guests, &mut seen).await);
            if !in_play.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!in_play.is_empty(), "free players are paired");
        assert!(in_play.len() <= 3, "one game a table");
        for (_, game) in in_play.drain() {
            let [a, b] = game.players.clone();
            assert_ne!(last.get(&a), Some(&b), "{a} met {b} twice in a row");
            last.insert(a.clone(), b.clone());
            last.insert(b, a);
            finish(&mut guests, &game).await;
            played.push((game.players.clone(), winner_of(&game.players)));
        }
        scored(&app, &id, i64::try_from(played.len()).unwrap()).await;
    }

    // The next round is paired (every table taken, or half a second with nothing more paired:
    // a room pairs at its tick) and its first moves played; the lounge restarts: every socket
    // closes, the guests come back, and the games are there at the same ply.
    let mut quiet = 0;
    for _ in 0..200 {
        let more = games_started(&mut guests, &mut seen).await;
        quiet = if more.is_empty() { quiet + 1 } else { 0 };
        in_play.extend(more);
        if in_play.len() == 3 || (!in_play.is_empty() && quiet > 25) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!in_play.is_empty());
    for game in in_play.values() {
        first_move(&mut guests, game).await;
    }
    app.restart().await;
    let mut rooms = Vec::new();
    for g in &mut guests {
        g.ws.closed().await;
        g.ws = app.ws(&g.token).await;
        let room = g.ws.enter(ROOM).await;
        assert_eq!(room["type"], "room", "{room}");
        rooms.push(room);
    }
    // What is in play now is what the room shows (a game may have been paired just before
    // the restart, its start told to the sockets that closed): each seen before at its ply.
    let mut unmoved = HashSet::new();
    in_play = HashMap::new();
    for table in rooms.last().unwrap()["tables"].as_array().unwrap() {
        let game = &table["game"];
        if game.is_null() || game["state"]["status"] != "playing" {
            continue;
        }
        let id = game["id"].as_str().unwrap().to_owned();
        let moves = game["moves"].as_array().unwrap().len();
        if seen.insert(id.clone()) {
            unmoved.insert(id.clone());
        } else {
            assert_eq!(moves, 1, "{table}");
        }
        in_play.insert(
            id,
            Game {
                table: table["id"].as_str().unwrap().to_owned(),
                players: ["south", "north"]
                    .map(|s| game["players"][s]["name"].as_str().unwrap().to_owned()),
                first: usize::from(game["first"] == "north"),
            },
        );
    }
    assert!(!in_play.is_empty());
    for (id, game) in &in_play {
        if unmoved.contains(id) {
            first_move(&mut guests, game).await;
        }
    }
    // Its end time passes while they are in play.
    app.clock.advance(3_600_000);
    let ending = tournament(&app, &id).await;
    assert_eq!(ending["status"], "ending", "{ending}");
    for (_, game) in in_play.drain() {
        end(&mut guests, &game).await;
        played.push((game.players.clone(), winner_of(&game.players)));
    }
    // The games in play counted; nothing new was paired; the winner is told.
    let over = loop {
        let m = guests[7].ws.next_of("tournament").await;
        if m["tournament"]["status"] == "finished" {
            break m;
        }
    };
    assert!(
        games_started(&mut guests, &mut seen).await.is_empty(),
        "nothing paired after the end"
    );
    assert_eq!(over["tournament"]["winner"]["name"], "Ade", "{over}");
    let done = tournament(&app, &id).await;
    assert_eq!(done["status"], "finished");
    let expected = recount(&played);
    let shown: HashMap<String, i64> = done["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["user"]["name"].as_str().unwrap().to_owned(),
                s["score"].as_i64().unwrap(),
            )
        })
        .collect();
    for (name, score) in &expected {
        assert_eq!(shown.get(name), Some(score), "{name}: {done}");
    }
    assert!(
        expected["Ade"] >= 11,
        "2 + 2 + 4 for three wins in a row, and a point a win for berserk: {expected:?}"
    );
    // A tournament's match resumed after the restart offered no rematch either.
    for g in &mut guests {
        for m in g.ws.heard_until_pong().await {
            assert!(m["type"] != "table" || m["rematch"].is_null(), "{m}");
        }
    }
    assert_eq!(done["standings"][0]["user"]["name"], "Ade");
}

#[actix_web::test]
async fn scheduling_checks_what_it_is_given_and_joining_what_is_allowed() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    for (body, field) in [
        (
            json!({"name": "x", "room": ROOM, "starts_at": "tomorrow", "ends_at": in_secs(&app, 60), "clock": "5m"}),
            "starts_at",
        ),
        (
            json!({"name": "x", "room": ROOM, "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 30), "clock": "5m"}),
            "ends_at",
        ),
        (
            json!({"name": "x", "room": ROOM, "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 90_000), "clock": "5m"}),
            "ends_at",
        ),
        (
            json!({"name": "x", "room": ROOM, "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 600), "clock": "7 minutes"}),
            "clock",
        ),
    ] {
        let (status, answer) = schedule(&app, body).await;
        assert_eq!(
            (status, answer["error"]["field"].as_str()),
            (400, Some(field)),
            "{answer}"
        );
    }
    let (status, _) = schedule(
        &app,
        json!({"name": "x", "room": ROOM, "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 600)}),
    )
    .await;
    assert_eq!(status, 400, "a clock is required");
    let (status, _) = schedule(
        &app,
        json!({"name": "x", "room": "nowhere", "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 600), "clock": "5m"}),
    )
    .await;
    assert_eq!(status, 404);

    // Open to one guest only; in the hotel's time zone (Lagos, UTC+1) written without one.
    let (_, bisi) = app.guest("Bisi").await;
    let (ade_token, _) = app.guest("Ade").await;
    let lagos = chrono::DateTime::from_timestamp_millis(
        i64::try_from(app.clock.now_ms()).unwrap() + 3_600_000 + 120_000,
    )
    .unwrap()
    .naive_utc()
    .format("%Y-%m-%dT%H:%M")
    .to_string();
    let (status, body) = schedule(
        &app,
        json!({"name": "Invitational", "room": ROOM, "starts_at": in_secs(&app, 60), "ends_at": lagos,
               "clock": "3+2", "invited": [bisi], "tables": ["surulere-games-lounge-2"]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let t = &body["tournament"];
    let ends = t["ends_at"].as_u64().unwrap();
    let now = app.clock.now_ms();
    assert!(
        ends > now + 60_000 && ends <= now + 180_000,
        "ends about two minutes from now: {t}"
    );
    let id = t["id"].as_str().unwrap();
    let (status, body) = app
        .call(
            "PUT",
            &format!("/api/v1/me/tournaments/{id}"),
            Some(&ade_token),
            None,
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("not_invited")),
        "{body}"
    );
    app.clock.advance(200_000);
    let (status, body) = app
        .call(
            "PUT",
            &format!("/api/v1/me/tournaments/{id}"),
            Some(&ade_token),
            None,
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("tournament_over")),
        "{body}"
    );
    let (status, _) = app
        .call("PUT", "/api/v1/me/tournaments/none", Some(&ade_token), None)
        .await;
    assert_eq!(status, 404);
    let admin = app.admin_token("ops");
    let (_, audit) = app.audit(&admin, crate::helpers::Page::default()).await;
    assert!(audit.to_string().contains("tournament.create"), "{audit}");
}

#[actix_web::test]
async fn joining_and_leaving_show_at_once_in_the_room_the_guests_list_and_the_standings() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    // Berserk takes half of a game's clock: a time per move has none.
    let (status, body) = schedule(
        &app,
        json!({"name": "x", "room": ROOM, "starts_at": in_secs(&app, 60),
               "ends_at": in_secs(&app, 600), "clock": "5m", "berserk": true}),
    )
    .await;
    assert_eq!(
        (status, body["error"]["field"].as_str()),
        (400, Some("berserk")),
        "{body}"
    );
    let (ade_token, _) = app.guest("Ade").await;
    let (bisi_token, _) = app.guest("Bisi").await;
    let mut ade = app.ws(&ade_token).await;
    ade.enter(ROOM).await;
    let (status, body) = schedule(
        &app,
        json!({"name": "Blitz", "room": ROOM, "starts_at": in_secs(&app, 60),
               "ends_at": in_secs(&app, 600), "clock": "3+2", "berserk": true}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["tournament"]["id"].as_str().unwrap().to_owned();
    // The room is told at once, not at its next read of the schedule (the clock stands).
    let told = ade.next_of("tournament").await;
    assert_eq!(told["tournament"]["players"], 0, "{told}");
    assert_eq!(told["tournament"]["berserk"], true, "{told}");

    let path = format!("/api/v1/me/tournaments/{id}");
    let (status, _) = app.call("PUT", &path, Some(&bisi_token), None).await;
    assert_eq!(status, 204);
    let told = ade.next_of("tournament").await;
    assert_eq!(told["tournament"]["players"], 1, "{told}");
    let (_, mine) = app
        .call("GET", "/api/v1/me/tournaments", Some(&bisi_token), None)
        .await;
    assert_eq!(mine["joined"], json!([id]), "{mine}");
    let (_, theirs) = app
        .call("GET", "/api/v1/me/tournaments", Some(&ade_token), None)
        .await;
    assert_eq!(theirs["joined"], json!([]), "{theirs}");
    // No game scored yet: listed all the same, with nothing.
    let t = tournament(&app, &id).await;
    assert_eq!(t["standings"][0]["user"]["name"], "Bisi", "{t}");
    assert_eq!(t["standings"][0]["score"], 0, "{t}");

    let (status, _) = app.call("DELETE", &path, Some(&bisi_token), None).await;
    assert_eq!(status, 204);
    let told = ade.next_of("tournament").await;
    assert_eq!(told["tournament"]["players"], 0, "{told}");
    let (_, mine) = app
        .call("GET", "/api/v1/me/tournaments", Some(&bisi_token), None)
        .await;
    assert_eq!(mine["joined"], json!([]), "{mine}");
    let (status, _) = app.call("GET", "/api/v1/me/tournaments", None, None).await;
    assert_eq!(status, 401);
}
