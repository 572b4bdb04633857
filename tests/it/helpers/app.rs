//! The lounge under test: a real server on a free port, and one method per HTTP endpoint.
//!
//! Each endpoint method returns the status and the JSON body (null when there is none), so a
//! test asserts on both; a few return a typed result where every test expects success
//! (`guest`, `place_a_board`). Bodies the tests vary, or send wrong on purpose, are taken as
//! JSON; `call` stays for requests no endpoint method can make (an unknown route, every route
//! of the OpenAPI document in turn).

use std::time::Duration;

use awc::http::header::HeaderMap;
use serde_json::{json, Value};

use lounge::common::OperatorName;
use lounge::http::auth::Subject;

use super::db::TestDb;
use super::ws::Ws;

/// A running lounge on a fresh database.
pub struct TestApp {
    pub port: u16,
    pub db: TestDb,
    /// The server's one clock, moved on by hand: grace periods, invitations, start windows,
    /// idle apartments and game clocks end when a test says, nobody sleeping.
    pub clock: lounge::common::ServerClock,
    /// What signs the server's tokens (for a lounge served by another process, one on
    /// `TEST_SECRET`).
    pub auth: std::sync::Arc<lounge::http::auth::Auth>,
    /// The ratings' reader of a lounge served in this process (`None` for another process's).
    pub ratings: Option<std::sync::Arc<lounge::ratings::Ratings>>,
    /// Its reviews, likewise.
    pub reviews: Option<std::sync::Arc<lounge::reviews::Reviews>>,
    client: awc::Client,
    /// A lounge served in this process: its settings, and what stops it (`restart`).
    running: Option<Running>,
}

struct Running {
    settings: lounge::config::Settings,
    stop: tokio::sync::oneshot::Sender<()>,
    stopped: actix_web::rt::task::JoinHandle<std::io::Result<()>>,
}

/// The secret tests give the service unless a test says otherwise (PostgreSQL wants one).
pub const TEST_SECRET: &str = "a-test-secret-of-thirty-two-bytes-or-more";
/// Where the services under test look for endgame databases: nowhere that has any, so a
/// developer's own `data/` (a 20-seed database is over a GB) stays out of the tests.
pub const NO_ENDGAMES: &str = "target/tests-no-endgames";

/// `?limit=…&before=…` of the paged lists (a user's matches, a user's coins, the audit log).
/// Strings, so a test can send a bad one.
#[derive(Clone, Copy, Default)]
pub struct Page<'a> {
    pub limit: Option<&'a str>,
    pub before: Option<&'a str>,
}

