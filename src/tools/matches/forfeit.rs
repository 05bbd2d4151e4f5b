//! How a player loses a game without the rules deciding it: what the
//! referee records when a player, built in or an engine process, fails.

/// Why a player lost a game without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    /// An unreadable or illegal move.
    IllegalMove(String),
    /// No answer in time.
    Timeout(String),
    /// The engine process exited, could not be started or closed its pipes.
    Crash(String),
    /// No answer to `ugi` or `isready`.
    Handshake(String),
    /// The clock ran out.
    Flag(String),
}

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Forfeit::IllegalMove(why) => write!(f, "illegal move {why}"),
            Forfeit::Timeout(why) => write!(f, "timeout, {why}"),
            Forfeit::Crash(why) => write!(f, "crash, {why}"),
            Forfeit::Handshake(why) => write!(f, "handshake failed, {why}"),
            Forfeit::Flag(why) => write!(f, "loss on time, {why}"),
        }
    }
}
