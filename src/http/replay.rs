//! `/api/v1/games/{id}`: a finished game move by move, for a replay board. Public, like the
//! history and the records: the stored moves replayed under the game's rules, each with the
//! board after it and the clocks as they stood.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDateTime;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::ayo::clock::TimeControl;
use crate::ayo::{Game, Pit, Side, Status};
use crate::common::{ErrorCode, GameId, MatchId};
use crate::store::{blocking, GameEnd, ReviewStatus, StoredGame};
use crate::world::User;

/// Pits and stores as the protocol shows a board: `pits[0..6]` South's 1-6, `pits[6..12]`
/// North's 1-6, `stores` South's then North's.
#[derive(Serialize, ToSchema)]
struct Board {
    pits: [u8; 12],
    stores: [u8; 2],
}

/// One move and what it left.
#[derive(Serialize, ToSchema)]
struct Ply {
    #[schema(value_type = String)]
    side: Side,
    /// 1-6 along the mover's row.
    pit: u8,
    /// Seeds the move took (not counting the sweep at the end).
    captured: u8,
    board: Board,
    /// South's and North's milliseconds left after the move; `null` untimed.
    clocks_ms: Option<[u64; 2]>,
}

#[derive(Serialize, ToSchema)]
struct Players {
    #[schema(value_type = Object)]
    south: User,
    #[schema(value_type = Object)]
    north: User,
}

#[derive(Serialize, ToSchema)]
struct Replay {
    #[schema(value_type = String)]
    id: GameId,
    #[schema(value_type = Option<String>)]
    r#match: Option<MatchId>,
    /// Its number in its match, from 1.
    number: Option<i32>,
    /// The preset's name (`lagos`, `kontest`, `oware`, `ayoayo`).
    preset: &'static str,
    #[schema(value_type = Object)]
    rules: crate::ayo::Rules,
    /// Its match's time control; `null` for a game of no match.
    #[schema(value_type = Option<Object>)]
    clock: Option<TimeControl>,
    players: Players,
    #[schema(value_type = String)]
    first: Side,
    /// `south_won`, `north_won` or `draw`.
    #[schema(value_type = String)]
    result: Status,
    #[schema(value_type = String)]
    end_reason: GameEnd,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc")]
    started_at: NaiveDateTime,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc_opt")]
    ended_at: Option<NaiveDateTime>,
    start: Board,
    /// Both clocks before the first move; `null` untimed.
    start_clocks_ms: Option<[u64; 2]>,
    plies: Vec<Ply>,
    /// Baba Ayo's review, once asked for: `waiting`, `done` or `failed` (read it at
    /// `GET /games/{id}/review`); `null` before.
    #[schema(value_type = Option<String>)]
    review: Option<ReviewStatus>,
}

fn board(game: &Game) -> Board {
    Board {
        pits: game.position().pits(),
        stores: game.position().stores(),
    }
}

/// The game replayed from its stored moves. A stored move the rules refuse was never stored
/// by a room: an internal error, not the client's.
fn replay(stored: StoredGame, review: Option<ReviewStatus>) -> Result<Replay, ApiError> {
    let row = &stored.game;
    let end_reason = match (row.status, row.end_reason) {
        (Status::Playing, _) | (_, None) => {
            return Err(ApiError::conflict(
                ErrorCode::GameInPlay,
                "the game is still in play: it is replayed once it is over",
            ))
        }
        (_, Some(end)) => end,
    };
    let timed = stored.clock.filter(|c| *c != TimeControl::None);
    let mut game = Game::starting(row.rules, row.first_side);
    let start = board(&game);
    let mut plies = Vec::with_capacity(stored.moves.len());
    for (n, m) in stored.moves.iter().enumerate() {
        let bad =
            |why: String| ApiError::Internal(format!("stored move {} of {}: {why}", n + 1, row.id));
        let pit = Pit::new(m.pit).ok_or_else(|| bad(format!("pit {}", m.pit)))?;
        let played = game.play(pit).map_err(|e| bad(e.to_string()))?;
        plies.push(Ply {
            side: played.side,
            pit: m.pit,
            captured: played.captured,
            board: board(&game),
            clocks_ms: m.left.filter(|_| timed.is_some()),
        });
    }
    Ok(Replay {
        id: row.id.clone(),
        r#match: row.match_id.clone(),
        number: row.match_id.as_ref().and(row.number),
        preset: row.rules.preset.name(),
        rules: row.rules,
        clock: stored.clock,
        players: Players {
            south: stored.south.user(),
            north: stored.north.user(),
        },
        first: row.first_side,
        result: row.status,
        end_reason,
        started_at: row.started_at,
        ended_at: row.ended_at,
        start,
        start_clocks_ms: timed.and_then(|c| c.initial_ms()).map(|ms| [ms, ms]),
        plies,
        review,
    })
}

/// A finished game move by move, for a replay board.
///
/// Public. `{"id", "match", "number", "preset", "rules", "clock", "players": {"south",
/// "north"}, "first", "result", "end_reason", "started_at", "ended_at", "start": {"pits",
/// "stores"}, "start_clocks_ms", "plies": [{"side", "pit", "captured", "board": {"pits",
/// "stores"}, "clocks_ms"}], "review"}`. `start` is the board before the first move; each ply is a
/// move (`pit` 1-6 along the mover's row), the board after it, and South's and North's
/// milliseconds left after it (`null` when the game had no clock). A board is as the
/// protocol shows one: `pits[0..6]` South's, `pits[6..12]` North's, `stores` South's then
/// North's. `review` is Baba Ayo's review's status once one was asked for (`waiting`,
/// `done`, `failed`; read it at `GET /games/{id}/review`), `null` before. 404 `not_found` for no such game; 409 `game_in_play` while it is in play.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a game id")),
    responses(
        (status = 200, body = Replay),
        (status = 404, body = ErrorBody),
        (status = 409, description = "game_in_play", body = ErrorBody),
    )
)]
#[get("/games/{id}")]
pub async fn one_game(
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id) = (state.store.clone(), path.into_inner());
    let (stored, review) = blocking(move || {
        let review = store.review(&id)?.map(|r| r.status);
        Ok((store.stored_game(&id)?, review))
    })
    .await?;
    let stored = stored.ok_or_else(|| ApiError::NotFound("no such game".into()))?;
    Ok(HttpResponse::Ok().json(replay(stored, review)?))
}