impl<'a> Page<'a> {
    /// The first page, of `limit` at most.
    pub fn limit(limit: &'a str) -> Page<'a> {
        Page {
            limit: Some(limit),
            before: None,
        }
    }

    /// This page, older than `before` (a `next` or an entry's id).
    pub fn before(self, before: &'a str) -> Page<'a> {
        Page {
            before: Some(before),
            ..self
        }
    }

    fn query(self) -> Vec<(&'a str, &'a str)> {
        let mut query = Vec::new();
        if let Some(limit) = self.limit {
            query.push(("limit", limit));
        }
        if let Some(before) = self.before {
            query.push(("before", before));
        }
        query
    }
}

/// `?limit=…` when given.
fn limit_query(limit: Option<&str>) -> Vec<(&str, &str)> {
    limit.map(|l| ("limit", l)).into_iter().collect()
}

impl TestApp {
    pub async fn spawn(db: TestDb) -> TestApp {
        TestApp::spawn_with(db, &[("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")]).await
    }

    /// With extra `LOUNGE_*` settings. The one place the application is built.
    pub async fn spawn_with(db: TestDb, extra: &[(&str, &str)]) -> TestApp {
        let env = lounge::config::Settings::environment().source(Some(
            [
                ("LOUNGE_SERVER__BIND".to_owned(), "127.0.0.1:0".to_owned()),
                ("LOUNGE_AUTH__SECRET".to_owned(), TEST_SECRET.to_owned()),
                ("LOUNGE_SERVER__WORKERS".to_owned(), "1".to_owned()),
                ("LOUNGE_DATABASE__URL".to_owned(), db.url_string()),
                (
                    "LOUNGE_DATABASE__MAX_CONNECTIONS".to_owned(),
                    "4".to_owned(),
                ),
                // Baba Ayo quick, with a small database.
                ("LOUNGE_HOUSE__ENDGAME_SEEDS".to_owned(), "6".to_owned()),
                (
                    "LOUNGE_HOUSE__ENDGAME_DIR".to_owned(),
                    NO_ENDGAMES.to_owned(),
                ),
                ("LOUNGE_HOUSE__EASY_MS".to_owned(), "30".to_owned()),
                ("LOUNGE_HOUSE__NORMAL_MS".to_owned(), "30".to_owned()),
                ("LOUNGE_HOUSE__CHAMPION_MS".to_owned(), "50".to_owned()),
                // Every test's clients come from 127.0.0.1: the per-address limits are out of
                // the way unless a test sets them.
                (
                    "LOUNGE_SERVER__SIGNUPS_PER_MINUTE".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__SIGNUP_BURST".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__SIGN_INS_PER_MINUTE".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__SIGN_IN_BURST".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__WS_CONNECTIONS_PER_ADDRESS".to_owned(),
                    "10000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__CONNECTIONS_PER_ADDRESS".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__STREAMS_PER_ADDRESS".to_owned(),
                    "10000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__REQUESTS_PER_SEC".to_owned(),
                    "100000".to_owned(),
                ),
                (
                    "LOUNGE_SERVER__REQUEST_BURST".to_owned(),
                    "100000".to_owned(),
                ),
                // A guest's changes at the tables: tests seat and stand their guests often.
                (
                    "LOUNGE_CIVILITY__TABLE_CHANGES_BURST".to_owned(),
                    "100000".to_owned(),
                ),
            ]
            .into_iter()
            .chain(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())))
            .collect(),
        ));
        let mut settings = lounge::config::Settings::load_from(env).expect("settings");
        let clock = lounge::common::ServerClock::manual_from_now();
        settings.world.clock = clock.clone();
        let app = lounge::app::Application::build(&settings)
            .await
            .expect("the app starts");
        let mut test = TestApp {
            port: app.port(),
            db,
            clock,
            auth: app.auth.clone(),
            ratings: None,
            reviews: None,
            client: awc::Client::default(),
            running: None,
        };
        test.serve(app, settings);
        test
    }

    /// Serves `app`, built from `settings`, in this process.
    fn serve(&mut self, app: lounge::app::Application, settings: lounge::config::Settings) {
        self.port = app.port();
        self.auth = app.auth.clone();
        self.ratings = Some(app.ratings.clone());
        self.reviews = Some(app.reviews.clone());
        let (stop, stopping) = tokio::sync::oneshot::channel();
        let stopped = actix_web::rt::spawn(app.run_until(async move {
            let _ = stopping.await;
        }));
        self.running = Some(Running {
            settings,
            stop,
            stopped,
        });
    }

    /// Stops the lounge as SIGTERM does (its rooms hand on their games and tell their
    /// people, connections close) and starts it again on the same database and clock, on a
    /// new port. Clients connect again as a real one would once its socket closed.
    pub async fn restart(&mut self) {
        let running = self
            .running
            .take()
            .expect("a lounge served in this process");
        let _ = running.stop.send(());
        running
            .stopped
            .await
            .expect("the server task")
            .expect("the server stops");
        let app = lounge::app::Application::build(&running.settings)
            .await
            .expect("the app starts again");
        self.serve(app, running.settings);
    }

