//! Random command sequences at a table: none panics, the seeds on the board stay 48, and the
//! same commands at the same times with the same draws decide the same again.

use proptest::prelude::*;

use crate::ayo::{Pit, Rules, Side, SEEDS};
use crate::common::{InvitationId, User, UserId};

use super::super::super::hotel::CloseGames;
use super::super::super::matches::Scope;
use super::super::{choose, Command, Departure, Effects, Table};
use super::{draws_for, house, person, table, T0};

/// Who a step is about: one of three guests, Baba Ayo, or whoever is to move.
#[derive(Clone, Copy, Debug)]
enum Who {
    Guest(u8),
    House,
    ToMove,
}

/// A step as generated: made into a `Command` against the table as it is then, so moves
/// are often legal and invitations often exist.
#[derive(Clone, Debug)]
enum Step {
    Sit(Who, Side, Option<&'static str>),
    Stand(Who),
    SetMatch(Who, Option<&'static str>, u8, Option<&'static str>),
    PlayHouse(Who, Option<&'static str>, u8, bool),
    Start(Who),
    Rematch(Who, bool),
    Invite(Who, Who, u8, bool),
    Respond(Who, u8, bool, bool),
    Move(Who, u8, bool),
    HouseMove(u8, bool),
    Resign(Who, bool),
    OfferDraw(Who, bool),
    AnswerDraw(Who, bool),
    HouseAnswersDraw(bool, bool),
    Depart(Who, u8),
    Tick,
    Shut(bool),
    SetRules,
    NextGame,
    Announce,
    TakeAway,
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![
        3 => (0u8..3).prop_map(Who::Guest),
        1 => Just(Who::House),
        3 => Just(Who::ToMove),
    ]
}

fn side() -> impl Strategy<Value = Side> {
    prop::sample::select(vec![Side::South, Side::North])
}

fn seating() -> impl Strategy<Value = Option<&'static str>> {
    prop::sample::select(vec![None, Some("lots"), Some("kept"), Some("nonsense")])
}

fn clock() -> impl Strategy<Value = Option<&'static str>> {
    prop::sample::select(vec![None, Some("3+2"), Some("1+0"), Some("bad")])
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (who(), side(), seating()).prop_map(|(w, s, k)| Step::Sit(w, s, k)),
        1 => who().prop_map(Step::Stand),
        1 => (who(), clock(), 0u8..6, seating()).prop_map(|(w, c, b, k)| Step::SetMatch(w, c, b, k)),
        1 => (who(), clock(), 0u8..4, any::<bool>()).prop_map(|(w, c, b, e)| Step::PlayHouse(w, c, b, e)),
        2 => who().prop_map(Step::Start),
        2 => (who(), any::<bool>()).prop_map(|(w, f)| Step::Rematch(w, f)),
        2 => (who(), who(), 0u8..3, any::<bool>()).prop_map(|(a, b, i, p)| Step::Invite(a, b, i, p)),
        2 => (who(), 0u8..3, any::<bool>(), any::<bool>()).prop_map(|(w, i, a, s)| Step::Respond(w, i, a, s)),
        12 => (who(), 1u8..=6, any::<bool>()).prop_map(|(w, p, v)| Step::Move(w, p, v)),
        3 => (1u8..=6, any::<bool>()).prop_map(|(p, v)| Step::HouseMove(p, v)),
        1 => (who(), any::<bool>()).prop_map(|(w, m)| Step::Resign(w, m)),
        1 => (who(), any::<bool>()).prop_map(|(w, m)| Step::OfferDraw(w, m)),
        1 => (who(), any::<bool>()).prop_map(|(w, a)| Step::AnswerDraw(w, a)),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(a, v)| Step::HouseAnswersDraw(a, v)),
        1 => (who(), 0u8..3).prop_map(|(w, d)| Step::Depart(w, d)),
        3 => Just(Step::Tick),
        1 => any::<bool>().prop_map(Step::Shut),
        1 => Just(Step::SetRules),
        1 => Just(Step::NextGame),
        1 => Just(Step::Announce),
        1 => Just(Step::TakeAway),
    ]
}

/// Three guests and Baba Ayo.
fn user(t: &Table, who: Who) -> User {
    match who {
        Who::Guest(n) => person(["Ade", "Bisi", "Cai"][usize::from(n % 3)]),
        Who::House => house(),
        Who::ToMove => t
            .game
            .as_ref()
            .and_then(|g| Some(g.players[g.game.to_move()?.index()].clone()))
            .unwrap_or_else(|| person("Ade")),
    }
}

