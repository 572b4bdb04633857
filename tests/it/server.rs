//! The service over HTTP and WebSocket, on SQLite and PostgreSQL: a real server on a free port,
//! real clients.

use awc::ws::Frame;
use lounge::common::GameId;
use serde_json::{json, Value};

/// Moved to `helpers`; still named here for browser.rs.
pub use crate::helpers::TestApp;
use crate::helpers::{game_between_two, house_game, on_both, play_out, TestDb};

#[actix_web::test]
async fn health_readiness_and_a_json_404() {
    on_both(|app| async move {
        assert_eq!(app.healthz().await.0, 200);
        assert_eq!(app.readyz().await, (200, json!({"status": "ready"})));
        let (status, body) = app.call("GET", "/api/v1/nothing", None, None).await;
        assert_eq!(status, 404);
        assert_eq!(body["error"]["code"], "not_found");
    })
    .await;
}

#[actix_web::test]
async fn guests_sign_in_with_a_valid_name() {
    on_both(|app| async move {
        let (status, body) = app.sign_in_guest(" Tunde ").await;
        assert_eq!(status, 201);
        assert_eq!(body["user"]["name"], "Tunde");
        assert!(body["token"].as_str().unwrap().split('.').count() == 3);
        for bad in [
            "",
            "x",
            "a name far too long for any avatar",
            "<script>",
            "two  spaces",
        ] {
            let (status, body) = app.sign_in_guest(bad).await;
            assert_eq!(status, 400, "{bad}");
            assert_eq!(body["error"]["code"], "invalid_name", "{bad}");
        }
        let (status, body) = app.sign_in_guest_with(json!({"nom": "Tunde"})).await;
        assert_eq!(status, 400);
        assert_eq!(body["error"]["code"], "invalid_field");
        assert_eq!(body["error"]["field"], "name");
        // serde would read the struct from an array; the body is documented as an object.
        for body in [
            json!(["Array Name"]),
            json!("Array Name"),
            json!(7),
            json!(null),
        ] {
            let (status, answer) = app.sign_in_guest_with(body.clone()).await;
            assert_eq!(status, 400, "{body}: {answer}");
            assert_eq!(answer["error"]["code"], "bad_request", "{body}");
        }
        let (status, body) = app.sign_in_guest("Array Name").await;
        assert_eq!(status, 201, "nothing was made of the array: {body}");
    })
    .await;
}

#[actix_web::test]
async fn the_hotel_is_seeded_with_the_lounge_and_its_three_tables() {
    on_both(|app| async move {
        let (status, body) = app.rooms().await;
        assert_eq!(status, 200);
        let rooms = body["rooms"].as_array().unwrap();
        let lounge = rooms
            .iter()
            .find(|r| r["id"] == "surulere-games-lounge")
            .expect("the lounge");
        assert_eq!(lounge["kind"], "lounge");
        assert_eq!(lounge["tables"].as_array().unwrap().len(), 3);
        let gist = rooms
            .iter()
            .find(|r| r["id"] == "gist-lounge")
            .expect("the Gist Lounge");
        assert_eq!(gist["tables"], json!([]));
    })
    .await;
}

#[actix_web::test]
async fn the_socket_refuses_missing_forged_and_expired_tokens_before_the_upgrade() {
    on_both(|app| async move {
        let (token, _) = app.guest("Tunde").await;
        assert_eq!(app.ws_status(None, None).await, 401);
        assert_eq!(app.ws_status(Some("not.a.jwt"), None).await, 401);
        let mut forged = token.clone();
        forged.pop();
        forged.push(if token.ends_with('A') { 'B' } else { 'A' });
        assert_eq!(app.ws_status(Some(&forged), None).await, 401);
        // Signed with another secret.
        let other = lounge::http::auth::Auth::new(&lounge::config::AuthSettings {
            secret: "another-secret-of-enough-length-32".into(),
            issuer: "lagos-hotel-lounge".into(),
            token_ttl_secs: 60,
            ..Default::default()
        })
        .unwrap();
        let alien = other
            .issue(
                &lounge::http::auth::Subject::Player(lounge::common::UserId::new("u")),
                "Tunde",
                None,
            )
            .unwrap();
        assert_eq!(app.ws_status(Some(&alien), None).await, 401);
        assert_eq!(app.ws_status(None, Some(&token)).await, 101);
        assert_eq!(app.ws_status(Some(&token), None).await, 101);
    })
    .await;
}

