//! Lasting identity: refresh credentials (one family a device), the player's devices,
//! passwords for signing in on a new device, and the hotel's own accounts.
//!
//! A refresh credential is 256 random bits, given to the client once and stored only as its
//! SHA-256. Each refresh spends it and hands out the next; a spent one presented again means
//! two holders, so the whole device is signed out.

use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Player, Subject};
use super::error::{ApiError, ErrorBody};
use super::input::Body;
pub use super::passwords::Passwords;
use super::AppState;
use crate::common::{ErrorCode, User};
use crate::store::{self, DeviceRow, Revocation, StoreError, UserRow};
use crate::world::account::{self as policy, AccountError};

/// A device's label: the one given, else the browser's User-Agent, cut to 64 characters.
fn label(given: Option<&str>, req: &HttpRequest) -> String {
    let agent = req
        .headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    policy::device_label(given, agent)
}

/// What every sign-in answers: an access token, the device's refresh credential, the user.
#[derive(Serialize, ToSchema)]
pub struct Grant {
    /// A player token (JWT) for `Authorization: Bearer` and the WebSocket.
    pub token: String,
    /// Seconds the token lasts: refresh before then.
    pub expires_in: u64,
    /// The device's refresh credential: keep it, present it once to `/auth/refresh`.
    pub refresh: String,
    /// The device (for `/me/devices`).
    pub device: String,
    #[schema(value_type = Object)]
    pub user: User,
}

/// Opens a device for `user` and signs them in on it; `key`, the browser's device key as kept
/// (`policy::device_key_hash`, checked before anything else is stored).
pub async fn grant(
    state: &AppState,
    user: &UserRow,
    label: String,
    key: Option<String>,
) -> Result<Grant, ApiError> {
    let (credential, hash) = policy::new_credential()?;
    let (now, ttl) = (state.auth.now_ms(), refresh_ttl_ms(state));
    let (store, id) = (state.store.clone(), user.id.clone());
    let device =
        store::blocking(move || store.open_device(&id, (&label, key), &hash, now, ttl)).await?;
    grant_on(state, user, &device, credential)
}

fn grant_on(
    state: &AppState,
    user: &UserRow,
    device: &DeviceRow,
    credential: String,
) -> Result<Grant, ApiError> {
    let token = state.auth.issue_for(
        &Subject::Player(user.id.clone()),
        &user.name,
        None,
        Some(&device.id),
    )?;
    Ok(Grant {
        token,
        expires_in: state.auth.ttl().as_secs(),
        refresh: credential,
        device: device.id.clone(),
        user: User {
            id: user.id.clone(),
            name: user.name.clone(),
            house: false,
            ratings: Default::default(),
        },
    })
}

fn refresh_ttl_ms(state: &AppState) -> i64 {
    i64::try_from(state.auth.refresh_ttl.as_millis()).unwrap_or(i64::MAX / 4)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    /// The device's current refresh credential.
    refresh: String,
}

/// A new access token and refresh credential for the old credential, which is spent. A spent
/// credential presented again signs the device out (`refresh_reused`).
///
/// Body: `{"refresh"}`. 200 a grant (same user and device, a new token and a new credential;
/// the old one is spent). 401 `refresh_reused` (the device is now signed out) or
/// `refresh_invalid`.
#[utoipa::path(
    tag = "players",
    request_body = RefreshRequest,
    responses(
        (status = 200, body = Grant),
        (status = 401, description = "refresh_invalid, refresh_reused", body = ErrorBody),
    )
)]
#[post("/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    Body(body): Body<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    let old = policy::credential_hash(body.refresh.trim());
    let (credential, new) = policy::new_credential()?;
    let (now, ttl) = (state.auth.now_ms(), refresh_ttl_ms(&state));
    let store = state.store.clone();
    let rotation = store::blocking(move || store.rotate_refresh(&old, &new, now, ttl)).await?;
    let device = policy::refreshed(rotation)?;
    let (store, id) = (state.store.clone(), device.user_id.clone());
    let user = store::blocking(move || store.user(&id))
        .await?
        .ok_or_else(|| ApiError::Internal("a device without its user".into()))?;
    Ok(HttpResponse::Ok().json(grant_on(&state, &user, &device, credential)?))
}

