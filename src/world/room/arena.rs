//! The arena tournaments scheduled in this room, run by the room itself: their director is
//! whoever owns the room (its lease, when instances lease rooms), so one runs each at a time
//! and another instance takes it over with the room. Everything is in the database: the
//! schedule, the players and their scores, each game paired; a room opened again (after a
//! restart, or elsewhere) goes on from there.
//!
//! While one runs, each tick pairs the free players (joined, in the room, seated nowhere) at
//! its free tables (`tournaments::arena::pair`); from its end time nothing new is paired,
//! and once no game of it is in play and every result is scored its winner is kept and told.

use std::collections::HashMap;

use chrono::NaiveDateTime;

use crate::common::{MatchId, TournamentId, User, UserId};
use crate::store::{blocking, PairingRow, PlayerRow, TournamentRow, UserRow};
use crate::tournaments::arena::{self, Free};

use super::super::protocol::{ServerMessage, TournamentStanding, TournamentView};
use super::super::table::{choose, Command, Draws};
use super::commit::Together;
use super::Room;

/// How often the room reads its schedule again (a tournament an operator just added).
const READ_EVERY_MS: u64 = 5_000;

/// Where a tournament stands, as the room tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Upcoming,
    Running,
    /// Past its end: games in play finish and count.
    Ending,
    Finished,
}

impl Phase {
    fn word(self) -> &'static str {
        match self {
            Phase::Upcoming => "upcoming",
            Phase::Running => "running",
            Phase::Ending => "ending",
            Phase::Finished => "finished",
        }
    }
}

/// The room's tournaments and what it last told of each.
#[derive(Default)]
pub(super) struct Arenas {
    list: Vec<TournamentRow>,
    next_read_ms: u64,
    /// The phase and players last told, to tell only changes (and a newcomer the same).
    told: HashMap<TournamentId, (Phase, Vec<(PlayerRow, UserRow)>)>,
}

fn ms_of(t: NaiveDateTime) -> u64 {
    u64::try_from(t.and_utc().timestamp_millis()).unwrap_or(0)
}

fn phase_at(t: &TournamentRow, now: u64) -> Phase {
    if t.finished_at.is_some() {
        Phase::Finished
    } else if now < ms_of(t.starts_at) {
        Phase::Upcoming
    } else if now < ms_of(t.ends_at) {
        Phase::Running
    } else {
        Phase::Ending
    }
}

/// A player's line of the standings.
pub fn standing(p: &PlayerRow, u: &UserRow) -> TournamentStanding {
    TournamentStanding {
        user: u.user(),
        score: p.score,
        wins_in_a_row: p.wins_in_a_row,
        games: p.games,
    }
}

/// A tournament as the `tournament` message shows it.
pub fn view(
    t: &TournamentRow,
    phase: &str,
    players: &[(PlayerRow, UserRow)],
    winner: Option<User>,
) -> TournamentView {
    TournamentView {
        id: t.id.clone(),
        name: t.name.clone(),
        room: t.room_id.clone(),
        starts_at: ms_of(t.starts_at),
        ends_at: ms_of(t.ends_at),
        status: phase.to_owned(),
        rules: t.rules,
        clock: t.clock.clone(),
        tables: t.table_ids(),
        rated: t.rated,
        invited_only: t.invited_only,
        berserk: t.berserk,
        players: players.iter().filter(|(p, _)| p.left_at.is_none()).count(),
        standings: players
            .iter()
            .take(10)
            .map(|(p, u)| standing(p, u))
            .collect(),
        winner,
    }
}

