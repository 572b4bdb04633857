//! `/api/v1/admin/...`: operators run the rooms, the tables, the shop and the coins. Every
//! change is written to the audit log in the same transaction as the change itself.

use crate::common::{ErrorCode, RoomKind};
use actix_web::{delete, get, patch, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Admin;
use super::error::{ApiError, ErrorBody};
use super::home::{change_tables, ItemList, TableBody};
use super::input::{display_name, double_option, slug, Body, RulesSpec};
use super::AppState;
use crate::store::{
    self, Actor, AuditEntry, CoinEntry, ItemChange, ItemKind, RoomRow, ShopItem, StoredRoom,
    TableRow,
};
use crate::world::{CloseGames, HotelError, RoomCommand, TableChange};

/// Tables a room may be made with at once.
const MAX_TABLES: u32 = 24;
/// The largest price, stock and coin change an operator may set at once.
const MAX_AMOUNT: i64 = 1_000_000;

#[derive(Serialize, ToSchema)]
pub struct RoomList {
    /// Every open room (apartments that are open now included), as `GET /api/v1/rooms` shows them.
    #[schema(value_type = Vec<Object>)]
    pub rooms: Vec<crate::world::RoomSummary>,
}

/// Every open room.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    responses((status = 200, body = RoomList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/admin/rooms")]
pub async fn rooms(_: Admin, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut rooms = Vec::new();
    for handle in state.world.rooms() {
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    Body(body): Body<NewRoom>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 48)?;
    let id = match &body.id {
        Some(id) => slug("id", id)?,
        None => slug("name", &slugify(&name))?,
    };
    if id.starts_with("apartment-") {
        return Err(ApiError::invalid(
            "id",
            "`apartment-` ids are the players' apartments",
        ));
    }
    let kind = match body.kind.as_deref().unwrap_or("lounge").parse() {
        Ok(kind @ (RoomKind::Lounge | RoomKind::Talk)) => kind,
        _ => return Err(ApiError::invalid("kind", "`lounge` or `talk`")),
    };
    let tables = match kind {
        RoomKind::Talk => body.tables.unwrap_or(0),
        _ => body.tables.unwrap_or(3),
    };
    if tables > MAX_TABLES || (kind == RoomKind::Talk && tables > 0) {
        return Err(ApiError::invalid(
            "tables",
            format!("0 to {MAX_TABLES}, and none in a talk room"),
        ));
    }
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let room = RoomRow {
        id: id.clone(),
        name,
        kind,
        owner_id: None,
        created_at: store::now(),
    };
    let tables: Vec<TableRow> = (1..=tables)
        .map(|n| TableRow {
            id: format!("{id}-{n}"),
            room_id: id.clone(),
            position: n as i32,
            rules,
        })
        .collect();
    let store = state.store.clone();
    let (stored_room, stored_tables) = (room.clone(), tables.clone());
    web::block(move || store.create_room(&claims.sub, &stored_room, &stored_tables))
        .await?
        .map_err(|e| match e {
            store::StoreError::Conflict(_) => ApiError::conflict(
                ErrorCode::RoomExists,
                format!("there is already a room `{id}`"),
            ),
            e => e.into(),
        })?;
    let handle = state.world.add_room(StoredRoom {
        room,
        tables,
        closing: false,
        door: None,
        guests: Vec::new(),
    });
    let room = handle.summary().await.ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Created().json(RoomBody { room }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoomChange {
    pub name: String,
}

/// Renames a room; everyone in it is told (`room_changed`).
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    Body(body): Body<RoomChange>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 48)?;
    let id = path.into_inner();
    let handle = live_room(&state, &id)?;
    let (store, new_name) = (state.store.clone(), name.clone());
    web::block(move || store.rename_room(&claims.sub, &id, &new_name)).await??;
    handle.send(RoomCommand::Rename { name }).await;
    let room = handle.summary().await.ok_or(HotelError::Gone)?;
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
    pub room: String,
    /// `closed`, or `closing` while games are played out.
    pub status: String,
    pub games_in_play: usize,
}

/// Closes a room: everyone in it is told (`room_closed`) and is moved out; games in play end
/// or are finished first, as `games` says.
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<CloseQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let games = match query.games.as_deref() {
        None => CloseGames::default(),
        Some(games) => serde_json::from_value(games.into())
            .map_err(|_| ApiError::invalid("games", "`end` or `finish`"))?,
    };
    let handle = live_room(&state, &id)?;
    if handle.info.kind == RoomKind::Apartment {
        return Err(ApiError::conflict(
            ErrorCode::Apartment,
            "an apartment is its owner's: it cannot be closed",
        ));
    }
    let (store, room) = (state.store.clone(), id.clone());
    web::block(move || store.close_room(&claims.sub, &room, games.as_str())).await??;
    let (reply, answer) = tokio::sync::oneshot::channel();
    if !handle.send(RoomCommand::Shut { games, reply }).await {
        return Err(HotelError::Gone.into());
    }
    let games_in_play = answer.await.map_err(|_| HotelError::Gone)?;
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    Body(body): Body<NewTable>,
) -> Result<HttpResponse, ApiError> {
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let room = path.into_inner();
    let handle = live_room(&state, &room)?;
    match handle.info.kind {
        RoomKind::Talk => {
            return Err(ApiError::conflict(
                ErrorCode::TalkRoom,
                "a talk room has no tables",
            ))
        }
        RoomKind::Apartment => {
            return Err(ApiError::conflict(
                ErrorCode::Apartment,
                "an apartment's tables are its owner's boards",
            ))
        }
        RoomKind::Lounge => {}
    }
    let change = TableChange::Add { rules, board: None };
    let table = change_tables(&state, &room, Actor::Operator(claims.sub), change)
        .await?
        .ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Created().json(TableBody { table }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    pub rules: RulesSpec,
}

/// Changes an idle table's rules.
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    Body(body): Body<TableRules>,
) -> Result<HttpResponse, ApiError> {
    let rules = body.rules.resolve("rules")?;
    let (room, table) = path.into_inner();
    live_room(&state, &room)?;
    let change = TableChange::Rules { table, rules };
    let table = change_tables(&state, &room, Actor::Operator(claims.sub), change)
        .await?
        .ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Ok().json(TableBody { table }))
}

