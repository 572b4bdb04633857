//! Who receives what: a game's moves go to its players and to those watching its table
//! (`watch`, `unwatch`); everyone in the room sees seats, games starting and ending, and where
//! the games stand every few seconds (`table_status`); messages queued together go out in one
//! frame.

use serde_json::{json, Value};

use crate::helpers::ws::seat_of;
use crate::helpers::{game_between_two, TestApp, TestDb, Ws};

const ROOM: &str = "surulere-games-lounge";
const TABLE: &str = "surulere-games-lounge-1";

/// Everything the room sends `ws` until it has answered two `sync`s, the second asked after
/// the first was answered: all the room had to say by then (a clock moved before is seen to
/// by then too), whatever order it woke in.
async fn heard_by_now(ws: &mut Ws) -> Vec<Value> {
    let mut seen = Vec::new();
    for round in ["first", "second"] {
        ws.send(json!({"type": "sync", "table": TABLE, "version": 0, "ref": round}))
            .await;
        loop {
            let m = ws.next().await;
            if m["type"] == "missed" && m["ref"] == round {
                break;
            }
            seen.push(m);
        }
    }
    seen
}

fn moves_in(seen: &[Value]) -> usize {
    seen.iter().filter(|m| m["type"] == "game_state").count()
}

/// Whoever is to move in `state` plays its first legal pit; both players read the move's
/// `game_state`, which is returned.
async fn play_one(a: &mut Ws, b: &mut Ws, a_seat: &str, state: &Value) -> Value {
    let pit = state["legal"][0].clone();
    let mover = if state["to_move"] == a_seat {
        &mut *a
    } else {
        &mut *b
    };
    mover
        .send(json!({"type": "move", "table": TABLE, "pit": pit}))
        .await;
    let moved = a.next_of("game_state").await;
    assert_eq!(b.next_of("game_state").await, moved);
    moved
}

#[actix_web::test]
async fn a_game_s_moves_reach_its_players_and_those_watching_its_table_only() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, mut b, _c, _, ade, started, _) = game_between_two(&app).await;
    let a_seat = seat_of(&started, &ade);
    let (token, _) = app.guest("Dayo").await;
    let mut d = app.ws(&token).await;
    let snapshot = d.enter(ROOM).await;
    let version = snapshot["tables"][0]["version"].as_u64().unwrap();

    // Not watching: Dayo is not sent the move.
    let first = play_one(&mut a, &mut b, a_seat, &started["state"]).await;
    assert_eq!(moves_in(&heard_by_now(&mut d).await), 0);

    // Watching from the version he has: the move he was not sent, then the next ones.
    d.send(json!({"type": "watch", "table": TABLE, "since": version, "ref": 1}))
        .await;
    let missed = d.next_of("missed").await;
    assert_eq!(missed["resync"], false, "{missed}");
    assert_eq!(missed["ref"], 1);
    assert_eq!(missed["events"], json!([first]));
    let second = play_one(&mut a, &mut b, a_seat, &first["state"]).await;
    assert_eq!(d.next_of("game_state").await, second);

    // Unwatched: nothing more.
    d.send(json!({"type": "unwatch"})).await;
    // (The room has heard the unwatch before the move is sent.)
    heard_by_now(&mut d).await;
    let third = play_one(&mut a, &mut b, a_seat, &second["state"]).await;
    assert_eq!(moves_in(&heard_by_now(&mut d).await), 0);

    // Watching without a version: the whole table, moves and all.
    d.send(json!({"type": "watch", "table": TABLE})).await;
    let missed = d.next_of("missed").await;
    assert_eq!(missed["resync"], true, "{missed}");
    assert_eq!(missed["version"], third["version"]);
    assert_eq!(
        missed["snapshot"]["game"]["moves"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(missed["snapshot"]["game"]["state"], third["state"]);

    // A table that is not here is refused, and the watch stays where it was.
    d.send(json!({"type": "watch", "table": "nowhere", "ref": 2}))
        .await;
    let refused = d.next_of("error").await;
    assert_eq!(refused["code"], "no_such_table");
    assert_eq!(refused["ref"], 2);
    let fourth = play_one(&mut a, &mut b, a_seat, &third["state"]).await;
    assert_eq!(d.next_of("game_state").await, fourth);

    // A player watching another table still receives their own game's moves.
    a.send(json!({"type": "watch", "table": "surulere-games-lounge-2"}))
        .await;
    a.next_of("missed").await;
    play_one(&mut a, &mut b, a_seat, &fourth["state"]).await;
}

#[actix_web::test]
async fn the_rest_of_a_table_reaches_everyone_and_where_its_game_stands_every_few_seconds() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, mut b, _c, _, ade, started, _) = game_between_two(&app).await;
    let a_seat = seat_of(&started, &ade);
    let (token, _) = app.guest("Dayo").await;
    let mut d = app.ws(&token).await;
    d.enter(ROOM).await;
    let status_of = |moved: &Value| {
        json!([{"table": TABLE, "game_id": started["game_id"], "to_move": moved["state"]["to_move"],
                "stores": moved["state"]["stores"], "ply": moved["state"]["ply"],
                "clock": null, "version": moved["version"]}])
    };
    let no_status = |seen: Vec<Value>| {
        assert!(
            !seen.iter().any(|m| m["type"] == "table_status"),
            "{seen:?}"
        )
    };
    let first = play_one(&mut a, &mut b, a_seat, &started["state"]).await;
    let second = play_one(&mut a, &mut b, a_seat, &first["state"]).await;
    // A room tells it at most every `world.status_every_secs` (5), at its own point in that
    // interval: within 5 s, whatever the point.
    app.clock.advance(5_000);
    let status = d.next_of("table_status").await;
    assert_eq!(status["room"], ROOM);
    assert_eq!(status["tables"], status_of(&second));
    // No move since: nothing to tell.
    app.clock.advance(10_000);
    no_status(heard_by_now(&mut d).await);
    // A move long after the last: told at the next tick. The next move, within 5 s of that:
    // not before the 5 s are up.
    let third = play_one(&mut a, &mut b, a_seat, &second["state"]).await;
    app.clock.advance(1);
    assert_eq!(d.next_of("table_status").await["tables"], status_of(&third));
    let fourth = play_one(&mut a, &mut b, a_seat, &third["state"]).await;
    app.clock.advance(4_000);
    no_status(heard_by_now(&mut d).await);
    app.clock.advance(1_000);
    assert_eq!(
        d.next_of("table_status").await["tables"],
        status_of(&fourth)
    );

    // The game's end reaches everyone, watching or not.
    a.send(json!({"type": "resign", "table": TABLE})).await;
    let over = d.next_of("game_over").await;
    assert_eq!(over["table"], TABLE);
    assert!(over["version"].as_u64() > fourth["version"].as_u64());
}

