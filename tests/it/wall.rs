//! The wall that cannot be farmed (a win counts only when it was played, and only between
//! accounts that are not new), and the wall after Redis loses its data or goes away: real
//! games over WebSocket, SQLite and PostgreSQL, a Redis server of the test's own.

use std::time::Duration;

use lounge::champions::{HotelDay, RedisWall};
use serde_json::{json, Value};

use crate::champions::{quick_win, wall_today, wall_until};
use crate::helpers::wall::{free_port, serve_logging_at, OwnRedis, EVERY_WIN_COUNTS};
use crate::helpers::{TestApp, TestDb, Ws};

const TABLE: &str = "surulere-games-lounge-1";

fn today() -> chrono::NaiveDate {
    HotelDay {
        tz: chrono_tz::Africa::Lagos,
    }
    .today()
}

/// Wins on a wall body, all entries together.
fn total(wall: &Value) -> u64 {
    wall["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["wins"].as_u64().unwrap())
        .sum()
}

/// Two guests in the lounge: (their sockets, their ids).
async fn two_guests(app: &TestApp, a: &str, b: &str) -> ([Ws; 2], [String; 2]) {
    let (ta, a_id) = app.guest(a).await;
    let (tb, b_id) = app.guest(b).await;
    let (mut wa, mut wb) = (app.ws(&ta).await, app.ws(&tb).await);
    for w in [&mut wa, &mut wb] {
        w.enter("surulere-games-lounge").await;
    }
    ([wa, wb], [a_id, b_id])
}

/// `a` invites `b` to table 1; `plies` moves are played (each side sows its first legal pit),
/// then the side to move resigns. The winner's id and the `game_over` the winner saw.
async fn played_then_resigned(
    ws: &mut [Ws; 2],
    ids: &[String; 2],
    plies: usize,
) -> (String, Value) {
    let [a, b] = ws;
    a.send(json!({"type": "sit", "table": TABLE, "seat": "south"}))
        .await;
    a.send(json!({"type": "invite", "table": TABLE, "user": ids[1]}))
        .await;
    let invitation = b.next_of("invitation").await;
    b.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = a.next_of("game_started").await;
    b.next_of("game_started").await;
    let a_is_south = started["players"]["south"]["id"] == ids[0].as_str();
    let mut state = started["state"].clone();
    for _ in 0..plies {
        let south_to_move = state["to_move"] == "south";
        let mover = if south_to_move == a_is_south {
            &mut *a
        } else {
            &mut *b
        };
        mover
            .send(json!({"type": "move", "table": TABLE, "pit": state["legal"][0]}))
            .await;
        state = a.next_of("game_state").await["state"].clone();
        b.next_of("game_state").await;
        assert_eq!(
            state["status"], "playing",
            "the game goes on past {plies} plies"
        );
    }
    let south_to_move = state["to_move"] == "south";
    let (loser, winner, winner_id) = if south_to_move == a_is_south {
        (&mut *a, &mut *b, &ids[1])
    } else {
        (&mut *b, &mut *a, &ids[0])
    };
    loser.send(json!({"type": "resign", "table": TABLE})).await;
    loser.next_of("game_over").await;
    (winner_id.clone(), winner.next_of("game_over").await)
}

/// `game_over`'s say on the wall: (counts_for_champions, wall.counts, wall.reason).
fn verdict(over: &Value) -> (Value, Value, Value) {
    (
        over["counts_for_champions"].clone(),
        over["wall"]["counts"].clone(),
        over["wall"]["reason"].clone(),
    )
}

fn not_counted(reason: &str) -> (Value, Value, Value) {
    (json!(false), json!(false), json!(reason))
}

fn counted() -> (Value, Value, Value) {
    (json!(true), json!(true), Value::Null)
}

/// The stored reason of each of today's results, in the order they ended.
/// The wall's reasons kept with the results of today and the next day (a test may move the
/// server's clock a day on), in the order they were stored.
fn stored_reasons(app: &TestApp) -> Vec<Option<String>> {
    let store = app.db.store();
    let today = today();
    [today, today + chrono::Days::new(1)]
        .into_iter()
        .flat_map(|day| store.results_of_day(day).unwrap())
        .map(|(r, _)| r.wall_reason)
        .collect()
}

/// Under the default rules (5 moves a side; a day old or 10 played games): a win before both
/// sides made 5 moves never counts; a played win between new accounts counts once they are a
/// day old (on the server's clock), and a win over a new account does not.
async fn played_and_old_enough(app: TestApp) {
    let (mut ws, ids) = two_guests(&app, "Ade", "Bisi").await;
    // Resigned after 9 plies: the side that resigned made 4 moves.
    let (_, over) = played_then_resigned(&mut ws, &ids, 9).await;
    assert_eq!(verdict(&over), not_counted("too_few_moves"), "{over}");
    // Played out to 5 moves each, but both accounts are minutes old.
    let (_, over) = played_then_resigned(&mut ws, &ids, 10).await;
    assert_eq!(verdict(&over), not_counted("new_account"), "{over}");
    // A day later both are old enough: a played win counts, a quick one still does not.
    app.clock.advance(86_400_000 + 60_000);
    let (_, over) = played_then_resigned(&mut ws, &ids, 9).await;
    assert_eq!(verdict(&over), not_counted("too_few_moves"), "{over}");
    let (winner, over) = played_then_resigned(&mut ws, &ids, 10).await;
    assert_eq!(verdict(&over), counted(), "{over}");
    // Beating a guest who arrived just now does not count: throwaway losers feed nobody.
    let (tc, c_id) = app.guest("Chidi").await;
    let mut wc = app.ws(&tc).await;
    wc.enter("surulere-games-lounge").await;
    let [wa, wb] = ws;
    let (veteran, veteran_id) = if winner == ids[0] {
        (wa, ids[0].clone())
    } else {
        (wb, ids[1].clone())
    };
    let mut pair = [veteran, wc];
    let pair_ids = [veteran_id, c_id];
    let (w, over) = played_then_resigned(&mut pair, &pair_ids, 10).await;
    let reason = if w == pair_ids[0] {
        "new_opponent"
    } else {
        "new_account"
    };
    assert_eq!(verdict(&over), not_counted(reason), "{over}");
    // The wall has the one counted win; the rest are listed with why.
    let wall = wall_until(&app, |w| total(w) == 1).await;
    assert_eq!(wall["entries"][0]["user"]["id"], winner.as_str(), "{wall}");
    let (status, uncounted) = app.champions_uncounted_today().await;
    assert_eq!(status, 200, "{uncounted}");
    let mut reasons: std::collections::BTreeMap<String, u64> = Default::default();
    for entry in uncounted["entries"].as_array().unwrap() {
        let mut wins = 0;
        for (reason, n) in entry["reasons"].as_object().unwrap() {
            *reasons.entry(reason.clone()).or_default() += n.as_u64().unwrap();
            wins += n.as_u64().unwrap();
        }
        assert_eq!(entry["wins"], wins, "{uncounted}");
    }
    // Today's: the day before's two are yesterday's, on the server's clock.
    let expected: std::collections::BTreeMap<String, u64> =
        [("too_few_moves".to_owned(), 1), (reason.to_owned(), 1)]
            .into_iter()
            .collect();
    assert_eq!(reasons, expected, "{uncounted}");
    // Kept with the results: a rebuild counts the day as it was counted.
    assert_eq!(
        stored_reasons(&app),
        [
            Some("too_few_moves"),
            Some("new_account"),
            Some("too_few_moves"),
            None,
            Some(reason),
        ]
        .map(|r| r.map(str::to_owned))
    );
    let (status, past) = app.champions_uncounted_of("2026-02-30").await;
    assert_eq!(status, 400, "{past}");
    assert_eq!(past["error"]["code"], "invalid_field");
}

#[actix_web::test]
async fn a_win_counts_only_when_played_and_between_accounts_that_are_not_new() {
    played_and_old_enough(TestApp::spawn(TestDb::sqlite()).await).await;
    played_and_old_enough(TestApp::spawn(TestDb::postgres()).await).await;
}

/// A new account is no longer new after enough played games (a game resigned too early is
/// not one), and a rebuild of the day counts it the same way.
async fn played_enough_games(db: TestDb) {
    let url = db.url_string();
    let app = TestApp::spawn_with(
        db,
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_CHAMPIONS__NEW_ACCOUNT_GAMES", "2"),
        ],
    )
    .await;
    let (mut ws, ids) = two_guests(&app, "Ade", "Bisi").await;
    let (_, over) = played_then_resigned(&mut ws, &ids, 1).await;
    assert_eq!(verdict(&over), not_counted("too_few_moves"), "{over}");
    for n in 0..2 {
        let (_, over) = played_then_resigned(&mut ws, &ids, 10).await;
        assert_eq!(
            verdict(&over),
            not_counted("new_account"),
            "game {n}: {over}"
        );
    }
    let (winner, over) = played_then_resigned(&mut ws, &ids, 10).await;
    assert_eq!(verdict(&over), counted(), "{over}");
    wall_until(&app, |w| {
        total(w) == 1 && w["entries"][0]["user"]["id"] == winner.as_str()
    })
    .await;
    let settings = lounge::config::Settings::load_from(
        lounge::config::Settings::environment().source(Some(
            [("LOUNGE_DATABASE__URL".to_owned(), url)]
                .into_iter()
                .collect(),
        )),
    )
    .unwrap();
    let store = lounge::store::Store::open(&settings.database.url.parse().unwrap(), 2).unwrap();
    let champions = lounge::app::champions(&settings, store).unwrap();
    let rebuilt = champions.rebuild(today()).await.unwrap();
    assert_eq!((rebuilt.recounted, rebuilt.counted), (0, 1), "{rebuilt:?}");
    assert_eq!(
        stored_reasons(&app),
        [
            Some("too_few_moves"),
            Some("new_account"),
            Some("new_account"),
            None
        ]
        .map(|r| r.map(str::to_owned))
    );
}

