//! The reference figures of docs/engine.md, "Perft and reference figures".

use lounge::ayo::{perft, Game, Pit, Position, Preset, Rules, Side, Status};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Perft from the start, depths 1 to 12 (Abapa rules).
const PERFT: [u64; 12] = [
    6,
    36,
    190,
    1_014,
    5_219,
    27_332,
    139_157,
    711_414,
    3_592_872,
    18_137_964,
    91_558_687,
    460_005_710,
];

#[test]
fn lagos_perft_matches_the_reference_figures_to_depth_nine() {
    let rules = Preset::Lagos.rules();
    for depth in 1..=9 {
        assert_eq!(
            perft(&Position::start(), &rules, depth),
            PERFT[depth as usize - 1],
            "depth {depth}"
        );
    }
}

#[test]
fn kontest_perft_matches_the_reference_figures() {
    // The two Abapa presets differ only past depth 60 (the no-capture limit).
    let rules = Preset::Kontest.rules();
    for depth in 1..=7 {
        assert_eq!(
            perft(&Position::start(), &rules, depth),
            PERFT[depth as usize - 1]
        );
    }
}

#[test]
fn perft_zero_is_one_and_a_finished_game_counts_once() {
    let rules = Preset::Lagos.rules();
    assert_eq!(perft(&Position::start(), &rules, 0), 1);
    let over = Position::new(
        [0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0],
        [24, 22],
        Side::South,
        0,
    )
    .unwrap();
    assert_eq!(perft(&over, &rules, 5), 1);
}

/// Random play, uniform over legal moves, Abapa with repetition ending the game: the figures of
/// docs/engine.md (103.5 plies on average, 310 at most over 2,000 games; South 45.3%, North 49.6%,
/// draws 5.1%). The seed is fixed, so the run is the same every time; the bands are about four
/// standard errors wide.
#[test]
fn random_play_matches_the_reference_statistics() {
    let rules = Rules::build("lagos", ["repetition=ends_game", "no_capture_limit=0"]).unwrap();
    let mut rng = SmallRng::seed_from_u64(2026);
    let games = 2_000;
    let (mut plies, mut longest, mut south, mut north, mut draws) = (0u64, 0u32, 0, 0, 0);
    for _ in 0..games {
        let mut game = Game::new(rules);
        while !game.is_over() {
            let legal = game.legal_moves();
            let pit: Pit = legal.nth(rng.random_range(0..legal.len())).unwrap();
            game.play(pit).unwrap();
        }
        plies += u64::from(game.ply());
        longest = longest.max(game.ply());
        match game.status() {
            Status::SouthWon => south += 1,
            Status::NorthWon => north += 1,
            _ => draws += 1,
        }
    }
    let mean = plies as f64 / games as f64;
    let pct = |n: i32| 100.0 * f64::from(n) / f64::from(games);
    assert!((99.0..=108.0).contains(&mean), "mean game length {mean}");
    assert!((200..=450).contains(&longest), "longest game {longest}");
    assert!(
        (41.0..=49.5).contains(&pct(south)),
        "South won {}%",
        pct(south)
    );
    assert!(
        (45.5..=54.0).contains(&pct(north)),
        "North won {}%",
        pct(north)
    );
    assert!((3.0..=7.5).contains(&pct(draws)), "draws {}%", pct(draws));
}
