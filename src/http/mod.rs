//! The HTTP face of the service: routes, auth, WebSocket sessions, errors. Handlers are thin:
//! they check input and hand over to the store or the world.

pub mod account;
pub mod admin;
pub mod apartments;
pub mod auth;
pub mod banlist;
mod batch;
pub mod blocks;
pub mod budget;
pub mod champions;
mod client;
pub mod connections;
pub mod error;
pub mod following;
pub mod gate;
pub mod history;
pub mod home;
pub mod hotel_idp;
pub mod input;
pub mod invitations;
pub mod notices;
pub mod pace;
mod passwords;
pub mod peer;
pub mod profiles;
pub mod records;
pub mod replay;
pub mod reviews;
pub mod signups;
pub mod tickets;
pub mod tournament_screen;
pub mod tournaments;
mod ws;

use crate::common::{ErrorCode, RoomKind};
use std::sync::Arc;

use actix_web::{get, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;
use utoipa_actix_web::{scope, AppExt};

use crate::ayo::Rules;
use crate::store::{self, Store, UserRow};
use crate::world::{UserName, World};
use auth::Auth;
use error::{bad_json, ApiError, ErrorBody};
use input::Body;

pub use ws::{WsLimits, MAX_FRAME_BYTES};

/// What every handler may reach.
pub struct AppState {
    pub store: Store,
    pub world: World,
    pub auth: Arc<Auth>,
    /// The hotel's identity provider, when its accounts may sign in.
    pub hotel_idp: Option<Arc<hotel_idp::HotelIdp>>,
    /// Password hashing, a few at a time.
    pub passwords: Arc<account::Passwords>,
    /// How fast a WebSocket client may go, and how long a write to it may take.
    pub ws: WsLimits,
    /// The guests banned, as this instance knows.
    pub banlist: banlist::Banlist,
    /// The live WebSocket connections: by user, by address.
    pub connections: connections::Connections,
    /// WebSocket tickets issued here and not yet spent.
    pub tickets: tickets::WsTickets,
    /// Whose `X-Forwarded-For` is believed.
    pub proxies: peer::Proxies,
    /// Event streams held, by client address.
    pub streams: gate::Gate,
    /// HTTP requests a second, by client address.
    pub requests: pace::Buckets<std::net::IpAddr>,
    /// How long a request's body may take to arrive.
    pub body_timeout: std::time::Duration,
    /// Sign-ups: per address, and their turns at the database.
    pub signups: signups::Signups,
    /// The time line of rate limits (a test's hand-driven clock moves it on too).
    pub ticker: pace::Ticker,
    /// The server's clock (write deadlines wait on it).
    pub clock: crate::common::ServerClock,
    /// Coins a new avatar starts with.
    pub welcome_coins: i64,
    /// Boards an apartment holds at most.
    pub max_boards: usize,
    /// Invitations home a minute, per owner.
    pub home_invitations: pace::Buckets<crate::common::UserId>,
    pub home_invitations_per_minute: u32,
    /// The rules a new table plays unless told otherwise.
    pub default_rules: Rules,
    /// Today's champions.
    pub champions: Arc<crate::champions::Champions>,
    /// Baba Ayo's reviews of finished games.
    pub reviews: Arc<crate::reviews::Reviews>,
    /// Ratings: how they are computed (what is provisional) and their reader.
    pub ratings: Arc<crate::ratings::Ratings>,
    /// Arena tournaments' standings (and their reader).
    pub tournaments: Arc<crate::tournaments::Tournaments>,
    /// The OpenAPI document, made once, and its ETag: served without a copy, and not at all
    /// to a client that has it.
    pub openapi: web::Bytes,
    pub openapi_etag: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Lagos Hotel lounge",
        description = "The lounge service behind Lagos Hotel: rooms, Ayo tables, the furniture shop, apartments, the champions wall and the admin API. What holds for every route (tokens, bodies, errors) and the WebSocket protocol are in the project's docs/protocol.md."
    ),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

/// Tokens go in `Authorization: Bearer`.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The OpenAPI document of every route, collected from the routes themselves.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, api) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    api
}

