//! Startup: settings in, a served application out; tests drive it on a free port.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::{web, App, HttpServer};
use thiserror::Error;
use utoipa_actix_web::AppExt;

use crate::ayo::house::Level;
use crate::ayo::Rules;
use crate::champions::{Champions, MemoryWall, RedisWall, Wall};
use crate::common::{ItemId, RoomId, TableId};
use crate::config::Settings;
use crate::house::House;
use crate::http::{self, auth::Auth, AppState};
use crate::store::{self, DatabaseUrl, RoomRow, Store, StoreError, TableRow};
use crate::world::{RoomConfig, World};
use std::time::Duration;

#[derive(Debug, Error)]
pub enum StartupError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("configuration `auth.secret`: {0}")]
    Auth(#[from] jsonwebtoken::errors::Error),
    #[error("configuration `ayo.rules`: {0}")]
    Rules(#[from] crate::ayo::RulesError),
    #[error("the OpenAPI document: {0}")]
    OpenApi(String),
    #[error("{0}")]
    Config(String),
    #[error("champions.redis_url: {0}")]
    Redis(String),
}

/// A running service.
pub struct Application {
    /// What signs and checks the tokens (tests sign admin tokens with it).
    pub auth: Arc<Auth>,
    port: u16,
    server: Server,
    world: World,
    house: Arc<House>,
    champions: Arc<Champions>,
    /// Baba Ayo's reviews (tests follow them as they end).
    pub reviews: Arc<crate::reviews::Reviews>,
    connections: http::connections::Connections,
    pub store: Store,
    /// The ratings' reader (tests read the outbox through it).
    pub ratings: Arc<crate::ratings::Ratings>,
    tournaments: Arc<crate::tournaments::Tournaments>,
}

impl Application {
    /// Opens the database (migrating it), seeds the hotel, starts the rooms and binds.
    /// Must run inside the actix system that will run the server.
    pub async fn build(settings: &Settings) -> Result<Application, StartupError> {
        settings
            .check_cluster()
            .map_err(|e| StartupError::Config(e.to_string()))?;
        // Bound first: an instance of several is named by the port it listens on.
        let addr = settings.server.bind.clone();
        let listener = TcpListener::bind(&addr).map_err(|source| StartupError::Bind {
            addr: addr.clone(),
            source,
        })?;
        let port = listener
            .local_addr()
            .map_err(|source| StartupError::Bind { addr, source })?
            .port();
        let cluster = crate::cluster::connect(settings, port)
            .map_err(|e| StartupError::Config(format!("cluster.redis_url: {e}")))?;
        let url: DatabaseUrl = settings.database.url.parse()?;
        tracing::info!(database = %url, "opening the database");
        let max = settings.database.max_connections;
        let opened = url.clone();
        let store = tokio::task::spawn_blocking(move || Store::open(&opened, max))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))??;
        store.set_clock(settings.world.clock.clone());
        let default_rules = settings.default_preset()?.rules();
        let rooms = {
            let store = store.clone();
            let seeds = settings.hotel.rooms.clone();
            let items = settings.shop.items.clone();
            tokio::task::spawn_blocking(move || {
                store.preparing(|store| {
                    seed_shop(store, &items)?;
                    seed_hotel(store, &seeds, default_rules)
                })
            })
            .await
            .map_err(|e| StoreError::Task(e.to_string()))??
        };
        let auth = Arc::new(signer(settings)?);
        let hotel_idp = match &settings.auth.hotel {
            Some(idp) => Some(Arc::new(
                http::hotel_idp::HotelIdp::load(idp)
                    .map_err(|e| StartupError::Config(format!("auth.hotel: {e}")))?,
            )),
            None => None,
        };
        let house = Arc::new(House::new(&settings.house));
        {
            // Baba Ayo is a user, one a level, so his games are stored like any other.
            let store = store.clone();
            tokio::task::spawn_blocking(move || {
                store.preparing(|store| {
                    Level::ALL.into_iter().try_for_each(|level| {
                        let user = House::user(level);
                        store.ensure_user(&store::UserRow {
                            id: user.id,
                            name: user.name,
                            house: true,
                            created_at: store.now(),
                        })
                    })
                })
            })
            .await
            .map_err(|e| StoreError::Task(e.to_string()))??;
        }
        // The default rules' endgame database, built (or read) on its own thread while the
        // service starts and runs.
        house.endgames().ready(&default_rules);
        let champions = Arc::new(champions(settings, store.clone())?);
        tracing::info!(wall = champions.wall_kind(), timezone = %champions.clock.tz, "the champions wall");
        champions.start();
        let activity = crate::common::Activity::default();
        let reviews = Arc::new(crate::reviews::Reviews::new(
            store.clone(),
            house.endgames().clone(),
            (champions.clock, activity.clone()),
            &settings.house,
        ));
        reviews.start();
        let ratings = Arc::new(crate::ratings::Ratings::new(
            store.clone(),
            rating_rules(&settings.ratings),
        ));
        ratings.start();
        let tournaments = Arc::new(crate::tournaments::Tournaments::new(
            store.clone(),
            Arc::new(standings(settings)?),
        ));
        tournaments.start();
        let room_config = RoomConfig {
            invitation_ttl: Duration::from_secs(settings.world.invitation_ttl_secs),
            grace: Duration::from_secs(settings.world.grace_secs),
            chat_max_chars: settings.world.chat_max_chars,
            chat_backlog: settings.world.chat_backlog,
            table_log: settings.world.table_log_events,
            status_every: Duration::from_secs(settings.world.status_every_secs),
            apartment_idle: Duration::from_secs(settings.world.apartment_idle_secs),
            house: house.clone(),
            max_boards: settings.apartment.max_boards,
            registry: Default::default(),
            results: crate::world::ResultsConfig {
                clock: champions.clock,
                rules: champions.rules(),
                pending: champions.pending(),
                stored: vec![ratings.bell(), tournaments.bell()],
            },
            clock: settings.world.clock.clone(),
            untimed_start: Duration::from_secs(settings.world.untimed_start_secs),
            rematch: Duration::from_secs(settings.world.rematch_secs),
            pool: crate::world::seeks::PoolTiming {
                answer_ms: settings.world.pairing_answer_secs * 1000,
                cooldown_ms: settings.world.seek_cooldown_secs * 1000,
                house_after_ms: settings.world.seek_house_after_secs * 1000,
            },
            queue_call: Duration::from_secs(settings.world.queue_call_secs),
            straight_wins: settings.world.queue_straight_wins,
            heartbeat: Duration::from_millis(settings.world.heartbeat_ms.max(10)),
            civility: civility(&settings.civility),
            activity,
        };
        // Leased, a room resumes its matches when it opens here.
        let matches = if cluster.is_some() {
            Vec::new()
        } else {
            let (store, clock, results) = (
                store.clone(),
                room_config.clock.clone(),
                room_config.results.clone(),
            );
            tokio::task::spawn_blocking(move || crate::world::resumable(&store, &clock, &results))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??
        };
        if !matches.is_empty() {
            tracing::info!(matches = matches.len(), "resuming the matches in play");
        }
        // Mutes and blocks outlive a restart: every room reads them from here.
        let (mutes, blocks) = {
            let (store, now) = (store.clone(), room_config.clock.now_ms());
            tokio::task::spawn_blocking(move || {
                Ok::<_, StoreError>((store.mutes(now)?, store.all_blocks()?))
            })
            .await
            .map_err(|e| StoreError::Task(e.to_string()))??
        };
        for (user, until) in mutes {
            room_config.civility.set_mute(&user, Some(until));
        }
        for (user, other) in blocks {
            room_config.civility.set_block(&user, &other, true);
        }
        // Several instances share the tickets in Redis: a socket may land on any of them.
        let ticket_ttl = Duration::from_secs(settings.auth.ws_ticket_secs);
        let tickets = match &cluster {
            Some(cluster) => {
                http::tickets::WsTickets::shared(ticket_ttl, cluster.conn.clone(), &cluster.prefix)
            }
            None => http::tickets::WsTickets::new(ticket_ttl),
        };
        let world = match cluster {
            Some(cluster) => {
                tracing::info!(
                    instance = cluster.leases.instance(),
                    "one of several instances: rooms open here under their leases"
                );
                World::start_leased(store.clone(), room_config, cluster)
            }
            None => World::start(rooms, matches, store.clone(), room_config),
        };
        let rooms_world = world.clone();
        let bans = {
            let store = store.clone();
            tokio::task::spawn_blocking(move || store.bans())
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??
        };
        let connections =
            http::connections::Connections::new(settings.server.ws_connections_per_address);
        let openapi = web::Bytes::from(
            http::openapi()
                .to_json()
                .map_err(|e| StartupError::OpenApi(e.to_string()))?,
        );
        let proxies = http::peer::Proxies::new(
            settings
                .server
                .proxies()
                .map_err(|e| StartupError::Config(e.to_string()))?,
        );
        let state = web::Data::new(AppState {
            store: store.clone(),
            world: rooms_world,
            auth: auth.clone(),
            hotel_idp,
            passwords: Arc::new(http::account::Passwords::new()),
            ws: http::WsLimits {
                per_sec: settings.server.ws_messages_per_sec,
                burst: settings.server.ws_burst,
                strikes: settings.server.ws_strikes,
                strike_window: Duration::from_secs(settings.server.ws_strike_window_secs),
                write_timeout: Duration::from_secs(settings.server.ws_write_timeout_secs),
                flush: Duration::from_micros(settings.server.ws_flush_micros),
            },
            banlist: http::banlist::Banlist::new(bans, settings.world.clock.clone()),
            connections: connections.clone(),
            tickets,
            proxies: proxies.clone(),
            signups: http::signups::Signups::new(
                settings.server.signups_per_minute,
                settings.server.signup_burst,
                settings.server.signup_writers,
                settings.server.sign_ins_per_minute,
                settings.server.sign_in_burst,
            ),
            ticker: http::pace::Ticker::new(settings.world.clock.clone()),
            clock: settings.world.clock.clone(),
            welcome_coins: settings.shop.welcome_coins,
            max_boards: settings.apartment.max_boards,
            home_invitations: http::pace::Buckets::new(
                f64::from(settings.apartment.invitations_per_minute) / 60.0,
                f64::from(settings.apartment.invitations_per_minute),
            ),
            home_invitations_per_minute: settings.apartment.invitations_per_minute,
            default_rules,
            champions: champions.clone(),
            reviews: reviews.clone(),
            ratings: ratings.clone(),
            tournaments: tournaments.clone(),
            openapi: openapi.clone(),
            openapi_etag: format!(
                "\"{}\"",
                &hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&openapi))[..32]
            ),
            streams: http::gate::Gate::new(settings.server.streams_per_address),
            requests: http::pace::Buckets::new(
                settings.server.requests_per_sec,
                settings.server.request_burst,
            ),
            body_timeout: Duration::from_secs(settings.server.body_timeout_secs),
        });
        // Several instances: what the others say of connections, bans and invitations.
        http::notices::listen(state.clone());
        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .into_utoipa_app()
                .configure(http::routes)
                .into_app()
                .wrap(actix_web::middleware::from_fn(http::budget::per_address))
        })
        // Each connection's socket, to cut one whose client stopped reading, and counted
        // against its peer's share.
        .on_connect(http::gate::on_connect(
            http::gate::Gate::new(settings.server.connections_per_address),
            proxies,
        ))
        .shutdown_timeout(settings.server.shutdown_timeout_secs)
        // A move's reply is one small frame: Nagle would hold it for the peer's
        // delayed ACK (about 40 ms on Linux).
        .tcp_nodelay(true)
        // Our own handler tells the rooms first (see run_until_stopped).
        .disable_signals();
        let workers = match settings.server.workers {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        server = server.workers(workers);
        // Descriptors kept in reserve: full, the server waits to accept rather than failing
        // to (and new players wait a moment rather than never getting in).
        if let Some(per_worker) =
            http::gate::connections_per_worker(settings.server.descriptor_reserve, workers)
        {
            server = server.max_connections(per_worker);
        }
        let server = server
            .listen(listener)
            .map_err(|source| StartupError::Bind {
                addr: settings.server.bind.clone(),
                source,
            })?
            .run();
        Ok(Application {
            auth,
            port,
            server,
            world,
            house,
            champions,
            reviews,
            connections,
            store,
            ratings,
            tournaments,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT or SIGTERM, then drains (actix-web's graceful shutdown).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.run_until(stop_signal()).await
    }

    /// Runs until `stop` is done, then stops as on SIGTERM: the rooms hand on their games
    /// and tell their people, then connections drain (a test restarts a lounge this way).
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()> + 'static,
    ) -> std::io::Result<()> {
        let handle = self.server.handle();
        let (world, house, champions, reviews, connections) = (
            self.world,
            self.house,
            self.champions,
            self.reviews,
            self.connections,
        );
        let (ratings, tournaments) = (self.ratings, self.tournaments);
        actix_web::rt::spawn(async move {
            stop.await;
            tracing::info!("stopping: the rooms tell their people, then connections drain");
            // Baba Ayo stops thinking: his games resume with everyone else's.
            house.stop();
            reviews.stop();
            champions.stop();
            ratings.stop();
            tournaments.stop();
            world.close().await;
            tracing::info!("the rooms are handed on and their people told");
            // Then the connections in no room; one whose client does not read is cut.
            connections.stop();
            handle.stop(true).await;
        });
        self.server.await
    }
}

/// The token signer: the configured secret, or the one kept in the data folder; on the
/// service's clock.
pub fn signer(settings: &Settings) -> Result<Auth, StartupError> {
    let mut auth = settings.auth.clone();
    auth.secret = auth
        .signing_secret(&settings.database.url, settings.cluster.enabled)
        .map_err(|e| StartupError::Config(e.to_string()))?;
    Ok(Auth::new(&auth)?.with_clock(settings.world.clock.clone()))
}

/// How ratings are computed, from the `[ratings]` settings.
pub fn rating_rules(s: &crate::config::RatingsSettings) -> crate::ratings::RatingRules {
    crate::ratings::RatingRules {
        tau: s.tau,
        initial: crate::ratings::Rating {
            rating: s.initial_rating,
            deviation: s.initial_deviation,
            volatility: s.initial_volatility,
        },
        provisional_deviation: s.provisional_deviation,
    }
}

/// Tournaments' standings in the champions' Redis when one is configured (under its key
/// prefix), in-process otherwise.
fn standings(settings: &Settings) -> Result<crate::tournaments::Standings, StartupError> {
    let config = &settings.champions;
    if config.redis_url.is_empty() {
        return Ok(crate::tournaments::Standings::local());
    }
    Ok(crate::tournaments::Standings::redis(
        redis_lazily(&config.redis_url)?,
        &config.redis_key_prefix,
    ))
}

/// A connection to Redis made when first used, with short timeouts: while Redis is away,
/// readers fall back to the database quickly.
fn redis_lazily(url: &str) -> Result<redis::aio::ConnectionManager, StartupError> {
    let client = redis::Client::open(url).map_err(|e| StartupError::Redis(e.to_string()))?;
    let manager = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_millis(500)))
        .set_response_timeout(Some(Duration::from_millis(500)))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_secs(2));
    client
        .get_connection_manager_lazy(manager)
        .map_err(|e| StartupError::Redis(e.to_string()))
}

