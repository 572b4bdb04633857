//! `/api/v1/admin/...` moderation: slow mode for a room, muting a guest, putting a guest out
//! of a room, taking a chat line away. Each is stored and audited by `world`, which tells the
//! rooms; these handlers read, check the ranges and answer.

use actix_web::{delete, post, put, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::auth::Admin;
use super::super::error::{ApiError, ErrorBody};
use super::super::input::Body;
use super::super::AppState;
use crate::common::{RoomId, UserId};

/// The longest slow mode: an hour between lines.
const MAX_SLOW_MODE_SECS: u32 = 3600;
/// The longest mute or time out of a room: 30 days.
const MAX_MODERATION_SECS: u64 = 30 * 24 * 3600;
/// The longest reason an operator gives.
const MAX_REASON_CHARS: usize = 200;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowModeBody {
    /// One chat line per guest every this many seconds, 1 to 3600; 0 turns slow mode off.
    pub seconds: u32,
}

#[derive(Serialize, ToSchema)]
pub struct SlowModeSet {
    #[schema(value_type = String)]
    pub room: RoomId,
    pub seconds: u32,
}

/// Puts a room in slow mode (or takes it out with 0); everyone in it gets `slow_mode`.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"seconds"}`. 200 `{"room", "seconds"}`: one chat line per guest
/// every `seconds` (1 to 3600; 0 off), kept with the room; everyone inside gets `slow_mode`.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = SlowModeBody,
    params(("room" = String, Path)),
    responses(
        (status = 200, body = SlowModeSet),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[put("/admin/rooms/{room}/slow-mode")]
pub async fn set_slow_mode(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<RoomId>,
    Body(body): Body<SlowModeBody>,
) -> Result<HttpResponse, ApiError> {
    if body.seconds > MAX_SLOW_MODE_SECS {
        return Err(ApiError::invalid(
            "seconds",
            format!("0 (off) to {MAX_SLOW_MODE_SECS}"),
        ));
    }
    let room = path.into_inner();
    state
        .world
        .set_slow_mode(&operator, &room, body.seconds)
        .await?;
    Ok(HttpResponse::Ok().json(SlowModeSet {
        room,
        seconds: body.seconds,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MuteBody {
    /// How long, 1 second to 30 days.
    pub seconds: u64,
    /// Told to the guest and kept in the audit log (at most 200 characters).
    pub reason: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Muted {
    #[schema(value_type = String)]
    pub user: UserId,
    /// When the mute ends (server ms since 1970).
    pub until: u64,
}

/// Mutes a guest: their chat lines are refused (`muted`) in every room until it ends; they
/// are told (`muted`).
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"seconds", "reason"?}`. 200 `{"user", "until"}`: the guest's
/// chat lines are refused (`muted`) in every room for `seconds` (1 to 2,592,000, 30 days); they
/// are told (`muted`). A new mute replaces the old. `reason` at most 200 characters.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = MuteBody,
    params(("user" = String, Path)),
    responses(
        (status = 200, body = Muted),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[put("/admin/users/{user}/mute")]
pub async fn mute(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
    Body(body): Body<MuteBody>,
) -> Result<HttpResponse, ApiError> {
    let seconds = duration("seconds", body.seconds)?;
    let reason = reason(body.reason.as_deref())?;
    let user = path.into_inner();
    let until = state
        .world
        .mute(&operator, &user, seconds * 1000, &reason)
        .await?;
    Ok(HttpResponse::Ok().json(Muted { user, until }))
}

/// Lifts a guest's mute; they are told (`muted` with `until: null`). 404 when none is on.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. 204, the guest is told (`muted`, `until: null`); 404 when not muted.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("user" = String, Path)),
    responses(
        (status = 204),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/admin/users/{user}/mute")]
pub async fn unmute(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let user = path.into_inner();
    if state.world.unmute(&operator, &user).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("`{user}` is not muted")))
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutOutBody {
    /// The guest's user id.
    #[schema(value_type = String)]
    pub user: UserId,
    /// How long they stay out, 1 second to 30 days (`civility.put_out_secs` when absent).
    pub seconds: Option<u64>,
    /// Told to the guest and kept in the audit log (at most 200 characters).
    pub reason: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct PutOut {
    #[schema(value_type = String)]
    pub room: RoomId,
    #[schema(value_type = String)]
    pub user: UserId,
    /// When they may come back (server ms since 1970).
    pub until: u64,
}

/// Puts a guest out of a room: they leave it at once (as if they left: a match in play is
/// resigned), are told (`put_out`), and cannot come back in (`barred`) until the time is up.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"user", "seconds"?, "reason"?}`. 200 `{"room", "user",
/// "until"}`: the guest leaves the room at once as if they left (a match in play is resigned),
/// is told (`put_out`), and cannot come back in (`barred`) for `seconds` (1 to 30 days;
/// `civility.put_out_secs`, 600, when absent).
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = PutOutBody,
    params(("room" = String, Path)),
    responses(
        (status = 200, body = PutOut),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[post("/admin/rooms/{room}/put-out")]
pub async fn put_out(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<RoomId>,
    Body(body): Body<PutOutBody>,
) -> Result<HttpResponse, ApiError> {
    let for_ms = match body.seconds {
        Some(s) => duration("seconds", s)? * 1000,
        None => state.world.put_out_ms(),
    };
    let reason = reason(body.reason.as_deref())?;
    let room = path.into_inner();
    let user = body.user;
    let until = state
        .world
        .put_out(&operator, &room, &user, for_ms, &reason)
        .await?;
    Ok(HttpResponse::Ok().json(PutOut { room, user, until }))
}

/// Takes a chat line (its `id` in the `chat` message) away for everyone in the room
/// (`chat_removed`). 404 when the open room never had that line.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. 204: everyone in the room gets `chat_removed`. 404: the open room never
/// had that line (`line`: the `id` of the `chat` message).
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("room" = String, Path), ("line" = u64, Path)),
    responses(
        (status = 204),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/admin/rooms/{room}/chat/{line}")]
pub async fn remove_chat_line(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<(RoomId, String)>,
) -> Result<HttpResponse, ApiError> {
    let (room, line) = path.into_inner();
    let line: u64 = line
        .parse()
        .map_err(|_| ApiError::invalid("line", "a chat line's id, a number"))?;
    if state.world.remove_chat_line(&operator, &room, line).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!(
            "there is no chat line {line} in `{room}`"
        )))
    }
}

/// A time in seconds an operator gives: 1 to 30 days.
fn duration(field: &str, seconds: u64) -> Result<u64, ApiError> {
    if (1..=MAX_MODERATION_SECS).contains(&seconds) {
        Ok(seconds)
    } else {
        Err(ApiError::invalid(
            field,
            format!("1 to {MAX_MODERATION_SECS} seconds (30 days)"),
        ))
    }
}

/// An operator's reason: trimmed, at most 200 characters.
fn reason(reason: Option<&str>) -> Result<String, ApiError> {
    let reason = reason.unwrap_or("").trim();
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(ApiError::invalid(
            "reason",
            format!("at most {MAX_REASON_CHARS} characters"),
        ));
    }
    Ok(reason.to_owned())
}
