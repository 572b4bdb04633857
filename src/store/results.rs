//! Game results: the gate of the champions wall (one row a game, written in the same
//! transaction that ends the game) and its outbox (`walled_at` NULL until the wall has it).

use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;

use super::schema::{game_results, games, users};
use super::{now, Db, Store, StoreError, UserRow};
use crate::common::GameId;

/// A stored result.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_results)]
pub struct GameResult {
    pub game_id: String,
    /// The hotel's day it ended, `YYYY-MM-DD`.
    pub day: String,
    pub winner_id: String,
    pub loser_id: String,
    pub seeds: i32,
    pub house_level: Option<String>,
    pub counts: bool,
    pub ended_at: NaiveDateTime,
    pub walled_at: Option<NaiveDateTime>,
}

/// A game won, as the room knows it when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Win {
    pub winner_id: String,
    pub loser_id: String,
    /// The seeds in the winner's store at the end.
    pub seeds: u8,
    /// Baba Ayo's level when one side was him.
    pub house_level: Option<String>,
    /// Plies played: a game abandoned before the first move has no result.
    pub plies: u32,
}

/// How the end of a game was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finished {
    /// False when the game was already over.
    pub finished: bool,
    /// Whether the win counts for the champions wall.
    pub counts: bool,
}

impl Store {
    /// Marks a game in play as over and, for a win after at least one move, writes its result
    /// in the same transaction. A win between people counts for the wall of `day` unless the
    /// winner already has `cap` counted wins against this loser that day.
    pub fn finish_game_with(
        &self,
        game_id: &GameId,
        status: crate::ayo::Status,
        end_reason: &str,
        win: Option<&Win>,
        day_of: impl Fn(NaiveDateTime) -> NaiveDate,
        cap: u32,
    ) -> Result<Finished, StoreError> {
        self.write(|conn| {
            // The day is the one the stored end falls in: one clock reading for both.
            let ended = now();
            let day = day_of(ended);
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
            let Some(win) = win.filter(|w| w.plies > 0) else {
                return Ok(Finished {
                    finished: true,
                    counts: false,
                });
            };
            let day = day.format("%Y-%m-%d").to_string();
            let counts = win.house_level.is_none()
                && Store::counted_against(conn, &day, &win.winner_id, &win.loser_id)?
                    < i64::from(cap);
            let result = GameResult {
                game_id: game_id.to_string(),
                day,
                winner_id: win.winner_id.clone(),
                loser_id: win.loser_id.clone(),
                seeds: i32::from(win.seeds),
                house_level: win.house_level.clone(),
                counts,
                ended_at: ended,
                // Only a counted win waits for the wall.
                walled_at: (!counts).then_some(ended),
            };
            diesel::insert_into(game_results::table)
                .values(&result)
                .execute(conn)?;
            Ok(Finished {
                finished: true,
                counts,
            })
        })
    }

    /// Counted wins of `winner` over `loser` on `day`, the pair locked on PostgreSQL until
    /// the transaction ends so two games ending at once are counted one after the other
    /// (SQLite's write transactions already are).
    fn counted_against(
        conn: &mut Db,
        day: &str,
        winner: &str,
        loser: &str,
    ) -> Result<i64, StoreError> {
        if let Db::Postgres(pg) = conn {
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
            .get_result(conn)?)
    }

    /// Counted results the wall does not have yet, oldest first, with their winners.
    pub fn wall_outbox(&self, limit: i64) -> Result<Vec<(GameResult, UserRow)>, StoreError> {
        Ok(game_results::table
            .inner_join(users::table.on(users::id.eq(game_results::winner_id)))
            .filter(game_results::walled_at.is_null())
            .filter(game_results::counts.eq(true))
            .order((game_results::ended_at.asc(), game_results::game_id.asc()))
            .limit(limit)
            .select((GameResult::as_select(), UserRow::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// The wall has these results now.
    pub fn walled(&self, game_ids: &[String]) -> Result<(), StoreError> {
        diesel::update(game_results::table.filter(game_results::game_id.eq_any(game_ids)))
            .set(game_results::walled_at.eq(now()))
            .execute(&mut *self.conn()?)?;
        Ok(())
    }

    /// A day's results, in the order they ended, with their winners.
    pub fn results_of_day(&self, day: NaiveDate) -> Result<Vec<(GameResult, UserRow)>, StoreError> {
        let day = day.format("%Y-%m-%d").to_string();
        Ok(game_results::table
            .inner_join(users::table.on(users::id.eq(game_results::winner_id)))
            .filter(game_results::day.eq(day))
            .order((game_results::ended_at.asc(), game_results::game_id.asc()))
            .select((GameResult::as_select(), UserRow::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// Stores a result found again from a stored game (`lounge champions rebuild`); false
    /// when the game has one already.
    pub fn insert_result(&self, result: &GameResult) -> Result<bool, StoreError> {
        match diesel::insert_into(game_results::table)
            .values(result)
            .execute(&mut *self.conn()?)
            .map_err(StoreError::from)
        {
            Ok(_) => Ok(true),
            Err(StoreError::Conflict(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Sets whether a result counts (a rebuild recomputing the cap); it waits for the wall
    /// again.
    pub fn set_counts(&self, game_id: &str, counts: bool) -> Result<(), StoreError> {
        diesel::update(game_results::table.find(game_id))
            .set((
                game_results::counts.eq(counts),
                // Only a counted result waits for the wall.
                game_results::walled_at.eq((!counts).then(now)),
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
