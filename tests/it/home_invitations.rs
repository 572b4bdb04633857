//! Invitations home (`POST /api/v1/me/apartment/invitations`): the guest goes on the list and
//! is told on their live connection wherever they are; the blocked are listed but not told,
//! the offline just listed, and an owner invites a few a minute.

use serde_json::{json, Value};

use crate::helpers::{TestApp, TestDb, Ws};

/// The `home_invitation` Ade's apartment sends.
fn from_ade(ade: &str, name: &Value) -> Value {
    json!({"type": "home_invitation", "from": {"id": ade, "name": "Ade"},
           "room": format!("apartment-{ade}"), "name": name})
}

#[actix_web::test]
async fn the_invitation_reaches_the_guest_in_the_lounge_in_an_apartment_or_in_no_room() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (ta, ade) = app.guest("Ade").await;
    let name = app.me(&ta).await.1["apartment"]["name"].clone();
    let (tb, bisi) = app.guest("Bisi").await;
    let (tc, chidi) = app.guest("Chidi").await;
    let (td, dayo) = app.guest("Dayo").await;
    let (te, efe) = app.guest("Efe").await;
    let mut b = app.ws(&tb).await;
    b.enter("surulere-games-lounge").await;
    // Chidi is at Dayo's, whose door is open.
    assert_eq!(app.set_door(&td, "open").await.0, 200);
    let mut c = app.ws(&tc).await;
    assert_eq!(c.enter(&format!("apartment-{dayo}")).await["type"], "room");
    // Efe is connected, in no room.
    let mut e = app.ws(&te).await;
    for (ws, id) in [(&mut b, &bisi), (&mut c, &chidi), (&mut e, &efe)] {
        let (status, body, _) = app.invite_home(&ta, id).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["delivered"], true);
        assert_eq!(body["user"]["id"], id.as_str());
        assert!(body["apartment"]["guests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id.as_str()));
        assert_eq!(ws.next_of("home_invitation").await, from_ade(&ade, &name));
    }
    // The door lets the invited in (the door is `invited`).
    for ws in [&mut b, &mut c, &mut e] {
        let room = ws.enter(&format!("apartment-{ade}")).await;
        assert_eq!(room["type"], "room", "{room}");
        assert_eq!(room["room"]["owner"], ade.as_str());
    }
}

#[actix_web::test]
async fn the_offline_are_listed_the_blocked_not_told_and_an_owner_invites_a_few_a_minute() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (ta, ade) = app.guest("Ade").await;
    let (tb, bisi) = app.guest("Bisi").await;
    let (_, femi) = app.guest("Femi").await;
    // Refused before anything is done (and not counted).
    let (status, body, _) = app.invite_home(&ta, "nobody").await;
    assert_eq!((status, &body["error"]["code"]), (404, &json!("not_found")));
    let (status, body, _) = app.invite_home(&ta, &ade).await;
    assert_eq!((status, &body["error"]["field"]), (400, &json!("user")));
    // Offline: on the list, not delivered.
    let (status, body, _) = app.invite_home(&ta, &femi).await;
    assert_eq!((status, &body["delivered"]), (201, &json!(false)), "{body}");
    // Bisi blocks Ade: listed, answered as told, never told.
    assert_eq!(app.block(&tb, &ade).await.0, 204);
    let mut b: Ws = app.ws(&tb).await;
    let (status, body, _) = app.invite_home(&ta, &bisi).await;
    assert_eq!((status, &body["delivered"]), (201, &json!(true)), "{body}");
    b.send(json!({"type": "ping", "ref": "after"})).await;
    assert_eq!(b.next().await, json!({"type": "pong", "ref": "after"}));
    assert!(app.me(&ta).await.1["apartment"]["guests"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["id"] == bisi.as_str()));
    // Five a minute: three more go, the next waits 12 s.
    for _ in 0..3 {
        assert_eq!(app.invite_home(&ta, &femi).await.0, 201);
    }
    let (status, body, headers) = app.invite_home(&ta, &femi).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (429, &json!("too_many_invitations"))
    );
    assert_eq!(headers.get("retry-after").unwrap(), "12");
    app.clock.advance(12_000);
    assert_eq!(app.invite_home(&ta, &femi).await.0, 201);
}