/// The champions service over Redis when a URL is configured, in-process otherwise. Redis is
/// reached lazily: the service starts while it is down, and results wait in the outbox.
pub fn champions(settings: &Settings, store: Store) -> Result<Champions, StartupError> {
    let config = &settings.champions;
    let tz = config
        .tz()
        .map_err(|e| StartupError::Config(e.to_string()))?;
    let wall = if config.redis_url.is_empty() {
        Wall::Memory(MemoryWall::new(config.per_opponent_cap, config.keep_days))
    } else {
        Wall::Redis(RedisWall::new(
            redis_lazily(&config.redis_url)?,
            &config.redis_key_prefix,
            config.per_opponent_cap,
            config.keep_days,
        ))
    };
    Ok(Champions::new(
        wall,
        store,
        tz,
        crate::champions::WallRules::of(config),
        config.keep_days,
    )
    .with_clock(settings.world.clock.clone()))
}

/// Puts the configured shop items that are not stored yet in the shop (an item an operator
/// changed since is left as it is).
fn seed_shop(store: &Store, items: &[crate::config::ItemSeed]) -> Result<(), StoreError> {
    for seed in items {
        let item = store::ShopItem {
            id: ItemId::new(seed.id.as_str()),
            name: seed.name.clone(),
            kind: seed.kind,
            wood: seed.wood.clone(),
            finish: seed.finish.clone(),
            price: seed.price,
            stock: seed.stock,
            on_sale: true,
            created_at: store.now(),
            updated_at: store.now(),
        };
        if store.ensure_shop_item(&item)? {
            tracing::info!(item = %item.id, "put an item in the shop");
        }
    }
    Ok(())
}

