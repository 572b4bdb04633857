//! Ratings: Glicko-2 as each game between people ends, read from the results outbox by the
//! reader "ratings"; casual, house and aborted games change none; a rebuild comes to the
//! running ratings exactly; several instances rate each game once; the profile shows them.

use std::time::Duration;

use lounge::ratings::{Rating, RatingRules, RATINGS_READER};
use lounge::store::{RatingChangeRow, RatingRow};
use serde_json::{json, Value};

use crate::helpers::{on_both, on_both_with, TestApp, TestDb, Ws};

const LOUNGE: &str = "surulere-games-lounge";
const TABLE: &str = "surulere-games-lounge-1";
/// The longest a test waits for the reader to get past a result.
const BOUND: Duration = Duration::from_secs(20);

/// Guests in the lounge: their sockets and ids.
async fn guests<const N: usize>(app: &TestApp, names: [&str; N]) -> ([Ws; N], [String; N]) {
    let mut sockets = Vec::new();
    let mut ids = Vec::new();
    for name in names {
        let (token, id) = app.guest(name).await;
        let mut ws = app.ws(&token).await;
        ws.send(json!({"type": "enter", "room": LOUNGE})).await;
        ws.next_of("room").await;
        sockets.push(ws);
        ids.push(id);
    }
    (
        sockets.try_into().ok().unwrap(),
        ids.try_into().ok().unwrap(),
    )
}

/// `host` sits at `table` (choosing `rated` when given), invites `guest`, and the game starts;
/// both play `plies` moves between them (the first legal pit each time), then the side to move
/// resigns (or, `drawn`, offers a draw the other takes). The table as the host was shown it
/// after choosing, and the winner's id (the one who did not resign).
async fn game(
    host: &mut Ws,
    guest: &mut Ws,
    ids: [&str; 2],
    table: &str,
    rated: Option<bool>,
    plies: usize,
    drawn: bool,
) -> (Value, String) {
    host.send(json!({"type": "sit", "table": table, "seat": "south"}))
        .await;
    let mut shown = host.next_of("table").await;
    if let Some(rated) = rated {
        host.send(json!({"type": "set_match", "table": table, "rated": rated}))
            .await;
        loop {
            shown = host.next_of("table").await;
            if shown["settings"]["rated"] == rated {
                break;
            }
        }
    }
    host.send(json!({"type": "invite", "table": table, "user": ids[1]}))
        .await;
    let invitation = guest.next_of("invitation").await;
    assert_eq!(invitation["settings"]["rated"], shown["settings"]["rated"]);
    guest
        .send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
        .await;
    let started = host.next_of("game_started").await;
    guest.next_of("game_started").await;
    let south_is_host = started["players"]["south"]["id"] == ids[0];
    let mut state = started["state"].clone();
    for _ in 0..plies {
        let south_moves = state["to_move"] == "south";
        let mover = if south_moves == south_is_host {
            &mut *host
        } else {
            &mut *guest
        };
        let pit = state["legal"][0].clone();
        mover
            .send(json!({"type": "move", "table": table, "pit": pit}))
            .await;
        // Both read the move, so neither has it waiting when the next game begins.
        state = host.next_of("game_state").await["state"].clone();
        guest.next_of("game_state").await;
    }
    let south_to_move = state["to_move"] == "south";
    let (resigner, other, winner) = if south_to_move == south_is_host {
        (&mut *host, &mut *guest, ids[1])
    } else {
        (&mut *guest, &mut *host, ids[0])
    };
    if drawn {
        resigner
            .send(json!({"type": "offer_draw", "table": table}))
            .await;
        other.next_of("draw_offered").await;
        other
            .send(json!({"type": "answer_draw", "table": table, "accept": true}))
            .await;
    } else {
        resigner
            .send(json!({"type": "resign", "table": table}))
            .await;
    }
    let over = resigner.next_of("game_over").await;
    other.next_of("game_over").await;
    if drawn {
        assert_eq!(over["result"], "draw", "{over}");
    }
    // The match is over (best of one): both stand up for the next.
    (shown, winner.to_owned())
}

