//! Play someone now, over real sockets as a client written to docs/protocol.md sees it: guests
//! `seek` in the lounge, the room pairs them by rating at a free table, both accept and the
//! match starts; one who lets a pairing lapse cools down; one who leaves puts the other back;
//! Baba Ayo after a wait; the counts everyone sees. Time moves on the hand-driven clock.

use serde_json::{json, Value};

use crate::helpers::{TestApp, TestDb, Ws};

const ROOM: &str = "surulere-games-lounge";
/// `world.pairing_answer_secs`, `seek_cooldown_secs`, `seek_house_after_secs` as shipped.
const ANSWER_MS: u64 = 10_000;
const COOLDOWN_MS: u64 = 30_000;
const HOUSE_AFTER_MS: u64 = 45_000;

/// A rating in Abapa, sure (not provisional: shown without "?").
fn store_rating(db: &TestDb, user: &str, rating: f64) {
    use diesel::{Connection, RunQueryDsl};
    let sql = format!(
        "INSERT INTO ratings (user_id, family, rating, deviation, volatility, games, updated_at) \
         VALUES ('{user}', 'abapa', {rating}, 60.0, 0.06, 30, '2026-12-01 00:00:00')"
    );
    let lounge::store::DatabaseUrl::Sqlite(path) = &db.url else {
        panic!("these tests run on SQLite");
    };
    let mut conn = diesel::SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite");
    assert_eq!(
        diesel::sql_query(sql).execute(&mut conn).expect("a rating"),
        1
    );
}

/// A guest (rated `rating` in Abapa when given) in the lounge: their socket and id.
async fn guest_in(app: &TestApp, name: &str, rating: Option<f64>) -> (Ws, String) {
    let (token, id) = app.guest(name).await;
    if let Some(rating) = rating {
        store_rating(&app.db, &id, rating);
    }
    let mut ws = app.ws(&token).await;
    let room = ws.enter(ROOM).await;
    assert_eq!(room["type"], "room", "{room}");
    (ws, id)
}

/// Sends `seek` and reads its answer: `seeking`, or the error.
async fn seek(ws: &mut Ws, asked: Value) -> Value {
    let mut message = asked;
    message["type"] = json!("seek");
    message["ref"] = json!("seek");
    ws.send(message).await;
    loop {
        let m = ws.next().await;
        if m["ref"] == "seek" && (m["type"] == "seeking" || m["type"] == "error") {
            return m;
        }
    }
}

async fn answer(ws: &mut Ws, pairing: &Value, accept: bool) {
    ws.send(json!({"type": "pairing_answer", "pairing": pairing["pairing"], "accept": accept}))
        .await;
}

/// What the room sent `ws` before it answers a message sent now, of type `kind`: entering the
/// room one is in again is answered by the room itself, after whatever it did before.
async fn heard_of(ws: &mut Ws, kind: &str) -> Vec<Value> {
    ws.send(json!({"type": "enter", "room": ROOM, "ref": "heard"}))
        .await;
    let mut heard = Vec::new();
    loop {
        let m = ws.next().await;
        if m["type"] == "room" {
            return heard;
        }
        if m["type"] == kind {
            heard.push(m);
        }
    }
}

/// The next `seeks` whose counts are `counts`.
async fn counts_become(ws: &mut Ws, counts: Value) {
    loop {
        let m = ws.next_of("seeks").await;
        if m["counts"] == counts {
            assert_eq!(m["room"], ROOM);
            return;
        }
    }
}

