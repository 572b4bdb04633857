//! The room's civility: chat lines (slow mode, the room's budget), invitations a minute, and
//! what operators decide (already stored and audited when it reaches the room). The rules
//! themselves are pure, in `world/civility.rs`; here they meet the members.

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::common::{ErrorCode, User, UserId};
use crate::store::blocking;

use super::super::civility::SlowMode;
use super::super::protocol::{ClientMessage, Frame, ServerMessage};
use super::super::table::Refusal;
use super::members::Going;
use super::Room;

/// What an operator decided for a room, to make real now.
#[derive(Debug)]
pub enum Moderation {
    /// Slow mode: one chat line per guest every `seconds` (0: off).
    SlowMode { seconds: u32 },
    /// `user` was muted until `until` (server ms; `None`: the mute is lifted): told, if here.
    Muted {
        user: UserId,
        until: Option<u64>,
        reason: String,
    },
    /// `user` is out of the room at once (told why) and may not come back before `until`.
    PutOut {
        user: UserId,
        until: u64,
        reason: String,
    },
    /// Chat line `line` is taken away for everyone; the reply says whether there was one.
    RemoveLine {
        line: u64,
        reply: oneshot::Sender<bool>,
    },
}

/// A chat line as it was sent, kept for the snapshot of those who come in later.
pub(super) struct ChatLine {
    id: u64,
    speaker: UserId,
    frame: Frame,
}

/// Whole seconds from `now` to `until`, at least 1.
fn secs_until(until: u64, now: u64) -> u64 {
    until.saturating_sub(now).div_ceil(1000).max(1)
}

impl Room {
    /// Reads what operators set for this room before its task serves anyone.
    pub(super) async fn load_civility(&mut self) {
        let (store, id, now) = (self.store.clone(), self.info.id.clone(), self.now());
        let read = blocking(move || {
            Ok::<_, crate::store::StoreError>((store.slow_mode(&id)?, store.room_bars(&id, now)?))
        });
        match read.await {
            Ok((seconds, barred)) => {
                self.chat.set(seconds);
                self.barred = barred.into_iter().collect();
            }
            // The room still serves; what could not be read is off until set again.
            Err(e) => {
                tracing::error!(error = %e, room = %self.info.id, "reading slow mode and who is put out")
            }
        }
    }

    /// `Err` while `user` is put out of this room.
    pub(super) fn not_barred(&self, user: &UserId) -> Result<(), Refusal> {
        let now = self.now();
        match self.barred.get(user) {
            Some(&until) if until > now => Err(Refusal::until(
                ErrorCode::Barred,
                format!(
                    "you were put out of {}: you may come back in {} s",
                    self.info.name,
                    secs_until(until, now)
                ),
                until,
            )),
            _ => Ok(()),
        }
    }

    /// A connection put out of the room goes (it left, entered elsewhere or dropped).
    pub(super) fn gone_outside(&mut self, user: &UserId, conn: u64) {
        if self.outside.get(user).is_some_and(|(c, _, _)| *c == conn) {
            self.outside.remove(user);
        }
    }

