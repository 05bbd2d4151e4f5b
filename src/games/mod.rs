//! The games. Each lives in its own module and implements [`Game`]; adding a
//! game means one module here plus one line in the `registry!` call below.

use crate::game::Game;

pub mod ataxx;
pub mod board_text;
pub mod ctor;
pub mod dots;
pub mod mutorere;
pub mod nim;
pub mod yote;

/// Code that is generic over the game and is chosen at run time by name
/// (the CLI's `--game`, the protocol's `Game` option).
pub trait GameVisitor {
    /// What the visit produces.
    type Output;
    /// Runs with `G` as the chosen game.
    fn visit<G: Game>(self) -> Self::Output;
}

macro_rules! registry {
    ($($game:ty),* $(,)?) => {
        /// Names of every implemented game, in registration order.
        pub const GAME_NAMES: &[&str] = &[$(<$game as Game>::NAME),*];

        /// Runs `visitor` with the game called `name` (case-insensitive).
        pub fn visit_game<V: GameVisitor>(name: &str, visitor: V) -> Result<V::Output, String> {
            $(
                if name.eq_ignore_ascii_case(<$game as Game>::NAME) {
                    return Ok(visitor.visit::<$game>());
                }
            )*
            Err(format!(
                "unknown game '{name}' (games: {})",
                GAME_NAMES.join(", ")
            ))
        }
    };
}

registry!(
    ataxx::Ataxx,
    dots::Dots,
    nim::Nim,
    mutorere::MuTorere,
    yote::Yote,
    ctor::Ctor
);
