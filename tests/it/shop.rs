//! The furniture shop, coins and apartments with Ayo boards, over HTTP and the WebSocket, on
//! SQLite and PostgreSQL.

use futures_util::future::join_all;
use lounge::common::{GameId, ItemId, UserId};
use serde_json::{json, Value};

use crate::helpers::{on_both, on_both_with, play_out, TestApp, TestDb};

async fn get_me(app: &TestApp, token: &str) -> Value {
    let (status, body) = app.me(token).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The ledger adds up to the balance, and each entry's balance follows from the one before.
fn ledger_adds_up(app: &TestApp, user: &str) -> i64 {
    let store = app.db.store();
    let user = UserId::new(user);
    let balance = store.coins(&user).unwrap().unwrap();
    let mut entries = store.ledger(&user, 10_000).unwrap();
    entries.reverse();
    let mut running = 0;
    for entry in &entries {
        running += entry.amount;
        assert_eq!(entry.balance, running, "{entry:?}");
        assert!(entry.balance >= 0);
    }
    assert_eq!(running, balance);
    balance
}

#[actix_web::test]
async fn a_new_avatar_gets_its_welcome_coins_an_apartment_and_sees_the_shop() {
    on_both(|app| async move {
        let (token, id) = app.guest("Tunde").await;
        let me = get_me(&app, &token).await;
        assert_eq!(me["user"]["id"], id.as_str());
        assert_eq!(me["coins"], 500);
        assert_eq!(me["inventory"], json!([]));
        assert_eq!(me["apartment"]["room"], format!("apartment-{id}"));
        assert_eq!(me["apartment"]["door"], "invited");
        assert_eq!(me["apartment"]["tables"], json!([]));
        let (status, shop) = app.shop_items(&token).await;
        assert_eq!(status, 200);
        let items = shop["items"].as_array().unwrap();
        assert!(items.iter().filter(|i| i["kind"] == "ayo_board").count() >= 3);
        assert!(items.iter().any(|i| i["kind"] == "furniture"));
        let ebony = items
            .iter()
            .find(|i| i["id"] == "ayo-board-ebony-carved")
            .unwrap();
        assert_eq!(ebony["stock"], 20);
        assert_eq!(ebony["wood"], "ebony");
        // The shop and `me` need a player token.
        assert_eq!(app.me_without_token().await.0, 401);
        assert_eq!(app.shop_items("x.y.z").await.0, 401);
        assert_eq!(ledger_adds_up(&app, &id), 500);
    })
    .await;
}

#[actix_web::test]
async fn fifty_purchases_at_once_never_take_a_balance_below_zero() {
    // 100 coins buy six cushions at 15; the other 44 of 50 racing purchases are refused.
    on_both_with(&[("LOUNGE_SHOP__WELCOME_COINS", "100")], |app| async move {
        let (token, id) = app.guest("Tunde").await;
        let answers = join_all((0..50).map(|_| app.buy(&token, "adire-cushion", None))).await;
        let bought = answers.iter().filter(|(s, _)| *s == 201).count();
        let refused: Vec<_> = answers.iter().filter(|(s, _)| *s != 201).collect();
        assert_eq!(bought, 6, "{answers:?}");
        for (status, body) in &refused {
            assert_eq!(*status, 409, "{body}");
            assert_eq!(body["error"]["code"], "insufficient_coins");
        }
        assert_eq!(ledger_adds_up(&app, &id), 10);
        let me = get_me(&app, &token).await;
        assert_eq!(me["coins"], 10);
        assert_eq!(me["inventory"].as_array().unwrap().len(), 6);
    })
    .await;
}

#[actix_web::test]
async fn the_last_of_a_stock_goes_to_one_buyer_only() {
    on_both(|app| async move {
        let admin = app.admin_token("ops");
        let (status, _) = app
            .create_item(
                &admin,
                json!({"id": "iroko-stool", "name": "Iroko stool", "kind": "furniture", "price": 10, "stock": 3}),
            )
            .await;
        assert_eq!(status, 201);
        let mut buyers = Vec::new();
        for n in 0..8 {
            buyers.push(app.guest(&format!("Buyer {n}")).await);
        }
        let answers =
            join_all(buyers.iter().map(|(token, _)| app.buy(token, "iroko-stool", None))).await;
        assert_eq!(answers.iter().filter(|(s, _)| *s == 201).count(), 3, "{answers:?}");
        for (status, body) in answers.iter().filter(|(s, _)| *s != 201) {
            assert_eq!(*status, 409);
            assert_eq!(body["error"]["code"], "out_of_stock");
        }
        let item = app.db.store().shop_item(&ItemId::new("iroko-stool")).unwrap().unwrap();
        assert_eq!(item.stock, Some(0));
        // Nobody paid for what they did not get.
        for (_, id) in &buyers {
            let balance = ledger_adds_up(&app, id);
            let owned = app.db.store().inventory(&UserId::new(id.as_str())).unwrap().len() as i64;
            assert_eq!(balance, 500 - 10 * owned);
        }
    })
    .await;
}

#[actix_web::test]
async fn a_purchase_retried_with_its_idempotency_key_is_applied_once_and_answers_the_same() {
    on_both(|app| async move {
        let (token, id) = app.guest("Tunde").await;
        let (status, first, headers) = app
            .purchase(
                &token,
                json!({"item": "ayo-board-iroko-oiled"}),
                Some("buy-1"),
            )
            .await;
        assert_eq!(status, 201, "{first}");
        assert!(headers.get("Idempotent-Replayed").is_none());
        assert_eq!(first["balance"], 380);
        assert_eq!(first["purchase"]["price"], 120);
        // The price changes meanwhile: the retry still answers what was paid.
        let admin = app.admin_token("ops");
        app.change_item(&admin, "ayo-board-iroko-oiled", json!({"price": 130}))
            .await;
        let (status, again, headers) = app
            .purchase(
                &token,
                json!({"item": "ayo-board-iroko-oiled"}),
                Some("buy-1"),
            )
            .await;
        assert_eq!(status, 201);
        assert_eq!(again, first);
        assert_eq!(headers.get("Idempotent-Replayed").unwrap(), "true");
        // Ten retries at once: still one purchase.
        let answers =
            join_all((0..10).map(|_| app.buy(&token, "adire-cushion", Some("buy-2")))).await;
        assert!(
            answers.iter().all(|(s, b)| *s == 201 && *b == answers[0].1),
            "{answers:?}"
        );
        assert_eq!(ledger_adds_up(&app, &id), 500 - 120 - 15);
        assert_eq!(
            app.db
                .store()
                .inventory(&UserId::new(id.as_str()))
                .unwrap()
                .len(),
            2
        );
        // The same key for another item is a mistake, said so; nothing is bought.
        let (status, body) = app.buy(&token, "rattan-chair", Some("buy-1")).await;
        assert_eq!(status, 409);
        assert_eq!(body["error"]["code"], "idempotency_key_reused");
        // Keys are the buyer's own: another user's same key is another purchase.
        let (other, _) = app.guest("Bisi").await;
        assert_eq!(
            app.buy(&other, "ayo-board-iroko-oiled", Some("buy-1"))
                .await
                .0,
            201
        );
        let (status, body) = app
            .buy(&token, "adire-cushion", Some(&"k".repeat(300)))
            .await;
        assert_eq!(status, 400);
        assert_eq!(body["error"]["field"], "Idempotency-Key");
        assert_eq!(ledger_adds_up(&app, &id), 500 - 120 - 15);
    })
    .await;
}

#[actix_web::test]
async fn retries_racing_for_the_one_thing_a_balance_buys_all_get_the_first_answer() {
    // 100 coins buy one 90-coin bookshelf: the retries must not be refused as too dear.
    on_both_with(&[("LOUNGE_SHOP__WELCOME_COINS", "100")], |app| async move {
        let (token, id) = app.guest("Tunde").await;
        let answers =
            join_all((0..10).map(|_| app.buy(&token, "obeche-bookshelf", Some("shelf")))).await;
        for (status, body) in &answers {
            assert_eq!(*status, 201, "{body}");
            assert_eq!(*body, answers[0].1);
        }
        assert_eq!(answers[0].1["purchase"]["item"]["name"], "Obeche bookshelf");
        assert_eq!(answers[0].1["purchase"]["item"]["stock"], Value::Null);
        assert_eq!(ledger_adds_up(&app, &id), 10);
        assert_eq!(
            app.db
                .store()
                .inventory(&UserId::new(id.as_str()))
                .unwrap()
                .len(),
            1
        );
    })
    .await;
}

#[actix_web::test]
async fn a_purchase_refused_changes_nothing_and_says_why() {
    on_both(|app| async move {
        let (token, id) = app.guest("Tunde").await;
        let admin = app.admin_token("ops");
        // 500 coins do not buy a 600-coin board.
        let (status, body) = app.buy(&token, "ayo-board-ebony-carved", None).await;
        assert_eq!(status, 409);
        assert_eq!(body["error"]["code"], "insufficient_coins");
        assert!(body["error"]["message"].as_str().unwrap().contains("600"));
        let (status, body) = app.buy(&token, "no-such-thing", None).await;
        assert_eq!(status, 404, "{body}");
        app.change_item(&admin, "rattan-chair", json!({"on_sale": false}))
            .await;
        let (status, body) = app.buy(&token, "rattan-chair", None).await;
        assert_eq!(status, 409);
        assert_eq!(body["error"]["code"], "not_on_sale");
        let (_, shop) = app.shop_items(&token).await;
        assert!(!shop["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == "rattan-chair"));
        app.change_item(&admin, "adire-cushion", json!({"stock": 0}))
            .await;
        let (status, body) = app.buy(&token, "adire-cushion", None).await;
        assert_eq!(status, 409);
        assert_eq!(body["error"]["code"], "out_of_stock");
        for (bad, field) in [
            (json!({"item": 7}), "item"),
            (json!({"item": "adire-cushion", "colour": "red"}), "colour"),
            (json!({}), "item"),
        ] {
            let (status, body, _) = app.purchase(&token, bad.clone(), None).await;
            assert_eq!(status, 400, "{bad}");
            assert_eq!(body["error"]["code"], "invalid_field", "{body}");
            assert_eq!(body["error"]["field"], field, "{body}");
        }
        assert_eq!(ledger_adds_up(&app, &id), 500);
        assert!(app
            .db
            .store()
            .inventory(&UserId::new(id.as_str()))
            .unwrap()
            .is_empty());
    })
    .await;
}

#[actix_web::test]
async fn the_apartment_door_lets_in_the_owner_and_guests_or_everyone_when_open() {
    on_both(|app| async move {
        let (owner_token, owner) = app.guest("Funmi").await;
        let (guest_token, guest) = app.guest("Gbenga").await;
        let (stranger_token, _) = app.guest("Halima").await;
        let home = format!("apartment-{owner}");
        let mut o = app.ws(&owner_token).await;
        let room = o.enter(&home).await;
        assert_eq!(room["room"]["kind"], "apartment");
        assert_eq!(room["room"]["owner"], owner.as_str());

        // A refused visitor stays where they were.
        let mut g = app.ws(&guest_token).await;
        assert_eq!(g.enter("surulere-games-lounge").await["type"], "room");
        let refused = g.enter(&home).await;
        assert_eq!(refused["code"], "door_closed", "{refused}");
        g.send(json!({"type": "chat", "text": "still here"})).await;
        assert_eq!(g.next_of("chat").await["room"], "surulere-games-lounge");

        let (status, apartment) = app.add_guest(&owner_token, &guest).await;
        assert_eq!(status, 200, "{apartment}");
        assert_eq!(apartment["guests"][0]["id"], guest.as_str());
        assert_eq!(g.enter(&home).await["type"], "room");
        assert_eq!(
            o.next_of("occupant_joined").await["user"]["id"],
            guest.as_str()
        );

        let mut s = app.ws(&stranger_token).await;
        assert_eq!(s.enter(&home).await["code"], "door_closed");
        let (status, _) = app.set_door(&owner_token, "open").await;
        assert_eq!(status, 200);
        assert_eq!(s.enter(&home).await["type"], "room");

        // Bad requests are named; a guest unknown is 404; the apartment is only the owner's to
        // change.
        let (status, body) = app.set_door(&owner_token, "ajar").await;
        assert_eq!(
            (status, body["error"]["field"].clone()),
            (400, json!("door"))
        );
        let (status, _) = app.add_guest(&owner_token, "nobody").await;
        assert_eq!(status, 404);
        let (status, _) = app.remove_guest(&owner_token, &guest).await;
        assert_eq!(status, 200);
        let (status, _) = app.remove_guest(&owner_token, &guest).await;
        assert_eq!(status, 404);
        // Nobody's apartment but a user's own is reachable over HTTP; another's id is no room.
        assert_eq!(s.enter("apartment-nobody").await["code"], "no_such_room");
    })
    .await;
}

#[actix_web::test]
async fn boards_are_placed_at_home_as_tables_and_taken_up_when_idle() {
    on_both_with(&[("LOUNGE_APARTMENT__MAX_BOARDS", "1")], |app| async move {
        let (token, owner) = app.guest("Funmi").await;
        let home = format!("apartment-{owner}");
        let mut o = app.ws(&token).await;
        assert_eq!(o.enter(&home).await["tables"], json!([]));
        let table = app.place_a_board(&token).await;
        let shown = o.next_of("table").await;
        assert_eq!(shown["id"], table.as_str());
        assert_eq!(shown["room"], home.as_str());
        let me = get_me(&app, &token).await;
        assert_eq!(me["apartment"]["tables"], json!([table]));
        let board = me["inventory"][0]["id"].as_str().unwrap().to_owned();
        assert_eq!(me["inventory"][0]["table"], table.as_str());

        // The same board twice, furniture, someone else's board, past the limit.
        let place = |body: Value| app.place_board(&token, body);
        let (status, body) = place(json!({"board": board})).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (409, json!("board_placed"))
        );
        let (_, chair) = app.buy(&token, "rattan-chair", None).await;
        let (status, body) = place(json!({"board": chair["purchase"]["owned"]})).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (409, json!("not_a_board"))
        );
        let (status, _) = place(json!({"board": "not-mine"})).await;
        assert_eq!(status, 404);
        let (_, second) = app.buy(&token, "ayo-board-iroko-oiled", None).await;
        let (status, body) = place(json!({"board": second["purchase"]["owned"]})).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (409, json!("too_many_boards"))
        );
        let (status, body) = place(json!({"board": board, "rules": "chess"})).await;
        assert_eq!(
            (status, body["error"]["field"].clone()),
            (400, json!("rules"))
        );

        // A game in play keeps the board down; idle, it comes up and back to the inventory.
        o.send(json!({"type": "play_house", "table": table, "level": "easy"}))
            .await;
        o.next_of("game_started").await;
        let (status, body) = app.take_up_board(&token, &table).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (409, json!("table_busy"))
        );
        o.send(json!({"type": "resign", "table": table})).await;
        o.next_of("game_over").await;
        let (status, _) = app.take_up_board(&token, &table).await;
        assert_eq!(status, 204);
        let removed = o.next_of("table_removed").await;
        assert_eq!(removed["table"], table.as_str());
        let me = get_me(&app, &token).await;
        assert_eq!(me["apartment"]["tables"], json!([]));
        assert!(me["inventory"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["table"].is_null()));
        // Placed again, it is a new table.
        let (status, again) = place(
            json!({"board": board, "rules": {"preset": "oware", "rule": {"no_capture_limit": 80}}}),
        )
        .await;
        assert_eq!(status, 201, "{again}");
        assert_ne!(again["table"]["id"], table.as_str());
        assert_eq!(again["table"]["rules"]["preset"], "oware");
        assert_eq!(again["table"]["rules"]["no_capture_limit"], 80);
    })
    .await;
}

