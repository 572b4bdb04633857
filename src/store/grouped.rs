//! Moves stored together on PostgreSQL: every room whose move waits to be stored when the
//! last group is done goes in the next one, one transaction for all of them (their rooms'
//! fences checked in one UPDATE, their games' states read in one SELECT, their rows added in
//! one INSERT), so the round trips and the commit's flush are paid once a group, not once a
//! move. A move alone costs what it did; at a thousand moves a second a group holds several.
//!
//! A group that fails as a whole (one of its rows breaking a key, the connection gone) is
//! stored again one move at a time, each answered for itself. SQLite needs none of this: a
//! move there is one INSERT on the rooms' own thread (`game_moves.rs`).

use std::collections::HashMap;
use std::sync::mpsc;

use diesel::prelude::*;
use tokio::sync::oneshot;

use super::game_moves::{column, in_play, new_move};
use super::schema::{games, moves, room_fences};
use super::{Backend, Db, MoveClock, Store, StoreError};
use crate::ayo::Status;
use crate::common::{GameId, RoomId};

/// The most moves one group holds: a bound on one transaction's size, far above what waits.
const MOST: usize = 256;

/// A move to store: the game, its ply and pit, the clocks after it, and the room's fence
/// when its room is leased (its owner's fencing number, checked in the same transaction).
#[derive(Debug, Clone)]
pub struct MoveToStore {
    pub fence: Option<(RoomId, u64)>,
    pub game: GameId,
    pub ply: u32,
    pub pit: u8,
    pub clock: Option<MoveClock>,
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
    while let Ok(first) = jobs.recv() {
        let mut group = vec![first];
        while group.len() < MOST {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        let moves: Vec<MoveToStore> = group.iter().map(|(m, _)| m.clone()).collect();
        let stored = store.store_group(&moves);
        for ((_, answer), stored) in group.into_iter().zip(stored) {
            let _ = answer.send(stored);
        }
    }
}

impl Store {
    /// Stores `m` with whatever other moves wait (PostgreSQL): answered once its group is
    /// committed, `Fenced` when its room is a later owner's. `None` on SQLite.
    pub fn store_move_grouped(
        &self,
        m: MoveToStore,
    ) -> Option<oneshot::Receiver<Result<(), StoreError>>> {
        let groups = self.groups.as_ref()?;
        let (answer, answered) = oneshot::channel();
        groups.waiting.send((m, answer)).ok()?;
        Some(answered)
    }

    /// One transaction for all of `moves`; each answered for itself.
    fn store_group(&self, moves: &[MoveToStore]) -> Vec<Result<(), StoreError>> {
        debug_assert_eq!(self.backend, Backend::Postgres);
        match self.write(|conn| group_on(conn, moves)) {
            Ok(each) => each,
            Err(e) if moves.len() == 1 => vec![Err(e)],
            // Something in it broke the whole: one at a time, so only that one fails.
            Err(_) => moves
                .iter()
                .map(|m| {
                    self.write(|conn| group_on(conn, std::slice::from_ref(m)))
                        .and_then(|mut each| each.pop().unwrap_or(Ok(())))
                })
                .collect(),
        }
    }
}

/// Checks the fences and the games of `moves`, and adds the rows of those that pass, on
/// `conn` in a transaction; what each came to.
fn group_on(
    conn: &mut Db,
    moves: &[MoveToStore],
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
    let mut each = Vec::with_capacity(moves.len());
    let mut rows = Vec::with_capacity(moves.len());
    for m in moves {
        let ok = fenced_in(m, &fences)
            .and_then(|()| in_play(states.get(&m.game).copied(), &m.game))
            .and_then(|()| column(m.ply));
        match ok {
            Ok(ply) => {
                rows.push(new_move(&m.game, ply, m.pit, m.clock));
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
