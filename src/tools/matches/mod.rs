//! `agon match`: tournaments between two players, built in or external,
//! refereed by Agon's own rules code.
//!
//! Games are scheduled in pairs: each opening (or the start position) is
//! played twice with colours swapped; game `n` (from 1) uses opening
//! `(n - 1) / 2`, wrapping around the opening list, and the first player
//! plays `x` in odd games. Games run on `concurrency` threads, each with its
//! own players (and engine processes); results are reported and recorded in
//! game order, and built-in players draw their random choices from
//! `seed` and the game number, so a match is repeatable up to timing.

pub mod adjudication;
pub mod clock_use;
pub mod external;
pub mod forfeit;
pub mod interrupt;
pub mod pgn;
pub mod plan;
pub mod player;
pub mod ratings;
pub mod record;
pub mod referee;
pub mod replay;
pub mod spec;
pub mod stats;
pub mod time_control;
pub mod tournament;
pub mod writer;

use crate::game::{Game, Player};
use crate::games::{GameVisitor, visit_game};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use plan::Plan;
use player::{Competitor, make_competitor};
use record::{GameRecord, RecordLine};
use referee::{GameSetup, play_game};
use spec::{PlayerKind, PlayerSpec};
use stats::{Pentanomial, Results, Score, Sprt, SprtStatus, elo_line, score_line};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;
pub use time_control::TimeControl;
use writer::resuming_writers;

/// Everything `agon match` needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game's name.
    pub game: String,
    /// Game options, as UGI name/value pairs.
    pub options: Vec<(String, String)>,
    /// The first and second player.
    pub players: [PlayerSpec; 2],
    /// Games to play (fewer if the SPRT stops the match).
    pub games: usize,
    /// Time control.
    pub time: TimeControl,
    /// Nodes per move that `--nodes` gave every player (the players'
    /// specs carry it, see [`spec::PlayerSpec::with_default_nodes`]); kept
    /// here for a tournament's header.
    pub nodes: Option<u64>,
    /// Start positions; empty means the game's start position.
    pub openings: Vec<String>,
    /// Games played at once.
    pub concurrency: usize,
    /// Where to write the game records.
    pub out: Option<PathBuf>,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
    /// Seed of the built-in players' random choices.
    pub seed: u64,
    /// Adjudicate after this many plies: by count in counting games
    /// ([`crate::game::Game::adjudicate`]), else a draw.
    pub max_plies: Option<u32>,
    /// End games early by the engines' scores (`--resign`, `--draw`).
    pub adjudication: adjudication::Adjudication,
    /// Show a progress bar on standard error (when it is a terminal).
    pub progress: bool,
    /// How long an external engine may take to answer `ugi`/`isready`.
    pub handshake_timeout: Duration,
    /// Print a line for every finished game (always done without a
    /// progress bar).
    pub verbose: bool,
    /// Without a progress bar, print the running score every this many
    /// games (cutechess's rating interval); 0 never.
    pub report_every: usize,
    /// Also write the games as PGN here.
    pub pgn: Option<PathBuf>,
    /// Play only part `index` (from 1) of `count` disjoint parts: the
    /// opening pairs whose number modulo `count` is `index − 1`, with the
    /// same game numbers and seeds as in the whole match, so that
    /// `--merge` of every part's records equals the whole match.
    pub shard: Option<(usize, usize)>,
    /// When set (by Ctrl+C, see [`interrupt`]), the match stops: no game
    /// starts, the games in progress are abandoned, the finished ones are
    /// summarised and recorded.
    pub stop: Option<Arc<AtomicBool>>,
}

/// Parses `I/N` (1 ≤ I ≤ N) for `--shard`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let usage = || format!("--shard takes I/N with 1 <= I <= N, not '{text}'");
    let (index, count) = text.split_once('/').ok_or_else(usage)?;
    let index: usize = index.trim().parse().map_err(|_| usage())?;
    let count: usize = count.trim().parse().map_err(|_| usage())?;
    if index == 0 || index > count {
        return Err(usage());
    }
    Ok((index, count))
}

