//! One Ayo table's rules as a plain state machine: seats, hosting, invitations, play, clocks,
//! the match flow, draws, resigning and the rematch. `apply(command, now)` changes the table
//! and says what follows (`Effects`): what to store, what to announce, whom to tell, whether
//! Baba Ayo is to move. No tasks, no database, no sockets: the room stores and sends.

mod berserk;
mod draws;
mod effects;
mod events;
mod flow;
mod paired;
mod play;
mod queue;
mod seats;
#[cfg(test)]
mod tests;

use crate::ayo::clock::Clocks;
use crate::ayo::{Game, Pit, Rules, Side};
use crate::common::{ErrorCode, GameId, InvitationId, RoomId, Seating, TableId, User, UserId};

use super::hotel::CloseGames;
use super::matches::{LiveMatch, MatchChoice, MatchSettings, Rematch, Scope};

pub use draws::Draws;
pub use effects::{refuse, Effects, Event, MatchResult, MoveClock, NewGame, Refusal, Win, Write};
pub use events::{GameSnapshot, InvitationEnd, TableEvent, TableSnapshot, WallVerdict};
pub use flow::result_of;
pub use play::win_of;
pub use queue::{Call, Queue, Streak, Unqueued, MAX_WAITING};
pub use seats::choose;

/// How long things wait at a table, in milliseconds of the server's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// An invitation stays open this long.
    pub invitation_ms: u64,
    /// Between games of an untimed match, both press start within this.
    pub untimed_start_ms: u64,
    /// A rematch stays on offer this long.
    pub rematch_ms: u64,
    /// A guest called from the queue takes the seat within this.
    pub queue_call_ms: u64,
    /// A winner staying on stands after this many wins in a row.
    pub straight_wins: u8,
}

/// Why someone's claim on a table ends: the one place that decides what becomes of their
/// seat, their invitations, their rematch and their match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Departure {
    /// They left the room on purpose: their seat is given up, a match in play resigned.
    Left,
    /// Their connection dropped, or the room dropped them for not reading: a seat without a
    /// match in play is freed; a match in play waits for them through the grace period.
    Gone,
    /// The grace of these players ran out: each loses their match as abandoned, or, both
    /// players being among them, the match is called off with nobody blamed.
    GraceOver(Vec<UserId>),
}

/// What a table is asked to do. Checks that need the whole room (a seat at another table,
/// being in the room at all) are made by the room and passed in.
#[derive(Clone, Debug)]
pub enum Command {
    /// `seats`: a host sitting at an empty table chooses the seating with it.
    Sit {
        user: User,
        seat: Side,
        seats: Option<Seating>,
    },
    Stand {
        user: UserId,
    },
    SetMatch {
        user: UserId,
        choice: MatchChoice,
    },
    /// `house` is Baba Ayo at the level asked for.
    PlayHouse {
        user: User,
        house: User,
        choice: MatchChoice,
        /// The player has a seat at another table of the room.
        seated_elsewhere: bool,
    },
    Start {
        user: UserId,
    },
    Rematch {
        user: UserId,
        /// Both players of the rematch are in the room and seated nowhere.
        players_free: bool,
    },
    Invite {
        from: User,
        to: UserId,
        id: InvitationId,
        /// The invitee is in the room.
        to_present: bool,
    },
    Respond {
        user: User,
        invitation: InvitationId,
        accept: bool,
        /// The invitee has a seat in the room already.
        seated: bool,
    },
    /// `version`: the table's version the player saw (a move sent again from it is
    /// answered again, not played twice).
    Move {
        user: UserId,
        pit: Pit,
        version: Option<u64>,
    },
    /// Baba Ayo's move, thought out for the table as it was at `version`.
    HouseMove {
        version: u64,
        pit: Pit,
    },
    Resign {
        user: UserId,
        scope: Scope,
    },
    OfferDraw {
        user: User,
        scope: Scope,
    },
    AnswerDraw {
        user: UserId,
        accept: bool,
    },
    /// Baba Ayo's answer to a draw offered to him, judged for the table at `version`.
    HouseAnswersDraw {
        version: u64,
        accept: bool,
    },
    Depart {
        user: UserId,
        why: Departure,
    },
    /// Time passed: flags, start presses, rematches and invitations whose time is up.
    Tick,
    /// The room closes: matches end now (`End`), or with their game in play (`Finish`); no
    /// new one starts and no rematch is offered.
    Shut {
        games: CloseGames,
    },
    /// An operator changes the rules of a table without a match in play.
    SetRules {
        rules: Rules,
    },
    /// Two guests the room's pool paired sit down and their match starts: refused unless
    /// the table is free.
    Pair {
        players: [User; 2],
        choice: MatchChoice,
        /// A rematch is offered after it (a tournament's pairings have none: the table is
        /// the tournament's next pairing's).
        rematch: bool,
        /// Its players may go berserk (a tournament's that allows it).
        berserk: bool,
    },
    /// A player halves their clock before their first move (an arena game).
    Berserk {
        user: UserId,
    },
    /// The table is new here: it is announced as it is.
    Announce,
    /// Both pressed start: the next game of the match begins.
    NextGame,
    /// The table is taken away: its invitations and its queue end.
    TakeAway,
    /// `queue`: wait for a seat here.
    Queue {
        user: User,
        /// The guest has a seat at another table of the room.
        seated_elsewhere: bool,
    },
    /// Out of the queue: asked (`unqueue`), or sat at another table.
    Unqueue {
        user: UserId,
        why: Unqueued,
    },
    /// An operator or the owner turns the queue on or off.
    SetQueue {
        on: bool,
    },
}

