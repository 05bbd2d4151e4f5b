//! `agon analyse`: analyses every position of a file and checks the
//! expected answers written next to them.
//!
//! The file format is [`crate::tools::positions`]'s. Operations understood:
//!
//! - `bm <moves>`: the best move found must be one of these;
//! - `am <moves>`: the best move found must be none of these;
//! - `value win [plies]|loss [plies]|draw|<margin>`: the exact result for
//!   the side to move (with the plies to the end when given)
//!   (a margin is the final score difference, side to move minus opponent,
//!   for games decided by count that have an exact solver);
//! - `id <name>`: a name for the position in the output;
//! - `depth N`, `movetime N`, `nodes N`: limits for this line only.
//!
//! A line "carries a check" when it has `bm`, `am` or `value`; it is solved
//! when all its checks pass. The engine chooses its move exactly as `go`
//! does ([`crate::engine::searchers::Searchers::think`]): with
//! `search=auto` the game's perfect-play oracle answers where it can,
//! otherwise the chosen search runs; a `value` is then known only when the score is a proven win or
//! loss (`draw` passes on a score of exactly 0, which is a guess).

use crate::engine::options::{EngineOptions, SearchChoice};
use crate::engine::searchers::Searchers;
use crate::game::{Game, GameState, Proven};
use crate::games::{GameVisitor, visit_game};
use crate::search::{Limits, MATE, is_proven, score_text};
use crate::tools::positions::{PositionLine, parse_positions};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::time::{Duration, Instant};

/// Time per position when no limit is given, in ms.
pub const DEFAULT_MOVETIME_MS: u64 = 1_000;

/// Search limits per position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnalyseLimits {
    /// Time per position, ms.
    pub movetime: Option<u64>,
    /// Depth per position.
    pub depth: Option<u32>,
    /// Nodes per position.
    pub nodes: Option<u64>,
}

impl AnalyseLimits {
    /// Checks the limits as `go` does: a depth from 1 to
    /// [`MAX_DEPTH`](crate::search::alphabeta::MAX_DEPTH), a move time and a
    /// node count above 0.
    pub fn check(&self) -> Result<(), String> {
        let max_depth = crate::search::alphabeta::MAX_DEPTH;
        if let Some(depth) = self.depth
            && !(1..=max_depth).contains(&depth)
        {
            return Err(format!("depth must be from 1 to {max_depth}, not {depth}"));
        }
        if self.movetime == Some(0) {
            return Err("movetime must be above 0 ms".into());
        }
        if self.nodes == Some(0) {
            return Err("nodes must be above 0".into());
        }
        Ok(())
    }
}

/// Everything `agon analyse` needs.
#[derive(Clone, Debug)]
pub struct AnalyseConfig {
    /// The game's name.
    pub game: String,
    /// Game options, as UGI name/value pairs.
    pub options: Vec<(String, String)>,
    /// Limits for lines that set none of their own.
    pub limits: AnalyseLimits,
    /// Which search runs.
    pub search: SearchChoice,
    /// Transposition table size, MiB.
    pub hash_mb: usize,
    /// One JSON object per line instead of text.
    pub json: bool,
    /// Show a progress bar on standard error.
    pub progress: bool,
}

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnalyseSummary {
    /// Positions analysed.
    pub positions: usize,
    /// Positions carrying at least one check.
    pub checked: usize,
    /// Checked positions whose checks all passed.
    pub solved: usize,
    /// Checked positions with a check that could not be decided (a proven
    /// result whose distance the oracle does not know) and none failed.
    pub undecided: usize,
    /// Lines skipped as malformed.
    pub skipped: usize,
}

/// Parses the `--search` value, as the engine's `Search` option reads it.
pub fn parse_search(text: &str) -> Result<SearchChoice, String> {
    SearchChoice::parse(text).map_err(|e| format!("--search: {e}"))
}

