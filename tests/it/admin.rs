//! The admin API: tokens, the authorization matrix over every route of the OpenAPI document,
//! rooms, tables, shop items, coins and the audit log, on SQLite and PostgreSQL.

use serde_json::{json, Value};

use crate::helpers::{on_both, Page, TestApp, TestDb};

/// Every (method, path) the OpenAPI document lists, path parameters filled with `x`.
async fn documented_routes(app: &TestApp) -> Vec<(String, String)> {
    let (status, doc) = app.openapi().await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let filled: String = path
                .split('/')
                .map(|part| if part.starts_with('{') { "x" } else { part })
                .collect::<Vec<_>>()
                .join("/");
            routes.push((method.to_uppercase(), filled));
        }
    }
    routes
}

#[actix_web::test]
async fn every_documented_route_is_served_and_every_served_route_is_documented() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let routes = documented_routes(&app).await;
    for (method, path) in &routes {
        // The socket and the live stream do not end by themselves: checked on their own.
        if path == "/ws" || path.ends_with("/stream") {
            continue;
        }
        let (status, body) = app.call(method, path, None, None).await;
        let unrouted = status == 404 && body["error"]["message"] == "no such endpoint";
        assert!(!unrouted, "{method} {path} is documented but not served");
    }
    // The routes a client relies on are all there (the document comes from the same
    // registration as the routes, so what is served is what is listed).
    for expected in [
        ("POST", "/api/v1/auth/guest"),
        ("GET", "/api/v1/rooms"),
        ("GET", "/api/v1/shop/items"),
        ("POST", "/api/v1/shop/purchases"),
        ("GET", "/api/v1/me"),
        ("POST", "/api/v1/admin/rooms"),
        ("DELETE", "/api/v1/admin/rooms/x"),
        ("POST", "/api/v1/admin/rooms/x/tables"),
        ("PATCH", "/api/v1/admin/shop/items/x"),
        ("POST", "/api/v1/admin/users/x/coins"),
        ("GET", "/api/v1/admin/audit"),
        ("GET", "/ws"),
        ("GET", "/api/v1/champions/today"),
        ("GET", "/api/v1/champions/x"),
        ("GET", "/api/v1/champions/stream"),
        ("GET", "/api/v1/house-board/today"),
        ("GET", "/champions"),
        ("GET", "/api/v1/users/x/matches"),
        ("GET", "/api/v1/users/x/head-to-head/x"),
        ("GET", "/api/v1/matches/x"),
    ] {
        assert!(
            routes
                .iter()
                .any(|(m, p)| m == expected.0 && p == expected.1),
            "{expected:?} is not documented"
        );
    }
    // And what is not listed is not served.
    assert_eq!(
        app.call("GET", "/api/v1/admin/secrets", None, None).await.0,
        404
    );
}

#[actix_web::test]
async fn admin_routes_want_an_admin_token_401_without_403_with_a_player_one() {
    on_both(|app| async move {
        let (player, _) = app.guest("Tunde").await;
        let admin = app.admin_token("ops");
        let mut forged = admin.clone();
        forged.truncate(forged.len() - 2);
        let routes: Vec<_> = documented_routes(&app)
            .await
            .into_iter()
            .filter(|(_, p)| p.starts_with("/api/v1/admin"))
            .collect();
        assert!(routes.len() >= 13, "{routes:?}");
        for (method, path) in &routes {
            let body = (method != "GET" && method != "DELETE").then(|| json!({}));
            let (status, err) = app.call(method, path, None, body.clone()).await;
            assert_eq!(status, 401, "{method} {path} without a token: {err}");
            assert_eq!(err["error"]["code"], "unauthorized");
            let (status, _) = app.call(method, path, Some(&forged), body.clone()).await;
            assert_eq!(status, 401, "{method} {path} with a forged token");
            let (status, err) = app.call(method, path, Some(&player), body.clone()).await;
            assert_eq!(status, 403, "{method} {path} with a player token: {err}");
            assert_eq!(err["error"]["code"], "forbidden");
            let (status, _) = app.call(method, path, Some(&admin), body).await;
            assert!(
                ![401, 403].contains(&status),
                "{method} {path} with an admin token: {status}"
            );
        }
        // And an admin token is no player: the player routes and the lounge refuse it.
        assert_eq!(app.me(&admin).await.0, 403);
        assert_eq!(app.ws_status(None, Some(&admin)).await, 403);
    })
    .await;
}

