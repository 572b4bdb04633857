//! Tokens: HS256 JWTs signed with the configured secret, for players and for admins; their
//! expiry is on the server's clock, and a player token lets in only a user who exists.

use std::time::Duration;

use actix_web::HttpRequest;
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use crate::common::{ErrorCode, OperatorName, ServerClock, UserId};
use crate::config::AuthSettings;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Player,
    Admin,
}

/// Whom a token speaks for: its `role` and `sub` read together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A player token's user.
    Player(UserId),
    /// An admin token's operator.
    Operator(OperatorName),
}

impl Subject {
    pub fn role(&self) -> Role {
        match self {
            Subject::Player(_) => Role::Player,
            Subject::Operator(_) => Role::Admin,
        }
    }

    /// The `sub` claim.
    fn sub(&self) -> &str {
        match self {
            Subject::Player(id) => id.as_str(),
            Subject::Operator(name) => name.as_str(),
        }
    }
}

/// The claims of every token (`sub` and `role` read as the [`Subject`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "WireClaims", into = "WireClaims")]
pub struct Claims {
    pub subject: Subject,
    /// The display name, for players.
    pub name: String,
    pub iss: String,
    pub iat: i64,
    pub exp: i64,
    /// The device (refresh family) the token was issued to, when it was issued through one:
    /// signing out revokes this one.
    pub sid: Option<String>,
}

impl Claims {
    pub fn role(&self) -> Role {
        self.subject.role()
    }
}

/// The claims as a token carries them, field for field: tokens already issued still verify.
#[derive(Serialize, Deserialize)]
struct WireClaims {
    /// The user id (players) or the operator's name (admins).
    sub: String,
    #[serde(default)]
    name: String,
    role: Role,
    iss: String,
    iat: i64,
    exp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sid: Option<String>,
}

impl From<WireClaims> for Claims {
    fn from(wire: WireClaims) -> Claims {
        let subject = match wire.role {
            Role::Player => Subject::Player(UserId::new(wire.sub)),
            Role::Admin => Subject::Operator(OperatorName::new(wire.sub)),
        };
        Claims {
            subject,
            name: wire.name,
            iss: wire.iss,
            iat: wire.iat,
            exp: wire.exp,
            sid: wire.sid,
        }
    }
}

impl From<Claims> for WireClaims {
    fn from(claims: Claims) -> WireClaims {
        WireClaims {
            sub: claims.subject.sub().to_owned(),
            name: claims.name,
            role: claims.subject.role(),
            iss: claims.iss,
            iat: claims.iat,
            exp: claims.exp,
            sid: claims.sid,
        }
    }
}

/// Why a token was refused: a fixed message each, never the JWT library's words (those go to
/// the debug log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    Missing,
    Expired,
    NotValid,
    NoSuchUser,
}

impl From<Refused> for ApiError {
    fn from(why: Refused) -> ApiError {
        match why {
            Refused::Missing => ApiError::Unauthorized("a token is needed: sign in first".into()),
            Refused::Expired => ApiError::Denied {
                code: ErrorCode::TokenExpired,
                message: "the token has expired: refresh it or sign in again".into(),
            },
            Refused::NotValid => ApiError::Unauthorized("the token is not valid".into()),
            Refused::NoSuchUser => {
                ApiError::Unauthorized("the token's user does not exist: sign in again".into())
            }
        }
    }
}

/// Signs and checks tokens.
pub struct Auth {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    issuer: String,
    ttl: Duration,
    /// How long a device stays signed in without a refresh.
    pub refresh_ttl: Duration,
    /// The server's clock: issue and expiry read it (tests move it by hand).
    pub clock: ServerClock,
}

/// Seconds of slack on `exp` for clocks a little apart.
const LEEWAY_SECS: i64 = 5;

impl Auth {
    /// Signs with `settings.secret`, which must be set (see `AuthSettings::signing_secret`).
    pub fn new(settings: &AuthSettings) -> Result<Auth, jsonwebtoken::errors::Error> {
        if settings.secret.len() < crate::config::MIN_SECRET_BYTES {
            return Err(jsonwebtoken::errors::ErrorKind::InvalidKeyFormat.into());
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[settings.issuer.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        // `exp` is checked on the server's clock, below.
        validation.validate_exp = false;
        Ok(Auth {
            encoding: EncodingKey::from_secret(settings.secret.as_bytes())?,
            decoding: DecodingKey::from_secret(settings.secret.as_bytes())?,
            validation,
            issuer: settings.issuer.clone(),
            ttl: Duration::from_secs(settings.token_ttl_secs),
            refresh_ttl: Duration::from_secs(settings.refresh_ttl_secs),
            clock: ServerClock::System,
        })
    }

    /// The same, reading `clock`.
    pub fn with_clock(self, clock: ServerClock) -> Auth {
        Auth { clock, ..self }
    }

    /// Now on the server's clock, in milliseconds.
    pub fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    /// A token for `subject` (its role with it), valid for `ttl` (the configured one when
    /// `None`).
    pub fn issue(
        &self,
        subject: &Subject,
        name: &str,
        ttl: Option<Duration>,
    ) -> Result<String, ApiError> {
        self.issue_for(subject, name, ttl, None)
    }

    /// `issue`, for a device.
    pub fn issue_for(
        &self,
        subject: &Subject,
        name: &str,
        ttl: Option<Duration>,
        sid: Option<&str>,
    ) -> Result<String, ApiError> {
        let now = self.now_ms() / 1000;
        let ttl = i64::try_from(ttl.unwrap_or(self.ttl).as_secs()).unwrap_or(i64::MAX / 2);
        let claims = Claims {
            subject: subject.clone(),
            name: name.to_owned(),
            iss: self.issuer.clone(),
            iat: now,
            exp: now.saturating_add(ttl),
            sid: sid.map(str::to_owned),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))
    }

    /// How long an access token lasts.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The claims of a valid token: signed by us, unexpired, ours.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        let claims = decode::<Claims>(token, &self.decoding, &self.validation)
            .map(|data| data.claims)
            .map_err(|e| {
                tracing::debug!(error = %e, "a token refused");
                Refused::NotValid
            })?;
        if claims.exp.saturating_add(LEEWAY_SECS) <= self.now_ms() / 1000 {
            return Err(Refused::Expired.into());
        }
        Ok(claims)
    }