/// Analyses the positions of `text`, writing one result per line to `out`,
/// then the summary; the last line is `solved X/Y` (or a JSON summary).
pub fn run(
    config: &AnalyseConfig,
    text: &str,
    out: &mut dyn Write,
) -> Result<AnalyseSummary, String> {
    if config.search == SearchChoice::Mcts {
        // MCTS plugs in here once `Mcts::search` is available.
        return Err("--search mcts is not available in this build yet".into());
    }
    visit_game(&config.game, Analyse { config, text, out })?
}

struct Analyse<'a> {
    config: &'a AnalyseConfig,
    text: &'a str,
    out: &'a mut dyn Write,
}

impl GameVisitor for Analyse<'_> {
    type Output = Result<AnalyseSummary, String>;
    fn visit<G: Game>(self) -> Result<AnalyseSummary, String> {
        let mut options = G::Options::default();
        for (name, value) in &self.config.options {
            crate::game::set_option(&mut options, name, value)?;
        }
        let lines = parse_positions(self.text);
        let bar = progress_bar(self.config.progress, lines.len() as u64);
        let mut analyser = Analyser::<G> {
            config: self.config,
            options,
            searchers: Searchers::default(),
        };
        let mut summary = AnalyseSummary::default();
        let out = self.out;
        for line in lines {
            let entry = match line {
                Ok(line) => analyser.analyse_line(&line),
                Err(e) => Err((e.line, e.message)),
            };
            let text = match &entry {
                Ok(done) => {
                    summary.positions += 1;
                    if let Some(verdict) = done.verdict() {
                        summary.checked += 1;
                        summary.solved += usize::from(verdict == Verdict::Passed);
                        summary.undecided += usize::from(verdict == Verdict::Undecided);
                    }
                    done.render(self.config.json)
                }
                Err((number, message)) => {
                    summary.skipped += 1;
                    render_error(*number, message, self.config.json)
                }
            };
            bar.suspend(|| writeln!(out, "{text}"))
                .map_err(write_error)?;
            bar.inc(1);
        }
        bar.finish_and_clear();
        for line in summary_lines(&summary, self.config.json) {
            writeln!(out, "{line}").map_err(write_error)?;
        }
        Ok(summary)
    }
}

fn write_error(e: std::io::Error) -> String {
    format!("cannot write the results: {e}")
}

fn progress_bar(show: bool, len: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} lines")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The summary lines; the last one is `solved X/Y`.
pub fn summary_lines(summary: &AnalyseSummary, json: bool) -> Vec<String> {
    if json {
        return vec![format!(
            "{{\"summary\":{{\"positions\":{},\"checked\":{},\"solved\":{},\"undecided\":{},\"skipped\":{}}}}}",
            summary.positions, summary.checked, summary.solved, summary.undecided, summary.skipped
        )];
    }
    vec![
        format!(
            "positions {}, with checks {}, failed {}, undecided {}, lines skipped {}",
            summary.positions,
            summary.checked,
            summary.checked - summary.solved - summary.undecided,
            summary.undecided,
            summary.skipped
        ),
        format!("solved {}/{}", summary.solved, summary.checked),
    ]
}

/// The expected result of a `value` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expected {
    /// A win, in this many plies when given.
    Win(Option<u32>),
    /// A loss, in this many plies when given.
    Loss(Option<u32>),
    Draw,
    Margin(i32),
}

/// What became of a check (or of a line's checks together).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The answer is right.
    Passed,
    /// The answer is wrong.
    Failed,
    /// The analysis cannot tell: the oracle proved the result but does not
    /// know in how many plies (Nim), and the check names them.
    Undecided,
}

impl Verdict {
    fn from_passed(passed: bool) -> Verdict {
        if passed {
            Verdict::Passed
        } else {
            Verdict::Failed
        }
    }

    /// The word shown after the check.
    fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "ok",
            Verdict::Failed => "FAILED",
            Verdict::Undecided => {
                "UNDECIDED (the oracle proves the result, not its distance; --search alphabeta can find it)"
            }
        }
    }
}

/// One check of a line and what became of it.
struct CheckResult {
    opcode: &'static str,
    expected: String,
    verdict: Verdict,
}

/// What the analysis of one position found.
struct Finding {
    best: Option<String>,
    score: i32,
    depth: u32,
    nodes: u64,
    time: Duration,
    pv: Vec<String>,
    /// The exact value when the oracle answered.
    proven: Option<Proven>,
    margin: Option<i32>,
}

