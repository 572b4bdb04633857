//! The WebSocket messages of `protocol.md`, as types: what clients send in `client.rs`,
//! what the server sends here.

mod client;
mod tournament;

pub use client::{parse_frame, ClientMessage, FrameError, CLIENT_TYPES};
pub use tournament::{TournamentStanding, TournamentView};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::ayo::clock::{Clocks, TimeControl};
use crate::ayo::{Pit, Side, State, Status};

use super::matches::{MatchEnd, MatchSettings, MatchView, Rematch, Scope};
use crate::common::{
    ErrorCode, GameId, InvitationId, MatchId, PairingId, RoomId, RoomKind, TableId, User, UserId,
};

/// One message as it goes out: its JSON text, shared (a clone is a reference count, never a
/// copy), so a message serialised once reaches every connection without another allocation.
pub type Frame = bytestring::ByteString;

/// A room as the `room` message shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RoomInfo {
    pub id: RoomId,
    pub name: String,
    pub kind: RoomKind,
    /// An apartment's owner (an addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<UserId>,
}

/// A game at a table, inside a `table` message.
#[derive(Debug, Clone, Serialize)]
pub struct TableGame {
    pub id: GameId,
    pub players: Players,
    pub state: State,
    /// Its number in its match, from 1 (an addition).
    pub number: u8,
    /// Its clocks, `null` without one (an addition).
    pub clock: Option<ClockView>,
    /// The pits sown so far, in turn from `first` (an addition): a client that comes back
    /// mid-game shows the move list and the last move from them.
    pub moves: Vec<crate::ayo::Pit>,
    /// The side that moved first (an addition): South but under `seats: "kept"`.
    pub first: Side,
    /// In a tournament game that allows berserk: the seats that went berserk (an addition;
    /// left out elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub berserk: Option<Vec<Side>>,
}

/// Who won the lots for the first move of a match (an addition, in its first `game_started`).
#[derive(Debug, Clone, Serialize)]
pub struct Lots {
    pub starts: User,
}

/// A game's two clocks as clients see them (an addition): the time each side has left at
/// `server_time` (milliseconds since 1970 on the server's clock) and whose clock runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ClockView {
    pub control: TimeControl,
    pub south_ms: u64,
    pub north_ms: u64,
    pub running: Option<Side>,
    pub server_time: u64,
}