/// What a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The two players' names.
    pub names: [String; 2],
    /// The first player's wins, losses and draws.
    pub score: Score,
    /// The first player's results by opening pair.
    pub pairs: Pentanomial,
    /// The counted games, in game order.
    pub records: Vec<GameRecord>,
    /// The SPRT state at the end, if one ran.
    pub sprt: Option<SprtStatus>,
    /// Stopped by [`MatchConfig::stop`] before every planned game was
    /// played: these are the games that finished.
    pub interrupted: bool,
}

impl MatchReport {
    /// The closing lines: score, Elo and (with an SPRT) its state.
    /// Without a game (a match stopped before its first) only the score.
    pub fn summary_lines(&self) -> Vec<String> {
        let mut lines = vec![score_line(&self.names[0], &self.names[1], &self.score)];
        if self.score.games() == 0 {
            return lines;
        }
        lines.push(elo_line(&self.score));
        lines.extend(self.pairs.line());
        if let Some(sprt) = &self.sprt {
            lines.push(sprt.line());
        }
        lines.extend(clock_use::clock_line(&self.names, &self.records));
        lines
    }
}

/// Reads an openings file: position strings, `#` comments and EPD-style
/// operations allowed. Any bad line is an error here, since a match with a
/// silently shortened opening list would mislead.
pub fn read_openings(text: &str) -> Result<Vec<String>, String> {
    crate::tools::positions::parse_positions(text)
        .into_iter()
        .map(|line| line.map(|l| l.fen).map_err(|e| e.to_string()))
        .collect()
}

/// Plays the match, writes the summary lines to `out` and returns the
/// report.
pub fn run_match(config: &MatchConfig, out: &mut dyn Write) -> Result<MatchReport, String> {
    if config.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if config.shard.is_some() && config.sprt.is_some() {
        return Err(
            "--sprt decides over the whole match: merge the shards' records and test there".into(),
        );
    }
    check_uai_rules(&config.game, &config.options, &config.players)?;
    let report = visit_game(
        &config.game,
        RunMatch {
            config,
            out: &mut *out,
        },
    )??;
    if report.interrupted {
        let played = report.records.len();
        let plural = if played == 1 { "" } else { "s" };
        writeln!(
            out,
            "Match interrupted after {played} game{plural}; the games in progress were abandoned"
        )
        .map_err(|e| e.to_string())?;
    }
    for line in report.summary_lines() {
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(report)
}

/// UAI engines play standard Ataxx (Agon's `uai` switches to it), so the
/// referee must apply the same rules.
fn check_uai_rules(
    game: &str,
    options: &[(String, String)],
    players: &[PlayerSpec],
) -> Result<(), String> {
    let uai = players.iter().any(
        |p| matches!(&p.kind, spec::PlayerKind::External(e) if e.dialect == spec::Dialect::Uai),
    );
    let standard = options
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("Rules") && v.eq_ignore_ascii_case("standard"));
    if uai && game.eq_ignore_ascii_case("ataxx") && !standard {
        return Err("uai: engines play standard Ataxx; add --option Rules=standard".into());
    }
    Ok(())
}

struct RunMatch<'a> {
    config: &'a MatchConfig,
    out: &'a mut dyn Write,
}

impl GameVisitor for RunMatch<'_> {
    type Output = Result<MatchReport, String>;
    fn visit<G: Game>(self) -> Result<MatchReport, String> {
        MatchRun::<G>::new(self.config)?.run(self.out)
    }
}

/// `Finished game 3 (agon vs ugi:agon): 1-0 {rules}`, as cutechess-cli
/// prints it (`1-0` when `x` won).
pub fn finished_line(record: &GameRecord) -> String {
    let result = match record.outcome {
        crate::game::Outcome::Win(Player::X) => "1-0",
        crate::game::Outcome::Win(Player::O) => "0-1",
        crate::game::Outcome::Draw => "1/2-1/2",
    };
    format!(
        "Finished game {} ({} vs {}): {result} {{{}}}",
        record.number, record.players[0], record.players[1], record.reason
    )
}

