//! Game records (docs/records.md): one game's, and a player's games as one file. Public, like
//! the match history.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};

use super::error::{ApiError, ErrorBody};
use super::history::{known_user, Page};
use super::AppState;
use crate::ayo::record::{filename, slug, write};
use crate::common::{ErrorCode, GameId, MatchId, UserId};
use crate::world::records::{record, RecordRefusal};

/// Records are text: `.ayo` files.
const TEXT: &str = "text/plain; charset=utf-8";

fn refused(e: RecordRefusal) -> ApiError {
    match e {
        RecordRefusal::InPlay => ApiError::conflict(ErrorCode::GameInPlay, e.to_string()),
        RecordRefusal::BadMove(_) => ApiError::Internal(e.to_string()),
    }
}

fn attachment(name: &str) -> (header::HeaderName, String) {
    (
        header::CONTENT_DISPOSITION,
        format!("attachment; filename=\"{name}\""),
    )
}

/// One game's record, as a file to keep.
///
/// The game in the record format of docs/records.md (`text/plain; charset=utf-8`): its tags
/// (the rules and every switch that differs from the preset, the clock, the players with
/// their ids, the date and time it began in the hotel's time zone, its match and number, who
/// moved first, the result and how it ended, the stores), then its moves numbered by turn,
/// each with the time left on the mover's clock when the game was timed, and the result.
/// `Content-Disposition: attachment` names it
/// `lagos-hotel-<date>-<south>-vs-<north>[-game-<n>].ayo` (ASCII).
///
/// 404 `not_found` for no such game; 409 `game_in_play` for a game not over yet (its record
/// is written once it is over).
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a game id")),
    responses(
        (status = 200, description = "the record", content_type = "text/plain", body = String),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
    )
)]
#[get("/games/{id}/record")]
pub async fn game_record(
    state: web::Data<AppState>,
    path: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id) = (state.store.clone(), path.into_inner());
    let (stored, before) = web::block(move || {
        let stored = store.stored_game(&id)?;
        Ok::<_, crate::store::StoreError>((stored, store.ratings_before(&[&id])?))
    })
    .await??;
    let stored = stored.ok_or_else(|| ApiError::NotFound("no such game".into()))?;
    let ratings = ratings_of(&stored, &before);
    let record = record(&stored, state.champions.clock.tz, ratings).map_err(refused)?;
    Ok(HttpResponse::Ok()
        .content_type(TEXT)
        .insert_header(attachment(&filename(&record)))
        .body(write(&record)))
}

/// A player's games that are over, as one file of records, newest first, paged as the match
/// history is.
///
/// The records of docs/records.md one after another, a blank line between
/// (`text/plain; charset=utf-8`, `Content-Disposition: attachment; filename=
/// "lagos-hotel-games-of-<name>.ayo"`): the games over of `limit` of the player's matches
/// (1 to 100, 20 when absent), newest first (by match, then by game number), older than the
/// match `before`. A game still in play is left out. When there are more, a
/// `Link: <...?limit=N&before=M>; rel="next"` header gives the next page (`before` is a match
/// id, as in `GET /users/{id}/matches`). No games: an empty body.
///
/// 404 `not_found` for no such user; 400 `invalid_field` for a bad `limit`.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a user id"), Page),
    responses(
        (status = 200, description = "the records", content_type = "text/plain", body = String),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[get("/users/{id}/games/record")]
pub async fn games_record(
    state: web::Data<AppState>,
    path: web::Path<UserId>,
    query: web::Query<Page>,
) -> Result<HttpResponse, ApiError> {
    let limit = super::input::limit(query.limit.as_deref(), 20)? as i64;
    let row = known_user(&state, &path).await?;
    let before = query.before.clone().map(MatchId::from);
    let (store, id) = (state.store.clone(), row.id.clone());
    let (games, next, ratings) = web::block(move || {
        let (games, next) = store.games_of(&id, limit, before.as_ref())?;
        let ids: Vec<&GameId> = games.iter().map(|g| &g.game.id).collect();
        let ratings = store.ratings_before(&ids)?;
        Ok::<_, crate::store::StoreError>((games, next, ratings))
    })
    .await??;
    let tz = state.champions.clock.tz;
    let mut body = String::new();
    for stored in &games {
        let record = record(stored, tz, ratings_of(stored, &ratings)).map_err(refused)?;
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&write(&record));
    }
    let mut answer = HttpResponse::Ok();
    answer.content_type(TEXT).insert_header(attachment(&format!(
        "lagos-hotel-games-of-{}.ayo",
        slug(&row.name)
    )));
    if let Some(next) = next {
        answer.insert_header((
            header::LINK,
            format!(
                "</api/v1/users/{}/games/record?limit={limit}&before={next}>; rel=\"next\"",
                row.id
            ),
        ));
    }
    Ok(answer.body(body))
}

/// South's and North's ratings as the game found them, where it was rated.
fn ratings_of(
    stored: &crate::store::StoredGame,
    before: &std::collections::HashMap<(GameId, UserId), f64>,
) -> [Option<u32>; 2] {
    let game = &stored.game;
    [&game.south_id, &game.north_id].map(|user| {
        before
            .get(&(game.id.clone(), user.clone()))
            .map(|r| r.round().max(0.0) as u32)
    })
}
