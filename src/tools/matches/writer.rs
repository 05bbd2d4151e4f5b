//! Writes a match's games as they finish, in game order: the record file
//! (`--out`) and PGN (`--pgn`), for a match being played and for the games
//! of a replay or merge.

use super::pgn;
use super::plan::Plan;
use super::record::{self, GameRecord};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How a [`RecordWriter`] writes one game.
type Render = Box<dyn Fn(&GameRecord) -> Result<String, String>>;

/// Writes records (or PGN) in game order as soon as every earlier game of
/// the plan is in.
pub struct RecordWriter {
    file: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    render: Render,
    /// The game indices in the order they are written.
    plan: Plan,
    /// How many of the plan are written.
    next: usize,
    written: std::collections::BTreeSet<usize>,
    failed: Option<String>,
}

impl RecordWriter {
    /// `--out`: the tab-separated record file.
    pub fn records(path: &PathBuf, plan: Plan) -> Result<RecordWriter, String> {
        let mut writer = Self::create(path, plan, Box::new(|r| Ok(r.to_line())))?;
        writer.line(&format!("# agon match records, {}", record::FORMAT_LINE));
        Ok(writer)
    }

    /// `--pgn`: one PGN record per game.
    pub fn pgn(path: &PathBuf, plan: Plan) -> Result<RecordWriter, String> {
        let date = pgn::today();
        let render = Box::new(move |r: &GameRecord| {
            pgn::pgn_game(r, "agon match", &date).map(|t| t.trim_end().to_owned() + "\n")
        });
        Self::create(path, plan, render)
    }

    fn create(path: &PathBuf, plan: Plan, render: Render) -> Result<RecordWriter, String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot create '{}': {e}", path.display()))?;
        Ok(RecordWriter {
            file: std::io::BufWriter::new(file),
            path: path.clone(),
            render,
            plan,
            next: 0,
            written: std::collections::BTreeSet::new(),
            failed: None,
        })
    }

    /// Writes a comment line, `# text` (a record file's header).
    pub fn comment(&mut self, text: &str) {
        self.line(&format!("# {text}"));
    }

    fn line(&mut self, text: &str) {
        if self.failed.is_none()
            && let Err(e) = writeln!(self.file, "{text}").and_then(|()| self.file.flush())
        {
            self.failed = Some(format!("cannot write '{}': {e}", self.path.display()));
        }
    }

    fn write(&mut self, record: &GameRecord) {
        if self.written.insert(record.number) {
            match (self.render)(record) {
                Ok(text) => self.line(&text),
                Err(e) => self.failed = Some(format!("game {}: {e}", record.number)),
            }
        }
    }

    /// Writes the records that continue the written prefix of the plan.
    pub fn write_ready(&mut self, pending: &BTreeMap<usize, GameRecord>) {
        while let Some(record) = self.plan.get(self.next).and_then(|i| pending.get(&i)) {
            self.write(record);
            self.next += 1;
        }
    }

    /// At the end: writes every record not written yet (after an SPRT stop
    /// some earlier games may be missing; the numbers say which).
    pub fn write_all(&mut self, records: &[GameRecord]) -> Result<(), String> {
        for record in records {
            self.write(record);
        }
        self.failed.take().map_or(Ok(()), Err)
    }

    /// Moves what was written so far (to a temporary file, see
    /// [`temporary_path`]) over `target`, then goes on writing there: the
    /// old file is replaced whole or not at all, so a run stopped while it
    /// rewrites a file it resumes from loses nothing.
    pub fn rename_to(&mut self, target: &Path) -> Result<(), String> {
        self.file
            .flush()
            .and_then(|()| std::fs::rename(&self.path, target))
            .map_err(|e| format!("cannot write '{}': {e}", target.display()))?;
        self.path = target.to_path_buf();
        Ok(())
    }
}

/// The writers of a run's `--out` records (opened with `header` as its
/// first comment, if any) and `--pgn`, each file written anew with the
/// games `resumed` from it: first to a temporary file, renamed over the
/// old one once they are all in, so that a stop meanwhile loses nothing.
pub fn resuming_writers(
    out: Option<&PathBuf>,
    pgn: Option<&PathBuf>,
    plan: Plan,
    header: Option<&str>,
    resumed: &[GameRecord],
) -> Result<Vec<RecordWriter>, String> {
    let mut writers = Vec::new();
    if let Some(path) = out {
        let mut writer = RecordWriter::records(&temporary_path(path), plan)?;
        if let Some(header) = header {
            writer.comment(header);
        }
        writers.push((writer, path));
    }
    if let Some(path) = pgn {
        writers.push((RecordWriter::pgn(&temporary_path(path), plan)?, path));
    }
    writers
        .into_iter()
        .map(|(mut writer, path)| {
            writer.write_all(resumed)?;
            writer.rename_to(path)?;
            Ok(writer)
        })
        .collect()
}

/// `path` with `.tmp` added to its name, beside it (so that a rename over
/// `path` stays on one file system).
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}