/// Every route.
pub fn routes(cfg: &mut ServiceConfig<'_>) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(input::MAX_BODY_BYTES)
            .error_handler(|e, _| bad_json(e)),
    )
    .app_data(web::QueryConfig::default().error_handler(|e, _| bad_json(e)))
    .app_data(web::PathConfig::default().error_handler(|e, _| bad_json(e)))
    .service(healthz)
    .service(readyz)
    .service(metrics)
    .service(ws::connect)
    .service(champions::display)
    .service(tournament_screen::display)
    .service(client::index)
    .service(client::module)
    .service(client::style)
    .service(client::favicon)
    .service(
        scope::scope("/api/v1")
            .service(openapi_json)
            .service(guest)
            .service(tickets::ws_ticket)
            .service(account::refresh)
            .service(account::sign_out)
            .service(account::sign_in)
            .service(account::hotel)
            .service(account::devices)
            .service(account::remove_device)
            .service(account::set_password)
            .service(rooms)
            .service(champions::today)
            .service(champions::uncounted_today)
            .service(champions::live)
            .service(champions::uncounted_of)
            // Before `/champions/{date}`, which would take `rules` for a date.
            .service(champions::rules)
            .service(champions::past_day)
            .service(champions::house_board)
            .service(history::matches_of)
            .service(history::one_match)
            .service(history::head_to_head)
            .service(reviews::ask)
            .service(reviews::get)
            .service(records::game_record)
            .service(records::games_record)
            .service(replay::one_game)
            .service(profiles::profile)
            .service(home::shop_items)
            .service(home::purchase)
            .service(home::me)
            .service(apartments::furnishings)
            .service(home::set_door)
            .service(home::add_guest)
            .service(home::remove_guest)
            .service(invitations::invite_home)
            .service(home::place_board)
            .service(home::take_up_board)
            .service(home::change_board)
            .service(admin::rooms)
            .service(admin::create_room)
            .service(admin::rename_room)
            .service(admin::close_room)
            .service(admin::add_table)
            .service(admin::change_table)
            .service(admin::remove_table)
            .service(admin::shop_items)
            .service(admin::create_item)
            .service(admin::change_item)
            .service(admin::coins)
            .service(admin::adjust_coins)
            .service(admin::audit)
            .service(admin::ban)
            .service(admin::lift_ban)
            .service(admin::set_slow_mode)
            .service(admin::mute)
            .service(admin::unmute)
            .service(admin::put_out)
            .service(admin::remove_chat_line)
            .service(blocks::blocks)
            .service(blocks::block)
            .service(blocks::unblock)
            .service(following::following)
            .service(following::follow)
            .service(following::unfollow)
            .service(following::whereabouts)
            .service(following::set_whereabouts)
            .service(tournaments::schedule)
            .service(tournaments::list)
            .service(tournaments::one)
            .service(tournaments::mine)
            .service(tournaments::join)
            .service(tournaments::leave),
    )
    .default_service(web::to(|| async {
        Err::<HttpResponse, _>(ApiError::NotFound("no such endpoint".into()))
    }));
}

/// This document.
///
/// The OpenAPI 3.1 document of every route, made once at start; with an `ETag` (304 to
/// `If-None-Match`) and `Cache-Control: max-age=3600`.
#[utoipa::path(tag = "service", responses((status = 200, description = "the OpenAPI document")))]
#[get("/openapi.json")]
async fn openapi_json(state: web::Data<AppState>, req: actix_web::HttpRequest) -> HttpResponse {
    let etag = state.openapi_etag.as_str();
    let cached = req
        .headers()
        .get(actix_web::http::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut answer = if cached {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    answer
        .insert_header((actix_web::http::header::ETAG, etag))
        .insert_header((
            actix_web::http::header::CACHE_CONTROL,
            "public, max-age=3600",
        ));
    if cached {
        return answer.finish();
    }
    answer
        .content_type("application/json")
        .body(state.openapi.clone())
}

/// Alive.
///
/// 200 `{"status": "ok"}` once it serves.
#[utoipa::path(tag = "service", responses((status = 200, description = "serving")))]
#[get("/healthz")]
async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// Prometheus metrics.
///
/// Prometheus text: `lounge_connections`, `lounge_occupants`, `lounge_rooms`,
/// `lounge_games_in_play`, `lounge_moves_total`, `lounge_errors_total{code}`.
#[utoipa::path(tag = "service", responses((status = 200, description = "Prometheus text format")))]
#[get("/metrics")]
async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let m = &*crate::metrics::METRICS;
    m.occupants.set(
        state
            .world
            .rooms()
            .iter()
            .map(|r| r.occupants() as i64)
            .sum(),
    );
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(m.render())
}

/// Ready when the database answers (and Redis, for one of several instances).
///
/// 200 `{"status": "ready"}` when the database answers (and Redis, for one of several
/// instances); 503 `unavailable` otherwise, and from the moment the instance starts stopping
/// (SIGTERM).
#[utoipa::path(tag = "service", responses((status = 200, description = "ready"), (status = 503, body = ErrorBody)))]
#[get("/readyz")]
async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    // Stopping: a balancer sends nobody new here while its rooms are handed on.
    if state.world.stopping() {
        return Err(ApiError::Unavailable("this instance is stopping".into()));
    }
    let store = state.store.clone();
    if !web::block(move || store.ping()).await? {
        return Err(ApiError::Unavailable("the database does not answer".into()));
    }
    // One of several instances needs Redis too: its rooms' leases and the relay.
    if state.world.redis_ready().await == Some(false) {
        return Err(ApiError::Unavailable("Redis does not answer".into()));
    }
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}