impl Room {
    /// The room's tournaments at `now`: read again every few seconds, paired while running,
    /// finished once over; changes told to the room. The database is asked for a
    /// tournament's players only on those reads, or when a pairing or the end may be due
    /// (a free table and two guests seated nowhere; no game at its tables): not every tick.
    pub(super) async fn arenas_tick(&mut self, now: u64) {
        if self.info.kind == crate::common::RoomKind::Apartment {
            return;
        }
        let refresh = now >= self.arenas.next_read_ms;
        if refresh {
            self.arenas.next_read_ms = now.saturating_add(READ_EVERY_MS);
            let (store, room) = (self.store.clone(), self.info.id.clone());
            match blocking(move || store.open_tournaments(Some(&room))).await {
                Ok(list) => self.arenas.list = list,
                Err(e) => {
                    tracing::warn!(room = %self.info.id, error = %e, "reading the room's tournaments")
                }
            }
        }
        for i in 0..self.arenas.list.len() {
            let t = self.arenas.list[i].clone();
            let phase = phase_at(&t, now);
            let may_pair = phase == Phase::Running && !self.closing && self.arena_may_pair(&t);
            let may_end = phase == Phase::Ending && (refresh || !self.arena_busy(&t));
            if !(refresh || may_pair || may_end) {
                continue;
            }
            let Some(players) = self.arena_players(&t).await else {
                continue;
            };
            if may_pair {
                self.pair_arena(&t, &players).await;
            }
            if may_end && self.end_arena(&t, &players, now).await {
                continue;
            }
            self.tell_arena(&t, phase, players);
        }
        self.arenas.list.retain(|t| t.finished_at.is_none());
    }

    /// A tournament was scheduled, joined or left: read and acted on now.
    pub(super) async fn schedule_changed(&mut self) {
        self.arenas.next_read_ms = 0;
        let now = self.now();
        self.arenas_tick(now).await;
    }

    /// A tournament's players, best first; `None` (logged) when they cannot be read.
    async fn arena_players(&self, t: &TournamentRow) -> Option<Vec<(PlayerRow, UserRow)>> {
        let (store, id) = (self.store.clone(), t.id.clone());
        match blocking(move || store.tournament_players(&id)).await {
            Ok(players) => Some(players),
            Err(e) => {
                tracing::warn!(tournament = %t.id, error = %e, "reading a tournament's players");
                None
            }
        }
    }

    /// One of its tables is free and two guests here are seated nowhere.
    fn arena_may_pair(&self, t: &TournamentRow) -> bool {
        let ids = t.table_ids();
        self.tables
            .iter()
            .any(|k| ids.contains(&k.table.id) && k.table.is_free())
            && self
                .members
                .keys()
                .filter(|u| !self.seated_anywhere(u))
                .nth(1)
                .is_some()
    }

    /// A match is in play at one of its tables.
    fn arena_busy(&self, t: &TournamentRow) -> bool {
        let ids = t.table_ids();
        self.tables
            .iter()
            .any(|k| ids.contains(&k.table.id) && k.table.match_in_play())
    }

    /// Pairs the tournament's free players at its free tables.
    async fn pair_arena(&mut self, t: &TournamentRow, players: &[(PlayerRow, UserRow)]) {
        let free_tables: Vec<usize> = t
            .table_ids()
            .iter()
            .filter_map(|id| self.tables.iter().position(|k| &k.table.id == id))
            .filter(|&i| self.tables[i].table.is_free())
            .collect();
        let free: Vec<&PlayerRow> = players
            .iter()
            .map(|(p, _)| p)
            .filter(|p| {
                p.left_at.is_none()
                    && self.members.contains_key(&p.user_id)
                    && !self.seated_anywhere(&p.user_id)
            })
            .collect();
        if free.len() < 2 || free_tables.is_empty() {
            return;
        }
        let (store, id) = (self.store.clone(), t.id.clone());
        let last = match blocking(move || store.last_opponents(&id)).await {
            Ok(last) => last,
            Err(e) => {
                tracing::warn!(tournament = %t.id, error = %e, "reading a tournament's pairings");
                return;
            }
        };
        let free = free
            .into_iter()
            .map(|p| {
                let last = last.get(&p.user_id);
                Free {
                    user: p.user_id.clone(),
                    score: p.score,
                    last_opponent: last.map(|(opponent, _)| opponent.clone()),
                    since: last
                        .map_or(p.joined_at, |(_, at)| *at)
                        .and_utc()
                        .timestamp_micros(),
                }
            })
            .collect();
        let Ok(choice) = choose(Some(&t.clock), Some(1), None) else {
            tracing::warn!(tournament = %t.id, clock = t.clock, "a tournament's clock does not read");
            return;
        };
        let choice = super::super::matches::MatchChoice {
            rated: Some(t.rated),
            ..choice
        };
        let (mut together, mut seated) = (Vec::new(), Vec::new());
        for ([a, b], table) in arena::pair(free, free_tables.len())
            .into_iter()
            .zip(free_tables)
        {
            let (Some(a), Some(b)) = (self.members.get(&a), self.members.get(&b)) else {
                continue;
            };
            let players: [User; 2] = [a.user.clone(), b.user.clone()];
            seated.push(players.clone().map(|p| p.id));
            let pairing = PairingRow {
                match_id: MatchId::ordered(),
                tournament_id: t.id.clone(),
                south_id: players[0].id.clone(),
                north_id: players[1].id.clone(),
                table_id: self.tables[table].table.id.clone(),
                paired_at: self.store.now(),
                south_points: None,
                north_points: None,
                south_berserk: false,
                north_berserk: false,
            };
            together.push(Together {
                t: table,
                draws: Draws {
                    match_id: pairing.match_id.clone(),
                    ..super::commit::draw()
                },
                command: Command::Pair {
                    players,
                    choice,
                    rematch: false,
                    berserk: t.berserk,
                },
                pairing: Some(pairing),
            });
        }
        // The whole round in one transaction: its first pairing may be hundreds of games.
        let answers = self.apply_together(together).await;
        for (ids, answer) in seated.into_iter().zip(answers) {
            match answer {
                Some(refusal) => {
                    tracing::warn!(tournament = %t.id, code = %refusal.code, refusal.message, "a pairing not started");
                }
                None => {
                    for id in &ids {
                        self.unqueue_seated(id).await;
                    }
                }
            }
        }
    }