#[actix_web::test]
async fn the_admin_token_command_prints_a_token_the_api_takes() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
        .args(["admin", "token", "--subject", "Ngozi", "--ttl", "1h"])
        .env("LOUNGE_AUTH__SECRET", crate::helpers::app::TEST_SECRET)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let token = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let (status, _) = app.admin_rooms(&token).await;
    assert_eq!(status, 200);
    app.create_item(
        &token,
        json!({"name": "Kente throw", "kind": "furniture", "price": 30}),
    )
    .await;
    let (_, audit) = app.audit(&token, Page::default()).await;
    assert_eq!(audit["entries"][0]["actor"], "Ngozi");
    for bad in [["--ttl", "forever"], ["--ttl", "90d"], ["--subject", ""]] {
        let mut args = vec!["admin", "token", "--subject", "Ngozi"];
        args.extend(bad);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
            .args(&args)
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?}");
    }
}

#[actix_web::test]
async fn operators_open_rename_and_change_rooms_and_everyone_inside_sees_it() {
    on_both(|app| async move {
        let ops = app.admin_token("ops");
        let (status, made) = app.create_room(&ops, json!({"name": "Yaba Ayo Club", "tables": 2, "rules": "oware"})).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["room"]["id"], "yaba-ayo-club");
        assert_eq!(made["room"]["tables"].as_array().unwrap().len(), 2);
        assert_eq!(made["room"]["tables"][0]["rules"]["preset"], "oware");
        let (_, rooms) = app.rooms().await;
        assert!(rooms["rooms"].as_array().unwrap().iter().any(|r| r["id"] == "yaba-ayo-club"));
        let (status, body) = app.create_room(&ops, json!({"name": "Yaba Ayo Club"})).await;
        assert_eq!((status, body["error"]["code"].clone()), (409, json!("room_exists")));
        for (bad, field) in [
            (json!({"name": ""}), "name"),
            (json!({"name": "Xylo", "id": "Bad Id!"}), "id"),
            (json!({"name": "Xylo", "id": "apartment-someone"}), "id"),
            (json!({"name": "Xylo", "colour": "red"}), "colour"),
            (json!({"tables": 2}), "name"),
            (json!({"name": "Xylo", "tables": 99}), "tables"),
            (json!({"name": "Xylo", "tables": "two"}), "tables"),
            (json!({"name": "Xylo", "kind": "pool"}), "kind"),
            (json!({"name": "Xylo", "rules": {"preset": "lagos", "rule": {"sowing": "sideways"}}}), "rules.rule.sowing"),
            (json!({"name": "Xylo", "rules": {"preset": "lagos", "rule": {"no_capture_limit": 0, "repetition": "ignored"}}}), "rules"),
        ] {
            let (status, body) = app.create_room(&ops, bad.clone()).await;
            assert_eq!(status, 400, "{bad}: {body}");
            assert_eq!(body["error"]["field"], field, "{bad}: {body}");
        }

        let (t1, _) = app.guest("Ade").await;
        let mut a = app.ws(&t1).await;
        a.enter("yaba-ayo-club").await;
        let (status, _) = app.rename_room(&ops, "yaba-ayo-club", json!({"name": "Yaba Club"})).await;
        assert_eq!(status, 200);
        assert_eq!(a.next_of("room_changed").await["room"]["name"], "Yaba Club");
        assert_eq!(app.rename_room(&ops, "nowhere", json!({"name": "N"})).await.0, 404);

        let (status, added) = app.add_table(&ops, "yaba-ayo-club", json!({})).await;
        assert_eq!(status, 201, "{added}");
        let new_table = added["table"]["id"].as_str().unwrap().to_owned();
        assert_eq!(a.next_of("table").await["id"], new_table.as_str());
        assert_eq!(app.add_table(&ops, "gist-lounge", json!({})).await.0, 409);

        // A table in use keeps its rules and its place; idle, it changes or goes.
        a.send(json!({"type": "sit", "table": "yaba-ayo-club-1", "seat": "south"})).await;
        a.next_of("table").await;
        let (room, busy) = ("yaba-ayo-club", "yaba-ayo-club-1");
        let (status, body) = app.remove_table(&ops, room, busy).await;
        assert_eq!((status, body["error"]["code"].clone()), (409, json!("table_busy")));
        a.send(json!({"type": "play_house", "table": "yaba-ayo-club-1", "level": "easy"})).await;
        a.next_of("game_started").await;
        let (status, body) = app.change_table(&ops, room, busy, json!({"rules": "lagos"})).await;
        assert_eq!((status, body["error"]["code"].clone()), (409, json!("table_busy")));
        let (status, body) = app.change_table(&ops, room, &new_table, json!({"rules": "kontest"})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["table"]["rules"]["preset"], "kontest");
        let (status, _) = app.remove_table(&ops, room, &new_table).await;
        assert_eq!(status, 204);
        assert_eq!(a.next_of("table_removed").await["table"], new_table.as_str());
        assert_eq!(app.remove_table(&ops, room, &new_table).await.0, 404);
        let (_, rooms) = app.rooms().await;
        let club = rooms["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "yaba-ayo-club").unwrap().clone();
        assert_eq!(club["name"], "Yaba Club");
        assert_eq!(club["tables"].as_array().unwrap().len(), 2);
    })
    .await;
}

