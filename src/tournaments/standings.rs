//! A tournament's standings: a sorted set of its players by score in Redis (one key a
//! tournament, beside a marker "filled"), or the same in this process. The database holds
//! the scores; a tournament whose marker is gone (a Redis restarted empty) is filled again
//! from it before it is read.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::common::{TournamentId, UserId};

/// A player's place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub user: UserId,
    pub score: i32,
}

/// The standings of every tournament.
pub enum Standings {
    Local(Mutex<HashMap<TournamentId, HashMap<UserId, i32>>>),
    Redis {
        conn: redis::aio::ConnectionManager,
        prefix: String,
    },
}

/// Standings are kept this long after their last change (a finished tournament's record is
/// the database's).
const KEEP_SECS: u64 = 30 * 86_400;

impl Standings {
    pub fn local() -> Standings {
        Standings::Local(Mutex::default())
    }

    pub fn redis(conn: redis::aio::ConnectionManager, prefix: &str) -> Standings {
        Standings::Redis {
            conn,
            prefix: prefix.to_owned(),
        }
    }

    /// The sorted set's key and the marker's: one hash tag a tournament.
    fn keys(prefix: &str, id: &TournamentId) -> [String; 2] {
        let tag = format!("{prefix}{{tournament:{id}}}");
        [format!("{tag}:standings"), format!("{tag}:filled")]
    }

    /// Sets these players' scores (where the tournament was filled; one never filled is
    /// filled from the database when it is read).
    pub async fn set(
        &self,
        id: &TournamentId,
        scores: &[(UserId, i32)],
    ) -> Result<(), redis::RedisError> {
        match self {
            Standings::Local(all) => {
                let mut all = all.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(set) = all.get_mut(id) {
                    set.extend(scores.iter().cloned());
                }
                Ok(())
            }
            Standings::Redis { conn, prefix } => {
                let [set, filled] = Standings::keys(prefix, id);
                let mut conn = conn.clone();
                let known: bool = redis::cmd("EXISTS")
                    .arg(&filled)
                    .query_async(&mut conn)
                    .await?;
                if !known {
                    return Ok(());
                }
                let mut pipe = redis::pipe();
                for (user, score) in scores {
                    pipe.cmd("ZADD")
                        .arg(&set)
                        .arg(*score)
                        .arg(user.as_str())
                        .ignore();
                }
                pipe.cmd("EXPIRE").arg(&set).arg(KEEP_SECS).ignore();
                pipe.cmd("EXPIRE").arg(&filled).arg(KEEP_SECS).ignore();
                pipe.query_async::<()>(&mut conn).await
            }
        }
    }

    /// The standings, best first (ties by user id); `None` when they were never filled or
    /// were lost: fill them (`fill`) from the database.
    pub async fn read(
        &self,
        id: &TournamentId,
    ) -> Result<Option<Vec<Standing>>, redis::RedisError> {
        let mut found: Vec<Standing> = match self {
            Standings::Local(all) => {
                let all = all.lock().unwrap_or_else(|e| e.into_inner());
                let Some(set) = all.get(id) else {
                    return Ok(None);
                };
                set.iter()
                    .map(|(user, score)| Standing {
                        user: user.clone(),
                        score: *score,
                    })
                    .collect()
            }
            Standings::Redis { conn, prefix } => {
                let [set, filled] = Standings::keys(prefix, id);
                let mut conn = conn.clone();
                let (known, rows): (bool, Vec<(String, i32)>) = redis::pipe()
                    .cmd("EXISTS")
                    .arg(&filled)
                    .cmd("ZRANGE")
                    .arg(&set)
                    .arg(0)
                    .arg(-1)
                    .arg("WITHSCORES")
                    .query_async(&mut conn)
                    .await?;
                if !known {
                    return Ok(None);
                }
                rows.into_iter()
                    .map(|(user, score)| Standing {
                        user: UserId::new(user),
                        score,
                    })
                    .collect()
            }
        };
        found.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.user.cmp(&b.user)));
        Ok(Some(found))
    }

    /// Forgets a tournament's standings (its marker first): the next read fills them again.
    pub async fn forget(&self, id: &TournamentId) -> Result<(), redis::RedisError> {
        match self {
            Standings::Local(all) => {
                all.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
                Ok(())
            }
            Standings::Redis { conn, prefix } => {
                let [set, filled] = Standings::keys(prefix, id);
                let mut conn = conn.clone();
                redis::cmd("DEL")
                    .arg(&filled)
                    .arg(&set)
                    .query_async::<()>(&mut conn)
                    .await
            }
        }
    }

    /// The standings as the database has them, replacing what was there, marked filled.
    pub async fn fill(
        &self,
        id: &TournamentId,
        scores: &[(UserId, i32)],
    ) -> Result<(), redis::RedisError> {
        match self {
            Standings::Local(all) => {
                let mut all = all.lock().unwrap_or_else(|e| e.into_inner());
                all.insert(id.clone(), scores.iter().cloned().collect());
                Ok(())
            }
            Standings::Redis { conn, prefix } => {
                let [set, filled] = Standings::keys(prefix, id);
                let mut conn = conn.clone();
                let mut pipe = redis::pipe();
                pipe.atomic().cmd("DEL").arg(&set).ignore();
                for (user, score) in scores {
                    pipe.cmd("ZADD")
                        .arg(&set)
                        .arg(*score)
                        .arg(user.as_str())
                        .ignore();
                }
                pipe.cmd("SET")
                    .arg(&filled)
                    .arg(1)
                    .arg("EX")
                    .arg(KEEP_SECS)
                    .ignore();
                pipe.cmd("EXPIRE").arg(&set).arg(KEEP_SECS).ignore();
                pipe.query_async::<()>(&mut conn).await
            }
        }
    }
}
