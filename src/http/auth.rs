//! Tokens: HS256 JWTs signed with the configured secret, for players and for admins.

use std::time::Duration;

use actix_web::HttpRequest;
use chrono::Utc;
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use crate::config::AuthSettings;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Player,
    Admin,
}

/// The claims of every token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The user id (players) or the operator's name (admins).
    pub sub: String,
    /// The display name, for players.
    #[serde(default)]
    pub name: String,
    pub role: Role,
    pub iss: String,
    pub iat: i64,
    pub exp: i64,
}

/// Signs and checks tokens.
pub struct Auth {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    issuer: String,
    ttl: Duration,
}

impl Auth {
    pub fn new(settings: &AuthSettings) -> Result<Auth, jsonwebtoken::errors::Error> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[settings.issuer.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        validation.leeway = 5;
        Ok(Auth {
            encoding: EncodingKey::from_secret(settings.secret.as_bytes())?,
            decoding: DecodingKey::from_secret(settings.secret.as_bytes())?,
            validation,
            issuer: settings.issuer.clone(),
            ttl: Duration::from_secs(settings.token_ttl_secs),
        })
    }

    /// A token for `sub` with `role`, valid for `ttl` (the configured one when `None`).
    pub fn issue(
        &self,
        sub: &str,
        name: &str,
        role: Role,
        ttl: Option<Duration>,
    ) -> Result<String, ApiError> {
        let now = Utc::now().timestamp();
        let ttl = i64::try_from(ttl.unwrap_or(self.ttl).as_secs()).unwrap_or(i64::MAX / 2);
        let claims = Claims {
            sub: sub.to_owned(),
            name: name.to_owned(),
            role,
            iss: self.issuer.clone(),
            iat: now,
            exp: now.saturating_add(ttl),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))
    }

    /// The claims of a valid token: signed by us, unexpired, ours.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        decode::<Claims>(token, &self.decoding, &self.validation)
            .map(|data| data.claims)
            .map_err(|e| ApiError::Unauthorized(format!("the token is not valid: {e}")))
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
            .ok_or_else(|| ApiError::Unauthorized("a token is needed: sign in first".into()))?;
        self.verify(token)
    }
}

/// A request made with a player token (401 without a valid token, 403 with another role).
pub struct Player(pub Claims);

/// A request made with an admin token (401 without a valid token, 403 with another role).
pub struct Admin(pub Claims);

fn claims_with(req: &HttpRequest, role: Role) -> Result<Claims, ApiError> {
    let state = req
        .app_data::<actix_web::web::Data<super::AppState>>()
        .ok_or_else(|| ApiError::Internal("no application state".into()))?;
    let claims = state.auth.from_request(req)?;
    // A banned guest's tokens stop working at once.
    if let Some(reason) = (claims.role == Role::Player)
        .then(|| state.banlist.reason(&claims.sub))
        .flatten()
    {
        return Err(ApiError::Banned(reason));
    }
    if claims.role != role {
        return Err(ApiError::Forbidden(match role {
            Role::Admin => "this needs an admin token".into(),
            Role::Player => "this needs a player token".into(),
        }));
    }
    Ok(claims)
}

impl actix_web::FromRequest for Player {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Player, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(claims_with(req, Role::Player).map(Player))
    }
}

impl actix_web::FromRequest for Admin {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Admin, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(claims_with(req, Role::Admin).map(Admin))
    }
}