    /// A message from a connection put out of the room (it still takes this room for its
    /// own): `enter` of this room again is refused while they are barred, and lets them in
    /// after; anything else is answered as out of any room.
    pub(super) fn answer_outside(
        &mut self,
        user: &UserId,
        message: ClientMessage,
        r#ref: Option<Value>,
    ) {
        let Some((conn, outbox, who)) = self.outside.get(user).cloned() else {
            return;
        };
        let refusal = match message {
            ClientMessage::Enter { since, .. } => match self.may_enter(user) {
                Ok(()) => {
                    self.outside.remove(user);
                    self.enter(who, outbox, conn, since, r#ref);
                    return;
                }
                Err(refusal) => ServerMessage::refusal(&refusal, r#ref),
            },
            _ => ServerMessage::error(
                ErrorCode::NotInRoom,
                "you were put out of this room: enter another",
                r#ref,
            ),
        };
        // A reader that does not read loses the answer, never the room's time.
        let _ = outbox.try_send(refusal.to_frame());
    }

    /// Slow mode as the `room` snapshot shows it: only when on.
    pub(super) fn slow_mode_shown(&self) -> Option<SlowMode> {
        Some(self.chat.slow_mode()).filter(|s| s.seconds > 0)
    }

    /// A chat line: checked, let through the room's gate, numbered and sent to everyone.
    pub(super) fn chat(&mut self, user: User, text: &str) -> Result<(), Refusal> {
        let text = text.trim();
        if text.is_empty() || text.chars().count() > self.config.chat_max_chars {
            return Err(Refusal::new(
                ErrorCode::BadChat,
                format!(
                    "a chat line is 1 to {} characters",
                    self.config.chat_max_chars
                ),
            ));
        }
        let now = self.now();
        if let Some(until) = self.config.civility.muted_until(&user.id, now) {
            return Err(Refusal::until(
                ErrorCode::Muted,
                format!(
                    "you are muted: you may chat again in {} s",
                    secs_until(until, now)
                ),
                until,
            ));
        }
        if let Err((soon, change)) = self.chat.speak(&user.id, now) {
            if let Some(slow_mode) = change {
                self.announce_slow_mode(slow_mode);
            }
            let wait = secs_until(soon.until, now);
            let message = if soon.room_busy {
                format!("the room's chat is too busy: slow mode is on, speak again in {wait} s")
            } else {
                format!(
                    "slow mode: one line every {} s, speak again in {wait} s",
                    self.chat.slow_mode().seconds
                )
            };
            return Err(Refusal::until(ErrorCode::SlowMode, message, soon.until));
        }
        self.chat_lines += 1;
        // Members who block the speaker do not get the line.
        let blocking = self
            .config
            .civility
            .blocking_of(&user.id, self.members.keys());
        let speaker = user.id.clone();
        let frame = ServerMessage::Chat {
            room: self.info.id.clone(),
            user,
            text: text.to_owned(),
            id: self.chat_lines,
        }
        .to_frame();
        self.chat_log.push_back(ChatLine {
            id: self.chat_lines,
            speaker,
            frame: frame.clone(),
        });
        while self.chat_log.len() > self.config.chat_backlog {
            self.chat_log.pop_front();
        }
        let slow: Vec<UserId> = self
            .members
            .iter()
            .filter(|(id, m)| !blocking.contains(*id) && m.outbox.try_send(frame.clone()).is_err())
            .map(|(id, _)| id.clone())
            .collect();
        self.drop_members(slow);
        Ok(())
    }

    /// The kept chat lines `receiver` may see (not those of users they block), oldest first,
    /// each exactly as it was sent.
    pub(super) fn chat_backlog_for(&self, receiver: &UserId) -> Vec<Box<RawValue>> {
        let civility = &self.config.civility;
        self.chat_log
            .iter()
            .filter(|line| !civility.blocks(receiver, &line.speaker))
            .filter_map(|line| RawValue::from_string(line.frame.to_string()).ok())
            .collect()
    }

    /// Time passed: the room's own slow mode may be over.
    pub(super) fn chat_tick(&mut self, now: u64) {
        if let Some(slow_mode) = self.chat.tick(now) {
            self.announce_slow_mode(slow_mode);
        }
    }

    fn announce_slow_mode(&mut self, slow_mode: SlowMode) {
        tracing::info!(room = %self.info.id, seconds = slow_mode.seconds, auto = slow_mode.auto, "slow mode");
        self.broadcast(&ServerMessage::SlowMode {
            room: self.info.id.clone(),
            slow_mode,
        });
    }

    /// Whether `from` may invite `to` now: a few invitations a minute to one guest, hotel-wide.
    pub(super) fn may_invite(&self, from: &UserId, to: &UserId) -> Result<(), Refusal> {
        if self.config.civility.blocks(to, from) {
            // As little as needed: not that they blocked you.
            return Err(Refusal::new(
                ErrorCode::BadInvitation,
                "this guest is not taking invitations now",
            ));
        }
        let per_minute = self.config.civility.limits.invitations_per_minute;
        let now = self.now();
        let checked = self
            .config
            .civility
            .invitations
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .check(from, to, per_minute, now);
        checked.map_err(|until| {
            Refusal::until(
                ErrorCode::TooManyInvitations,
                format!(
                    "{per_minute} invitations a minute to one guest at most: invite them again in {} s",
                    secs_until(until, now)
                ),
                until,
            )
        })
    }

    /// Takes one of `user`'s changes at the tables (everyone in the room hears each), or
    /// refuses it until their budget has one again.
    pub(super) fn may_change_tables(&self, user: &UserId) -> Result<(), Refusal> {
        let now = self.now();
        let limits = &self.config.civility.limits;
        let taken = self.config.civility.take_table_change(user, now);
        taken.map_err(|until| {
            Refusal::until(
                ErrorCode::RateLimited,
                format!(
                    "too many changes at the tables: {} a minute at most; again in {} s",
                    limits.table_changes_per_minute,
                    secs_until(until, now)
                ),
                until,
            )
        })
    }

    /// `from` sent `to` an invitation.
    pub(super) fn invited(&self, from: &UserId, to: &UserId) {
        let now = self.now();
        self.config
            .civility
            .invitations
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .record(from, to, now);
    }

    /// An operator's decision, stored already: made real and told.
    pub(super) async fn moderate(&mut self, moderation: Moderation) {
        match moderation {
            Moderation::SlowMode { seconds } => {
                if let Some(slow_mode) = self.chat.set(seconds) {
                    self.announce_slow_mode(slow_mode);
                }
            }
            Moderation::Muted {
                user,
                until,
                reason,
            } => self.send_to(&user, &ServerMessage::Muted { until, reason }),
            Moderation::PutOut {
                user,
                until,
                reason,
            } => {
                self.barred.insert(user.clone(), until);
                let Some((conn, outbox, who)) = self
                    .members
                    .get(&user)
                    .map(|m| (m.conn, m.outbox.clone(), m.user.clone()))
                else {
                    return;
                };
                let told = ServerMessage::PutOut {
                    room: self.info.id.clone(),
                    until,
                    reason,
                };
                self.send_to(&user, &told);
                // As if they left: their seats go, a match in play is resigned.
                self.depart(&user, Going::Left).await;
                // Their connection stays open, in no room.
                self.outside.insert(user, (conn, outbox, who));
            }
            Moderation::RemoveLine { line, reply } => {
                let known = (1..=self.chat_lines).contains(&line);
                self.chat_log.retain(|kept| kept.id != line);
                if known {
                    self.broadcast(&ServerMessage::ChatRemoved {
                        room: self.info.id.clone(),
                        id: line,
                    });
                }
                let _ = reply.send(known);
            }
        }
    }
}
