//! The `agon` command line: the protocol engine by default, plus tools.

use agon::game::Game;
use agon::games::{GameVisitor, visit_game};
use agon::protocol::{self, output::Output};
use agon::search::perft;
use agon::tools;
use agon::tools::analyse;
use agon::tools::matches::adjudication::{Adjudication, DrawRule, ResignRule};
use agon::tools::matches::ratings::{Anchor, parse_prior_draws};
use agon::tools::matches::tournament::{self, Format, TournamentConfig};
use agon::tools::matches::{self, MatchConfig, TimeControl, spec::PlayerSpec, stats::Sprt};
use clap::{Args, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
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
    /// `best <move> …`; on a finished position the last line is `game over:
    /// <result> (<reason>), no move to play` instead. --game is required. A
    /// spinner on stderr shows progress when stderr is a terminal.
    Solve {
        #[command(flatten)]
        position: PositionArgs,
        /// Dots: solver threads (0: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Dots: MiB for the solver's table (0: sized to the position, at
        /// most 1024; a larger value is taken up to what the position is
        /// worth, 16 GiB for 4x4 from empty).
        #[arg(long, default_value_t = 0)]
        hash: usize,
    },
    /// Fixed searches over built-in positions of every game.
    ///
    /// Deterministic: the node total is the same on every run of the same
    /// build. The last line is `Bench: <nodes> nodes <nps> nps`.
    Bench,
    /// Play a match between two players (built in or external engines).
    ///
    /// Prints, like cutechess-cli, `Score of P1 vs P2: W - L - D  [score] N`
    /// and `Elo difference: E +/- M, LOS: L %, DrawRatio: D %`, plus the
    /// SPRT state with --sprt. Players: `agon[:key=value,…]` (keys
    /// search=auto|alphabeta|mcts|turns, depth, nodes, threads, hash, eval=auto|classic, evalfile,
    /// playout=auto|random|policy, exploration (centi-units), parallel=tree|root,
    /// hidden=expect|sample|ignore, samples, secrets=auto|random (CTOR with
    /// secrets: own choice or dealt), peek=true|false (sees the hidden
    /// information: a measuring oracle), player=engine|baseline|random,
    /// name), `ugi:<command line>` or
    /// `uai:<command line>`. Ctrl+C stops the match: the games in progress
    /// are abandoned, the finished ones summarised and recorded (exit
    /// status 130 if games were left unplayed); a second Ctrl+C ends it at
    /// once.
    Match(Box<MatchArgs>),
    /// Analyse every position of a file and check the expected answers.
    ///
    /// One position per line, with optional `; bm <moves>`, `; am <moves>`,
    /// `; value win|loss|draw|<margin>`, `; id <name>` and per-line
    /// `; depth N`, `; movetime N`, `; nodes N`. The last line is
    /// `solved X/Y` over the lines that carry a check; the exit status is 1
    /// when a check failed or a line was skipped as unreadable (an undecided
    /// check, whose distance the oracle cannot count, is no failure).
    Analyse(AnalyseArgs),
    /// Write balanced opening positions for matches.
    ///
    /// Random plies from the start (a multi-move turn is always finished),
    /// then a short alpha-beta search; positions whose score for the side to
    /// move is within ±--window are kept, one of each set equal up to the
    /// board's symmetries. Seeded: the same arguments give the same file.
    Openings(OpeningsArgs),
    /// Self-play training data for the learned evaluation (`agon train`).
    ///
    /// Plays alpha-beta against itself at a soft node limit from balanced
    /// random openings and appends one record per quiet position (position,
    /// search score, final result) to --out; the format is in
    /// `src/tools/datagen/record.rs`. Seeded: the same arguments give the
    /// same records, whatever --threads.
    Datagen(DatagenArgs),
    /// A web board for every game, served on 127.0.0.1.
    ///
    /// Prints the page's URL and opens it in the default browser (unless
    /// --no-open). The page plays against the built-in engine (this
    /// program in UGI mode) and the engines given with --engine, person
    /// against person, engine against engine, or analyses; it can set the
    /// engines' options but never names a command.
    Gui(GuiArgs),
    /// Tune engine options by SPSA over games (as OpenBench).
    ///
    /// Each iteration plays a pair of games (one opening, colours swapped)
    /// between the engine with every parameter nudged one way and the
    /// engine nudged the other way, and moves the parameters towards the
    /// winner. The state is written after every pair; run the same command
    /// (or just --state FILE with the time) to resume. `--write-params
    /// FILE` writes a game's search parameters (`Tune.*`) as a --params
    /// file: NAME, int, VALUE, MIN, MAX, C_END, R_END per line.
    Tune(TuneArgs),
    /// Train an evaluation network from `agon datagen` files.
    ///
    /// Mini-batch Adam over all cores on the records of every --data file,
    /// a validation loss per epoch, then the written (quantised) network's
    /// validation loss beside the float one's and, with several --buckets,
    /// each bucket's; the network goes to --out (load it with `setoption
    /// name EvalFile value <file>`).
    Train(TrainArgs),
}

