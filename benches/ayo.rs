//! Throughput of the Ayo rules engine: move generation and sowing, random playouts with and
//! without the game record, perft, and Baba Ayo's search (nodes a second at a fixed depth).
//!
//! Run with `cargo bench --bench ayo`. Every benchmark reports elements per second: moves
//! applied, plies played or perft leaves. All work is deterministic (seeded `SmallRng`), so the
//! element count of one iteration is known before timing starts and is checked against what the
//! iteration actually did.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lounge::ayo::search::{Limits, Searcher};
use lounge::ayo::{perft, Game, Moves, Pit, Position, Preset, Rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Mid-game positions for `generate_and_apply`.
const POSITIONS: usize = 1000;
/// Whole games per iteration of the playout benchmarks.
const GAMES: usize = 100;
const POSITIONS_SEED: u64 = 0x00A7_0001;
const PLAYOUT_SEED: u64 = 0x00A7_0002;

/// `POSITIONS` positions where the game goes on, each taken at a random ply (8 to 80) of a
/// random `lagos` game from the start.
fn mid_game_positions() -> Vec<Position> {
    let rules = Rules::default();
    let mut rng = SmallRng::seed_from_u64(POSITIONS_SEED);
    let mut out = Vec::with_capacity(POSITIONS);
    while out.len() < POSITIONS {
        let target = rng.random_range(8..=80u32);
        let mut position = Position::start();
        for ply in 0..=target {
            let legal = position.legal_moves(&rules);
            if position.end_reason(&rules, legal, false).is_some() {
                break;
            }
            if ply == target {
                out.push(position);
                break;
            }
            position.sow(&rules, pick(&mut rng, legal));
        }
    }
    out
}

/// Generates the legal moves of every position and applies each one to a copy; returns the
/// number of moves applied.
fn generate_and_apply(positions: &[Position], rules: &Rules) -> u64 {
    let mut applied = 0;
    for position in positions {
        let legal = position.legal_moves(rules);
        for pit in legal.iter() {
            let mut next = *position;
            black_box(next.sow(rules, pit));
            black_box(&next);
            applied += 1;
        }
    }
    applied
}

fn pick(rng: &mut SmallRng, legal: Moves) -> Pit {
    legal.nth(rng.random_range(0..legal.len())).unwrap()
}

/// `games` uniformly random games from the start with `Position` alone; returns the plies.
fn random_playouts(rules: &Rules, games: usize, seed: u64) -> u64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut plies = 0;
    for _ in 0..games {
        let mut position = Position::start();
        loop {
            let legal = position.legal_moves(rules);
            if position.end_reason(rules, legal, false).is_some() {
                break;
            }
            position.sow(rules, pick(&mut rng, legal));
            plies += 1;
        }
        black_box(&position);
    }
    plies
}

/// The same games through `Game`, which keeps the moves and the repetition history.
fn random_games(rules: &Rules, games: usize, seed: u64) -> u64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut plies = 0;
    for _ in 0..games {
        let mut game = Game::new(*rules);
        while !game.is_over() {
            let pit = pick(&mut rng, game.legal_moves());
            black_box(game.play(pit).unwrap());
            plies += 1;
        }
        black_box(game.status());
    }
    plies
}

fn benches(c: &mut Criterion) {
    let positions = mid_game_positions();
    {
        let mut group = c.benchmark_group("generate_and_apply");
        for preset in [Preset::Lagos, Preset::Oware, Preset::Ayoayo] {
            let rules = preset.rules();
            let moves = generate_and_apply(&positions, &rules);
            group.throughput(Throughput::Elements(moves));
            group.bench_function(preset.name(), |b| {
                b.iter(|| {
                    let n = generate_and_apply(black_box(&positions), black_box(&rules));
                    assert_eq!(n, moves);
                    n
                })
            });
        }
        group.finish();
    }
    {
        let mut group = c.benchmark_group("random_playout");
        for preset in [Preset::Lagos, Preset::Ayoayo] {
            let rules = preset.rules();
            let plies = random_playouts(&rules, GAMES, PLAYOUT_SEED);
            group.throughput(Throughput::Elements(plies));
            group.bench_function(preset.name(), |b| {
                b.iter(|| {
                    let n = random_playouts(black_box(&rules), GAMES, black_box(PLAYOUT_SEED));
                    assert_eq!(n, plies);
                    n
                })
            });
        }
        group.finish();
    }
    {
        let mut group = c.benchmark_group("game_record");
        let rules = Preset::Oware.rules();
        let plies = random_games(&rules, GAMES, PLAYOUT_SEED);
        group.throughput(Throughput::Elements(plies));
        group.bench_function(Preset::Oware.name(), |b| {
            b.iter(|| {
                let n = random_games(black_box(&rules), GAMES, black_box(PLAYOUT_SEED));
                assert_eq!(n, plies);
                n
            })
        });
        group.finish();
    }
    {
        let mut group = c.benchmark_group("perft");
        let rules = Rules::default();
        group.throughput(Throughput::Elements(139_157));
        group.bench_function("lagos_depth_7", |b| {
            b.iter(|| {
                let n = perft(black_box(&Position::start()), black_box(&rules), 7);
                assert_eq!(n, 139_157);
                n
            })
        });
        group.finish();
    }
    {
        // A fresh searcher a position (an empty table), so every iteration visits the same
        // nodes; the throughput is nodes a second.
        let mut group = c.benchmark_group("search_depth_9");
        let games: Vec<Game> = positions
            .iter()
            .step_by(125)
            .map(|p| Game::from_position(Rules::default(), *p))
            .collect();
        for preset in [Preset::Lagos, Preset::Oware] {
            let rules = preset.rules();
            let games: Vec<Game> = games
                .iter()
                .map(|g| Game::from_position(rules, *g.position()))
                .filter(|g| !g.is_over())
                .collect();
            let search = |games: &[Game]| -> u64 {
                games
                    .iter()
                    .map(|g| {
                        let mut s = Searcher::new(rules, 18, None);
                        s.think(g, Limits::depth(9)).map_or(0, |t| t.nodes)
                    })
                    .sum()
            };
            let nodes = search(&games);
            group.throughput(Throughput::Elements(nodes));
            group.bench_function(preset.name(), |b| {
                b.iter(|| {
                    let n = search(black_box(&games));
                    assert_eq!(n, nodes);
                    n
                })
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = ayo;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(ayo);