#[actix_web::test]
async fn messages_queued_together_go_out_in_one_frame() {
    // The room's task and the connection's run on different threads: a flush window of 10 ms
    // lets the room queue all it says at once before the connection writes. Three tries, so a
    // thread paused for longer than that once does not fail the test; messages that never
    // go together do.
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__WS_FLUSH_MICROS", "10000"),
        ],
    )
    .await;
    for (name, by_protocol) in [("Ade", true), ("Bisi", false)] {
        let (token, _) = app.guest(name).await;
        let mut ws = if by_protocol {
            app.ws_batched(&token).await
        } else {
            app.ws_batched_by_query(&token).await
        };
        let since = tables_since(&ws.enter(ROOM).await);
        // Entering again with `since` for its three tables: the snapshot and the three
        // answers are queued at once, and written as one frame, in order.
        let mut tries = Vec::new();
        for _ in 0..3 {
            let (frames, batches) = (ws.frames, ws.batches);
            ws.send(json!({"type": "enter", "room": ROOM, "since": since}))
                .await;
            assert_eq!(ws.next().await["type"], "room");
            for table in since.keys() {
                let missed = ws.next().await;
                assert_eq!(missed["type"], "missed");
                assert_eq!(&missed["table"], table);
            }
            tries.push((ws.frames - frames, ws.batches - batches));
        }
        assert!(
            tries.contains(&(1, 1)),
            "{name}: frames and batches of each try: {tries:?}"
        );
    }
    // A client that did not ask gets the same messages one object a frame (its `Ws` fails the
    // test on an array).
    let (token, _) = app.guest("Chidi").await;
    let mut plain = app.ws(&token).await;
    let since = tables_since(&plain.enter(ROOM).await);
    for _ in 0..3 {
        plain
            .send(json!({"type": "enter", "room": ROOM, "since": since}))
            .await;
        assert_eq!(plain.next().await["type"], "room");
        for _ in since.keys() {
            assert_eq!(plain.next().await["type"], "missed");
        }
    }
    assert_eq!(plain.batches, 0);
}

/// Each table of a room snapshot and its version, as `enter`'s `since` takes them.
fn tables_since(snapshot: &Value) -> serde_json::Map<String, Value> {
    snapshot["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap().to_owned(), t["version"].clone()))
        .collect()
}

#[actix_web::test]
async fn the_last_move_of_a_match_reaches_both_players_as_the_seats_empty() {
    // A game of one ends the match with its last move, and the players stand up in the same
    // breath: the move still goes to them (the mover's reply, with its ref), watching or not.
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, mut b, _c, _, ade, started, _) = game_between_two(&app).await;
    let a_seat = seat_of(&started, &ade);
    let mut state = started["state"].clone();
    let mut plies = 0;
    while state["status"] == "playing" {
        state = play_one(&mut a, &mut b, a_seat, &state).await["state"].clone();
        plies += 1;
        assert!(plies < 2000, "the game ends");
    }
    for ws in [&mut a, &mut b] {
        assert_eq!(ws.next_of("game_over").await["table"], TABLE);
        let over = ws.next_of("match_over").await;
        assert_eq!(over["table"], TABLE);
    }
}
