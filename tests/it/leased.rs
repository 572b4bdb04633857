//! One instance of several, in this process: a room opens under its lease, and
//! drops itself when a later owner took it; its sessions find it again. On PostgreSQL and
//! the Redis at 127.0.0.1:6379, under a key prefix of the test's own.

use lounge::cluster::{Fence, Leases};
use lounge::common::GameId;
use lounge::common::{RoomId, ServerClock};
use serde_json::json;

use crate::civility::say;
use crate::helpers::{TestApp, TestDb};

const LOUNGE: &str = "surulere-games-lounge";

async fn redis() -> redis::aio::ConnectionManager {
    redis::Client::open("redis://127.0.0.1:6379")
        .unwrap()
        .get_connection_manager()
        .await
        .expect("Redis on 127.0.0.1:6379 (tests/run starts it)")
}

/// An instance named `instance` under `prefix`, on a database of its own.
async fn instance(prefix: &str, instance: &str) -> TestApp {
    instance_on(TestDb::postgres(), prefix, instance).await
}

/// An instance named `instance` under `prefix`, on `db`.
async fn instance_on(db: TestDb, prefix: &str, instance: &str) -> TestApp {
    TestApp::spawn_with(
        db,
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_CLUSTER__ENABLED", "true"),
            ("LOUNGE_CLUSTER__REDIS_URL", "redis://127.0.0.1:6379"),
            ("LOUNGE_CLUSTER__REDIS_KEY_PREFIX", prefix),
            ("LOUNGE_CLUSTER__INSTANCE_ID", instance),
            // Long: nothing here runs out while the test looks.
            ("LOUNGE_CLUSTER__LEASE_MS", "60000"),
        ],
    )
    .await
}

/// The leases as another instance sees them.
async fn looking(prefix: &str) -> Leases {
    Leases::new(
        redis().await,
        prefix,
        "onlooker",
        60_000,
        ServerClock::System,
    )
}

#[actix_web::test]
async fn a_room_opens_under_its_lease_and_one_taken_by_a_later_owner_is_dropped_and_found_again() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let app = instance(&prefix, "a").await;
    let leases = looking(&prefix).await;
    let lounge = RoomId::new(LOUNGE);
    assert_eq!(
        leases.owner(&lounge).await.unwrap(),
        None,
        "leased, no room runs before it is visited"
    );

    let (token, _) = app.guest("Tunde").await;
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": LOUNGE})).await;
    ws.next_of("room").await;
    let (holder, fence) = leases.owner(&lounge).await.unwrap().expect("a lease");
    assert_eq!(holder, "a");
    assert_eq!(app.db.store().fence_of(&lounge).unwrap(), fence.0);

    // Another instance takes the room: the lease ran out and a later number took the row.
    let mut raw = redis().await;
    let key = format!("{prefix}{{room:{LOUNGE}}}:lease");
    let _: i64 = redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut raw)
        .await
        .unwrap();
    let later = leases
        .acquire(&lounge, Fence(app.db.store().fence_of(&lounge).unwrap()))
        .await
        .unwrap()
        .expect("free");
    app.db
        .store()
        .take_room(&lounge, later.fence.0, "onlooker")
        .unwrap();

    // The next thing the room would write is refused: nothing of it lands, the one who
    // asked is told, and the connection closes to find the room again.
    let table = "surulere-games-lounge-1";
    ws.send(json!({"type": "play_house", "table": table, "level": "easy", "ref": "h"}))
        .await;
    let refused = ws.next_of("error").await;
    assert_eq!(refused["code"], "room_moved", "{refused}");
    assert_eq!(refused["ref"], "h");
    assert_eq!(ws.closed().await, Some(1001));
    assert!(
        app.db.store().matches_in_play().unwrap().is_empty(),
        "nothing of the fenced command was stored"
    );
    let (_, metrics) = app.metrics().await;
    assert!(
        counter(&metrics, "lounge_leases_lost_total") >= 1,
        "{metrics}"
    );

    // While the other instance holds it, this one does not run it.
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": LOUNGE, "ref": "e"}))
        .await;
    let e = ws.next_of("error").await;
    assert_eq!(e["ref"], "e", "{e}");

    // Once it lets go, the room opens here again under a number above the other's.
    assert!(leases.release(&later).await.unwrap());
    ws.send(json!({"type": "enter", "room": LOUNGE})).await;
    ws.next_of("room").await;
    let (holder, fence) = leases.owner(&lounge).await.unwrap().expect("a lease");
    assert_eq!(holder, "a");
    assert!(fence > later.fence);
    ws.send(json!({"type": "play_house", "table": table, "level": "easy"}))
        .await;
    ws.next_of("game_started").await;
    assert_eq!(app.db.store().matches_in_play().unwrap().len(), 1);
}

