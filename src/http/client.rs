//! The hotel web client, served by the binary itself (no CDN): `cargo run` and a browser are
//! all anyone needs.

use actix_web::{get, HttpResponse};

const INDEX: &str = include_str!("../../web/index.html");
const SCRIPT: &str = include_str!("../../web/app.js");
const STYLE: &str = include_str!("../../web/style.css");

/// The hotel web client.
#[utoipa::path(tag = "web", responses((status = 200, description = "the web client", content_type = "text/html")))]
#[get("/")]
pub async fn index() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(INDEX)
}

/// The web client's script.
#[utoipa::path(tag = "web", responses((status = 200, description = "JavaScript", content_type = "text/javascript")))]
#[get("/app.js")]
pub async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .body(SCRIPT)
}

/// The web client's style sheet.
#[utoipa::path(tag = "web", responses((status = 200, description = "CSS", content_type = "text/css")))]
#[get("/style.css")]
pub async fn style() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .body(STYLE)
}
