//! Baba Ayo in the service: his settings, and the endgame databases he uses, built small at
//! start-up and read from `data/` when a larger one was built there before.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use crate::ayo::endgame::Endgame;
use crate::ayo::house::Level;
use crate::ayo::search::Searcher;
use crate::ayo::Rules;
use crate::common::UserId;
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

/// A rule set's database: made once (`None` in it: none applies), and whether its making
/// has started on a thread of its own ([`Endgames::ready`]).
#[derive(Default)]
struct Slot {
    made: OnceLock<Option<Arc<Endgame>>>,
    started: AtomicBool,
}

/// The endgame databases, one per rule set, made on first use (once, however many ask at
/// the same time).
pub struct Endgames {
    dir: PathBuf,
    start_seeds: u8,
    held: Mutex<HashMap<String, Arc<Slot>>>,
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
    /// start-up size built now (seconds at most); `None` where no database applies. Blocks
    /// while it is made: call it off the async workers.
    pub fn get(&self, rules: &Rules) -> Option<Arc<Endgame>> {
        if !Endgame::possible(rules) {
            return None;
        }
        let slot = self.slot(rules)?;
        slot.made
            .get_or_init(|| {
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
                made.map(Arc::new)
            })
            .clone()
    }

    /// The database for `rules` if it is made already. If not, `None` now, and its making
    /// starts on a thread of its own (once): a move never waits for a database to be built or
    /// read from disk (a 20-seed one takes seconds), it is played by the search
    /// alone until the database is there.
    pub fn ready(self: &Arc<Self>, rules: &Rules) -> Option<Arc<Endgame>> {
        if !Endgame::possible(rules) {
            return None;
        }
        let slot = self.slot(rules)?;
        if let Some(made) = slot.made.get() {
            return made.clone();
        }
        if !slot.started.swap(true, Ordering::Relaxed) {
            let (endgames, rules) = (self.clone(), *rules);
            let spawned = std::thread::Builder::new()
                .name("endgame-load".into())
                .spawn(move || endgames.get(&rules));
            if let Err(e) = spawned {
                // Tried again at the next ask.
                slot.started.store(false, Ordering::Relaxed);
                tracing::warn!(error = %e, "no thread to make an endgame database on");
            }
        }
        None
    }

    fn slot(&self, rules: &Rules) -> Option<Arc<Slot>> {
        let key = serde_json::to_string(rules).unwrap_or_default();
        Some(self.held.lock().ok()?.entry(key).or_default().clone())
    }

    /// The largest stored database for `rules` that reads back whole.
    fn stored(&self, rules: &Rules) -> Option<Endgame> {
        (self.start_seeds + 1..=30).rev().find_map(|n| {
            let path = self.path(rules, n);
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "an unreadable endgame database");
                    return None;
                }
            };
            match Endgame::from_bytes_for(rules, bytes) {
                Ok(db) => {
                    tracing::info!(path = %path.display(), "read an endgame database");
                    Some(db)
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "an unreadable endgame database");
                    None
                }
            }
        })
    }

    /// Where the database for `rules` up to `max_seeds` lives in the data folder.
    pub fn path(&self, rules: &Rules, max_seeds: u8) -> PathBuf {
        self.dir.join(file_name(rules, max_seeds))
    }

    /// Builds the database for `rules` up to `seeds` and stores it in the data folder.
    pub fn build_and_store(&self, rules: &Rules, seeds: u8) -> std::io::Result<(PathBuf, Endgame)> {
        let db = Endgame::build(rules, seeds).ok_or_else(|| {
            std::io::Error::other(format!(
                "no endgame database applies to `{}`: it needs a no-capture limit with repetition ignored, or repetition ending the game with no limit",
                rules.preset.name()
            ))
        })?;
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path(rules, seeds);
        // Whole or not at all: a crash mid-write leaves no half database behind.
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, db.as_bytes())?;
        std::fs::rename(&tmp, &path)?;
        Ok((path, db))
    }
}

/// The file name of the database for `rules` up to `max_seeds` seeds:
/// `endgame-{preset}-{FNV-1a of the rules' JSON, 16 hex digits}-{max_seeds}.db`.
pub fn file_name(rules: &Rules, max_seeds: u8) -> String {
    let json = serde_json::to_string(rules).unwrap_or_default();
    // FNV-1a: a stable name for the rule switches.
    let hash = json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("endgame-{}-{hash:016x}-{max_seeds}.db", rules.preset.name())
}

/// Searchers between moves, by level and rules (JSON).
type IdleMinds = HashMap<(Level, String), Vec<Searcher>>;

