//! The table's rules without tasks, sockets or a database: each test applies commands at
//! chosen times and reads what the table decided. `seats`: sitting, invitations, Baba Ayo,
//! departures, closing; `play`: moves, clocks, draws, the match flow and the rematch; `kept`:
//! seats kept, the first move drawn by lots and swapping; `props`: random command sequences.

mod kept;
mod play;
mod props;
mod seats;

use std::cell::Cell;

use crate::ayo::{Pit, Preset, Side};

use crate::common::{ErrorCode, GameId, MatchId, RoomId, TableId, User, UserId};

use super::super::protocol::ServerMessage;
use super::{Command, Draws, Effects, Event, Table, Timing};

pub(super) const T0: u64 = 1_000_000;

thread_local! {
    /// Draws made on this test's thread: each test runs on its own, so its ids and lots are
    /// the same every run.
    static DRAWN: Cell<u64> = const { Cell::new(0) };
}

/// The next draws: ids numbered in order, and lots that fall either way (the counter mixed,
/// so a test applying the same number of commands each round still sees both).
pub(super) fn draws() -> Draws {
    let n = DRAWN.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    draws_for(n)
}

/// The `n`th draws: ids of their own, and lots that fall either way.
pub(super) fn draws_for(n: u64) -> Draws {
    Draws {
        match_id: MatchId::new(format!("m{n}")),
        game_id: GameId::new(format!("g{n}")),
        lot: if mix(n) & 1 == 1 {
            Side::North
        } else {
            Side::South
        },
    }
}

/// splitmix64's finaliser: a counter's bits spread over the word.
pub(super) fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(super) fn person(name: &str) -> User {
    User {
        id: UserId::new(name.to_lowercase()),
        name: name.to_owned(),
        house: false,
    }
}

pub(super) fn house() -> User {
    User {
        id: UserId::new("house-easy"),
        name: "Baba Ayo".to_owned(),
        house: true,
    }
}

pub(super) fn table() -> Table {
    let timing = Timing {
        invitation_ms: 60_000,
        untimed_start_ms: 300_000,
        rematch_ms: 120_000,
    };
    Table::new(
        TableId::new("t1"),
        RoomId::new("lounge"),
        Preset::Lagos.rules(),
        timing,
        0,
    )
}

pub(super) fn kinds(fx: &Effects) -> Vec<&'static str> {
    fx.events
        .iter()
        .map(|e| match e {
            Event::Table { message, .. } | Event::To(_, message) | Event::Again(_, message) => {
                kind(message)
            }
        })
        .collect()
}

pub(super) fn kind(message: &ServerMessage) -> &'static str {
    match message {
        ServerMessage::Table(_) => "table",
        ServerMessage::GameStarted { .. } => "game_started",
        ServerMessage::GameState { .. } => "game_state",
        ServerMessage::GameOver { .. } => "game_over",
        ServerMessage::MatchState { .. } => "match_state",
        ServerMessage::MatchOver { .. } => "match_over",
        ServerMessage::Invitation { .. } => "invitation",
        ServerMessage::InvitationSent { .. } => "invitation_sent",
        ServerMessage::InvitationExpired { .. } => "invitation_expired",
        ServerMessage::InvitationDeclined { .. } => "invitation_declined",
        ServerMessage::DrawOffered { .. } => "draw_offered",
        ServerMessage::DrawDeclined { .. } => "draw_declined",
        ServerMessage::RematchOffered { .. } => "rematch_offered",
        _ => "other",
    }
}

pub(super) fn refused(fx: &Effects) -> Option<ErrorCode> {
    fx.refused.as_ref().map(|r| r.code)
}

/// `user` sits at `seat`, at the start.
pub(super) fn sit(t: &mut Table, user: User, seat: Side) -> Effects {
    t.apply(
        Command::Sit {
            user,
            seat,
            seats: None,
        },
        T0,
        draws(),
    )
}

/// Ade and Bisi sit down: a match starts with its first game.
pub(super) fn two_seated(t: &mut Table) -> Effects {
    let fx = sit(t, person("Ade"), Side::South);
    assert_eq!(refused(&fx), None);
    sit(t, person("Bisi"), Side::North)
}

/// Ade sits South, chooses the match (a clock, best of `best_of`), and Bisi sits opposite: the
/// match starts.
pub(super) fn hosted(t: &mut Table, clock: Option<&str>, best_of: u8) -> Effects {
    let host = person("Ade");
    sit(t, host.clone(), Side::South);
    let fx = t.apply(
        Command::SetMatch {
            user: host.id,
            clock: clock.map(str::to_owned),
            best_of: Some(best_of),
            seats: None,
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), None);
    sit(t, person("Bisi"), Side::North)
}

/// The user to move in the game in play.
pub(super) fn to_move(t: &Table) -> UserId {
    let live = t.game.as_ref().unwrap();
    live.players[live.game.to_move().unwrap().index()]
        .id
        .clone()
}

pub(super) fn a_move(t: &mut Table, pit: u8, now: u64) -> Effects {
    let user = to_move(t);
    t.apply(
        Command::Move {
            user,
            pit: Pit::new(pit).unwrap(),
            version: None,
            r#ref: None,
        },
        now,
        draws(),
    )
}
