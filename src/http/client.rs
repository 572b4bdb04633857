//! The hotel web client, served by the binary itself (no CDN, no build step): `cargo run` and
//! a browser are all anyone needs. The script is a set of ES modules under `/js/`.
//!
//! Working on the client, `LOUNGE_WEB_DIR=web` serves the files from that folder as they are
//! on disk (the same names only), so a change shows at the next reload without a rebuild.

use actix_web::{get, http::header, web, HttpResponse};

use super::error::ApiError;

const INDEX: &str = include_str!("../../web/index.html");
const STYLE: &str = include_str!("../../web/style.css");
const FAVICON: &str = include_str!("../../web/favicon.svg");

/// The client's modules, by file name (`web/js/`).
const MODULES: &[(&str, &str)] = &[
    ("main.js", include_str!("../../web/js/main.js")),
    ("state.js", include_str!("../../web/js/state.js")),
    ("connection.js", include_str!("../../web/js/connection.js")),
    ("room.js", include_str!("../../web/js/room.js")),
    ("board.js", include_str!("../../web/js/board.js")),
    ("sowing.js", include_str!("../../web/js/sowing.js")),
    ("match.js", include_str!("../../web/js/match.js")),
    ("home.js", include_str!("../../web/js/home.js")),
    ("shop.js", include_str!("../../web/js/shop.js")),
    ("me.js", include_str!("../../web/js/me.js")),
    ("rules.js", include_str!("../../web/js/rules.js")),
    ("ui.js", include_str!("../../web/js/ui.js")),
    ("pages.js", include_str!("../../web/js/pages.js")),
    ("history.js", include_str!("../../web/js/history.js")),
    ("friends.js", include_str!("../../web/js/friends.js")),
    ("replay.js", include_str!("../../web/js/replay.js")),
    ("review.js", include_str!("../../web/js/review.js")),
    ("profile.js", include_str!("../../web/js/profile.js")),
    ("queue.js", include_str!("../../web/js/queue.js")),
    ("seek.js", include_str!("../../web/js/seek.js")),
    ("arena.js", include_str!("../../web/js/arena.js")),
];

/// `built_in`, or the file `name` of `LOUNGE_WEB_DIR` when that is set (see the module notes).
fn asset(name: &str, built_in: &'static str) -> String {
    match std::env::var_os("LOUNGE_WEB_DIR") {
        Some(dir) => std::fs::read_to_string(std::path::Path::new(&dir).join(name))
            .unwrap_or_else(|_| built_in.to_owned()),
        None => built_in.to_owned(),
    }
}

/// The hotel web client.
///
/// The hotel web client, served by the binary: the page, its ES modules (`main.js` and those it
/// imports; an unknown one is 404), its style sheet and icon.
#[utoipa::path(tag = "web", responses((status = 200, description = "the web client", content_type = "text/html")))]
#[get("/")]
pub async fn index() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(asset("index.html", INDEX))
}

/// One of the web client's modules.
///
/// `module` is a file name under `web/js/` (`main.js` and those it imports), served as
/// JavaScript; any other name is 404 `not_found`.
#[utoipa::path(
    tag = "web",
    params(("module" = String, Path, description = "a module's file name, such as main.js")),
    responses(
        (status = 200, description = "JavaScript (an ES module)", content_type = "text/javascript"),
        (status = 404, description = "no such module")
    )
)]
#[get("/js/{module}")]
pub async fn module(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    match MODULES.iter().find(|(file, _)| *file == name.as_str()) {
        Some((_, text)) => Ok(HttpResponse::Ok()
            .content_type("text/javascript; charset=utf-8")
            // Modules of one build go together: a browser asks again each time (an ETag-less
            // revalidation costs a few kilobytes) rather than mix two versions.
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .body(asset(&format!("js/{name}"), text))),
        None => Err(ApiError::NotFound(format!("no such module: {name}"))),
    }
}

/// The web client's style sheet.
///
/// `web/style.css` as built into the binary (or read from `LOUNGE_WEB_DIR` when set).
#[utoipa::path(tag = "web", responses((status = 200, description = "CSS", content_type = "text/css")))]
#[get("/style.css")]
pub async fn style() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .body(asset("style.css", STYLE))
}

/// The hotel's icon, for the browser's tab.
///
/// `web/favicon.svg` as built into the binary (or read from `LOUNGE_WEB_DIR` when set).
#[utoipa::path(tag = "web", responses((status = 200, description = "SVG", content_type = "image/svg+xml")))]
#[get("/favicon.svg")]
pub async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header((header::CACHE_CONTROL, "max-age=86400"))
        .body(FAVICON)
}