/// Takes an idle table away (nobody seated, no game in play).
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
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (room, table) = path.into_inner();
    live_room(&state, &room)?;
    change_tables(
        &state,
        &room,
        Actor::Operator(claims.sub),
        TableChange::Remove { table },
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Every shop item, on sale or not.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    responses((status = 200, body = ItemList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/admin/shop/items")]
pub async fn shop_items(_: Admin, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let items = web::block(move || store.shop_items(true)).await??;
    Ok(HttpResponse::Ok().json(ItemList { items }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewItem {
    /// 2 to 64 of a-z, 0-9 and `-` (made from the name when absent).
    pub id: Option<String>,
    pub name: String,
    pub kind: ItemKind,
    pub wood: Option<String>,
    pub finish: Option<String>,
    /// Coins, 0 to 1,000,000.
    pub price: i64,
    /// How many there are; unlimited when absent.
    pub stock: Option<i32>,
    /// On sale at once (the default) or not yet.
    pub on_sale: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct ItemBody {
    pub item: ShopItem,
}

/// Puts a new item in the shop.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = NewItem,
    responses(
        (status = 201, body = ItemBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "an item with that id exists", body = ErrorBody),
    )
)]
#[post("/admin/shop/items")]
pub async fn create_item(
    Admin(claims): Admin,
    state: web::Data<AppState>,
    Body(body): Body<NewItem>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 60)?;
    let id = match &body.id {
        Some(id) => slug("id", id)?,
        None => slug("name", &slugify(&name))?,
    };
    let wood = body
        .wood
        .as_deref()
        .map(|w| display_name("wood", w, 30))
        .transpose()?;
    let finish = body
        .finish
        .as_deref()
        .map(|f| display_name("finish", f, 30))
        .transpose()?;
    let item = ShopItem {
        id: id.clone(),
        name,
        kind: body.kind,
        wood,
        finish,
        price: amount("price", body.price)?,
        stock: body.stock.map(|s| stock("stock", s)).transpose()?,
        on_sale: body.on_sale.unwrap_or(true),
        created_at: store::now(),
        updated_at: store::now(),
    };
    let (store, stored) = (state.store.clone(), item.clone());
    web::block(move || store.create_item(&claims.sub, &stored))
        .await?
        .map_err(|e| match e {
            store::StoreError::Conflict(_) => ApiError::conflict(
                ErrorCode::ItemExists,
                format!("there is already an item `{id}`"),
            ),
            e => e.into(),
        })?;
    Ok(HttpResponse::Created().json(ItemBody { item }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemPatch {
    pub name: Option<String>,
    pub price: Option<i64>,
    /// A number, or `null` for unlimited.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<i32>)]
    pub stock: Option<Option<i32>>,
    /// `false` takes the item off sale.
    pub on_sale: Option<bool>,
}

/// Changes an item: its name, price, stock, or whether it is on sale.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = ItemPatch,
    params(("item" = String, Path)),
    responses(
        (status = 200, body = ItemBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[patch("/admin/shop/items/{item}")]
pub async fn change_item(
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    Body(body): Body<ItemPatch>,
) -> Result<HttpResponse, ApiError> {
    let change = ItemChange {
        name: body
            .name
            .as_deref()
            .map(|n| display_name("name", n, 60))
            .transpose()?,
        price: body.price.map(|p| amount("price", p)).transpose()?,
        stock: body
            .stock
            .map(|s| s.map(|s| stock("stock", s)).transpose())
            .transpose()?,
        on_sale: body.on_sale,
    };
    if change.name.is_none()
        && change.price.is_none()
        && change.stock.is_none()
        && change.on_sale.is_none()
    {
        return Err(ApiError::BadRequest {
            code: ErrorCode::BadRequest,
            message: "nothing to change: give name, price, stock or on_sale".into(),
        });
    }
    let (store, id) = (state.store.clone(), path.into_inner());
    let item = web::block(move || store.change_item(&claims.sub, &id, &change)).await??;
    Ok(HttpResponse::Ok().json(ItemBody { item }))
}

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
pub struct CoinsBody {
    pub user: String,
    pub coins: i64,
    /// The ledger, newest first.
    pub ledger: Vec<CoinEntry>,
}

/// A user's balance and ledger.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("user" = String, Path), Page),
    responses(
        (status = 200, body = CoinsBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[get("/admin/users/{user}/coins")]
pub async fn coins(
    _: Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    page: web::Query<Page>,
) -> Result<HttpResponse, ApiError> {
    let limit = page.limit()?;
    let (store, user) = (state.store.clone(), path.into_inner());
    let body = web::block(move || -> Result<CoinsBody, ApiError> {
        let coins = store
            .coins(&user)?
            .ok_or_else(|| ApiError::NotFound(format!("there is no user `{user}`")))?;
        let ledger = store.ledger(&user, limit)?;
        Ok(CoinsBody {
            user,
            coins,
            ledger,
        })
    })
    .await??;
    Ok(HttpResponse::Ok().json(body))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CoinChange {
    /// Coins to grant (positive) or take (negative), up to 1,000,000 either way.
    pub amount: i64,
    /// Why, for the ledger and the audit log.
    pub reason: String,
}

#[derive(Serialize, ToSchema)]
pub struct EntryBody {
    pub entry: CoinEntry,
}

/// Grants or takes coins, with a reason. A balance never goes below zero.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = CoinChange,
    params(("user" = String, Path)),
    responses(
        (status = 201, body = EntryBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "insufficient_coins", body = ErrorBody),
    )
)]
#[post("/admin/users/{user}/coins")]
pub async fn adjust_coins(
    Admin(claims): Admin,
    state: web::Data<AppState>,
    path: web::Path<String>,
    Body(body): Body<CoinChange>,
) -> Result<HttpResponse, ApiError> {
    if body.amount == 0 || body.amount.unsigned_abs() > MAX_AMOUNT.unsigned_abs() {
        return Err(ApiError::invalid(
            "amount",
            "not 0, and at most 1,000,000 either way",
        ));
    }
    let reason = display_name("reason", &body.reason, 200)?;
    let (store, user) = (state.store.clone(), path.into_inner());
    let entry =
        web::block(move || store.adjust_coins(&claims.sub, &user, body.amount, &reason)).await??;
    Ok(HttpResponse::Created().json(EntryBody { entry }))
}

#[derive(Serialize, ToSchema)]
pub struct AuditBody {
    /// Newest first.
    pub entries: Vec<AuditEntry>,
}

/// The audit log of operator actions, newest first.
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

/// An open room, or 404.
fn live_room(state: &AppState, id: &str) -> Result<crate::world::RoomHandle, ApiError> {
    state
        .world
        .room(id)
        .ok_or_else(|| HotelError::NoSuchRoom(id.to_owned()).into())
}

fn amount(field: &str, n: i64) -> Result<i64, ApiError> {
    if (0..=MAX_AMOUNT).contains(&n) {
        Ok(n)
    } else {
        Err(ApiError::invalid(field, "0 to 1,000,000"))
    }
}

fn stock(field: &str, n: i32) -> Result<i32, ApiError> {
    amount(field, n.into()).map(|n| n as i32)
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
