//! The big-screen standings of an arena tournament (`GET /tournaments/{id}`): the page is
//! served beside the champions display, reads the tournament's own route, and is in the
//! OpenAPI document.

use serde_json::json;

use crate::helpers::{TestApp, TestDb};

#[actix_web::test]
async fn a_tournaments_big_screen_page_is_served_and_reads_its_standings_route() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let now = i64::try_from(app.clock.now_ms()).unwrap();
    let at = |secs: i64| {
        chrono::DateTime::from_timestamp_millis(now + secs * 1000)
            .unwrap()
            .to_rfc3339()
    };
    let admin = app.admin_token("ops");
    let (status, body) = app
        .call(
            "POST",
            "/api/v1/admin/tournaments",
            Some(&admin),
            Some(
                json!({"name": "Saturday arena", "room": "surulere-games-lounge",
                        "starts_at": at(60), "ends_at": at(3600), "clock": "5m"}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["tournament"]["id"].as_str().unwrap();

    let client = awc::Client::default();
    let mut answer = client
        .get(app.url(&format!("/tournaments/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.headers().get("content-type").unwrap(),
        "text/html; charset=utf-8"
    );
    let page = String::from_utf8(answer.body().await.unwrap().to_vec()).unwrap();
    // The page takes the id from its address and asks the tournament's route for the rest.
    assert!(page.contains(r#"fetch("/api/v1/tournaments/" + encodeURIComponent(id)"#));
    assert!(page.contains("reconnecting…"));
    let (status, read) = app
        .call("GET", &format!("/api/v1/tournaments/{id}"), None, None)
        .await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["tournament"]["name"], "Saturday arena");

    // Documented beside the champions display.
    let (status, doc) = app.openapi().await;
    assert_eq!(status, 200);
    let op = &doc["paths"]["/tournaments/{id}"]["get"];
    assert!(
        op["summary"].as_str().is_some_and(|s| !s.is_empty()),
        "{op}"
    );
    assert!(doc["paths"]["/champions"]["get"].is_object());
}
