//! Baba Ayo's reviews over HTTP: asked for once a game is over, worked, kept and served again;
//! a guest's daily allowance; on SQLite and PostgreSQL.

use serde_json::{json, Value};

use crate::helpers::{house_game_as, on_both_with, play_out, TestApp, Ws};

const LOUNGE_TABLE: &str = "surulere-games-lounge-1";

/// A little time for a whole game: the tests' reviews end quickly.
const QUICK: &[(&str, &str)] = &[("LOUNGE_HOUSE__REVIEW_MS", "400")];

/// Tunde against easy Baba Ayo, played out to its end: (his socket, his token, the game's id,
/// its `game_over`).
async fn a_finished_house_game(app: &TestApp) -> (Ws, String, String, Value) {
    a_finished_house_game_of(app, "Tunde").await
}

/// `a_finished_house_game` played by a guest named `name`.
async fn a_finished_house_game_of(app: &TestApp, name: &str) -> (Ws, String, String, Value) {
    let (mut ws, mine, started, token) = house_game_as(app, name, "easy").await;
    let game = started["game_id"].as_str().unwrap().to_owned();
    let over = play_out(&mut ws, LOUNGE_TABLE, mine, started["state"].clone()).await;
    (ws, token, game, over)
}

/// A game against easy Baba Ayo begun at the lounge's table and resigned at once: its id.
async fn a_resigned_house_game(ws: &mut Ws) -> String {
    ws.send(json!({"type": "play_house", "table": LOUNGE_TABLE, "level": "easy"}))
        .await;
    let started = ws.next_of("game_started").await;
    ws.send(json!({"type": "resign", "table": LOUNGE_TABLE}))
        .await;
    ws.next_of("game_over").await;
    started["game_id"].as_str().unwrap().to_owned()
}

/// Waits for the review of `game` to end (up to a minute), as a client would with `wait`.
async fn ended(app: &TestApp, game: &str) -> Value {
    let (status, review) = app.review(game, Some("60")).await;
    assert_eq!(status, 200, "{review}");
    assert_ne!(review["status"], "waiting", "{review}");
    review
}

#[actix_web::test]
async fn a_review_is_worked_once_kept_and_served_again() {
    on_both_with(QUICK, |app| async move {
        let (mut ws, token, game, over) = a_finished_house_game(&app).await;
        let plies = over["state"]["ply"].as_u64().unwrap() as usize;

        // Nobody asked yet.
        let (status, body) = app.review(&game, None).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (404, Some("not_found"))
        );

        let (status, asked, _) = app.ask_review(&token, &game).await;
        assert_eq!(status, 202, "{asked}");
        assert_eq!(asked["game"], game.as_str());
        assert_eq!(
            asked["thresholds"],
            json!({"inaccuracy": 2, "mistake": 4, "blunder": 8})
        );

        let review = ended(&app, &game).await;
        assert_eq!(review["status"], "done", "{review}");
        let moves = review["moves"].as_array().unwrap();
        assert_eq!(moves.len(), plies, "{review}");
        assert!(plies > 0);
        for (i, m) in moves.iter().enumerate() {
            assert_eq!(m["ply"], i + 1, "{m}");
            let played = m["played"].as_u64().unwrap();
            assert!((1..=6).contains(&played), "{m}");
            let loss = m["loss"].as_i64().unwrap();
            assert!(loss >= 0, "{m}");
            // A mark only where Baba Ayo had a better move, and as the thresholds say.
            match m["mark"].as_str() {
                None => assert!(loss < 2 || m["best"].is_null(), "{m}"),
                Some(mark) => {
                    assert!(!m["best"].is_null(), "{m}");
                    let least = match mark {
                        "inaccuracy" => 2,
                        "mistake" => 4,
                        "blunder" => 8,
                        other => panic!("a mark `{other}`"),
                    };
                    assert!(loss >= least, "{m}");
                }
            }
        }

        // Asked again, by someone else: the same review, not a new one.
        let (bisi, _) = app.guest("Bisi").await;
        let (status, again, _) = app.ask_review(&bisi, &game).await;
        assert_eq!(status, 200, "{again}");
        assert_eq!(again["moves"], review["moves"]);
        assert_eq!(again["done_at"], review["done_at"]);

        // No such game; a game still in play.
        let (status, none, _) = app.ask_review(&token, "no-such-game").await;
        assert_eq!(status, 404, "{none}");
        ws.send(json!({"type": "play_house", "table": LOUNGE_TABLE, "level": "easy"}))
            .await;
        let started = ws.next_of("game_started").await;
        let in_play = started["game_id"].as_str().unwrap();
        let (status, refused, _) = app.ask_review(&token, in_play).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(refused["error"]["code"], "game_in_play");
        // Without a token.
        let (status, _) = app
            .call("POST", &format!("/api/v1/games/{game}/review"), None, None)
            .await;
        assert_eq!(status, 401);
    })
    .await;
}

