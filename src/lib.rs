//! Agon: a headless engine for six two-player games behind one text
//! protocol (UGI, plus UAI for Ataxx tools).
//!
//! Read top-down: [`game`] is the game API, [`games`] holds the games,
//! [`search`] the generic searches, [`network`] the learned evaluation, [`protocol`] the UGI/UAI loop and
//! [`tools`] perft, bench and friends. [`harness`] is the random-play
//! checker that every game's tests run.

pub mod engine;
pub mod game;
pub mod games;
pub mod harness;
pub mod memory;
pub mod network;
pub mod protocol;
pub mod search;
pub mod tools;
pub mod tuning;
