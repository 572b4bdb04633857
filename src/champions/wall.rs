//! The wall: a day's standings, in Redis or in this process, with the same behaviour.
//!
//! Recording a win is idempotent per game and one step: Redis runs one Lua script, the
//! in-process wall holds one lock. A winner's wins over one loser count at most `cap` times a
//! day. Ranking: most wins, then most seeds in those wins, then whoever got there first.
//!
//! Beside a day's standings lies its marker, "filled": set once the day was filled from the
//! database. A wall that lost its data (a Redis restarted empty) has lost the marker too, so
//! the champions service notices and fills the day again before it answers or adds a win.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

use chrono::NaiveDate;
use serde::Serialize;
use thiserror::Error;

use crate::common::{GameId, User, UserId};

/// A counted win on its way to the wall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinRecord {
    pub game_id: GameId,
    /// The hotel's day it ended.
    pub day: NaiveDate,
    pub winner: User,
    pub loser_id: UserId,
    pub seeds: u32,
    /// Milliseconds from the start of the day to the end of the game: who got there first.
    pub at_ms: u64,
}

/// What recording did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    Counted,
    /// Past the per-opponent cap: seen, not counted.
    Capped,
    /// This game was recorded before.
    Duplicate,
    /// Not recorded: the day has no marker (the wall lost it), so it must be filled first.
    Unfilled,
}

/// One line of the wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Standing {
    pub rank: usize,
    #[schema(value_type = Object)]
    pub user: User,
    pub wins: u32,
    pub seeds: u32,
}

#[derive(Debug, Error)]
pub enum WallError {
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("the wall holds something unexpected: {0}")]
    Corrupt(String),
}

/// A player's day so far.
#[derive(Debug, Clone)]
struct Tally {
    user: User,
    wins: u32,
    seeds: u32,
    at_ms: u64,
}

/// Tallies in wall order, ranked: wins, then seeds, then who got there first.
fn ranked(tallies: Vec<Tally>, limit: usize) -> Vec<Standing> {
    ranked_by(tallies, limit, |a, b| {
        b.wins.cmp(&a.wins).then(b.seeds.cmp(&a.seeds))
    })
}

/// Tallies ranked by `order`, then who got there first.
fn ranked_by(
    mut tallies: Vec<Tally>,
    limit: usize,
    order: impl Fn(&Tally, &Tally) -> std::cmp::Ordering,
) -> Vec<Standing> {
    tallies.sort_by(|a, b| {
        order(a, b)
            .then(a.at_ms.cmp(&b.at_ms))
            .then(a.user.id.cmp(&b.user.id))
    });
    tallies
        .into_iter()
        .take(limit)
        .enumerate()
        .map(|(i, t)| Standing {
            rank: i + 1,
            user: t.user,
            wins: t.wins,
            seeds: t.seeds,
        })
        .collect()
}

/// One day of the in-process wall.
#[derive(Debug, Default)]
struct Day {
    /// The marker: filled from the database.
    filled: bool,
    games: HashSet<GameId>,
    pairs: HashMap<(UserId, UserId), u32>,
    tallies: HashMap<UserId, Tally>,
}

impl Day {
    fn record(&mut self, win: &WinRecord, cap: u32) -> Recorded {
        if !self.games.insert(win.game_id.clone()) {
            return Recorded::Duplicate;
        }
        let pair = self
            .pairs
            .entry((win.winner.id.clone(), win.loser_id.clone()))
            .or_default();
        *pair += 1;
        if *pair > cap {
            return Recorded::Capped;
        }
        let tally = self
            .tallies
            .entry(win.winner.id.clone())
            .or_insert_with(|| Tally {
                user: win.winner.clone(),
                wins: 0,
                seeds: 0,
                at_ms: 0,
            });
        tally.user.name = win.winner.name.clone();
        tally.wins += 1;
        tally.seeds += win.seeds;
        // When they got there: the latest of their wins, whatever order they arrive in.
        tally.at_ms = tally.at_ms.max(win.at_ms);
        Recorded::Counted
    }
}

