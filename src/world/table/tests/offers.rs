//! Draws and resignations are for the game or the whole match: who is told what, what is
//! refused between games, and how each ends the game, the match, or both.

use crate::ayo::{EndReason, Status};
use crate::common::{ErrorCode, User};

use super::super::super::matches::{MatchEnd, Scope};
use super::super::{Command, TableEvent};
use super::*;

fn offer(t: &mut Table, user: &User, scope: Scope) -> Effects {
    act(
        t,
        Command::OfferDraw {
            user: user.clone(),
            scope,
        },
        T0,
    )
}

fn answer(t: &mut Table, user: &User, accept: bool) -> Effects {
    act(
        t,
        Command::AnswerDraw {
            user: user.id.clone(),
            accept,
        },
        T0,
    )
}

/// The scope of the first `draw_offered` or `draw_declined` among `fx`'s events.
fn scope_of(fx: &Effects, name: &str) -> Scope {
    match first_of(fx, name) {
        TableEvent::DrawOffered { scope, .. } | TableEvent::DrawDeclined { scope } => *scope,
        _ => unreachable!(),
    }
}

#[test]
fn draws_and_resignations_are_for_the_game_or_the_whole_match() {
    let mut t = table();
    let fx = hosted(&mut t, None, 5);
    let started = match_of(&fx, "game_started").id.clone();
    let [first, second] = match_of(&fx, "game_started").players.clone();
    // A draw of the game: half a point each, the match goes on.
    let fx = offer(&mut t, &first, Scope::Game);
    assert_eq!(told(&fx, &second.id), ["draw_offered"]);
    assert_eq!(scope_of(&fx, "draw_offered"), Scope::Game);
    let fx = answer(&mut t, &second, true);
    let TableEvent::GameOver { status, reason, .. } = first_of(&fx, "game_over") else {
        unreachable!()
    };
    assert_eq!((*status, *reason), (Status::Draw, EndReason::AgreedDraw));
    let m = match_of(&fx, "game_over");
    assert_eq!(m.points, [0.5, 0.5]);
    assert_eq!(m.status, "between_games");
    // Between games there is no game to draw or resign, only the match.
    let fx = offer(&mut t, &first, Scope::Game);
    assert_eq!(refused(&fx), Some(ErrorCode::NoGame));
    let fx = act(
        &mut t,
        Command::Resign {
            user: first.id.clone(),
            scope: Scope::Game,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoGame));
    let fx = offer(&mut t, &first, Scope::Match);
    assert_eq!(told(&fx, &second.id), ["draw_offered"]);
    assert_eq!(
        scope_of(&fx, "draw_offered"),
        Scope::Match,
        "the other player sees which"
    );
    let fx = answer(&mut t, &second, false);
    assert_eq!(told(&fx, &first.id), ["draw_declined"]);
    assert_eq!(scope_of(&fx, "draw_declined"), Scope::Match);
    act(
        &mut t,
        Command::Start {
            user: first.id.clone(),
        },
        T0,
    );
    let fx = act(
        &mut t,
        Command::Start {
            user: second.id.clone(),
        },
        T0,
    );
    assert!(kinds(&fx).contains(&"game_started"));
    // Resigning the match in a game: the game is lost and counted, then the match.
    let fx = act(
        &mut t,
        Command::Resign {
            user: first.id.clone(),
            scope: Scope::Match,
        },
        T0,
    );
    let TableEvent::GameOver { reason, .. } = first_of(&fx, "game_over") else {
        unreachable!()
    };
    assert_eq!(*reason, EndReason::Resigned);
    assert_eq!(match_of(&fx, "game_over").points, [0.5, 1.5]);
    let TableEvent::MatchOver { reason, winner, .. } = first_of(&fx, "match_over") else {
        unreachable!()
    };
    assert_eq!(*reason, MatchEnd::Resigned);
    assert_eq!(winner.as_ref().map(|w| &w.id), Some(&second.id));
    // A rematch, and in it a draw of the whole match agreed during a game.
    let fx = act(
        &mut t,
        Command::Rematch {
            user: second.id.clone(),
            players_free: true,
        },
        T0,
    );
    assert_eq!(told(&fx, &first.id), ["rematch_offered"]);
    let TableEvent::RematchOffered { from } = first_of(&fx, "rematch_offered") else {
        unreachable!()
    };
    assert_eq!(from.id, second.id);
    let fx = act(
        &mut t,
        Command::Rematch {
            user: first.id.clone(),
            players_free: true,
        },
        T0,
    );
    let again = match_of(&fx, "game_started");
    assert_eq!(u8::from(again.best_of), 5, "the same settings");
    assert_ne!(again.id, started);
    let fx = offer(&mut t, &second, Scope::Match);
    assert_eq!(told(&fx, &first.id), ["draw_offered"]);
    let fx = answer(&mut t, &first, true);
    let TableEvent::GameOver { status, .. } = first_of(&fx, "game_over") else {
        unreachable!()
    };
    assert_eq!(*status, Status::Draw);
    let TableEvent::MatchOver {
        reason,
        winner,
        points,
        ..
    } = first_of(&fx, "match_over")
    else {
        unreachable!()
    };
    assert_eq!(*reason, MatchEnd::AgreedDraw);
    assert_eq!(*winner, None);
    assert_eq!(*points, [0.5, 0.5]);
}
