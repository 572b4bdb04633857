//! `/api/v1/admin/users/{user}/ban`: an operator bans a guest (for a time, or until lifted)
//! and lifts the ban. A ban holds at once: the guest's requests get 403 `banned`, `/ws`
//! refuses them, and their open connections are closed (1008): on this instance at once, on
//! the others as they hear of it (`http/notices.rs`).

use actix_web::{delete, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::auth::Admin;
use super::super::connections::Closing;
use super::super::error::{ApiError, ErrorBody};
use super::super::input::{display_name, Body};
use super::super::AppState;
use crate::common::UserId;
use crate::store::Ban;
use crate::world::Notice;

/// The longest ban with an end: a year (longer is a ban until lifted).
const MAX_BAN_SECS: u64 = 366 * 24 * 3600;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewBan {
    /// Why, for the guest (in the close reason and the 403) and the audit log: 1 to 200
    /// characters.
    pub reason: String,
    /// How long it holds, 1 s to a year; until lifted when absent.
    pub duration_secs: Option<u64>,
}

#[derive(Serialize, ToSchema)]
pub struct BanBody {
    #[schema(value_type = Object)]
    pub ban: Ban,
    /// The guest's connections closed on this instance.
    pub closed: usize,
}

/// Bans a guest, replacing a ban they had.
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. Body: `{"reason", "duration_secs"?}`. 201 `{"ban": {"user_id",
/// "reason", "until", "banned_by", "created_at"}, "closed"}`. `reason` 1 to 200 characters;
/// `duration_secs` 1 to a year, a ban until lifted when absent; a new ban replaces the guest's
/// old one. At once: the guest's requests get 403 `banned`, `/ws` refuses them, and their open
/// connections are closed (1008 `banned: <reason>`; `closed` counts them). 404: no such guest
/// (Baba Ayo cannot be banned).
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    request_body = NewBan,
    params(("user" = String, Path)),
    responses(
        (status = 201, body = BanBody),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[post("/admin/users/{user}/ban")]
pub async fn ban(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
    Body(body): Body<NewBan>,
) -> Result<HttpResponse, ApiError> {
    let reason = display_name("reason", &body.reason, 200)?;
    let until = match body.duration_secs {
        None => None,
        Some(secs) if (1..=MAX_BAN_SECS).contains(&secs) => {
            Some(state.banlist.now() + chrono::Duration::seconds(secs as i64))
        }
        Some(_) => {
            return Err(ApiError::invalid(
                "duration_secs",
                "from 1 s to a year; leave it out for a ban until lifted",
            ))
        }
    };
    let ban = Ban {
        user_id: path.into_inner(),
        reason,
        until,
        banned_by: operator,
        created_at: state.store.now(),
    };
    let (store, stored) = (state.store.clone(), ban.clone());
    web::block(move || store.ban(&stored)).await??;
    state.banlist.add(&ban);
    let user = ban.user_id.clone();
    let closed = state
        .connections
        .close_user(&user, None, Closing::Banned(ban.reason.clone()));
    // The other instances keep them out too, and close theirs.
    let until = ban.until.map(|t| t.and_utc().timestamp_millis());
    let told = Notice::Banned {
        user,
        reason: ban.reason.clone(),
        until,
    };
    state.world.tell_hotel(told).await;
    Ok(HttpResponse::Created().json(BanBody { ban, closed }))
}

#[derive(Serialize, ToSchema)]
pub struct Lifted {
    pub lifted: bool,
}

/// Lifts a guest's ban (404 when they have none).
///
/// Needs an admin token; the change is written to the audit log in the same transaction, under
/// the token's subject. 200 `{"lifted": true}`; 404 when the guest is not banned.
#[utoipa::path(
    tag = "admin",
    security(("bearer" = [])),
    params(("user" = String, Path)),
    responses(
        (status = 200, body = Lifted),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
#[delete("/admin/users/{user}/ban")]
pub async fn lift_ban(
    Admin(operator): Admin,
    state: web::Data<AppState>,
    path: web::Path<UserId>,
) -> Result<HttpResponse, ApiError> {
    let user = path.into_inner();
    let (store, lifted) = (state.store.clone(), user.clone());
    if !web::block(move || store.lift_ban(&operator, &lifted)).await?? {
        return Err(ApiError::NotFound(format!("{user} is not banned")));
    }
    state.banlist.lift(&user);
    state.world.tell_hotel(Notice::BanLifted { user }).await;
    Ok(HttpResponse::Ok().json(Lifted { lifted: true }))
}
