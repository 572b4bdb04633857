//! The player's side of the shop and of home: the shop's items, purchases, `GET /me`, and
//! the apartment's door, guests and boards.

use actix_web::{delete, get, patch, post, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::input::{Body, RulesSpec};
use super::AppState;
use crate::common::{ItemId, RoomId, TableId, UserId};
use crate::store::{self, Actor, RoomRow, ShopItem};
use crate::world::apartment::{self, Apartment};
use crate::world::{Door, HotelError, TableChange, User};

#[derive(Serialize, ToSchema)]
pub struct ItemList {
    pub items: Vec<ShopItem>,
}

/// The furniture shop: the items on sale.
///
/// Needs a player token. `{"items": [{"id", "name", "kind": "ayo_board" | "furniture", "wood",
/// "finish", "price", "stock": N | null (unlimited), "on_sale"}]}`: what is on sale.
#[utoipa::path(
    tag = "shop",
    security(("bearer" = [])),
    responses(
        (status = 200, body = ItemList),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
    )
)]
#[get("/shop/items")]
pub async fn shop_items(_: Player, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let items = web::block(move || store.shop_items(false)).await??;
    Ok(HttpResponse::Ok().json(ItemList { items }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PurchaseRequest {
    /// The id of the shop item to buy.
    #[schema(value_type = String)]
    pub item: ItemId,
}

/// A purchase as answered (the same again for a retry with the same `Idempotency-Key`).
#[derive(Serialize, ToSchema)]
pub struct PurchaseBody {
    pub purchase: PurchaseView,
    /// The balance right after this purchase.
    pub balance: i64,
}

#[derive(Serialize, ToSchema)]
pub struct PurchaseView {
    pub id: String,
    /// The item as sold, its price the price paid.
    pub item: store::SoldItem,
    pub price: i64,
    /// The id of the thing now owned (an Ayo board is placed at home by this id).
    pub owned: String,
    pub created_at: String,
}

/// Buys one of an item. With an `Idempotency-Key` header a retry is applied once and answers
/// the same (with `Idempotent-Replayed: true`).
///
/// Needs a player token. Body: `{"item"}`; header `Idempotency-Key`?. 201 `{"purchase": {"id",
/// "item", "price", "owned", "created_at"}, "balance"}`. `owned` is the id of the thing now
/// owned. With `Idempotency-Key: K` (1 to 255 visible ASCII; each user's keys are their own) a
/// retry is applied once and answers the same body with `Idempotent-Replayed: true`; the same
/// key for another item: 409 `idempotency_key_reused`. 404: no such item. 409:
/// `insufficient_coins`, `out_of_stock`, `not_on_sale`; a refusal changes nothing.
#[utoipa::path(
    tag = "shop",
    security(("bearer" = [])),
    request_body = PurchaseRequest,
    params(("Idempotency-Key" = Option<String>, Header, description = "makes a retry safe: 1 to 255 visible ASCII characters")),
    responses(
        (status = 201, body = PurchaseBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "no such item", body = ErrorBody),
        (status = 409, description = "insufficient_coins, out_of_stock, not_on_sale, idempotency_key_reused", body = ErrorBody),
    )
)]
#[post("/shop/purchases")]
pub async fn purchase(
    Player(claims): Player,
    req: HttpRequest,
    state: web::Data<AppState>,
    Body(body): Body<PurchaseRequest>,
) -> Result<HttpResponse, ApiError> {
    let key = match req.headers().get("Idempotency-Key") {
        None => None,
        Some(value) => {
            let key = value
                .to_str()
                .ok()
                .map(str::trim)
                .filter(|k| (1..=255).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()))
                .ok_or_else(|| {
                    ApiError::invalid("Idempotency-Key", "1 to 255 visible ASCII characters")
                })?;
            Some(key.to_owned())
        }
    };
    let store = state.store.clone();
    let bought =
        web::block(move || store.purchase(&claims.id, &body.item, key.as_deref())).await??;
    let replayed = bought.replayed;
    let answer = PurchaseBody {
        balance: bought.purchase.balance,
        purchase: PurchaseView {
            id: bought.purchase.id,
            price: bought.purchase.price,
            item: bought.item,
            owned: bought.owned.id,
            created_at: rfc3339(bought.purchase.created_at),
        },
    };
    let mut response = HttpResponse::Created();
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(response.json(answer))
}

/// `GET /me`: who, coins, what they own, their apartment.
#[derive(Serialize, ToSchema)]
pub struct MeBody {
    #[schema(value_type = Object)]
    pub user: User,
    pub coins: i64,
    pub inventory: Vec<OwnedView>,
    pub apartment: ApartmentView,
    /// Whether a password is set: without one, a guest who signs out cannot come back.
    pub password: bool,
}

