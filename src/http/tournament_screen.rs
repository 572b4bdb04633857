//! An arena tournament's standings for the big screen on the lounge wall, beside the
//! champions display: a page served by the binary (no CDN) that reads the tournament from
//! `GET /api/v1/tournaments/{id}` every few seconds.

use actix_web::{get, web, HttpResponse};

/// The page; it reads the tournament's id from its own address.
const SCREEN: &str = include_str!("../../web/tournament.html");

/// An arena tournament's standings for the big screen.
///
/// The page for a screen on the lounge wall: the tournament's name, status and the time to
/// its start or end, its standings (rank, name, score, a mark on a streak, games) and, once
/// it is over, its winner, read again from `GET /api/v1/tournaments/{id}` every few seconds.
/// Served for any id: the page says when there is no such tournament.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "the tournament's id")),
    responses((status = 200, description = "the display page", content_type = "text/html"))
)]
#[get("/tournaments/{id}")]
pub async fn display(_id: web::Path<String>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(SCREEN)
}