#[actix_web::test]
async fn guests_are_paired_only_within_each_others_range_the_longest_waiting_first() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, a_id) = guest_in(&app, "Ade", Some(1500.0)).await;
    let (mut b, _) = guest_in(&app, "Bisi", Some(1900.0)).await;
    let (mut c, c_id) = guest_in(&app, "Chidi", Some(1550.0)).await;
    let (mut d, _) = guest_in(&app, "Dayo", Some(1560.0)).await;

    let seeking = seek(&mut a, json!({"family": "abapa", "max_rating": 1600})).await;
    assert_eq!(seeking["type"], "seeking", "{seeking}");
    assert_eq!(
        (&seeking["family"], &seeking["clock"], &seeking["rated"]),
        (&json!("abapa"), &json!("300s"), &json!(true)),
        "{seeking}"
    );
    assert_eq!(seeking["since"], app.clock.now_ms());
    // Bisi, 1900, is above Ade's range: nobody is paired.
    assert_eq!(
        seek(&mut b, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
    assert!(heard_of(&mut a, "pairing").await.is_empty());
    assert!(heard_of(&mut b, "pairing").await.is_empty());
    // Dayo (1560) would take Ade, but wants nobody below 1520 nor above 1700.
    let dayo = seek(
        &mut d,
        json!({"family": "abapa", "min_rating": 1520, "max_rating": 1700}),
    )
    .await;
    assert_eq!(dayo["type"], "seeking", "{dayo}");
    assert!(heard_of(&mut d, "pairing").await.is_empty());
    // Chidi (1550) is in Ade's range and in Dayo's: Ade, waiting longer, gets him.
    assert_eq!(
        seek(&mut c, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
    let to_a = a.next_of("pairing").await;
    let to_c = c.next_of("pairing").await;
    assert_eq!(to_a["opponent"]["id"], c_id.as_str(), "{to_a}");
    assert_eq!(to_c["opponent"]["id"], a_id.as_str(), "{to_c}");
    assert_eq!(to_a["pairing"], to_c["pairing"]);
    assert_eq!(to_a["table"], to_c["table"]);
    assert!(to_a["table"].as_str().unwrap().starts_with(ROOM), "{to_a}");
    assert_eq!(to_a["until"], app.clock.now_ms() + ANSWER_MS);
    assert_eq!(
        (&to_a["family"], &to_a["clock"]),
        (&json!("abapa"), &json!("300s"))
    );
    assert_eq!(to_a["opponent"]["ratings"]["abapa"], "1550", "{to_a}");
    assert!(heard_of(&mut b, "pairing").await.is_empty());
    assert!(heard_of(&mut d, "pairing").await.is_empty());
}

#[actix_web::test]
async fn both_accept_and_their_match_starts_at_a_free_table() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, a_id) = guest_in(&app, "Ade", None).await;
    let (mut b, b_id) = guest_in(&app, "Bisi", None).await;
    let (mut c, _) = guest_in(&app, "Chidi", None).await;
    // Chidi sits at the first table: it is not free.
    c.send(json!({"type": "sit", "table": format!("{ROOM}-1"), "seat": "south"}))
        .await;
    c.next_of("table").await;
    let refused = seek(&mut c, json!({"family": "abapa"})).await;
    assert_eq!(refused["code"], "already_seated", "{refused}");

    let casual = json!({"family": "abapa", "clock": "3+2", "rated": false});
    assert_eq!(seek(&mut a, casual.clone()).await["type"], "seeking");
    assert_eq!(seek(&mut b, casual).await["type"], "seeking");
    let pairing = a.next_of("pairing").await;
    b.next_of("pairing").await;
    let table = pairing["table"].as_str().unwrap().to_owned();
    assert_eq!(
        table,
        format!("{ROOM}-2"),
        "the first free table: {pairing}"
    );
    assert_eq!(
        (&pairing["clock"], &pairing["rated"]),
        (&json!("3+2"), &json!(false))
    );
    answer(&mut a, &pairing, true).await;
    // One accept starts nothing.
    assert!(heard_of(&mut a, "game_started").await.is_empty());
    answer(&mut b, &pairing, true).await;
    for (ws, ids) in [(&mut a, [&a_id, &b_id]), (&mut b, [&a_id, &b_id])] {
        let started = ws.next_of("game_started").await;
        assert_eq!(started["table"], table.as_str(), "{started}");
        let players = [
            started["players"]["south"]["id"].as_str().unwrap(),
            started["players"]["north"]["id"].as_str().unwrap(),
        ];
        assert!(
            ids.iter().all(|id| players.contains(&id.as_str())),
            "{started}"
        );
        assert_eq!(started["match"]["best_of"], 1);
        assert_eq!(started["clock"]["control"]["kind"], "game", "{started}");
        let over = ws.next_of("pairing_over").await;
        assert_eq!(
            over,
            json!({"type": "pairing_over", "pairing": pairing["pairing"], "reason": "started"})
        );
    }
    // Chidi watched it happen: one waiting, then nobody (those paired are not counted), then
    // the table as it started, casual.
    counts_become(
        &mut c,
        json!([{"family": "abapa", "clock": "3+2", "rated": false, "waiting": 1}]),
    )
    .await;
    counts_become(&mut c, json!([])).await;
    let shown = loop {
        let m = c.next_of("table").await;
        if m["id"] == table.as_str() && m["game"].is_object() {
            break m;
        }
    };
    assert_eq!(shown["settings"]["rated"], false, "{shown}");
    // Seated now: no seeking while playing.
    let refused = seek(&mut a, json!({"family": "abapa"})).await;
    assert_eq!(refused["code"], "already_seated", "{refused}");
}

#[actix_web::test]
async fn one_who_lets_a_pairing_lapse_cools_down_and_the_other_is_paired_again() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    let (mut b, _) = guest_in(&app, "Bisi", None).await;
    let (mut c, c_id) = guest_in(&app, "Chidi", None).await;
    seek(&mut a, json!({"family": "abapa"})).await;
    seek(&mut b, json!({"family": "abapa"})).await;
    let pairing = a.next_of("pairing").await;
    b.next_of("pairing").await;
    answer(&mut a, &pairing, true).await;
    // Bisi says nothing; the answer window closes on the server's clock.
    assert!(heard_of(&mut a, "pairing_over").await.is_empty());
    app.clock.advance(ANSWER_MS);
    for ws in [&mut a, &mut b] {
        let over = ws.next_of("pairing_over").await;
        assert_eq!(
            (&over["pairing"], &over["reason"]),
            (&pairing["pairing"], &json!("lapsed"))
        );
    }
    // Bisi cools down; Ade, who accepted, still waits.
    let refused = seek(&mut b, json!({"family": "abapa"})).await;
    assert_eq!(refused["code"], "seek_cooldown", "{refused}");
    assert_eq!(
        refused["until"],
        app.clock.now_ms() + COOLDOWN_MS,
        "{refused}"
    );
    assert!(
        refused["message"].as_str().unwrap().contains("30s"),
        "{refused}"
    );
    seek(&mut c, json!({"family": "abapa"})).await;
    let again = a.next_of("pairing").await;
    assert_eq!(again["opponent"]["id"], c_id.as_str(), "{again}");
    assert_ne!(again["pairing"], pairing["pairing"]);
    // An answer to the old pairing finds none.
    b.send(json!({"type": "pairing_answer", "pairing": pairing["pairing"], "accept": true, "ref": "late"}))
        .await;
    let late = b.next_of("error").await;
    assert_eq!(
        (&late["code"], &late["ref"]),
        (&json!("no_such_pairing"), &json!("late"))
    );
    // Once the cooldown is over Bisi may seek again.
    app.clock.advance(COOLDOWN_MS);
    assert_eq!(
        seek(&mut b, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
}

#[actix_web::test]
async fn one_who_declines_cools_down_and_the_other_waits_on() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    let (mut b, _) = guest_in(&app, "Bisi", None).await;
    seek(&mut a, json!({"family": "abapa"})).await;
    seek(&mut b, json!({"family": "abapa"})).await;
    let pairing = a.next_of("pairing").await;
    // A seek while the pairing waits for an answer.
    let refused = seek(&mut a, json!({"family": "ayoayo"})).await;
    assert_eq!(refused["code"], "pairing_open", "{refused}");
    answer(&mut b, &pairing, false).await;
    for ws in [&mut a, &mut b] {
        assert_eq!(ws.next_of("pairing_over").await["reason"], "declined");
    }
    counts_become(
        &mut b,
        json!([{"family": "abapa", "clock": "300s", "rated": true, "waiting": 1}]),
    )
    .await;
    assert_eq!(
        seek(&mut b, json!({"family": "abapa"})).await["code"],
        "seek_cooldown"
    );
}

#[actix_web::test]
async fn one_who_leaves_while_paired_puts_the_other_back_in_the_pool() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    let (mut b, _) = guest_in(&app, "Bisi", None).await;
    let (mut c, c_id) = guest_in(&app, "Chidi", None).await;
    seek(&mut a, json!({"family": "abapa"})).await;
    seek(&mut b, json!({"family": "abapa"})).await;
    let pairing = a.next_of("pairing").await;
    b.next_of("pairing").await;
    answer(&mut a, &pairing, true).await;
    b.send(json!({"type": "leave"})).await;
    b.next_of("left").await;
    let over = a.next_of("pairing_over").await;
    assert_eq!(
        (&over["pairing"], &over["reason"]),
        (&pairing["pairing"], &json!("left"))
    );
    counts_become(
        &mut c,
        json!([{"family": "abapa", "clock": "300s", "rated": true, "waiting": 1}]),
    )
    .await;
    seek(&mut c, json!({"family": "abapa"})).await;
    assert_eq!(a.next_of("pairing").await["opponent"]["id"], c_id.as_str());
    // Leaving is no decline: Bisi, back, may seek at once.
    assert_eq!(b.enter(ROOM).await["type"], "room");
    assert_eq!(
        seek(&mut b, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
}

#[actix_web::test]
async fn baba_ayo_is_offered_after_a_wait_with_nobody() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    seek(&mut a, json!({"family": "abapa"})).await;
    app.clock.advance(HOUSE_AFTER_MS - 1);
    assert!(heard_of(&mut a, "seek_house").await.is_empty());
    app.clock.advance(1);
    let offered = a.next_of("seek_house").await;
    assert_eq!(
        offered,
        json!({"type": "seek_house", "family": "abapa", "waited_ms": HOUSE_AFTER_MS})
    );
    // Once a seek.
    app.clock.advance(HOUSE_AFTER_MS);
    assert!(heard_of(&mut a, "seek_house").await.is_empty());
    // Taking him up sits Ade down: out of the pool.
    a.send(json!({"type": "play_house", "table": format!("{ROOM}-1"), "level": "easy"}))
        .await;
    assert_eq!(a.next_of("game_started").await["house"], true);
    counts_become(&mut a, json!([])).await;
}

#[actix_web::test]
async fn the_room_hears_how_many_wait_and_a_newcomer_sees_it_in_the_snapshot() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    let (mut w, _) = guest_in(&app, "Wale", None).await;
    seek(
        &mut a,
        json!({"family": "ayoayo", "clock": "none", "rated": false}),
    )
    .await;
    let waiting = json!([{"family": "ayoayo", "clock": "none", "rated": false, "waiting": 1}]);
    counts_become(&mut w, waiting.clone()).await;
    let (token, _) = app.guest("Kemi").await;
    let mut k = app.ws(&token).await;
    let room = k.enter(ROOM).await;
    assert_eq!(room["seeks"], waiting, "{room}");
    let (_, rooms) = app.rooms().await;
    let lounge = rooms["rooms"]
        .as_array()
        .and_then(|all| all.iter().find(|r| r["id"] == ROOM))
        .unwrap_or_else(|| panic!("the lounge in {rooms}"));
    assert_eq!(lounge["seeks"], waiting, "{lounge}");
    // No Ayoayo table in the lounge: Kemi's seek waits beside Ade's, paired with nobody.
    seek(
        &mut k,
        json!({"family": "ayoayo", "clock": "none", "rated": false}),
    )
    .await;
    counts_become(
        &mut w,
        json!([{"family": "ayoayo", "clock": "none", "rated": false, "waiting": 2}]),
    )
    .await;
    assert!(heard_of(&mut a, "pairing").await.is_empty());
    a.send(json!({"type": "unseek"})).await;
    counts_become(
        &mut w,
        json!([{"family": "ayoayo", "clock": "none", "rated": false, "waiting": 1}]),
    )
    .await;
}

