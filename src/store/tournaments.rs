//! Arena tournaments as stored: what an operator scheduled, who may join and who did (their
//! score, their wins in a row), and each game the room paired with the points each side
//! took once the results' reader "tournaments" read its result. The database is the truth;
//! the standings in Redis are fed from it.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;

use super::schema::{
    game_results, games, result_cursors, tournament_entries, tournament_pairings,
    tournament_players, tournaments, users,
};
use super::{Store, StoreError, UserRow};
use crate::ayo::Rules;
use crate::common::{MatchId, OperatorName, RoomId, TableId, TournamentId, UserId};

/// A tournament as scheduled; `tables` a JSON array of table ids.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournaments)]
pub struct TournamentRow {
    pub id: TournamentId,
    pub name: String,
    pub room_id: RoomId,
    pub starts_at: NaiveDateTime,
    pub ends_at: NaiveDateTime,
    pub rules: Rules,
    /// As a client sends it: `5m`, `3+2`.
    pub clock: String,
    pub tables: String,
    pub invited_only: bool,
    pub rated: bool,
    pub created_by: String,
    pub created_at: NaiveDateTime,
    pub finished_at: Option<NaiveDateTime>,
    pub winner_id: Option<UserId>,
    /// Its players may go berserk (half their clock, one point more for a win).
    pub berserk: bool,
}

impl TournamentRow {
    /// The tables it plays at (a row whose list does not read has none).
    pub fn table_ids(&self) -> Vec<TableId> {
        serde_json::from_str(&self.tables).unwrap_or_default()
    }
}

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_players)]
pub struct PlayerRow {
    pub tournament_id: TournamentId,
    pub user_id: UserId,
    pub joined_at: NaiveDateTime,
    pub left_at: Option<NaiveDateTime>,
    pub score: i32,
    pub wins_in_a_row: i32,
    pub games: i32,
}

/// A game a tournament paired (its match's id: one game a match).
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_pairings)]
pub struct PairingRow {
    pub match_id: MatchId,
    pub tournament_id: TournamentId,
    pub south_id: UserId,
    pub north_id: UserId,
    pub table_id: TableId,
    pub paired_at: NaiveDateTime,
    pub south_points: Option<i32>,
    pub north_points: Option<i32>,
    pub south_berserk: bool,
    pub north_berserk: bool,
}

impl PairingRow {
    /// Whether `user` went berserk in this game.
    pub fn berserk_of(&self, user: &UserId) -> bool {
        (self.south_berserk && &self.south_id == user)
            || (self.north_berserk && &self.north_id == user)
    }
}

/// What a match a tournament paired allows at its table: no rematch ever, berserk when the
/// tournament allows it (and who went berserk already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaMatch {
    pub berserk_allowed: bool,
    pub berserk: Vec<UserId>,
}

/// What reading one result did to a tournament: the pairing's points and both players as
/// they stand after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scored {
    pub match_id: MatchId,
    pub points: [i32; 2],
    pub players: [PlayerRow; 2],
}

/// Why a guest may not join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinRefused {
    NoSuchTournament,
    Over,
    NotInvited,
}

