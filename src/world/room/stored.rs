//! What a room's decision stores: each write of a table's `Effects` as the store's rows,
//! by itself (one instance), in one transaction under the room's fence (leased), or a move
//! alone at once; and the games it ended, with whether each counts for the champions.

use crate::ayo::Status;
use crate::champions::WallReason;
use crate::common::{GameId, RoomId};
use crate::house::House;
use crate::store::{self, Finished, GameRow, MatchRow, RoomWriter, Store, StoreError};

use super::super::table::{
    Effects, Event, MatchResult, NewGame, TableEvent, WallVerdict, Win, Write,
};
use super::ResultsConfig;

/// A game a decision ended: its win as stored, and how the store kept it.
pub(super) type Ended = (GameId, Option<store::Win>, Finished);

/// A game's end says whether its result counts for the champions and why not, as the wall's
/// judge decided when the store kept it.
pub(super) fn mark_counted(fx: &mut Effects, ended: &[Ended]) {
    for event in &mut fx.events {
        if let Event::Table {
            event: TableEvent::GameOver { game, wall, .. },
            ..
        } = event
        {
            let Some((_, win, finished)) = ended.iter().find(|(id, _, _)| id == game) else {
                continue;
            };
            let (counts, reason) = WallReason::of_end(win.as_ref(), finished);
            *wall = WallVerdict { counts, reason };
        }
    }
}

/// Stores `writes` in order. A required one failing undoes the matches begun in this batch
/// and fails the whole; the others are logged and passed over, as a game's end that could not
/// be stored is ended again at the next start. Returns the games it ended, with how (whether
/// each counts for the champions). `now` is the server's clock (how old the accounts are).
pub(super) fn store_all(
    store: &Store,
    writes: &[Write],
    results: &ResultsConfig,
    now: u64,
) -> Result<Vec<Ended>, StoreError> {
    let mut ended = Vec::new();
    let mut begun = Vec::new();
    for write in writes {
        match store_one(store, write, results, now) {
            Ok(finished) => {
                if let (Write::GameOver { game, .. }, Some((win, finished))) = (write, finished) {
                    ended.push((game.clone(), win, finished));
                }
                if let Write::NewMatch { id, .. } = write {
                    begun.push(id.clone());
                }
            }
            Err(e) if write.required() => {
                for id in begun {
                    if let Err(e) = store.delete_match(&id) {
                        tracing::error!(error = %e, "taking back a match that could not start");
                    }
                }
                return Err(e);
            }
            Err(e) => tracing::error!(error = %e, ?write, "storing a table's change"),
        }
    }
    Ok(ended)
}

/// `store_all` for a leased room: every write of the decision in one transaction, under
/// the room's fencing number (`Store::room_writes`), so a later owner's number in the room's
/// row refuses all of it (`Fenced`). A write the room may pass over fails on its own
/// savepoint, logged, and the rest stands, as in `store_all`.
pub(super) fn store_fenced(
    store: &Store,
    room: &RoomId,
    fence: u64,
    writes: &[Write],
    results: &ResultsConfig,
    now: u64,
) -> Result<Vec<Ended>, StoreError> {
    store.room_writes(Some((room, fence)), |w| store_in(w, writes, results, now))
}

/// `writes` inside a room's transaction: a required one failing fails it all; one the room
/// may pass over fails on its own savepoint, logged, and the rest stands.
pub(super) fn store_in(
    w: &mut store::RoomWrites<'_>,
    writes: &[Write],
    results: &ResultsConfig,
    now: u64,
) -> Result<Vec<Ended>, StoreError> {
    let mut ended = Vec::new();
    for write in writes {
        let finished = if write.required() {
            store_one(&mut *w, write, results, now)?
        } else {
            match w.part(|w| store_one(w, write, results, now)) {
                Ok(finished) => finished,
                Err(e) => {
                    tracing::error!(error = %e, ?write, "storing a table's change");
                    None
                }
            }
        };
        if let (Write::GameOver { game, .. }, Some((win, finished))) = (write, finished) {
            ended.push((game.clone(), win, finished));
        }
    }
    Ok(ended)
}

/// A decision that is a move alone: its game, ply, pit and the clocks after it.
pub(super) fn lone_move(writes: &[Write]) -> Option<(&GameId, u32, u8, Option<store::MoveClock>)> {
    match writes {
        [Write::Move {
            game,
            ply,
            pit,
            clock,
        }] => Some((game, *ply, pit.number(), clock.map(move_clock))),
        _ => None,
    }
}

