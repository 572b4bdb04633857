//! A guest stays themselves in the web client across a browser restart (Playwright with a
//! persistent profile, `tests/e2e/identity.mjs`), sets a password, signs out, and signs in on
//! a new device.

use std::path::Path;
use std::process::Command;

use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_guest_comes_back_as_the_same_avatar_after_the_browser_restarts() {
    let e2e = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: (cd tests/e2e && npm ci), as tests/run does"
    );
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let url = app.url("");
    // Node runs beside this test's server, on the blocking pool so the server keeps serving.
    let output = actix_web::rt::task::spawn_blocking(move || {
        Command::new("node")
            .arg(e2e.join("identity.mjs"))
            .arg(url)
            .output()
    })
    .await
    .unwrap()
    .expect("node runs");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert!(said.contains("\nok"), "{said}");
}
