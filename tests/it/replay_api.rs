//! `GET /api/v1/games/{id}`: a finished game move by move, as a replay board reads it. Its
//! plies are the moves the record holds, each board what the pure game gives, the last the
//! board the game ended on; a clocked game's plies carry both clocks.

use lounge::ayo::record::read;
use lounge::ayo::{Game, Pit, Preset, Side};
use serde_json::{json, Value};

use crate::helpers::{house_game, on_both, play_out, TestApp, Ws};

const TABLE: &str = "surulere-games-lounge-1";

async fn replay_of(app: &TestApp, game: &str) -> (u16, Value) {
    app.call("GET", &format!("/api/v1/games/{game}"), None, None)
        .await
}

/// `side` as the protocol spells it.
fn side(s: &Value) -> Side {
    match s.as_str() {
        Some("south") => Side::South,
        Some("north") => Side::North,
        other => panic!("a side, not {other:?}"),
    }
}

#[actix_web::test]
async fn a_finished_game_is_served_ply_by_ply_as_the_record_and_the_rules_give_it() {
    on_both(|app: TestApp| async move {
        let (mut ws, mine, started, _token) = house_game(&app, "easy").await;
        let id = started["game_id"].as_str().unwrap().to_owned();
        let (status, body) = replay_of(&app, &id).await;
        assert_eq!(status, 409, "{body}");
        assert_eq!(body["error"]["code"], "game_in_play");

        let over = play_out(&mut ws, TABLE, mine, started["state"].clone()).await;
        let (status, body) = replay_of(&app, &id).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["id"], id.as_str());
        assert_eq!(body["number"], 1);
        assert_eq!(body["match"], started["match"]["id"]);
        assert_eq!(body["preset"], "lagos");
        assert_eq!(body["rules"]["preset"], "lagos");
        assert_eq!(body["players"], started["players"]);
        assert_eq!(body["result"], over["result"]);
        assert_eq!(body["end_reason"], over["reason"]);
        assert_eq!(body["first"], "south");
        assert_eq!(
            body["start"]["pits"],
            serde_json::to_value([4u8; 12]).unwrap()
        );
        assert_eq!(body["start"]["stores"], json!([0, 0]));
        assert!(body["start_clocks_ms"].is_null(), "no clock: {body}");
        assert!(body["review"].is_null(), "no review asked for: {body}");

        // The moves are the record's, each board the pure game's after it.
        let (_, _, text) = app.game_record(&id).await;
        let record = read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let plies = body["plies"].as_array().unwrap();
        assert_eq!(plies.len(), record.moves.len());
        assert_eq!(plies.len() as u64, over["state"]["ply"].as_u64().unwrap());
        let mut game = Game::new(Preset::Lagos.rules());
        for (ply, recorded) in plies.iter().zip(&record.moves) {
            assert_eq!(ply["pit"], recorded.pit.number(), "{ply}");
            assert_eq!(Some(side(&ply["side"])), game.to_move(), "{ply}");
            game.play(Pit::new(recorded.pit.number()).unwrap()).unwrap();
            assert_eq!(ply["board"]["pits"], json!(game.position().pits()), "{ply}");
            assert_eq!(ply["board"]["stores"], json!(game.position().stores()));
            assert!(ply["clocks_ms"].is_null());
        }
        let last = &plies.last().expect("a game played out has moves")["board"];
        assert_eq!(last["pits"], over["state"]["pits"]);
        assert_eq!(last["stores"], over["state"]["stores"]);

        let (status, body) = replay_of(&app, "no-such-game").await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(body["error"]["code"], "not_found");
    })
    .await;
}

/// Waits for Tunde's turn at the table; the state then.
async fn my_turn(ws: &mut Ws, mine: &str, mut state: Value) -> Value {
    while state["to_move"] != mine {
        let m = ws.next_of("game_state").await;
        state = m["state"].clone();
    }
    state
}

#[actix_web::test]
async fn a_clocked_game_shows_both_clocks_after_every_move() {
    on_both(|app: TestApp| async move {
        let (token, me) = app.guest("Tunde").await;
        let mut ws = app.ws(&token).await;
        ws.send(json!({"type": "enter", "room": "surulere-games-lounge"}))
            .await;
        ws.next_of("room").await;
        ws.send(json!({"type": "play_house", "table": TABLE, "level": "easy", "clock": "3+2"}))
            .await;
        let started = ws.next_of("game_started").await;
        let id = started["game_id"].as_str().unwrap().to_owned();
        let mine = if started["players"]["south"]["id"] == me.as_str() {
            "south"
        } else {
            "north"
        };
        let state = my_turn(&mut ws, mine, started["state"].clone()).await;
        ws.send(json!({"type": "move", "table": TABLE, "pit": state["legal"][0]}))
            .await;
        let moved = ws.next_of("game_state").await;
        my_turn(&mut ws, mine, moved["state"].clone()).await;
        ws.send(json!({"type": "resign", "table": TABLE})).await;
        ws.next_of("game_over").await;

        let (status, body) = replay_of(&app, &id).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["clock"]["kind"], "game");
        assert_eq!(body["end_reason"], "resigned");
        assert_eq!(body["start_clocks_ms"], json!([180_000, 180_000]));
        let plies = body["plies"].as_array().unwrap();
        assert!(plies.len() >= 2, "{body}");
        for ply in plies {
            let clocks = ply["clocks_ms"].as_array().expect("both clocks");
            assert_eq!(clocks.len(), 2);
            // Three minutes and the increments of at most a few moves.
            for left in clocks {
                assert!(left.as_u64().unwrap() <= 190_000, "{ply}");
            }
        }
    })
    .await;
}
