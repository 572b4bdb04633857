//! Readers of the results: each keeps a cursor of its own (the last `seq` it has read, a row
//! of `result_cursors` by its name), so a reader added later starts from the first result, a
//! reader that fails reads again from where it stopped, and one rebuilt reads every row
//! again. Which instance runs a reader is `turns.rs`.

use diesel::prelude::*;

use super::schema::{game_results, result_cursors, users};
use super::{Db, GameResult, Store, StoreError, UserRow};
use chrono::NaiveDateTime;

impl Store {
    /// The last result `reader` has read (0 before the first).
    pub fn cursor(&self, reader: &str) -> Result<i64, StoreError> {
        Ok(result_cursors::table
            .find(reader)
            .select(result_cursors::seq)
            .first(&mut *self.conn()?)
            .optional()?
            .unwrap_or(0))
    }

    /// Up to `limit` results `reader` has not read yet, in the order they were stored, with
    /// their winners.
    pub fn unread_results(
        &self,
        reader: &str,
        limit: i64,
    ) -> Result<Vec<(GameResult, UserRow)>, StoreError> {
        let after = self.cursor(reader)?;
        Ok(game_results::table
            .inner_join(users::table.on(users::id.eq(game_results::winner_id)))
            .filter(game_results::seq.gt(after))
            .order(game_results::seq.asc())
            .limit(limit)
            .select((GameResult::as_select(), UserRow::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// A reader new here starts past every result stored now (a reader of what ends from
    /// now on): true when it had no cursor and now has one at the last result.
    pub fn start_cursor_at_end(&self, reader: &str) -> Result<bool, StoreError> {
        self.write(|conn| {
            let known: i64 = result_cursors::table
                .find(reader)
                .count()
                .get_result(conn)?;
            if known > 0 {
                return Ok(false);
            }
            let last: Option<i64> = game_results::table
                .select(diesel::dsl::max(game_results::seq))
                .first(conn)?;
            diesel::insert_into(result_cursors::table)
                .values((
                    result_cursors::reader.eq(reader),
                    result_cursors::seq.eq(last.unwrap_or(0)),
                    result_cursors::moved_at.eq(self.now()),
                ))
                .execute(conn)?;
            Ok(true)
        })
    }

    /// `reader` has read every result up to `seq`; 0 has it read them all again.
    pub fn set_cursor(&self, reader: &str, seq: i64) -> Result<(), StoreError> {
        self.write(|conn| {
            let moved = diesel::update(result_cursors::table.find(reader))
                .set((
                    result_cursors::seq.eq(seq),
                    result_cursors::moved_at.eq(self.now()),
                ))
                .execute(conn)?;
            if moved == 0 {
                diesel::insert_into(result_cursors::table)
                    .values((
                        result_cursors::reader.eq(reader),
                        result_cursors::seq.eq(seq),
                        result_cursors::moved_at.eq(self.now()),
                    ))
                    .execute(conn)?;
            }
            Ok(())
        })
    }
}

/// Sets `reader`'s cursor to `seq` in the caller's transaction.
pub(super) fn move_cursor_on(
    conn: &mut Db,
    reader: &str,
    seq: i64,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let moved = diesel::update(result_cursors::table.find(reader))
        .set((
            result_cursors::seq.eq(seq),
            result_cursors::moved_at.eq(now),
        ))
        .execute(conn)?;
    if moved == 0 {
        diesel::insert_into(result_cursors::table)
            .values((
                result_cursors::reader.eq(reader),
                result_cursors::seq.eq(seq),
                result_cursors::moved_at.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(())
}
