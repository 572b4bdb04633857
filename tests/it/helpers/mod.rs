//! Every test helper in one place: the service under test with one method per HTTP endpoint
//! (`app`), the WebSocket client and the scenes played over it (`ws`), a room's world without sockets (`world`), a fresh database of
//! either kind (`db`), and positions and games for the engine's tests (`game`).

pub mod app;
pub mod browser;
pub mod civility;
pub mod db;
pub mod floods;
pub mod following;
pub mod game;
pub mod hotel;
pub mod identity;
pub mod log;
pub mod names;
pub mod wall;
pub mod world;
pub mod ws;

pub use app::{on_both, on_both_with, Page, TestApp};
pub use db::TestDb;
pub use ws::{game_between_two, house_game, house_game_as, play_out, Ws};

/// Now on the system's clock, as the store stamps rows: for rows a test writes by hand.
pub fn now() -> chrono::NaiveDateTime {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    lounge::store::at_ms(u64::try_from(ms).expect("ms fit"))
}

/// What a `lounge` command printed as JSON, once it succeeded (its errors shown otherwise).
pub fn printed_json(out: std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the command prints JSON")
}
