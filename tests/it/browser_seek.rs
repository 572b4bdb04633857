//! Play someone now in the web client (`tests/e2e/seek.mjs`): two guests ask for the same
//! game and are offered it, one declines and is told when they may look again, another asks
//! and both accept, the game starts at a table and a move is played; on a desktop and a
//! phone, axe-core on the panel and the offer.

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn guests_play_someone_now_decline_cool_down_accept_and_play_on_a_desktop_and_a_phone() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
        ],
    )
    .await;
    run_e2e("seek.mjs", vec![app.url("")]).await;
}
