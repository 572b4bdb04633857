//! Matches through a room and a database: a restart in the middle of a timed game, matches
//! stored with their history, games finished at the next start, outages recorded once, and a
//! host dropped for not reading. The match's rules themselves (clocks, series, start presses,
//! draws, resignations, rematches, settings) are checked beside the table, in
//! `src/world/table/tests/`.

use lounge::common::RoomId;
use lounge::common::{MatchId, TableId, UserId};
use lounge::world::{RoomConfig, RoomHandle, ServerClock};
use serde_json::{json, Value};

use crate::helpers::world::{config, lounge_world, lounge_world_resumed, two_people, user, Person};
use crate::helpers::{Page, TestDb};

/// The room's config on a hand-driven clock.
fn on_hand_clock() -> (RoomConfig, ServerClock) {
    let clock = ServerClock::manual_from_now();
    (
        RoomConfig {
            clock: clock.clone(),
            ..config()
        },
        clock,
    )
}

/// Ade sits, sets the match and invites Bisi, who accepts: `game_started` as Ade sees it.
async fn start(room: &RoomHandle, ps: &mut [Person; 2], clock: &str, best_of: u8) -> Value {
    let [a, b] = ps;
    a.act(room, json!({"type": "sit", "table": "t1", "seat": "south"}))
        .await;
    a.act(
        room,
        json!({"type": "set_match", "table": "t1", "clock": clock, "best_of": best_of}),
    )
    .await;
    a.act(
        room,
        json!({"type": "invite", "table": "t1", "user": b.user.id}),
    )
    .await;
    let invitation = b.next_of("invitation").await;
    assert_eq!(invitation["settings"]["best_of"], best_of, "{invitation}");
    b.act(
        room,
        json!({"type": "respond", "invitation": invitation["id"], "accept": true}),
    )
    .await;
    a.next_of("game_started").await
}

/// Which of `ps` the user `id` is.
fn who(ps: &[Person; 2], id: &Value) -> usize {
    ps.iter()
        .position(|p| *id == p.user.id.as_str())
        .expect("one of the two")
}

/// (South, North) of a `game_started`, as indices into `ps`.
fn sides(ps: &[Person; 2], started: &Value) -> (usize, usize) {
    let south = who(ps, &started["players"]["south"]["id"]);
    (south, 1 - south)
}

async fn act(room: &RoomHandle, p: &Person, message: Value) {
    p.act(room, message).await;
}

#[actix_web::test]
async fn a_timed_game_resumes_after_a_restart_with_its_clocks_as_they_stood() {
    let db = TestDb::sqlite();
    let (config, clock) = on_hand_clock();
    let world = lounge_world(&db, config.clone());
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let mut ps = two_people(&db, &room).await;
    let started = start(&room, &mut ps, "5+0", 3).await;
    let (south, north) = sides(&ps, &started);
    clock.advance(20_000);
    act(
        &room,
        &ps[south],
        json!({"type": "move", "table": "t1", "pit": 2}),
    )
    .await;
    ps[north].next_of("game_state").await;
    // North thinks 10 s; then the service stops, and is back an hour later.
    clock.advance(10_000);
    let stopped = clock.now_ms();
    world.close().await;
    drop(ps);
    clock.advance(3_600_000);
    let world = lounge_world_resumed(&db, config);
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let mut b = Person::enter(&room, user_of(&started["players"]["north"]), 1024).await;
    let snapshot = b.next_of("room").await;
    let table = &snapshot["tables"][0];
    let c = &table["game"]["clock"];
    assert_eq!(c["south_ms"], 280_000, "{table}");
    assert_eq!(
        c["north_ms"], 290_000,
        "North lost the 10 s before, none of the hour"
    );
    assert_eq!(c["running"], "north");
    assert_eq!(table["match"]["game"], 1);
    assert_eq!(
        table["seats"]["north"]["id"],
        started["players"]["north"]["id"]
    );
    // A second outage in the same move: neither it nor the first is charged.
    clock.advance(4_000);
    world.close().await;
    drop(b);
    clock.advance(600_000);
    let world = lounge_world_resumed(
        &db,
        RoomConfig {
            clock: clock.clone(),
            ..crate::helpers::world::config()
        },
    );
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let mut b = Person::enter(&room, user_of(&started["players"]["north"]), 1024).await;
    let snapshot = b.next_of("room").await;
    let c = &snapshot["tables"][0]["game"]["clock"];
    assert_eq!(c["north_ms"], 286_000, "{c}");
    // The game goes on from there.
    clock.advance(5_000);
    b.act(&room, json!({"type": "move", "table": "t1", "pit": 1}))
        .await;
    let state = b.next_of("game_state").await;
    assert_eq!(state["state"]["ply"], 2);
    assert_eq!(state["clock"]["north_ms"], 281_000, "{state}");
    assert_eq!(state["clock"]["south_ms"], 280_000);
    // The outages are on the game's record.
    let record = db
        .store()
        .match_record(&MatchId::new(started["match"]["id"].as_str().unwrap()))
        .unwrap()
        .unwrap();
    let outages = &record.games[0].outages;
    assert_eq!(outages.len(), 2, "{outages:?}");
    assert_eq!(outages[0].stopped_ms as u64, stopped);
    assert_eq!(outages[0].resumed_ms as u64, stopped + 3_600_000);
    assert_eq!(
        (outages[1].resumed_ms - outages[1].stopped_ms) as u64,
        600_000
    );
}

