//! Two guests the pool paired, seated and started in one command.

use crate::ayo::clock::TimeControl;
use crate::ayo::Side;
use crate::common::{ErrorCode, Seating};

use super::super::super::hotel::CloseGames;
use super::super::super::matches::{MatchChoice, MatchSettings};
use super::super::{Command, Write};
use super::*;

fn paired_choice(rated: bool) -> MatchChoice {
    MatchChoice {
        rated: Some(rated),
        best_of: Some(Default::default()),
        seats: Some(Seating::Lots),
        ..choice(Some("3+2"), None, None)
    }
}

fn pair(t: &mut Table, rated: bool) -> Effects {
    act(
        t,
        Command::Pair {
            players: [person("Ade"), person("Bisi")],
            choice: paired_choice(rated),
            rematch: true,
            berserk: false,
        },
        T0,
    )
}

fn stored(fx: &Effects) -> MatchSettings {
    fx.writes
        .iter()
        .find_map(|w| match w {
            Write::NewMatch { settings, .. } => Some(*settings),
            _ => None,
        })
        .expect("a match starts")
}

#[test]
fn a_pair_sits_down_and_their_match_starts_as_asked() {
    for rated in [true, false] {
        let mut t = table();
        let fx = pair(&mut t, rated);
        assert_eq!(refused(&fx), None);
        assert!(kinds(&fx).contains(&"game_started"));
        let settings = stored(&fx);
        assert_eq!(settings.rated, rated);
        assert_eq!(
            settings.clock,
            TimeControl::Game {
                minutes: 3,
                increment_seconds: 2
            }
        );
        assert!(t.match_in_play());
        let seated: Vec<_> = Side::BOTH
            .into_iter()
            .filter_map(|s| t.seats[s.index()].as_ref().map(|u| u.name.clone()))
            .collect();
        assert_eq!(seated.len(), 2);
        assert!(seated.contains(&"Ade".to_owned()) && seated.contains(&"Bisi".to_owned()));
        assert!(!t.is_free());
    }
}

#[test]
fn a_table_someone_sits_at_or_plays_at_is_not_free() {
    let mut t = table();
    sit(&mut t, person("Chidi"), Side::South);
    assert!(!t.is_free());
    assert_eq!(refused(&pair(&mut t, true)), Some(ErrorCode::TableBusy));
    assert_eq!(t.seats[1], None, "nobody was seated");

    let mut t = table();
    two_seated(&mut t);
    let fx = pair(&mut t, true);
    assert_eq!(refused(&fx), Some(ErrorCode::TableBusy));
    assert!(fx.writes.is_empty());
}

#[test]
fn a_closing_room_pairs_nobody() {
    let mut t = table();
    t.apply(
        Command::Shut {
            games: CloseGames::Finish,
        },
        T0,
        draws(),
    );
    assert!(!t.is_free());
    assert_eq!(refused(&pair(&mut t, true)), Some(ErrorCode::RoomClosing));
}

#[test]
fn a_pair_is_two_guests() {
    let mut t = table();
    let fx = act(
        &mut t,
        Command::Pair {
            players: [person("Ade"), person("Ade")],
            choice: paired_choice(true),
            rematch: true,
            berserk: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::BadSettings));
    let fx = act(
        &mut t,
        Command::Pair {
            players: [person("Ade"), house()],
            choice: paired_choice(true),
            rematch: true,
            berserk: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::BadSettings));
    assert!(t.is_free());
}

#[test]
fn after_the_last_match_and_its_rematch_the_table_is_free_again() {
    let mut t = table();
    pair(&mut t, true);
    let ade = t.seats[0].clone().unwrap();
    act(
        &mut t,
        Command::Resign {
            user: ade.id,
            scope: crate::world::matches::Scope::Match,
        },
        T0 + 1,
    );
    assert!(!t.match_in_play());
    assert!(t.rematch.is_some());
    assert!(
        !t.is_free(),
        "the rematch's players have first call on the table"
    );
    act(&mut t, Command::Tick, T0 + 1 + 120_000);
    assert!(t.rematch.is_none());
    assert!(t.is_free());
}

#[test]
fn a_tournament_pairing_offers_no_rematch_and_the_table_is_free_again() {
    let mut t = table();
    let fx = act(
        &mut t,
        Command::Pair {
            players: [person("Ade"), person("Bisi")],
            choice: paired_choice(false),
            rematch: false,
            berserk: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    let fx = act(
        &mut t,
        Command::Resign {
            user: person("Bisi").id,
            scope: crate::world::matches::Scope::Match,
        },
        T0,
    );
    assert!(kinds(&fx).contains(&"match_over"));
    assert!(t.rematch.is_none());
    assert!(t.is_free());
}

#[test]
fn a_table_whose_queue_has_someone_is_theirs_first() {
    let mut t = table().in_room_of(crate::common::RoomKind::Lounge);
    assert!(t.is_free());
    let fx = act(
        &mut t,
        Command::Queue {
            user: person("Chidi"),
            seated_elsewhere: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    assert!(!t.is_free());
    assert_eq!(refused(&pair(&mut t, true)), Some(ErrorCode::TableBusy));
}