#[actix_web::test]
async fn a_guest_has_a_daily_allowance_and_operators_none() {
    let one_a_day = [
        ("LOUNGE_HOUSE__REVIEW_MS", "200"),
        ("LOUNGE_HOUSE__REVIEWS_PER_DAY", "1"),
        // The guest's token outlives the day the test moves on.
        ("LOUNGE_AUTH__TOKEN_TTL_SECS", "2592000"),
    ];
    on_both_with(&one_a_day, |app| async move {
        let (mut ws, token, first, _) = a_finished_house_game(&app).await;
        let second = a_resigned_house_game(&mut ws).await;

        let (status, _, _) = app.ask_review(&token, &first).await;
        assert_eq!(status, 202);
        let (status, refused, headers) = app.ask_review(&token, &second).await;
        assert_eq!(status, 429, "{refused}");
        assert_eq!(refused["error"]["code"], "no_reviews_left");
        let retry: u64 = headers
            .get("retry-after")
            .unwrap()
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=86_400 + 3_600).contains(&retry), "{retry}");
        // Asking for the one asked before uses nothing.
        let (status, _, _) = app.ask_review(&token, &first).await;
        assert_eq!(status, 200);

        // An operator has no allowance.
        let operator = app.admin_token("ops");
        let (status, asked, _) = app.ask_review(&operator, &second).await;
        assert_eq!(status, 202, "{asked}");
        assert_eq!(ended(&app, &second).await["status"], "done");
        assert_eq!(ended(&app, &first).await["status"], "done");

        // The next hotel day the guest may ask again (back in the lounge: a day's silence
        // ends any connection).
        drop(ws);
        app.clock.advance((retry + 1) * 1_000);
        let mut ws = app.ws(&token).await;
        ws.enter("surulere-games-lounge").await;
        let third = a_resigned_house_game(&mut ws).await;
        let (status, asked, _) = app.ask_review(&token, &third).await;
        assert_eq!(status, 202, "{asked}");
    })
    .await;
}

#[actix_web::test]
async fn on_two_instances_each_review_is_worked_once_whichever_was_asked() {
    let first = TestApp::spawn_with(crate::helpers::TestDb::postgres(), QUICK).await;
    let second = TestApp::spawn_with(first.db.again(), QUICK).await;
    // Each instance runs its own lounge here, on one database: a game finished on each.
    let (_ws1, token1, game1, _) = a_finished_house_game_of(&first, "Tunde").await;
    let (mut ws2, token2, game2, _) = a_finished_house_game_of(&second, "Bisi").await;
    let game3 = a_resigned_house_game(&mut ws2).await;
    let mut worked = [&first, &second].map(|app| app.reviews.as_ref().unwrap().follow());

    // Each game asked for on both instances, by both guests: three reviews in all.
    for game in [&game1, &game2, &game3] {
        for (app, token) in [(&first, &token1), (&second, &token2)] {
            let (status, asked, _) = app.ask_review(token, game).await;
            assert!(status == 202 || status == 200, "{asked}");
        }
    }
    for game in [&game1, &game2, &game3] {
        for app in [&first, &second] {
            assert_eq!(ended(app, game).await["status"], "done", "{game}");
        }
    }
    // Worked once each, whichever instance had the turn: three in all.
    let total: u64 = worked.iter_mut().map(|w| *w.borrow_and_update()).sum();
    assert_eq!(total, 3);
    // Every one the same wherever it is read.
    for game in [&game1, &game2, &game3] {
        let (_, a) = first.review(game, None).await;
        let (_, b) = second.review(game, None).await;
        assert_eq!(a, b);
    }
}
