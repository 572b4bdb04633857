//! Game results: one row a game won or drawn after at least one move, appended in the
//! transaction that ends the game, numbered in the order they were stored (`seq`). Readers of
//! the results (the champions wall, ratings, reviews) each keep a cursor of their own
//! (`cursors.rs`). What a result means to a reader is the reader's: the store keeps the
//! verdict its judge gave (`Judge`, asked inside the finishing transaction) and decides
//! nothing itself.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;

use super::schema::{game_results, games, moves, users};
use super::{Db, GameEnd, Store, StoreError, UserRow};
use crate::common::{GameId, UserId};

/// A stored result.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_results)]
pub struct GameResult {
    pub game_id: GameId,
    /// The hotel's day it ended, `YYYY-MM-DD`.
    pub day: String,
    pub winner_id: UserId,
    pub loser_id: UserId,
    pub seeds: i32,
    pub house_level: Option<String>,
    /// The judge's verdict: whether it counts (for the champions wall).
    pub counts: bool,
    pub ended_at: NaiveDateTime,
    /// The judge's word for why it does not count; `None` when it counts.
    pub wall_reason: Option<String>,
    /// Its place among the results, in the order they were stored: what readers' cursors
    /// point at. Given when it is appended (`append_on`); what a caller sets is replaced.
    pub seq: i64,
    /// A draw: `winner_id` and `loser_id` are then South and North (neither won), `seeds`
    /// is 0 and it never counts. Readers that want only wins (the wall) pass over it.
    pub drawn: bool,
}

/// A game won, as the room knows it when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Win {
    pub winner_id: UserId,
    pub loser_id: UserId,
    /// The seeds in the winner's store at the end.
    pub seeds: u8,
    /// Baba Ayo's level when one side was him.
    pub house_level: Option<String>,
    /// Plies played: a game abandoned before the first move has no result. The sides
    /// alternate, so each made at least `plies / 2` moves.
    pub plies: u32,
    /// When it ended on the server's clock (ms since 1970): how old the accounts were.
    pub ended_ms: u64,
}

/// What a judge said of a result, kept with it as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Verdict {
    pub counts: bool,
    /// A word of the judge's, when it does not count.
    pub reason: Option<&'static str>,
}

/// Judges a result inside the transaction that stores it, so what it reads (earlier
/// results, accounts) and the result itself are one consistent step; the champions wall's
/// rules are one (`champions::WallRules`).
pub trait Judge {
    /// The verdict on `win`, which ended on `day` (`YYYY-MM-DD`).
    fn judge(&self, facts: &mut Facts<'_>, win: &Win, day: &str) -> Result<Verdict, StoreError>;
}

/// What a judge may read, on the connection (and in the transaction) of the caller.
pub struct Facts<'a> {
    conn: &'a mut Db,
}

impl Facts<'_> {
    /// When `user`'s account was made.
    pub fn account_created(&mut self, user: &UserId) -> Result<NaiveDateTime, StoreError> {
        Ok(users::table
            .find(user)
            .select(users::created_at)
            .first(self.conn)?)
    }

    /// Results between people with `user` on either side, but for those judged `except`.
    pub fn results_between_people(
        &mut self,
        user: &UserId,
        except: &str,
    ) -> Result<i64, StoreError> {
        Ok(game_results::table
            .filter(
                game_results::winner_id
                    .eq(user)
                    .or(game_results::loser_id.eq(user)),
            )
            .filter(game_results::house_level.is_null())
            .filter(game_results::drawn.eq(false))
            .filter(
                game_results::wall_reason
                    .is_null()
                    .or(game_results::wall_reason.ne(except)),
            )
            .count()
            .get_result(self.conn)?)
    }

    /// Counted results of `winner` over `loser` on `day`, the pair locked on PostgreSQL
    /// until the transaction ends so two games ending at once are judged one after the
    /// other (SQLite's write transactions already are).
    pub fn counted_against(
        &mut self,
        day: &str,
        winner: &UserId,
        loser: &UserId,
    ) -> Result<i64, StoreError> {
        if let Db::Postgres(pg) = &mut *self.conn {
            diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind::<diesel::sql_types::Text, _>(format!("{day}/{winner}/{loser}"))
                .execute(pg)?;
        }
        Ok(game_results::table
            .filter(game_results::day.eq(day))
            .filter(game_results::winner_id.eq(winner))
            .filter(game_results::loser_id.eq(loser))
            .filter(game_results::counts.eq(true))
            .count()
            .get_result(self.conn)?)
    }
}

