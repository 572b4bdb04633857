//! A match at a table: how it is played (clock, best of), its games, the start presses between
//! them, draw offers for a game or the whole match, and the rematch after it. Pure: the room
//! stores and tells; this says what each event means for the match.

use serde::{Deserialize, Serialize};

use crate::ayo::clock::{ClockError, TimeControl};
use crate::ayo::{Side, Status};

use super::series::{BestOf, BestOfError, GameOutcome, Series};
use crate::common::{GameId, MatchId, Seating, UnknownSeating, User, UserId};

/// How a table's matches are played: the host's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchSettings {
    pub clock: TimeControl,
    pub best_of: BestOf,
    /// Who sits where and moves first (an addition; `lots` where not said).
    #[serde(default)]
    pub seats: Seating,
    /// Whether its games between people change ratings (an addition; rated where not said).
    /// A table's default is its room's: rated in a lounge, casual at home
    /// (`MatchSettings::of_room`).
    #[serde(default = "rated_unless_said")]
    pub rated: bool,
}

fn rated_unless_said() -> bool {
    true
}

impl Default for MatchSettings {
    /// The lounge's: rated.
    fn default() -> MatchSettings {
        MatchSettings {
            clock: TimeControl::default(),
            best_of: BestOf::default(),
            seats: Seating::default(),
            rated: true,
        }
    }
}

/// Why settings a client sent cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Clock(#[from] ClockError),
    #[error(transparent)]
    BestOf(#[from] BestOfError),
    #[error(transparent)]
    Seats(#[from] UnknownSeating),
}

/// What a host chose of a match's settings, each where chosen: the rest stays as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchChoice {
    pub clock: Option<TimeControl>,
    pub best_of: Option<BestOf>,
    pub seats: Option<Seating>,
    /// Rated or casual (an addition).
    pub rated: Option<bool>,
}

impl MatchChoice {
    /// A clock (`"3+2"`, `"5m"`, `"none"`), a best-of and seats (`"lots"`, `"kept"`) as a
    /// client sent them, where sent.
    pub fn parse(
        clock: Option<&str>,
        best_of: Option<u8>,
        seats: Option<&str>,
    ) -> Result<MatchChoice, SettingsError> {
        Ok(MatchChoice {
            clock: clock.map(str::parse).transpose()?,
            best_of: best_of.map(BestOf::try_from).transpose()?,
            seats: seats.map(str::parse).transpose()?,
            rated: None,
        })
    }
}

impl MatchSettings {
    /// These settings with what `choice` chose.
    pub fn with(self, choice: MatchChoice) -> MatchSettings {
        MatchSettings {
            clock: choice.clock.unwrap_or(self.clock),
            best_of: choice.best_of.unwrap_or(self.best_of),
            seats: choice.seats.unwrap_or(self.seats),
            rated: choice.rated.unwrap_or(self.rated),
        }
    }

    /// A new host's settings in a room of `kind`: as the lounge plays, rated in a lounge and
    /// casual anywhere else (an apartment's boards).
    pub fn of_room(kind: crate::common::RoomKind) -> MatchSettings {
        MatchSettings {
            rated: kind == crate::common::RoomKind::Lounge,
            ..MatchSettings::default()
        }
    }

    /// How long both players have to press start between games: the clock's base time (a
    /// game's time, or a move's), or `untimed_ms` without a clock.
    pub fn start_window_ms(&self, untimed_ms: u64) -> u64 {
        self.clock.initial_ms().unwrap_or(untimed_ms)
    }
}

/// What a draw offer or a resignation is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    #[default]
    Game,
    Match,
}

pub use crate::store::{GameEnd, MatchEnd};

/// A game of the match that is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayedGame {
    pub game_id: GameId,
    pub number: u8,
    /// South's and North's user ids.
    pub south: UserId,
    pub north: UserId,
    pub result: Status,
    /// The protocol's end reason, or `not_started` for a game lost by not pressing start.
    pub reason: GameEnd,
}

/// Between two games: who pressed start, and until when they may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Between {
    /// The match's first and second player.
    pub ready: [bool; 2],
    /// Server milliseconds.
    pub deadline_ms: u64,
}

/// A draw offered and not yet answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawOffer {
    /// The match's player (0 or 1) who offered.
    pub from: usize,
    pub scope: Scope,
}

