//! Every game kept, in the web client (`tests/e2e/replay.mjs`): a guest's games filtered and
//! opened, a replay stepped with the keys and linked at a move, Baba Ayo's review drawn on it,
//! a profile card from the room's list, and all of it on a phone; axe-core on the replay.

use crate::helpers::browser::run_e2e;
use serde_json::json;

use crate::helpers::{play_out, TestApp, TestDb};

const TABLE: &str = "surulere-games-lounge-3";

#[actix_web::test]
async fn a_guest_finds_replays_and_has_reviewed_a_finished_game_on_a_desktop_and_a_phone() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
            // A review in well under a second: the page waits for it.
            ("LOUNGE_HOUSE__REVIEW_MS", "400"),
        ],
    )
    .await;
    // A game of random moves against Baba Ayo, played out: long enough for his review to find
    // better moves than some of Tunde's.
    // At the third table: the first stays free for the page's guests.
    let (token, me) = app.guest("Tunde").await;
    let mut ws = app.ws(&token).await;
    ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
        .await;
    ws.next_of("room").await;
    ws.send(json!({"type": "play_house", "table": TABLE, "level": "easy"}))
        .await;
    let started = ws.next_of("game_started").await;
    let game = started["game_id"].as_str().unwrap().to_owned();
    let mine = if started["players"]["south"]["id"] == me.as_str() {
        "south"
    } else {
        "north"
    };
    play_out(&mut ws, TABLE, mine, started["state"].clone()).await;
    drop(ws);
    run_e2e("replay.mjs", vec![app.url(""), game]).await;
}
