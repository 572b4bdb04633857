//! Game clocks on a clock the test controls: no sleeping.

use lounge::ayo::clock::{ClockError, Clocks, Flagged, TimeControl};
use lounge::ayo::Side;

#[test]
fn time_controls_parse_and_are_checked() {
    assert_eq!("none".parse(), Ok(TimeControl::None));
    assert_eq!("90s".parse(), Ok(TimeControl::PerMove { seconds: 90 }));
    assert_eq!("5m".parse(), Ok(TimeControl::PerMove { seconds: 300 }));
    assert_eq!("1d".parse(), Ok(TimeControl::PerMove { seconds: 86_400 }));
    assert_eq!(
        "3 + 2".parse(),
        Ok(TimeControl::Game {
            minutes: 3,
            increment_seconds: 2
        })
    );
    assert_eq!("59s".parse::<TimeControl>(), Err(ClockError::PerMove(59)));
    assert_eq!(
        "2d".parse::<TimeControl>(),
        Err(ClockError::PerMove(172_800))
    );
    assert_eq!("0+5".parse::<TimeControl>(), Err(ClockError::Minutes(0)));
    assert_eq!(
        "3+61".parse::<TimeControl>(),
        Err(ClockError::Increment(61))
    );
    for bad in ["", "fast", "3+", "+2", "10x", "99999999999d"] {
        assert!(
            matches!(bad.parse::<TimeControl>(), Err(ClockError::Malformed(_))),
            "{bad}"
        );
    }
    let game = TimeControl::Game {
        minutes: 3,
        increment_seconds: 2,
    };
    assert_eq!(game.to_string().parse(), Ok(game));
    assert_eq!(
        serde_json::to_value(game).unwrap(),
        serde_json::json!({"kind": "game", "minutes": 3, "increment_seconds": 2})
    );
    assert!(Clocks::new(TimeControl::None).is_none());
}

#[test]
fn a_game_clock_runs_for_the_side_to_move_and_adds_the_increment() {
    let mut clocks = Clocks::new("3+2".parse().unwrap()).unwrap();
    assert_eq!(clocks.left(0), [180_000, 180_000]);
    clocks.start(Side::South, 1_000);
    assert_eq!(clocks.left(11_000), [170_000, 180_000]);
    assert_eq!(clocks.deadline(), Some(181_000));
    clocks.moved(Side::South, 11_000).unwrap();
    // South gets the increment; North's clock runs now.
    assert_eq!(clocks.left(11_000), [172_000, 180_000]);
    assert_eq!(clocks.running(), Some(Side::North));
    assert_eq!(clocks.left(41_000), [172_000, 150_000]);
    clocks.moved(Side::North, 41_000).unwrap();
    assert_eq!(clocks.left(41_000), [172_000, 152_000]);
    // South runs out.
    assert_eq!(clocks.flagged(41_000 + 171_999), None);
    assert_eq!(clocks.flagged(41_000 + 172_000), Some(Side::South));
    assert_eq!(
        clocks.moved(Side::South, 41_000 + 172_001),
        Err(Flagged(Side::South))
    );
    assert_eq!(clocks.left(500_000), [0, 152_000]);
}

#[test]
fn a_per_move_clock_starts_afresh_every_move() {
    let mut clocks = Clocks::new("60s".parse().unwrap()).unwrap();
    clocks.start(Side::South, 0);
    clocks.moved(Side::South, 59_000).unwrap();
    assert_eq!(clocks.left(59_000), [60_000, 60_000]);
    assert_eq!(clocks.deadline(), Some(119_000));
    clocks.moved(Side::North, 118_999).unwrap();
    assert_eq!(clocks.flagged(178_999), Some(Side::South));
    assert_eq!(
        clocks.moved(Side::South, 179_000),
        Err(Flagged(Side::South))
    );
}