#[actix_web::test]
async fn a_new_account_s_wins_count_after_enough_played_games() {
    played_enough_games(TestDb::sqlite()).await;
    played_enough_games(TestDb::postgres()).await;
}

/// Waits until the outbox is empty: the wall has every counted result.
async fn outbox_drained(app: &TestApp) {
    crate::champions::outbox_drained(&[app]).await;
}

#[actix_web::test]
async fn after_redis_restarts_empty_the_next_win_adds_to_the_day_filled_from_the_database() {
    for db in TestDb::both() {
        let mut own = OwnRedis::start(free_port());
        let prefix = format!("test-{}:", lounge::store::new_id());
        let app = TestApp::spawn_counting_every_win(
            db,
            &[
                ("LOUNGE_CHAMPIONS__REDIS_URL", &own.url()),
                ("LOUNGE_CHAMPIONS__REDIS_KEY_PREFIX", &prefix),
                // Every win counts, whoever wins them.
                ("LOUNGE_CHAMPIONS__PER_OPPONENT_CAP", "100"),
            ],
        )
        .await;
        let (mut ws, ids) = two_guests(&app, "Ade", "Bisi").await;
        let [a, b] = &mut ws;
        for _ in 0..3 {
            let (_, over) = quick_win(a, b, &ids[0], &ids[1], TABLE).await;
            assert_eq!(over["counts_for_champions"], true);
        }
        wall_until(&app, |w| total(w) == 3).await;
        outbox_drained(&app).await;
        // Redis restarts without its data.
        own.stop();
        let own = OwnRedis::start(own.port);
        let (_, over) = quick_win(a, b, &ids[0], &ids[1], TABLE).await;
        assert_eq!(over["counts_for_champions"], true);
        outbox_drained(&app).await;
        // Not 1: the day was filled from the database before the win was added.
        let wall = wall_today(&app).await;
        assert_eq!(total(&wall), 4, "{wall}");
        let wall = RedisWall::new(
            redis::Client::open(own.url())
                .unwrap()
                .get_connection_manager()
                .await
                .unwrap(),
            &prefix,
            3,
            7,
        );
        let top = wall.top(today(), 10).await.unwrap();
        assert_eq!(top.iter().map(|s| s.wins).sum::<u32>(), 4, "{top:?}");
        assert!(wall.filled(today()).await.unwrap(), "the marker is back");
        // The day's keys deleted, the marker with them (Redis evicted them, an operator ran
        // FLUSHDB): the next win too is added to the day filled again, not to nothing.
        wall.clear(today()).await.unwrap();
        let (_, over) = quick_win(a, b, &ids[0], &ids[1], TABLE).await;
        assert_eq!(over["counts_for_champions"], true);
        outbox_drained(&app).await;
        let wall_now = wall_today(&app).await;
        assert_eq!(total(&wall_now), 5, "{wall_now}");
        let on_redis: u32 = wall
            .top(today(), 10)
            .await
            .unwrap()
            .iter()
            .map(|s| s.wins)
            .sum();
        assert_eq!(on_redis, 5);
        // And a reader finds a lost day filled before it is answered.
        wall.clear(today()).await.unwrap();
        assert_eq!(total(&wall_today(&app).await), 5);
        assert!(wall.filled(today()).await.unwrap());
    }
}