/// How the header line of a two-player match's record file starts.
const MATCH_HEADER_PREFIX: &str = "match ";

/// A prepared match of game `G`.
struct MatchRun<'a, G: Game> {
    config: &'a MatchConfig,
    names: [String; 2],
    starts: Vec<G>,
}

/// Names used in results: the specs' names, told apart when equal.
fn display_names(players: &[PlayerSpec; 2]) -> [String; 2] {
    let [a, b] = [&players[0].name, &players[1].name];
    if a == b {
        [format!("{a}#1"), format!("{b}#2")]
    } else {
        [a.clone(), b.clone()]
    }
}

/// The two players of one worker thread: first and second.
type Pair<G> = [Box<dyn Competitor<G>>; 2];

/// Results flowing from the workers to the main thread.
type Finished = (usize, GameRecord, Player);

impl<'a, G: Game> MatchRun<'a, G> {
    fn new(config: &'a MatchConfig) -> Result<Self, String> {
        Ok(MatchRun {
            config,
            names: display_names(&config.players),
            starts: start_positions(config)?,
        })
    }

    /// The setup of game `index` (from 0) and the first player's side.
    fn setup(&self, index: usize) -> (GameSetup<'a, G>, Player) {
        let start = &self.starts[(index / 2) % self.starts.len()];
        let [first, second] = &self.config.players;
        game_setup(
            self.config,
            index,
            start,
            [(&self.names[0], first), (&self.names[1], second)],
        )
    }

    /// The games this run plays.
    fn plan(&self) -> Plan {
        Plan {
            games: self.config.games,
            shard: self.config.shard,
        }
    }

    fn workers(&self, games: usize) -> Result<Vec<Pair<G>>, String> {
        let count = self.config.concurrency.clamp(1, games.max(1));
        (0..count)
            .map(|_| {
                let ready = |spec, name| ready_competitor::<G>(self.config, spec, name);
                let [p1, p2] = &self.config.players;
                Ok([ready(p1, &self.names[0])?, ready(p2, &self.names[1])?])
            })
            .collect()
    }

    /// The header line of this match's record file: the settings that
    /// make two runs the same match but that its records do not show.
    fn header(&self) -> serde_json::Value {
        let config = self.config;
        let mut header = serde_json::json!({
            "time": format!("{:?}", config.time),
            "seed": config.seed,
            "max_plies": config.max_plies,
        });
        if let Some(nodes) = config.nodes {
            header["nodes"] = nodes.into();
        }
        if let Some(sprt) = config.sprt {
            header["sprt"] = serde_json::json!([sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta]);
        }
        header
    }

    /// The games already in this match's `--out` file (none when there is
    /// no such file or it is empty), each with the first player's side:
    /// each must be a game of this run as it would be set up (game,
    /// options, players in their seats, start position, a clock or not),
    /// and the file's header (files written before there was one have
    /// none) must be this match's, else the file is refused, never
    /// overwritten. A last line cut short by a kill is dropped.
    fn resumed(&self, plan: Plan) -> Result<Vec<(GameRecord, Player)>, String> {
        let Some(path) = &self.config.out else {
            return Ok(Vec::new());
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read '{}': {e}", path.display())),
        };
        let refuse = |line: usize, why: String| {
            format!(
                "'{}' line {line}: {why}; --out holds the games of a match to resume and is never overwritten: move it away or choose another file",
                path.display()
            )
        };
        let header = self.header();
        let mut records = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (line, read) in record::record_lines(&text, true) {
            let record = match read {
                Ok(RecordLine::Record(record)) => record,
                Ok(RecordLine::Comment(comment)) => {
                    self.check_header(comment, &header)
                        .map_err(|why| refuse(line, why))?;
                    continue;
                }
                Err(e) => return Err(refuse(line, e)),
            };
            let index = record.number.wrapping_sub(1);
            if record.number == 0 || !plan.contains(index) {
                let why = format!("game {} is not one of this run's games", record.number);
                return Err(refuse(line, why));
            }
            if !seen.insert(record.number) {
                return Err(refuse(line, format!("game {} twice", record.number)));
            }
            let first_side = self
                .check_resumed(&record)
                .map_err(|why| refuse(line, format!("game {}: {why}", record.number)))?;
            records.push((record, first_side));
        }
        Ok(records)
    }