#[actix_web::test]
async fn two_players_on_two_instances_play_a_whole_game_in_the_room_one_of_them_runs() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (ta, a_id) = a.guest("Ade").await;
    let (tb, b_id) = b.guest("Bisi").await;
    let (tc, _) = b.guest("Chidi").await;
    let (mut wa, mut wb, mut wc) = (a.ws(&ta).await, b.ws(&tb).await, b.ws(&tc).await);
    // Ade's instance runs the lounge: the first to visit it.
    wa.send(json!({"type": "enter", "room": LOUNGE})).await;
    wa.next_of("room").await;
    for ws in [&mut wb, &mut wc] {
        ws.send(json!({"type": "enter", "room": LOUNGE})).await;
        let room = ws.next_of("room").await;
        assert_eq!(room["tables"].as_array().unwrap().len(), 3, "{room}");
    }
    let leases = looking(&prefix).await;
    let (holder, _) = leases.owner(&RoomId::new(LOUNGE)).await.unwrap().unwrap();
    assert_eq!(holder, "a");
    wb.send(json!({"type": "chat", "text": "from b"})).await;
    assert_eq!(wa.next_of("chat").await["text"], "from b");

    let table = "surulere-games-lounge-1";
    wa.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    wa.send(json!({"type": "invite", "table": table, "user": b_id}))
        .await;
    let invitation = wb.next_of("invitation").await;
    assert_eq!(invitation["from"]["id"], a_id);
    wb.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = wc.next_of("game_started").await;
    wc.send(json!({"type": "watch", "table": table, "since": started["version"]}))
        .await;
    assert_eq!(wc.next_of("missed").await["events"], json!([]));
    let game_id = started["game_id"].as_str().unwrap().to_owned();
    let a_is_south = started["players"]["south"]["id"] == a_id.as_str();
    let mut state = started["state"].clone();
    let mut moves = 0;
    while state["status"] == "playing" {
        let south_to_move = state["to_move"] == "south";
        let player = if south_to_move == a_is_south {
            &mut wa
        } else {
            &mut wb
        };
        let pit = state["legal"][0].clone();
        player
            .send(json!({"type": "move", "table": table, "pit": pit}))
            .await;
        let update = wc.next_of("game_state").await;
        assert_eq!(
            update["last_move"]["pit"], pit,
            "the onlooker sees every move in order"
        );
        for player in [&mut wa, &mut wb] {
            assert_eq!(player.next_of("game_state").await["state"], update["state"]);
        }
        state = update["state"].clone();
        moves += 1;
        assert!(moves < 2000, "the game ends");
    }
    let over = wc.next_of("game_over").await;
    assert_eq!(over["game_id"], game_id.as_str());
    let stored = a.db.store().moves(&GameId::new(game_id.as_str())).unwrap();
    assert_eq!(stored.len(), moves, "every move is stored");
    let (_, metrics) = b.metrics().await;
    assert!(
        counter(&metrics, "lounge_relayed_commands_total") > 0,
        "{metrics}"
    );
    assert!(
        counter(&metrics, "lounge_relayed_frames_total") > 0,
        "{metrics}"
    );
}

