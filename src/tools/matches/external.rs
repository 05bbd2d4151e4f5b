//! An external engine process driven over UGI or UAI.
//!
//! The engine's standard output is read by a thread that forwards every
//! line over a channel, so that every wait has a deadline
//! (`recv_timeout`): an engine that falls silent can never hang the match.
//! Its standard error is discarded. A process that timed out or crashed is
//! killed and started again before the next game.

use super::adjudication::EngineScore;
use super::forfeit::Forfeit;
use super::spec::{Dialect, ExternalSpec};
use crate::search::time::GoParams;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `ugi` or `isready`, by default.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a process may take to exit after `quit`.
const QUIT_GRACE: Duration = Duration::from_millis(300);
/// How long a write that failed waits for the engine's exit to be seen.
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// A running process and the channel of its output lines, each with the
/// moment the reading thread got it.
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(Instant, String)>,
}

/// The process ids of the engines this program runs (a [`Running`] each),
/// so that a tool ending on a signal can stop them all: an engine is not
/// bound to exit when its input closes (Zataxx then spins on end of file).
static ENGINE_PIDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

impl Running {
    fn new(child: Child, stdin: ChildStdin, lines: Receiver<(Instant, String)>) -> Running {
        ENGINE_PIDS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(child.id());
        Running {
            child,
            stdin,
            lines,
        }
    }
}

impl Running {
    /// The process's exit status if it has exited, reaping it. The
    /// registry's lock is held while the process is reaped and its id
    /// removed, so [`kill_all_engines`] never signals a reaped id (which
    /// the system may have given to another process).
    fn try_reap(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        let mut pids = ENGINE_PIDS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let status = self.child.try_wait()?;
        if status.is_some() {
            let id = self.child.id();
            pids.retain(|&pid| pid != id);
        }
        Ok(status)
    }

    /// Kills the process and reaps it (under the registry's lock, as
    /// [`Running::try_reap`]).
    fn kill_and_reap(&mut self) {
        let mut pids = ENGINE_PIDS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let id = self.child.id();
        pids.retain(|&pid| pid != id);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A process already reaped is not signalled again: `Child::kill`
        // knows its status.
        self.kill_and_reap();
    }
}

