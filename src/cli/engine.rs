//! `lounge ayo engine`: JSON lines in, a move a line out.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::ayo::house::{self, Ask, Level};
use crate::ayo::{Game, Pit, Rules};
use crate::house::{Budgets, Endgames};

use super::matches::Minds;

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
            book: false,
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