    /// A lounge served by another process on `port`.
    pub fn attach(db: TestDb, port: u16) -> TestApp {
        let settings = lounge::config::AuthSettings {
            secret: TEST_SECRET.to_owned(),
            issuer: "lagos-hotel-lounge".to_owned(),
            token_ttl_secs: 3600,
            ..Default::default()
        };
        TestApp {
            port,
            db,
            clock: lounge::common::ServerClock::System,
            auth: std::sync::Arc::new(lounge::http::auth::Auth::new(&settings).unwrap()),
            ratings: None,
            reviews: None,
            client: awc::Client::default(),
            running: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// An admin token for `subject`, as `lounge admin token` makes one (with the server's
    /// secret).
    pub fn admin_token(&self, subject: &str) -> String {
        self.auth
            .issue(
                &Subject::Operator(OperatorName::new(subject)),
                subject,
                Some(Duration::from_secs(600)),
            )
            .unwrap()
    }

    // The requests underneath.

    /// Any request: a bearer token, a query, a JSON body and headers if given; the status,
    /// the JSON body (null when none) and the headers.
    async fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        query: &[(&str, &str)],
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value, HeaderMap) {
        let method = awc::http::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut req = self.client.request(method, self.url(path));
        if !query.is_empty() {
            req = req.query(&query).expect("a query");
        }
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        for (name, value) in headers {
            req = req.insert_header((*name, *value));
        }
        let mut resp = match body {
            Some(body) => req.send_json(&body).await,
            None => req.send().await,
        }
        .expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        (
            status,
            resp.json().limit(1 << 20).await.unwrap_or(Value::Null),
            headers,
        )
    }

    /// `request` without the headers of the answer.
    pub(super) async fn json(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        query: &[(&str, &str)],
        body: Option<Value>,
    ) -> (u16, Value) {
        let (status, body, _) = self.request(method, path, token, query, body, &[]).await;
        (status, body)
    }

    /// A GET answered with text; the status and the text.
    async fn text(&self, path: &str) -> (u16, String) {
        let mut resp = self
            .client
            .get(self.url(path))
            .send()
            .await
            .expect("request");
        let status = resp.status().as_u16();
        let body = resp.body().await.expect("a body");
        (status, String::from_utf8(body.to_vec()).expect("UTF-8"))
    }

    /// Any request by path, for what no endpoint method can ask (a route that does not
    /// exist, each route of the OpenAPI document in turn); the status and the JSON body.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.json(method, path, token, &[], body).await
    }

    // The service.

    /// `GET /healthz`
    pub async fn healthz(&self) -> (u16, Value) {
        self.json("GET", "/healthz", None, &[], None).await
    }

    /// `GET /readyz`
    pub async fn readyz(&self) -> (u16, Value) {
        self.json("GET", "/readyz", None, &[], None).await
    }

    /// `GET /metrics`: the status and the Prometheus text.
    pub async fn metrics(&self) -> (u16, String) {
        self.text("/metrics").await
    }

    /// `GET /api/v1/openapi.json`
    pub async fn openapi(&self) -> (u16, Value) {
        self.json("GET", "/api/v1/openapi.json", None, &[], None)
            .await
    }

    /// `GET /api/v1/openapi.json` with these headers (`X-Forwarded-For`, `If-None-Match`): the
    /// status and the headers of the answer.
    pub async fn openapi_with(&self, headers: &[(&str, &str)]) -> (u16, HeaderMap) {
        let (status, _, answer) = self
            .request("GET", "/api/v1/openapi.json", None, &[], None, headers)
            .await;
        (status, answer)
    }

    // Players.

    /// `POST /api/v1/auth/guest` with `{"name": name}`.
    pub async fn sign_in_guest(&self, name: &str) -> (u16, Value) {
        self.sign_in_guest_with(json!({ "name": name })).await
    }

    /// `POST /api/v1/auth/guest` with any body.
    pub async fn sign_in_guest_with(&self, body: Value) -> (u16, Value) {
        self.json("POST", "/api/v1/auth/guest", None, &[], Some(body))
            .await
    }

    /// Signs a guest in; returns (token, user id).
    pub async fn guest(&self, name: &str) -> (String, String) {
        let (status, body) = self.sign_in_guest(name).await;
        assert_eq!(status, 201, "{body}");
        (
            body["token"].as_str().unwrap().to_owned(),
            body["user"]["id"].as_str().unwrap().to_owned(),
        )
    }

    /// `POST /api/v1/auth/ws-ticket` (a player token, or none).
    pub async fn ws_ticket(&self, token: Option<&str>) -> (u16, Value) {
        self.json("POST", "/api/v1/auth/ws-ticket", token, &[], None)
            .await
    }

