//! The table's rules without tasks, sockets or a database: each test applies commands at
//! chosen times and reads what the table decided.

use crate::ayo::{Pit, Preset, Side};
use crate::common::{ErrorCode, InvitationId, RoomId, TableId, User, UserId};

use super::super::hotel::CloseGames;
use super::super::matches::Scope;
use super::super::protocol::ServerMessage;
use super::{Command, Departure, Effects, Event, Table, Timing, Write};

const T0: u64 = 1_000_000;

fn person(name: &str) -> User {
    User {
        id: UserId::from(name.to_lowercase()),
        name: name.to_owned(),
        house: false,
    }
}

fn house() -> User {
    User {
        id: UserId::from("house-easy"),
        name: "Baba Ayo".to_owned(),
        house: true,
    }
}

fn table() -> Table {
    let timing = Timing {
        invitation_ms: 60_000,
        untimed_start_ms: 300_000,
        rematch_ms: 120_000,
    };
    Table::new(
        TableId::from("t1"),
        RoomId::from("lounge"),
        Preset::Lagos.rules(),
        timing,
        0,
    )
}

fn kinds(fx: &Effects) -> Vec<&'static str> {
    fx.events
        .iter()
        .map(|e| match e {
            Event::Table { message, .. } | Event::To(_, message) | Event::Again(_, message) => {
                kind(message)
            }
        })
        .collect()
}

fn kind(message: &ServerMessage) -> &'static str {
    match message {
        ServerMessage::Table(_) => "table",
        ServerMessage::GameStarted { .. } => "game_started",
        ServerMessage::GameState { .. } => "game_state",
        ServerMessage::GameOver { .. } => "game_over",
        ServerMessage::MatchState { .. } => "match_state",
        ServerMessage::MatchOver { .. } => "match_over",
        ServerMessage::Invitation { .. } => "invitation",
        ServerMessage::InvitationSent { .. } => "invitation_sent",
        ServerMessage::InvitationExpired { .. } => "invitation_expired",
        ServerMessage::InvitationDeclined { .. } => "invitation_declined",
        ServerMessage::DrawOffered { .. } => "draw_offered",
        ServerMessage::DrawDeclined { .. } => "draw_declined",
        ServerMessage::RematchOffered { .. } => "rematch_offered",
        _ => "other",
    }
}

fn refused(fx: &Effects) -> Option<ErrorCode> {
    fx.refused.as_ref().map(|r| r.code)
}

