//! Arena tournaments in the web client (`tests/e2e/arena.mjs`): an operator schedules one at
//! the lounge's second table; two guests join it in the browser (one on a phone), are paired
//! when it starts, play, and see the points and the winner in the room and on the big
//! screen. The hotel's clock is the test's: it starts the tournament once both are in and
//! ends it once their game is scored, as the guests' pages wait for each.

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

const ROOM: &str = "surulere-games-lounge";

/// A time `secs` from the server's clock now, as RFC 3339.
fn in_secs(app: &TestApp, secs: i64) -> String {
    let now = i64::try_from(app.clock.now_ms()).unwrap();
    chrono::DateTime::from_timestamp_millis(now + secs * 1000)
        .unwrap()
        .to_rfc3339()
}

/// Waits (a minute at most: the browser's guests act in their own time) until the
/// tournament, as its route shows it, is `what`.
async fn until(app: &TestApp, id: &str, what: &str, ready: impl Fn(&Value) -> bool) {
    for _ in 0..1200 {
        let (status, body) = app
            .call("GET", &format!("/api/v1/tournaments/{id}"), None, None)
            .await;
        assert_eq!(status, 200, "{body}");
        if ready(&body["tournament"]) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the tournament was never {what}");
}

fn games_scored(t: &Value) -> i64 {
    t["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["games"].as_i64().unwrap())
        .sum()
}

#[actix_web::test]
async fn guests_join_an_arena_in_the_browser_play_their_pairing_and_see_points_and_winner() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
        ],
    )
    .await;
    let admin = app.admin_token("ops");
    let (status, body) = app
        .call(
            "POST",
            "/api/v1/admin/tournaments",
            Some(&admin),
            Some(json!({"name": "Evening arena", "room": ROOM,
                        "starts_at": in_secs(&app, 60), "ends_at": in_secs(&app, 3600),
                        "clock": "10m", "tables": [format!("{ROOM}-2")]})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["tournament"]["id"].as_str().unwrap().to_owned();

    let clock = async {
        until(&app, &id, "joined by two", |t| t["players"] == 2).await;
        app.clock.advance(60_000);
        until(&app, &id, "scored a game", |t| games_scored(t) == 2).await;
        app.clock.advance(3_600_000);
    };
    tokio::join!(run_e2e("arena.mjs", vec![app.url(""), id.clone()]), clock);

    let (_, over) = app
        .call("GET", &format!("/api/v1/tournaments/{id}"), None, None)
        .await;
    assert_eq!(over["tournament"]["status"], "finished", "{over}");
    assert_eq!(over["tournament"]["winner"]["name"], "Ade", "{over}");
}