/// How the end of a game was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finished {
    /// False when the game was already over.
    pub finished: bool,
    /// The verdict on its result; `None` when it has none (no winner, or no move made).
    pub result: Option<Verdict>,
}

impl Finished {
    /// Whether its result counts.
    pub fn counts(&self) -> bool {
        self.result.as_ref().is_some_and(|v| v.counts)
    }
}

/// Keeps results numbered in the order they are stored on PostgreSQL, where transactions
/// run side by side: the next number is taken under this lock, held until commit, so a
/// reader never sees a number before the smaller ones are there. Above 2^32, so no
/// `hashtext` key (the pair locks) is it.
const APPEND_LOCK: i64 = 0x7265_7375_6c74;

/// The word a draw's result keeps where a win keeps the judge's.
pub const DRAWN: &str = "drawn";

impl Store {
    /// Marks a game in play as over and, for a win or a draw after at least one move, appends
    /// its result in the same transaction (a win with `judge`'s verdict on it).
    pub fn finish_game_with(
        &self,
        game_id: &GameId,
        status: crate::ayo::Status,
        end_reason: GameEnd,
        win: Option<&Win>,
        day_of: impl Fn(NaiveDateTime) -> NaiveDate,
        judge: &dyn Judge,
    ) -> Result<Finished, StoreError> {
        // The day is the one the stored end falls in: one clock reading for both.
        let at = self.now();
        let ended = (at, day_of(at));
        self.write(|conn| finish_on(conn, game_id, status, end_reason, win, ended, judge))
    }

