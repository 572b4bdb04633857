//! A game's moves: stored one row a ply, read back in order.
//!
//! On SQLite a room may store its move at once, on its own thread (`record_move_at_once`):
//! a move is one small INSERT (a tenth of a millisecond), and the trip to the blocking pool
//! and back cost more than the write, two more threads a move had to wait for on a busy
//! machine (BENCHMARKS.md, issue 18). It does so only when nothing would make it wait: its
//! own connection free, no other writer of this process writing, SQLite's lock free (that
//! connection does not wait for it). Otherwise the caller stores the move on the blocking
//! pool as it stores everything else, so another writer's long transaction never holds up
//! every room. What it does cost: while its own INSERT runs (a write to the page cache, and
//! on a disk that stalls, the stall) the rooms' thread waits, every room with it.

use std::sync::{Mutex, TryLockError};

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::ManageConnection;
use diesel::result::Error as DieselError;

use super::schema::{games, moves};
use super::{matches, DatabaseUrl, Db, Manager, MoveClock, Store, StoreError};
use crate::ayo::Status;
use crate::common::GameId;

#[derive(Insertable)]
#[diesel(table_name = moves)]
pub(super) struct NewMove<'a> {
    game_id: &'a str,
    ply: i32,
    pit: i32,
    played_at: NaiveDateTime,
    at_ms: Option<i64>,
    south_ms: Option<i64>,
    north_ms: Option<i64>,
}

/// The connection moves are written on at once: as the pool's, but SQLite's lock taken by
/// someone else is an answer at once ("busy"), not a wait, and its commits never run a
/// checkpoint (the log filling up while the checkpoint thread is held back would otherwise
/// have the rooms' thread copy it back and sync the disk).
pub(super) fn at_once_connection(
    url: &DatabaseUrl,
) -> Result<std::sync::Arc<Mutex<Db>>, StoreError> {
    let mut conn = Manager(url.clone()).connect().map_err(|e| match e {
        diesel::r2d2::Error::ConnectionError(e) => StoreError::Connect(e),
        diesel::r2d2::Error::QueryError(e) => StoreError::Query(e),
    })?;
    conn.batch_execute("PRAGMA busy_timeout = 0; PRAGMA wal_autocheckpoint = 0;")?;
    Ok(std::sync::Arc::new(Mutex::new(conn)))
}

impl Store {
    /// Stores move `ply` (from 1) of a game in play. The same ply twice is a `Conflict`, so a
    /// retried move is stored once.
    ///
    /// One plain INSERT, no read-then-write transaction: SQLite would refuse such a
    /// transaction's upgrade to a writer under concurrent writers ("database is locked") instead
    /// of waiting. The status check before it is a guard; the room task that owns the game is
    /// the one that ends it, so nothing races it.
    pub fn record_move(&self, game_id: &GameId, ply: u32, pit: u8) -> Result<(), StoreError> {
        self.record_move_with(game_id, ply, pit, None)
    }

