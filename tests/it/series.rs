//! Matches over several games: scoring, early finish, who moves first.

use lounge::world::series::{BestOf, GameOutcome, Series};

fn best_of(n: u8) -> Series {
    Series::new(BestOf::try_from(n).unwrap())
}

#[test]
fn only_best_of_one_three_five_or_seven() {
    for n in [1, 3, 5, 7] {
        assert!(BestOf::try_from(n).is_ok());
    }
    for n in [0, 2, 4, 9] {
        assert!(BestOf::try_from(n).is_err());
    }
    assert!(serde_json::from_str::<BestOf>("4").is_err());
    assert_eq!(
        serde_json::to_string(&BestOf::try_from(5).unwrap()).unwrap(),
        "5"
    );
}

#[test]
fn the_first_past_half_wins_and_the_match_ends_early() {
    let mut s = best_of(5);
    s.record(GameOutcome::Won(0));
    s.record(GameOutcome::Won(0));
    assert_eq!(s.result(), None);
    s.record(GameOutcome::Won(0));
    // 3 of 5: past half, with two games unplayed.
    assert_eq!(s.result(), Some(Some(0)));
    assert_eq!(s.played, 3);
    // Nothing counts after the end.
    s.record(GameOutcome::Won(1));
    assert_eq!(s.points(), [3.0, 0.0]);
}

#[test]
fn a_draw_is_half_each_and_level_after_every_game_is_a_drawn_match() {
    let mut s = best_of(3);
    s.record(GameOutcome::Draw);
    s.record(GameOutcome::Won(1));
    assert_eq!(s.points(), [0.5, 1.5]);
    assert_eq!(s.result(), None, "1.5 of 3 is not past half");
    s.record(GameOutcome::Won(0));
    assert_eq!(s.points(), [1.5, 1.5]);
    assert_eq!(s.result(), Some(None));
    let mut one = best_of(1);
    one.record(GameOutcome::Draw);
    assert_eq!(one.result(), Some(None));
}

#[test]
fn the_first_move_swaps_every_game() {
    let mut s = best_of(7);
    let mut starts = Vec::new();
    for _ in 0..4 {
        starts.push(s.first_player_starts());
        s.record(GameOutcome::Draw);
    }
    assert_eq!(starts, [true, false, true, false]);
}

#[test]
fn a_match_resigned_or_abandoned_between_games() {
    let mut s = best_of(5);
    s.record(GameOutcome::Won(1));
    s.end_early(Some(1));
    assert_eq!(
        s.result(),
        Some(Some(0)),
        "resigning the match loses it, even ahead"
    );
    let mut nobody = best_of(5);
    nobody.record(GameOutcome::Won(1));
    nobody.end_early(None);
    assert_eq!(
        nobody.result(),
        Some(Some(1)),
        "nobody pressed start: the leader wins"
    );
    let mut level = best_of(3);
    level.end_early(None);
    assert_eq!(level.result(), Some(None));
}

mod live {
    use lounge::ayo::{Side, Status};
    use lounge::common::Seating;
    use lounge::common::{MatchId, UserId};
    use lounge::world::matches::{GameEnd, LiveMatch, MatchEnd, MatchSettings, PlayedGame};
    use lounge::world::series::BestOf;
    use lounge::world::User;

    fn person(id: &str) -> User {
        User {
            id: UserId::new(id),
            name: id.into(),
            house: false,
            ratings: Default::default(),
        }
    }

    fn best_of(n: u8) -> LiveMatch {
        let settings = MatchSettings {
            best_of: BestOf::try_from(n).unwrap(),
            ..MatchSettings::default()
        };
        LiveMatch::new(MatchId::new("m"), settings, [person("a"), person("b")])
    }

    /// Game `number`, played with `south` South, ending `result`.
    fn game(number: u8, south: &str, result: Status) -> PlayedGame {
        PlayedGame {
            game_id: format!("g{number}").into(),
            number,
            south: UserId::new(south),
            north: UserId::new(if south == "a" { "b" } else { "a" }),
            result,
            reason: GameEnd::Game(lounge::ayo::EndReason::Resigned),
        }
    }

    #[test]
    fn a_match_drawn_by_agreement_is_drawn_even_when_the_game_put_someone_past_half() {
        let mut m = best_of(3);
        m.record(game(1, "a", Status::SouthWon));
        m.record(game(2, "b", Status::Draw));
        assert_eq!(m.series.points(), [1.5, 0.5]);
        // Game 3 is agreed drawn with the match: by games alone 2-1 would win it for a.
        m.ending = Some((None, MatchEnd::AgreedDraw));
        assert!(m.record(game(3, "a", Status::Draw)));
        assert_eq!(m.winner(), None);
        assert_eq!(m.end, Some(MatchEnd::AgreedDraw));
        assert_eq!(m.view().game, 3, "once over, the games played");
    }

    #[test]
    fn resigning_the_match_in_a_game_that_decides_it_says_resigned() {
        let mut m = best_of(3);
        m.record(game(1, "a", Status::SouthWon));
        m.ending = Some((Some(1), MatchEnd::Resigned));
        assert!(m.record(game(2, "b", Status::NorthWon)));
        assert_eq!(m.winner().map(|w| w.id.as_str()), Some("a"));
        assert_eq!(m.end, Some(MatchEnd::Resigned));
        // Resigning the match in the last game while ahead: level by games, lost all the same.
        let mut m = best_of(3);
        m.record(game(1, "a", Status::SouthWon));
        m.record(game(2, "b", Status::Draw));
        m.ending = Some((Some(0), MatchEnd::Resigned));
        assert!(m.record(game(3, "a", Status::NorthWon)));
        assert_eq!(m.series.points(), [1.5, 1.5]);
        assert_eq!(m.winner().map(|w| w.id.as_str()), Some("b"));
        // A room closing while the deciding game ends: decided by the games.
        let mut m = best_of(1);
        m.ending = Some((None, MatchEnd::CalledOff));
        m.record(game(1, "a", Status::NorthWon));
        assert_eq!(m.end, Some(MatchEnd::Games));
        assert_eq!(m.winner().map(|w| w.id.as_str()), Some("b"));
    }

    #[test]
    fn kept_seats_stay_put_the_first_move_swaps_and_each_win_goes_to_who_sat_there() {
        let settings = MatchSettings {
            best_of: BestOf::try_from(3).unwrap(),
            seats: Seating::Kept,
            ..MatchSettings::default()
        };
        // a drew the first move by lots, sitting North.
        let mut m = LiveMatch::new(MatchId::new("m"), settings, [person("a"), person("b")])
            .seated(Side::North);
        let ids = |m: &LiveMatch| m.seats().map(|u| u.id.to_string());
        assert_eq!(ids(&m), ["b", "a"]);
        assert_eq!(m.first_mover(), Side::North);
        m.record(game(1, "b", Status::NorthWon));
        assert_eq!(m.series.points(), [1.0, 0.0], "North's win is a's");
        assert_eq!(ids(&m), ["b", "a"], "nobody moved");
        assert_eq!(m.first_mover(), Side::South);
        m.record(game(2, "b", Status::SouthWon));
        assert_eq!(m.series.points(), [1.0, 1.0], "South's win is b's");
        assert_eq!(m.first_mover(), Side::North);
        assert_eq!(ids(&m), ["b", "a"]);
    }
}
