//! `agon match --player SPEC --player SPEC …`: a tournament of any number
//! of players, round-robin (every pair) or gauntlet (the first player
//! against each other one), every game refereed, recorded and written as
//! in a two-player match.
//!
//! Schedule: every pairing plays `games_per_pairing` games per round
//! (default: each opening twice, colours swapped), over the same openings
//! in the same order, so every pair plays the same positions. Games go in
//! opening pairs: game index `g` (from 0) is pair `g / 2`; within a round
//! the pairs run opening by opening and, for each opening, pairing by
//! pairing, so that a tournament stopped early is still balanced. The
//! first player of a pairing (the lower in the `--player` order) has `x`
//! in the first game of each pair. Seeds and dealt hidden information
//! come from the match seed and the game index as in `agon match`.
//! `--shard I/N` takes, of every pairing, the opening pairs numbered
//! `I − 1, I − 1 + N, …` (counted across rounds), so that every shard
//! plays every pairing on its share of the openings.
//!
//! The record file (`--out`) starts with a header line, `# tournament
//! {json}`, naming the game, options, players, schedule, openings (by a
//! hash), time control, seed and ply limit. A run whose `--out` file
//! already holds this tournament's header resumes: its games are kept and
//! not played again (a file of another tournament is refused, never
//! overwritten). `--merge` combines the record files of shards (or of any
//! parts) of one tournament into its standings, refusing files of
//! different tournaments, games recorded twice and records that do not
//! fit the schedule.

use super::plan::Plan;
use super::player::Competitor;
use super::ratings::{Anchor, Crosstable, Standings};
use super::record::{GameRecord, RecordLine, record_lines};
use super::spec::PlayerSpec;
use super::writer::{RecordWriter, resuming_writers};
use super::{
    MatchConfig, check_uai_rules, finished_line, game_setup, play_seated, progress_bar,
    ready_competitor, start_positions,
};
use crate::game::{Game, Outcome, Player};
use crate::games::{GameVisitor, visit_game};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every player against every other.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
}

impl Format {
    /// Parses `round-robin` or `gauntlet`.
    pub fn parse(text: &str) -> Result<Format, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "round-robin" | "roundrobin" => Ok(Format::RoundRobin),
            "gauntlet" => Ok(Format::Gauntlet),
            _ => Err(format!(
                "--tournament takes round-robin or gauntlet, not '{text}'"
            )),
        }
    }

    /// The name written in headers.
    pub fn name(&self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
        }
    }
}

/// Everything a tournament needs.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// How every game is played and recorded, as in a match: game,
    /// options, time control, openings, concurrency, `--out`, `--pgn`,
    /// seed, ply limit, adjudication, progress, handshake, verbosity,
    /// report interval, shard and stop flag. Its `players`, `games` and
    /// `sprt` are not used (the players are below; an SPRT is for two).
    pub settings: MatchConfig,
    /// The players, at least two.
    pub players: Vec<PlayerSpec>,
    /// Round-robin or gauntlet.
    pub format: Format,
    /// Times every pairing plays its games.
    pub rounds: usize,
    /// Games of each pairing per round (even); `None`: each opening twice.
    pub games_per_pairing: Option<usize>,
    /// Write the final standings here as JSON.
    pub standings: Option<PathBuf>,
    /// Which rating is 0.
    pub anchor: Anchor,
    /// Virtual draws added to every pairing for the ratings (0: the plain
    /// maximum likelihood).
    pub prior_draws: f64,
}

/// The games of a tournament, computed rather than listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Round-robin or gauntlet.
    pub format: Format,
    /// Number of players.
    pub players: usize,
    /// Rounds.
    pub rounds: usize,
    /// Games of each pairing per round (even).
    pub per_pairing: usize,
    /// Number of openings (1 for the start position).
    pub openings: usize,
    pairings: Vec<(usize, usize)>,
    games: usize,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The pairing's first player (index in the player list).
    pub first: usize,
    /// The pairing's second player.
    pub second: usize,
    /// The first player's side.
    pub first_side: Player,
    /// The opening (index in the openings list).
    pub opening: usize,
    /// The opening pair's number in its pairing, counted across rounds
    /// (what `--shard` splits by).
    pub opening_pair: usize,
    /// The round, from 0.
    pub round: usize,
}

