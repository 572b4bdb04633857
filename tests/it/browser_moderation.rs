//! Moderation as a guest sees it in the web client, in headless Chromium driven by
//! Playwright (`tests/e2e/moderation.mjs`): a removed line disappears, slow mode is shown, a
//! muted guest is told until when, a Block action, a guest put out of a room is told so.
//! Screenshots land beside the lounge's (`<target>/tmp/screenshots/` unless
//! `LOUNGE_SCREENSHOTS` says).

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_guest_sees_moderation_in_the_browser() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    run_e2e("moderation.mjs", vec![app.url(""), app.admin_token("ada")]).await;
}
