//! `/api/v1/me/following`: a guest follows others and finds them in the hotel (online or not,
//! and the room they are in unless they hide it), on this instance and the others; and
//! `/api/v1/me/whereabouts`, hiding one's own room from them.

use std::collections::HashMap;

use actix_web::{delete, get, put, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::input::Body;
use super::AppState;
use crate::common::{ErrorCode, RoomId, UserId};
use crate::store::{self, FollowError};

impl From<FollowError> for ApiError {
    fn from(e: FollowError) -> Self {
        let message = e.to_string();
        match e {
            FollowError::NoSuchUser(_) => ApiError::NotFound(message),
            FollowError::Oneself => ApiError::invalid("user", message),
            FollowError::Blocked => ApiError::conflict(ErrorCode::Blocked, message),
            FollowError::TooMany => ApiError::conflict(ErrorCode::TooManyFollowing, message),
            FollowError::Store(e) => e.into(),
        }
    }
}

#[derive(Serialize, ToSchema)]
struct PlaceBody {
    #[schema(value_type = String)]
    id: RoomId,
    name: String,
}

/// Someone the guest follows, and where they are.
#[derive(Serialize, ToSchema)]
struct FollowedBody {
    #[schema(value_type = Object)]
    user: crate::common::User,
    /// Connected to the hotel now.
    online: bool,
    /// The room they are in: `null` when offline, in no room, or hiding it.
    room: Option<PlaceBody>,
    /// They hide which room they are in.
    hidden: bool,
}

#[derive(Serialize, ToSchema)]
struct Following {
    /// Oldest follow first.
    following: Vec<FollowedBody>,
}

/// Whom the guest follows, and where each is now.
///
/// Needs a player token. `{"following": [{"user": {"id", "name"}, "online", "room": {"id",
/// "name"} | null, "hidden"}]}`, oldest follow first. `online`: connected to any instance of
/// the hotel now; `room`: the room they are in, unless they hide it (`hidden`) or are in none.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    responses((status = 200, body = Following), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/me/following")]
pub async fn following(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (store, me) = (state.store.clone(), claims.id);
    let followed = store::blocking(move || store.following(&me)).await?;
    let ids: Vec<UserId> = followed.iter().map(|f| f.id.clone()).collect();
    let mut seen: HashMap<UserId, Option<RoomId>> = super::notices::whereabouts_here(&state, &ids)
        .into_iter()
        .collect();
    // Everyone is asked of the other instances too: one connected here in no room may be in
    // a room on another.
    for (user, room) in state.world.whereabouts_elsewhere(ids).await {
        // A room wherever they have one: a connection in a room beats one in none.
        let known = seen.entry(user).or_default();
        if known.is_none() {
            *known = room;
        }
    }
    let rooms: Vec<RoomId> = seen.values().flatten().cloned().collect();
    let store = state.store.clone();
    let names: HashMap<RoomId, String> = store::blocking(move || store.room_names(&rooms))
        .await?
        .into_iter()
        .collect();
    let following = followed
        .into_iter()
        .map(|f| {
            let place = seen.get(&f.id);
            let room = place
                .cloned()
                .flatten()
                .filter(|_| !f.hidden)
                .and_then(|id| {
                    names.get(&id).map(|name| PlaceBody {
                        name: name.clone(),
                        id,
                    })
                });
            FollowedBody {
                online: place.is_some(),
                room,
                hidden: f.hidden,
                user: crate::common::User {
                    id: f.id,
                    name: f.name,
                    house: false,
                    ratings: None,
                },
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(Following { following }))
}

/// Follows a guest, to find them in the hotel. They are not asked, nor told.
///
/// Needs a player token. 204: `user` is followed (again is fine). 404: no such guest (Baba
/// Ayo is not followed); 400 `invalid_field` (`user`): oneself; 409 `blocked`: one of the two
/// blocks the other; 409 `too_many_following` (500).
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("user" = String, Path, description = "the user id to follow")),
    responses(
        (status = 204),
        (status = 400, description = "oneself", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "blocked, too_many_following", body = ErrorBody),
    )
)]
#[put("/me/following/{user}")]
pub async fn follow(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (store, me, other) = (state.store.clone(), claims.id, path.into_inner());
    web::block(move || store.follow(&me, &other)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Stops following a guest. 404 when not following them.
///
/// Needs a player token. 204; 404 when not following them.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    params(("user" = String, Path, description = "the user id to stop following")),
    responses(
        (status = 204),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/me/following/{user}")]
pub async fn unfollow(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let (store, me, other) = (state.store.clone(), claims.id, path.into_inner());
    let shown = other.to_string();
    if store::blocking(move || store.unfollow(&me, &other)).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("you do not follow `{shown}`")))
    }
}

/// Whether the guest hides which room they are in from those following them.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Whereabouts {
    hidden: bool,
}

/// Whether the guest hides which room they are in.
///
/// Needs a player token. `{"hidden"}`.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    responses((status = 200, body = Whereabouts), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[get("/me/whereabouts")]
pub async fn whereabouts(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (store, me) = (state.store.clone(), claims.id);
    let hidden = store::blocking(move || store.hides_whereabouts(&me)).await?;
    Ok(HttpResponse::Ok().json(Whereabouts { hidden }))
}

/// Hides (or shows again) which room the guest is in: those following them then see only
/// whether they are online.
///
/// Needs a player token. Body `{"hidden": bool}`; answers it.
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = Whereabouts,
    responses((status = 200, body = Whereabouts), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
#[put("/me/whereabouts")]
pub async fn set_whereabouts(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<Whereabouts>,
) -> Result<HttpResponse, ApiError> {
    let (store, me, hidden) = (state.store.clone(), claims.id, body.hidden);
    store::blocking(move || store.hide_whereabouts(&me, hidden)).await?;
    Ok(HttpResponse::Ok().json(Whereabouts { hidden }))
}
