//! Seats kept (`seats: "kept"`): everyone stays where they sat, lots decide who moves first in
//! a match's first game, and the first move swaps every game; under the default, `lots`, the
//! lots still seat their winner South.

use crate::ayo::Side;
use crate::common::{ErrorCode, Seating, User, UserId};

use super::super::super::matches::Scope;
use super::super::choose;
use super::super::{Command, Effects, Event, Table, TableEvent, Write};
use super::{a_move, choice, draws, house, kinds, person, refused, table, to_move, T0};

/// `user` sits at `seat`, asking for `seats`.
fn sit_asking(t: &mut Table, user: User, seat: Side, seats: Option<&str>) -> Effects {
    t.apply(
        Command::Sit {
            user,
            seat,
            seats: choice(None, None, seats).seats,
        },
        T0,
        draws(),
    )
}

/// The `game_started` among `fx`'s events: its first mover, who won the lots (if they were
/// drawn for it), and its South and North.
fn started(fx: &Effects) -> (Side, Option<UserId>, [UserId; 2]) {
    fx.events
        .iter()
        .find_map(|e| match e {
            Event::Table {
                event:
                    TableEvent::GameStarted {
                        first,
                        lots,
                        players,
                        ..
                    },
                ..
            } => Some((
                *first,
                lots.as_ref().map(|l| l.id.clone()),
                players.clone().map(|p| p.id),
            )),
            _ => None,
        })
        .expect("a game started")
}

/// The `NewGame` stored among `fx`'s writes: its first side.
fn stored_first(fx: &Effects) -> Side {
    fx.writes
        .iter()
        .find_map(|w| match w {
            Write::NewGame(g) => Some(g.first),
            _ => None,
        })
        .expect("a game stored")
}

fn ids(t: &Table) -> [Option<UserId>; 2] {
    t.seats.clone().map(|s| s.map(|u| u.id))
}

/// Ade hosts North under `kept`, best of `best_of`; Bisi sits South: the match starts.
fn kept_hosted_north(t: &mut Table, best_of: u8) -> Effects {
    let fx = sit_asking(t, person("Ade"), Side::North, Some("kept"));
    assert_eq!(refused(&fx), None);
    let fx = t.apply(
        Command::SetMatch {
            user: UserId::new("ade"),
            choice: choice(Some("3+2"), Some(best_of), None),
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), None);
    assert_eq!(
        t.settings.seats,
        Seating::Kept,
        "set_match keeps what sit chose"
    );
    sit_asking(t, person("Bisi"), Side::South, None)
}

#[test]
fn under_kept_nobody_moves_and_lots_pick_either_side_to_move_first() {
    let mut seen = [false, false];
    // Lots decide: over fresh tables both sides must come up.
    for _ in 0..64 {
        let mut t = table();
        let fx = kept_hosted_north(&mut t, 1);
        assert_eq!(refused(&fx), None);
        let (first, lots, players) = started(&fx);
        let (ade, bisi) = (UserId::new("ade"), UserId::new("bisi"));
        assert_eq!(players, [bisi.clone(), ade.clone()], "seats as they sat");
        assert_eq!(ids(&t), [Some(bisi.clone()), Some(ade.clone())]);
        let starter = if first == Side::North { &ade } else { &bisi };
        assert_eq!(lots.as_ref(), Some(starter), "the lots name who starts");
        assert_eq!(stored_first(&fx), first);
        let live = t.game.as_ref().unwrap();
        assert_eq!(live.game.to_move(), Some(first));
        assert_eq!(live.clocks.as_ref().unwrap().running(), Some(first));
        assert_eq!(t.snapshot(T0).game.unwrap().first, first);
        let m = t.r#match.as_ref().unwrap();
        assert_eq!(&m.players[0].id, starter, "the first player starts game 1");
        // The other may not move; the starter may.
        let other = if starter == &ade { &bisi } else { &ade };
        let fx = t.apply(
            Command::Move {
                user: other.clone(),
                pit: crate::ayo::Pit::new(1).unwrap(),
                version: None,
            },
            T0 + 1,
            draws(),
        );
        assert_eq!(refused(&fx), Some(ErrorCode::NotYourTurn));
        let fx = a_move(&mut t, 1, T0 + 1);
        assert_eq!(refused(&fx), None);
        seen[first.index()] = true;
        if seen == [true, true] {
            return;
        }
    }
    panic!("in 64 draws of lots one side never moved first: {seen:?}");
}

/// The player to move resigns the game in play; both press start: the next game begins.
fn next_game_after_resigning(t: &mut Table, resigner: &UserId, now: u64) -> Effects {
    let fx = t.apply(
        Command::Resign {
            user: resigner.clone(),
            scope: Scope::Game,
        },
        now,
        draws(),
    );
    assert_eq!(refused(&fx), None);
    for user in ["ade", "bisi"] {
        t.apply(
            Command::Start {
                user: UserId::new(user),
            },
            now + 1,
            draws(),
        );
    }
    let fx = t.apply(Command::NextGame, now + 2, draws());
    assert_eq!(refused(&fx), None);
    fx
}

