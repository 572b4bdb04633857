//! The queue at a table: joining and leaving, calls to a free seat and their time, the
//! winner staying on and their limit, draws, a guest who went, and the table closing.

use crate::ayo::Side;
use crate::common::{ErrorCode, RoomKind, User};

use super::super::super::hotel::CloseGames;
use super::super::super::matches::Scope;
use super::super::{Command, Departure, TableEvent, Unqueued};
use super::*;

fn lounge_table() -> Table {
    table().in_room_of(RoomKind::Lounge)
}

fn queue(t: &mut Table, user: &User) -> Effects {
    act(
        t,
        Command::Queue {
            user: user.clone(),
            seated_elsewhere: false,
        },
        T0,
    )
}

fn waiting(t: &Table) -> Vec<String> {
    t.queue.waiting.iter().map(|u| u.name.clone()).collect()
}

fn called(t: &Table) -> Vec<(String, Side)> {
    t.queue
        .called
        .iter()
        .map(|c| (c.user.name.clone(), c.seat))
        .collect()
}

fn seated(t: &Table) -> [Option<String>; 2] {
    t.seats.clone().map(|s| s.map(|u| u.name))
}

/// `loser` resigns the match in play.
fn resigns(t: &mut Table, loser: &User) -> Effects {
    act(
        t,
        Command::Resign {
            user: loser.id.clone(),
            scope: Scope::Match,
        },
        T0,
    )
}

fn sit_at(t: &mut Table, user: &User, seat: Side, now: u64) -> Effects {
    act(
        t,
        Command::Sit {
            user: user.clone(),
            seat,
            seats: None,
        },
        now,
    )
}

/// The seat the user was called to.
fn call_of(t: &Table, user: &User) -> Side {
    t.queue
        .called
        .iter()
        .find(|c| c.user.id == user.id)
        .map(|c| c.seat)
        .unwrap_or_else(|| panic!("{} is not called: {:?}", user.name, called(t)))
}

#[test]
fn a_lounge_table_has_a_queue_and_a_home_board_only_when_its_owner_says() {
    assert!(lounge_table().queue.on);
    let home = table().in_room_of(RoomKind::Apartment);
    assert!(!home.queue.on);
    let mut home = home.with_queue(None);
    let fx = queue(&mut home, &person("Ade"));
    assert_eq!(refused(&fx), Some(ErrorCode::QueueOff));
    let fx = act(&mut home, Command::SetQueue { on: true }, T0);
    assert_eq!(kinds(&fx), ["table"]);
    assert_eq!(refused(&queue(&mut home, &person("Ade"))), None);
    // Turned off again: everyone in it is told and the queue is empty.
    let fx = act(&mut home, Command::SetQueue { on: false }, T0);
    assert_eq!(told(&fx, &person("Ade").id), ["queue_left"]);
    assert!(!home.queue.busy());
    assert!(home.snapshot(T0).queue.is_none(), "no queue shown");
}

#[test]
fn a_guest_queued_at_a_free_table_is_called_to_a_seat_and_takes_it() {
    let mut t = lounge_table();
    let (ade, bisi, chidi) = (person("Ade"), person("Bisi"), person("Chidi"));
    let fx = queue(&mut t, &ade);
    assert_eq!(told(&fx, &ade.id), ["queue_called"]);
    assert_eq!(called(&t), [("Ade".to_owned(), Side::South)]);
    assert_eq!(t.next_deadline(), Some(T0 + 20_000));
    // Someone not in the queue may not take the other seat while anyone waits or is called.
    queue(&mut t, &bisi);
    assert_eq!(called(&t).len(), 2);
    let fx = sit_at(&mut t, &chidi, Side::North, T0);
    assert_eq!(refused(&fx), Some(ErrorCode::SeatTaken));
    let fx = sit_at(&mut t, &chidi, Side::South, T0);
    assert_eq!(refused(&fx), Some(ErrorCode::SeatTaken));
    // A called guest sits at their seat; when both have, the match starts.
    sit_at(&mut t, &ade, Side::South, T0);
    let fx = sit_at(&mut t, &bisi, Side::North, T0);
    assert!(kinds(&fx).contains(&"game_started"));
    assert!(!t.queue.busy());
    // Queued twice is queued once; unqueue takes one out; unqueue again is refused.
    queue(&mut t, &chidi);
    queue(&mut t, &chidi);
    assert_eq!(waiting(&t), ["Chidi"]);
    let fx = act(
        &mut t,
        Command::Unqueue {
            user: chidi.id.clone(),
            why: Unqueued::Asked,
        },
        T0,
    );
    assert_eq!(told(&fx, &chidi.id), ["queue_left"]);
    let fx = act(
        &mut t,
        Command::Unqueue {
            user: chidi.id.clone(),
            why: Unqueued::Asked,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotQueued));
}

