//! One named test for every sentence of the rules: Lagos Hotel's guide and the variant rules
//! of the other pages (docs/engine.md, "Rule presets"), each from a concrete position. The
//! guide's Abapa rules and where oware and kontest differ are here; relay sowing, collecting
//! fours, the mixed switches and the presets themselves are in `rules/switches.rs`.

use lounge::ayo::{
    EndReason, Forfeit, Game, IllegalReason, MoveError, Position, Preset, Rules, Side, Status,
};

use crate::support::{game_from, lagos, legal, pit, position, position_with, sow};

mod switches;

// ---- The board -------------------------------------------------------------------------------

#[test]
fn the_game_starts_with_four_seeds_in_every_pit_and_south_to_move() {
    let game = Game::new(lagos());
    let state = game.state();
    assert_eq!(state.pits, [4; 12]);
    assert_eq!(state.stores, [0, 0]);
    assert_eq!(state.to_move, Some(Side::South));
    assert_eq!(
        state.legal.iter().map(u8::from).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(state.status, Status::Playing);
    assert_eq!(state.end_reason, None);
    assert_eq!(state.ply, 0);
}

#[test]
fn the_state_serialises_as_the_protocol_says() {
    let mut game = Game::new(lagos());
    game.play(pit(3)).unwrap();
    let json = serde_json::to_value(game.state()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"ply": 1, "pits": [4,4,0,5,5,5,5,4,4,4,4,4], "stores": [0, 0],
            "to_move": "north", "legal": [1,2,3,4,5,6], "moves_since_capture": 1,
            "status": "playing", "end_reason": null})
    );
}

// ---- Sowing ----------------------------------------------------------------------------------

#[test]
fn sowing_lifts_a_pit_and_drops_one_seed_in_each_following_pit() {
    let (after, sown) = sow(&lagos(), Position::start(), 3);
    assert_eq!(after.pits(), [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]);
    assert_eq!(sown.captured, 0);
    assert_eq!(after.to_move(), Side::North);
}

#[test]
fn sowing_goes_round_the_end_from_north_row_to_south_row() {
    let game = game_from(Preset::Lagos, Position::start(), &[1, 6]);
    assert_eq!(game.position().pits(), [1, 6, 6, 6, 5, 4, 4, 4, 4, 4, 4, 0]);
}

#[test]
fn a_pit_with_three_seeds_ends_three_pits_along() {
    let start = position([0, 3, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5], Side::South);
    let (after, _) = sow(&lagos(), start, 2);
    assert_eq!(after.pits(), [0, 0, 1, 1, 1, 0, 5, 5, 5, 5, 5, 5]);
}

#[test]
fn only_a_pit_of_ones_own_that_holds_seeds_can_be_played() {
    let mut game = Game::new(lagos());
    game.play(pit(1)).unwrap();
    game.play(pit(1)).unwrap();
    let err = game.play(pit(1)).unwrap_err();
    assert_eq!(
        err,
        MoveError::Illegal {
            pit: pit(1),
            reason: IllegalReason::EmptyPit
        }
    );
    assert_eq!(game.ply(), 2, "a refused move changes nothing");
}