/// Tunde against easy Baba Ayo at the first table: two moves of Tunde's, then he resigns.
/// His socket and the game's id.
async fn house_game_resigned(app: &TestApp) -> (Ws, String) {
    let (mut t, mine, started, _) = crate::helpers::house_game(app, "easy").await;
    let mut state = started["state"].clone();
    let mut moved = 0;
    while moved < 2 {
        if state["to_move"] == mine {
            let pit = state["legal"][0].clone();
            t.send(json!({"type": "move", "table": TABLE, "pit": pit}))
                .await;
            moved += 1;
        }
        state = t.next_of("game_state").await["state"].clone();
    }
    t.send(json!({"type": "resign", "table": TABLE})).await;
    t.next_of("game_over").await;
    let game = started["game_id"].as_str().unwrap().to_owned();
    (t, game)
}

/// The last result stored.
fn last_seq(app: &TestApp) -> i64 {
    app.db
        .store()
        .unread_results("nobody-reads-this", 10_000)
        .unwrap()
        .last()
        .map_or(0, |(r, _)| r.seq)
}

/// Waits until the ratings' reader (of whichever of `apps` has its turn) has read every
/// result up to `seq`, looking again each time one of them says it has read.
async fn read_up_to(apps: &[&TestApp], seq: i64) {
    let mut follows: Vec<_> = apps
        .iter()
        .map(|app| app.ratings.as_ref().expect("served here").follow())
        .collect();
    let store = apps[0].db.store();
    while store.cursor(RATINGS_READER).unwrap() < seq {
        let changed = follows.iter_mut().map(|f| Box::pin(f.changed()));
        let (said, _, _) = tokio::time::timeout(BOUND, futures_util::future::select_all(changed))
            .await
            .expect("the ratings' reader got past the result");
        said.expect("the reader runs");
    }
}

fn rating_of(rows: &[RatingRow], user: &str) -> Rating {
    let row = rows
        .iter()
        .find(|r| r.user_id.to_string() == user)
        .unwrap_or_else(|| panic!("{user} has a rating: {rows:?}"));
    Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
    }
}

#[actix_web::test]
async fn a_rated_game_between_two_guests_changes_both_ratings_and_shows_in_their_profiles() {
    on_both(|app| async move {
        let ([mut a, mut b], [a_id, b_id]) = guests(&app, ["Ade", "Bisi"]).await;
        let (shown, winner) = game(&mut a, &mut b, [&a_id, &b_id], TABLE, None, 4, false).await;
        // Rated by default in the lounge, and the table says so.
        assert_eq!(shown["settings"]["rated"], true, "{shown}");
        let loser = if winner == a_id { &b_id } else { &a_id };
        read_up_to(&[&app], last_seq(&app)).await;

        let store = app.db.store();
        let rows = store.all_ratings().unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        let rules = RatingRules::default();
        let (won, lost) = rules.game(rules.initial, rules.initial, 1.0);
        assert_eq!(rating_of(&rows, &winner), won);
        assert_eq!(rating_of(&rows, loser), lost);
        assert!(won.rating > 1500.0 && lost.rating < 1500.0);
        assert!(rows.iter().all(|r| r.family == "abapa" && r.games == 1));
        let changes = store.all_rating_changes().unwrap();
        assert_eq!(changes.len(), 2, "{changes:?}");
        // The game's record names both at the ratings they played at.
        let (status, _, record) = app.game_record(changes[0].game_id.as_str()).await;
        assert_eq!(status, 200, "{record}");
        assert!(
            record.contains("[SouthRating \"1500\"]") && record.contains("[NorthRating \"1500\"]"),
            "{record}"
        );

        // The winner's profile, seen by nobody, then by the loser.
        let (status, profile) = app.profile(&winner, None).await;
        assert_eq!(status, 200, "{profile}");
        assert_eq!(profile["user"]["id"], winner.as_str());
        // A person: `house` is left out (as everywhere a user is shown).
        assert_ne!(profile["user"]["house"], true, "{profile}");
        let rating = &profile["ratings"][0];
        assert_eq!(rating["family"], "abapa");
        assert_eq!(rating["rating"], won.rating);
        assert_eq!(rating["deviation"], won.deviation);
        assert_eq!(rating["games"], 1);
        assert_eq!(rating["provisional"], true);
        assert_eq!(rating["shown"], format!("{}?", won.rating.round()));
        assert_eq!(profile["record"], json!({"won": 1, "drawn": 0, "lost": 0}));
        let recent = &profile["recent"][0];
        assert_eq!(recent["opponent"]["id"], loser.as_str());
        assert_eq!(recent["result"], "won");
        assert_eq!(recent["rating"]["before"], 1500.0);
        assert_eq!(recent["rating"]["after"], won.rating);
        assert!(recent["rating"]["change"].as_f64().unwrap() > 0.0);
        assert_eq!(profile["head_to_head"], Value::Null);

        let (chidi, _) = app.guest("Chidi").await;
        // A token of a third player: their (empty) record against the winner.
        let (_, seen) = app.profile(&winner, Some(&chidi)).await;
        assert_eq!(seen["head_to_head"]["games"]["played"], 0, "{seen}");
        // A token that is not valid is no viewer, and no refusal.
        let (status, seen) = app.profile(&winner, Some("not-a-token")).await;
        assert_eq!(status, 200);
        assert_eq!(seen["head_to_head"], Value::Null);

        let (_, lost_profile) = app.profile(loser, None).await;
        assert_eq!(lost_profile["recent"][0]["result"], "lost");
        assert!(
            lost_profile["recent"][0]["rating"]["change"]
                .as_f64()
                .unwrap()
                < 0.0
        );
        assert_eq!(lost_profile["record"]["lost"], 1);

        let (status, missing) = app.profile("nobody-at-all", None).await;
        assert_eq!(status, 404, "{missing}");
        assert_eq!(missing["error"]["code"], "not_found", "{missing}");
    })
    .await;
}

