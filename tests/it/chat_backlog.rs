//! The chat lines a room keeps for its `room` snapshot: the last `world.chat_backlog`, oldest
//! first, exactly as sent, less those an operator removed and those from users the receiver
//! blocks.

use serde_json::{json, Value};

use crate::helpers::{TestApp, TestDb, Ws};

const TALK: &str = "gist-lounge";

/// Says `text` and waits for the line to come back; the line as sent.
async fn say(ws: &mut Ws, text: &str) -> Value {
    ws.send(json!({"type": "chat", "text": text})).await;
    loop {
        let line = ws.next_of("chat").await;
        if line["text"] == text {
            return line;
        }
    }
}

#[actix_web::test]
async fn a_room_snapshot_carries_its_last_chat_lines_less_removed_and_blocked_ones() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_WORLD__CHAT_BACKLOG", "3"),
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
        ],
    )
    .await;
    let (ta, _) = app.guest("Ade").await;
    let (tb, bisi) = app.guest("Bisi").await;
    let (tc, _) = app.guest("Chidi").await;
    let (td, _) = app.guest("Dayo").await;
    assert_eq!(app.block(&tc, &bisi).await.0, 204);
    let mut ab = [app.ws(&ta).await, app.ws(&tb).await];
    assert_eq!(ab[0].enter(TALK).await["chat"], json!([]));
    ab[1].enter(TALK).await;
    let mut sent = Vec::new();
    for (who, text) in [
        (0, "one"),
        (1, "two"),
        (0, "three"),
        (0, "four"),
        (1, "five"),
    ] {
        sent.push(say(&mut ab[who], text).await);
    }
    let [mut a, _b] = ab;
    // The last three are kept; an operator takes "four" away.
    let four = sent[3]["id"].to_string();
    let (status, _) = app
        .remove_chat_line(&app.admin_token("ops"), TALK, &four)
        .await;
    assert_eq!(status, 204);
    a.next_of("chat_removed").await;
    let mut d = app.ws(&td).await;
    assert_eq!(
        d.enter(TALK).await["chat"],
        json!([sent[2], sent[4]]),
        "oldest first, exactly as sent"
    );
    // Chidi blocks Bisi: Bisi's lines are not in Chidi's snapshot.
    let mut c = app.ws(&tc).await;
    assert_eq!(c.enter(TALK).await["chat"], json!([sent[2]]));
    // Entering the room one is in again shows them too.
    assert_eq!(a.enter(TALK).await["chat"], json!([sent[2], sent[4]]));
}