/// Arguments of `agon gui`.
#[derive(Args, Clone, Debug)]
struct GuiArgs {
    /// Port on 127.0.0.1 (0: a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// An engine the page may choose, as NAME=ugi:<command line> or
    /// NAME=uai:<command line> (repeatable).
    #[arg(long = "engine", value_name = "NAME=ugi:CMD")]
    engines: Vec<String>,
    /// Do not open a browser.
    #[arg(long)]
    no_open: bool,
    /// How much lower the engines' scheduling priority is (Unix nice, 0 to
    /// 19), so that the page stays quick while they search.
    #[arg(long, default_value_t = tools::gui::ENGINE_NICENESS)]
    engine_nice: i32,
}

/// Arguments of `agon train`.
#[derive(Args, Clone, Debug)]
struct TrainArgs {
    /// Game: the one the records were made for.
    #[arg(long, short, default_value = "ataxx")]
    game: String,
    /// Record files written by `agon datagen` (repeatable).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Network file to write.
    #[arg(long)]
    out: PathBuf,
    /// Hidden units (1 to 256).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Output buckets (1 to 16): one output layer per stage of the game
    /// (Ataxx: how full the board is), the hidden layer shared.
    #[arg(long, default_value_t = 1)]
    buckets: usize,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Samples per optimizer step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Adam's learning rate in the first epoch.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Last epoch's learning rate as a share of the first (cosine between).
    #[arg(long, default_value_t = 0.1)]
    final_lr: f32,
    /// λ: weight of the search score in the target, 1 − λ for the result.
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// Evaluation units per unit of network output (the sigmoid's scale).
    #[arg(long, default_value_t = 400.0)]
    scale: f32,
    /// Share of the records held out for the validation loss.
    #[arg(long, default_value_t = 0.05)]
    validation: f32,
    /// Seed of the initial weights, the split and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Train on each recorded position only, not also on its images under
    /// the board's rotations and reflections (Ataxx: eight samples per
    /// record; games without symmetries: one either way).
    #[arg(long)]
    no_symmetries: bool,
    /// Start from this network (an `agon train` file for the same game,
    /// --hidden, --buckets and --scale) instead of random weights.
    #[arg(long, value_name = "NET")]
    init: Option<PathBuf>,
}

/// Arguments of `agon datagen`.
#[derive(Args, Clone, Debug)]
struct DatagenArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Soft node limit of every search.
    #[arg(long, default_value_t = 5_000)]
    nodes: u64,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Fewest random turns of an opening.
    #[arg(long, default_value_t = 4)]
    min_plies: u32,
    /// Most random turns of an opening.
    #[arg(long, default_value_t = 8)]
    max_plies: u32,
    /// Largest absolute opening score kept (100 ≈ one piece).
    #[arg(long, default_value_t = 300)]
    window: i32,
    /// Score beyond which a game is given to the side ahead…
    #[arg(long, default_value_t = 2_000)]
    adjudicate_score: i32,
    /// …after this many plies in a row.
    #[arg(long, default_value_t = 6)]
    adjudicate_plies: u32,
    /// Plies after which the game's count decides.
    #[arg(long, default_value_t = 400)]
    max_game_plies: u32,
    /// Evaluation of the self-play searches: auto (the game's network, if
    /// any) or classic.
    #[arg(long, default_value = "auto")]
    eval: String,
    /// A network file to evaluate with instead of the embedded one.
    #[arg(long)]
    eval_file: Option<PathBuf>,
    /// File the records are appended to.
    #[arg(long)]
    out: PathBuf,
}

