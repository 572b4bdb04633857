//! The web client as players use it: its sowing agrees with the engine under every
//! rule set, and in headless Chromium (`tests/e2e/*.mjs`) it survives a reload mid-game, works
//! from a LAN address over plain http, keeps a phone's page its width whatever is said in chat,
//! takes an invitation home to wherever the guest is, lists the rooms an operator made, and
//! keeps tokens out of URLs.

use std::io::Write;
use std::process::{Command, Stdio};

use lounge::ayo::{Game, Pit, Rules};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use serde_json::json;

use crate::helpers::browser::run_e2e;
use crate::helpers::{TestApp, TestDb};

/// Random games under `rules`: each a line of pit numbers, South first.
fn random_games(rules: Rules, games: usize, seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut lines = String::new();
    for _ in 0..games {
        let mut game = Game::new(rules);
        let mut moves = Vec::new();
        while !game.is_over() {
            let legal = game.legal_moves();
            let pit: Pit = legal.nth(rng.random_range(0..legal.len())).unwrap();
            game.play(pit).unwrap();
            moves.push(pit.number().to_string());
        }
        lines.push_str(&moves.join(" "));
        lines.push('\n');
    }
    lines
}

#[actix_web::test]
async fn the_clients_sowing_agrees_with_the_engines_trace_under_every_rule_set() {
    let dir = tempfile_dir("sowing");
    let sets: [(&str, &[&str]); 6] = [
        ("lagos", &[]),
        ("kontest", &[]),
        ("oware", &[]),
        ("ayoayo", &[]),
        // The mixes: relay sowing with the 2-or-3 capture, one lap collecting fours.
        ("lagos", &["sowing=relay"]),
        ("lagos", &["capture=four"]),
    ];
    for (i, (preset, overrides)) in sets.iter().enumerate() {
        let rules = Rules::build(preset, overrides.iter().copied()).unwrap();
        let moves = dir.join(format!("moves-{i}.txt"));
        let trace = dir.join(format!("trace-{i}.jsonl"));
        std::fs::write(&moves, random_games(rules, 150, 16 + i as u64)).unwrap();
        let mut replay = Command::new(env!("CARGO_BIN_EXE_lounge"));
        replay.args(["ayo", "replay", "--trace", "--rules", preset]);
        for o in *overrides {
            replay.args(["--rule", o]);
        }
        let mut child = replay
            .stdin(Stdio::piped())
            .stdout(std::fs::File::create(&trace).unwrap())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&std::fs::read(&moves).unwrap())
            .unwrap();
        assert!(
            child.wait().unwrap().success(),
            "replay of {preset} {overrides:?}"
        );
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/sowing.mjs");
        let out = Command::new("node")
            .arg(script)
            .arg(serde_json::to_string(&rules).unwrap())
            .arg(&moves)
            .arg(&trace)
            .output()
            .expect("node runs");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && said.contains("\nok"),
            "{preset} {overrides:?}: {said}"
        );
        if rules.sowing == lounge::ayo::Sowing::Relay {
            assert!(!said.contains("(0 relays)"), "no relay was tried: {said}");
        }
    }
}

/// A fresh folder under the target's tmp for one test's files.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{name}-{}-{}",
        std::process::id(),
        lounge::world::World::next_connection()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[actix_web::test]
async fn a_reload_or_a_closed_tab_brings_the_player_back_to_the_board_and_the_opponent_is_told() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    run_e2e("reload.mjs", vec![app.url("")]).await;
}

#[actix_web::test]
async fn a_long_word_in_chat_keeps_a_phone_page_its_width_and_taps_on_the_board() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    run_e2e("phone.mjs", vec![app.url("")]).await;
}

#[actix_web::test]
async fn at_a_lan_address_over_plain_http_the_shop_sells_and_signing_out_leaves_nothing() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__BIND", "0.0.0.0:0"),
            ("LOUNGE_SERVER__WS_MESSAGES_PER_SEC", "1000"),
        ],
    )
    .await;
    let address = lan_address();
    run_e2e("lan.mjs", vec![format!("http://{address}:{}", app.port)]).await;
}

#[actix_web::test]
async fn an_invitation_home_reaches_the_guest_in_another_room_and_operators_rooms_are_in_the_menu()
{
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let ops = app.admin_token("ops");
    let (status, made) = app
        .create_room(
            &ops,
            json!({"name": "Rooftop Terrace", "tables": 1, "rules": "ayoayo"}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    run_e2e("home.mjs", vec![app.url(""), "Rooftop Terrace".into()]).await;
}

/// This machine's own address on its network (not loopback): where a guest on the hotel's LAN
/// would open the lounge. Asking the routing table sends no packet.
fn lan_address() -> std::net::IpAddr {
    let probe = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    probe
        .connect("192.0.2.1:9")
        .expect("a route off this machine: the LAN test needs a network interface");
    let ip = probe.local_addr().unwrap().ip();
    assert!(
        !ip.is_loopback() && !ip.is_unspecified(),
        "no address but loopback ({ip}): the LAN test needs a network interface"
    );
    ip
}

#[actix_web::test]
async fn the_client_is_served_as_modules_that_import_only_what_is_served() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let client = awc::Client::default();
    let page = client
        .get(app.url("/"))
        .send()
        .await
        .unwrap()
        .body()
        .await
        .unwrap();
    let page = String::from_utf8(page.to_vec()).unwrap();
    assert!(page.contains(r#"<script type="module" src="/js/main.js">"#));
    assert!(page.contains(r#"href="/favicon.svg""#));
    // Every module a module imports is served, as JavaScript; nothing else is.
    let mut todo = vec!["main.js".to_owned()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(module) = todo.pop() {
        if !seen.insert(module.clone()) {
            continue;
        }
        let mut answer = client
            .get(app.url(&format!("/js/{module}")))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{module}");
        assert_eq!(
            answer.headers().get("content-type").unwrap(),
            "text/javascript; charset=utf-8"
        );
        let text = String::from_utf8(answer.body().await.unwrap().to_vec()).unwrap();
        assert!(
            !text.contains("randomUUID("),
            "{module} needs a secure origin"
        );
        for import in text.split("from \"./").skip(1) {
            todo.push(import.split('"').next().unwrap().to_owned());
        }
    }
    assert!(seen.len() >= 10, "{seen:?}");
    let missing = client.get(app.url("/js/nothing.js")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let icon = client.get(app.url("/favicon.svg")).send().await.unwrap();
    assert_eq!(icon.status(), 200);
    assert_eq!(icon.headers().get("content-type").unwrap(), "image/svg+xml");
}
