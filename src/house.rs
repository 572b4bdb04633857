//! Baba Ayo in the service: his settings, and the endgame databases he uses, built small at
//! start-up and read from `data/` when a larger one was built there before.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::ayo::endgame::Endgame;
use crate::ayo::house::Level;
use crate::ayo::Rules;
use crate::config::HouseSettings;

/// The time budget of each level, from config.
#[derive(Clone, Debug)]
pub struct Budgets {
    pub easy: Duration,
    pub normal: Duration,
    pub champion: Duration,
}

impl Budgets {
    pub fn from_settings(s: &HouseSettings) -> Budgets {
        Budgets {
            easy: Duration::from_millis(s.easy_ms),
            normal: Duration::from_millis(s.normal_ms),
            champion: Duration::from_millis(s.champion_ms),
        }
    }

    pub fn of(&self, level: Level) -> Duration {
        match level {
            Level::Easy => self.easy,
            Level::Normal => self.normal,
            Level::Champion => self.champion,
        }
    }
}

/// The endgame databases, one per rule set, made on first use.
pub struct Endgames {
    dir: PathBuf,
    start_seeds: u8,
    held: Mutex<HashMap<String, Option<Arc<Endgame>>>>,
}

impl Endgames {
    pub fn new(settings: &HouseSettings) -> Endgames {
        Endgames {
            dir: PathBuf::from(&settings.endgame_dir),
            start_seeds: settings.endgame_seeds,
            held: Mutex::new(HashMap::new()),
        }
    }

    /// The database for `rules`: the largest one stored in the data folder, or one of the
    /// start-up size built now (seconds at most); `None` where no database applies.
    pub fn get(&self, rules: &Rules) -> Option<Arc<Endgame>> {
        if !Endgame::possible(rules) {
            return None;
        }
        let key = serde_json::to_string(rules).unwrap_or_default();
        if let Some(held) = self.held.lock().ok()?.get(&key) {
            return held.clone();
        }
        let made = self.stored(rules).or_else(|| {
            let started = Instant::now();
            let db = Endgame::build(rules, self.start_seeds)?;
            tracing::info!(
                rules = rules.preset.name(),
                seeds = self.start_seeds,
                ms = started.elapsed().as_millis() as u64,
                "built an endgame database"
            );
            Some(db)
        });
        let made = made.map(Arc::new);
        if let Ok(mut held) = self.held.lock() {
            held.insert(key, made.clone());
        }
        made
    }

    /// The largest stored database for `rules` that reads back whole.
    fn stored(&self, rules: &Rules) -> Option<Endgame> {
        (self.start_seeds + 1..=30).rev().find_map(|n| {
            let path = self.dir.join(Endgame::file_name(rules, n));
            if !path.exists() {
                return None;
            }
            match Endgame::load(&path) {
                Ok(db) if db.applies_to(rules) => {
                    tracing::info!(path = %path.display(), "read an endgame database");
                    Some(db)
                }
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "an unreadable endgame database");
                    None
                }
            }
        })
    }

    /// Builds the database for `rules` up to `seeds` and stores it in the data folder.
    pub fn build_and_store(&self, rules: &Rules, seeds: u8) -> std::io::Result<(PathBuf, Endgame)> {
        let db = Endgame::build(rules, seeds).ok_or_else(|| {
            std::io::Error::other(format!(
                "no endgame database applies to `{}`: it needs a no-capture limit and repetition ignored",
                rules.preset.name()
            ))
        })?;
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(Endgame::file_name(rules, seeds));
        db.save(&path)?;
        Ok((path, db))
    }
}
