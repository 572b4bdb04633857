//! The HTTP face of the service: routes, auth, WebSocket sessions, errors. Handlers are thin:
//! they check input and hand over to the store or the world.

pub mod auth;
pub mod error;
mod ws;

use std::sync::Arc;

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::store::{self, Store, UserRow};
use crate::world::{User, UserName, World};
use auth::{Auth, Role};
use error::{bad_json, ApiError};

pub use ws::MAX_FRAME_BYTES;

/// What every handler may reach.
pub struct AppState {
    pub store: Store,
    pub world: World,
    pub auth: Arc<Auth>,
    /// Messages a second a WebSocket client may send, and in a burst.
    pub ws_rate: (f64, f64),
}

/// Every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(16 * 1024)
            .error_handler(|e, _| bad_json(e)),
    )
    .app_data(web::QueryConfig::default().error_handler(|e, _| bad_json(e)))
    .route("/healthz", web::get().to(healthz))
    .route("/readyz", web::get().to(readyz))
    .route("/metrics", web::get().to(metrics))
    .route("/ws", web::get().to(ws::connect))
    .service(
        web::scope("/api/v1")
            .route("/auth/guest", web::post().to(guest))
            .route("/rooms", web::get().to(rooms)),
    )
    .default_service(web::to(|| async {
        Err::<HttpResponse, _>(ApiError::NotFound("no such endpoint".into()))
    }));
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// Prometheus metrics.
async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let m = &*crate::metrics::METRICS;
    m.occupants
        .set(state.world.rooms().map(|r| r.occupants() as i64).sum());
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(m.render())
}

/// Ready when the database answers.
async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let store = state.store.clone();
    if web::block(move || store.ping()).await? {
        Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
    } else {
        Err(ApiError::Unavailable("the database does not answer".into()))
    }
}

#[derive(Deserialize)]
struct GuestRequest {
    name: String,
}

/// Makes a user with an avatar and returns a player token.
async fn guest(
    state: web::Data<AppState>,
    body: web::Json<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let name = UserName::parse(&body.name).map_err(|e| ApiError::BadRequest {
        code: "invalid_name",
        message: e.to_string(),
    })?;
    let row = UserRow {
        id: store::new_id(),
        name: name.to_string(),
        house: false,
        created_at: store::now(),
    };
    let store = state.store.clone();
    let stored = row.clone();
    web::block(move || store.insert_user(&stored)).await??;
    let token = state.auth.issue(&row.id, &row.name, Role::Player, None)?;
    let user = User {
        id: row.id,
        name: row.name,
        house: false,
    };
    Ok(HttpResponse::Created().json(json!({"token": token, "user": user})))
}

/// The rooms with their tables and how many are in each.
async fn rooms(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut rooms = Vec::new();
    for handle in state.world.rooms() {
        rooms.push(
            handle
                .summary()
                .await
                .ok_or_else(|| ApiError::Internal(format!("room {} is gone", handle.info.id)))?,
        );
    }
    Ok(HttpResponse::Ok().json(json!({"rooms": rooms})))
}
