//! A match's course: its games counted, the first move swapping, the start presses between
//! games and their deadline, its end, and the rematch after it; against a guest and against
//! Baba Ayo, who is always ready.

use crate::common::{User, UserId};

use super::super::super::matches::{GameEnd, MatchEnd, Scope};
use super::super::{Command, MatchResult, TableEvent, Write};
use super::*;

/// The match's first and second player, as `game_started` shows them.
fn order(fx: &Effects) -> [User; 2] {
    match_of(fx, "game_started").players.clone()
}

/// South's id in `fx`'s `game_started`.
fn south_of(fx: &Effects) -> UserId {
    match first_of(fx, "game_started") {
        TableEvent::GameStarted { players, .. } => players[0].id.clone(),
        _ => unreachable!(),
    }
}

fn resign(t: &mut Table, user: &UserId, scope: Scope, now: u64) -> Effects {
    act(
        t,
        Command::Resign {
            user: user.clone(),
            scope,
        },
        now,
    )
}

fn press(t: &mut Table, user: &UserId, now: u64) -> Effects {
    act(t, Command::Start { user: user.clone() }, now)
}

fn rematch(t: &mut Table, user: &UserId, now: u64) -> Effects {
    act(
        t,
        Command::Rematch {
            user: user.clone(),
            players_free: true,
        },
        now,
    )
}