/// Arguments of `agon openings`.
#[derive(Args, Clone, Debug)]
struct OpeningsArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Openings wanted.
    #[arg(long, default_value_t = 50)]
    count: usize,
    /// Fewest random plies (turns) from the start.
    #[arg(long, default_value_t = 2)]
    min_plies: u32,
    /// Most random plies (turns) from the start.
    #[arg(long, default_value_t = 6)]
    max_plies: u32,
    /// Depth of the judging search.
    #[arg(long, default_value_t = 6)]
    depth: u32,
    /// Largest absolute score kept, in centi-units (100 ≈ one piece).
    #[arg(long, default_value_t = 100)]
    window: i32,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the file here instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Arguments of `agon match`.
#[derive(Args, Clone, Debug)]
struct MatchArgs {
    /// Game: ataxx, dots, nim, mutorere, yote or ctor (with --replay or
    /// --merge: the game the records must be).
    #[arg(long, short)]
    game: Option<String>,
    /// A game option as NAME=VALUE (repeatable), e.g. --option Heaps=3/4/5.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// First player.
    #[arg(long)]
    p1: Option<String>,
    /// Second player.
    #[arg(long)]
    p2: Option<String>,
    /// An engine option for the first player, an external engine, as
    /// NAME=VALUE (repeatable), e.g. --p1-option Threads=2.
    #[arg(long = "p1-option", value_name = "NAME=VALUE")]
    p1_options: Vec<String>,
    /// An engine option for the second player (see --p1-option).
    #[arg(long = "p2-option", value_name = "NAME=VALUE")]
    p2_options: Vec<String>,
    /// Number of games.
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// A tournament player (repeated, at least two; the same specs as
    /// --p1/--p2, name= included): plays a tournament instead of a match.
    #[arg(long = "player", value_name = "SPEC", conflicts_with_all = ["p1", "p2", "p1_options", "p2_options", "sprt", "games"])]
    players: Vec<String>,
    /// An engine option for tournament player I (from 1, in --player
    /// order), an external engine, as I:NAME=VALUE (repeatable).
    #[arg(
        long = "player-option",
        value_name = "I:NAME=VALUE",
        requires = "players"
    )]
    player_options: Vec<String>,
    /// Tournament format: round-robin (every pair, the default) or
    /// gauntlet (the first player against each other one).
    #[arg(long, value_name = "FORMAT", requires = "players")]
    tournament: Option<String>,
    /// Tournament rounds: each pairing plays its games once per round
    /// (default 1).
    #[arg(long, requires = "players")]
    rounds: Option<usize>,
    /// Tournament games of each pairing per round, even (default: each
    /// opening with both colours).
    #[arg(long, requires = "players")]
    games_per_pairing: Option<usize>,
    /// Write a tournament's final standings (crosstable, ratings) here as
    /// JSON (with --player or --merge of a tournament's records).
    #[arg(long, value_name = "FILE")]
    standings: Option<PathBuf>,
    /// Which tournament rating is 0: first (the first player's) or mean.
    #[arg(long, default_value = "first")]
    anchor: String,
    /// Virtual draws added to every tournament pairing for the ratings
    /// (BayesElo's prior is 2); 0, the default, is the plain maximum
    /// likelihood, infinite for a player who won or lost every game.
    #[arg(long, default_value = "0", value_name = "D")]
    prior_draws: String,
    /// Fixed time per move in ms (a late answer loses after a margin of
    /// one second plus a fifth of the move time).
    #[arg(long, conflicts_with_all = ["tc", "preset"])]
    movetime: Option<u64>,
    /// Clock BASE+INC in seconds, e.g. 10+0.1; running out loses.
    #[arg(long, conflicts_with = "preset")]
    tc: Option<String>,
    /// Named time control: `seed30` = 30 s per move, loss on time, no margin.
    #[arg(long)]
    preset: Option<String>,
    /// Nodes per move for every player (cutechess's `-each nodes=N`):
    /// external engines get `go … nodes N`, built-in players without a
    /// `nodes=` of their own stop there; with no --movetime or --tc a move
    /// may take up to 10 s. Fixed nodes make games repeatable.
    #[arg(long, conflicts_with = "preset")]
    nodes: Option<u64>,
    /// Openings file: one position per line; each is played twice with
    /// colours swapped.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Write one record line per game to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Stop early by SPRT: ELO0,ELO1.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    sprt_alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    sprt_beta: f64,
    /// Seed of the built-in players' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Adjudicate after this many plies: by the piece or box count in the
    /// games that count (Ataxx, Dots and Boxes, CTOR), else a draw.
    #[arg(long)]
    max_plies: Option<u32>,
    /// Adjudicate a loss by score, as cutechess-cli: `movecount=COUNT
    /// score=SCORE [twosided=true]` — a side whose engine scores -SCORE or
    /// worse for COUNT consecutive moves loses (two sided: while the
    /// other's scores SCORE or better).
    #[arg(long, num_args = 2..=3, value_name = "KEY=VALUE")]
    resign: Vec<String>,
    /// Adjudicate a draw by score, as cutechess-cli: `movenumber=NUMBER
    /// movecount=COUNT score=SCORE` — after NUMBER full moves, both engines
    /// within SCORE of 0 for COUNT consecutive moves each.
    #[arg(long, num_args = 3, value_name = "KEY=VALUE")]
    draw: Vec<String>,
    /// Replay a record file through the rules and print its score; with
    /// --out and --pgn, write its verified games.
    #[arg(long, conflicts_with_all = ["p1", "p2", "players", "player_options", "tournament", "rounds", "games_per_pairing", "merge", "options", "p1_options", "p2_options", "movetime", "tc", "preset", "nodes", "openings", "shard", "resign", "draw", "max_plies"])]
    replay: Option<PathBuf>,
    /// Combine the record files of a match's shards (`--shard`) into one
    /// result, verified through the rules; with --out and --pgn, write the
    /// combined games.
    #[arg(long, num_args = 1.., value_name = "FILES", conflicts_with_all = ["p1", "p2", "players", "player_options", "tournament", "rounds", "games_per_pairing", "options", "p1_options", "p2_options", "movetime", "tc", "preset", "nodes", "openings", "shard", "resign", "draw", "max_plies"])]
    merge: Vec<PathBuf>,
    /// Also write the games as PGN to this file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Play part I of N disjoint parts of the match (opening pairs I, I+N,
    /// …, of every pairing in a tournament; the same game numbers and
    /// seeds as the whole match). Merge the parts' --out files with
    /// --merge.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Without a progress bar, print the running score every N games.
    #[arg(long, default_value_t = 10, value_name = "N")]
    report_every: usize,
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Print `Finished game N (X vs O): 1-0 {reason}` after every game.
    #[arg(long, short)]
    verbose: bool,
    /// How long an external engine may take to answer `ugi`/`isready`, ms.
    #[arg(long, default_value_t = 10_000)]
    handshake_timeout: u64,
}