#[derive(Deserialize, ToSchema)]
struct GuestRequest {
    /// 2 to 24 letters (as seen; with their accents and tone marks), digits, single spaces
    /// and `-_.'`, of one script: see the protocol's Names.
    name: String,
    /// What to call this device in the player's list (default: the User-Agent).
    #[serde(default)]
    device: Option<String>,
    /// A key this browser keeps across sign-ins, as at `/auth/sign-in`.
    #[serde(default)]
    device_key: Option<String>,
}

/// Makes a user with an avatar, their welcome coins and their apartment; returns a player
/// token and this device's refresh credential.
///
/// Body: `{"name", "device"?, "device_key"?}`. 201 a **grant**: `{"token", "expires_in", "refresh", "device",
/// "user": {"id", "name"}}` (`expires_in` seconds of the token, the device's `refresh`
/// credential, the `device` id). The name follows the rules of names (docs/protocol.md):
/// otherwise 400 `invalid_name`; 409 `name_taken` when a guest has it (or a look-alike), 409
/// `name_reserved` when it is (or looks like) a house name. `user.name` is the name as stored
/// (NFKC: "Ｔｕｎｄｅ" comes back "Tunde"). The new user gets `shop.welcome_coins` (500) and an
/// apartment. An address gets `server.signups_per_minute` (5) a minute, in bursts of
/// `server.signup_burst` (5); past that 429 `rate_limited` with `Retry-After` (seconds). A name
/// refused as invalid costs no sign-up (a taken one does: it was tried). `device`: what to call
/// this device in the player's list (default: the User-Agent, cut to 64 characters).
#[utoipa::path(
    tag = "players",
    request_body = GuestRequest,
    responses(
        (status = 201, body = account::Grant),
        (status = 400, body = ErrorBody),
        (status = 409, description = "`name_taken` or `name_reserved`", body = ErrorBody),
        (status = 429, body = ErrorBody)
    )
)]
#[post("/auth/guest")]
async fn guest(
    req: actix_web::HttpRequest,
    state: web::Data<AppState>,
    Body(body): Body<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let name = UserName::parse(&body.name).map_err(|e| ApiError::BadRequest {
        code: ErrorCode::InvalidName,
        message: e.to_string(),
    })?;
    let key = crate::world::account::device_key_hash(body.device_key.as_deref())?;
    let row = UserRow {
        id: store::new_id().into(),
        name: name.to_string(),
        house: false,
        // On the server's clock, which judges how old an account is (the wall).
        created_at: store::at_ms(state.clock.now_ms()),
    };
    let store = state.store.clone();
    let stored = row.clone();
    let grant = state.welcome_coins;
    let _turn = state.signups.turn(&req, &state).await?;
    web::block(move || -> Result<(), store::StoreError> {
        store.sign_up(&stored, grant)?;
        store.ensure_apartment(&stored).map(|_| ())
    })
    .await??;
    let label = account::guest_label(body.device.as_deref(), &req);
    Ok(HttpResponse::Created().json(account::grant(&state, &row, label, key).await?))
}

#[derive(Serialize, ToSchema)]
struct RoomList {
    #[schema(value_type = Vec<Object>)]
    rooms: Vec<crate::world::RoomSummary>,
}

/// The hotel's public rooms (not apartments) with their tables and how many are in each.
///
/// `{"rooms": [{"id", "name", "kind", "owner"?, "occupants": N, "tables": [table], "seeks":
/// [{family, clock, rated, waiting}]}]}`: the public rooms, live (apartments are not listed),
/// with how many wait in each room's pool.
#[utoipa::path(tag = "players", responses((status = 200, body = RoomList)))]
#[get("/rooms")]
async fn rooms(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut rooms = Vec::new();
    for handle in state.world.public_rooms().await {
        if handle.info.kind == RoomKind::Apartment {
            continue;
        }
        // A room that closed meanwhile is simply not listed.
        if let Some(summary) = handle.summary().await {
            rooms.push(summary);
        }
    }
    Ok(HttpResponse::Ok().json(RoomList { rooms }))
}
