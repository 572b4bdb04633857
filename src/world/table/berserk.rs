//! Berserk in an arena game: on their own turn, before their first move, a player may halve
//! their own clock for one point more if they win (the tournament scores it). Only in a match a tournament
//! paired and whose tournament allows it, under a clock for the whole game.

use crate::ayo::Side;
use crate::common::{ErrorCode, UserId};

use super::{refuse, Effects, Refusal, Table, TableEvent, Write};

impl Table {
    /// `user` goes berserk in the game in play.
    pub(super) fn berserk(&mut self, user: &UserId, fx: &mut Effects) -> Result<(), Refusal> {
        let player = self.player_in_match(user)?;
        let Some(mut went) = self.berserk else {
            return refuse(
                ErrorCode::NoBerserk,
                "berserk is for arena games whose tournament allows it",
            );
        };
        if went[player] {
            return refuse(ErrorCode::NoBerserk, "you went berserk already");
        }
        let now = self.now;
        let Some(game) = self.game.as_mut().filter(|g| !g.game.is_over()) else {
            return refuse(ErrorCode::NoGame, "no game is in play at this table");
        };
        let Some(side) = Side::BOTH
            .into_iter()
            .find(|s| &game.players[s.index()].id == user)
        else {
            return refuse(ErrorCode::NotSeated, "you are not playing at this table");
        };
        // On one's own turn (an opponent's move in flight is never made stale by it), before
        // one's first move: plies alternate from the first mover.
        let own_first_ply = usize::from(game.game.first() != side);
        if game.game.to_move() != Some(side) || game.game.moves().len() != own_first_ply {
            return refuse(
                ErrorCode::NoBerserk,
                "berserk is on your own turn, before your first move",
            );
        }
        let Some(clocks) = game.clocks.as_mut() else {
            return refuse(ErrorCode::NoBerserk, "berserk needs a clock");
        };
        if !clocks.halve(side) {
            return refuse(
                ErrorCode::NoBerserk,
                "berserk needs a clock for the whole game",
            );
        }
        let clocks = *clocks;
        let (game_id, player_user) = (game.id.clone(), game.players[side.index()].clone());
        went[player] = true;
        self.berserk = Some(went);
        let r#match = self.match_mut().id.clone();
        fx.store(Write::Berserk {
            r#match,
            user: user.clone(),
        });
        let event = TableEvent::Berserked {
            game: game_id,
            user: player_user,
            seat: side,
            clocks,
            version: self.version + 1,
            at: now,
        };
        self.publish(event, fx);
        Ok(())
    }

    /// Who of South and North went berserk in the game in play, where berserk is allowed.
    pub fn berserk_seats(&self) -> Option<[bool; 2]> {
        let went = self.berserk?;
        let m = self.r#match.as_ref()?;
        let game = self.game.as_ref()?;
        Some(
            game.players
                .each_ref()
                .map(|p| m.player(&p.id).is_some_and(|i| went[i])),
        )
    }

    /// A tournament's match read back from the store: no rematch after it, and berserk as
    /// its tournament allows (`went`: who went berserk already).
    pub fn resume_arena(&mut self, berserk_allowed: bool, went: &[UserId]) {
        self.no_rematch = true;
        self.berserk = berserk_allowed.then(|| {
            let players = self.r#match.as_ref().map(|m| m.players.clone());
            let mut seen = [false; 2];
            if let Some(players) = players {
                for (i, p) in players.iter().enumerate() {
                    seen[i] = went.contains(&p.id);
                }
            }
            seen
        });
    }
}
