//! How a room behaves, and what it picks up when it opens again.

use std::sync::Arc;
use std::time::Duration;

use crate::ayo::Game;
use crate::common::{GameId, ServerClock, TableId, User};
use crate::house::House;
use crate::world::matches::LiveMatch;
use crate::world::table::Timing;
use crate::world::Registry;

/// A match in play read back from the store, with its game in play if any (none between
/// games).
pub struct ResumedMatch {
    pub table_id: TableId,
    pub r#match: LiveMatch,
    pub game: Option<ResumedGame>,
    /// A tournament paired it: what it allows.
    pub arena: Option<crate::store::ArenaMatch>,
}

/// A game in play read back from the store.
pub struct ResumedGame {
    pub game_id: GameId,
    pub game: Game,
    /// South, North.
    pub players: [User; 2],
    pub number: u8,
    /// Its clocks, running again for the side to move from the start.
    pub clocks: Option<crate::ayo::clock::Clocks>,
}

/// How a room behaves.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    pub invitation_ttl: Duration,
    /// How long a player who dropped keeps the seat of a match in play.
    pub grace: Duration,
    pub chat_max_chars: usize,
    /// Chat lines a room keeps for the `room` snapshot.
    pub chat_backlog: usize,
    /// Table events kept for clients that come back.
    pub table_log: usize,
    /// How often at most those not watching a game are told where it stands.
    pub status_every: Duration,
    /// How long an empty apartment without a match in play stays open.
    pub apartment_idle: Duration,
    /// Baba Ayo, for `play_house`.
    pub house: Arc<House>,
    /// Boards an apartment holds at most.
    pub max_boards: usize,
    /// The open rooms: a room that closes takes itself out.
    pub registry: Registry,
    /// How results reach the champions wall.
    pub results: ResultsConfig,
    /// The one clock every deadline here reads.
    pub clock: ServerClock,
    /// How long both players have to press start between games of an untimed match.
    pub untimed_start: Duration,
    /// How long a rematch stays on offer after a match.
    pub rematch: Duration,
    /// The pool's answer window, cooldown and wait before Baba Ayo is offered.
    pub pool: crate::world::seeks::PoolTiming,
    /// How long a guest called from a table's queue has to sit.
    pub queue_call: Duration,
    /// A winner staying on at a queued table stands after this many wins in a row.
    pub straight_wins: u8,
    /// How often the service writes its heartbeat (where an unclean outage began).
    pub heartbeat: Duration,
    /// Slow mode, the room's chat budget, invitations a minute, mutes.
    pub civility: crate::world::civility::Civility,
    /// Marked at each move: what reviews wait on.
    pub activity: crate::common::Activity,
}

impl RoomConfig {
    pub(super) fn timing(&self) -> Timing {
        Timing {
            invitation_ms: ms(self.invitation_ttl),
            untimed_start_ms: ms(self.untimed_start),
            rematch_ms: ms(self.rematch),
            queue_call_ms: ms(self.queue_call),
            straight_wins: self.straight_wins,
        }
    }
}

pub(super) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// What a room needs to store a result for the champions wall.
#[derive(Clone, Debug)]
pub struct ResultsConfig {
    /// The hotel's day, for the day a game ended on.
    pub clock: crate::common::HotelDay,
    /// What makes a win count.
    pub rules: crate::champions::WallRules,
    /// Rung when a counted result waits in the outbox.
    pub pending: Arc<tokio::sync::Notify>,
    /// Rung when any result is stored: the readers that read every result (ratings,
    /// tournaments) read it.
    pub stored: Vec<Arc<tokio::sync::Notify>>,
}
