//! What a room stores when its table decides something (a match, a game, a move, a game's
//! end, a match's score and end), said once (`RoomWriter`) for both ways of storing it:
//! straight on the store, each write by itself, as one instance does; or all of one
//! decision in one transaction under the room's fencing number (`Store::room_writes`), as a
//! room leased by one of several instances must: a later owner's number in the
//! room's row and nothing of it lands.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::connection::SimpleConnection;

use super::results::{finish_on, Finished, Judge, Win};
use super::stamps::Stamps;
use super::{
    game_moves, matches, tournaments, Db, GameEnd, GameRow, MatchResult, MatchRow, MoveClock,
    Store, StoreError,
};
use crate::common::{GameId, MatchId, RoomId, UserId};

/// The writes a room's decision is made of.
pub trait RoomWriter {
    fn insert_match(&mut self, row: &MatchRow) -> Result<(), StoreError>;
    /// As `Store::mark_rated`.
    fn mark_rated(&mut self, id: &MatchId) -> Result<(), StoreError>;
    fn insert_game(&mut self, row: &GameRow) -> Result<(), StoreError>;
    fn record_move(
        &mut self,
        game: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Result<(), StoreError>;
    /// As `Store::finish_game_with`.
    fn finish_game(
        &mut self,
        game: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
        win: Option<&Win>,
        day_of: &dyn Fn(NaiveDateTime) -> NaiveDate,
        judge: &dyn Judge,
    ) -> Result<Finished, StoreError>;
    fn set_match_points(&mut self, id: &MatchId, halves: [u32; 2]) -> Result<(), StoreError>;
    /// False when the match was already over.
    fn finish_match(&mut self, id: &MatchId, result: &MatchResult) -> Result<bool, StoreError>;
    /// `user` went berserk in the tournament game of the match `id`.
    fn berserk(&mut self, id: &MatchId, user: &UserId) -> Result<(), StoreError>;
}

/// Through a borrow, as the writer it borrows.
impl<W: RoomWriter + ?Sized> RoomWriter for &mut W {
    fn insert_match(&mut self, row: &MatchRow) -> Result<(), StoreError> {
        (**self).insert_match(row)
    }
    fn mark_rated(&mut self, id: &MatchId) -> Result<(), StoreError> {
        (**self).mark_rated(id)
    }
    fn insert_game(&mut self, row: &GameRow) -> Result<(), StoreError> {
        (**self).insert_game(row)
    }
    fn record_move(
        &mut self,
        game: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Result<(), StoreError> {
        (**self).record_move(game, ply, pit, clock)
    }
    fn finish_game(
        &mut self,
        game: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
        win: Option<&Win>,
        day_of: &dyn Fn(NaiveDateTime) -> NaiveDate,
        judge: &dyn Judge,
    ) -> Result<Finished, StoreError> {
        (**self).finish_game(game, status, end_reason, win, day_of, judge)
    }
    fn set_match_points(&mut self, id: &MatchId, halves: [u32; 2]) -> Result<(), StoreError> {
        (**self).set_match_points(id, halves)
    }
    fn finish_match(&mut self, id: &MatchId, result: &MatchResult) -> Result<bool, StoreError> {
        (**self).finish_match(id, result)
    }
    fn berserk(&mut self, id: &MatchId, user: &UserId) -> Result<(), StoreError> {
        (**self).berserk(id, user)
    }
}

/// Each write by itself, as `Store`'s own methods do it.
impl RoomWriter for &Store {
    fn insert_match(&mut self, row: &MatchRow) -> Result<(), StoreError> {
        Store::insert_match(self, row)
    }
    fn mark_rated(&mut self, id: &MatchId) -> Result<(), StoreError> {
        Store::mark_rated(self, id)
    }
    fn insert_game(&mut self, row: &GameRow) -> Result<(), StoreError> {
        Store::insert_game(self, row)
    }
    fn record_move(
        &mut self,
        game: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Result<(), StoreError> {
        self.record_move_with(game, ply, pit, clock)
    }
    fn finish_game(
        &mut self,
        game: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
        win: Option<&Win>,
        day_of: &dyn Fn(NaiveDateTime) -> NaiveDate,
        judge: &dyn Judge,
    ) -> Result<Finished, StoreError> {
        self.finish_game_with(game, status, end_reason, win, day_of, judge)
    }
    fn set_match_points(&mut self, id: &MatchId, halves: [u32; 2]) -> Result<(), StoreError> {
        Store::set_match_points(self, id, halves)
    }
    fn finish_match(&mut self, id: &MatchId, result: &MatchResult) -> Result<bool, StoreError> {
        Store::finish_match(self, id, result)
    }
    fn berserk(&mut self, id: &MatchId, user: &UserId) -> Result<(), StoreError> {
        self.write(|conn| tournaments::berserk_on(conn, id, user))
    }
}

/// A room's writes inside one transaction (`Store::room_writes`).
pub struct RoomWrites<'a> {
    conn: &'a mut Db,
    stamps: &'a Stamps,
    /// Savepoints taken so far, for their names.
    parts: u32,
}

impl RoomWrites<'_> {
    /// Runs `f` under a savepoint of its own: when it fails, what it wrote is undone and the
    /// transaction goes on (a write the room may pass over, logged, as it does on its own).
    pub fn part<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.parts += 1;
        let name = format!("room_write_{}", self.parts);
        // Plain SQL: on SQLite the transaction was begun by hand (`BEGIN IMMEDIATE`), which
        // diesel's own nesting does not know of.
        self.conn.batch_execute(&format!("SAVEPOINT {name}"))?;
        let done = f(self);
        let end = match done {
            Ok(_) => format!("RELEASE SAVEPOINT {name}"),
            Err(_) => format!("ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}"),
        };
        self.conn.batch_execute(&end)?;
        done
    }

