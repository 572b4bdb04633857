//! The table's rules without tasks, sockets or a database: each test applies commands at
//! chosen times and reads what the table decided. `seats`: sitting, invitations, Baba Ayo,
//! departures, closing; `play`: moves, clocks, draws, the match flow and the rematch; `kept`:
//! seats kept, the first move drawn by lots and swapping; `clocks`: a game's time and a time
//! per move as they run; `course`: a match from its first game to its rematch, against a
//! guest or Baba Ayo; `offers`: draws and resignations of a game or a match; `settings`: the
//! host's choice of the match; `props`: random command sequences.

mod berserk;
mod clocks;
mod course;
mod kept;
mod offers;
mod paired;
mod play;
mod props;
mod queue;
mod seats;
mod settings;

use std::cell::Cell;

use crate::ayo::{Pit, Preset, Side};

use crate::common::{ErrorCode, GameId, MatchId, RoomId, TableId, User, UserId};

use super::super::matches::{MatchChoice, MatchView};
use super::{choose, Command, Draws, Effects, Event, Table, TableEvent, Timing};

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
        ratings: Default::default(),
    }
}

pub(super) fn house() -> User {
    User {
        id: UserId::new("house-easy"),
        name: "Baba Ayo".to_owned(),
        house: true,
        ratings: Default::default(),
    }
}

pub(super) fn table() -> Table {
    let timing = Timing {
        invitation_ms: 60_000,
        untimed_start_ms: 300_000,
        rematch_ms: 120_000,
        queue_call_ms: 20_000,
        straight_wins: 3,
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
            Event::Table { event, .. } | Event::To(_, event) | Event::Again(_, event) => {
                kind(event)
            }
        })
        .collect()
}

/// Applies `command` at `now` as the room does: when both pressed start, the next game
/// follows as a command of its own, its effects added to these.
pub(super) fn act(t: &mut Table, command: Command, now: u64) -> Effects {
    let mut fx = t.apply(command, now, draws());
    if fx.start_next_game {
        let next = t.apply(Command::NextGame, now, draws());
        fx.writes.extend(next.writes);
        fx.events.extend(next.events);
        fx.house_to_move |= next.house_to_move;
    }
    fx
}

/// The event an `Event` carries, to whomever it goes.
pub(super) fn event_of(e: &Event) -> &TableEvent {
    match e {
        Event::Table { event, .. } | Event::To(_, event) | Event::Again(_, event) => event,
    }
}

/// The first event named `name` among `fx`'s, to whomever it goes.
pub(super) fn first_of<'a>(fx: &'a Effects, name: &str) -> &'a TableEvent {
    fx.events
        .iter()
        .map(event_of)
        .find(|e| kind(e) == name)
        .unwrap_or_else(|| panic!("no {name} among {:?}", kinds(fx)))
}

/// The names of the events told to `user` alone.
pub(super) fn told(fx: &Effects, user: &UserId) -> Vec<&'static str> {
    fx.events
        .iter()
        .filter_map(|e| match e {
            Event::To(to, event) | Event::Again(to, event) if to == user => Some(kind(event)),
            _ => None,
        })
        .collect()
}

/// The match as `fx`'s first event named `name` shows it.
pub(super) fn match_of<'a>(fx: &'a Effects, name: &str) -> &'a MatchView {
    match first_of(fx, name) {
        TableEvent::GameStarted { r#match, .. }
        | TableEvent::MatchState { r#match, .. }
        | TableEvent::MatchOver { r#match, .. }
        | TableEvent::GameOver {
            r#match: Some(r#match),
            ..
        } => r#match,
        other => panic!("no match in {other:?}"),
    }
}

/// The event's name, as the message the room renders from it is typed.
pub(super) fn kind(event: &TableEvent) -> &'static str {
    match event {
        TableEvent::Changed(_) => "table",
        TableEvent::GameStarted { .. } => "game_started",
        TableEvent::Moved { .. } => "game_state",
        TableEvent::Berserked { .. } => "berserk",
        TableEvent::GameOver { .. } => "game_over",
        TableEvent::MatchState { .. } => "match_state",
        TableEvent::MatchOver { .. } => "match_over",
        TableEvent::Invited { .. } => "invitation",
        TableEvent::InvitationSent { .. } => "invitation_sent",
        TableEvent::InvitationEnded { .. } => "invitation_expired",
        TableEvent::InvitationDeclined { .. } => "invitation_declined",
        TableEvent::DrawOffered { .. } => "draw_offered",
        TableEvent::DrawDeclined { .. } => "draw_declined",
        TableEvent::RematchOffered { .. } => "rematch_offered",
        TableEvent::Called { .. } => "queue_called",
        TableEvent::Unqueued { .. } => "queue_left",
    }
}

/// Settings as a client sends them, good ones (the room refuses others before the table).
pub(super) fn choice(clock: Option<&str>, best_of: Option<u8>, seats: Option<&str>) -> MatchChoice {
    choose(clock, best_of, seats).expect("good settings")
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
            choice: choice(clock, Some(best_of), None),
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
        },
        now,
        draws(),
    )
}
