//! The queue at a table: guests waiting to play here, in turn, each called to a free seat
//! and given a while to take it; and the winner staying on when others wait. A lounge
//! table has one; a home board only when its owner turns it on.
//!
//! The rules, as the table keeps them:
//! - A seat is free for the queue when nobody sits there, no match is in play, no rematch
//!   is on offer and the room is not closing. The first waiting is then called to it.
//! - While anyone waits or is called, only those called may sit here.
//! - A match ends with someone waiting: its winner keeps their seat and the loser stands
//!   (no rematch). After `straight_wins` wins in a row the winner stands too. A drawn
//!   match, one called off, and one Baba Ayo played in: both stand, the next two are called.
//! - A called guest who does not sit within the call, leaves the room or drops, or sits at
//!   another table, loses their place.

use crate::ayo::Side;
use crate::common::{ErrorCode, User, UserId};

use super::{refuse, Effects, Refusal, Table, TableEvent};

/// Guests waiting at one table at most.
pub const MAX_WAITING: usize = 32;

/// A table's queue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queue {
    /// Whether the table has one (when not, everything else is empty).
    pub on: bool,
    /// Waiting, in turn: the first is called next.
    pub waiting: Vec<User>,
    /// Called to a free seat, each until their call ends.
    pub called: Vec<Call>,
    /// The winner staying on, and their wins in a row here.
    pub streak: Option<Streak>,
}

/// A guest called from the queue to a seat.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub user: User,
    pub seat: Side,
    /// They sit by then (server ms) or lose their place.
    pub until_ms: u64,
}

/// A winner staying on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Streak {
    pub user: UserId,
    pub wins: u8,
}

/// Why a guest is no longer in a table's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unqueued {
    /// They asked (`unqueue`).
    Asked,
    /// They were called and did not sit in time.
    Lapsed,
    /// They left the room or dropped.
    Gone,
    /// They sat at another table.
    SeatedElsewhere,
    /// They joined another table's queue (one queue a guest in a room).
    OtherTable,
    /// The queue is off, the table went, or the room is closing.
    Closed,
}

impl Unqueued {
    /// The word `queue_left` gives it.
    pub fn word(self) -> &'static str {
        match self {
            Unqueued::Asked => "asked",
            Unqueued::Lapsed => "lapsed",
            Unqueued::Gone => "gone",
            Unqueued::SeatedElsewhere => "seated_elsewhere",
            Unqueued::OtherTable => "other_table",
            Unqueued::Closed => "closed",
        }
    }
}

impl Queue {
    /// Whether `user` waits or is called here.
    pub fn holds(&self, user: &UserId) -> bool {
        self.waiting.iter().any(|u| &u.id == user) || self.called.iter().any(|c| &c.user.id == user)
    }

    /// Whether anyone waits or is called: the seats are theirs first.
    pub fn busy(&self) -> bool {
        !self.waiting.is_empty() || !self.called.is_empty()
    }

    /// The soonest a call ends.
    pub fn deadline(&self) -> Option<u64> {
        self.called.iter().map(|c| c.until_ms).min()
    }

    fn call_for(&self, seat: Side) -> Option<&Call> {
        self.called.iter().find(|c| c.seat == seat)
    }

    /// Takes `user` out; whether they were in.
    fn remove(&mut self, user: &UserId) -> bool {
        let before = self.waiting.len() + self.called.len();
        self.waiting.retain(|u| &u.id != user);
        self.called.retain(|c| &c.user.id != user);
        before != self.waiting.len() + self.called.len()
    }
}

impl Table {
    /// `queue`: `user` waits for a seat here (seated nowhere in the room: the room checks
    /// the other tables).
    pub(super) fn join_queue(
        &mut self,
        user: User,
        seated_elsewhere: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        if !self.queue.on {
            return refuse(ErrorCode::QueueOff, "this table has no queue");
        }
        if self.seat_of(&user.id).is_some() {
            return refuse(ErrorCode::AlreadySeated, "you have a seat at this table");
        }
        if seated_elsewhere {
            return refuse(
                ErrorCode::AlreadySeated,
                "you have a seat at another table of this room: stand first",
            );
        }
        if self.closing {
            return refuse(
                ErrorCode::RoomClosing,
                "this room is closing: no new game starts here",
            );
        }
        if user.house || self.queue.holds(&user.id) {
            return Ok(());
        }
        if self.queue.waiting.len() >= MAX_WAITING {
            return refuse(
                ErrorCode::QueueFull,
                format!("{MAX_WAITING} guests wait at this table already"),
            );
        }
        self.queue.waiting.push(user);
        self.changed(fx);
        Ok(())
    }