/// The wall in this process: for `cargo run` without Redis, and to rank stored results.
#[derive(Debug)]
pub struct MemoryWall {
    days: Mutex<BTreeMap<NaiveDate, Day>>,
    cap: u32,
    /// Days kept, the newest recorded included.
    keep_days: u32,
}

impl MemoryWall {
    pub fn new(cap: u32, keep_days: u32) -> MemoryWall {
        MemoryWall {
            days: Mutex::default(),
            cap,
            keep_days: keep_days.max(1),
        }
    }

    fn days(&self) -> std::sync::MutexGuard<'_, BTreeMap<NaiveDate, Day>> {
        self.days
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn record(&self, win: &WinRecord) -> Recorded {
        self.record_checked(win, false)
    }

    /// Records `win` only on a day with its marker; `Unfilled` otherwise.
    pub fn record_filled(&self, win: &WinRecord) -> Recorded {
        self.record_checked(win, true)
    }

    fn record_checked(&self, win: &WinRecord, check: bool) -> Recorded {
        let mut days = self.days();
        if check && !days.get(&win.day).is_some_and(|d| d.filled) {
            return Recorded::Unfilled;
        }
        let recorded = days.entry(win.day).or_default().record(win, self.cap);
        // Days past the kept ones expire, as Redis keys do.
        if let Some(newest) = days.keys().next_back().copied() {
            let oldest = newest - chrono::Days::new(u64::from(self.keep_days - 1));
            days.retain(|day, _| *day >= oldest);
        }
        recorded
    }

    pub fn top(&self, day: NaiveDate, limit: usize) -> Vec<Standing> {
        ranked(self.tallies(day), limit)
    }

    /// The house board's order: seeds first, then wins, then who got there first.
    pub fn top_by_seeds(&self, day: NaiveDate, limit: usize) -> Vec<Standing> {
        ranked_by(self.tallies(day), limit, |a, b| {
            b.seeds.cmp(&a.seeds).then(b.wins.cmp(&a.wins))
        })
    }

