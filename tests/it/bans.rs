//! Bans: an operator's ban holds at once, on every connection, and is audited.

use serde_json::json;

use crate::helpers::{on_both, Page};

#[actix_web::test]
async fn a_banned_guest_is_out_at_once_everywhere_until_the_ban_is_lifted() {
    on_both(|app| async move {
        let admin = app.admin_token("ops");
        let (token, id) = app.guest("Tunde").await;
        let (other, _) = app.guest("Bisi").await;
        let mut in_room = app.ws(&token).await;
        in_room.enter("gist-lounge").await;
        let mut watcher = app.ws(&other).await;
        watcher.enter("gist-lounge").await;
        assert_eq!(app.me(&token).await.0, 200);

        let (status, body) = app
            .ban(&admin, &id, json!({"reason": "spamming the lounge"}))
            .await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["closed"], 1);
        assert_eq!(in_room.closed().await, Some(1008));
        let (status, body) = app.me(&token).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (403, Some("banned"))
        );
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("spamming the lounge"));
        assert_eq!(app.ws_status(Some(&token), None).await, 403);
        // Others are untouched.
        watcher.send(json!({"type": "ping", "ref": 1})).await;
        assert_eq!(watcher.next_of("pong").await["ref"], 1);
        let (_, audit) = app.audit(&admin, Page::default()).await;
        let entry = &audit["entries"][0];
        assert_eq!(
            (&entry["action"], &entry["target"], &entry["actor"]),
            (&json!("user.ban"), &json!(id), &json!("ops"))
        );

        let (status, _) = app.lift_ban(&admin, &id).await;
        assert_eq!(status, 200);
        assert_eq!(app.me(&token).await.0, 200);
        let mut back = app.ws(&token).await;
        back.send(json!({"type": "ping", "ref": 2})).await;
        assert_eq!(back.next_of("pong").await["ref"], 2);
        let (_, audit) = app.audit(&admin, Page::default()).await;
        assert_eq!(audit["entries"][0]["action"], "user.unban");
        assert_eq!(app.lift_ban(&admin, &id).await.0, 404);
    })
    .await;
}

#[actix_web::test]
async fn a_ban_for_a_time_ends_by_itself_and_bad_bans_are_refused() {
    on_both(|app| async move {
        let admin = app.admin_token("ops");
        let (token, id) = app.guest("Tunde").await;
        let (status, body) = app
            .ban(
                &admin,
                &id,
                json!({"reason": "cool off", "duration_secs": 60}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(app.me(&token).await.0, 403);
        app.clock.advance(61_000);
        assert_eq!(app.me(&token).await.0, 200);

        let (status, body) = app
            .ban(&admin, &id, json!({"reason": "x", "duration_secs": 0}))
            .await;
        assert_eq!(
            (status, body["error"]["field"].as_str()),
            (400, Some("duration_secs"))
        );
        let (status, _) = app.ban(&admin, "nobody", json!({"reason": "x"})).await;
        assert_eq!(status, 404);
        let (status, _) = app.ban(&token, &id, json!({"reason": "x"})).await;
        assert_eq!(status, 403);
        assert_eq!(app.me(&token).await.0, 200);
    })
    .await;
}