/// A line analysed: where it came from, what was found, the checks.
struct Done {
    line: usize,
    id: Option<String>,
    fen: String,
    finding: Finding,
    checks: Vec<CheckResult>,
}

impl Done {
    /// The line's verdict when it carries a check: failed if any check
    /// failed, else undecided if any is, else passed.
    fn verdict(&self) -> Option<Verdict> {
        let verdicts = self.checks.iter().map(|c| c.verdict);
        let worst = verdicts.max_by_key(|v| match v {
            Verdict::Passed => 0,
            Verdict::Undecided => 1,
            Verdict::Failed => 2,
        })?;
        Some(worst)
    }

    fn render(&self, json: bool) -> String {
        if json {
            return self.render_json();
        }
        let f = &self.finding;
        let name = self.id.as_deref().unwrap_or(&self.fen);
        let mut text = format!(
            "line {} {name}: best {}, score {}, depth {}, nodes {}, time {} ms, pv {}",
            self.line,
            f.best.as_deref().unwrap_or("(none)"),
            score_text(f.score),
            f.depth,
            f.nodes,
            f.time.as_millis(),
            f.pv.join(" ")
        );
        for check in &self.checks {
            text.push_str(&format!(
                "; {} {} {}",
                check.opcode,
                check.expected,
                check.verdict.word()
            ));
        }
        text
    }

    fn render_json(&self) -> String {
        let f = &self.finding;
        let pv: Vec<String> = f.pv.iter().map(|m| json_string(m)).collect();
        let checks: Vec<String> = self
            .checks
            .iter()
            .map(|c| {
                format!(
                    "{{\"op\":{},\"expected\":{},\"ok\":{}}}",
                    json_string(c.opcode),
                    json_string(&c.expected),
                    json_verdict(Some(c.verdict))
                )
            })
            .collect();
        let solved = json_verdict(self.verdict());
        format!(
            "{{\"line\":{},\"id\":{},\"fen\":{},\"best\":{},\"score\":{},\"depth\":{},\"nodes\":{},\"time_ms\":{},\"pv\":[{}],\"checks\":[{}],\"solved\":{}}}",
            self.line,
            self.id.as_deref().map_or("null".to_owned(), json_string),
            json_string(&self.fen),
            f.best.as_deref().map_or("null".to_owned(), json_string),
            json_string(&score_text(f.score)),
            f.depth,
            f.nodes,
            f.time.as_millis(),
            pv.join(","),
            checks.join(","),
            solved
        )
    }
}

/// A verdict in JSON: `true`, `false`, or `null` when undecided or when
/// there is no check.
fn json_verdict(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        Some(Verdict::Passed) => "true",
        Some(Verdict::Failed) => "false",
        Some(Verdict::Undecided) | None => "null",
    }
}

fn render_error(line: usize, message: &str, json: bool) -> String {
    if json {
        format!("{{\"line\":{line},\"error\":{}}}", json_string(message))
    } else {
        format!("line {line}: skipped: {message}")
    }
}

/// A JSON string literal.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The analyser of game `G`, kept across lines.
struct Analyser<'a, G: Game> {
    config: &'a AnalyseConfig,
    options: G::Options,
    searchers: Searchers<G>,
}

/// The operations a position line may carry; any other is a mistake (a
/// misspelt `bm` would silently drop the check) and skips the line.
const KNOWN_OPCODES: [&str; 7] = ["bm", "am", "value", "id", "depth", "movetime", "nodes"];

/// A line's checks before the analysis.
struct Checks<M> {
    best: Option<Vec<M>>,
    avoid: Option<Vec<M>>,
    value: Option<Expected>,
}