/// None of the three clients asks for batches: each reads every frame as one JSON object and
/// fails the test on anything else (`helpers::ws::messages_of`), through a whole game.
#[actix_web::test]
async fn two_players_meet_in_the_lounge_and_play_a_whole_game_an_onlooker_watching_sees_every_move()
{
    on_both(|app| async move {
        let (ta, a_id) = app.guest("Ade").await;
        let (tb, b_id) = app.guest("Bisi").await;
        let (tc, _) = app.guest("Chidi").await;
        let (mut a, mut b, mut c) = (app.ws(&ta).await, app.ws(&tb).await, app.ws(&tc).await);
        for ws in [&mut a, &mut b, &mut c] {
            ws.send(json!({"type": "enter", "room": "surulere-games-lounge", "ref": 1}))
                .await;
            let room = ws.next_of("room").await;
            assert_eq!(room["tables"].as_array().unwrap().len(), 3);
        }
        a.send(json!({"type": "chat", "text": "who plays?"})).await;
        assert_eq!(c.next_of("chat").await["text"], "who plays?");

        let table = "surulere-games-lounge-1";
        a.send(json!({"type": "sit", "table": table, "seat": "south"}))
            .await;
        a.send(json!({"type": "invite", "table": table, "user": b_id, "ref": "inv"}))
            .await;
        let sent = a.next_of("invitation_sent").await;
        assert_eq!(sent["ref"], "inv");
        let invitation = b.next_of("invitation").await;
        assert_eq!(invitation["from"]["id"], a_id);
        b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
            .await;

        let started = c.next_of("game_started").await;
        c.send(json!({"type": "watch", "table": table, "since": started["version"]}))
            .await;
        assert_eq!(c.next_of("missed").await["events"], json!([]));
        let game_id = started["game_id"].as_str().unwrap().to_owned();
        let south = started["players"]["south"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut state = started["state"].clone();
        let mut moves = 0;
        // Play to the end: each side sows its first legal pit.
        let a_is_south = south == a_id;
        while state["status"] == "playing" {
            let south_to_move = state["to_move"] == "south";
            let player = if south_to_move == a_is_south {
                &mut a
            } else {
                &mut b
            };
            let pit = state["legal"][0].clone();
            player
                .send(json!({"type": "move", "table": table, "pit": pit, "ref": moves}))
                .await;
            let update = c.next_of("game_state").await;
            assert_eq!(update["game_id"], game_id.as_str());
            assert_eq!(update["last_move"]["pit"], pit);
            // The players see it too, and read as they go: a client that never reads fills
            // its socket and is dropped for it (tests/it/floods.rs), which is not this test.
            for player in [&mut a, &mut b] {
                let seen = player.next_of("game_state").await;
                assert_eq!(seen["state"], update["state"]);
            }
            state = update["state"].clone();
            moves += 1;
            assert!(moves < 2000, "the game ends");
        }
        let over = c.next_of("game_over").await;
        assert_eq!(over["game_id"], game_id.as_str());
        assert_eq!(over["result"], state["status"]);
        // A win between two guests new today does not count (tests/it/wall.rs); a draw has no
        // win to count.
        assert_eq!(over["counts_for_champions"], false);
        let why = if over["result"] == "draw" {
            "no_win"
        } else {
            "new_account"
        };
        assert_eq!(over["wall"]["reason"], why, "{over}");
        let stored = app
            .db
            .store()
            .moves(&GameId::new(game_id.as_str()))
            .unwrap();
        assert_eq!(stored.len(), moves, "every move is stored");
        let row = app
            .db
            .store()
            .game(&GameId::new(game_id.as_str()))
            .unwrap()
            .unwrap();
        assert_eq!(
            lounge::store::status_word(row.status),
            state["status"].as_str().unwrap()
        );
    })
    .await;
}

#[actix_web::test]
async fn bad_input_gets_an_error_with_its_ref_and_the_connection_stays() {
    on_both(|app| async move {
        let (token, _) = app.guest("Tunde").await;
        let mut ws = app.ws(&token).await;
        ws.send_raw("{not json").await;
        assert_eq!(ws.next().await["code"], "bad_json");
        ws.send(json!({"type": "dance", "ref": 7})).await;
        let e = ws.next().await;
        assert_eq!(
            (e["code"].clone(), e["ref"].clone()),
            (json!("unknown_type"), json!(7))
        );
        ws.send(json!({"type": "sit", "ref": "s"})).await;
        let e = ws.next().await;
        assert_eq!(
            (e["code"].clone(), e["ref"].clone()),
            (json!("bad_message"), json!("s"))
        );
        ws.send(json!({"type": "sit", "table": "t", "seat": "south", "ref": 1}))
            .await;
        assert_eq!(ws.next().await["code"], "not_in_room");
        ws.send(json!({"type": "enter", "room": "nowhere"})).await;
        assert_eq!(ws.next().await["code"], "no_such_room");
        ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
            .await;
        ws.next_of("room").await;
        ws.send(json!({"type": "sit", "table": "no-table", "seat": "south", "ref": 2}))
            .await;
        assert_eq!(ws.next().await["code"], "no_such_table");
        ws.send(json!({"type": "move", "table": "surulere-games-lounge-1", "pit": 9, "ref": 3}))
            .await;
        assert_eq!(ws.next().await["code"], "bad_message");
        ws.send(json!({"type": "move", "table": "surulere-games-lounge-1", "pit": 1, "ref": 4}))
            .await;
        let e = ws.next().await;
        assert_eq!(
            (e["code"].clone(), e["ref"].clone()),
            (json!("no_game"), json!(4))
        );
        ws.send(json!({"type": "ping", "ref": "p"})).await;
        assert_eq!(ws.next().await, json!({"type": "pong", "ref": "p"}));
    })
    .await;
}

#[actix_web::test]
async fn a_frame_over_the_size_limit_closes_the_connection() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, _) = app.guest("Tunde").await;
    let mut ws = app.ws(&token).await;
    let big = format!(
        "{{\"type\":\"chat\",\"text\":\"{}\"}}",
        "x".repeat(lounge::http::MAX_FRAME_BYTES + 10)
    );
    ws.send_raw(&big).await;
    assert_eq!(ws.closed().await, Some(1009));
}

