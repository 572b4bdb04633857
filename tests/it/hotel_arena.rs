//! An arena tournament whose director dies: three real instances (`helpers/hotel.rs`), the
//! lounge's owner (its tournament's director: the room's lease is the director's) killed
//! with the first round in play. The lounge is owned again elsewhere, the games go on there
//! from the ply their players saw and count, and the new director pairs the next round
//! (never the same opponents again in a row) on real time.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::hotel::Hotel;
use crate::helpers::{TestApp, Ws};
use crate::hotel::back_in;

const LOUNGE: &str = "surulere-games-lounge";

const SETTINGS: [(&str, &str); 2] = [
    ("LOUNGE_WORLD__HEARTBEAT_MS", "100"),
    ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
];

/// A game paired: its table, its players' names (South, North), the side to move first.
#[derive(Debug, Clone)]
struct Paired {
    table: String,
    players: [String; 2],
    first: usize,
}

/// Reads `ws` until a game starts that `name` plays in.
async fn paired(ws: &mut Ws, name: &str) -> Paired {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next_of("game_started"))
            .await
            .expect("paired within 30 s");
        let players =
            ["south", "north"].map(|s| m["players"][s]["name"].as_str().unwrap().to_owned());
        if players.contains(&name.to_owned()) {
            return Paired {
                table: m["table"].as_str().unwrap().to_owned(),
                players,
                first: usize::from(m["state"]["to_move"] == "north"),
            };
        }
    }
}

/// The next message of `kind` about `table`.
async fn at(ws: &mut Ws, kind: &str, table: &str) -> Value {
    loop {
        let m = ws.next_of(kind).await;
        if m["table"] == table {
            return m;
        }
    }
}

async fn standings(app: &TestApp, id: &str) -> HashMap<String, i64> {
    let (status, body) = app
        .call("GET", &format!("/api/v1/tournaments/{id}"), None, None)
        .await;
    assert_eq!(status, 200, "{body}");
    body["tournament"]["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["user"]["name"].as_str().unwrap().to_owned(),
                s["score"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn an_arena_whose_directors_instance_is_killed_goes_on_under_the_next_owner() {
    let mut hotel = Hotel::start(3, &SETTINGS);
    let (i0, i1, i2) = (hotel.app(0), hotel.app(1), hotel.app(2));
    // An onlooker on i0 opens the lounge there: i0 directs.
    let (to, _) = i0.guest("Ola").await;
    let (_onlooker, _) = back_in(&i0, &to).await;
    assert_eq!(hotel.owner_of(LOUNGE).await, Some(0));
    let now = chrono::Utc::now();
    let admin = i0.admin_token("ops");
    let (status, body) = i0
        .call(
            "POST",
            "/api/v1/admin/tournaments",
            Some(&admin),
            Some(json!({"name": "Night arena", "room": LOUNGE,
                "starts_at": (now - chrono::Duration::seconds(1)).to_rfc3339(),
                "ends_at": (now + chrono::Duration::hours(1)).to_rfc3339(),
                "clock": "10+0", "rated": false})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["tournament"]["id"].as_str().unwrap().to_owned();

    // Four players, on i1 and i2, join and come in.
    let names = ["Ade", "Bisi", "Chidi", "Dayo"];
    let apps = [&i1, &i2, &i1, &i2];
    let mut players = Vec::new();
    for (app, name) in apps.iter().zip(names) {
        let (token, _) = app.guest(name).await;
        let (status, body) = app
            .call(
                "PUT",
                &format!("/api/v1/me/tournaments/{id}"),
                Some(&token),
                None,
            )
            .await;
        assert_eq!(status, 204, "{body}");
        let (ws, _) = back_in(app, &token).await;
        players.push((token, ws));
    }
    // The first round: two games, each with its first move played and acknowledged.
    let mut round = HashMap::new();
    for (p, name) in names.iter().enumerate() {
        let game = paired(&mut players[p].1, name).await;
        round.insert(game.table.clone(), game);
    }
    assert_eq!(round.len(), 2, "{round:?}");
    for game in round.values() {
        let first = names
            .iter()
            .position(|n| *n == game.players[game.first])
            .unwrap();
        let ws = &mut players[first].1;
        ws.send(json!({"type": "move", "table": game.table, "pit": 1}))
            .await;
        at(ws, "game_state", &game.table).await;
    }

    hotel.signal(0, "KILL");
    // Everyone comes back on their instance; the lounge is owned again by one of them, each
    // game at the ply its players saw.
    let mut back = Vec::new();
    for (p, (token, _)) in players.iter().enumerate() {
        back.push(back_in(apps[p], token).await);
    }
    assert!(matches!(hotel.owner_of(LOUNGE).await, Some(1 | 2)));
    for game in round.values() {
        let table = back[0].1["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == game.table.as_str())
            .unwrap();
        assert_eq!(table["game"]["state"]["ply"], 1, "{table}");
    }
    // The losers (later in the alphabet) resign; the games count.
    for game in round.values() {
        let loser = if game.players[0] < game.players[1] {
            1
        } else {
            0
        };
        let p = names
            .iter()
            .position(|n| *n == game.players[loser])
            .unwrap();
        let ws = &mut back[p].0;
        ws.send(json!({"type": "resign", "table": game.table, "scope": "match"}))
            .await;
        at(ws, "match_over", &game.table).await;
    }
    // The new director pairs the next round: nobody meets the same opponent again.
    let last: HashMap<&str, &str> = round
        .values()
        .flat_map(|g| {
            [
                (g.players[0].as_str(), g.players[1].as_str()),
                (g.players[1].as_str(), g.players[0].as_str()),
            ]
        })
        .collect();
    for (p, name) in names.iter().enumerate() {
        let game = paired(&mut back[p].0, name).await;
        let opponent = game.players.iter().find(|n| n.as_str() != *name).unwrap();
        assert_ne!(
            last[name],
            opponent.as_str(),
            "{name} met {opponent} twice in a row"
        );
    }
    // The first round's results scored: 2 for each winner, 0 for each loser.
    let mut shown = HashMap::new();
    for _ in 0..200 {
        shown = standings(&i1, &id).await;
        if shown.values().sum::<i64>() == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let winners: Vec<String> = round
        .values()
        .map(|g| g.players.iter().min().unwrap().clone())
        .collect();
    for name in names {
        let expected = if winners.contains(&name.to_owned()) {
            2
        } else {
            0
        };
        assert_eq!(shown.get(name), Some(&expected), "{name}: {shown:?}");
    }
}
