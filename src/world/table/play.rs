//! Play at a table: moves (and a move sent again), clocks running out, resigning, draws, and
//! the end of a game counted for its match.

use crate::ayo::{EndReason, Forfeit, Game, Pit, Side};
use crate::common::{ErrorCode, User, UserId};

use super::super::matches::{DrawOffer, GameEnd, MatchEnd, PlayedGame, Scope};
use super::{
    refuse, AppliedMove, Effects, Event, MoveClock, Refusal, Table, TableEvent, WallVerdict, Win,
    Write,
};

impl Table {
    pub(super) fn play(
        &mut self,
        user: &UserId,
        pit: Pit,
        version: Option<u64>,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        // A move sent again after a lost reply (the same pit from the version it was played
        // at) gets the reply again and is not played twice. The room matches one sent again
        // with the same ref itself: refs are the client's, not the table's.
        if let Some(last) = self.last_moves.iter().flatten().find(|m| &m.user == user) {
            if version == Some(last.version_before) && last.pit == pit {
                fx.events
                    .push(Event::Again(user.clone(), last.reply.clone()));
                return Ok(());
            }
        }
        // The flag fell a moment before the move came (the table has moved on since).
        if !self.game_in_play() && self.ran_out(user) {
            return refuse(ErrorCode::TimeOut, "your time ran out before the move");
        }
        if version.is_some_and(|v| v != self.version) {
            fx.tell(user, TableEvent::Changed(Box::new(self.snapshot(self.now))));
            return refuse(
                ErrorCode::StaleVersion,
                "the table has moved on: the current table follows",
            );
        }
        let side = match (self.game_in_play(), self.seat_of(user)) {
            (true, Some(side)) => side,
            (false, _) => return refuse(ErrorCode::NoGame, "no game is in play at this table"),
            (true, None) => {
                return refuse(ErrorCode::NotSeated, "you are not playing at this table")
            }
        };
        let now = self.now;
        let Some(live) = self.game.as_mut() else {
            return refuse(ErrorCode::NoGame, "no game is in play at this table");
        };
        if live.game.to_move() != Some(side) {
            return refuse(ErrorCode::NotYourTurn, "it is not your turn");
        }
        // Played on a copy first: an illegal move changes nothing.
        let mut next = live.game.clone();
        let played = next
            .play(pit)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, e.to_string()))?;
        let mut clocks = live.clocks;
        if clocks.as_mut().is_some_and(|c| c.moved(side, now).is_err()) {
            // Too late: the flag fell before the move came.
            self.end_off_board(|g| g.time_out(side), fx);
            return refuse(ErrorCode::TimeOut, "your time ran out before the move");
        }
        live.game = next;
        live.clocks = clocks;
        fx.store(Write::Move {
            game: live.id.clone(),
            ply: live.game.ply(),
            pit,
            clock: clocks.map(|c| MoveClock {
                at_ms: now,
                left: c.left(now),
            }),
        });
        let version_before = self.version;
        let update = TableEvent::Moved {
            game: live.id.clone(),
            side: played.side,
            pit,
            captured: played.captured,
            state: live.game.state(),
            version: version_before + 1,
            clocks,
            at: now,
        };
        let over = live.game.is_over();
        // A move ends a draw offer: the offerer's own withdraws it; the other player's
        // declines it, and the offerer is told so (Baba Ayo's move while he judges it too).
        if let Some(m) = self.r#match.as_mut() {
            let mover = m.player(user);
            if let Some(offer) = m.draw_offer.take().filter(|o| Some(o.from) != mover) {
                fx.tell(
                    &m.players[offer.from].id.clone(),
                    TableEvent::DrawDeclined { scope: offer.scope },
                );
            }
        }
        self.last_moves[played.side.index()] = Some(AppliedMove {
            user: user.clone(),
            pit,
            version_before,
            reply: update.clone(),
        });
        self.publish(update, fx);
        if over {
            self.game_over(fx);
        } else {
            fx.house_to_move = self.house_to_move().is_some();
        }
        Ok(())
    }

    /// Baba Ayo's move, played only if the table has not changed since he was asked.
    pub(super) fn house_move(
        &mut self,
        version: u64,
        pit: Pit,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        if version != self.version {
            return Ok(());
        }
        let Some(house) = self.house_to_move().map(|u| u.id.clone()) else {
            return Ok(());
        };
        self.play(&house, pit, None, fx)
    }

    pub(super) fn resign(
        &mut self,
        user: &UserId,
        scope: Scope,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let player = self.player_in_match(user)?;
        match scope {
            Scope::Match => self.end_match(Some(player), MatchEnd::Resigned, fx),
            Scope::Game if !self.game_in_play() => {
                return refuse(
                    ErrorCode::NoGame,
                    "no game is in play at this table: resign the match instead",
                )
            }
            Scope::Game => {}
        }
        // Between games the match's end has freed the seat already.
        if let Some(side) = self.seat_of(user) {
            self.end_off_board(|g| g.forfeit(side, Forfeit::Resigned), fx);
        }
        Ok(())
    }

    pub(super) fn offer_draw(
        &mut self,
        user: User,
        scope: Scope,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let player = self.player_in_match(&user.id)?;
        if scope == Scope::Game && !self.game_in_play() {
            return refuse(
                ErrorCode::NoGame,
                "no game is in play at this table: offer to draw the match instead",
            );
        }
        let game_in_play = self.game_in_play();
        let at = self.draw_point();
        let m = self.match_mut();
        // One offer at a time, and not again until a move since the last was declined: an
        // offer is a question to a person, and to Baba Ayo a search of his thinking time.
        if m.draw_offer.is_some_and(|o| o.from == player) {
            return refuse(
                ErrorCode::DrawPending,
                "your draw offer is still waiting for an answer",
            );
        }
        if m.draw_declined == Some((player, at)) {
            return refuse(
                ErrorCode::DrawTooSoon,
                "your draw offer was declined: make a move before offering again",
            );
        }
        let opponent = m.players[1 - player].clone();
        if opponent.house {
            // Baba Ayo takes a match's draw when behind in it and never when ahead; level, or
            // for a game, he judges the game in play (`house_judges_draw`) and answers later.
            let [mine, his] = [player, 1 - player].map(|p| m.series.halves()[p]);
            let judge = match scope {
                Scope::Game => true,
                Scope::Match => mine == his && game_in_play,
            };
            if judge {
                m.draw_offer = Some(DrawOffer {
                    from: player,
                    scope,
                });
                fx.house_judges_draw = true;
            } else if scope == Scope::Match && his < mine {
                m.draw_offer = Some(DrawOffer {
                    from: player,
                    scope,
                });
                return self.settle_draw(1 - player, true, fx);
            } else {
                m.draw_declined = Some((player, at));
                fx.tell(&user.id, TableEvent::DrawDeclined { scope });
            }
            return Ok(());
        }
        m.draw_offer = Some(DrawOffer {
            from: player,
            scope,
        });
        fx.tell(&opponent.id, TableEvent::DrawOffered { from: user, scope });
        Ok(())
    }

    /// Baba Ayo's answer to the draw offered to him, judged for the table as it was at
    /// `version`: given only if nothing changed since (a move withdrew the offer).
    pub(super) fn house_answers_draw(
        &mut self,
        version: u64,
        accept: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let house = self
            .r#match
            .as_ref()
            .filter(|m| !m.is_over() && m.draw_offer.is_some() && version == self.version)
            .and_then(|m| m.players.iter().position(|p| p.house));
        match house {
            Some(house) => self.settle_draw(house, accept, fx),
            None => Ok(()),
        }
    }

    pub(super) fn answer_draw(
        &mut self,
        user: &UserId,
        accept: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let player = self.player_in_match(user)?;
        self.settle_draw(player, accept, fx)
    }

    /// The match's `player` (0 or 1) answers the draw the other offered.
    fn settle_draw(
        &mut self,
        player: usize,
        accept: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let at = self.draw_point();
        let Some(m) = self.r#match.as_mut() else {
            return refuse(ErrorCode::NoGame, "no game is in play at this table");
        };
        let Some(offer) = m.draw_offer.filter(|o| o.from != player) else {
            return refuse(
                ErrorCode::NoDrawOffer,
                "your opponent has not offered a draw",
            );
        };
        m.draw_offer = None;
        let offerer = m.players[offer.from].id.clone();
        if !accept {
            m.draw_declined = Some((offer.from, at));
            fx.tell(&offerer, TableEvent::DrawDeclined { scope: offer.scope });
            return Ok(());
        }
        if offer.scope == Scope::Match {
            self.end_match(None, MatchEnd::AgreedDraw, fx);
        }
        self.end_off_board(Game::agree_draw, fx);
        Ok(())
    }

    /// Where the match stands for draw offers: the game's number and its ply.
    fn draw_point(&self) -> (u8, u32) {
        let number = self.r#match.as_ref().map_or(0, |m| m.game_number());
        let ply = self.game.as_ref().map_or(0, |g| g.game.ply());
        (number, ply)
    }

    /// Ends the game in play off the board (resign, draw, time) with `end`.
    pub(super) fn end_off_board(&mut self, end: impl FnOnce(&mut Game) -> bool, fx: &mut Effects) {
        let Some(live) = self.game.as_mut() else {
            return;
        };
        if end(&mut live.game) {
            self.game_over(fx);
        }
    }

    /// The end of the game in play is stored and announced and counted for its match: the
    /// match is over, or the wait for the next game begins.
    fn game_over(&mut self, fx: &mut Effects) {
        let now = self.now;
        let Some(live) = self.game.as_mut() else {
            return;
        };
        if let Some(c) = live.clocks.as_mut() {
            c.stop(now);
        }
        let status = live.game.status();
        let reason = live.game.end_reason().unwrap_or(EndReason::Abandoned);
        fx.store(Write::GameOver {
            game: live.id.clone(),
            status,
            reason,
            win: win_of(&live.game, &live.players),
        });
        let played = PlayedGame {
            game_id: live.id.clone(),
            number: live.number,
            south: live.players[0].id.clone(),
            north: live.players[1].id.clone(),
            result: status,
            reason: GameEnd::Game(reason),
        };
        self.count_game(played);
        let Some(live) = self.game.as_ref() else {
            return;
        };
        let over = TableEvent::GameOver {
            game: live.id.clone(),
            status,
            reason,
            state: live.game.state(),
            // The store's judge says, once it has the result: the room fills it in.
            wall: WallVerdict::at_end(status),
            version: self.version + 1,
            r#match: self.r#match.as_ref().map(|m| m.view()),
            clocks: live.clocks,
            at: now,
        };
        self.publish(over, fx);
        self.match_after_game(fx);
    }

    /// Whether the last game here ended with `user`'s time running out (lost, or drawn when
    /// the opponent could not win): the side to move when it ended.
    fn ran_out(&self, user: &UserId) -> bool {
        self.game.as_ref().is_some_and(|g| {
            g.game.end_reason() == Some(EndReason::Timeout)
                && &g.players[g.game.position().to_move().index()].id == user
        })
    }

    /// The side to move whose time has run out, if any.
    pub(super) fn flagged(&self) -> Option<Side> {
        let live = self.game.as_ref().filter(|g| !g.game.is_over())?;
        live.clocks.as_ref()?.flagged(self.now)
    }
}

/// A game's win, for the results, when it was won: `players` South and North.
pub fn win_of(game: &Game, players: &[User; 2]) -> Option<Win> {
    game.status().winner().map(|side| {
        let (winner, loser) = (&players[side.index()], &players[side.opponent().index()]);
        Win {
            winner: winner.id.clone(),
            loser: loser.id.clone(),
            seeds: game.position().stores()[side.index()],
            plies: game.ply(),
        }
    })
}
