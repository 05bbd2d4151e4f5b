//! The `agon` command line: the protocol engine by default, plus tools.

use agon::game::{Game, GameOptions};
use agon::games::{GameVisitor, visit_game};
use agon::protocol::{self, output::Output};
use agon::tools::{self, perft};
use clap::{Args, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Agon plays Ataxx, Dots and Boxes, Nim, Mū Tōrere, Yoté and CTOR behind
/// one text protocol.
///
/// With no subcommand (or `ugi`), Agon reads UGI commands on standard input
/// and answers on standard output, the way cutegames and GUIs drive it; send
/// `uai` instead of `ugi` to speak UAI to Ataxx tools. See protocol.md for
/// every command, option and game notation.
#[derive(Parser)]
#[command(name = "agon", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the protocol loop on stdin/stdout (the default).
    Ugi,
    /// Count leaf positions to a depth (move generator check and speed).
    ///
    /// Prints the total as a plain integer, the time and nodes per second;
    /// with --divide, first one `<move>: <count>` line per legal move.
    Perft {
        /// Search depth in plies (1 to 64).
        #[arg(long, short)]
        depth: u32,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Exact value and every optimal move (dots, mutorere).
    ///
    /// Dots and Boxes: `margin <final score_x − score_o>` and
    /// `best <move> …` listing every optimal move. Mū Tōrere: `value
    /// win|loss|draw` for the side to move, `plies <n>` when decided, and
    /// `best <move> …`. A spinner on stderr shows progress when stderr is a
    /// terminal.
    Solve {
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Fixed searches over built-in positions of every game.
    ///
    /// Deterministic: the node total is the same on every run of the same
    /// build. The last line is `Bench: <nodes> nodes <nps> nps`.
    Bench,
}

/// Which game and position a tool works on, with the game's options named
/// like the UGI options.
#[derive(Args, Clone, Debug)]
struct PositionArgs {
    /// Game: ataxx, dots, nim, mutorere, yote or ctor.
    #[arg(long, short, default_value = "ataxx")]
    game: String,
    /// Position string (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// Ataxx rule set: seed or standard.
    #[arg(long)]
    rules: Option<String>,
    /// Ataxx (seed rules) when the side to move is blocked: lose or pass.
    #[arg(long)]
    no_move_rule: Option<String>,
    /// Nim: misère play (true or false).
    #[arg(long)]
    misere: Option<String>,
    /// Nim start heaps, e.g. 3/4/5.
    #[arg(long)]
    heaps: Option<String>,
    /// Board size: RxC boxes for dots (e.g. 4x4), 8 or 10 for ctor.
    #[arg(long)]
    size: Option<String>,
    /// CTOR players per team: 1, 2 or 3.
    #[arg(long)]
    team: Option<String>,
}

impl PositionArgs {
    /// The game options given on the command line, as UGI name/value pairs.
    fn options(&self) -> Vec<(String, String)> {
        [
            ("Rules", &self.rules),
            ("NoMoveRule", &self.no_move_rule),
            ("Misere", &self.misere),
            ("Heaps", &self.heaps),
            ("Size", &self.size),
            ("Team", &self.team),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| (name.to_owned(), v.clone())))
        .collect()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None | Some(Command::Ugi) => {
            protocol::run(std::io::stdin().lock(), Output::stdout());
            Ok(())
        }
        Some(Command::Perft {
            depth,
            divide,
            position,
        }) => run_perft(&position, depth, divide),
        Some(Command::Solve { position }) => tools::solve::run(
            &position.game,
            position.fen.as_deref(),
            &position.options(),
            std::io::stderr().is_terminal(),
            &mut std::io::stdout().lock(),
        ),
        Some(Command::Bench) => tools::bench::run(&mut std::io::stdout().lock())
            .map(|_| ())
            .map_err(|e| e.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agon: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Builds a game's options from name/value pairs and its position from an
/// optional position string. Options the game does not have are an error.
fn build_position<G: Game>(fen: Option<&str>, pairs: &[(String, String)]) -> Result<G, String> {
    let mut options = G::Options::default();
    for (name, value) in pairs {
        options.set(name, value)?;
    }
    match fen {
        Some(fen) => G::from_fen(fen, &options),
        None => Ok(G::start(&options)),
    }
}

struct PerftCommand {
    position: PositionArgs,
    depth: u32,
    divide: bool,
}

impl GameVisitor for PerftCommand {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let position: G = build_position(self.position.fen.as_deref(), &self.position.options())?;
        let start = Instant::now();
        let total = if self.divide {
            let split = perft::divide(&position, self.depth);
            let mut out = std::io::stdout().lock();
            for (mv, count) in &split {
                let _ = writeln!(out, "{mv}: {count}");
            }
            split.iter().map(|(_, c)| c).sum()
        } else {
            perft::perft(&position, self.depth)
        };
        let elapsed = start.elapsed();
        let nps = (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64;
        println!("{total}");
        println!("time {} ms, {nps} nodes/s", elapsed.as_millis());
        Ok(())
    }
}

fn run_perft(position: &PositionArgs, depth: u32, divide: bool) -> Result<(), String> {
    if depth == 0 || depth > agon::search::alphabeta::MAX_DEPTH {
        return Err(format!(
            "perft depth must be from 1 to {}",
            agon::search::alphabeta::MAX_DEPTH
        ));
    }
    let command = PerftCommand {
        position: position.clone(),
        depth,
        divide,
    };
    visit_game(&position.game, command)?
}