/// Kills every engine process this program has started and not yet
/// stopped (for a tool that is about to exit on a signal).
pub fn kill_all_engines() {
    let pids = ENGINE_PIDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for &pid in pids.iter() {
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(pid) {
            // SAFETY: `kill` only sends a signal; `pid` is a child of this
            // program that has not been reaped (every reaping removes its id
            // under this lock, see `Running::try_reap`), so the id cannot
            // belong to another process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Why a wait for a line ended without the line.
enum WaitError {
    Timeout,
    Closed,
    /// The match stopped ([`super::interrupt`]).
    Abandoned,
}

/// How often a wait looks at the match's stop flag.
const ABANDON_POLL: Duration = Duration::from_millis(50);
/// How often an analysis looks at its stop flag between `info` lines.
const ANALYSIS_POLL: Duration = Duration::from_millis(10);
/// How long an analysing engine may take to answer `stop`.
const STOP_GRACE: Duration = Duration::from_millis(2_000);

/// An external engine, started on first use and restarted after a failure.
pub struct ExternalEngine {
    spec: ExternalSpec,
    game: String,
    options: Vec<(String, String)>,
    running: Option<Running>,
    handshake_timeout: Duration,
    /// The score of the last `info` line of the last move asked for.
    last_score: Option<EngineScore>,
    /// The match's stop flag: once set, every wait ends (see
    /// [`super::interrupt`]).
    stop: Option<Arc<AtomicBool>>,
    /// When the last `bestmove` was read from the engine's output.
    answered_at: Option<Instant>,
}

impl ExternalEngine {
    /// An engine that will play `game` with these game options. Nothing is
    /// started yet.
    pub fn new(spec: ExternalSpec, game: &str, options: &[(String, String)]) -> ExternalEngine {
        ExternalEngine {
            spec,
            game: game.to_owned(),
            options: options.to_vec(),
            running: None,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            last_score: None,
            stop: None,
            answered_at: None,
        }
    }

    /// The engine with the match's stop flag: once it is set, a wait for
    /// the engine's answer ends and the engine is stopped.
    pub fn with_stop(mut self, stop: Option<&Arc<AtomicBool>>) -> ExternalEngine {
        self.stop = stop.cloned();
        self
    }

    /// Sets how long the engine may take to answer `ugi` or `isready`.
    pub fn with_handshake_timeout(mut self, timeout: Duration) -> ExternalEngine {
        self.handshake_timeout = timeout;
        self
    }

    /// Starts the process and runs the handshake, unless it is running.
    pub fn ensure_running(&mut self) -> Result<(), Forfeit> {
        if self.running.is_none() {
            self.start()?;
        }
        Ok(())
    }

    /// Starts the process if needed, sets this game's own `options` (its
    /// secret squares), then `uginewgame` and `isready`.
    pub fn new_game(&mut self, options: &[(String, String)]) -> Result<(), Forfeit> {
        self.ensure_running()?;
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        let command = match self.spec.dialect {
            Dialect::Ugi => "uginewgame",
            Dialect::Uai => "uainewgame",
        };
        self.send(command)?;
        self.sync()
    }

    /// Asks for a move: `position fen <start> moves …`, then `go …`, and
    /// waits until `wait` has passed for `bestmove`, or until the match's
    /// stop flag is set (then the engine is stopped, and started again on
    /// next use).
    pub fn best_move(
        &mut self,
        start: &str,
        moves: &[String],
        go: &GoParams,
        wait: Duration,
    ) -> Result<String, Forfeit> {
        self.send_position(start, moves)?;
        let go = GoParams {
            nodes: self.spec.nodes.or(go.nodes),
            ..go.clone()
        };
        self.send(&go_command(&go, self.spec.dialect))?;
        let deadline = Instant::now() + wait;
        let mut score = None;
        let answer = self.wait_for(deadline, |line| {
            score = EngineScore::from_info(line).or(score);
            line.starts_with("bestmove")
        });
        self.last_score = score;
        match answer {
            Ok(line) => match line.split_whitespace().nth(1) {
                Some(mv) => Ok(mv.to_owned()),
                None => Err(Forfeit::IllegalMove("'bestmove' without a move".into())),
            },
            Err(WaitError::Timeout) => {
                self.kill();
                Err(Forfeit::Timeout(format!(
                    "no bestmove within {} ms",
                    wait.as_millis()
                )))
            }
            Err(WaitError::Closed) => {
                self.kill();
                Err(Forfeit::Crash("the engine exited while thinking".into()))
            }
            Err(WaitError::Abandoned) => {
                // Still thinking: `quit` may wait for its search.
                self.kill();
                Err(Forfeit::Crash("the match stopped while it thought".into()))
            }
        }
    }

    /// Analyses a position without limit (`go infinite`), handing every
    /// `info` line to `on_info`, until `until` is set; then sends `stop`
    /// and waits briefly for the `bestmove` that ends the search. An engine
    /// that ends the search by itself (a solved position) returns early; one
    /// that exits, or gives no `bestmove` after `stop`, is stopped and
    /// started again on next use.
    pub fn analyse(
        &mut self,
        start: &str,
        moves: &[String],
        until: &AtomicBool,
        on_info: &mut dyn FnMut(&str),
    ) -> Result<(), Forfeit> {
        self.ensure_running()?;
        self.send_position(start, moves)?;
        self.send("go infinite")?;
        loop {
            if until.load(Ordering::Relaxed) {
                break;
            }
            let running = self
                .running
                .as_mut()
                .ok_or_else(|| Forfeit::Crash("the engine is not running".into()))?;
            match running.lines.recv_timeout(ANALYSIS_POLL) {
                Ok((_, line)) if line.starts_with("bestmove") => return Ok(()),
                Ok((_, line)) if line.starts_with("info") => on_info(&line),
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.kill();
                    return Err(Forfeit::Crash("the engine exited while analysing".into()));
                }
            }
        }
        self.send("stop")?;
        let answer = self.wait_for(Instant::now() + STOP_GRACE, |line| {
            line.starts_with("bestmove")
        });
        if answer.is_err() {
            self.kill();
            return Err(Forfeit::Timeout(format!(
                "no bestmove within {} ms of stop",
                STOP_GRACE.as_millis()
            )));
        }
        Ok(())
    }

    /// `position fen <start> [moves …]`.
    fn send_position(&mut self, start: &str, moves: &[String]) -> Result<(), Forfeit> {
        let mut position = format!("position fen {start}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position)
    }

    /// The score the engine gave in its last `info` line before its last
    /// `bestmove` (none if it gave none).
    pub fn last_score(&self) -> Option<EngineScore> {
        self.last_score
    }

    /// When the line that ended the last wait (after [`Self::best_move`],
    /// its `bestmove`) was read from the engine's output, before it
    /// crossed the channel to the waiting thread.
    pub fn answered_at(&self) -> Option<Instant> {
        self.answered_at
    }

    /// Stops and forgets the process (it is started again on next use).
    pub fn kill(&mut self) {
        if let Some(mut running) = self.running.take() {
            running.kill_and_reap();
        }
    }

    fn start(&mut self) -> Result<(), Forfeit> {
        let mut command = Command::new(&self.spec.program);
        command
            .args(&self.spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // The terminal's Ctrl+C is the match's to handle (it stops the
        // engines itself, see `super::interrupt`): the engine ignores it.
        // Every other signal to the process group still reaches it.
        // A lower priority (`niceness`) is kept across exec and by every
        // thread the engine starts; it is best effort (a failure leaves the
        // engine at this program's priority).
        #[cfg(unix)]
        let niceness = self.spec.niceness.clamp(0, 19);
        #[cfg(unix)]
        // SAFETY: between fork and exec only `signal` and `nice` run, each
        // a single system call that takes no lock; an ignored signal stays
        // ignored across exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                if niceness > 0 {
                    libc::nice(niceness);
                }
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| Forfeit::Crash(format!("cannot start '{}': {e}", self.spec.program)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(Forfeit::Crash("no pipes to the engine".into()));
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader.read_until(b'\n', &mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buffer).trim_end().to_owned();
                        if sender.send((Instant::now(), line)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        self.running = Some(Running::new(child, stdin, lines));
        self.handshake().inspect_err(|_| self.kill())
    }

    /// `ugi` → `ugiok`, the game and its options, `isready` → `readyok`.
    fn handshake(&mut self) -> Result<(), Forfeit> {
        let (hello, ok) = match self.spec.dialect {
            Dialect::Ugi => ("ugi", "ugiok"),
            Dialect::Uai => ("uai", "uaiok"),
        };
        self.send_before(hello, Some(ok))?;
        let timeout = self.handshake_timeout;
        if let Err(e) = self.wait_for(Instant::now() + timeout, |line| line.trim() == ok) {
            return Err(match handshake_failure(e, ok, timeout) {
                Forfeit::Crash(why) => match self.exit_status() {
                    Some(status) => Forfeit::Crash(format!("{why} ({status})")),
                    None => Forfeit::Crash(why),
                },
                failure => failure,
            });
        }
        if self.spec.dialect == Dialect::Ugi {
            self.send(&format!("setoption name Game value {}", self.game))?;
        }
        for (name, value) in self.options.clone() {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.sync()
    }

    /// `isready` → `readyok`.
    fn sync(&mut self) -> Result<(), Forfeit> {
        self.send("isready")?;
        let timeout = self.handshake_timeout;
        let answer = self.wait_for(Instant::now() + timeout, |line| line.trim() == "readyok");
        if let Err(e) = answer {
            self.kill();
            return Err(handshake_failure(e, "readyok", timeout));
        }
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        self.send_before(line, None)
    }

    /// Sends `line`; a write that fails because the engine has exited is
    /// reported as its exit (before `expected`, when waiting for it), not
    /// as the broken pipe it caused.
    fn send_before(&mut self, line: &str, expected: Option<&str>) -> Result<(), Forfeit> {
        let running = self
            .running
            .as_mut()
            .ok_or_else(|| Forfeit::Crash("the engine is not running".into()))?;
        let written = writeln!(running.stdin, "{line}").and_then(|()| running.stdin.flush());
        let Err(e) = written else {
            return Ok(());
        };
        let exited = self.exit_status();
        self.kill();
        let before = expected
            .map(|e| format!(" before '{e}'"))
            .unwrap_or_default();
        Err(Forfeit::Crash(match exited {
            Some(status) => format!("the engine exited{before} ({status})"),
            None => format!("cannot write to the engine{before}: {e}"),
        }))
    }

    /// The engine's exit status once it has exited, waiting a moment for
    /// it: a closed pipe usually means the process is gone or going.
    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        let running = self.running.as_mut()?;
        let deadline = Instant::now() + EXIT_GRACE;
        loop {
            match running.try_reap() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return None,
            }
        }
    }

    /// Waits until `deadline` for a line that is `wanted`, looking at the
    /// match's stop flag every [`ABANDON_POLL`].
    fn wait_for(
        &mut self,
        deadline: Instant,
        mut wanted: impl FnMut(&str) -> bool,
    ) -> Result<String, WaitError> {
        let stop = self.stop.as_deref();
        let running = self.running.as_mut().ok_or(WaitError::Closed)?;
        loop {
            if stop.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                return Err(WaitError::Abandoned);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match running.lines.recv_timeout(left.min(ABANDON_POLL)) {
                Ok((at, line)) if wanted(&line) => {
                    self.answered_at = Some(at);
                    return Ok(line);
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) if left <= ABANDON_POLL => {
                    return Err(WaitError::Timeout);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(WaitError::Closed),
            }
        }
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = writeln!(running.stdin, "quit").and_then(|()| running.stdin.flush());
            let deadline = Instant::now() + QUIT_GRACE;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = running.try_reap() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            running.kill_and_reap();
        }
    }
}

fn handshake_failure(error: WaitError, expected: &str, timeout: Duration) -> Forfeit {
    match error {
        WaitError::Timeout => {
            Forfeit::Handshake(format!("no '{expected}' within {} ms", timeout.as_millis()))
        }
        WaitError::Closed => Forfeit::Crash(format!("the engine exited before '{expected}'")),
        WaitError::Abandoned => Forfeit::Crash(format!("the match stopped before '{expected}'")),
    }
}

/// The `go` command for these parameters in this dialect.
pub fn go_command(go: &GoParams, dialect: Dialect) -> String {
    let mut command = String::from("go");
    let names = match dialect {
        Dialect::Ugi => [["p1time", "p2time"], ["p1inc", "p2inc"]],
        // UAI: black (`x`) moves first.
        Dialect::Uai => [["btime", "wtime"], ["binc", "winc"]],
    };
    for (values, names) in [(go.time, names[0]), (go.inc, names[1])] {
        for (value, name) in values.iter().zip(names) {
            if let Some(value) = value {
                command.push_str(&format!(" {name} {value}"));
            }
        }
    }
    if let Some(movetime) = go.movetime {
        command.push_str(&format!(" movetime {movetime}"));
    }
    if let Some(depth) = go.depth {
        command.push_str(&format!(" depth {depth}"));
    }
    if let Some(nodes) = go.nodes {
        command.push_str(&format!(" nodes {nodes}"));
    }
    if go.infinite {
        command.push_str(" infinite");
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_commands_name_the_clocks_per_dialect() {
        let clock = GoParams {
            time: [Some(900), Some(800)],
            inc: [Some(10), Some(10)],
            ..GoParams::default()
        };
        assert_eq!(
            go_command(&clock, Dialect::Ugi),
            "go p1time 900 p2time 800 p1inc 10 p2inc 10"
        );
        assert_eq!(
            go_command(&clock, Dialect::Uai),
            "go btime 900 wtime 800 binc 10 winc 10"
        );
        let fixed = GoParams {
            movetime: Some(50),
            ..GoParams::default()
        };
        assert_eq!(go_command(&fixed, Dialect::Ugi), "go movetime 50");
        let deep = GoParams {
            depth: Some(6),
            nodes: Some(1000),
            ..GoParams::default()
        };
        assert_eq!(go_command(&deep, Dialect::Ugi), "go depth 6 nodes 1000");
    }

    /// The engine reports its own niceness (as `nice` prints it) to a file.
    #[cfg(unix)]
    fn niceness_seen_by_engine(niceness: i32) -> i32 {
        let file =
            std::env::temp_dir().join(format!("agon-nice-{}-{niceness}", std::process::id()));
        let script = format!(
            "nice > '{}'; while read -r line; do case \"$line\" in ugi) echo ugiok ;; isready) echo readyok ;; quit) exit 0 ;; esac; done",
            file.display()
        );
        let spec = ExternalSpec {
            dialect: Dialect::Ugi,
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script],
            options: Vec::new(),
            niceness,
            nodes: None,
        };
        let own: i32 = unsafe { libc::nice(0) };
        let mut engine = ExternalEngine::new(spec, "nim", &[]);
        engine.ensure_running().expect("the script engine starts");
        engine.kill();
        let seen = std::fs::read_to_string(&file).expect("the engine wrote its niceness");
        let _ = std::fs::remove_file(&file);
        seen.trim().parse::<i32>().expect("a number") - own
    }

    #[cfg(unix)]
    #[test]
    fn an_engine_runs_at_the_niceness_its_spec_asks() {
        assert_eq!(niceness_seen_by_engine(0), 0);
        let own: i32 = unsafe { libc::nice(0) };
        // A process cannot go below niceness 19.
        assert_eq!(niceness_seen_by_engine(7), 7.min(19 - own));
    }
}
