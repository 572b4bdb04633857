//! Lasting identity: refresh credentials that rotate and betray reuse, devices,
//! passwords for a new device, the hotel's own accounts, no known signing secret, and tokens
//! whose user does not exist.

use std::time::Duration;

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::helpers::identity::refused_start;
use crate::helpers::{on_both, on_both_with, TestApp, TestDb};
use lounge::common::{OperatorName, UserId};
use lounge::http::auth::Subject;

fn text<'a>(body: &'a Value, key: &str) -> &'a str {
    body[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {body}"))
}

#[actix_web::test]
async fn refreshing_rotates_the_credential_and_a_reused_one_signs_the_device_out() {
    on_both(|app| async move {
        let grant = app.guest_grant("Kemi").await;
        let first = text(&grant, "refresh").to_owned();
        assert_eq!(first.len(), 64, "256 bits, hex: {grant}");
        assert_eq!(grant["expires_in"], 3600);

        let (status, next) = app.refresh(&first).await;
        assert_eq!(status, 200, "{next}");
        assert_eq!(next["user"], grant["user"]);
        assert_eq!(next["device"], grant["device"]);
        let second = text(&next, "refresh").to_owned();
        assert_ne!(second, first);
        let (status, me) = app.me(text(&next, "token")).await;
        assert_eq!((status, me["user"]["name"].clone()), (200, json!("Kemi")));

        // The spent credential again: someone holds a copy; the device is signed out.
        let (status, body) = app.refresh(&first).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["error"]["code"], "refresh_reused");
        let (status, body) = app.refresh(&second).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["error"]["code"], "refresh_invalid");
        let (status, body) = app.refresh("not-a-credential").await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (401, json!("refresh_invalid"))
        );
        // Only a hash is stored.
        let devices = app.devices(text(&grant, "token")).await.1;
        assert!(!devices.to_string().contains(&second), "{devices}");
    })
    .await;
}

/// Two exchanges of one credential at once: exactly one wins, the other is a reuse and signs
/// the device out, so neither new credential refreshes again. PostgreSQL let both win when
/// the spend was read and then written in two steps.
#[actix_web::test]
async fn two_refreshes_of_one_credential_at_once_have_exactly_one_winner() {
    on_both_with(
        &[
            ("LOUNGE_SERVER__SIGNUPS_PER_MINUTE", "600"),
            ("LOUNGE_SERVER__SIGNUP_BURST", "600"),
        ],
        |app| async move {
            for i in 0..20 {
                let grant = app.guest_grant(&format!("Racer {i}")).await;
                let credential = text(&grant, "refresh").to_owned();
                let (a, b) = tokio::join!(app.refresh(&credential), app.refresh(&credential));
                let winners: Vec<&Value> = [&a, &b]
                    .into_iter()
                    .filter(|(status, _)| *status == 200)
                    .map(|(_, body)| body)
                    .collect();
                assert_eq!(winners.len(), 1, "race {i}: {a:?} {b:?}");
                let loser = if a.0 == 200 { &b } else { &a };
                assert_eq!(
                    (loser.0, loser.1["error"]["code"].clone()),
                    (401, json!("refresh_reused")),
                    "race {i}"
                );
                // The family is gone: the winner's new credential is refused too.
                let (status, _) = app.refresh(text(winners[0], "refresh")).await;
                assert_eq!(status, 401, "race {i}");
            }
        },
    )
    .await;
}

#[actix_web::test]
async fn a_device_unused_past_its_lifetime_is_signed_out_and_each_refresh_slides_it_on() {
    on_both_with(
        &[("LOUNGE_AUTH__REFRESH_TTL_SECS", "600")],
        |app| async move {
            let grant = app.guest_grant("Sola").await;
            let mut refresh = text(&grant, "refresh").to_owned();
            for _ in 0..3 {
                // 500 s after the last refresh each time: 1,500 s in all, past 600 from the start.
                app.clock.advance(500_000);
                let (status, next) = app.refresh(&refresh).await;
                assert_eq!(status, 200, "{next}");
                refresh = text(&next, "refresh").to_owned();
            }
            app.clock.advance(601_000);
            let (status, body) = app.refresh(&refresh).await;
            assert_eq!(
                (status, body["error"]["code"].clone()),
                (401, json!("refresh_invalid"))
            );
        },
    )
    .await;
}

