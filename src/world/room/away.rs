//! Players away: a seated player of a match in play whose connection dropped keeps the seat
//! for the grace (`absent`). The room is told at once (`away`) and again when they come back
//! (`back`); the `room` snapshot lists who is away, so a client coming in (or reloading)
//! mid-grace sees it too. When a grace ends, the table's own events say what became of the
//! match: no `back` is sent.

use crate::ayo::Side;
use crate::common::{TableId, User, UserId};

use super::super::protocol::{AwayView, ServerMessage};
use super::Room;

impl Room {
    /// The table and seat where `user` plays a match in play here, and the user as seated.
    fn seat_in_play(&self, user: &UserId) -> Option<(TableId, Side, User)> {
        self.tables.iter().find_map(|k| {
            let side = k.table.seat_of(user).filter(|_| k.table.match_in_play())?;
            let seated = k.table.seats[side.index()].clone()?;
            Some((k.table.id.clone(), side, seated))
        })
    }

    /// `user` dropped out of a match in play: their seat waits until `until`, and everyone
    /// in the room is told. A player away already keeps their first grace.
    pub(super) fn gone_away(&mut self, user: &UserId, until: u64) {
        if self.absent.contains_key(user) {
            return;
        }
        self.absent.insert(user.clone(), until);
        if let Some((table, seat, user)) = self.seat_in_play(user) {
            self.broadcast(&ServerMessage::Away {
                room: self.info.id.clone(),
                table,
                seat,
                user,
                until,
            });
        }
    }

    /// `user` is coming back in: no longer away. The `back` to tell everyone else in the
    /// room (their own snapshot no longer lists them); none when they were not away, or their
    /// match ended meanwhile (its `match_over` said so).
    pub(super) fn coming_back(&mut self, user: &UserId) -> Option<ServerMessage> {
        self.absent.remove(user)?;
        let (table, seat, user) = self.seat_in_play(user)?;
        Some(ServerMessage::Back {
            room: self.info.id.clone(),
            table,
            seat,
            user,
        })
    }

    /// Who is away now, as the snapshot shows it: table by table, South first.
    pub(super) fn away_now(&self) -> Vec<AwayView> {
        let mut away = Vec::new();
        for k in self.tables.iter().filter(|k| k.table.match_in_play()) {
            for side in Side::BOTH {
                let Some(user) = k.table.seats[side.index()].as_ref() else {
                    continue;
                };
                if let Some(&until) = self.absent.get(&user.id) {
                    away.push(AwayView {
                        table: k.table.id.clone(),
                        seat: side,
                        user: user.clone(),
                        until,
                    });
                }
            }
        }
        away
    }
}