#[actix_web::test]
async fn the_viewers_head_to_head_shows_in_a_profile_seen_with_their_token() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (ta, a_id) = app.guest("Ade").await;
    let (tb, b_id) = app.guest("Bisi").await;
    let (mut a, mut b) = (app.ws(&ta).await, app.ws(&tb).await);
    for ws in [&mut a, &mut b] {
        ws.send(json!({"type": "enter", "room": LOUNGE})).await;
        ws.next_of("room").await;
    }
    let (_, winner) = game(&mut a, &mut b, [&a_id, &b_id], TABLE, None, 4, false).await;
    let (viewer, seen) = if winner == a_id {
        (&tb, &a_id)
    } else {
        (&ta, &b_id)
    };
    let (status, profile) = app.profile(seen, Some(viewer)).await;
    assert_eq!(status, 200, "{profile}");
    // The viewer's wins first: they lost the one game.
    assert_eq!(profile["head_to_head"]["games"]["played"], 1, "{profile}");
    assert_eq!(profile["head_to_head"]["games"]["won"], json!([0, 1]));
    assert_eq!(profile["head_to_head"]["matches"]["won"], json!([0, 1]));
    // One's own profile has no head-to-head.
    let (_, own) = app
        .profile(seen, Some(if viewer == &ta { &tb } else { &ta }))
        .await;
    assert_eq!(own["head_to_head"], Value::Null);
}

