//! The champions wall's added endpoints, and the settings that count every win (for tests of
//! the wall itself, not of who may be on it).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::TestApp;

/// Settings under which every win between people after a move counts (up to the cap): no
/// move minimum, no new accounts. With the socket's rate limit out of the way.
pub const EVERY_WIN_COUNTS: [(&str, &str); 3] = [
    ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
    ("LOUNGE_CHAMPIONS__MIN_MOVES", "0"),
    ("LOUNGE_CHAMPIONS__NEW_ACCOUNT_SECS", "0"),
];

impl TestApp {
    /// A lounge on `db` where every win counts (`EVERY_WIN_COUNTS`), with `extra` settings.
    pub async fn spawn_counting_every_win(db: super::TestDb, extra: &[(&str, &str)]) -> TestApp {
        let mut settings = EVERY_WIN_COUNTS.to_vec();
        settings.extend_from_slice(extra);
        TestApp::spawn_with(db, &settings).await
    }

    /// `GET /api/v1/champions/today/uncounted`
    pub async fn champions_uncounted_today(&self) -> (u16, Value) {
        self.get_json("/api/v1/champions/today/uncounted").await
    }

    /// `GET /api/v1/champions/{date}/uncounted`
    pub async fn champions_uncounted_of(&self, date: &str) -> (u16, Value) {
        self.get_json(&format!("/api/v1/champions/{date}/uncounted"))
            .await
    }

    async fn get_json(&self, path: &str) -> (u16, Value) {
        let mut resp = awc::Client::default()
            .get(self.url(path))
            .send()
            .await
            .expect("request");
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }
}

/// A Redis server of the test's own on a free port, to stop and start again.
pub struct OwnRedis {
    pub port: u16,
    child: Option<std::process::Child>,
}

impl OwnRedis {
    pub fn start(port: u16) -> OwnRedis {
        let child = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server");
        for _ in 0..50 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        OwnRedis {
            port,
            child: Some(child),
        }
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `lounge serve` on a free port over `db` with `extra` settings, once it says it is open: the
/// child, its port, and its log (info and up) as it comes.
pub fn serve_logging(
    db: &super::TestDb,
    extra: &[(&str, &str)],
) -> (Child, u16, Arc<Mutex<Vec<String>>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
        .envs(extra.iter().copied())
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("DATABASE_URL", db.url_string())
        .env("LOUNGE_LOG", "info")
        .env("LOUNGE_AUTH__SECRET", super::app::TEST_SECRET)
        .env("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")
        .env("LOUNGE_HOUSE__ENDGAME_SEEDS", "6")
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lounge serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let log = Arc::new(Mutex::new(Vec::new()));
    let port = loop {
        let line = lines.next().expect("lounge serve says it is open").unwrap();
        log.lock().unwrap().push(line.clone());
        if line.contains("the lounge is open") {
            break line
                .split("port=")
                .nth(1)
                .and_then(|p| p.split_whitespace().next())
                .and_then(|p| p.parse().ok())
                .expect("a port in the log line");
        }
    };
    // Keep reading so the child never blocks on a full pipe.
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            kept.lock().unwrap().push(line);
        }
    });
    (child, port, log)
}