/// Signs this device out: its refresh credential stops working (the access token lasts out its
/// short life).
///
/// Needs a player token. 204: this token's device is signed out (its refresh credential stops
/// working).
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    responses((status = 204, description = "signed out"), (status = 401, body = ErrorBody))
)]
#[post("/auth/sign-out")]
pub async fn sign_out(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    if let Some(device) = claims.sid {
        let (store, now) = (state.store.clone(), state.auth.now_ms());
        let user = claims.id;
        store::blocking(move || store.revoke_device(&user, &device, Revocation::SignedOut, now))
            .await?;
    }
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Serialize, ToSchema)]
pub struct Device {
    pub id: String,
    /// What the device called itself at sign-in (or its browser's User-Agent).
    pub label: String,
    #[schema(value_type = String)]
    pub signed_in_at: chrono::DateTime<chrono::Utc>,
    #[schema(value_type = String)]
    pub last_used_at: chrono::DateTime<chrono::Utc>,
    /// When it is signed out unless it refreshes before.
    #[schema(value_type = String)]
    pub expires_at: chrono::DateTime<chrono::Utc>,
    /// The device this request came from.
    pub current: bool,
}

#[derive(Serialize, ToSchema)]
pub struct DeviceList {
    pub devices: Vec<Device>,
}

fn at(ms: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// The player's devices still signed in, the most recently used first.
///
/// Needs a player token. `{"devices": [{"id", "label", "signed_in_at", "last_used_at",
/// "expires_at", "current"}]}`: the devices signed in, the most recently used first; `current`
/// is the one asking.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    responses((status = 200, body = DeviceList), (status = 401, body = ErrorBody))
)]
#[get("/me/devices")]
pub async fn devices(
    Player(claims): Player,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (store, now) = (state.store.clone(), state.auth.now_ms());
    let user = claims.id;
    let rows = store::blocking(move || store.devices(&user, now)).await?;
    let devices = rows
        .into_iter()
        .map(|d| Device {
            current: claims.sid.as_deref() == Some(d.id.as_str()),
            signed_in_at: at(d.created_ms),
            last_used_at: at(d.used_ms),
            expires_at: at(d.expires_ms),
            id: d.id,
            label: d.label,
        })
        .collect();
    Ok(HttpResponse::Ok().json(DeviceList { devices }))
}

