//! Game records of `agon match --out FILE`, and `--replay FILE`.
//!
//! One game per line, nine fields separated by tabs (see
//! protocol.md, "Game record file"):
//!
//! ```text
//! <number> <game> <options> <x player> <o player> <start> <moves> <result> <reason>
//! ```
//!
//! `options` is `Name=Value,…` or `-`, a value's own `,` and `%` written
//! `%2C` and `%25` (CTOR's `SecretX=3%2C15%2C21%2C42%2C48`; files written
//! before that escape, with bare commas inside a value, are still read: a
//! piece without `=` continues the value before it); `moves` the moves separated by
//! spaces, or `-` for none; `result` is `p1win` (side `x` won), `p2win` or
//! `draw`; `reason` says how the game ended (`rules`, `repetition`,
//! `adjudication: …`, `x forfeits: …`). On a clock a tenth field
//! `clocks=<x>/<o>` gives the milliseconds left on each clock at the end.
//! Lines starting with `#` are comments.

use super::stats::{Pentanomial, Results, Score};
use crate::game::{Game, GameOptions, GameState, Outcome, Player};
use crate::games::{GameVisitor, visit_game};

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game number in the match, from 1.
    pub number: usize,
    /// The game's name (`nim`, `ataxx`, …).
    pub game: String,
    /// The game options the match set, as name/value pairs.
    pub options: Vec<(String, String)>,
    /// Names of the players of side `x` and side `o`.
    pub players: [String; 2],
    /// The start position.
    pub start: String,
    /// The moves played, in canonical notation.
    pub moves: Vec<String>,
    /// The result.
    pub outcome: Outcome,
    /// How the game ended.
    pub reason: String,
    /// Time left on each clock (`x`, `o`) at the end, in ms, when the
    /// match ran on a clock.
    pub clocks: Option<[u64; 2]>,
}

/// Reason written for a game ended by the position's own rules.
pub const REASON_RULES: &str = "rules";
/// Reason written for a game ended by the repetition rule.
pub const REASON_REPETITION: &str = "repetition";
/// How the reason of a game stopped at the ply limit starts.
pub const REASON_ADJUDICATION: &str = "adjudication";
/// How the reason of a game ended by the engines' scores starts (see
/// [`super::adjudication`]); unlike the ply limit's, its result is the
/// engines' call, which a replay cannot check.
pub const REASON_SCORE_ADJUDICATION: &str = "score adjudication";

const FIELDS: usize = 9;
/// The optional tenth field: `clocks=<x ms>/<o ms>` left at the end.
const CLOCKS_PREFIX: &str = "clocks=";

/// The field list written at the top of a record file.
pub const FORMAT_LINE: &str =
    "tab-separated: number game options x-player o-player start moves result reason [clocks]";

/// Replaces tabs and line ends, which would break the line format.
fn clean(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// An option value as the options field writes it: its `%` and `,`
/// escaped, so that the commas between options are the only bare ones.
fn escape_value(value: &str) -> String {
    value.replace('%', "%25").replace(',', "%2C")
}

/// The value [`escape_value`] wrote.
fn unescape_value(text: &str) -> Result<String, String> {
    let mut value = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        value.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3);
        match code.map(str::to_ascii_uppercase).as_deref() {
            Some("25") => value.push('%'),
            Some("2C") => value.push(','),
            _ => {
                return Err(format!("option value '{text}': '%' must start %25 or %2C"));
            }
        }
        rest = &rest[at + 3..];
    }
    value.push_str(rest);
    Ok(value)
}

/// Reads the options field: `-` or `Name=Value,…` with escaped values. A
/// piece without `=` continues the value before it, as older files wrote a
/// value's commas bare (`SecretX=3,15,21,42,48`).
fn parse_options(field: &str) -> Result<Vec<(String, String)>, String> {
    if field == "-" || field.is_empty() {
        return Ok(Vec::new());
    }
    let mut options: Vec<(String, String)> = Vec::new();
    for piece in field.split(',') {
        match (piece.split_once('='), options.last_mut()) {
            (Some((name, value)), _) if !name.trim().is_empty() => {
                options.push((name.trim().to_owned(), value.trim().to_owned()))
            }
            (None, Some((_, value))) => {
                value.push(',');
                value.push_str(piece.trim());
            }
            _ => return Err(format!("option '{piece}' must be Name=Value")),
        }
    }
    options
        .into_iter()
        .map(|(name, value)| Ok((name, unescape_value(&value)?)))
        .collect()
}

