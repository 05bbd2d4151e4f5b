//! Tools built on the games and searches: perft, bench, solve, analyse and
//! match.

pub mod bench;
pub mod perft;
pub mod solve;