impl Schedule {
    /// The schedule of `players` players; `per_pairing` `None` is twice
    /// the openings.
    pub fn new(
        format: Format,
        players: usize,
        rounds: usize,
        per_pairing: Option<usize>,
        openings: usize,
    ) -> Result<Schedule, String> {
        if players < 2 {
            return Err("a tournament needs at least two players (--player SPEC, repeated)".into());
        }
        if rounds == 0 {
            return Err("--rounds must be at least 1".into());
        }
        let openings = openings.max(1);
        let per_pairing = match per_pairing {
            Some(n) if n == 0 || n % 2 == 1 => {
                return Err(format!(
                    "--games-per-pairing must be even and at least 2 (each opening with both colours), not {n}"
                ));
            }
            Some(n) => n,
            None => 2 * openings,
        };
        let pairings: Vec<(usize, usize)> = match format {
            Format::RoundRobin => (0..players)
                .flat_map(|i| (i + 1..players).map(move |j| (i, j)))
                .collect(),
            Format::Gauntlet => (1..players).map(|j| (0, j)).collect(),
        };
        let games = rounds
            .checked_mul(pairings.len())
            .and_then(|g| g.checked_mul(per_pairing))
            .ok_or("the tournament has too many games")?;
        Ok(Schedule {
            format,
            players,
            rounds,
            per_pairing,
            openings,
            pairings,
            games,
        })
    }

    /// The pairings, first player first.
    pub fn pairings(&self) -> &[(usize, usize)] {
        &self.pairings
    }

    /// Games in the whole tournament.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Game `index` (from 0; below [`Schedule::games`]).
    pub fn slot(&self, index: usize) -> Slot {
        let pair = index / 2;
        let pairs_per_pairing = self.per_pairing / 2;
        let pairs_per_round = pairs_per_pairing * self.pairings.len();
        let round = pair / pairs_per_round;
        let within = pair % pairs_per_round;
        let (first, second) = self.pairings[within % self.pairings.len()];
        // Each pairing's opening pairs continue through the openings from
        // round to round.
        let opening_pair = round * pairs_per_pairing + within / self.pairings.len();
        Slot {
            first,
            second,
            first_side: if index.is_multiple_of(2) {
                Player::X
            } else {
                Player::O
            },
            opening: opening_pair % self.openings,
            opening_pair,
            round,
        }
    }

    /// Whether game `index` is in part `I` of `N` (`--shard I/N`; every
    /// game without one): the games of opening pairs `I − 1, I − 1 + N, …`
    /// of every pairing, so that each part plays every pairing on its
    /// share of the openings.
    pub fn in_shard(&self, index: usize, shard: Option<(usize, usize)>) -> bool {
        index < self.games && shard.is_none_or(|(i, n)| self.slot(index).opening_pair % n == i - 1)
    }

    /// How many games part `I` of `N` has.
    pub fn shard_games(&self, shard: Option<(usize, usize)>) -> usize {
        let Some((i, n)) = shard else {
            return self.games;
        };
        let pairs = self.rounds * self.per_pairing / 2;
        let mine = if pairs > i - 1 {
            (pairs - (i - 1)).div_ceil(n)
        } else {
            0
        };
        mine * self.pairings.len() * 2
    }

    /// The names of the `x` and `o` players of game `index`.
    fn sides<'n>(&self, index: usize, names: &'n [String]) -> [&'n str; 2] {
        let slot = self.slot(index);
        let (first, second) = (&names[slot.first], &names[slot.second]);
        match slot.first_side {
            Player::X => [first, second],
            Player::O => [second, first],
        }
    }
}

/// What a tournament produced.
#[derive(Clone, Debug)]
pub struct TournamentReport {
    /// The standings over every game counted (resumed ones included).
    pub standings: Standings,
    /// Every counted game, in game order (resumed ones included).
    pub records: Vec<GameRecord>,
    /// Games this run played.
    pub played: usize,
    /// Stopped before every planned game was played.
    pub interrupted: bool,
}

