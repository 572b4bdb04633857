//! `/api/v1/admin/...`: operators run the rooms, the tables, the shop and the coins (in
//! [`shop`]). Every change is written to the audit log in the same transaction as the change
//! itself. What the hotel allows is decided in `world`; these handlers read, authorize, ask
//! and answer.

mod bans;
mod moderation;
mod shop;

use actix_web::{delete, get, patch, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub use bans::*;
pub use moderation::*;
pub use shop::*;

use super::auth::Admin;
use super::error::{ApiError, ErrorBody};
use super::home::TableBody;
use super::input::{display_name, slug, Body, RulesSpec};
use super::AppState;
use crate::common::{RoomId, TableId};
use crate::store::AuditEntry;
use crate::world::{CloseGames, HotelError, RoomOrder, TableChange};

/// Tables a room may be made with at once.
/// The largest price, stock and coin change an operator may set at once.

#[derive(Serialize, ToSchema)]
pub struct RoomList {
    /// Every open room (apartments that are open now included), as `GET /api/v1/rooms` shows them.
    #[schema(value_type = Vec<Object>)]
    pub rooms: Vec<crate::world::RoomSummary>,
}

/// Every open room.
///
/// Needs an admin token. `{"rooms": [...]}`: every open room, open apartments included, as `GET
/// /rooms` shows them.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    responses((status = 200, body = RoomList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/admin/rooms")]
pub async fn rooms(_: Admin, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut rooms = Vec::new();
    for handle in state.world.public_rooms().await {
        // A room that closed meanwhile is simply not listed.
        if let Some(summary) = handle.summary().await {
            rooms.push(summary);
        }
    }
    Ok(HttpResponse::Ok().json(RoomList { rooms }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRoom {
    /// The room's id: 2 to 64 of a-z, 0-9 and `-` (made from the name when absent).
    pub id: Option<String>,
    pub name: String,
    /// `lounge` (with Ayo tables, the default) or `talk` (no tables).
    pub kind: Option<String>,
    /// Tables to start with, 0 to 24 (3 for a lounge when absent).
    pub tables: Option<u32>,
    /// The rules of those tables; the service's default when absent.
    pub rules: Option<RulesSpec>,
}

#[derive(Serialize, ToSchema)]
pub struct RoomBody {
    #[schema(value_type = Object)]
    pub room: crate::world::RoomSummary,
}

/// Opens a new room with its tables.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"name", "id"?, "kind"?: "lounge" | "talk", "tables"?: 0-24,
/// "rules"?}`. 201 `{"room"}`. The id (2 to 64 of `a-z 0-9 -`) is made from the name when
/// absent; `apartment-` ids are refused. A lounge gets 3 tables by default, a talk room none.
/// 409 `room_exists`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = NewRoom,
    responses(
        (status = 201, body = RoomBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "a room with that id exists", body = ErrorBody),
    )
)]
#[post("/admin/rooms")]
pub async fn create_room(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    Body(body): Body<NewRoom>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 48)?;
    let id = match &body.id {
        Some(id) => slug("id", id)?,
        None => slug("name", &slugify(&name))?,
    };
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let order = RoomOrder {
        id,
        name,
        kind: body.kind,
        tables: body.tables,
        rules,
    };
    let room = state.world.create_room(&operator, order).await?;
    Ok(HttpResponse::Created().json(RoomBody { room }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoomChange {
    pub name: String,
}

/// Renames a room; everyone in it is told (`room_changed`).
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"name"}`. 200 `{"room"}`; everyone inside gets `room_changed`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = RoomChange,
    params(("room" = String, Path)),
    responses(
        (status = 200, body = RoomBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[patch("/admin/rooms/{room}")]
pub async fn rename_room(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<RoomId>,
    Body(body): Body<RoomChange>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 48)?;
    let id = path.into_inner();
    let room = state.world.rename_room(&operator, &id, name).await?;
    Ok(HttpResponse::Ok().json(RoomBody { room }))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct CloseQuery {
    /// `end` (games in play end at once, drawn as `abandoned`) or `finish` (they are played
    /// out first). `end` when absent.
    #[param(value_type = Option<CloseGames>)]
    pub games: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ClosedBody {
    #[schema(value_type = String)]
    pub room: RoomId,
    /// `closed`, or `closing` while games are played out.
    pub status: String,
    pub games_in_play: usize,
}

/// Closes a room: everyone in it is told (`room_closed`) and is moved out; games in play end
/// or are finished first, as `games` says.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. 200 `{"room", "status": "closed" | "closing", "games_in_play"}`. `end`
/// (the default): games in play end at once, drawn as `abandoned`, and the room closes
/// (`room_closed`). `finish`: `room_closing`, the games are played out, then it closes.
/// Apartments: 409.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("room" = String, Path), CloseQuery),
    responses(
        (status = 200, body = ClosedBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "apartments are their owners'", body = ErrorBody),
    )
)]
#[delete("/admin/rooms/{room}")]
pub async fn close_room(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<RoomId>,
    query: web::Query<CloseQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let games = match query.games.as_deref() {
        None => CloseGames::default(),
        Some(games) => serde_json::from_value(games.into())
            .map_err(|_| ApiError::invalid("games", "`end` or `finish`"))?,
    };
    let games_in_play = state.world.close_room(&operator, &id, games).await?;
    Ok(HttpResponse::Ok().json(ClosedBody {
        room: id,
        status: if games_in_play == 0 {
            "closed"
        } else {
            "closing"
        }
        .into(),
        games_in_play,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTable {
    /// The rules; the service's default when absent.
    pub rules: Option<RulesSpec>,
}

/// Adds a table at the end of a room; everyone in it gets its `table` message.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"rules"?}`. 201 `{"table"}`, at the end of the room; the room
/// gets its `table` message. 409 `talk_room`, `room_closing`; apartments: 409.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = NewTable,
    params(("room" = String, Path)),
    responses(
        (status = 201, body = TableBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "room_closing", body = ErrorBody),
    )
)]
#[post("/admin/rooms/{room}/tables")]
pub async fn add_table(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<RoomId>,
    Body(body): Body<NewTable>,
) -> Result<HttpResponse, ApiError> {
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let room = path.into_inner();
    let change = TableChange::Add { rules, board: None };
    let table = state
        .world
        .operator_changes_tables(&operator, &room, change)
        .await?
        .ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Created().json(TableBody { table }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    pub rules: Option<RulesSpec>,
    /// The table's queue on or off.
    pub queue: Option<bool>,
}

/// Changes a table's rules (while idle) or turns its queue on or off.
///
/// Needs an admin token; each change is written to the audit log in the same transaction,
/// under the token's subject. Body: `{"rules"?, "queue"?}`, at least one. 200 `{"table"}`;
/// the rules only while no match is in play there (409 `table_busy`), the queue at any time
/// (off: everyone in it is told `queue_left`). 409 `room_closing`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = TableRules,
    params(("room" = String, Path), ("table" = String, Path)),
    responses(
        (status = 200, body = TableBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "table_busy, room_closing", body = ErrorBody),
    )
)]
#[patch("/admin/rooms/{room}/tables/{table}")]
pub async fn change_table(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<(RoomId, TableId)>,
    Body(body): Body<TableRules>,
) -> Result<HttpResponse, ApiError> {
    let rules = body
        .rules
        .as_ref()
        .map(|r| r.resolve("rules"))
        .transpose()?;
    if rules.is_none() && body.queue.is_none() {
        return Err(ApiError::invalid("rules", "send `rules`, `queue` or both"));
    }
    let (room, table) = path.into_inner();
    let mut changes = Vec::new();
    if let Some(rules) = rules {
        changes.push(TableChange::Rules {
            table: table.clone(),
            rules,
        });
    }
    if let Some(on) = body.queue {
        changes.push(TableChange::Queue {
            table: table.clone(),
            on,
        });
    }
    let mut shown = None;
    for change in changes {
        shown = state
            .world
            .operator_changes_tables(&operator, &room, change)
            .await?;
    }
    let table = shown.ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Ok().json(TableBody { table }))
}

