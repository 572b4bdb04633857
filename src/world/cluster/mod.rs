//! The world as one instance of several: which instance runs a room (`owner.rs`, under its
//! lease), how sessions here reach a room run elsewhere (`remote.rs`) and its owner answers
//! them (`relay.rs`, `wire.rs`, `outgoing.rs`), news every instance must hear at once
//! (`notices.rs`), and the sweeper that opens rooms nobody runs (`leased.rs`). One instance
//! alone runs none of it.

pub(super) mod leased;
pub(super) mod notices;
pub(super) mod outgoing;
pub(super) mod owner;
pub(super) mod relay;
pub(super) mod remote;
pub(super) mod wire;
