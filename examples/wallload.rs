//! Load tool for the champions wall: records wins as fast as the wall takes them from many
//! tasks at once (1,000 players, 10,000 games by default) and reads the top ten meanwhile;
//! reports records a second and read latency. Redis at `--redis URL`, or the in-process wall
//! without it.
//!
//! ```sh
//! cargo run --release --example wallload -- --redis redis://127.0.0.1:6379 --games 100000
//! cargo run --release --example wallload -- --games 100000
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use lounge::champions::{MemoryWall, RedisWall, Wall, WinRecord};
use lounge::common::{GameId, UserId};
use lounge::world::User;

fn main() {
    let mut redis_url = None;
    let (mut games, mut players, mut tasks) = (10_000u64, 1_000u64, 64u64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        let number = || value.parse::<u64>().expect("a number");
        match flag.as_str() {
            "--redis" => redis_url = Some(value.clone()),
            "--games" => games = number(),
            "--players" => players = number().max(2),
            "--tasks" => tasks = number().max(1),
            other => panic!("unknown flag {other}"),
        }
    }
    actix_web::rt::System::new().block_on(async move {
        let prefix = format!("wallload-{}:", lounge::store::new_id());
        let wall = Arc::new(match &redis_url {
            Some(url) => {
                let conn = redis::Client::open(url.as_str())
                    .expect("a Redis URL")
                    .get_connection_manager()
                    .await
                    .expect("Redis answers");
                Wall::Redis(RedisWall::new(conn, &prefix, 3, 1))
            }
            None => Wall::Memory(MemoryWall::new(3, 1)),
        });
        let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        let started = Instant::now();
        let mut handles = Vec::new();
        for t in 0..tasks {
            let wall = wall.clone();
            handles.push(actix_web::rt::spawn(async move {
                let mut g = t;
                while g < games {
                    let winner = g % players;
                    let loser = (g * 7 + 1) % players;
                    let record = WinRecord {
                        game_id: GameId::new(format!("g{g}")),
                        day,
                        winner: User { id: UserId::new(format!("p{winner}")), name: format!("Player {winner}"), house: false, ratings: Default::default() },
                        loser_id: UserId::new(format!("p{loser}")),
                        seeds: (g % 48) as u32,
                        at_ms: g,
                    };
                    wall.record(&record).await.expect("recorded");
                    g += tasks;
                }
            }));
        }
        // The display reads the top ten meanwhile.
        let reader = {
            let wall = wall.clone();
            actix_web::rt::spawn(async move {
                let mut reads = Vec::new();
                for _ in 0..200 {
                    let t = Instant::now();
                    wall.top(day, 10).await.expect("read");
                    reads.push(t.elapsed());
                    actix_web::rt::time::sleep(Duration::from_millis(5)).await;
                }
                reads
            })
        };
        for h in handles {
            h.await.unwrap();
        }
        let elapsed = started.elapsed();
        let mut reads = reader.await.unwrap();
        reads.sort();
        println!(
            "{} wall: {games} wins recorded in {:.2} s, {:.0}/s from {tasks} tasks; top-10 read p50 {:.3} ms, p99 {:.3} ms",
            wall.describe(),
            elapsed.as_secs_f64(),
            games as f64 / elapsed.as_secs_f64(),
            reads[reads.len() / 2].as_secs_f64() * 1e3,
            reads[reads.len() * 99 / 100].as_secs_f64() * 1e3,
        );
        wall.clear(day).await.expect("cleared");
    });
}
