//! A room whose task panics leaves the registry and opens again from the store at the next
//! visit, its game intact.

use lounge::common::{OperatorName, RoomId};
use serde_json::{json, Value};

use lounge::world::{RoomHandle, World};

use crate::helpers::world::{config, lounge_world, two_people, user, Person};
use crate::helpers::TestDb;

/// Ade sits South and Bisi North at t1: a match starts; its `game_started` as Ade sees it.
async fn both_sit(room: &RoomHandle, a: &mut Person, b: &Person) -> Value {
    a.act(room, json!({"type": "sit", "table": "t1", "seat": "south"}))
        .await;
    b.act(room, json!({"type": "sit", "table": "t1", "seat": "north"}))
        .await;
    a.next_of("game_started").await
}

/// The lounge is made to fail: `a` is let go, and the room leaves the registry.
async fn crash(world: &World, a: &mut Person) {
    assert!(world.crash_room(&RoomId::new("lounge")).await);
    assert!(a.closed().await, "the room's people are let go");
    for _ in 0..1000 {
        if world.room(&RoomId::new("lounge")).is_none() {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("a failed room leaves the registry");
}

#[actix_web::test]
async fn a_room_that_panics_opens_again_from_the_store_with_its_game_intact() {
    for db in TestDb::both() {
        let world = lounge_world(&db, config());
        let room = world.room(&RoomId::new("lounge")).unwrap();
        let [mut a, mut b] = two_people(&db, &room).await;
        let started = both_sit(&room, &mut a, &b).await;
        let south = if started["players"]["south"]["id"] == a.user.id.as_str() {
            &mut a
        } else {
            &mut b
        };
        south
            .act(&room, json!({"type": "move", "table": "t1", "pit": 3}))
            .await;
        let played = south.next_of("game_state").await;
        assert_eq!(played["state"]["ply"], 1);

        // The room fails: its people are let go, and it is out of the registry.
        crash(&world, &mut a).await;
        assert!(
            world.room(&RoomId::new("lounge")).is_none(),
            "a failed room leaves the registry"
        );

        // The next visit opens it again from the store: the same game at the same ply.
        let again = world
            .open(&RoomId::new("lounge"))
            .await
            .unwrap()
            .expect("the lounge opens");
        let mut back = Person::enter(&again, a.user.clone(), 1024).await;
        let snapshot: Value = back.next_of("room").await;
        let game = &snapshot["tables"][0]["game"];
        assert_eq!(game["id"], started["game_id"], "{snapshot}");
        assert_eq!(game["state"]["ply"], 1, "{snapshot}");
        assert_eq!(
            snapshot["tables"][0]["seats"]["south"]["id"],
            started["players"]["south"]["id"]
        );
        // And play goes on there.
        let mut bisi = Person::enter(&again, b.user.clone(), 1024).await;
        bisi.next_of("room").await;
        let north = if started["players"]["north"]["id"] == back.user.id.as_str() {
            &mut back
        } else {
            &mut bisi
        };
        north
            .act(&again, json!({"type": "move", "table": "t1", "pit": 1}))
            .await;
        assert_eq!(north.next_of("game_state").await["state"]["ply"], 2);
    }
}

#[actix_web::test]
async fn a_closing_room_that_panics_opens_again_closing_with_the_game_it_lets_finish() {
    let db = TestDb::sqlite();
    let world = lounge_world(&db, config());
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let [mut a, b] = two_people(&db, &room).await;
    let started = both_sit(&room, &mut a, &b).await;
    // An operator closes the lounge, letting the game finish.
    db.store()
        .close_room(&OperatorName::new("ops"), &RoomId::new("lounge"), "finish")
        .unwrap();
    let (reply, answer) = tokio::sync::oneshot::channel();
    assert!(
        room.send(lounge::world::RoomCommand::Shut {
            games: lounge::world::CloseGames::Finish,
            reply,
        })
        .await
    );
    assert_eq!(answer.await.unwrap(), 1, "one match still in play");
    crash(&world, &mut a).await;
    // It opens again, still closing: its players come back to the game, nobody else comes in.
    let again = world
        .open(&RoomId::new("lounge"))
        .await
        .unwrap()
        .expect("the game keeps it open");
    let mut back = Person::enter(&again, a.user.clone(), 1024).await;
    let snapshot = back.next_of("room").await;
    assert_eq!(snapshot["tables"][0]["game"]["id"], started["game_id"]);
    let (admitted, refused) = tokio::sync::oneshot::channel();
    let (outbox, _frames) = tokio::sync::mpsc::channel(8);
    assert!(
        again
            .send(lounge::world::RoomCommand::Enter {
                user: user(&db, "Chidi"),
                outbox,
                conn: lounge::world::World::next_connection(),
                since: Default::default(),
                r#ref: None,
                admitted,
            })
            .await
    );
    let refusal = refused.await.unwrap().unwrap_err();
    assert_eq!(refusal.code.as_str(), "room_closing");
}
