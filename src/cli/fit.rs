//! `lounge ayo fit`: the evaluation's weights fitted by least squares to what positions turned
//! out to be worth.
//!
//! Baba Ayo plays himself from random openings at a fixed depth; every quiet position (the
//! mover has no capture, so the evaluation is what the search would stand on) is labelled by
//! the seeds the mover went on to gain: the game's final margin, or the endgame database's
//! exact value at the first position it covers, less the margin in the stores then. The
//! evaluation's pit table is the one that predicts that gain best: least squares, with a small
//! ridge that pulls each entry towards where it started, so an entry that positions seldom
//! count (a pit of 14 seeds) stays near it. Positions the database covers are not fitted:
//! there the search reads values, not the evaluation. Games numbered 9 mod 10 are held out,
//! and the error on their positions says whether the fit generalises.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use crate::ayo::endgame::Endgame;
use crate::ayo::eval::{sweep_near, terms, Weights, TERMS};
use crate::ayo::search::{Limits, Searcher, SEED};
use crate::ayo::{Game, Position, Rules, Side};

use super::matches::xorshift;

/// One labelled position: the pit-table entries it counts and the gain that followed, in
/// 1/256 seed; held out of the fit when `held_out`.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub terms: [usize; 12],
    pub gain: i32,
    pub held_out: bool,
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct Fit {
    pub positions: usize,
    pub games: u32,
    /// Root mean square error of the predicted gain, in seeds, with the weights before and
    /// after, on the positions fitted and on those held out.
    pub error_before: f64,
    pub error_after: f64,
    pub held_out_before: f64,
    pub held_out_after: f64,
    pub weights: Weights,
}

/// Plays `games` games at `depth` and fits the weights of `start` to their positions.
pub fn fit(
    rules: Rules,
    games: u32,
    depth: u32,
    endgame: Option<Arc<Endgame>>,
    start: Weights,
) -> Fit {
    let samples = self_play(rules, games, depth, endgame, start);
    let (held, fitted): (Vec<Sample>, Vec<Sample>) = samples.iter().partition(|s| s.held_out);
    let prior = start.terms().map(f64::from);
    let solved = least_squares(&fitted, &prior, 1e-3).unwrap_or(prior);
    let weights = start.with_terms(&solved.map(|w| w.round() as i32));
    Fit {
        positions: samples.len(),
        games,
        error_before: rmse(&fitted, &start.terms()),
        error_after: rmse(&fitted, &weights.terms()),
        held_out_before: rmse(&held, &start.terms()),
        held_out_after: rmse(&held, &weights.terms()),
        weights,
    }
}

/// Runs [`fit`] and prints what it found, the weights last as JSON.
pub fn run(
    rules: Rules,
    games: u32,
    depth: u32,
    endgame: Option<Arc<Endgame>>,
    mut out: impl Write,
) -> io::Result<Weights> {
    let start = Weights::for_rules(&rules);
    let f = fit(rules, games, depth, endgame, start);
    writeln!(
        out,
        "{} quiet positions from {} games at depth {depth}; error of the predicted gain {:.3} seeds before, {:.3} after; on the games held out {:.3} before, {:.3} after",
        f.positions, f.games, f.error_before, f.error_after, f.held_out_before, f.held_out_after
    )?;
    writeln!(
        out,
        "{}",
        serde_json::to_string(&f.weights).map_err(io::Error::other)?
    )?;
    Ok(f.weights)
}

/// The labelled quiet positions of `games` self-play games, on two threads.
fn self_play(
    rules: Rules,
    games: u32,
    depth: u32,
    endgame: Option<Arc<Endgame>>,
    weights: Weights,
) -> Vec<Sample> {
    let next = AtomicU32::new(0);
    let samples = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let mut searcher = Searcher::new(rules, 20, endgame.clone()).with_weights(weights);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= games {
                        break;
                    }
                    let found = one_game(&mut searcher, rules, depth, endgame.as_deref(), i);
                    samples.lock().expect("no panics").extend(found);
                }
            });
        }
    });
    samples.into_inner().unwrap_or_default()
}