/// How a tournament's header line starts.
const HEADER_PREFIX: &str = "tournament ";

/// Names used in results: the specs' names, numbered when two are equal.
fn display_names(players: &[PlayerSpec]) -> Result<Vec<String>, String> {
    let names: Vec<String> = players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if players.iter().filter(|q| q.name == p.name).count() > 1 {
                format!("{}#{}", p.name, i + 1)
            } else {
                p.name.clone()
            }
        })
        .collect();
    if let Some(bad) = names.iter().find(|n| n.contains(['\t', '\n', '\r'])) {
        return Err(format!("player name '{bad}' has a tab or line end"));
    }
    Ok(names)
}

/// FNV-1a over the openings, one per line: the header's openings hash.
fn openings_hash(openings: &[String]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in openings.iter().flat_map(|o| o.bytes().chain([b'\n'])) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The header describing a tournament: two record files belong to the
/// same tournament exactly when their headers are equal.
fn header(
    config: &TournamentConfig,
    game: &str,
    names: &[String],
    schedule: &Schedule,
) -> serde_json::Value {
    let settings = &config.settings;
    let mut header = serde_json::json!({
        "format": schedule.format.name(),
        "game": game,
        "options": settings.options,
        "players": names,
        "rounds": schedule.rounds,
        "games_per_pairing": schedule.per_pairing,
        "openings": settings.openings.len(),
        "openings_hash": openings_hash(&settings.openings),
        "time": format!("{:?}", settings.time),
        "seed": settings.seed,
        "max_plies": settings.max_plies,
    });
    // Only when given, so that the headers of earlier files still match.
    if let Some(nodes) = settings.nodes {
        header["nodes"] = nodes.into();
    }
    header
}

/// The schedule and player names a header describes.
fn schedule_of(header: &serde_json::Value) -> Result<(Schedule, Vec<String>), String> {
    let bad = |field: &str| format!("the tournament header has no valid '{field}'");
    let count = |field: &str| {
        header[field]
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| bad(field))
    };
    let format = Format::parse(header["format"].as_str().ok_or_else(|| bad("format"))?)?;
    let names: Vec<String> = header["players"]
        .as_array()
        .ok_or_else(|| bad("players"))?
        .iter()
        .map(|n| n.as_str().map(str::to_owned).ok_or_else(|| bad("players")))
        .collect::<Result<_, _>>()?;
    let schedule = Schedule::new(
        format,
        names.len(),
        count("rounds")?,
        Some(count("games_per_pairing")?),
        count("openings")?,
    )?;
    Ok((schedule, names))
}

/// A tournament record file read: its header and records.
struct RecordFile {
    header: serde_json::Value,
    records: Vec<GameRecord>,
}

/// Whether `text` is a tournament's record file (has its header).
pub fn is_tournament_file(text: &str) -> bool {
    text.lines().any(|l| header_line(l).is_some())
}

fn header_line(line: &str) -> Option<&str> {
    line.strip_prefix('#')?
        .trim_start()
        .strip_prefix(HEADER_PREFIX)
}