/// Baba Ayo at the tables: who he is at each level, and thinking off the async workers, a
/// bounded number of games at once.
pub struct House {
    budgets: Budgets,
    endgames: Arc<Endgames>,
    thinking: Arc<tokio::sync::Semaphore>,
    /// Taken before a thinking place by the long searches (a champion's move, a draw's
    /// judgement): one fewer than the places, so the short ones (an easy or normal move, a
    /// few milliseconds) always have a place, however many champions' games and draw offers
    /// there are. Each is fair (first come, first served) and a table asks one move and one
    /// judgement at a time, so no guest holds more than a table's share.
    long: Arc<tokio::sync::Semaphore>,
    stop: AtomicBool,
    /// The flags of the searches under way or waiting for a place, which `stop` sets.
    searches: Mutex<Vec<Weak<AtomicBool>>>,
    /// The threads he thinks on: short searches at everyone's priority, long ones lower.
    thinkers: Thinkers,
    long_thinkers: Thinkers,
    /// Searchers not thinking now, by level and rules: their tables are kept for the next
    /// move rather than made anew (64 MiB for a champion).
    idle: Arc<Mutex<IdleMinds>>,
}

impl std::fmt::Debug for House {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("House")
            .field("budgets", &self.budgets)
            .field("thinking_places", &self.thinking.available_permits())
            .finish_non_exhaustive()
    }
}

/// Baba Ayo's own threads, one a thinking place: not the blocking pool, whose threads also
/// store the moves. The long searches (a champion's move, a draw's judgement) run on threads of
/// a lower scheduling priority (nice `LONG_NICE`): a search running flat out on a core gives
/// way at once to a room's turn, or an easy move's search, that wakes there, so the games in
/// play keep their pace however much he has to think.
struct Thinkers {
    jobs: Mutex<std::sync::mpsc::Sender<Box<dyn FnOnce() + Send>>>,
}

/// How much lower the long searches' priority is (Linux nice values: 0 is everyone else's).
const LONG_NICE: libc::c_int = 10;

impl Thinkers {
    fn start(threads: usize, nice: libc::c_int) -> Thinkers {
        let (jobs, queue) = std::sync::mpsc::channel::<Box<dyn FnOnce() + Send>>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("baba-ayo-{nice}-{n}"))
                .spawn(move || {
                    if nice != 0 {
                        // SAFETY: sets the calling thread's nice value (on Linux a thread's
                        // own attribute; `who` 0 is this thread); no memory is touched.
                        #[allow(unsafe_code)]
                        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) };
                    }
                    loop {
                        let job = match queue.lock() {
                            Ok(queue) => queue.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        // A search that panics loses its answer (its sender is dropped), not
                        // the thread.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "Baba Ayo could not start a thread to think on");
            }
        }
        Thinkers {
            jobs: Mutex::new(jobs),
        }
    }

    /// Runs `f` on a thinker; its result, or `None` if it panicked or no thinker is left.
    async fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Box<dyn FnOnce() + Send> = Box::new(move || {
            let _ = answer.send(f());
        });
        self.jobs.lock().ok()?.send(job).ok()?;
        answered.await.ok()
    }
}

/// The least Baba Ayo thinks, however long he waited for a place to think.
const MIN_THINK: Duration = Duration::from_millis(20);

/// Baba Ayo's user ids start so; the level follows.
const HOUSE_ID: &str = "baba-ayo-";

impl House {
    pub fn new(settings: &HouseSettings) -> House {
        House {
            budgets: Budgets::from_settings(settings),
            endgames: Arc::new(Endgames::new(settings)),
            thinking: Arc::new(tokio::sync::Semaphore::new(settings.max_thinking.max(1))),
            thinkers: Thinkers::start(settings.max_thinking.max(1), 0),
            long_thinkers: Thinkers::start(
                settings.max_thinking.saturating_sub(1).max(1),
                LONG_NICE,
            ),
            long: Arc::new(tokio::sync::Semaphore::new(
                settings.max_thinking.saturating_sub(1).max(1),
            )),
            stop: AtomicBool::new(false),
            searches: Mutex::default(),
            idle: Arc::default(),
        }
    }

    /// Baba Ayo as the user who plays at `level`: one user a level, so a stored game says
    /// which level played it.
    pub fn user(level: Level) -> crate::common::User {
        crate::common::User {
            id: UserId::new(format!("{HOUSE_ID}{}", level.name())),
            name: "Baba Ayo".into(),
            house: true,
            ratings: Default::default(),
        }
    }

    /// The level a house user id plays at.
    pub fn level_of(user_id: &UserId) -> Option<Level> {
        user_id.as_str().strip_prefix(HOUSE_ID)?.parse().ok()
    }

    pub fn endgames(&self) -> &Arc<Endgames> {
        &self.endgames
    }

