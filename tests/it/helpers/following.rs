//! `TestApp`'s methods for following others and hiding one's room.

use serde_json::{json, Value};

use super::TestApp;

impl TestApp {
    /// `GET /api/v1/me/following`
    pub async fn following(&self, token: &str) -> (u16, Value) {
        self.call("GET", "/api/v1/me/following", Some(token), None)
            .await
    }

    /// `PUT /api/v1/me/following/{user}`
    pub async fn follow(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/following/{user}");
        self.call("PUT", &path, Some(token), None).await
    }

    /// `DELETE /api/v1/me/following/{user}`
    pub async fn unfollow(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/following/{user}");
        self.call("DELETE", &path, Some(token), None).await
    }

    /// `PUT /api/v1/me/whereabouts` with `{"hidden": hidden}`
    pub async fn hide_whereabouts(&self, token: &str, hidden: bool) -> (u16, Value) {
        let body = json!({ "hidden": hidden });
        self.call("PUT", "/api/v1/me/whereabouts", Some(token), Some(body))
            .await
    }
}
