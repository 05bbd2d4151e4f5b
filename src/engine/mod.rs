//! The built-in engine: what `go` does, whoever asks. [`options`] holds the
//! engine-wide options (`Hash`, `Threads`, `Search`, …) with their one
//! parser; [`searchers`] chooses and runs a search for them, keeping its
//! memory between moves ([`turn_plan`]: the rest of a turn chosen whole). The protocol loop, `agon match`'s built-in
//! players, `agon analyse` and the web board all call this layer; it knows
//! nothing of any of them.

pub mod options;
pub mod searchers;
pub mod turn_plan;

/// Most legal moves `query moves`, `perft` and the generic searches accept
/// at the root (Nim with huge heaps has more).
pub const MAX_LISTED_MOVES: u64 = 100_000;
