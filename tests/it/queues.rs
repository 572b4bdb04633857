//! A queue at a table, over real sockets as a client written to docs/protocol.md sees it:
//! joining and leaving, the winner staying on and the first waiting called opposite, a call
//! not taken in time (on the hand-driven clock), a queued guest who leaves, the queue at home
//! turned on by the owner and off by an operator.

use serde_json::{json, Value};

use crate::helpers::ws::seat_of;
use crate::helpers::{game_between_two, TestApp, TestDb, Ws};

const ROOM: &str = "surulere-games-lounge";
const TABLE: &str = "surulere-games-lounge-1";

/// A guest in the lounge: their socket, token and id.
async fn in_lounge(app: &TestApp, name: &str) -> (Ws, String, String) {
    let (token, id) = app.guest(name).await;
    let mut ws = app.ws(&token).await;
    ws.enter(ROOM).await;
    (ws, token, id)
}

/// The next `table` message for `table` whose queue satisfies `test`.
async fn queue_until(ws: &mut Ws, table: &str, test: impl Fn(&Value) -> bool) -> Value {
    loop {
        let m = ws.next_of("table").await;
        if m["id"] == table && test(&m["queue"]) {
            return m;
        }
    }
}

/// The two players of a `game_started`, by name in order (under the lounge's `lots` the
/// lots seat the match's first player South, whoever sat there).
fn players_of(started: &Value) -> [&str; 2] {
    let mut players = [
        started["players"]["south"]["name"].as_str().unwrap(),
        started["players"]["north"]["name"].as_str().unwrap(),
    ];
    players.sort_unstable();
    players
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .map(|l| {
            l.iter()
                .map(|u| u["name"].as_str().or(u["user"]["name"].as_str()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

#[actix_web::test]
async fn the_winner_stays_on_and_the_first_in_the_queue_sits_opposite() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut ade, mut bisi, mut chidi, _, ade_id, started, _) = game_between_two(&app).await;
    let (mut dayo, _, _) = in_lounge(&app, "Dayo").await;
    chidi.send(json!({"type": "queue", "table": TABLE})).await;
    let seen = queue_until(&mut dayo, TABLE, |q| names(&q["waiting"]) == ["Chidi"]).await;
    assert_eq!(seen["queue"]["straight_wins"], 3, "{seen}");
    assert_eq!(
        seen["queue"]["called"],
        json!([]),
        "nobody is called during a match"
    );
    dayo.send(json!({"type": "queue", "table": TABLE, "ref": "q"}))
        .await;
    queue_until(&mut ade, TABLE, |q| {
        names(&q["waiting"]) == ["Chidi", "Dayo"]
    })
    .await;
    // A player cannot queue at their own table.
    ade.send(json!({"type": "queue", "table": TABLE, "ref": "mine"}))
        .await;
    let refused = ade.next_of("error").await;
    assert_eq!(
        (&refused["code"], &refused["ref"]),
        (&json!("already_seated"), &json!("mine"))
    );

    let ade_seat = seat_of(&started, &ade_id);
    bisi.send(json!({"type": "resign", "table": TABLE, "scope": "match"}))
        .await;
    let over = ade.next_of("match_over").await;
    assert_eq!(over["winner"]["id"], ade_id.as_str(), "{over}");
    let called = chidi.next_of("queue_called").await;
    let opposite = if ade_seat == "south" {
        "north"
    } else {
        "south"
    };
    assert_eq!(
        (&called["table"], &called["seat"]),
        (&json!(TABLE), &json!(opposite)),
        "{called}"
    );
    let shown = queue_until(&mut dayo, TABLE, |q| {
        !q["called"].as_array().unwrap().is_empty()
    })
    .await;
    assert_eq!(
        shown["seats"][ade_seat]["id"],
        ade_id.as_str(),
        "the winner stays on: {shown}"
    );
    assert_eq!(shown["seats"][opposite], Value::Null);
    assert_eq!(
        shown["rematch"],
        Value::Null,
        "no rematch while guests wait"
    );
    assert_eq!(shown["queue"]["streak"], json!({"user": ade_id, "wins": 1}));
    assert_eq!(names(&shown["queue"]["waiting"]), ["Dayo"]);

    // Bisi cannot jump the queue; Chidi takes the seat and the match starts.
    bisi.send(json!({"type": "sit", "table": TABLE, "seat": opposite, "ref": "jump"}))
        .await;
    assert_eq!(bisi.next_of("error").await["code"], "seat_taken");
    chidi
        .send(json!({"type": "sit", "table": TABLE, "seat": opposite}))
        .await;
    let next = dayo.next_of("game_started").await;
    assert_eq!(players_of(&next), ["Ade", "Chidi"], "{next}");

    // Dayo leaves the queue on purpose, and is told.
    dayo.send(json!({"type": "unqueue", "table": TABLE})).await;
    let left = dayo.next_of("queue_left").await;
    assert_eq!(
        left,
        json!({"type": "queue_left", "table": TABLE, "reason": "asked"})
    );
    dayo.send(json!({"type": "unqueue", "table": TABLE, "ref": "again"}))
        .await;
    assert_eq!(dayo.next_of("error").await["code"], "not_queued");
}

#[actix_web::test]
async fn a_call_not_taken_in_time_goes_to_the_next_and_a_guest_who_leaves_loses_the_place() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut ade, _, _) = in_lounge(&app, "Ade").await;
    let (mut bisi, _, _) = in_lounge(&app, "Bisi").await;
    let (mut chidi, _, _) = in_lounge(&app, "Chidi").await;
    let (mut dayo, _, _) = in_lounge(&app, "Dayo").await;
    // At a free table the first to queue is called at once, the second to the other seat.
    ade.send(json!({"type": "queue", "table": TABLE})).await;
    let called = ade.next_of("queue_called").await;
    assert_eq!(called["seat"], "south", "{called}");
    bisi.send(json!({"type": "queue", "table": TABLE})).await;
    assert_eq!(bisi.next_of("queue_called").await["seat"], "north");
    // Two sockets' messages reach the room in no set order: Chidi's is in before Dayo's goes.
    chidi.send(json!({"type": "queue", "table": TABLE})).await;
    queue_until(&mut chidi, TABLE, |q| names(&q["waiting"]) == ["Chidi"]).await;
    dayo.send(json!({"type": "queue", "table": TABLE})).await;
    queue_until(&mut dayo, TABLE, |q| {
        names(&q["waiting"]) == ["Chidi", "Dayo"]
    })
    .await;
    // A guest waits at one table at a time: Chidi queuing at the third table leaves this
    // queue, and comes back to it at the end.
    chidi
        .send(json!({"type": "queue", "table": "surulere-games-lounge-3"}))
        .await;
    let moved = chidi.next_of("queue_left").await;
    assert_eq!(
        (&moved["table"], &moved["reason"]),
        (&json!(TABLE), &json!("other_table")),
        "{moved}"
    );
    chidi.send(json!({"type": "queue", "table": TABLE})).await;
    queue_until(&mut dayo, TABLE, |q| {
        names(&q["waiting"]) == ["Dayo", "Chidi"]
    })
    .await;
    // Chidi leaves the room: out of the queue.
    chidi.send(json!({"type": "leave"})).await;
    queue_until(&mut dayo, TABLE, |q| names(&q["waiting"]) == ["Dayo"]).await;
    // Ade sits; Bisi lets the call lapse and Dayo is called to North.
    ade.send(json!({"type": "sit", "table": TABLE, "seat": "south"}))
        .await;
    queue_until(&mut dayo, TABLE, |q| {
        q["called"].as_array().unwrap().len() == 1
    })
    .await;
    app.clock.advance(20_000);
    let lapsed = bisi.next_of("queue_left").await;
    assert_eq!(lapsed["reason"], "lapsed", "{lapsed}");
    let called = dayo.next_of("queue_called").await;
    assert_eq!(called["seat"], "north");
    dayo.send(json!({"type": "sit", "table": TABLE, "seat": "north"}))
        .await;
    let started = ade.next_of("game_started").await;
    assert_eq!(players_of(&started), ["Ade", "Dayo"], "{started}");
}

#[actix_web::test]
async fn a_home_board_queues_when_its_owner_says_and_an_operator_turns_a_lounge_table_off() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (owner_token, owner_id) = app.guest("Funmi").await;
    let board = app.place_a_board(&owner_token).await;
    let home = format!("apartment-{owner_id}");
    let mut owner = app.ws(&owner_token).await;
    owner.enter(&home).await;
    owner.send(json!({"type": "queue", "table": board})).await;
    assert_eq!(owner.next_of("error").await["code"], "queue_off");
    let (status, body) = app
        .change_board(&owner_token, &board, json!({"queue": true}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["table"]["queue"]["waiting"], json!([]), "{body}");
    owner.send(json!({"type": "queue", "table": board})).await;
    assert_eq!(owner.next_of("queue_called").await["table"], board.as_str());
    let (status, body) = app
        .change_board(&owner_token, &board, json!({"queue": "yes"}))
        .await;
    assert_eq!(status, 400, "{body}");
    // Another guest's board is not theirs to change.
    let (other, _) = app.guest("Gbenga").await;
    let (status, _) = app
        .change_board(&other, &board, json!({"queue": true}))
        .await;
    assert_eq!(status, 404);

    // An operator turns the lounge table's queue off: those in it are told, and the
    // change is audited.
    let (mut ade, _, _) = in_lounge(&app, "Ade").await;
    ade.send(json!({"type": "queue", "table": TABLE})).await;
    ade.next_of("queue_called").await;
    let admin = app.admin_token("ops");
    let (status, body) = app
        .change_table(&admin, ROOM, TABLE, json!({"queue": false}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["table"].get("queue"), None, "{body}");
    let left = ade.next_of("queue_left").await;
    assert_eq!(left["reason"], "closed");
    ade.send(json!({"type": "queue", "table": TABLE})).await;
    assert_eq!(ade.next_of("error").await["code"], "queue_off");
    let (status, body) = app.change_table(&admin, ROOM, TABLE, json!({})).await;
    assert_eq!(status, 400, "{body}");
    let (_, audit) = app.audit(&admin, crate::helpers::Page::default()).await;
    assert!(
        audit.to_string().contains("table.queue"),
        "the change is in the audit log: {audit}"
    );
}

#[actix_web::test]
async fn the_queue_setting_is_stored_and_read_back_when_the_room_opens_elsewhere() {
    for db in TestDb::both() {
        let first = TestApp::spawn(db.again()).await;
        let admin = first.admin_token("ops");
        let (status, body) = first
            .change_table(&admin, ROOM, TABLE, json!({"queue": false}))
            .await;
        assert_eq!(status, 200, "{body}");
        // Another instance of the hotel opens the lounge from the store.
        let second = TestApp::spawn(db).await;
        let (mut ade, _, _) = in_lounge(&second, "Ade").await;
        ade.send(json!({"type": "queue", "table": TABLE})).await;
        assert_eq!(ade.next_of("error").await["code"], "queue_off");
    }
}
