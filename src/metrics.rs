//! Prometheus metrics, served at `/metrics`. One set per process: every app in it counts here.

use std::sync::LazyLock;

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, Opts, Registry,
    TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: IntGauge,
    /// People in rooms (set at each scrape).
    pub occupants: IntGauge,
    /// Rooms being served.
    pub rooms: IntGauge,
    /// Games in play.
    pub games_in_play: IntGauge,
    /// Moves played.
    pub moves: IntCounter,
    /// Errors sent to clients, by code.
    pub errors: IntCounterVec,
    /// Room tasks that panicked (each leaves the registry and opens again at the next visit).
    pub room_failures: IntCounter,
    /// Text frames written to WebSockets.
    pub frames: IntCounter,
    /// Messages that went out inside a batched frame (a JSON array) rather than alone.
    pub batched: IntCounter,
    /// How long a room waited for its writes to be stored (the blocking pool's queue, the
    /// writers' turn and the database): the part of a move's round trip spent in the store.
    pub store_seconds: Histogram,
    /// Moves a room stored at once on its own thread (SQLite, nothing to wait for); the
    /// others went to the blocking pool (`store/game_moves.rs`).
    pub moves_at_once: IntCounter,
    /// Rooms this instance dropped because a later owner took them (a fenced write, or a
    /// lease that could not be renewed in time): several instances only.
    pub leases_lost: IntCounter,
    /// Rooms this instance runs under their leases (several instances only).
    pub rooms_owned: IntGauge,
    /// Commands of sessions here relayed to a room's owner on another instance.
    pub relayed_commands: IntCounter,
    /// Frames a room here relayed to sessions on another instance.
    pub relayed_frames: IntCounter,
    /// Round trips to Redis for the cluster: relayed messages and leases.
    pub redis_round_trips: IntCounter,
    /// Messages read on the relay's channels without a good MAC: not from an instance of
    /// this hotel (or one with another secret), dropped.
    pub relay_refused: IntCounter,
    /// Connections refused for what their address holds already, by what was refused:
    /// `per_address` (TCP connections), `streams` (event streams), `ws` (WebSockets).
    pub connections_refused: IntCounterVec,
    /// Request bodies that did not arrive in time (`server.body_timeout_secs`).
    pub slow_bodies: IntCounter,
}

fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    let c = IntCounter::new(name, help).expect("a valid metric name");
    registry
        .register(Box::new(c.clone()))
        .expect("registered once");
    c
}

fn histogram(registry: &Registry, name: &str, help: &str) -> Histogram {
    // From 50 µs to 1 s: a move's store is well under a millisecond when nothing waits.
    let buckets = prometheus::exponential_buckets(0.000_05, 2.0, 15).expect("valid buckets");
    let h = Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
        .expect("a valid metric name");
    registry
        .register(Box::new(h.clone()))
        .expect("registered once");
    h
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    let g = IntGauge::new(name, help).expect("a valid metric name");
    registry
        .register(Box::new(g.clone()))
        .expect("registered once");
    g
}

pub static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let registry = Registry::new();
    let moves = IntCounter::new("lounge_moves_total", "Moves played").expect("valid");
    registry
        .register(Box::new(moves.clone()))
        .expect("registered once");
    let errors = IntCounterVec::new(
        Opts::new("lounge_errors_total", "Errors sent to clients, by code"),
        &["code"],
    )
    .expect("valid");
    registry
        .register(Box::new(errors.clone()))
        .expect("registered once");
    let connections_refused = IntCounterVec::new(
        Opts::new(
            "lounge_connections_refused_total",
            "Connections refused for what their address holds already, by kind",
        ),
        &["kind"],
    )
    .expect("valid");
    registry
        .register(Box::new(connections_refused.clone()))
        .expect("registered once");
    Metrics {
        connections_refused,
        slow_bodies: counter(
            &registry,
            "lounge_slow_bodies_total",
            "Request bodies that did not arrive in time",
        ),
        connections: gauge(
            &registry,
            "lounge_connections",
            "Open WebSocket connections",
        ),
        occupants: gauge(&registry, "lounge_occupants", "People in rooms"),
        rooms: gauge(&registry, "lounge_rooms", "Rooms being served"),
        games_in_play: gauge(&registry, "lounge_games_in_play", "Games in play"),
        moves,
        errors,
        room_failures: counter(
            &registry,
            "lounge_room_failures_total",
            "Room tasks that panicked",
        ),
        frames: counter(
            &registry,
            "lounge_ws_frames_total",
            "Text frames written to WebSockets",
        ),
        batched: counter(
            &registry,
            "lounge_ws_batched_messages_total",
            "Messages sent inside a batched frame (a JSON array)",
        ),
        store_seconds: histogram(
            &registry,
            "lounge_store_seconds",
            "Time a room waited for its writes to be stored",
        ),
        moves_at_once: counter(
            &registry,
            "lounge_moves_stored_at_once_total",
            "Moves a room stored at once on its own thread, without the blocking pool",
        ),
        leases_lost: counter(
            &registry,
            "lounge_leases_lost_total",
            "Rooms dropped because a later owner took them",
        ),
        rooms_owned: gauge(
            &registry,
            "lounge_rooms_owned",
            "Rooms this instance runs under their leases",
        ),
        relayed_commands: counter(
            &registry,
            "lounge_relayed_commands_total",
            "Commands of sessions here relayed to a room's owner on another instance",
        ),
        relayed_frames: counter(
            &registry,
            "lounge_relayed_frames_total",
            "Frames a room here relayed to sessions on another instance",
        ),
        relay_refused: counter(
            &registry,
            "lounge_relay_refused_total",
            "Messages on the relay's channels without a good MAC, dropped",
        ),
        redis_round_trips: counter(
            &registry,
            "lounge_cluster_redis_round_trips_total",
            "Round trips to Redis for the cluster: relayed messages and leases",
        ),
        registry,
    }
});

impl Metrics {
    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // Encoding into a Vec cannot fail for the text format.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}