/// A game at a table.
#[derive(Clone, Debug)]
pub struct LiveGame {
    pub id: GameId,
    pub game: Game,
    /// South, North.
    pub players: [User; 2],
    /// Its number in its match.
    pub number: u8,
    pub clocks: Option<Clocks>,
}

/// The last move a seat played, to answer it again if it is sent again.
#[derive(Clone, Debug)]
struct AppliedMove {
    user: UserId,
    pit: Pit,
    version_before: u64,
    reply: TableEvent,
}

/// An invitation to sit opposite its host.
#[derive(Clone, Debug)]
pub struct Invitation {
    pub id: InvitationId,
    pub from: User,
    pub to: UserId,
    /// What the invitee was told the match would be: kept, whatever the table's now.
    pub settings: MatchSettings,
    pub expires_ms: u64,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub id: TableId,
    room: RoomId,
    pub rules: Rules,
    /// South, North.
    pub seats: [Option<User>; 2],
    pub game: Option<LiveGame>,
    /// How the next match is played: the host's choice.
    pub settings: MatchSettings,
    /// A new host's settings here: the room's (rated in a lounge, casual at home).
    defaults: MatchSettings,
    /// The match in play, or the last one.
    pub r#match: Option<LiveMatch>,
    pub rematch: Option<Rematch>,
    pub invitations: Vec<Invitation>,
    /// Who waits to play here.
    pub queue: Queue,
    /// The match in play offers no rematch when it ends, and its winner does not stay on
    /// (a tournament's).
    no_rematch: bool,
    /// In a tournament's match that allows berserk: whether its first and second player
    /// went berserk.
    berserk: Option<[bool; 2]>,
    /// What the match `pair` is starting allows (no rematch, berserk), for `start_match`.
    arena_next: Option<(bool, bool)>,
    /// Goes up by one with every table event.
    pub version: u64,
    /// The room is closing: no new match starts here.
    pub closing: bool,
    last_moves: [Option<AppliedMove>; 2],
    timing: Timing,
    /// The time of the command being applied.
    now: u64,
    /// What the command being applied may use of chance: ids and the lot.
    draws: Draws,
    /// Games the command being applied has started, to give each its own id.
    games_drawn: u32,
}

impl Table {
    /// An empty table; `version` is where its versions start.
    pub fn new(id: TableId, room: RoomId, rules: Rules, timing: Timing, version: u64) -> Table {
        Table {
            id,
            room,
            rules,
            seats: [None, None],
            game: None,
            settings: MatchSettings::default(),
            defaults: MatchSettings::default(),
            r#match: None,
            rematch: None,
            invitations: Vec::new(),
            queue: Queue::default(),
            no_rematch: false,
            berserk: None,
            arena_next: None,
            version,
            closing: false,
            last_moves: [None, None],
            timing,
            now: 0,
            draws: Draws::default(),
            games_drawn: 0,
        }
    }

    /// The table of a room of `kind`: its matches rated or casual by default as the room's
    /// kind says (`MatchSettings::of_room`).
    pub fn in_room_of(mut self, kind: crate::common::RoomKind) -> Table {
        self.defaults = MatchSettings::of_room(kind);
        self.settings = self.defaults;
        self.queue.on = kind != crate::common::RoomKind::Apartment;
        self
    }