    /// A new ticket for the player of `token`.
    pub async fn a_ws_ticket(&self, token: &str) -> String {
        let (status, body) = self.ws_ticket(Some(token)).await;
        assert_eq!(status, 201, "{body}");
        body["ticket"].as_str().unwrap().to_owned()
    }

    /// `GET /api/v1/rooms`
    pub async fn rooms(&self) -> (u16, Value) {
        self.json("GET", "/api/v1/rooms", None, &[], None).await
    }

    /// `GET /api/v1/me`
    pub async fn me(&self, token: &str) -> (u16, Value) {
        self.json("GET", "/api/v1/me", Some(token), &[], None).await
    }

    /// `GET /api/v1/me` with no token at all.
    pub async fn me_without_token(&self) -> (u16, Value) {
        self.json("GET", "/api/v1/me", None, &[], None).await
    }

    /// `GET /api/v1/shop/items`
    pub async fn shop_items(&self, token: &str) -> (u16, Value) {
        self.json("GET", "/api/v1/shop/items", Some(token), &[], None)
            .await
    }

    /// `POST /api/v1/shop/purchases` with `{"item": item}`, under an `Idempotency-Key` if
    /// given.
    pub async fn buy(&self, token: &str, item: &str, key: Option<&str>) -> (u16, Value) {
        let (status, body, _) = self.purchase(token, json!({ "item": item }), key).await;
        (status, body)
    }

    /// `POST /api/v1/shop/purchases` with any body, under an `Idempotency-Key` if given; the
    /// answer's headers too (`Idempotent-Replayed`).
    pub async fn purchase(
        &self,
        token: &str,
        body: Value,
        key: Option<&str>,
    ) -> (u16, Value, HeaderMap) {
        let headers: Vec<(&str, &str)> = key.map(|k| ("Idempotency-Key", k)).into_iter().collect();
        self.request(
            "POST",
            "/api/v1/shop/purchases",
            Some(token),
            &[],
            Some(body),
            &headers,
        )
        .await
    }

    /// `PUT /api/v1/me/apartment/door` with `{"door": door}`.
    pub async fn set_door(&self, token: &str, door: &str) -> (u16, Value) {
        self.json(
            "PUT",
            "/api/v1/me/apartment/door",
            Some(token),
            &[],
            Some(json!({ "door": door })),
        )
        .await
    }

    /// `POST /api/v1/me/apartment/guests` with `{"user": user}`.
    pub async fn add_guest(&self, token: &str, user: &str) -> (u16, Value) {
        self.json(
            "POST",
            "/api/v1/me/apartment/guests",
            Some(token),
            &[],
            Some(json!({ "user": user })),
        )
        .await
    }

    /// `POST /api/v1/me/apartment/invitations` with `{"user": user}`; the answer's headers too
    /// (`Retry-After`).
    pub async fn invite_home(&self, token: &str, user: &str) -> (u16, Value, HeaderMap) {
        self.request(
            "POST",
            "/api/v1/me/apartment/invitations",
            Some(token),
            &[],
            Some(json!({ "user": user })),
            &[],
        )
        .await
    }

    /// `DELETE /api/v1/me/apartment/guests/{user}`
    pub async fn remove_guest(&self, token: &str, user: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/apartment/guests/{user}");
        self.json("DELETE", &path, Some(token), &[], None).await
    }

    /// `GET /api/v1/apartments/{room}`: what stands in an apartment.
    pub async fn apartment(&self, token: &str, room: &str) -> (u16, Value) {
        let path = format!("/api/v1/apartments/{room}");
        self.json("GET", &path, Some(token), &[], None).await
    }

    /// `GET /api/v1/champions/rules`
    pub async fn champions_rules(&self) -> (u16, Value) {
        self.json("GET", "/api/v1/champions/rules", None, &[], None)
            .await
    }

    /// `POST /api/v1/me/apartment/boards` with a body such as `{"board": id, "rules": …}`.
    pub async fn place_board(&self, token: &str, body: Value) -> (u16, Value) {
        self.json(
            "POST",
            "/api/v1/me/apartment/boards",
            Some(token),
            &[],
            Some(body),
        )
        .await
    }