impl GameRecord {
    /// The record line (without line end).
    pub fn to_line(&self) -> String {
        let options = if self.options.is_empty() {
            "-".to_owned()
        } else {
            let pairs: Vec<String> = self
                .options
                .iter()
                .map(|(n, v)| format!("{n}={}", escape_value(v)))
                .collect();
            pairs.join(",")
        };
        let moves = if self.moves.is_empty() {
            "-".to_owned()
        } else {
            self.moves.join(" ")
        };
        [
            self.number.to_string(),
            clean(&self.game),
            clean(&options),
            clean(&self.players[0]),
            clean(&self.players[1]),
            clean(&self.start),
            clean(&moves),
            self.outcome.ugi_name().to_owned(),
            clean(&self.reason),
        ]
        .into_iter()
        .chain(self.clocks.map(|[x, o]| format!("{CLOCKS_PREFIX}{x}/{o}")))
        .collect::<Vec<_>>()
        .join("\t")
    }

    /// Reads a record line.
    pub fn parse(line: &str) -> Result<GameRecord, String> {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != FIELDS && fields.len() != FIELDS + 1 {
            return Err(format!(
                "a record has {FIELDS} tab-separated fields (and optionally the clocks), this line has {}",
                fields.len()
            ));
        }
        let clocks = match fields.get(FIELDS) {
            None => None,
            Some(field) => {
                let bad = || format!("clocks must be {CLOCKS_PREFIX}<ms>/<ms>, not '{field}'");
                let (x, o) = field
                    .trim()
                    .strip_prefix(CLOCKS_PREFIX)
                    .and_then(|t| t.split_once('/'))
                    .ok_or_else(bad)?;
                Some([x.parse().map_err(|_| bad())?, o.parse().map_err(|_| bad())?])
            }
        };
        let number = fields[0]
            .trim()
            .parse()
            .map_err(|_| format!("bad game number '{}'", fields[0]))?;
        let options = parse_options(fields[2].trim())?;
        let moves = match fields[6].trim() {
            "-" | "" => Vec::new(),
            text => text.split_whitespace().map(str::to_owned).collect(),
        };
        let outcome = match fields[7].trim() {
            "p1win" => Outcome::Win(Player::X),
            "p2win" => Outcome::Win(Player::O),
            "draw" => Outcome::Draw,
            other => {
                return Err(format!(
                    "result must be p1win, p2win or draw, not '{other}'"
                ));
            }
        };
        Ok(GameRecord {
            number,
            game: fields[1].trim().to_owned(),
            options,
            players: [fields[3].to_owned(), fields[4].to_owned()],
            start: fields[5].trim().to_owned(),
            moves,
            outcome,
            reason: fields[8].trim().to_owned(),
            clocks,
        })
    }

    /// Replays the game through the rules: every move must be legal; a game
    /// the rules finished must carry their result, and one they did not
    /// finish must not claim to be finished by them.
    pub fn verify(&self) -> Result<(), String> {
        visit_game(&self.game, Verify { record: self })?
    }
}

/// A record's game played through the rules.
pub(super) struct Replayed<G: Game> {
    /// The game after its moves.
    pub state: GameState<G>,
    /// The side that played each move.
    pub movers: Vec<Player>,
    /// Whether it started from the game's start position.
    pub from_start: bool,
}

