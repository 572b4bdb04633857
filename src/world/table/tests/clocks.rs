//! Clocks as they run at a table: a game's time with its increment, a time per move, and a
//! move that comes after the flag fell.

use crate::ayo::clock::TimeControl;
use crate::ayo::{EndReason, Pit, Side, Status};
use crate::common::ErrorCode;

use super::super::super::matches::MatchEnd;
use super::super::{Command, TableEvent};
use super::*;

#[test]
fn a_game_clock_adds_the_increment_and_the_side_whose_time_runs_out_loses() {
    let mut t = table();
    let fx = hosted(&mut t, Some("3+2"), 1);
    let TableEvent::GameStarted {
        clocks: Some(c),
        at,
        ..
    } = first_of(&fx, "game_started")
    else {
        panic!("a clock")
    };
    assert_eq!(
        c.control,
        TimeControl::Game {
            minutes: 3,
            increment_seconds: 2
        }
    );
    assert_eq!(c.left(*at), [180_000, 180_000]);
    assert_eq!(c.running(), Some(Side::South));
    let north = t.game.as_ref().unwrap().players[1].id.clone();
    let now = T0 + 10_000;
    let fx = a_move(&mut t, 1, now);
    let TableEvent::Moved {
        clocks: Some(c),
        at,
        ..
    } = first_of(&fx, "game_state")
    else {
        panic!("a clock")
    };
    assert_eq!(*at, now, "the server's time goes with the clocks");
    assert_eq!(c.left(now), [172_000, 180_000], "10 s off, 2 s on");
    assert_eq!(c.running(), Some(Side::North));
    // North moves with a millisecond to spare and gets the increment on it.
    let now = now + 179_999;
    let fx = a_move(&mut t, 1, now);
    let TableEvent::Moved {
        clocks: Some(c), ..
    } = first_of(&fx, "game_state")
    else {
        panic!("a clock")
    };
    assert_eq!(c.left(now)[1], 2_001);
    assert_eq!(c.running(), Some(Side::South));
    // South's time runs out: the table sees it at its next tick.
    let now = now + 172_000;
    let fx = t.apply(Command::Tick, now, draws());
    let TableEvent::GameOver {
        reason,
        status,
        clocks: Some(c),
        at,
        ..
    } = first_of(&fx, "game_over")
    else {
        panic!("a clock")
    };
    assert_eq!(*reason, EndReason::Timeout);
    assert_eq!(*status, Status::NorthWon);
    assert_eq!(c.left(*at)[0], 0);
    assert_eq!(c.running(), None, "stopped");
    let TableEvent::MatchOver { winner, reason, .. } = first_of(&fx, "match_over") else {
        unreachable!()
    };
    assert_eq!(winner.as_ref().map(|w| &w.id), Some(&north));
    assert_eq!(*reason, MatchEnd::Games);
}

#[test]
fn a_move_clock_starts_afresh_every_move_and_running_out_loses() {
    let mut t = table();
    let fx = hosted(&mut t, Some("60s"), 1);
    let TableEvent::GameStarted {
        clocks: Some(c), ..
    } = first_of(&fx, "game_started")
    else {
        panic!("a clock")
    };
    assert_eq!(c.control, TimeControl::PerMove { seconds: 60 });
    let now = T0 + 59_000;
    let fx = a_move(&mut t, 1, now);
    let TableEvent::Moved {
        clocks: Some(c), ..
    } = first_of(&fx, "game_state")
    else {
        panic!("a clock")
    };
    assert_eq!(c.left(now), [60_000, 60_000]);
    // A move that comes after the flag fell is not played, whether the table saw the flag
    // first or not, and even from the version its sender saw last.
    let seen = t.version;
    let north = to_move(&t);
    let late = |user| Command::Move {
        user,
        pit: Pit::new(1).unwrap(),
        version: Some(seen),
    };
    let fx = t.apply(late(north.clone()), now + 60_000, draws());
    assert_eq!(refused(&fx), Some(ErrorCode::TimeOut));
    let TableEvent::GameOver {
        reason,
        status,
        state,
        ..
    } = first_of(&fx, "game_over")
    else {
        unreachable!()
    };
    assert_eq!(*reason, EndReason::Timeout);
    assert_eq!(*status, Status::SouthWon);
    assert_eq!(state.ply, 1, "the late move was not played");
    // And again once the table has surely seen it.
    let fx = t.apply(late(north), now + 60_001, draws());
    assert_eq!(refused(&fx), Some(ErrorCode::TimeOut));
    assert!(fx.writes.is_empty() && fx.events.is_empty());

    // The flag seen first, at a tick: the late move is refused the same.
    let mut t = table();
    hosted(&mut t, Some("60s"), 1);
    a_move(&mut t, 1, T0 + 59_000);
    let seen = t.version;
    let north = to_move(&t);
    let fx = t.apply(Command::Tick, T0 + 119_000, draws());
    assert_eq!(kinds(&fx)[0], "game_over");
    let fx = t.apply(
        Command::Move {
            user: north,
            pit: Pit::new(1).unwrap(),
            version: Some(seen),
        },
        T0 + 119_001,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::TimeOut));
    assert_eq!(t.game.as_ref().unwrap().game.ply(), 1);
}
