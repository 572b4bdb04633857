//! A guest stays themselves in the web client across a browser restart (Playwright with a
//! persistent profile, `tests/e2e/identity.mjs`), sets a password, signs out, and signs in on
//! a new device.

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_guest_comes_back_as_the_same_avatar_after_the_browser_restarts() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    run_e2e("identity.mjs", vec![app.url("")]).await;
}