#[actix_web::test]
async fn a_flooding_client_is_told_then_closed_with_1008() {
    let app = TestApp::spawn_with(TestDb::sqlite(), &[]).await;
    let (token, _) = app.guest("Tunde").await;
    let mut ws = app.ws(&token).await;
    for i in 0..200 {
        ws.send(json!({"type": "ping", "ref": i})).await;
    }
    let mut limited = false;
    loop {
        match ws.frame().await {
            Some(Ok(Frame::Text(t))) => {
                limited |= crate::helpers::ws::messages(&t)
                    .iter()
                    .any(|m| m["code"] == "rate_limited")
            }
            Some(Ok(Frame::Close(reason))) => {
                assert_eq!(reason.map(|r| u16::from(r.code)), Some(1008));
                break;
            }
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    }
    assert!(limited);
}

#[actix_web::test]
async fn a_second_connection_takes_the_first_over_and_gets_the_room() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, _) = app.guest("Tunde").await;
    let mut first = app.ws(&token).await;
    first
        .send(json!({"type": "enter", "room": "gist-lounge"}))
        .await;
    first.next_of("room").await;
    let mut second = app.ws(&token).await;
    let room = second.next_of("room").await;
    assert_eq!(room["room"]["id"], "gist-lounge");
    assert_eq!(first.next_of("replaced").await["type"], "replaced");
    first.closed().await;
    second
        .send(json!({"type": "chat", "text": "still here"}))
        .await;
    assert_eq!(second.next_of("chat").await["text"], "still here");
}