/// A counter of this process's metrics (whatever other tests in it count too).
fn counter(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

#[actix_web::test]
async fn an_operator_on_one_instance_renames_moderates_sets_tables_and_closes_a_room_another_runs()
{
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (token, guest) = a.guest("Ade").await;
    let (other, _) = a.guest("Bisi").await;
    let mut ws = a.ws(&token).await;
    ws.send(json!({"type": "enter", "room": "gist-lounge"}))
        .await;
    ws.next_of("room").await;
    let mut them = a.ws(&other).await;
    them.send(json!({"type": "enter", "room": "gist-lounge"}))
        .await;
    them.next_of("room").await;
    let ops = b.admin_token("ops");

    // Run by a, renamed through b: everyone inside is told, and b answers with the room.
    let (status, body) = b
        .rename_room(&ops, "gist-lounge", json!({"name": "Gist Corner"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["room"]["name"], "Gist Corner");
    assert_eq!(body["room"]["occupants"], 2);
    assert_eq!(
        ws.next_of("room_changed").await["room"]["name"],
        "Gist Corner"
    );
    // b lists it with a's figures.
    let (_, rooms) = b.rooms().await;
    let listed = rooms["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "gist-lounge")
        .cloned()
        .expect("listed");
    assert_eq!(listed["occupants"], 2, "{listed}");

    // Put out through b: out of a's room at once.
    let (status, body) = b
        .call(
            "POST",
            "/api/v1/admin/rooms/gist-lounge/put-out",
            Some(&ops),
            Some(json!({"user": guest, "reason": "cool off"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ws.next_of("put_out").await["room"], "gist-lounge");

    // Tables through b: added, its rules changed and taken away in the lounge a runs,
    // everyone inside told; a's refusals come back with their codes.
    let (chidi, _) = a.guest("Chidi").await;
    let mut chidi = a.ws(&chidi).await;
    chidi.send(json!({"type": "enter", "room": LOUNGE})).await;
    chidi.next_of("room").await;
    let (status, added) = b.add_table(&ops, LOUNGE, json!({})).await;
    assert_eq!(status, 201, "{added}");
    let table = added["table"]["id"].as_str().unwrap().to_owned();
    assert_eq!(chidi.next_of("table").await["id"], table.as_str());
    let (status, body) = b
        .change_table(&ops, LOUNGE, &table, json!({"rules": "kontest"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["table"]["rules"]["preset"], "kontest");
    assert_eq!(chidi.next_of("table").await["rules"]["preset"], "kontest");
    chidi
        .send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    chidi.next_of("table").await;
    let (status, body) = b.remove_table(&ops, LOUNGE, &table).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("table_busy"))
    );
    chidi.send(json!({"type": "stand", "table": table})).await;
    chidi.next_of("table").await;
    let (status, body) = b.remove_table(&ops, LOUNGE, &table).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(
        chidi.next_of("table_removed").await["table"],
        table.as_str()
    );
    let (status, body) = b.remove_table(&ops, LOUNGE, &table).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (404, json!("not_found"))
    );
    let (status, body) = b
        .change_table(
            &ops,
            LOUNGE,
            "surulere-games-lounge-1",
            json!({"rules": "nonsense"}),
        )
        .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!("invalid_field")),
        "{body}"
    );

    // Closed through b: a's room closes, and its people are out.
    let (status, body) = b.close_room(&ops, "gist-lounge", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "closed");
    assert_eq!(them.next_of("room_closed").await["room"], "gist-lounge");
}

#[actix_web::test]
async fn instances_started_together_on_a_new_database_all_open() {
    // The rooms, the shop and Baba Ayo are seeded by whichever instance takes its turn first;
    // the others find them there (two of three benchmark instances had failed on a room).
    let prefix = format!("test-{}:", lounge::store::new_id());
    let db = TestDb::postgres();
    let (second, third) = (db.again(), db.again());
    let (a, b, c) = tokio::join!(
        instance_on(db, &prefix, "a"),
        instance_on(second, &prefix, "b"),
        instance_on(third, &prefix, "c"),
    );
    for app in [&a, &b, &c] {
        let (status, rooms) = app.rooms().await;
        assert_eq!(status, 200, "{rooms}");
        assert!(
            rooms["rooms"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["id"] == "surulere-games-lounge"),
            "{rooms}"
        );
    }
}

#[actix_web::test]
async fn a_guest_s_connections_bans_mutes_blocks_and_invitations_home_reach_every_instance() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (ta, ade) = a.guest("Ade").await;
    let (tb, bisi) = a.guest("Bisi").await;
    let ops = a.admin_token("ops");

    // A second connection on another instance takes the first over, in its room (run by a).
    let mut first = a.ws(&ta).await;
    first.enter("gist-lounge").await;
    let mut ade_ws = b.ws(&ta).await;
    let room = ade_ws.next_of("room").await;
    assert_eq!(room["room"]["id"], "gist-lounge", "{room}");
    assert_eq!(first.next_of("replaced").await["type"], "replaced");
    first.closed().await;
    assert_eq!(say(&mut ade_ws, "still here").await["type"], "chat");
    // One in no room closes at once.
    let mut idle = a.ws(&tb).await;
    let mut bisi_ws = b.ws(&tb).await;
    assert_eq!(idle.next_of("replaced").await["type"], "replaced");
    idle.closed().await;

    // An invitation home made on a reaches Bisi's connection on b.
    let (status, body, _) = a.invite_home(&ta, &bisi).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["delivered"], true, "{body}");
    let told = bisi_ws.next_of("home_invitation").await;
    assert_eq!(told["from"]["id"], ade.as_str());

    // Bisi blocks Ade on b: the lounge a runs no longer brings her Ade's lines.
    bisi_ws.enter("gist-lounge").await;
    assert_eq!(b.block(&tb, &ade).await.0, 204);
    assert_eq!(say(&mut ade_ws, "hear me").await["type"], "chat");
    assert_eq!(say(&mut bisi_ws, "quiet now").await["text"], "quiet now");
    assert_eq!(b.unblock(&tb, &ade).await.0, 204);
    say(&mut ade_ws, "again").await;
    assert_eq!(bisi_ws.next_of("chat").await["text"], "again");

    // Muted on a while her session is on b: told there, and the room refuses her lines.
    let (status, body) = a
        .mute(&ops, &ade, json!({"seconds": 60, "reason": "shouting"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let told = ade_ws.next_of("muted").await;
    assert_eq!(told["reason"], "shouting");
    assert_eq!(say(&mut ade_ws, "hello").await["code"], "muted");
    assert_eq!(a.unmute(&ops, &ade).await.0, 204);
    assert_eq!(ade_ws.next_of("muted").await["until"], json!(null));
    assert_eq!(say(&mut ade_ws, "free").await["type"], "chat");

    // Banned on a: out of b at once, and b lets her in again once it is lifted on a.
    let (status, body) = a
        .ban(&ops, &ade, json!({"reason": "spamming the lounge"}))
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(ade_ws.closed().await, Some(1008));
    assert_eq!(b.ws_status(Some(&ta), None).await, 403);
    assert_eq!(b.me(&ta).await.0, 403);
    assert_eq!(a.lift_ban(&ops, &ade).await.0, 200);
    // b hears of it a moment after a answers, over Redis: each try is b's answer, the next
    // asked at once (tries bounded, no timer between).
    let mut tries = 0;
    while b.me(&ta).await.0 != 200 {
        tries += 1;
        assert!(tries < 5_000, "the lift reaches b");
    }
}

#[actix_web::test]
async fn a_session_on_another_instance_in_a_room_its_owner_lost_is_let_go_to_find_it_again() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (ta, _) = a.guest("Tunde").await;
    let (tb, _) = b.guest("Bisi").await;
    let mut here = a.ws(&ta).await;
    here.enter(LOUNGE).await;
    let mut there = b.ws(&tb).await;
    there.enter(LOUNGE).await;

    // A later owner takes the lounge from a (its lease ran out and a later number took it).
    let leases = looking(&prefix).await;
    let lounge = RoomId::new(LOUNGE);
    let key = format!("{prefix}{{room:{LOUNGE}}}:lease");
    let _: i64 = redis::cmd("DEL")
        .arg(&key)
        .query_async(&mut redis().await)
        .await
        .unwrap();
    let later = leases
        .acquire(&lounge, Fence(a.db.store().fence_of(&lounge).unwrap()))
        .await
        .unwrap()
        .expect("free");
    a.db.store()
        .take_room(&lounge, later.fence.0, "onlooker")
        .unwrap();
    here.send(json!({"type": "play_house", "table": "surulere-games-lounge-1", "level": "easy"}))
        .await;
    assert_eq!(here.next_of("error").await["code"], "room_moved");
    assert_eq!(here.closed().await, Some(1001));
    // The room moved, it did not close: Bisi's session on b is let go to find it again,
    // not left in no room without a word.
    assert_eq!(there.closed().await, Some(1001));
}

/// Opening a room taken by lease resumes its matches under the lease's number: an owner a
/// later one overtook before it finished resuming writes nothing of the resume (here, the
/// end of a game its last stored move ended), and the later owner finishes it.
#[test]
fn a_resume_under_a_number_a_later_owner_overtook_writes_nothing() {
    use lounge::ayo::Status;
    use lounge::store::{MatchStatus, StoreError};
    for db in TestDb::both() {
        let (m, g) = crate::matches::a_match_its_last_stored_move_ended(&db);
        let store = db.store();
        let lounge = RoomId::new("lounge");
        store.take_room(&lounge, 1, "a").unwrap();
        store.take_room(&lounge, 2, "b").unwrap();
        let config = crate::helpers::world::config();
        let tables = [lounge::common::TableId::new("t1")];
        let resume = |fence| {
            lounge::world::resumable_at(
                store,
                &config.clock,
                &config.results,
                &tables,
                "a",
                Some((&lounge, fence)),
            )
        };
        let refused = resume(1).err();
        assert!(
            matches!(refused, Some(StoreError::Fenced { latest: 2, .. })),
            "{refused:?}"
        );
        assert_eq!(store.game(&g.id).unwrap().unwrap().status, Status::Playing);
        let record = store.match_record(&m.id).unwrap().unwrap();
        assert_eq!(record.row.status, MatchStatus::Playing);

        assert!(resume(2).unwrap().is_empty(), "b finished it");
        assert_ne!(store.game(&g.id).unwrap().unwrap().status, Status::Playing);
        let record = store.match_record(&m.id).unwrap().unwrap();
        assert_ne!(record.row.status, MatchStatus::Playing);
    }
}

#[actix_web::test]
async fn a_ticket_issued_by_one_instance_opens_a_socket_on_another_once() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (token, id) = a.guest("Ade").await;
    let ticket = a.a_ws_ticket(&token).await;
    // Kept in Redis as its hash only.
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}ticket:*"))
        .query_async(&mut redis().await)
        .await
        .unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(!keys[0].contains(&ticket));
    let mut ws = b.ws_by_ticket(&ticket).await;
    assert_eq!(ws.enter(LOUNGE).await["type"], "room");
    let (status, body) = a.ws_ticket_refused(&ticket).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (401, &json!("unauthorized"))
    );
    assert_eq!(b.ws_ticket_refused(&ticket).await.0, 401, "spent once");
    assert_eq!(b.ws_ticket_refused("made-up").await.0, 401);
    // A user holds a few at most, wherever they were issued: the oldest is evicted.
    let first = b.a_ws_ticket(&token).await;
    for _ in 0..4 {
        a.a_ws_ticket(&token).await;
    }
    assert_eq!(a.ws_ticket_refused(&first).await.0, 401, "evicted");
    let last = b.a_ws_ticket(&token).await;
    let mut again = a.ws_by_ticket(&last).await;
    again.send(json!({"type": "ping", "ref": 1})).await;
    assert_eq!(again.next_of("pong").await["ref"], 1);
    let _ = id;
}

#[actix_web::test]
async fn entering_a_room_no_one_has_answers_no_such_room_and_leaves_nothing_in_redis() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let (token, _) = a.guest("Ade").await;
    let mut ws = a.ws(&token).await;
    let made_up = "x".repeat(4_000);
    for room in [made_up.as_str(), "no-such-room"] {
        let answer = ws.enter(room).await;
        assert_eq!(answer["code"], "no_such_room", "{answer}");
    }
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut redis().await)
        .await
        .unwrap();
    assert!(
        keys.iter()
            .all(|k| !k.contains("no-such-room") && !k.contains("xxxx")),
        "{keys:?}"
    );
    // A room that exists is leased as before, its counter kept a day, not for ever.
    assert_eq!(ws.enter(LOUNGE).await["type"], "room");
    let fence = format!("{prefix}{{room:{LOUNGE}}}:fence");
    let ttl: i64 = redis::cmd("PTTL")
        .arg(&fence)
        .query_async(&mut redis().await)
        .await
        .unwrap();
    assert!(ttl > 0 && ttl <= 86_400_000, "{ttl}");
}