/// A user from a message's user object.
fn user_of(v: &Value) -> lounge::world::User {
    lounge::world::User {
        id: UserId::new(v["id"].as_str().unwrap()),
        name: v["name"].as_str().unwrap().to_owned(),
        house: false,
        ratings: Default::default(),
    }
}

/// Over the WebSocket: `a` hosts a best of 3 at the lounge's first table and invites `b`;
/// the loser of each game resigns it until the match is over. The winner's id and the
/// `match_over`.
async fn play_best_of_three(
    a: &mut crate::helpers::Ws,
    b: &mut crate::helpers::Ws,
    b_id: &str,
    a_wins: bool,
) -> Value {
    let table = "surulere-games-lounge-1";
    a.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    a.send(json!({"type": "set_match", "table": table, "best_of": 3, "clock": "3+2"}))
        .await;
    a.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = b.next_of("invitation").await;
    b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    loop {
        let started = a.next_of("game_started").await;
        b.next_of("game_started").await;
        assert_eq!(started["clock"]["control"]["minutes"], 3);
        let loser = if a_wins { &mut *b } else { &mut *a };
        loser.send(json!({"type": "resign", "table": table})).await;
        let over = a.next_of("game_over").await;
        b.next_of("game_over").await;
        if over["match"]["status"] == "over" {
            let done = a.next_of("match_over").await;
            b.next_of("match_over").await;
            return done;
        }
        for p in [&mut *a, &mut *b] {
            p.send(json!({"type": "start", "table": table})).await;
        }
    }
}

