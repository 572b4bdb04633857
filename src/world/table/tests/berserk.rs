//! Berserk in a tournament's game: before one's own first move, once, under a clock for the
//! whole game, and only where the tournament allows it.

use crate::ayo::clock::TimeControl;
use crate::ayo::Side;
use crate::common::{ErrorCode, Seating};

use super::super::super::matches::MatchChoice;
use super::super::{Command, TableEvent, Write};
use super::*;

fn arena_game(t: &mut Table, clock: &str, berserk: bool) {
    let fx = act(
        t,
        Command::Pair {
            players: [person("Ade"), person("Bisi")],
            choice: MatchChoice {
                rated: Some(true),
                best_of: Some(Default::default()),
                seats: Some(Seating::Lots),
                ..choice(Some(clock), None, None)
            },
            rematch: false,
            berserk,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
}

fn player_at(t: &Table, side: Side) -> UserId {
    t.game.as_ref().unwrap().players[side.index()].id.clone()
}

fn berserk(t: &mut Table, user: UserId, now: u64) -> Effects {
    act(t, Command::Berserk { user }, now)
}

fn left(t: &Table, now: u64) -> [u64; 2] {
    t.game.as_ref().unwrap().clocks.unwrap().left(now)
}

#[test]
fn going_berserk_halves_ones_clock_once_and_is_stored_and_told() {
    let mut t = table();
    arena_game(&mut t, "4+2", true);
    let first = t.game.as_ref().unwrap().game.first();
    let (mover, other) = (player_at(&t, first), player_at(&t, first.opponent()));
    // Not on the opponent's turn: a move of theirs in flight stays good.
    let early = berserk(&mut t, other, T0 + 5_000);
    assert_eq!(refused(&early), Some(ErrorCode::NoBerserk));
    let version = t.version;
    // The first mover, 10 s into their turn.
    let fx = berserk(&mut t, mover.clone(), T0 + 10_000);
    assert_eq!(refused(&fx), None);
    assert_eq!(kinds(&fx), ["berserk"]);
    assert_eq!(t.version, version + 1);
    assert!(matches!(
        fx.writes.as_slice(),
        [Write::Berserk { user, .. }] if *user == mover
    ));
    let TableEvent::Berserked { seat, clocks, .. } = first_of(&fx, "berserk") else {
        unreachable!()
    };
    assert_eq!(*seat, first);
    let mut expect = [240_000; 2];
    expect[first.index()] = 110_000;
    assert_eq!(clocks.left(T0 + 10_000), expect);
    assert_eq!(left(&t, T0 + 10_000), expect);
    let mut went = [false; 2];
    went[first.index()] = true;
    assert_eq!(t.snapshot(T0).game.unwrap().berserk, Some(went));
    // Once.
    let again = berserk(&mut t, mover, T0 + 11_000);
    assert_eq!(refused(&again), Some(ErrorCode::NoBerserk));
    assert!(again.writes.is_empty());
    expect[first.index()] = 109_000;
    assert_eq!(left(&t, T0 + 11_000), expect);
}

#[test]
fn an_arena_game_is_announced_with_berserk_allowed() {
    let mut t = table();
    let fx = act(
        &mut t,
        Command::Pair {
            players: [person("Ade"), person("Bisi")],
            choice: MatchChoice {
                seats: Some(Seating::Lots),
                ..choice(Some("3+0"), None, None)
            },
            rematch: false,
            berserk: true,
        },
        T0,
    );
    let TableEvent::GameStarted { berserk, .. } = first_of(&fx, "game_started") else {
        unreachable!()
    };
    assert_eq!(*berserk, Some([false; 2]));
    // The table as first told with the game shows it too.
    let shown = fx.events.iter().rev().find_map(|e| match event_of(e) {
        TableEvent::Changed(snapshot) => snapshot.game.clone(),
        _ => None,
    });
    assert_eq!(shown.unwrap().berserk, Some([false; 2]));
}

#[test]
fn berserk_is_before_ones_own_first_move() {
    let mut t = table();
    arena_game(&mut t, "4+0", true);
    let first = t.game.as_ref().unwrap().game.first();
    let mover = player_at(&t, first);
    // Every pit holds seeds at the start.
    assert_eq!(refused(&a_move(&mut t, 1, T0 + 1_000)), None);
    let fx = berserk(&mut t, mover, T0 + 2_000);
    assert_eq!(refused(&fx), Some(ErrorCode::NoBerserk));
    assert!(fx.events.is_empty() && fx.writes.is_empty());
    // The other has not moved yet: still theirs to take.
    let other = player_at(&t, first.opponent());
    assert_eq!(refused(&berserk(&mut t, other, T0 + 3_000)), None);
}

#[test]
fn berserk_is_only_where_a_tournament_allows_it_under_a_game_clock() {
    // A tournament without berserk.
    let mut t = table();
    arena_game(&mut t, "4+0", false);
    let user = player_at(&t, Side::South);
    assert_eq!(
        refused(&berserk(&mut t, user, T0)),
        Some(ErrorCode::NoBerserk)
    );
    // A clock per move has no half to take.
    let mut t = table();
    arena_game(&mut t, "5m", true);
    let user = player_at(&t, Side::South);
    assert_eq!(
        refused(&berserk(&mut t, user, T0)),
        Some(ErrorCode::NoBerserk)
    );
    // A game the table's own players set up.
    let mut t = table();
    hosted(&mut t, Some("4+0"), 1);
    let user = t.seats[0].as_ref().unwrap().id.clone();
    assert_eq!(
        refused(&berserk(&mut t, user, T0)),
        Some(ErrorCode::NoBerserk)
    );
    // Someone not playing.
    let mut t = table();
    arena_game(&mut t, "4+0", true);
    assert_eq!(
        refused(&berserk(&mut t, person("Chidi").id, T0)),
        Some(ErrorCode::NotSeated)
    );
    assert_eq!(
        TimeControl::PerMove { seconds: 300 }.berserk_ms(),
        None,
        "per move"
    );
}

#[test]
fn a_resumed_tournament_match_offers_no_rematch_and_keeps_who_went_berserk() {
    let mut t = table();
    arena_game(&mut t, "4+0", true);
    let (m, game) = (t.r#match.clone().unwrap(), t.game.clone());
    let mover = to_move(&t);
    // They went berserk before the restart: not again.
    let mut resumed = table();
    resumed.resume(m.clone(), game.clone(), T0);
    resumed.resume_arena(true, std::slice::from_ref(&mover));
    assert_eq!(
        refused(&berserk(&mut resumed, mover.clone(), T0)),
        Some(ErrorCode::NoBerserk)
    );
    // Nobody had: still theirs to take after it.
    let mut resumed = table();
    resumed.resume(m, game, T0);
    resumed.resume_arena(true, &[]);
    assert_eq!(refused(&berserk(&mut resumed, mover.clone(), T0)), None);
    let fx = act(
        &mut resumed,
        Command::Resign {
            user: mover,
            scope: Default::default(),
        },
        T0 + 1,
    );
    assert_eq!(refused(&fx), None);
    assert!(
        resumed.rematch.is_none(),
        "a tournament's match offers no rematch"
    );
}
