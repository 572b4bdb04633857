//! Moves, clocks, draws, the match flow between games and the rematch.

use crate::ayo::Pit;
use crate::common::{ErrorCode, UserId};

use super::super::super::matches::Scope;
use super::super::{Command, Event, Write};
use super::*;

#[test]
fn two_seated_start_a_match_stored_before_it_is_told() {
    let mut t = table();
    let fx = two_seated(&mut t);
    assert!(matches!(fx.writes[0], Write::NewMatch { .. }));
    assert!(matches!(fx.writes[1], Write::NewGame(_)));
    assert_eq!(kinds(&fx), ["table", "table", "game_started"]);
    assert!(t.game_in_play());
    // Every table event carries the version it brings the table to, one apart.
    let versions: Vec<u64> = fx
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Table { version, .. } => Some(*version),
            _ => None,
        })
        .collect();
    assert_eq!(versions, [2, 3, 4]);
    assert_eq!(t.version, 4);
}

#[test]
fn a_move_is_stored_and_told_and_a_move_sent_again_is_answered_not_played() {
    let mut t = table();
    two_seated(&mut t);
    let mover = to_move(&t);
    let seen = t.version;
    let fx = t.apply(
        Command::Move {
            user: mover.clone(),
            pit: Pit::new(3).unwrap(),
            version: Some(seen),
        },
        T0 + 10,
        draws(),
    );
    assert!(matches!(fx.writes[..], [Write::Move { ply: 1, .. }]));
    assert_eq!(kinds(&fx), ["game_state"]);
    // Sent again from the version it was played at: the same reply, the move not played.
    let again = t.apply(
        Command::Move {
            user: mover.clone(),
            pit: Pit::new(3).unwrap(),
            version: Some(seen),
        },
        T0 + 20,
        draws(),
    );
    assert!(again.writes.is_empty());
    assert!(
        matches!(&again.events[..], [Event::Again(to, TableEvent::Moved { version, .. })] if *to == mover && *version == seen + 1)
    );
    assert_eq!(t.game.as_ref().unwrap().game.ply(), 1);
    // The room matches a ref sent again against this reply.
    assert!(matches!(
        t.last_move_of(&mover),
        Some(TableEvent::Moved { version, .. }) if *version == seen + 1
    ));
}

#[test]
fn moves_out_of_turn_out_of_date_or_illegal_are_refused_and_change_nothing() {
    let mut t = table();
    two_seated(&mut t);
    let waiting = t
        .seats
        .iter()
        .flatten()
        .find(|u| u.id != to_move(&t))
        .unwrap()
        .id
        .clone();
    let fx = t.apply(
        Command::Move {
            user: waiting,
            pit: Pit::new(1).unwrap(),
            version: None,
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotYourTurn));
    let fx = t.apply(
        Command::Move {
            user: to_move(&t),
            pit: Pit::new(1).unwrap(),
            version: Some(1),
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::StaleVersion));
    assert_eq!(kinds(&fx), ["table"], "the current table follows");
    let fx = t.apply(
        Command::Move {
            user: UserId::new("chidi"),
            pit: Pit::new(1).unwrap(),
            version: None,
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotSeated));
    assert_eq!(t.game.as_ref().unwrap().game.ply(), 0);
}

#[test]
fn a_clock_running_out_ends_the_game_at_the_tick_after_the_flag() {
    let mut t = table();
    hosted(&mut t, Some("1m"), 1);
    assert_eq!(t.next_deadline(), Some(T0 + 60_000));
    assert!(t.apply(Command::Tick, T0 + 59_999, draws()).is_empty());
    let fx = t.apply(Command::Tick, T0 + 60_000, draws());
    assert_eq!(
        kinds(&fx),
        ["game_over", "match_over", "table"],
        "lost on time, and a best of 1 is over"
    );
    assert!(fx.writes.iter().any(|w| matches!(
        w,
        Write::GameOver {
            reason: crate::ayo::EndReason::Timeout,
            ..
        }
    )));
    assert!(t.rematch.is_some());
}

