//! Tools built on the games and searches: perft, bench, solve, analyse and
//! match.

pub mod analyse;
pub mod bench;
pub mod matches;
pub mod perft;
pub mod positions;
pub mod solve;
