//! What stands in an apartment, as a visitor sees it: the boards its owner placed (their wood
//! and finish, at which table) and the furniture they own.

use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::common::{RoomId, RoomKind, TableId};
use crate::world::{HotelError, User};

#[derive(Serialize, ToSchema)]
pub struct Furnishings {
    #[schema(value_type = String)]
    pub room: RoomId,
    #[schema(value_type = Object)]
    pub owner: User,
    /// Boards placed (each a table of the room), then the rest, in the order bought.
    pub things: Vec<Thing>,
}

#[derive(Serialize, ToSchema)]
pub struct Thing {
    pub name: String,
    /// `ayo_board`, `furniture`, ...: the shop's kinds.
    pub kind: String,
    pub wood: Option<String>,
    pub finish: Option<String>,
    /// The table a placed board stands as.
    #[schema(value_type = Option<String>)]
    pub table: Option<TableId>,
}

/// What the owner of an apartment has in it. Boards bought and not placed stay out of sight.
///
/// Needs a player token. What stands in an apartment, as a visitor sees it: `{"room", "owner":
/// user, "things": [{"name", "kind", "wood", "finish", "table"}]}`: the boards the owner placed
/// (`table`: the table each stands as) first, then their furniture; boards not placed are not
/// shown. 404 `not_found` for a room that is not an apartment.
#[utoipa::path(
    tag = "home",
    security(("bearer" = [])),
    params(("room" = String, Path, description = "an apartment's room id")),
    responses(
        (status = 200, body = Furnishings),
        (status = 404, description = "not_found: no such apartment", body = ErrorBody),
    )
)]
#[get("/apartments/{room}")]
pub async fn furnishings(
    _: Player,
    state: web::Data<AppState>,
    room: web::Path<RoomId>,
) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    let id = room.into_inner();
    let view = web::block(move || -> Result<Furnishings, ApiError> {
        let missing = || HotelError::NoSuchRoom(id.clone());
        let (row, _) = store.room(&id)?.ok_or_else(missing)?;
        let owner = match (row.kind, row.owner_id) {
            (RoomKind::Apartment, Some(owner)) => store.user(&owner)?.ok_or_else(missing)?,
            _ => return Err(missing().into()),
        };
        let mut things: Vec<Thing> = store
            .inventory(&owner.id)?
            .into_iter()
            .filter(|(owned, item)| !item.is_board() || owned.table_id.is_some())
            .map(|(owned, item)| Thing {
                kind: item.kind.as_str().to_owned(),
                name: item.name,
                wood: item.wood,
                finish: item.finish,
                table: owned.table_id,
            })
            .collect();
        things.sort_by_key(|t| t.table.is_none());
        Ok(Furnishings {
            room: id,
            owner: User {
                id: owner.id,
                name: owner.name,
                house: false,
                ratings: Default::default(),
            },
            things,
        })
    })
    .await??;
    Ok(HttpResponse::Ok().json(view))
}
