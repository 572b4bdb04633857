//! Friends in the web client (`tests/e2e/friends.mjs`): following from a profile card, the
//! Friends page (online, the room, hidden, offline; Go there, Invite home), unfollowing, and a
//! phone; axe-core on the page.

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_guest_follows_another_and_finds_them_on_a_desktop_and_a_phone() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
        ],
    )
    .await;
    run_e2e("friends.mjs", vec![app.url("")]).await;
}
