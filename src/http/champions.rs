//! Today's champions: the wall, past days, the live stream the lounge display follows, the
//! house board, and the display page itself.

use std::time::Duration;

use actix_web::{get, web, HttpResponse};
use futures_util::stream;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use super::error::{ApiError, ErrorBody};
use super::AppState;
use crate::champions::{parse_day, HouseBoard, UncountedView, WallView, DEFAULT_LIMIT};
use crate::common::ErrorCode;

/// The display page, served by the binary (no CDN).
const DISPLAY: &str = include_str!("../../web/champions.html");
/// A comment line this often keeps proxies from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[derive(Deserialize, IntoParams)]
pub struct Limit {
    /// Entries, 1 to 100 (10 when absent).
    #[param(value_type = Option<u32>)]
    pub limit: Option<String>,
}

impl Limit {
    fn get(&self) -> Result<usize, ApiError> {
        super::input::limit(self.limit.as_deref(), DEFAULT_LIMIT)
    }
}

/// Today's champions wall: wins between people today (the hotel's day), most wins first,
/// then most seeds in those wins, then whoever got there first.
///
/// Today's wall (the hotel's day): most wins first, then most seeds in those wins, then who got
/// there first.
///
/// A wall body is `{"date": "YYYY-MM-DD", "timezone", "entries": [{"rank", "user": {"id",
/// "name"}, "wins", "seeds"}]}`. `limit` is 1 to 100 (10 when absent). An uncounted body is
/// `{"date", "timezone", "entries": [{"user", "wins", "reasons": {reason: n}}]}`, the day's
/// wins between people that did not count, a winner a line, most first.
#[utoipa::path(
    tag = "champions",
    params(Limit),
    responses((status = 200, body = WallView), (status = 400, body = ErrorBody))
)]
#[get("/champions/today")]
pub async fn today(
    state: web::Data<AppState>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.get()?;
    let champions = &state.champions;
    let wall = champions.standings(champions.today(), limit).await?;
    Ok(HttpResponse::Ok().json(wall))
}

/// The wall as it is, then again each time it changes (a counting game ended) and at
/// midnight when a new day starts empty: server-sent events named `wall`, each a wall body.
///
/// Server-sent events named `wall`, each a wall body: one at once, then one whenever the top of
/// the wall changes and at midnight (the new day, empty). A comment line every 15 s keeps it
/// open; it ends when the service stops.
///
/// A wall body is `{"date": "YYYY-MM-DD", "timezone", "entries": [{"rank", "user": {"id",
/// "name"}, "wins", "seeds"}]}`. `limit` is 1 to 100 (10 when absent). An uncounted body is
/// `{"date", "timezone", "entries": [{"user", "wins", "reasons": {reason: n}}]}`, the day's
/// wins between people that did not count, a winner a line, most first.
#[utoipa::path(
    tag = "champions",
    params(Limit),
    responses(
        (status = 200, description = "text/event-stream of `wall` events", content_type = "text/event-stream"),
        (status = 400, body = ErrorBody),
    )
)]
#[get("/champions/stream")]
pub async fn live(
    req: actix_web::HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.get()?;
    // Held as long as the stream is: its address's share of streams.
    let held = match state.proxies.client_of(&req) {
        Some(address) => Some(state.streams.hold(address).ok_or_else(|| {
            crate::metrics::METRICS
                .connections_refused
                .with_label_values(&["streams"])
                .inc();
            ApiError::TooMany {
                code: ErrorCode::TooManyConnections,
                message: format!(
                    "{} streams are open from this address already; close one first",
                    state.streams.per_address()
                ),
                retry_after: None,
            }
        })?),
        None => None,
    };
    let champions = state.champions.clone();
    let follower = Display {
        updates: champions.subscribe(),
        stopping: champions.stopping(),
        champions,
        clock: state.clock.clone(),
        _held: held,
        first: true,
    };
    let events = stream::unfold(follower, move |mut f| async move {
        if !f.first {
            // The keep-alive also finds out that a display went away (its write fails), which
            // ends the stream and lets go of its place among its address's streams.
            let woke = tokio::select! {
                // The service stops: the stream ends, so shutting down does not wait.
                _ = f.stopping.wait_for(|stop| *stop) => return None,
                woke = f.updates.recv() => Ok(woke),
                _ = super::peer::elapse(&f.clock, KEEP_ALIVE) => Err(()),
            };
            match woke {
                Err(()) => {
                    let ping = web::Bytes::from_static(b": still here\n\n");
                    return Some((Ok::<_, actix_web::Error>(ping), f));
                }
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return None,
                // Lagged or told: either way the wall is read afresh.
                Ok(_) => {}
            }
        }
        f.first = false;
        let now = f.champions.today();
        let frame = match f.champions.standings(now, limit).await {
            Ok(wall) => format!(
                "event: wall\ndata: {}\n\n",
                serde_json::to_string(&wall).unwrap_or_default()
            ),
            Err(e) => {
                tracing::error!(error = %e, "reading the wall for a display");
                ": the wall is not readable now\n\n".to_owned()
            }
        };
        Some((Ok(web::Bytes::from(frame)), f))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}

/// One display following the wall: what its stream waits on, and its place among its
/// address's streams, held as long as the stream is.
struct Display {
    champions: std::sync::Arc<crate::champions::Champions>,
    updates: tokio::sync::broadcast::Receiver<()>,
    stopping: tokio::sync::watch::Receiver<bool>,
    clock: crate::common::ServerClock,
    _held: Option<super::gate::Held>,
    /// Nothing sent yet: the wall as it is goes first.
    first: bool,
}

/// A past day's wall (`YYYY-MM-DD`, the hotel's day).
///
/// A past day's wall. A bad date: 400 `invalid_field` (`date`).
///
/// A wall body is `{"date": "YYYY-MM-DD", "timezone", "entries": [{"rank", "user": {"id",
/// "name"}, "wins", "seeds"}]}`. `limit` is 1 to 100 (10 when absent). An uncounted body is
/// `{"date", "timezone", "entries": [{"user", "wins", "reasons": {reason: n}}]}`, the day's
/// wins between people that did not count, a winner a line, most first.
#[utoipa::path(
    tag = "champions",
    params(("date" = String, Path, description = "YYYY-MM-DD"), Limit),
    responses((status = 200, body = WallView), (status = 400, body = ErrorBody))
)]
#[get("/champions/{date}")]
pub async fn past_day(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let day = parse_day(&path).ok_or_else(|| ApiError::invalid("date", "a date as YYYY-MM-DD"))?;
    let limit = query.get()?;
    let wall = state.champions.standings(day, limit).await?;
    Ok(HttpResponse::Ok().json(wall))
}