#[actix_web::test]
async fn a_seek_the_lounge_cannot_play_is_refused_saying_why() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _) = guest_in(&app, "Ade", None).await;
    for (asked, code) in [
        (json!({"family": "oware"}), "bad_settings"),
        (
            json!({"family": "abapa", "clock": "7 years"}),
            "bad_settings",
        ),
        (
            json!({"family": "abapa", "min_rating": 1700, "max_rating": 1600}),
            "bad_settings",
        ),
        (json!({"clock": "5m"}), "bad_message"),
    ] {
        let refused = seek(&mut a, asked.clone()).await;
        assert_eq!(refused["code"], code, "{asked}: {refused}");
    }
    a.send(json!({"type": "pairing_answer", "pairing": "nope", "accept": true, "ref": 1}))
        .await;
    assert_eq!(a.next_of("error").await["code"], "no_such_pairing");
}

/// An instance of several in this process, on PostgreSQL and the Redis at 127.0.0.1:6379,
/// under the key prefix `prefix`.
async fn instance(db: TestDb, prefix: &str, instance: &str) -> TestApp {
    TestApp::spawn_with(
        db,
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_CLUSTER__ENABLED", "true"),
            ("LOUNGE_CLUSTER__REDIS_URL", "redis://127.0.0.1:6379"),
            ("LOUNGE_CLUSTER__REDIS_KEY_PREFIX", prefix),
            ("LOUNGE_CLUSTER__INSTANCE_ID", instance),
            ("LOUNGE_CLUSTER__LEASE_MS", "60000"),
        ],
    )
    .await
}

