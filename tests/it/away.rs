//! Away and back: a seated player of a match in play who drops is shown away to the whole
//! room (`away`, the snapshot's `away`) until they come back (`back`) or their grace ends
//! (the table's events only); after a restart both players are away from the start.

use lounge::common::RoomId;
use serde_json::json;

use crate::helpers::world::{config, lounge_world, lounge_world_resumed, user, Person};
use crate::helpers::ws::seat_of;
use crate::helpers::{game_between_two, TestApp, TestDb};

const ROOM: &str = "surulere-games-lounge";
const TABLE: &str = "surulere-games-lounge-1";

#[actix_web::test]
async fn a_player_who_drops_is_shown_away_to_everyone_and_back_when_they_return() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (a, mut b, mut c, ade_token, ade, started, _) = game_between_two(&app).await;
    let seat = seat_of(&started, &ade);
    let until = app.clock.now_ms() + 60_000;
    drop(a);
    // Told at once, to the opponent and to onlookers alike.
    for ws in [&mut b, &mut c] {
        let away = ws.next_of("away").await;
        assert_eq!(
            away,
            json!({"type": "away", "room": ROOM, "table": TABLE, "seat": seat,
                   "user": {"id": ade, "name": "Ade"}, "until": until}),
        );
    }
    // Someone coming in mid-grace sees it in the snapshot.
    let (dayo_token, _) = app.guest("Dayo").await;
    let mut d = app.ws(&dayo_token).await;
    let snapshot = d.enter(ROOM).await;
    assert_eq!(
        snapshot["away"],
        json!([{"table": TABLE, "seat": seat, "user": {"id": ade, "name": "Ade"}, "until": until}]),
    );
    // Ade is back: their own snapshot shows nobody away; everyone else gets `back`.
    app.clock.advance(10_000);
    let mut a = app.ws(&ade_token).await;
    let snapshot = a.enter(ROOM).await;
    assert_eq!(snapshot["away"], json!([]), "{snapshot}");
    for ws in [&mut b, &mut c, &mut d] {
        // `occupant_joined` first, then `back`.
        loop {
            let m = ws.next().await;
            assert_ne!(m["type"], "back", "{m}");
            if m["type"] == "occupant_joined" && m["user"]["id"] == ade.as_str() {
                break;
            }
        }
        let back = ws.next_of("back").await;
        assert_eq!(
            back,
            json!({"type": "back", "room": ROOM, "table": TABLE, "seat": seat,
                   "user": {"id": ade, "name": "Ade"}}),
        );
    }
    assert_eq!(d.enter(ROOM).await["away"], json!([]));
}

#[actix_web::test]
async fn when_the_grace_ends_the_table_events_tell_it_and_no_back_is_sent() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (a, _b, mut c, _, ade, _, _) = game_between_two(&app).await;
    drop(a);
    assert_eq!(c.next_of("away").await["user"]["id"], ade.as_str());
    app.clock.advance(60_000);
    let mut seen = Vec::new();
    loop {
        let m = c.next().await;
        seen.push(m["type"].clone());
        if m["type"] == "match_over" {
            assert_eq!(m["reason"], "abandoned");
            break;
        }
    }
    assert!(!seen.contains(&json!("back")), "{seen:?}");
    assert!(seen.contains(&json!("game_over")), "{seen:?}");
    assert_eq!(c.enter(ROOM).await["away"], json!([]));
}

#[actix_web::test]
async fn after_a_restart_both_players_are_away_until_each_comes_back() {
    let db = TestDb::sqlite();
    let clock = lounge::common::ServerClock::manual_from_now();
    let config = lounge::world::RoomConfig {
        clock: clock.clone(),
        ..config()
    };
    let world = lounge_world(&db, config.clone());
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let (ade, bisi) = (user(&db, "Ade"), user(&db, "Bisi"));
    let mut a = Person::enter(&room, ade.clone(), 1024).await;
    let mut b = Person::enter(&room, bisi.clone(), 1024).await;
    let invitation = a.invite(&room, &mut b).await;
    b.act(
        &room,
        json!({"type": "respond", "invitation": invitation["id"], "accept": true}),
    )
    .await;
    let started = a.next_of("game_started").await;
    world.close().await;
    drop((a, b));
    clock.advance(5_000);
    let world = lounge_world_resumed(&db, config);
    let room = world.room(&RoomId::new("lounge")).unwrap();
    let until = clock.now_ms() + 60_000;
    let mut c = Person::enter(&room, user(&db, "Chidi"), 1024).await;
    let away = c.next_of("room").await["away"].clone();
    let mut expected = vec![
        json!({"table": "t1", "seat": seat_of(&started, ade.id.as_str()),
               "user": {"id": ade.id, "name": "Ade"}, "until": until}),
        json!({"table": "t1", "seat": seat_of(&started, bisi.id.as_str()),
               "user": {"id": bisi.id, "name": "Bisi"}, "until": until}),
    ];
    // South first.
    if expected[0]["seat"] == "north" {
        expected.reverse();
    }
    assert_eq!(away, json!(expected));
    let mut a = Person::enter(&room, ade.clone(), 1024).await;
    let mine = a.next_of("room").await;
    assert_eq!(mine["away"].as_array().unwrap().len(), 1, "{mine}");
    assert_eq!(mine["away"][0]["user"]["id"], bisi.id.as_str());
    let back = c.next_of("back").await;
    assert_eq!(back["user"]["id"], ade.id.as_str());
    assert_eq!(back["table"], "t1");
}