impl<G: Game> Analyser<'_, G> {
    fn analyse_line(&mut self, line: &PositionLine) -> Result<Done, (usize, String)> {
        let fail = |message: String| (line.line, message);
        let position = G::from_fen(&line.fen, &self.options)
            .map_err(|e| fail(format!("bad position: {e}")))?;
        let state = GameState::new(position);
        if let Some(outcome) = state.outcome() {
            return Err(fail(format!("the game is over ({})", outcome.ugi_name())));
        }
        if let Some(op) = line
            .operations
            .iter()
            .find(|op| !KNOWN_OPCODES.contains(&op.opcode.as_str()))
        {
            return Err(fail(format!(
                "unknown operation '{}' (known: {})",
                op.opcode,
                KNOWN_OPCODES.join(", ")
            )));
        }
        let checks = read_checks(&state.position, line).map_err(fail)?;
        let limits = line_limits(self.config.limits, line).map_err(fail)?;
        let finding = self.analyse(&state, limits).map_err(fail)?;
        Ok(Done {
            line: line.line,
            // An empty `; id` names nothing: the position string stands in.
            id: line
                .operation("id")
                .map(|words| words.join(" "))
                .filter(|id| !id.is_empty()),
            fen: line.fen.clone(),
            checks: judge(&state.position, &checks, &finding),
            finding,
        })
    }

    fn analyse(&mut self, state: &GameState<G>, limits: AnalyseLimits) -> Result<Finding, String> {
        let start = Instant::now();
        let mut search_limits = match limits.movetime {
            Some(ms) => Limits::movetime(Duration::from_millis(ms)),
            None => Limits::infinite(),
        };
        search_limits.depth = limits.depth;
        search_limits.nodes = limits.nodes;
        // Each position is analysed afresh, as a test suite expects.
        self.searchers.clear();
        let options = EngineOptions {
            search: self.config.search,
            hash_mb: self.config.hash_mb,
            ..EngineOptions::default()
        };
        let answer = self
            .searchers
            .think(state, &search_limits, &options, &mut |_| {})?;
        let position = &state.position;
        Ok(Finding {
            best: answer.best.map(|mv| position.move_to_string(mv)),
            score: answer.score,
            depth: answer.depth,
            nodes: answer.nodes,
            time: start.elapsed(),
            pv: answer.pv,
            proven: answer.solved.map(|s| s.value),
            margin: answer.solved.and_then(|s| s.margin),
        })
    }
}

/// The line's limits, or the run's when the line sets none; a default move
/// time when neither does.
fn line_limits(run: AnalyseLimits, line: &PositionLine) -> Result<AnalyseLimits, String> {
    let number = |opcode: &str| -> Result<Option<u64>, String> {
        match line.operation(opcode) {
            None => Ok(None),
            Some([value]) => crate::game::parse_counter::<u64>(value, opcode)
                .ok()
                .filter(|&v| v > 0)
                .map(Some)
                .ok_or_else(|| format!("{opcode} needs a positive integer, not '{value}'")),
            Some(_) => Err(format!("{opcode} needs exactly one number")),
        }
    };
    let own = AnalyseLimits {
        movetime: number("movetime")?,
        depth: match number("depth")? {
            Some(depth) => Some(u32::try_from(depth).map_err(|_| {
                format!(
                    "depth must be from 1 to {}, not {depth}",
                    crate::search::alphabeta::MAX_DEPTH
                )
            })?),
            None => None,
        },
        nodes: number("nodes")?,
    };
    own.check()?;
    let mut limits = if own == AnalyseLimits::default() {
        run
    } else {
        own
    };
    if limits == AnalyseLimits::default() {
        limits.movetime = Some(DEFAULT_MOVETIME_MS);
    }
    Ok(limits)
}