#[test]
fn a_player_or_a_guest_seated_elsewhere_does_not_queue_and_the_queue_has_a_limit() {
    let mut t = lounge_table();
    two_seated(&mut t);
    assert_eq!(
        refused(&queue(&mut t, &person("Ade"))),
        Some(ErrorCode::AlreadySeated)
    );
    let fx = act(
        &mut t,
        Command::Queue {
            user: person("Chidi"),
            seated_elsewhere: true,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::AlreadySeated));
    for n in 0..super::super::MAX_WAITING {
        assert_eq!(refused(&queue(&mut t, &person(&format!("G{n}")))), None);
    }
    assert_eq!(
        refused(&queue(&mut t, &person("Late"))),
        Some(ErrorCode::QueueFull)
    );
}

#[test]
fn the_winner_stays_on_and_the_first_waiting_is_called_opposite() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let (ade, bisi, chidi, dayo) = (
        person("Ade"),
        person("Bisi"),
        person("Chidi"),
        person("Dayo"),
    );
    queue(&mut t, &chidi);
    queue(&mut t, &dayo);
    assert_eq!(
        waiting(&t),
        ["Chidi", "Dayo"],
        "nobody is called while a match is in play"
    );
    let fx = resigns(&mut t, &bisi);
    assert!(kinds(&fx).contains(&"match_over"));
    let ade_seat = t.seat_of(&ade.id).expect("the winner keeps a seat");
    assert!(t.seat_of(&bisi.id).is_none(), "the loser stands");
    assert!(t.rematch.is_none(), "no rematch while guests wait");
    assert_eq!(told(&fx, &chidi.id), ["queue_called"]);
    assert_eq!(call_of(&t, &chidi), ade_seat.opponent());
    assert_eq!(t.queue.streak.as_ref().map(|s| s.wins), Some(1));
    let fx = sit_at(&mut t, &chidi, ade_seat.opponent(), T0);
    assert!(kinds(&fx).contains(&"game_started"));
    assert_eq!(waiting(&t), ["Dayo"]);
}

#[test]
fn after_three_wins_in_a_row_the_winner_stands_too() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let ade = person("Ade");
    let mut loser = person("Bisi");
    for n in 1..=3 {
        let next = person(&format!("Q{n}"));
        queue(&mut t, &next);
        queue(&mut t, &person(&format!("R{n}")));
        resigns(&mut t, &loser);
        if n < 3 {
            assert!(t.seat_of(&ade.id).is_some(), "win {n}: Ade stays on");
            assert_eq!(t.queue.streak.as_ref().map(|s| s.wins), Some(n));
            let seat = call_of(&t, &next);
            let fx = sit_at(&mut t, &next, seat, T0);
            assert!(kinds(&fx).contains(&"game_started"));
            // R{n} waits on; the next round's Q goes behind them.
            let r = person(&format!("R{n}"));
            act(
                &mut t,
                Command::Unqueue {
                    user: r.id,
                    why: Unqueued::Asked,
                },
                T0,
            );
            loser = next;
        }
    }
    assert_eq!(
        seated(&t),
        [None, None],
        "the third straight win: Ade stands too"
    );
    assert!(t.queue.streak.is_none());
    assert_eq!(called(&t).len(), 2, "the next two are called");
}

#[test]
fn a_drawn_match_sends_both_players_up_and_calls_the_next_two() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let (ade, bisi, chidi, dayo) = (
        person("Ade"),
        person("Bisi"),
        person("Chidi"),
        person("Dayo"),
    );
    queue(&mut t, &chidi);
    queue(&mut t, &dayo);
    act(
        &mut t,
        Command::OfferDraw {
            user: ade.clone(),
            scope: Scope::Match,
        },
        T0,
    );
    let fx = act(
        &mut t,
        Command::AnswerDraw {
            user: bisi.id.clone(),
            accept: true,
        },
        T0,
    );
    assert!(kinds(&fx).contains(&"match_over"));
    assert_eq!(seated(&t), [None, None]);
    assert_eq!(
        called(&t),
        [
            ("Chidi".to_owned(), Side::South),
            ("Dayo".to_owned(), Side::North)
        ]
    );
    assert!(t.queue.streak.is_none());
}