/// Ade and Bisi sit down: a match starts with its first game.
fn two_seated(t: &mut Table) -> Effects {
    let fx = t.apply(
        Command::Sit {
            user: person("Ade"),
            seat: Side::South,
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    t.apply(
        Command::Sit {
            user: person("Bisi"),
            seat: Side::North,
        },
        T0,
    )
}

/// The user to move in the game in play.
fn to_move(t: &Table) -> UserId {
    let live = t.game.as_ref().unwrap();
    live.players[live.game.to_move().unwrap().index()]
        .id
        .clone()
}

fn a_move(t: &mut Table, pit: u8, now: u64) -> Effects {
    let user = to_move(t);
    t.apply(
        Command::Move {
            user,
            pit: Pit::new(pit).unwrap(),
            version: None,
            r#ref: None,
        },
        now,
    )
}

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
fn a_seat_taken_or_a_game_in_play_refuses_a_newcomer() {
    let mut t = table();
    two_seated(&mut t);
    let fx = t.apply(
        Command::Sit {
            user: person("Chidi"),
            seat: Side::South,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::GameInPlay));
    assert!(fx.writes.is_empty() && fx.events.is_empty());
}

#[test]
fn a_move_is_stored_and_told_and_a_move_sent_again_is_answered_not_played() {
    let mut t = table();
    two_seated(&mut t);
    let mover = to_move(&t);
    let fx = t.apply(
        Command::Move {
            user: mover.clone(),
            pit: Pit::new(3).unwrap(),
            version: None,
            r#ref: Some(serde_json::json!(7)),
        },
        T0 + 10,
    );
    assert!(matches!(fx.writes[..], [Write::Move { ply: 1, .. }]));
    assert_eq!(kinds(&fx), ["game_state"]);
    let again = t.apply(
        Command::Move {
            user: mover,
            pit: Pit::new(3).unwrap(),
            version: None,
            r#ref: Some(serde_json::json!(7)),
        },
        T0 + 20,
    );
    assert!(again.writes.is_empty());
    assert!(matches!(again.events[..], [Event::Again(..)]));
    assert_eq!(t.game.as_ref().unwrap().game.ply(), 1);
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
            r#ref: None,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotYourTurn));
    let fx = t.apply(
        Command::Move {
            user: to_move(&t),
            pit: Pit::new(1).unwrap(),
            version: Some(1),
            r#ref: None,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::StaleVersion));
    assert_eq!(kinds(&fx), ["table"], "the current table follows");
    let fx = t.apply(
        Command::Move {
            user: UserId::from("chidi"),
            pit: Pit::new(1).unwrap(),
            version: None,
            r#ref: None,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NotSeated));
    assert_eq!(t.game.as_ref().unwrap().game.ply(), 0);
}

#[test]
fn a_clock_running_out_ends_the_game_at_the_tick_after_the_flag() {
    let mut t = table();
    let host = person("Ade");
    t.apply(
        Command::Sit {
            user: host.clone(),
            seat: Side::South,
        },
        T0,
    );
    let fx = t.apply(
        Command::SetMatch {
            user: host.id,
            clock: Some("1m".into()),
            best_of: Some(1),
        },
        T0,
    );
    assert_eq!(refused(&fx), None);
    t.apply(
        Command::Sit {
            user: person("Bisi"),
            seat: Side::North,
        },
        T0,
    );
    assert_eq!(t.next_deadline(), Some(T0 + 60_000));
    assert!(t.apply(Command::Tick, T0 + 59_999).is_empty());
    let fx = t.apply(Command::Tick, T0 + 60_000);
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
fn an_invitation_expires_on_the_clock_and_both_are_told() {
    let mut t = table();
    let (ade, bisi) = (person("Ade"), person("Bisi"));
    t.apply(
        Command::Sit {
            user: ade.clone(),
            seat: Side::South,
        },
        T0,
    );
    let id = InvitationId::from("inv1");
    let fx = t.apply(
        Command::Invite {
            from: ade.clone(),
            to: bisi.id.clone(),
            id: id.clone(),
            to_present: true,
            r#ref: None,
        },
        T0,
    );
    assert_eq!(kinds(&fx), ["invitation", "invitation_sent"]);
    assert!(t.invites(&id, &bisi.id));
    assert!(t.apply(Command::Tick, T0 + 59_999).is_empty());
    let fx = t.apply(Command::Tick, T0 + 60_000);
    assert_eq!(kinds(&fx), ["invitation_expired", "invitation_expired"]);
    let fx = t.apply(
        Command::Respond {
            user: bisi,
            invitation: id,
            accept: true,
            seated: false,
        },
        T0 + 60_001,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoSuchInvitation));
}

#[test]
fn an_accepted_invitation_starts_the_match_under_the_settings_it_promised() {
    let mut t = table();
    let (ade, bisi) = (person("Ade"), person("Bisi"));
    t.apply(
        Command::Sit {
            user: ade.clone(),
            seat: Side::South,
        },
        T0,
    );
    t.apply(
        Command::SetMatch {
            user: ade.id.clone(),
            clock: Some("3+2".into()),
            best_of: Some(3),
        },
        T0,
    );
    let id = InvitationId::from("inv1");
    t.apply(
        Command::Invite {
            from: ade,
            to: bisi.id.clone(),
            id: id.clone(),
            to_present: true,
            r#ref: None,
        },
        T0,
    );
    let fx = t.apply(
        Command::Respond {
            user: bisi,
            invitation: id,
            accept: true,
            seated: false,
        },
        T0 + 1,
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
            user: UserId::from("ade"),
            why: Departure::Gone,
        },
        T0,
    );
    assert!(fx.events.is_empty(), "nothing happens until the grace ends");
    assert!(t.seat_of(&UserId::from("ade")).is_some());
    let fx = t.apply(
        Command::Depart {
            user: UserId::from("ade"),
            why: Departure::GraceOver(vec![UserId::from("ade")]),
        },
        T0 + 60_000,
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
    assert_eq!(winner, UserId::from("bisi"));
    assert!(t.seat_of(&UserId::from("ade")).is_none());
}

#[test]
fn both_away_past_their_grace_blames_nobody() {
    let mut t = table();
    two_seated(&mut t);
    let gone = vec![UserId::from("ade"), UserId::from("bisi")];
    t.apply(
        Command::Depart {
            user: gone[0].clone(),
            why: Departure::GraceOver(gone),
        },
        T0 + 60_000,
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
            user: UserId::from("ade"),
            why: Departure::Left,
        },
        T0,
    );
    let m = t.r#match.as_ref().unwrap();
    assert_eq!(m.winner().unwrap().id, UserId::from("bisi"));
    assert!(t.rematch.is_none());
    assert!(t.seats.iter().all(Option::is_none));
}

#[test]
fn a_match_resigned_between_games_ends_and_offers_a_rematch() {
    let mut t = table();
    let host = person("Ade");
    t.apply(
        Command::Sit {
            user: host.clone(),
            seat: Side::South,
        },
        T0,
    );
    t.apply(
        Command::SetMatch {
            user: host.id.clone(),
            clock: None,
            best_of: Some(3),
        },
        T0,
    );
    t.apply(
        Command::Sit {
            user: person("Bisi"),
            seat: Side::North,
        },
        T0,
    );
    let fx = t.apply(
        Command::Resign {
            user: host.id.clone(),
            scope: Scope::Game,
        },
        T0 + 5,
    );
    assert_eq!(kinds(&fx), ["game_over", "match_state"]);
    assert!(t.r#match.as_ref().unwrap().between.is_some());
    let fx = t.apply(
        Command::Resign {
            user: host.id,
            scope: Scope::Match,
        },
        T0 + 6,
    );
    assert_eq!(kinds(&fx), ["match_over", "table"]);
    assert!(t.rematch.is_some());
}

#[test]
fn nobody_pressing_start_in_time_ends_the_match_the_leader_winning() {
    let mut t = table();
    let host = person("Ade");
    t.apply(
        Command::Sit {
            user: host.clone(),
            seat: Side::South,
        },
        T0,
    );
    t.apply(
        Command::SetMatch {
            user: host.id.clone(),
            clock: None,
            best_of: Some(3),
        },
        T0,
    );
    t.apply(
        Command::Sit {
            user: person("Bisi"),
            seat: Side::North,
        },
        T0,
    );
    t.apply(
        Command::Resign {
            user: host.id,
            scope: Scope::Game,
        },
        T0,
    );
    assert_eq!(t.next_deadline(), Some(T0 + 300_000));
    let fx = t.apply(Command::Tick, T0 + 300_000);
    assert!(kinds(&fx).contains(&"match_over"));
    assert_eq!(
        t.r#match.as_ref().unwrap().winner().unwrap().id,
        UserId::from("bisi")
    );
}

#[test]
fn one_press_then_the_other_starts_the_next_game_with_the_first_move_swapped() {
    let mut t = table();
    let host = person("Ade");
    t.apply(
        Command::Sit {
            user: host.clone(),
            seat: Side::South,
        },
        T0,
    );
    t.apply(
        Command::SetMatch {
            user: host.id.clone(),
            clock: None,
            best_of: Some(3),
        },
        T0,
    );
    t.apply(
        Command::Sit {
            user: person("Bisi"),
            seat: Side::North,
        },
        T0,
    );
    let first_south = t.game.as_ref().unwrap().players[0].id.clone();
    t.apply(
        Command::Resign {
            user: host.id.clone(),
            scope: Scope::Game,
        },
        T0,
    );
    let fx = t.apply(Command::Start { user: host.id }, T0 + 1);
    assert_eq!(kinds(&fx), ["match_state"]);
    let fx = t.apply(
        Command::Start {
            user: UserId::from("bisi"),
        },
        T0 + 2,
    );
    assert!(matches!(fx.writes[..], [Write::NewGame(_)]));
    assert_ne!(t.game.as_ref().unwrap().players[0].id, first_south);
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
                clock: None,
                best_of: None,
                seated_elsewhere: false,
            },
            T0,
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
    );
    assert_eq!(kinds(&fx), ["game_state"]);
}

#[test]
fn baba_ayo_declines_every_draw() {
    let mut t = table();
    t.apply(
        Command::PlayHouse {
            user: person("Ade"),
            house: house(),
            clock: None,
            best_of: None,
            seated_elsewhere: false,
        },
        T0,
    );
    let fx = t.apply(
        Command::OfferDraw {
            user: person("Ade"),
            scope: Scope::Game,
        },
        T0,
    );
    assert_eq!(kinds(&fx), ["draw_declined"]);
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
    );
    assert_eq!(kinds(&fx), ["draw_offered"]);
    let fx = t.apply(
        Command::AnswerDraw {
            user: UserId::from("ade"),
            accept: true,
        },
        T0,
    );
    assert_eq!(refused(&fx), Some(ErrorCode::NoDrawOffer), "not one's own");
    let fx = t.apply(
        Command::AnswerDraw {
            user: UserId::from("bisi"),
            accept: true,
        },
        T0,
    );
    assert!(kinds(&fx).contains(&"game_over"));
    assert_eq!(
        t.game.as_ref().unwrap().game.status(),
        crate::ayo::Status::Draw
    );
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
    );
    assert!(kinds(&fx).contains(&"match_over"));
    assert!(!t.match_in_play());
    assert!(t.rematch.is_none());
    let fx = t.apply(
        Command::Sit {
            user: person("Chidi"),
            seat: Side::South,
        },
        T0,
    );
    assert_eq!(
        refused(&fx),
        None,
        "the room refuses new games, not the table"
    );
}

#[test]
fn a_rematch_after_a_match_starts_with_both_presses() {
    let mut t = table();
    two_seated(&mut t);
    t.apply(
        Command::Resign {
            user: UserId::from("ade"),
            scope: Scope::Match,
        },
        T0,
    );
    let fx = t.apply(
        Command::Rematch {
            user: UserId::from("ade"),
            players_free: true,
        },
        T0 + 1,
    );
    assert_eq!(kinds(&fx), ["table", "rematch_offered"]);
    let fx = t.apply(
        Command::Rematch {
            user: UserId::from("bisi"),
            players_free: true,
        },
        T0 + 2,
    );
    assert!(matches!(fx.writes[0], Write::NewMatch { .. }));
    assert!(t.game_in_play());
    // A rematch not taken up in time is off.
    let mut t = table();
    two_seated(&mut t);
    t.apply(
        Command::Resign {
            user: UserId::from("ade"),
            scope: Scope::Match,
        },
        T0,
    );
    t.apply(Command::Tick, T0 + 120_000);
    assert!(t.rematch.is_none());
}
