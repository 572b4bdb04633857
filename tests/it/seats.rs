//! Seats kept (`seats: "kept"`), over real sockets as a client written to docs/protocol.md
//! sees them: the host sits North and invites, the guest sits South, nobody moves, lots decide
//! who moves first and the first move swaps every game.

use serde_json::{json, Value};

use crate::helpers::{TestApp, TestDb, Ws};

const ROOM: &str = "surulere-games-lounge";
const TABLE: &str = "surulere-games-lounge-1";

/// Ade hosts North under `kept`, best of 3 on `clock`, and invites Bisi, who accepts: both
/// sockets, both ids, Ade's and Bisi's tokens, and `game_started` as each saw it.
pub async fn kept_match(
    app: &TestApp,
    clock: &str,
) -> ([Ws; 2], [String; 2], [String; 2], [Value; 2]) {
    let (ta, a_id) = app.guest("Ade").await;
    let (tb, b_id) = app.guest("Bisi").await;
    let (mut a, mut b) = (app.ws(&ta).await, app.ws(&tb).await);
    for ws in [&mut a, &mut b] {
        ws.send(json!({"type": "enter", "room": ROOM})).await;
        ws.next_of("room").await;
    }
    a.send(json!({"type": "sit", "table": TABLE, "seat": "north", "seats": "kept"}))
        .await;
    let table = a.next_of("table").await;
    assert_eq!(table["settings"]["seats"], "kept", "{table}");
    assert_eq!(table["seats"]["north"]["id"], a_id.as_str());
    a.send(json!({"type": "set_match", "table": TABLE, "best_of": 3, "clock": clock}))
        .await;
    let table = a.next_of("table").await;
    let settings = &table["settings"];
    assert_eq!(
        (&settings["best_of"], &settings["seats"]),
        (&json!(3), &json!("kept")),
        "set_match without seats leaves them as sit chose: {settings}"
    );
    a.send(json!({"type": "invite", "table": TABLE, "user": b_id}))
        .await;
    let invitation = b.next_of("invitation").await;
    assert_eq!(invitation["settings"]["seats"], "kept", "{invitation}");
    b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = [
        a.next_of("game_started").await,
        b.next_of("game_started").await,
    ];
    ([a, b], [a_id, b_id], [ta, tb], started)
}

/// The other side.
fn other(side: &str) -> &'static str {
    if side == "south" {
        "north"
    } else {
        "south"
    }
}

#[actix_web::test]
async fn kept_seats_stay_put_lots_name_the_first_mover_and_only_they_may_move() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let ([mut a, mut b], [a_id, b_id], _, [started, seen_by_b]) = kept_match(&app, "none").await;
    assert_eq!(
        started["players"]["north"]["id"],
        a_id.as_str(),
        "{started}"
    );
    assert_eq!(started["players"]["south"]["id"], b_id.as_str());
    let first = started["first"].as_str().expect("first").to_owned();
    assert!(first == "south" || first == "north", "{started}");
    assert_eq!(started["state"]["to_move"], first.as_str());
    let starter = &started["players"][first.as_str()];
    assert_eq!(started["lots"], json!({"starts": starter}), "{started}");
    assert_eq!(started["match"]["players"][0], *starter);
    assert_eq!(seen_by_b["first"], first.as_str());
    assert_eq!(seen_by_b["lots"], started["lots"]);
    let (mover, waiter) = if first == "north" {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    // Out of turn: refused as not their turn.
    waiter
        .send(json!({"type": "move", "table": TABLE, "pit": 1, "ref": "early"}))
        .await;
    let refused = waiter.next_of("error").await;
    assert_eq!(refused["code"], "not_your_turn", "{refused}");
    let pit = started["state"]["legal"][0].clone();
    mover
        .send(json!({"type": "move", "table": TABLE, "pit": pit}))
        .await;
    let moved = mover.next_of("game_state").await;
    assert_eq!(moved["last_move"]["seat"], first.as_str(), "{moved}");
    assert_eq!(moved["state"]["to_move"], other(&first));
    // A snapshot (entering again) shows the game's first mover and its moves from it.
    a.send(json!({"type": "enter", "room": ROOM})).await;
    let room = a.next_of("room").await;
    assert_eq!(
        room["tables"][0]["settings"],
        json!({"clock": {"kind": "none"}, "best_of": 3, "seats": "kept", "rated": true})
    );
    let game = &room["tables"][0]["game"];
    assert_eq!(game["first"], first.as_str(), "{room}");
    assert_eq!(game["moves"], json!([pit]));
    assert_eq!(room["tables"][0]["seats"]["north"]["id"], a_id.as_str());

    // Game 2: Ade resigns game 1; both press start. The first move swaps, seats stay.
    a.send(json!({"type": "resign", "table": TABLE})).await;
    a.next_of("game_over").await;
    for ws in [&mut a, &mut b] {
        ws.send(json!({"type": "start", "table": TABLE})).await;
    }
    let second = a.next_of("game_started").await;
    assert_eq!(second["first"], other(&first), "{second}");
    assert_eq!(second["state"]["to_move"], other(&first));
    assert!(
        second.get("lots").is_none(),
        "lots only in game 1: {second}"
    );
    assert_eq!(second["players"], started["players"], "nobody moved");
    assert_eq!(second["match"]["players"], started["match"]["players"]);
}

#[actix_web::test]
async fn without_seats_the_lots_seat_their_winner_south_as_the_contract_says() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (ta, _) = app.guest("Ade").await;
    let (tb, b_id) = app.guest("Bisi").await;
    let (mut a, mut b) = (app.ws(&ta).await, app.ws(&tb).await);
    for ws in [&mut a, &mut b] {
        ws.send(json!({"type": "enter", "room": ROOM})).await;
        ws.next_of("room").await;
    }
    a.send(json!({"type": "sit", "table": TABLE, "seat": "north"}))
        .await;
    let table = a.next_of("table").await;
    assert_eq!(table["settings"]["seats"], "lots", "{table}");
    a.send(json!({"type": "set_match", "table": TABLE, "seats": "upside_down", "ref": "bad"}))
        .await;
    let bad = a.next_of("error").await;
    assert_eq!(bad["code"], "bad_settings", "{bad}");
    a.send(json!({"type": "invite", "table": TABLE, "user": b_id}))
        .await;
    let invitation = b.next_of("invitation").await;
    assert_eq!(invitation["settings"]["seats"], "lots", "{invitation}");
    b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = a.next_of("game_started").await;
    assert_eq!(started["first"], "south", "{started}");
    assert_eq!(started["state"]["to_move"], "south");
    assert_eq!(started["lots"]["starts"], started["players"]["south"]);
    assert_eq!(started["match"]["players"][0], started["players"]["south"]);
}