/// A move alone stored at once on the room's thread where the store can without waiting
/// (`Store::record_move_at_once`); `None` for anything else.
pub(super) fn at_once(store: &Store, writes: &[Write]) -> Option<Result<(), StoreError>> {
    let (game, ply, pit, clock) = lone_move(writes)?;
    store.record_move_at_once(game, ply, pit, clock)
}

fn move_clock(c: super::super::table::MoveClock) -> store::MoveClock {
    store::MoveClock {
        at_ms: c.at_ms,
        left: c.left,
    }
}

/// Stores one write; for a game's end, how it was stored.
fn store_one(
    mut store: impl RoomWriter,
    write: &Write,
    results: &ResultsConfig,
    now: u64,
) -> Result<Option<(Option<store::Win>, Finished)>, StoreError> {
    match write {
        Write::NewMatch {
            id,
            table,
            players,
            settings,
            rules,
        } => {
            store.insert_match(&MatchRow {
                id: id.clone(),
                table_id: table.clone(),
                first_id: players[0].id.clone(),
                second_id: players[1].id.clone(),
                house: players.iter().any(|p| p.house),
                best_of: i32::from(u8::from(settings.best_of)),
                clock: settings.clock,
                rules: *rules,
                status: store::MatchStatus::Playing,
                winner_id: None,
                end_reason: None,
                first_halves: 0,
                second_halves: 0,
                started_at: store::at_ms(now),
                ended_at: None,
                seats: settings.seats,
            })?;
            if settings.rated && !players.iter().any(|p| p.house) {
                store.mark_rated(id)?;
            }
        }
        Write::NewGame(game) => store.insert_game(&game_row(game, now))?,
        Write::UnstartedGame { game, result } => store.insert_game(&GameRow {
            status: *result,
            end_reason: Some(store::GameEnd::NotStarted),
            ended_at: Some(store::at_ms(now)),
            ..game_row(game, now)
        })?,
        Write::Move {
            game,
            ply,
            pit,
            clock,
        } => {
            store.record_move(game, *ply, pit.number(), clock.map(move_clock))?;
        }
        Write::GameOver {
            game,
            status,
            reason,
            win,
        } => {
            let day = results.clock;
            let win = win.as_ref().map(|w| stored_win(w, now));
            let finished = store.finish_game(
                game,
                *status,
                store::GameEnd::Game(*reason),
                win.as_ref(),
                &|ended| day.day_of(ended.and_utc()),
                &results.rules,
            )?;
            // Already over (ended elsewhere): nothing to say about it here.
            return Ok(finished.finished.then_some((win, finished)));
        }
        Write::MatchPoints { id, halves } => store.set_match_points(id, *halves)?,
        Write::MatchOver { id, result } => {
            store.finish_match(id, &stored_result(result))?;
        }
        Write::Berserk { r#match, user } => store.berserk(r#match, user)?,
    }
    Ok(None)
}

/// The stored row of a game in play from `now`.
fn game_row(game: &NewGame, now: u64) -> GameRow {
    GameRow {
        id: game.id.clone(),
        table_id: game.table.clone(),
        south_id: game.south.id.clone(),
        north_id: game.north.id.clone(),
        rules: game.rules,
        house: game.south.house || game.north.house,
        status: Status::Playing,
        end_reason: None,
        started_at: store::at_ms(now),
        ended_at: None,
        match_id: Some(game.r#match.clone()),
        number: Some(i32::from(game.number)),
        clock_started_ms: game
            .clock_started
            .map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
        first_side: game.first,
    }
}

/// A table's win as stored, ended at `now` on the server's clock.
pub fn stored_win(win: &Win, now: u64) -> store::Win {
    store::Win {
        winner_id: win.winner.clone(),
        loser_id: win.loser.clone(),
        seeds: win.seeds,
        // Baba Ayo's level, when one side was him: his id says it (the table parses no ids).
        house_level: [&win.winner, &win.loser]
            .into_iter()
            .find_map(House::level_of)
            .map(|level| level.name().to_owned()),
        plies: win.plies,
        ended_ms: now,
    }
}

pub fn stored_result(result: &MatchResult) -> store::MatchResult {
    store::MatchResult {
        status: if result.winner.is_some() {
            store::MatchStatus::Won
        } else {
            store::MatchStatus::Draw
        },
        winner_id: result.winner.clone(),
        end_reason: result.end_reason,
        halves: result.halves,
    }
}
