//! `agon solve`: the exact value and every optimal move of a position, for
//! the games with a perfect-play oracle (Dots and Boxes, Mū Tōrere).

use super::position_from;
use crate::game::{Game, Proven};
use crate::games::dots::Dots;
use crate::games::mutorere::{self, MuTorere};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::time::{Duration, Instant};

/// What the Dots and Boxes solver may use.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resources {
    /// Threads; 0 for one per core.
    pub threads: usize,
    /// MiB for the table; 0 for a size suited to the position.
    pub hash_mb: usize,
}

/// Solves `fen` (or the start position) of `game` under `options` and
/// writes the answer to `out`.
///
/// Dots: `margin <final score_x - score_o>` and `best <moves>`. Mū Tōrere:
/// `value win|loss|draw` for the side to move, `plies <n>` when decided and
/// `best <moves>`. On a finished position the last line is `game over:
/// <result> (<reason>), no move to play` instead of `best`. With
/// `progress`, a spinner on stderr during the solve.
pub fn run(
    game: &str,
    fen: Option<&str>,
    options: &[(String, String)],
    resources: Resources,
    progress: bool,
    out: &mut dyn Write,
) -> Result<(), String> {
    match game.to_ascii_lowercase().as_str() {
        "dots" => solve_dots(
            position_from::<Dots>(fen, options)?,
            resources,
            progress,
            out,
        ),
        "mutorere" => solve_mutorere(&position_from::<MuTorere>(fen, options)?, out),
        _ => Err(format!(
            "no exact solver for game '{game}' (solve works for dots and mutorere)"
        )),
    }
}

fn io_error(e: std::io::Error) -> String {
    format!("cannot write the answer: {e}")
}

fn solve_dots(
    game: Dots,
    resources: Resources,
    progress: bool,
    out: &mut dyn Write,
) -> Result<(), String> {
    let margin_x = |mover_margin: i32| match game.side_to_move() {
        crate::game::Player::X => mover_margin,
        crate::game::Player::O => -mover_margin,
    };
    if game.outcome().is_some() {
        writeln!(out, "margin {}", margin_x(game.score_diff())).map_err(io_error)?;
        return game_over(&game, out);
    }
    let spinner = progress.then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} solving {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(format!("{} empty lines", game.empty_lines()));
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let started = Instant::now();
    let threads = match resources.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let memory = match resources.hash_mb {
        0 => crate::games::dots::solver::DEFAULT_TABLE_BYTES,
        mb => mb << 20,
    };
    let solved = game.solve_with(threads, memory, true, None);
    if let Some(bar) = spinner {
        bar.finish_and_clear();
        if let Some((_, _, nodes)) = &solved {
            eprintln!(
                "solved in {:.3} s, {nodes} nodes",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let (margin, best, _) = solved.ok_or("the solver could not allocate its table")?;
    let best: Vec<String> = best.iter().map(|&m| game.move_to_string(m)).collect();
    writeln!(out, "margin {}", margin_x(margin)).map_err(io_error)?;
    writeln!(out, "best {}", best.join(" ")).map_err(io_error)
}

/// The last line for a finished position, in place of `best`: the game
/// is over, with its result and the rule that ended it.
fn game_over<G: Game>(game: &G, out: &mut dyn Write) -> Result<(), String> {
    let result = game.outcome().map_or("none", |o| o.ugi_name());
    let reason = game.end_reason().unwrap_or("rules");
    writeln!(out, "game over: {result} ({reason}), no move to play").map_err(io_error)
}

fn solve_mutorere(game: &MuTorere, out: &mut dyn Write) -> Result<(), String> {
    let (value, best) = mutorere::optimal_moves(game);
    let (word, plies) = match value {
        Proven::Win(n) => ("win", n),
        Proven::Loss(n) => ("loss", n),
        Proven::Draw => ("draw", None),
    };
    writeln!(out, "value {word}").map_err(io_error)?;
    if let Some(n) = plies {
        writeln!(out, "plies {n}").map_err(io_error)?;
    }
    if game.outcome().is_some() {
        return game_over(game, out);
    }
    let best: Vec<String> = best.iter().map(|&m| game.move_to_string(m)).collect();
    writeln!(out, "best {}", best.join(" ").trim_end()).map_err(io_error)
}