/// Arguments of `agon tune`.
#[derive(Args, Clone, Debug)]
struct TuneArgs {
    /// Game: ataxx, dots, nim, mutorere, yote or ctor.
    #[arg(long, short)]
    game: Option<String>,
    /// A game option as NAME=VALUE (repeatable), e.g. --option Rules=standard.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// The parameters of a new run (NAME, int, VALUE, MIN, MAX, C_END, R_END).
    #[arg(long)]
    params: Option<PathBuf>,
    /// Write the game's search parameters as a --params file (- for
    /// standard output) and stop.
    #[arg(long, value_name = "FILE")]
    write_params: Option<PathBuf>,
    /// Games in the whole run (two per SPSA iteration).
    #[arg(long)]
    games: Option<u64>,
    /// Time per move in ms.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<u64>,
    /// Clock BASE+INC in seconds, e.g. 8+0.08.
    #[arg(long)]
    tc: Option<String>,
    /// Nodes per move (built-in engine), alone or on top of a time.
    #[arg(long)]
    nodes: Option<u64>,
    /// Pairs played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// The state file: written after every pair, resumed from when it exists.
    #[arg(long)]
    state: Option<PathBuf>,
    /// The engine both sides are copies of: `agon[:key=value,…]` (built in)
    /// or `ugi:COMMAND`/`uai:COMMAND`, as `agon match --p1`.
    #[arg(long, default_value = "agon")]
    engine: String,
    /// An option for an external --engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    engine_options: Vec<String>,
    /// Openings file (pair k plays line k, wrapping around).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Seed of the perturbations and the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Adjudicate after this many plies (see `agon match`).
    #[arg(long)]
    max_plies: Option<u32>,
    /// Print the values every N pairs.
    #[arg(long, default_value_t = 100, value_name = "N")]
    report_every: u64,
    /// Stop after N pairs in this run (the state says where to go on).
    #[arg(long, value_name = "N")]
    pairs: Option<u64>,
    /// Play part I of N of this round (iterations I, I+N, …); combine the
    /// parts' states with --merge.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Combine the states of a round's shards into --state.
    #[arg(long, num_args = 1.., value_name = "FILES")]
    merge: Vec<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
    /// How long an external engine may take to answer `ugi`/`isready`, ms.
    #[arg(long, default_value_t = 10_000)]
    handshake_timeout: u64,
}