    /// `DELETE /api/v1/me/apartment/boards/{table}`
    pub async fn take_up_board(&self, token: &str, table: &str) -> (u16, Value) {
        let path = format!("/api/v1/me/apartment/boards/{table}");
        self.json("DELETE", &path, Some(token), &[], None).await
    }

    /// `PATCH /api/v1/me/apartment/boards/{table}` with a body such as `{"queue": true}`.
    pub async fn change_board(&self, token: &str, table: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/me/apartment/boards/{table}");
        self.json("PATCH", &path, Some(token), &[], Some(body))
            .await
    }

    /// Buys the iroko board and places it at home; the table id.
    pub async fn place_a_board(&self, token: &str) -> String {
        let (status, bought) = self.buy(token, "ayo-board-iroko-oiled", None).await;
        assert_eq!(status, 201, "{bought}");
        let (status, placed) = self
            .place_board(token, json!({"board": bought["purchase"]["owned"]}))
            .await;
        assert_eq!(status, 201, "{placed}");
        placed["table"]["id"].as_str().unwrap().to_owned()
    }

    // Matches.

    /// `GET /api/v1/users/{user}/matches`
    pub async fn match_history(&self, user: &str, page: Page<'_>) -> (u16, Value) {
        let path = format!("/api/v1/users/{user}/matches");
        self.json("GET", &path, None, &page.query(), None).await
    }

    /// `GET /api/v1/matches/{id}`
    pub async fn one_match(&self, id: &str) -> (u16, Value) {
        self.json("GET", &format!("/api/v1/matches/{id}"), None, &[], None)
            .await
    }

    /// `GET /api/v1/users/{user}/head-to-head/{other}`
    pub async fn head_to_head(&self, user: &str, other: &str) -> (u16, Value) {
        let path = format!("/api/v1/users/{user}/head-to-head/{other}");
        self.json("GET", &path, None, &[], None).await
    }

    // Reviews.

    /// `POST /api/v1/games/{game}/review`: the status, the body and the headers.
    pub async fn ask_review(&self, token: &str, game: &str) -> (u16, Value, HeaderMap) {
        let path = format!("/api/v1/games/{game}/review");
        self.request("POST", &path, Some(token), &[], None, &[])
            .await
    }

    /// `GET /api/v1/games/{game}/review`, `?wait=` if given.
    pub async fn review(&self, game: &str, wait: Option<&str>) -> (u16, Value) {
        let path = format!("/api/v1/games/{game}/review");
        let query: Vec<(&str, &str)> = wait.map(|w| ("wait", w)).into_iter().collect();
        self.json("GET", &path, None, &query, None).await
    }

    // Game records.

    /// `GET /api/v1/games/{id}/record`: the status, the headers and the text (an error's
    /// JSON body as text).
    pub async fn game_record(&self, id: &str) -> (u16, HeaderMap, String) {
        self.text_with_headers(&format!("/api/v1/games/{id}/record"), &[])
            .await
    }

    /// `GET /api/v1/users/{user}/games/record`
    pub async fn games_record(&self, user: &str, page: Page<'_>) -> (u16, HeaderMap, String) {
        let path = format!("/api/v1/users/{user}/games/record");
        self.text_with_headers(&path, &page.query()).await
    }

