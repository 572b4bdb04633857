//! Who hears what. A game's moves (`game_state`) go to its two players and to the members
//! watching its table; everything else a table says (seats, settings, a game starting or
//! ending, the match, the rematch) goes to everyone in the room. Every table event is
//! serialised once, kept in the table's log, and shared by all who receive it. Those not
//! watching a game see where it stands in `table_status`, at most once every
//! `world.status_every`: a room of a hundred costs a frame per watcher a move, not a hundred.

use serde_json::Value;

use crate::common::UserId;

use super::super::protocol::{ServerMessage, TableStatus};
use super::super::table::Refusal;
use super::{ms, render, Room};

impl ServerMessage {
    /// A table's or a room's refusal, as the one who asked is told it. Here, not in
    /// `protocol/`: the messages know nothing of the table.
    pub fn refusal(refusal: &Refusal, r#ref: Option<Value>) -> ServerMessage {
        ServerMessage::Error {
            code: refusal.code,
            message: refusal.message.clone(),
            r#ref,
            until: refusal.until,
        }
    }
}

impl Room {
    /// A table event, serialised once: kept in table `t`'s log under `version`, then sent to
    /// those who hear it.
    pub(super) fn publish(&mut self, t: usize, version: u64, message: &ServerMessage) {
        let frame = message.to_frame();
        let kept = &mut self.tables[t];
        kept.log.push_back((version, frame.clone()));
        while kept.log.len() > self.config.table_log {
            kept.log.pop_front();
        }
        if !message.is_move() {
            self.broadcast_frame(None, &frame);
            return;
        }
        kept.moved = true;
        let table = &kept.table;
        let slow: Vec<UserId> = self
            .members
            .iter()
            .filter(|(id, m)| m.watching.as_ref() == Some(&table.id) || table.plays_here(id))
            .filter(|(_, m)| m.outbox.try_send(frame.clone()).is_err())
            .map(|(id, _)| id.clone())
            .collect();
        self.drop_members(slow);
    }

    /// `user` watches table `t` from now on (and no other), and is told what they missed
    /// there: the events after `since` when still held, else the whole table.
    pub(super) fn watch(
        &mut self,
        user: &UserId,
        t: usize,
        since: Option<u64>,
        r#ref: Option<Value>,
    ) {
        let Some(member) = self.members.get_mut(user) else {
            return;
        };
        member.watching = Some(self.tables[t].table.id.clone());
        // No version is 0 (they start at the process's base): asked for nothing, the whole table.
        let missed = self.missed(t, since.unwrap_or(0), r#ref);
        self.send_to(user, &missed);
    }

    /// `user` watches no table.
    pub(super) fn unwatch(&mut self, user: &UserId) {
        if let Some(member) = self.members.get_mut(user) {
            member.watching = None;
        }
    }

    /// Where the games that moved stand, to everyone, once `world.status_every` has passed
    /// since the last time.
    pub(super) fn tell_status(&mut self, now: u64) {
        if now.saturating_sub(self.status_at) < ms(self.config.status_every) {
            return;
        }
        let tables: Vec<TableStatus> = self
            .tables
            .iter_mut()
            .filter_map(|k| std::mem::take(&mut k.moved).then(|| render::status(&k.table, now))?)
            .collect();
        if tables.is_empty() {
            return;
        }
        self.status_at = now;
        self.broadcast(&ServerMessage::TableStatus {
            room: self.info.id.clone(),
            tables,
        });
    }
}
