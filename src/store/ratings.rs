//! Ratings as stored: one row a player a rule family (`ratings`), and what each rated game
//! changed (`rating_changes`), both written by the results' reader "ratings" (`ratings/`) in
//! the transaction that moves its cursor, so a result is rated once whichever instance reads
//! it. What a rating means is the reader's; this keeps and reads rows.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::cursors::move_cursor_on;
use super::schema::{
    devices, games, moves, rated_matches, rating_changes, ratings, result_cursors,
};
use super::{GameRow, Store, StoreError, UserRow};
use crate::ayo::{Rules, Status};
use crate::common::{GameId, MatchId, UserId};

/// A player's rating in a family.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = ratings)]
pub struct RatingRow {
    pub user_id: UserId,
    /// `abapa` or `ayoayo`.
    pub family: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    /// Rated games played in the family.
    pub games: i32,
    pub updated_at: NaiveDateTime,
}

/// What one rated game changed of one player's rating.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = rating_changes)]
pub struct RatingChangeRow {
    pub game_id: GameId,
    pub user_id: UserId,
    pub family: String,
    /// The result's `seq`.
    pub seq: i64,
    /// 1 a win, 0 a loss, 0.5 a draw.
    pub score: f64,
    pub before_rating: f64,
    pub before_deviation: f64,
    pub before_volatility: f64,
    pub after_rating: f64,
    pub after_deviation: f64,
    pub after_volatility: f64,
    pub at: NaiveDateTime,
}

/// What the ratings' reader needs to know of a result's game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    pub rules: Rules,
    /// Baba Ayo played.
    pub house: bool,
    /// Its match's `rated`; `None` for a game of no match (stored before matches were).
    pub rated: Option<bool>,
    /// Plies played.
    pub plies: i64,
}

/// A finished game of a player's, as a profile lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedBy {
    pub game: GameRow,
    pub opponent: UserRow,
    /// What it changed of the player's rating, when it was rated.
    pub change: Option<RatingChangeRow>,
}

/// A player's games over: won, drawn, lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Record {
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
}

impl Store {
    /// What the ratings' reader needs of a result's game; `None` for a game not stored.
    pub fn rated_game(&self, game_id: &GameId) -> Result<Option<RatedGame>, StoreError> {
        let mut conn = self.conn()?;
        let game: Option<(Rules, bool, Option<MatchId>)> = games::table
            .filter(games::id.eq(game_id))
            .select((games::rules, games::house, games::match_id))
            .first(&mut *conn)
            .optional()?;
        let Some((rules, house, match_id)) = game else {
            return Ok(None);
        };
        let rated = match match_id {
            Some(id) => {
                let found: i64 = rated_matches::table
                    .filter(rated_matches::match_id.eq(id))
                    .count()
                    .get_result(&mut *conn)?;
                Some(found > 0)
            }
            None => None,
        };
        let plies: i64 = moves::table
            .filter(moves::game_id.eq(game_id))
            .count()
            .get_result(&mut *conn)?;
        Ok(Some(RatedGame {
            rules,
            house,
            rated,
            plies,
        }))
    }

    /// Whether `a` and `b` have signed in from one device: a browser's key among the
    /// devices of both.
    pub fn share_a_device(&self, a: &UserId, b: &UserId) -> Result<bool, StoreError> {
        let mut conn = self.conn()?;
        let of_a: Vec<Option<String>> = devices::table
            .filter(devices::user_id.eq(a))
            .filter(devices::key_hash.is_not_null())
            .select(devices::key_hash)
            .load(&mut *conn)?;
        let of_a: Vec<String> = of_a.into_iter().flatten().collect();
        if of_a.is_empty() {
            return Ok(false);
        }
        let shared: i64 = devices::table
            .filter(devices::user_id.eq(b))
            .filter(devices::key_hash.eq_any(&of_a))
            .count()
            .get_result(&mut *conn)?;
        Ok(shared > 0)
    }

