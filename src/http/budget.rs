//! Requests a second per client address: every HTTP request but the WebSocket's (its frames
//! have their own pace) and the operators' probes takes a token from its address's bucket, so
//! one address fetching a large document in a loop costs the others nothing but its share.
//! A request past the budget is answered 429 only once its next token is due (a second at
//! most): a loop that does not wait is made to, and costs a timer, not a response, each time
//! round. An address holds `server.connections_per_address` such requests at most; through a
//! trusted proxy (whose connections no such cap counts) the 429 comes at once. IPv6 clients
//! are counted by their /64 (`gate::address_key`).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, ResponseError};

use super::error::ApiError;
use super::AppState;
use crate::common::ErrorCode;

/// Paths no budget applies to: health checks a balancer polls, metrics a scraper reads, and
/// the WebSocket (admitted by its own cap, then paced frame by frame).
const FREE: [&str; 4] = ["/healthz", "/readyz", "/metrics", "/ws"];

/// The longest a request past its budget is held before its 429.
const MAX_HOLD: std::time::Duration = std::time::Duration::from_secs(1);

/// The middleware: a request past its address's budget is answered 429 `rate_limited` with
/// `Retry-After`, and goes no further.
pub async fn per_address(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if !FREE.contains(&req.path()) {
        if let Some(state) = req.app_data::<web::Data<AppState>>() {
            let address = state.proxies.client_of(req.request());
            if let Some(address) = address {
                let key = super::gate::address_key(address);
                if let Err(wait) = state.requests.take(key, state.ticker.now_ms()) {
                    crate::metrics::METRICS
                        .errors
                        .with_label_values(&[ErrorCode::RateLimited.as_str()])
                        .inc();
                    let proxied = req
                        .peer_addr()
                        .is_some_and(|peer| state.proxies.trusts(peer.ip()));
                    let hold = if proxied {
                        std::time::Duration::ZERO
                    } else {
                        wait.min(MAX_HOLD)
                    };
                    super::peer::elapse(&state.clock, hold).await;
                    let refusal = ApiError::TooMany {
                        code: ErrorCode::RateLimited,
                        message: "too many requests from this address: wait a moment".into(),
                        retry_after: Some(wait.saturating_sub(hold)),
                    };
                    let response = refusal.error_response();
                    return Ok(req.into_response(response).map_into_right_body());
                }
            }
        }
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}