#[actix_web::test]
async fn a_drawn_rated_game_is_half_a_win_to_each_and_not_on_the_wall() {
    on_both(|app| async move {
        let (a_token, a_id) = app.guest("Ade").await;
        let (b_token, b_id) = app.guest("Bisi").await;
        let mut sockets = Vec::new();
        for token in [&a_token, &b_token] {
            let mut ws = app.ws(token).await;
            ws.send(json!({"type": "enter", "room": LOUNGE})).await;
            ws.next_of("room").await;
            sockets.push(ws);
        }
        let [mut a, mut b]: [Ws; 2] = sockets.try_into().ok().unwrap();
        game(&mut a, &mut b, [&a_id, &b_id], TABLE, None, 6, true).await;
        let seq = last_seq(&app);
        assert!(seq >= 1, "the draw is a result");
        read_up_to(&[&app], seq).await;

        let store = app.db.store();
        let rows = store.all_ratings().unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        let rules = RatingRules::default();
        let (first, second) = rules.game(rules.initial, rules.initial, 0.5);
        // Equal ratings, a draw: neither moves, both are surer.
        assert_eq!(rating_of(&rows, &a_id).rating, first.rating);
        assert_eq!(rating_of(&rows, &b_id).rating, second.rating);
        assert_eq!(first.rating, 1500.0);
        assert!(first.deviation < rules.initial.deviation);
        let changes = store.all_rating_changes().unwrap();
        assert!(changes.iter().all(|c| c.score == 0.5), "{changes:?}");

        let (_, profile) = app.profile(&a_id, None).await;
        assert_eq!(
            profile["record"],
            json!({"won": 0, "drawn": 1, "lost": 0}),
            "{profile}"
        );
        assert_eq!(profile["recent"][0]["result"], "draw");
        assert_eq!(profile["recent"][0]["rating"]["change"], 0.0, "{profile}");
        // Rated now: a socket opened since shows the ratings beside their names in the room.
        let (chidi, _) = app.guest("Chidi").await;
        let mut c = app.ws(&chidi).await;
        c.send(json!({"type": "enter", "room": LOUNGE})).await;
        let room = c.next_of("room").await;
        let ade = room["occupants"]
            .as_array()
            .and_then(|all| all.iter().find(|o| o["id"] == a_id.as_str()))
            .unwrap_or_else(|| panic!("Ade in {room}"));
        // Ade's socket opened before the game: the rating Ade had then (none).
        assert_eq!(ade.get("ratings"), None, "{room}");
        // Ade leaves and comes back on a new socket: the rating as it is now.
        a.send(json!({"type": "leave"})).await;
        a.next_of("left").await;
        c.next_of("occupant_left").await;
        drop(a);
        let mut a_again = app.ws(&a_token).await;
        a_again.send(json!({"type": "enter", "room": LOUNGE})).await;
        a_again.next_of("room").await;
        let joined = c.next_of("occupant_joined").await;
        assert_eq!(joined["user"]["id"], a_id.as_str(), "{joined}");
        let shown = format!("{}?", first.rating.round());
        assert_eq!(
            joined["user"]["ratings"],
            json!({"abapa": shown}),
            "{joined}"
        );
        // Nobody won: nothing on the wall, and nothing kept off it either.
        let (_, wall) = app.champions_today(None).await;
        assert_eq!(wall["entries"], json!([]), "{wall}");
        let (_, uncounted) = app.champions_uncounted_today().await;
        assert_eq!(uncounted["entries"], json!([]), "{uncounted}");
    })
    .await;
}

#[actix_web::test]
async fn casual_house_and_aborted_games_change_no_rating() {
    on_both(|app| async move {
        let ([mut a, mut b], [a_id, b_id]) = guests(&app, ["Ade", "Bisi"]).await;
        // Casual by the host's choice, shown at the table and kept with the match.
        let (shown, _) = game(&mut a, &mut b, [&a_id, &b_id], TABLE, Some(false), 4, false).await;
        assert_eq!(shown["settings"]["rated"], false, "{shown}");
        let rated = |history: &Value| {
            let id = history["matches"][0]["id"].as_str().unwrap().to_owned();
            app.db
                .store()
                .is_rated(&lounge::common::MatchId::new(id))
                .unwrap()
        };
        let (_, history) = app
            .match_history(&a_id, crate::helpers::Page::default())
            .await;
        assert!(!rated(&history), "{history}");
        // Aborted: one side made one move.
        let (_, _) = game(&mut a, &mut b, [&a_id, &b_id], TABLE, Some(true), 2, false).await;
        let (_, history) = app
            .match_history(&a_id, crate::helpers::Page::default())
            .await;
        assert!(rated(&history), "{history}");
        // Baba Ayo's game: two moves of Tunde's, then he resigns.
        let _tunde = house_game_resigned(&app).await;

        let seq = last_seq(&app);
        assert!(seq >= 3, "three results stored");
        read_up_to(&[&app], seq).await;
        let store = app.db.store();
        assert_eq!(store.all_ratings().unwrap(), Vec::<RatingRow>::new());
        assert_eq!(
            store.all_rating_changes().unwrap(),
            Vec::<RatingChangeRow>::new()
        );
        let (_, profile) = app.profile(&a_id, None).await;
        assert_eq!(profile["ratings"], json!([]), "{profile}");
        assert_eq!(profile["recent"].as_array().unwrap().len(), 2, "{profile}");
        assert_eq!(profile["recent"][0]["rating"], Value::Null);
    })
    .await;
}

