//! A lounge that stays civil: slow mode, mutes, putting a guest out, taking a chat line away
//! (an operator's, each audited and stored), blocking (a guest's), and a few invitations a
//! minute. Time moves on the injected clock, never by sleeping.

use serde_json::{json, Value};

use crate::helpers::{on_both, Page, TestApp, TestDb, Ws};

const LOUNGE: &str = "surulere-games-lounge";
const TALK: &str = "gist-lounge";

/// A guest's socket, in `room`; (socket, token, id).
async fn guest_in(app: &TestApp, name: &str, room: &str) -> (Ws, String, String) {
    let (token, id) = app.guest(name).await;
    let mut ws = app.ws(&token).await;
    assert_eq!(ws.enter(room).await["type"], "room");
    (ws, token, id)
}

/// Says `text` and returns the answer: the line as the room sent it back, or the error.
pub(crate) async fn say(ws: &mut Ws, text: &str) -> Value {
    ws.send(json!({"type": "chat", "text": text, "ref": text}))
        .await;
    loop {
        let m = ws.next().await;
        if (m["type"] == "chat" && m["text"] == text) || (m["type"] == "error" && m["ref"] == text)
        {
            return m;
        }
    }
}

/// The newest audit entry's action.
async fn last_audited(app: &TestApp, admin: &str) -> Value {
    let (status, audit) = app.audit(admin, Page::limit("1")).await;
    assert_eq!(status, 200, "{audit}");
    audit["entries"][0].clone()
}

#[actix_web::test]
async fn an_operators_slow_mode_holds_each_guest_back_and_everyone_is_told() {
    on_both(|app| async move {
        let admin = app.admin_token("ada");
        let (mut a, _, _) = guest_in(&app, "Ade", TALK).await;
        let (mut b, _, _) = guest_in(&app, "Bisi", TALK).await;
        let (status, body) = app.set_slow_mode(&admin, TALK, 10).await;
        assert_eq!((status, &body["seconds"]), (200, &json!(10)), "{body}");
        for ws in [&mut a, &mut b] {
            let on = ws.next_of("slow_mode").await;
            assert_eq!(
                (&on["room"], &on["seconds"], &on["auto"]),
                (&json!(TALK), &json!(10), &json!(false))
            );
        }
        assert_eq!(say(&mut a, "one").await["type"], "chat");
        let now = app.clock.now_ms();
        let refused = say(&mut a, "two").await;
        assert_eq!(refused["code"], "slow_mode", "{refused}");
        let until = refused["until"].as_u64().expect("until");
        assert!(until > now && until <= now + 10_000, "{refused}");
        // Another guest is not held back by Ade's line.
        assert_eq!(say(&mut b, "mine").await["type"], "chat");
        // Someone coming in sees it in the snapshot.
        let (token, _) = app.guest("Chidi").await;
        let mut c = app.ws(&token).await;
        assert_eq!(c.enter(TALK).await["slow_mode"]["seconds"], 10);
        app.clock.advance(10_000);
        assert_eq!(say(&mut a, "three").await["type"], "chat");
        assert_eq!(last_audited(&app, &admin).await["action"], "room.slow_mode");
        // Off again.
        assert_eq!(app.set_slow_mode(&admin, TALK, 0).await.0, 200);
        assert_eq!(c.next_of("slow_mode").await["seconds"], 0);
        assert_eq!(say(&mut a, "four").await["type"], "chat");
        assert_eq!(say(&mut a, "five").await["type"], "chat");
        // Out of range, and a room that does not exist.
        let (status, body) = app.set_slow_mode(&admin, TALK, 3601).await;
        assert_eq!(
            (status, &body["error"]["field"]),
            (400, &json!("seconds")),
            "{body}"
        );
        assert_eq!(app.set_slow_mode(&admin, "nowhere", 5).await.0, 404);
        let (player, _) = app.guest("Dayo").await;
        assert_eq!(app.set_slow_mode(&player, TALK, 5).await.0, 403);
    })
    .await;
}

