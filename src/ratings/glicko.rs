//! Glicko-2 as the lounge uses it: the maths is `skillratings`' (pinned), each game its own
//! rating period, one rating a rule family.
//!
//! Each game is its own rating period: a rating changes as soon as the game ends, and a
//! deviation does not grow with time away (Glickman's step 6 is applied once a game, with the
//! game, never for days without one). Rebuilding replays the games in the order their results
//! were stored and comes to the same numbers.

use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

pub use crate::ayo::Family;

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
}