    /// Past its end: once none of its games is in play and every result is scored, its
    /// winner is kept and the room told.
    async fn end_arena(
        &mut self,
        t: &TournamentRow,
        players: &[(PlayerRow, UserRow)],
        now: u64,
    ) -> bool {
        let in_play = t.table_ids().iter().any(|id| {
            self.tables.iter().any(|k| {
                &k.table.id == id
                    && k.table.match_in_play()
                    && k.table
                        .seats
                        .iter()
                        .flatten()
                        .all(|u| players.iter().any(|(p, _)| p.user_id == u.id))
            })
        });
        if in_play {
            return false;
        }
        let (store, id) = (self.store.clone(), t.id.clone());
        match blocking(move || store.tournament_results_read(&id)).await {
            Ok(true) => {}
            Ok(false) => return false,
            Err(e) => {
                tracing::warn!(tournament = %t.id, error = %e, "reading a tournament's results");
                return false;
            }
        }
        // Read again: the last points may have been stored since the players were read.
        let Some(players) = self.arena_players(t).await else {
            return false;
        };
        let winner = players
            .iter()
            .find(|(p, _)| p.games > 0)
            .map(|(_, u)| u.user());
        let (store, id, who) = (
            self.store.clone(),
            t.id.clone(),
            winner.as_ref().map(|u| u.id.clone()),
        );
        let at = self.store.now();
        if let Err(e) = blocking(move || store.finish_tournament(&id, who.as_ref(), at)).await {
            tracing::warn!(tournament = %t.id, error = %e, "finishing a tournament");
            return false;
        }
        tracing::info!(tournament = %t.id, winner = ?winner.as_ref().map(|u| &u.name), at = now, "a tournament is over");
        let message = ServerMessage::Tournament {
            tournament: view(t, Phase::Finished.word(), &players, winner),
        };
        self.broadcast(&message);
        self.arenas.told.remove(&t.id);
        if let Some(kept) = self.arenas.list.iter_mut().find(|x| x.id == t.id) {
            kept.finished_at = Some(at);
        }
        true
    }

    /// Tells the room a tournament's phase or players when they changed.
    fn tell_arena(&mut self, t: &TournamentRow, phase: Phase, players: Vec<(PlayerRow, UserRow)>) {
        let now = (phase, players);
        if self.arenas.told.get(&t.id) == Some(&now) {
            return;
        }
        let message = ServerMessage::Tournament {
            tournament: view(t, phase.word(), &now.1, None),
        };
        self.arenas.told.insert(t.id.clone(), now);
        self.broadcast(&message);
    }

    /// A member who came in hears of the room's tournaments not finished.
    pub(super) fn tell_arenas_to(&mut self, user: &UserId) {
        let views: Vec<ServerMessage> = self
            .arenas
            .list
            .iter()
            .filter_map(|t| {
                let (phase, players) = self.arenas.told.get(&t.id)?;
                Some(ServerMessage::Tournament {
                    tournament: view(t, phase.word(), players, None),
                })
            })
            .collect();
        for message in views {
            self.send_to(user, &message);
        }
    }
}
