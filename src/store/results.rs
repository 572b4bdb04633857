//! Game results: the gate of the champions wall (one row a game, written in the same
//! transaction that ends the game) and its outbox (`walled_at` NULL until the wall has it).
//! Whether a win counts, and why not, is decided there and kept with the result, so a
//! rebuild counts the day exactly as it was counted.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;
use serde::Serialize;

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
    /// Why it does not count (a `WallReason` word); `None` when it counts.
    pub wall_reason: Option<String>,
}

impl GameResult {
    /// Why it does not count, `None` when it counts.
    pub fn reason(&self) -> Option<WallReason> {
        self.wall_reason.as_deref().and_then(WallReason::from_word)
    }
}

/// Why a game's end puts no win on the champions wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WallReason {
    /// No winner: a draw, or a game called off. Never stored (such a game has no result).
    NoWin,
    /// One side was Baba Ayo: the house board, never the wall.
    House,
    /// A side made fewer than `champions.min_moves` moves: won by abandonment, resignation or
    /// the flag before the game was played.
    TooFewMoves,
    /// The winner's account was new: younger than `champions.new_account_secs` with fewer
    /// than `champions.new_account_games` played games.
    NewAccount,
    /// The loser's account was new (as above): a throwaway guest's losses count for nobody.
    NewOpponent,
    /// The winner already had `champions.per_opponent_cap` counted wins over this loser that
    /// day.
    PerOpponentCap,
}

impl WallReason {
    pub const ALL: [WallReason; 6] = [
        WallReason::NoWin,
        WallReason::House,
        WallReason::TooFewMoves,
        WallReason::NewAccount,
        WallReason::NewOpponent,
        WallReason::PerOpponentCap,
    ];

    /// The word on the wire and in the database.
    pub fn word(self) -> &'static str {
        match self {
            WallReason::NoWin => "no_win",
            WallReason::House => "house",
            WallReason::TooFewMoves => "too_few_moves",
            WallReason::NewAccount => "new_account",
            WallReason::NewOpponent => "new_opponent",
            WallReason::PerOpponentCap => "per_opponent_cap",
        }
    }

    pub fn from_word(word: &str) -> Option<WallReason> {
        WallReason::ALL.into_iter().find(|r| r.word() == word)
    }
}

/// What makes a win count for the wall (`[champions]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallRules {
    /// Counted wins of one player over the same opponent a day.
    pub cap: u32,
    /// Moves each side must have made.
    pub min_moves: u32,
    /// An account this old (seconds) is no longer new...
    pub new_account_secs: u64,
    /// ...nor one with this many played games against people, won or lost.
    pub new_account_games: u32,
}

impl WallRules {
    /// Every win between people counts, up to `cap` (the rules before accounts and moves
    /// were looked at).
    pub fn cap_only(cap: u32) -> WallRules {
        WallRules {
            cap,
            min_moves: 0,
            new_account_secs: 0,
            new_account_games: 0,
        }
    }
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
    /// Plies played: a game abandoned before the first move has no result. The sides
    /// alternate, so each made at least `plies / 2` moves.
    pub plies: u32,
    /// When it ended on the server's clock (ms since 1970): how old the accounts were.
    pub ended_ms: u64,
}

/// How the end of a game was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finished {
    /// False when the game was already over.
    pub finished: bool,
    /// Whether the win counts for the champions wall.
    pub counts: bool,
    /// Why it does not, when it does not.
    pub reason: Option<WallReason>,
}

impl Store {
    /// Marks a game in play as over and, for a win after at least one move, writes its result
    /// in the same transaction, with whether it counts for the wall of `day` and why not
    /// (`WallRules`, in the order of `WallReason`).
    pub fn finish_game_with(
        &self,
        game_id: &GameId,
        status: crate::ayo::Status,
        end_reason: &str,
        win: Option<&Win>,
        day_of: impl Fn(NaiveDateTime) -> NaiveDate,
        rules: &WallRules,
    ) -> Result<Finished, StoreError> {
        self.write(|conn| finish_on(conn, game_id, status, end_reason, win, &day_of, rules))
    }

    /// Whether a win between these two may count, before the per-opponent cap: why not, or
    /// `None`.
    fn judge(
        conn: &mut Db,
        win: &Win,
        rules: &WallRules,
    ) -> Result<Option<WallReason>, StoreError> {
        if win.house_level.is_some() {
            return Ok(Some(WallReason::House));
        }
        if win.plies / 2 < rules.min_moves {
            return Ok(Some(WallReason::TooFewMoves));
        }
        if !Store::established(conn, &win.winner_id, win.ended_ms, rules)? {
            return Ok(Some(WallReason::NewAccount));
        }
        if !Store::established(conn, &win.loser_id, win.ended_ms, rules)? {
            return Ok(Some(WallReason::NewOpponent));
        }
        Ok(None)
    }

