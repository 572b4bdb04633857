//! TCP_NODELAY on every socket of a load tool's process (`#[path]`-included by the tools).

/// Browsers write without waiting (TCP_NODELAY); awc's sockets wait for the acknowledgement
/// of what they wrote last (Nagle), and the server acknowledges a pong only after up to 40 ms:
/// a move written just after a pong would wait for it. Set on every socket of the process,
/// once all are connected (awc does not hand its sockets out).
#[allow(unsafe_code)]
pub fn no_delay_on_every_socket() -> usize {
    let mut set = 0;
    for entry in std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if !std::fs::read_link(entry.path())
            .is_ok_and(|l| l.to_string_lossy().starts_with("socket:"))
        {
            continue;
        }
        // SAFETY: the descriptor was open a moment ago and is borrowed for one call; nothing
        // closes sockets while the users are connected, and on any other kind of descriptor
        // the option is refused.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        if socket2::SockRef::from(&fd).set_tcp_nodelay(true).is_ok() {
            set += 1;
        }
    }
    set
}
