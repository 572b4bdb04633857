//! What happens at a table, in the table's own words: who sat, who was invited, a game
//! started, a seed sown, a game or a match over. The room renders each for the wire; the
//! table knows nothing of messages, so a rule can be checked without one.

use crate::ayo::clock::Clocks;
use crate::ayo::{EndReason, Pit, Rules, Side, State, Status};
use crate::champions::WallReason;
use crate::common::{GameId, InvitationId, MatchId, RoomId, TableId, User, UserId};

use super::super::matches::{MatchEnd, MatchSettings, MatchView, Rematch, Scope};
use super::queue::{Queue, Unqueued};

/// Something that happened at a table.
#[derive(Debug, Clone)]
pub enum TableEvent {
    /// The table as it is: after a change to its seats, settings, game, match or rematch,
    /// or for one who is behind it.
    Changed(Box<TableSnapshot>),
    /// To the invitee: the host asks them to sit opposite.
    Invited {
        id: InvitationId,
        from: User,
        /// How the match would be played: the host's settings when asking.
        settings: MatchSettings,
        expires_ms: u64,
    },
    /// To the host: their invitation went out.
    InvitationSent { id: InvitationId, to: UserId },
    /// To both: the invitee said no.
    InvitationDeclined { id: InvitationId },
    /// To both: the invitation ended unanswered.
    InvitationEnded {
        id: InvitationId,
        why: InvitationEnd,
    },
    /// A game of the match began.
    GameStarted {
        game: GameId,
        /// South, North.
        players: [User; 2],
        /// Baba Ayo plays in it.
        house: bool,
        rules: Rules,
        state: State,
        version: u64,
        r#match: MatchView,
        /// Its clocks as they started, at `at`.
        clocks: Option<Clocks>,
        at: u64,
        /// The side that moves first.
        first: Side,
        /// Who won the lots, in a match's first game when they were drawn.
        lots: Option<User>,
        /// Who of South and North went berserk, where berserk is allowed.
        berserk: Option<[bool; 2]>,
    },
    /// A pit was sown.
    Moved {
        game: GameId,
        side: Side,
        pit: Pit,
        /// The seeds it captured, as the game counts them.
        captured: u8,
        state: State,
        version: u64,
        /// The clocks after it, at `at`.
        clocks: Option<Clocks>,
        at: u64,
    },
    /// A player went berserk: their clock halved.
    Berserked {
        game: GameId,
        user: User,
        seat: Side,
        /// The clocks after it, at `at`.
        clocks: Clocks,
        version: u64,
        at: u64,
    },
    /// A game ended.
    GameOver {
        game: GameId,
        status: Status,
        reason: EndReason,
        state: State,
        /// What the table knows of the wall when the game ends; the room has it judged as the
        /// result is stored.
        wall: WallVerdict,
        version: u64,
        /// The match with this game counted.
        r#match: Option<MatchView>,
        /// The clocks as they stopped, at `at`.
        clocks: Option<Clocks>,
        at: u64,
    },
    /// The match changed between games: a start pressed, a game lost by not pressing it,
    /// the wait for the next game begun.
    MatchState {
        r#match: MatchView,
        version: u64,
        at: u64,
    },
    /// The match is over: its winner (none for a drawn match), why, and the points of its
    /// first and second player.
    MatchOver {
        id: MatchId,
        winner: Option<User>,
        reason: MatchEnd,
        points: [f32; 2],
        r#match: MatchView,
        version: u64,
    },
    /// To the other player: a rematch pressed.
    RematchOffered { from: User },
    /// To the opponent: a draw offered.
    DrawOffered { from: User, scope: Scope },
    /// To the one who offered: the draw is turned down.
    DrawDeclined { scope: Scope },
    /// To a guest from the queue: sit at `seat` by `until_ms`.
    Called { seat: Side, until_ms: u64 },
    /// To a guest: they are no longer in the queue, and why.
    Unqueued { why: Unqueued },
}

/// Why an invitation ended unanswered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvitationEnd {
    /// Its time ran out.
    Expired,
    /// The host chose other match settings.
    SettingsChanged,
    /// The host stood up, or either of the two left the room or dropped, or the host
    /// invited the same guest again.
    Withdrawn,
    /// The table's rules changed, or the table went.
    TableChanged,
}

impl InvitationEnd {
    /// The word `invitation_expired` gives it.
    pub fn word(self) -> &'static str {
        match self {
            InvitationEnd::Expired => "expired",
            InvitationEnd::SettingsChanged => "settings_changed",
            InvitationEnd::Withdrawn => "withdrawn",
            InvitationEnd::TableChanged => "table_changed",
        }
    }
}

/// Whether a game's end put a win on the champions wall, and why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallVerdict {
    pub counts: bool,
    /// Why not, when not.
    pub reason: Option<WallReason>,
}

impl WallVerdict {
    /// What the table knows when a game ends with `status`: a game without a winner puts
    /// nothing on the wall; for a win, the wall's judge decides when the result is stored.
    pub fn at_end(status: Status) -> WallVerdict {
        WallVerdict {
            counts: false,
            reason: status.winner().is_none().then_some(WallReason::NoWin),
        }
    }
}

/// A table as it stands at `at`.
#[derive(Debug, Clone)]
pub struct TableSnapshot {
    pub id: TableId,
    pub room: RoomId,
    /// South, North.
    pub seats: [Option<User>; 2],
    pub rules: Rules,
    pub game: Option<GameSnapshot>,
    pub version: u64,
    /// How the next match here is played.
    pub settings: MatchSettings,
    /// The match in play, or the last one.
    pub r#match: Option<MatchView>,
    pub rematch: Option<Rematch>,
    /// The queue, when the table has one.
    pub queue: Option<Queue>,
    /// A winner staying on stands after this many wins in a row.
    pub straight_wins: u8,
    pub at: u64,
}

/// The game on a table.
#[derive(Debug, Clone)]
pub struct GameSnapshot {
    pub id: GameId,
    /// South, North.
    pub players: [User; 2],
    pub state: State,
    /// Its number in its match, from 1.
    pub number: u8,
    pub clocks: Option<Clocks>,
    /// The pits sown so far, in turn from `first`.
    pub moves: Vec<Pit>,
    pub first: Side,
    /// Who of South and North went berserk, in a game where berserk is allowed.
    pub berserk: Option<[bool; 2]>,
}

impl TableEvent {
    /// The table's version after this event, for those that carry it.
    pub fn version(&self) -> Option<u64> {
        match self {
            TableEvent::Changed(snapshot) => Some(snapshot.version),
            TableEvent::GameStarted { version, .. }
            | TableEvent::Moved { version, .. }
            | TableEvent::Berserked { version, .. }
            | TableEvent::GameOver { version, .. }
            | TableEvent::MatchState { version, .. }
            | TableEvent::MatchOver { version, .. } => Some(*version),
            _ => None,
        }
    }
}