    /// Whether `user`'s account is no longer new at `at_ms`: old enough, or with enough
    /// played games against people (results with both sides past the move minimum).
    fn established(
        conn: &mut Db,
        user: &str,
        at_ms: u64,
        rules: &WallRules,
    ) -> Result<bool, StoreError> {
        let created: NaiveDateTime = users::table
            .find(user)
            .select(users::created_at)
            .first(conn)?;
        let at = i64::try_from(at_ms)
            .ok()
            .and_then(DateTime::<Utc>::from_timestamp_millis)
            .map_or(created, |t| t.naive_utc());
        let age = TimeDelta::seconds(i64::try_from(rules.new_account_secs).unwrap_or(i64::MAX));
        if rules.new_account_secs == 0
            || rules.new_account_games == 0
            || at.signed_duration_since(created) >= age
        {
            return Ok(true);
        }
        let played: i64 = game_results::table
            .filter(
                game_results::winner_id
                    .eq(user)
                    .or(game_results::loser_id.eq(user)),
            )
            .filter(game_results::house_level.is_null())
            .filter(
                game_results::wall_reason
                    .is_null()
                    .or(game_results::wall_reason.ne(WallReason::TooFewMoves.word())),
            )
            .count()
            .get_result(conn)?;
        Ok(played >= i64::from(rules.new_account_games))
    }

    /// Why a result found again by a rebuild would not count, before the cap (as when the
    /// game ended, with the games stored since also counted as played).
    pub fn judge_found(
        &self,
        win: &Win,
        rules: &WallRules,
    ) -> Result<Option<WallReason>, StoreError> {
        Store::judge(&mut *self.conn()?, win, rules)
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

    /// Sets whether a result counts and why not (a rebuild recomputing the cap); a counted
    /// one waits for the wall again.
    pub fn set_counts(
        &self,
        game_id: &str,
        counts: bool,
        reason: Option<WallReason>,
    ) -> Result<(), StoreError> {
        diesel::update(game_results::table.find(game_id))
            .set((
                game_results::counts.eq(counts),
                game_results::wall_reason.eq(reason.map(WallReason::word)),
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

/// `Store::finish_game_with` on a connection in a write transaction: also one of a room's
/// writes under its fence (`room_writes.rs`).
pub(super) fn finish_on(
    conn: &mut Db,
    game_id: &GameId,
    status: crate::ayo::Status,
    end_reason: &str,
    win: Option<&Win>,
    day_of: &dyn Fn(NaiveDateTime) -> NaiveDate,
    rules: &WallRules,
) -> Result<Finished, StoreError> {
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
    let Some(win) = win else {
        return Ok(Finished {
            finished: true,
            counts: false,
            reason: Some(WallReason::NoWin),
        });
    };
    if win.plies == 0 {
        // Abandoned before the first move: no result at all.
        return Ok(Finished {
            finished: true,
            counts: false,
            reason: Some(WallReason::TooFewMoves),
        });
    }
    let day = day.format("%Y-%m-%d").to_string();
    let reason = match Store::judge(conn, win, rules)? {
        Some(reason) => Some(reason),
        None => (Store::counted_against(conn, &day, &win.winner_id, &win.loser_id)?
            >= i64::from(rules.cap))
        .then_some(WallReason::PerOpponentCap),
    };
    let counts = reason.is_none();
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
        wall_reason: reason.map(|r| r.word().to_owned()),
    };
    diesel::insert_into(game_results::table)
        .values(&result)
        .execute(conn)?;
    Ok(Finished {
        finished: true,
        counts,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::WallReason;

    #[test]
    fn every_wall_reason_reads_back_is_one_word_and_is_documented() {
        let doc = include_str!("../../docs/protocol.md");
        for reason in WallReason::ALL {
            assert_eq!(WallReason::from_word(reason.word()), Some(reason));
            assert_eq!(
                serde_json::to_string(&reason).unwrap(),
                format!("\"{}\"", reason.word())
            );
            assert!(
                doc.contains(&format!("| `{}` |", reason.word())),
                "docs/protocol.md explains `{}`",
                reason.word()
            );
        }
    }
}