    /// As `Store::finish_game`: a game in play marked over, nothing counted (false when it
    /// was over already).
    pub fn end_game(
        &mut self,
        game: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
    ) -> Result<bool, StoreError> {
        super::finish_game_on(self.conn, game, status, end_reason, self.stamps.now())
    }

    /// A tournament's pairing, stored with the match it starts.
    pub fn add_pairing(&mut self, row: &super::PairingRow) -> Result<(), StoreError> {
        tournaments::add_pairing_on(self.conn, row)
    }

    /// As `Store::record_outage`.
    pub fn record_outage(
        &mut self,
        game: &GameId,
        stopped_ms: u64,
        resumed_ms: u64,
    ) -> Result<(), StoreError> {
        matches::record_outage_on(self.conn, game, stopped_ms, resumed_ms)
    }
}

impl RoomWriter for RoomWrites<'_> {
    fn insert_match(&mut self, row: &MatchRow) -> Result<(), StoreError> {
        matches::insert_match_on(self.conn, row)
    }
    fn mark_rated(&mut self, id: &MatchId) -> Result<(), StoreError> {
        matches::mark_rated_on(self.conn, id)
    }
    fn insert_game(&mut self, row: &GameRow) -> Result<(), StoreError> {
        super::insert_game_on(self.conn, row)
    }
    fn record_move(
        &mut self,
        game: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Result<(), StoreError> {
        game_moves::record_on(self.conn, game, ply, pit, clock, self.stamps.now())
    }
    fn finish_game(
        &mut self,
        game: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
        win: Option<&Win>,
        day_of: &dyn Fn(NaiveDateTime) -> NaiveDate,
        judge: &dyn Judge,
    ) -> Result<Finished, StoreError> {
        // The day is the one the stored end falls in: one clock reading for both.
        let at = self.stamps.now();
        finish_on(
            self.conn,
            game,
            status,
            end_reason,
            win,
            (at, day_of(at)),
            judge,
        )
    }
    fn set_match_points(&mut self, id: &MatchId, halves: [u32; 2]) -> Result<(), StoreError> {
        matches::set_points_on(self.conn, id, halves)
    }
    fn finish_match(&mut self, id: &MatchId, result: &MatchResult) -> Result<bool, StoreError> {
        matches::finish_match_on(self.conn, id, result, self.stamps.now())
    }
    fn berserk(&mut self, id: &MatchId, user: &UserId) -> Result<(), StoreError> {
        tournaments::berserk_on(self.conn, id, user)
    }
}

impl Store {
    /// Runs `f`, a room's writes, in one write transaction; under `fence` (the room and its
    /// owner's number) after checking in that transaction that the room is still its
    /// owner's (`Fenced`, and nothing written, when a later owner took it; `fences.rs`).
    /// Whatever `f` fails with undoes all it wrote.
    pub fn room_writes<T>(
        &self,
        fence: Option<(&RoomId, u64)>,
        f: impl FnOnce(&mut RoomWrites<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let stamps = &*self.stamps;
        self.write_under(fence, |conn| {
            f(&mut RoomWrites {
                conn,
                stamps,
                parts: 0,
            })
        })
    }
}