#[actix_web::test]
async fn an_access_token_expires_on_the_server_clock_with_a_fixed_answer() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let grant = app.guest_grant("Femi").await;
    let token = text(&grant, "token").to_owned();
    assert_eq!(app.me(&token).await.0, 200);
    app.clock.advance(3_600_000 + 10_000);
    let (status, body) = app.me(&token).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "token_expired");
    assert_eq!(
        body["error"]["message"],
        "the token has expired: refresh it or sign in again"
    );
    assert_eq!(app.ws_status(Some(&token), None).await, 401);
    // The refresh credential brings a fresh one.
    let (status, next) = app.refresh(text(&grant, "refresh")).await;
    assert_eq!(status, 200, "{next}");
    assert_eq!(app.me(text(&next, "token")).await.0, 200);
}

#[actix_web::test]
async fn refusals_of_a_token_never_echo_the_jwt_library() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let (token, _) = app.guest("Tayo").await;
    let mut forged = token.clone();
    forged.pop();
    forged.push(if token.ends_with('A') { 'B' } else { 'A' });
    for bad in ["not.a.jwt", "x", forged.as_str()] {
        let (status, body) = app.me(bad).await;
        assert_eq!(status, 401);
        assert_eq!(body["error"]["message"], "the token is not valid", "{body}");
        assert_eq!(body["error"]["code"], "unauthorized");
    }
    let (status, body) = app.me_without_token().await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["message"], "a token is needed: sign in first");
}

#[actix_web::test]
async fn a_validly_signed_token_for_no_such_user_is_refused_and_names_come_from_the_store() {
    on_both(|app| async move {
        let ghost = app
            .auth
            .issue(
                &Subject::Player(UserId::new("ghost-user-id")),
                "Ghost",
                None,
            )
            .unwrap();
        assert_eq!(app.ws_status(Some(&ghost), None).await, 401);
        let (status, body) = app.me(&ghost).await;
        assert_eq!(status, 401, "{body}");
        assert!(!body.to_string().contains("Ghost"), "{body}");

        // A real user's id with another name: the name shown is the stored one.
        let (_, id) = app.guest("Bola").await;
        let impostor = app
            .auth
            .issue(&Subject::Player(UserId::new(id.clone())), "Baba Ayo", None)
            .unwrap();
        let mut ws = app.ws(&impostor).await;
        ws.send(json!({"type": "enter", "room": "gist-lounge"}))
            .await;
        let room = ws.next_of("room").await;
        assert_eq!(
            room["occupants"],
            json!([{"id": id, "name": "Bola"}]),
            "{room}"
        );
    })
    .await;
}

#[actix_web::test]
async fn a_password_brings_the_same_avatar_to_a_new_device_and_a_wrong_one_says_nothing_more() {
    on_both(|app| async move {
        let grant = app.guest_grant("Ngozi Eze").await;
        let token = text(&grant, "token").to_owned();
        let id = grant["user"]["id"].clone();
        assert_eq!(app.buy(&token, "rattan-chair", None).await.0, 201);
        let coins = app.me(&token).await.1["coins"].clone();

        let (status, body) = app.set_password(&token, json!({"password": "short"})).await;
        assert_eq!(
            (status, body["error"]["field"].clone()),
            (400, json!("password"))
        );
        let (status, body) = app
            .set_password(&token, json!({"password": "palm wine at dusk"}))
            .await;
        assert_eq!(status, 204, "{body}");
        // Changing it asks for the one in use.
        let (status, body) = app
            .set_password(&token, json!({"password": "another long one"}))
            .await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (401, json!("sign_in_failed"))
        );

        let (status, phone) = app
            .sign_in(
                json!({"name": "Ngozi Eze", "password": "palm wine at dusk", "device": "phone"}),
            )
            .await;
        assert_eq!(status, 200, "{phone}");
        assert_eq!(phone["user"]["id"], id);
        assert_eq!(app.me(text(&phone, "token")).await.1["coins"], coins);
        assert_ne!(phone["device"], grant["device"]);

        let (s1, wrong) = app
            .sign_in(json!({"name": "Ngozi Eze", "password": "palm wine at noon"}))
            .await;
        let (s2, nobody) = app
            .sign_in(json!({"name": "Nobody Here", "password": "palm wine at dusk"}))
            .await;
        assert_eq!((s1, s2), (401, 401));
        assert_eq!(wrong, nobody, "one answer, whoever asks");
        assert_eq!(wrong["error"]["code"], "sign_in_failed");
    })
    .await;
}

