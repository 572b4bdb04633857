//! Baba Ayo's reviews of finished games: asked for once (a guest's within their daily
//! allowance), waiting for the instance whose turn it is, then done and kept (served again,
//! never computed twice) or failed with the reason.

use std::borrow::Cow;
use std::io::Write as _;

use chrono::NaiveDateTime;
use diesel::deserialize::{self, FromSql};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;

use super::column::{text_column, TextColumn};
use super::schema::{games, reviews};
use super::{GameRow, MultiBackend, Store, StoreError};
use crate::ayo::Status;
use crate::common::{GameId, UserId};

/// Where a review stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    Waiting,
    Done,
    Failed,
}

impl TextColumn for ReviewStatus {
    const WHAT: &'static str = "review status";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(match self {
            ReviewStatus::Waiting => "waiting",
            ReviewStatus::Done => "done",
            ReviewStatus::Failed => "failed",
        })
    }

    fn from_text(s: &str) -> Result<Self, String> {
        match s {
            "waiting" => Ok(ReviewStatus::Waiting),
            "done" => Ok(ReviewStatus::Done),
            "failed" => Ok(ReviewStatus::Failed),
            other => Err(format!(
                "`{other}` is not a review status: waiting, done or failed"
            )),
        }
    }
}

text_column!(ReviewStatus);

/// A review as stored.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = reviews)]
pub struct ReviewRow {
    pub game_id: GameId,
    pub status: ReviewStatus,
    /// The guest who asked; `None` when an operator did.
    pub asked_by: Option<UserId>,
    pub asked_at: NaiveDateTime,
    pub done_at: Option<NaiveDateTime>,
    pub budget_ms: i64,
    /// The moves weighed (JSON) once done, why it failed once failed.
    pub body: Option<String>,
}

/// What asking for a review did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// One was asked for before: it is this (nothing of the allowance used).
    Known(ReviewRow),
    /// Asked for now: it waits its turn.
    Queued(ReviewRow),
    /// The guest has asked for `per_day` reviews since the day began.
    NoneLeft {
        per_day: u32,
    },
    NoSuchGame,
    InPlay,
}

/// Who asks, and what they may ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asker {
    /// An operator: no allowance.
    Operator,
    /// Baba Ayo himself (his user), for a rated game (`house.review_rated`): worked after
    /// the reviews others asked for (`next_review`).
    House(UserId),
    /// A guest: `per_day` reviews asked for since `day_began`.
    Guest {
        id: UserId,
        per_day: u32,
        day_began: NaiveDateTime,
    },
}

impl Store {
    /// Asks for a review of `game` with `budget_ms` to think: the one asked for before if
    /// there is one, else a new one waiting, within the asker's allowance. One transaction,
    /// so two asking at once make one review and a guest never gets past the allowance. A
    /// review `house` queued himself and still waiting becomes the asker's (within their
    /// allowance), so it is worked in their turn, not after every other.
    pub fn ask_review(
        &self,
        game: &GameId,
        asker: &Asker,
        budget_ms: i64,
        house: &UserId,
    ) -> Result<Asked, StoreError> {
        self.write(|conn| {
            let status: Option<Status> = games::table
                .find(game)
                .select(games::status)
                .first(conn)
                .optional()?;
            match status {
                None => return Ok(Asked::NoSuchGame),
                Some(Status::Playing) => return Ok(Asked::InPlay),
                Some(_) => {}
            }
            let known = reviews::table
                .find(game)
                .select(ReviewRow::as_select())
                .first(conn)
                .optional()?;
            let taken_over = match known {
                Some(known)
                    if known.status == ReviewStatus::Waiting
                        && known.asked_by.as_ref() == Some(house)
                        && !matches!(asker, Asker::House(_)) =>
                {
                    true
                }
                Some(known) => return Ok(Asked::Known(known)),
                None => false,
            };
            let asked_by = match asker {
                Asker::Operator => None,
                Asker::House(id) => Some(id.clone()),
                Asker::Guest {
                    id,
                    per_day,
                    day_began,
                } => {
                    let asked: i64 = reviews::table
                        .filter(reviews::asked_by.eq(id))
                        .filter(reviews::asked_at.ge(day_began))
                        .count()
                        .get_result(conn)?;
                    if asked >= i64::from(*per_day) {
                        return Ok(Asked::NoneLeft { per_day: *per_day });
                    }
                    Some(id.clone())
                }
            };
            let row = ReviewRow {
                game_id: game.clone(),
                status: ReviewStatus::Waiting,
                asked_by,
                asked_at: self.now(),
                done_at: None,
                budget_ms,
                body: None,
            };
            if taken_over {
                diesel::update(reviews::table.find(game))
                    .set((
                        reviews::asked_by.eq(&row.asked_by),
                        reviews::asked_at.eq(row.asked_at),
                    ))
                    .execute(conn)?;
            } else {
                diesel::insert_into(reviews::table)
                    .values(&row)
                    .execute(conn)?;
            }
            Ok(Asked::Queued(row))
        })
    }

    /// The review of `game`, if one was asked for.
    pub fn review(&self, game: &GameId) -> Result<Option<ReviewRow>, StoreError> {
        Ok(reviews::table
            .find(game)
            .select(ReviewRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// The review that has waited longest, with its game and the game's moves: of those
    /// people asked for first, then of those `house` queued by himself.
    pub fn next_review(
        &self,
        house: &UserId,
    ) -> Result<Option<(ReviewRow, GameRow, Vec<u8>)>, StoreError> {
        let waiting = || {
            reviews::table
                .inner_join(games::table)
                .filter(reviews::status.eq(ReviewStatus::Waiting))
                .order((reviews::asked_at.asc(), reviews::game_id.asc()))
                .select((ReviewRow::as_select(), GameRow::as_select()))
        };
        let mut conn = self.conn()?;
        let asked = waiting()
            .filter(reviews::asked_by.is_null().or(reviews::asked_by.ne(house)))
            .first(&mut *conn)
            .optional()?;
        let next = match asked {
            Some(next) => Some(next),
            None => waiting().first(&mut *conn).optional()?,
        };
        drop(conn);
        let Some((review, game)) = next else {
            return Ok(None);
        };
        let moves = self.moves(&game.id)?;
        Ok(Some((review, game, moves)))
    }

    /// Ends a waiting review as `status` with `body`; false when it was not waiting.
    pub fn end_review(
        &self,
        game: &GameId,
        status: ReviewStatus,
        body: &str,
    ) -> Result<bool, StoreError> {
        self.write(|conn| {
            let changed = diesel::update(
                reviews::table
                    .find(game)
                    .filter(reviews::status.eq(ReviewStatus::Waiting)),
            )
            .set((
                reviews::status.eq(status),
                reviews::done_at.eq(self.now()),
                reviews::body.eq(body),
            ))
            .execute(conn)?;
            Ok(changed == 1)
        })
    }
}
