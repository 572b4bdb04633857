//! Moves stored together on PostgreSQL: every room whose move waits to be stored when the
//! last group is done goes in the next one, one statement for all of them on a connection
//! of this thread's own (`ONE_STATEMENT`: their rooms' fence rows held, their games checked,
//! their rows added), so a group costs one round trip and one commit (one flush of the log),
//! not one a move.
//!
//! A move the statement did not add (a later owner's room, a game over), and a group that
//! failed as a whole (a row breaking a key, the connection gone), go through the pool in one
//! transaction (`group_on`), then one at a time, each answered for itself. SQLite needs none
//! of this: a move there is one INSERT on the rooms' own thread (`game_moves.rs`).

use std::collections::HashMap;
use std::sync::mpsc;

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamp};
use diesel::PgConnection;
use tokio::sync::oneshot;

use super::game_moves::{column, in_play, new_move};
use super::schema::{games, moves, room_fences};
use super::{Backend, Db, MoveClock, Store, StoreError};
use crate::ayo::Status;
use crate::common::{GameId, RoomId};

/// The most moves one group holds: a bound on one transaction's size, far above what waits.
const MOST: usize = 256;

/// A move waiting to be stored: the game, its ply and pit, the clocks after it, and the
/// room's fence when its room is leased (its owner's fencing number, checked with it).
#[derive(Debug, Clone)]
struct MoveToStore {
    fence: Option<(RoomId, u64)>,
    game: GameId,
    ply: u32,
    pit: u8,
    clock: Option<MoveClock>,
}

type Job = (MoveToStore, oneshot::Sender<Result<(), StoreError>>);

/// Where moves wait for the next group, and the thread that stores them.
pub(super) struct Groups {
    waiting: mpsc::Sender<Job>,
}