impl ClockView {
    pub fn of(clocks: Option<&Clocks>, now: u64) -> Option<ClockView> {
        clocks.map(|c| {
            let [south_ms, north_ms] = c.left(now);
            ClockView {
                control: c.control,
                south_ms,
                north_ms,
                running: c.running(),
                server_time: now,
            }
        })
    }
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Players {
    pub south: User,
    pub north: User,
}

#[derive(Debug, Clone, Serialize)]
pub struct Seats {
    pub south: Option<User>,
    pub north: Option<User>,
}

/// A table as every message shows it.
#[derive(Debug, Clone, Serialize)]
pub struct TableView {
    pub id: TableId,
    pub room: RoomId,
    pub seats: Seats,
    pub rules: crate::ayo::Rules,
    pub game: Option<TableGame>,
    /// Goes up by one with every change to the table (an addition to the protocol).
    pub version: u64,
    /// How the next match here is played (an addition).
    pub settings: MatchSettings,
    /// The match in play, or the last one (an addition).
    pub r#match: Option<MatchView>,
    /// A rematch on offer after the last match (an addition).
    pub rematch: Option<Rematch>,
    /// The table's queue, left out where it has none (an addition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueView>,
    /// The server's clock when this was sent, in milliseconds since 1970 (an addition).
    pub server_time: u64,
}

/// A table's queue as the table view shows it (an addition).
#[derive(Debug, Clone, Serialize)]
pub struct QueueView {
    /// Waiting, in turn.
    pub waiting: Vec<User>,
    /// Called to a free seat, each until `until` (server ms).
    pub called: Vec<CalledView>,
    /// The winner staying on and their wins in a row here, while someone waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streak: Option<StreakView>,
    /// A winner staying on stands after this many wins in a row.
    pub straight_wins: u8,
}

#[derive(Debug, Clone, Serialize)]
pub struct CalledView {
    pub user: User,
    pub seat: Side,
    pub until: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StreakView {
    pub user: UserId,
    pub wins: u8,
}

/// Whether a game's end put a win on the champions wall, and why not (an addition).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct WallVerdict {
    pub counts: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<crate::champions::WallReason>,
}

/// A player away, as the `room` snapshot lists them (an addition).
#[derive(Debug, Clone, Serialize)]
pub struct AwayView {
    pub table: TableId,
    pub seat: Side,
    pub user: User,
    /// When their grace ends (server ms).
    pub until: u64,
}

/// Where a game stands, for those not watching its table (an addition; in `table_status`).
#[derive(Debug, Clone, Serialize)]
pub struct TableStatus {
    pub table: TableId,
    pub game_id: GameId,
    /// Whose turn it is (`null` once over), the seeds each side has taken (South, North), and
    /// the moves played: what a table's card shows, not the board.
    pub to_move: Option<Side>,
    pub stores: [u8; 2],
    pub ply: u32,
    /// Both clocks, `null` without one.
    pub clock: Option<ClockView>,
    /// The table's version it stands at (a `watch` with `since` catches up from it only
    /// with the moves before it: a client that took only this asks for the whole table).
    pub version: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LastMove {
    pub seat: Side,
    pub pit: Pit,
}

/// How many wait in a room's pool for one kind of game (an addition; in `seeks` and the
/// `room` snapshot).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SeekCount {
    pub family: String,
    pub clock: String,
    pub rated: bool,
    pub waiting: usize,
}

/// A server message, by its `type`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    Welcome {
        user: User,
    },
    Room {
        room: RoomInfo,
        occupants: Vec<User>,
        tables: Vec<TableView>,
        /// Slow mode, when on (an addition; civility).
        #[serde(skip_serializing_if = "Option::is_none")]
        slow_mode: Option<super::civility::SlowMode>,
        /// Players of matches in play who dropped and whose seats wait for them (an addition).
        away: Vec<AwayView>,
        /// The room's last chat lines, oldest first, exactly as they were sent, less those an
        /// operator removed and those from users the receiver blocks (an addition).
        chat: Vec<Box<RawValue>>,
        /// How many wait in the room's pool, each kind of game (an addition).
        seeks: Vec<SeekCount>,
    },
    /// A seated player of a match in play dropped (an addition): the seat waits for them
    /// until `until` (server ms), the end of their grace.
    Away {
        room: RoomId,
        table: TableId,
        seat: Side,
        user: User,
        until: u64,
    },
    /// A player who was away came back into the room within their grace (an addition).
    Back {
        room: RoomId,
        table: TableId,
        seat: Side,
        user: User,
    },
    /// To a user invited to an apartment (an addition), in whatever room or none: `room` is
    /// the apartment's id, `name` its name; `enter` it to go.
    HomeInvitation {
        from: User,
        room: RoomId,
        name: String,
    },
    OccupantJoined {
        room: RoomId,
        user: User,
    },
    OccupantLeft {
        room: RoomId,
        user: User,
    },
    Table(TableView),
    Invitation {
        id: InvitationId,
        from: User,
        table: TableId,
        room: RoomId,
        /// How the match would be played (an addition).
        settings: MatchSettings,
        /// When it runs out unanswered, server ms (an addition).
        expires_at: u64,
    },
    /// To the one who invited (an addition): the invitation's id, for the record.
    InvitationSent {
        id: InvitationId,
        to: UserId,
        table: TableId,
        r#ref: Option<Value>,
    },
    InvitationDeclined {
        id: InvitationId,
        table: TableId,
    },
    InvitationExpired {
        id: InvitationId,
        table: TableId,
        /// Why (an addition): `expired` (its time ran out), `settings_changed` (the host chose
        /// other match settings), `withdrawn` (the host stood up, or either of the two left
        /// the room or dropped), `table_changed` (the table's rules changed, or it went).
        reason: &'static str,
    },
    GameStarted {
        table: TableId,
        game_id: GameId,
        players: Players,
        house: bool,
        rules: crate::ayo::Rules,
        state: State,
        /// The table's version after this event (an addition).
        version: u64,
        /// The match this game is part of (an addition).
        r#match: MatchView,
        /// The game's clocks, `null` without one (an addition).
        clock: Option<ClockView>,
        /// The side that moves first (an addition): South but under `seats: "kept"`.
        first: Side,
        /// Who won the lots, in a match's first game when they were drawn (an addition).
        #[serde(skip_serializing_if = "Option::is_none")]
        lots: Option<Lots>,
        /// In a tournament game that allows berserk: the seats that went berserk, `[]` at the
        /// start (an addition; left out elsewhere).
        #[serde(skip_serializing_if = "Option::is_none")]
        berserk: Option<Vec<Side>>,
    },
    GameState {
        table: TableId,
        game_id: GameId,
        last_move: LastMove,
        captured: u8,
        state: State,
        /// The table's version after this move (an addition).
        version: u64,
        /// The `ref` the mover sent with the move (an addition): the mover's direct reply.
        r#ref: Option<Value>,
        /// Both clocks after the move, `null` without one (an addition).
        clock: Option<ClockView>,
        /// The server's clock, milliseconds since 1970 (an addition).
        server_time: u64,
    },
    /// A player went berserk in a tournament game: their clock halved (an addition).
    Berserk {
        table: TableId,
        game_id: GameId,
        seat: Side,
        user: User,
        version: u64,
        clock: Option<ClockView>,
        server_time: u64,
    },
    GameOver {
        table: TableId,
        game_id: GameId,
        result: Status,
        reason: crate::ayo::EndReason,
        state: State,
        counts_for_champions: bool,
        /// Whether it counts for the champions wall and why not (an addition; `counts` is
        /// `counts_for_champions`).
        wall: WallVerdict,
        /// The table's version after this event (an addition).
        version: u64,
        /// The match with this game counted (an addition).
        r#match: Option<MatchView>,
        /// The clocks as they stopped, `null` without one (an addition).
        clock: Option<ClockView>,
    },
    /// The match changed between games (an addition): a start pressed, a game lost by not
    /// pressing it, the wait for the next game begun.
    MatchState {
        table: TableId,
        r#match: MatchView,
        version: u64,
        server_time: u64,
    },
    /// The match is over (an addition): its winner (`null` for a drawn match), why, and the
    /// points of its first and second player.
    MatchOver {
        table: TableId,
        match_id: MatchId,
        winner: Option<User>,
        reason: MatchEnd,
        points: [f32; 2],
        r#match: MatchView,
        version: u64,
    },
    /// To the opponent of one who pressed rematch (an addition).
    RematchOffered {
        table: TableId,
        from: User,
    },
    /// The reply to `sync`, and to `enter` with `since` (an addition): the table events after
    /// version `since` up to `version`, exactly as they were sent, oldest first; or, when
    /// they are no longer all held (or `since` is not one of this table's versions),
    /// `resync: true`, no events, and the whole table in `snapshot`.
    Missed {
        table: TableId,
        since: u64,
        version: u64,
        resync: bool,
        events: Vec<Box<RawValue>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        snapshot: Option<TableView>,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        r#ref: Option<Value>,
    },
    /// To the opponent of one who offers a draw (an addition).
    DrawOffered {
        table: TableId,
        from: User,
        /// `game` or `match` (an addition).
        scope: Scope,
    },
    /// To the one who offered, when the offer is turned down (an addition).
    DrawDeclined {
        table: TableId,
        scope: Scope,
    },
    /// To a guest from a table's queue: the seat is theirs to take until `until` (an
    /// addition).
    QueueCalled {
        table: TableId,
        seat: Side,
        until: u64,
    },
    /// To a guest: they are out of the table's queue, and why (an addition).
    QueueLeft {
        table: TableId,
        reason: &'static str,
    },
    /// An arena tournament of this room: on entering, and when it starts, its players or
    /// scores change, its end time passes, and when it is over with its winner (an addition).
    Tournament {
        tournament: TournamentView,
    },
    /// Where the games that moved since the last one stand (an addition): sent to everyone
    /// in the room at most once every `world.status_every` (what it says of a table one
    /// watches or plays at, one knows already).
    TableStatus {
        room: RoomId,
        tables: Vec<TableStatus>,
    },
    Chat {
        room: RoomId,
        user: User,
        text: String,
        /// The line's number in the room, for `chat_removed` (an addition).
        id: u64,
    },
    /// To a connection another connection of the same user took over (an addition); it is
    /// closed next.
    Replaced {},
    /// The service is stopping (an addition): games in play resume when it is back.
    ServerClosing {},
    /// A room's name changed (an addition).
    RoomChanged {
        room: RoomInfo,
    },
    /// An operator is closing the room once its games in play end (an addition): no new
    /// games start.
    RoomClosing {
        room: RoomId,
    },
    /// The room is closed (an addition): everyone in it is out of it, in no room, and may
    /// `enter` another.
    RoomClosed {
        room: RoomId,
    },
    /// A table was taken away (an addition).
    TableRemoved {
        room: RoomId,
        table: TableId,
    },
    /// The direct reply to `leave` (an addition).
    Left {
        room: RoomId,
    },
    Pong {
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        r#ref: Option<Value>,
    },
    Error {
        code: ErrorCode,
        message: String,
        r#ref: Option<Value>,
        /// When the refused thing may be asked again (server ms): after `slow_mode`, `muted`,
        /// `too_many_invitations`, `barred` (an addition).
        #[serde(skip_serializing_if = "Option::is_none")]
        until: Option<u64>,
    },
    /// Slow mode came on, changed or went off in the room (an addition; civility).
    SlowMode {
        room: RoomId,
        #[serde(flatten)]
        slow_mode: super::civility::SlowMode,
    },
    /// An operator removed a chat line: clients take it away (an addition; civility).
    ChatRemoved {
        room: RoomId,
        id: u64,
    },
    /// To a guest an operator muted (an addition; civility): their chat lines are refused in
    /// every room until `until` (server ms); `until: null` when the mute is lifted.
    Muted {
        until: Option<u64>,
        reason: String,
    },
    /// To one who sent `seek` (an addition): they wait in the room's pool for this kind of
    /// game since `since` (server ms).
    Seeking {
        family: &'static str,
        clock: String,
        rated: bool,
        since: u64,
        r#ref: Option<Value>,
    },
    /// To two guests the pool paired (an addition): a game at `table` against `opponent`,
    /// starting when both accept (`pairing_answer`) before `until` (server ms).
    Pairing {
        pairing: PairingId,
        table: TableId,
        opponent: User,
        family: &'static str,
        clock: String,
        rated: bool,
        until: u64,
    },
    /// A pairing ended (an addition): `declined`, `lapsed`, `left`, `table_taken` (both
    /// accepted but the table was taken meanwhile: both wait again) or `started` (the match
    /// began: its table events follow).
    PairingOver {
        pairing: PairingId,
        reason: &'static str,
    },
    /// To a seeker who waited `waited_ms` with nobody (an addition): Baba Ayo would play them
    /// (`play_house`).
    SeekHouse {
        family: &'static str,
        waited_ms: u64,
    },
    /// How many wait in the room's pool changed (an addition).
    Seeks {
        room: RoomId,
        counts: Vec<SeekCount>,
    },
    /// To a guest an operator put out of a room (an addition; civility): they are in no room
    /// now, and may not come back in before `until` (server ms).
    PutOut {
        room: RoomId,
        until: u64,
        reason: String,
    },
}

impl ServerMessage {
    pub fn error(
        code: ErrorCode,
        message: impl Into<String>,
        r#ref: Option<Value>,
    ) -> ServerMessage {
        ServerMessage::Error {
            code,
            message: message.into(),
            r#ref,
            until: None,
        }
    }

    /// The message as one text frame, serialised once for everyone it goes to.
    pub fn to_frame(&self) -> Frame {
        serde_json::to_string(self)
            .unwrap_or_else(|e| {
                serde_json::json!({"type": "error", "code": "internal", "message": e.to_string()})
                    .to_string()
            })
            .into()
    }

    /// Whether the message is a move of a game: it goes only to the table's players and
    /// those watching it.
    pub fn is_move(&self) -> bool {
        matches!(self, ServerMessage::GameState { .. })
    }
}
