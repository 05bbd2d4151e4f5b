//! `agon match --replay FILE` and `--merge FILES…`: every record verified
//! through the rules, the score summarised as a match's, and the verified
//! games written with the match's own [`RecordWriter`].

use super::plan::Plan;
use super::record::{self, GameRecord, ReplaySummary};
use super::stats::{Sprt, elo_line, score_line};
use super::writer::RecordWriter;
use std::io::Write;
use std::path::PathBuf;

/// Game numbers listed in the missing-games warning, at most.
const MISSING_SHOWN: usize = 20;

/// What a replay or merge reads and writes.
#[derive(Clone, Debug, Default)]
pub struct ReplayConfig {
    /// The record files: one to replay, or the shards to merge.
    pub files: Vec<PathBuf>,
    /// Merge (`--merge`) rather than replay (`--replay`).
    pub merge: bool,
    /// The game the records must be (`--game`), if given.
    pub game: Option<String>,
    /// An SPRT to judge the combined games by.
    pub sprt: Option<Sprt>,
    /// Where the verified games are written as records.
    pub out: Option<PathBuf>,
    /// Where the verified games are written as PGN.
    pub pgn: Option<PathBuf>,
}

/// Verifies and summarises the files, printing to `out` each bad record,
/// the missing game numbers, then the score lines, and writes the verified
/// games to `--out`/`--pgn` when given. An error when a record is bad, none is valid, or they
/// are not games of `--game`.
pub fn run(config: &ReplayConfig, out: &mut dyn Write) -> Result<(), String> {
    let texts = config
        .files
        .iter()
        .map(|path| {
            std::fs::read_to_string(path)
                .map(|text| (path.display().to_string(), text))
                .map_err(|e| format!("cannot read '{}': {e}", path.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // A single file's errors name only the line.
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(name, text)| {
            (
                if texts.len() == 1 { "" } else { name.as_str() },
                text.as_str(),
            )
        })
        .collect();
    let summary = record::merge(&files)?;
    if let (Some(game), Some(first)) = (&config.game, summary.records.first())
        && !first.game.eq_ignore_ascii_case(game)
    {
        return Err(format!(
            "the records are {} games, not {game} (--game only checks which game they are)",
            first.game
        ));
    }
    report(config, &summary, out).map_err(|e| format!("cannot write the summary: {e}"))?;
    write_games(config, &summary.records)?;
    match summary.errors.len() {
        0 => Ok(()),
        bad => Err(format!("{bad} records failed to replay")),
    }
}

fn report(
    config: &ReplayConfig,
    summary: &ReplaySummary,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for error in &summary.errors {
        writeln!(out, "error: {error}")?;
    }
    if !summary.missing.is_empty() {
        let shown: Vec<String> = summary
            .missing
            .iter()
            .take(MISSING_SHOWN)
            .map(|n| n.to_string())
            .collect();
        let more = if summary.missing.len() > MISSING_SHOWN {
            ", …"
        } else {
            ""
        };
        writeln!(
            out,
            "warning: {} game numbers missing: {}{more}",
            summary.missing.len(),
            shown.join(", ")
        )?;
    }
    let verb = if config.merge { "Merged" } else { "Replayed" };
    writeln!(
        out,
        "{verb} {} games, {} bad records",
        summary.games,
        summary.errors.len()
    )?;
    let [first, second] = &summary.names;
    writeln!(out, "{}", score_line(first, second, &summary.score))?;
    writeln!(out, "{}", elo_line(&summary.score))?;
    if let Some(line) = summary.pairs.line() {
        writeln!(out, "{line}")?;
    }
    if let Some(sprt) = &config.sprt {
        writeln!(out, "{}", sprt.status_pairs(&summary.pairs).line())?;
    }
    Ok(())
}

/// The combined games, in game order, as the match writes them.
fn write_games(config: &ReplayConfig, records: &[GameRecord]) -> Result<(), String> {
    // Every record is written at the end, so the plan's order is unused.
    let plan = Plan {
        games: 0,
        shard: None,
    };
    if let Some(path) = &config.out {
        RecordWriter::records(path, plan)?.write_all(records)?;
    }
    if let Some(path) = &config.pgn {
        RecordWriter::pgn(path, plan)?.write_all(records)?;
    }
    Ok(())
}
