//! A hotel of several instances (issue 19): `lounge serve` processes on 127.0.0.1 ports,
//! one fresh PostgreSQL database, a Redis server of their own, and HAProxy in front of them
//! with the configuration `docs/deploy.md` shows (`tests/deploy/haproxy.cfg`). Each instance
//! can be killed, paused, resumed and started again on its port.

use lounge::common::RoomId;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use super::log::Log;
use super::wall::{free_port, OwnRedis};
use super::{TestApp, TestDb};

/// How long a lease lives here (ms): short, so a takeover is quick to see.
pub const LEASE_MS: u64 = 1_500;

pub struct Instance {
    pub id: String,
    pub port: u16,
    child: Option<Child>,
    pub log: Arc<Log>,
}

pub struct Hotel {
    pub db: TestDb,
    pub redis: OwnRedis,
    pub instances: Vec<Instance>,
    pub proxy_port: u16,
    proxy: Option<Child>,
    dir: PathBuf,
    extra: Vec<(String, String)>,
}

impl Hotel {
    /// `n` instances and HAProxy in front of them, each with `extra` settings.
    pub fn start(n: usize, extra: &[(&str, &str)]) -> Hotel {
        Hotel::start_on(n, extra, false)
    }

    /// `start`, on a Redis reached over TLS as an ACL user with a password.
    pub fn start_secured(n: usize, extra: &[(&str, &str)]) -> Hotel {
        Hotel::start_on(n, extra, true)
    }