/// Arguments of `agon analyse`.
#[derive(Args, Clone, Debug)]
struct AnalyseArgs {
    /// Game: ataxx, dots, nim, mutorere, yote or ctor.
    #[arg(long, short)]
    game: String,
    /// The positions file.
    file: PathBuf,
    /// Time per position in ms (default 1000 when no other limit is given).
    #[arg(long)]
    movetime: Option<u64>,
    /// Depth per position.
    #[arg(long)]
    depth: Option<u32>,
    /// Nodes per position.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search: auto (perfect play where known, else alpha-beta; CTOR: the
    /// search over whole turns), alphabeta, mcts or turns.
    #[arg(long, default_value = "auto")]
    search: String,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// One JSON object per position, then a summary object.
    #[arg(long)]
    json: bool,
    /// A game option as NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
}

/// Which game and position a tool works on, with the game's options named
/// like the UGI options.
#[derive(Args, Clone, Debug)]
struct PositionArgs {
    /// Game: ataxx, dots, nim, mutorere, yote or ctor (default ataxx;
    /// `solve` needs it: dots or mutorere).
    #[arg(long, short)]
    game: Option<String>,
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
    /// The game named, Ataxx when none is.
    fn game(&self) -> &str {
        self.game.as_deref().unwrap_or("ataxx")
    }

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
        Some(Command::Solve {
            position,
            threads,
            hash,
        }) => run_solve(&position, threads, hash),
        Some(Command::Bench) => tools::bench::run(&mut std::io::stdout().lock())
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Some(Command::Match(args)) => match run_match(&args) {
            // The shell's convention for a run ended by Ctrl+C.
            Ok(Ended::Interrupted) => return ExitCode::from(130),
            other => other.map(|_| ()),
        },
        Some(Command::Analyse(args)) => run_analyse(&args),
        Some(Command::Openings(args)) => run_openings(&args),
        Some(Command::Gui(args)) => run_gui(&args),
        Some(Command::Tune(args)) => run_tune(&args),
        Some(Command::Train(args)) => visit_game(&args.game.clone(), args).and_then(|r| r),
        Some(Command::Datagen(args)) => {
            let game = args.position.game().to_owned();
            visit_game(&game, args).and_then(|r| r)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agon: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_solve(position: &PositionArgs, threads: usize, hash_mb: usize) -> Result<(), String> {
    let game = position
        .game
        .as_deref()
        .ok_or("solve needs --game: dots or mutorere (the games it solves)")?;
    tools::solve::run(
        game,
        position.fen.as_deref(),
        &position.options(),
        tools::solve::Resources { threads, hash_mb },
        std::io::stderr().is_terminal(),
        &mut std::io::stdout().lock(),
    )
}

fn run_gui(args: &GuiArgs) -> Result<(), String> {
    let program = std::env::current_exe()
        .map_err(|e| format!("cannot find this program to run it as the engine: {e}"))?;
    let config = tools::gui::GuiConfig::new(
        args.port,
        program,
        &args.engines,
        !args.no_open,
        args.engine_nice,
    )?;
    tools::gui::run(&config)
}

struct PerftCommand {
    position: PositionArgs,
    depth: u32,
    divide: bool,
}

impl GameVisitor for PerftCommand {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let position: G =
            tools::position_from(self.position.fen.as_deref(), &self.position.options())?;
        let start = Instant::now();
        let never = std::sync::atomic::AtomicBool::new(false);
        let total = if self.divide {
            let mut out = std::io::stdout().lock();
            perft::divide_until(&position, self.depth, &never, |mv, count| {
                let _ = writeln!(out, "{mv}: {count}");
            })
        } else {
            perft::perft(&position, self.depth)
        }
        .map_err(|e| e.to_string())?;
        let elapsed = start.elapsed();
        println!("{total}");
        // Under a millisecond the rate says more about the clock than about
        // the move generator.
        if elapsed.as_millis() == 0 {
            println!("time 0 ms, too short for a nodes/s figure");
        } else {
            let nps = (total as f64 / elapsed.as_secs_f64()) as u64;
            println!("time {} ms, {nps} nodes/s", elapsed.as_millis());
        }
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
    visit_game(position.game(), command)?
}

/// Splits the `NAME=VALUE` values of a repeatable flag.
fn flag_pairs(flag: &str, options: &[String]) -> Result<Vec<(String, String)>, String> {
    options
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| format!("{flag} takes NAME=VALUE, not '{pair}'"))
        })
        .collect()
}

