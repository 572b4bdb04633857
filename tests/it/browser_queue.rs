//! A table's queue in the web client (`tests/e2e/queue.mjs`): joining from a table's card on a
//! phone, the call to a seat in the bar, the game starting when the second called sits, and
//! leaving the queue; axe-core on a card showing it.

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn guests_queue_for_a_table_are_called_and_sit_on_a_desktop_and_a_phone() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
        ],
    )
    .await;
    run_e2e("queue.mjs", vec![app.url("")]).await;
}
