//! The champions wall's added endpoints, and the settings that count every win (for tests of
//! the wall itself, not of who may be on it).

use lounge::common::{TableId, UserId};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use serde_json::Value;

use super::log::Log;
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
    /// TLS and an ACL user: the CA that signed its certificate.
    pub secured: Option<std::path::PathBuf>,
}

/// The ACL user and password of a secured Redis.
pub const REDIS_USER: (&str, &str) = ("lounge", "a-redis-password");

impl OwnRedis {
    pub fn start(port: u16) -> OwnRedis {
        OwnRedis::launch(port, &[], None)
    }

    /// Redis speaking TLS only (a certificate for 127.0.0.1 signed by a CA of the test's own,
    /// made in `dir` with the `openssl` command), with the default user off and one ACL user
    /// with a password: as an operator runs it on a network.
    pub fn start_secured(port: u16, dir: &std::path::Path) -> OwnRedis {
        let run = |args: &[&str]| {
            let status = std::process::Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .expect("openssl");
            assert!(status.success(), "openssl {args:?}");
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        run(&[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=lounge-test-ca",
            ],
        ]
        .concat());
        run(&[
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "redis.key",
                "-out",
                "redis.csr",
                "-subj",
                "/CN=127.0.0.1",
            ],
        ]
        .concat());
        std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        run(&[
            "x509",
            "-req",
            "-in",
            "redis.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "redis.crt",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ]);
        let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
        let (cert, key, ca) = (file("redis.crt"), file("redis.key"), file("ca.crt"));
        let password = format!(">{}", REDIS_USER.1);
        let tls: Vec<&str> = vec![
            "--port",
            "0",
            "--tls-cert-file",
            &cert,
            "--tls-key-file",
            &key,
            "--tls-ca-cert-file",
            &ca,
            "--tls-auth-clients",
            "no",
            "--user",
            "default",
            "off",
            "--user",
            REDIS_USER.0,
            "on",
            &password,
            "~*",
            "&*",
            "+@all",
        ];
        OwnRedis::launch(port, &tls, Some(dir.join("ca.crt")))
    }

    fn launch(port: u16, more: &[&str], secured: Option<std::path::PathBuf>) -> OwnRedis {
        let port_arg = if secured.is_some() {
            "--tls-port"
        } else {
            "--port"
        };
        let mut child = std::process::Command::new("redis-server")
            .args([
                port_arg,
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .args(more)
            .stdout(Stdio::piped())
            .spawn()
            .expect("redis-server");
        // Up when it says so (its log is its standard output): a line read, not a pause.
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        loop {
            let line = lines
                .next()
                .expect("redis-server says it is ready")
                .unwrap();
            if line.contains("Ready to accept connections") {
                break;
            }
        }
        // Keep reading so the child never blocks on a full pipe.
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
        OwnRedis {
            port,
            child: Some(child),
            secured,
        }
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Its URL as the instances are given it (a secured one's certificate checked against
    /// the CA in `SSL_CERT_FILE`).
    pub fn url(&self) -> String {
        match self.secured {
            None => format!("redis://127.0.0.1:{}", self.port),
            Some(_) => format!(
                "rediss://{}:{}@127.0.0.1:{}",
                REDIS_USER.0, REDIS_USER.1, self.port
            ),
        }
    }

    /// Its URL for the test itself, which trusts it without the CA.
    pub fn onlooker_url(&self) -> String {
        match self.secured {
            None => self.url(),
            Some(_) => format!("{}/#insecure", self.url()),
        }
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
/// child, its port, and its log (at `level`, a `LOUNGE_LOG` filter) as it comes.
pub fn serve_logging_at(
    db: &super::TestDb,
    level: &str,
    extra: &[(&str, &str)],
) -> (Child, u16, Arc<Log>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
        .envs(extra.iter().copied())
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("DATABASE_URL", db.url_string())
        .env("LOUNGE_LOG", level)
        .env("LOUNGE_AUTH__SECRET", super::app::TEST_SECRET)
        .env("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")
        .env("LOUNGE_HOUSE__ENDGAME_SEEDS", "6")
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("lounge serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let log = Arc::new(Log::default());
    let port = loop {
        let line = lines.next().expect("lounge serve says it is open").unwrap();
        log.push(line.clone());
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
            kept.push(line);
        }
    });
    (child, port, log)
}

/// A win of `winner` over Baba Ayo at `level` with `seeds`, stored as a finished game would be
/// (beating him in a test would take a while): whether it counted for the wall (never).
pub fn won_against_baba_ayo(app: &TestApp, winner: &str, level: &str, seeds: u8) -> bool {
    let store = app.db.store();
    let today = lounge::champions::HotelDay {
        tz: chrono_tz::Africa::Lagos,
    }
    .today();
    let house = UserId::new(format!("baba-ayo-{level}"));
    let game = lounge::store::GameRow {
        id: lounge::store::new_id().into(),
        table_id: TableId::new("surulere-games-lounge-3"),
        south_id: UserId::new(winner),
        north_id: house.clone(),
        rules: Default::default(),
        house: true,
        status: lounge::ayo::Status::Playing,
        end_reason: None,
        started_at: crate::helpers::now(),
        ended_at: None,
        match_id: None,
        number: None,
        clock_started_ms: None,
        first_side: lounge::ayo::Side::South,
    };
    store.insert_game(&game).unwrap();
    let won = lounge::store::Win {
        winner_id: UserId::new(winner),
        loser_id: house,
        seeds,
        house_level: Some(level.into()),
        plies: 40,
        ended_ms: app.clock.now_ms(),
    };
    let finished = store
        .finish_game_with(
            &game.id,
            lounge::ayo::Status::SouthWon,
            lounge::store::GameEnd::Game(lounge::ayo::EndReason::Majority),
            Some(&won),
            |_| today,
            &lounge::champions::WallRules::cap_only(3),
        )
        .unwrap();
    assert!(finished.finished, "the game was stored finished");
    finished.counts()
}