fn read_file(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))
}

fn time_control(args: &MatchArgs) -> Result<TimeControl, String> {
    if args.nodes == Some(0) {
        return Err("--nodes takes a number above 0".into());
    }
    match (&args.movetime, &args.tc, args.preset.as_deref()) {
        (None, None, None) if args.nodes.is_some() => Ok(TimeControl::for_nodes()),
        (Some(ms), None, None) if *ms > 0 => Ok(TimeControl::movetime(*ms)),
        (None, Some(tc), None) => TimeControl::parse_clock(tc),
        (None, None, Some("seed30")) => Ok(TimeControl::seed30()),
        (None, None, Some(other)) => Err(format!("unknown preset '{other}' (presets: seed30)")),
        _ => Err(
            "give one of --movetime MS (above 0), --tc BASE+INC, --preset seed30 or --nodes N"
                .into(),
        ),
    }
}

/// The two players of a match (`--p1`, `--p2`).
fn match_players(args: &MatchArgs) -> Result<[PlayerSpec; 2], String> {
    let p1 = PlayerSpec::parse(args.p1.as_deref().ok_or("--p1 is required")?)?
        .with_engine_options(flag_pairs("--p1-option", &args.p1_options)?)?
        .with_default_nodes(args.nodes);
    let p2 = PlayerSpec::parse(args.p2.as_deref().ok_or("--p2 is required")?)?
        .with_engine_options(flag_pairs("--p2-option", &args.p2_options)?)?
        .with_default_nodes(args.nodes);
    Ok([p1, p2])
}

/// The players of a tournament (`--player`, `--player-option I:N=V`).
fn tournament_players(args: &MatchArgs) -> Result<Vec<PlayerSpec>, String> {
    let mut options: Vec<Vec<String>> = vec![Vec::new(); args.players.len()];
    for text in &args.player_options {
        let usage = || {
            format!(
                "--player-option takes I:NAME=VALUE with I from 1 to {} (the --player), not '{text}'",
                args.players.len()
            )
        };
        let (index, pair) = text.split_once(':').ok_or_else(usage)?;
        let index: usize = index.trim().parse().map_err(|_| usage())?;
        let slot = index
            .checked_sub(1)
            .and_then(|i| options.get_mut(i))
            .ok_or_else(usage)?;
        slot.push(pair.to_owned());
    }
    args.players
        .iter()
        .zip(&options)
        .map(|(spec, options)| {
            Ok(PlayerSpec::parse(spec)?
                .with_engine_options(flag_pairs("--player-option", options)?)?
                .with_default_nodes(args.nodes))
        })
        .collect()
}

fn match_config(args: &MatchArgs, players: [PlayerSpec; 2]) -> Result<MatchConfig, String> {
    let game = args.game.clone().ok_or("--game is required")?;
    let openings = match &args.openings {
        Some(path) => matches::read_openings(&read_file(path)?)
            .map_err(|e| format!("{}: {e}", path.display()))?,
        None => Vec::new(),
    };
    let sprt = args
        .sprt
        .as_deref()
        .map(|text| Sprt::parse(text, args.sprt_alpha, args.sprt_beta))
        .transpose()?;
    Ok(MatchConfig {
        game,
        options: flag_pairs("--option", &args.options)?,
        players,
        games: args.games,
        time: time_control(args)?,
        nodes: args.nodes,
        openings,
        concurrency: args.concurrency.max(1),
        out: args.out.clone(),
        sprt,
        seed: args.seed,
        max_plies: args.max_plies,
        adjudication: Adjudication {
            resign: (!args.resign.is_empty())
                .then(|| ResignRule::parse(&args.resign))
                .transpose()?,
            draw: (!args.draw.is_empty())
                .then(|| DrawRule::parse(&args.draw))
                .transpose()?,
        },
        progress: !args.no_progress && std::io::stderr().is_terminal(),
        handshake_timeout: std::time::Duration::from_millis(args.handshake_timeout.max(1)),
        verbose: args.verbose,
        report_every: args.report_every,
        pgn: args.pgn.clone(),
        shard: args
            .shard
            .as_deref()
            .map(matches::parse_shard)
            .transpose()?,
        stop: None,
    })
}

