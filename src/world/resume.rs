//! What a start picks up: every match in play, its games over counted again, its game in play
//! replayed from the stored moves, and its clocks put back as they stood when the service
//! stopped (the last heartbeat), the outage recorded and charged to nobody.

use std::collections::HashMap;

use crate::ayo::clock::{Clocks, TimeControl};
use crate::ayo::{EndReason, Game, Pit, Side, Status};
use crate::store::{self, GameRow, MatchRow, RoomWriter, RoomWrites, Store, StoreError};

use super::matches::{GameEnd, LiveMatch, MatchSettings, PlayedGame};
use super::room::{ResultsConfig, ResumedGame, ResumedMatch};
use super::series::BestOf;
use super::table::{result_of, win_of};
use crate::common::{MatchId, RoomId, Seating, ServerClock, TableId, User, UserId};

/// Every match in play, ready for its room (one instance alone, at its start).
pub fn resumable(
    store: &Store,
    clock: &ServerClock,
    results: &ResultsConfig,
) -> Result<Vec<ResumedMatch>, StoreError> {
    let writes = Writes { store, fence: None };
    resume(&writes, clock, results, None, Store::SERVICE)
}

/// The matches in play at `tables`, for a room opened again after its task failed, or taken
/// over from another instance: `beater` is the heartbeat of whoever ran it last, whose last
/// beat is when its clocks stopped. Under `fence` (the room and its lease's number) every
/// write it makes (a game its last move ended, a match decided, an outage) checks the room
/// is still this owner's: `Fenced`, and nothing of it written, when a later owner took it.
pub fn resumable_at(
    store: &Store,
    clock: &ServerClock,
    results: &ResultsConfig,
    tables: &[TableId],
    beater: &str,
    fence: Option<(&RoomId, u64)>,
) -> Result<Vec<ResumedMatch>, StoreError> {
    let writes = Writes { store, fence };
    resume(&writes, clock, results, Some(tables), beater)
}

/// Where a resume's writes go: each in a transaction of its own, under the room's fencing
/// number when the room was taken by lease, as the room's own writes go.
struct Writes<'a> {
    store: &'a Store,
    fence: Option<(&'a RoomId, u64)>,
}

impl Writes<'_> {
    fn run<T>(
        &self,
        f: impl FnOnce(&mut RoomWrites<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.store.room_writes(self.fence, f)
    }
}

