//! Durable state through diesel: users, rooms, tables, games and every move. One schema over
//! SQLite (the default, a file under `data/`) and PostgreSQL (`DATABASE_URL=postgres://...`).
//!
//! Calls block: async callers run them on the blocking pool.

mod accounts;
mod bans;
mod blocks;
mod checkpoint;
mod column;
mod connection;
mod cursors;
mod fences;
mod follows;
mod game_moves;
mod grouped;
mod hotel;
mod matches;
mod moderation;
mod names;
mod outcomes;
mod ratings;
mod records;
mod results;
mod reviews;
mod room_writes;
mod schema;
mod shop;
mod stamps;
mod tournaments;
mod turns;

pub use accounts::{DeviceRow, Revocation, Rotation};
pub use bans::Ban;
pub use blocks::{BlockError, MAX_BLOCKS};
pub use column::{status_word, TextColumn, Unreadable};
pub use connection::DatabaseUrl;
use connection::Manager;
pub use follows::{FollowError, Followed, MAX_FOLLOWING};
pub use hotel::{apartment_id, Actor, AuditEntry, StoredRoom};
pub use matches::{
    GameRecord, MatchInPlay, MatchRecord, MatchResult, MatchRow, MoveClock, Outage, StoredClock,
    Tally,
};
pub use outcomes::{GameEnd, MatchEnd, MatchStatus};
pub use ratings::{PlayedBy, RatedGame, RatingChangeRow, RatingRow, Record};
pub use records::{StoredGame, StoredMove};
pub use results::{Facts, Finished, GameResult, Judge, Verdict, Win};
pub use reviews::{Asked, Asker, ReviewRow, ReviewStatus};
pub use room_writes::{RoomWriter, RoomWrites};
pub use shop::{
    CoinEntry, ItemChange, ItemKind, Owned, Purchase, PurchaseRow, ShopError, ShopItem, SoldItem,
};
pub use tournaments::{ArenaMatch, JoinRefused, PairingRow, PlayerRow, Scored, TournamentRow};

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{self, Pool};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use thiserror::Error;

use crate::ayo::{Rules, Side, Status};
use crate::common::{GameId, MatchId, RoomId, RoomKind, TableId, UserId};
use schema::{ayo_tables, games, moves, rooms, users};

/// A connection to whichever database the service was given.
#[derive(diesel::MultiConnection)]
pub enum Db {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
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

/// A user row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct UserRow {
    pub id: UserId,
    pub name: String,
    pub house: bool,
    pub created_at: NaiveDateTime,
}

impl UserRow {
    /// The user as the protocol shows one (no ratings: pages that list users show none).
    pub fn user(&self) -> crate::common::User {
        crate::common::User {
            id: self.id.clone(),
            name: self.name.clone(),
            house: self.house,
            ratings: None,
        }
    }
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
    /// The table's queue on or off as set for it; `None`: as its room's kind has it (on in
    /// lounges, off at home).
    pub queue: Option<bool>,
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
    pub end_reason: Option<GameEnd>,
    pub started_at: NaiveDateTime,
    pub ended_at: Option<NaiveDateTime>,
    /// The match it is a game of, and its number there (from 1).
    pub match_id: Option<MatchId>,
    pub number: Option<i32>,
    /// When its first clock started (server milliseconds), without a clock `None`.
    pub clock_started_ms: Option<i64>,
    /// The side that moved first: its moves replay from it.
    pub first_side: Side,
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
    /// PostgreSQL only: where moves wait to be stored together (`grouped.rs`).
    groups: Option<std::sync::Arc<grouped::Groups>>,
    /// PostgreSQL only: where to take the start lock (`Store::preparing`).
    postgres_url: Option<std::sync::Arc<str>>,
    /// The champions' outbox's turn among instances (`turns.rs`).
    turns: turns::Turns,
    /// What rows are stamped with (`stamps.rs`): one for every clone, the grouping thread's
    /// too.
    stamps: std::sync::Arc<stamps::Stamps>,
}

/// The time `ms` (milliseconds since 1970, as `ServerClock` reads), as stored.
pub fn at_ms(ms: u64) -> NaiveDateTime {
    stamps::at_micros(i64::try_from(ms).unwrap_or(i64::MAX).saturating_mul(1_000))
}

impl Store {
    /// Stamps rows from now on with `clock`'s time (the system's until told): the server's
    /// one clock, so a test that moves its clock on sees rows stamped when it says.
    pub fn set_clock(&self, clock: crate::common::ServerClock) {
        self.stamps.set_clock(clock);
    }

    /// Now on the store's clock, as stored: to the microsecond, and later than any stamp
    /// this process gave before.
    pub fn now(&self) -> NaiveDateTime {
        self.stamps.now()
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
        end_reason: GameEnd,
    ) -> Result<bool, StoreError> {
        finish_game_on(&mut *self.conn()?, game_id, status, end_reason, self.now())
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
        let ids: Vec<&GameId> = rows.iter().map(|g| &g.id).collect();
        let all: Vec<(GameId, i32)> = moves::table
            .filter(moves::game_id.eq_any(&ids))
            .order((moves::game_id.asc(), moves::ply.asc()))
            .select((moves::game_id, moves::pit))
            .load(&mut *conn)?;
        let mut by_game: std::collections::HashMap<GameId, Vec<u8>> = Default::default();
        for (game_id, pit) in all {
            by_game
                .entry(game_id)
                .or_default()
                .extend(u8::try_from(pit).ok());
        }
        Ok(rows
            .into_iter()
            .map(|game| GameInPlay {
                moves: by_game.remove(&game.id).unwrap_or_default(),
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
    end_reason: GameEnd,
    ended_at: NaiveDateTime,
) -> Result<bool, StoreError> {
    let changed = diesel::update(
        games::table
            .find(game_id)
            .filter(games::status.eq(Status::Playing)),
    )
    .set((
        games::status.eq(status),
        games::end_reason.eq(end_reason),
        games::ended_at.eq(ended_at),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}
