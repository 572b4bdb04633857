//! What one address may hold of the process's descriptors. A process opens 20,000 files at
//! most, and every connection is one: an address holding thousands of them (idle sockets,
//! event streams, bodies sent a byte a second) would leave none for a new player. So:
//!
//! - each peer holds at most `server.connections_per_address` TCP connections (trusted
//!   proxies aside: they carry many clients, each counted by the caps below); past that a
//!   new one is shut down as it is accepted;
//! - each client address (through trusted proxies) holds at most
//!   `server.streams_per_address` event streams (`/champions/stream`), as `/ws` has its own cap;
//! - the server accepts no more connections than the open-file limit leaves after
//!   `server.descriptor_reserve` (the database, Redis, files), so it never runs out and stops
//!   accepting with `Too many open files`.

use std::any::Any;
use std::collections::HashMap;
use std::net::{IpAddr, Shutdown};
use std::sync::{Arc, Mutex, MutexGuard};

use actix_web::dev::Extensions;

/// What a per-address cap counts an address as: an IPv4 address (one mapped into IPv6 too)
/// as itself, an IPv6 address as its /64, the block one client is given to pick from.
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(std::net::Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// Connections (or streams) held, by address, at most `per_address` each.
#[derive(Clone, Debug)]
pub struct Gate {
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
    per_address: usize,
}

/// One connection held by its address; let go when dropped.
#[derive(Debug)]
pub struct Held {
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
    address: IpAddr,
}

impl Gate {
    pub fn new(per_address: usize) -> Gate {
        Gate {
            held: Arc::default(),
            per_address: per_address.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One more for `address` (by its `address_key`), or `None` when it holds its share
    /// already.
    pub fn hold(&self, address: IpAddr) -> Option<Held> {
        let address = address_key(address);
        let mut held = self.lock();
        let open = held.entry(address).or_default();
        if *open >= self.per_address {
            return None;
        }
        *open += 1;
        Some(Held {
            held: self.held.clone(),
            address,
        })
    }

    /// How many `address` holds now.
    pub fn held_by(&self, address: IpAddr) -> usize {
        self.lock().get(&address_key(address)).copied().unwrap_or(0)
    }

    pub fn per_address(&self) -> usize {
        self.per_address
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = held.get_mut(&self.address) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                held.remove(&self.address);
            }
        }
    }
}

/// `HttpServer::on_connect`: records each connection's socket (`peer.rs`) and counts it
/// against its peer's share; one past the share is shut down at once (the connection then ends
/// on its first read, its descriptor closed).
pub fn on_connect(
    gate: Gate,
    proxies: super::peer::Proxies,
) -> impl Fn(&dyn Any, &mut Extensions) + Send + Sync + 'static {
    move |conn, data| {
        super::peer::on_connect(conn, data);
        let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        let Ok(peer) = stream.peer_addr() else { return };
        if proxies.trusts(peer.ip()) {
            return;
        }
        match gate.hold(peer.ip()) {
            Some(held) => {
                data.insert(held);
            }
            None => {
                crate::metrics::METRICS
                    .connections_refused
                    .with_label_values(&["per_address"])
                    .inc();
                let _ = socket2::SockRef::from(stream).shutdown(Shutdown::Both);
            }
        }
    }
}

/// Connections each of `workers` may hold so that all of them together leave `reserve` of the
/// process's open-file limit free; `None` when the limit cannot be read (or is unlimited).
pub fn connections_per_worker(reserve: usize, workers: usize) -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given and nothing else.
    #[allow(unsafe_code)]
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    if read != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let open_files = usize::try_from(limit.rlim_cur).ok()?;
    Some((open_files.saturating_sub(reserve) / workers.max(1)).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_its_share_and_gets_it_back_as_it_lets_go() {
        let gate = Gate::new(2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = gate.hold(a).unwrap();
        let _second = gate.hold(a).unwrap();
        assert!(gate.hold(a).is_none());
        assert!(
            gate.hold(b).is_some(),
            "another address has a share of its own"
        );
        drop(first);
        assert_eq!(gate.held_by(a), 1);
        assert!(gate.hold(a).is_some());
    }

    #[test]
    fn an_ipv6_client_is_held_by_its_64_and_a_mapped_ipv4_as_itself() {
        let gate = Gate::new(1);
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_64: IpAddr = "2001:db8:1:2:ffff::7".parse().unwrap();
        let other_64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        let _held = gate.hold(one).unwrap();
        assert!(gate.hold(same_64).is_none());
        assert!(gate.hold(other_64).is_some());
        let v4: IpAddr = "192.0.2.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        let _v4 = gate.hold(v4).unwrap();
        assert!(gate.hold(mapped).is_none());
    }

    #[test]
    fn the_workers_share_what_the_reserve_leaves() {
        let whole = connections_per_worker(0, 1).expect("the limit reads here");
        assert_eq!(connections_per_worker(100, 1), Some(whole - 100));
        assert_eq!(connections_per_worker(100, 2), Some((whole - 100) / 2));
    }
}
