//! Who sits where: taking and giving up seats, the host's settings, invitations, Baba Ayo
//! sitting down, and what becomes of a seat when its player departs.

use crate::ayo::{Forfeit, Game, Rules, Side};
use crate::common::{ErrorCode, InvitationId, Seating, User, UserId};

use super::super::matches::{MatchChoice, MatchEnd, MatchSettings};
use super::{
    refuse, Departure, Effects, Invitation, InvitationEnd, Refusal, Table, TableEvent, Unqueued,
};

/// The settings a client sent, as the table takes them; a bad one is refused as
/// `bad_settings`, saying why.
pub fn choose(
    clock: Option<&str>,
    best_of: Option<u8>,
    seats: Option<&str>,
) -> Result<MatchChoice, Refusal> {
    MatchChoice::parse(clock, best_of, seats)
        .map_err(|e| Refusal::new(ErrorCode::BadSettings, e.to_string()))
}

/// Invitations open at one table at most.
const MAX_INVITATIONS: usize = 16;

impl Table {
    pub(super) fn sit(
        &mut self,
        user: User,
        seat: Side,
        seating: Option<Seating>,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        if self.match_in_play() {
            return refuse(ErrorCode::GameInPlay, "a game is in play at this table");
        }
        if self.seats[seat.index()].is_some() {
            return refuse(ErrorCode::SeatTaken, format!("the {seat} seat is taken"));
        }
        self.queue_allows(&user.id, seat)?;
        self.seated_from_queue(&user.id);
        if self.seats.iter().all(Option::is_none) {
            // A new host: the table's matches are as the lounge plays them until they choose
            // otherwise, here their seating.
            self.settings = MatchSettings {
                seats: seating.unwrap_or_default(),
                ..self.defaults
            };
        } else if let Some(seating) = seating.filter(|s| *s != self.settings.seats) {
            // The host chose; sitting down must not play another match than the one asked for.
            return refuse(
                ErrorCode::BadSettings,
                format!(
                    "the host chose seats \"{}\" here, not \"{seating}\": sit without seats, or at another table",
                    self.settings.seats
                ),
            );
        }
        self.seats[seat.index()] = Some(user);
        self.clear_last_match();
        self.changed(fx);
        if self.seats.iter().all(Option::is_some) {
            self.start_match(None, fx)?;
        }
        Ok(())
    }

    pub(super) fn stand(&mut self, user: &UserId, fx: &mut Effects) -> Result<(), Refusal> {
        let Some(side) = self.seat_of(user) else {
            return refuse(ErrorCode::NotSeated, "you have no seat at this table");
        };
        self.give_up_seat(side, fx);
        Ok(())
    }

    pub(super) fn set_match(
        &mut self,
        user: &UserId,
        choice: MatchChoice,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let Some(side) = self.seat_of(user) else {
            return refuse(
                ErrorCode::NotSeated,
                "sit at the table to choose how it plays",
            );
        };
        if self.match_in_play() {
            return refuse(ErrorCode::GameInPlay, "a match is in play at this table");
        }
        if self.seats[side.opponent().index()].is_some() {
            return refuse(
                ErrorCode::SeatTaken,
                "the match is chosen before the opponent sits: stand and sit again",
            );
        }
        let settings = self.settings.with(choice);
        if settings != self.settings {
            self.settings = settings;
            // An invitation promised the settings it was sent with.
            self.end_invitations(|_| true, InvitationEnd::SettingsChanged, fx);
        }
        self.changed(fx);
        Ok(())
    }