/// Makes the configured rooms that are not stored yet; returns every room to open.
fn seed_hotel(
    store: &Store,
    seeds: &[crate::config::RoomSeed],
    rules: Rules,
) -> Result<Vec<store::StoredRoom>, StoreError> {
    for seed in seeds {
        let room = RoomRow {
            id: RoomId::new(seed.id.as_str()),
            name: seed.name.clone(),
            kind: seed.kind,
            owner_id: None,
            created_at: store.now(),
        };
        let tables: Vec<TableRow> = (1..=seed.tables)
            .map(|n| TableRow {
                id: TableId::new(format!("{}-{n}", seed.id)),
                room_id: room.id.clone(),
                position: i32::try_from(n).unwrap_or(i32::MAX),
                rules,
                queue: None,
            })
            .collect();
        if store.ensure_room(&room, &tables)? {
            tracing::info!(room = %room.id, tables = tables.len(), "seeded a room");
        }
    }
    store.rooms_to_open()
}

/// SIGTERM or SIGINT.
async fn stop_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// The hotel's civility from its settings.
fn civility(s: &crate::config::CivilitySettings) -> crate::world::Civility {
    crate::world::Civility::new(crate::world::CivilityLimits {
        invitations_per_minute: s.invitations_per_minute,
        room_chat_per_sec: s.room_chat_per_sec.max(0.0),
        room_chat_burst: s.room_chat_burst.max(1.0),
        auto_slow_ms: s.auto_slow_mode_for_secs.saturating_mul(1000),
        auto_slow_secs: s.auto_slow_mode_secs,
        put_out_ms: s.put_out_secs.saturating_mul(1000),
        table_changes_per_minute: s.table_changes_per_minute,
        table_changes_burst: s.table_changes_burst,
    })
}