/// How `agon match` ended without an error.
enum Ended {
    Complete,
    /// Stopped by Ctrl+C (see `tools::matches::interrupt`).
    Interrupted,
}

fn run_match(args: &MatchArgs) -> Result<Ended, String> {
    if let Some(path) = &args.replay {
        return run_replay(args, std::slice::from_ref(path)).map(|()| Ended::Complete);
    }
    if !args.merge.is_empty() {
        return run_replay(args, &args.merge).map(|()| Ended::Complete);
    }
    if !args.players.is_empty() {
        return run_tournament(args);
    }
    let mut config = match_config(args, match_players(args)?)?;
    config.stop = Some(matches::interrupt::install());
    let report = matches::run_match(&config, &mut std::io::stdout().lock())?;
    Ok(if report.interrupted {
        Ended::Interrupted
    } else {
        Ended::Complete
    })
}

/// `agon match --player … [--tournament FORMAT]`.
fn run_tournament(args: &MatchArgs) -> Result<Ended, String> {
    let players = tournament_players(args)?;
    if players.len() < 2 {
        return Err("a tournament needs at least two players (--player SPEC, repeated)".into());
    }
    let mut settings = match_config(args, [players[0].clone(), players[1].clone()])?;
    settings.stop = Some(matches::interrupt::install());
    let config = TournamentConfig {
        settings,
        players,
        format: Format::parse(args.tournament.as_deref().unwrap_or("round-robin"))?,
        rounds: args.rounds.unwrap_or(1),
        games_per_pairing: args.games_per_pairing,
        standings: args.standings.clone(),
        anchor: Anchor::parse(&args.anchor)?,
        prior_draws: parse_prior_draws(&args.prior_draws)?,
    };
    let report = tournament::run_tournament(&config, &mut std::io::stdout().lock())?;
    Ok(if report.interrupted {
        Ended::Interrupted
    } else {
        Ended::Complete
    })
}

fn run_tune(args: &TuneArgs) -> Result<(), String> {
    let command = tools::tune::command::TuneCommand {
        game: args.game.clone(),
        options: flag_pairs("--option", &args.options)?,
        params: args.params.clone(),
        write_params: args.write_params.clone(),
        games: args.games,
        movetime: args.movetime,
        tc: args.tc.clone(),
        nodes: args.nodes,
        concurrency: args.concurrency,
        state: args.state.clone(),
        engine: args.engine.clone(),
        engine_options: flag_pairs("--engine-option", &args.engine_options)?,
        openings: args.openings.clone(),
        seed: args.seed,
        max_plies: args.max_plies,
        report_every: args.report_every,
        pairs: args.pairs,
        shard: args.shard.clone(),
        merge: args.merge.clone(),
        progress: !args.no_progress && std::io::stderr().is_terminal(),
        handshake_timeout_ms: args.handshake_timeout,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        stop: Some(matches::interrupt::install()),
    };
    command.execute(&mut std::io::stdout())
}

/// `--replay FILE` and `--merge FILES…`; a tournament's record files give
/// its standings.
fn run_replay(args: &MatchArgs, paths: &[PathBuf]) -> Result<(), String> {
    let tournament_files = paths
        .iter()
        .filter(|path| {
            std::fs::read_to_string(path).is_ok_and(|t| tournament::is_tournament_file(&t))
        })
        .count();
    if tournament_files > 0 {
        if tournament_files < paths.len() {
            return Err(
                "some of these files are a tournament's records and some are not: not merged"
                    .into(),
            );
        }
        let config = tournament::MergeConfig {
            files: paths.to_vec(),
            out: args.out.clone(),
            pgn: args.pgn.clone(),
            standings: args.standings.clone(),
            anchor: Anchor::parse(&args.anchor)?,
            prior_draws: parse_prior_draws(&args.prior_draws)?,
        };
        return tournament::merge(&config, &mut std::io::stdout().lock()).map(|_| ());
    }
    if args.standings.is_some() {
        return Err("--standings is for a tournament's records".into());
    }
    let config = matches::replay::ReplayConfig {
        files: paths.to_vec(),
        merge: !args.merge.is_empty(),
        game: args.game.clone(),
        sprt: args
            .sprt
            .as_deref()
            .map(|text| Sprt::parse(text, args.sprt_alpha, args.sprt_beta))
            .transpose()?,
        out: args.out.clone(),
        pgn: args.pgn.clone(),
    };
    matches::replay::run(&config, &mut std::io::stdout().lock())
}

