//! The one integration-test binary: one link on 2 cores, shared helpers (`helpers/`).

mod admin;
mod alloc;
mod browser;
mod browser_moderation;
mod champions;
mod chat_flood;
mod civility;
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
