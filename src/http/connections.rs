//! The live WebSocket connections of this instance: whose they are and where they come from.
//! A user has one connection (a new one takes the others over); an address has at most
//! `server.ws_connections_per_address`; a connection can be told to close from outside (an
//! operator's ban, a newer connection), and be sent a frame from outside, in whatever room or
//! none (an invitation home).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, watch};

use crate::common::UserId;
use crate::world::protocol::Frame;

/// Why a connection is told to close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Closing {
    /// Another connection of the same user took over.
    Replaced,
    /// The user was banned; the reason the operator gave.
    Banned(String),
}

/// Too many connections from one address.
#[derive(Debug, thiserror::Error)]
#[error("{open} connections are open from this address already; close one first")]
pub struct TooMany {
    pub open: usize,
}

/// The registry, shared by every worker of the instance.
#[derive(Clone)]
pub struct Connections {
    inner: Arc<Mutex<Inner>>,
    per_address: usize,
    /// Set when the service stops: every connection closes then, in a room or not.
    stopping: Arc<watch::Sender<bool>>,
}

#[derive(Default)]
struct Inner {
    users: HashMap<UserId, Vec<Line>>,
    addresses: HashMap<IpAddr, usize>,
}

/// How one connection is reached from outside.
struct Line {
    conn: u64,
    closing: mpsc::Sender<Closing>,
    frames: mpsc::Sender<Frame>,
}

/// Frames from outside a connection holds unwritten at most; past that they are dropped, never
/// waited for (a connection that does not read is cut by its write deadline anyway).
const FRAMES_QUEUED: usize = 16;

impl Connections {
    pub fn new(per_address: usize) -> Connections {
        Connections {
            inner: Arc::default(),
            per_address: per_address.max(1),
            stopping: Arc::new(watch::channel(false).0),
        }
    }

    /// Tells every connection, now and to come, that the service is stopping.
    pub fn stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Where a connection hears that the service is stopping.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stopping.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts connection `conn` of `user` from `address` in, unless that address has too many.
    /// The registration lasts as long as the value returned.
    pub fn admit(
        &self,
        user: &UserId,
        address: Option<IpAddr>,
        conn: u64,
    ) -> Result<Registration, TooMany> {
        let mut inner = self.lock();
        if let Some(address) = address {
            let open = inner.addresses.entry(address).or_default();
            if *open >= self.per_address {
                return Err(TooMany { open: *open });
            }
            *open += 1;
        }
        // One message is all a connection is ever told: it closes then.
        let (closing, closing_rx) = mpsc::channel(1);
        let (frames, frames_rx) = mpsc::channel(FRAMES_QUEUED);
        inner.users.entry(user.clone()).or_default().push(Line {
            conn,
            closing,
            frames,
        });
        Ok(Registration {
            connections: self.clone(),
            user: user.clone(),
            address,
            conn,
            closing: closing_rx,
            frames: frames_rx,
        })
    }

    /// Tells every connection of `user` but `except` to close; how many were told.
    pub fn close_user(&self, user: &UserId, except: Option<u64>, why: Closing) -> usize {
        let inner = self.lock();
        inner.users.get(user).map_or(0, |lines| {
            lines
                .iter()
                .filter(|line| Some(line.conn) != except)
                .filter(|line| line.closing.try_send(why.clone()).is_ok())
                .count()
        })
    }

    /// Sends `frame` to every connection of `user`, in a room or not; how many took it.
    pub fn send_to_user(&self, user: &UserId, frame: &Frame) -> usize {
        let inner = self.lock();
        inner.users.get(user).map_or(0, |lines| {
            lines
                .iter()
                .filter(|line| line.frames.try_send(frame.clone()).is_ok())
                .count()
        })
    }

    /// Open connections from `address`.
    pub fn from_address(&self, address: IpAddr) -> usize {
        self.lock().addresses.get(&address).copied().unwrap_or(0)
    }

    /// Open connections of `user`.
    pub fn of_user(&self, user: &UserId) -> usize {
        self.lock().users.get(user).map_or(0, Vec::len)
    }
}

/// One connection, counted in while it lives.
pub struct Registration {
    connections: Connections,
    user: UserId,
    address: Option<IpAddr>,
    conn: u64,
    /// Where this connection hears it must close.
    pub closing: mpsc::Receiver<Closing>,
    /// Frames sent to this connection from outside any room.
    pub frames: mpsc::Receiver<Frame>,
}

impl Registration {
    /// This connection takes the user's others over: they are told to close.
    pub fn take_over(&self) -> usize {
        self.connections
            .close_user(&self.user, Some(self.conn), Closing::Replaced)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut inner = self.connections.lock();
        if let Some(conns) = inner.users.get_mut(&self.user) {
            conns.retain(|line| line.conn != self.conn);
            if conns.is_empty() {
                inner.users.remove(&self.user);
            }
        }
        if let Some(address) = self.address {
            if let Some(open) = inner.addresses.get_mut(&address) {
                *open = open.saturating_sub(1);
                if *open == 0 {
                    inner.addresses.remove(&address);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_has_a_cap_and_a_closed_connection_frees_its_place() {
        let connections = Connections::new(2);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let a = connections.admit(&UserId::new("a".to_owned()), Some(ip), 1);
        let b = connections.admit(&UserId::new("b".to_owned()), Some(ip), 2);
        assert!(a.is_ok() && b.is_ok());
        assert!(connections
            .admit(&UserId::new("c".to_owned()), Some(ip), 3)
            .is_err());
        drop(a);
        assert_eq!(connections.from_address(ip), 1);
        assert!(connections
            .admit(&UserId::new("c".to_owned()), Some(ip), 3)
            .is_ok());
    }

    #[test]
    fn a_new_connection_tells_the_others_of_its_user_to_close() {
        let connections = Connections::new(10);
        let user = UserId::new("a".to_owned());
        let mut first = connections.admit(&user, None, 1).unwrap();
        let second = connections.admit(&user, None, 2).unwrap();
        assert_eq!(second.take_over(), 1);
        assert_eq!(first.closing.try_recv(), Ok(Closing::Replaced));
        drop(first);
        assert_eq!(connections.of_user(&user), 1);
    }

    #[test]
    fn a_frame_reaches_every_connection_of_its_user_only() {
        let connections = Connections::new(10);
        let (ade, bisi) = (UserId::new("a".to_owned()), UserId::new("b".to_owned()));
        let mut a = connections.admit(&ade, None, 1).unwrap();
        let mut b = connections.admit(&bisi, None, 2).unwrap();
        let frame = Frame::from_static("{}");
        assert_eq!(connections.send_to_user(&ade, &frame), 1);
        assert_eq!(a.frames.try_recv().as_deref(), Ok("{}"));
        assert!(b.frames.try_recv().is_err());
        drop(a);
        assert_eq!(connections.send_to_user(&ade, &frame), 0);
    }
}