#[actix_web::test]
async fn a_whole_game_at_a_home_board_between_the_owner_and_a_visitor() {
    // Two scripted players move faster than any person: past the usual rate limit.
    let fast = [
        ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "100000"),
        ("LOUNGE_SERVER__WS_BURST", "1000"),
    ];
    on_both_with(&fast, |app| async move {
        let (ot, owner) = app.guest("Funmi").await;
        let (vt, visitor) = app.guest("Gbenga").await;
        let table = app.place_a_board(&ot).await;
        app.set_door(&ot, "open").await;
        let home = format!("apartment-{owner}");
        let (mut o, mut v) = (app.ws(&ot).await, app.ws(&vt).await);
        o.enter(&home).await;
        v.enter(&home).await;
        o.send(json!({"type": "sit", "table": table, "seat": "south"}))
            .await;
        o.send(json!({"type": "invite", "table": table, "user": visitor}))
            .await;
        let invitation = v.next_of("invitation").await;
        assert_eq!(invitation["room"], home.as_str());
        v.send(json!({"type": "respond", "invitation": invitation["id"], "accept": true}))
            .await;
        let started = o.next_of("game_started").await;
        assert_eq!(started["house"], false);
        v.next_of("game_started").await;
        let side = |id: &str| {
            if started["players"]["south"]["id"] == id {
                "south"
            } else {
                "north"
            }
        };
        let (os, vs) = (side(&owner), side(&visitor));
        let state = started["state"].clone();
        let (a, b) = tokio::join!(
            play_out(&mut o, &table, os, state.clone()),
            play_out(&mut v, &table, vs, state)
        );
        assert_eq!(a["game_id"], b["game_id"]);
        let stored = app
            .db
            .store()
            .game(&GameId::new(a["game_id"].as_str().unwrap()))
            .unwrap()
            .unwrap();
        assert_eq!(stored.table_id.as_str(), table);
        assert!(!stored.house);
        assert_eq!(
            lounge::store::status_word(stored.status),
            a["result"].as_str().unwrap()
        );
    })
    .await;
}