/// A match in play, or just over.
#[derive(Clone, Debug)]
pub struct LiveMatch {
    pub id: MatchId,
    pub settings: MatchSettings,
    /// The match's first player (who moves first in its first game) and second.
    pub players: [User; 2],
    /// The seat of the first player in the first game: South under `lots`; under `kept`
    /// theirs for the whole match.
    pub first_seat: Side,
    pub series: Series,
    pub games: Vec<PlayedGame>,
    pub between: Option<Between>,
    pub draw_offer: Option<DrawOffer>,
    /// The last draw declined: who offered it, and where the match stood (game number and
    /// ply). The same player may offer again once a move has been made since.
    pub draw_declined: Option<(usize, (u8, u32))>,
    pub end: Option<MatchEnd>,
    /// How the match ends once the game in play is over and counted, when that does not
    /// decide it already: who loses it (nobody: the leader wins), and why.
    pub ending: Option<(Option<usize>, MatchEnd)>,
}

impl LiveMatch {
    pub fn new(id: MatchId, settings: MatchSettings, players: [User; 2]) -> LiveMatch {
        LiveMatch {
            id,
            series: Series::new(settings.best_of),
            settings,
            players,
            first_seat: Side::South,
            games: Vec::new(),
            between: None,
            draw_offer: None,
            draw_declined: None,
            end: None,
            ending: None,
        }
    }

    /// Which of the two players `user_id` is.
    pub fn player(&self, user_id: &UserId) -> Option<usize> {
        self.players.iter().position(|p| p.id == *user_id)
    }

    /// The match under `kept`, its first player sitting at `first_seat` throughout.
    pub fn seated(mut self, first_seat: Side) -> LiveMatch {
        self.first_seat = first_seat;
        self
    }

    /// The players as they sit in the next game (or the one in play): South, North. Under
    /// `lots` they swap seats every game, so that South, who moves first, swaps; under
    /// `kept` they never move.
    pub fn seats(&self) -> [User; 2] {
        let [first, second] = self.players.clone();
        let first_side = match self.settings.seats {
            Seating::Lots if self.series.first_player_starts() => Side::South,
            Seating::Lots => Side::North,
            Seating::Kept => self.first_seat,
        };
        match first_side {
            Side::South => [first, second],
            Side::North => [second, first],
        }
    }

    /// The side that moves first in the next game (or the one in play): South under `lots`;
    /// under `kept` the first player's in odd games, the other's in even ones.
    pub fn first_mover(&self) -> Side {
        match self.settings.seats {
            Seating::Lots => Side::South,
            Seating::Kept if self.series.first_player_starts() => self.first_seat,
            Seating::Kept => self.first_seat.opponent(),
        }
    }