#[actix_web::test]
async fn closing_a_room_ends_its_games_or_lets_them_finish_and_moves_everyone_out() {
    on_both(|app| async move {
        let ops = app.admin_token("ops");
        for id in ["ikeja-room", "lekki-room"] {
            let (status, _) = app
                .create_room(&ops, json!({"id": id, "name": id, "tables": 1}))
                .await;
            assert_eq!(status, 201);
        }
        let (ta, _) = app.guest("Ade").await;
        let (tb, _) = app.guest("Bisi").await;
        let (mut a, mut b) = (app.ws(&ta).await, app.ws(&tb).await);

        // `end`: the game in play ends drawn as abandoned, and everyone is out at once.
        a.enter("ikeja-room").await;
        b.enter("ikeja-room").await;
        a.send(json!({"type": "play_house", "table": "ikeja-room-1", "level": "easy"}))
            .await;
        b.next_of("game_started").await;
        let (status, closed) = app.close_room(&ops, "ikeja-room", Some("end")).await;
        assert_eq!(status, 200, "{closed}");
        assert_eq!(closed["status"], "closed");
        let over = b.next_of("game_over").await;
        assert_eq!(
            (over["result"].clone(), over["reason"].clone()),
            (json!("draw"), json!("abandoned"))
        );
        assert_eq!(b.next_of("room_closed").await["room"], "ikeja-room");
        a.next_of("room_closed").await;
        // Still connected, in no room: they walk on elsewhere.
        assert_eq!(b.enter("surulere-games-lounge").await["type"], "room");
        assert_eq!(a.enter("ikeja-room").await["code"], "no_such_room");
        let (_, rooms) = app.rooms().await;
        assert!(!rooms["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "ikeja-room"));
        assert_eq!(app.close_room(&ops, "ikeja-room", None).await.0, 404);

        // `finish`: the game is played out, no new one starts, then the room closes.
        a.enter("lekki-room").await;
        b.enter("lekki-room").await;
        a.send(json!({"type": "play_house", "table": "lekki-room-1", "level": "easy"}))
            .await;
        let started = a.next_of("game_started").await;
        let (status, closing) = app.close_room(&ops, "lekki-room", Some("finish")).await;
        assert_eq!(status, 200);
        assert_eq!(
            (closing["status"].clone(), closing["games_in_play"].clone()),
            (json!("closing"), json!(1))
        );
        b.next_of("room_closing").await;
        let (tc, _) = app.guest("Chidi").await;
        let mut c = app.ws(&tc).await;
        assert_eq!(c.enter("lekki-room").await["code"], "room_closing");
        // A player whose connection dropped comes back to finish the game.
        drop(a);
        b.next_of("occupant_left").await;
        let mut a = app.ws(&ta).await;
        assert_eq!(a.enter("lekki-room").await["type"], "room");
        a.send(json!({"type": "resign", "table": "lekki-room-1"}))
            .await;
        let over = b.next_of("game_over").await;
        assert_eq!(over["game_id"], started["game_id"]);
        assert_eq!(over["reason"], "resigned");
        b.next_of("room_closed").await;
        assert_eq!(app.close_room(&ops, "nowhere", None).await.0, 404);
        let (status, body) = app
            .close_room(&ops, "surulere-games-lounge", Some("later"))
            .await;
        assert_eq!(status, 400, "{body}");
    })
    .await;
}

#[actix_web::test]
async fn operators_run_the_shop_and_the_coins_and_every_action_is_audited() {
    on_both(|app| async move {
        let (player, user) = app.guest("Tunde").await;
        let ops = app.admin_token("ops");
        let (status, made) = app.create_item(&ops, json!({"name": "Walnut Ayo board, waxed", "kind": "ayo_board", "wood": "walnut", "finish": "waxed", "price": 300, "stock": 5})).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["item"]["id"], "walnut-ayo-board-waxed");
        assert_eq!(app.create_item(&ops, json!({"id": "walnut-ayo-board-waxed", "name": "Wood", "kind": "ayo_board", "price": 1})).await.0, 409);
        for (bad, field) in [
            (json!({"name": "Wood", "kind": "sofa", "price": 1}), "kind"),
            (json!({"name": "Wood", "kind": "furniture", "price": -1}), "price"),
            (json!({"name": "Wood", "kind": "furniture", "price": 1, "stock": -2}), "stock"),
            (json!({"name": "Wood", "kind": "furniture", "price": "free"}), "price"),
        ] {
            let (status, body) = app.create_item(&ops, bad.clone()).await;
            assert_eq!((status, body["error"]["field"].clone()), (400, json!(field)), "{bad}: {body}");
        }
        let item = "walnut-ayo-board-waxed";
        let (status, changed) = app.change_item(&ops, item, json!({"price": 280, "stock": null})).await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!((changed["item"]["price"].clone(), changed["item"]["stock"].clone()), (json!(280), Value::Null));
        assert_eq!(app.change_item(&ops, item, json!({})).await.0, 400);
        assert_eq!(app.change_item(&ops, "nothing", json!({"price": 1})).await.0, 404);
        app.change_item(&ops, item, json!({"on_sale": false})).await;
        let (_, all) = app.admin_shop_items(&ops).await;
        assert!(all["items"].as_array().unwrap().iter().any(|i| i["id"] == "walnut-ayo-board-waxed" && i["on_sale"] == false));
        let (_, shop) = app.shop_items(&player).await;
        assert!(!shop["items"].as_array().unwrap().iter().any(|i| i["id"] == "walnut-ayo-board-waxed"));

        let (status, granted) = app.adjust_coins(&ops, &user, json!({"amount": 250, "reason": "won the Sunday cup"})).await;
        assert_eq!(status, 201, "{granted}");
        assert_eq!(granted["entry"]["balance"], 750);
        let (status, body) = app.adjust_coins(&ops, &user, json!({"amount": -1000, "reason": "too much"})).await;
        assert_eq!((status, body["error"]["code"].clone()), (409, json!("insufficient_coins")));
        let (status, taken) = app.adjust_coins(&ops, &user, json!({"amount": -700, "reason": "refund reversed"})).await;
        assert_eq!(status, 201);
        assert_eq!(taken["entry"]["balance"], 50);
        for bad in [json!({"amount": 0, "reason": "x"}), json!({"amount": 5, "reason": ""})] {
            assert_eq!(app.adjust_coins(&ops, &user, bad).await.0, 400);
        }
        assert_eq!(app.adjust_coins(&ops, "nobody", json!({"amount": 5, "reason": "x"})).await.0, 404);
        let (status, ledger) = app.coins(&ops, &user, Page::limit("2")).await;
        assert_eq!(status, 200);
        assert_eq!(ledger["coins"], 50);
        let reasons: Vec<_> = ledger["ledger"].as_array().unwrap().iter().map(|e| e["reason"].clone()).collect();
        assert_eq!(reasons, vec![json!("take"), json!("grant")]);
        assert_eq!(ledger["ledger"][0]["actor"], "ops");
        for bad in ["0", "many"] {
            let (status, body) = app.coins(&ops, &user, Page::limit(bad)).await;
            assert_eq!((status, body["error"]["field"].clone()), (400, json!("limit")));
        }
        assert_eq!(app.me(&player).await.1["coins"], 50);

        let (status, audit) = app.audit(&ops, Page::limit("10")).await;
        assert_eq!(status, 200);
        let actions: Vec<String> = audit["entries"].as_array().unwrap().iter().map(|e| {
            assert_eq!(e["actor"], "ops");
            e["action"].as_str().unwrap().to_owned()
        }).collect();
        assert_eq!(actions, ["coins.take", "coins.grant", "shop_item.change", "shop_item.change", "shop_item.create"]);
        let entries = audit["entries"].as_array().unwrap();
        assert_eq!(entries[0]["target"], user.as_str());
        let details: Value = serde_json::from_str(entries[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["amount"], -700);
        // Refused actions leave no entry; paging goes back in time.
        let (_, older) = app.audit(&ops, Page::limit("2").before(entries[1]["id"].as_str().unwrap())).await;
        let older: Vec<_> = older["entries"].as_array().unwrap().iter().map(|e| e["action"].clone()).collect();
        assert_eq!(older, vec![json!("shop_item.change"), json!("shop_item.change")]);
    })
    .await;
}

#[actix_web::test]
async fn the_openapi_command_prints_the_served_document_and_every_route_is_described() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (status, served) = app.openapi().await;
    assert_eq!(status, 200);
    // No settings are needed to read it: no secret, no database.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
        .arg("openapi")
        .env_remove("LOUNGE_AUTH__SECRET")
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let printed = crate::helpers::printed_json(out);
    assert_eq!(printed, served);
    // The document is where a route's contract is read (docs/protocol.md points to it), so
    // each operation says what it does and what it answers, not only its shapes.
    for (path, item) in served["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let summary = op["summary"].as_str().unwrap_or_default();
            let description = op["description"].as_str().unwrap_or_default();
            assert!(!summary.is_empty(), "{method} {path} has no summary");
            assert!(
                !description.is_empty(),
                "{method} {path} has no description (what it takes and answers): {summary:?}"
            );
        }
    }
}