#[actix_web::test]
async fn a_player_who_drops_keeps_the_seat_for_the_grace_then_loses_as_abandoned() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_WORLD__GRACE_SECS", "60"),
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
        ],
    )
    .await;
    let (a, _b, mut c, _, a_id, started, _) = game_between_two(&app).await;
    let a_side = if started["players"]["south"]["id"] == a_id.as_str() {
        "south"
    } else {
        "north"
    };
    drop(a);
    let left = c.next_of("occupant_left").await;
    assert_eq!(left["user"]["id"], a_id.as_str());
    // The grace runs out on the server's clock.
    app.clock.advance(60_000);
    let over = c.next_of("game_over").await;
    assert_eq!(over["reason"], "abandoned");
    let winner = if a_side == "south" {
        "north_won"
    } else {
        "south_won"
    };
    assert_eq!(over["result"], winner);
    let stored = app
        .db
        .store()
        .game(&GameId::new(over["game_id"].as_str().unwrap()))
        .unwrap()
        .unwrap();
    assert_eq!(stored.end_reason.map(|r| r.word()), Some("abandoned"));
}

#[actix_web::test]
async fn a_player_back_within_the_grace_finds_the_game_and_plays_on() {
    on_both(|app| async move {
        let (mut a, mut b, _c, token, a_id, started, _) = game_between_two(&app).await;
        let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
        let table = "surulere-games-lounge-1";
        let south = if a_is_south { &mut a } else { &mut b };
        south
            .send(json!({"type": "move", "table": table, "pit": 3}))
            .await;
        south.next_of("game_state").await;
        drop(a);
        let mut back = app.ws(&token).await;
        back.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
            .await;
        let room = back.next_of("room").await;
        let game = &room["tables"][0]["game"];
        assert_eq!(
            game["state"]["ply"], 1,
            "the game is there at the same ply: {room}"
        );
        // North moves next: Ade (back) or Bisi; either way Ade sees it.
        let north = if a_is_south { &mut b } else { &mut back };
        north
            .send(json!({"type": "move", "table": table, "pit": 1}))
            .await;
        assert_eq!(back.next_of("game_state").await["state"]["ply"], 2);
    })
    .await;
}

#[actix_web::test]
async fn metrics_count_connections_games_and_moves() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, mut b, _c, _, a_id, started, _) = game_between_two(&app).await;
    let south = if started["players"]["south"]["id"] == a_id.as_str() {
        &mut a
    } else {
        &mut b
    };
    south
        .send(json!({"type": "move", "table": "surulere-games-lounge-1", "pit": 3}))
        .await;
    south.next_of("game_state").await;
    let (status, text) = app.metrics().await;
    assert_eq!(status, 200);
    let value = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {text}"))
    };
    // Other tests in this process count too: at least ours.
    assert!(value("lounge_connections") >= 3.0);
    assert!(value("lounge_games_in_play") >= 1.0);
    assert!(value("lounge_moves_total") >= 1.0);
    assert!(value("lounge_rooms") >= 2.0);
    assert!(value("lounge_occupants") >= 3.0);
}

