//! `lounge ayo engine` (JSON lines in, a move a line out) and `lounge ayo tune` (the
//! evaluation's weights by self-play).

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::ayo::house::{self, Ask, Level};
use crate::ayo::{Game, Pit, Rules};
use crate::house::{Budgets, Endgames};

use super::matches::{xorshift, Minds, Tally};

/// One analysis request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    #[serde(default)]
    moves: Vec<i64>,
    rules: Option<String>,
    #[serde(default)]
    rule: Map<String, Value>,
    level: Option<String>,
    movetime_ms: Option<u64>,
}

/// The longest think a request may ask for: a minute.
const MAX_MOVETIME_MS: u64 = 60_000;

/// Answers each request line with one JSON line; a bad request gets `{"error"}` and the
/// engine goes on.
pub fn engine(
    default_rules: &str,
    budgets: &Budgets,
    endgames: &Endgames,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    // One searcher a level and rule set, kept from request to request.
    let mut minds = HashMap::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match answer(&line, default_rules, budgets, endgames, &mut minds) {
            Ok(v) => v,
            Err(e) => json!({"error": e}),
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
    Ok(())
}

fn answer(
    line: &str,
    default_rules: &str,
    budgets: &Budgets,
    endgames: &Endgames,
    minds: &mut Minds,
) -> Result<Value, String> {
    let request: Request =
        serde_json::from_str(line).map_err(|e| format!("a request is one JSON object: {e}"))?;
    let overrides: Vec<String> = request
        .rule
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    let rules = Rules::build(
        request.rules.as_deref().unwrap_or(default_rules),
        overrides.iter().map(String::as_str),
    )
    .map_err(|e| e.to_string())?;
    let level: Level = request.level.as_deref().unwrap_or("champion").parse()?;
    let game = replay(rules, &request.moves)?;
    if game.is_over() {
        return Err(format!(
            "the game is over after {} moves: {:?}",
            game.ply(),
            game.status()
        ));
    }
    let movetime = match request.movetime_ms {
        Some(ms) if ms == 0 || ms > MAX_MOVETIME_MS => {
            return Err(format!("movetime_ms is 1 to {MAX_MOVETIME_MS}, not {ms}"))
        }
        Some(ms) => Duration::from_millis(ms),
        None => budgets.of(level),
    };
    let searcher = minds
        .entry((level, serde_json::to_string(&rules).unwrap_or_default()))
        .or_insert_with(|| {
            let endgame = (level == Level::Champion)
                .then(|| endgames.get(&rules))
                .flatten();
            house::mind(level, &rules, endgame)
        });
    let thought = house::think_with(
        searcher,
        Ask {
            game: &game,
            level,
            movetime,
            endgame: None,
            seed: game.ply() as u64 + 1,
            stop: None,
        },
    )
    .ok_or("the game is over")?;
    Ok(json!({
        "move": thought.best,
        "score": thought.score,
        "proven": thought.proven,
        "depth": thought.depth,
        "nodes": thought.nodes,
        "pv": thought.pv,
    }))
}

fn replay(rules: Rules, moves: &[i64]) -> Result<Game, String> {
    let mut game = Game::new(rules);
    for (i, &m) in moves.iter().enumerate() {
        let pit = u8::try_from(m)
            .ok()
            .and_then(Pit::new)
            .ok_or_else(|| format!("move {i}: a pit is a number from 1 to 6, not {m}"))?;
        game.play(pit).map_err(|e| format!("move {i} ({m}): {e}"))?;
    }
    Ok(game)
}

/// Self-play tuning of the evaluation: coordinate descent, each weight nudged up and down in
/// turn and kept where the nudged evaluation beats the current one over `games` games at a
/// fixed depth (colours alternating, random openings). Prints each step and the weights.
pub fn tune(
    rules: Rules,
    rounds: u32,
    games: u32,
    depth: u32,
    mut out: impl Write,
) -> io::Result<crate::ayo::eval::Weights> {
    use crate::ayo::eval::Weights;
    use crate::ayo::search::{Limits, Searcher};
    // `n` games from openings numbered from `first`.
    let play = |a: Weights, b: Weights, first: u32, n: u32| -> Tally {
        let next = AtomicUsize::new(0);
        let tally = Mutex::new(Tally::default());
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    let mut sa = Searcher::new(rules, 16, None).with_weights(a);
                    let mut sb = Searcher::new(rules, 16, None).with_weights(b);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed) as u32;
                        if i >= n {
                            break;
                        }
                        let a_south = i.is_multiple_of(2);
                        let i = i + first;
                        let mut rng =
                            0x51_7CC1_B727_220Au64 ^ u64::from(i / 2 + 1).wrapping_mul(0x9E37_79B9);
                        let mut game = Game::new(rules);
                        for _ in 0..6 {
                            let legal = game.legal_moves();
                            if game.is_over() {
                                break;
                            }
                            let pit = legal.nth((xorshift(&mut rng) % legal.len() as u64) as usize);
                            game.play(pit.expect("within the set")).expect("legal");
                        }
                        while !game.is_over() {
                            let south = game.position().to_move() == crate::ayo::Side::South;
                            let searcher = if south == a_south { &mut sa } else { &mut sb };
                            let t = searcher
                                .think(&game, Limits::depth(depth))
                                .expect("not over");
                            game.play(t.best).expect("legal");
                        }
                        let mut t = tally.lock().expect("no panics");
                        match game.status().winner() {
                            None => t.draws += 1,
                            Some(s) if (s == crate::ayo::Side::South) == a_south => t.wins += 1,
                            Some(_) => t.losses += 1,
                        }
                    }
                });
            }
        });
        tally.into_inner().unwrap_or_default()
    };
    let mut best = Weights::default();
    type Field = fn(&mut Weights) -> &mut i32;
    let fields: [(&str, Field); 5] = [
        ("row", |w| &mut w.row),
        ("target", |w| &mut w.target),
        ("exposed", |w| &mut w.exposed),
        ("mobility", |w| &mut w.mobility),
        ("kroo", |w| &mut w.kroo),
    ];
    for round in 1..=rounds {
        for (name, field) in fields {
            for factor in [3, -1] {
                let mut candidate = best;
                let w = field(&mut candidate);
                // Up by half, or down by a third, at least a step of 4.
                let step = (*w / 2).max(4);
                *w = if factor > 0 {
                    *w + step
                } else {
                    (*w - step * 2 / 3).max(0)
                };
                let t = play(candidate, best, 0, games);
                let (score, ci) = t.score();
                let kept = score - ci / 2.0 > 0.5;
                writeln!(
                    out,
                    "round {round} {name} {} -> {}: {:.1}% ± {:.1}% over {} games{}",
                    field(&mut best.clone()),
                    field(&mut candidate.clone()),
                    score * 100.0,
                    ci * 100.0,
                    t.games(),
                    if kept { ": kept" } else { "" }
                )?;
                out.flush()?;
                if kept {
                    best = candidate;
                    break;
                }
            }
        }
    }
    // The whole gain, checked over twice the games.
    let start = Weights::default();
    if best != start {
        // Openings the tuning never saw.
        let games_each = games * 2;
        let t = play(best, start, games, games_each);
        let (score, ci) = t.score();
        writeln!(
            out,
            "tuned against the starting weights: {:.1}% ± {:.1}% over {games_each} games",
            score * 100.0,
            ci * 100.0
        )?;
    }
    writeln!(
        out,
        "{}",
        serde_json::to_string(&best).map_err(io::Error::other)?
    )?;
    Ok(best)
}