impl Store {
    /// Schedules a tournament, with who may join one for the invited only (each a user, once:
    /// `NotFound` otherwise), audited.
    pub fn create_tournament(
        &self,
        operator: &OperatorName,
        row: &TournamentRow,
        invited: &[UserId],
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            let known: i64 = users::table
                .filter(users::id.eq_any(invited))
                .count()
                .get_result(conn)?;
            if usize::try_from(known).ok() != Some(invited.len()) {
                return Err(StoreError::NotFound("an invited user".into()));
            }
            diesel::insert_into(tournaments::table)
                .values(row)
                .execute(conn)?;
            for user in invited {
                diesel::insert_into(tournament_entries::table)
                    .values((
                        tournament_entries::tournament_id.eq(&row.id),
                        tournament_entries::user_id.eq(user),
                    ))
                    .execute(conn)?;
            }
            let details = serde_json::json!({
                "name": row.name, "room": row.room_id, "starts_at": row.starts_at,
                "ends_at": row.ends_at, "clock": row.clock, "tables": row.table_ids(),
                "invited": invited, "rated": row.rated, "berserk": row.berserk,
            });
            self.audit_in(
                conn,
                operator,
                "tournament.create",
                row.id.as_str(),
                &details,
            )
        })
    }

    pub fn tournament(&self, id: &TournamentId) -> Result<Option<TournamentRow>, StoreError> {
        Ok(tournaments::table
            .find(id)
            .select(TournamentRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?)
    }

    /// Tournaments not finished yet, the soonest first; in one room when `room` is given.
    pub fn open_tournaments(
        &self,
        room: Option<&RoomId>,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let mut query = tournaments::table
            .filter(tournaments::finished_at.is_null())
            .order((tournaments::starts_at.asc(), tournaments::id.asc()))
            .select(TournamentRow::as_select())
            .into_boxed();
        if let Some(room) = room {
            query = query.filter(tournaments::room_id.eq(room));
        }
        Ok(query.load(&mut *self.conn()?)?)
    }

    /// `user` joins (again, after leaving: with the score they had) while it is not over.
    pub fn join_tournament(
        &self,
        id: &TournamentId,
        user: &UserId,
        now: NaiveDateTime,
    ) -> Result<Result<(), JoinRefused>, StoreError> {
        self.write(|conn| {
            let Some(t) = tournaments::table
                .find(id)
                .select(TournamentRow::as_select())
                .first(conn)
                .optional()?
            else {
                return Ok(Err(JoinRefused::NoSuchTournament));
            };
            if t.finished_at.is_some() || t.ends_at <= now {
                return Ok(Err(JoinRefused::Over));
            }
            if t.invited_only {
                let listed: i64 = tournament_entries::table
                    .find((id, user))
                    .count()
                    .get_result(conn)?;
                if listed == 0 {
                    return Ok(Err(JoinRefused::NotInvited));
                }
            }
            let back = diesel::update(tournament_players::table.find((id, user)))
                .set(tournament_players::left_at.eq(None::<NaiveDateTime>))
                .execute(conn)?;
            if back == 0 {
                diesel::insert_into(tournament_players::table)
                    .values(PlayerRow {
                        tournament_id: id.clone(),
                        user_id: user.clone(),
                        joined_at: now,
                        left_at: None,
                        score: 0,
                        wins_in_a_row: 0,
                        games: 0,
                    })
                    .execute(conn)?;
            }
            Ok(Ok(()))
        })
    }

    /// `user` leaves: paired no more, their score kept. Whether they were in it.
    pub fn leave_tournament(
        &self,
        id: &TournamentId,
        user: &UserId,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        self.write(|conn| {
            Ok(diesel::update(
                tournament_players::table
                    .find((id, user))
                    .filter(tournament_players::left_at.is_null()),
            )
            .set(tournament_players::left_at.eq(Some(now)))
            .execute(conn)?
                > 0)
        })
    }

    /// The tournaments not finished that `user` is in (joined, not left).
    pub fn tournaments_of(&self, user: &UserId) -> Result<Vec<TournamentId>, StoreError> {
        Ok(tournament_players::table
            .inner_join(
                tournaments::table.on(tournaments::id.eq(tournament_players::tournament_id)),
            )
            .filter(tournament_players::user_id.eq(user))
            .filter(tournament_players::left_at.is_null())
            .filter(tournaments::finished_at.is_null())
            .select(tournaments::id)
            .order(tournaments::starts_at.asc())
            .load(&mut *self.conn()?)?)
    }

    /// Its players with their users, best score first (then who joined first).
    pub fn tournament_players(
        &self,
        id: &TournamentId,
    ) -> Result<Vec<(PlayerRow, UserRow)>, StoreError> {
        Ok(tournament_players::table
            .inner_join(users::table.on(users::id.eq(tournament_players::user_id)))
            .filter(tournament_players::tournament_id.eq(id))
            .order((
                tournament_players::score.desc(),
                tournament_players::joined_at.asc(),
                tournament_players::user_id.asc(),
            ))
            .select((PlayerRow::as_select(), UserRow::as_select()))
            .load(&mut *self.conn()?)?)
    }

    /// Each player's last opponent in the tournament, and when they were paired.
    pub fn last_opponents(
        &self,
        id: &TournamentId,
    ) -> Result<HashMap<UserId, (UserId, NaiveDateTime)>, StoreError> {
        let pairings: Vec<(UserId, UserId, NaiveDateTime)> = tournament_pairings::table
            .filter(tournament_pairings::tournament_id.eq(id))
            .order((
                tournament_pairings::paired_at.asc(),
                tournament_pairings::match_id.asc(),
            ))
            .select((
                tournament_pairings::south_id,
                tournament_pairings::north_id,
                tournament_pairings::paired_at,
            ))
            .load(&mut *self.conn()?)?;
        let mut last = HashMap::new();
        for (south, north, at) in pairings {
            last.insert(south.clone(), (north.clone(), at));
            last.insert(north, (south, at));
        }
        Ok(last)
    }

    /// What the match `id` allows if a tournament paired it (`None`: it is not a pairing).
    pub fn arena_match(&self, id: &MatchId) -> Result<Option<ArenaMatch>, StoreError> {
        let mut conn = self.conn()?;
        let pairing: Option<PairingRow> = tournament_pairings::table
            .find(id)
            .select(PairingRow::as_select())
            .first(&mut *conn)
            .optional()?;
        let Some(p) = pairing else {
            return Ok(None);
        };
        let allowed: bool = tournaments::table
            .find(&p.tournament_id)
            .select(tournaments::berserk)
            .first(&mut *conn)?;
        Ok(Some(ArenaMatch {
            berserk_allowed: allowed,
            berserk: [
                (p.south_berserk, &p.south_id),
                (p.north_berserk, &p.north_id),
            ]
            .into_iter()
            .filter(|(b, _)| *b)
            .map(|(_, u)| u.clone())
            .collect(),
        }))
    }

    /// The pairing a stored game belongs to, with its tournament's player rows.
    pub fn pairing_of_game(
        &self,
        game: &crate::common::GameId,
    ) -> Result<Option<(PairingRow, [PlayerRow; 2])>, StoreError> {
        let mut conn = self.conn()?;
        let pairing: Option<PairingRow> = games::table
            .find(game)
            .inner_join(
                tournament_pairings::table
                    .on(games::match_id.eq(tournament_pairings::match_id.nullable())),
            )
            .select(PairingRow::as_select())
            .first(&mut *conn)
            .optional()?;
        let Some(pairing) = pairing else {
            return Ok(None);
        };
        let mut player = |user: &UserId| {
            tournament_players::table
                .find((&pairing.tournament_id, user))
                .select(PlayerRow::as_select())
                .first(&mut *conn)
        };
        let south = player(&pairing.south_id)?;
        let north = player(&pairing.north_id)?;
        Ok(Some((pairing, [south, north])))
    }

    /// The points of the results read from `from` to `seq` and the players after them, and
    /// `reader`'s cursor moved past them, in one transaction; false (nothing written) when
    /// the cursor was no longer at `from`.
    pub fn store_tournament_points(
        &self,
        reader: &str,
        from: i64,
        seq: i64,
        scored: &[Scored],
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
            for s in scored {
                diesel::update(tournament_pairings::table.find(&s.match_id))
                    .set((
                        tournament_pairings::south_points.eq(Some(s.points[0])),
                        tournament_pairings::north_points.eq(Some(s.points[1])),
                    ))
                    .execute(conn)?;
                for p in &s.players {
                    diesel::update(tournament_players::table.find((&p.tournament_id, &p.user_id)))
                        .set((
                            tournament_players::score.eq(p.score),
                            tournament_players::wins_in_a_row.eq(p.wins_in_a_row),
                            tournament_players::games.eq(p.games),
                        ))
                        .execute(conn)?;
                }
            }
            super::cursors::move_cursor_on(conn, reader, seq, self.now())?;
            Ok(true)
        })
    }

    /// Whether every result of the tournament's games has been read (its points stored).
    pub fn tournament_results_read(&self, id: &TournamentId) -> Result<bool, StoreError> {
        let unread: i64 = game_results::table
            .inner_join(games::table.on(games::id.eq(game_results::game_id)))
            .inner_join(
                tournament_pairings::table
                    .on(games::match_id.eq(tournament_pairings::match_id.nullable())),
            )
            .filter(tournament_pairings::tournament_id.eq(id))
            .filter(tournament_pairings::south_points.is_null())
            .count()
            .get_result(&mut *self.conn()?)?;
        Ok(unread == 0)
    }

    /// The tournament is over: its winner (none without a player) kept with it.
    pub fn finish_tournament(
        &self,
        id: &TournamentId,
        winner: Option<&UserId>,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.write(|conn| {
            diesel::update(
                tournaments::table
                    .find(id)
                    .filter(tournaments::finished_at.is_null()),
            )
            .set((
                tournaments::finished_at.eq(Some(now)),
                tournaments::winner_id.eq(winner),
            ))
            .execute(conn)?;
            Ok(())
        })
    }
}

/// `user` went berserk in the game of the pairing `id` (a room's write, under its fence when
/// it has one).
pub(super) fn berserk_on(
    conn: &mut super::Db,
    id: &MatchId,
    user: &UserId,
) -> Result<(), StoreError> {
    let row = tournament_pairings::table.find(id);
    let south = diesel::update(row.filter(tournament_pairings::south_id.eq(user)))
        .set(tournament_pairings::south_berserk.eq(true))
        .execute(conn)?;
    let north = diesel::update(row.filter(tournament_pairings::north_id.eq(user)))
        .set(tournament_pairings::north_berserk.eq(true))
        .execute(conn)?;
    if south + north == 0 {
        return Err(StoreError::NotFound(
            "a tournament game of that player".into(),
        ));
    }
    Ok(())
}

/// A game paired, stored with the match its room starts for it (in one transaction).
pub(super) fn add_pairing_on(conn: &mut super::Db, row: &PairingRow) -> Result<(), StoreError> {
    diesel::insert_into(tournament_pairings::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}