    /// The player takes a seat here if they have none, Baba Ayo the one opposite, and a match
    /// starts: under the settings given, over the host's (the lounge's for a newcomer).
    pub(super) fn play_house(
        &mut self,
        user: User,
        house: User,
        choice: MatchChoice,
        seated_elsewhere: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let seated = self.seat_of(&user.id);
        let base = if seated.is_some() {
            self.settings
        } else {
            self.defaults
        };
        // Baba Ayo's games are never rated.
        let settings = MatchSettings {
            rated: false,
            ..base.with(choice)
        };
        if self.match_in_play() {
            return refuse(ErrorCode::GameInPlay, "a game is in play at this table");
        }
        if seated.is_none() && seated_elsewhere {
            return refuse(
                ErrorCode::AlreadySeated,
                "you already have a seat in this room: stand first",
            );
        }
        // Both seats must be the player's or free: the house never sits opposite someone else.
        let side = seated.unwrap_or(Side::South);
        if self.queue.busy() {
            return refuse(
                ErrorCode::QueueFirst,
                "guests are waiting for this table: play Baba Ayo at another",
            );
        }
        let opposite = side.opponent().index();
        if self.seats[opposite].is_some()
            || self.seats[side.index()]
                .as_ref()
                .is_some_and(|u| u.id != user.id)
        {
            return refuse(
                ErrorCode::SeatTaken,
                "someone else has a seat at this table",
            );
        }
        self.seats[side.index()] = Some(user);
        self.seats[opposite] = Some(house);
        self.settings = settings;
        self.clear_last_match();
        // Invitations to that seat are void now.
        self.invitations.clear();
        self.changed(fx);
        self.start_match(None, fx)
    }

    pub(super) fn invite(
        &mut self,
        from: User,
        to: UserId,
        id: InvitationId,
        to_present: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let Some(side) = self.seat_of(&from.id) else {
            return refuse(
                ErrorCode::NotSeated,
                "sit at the table before you invite someone",
            );
        };
        if self.seats[side.opponent().index()].is_some() {
            return refuse(ErrorCode::SeatTaken, "the seat opposite you is taken");
        }
        if to == from.id {
            return refuse(ErrorCode::BadInvitation, "you cannot invite yourself");
        }
        if self.queue.busy() {
            return refuse(
                ErrorCode::QueueFirst,
                "guests are waiting for this table: the seat opposite goes to the queue",
            );
        }
        if !to_present {
            return refuse(
                ErrorCode::NotInRoom,
                "you can only invite someone in this room",
            );
        }
        // One open invitation to each guest: a new one replaces the old (both are told), so
        // no host can pile them up.
        self.end_invitations(|i| i.to == to, InvitationEnd::Withdrawn, fx);
        if self.invitations.len() >= MAX_INVITATIONS {
            return refuse(
                ErrorCode::BadInvitation,
                format!("{MAX_INVITATIONS} invitations are open here: wait for an answer"),
            );
        }
        let settings = self.settings;
        let expires_ms = self.now.saturating_add(self.timing.invitation_ms);
        fx.tell(
            &to,
            TableEvent::Invited {
                id: id.clone(),
                from: from.clone(),
                settings,
                expires_ms,
            },
        );
        fx.tell(
            &from.id,
            TableEvent::InvitationSent {
                id: id.clone(),
                to: to.clone(),
            },
        );
        self.invitations.push(Invitation {
            id,
            from,
            to,
            settings,
            expires_ms,
        });
        Ok(())
    }

    pub(super) fn respond(
        &mut self,
        user: User,
        id: &InvitationId,
        accept: bool,
        seated: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let Some(i) = self
            .invitations
            .iter()
            .position(|inv| &inv.id == id && inv.to == user.id)
        else {
            return refuse(
                ErrorCode::NoSuchInvitation,
                "that invitation is not open for you (it may have expired)",
            );
        };
        let inv = self.invitations.remove(i);
        if !accept {
            let declined = TableEvent::InvitationDeclined { id: inv.id.clone() };
            fx.tell(&inv.from.id, declined.clone());
            fx.tell(&user.id, declined);
            return Ok(());
        }
        let Some(side) = self.seat_of(&inv.from.id) else {
            return refuse(
                ErrorCode::InvitationVoid,
                "the one who invited you has left the table",
            );
        };
        if seated {
            return refuse(
                ErrorCode::AlreadySeated,
                "you already have a seat in this room: stand first",
            );
        }
        if self.seats[side.opponent().index()].is_some() {
            return refuse(ErrorCode::SeatTaken, "the seat was taken meanwhile");
        }
        self.queue_allows(&user.id, side.opponent())?;
        self.seated_from_queue(&user.id);
        self.seats[side.opponent().index()] = Some(user);
        self.settings = inv.settings;
        self.clear_last_match();
        self.changed(fx);
        self.start_match(None, fx)
    }

    pub(super) fn set_rules(&mut self, rules: Rules, fx: &mut Effects) -> Result<(), Refusal> {
        if self.match_in_play() {
            return refuse(ErrorCode::TableBusy, "a match is in play at this table");
        }
        self.rules = rules;
        self.end_invitations(|_| true, InvitationEnd::TableChanged, fx);
        self.changed(fx);
        Ok(())
    }

