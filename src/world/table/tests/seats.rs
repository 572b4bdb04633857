//! Sitting, invitations, Baba Ayo sitting down, departures and a closing room.

use crate::ayo::{Pit, Side};
use crate::common::{ErrorCode, InvitationId, UserId};

use super::super::super::hotel::CloseGames;
use super::super::{Command, Departure, Write};
use super::*;

#[test]
fn a_seat_taken_or_a_game_in_play_refuses_a_newcomer() {
    let mut t = table();
    two_seated(&mut t);
    let fx = sit(&mut t, person("Chidi"), Side::South);
    assert_eq!(refused(&fx), Some(ErrorCode::GameInPlay));
    assert!(fx.writes.is_empty() && fx.events.is_empty());
}

#[test]
fn an_invitation_expires_on_the_clock_and_both_are_told() {
    let mut t = table();
    let (ade, bisi) = (person("Ade"), person("Bisi"));
    sit(&mut t, ade.clone(), Side::South);
    let id = InvitationId::new("inv1");
    let fx = t.apply(
        Command::Invite {
            from: ade.clone(),
            to: bisi.id.clone(),
            id: id.clone(),
            to_present: true,
        },
        T0,
        draws(),
    );
    assert_eq!(kinds(&fx), ["invitation", "invitation_sent"]);
    assert!(t.invites(&id, &bisi.id));
    assert!(t.apply(Command::Tick, T0 + 59_999, draws()).is_empty());
    let fx = t.apply(Command::Tick, T0 + 60_000, draws());
    assert_eq!(kinds(&fx), ["invitation_expired", "invitation_expired"]);
    let fx = t.apply(
        Command::Respond {
            user: bisi,
            invitation: id,
            accept: true,
            seated: false,
        },
        T0 + 60_001,
        draws(),
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoSuchInvitation));
}

#[test]
fn an_accepted_invitation_starts_the_match_under_the_settings_it_promised() {
    let mut t = table();
    let (ade, bisi) = (person("Ade"), person("Bisi"));
    sit(&mut t, ade.clone(), Side::South);
    t.apply(
        Command::SetMatch {
            user: ade.id.clone(),
            choice: choice(Some("3+2"), Some(3), None),
        },
        T0,
        draws(),
    );
    let id = InvitationId::new("inv1");
    t.apply(
        Command::Invite {
            from: ade,
            to: bisi.id.clone(),
            id: id.clone(),
            to_present: true,
        },
        T0,
        draws(),
    );
    let fx = t.apply(
        Command::Respond {
            user: bisi,
            invitation: id,
            accept: true,
            seated: false,
        },
        T0 + 1,
        draws(),
    );
    assert_eq!(refused(&fx), None);
    let m = t.r#match.as_ref().unwrap();
    assert_eq!(u8::from(m.settings.best_of), 3);
    assert_eq!(m.settings.clock.to_string(), "3+2");
}

#[test]
fn a_player_gone_keeps_the_seat_of_a_match_in_play_and_the_grace_decides() {
    let mut t = table();
    two_seated(&mut t);
    let fx = t.apply(
        Command::Depart {
            user: UserId::new("ade"),
            why: Departure::Gone,
        },
        T0,
        draws(),
    );
    assert!(fx.events.is_empty(), "nothing happens until the grace ends");
    assert!(t.seat_of(&UserId::new("ade")).is_some());
    let fx = t.apply(
        Command::Depart {
            user: UserId::new("ade"),
            why: Departure::GraceOver(vec![UserId::new("ade")]),
        },
        T0 + 60_000,
        draws(),
    );
    assert!(kinds(&fx).contains(&"game_over"));
    assert!(fx.writes.iter().any(|w| matches!(
        w,
        Write::GameOver {
            reason: crate::ayo::EndReason::Abandoned,
            ..
        }
    )));
    let winner = t.r#match.as_ref().unwrap().winner().unwrap().id.clone();
    assert_eq!(winner, UserId::new("bisi"));
    assert!(t.seat_of(&UserId::new("ade")).is_none());
}

#[test]
fn both_away_past_their_grace_blames_nobody() {
    let mut t = table();
    two_seated(&mut t);
    let gone = vec![UserId::new("ade"), UserId::new("bisi")];
    t.apply(
        Command::Depart {
            user: gone[0].clone(),
            why: Departure::GraceOver(gone),
        },
        T0 + 60_000,
        draws(),
    );
    let m = t.r#match.as_ref().unwrap();
    assert!(m.is_over());
    assert_eq!(m.winner(), None);
    assert!(t.seats.iter().all(Option::is_none));
}

#[test]
fn leaving_resigns_the_match_and_no_rematch_waits_for_one_who_left() {
    let mut t = table();
    two_seated(&mut t);
    t.apply(
        Command::Depart {
            user: UserId::new("ade"),
            why: Departure::Left,
        },
        T0,
        draws(),
    );
    let m = t.r#match.as_ref().unwrap();
    assert_eq!(m.winner().unwrap().id, UserId::new("bisi"));
    assert!(t.rematch.is_none());
    assert!(t.seats.iter().all(Option::is_none));
}

#[test]
fn baba_ayo_sits_opposite_and_is_asked_to_move_when_it_is_his_turn() {
    let mut t = table();
    let mut asked = false;
    // Lots decide who moves first: ask until he does (each try is a fresh table).
    for _ in 0..64 {
        t = table();
        let fx = t.apply(
            Command::PlayHouse {
                user: person("Ade"),
                house: house(),
                choice: choice(None, None, None),
                seated_elsewhere: false,
            },
            T0,
            draws(),
        );
        assert_eq!(refused(&fx), None);
        if fx.house_to_move {
            asked = true;
            break;
        }
        // He moves second: the player's move hands him the turn.
        let fx = a_move(&mut t, 1, T0 + 1);
        assert!(fx.house_to_move);
    }
    assert!(asked, "in 64 tries Baba Ayo moved first at least once");
    let version = t.version;
    let fx = t.apply(
        Command::HouseMove {
            version: version - 1,
            pit: Pit::new(1).unwrap(),
        },
        T0 + 2,
        draws(),
    );
    assert!(
        fx.is_empty(),
        "a move thought out for an older table is dropped"
    );
    let fx = t.apply(
        Command::HouseMove {
            version,
            pit: Pit::new(1).unwrap(),
        },
        T0 + 2,
        draws(),
    );
    assert_eq!(kinds(&fx), ["game_state"]);
}

#[test]
fn a_closing_room_calls_its_matches_off_and_offers_no_rematch() {
    let mut t = table();
    two_seated(&mut t);
    let fx = t.apply(
        Command::Shut {
            games: CloseGames::End,
        },
        T0,
        draws(),
    );
    assert!(kinds(&fx).contains(&"match_over"));
    assert!(!t.match_in_play());
    assert!(t.rematch.is_none());
    let fx = sit(&mut t, person("Chidi"), Side::South);
    assert_eq!(
        refused(&fx),
        None,
        "the room refuses new games, not the table"
    );
}