#[actix_web::test]
async fn a_move_sent_again_after_a_lost_reply_is_played_once() {
    on_both(|app| async move {
        let (mut a, mut b, _c, _, a_id, started, _) = game_between_two(&app).await;
        let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
        let game_id = started["game_id"].as_str().unwrap().to_owned();
        let table = "surulere-games-lounge-1";
        let south = if a_is_south { &mut a } else { &mut b };
        // Every table event carries the table's version; the latest is the one to play from.
        let version = started["version"].clone();
        let first =
            json!({"type": "move", "table": table, "pit": 3, "ref": "m1", "version": version});
        south.send(first.clone()).await;
        let reply = south.next_of("game_state").await;
        assert_eq!(reply["ref"], "m1");
        // The same move again, by ref and by version: the same reply, nothing played.
        south.send(first.clone()).await;
        assert_eq!(south.next_of("game_state").await, reply);
        south
            .send(json!({"type": "move", "table": table, "pit": 3, "version": version}))
            .await;
        assert_eq!(south.next_of("game_state").await, reply);
        assert_eq!(
            app.db
                .store()
                .moves(&GameId::new(game_id.as_str()))
                .unwrap(),
            [3]
        );
        // A different move from an old version is refused with the table as it is now.
        south
            .send(
                json!({"type": "move", "table": table, "pit": 4, "version": version, "ref": "old"}),
            )
            .await;
        let current = south.next_of("table").await;
        assert_eq!(current["version"], reply["version"]);
        let e = south.next_of("error").await;
        assert_eq!(
            (e["code"].clone(), e["ref"].clone()),
            (json!("stale_version"), json!("old"))
        );
    })
    .await;
}

#[actix_web::test]
async fn an_onlooker_back_with_the_last_version_it_saw_gets_what_it_missed() {
    on_both(|app| async move {
        let (mut a, mut b, c, _, a_id, started, _) = game_between_two(&app).await;
        let seen = started["version"]
            .as_u64()
            .expect("game_started has a version");
        let (tc, _) = (app.guest("Chidi again").await.0, ());
        drop(c);
        let table = "surulere-games-lounge-1";
        let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
        let (south, north) = if a_is_south {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        south
            .send(json!({"type": "move", "table": table, "pit": 3, "ref": "m1"}))
            .await;
        let first = south.next_of("game_state").await;
        assert_eq!(first["ref"], "m1");
        north
            .send(json!({"type": "move", "table": table, "pit": 1, "ref": "m2"}))
            .await;
        let second = loop {
            let m = north.next_of("game_state").await;
            if m["ref"] == "m2" {
                break m;
            }
        };

        let mut back = app.ws(&tc).await;
        back.send(
            json!({"type": "enter", "room": "surulere-games-lounge", "since": {table: seen}}),
        )
        .await;
        let room = back.next_of("room").await;
        let missed = back.next_of("missed").await;
        assert_eq!(missed["resync"], false, "{missed}");
        assert_eq!(missed["since"], seen);
        assert_eq!(missed["version"], room["tables"][0]["version"]);
        let events = missed["events"].as_array().unwrap();
        assert_eq!(events.len(), 2, "{missed}");
        assert_eq!(events[0], first);
        assert_eq!(events[1], second);

        // Too old a version (or one this table never had): the whole table.
        back.send(json!({"type": "sync", "table": table, "version": seen - 1000, "ref": 7}))
            .await;
        let resync = back.next_of("missed").await;
        assert_eq!(resync["ref"], 7);
        assert_eq!(resync["resync"], true);
        assert_eq!(resync["events"], json!([]));
        assert_eq!(resync["snapshot"]["game"]["state"], second["state"]);

        // Up to date: nothing missed.
        back.send(json!({"type": "sync", "table": table, "version": second["version"]}))
            .await;
        let nothing = back.next_of("missed").await;
        assert_eq!(nothing["resync"], false);
        assert_eq!(nothing["events"], json!([]));

        back.send(json!({"type": "sync", "table": "nowhere", "version": 1, "ref": 8}))
            .await;
        let error = back.next_of("error").await;
        assert_eq!(
            (error["code"].clone(), error["ref"].clone()),
            (json!("no_such_table"), json!(8))
        );
    })
    .await;
}

#[actix_web::test]
async fn entering_the_room_one_is_in_again_keeps_the_seat_and_the_game() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _b, mut c, _, a_id, started, _) = game_between_two(&app).await;
    a.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    let room = a.next_of("room").await;
    assert_eq!(room["tables"][0]["game"]["id"], started["game_id"]);
    let seats = &room["tables"][0]["seats"];
    assert!(seats["south"]["id"] == a_id.as_str() || seats["north"]["id"] == a_id.as_str());
    // Nobody saw Ade leave.
    c.send(json!({"type": "ping", "ref": "p"})).await;
    loop {
        let m = c.next().await;
        assert_ne!(m["type"], "occupant_left", "{m}");
        assert_ne!(m["type"], "game_over", "{m}");
        if m["type"] == "pong" {
            break;
        }
    }
}