#[actix_web::test]
async fn a_muted_guest_is_refused_in_every_room_until_the_mute_ends_and_is_told() {
    on_both(|app| async move {
        let admin = app.admin_token("ada");
        let (mut a, _, a_id) = guest_in(&app, "Ade", TALK).await;
        let (status, body) = app
            .mute(&admin, &a_id, json!({"seconds": 60, "reason": "shouting"}))
            .await;
        assert_eq!(status, 200, "{body}");
        let until = body["until"].as_u64().unwrap();
        let told = a.next_of("muted").await;
        assert_eq!(
            (&told["until"], &told["reason"]),
            (&json!(until), &json!("shouting"))
        );
        let refused = say(&mut a, "hello").await;
        assert_eq!(
            (&refused["code"], &refused["until"]),
            (&json!("muted"), &json!(until))
        );
        // In every room.
        assert_eq!(a.enter(LOUNGE).await["type"], "room");
        assert_eq!(say(&mut a, "hello").await["code"], "muted");
        let audited = last_audited(&app, &admin).await;
        assert_eq!(
            (&audited["action"], &audited["target"]),
            (&json!("user.mute"), &json!(a_id))
        );
        app.clock.advance(60_000);
        assert_eq!(say(&mut a, "back").await["type"], "chat");
        // Muted again, then lifted by the operator.
        assert_eq!(
            app.mute(&admin, &a_id, json!({"seconds": 600})).await.0,
            200
        );
        a.next_of("muted").await;
        assert_eq!(app.unmute(&admin, &a_id).await.0, 204);
        assert_eq!(a.next_of("muted").await["until"], Value::Null);
        assert_eq!(say(&mut a, "free").await["type"], "chat");
        assert_eq!(app.unmute(&admin, &a_id).await.0, 404);
        // Bad input loses nothing.
        let (status, body) = app.mute(&admin, &a_id, json!({"seconds": 0})).await;
        assert_eq!(
            (status, &body["error"]["field"]),
            (400, &json!("seconds")),
            "{body}"
        );
        let long = "x".repeat(201);
        let (status, body) = app
            .mute(&admin, &a_id, json!({"seconds": 5, "reason": long}))
            .await;
        assert_eq!(
            (status, &body["error"]["field"]),
            (400, &json!("reason")),
            "{body}"
        );
        assert_eq!(
            app.mute(&admin, "nobody", json!({"seconds": 5})).await.0,
            404
        );
    })
    .await;
}

#[actix_web::test]
async fn a_guest_put_out_leaves_at_once_and_cannot_come_back_for_a_while() {
    on_both(|app| async move {
        let admin = app.admin_token("ada");
        let (mut a, _, a_id) = guest_in(&app, "Ade", LOUNGE).await;
        let (mut b, _, _) = guest_in(&app, "Bisi", LOUNGE).await;
        let table = format!("{LOUNGE}-1");
        a.send(json!({"type": "sit", "table": table, "seat": "south"}))
            .await;
        a.next_of("table").await;
        let body = json!({"user": a_id, "seconds": 120, "reason": "rude"});
        let (status, out) = app.put_out(&admin, LOUNGE, body).await;
        assert_eq!(status, 200, "{out}");
        let until = out["until"].as_u64().unwrap();
        let told = a.next_of("put_out").await;
        assert_eq!(
            (&told["room"], &told["until"], &told["reason"]),
            (&json!(LOUNGE), &json!(until), &json!("rude"))
        );
        // Gone from the room, seat and all; still connected, in no room.
        assert_eq!(b.next_of("occupant_left").await["user"]["id"], a_id);
        assert_eq!(say(&mut a, "hello?").await["code"], "not_in_room");
        let back = a.enter(LOUNGE).await;
        assert_eq!(
            (&back["code"], &back["until"]),
            (&json!("barred"), &json!(until)),
            "{back}"
        );
        assert_eq!(a.enter(TALK).await["type"], "room");
        let audited = last_audited(&app, &admin).await;
        assert_eq!(
            (&audited["action"], &audited["target"]),
            (&json!("room.put_out"), &json!(LOUNGE))
        );
        app.clock.advance(120_000);
        let room = a.enter(LOUNGE).await;
        assert_eq!(room["type"], "room", "{room}");
        assert!(room["tables"][0]["seats"]["south"].is_null(), "{room}");
        // Without a time: the configured one; unknown guests and rooms are 404.
        let (_, out) = app.put_out(&admin, LOUNGE, json!({"user": a_id})).await;
        assert_eq!(out["until"].as_u64().unwrap(), app.clock.now_ms() + 600_000);
        assert_eq!(
            app.put_out(&admin, LOUNGE, json!({"user": "nobody"}))
                .await
                .0,
            404
        );
        assert_eq!(
            app.put_out(&admin, "nowhere", json!({"user": a_id}))
                .await
                .0,
            404
        );
        let (status, _) = app
            .put_out(&admin, LOUNGE, json!({"user": a_id, "seconds": 0}))
            .await;
        assert_eq!(status, 400);
    })
    .await;
}

