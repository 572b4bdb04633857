//! A child process's log as it comes, read on a thread of its own: what a test waits on when
//! the thing it waits for happens in another process (a line it writes), woken at each line.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

/// The lines a child wrote so far; whoever waits hears each new one.
pub struct Log {
    lines: Mutex<Vec<String>>,
    grew: watch::Sender<usize>,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            lines: Mutex::default(),
            grew: watch::Sender::new(0),
        }
    }
}

impl Log {
    /// A line more (from the thread reading the child's output).
    pub fn push(&self, line: String) {
        let count = {
            let mut lines = self.lock();
            lines.push(line);
            lines.len()
        };
        self.grew.send_replace(count);
    }

    /// The lines so far.
    pub fn lock(&self) -> MutexGuard<'_, Vec<String>> {
        self.lines.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lines that contain `text`.
    pub fn lines_with(&self, text: &str) -> usize {
        self.lock().iter().filter(|l| l.contains(text)).count()
    }

    /// Waits until `count` lines contain `text`, woken by each line the child writes; panics
    /// when it has not within `bound` (the failure bound of a wait on another process).
    pub async fn until(&self, text: &str, count: usize, bound: Duration) {
        self.until_lines(|log| log.lines_with(text) >= count, bound)
            .await;
    }

    /// Waits until a line contains one of `texts` (as `until`).
    pub async fn until_any(&self, texts: &[&str], bound: Duration) {
        self.until_lines(|log| texts.iter().any(|t| log.lines_with(t) > 0), bound)
            .await;
    }

    async fn until_lines(&self, done: impl Fn(&Log) -> bool, bound: Duration) {
        let mut grew = self.grew.subscribe();
        let reached = tokio::time::timeout(bound, async {
            while !done(self) {
                if grew.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        assert!(
            reached.is_ok() && done(self),
            "never logged what was awaited: {:#?}",
            self.lock()
        );
    }
}
