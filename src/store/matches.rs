//! Matches (one game, or best of 3, 5 or 7) and what keeps their clocks honest across a
//! restart: the time left after every move, the outages a game lived through, and the
//! service's heartbeat.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::Serialize;

use super::column::readable;
use super::outcomes::{GameEnd, MatchEnd, MatchStatus};
use super::schema::{
    ayo_tables, clock_pauses, games, heartbeats, matches, moves, rated_matches, tournaments, users,
};
use super::{Db, GameRow, Store, StoreError, UserRow};
use crate::ayo::clock::TimeControl;
use crate::ayo::{Rules, Status};
use crate::common::{GameId, MatchId, RoomId, Seating, TableId, UserId};

/// A match row.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = matches)]
pub struct MatchRow {
    pub id: MatchId,
    pub table_id: TableId,
    pub first_id: UserId,
    pub second_id: UserId,
    pub house: bool,
    pub best_of: i32,
    pub clock: TimeControl,
    pub rules: Rules,
    pub status: MatchStatus,
    pub winner_id: Option<UserId>,
    pub end_reason: Option<MatchEnd>,
    pub first_halves: i32,
    pub second_halves: i32,
    pub started_at: NaiveDateTime,
    pub ended_at: Option<NaiveDateTime>,
    /// Who sits where and moves first: `lots` (the original way) or `kept`.
    pub seats: Seating,
}

/// How a match ended, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchResult {
    /// `Won` or `Draw`.
    pub status: MatchStatus,
    pub winner_id: Option<UserId>,
    pub end_reason: MatchEnd,
    pub halves: [u32; 2],
}

/// The clocks after a move: when it was played and what each side had left (server
/// milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveClock {
    pub at_ms: u64,
    pub left: [u64; 2],
}

/// A game of a match as the history shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct GameRecord {
    #[schema(value_type = String)]
    pub id: GameId,
    pub number: Option<i32>,
    #[schema(value_type = String)]
    pub south_id: UserId,
    #[schema(value_type = String)]
    pub north_id: UserId,
    /// `playing`, `south_won`, `north_won` or `draw`.
    #[schema(value_type = String)]
    pub status: Status,
    #[schema(value_type = Option<String>)]
    pub end_reason: Option<GameEnd>,
    pub plies: i64,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "super::utc")]
    pub started_at: NaiveDateTime,
    #[schema(value_type = Option<String>, format = DateTime)]
    #[serde(serialize_with = "super::utc_opt")]
    pub ended_at: Option<NaiveDateTime>,
    /// Outages the game lived through: its clocks stood still from `stopped_ms` to
    /// `resumed_ms` (server milliseconds).
    pub outages: Vec<Outage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Outage {
    pub stopped_ms: i64,
    pub resumed_ms: i64,
}

/// A match with its players and games, for the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchRecord {
    pub row: MatchRow,
    pub first: UserRow,
    pub second: UserRow,
    pub games: Vec<GameRecord>,
}

/// A match in play read back at start: its games over and the one in play, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchInPlay {
    pub row: MatchRow,
    pub games: Vec<GameRow>,
}

/// A game in play's clocks as last stored: the time left after its last move (or at its
/// start), since when the side to move's clock ran, and the outages since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredClock {
    /// South's and North's milliseconds left, `None` when the last move predates clocks.
    pub left: Option<[u64; 2]>,
    /// When the side to move's clock started (server milliseconds).
    pub since_ms: u64,
    /// Milliseconds of outages after `since_ms`: not charged to anyone.
    pub paused_ms: u64,
}

/// Wins, losses and draws between two players, over matches and over games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Tally {
    pub played: u32,
    /// The first user's wins and the second's.
    pub won: [u32; 2],
    pub drawn: u32,
}

