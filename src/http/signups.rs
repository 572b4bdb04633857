//! Sign-ups (`POST /api/v1/auth/guest`) are cheap to ask for and dear to serve: each writes a
//! user, welcome coins and an apartment. An address gets a few a minute, and sign-ups take
//! turns at the database so games in play always find a connection.

use std::net::IpAddr;
use std::time::Duration;

use actix_web::HttpRequest;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::error::ApiError;
use super::pace::Buckets;
use super::AppState;
use crate::common::ErrorCode;

pub struct Signups {
    per_address: Buckets<IpAddr>,
    /// Password sign-ins per address: each is an argon2 hash, and a guess.
    sign_ins: Buckets<IpAddr>,
    /// Sign-ups writing at once: the rest of the pool is left to games.
    writers: Semaphore,
}

impl Signups {
    /// `per_minute` from one address on average, `burst` at once; `writers` at the database
    /// at once.
    pub fn new(
        per_minute: f64,
        burst: f64,
        writers: usize,
        sign_ins_per_minute: f64,
        sign_in_burst: f64,
    ) -> Signups {
        Signups {
            per_address: Buckets::new(per_minute / 60.0, burst.max(1.0)),
            sign_ins: Buckets::new(sign_ins_per_minute / 60.0, sign_in_burst.max(1.0)),
            writers: Semaphore::new(writers.max(1)),
        }
    }

    /// The sign-up's turn at the database, if its address has one left (429 `rate_limited`
    /// with `Retry-After` if not). Hold it while writing.
    pub async fn turn(
        &self,
        req: &HttpRequest,
        state: &AppState,
    ) -> Result<SemaphorePermit<'_>, ApiError> {
        take(&self.per_address, "sign-ups", req, state)?;
        self.writers
            .acquire()
            .await
            .map_err(|_| ApiError::Unavailable("the service is stopping".into()))
    }

    /// Whether a password sign-in from this address may go on (429 `rate_limited` with
    /// `Retry-After` if not).
    pub fn sign_in(&self, req: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
        take(&self.sign_ins, "sign-ins", req, state)
    }
}

fn take(
    buckets: &Buckets<IpAddr>,
    what: &str,
    req: &HttpRequest,
    state: &AppState,
) -> Result<(), ApiError> {
    let Some(address) = state.proxies.client_of(req) else {
        return Ok(());
    };
    buckets
        .take(address, state.ticker.now_ms())
        .map_err(|wait| ApiError::TooMany {
            code: ErrorCode::RateLimited,
            message: format!(
                "too many {what} from this address; try again in {} s",
                wait.as_secs().max(1)
            ),
            retry_after: Some(wait.min(Duration::from_secs(3600))),
        })
}