#[actix_web::test]
async fn an_operator_takes_a_chat_line_away_for_everyone() {
    on_both(|app| async move {
        let admin = app.admin_token("ada");
        let (mut a, _, _) = guest_in(&app, "Ade", TALK).await;
        let (mut b, _, _) = guest_in(&app, "Bisi", TALK).await;
        let line = say(&mut a, "something rude").await;
        let id = line["id"].as_u64().expect("a line has an id");
        assert_eq!(b.next_of("chat").await["id"], id);
        let (status, body) = app.remove_chat_line(&admin, TALK, &id.to_string()).await;
        assert_eq!(status, 204, "{body}");
        for ws in [&mut a, &mut b] {
            let removed = ws.next_of("chat_removed").await;
            assert_eq!(
                (&removed["room"], &removed["id"]),
                (&json!(TALK), &json!(id))
            );
        }
        let audited = last_audited(&app, &admin).await;
        assert_eq!(
            (&audited["action"], &audited["target"]),
            (&json!("chat.remove"), &json!(TALK))
        );
        assert_eq!(app.remove_chat_line(&admin, TALK, "999").await.0, 404);
        let (status, body) = app.remove_chat_line(&admin, TALK, "first").await;
        assert_eq!(
            (status, &body["error"]["field"]),
            (400, &json!("line")),
            "{body}"
        );
    })
    .await;
}

#[actix_web::test]
async fn a_blocked_guest_is_not_heard_and_cannot_invite() {
    on_both(|app| async move {
        let (mut a, ta, a_id) = guest_in(&app, "Ade", LOUNGE).await;
        let (mut b, _, b_id) = guest_in(&app, "Bisi", LOUNGE).await;
        let (mut c, _, _) = guest_in(&app, "Chidi", LOUNGE).await;
        assert_eq!(app.block(&ta, &b_id).await.0, 204);
        assert_eq!(app.block(&ta, &b_id).await.0, 204, "again is fine");
        let (status, blocks) = app.blocks(&ta).await;
        assert_eq!(status, 200);
        assert_eq!(blocks["blocks"], json!([{"id": b_id, "name": "Bisi"}]));
        // Bisi's line reaches Chidi, not Ade: the next line Ade hears is Chidi's.
        say(&mut b, "from bisi").await;
        assert_eq!(c.next_of("chat").await["text"], "from bisi");
        say(&mut c, "from chidi").await;
        assert_eq!(a.next_of("chat").await["text"], "from chidi");
        // Bisi's invitation is refused without saying why more than needed.
        let table = format!("{LOUNGE}-1");
        b.send(json!({"type": "sit", "table": table, "seat": "south"}))
            .await;
        b.send(json!({"type": "invite", "table": table, "user": a_id, "ref": "inv"}))
            .await;
        let refused = b.next_of("error").await;
        assert_eq!(
            (&refused["code"], &refused["ref"]),
            (&json!("bad_invitation"), &json!("inv"))
        );
        assert!(
            !refused["message"].as_str().unwrap().contains("block"),
            "{refused}"
        );
        // Unblocked: heard again.
        assert_eq!(app.unblock(&ta, &b_id).await.0, 204);
        assert_eq!(app.unblock(&ta, &b_id).await.0, 404);
        say(&mut b, "heard again").await;
        assert_eq!(a.next_of("chat").await["text"], "heard again");
        // Oneself, nobody.
        let (status, body) = app.block(&ta, &a_id).await;
        assert_eq!(
            (status, &body["error"]["field"]),
            (400, &json!("user")),
            "{body}"
        );
        assert_eq!(app.block(&ta, "nobody").await.0, 404);
        assert_eq!(app.blocks(&app.admin_token("ada")).await.0, 403);
    })
    .await;
}