#[derive(Serialize, ToSchema)]
pub struct OwnedView {
    pub id: String,
    pub item: ShopItem,
    /// The table of the apartment this board stands as, when placed.
    #[schema(value_type = Option<String>)]
    pub table: Option<TableId>,
    pub acquired_at: String,
}

#[derive(Serialize, ToSchema)]
pub struct ApartmentView {
    /// The room id: `enter` it over the WebSocket.
    #[schema(value_type = String)]
    pub room: RoomId,
    pub name: String,
    pub door: Door,
    #[schema(value_type = Vec<Object>)]
    pub guests: Vec<User>,
    /// The tables the placed boards make.
    #[schema(value_type = Vec<String>)]
    pub tables: Vec<TableId>,
    pub max_boards: usize,
}

/// The signed-in player: coins, inventory and apartment.
///
/// Needs a player token. `{"user", "coins", "inventory": [{"id", "item", "table": null | table
/// id, "acquired_at"}], "apartment", "password"}`; `apartment` is `{"room", "name", "door",
/// "guests": [user], "tables": [id], "max_boards"}`; `password`: whether a password is set (a
/// guest without one who signs out cannot come back as themselves). 404 when the token's user
/// is not stored here.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    responses(
        (status = 200, body = MeBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "the token's user is not stored here", body = ErrorBody),
    )
)]
#[get("/me")]
pub async fn me(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let max_boards = state.max_boards;
    let me = web::block(move || -> Result<MeBody, ApiError> {
        let user = apartment::known_user(&store, &claims.id)?;
        let coins = store.coins(&user.id)?.unwrap_or(0);
        let inventory = store
            .inventory(&user.id)?
            .into_iter()
            .map(|(owned, item)| OwnedView {
                id: owned.id,
                item,
                table: owned.table_id,
                acquired_at: rfc3339(owned.acquired_at),
            })
            .collect();
        let room = store.ensure_apartment(&user)?;
        let apartment = apartment_view(apartment::apartment(&store, &room)?, max_boards);
        let password = store.password_of(&user.id)?.is_some();
        Ok(MeBody {
            user: User {
                id: user.id,
                name: user.name,
                house: false,
                ratings: Default::default(),
            },
            coins,
            inventory,
            apartment,
            password,
        })
    })
    .await??;
    Ok(HttpResponse::Ok().json(me))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DoorRequest {
    pub door: Door,
}

/// Opens the apartment's door to everyone (`open`) or to invited guests only (`invited`).
/// People already inside stay.
///
/// Needs a player token. Body: `{"door": "invited" | "open"}`. 200, the apartment. `invited`
/// (the default): the owner and the guests on the list come in; `open`: anyone. People inside
/// stay.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = DoorRequest,
    responses(
        (status = 200, body = ApartmentView),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
    )
)]
#[put("/me/apartment/door")]
pub async fn set_door(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<DoorRequest>,
) -> Result<HttpResponse, ApiError> {
    let room = my_apartment(&state, &claims.id).await?;
    let (store, row) = (state.store.clone(), room.clone());
    web::block(move || apartment::set_door(&store, &row, body.door)).await??;
    door_changed(&state, &room).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GuestRequest {
    /// The user id of the guest.
    #[schema(value_type = String)]
    pub user: UserId,
}

/// Puts a user on the apartment's guest list: they may come in while the door is `invited`.
///
/// Needs a player token. Body: `{"user"}`. 200, the apartment. 404: no such user; 400: oneself.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = GuestRequest,
    responses(
        (status = 200, body = ApartmentView),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "no such user", body = ErrorBody),
    )
)]
#[post("/me/apartment/guests")]
pub async fn add_guest(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let room = my_apartment(&state, &claims.id).await?;
    let (store, row) = (state.store.clone(), room.clone());
    web::block(move || apartment::invite(&store, &row, &claims.id, &body.user)).await??;
    door_changed(&state, &room).await
}

