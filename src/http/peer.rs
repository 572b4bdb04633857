//! Who is on the other end of a request: their address (through the proxies we are told to
//! believe), and a handle on their TCP socket so a connection that stopped reading can be cut.

use std::any::Any;
use std::net::{IpAddr, Shutdown, SocketAddr};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
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

    /// Whether `peer` is a trusted proxy.
    pub fn trusts(&self, peer: IpAddr) -> bool {
        self.0.contains(&peer)
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

/// A connection's TCP socket as it was accepted: its descriptor's number and its two
/// addresses, held in the connection's data (which goes when the connection does). Shutting it
/// down ends the connection whatever state its HTTP machinery is in: a peer that never reads
/// leaves actix waiting on a full socket forever, holding the descriptor, otherwise. The
/// number, not a second descriptor: a process may open 20,000 files, and a second one a
/// connection halved the guests an instance could hold.
#[derive(Debug)]
struct Accepted {
    fd: RawFd,
    local: SocketAddr,
    peer: SocketAddr,
}

/// What a session holds of its connection's socket: a weak hold on the connection's data. It
/// upgrades only while the connection is there, and so its descriptor is open.
#[derive(Clone, Debug)]
pub struct Socket(Weak<Accepted>);

impl Socket {
    /// The socket of a request's connection, when it was recorded.
    pub fn of(req: &HttpRequest) -> Option<Socket> {
        req.conn_data::<Arc<Accepted>>()
            .map(|a| Socket(Arc::downgrade(a)))
    }

    /// Cuts the connection both ways if it is still there; the server's side then fails its
    /// writes and lets go.
    pub fn cut(&self) {
        let Some(accepted) = self.0.upgrade() else {
            return;
        };
        let Accepted { fd, local, peer } = *accepted;
        // SAFETY: the descriptor is open. The connection's data is still held (the upgrade
        // above), so actix has not dropped the connection, whose data and stream go together
        // in one drop on its worker thread; sessions run on that same thread (`rt::spawn` from
        // the handler), so the drop cannot happen between here and the shutdown. It is only
        // borrowed for the calls below, none of which closes it; its two addresses are checked
        // too, to touch no other socket should that reasoning ever stop holding.
        #[allow(unsafe_code)]
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let socket = socket2::SockRef::from(&borrowed);
        let same = |a: std::io::Result<socket2::SockAddr>, b: SocketAddr| {
            a.ok().and_then(|a| a.as_socket()) == Some(b)
        };
        if same(socket.local_addr(), local) && same(socket.peer_addr(), peer) {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// `HttpServer::on_connect`: records each connection's socket.
pub fn on_connect(conn: &dyn Any, data: &mut Extensions) {
    if let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() {
        if let (Ok(local), Ok(peer)) = (stream.local_addr(), stream.peer_addr()) {
            let fd = stream.as_raw_fd();
            data.insert(Arc::new(Accepted { fd, local, peer }));
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
