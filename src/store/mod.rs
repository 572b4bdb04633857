//! Durable state through diesel: users, rooms, tables, games and every move. One schema over
//! SQLite (the default, a file under `data/`) and PostgreSQL (`DATABASE_URL=postgres://...`).
//!
//! Calls block: async callers run them on the blocking pool.

mod accounts;
mod bans;
mod blocks;
mod checkpoint;
mod column;
mod fences;
mod game_moves;
mod hotel;
mod matches;
mod moderation;
mod names;
mod results;
mod room_writes;
mod schema;
mod shop;
mod turns;

pub use accounts::{DeviceRow, Revocation, Rotation};
pub use bans::Ban;
pub use blocks::{BlockError, MAX_BLOCKS};
pub use column::{status_word, MatchStatus, TextColumn, Unreadable};
pub use hotel::{apartment_id, Actor, AuditEntry, StoredRoom};
pub use matches::{
    GameRecord, MatchInPlay, MatchRecord, MatchResult, MatchRow, MoveClock, Outage, StoredClock,
    Tally,
};
pub use results::{Finished, GameResult, WallReason, WallRules, Win};
pub use room_writes::{RoomWriter, RoomWrites};
pub use shop::{
    CoinEntry, ItemChange, ItemKind, Owned, Purchase, PurchaseRow, ShopError, ShopItem, SoldItem,
};

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use chrono::{NaiveDateTime, SubsecRound, Utc};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{self, ManageConnection, Pool, PooledConnection, R2D2Connection};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use thiserror::Error;

use crate::ayo::{Rules, Status};
use crate::common::{GameId, MatchId, RoomId, RoomKind, TableId, UserId};
use schema::{ayo_tables, games, moves, rooms, users};

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// A connection to whichever database the service was given.
#[derive(diesel::MultiConnection)]
pub enum Db {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

/// Where the database is: a `postgres://` URL, or a SQLite file (`sqlite://PATH` or a path).
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Postgres(String),
    Sqlite(PathBuf),
}

impl FromStr for DatabaseUrl {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Ok(DatabaseUrl::Postgres(s.to_owned()))
        } else {
            let path = s.strip_prefix("sqlite://").unwrap_or(s);
            if path.is_empty() || path.contains("://") {
                return Err(StoreError::BadUrl(s.to_owned()));
            }
            Ok(DatabaseUrl::Sqlite(PathBuf::from(path)))
        }
    }
}

impl fmt::Display for DatabaseUrl {
    /// Never shows a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseUrl::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
                write!(f, "{scheme}://{host}")
            }
            DatabaseUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("`{0}` is neither a postgres:// URL nor a SQLite file path")]
    BadUrl(String),
    #[error("database connection: {0}")]
    Pool(#[from] r2d2::PoolError),
    #[error("database connection: {0}")]
    Connect(diesel::ConnectionError),
    #[error("database migrations: {0}")]
    Migration(String),
    #[error("database: {0}")]
    Query(DieselError),
    #[error("already stored: {0}")]
    Conflict(String),
    /// The room was taken by a later owner (a larger fencing number): this one's lease ran
    /// out, and it must drop the room (`fences.rs`).
    #[error("room {room} belongs to a later owner (fence {latest}, not {mine})")]
    Fenced {
        room: RoomId,
        mine: u64,
        latest: u64,
    },
    #[error("not found: {0}")]
    NotFound(String),
    /// A guest's name alike (same key) another guest's.
    #[error("the name `{0}` is taken (a guest has it, or one that looks the same)")]
    NameTaken(String),
    /// A guest's name alike a house user's.
    #[error("the name `{0}` is the hotel's own (or looks the same as it)")]
    NameReserved(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("a database task failed: {0}")]
    Task(String),
}

impl From<DieselError> for StoreError {
    fn from(e: DieselError) -> Self {
        match e {
            DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                StoreError::Conflict(info.message().to_owned())
            }
            DieselError::NotFound => StoreError::NotFound("no such row".into()),
            DieselError::DeserializationError(e) => {
                // A stored value that does not read is refused, never guessed at.
                tracing::error!(error = %e, "a stored row does not read");
                StoreError::Query(DieselError::DeserializationError(e))
            }
            e => StoreError::Query(e),
        }
    }
}

/// Opens connections of one kind, with SQLite tuned for a server (WAL, a busy timeout,
/// foreign keys on, checkpoints left to their own thread: `checkpoint.rs`).
struct Manager(DatabaseUrl);