    fn tallies(&self, day: NaiveDate) -> Vec<Tally> {
        self.days()
            .get(&day)
            .map(|d| d.tallies.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Forgets a day, its marker too.
    pub fn clear(&self, day: NaiveDate) {
        self.days().remove(&day);
    }

    pub fn filled(&self, day: NaiveDate) -> bool {
        self.days().get(&day).is_some_and(|d| d.filled)
    }

    pub fn mark_filled(&self, day: NaiveDate) {
        self.days().entry(day).or_default().filled = true;
    }
}

/// The wall in Redis. A day's keys share the hash tag `{champions:YYYY-MM-DD}`, so they live
/// on one node of a cluster, and expire after the configured days.
pub struct RedisWall {
    conn: redis::aio::ConnectionManager,
    prefix: String,
    cap: u32,
    ttl_secs: u64,
    script: redis::Script,
}

/// KEYS: games (set), pairs (hash), stats (hash: "wins seeds at_ms"), names (hash), rank
/// (sorted set), the marker. ARGV: game, winner, loser, seeds, at_ms, cap, ttl, winner's name,
/// `1` to record only on a day with its marker.
/// The rank score packs wins (10 bits), seeds (16 bits) and the time left in the day
/// (27 bits) into the 53 bits a double holds exactly: one ZREVRANGE reads the wall in order.
const RECORD: &str = r"
if ARGV[9] == '1' and redis.call('EXISTS', KEYS[6]) == 0 then return 'unfilled' end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 'duplicate' end
local result = 'capped'
local n = redis.call('HINCRBY', KEYS[2], ARGV[2] .. '|' .. ARGV[3], 1)
if n <= tonumber(ARGV[6]) then
  local wins, seeds, at = 0, 0, 0
  local cur = redis.call('HGET', KEYS[3], ARGV[2])
  if cur then
    local w, s, a = string.match(cur, '^(%d+) (%d+) (%d+)')
    wins, seeds, at = tonumber(w), tonumber(s), tonumber(a)
  end
  wins = wins + 1
  seeds = seeds + tonumber(ARGV[4])
  -- When they got there: the latest of their wins, whatever order they arrive in.
  at = math.max(at, tonumber(ARGV[5]))
  redis.call('HSET', KEYS[3], ARGV[2], wins .. ' ' .. seeds .. ' ' .. at)
  redis.call('HSET', KEYS[4], ARGV[2], ARGV[8])
  local score = math.min(wins, 1023) * 8796093022208 + math.min(seeds, 65535) * 134217728
    + (134217727 - math.min(at, 134217727))
  redis.call('ZADD', KEYS[5], string.format('%.0f', score), ARGV[2])
  result = 'counted'
end
for i = 1, 6 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
return result
";

impl RedisWall {
    pub fn new(
        conn: redis::aio::ConnectionManager,
        prefix: &str,
        cap: u32,
        keep_days: u32,
    ) -> RedisWall {
        RedisWall {
            conn,
            prefix: prefix.to_owned(),
            cap,
            ttl_secs: u64::from(keep_days.max(1)) * 86_400,
            script: redis::Script::new(RECORD),
        }
    }

    /// The day's keys: games, pairs, stats, names, rank.
    pub fn keys(&self, day: NaiveDate) -> [String; 5] {
        let tag = format!("{}{{champions:{}}}", self.prefix, day.format("%Y-%m-%d"));
        ["games", "pairs", "stats", "names", "rank"].map(|k| format!("{tag}:{k}"))
    }

    /// The day's marker: the day was filled from the database.
    pub fn marker(&self, day: NaiveDate) -> String {
        format!(
            "{}{{champions:{}}}:filled",
            self.prefix,
            day.format("%Y-%m-%d")
        )
    }

    pub async fn record(&self, win: &WinRecord) -> Result<Recorded, WallError> {
        self.record_checked(win, false).await
    }

    /// Records `win` only on a day with its marker; `Unfilled` otherwise.
    pub async fn record_filled(&self, win: &WinRecord) -> Result<Recorded, WallError> {
        self.record_checked(win, true).await
    }

    async fn record_checked(&self, win: &WinRecord, check: bool) -> Result<Recorded, WallError> {
        let keys = self.keys(win.day);
        let mut conn = self.conn.clone();
        let answer: String = self
            .script
            .key(&keys[..])
            .key(self.marker(win.day))
            .arg(win.game_id.as_str())
            .arg(win.winner.id.as_str())
            .arg(win.loser_id.as_str())
            .arg(win.seeds)
            .arg(win.at_ms)
            .arg(self.cap)
            .arg(self.ttl_secs)
            .arg(&win.winner.name)
            .arg(if check { "1" } else { "0" })
            .invoke_async(&mut conn)
            .await?;
        match answer.as_str() {
            "counted" => Ok(Recorded::Counted),
            "capped" => Ok(Recorded::Capped),
            "duplicate" => Ok(Recorded::Duplicate),
            "unfilled" => Ok(Recorded::Unfilled),
            other => Err(WallError::Corrupt(format!("the script answered `{other}`"))),
        }
    }

    pub async fn top(&self, day: NaiveDate, limit: usize) -> Result<Vec<Standing>, WallError> {
        let [_, _, stats, names, rank] = self.keys(day);
        let mut conn = self.conn.clone();
        // The last index to read; -1 is the end (no limit).
        let last = i64::try_from(limit.max(1)).map_or(-1, |n| n - 1);
        let ids: Vec<String> = redis::cmd("ZREVRANGE")
            .arg(&rank)
            .arg(0)
            .arg(last)
            .query_async(&mut conn)
            .await?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let (stats, names): (Vec<Option<String>>, Vec<Option<String>>) = redis::pipe()
            .cmd("HMGET")
            .arg(&stats)
            .arg(&ids)
            .cmd("HMGET")
            .arg(&names)
            .arg(&ids)
            .query_async(&mut conn)
            .await?;
        let mut tallies = Vec::new();
        for ((id, stat), name) in ids.into_iter().zip(stats).zip(names) {
            let stat = stat.ok_or_else(|| WallError::Corrupt(format!("no stats for {id}")))?;
            let mut parts = stat.split(' ').map(str::parse::<u64>);
            let (Some(Ok(wins)), Some(Ok(seeds)), Some(Ok(at_ms))) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(WallError::Corrupt(format!("stats `{stat}` for {id}")));
            };
            tallies.push(Tally {
                user: User {
                    name: name.unwrap_or_default(),
                    id: id.into(),
                    house: false,
                    ratings: Default::default(),
                },
                wins: wins as u32,
                seeds: seeds as u32,
                at_ms,
            });
        }
        Ok(ranked(tallies, limit))
    }

    /// Deletes a day, its marker too.
    pub async fn clear(&self, day: NaiveDate) -> Result<(), WallError> {
        let mut conn = self.conn.clone();
        let _: i64 = redis::cmd("DEL")
            .arg(&self.keys(day)[..])
            .arg(self.marker(day))
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    pub async fn filled(&self, day: NaiveDate) -> Result<bool, WallError> {
        let mut conn = self.conn.clone();
        let n: i64 = redis::cmd("EXISTS")
            .arg(self.marker(day))
            .query_async(&mut conn)
            .await?;
        Ok(n == 1)
    }

    /// Sets the marker, to expire with the day's data.
    pub async fn mark_filled(&self, day: NaiveDate) -> Result<(), WallError> {
        let mut conn = self.conn.clone();
        let _: () = redis::cmd("SET")
            .arg(self.marker(day))
            .arg(1)
            .arg("EX")
            .arg(self.ttl_secs)
            .query_async(&mut conn)
            .await?;
        Ok(())
    }
}

/// The wall in use.
pub enum Wall {
    Redis(RedisWall),
    Memory(MemoryWall),
}

impl Wall {
    pub async fn record(&self, win: &WinRecord) -> Result<Recorded, WallError> {
        match self {
            Wall::Redis(w) => w.record(win).await,
            Wall::Memory(w) => Ok(w.record(win)),
        }
    }

    /// Records `win` only on a day with its marker; `Unfilled` otherwise.
    pub async fn record_filled(&self, win: &WinRecord) -> Result<Recorded, WallError> {
        match self {
            Wall::Redis(w) => w.record_filled(win).await,
            Wall::Memory(w) => Ok(w.record_filled(win)),
        }
    }

    /// Whether the day has its marker (was filled from the database and not lost since).
    pub async fn filled(&self, day: NaiveDate) -> Result<bool, WallError> {
        match self {
            Wall::Redis(w) => w.filled(day).await,
            Wall::Memory(w) => Ok(w.filled(day)),
        }
    }

    pub async fn mark_filled(&self, day: NaiveDate) -> Result<(), WallError> {
        match self {
            Wall::Redis(w) => w.mark_filled(day).await,
            Wall::Memory(w) => {
                w.mark_filled(day);
                Ok(())
            }
        }
    }

    pub async fn top(&self, day: NaiveDate, limit: usize) -> Result<Vec<Standing>, WallError> {
        match self {
            Wall::Redis(w) => w.top(day, limit).await,
            Wall::Memory(w) => Ok(w.top(day, limit)),
        }
    }

    pub async fn clear(&self, day: NaiveDate) -> Result<(), WallError> {
        match self {
            Wall::Redis(w) => w.clear(day).await,
            Wall::Memory(w) => {
                w.clear(day);
                Ok(())
            }
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            Wall::Redis(_) => "redis",
            Wall::Memory(_) => "in-process",
        }
    }
}
