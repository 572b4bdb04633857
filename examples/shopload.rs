//! Load tool for the furniture shop: signs in users, then buys as fast as the server answers
//! from many connections at once, each purchase with its own `Idempotency-Key`, and reports
//! purchases a second and their latency (p50, p99, max). At the end it checks every buyer's
//! books through `GET /me`: balance = welcome coins - price × things owned.
//!
//! ```sh
//! LOUNGE_SHOP__WELCOME_COINS=1000000 cargo run --release &
//! cargo run --release --example shopload -- --url http://127.0.0.1:8080 --users 50 \
//!     --workers 64 --seconds 20 [--hot]
//! ```
//!
//! `--hot` sends every purchase for one user (the race on one balance); otherwise each
//! worker buys for the user it was given. The item is `adire-cushion` (15 coins, unlimited).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ITEM: &str = "adire-cushion";
const PRICE: i64 = 15;

struct Args {
    url: String,
    users: usize,
    workers: usize,
    seconds: u64,
    hot: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: "http://127.0.0.1:8080".into(),
        users: 50,
        workers: 64,
        seconds: 20,
        hot: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--hot" {
            a.hot = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} wants a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag} wants a number, not {value:?}"))
        };
        match flag.as_str() {
            "--url" => a.url = value.clone(),
            "--users" => a.users = number()?.max(1) as usize,
            "--workers" => a.workers = number()?.max(1) as usize,
            "--seconds" => a.seconds = number()?.max(1),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    refused: u64,
    failed: u64,
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("shopload: {e}");
            std::process::exit(2);
        }
    };
    actix_web::rt::System::new().block_on(async move {
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .finish();
        let mut users = Vec::new();
        for n in 0..args.users {
            let mut resp = client
                .post(format!("{}/api/v1/auth/guest", args.url))
                .send_json(&json!({"name": format!("Buyer {n}")}))
                .await
                .expect("sign in");
            let body: Value = resp.json().await.expect("JSON");
            let token = body["token"].as_str().expect("a token").to_owned();
            let mut resp = client
                .get(format!("{}/api/v1/me", args.url))
                .bearer_auth(&token)
                .send()
                .await
                .expect("me");
            let me: Value = resp.json().await.expect("JSON");
            users.push((token, me["coins"].as_i64().unwrap_or(0)));
        }
        let tally = Rc::new(RefCell::new(Tally::default()));
        let until = Instant::now() + Duration::from_secs(args.seconds);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for w in 0..args.workers {
            let token = users[if args.hot { 0 } else { w % users.len() }].0.clone();
            let (client, url, tally) = (client.clone(), args.url.clone(), tally.clone());
            tasks.push(actix_web::rt::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < until {
                    n += 1;
                    let key = format!("w{w}-{n}");
                    let sent = Instant::now();
                    let answer = client
                        .post(format!("{url}/api/v1/shop/purchases"))
                        .bearer_auth(&token)
                        .insert_header(("Idempotency-Key", key))
                        .send_json(&json!({"item": ITEM}))
                        .await;
                    let took = sent.elapsed().as_micros() as u64;
                    let mut t = tally.borrow_mut();
                    match answer.map(|r| r.status().as_u16()) {
                        Ok(201) => t.latencies_us.push(took),
                        Ok(409) => t.refused += 1,
                        _ => t.failed += 1,
                    }
                }
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let mut t = std::mem::take(&mut *tally.borrow_mut());
        t.latencies_us.sort_unstable();
        let pct = |p: f64| {
            t.latencies_us
                .get(((t.latencies_us.len() as f64 * p) as usize).min(t.latencies_us.len().saturating_sub(1)))
                .map_or(0.0, |us| *us as f64 / 1000.0)
        };
        println!(
            "{} purchases in {elapsed:.1} s: {:.0}/s; p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} refused (409), {} failed",
            t.latencies_us.len(),
            t.latencies_us.len() as f64 / elapsed,
            pct(0.5),
            pct(0.99),
            t.latencies_us.last().map_or(0.0, |us| *us as f64 / 1000.0),
            t.refused,
            t.failed
        );
        // The books: every buyer's balance is what they started with less what they own.
        let mut wrong = 0;
        for (token, start) in &users {
            let mut resp = client
                .get(format!("{}/api/v1/me", args.url))
                .bearer_auth(token)
                .send()
                .await
                .expect("me");
            let me: Value = resp.json().limit(1 << 26).await.expect("JSON");
            let owned = me["inventory"].as_array().map_or(0, Vec::len) as i64;
            if me["coins"].as_i64() != Some(start - PRICE * owned) {
                wrong += 1;
            }
        }
        println!("books checked for {} users: {wrong} wrong", users.len());
        if wrong > 0 || t.failed > 0 {
            std::process::exit(1);
        }
    });
}