    /// Thinks on his own threads once a thinking place is free; the move, or `None` when the
    /// game is over, the service is stopping or `called_off` was set before he began. Time
    /// spent waiting for a place comes off the time to think, so the move still comes within
    /// the level's budget (thinking at least `MIN_THINK`). On a clock with `clock_left` to go
    /// he thinks at most a thirtieth of it, so he never loses on time by thinking at his
    /// leisure. Setting `called_off` (the game ended, the table changed) stops the search.
    pub async fn think(
        &self,
        game: crate::ayo::Game,
        level: Level,
        seed: u64,
        clock_left: Option<Duration>,
        called_off: Arc<AtomicBool>,
    ) -> Option<crate::ayo::Pit> {
        let budget = match clock_left {
            Some(left) => self.budgets.of(level).min(left / 30),
            None => self.budgets.of(level),
        };
        let asked = Instant::now();
        let long = level == Level::Champion;
        let _turn = match long {
            true => Some(self.long.clone().acquire_owned().await.ok()?),
            false => None,
        };
        self.with_mind(
            game,
            level,
            budget,
            (seed, asked, long),
            called_off,
            |searcher, ask| crate::ayo::house::think_with(searcher, ask).map(|t| t.best),
        )
        .await
        .flatten()
    }

    /// Whether Baba Ayo, playing `side`, takes the draw offered in `game`
    /// ([`crate::ayo::house::takes_draw`]),
    /// thinking at most the level's budget; `None` when he could not think (stopping, or
    /// `called_off`).
    pub async fn takes_draw(
        &self,
        game: crate::ayo::Game,
        level: Level,
        side: crate::ayo::Side,
        called_off: Arc<AtomicBool>,
    ) -> Option<bool> {
        let _turn = self.long.clone().acquire_owned().await.ok()?;
        let budget = self.budgets.of(level);
        // Timed from its turn: a judgement answers no clock, so waiting costs it no thought.
        let asked = Instant::now();
        self.with_mind(
            game,
            level,
            budget,
            (0, asked, true),
            called_off,
            move |searcher, ask| crate::ayo::house::takes_draw(searcher, ask, side),
        )
        .await
    }

    /// Runs `f` with a searcher for `level` and the game's rules (one kept from an earlier
    /// move when there is one) on his own threads, once a thinking place is free, with
    /// `budget` less the wait since `asked` (for the place, and for a new searcher to be made)
    /// to think in.
    async fn with_mind<T: Send + 'static>(
        &self,
        game: crate::ayo::Game,
        level: Level,
        budget: Duration,
        (seed, asked, long): (u64, Instant, bool),
        called_off: Arc<AtomicBool>,
        f: impl FnOnce(&mut Searcher, crate::ayo::house::Ask<'_>) -> T + Send + 'static,
    ) -> Option<T> {
        let _place = self.thinking.clone().acquire_owned().await.ok()?;
        // Known before the stop flag is read: `stop` sets every flag it knows of.
        self.called_off_flags(&called_off);
        if self.stopping() || called_off.load(Ordering::Relaxed) {
            return None;
        }
        let endgames = self.endgames.clone();
        let idle = self.idle.clone();
        let thinkers = if long {
            &self.long_thinkers
        } else {
            &self.thinkers
        };
        thinkers
            .run(move || {
                let key = (
                    level,
                    serde_json::to_string(game.rules()).unwrap_or_default(),
                );
                let kept = idle.lock().ok().and_then(|mut m| m.get_mut(&key)?.pop());
                // Only the champion reads the databases, once they are there (never waited for).
                let endgame = || {
                    (level == Level::Champion)
                        .then(|| endgames.ready(game.rules()))
                        .flatten()
                };
                let mut searcher = match kept {
                    Some(mut searcher) => {
                        if level == Level::Champion && !searcher.has_endgame() {
                            searcher.set_endgame(endgame());
                        }
                        searcher
                    }
                    None => crate::ayo::house::mind(level, game.rules(), endgame()),
                };
                // Counted after the searcher is made: a first move's table comes off the time
                // to think, not on top of it.
                let movetime = budget.saturating_sub(asked.elapsed()).max(MIN_THINK);
                let done = f(
                    &mut searcher,
                    crate::ayo::house::Ask {
                        endgame: None,
                        game: &game,
                        level,
                        movetime,
                        seed,
                        stop: Some(called_off),
                        book: true,
                    },
                );
                if let Ok(mut m) = idle.lock() {
                    m.entry(key).or_default().push(searcher);
                }
                done
            })
            .await
    }

    /// Keeps `flag` among those [`House::stop`] sets, forgetting the ones no search holds.
    fn called_off_flags(&self, flag: &Arc<AtomicBool>) {
        if let Ok(mut flags) = self.searches.lock() {
            flags.retain(|f| f.strong_count() > 0);
            flags.push(Arc::downgrade(flag));
        }
    }

    /// Whether the service is stopping.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops every search at once (the service is stopping).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(flags) = self.searches.lock() {
            for flag in flags.iter().filter_map(Weak::upgrade) {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }
}
