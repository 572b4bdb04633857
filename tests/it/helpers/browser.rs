//! Runs a Playwright script of `tests/e2e/` (Debian's Chromium, `playwright-core` installed by
//! `tests/run`) against a test's server and checks it said `ok`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where screenshots go: `LOUNGE_SCREENSHOTS`, or `<target>/tmp/screenshots/` (never over the
/// tracked `docs/screenshots/` unless asked).
fn screenshots() -> PathBuf {
    std::env::var_os("LOUNGE_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"))
}

/// `node tests/e2e/<script> <args...>`, on the blocking pool so the test's server keeps
/// serving; fails the test with everything the script said unless it ended well.
pub async fn run_e2e(script: &str, args: Vec<String>) {
    let e2e = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: (cd tests/e2e && npm ci), as tests/run does"
    );
    let script = e2e.join(script);
    let output = actix_web::rt::task::spawn_blocking(move || {
        Command::new("node")
            .arg(script)
            .args(args)
            .env("LOUNGE_SCREENSHOTS", screenshots())
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