/// Takes a user off the guest list (someone inside stays until they leave).
///
/// Needs a player token. 200, the apartment. 404: not on the list. Someone inside stays until
/// they leave.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("user" = String, Path, description = "the guest's user id")),
    responses(
        (status = 200, body = ApartmentView),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "not on the guest list", body = ErrorBody),
    )
)]
#[delete("/me/apartment/guests/{user}")]
pub async fn remove_guest(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let room = my_apartment(&state, &claims.id).await?;
    let (store, row) = (state.store.clone(), room.clone());
    let guest = path.into_inner();
    web::block(move || apartment::uninvite(&store, &row, &guest)).await??;
    door_changed(&state, &room).await
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceBoardRequest {
    /// The id of an owned Ayo board (`inventory[].id` of `GET /me`).
    pub board: String,
    /// The rules the table plays; the service's default when absent.
    pub rules: Option<RulesSpec>,
}

#[derive(Serialize, ToSchema)]
pub struct TableBody {
    /// The table, as the `table` WebSocket message shows it.
    #[schema(value_type = Object)]
    pub table: serde_json::Value,
}

/// Places an owned Ayo board in the apartment: it becomes a table there.
///
/// Needs a player token. Body: `{"board", "rules"?}`. 201 `{"table"}`: the owned Ayo board
/// (`inventory[].id`) becomes a table of the apartment; everyone inside gets its `table`
/// message. 404: not owned; 409: `not_a_board`, `board_placed`, `too_many_boards`
/// (`apartment.max_boards`, 3).
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = PlaceBoardRequest,
    responses(
        (status = 201, body = TableBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "no such board in the inventory", body = ErrorBody),
        (status = 409, description = "not_a_board, board_placed, too_many_boards", body = ErrorBody),
    )
)]
#[post("/me/apartment/boards")]
pub async fn place_board(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<PlaceBoardRequest>,
) -> Result<HttpResponse, ApiError> {
    let rules = match &body.rules {
        Some(spec) => spec.resolve("rules")?,
        None => state.default_rules,
    };
    let room = my_apartment(&state, &claims.id).await?;
    let (store, board) = (state.store.clone(), body.board.clone());
    let user = claims.id.clone();
    web::block(move || apartment::may_place(&store, &user, &board)).await??;
    let change = TableChange::Add {
        rules,
        board: Some(body.board),
    };
    let table = state
        .world
        .change_tables(&room.id, Actor::Owner(claims.id), change)
        .await?
        .ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Created().json(TableBody { table }))
}

/// Takes a board up: its table goes, the board is back in the inventory. Only while idle.
///
/// Needs a player token. 204 while the table is idle (nobody seated, no game): the table goes
/// (`table_removed`), the board is back in the inventory. 409 `table_busy` otherwise.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("table" = String, Path, description = "the board's table id")),
    responses(
        (status = 204, description = "taken up"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "table_busy", body = ErrorBody),
    )
)]
#[delete("/me/apartment/boards/{table}")]
pub async fn take_up_board(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<TableId>,
) -> Result<HttpResponse, ApiError> {
    let room = my_apartment(&state, &claims.id).await?;
    let change = TableChange::Remove {
        table: path.into_inner(),
    };
    state
        .world
        .change_tables(&room.id, Actor::Owner(claims.id), change)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardChange {
    /// The board's queue on or off (off at home until the owner turns it on).
    pub queue: bool,
}

/// Turns a placed board's queue on or off: guests wait in turn and the winner stays on.
///
/// Needs a player token (the apartment's owner). Body: `{"queue"}`. 200 `{"table"}`, and
/// everyone inside gets its `table` message; turned off, everyone waiting is told
/// `queue_left`. 404: no such table in the owner's apartment.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = BoardChange,
    params(("table" = String, Path, description = "the board's table id")),
    responses(
        (status = 200, body = TableBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[patch("/me/apartment/boards/{table}")]
pub async fn change_board(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<TableId>,
    Body(body): Body<BoardChange>,
) -> Result<HttpResponse, ApiError> {
    let room = my_apartment(&state, &claims.id).await?;
    let change = TableChange::Queue {
        table: path.into_inner(),
        on: body.queue,
    };
    let table = state
        .world
        .change_tables(&room.id, Actor::Owner(claims.id), change)
        .await?
        .ok_or(HotelError::Gone)?;
    Ok(HttpResponse::Ok().json(TableBody { table }))
}

/// The player's apartment, made on first need.
pub(super) async fn my_apartment(state: &AppState, user_id: &UserId) -> Result<RoomRow, ApiError> {
    let (store, id) = (state.store.clone(), user_id.clone());
    Ok(web::block(move || apartment::apartment_of(&store, &id)).await??)
}

/// Tells the apartment (if open) its new door and guests; answers the apartment as it is.
async fn door_changed(state: &AppState, room: &RoomRow) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(apartment_told(state, room).await?))
}

/// Tells the apartment (if open) its new door and guests; the apartment as it is.
pub(super) async fn apartment_told(
    state: &AppState,
    room: &RoomRow,
) -> Result<ApartmentView, ApiError> {
    let (store, row, max) = (state.store.clone(), room.clone(), state.max_boards);
    let view = web::block(move || apartment::apartment(&store, &row)).await??;
    state.world.door_changed(&room.id).await;
    Ok(apartment_view(view, max))
}

fn apartment_view(apartment: Apartment, max_boards: usize) -> ApartmentView {
    ApartmentView {
        room: apartment.room.id,
        name: apartment.room.name,
        door: apartment.door,
        guests: apartment.guests,
        tables: apartment.tables,
        max_boards,
    }
}

/// A stored UTC time as RFC 3339.
pub(super) fn rfc3339(t: chrono::NaiveDateTime) -> String {
    t.and_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}
