//! The one integration-test binary: one link on 2 cores, shared helpers (`helpers/`).

mod admin;
mod alloc;
mod browser;
mod champions;
mod clock;
mod config;
mod engine;
mod helpers;
mod image;
mod layers;
mod matches;
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
mod wall;