    /// The queue on or off as stored for this table (`None`: as its room's kind has it).
    pub fn with_queue(mut self, on: Option<bool>) -> Table {
        if let Some(on) = on {
            self.queue.on = on;
        }
        self
    }

    /// Applies one command at `now`, with `draws` for whatever chance decides in it: the
    /// table changes, and the effects say what follows. A refusal is in `Effects::refused`;
    /// what happened before it stands.
    pub fn apply(&mut self, command: Command, now: u64, draws: Draws) -> Effects {
        self.now = now;
        self.draws = draws;
        self.games_drawn = 0;
        let mut fx = Effects::default();
        let done = match command {
            Command::Sit { user, seat, seats } => self.sit(user, seat, seats, &mut fx),
            Command::Stand { user } => self.stand(&user, &mut fx),
            Command::SetMatch { user, choice } => self.set_match(&user, choice, &mut fx),
            Command::PlayHouse {
                user,
                house,
                choice,
                seated_elsewhere,
            } => self.play_house(user, house, choice, seated_elsewhere, &mut fx),
            Command::Start { user } => self.press_start(&user, &mut fx),
            Command::Rematch { user, players_free } => self.rematch(&user, players_free, &mut fx),
            Command::Invite {
                from,
                to,
                id,
                to_present,
            } => self.invite(from, to, id, to_present, &mut fx),
            Command::Respond {
                user,
                invitation,
                accept,
                seated,
            } => self.respond(user, &invitation, accept, seated, &mut fx),
            Command::Move { user, pit, version } => self.play(&user, pit, version, &mut fx),
            Command::HouseMove { version, pit } => self.house_move(version, pit, &mut fx),
            Command::Resign { user, scope } => self.resign(&user, scope, &mut fx),
            Command::OfferDraw { user, scope } => self.offer_draw(user, scope, &mut fx),
            Command::AnswerDraw { user, accept } => self.answer_draw(&user, accept, &mut fx),
            Command::HouseAnswersDraw { version, accept } => {
                self.house_answers_draw(version, accept, &mut fx)
            }
            Command::Depart { user, why } => {
                self.depart(&user, why, &mut fx);
                Ok(())
            }
            Command::Tick => {
                self.tick(&mut fx);
                Ok(())
            }
            Command::Shut { games } => {
                self.shut(games, &mut fx);
                Ok(())
            }
            Command::SetRules { rules } => self.set_rules(rules, &mut fx),
            Command::Pair {
                players,
                choice,
                rematch,
                berserk,
            } => self.pair(players, choice, rematch, berserk, &mut fx),
            Command::Berserk { user } => self.berserk(&user, &mut fx),
            Command::NextGame => {
                self.next_game(&mut fx);
                Ok(())
            }
            Command::Announce => {
                self.changed(&mut fx);
                Ok(())
            }
            Command::TakeAway => {
                self.end_invitations(|_| true, InvitationEnd::TableChanged, &mut fx);
                self.empty_queue(&mut fx);
                Ok(())
            }
            Command::Queue {
                user,
                seated_elsewhere,
            } => self.join_queue(user, seated_elsewhere, &mut fx),
            Command::Unqueue { user, why } => self.leave_queue(&user, why, &mut fx),
            Command::SetQueue { on } => {
                self.set_queue(on, &mut fx);
                Ok(())
            }
        };
        if let Err(refusal) = done {
            fx.refused = Some(refusal);
        }
        // Whatever freed a seat, the queue's first is called to it.
        if self.call_from_queue(&mut fx) {
            self.changed(&mut fx);
        }
        fx
    }

    /// Nobody sits there and no match is in play.
    pub fn idle(&self) -> bool {
        self.seats.iter().all(Option::is_none) && !self.match_in_play()
    }

    pub fn game_in_play(&self) -> bool {
        self.game.as_ref().is_some_and(|g| !g.game.is_over())
    }

    /// A match in play: a game of it in play, or waiting for the next one.
    pub fn match_in_play(&self) -> bool {
        self.r#match.as_ref().is_some_and(|m| !m.is_over())
    }