    /// Runs `f` with what a judge may read, outside any game's end (a rebuild judging a
    /// result found again).
    pub fn with_facts<T>(
        &self,
        f: impl FnOnce(&mut Facts<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        f(&mut Facts {
            conn: &mut *self.conn()?,
        })
    }

    /// A day's wins, in the order they ended, with their winners.
    pub fn results_of_day(&self, day: NaiveDate) -> Result<Vec<(GameResult, UserRow)>, StoreError> {
        let day = day.format("%Y-%m-%d").to_string();
        Ok(game_results::table
            .inner_join(users::table.on(users::id.eq(game_results::winner_id)))
            .filter(game_results::day.eq(day))
            .filter(game_results::drawn.eq(false))
            .order((game_results::ended_at.asc(), game_results::game_id.asc()))
            .select((GameResult::as_select(), UserRow::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// Appends a result found again from a stored game (`lounge champions rebuild`), after
    /// every other; false when the game has one already.
    pub fn insert_result(&self, result: &GameResult) -> Result<bool, StoreError> {
        match self.write(|conn| append_on(conn, result.clone())) {
            Ok(()) => Ok(true),
            Err(StoreError::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Sets a result's verdict again (a rebuild recomputing the cap).
    pub fn set_counts(
        &self,
        game_id: &GameId,
        counts: bool,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        diesel::update(game_results::table.find(game_id))
            .set((
                game_results::counts.eq(counts),
                game_results::wall_reason.eq(reason),
            ))
            .execute(&mut *self.conn()?)?;
        Ok(())
    }

    /// Games that ended between `from` and `to` (UTC, half-open) with a winner and no
    /// stored result: those finished before results were kept.
    pub fn won_games_without_result(
        &self,
        from: NaiveDateTime,
        to: NaiveDateTime,
    ) -> Result<Vec<super::GameRow>, StoreError> {
        let with_result = game_results::table.select(game_results::game_id);
        Ok(games::table
            .filter(games::ended_at.ge(from))
            .filter(games::ended_at.lt(to))
            .filter(
                games::status.eq_any([crate::ayo::Status::SouthWon, crate::ayo::Status::NorthWon]),
            )
            .filter(games::id.ne_all(with_result))
            .order(games::ended_at.asc())
            .select(super::GameRow::as_select())
            .load(&mut *self.conn()?)?)
    }
}

/// Appends `result` after every stored one (its `seq` the next), in the caller's write
/// transaction.
fn append_on(conn: &mut Db, mut result: GameResult) -> Result<(), StoreError> {
    if let Db::Postgres(pg) = &mut *conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
            .bind::<diesel::sql_types::BigInt, _>(APPEND_LOCK)
            .execute(pg)?;
    }
    let last: Option<i64> = game_results::table
        .select(diesel::dsl::max(game_results::seq))
        .first(conn)?;
    result.seq = last.unwrap_or(0) + 1;
    diesel::insert_into(game_results::table)
        .values(&result)
        .execute(conn)?;
    Ok(())
}

/// `Store::finish_game_with` on a connection in a write transaction: also one of a room's
/// writes under its fence (`room_writes.rs`).
pub(super) fn finish_on(
    conn: &mut Db,
    game_id: &GameId,
    status: crate::ayo::Status,
    end_reason: GameEnd,
    win: Option<&Win>,
    (ended, day): (NaiveDateTime, NaiveDate),
    judge: &dyn Judge,
) -> Result<Finished, StoreError> {
    let changed = diesel::update(
        games::table
            .find(game_id)
            .filter(games::status.eq(crate::ayo::Status::Playing)),
    )
    .set((
        games::status.eq(status),
        games::end_reason.eq(end_reason),
        games::ended_at.eq(ended),
    ))
    .execute(conn)?;
    if changed == 0 {
        return Ok(Finished::default());
    }
    let day = day.format("%Y-%m-%d").to_string();
    if status == crate::ayo::Status::Draw {
        // A game called off (both players gone, the room closed) was not drawn by anyone:
        // no result, like a game abandoned before its first move.
        if end_reason != GameEnd::Game(crate::ayo::EndReason::Abandoned) {
            append_draw(conn, game_id, day, ended)?;
        }
        return Ok(Finished {
            finished: true,
            result: None,
        });
    }
    // No winner, or abandoned before the first move: no result at all.
    let Some(win) = win.filter(|w| w.plies > 0) else {
        return Ok(Finished {
            finished: true,
            result: None,
        });
    };
    let verdict = judge.judge(&mut Facts { conn: &mut *conn }, win, &day)?;
    append_on(
        conn,
        GameResult {
            game_id: game_id.clone(),
            day,
            winner_id: win.winner_id.clone(),
            loser_id: win.loser_id.clone(),
            seeds: i32::from(win.seeds),
            house_level: win.house_level.clone(),
            counts: verdict.counts,
            ended_at: ended,
            wall_reason: verdict.reason.map(str::to_owned),
            seq: 0,
            drawn: false,
        },
    )?;
    Ok(Finished {
        finished: true,
        result: Some(verdict),
    })
}

/// Appends the result of a game drawn after at least one move (none before: nothing was
/// played), not called off, with South and North in the winner's and loser's places. The wall's judge is not
/// asked: a draw never counts.
fn append_draw(
    conn: &mut Db,
    game_id: &GameId,
    day: String,
    ended: NaiveDateTime,
) -> Result<(), StoreError> {
    let moved: i64 = moves::table
        .filter(moves::game_id.eq(game_id))
        .count()
        .get_result(conn)?;
    if moved == 0 {
        return Ok(());
    }
    let (south, north): (UserId, UserId) = games::table
        .find(game_id)
        .select((games::south_id, games::north_id))
        .first(conn)?;
    append_on(
        conn,
        GameResult {
            game_id: game_id.clone(),
            day,
            winner_id: south,
            loser_id: north,
            seeds: 0,
            house_level: None,
            counts: false,
            ended_at: ended,
            wall_reason: Some(DRAWN.to_owned()),
            seq: 0,
            drawn: true,
        },
    )
}