    fn start_on(n: usize, extra: &[(&str, &str)], secured: bool) -> Hotel {
        let dir = std::env::temp_dir().join(format!("lounge-hotel-{}", lounge::store::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let redis = if secured {
            OwnRedis::start_secured(free_port(), &dir)
        } else {
            OwnRedis::start(free_port())
        };
        let mut hotel = Hotel {
            db: TestDb::postgres(),
            redis,
            instances: Vec::new(),
            proxy_port: free_port(),
            proxy: None,
            dir,
            extra: extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        for i in 0..n {
            let instance = Instance {
                id: format!("i{i}"),
                port: free_port(),
                child: None,
                log: Arc::default(),
            };
            hotel.instances.push(instance);
            hotel.launch(i);
        }
        hotel.start_proxy();
        hotel
    }

    /// Starts instance `i` on its port and waits until it says it is open.
    pub fn launch(&mut self, i: usize) {
        let (port, id) = (self.instances[i].port, self.instances[i].id.clone());
        let mut child = Command::new(env!("CARGO_BIN_EXE_lounge"))
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env("DATABASE_URL", self.db.url_string())
            // The relay's refusals too: a test waits for one to be logged.
            .env("LOUNGE_LOG", "info,lounge::world::cluster::relay=debug")
            .env("LOUNGE_AUTH__SECRET", super::app::TEST_SECRET)
            .env("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")
            .env("LOUNGE_SERVER__WS_CONNECTIONS_PER_ADDRESS", "10000")
            .env("LOUNGE_SERVER__CONNECTIONS_PER_ADDRESS", "100000")
            .env("LOUNGE_SERVER__REQUESTS_PER_SEC", "100000")
            .env("LOUNGE_SERVER__REQUEST_BURST", "100000")
            .env("LOUNGE_CIVILITY__TABLE_CHANGES_BURST", "100000")
            .env("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "100000")
            .env("LOUNGE_SERVER__SIGNUP_BURST", "100000")
            .env("LOUNGE_HOUSE__ENDGAME_SEEDS", "6")
            .env("LOUNGE_HOUSE__CHAMPION_MS", "50")
            .env("LOUNGE_CHAMPIONS__REDIS_URL", self.redis.url())
            // As docs/deploy.md runs them behind HAProxy (`option forwardfor`).
            .env("LOUNGE_SERVER__TRUSTED_PROXIES", "127.0.0.1")
            .env("LOUNGE_CLUSTER__ENABLED", "true")
            .env("LOUNGE_CLUSTER__INSTANCE_ID", &id)
            .env("LOUNGE_CLUSTER__LEASE_MS", LEASE_MS.to_string())
            .envs(self.extra.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .envs(self.redis.secured.iter().map(|ca| ("SSL_CERT_FILE", ca)))
            .current_dir(&self.dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("lounge serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let log = self.instances[i].log.clone();
        loop {
            let line = lines.next().expect("lounge serve says it is open").unwrap();
            log.push(line.clone());
            if line.contains("the lounge is open") {
                break;
            }
        }
        // Keep reading so the child never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                log.push(line);
            }
        });
        self.instances[i].child = Some(child);
    }

    fn start_proxy(&mut self) {
        let template = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/deploy/haproxy.cfg"
        ))
        .expect("tests/deploy/haproxy.cfg");
        // The file's frontend and servers, on this hotel's ports.
        let mut config = String::new();
        for line in template.lines() {
            let t = line.trim_start();
            if t.starts_with("bind ") {
                config.push_str(&format!("    bind 127.0.0.1:{}\n", self.proxy_port));
            } else if t.starts_with("server ") {
                continue;
            } else {
                config.push_str(line);
                config.push('\n');
            }
        }
        for instance in &self.instances {
            config.push_str(&format!(
                "    server {} 127.0.0.1:{} check inter 500ms fall 2 rise 1\n",
                instance.id, instance.port
            ));
        }
        let path = self.dir.join("haproxy.cfg");
        std::fs::write(&path, config).unwrap();
        // Master and worker (`-W`): the master says `Loading success.` once its worker
        // listens, a line awaited rather than a pause (the worker goes when the master does).
        let mut child = Command::new(haproxy())
            .args(["-W", "-db", "-f"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("haproxy (tests/run installs it)");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        self.proxy = Some(child);
        loop {
            let line = lines.next().expect("haproxy listens").unwrap();
            if line.contains("Loading success") {
                break;
            }
        }
        // Keep reading so the proxy never blocks on a full pipe.
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
    }

    /// Instance `i`, to call as a client would.
    pub fn app(&self, i: usize) -> TestApp {
        TestApp::attach(self.db.again(), self.instances[i].port)
    }

    /// The hotel through HAProxy.
    pub fn front(&self) -> TestApp {
        TestApp::attach(self.db.again(), self.proxy_port)
    }

    /// Which instance holds `room`'s lease now, if any.
    pub async fn owner_of(&self, room: &str) -> Option<usize> {
        let leases = lounge::cluster::Leases::new(
            redis::Client::open(self.redis.onlooker_url())
                .unwrap()
                .get_connection_manager()
                .await
                .unwrap(),
            "lounge:",
            "onlooker",
            LEASE_MS,
            lounge::common::ServerClock::System,
        );
        let (holder, _) = leases.owner(&RoomId::new(room)).await.unwrap()?;
        self.instances.iter().position(|i| i.id == holder)
    }

    /// Sends `signal` (`KILL`, `STOP`, `CONT`, `TERM`) to instance `i`.
    pub fn signal(&mut self, i: usize, signal: &str) {
        let pid = self.instances[i].child.as_ref().expect("running").id();
        let status = Command::new("kill")
            .args([format!("-{signal}"), pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        if signal == "KILL" || signal == "TERM" {
            let mut child = self.instances[i].child.take().unwrap();
            let _ = child.wait();
        }
    }

    /// Sends SIGTERM to instance `i` without waiting for it to stop (`reap` does).
    pub fn terminate(&mut self, i: usize) {
        let pid = self.instances[i].child.as_ref().expect("running").id();
        let status = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for instance `i` to have stopped; whether it stopped cleanly (exit code 0).
    pub fn reap(&mut self, i: usize) -> bool {
        let mut child = self.instances[i].child.take().expect("started");
        child.wait().is_ok_and(|s| s.success())
    }
}

impl Drop for Hotel {
    fn drop(&mut self) {
        for instance in &mut self.instances {
            if let Some(mut child) = instance.child.take() {
                // Paused ones die too.
                let _ = Command::new("kill")
                    .args(["-CONT", &child.id().to_string()])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        if let Some(mut proxy) = self.proxy.take() {
            let _ = proxy.kill();
            let _ = proxy.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn haproxy() -> &'static str {
    if std::path::Path::new("/usr/sbin/haproxy").exists() {
        "/usr/sbin/haproxy"
    } else {
        "haproxy"
    }
}