    /// The claims of the token an HTTP request carries, in `Authorization: Bearer` or in the
    /// `token` query parameter.
    pub fn from_request(&self, req: &HttpRequest) -> Result<Claims, ApiError> {
        let header = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let query = || {
            req.query_string()
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .find(|(k, _)| *k == "token")
                .map(|(_, v)| v)
        };
        let token = header
            .or_else(query)
            .filter(|t| !t.is_empty())
            .ok_or(Refused::Missing)?;
        self.verify(token)
    }
}

/// A request made with a player token whose user exists (401 without a valid token, 403 with
/// another role).
pub struct Player(pub PlayerClaims);

/// What a player token says, its user found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerClaims {
    pub id: UserId,
    /// The name as stored (a token's name may be older than the user's).
    pub name: String,
    /// The device the token was issued to, if any.
    pub sid: Option<String>,
}

/// A request made with an admin token (401 without a valid token, 403 with another role):
/// the operator it speaks for.
pub struct Admin(pub OperatorName);

fn claims_with(req: &HttpRequest, role: Role) -> Result<Claims, ApiError> {
    let state = state_of(req)?;
    let claims = state.auth.from_request(req)?;
    // A banned guest's tokens stop working at once.
    if let Some(reason) = match &claims.subject {
        Subject::Player(id) => state.banlist.reason(id),
        Subject::Operator(_) => None,
    } {
        return Err(ApiError::Banned(reason));
    }
    if claims.role() != role {
        return Err(ApiError::Forbidden(match role {
            Role::Admin => "this needs an admin token".into(),
            Role::Player => "this needs a player token".into(),
        }));
    }
    Ok(claims)
}

fn state_of(req: &HttpRequest) -> Result<&actix_web::web::Data<super::AppState>, ApiError> {
    req.app_data::<actix_web::web::Data<super::AppState>>()
        .ok_or_else(|| ApiError::Internal("no application state".into()))
}

/// The claims of a player token whose user exists, with the name as stored (a token's name
/// may be older than the user's, and a token for a user who is not there lets no one in).
/// One lookup by primary key.
pub async fn player(req: &HttpRequest) -> Result<PlayerClaims, ApiError> {
    let claims = claims_with(req, Role::Player)?;
    // The role was checked: a player token's subject is a user.
    let Subject::Player(id) = claims.subject else {
        return Err(Refused::NotValid.into());
    };
    let name = stored_player(state_of(req)?, &id).await?;
    Ok(PlayerClaims {
        id,
        name,
        sid: claims.sid,
    })
}

/// Whom a player or an admin token speaks for: a player's user found (as `player` finds
/// it), a banned guest refused.
pub async fn subject(req: &HttpRequest) -> Result<Subject, ApiError> {
    let state = state_of(req)?;
    let claims = state.auth.from_request(req)?;
    match claims.subject {
        Subject::Player(_) => Ok(Subject::Player(player(req).await?.id)),
        operator @ Subject::Operator(_) => Ok(operator),
    }
}

/// The stored name of player `id`; 401 when there is no such player (or it is Baba Ayo).
pub async fn stored_player(state: &super::AppState, id: &UserId) -> Result<String, ApiError> {
    let (store, id) = (state.store.clone(), id.clone());
    match crate::store::blocking(move || store.user(&id)).await? {
        Some(user) if !user.house => Ok(user.name),
        _ => Err(Refused::NoSuchUser.into()),
    }
}

impl actix_web::FromRequest for Player {
    type Error = ApiError;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Player, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { player(&req).await.map(Player) })
    }
}

impl actix_web::FromRequest for Admin {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Admin, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(
            claims_with(req, Role::Admin).and_then(|claims| match claims.subject {
                Subject::Operator(name) => Ok(Admin(name)),
                Subject::Player(_) => Err(Refused::NotValid.into()),
            }),
        )
    }
}
