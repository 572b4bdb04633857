//! A match's course at a table: it starts, its games start and are counted, the wait and the
//! start presses between games, its end, the rematch after it, and what time ends.

use crate::ayo::clock::Clocks;
use crate::ayo::{Game, Side, Status};
use crate::common::{ErrorCode, GameId, Seating, User, UserId};

use super::super::hotel::CloseGames;
use super::super::matches::{GameEnd, LiveMatch, MatchEnd, PlayedGame, Rematch};
use super::{
    refuse, Draws, Effects, InvitationEnd, LiveGame, MatchResult, NewGame, Refusal, Table,
    TableEvent, Write,
};

impl Table {
    /// Both seats are taken: a match begins. Lots decide its first player, who moves first
    /// in its first game (under `lots` by sitting South, under `kept` where they sat), unless
    /// `order` says (a rematch: its players, and where its first sits under `kept`).
    pub(super) fn start_match(
        &mut self,
        order: Option<([User; 2], Side)>,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let (players, first_seat, lots) = match order {
            Some((players, first_seat)) => (players, first_seat, false),
            None => {
                let (Some(south), Some(north)) = (self.seats[0].clone(), self.seats[1].clone())
                else {
                    return Ok(());
                };
                match self.draws.lot {
                    Side::North => ([north, south], Side::North, true),
                    Side::South => ([south, north], Side::South, true),
                }
            }
        };
        let first_seat = match self.settings.seats {
            Seating::Lots => Side::South,
            Seating::Kept => first_seat,
        };
        let id = self.draws.match_id.clone();
        // A tournament's pairing (`pair`) says what its match allows; any other match has a
        // rematch and no berserk. Set before its first game is announced.
        let (no_rematch, berserk) = self.arena_next.take().unwrap_or((false, false));
        self.no_rematch = no_rematch;
        self.berserk = berserk.then_some([false; 2]);
        fx.store(Write::NewMatch {
            id: id.clone(),
            table: self.id.clone(),
            players: players.clone(),
            settings: self.settings,
            rules: self.rules,
        });
        let drawn = lots.then(|| players[0].clone());
        self.r#match = Some(LiveMatch::new(id, self.settings, players).seated(first_seat));
        self.rematch = None;
        self.start_next_game(drawn, fx);
        Ok(())
    }