/// Milliseconds as stored (a BIGINT).
pub(super) fn ms(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn unms(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

impl Store {
    pub fn insert_match(&self, row: &MatchRow) -> Result<(), StoreError> {
        insert_match_on(&mut *self.conn()?, row)
    }

    /// Marks a match rated: its games between people change ratings (the host's choice,
    /// `set_match`; rated by default in a lounge, casual at home).
    pub fn mark_rated(&self, id: &MatchId) -> Result<(), StoreError> {
        mark_rated_on(&mut *self.conn()?, id)
    }

    /// Whether a match is rated.
    pub fn is_rated(&self, id: &MatchId) -> Result<bool, StoreError> {
        let found: i64 = rated_matches::table
            .filter(rated_matches::match_id.eq(id))
            .count()
            .get_result(&mut *self.conn()?)?;
        Ok(found > 0)
    }

    /// The score of a match in play after a game.
    pub fn set_match_points(&self, id: &MatchId, halves: [u32; 2]) -> Result<(), StoreError> {
        set_points_on(&mut *self.conn()?, id, halves)
    }

    /// Makes a game stored without a match the first game of `match_id`.
    pub fn adopt_game(&self, game_id: &GameId, match_id: &MatchId) -> Result<(), StoreError> {
        diesel::update(games::table.find(game_id))
            .set((games::match_id.eq(match_id), games::number.eq(1)))
            .execute(&mut *self.conn()?)?;
        Ok(())
    }

    /// Ends a match in play; a match already over is left as it is (false).
    pub fn finish_match(&self, id: &MatchId, result: &MatchResult) -> Result<bool, StoreError> {
        finish_match_on(&mut *self.conn()?, id, result, self.now())
    }

    /// The rooms with a match in play or a tournament under way: where a sweeper of several
    /// instances looks for rooms nobody runs (their owner died, and nobody has visited since).
    pub fn rooms_in_play(&self) -> Result<Vec<RoomId>, StoreError> {
        let mut conn = self.conn()?;
        let tables: Vec<TableId> = matches::table
            .filter(matches::status.eq(MatchStatus::Playing))
            .select(matches::table_id)
            .distinct()
            .load(&mut *conn)?;
        let mut rooms: Vec<RoomId> = ayo_tables::table
            .filter(ayo_tables::id.eq_any(&tables))
            .select(ayo_tables::room_id)
            .distinct()
            .load(&mut *conn)?;
        // A tournament under way is run by its room, players or not: it has to end.
        let running: Vec<RoomId> = tournaments::table
            .filter(tournaments::finished_at.is_null())
            .filter(tournaments::starts_at.le(self.now()))
            .select(tournaments::room_id)
            .distinct()
            .load(&mut *conn)?;
        rooms.extend(running);
        rooms.sort();
        rooms.dedup();
        Ok(rooms)
    }

    /// Every match still in play with its games in order: what a restart picks up.
    ///
    /// A match whose row or any of whose games does not read (an unknown word, rules that do
    /// not parse) is logged and left out: refused, not resumed on a guess.
    pub fn matches_in_play(&self) -> Result<Vec<MatchInPlay>, StoreError> {
        let mut conn = self.conn()?;
        let rows = matches::table
            .filter(matches::status.eq(MatchStatus::Playing))
            .order(matches::id.asc())
            .select(MatchRow::as_select())
            .load_iter::<MatchRow, diesel::connection::DefaultLoadingMode>(&mut *conn)?;
        let rows = readable(rows, "a match in play")?;
        let mut in_play = Vec::with_capacity(rows.len());
        for row in rows {
            let games = games::table
                .filter(games::match_id.eq(&row.id))
                .order(games::number.asc())
                .select(GameRow::as_select())
                .load(&mut *conn);
            match games {
                Ok(games) => in_play.push(MatchInPlay { row, games }),
                Err(diesel::result::Error::DeserializationError(e)) => {
                    tracing::error!(r#match = %row.id, error = %e, "a game of a match in play does not read; the match is left out");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(in_play)
    }

    /// A game in play's clocks as last stored, with the outages it lived through before
    /// `before` (the outage now ending began then).
    pub fn stored_clock(&self, game: &GameRow, before: u64) -> Result<StoredClock, StoreError> {
        let mut conn = self.conn()?;
        let last: Option<(Option<i64>, Option<i64>, Option<i64>)> = moves::table
            .filter(moves::game_id.eq(&game.id))
            .order(moves::ply.desc())
            .select((moves::at_ms, moves::south_ms, moves::north_ms))
            .first(&mut *conn)
            .optional()?;
        let (left, since_ms) = match last {
            Some((Some(at), Some(south), Some(north))) => {
                (Some([unms(south), unms(north)]), unms(at))
            }
            // No move yet, or moves stored before clocks: from the clock's start.
            _ => (None, game.clock_started_ms.map_or(0, unms)),
        };
        let pauses: Vec<(i64, i64)> = clock_pauses::table
            .filter(clock_pauses::game_id.eq(&game.id))
            .filter(clock_pauses::stopped_ms.ge(ms(since_ms)))
            .filter(clock_pauses::resumed_ms.le(ms(before)))
            .select((clock_pauses::stopped_ms, clock_pauses::resumed_ms))
            .load(&mut *conn)?;
        let paused_ms = pauses
            .iter()
            .map(|(stopped, resumed)| unms(*resumed).saturating_sub(unms(*stopped)))
            .sum();
        Ok(StoredClock {
            left,
            since_ms,
            paused_ms,
        })
    }

    /// Records an outage a game in play lived through.
    pub fn record_outage(
        &self,
        game_id: &GameId,
        stopped_ms: u64,
        resumed_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|conn| record_outage_on(conn, game_id, stopped_ms, resumed_ms))
    }

    /// The heartbeat of one instance alone (the only one before several could run).
    pub const SERVICE: &'static str = "lounge";

    /// Takes back a match that never had a game (its first could not be stored).
    pub fn delete_match(&self, id: &MatchId) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        diesel::delete(rated_matches::table.find(id)).execute(&mut *conn)?;
        diesel::delete(matches::table.find(id)).execute(&mut *conn)?;
        Ok(())
    }

    /// The service is alive at `at_ms`: one instance alone beats as `SERVICE`; one of
    /// several under its own id, so a room taken over from a dead instance knows when that
    /// one stopped, while the others beat on.
    pub fn beat(&self, beater: &str, at_ms: u64) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        let _turn = self.writing();
        let changed = diesel::update(heartbeats::table.find(beater))
            .set(heartbeats::at_ms.eq(ms(at_ms)))
            .execute(&mut *conn)?;
        if changed == 0 {
            let added = diesel::insert_into(heartbeats::table)
                .values((heartbeats::id.eq(beater), heartbeats::at_ms.eq(ms(at_ms))))
                .execute(&mut *conn);
            match added.map_err(StoreError::from) {
                Ok(_) | Err(StoreError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// When `beater` last said it was alive: where an outage of its rooms began.
    pub fn last_beat(&self, beater: &str) -> Result<Option<u64>, StoreError> {
        let at: Option<i64> = heartbeats::table
            .find(beater)
            .select(heartbeats::at_ms)
            .first(&mut *self.conn()?)
            .optional()?;
        Ok(at.map(unms))
    }

    /// A match with its players and games.
    pub fn match_record(&self, id: &MatchId) -> Result<Option<MatchRecord>, StoreError> {
        let row: Option<MatchRow> = matches::table
            .find(id)
            .select(MatchRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?;
        Ok(self.records(row.into_iter().collect())?.pop())
    }

    /// `user_id`'s matches, newest first: `limit` of them older than the match `before`.
    pub fn matches_of(
        &self,
        user_id: &UserId,
        limit: i64,
        before: Option<&MatchId>,
    ) -> Result<Vec<MatchRecord>, StoreError> {
        let mut query = matches::table
            .filter(
                matches::first_id
                    .eq(user_id)
                    .or(matches::second_id.eq(user_id)),
            )
            .order(matches::id.desc())
            .limit(limit)
            .select(MatchRow::as_select())
            .into_boxed();
        if let Some(before) = before {
            query = query.filter(matches::id.lt(before.to_owned()));
        }
        let rows = query.load(&mut *self.conn()?)?;
        self.records(rows)
    }

    fn records(&self, rows: Vec<MatchRow>) -> Result<Vec<MatchRecord>, StoreError> {
        let mut conn = self.conn()?;
        let ids: Vec<&MatchId> = rows.iter().map(|m| &m.id).collect();
        let game_rows: Vec<GameRow> = games::table
            .filter(games::match_id.eq_any(ids))
            .order((games::match_id.asc(), games::number.asc()))
            .select(GameRow::as_select())
            .load(&mut *conn)?;
        let game_ids: Vec<&GameId> = game_rows.iter().map(|g| &g.id).collect();
        let plies: HashMap<GameId, i64> = moves::table
            .filter(moves::game_id.eq_any(&game_ids))
            .group_by(moves::game_id)
            .select((moves::game_id, diesel::dsl::count_star()))
            .load::<(GameId, i64)>(&mut *conn)?
            .into_iter()
            .collect();
        let mut outages: HashMap<GameId, Vec<Outage>> = HashMap::new();
        for (game_id, stopped_ms, resumed_ms) in clock_pauses::table
            .filter(clock_pauses::game_id.eq_any(&game_ids))
            .order(clock_pauses::stopped_ms.asc())
            .select((
                clock_pauses::game_id,
                clock_pauses::stopped_ms,
                clock_pauses::resumed_ms,
            ))
            .load::<(GameId, i64, i64)>(&mut *conn)?
        {
            outages.entry(game_id).or_default().push(Outage {
                stopped_ms,
                resumed_ms,
            });
        }
        let mut games_of: HashMap<MatchId, Vec<GameRecord>> = HashMap::new();
        for g in game_rows {
            // Each was read by its match id.
            let Some(match_id) = g.match_id.clone() else {
                continue;
            };
            games_of.entry(match_id).or_default().push(GameRecord {
                plies: plies.get(&g.id).copied().unwrap_or(0),
                outages: outages.remove(&g.id).unwrap_or_default(),
                id: g.id,
                number: g.number,
                south_id: g.south_id,
                north_id: g.north_id,
                status: g.status,
                end_reason: g.end_reason,
                started_at: g.started_at,
                ended_at: g.ended_at,
            });
        }
        let user_ids: Vec<&UserId> = rows
            .iter()
            .flat_map(|m| [&m.first_id, &m.second_id])
            .collect();
        let person = people(&mut conn, &user_ids)?;
        rows.into_iter()
            .map(|row| {
                Ok(MatchRecord {
                    first: person(&row.first_id)?,
                    second: person(&row.second_id)?,
                    games: games_of.remove(&row.id).unwrap_or_default(),
                    row,
                })
            })
            .collect()
    }

    /// How `a` and `b` have done against each other: over matches that are over, and over
    /// their games that are over.
    pub fn head_to_head(&self, a: &UserId, b: &UserId) -> Result<(Tally, Tally), StoreError> {
        let mut conn = self.conn()?;
        let between = matches::first_id
            .eq(a)
            .and(matches::second_id.eq(b))
            .or(matches::first_id.eq(b).and(matches::second_id.eq(a)));
        let results: Vec<Option<UserId>> = matches::table
            .filter(between)
            .filter(matches::status.ne(MatchStatus::Playing))
            .select(matches::winner_id)
            .load(&mut *conn)?;
        let mut over_matches = Tally::default();
        for winner in results {
            over_matches.played += 1;
            match winner.as_ref() {
                Some(w) if w == a => over_matches.won[0] += 1,
                Some(w) if w == b => over_matches.won[1] += 1,
                _ => over_matches.drawn += 1,
            }
        }
        let pair = games::south_id
            .eq(a)
            .and(games::north_id.eq(b))
            .or(games::south_id.eq(b).and(games::north_id.eq(a)));
        let played: Vec<(UserId, UserId, Status)> = games::table
            .filter(pair)
            .filter(games::status.ne(Status::Playing))
            .select((games::south_id, games::north_id, games::status))
            .load(&mut *conn)?;
        let mut over_games = Tally::default();
        for (south, north, status) in played {
            let winner = match status {
                Status::SouthWon => Some(south),
                Status::NorthWon => Some(north),
                Status::Playing | Status::Draw => None,
            };
            over_games.played += 1;
            match winner.as_ref() {
                Some(w) if w == a => over_games.won[0] += 1,
                Some(_) => over_games.won[1] += 1,
                None => over_games.drawn += 1,
            }
        }
        Ok((over_matches, over_games))
    }
}

// A room's writes, on a connection: the `Store` methods above, and one of a room's writes
// under its fence (`room_writes.rs`).

/// The users `ids` name, read at once: a lookup that says which one is missing.
pub(super) fn people(
    conn: &mut Db,
    ids: &[&UserId],
) -> Result<impl Fn(&UserId) -> Result<UserRow, StoreError>, StoreError> {
    let found: HashMap<UserId, UserRow> = users::table
        .filter(users::id.eq_any(ids))
        .select(UserRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|u| (u.id.clone(), u))
        .collect();
    Ok(move |id: &UserId| {
        found
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::NotFound(format!("user {id}")))
    })
}

pub(super) fn insert_match_on(conn: &mut Db, row: &MatchRow) -> Result<(), StoreError> {
    diesel::insert_into(matches::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

pub(super) fn mark_rated_on(conn: &mut Db, id: &MatchId) -> Result<(), StoreError> {
    diesel::insert_into(rated_matches::table)
        .values(rated_matches::match_id.eq(id))
        .execute(conn)?;
    Ok(())
}

pub(super) fn set_points_on(
    conn: &mut Db,
    id: &MatchId,
    halves: [u32; 2],
) -> Result<(), StoreError> {
    diesel::update(matches::table.find(id))
        .set((
            matches::first_halves.eq(halves[0] as i32),
            matches::second_halves.eq(halves[1] as i32),
        ))
        .execute(conn)?;
    Ok(())
}

pub(super) fn finish_match_on(
    conn: &mut Db,
    id: &MatchId,
    result: &MatchResult,
    ended_at: NaiveDateTime,
) -> Result<bool, StoreError> {
    let changed = diesel::update(
        matches::table
            .find(id)
            .filter(matches::status.eq(MatchStatus::Playing)),
    )
    .set((
        matches::status.eq(result.status),
        matches::winner_id.eq(&result.winner_id),
        matches::end_reason.eq(&result.end_reason),
        matches::first_halves.eq(result.halves[0] as i32),
        matches::second_halves.eq(result.halves[1] as i32),
        matches::ended_at.eq(ended_at),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}

/// `Store::record_outage` inside a transaction of the caller's. The same outage again (a
/// start that failed before its first heartbeat) lasted until this start: updated first, so
/// that no statement fails inside the transaction (which PostgreSQL would abort).
pub(super) fn record_outage_on(
    conn: &mut Db,
    game_id: &GameId,
    stopped_ms: u64,
    resumed_ms: u64,
) -> Result<(), StoreError> {
    let again = diesel::update(clock_pauses::table.find((game_id, ms(stopped_ms))))
        .set(clock_pauses::resumed_ms.eq(ms(resumed_ms)))
        .execute(conn)?;
    if again == 0 {
        diesel::insert_into(clock_pauses::table)
            .values((
                clock_pauses::game_id.eq(game_id),
                clock_pauses::stopped_ms.eq(ms(stopped_ms)),
                clock_pauses::resumed_ms.eq(ms(resumed_ms)),
            ))
            .execute(conn)?;
    }
    Ok(())
}
