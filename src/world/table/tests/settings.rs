//! How a match is played is the host's choice: checked as a client sends it, chosen only
//! while seated and before the opponent sits, and kept for the match.

use crate::ayo::clock::TimeControl;
use crate::ayo::Side;
use crate::common::{ErrorCode, UserId};

use super::super::{choose, Command, TableEvent};
use super::*;

#[test]
fn match_settings_are_checked_and_chosen_by_the_host_only() {
    let mut t = table();
    let ade = person("Ade");
    let set = |user: &UserId, clock, best_of| Command::SetMatch {
        user: user.clone(),
        choice: choice(clock, best_of, None),
    };
    let fx = act(&mut t, set(&ade.id, Some("3+2"), None), T0);
    assert_eq!(refused(&fx), Some(ErrorCode::NotSeated));
    sit(&mut t, ade.clone(), Side::South);
    for ((clock, best_of), needle) in [
        ((Some("2d"), None), "a day"),
        ((Some("fast"), None), "not a time control"),
        ((None, Some(4)), "best of 1, 3, 5 or 7"),
    ] {
        let bad = choose(clock, best_of, None).unwrap_err();
        assert_eq!(bad.code, ErrorCode::BadSettings);
        assert!(bad.message.contains(needle), "{}", bad.message);
    }
    let fx = act(&mut t, set(&ade.id, Some("10m"), Some(7)), T0);
    let TableEvent::Changed(table) = first_of(&fx, "table") else {
        unreachable!()
    };
    assert_eq!(table.settings.clock, TimeControl::PerMove { seconds: 600 });
    assert_eq!(u8::from(table.settings.best_of), 7);
    let bisi = person("Bisi");
    let fx = sit(&mut t, bisi.clone(), Side::North);
    assert_eq!(u8::from(match_of(&fx, "game_started").best_of), 7);
    let fx = act(
        &mut t,
        Command::Start {
            user: bisi.id.clone(),
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotBetweenGames));
    let fx = act(&mut t, set(&bisi.id, None, Some(1)), T0);
    assert_eq!(refused(&fx), Some(ErrorCode::GameInPlay));
}

/// What `Write::NewMatch` stores of a match's settings: whether it is rated.
fn new_match_rated(fx: &super::super::Effects) -> bool {
    fx.writes
        .iter()
        .find_map(|w| match w {
            super::super::Write::NewMatch { settings, .. } => Some(settings.rated),
            _ => None,
        })
        .expect("a match starts")
}

#[test]
fn a_lounge_table_is_rated_and_a_home_board_casual_until_the_host_chooses() {
    use crate::common::RoomKind;
    for (kind, by_default) in [(RoomKind::Lounge, true), (RoomKind::Apartment, false)] {
        let mut t = table().in_room_of(kind);
        assert_eq!(t.settings.rated, by_default, "{kind}");
        let fx = two_seated(&mut t);
        assert_eq!(new_match_rated(&fx), by_default, "{kind}");

        // The host chooses the other.
        let mut t = table().in_room_of(kind);
        let ade = person("Ade");
        sit(&mut t, ade.clone(), Side::South);
        let fx = act(
            &mut t,
            Command::SetMatch {
                user: ade.id.clone(),
                choice: super::super::MatchChoice {
                    rated: Some(!by_default),
                    ..choice(None, None, None)
                },
            },
            T0,
        );
        let TableEvent::Changed(shown) = first_of(&fx, "table") else {
            unreachable!()
        };
        assert_eq!(shown.settings.rated, !by_default, "{kind}");
        let fx = sit(&mut t, person("Bisi"), Side::North);
        assert_eq!(new_match_rated(&fx), !by_default, "{kind}");
    }
}

#[test]
fn a_match_against_baba_ayo_is_never_rated() {
    let mut t = table().in_room_of(crate::common::RoomKind::Lounge);
    let fx = act(
        &mut t,
        Command::PlayHouse {
            user: person("Ade"),
            house: house(),
            choice: super::super::MatchChoice {
                rated: Some(true),
                ..choice(None, None, None)
            },
            seated_elsewhere: false,
        },
        T0,
    );
    assert!(!new_match_rated(&fx));
}