#[test]
fn a_call_not_taken_in_time_loses_the_place_and_the_next_is_called() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let (bisi, chidi, dayo) = (person("Bisi"), person("Chidi"), person("Dayo"));
    queue(&mut t, &chidi);
    queue(&mut t, &dayo);
    resigns(&mut t, &bisi);
    let seat = call_of(&t, &chidi);
    assert!(!t.due(T0 + 19_999));
    assert!(t.due(T0 + 20_000));
    let fx = act(&mut t, Command::Tick, T0 + 20_000);
    assert_eq!(told(&fx, &chidi.id), ["queue_left"]);
    assert_eq!(told(&fx, &dayo.id), ["queue_called"]);
    assert_eq!(call_of(&t, &dayo), seat);
    assert!(!t.queue.holds(&chidi.id));
    let fx = sit_at(&mut t, &chidi, seat, T0 + 20_001);
    assert_eq!(refused(&fx), Some(ErrorCode::SeatTaken));
}

#[test]
fn a_queued_guest_who_leaves_or_drops_loses_the_place() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let (chidi, dayo) = (person("Chidi"), person("Dayo"));
    queue(&mut t, &chidi);
    queue(&mut t, &dayo);
    let fx = act(
        &mut t,
        Command::Depart {
            user: chidi.id.clone(),
            why: Departure::Gone,
        },
        T0,
    );
    assert_eq!(told(&fx, &chidi.id), ["queue_left"]);
    let TableEvent::Unqueued { why } = fx
        .events
        .iter()
        .map(event_of)
        .find(|e| matches!(e, TableEvent::Unqueued { .. }))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(*why, Unqueued::Gone);
    assert_eq!(waiting(&t), ["Dayo"]);
}

#[test]
fn the_queue_ends_when_the_room_closes_and_nobody_is_called_there() {
    let mut t = lounge_table();
    two_seated(&mut t);
    let (bisi, chidi) = (person("Bisi"), person("Chidi"));
    queue(&mut t, &chidi);
    let fx = act(
        &mut t,
        Command::Shut {
            games: CloseGames::Finish,
        },
        T0,
    );
    assert_eq!(told(&fx, &chidi.id), ["queue_left"]);
    assert!(!t.queue.busy());
    let fx = queue(&mut t, &chidi);
    assert_eq!(refused(&fx), Some(ErrorCode::RoomClosing));
    resigns(&mut t, &bisi);
    assert_eq!(seated(&t), [None, None]);
}

#[test]
fn baba_ayo_never_stays_on_and_nobody_plays_him_at_a_table_with_a_queue() {
    let mut t = lounge_table();
    let ade = person("Ade");
    let fx = act(
        &mut t,
        Command::PlayHouse {
            user: ade.clone(),
            house: house(),
            choice: choice(None, Some(1), None),
            seated_elsewhere: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    let chidi = person("Chidi");
    queue(&mut t, &chidi);
    resigns(&mut t, &ade);
    assert_eq!(seated(&t), [None, None], "Baba Ayo stands, and so does Ade");
    assert_eq!(called(&t).len(), 1);
    let fx = act(
        &mut t,
        Command::PlayHouse {
            user: person("Dayo"),
            house: house(),
            choice: choice(None, Some(1), None),
            seated_elsewhere: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::QueueFirst));
}

#[test]
fn without_anyone_waiting_a_match_ends_as_it_always_has() {
    let mut t = lounge_table();
    two_seated(&mut t);
    resigns(&mut t, &person("Bisi"));
    assert_eq!(seated(&t), [None, None]);
    assert!(t.rematch.is_some(), "the rematch is on offer");
    // Someone queuing during the rematch's offer waits for it to lapse.
    let chidi = person("Chidi");
    let fx = queue(&mut t, &chidi);
    assert!(told(&fx, &chidi.id).is_empty());
    let fx = act(&mut t, Command::Tick, T0 + 120_000);
    assert_eq!(told(&fx, &chidi.id), ["queue_called"]);
}

#[test]
fn a_tournament_game_keeps_nobody_on_and_a_winner_who_stands_loses_the_streak() {
    let mut t = lounge_table();
    let fx = act(
        &mut t,
        Command::Pair {
            players: [person("Ade"), person("Bisi")],
            choice: choice(Some("5m"), Some(1), None),
            rematch: false,
            berserk: false,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    queue(&mut t, &person("Chidi"));
    resigns(&mut t, &person("Bisi"));
    assert_eq!(
        seated(&t),
        [None, None],
        "a tournament's players go back to it"
    );
    assert!(t.queue.streak.is_none());

    // A winner staying on who stands up takes their streak with them.
    let mut t = lounge_table();
    two_seated(&mut t);
    queue(&mut t, &person("Dayo"));
    resigns(&mut t, &person("Bisi"));
    assert!(t.queue.streak.is_some());
    act(
        &mut t,
        Command::Stand {
            user: person("Ade").id,
        },
        T0,
    );
    assert!(t.queue.streak.is_none());
}
