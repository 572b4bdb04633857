//! What a game's record is written from: the game, its match's clock, its players, and its
//! moves with the clocks after each.

use std::collections::HashMap;

use diesel::prelude::*;

use super::schema::{games, matches, moves};
use super::{GameRow, Store, StoreError, UserRow};
use crate::ayo::clock::TimeControl;
use crate::ayo::Status;
use crate::common::{GameId, MatchId, UserId};

/// A move as stored: the pit, and when the clocks were kept, when it was played and what each
/// side had left after it (server milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredMove {
    pub pit: u8,
    pub at_ms: Option<u64>,
    /// South's and North's milliseconds left.
    pub left: Option<[u64; 2]>,
}

/// A game with all its record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    pub game: GameRow,
    /// Its match's time control; `None` for a game of no match.
    pub clock: Option<TimeControl>,
    pub south: UserRow,
    pub north: UserRow,
    pub moves: Vec<StoredMove>,
}

fn unms(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

impl Store {
    /// A game with its players, its match's clock and its moves; `None` for no such game.
    pub fn stored_game(&self, id: &GameId) -> Result<Option<StoredGame>, StoreError> {
        let row: Option<GameRow> = games::table
            .find(id)
            .select(GameRow::as_select())
            .first(&mut *self.conn()?)
            .optional()?;
        Ok(self.stored_games(row.into_iter().collect())?.pop())
    }

    /// `user_id`'s games that are over, newest first, from `limit` of their matches older
    /// than the match `before` (paged as the match history is); the match to pass as `before`
    /// for the next page, `None` on the last.
    pub fn games_of(
        &self,
        user_id: &UserId,
        limit: i64,
        before: Option<&MatchId>,
    ) -> Result<(Vec<StoredGame>, Option<MatchId>), StoreError> {
        let mut query = matches::table
            .filter(
                matches::first_id
                    .eq(user_id)
                    .or(matches::second_id.eq(user_id)),
            )
            .order(matches::id.desc())
            .limit(limit + 1)
            .select(matches::id)
            .into_boxed();
        if let Some(before) = before {
            query = query.filter(matches::id.lt(before.to_owned()));
        }
        let mut ids: Vec<MatchId> = query.load(&mut *self.conn()?)?;
        let more = ids.len() as i64 > limit;
        ids.truncate(usize::try_from(limit).unwrap_or(0));
        let next = more.then(|| ids.last().cloned()).flatten();
        let mut rows: Vec<GameRow> = games::table
            .filter(games::match_id.eq_any(&ids))
            .filter(games::status.ne(Status::Playing))
            .select(GameRow::as_select())
            .load(&mut *self.conn()?)?;
        // Newest first: by match, then by number within it.
        rows.sort_by(|a, b| (&b.match_id, b.number).cmp(&(&a.match_id, a.number)));
        Ok((self.stored_games(rows)?, next))
    }

    fn stored_games(&self, rows: Vec<GameRow>) -> Result<Vec<StoredGame>, StoreError> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.conn()?;
        let match_ids: Vec<&MatchId> = rows.iter().filter_map(|g| g.match_id.as_ref()).collect();
        let clocks: HashMap<MatchId, TimeControl> = matches::table
            .filter(matches::id.eq_any(&match_ids))
            .select((matches::id, matches::clock))
            .load::<(MatchId, TimeControl)>(&mut *conn)?
            .into_iter()
            .collect();
        let game_ids: Vec<&GameId> = rows.iter().map(|g| &g.id).collect();
        let mut moves_of: HashMap<GameId, Vec<StoredMove>> = HashMap::new();
        for (game_id, pit, at, south, north) in moves::table
            .filter(moves::game_id.eq_any(&game_ids))
            .order((moves::game_id.asc(), moves::ply.asc()))
            .select((
                moves::game_id,
                moves::pit,
                moves::at_ms,
                moves::south_ms,
                moves::north_ms,
            ))
            .load::<(GameId, i32, Option<i64>, Option<i64>, Option<i64>)>(&mut *conn)?
        {
            let left = unms(south).zip(unms(north)).map(|(s, n)| [s, n]);
            moves_of.entry(game_id).or_default().push(StoredMove {
                pit: u8::try_from(pit).unwrap_or(0),
                at_ms: unms(at),
                left,
            });
        }
        let user_ids: Vec<&UserId> = rows
            .iter()
            .flat_map(|g| [&g.south_id, &g.north_id])
            .collect();
        let person = super::matches::people(&mut conn, &user_ids)?;
        rows.into_iter()
            .map(|game| {
                Ok(StoredGame {
                    clock: game.match_id.as_ref().and_then(|m| clocks.get(m).copied()),
                    south: person(&game.south_id)?,
                    north: person(&game.north_id)?,
                    moves: moves_of.remove(&game.id).unwrap_or_default(),
                    game,
                })
            })
            .collect()
    }
}