#[actix_web::test]
async fn a_game_against_baba_ayo_is_played_to_the_end_and_never_counts() {
    on_both(|app| async move {
        let (token, me) = app.guest("Tunde").await;
        let (tc, _) = app.guest("Chidi").await;
        let (mut ws, mut onlooker) = (app.ws(&token).await, app.ws(&tc).await);
        for w in [&mut ws, &mut onlooker] {
            w.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
                .await;
            w.next_of("room").await;
        }
        let table = "surulere-games-lounge-2";
        ws.send(json!({"type": "play_house", "table": table, "level": "champion"}))
            .await;
        let started = onlooker.next_of("game_started").await;
        assert_eq!(started["house"], true);
        let players = &started["players"];
        let (mine, house) = if players["south"]["id"] == me.as_str() {
            ("south", &players["north"])
        } else {
            ("north", &players["south"])
        };
        assert_eq!(house["house"], true, "{started}");
        assert_eq!(house["name"], "Baba Ayo");
        let over = play_out(&mut ws, table, mine, started["state"].clone()).await;
        assert_eq!(over["counts_for_champions"], false);
        // The onlooker saw the same game end.
        let seen = onlooker.next_of("game_over").await;
        assert_eq!(seen["game_id"], over["game_id"]);
        let game_id = over["game_id"].as_str().unwrap();
        let stored = app.db.store().game(&GameId::new(game_id)).unwrap().unwrap();
        assert!(stored.house);
        assert_eq!(
            lounge::store::status_word(stored.status),
            over["result"].as_str().unwrap()
        );
        let moves = app.db.store().moves(&GameId::new(game_id)).unwrap();
        assert_eq!(moves.len() as u64, over["state"]["ply"].as_u64().unwrap());
    })
    .await;
}

#[actix_web::test]
async fn play_house_is_refused_where_it_cannot_be() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _b, _c, _, _, _, _) = game_between_two(&app).await;
    let (tt, _) = app.guest("Tunde").await;
    let mut t = app.ws(&tt).await;
    t.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    t.next_of("room").await;
    let cases = [
        (
            json!({"type": "play_house", "table": "surulere-games-lounge-1", "level": "easy", "ref": 1}),
            "game_in_play",
        ),
        (
            json!({"type": "play_house", "table": "surulere-games-lounge-2", "level": "grandmaster", "ref": 2}),
            "bad_message",
        ),
        (
            json!({"type": "play_house", "table": "nowhere", "level": "easy", "ref": 3}),
            "no_such_table",
        ),
    ];
    for (message, code) in cases {
        let r = message["ref"].clone();
        t.send(message).await;
        let e = t.next_of("error").await;
        assert_eq!((e["code"].clone(), e["ref"].clone()), (json!(code), r));
    }
    // A player in a game cannot start another against the house.
    a.send(json!({"type": "play_house", "table": "surulere-games-lounge-2", "level": "easy", "ref": 4}))
        .await;
    assert_eq!(a.next_of("error").await["code"], "already_seated");
    // Someone sitting opposite: the seat is taken.
    t.send(json!({"type": "sit", "table": "surulere-games-lounge-3", "seat": "south"}))
        .await;
    let (tu, _) = app.guest("Uche").await;
    let mut u = app.ws(&tu).await;
    u.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    u.next_of("room").await;
    u.send(json!({"type": "sit", "table": "surulere-games-lounge-3", "seat": "north"}))
        .await;
    // Both seated: a game between the two people started, so the house cannot sit. (Waited
    // for: Uche's sit and Tunde's next message come over two sockets, in either order.)
    t.next_of("game_started").await;
    t.send(json!({"type": "play_house", "table": "surulere-games-lounge-3", "level": "easy", "ref": 5}))
        .await;
    assert_eq!(t.next_of("error").await["code"], "game_in_play");
    // A draw offered to Baba Ayo is declined at once.
    let (tv, _) = app.guest("Vera").await;
    let mut v = app.ws(&tv).await;
    v.send(json!({"type": "enter", "room": "gist-lounge"}))
        .await;
    v.next_of("room").await;
    v.send(json!({"type": "play_house", "table": "x", "level": "easy", "ref": 6}))
        .await;
    assert_eq!(v.next_of("error").await["code"], "no_such_table");
}

