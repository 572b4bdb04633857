//! Arena tournaments: an operator schedules one in a room (`POST /admin/tournaments`,
//! audited); guests list them, read one with its standings, and join or leave
//! (`PUT`/`DELETE /me/tournaments/{id}`). The room runs it (`world/room/arena.rs`).

use actix_web::{delete, get, post, put, web, HttpResponse};
use chrono::{DateTime, NaiveDateTime, TimeZone};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Admin, Player};
use super::error::{ApiError, ErrorBody};
use super::input::{Body, RulesSpec};
use super::AppState;
use crate::common::{ErrorCode, RoomId, RoomKind, TableId, TournamentId, UserId};
use crate::store::{self, JoinRefused, TournamentRow};
use crate::world::{choose, TableChange, TournamentView};

/// The longest tournament.
const MAX_HOURS: i64 = 24;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    pub name: String,
    #[schema(value_type = String)]
    pub room: RoomId,
    /// In the hotel's time zone (`2026-12-11T20:00`), or with an offset (RFC 3339).
    pub starts_at: String,
    pub ends_at: String,
    /// The rules its tables play (set on them now); the service's default when absent.
    pub rules: Option<RulesSpec>,
    /// Required: `90s`, `5m`, `3+2`... as `set_match` takes it.
    pub clock: String,
    /// The tables it uses; all of the room's when absent.
    #[schema(value_type = Option<Vec<String>>)]
    pub tables: Option<Vec<TableId>>,
    /// Only these may join; everyone when absent.
    #[schema(value_type = Option<Vec<String>>)]
    pub invited: Option<Vec<UserId>>,
    /// Its games between people change ratings (default true).
    pub rated: Option<bool>,
    /// Its players may go berserk: half their clock for one point more on a win (default
    /// false; a clock for the whole game, `3+2`, only).
    pub berserk: Option<bool>,
}

#[derive(Serialize, ToSchema)]
struct TournamentBody {
    tournament: TournamentView,
}

#[derive(Serialize, ToSchema)]
struct TournamentList {
    tournaments: Vec<TournamentView>,
}

/// A time as an operator writes it: with an offset, or in the hotel's zone.
fn hotel_time(field: &str, raw: &str, tz: chrono_tz::Tz) -> Result<NaiveDateTime, ApiError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(t.naive_utc());
    }
    let local = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S"))
        .map_err(|_| {
            ApiError::invalid(
                field,
                "a time as 2026-12-11T20:00 (the hotel's time zone) or RFC 3339",
            )
        })?;
    tz.from_local_datetime(&local)
        .earliest()
        .map(|t| t.naive_utc())
        .ok_or_else(|| {
            ApiError::invalid(field, "that time does not exist in the hotel's time zone")
        })
}

