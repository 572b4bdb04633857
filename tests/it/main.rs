//! The one integration-test binary: one link on 2 cores, shared helpers (`helpers/`).

mod admin;
mod alloc;
mod browser;
mod browser_identity;
mod champions;
mod clock;
mod config;
mod engine;
mod helpers;
mod identity;
mod image;
mod layers;
mod matches;
mod names;
mod perft;
mod properties;
mod replay;
mod restart;
mod room;
mod rules;
mod series;
mod server;
mod shop;
mod store;
mod supervision;
mod support;