#[actix_web::test]
async fn guests_on_two_instances_are_paired_by_the_room_one_of_them_runs() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(TestDb::postgres(), &prefix, "a").await;
    let b = instance(a.db.again(), &prefix, "b").await;
    // Ade's instance runs the lounge: the first to visit it; Bisi reaches it through the relay.
    let (mut wa, a_id) = guest_in(&a, "Ade", None).await;
    let (mut wb, b_id) = guest_in(&b, "Bisi", None).await;
    assert_eq!(
        seek(&mut wb, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
    counts_become(
        &mut wa,
        json!([{"family": "abapa", "clock": "300s", "rated": true, "waiting": 1}]),
    )
    .await;
    assert_eq!(
        seek(&mut wa, json!({"family": "abapa"})).await["type"],
        "seeking"
    );
    let pairing = wb.next_of("pairing").await;
    assert_eq!(pairing["opponent"]["id"], a_id.as_str(), "{pairing}");
    assert_eq!(wa.next_of("pairing").await["opponent"]["id"], b_id.as_str());
    answer(&mut wb, &pairing, true).await;
    answer(&mut wa, &pairing, true).await;
    for ws in [&mut wa, &mut wb] {
        let started = ws.next_of("game_started").await;
        assert_eq!(started["table"], pairing["table"], "{started}");
        assert_eq!(ws.next_of("pairing_over").await["reason"], "started");
    }
}
