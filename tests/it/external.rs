//! `lounge ayo match` against an engine outside the lounge, through the UCI-like protocol of
//! Oware engines, with a small stand-in engine (`external/fake_engine.py`) that plays random
//! legal moves and refuses anything said wrongly, and with Baba Ayo himself behind the same
//! protocol (`lounge ayo uci`). Nothing here times a move.

use std::time::Duration;

use lounge::ayo::house::Level;
use lounge::ayo::{Game, Pit, Preset, Rules, Side};
use lounge::cli::{
    parse_pit, pit_letter, play_match, position_line, ExternalError, MatchPlan, Openings, Player,
};
use lounge::house::{Budgets, Endgames};

/// Aalina's rules: Abapa with a grand slam allowed and capturing nothing.
fn aalina_rules() -> Rules {
    let mut rules = Preset::Oware.rules();
    rules.set_pair("grand_slam=captures_nothing").unwrap();
    rules
}

fn fake(args: &str) -> String {
    format!(
        "python3 {}/tests/it/external/fake_engine.py {args}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn plan(a: Player, b: Player, games: u32, external: String) -> MatchPlan {
    MatchPlan {
        a,
        b,
        games,
        rules: aalina_rules(),
        movetime: Some(Duration::from_millis(5)),
        threads: 1,
        openings: "2-4".parse().unwrap(),
        external: Some(external),
    }
}

fn run(plan: &MatchPlan) -> Result<lounge::cli::MatchResult, lounge::cli::MatchError> {
    let house = lounge::config::Settings::load().unwrap().house;
    play_match(
        plan,
        &Budgets::from_settings(&house),
        &Endgames::new(&house),
        |_, _| {},
    )
}

#[test]
fn moves_are_letters_a_to_f_for_south_and_lowercase_for_north() {
    for pit in Pit::ALL {
        for side in Side::BOTH {
            assert_eq!(
                parse_pit(side, &pit_letter(side, pit).to_string()),
                Some(pit)
            );
        }
    }
    assert_eq!(pit_letter(Side::South, Pit::new(1).unwrap()), 'A');
    assert_eq!(pit_letter(Side::North, Pit::new(6).unwrap()), 'f');
    assert_eq!(parse_pit(Side::South, "a"), None, "not South's");
    assert_eq!(parse_pit(Side::North, "G"), None);
    assert_eq!(parse_pit(Side::North, "g"), None);
    assert_eq!(parse_pit(Side::South, "AB"), None);
    assert_eq!(parse_pit(Side::South, "0000"), None);
}

#[test]
fn a_position_is_the_game_from_the_start_in_one_word_of_letters() {
    let mut game = Game::new(aalina_rules());
    assert_eq!(position_line(&game), "position startpos");
    for n in [1, 4, 6, 2] {
        game.play(Pit::new(n).unwrap()).unwrap();
    }
    assert_eq!(position_line(&game), "position startpos moves AdFb");
}

#[test]
fn opening_plies_are_a_number_or_a_range() {
    assert_eq!(
        "2-4".parse::<Openings>(),
        Ok(Openings { fewest: 2, most: 4 })
    );
    assert_eq!("4".parse::<Openings>(), Ok(Openings { fewest: 4, most: 4 }));
    assert!("4-2".parse::<Openings>().is_err());
    assert!("two".parse::<Openings>().is_err());
}

#[test]
fn the_house_plays_an_external_engine_with_colours_swapped_in_pairs() {
    let result = run(&plan(
        Player::House(Level::Easy),
        Player::External,
        4,
        fake(""),
    ))
    .unwrap();
    assert_eq!(result.tally.games(), 4, "{result:?}");
    // Two external engines, one a side, each told only its own moves to make.
    let both = run(&plan(Player::External, Player::External, 2, fake(""))).unwrap();
    assert_eq!(both.tally.games(), 2);
}

#[test]
fn an_engine_that_takes_the_game_for_over_stops_the_match() {
    let err = run(&plan(
        Player::House(Level::Easy),
        Player::External,
        4,
        fake("null"),
    ))
    .unwrap_err();
    assert!(matches!(err.source, ExternalError::NoMove), "{err}");
    assert_eq!(err.game, 1);
    assert!(
        err.position.starts_with("position startpos moves "),
        "{err}"
    );
}

#[test]
fn a_move_from_the_wrong_row_stops_the_match() {
    let err = run(&plan(
        Player::External,
        Player::House(Level::Easy),
        2,
        fake("wrong-side"),
    ))
    .unwrap_err();
    assert!(matches!(err.source, ExternalError::NotAPit(_)), "{err}");
}

#[test]
fn an_engine_that_exits_stops_the_match_with_the_games_played() {
    let err = run(&plan(
        Player::House(Level::Easy),
        Player::External,
        6,
        fake("quit-after 3"),
    ))
    .unwrap_err();
    assert!(
        matches!(
            err.source,
            ExternalError::Closed {
                waiting: "bestmove"
            }
        ),
        "{err}"
    );
    assert_eq!(err.game, 1, "three moves are not a game");
    let err = run(&plan(
        Player::House(Level::Easy),
        Player::External,
        2,
        "/nonexistent/engine".into(),
    ))
    .unwrap_err();
    assert!(matches!(err.source, ExternalError::Start { .. }), "{err}");
}

#[test]
fn baba_ayo_plays_through_the_protocol_as_an_external_engine() {
    let command = format!(
        "{} ayo uci --level easy --rules oware --rule grand_slam=captures_nothing",
        env!("CARGO_BIN_EXE_lounge")
    );
    let result = run(&plan(
        Player::House(Level::Easy),
        Player::External,
        2,
        command,
    ))
    .unwrap();
    assert_eq!(result.tally.games(), 2);
}