#[test]
fn a_match_resigned_between_games_ends_and_offers_a_rematch() {
    let mut t = table();
    let host = person("Ade");
    hosted(&mut t, None, 3);
    let fx = t.apply(
        Command::Resign {
            user: host.id.clone(),
            scope: Scope::Game,
        },
        T0 + 5,
        draws(),
    );
    assert_eq!(kinds(&fx), ["game_over", "match_state"]);
    assert!(t.r#match.as_ref().unwrap().between.is_some());
    let fx = t.apply(
        Command::Resign {
            user: host.id,
            scope: Scope::Match,
        },
        T0 + 6,
        draws(),
    );
    assert_eq!(kinds(&fx), ["match_over", "table"]);
    assert!(t.rematch.is_some());
}

#[test]
fn nobody_pressing_start_in_time_ends_the_match_the_leader_winning() {
    let mut t = table();
    let host = person("Ade");
    hosted(&mut t, None, 3);
    t.apply(
        Command::Resign {
            user: host.id,
            scope: Scope::Game,
        },
        T0,
        draws(),
    );
    assert_eq!(t.next_deadline(), Some(T0 + 300_000));
    let fx = t.apply(Command::Tick, T0 + 300_000, draws());
    assert!(kinds(&fx).contains(&"match_over"));
    assert_eq!(
        t.r#match.as_ref().unwrap().winner().unwrap().id,
        UserId::new("bisi")
    );
}

#[test]
fn one_press_then_the_other_starts_the_next_game_with_the_first_move_swapped() {
    let mut t = table();
    let host = person("Ade");
    hosted(&mut t, None, 3);
    let first_south = t.game.as_ref().unwrap().players[0].id.clone();
    t.apply(
        Command::Resign {
            user: host.id.clone(),
            scope: Scope::Game,
        },
        T0,
        draws(),
    );
    let fx = t.apply(Command::Start { user: host.id }, T0 + 1, draws());
    assert_eq!(kinds(&fx), ["match_state"]);
    let fx = t.apply(
        Command::Start {
            user: UserId::new("bisi"),
        },
        T0 + 2,
        draws(),
    );
    assert!(fx.start_next_game && fx.writes.is_empty());
    assert!(t.both_pressed() && t.due(T0 + 2));
    let fx = t.apply(Command::NextGame, T0 + 2, draws());
    assert!(matches!(fx.writes[..], [Write::NewGame(_)]));
    assert_ne!(t.game.as_ref().unwrap().players[0].id, first_south);
}

fn against_the_house(t: &mut super::super::Table, best_of: Option<u8>) {
    t.apply(
        Command::PlayHouse {
            user: person("Ade"),
            house: house(),
            choice: choice(None, best_of, None),
            seated_elsewhere: false,
        },
        T0,
        draws(),
    );
}

fn offer(t: &mut super::super::Table, scope: Scope) -> super::super::Effects {
    t.apply(
        Command::OfferDraw {
            user: person("Ade"),
            scope,
        },
        T0,
        draws(),
    )
}

fn house_answers(t: &mut super::super::Table, version: u64, accept: bool) -> super::super::Effects {
    t.apply(Command::HouseAnswersDraw { version, accept }, T0, draws())
}

#[test]
fn a_draw_offered_to_baba_ayo_waits_for_his_judgement_of_the_table_as_it_was() {
    let mut t = table();
    against_the_house(&mut t, None);
    let fx = offer(&mut t, Scope::Game);
    assert!(fx.house_judges_draw);
    assert!(kinds(&fx).is_empty(), "{:?}", kinds(&fx));
    // An answer judged for an earlier table is no answer.
    let version = t.version;
    assert!(house_answers(&mut t, version - 1, true).is_empty());
    assert!(t.game_in_play());
    // Declined: the one who offered is told, and the offer is gone.
    assert_eq!(
        kinds(&house_answers(&mut t, version, false)),
        ["draw_declined"]
    );
    assert!(house_answers(&mut t, version, true).is_empty());
    assert!(t.game_in_play());
    // Offered again at once: refused, and he is not asked to think again.
    let fx = offer(&mut t, Scope::Game);
    assert_eq!(refused(&fx), Some(ErrorCode::DrawTooSoon));
    assert!(!fx.house_judges_draw);
    // A move later, offered again and taken: the game ends drawn by agreement.
    any_move(&mut t, T0 + 1);
    let fx = offer(&mut t, Scope::Game);
    assert!(fx.house_judges_draw);
    let version = t.version;
    let fx = house_answers(&mut t, version, true);
    assert!(kinds(&fx).contains(&"game_over"), "{:?}", kinds(&fx));
    let live = t.game.as_ref().unwrap();
    assert_eq!(live.game.status(), crate::ayo::Status::Draw);
    assert_eq!(
        live.game.end_reason(),
        Some(crate::ayo::EndReason::AgreedDraw)
    );
}

/// The first legal pit of the game in play.
fn first_legal(t: &super::super::Table) -> crate::ayo::Pit {
    let live = t.game.as_ref().unwrap();
    live.game.legal_moves().iter().next().unwrap()
}

/// The first legal move, by whoever is to move (Baba Ayo's as his own command).
fn any_move(t: &mut super::super::Table, now: u64) -> super::super::Effects {
    let pit = first_legal(t);
    if t.house_to_move().is_some() {
        let version = t.version;
        t.apply(Command::HouseMove { version, pit }, now, draws())
    } else {
        a_move(t, pit.number(), now)
    }
}

#[test]
fn an_offer_waiting_for_baba_ayo_is_not_made_again_and_he_judges_one_at_a_time() {
    let mut t = table();
    against_the_house(&mut t, None);
    assert!(offer(&mut t, Scope::Game).house_judges_draw);
    for scope in [Scope::Game, Scope::Match] {
        let fx = offer(&mut t, scope);
        assert_eq!(refused(&fx), Some(ErrorCode::DrawPending));
        assert!(!fx.house_judges_draw);
    }
}

#[test]
fn a_draw_offer_to_a_person_is_not_sent_again_while_it_waits_or_just_after_a_decline() {
    let mut t = table();
    two_seated(&mut t);
    let offer_of = |t: &mut super::super::Table, who: &str| {
        t.apply(
            Command::OfferDraw {
                user: person(who),
                scope: Scope::Game,
            },
            T0,
            draws(),
        )
    };
    assert_eq!(kinds(&offer_of(&mut t, "Ade")), ["draw_offered"]);
    let fx = offer_of(&mut t, "Ade");
    assert_eq!(refused(&fx), Some(ErrorCode::DrawPending));
    assert!(kinds(&fx).is_empty(), "Bisi is not asked twice");
    let fx = t.apply(
        Command::AnswerDraw {
            user: UserId::new("bisi"),
            accept: false,
        },
        T0,
        draws(),
    );
    assert_eq!(kinds(&fx), ["draw_declined"]);
    let fx = offer_of(&mut t, "Ade");
    assert_eq!(refused(&fx), Some(ErrorCode::DrawTooSoon));
    assert!(kinds(&fx).is_empty());
    // Bisi may still offer; Ade again once a move is made.
    assert_eq!(kinds(&offer_of(&mut t, "Bisi")), ["draw_offered"]);
    any_move(&mut t, T0 + 1);
    assert_eq!(kinds(&offer_of(&mut t, "Ade")), ["draw_offered"]);
}

#[test]
fn a_match_level_with_baba_ayo_is_judged_by_its_game_in_play() {
    let mut t = table();
    against_the_house(&mut t, Some(3));
    let fx = offer(&mut t, Scope::Match);
    assert!(fx.house_judges_draw);
    let version = t.version;
    let fx = house_answers(&mut t, version, true);
    assert!(kinds(&fx).contains(&"match_over"), "{:?}", kinds(&fx));
    assert!(!t.match_in_play());
}

#[test]
fn a_draw_agreed_ends_the_game_drawn() {
    let mut t = table();
    two_seated(&mut t);
    let fx = t.apply(
        Command::OfferDraw {
            user: person("Ade"),
            scope: Scope::Game,
        },
        T0,
        draws(),
    );
    assert_eq!(kinds(&fx), ["draw_offered"]);
    let fx = t.apply(
        Command::AnswerDraw {
            user: UserId::new("ade"),
            accept: true,
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoDrawOffer), "not one's own");
    let fx = t.apply(
        Command::AnswerDraw {
            user: UserId::new("bisi"),
            accept: true,
        },
        T0,
        draws(),
    );
    assert!(kinds(&fx).contains(&"game_over"));
    assert_eq!(
        t.game.as_ref().unwrap().game.status(),
        crate::ayo::Status::Draw
    );
}

#[test]
fn a_move_by_the_one_offered_a_draw_declines_it_and_the_offerers_own_withdraws_it() {
    let mut t = table();
    two_seated(&mut t);
    let mover = to_move(&t);
    let offerer = if mover.as_str() == "ade" {
        "bisi"
    } else {
        "ade"
    };
    let fx = t.apply(
        Command::OfferDraw {
            user: person(if offerer == "ade" { "Ade" } else { "Bisi" }),
            scope: Scope::Game,
        },
        T0,
        draws(),
    );
    assert_eq!(kinds(&fx), ["draw_offered"]);
    // The one offered plays on: the offerer is told the draw was declined.
    let fx = a_move(&mut t, 3, T0 + 1);
    assert_eq!(kinds(&fx), ["draw_declined", "game_state"]);
    assert!(matches!(&fx.events[0], Event::To(to, _) if to.as_str() == offerer));
    let fx = t.apply(
        Command::AnswerDraw {
            user: mover.clone(),
            accept: true,
        },
        T0 + 2,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoDrawOffer), "gone");
    // The offerer offers and moves: withdrawn, nobody is told anything but the move.
    let now_to_move = to_move(&t);
    assert_eq!(now_to_move.as_str(), offerer);
    t.apply(
        Command::OfferDraw {
            user: person(if offerer == "ade" { "Ade" } else { "Bisi" }),
            scope: Scope::Game,
        },
        T0 + 3,
        draws(),
    );
    let fx = a_move(&mut t, 3, T0 + 4);
    assert_eq!(kinds(&fx), ["game_state"]);
}