#[test]
fn twelve_or_more_seeds_go_round_and_skip_the_pit_they_came_from() {
    let start = position([12, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], Side::South);
    let (after, sown) = sow(&lagos(), start, 1);
    assert_eq!(after.pits(), [0, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    assert_eq!(
        sown.captured, 0,
        "the last seed lands on the mover's own row"
    );
}

#[test]
fn two_laps_skip_the_origin_twice_and_still_capture() {
    // 22 seeds: two whole laps of the other eleven pits; the last lands in North's pit 6.
    let start = position_with(
        [22, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1],
        [12, 11],
        Side::South,
        0,
    );
    let (after, sown) = sow(&lagos(), start, 1);
    assert_eq!(
        sown.captured,
        3 + 2 + 2 + 2 + 2,
        "North's pits 6 back to 2; pit 1 holds 4"
    );
    assert_eq!(after.pits(), [0, 2, 2, 2, 2, 2, 4, 0, 0, 0, 0, 0]);
    assert_eq!(after.stores(), [23, 11]);
}

// ---- Capturing -------------------------------------------------------------------------------

#[test]
fn a_last_seed_making_two_on_the_opponents_row_captures_them() {
    let start = position([4, 4, 4, 4, 4, 1, 1, 4, 4, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 6);
    assert_eq!(sown.captured, 2);
    assert_eq!(after.pits(), [4, 4, 4, 4, 4, 0, 0, 4, 4, 4, 4, 4]);
    assert_eq!(after.stores(), [5, 3]);
}

#[test]
fn a_last_seed_making_three_on_the_opponents_row_captures_them() {
    let start = position([4, 4, 4, 4, 4, 1, 2, 4, 4, 4, 4, 3], Side::South);
    let (after, sown) = sow(&lagos(), start, 6);
    assert_eq!(sown.captured, 3);
    assert_eq!(after.pits()[6], 0);
}

#[test]
fn north_captures_on_south_row_the_same_way() {
    let start = position([1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1], Side::North);
    let (after, sown) = sow(&lagos(), start, 6);
    assert_eq!(sown.captured, 2);
    assert_eq!(after.pits()[0], 0);
    assert_eq!(after.stores()[1], start.stores()[1] + 2);
}

#[test]
fn the_capture_goes_back_pit_by_pit_while_they_hold_two_or_three() {
    // South's pit 3 (6 seeds) ends in North's pit 3; North's pits 3 and 2 make 3 and 2.
    let start = position([0, 0, 6, 0, 0, 0, 5, 1, 2, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 3);
    assert_eq!(sown.captured, 3 + 2);
    assert_eq!(after.pits(), [0, 0, 0, 1, 1, 1, 6, 0, 0, 4, 4, 4]);
}

#[test]
fn the_capture_chain_stops_at_a_pit_of_four() {
    let start = position([0, 0, 6, 0, 0, 0, 3, 1, 2, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 3);
    assert_eq!(sown.captured, 5);
    assert_eq!(
        after.pits()[6],
        4,
        "North's pit 1 made 4 and stops the chain"
    );
}

#[test]
fn the_capture_chain_stops_at_a_pit_of_one() {
    let start = position([0, 0, 6, 0, 0, 0, 1, 0, 2, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 3);
    assert_eq!(
        sown.captured, 3,
        "North's pit 2 made 1: only pit 3 is taken"
    );
    assert_eq!(after.pits()[6..9], [2, 1, 0]);
}

#[test]
fn the_capture_chain_stops_at_the_movers_own_row() {
    // Pit 5 (3 seeds): own pit 6 makes 2, North's pits 1 and 2 make 2 each.
    let start = position([0, 0, 0, 0, 3, 1, 1, 1, 4, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 5);
    assert_eq!(sown.captured, 4);
    assert_eq!(
        after.pits()[5],
        2,
        "seeds in one's own row are never captured"
    );
    assert_eq!(after.pits()[6..8], [0, 0]);
}

#[test]
fn a_last_seed_on_the_movers_own_row_captures_nothing() {
    let start = position([2, 0, 1, 0, 0, 0, 4, 4, 4, 4, 4, 4], Side::South);
    let (after, sown) = sow(&lagos(), start, 1);
    assert_eq!(sown.captured, 0);
    assert_eq!(after.pits()[2], 2);
}

#[test]
fn a_last_seed_making_one_or_four_or_more_captures_nothing() {
    for (before, after_pit) in [(0, 1), (3, 4), (5, 6)] {
        let start = position([0, 0, 0, 0, 0, 1, before, 4, 4, 4, 4, 4], Side::South);
        let (after, sown) = sow(&lagos(), start, 6);
        assert_eq!(sown.captured, 0, "a pit of {before} made {after_pit}");
        assert_eq!(after.pits()[6], after_pit);
    }
}

#[test]
fn a_capture_resets_the_count_of_moves_without_capture() {
    let start = position_with(
        [4, 4, 4, 4, 4, 1, 1, 4, 4, 4, 4, 4],
        [3, 3],
        Side::South,
        17,
    );
    let (after, _) = sow(&lagos(), start, 6);
    assert_eq!(after.since_capture(), 0);
    let (after, _) = sow(&lagos(), after, 2);
    assert_eq!(after.since_capture(), 1);
}

// ---- The grand slam --------------------------------------------------------------------------

/// South's pit 5 makes North's pits 1 and 2 hold 2 and 3: every seed North has.
fn grand_slam_position(south: [u8; 6]) -> Position {
    let mut pits = [0; 12];
    pits[..6].copy_from_slice(&south);
    pits[6] = 1;
    pits[7] = 2;
    position(pits, Side::South)
}

#[test]
fn lagos_a_grand_slam_is_allowed_and_captures_nothing() {
    let start = grand_slam_position([4, 4, 4, 4, 3, 4]);
    let game = game_from(Preset::Lagos, start, &[5]);
    let after = game.position();
    assert_eq!(after.stores(), start.stores(), "nothing captured");
    assert_eq!(
        after.pits(),
        [4, 4, 4, 4, 0, 5, 2, 3, 0, 0, 0, 0],
        "the seeds stay where they land"
    );
    let (_, sown) = sow(&lagos(), start, 5);
    assert!(sown.grand_slam);
}

#[test]
fn kontest_a_grand_slam_is_allowed_and_captures_nothing() {
    let start = grand_slam_position([4, 4, 4, 4, 3, 4]);
    let game = game_from(Preset::Kontest, start, &[5]);
    assert_eq!(game.position().stores(), start.stores());
}

#[test]
fn a_grand_slam_does_not_reset_the_count_of_moves_without_capture() {
    let start = grand_slam_position([4, 4, 4, 4, 3, 4]);
    let start = position_with(start.pits(), start.stores(), Side::South, 5);
    let (after, _) = sow(&lagos(), start, 5);
    assert_eq!(after.since_capture(), 6);
}

#[test]
fn oware_a_grand_slam_is_illegal_when_another_move_exists() {
    let start = grand_slam_position([4, 4, 4, 4, 3, 4]);
    let mut game = Game::from_position(Preset::Oware.rules(), start);
    // Pit 4 ends in the same place with the same grand slam.
    assert_eq!(legal(&game), [1, 2, 3, 6]);
    let err = game.play(pit(5)).unwrap_err();
    assert_eq!(
        err,
        MoveError::Illegal {
            pit: pit(5),
            reason: IllegalReason::GrandSlam
        }
    );
    assert_eq!(game.ply(), 0);
}

#[test]
fn oware_a_grand_slam_is_played_and_captures_nothing_when_every_move_is_one() {
    let start = grand_slam_position([0, 0, 0, 0, 3, 0]);
    let game = game_from(Preset::Oware, start, &[5]);
    assert_eq!(game.position().stores(), start.stores());
    assert_eq!(game.position().pits(), [0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0]);
}

#[test]
fn oware_a_feeding_move_that_is_a_grand_slam_is_refused_as_a_grand_slam() {
    // Pit 1 (22 seeds) feeds North's empty row with 2s and then would take them all.
    let start = position_with(
        [22, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        [13, 12],
        Side::South,
        0,
    );
    let mut game = Game::from_position(Preset::Oware.rules(), start);
    assert_eq!(legal(&game), [6]);
    let err = game.play(pit(1)).unwrap_err();
    assert_eq!(
        err,
        MoveError::Illegal {
            pit: pit(1),
            reason: IllegalReason::GrandSlam
        }
    );
}

#[test]
fn the_grand_slam_switch_can_be_overridden() {
    let start = grand_slam_position([4, 4, 4, 4, 3, 4]);
    let rules = Rules::build("lagos", ["grand_slam=illegal"]).unwrap();
    assert!(!start.legal_moves(&rules).contains(pit(5)));
}

// ---- Feeding ---------------------------------------------------------------------------------

#[test]
fn an_opponent_with_no_seeds_must_be_fed_when_a_move_can() {
    let start = position([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], Side::South);
    let mut game = Game::from_position(lagos(), start);
    assert_eq!(legal(&game), [6]);
    let err = game.play(pit(1)).unwrap_err();
    assert_eq!(
        err,
        MoveError::Illegal {
            pit: pit(1),
            reason: IllegalReason::MustFeed
        }
    );
    game.play(pit(6)).unwrap();
    assert_eq!(game.position().row_seeds(Side::North), 1);
}

#[test]
fn feeding_counts_a_long_pit_that_reaches_round() {
    // Pit 1 with 6 seeds reaches North's pit 1; pit 2 with 4 does not.
    let start = position([6, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], Side::South);
    let game = Game::from_position(lagos(), start);
    assert_eq!(legal(&game), [1]);
}

#[test]
fn when_no_move_can_feed_the_game_ends_and_each_side_keeps_its_own_row() {
    // South's last seed goes over; North's two seeds cannot reach South's row.
    let start = position_with(
        [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0],
        [24, 22],
        Side::South,
        0,
    );
    let game = game_from(Preset::Lagos, start, &[6]);
    assert!(game.is_over());
    assert_eq!(game.end_reason(), Some(EndReason::NoLegalMove));
    assert_eq!(
        game.position().stores(),
        [24, 24],
        "North adds the 2 on its own row"
    );
    assert_eq!(game.position().pits(), [0; 12]);
    assert_eq!(game.status(), Status::Draw);
    assert_eq!(game.to_move(), None);
    assert!(game.legal_moves().is_empty());
}

// ---- Winning and ending ----------------------------------------------------------------------

#[test]
fn more_than_twenty_four_wins_at_once_and_the_board_stays() {
    let start = position_with(
        [0, 0, 0, 0, 0, 1, 1, 4, 4, 4, 4, 3],
        [23, 4],
        Side::South,
        0,
    );
    let game = game_from(Preset::Lagos, start, &[6]);
    assert_eq!(game.status(), Status::SouthWon);
    assert_eq!(game.end_reason(), Some(EndReason::Majority));
    assert_eq!(game.position().stores(), [25, 4]);
    assert_eq!(
        game.position().pits(),
        [0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 3],
        "no sweep"
    );
}

#[test]
fn twenty_four_all_is_a_draw() {
    let start = position_with(
        [0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0],
        [24, 22],
        Side::South,
        0,
    );
    let game = Game::from_position(lagos(), start);
    assert_eq!(game.status(), Status::Draw);
    assert_eq!(game.end_reason(), Some(EndReason::NoLegalMove));
    assert_eq!(game.position().stores(), [24, 24]);
}

#[test]
fn the_no_capture_limit_names_the_end_when_no_legal_move_falls_on_the_same_ply() {
    let start = position_with(
        [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0],
        [24, 22],
        Side::South,
        59,
    );
    let game = game_from(Preset::Lagos, start, &[6]);
    assert_eq!(game.end_reason(), Some(EndReason::NoCaptureLimit));
    assert_eq!(game.status(), Status::Draw, "the same sweep either way");
}

#[test]
fn the_no_capture_limit_names_the_end_when_repetition_falls_on_the_same_ply() {
    let rules = Rules::build("oware", ["no_capture_limit=12"]).unwrap();
    assert_eq!(
        play_chase(rules, 100).end_reason(),
        Some(EndReason::NoCaptureLimit)
    );
}

#[test]
fn the_player_to_move_with_no_move_ends_the_game_and_each_keeps_its_own_row() {
    let start = position_with(
        [0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0],
        [20, 22],
        Side::South,
        0,
    );
    let game = Game::from_position(lagos(), start);
    assert_eq!(game.end_reason(), Some(EndReason::NoLegalMove));
    assert_eq!(game.position().stores(), [20, 28]);
    assert_eq!(game.status(), Status::NorthWon);
}

/// One seed on each side chasing each other round: no capture, and the position comes round
/// again every 12 plies (South's pit 6 feeds North, North must feed back with its pit 6, ...).
fn chase() -> Position {
    position_with(
        [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1],
        [23, 23],
        Side::South,
        0,
    )
}

const CHASE_CYCLE: [u8; 12] = [6, 6, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];

fn play_chase(rules: Rules, plies: usize) -> Game {
    let mut game = Game::from_position(rules, chase());
    for &n in CHASE_CYCLE.iter().cycle().take(plies) {
        if game.is_over() {
            break;
        }
        game.play(pit(n))
            .unwrap_or_else(|e| panic!("ply {}: {e}", game.ply()));
    }
    game
}

#[test]
fn lagos_sixty_plies_without_a_capture_end_the_game_with_the_sweep() {
    let game = play_chase(lagos(), 1000);
    assert_eq!(game.ply(), 60, "a move is a ply: 60 of them");
    assert_eq!(game.end_reason(), Some(EndReason::NoCaptureLimit));
    assert_eq!(game.position().stores(), [24, 24]);
    assert_eq!(game.status(), Status::Draw);
}

#[test]
fn the_no_capture_limit_ends_the_game_on_the_limiting_ply_not_before() {
    let before = position_with(
        [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4],
        [0, 0],
        Side::South,
        58,
    );
    let game = game_from(Preset::Lagos, before, &[1]);
    assert!(!game.is_over(), "59 plies without capture");
    let game = game_from(Preset::Lagos, before, &[1, 1]);
    assert_eq!(game.end_reason(), Some(EndReason::NoCaptureLimit));
    assert_eq!(game.position().stores(), [24, 24]);
}

#[test]
fn kontest_a_hundred_plies_without_a_capture_end_the_game() {
    let game = play_chase(Preset::Kontest.rules(), 1000);
    assert_eq!(game.ply(), 100);
    assert_eq!(game.end_reason(), Some(EndReason::NoCaptureLimit));
}

#[test]
fn oware_a_repeated_position_ends_the_game_with_the_sweep() {
    let game = play_chase(Preset::Oware.rules(), 1000);
    assert_eq!(
        game.ply(),
        12,
        "the first position comes round again after 12 plies"
    );
    assert_eq!(game.end_reason(), Some(EndReason::Repetition));
    assert_eq!(game.position().stores(), [24, 24]);
}

#[test]
fn lagos_ignores_repetition() {
    let rules = Rules::build("lagos", ["no_capture_limit=0"]).unwrap();
    let game = play_chase(rules, 1200);
    assert!(!game.is_over());
    assert_eq!(game.ply(), 1200);
}

#[test]
fn a_no_capture_limit_of_zero_is_no_limit() {
    let rules = Rules::build("oware", ["repetition=ignored"]).unwrap();
    assert!(!play_chase(rules, 600).is_over());
}

#[test]
fn repetition_can_be_switched_on_for_lagos() {
    let rules = Rules::build("lagos", ["repetition=ends_game"]).unwrap();
    assert_eq!(
        play_chase(rules, 100).end_reason(),
        Some(EndReason::Repetition)
    );
}

#[test]
fn resigning_timing_out_and_abandoning_lose_and_agreeing_draws() {
    for (forfeit, reason) in [
        (Forfeit::Resigned, EndReason::Resigned),
        (Forfeit::Timeout, EndReason::Timeout),
        (Forfeit::Abandoned, EndReason::Abandoned),
    ] {
        let mut game = Game::new(lagos());
        assert!(game.forfeit(Side::South, forfeit));
        assert_eq!(game.status(), Status::NorthWon);
        assert_eq!(game.end_reason(), Some(reason));
        assert!(!game.agree_draw(), "a game over stays over");
        assert_eq!(game.play(pit(1)), Err(MoveError::GameOver));
    }
    let mut game = Game::new(lagos());
    assert!(game.agree_draw());
    assert_eq!(game.state().end_reason, Some(EndReason::AgreedDraw));
    assert_eq!(game.state().status, Status::Draw);
}
