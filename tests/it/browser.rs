//! The hotel web client end to end in headless Chromium, driven by Playwright
//! (`tests/e2e/lounge.mjs`; `tests/run` installs `playwright-core` and Debian's `chromium`).
//! Screenshots of the lounge, a game in play, a timed best of 3 against Baba Ayo (a desktop
//! and a phone) and the champions display land in `<target>/tmp/screenshots/`, never over the
//! tracked `docs/screenshots/`: `LOUNGE_SCREENSHOTS=$PWD/docs/screenshots` refreshes those on
//! purpose. The folder reaches `lounge.mjs` in the same variable.

use std::path::Path;
use std::process::Command;

use crate::server::TestApp;
use crate::support::TestDb;

#[actix_web::test]
async fn two_people_play_a_whole_game_in_the_browser_an_onlooker_and_the_wall_follow() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let e2e = root.join("tests/e2e");
    assert!(
        e2e.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: (cd tests/e2e && npm ci), as .ci/run does"
    );
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_HOUSE__EASY_MS", "20"),
            // Two guests new today: their played-out win goes on the wall all the same.
            ("LOUNGE_CHAMPIONS__NEW_ACCOUNT_SECS", "0"),
        ],
    )
    .await;
    let url = app.url("");
    let shots = std::env::var_os("LOUNGE_SCREENSHOTS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots"));
    // Node runs beside this test's server, on the blocking pool so the server keeps serving.
    let output = actix_web::rt::task::spawn_blocking(move || {
        Command::new("node")
            .arg(e2e.join("lounge.mjs"))
            .arg(url)
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