/// Today's wins between people that did not count for the wall, a winner a line (most first),
/// with how many for each reason.
///
/// Today's wins that did not count, and why (an uncounted body).
///
/// A wall body is `{"date": "YYYY-MM-DD", "timezone", "entries": [{"rank", "user": {"id",
/// "name"}, "wins", "seeds"}]}`. `limit` is 1 to 100 (10 when absent). An uncounted body is
/// `{"date", "timezone", "entries": [{"user", "wins", "reasons": {reason: n}}]}`, the day's
/// wins between people that did not count, a winner a line, most first.
#[utoipa::path(
    tag = "champions",
    params(Limit),
    responses((status = 200, body = UncountedView), (status = 400, body = ErrorBody))
)]
#[get("/champions/today/uncounted")]
pub async fn uncounted_today(
    state: web::Data<AppState>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.get()?;
    let champions = &state.champions;
    let view = champions.uncounted(champions.today(), limit).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// A past day's wins that did not count (`YYYY-MM-DD`, the hotel's day).
///
/// A past day's. A bad date: 400 `invalid_field` (`date`).
///
/// A wall body is `{"date": "YYYY-MM-DD", "timezone", "entries": [{"rank", "user": {"id",
/// "name"}, "wins", "seeds"}]}`. `limit` is 1 to 100 (10 when absent). An uncounted body is
/// `{"date", "timezone", "entries": [{"user", "wins", "reasons": {reason: n}}]}`, the day's
/// wins between people that did not count, a winner a line, most first.
#[utoipa::path(
    tag = "champions",
    params(("date" = String, Path, description = "YYYY-MM-DD"), Limit),
    responses((status = 200, body = UncountedView), (status = 400, body = ErrorBody))
)]
#[get("/champions/{date}/uncounted")]
pub async fn uncounted_of(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let day = parse_day(&path).ok_or_else(|| ApiError::invalid("date", "a date as YYYY-MM-DD"))?;
    let limit = query.get()?;
    let view = state.champions.uncounted(day, limit).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// What makes a win count for the wall, as the hotel is configured: the client and the
/// display say the rule where it applies.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RulesView {
    /// Counted wins over one opponent a day.
    pub per_opponent_cap: u32,
    /// Moves each side must have made.
    pub min_moves: u32,
    /// An account is new until it is this old (seconds)...
    pub new_account_secs: u64,
    /// ...or has played this many games against people.
    pub new_account_games: u32,
}

/// The wall's rules.
///
/// What makes a win count, as configured: `{"per_opponent_cap", "min_moves",
/// "new_account_secs", "new_account_games"}` (`[champions]`); the web client and the display
/// word the rule from it.
#[utoipa::path(tag = "champions", responses((status = 200, body = RulesView)))]
#[get("/champions/rules")]
pub async fn rules(state: web::Data<AppState>) -> HttpResponse {
    let rules = state.champions.rules();
    HttpResponse::Ok().json(RulesView {
        per_opponent_cap: rules.cap,
        min_moves: rules.min_moves,
        new_account_secs: rules.new_account_secs,
        new_account_games: rules.new_account_games,
    })
}

/// The house board: today's wins against Baba Ayo, one board a level, scored by the seeds
/// collected in the wins. Never on the champions wall.
///
/// Wins against Baba Ayo today, a board a level: `{"date", "timezone", "levels": {"easy":
/// [entry], "normal": [...], "champion": [...]}}`, scored by the seeds collected in the wins,
/// then wins, then first there. Never on the wall.
#[utoipa::path(
    tag = "champions",
    params(Limit),
    responses((status = 200, body = HouseBoard), (status = 400, body = ErrorBody))
)]
#[get("/house-board/today")]
pub async fn house_board(
    state: web::Data<AppState>,
    query: web::Query<Limit>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.get()?;
    let champions = &state.champions;
    let board = champions.house_board(champions.today(), limit).await?;
    Ok(HttpResponse::Ok().json(board))
}

/// The champions display for the big screen on the lounge wall.
///
/// The champions display for the big screen on the lounge wall.
#[utoipa::path(
    tag = "champions",
    responses((status = 200, description = "the display page", content_type = "text/html"))
)]
#[get("/champions")]
pub async fn display() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(DISPLAY)
}