impl Groups {
    /// The grouping thread for `store` (PostgreSQL); it ends when the last sender goes.
    pub(super) fn start(store: Store) -> Groups {
        let (waiting, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("lounge-moves".into())
            .spawn(move || run(&store, &jobs))
            .expect("a thread for the moves");
        Groups { waiting }
    }
}

fn run(store: &Store, jobs: &mpsc::Receiver<Job>) {
    let mut own: Option<PgConnection> = None;
    while let Ok(first) = jobs.recv() {
        let mut group = vec![first];
        while group.len() < MOST {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        let (moves, answers): (Vec<MoveToStore>, Vec<_>) = group.into_iter().unzip();
        let stored = store.store_group(&mut own, &moves);
        for (answer, stored) in answers.into_iter().zip(stored) {
            let _ = answer.send(stored);
        }
    }
}

impl Store {
    /// Stores the move `ply` (`pit`, the clocks after it) of `game` with whatever other
    /// moves wait (PostgreSQL), under its room's `fence` when leased: answered once its
    /// group is committed, `Fenced` when its room is a later owner's. `None` on SQLite,
    /// having copied nothing.
    pub fn store_move_grouped(
        &self,
        fence: Option<(&RoomId, u64)>,
        game: &GameId,
        ply: u32,
        pit: u8,
        clock: Option<MoveClock>,
    ) -> Option<oneshot::Receiver<Result<(), StoreError>>> {
        let groups = self.groups.as_ref()?;
        let m = MoveToStore {
            fence: fence.map(|(room, number)| (room.clone(), number)),
            game: game.clone(),
            ply,
            pit,
            clock,
        };
        let (answer, answered) = oneshot::channel();
        groups.waiting.send((m, answer)).ok()?;
        Some(answered)
    }

    /// All of `moves` in one statement on the thread's own connection (`own`, made again
    /// when it is gone); what it did not add, and a group it failed on as a whole, through
    /// the pool, where each is answered for itself.
    fn store_group(
        &self,
        own: &mut Option<PgConnection>,
        moves: &[MoveToStore],
    ) -> Vec<Result<(), StoreError>> {
        debug_assert_eq!(self.backend, Backend::Postgres);
        match self.one_statement(own, moves) {
            Ok(added) if added.len() == moves.len() => {
                return moves.iter().map(|_| Ok(())).collect()
            }
            Ok(added) => {
                // Refused (a later owner's room, a game over): the pool's way says why.
                let mut each: Vec<Option<Result<(), StoreError>>> =
                    moves.iter().map(|_| None).collect();
                for i in added {
                    each[i] = Some(Ok(()));
                }
                let rest: Vec<MoveToStore> = (0..moves.len())
                    .filter(|&i| each[i].is_none())
                    .map(|i| moves[i].clone())
                    .collect();
                let mut why = self.through_pool(&rest).into_iter();
                return each
                    .into_iter()
                    .map(|e| {
                        e.unwrap_or_else(|| {
                            why.next().unwrap_or_else(|| {
                                Err(StoreError::Conflict("a move left unanswered".into()))
                            })
                        })
                    })
                    .collect();
            }
            Err(e) => {
                tracing::debug!(error = %e, "a group of moves in one statement");
                // Made again for the next group, should the connection be what failed.
                *own = None;
            }
        }
        self.through_pool(moves)
    }

    /// `moves` in one statement: which of them it added (their places in `moves`).
    fn one_statement(
        &self,
        own: &mut Option<PgConnection>,
        moves: &[MoveToStore],
    ) -> Result<Vec<usize>, StoreError> {
        if own.is_none() {
            let url = self.postgres_url.as_deref().unwrap_or_default();
            let mut conn = PgConnection::establish(url)
                .map_err(|e| StoreError::Conflict(format!("a connection for moves: {e}")))?;
            // A hung statement is an error, not every room's moves waiting for ever.
            conn.batch_execute("SET statement_timeout TO '10s'")?;
            *own = Some(conn);
        }
        let conn = own.as_mut().expect("made above");
        let each_of = |f: &dyn Fn(&MoveToStore) -> Option<i64>| -> Vec<Option<i64>> {
            moves.iter().map(f).collect()
        };
        let idx: Vec<i32> = (0..moves.len()).map(|i| i as i32).collect();
        let rooms: Vec<Option<String>> = moves
            .iter()
            .map(|m| m.fence.as_ref().map(|(r, _)| r.as_str().to_owned()))
            .collect();
        let fences = each_of(&|m| m.fence.as_ref().and_then(|(_, f)| i64::try_from(*f).ok()));
        let games: Vec<String> = moves.iter().map(|m| m.game.as_str().to_owned()).collect();
        let plies: Vec<i32> = moves
            .iter()
            .map(|m| column(m.ply))
            .collect::<Result<_, _>>()?;
        let pits: Vec<i32> = moves.iter().map(|m| i32::from(m.pit)).collect();
        let at = each_of(&|m| m.clock.map(|c| super::matches::ms(c.at_ms)));
        let south = each_of(&|m| m.clock.map(|c| super::matches::ms(c.left[0])));
        let north = each_of(&|m| m.clock.map(|c| super::matches::ms(c.left[1])));
        let added: Vec<Added> = diesel::sql_query(ONE_STATEMENT)
            .bind::<Array<Integer>, _>(idx)
            .bind::<Array<Nullable<Text>>, _>(rooms)
            .bind::<Array<Nullable<BigInt>>, _>(fences)
            .bind::<Array<Text>, _>(games)
            .bind::<Array<Integer>, _>(plies)
            .bind::<Array<Integer>, _>(pits)
            .bind::<Array<Nullable<BigInt>>, _>(at)
            .bind::<Array<Nullable<BigInt>>, _>(south)
            .bind::<Array<Nullable<BigInt>>, _>(north)
            .bind::<Timestamp, _>(self.now())
            .load(conn)?;
        Ok(added
            .into_iter()
            .filter_map(|a| usize::try_from(a.idx).ok())
            .collect())
    }

    /// One transaction for all of `moves` through the pool; each answered for itself.
    fn through_pool(&self, moves: &[MoveToStore]) -> Vec<Result<(), StoreError>> {
        if moves.is_empty() {
            return Vec::new();
        }
        let played_at = self.now();
        match self.write(|conn| group_on(conn, moves, played_at)) {
            Ok(each) => each,
            Err(e) if moves.len() == 1 => vec![Err(e)],
            // Something in it broke the whole: one at a time, so only that one fails.
            Err(_) => moves
                .iter()
                .map(|m| {
                    self.write(|conn| group_on(conn, std::slice::from_ref(m), played_at))
                        .and_then(|mut each| {
                            each.pop().unwrap_or_else(|| {
                                Err(StoreError::Conflict("a move left unanswered".into()))
                            })
                        })
                })
                .collect(),
        }
    }
}

/// A group of moves in one statement: the rooms' fence rows held (`UPDATE`) where the move
/// carries one and its number is the room's, the games in play, and the rows of the moves
/// that pass both added; answered with the places of those added.
const ONE_STATEMENT: &str = "
WITH input AS (
  SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::int[],
                       $7::bigint[], $8::bigint[], $9::bigint[])
    AS i(idx, room_id, fence, game_id, ply, pit, at_ms, south_ms, north_ms)
), held AS (
  UPDATE room_fences f SET fence = f.fence FROM input i
  WHERE i.room_id IS NOT NULL AND f.room_id = i.room_id AND f.fence = i.fence
  RETURNING f.room_id, f.fence
), passing AS (
  SELECT i.* FROM input i JOIN games g ON g.id = i.game_id
  WHERE g.status = 'playing'
    AND (i.room_id IS NULL OR (i.room_id, i.fence) IN (SELECT room_id, fence FROM held))
), added AS (
  INSERT INTO moves (game_id, ply, pit, played_at, at_ms, south_ms, north_ms)
  SELECT game_id, ply, pit, $10, at_ms, south_ms, north_ms FROM passing
  RETURNING game_id, ply
)
SELECT p.idx FROM passing p JOIN added a ON a.game_id = p.game_id AND a.ply = p.ply";

#[derive(QueryableByName)]
struct Added {
    #[diesel(sql_type = Integer)]
    idx: i32,
}

/// Checks the fences and the games of `moves`, and adds the rows of those that pass, on
/// `conn` in a transaction; what each came to.
fn group_on(
    conn: &mut Db,
    moves: &[MoveToStore],
    played_at: NaiveDateTime,
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    // The rooms' rows held till the commit, as `Store::fenced` holds one: a takeover waits.
    let rooms: Vec<&RoomId> = moves
        .iter()
        .filter_map(|m| m.fence.as_ref().map(|(r, _)| r))
        .collect();
    let fences: HashMap<RoomId, i64> = if rooms.is_empty() {
        HashMap::new()
    } else {
        diesel::update(room_fences::table.filter(room_fences::room_id.eq_any(&rooms)))
            .set(room_fences::fence.eq(room_fences::fence))
            .returning((room_fences::room_id, room_fences::fence))
            .get_results::<(RoomId, i64)>(conn)?
            .into_iter()
            .collect()
    };
    let ids: Vec<&GameId> = moves.iter().map(|m| &m.game).collect();
    let states: HashMap<GameId, Status> = games::table
        .filter(games::id.eq_any(&ids))
        .select((games::id, games::status))
        .load::<(GameId, Status)>(conn)?
        .into_iter()
        .collect();
    // A move already stored as sent is done: a statement whose answer was lost may have
    // committed it (the same ply with another pit is refused below, on the key).
    let stored: HashMap<(GameId, i32), i32> = moves::table
        .filter(moves::game_id.eq_any(&ids))
        .select((moves::game_id, moves::ply, moves::pit))
        .load::<(GameId, i32, i32)>(conn)?
        .into_iter()
        .map(|(game, ply, pit)| ((game, ply), pit))
        .collect();
    let mut each = Vec::with_capacity(moves.len());
    let mut rows = Vec::with_capacity(moves.len());
    for m in moves {
        let ply = i32::try_from(m.ply).unwrap_or(i32::MAX);
        if stored.get(&(m.game.clone(), ply)) == Some(&i32::from(m.pit)) {
            each.push(fenced_in(m, &fences));
            continue;
        }
        let ok = fenced_in(m, &fences)
            .and_then(|()| in_play(states.get(&m.game).copied(), &m.game))
            .and_then(|()| column(m.ply));
        match ok {
            Ok(ply) => {
                rows.push(new_move(&m.game, ply, m.pit, m.clock, played_at));
                each.push(Ok(()));
            }
            Err(e) => each.push(Err(e)),
        }
    }
    match conn {
        // All the rows in one statement.
        Db::Postgres(conn) if !rows.is_empty() => {
            diesel::insert_into(moves::table)
                .values(&rows)
                .execute(conn)?;
        }
        Db::Postgres(_) => {}
        // Groups are PostgreSQL's; one at a time elsewhere.
        Db::Sqlite(conn) => {
            for row in &rows {
                diesel::insert_into(moves::table)
                    .values(row)
                    .execute(conn)?;
            }
        }
    }
    Ok(each)
}

/// Whether `m`'s room is still its owner's under the number it holds.
fn fenced_in(m: &MoveToStore, fences: &HashMap<RoomId, i64>) -> Result<(), StoreError> {
    let Some((room, mine)) = &m.fence else {
        return Ok(());
    };
    let latest = fences.get(room).copied().unwrap_or(0);
    if i64::try_from(*mine).is_ok_and(|mine| mine == latest) {
        Ok(())
    } else {
        Err(StoreError::Fenced {
            room: room.clone(),
            mine: *mine,
            latest: latest.max(0) as u64,
        })
    }
}