    /// The number of the game in play, or of the next one.
    pub fn game_number(&self) -> u8 {
        self.series.played + 1
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Counts a game that ended, then applies how the match was to end with it; true when the
    /// match is over.
    pub fn record(&mut self, game: PlayedGame) -> bool {
        let ending = self.ending.take();
        let outcome = match game.result.winner() {
            Some(Side::South) => self.player(&game.south).map(GameOutcome::Won),
            Some(Side::North) => self.player(&game.north).map(GameOutcome::Won),
            None => Some(GameOutcome::Draw),
        };
        if let Some(outcome) = outcome {
            self.series.record(outcome);
        }
        self.games.push(game);
        self.draw_offer = None;
        self.between = None;
        let decided = self.series.result().is_some();
        match ending {
            // Drawn as agreed, whatever this game made the score.
            Some((_, MatchEnd::AgreedDraw)) => {
                self.series.agree_draw();
                self.end = Some(MatchEnd::AgreedDraw);
            }
            // Given up (resigned, abandoned): the other wins it, whatever the games say (ahead,
            // or level after the last game).
            Some((Some(loser), why)) => {
                self.series.award(1 - loser.min(1));
                self.end = Some(why);
            }
            Some((None, why)) if !decided => self.end(None, why),
            // Decided by this game, and given up by nobody: the games decided it, unless nobody
            // finished the game (both away).
            Some((None, MatchEnd::Abandoned)) => self.end = Some(MatchEnd::Abandoned),
            _ if decided => self.end = Some(MatchEnd::Games),
            _ => {}
        }
        self.is_over()
    }

    /// The match ends before its games are all played: `AgreedDraw` draws it; otherwise
    /// `loser` (a player, 0 or 1) loses it, and with nobody to blame the leader wins.
    pub fn end(&mut self, loser: Option<usize>, why: MatchEnd) {
        if self.is_over() {
            return;
        }
        if why == MatchEnd::AgreedDraw {
            self.series.agree_draw();
        } else {
            self.series.end_early(loser);
        }
        self.end = Some(why);
        self.between = None;
        self.draw_offer = None;
    }

    /// The winner, once the match is decided and not drawn.
    pub fn winner(&self) -> Option<&User> {
        self.series.result().flatten().map(|p| &self.players[p])
    }

    /// Between games: from `now`, both have the clock's base time (`untimed_ms` without a
    /// clock) to press start; Baba Ayo is always ready.
    pub fn wait_for_start(&mut self, now: u64, untimed_ms: u64) {
        self.between = Some(Between {
            ready: self.players.clone().map(|p| p.house),
            deadline_ms: now.saturating_add(self.settings.start_window_ms(untimed_ms)),
        });
    }

    /// `player` pressed start; true when both have.
    pub fn press_start(&mut self, player: usize) -> bool {
        match self.between.as_mut() {
            Some(between) => {
                between.ready[player.min(1)] = true;
                between.ready == [true, true]
            }
            None => false,
        }
    }

    pub fn view(&self) -> MatchView {
        MatchView {
            id: self.id.clone(),
            best_of: self.settings.best_of,
            clock: self.settings.clock,
            players: self.players.clone(),
            points: self.series.points(),
            game: if self.is_over() {
                self.series.played
            } else {
                self.game_number()
            },
            games: self.games.clone(),
            status: if self.is_over() {
                "over"
            } else if self.between.is_some() {
                "between_games"
            } else {
                "playing"
            },
            between: self.between,
            draw_offer: self.draw_offer.map(|o| DrawOfferView {
                from: self.players[o.from].id.clone(),
                scope: o.scope,
            }),
            winner: self.winner().cloned(),
            end_reason: self.end,
        }
    }
}

/// A match as every message shows it.
#[derive(Clone, Debug, Serialize)]
pub struct MatchView {
    pub id: MatchId,
    pub best_of: BestOf,
    pub clock: TimeControl,
    /// The match's first player (who moves first in game 1) and second.
    pub players: [User; 2],
    /// Their points, in the same order: a win 1, a draw 0.5.
    pub points: [f32; 2],
    /// The game in play, or the next one; once over, the games played.
    pub game: u8,
    /// The games over, in order.
    pub games: Vec<PlayedGame>,
    /// `playing`, `between_games` or `over`.
    pub status: &'static str,
    /// Between games: who pressed start and the deadline.
    pub between: Option<Between>,
    pub draw_offer: Option<DrawOfferView>,
    /// Once over: the winner, `null` for a drawn match.
    pub winner: Option<User>,
    pub end_reason: Option<MatchEnd>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DrawOfferView {
    /// The user id of who offered.
    pub from: UserId,
    pub scope: Scope,
}

/// A rematch on offer after a match: the same two, the same settings, the first move to the
/// one who did not have it in the last game.
#[derive(Clone, Debug, Serialize)]
pub struct Rematch {
    /// The new match's first player and second.
    pub players: [User; 2],
    /// Where its first player sits under `kept`: the seat they had (not shown).
    #[serde(skip)]
    pub first_seat: Side,
    pub settings: MatchSettings,
    /// Who pressed rematch, in the same order.
    pub pressed: [bool; 2],
    /// Server milliseconds.
    pub deadline_ms: u64,
}

impl Rematch {
    /// The rematch of `finished`.
    pub fn of(finished: &LiveMatch, deadline_ms: u64) -> Rematch {
        let [a, b] = finished.players.clone();
        // The first player moves first in the odd games, the last one included when odd (and
        // when none was played, had one been).
        let first_had_it = finished.games.len() % 2 == 1 || finished.games.is_empty();
        let (players, first_seat) = if first_had_it {
            ([b, a], finished.first_seat.opponent())
        } else {
            ([a, b], finished.first_seat)
        };
        Rematch {
            pressed: players.clone().map(|p| p.house),
            players,
            first_seat,
            settings: finished.settings,
            deadline_ms,
        }
    }

    pub fn player(&self, user_id: &UserId) -> Option<usize> {
        self.players.iter().position(|p| p.id == *user_id)
    }
}
