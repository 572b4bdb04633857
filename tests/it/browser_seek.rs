//! Play someone now in the web client (`tests/e2e/seek.mjs`): two guests ask for the same
//! game and are offered it, one declines and is told when they may look again, another asks
//! and both accept, the game starts at a table and a move is played; one waits alone for a
//! game nobody else wants and is offered Baba Ayo. On a desktop and a phone, axe-core on the
//! panel and the offers.

use std::time::Duration;

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn guests_play_someone_now_decline_cool_down_accept_play_and_meet_baba_ayo_after_a_wait() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
        ],
    )
    .await;
    // Baba Ayo is offered after `world.seek_house_after_secs` (45) on the hotel's clock,
    // which is the test's: moved on once a guest waits alone for a casual 10 + 5 game.
    let clock = async {
        for _ in 0..1200 {
            let (status, rooms) = app.rooms().await;
            assert_eq!(status, 200, "{rooms}");
            let alone = rooms["rooms"].as_array().unwrap().iter().any(|r| {
                r["seeks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["clock"] == "10+5" && c["rated"] == false && c["waiting"] == 1)
            });
            if alone {
                app.clock.advance(45_000);
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("nobody ever waited alone for a casual 10 + 5 game");
    };
    tokio::join!(run_e2e("seek.mjs", vec![app.url("")]), clock);
}