#[actix_web::test]
async fn every_match_is_stored_with_a_history_and_a_head_to_head_over_http() {
    crate::helpers::on_both(|app| async move {
        let (ta, a) = app.guest("Ade").await;
        let (tb, b) = app.guest("Bisi").await;
        let (mut wa, mut wb) = (app.ws(&ta).await, app.ws(&tb).await);
        for w in [&mut wa, &mut wb] {
            w.enter("surulere-games-lounge").await;
        }
        let first = play_best_of_three(&mut wa, &mut wb, &b, true).await;
        assert_eq!(first["winner"]["id"], a.as_str());
        let second = play_best_of_three(&mut wa, &mut wb, &b, false).await;
        assert_eq!(second["winner"]["id"], b.as_str());
        let third = play_best_of_three(&mut wa, &mut wb, &b, true).await;

        let (status, history) = app.match_history(&a, Page::default()).await;
        assert_eq!(status, 200, "{history}");
        let matches = history["matches"].as_array().unwrap();
        assert_eq!(matches.len(), 3);
        assert_eq!(matches[0]["id"], third["match_id"], "newest first");
        let m = &matches[2];
        assert_eq!(m["id"], first["match_id"]);
        assert_eq!(m["status"], "won");
        assert_eq!(m["winner"]["id"], a.as_str());
        assert_eq!(m["best_of"], 3);
        assert_eq!(
            m["clock"],
            json!({"kind": "game", "minutes": 3, "increment_seconds": 2})
        );
        let a_first = m["players"][0]["id"] == a.as_str();
        let points = if a_first {
            json!([2.0, 0.0])
        } else {
            json!([0.0, 2.0])
        };
        assert_eq!(m["points"], points, "{m}");
        assert_eq!(m["end_reason"], "games");
        let games = m["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0]["number"], 1);
        assert_eq!(games[0]["end_reason"], "resigned");
        assert_ne!(
            games[0]["south_id"], games[1]["south_id"],
            "the first move swapped"
        );
        assert!(m["ended_at"].as_str().unwrap().ends_with('Z'));
        // Paged.
        let (_, page) = app.match_history(&a, Page::limit("2")).await;
        assert_eq!(page["matches"].as_array().unwrap().len(), 2);
        let next = page["next"].as_str().unwrap();
        let (_, rest) = app.match_history(&a, Page::limit("2").before(next)).await;
        assert_eq!(rest["matches"].as_array().unwrap().len(), 1);
        assert_eq!(rest["matches"][0]["id"], first["match_id"]);
        assert_eq!(rest["next"], Value::Null);
        let (_, all) = app.match_history(&a, Page::limit("3")).await;
        assert_eq!(all["matches"].as_array().unwrap().len(), 3);
        assert_eq!(all["next"], Value::Null, "no empty page after the last");
        // One match.
        let (status, one) = app.one_match(second["match_id"].as_str().unwrap()).await;
        assert_eq!(status, 200);
        assert_eq!(one["winner"]["id"], b.as_str());
        // Head to head, in the order asked.
        let (status, h2h) = app.head_to_head(&a, &b).await;
        assert_eq!(status, 200, "{h2h}");
        assert_eq!(h2h["users"][0]["id"], a.as_str());
        assert_eq!(
            h2h["matches"],
            json!({"played": 3, "won": [2, 1], "drawn": 0})
        );
        assert_eq!(
            h2h["games"],
            json!({"played": 6, "won": [4, 2], "drawn": 0})
        );
        let (_, h2h) = app.head_to_head(&b, &a).await;
        assert_eq!(h2h["matches"]["won"], json!([1, 2]));
        // Bad input gets a clear error.
        assert_eq!(app.match_history("nobody", Page::default()).await.0, 404);
        assert_eq!(app.one_match("nothing").await.0, 404);
        assert_eq!(app.head_to_head(&a, "nobody").await.0, 404);
        let (status, body) = app.match_history(&a, Page::limit("0")).await;
        assert_eq!(status, 400);
        assert!(body["error"]["message"].as_str().unwrap().contains("limit"));
    })
    .await;
}

/// The lounge with its table t1 stored, and two players.
fn stored_lounge(db: &TestDb) -> (lounge::world::User, lounge::world::User) {
    let room = lounge::store::RoomRow {
        id: RoomId::new("lounge"),
        name: "Lounge".into(),
        kind: lounge::common::RoomKind::Lounge,
        owner_id: None,
        created_at: crate::helpers::now(),
    };
    let table = lounge::store::TableRow {
        id: TableId::new("t1"),
        room_id: RoomId::new("lounge"),
        position: 1,
        rules: Default::default(),
        queue: None,
    };
    db.store().ensure_room(&room, &[table]).unwrap();
    (user(db, "Ade"), user(db, "Bisi"))
}

/// The lounge's match in play whose one game's last stored move ended it, the service
/// stopped before that end was stored: what the next start (or owner) must finish.
pub fn a_match_its_last_stored_move_ended(
    db: &TestDb,
) -> (lounge::store::MatchRow, lounge::store::GameRow) {
    use crate::helpers::now;
    use lounge::store::{GameRow, MatchRow};
    let store = db.store();
    let (a, b) = stored_lounge(db);
    // A game whose rules end it after one ply without a capture: its first move ends it,
    // and the service stopped before that end was stored.
    let mut rules = lounge::ayo::Preset::Lagos.rules();
    rules.set("no_capture_limit", "1").unwrap();
    let m = MatchRow {
        id: lounge::store::ordered_id().into(),
        table_id: TableId::new("t1"),
        first_id: a.id.clone(),
        second_id: b.id.clone(),
        house: false,
        best_of: 1,
        clock: lounge::ayo::clock::TimeControl::None,
        rules,
        status: lounge::store::MatchStatus::Playing,
        winner_id: None,
        end_reason: None,
        first_halves: 0,
        second_halves: 0,
        started_at: now(),
        ended_at: None,
        seats: Default::default(),
    };
    store.insert_match(&m).unwrap();
    let g = GameRow {
        id: lounge::store::new_id().into(),
        table_id: TableId::new("t1"),
        south_id: a.id.clone(),
        north_id: b.id.clone(),
        rules,
        house: false,
        status: lounge::ayo::Status::Playing,
        end_reason: None,
        started_at: now(),
        ended_at: None,
        match_id: Some(m.id.clone()),
        number: Some(1),
        clock_started_ms: None,
        first_side: lounge::ayo::Side::South,
    };
    store.insert_game(&g).unwrap();
    store.record_move(&g.id, 1, 1).unwrap();
    (m, g)
}

#[test]
fn a_game_its_last_stored_move_ended_is_finished_as_it_ended_at_the_next_start() {
    let db = TestDb::sqlite();
    let store = db.store();
    let world_config = config();
    let (m, g) = a_match_its_last_stored_move_ended(&db);
    let resumed =
        lounge::world::resumable(store, &world_config.clock, &world_config.results).unwrap();
    assert!(resumed.is_empty(), "nothing left in play");
    let game = store.game(&g.id).unwrap().unwrap();
    assert_eq!(game.end_reason.map(|r| r.word()), Some("no_capture_limit"));
    assert_ne!(game.status, lounge::ayo::Status::Playing);
    let record = store.match_record(&m.id).unwrap().unwrap();
    assert_ne!(record.row.status, lounge::store::MatchStatus::Playing);
    assert_eq!(record.row.end_reason.map(|r| r.word()), Some("games"));
}

#[test]
fn an_outage_recorded_again_by_a_start_that_failed_is_not_refunded_twice() {
    use crate::helpers::now;
    use lounge::store::GameRow;
    let db = TestDb::sqlite();
    let store = db.store();
    let (a, b) = stored_lounge(&db);
    let g = GameRow {
        id: lounge::store::new_id().into(),
        table_id: TableId::new("t1"),
        south_id: a.id,
        north_id: b.id,
        rules: Default::default(),
        house: false,
        status: lounge::ayo::Status::Playing,
        end_reason: None,
        started_at: now(),
        ended_at: None,
        match_id: None,
        number: None,
        clock_started_ms: Some(1_000),
        first_side: lounge::ayo::Side::South,
    };
    store.insert_game(&g).unwrap();
    // South's clock ran from 1 s; the heartbeat stopped at 11 s. A start at 100 s recorded
    // the outage and died before its first heartbeat; the next start is at 200 s.
    store.record_outage(&g.id, 11_000, 100_000).unwrap();
    let clock = store.stored_clock(&g, 11_000).unwrap();
    assert_eq!(clock.since_ms, 1_000);
    assert_eq!(
        clock.paused_ms, 0,
        "the outage now ending is not an earlier one"
    );
    store.record_outage(&g.id, 11_000, 200_000).unwrap();
    let record: Vec<_> = store
        .stored_clock(&g, 300_000)
        .map(|c| c.paused_ms)
        .into_iter()
        .collect();
    assert_eq!(
        record,
        [189_000],
        "one outage, to the start that came through"
    );
}

#[actix_web::test]
async fn nobody_back_after_a_restart_calls_the_game_off_and_blames_nobody() {
    let db = TestDb::sqlite();
    let clock = lounge::common::ServerClock::manual_from_now();
    let config = RoomConfig {
        clock: clock.clone(),
        ..config()
    };
    let world = lounge_world(&db, config.clone());
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let mut ps = two_people(&db, &room).await;
    let started = start(&room, &mut ps, "none", 3).await;
    world.close().await;
    drop(ps);
    let world = lounge_world_resumed(&db, config);
    let room = world.room(&RoomId::new("lounge")).unwrap();
    // Someone else watches; neither player comes back within the grace.
    let mut onlooker = Person::enter(&room, user(&db, "Chidi"), 1024).await;
    onlooker.next_of("room").await;
    clock.advance(60_000);
    let over = onlooker.next_of("game_over").await;
    assert_eq!(over["result"], "draw", "{over}");
    assert_eq!(over["reason"], "abandoned");
    let done = onlooker.next_of("match_over").await;
    assert_eq!(done["match_id"], started["match"]["id"]);
    assert_eq!(
        done["winner"],
        Value::Null,
        "level, and nobody to blame: {done}"
    );
    assert_eq!(done["reason"], "abandoned");
}

#[actix_web::test]
async fn a_host_dropped_for_not_reading_gives_up_the_seat_and_the_invitation() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap();
    // The host's queue holds the snapshot and a few frames; it never reads.
    let host = Person::enter(&room, user(&db, "Slow"), 4).await;
    let mut b = Person::enter(&room, user(&db, "Bisi"), 1024).await;
    b.next_of("room").await;
    host.act(
        &room,
        json!({"type": "sit", "table": "t1", "seat": "south"}),
    )
    .await;
    host.act(
        &room,
        json!({"type": "invite", "table": "t1", "user": b.user.id}),
    )
    .await;
    let invitation = b.next_of("invitation").await;
    for i in 0..10 {
        b.act(&room, json!({"type": "chat", "text": format!("line {i}")}))
            .await;
    }
    assert_eq!(
        b.next_of("occupant_left").await["user"]["id"],
        host.user.id.as_str()
    );
    let table = b.next_of("table").await;
    assert_eq!(table["seats"]["south"], Value::Null, "{table}");
    b.act(
        &room,
        json!({"type": "respond", "invitation": invitation["id"], "accept": true}),
    )
    .await;
    assert_eq!(b.next_of("error").await["code"], "no_such_invitation");
    drop(host);
}