/// Schedules an arena tournament in a room.
///
/// Needs an admin token; written to the audit log (`tournament.create`). Body: `{"name",
/// "room", "starts_at", "ends_at", "clock", "rules"?, "tables"?, "invited"?, "rated"?, "berserk"?}`: times
/// in the hotel's time zone (`2026-12-11T20:00`) or RFC 3339, the end after the start and
/// both within a day, the end in the future; a clock is required. Its tables (all the room's
/// when not given) are set to its rules now (409 `table_busy` while one is in use). 201
/// `{"tournament"}`; 404 no such room or table; 400 `invalid_field`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = NewTournament,
    responses(
        (status = 201, body = TournamentBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "table_busy, room_closing", body = ErrorBody),
    )
)]
#[post("/admin/tournaments")]
pub async fn schedule(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    Body(body): Body<NewTournament>,
) -> Result<HttpResponse, ApiError> {
    let name = super::input::display_name("name", &body.name, 80)?;
    let tz = state.champions.clock.tz;
    let starts_at = hotel_time("starts_at", &body.starts_at, tz)?;
    let ends_at = hotel_time("ends_at", &body.ends_at, tz)?;
    if ends_at <= starts_at || ends_at - starts_at > chrono::Duration::hours(MAX_HOURS) {
        return Err(ApiError::invalid(
            "ends_at",
            format!("after the start, and at most {MAX_HOURS} hours after it"),
        ));
    }
    if ends_at <= state.store.now() {
        return Err(ApiError::invalid(
            "ends_at",
            "a tournament ends in the future",
        ));
    }
    let choice = choose(Some(&body.clock), Some(1), None)
        .map_err(|r| ApiError::invalid("clock", r.message))?;
    let berserk = body.berserk.unwrap_or(false);
    if berserk && choice.clock.and_then(|c| c.berserk_ms()).is_none() {
        return Err(ApiError::invalid(
            "berserk",
            "berserk halves a clock for the whole game (`3+2`), not a time per move",
        ));
    }
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let (store, room) = (state.store.clone(), body.room.clone());
    let stored = store::blocking(move || store.open_room(&room))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no room `{}`", body.room)))?;
    if stored.room.kind == RoomKind::Apartment {
        return Err(ApiError::invalid(
            "room",
            "tournaments are held in the hotel's rooms, not at home",
        ));
    }
    let tables: Vec<TableId> = match &body.tables {
        Some(tables) if tables.is_empty() => {
            return Err(ApiError::invalid("tables", "at least one table"));
        }
        Some(tables) => tables.clone(),
        None => stored.tables.iter().map(|t| t.id.clone()).collect(),
    };
    for id in &tables {
        let Some(table) = stored.tables.iter().find(|t| &t.id == id) else {
            return Err(ApiError::NotFound(format!(
                "no table `{id}` in `{}`",
                body.room
            )));
        };
        if table.rules != rules {
            let change = TableChange::Rules {
                table: id.clone(),
                rules,
            };
            state
                .world
                .operator_changes_tables(&operator, &body.room, change)
                .await?;
        }
    }
    let row = TournamentRow {
        id: TournamentId::ordered(),
        name,
        room_id: body.room.clone(),
        starts_at,
        ends_at,
        rules,
        clock: body.clock.clone(),
        tables: serde_json::to_string(&tables).map_err(|e| ApiError::Internal(e.to_string()))?,
        invited_only: body.invited.is_some(),
        rated: body.rated.unwrap_or(true),
        created_by: operator.to_string(),
        created_at: state.store.now(),
        finished_at: None,
        winner_id: None,
        berserk,
    };
    let mut invited = body.invited.clone().unwrap_or_default();
    invited.sort();
    invited.dedup();
    let (store, kept) = (state.store.clone(), row.clone());
    store::blocking(move || store.create_tournament(&operator, &kept, &invited)).await?;
    state.world.schedule_changed(&row.room_id).await;
    let tournament = tournament_view(&state, row).await?;
    Ok(HttpResponse::Created().json(TournamentBody { tournament }))
}

/// The tournaments not finished, the soonest first.
///
/// No token needed. `{"tournaments": [tournament]}`: each with its `status` (`upcoming`,
/// `running`, `ending`), its players and its best ten.
#[utoipa::path(tag = "tournaments", responses((status = 200, body = TournamentList)))]
#[get("/tournaments")]
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let rows = store::blocking(move || store.open_tournaments(None)).await?;
    let mut tournaments = Vec::with_capacity(rows.len());
    for row in rows {
        tournaments.push(tournament_view(&state, row).await?);
    }
    Ok(HttpResponse::Ok().json(TournamentList { tournaments }))
}

/// One tournament, finished or not, with its standings and, once finished, its winner.
///
/// No token needed. `{"tournament"}`; 404 when there is none by that id. The standings are
/// the tournament's sorted set (Redis, or this process), filled from the database when lost.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path)),
    responses((status = 200, body = TournamentBody), (status = 404, body = ErrorBody))
)]
#[get("/tournaments/{id}")]
pub async fn one(
    state: web::Data<AppState>,
    path: web::Path<TournamentId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id) = (state.store.clone(), path.into_inner());
    let row = store::blocking(move || store.tournament(&id))
        .await?
        .ok_or_else(|| ApiError::NotFound("no such tournament".into()))?;
    let tournament = tournament_view(&state, row).await?;
    Ok(HttpResponse::Ok().json(TournamentBody { tournament }))
}