fn run_analyse(args: &AnalyseArgs) -> Result<(), String> {
    let limits = analyse::AnalyseLimits {
        movetime: args.movetime,
        depth: args.depth,
        nodes: args.nodes,
    };
    limits.check().map_err(|e| format!("--{e}"))?;
    let max_hash = agon::engine::options::MAX_HASH_MB as usize;
    if !(1..=max_hash).contains(&args.hash) {
        return Err(format!(
            "--hash must be from 1 to {max_hash} MiB, not {}",
            args.hash
        ));
    }
    let config = analyse::AnalyseConfig {
        game: args.game.clone(),
        options: flag_pairs("--option", &args.options)?,
        limits,
        search: analyse::parse_search(&args.search)?,
        hash_mb: args.hash,
        json: args.json,
        progress: std::io::stderr().is_terminal(),
    };
    let text = read_file(&args.file)?;
    let summary = analyse::run(&config, &text, &mut std::io::stdout().lock())?;
    // A test suite run in CI fails when a check fails, or when a line could
    // not be read (its checks were never run). An undecided check (a right
    // result whose distance the oracle cannot count) is not a failure.
    let failed = summary.checked - summary.solved - summary.undecided;
    if failed == 0 && summary.skipped == 0 {
        return Ok(());
    }
    Err(format!(
        "{failed} of {} checked lines failed, {} lines skipped",
        summary.checked, summary.skipped
    ))
}

struct OpeningsCommand {
    args: OpeningsArgs,
}

impl GameVisitor for OpeningsCommand {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let args = &self.args;
        let start: G =
            tools::position_from(args.position.fen.as_deref(), &args.position.options())?;
        let config = tools::openings::OpeningsConfig {
            count: args.count,
            min_plies: args.min_plies,
            max_plies: args.max_plies,
            depth: args.depth.clamp(1, agon::search::alphabeta::MAX_DEPTH),
            window: args.window,
            seed: args.seed,
        };
        let bar = if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(args.count as u64)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let openings =
            tools::openings::generate(&start, &config, &mut |kept| bar.set_position(kept as u64))?;
        bar.finish_and_clear();
        let command: Vec<String> = std::env::args().skip(1).collect();
        let text =
            tools::openings::file_text(G::NAME, &format!("agon {}", command.join(" ")), &openings);
        match &args.out {
            Some(path) => std::fs::write(path, text)
                .map_err(|e| format!("cannot write '{}': {e}", path.display())),
            None => {
                print!("{text}");
                Ok(())
            }
        }
    }
}

fn run_openings(args: &OpeningsArgs) -> Result<(), String> {
    let command = OpeningsCommand { args: args.clone() };
    visit_game(args.position.game(), command)?
}

impl GameVisitor for DatagenArgs {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let start: G =
            tools::position_from(self.position.fen.as_deref(), &self.position.options())?;
        let network =
            tools::datagen::chosen_network(&start, &self.eval, self.eval_file.as_deref())?;
        let threads = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let config = tools::datagen::DatagenConfig {
            soft_nodes: self.nodes.max(1),
            games: self.games,
            threads,
            seed: self.seed,
            min_random_plies: self.min_plies,
            max_random_plies: self.max_plies,
            opening_window: self.window,
            adjudicate_score: self.adjudicate_score,
            adjudicate_plies: self.adjudicate_plies.max(1),
            max_plies: self.max_game_plies,
            hash_mb: 16,
            network,
        };
        let summary =
            tools::datagen::run(&start, &config, &self.out, std::io::stderr().is_terminal())?;
        println!("{summary}");
        Ok(())
    }
}

impl GameVisitor for TrainArgs {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let config = tools::train::TrainConfig {
            hidden: self.hidden,
            buckets: self.buckets,
            epochs: self.epochs,
            batch: self.batch,
            learning_rate: self.lr,
            final_lr_share: self.final_lr,
            lambda: self.lambda,
            scale: self.scale,
            validation_share: self.validation,
            seed: self.seed,
            threads: self.threads,
            symmetries: !self.no_symmetries,
            start: match &self.init {
                Some(path) => Some(std::sync::Arc::new(agon::network::Network::load_for::<G>(
                    &path.to_string_lossy(),
                )?)),
                None => None,
            },
        };
        tools::train::run::<G>(&self.data, &self.out, &config, &mut |line| {
            println!("{line}")
        })
    }
}