    /// Whether a comment line of a record file, if it is a match's header,
    /// is `header`; a tournament's header is refused.
    fn check_header(&self, comment: &str, header: &serde_json::Value) -> Result<(), String> {
        let Some(json) = comment
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|c| c.strip_prefix(MATCH_HEADER_PREFIX))
        else {
            if tournament::is_tournament_file(comment) {
                return Err("this is a tournament's record file".into());
            }
            return Ok(());
        };
        let found: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("bad match header: {e}"))?;
        if &found != header {
            return Err(format!(
                "the games of a match with other settings ({})",
                tournament::difference(&found, header)
            ));
        }
        Ok(())
    }

    /// Whether `record` is game `record.number` of this match as it would
    /// be set up now; the first player's side in it.
    fn check_resumed(&self, record: &GameRecord) -> Result<Player, String> {
        let (setup, first_side) = self.setup(record.number - 1);
        if !record.game.eq_ignore_ascii_case(G::NAME) {
            return Err(format!("a {} game, not {}", record.game, G::NAME));
        }
        if record.players != setup.names {
            let [x, o] = &record.players;
            let [want_x, want_o] = &setup.names;
            return Err(format!(
                "played by {x} (x) and {o} (o), not {want_x} and {want_o}"
            ));
        }
        if record.options != setup.options {
            return Err("played with other game options".into());
        }
        if record.start != setup.start.fen() {
            return Err(format!(
                "started from {}, not this match's opening",
                record.start
            ));
        }
        let clock = matches!(self.config.time, TimeControl::Clock { .. });
        if record.clocks.is_some() != clock {
            return Err("played on another kind of time control".into());
        }
        Ok(first_side)
    }

    fn run(&self, out: &mut dyn Write) -> Result<MatchReport, String> {
        let plan = self.plan();
        if plan.len() == 0 {
            return Err("this shard has no game to play (fewer opening pairs than shards)".into());
        }
        let (resumed, sides): (Vec<GameRecord>, Vec<Player>) =
            self.resumed(plan)?.into_iter().unzip();
        let done: std::collections::BTreeSet<usize> =
            resumed.iter().map(|r| r.number - 1).collect();
        let mut tally = Tally::new(self.config.sprt, plan.len());
        for (record, first_side) in resumed.iter().cloned().zip(sides) {
            tally.add(record.number - 1, record, first_side);
        }
        let remaining = if tally.decided() {
            0
        } else {
            plan.len() - done.len()
        };
        if !resumed.is_empty() {
            let plural = if resumed.len() == 1 { "" } else { "s" };
            writeln!(
                out,
                "Resuming: {} game{plural} already recorded, {remaining} to play",
                resumed.len()
            )
            .map_err(|e| e.to_string())?;
        }
        let mut writers = resuming_writers(
            self.config.out.as_ref(),
            self.config.pgn.as_ref(),
            plan,
            Some(&format!("{MATCH_HEADER_PREFIX}{}", self.header())),
            &resumed,
        )?;
        let workers = if remaining == 0 {
            Vec::new()
        } else {
            match self.workers(remaining) {
                Ok(workers) => workers,
                // Stopped while the engines started: no game was played.
                Err(_) if self.interrupted() => Vec::new(),
                Err(error) => return Err(error),
            }
        };
        let bar = progress_bar(self.config, remaining);
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (sender, receiver) = channel::<Finished>();
        std::thread::scope(|scope| {
            for mut pair in workers {
                let sender = sender.clone();
                let (next, stop, done) = (&next, &stop, &done);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && !self.interrupted() {
                        let Some(index) = plan.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        if done.contains(&index) {
                            continue;
                        }
                        // An abandoned game (interrupted) is not sent.
                        let Some(finished) = self.play(index, &mut pair) else {
                            break;
                        };
                        if sender.send(finished).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for (index, record, first_side) in receiver {
                if tally.decided() {
                    continue; // played after the SPRT decided: not counted
                }
                let finished = finished_line(&record);
                tally.add(index, record, first_side);
                // A closed output only loses the running commentary.
                let _ = bar.suspend(|| self.commentary(out, &finished, &tally));
                bar.set_message(tally.progress_text());
                bar.inc(1);
                for writer in &mut writers {
                    writer.write_ready(&tally.pending);
                }
                // Workers finish their current game and take no new one.
                stop.store(tally.decided(), Ordering::Relaxed);
            }
        });
        bar.finish_and_clear();
        let played = tally.results.score().games() as usize;
        let interrupted = self.interrupted() && played < tally.planned && !tally.decided();
        let records: Vec<GameRecord> = tally.all_records();
        for writer in &mut writers {
            writer.write_all(&records)?;
        }
        Ok(MatchReport {
            names: self.names.clone(),
            score: tally.results.score(),
            pairs: tally.results.pentanomial(),
            sprt: tally.status(),
            records,
            interrupted,
        })
    }

    /// Whether the match was told to stop ([`MatchConfig::stop`]).
    fn interrupted(&self) -> bool {
        self.config
            .stop
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// The lines printed as games finish: each game with `--verbose` or
    /// without a progress bar, and there also the running score (and the
    /// SPRT's state) every `report_every` games, as cutechess-cli prints
    /// them.
    fn commentary(
        &self,
        out: &mut dyn Write,
        finished: &str,
        tally: &Tally,
    ) -> std::io::Result<()> {
        // With a progress bar (on a terminal) the running score is on it.
        let quiet_terminal = self.config.progress;
        if self.config.verbose || !quiet_terminal {
            writeln!(out, "{finished}")?;
        }
        let every = self.config.report_every;
        let games = tally.results.score().games() as usize;
        // The last game's score (or the deciding one's) is the summary
        // that follows.
        let last = games == tally.planned || tally.decided();
        if !quiet_terminal && every > 0 && games.is_multiple_of(every) && !last {
            let score = tally.results.score();
            writeln!(
                out,
                "{}",
                score_line(&self.names[0], &self.names[1], &score)
            )?;
            writeln!(out, "{}", elo_line(&score))?;
            if let Some(line) = tally.results.pentanomial().line() {
                writeln!(out, "{line}")?;
            }
            if let Some(status) = tally.status() {
                writeln!(out, "{}", status.line())?;
            }
        }
        out.flush()
    }

    /// Plays game `index`; `None` when the match was stopped during it.
    fn play(&self, index: usize, pair: &mut Pair<G>) -> Option<Finished> {
        let (setup, first_side) = self.setup(index);
        let [p1, p2] = pair;
        play_seated(&setup, first_side, [p1.as_mut(), p2.as_mut()])
            .map(|record| (index, record, first_side))
    }
}

/// The start positions of a match's games: its openings, or the game's
/// start position.
fn start_positions<G: Game>(config: &MatchConfig) -> Result<Vec<G>, String> {
    let mut options = G::Options::default();
    for (name, value) in &config.options {
        crate::game::set_option(&mut options, name, value)?;
    }
    if config.openings.is_empty() {
        return Ok(vec![G::start(&options)]);
    }
    config
        .openings
        .iter()
        .map(|fen| G::from_fen(fen, &options).map_err(|e| format!("bad opening '{fen}': {e}")))
        .collect()
}

/// The setup of game `index` (from 0) of a match run under `config`,
/// from `start`, between `players` (first and second: display name and
/// spec), and the first player's side: `x` in even-indexed games (the
/// first of each opening pair). Built-in players' random choices and the
/// dealt hidden information come from the match seed and `index`.
fn game_setup<'a, G: Game>(
    config: &'a MatchConfig,
    index: usize,
    start: &G,
    players: [(&str, &PlayerSpec); 2],
) -> (GameSetup<'a, G>, Player) {
    let first_side = if index.is_multiple_of(2) {
        Player::X
    } else {
        Player::O
    };
    let [first, second] = players;
    let (x, o) = match first_side {
        Player::X => (first, second),
        Player::O => (second, first),
    };
    let seed = config
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index as u64);
    // The players that pick their own secret squares are those whose
    // spec says so (see [`referee::deal_hidden`]).
    let chooses =
        |spec: &PlayerSpec| matches!(&spec.kind, PlayerKind::Builtin(b) if b.choose_secrets);
    let dealt = referee::deal_hidden(start, &config.options, [chooses(x.1), chooses(o.1)], seed);
    let setup = GameSetup {
        number: index + 1,
        start: dealt.start,
        options: dealt.options,
        player_options: dealt.told,
        match_options: &config.options,
        names: [x.0.to_owned(), o.0.to_owned()],
        time: config.time,
        max_plies: config.max_plies,
        adjudication: config.adjudication,
        seed,
        abandon: config.stop.as_deref(),
    };
    (setup, first_side)
}