/// Reads `bm`, `am` and `value`; moves must be legal here.
fn read_checks<G: Game>(position: &G, line: &PositionLine) -> Result<Checks<G::Move>, String> {
    let moves = |opcode: &str| -> Result<Option<Vec<G::Move>>, String> {
        let Some(words) = line.operation(opcode) else {
            return Ok(None);
        };
        if words.is_empty() {
            return Err(format!("{opcode} needs at least one move"));
        }
        words
            .iter()
            .map(|word| {
                let mv = position
                    .parse_move(word)
                    .map_err(|e| format!("{opcode} move '{word}': {e}"))?;
                if position.is_legal(mv) {
                    Ok(mv)
                } else {
                    Err(format!("{opcode} move '{word}' is illegal here"))
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    let value = match line.operation("value") {
        None => None,
        Some(words) => Some(parse_expected(words)?),
    };
    Ok(Checks {
        best: moves("bm")?,
        avoid: moves("am")?,
        value,
    })
}

/// Reads a `value` operation: `win [plies]`, `loss [plies]`, `draw` or a
/// margin.
fn parse_expected(words: &[String]) -> Result<Expected, String> {
    let plies = |text: &String| {
        text.parse::<u32>()
            .map_err(|_| format!("value plies must be a number, not '{text}'"))
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["win"] => Ok(Expected::Win(None)),
        ["loss"] => Ok(Expected::Loss(None)),
        ["win", n] => Ok(Expected::Win(Some(plies(&n.to_string())?))),
        ["loss", n] => Ok(Expected::Loss(Some(plies(&n.to_string())?))),
        ["draw"] => Ok(Expected::Draw),
        [other] => other
            .parse()
            .map(Expected::Margin)
            .map_err(|_| format!("value must be win, loss, draw or a margin, not '{other}'")),
        _ => Err("value must be 'win [plies]', 'loss [plies]', 'draw' or a margin".into()),
    }
}

/// Judges the checks against what the analysis found.
fn judge<G: Game>(position: &G, checks: &Checks<G::Move>, finding: &Finding) -> Vec<CheckResult> {
    let best = finding
        .best
        .as_deref()
        .and_then(|text| position.parse_move(text).ok());
    let listed = |moves: &[G::Move]| -> String {
        let texts: Vec<String> = moves.iter().map(|&m| position.move_to_string(m)).collect();
        texts.join(" ")
    };
    let mut results = Vec::new();
    if let Some(moves) = &checks.best {
        results.push(CheckResult {
            opcode: "bm",
            expected: listed(moves),
            verdict: Verdict::from_passed(best.is_some_and(|b| moves.contains(&b))),
        });
    }
    if let Some(moves) = &checks.avoid {
        results.push(CheckResult {
            opcode: "am",
            expected: listed(moves),
            verdict: Verdict::from_passed(best.is_some_and(|b| !moves.contains(&b))),
        });
    }
    if let Some(expected) = checks.value {
        let (text, verdict) = judge_value(expected, finding);
        results.push(CheckResult {
            opcode: "value",
            expected: text,
            verdict,
        });
    }
    results
}

fn judge_value(expected: Expected, finding: &Finding) -> (String, Verdict) {
    let score = finding.score;
    let proven_win = matches!(finding.proven, Some(Proven::Win(_)))
        || (finding.proven.is_none() && is_proven(score) && score > 0);
    let proven_loss = matches!(finding.proven, Some(Proven::Loss(_)))
        || (finding.proven.is_none() && is_proven(score) && score < 0);
    // Plies to the end of a proven result: the oracle's (which may not know
    // them), else the mate score's.
    let plies = match finding.proven {
        Some(Proven::Win(plies) | Proven::Loss(plies)) => plies,
        _ => is_proven(score).then(|| (MATE - score.abs()) as u32),
    };
    let with_plies = |word: &str, wanted: Option<u32>, proven: bool| match wanted {
        None => (word.to_owned(), Verdict::from_passed(proven)),
        // The right result from an oracle that does not count plies: its
        // `mate 1` is a placeholder, so the distance cannot be judged.
        Some(n) if proven && plies.is_none() => (format!("{word} {n}"), Verdict::Undecided),
        Some(n) => (
            format!("{word} {n}"),
            Verdict::from_passed(proven && plies == Some(n)),
        ),
    };
    match expected {
        Expected::Win(wanted) => with_plies("win", wanted, proven_win),
        Expected::Loss(wanted) => with_plies("loss", wanted, proven_loss),
        Expected::Draw => (
            "draw".into(),
            Verdict::from_passed(match finding.proven {
                Some(value) => value == Proven::Draw,
                None => score == 0,
            }),
        ),
        Expected::Margin(m) => (
            m.to_string(),
            Verdict::from_passed(finding.margin == Some(m)),
        ),
    }
}
