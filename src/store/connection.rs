//! Connecting to the database: its URL, the pool and how each connection is set up (SQLite
//! tuned for a server), the migrations run once at start under PostgreSQL's start lock, and
//! the one way to write in a transaction.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{self, ManageConnection, Pool, PooledConnection, R2D2Connection};
use diesel::result::Error as DieselError;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use super::{checkpoint, game_moves, Backend, Db, Store, StoreError};

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// Where the database is: a `postgres://` URL, or a SQLite file (`sqlite://PATH` or a path).
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Postgres(String),
    Sqlite(PathBuf),
}

impl FromStr for DatabaseUrl {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Ok(DatabaseUrl::Postgres(s.to_owned()))
        } else {
            let path = s.strip_prefix("sqlite://").unwrap_or(s);
            if path.is_empty() || path.contains("://") {
                return Err(StoreError::BadUrl(s.to_owned()));
            }
            Ok(DatabaseUrl::Sqlite(PathBuf::from(path)))
        }
    }
}

impl fmt::Display for DatabaseUrl {
    /// Never shows a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseUrl::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
                write!(f, "{scheme}://{host}")
            }
            DatabaseUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Opens connections of one kind, with SQLite tuned for a server (WAL, a busy timeout,
/// foreign keys on, checkpoints left to their own thread: `checkpoint.rs`).
pub(super) struct Manager(pub(super) DatabaseUrl);

impl ManageConnection for Manager {
    type Connection = Db;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<Db, r2d2::Error> {
        match &self.0 {
            DatabaseUrl::Postgres(url) => PgConnection::establish(url)
                .map(Db::Postgres)
                .map_err(r2d2::Error::ConnectionError),
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConnection::establish(&path.to_string_lossy())
                    .map_err(r2d2::Error::ConnectionError)?;
                conn.batch_execute(&format!(
                    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                         PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; \
                         PRAGMA wal_autocheckpoint = {};",
                    checkpoint::SAFETY_NET_PAGES
                ))
                .map_err(r2d2::Error::QueryError)?;
                Ok(Db::Sqlite(conn))
            }
        }
    }

    fn is_valid(&self, conn: &mut Db) -> Result<(), r2d2::Error> {
        conn.ping().map(|_| ()).map_err(r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut Db) -> bool {
        conn.is_broken()
    }
}

/// The advisory lock instances take in turn to prepare one PostgreSQL database.
const START_LOCK: i64 = 0x6c6f_756e_6765; // "lounge"

/// A session of its own holding the start lock, taken when another instance lets it go.
fn start_lock(url: &str) -> Result<diesel::PgConnection, StoreError> {
    let failed = |e: String| StoreError::Migration(format!("the start lock: {e}"));
    let mut conn = diesel::PgConnection::establish(url).map_err(|e| failed(e.to_string()))?;
    conn.batch_execute(&format!("SELECT pg_advisory_lock({START_LOCK})"))
        .map_err(|e| failed(e.to_string()))?;
    Ok(conn)
}

impl Store {
    /// Connects, creating a SQLite file's folder if needed, runs pending migrations, and keys
    /// the names stored without a key (`names.rs`).
    pub fn open(url: &DatabaseUrl, max_connections: u32) -> Result<Store, StoreError> {
        let backend = match url {
            DatabaseUrl::Postgres(_) => Backend::Postgres,
            DatabaseUrl::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)?;
                }
                Backend::Sqlite
            }
        };
        let pool = Pool::builder()
            .max_size(max_connections.max(1))
            .connection_timeout(Duration::from_secs(10))
            .build(Manager(url.clone()))?;
        let at_once = match url {
            DatabaseUrl::Sqlite(_) => Some(game_moves::at_once_connection(url)?),
            DatabaseUrl::Postgres(_) => None,
        };
        let mut store = Store {
            pool,
            backend,
            writers: Default::default(),
            at_once,
            groups: None,
            postgres_url: match url {
                DatabaseUrl::Postgres(url) => Some(url.as_str().into()),
                DatabaseUrl::Sqlite(_) => None,
            },
            turns: Default::default(),
            stamps: Default::default(),
        };
        if let DatabaseUrl::Sqlite(path) = url {
            checkpoint::start(path.clone(), std::sync::Arc::downgrade(&store.writers));
        } else {
            store.groups = Some(std::sync::Arc::new(super::grouped::Groups::start(
                store.clone(),
            )));
        }
        let renamed = store.preparing(|store| {
            store.migrate()?;
            store.key_names()
        })?;
        if renamed > 0 {
            tracing::warn!(
                renamed,
                "users whose names were alike earlier ones were renamed"
            );
        }
        Ok(store)
    }

    /// Runs `prepare` (migrations, seeds: what every instance does at start) while no other
    /// instance on this database does: instances started together on a new PostgreSQL
    /// database would race on it, where now one does it and the others find it done. The lock
    /// is its own session's, so it goes with that connection however `prepare` ends.
    pub fn preparing<T>(
        &self,
        prepare: impl FnOnce(&Store) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let lock = match &self.postgres_url {
            Some(url) => Some(start_lock(url)?),
            None => None,
        };
        let prepared = prepare(self);
        drop(lock);
        prepared
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub(super) fn conn(&self) -> Result<PooledConnection<Manager>, StoreError> {
        Ok(self.pool.get()?)
    }

    /// This process's turn to write to SQLite (nothing to wait for on PostgreSQL). A writer
    /// that panicked held it: the lock is still good (the database rolled its work back).
    pub(crate) fn writing(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        (self.backend == Backend::Sqlite)
            .then(|| self.writers.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs `f` in a transaction that writes. SQLite's takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a plain transaction that read first could not become a writer
    /// while another one writes ("database is locked"), where this one waits its turn.
    pub(crate) fn write<T, E>(&self, f: impl FnOnce(&mut Db) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError> + From<DieselError>,
    {
        let mut conn = self.conn()?;
        match self.backend {
            Backend::Postgres => (*conn).transaction(f),
            Backend::Sqlite => {
                let _turn = self.writing();
                conn.batch_execute("BEGIN IMMEDIATE")?;
                // A panic must not hand the pool a connection still holding the write lock.
                let done =
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut conn))) {
                        Ok(done) => done,
                        Err(panic) => {
                            let _ = conn.batch_execute("ROLLBACK");
                            std::panic::resume_unwind(panic);
                        }
                    };
                let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
                if let Err(e) = conn.batch_execute(end) {
                    let _ = conn.batch_execute("ROLLBACK");
                    return Err(e.into());
                }
                done
            }
        }
    }

    pub(super) fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        let done = match &mut *conn {
            Db::Postgres(c) => c.run_pending_migrations(POSTGRES_MIGRATIONS).map(|_| ()),
            Db::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS).map(|_| ()),
        };
        done.map_err(|e| StoreError::Migration(e.to_string()))
    }

    /// True when the database answers.
    pub fn ping(&self) -> bool {
        self.conn().map(|mut c| c.ping().is_ok()).unwrap_or(false)
    }
}