/// Creates the player of `spec` for a match under `config` and gets it
/// ready (an external engine started and through its handshake); an error
/// names the player.
fn ready_competitor<G: Game>(
    config: &MatchConfig,
    spec: &PlayerSpec,
    name: &str,
) -> Result<Box<dyn Competitor<G>>, String> {
    let (options, wait) = (&config.options, config.handshake_timeout);
    let mut player = make_competitor::<G>(spec, options, wait, config.stop.as_ref())?;
    player
        .start()
        .map_err(|why| format!("player {name} cannot play: {why}"))?;
    Ok(player)
}

/// Plays the game of `setup` between `players` (first and second), the
/// first on `first_side`; `None` when the game was abandoned.
fn play_seated<G: Game>(
    setup: &GameSetup<'_, G>,
    first_side: Player,
    players: [&mut dyn Competitor<G>; 2],
) -> Option<GameRecord> {
    let [p1, p2] = players;
    let seated: [&mut dyn Competitor<G>; 2] = match first_side {
        Player::X => [p1, p2],
        Player::O => [p2, p1],
    };
    play_game(setup, seated)
}

/// The running results, the SPRT and the records not yet written.
struct Tally {
    results: Results,
    sprt: Option<Sprt>,
    /// Counted records by game index.
    pending: BTreeMap<usize, GameRecord>,
    /// Games this run plays.
    planned: usize,
}