#[test]
fn stopped_clocks_keep_their_time_and_an_outage_is_not_charged() {
    let mut clocks = Clocks::new("5+0".parse().unwrap()).unwrap();
    clocks.start(Side::South, 0);
    clocks.moved(Side::South, 20_000).unwrap();
    // The service stops 10 s into North's move and is back 1 h later.
    clocks.stop(30_000);
    assert_eq!(clocks.running(), None);
    assert_eq!(clocks.left(3_630_000), [280_000, 290_000]);
    let stored = serde_json::to_string(&clocks).unwrap();
    let mut back: Clocks = serde_json::from_str(&stored).unwrap();
    back.start(Side::North, 3_630_000);
    assert_eq!(back.left(3_640_000), [280_000, 280_000]);
    assert_eq!(back.deadline(), Some(3_630_000 + 290_000));
}

#[test]
fn running_out_loses_unless_the_rules_draw_when_the_opponent_cannot_win() {
    use lounge::ayo::{EndReason, Game, Preset, Status};
    // South has 24 in store, North 20, and 4 seeds are left: North cannot get past 24.
    let pits = [0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0];
    let hopeless = crate::helpers::game::position_with(pits, [24, 20], Side::South, 0);
    let mut lagos = Game::from_position(Preset::Lagos.rules(), hopeless);
    assert!(lagos.time_out(Side::South));
    assert_eq!(lagos.status(), Status::Draw);
    assert_eq!(lagos.end_reason(), Some(EndReason::Timeout));
    // Kontest: run out and you lose, whatever is left.
    let mut kontest = Game::from_position(Preset::Kontest.rules(), hopeless);
    assert!(kontest.time_out(Side::South));
    assert_eq!(kontest.status(), Status::NorthWon);
    // North could still win from here: running out loses under every preset.
    let open = crate::helpers::game::position_with(pits, [22, 22], Side::South, 0);
    for preset in Preset::ALL {
        let mut game = Game::from_position(preset.rules(), open);
        assert!(game.time_out(Side::South));
        assert_eq!(game.status(), Status::NorthWon, "{preset}");
    }
    // Once over, nothing more happens.
    assert!(!lagos.time_out(Side::North));
    // The switch is a rule like the others.
    let mut rules = Preset::Lagos.rules();
    rules.set("timeout", "loses").unwrap();
    let mut game = Game::from_position(rules, hopeless);
    game.time_out(Side::South);
    assert_eq!(game.status(), Status::NorthWon);
    // Rules stored before the switch take their preset's.
    let stored = |preset: &str| -> lounge::ayo::Rules {
        serde_json::from_str(&format!(
            r#"{{"preset":"{preset}","sowing":"single","capture":"two_three","grand_slam":"captures_nothing","no_capture_limit":60,"repetition":"ignored"}}"#
        ))
        .unwrap()
    };
    assert_eq!(
        stored("lagos").timeout,
        lounge::ayo::Timeout::DrawIfCannotWin
    );
    assert_eq!(stored("kontest").timeout, lounge::ayo::Timeout::Loses);
    let round: lounge::ayo::Rules =
        serde_json::from_str(&serde_json::to_string(&rules).unwrap()).unwrap();
    assert_eq!(round, rules, "a rule set stored now reads back the same");
}

#[test]
fn clocks_put_back_after_an_outage_charge_only_the_time_before_it() {
    let control: TimeControl = "5+0".parse().unwrap();
    let clocks =
        Clocks::resumed(control, [280_000, 300_000], Side::North, 10_000, 1_000_000).unwrap();
    assert_eq!(clocks.left(1_000_000), [280_000, 290_000]);
    assert_eq!(clocks.running(), Some(Side::North));
    assert_eq!(clocks.deadline(), Some(1_290_000));
    // More than was left: the flag is down at once.
    let late = Clocks::resumed(control, [1_000, 300_000], Side::South, 5_000, 0).unwrap();
    assert_eq!(late.flagged(0), Some(Side::South));
}
