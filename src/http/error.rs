//! Errors as clients see them: `{"error": {"code", "message"}}` with a fitting status, and
//! `"field"` naming the input field at fault on a 400.

use crate::common::ErrorCode;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;
use thiserror::Error;

use crate::store::{ShopError, StoreError};
use crate::world::account::AccountError;
use crate::world::{HotelError, OpenError};

#[derive(Debug, Error)]
pub enum ApiError {
    #[error("{message}")]
    BadRequest { code: ErrorCode, message: String },
    /// A field of the input is wrong (400, `invalid_field`).
    #[error("`{field}`: {message}")]
    Invalid { field: String, message: String },
    #[error("{0}")]
    Unauthorized(String),
    /// A 401 with its own code (an expired token, a refresh credential refused).
    #[error("{message}")]
    Denied { code: ErrorCode, message: String },
    #[error("{0}")]
    Forbidden(String),
    /// The guest is banned (403, `banned`).
    #[error("you are banned: {0}")]
    Banned(String),
    #[error("{0}")]
    NotFound(String),
    /// The request clashes with the state of things (409).
    #[error("{message}")]
    Conflict { code: ErrorCode, message: String },
    /// Too many requests or connections from one client (429, with `Retry-After` when known).
    #[error("{message}")]
    TooMany {
        code: ErrorCode,
        message: String,
        retry_after: Option<std::time::Duration>,
    },
    /// The request's body did not arrive in time (408, `request_timeout`; the connection
    /// closes).
    #[error("{0}")]
    TooSlow(String),
    #[error("the service is not ready: {0}")]
    Unavailable(String),
    #[error("something went wrong on our side")]
    Internal(String),
}

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::BadRequest { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Denied { code, .. } => *code,
            ApiError::TooMany { code, .. } => *code,
            ApiError::Invalid { .. } => ErrorCode::InvalidField,
            ApiError::Unauthorized(_) => ErrorCode::Unauthorized,
            ApiError::Forbidden(_) => ErrorCode::Forbidden,
            ApiError::Banned(_) => ErrorCode::Banned,
            ApiError::NotFound(_) => ErrorCode::NotFound,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::TooSlow(_) => ErrorCode::RequestTimeout,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// A 400 naming `field`.
    pub fn invalid(field: &str, message: impl Into<String>) -> ApiError {
        ApiError::Invalid {
            field: field.to_owned(),
            message: message.into(),
        }
    }

    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError::Conflict {
            code,
            message: message.into(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => ApiError::NotFound(format!("not found: {what}")),
            StoreError::NameTaken(_) => ApiError::conflict(ErrorCode::NameTaken, e.to_string()),
            StoreError::NameReserved(_) => {
                ApiError::conflict(ErrorCode::NameReserved, e.to_string())
            }
            StoreError::Conflict(what) => {
                ApiError::conflict(ErrorCode::Conflict, format!("already exists: {what}"))
            }
            e => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<OpenError> for ApiError {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Store(e) => e.into(),
            // Redis away, or the room between owners: worth another try.
            e @ (OpenError::Lease(_) | OpenError::Elsewhere(_)) => {
                ApiError::Unavailable(e.to_string())
            }
        }
    }
}

impl From<ShopError> for ApiError {
    fn from(e: ShopError) -> Self {
        let message = e.to_string();
        match e {
            ShopError::NoSuchItem(_) | ShopError::NoSuchUser(_) => ApiError::NotFound(message),
            ShopError::NotOnSale(_) => ApiError::conflict(ErrorCode::NotOnSale, message),
            ShopError::OutOfStock(_) => ApiError::conflict(ErrorCode::OutOfStock, message),
            ShopError::InsufficientCoins { .. } => {
                ApiError::conflict(ErrorCode::InsufficientCoins, message)
            }
            ShopError::KeyReused(_) => ApiError::conflict(ErrorCode::IdempotencyKeyReused, message),
            ShopError::Store(e) => e.into(),
        }
    }
}

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> Self {
        let message = e.to_string();
        match e {
            AccountError::Password => ApiError::invalid("password", message),
            AccountError::DeviceKey => ApiError::invalid("device_key", message),
            AccountError::SignInFailed
            | AccountError::RefreshReused
            | AccountError::RefreshInvalid => ApiError::Denied {
                code: e.code(),
                message,
            },
            AccountError::NoName => ApiError::BadRequest {
                code: e.code(),
                message,
            },
            AccountError::Randomness(_) => ApiError::Internal(message),
        }
    }
}

impl From<HotelError> for ApiError {
    fn from(e: HotelError) -> Self {
        match e {
            HotelError::Gone => ApiError::NotFound("the room is closed".into()),
            HotelError::Invalid { field, message } => ApiError::invalid(field, message),
            HotelError::Store(StoreError::Fenced { .. }) => ApiError::Unavailable(
                "that room is moving to another server; try again in a moment".into(),
            ),
            HotelError::Store(e) => e.into(),
            HotelError::Open(e) => e.into(),
            HotelError::Relayed {
                code,
                field,
                message,
            } => match code {
                ErrorCode::NotFound => ApiError::NotFound(message),
                ErrorCode::InvalidField => {
                    ApiError::invalid(field.as_deref().unwrap_or(""), message)
                }
                ErrorCode::Unavailable => ApiError::Unavailable(message),
                ErrorCode::Internal => ApiError::Internal(message),
                code => ApiError::conflict(code, message),
            },
            e => match e.code() {
                ErrorCode::NotFound => ApiError::NotFound(e.to_string()),
                code => ApiError::conflict(code, e.to_string()),
            },
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        ApiError::Internal(e.to_string())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } | ApiError::Invalid { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) | ApiError::Denied { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::Banned(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::TooSlow(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(detail) = self {
            // The detail is for operators, not clients.
            tracing::error!(%detail, "internal error");
        }
        let mut error = json!({"code": self.code(), "message": self.to_string()});
        if let ApiError::Invalid { field, .. } = self {
            error["field"] = field.clone().into();
        }
        if matches!(self, ApiError::Unauthorized(_) | ApiError::Denied { .. }) {
            return HttpResponse::build(self.status_code())
                .insert_header(("WWW-Authenticate", "Bearer"))
                .json(json!({ "error": error }));
        }
        if let ApiError::TooMany {
            retry_after: Some(wait),
            ..
        } = self
        {
            // Whole seconds, rounded up: a client that waits that long gets through.
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            return HttpResponse::build(self.status_code())
                .insert_header(("Retry-After", secs.max(1).to_string()))
                .json(json!({ "error": error }));
        }
        if let ApiError::TooSlow(_) = self {
            // The rest of the body may still be coming: nothing more is read on this one.
            return HttpResponse::build(self.status_code())
                .insert_header(("Connection", "close"))
                .json(json!({ "error": error }));
        }
        HttpResponse::build(self.status_code()).json(json!({ "error": error }))
    }
}

/// The error body, as the OpenAPI document shows it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// A stable code, e.g. `insufficient_coins`, `invalid_field`, `not_found`.
    pub code: String,
    pub message: String,
    /// The input field at fault, on `invalid_field`.
    pub field: Option<String>,
}

/// Malformed JSON bodies and query strings answer in the same shape.
pub fn bad_json(err: impl std::fmt::Display) -> actix_web::Error {
    ApiError::BadRequest {
        code: ErrorCode::BadRequest,
        message: err.to_string(),
    }
    .into()
}