/// Reads a tournament's record file. Every record must read, replay
/// through the rules and fit the header's schedule; with `truncated_tail`
/// a last line without its line end that does not read (the run was
/// killed while writing it) is dropped.
fn read_records(name: &str, text: &str, truncated_tail: bool) -> Result<RecordFile, String> {
    let mut header: Option<serde_json::Value> = None;
    let mut records = Vec::new();
    for (number, line) in record_lines(text, truncated_tail) {
        let place = || format!("{name}: line {number}");
        match line.map_err(|e| format!("{}: {e}", place()))? {
            RecordLine::Record(record) => records.push(record),
            RecordLine::Comment(comment) => {
                let Some(json) = header_line(comment) else {
                    continue;
                };
                let value: serde_json::Value = serde_json::from_str(json)
                    .map_err(|e| format!("{}: bad tournament header: {e}", place()))?;
                if header.replace(value).is_some() {
                    return Err(format!("{}: a second tournament header", place()));
                }
            }
        }
    }
    let header = header.ok_or_else(|| {
        format!("{name}: not a tournament's record file (no '# {HEADER_PREFIX}{{…}}' header line)")
    })?;
    let (schedule, names) = schedule_of(&header)?;
    let game = header["game"].as_str().unwrap_or_default();
    for record in &records {
        let index = record.number.wrapping_sub(1);
        if record.number == 0 || index >= schedule.games() {
            return Err(format!(
                "{name}: game {} is not in the tournament (games 1 to {})",
                record.number,
                schedule.games()
            ));
        }
        let sides = schedule.sides(index, &names);
        if !record.game.eq_ignore_ascii_case(game) || record.players != sides.map(str::to_owned) {
            return Err(format!(
                "{name}: game {} is {} between {} and {}, but the tournament's game {} is {game} between {} and {}",
                record.number,
                record.game,
                record.players[0],
                record.players[1],
                record.number,
                sides[0],
                sides[1]
            ));
        }
    }
    Ok(RecordFile { header, records })
}

/// The first field in which two headers differ.
pub(super) fn difference(a: &serde_json::Value, b: &serde_json::Value) -> String {
    let keys = a
        .as_object()
        .into_iter()
        .chain(b.as_object())
        .flat_map(|o| o.keys());
    for key in keys {
        if a.get(key) != b.get(key) {
            let show =
                |v: Option<&serde_json::Value>| v.map_or("nothing".to_owned(), |v| v.to_string());
            return format!("{key}: {} against {}", show(a.get(key)), show(b.get(key)));
        }
    }
    "nothing".to_owned()
}

/// The crosstable of `records` between `names`.
fn crosstable(names: &[String], records: &[GameRecord]) -> Crosstable {
    let mut table = Crosstable::new(names.to_vec());
    for record in records {
        add_game(&mut table, record);
    }
    table
}

/// Counts one game in the crosstable (its players must be in it).
fn add_game(table: &mut Crosstable, record: &GameRecord) {
    let find = |name: &str| table.names.iter().position(|n| n == name);
    if let (Some(x), Some(o)) = (find(&record.players[0]), find(&record.players[1])) {
        let sign = match record.outcome {
            Outcome::Win(Player::X) => 1,
            Outcome::Win(Player::O) => -1,
            Outcome::Draw => 0,
        };
        table.add(x, o, sign);
    }
}

/// Writes the standings JSON.
fn write_standings(
    path: &Path,
    standings: &Standings,
    header: &serde_json::Value,
    planned: usize,
) -> Result<(), String> {
    let mut json = standings.json(header.clone());
    json["planned_games"] = serde_json::json!(planned);
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

fn write_lines(out: &mut dyn Write, lines: &[String]) -> Result<(), String> {
    lines
        .iter()
        .try_for_each(|line| writeln!(out, "{line}"))
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the standings: {e}"))
}

/// Plays the tournament (or its shard, or what is left of it in its
/// `--out` file), printing each game, the standings every `report_every`
/// games and at the end, and returns the report.
pub fn run_tournament(
    config: &TournamentConfig,
    out: &mut dyn Write,
) -> Result<TournamentReport, String> {
    let settings = &config.settings;
    if settings.sprt.is_some() {
        return Err("--sprt is for a match of two players, not a tournament".into());
    }
    check_uai_rules(&settings.game, &settings.options, &config.players)?;
    visit_game(&settings.game, RunTournament { config, out })?
}

struct RunTournament<'a> {
    config: &'a TournamentConfig,
    out: &'a mut dyn Write,
}

impl GameVisitor for RunTournament<'_> {
    type Output = Result<TournamentReport, String>;
    fn visit<G: Game>(self) -> Result<TournamentReport, String> {
        TournamentRun::<G>::new(self.config)?.run(self.out)
    }
}

/// A prepared tournament of game `G`.
struct TournamentRun<'a, G: Game> {
    config: &'a TournamentConfig,
    schedule: Schedule,
    names: Vec<String>,
    starts: Vec<G>,
    header: serde_json::Value,
}