#[test]
fn a_best_of_three_swaps_the_first_move_and_ends_once_decided() {
    let mut t = table();
    let fx = hosted(&mut t, None, 3);
    let [first, second] = order(&fx).map(|u| u.id);
    let m = match_of(&fx, "game_started");
    assert_eq!(u8::from(m.best_of), 3);
    assert_eq!(m.game, 1);
    let TableEvent::GameStarted { clocks, .. } = first_of(&fx, "game_started") else {
        unreachable!()
    };
    assert!(clocks.is_none(), "no clock");
    assert_eq!(south_of(&fx), first, "the first player is South in game 1");
    let fx = resign(&mut t, &second, Scope::Game, T0 + 1);
    let m = match_of(&fx, "game_over");
    assert_eq!(m.points, [1.0, 0.0]);
    assert_eq!(m.status, "between_games");
    let between = match_of(&fx, "match_state").between.unwrap();
    assert_eq!(between.ready, [false, false]);
    assert!(
        t.seats.iter().all(Option::is_some),
        "seats kept between games"
    );
    let fx = press(&mut t, &first, T0 + 2);
    assert_eq!(
        match_of(&fx, "match_state").between.unwrap().ready,
        [true, false]
    );
    let fx = press(&mut t, &second, T0 + 3);
    assert_eq!(match_of(&fx, "game_started").game, 2);
    assert_eq!(
        south_of(&fx),
        second,
        "the second player moves first in game 2"
    );
    assert!(fx.writes.iter().any(|w| matches!(
        w,
        Write::NewGame(g) if g.number == 2 && g.south.id == second
    )));
    // 2 of 3 is past half: the third game is never played.
    let fx = resign(&mut t, &second, Scope::Game, T0 + 4);
    let TableEvent::MatchOver {
        winner,
        points,
        reason,
        r#match,
        ..
    } = first_of(&fx, "match_over")
    else {
        unreachable!()
    };
    assert_eq!(winner.as_ref().map(|w| &w.id), Some(&first));
    assert_eq!(*points, [2.0, 0.0]);
    assert_eq!(*reason, MatchEnd::Games);
    assert_eq!(r#match.games.len(), 2);
    let TableEvent::Changed(table) = fx.events.last().map(event_of).unwrap() else {
        panic!("the table follows")
    };
    assert!(table.seats.iter().all(Option::is_none), "they stood up");
    assert_eq!(table.rematch.as_ref().unwrap().pressed, [false, false]);
    // Stored as it was played.
    assert!(fx.writes.iter().any(|w| matches!(
        w,
        Write::MatchOver {
            result: MatchResult {
                winner: Some(w),
                end_reason: MatchEnd::Games,
                halves: [4, 0],
            },
            ..
        } if *w == first
    )));
}

#[test]
fn not_pressing_start_loses_the_game_and_if_nobody_presses_the_leader_wins() {
    let mut t = table();
    // 1 + 0: a minute each, so a minute to press start.
    let fx = hosted(&mut t, Some("1+0"), 3);
    let [first, second] = order(&fx).map(|u| u.id);
    let fx = resign(&mut t, &second, Scope::Game, T0);
    let between = match_of(&fx, "match_state").between.unwrap();
    assert_eq!(between.deadline_ms, T0 + 60_000);
    press(&mut t, &first, T0);
    // The second player never pressed: game 2 is theirs lost, and 2 of 3 decides it.
    let fx = t.apply(Command::Tick, T0 + 60_000, draws());
    let TableEvent::MatchOver {
        winner,
        points,
        r#match,
        ..
    } = first_of(&fx, "match_over")
    else {
        unreachable!()
    };
    assert_eq!(winner.as_ref().map(|w| &w.id), Some(&first));
    assert_eq!(*points, [2.0, 0.0]);
    assert_eq!(r#match.games.len(), 2);
    assert_eq!(r#match.games[1].reason, GameEnd::NotStarted);
    assert!(fx
        .writes
        .iter()
        .any(|w| matches!(w, Write::UnstartedGame { .. })));
    let last_south = r#match.games[1].south.clone();
    // A rematch: the one who did not move first in the last game does now.
    let now = T0 + 60_000;
    rematch(&mut t, &first, now);
    let fx = rematch(&mut t, &second, now);
    let south = south_of(&fx);
    assert_ne!(south, last_south);
    let north = t.game.as_ref().unwrap().players[1].id.clone();
    let fx = resign(&mut t, &north, Scope::Game, now);
    assert!(kinds(&fx).contains(&"match_state"));
    // Nobody presses start: the match ends, the leader (1-0) winning it.
    let fx = t.apply(Command::Tick, now + 60_000, draws());
    let TableEvent::MatchOver { winner, reason, .. } = first_of(&fx, "match_over") else {
        unreachable!()
    };
    assert_eq!(*reason, MatchEnd::NoStart);
    assert_eq!(winner.as_ref().map(|w| &w.id), Some(&south));
}

#[test]
fn against_baba_ayo_the_first_move_swaps_too_and_he_is_always_ready() {
    let mut t = table();
    let ade = person("Ade");
    let fx = act(
        &mut t,
        Command::PlayHouse {
            user: ade.clone(),
            house: house(),
            choice: choice(None, Some(3), None),
            seated_elsewhere: false,
        },
        T0,
    );
    let TableEvent::GameStarted { house: true, .. } = first_of(&fx, "game_started") else {
        panic!("Baba Ayo plays")
    };
    assert_eq!(u8::from(match_of(&fx, "game_started").best_of), 3);
    let ade_south = south_of(&fx) == ade.id;
    let fx = resign(&mut t, &ade.id, Scope::Game, T0 + 1);
    let m = match_of(&fx, "match_state");
    let house_is_first = m.players[0].house;
    let ready = m.between.unwrap().ready;
    assert_eq!(ready, [house_is_first, !house_is_first], "he is ready");
    let fx = press(&mut t, &ade.id, T0 + 2);
    assert_eq!(south_of(&fx) == ade.id, !ade_south, "the first move swaps");
    let fx = resign(&mut t, &ade.id, Scope::Match, T0 + 3);
    let TableEvent::MatchOver { winner, .. } = first_of(&fx, "match_over") else {
        unreachable!()
    };
    assert!(winner.as_ref().unwrap().house);
    // A rematch with Baba Ayo takes one press: he has pressed already.
    let fx = rematch(&mut t, &ade.id, T0 + 4);
    let TableEvent::GameStarted { house: true, .. } = first_of(&fx, "game_started") else {
        panic!("Baba Ayo plays again")
    };
    assert_eq!(u8::from(match_of(&fx, "game_started").best_of), 3);
    assert_ne!(t.seat_of(&ade.id), None);
}
