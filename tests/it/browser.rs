//! The hotel web client end to end in headless Chromium, driven by Playwright
//! (`tests/e2e/lounge.mjs`; `tests/run` installs `playwright-core` and Debian's `chromium`).
//! Screenshots of the lounge, a game in play, a timed best of 3 against Baba Ayo (a desktop
//! and a phone) and the champions display land in `<target>/tmp/screenshots/`, never over the
//! tracked `docs/screenshots/`: `LOUNGE_SCREENSHOTS=$PWD/docs/screenshots` refreshes those on
//! purpose. The folder reaches `lounge.mjs` in the same variable.

use crate::helpers::browser::run_e2e;
use crate::server::TestApp;
use crate::support::TestDb;

#[actix_web::test]
async fn two_people_play_a_whole_game_in_the_browser_an_onlooker_and_the_wall_follow() {
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
    run_e2e("lounge.mjs", vec![app.url("")]).await;
}