/// Takes an idle table away (nobody seated, no game in play).
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. 204 while idle (nobody seated, no game); `table_removed` to the room.
/// 409 `table_busy`, `room_closing`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("room" = String, Path), ("table" = String, Path)),
    responses(
        (status = 204, description = "removed"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "table_busy, room_closing", body = ErrorBody),
    )
)]
#[delete("/admin/rooms/{room}/tables/{table}")]
pub async fn remove_table(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<(RoomId, TableId)>,
) -> Result<HttpResponse, ApiError> {
    let (room, table) = path.into_inner();
    let change = TableChange::Remove { table };
    state
        .world
        .operator_changes_tables(&operator, &room, change)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Every shop item, on sale or not.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// Entries to list, 1 to 500 (50 when absent).
    #[param(value_type = Option<i64>)]
    pub limit: Option<String>,
    /// List entries older than this entry id.
    pub before: Option<String>,
}

impl Page {
    fn limit(&self) -> Result<i64, ApiError> {
        match self.limit.as_deref().map(str::parse::<i64>) {
            None => Ok(50),
            Some(Ok(n)) if (1..=500).contains(&n) => Ok(n),
            Some(_) => Err(ApiError::invalid("limit", "a number from 1 to 500")),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AuditBody {
    /// Newest first.
    pub entries: Vec<AuditEntry>,
}

/// The audit log of operator actions, newest first.
///
/// Needs an admin token. `{"entries": [{"id", "actor", "action", "target", "details" (JSON
/// text), "created_at"}]}`, newest first; `before` pages back; `limit` 1 to 500. Actions:
/// `room.create`, `room.rename`, `room.close`, `table.add`, `table.remove`, `table.rules`,
/// `shop_item.create`, `shop_item.change`, `coins.grant`, `coins.take`; `user.ban`,
/// `user.unban`, `room.slow_mode`, `user.mute`, `user.unmute`, `room.put_out`, `chat.remove`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(Page),
    responses(
        (status = 200, body = AuditBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
    )
)]
#[get("/admin/audit")]
pub async fn audit(
    _: Admin,
    state: web::Data<AppState>,
    page: web::Query<Page>,
) -> Result<HttpResponse, ApiError> {
    let limit = page.limit()?;
    let (store, before) = (state.store.clone(), page.before.clone());
    let entries = web::block(move || store.audit_log(limit, before.as_deref())).await??;
    Ok(HttpResponse::Ok().json(AuditBody { entries }))
}

/// `Mahogany board, polished` → `mahogany-board-polished`.
fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').chars().take(64).collect()
}
