//! WebSocket tickets: `POST /api/v1/auth/ws-ticket` and `GET /ws?ticket=…`, spent once,
//! expiring on the server's clock, a few a user; the token ways still open the socket.

use serde_json::json;

use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_ticket_opens_the_socket_once_for_the_user_of_its_token() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, id) = app.guest("Ade").await;
    let (status, body) = app.ws_ticket(Some(&token)).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["expires_in"], 30);
    let ticket = body["ticket"].as_str().unwrap();
    // 256 bits, base64url: nothing to escape in a query string.
    assert_eq!(ticket.len(), 43, "{ticket}");
    assert!(ticket
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    let mut ws = app.ws_by_ticket(ticket).await;
    ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    let room = ws.next_of("room").await;
    assert!(room["occupants"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u["id"] == id.as_str()));
    // Once only, and nothing made up.
    let (status, again) = app.ws_ticket_refused(ticket).await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (401, &json!("unauthorized"))
    );
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("used already"),
        "{again}"
    );
    let (status, _) = app.ws_ticket_refused("bm90LWEtdGlja2V0").await;
    assert_eq!(status, 401);
    // The token's ways are still open.
    assert_eq!(app.ws_status(Some(&token), None).await, 101);
    assert_eq!(app.ws_status(None, Some(&token)).await, 101);
}

#[actix_web::test]
async fn a_ticket_expires_on_the_servers_clock_and_wants_a_player_token() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, _) = app.guest("Ade").await;
    let fresh = app.a_ws_ticket(&token).await;
    let stale = app.a_ws_ticket(&token).await;
    app.clock.advance(29_000);
    app.ws_by_ticket(&fresh).await;
    app.clock.advance(1_000);
    let (status, body) = app.ws_ticket_refused(&stale).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (401, &json!("unauthorized"))
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{body}"
    );
    // A ticket is a player's, for a valid token.
    assert_eq!(app.ws_ticket(None).await.0, 401);
    assert_eq!(app.ws_ticket(Some(&app.admin_token("ops"))).await.0, 403);
}

#[actix_web::test]
async fn a_user_holds_a_few_tickets_and_a_banned_one_is_refused() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, id) = app.guest("Ade").await;
    let mut tickets = Vec::new();
    for _ in 0..5 {
        tickets.push(app.a_ws_ticket(&token).await);
    }
    // The fifth evicted the first.
    assert_eq!(app.ws_ticket_refused(&tickets[0]).await.0, 401);
    app.ws_by_ticket(&tickets[4]).await;
    // The checks of a token apply to a ticket: banned after it was issued, refused.
    let (status, body) = app
        .ban(&app.admin_token("ops"), &id, json!({"reason": "rude"}))
        .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = app.ws_ticket_refused(&tickets[3]).await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!("banned")));
}
