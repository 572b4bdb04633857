//! The rules beyond the guide's Abapa: ayoayo's relay sowing and collect on 4, the switches
//! mixed, and the presets and overrides themselves.

use lounge::ayo::{
    EndReason, Game, Position, Preset, Rules, RulesError, Side, Status, MAX_RELAY_LAPS,
};

use crate::support::{game_from, legal, pit, position, position_with, seeds_in, sow};

// ---- ayoayo: relay sowing and collect on 4 ---------------------------------------------------

fn ayoayo() -> Rules {
    Preset::Ayoayo.rules()
}

#[test]
fn ayoayo_a_last_seed_in_an_occupied_pit_lifts_it_and_sowing_goes_on() {
    let start = position([2, 0, 2, 0, 0, 0, 5, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 1);
    assert_eq!(after.pits(), [0, 1, 0, 1, 1, 1, 5, 5, 5, 5, 5, 5]);
    assert_eq!(sown.laps, 2);
    assert_eq!(sown.captured, 0);
}

#[test]
fn ayoayo_the_turn_ends_when_the_last_seed_lands_in_an_empty_pit() {
    let start = position([0, 0, 0, 2, 0, 0, 5, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 4);
    assert_eq!(after.pits()[3..6], [0, 1, 1]);
    assert_eq!(sown.laps, 1);
}

#[test]
fn ayoayo_a_relay_carries_on_round_the_board_through_the_opponents_row() {
    // Lap 1: North's pits 1 (2 → 3) and 2 (1 → 2): lift North's pit 2; lap 2: North's pits
    // 3 and 4, both empty before: stop.
    let start = position([0, 0, 0, 0, 0, 2, 2, 1, 0, 0, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 6);
    assert_eq!(after.pits(), [0, 0, 0, 0, 0, 0, 3, 0, 1, 1, 5, 5]);
    assert_eq!(sown.laps, 2);
    assert_eq!(sown.captured, 0);
}

#[test]
fn ayoayo_every_pit_a_dropped_seed_makes_four_is_collected_on_either_row() {
    let start = position([0, 0, 0, 0, 3, 3, 3, 0, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 5);
    assert_eq!(
        sown.captured, 8,
        "South's own pit 6 and North's pit 1, four each"
    );
    assert_eq!(after.pits(), [0, 0, 0, 0, 0, 0, 0, 1, 5, 5, 5, 5]);
    assert_eq!(after.stores()[0], start.stores()[0] + 8);
}

#[test]
fn ayoayo_a_pit_that_already_holds_four_becomes_five_and_stays() {
    let start = position([0, 0, 0, 0, 2, 4, 0, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 5);
    assert_eq!(sown.captured, 0);
    assert_eq!(after.pits()[5..7], [5, 1]);
}

#[test]
fn ayoayo_a_last_seed_that_makes_four_is_collected_and_ends_the_turn() {
    let start = position([0, 0, 0, 0, 2, 0, 3, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 5);
    assert_eq!(sown.captured, 4);
    assert_eq!(sown.laps, 1);
    assert_eq!(after.pits()[4..8], [0, 1, 0, 5]);
}

#[test]
fn ayoayo_twelve_seeds_skip_the_pit_they_came_from() {
    let start = position([12, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 1);
    // One lap round the other eleven, then the twelfth seed skips pit 1 and makes pit 2 four.
    assert_eq!(after.pits(), [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(sown.captured, 4);
}

#[test]
fn ayoayo_an_endless_relay_is_cut_by_the_guard() {
    // Found by search: pairs of seeds chase each other round for ever, never making 4.
    let start = position([1, 0, 1, 2, 0, 1, 0, 1, 0, 1, 0, 2], Side::South);
    let (after, sown) = sow(&ayoayo(), start, 4);
    assert_eq!(sown.laps, MAX_RELAY_LAPS);
    assert_eq!(seeds_in(&after), 48);
    assert_eq!(after.to_move(), Side::North);
    // The guard makes the move a move like any other: the game goes on from there.
    let game = game_from(Preset::Ayoayo, start, &[4]);
    assert_eq!(game.ply(), 1);
}

#[test]
fn ayoayo_collecting_every_seed_the_opponent_has_is_allowed() {
    let start = position([4, 4, 4, 4, 4, 1, 3, 0, 0, 0, 0, 0], Side::South);
    let game = game_from(Preset::Ayoayo, start, &[6]);
    // North has nothing left to move: the game ends and South sweeps its own row.
    assert_eq!(game.end_reason(), Some(EndReason::NoLegalMove));
    assert_eq!(game.position().stores(), [12 + 4 + 20, 12]);
    assert_eq!(game.status(), Status::SouthWon);
}

#[test]
fn ayoayo_the_grand_slam_switch_has_no_effect_with_collect_on_four() {
    let start = position([4, 4, 4, 4, 4, 1, 3, 0, 0, 0, 0, 0], Side::South);
    let rules = Rules::build("ayoayo", ["grand_slam=illegal"]).unwrap();
    let mut game = Game::from_position(rules, start);
    game.play(pit(6)).unwrap();
    assert_eq!(game.position().stores(), [12 + 4 + 20, 12]);
}

#[test]
fn a_relay_lap_of_twelve_or_more_skips_the_pit_that_lap_was_lifted_from() {
    let rules = Rules::build("lagos", ["sowing=relay"]).unwrap();
    // Lap 1: pit 5's seed makes pit 6 thirteen; lap 2 lifts pit 6 and goes round, skipping it,
    // to end in North's pit 2, which makes 2: a capture of North's pits 2 and 1.
    let start = position([0, 0, 0, 0, 1, 12, 0, 0, 0, 0, 0, 0], Side::South);
    let (after, sown) = sow(&rules, start, 5);
    assert_eq!(sown.laps, 2);
    assert_eq!(sown.captured, 4);
    assert_eq!(after.pits(), [1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1]);
}

#[test]
fn ayoayo_an_opponent_with_no_seeds_must_be_fed() {
    let start = position([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], Side::South);
    let game = Game::from_position(ayoayo(), start);
    assert_eq!(legal(&game), [6]);
}

#[test]
fn ayoayo_sixty_plies_without_a_collection_end_the_game_with_the_sweep() {
    let before = position_with(
        [0, 0, 0, 2, 0, 0, 5, 5, 5, 5, 5, 5],
        [8, 8],
        Side::South,
        59,
    );
    let game = game_from(Preset::Ayoayo, before, &[4]);
    assert_eq!(game.end_reason(), Some(EndReason::NoCaptureLimit));
    assert_eq!(
        game.position().stores(),
        [10, 38],
        "the end-game sweep: each keeps its row"
    );
    assert_eq!(game.status(), Status::NorthWon);
}

#[test]
fn ayoayo_first_to_twenty_five_wins() {
    let start = position_with(
        [0, 0, 0, 0, 2, 0, 3, 5, 5, 5, 0, 0],
        [23, 5],
        Side::South,
        0,
    );
    let game = game_from(Preset::Ayoayo, start, &[5]);
    assert_eq!(game.end_reason(), Some(EndReason::Majority));
    assert_eq!(game.status(), Status::SouthWon);
}

#[test]
fn relay_sowing_with_the_two_three_capture_ends_on_a_capture() {
    let rules = Rules::build("lagos", ["sowing=relay"]).unwrap();
    // Lap 1 ends in South's own pit 5 (1 → 2): relay; lap 2 ends in North's pit 1 making 2.
    let start = position([0, 0, 0, 1, 1, 0, 1, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&rules, start, 4);
    assert_eq!(sown.laps, 2);
    assert_eq!(sown.captured, 2);
    assert_eq!(after.pits()[3..8], [0, 0, 1, 0, 5]);
}

#[test]
fn relay_sowing_with_the_two_three_capture_ends_in_an_empty_pit() {
    let rules = Rules::build("lagos", ["sowing=relay"]).unwrap();
    // Lap 1: pits 2 (0 → 1), 3 (1 → 2): relay; lap 2: pits 4, 5 (0 → 1): empty, stop.
    let start = position([2, 0, 1, 0, 0, 0, 1, 5, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&rules, start, 1);
    assert_eq!(sown.laps, 2);
    assert_eq!(after.pits()[..6], [0, 1, 0, 1, 1, 0]);
}

#[test]
fn single_sowing_with_collect_on_four_sows_one_lap() {
    let rules = Rules::build("lagos", ["capture=four"]).unwrap();
    let start = position([0, 0, 0, 0, 3, 3, 3, 2, 5, 5, 5, 5], Side::South);
    let (after, sown) = sow(&rules, start, 5);
    assert_eq!(sown.laps, 1);
    assert_eq!(sown.captured, 8);
    assert_eq!(after.pits()[5..8], [0, 0, 3], "no relay from North's pit 2");
}

// ---- Rule sets and overrides -----------------------------------------------------------------

#[test]
fn the_presets_hold_the_switches_of_the_design() {
    use lounge::ayo::{Capture, GrandSlam, Repetition, Sowing};
    let l = Rules::preset("lagos").unwrap();
    assert_eq!(
        (
            l.sowing,
            l.capture,
            l.grand_slam,
            l.no_capture_limit,
            l.repetition
        ),
        (
            Sowing::Single,
            Capture::TwoThree,
            GrandSlam::CapturesNothing,
            60,
            Repetition::Ignored
        )
    );
    assert_eq!(Rules::default(), l);
    let k = Rules::preset("kontest").unwrap();
    assert_eq!(
        (k.grand_slam, k.no_capture_limit),
        (GrandSlam::CapturesNothing, 100)
    );
    let o = Rules::preset("oware").unwrap();
    assert_eq!(
        (o.grand_slam, o.no_capture_limit, o.repetition),
        (GrandSlam::Illegal, 0, Repetition::EndsGame)
    );
    let a = Rules::preset("ayoayo").unwrap();
    assert_eq!(
        (a.sowing, a.capture, a.no_capture_limit),
        (Sowing::Relay, Capture::Four, 60)
    );
}

#[test]
fn every_override_key_takes_its_values() {
    use lounge::ayo::{Capture, GrandSlam, Repetition, Sowing};
    let r = Rules::build(
        "lagos",
        [
            "no_capture_limit=0",
            "repetition=ends_game",
            "grand_slam=illegal",
            "sowing=relay",
            "capture=four",
        ],
    )
    .unwrap();
    assert_eq!(r.no_capture_limit, 0);
    assert_eq!(r.repetition, Repetition::EndsGame);
    assert_eq!(r.grand_slam, GrandSlam::Illegal);
    assert_eq!(r.sowing, Sowing::Relay);
    assert_eq!(r.capture, Capture::Four);
}

#[test]
fn unknown_rules_keys_and_values_are_refused_clearly() {
    assert_eq!(
        Rules::preset("abapa"),
        Err(RulesError::UnknownPreset("abapa".into()))
    );
    let e = Rules::build("lagos", ["sowing_speed=2"]).unwrap_err();
    assert_eq!(e, RulesError::UnknownKey("sowing_speed".into()));
    let e = Rules::build("lagos", ["repetition=sometimes"]).unwrap_err();
    assert!(e.to_string().contains("ends_game or ignored"), "{e}");
    let e = Rules::build("lagos", ["no_capture_limit=-1"]).unwrap_err();
    assert!(matches!(e, RulesError::BadValue { .. }), "{e}");
    let e = Rules::build("lagos", ["no_capture_limit=99999"]).unwrap_err();
    assert!(matches!(e, RulesError::BadValue { .. }), "{e}");
    let e = Rules::build("lagos", ["capture"]).unwrap_err();
    assert_eq!(e, RulesError::Malformed("capture".into()));
}

#[test]
fn positions_must_hold_forty_eight_seeds() {
    assert!(Position::new([4; 12], [1, 0], Side::South, 0).is_err());
    assert!(Position::new([4; 12], [0, 0], Side::North, 0).is_ok());
}

#[test]
fn pits_are_numbers_from_one_to_six() {
    use lounge::ayo::Pit;
    assert!(Pit::new(0).is_none());
    assert!(Pit::new(7).is_none());
    assert_eq!("6".parse::<Pit>().map(u8::from), Ok(6));
    assert!("x".parse::<Pit>().is_err());
    assert!("-3".parse::<Pit>().is_err());
    assert!(serde_json::from_str::<Pit>("9").is_err());
}
