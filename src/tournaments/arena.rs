//! The arena's rules, pure: a game's points with the streak, and who plays whom among the
//! free players, as lichess runs its arenas.
//!
//! - A win scores 2, a draw 1, a loss 0. Two wins in a row start a streak: while it lasts a
//!   game's points are doubled (a win 4, a draw 2). Anything but a win ends it.
//! - A player who went berserk (half their clock) and won takes one point more, not doubled.
//! - Free players are paired best score first, each with the nearest in score who was not
//!   their last opponent; a player whose only possible opponent is the last one waits. When
//!   there are more free players than seats at the free tables, those who have waited
//!   longest play first (the arena's tables are few; nobody waits round after round).

use crate::common::UserId;

/// How a game went for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Won,
    Drawn,
    Lost,
}

/// Wins in a row after which points are doubled.
pub const STREAK_FROM: i32 = 2;

/// The points a game brings a player who had `wins_in_a_row` before it (and went `berserk`
/// in it or not), and their wins in a row after it.
pub fn points(wins_in_a_row: i32, outcome: Outcome, berserk: bool) -> (i32, i32) {
    let times = if wins_in_a_row >= STREAK_FROM { 2 } else { 1 };
    match outcome {
        Outcome::Won => (
            2 * times + i32::from(berserk),
            wins_in_a_row.saturating_add(1),
        ),
        Outcome::Drawn => (times, 0),
        Outcome::Lost => (0, 0),
    }
}

/// A player free to be paired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Free {
    pub user: UserId,
    pub score: i32,
    /// Whom they played last in this tournament.
    pub last_opponent: Option<UserId>,
    /// Since when they wait: their last pairing, or when they joined (sortable: ms).
    pub since: i64,
}

/// Pairs among `free`, at most `tables` pairs: of those who waited longest, as many as the
/// tables seat (more when the last opponent rule leaves some unpaired), best score first,
/// each with the nearest in score who was not their last opponent (nor they theirs). The
/// same players give the same pairs: ties go by user id.
pub fn pair(mut free: Vec<Free>, tables: usize) -> Vec<[UserId; 2]> {
    free.sort_by(|a, b| a.since.cmp(&b.since).then_with(|| a.user.cmp(&b.user)));
    let mut seats = tables.saturating_mul(2).min(free.len());
    loop {
        let pairs = pair_by_score(free[..seats].to_vec(), tables);
        if pairs.len() == tables || seats == free.len() {
            return pairs;
        }
        seats += 1;
    }
}

/// Best score first, each with the nearest in score who was not their last opponent.
fn pair_by_score(mut free: Vec<Free>, tables: usize) -> Vec<[UserId; 2]> {
    free.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.user.cmp(&b.user)));
    let mut taken = vec![false; free.len()];
    let mut pairs = Vec::new();
    for i in 0..free.len() {
        if pairs.len() == tables {
            break;
        }
        if taken[i] {
            continue;
        }
        let a = &free[i];
        let partner = (i + 1..free.len()).find(|&j| {
            let b = &free[j];
            !taken[j]
                && a.last_opponent.as_ref() != Some(&b.user)
                && b.last_opponent.as_ref() != Some(&a.user)
        });
        if let Some(j) = partner {
            taken[i] = true;
            taken[j] = true;
            pairs.push([a.user.clone(), free[j].user.clone()]);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(user: &str, score: i32, last: Option<&str>) -> Free {
        Free {
            user: UserId::new(user),
            score,
            last_opponent: last.map(UserId::new),
            since: 0,
        }
    }

    fn names(pairs: &[[UserId; 2]]) -> Vec<[&str; 2]> {
        pairs
            .iter()
            .map(|[a, b]| [a.as_str(), b.as_str()])
            .collect()
    }

    #[test]
    fn two_wins_in_a_row_double_the_points_until_a_game_is_not_won() {
        assert_eq!(points(0, Outcome::Won, false), (2, 1));
        assert_eq!(points(1, Outcome::Won, false), (2, 2));
        assert_eq!(points(2, Outcome::Won, false), (4, 3));
        assert_eq!(points(3, Outcome::Drawn, false), (2, 0));
        assert_eq!(points(0, Outcome::Drawn, false), (1, 0));
        assert_eq!(points(5, Outcome::Lost, false), (0, 0));
        // Berserk: one point more for a win, never doubled; nothing for a draw or a loss.
        assert_eq!(points(0, Outcome::Won, true), (3, 1));
        assert_eq!(points(2, Outcome::Won, true), (5, 3));
        assert_eq!(points(0, Outcome::Drawn, true), (1, 0));
        assert_eq!(points(2, Outcome::Lost, true), (0, 0));
    }

    #[test]
    fn players_meet_the_nearest_in_score_never_the_last_opponent_twice_in_a_row() {
        let pairs = pair(
            vec![
                free("a", 10, Some("b")),
                free("b", 9, Some("a")),
                free("c", 8, None),
                free("d", 0, None),
            ],
            4,
        );
        assert_eq!(names(&pairs), [["a", "c"], ["b", "d"]]);
        // Only the last opponent is free: nobody is paired, they wait.
        assert!(pair(vec![free("a", 2, Some("b")), free("b", 0, Some("a"))], 4).is_empty());
        // As many pairs as tables: all having waited as long, the first by id play.
        let pairs = pair(
            vec![
                free("a", 0, None),
                free("b", 4, None),
                free("c", 2, None),
                free("d", 6, None),
            ],
            1,
        );
        assert_eq!(names(&pairs), [["b", "a"]]);
        assert!(pair(vec![free("a", 0, None)], 3).is_empty());
    }

    #[test]
    fn with_few_tables_those_who_waited_longest_play_first() {
        let waited = |user: &str, score: i32, since: i64| Free {
            since,
            ..free(user, score, None)
        };
        let pairs = pair(
            vec![
                waited("a", 8, 30),
                waited("b", 6, 30),
                waited("c", 0, 10),
                waited("d", 0, 20),
                waited("e", 4, 40),
            ],
            1,
        );
        // c and d waited longest: they play, whatever the others' scores.
        assert_eq!(names(&pairs), [["c", "d"]]);
        // d's only candidate is their last opponent c: the next longest waiting is taken.
        let mut d = waited("d", 0, 20);
        d.last_opponent = Some(UserId::new("c"));
        let pairs = pair(
            vec![
                waited("a", 8, 30),
                waited("c", 0, 10),
                d,
                waited("e", 4, 40),
            ],
            1,
        );
        assert_eq!(names(&pairs), [["a", "c"]]);
    }
}
