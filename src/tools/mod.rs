//! Tools built on the games, searches and engine: bench, solve, analyse,
//! match, the web board (gui), openings, SPSA tuning, and the learned
//! evaluation's datagen and train.

pub mod analyse;
pub mod bench;
pub mod datagen;
pub mod gui;
pub mod matches;
pub mod openings;
pub mod positions;
pub mod solve;
pub mod train;
pub mod tune;

use crate::game::Game;

/// Builds a game's options from UGI name/value pairs and its position from
/// an optional position string (the start position by default), as the
/// command-line tools take them. An option the game does not have is an
/// error.
pub fn position_from<G: Game>(
    fen: Option<&str>,
    options: &[(String, String)],
) -> Result<G, String> {
    let mut game_options = G::Options::default();
    for (name, value) in options {
        crate::game::set_option(&mut game_options, name, value)?;
    }
    match fen {
        Some(fen) => G::from_fen(fen, &game_options),
        None => Ok(G::start(&game_options)),
    }
}