/// Signs one of the player's devices out (a lost phone).
///
/// Needs a player token. 204: that device is signed out (a lost phone); 404 when the player has
/// no such device signed in.
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "the device")),
    responses(
        (status = 204, description = "signed out"),
        (status = 401, body = ErrorBody),
        (status = 404, description = "no such device signed in", body = ErrorBody),
    )
)]
#[delete("/me/devices/{id}")]
pub async fn remove_device(
    Player(claims): Player,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (store, now) = (state.store.clone(), state.auth.now_ms());
    let (user, device) = (claims.id, path.into_inner());
    let done =
        store::blocking(move || store.revoke_device(&user, &device, Revocation::Removed, now))
            .await?;
    if !done {
        return Err(ApiError::NotFound("no such device signed in".into()));
    }
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordRequest {
    /// 10 characters or more (up to 256 bytes).
    password: String,
    /// The password in use, when there is one.
    #[serde(default)]
    current: Option<String>,
}

/// Sets the player's password, so they can sign in with name and password on a new device
/// (their avatar, coins and apartment come along). Changing it asks for the current one.
///
/// Needs a player token. Body: `{"password", "current"?}`. 204. 10 characters or more, up to
/// 256 bytes (else 400 `invalid_field` `password`). Changing a password asks for the one in use
/// as `current` (else 401 `sign_in_failed`).
///
/// Why a password, not a claim code, brings an avatar to a new device: a claim code is made on
/// the old device, so it is no help when that device is lost, broken or wiped, which is when a
/// guest most needs it. A password is kept in the guest's head. It is hashed with argon2id (19
/// MiB, 2 passes: memory-hard, so a stolen table is slow to guess through on GPUs), on the
/// blocking pool, two hashes at a time, so a wave of sign-ins waits its turn and never holds up
/// moves. The name is compared as names are ([Names](#names)): "alice one" signs in "Alice
/// One".
#[utoipa::path(
    tag = "players",
    security(("bearer" = [])),
    request_body = PasswordRequest,
    responses(
        (status = 204, description = "set"),
        (status = 400, body = ErrorBody),
        (status = 401, description = "no valid token, or `current` wrong (sign_in_failed)", body = ErrorBody),
    )
)]
#[put("/me/password")]
pub async fn set_password(
    Player(claims): Player,
    state: web::Data<AppState>,
    Body(body): Body<PasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    policy::check_new_password(&body.password)?;
    let (store, id) = (state.store.clone(), claims.id.clone());
    let current = store::blocking(move || store.password_of(&id)).await?;
    if let Some(phc) = current {
        let given = body.current.unwrap_or_default();
        let user = UserRow {
            id: claims.id.clone(),
            name: claims.name.clone(),
            house: false,
            created_at: store::at_ms(state.clock.now_ms()),
        };
        if !policy::worth_checking(&given)
            || state
                .passwords
                .open(vec![(user, phc)], given)
                .await?
                .is_none()
        {
            return Err(AccountError::SignInFailed.into());
        }
    }
    let phc = state.passwords.hash(body.password).await?;
    let (store, id, now) = (state.store.clone(), claims.id, state.auth.now_ms());
    store::blocking(move || store.set_password(&id, &phc, now)).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignInRequest {
    name: String,
    password: String,
    /// What to call this device in the player's list (default: the User-Agent).
    #[serde(default)]
    device: Option<String>,
    /// A key this browser keeps across sign-ins (16 to 128 letters, digits, `-`, `_`): two
    /// accounts signed in with one key play unrated games against each other.
    #[serde(default)]
    device_key: Option<String>,
}

/// Signs in with name and password on a new device: the same avatar, coins and apartment.
///
/// Body: `{"name", "password", "device"?, "device_key"?}`. 200 a grant: the same avatar, coins and apartment
/// on a new device. A wrong password and an unknown name get the same 401 `sign_in_failed`, in
/// the same time. An address gets `server.sign_ins_per_minute` (10) a minute, in bursts of
/// `server.sign_in_burst` (10); past that 429 `rate_limited` with `Retry-After`.
#[utoipa::path(
    tag = "players",
    request_body = SignInRequest,
    responses(
        (status = 200, body = Grant),
        (status = 401, description = "sign_in_failed: the name or the password is wrong", body = ErrorBody),
        (status = 429, description = "rate_limited: too many sign-ins from this address", body = ErrorBody),
    )
)]
#[post("/auth/sign-in")]
pub async fn sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    Body(body): Body<SignInRequest>,
) -> Result<HttpResponse, ApiError> {
    state.signups.sign_in(&req, &state)?;
    let key = policy::device_key_hash(body.device_key.as_deref())?;
    let name = body.name.trim().to_owned();
    let candidates = if policy::worth_looking_up(&name, &body.password) {
        let store = state.store.clone();
        store::blocking(move || store.password_holders(&name)).await?
    } else {
        Vec::new()
    };
    let user = state
        .passwords
        .open(candidates, body.password)
        .await?
        .ok_or(AccountError::SignInFailed)?;
    let label = label(body.device.as_deref(), &req);
    Ok(HttpResponse::Ok().json(grant(&state, &user, label, key).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HotelRequest {
    /// A token of the hotel's identity provider, for this lounge (its audience).
    token: String,
    /// The name to take at the first visit, instead of the hotel's (`name`,
    /// `preferred_username`): when that one is not allowed or is another guest's.
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    device: Option<String>,
    /// As at `/auth/sign-in`.
    #[serde(default)]
    device_key: Option<String>,
}

/// Signs in a guest the hotel knows, with the hotel's token: one lounge user per hotel account
/// (made at the first visit, with welcome coins and an apartment).
///
/// Body: `{"token", "name"?, "device"?, "device_key"?}`. A guest the hotel knows, with a token of the hotel's
/// identity provider (`[auth.hotel]`): RS256 or EdDSA, checked against the configured public
/// keys, `iss` and `aud` pinned, unexpired, not before its `nbf` nor issued (`iat`) later than
/// now (5 s of leeway each, on the service's clock), and a `sub` that is not empty. 201 a grant
/// for a new lounge user (welcome coins and an apartment, named from the body's `name` when
/// given, else the token's `name` or `preferred_username`; 409 `name_taken` or `name_reserved`
/// when that name is another's: send another as `name`), 200 for one seen before: one lounge
/// user per hotel account (`iss` and `sub`). A first visit is a sign-up: it counts against the
/// address's sign-ups (429 `rate_limited`) and takes its turn at the database. Two first visits
/// at once make one user. 401 `sign_in_failed` for any token refused (HS256 included); 400
/// `invalid_name` with no usable name; 404 when not configured.
#[utoipa::path(
    tag = "players",
    request_body = HotelRequest,
    responses(
        (status = 200, description = "a guest seen before", body = Grant),
        (status = 201, description = "a new guest", body = Grant),
        (status = 400, description = "invalid_name: no usable name", body = ErrorBody),
        (status = 401, description = "sign_in_failed: the hotel's token is not valid", body = ErrorBody),
        (status = 404, description = "the hotel's sign-in is not configured", body = ErrorBody),
        (status = 409, description = "name_taken, name_reserved: send another `name`", body = ErrorBody),
        (status = 429, description = "rate_limited: too many sign-ups from this address", body = ErrorBody),
    )
)]
#[post("/auth/hotel")]
pub async fn hotel(
    req: HttpRequest,
    state: web::Data<AppState>,
    Body(body): Body<HotelRequest>,
) -> Result<HttpResponse, ApiError> {
    let idp = state
        .hotel_idp
        .clone()
        .ok_or_else(|| ApiError::NotFound("the hotel's sign-in is not configured".into()))?;
    let key = policy::device_key_hash(body.device_key.as_deref())?;
    let claims = idp
        .verify(body.token.trim(), state.auth.now_ms() / 1000)
        .map_err(|e| {
            tracing::debug!(error = %e, "a hotel token refused");
            ApiError::Denied {
                code: ErrorCode::SignInFailed,
                message: "the hotel's token is not valid".into(),
            }
        })?;
    let (iss, sub) = (claims.iss.clone(), claims.sub.clone());
    let store = state.store.clone();
    let known = store::blocking(move || store.hotel_account(&iss, &sub)).await?;
    let label = label(body.device.as_deref(), &req);
    if let Some(user) = known {
        // A guest seen before: whatever the hotel calls them now, they are who they were.
        let store = state.store.clone();
        let again = user.clone();
        // Every visit, in case the first one stopped short of it.
        store::blocking(move || store.ensure_apartment(&again).map(|_| ())).await?;
        return Ok(HttpResponse::Ok().json(grant(&state, &user, label, key).await?));
    }
    // The guest's own choice first: it is how they answer `name_taken` for the hotel's name.
    let name = policy::first_name([
        body.name.as_deref(),
        claims.name.as_deref(),
        claims.preferred_username.as_deref(),
    ])?;
    let fresh = UserRow {
        id: store::new_id().into(),
        name: name.to_string(),
        house: false,
        created_at: store::at_ms(state.clock.now_ms()),
    };
    let (store, grant_coins, now) = (
        state.store.clone(),
        state.welcome_coins,
        state.auth.now_ms(),
    );
    // A new user mints coins and an apartment: a sign-up, limited and in turn as one.
    let _turn = state.signups.turn(&req, &state).await?;
    let (user, new) = store::blocking(move || {
        let made = store.hotel_user(&claims.iss, &claims.sub, &fresh, grant_coins, now);
        let (user, new) = match made {
            // Two first visits at once: the other one made the user.
            Err(e @ (StoreError::NameTaken(_) | StoreError::Conflict(_))) => {
                match store.hotel_account(&claims.iss, &claims.sub)? {
                    Some(user) => (user, false),
                    None => return Err(e),
                }
            }
            made => made?,
        };
        store.ensure_apartment(&user)?;
        Ok((user, new))
    })
    .await?;
    let granted = grant(&state, &user, label, key).await?;
    Ok(if new {
        HttpResponse::Created().json(granted)
    } else {
        HttpResponse::Ok().json(granted)
    })
}

/// The label a guest's first device gets.
pub fn guest_label(given: Option<&str>, req: &HttpRequest) -> String {
    label(given, req)
}
