//! Moderation as a guest sees it in the web client, in headless Chromium driven by
//! Playwright (`tests/e2e/moderation.mjs`): a removed line disappears, slow mode is shown, a
//! muted guest is told until when, a Block action, a guest put out of a room is told so.
//! Screenshots land beside the lounge's (`<target>/tmp/screenshots/` unless
//! `LOUNGE_SCREENSHOTS` says).

use std::path::Path;
use std::process::Command;

use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_guest_sees_moderation_in_the_browser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let e2e = root.join("tests/e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: (cd tests/e2e && npm ci), as .ci/run does"
    );
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (url, admin) = (app.url(""), app.admin_token("ada"));
    let shots = std::env::var_os("LOUNGE_SCREENSHOTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    // Node runs beside this test's server, on the blocking pool so the server keeps serving.
    let output = actix_web::rt::task::spawn_blocking(move || {
        Command::new("node")
            .arg(e2e.join("moderation.mjs"))
            .arg(url)
            .arg(admin)
            .env("LOUNGE_SCREENSHOTS", shots)
            .output()
    })
    .await
    .unwrap()
    .expect("node runs (Node.js 20 is on these machines)");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert!(said.contains("\nok"), "{said}");
}