#[actix_web::test]
async fn a_relayed_message_without_the_instances_mac_is_dropped_and_counted() {
    let prefix = format!("test-{}:", lounge::store::new_id());
    let a = instance(&prefix, "a").await;
    let b = instance_on(a.db.again(), &prefix, "b").await;
    let (ta, a_id) = a.guest("Ade").await;
    let (tb, b_id) = b.guest("Bisi").await;
    let mut wa = a.ws(&ta).await;
    wa.enter(LOUNGE).await;
    let mut wb = b.ws(&tb).await;
    wb.enter(LOUNGE).await;
    let refused = |m: &str| counter(m, "lounge_relay_refused_total");
    let before = refused(&a.metrics().await.1);
    // Ade's instance runs the lounge; whoever can publish on Redis makes Bisi "say" something,
    // and asks for Ade's ban, with no MAC, a made-up one, and a real one over other text.
    let chat = json!({"t": "act", "room": LOUNGE, "user_id": b_id,
        "message": {"type": "chat", "text": "Baba Ayo: send me your password"}, "ref": null});
    let ban = json!({"t": "notice", "from": "b",
        "notice": {"kind": "banned", "user": a_id, "reason": "forged", "until": null}});
    let channel = format!("{prefix}instance:a");
    let hotel = format!("{prefix}hotel");
    let mut conn = redis().await;
    for (channel, text) in [
        (&channel, chat.to_string()),
        (&channel, format!("{} {chat}", "0".repeat(64))),
        (&hotel, ban.to_string()),
        (&hotel, format!("{} {ban}", "ab".repeat(32))),
    ] {
        let readers: i64 = redis::cmd("PUBLISH")
            .arg(channel)
            .arg(text)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(readers >= 1);
    }
    // Each refused as a reads it off Redis: its counter, asked again as each answer comes
    // (bounded), then what a's socket was told before a ping's answer.
    let mut tries = 0;
    while refused(&a.metrics().await.1) < before + 4 {
        tries += 1;
        assert!(tries < 5_000, "a refuses the four");
    }
    let heard = wa.heard_until_pong().await;
    assert!(heard.iter().all(|m| m["type"] != "chat"), "{heard:?}");
    // Nobody was banned, and what the instances really say still goes through...
    assert_eq!(a.me(&ta).await.0, 200);
    let mut listening = redis::Client::open("redis://127.0.0.1:6379")
        .unwrap()
        .get_async_pubsub()
        .await
        .unwrap();
    listening.subscribe(&channel).await.unwrap();
    wb.send(json!({"type": "chat", "text": "hello"})).await;
    assert_eq!(wa.next_of("chat").await["text"], "hello");
    // ...once: the very message, copied off Redis and published again, is not read again.
    let copied: String = {
        use futures_util::StreamExt;
        let mut messages = listening.on_message();
        loop {
            let m = messages.next().await.unwrap();
            let text: String = m.get_payload().unwrap();
            if text.contains("hello") {
                break text;
            }
        }
    };
    let before = refused(&a.metrics().await.1);
    let _: i64 = redis::cmd("PUBLISH")
        .arg(&channel)
        .arg(&copied)
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut tries = 0;
    while refused(&a.metrics().await.1) <= before {
        tries += 1;
        assert!(tries < 5_000, "a refuses the copy");
    }
    let heard = wa.heard_until_pong().await;
    assert!(heard.iter().all(|m| m["type"] != "chat"), "{heard:?}");
}
