//! The web client as a newcomer and a phone player meet it (`tests/e2e/newcomer.mjs`): offers
//! in view on a phone, a move during an outage sent again or refused aloud, onlookers' labels,
//! errors in words, seats kept and the lots shown, the wall's rule and the house board, the
//! phone's header and board, labels in sight, an apartment that shows what is in it, and a
//! sign-out that asks; axe-core on the lounge, the board and the Me page.

use crate::helpers::browser::run_e2e;
use crate::helpers::wall::won_against_baba_ayo;
use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_newcomer_and_a_phone_player_are_shown_what_they_need_where_they_look() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "20"),
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "20"),
            // A resignation after a few moves is kept off the wall for the accounts' age
            // alone, the rule the result line then spells out.
            ("LOUNGE_CHAMPIONS__MIN_MOVES", "0"),
        ],
    )
    .await;
    let (_, tunde) = app.guest("Tunde").await;
    assert!(!won_against_baba_ayo(&app, &tunde, "normal", 27));
    run_e2e("newcomer.mjs", vec![app.url(""), "Tunde".into()]).await;
}