/// How long a wait for the service's log (another process) may take at most: the failure
/// bound, not a pause.
const LOG_BOUND: Duration = Duration::from_secs(15);

#[actix_web::test]
async fn a_redis_outage_is_logged_once_when_it_starts_and_once_when_it_ends() {
    const DOWN: &str = "the champions wall is unreachable";
    const UP: &str = "the champions wall is reachable again";
    const FAILED: &str = "the wall does not answer";
    const PASSED: &str = "the watcher read the wall";
    for db in TestDb::both() {
        let mut own = OwnRedis::start(free_port());
        let prefix = format!("test-{}:", lounge::store::new_id());
        let url = own.url();
        let mut settings = EVERY_WIN_COUNTS.to_vec();
        settings.extend([
            ("REDIS_URL", url.as_str()),
            ("LOUNGE_CHAMPIONS__REDIS_KEY_PREFIX", prefix.as_str()),
        ]);
        // The display watcher's reads too (each second), each awaited as the line it writes.
        let (mut child, port, log) =
            serve_logging_at(&db, "info,lounge::champions=trace", &settings);
        let app = TestApp::attach(db, port);
        let (mut ws, ids) = two_guests(&app, "Ade", "Bisi").await;
        let [a, b] = &mut ws;
        let (winner, _) = quick_win(a, b, &ids[0], &ids[1], TABLE).await;
        wall_until(&app, |w| total(w) == 1).await;
        own.stop();
        // Meanwhile the wall answers from the database, again and again.
        for _ in 0..5 {
            let wall = wall_today(&app).await;
            assert_eq!(wall["entries"][0]["user"]["id"], winner.as_str(), "{wall}");
            assert_eq!(total(&wall), 1, "{wall}");
        }
        log.until(DOWN, 1, LOG_BOUND).await;
        // The display watcher keeps failing (three reads more, each a line of its own), and
        // the requests with it.
        let failed = log.lines_with(FAILED);
        for more in 1..=3 {
            assert_eq!(total(&wall_today(&app).await), 1);
            log.until(FAILED, failed + more, LOG_BOUND).await;
        }
        assert_eq!(log.lines_with(DOWN), 1);
        assert_eq!(log.lines_with(UP), 0);
        let _own = OwnRedis::start(own.port);
        log.until(UP, 1, LOG_BOUND).await;
        // Reads that reach the wall again (two more), and requests with them.
        let passed = log.lines_with(PASSED);
        for more in 1..=2 {
            assert_eq!(total(&wall_today(&app).await), 1);
            log.until(PASSED, passed + more, LOG_BOUND).await;
        }
        assert_eq!(
            (log.lines_with(DOWN), log.lines_with(UP)),
            (1, 1),
            "{:#?}",
            log.lock()
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}