    pub fn seat_of(&self, user: &UserId) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| {
            self.seats[s.index()]
                .as_ref()
                .is_some_and(|u| &u.id == user)
        })
    }

    /// Whether an open invitation `id` is for `user`.
    /// Whether `user` sits here or plays the game on the table (still theirs after the match
    /// ended and the seats emptied, in the same command as its last move).
    pub fn plays_here(&self, user: &UserId) -> bool {
        self.seat_of(user).is_some()
            || self
                .game
                .as_ref()
                .is_some_and(|g| g.players.iter().any(|p| &p.id == user))
    }

    pub fn invites(&self, id: &InvitationId, user: &UserId) -> bool {
        self.invitations
            .iter()
            .any(|i| &i.id == id && &i.to == user)
    }

    /// Baba Ayo, when he is the one to move here.
    pub fn house_to_move(&self) -> Option<&User> {
        let live = self.game.as_ref()?;
        let player = &live.players[live.game.to_move()?.index()];
        player.house.then_some(player)
    }

    /// The soonest something here is due: a flag, a start press, a rematch, an invitation,
    /// a call from the queue.
    pub fn next_deadline(&self) -> Option<u64> {
        let flag = self
            .game
            .as_ref()
            .filter(|g| !g.game.is_over())
            .and_then(|g| g.clocks.as_ref()?.deadline());
        let start = self
            .r#match
            .as_ref()
            .filter(|m| !m.is_over())
            .and_then(|m| m.between)
            .map(|b| b.deadline_ms);
        let rematch = self.rematch.as_ref().map(|r| r.deadline_ms);
        let invitation = self.invitations.iter().map(|i| i.expires_ms).min();
        let call = self.queue.deadline();
        [flag, start, rematch, invitation, call]
            .into_iter()
            .flatten()
            .min()
    }

    /// Whether a tick has something to do at `now`: a deadline passed, or a game both
    /// pressed start for that could not be stored yet.
    pub fn due(&self, now: u64) -> bool {
        self.next_deadline().is_some_and(|d| d <= now) || self.both_pressed()
    }

    /// The table as it stands at `now`.
    pub fn snapshot(&self, now: u64) -> TableSnapshot {
        TableSnapshot {
            id: self.id.clone(),
            room: self.room.clone(),
            seats: self.seats.clone(),
            rules: self.rules,
            game: self.game.as_ref().map(|g| GameSnapshot {
                id: g.id.clone(),
                players: g.players.clone(),
                state: g.game.state(),
                number: g.number,
                clocks: g.clocks,
                moves: g.game.moves().to_vec(),
                first: g.game.first(),
                berserk: self.berserk_seats(),
            }),
            version: self.version,
            settings: self.settings,
            r#match: self.r#match.as_ref().map(LiveMatch::view),
            rematch: self.rematch.clone(),
            queue: self.queue.on.then(|| self.queue.clone()),
            straight_wins: self.timing.straight_wins,
            at: now,
        }
    }

    /// The reply to `user`'s last move in the game on the table, if they moved in it.
    pub fn last_move_of(&self, user: &UserId) -> Option<&TableEvent> {
        self.last_moves
            .iter()
            .flatten()
            .find(|m| &m.user == user)
            .map(|m| &m.reply)
    }

    /// Puts a match read back from the store on the table: its game in play, or the wait
    /// for the next one begun again at `now`.
    pub fn resume(&mut self, mut m: LiveMatch, game: Option<LiveGame>, now: u64) {
        self.now = now;
        let seats = match &game {
            Some(g) => g.players.clone(),
            None => {
                m.wait_for_start(now, self.timing.untimed_start_ms);
                m.seats()
            }
        };
        self.seats = seats.map(Some);
        self.settings = m.settings;
        self.r#match = Some(m);
        self.game = game;
        self.version += 1;
    }

    /// Announces a table event; `event` carries the table's next version.
    fn publish(&mut self, event: TableEvent, fx: &mut Effects) {
        self.version += 1;
        fx.events.push(Event::Table {
            version: self.version,
            event,
        });
    }

    /// Announces the table as it is now.
    fn changed(&mut self, fx: &mut Effects) {
        let mut snapshot = self.snapshot(self.now);
        snapshot.version += 1;
        self.publish(TableEvent::Changed(Box::new(snapshot)), fx);
    }

    /// The match in play here and which of its players `user` is (seated here).
    fn player_in_match(&self, user: &UserId) -> Result<usize, Refusal> {
        let Some(m) = self.r#match.as_ref().filter(|m| !m.is_over()) else {
            return refuse(ErrorCode::NoGame, "no game is in play at this table");
        };
        match m.player(user) {
            Some(player) if self.seat_of(user).is_some() => Ok(player),
            _ => refuse(ErrorCode::NotSeated, "you are not playing at this table"),
        }
    }

    /// The match in play, which `player_in_match` found.
    fn match_mut(&mut self) -> &mut LiveMatch {
        self.r#match
            .as_mut()
            .expect("a match in play: player_in_match checked")
    }
}