impl ManageConnection for Manager {
    type Connection = Db;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<Db, r2d2::Error> {
        match &self.0 {
            DatabaseUrl::Postgres(url) => PgConnection::establish(url)
                .map(Db::Postgres)
                .map_err(r2d2::Error::ConnectionError),
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConnection::establish(&path.to_string_lossy())
                    .map_err(r2d2::Error::ConnectionError)?;
                conn.batch_execute(&format!(
                    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                         PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; \
                         PRAGMA wal_autocheckpoint = {};",
                    checkpoint::SAFETY_NET_PAGES
                ))
                .map_err(r2d2::Error::QueryError)?;
                Ok(Db::Sqlite(conn))
            }
        }
    }

    fn is_valid(&self, conn: &mut Db) -> Result<(), r2d2::Error> {
        conn.ping().map(|_| ()).map_err(r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut Db) -> bool {
        conn.is_broken()
    }
}

/// A user row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct UserRow {
    pub id: UserId,
    pub name: String,
    pub house: bool,
    pub created_at: NaiveDateTime,
}

/// A room row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = rooms)]
pub struct RoomRow {
    pub id: RoomId,
    pub name: String,
    pub kind: RoomKind,
    pub owner_id: Option<UserId>,
    pub created_at: NaiveDateTime,
}

/// A table row; `rules` is stored as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = ayo_tables)]
pub struct TableRow {
    pub id: TableId,
    pub room_id: RoomId,
    pub position: i32,
    pub rules: Rules,
}

/// A game row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = games)]
pub struct GameRow {
    pub id: GameId,
    pub table_id: TableId,
    pub south_id: UserId,
    pub north_id: UserId,
    pub rules: Rules,
    pub house: bool,
    pub status: Status,
    pub end_reason: Option<String>,
    pub started_at: NaiveDateTime,
    pub ended_at: Option<NaiveDateTime>,
    /// The match it is a game of, and its number there (from 1).
    pub match_id: Option<MatchId>,
    pub number: Option<i32>,
    /// When its first clock started (server milliseconds), without a clock `None`.
    pub clock_started_ms: Option<i64>,
}

/// A game still in play with its moves in order: what a restart replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInPlay {
    pub game: GameRow,
    pub moves: Vec<u8>,
}

/// Which database a store speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// The durable state of the lounge.
#[derive(Clone)]
pub struct Store {
    pool: Pool<Manager>,
    backend: Backend,
    /// SQLite's writers in this process take turns here, before the database's own lock.
    /// Without it each waits in SQLite's busy handler, which sleeps 1, 2, 5, 10, 15… ms between
    /// tries: at a thousand moves a second a move waited tens of milliseconds now and then for
    /// a lock held a fraction of one.
    writers: std::sync::Arc<std::sync::Mutex<()>>,
    /// SQLite only: the connection a room writes its moves on at once, on its own thread,
    /// when nothing would make it wait (`game_moves.rs`).
    at_once: Option<std::sync::Arc<std::sync::Mutex<Db>>>,
    /// PostgreSQL only: where to take the start lock (`Store::preparing`).
    postgres_url: Option<std::sync::Arc<str>>,
    /// The champions' outbox's turn among instances (`turns.rs`).
    turns: turns::Turns,
}

/// Now, as stored: UTC to the microsecond (what both databases keep).
pub fn now() -> NaiveDateTime {
    Utc::now().naive_utc().trunc_subsecs(6)
}

/// The time `ms` (milliseconds since 1970, as `ServerClock` reads), as stored.
pub fn at_ms(ms: u64) -> NaiveDateTime {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::<Utc>::from_timestamp_millis)
        .map_or_else(now, |t| t.naive_utc().trunc_subsecs(6))
}

/// The advisory lock instances take in turn to prepare one PostgreSQL database.
const START_LOCK: i64 = 0x6c6f_756e_6765; // "lounge"

/// A session of its own holding the start lock, taken when another instance lets it go.
fn start_lock(url: &str) -> Result<diesel::PgConnection, StoreError> {
    let failed = |e: String| StoreError::Migration(format!("the start lock: {e}"));
    let mut conn = diesel::PgConnection::establish(url).map_err(|e| failed(e.to_string()))?;
    conn.batch_execute(&format!("SELECT pg_advisory_lock({START_LOCK})"))
        .map_err(|e| failed(e.to_string()))?;
    Ok(conn)
}

