//! `POST /api/v1/me/apartment/invitations`: an invitation home that reaches the guest
//! wherever they are. The guest goes on the apartment's list (as `POST /me/apartment/guests`)
//! and their live connection here, in any room or none, is sent `home_invitation`. A guest
//! who blocks the owner is put on the list but not told, and the answer does not say so.

use actix_web::{post, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::home::{apartment_told, my_apartment, ApartmentView, GuestRequest};
use super::input::Body;
use super::AppState;
use crate::common::{ErrorCode, User};
use crate::world::apartment;
use crate::world::protocol::ServerMessage;

#[derive(Serialize, ToSchema)]
pub struct InvitationBody {
    /// The guest invited.
    #[schema(value_type = Object)]
    pub user: User,
    /// Whether the guest has a live connection here that was told (a guest who blocks the
    /// owner counts as told).
    pub delivered: bool,
    /// The apartment as it is now, the guest on its list.
    pub apartment: ApartmentView,
}

/// Invites a user home: on the guest list, and told at once (`home_invitation`) on their live
/// connection, wherever they are. An owner sends `apartment.invitations_per_minute` (5) a
/// minute at most.
///
/// Needs a player token. Body: `{"user"}`. 201 `{"user": {"id", "name"}, "delivered",
/// "apartment"}`: an invitation home that reaches the guest. The user is put on the guest list
/// (as `POST /me/apartment/guests`) and their live connection, in whatever room or none, gets
/// `home_invitation`. `delivered`: whether they have a live connection to tell; `false` for
/// someone offline, who is only on the list. A user who blocks the owner is put on the list but
/// not told, and the answer is the same as if they were (the block stays theirs). 404: no such
/// user; 400 `invalid_field` (`user`): oneself. An owner sends
/// `apartment.invitations_per_minute` (5) a minute, in a burst of as many (those refused with
/// 404 or 400 do not count); past that 429 `too_many_invitations` with `Retry-After` (seconds).
#[utoipa::path(
    tag = "me",
    security(("bearer" = [])),
    request_body = GuestRequest,
    responses(
        (status = 201, body = InvitationBody),
        (status = 400, description = "oneself, or a bad body", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "no such user", body = ErrorBody),
        (status = 429, description = "`too_many_invitations`, with Retry-After", body = ErrorBody),
    )
)]
#[post("/me/apartment/invitations")]
pub async fn invite_home(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let owner = User {
        id: claims.id,
        name: claims.name,
        house: false,
        ratings: Default::default(),
    };
    let room = my_apartment(&state, &owner.id).await?;
    let (store, owner_id, guest_id) = (state.store.clone(), owner.id.clone(), body.user);
    let guest = web::block(move || apartment::may_invite(&store, &owner_id, &guest_id)).await??;
    // Only invitations that could go count against the owner's pace.
    if let Err(wait) = state
        .home_invitations
        .take(owner.id.clone(), state.ticker.now_ms())
    {
        return Err(ApiError::TooMany {
            code: ErrorCode::TooManyInvitations,
            message: format!(
                "{} invitations home a minute at most: invite again in {} s",
                state.home_invitations_per_minute,
                wait.as_secs().max(1)
            ),
            retry_after: Some(wait),
        });
    }
    let (store, row, owner_id, guest_id) = (
        state.store.clone(),
        room.clone(),
        owner.id.clone(),
        guest.id.clone(),
    );
    web::block(move || apartment::invite(&store, &row, &owner_id, &guest_id)).await??;
    let apartment = apartment_told(&state, &room).await?;
    let frame = ServerMessage::HomeInvitation {
        from: owner.clone(),
        room: room.id.clone(),
        name: room.name.clone(),
    }
    .to_frame();
    let delivered = if state.world.blocks(&guest.id, &owner.id) {
        // Not told; answered as if told, so the block stays the guest's own.
        state.connections.of_user(&guest.id) > 0
            || state.world.reach_elsewhere(&guest.id, None).await > 0
    } else {
        // Their connection is here, or on another instance (asked only when not here).
        state.connections.send_to_user(&guest.id, &frame) > 0
            || state
                .world
                .reach_elsewhere(&guest.id, Some(frame.to_string()))
                .await
                > 0
    };
    Ok(HttpResponse::Created().json(InvitationBody {
        user: guest,
        delivered,
        apartment,
    }))
}