/// Plays `record`'s moves from its start under its options; an error names
/// the first move that is unreadable, illegal or after the end.
pub(super) fn replay_moves<G: Game>(record: &GameRecord) -> Result<Replayed<G>, String> {
    let mut options = G::Options::default();
    for (name, value) in &record.options {
        crate::game::set_option(&mut options, name, value)?;
    }
    let start = G::from_fen(&record.start, &options)
        .map_err(|e| format!("bad start position '{}': {e}", record.start))?;
    let from_start = start.fen() == G::start(&options).fen();
    let mut state = GameState::new(start);
    let mut movers = Vec::with_capacity(record.moves.len());
    for (index, text) in record.moves.iter().enumerate() {
        if let Some(outcome) = state.outcome() {
            return Err(format!(
                "move {} '{text}' comes after the end of the game ({})",
                index + 1,
                outcome.ugi_name()
            ));
        }
        let mv = state
            .position
            .parse_move(text)
            .map_err(|e| format!("move {} '{text}': {e}", index + 1))?;
        if !state.position.is_legal(mv) {
            return Err(format!("move {} '{text}' is illegal", index + 1));
        }
        movers.push(state.position.side_to_move());
        state.play(mv);
    }
    Ok(Replayed {
        state,
        movers,
        from_start,
    })
}

struct Verify<'a> {
    record: &'a GameRecord,
}