    /// `user`'s rating in `family`, if they have played a rated game of it.
    pub fn rating(&self, user: &UserId, family: &str) -> Result<Option<RatingRow>, StoreError> {
        Ok(ratings::table
            .find((user, family))
            .select(RatingRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// `user`'s ratings, by family.
    pub fn ratings_of(&self, user: &UserId) -> Result<Vec<RatingRow>, StoreError> {
        Ok(ratings::table
            .filter(ratings::user_id.eq(user))
            .order(ratings::family.asc())
            .select(RatingRow::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// Every rating, by player and family.
    pub fn all_ratings(&self) -> Result<Vec<RatingRow>, StoreError> {
        Ok(ratings::table
            .order((ratings::user_id.asc(), ratings::family.asc()))
            .select(RatingRow::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// Every rating change, in the order the games were rated.
    /// The ratings `games` were played at, as the games changed them: by game, each rated
    /// player's rating before it (none for a game not rated).
    pub fn ratings_before(
        &self,
        games: &[&GameId],
    ) -> Result<std::collections::HashMap<(GameId, UserId), f64>, StoreError> {
        Ok(rating_changes::table
            .filter(rating_changes::game_id.eq_any(games))
            .select((
                rating_changes::game_id,
                rating_changes::user_id,
                rating_changes::before_rating,
            ))
            .load::<(GameId, UserId, f64)>(&mut *self.conn()?)?
            .into_iter()
            .map(|(game, user, before)| ((game, user), before))
            .collect())
    }

    pub fn all_rating_changes(&self) -> Result<Vec<RatingChangeRow>, StoreError> {
        Ok(rating_changes::table
            .order((rating_changes::seq.asc(), rating_changes::user_id.asc()))
            .select(RatingChangeRow::as_select())
            .load(&mut *self.conn()?)?)
    }

    /// Stores what `reader` made of the results after `from` up to `seq`, and moves its
    /// cursor there, in one transaction: the ratings after each rated game and the game's
    /// changes. False, and nothing stored, when the cursor is no longer at `from` (another
    /// reader moved it meanwhile: what this one read is stale).
    pub fn store_ratings(
        &self,
        reader: &str,
        from: i64,
        seq: i64,
        rated: &[(RatingRow, RatingChangeRow)],
    ) -> Result<bool, StoreError> {
        self.write(|conn| {
            let at: Option<i64> = result_cursors::table
                .find(reader)
                .select(result_cursors::seq)
                .first(conn)
                .optional()?;
            if at.unwrap_or(0) != from {
                return Ok(false);
            }
            for (row, change) in rated {
                let updated = diesel::update(ratings::table.find((&row.user_id, &row.family)))
                    .set((
                        ratings::rating.eq(row.rating),
                        ratings::deviation.eq(row.deviation),
                        ratings::volatility.eq(row.volatility),
                        ratings::games.eq(row.games),
                        ratings::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)?;
                if updated == 0 {
                    diesel::insert_into(ratings::table)
                        .values(row)
                        .execute(conn)?;
                }
                diesel::insert_into(rating_changes::table)
                    .values(change)
                    .execute(conn)?;
            }
            move_cursor_on(conn, reader, seq, self.now())?;
            Ok(true)
        })
    }

    /// Forgets every rating and rating change and sets `reader`'s cursor back to the start,
    /// in one transaction: what a rebuild starts from.
    pub fn forget_ratings(&self, reader: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::delete(rating_changes::table).execute(conn)?;
            diesel::delete(ratings::table).execute(conn)?;
            move_cursor_on(conn, reader, 0, self.now())
        })
    }

    /// `user`'s last `limit` games over, newest first, each with its opponent and what it
    /// changed of `user`'s rating.
    pub fn games_played_by(&self, user: &UserId, limit: i64) -> Result<Vec<PlayedBy>, StoreError> {
        let mut conn = self.conn()?;
        let rows: Vec<GameRow> = games::table
            .filter(games::south_id.eq(user).or(games::north_id.eq(user)))
            .filter(games::status.ne(Status::Playing))
            .order((games::ended_at.desc(), games::id.desc()))
            .limit(limit)
            .select(GameRow::as_select())
            .load(&mut *conn)?;
        let ids: Vec<&GameId> = rows.iter().map(|g| &g.id).collect();
        let changes: Vec<RatingChangeRow> = rating_changes::table
            .filter(rating_changes::user_id.eq(user))
            .filter(rating_changes::game_id.eq_any(&ids))
            .select(RatingChangeRow::as_select())
            .load(&mut *conn)?;
        let opponents: Vec<&UserId> = rows
            .iter()
            .map(|g| {
                if g.south_id == *user {
                    &g.north_id
                } else {
                    &g.south_id
                }
            })
            .collect();
        let people: Vec<UserRow> = super::schema::users::table
            .filter(super::schema::users::id.eq_any(&opponents))
            .select(UserRow::as_select())
            .load(&mut *conn)?;
        let mut played = Vec::with_capacity(rows.len());
        for game in rows {
            let other = if game.south_id == *user {
                &game.north_id
            } else {
                &game.south_id
            };
            let Some(opponent) = people.iter().find(|p| p.id == *other).cloned() else {
                continue;
            };
            let change = changes.iter().find(|c| c.game_id == game.id).cloned();
            played.push(PlayedBy {
                game,
                opponent,
                change,
            });
        }
        Ok(played)
    }

    /// `user`'s games over: won, drawn and lost.
    pub fn record_of(&self, user: &UserId) -> Result<Record, StoreError> {
        let played: Vec<(UserId, Status)> = games::table
            .filter(games::south_id.eq(user).or(games::north_id.eq(user)))
            .filter(games::status.ne(Status::Playing))
            .select((games::south_id, games::status))
            .load(&mut *self.conn()?)?;
        let mut record = Record::default();
        for (south, status) in played {
            let south_is_me = south == *user;
            match status {
                Status::Draw => record.drawn += 1,
                Status::SouthWon if south_is_me => record.won += 1,
                Status::NorthWon if !south_is_me => record.won += 1,
                Status::SouthWon | Status::NorthWon => record.lost += 1,
                Status::Playing => {}
            }
        }
        Ok(record)
    }
}
