//! The identity endpoints: refresh credentials, devices, passwords, the hotel's accounts; and
//! starting the service in ways that must fail.

use serde_json::{json, Value};

use super::{TestApp, TestDb};

impl TestApp {
    /// `POST /api/v1/auth/guest`, the whole answer (token, refresh, device, user).
    pub async fn guest_grant(&self, name: &str) -> Value {
        let (status, body) = self.sign_in_guest(name).await;
        assert_eq!(status, 201, "{body}");
        body
    }

    /// `POST /api/v1/auth/refresh`
    pub async fn refresh(&self, refresh: &str) -> (u16, Value) {
        self.json(
            "POST",
            "/api/v1/auth/refresh",
            None,
            &[],
            Some(json!({ "refresh": refresh })),
        )
        .await
    }

    /// `POST /api/v1/auth/sign-out`
    pub async fn sign_out(&self, token: &str) -> (u16, Value) {
        self.json("POST", "/api/v1/auth/sign-out", Some(token), &[], None)
            .await
    }

    /// `GET /api/v1/me/devices`
    pub async fn devices(&self, token: &str) -> (u16, Value) {
        self.json("GET", "/api/v1/me/devices", Some(token), &[], None)
            .await
    }

    /// `DELETE /api/v1/me/devices/{id}`
    pub async fn remove_device(&self, token: &str, id: &str) -> (u16, Value) {
        self.json(
            "DELETE",
            &format!("/api/v1/me/devices/{id}"),
            Some(token),
            &[],
            None,
        )
        .await
    }

    /// `PUT /api/v1/me/password`
    pub async fn set_password(&self, token: &str, body: Value) -> (u16, Value) {
        self.json("PUT", "/api/v1/me/password", Some(token), &[], Some(body))
            .await
    }

    /// `POST /api/v1/auth/sign-in`
    pub async fn sign_in(&self, body: Value) -> (u16, Value) {
        self.json("POST", "/api/v1/auth/sign-in", None, &[], Some(body))
            .await
    }

    /// `POST /api/v1/auth/hotel`
    pub async fn hotel_sign_in(&self, body: Value) -> (u16, Value) {
        self.json("POST", "/api/v1/auth/hotel", None, &[], Some(body))
            .await
    }
}

/// Why the service refuses to start over `db` with these settings (panics if it starts).
pub async fn refused_start(db: &TestDb, extra: &[(&str, &str)]) -> String {
    let env = lounge::config::Settings::environment().source(Some(
        [
            ("LOUNGE_SERVER__BIND", "127.0.0.1:0"),
            ("LOUNGE_SERVER__WORKERS", "1"),
            ("LOUNGE_DATABASE__URL", db.url_string().as_str()),
            ("LOUNGE_HOUSE__ENDGAME_SEEDS", "6"),
            ("LOUNGE_HOUSE__ENDGAME_DIR", super::app::NO_ENDGAMES),
        ]
        .iter()
        .chain(extra.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    ));
    let settings = match lounge::config::Settings::load_from(env) {
        Ok(settings) => settings,
        Err(e) => return e.to_string(),
    };
    match lounge::app::Application::build(&settings).await {
        Ok(_) => panic!("the service started"),
        Err(e) => e.to_string(),
    }
}
