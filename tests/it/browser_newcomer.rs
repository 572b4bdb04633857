//! The web client as a newcomer and a phone player meet it (`tests/e2e/newcomer.mjs`): offers
//! in view on a phone, a move during an outage sent again or refused aloud, onlookers' labels,
//! errors in words, seats kept and the lots shown, the wall's rule and the house board, the
//! phone's header and board, labels in sight, an apartment that shows what is in it, and a
//! sign-out that asks; axe-core on the lounge, the board and the Me page.

use lounge::champions::HotelDay;

use crate::helpers::browser::run_e2e;
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
    won_against_baba_ayo(&app, &tunde);
    run_e2e("newcomer.mjs", vec![app.url(""), "Tunde".into()]).await;
}

/// A win of `winner` over Baba Ayo (normal), stored as a finished game would be: beating him
/// in a browser would take a while.
fn won_against_baba_ayo(app: &TestApp, winner: &str) {
    let store = app.db.store();
    let today = HotelDay {
        tz: chrono_tz::Africa::Lagos,
    }
    .today();
    let game = lounge::store::GameRow {
        id: lounge::store::new_id().into(),
        table_id: "surulere-games-lounge-3".into(),
        south_id: winner.to_owned().into(),
        north_id: "baba-ayo-normal".to_owned().into(),
        rules: Default::default(),
        house: true,
        status: lounge::ayo::Status::Playing,
        end_reason: None,
        started_at: lounge::store::now(),
        ended_at: None,
        match_id: None,
        number: None,
        clock_started_ms: None,
        first_side: lounge::ayo::Side::South,
    };
    store.insert_game(&game).unwrap();
    let won = lounge::store::Win {
        winner_id: winner.to_owned(),
        loser_id: "baba-ayo-normal".into(),
        seeds: 27,
        house_level: Some("normal".into()),
        plies: 40,
        ended_ms: app.clock.now_ms(),
    };
    store
        .finish_game_with(
            &game.id,
            lounge::ayo::Status::SouthWon,
            "majority",
            Some(&won),
            |_| today,
            &lounge::champions::WallRules::cap_only(3),
        )
        .unwrap();
}