impl GameVisitor for Verify<'_> {
    type Output = Result<(), String>;
    fn visit<G: Game>(self) -> Result<(), String> {
        let record = self.record;
        let Replayed { state, .. } = replay_moves::<G>(record)?;
        let by_rules = record.reason == REASON_RULES || record.reason == REASON_REPETITION;
        match state.outcome() {
            Some(outcome) if outcome != record.outcome => Err(format!(
                "the rules give {} but the record says {}",
                outcome.ugi_name(),
                record.outcome.ugi_name()
            )),
            None if by_rules => Err(format!(
                "the record says the rules ended the game, but after its moves it is not over ({})",
                state.position.fen()
            )),
            None if record.reason.starts_with(REASON_ADJUDICATION)
                && state.position.adjudicate() != record.outcome =>
            {
                Err(format!(
                    "adjudication gives {} but the record says {}",
                    state.position.adjudicate().ugi_name(),
                    record.outcome.ugi_name()
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A line of a record file that holds something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordLine<'a> {
    /// A `#` line: a comment or a header.
    Comment(&'a str),
    /// A game record that reads and replays through the rules.
    Record(GameRecord),
}

/// The lines of a record file's `text` that hold something, each with its
/// line number (from 1); blank lines are skipped. With `cut_short_tail`, a
/// last line without its line end that does not read is dropped: the run
/// writing the file was killed in the middle of it, and a resumed run plays
/// that game again.
pub fn record_lines(
    text: &str,
    cut_short_tail: bool,
) -> impl Iterator<Item = (usize, Result<RecordLine<'_>, String>)> + '_ {
    let last = text.lines().count();
    let unfinished = cut_short_tail && !text.ends_with('\n');
    text.lines().enumerate().filter_map(move |(index, line)| {
        let number = index + 1;
        if line.trim().is_empty() {
            return None;
        }
        if line.starts_with('#') {
            return Some((number, Ok(RecordLine::Comment(line))));
        }
        match GameRecord::parse(line).and_then(|r| r.verify().map(|()| r)) {
            Err(_) if unfinished && number == last => None,
            read => Some((number, read.map(RecordLine::Record))),
        }
    })
}

/// The outcome of replaying a record file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplaySummary {
    /// The two players, first as the `x` player of the first game.
    pub names: [String; 2],
    /// Result of the first player.
    pub score: Score,
    /// The first player's results by opening pair.
    pub pairs: Pentanomial,
    /// The verified records, in game order.
    pub records: Vec<GameRecord>,
    /// Games read and verified.
    pub games: usize,
    /// Game numbers missing below the highest one (a shard not merged, an
    /// SPRT stop).
    pub missing: Vec<usize>,
    /// Problems found, each with its line number.
    pub errors: Vec<String>,
}

/// Reads and verifies every record of a file; the score is over the games
/// that verified.
pub fn replay(text: &str) -> Result<ReplaySummary, String> {
    merge(&[("", text)])
}

/// Reads and verifies the records of several files (`(name, text)`, the
/// shards of one match) as one match: every game number may appear once,
/// and the score and pairs are over every game that verified. Errors name
/// the file (when named) and line; when no record verifies, the error
/// lists every line's reason.
pub fn merge(files: &[(&str, &str)]) -> Result<ReplaySummary, String> {
    let mut names: Option<[String; 2]> = None;
    let mut match_of: Option<(String, Vec<(String, String)>)> = None;
    let mut results = Results::default();
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for &(file, text) in files {
        let place = |number: usize| {
            if file.is_empty() {
                format!("line {number}")
            } else {
                format!("{file}: line {number}")
            }
        };
        for (number, line) in record_lines(text, false) {
            let record = match line {
                Ok(RecordLine::Record(record)) => record,
                Ok(RecordLine::Comment(_)) => continue,
                Err(e) => {
                    errors.push(format!("{}: {e}", place(number)));
                    continue;
                }
            };
            let options = match_options(&record);
            let first = match_of.get_or_insert_with(|| (record.game.clone(), options.clone()));
            if (&record.game, &options) != (&first.0, &first.1) {
                errors.push(format!(
                    "{}: game {} is {} with options {:?}, not the match's {} with {:?}",
                    place(number),
                    record.number,
                    record.game,
                    record.options,
                    first.0,
                    first.1
                ));
                continue;
            }
            let pair = names.get_or_insert_with(|| record.players.clone());
            let Some(first_side) = first_player_side(&record, pair) else {
                errors.push(format!(
                    "{}: players '{}' and '{}' are not the match's two players",
                    place(number),
                    record.players[0],
                    record.players[1]
                ));
                continue;
            };
            if !results.add(record.number, record.outcome.sign_for(first_side)) {
                errors.push(format!(
                    "{}: game {} appears twice",
                    place(number),
                    record.number
                ));
                continue;
            }
            records.push(record);
        }
    }
    records.sort_by_key(|r| r.number);
    let Some(names) = names else {
        let mut message = String::from("no valid game record");
        for error in &errors {
            message.push_str("\nerror: ");
            message.push_str(error);
        }
        return Err(message);
    };
    Ok(ReplaySummary {
        names,
        score: results.score(),
        pairs: results.pentanomial(),
        games: records.len(),
        missing: results.missing(),
        records,
        errors,
    })
}

/// The options that make `record`'s game part of a match: all but those
/// the referee deals anew for every game (CTOR's `SecretX`/`SecretO` when
/// `Secrets` is on).
fn match_options(record: &GameRecord) -> Vec<(String, String)> {
    let dealt = visit_game(&record.game, DealtPerGame(&record.options))
        .ok()
        .flatten()
        .unwrap_or_default();
    record
        .options
        .iter()
        .filter(|(name, _)| !dealt.iter().any(|d| d.eq_ignore_ascii_case(name)))
        .cloned()
        .collect()
}

/// The names of the options dealt per game under these options.
struct DealtPerGame<'a>(&'a [(String, String)]);

impl GameVisitor for DealtPerGame<'_> {
    type Output = Option<[&'static str; 2]>;
    fn visit<G: Game>(self) -> Option<[&'static str; 2]> {
        let mut options = G::Options::default();
        for (name, value) in self.0 {
            options.set(name, value).ok()?;
        }
        options.hidden_option_names()
    }
}

/// The side the match's first player (`pair[0]`) had in `record`: found by
/// name, or by the alternation of colours when both carry the same name.
fn first_player_side(record: &GameRecord, pair: &[String; 2]) -> Option<Player> {
    if record.players[0] == record.players[1] {
        Some(if record.number % 2 == 1 {
            Player::X
        } else {
            Player::O
        })
    } else if record.players[0] == pair[0] && record.players[1] == pair[1] {
        Some(Player::X)
    } else if record.players[0] == pair[1] && record.players[1] == pair[0] {
        Some(Player::O)
    } else {
        None
    }
}