#[actix_web::test]
async fn baba_ayo_declines_a_draw() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut ws, mine, _, _) = house_game(&app, "normal").await;
    let table = "surulere-games-lounge-1";
    // Our turn, so no move of his can answer the offer before his judgement does.
    if mine == "north" {
        ws.next_of("game_state").await;
    }
    // Offered again and again while he judges the first: one judgement, the rest refused.
    for r in 1..=5 {
        ws.send(json!({"type": "offer_draw", "table": table, "ref": r}))
            .await;
    }
    // Each later one is refused: waiting for his answer, or just declined (he judges fast
    // here). One answer comes.
    let (mut refused, mut declined) = (0, 0);
    while refused < 4 || declined < 1 {
        let m = ws.next().await;
        match m["type"].as_str() {
            Some("error") => {
                assert!(
                    m["code"] == "draw_pending" || m["code"] == "draw_too_soon",
                    "{m}"
                );
                refused += 1;
            }
            Some("draw_declined") => {
                assert_eq!(m["table"], table);
                declined += 1;
            }
            _ => {}
        }
    }
    assert_eq!((refused, declined), (4, 1));
    // Declined: not again until a move is made.
    ws.send(json!({"type": "offer_draw", "table": table, "ref": 6}))
        .await;
    assert_eq!(ws.next_of("error").await["code"], "draw_too_soon");
    ws.send(json!({"type": "resign", "table": table})).await;
    let over = ws.next_of("game_over").await;
    assert_eq!(over["reason"], "resigned");
}

/// While Baba Ayo thinks (two seconds here), the room goes on: a chat sent after the player's
/// move comes back before his answer. (Past his opening book, which answers at once: every
/// position within four plies of the start.)
#[actix_web::test]
async fn the_room_goes_on_while_baba_ayo_thinks() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_HOUSE__CHAMPION_MS", "2000"),
        ],
    )
    .await;
    let (mut ws, mine, started, _) = house_game(&app, "champion").await;
    let table = "surulere-games-lounge-1";
    let mut state = started["state"].clone();
    loop {
        if state["to_move"] == mine {
            let pit = state["legal"][0].clone();
            ws.send(json!({"type": "move", "table": table, "pit": pit}))
                .await;
        } else if state["ply"].as_u64().unwrap() > 4 {
            break;
        }
        state = ws.next_of("game_state").await["state"].clone();
    }
    // Baba Ayo is to move out of his book and thinking.
    ws.send(json!({"type": "chat", "text": "your move, Baba"}))
        .await;
    loop {
        let m = ws.next().await;
        assert_ne!(
            m["type"], "game_state",
            "the house answered before the chat: {m}"
        );
        if m["type"] == "chat" {
            break;
        }
    }
    let answer = ws.next_of("game_state").await;
    assert_eq!(answer["state"]["ply"], state["ply"].as_u64().unwrap() + 1);
}

