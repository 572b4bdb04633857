//! Who is on the other end of a request: their address (through the proxies we are told to
//! believe), and a handle on their TCP socket so a connection that stopped reading can be cut.

use std::any::Any;
use std::net::{IpAddr, Shutdown, TcpStream};
use std::os::fd::AsFd;
use std::sync::{Arc, Weak};
use std::time::Duration;

use actix_web::dev::Extensions;
use actix_web::HttpRequest;

use crate::common::ServerClock;

/// The proxies whose `X-Forwarded-For` is believed (`server.trusted_proxies`).
#[derive(Clone, Debug, Default)]
pub struct Proxies(Vec<IpAddr>);

impl Proxies {
    pub fn new(addresses: Vec<IpAddr>) -> Proxies {
        Proxies(addresses)
    }

    /// The client's address: the peer's, unless the peer is a trusted proxy; then the last
    /// address in `X-Forwarded-For` that is not a trusted proxy (each proxy appends the one it
    /// saw, so anything to the left of that may be written by the client and is not believed).
    pub fn client_of(&self, req: &HttpRequest) -> Option<IpAddr> {
        let peer = req.peer_addr()?.ip();
        if !self.0.contains(&peer) {
            return Some(peer);
        }
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in forwarded.iter().rev() {
            match hop.parse::<IpAddr>() {
                Ok(ip) if self.0.contains(&ip) => continue,
                Ok(ip) => return Some(ip),
                // Garbage where an address should be: the proxy itself is all we know.
                Err(_) => return Some(peer),
            }
        }
        Some(peer)
    }
}

/// A second descriptor of a connection's TCP socket, taken when it is accepted. Shutting it
/// down ends the connection whatever state its HTTP machinery is in: a peer that never reads
/// leaves actix waiting on a full socket forever, holding the descriptor, otherwise.
#[derive(Clone, Debug)]
pub struct Socket(Arc<TcpStream>);

impl Socket {
    /// Cuts the connection both ways; the server's side then fails its writes and lets go.
    pub fn cut(&self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }

    /// A hold that does not keep the socket open.
    pub fn downgrade(&self) -> WeakSocket {
        WeakSocket(Arc::downgrade(&self.0))
    }

    /// The socket of a request's connection, when it was recorded.
    pub fn of(req: &HttpRequest) -> Option<Socket> {
        req.conn_data::<Socket>().cloned()
    }
}

/// A socket, if its connection is still there.
#[derive(Clone, Debug)]
pub struct WeakSocket(Weak<TcpStream>);

impl WeakSocket {
    pub fn upgrade(&self) -> Option<Socket> {
        self.0.upgrade().map(Socket)
    }
}

/// `HttpServer::on_connect`: records each connection's socket.
pub fn on_connect(conn: &dyn Any, data: &mut Extensions) {
    if let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() {
        if let Ok(fd) = stream.as_fd().try_clone_to_owned() {
            data.insert(Socket(Arc::new(TcpStream::from(fd))));
        }
    }
}

/// Waits `duration` on the server's clock: the system's, or a test's hand-driven one (which
/// then ends the wait when moved on far enough).
pub async fn elapse(clock: &ServerClock, duration: Duration) {
    let Some(mut moved) = clock.watch() else {
        return tokio::time::sleep(duration).await;
    };
    let until = clock
        .now_ms()
        .saturating_add(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX));
    while *moved.borrow_and_update() < until {
        if moved.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}
