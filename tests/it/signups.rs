//! Sign-ups: a few a minute per address, and never ahead of the games in the database queue.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::helpers::floods::{p99, timed_play_out};
use crate::helpers::{game_between_two, on_both_with, TestApp, TestDb};

#[actix_web::test]
async fn an_address_gets_a_few_sign_ups_a_minute_then_429_with_retry_after() {
    let limits = [
        ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "5"),
        ("LOUNGE_SERVER__SIGNUP_BURST", "5"),
    ];
    let mut behind_proxy = limits.to_vec();
    behind_proxy.push(("LOUNGE_SERVER__TRUSTED_PROXIES", "127.0.0.1"));
    let app = TestApp::spawn_with(TestDb::sqlite(), &behind_proxy).await;
    for i in 0..5 {
        let (status, body, _) = app.guest_from(&format!("Guest {i}"), "203.0.113.9").await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body, retry) = app.guest_from("Guest 5", "203.0.113.9").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (429, Some("rate_limited"))
    );
    assert_eq!(retry.as_deref(), Some("12"));
    // A bad name costs no sign-up, and is told as such.
    let (status, body, _) = app.guest_from("", "198.51.100.3").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid_name"))
    );
    // Another address has its own.
    let (status, _, _) = app.guest_from("Guest 6", "198.51.100.3").await;
    assert_eq!(status, 201);
    // One more a minute / 5 later.
    app.clock.advance(12_000);
    let (status, _, _) = app.guest_from("Guest 7", "203.0.113.9").await;
    assert_eq!(status, 201);
    let (status, _, _) = app.guest_from("Guest 8", "203.0.113.9").await;
    assert_eq!(status, 429);

    // No trusted proxy: X-Forwarded-For is anyone's to write, and changes nothing.
    let app = TestApp::spawn_with(TestDb::sqlite(), &limits).await;
    for i in 0..5 {
        let (status, _, _) = app
            .guest_from(&format!("Guest {i}"), &format!("10.0.0.{i}"))
            .await;
        assert_eq!(status, 201);
    }
    let (status, _, _) = app.guest_from("Guest 5", "10.0.0.99").await;
    assert_eq!(status, 429);
}

/// Sign-ups running flat out from `FLOODERS` addresses while a game is played: its moves'
/// round trip stays short.
const FLOODERS: usize = 24;

#[actix_web::test]
async fn a_sign_up_flood_does_not_hold_up_another_games_moves() {
    on_both_with(
        &[("LOUNGE_SERVER__TRUSTED_PROXIES", "127.0.0.1")],
        |app| async move {
            let (mut a, mut b, _c, _, a_id, started, _) = game_between_two(&app).await;
            let table = "surulere-games-lounge-1";
            let side = |id: &str| {
                if started["players"]["south"]["id"] == id {
                    "south"
                } else {
                    "north"
                }
            };
            let (sa, sb) = (
                side(&a_id),
                if side(&a_id) == "south" {
                    "north"
                } else {
                    "south"
                },
            );
            let done = Rc::new(Cell::new(false));
            let signed = Rc::new(Cell::new(0usize));
            let flood = (0..FLOODERS).map(|f| {
                let (app, done, signed) = (&app, done.clone(), signed.clone());
                async move {
                    let mut n = 0;
                    while !done.get() {
                        let (status, body, _) = app
                            .guest_from(&format!("Flood {f} {n}"), &format!("10.1.{f}.{}", n % 250))
                            .await;
                        assert_eq!(status, 201, "{body}");
                        n += 1;
                        signed.set(signed.get() + 1);
                    }
                }
            });
            let flood = futures_util::future::join_all(flood);
            let state = started["state"].clone();
            let play = async {
                // Two games, to have enough moves.
                let ((_, ta), (_, tb)) = tokio::join!(
                    timed_play_out(&mut a, table, sa, state.clone(), 7),
                    timed_play_out(&mut b, table, sb, state, 11)
                );
                done.set(true);
                ta.into_iter().chain(tb).collect::<Vec<Duration>>()
            };
            let (trips, _) = tokio::join!(play, flood);
            assert!(signed.get() > 0);
            let p99 = p99(trips);
            eprintln!("move p99 {p99:?} while {} sign-ups", signed.get());
            assert!(p99 < Duration::from_millis(250), "a move's p99 was {p99:?}");
        },
    )
    .await;
}