#[actix_web::test]
async fn one_guest_sends_another_a_few_invitations_a_minute() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (mut a, _, _) = guest_in(&app, "Ade", LOUNGE).await;
    let (mut b, _, b_id) = guest_in(&app, "Bisi", LOUNGE).await;
    let (_c, _, c_id) = guest_in(&app, "Chidi", LOUNGE).await;
    let table = format!("{LOUNGE}-1");
    a.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    let invite = |to: &str, r: u32| json!({"type": "invite", "table": table, "user": to, "ref": r});
    for r in 0..5 {
        a.send(invite(&b_id, r)).await;
        assert_eq!(a.next_of("invitation_sent").await["ref"], r);
        assert_eq!(b.next_of("invitation").await["from"]["name"], "Ade");
    }
    let now = app.clock.now_ms();
    a.send(invite(&b_id, 5)).await;
    let refused = a.next_of("error").await;
    assert_eq!(
        (&refused["code"], &refused["ref"]),
        (&json!("too_many_invitations"), &json!(5)),
        "{refused}"
    );
    assert_eq!(refused["until"].as_u64().unwrap(), now + 60_000);
    // Another guest is another allowance.
    a.send(invite(&c_id, 6)).await;
    assert_eq!(a.next_of("invitation_sent").await["ref"], 6);
    // A minute on: again.
    app.clock.advance(60_000);
    a.send(invite(&b_id, 7)).await;
    assert_eq!(a.next_of("invitation_sent").await["ref"], 7);
}

#[actix_web::test]
async fn moderation_outlives_a_restart() {
    on_both(|app| async move {
        let admin = app.admin_token("ada");
        let (_a, ta, a_id) = guest_in(&app, "Ade", LOUNGE).await;
        let (_b, tb, b_id) = guest_in(&app, "Bisi", TALK).await;
        assert_eq!(
            app.mute(&admin, &b_id, json!({"seconds": 600})).await.0,
            200
        );
        assert_eq!(
            app.put_out(&admin, LOUNGE, json!({"user": a_id})).await.0,
            200
        );
        assert_eq!(app.set_slow_mode(&admin, TALK, 30).await.0, 200);
        // A second service over the same database starts from what is stored.
        let again = app.again().await;
        let mut a = again.ws(&ta).await;
        assert_eq!(a.enter(LOUNGE).await["code"], "barred");
        let mut b = again.ws(&tb).await;
        assert_eq!(b.enter(TALK).await["slow_mode"]["seconds"], 30);
        assert_eq!(say(&mut b, "still muted?").await["code"], "muted");
    })
    .await;
}

/// Changes at the tables reach everyone in the room: a guest churning a seat spends a budget of
/// them (a burst, then a few a minute), and the room hears no more than that. A rematch pressed
/// again and again is one offer.
#[actix_web::test]
async fn a_guest_churning_a_seat_spends_a_budget_and_the_room_hears_no_more() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__WS_BURST", "1000"),
            // As configured by default (the tests' own settings lift it).
            ("LOUNGE_CIVILITY__TABLE_CHANGES_BURST", "12"),
            ("LOUNGE_CIVILITY__TABLE_CHANGES_PER_MINUTE", "30"),
        ],
    )
    .await;
    let table = "surulere-games-lounge-1";
    let (mut churner, _, _) = guest_in(&app, "Churner", LOUNGE).await;
    let (mut bystander, _, _) = guest_in(&app, "Bystander", LOUNGE).await;
    for n in 0..60 {
        let message = if n % 2 == 0 {
            json!({"type": "sit", "table": table, "seat": "south", "ref": n})
        } else {
            json!({"type": "stand", "table": table, "ref": n})
        };
        churner.send(message).await;
    }
    churner.send(json!({"type": "chat", "text": "done"})).await;
    let mut limited = 0;
    loop {
        let m = churner.next().await;
        if m["type"] == "chat" && m["text"] == "done" {
            break;
        }
        if m["type"] == "error" {
            assert_eq!(m["code"], "rate_limited", "{m}");
            assert!(m["until"].as_u64() > Some(app.clock.now_ms()), "{m}");
            limited += 1;
        }
    }
    let mut heard = 0;
    loop {
        let m = bystander.next().await;
        if m["type"] == "chat" && m["text"] == "done" {
            break;
        }
        heard += usize::from(m["type"] == "table");
    }
    // The default burst is 12 changes: 48 of 60 refused, and the room heard 12 at most.
    assert_eq!(limited, 48);
    assert!(heard <= 12, "the bystander heard {heard} table messages");
    // A minute later the budget has come back.
    app.clock.advance(60_000);
    churner
        .send(json!({"type": "sit", "table": table, "seat": "south", "ref": "back"}))
        .await;
    assert_eq!(bystander.next_of("table").await["id"], table);
}