    /// The next game of the match: its players sit as the match says (under `lots` they swap
    /// every game, under `kept` the first move does), it is stored, the first mover's clock
    /// starts, and it is announced, with who won the lots (`lots`) for a match's first game.
    pub(super) fn start_next_game(&mut self, lots: Option<User>, fx: &mut Effects) {
        let now = self.now;
        let Some(m) = self.r#match.as_mut().filter(|m| !m.is_over()) else {
            return;
        };
        let [south, north] = m.seats();
        let first = m.first_mover();
        let number = m.game_number();
        let clocks = Clocks::new(m.settings.clock).map(|mut c| {
            c.start(first, now);
            c
        });
        m.between = None;
        m.draw_offer = None;
        let game = NewGame {
            id: new_game_id(&self.draws, &mut self.games_drawn),
            table: self.id.clone(),
            r#match: m.id.clone(),
            number,
            south: south.clone(),
            north: north.clone(),
            first,
            rules: self.rules,
            clock_started: clocks.map(|_| now),
        };
        let house = south.house || north.house;
        fx.store(Write::NewGame(game.clone()));
        // A retry is matched against this game's moves only: refs may repeat across games.
        self.last_moves = [None, None];
        self.seats = [Some(south.clone()), Some(north.clone())];
        let state = Game::starting(self.rules, first);
        let started_state = state.state();
        self.game = Some(LiveGame {
            id: game.id.clone(),
            game: state,
            players: [south.clone(), north.clone()],
            number,
            clocks,
        });
        self.changed(fx);
        let Some(view) = self.r#match.as_ref().map(LiveMatch::view) else {
            return;
        };
        let started = TableEvent::GameStarted {
            game: game.id,
            players: [south, north],
            house,
            rules: self.rules,
            state: started_state,
            version: self.version + 1,
            r#match: view,
            clocks,
            at: now,
            first,
            lots,
            berserk: self.berserk_seats(),
        };
        self.publish(started, fx);
        fx.house_to_move = self.house_to_move().is_some();
    }

    /// The match ends, `loser` losing it (nobody: the leader wins; or drawn as `why` says):
    /// now between games, or once the game in play is over and counted.
    pub(super) fn end_match(&mut self, loser: Option<usize>, why: MatchEnd, fx: &mut Effects) {
        let in_play = self.game_in_play();
        let Some(m) = self.r#match.as_mut().filter(|m| !m.is_over()) else {
            return;
        };
        if in_play {
            m.ending = Some((loser, why));
            return;
        }
        m.end(loser, why);
        self.match_over(fx);
    }

    /// Counts a game for the match: unless that ends the match, both now have the clock's
    /// base time to press start for the next game (Baba Ayo is ready at once).
    pub(super) fn count_game(&mut self, played: PlayedGame) {
        let (now, untimed) = (self.now, self.timing.untimed_start_ms);
        let closing = self.closing;
        if let Some(m) = self.r#match.as_mut() {
            if closing && m.ending.is_none() {
                m.ending = Some((None, MatchEnd::CalledOff));
            }
            if !m.record(played) {
                m.wait_for_start(now, untimed);
            }
        }
    }

    /// After a game of the match was counted and told: the match is over, or the room hears
    /// that the wait for the next game has begun.
    pub(super) fn match_after_game(&mut self, fx: &mut Effects) {
        let Some(m) = self.r#match.as_ref() else {
            return;
        };
        if m.is_over() {
            self.match_over(fx);
            return;
        }
        fx.store(Write::MatchPoints {
            id: m.id.clone(),
            halves: m.series.halves(),
        });
        self.match_changed(fx);
    }

    /// The end of the match is stored and announced; the players stand up, and a rematch is
    /// on offer for a while.
    fn match_over(&mut self, fx: &mut Effects) {
        let Some(m) = self.r#match.as_ref().filter(|m| m.is_over()) else {
            return;
        };
        let reason = m.end.unwrap_or(MatchEnd::Games);
        fx.store(Write::MatchOver {
            id: m.id.clone(),
            result: result_of(m),
        });
        let over = TableEvent::MatchOver {
            id: m.id.clone(),
            winner: m.winner().cloned(),
            reason,
            points: m.series.points(),
            r#match: m.view(),
            version: self.version + 1,
        };
        let rematch = (!self.closing && reason != MatchEnd::CalledOff && !self.no_rematch)
            .then(|| Rematch::of(m, self.now.saturating_add(self.timing.rematch_ms)));
        let winner = m.winner().cloned();
        self.publish(over, fx);
        let stays = self.stays_on(winner.as_ref(), reason == MatchEnd::CalledOff);
        // The players stand up; the last game stays on the table until someone sits. A
        // rematch keeps its own settings; the table's are the lounge's until a new host.
        // With guests queued the winner stays on, at the table's settings, and no rematch.
        let kept = stays.and_then(|side| self.seats[side.index()].take().map(|u| (side, u)));
        self.seats = [None, None];
        match kept {
            Some((side, winner)) => {
                self.seats[side.index()] = Some(winner);
                self.rematch = None;
            }
            None => {
                self.settings = self.defaults;
                self.rematch = rematch.filter(|_| !self.queue.busy());
            }
        }
        self.changed(fx);
    }

    /// Tells the room where the match stands (between games).
    fn match_changed(&mut self, fx: &mut Effects) {
        let Some(m) = self.r#match.as_ref() else {
            return;
        };
        let event = TableEvent::MatchState {
            r#match: m.view(),
            version: self.version + 1,
            at: self.now,
        };
        self.publish(event, fx);
    }

    /// `start`: ready for the next game; the second press has it begin.
    pub(super) fn press_start(&mut self, user: &UserId, fx: &mut Effects) -> Result<(), Refusal> {
        let player = self.player_in_match(user)?;
        let m = self.match_mut();
        if m.between.is_none() {
            return refuse(ErrorCode::NotBetweenGames, "a game of the match is in play");
        }
        if m.press_start(player) {
            // Both pressed: the next game starts as a command of its own, so the presses
            // stand should storing it fail (`Tick` tries again).
            fx.start_next_game = true;
        } else {
            self.match_changed(fx);
        }
        Ok(())
    }

    /// Both pressed start: the next game begins.
    pub(super) fn next_game(&mut self, fx: &mut Effects) {
        if self.both_pressed() {
            self.start_next_game(None, fx);
        }
    }

    /// Both players pressed start and the next game is still to begin.
    pub fn both_pressed(&self) -> bool {
        self.r#match
            .as_ref()
            .filter(|m| !m.is_over())
            .and_then(|m| m.between)
            .is_some_and(|b| b.ready == [true, true])
    }

    /// `rematch`: one press each (Baba Ayo's is made); the second starts the new match.
    pub(super) fn rematch(
        &mut self,
        user: &UserId,
        players_free: bool,
        fx: &mut Effects,
    ) -> Result<(), Refusal> {
        let Some(rematch) = self.rematch.as_mut() else {
            return refuse(ErrorCode::NoRematch, "no rematch is on offer at this table");
        };
        let Some(player) = rematch.player(user) else {
            return refuse(
                ErrorCode::NoRematch,
                "the rematch here is for the last match's players",
            );
        };
        if rematch.pressed[player] {
            // Pressed again: nothing changes, so nobody is told anything.
            return Ok(());
        }
        rematch.pressed[player] = true;
        if rematch.pressed != [true, true] {
            let (from, to) = (
                rematch.players[player].clone(),
                rematch.players[1 - player].id.clone(),
            );
            self.changed(fx);
            fx.tell(&to, TableEvent::RematchOffered { from });
            return Ok(());
        }
        let Some(rematch) = self.rematch.take() else {
            return Ok(());
        };
        // Both must still be free to play: here, and seated nowhere else.
        if !players_free || self.seats.iter().any(Option::is_some) {
            self.changed(fx);
            return refuse(
                ErrorCode::RematchVoid,
                "the rematch is off: a player has left or sat elsewhere",
            );
        }
        self.settings = rematch.settings;
        self.start_match(Some((rematch.players, rematch.first_seat)), fx)
    }

    /// What time ends: invitations, flags, rematches and start presses whose time is up.
    pub(super) fn tick(&mut self, fx: &mut Effects) {
        let now = self.now;
        self.end_invitations(|i| i.expires_ms <= now, InvitationEnd::Expired, fx);
        self.lapse_calls(fx);
        if let Some(side) = self.flagged() {
            self.end_off_board(|g| g.time_out(side), fx);
        }
        if self.rematch.as_ref().is_some_and(|r| r.deadline_ms <= now) {
            self.rematch = None;
            self.changed(fx);
        }
        let Some(between) = self
            .r#match
            .as_ref()
            .filter(|m| !m.is_over())
            .and_then(|m| m.between)
        else {
            return;
        };
        if between.ready != [true, true] && between.deadline_ms > now {
            return;
        }
        match between.ready {
            // Both pressed, but the game could not be stored then: again, now.
            [true, true] => self.start_next_game(None, fx),
            // Nobody pressed start: the match ends, the leader winning it.
            [false, false] => self.end_match(None, MatchEnd::NoStart, fx),
            // One did: the other loses that game.
            [ready_first, _] => self.forfeit_unstarted(usize::from(ready_first), fx),
        }
    }

    /// Player `loser` of the match did not press start in time: the game they would have
    /// played is stored as lost (`not_started`) and counted.
    fn forfeit_unstarted(&mut self, loser: usize, fx: &mut Effects) {
        let Some(m) = self.r#match.as_ref().filter(|m| !m.is_over()) else {
            return;
        };
        let [south, north] = m.seats();
        let result = if south.id == m.players[loser].id {
            Status::NorthWon
        } else {
            Status::SouthWon
        };
        let game = NewGame {
            id: new_game_id(&self.draws, &mut self.games_drawn),
            table: self.id.clone(),
            r#match: m.id.clone(),
            number: m.game_number(),
            south: south.clone(),
            north: north.clone(),
            first: m.first_mover(),
            rules: self.rules,
            clock_started: None,
        };
        let played = PlayedGame {
            game_id: game.id.clone(),
            number: game.number,
            south: south.id,
            north: north.id,
            result,
            reason: GameEnd::NotStarted,
        };
        fx.store(Write::UnstartedGame { game, result });
        self.count_game(played);
        self.match_after_game(fx);
    }

    /// The room closes: matches end now, or with their game in play when it is let finish;
    /// no rematch is on offer.
    pub(super) fn shut(&mut self, games: CloseGames, fx: &mut Effects) {
        if games == CloseGames::End || !self.game_in_play() {
            self.end_match(None, MatchEnd::CalledOff, fx);
            self.end_off_board(Game::call_off, fx);
        }
        self.closing = true;
        self.empty_queue(fx);
        if self.rematch.take().is_some() {
            self.changed(fx);
        }
    }
}

/// The id of a game the command starts, from its draws (fields, not `self`: the match is
/// borrowed where games start).
fn new_game_id(draws: &Draws, drawn: &mut u32) -> GameId {
    let id = draws.game_id(*drawn);
    *drawn += 1;
    id
}

/// How a decided match is stored.
pub fn result_of(m: &LiveMatch) -> MatchResult {
    MatchResult {
        winner: m.winner().map(|w| w.id.clone()),
        end_reason: m.end.unwrap_or(MatchEnd::Games),
        halves: m.series.halves(),
    }
}
