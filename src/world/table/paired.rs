//! Two guests the room's pool paired sit down together and their match starts at once: one
//! command, so nobody can take a seat between the two.

use crate::common::{ErrorCode, User};

use super::super::matches::{MatchChoice, MatchSettings};
use super::{refuse, Effects, Refusal, Table};

impl Table {
    /// `players` sit South and North and their match starts under the room's settings with
    /// `choice` (`berserk`: its players may go berserk); refused unless the table is free: nobody seated, no match in play, not
    /// closing.
    pub(super) fn pair(
        &mut self,
        players: [User; 2],
        choice: MatchChoice,
        rematch: bool,
        berserk: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        if self.closing {
            return refuse(
                ErrorCode::RoomClosing,
                "this room is closing: no new game starts here",
            );
        }
        if !self.is_free() {
            return refuse(ErrorCode::TableBusy, "this table is not free now");
        }
        if players[0].id == players[1].id || players.iter().any(|p| p.house) {
            return refuse(ErrorCode::BadSettings, "a pairing is of two guests");
        }
        self.settings = MatchSettings::with(self.defaults, choice);
        self.seats = players.map(Some);
        self.clear_last_match();
        // Nobody sat here, so nobody invited anyone: nothing else is void.
        self.changed(fx);
        self.arena_next = Some((!rematch, berserk));
        let started = self.start_match(None, fx);
        self.arena_next = None;
        started?;
        Ok(())
    }

    /// Nobody sits here, no match is in play, no rematch is on offer (its players have first
    /// call on the table), nobody waits in its queue and the room is not closing: the pool
    /// may seat two here.
    pub fn is_free(&self) -> bool {
        self.idle() && self.rematch.is_none() && !self.queue.busy() && !self.closing
    }
}