impl Store {
    /// Connects, creating a SQLite file's folder if needed, runs pending migrations, and keys
    /// the names stored without a key (`names.rs`).
    pub fn open(url: &DatabaseUrl, max_connections: u32) -> Result<Store, StoreError> {
        let backend = match url {
            DatabaseUrl::Postgres(_) => Backend::Postgres,
            DatabaseUrl::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)?;
                }
                Backend::Sqlite
            }
        };
        let pool = Pool::builder()
            .max_size(max_connections.max(1))
            .connection_timeout(Duration::from_secs(10))
            .build(Manager(url.clone()))?;
        let at_once = match url {
            DatabaseUrl::Sqlite(_) => Some(game_moves::at_once_connection(url)?),
            DatabaseUrl::Postgres(_) => None,
        };
        let store = Store {
            pool,
            backend,
            writers: Default::default(),
            at_once,
            postgres_url: match url {
                DatabaseUrl::Postgres(url) => Some(url.as_str().into()),
                DatabaseUrl::Sqlite(_) => None,
            },
            turns: Default::default(),
        };
        if let DatabaseUrl::Sqlite(path) = url {
            checkpoint::start(path.clone(), std::sync::Arc::downgrade(&store.writers));
        }
        let renamed = store.preparing(|store| {
            store.migrate()?;
            store.key_names()
        })?;
        if renamed > 0 {
            tracing::warn!(
                renamed,
                "users whose names were alike earlier ones were renamed"
            );
        }
        Ok(store)
    }

    /// Runs `prepare` (migrations, seeds: what every instance does at start) while no other
    /// instance on this database does: instances started together on a new PostgreSQL
    /// database would race on it, where now one does it and the others find it done. The lock
    /// is its own session's, so it goes with that connection however `prepare` ends.
    pub fn preparing<T>(
        &self,
        prepare: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let lock = match &self.postgres_url {
            Some(url) => Some(start_lock(url)?),
            None => None,
        };
        let prepared = prepare(self);
        drop(lock);
        prepared
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    fn conn(&self) -> Result<PooledConnection<Manager>, StoreError> {
        Ok(self.pool.get()?)
    }

    /// This process's turn to write to SQLite (nothing to wait for on PostgreSQL). A writer
    /// that panicked held it: the lock is still good (the database rolled its work back).
    pub(crate) fn writing(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        (self.backend == Backend::Sqlite)
            .then(|| self.writers.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs `f` in a transaction that writes. SQLite's takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a plain transaction that read first could not become a writer
    /// while another one writes ("database is locked"), where this one waits its turn.
    pub(crate) fn write<T, E>(&self, f: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError> + From<DieselError>,
    {
        let mut conn = self.conn()?;
        match self.backend {
            Backend::Postgres => (*conn).transaction(f),
            Backend::Sqlite => {
                let _turn = self.writing();
                conn.batch_execute("BEGIN IMMEDIATE")?;
                // A panic must not hand the pool a connection still holding the write lock.
                let done =
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut conn))) {
                        Ok(done) => done,
                        Err(panic) => {
                            let _ = conn.batch_execute("ROLLBACK");
                            std::panic::resume_unwind(panic);
                        }
                    };
                let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
                if let Err(e) = conn.batch_execute(end) {
                    let _ = conn.batch_execute("ROLLBACK");
                    return Err(e.into());
                }
                done
            }
        }
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        let done = match &mut *conn {
            Db::Postgres(c) => c.run_pending_migrations(POSTGRES_MIGRATIONS).map(|_| ()),
            Db::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS).map(|_| ()),
        };
        done.map_err(|e| StoreError::Migration(e.to_string()))
    }

    /// True when the database answers.
    pub fn ping(&self) -> bool {
        self.conn().map(|mut c| c.ping().is_ok()).unwrap_or(false)
    }

    /// Stores a user with its name's key: `NameTaken` / `NameReserved` when the name is
    /// alike another guest's or a house user's.
    pub fn insert_user(&self, user: &UserRow) -> Result<(), StoreError> {
        self.write(|conn| Store::insert_user_in(conn, user))
    }

    /// Stores `user` unless a user with its id exists.
    pub fn ensure_user(&self, user: &UserRow) -> Result<(), StoreError> {
        if self.user(&user.id)?.is_none() {
            self.insert_user(user)?;
        }
        Ok(())
    }

    pub fn user(&self, id: &UserId) -> Result<Option<UserRow>, StoreError> {
        Ok(users::table
            .find(id)
            .select(UserRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// Stores a room and its tables unless a room with its id exists; true when it was new.
    pub fn ensure_room(&self, room: &RoomRow, tables: &[TableRow]) -> Result<bool, StoreError> {
        self.conn()?.transaction(|conn| {
            let exists: i64 = rooms::table
                .filter(rooms::id.eq(&room.id))
                .count()
                .get_result(conn)?;
            if exists > 0 {
                return Ok(false);
            }
            diesel::insert_into(rooms::table)
                .values(room)
                .execute(conn)?;
            for table in tables {
                diesel::insert_into(ayo_tables::table)
                    .values(table)
                    .execute(conn)?;
            }
            Ok(true)
        })
    }

    pub fn rooms(&self) -> Result<Vec<RoomRow>, StoreError> {
        Ok(rooms::table
            .order(rooms::created_at.asc())
            .select(RoomRow::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// A room's tables in place (not removed), in order.
    ///
    /// A table whose stored rules do not read is logged and left out: it stays out of play.
    pub fn tables(&self, room_id: &RoomId) -> Result<Vec<TableRow>, StoreError> {
        let mut conn = self.conn()?;
        let rows = ayo_tables::table
            .filter(ayo_tables::room_id.eq(room_id))
            .filter(ayo_tables::removed_at.is_null())
            .order(ayo_tables::position.asc())
            .select(TableRow::as_select())
            .load_iter::<TableRow, diesel::connection::DefaultLoadingMode>(&mut *conn)?;
        column::readable(rows, &format!("a table of room `{room_id}`"))
    }

    pub fn insert_game(&self, game: &GameRow) -> Result<(), StoreError> {
        insert_game_on(&mut *self.conn()?, game)
    }

    pub fn game(&self, id: &GameId) -> Result<Option<GameRow>, StoreError> {
        Ok(games::table
            .find(id)
            .select(GameRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// Marks a game in play as over; a game already over is left as it is (false).
    pub fn finish_game(
        &self,
        game_id: &GameId,
        status: Status,
        end_reason: &str,
    ) -> Result<bool, StoreError> {
        finish_game_on(&mut *self.conn()?, game_id, status, end_reason)
    }

    /// Every game still in play, with its moves: what a restart picks up.
    pub fn games_in_play(&self) -> Result<Vec<GameInPlay>, StoreError> {
        let mut conn = self.conn()?;
        let rows = games::table
            .filter(games::status.eq(Status::Playing))
            .order(games::started_at.asc())
            .select(GameRow::as_select())
            .load_iter::<GameRow, diesel::connection::DefaultLoadingMode>(&mut *conn)?;
        let rows = column::readable(rows, "a game in play")?;
        let ids: Vec<&str> = rows.iter().map(|g| g.id.as_str()).collect();
        let all: Vec<(String, i32)> = moves::table
            .filter(moves::game_id.eq_any(&ids))
            .order((moves::game_id.asc(), moves::ply.asc()))
            .select((moves::game_id, moves::pit))
            .load(&mut *conn)?;
        let mut by_game: std::collections::HashMap<String, Vec<u8>> = Default::default();
        for (game_id, pit) in all {
            by_game
                .entry(game_id)
                .or_default()
                .extend(u8::try_from(pit).ok());
        }
        Ok(rows
            .into_iter()
            .map(|game| GameInPlay {
                moves: by_game.remove(game.id.as_str()).unwrap_or_default(),
                game,
            })
            .collect())
    }
}

/// Runs a store call on the blocking pool (store calls block; async callers never wait on
/// them on an async worker).
pub async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(call)
        .await
        .unwrap_or_else(|e| Err(StoreError::Task(e.to_string())))
}

/// A new random id, 32 hex digits.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A new id that sorts in the order ids were made (UUIDv7, 32 hex digits): ledger and audit
/// entries list in order by id alone.
pub fn ordered_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

/// A stored UTC time, if any, as RFC 3339.
pub fn utc_opt<S: serde::Serializer>(t: &Option<NaiveDateTime>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => utc(t, s),
        None => s.serialize_none(),
    }
}

/// A stored UTC time as RFC 3339 (`2026-12-01T10:00:00.123456Z`).
pub fn utc<S: serde::Serializer>(t: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(
        &t.and_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
    )
}

/// `Store::insert_game` on a connection (also one of a room's writes, `room_writes.rs`).
fn insert_game_on(conn: &mut Db, game: &GameRow) -> Result<(), StoreError> {
    diesel::insert_into(games::table)
        .values(game)
        .execute(conn)?;
    Ok(())
}

/// `Store::finish_game` on a connection of the caller's (inside its transaction).
pub(crate) fn finish_game_on(
    conn: &mut Db,
    game_id: &GameId,
    status: Status,
    end_reason: &str,
) -> Result<bool, StoreError> {
    let changed = diesel::update(
        games::table
            .find(game_id)
            .filter(games::status.eq(Status::Playing)),
    )
    .set((
        games::status.eq(status),
        games::end_reason.eq(end_reason),
        games::ended_at.eq(now()),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}
