//! A guest signed in, as the load tools do it (`#[path]`-included by them).

use serde_json::{json, Value};

/// Signs in guest `name`: its token and user id.
pub async fn sign_in(
    client: &awc::Client,
    url: &str,
    name: &str,
) -> Result<(String, String), String> {
    let mut resp = client
        .post(format!("{url}/api/v1/auth/guest"))
        // Not kept open in the pool: with as many users as the open-file limit allows, a
        // second descriptor a user (on both sides) is one too many.
        .force_close()
        .send_json(&json!({"name": name}))
        .await
        .map_err(|e| format!("sign in: {e}"))?;
    let body: Value = resp.json().await.map_err(|e| format!("sign in: {e}"))?;
    match (body["token"].as_str(), body["user"]["id"].as_str()) {
        (Some(token), Some(id)) => Ok((token.to_owned(), id.to_owned())),
        _ => Err(format!("sign in: {body}")),
    }
}