#[actix_web::test]
async fn devices_are_listed_and_one_signed_out_or_removed_refreshes_no_more() {
    on_both(|app| async move {
        let laptop = app.guest_grant("Chiamaka").await;
        let token = text(&laptop, "token").to_owned();
        app.set_password(&token, json!({"password": "jollof and plantain"}))
            .await;
        let (_, phone) = app
            .sign_in(
                json!({"name": "Chiamaka", "password": "jollof and plantain", "device": "phone"}),
            )
            .await;
        let (_, tablet) = app
            .sign_in(
                json!({"name": "Chiamaka", "password": "jollof and plantain", "device": "tablet"}),
            )
            .await;

        let (status, list) = app.devices(text(&phone, "token")).await;
        assert_eq!(status, 200, "{list}");
        let devices = list["devices"].as_array().unwrap();
        assert_eq!(devices.len(), 3, "{list}");
        let current: Vec<&Value> = devices.iter().filter(|d| d["current"] == true).collect();
        assert_eq!(current.len(), 1);
        assert_eq!(current[0]["id"], phone["device"]);
        assert_eq!(current[0]["label"], "phone");

        // The phone is lost: removed from the laptop.
        let (status, _) = app.remove_device(&token, text(&phone, "device")).await;
        assert_eq!(status, 204);
        let (status, body) = app.refresh(text(&phone, "refresh")).await;
        assert_eq!(
            (status, body["error"]["code"].clone()),
            (401, json!("refresh_invalid"))
        );
        assert_eq!(
            app.remove_device(&token, text(&phone, "device")).await.0,
            404
        );
        // Another player's device is not theirs to remove.
        let stranger = app.guest_grant("Obi").await;
        assert_eq!(
            app.remove_device(text(&stranger, "token"), text(&tablet, "device"))
                .await
                .0,
            404
        );

        // Signing out on the tablet ends the tablet only.
        assert_eq!(app.sign_out(text(&tablet, "token")).await.0, 204);
        assert_eq!(app.refresh(text(&tablet, "refresh")).await.0, 401);
        assert_eq!(app.refresh(text(&laptop, "refresh")).await.0, 200);
        let (_, list) = app.devices(&token).await;
        assert_eq!(list["devices"].as_array().unwrap().len(), 1, "{list}");
    })
    .await;
}

/// The default secret the repository used to carry.
const OLD_DEFAULT_SECRET: &str = "lagos-hotel-development-secret-change-me";

#[actix_web::test]
async fn without_a_secret_one_is_generated_and_kept_and_the_old_default_opens_nothing() {
    let dir = std::env::temp_dir().join(format!("lounge-secret-{}", lounge::store::new_id()));
    let file = dir.join("data").join("auth-secret");
    let file_str = file.to_string_lossy().into_owned();
    let settings = [
        ("LOUNGE_AUTH__SECRET", ""),
        ("LOUNGE_AUTH__SECRET_FILE", file_str.as_str()),
    ];
    let db = TestDb::sqlite();
    let url = db.url_string();
    let app = TestApp::spawn_with(db, &settings).await;

    let old = lounge::http::auth::Auth::new(&lounge::config::AuthSettings {
        secret: OLD_DEFAULT_SECRET.into(),
        issuer: "lagos-hotel-lounge".into(),
        token_ttl_secs: 600,
        ..Default::default()
    })
    .unwrap();
    let forged = old
        .issue(
            &Subject::Operator(OperatorName::new("ops")),
            "ops",
            Some(Duration::from_secs(600)),
        )
        .unwrap();
    assert_eq!(app.admin_rooms(&forged).await.0, 401);

    let kept = std::fs::read_to_string(&file).expect("the secret is kept");
    assert!(kept.trim().len() >= 32);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let (token, _) = app.guest("Dayo").await;

    // `lounge admin token` in the same setting signs with the same secret.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lounge"))
        .args(["admin", "token", "--subject", "Ngozi"])
        .env("LOUNGE_AUTH__SECRET", "")
        .env("LOUNGE_AUTH__SECRET_FILE", &file)
        .env("DATABASE_URL", &url)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let admin = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert_eq!(app.admin_rooms(&admin).await.0, 200);

    // Started again: the same secret, the same tokens.
    let again = TestApp::spawn_with(app.db, &settings).await;
    assert_eq!(again.me(&token).await.0, 200);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), kept);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The design's own setup: one instance, SQLite, the champions wall in Redis. One SQLite file