#[actix_web::test]
async fn an_idle_apartment_closes_and_opens_again_at_the_next_visit() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
            ("LOUNGE_WORLD__APARTMENT_IDLE_SECS", "60"),
        ],
    )
    .await;
    let (token, owner) = app.guest("Funmi").await;
    let table = app.place_a_board(&token).await;
    let home = format!("apartment-{owner}");
    let admin = app.admin_token("ops");
    let open = |rooms: &Value| {
        rooms["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == home.as_str())
    };
    let mut ws = app.ws(&token).await;
    assert_eq!(ws.enter(&home).await["tables"][0]["id"], table.as_str());
    // Someone inside keeps it open, however long.
    app.clock.advance(120_000);
    let (_, rooms) = app.admin_rooms(&admin).await;
    assert!(open(&rooms));
    ws.enter("surulere-games-lounge").await;
    // Empty for its minute on the server's clock, it closes (the clock is moved on until the
    // room, which sees the goodbye in its own time, has been empty for a minute).
    let mut closed = false;
    for _ in 0..100 {
        app.clock.advance(60_000);
        let (_, rooms) = app.admin_rooms(&admin).await;
        if !open(&rooms) {
            closed = true;
            break;
        }
    }
    assert!(closed, "the empty apartment closed");
    // The next visit opens it again, board and all.
    let room = ws.enter(&home).await;
    assert_eq!(room["type"], "room", "{room}");
    assert_eq!(room["tables"][0]["id"], table.as_str());
}

