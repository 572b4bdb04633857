//! Match history: a player's matches with their games, one match, and two players' record
//! against each other. Public, like the rooms and the wall.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::ayo::clock::TimeControl;
use crate::common::{MatchId, TableId, UserId};
use crate::store::{GameRecord, MatchRecord, Tally, UserRow};
use crate::world::User;

/// A match as the history shows it.
#[derive(Serialize, ToSchema)]
pub struct MatchBody {
    #[schema(value_type = String)]
    id: MatchId,
    #[schema(value_type = String)]
    table: TableId,
    best_of: i32,
    #[schema(value_type = Object)]
    clock: TimeControl,
    #[schema(value_type = Object)]
    rules: crate::ayo::Rules,
    /// Baba Ayo played in it.
    house: bool,
    /// The match's first player (South in its first game) and second.
    #[schema(value_type = Vec<Object>)]
    players: [User; 2],
    /// `playing`, `won` or `draw`.
    #[schema(value_type = String)]
    status: crate::store::MatchStatus,
    #[schema(value_type = Option<Object>)]
    winner: Option<User>,
    /// `games`, `resigned`, `agreed_draw`, `no_start`, `abandoned` or `called_off`.
    #[schema(value_type = Option<String>)]
    end_reason: Option<crate::store::MatchEnd>,
    /// The first and second player's points: a win 1, a draw 0.5.
    points: [f32; 2],
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc")]
    started_at: NaiveDateTime,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "crate::store::utc_opt")]
    ended_at: Option<NaiveDateTime>,
    games: Vec<GameRecord>,
}

impl From<MatchRecord> for MatchBody {
    fn from(r: MatchRecord) -> MatchBody {
        let players = [r.first.user(), r.second.user()];
        let winner = r
            .row
            .winner_id
            .as_ref()
            .and_then(|w| players.iter().find(|p| p.id == *w).cloned());
        MatchBody {
            id: r.row.id,
            table: r.row.table_id,
            best_of: r.row.best_of,
            clock: r.row.clock,
            rules: r.row.rules,
            house: r.row.house,
            players,
            status: r.row.status,
            winner,
            end_reason: r.row.end_reason,
            points: [r.row.first_halves, r.row.second_halves].map(|h| h as f32 / 2.0),
            started_at: r.row.started_at,
            ended_at: r.row.ended_at,
            games: r.games,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct History {
    #[schema(value_type = Object)]
    user: User,
    /// Newest first.
    matches: Vec<MatchBody>,
    /// Pass as `before` for the page after this one; `null` on the last page.
    #[schema(value_type = Option<String>)]
    next: Option<MatchId>,
}

#[derive(Deserialize, IntoParams)]
pub struct Page {
    /// Matches, 1 to 100 (20 when absent).
    #[param(value_type = Option<u32>)]
    pub(super) limit: Option<String>,
    /// Only matches older than this match id.
    pub(super) before: Option<String>,
}

pub(super) async fn known_user(state: &AppState, id: &UserId) -> Result<UserRow, ApiError> {
    let (store, id) = (state.store.clone(), id.clone());
    let found = web::block(move || store.user(&id)).await??;
    found.ok_or_else(|| ApiError::NotFound("no such user".into()))
}

/// A player's matches, newest first, each with its games (and the outages they lived
/// through), paged with `before`.
///
/// `{"user", "matches": [match], "next"}`, newest first; `next` is the `before` of the next
/// page, `null` on the last. `limit` 1 to 100.
///
/// A stored match: `{"id", "table", "best_of", "clock", "rules", "house", "players": [first,
/// second], "status": "playing" | "won" | "draw", "winner", "end_reason", "points",
/// "started_at", "ended_at", "games": [{"id", "number", "south_id", "north_id", "status",
/// "end_reason", "plies", "started_at", "ended_at", "outages": [{"stopped_ms",
/// "resumed_ms"}]}]}`. `outages` are the service outages a game lived through.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a user id"), Page),
    responses((status = 200, body = History), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody))
)]
#[get("/users/{id}/matches")]
pub async fn matches_of(
    state: web::Data<AppState>,
    path: web::Path<UserId>,
    query: web::Query<Page>,
) -> Result<HttpResponse, ApiError> {
    let limit = super::input::limit(query.limit.as_deref(), 20)? as i64;
    let row = known_user(&state, &path).await?;
    let before = query.before.clone().map(MatchId::from);
    let (store, id) = (state.store.clone(), row.id.clone());
    // One more than asked says whether there is a next page.
    let mut records =
        web::block(move || store.matches_of(&id, limit + 1, before.as_ref())).await??;
    let more = records.len() as i64 > limit;
    records.truncate(limit as usize);
    let next = more
        .then(|| records.last().map(|r| r.row.id.clone()))
        .flatten();
    Ok(HttpResponse::Ok().json(History {
        user: row.user(),
        matches: records.into_iter().map(MatchBody::from).collect(),
        next,
    }))
}

/// One match with its games.
///
/// A stored match: `{"id", "table", "best_of", "clock", "rules", "house", "players": [first,
/// second], "status": "playing" | "won" | "draw", "winner", "end_reason", "points",
/// "started_at", "ended_at", "games": [{"id", "number", "south_id", "north_id", "status",
/// "end_reason", "plies", "started_at", "ended_at", "outages": [{"stopped_ms",
/// "resumed_ms"}]}]}`. `outages` are the service outages a game lived through.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "a match id")),
    responses((status = 200, body = MatchBody), (status = 404, body = ErrorBody))
)]
#[get("/matches/{id}")]
pub async fn one_match(
    state: web::Data<AppState>,
    path: web::Path<MatchId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id) = (state.store.clone(), path.into_inner());
    let record = web::block(move || store.match_record(&id)).await??;
    let record = record.ok_or_else(|| ApiError::NotFound("no such match".into()))?;
    Ok(HttpResponse::Ok().json(MatchBody::from(record)))
}

#[derive(Serialize, ToSchema)]
struct HeadToHead {
    /// The two, in the order asked.
    #[schema(value_type = Vec<Object>)]
    users: [User; 2],
    /// Over matches that are over: `won` is the first user's wins, then the second's.
    matches: Tally,
    /// Over games that are over, in matches or not.
    games: Tally,
}

/// Two players' record against each other, over matches and over games.
///
/// `{"users": [a, b], "matches": {"played", "won": [a's, b's], "drawn"}, "games": {...}}`, over
/// what is over.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "a user id"),
        ("other" = String, Path, description = "another user id"),
    ),
    responses((status = 200, body = HeadToHead), (status = 404, body = ErrorBody))
)]
#[get("/users/{id}/head-to-head/{other}")]
pub async fn head_to_head(
    state: web::Data<AppState>,
    path: web::Path<(UserId, UserId)>,
) -> Result<HttpResponse, ApiError> {
    let (a, b) = path.into_inner();
    let (a, b) = (known_user(&state, &a).await?, known_user(&state, &b).await?);
    let (store, ids) = (state.store.clone(), (a.id.clone(), b.id.clone()));
    let (matches, games) = web::block(move || store.head_to_head(&ids.0, &ids.1)).await??;
    Ok(HttpResponse::Ok().json(HeadToHead {
        users: [a.user(), b.user()],
        matches,
        games,
    }))
}
