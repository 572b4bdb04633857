//! A table's events as clients are sent them: each `TableEvent` rendered to its
//! `ServerMessage`, and a table's snapshot to the `table` view. The table speaks in its own
//! words; the wire's shape is decided here, once.

use serde_json::Value;

use crate::ayo::Side;
use crate::common::{RoomId, TableId};

use super::super::protocol::{
    CalledView, ClockView, LastMove, Lots, Players, QueueView, Seats, ServerMessage, StreakView,
    TableGame, TableStatus, TableView, WallVerdict as Verdict,
};
use super::super::table::{Table, TableEvent, TableSnapshot};

/// Where an event happened: the room and the table.
pub(super) struct At<'a> {
    pub room: &'a RoomId,
    pub table: &'a TableId,
}

/// `event` as it is sent; `r#ref` is the asker's, carried by the replies that answer them (a
/// move's `game_state`, `invitation_sent`) and by nothing else.
pub(super) fn render(event: TableEvent, at: &At<'_>, r#ref: Option<Value>) -> ServerMessage {
    let table = at.table.clone();
    match event {
        TableEvent::Changed(snapshot) => ServerMessage::Table(view(*snapshot)),
        TableEvent::Invited {
            id,
            from,
            settings,
            expires_ms,
        } => ServerMessage::Invitation {
            id,
            from,
            table,
            room: at.room.clone(),
            settings,
            expires_at: expires_ms,
        },
        TableEvent::InvitationSent { id, to } => ServerMessage::InvitationSent {
            id,
            to,
            table,
            r#ref,
        },
        TableEvent::InvitationDeclined { id } => ServerMessage::InvitationDeclined { id, table },
        TableEvent::InvitationEnded { id, why } => ServerMessage::InvitationExpired {
            id,
            table,
            reason: why.word(),
        },
        TableEvent::GameStarted {
            game,
            players: [south, north],
            house,
            rules,
            state,
            version,
            r#match,
            clocks,
            at,
            first,
            lots,
            berserk,
        } => ServerMessage::GameStarted {
            table,
            game_id: game,
            players: Players { south, north },
            house,
            rules,
            state,
            version,
            r#match,
            clock: ClockView::of(clocks.as_ref(), at),
            first,
            lots: lots.map(|starts| Lots { starts }),
            berserk: berserk.map(seats_of),
        },
        TableEvent::Moved {
            game,
            side,
            pit,
            captured,
            state,
            version,
            clocks,
            at,
        } => ServerMessage::GameState {
            table,
            game_id: game,
            last_move: LastMove { seat: side, pit },
            captured,
            state,
            version,
            r#ref,
            clock: ClockView::of(clocks.as_ref(), at),
            server_time: at,
        },
        TableEvent::Berserked {
            game,
            user,
            seat,
            clocks,
            version,
            at,
        } => ServerMessage::Berserk {
            table,
            game_id: game,
            seat,
            user,
            version,
            clock: ClockView::of(Some(&clocks), at),
            server_time: at,
        },
        TableEvent::GameOver {
            game,
            status,
            reason,
            state,
            wall,
            version,
            r#match,
            clocks,
            at,
        } => ServerMessage::GameOver {
            table,
            game_id: game,
            result: status,
            reason,
            state,
            counts_for_champions: wall.counts,
            wall: Verdict {
                counts: wall.counts,
                reason: wall.reason,
            },
            version,
            r#match,
            clock: ClockView::of(clocks.as_ref(), at),
        },
        TableEvent::MatchState {
            r#match,
            version,
            at,
        } => ServerMessage::MatchState {
            table,
            r#match,
            version,
            server_time: at,
        },
        TableEvent::MatchOver {
            id,
            winner,
            reason,
            points,
            r#match,
            version,
        } => ServerMessage::MatchOver {
            table,
            match_id: id,
            winner,
            reason,
            points,
            r#match,
            version,
        },
        TableEvent::RematchOffered { from } => ServerMessage::RematchOffered { table, from },
        TableEvent::DrawOffered { from, scope } => {
            ServerMessage::DrawOffered { table, from, scope }
        }
        TableEvent::DrawDeclined { scope } => ServerMessage::DrawDeclined { table, scope },
        TableEvent::Called { seat, until_ms } => ServerMessage::QueueCalled {
            table,
            seat,
            until: until_ms,
        },
        TableEvent::Unqueued { why } => ServerMessage::QueueLeft {
            table,
            reason: why.word(),
        },
    }
}

/// The seats marked among South and North (who went berserk).
fn seats_of(marked: [bool; 2]) -> Vec<Side> {
    Side::BOTH
        .into_iter()
        .filter(|s| marked[s.index()])
        .collect()
}

/// A table's snapshot as every message shows it.
pub(super) fn view(snapshot: TableSnapshot) -> TableView {
    let [south, north] = snapshot.seats;
    let at = snapshot.at;
    TableView {
        id: snapshot.id,
        room: snapshot.room,
        seats: Seats { south, north },
        rules: snapshot.rules,
        game: snapshot.game.map(|g| {
            let [south, north] = g.players;
            TableGame {
                id: g.id,
                players: Players { south, north },
                state: g.state,
                number: g.number,
                clock: ClockView::of(g.clocks.as_ref(), at),
                moves: g.moves,
                first: g.first,
                berserk: g.berserk.map(seats_of),
            }
        }),
        version: snapshot.version,
        settings: snapshot.settings,
        r#match: snapshot.r#match,
        rematch: snapshot.rematch,
        queue: snapshot.queue.map(|q| QueueView {
            waiting: q.waiting,
            called: q
                .called
                .into_iter()
                .map(|c| CalledView {
                    user: c.user,
                    seat: c.seat,
                    until: c.until_ms,
                })
                .collect(),
            streak: q.streak.map(|s| StreakView {
                user: s.user,
                wins: s.wins,
            }),
            straight_wins: snapshot.straight_wins,
        }),
        server_time: at,
    }
}

/// The table as every message shows it, at `now`.
pub(super) fn table_view(table: &Table, now: u64) -> TableView {
    view(table.snapshot(now))
}

/// Where a table's game stands, for `table_status`; `None` without a game.
pub(super) fn status(table: &Table, now: u64) -> Option<TableStatus> {
    table.game.as_ref().map(|g| TableStatus {
        table: table.id.clone(),
        game_id: g.id.clone(),
        to_move: g.game.to_move(),
        stores: g.game.position().stores(),
        ply: u32::try_from(g.game.moves().len()).unwrap_or(u32::MAX),
        clock: ClockView::of(g.clocks.as_ref(), now),
        version: table.version,
    })
}
