//! `/api/v1/admin/...`: operators run the shop and the coins. Every change is written to the
//! audit log in the same transaction as the change itself.

use actix_web::{get, patch, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::auth::Admin;
use super::super::error::{ApiError, ErrorBody};
use super::super::home::ItemList;
use super::super::input::{display_name, double_option, slug, Body};
use super::super::AppState;
use super::{slugify, Page};
use crate::common::{ErrorCode, ItemId, UserId};
use crate::store::{self, CoinEntry, ItemChange, ItemKind, ShopItem};

const MAX_AMOUNT: i64 = 1_000_000;

/// GET /admin/shop/items
///
/// Needs an admin token. `{"items"}`: every item, on sale or not.
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
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"name", "kind": "ayo_board" | "furniture", "price", "id"?,
/// "wood"?, "finish"?, "stock"?, "on_sale"?}`. 201 `{"item"}`. `price` and `stock` 0 to
/// 1,000,000; no `stock` is unlimited. 409 `item_exists`.
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
    Admin(operator): Admin,
    state: web::Data<AppState>,
    Body(body): Body<NewItem>,
) -> Result<HttpResponse, ApiError> {
    let name = display_name("name", &body.name, 60)?;
    let id = ItemId::new(match &body.id {
        Some(id) => slug("id", id)?,
        None => slug("name", &slugify(&name))?,
    });
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
        created_at: store::at_ms(state.clock.now_ms()),
        updated_at: store::at_ms(state.clock.now_ms()),
    };
    let (store, stored) = (state.store.clone(), item.clone());
    web::block(move || store.create_item(&operator, &stored))
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
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"name"?, "price"?, "stock"?: N | null, "on_sale"?}`. 200
/// `{"item"}`. `on_sale: false` takes it off sale; `stock: null` makes it unlimited. Nothing to
/// change: 400 `bad_request`.
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
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<ItemId>,
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
    let item = web::block(move || store.change_item(&operator, &id, &change)).await??;
    Ok(HttpResponse::Ok().json(ItemBody { item }))
}

#[derive(Serialize, ToSchema)]
pub struct CoinsBody {
    #[schema(value_type = String)]
    pub user: UserId,
    pub coins: i64,
    /// The ledger, newest first.
    pub ledger: Vec<CoinEntry>,
}

/// A user's balance and ledger.
///
/// Needs an admin token. `{"user", "coins", "ledger": [{"id", "amount", "balance", "reason",
/// "note", "purchase_id", "actor", "created_at"}]}`, newest first; `limit` 1 to 500. `reason`:
/// `welcome`, `purchase`, `grant`, `take`.
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
    path: web::Path<UserId>,
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
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"amount", "reason"}`. 201 `{"entry"}`. Grants (positive) or
/// takes (negative), not 0, at most 1,000,000 either way; 409 `insufficient_coins` rather than
/// go below zero.
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
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
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
        web::block(move || store.adjust_coins(&operator, &user, body.amount, &reason)).await??;
    Ok(HttpResponse::Created().json(EntryBody { entry }))
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
