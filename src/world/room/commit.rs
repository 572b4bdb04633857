//! A table's decision made real: stored first (a required write failing undoes the command
//! and the table is as it was), then told, in order; table events are kept for clients that
//! come back.

use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::Value;

use crate::ayo::Side;
use crate::common::{ErrorCode, GameId, MatchId, UserId};
use crate::store::{self, blocking, StoreError};

use super::super::protocol::ServerMessage;
use super::super::table::{Command, Draws, Effects, Event, Refusal, TableEvent, Write};
use super::render::{self, render, At};
use super::stored::{at_once, lone_move, mark_counted, store_all, store_fenced, store_in, Ended};
use super::Room;

impl Room {
    /// Applies `command` to table `t`, stores and announces what it decided, and returns the
    /// refusal, if any, for the one who asked.
    pub(super) async fn apply(&mut self, t: usize, command: Command) -> Option<Refusal> {
        self.apply_asked(t, command, None).await
    }

    /// `apply` for a member's message sent with `r#ref`: the replies that answer them (their
    /// move's `game_state`, `invitation_sent`) carry it.
    pub(super) async fn apply_asked(
        &mut self,
        t: usize,
        command: Command,
        r#ref: Option<Value>,
    ) -> Option<Refusal> {
        self.apply_with(t, command, r#ref, draw()).await
    }

    async fn apply_with(
        &mut self,
        t: usize,
        command: Command,
        r#ref: Option<Value>,
        draws: Draws,
    ) -> Option<Refusal> {
        let now = self.now();
        let before = self.tables[t].table.clone();
        let fx = self.tables[t].table.apply(command, now, draws);
        self.commit(t, before, fx, now, r#ref).await
    }

    /// Applies commands at several tables in one turn and stores all they decided in one
    /// transaction, with the tournament pairings that go with them: an evening's first round
    /// is hundreds of games begun at once, and one commit for them all keeps the room's turn
    /// (and the moves waiting on it) short. A command its table refuses is left out (its
    /// pairing with it); when the transaction fails none stands. The answers, in order.
    pub(super) async fn apply_together(&mut self, items: Vec<Together>) -> Vec<Option<Refusal>> {
        let now = self.now();
        let mut answers: Vec<Option<Refusal>> = vec![None; items.len()];
        if self.lost {
            return answers.iter().map(|_| Some(moved_away())).collect();
        }
        let mut applied = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let kept = &mut self.tables[item.t];
            let before = kept.table.clone();
            let fx = kept.table.apply(item.command, now, item.draws);
            if let Some(refusal) = fx.refused.clone() {
                kept.table = before;
                answers[i] = Some(refusal);
                continue;
            }
            applied.push((i, item.t, before, fx, item.pairing));
        }
        let writes: Vec<Write> = applied
            .iter_mut()
            .flat_map(|(_, _, _, fx, _)| std::mem::take(&mut fx.writes))
            .collect();
        let pairings: Vec<store::PairingRow> = applied.iter().filter_map(|a| a.4.clone()).collect();
        let timer = crate::metrics::METRICS.store_seconds.start_timer();
        let (store, results) = (self.store.clone(), self.config.results.clone());
        let (room, fence) = (self.info.id.clone(), self.fence);
        let stored = blocking(move || {
            store.room_writes(fence.map(|n| (&room, n)), |w| {
                for row in &pairings {
                    w.add_pairing(row)?;
                }
                store_in(w, &writes, &results, now)
            })
        })
        .await;
        timer.observe_duration();
        let failed = match stored {
            Ok(ended) => {
                self.results_stored(&ended);
                None
            }
            Err(e @ StoreError::Fenced { .. }) => {
                self.lose(&e.to_string());
                Some(moved_away())
            }
            Err(e) => {
                tracing::error!(error = %e, tables = applied.len(), "storing the tables' changes together");
                Some(Refusal::new(
                    ErrorCode::Internal,
                    "that could not be stored; nothing changed, try again",
                ))
            }
        };
        if let Some(refusal) = failed {
            for (i, t, before, _, _) in applied.into_iter().rev() {
                self.tables[t].table = before;
                answers[i] = Some(refusal.clone());
            }
            return answers;
        }
        for (i, t, _, fx, _) in applied {
            answers[i] = self.announce(t, fx, None).await;
        }
        answers
    }

    /// Results were stored: the wall's reader and the others are rung.
    fn results_stored(&self, ended: &[Ended]) {
        if ended.iter().any(|(_, _, f)| f.counts()) {
            self.config.results.pending.notify_one();
        }
        // A game over may have a result (a draw has no verdict but is one).
        if !ended.is_empty() {
            for bell in &self.config.results.stored {
                bell.notify_one();
            }
        }
    }

    /// A move sent again with the ref of `user`'s last move at table `t` (its reply was lost):
    /// the reply is sent again, and the move is not played twice.
    pub(super) fn move_sent_again(
        &mut self,
        t: usize,
        user: &UserId,
        r#ref: Option<&Value>,
    ) -> bool {
        let Some(r#ref) = r#ref else {
            return false;
        };
        let kept = &self.tables[t];
        let Some(reply) = kept.table.last_move_of(user) else {
            return false;
        };
        let same = kept
            .move_refs
            .get(user)
            .is_some_and(|(version, sent)| Some(*version) == reply.version() && sent == r#ref);
        if !same {
            return false;
        }
        let message = render(reply.clone(), &self.at(t), Some(r#ref.clone()));
        self.send_to(user, &message);
        true
    }

    /// The mover at `side` of table `t`'s game sent `sent` with the move that brought the
    /// table to `version`.
    fn keep_move_ref(&mut self, t: usize, side: Side, version: u64, sent: Value) {
        let kept = &mut self.tables[t];
        if let Some(live) = kept.table.game.as_ref() {
            let mover = live.players[side.index()].id.clone();
            kept.move_refs.insert(mover, (version, sent));
        }
    }

    /// Where table `t`'s events happen, to render them.
    fn at(&self, t: usize) -> At<'_> {
        At {
            room: &self.info.id,
            table: &self.tables[t].table.id,
        }
    }

    async fn commit(
        &mut self,
        t: usize,
        before: super::Table,
        mut fx: Effects,
        now: u64,
        r#ref: Option<Value>,
    ) -> Option<Refusal> {
        if self.lost {
            // Taken by a later owner: this task writes and tells nothing more.
            self.tables[t].table = before;
            return Some(moved_away());
        }
        if !fx.writes.is_empty() {
            let writes = std::mem::take(&mut fx.writes);
            let timer = crate::metrics::METRICS.store_seconds.start_timer();
            let (store, results) = (self.store.clone(), self.config.results.clone());
            let fence = self.fence.map(|number| (&self.info.id, number));
            let grouped = lone_move(&writes).and_then(|(game, ply, pit, clock)| {
                self.store.store_move_grouped(fence, game, ply, pit, clock)
            });
            let stored = match (grouped, self.fence) {
                // PostgreSQL: a move alone goes with the others waiting, one transaction
                // (under each room's number) and one commit for them all.
                (Some(answer), _) => match answer.await {
                    Ok(stored) => stored.map(|()| Vec::new()),
                    Err(_) => Err(StoreError::Task("the moves' writer stopped".into())),
                },
                // Leased: the whole decision in one transaction under the room's number.
                (None, Some(fence)) => {
                    let room = self.info.id.clone();
                    blocking(move || store_fenced(&store, &room, fence, &writes, &results, now))
                        .await
                }
                (None, None) => match at_once(&store, &writes) {
                    Some(stored) => {
                        if stored.is_ok() {
                            crate::metrics::METRICS.moves_at_once.inc();
                        }
                        stored.map(|()| Vec::new())
                    }
                    None => blocking(move || store_all(&store, &writes, &results, now)).await,
                },
            };
            timer.observe_duration();
            match stored {
                Ok(ended) => {
                    self.results_stored(&ended);
                    mark_counted(&mut fx, &ended);
                }
                Err(e @ StoreError::Fenced { .. }) => {
                    self.lose(&e.to_string());
                    self.tables[t].table = before;
                    return Some(moved_away());
                }
                Err(e) => {
                    tracing::error!(error = %e, table = %before.id, "storing a table's change");
                    self.tables[t].table = before;
                    return Some(Refusal::new(
                        ErrorCode::Internal,
                        "that could not be stored; nothing changed, try again",
                    ));
                }
            }
        }
        self.announce(t, fx, r#ref).await
    }

    /// Tells what table `t` decided (stored by now), in order, then does what follows it:
    /// Baba Ayo's turn, the next game, the room's shutting.
    async fn announce(
        &mut self,
        t: usize,
        mut fx: Effects,
        r#ref: Option<Value>,
    ) -> Option<Refusal> {
        for event in fx.events {
            match event {
                Event::Table { version, event } => {
                    count(&event, &self.games_in_play);
                    if matches!(event, TableEvent::Moved { .. }) {
                        self.config.activity.mark();
                    }
                    if let (TableEvent::Moved { side, .. }, Some(sent)) = (&event, &r#ref) {
                        self.keep_move_ref(t, *side, version, sent.clone());
                    }
                    let message = render(event, &self.at(t), r#ref.clone());
                    self.publish(t, version, &message);
                }
                Event::To(user, event) => {
                    let message = render(event, &self.at(t), r#ref.clone());
                    self.send_to(&user, &message);
                }
                Event::Again(user, event) => {
                    // The reply as it was first sent: with that move's ref.
                    let sent = self.tables[t]
                        .move_refs
                        .get(&user)
                        .filter(|(v, _)| Some(*v) == event.version())
                        .map(|(_, sent)| sent.clone());
                    let message = render(event, &self.at(t), sent);
                    self.send_to(&user, &message);
                }
            }
        }
        // Refs of moves no longer anyone's last here (a new game began) are forgotten.
        let kept = &mut self.tables[t];
        let table = &kept.table;
        kept.move_refs.retain(|user, (version, _)| {
            table.last_move_of(user).and_then(TableEvent::version) == Some(*version)
        });
        // What Baba Ayo was thinking for an earlier version could no longer be played.
        let kept = &mut self.tables[t];
        let version = kept.table.version;
        kept.searches.retain(|s| s.version == version);
        if fx.house_to_move {
            self.house_turn(t);
        }
        if fx.house_judges_draw {
            self.house_judges_draw(t);
        }
        if fx.start_next_game {
            // Its own command: a game that cannot be stored leaves both presses standing.
            let refused = Box::pin(self.apply(t, Command::NextGame)).await;
            if fx.refused.is_none() {
                fx.refused = refused;
            }
        }
        if self.closing && !self.closed && self.matches_in_play() == 0 {
            // After this command: shutting applies departures, themselves commits.
            self.shut_after = true;
        }
        fx.refused
    }

    /// What a client that last saw `since` of table `t` missed: the events after it if all
    /// are still held, else the whole table.
    pub(super) fn missed(&self, t: usize, since: u64, r#ref: Option<Value>) -> ServerMessage {
        let kept = &self.tables[t];
        let version = kept.table.version;
        let held_from = kept.log.front().map_or(version, |(v, _)| v - 1);
        let events = (held_from..=version).contains(&since).then(|| {
            kept.log
                .iter()
                .filter(|(v, _)| *v > since)
                .filter_map(|(_, frame)| {
                    serde_json::value::RawValue::from_string(frame.to_string()).ok()
                })
                .collect::<Vec<_>>()
        });
        ServerMessage::Missed {
            table: kept.table.id.clone(),
            since,
            version,
            resync: events.is_none(),
            snapshot: events
                .is_none()
                .then(|| render::table_view(&kept.table, self.now())),
            events: events.unwrap_or_default(),
            r#ref,
        }
    }
}

/// The service's counters, from the events that change them; `in_play` is this room's share
/// of the games in play.
fn count(event: &TableEvent, in_play: &AtomicI64) {
    let metrics = &crate::metrics::METRICS;
    match event {
        TableEvent::GameStarted { .. } => {
            metrics.games_in_play.inc();
            in_play.fetch_add(1, Ordering::Relaxed);
        }
        TableEvent::GameOver { .. } => {
            metrics.games_in_play.dec();
            in_play.fetch_sub(1, Ordering::Relaxed);
        }
        TableEvent::Moved { .. } => metrics.moves.inc(),
        _ => {}
    }
}

/// A command for `apply_together`: table `t`, its draws, and the tournament pairing stored
/// with it.
pub(super) struct Together {
    pub t: usize,
    pub command: Command,
    pub draws: Draws,
    pub pairing: Option<store::PairingRow>,
}

/// Said to the one whose command met a room taken by a later owner: its connection ends
/// next and finds the room where it runs now.
fn moved_away() -> Refusal {
    Refusal::new(
        ErrorCode::RoomMoved,
        "this room moved to another server: reconnecting brings you back to it",
    )
}

/// What chance decides for a command, should it start a match or a game: drawn here, with
/// the real random source and clock, so the table itself draws nothing.
pub(super) fn draw() -> Draws {
    Draws {
        match_id: MatchId::ordered(),
        game_id: GameId::random(),
        lot: if rand_bit() { Side::North } else { Side::South },
    }
}

/// One random bit, from the same source as the ids.
fn rand_bit() -> bool {
    uuid::Uuid::new_v4().as_bytes()[0] & 1 == 1
}