#[test]
fn under_kept_the_first_move_swaps_every_game_of_a_best_of_three_and_seats_stay() {
    let mut t = table();
    let fx = kept_hosted_north(&mut t, 3);
    let (first, lots, seats) = started(&fx);
    assert!(lots.is_some());
    // Game 1 to Bisi (Ade resigns), game 2 to Ade: level, so a third game.
    let fx = next_game_after_resigning(&mut t, &UserId::new("ade"), T0 + 10);
    let (second, lots, again) = started(&fx);
    assert_eq!(second, first.opponent(), "the first move swapped");
    assert_eq!(lots, None, "lots are drawn for the first game only");
    assert_eq!(again, seats, "nobody moved");
    assert_eq!(stored_first(&fx), second);
    assert_eq!(t.game.as_ref().unwrap().game.to_move(), Some(second));
    let fx = next_game_after_resigning(&mut t, &UserId::new("bisi"), T0 + 20);
    let (third, _, again) = started(&fx);
    assert_eq!(third, first);
    assert_eq!(again, seats);
    let m = t.r#match.as_ref().unwrap();
    assert_eq!(m.series.points(), [1.0, 1.0]);
    // The score follows the players, not the sides: Bisi won game 1 whatever her side.
    let bisi = m.player(&UserId::new("bisi")).unwrap();
    assert_eq!(
        m.games[0].result.winner().map(|s| seats[s.index()].clone()),
        Some(m.players[bisi].id.clone())
    );
}

#[test]
fn under_kept_the_rematch_keeps_the_seats_and_gives_the_first_move_to_the_other() {
    let mut t = table();
    let fx = kept_hosted_north(&mut t, 1);
    let (first, _, seats) = started(&fx);
    t.apply(
        Command::Resign {
            user: to_move(&t),
            scope: Scope::Match,
        },
        T0 + 1,
        draws(),
    );
    assert!(t.seats.iter().all(Option::is_none), "they stood up");
    for user in ["ade", "bisi"] {
        let fx = t.apply(
            Command::Rematch {
                user: UserId::new(user),
                players_free: true,
            },
            T0 + 2,
            draws(),
        );
        assert_eq!(refused(&fx), None);
        if kinds(&fx).contains(&"game_started") {
            let (again, lots, again_seats) = started(&fx);
            assert_eq!(again, first.opponent());
            assert_eq!(lots, None, "a rematch draws no lots");
            assert_eq!(again_seats, seats);
            return;
        }
    }
    panic!("the rematch did not start");
}

#[test]
fn under_kept_baba_ayo_moves_when_he_starts_from_either_seat() {
    // [he started South, he started North, the player started]
    let mut seen = [false; 3];
    for n in 0..128 {
        let mut t = table();
        let seat = if n % 2 == 0 { Side::North } else { Side::South };
        sit_asking(&mut t, person("Ade"), seat, Some("kept"));
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
        assert_eq!(
            t.seat_of(&UserId::new("ade")),
            Some(seat),
            "Ade keeps his seat"
        );
        let (first, _, _) = started(&fx);
        if first == seat {
            assert!(!fx.house_to_move);
            let fx = a_move(&mut t, 1, T0 + 1);
            assert!(fx.house_to_move, "his turn after the player's move");
            seen[2] = true;
        } else {
            assert!(fx.house_to_move, "he starts: he is asked at once");
            assert_eq!(t.house_to_move().map(|u| u.house), Some(true));
            seen[first.index()] = true;
        }
        if seen == [true; 3] {
            return;
        }
    }
    panic!("in 128 tries not every case came up: {seen:?}");
}

#[test]
fn seats_is_chosen_by_the_host_and_a_bad_or_other_value_is_bad_settings() {
    let mut t = table();
    // A bad value never reaches the table: it is refused as the message is read.
    let bad = choose(None, None, Some("swapped")).unwrap_err();
    assert_eq!(bad.code, ErrorCode::BadSettings);
    assert!(
        bad.message.contains("\"lots\"") && bad.message.contains("\"kept\""),
        "{}",
        bad.message
    );
    assert!(t.seats.iter().all(Option::is_none), "nobody sat");
    sit_asking(&mut t, person("Ade"), Side::South, Some("kept"));
    assert_eq!(t.settings.seats, Seating::Kept);
    let fx = sit_asking(&mut t, person("Bisi"), Side::North, Some("lots"));
    assert_eq!(refused(&fx), Some(ErrorCode::BadSettings), "not the host's");
    let bad = choose(None, None, Some("sideways")).unwrap_err();
    assert_eq!(bad.code, ErrorCode::BadSettings);
    let bad = choose(Some("3+x"), None, None).unwrap_err();
    assert_eq!(bad.code, ErrorCode::BadSettings);
    let bad = choose(None, Some(4), None).unwrap_err();
    assert_eq!(bad.code, ErrorCode::BadSettings);
    let fx = t.apply(
        Command::SetMatch {
            user: UserId::new("ade"),
            choice: choice(None, None, Some("lots")),
        },
        T0,
        draws(),
    );
    assert_eq!(refused(&fx), None);
    assert_eq!(t.settings.seats, Seating::Lots);
    let settings = serde_json::to_value(t.settings).unwrap();
    assert_eq!(settings["seats"], "lots", "{settings}");
    // The same host's value sits down with them.
    let fx = sit_asking(&mut t, person("Bisi"), Side::North, Some("lots"));
    assert_eq!(refused(&fx), None);
    assert!(t.game_in_play());
}

#[test]
fn under_lots_the_winner_sits_south_and_moves_first_as_before() {
    for _ in 0..64 {
        let mut t = table();
        sit_asking(&mut t, person("Ade"), Side::North, None);
        let fx = sit_asking(&mut t, person("Bisi"), Side::South, None);
        let (first, lots, [south, north]) = started(&fx);
        assert_eq!(first, Side::South);
        assert_eq!(lots, Some(south.clone()), "the lots name who became South");
        assert_eq!(ids(&t), [Some(south.clone()), Some(north)]);
        assert_eq!(stored_first(&fx), Side::South);
        if south.as_str() == "ade" {
            return;
        }
    }
    panic!("in 64 draws Ade, who sat North, was never moved South");
}