/// Game `i`: 6 to 11 random plies, then the searcher against itself.
fn one_game(
    searcher: &mut Searcher,
    rules: Rules,
    depth: u32,
    endgame: Option<&Endgame>,
    i: u32,
) -> Vec<Sample> {
    let mut rng = 0x2545_F491_4F6C_DD1Du64 ^ u64::from(i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut game = Game::new(rules);
    for _ in 0..6 + xorshift(&mut rng) % 6 {
        let legal = game.legal_moves();
        match legal.nth((xorshift(&mut rng) % legal.len().max(1) as u64) as usize) {
            Some(pit) if !game.is_over() => game.play(pit).expect("a legal move"),
            _ => break,
        };
    }
    // Quiet positions met, and the margin (South's) the game came to.
    let mut seen: Vec<(Position, [usize; 12])> = Vec::new();
    let mut settled = None;
    while !game.is_over() {
        let p = *game.position();
        if let Some((lo, hi)) = endgame.and_then(|db| db.bounds(&p)) {
            // The database knows the rest exactly (or only bounds: the game goes on).
            if lo == hi {
                settled = Some(south_margin(&p) + lo * sign(p.to_move()));
                break;
            }
        } else if quiet(&p, &rules) && !sweep_near(&p, &rules) {
            seen.push((p, terms(&p)));
        }
        let Some(t) = searcher.think(&game, Limits::depth(depth)) else {
            break;
        };
        game.play(t.best).expect("the searcher plays legal moves");
    }
    let end = settled.unwrap_or_else(|| south_margin(game.position()));
    seen.into_iter()
        .map(|(p, terms)| Sample {
            terms,
            gain: (end - south_margin(&p)) * sign(p.to_move()) * SEED,
            held_out: i % 10 == 9,
        })
        .collect()
}

fn sign(side: Side) -> i32 {
    match side {
        Side::South => 1,
        Side::North => -1,
    }
}

fn south_margin(p: &Position) -> i32 {
    i32::from(p.stores()[0]) - i32::from(p.stores()[1])
}

/// The mover has no capture: the search would stand on the evaluation here.
fn quiet(p: &Position, rules: &Rules) -> bool {
    p.legal_moves(rules).iter().all(|pit| {
        let mut child = *p;
        child.sow(rules, pit).captured == 0
    })
}

/// The predicted gain's error with `weights`, in seeds.
fn rmse(samples: &[Sample], weights: &[i32; TERMS]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let predicted: i32 = s.terms.iter().map(|&t| weights[t]).sum();
            let e = f64::from(s.gain - predicted) / f64::from(SEED);
            e * e
        })
        .sum();
    (sum / samples.len() as f64).sqrt()
}

/// The weights minimising the mean squared error of the summed entries against `gain`, plus
/// `ridge` times the squared distance of each weight from `prior`: the normal equations,
/// solved by Gaussian elimination with partial pivoting. `None` for too few samples.
pub fn least_squares(samples: &[Sample], prior: &[f64; TERMS], ridge: f64) -> Option<[f64; TERMS]> {
    if samples.len() < 2 * 12 {
        return None;
    }
    let n = samples.len() as f64;
    // The augmented matrix [X'X/n + ridge I | X'y/n + ridge prior], a row at a time.
    let mut a = vec![[0f64; TERMS + 1]; TERMS];
    for s in samples {
        for &r in &s.terms {
            for &c in &s.terms {
                a[r][c] += 1.0 / n;
            }
            a[r][TERMS] += f64::from(s.gain) / n;
        }
    }
    for (r, row) in a.iter_mut().enumerate() {
        row[r] += ridge;
        row[TERMS] += ridge * prior[r];
    }
    for col in 0..TERMS {
        let pivot = (col..TERMS).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col];
        for (r, row) in a.iter_mut().enumerate() {
            if r != col && row[col] != 0.0 {
                let f = row[col] / pivot_row[col];
                for c in col..=TERMS {
                    row[c] -= f * pivot_row[c];
                }
            }
        }
    }
    Some(std::array::from_fn(|i| a[i][TERMS] / a[i][i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::Preset;

    /// Gains made exactly of known weights give those weights back where positions count
    /// them, and leave the prior where none does.
    #[test]
    fn least_squares_recovers_known_weights() {
        let truth: [f64; TERMS] = std::array::from_fn(|i| ((i * 37) % 23) as f64 * 10.0 - 110.0);
        let mut rng = 7u64;
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                // Only seed counts below 8 occur: the rest of the table is never counted.
                let terms: [usize; 12] = std::array::from_fn(|pit| {
                    pit * crate::ayo::eval::BUCKETS + (xorshift(&mut rng) % 8) as usize
                });
                let gain = terms.iter().map(|&t| truth[t]).sum::<f64>();
                Sample {
                    terms,
                    gain: gain as i32,
                    held_out: false,
                }
            })
            .collect();
        let prior = [5.0; TERMS];
        let w = least_squares(&samples, &prior, 1e-6).expect("enough samples");
        let predict = |s: &Sample, w: &[f64; TERMS]| s.terms.iter().map(|&t| w[t]).sum::<f64>();
        for s in &samples[..100] {
            assert!((predict(s, &w) - f64::from(s.gain)).abs() < 1.0, "{s:?}");
        }
        // Entry 8 of every pit was never counted: it stays at the prior.
        for pit in 0..12 {
            let never = pit * crate::ayo::eval::BUCKETS + 8;
            assert!((w[never] - 5.0).abs() < 1e-6, "entry {never}: {}", w[never]);
        }
        assert!(least_squares(&samples[..3], &prior, 0.0).is_none());
    }

    /// A small fit plays its games, labels their quiet positions, and predicts their gain no
    /// worse than the weights it began with.
    #[test]
    fn a_fit_predicts_the_gain_better() {
        let rules = Preset::Lagos.rules();
        let db = Endgame::build(&rules, 6).map(Arc::new);
        assert!(db.is_some(), "the lagos rules have a database");
        let start = Weights::for_rules(&rules);
        let f = fit(rules, 20, 2, db.clone(), start);
        assert!(f.positions > 100, "{} positions", f.positions);
        assert!(f.error_after <= f.error_before + 1e-9, "{f:?}");
        assert!(
            f.held_out_before > 0.0,
            "games 9 and 19 were held out: {f:?}"
        );
        // Gains are whole seeds, and none is more than all the seeds there are.
        let samples = self_play(rules, 4, 2, db, start);
        assert!(!samples.is_empty());
        assert!(samples
            .iter()
            .all(|s| s.gain % SEED == 0 && s.gain.abs() <= 48 * SEED));
    }
}
