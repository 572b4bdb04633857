//! SQLite's checkpoints, off the writers' path.
//!
//! In WAL mode a commit appends to the write-ahead log without syncing (`synchronous =
//! NORMAL`); the log is copied back into the database file by a checkpoint, which syncs that
//! file. Left to SQLite, the checkpoint runs inside the commit that fills the log past
//! `wal_autocheckpoint` pages, while that writer holds the process's turn to write: every
//! move in the process waited behind a sync of the disk (a twentieth of the moves stored took
//! over 25 ms, up to 200 ms, at 830 moves a second). Here a thread of its own copies the log
//! back every `EVERY`, in passive mode (it never waits for a writer, nor a writer for it), so
//! commits stay appends. The automatic checkpoint stays on as a safety net, at a threshold the
//! thread keeps the log well under.

use std::path::PathBuf;
use std::sync::Weak;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

/// How often the log is copied back: at a thousand moves a second, a few hundred pages.
const EVERY: Duration = Duration::from_millis(250);

/// The automatic checkpoint's threshold, in pages, when this thread runs (SQLite's default is
/// 1,000): reached only if the thread cannot keep up.
pub(super) const SAFETY_NET_PAGES: u32 = 20_000;

/// Starts the checkpointer of the SQLite database at `path`; it ends once `alive` has no
/// strong holder left (the last clone of the store is gone).
pub(super) fn start(path: PathBuf, alive: Weak<std::sync::Mutex<()>>) {
    let spawned = std::thread::Builder::new()
        .name("sqlite-checkpoint".into())
        .spawn(move || run(&path, &alive));
    if let Err(e) = spawned {
        // The automatic checkpoint still runs: slower commits now and then, nothing lost.
        tracing::warn!(error = %e, "no checkpoint thread: SQLite checkpoints in its commits");
    }
}

fn run(path: &std::path::Path, alive: &Weak<std::sync::Mutex<()>>) {
    let mut conn = None;
    while alive.strong_count() > 0 {
        std::thread::sleep(EVERY);
        if conn.is_none() {
            conn = open(path);
        }
        let Some(c) = conn.as_mut() else { continue };
        if let Err(e) = c.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
            // A busy database or one gone away: tried again with a new connection.
            tracing::debug!(error = %e, "a checkpoint did not run");
            conn = None;
        }
    }
}

fn open(path: &std::path::Path) -> Option<SqliteConnection> {
    let mut conn = SqliteConnection::establish(&path.to_string_lossy()).ok()?;
    // Only a moment's wait for a lock: a passive checkpoint takes what it can and comes back.
    conn.batch_execute("PRAGMA busy_timeout = 100;").ok()?;
    Some(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log is copied back with no commit asking: the rows written go into the database
    /// file itself (it grows), where without the thread they would stay in the log until it
    /// held `SAFETY_NET_PAGES`.
    #[test]
    fn the_log_is_copied_back_by_the_thread_not_by_a_commit() {
        let dir = std::env::temp_dir().join(format!("lounge-ckpt-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("db.sqlite");
        let mut conn = SqliteConnection::establish(&path.to_string_lossy()).unwrap();
        conn.batch_execute(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = {SAFETY_NET_PAGES};
             CREATE TABLE t (x BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
             INSERT INTO t SELECT randomblob(1000) FROM n;"
        ))
        .unwrap();
        let size = || std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        // 200 KB written, all of it in the log so far.
        let before = size();
        assert!(
            before < 100_000,
            "the database file held {before} bytes before any checkpoint"
        );
        let alive = std::sync::Arc::new(std::sync::Mutex::new(()));
        start(path.clone(), std::sync::Arc::downgrade(&alive));
        let copied = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            size() >= 200_000
        });
        assert!(copied, "the database file still holds {} bytes", size());
        drop(alive);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