    /// Stores a move with the clocks after it, in the same row: a restart finds both or
    /// neither.
    pub fn record_move_with(
        &self,
        game_id: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Result<(), StoreError> {
        let ply = column(ply)?;
        let mut conn = self.conn()?;
        check_in_play(&mut conn, game_id)?;
        let _turn = self.writing();
        Ok(insert(&mut conn, game_id, ply, pit, clock, self.now())?)
    }

    /// The same, at once on this thread, or `None` when that would wait (or on PostgreSQL):
    /// the caller then stores it with `record_move_with` on the blocking pool.
    pub fn record_move_at_once(
        &self,
        game_id: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Option<Result<(), StoreError>> {
        let mut conn = self.at_once.as_ref()?.try_lock().ok()?;
        let ply = match column(ply) {
            Ok(ply) => ply,
            Err(e) => return Some(Err(e)),
        };
        match status(&mut conn, game_id) {
            Err(e) if busy(&e) => return None,
            Err(e) => return Some(Err(e.into())),
            Ok(found) => {
                if let Err(e) = in_play(found, game_id) {
                    return Some(Err(e));
                }
            }
        }
        // A writer that panicked held it: the lock is still good, as in `writing`.
        let _turn = match self.writers.try_lock() {
            Ok(turn) => turn,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        match insert(&mut conn, game_id, ply, pit, clock, self.now()) {
            Err(e) if busy(&e) => None,
            done => Some(done.map_err(StoreError::from)),
        }
    }

    /// The moves of a game, in order.
    pub fn moves(&self, game_id: &GameId) -> Result<Vec<u8>, StoreError> {
        let pits: Vec<i32> = moves::table
            .filter(moves::game_id.eq(game_id))
            .order(moves::ply.asc())
            .select(moves::pit)
            .load(&mut *self.conn()?)?;
        Ok(pits
            .into_iter()
            .filter_map(|p| u8::try_from(p).ok())
            .collect())
    }
}

/// A ply as stored; one past i32 is refused as the same ply twice would be.
pub(super) fn column(ply: u32) -> Result<i32, StoreError> {
    i32::try_from(ply).map_err(|_| StoreError::Conflict(format!("ply {ply}")))
}

/// A move stored on a connection in a room's write transaction (`room_writes.rs`): the
/// check and the INSERT of `record_move_with`, the writers' turn already taken.
pub(super) fn record_on(
    conn: &mut Db,
    game_id: &GameId,
    ply: u32,
    pit: u8,
    clock: Option<MoveClock>,
    played_at: NaiveDateTime,
) -> Result<(), StoreError> {
    let ply = column(ply)?;
    check_in_play(conn, game_id)?;
    Ok(insert(conn, game_id, ply, pit, clock, played_at)?)
}

/// SQLite would have had it wait (its lock is someone else's).
fn busy(e: &DieselError) -> bool {
    matches!(e, DieselError::DatabaseError(_, info) if info.message().contains("locked"))
}

/// A move is stored only for a game in play.
fn check_in_play(conn: &mut Db, game_id: &GameId) -> Result<(), StoreError> {
    in_play(status(conn, game_id)?, game_id)
}

fn status(conn: &mut Db, game_id: &GameId) -> Result<Option<Status>, DieselError> {
    games::table
        .find(game_id)
        .select(games::status)
        .first(conn)
        .optional()
}

pub(super) fn in_play(status: Option<Status>, game_id: &GameId) -> Result<(), StoreError> {
    match status {
        None => Err(StoreError::NotFound(format!("game {game_id}"))),
        Some(Status::Playing) => Ok(()),
        Some(_) => Err(StoreError::Conflict(format!("game {game_id} is over"))),
    }
}

/// A move's row, played at `played_at`.
pub(super) fn new_move(
    game_id: &GameId,
    ply: i32,
    pit: u8,
    clock: Option<MoveClock>,
    played_at: NaiveDateTime,
) -> NewMove<'_> {
    NewMove {
        game_id: game_id.as_str(),
        ply,
        pit: pit.into(),
        played_at,
        at_ms: clock.map(|c| matches::ms(c.at_ms)),
        south_ms: clock.map(|c| matches::ms(c.left[0])),
        north_ms: clock.map(|c| matches::ms(c.left[1])),
    }
}

fn insert(
    conn: &mut Db,
    game_id: &GameId,
    ply: i32,
    pit: u8,
    clock: Option<MoveClock>,
    played_at: NaiveDateTime,
) -> Result<(), DieselError> {
    let row = new_move(game_id, ply, pit, clock, played_at);
    diesel::insert_into(moves::table)
        .values(&row)
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{at_ms, new_id, GameRow, RoomRow, TableRow, UserRow};
    use super::*;
    use crate::ayo::Preset;
    use crate::common::{RoomId, TableId};

    /// A SQLite store in a fresh folder with one game in play.
    fn store_with_a_game() -> (Store, GameId, std::path::PathBuf) {
        let now = || at_ms(1_700_000_000_000);
        let dir = std::env::temp_dir().join(format!("lounge-moves-{}", uuid::Uuid::new_v4()));
        let path = dir.join("db.sqlite");
        let store = Store::open(&DatabaseUrl::Sqlite(path.clone()), 2).unwrap();
        let room = RoomRow {
            id: RoomId::new("lounge"),
            name: "Lounge".into(),
            kind: crate::common::RoomKind::Lounge,
            owner_id: None,
            created_at: now(),
        };
        let table = TableRow {
            id: TableId::new("lounge-1"),
            room_id: room.id.clone(),
            position: 1,
            rules: Preset::Lagos.rules(),
            queue: None,
        };
        store
            .ensure_room(&room, std::slice::from_ref(&table))
            .unwrap();
        let users: Vec<UserRow> = ["Ada", "Bayo"]
            .map(|name| UserRow {
                id: new_id().into(),
                name: name.into(),
                house: false,
                created_at: now(),
            })
            .into();
        for u in &users {
            store.insert_user(u).unwrap();
        }
        let game = GameRow {
            id: new_id().into(),
            table_id: table.id,
            south_id: users[0].id.clone(),
            north_id: users[1].id.clone(),
            rules: Preset::Lagos.rules(),
            house: false,
            status: Status::Playing,
            end_reason: None,
            started_at: now(),
            ended_at: None,
            match_id: None,
            number: None,
            clock_started_ms: None,
            first_side: crate::ayo::Side::South,
        };
        store.insert_game(&game).unwrap();
        (store, game.id, dir)
    }

    #[derive(diesel::QueryableByName)]
    struct Timeout {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        timeout: i32,
    }

    #[derive(diesel::QueryableByName)]
    struct Autocheckpoint {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        wal_autocheckpoint: i32,
    }

    /// The busy timeout and the automatic checkpoint of the connection moves are written on
    /// at once.
    fn settings(store: &Store) -> (i32, i32) {
        let mut conn = store.at_once.as_ref().unwrap().lock().unwrap();
        let Db::Sqlite(conn) = &mut *conn else {
            panic!("a SQLite store")
        };
        let t: Timeout = diesel::sql_query("PRAGMA busy_timeout")
            .get_result(conn)
            .unwrap();
        let a: Autocheckpoint = diesel::sql_query("PRAGMA wal_autocheckpoint")
            .get_result(conn)
            .unwrap();
        (t.timeout, a.wal_autocheckpoint)
    }

    #[test]
    fn a_move_is_stored_at_once_only_when_nothing_would_make_it_wait() {
        let (store, game, dir) = store_with_a_game();
        // "Busy" is an answer at once, and no commit of its own copies the log back.
        assert_eq!(settings(&store), (0, 0));
        assert!(matches!(
            store.record_move_at_once(&game, 1, 3, None),
            Some(Ok(()))
        ));
        assert!(
            matches!(
                store.record_move_at_once(&game, 1, 4, None),
                Some(Err(StoreError::Conflict(_)))
            ),
            "a retried ply is refused at once, as on the pool"
        );
        assert!(matches!(
            store.record_move_at_once(&GameId::new("nope"), 1, 1, None),
            Some(Err(StoreError::NotFound(_)))
        ));

        // Another of this process's writers is writing: no wait for its turn.
        let turn = store.writing();
        assert!(store.record_move_at_once(&game, 2, 1, None).is_none());
        drop(turn);

        // Another connection (another process, say) holds SQLite's write lock: "busy" at
        // once, not a wait of the pool's busy timeout.
        let path = dir.join("db.sqlite");
        let mut other = diesel::SqliteConnection::establish(&path.to_string_lossy()).unwrap();
        other.batch_execute("BEGIN IMMEDIATE").unwrap();
        assert!(store.record_move_at_once(&game, 2, 1, None).is_none());
        other.batch_execute("ROLLBACK").unwrap();

        // Nothing of the two refused tries was stored; the move goes in as the pool would.
        assert_eq!(store.moves(&game).unwrap(), [3]);
        assert!(matches!(
            store.record_move_at_once(&game, 2, 1, None),
            Some(Ok(()))
        ));
        assert_eq!(store.moves(&game).unwrap(), [3, 1]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