/// Every player of the tournament, as one worker thread holds them.
type Seats<G> = Vec<Box<dyn Competitor<G>>>;

impl<'a, G: Game> TournamentRun<'a, G> {
    fn new(config: &'a TournamentConfig) -> Result<Self, String> {
        let settings = &config.settings;
        let starts = start_positions::<G>(settings)?;
        let schedule = Schedule::new(
            config.format,
            config.players.len(),
            config.rounds,
            config.games_per_pairing,
            starts.len(),
        )?;
        let names = display_names(&config.players)?;
        let header = header(config, G::NAME, &names, &schedule);
        Ok(TournamentRun {
            config,
            schedule,
            names,
            starts,
            header,
        })
    }

    /// Whether this run plays game `index` (its shard's, if one).
    fn mine(&self, index: usize) -> bool {
        self.schedule.in_shard(index, self.config.settings.shard)
    }

    /// The games already in the `--out` file of this tournament (none
    /// when there is no such file or it is empty); an error when it holds
    /// another tournament's games or games outside this run's plan.
    fn resumed(&self) -> Result<Vec<GameRecord>, String> {
        let Some(path) = &self.config.settings.out else {
            return Ok(Vec::new());
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) if !text.trim().is_empty() => text,
            Ok(_) => return Ok(Vec::new()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read '{}': {e}", path.display())),
        };
        let name = path.display().to_string();
        let file = read_records(&name, &text, true).map_err(|e| {
            format!("{e}; --out holds a tournament's games to resume and is never overwritten: move it away or choose another file")
        })?;
        if file.header != self.header {
            return Err(format!(
                "'{name}' holds the games of another tournament ({}); it is not overwritten: move it away or choose another --out",
                difference(&file.header, &self.header)
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for record in &file.records {
            if !self.mine(record.number - 1) {
                return Err(format!(
                    "'{name}' holds game {}, which is not part of this run (another --shard?)",
                    record.number
                ));
            }
            if !seen.insert(record.number) {
                return Err(format!("'{name}' holds game {} twice", record.number));
            }
        }
        Ok(file.records)
    }

    fn workers(&self, count: usize) -> Result<Vec<Seats<G>>, String> {
        (0..count)
            .map(|_| {
                self.config
                    .players
                    .iter()
                    .zip(&self.names)
                    .map(|(spec, name)| ready_competitor::<G>(&self.config.settings, spec, name))
                    .collect()
            })
            .collect()
    }

    /// The record and PGN writers, each file written anew with the games
    /// resumed from it, the records headed by the tournament's line.
    fn writers(&self, resumed: &[GameRecord]) -> Result<Vec<RecordWriter>, String> {
        let settings = &self.config.settings;
        // Games are written as they finish, so a plan's order is unused.
        let plan = Plan {
            games: 0,
            shard: None,
        };
        let header = format!("{HEADER_PREFIX}{}", self.header);
        resuming_writers(
            settings.out.as_ref(),
            settings.pgn.as_ref(),
            plan,
            Some(&header),
            resumed,
        )
    }

    fn run(&self, out: &mut dyn Write) -> Result<TournamentReport, String> {
        let settings = &self.config.settings;
        let planned = self.schedule.shard_games(settings.shard);
        if planned == 0 {
            return Err("this shard has no game to play (fewer opening pairs than shards)".into());
        }
        let resumed = self.resumed()?;
        let done: std::collections::BTreeSet<usize> = resumed.iter().map(|r| r.number).collect();
        let remaining = planned - done.len();
        let mut table = crosstable(&self.names, &resumed);
        let mut records: BTreeMap<usize, GameRecord> =
            resumed.iter().map(|r| (r.number, r.clone())).collect();
        let mut lines = vec![format!(
            "Tournament: {} of {} players, {} games ({} per pairing in each of {} rounds, {} pairings){}",
            self.schedule.format.name(),
            self.names.len(),
            self.schedule.games(),
            self.schedule.per_pairing,
            self.schedule.rounds,
            self.schedule.pairings().len(),
            match settings.shard {
                Some((i, n)) => format!("; shard {i}/{n}: {planned} games"),
                None => String::new(),
            }
        )];
        if !resumed.is_empty() {
            let plural = if resumed.len() == 1 { "" } else { "s" };
            lines.push(format!(
                "Resuming: {} game{plural} already recorded, {remaining} to play",
                resumed.len()
            ));
        }
        write_lines(out, &lines)?;
        // Every player starts before the first game: one that cannot
        // stops the tournament here.
        let workers = if remaining == 0 {
            Vec::new()
        } else {
            match self.workers(settings.concurrency.clamp(1, remaining)) {
                Ok(workers) => workers,
                Err(_) if self.interrupted() => Vec::new(),
                Err(error) => return Err(error),
            }
        };
        let mut writers = self.writers(&resumed)?;
        let mut write_error = None;
        let bar = progress_bar(settings, remaining);
        let next = AtomicUsize::new(0);
        let mut played = 0;
        let (sender, receiver) = channel::<GameRecord>();
        std::thread::scope(|scope| {
            for mut seats in workers {
                let sender = sender.clone();
                let (next, done) = (&next, &done);
                scope.spawn(move || {
                    while !self.interrupted() {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= self.schedule.games() {
                            break;
                        }
                        if !self.mine(index) || done.contains(&(index + 1)) {
                            continue;
                        }
                        let Some(record) = self.play(index, &mut seats) else {
                            break;
                        };
                        if sender.send(record).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for record in receiver {
                played += 1;
                add_game(&mut table, &record);
                let finished = finished_line(&record);
                for writer in &mut writers {
                    if let Err(e) = writer.write_all(std::slice::from_ref(&record)) {
                        write_error.get_or_insert(e);
                    }
                }
                records.insert(record.number, record);
                let every = settings.report_every;
                let report =
                    !settings.progress && every > 0 && played % every == 0 && played < remaining;
                let _ = bar.suspend(|| {
                    let mut lines = Vec::new();
                    if settings.verbose || !settings.progress {
                        lines.push(finished);
                    }
                    if report {
                        lines.extend(
                            Standings::new(
                                table.clone(),
                                self.config.anchor,
                                self.config.prior_draws,
                            )
                            .lines(),
                        );
                    }
                    write_lines(out, &lines)
                });
                bar.inc(1);
            }
        });
        bar.finish_and_clear();
        if let Some(error) = write_error {
            return Err(error);
        }
        let interrupted = self.interrupted() && played < remaining;
        let standings = Standings::new(table, self.config.anchor, self.config.prior_draws);
        let mut lines = Vec::new();
        if interrupted {
            let plural = if played == 1 { "" } else { "s" };
            lines.push(format!(
                "Tournament interrupted after {played} game{plural}; the games in progress were abandoned"
            ));
        }
        lines.extend(standings.lines());
        write_lines(out, &lines)?;
        if let Some(path) = &self.config.standings {
            write_standings(path, &standings, &self.header, self.schedule.games())?;
        }
        Ok(TournamentReport {
            standings,
            records: records.into_values().collect(),
            played,
            interrupted,
        })
    }

    fn interrupted(&self) -> bool {
        self.config
            .settings
            .stop
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// Plays game `index`; `None` when the tournament was stopped during it.
    fn play(&self, index: usize, seats: &mut Seats<G>) -> Option<GameRecord> {
        let slot = self.schedule.slot(index);
        let players = &self.config.players;
        let (setup, first_side) = game_setup(
            &self.config.settings,
            index,
            &self.starts[slot.opening],
            [
                (&self.names[slot.first], &players[slot.first]),
                (&self.names[slot.second], &players[slot.second]),
            ],
        );
        let [first, second] = seats.get_disjoint_mut([slot.first, slot.second]).ok()?;
        play_seated(&setup, first_side, [first.as_mut(), second.as_mut()])
    }
}

/// What `--merge` of a tournament's record files reads and writes.
#[derive(Clone, Debug)]
pub struct MergeConfig {
    /// The record files (shards, or parts, of one tournament).
    pub files: Vec<PathBuf>,
    /// Where the combined games are written as records.
    pub out: Option<PathBuf>,
    /// Where the combined games are written as PGN.
    pub pgn: Option<PathBuf>,
    /// Where the standings are written as JSON.
    pub standings: Option<PathBuf>,
    /// Which rating is 0.
    pub anchor: Anchor,
    /// Virtual draws added to every pairing for the ratings.
    pub prior_draws: f64,
}

/// The standings of one tournament's record files: every file must carry
/// the same tournament header, every record must replay through the
/// rules, fit the schedule and appear once. Prints the count (and the
/// missing game numbers) and the standings.
pub fn merge(config: &MergeConfig, out: &mut dyn Write) -> Result<Standings, String> {
    let mut files: Vec<(String, RecordFile)> = Vec::new();
    for path in &config.files {
        let name = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{name}': {e}"))?;
        let file = read_records(&name, &text, false)?;
        if let Some((first_name, first)) = files.first()
            && first.header != file.header
        {
            return Err(format!(
                "'{name}' is not from the same tournament as '{first_name}' ({}): not merged",
                difference(&first.header, &file.header)
            ));
        }
        files.push((name, file));
    }
    let Some((_, first)) = files.first() else {
        return Err("--merge needs record files".into());
    };
    let header = first.header.clone();
    let (schedule, names) = schedule_of(&header)?;
    let mut records: BTreeMap<usize, (&str, &GameRecord)> = BTreeMap::new();
    for (name, file) in &files {
        for record in &file.records {
            if let Some((other, _)) = records.insert(record.number, (name, record)) {
                return Err(format!(
                    "game {} is recorded twice ('{other}' and '{name}'): not merged",
                    record.number
                ));
            }
        }
    }
    let records: Vec<GameRecord> = records.into_values().map(|(_, r)| r.clone()).collect();
    let missing = schedule.games() - records.len();
    let mut lines = vec![format!(
        "Merged {} games of the tournament's {} from {} files{}",
        records.len(),
        schedule.games(),
        files.len(),
        if missing > 0 {
            format!(" ({missing} missing)")
        } else {
            String::new()
        }
    )];
    let standings = Standings::new(
        crosstable(&names, &records),
        config.anchor,
        config.prior_draws,
    );
    lines.extend(standings.lines());
    write_lines(out, &lines)?;
    let plan = Plan {
        games: 0,
        shard: None,
    };
    if let Some(path) = &config.out {
        let mut writer = RecordWriter::records(path, plan)?;
        writer.comment(&format!("{HEADER_PREFIX}{header}"));
        writer.write_all(&records)?;
    }
    if let Some(path) = &config.pgn {
        RecordWriter::pgn(path, plan)?.write_all(&records)?;
    }
    if let Some(path) = &config.standings {
        write_standings(path, &standings, &header, schedule.games())?;
    }
    Ok(standings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair plays the same number of games, each player of a pair
    /// has `x` in half of them, on every opening equally often, and the
    /// gauntlet pairs only the first player.
    #[test]
    fn schedules_are_balanced() {
        for (format, players, rounds, per_pairing, openings) in [
            (Format::RoundRobin, 4, 2, None, 20),
            (Format::RoundRobin, 5, 1, Some(4), 3),
            (Format::RoundRobin, 2, 3, None, 1),
            (Format::Gauntlet, 5, 2, Some(6), 7),
            (Format::Gauntlet, 3, 1, None, 2),
        ] {
            let s = Schedule::new(format, players, rounds, per_pairing, openings).expect("valid");
            let expected_pairings = match format {
                Format::RoundRobin => players * (players - 1) / 2,
                Format::Gauntlet => players - 1,
            };
            assert_eq!(s.pairings().len(), expected_pairings);
            assert_eq!(s.games(), expected_pairings * rounds * s.per_pairing);
            // (first, second) → [games with first as x, as o]; per opening.
            let mut sides: BTreeMap<(usize, usize), [usize; 2]> = BTreeMap::new();
            let mut by_opening: BTreeMap<(usize, usize, usize), [usize; 2]> = BTreeMap::new();
            for g in 0..s.games() {
                let slot = s.slot(g);
                assert!(slot.first < slot.second && slot.second < players);
                if format == Format::Gauntlet {
                    assert_eq!(slot.first, 0, "gauntlet game {g}");
                }
                assert!(slot.round < rounds);
                let side = slot.first_side.index();
                sides.entry((slot.first, slot.second)).or_default()[side] += 1;
                by_opening
                    .entry((slot.first, slot.second, slot.opening))
                    .or_default()[side] += 1;
                // The two games of a pair: same pairing and opening,
                // colours swapped.
                if g % 2 == 1 {
                    let other = s.slot(g - 1);
                    assert_eq!(
                        (other.first, other.second, other.opening),
                        (slot.first, slot.second, slot.opening)
                    );
                    assert_ne!(other.first_side, slot.first_side);
                }
            }
            let per = rounds * s.per_pairing;
            assert_eq!(sides.len(), expected_pairings);
            for counts in sides.values() {
                assert_eq!(*counts, [per / 2, per / 2]);
            }
            // Every pairing sees the same openings equally often.
            for counts in by_opening.values() {
                assert_eq!(counts[0], counts[1]);
            }
            let uses = |pairing: (usize, usize)| -> Vec<[usize; 2]> {
                (0..s.openings)
                    .map(|o| {
                        by_opening
                            .get(&(pairing.0, pairing.1, o))
                            .copied()
                            .unwrap_or_default()
                    })
                    .collect()
            };
            let first = uses(s.pairings()[0]);
            for &pairing in s.pairings() {
                assert_eq!(uses(pairing), first);
            }
        }
        // Shards: disjoint, together the whole, each with every pairing
        // and its colours balanced.
        let s = Schedule::new(Format::RoundRobin, 4, 2, None, 5).expect("valid");
        for n in 1..5 {
            let mut all = Vec::new();
            for i in 1..=n {
                let mine: Vec<usize> = (0..s.games())
                    .filter(|&g| s.in_shard(g, Some((i, n))))
                    .collect();
                assert_eq!(mine.len(), s.shard_games(Some((i, n))), "{i}/{n}");
                let mut count: BTreeMap<(usize, usize), [usize; 2]> = BTreeMap::new();
                for &g in &mine {
                    let slot = s.slot(g);
                    count.entry((slot.first, slot.second)).or_default()[slot.first_side.index()] +=
                        1;
                }
                assert_eq!(count.len(), 6, "every pairing in shard {i}/{n}");
                let first = count.values().next().copied().expect("one");
                assert!(
                    count.values().all(|c| *c == first && c[0] == c[1]),
                    "{count:?}"
                );
                all.extend(mine);
            }
            all.sort_unstable();
            assert_eq!(all, (0..s.games()).collect::<Vec<_>>());
        }
        assert_eq!(s.shard_games(Some((11, 11))), 0);
        // Two rounds over 20 openings: each pairing plays each opening
        // twice per round (once per colour), 80 games.
        let s = Schedule::new(Format::RoundRobin, 4, 2, None, 20).expect("valid");
        assert_eq!(s.games(), 480);
        assert!(Schedule::new(Format::RoundRobin, 1, 1, None, 1).is_err());
        assert!(Schedule::new(Format::RoundRobin, 3, 0, None, 1).is_err());
        assert!(Schedule::new(Format::RoundRobin, 3, 1, Some(3), 1).is_err());
        assert!(Schedule::new(Format::RoundRobin, 3, usize::MAX, None, 1).is_err());
        assert_eq!(Format::parse("Gauntlet"), Ok(Format::Gauntlet));
        assert!(Format::parse("swiss").is_err());
    }

    #[test]
    fn equal_names_are_numbered_and_tabs_refused() {
        let spec = |t: &str| PlayerSpec::parse(t).expect("valid");
        let names = display_names(&[spec("agon"), spec("agon:name=b"), spec("agon")]).expect("ok");
        assert_eq!(names, ["agon#1", "b", "agon#3"]);
        assert!(display_names(&[spec("agon:name=a\tb"), spec("agon")]).is_err());
    }
}