    /// A GET answered with text; the status, the headers and the text.
    async fn text_with_headers(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> (u16, HeaderMap, String) {
        let mut req = self.client.get(self.url(path));
        if !query.is_empty() {
            req = req.query(&query).expect("a query");
        }
        let mut resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.body().limit(1 << 22).await.expect("a body");
        (
            status,
            headers,
            String::from_utf8(body.to_vec()).expect("UTF-8"),
        )
    }

    /// `GET /api/v1/users/{user}`, with a viewer's token if given.
    pub async fn profile(&self, user: &str, viewer: Option<&str>) -> (u16, Value) {
        let path = format!("/api/v1/users/{user}");
        self.json("GET", &path, viewer, &[], None).await
    }

    // Champions.

    /// `GET /api/v1/champions/today`, `?limit=` if given.
    pub async fn champions_today(&self, limit: Option<&str>) -> (u16, Value) {
        self.json(
            "GET",
            "/api/v1/champions/today",
            None,
            &limit_query(limit),
            None,
        )
        .await
    }

    /// `GET /api/v1/champions/{date}`
    pub async fn champions_of(&self, date: &str) -> (u16, Value) {
        let path = format!("/api/v1/champions/{date}");
        self.json("GET", &path, None, &[], None).await
    }

    /// `GET /api/v1/house-board/today`, `?limit=` if given.
    pub async fn house_board(&self, limit: Option<&str>) -> (u16, Value) {
        self.json(
            "GET",
            "/api/v1/house-board/today",
            None,
            &limit_query(limit),
            None,
        )
        .await
    }

    /// `GET /api/v1/champions/stream`: the response, its body the event stream.
    pub async fn champions_stream(&self) -> awc::ClientResponse {
        self.client
            .get(self.url("/api/v1/champions/stream"))
            .send()
            .await
            .expect("request")
    }

    /// `GET /champions`: the status and the display page.
    pub async fn champions_page(&self) -> (u16, String) {
        self.text("/champions").await
    }

    // The admin API: `token` an admin token.

    /// `GET /api/v1/admin/rooms`
    pub async fn admin_rooms(&self, token: &str) -> (u16, Value) {
        self.json("GET", "/api/v1/admin/rooms", Some(token), &[], None)
            .await
    }

    /// `POST /api/v1/admin/rooms`
    pub async fn create_room(&self, token: &str, body: Value) -> (u16, Value) {
        self.json("POST", "/api/v1/admin/rooms", Some(token), &[], Some(body))
            .await
    }

    /// `PATCH /api/v1/admin/rooms/{room}`
    pub async fn rename_room(&self, token: &str, room: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}");
        self.json("PATCH", &path, Some(token), &[], Some(body))
            .await
    }

