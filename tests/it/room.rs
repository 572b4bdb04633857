//! The room logic without sockets: commands in, frames out of plain channels.

use lounge::common::RoomId;
use lounge::world::{RoomCommand, RoomConfig};
use serde_json::{json, Value};

use crate::helpers::world::{config, lounge_world, user, Person};
use crate::helpers::TestDb;

#[actix_web::test]
async fn a_taken_seat_is_refused_and_one_seat_per_person() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    let mut a = Person::enter(&room, user(&db, "Ade"), 64).await;
    let mut b = Person::enter(&room, user(&db, "Bisi"), 64).await;
    a.next_of("room").await;
    b.next_of("room").await;
    a.act(
        &room,
        json!({"type": "sit", "table": "t1", "seat": "south"}),
    )
    .await;
    assert_eq!(
        b.next_of("table").await["seats"]["south"]["id"],
        a.user.id.as_str()
    );
    b.act(
        &room,
        json!({"type": "sit", "table": "t1", "seat": "south", "ref": 1}),
    )
    .await;
    assert_eq!(b.next_of("error").await["code"], "seat_taken");
    a.act(
        &room,
        json!({"type": "sit", "table": "t1", "seat": "north", "ref": 2}),
    )
    .await;
    assert_eq!(a.next_of("error").await["code"], "already_seated");
    a.act(&room, json!({"type": "stand", "table": "t1"})).await;
    assert_eq!(b.next_of("table").await["seats"]["south"], Value::Null);
}

#[actix_web::test]
async fn an_invitation_expires_and_both_are_told() {
    let db = TestDb::sqlite();
    let clock = lounge::common::ServerClock::manual_from_now();
    let world = lounge_world(
        &db,
        RoomConfig {
            clock: clock.clone(),
            ..config()
        },
    );
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    let mut a = Person::enter(&room, user(&db, "Ade"), 64).await;
    let mut b = Person::enter(&room, user(&db, "Bisi"), 64).await;
    let invitation = a.invite(&room, &mut b).await;
    // A minute on the server's clock, nobody sleeping.
    clock.advance(60_000);
    let expired = b.next_of("invitation_expired").await;
    assert_eq!(expired["id"], invitation["id"]);
    assert_eq!(
        a.next_of("invitation_expired").await["id"],
        invitation["id"]
    );
    b.act(
        &room,
        json!({"type": "respond", "invitation": invitation["id"], "accept": true}),
    )
    .await;
    assert_eq!(b.next_of("error").await["code"], "no_such_invitation");
}

#[actix_web::test]
async fn a_reader_whose_queue_is_full_is_dropped_and_the_room_goes_on() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    // Room for the snapshot and two more frames; this one never reads.
    let slow = Person::enter(&room, user(&db, "Slow"), 3).await;
    let mut a = Person::enter(&room, user(&db, "Ade"), 1024).await;
    a.next_of("room").await;
    for i in 0..10 {
        a.act(&room, json!({"type": "chat", "text": format!("line {i}")}))
            .await;
    }
    let left = a.next_of("occupant_left").await;
    assert_eq!(left["user"]["id"], slow.user.id.as_str());
    assert_eq!(room.occupants(), 1);
    // Everyone else still hears everything.
    a.act(&room, json!({"type": "chat", "text": "still here"}))
        .await;
    loop {
        if a.next_of("chat").await["text"] == "still here" {
            break;
        }
    }
    drop(slow);
}

#[actix_web::test]
async fn a_command_from_a_replaced_connection_changes_nothing() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    let ade = user(&db, "Ade");
    let old = Person::enter(&room, ade.clone(), 64).await;
    let mut new = Person::enter(&room, ade.clone(), 64).await;
    new.next_of("room").await;
    // The old connection's late goodbye must not take the new one out.
    assert!(
        room.send(RoomCommand::Leave {
            user_id: ade.id.clone(),
            conn: old.conn
        })
        .await
    );
    assert!(
        room.send(RoomCommand::Disconnect {
            user_id: ade.id.clone(),
            conn: old.conn
        })
        .await
    );
    new.act(&room, json!({"type": "chat", "text": "here"}))
        .await;
    assert_eq!(new.next_of("chat").await["text"], "here");
    assert_eq!(room.occupants(), 1);
}