#[actix_web::test]
async fn games_between_two_accounts_of_one_browser_change_no_rating() {
    on_both(|app| async move {
        // A key that is not one is refused, and nobody is made.
        let (status, body) = app
            .sign_in_guest_with(json!({"name": "Ade", "device_key": "short"}))
            .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"]["code"], "invalid_field", "{body}");
        let key = "one-browser-7f3a9c2e51d04b68";
        let mut sockets = Vec::new();
        let mut ids = Vec::new();
        for (name, key) in [
            ("Ade", key),
            ("Ade Two", key),
            ("Bisi", "another-browser-0c4e81a2"),
        ] {
            let (status, body) = app
                .sign_in_guest_with(json!({"name": name, "device_key": key}))
                .await;
            assert_eq!(status, 201, "{body}");
            let mut ws = app.ws(body["token"].as_str().unwrap()).await;
            ws.send(json!({"type": "enter", "room": LOUNGE})).await;
            ws.next_of("room").await;
            sockets.push(ws);
            ids.push(body["user"]["id"].as_str().unwrap().to_owned());
        }
        let [mut a, mut a2, mut b]: [Ws; 3] = sockets.try_into().ok().unwrap();
        // One person's two accounts: not rated.
        game(&mut a, &mut a2, [&ids[0], &ids[1]], TABLE, None, 4, false).await;
        read_up_to(&[&app], last_seq(&app)).await;
        let store = app.db.store();
        assert_eq!(store.all_ratings().unwrap(), Vec::<RatingRow>::new());
        // Two browsers: rated.
        game(&mut a, &mut b, [&ids[0], &ids[2]], TABLE, None, 4, false).await;
        read_up_to(&[&app], last_seq(&app)).await;
        let rated: Vec<String> = store
            .all_ratings()
            .unwrap()
            .iter()
            .map(|r| r.user_id.to_string())
            .collect();
        assert_eq!(rated.len(), 2, "{rated:?}");
        assert!(
            rated.contains(&ids[0]) && rated.contains(&ids[2]),
            "{rated:?}"
        );
    })
    .await;
}