/// has one instance, so the secret is generated and kept as without Redis.
#[actix_web::test]
async fn one_instance_on_sqlite_with_a_redis_wall_starts_and_keeps_its_own_secret() {
    let dir = std::env::temp_dir().join(format!("lounge-secret-{}", lounge::store::new_id()));
    let file = dir.join("auth-secret");
    let file_str = file.to_string_lossy().into_owned();
    let prefix = format!("test-{}:", lounge::store::new_id());
    let settings = [
        ("LOUNGE_AUTH__SECRET", ""),
        ("LOUNGE_AUTH__SECRET_FILE", file_str.as_str()),
        ("LOUNGE_CHAMPIONS__REDIS_URL", "redis://127.0.0.1:6379"),
        ("LOUNGE_CHAMPIONS__REDIS_KEY_PREFIX", prefix.as_str()),
    ];
    let app = TestApp::spawn_with(TestDb::sqlite(), &settings).await;
    let (token, _) = app.guest("Femi").await;
    assert_eq!(app.me(&token).await.0, 200);
    let kept = std::fs::read_to_string(&file).expect("the secret is kept");
    assert!(kept.trim().len() >= 32);
    let again = TestApp::spawn_with(app.db, &settings).await;
    assert_eq!(
        again.me(&token).await.0,
        200,
        "the same secret after a restart"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[actix_web::test]
async fn several_instances_must_be_given_a_secret_and_a_short_one_is_refused() {
    let pg = TestDb::postgres();
    let why = refused_start(&pg, &[("LOUNGE_AUTH__SECRET", "")]).await;
    assert!(why.contains("LOUNGE_AUTH__SECRET"), "{why}");
    let sqlite = TestDb::sqlite();
    let why = refused_start(
        &sqlite,
        &[
            ("LOUNGE_AUTH__SECRET", ""),
            ("LOUNGE_CHAMPIONS__REDIS_URL", "redis://127.0.0.1:6379"),
            ("LOUNGE_CLUSTER__ENABLED", "true"),
        ],
    )
    .await;
    // Several instances on SQLite are refused anyway; a secret is asked for either way.
    assert!(
        why.contains("LOUNGE_AUTH__SECRET") || why.contains("database.url"),
        "{why}"
    );
    let why = refused_start(
        &sqlite,
        &[("LOUNGE_AUTH__SECRET", "only-31-bytes-long-secret-here!")],
    )
    .await;
    assert!(why.contains("32 bytes"), "{why}");
}

// The hotel's identity provider, with the test keys of tests/fixtures/hotel-idp.

const HOTEL_ISSUER: &str = "https://id.lagos-hotel.test";
const LOUNGE_AUDIENCE: &str = "lagos-hotel-lounge";

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/hotel-idp/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn hotel_settings() -> Vec<(&'static str, String)> {
    vec![
        ("LOUNGE_AUTH__HOTEL__ISSUER", HOTEL_ISSUER.to_owned()),
        ("LOUNGE_AUTH__HOTEL__AUDIENCE", LOUNGE_AUDIENCE.to_owned()),
        ("LOUNGE_AUTH__HOTEL__JWKS_FILE", fixture("jwks.json")),
    ]
}

/// A token as the hotel would sign it; `claims` over the usual ones.
fn hotel_token(alg: Algorithm, key_file: &str, kid: Option<&str>, claims: Value) -> String {
    let pem = std::fs::read(fixture(key_file)).unwrap();
    let key = match alg {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(&pem).unwrap(),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(&pem).unwrap(),
        _ => EncodingKey::from_secret(&pem).unwrap(),
    };
    let now = chrono::Utc::now().timestamp();
    let mut body = json!({
        "iss": HOTEL_ISSUER, "aud": LOUNGE_AUDIENCE, "sub": "guest-1042",
        "name": "Adaeze Okafor", "iat": now, "exp": now + 300,
    });
    for (k, v) in claims.as_object().unwrap() {
        body[k] = v.clone();
    }
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    encode(&header, &body, &key).unwrap()
}

#[actix_web::test]
async fn a_hotel_account_signs_in_as_one_lounge_user_and_forged_hotel_tokens_are_refused() {
    let settings = hotel_settings();
    let extra: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
    on_both_with(&extra, |app| async move {
        let rsa = |claims| hotel_token(Algorithm::RS256, "rsa-private.pem", Some("hotel-rsa-1"), claims);
        let (status, first) = app.hotel_sign_in(json!({"token": rsa(json!({}))})).await;
        assert_eq!(status, 201, "{first}");
        assert_eq!(first["user"]["name"], "Adaeze Okafor");
        let (_, me) = app.me(text(&first, "token")).await;
        assert_eq!(me["coins"], 500, "welcome coins, as a guest gets: {me}");
        // Again, with EdDSA and another name: the same user.
        let ed = hotel_token(
            Algorithm::EdDSA,
            "ed25519-private.pem",
            Some("hotel-ed-1"),
            json!({"name": "Ada O."}),
        );
        let (status, second) = app.hotel_sign_in(json!({"token": ed})).await;
        assert_eq!(status, 200, "{second}");
        assert_eq!(second["user"], first["user"]);
        assert_eq!(app.refresh(text(&second, "refresh")).await.0, 200);
        // A name the lounge does not allow: the body's is taken instead.
        let (status, other) = app
            .hotel_sign_in(json!({
                "token": rsa(json!({"sub": "guest-7", "name": "!!"})),
                "name": "Emeka",
            }))
            .await;
        assert_eq!((status, other["user"]["name"].clone()), (201, json!("Emeka")));
        assert_ne!(other["user"]["id"], first["user"]["id"]);

        let public_pem = std::fs::read(fixture("rsa-public.pem")).unwrap();
        let now = chrono::Utc::now().timestamp();
        let confused = encode(
            &Header::new(Algorithm::HS256),
            &json!({"iss": HOTEL_ISSUER, "aud": LOUNGE_AUDIENCE, "sub": "guest-1042", "exp": now + 300}),
            &EncodingKey::from_secret(&public_pem).unwrap(),
        )
        .unwrap();
        let refused = [
            ("wrong issuer", rsa(json!({"iss": "https://evil.test"}))),
            ("wrong audience", rsa(json!({"aud": "another-service"}))),
            ("expired", rsa(json!({"exp": now - 60}))),
            (
                "wrong key",
                hotel_token(Algorithm::RS256, "stranger-rsa-private.pem", Some("hotel-rsa-1"), json!({})),
            ),
            (
                "unknown kid",
                hotel_token(Algorithm::RS256, "stranger-rsa-private.pem", Some("other"), json!({})),
            ),
            ("HS256 with the public key as secret", confused),
            ("not a token", "x.y.z".to_owned()),
            ("not valid for an hour yet", rsa(json!({"nbf": now + 3600}))),
            ("issued a day from now", rsa(json!({"iat": now + 86_400}))),
            ("an nbf that is no time", rsa(json!({"nbf": "soon"}))),
            ("an empty subject", rsa(json!({"sub": ""}))),
            ("a blank subject", rsa(json!({"sub": "   "}))),
        ];
        for (why, token) in refused {
            let (status, body) = app.hotel_sign_in(json!({ "token": token })).await;
            assert_eq!(status, 401, "{why}: {body}");
            assert_eq!(body["error"]["code"], "sign_in_failed", "{why}");
            assert_eq!(body["error"]["message"], "the hotel's token is not valid", "{why}");
        }
    })
    .await;
}

#[actix_web::test]
async fn a_hotel_key_in_a_pem_file_works_and_without_configuration_the_route_says_so() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let token = hotel_token(Algorithm::EdDSA, "ed25519-private.pem", None, json!({}));
    let (status, body) = app.hotel_sign_in(json!({ "token": token })).await;
    assert_eq!(status, 404, "{body}");

    let pem = fixture("ed25519-public.pem");
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_AUTH__HOTEL__ISSUER", HOTEL_ISSUER),
            ("LOUNGE_AUTH__HOTEL__AUDIENCE", LOUNGE_AUDIENCE),
            ("LOUNGE_AUTH__HOTEL__PEM_FILE", pem.as_str()),
        ],
    )
    .await;
    let (status, body) = app.hotel_sign_in(json!({ "token": token })).await;
    assert_eq!(status, 201, "{body}");
    let rsa = hotel_token(Algorithm::RS256, "rsa-private.pem", None, json!({}));
    assert_eq!(app.hotel_sign_in(json!({ "token": rsa })).await.0, 401);
}