/// Refs are the client's; a new game may reuse one from the last game. That is a new move,
/// not a retry of the old one.
#[actix_web::test]
async fn a_ref_from_the_last_game_is_a_new_move_in_the_next() {
    let db = TestDb::sqlite();
    // Up to 30 invitations (and sittings) within the minute: more than the hotel's defaults
    // allow (after 5 lots that went the other way the invitation was refused, after 6 the
    // sitting, and the invitation never came).
    let mut config = config();
    config.civility = lounge::world::Civility::new(lounge::world::CivilityLimits {
        invitations_per_minute: 30,
        table_changes_per_minute: 120,
        table_changes_burst: 120,
        ..Default::default()
    });
    let world = lounge_world(&db, config);
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    let mut people = [
        Person::enter(&room, user(&db, "Ade"), 1024).await,
        Person::enter(&room, user(&db, "Bisi"), 1024).await,
    ];
    let mut last_mover: Option<String> = None;
    // Who sows first is drawn by lot: play short games until the last game's mover sows
    // first again (one in two each time).
    for _ in 0..30 {
        let [a, b] = &mut people;
        let invitation = a.invite(&room, b).await;
        b.act(
            &room,
            json!({"type": "respond", "invitation": invitation["id"], "accept": true}),
        )
        .await;
        let started = a.next_of("game_started").await;
        let south_id = started["players"]["south"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (south, north) = if south_id == a.user.id.as_str() {
            (a, b)
        } else {
            (b, a)
        };
        south
            .act(
                &room,
                json!({"type": "move", "table": "t1", "pit": 1, "ref": "r"}),
            )
            .await;
        let state = loop {
            let m = south.next().await;
            assert_ne!(m["type"], "error", "{m}");
            if m["type"] == "game_state" {
                break m;
            }
        };
        assert_eq!(state["game_id"], started["game_id"]);
        assert_eq!(state["state"]["ply"], 1, "played in the new game");
        if last_mover.as_deref() == Some(south_id.as_str()) {
            return;
        }
        last_mover = Some(south_id);
        north
            .act(&room, json!({"type": "resign", "table": "t1"}))
            .await;
        for p in people.iter_mut() {
            p.next_of("game_over").await;
        }
    }
    panic!("the same player never sowed first twice running in 30 lots");
}

/// The table keeps its last events (8 here); a client further behind gets the whole table.
#[actix_web::test]
async fn a_client_too_far_behind_gets_the_whole_table() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap().clone();
    let mut a = Person::enter(&room, user(&db, "Ade"), 1024).await;
    let first = a.next_of("room").await["tables"][0]["version"]
        .as_u64()
        .unwrap();
    for _ in 0..5 {
        a.act(
            &room,
            json!({"type": "sit", "table": "t1", "seat": "south"}),
        )
        .await;
        a.act(&room, json!({"type": "stand", "table": "t1"})).await;
    }
    let mut last = 0;
    for _ in 0..10 {
        last = a.next_of("table").await["version"].as_u64().unwrap();
    }
    assert_eq!(last, first + 10, "one version per change");
    a.act(
        &room,
        json!({"type": "sync", "table": "t1", "version": last - 8}),
    )
    .await;
    let missed = a.next_of("missed").await;
    assert_eq!(missed["resync"], false);
    let versions: Vec<_> = missed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["version"].as_u64().unwrap())
        .collect();
    assert_eq!(versions, ((last - 7)..=last).collect::<Vec<_>>());
    for behind in [last - 9, first, last + 1] {
        a.act(
            &room,
            json!({"type": "sync", "table": "t1", "version": behind}),
        )
        .await;
        let missed = a.next_of("missed").await;
        assert_eq!(missed["resync"], true, "{behind}: {missed}");
        assert_eq!(missed["snapshot"]["version"], last);
    }
}