    /// The one place a departure is decided: seat, match, rematch and invitations.
    pub(super) fn depart(&mut self, user: &UserId, why: Departure, fx: &mut Effects) {
        match why {
            Departure::Left => {
                if let Some(side) = self.seat_of(user) {
                    self.give_up_seat(side, fx);
                }
            }
            Departure::Gone => {
                // A match in play keeps the seat through the grace.
                if let Some(side) = self.seat_of(user).filter(|_| !self.match_in_play()) {
                    self.give_up_seat(side, fx);
                }
            }
            Departure::GraceOver(ref gone) => self.abandon(gone, fx),
        }
        // No rematch with someone who has gone, and nobody waits on their invitations.
        let gone = match &why {
            Departure::GraceOver(gone) => gone.clone(),
            _ => {
                // Not in the room, not in the queue.
                let _ = self.leave_queue(user, Unqueued::Gone, fx);
                vec![user.clone()]
            }
        };
        for user in &gone {
            self.void_rematch_of(user, fx);
            self.end_invitations(
                |i| &i.from.id == user || &i.to == user,
                InvitationEnd::Withdrawn,
                fx,
            );
        }
    }

    /// Players out of their grace lose their match as abandoned and their seat; if both
    /// players are, the game is called off and nobody is blamed.
    fn abandon(&mut self, gone: &[UserId], fx: &mut Effects) {
        let away: Vec<Side> = Side::BOTH
            .into_iter()
            .filter(|s| {
                self.seats[s.index()]
                    .as_ref()
                    .is_some_and(|u| !u.house && gone.contains(&u.id))
            })
            .collect();
        match away.as_slice() {
            [] => {}
            [side] => {
                let side = *side;
                let player = self.seats[side.index()]
                    .as_ref()
                    .and_then(|u| self.r#match.as_ref()?.player(&u.id));
                self.end_match(player, MatchEnd::Abandoned, fx);
                self.end_off_board(|g| g.forfeit(side, Forfeit::Abandoned), fx);
                self.seats[side.index()] = None;
                self.changed(fx);
            }
            _ => {
                self.end_match(None, MatchEnd::Abandoned, fx);
                self.end_off_board(Game::call_off, fx);
                self.seats = [None, None];
                self.changed(fx);
            }
        }
    }

    /// The seat is given up: a match in play there is resigned with its game.
    pub(super) fn give_up_seat(&mut self, side: Side, fx: &mut Effects) {
        let player = self.seats[side.index()]
            .as_ref()
            .and_then(|u| self.r#match.as_ref()?.player(&u.id));
        self.end_match(player, MatchEnd::Resigned, fx);
        self.end_off_board(|g| g.forfeit(side, crate::ayo::Forfeit::Resigned), fx);
        let gone = self.seats[side.index()].take();
        if gone.is_some_and(|u| self.queue.streak.as_ref().is_some_and(|s| s.user == u.id)) {
            self.queue.streak = None;
        }
        if self.seats.iter().all(Option::is_none) {
            // Nobody hosts here now, and nobody is invited by them.
            self.settings = self.defaults;
            self.end_invitations(|_| true, InvitationEnd::Withdrawn, fx);
        }
        self.changed(fx);
    }

    /// A rematch on offer to `user` is off.
    fn void_rematch_of(&mut self, user: &UserId, fx: &mut Effects) {
        if self
            .rematch
            .as_ref()
            .is_some_and(|r| r.player(user).is_some())
        {
            self.rematch = None;
            self.changed(fx);
        }
    }

    /// The invitations `which` picks end; both sides of each are told why.
    pub(super) fn end_invitations(
        &mut self,
        which: impl Fn(&Invitation) -> bool,
        why: InvitationEnd,
        fx: &mut Effects,
    ) {
        let (gone, open): (Vec<_>, Vec<_>) = self.invitations.drain(..).partition(which);
        self.invitations = open;
        for inv in gone {
            let expired = TableEvent::InvitationEnded { id: inv.id, why };
            fx.tell(&inv.from.id, expired.clone());
            fx.tell(&inv.to, expired);
        }
    }

    /// A new match here forgets the last one.
    pub(super) fn clear_last_match(&mut self) {
        self.game = None;
        self.r#match = None;
        self.rematch = None;
    }
}
