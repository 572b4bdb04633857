//! `/api/v1/me/blocks`: a guest blocks another (no invitations from them, none of their chat
//! lines), lists whom they block, and unblocks.

use actix_web::{delete, get, put, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::common::{ErrorCode, UserId};
use crate::store::BlockError;

#[derive(Serialize, ToSchema)]
pub struct BlockedUser {
    #[schema(value_type = String)]
    pub id: UserId,
    pub name: String,
}

#[derive(Serialize, ToSchema)]
pub struct Blocks {
    /// Whom the guest blocks, oldest first.
    pub blocks: Vec<BlockedUser>,
}

impl From<BlockError> for ApiError {
    fn from(e: BlockError) -> Self {
        let message = e.to_string();
        match e {
            BlockError::NoSuchUser(_) => ApiError::NotFound(message),
            BlockError::Oneself => ApiError::invalid("user", message),
            BlockError::TooMany => ApiError::conflict(ErrorCode::TooManyBlocks, message),
            BlockError::Store(e) => e.into(),
        }
    }
}

/// Whom the guest blocks.
///
/// Needs a player token. `{"blocks": [{"id", "name"}]}`: whom the guest blocks, oldest first.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    responses((status = 200, body = Blocks), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/me/blocks")]
pub async fn blocks(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (store, me) = (state.store.clone(), claims.id);
    let rows = web::block(move || store.blocks_of(&me)).await??;
    let blocks = rows
        .into_iter()
        .map(|(id, name)| BlockedUser { id, name })
        .collect();
    Ok(HttpResponse::Ok().json(Blocks { blocks }))
}

/// Blocks a guest: their invitations are refused and their chat lines no longer reach you.
/// They are not told.
///
/// Needs a player token. 204: `user` is blocked (again is fine). 404: no such user; 400
/// `invalid_field` (`user`): oneself; 409 `too_many_blocks` (500). The blocked one is not told.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("user" = String, Path, description = "the user id to block")),
    responses(
        (status = 204),
        (status = 400, description = "oneself", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "too_many_blocks", body = ErrorBody),
    )
)]
#[put("/me/blocks/{user}")]
pub async fn block(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (me, other) = (claims.id, path.into_inner());
    state.world.block(&me, &other).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Unblocks a guest. 404 when they were not blocked.
///
/// Needs a player token. 204; 404 when not blocked.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("user" = String, Path, description = "the user id to unblock")),
    responses(
        (status = 204),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/me/blocks/{user}")]
pub async fn unblock(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (me, other) = (claims.id, path.into_inner());
    if state.world.unblock(&me, &other).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("you do not block `{other}`")))
    }
}