    /// `unqueue`, and every other way out of the queue.
    pub(super) fn leave_queue(
        &mut self,
        user: &UserId,
        why: Unqueued,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        if !self.queue.remove(user) {
            return refuse(ErrorCode::NotQueued, "you are not in this table's queue");
        }
        fx.tell(user, TableEvent::Unqueued { why });
        self.changed(fx);
        Ok(())
    }

    /// Everyone out of the queue: it is off, the table goes, the room closes.
    pub(super) fn empty_queue(&mut self, fx: &mut Effects) {
        let out: Vec<UserId> = self
            .queue
            .waiting
            .drain(..)
            .map(|u| u.id)
            .chain(self.queue.called.drain(..).map(|c| c.user.id))
            .collect();
        self.queue.streak = None;
        for user in &out {
            fx.tell(
                user,
                TableEvent::Unqueued {
                    why: Unqueued::Closed,
                },
            );
        }
        if !out.is_empty() {
            self.changed(fx);
        }
    }

    /// An operator or the owner turns the queue on or off.
    pub(super) fn set_queue(&mut self, on: bool, fx: &mut Effects) {
        if !on {
            self.empty_queue(fx);
        }
        if self.queue.on != on {
            self.queue.on = on;
            self.changed(fx);
        }
    }

    /// Calls that ran out: those guests lose their place.
    pub(super) fn lapse_calls(&mut self, fx: &mut Effects) {
        let now = self.now;
        let (lapsed, kept): (Vec<Call>, Vec<Call>) =
            self.queue.called.drain(..).partition(|c| c.until_ms <= now);
        self.queue.called = kept;
        for call in &lapsed {
            fx.tell(
                &call.user.id,
                TableEvent::Unqueued {
                    why: Unqueued::Lapsed,
                },
            );
        }
        if !lapsed.is_empty() {
            self.changed(fx);
        }
    }

    /// Whether `user` may take `seat` with the queue as it is: while anyone waits or is
    /// called, the seats are for those called.
    pub(super) fn queue_allows(&self, user: &UserId, seat: Side) -> Result<(), Refusal> {
        if !self.queue.busy() {
            return Ok(());
        }
        if let Some(call) = self.queue.call_for(seat) {
            if &call.user.id == user {
                return Ok(());
            }
            return refuse(
                ErrorCode::SeatTaken,
                format!(
                    "the {seat} seat is kept for {} from the queue",
                    call.user.name
                ),
            );
        }
        if self.queue.called.iter().any(|c| &c.user.id == user) {
            return Ok(());
        }
        refuse(
            ErrorCode::QueueFirst,
            "guests are waiting for this table: join its queue",
        )
    }

    /// `user` sat down: their call is answered.
    pub(super) fn seated_from_queue(&mut self, user: &UserId) {
        self.queue.called.retain(|c| &c.user.id != user);
    }

    /// Calls the first waiting to each seat free for the queue; whether anyone was called.
    pub(super) fn call_from_queue(&mut self, fx: &mut Effects) -> bool {
        if !self.queue.on
            || self.queue.waiting.is_empty()
            || self.closing
            || self.match_in_play()
            || self.rematch.is_some()
        {
            return false;
        }
        let mut called = false;
        for seat in Side::BOTH {
            if self.seats[seat.index()].is_some() || self.queue.call_for(seat).is_some() {
                continue;
            }
            if self.queue.waiting.is_empty() {
                break;
            }
            let user = self.queue.waiting.remove(0);
            let until_ms = self.now.saturating_add(self.timing.queue_call_ms);
            fx.tell(&user.id, TableEvent::Called { seat, until_ms });
            self.queue.called.push(Call {
                user,
                seat,
                until_ms,
            });
            called = true;
        }
        called
    }

    /// At a match's end with `winner`: the seat the winner keeps, if they stay on (someone
    /// waits, they are a guest, and they have not won `straight_wins` in a row here).
    pub(super) fn stays_on(&mut self, winner: Option<&User>, called_off: bool) -> Option<Side> {
        // A tournament's game: its players go back to the tournament.
        let waiting =
            self.queue.on && !self.queue.waiting.is_empty() && !self.closing && !self.no_rematch;
        let winner = winner.filter(|w| waiting && !called_off && !w.house && !self.has_house());
        let Some(winner) = winner else {
            self.queue.streak = None;
            return None;
        };
        let wins = match &self.queue.streak {
            Some(s) if s.user == winner.id => s.wins.saturating_add(1),
            _ => 1,
        };
        if wins >= self.timing.straight_wins {
            self.queue.streak = None;
            return None;
        }
        self.queue.streak = Some(Streak {
            user: winner.id.clone(),
            wins,
        });
        self.seat_of(&winner.id)
    }

    fn has_house(&self) -> bool {
        self.seats.iter().flatten().any(|u| u.house)
    }
}