    /// `DELETE /api/v1/admin/rooms/{room}`, `?games=` if given (`end`, `finish`).
    pub async fn close_room(&self, token: &str, room: &str, games: Option<&str>) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}");
        let query: Vec<_> = games.map(|g| ("games", g)).into_iter().collect();
        self.json("DELETE", &path, Some(token), &query, None).await
    }

    /// `POST /api/v1/admin/rooms/{room}/tables`
    pub async fn add_table(&self, token: &str, room: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/tables");
        self.json("POST", &path, Some(token), &[], Some(body)).await
    }

    /// `PATCH /api/v1/admin/rooms/{room}/tables/{table}`
    pub async fn change_table(
        &self,
        token: &str,
        room: &str,
        table: &str,
        body: Value,
    ) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/tables/{table}");
        self.json("PATCH", &path, Some(token), &[], Some(body))
            .await
    }

    /// `DELETE /api/v1/admin/rooms/{room}/tables/{table}`
    pub async fn remove_table(&self, token: &str, room: &str, table: &str) -> (u16, Value) {
        let path = format!("/api/v1/admin/rooms/{room}/tables/{table}");
        self.json("DELETE", &path, Some(token), &[], None).await
    }

    /// `GET /api/v1/admin/shop/items`
    pub async fn admin_shop_items(&self, token: &str) -> (u16, Value) {
        self.json("GET", "/api/v1/admin/shop/items", Some(token), &[], None)
            .await
    }

    /// `POST /api/v1/admin/shop/items`
    pub async fn create_item(&self, token: &str, body: Value) -> (u16, Value) {
        self.json(
            "POST",
            "/api/v1/admin/shop/items",
            Some(token),
            &[],
            Some(body),
        )
        .await
    }

    /// `PATCH /api/v1/admin/shop/items/{item}`
    pub async fn change_item(&self, token: &str, item: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/shop/items/{item}");
        self.json("PATCH", &path, Some(token), &[], Some(body))
            .await
    }

    /// `GET /api/v1/admin/users/{user}/coins`
    pub async fn coins(&self, token: &str, user: &str, page: Page<'_>) -> (u16, Value) {
        let path = format!("/api/v1/admin/users/{user}/coins");
        self.json("GET", &path, Some(token), &page.query(), None)
            .await
    }

    /// `POST /api/v1/admin/users/{user}/coins` with a body such as `{"amount", "reason"}`.
    pub async fn adjust_coins(&self, token: &str, user: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/admin/users/{user}/coins");
        self.json("POST", &path, Some(token), &[], Some(body)).await
    }

    /// `GET /api/v1/admin/audit`
    pub async fn audit(&self, token: &str, page: Page<'_>) -> (u16, Value) {
        self.json(
            "GET",
            "/api/v1/admin/audit",
            Some(token),
            &page.query(),
            None,
        )
        .await
    }

    // The WebSocket.

    /// `GET /ws?token=…`, upgraded; the `welcome` read.
    pub async fn ws(&self, token: &str) -> Ws {
        Ws::connect(
            &self.client,
            &format!("ws://127.0.0.1:{}/ws?token={token}", self.port),
        )
        .await
    }

    /// `GET /ws?token=…` asking for batches (`lounge.batch`), upgraded; the `welcome` read.
    pub async fn ws_batched(&self, token: &str) -> Ws {
        Ws::connect_batched(
            &self.client,
            &format!("ws://127.0.0.1:{}/ws?token={token}", self.port),
            true,
        )
        .await
    }

    /// `GET /ws?token=…&batch=1`: batches asked for in the URL; the `welcome` read.
    pub async fn ws_batched_by_query(&self, token: &str) -> Ws {
        Ws::connect_batched(
            &self.client,
            &format!("ws://127.0.0.1:{}/ws?token={token}&batch=1", self.port),
            false,
        )
        .await
    }

    /// A socket opened the web client's way: a ticket (`POST /api/v1/auth/ws-ticket`), then
    /// `GET /ws?ticket=…` asking for batches; `None` when either is refused or the socket
    /// closes before its `welcome` (the web client then tries again).
    pub async fn try_web_socket(&self, token: &str) -> Option<Ws> {
        let (status, body) = self.ws_ticket(Some(token)).await;
        if status != 201 {
            return None;
        }
        let ticket = body["ticket"].as_str()?;
        let url = format!("ws://127.0.0.1:{}/ws?ticket={ticket}", self.port);
        Ws::try_connect_batched(&self.client, &url).await
    }

    /// `GET /ws?ticket=…`, upgraded; the `welcome` read.
    pub async fn ws_by_ticket(&self, ticket: &str) -> Ws {
        Ws::connect(
            &self.client,
            &format!("ws://127.0.0.1:{}/ws?ticket={ticket}", self.port),
        )
        .await
    }

    /// `GET /ws?ticket=…` refused before the upgrade: the status and the error body.
    pub async fn ws_ticket_refused(&self, ticket: &str) -> (u16, Value) {
        let (status, body, _) = self
            .request("GET", "/ws", None, &[("ticket", ticket)], None, &[])
            .await;
        assert_ne!(status, 101, "{body}");
        (status, body)
    }

    /// The status the upgrade gets with a token in the query string and/or as a bearer, or
    /// none.
    pub async fn ws_status(&self, query_token: Option<&str>, bearer: Option<&str>) -> u16 {
        let query = query_token
            .map(|t| format!("?token={t}"))
            .unwrap_or_default();
        let mut req = self
            .client
            .ws(format!("ws://127.0.0.1:{}/ws{query}", self.port));
        if let Some(token) = bearer {
            req = req.bearer_auth(token);
        }
        match req.connect().await {
            Ok((resp, _)) => resp.status().as_u16(),
            Err(awc::error::WsClientError::InvalidResponseStatus(s)) => s.as_u16(),
            Err(e) => panic!("{e}"),
        }
    }
}

/// The test on a lounge over SQLite, then on one over PostgreSQL.
pub async fn on_both<F, Fut>(test: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    test(TestApp::spawn(TestDb::sqlite()).await).await;
    test(TestApp::spawn(TestDb::postgres()).await).await;
}

/// `on_both` with these settings (and the socket's rate limit out of the way).
pub async fn on_both_with<F, Fut>(extra: &[(&str, &str)], test: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for db in [TestDb::sqlite(), TestDb::postgres()] {
        let mut settings = vec![("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000")];
        settings.extend_from_slice(extra);
        test(TestApp::spawn_with(db, &settings).await).await;
    }
}