/// Baba Ayo stops thinking when his opponent resigns: with one place to think and ten minutes
/// a champion's move, a game against him at another table still gets its answers.
#[actix_web::test]
async fn baba_ayo_stops_thinking_when_his_opponent_resigns() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_HOUSE__CHAMPION_MS", "600000"),
            ("LOUNGE_HOUSE__MAX_THINKING", "1"),
        ],
    )
    .await;
    let (mut ws, mine, _, _) = house_game(&app, "champion").await;
    let table = "surulere-games-lounge-1";
    if mine == "south" {
        ws.send(json!({"type": "move", "table": table, "pit": 3}))
            .await;
        ws.next_of("game_state").await;
    }
    // He is thinking, for ten minutes, in the only place there is.
    ws.send(json!({"type": "resign", "table": table})).await;
    assert_eq!(ws.next_of("game_over").await["reason"], "resigned");
    let other = "surulere-games-lounge-2";
    ws.send(json!({"type": "play_house", "table": other, "level": "normal"}))
        .await;
    let started = ws.next_of("game_started").await;
    let (mine, his_first) = match started["players"]["south"]["house"].as_bool() {
        Some(true) => ("north", 1),
        _ => ("south", 2),
    };
    if mine == "south" {
        ws.send(json!({"type": "move", "table": other, "pit": 3}))
            .await;
    }
    loop {
        let state = ws.next_of("game_state").await;
        if state["table"] == other && state["state"]["ply"] == his_first {
            break;
        }
    }
}

#[actix_web::test]
async fn play_house_never_seats_anyone_opposite_someone_else() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (ta, a_id) = app.guest("Ade").await;
    let (tb, _) = app.guest("Bisi").await;
    let (mut a, mut b) = (app.ws(&ta).await, app.ws(&tb).await);
    for w in [&mut a, &mut b] {
        w.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
            .await;
        w.next_of("room").await;
    }
    let table = "surulere-games-lounge-1";
    a.send(json!({"type": "sit", "table": table, "seat": "north"}))
        .await;
    b.next_of("table").await;
    b.send(json!({"type": "play_house", "table": table, "level": "easy", "ref": 1}))
        .await;
    assert_eq!(b.next_of("error").await["code"], "seat_taken");
    // Bisi has no seat anywhere: another table is his to play the house at.
    b.send(json!({"type": "play_house", "table": "surulere-games-lounge-2", "level": "easy"}))
        .await;
    assert_eq!(b.next_of("game_started").await["house"], true);
    // Ade still sits alone at table 1.
    b.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    let room = b.next_of("room").await;
    assert_eq!(room["tables"][0]["seats"]["north"]["id"], a_id.as_str());
    assert_eq!(room["tables"][0]["seats"]["south"], Value::Null);
}

/// Baba Ayo answers in milliseconds; a move resent by its ref after that is still the same
/// move, answered again and not played twice.
#[actix_web::test]
async fn a_move_resent_after_baba_ayo_answered_is_not_played_again() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut ws, mine, started, _) = house_game(&app, "easy").await;
    let table = "surulere-games-lounge-1";
    let game_id = started["game_id"].as_str().unwrap().to_owned();
    let mut state = started["state"].clone();
    if mine == "north" {
        state = ws.next_of("game_state").await["state"].clone();
    }
    let pit = state["legal"][0].clone();
    let first = json!({"type": "move", "table": table, "pit": pit, "ref": "r1"});
    ws.send(first.clone()).await;
    let mine_reply = loop {
        let m = ws.next_of("game_state").await;
        if m["ref"] == "r1" {
            break m;
        }
    };
    // The house answers (unless the game ended).
    if !mine_reply["state"]["to_move"].is_null() {
        ws.next_of("game_state").await;
    }
    let stored = app
        .db
        .store()
        .moves(&GameId::new(game_id.as_str()))
        .unwrap()
        .len();
    ws.send(first).await;
    let again = loop {
        let m = ws.next().await;
        assert_ne!(m["type"], "error", "{m}");
        if m["type"] == "game_state" && m["ref"] == "r1" {
            break m;
        }
    };
    assert_eq!(again, mine_reply);
    assert_eq!(
        app.db
            .store()
            .moves(&GameId::new(game_id.as_str()))
            .unwrap()
            .len(),
        stored
    );
}