#[actix_web::test]
async fn told_to_baba_ayo_reviews_each_rated_game_unasked_and_no_other() {
    let told = [
        ("LOUNGE_HOUSE__REVIEW_RATED", "true"),
        ("LOUNGE_HOUSE__REVIEW_MS", "400"),
    ];
    on_both_with(&told, |app| async move {
        // Baba Ayo's own game first: a house game is never rated, so never reviewed unasked.
        let (mut t, house_game) = house_game_resigned(&app).await;
        t.send(json!({"type": "leave"})).await;
        t.next_of("left").await;

        let ([mut a, mut b], [a_id, b_id]) = guests(&app, ["Ade", "Bisi"]).await;
        let mut ended = app.reviews.as_ref().expect("served here").follow();
        game(&mut a, &mut b, [&a_id, &b_id], TABLE, None, 4, false).await;
        let (_, history) = app
            .match_history(&a_id, crate::helpers::Page::default())
            .await;
        let rated_game = history["matches"][0]["games"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let review = loop {
            let (status, review) = app.review(&rated_game, None).await;
            if status == 200 && review["status"] != "waiting" {
                break review;
            }
            tokio::time::timeout(BOUND, ended.changed())
                .await
                .expect("a review ended")
                .expect("the reviews run");
        };
        assert_eq!(review["status"], "done", "{review}");
        assert_eq!(review["moves"].as_array().unwrap().len(), 4, "{review}");
        // The house game's result was read before the rated one's: passed over.
        let (status, none) = app.review(&house_game, None).await;
        assert_eq!(status, 404, "{none}");
    })
    .await;
}

/// Three guests play four rated games, the last drawn; the reader rates them as they end.
async fn round_of_games(app: &TestApp, names: [&str; 3]) -> [String; 3] {
    let ([mut a, mut b, mut c], ids) = guests(app, names).await;
    let [ai, bi, ci] = [&ids[0], &ids[1], &ids[2]];
    game(&mut a, &mut b, [ai, bi], TABLE, None, 4, false).await;
    game(&mut b, &mut c, [bi, ci], TABLE, None, 5, false).await;
    game(&mut c, &mut a, [ci, ai], TABLE, None, 6, false).await;
    game(&mut a, &mut b, [ai, bi], TABLE, None, 7, true).await;
    ids
}

#[actix_web::test]
async fn a_rebuild_comes_to_the_running_ratings_exactly() {
    on_both(|app| async move {
        round_of_games(&app, ["Ade", "Bisi", "Chidi"]).await;
        let seq = last_seq(&app);
        read_up_to(&[&app], seq).await;
        let store = app.db.store();
        let ratings = store.all_ratings().unwrap();
        let changes = store.all_rating_changes().unwrap();
        assert_eq!(ratings.len(), 3, "{ratings:?}");
        assert_eq!(changes.len(), 8, "{changes:?}");
        assert_eq!(ratings.iter().map(|r| r.games).sum::<i32>(), 8);

        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
            .args(["ratings", "rebuild"])
            .env("DATABASE_URL", app.db.url_string())
            .env("LOUNGE_AUTH__SECRET", crate::helpers::app::TEST_SECRET)
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        let report = crate::helpers::printed_json(out);
        // Every result read and rated again (on SQLite the service may have read some of them
        // itself meanwhile: it has no turns between processes).
        assert_eq!(report["ratings"], 3, "{report}");
        assert!(report["rated"] == report["results"], "{report}");
        assert!(report["results"].as_u64().unwrap() <= 4, "{report}");
        assert_eq!(store.all_ratings().unwrap(), ratings);
        assert_eq!(store.all_rating_changes().unwrap(), changes);
        assert_eq!(store.cursor(RATINGS_READER).unwrap(), seq);
    })
    .await;
}

#[actix_web::test]
async fn on_two_instances_each_game_is_rated_once_whichever_instance_ran_it() {
    let first = TestApp::spawn(TestDb::postgres()).await;
    let second = TestApp::spawn(first.db.again()).await;
    // Games end on both instances (each runs its own lounge here: one database).
    round_of_games(&first, ["Ade", "Bisi", "Chidi"]).await;
    round_of_games(&second, ["Dayo", "Emeka", "Funmi"]).await;
    let seq = last_seq(&first);
    read_up_to(&[&first, &second], seq).await;
    let store = first.db.store();
    let ratings = store.all_ratings().unwrap();
    let changes = store.all_rating_changes().unwrap();
    assert_eq!(ratings.len(), 6, "{ratings:?}");
    assert_eq!(
        changes.len(),
        16,
        "each game's two changes, once: {changes:?}"
    );
    assert_eq!(ratings.iter().map(|r| r.games).sum::<i32>(), 16);

    // Read all over again by four readers at once (both instances' and two more on handles
    // of their own): one at a time has the turn, and they come to the same ratings.
    store.forget_ratings(RATINGS_READER).unwrap();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let db = first.db.again();
            std::thread::spawn(move || {
                let reader =
                    lounge::ratings::Ratings::new(db.store().clone(), RatingRules::default());
                reader.drain().unwrap()
            })
        })
        .collect();
    for reader in readers {
        reader.join().unwrap();
    }
    // Whatever the two readers left (an instance had the turn), the instances read.
    for app in [&first, &second] {
        app.ratings.as_ref().unwrap().bell().notify_one();
    }
    read_up_to(&[&first, &second], seq).await;
    assert_eq!(store.all_ratings().unwrap(), ratings);
    assert_eq!(store.all_rating_changes().unwrap(), changes);
}