impl Tally {
    fn new(sprt: Option<Sprt>, planned: usize) -> Tally {
        Tally {
            results: Results::default(),
            sprt,
            pending: BTreeMap::new(),
            planned,
        }
    }

    fn add(&mut self, index: usize, record: GameRecord, first_side: Player) {
        self.results
            .add(record.number, record.outcome.sign_for(first_side));
        self.pending.insert(index, record);
    }

    /// The SPRT over opening pairs.
    fn status(&self) -> Option<SprtStatus> {
        let pairs = self.results.pentanomial();
        self.sprt.map(|s| s.status_pairs(&pairs))
    }

    fn decided(&self) -> bool {
        self.status().is_some_and(|s| s.decision.is_some())
    }

    fn progress_text(&self) -> String {
        let s = self.results.score();
        let mut text = format!(
            "{}-{}-{} [{}] Elo {}",
            s.wins,
            s.losses,
            s.draws,
            stats::fixed(s.mean(), 3),
            stats::fixed(s.elo(), 1)
        );
        if let Some(status) = self.status() {
            text.push_str(&format!(" LLR {}", stats::fixed(status.llr, 2)));
        }
        text
    }

    fn all_records(&mut self) -> Vec<GameRecord> {
        std::mem::take(&mut self.pending).into_values().collect()
    }
}

fn progress_bar(config: &MatchConfig, games: usize) -> ProgressBar {
    if !config.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(games as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
