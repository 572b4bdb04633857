//! Glicko-2 as the lounge uses it: the maths is `skillratings`' (pinned), each game its own
//! rating period, one rating a rule family.
//!
//! Each game is its own rating period: a rating changes as soon as the game ends, and a
//! deviation does not grow with time away (Glickman's step 6 is applied once a game, with the
//! game, never for days without one). Rebuilding replays the games in the order their results
//! were stored and comes to the same numbers.

use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use crate::ayo::{Capture, Rules, Sowing};

/// A rule family: games of one family are rated together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Abapa-like: one lap of sowing, capturing 2s and 3s (lagos, kontest, oware, and any
    /// rules with those two switches, whatever their endings: grand slam, the no-capture
    /// limit, repetition and timeouts change how a game ends, not how it is played).
    Abapa,
    /// Relay sowing, capturing 4s (`ayoayo`).
    Ayoayo,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Abapa, Family::Ayoayo];

    /// The family of `rules`; `None` for rules of neither (relay sowing with 2-3 captures,
    /// one lap with 4s): those games are not rated.
    pub fn of(rules: &Rules) -> Option<Family> {
        match (rules.sowing, rules.capture) {
            (Sowing::Single, Capture::TwoThree) => Some(Family::Abapa),
            (Sowing::Relay, Capture::Four) => Some(Family::Ayoayo),
            _ => None,
        }
    }

    /// As stored and shown.
    pub fn word(self) -> &'static str {
        match self {
            Family::Abapa => "abapa",
            Family::Ayoayo => "ayoayo",
        }
    }

    pub fn from_word(word: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.word() == word)
    }
}

/// A player's rating in a family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// How ratings are computed: the `[ratings]` settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingRules {
    /// Glicko-2's tau (0.5 by default, Glickman's example's).
    pub tau: f64,
    /// A newcomer's rating.
    pub initial: Rating,
    /// Provisional while the deviation is at or above this.
    pub provisional_deviation: f64,
}

impl Default for RatingRules {
    fn default() -> RatingRules {
        RatingRules {
            tau: 0.5,
            initial: Rating {
                rating: 1500.0,
                deviation: 350.0,
                volatility: 0.06,
            },
            provisional_deviation: 110.0,
        }
    }
}

impl RatingRules {
    /// Whether `rating` is provisional (shown with "?").
    pub fn provisional(&self, rating: &Rating) -> bool {
        rating.deviation >= self.provisional_deviation
    }

    fn config(&self) -> Glicko2Config {
        Glicko2Config {
            tau: self.tau,
            ..Glicko2Config::new()
        }
    }

    /// Both players' ratings after one game (its own rating period): `score` is the first's,
    /// 1 a win, 0 a loss, 0.5 a draw.
    pub fn game(&self, first: Rating, second: Rating, score: f64) -> (Rating, Rating) {
        let outcome = if score > 0.5 {
            Outcomes::WIN
        } else if score < 0.5 {
            Outcomes::LOSS
        } else {
            Outcomes::DRAW
        };
        let (a, b) = glicko2(&to(first), &to(second), &outcome, &self.config());
        (from(a), from(b))
    }

    /// One player's rating after a rating period of several games: `(opponent, score)`.
    pub fn period(&self, player: Rating, games: &[(Rating, f64)]) -> Rating {
        let games: Vec<(Glicko2Rating, Outcomes)> = games
            .iter()
            .map(|(o, s)| {
                let outcome = if *s > 0.5 {
                    Outcomes::WIN
                } else if *s < 0.5 {
                    Outcomes::LOSS
                } else {
                    Outcomes::DRAW
                };
                (to(*o), outcome)
            })
            .collect();
        from(skillratings::glicko2::glicko2_rating_period(
            &to(player),
            &games,
            &self.config(),
        ))
    }
}

fn to(r: Rating) -> Glicko2Rating {
    Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    }
}