/// What a visitor sees of an apartment: the boards placed (each with its table) before the
/// furniture, never a board still in its box; `GET /me` says whether a password is set, and
/// a room that is no apartment is not found.
#[actix_web::test]
async fn a_visitor_sees_what_stands_in_an_apartment() {
    on_both(|app| async move {
        let (token, owner) = app.guest("Funmi").await;
        let (visitor, _) = app.guest("Kunle").await;
        let home = format!("apartment-{owner}");
        let (_, me) = app.me(&token).await;
        assert_eq!(me["password"], false, "{me}");
        let (status, empty) = app.apartment(&visitor, &home).await;
        assert_eq!(
            (status, empty["things"].clone()),
            (200, json!([])),
            "{empty}"
        );
        app.buy(&token, "rattan-chair", None).await;
        app.buy(&token, "ayo-board-iroko-oiled", None).await;
        let table = app.place_a_board(&token).await;
        let (status, seen) = app.apartment(&visitor, &home).await;
        assert_eq!(status, 200, "{seen}");
        assert_eq!(seen["owner"]["name"], "Funmi");
        let things = seen["things"].as_array().unwrap();
        assert_eq!(things.len(), 2, "the boxed board is not shown: {seen}");
        assert_eq!(things[0]["table"], table.as_str());
        assert_eq!(things[0]["kind"], "ayo_board");
        assert_eq!(things[0]["wood"], "iroko");
        assert_eq!(things[1]["kind"], "furniture");
        assert_eq!(things[1]["table"], Value::Null);
        for room in ["surulere-games-lounge", "apartment-nobody"] {
            let (status, body) = app.apartment(&visitor, room).await;
            assert_eq!(
                (status, body["error"]["code"].clone()),
                (404, json!("not_found")),
                "{room}: {body}"
            );
        }
        let (status, _) = app
            .set_password(&token, json!({"password": "moonlight on the lagoon"}))
            .await;
        assert_eq!(status, 204);
        assert_eq!(app.me(&token).await.1["password"], true);
    })
    .await;
}

/// The wall's rule as configured, for the client and the display to say.
#[actix_web::test]
async fn the_walls_rule_is_read_as_configured() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_CHAMPIONS__MIN_MOVES", "7"),
            ("LOUNGE_CHAMPIONS__NEW_ACCOUNT_SECS", "3600"),
        ],
    )
    .await;
    let (status, rules) = app.champions_rules().await;
    assert_eq!(status, 200, "{rules}");
    assert_eq!(
        rules,
        json!({"per_opponent_cap": 3, "min_moves": 7, "new_account_secs": 3600, "new_account_games": 10})
    );
}
