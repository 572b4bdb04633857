//! Each command to its place: room matters here, table matters to the table (with what only
//! the room can know, such as a seat at another table, checked first).

use serde_json::Value;

use crate::common::{ErrorCode, InvitationId, TableId, UserId};
use crate::house::House;
use crate::store::{blocking, Actor, StoreError};

use super::super::hotel::{DoorState, HotelError, TableChange};
use super::super::matches::MatchChoice;
use super::super::protocol::{ClientMessage, ServerMessage, TableView};
use super::super::table::{choose, Command, Refusal, Table, Unqueued};
use super::members::Going;
use super::render;
use super::seeks::Asked;
use super::{Kept, Room, RoomCommand, RoomSummary, VERSION_BASE};

impl Room {
    pub(super) async fn handle(&mut self, command: RoomCommand) {
        match command {
            RoomCommand::Enter {
                user,
                outbox,
                conn,
                since,
                r#ref,
                admitted,
            } => {
                let may = self.may_enter(&user.id);
                let ok = may.is_ok();
                let _ = admitted.send(may);
                if ok {
                    self.enter(user, outbox, conn, since, r#ref);
                }
            }
            RoomCommand::MayEnter { user_id, reply } => {
                let _ = reply.send(self.may_enter(&user_id));
            }
            RoomCommand::Rename { name } => {
                self.info.name = name;
                self.broadcast(&ServerMessage::RoomChanged {
                    room: self.info.clone(),
                });
            }
            RoomCommand::Shut { games, reply } => {
                self.closing = true;
                for t in 0..self.tables.len() {
                    self.apply(t, Command::Shut { games }).await;
                }
                let _ = reply.send(self.matches_in_play());
                if self.matches_in_play() == 0 {
                    self.shut().await;
                } else {
                    self.broadcast(&ServerMessage::RoomClosing {
                        room: self.info.id.clone(),
                    });
                }
            }
            RoomCommand::Tables {
                actor,
                change,
                reply,
            } => {
                let changed = self.change_tables(actor, change).await;
                if let Err(HotelError::Store(e @ StoreError::Fenced { .. })) = &changed {
                    self.lose(&e.to_string());
                }
                let shown = changed.map(|table| table.and_then(|t| serde_json::to_value(t).ok()));
                let _ = reply.send(shown);
            }
            RoomCommand::ScheduleChanged => self.schedule_changed().await,
            RoomCommand::DoorChanged => {
                let (store, id) = (self.store.clone(), self.info.id.clone());
                match blocking(move || store.door(&id)).await {
                    Ok((door, guests)) => {
                        self.door =
                            DoorState::new(Some(door), guests.into_iter().map(|g| g.id).collect());
                    }
                    Err(e) => tracing::error!(error = %e, room = %self.info.id, "reading a door"),
                }
            }
            RoomCommand::Leave { user_id, conn } => {
                self.gone_outside(&user_id, conn);
                if self.members.get(&user_id).is_some_and(|m| m.conn == conn) {
                    self.depart(&user_id, Going::Left).await;
                }
            }
            RoomCommand::Disconnect { user_id, conn } => {
                self.gone_outside(&user_id, conn);
                if self.members.get(&user_id).is_some_and(|m| m.conn == conn) {
                    self.depart(&user_id, Going::Dropped).await;
                }
            }
            // The run loop answers it; a stray one still closes the doors.
            RoomCommand::Close { done } => {
                self.close().await;
                let _ = done.send(());
            }
            RoomCommand::HouseAgain { table, version } => {
                if let Ok(t) = self.table_index(&table) {
                    if self.tables[t].table.version == version {
                        self.house_turn(t);
                    }
                }
            }
            RoomCommand::HouseMove {
                table,
                version,
                pit,
            } => {
                let Ok(t) = self.table_index(&table) else {
                    return;
                };
                if let Some(refusal) = self.apply(t, Command::HouseMove { version, pit }).await {
                    // Storing it failed: he thinks again a little later rather than stall.
                    tracing::error!(table = %table, code = %refusal.code, refusal.message, "Baba Ayo's move was refused");
                    self.house_turn_later(t);
                }
            }
            RoomCommand::HouseAnswersDraw {
                table,
                version,
                accept,
            } => {
                let Ok(t) = self.table_index(&table) else {
                    return;
                };
                let command = Command::HouseAnswersDraw { version, accept };
                if let Some(refusal) = self.apply(t, command).await {
                    tracing::error!(table = %table, code = %refusal.code, refusal.message, "Baba Ayo's answer to a draw was refused");
                }
            }
            RoomCommand::Summary { reply } => {
                let now = self.now();
                let _ = reply.send(RoomSummary {
                    room: self.info.clone(),
                    occupants: self.members.len(),
                    tables: self
                        .tables
                        .iter()
                        .filter_map(|k| {
                            serde_json::to_value(render::table_view(&k.table, now)).ok()
                        })
                        .collect(),
                    seeks: self.seek_counts(),
                });
            }
            RoomCommand::Act {
                user_id,
                message,
                r#ref,
            } => {
                if !self.members.contains_key(&user_id) {
                    self.answer_outside(&user_id, message, r#ref);
                    return;
                }
                if let Err(refusal) = self.act(&user_id, message, r#ref.clone()).await {
                    crate::metrics::METRICS
                        .errors
                        .with_label_values(&[refusal.code.as_str()])
                        .inc();
                    self.send_to(&user_id, &ServerMessage::refusal(&refusal, r#ref));
                }
            }
            RoomCommand::Moderate(moderation) => self.moderate(moderation).await,
            RoomCommand::LeaseLost { why } => self.lose(why),
            RoomCommand::Crash => panic!("a room was asked to fail (fault injection)"),
        }
    }

    /// A member's message: the room's own checks, then the table's.
    async fn act(
        &mut self,
        user_id: &UserId,
        message: ClientMessage,
        r#ref: Option<Value>,
    ) -> Result<(), Refusal> {
        let Some(user) = self.members.get(user_id).map(|m| m.user.clone()) else {
            return Ok(());
        };
        let starts_a_match = matches!(
            message,
            ClientMessage::Sit { .. }
                | ClientMessage::Invite { .. }
                | ClientMessage::Respond { accept: true, .. }
                | ClientMessage::PlayHouse { .. }
                | ClientMessage::Rematch { .. }
                | ClientMessage::Seek { .. }
                | ClientMessage::PairingAnswer { accept: true, .. }
                | ClientMessage::Queue { .. }
        );
        if self.closing && starts_a_match {
            return Err(Refusal::new(
                ErrorCode::RoomClosing,
                "this room is closing: no new game starts here",
            ));
        }
        // What changes a table is told to the whole room: each guest has a budget of it.
        let changes_a_table = matches!(
            message,
            ClientMessage::Sit { .. }
                | ClientMessage::Stand { .. }
                | ClientMessage::SetMatch { .. }
                | ClientMessage::PlayHouse { .. }
                | ClientMessage::Invite { .. }
                | ClientMessage::Start { .. }
                | ClientMessage::Rematch { .. }
                | ClientMessage::OfferDraw { .. }
                | ClientMessage::Seek { .. }
                | ClientMessage::Unseek {}
                | ClientMessage::PairingAnswer { .. }
                | ClientMessage::Queue { .. }
                | ClientMessage::Unqueue { .. }
        );
        if changes_a_table {
            self.may_change_tables(user_id)?;
        }
        let (table, command) = match message {
            ClientMessage::Chat { text } => return self.chat(user, &text),
            ClientMessage::Sync { table, version } => {
                let t = self.table_index(&table)?;
                let missed = self.missed(t, version, r#ref);
                self.send_to(user_id, &missed);
                return Ok(());
            }
            ClientMessage::Watch { table, since } => {
                let t = self.table_index(&table)?;
                self.watch(user_id, t, since, r#ref);
                return Ok(());
            }
            ClientMessage::Unwatch {} => {
                self.unwatch(user_id);
                return Ok(());
            }
            // The room one is in, entered again.
            ClientMessage::Enter { since, .. } => {
                self.send_snapshot(user_id, since, r#ref);
                return Ok(());
            }
            ClientMessage::Leave {} | ClientMessage::Ping {} => return Ok(()),
            // The pool's: `seeks.rs`.
            ClientMessage::Seek {
                family,
                clock,
                rated,
                min_rating,
                max_rating,
            } => {
                let asked = Asked {
                    family,
                    clock,
                    rated,
                    min_rating,
                    max_rating,
                };
                return self.seek(user, &asked, r#ref);
            }
            ClientMessage::Unseek {} => {
                self.unseek(user_id);
                return Ok(());
            }
            ClientMessage::PairingAnswer { pairing, accept } => {
                return self.answer_pairing(user_id, &pairing, accept);
            }
            ClientMessage::Respond { invitation, accept } => {
                let seated = self.seated_anywhere(user_id);
                let Some(t) = self.inviting_table(&invitation, user_id) else {
                    return Err(Refusal::new(
                        ErrorCode::NoSuchInvitation,
                        "that invitation is not open for you (it may have expired)",
                    ));
                };
                let command = Command::Respond {
                    user,
                    invitation,
                    accept,
                    seated,
                };
                let refusal = self.apply(t, command).await;
                self.unqueue_seated(user_id).await;
                return refused(refusal);
            }
            ClientMessage::Queue { table } => {
                let t = self.table_index(&table)?;
                let seated_elsewhere = self
                    .tables
                    .iter()
                    .enumerate()
                    .any(|(i, k)| i != t && k.table.seat_of(user_id).is_some());
                let command = Command::Queue {
                    user,
                    seated_elsewhere,
                };
                let refusal = self.apply_asked(t, command, r#ref).await;
                if refusal.is_none() {
                    // One queue a guest: a guest called at every table would hold them all.
                    for other in (0..self.tables.len()).filter(|&i| i != t) {
                        if self.tables[other].table.queue.holds(user_id) {
                            let command = Command::Unqueue {
                                user: user_id.clone(),
                                why: Unqueued::OtherTable,
                            };
                            self.apply(other, command).await;
                        }
                    }
                }
                return refused(refusal);
            }
            ClientMessage::Unqueue { table } => {
                let command = Command::Unqueue {
                    user: user.id,
                    why: Unqueued::Asked,
                };
                (self.table_index(&table)?, command)
            }
            ClientMessage::Sit { table, seat, seats } => {
                let t = self.table_index(&table)?;
                if self.seated_anywhere(user_id) {
                    return Err(Refusal::new(
                        ErrorCode::AlreadySeated,
                        "you already have a seat in this room: stand first",
                    ));
                }
                let seats = choose(None, None, seats.as_deref())?.seats;
                (t, Command::Sit { user, seat, seats })
            }
            ClientMessage::PlayHouse {
                table,
                level,
                clock,
                best_of,
                seats,
            } => {
                let t = self.table_index(&table)?;
                let choice = choose(clock.as_deref(), best_of, seats.as_deref())?;
                let seated_elsewhere = self
                    .tables
                    .iter()
                    .enumerate()
                    .any(|(i, k)| i != t && k.table.seat_of(user_id).is_some());
                let command = Command::PlayHouse {
                    user,
                    house: House::user(level),
                    choice,
                    seated_elsewhere,
                };
                (t, command)
            }
            ClientMessage::SetMatch {
                table,
                clock,
                best_of,
                seats,
                rated,
            } => {
                let t = self.table_index(&table)?;
                let choice = MatchChoice {
                    rated,
                    ..choose(clock.as_deref(), best_of, seats.as_deref())?
                };
                (
                    t,
                    Command::SetMatch {
                        user: user.id,
                        choice,
                    },
                )
            }
            ClientMessage::Start { table } => {
                (self.table_index(&table)?, Command::Start { user: user.id })
            }
            ClientMessage::Rematch { table } => {
                let t = self.table_index(&table)?;
                let players_free = self.rematch_players_free(t);
                (
                    t,
                    Command::Rematch {
                        user: user.id,
                        players_free,
                    },
                )
            }
            ClientMessage::Stand { table } => {
                (self.table_index(&table)?, Command::Stand { user: user.id })
            }
            ClientMessage::Invite { table, user: to } => {
                let t = self.table_index(&table)?;
                self.may_invite(user_id, &to)?;
                let to_present = self.members.contains_key(&to);
                let command = Command::Invite {
                    from: user,
                    to: to.clone(),
                    id: InvitationId::random(),
                    to_present,
                };
                let refusal = self.apply_asked(t, command, r#ref).await;
                if refusal.is_none() {
                    self.invited(user_id, &to);
                }
                return refused(refusal);
            }
            ClientMessage::Move {
                table,
                pit,
                version,
            } => {
                let t = self.table_index(&table)?;
                if self.move_sent_again(t, &user.id, r#ref.as_ref()) {
                    return Ok(());
                }
                let command = Command::Move {
                    user: user.id,
                    pit,
                    version,
                };
                (t, command)
            }
            ClientMessage::Resign { table, scope } => (
                self.table_index(&table)?,
                Command::Resign {
                    user: user.id,
                    scope,
                },
            ),
            ClientMessage::OfferDraw { table, scope } => (
                self.table_index(&table)?,
                Command::OfferDraw { user, scope },
            ),
            ClientMessage::AnswerDraw { table, accept } => (
                self.table_index(&table)?,
                Command::AnswerDraw {
                    user: user.id,
                    accept,
                },
            ),
            ClientMessage::Berserk { table } => (
                self.table_index(&table)?,
                Command::Berserk { user: user.id },
            ),
        };
        let refusal = self.apply_asked(table, command, r#ref).await;
        self.unqueue_seated(user_id).await;
        refused(refusal)
    }

    /// A guest who sat down somewhere is out of every other table's queue.
    pub(super) async fn unqueue_seated(&mut self, user: &UserId) {
        if !self.seated_anywhere(user) {
            return;
        }
        for t in 0..self.tables.len() {
            let table = &self.tables[t].table;
            if table.seat_of(user).is_none() && table.queue.holds(user) {
                let command = Command::Unqueue {
                    user: user.clone(),
                    why: Unqueued::SeatedElsewhere,
                };
                self.apply(t, command).await;
            }
        }
    }

    /// The table holding invitation `id` for `user`.
    fn inviting_table(&self, id: &InvitationId, user: &UserId) -> Option<usize> {
        self.tables.iter().position(|k| k.table.invites(id, user))
    }

    /// Both players of the rematch on offer at table `t` are free to play it: in the room
    /// and seated nowhere (Baba Ayo, one user a level, may be at other tables at once).
    fn rematch_players_free(&self, t: usize) -> bool {
        self.tables[t].table.rematch.as_ref().is_some_and(|r| {
            r.players.iter().all(|p| {
                p.house || (self.members.contains_key(&p.id) && !self.seated_anywhere(&p.id))
            })
        })
    }

    /// Adds, takes away or changes a table: stored first, then announced.
    async fn change_tables(
        &mut self,
        actor: Actor,
        change: TableChange,
    ) -> Result<Option<TableView>, HotelError> {
        if self.closing {
            return Err(HotelError::RoomClosing(self.info.id.to_string()));
        }
        let (store, fence) = (self.store.clone(), self.fence);
        let room = self.info.id.clone();
        match change {
            TableChange::Add { rules, board } => {
                if board.is_some() && self.tables.len() >= self.config.max_boards {
                    return Err(HotelError::TooManyBoards(self.config.max_boards));
                }
                let placing = board.clone();
                let row = blocking(move || {
                    store.add_table(&actor, &room, rules, placing.as_deref(), fence)
                })
                .await
                .map_err(|e| match (e, board) {
                    (StoreError::Conflict(_), Some(board)) => HotelError::BoardPlaced(board),
                    (e, _) => e.into(),
                })?;
                let id = row.id;
                let timing = self.config.timing();
                let mut table = Table::new(id, self.info.id.clone(), rules, timing, *VERSION_BASE)
                    .in_room_of(self.info.kind);
                table.closing = self.closing;
                self.tables.push(Kept::new(table));
                let t = self.tables.len() - 1;
                self.apply(t, Command::Announce).await;
                let view = render::table_view(&self.tables[t].table, self.now());
                Ok(Some(view))
            }
            TableChange::Remove { table } => {
                let id = table.clone();
                let t = self.index_of(&id)?;
                if !self.tables[t].table.idle() {
                    return Err(HotelError::TableBusy(table));
                }
                blocking(move || store.remove_table(&actor, &id, fence.map(|f| (&room, f))))
                    .await?;
                // Its invitations end with it.
                self.apply(t, Command::TakeAway).await;
                self.tables.remove(t);
                self.broadcast(&ServerMessage::TableRemoved {
                    room: self.info.id.clone(),
                    table,
                });
                Ok(None)
            }
            TableChange::Queue { table, on } => {
                let id = table.clone();
                let t = self.index_of(&id)?;
                blocking(move || store.set_table_queue(&actor, &id, on, fence.map(|f| (&room, f))))
                    .await?;
                self.apply(t, Command::SetQueue { on }).await;
                Ok(Some(render::table_view(&self.tables[t].table, self.now())))
            }
            TableChange::Rules { table, rules } => {
                let id = table.clone();
                let t = self.index_of(&id)?;
                if self.tables[t].table.match_in_play() {
                    return Err(HotelError::TableBusy(table));
                }
                blocking(move || {
                    store.set_table_rules(&actor, &id, rules, fence.map(|f| (&room, f)))
                })
                .await?;
                if self.apply(t, Command::SetRules { rules }).await.is_some() {
                    return Err(HotelError::TableBusy(table));
                }
                Ok(Some(render::table_view(&self.tables[t].table, self.now())))
            }
        }
    }

    fn index_of(&self, table: &TableId) -> Result<usize, HotelError> {
        self.table_index(table)
            .map_err(|_| HotelError::NoSuchTable(table.clone()))
    }
}

/// A table's refusal as the answer to the one who asked.
fn refused(refusal: Option<Refusal>) -> Result<(), Refusal> {
    refusal.map_or(Ok(()), Err)
}