fn from(r: Glicko2Rating) -> Rating {
    Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::Preset;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    fn round(x: f64, places: i32) -> f64 {
        let k = 10f64.powi(places);
        (x * k).round() / k
    }

    /// Glickman, "Example of the Glicko-2 system" (2013), tau 0.5: 1500/200/0.06 against
    /// 1400/30, 1550/100 and 1700/300, winning the first and losing the others.
    #[test]
    fn glickmans_worked_example_comes_out_to_his_decimals() {
        let rules = RatingRules::default();
        let after = rules.period(
            r(1500.0, 200.0),
            &[
                (r(1400.0, 30.0), 1.0),
                (r(1550.0, 100.0), 0.0),
                (r(1700.0, 300.0), 0.0),
            ],
        );
        // Exactly, 1464.0507: the paper rounds mu' to four places (-0.2069) before it goes
        // back to the Glicko scale, which makes its 1464.06.
        let mu = round((after.rating - 1500.0) / 173.7178, 4);
        assert_eq!(mu, -0.2069);
        assert_eq!(round(173.7178 * mu + 1500.0, 2), 1464.06);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert_eq!(round(after.deviation, 2), 151.52);
        // 0.0599960: the paper shows its first five decimals.
        assert!((after.volatility - 0.05999).abs() < 1e-5, "{after:?}");
    }

    #[test]
    fn one_game_is_a_period_of_one_game() {
        let rules = RatingRules::default();
        let (a, b) = (r(1620.0, 80.0), r(1480.0, 190.0));
        let (a2, b2) = rules.game(a, b, 0.0);
        assert_eq!(a2, rules.period(a, &[(b, 0.0)]));
        assert_eq!(b2, rules.period(b, &[(a, 1.0)]));
    }

    #[test]
    fn a_win_never_lowers_a_rating_and_a_loss_never_raises_one() {
        let rules = RatingRules::default();
        let ratings = [100.0, 900.0, 1500.0, 2100.0, 3000.0];
        let deviations = [30.0, 60.0, 150.0, 350.0];
        let volatilities = [0.01, 0.06, 0.2];
        for &ra in &ratings {
            for &da in &deviations {
                for &va in &volatilities {
                    for &rb in &ratings {
                        for &db in &deviations {
                            let a = Rating {
                                rating: ra,
                                deviation: da,
                                volatility: va,
                            };
                            let b = r(rb, db);
                            let (won, lost) = rules.game(a, b, 1.0);
                            assert!(won.rating >= a.rating, "{a:?} beat {b:?}: {won:?}");
                            assert!(lost.rating <= b.rating, "{b:?} lost to {a:?}: {lost:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_winner_gains_more_from_beating_a_stronger_player() {
        let rules = RatingRules::default();
        let me = r(1500.0, 100.0);
        let weak = rules.game(me, r(1300.0, 100.0), 1.0).0.rating - me.rating;
        let strong = rules.game(me, r(1700.0, 100.0), 1.0).0.rating - me.rating;
        assert!(strong > weak, "{strong} > {weak}");
    }

    #[test]
    fn a_newcomer_is_provisional_until_the_deviation_falls_below_the_threshold() {
        let rules = RatingRules::default();
        let mut me = rules.initial;
        let opponent = r(1500.0, 50.0);
        assert!(rules.provisional(&me));
        let mut games = 0;
        while rules.provisional(&me) {
            me = rules.game(me, opponent, f64::from(games % 2)).0;
            games += 1;
            assert!(games < 100, "still provisional after 100 games: {me:?}");
        }
        assert!(me.deviation < rules.provisional_deviation);
        assert!(games > 3, "{games} games");
    }

    #[test]
    fn the_presets_fall_in_their_families() {
        assert_eq!(Family::of(&Preset::Lagos.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Kontest.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Oware.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Ayoayo.rules()), Some(Family::Ayoayo));
    }

    #[test]
    fn custom_rules_are_in_a_family_by_their_sowing_and_capture_switches() {
        // Endings do not change the family.
        let ended_otherwise = Rules {
            no_capture_limit: 0,
            grand_slam: crate::ayo::GrandSlam::Illegal,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&ended_otherwise), Some(Family::Abapa));
        // An ayoayo preset with Abapa's switches plays Abapa.
        let abapa_from_ayoayo = Rules {
            sowing: Sowing::Single,
            capture: Capture::TwoThree,
            ..Preset::Ayoayo.rules()
        };
        assert_eq!(Family::of(&abapa_from_ayoayo), Some(Family::Abapa));
        // Mixed switches are neither.
        let relay_two_three = Rules {
            sowing: Sowing::Relay,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&relay_two_three), None);
        let single_four = Rules {
            capture: Capture::Four,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&single_four), None);
        for f in Family::ALL {
            assert_eq!(Family::from_word(f.word()), Some(f));
        }
    }
}
