//! What one address may hold of the server's descriptors: TCP connections, event streams, and
//! request bodies that take their time. Each cap is met with real sockets; a new client from
//! elsewhere still gets in.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, TestDb};

/// Reads what the server says on `stream` until it closes it; `None` if it is still open after
/// `within`.
async fn until_closed(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(within, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    });
    read.await.ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

#[actix_web::test]
async fn a_peer_past_its_share_of_connections_is_closed_as_it_connects() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[("LOUNGE_SERVER__CONNECTIONS_PER_ADDRESS", "4")],
    )
    .await;
    let address = format!("127.0.0.1:{}", app.port);
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(&address).await.unwrap());
    }
    // The fifth is shut as it is accepted: it reads the end, not an answer.
    let mut fifth = TcpStream::connect(&address).await.unwrap();
    let _ = fifth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: lounge\r\n\r\n")
        .await;
    let said = until_closed(&mut fifth, Duration::from_secs(5))
        .await
        .expect("closed at once");
    assert!(said.is_empty(), "answered: {said}");
    // One let go: its place is taken by the next (once the server has seen it go). Each try
    // is answered (shut, or served) before the next: tries driven by the server's answers,
    // not by a timer.
    drop(idle.pop());
    let mut answered = String::new();
    for _ in 0..1_000 {
        let mut next = TcpStream::connect(&address).await.unwrap();
        let _ = next
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: lounge\r\nConnection: close\r\n\r\n")
            .await;
        answered = until_closed(&mut next, Duration::from_secs(5))
            .await
            .unwrap_or_default();
        if answered.starts_with("HTTP/1.1 200") {
            break;
        }
    }
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    let (_, metrics) = app.metrics().await;
    assert!(
        metrics.contains("lounge_connections_refused_total{kind=\"per_address\"}"),
        "{metrics}"
    );
}

#[actix_web::test]
async fn an_address_holds_a_few_event_streams_and_one_closed_frees_its_place() {
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[("LOUNGE_SERVER__STREAMS_PER_ADDRESS", "2")],
    )
    .await;
    let first = app.champions_stream().await;
    let second = app.champions_stream().await;
    assert_eq!(
        (first.status().as_u16(), second.status().as_u16()),
        (200, 200)
    );
    let mut third = app.champions_stream().await;
    assert_eq!(third.status(), 429);
    let body: serde_json::Value = third.json().await.unwrap();
    assert_eq!(body["error"]["code"], "too_many_connections");
    // Gone: the server finds out at the next keep-alive (its write fails), 15 s on its
    // hand-driven clock; each try moves it on and waits for the server's answer.
    drop(first);
    let mut status = 0;
    for _ in 0..1_000 {
        app.clock.advance(15_000);
        status = app.champions_stream().await.status().as_u16();
        if status == 200 {
            break;
        }
    }
    assert_eq!(status, 200);
}

#[actix_web::test]
async fn a_body_that_does_not_arrive_in_time_is_answered_408_and_its_connection_closed() {
    let app = TestApp::spawn(TestDb::sqlite()).await;
    let mut slow = TcpStream::connect(format!("127.0.0.1:{}", app.port))
        .await
        .unwrap();
    slow.write_all(
        b"POST /api/v1/auth/guest HTTP/1.1\r\nHost: lounge\r\n\
          Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\"",
    )
    .await
    .unwrap();
    // Nothing comes while there is time left.
    let mut buf = [0u8; 64];
    assert!(
        tokio::time::timeout(Duration::from_millis(200), slow.read(&mut buf))
            .await
            .is_err(),
        "answered before its time"
    );
    app.clock.advance(5_000);
    let said = until_closed(&mut slow, Duration::from_secs(5))
        .await
        .expect("the connection is closed");
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(said.contains("request_timeout"), "{said}");
    // Nothing was made of it.
    assert_eq!(app.sign_in_guest("Slow Body").await.0, 201);
}

#[actix_web::test]
async fn an_address_past_its_requests_a_second_waits_and_others_do_not() {
    // A token every 1,000 s: however the clock is moved below, the sixth has none.
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__REQUESTS_PER_SEC", "0.001"),
            ("LOUNGE_SERVER__REQUEST_BURST", "5"),
            ("LOUNGE_SERVER__TRUSTED_PROXIES", "127.0.0.1"),
        ],
    )
    .await;
    let looping = [("X-Forwarded-For", "203.0.113.9")];
    for _ in 0..5 {
        assert_eq!(app.openapi_with(&looping).await.0, 200);
    }
    // The sixth is told to wait at once: a trusted proxy carries it (no hold, the next test).
    let mut held = std::pin::pin!(app.openapi_with(&looping));
    let mut advanced_ms = 0;
    let (status, headers) = loop {
        tokio::select! {
            done = &mut held => break done,
            () = tokio::task::yield_now() => {
                app.clock.advance(100);
                advanced_ms += 100;
            }
        }
    };
    assert_eq!(status, 429);
    let wait: u64 = headers
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // A token a thousand seconds, less what the clock moved while the answer was on its way
    // (a loaded host yields many times before it comes).
    let least = 900_u64.saturating_sub(advanced_ms / 1000);
    assert!(
        (least..=1000).contains(&wait),
        "Retry-After: {wait}, the clock moved {advanced_ms} ms"
    );
    // Another address has its own budget; health checks take none.
    let (status, headers) = app
        .openapi_with(&[("X-Forwarded-For", "198.51.100.4")])
        .await;
    assert_eq!(status, 200);
    assert_eq!(app.healthz().await.0, 200);
    // A client that has the document is told so, without it.
    let etag = headers.get("etag").unwrap().to_str().unwrap().to_owned();
    let (status, _) = app
        .openapi_with(&[
            ("X-Forwarded-For", "198.51.100.4"),
            ("If-None-Match", &etag),
        ])
        .await;
    assert_eq!(status, 304);
    // Once its token is due, the looping address has one more.
    app.clock.advance(1_000_000);
    assert_eq!(app.openapi_with(&looping).await.0, 200);
}

#[actix_web::test]
async fn a_request_past_the_budget_is_held_until_its_token_is_due_unless_a_proxy_carries_it() {
    // Straight from the client (no trusted proxy): the 429 waits a second on the server's
    // clock, so a loop that does not wait is made to. (Through a trusted proxy it comes at
    // once: the test above.)
    let app = TestApp::spawn_with(
        TestDb::sqlite(),
        &[
            ("LOUNGE_SERVER__REQUESTS_PER_SEC", "0.001"),
            ("LOUNGE_SERVER__REQUEST_BURST", "2"),
        ],
    )
    .await;
    for _ in 0..2 {
        assert_eq!(app.openapi_with(&[]).await.0, 200);
    }
    let mut held = std::pin::pin!(app.openapi_with(&[]));
    let mut moved = 0;
    let (status, _) = loop {
        tokio::select! {
            done = &mut held => break done,
            () = tokio::task::yield_now() => {
                app.clock.advance(100);
                moved += 100;
            }
        }
    };
    assert_eq!(status, 429);
    assert!(
        moved >= 1_000,
        "answered after {moved} ms on the server's clock"
    );
}