fn resume(
    writes: &Writes<'_>,
    clock: &ServerClock,
    results: &ResultsConfig,
    only: Option<&[TableId]>,
    beater: &str,
) -> Result<Vec<ResumedMatch>, StoreError> {
    let store = writes.store;
    let now = clock.now_ms();
    let stopped = store.last_beat(beater)?;
    let mut people = People::new(store);
    if only.is_none() {
        adopt_lone_games(store, &mut people)?;
    }
    let mut resumed = Vec::new();
    for in_play in store.matches_in_play()? {
        let row = in_play.row;
        if only.is_some_and(|tables| !tables.contains(&row.table_id)) {
            continue;
        }
        let Some(best_of) = u8::try_from(row.best_of)
            .ok()
            .and_then(|n| BestOf::try_from(n).ok())
        else {
            // Refused, not guessed: a match of no length is left out of play.
            tracing::error!(r#match = %row.id, best_of = row.best_of, "a stored match's length does not read; it is left out");
            continue;
        };
        let settings = MatchSettings {
            clock: row.clock,
            best_of,
            seats: row.seats,
            rated: store.is_rated(&row.id)?,
        };
        let players = [people.get(&row.first_id)?, people.get(&row.second_id)?];
        // Where the first player sat in the first game: under `kept`, all match long.
        let first_seat = match in_play.games.first() {
            Some(g) if g.north_id == row.first_id => Side::North,
            _ => Side::South,
        };
        let arena = store.arena_match(&row.id)?;
        let went: Vec<UserId> = arena.iter().flat_map(|a| a.berserk.clone()).collect();
        let mut m = LiveMatch::new(row.id.clone(), settings, players).seated(first_seat);
        let mut game = None;
        for g in in_play.games {
            if g.status != Status::Playing {
                m.record(played(&g));
                continue;
            }
            let players = [people.get(&g.south_id)?, people.get(&g.north_id)?];
            match replay(writes, &g)? {
                Replayed::Over(over) => {
                    // Its last move ended it, and the service stopped before that was stored.
                    // A game over always has its reason.
                    let reason = GameEnd::from(over.end_reason().unwrap_or(EndReason::Abandoned));
                    let status = over.status();
                    let win = win_of(&over, &players).map(|w| super::room::stored_win(&w, now));
                    let clock = results.clock;
                    let day_of = |ended: chrono::NaiveDateTime| clock.day_of(ended.and_utc());
                    let finished = writes.run(|w| {
                        w.finish_game(&g.id, status, reason, win.as_ref(), &day_of, &results.rules)
                    })?;
                    if finished.counts() {
                        results.pending.notify_one();
                    }
                    if finished.result.is_some() {
                        for bell in &results.stored {
                            bell.notify_one();
                        }
                    }
                    m.record(PlayedGame {
                        result: over.status(),
                        reason,
                        ..played(&g)
                    });
                }
                Replayed::InPlay(replayed) => {
                    let berserk = [&g.south_id, &g.north_id].map(|u| went.contains(u));
                    let clocks = clocks_of(writes, &g, &replayed, settings, berserk, stopped, now)?;
                    game = Some(ResumedGame {
                        game_id: g.id.clone(),
                        game: replayed,
                        players,
                        number: g.number.and_then(|n| u8::try_from(n).ok()).unwrap_or(1),
                        clocks,
                    });
                }
                Replayed::Broken => {
                    // Marked abandoned: it counts as the draw it is stored as now.
                    m.record(PlayedGame {
                        result: Status::Draw,
                        reason: GameEnd::Game(EndReason::Abandoned),
                        ..played(&g)
                    });
                }
            }
        }
        if m.is_over() {
            // It was decided when the service stopped, before the match was stored as over.
            let result = super::room::stored_result(&result_of(&m));
            writes.run(|w| w.finish_match(&row.id, &result))?;
            continue;
        }
        // Games finished here count in the stored score too.
        let halves = m.series.halves();
        writes.run(|w| w.set_match_points(&row.id, halves))?;
        resumed.push(ResumedMatch {
            table_id: row.table_id,
            r#match: m,
            game,
            arena,
        });
    }
    Ok(resumed)
}

/// A stored game in play, its moves replayed.
enum Replayed {
    InPlay(Game),
    /// Its last stored move ended it.
    Over(Game),
    /// The moves do not make a game: it is ended as abandoned rather than guessed at.
    Broken,
}

fn replay(writes: &Writes<'_>, g: &GameRow) -> Result<Replayed, StoreError> {
    let stored = writes.store.moves(&g.id)?;
    let moves = stored.iter().filter_map(|&n| Pit::new(n));
    match Game::replay_from(g.rules, g.first_side, moves) {
        Ok(game) if game.moves().len() == stored.len() && game.is_over() => {
            Ok(Replayed::Over(game))
        }
        Ok(game) if game.moves().len() == stored.len() => Ok(Replayed::InPlay(game)),
        _ => {
            tracing::error!(game = %g.id, "a stored game does not replay; marking it abandoned");
            writes.run(|w| w.end_game(&g.id, Status::Draw, GameEnd::Game(EndReason::Abandoned)))?;
            Ok(Replayed::Broken)
        }
    }
}

/// A game in play's clocks: as after its last move, the side to move charged for the part of
/// its move before the outage (from its clock's start to the last heartbeat, less earlier
/// outages), and running again from now. The outage is recorded. A side that went berserk
/// (`berserk`, South and North) before its first move may have done so after the last stored
/// clock: its time is halved here unless it was already.
fn clocks_of(
    writes: &Writes<'_>,
    g: &GameRow,
    game: &Game,
    settings: MatchSettings,
    berserk: [bool; 2],
    stopped: Option<u64>,
    now: u64,
) -> Result<Option<Clocks>, StoreError> {
    let Some(side) = game.to_move() else {
        return Ok(None);
    };
    let Some(initial) = settings.clock.initial_ms() else {
        return Ok(None);
    };
    // Earlier outages of this move ended before this one began (at the last heartbeat).
    let stored = writes.store.stored_clock(g, stopped.unwrap_or(0))?;
    // A move after the last heartbeat: the outage began with it, nothing of it was seen; with
    // no heartbeat at all, nothing is charged either.
    let stopped = stopped
        .unwrap_or(stored.since_ms)
        .max(stored.since_ms)
        .min(now);
    let ran = stopped
        .saturating_sub(stored.since_ms)
        .saturating_sub(stored.paused_ms);
    writes.run(|w| w.record_outage(&g.id, stopped, now))?;
    tracing::info!(game = %g.id, outage_ms = now - stopped, charged_ms = ran, "a timed game resumes");
    let mut left = stored.left.unwrap_or([initial, initial]);
    if let Some(half) = settings.clock.berserk_ms() {
        for s in Side::BOTH {
            let unmoved = game.moves().len() <= usize::from(game.first() != s);
            if berserk[s.index()] && unmoved && left[s.index()] > initial - half {
                left[s.index()] -= half;
            }
        }
    }
    Ok(Clocks::resumed(settings.clock, left, side, ran, now))
}

fn played(g: &GameRow) -> PlayedGame {
    PlayedGame {
        game_id: g.id.clone(),
        number: g.number.and_then(|n| u8::try_from(n).ok()).unwrap_or(1),
        south: g.south_id.clone(),
        north: g.north_id.clone(),
        result: g.status,
        // Every game over is stored with its reason.
        reason: g.end_reason.unwrap_or(GameEnd::Game(EndReason::Abandoned)),
    }
}

/// Games in play stored before matches were: each becomes the one game of a match.
fn adopt_lone_games(store: &Store, people: &mut People<'_>) -> Result<(), StoreError> {
    for lone in store.games_in_play()? {
        let g = lone.game;
        if g.match_id.is_some() {
            continue;
        }
        people.get(&g.south_id)?;
        let row = MatchRow {
            id: MatchId::new(store::ordered_id()),
            table_id: g.table_id.clone(),
            first_id: g.south_id.clone(),
            second_id: g.north_id.clone(),
            house: g.house,
            best_of: 1,
            clock: TimeControl::None,
            rules: g.rules,
            status: store::MatchStatus::Playing,
            winner_id: None,
            end_reason: None,
            first_halves: 0,
            second_halves: 0,
            started_at: g.started_at,
            ended_at: None,
            seats: Seating::Lots,
        };
        store.insert_match(&row)?;
        store.adopt_game(&g.id, &row.id)?;
    }
    Ok(())
}

/// Users by id, each read once.
struct People<'a> {
    store: &'a Store,
    known: HashMap<UserId, User>,
}

impl<'a> People<'a> {
    fn new(store: &'a Store) -> People<'a> {
        People {
            store,
            known: HashMap::new(),
        }
    }

    fn get(&mut self, id: &UserId) -> Result<User, StoreError> {
        if let Some(user) = self.known.get(id) {
            return Ok(user.clone());
        }
        let row = self
            .store
            .user(id)?
            .ok_or_else(|| StoreError::NotFound(format!("user {id}")))?;
        let user = User {
            id: row.id,
            name: row.name,
            house: row.house,
            ratings: Default::default(),
        };
        self.known.insert(id.clone(), user.clone());
        Ok(user)
    }
}
