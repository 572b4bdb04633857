//! The civility endpoints: blocks (a guest's), slow mode, mutes, putting out, taking a chat
//! line away (an operator's).

use serde_json::{json, Value};

use super::app::TestApp;
use super::ws::Ws;

/// A second service over a test's database, started after the first: what it knows at
/// start is what was stored.
pub struct Again {
    port: u16,
    client: awc::Client,
}

impl Again {
    /// `GET /ws?token=…` on the second service.
    pub async fn ws(&self, token: &str) -> Ws {
        let url = format!("ws://127.0.0.1:{}/ws?token={token}", self.port);
        Ws::connect(&self.client, &url).await
    }
}

impl TestApp {
    /// Starts a second service over this one's database (as after a restart).
    pub async fn again(&self) -> Again {
        let env = lounge::config::Settings::environment().source(Some(
            [
                ("LOUNGE_SERVER__BIND", "127.0.0.1:0".to_owned()),
                ("LOUNGE_SERVER__WORKERS", "1".to_owned()),
                ("LOUNGE_DATABASE__URL", self.db.url_string()),
                ("LOUNGE_DATABASE__MAX_CONNECTIONS", "4".to_owned()),
                ("LOUNGE_HOUSE__ENDGAME_SEEDS", "6".to_owned()),
                (
                    "LOUNGE_HOUSE__ENDGAME_DIR",
                    super::app::NO_ENDGAMES.to_owned(),
                ),
                ("LOUNGE_AUTH__SECRET", super::app::TEST_SECRET.to_owned()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        ));
        let mut settings = lounge::config::Settings::load_from(env).expect("settings");
        settings.world.clock = lounge::common::ServerClock::manual_from_now();
        let app = lounge::app::Application::build(&settings)
            .await
            .expect("the second service starts");
        let port = app.port();
        actix_web::rt::spawn(app.run_until_stopped());
        Again {
            port,
            client: awc::Client::default(),
        }
    }

    /// `GET /api/v1/me/blocks`
    pub async fn blocks(&self, token: &str) -> (u16, Value) {
        self.call("GET", "/api/v1/me/blocks", Some(token), None)
            .await
    }

    /// `PUT /api/v1/me/blocks/{user}`
    pub async fn block(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/blocks/{user}");
        self.call("PUT", &path, Some(token), None).await
    }

    /// `DELETE /api/v1/me/blocks/{user}`
    pub async fn unblock(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/blocks/{user}");
        self.call("DELETE", &path, Some(token), None).await
    }

    /// `PUT /api/v1/admin/rooms/{room}/slow-mode` with `{"seconds"}`
    pub async fn set_slow_mode(&self, token: &str, room: &str, seconds: u64) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/slow-mode");
        let body = json!({ "seconds": seconds });
        self.call("PUT", &path, Some(token), Some(body)).await
    }

    /// `PUT /api/v1/admin/users/{user}/mute`
    pub async fn mute(&self, token: &str, user: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/users/{user}/mute");
        self.call("PUT", &path, Some(token), Some(body)).await
    }

    /// `DELETE /api/v1/admin/users/{user}/mute`
    pub async fn unmute(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/admin/users/{user}/mute");
        self.call("DELETE", &path, Some(token), None).await
    }

    /// `POST /api/v1/admin/rooms/{room}/put-out`
    pub async fn put_out(&self, token: &str, room: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/put-out");
        self.call("POST", &path, Some(token), Some(body)).await
    }

    /// `DELETE /api/v1/admin/rooms/{room}/chat/{line}`
    pub async fn remove_chat_line(&self, token: &str, room: &str, line: &str) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/chat/{line}");
        self.call("DELETE", &path, Some(token), None).await
    }
}
