//! Command-line tools built on the games and searches (`agon solve`, …).

pub mod solve;