fn id(t: &Table, who: Who) -> UserId {
    user(t, who).id
}

/// The step as a command to the table as it is; `None` for settings the room refuses before
/// the table (they do not parse).
fn command(t: &Table, step: &Step) -> Option<Command> {
    let version = |current: bool| {
        if current {
            t.version
        } else {
            t.version.saturating_sub(1)
        }
    };
    Some(match *step {
        Step::Sit(w, seat, seats) => Command::Sit {
            user: user(t, w),
            seat,
            seats: choose(None, None, seats).ok()?.seats,
        },
        Step::Stand(w) => Command::Stand { user: id(t, w) },
        Step::SetMatch(w, clock, best_of, seats) => Command::SetMatch {
            user: id(t, w),
            choice: choose(clock, Some(best_of), seats).ok()?,
        },
        Step::PlayHouse(w, clock, best_of, seated_elsewhere) => Command::PlayHouse {
            user: user(t, w),
            house: house(),
            choice: choose(clock, Some(best_of), None).ok()?,
            seated_elsewhere,
        },
        Step::Start(w) => Command::Start { user: id(t, w) },
        Step::Rematch(w, players_free) => Command::Rematch {
            user: id(t, w),
            players_free,
        },
        Step::Invite(from, to, n, to_present) => Command::Invite {
            from: user(t, from),
            to: id(t, to),
            id: InvitationId::new(format!("i{n}")),
            to_present,
        },
        Step::Respond(w, n, accept, seated) => Command::Respond {
            user: user(t, w),
            invitation: InvitationId::new(format!("i{n}")),
            accept,
            seated,
        },
        Step::Move(w, pit, current) => Command::Move {
            user: id(t, w),
            pit: Pit::new(pit).expect("pits 1 to 6"),
            version: current.then_some(t.version),
        },
        Step::HouseMove(pit, current) => Command::HouseMove {
            version: version(current),
            pit: Pit::new(pit).expect("pits 1 to 6"),
        },
        Step::Resign(w, whole) => Command::Resign {
            user: id(t, w),
            scope: if whole { Scope::Match } else { Scope::Game },
        },
        Step::OfferDraw(w, whole) => Command::OfferDraw {
            user: user(t, w),
            scope: if whole { Scope::Match } else { Scope::Game },
        },
        Step::AnswerDraw(w, accept) => Command::AnswerDraw {
            user: id(t, w),
            accept,
        },
        Step::HouseAnswersDraw(accept, current) => Command::HouseAnswersDraw {
            version: version(current),
            accept,
        },
        Step::Depart(w, why) => Command::Depart {
            user: id(t, w),
            why: match why {
                0 => Departure::Left,
                1 => Departure::Gone,
                _ => Departure::GraceOver(vec![id(t, w)]),
            },
        },
        Step::Tick => Command::Tick,
        Step::Shut(finish) => Command::Shut {
            games: if finish {
                CloseGames::Finish
            } else {
                CloseGames::End
            },
        },
        Step::SetRules => Command::SetRules {
            rules: Rules::default(),
        },
        Step::NextGame => Command::NextGame,
        Step::Announce => Command::Announce,
        Step::TakeAway => Command::TakeAway,
    })
}

/// What a command decided, written out to compare runs.
fn decided(fx: &Effects) -> String {
    format!("{fx:?}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_commands_never_panic_keep_the_seeds_and_replay_the_same(
        steps in prop::collection::vec((step(), 0u64..200_000), 1..120),
    ) {
        let mut t = table();
        let mut now = T0;
        let mut log = Vec::new();
        for (n, (step, wait)) in steps.iter().enumerate() {
            now += wait;
            let Some(command) = command(&t, step) else {
                continue;
            };
            let draws = draws_for(n as u64);
            let fx = t.apply(command.clone(), now, draws.clone());
            if let Some(live) = &t.game {
                let position = live.game.position();
                let seeds: u8 = position.pits().iter().chain(&position.stores()).sum();
                prop_assert_eq!(seeds, SEEDS, "the seeds after {:?}", step);
            }
            log.push((command, now, draws, decided(&fx)));
        }

        let mut again = table();
        for (command, now, draws, first) in log {
            let fx = again.apply(command, now, draws);
            prop_assert_eq!(decided(&fx), first);
        }
    }
}