/// A tournament as shown: its players from the database, its order from the standings.
async fn tournament_view(state: &AppState, row: TournamentRow) -> Result<TournamentView, ApiError> {
    let (store, id) = (state.store.clone(), row.id.clone());
    let players = store::blocking(move || store.tournament_players(&id)).await?;
    let standings = state.tournaments.standings();
    let shown = match standings.read(&row.id).await {
        Ok(Some(shown)) => Some(shown),
        Ok(None) => {
            let scores: Vec<(UserId, i32)> = players
                .iter()
                .map(|(p, _)| (p.user_id.clone(), p.score))
                .collect();
            if let Err(e) = standings.fill(&row.id, &scores).await {
                tracing::warn!(tournament = %row.id, error = %e, "standings not filled: the database's order");
            }
            None
        }
        Err(e) => {
            tracing::warn!(tournament = %row.id, error = %e, "standings unread: the database's order");
            None
        }
    };
    let now = u64::try_from(state.store.now().and_utc().timestamp_millis()).unwrap_or(0);
    let status = match (row.finished_at, ms(row.starts_at), ms(row.ends_at)) {
        (Some(_), _, _) => "finished",
        (None, start, _) if now < start => "upcoming",
        (None, _, end) if now < end => "running",
        _ => "ending",
    };
    let winner = row.winner_id.as_ref().and_then(|w| {
        players
            .iter()
            .find(|(p, _)| &p.user_id == w)
            .map(|(_, u)| u.user())
    });
    let mut view = crate::world::tournament_view(&row, status, &players, winner);
    if let Some(shown) = shown {
        // The sorted set's order (ties by id), each with the database's row; those with no
        // game scored yet (not in the set) after them, as the database has them.
        let ranked = shown
            .iter()
            .filter_map(|s| players.iter().find(|(p, _)| p.user_id == s.user));
        let unscored = players
            .iter()
            .filter(|(p, _)| !shown.iter().any(|s| s.user == p.user_id));
        view.standings = ranked
            .chain(unscored)
            .take(10)
            .map(|(p, u)| crate::world::tournament_standing(p, u))
            .collect();
    }
    Ok(view)
}

fn ms(t: NaiveDateTime) -> u64 {
    u64::try_from(t.and_utc().timestamp_millis()).unwrap_or(0)
}

#[derive(Serialize, ToSchema)]
struct Joined {
    #[schema(value_type = Vec<String>)]
    joined: Vec<TournamentId>,
}

/// The tournaments not finished that the guest is in (joined and not left), the soonest
/// first.
///
/// Needs a player token. `{"joined": [id]}`.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    responses((status = 200, body = Joined), (status = 401, body = ErrorBody))
)]
#[get("/me/tournaments")]
pub async fn mine(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let joined = store::blocking(move || store.tournaments_of(&claims.id)).await?;
    Ok(HttpResponse::Ok().json(Joined { joined }))
}

/// Joins a tournament (again, after leaving: with the score one had), before or while it
/// runs.
///
/// Needs a player token. 204. 404 no such tournament; 409 `tournament_over`, or
/// `not_invited` for one open to a list that does not name the guest. While it runs the room
/// pairs the guest when they are in it and seated nowhere.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 204, description = "in it"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "tournament_over, not_invited", body = ErrorBody),
    )
)]
#[put("/me/tournaments/{id}")]
pub async fn join(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<TournamentId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id, me) = (state.store.clone(), path.into_inner(), claims.id);
    let now = state.store.now();
    let joined = store::blocking(move || {
        let room = store.tournament(&id)?.map(|t| t.room_id);
        Ok::<_, store::StoreError>((room, store.join_tournament(&id, &me, now)?))
    })
    .await?;
    match joined {
        (Some(room), Ok(())) => {
            // Its room pairs the newcomer now, not at its next read.
            state.world.schedule_changed(&room).await;
            Ok(HttpResponse::NoContent().finish())
        }
        (None, _) | (_, Err(JoinRefused::NoSuchTournament)) => {
            Err(ApiError::NotFound("no such tournament".into()))
        }
        (_, Err(JoinRefused::Over)) => Err(ApiError::conflict(
            ErrorCode::TournamentOver,
            "this tournament is over",
        )),
        (_, Err(JoinRefused::NotInvited)) => Err(ApiError::conflict(
            ErrorCode::NotInvited,
            "this tournament is for those invited to it",
        )),
    }
}

/// Leaves a tournament: paired no more, the score kept (joining again goes on from it).
///
/// Needs a player token. 204, whether or not the guest was in it; 404 no such tournament.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 204, description = "out of it"),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/me/tournaments/{id}")]
pub async fn leave(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<TournamentId>,
) -> Result<HttpResponse, ApiError> {
    let (store, id, me) = (state.store.clone(), path.into_inner(), claims.id);
    let now = state.store.now();
    let room = store::blocking(move || {
        let t = store
            .tournament(&id)?
            .ok_or_else(|| store::StoreError::NotFound("tournament".into()))?;
        store.leave_tournament(&id, &me, now)?;
        Ok::<_, store::StoreError>(t.room_id)
    })
    .await?;
    state.world.schedule_changed(&room).await;
    Ok(HttpResponse::NoContent().finish())
}