#[test]
fn baba_ayo_moving_while_he_judges_a_draw_declines_it() {
    let mut t = table();
    against_the_house(&mut t, None);
    if t.house_to_move().is_none() {
        a_move(&mut t, 3, T0);
    }
    let fx = offer(&mut t, Scope::Game);
    assert!(fx.house_judges_draw);
    let (version, house) = (t.version, t.house_to_move().unwrap().id.clone());
    let pit = first_legal(&t);
    let fx = t.apply(Command::HouseMove { version, pit }, T0 + 1, draws());
    assert_eq!(kinds(&fx)[..2], ["draw_declined", "game_state"]);
    assert!(matches!(&fx.events[0], Event::To(to, _) if to.as_str() == "ade"));
    // His judgement, come late, is for a table that has moved on.
    assert!(house_answers(&mut t, version, true).is_empty());
    assert!(t.game_in_play());
    assert_ne!(to_move(&t), house);
}

#[test]
fn a_rematch_after_a_match_starts_with_both_presses() {
    let mut t = table();
    two_seated(&mut t);
    t.apply(
        Command::Resign {
            user: UserId::new("ade"),
            scope: Scope::Match,
        },
        T0,
        draws(),
    );
    let fx = t.apply(
        Command::Rematch {
            user: UserId::new("ade"),
            players_free: true,
        },
        T0 + 1,
        draws(),
    );
    assert_eq!(kinds(&fx), ["table", "rematch_offered"]);
    // Pressed again and again: nothing changes, nobody hears anything more.
    for n in 0..5 {
        let fx = t.apply(
            Command::Rematch {
                user: UserId::new("ade"),
                players_free: true,
            },
            T0 + 1 + n,
            draws(),
        );
        assert_eq!((refused(&fx), kinds(&fx).len()), (None, 0));
    }
    let fx = t.apply(
        Command::Rematch {
            user: UserId::new("bisi"),
            players_free: true,
        },
        T0 + 2,
        draws(),
    );
    assert!(matches!(fx.writes[0], Write::NewMatch { .. }));
    assert!(t.game_in_play());
    // A rematch not taken up in time is off.
    let mut t = table();
    two_seated(&mut t);
    t.apply(
        Command::Resign {
            user: UserId::new("ade"),
            scope: Scope::Match,
        },
        T0,
        draws(),
    );
    t.apply(Command::Tick, T0 + 120_000, draws());
    assert!(t.rematch.is_none());
}
