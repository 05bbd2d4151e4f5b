//! `agon match` and `agon analyse`: statistics against known values, game
//! records, opening files, forfeits of broken external engines, matches
//! between built-in and external players, and the Nim test suite.

mod common;

use agon::engine::options::SearchChoice;
use agon::game::{Outcome, Player};
use agon::tools::analyse::{self, AnalyseConfig, AnalyseLimits};
use agon::tools::matches::adjudication::{Adjudication, DrawRule, ResignRule};
use agon::tools::matches::record::{GameRecord, replay};
use agon::tools::matches::spec::PlayerSpec;
use agon::tools::matches::stats::{Hypothesis, Score, Sprt, elo_line, score_line};
use agon::tools::matches::{MatchConfig, MatchReport, TimeControl, read_openings, run_match};
use common::{agon, nim_match, scratch};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const AGON: &str = env!("CARGO_BIN_EXE_agon");

/// Plays a match; returns the report and the summary lines (the per-game
/// `Finished game` lines, printed without a terminal, are left out).
fn play(config: &MatchConfig) -> (MatchReport, Vec<String>) {
    let (report, lines) = play_all(config);
    let summary = lines
        .into_iter()
        .filter(|l| !l.starts_with("Finished game"))
        .collect();
    (report, summary)
}

/// Plays a match; returns the report and every line printed.
fn play_all(config: &MatchConfig) -> (MatchReport, Vec<String>) {
    let mut out = Vec::new();
    let report = run_match(config, &mut out).expect("the match runs");
    let text = String::from_utf8(out).expect("utf-8 output");
    (report, text.lines().map(str::to_owned).collect())
}

// Reference values computed independently in Python 3 with cutechess's
// formulas (elo.cpp: mean score, its standard deviation, Winitzki's erfinv,
// math.erf for the LOS):
//   60/40/0    -> Elo 70.436504, margin 70.467136, LOS 97.724987
//   30/20/50   -> Elo 34.860070, margin 48.400004, LOS 92.135040
//   123/100/77 -> Elo 26.689101, margin 34.023446, LOS 93.824345
//   10/10/5    -> Elo -0.0,      margin 127.010837, LOS 50.0
#[test]
fn elo_error_margin_and_los_match_cutechess() {
    let cases = [
        (
            (60, 40, 0),
            "Elo difference: 70.4 +/- 70.5, LOS: 97.7 %, DrawRatio: 0.0 %",
        ),
        (
            (30, 20, 50),
            "Elo difference: 34.9 +/- 48.4, LOS: 92.1 %, DrawRatio: 50.0 %",
        ),
        (
            (123, 100, 77),
            "Elo difference: 26.7 +/- 34.0, LOS: 93.8 %, DrawRatio: 25.7 %",
        ),
        (
            (10, 10, 5),
            // cutechess prints -0.0 here (printf keeps the sign of the
            // negative zero); a zero is printed unsigned.
            "Elo difference: 0.0 +/- 127.0, LOS: 50.0 %, DrawRatio: 20.0 %",
        ),
    ];
    for ((w, l, d), expected) in cases {
        assert_eq!(elo_line(&Score::new(w, l, d)), expected);
    }
    let score = Score::new(60, 40, 0);
    assert!((score.elo() - 70.436_504).abs() < 1e-5);
    assert!((score.elo_margin() - 70.467_136).abs() < 1e-4);
    assert!((score.los() - 97.724_987).abs() < 1e-4);
    assert_eq!(
        score_line("A", "B", &score),
        "Score of A vs B: 60 - 40 - 0  [0.600] 100"
    );
    // A whitewash: infinite Elo and margin (cutechess prints `nan` for the
    // margin, which the issue on tournament output ruled out).
    assert_eq!(
        elo_line(&Score::new(10, 0, 0)),
        "Elo difference: inf +/- inf, LOS: 99.9 %, DrawRatio: 0.0 %"
    );
    assert_eq!(
        elo_line(&Score::new(0, 0, 3)),
        "Elo difference: 0.0 +/- 0.0, LOS: 50.0 %, DrawRatio: 100.0 %"
    );
}

// Reference LLRs from Python 3 (logistic GSPRT,
// N (s1 - s0)(2 mu - s0 - s1) / (2 var)):
//   60/40/0 [0,10] -> 0.556343;  200/150/100 [0,10] -> 1.636235;
//   100/120/80 [0,10] -> -0.959930;  5/3/2 [-5,5] -> 0.075738;
//   bounds at alpha = beta = 0.05: -/+2.944439.
#[test]
fn sprt_llr_and_bounds_match_reference_values() {
    let sprt = Sprt::parse("0,10", 0.05, 0.05).expect("valid");
    let cases = [
        ((60, 40, 0), 0.556_343),
        ((200, 150, 100), 1.636_235),
        ((100, 120, 80), -0.959_930),
    ];
    for ((w, l, d), llr) in cases {
        assert!(
            (sprt.llr(&Score::new(w, l, d)) - llr).abs() < 1e-5,
            "{w}/{l}/{d}"
        );
    }
    let symmetric = Sprt::parse("-5,5", 0.05, 0.05).expect("valid");
    assert!((symmetric.llr(&Score::new(5, 3, 2)) - 0.075_738).abs() < 1e-5);
    let status = sprt.status(&Score::new(60, 40, 0));
    assert!((status.upper - 2.944_439).abs() < 1e-6 && (status.lower + 2.944_439).abs() < 1e-6);
    assert_eq!(
        status.line(),
        "SPRT: llr 0.556 (18.9%), lbound -2.94, ubound 2.94"
    );
    let h1 = sprt.status(&Score::new(300, 100, 100));
    assert_eq!(h1.decision, Some(Hypothesis::H1));
    assert!(h1.line().ends_with(" - H1 was accepted"), "{}", h1.line());
    assert_eq!(
        sprt.status(&Score::new(100, 300, 100)).decision,
        Some(Hypothesis::H0)
    );
    // All wins: no variance, but the half-game prior still decides.
    assert_eq!(
        sprt.status(&Score::new(20, 0, 0)).decision,
        Some(Hypothesis::H1)
    );
    for bad in ["10,0", "x,5", "5", "0,10,20"] {
        assert!(Sprt::parse(bad, 0.05, 0.05).is_err(), "{bad}");
    }
}

#[test]
fn opening_files_skip_comments_and_operations_and_reject_bad_lines() {
    let text = "# openings\n\n3/4/5 x ; id start ; bm 1:2\n  1/3/5/7   x   # four heaps\n";
    assert_eq!(
        read_openings(text),
        Ok(vec!["3/4/5 x".to_owned(), "1/3/5/7 x".to_owned()])
    );
    let error = read_openings("3/4/5 x\n; bm 1:1\n").expect_err("a line without a position");
    assert!(error.starts_with("line 2:"), "{error}");
    let shipped = std::fs::read_to_string("positions/openings-nim.txt").expect("shipped file");
    assert_eq!(read_openings(&shipped).map(|o| o.len()), Ok(8));
}

#[test]
fn four_games_between_built_in_players_with_openings_and_records() {
    let dir = scratch("records");
    let path = dir.join("games.txt");
    let mut config = nim_match("agon", "agon:search=alphabeta,depth=2,name=ab2", 4);
    config.openings = vec!["3/4/5 x".into(), "1/2/4 x".into()];
    config.out = Some(path.clone());
    config.concurrency = 2;
    let (report, lines) = play(&config);
    assert_eq!(report.score.games(), 4);
    assert_eq!(report.records.len(), 4);
    assert!(lines[0].starts_with("Score of agon vs ab2: "), "{lines:?}");
    assert!(lines[0].ends_with("] 4"), "{lines:?}");
    assert!(lines[1].starts_with("Elo difference: "), "{lines:?}");
    // Pairs of games share an opening with colours swapped.
    let starts: Vec<&str> = report.records.iter().map(|r| r.start.as_str()).collect();
    assert_eq!(starts, ["3/4/5 x", "3/4/5 x", "1/2/4 x", "1/2/4 x"]);
    assert_eq!(
        report.records[0].players,
        ["agon".to_owned(), "ab2".to_owned()]
    );
    assert_eq!(
        report.records[1].players,
        ["ab2".to_owned(), "agon".to_owned()]
    );
    // The file reads back to the same records and replays to the same score.
    let text = std::fs::read_to_string(&path).expect("records written");
    let read: Vec<GameRecord> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| GameRecord::parse(l).expect("valid record"))
        .collect();
    assert_eq!(read, report.records);
    let summary = replay(&text).expect("replays");
    assert_eq!((summary.games, summary.score), (4, report.score));
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
}

#[test]
fn replay_catches_tampered_records() {
    let record = GameRecord {
        number: 1,
        game: "nim".into(),
        options: vec![("Heaps".into(), "1/2".into())],
        players: ["a".into(), "b".into()],
        start: "1/2 x".into(),
        moves: vec!["2:1".into(), "1:1".into(), "2:1".into()],
        outcome: Outcome::Win(Player::X),
        reason: "rules".into(),
        clocks: None,
    };
    let line = record.to_line();
    assert_eq!(GameRecord::parse(&line), Ok(record.clone()));
    let timed = GameRecord {
        clocks: Some([1_500, 0]),
        ..record.clone()
    };
    assert!(timed.to_line().ends_with("\trules\tclocks=1500/0"));
    assert_eq!(GameRecord::parse(&timed.to_line()), Ok(timed));
    assert_eq!(record.verify(), Ok(()));
    let wrong_result = GameRecord {
        outcome: Outcome::Win(Player::O),
        ..record.clone()
    };
    assert!(wrong_result.verify().is_err());
    let illegal = GameRecord {
        moves: vec!["2:3".into()],
        ..record.clone()
    };
    assert!(illegal.verify().is_err());
    let unfinished = GameRecord {
        moves: vec!["2:1".into()],
        ..record
    };
    assert!(unfinished.verify().is_err(), "claims the rules ended it");
    let text = format!("# header\n{line}\nnot a record\n");
    let summary = replay(&text).expect("one good record");
    assert_eq!((summary.games, summary.errors.len()), (1, 1));
    assert!(
        summary.errors[0].starts_with("line 3:"),
        "{:?}",
        summary.errors
    );
}

/// A fake UGI engine as a shell script: answers the handshake, then does
/// `on_go` when asked to move.
fn fake_engine(dir: &std::path::Path, name: &str, on_go: &str) -> String {
    let script = format!(
        "while read line; do\n  case \"$line\" in\n    ugi) echo 'id name {name}'; echo ugiok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, script).expect("write script");
    // Run through sh so the file never needs to be executable (writing and
    // executing a fresh file from threaded tests can fail with ETXTBSY).
    format!("ugi:/bin/sh {}", path.display())
}

#[test]
fn broken_engines_forfeit_and_the_match_continues() {
    let dir = scratch("forfeits");
    let cases = [
        ("illegal", "echo 'bestmove 9:9'", "illegal move '9:9'"),
        ("silent", ":", "timeout"),
        ("crash", "exit 3", "crash"),
        ("nonsense", "echo 'bestmove'", "illegal move"),
    ];
    for (name, on_go, reason) in cases {
        let spec = fake_engine(&dir, name, on_go);
        let config = nim_match("agon", &spec, 2);
        let (report, lines) = play(&config);
        assert_eq!(report.score, Score::new(2, 0, 0), "{name}: {lines:?}");
        for record in &report.records {
            assert!(
                record.reason.contains(reason) && record.reason.contains("forfeits"),
                "{name}: {}",
                record.reason
            );
        }
        // As x in game 2 the broken engine moves first: no move recorded.
        assert!(report.records[1].moves.is_empty(), "{name}");
    }
    // An engine that never answers `ugi`, exits at once or does not exist
    // stops the match before any game with an error (it used to lose every
    // game, so that a missing engine "won" the match for the other side).
    let mute = dir.join("mute.sh");
    std::fs::write(&mute, "while read line; do :; done\n").expect("write script");
    let mut config = nim_match("agon", &format!("ugi:/bin/sh {}", mute.display()), 2);
    config.handshake_timeout = Duration::from_millis(200);
    let error = run_match(&config, &mut Vec::new()).expect_err("no handshake");
    assert!(error.contains("handshake failed, no 'ugiok'"), "{error}");
    let config = nim_match("agon", "ugi:/bin/sh -c 'exit 0'", 2);
    let error = run_match(&config, &mut Vec::new()).expect_err("exits at once");
    assert!(error.contains("cannot play: crash"), "{error}");
    let config = nim_match("agon", "uai:/nonexistent/engine", 4);
    let error = run_match(&config, &mut Vec::new()).expect_err("missing engine");
    assert!(
        error.contains("cannot start '/nonexistent/engine'"),
        "{error}"
    );
}

#[test]
fn an_external_engines_info_score_can_resign_its_game() {
    let dir = scratch("resign");
    let spec = fake_engine(
        &dir,
        "pessimist",
        "echo 'info string score cp 900'; echo 'info depth 3 score cp -1000 pv 1:1'; echo 'bestmove 1:1'",
    );
    let mut config = nim_match("agon", &spec, 2);
    let resign = ["movecount=1", "score=500"].map(String::from);
    config.adjudication.resign = Some(ResignRule::parse(&resign).unwrap());
    let (report, _) = play(&config);
    assert_eq!(report.score, Score::new(2, 0, 0));
    // As o it resigns after its first move, as x after the game's first.
    let lengths: Vec<usize> = report.records.iter().map(|r| r.moves.len()).collect();
    assert_eq!(lengths, [2, 1]);
    for (record, side) in report.records.iter().zip(["o", "x"]) {
        assert!(
            record
                .reason
                .starts_with(&format!("score adjudication: {side} resigns")),
            "{}",
            record.reason
        );
    }
}

#[test]
fn an_engine_that_answers_after_its_clock_ran_out_loses_on_time() {
    let dir = scratch("flag");
    let spec = fake_engine(&dir, "slow", "sleep 1; echo 'bestmove 1:1'");
    let mut config = nim_match("agon", &spec, 1);
    config.time = TimeControl::parse_clock("0.2+0").expect("valid");
    let (report, _) = play(&config);
    assert_eq!(report.score, Score::new(1, 0, 0));
    let reason = &report.records[0].reason;
    assert!(reason.starts_with("o forfeits: loss on time"), "{reason}");
    assert_eq!(
        TimeControl::parse_clock("10+0.1"),
        Ok(TimeControl::Clock {
            base_ms: 10_000,
            inc_ms: 100
        })
    );
    for bad in ["0+1", "x", "-1+0", "5+y"] {
        assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
    }
}

#[test]
fn uai_engines_get_the_uai_dialogue() {
    let dir = scratch("uai");
    let log = dir.join("input.log");
    let script = dir.join("uai.sh");
    let body = format!(
        "while read line; do\n  echo \"$line\" >> {}\n  case \"$line\" in\n    uai) echo uaiok ;;\n    isready) echo readyok ;;\n    go*) echo 'bestmove 1:1' ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
        log.display()
    );
    std::fs::write(&script, body).expect("write script");
    let mut config = nim_match("agon", &format!("uai:/bin/sh {}", script.display()), 2);
    config.options = vec![("Heaps".into(), "1".into())];
    config.time = TimeControl::parse_clock("5+0.1").expect("valid");
    // Its own engine option comes after the game's.
    let threads = vec![("Threads".to_owned(), "2".to_owned())];
    config.players[1] = config.players[1]
        .clone()
        .with_engine_options(threads.clone())
        .unwrap();
    let (report, _) = play(&config);
    // One heap of one object: whoever moves first wins.
    assert_eq!(report.score, Score::new(1, 1, 0));
    let input = std::fs::read_to_string(&log).expect("the engine logged its input");
    let lines: Vec<&str> = input.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "uai",
            "setoption name Heaps value 1",
            "setoption name Threads value 2",
            "isready"
        ]
    );
    // A built-in player takes its settings in its spec, not as options.
    let error = config.players[0]
        .clone()
        .with_engine_options(threads)
        .unwrap_err();
    assert!(error.contains("agon:key=value"), "{error}");
    assert!(
        !input.contains("name Game"),
        "UAI has no Game option: {input}"
    );
    assert!(lines.contains(&"uainewgame"), "{input}");
    assert!(lines.contains(&"position fen 1 x"), "{input}");
    assert!(
        lines.contains(&"go btime 5000 wtime 5000 binc 100 winc 100"),
        "{input}"
    );
}

#[test]
fn ataxx_against_agon_over_uai() {
    let mut config = nim_match("agon", &format!("uai:{AGON}"), 2);
    config.game = "ataxx".into();
    config.time = TimeControl::movetime(10);
    config.max_plies = Some(8);
    let error = run_match(&config, &mut Vec::new()).expect_err("seed rules against UAI");
    assert!(error.contains("Rules=standard"), "{error}");
    config.options = vec![("Rules".into(), "standard".into())];
    let (report, _) = play(&config);
    for record in &report.records {
        assert_eq!(record.moves.len(), 8, "{record:?}");
        assert!(record.reason.starts_with("adjudication"), "{record:?}");
        assert_eq!(record.verify(), Ok(()));
        // Ataxx is adjudicated by the piece count after the eight plies.
        let mut tampered = record.clone();
        tampered.outcome = match record.outcome {
            Outcome::Draw => Outcome::Win(Player::X),
            _ => Outcome::Draw,
        };
        assert!(tampered.verify().is_err(), "{tampered:?}");
    }
}

#[test]
fn agon_plays_itself_as_an_external_engine() {
    let mut config = nim_match("agon", &format!("ugi:{AGON}"), 2);
    config.concurrency = 2;
    let (report, lines) = play(&config);
    // Both play perfectly and 3/4/5 is won for x: one win each.
    assert_eq!(report.score, Score::new(1, 1, 0), "{lines:?}");
    assert!(
        report.records.iter().all(|r| r.reason == "rules"),
        "{:?}",
        report.records
    );
    assert_eq!(lines[0], "Score of agon vs ugi:agon: 1 - 1 - 0  [0.500] 2");
}

/// Output that sets a match's stop flag (as Ctrl+C does) once it has
/// printed `after`.
struct StopAfter {
    text: Vec<u8>,
    after: &'static str,
    stop: Arc<AtomicBool>,
}

impl std::io::Write for StopAfter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(bytes);
        if String::from_utf8_lossy(&self.text).contains(self.after) {
            self.stop.store(true, Ordering::Relaxed);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stopped_match_counts_and_records_only_its_finished_games() {
    let dir = scratch("stopped");
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = ataxx_depth_match(Adjudication::default());
    config.players = [
        "agon:depth=1,eval=classic,name=a",
        "agon:depth=1,eval=classic,name=b",
    ]
    .map(|p| PlayerSpec::parse(p).unwrap());
    config.games = 40;
    config.out = Some(dir.join("stopped.txt"));
    config.stop = Some(Arc::clone(&stop));
    let mut out = StopAfter {
        text: Vec::new(),
        after: "Finished game 3 ",
        stop,
    };
    let report = run_match(&config, &mut out).expect("the match runs");
    let text = String::from_utf8(out.text).expect("utf-8 output");
    // Games finished while the output lagged behind still count (the
    // workers run ahead of the printing); none starts after the flag.
    let played = report.records.len();
    assert!(report.interrupted, "{text}");
    assert!(
        (3..config.games).contains(&played),
        "{played} games: {text}"
    );
    assert_eq!(report.score.games() as usize, played);
    assert!(
        text.contains(&format!(
            "Match interrupted after {played} games; the games in progress were abandoned\nScore of a vs b: "
        )),
        "{text}"
    );
    let recorded = std::fs::read_to_string(dir.join("stopped.txt")).expect("records written");
    let games: Vec<GameRecord> = recorded
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| GameRecord::parse(l).expect("a record"))
        .collect();
    assert_eq!(games.len(), played);
    assert_eq!(games, report.records);
}

#[test]
fn a_stop_abandons_the_game_of_an_engine_still_thinking() {
    let dir = scratch("abandon");
    // Moves first (x in game 1) and thinks for 5 s of its 20 s; the stop
    // comes after 0.3 s.
    let spec = fake_engine(&dir, "slow", "sleep 5; echo 'bestmove 1:1'");
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = nim_match(&spec, "agon", 2);
    config.time = TimeControl::movetime(20_000);
    config.stop = Some(Arc::clone(&stop));
    let started = Instant::now();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
    });
    let (report, lines) = play_all(&config);
    setter.join().expect("the stop is set");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(report.interrupted);
    assert!(report.records.is_empty(), "{:?}", report.records);
    assert_eq!(
        lines[0],
        "Match interrupted after 0 games; the games in progress were abandoned"
    );
    // Finished without a stop, the same match is no interrupted one.
    let mut quick = nim_match("agon", "agon", 2);
    quick.stop = Some(Arc::new(AtomicBool::new(false)));
    let (report, lines) = play(&quick);
    assert!(!report.interrupted);
    assert!(
        lines[0].starts_with("Score of agon#1 vs agon#2: "),
        "{lines:?}"
    );
}

/// Whether process `pid` still exists.
#[cfg(unix)]
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_agon_match_with_the_finished_games_and_no_engine_left() {
    stop_a_match_by_signal(libc::SIGINT, "sigint");
}

/// A plain `kill` (SIGTERM) stops a match as Ctrl+C does: without it the
/// engines outlived the match (Zataxx then spun on its closed input).
#[cfg(unix)]
#[test]
fn sigterm_ends_agon_match_as_ctrl_c_does() {
    stop_a_match_by_signal(libc::SIGTERM, "sigterm");
}

#[cfg(unix)]
fn stop_a_match_by_signal(signal: libc::c_int, name: &str) {
    let dir = scratch(name);
    // An engine that notes its process id and thinks for 20 s.
    let pid_file = dir.join("engine.pid");
    let spec = fake_engine(
        &dir,
        "thinker",
        &format!("echo $$ > {}; sleep 20", pid_file.display()),
    );
    let out = dir.join("games.txt");
    let child = Command::new(AGON)
        .args(["match", "--game", "nim", "--p1", &spec, "--p2", "agon"])
        .args([
            "--games",
            "4",
            "--movetime",
            "30000",
            "--no-progress",
            "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("agon runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    let engine = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "the engine never thought");
        std::thread::sleep(Duration::from_millis(20));
    };
    let started = Instant::now();
    // SAFETY: sends a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    let output = child.wait_with_output().expect("agon ends");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(started.elapsed() < Duration::from_secs(10), "{text}");
    assert_eq!(output.status.code(), Some(130), "{text}");
    assert!(
        text.contains("Match interrupted after 0 games; the games in progress were abandoned"),
        "{text}"
    );
    // Without a game only the score: no Elo line made of NaNs.
    assert!(text.contains(" vs agon: 0 - 0 - 0  [0.500] 0"), "{text}");
    assert!(!text.contains("nan") && !text.contains("Elo"), "{text}");
    let recorded = std::fs::read_to_string(&out).expect("records file");
    assert!(recorded.lines().all(|l| l.starts_with('#')), "{recorded}");
    // The thinking engine was killed, not left behind.
    let gone = Instant::now() + Duration::from_secs(5);
    while alive(engine) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(engine), "engine {engine} still runs");
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let mut config = nim_match("agon", "agon:player=random", 200);
    config.sprt = Some(Sprt::parse("0,50", 0.05, 0.05).expect("valid"));
    config.report_every = 2;
    let (report, lines) = play(&config);
    assert!(report.score.games() < 200, "{lines:?}");
    let last = lines.last().expect("an SPRT line");
    assert!(
        last.starts_with("SPRT: llr ") && last.ends_with("H1 was accepted"),
        "{last}"
    );
    // The running reports carry the undecided test's state, as
    // cutechess-cli prints it, after each pentanomial line.
    let sprt_lines: Vec<&String> = lines.iter().filter(|l| l.starts_with("SPRT: ")).collect();
    let running = &sprt_lines[..sprt_lines.len() - 1];
    assert!(!running.is_empty(), "{lines:?}");
    assert!(
        running.iter().all(|l| !l.contains("accepted")),
        "{running:?}"
    );
    for (at, line) in lines.iter().enumerate() {
        if line.starts_with("SPRT: ") && at + 1 < lines.len() {
            assert!(lines[at - 1].starts_with("Ptnml(0-2)"), "{lines:?}");
        }
    }
}

#[test]
fn ply_limit_adjudicates_a_draw() {
    let mut config = nim_match("agon:player=random", "agon:player=random", 2);
    config.options = vec![("Heaps".into(), "20/20/20".into())];
    config.max_plies = Some(2);
    let (report, _) = play(&config);
    assert_eq!(report.score, Score::new(0, 0, 2));
    assert!(report.records[0].reason.starts_with("adjudication"));
    assert_eq!(report.records[0].moves.len(), 2);
}

/// Two deterministic Ataxx players (fixed depths, one thread) from the
/// start position, both colours.
/// Two fixed-depth Ataxx players on the classic evaluation, so that what
/// the tests below see does not hang on the shipped network (a new network
/// used to change which games resign).
fn ataxx_depth_match(adjudication: Adjudication) -> MatchConfig {
    let mut config = nim_match(
        "agon:depth=4,eval=classic,name=deep",
        "agon:depth=1,eval=classic,name=shallow",
        2,
    );
    config.game = "ataxx".into();
    config.time = TimeControl::movetime(5_000);
    config.adjudication = adjudication;
    config
}

#[test]
fn score_adjudication_only_cuts_games_short() {
    let (full, _) = play(&ataxx_depth_match(Adjudication::default()));
    let resign = ResignRule::parse(&["movecount=2".into(), "score=50".into()]).unwrap();
    let (cut, _) = play(&ataxx_depth_match(Adjudication {
        resign: Some(resign),
        draw: None,
    }));
    let mut resignations = 0;
    for (whole, short) in full.records.iter().zip(&cut.records) {
        if !short.reason.starts_with("score adjudication: ") {
            // A game can end by the rules before either side's scores have
            // stayed low long enough; then adjudication changed nothing.
            assert_eq!(short.reason, whole.reason);
            assert_eq!(short.moves, whole.moves);
            assert_eq!(short.outcome, whole.outcome);
            continue;
        }
        resignations += 1;
        assert!(short.reason.contains(" resigns "), "{}", short.reason);
        // The same players play the same moves until the resignation.
        assert!(short.moves.len() < whole.moves.len());
        assert_eq!(short.moves[..], whole.moves[..short.moves.len()]);
        // The side that resigned lost. (Not necessarily the side that lost
        // the full game: a shallow search's scores can dip and recover.)
        let resigned = short
            .reason
            .split(" resigns")
            .next()
            .and_then(|r| r.chars().last());
        let winner = match resigned {
            Some('x') => Player::O,
            Some('o') => Player::X,
            _ => panic!("no resigning side in {}", short.reason),
        };
        assert_eq!(short.outcome, Outcome::Win(winner), "{}", short.reason);
    }
    assert!(resignations > 0, "no game was adjudicated");
    let text: String = cut.records.iter().map(|r| r.to_line() + "\n").collect();
    let replayed = replay(&text).expect("replays");
    assert!(replayed.errors.is_empty(), "{:?}", replayed.errors);

    // Every score is within 100,000 of 0: a draw once 3 full moves are
    // played and each engine has given 2 scores in a row.
    let draw = DrawRule::parse(&[
        "movenumber=3".into(),
        "movecount=2".into(),
        "score=100000".into(),
    ])
    .unwrap();
    let (drawn, _) = play(&ataxx_depth_match(Adjudication {
        resign: None,
        draw: Some(draw),
    }));
    assert_eq!(drawn.score, Score::new(0, 0, 2));
    for record in &drawn.records {
        assert_eq!(record.moves.len(), 6);
        assert!(record.reason.starts_with("score adjudication: draw"));
    }
}

fn analyse_config(limits: AnalyseLimits) -> AnalyseConfig {
    AnalyseConfig {
        game: "nim".into(),
        options: Vec::new(),
        limits,
        search: SearchChoice::Auto,
        hash_mb: 4,
        json: false,
        progress: false,
    }
}

#[test]
fn analyse_solves_the_nim_suite() {
    let text = std::fs::read_to_string("positions/nim.txt").expect("suite");
    let mut out = Vec::new();
    let config = analyse_config(AnalyseLimits {
        movetime: Some(50),
        ..AnalyseLimits::default()
    });
    let summary = analyse::run(&config, &text, &mut out).expect("runs");
    let output = String::from_utf8(out).expect("utf-8");
    assert_eq!((summary.solved, summary.checked), (13, 13), "{output}");
    assert_eq!(output.lines().last(), Some("solved 13/13"));
    // Alpha-beta alone proves the short wins and losses.
    let shallow = "7 x ; bm 1:7 ; value win\n1/1 o ; value loss\n";
    let mut config = analyse_config(AnalyseLimits {
        depth: Some(4),
        ..AnalyseLimits::default()
    });
    config.search = SearchChoice::AlphaBeta;
    let summary = analyse::run(&config, shallow, &mut Vec::new()).expect("runs");
    assert_eq!((summary.solved, summary.checked), (2, 2));
}

#[test]
fn analyse_reports_bad_lines_and_writes_json() {
    let text = "3/4/5 x ; bm 1:2 ; id ok\nnot a position\n3/4/5 x ; bm 9:9\n3/4/5 x ; value maybe\n0/0 x ; value loss\n3/4/5 x ; am 1:2\n";
    let mut out = Vec::new();
    let mut config = analyse_config(AnalyseLimits::default());
    config.json = true;
    let summary = analyse::run(&config, text, &mut out).expect("runs");
    let output = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!((summary.positions, summary.skipped), (2, 4), "{output}");
    assert_eq!((summary.solved, summary.checked), (1, 2), "{output}");
    assert!(lines[0].starts_with("{\"line\":1,\"id\":\"ok\",\"fen\":\"3/4/5 x\",\"best\":\"1:2\""));
    assert!(
        lines[1].starts_with("{\"line\":2,\"error\":"),
        "{}",
        lines[1]
    );
    assert!(lines[5].contains("\"solved\":false"), "{}", lines[5]);
    assert_eq!(
        lines.last().copied(),
        Some(
            "{\"summary\":{\"positions\":2,\"checked\":2,\"solved\":1,\"undecided\":0,\"skipped\":4}}"
        )
    );
    // Unknown operations (a misspelt `bm`) used to be ignored silently.
    let text = "3/4/5 x ; foo 3\n3/4/5 x ; mb 1:2\n3/4/5 x ; bm 1:2\n";
    let mut out = Vec::new();
    let config = analyse_config(AnalyseLimits::default());
    let summary = analyse::run(&config, text, &mut out).expect("runs");
    let output = String::from_utf8(out).expect("utf-8");
    assert_eq!((summary.positions, summary.skipped), (1, 2), "{output}");
    assert!(
        output.contains("line 1: skipped: unknown operation 'foo'"),
        "{output}"
    );
    assert!(
        output.contains("line 2: skipped: unknown operation 'mb'"),
        "{output}"
    );
}

#[test]
fn command_line_match_replay_and_analyse() {
    let dir = scratch("cli");
    let records = dir.join("games.txt");
    let output = Command::new(AGON)
        .args([
            "match",
            "--game",
            "nim",
            "--p1",
            "agon",
            "--p2",
            "agon:player=random",
        ])
        .args(["--games", "4", "--movetime", "10", "--seed", "3", "--out"])
        .arg(&records)
        .output()
        .expect("agon runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Without a terminal: a line per game, then the summary.
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4 + 3, "{stdout}");
    assert!(
        lines[0].starts_with("Finished game 1 (agon vs agon:player=random): 1-0"),
        "{stdout}"
    );
    let lines = &lines[4..];
    assert!(
        lines[0].starts_with("Score of agon vs agon:player=random: "),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("Ptnml(0-2): [0, 0, 0, 0, 2], pairs 2"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("Elo difference: "), "{stdout}");
    let replayed = Command::new(AGON)
        .args(["match", "--replay"])
        .arg(&records)
        .output()
        .expect("agon runs");
    assert!(replayed.status.success(), "{replayed:?}");
    let replay_out = String::from_utf8_lossy(&replayed.stdout);
    assert!(replay_out.contains(lines[0]), "{replay_out}");
    let analysed = Command::new(AGON)
        .args([
            "analyse",
            "--game",
            "nim",
            "positions/nim.txt",
            "--movetime",
            "20",
        ])
        .output()
        .expect("agon runs");
    assert!(analysed.status.success(), "{analysed:?}");
    let text = String::from_utf8_lossy(&analysed.stdout);
    assert_eq!(text.lines().last(), Some("solved 13/13"));
    let bad = Command::new(AGON)
        .args([
            "match",
            "--game",
            "nim",
            "--p1",
            "agon",
            "--p2",
            "agon:search=minimax",
        ])
        .args(["--movetime", "10"])
        .output()
        .expect("agon runs");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("minimax"));
}

mod openings {
    use agon::game::{Game, GameState};
    use agon::games::ataxx::{Ataxx, AtaxxOptions, RuleSet};
    use agon::games::dots::{Dots, DotsOptions};
    use agon::tools::openings::{OpeningsConfig, file_text, generate};
    use std::collections::HashSet;

    fn config(count: usize, window: i32, seed: u64) -> OpeningsConfig {
        OpeningsConfig {
            count,
            min_plies: 2,
            max_plies: 5,
            depth: 3,
            window,
            seed,
        }
    }

    fn standard() -> AtaxxOptions {
        AtaxxOptions {
            rules: RuleSet::Standard,
            ..AtaxxOptions::default()
        }
    }

    #[test]
    fn openings_are_balanced_distinct_up_to_symmetry_and_reproducible() {
        let options = standard();
        let start = Ataxx::start(&options);
        let made = generate(&start, &config(12, 120, 7), &mut |_| {}).expect("openings");
        assert_eq!(made.len(), 12);
        let mut keys = HashSet::new();
        for opening in &made {
            assert!(opening.score.abs() <= 120, "{opening:?}");
            let position = Ataxx::from_fen(&opening.fen, &options).expect("valid");
            assert!(GameState::new(position.clone()).outcome().is_none());
            assert!(keys.insert(position.canonical_key()), "{}", opening.fen);
        }
        let again = generate(&start, &config(12, 120, 7), &mut |_| {}).unwrap();
        assert_eq!(again, made, "same seed, same openings");
        let other = generate(&start, &config(12, 120, 8), &mut |_| {}).unwrap();
        assert_ne!(other, made, "another seed, other openings");
        let text = file_text("ataxx", "agon openings", &made);
        assert!(text.starts_with("# 12 balanced openings for ataxx"));
        assert_eq!(text.lines().count(), 13);
    }

    #[test]
    fn a_window_nothing_fits_is_an_error_and_turns_are_finished() {
        let start = Ataxx::start(&standard());
        let err = generate(&start, &config(3, -1, 1), &mut |_| {}).unwrap_err();
        assert!(err.contains("found only 0 of 3"), "{err}");
        // Dots and Boxes: an opening never starts in the middle of a turn,
        // so its side to move is the one the last line was drawn against.
        let dots = Dots::start(&DotsOptions::default());
        let made = generate(&dots, &config(5, 10_000, 3), &mut |_| {}).unwrap();
        assert_eq!(made.len(), 5);
    }

    #[test]
    fn symmetric_ataxx_positions_share_a_canonical_key() {
        let options = standard();
        let a = Ataxx::from_fen("x5o/7/2x4/7/7/7/o5x o 0 2", &options).unwrap();
        // The same position mirrored left-right, and turned half round.
        let mirrored = Ataxx::from_fen("o5x/7/4x2/7/7/7/x5o o 0 2", &options).unwrap();
        let rotated = Ataxx::from_fen("x5o/7/7/7/4x2/7/o5x o 0 2", &options).unwrap();
        let different = Ataxx::from_fen("x5o/7/3x3/7/7/7/o5x o 0 2", &options).unwrap();
        assert_ne!(a.hash(), mirrored.hash());
        assert_eq!(a.canonical_key(), mirrored.canonical_key());
        assert_eq!(a.canonical_key(), rotated.canonical_key());
        assert_ne!(a.canonical_key(), different.canonical_key());
    }
}

#[test]
fn shards_merge_into_the_whole_match() {
    let dir = scratch("shards");
    let mut whole = nim_match("agon", "agon:player=random", 10);
    whole.openings = vec![
        "3/4/5 x".into(),
        "1/2/4 x".into(),
        "2/2/3 x".into(),
        "5/5 x".into(),
        "1/6 x".into(),
    ];
    whole.report_every = 2;
    let (report, lines) = play_all(&whole);
    // Without a terminal: each game, and the running score every 2 games.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("Finished game"))
            .count(),
        10
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("Score of")).count(),
        5,
        "four running scores and the summary: {lines:?}"
    );
    let mut texts = Vec::new();
    for index in 1..=3 {
        let mut shard = whole.clone();
        shard.shard = Some((index, 3));
        let path = dir.join(format!("shard{index}.txt"));
        shard.out = Some(path.clone());
        let (part, _) = play(&shard);
        // Pairs stay whole: shard 1 plays pairs 1 and 4 (games 1, 2, 7, 8).
        if index == 1 {
            let numbers: Vec<usize> = part.records.iter().map(|r| r.number).collect();
            assert_eq!(numbers, [1, 2, 7, 8]);
        }
        texts.push((
            format!("shard{index}"),
            std::fs::read_to_string(&path).expect("written"),
        ));
    }
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let merged = agon::tools::matches::record::merge(&files).expect("merges");
    assert!(merged.errors.is_empty(), "{:?}", merged.errors);
    assert_eq!(merged.records, report.records, "same games, same seeds");
    assert_eq!((merged.score, merged.pairs), (report.score, report.pairs));
    // A game in two files is an error, not counted twice.
    let twice = [files[0], files[0]];
    let merged = agon::tools::matches::record::merge(&twice).expect("merges");
    assert_eq!(merged.games, 4);
    assert!(
        merged.errors[0].contains("appears twice"),
        "{:?}",
        merged.errors
    );
    // A shard left out shows as missing game numbers.
    assert_eq!(merged.missing, [3, 4, 5, 6]);
    let partial = agon::tools::matches::record::merge(&files[..2]).expect("merges");
    assert_eq!(partial.missing, [5, 6]);
    // An SPRT is run on the merged result, not per shard.
    let mut shard = whole.clone();
    shard.shard = Some((1, 2));
    shard.sprt = Some(Sprt::parse("0,10", 0.05, 0.05).expect("valid"));
    assert!(run_match(&shard, &mut Vec::new()).is_err());
    assert!(agon::tools::matches::parse_shard("0/2").is_err());
    assert!(agon::tools::matches::parse_shard("3/2").is_err());
    assert_eq!(agon::tools::matches::parse_shard("2/2"), Ok((2, 2)));
}

#[test]
fn match_help_matches_what_the_program_does() {
    // It used to say that --max-plies adjudicates a draw, and to omit the
    // MCTS keys of the built-in player.
    let output = Command::new(AGON)
        .args(["match", "--help"])
        .output()
        .expect("agon runs");
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.contains("by the piece or box count"), "{help}");
    // …and hidden, samples, secrets and peek (issue 55).
    for key in [
        "playout=auto|random|policy",
        "exploration",
        "parallel=tree|root",
        "eval=auto|classic",
        "evalfile",
        "hidden=expect|sample|ignore",
        "samples",
        "secrets=auto|random",
        "peek=true|false",
    ] {
        assert!(help.contains(key), "{key} missing: {help}");
    }
}

/// Every value worth trying of each option of a game: each combo value,
/// both check values, a spin's bounds, and the text values it accepts
/// among some that each game's options take.
struct OptionSamples;

impl agon::games::GameVisitor for OptionSamples {
    type Output = Vec<(String, String)>;
    fn visit<G: agon::game::Game>(self) -> Vec<(String, String)> {
        use agon::game::{GameOptions, OptionKind};
        let texts = [
            "-",
            "1/2/3",
            "7",
            "3x5",
            "1X1",
            "10",
            "8",
            "3,15,21,42,48",
            "auto",
            "2%,",
        ];
        let mut samples = Vec::new();
        for spec in G::Options::specs() {
            let values: Vec<String> = match &spec.kind {
                OptionKind::Check => vec!["true".into(), "false".into()],
                OptionKind::Spin { min, max } => vec![min.to_string(), max.to_string()],
                OptionKind::Combo(vars) => vars.iter().map(|v| (*v).to_owned()).collect(),
                OptionKind::Text => texts.iter().map(|t| (*t).to_owned()).collect(),
            };
            for value in values {
                if G::Options::default().set(spec.name, &value).is_ok() {
                    samples.push((spec.name.to_owned(), value));
                }
            }
        }
        samples
    }
}

/// A record of a game of `game` under `options` that ended before a move.
fn forfeited_record(game: &str, options: Vec<(String, String)>) -> GameRecord {
    GameRecord {
        number: 1,
        game: game.into(),
        options,
        players: ["a".into(), "b".into()],
        start: "-".into(),
        moves: Vec::new(),
        outcome: Outcome::Draw,
        reason: "x forfeits: test".into(),
        clocks: None,
    }
}

#[test]
fn every_games_options_round_trip_through_the_record_format() {
    for &game in agon::games::GAME_NAMES {
        let samples = agon::games::visit_game(game, OptionSamples).expect("a game");
        // Each value alone, then all of them in one field.
        let mut sets: Vec<Vec<(String, String)>> =
            samples.iter().map(|s| vec![s.clone()]).collect();
        sets.push(samples.clone());
        // CTOR's squares hold commas: the record used to split them apart.
        if game == "ctor" {
            sets.push(vec![
                ("Secrets".into(), "true".into()),
                ("SecretX".into(), "3,15,21,42,48".into()),
                ("SecretO".into(), "1,2,3,4,5".into()),
            ]);
            assert!(
                samples
                    .iter()
                    .any(|(n, v)| n == "SecretX" && v.contains(','))
            );
        }
        for options in sets {
            let record = forfeited_record(game, options);
            let line = record.to_line();
            assert_eq!(GameRecord::parse(&line), Ok(record), "{line}");
        }
    }
    // The squares' commas are escaped, a `%` too.
    let record = forfeited_record(
        "ctor",
        vec![
            ("SecretX".into(), "3,15,21,42,48".into()),
            ("Name".into(), "50%,x".into()),
        ],
    );
    let line = record.to_line();
    assert!(
        line.contains("\tSecretX=3%2C15%2C21%2C42%2C48,Name=50%25%2Cx\t"),
        "{line}"
    );
    assert_eq!(GameRecord::parse(&line), Ok(record));
    // A file written before values were escaped is still read.
    let old = "1\tctor\tSecrets=true,SecretX=3,15,21,42,48,SecretO=1,2,3,4,5\ta\tb\t-\t-\tdraw\tx forfeits: t";
    let record = GameRecord::parse(old).expect("an older record");
    assert_eq!(
        record.options,
        [
            ("Secrets".to_owned(), "true".to_owned()),
            ("SecretX".to_owned(), "3,15,21,42,48".to_owned()),
            ("SecretO".to_owned(), "1,2,3,4,5".to_owned()),
        ]
    );
    assert!(GameRecord::parse("1\tnim\t,Heaps=3\ta\tb\t-\t-\tdraw\tr").is_err());
    assert!(GameRecord::parse("1\tnim\tHeaps=3%2\ta\tb\t-\t-\tdraw\tr").is_err());
}

#[test]
fn ctor_records_with_secret_squares_replay_and_merge() {
    let dir = scratch("secrets");
    let records = dir.join("ctors.txt");
    let path = records.to_str().expect("utf-8 path");
    let (ok, stdout, stderr) = agon(&[
        "match",
        "--game",
        "ctor",
        "--option",
        "Secrets=true",
        "--p1",
        "agon",
        "--p2",
        "agon:player=random",
        "--games",
        "2",
        "--movetime",
        "10",
        "--out",
        path,
    ]);
    assert!(ok, "{stdout}{stderr}");
    let text = std::fs::read_to_string(&records).expect("written");
    assert!(text.contains("SecretX=") && text.contains("%2C"), "{text}");
    let (ok, stdout, stderr) = agon(&["match", "--replay", path]);
    assert!(ok, "{stdout}{stderr}");
    assert!(
        stdout.contains("Replayed 2 games, 0 bad records"),
        "{stdout}"
    );
    // A merge of one file says so.
    let merged = dir.join("merged.txt");
    let (ok, stdout, stderr) = agon(&[
        "match",
        "--merge",
        path,
        "--out",
        merged.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("Merged 2 games, 0 bad records"), "{stdout}");
    let merged_text = std::fs::read_to_string(&merged).expect("written");
    assert_eq!(
        merged_text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>(),
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
    );
    // `--game` checks the records' game instead of being ignored.
    let (ok, _, stderr) = agon(&["match", "--replay", path, "--game", "nim"]);
    assert!(
        !ok && stderr.contains("the records are ctor games, not nim"),
        "{stderr}"
    );
    let (ok, _, _) = agon(&["match", "--replay", path, "--game", "ctor"]);
    assert!(ok);
}

#[test]
fn a_file_of_bad_records_names_each_lines_reason() {
    let dir = scratch("all-bad");
    let file = dir.join("bad.txt");
    std::fs::write(
        &file,
        "# agon match records\nnot a record\n1\tnim\t-\ta\tb\t3/4/5 x\t9:9\tp1win\trules\n",
    )
    .expect("written");
    let path = file.to_str().expect("utf-8");
    for args in [["match", "--replay", path], ["match", "--merge", path]] {
        let (ok, stdout, stderr) = agon(&args);
        assert!(!ok, "{stdout}");
        assert!(stderr.contains("no valid game record"), "{stderr}");
        assert!(stderr.contains("error: line 2: a record has 9"), "{stderr}");
        assert!(stderr.contains("error: line 3: move 1 '9:9'"), "{stderr}");
    }
}

#[test]
fn analyse_checks_its_limits_and_fails_when_a_check_does() {
    let dir = scratch("analyse-limits");
    let file = dir.join("suite.txt");
    std::fs::write(&file, "3/4/5 x ; bm 1:2\n").expect("written");
    let path = file.to_str().expect("utf-8");
    for (flag, value, message) in [
        ("--depth", "100", "--depth must be from 1 to 64, not 100"),
        ("--depth", "0", "--depth must be from 1 to 64, not 0"),
        ("--movetime", "0", "--movetime must be above 0 ms"),
        ("--nodes", "0", "--nodes must be above 0"),
        ("--hash", "0", "--hash must be from 1 to 65536 MiB, not 0"),
    ] {
        let (ok, stdout, stderr) = agon(&["analyse", "--game", "nim", path, flag, value]);
        assert!(!ok && stdout.is_empty(), "{flag} {value}: {stdout}");
        assert!(stderr.contains(message), "{flag} {value}: {stderr}");
    }
    let (ok, stdout, _) = agon(&["analyse", "--game", "nim", path, "--movetime", "20"]);
    assert!(ok, "{stdout}");
    // A failed check, an out-of-range line limit: a non-zero exit.
    std::fs::write(&file, "3/4/5 x ; bm 1:1\n3/4/5 x ; bm 1:2 ; depth 100\n").expect("written");
    let (ok, stdout, stderr) = agon(&["analyse", "--game", "nim", path, "--movetime", "20"]);
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("line 1 3/4/5 x: best 1:2"), "{stdout}");
    assert!(stdout.contains("bm 1:1 FAILED"), "{stdout}");
    assert!(
        stdout.contains("line 2: skipped: depth must be from 1 to 64, not 100"),
        "{stdout}"
    );
    assert!(
        stderr.contains("1 of 1 checked lines failed, 1 lines skipped"),
        "{stderr}"
    );
    // An undecided check alone passes: the right result, its distance not
    // counted by the oracle.
    std::fs::write(&file, "1/0/0 o ; value win 1\n").expect("written");
    let (ok, stdout, _) = agon(&["analyse", "--game", "nim", path]);
    assert!(ok && stdout.contains("UNDECIDED"), "{stdout}");
}

#[test]
fn nim_distances_the_oracle_cannot_count_are_undecided_not_failed() {
    // Under `--search auto` Nim's oracle proves the result without its
    // distance: `value win 1` used to be FAILED although right.
    let text = "1/0/0 o ; value win 1\n2/2 x ; value loss 4\n2/2 x ; value win 4\n3/4/5 x ; value win ; id\n";
    let mut out = Vec::new();
    let summary =
        analyse::run(&analyse_config(AnalyseLimits::default()), text, &mut out).expect("runs");
    let output = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = output.lines().collect();
    assert!(lines[0].ends_with("value win 1 UNDECIDED (the oracle proves the result, not its distance; --search alphabeta can find it)"), "{output}");
    assert!(lines[1].contains("value loss 4 UNDECIDED"), "{output}");
    assert!(lines[2].ends_with("value win 4 FAILED"), "{output}");
    // An empty id names nothing: the position stands in (it printed
    // `line 4 : best …`).
    assert!(lines[3].starts_with("line 4 3/4/5 x: best "), "{output}");
    assert_eq!(
        (summary.checked, summary.solved, summary.undecided),
        (4, 1, 2),
        "{output}"
    );
    assert!(output.contains("failed 1, undecided 2"), "{output}");
    // Alpha-beta counts the plies: both pass.
    let mut config = analyse_config(AnalyseLimits {
        depth: Some(6),
        ..AnalyseLimits::default()
    });
    config.search = SearchChoice::AlphaBeta;
    let summary = analyse::run(&config, &lines_of(text, 2), &mut Vec::new()).expect("runs");
    assert_eq!((summary.solved, summary.checked), (2, 2));
}

fn lines_of(text: &str, count: usize) -> String {
    text.lines().take(count).map(|l| format!("{l}\n")).collect()
}

#[test]
fn solve_needs_a_game_it_solves_and_says_when_the_game_is_over() {
    let (ok, _, stderr) = agon(&["solve"]);
    assert!(!ok && stderr.contains("solve needs --game"), "{stderr}");
    let (ok, stdout, _) = agon(&["solve", "--game", "dots", "--fen", "1x1 1111 0 1 o"]);
    assert!(ok);
    assert_eq!(
        stdout,
        "margin -1\ngame over: p2win (every line drawn), no move to play\n"
    );
    let (ok, stdout, _) = agon(&["solve", "--game", "dots", "--size", "1x1"]);
    assert!(
        ok && stdout.starts_with("margin ") && stdout.contains("\nbest "),
        "{stdout}"
    );
}

#[test]
fn small_output_defects() {
    // perft under a millisecond printed `1297016861219195904 nodes/s`.
    let (ok, stdout, _) = agon(&["perft", "--game", "nim", "--depth", "1"]);
    assert!(ok);
    let time_line = stdout.lines().nth(1).expect("a time line");
    let rate: Option<u64> = time_line
        .split_whitespace()
        .rev()
        .nth(1)
        .and_then(|w| w.parse().ok());
    assert!(
        time_line == "time 0 ms, too short for a nodes/s figure"
            || rate.is_some_and(|r| r < 1_000_000_000_000),
        "{stdout}"
    );
    // One `agon: ` prefix, not two.
    let (ok, _, stderr) = agon(&[
        "match",
        "--game",
        "nim",
        "--p1",
        "agon",
        "--p1-option",
        "Hash=3",
        "--p2",
        "agon",
    ]);
    assert!(!ok);
    assert!(
        stderr.starts_with(
            "agon: 'agon' is a built-in player: engine options are for ugi:/uai: players"
        ),
        "{stderr}"
    );
    // An engine that exits at once is named so, not as a broken pipe.
    for engine in ["ugi:/bin/false", "ugi:/bin/sh -c 'exit 0'"] {
        let config = nim_match("agon", engine, 2);
        let error = run_match(&config, &mut Vec::new()).expect_err("exits at once");
        assert!(
            error.contains("crash, the engine exited before 'ugiok' (exit status: "),
            "{error}"
        );
    }
}

/// `--nodes N` limits every player, external engines through `go … nodes
/// N`: Agon as an external engine then plays exactly the games of the
/// built-in player with `nodes=N` (one thread, deterministic), and a
/// built-in player's own `nodes=` is kept.
#[test]
fn match_nodes_limit_reaches_external_engines_and_makes_games_repeatable() {
    let dir = scratch("match-nodes");
    let moves_of = |p1: &[&str], nodes: &str, name: &str| {
        let out = dir.join(name);
        let out_text = out.to_string_lossy().into_owned();
        let mut args = vec!["match", "--game", "ataxx"];
        args.extend_from_slice(p1);
        args.extend_from_slice(&["--p2", "agon:eval=classic,name=b", "--nodes", nodes]);
        args.extend_from_slice(&["--games", "2", "--no-progress", "--out", &out_text]);
        let (ok, stdout, stderr) = agon(&args);
        assert!(ok, "{stdout}{stderr}");
        let text = std::fs::read_to_string(&out).expect("records written");
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').nth(6).expect("moves").to_owned())
            .collect::<Vec<_>>()
    };
    let external = format!("ugi:{AGON}");
    let built_in = moves_of(&["--p1", "agon:eval=classic,name=a"], "800", "a.txt");
    let through_go = moves_of(
        &["--p1", &external, "--p1-option", "Eval=classic"],
        "800",
        "b.txt",
    );
    assert_eq!(built_in.len(), 2);
    assert_eq!(through_go, built_in);
    // A player's own nodes= wins over --nodes.
    let own = moves_of(
        &["--p1", "agon:eval=classic,nodes=800,name=a"],
        "50",
        "c.txt",
    );
    let all_50 = moves_of(&["--p1", "agon:eval=classic,name=a"], "50", "d.txt");
    assert_ne!(own, all_50);
    let (ok, _, stderr) = agon(&[
        "match", "--game", "nim", "--p1", "agon", "--p2", "agon", "--nodes", "0",
    ]);
    assert!(
        !ok && stderr.contains("--nodes takes a number above 0"),
        "{stderr}"
    );
}

/// A match whose `--out` already holds some of its games plays only the
/// others (a last line cut short by a kill is dropped and replayed), keeps
/// the recorded ones as they were, and counts them in its score; a file of
/// another match is refused and left untouched.
#[test]
fn a_match_resumes_from_its_out_file_and_refuses_another_matchs() {
    let dir = scratch("match-resume");
    let whole_path = dir.join("whole.txt");
    let mut config = nim_match("agon:name=a", "agon:player=random,name=b", 6);
    config.out = Some(whole_path.clone());
    let (whole, _) = play(&config);
    let whole_text = std::fs::read_to_string(&whole_path).expect("records");
    let lines: Vec<&str> = whole_text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 6);

    // Games 1-3 recorded, game 4's line cut short by the kill.
    let part_path = dir.join("part.txt");
    let cut = &lines[3][..lines[3].len() / 2];
    let part_text = format!(
        "{}\n{}\n{cut}",
        whole_text.lines().next().unwrap(),
        lines[..3].join("\n")
    );
    std::fs::write(&part_path, &part_text).expect("writes");
    config.out = Some(part_path.clone());
    config.pgn = Some(dir.join("part.pgn"));
    let (resumed, printed) = play_all(&config);
    assert!(
        printed.contains(&"Resuming: 3 games already recorded, 3 to play".to_owned()),
        "{printed:?}"
    );
    let finished: Vec<&String> = printed
        .iter()
        .filter(|l| l.starts_with("Finished game"))
        .collect();
    assert_eq!(finished.len(), 3, "{finished:?}");
    for game in 1..=3 {
        let line = format!("Finished game {game} ");
        assert!(
            !finished.iter().any(|l| l.starts_with(&line)),
            "game {game} replayed"
        );
    }
    assert_eq!(resumed.score.games(), 6);
    assert_eq!(resumed.records.len(), 6);
    let after = std::fs::read_to_string(&part_path).expect("records");
    let after_lines: Vec<&str> = after.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        after_lines[..3],
        lines[..3],
        "the recorded games are kept as they were"
    );
    let mut numbers: Vec<usize> = after_lines
        .iter()
        .map(|l| GameRecord::parse(l).expect("a record").number)
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=6).collect::<Vec<_>>());
    let pgn = std::fs::read_to_string(dir.join("part.pgn")).expect("pgn");
    assert_eq!(
        pgn.matches("[Event ").count(),
        6,
        "the PGN holds every game"
    );
    // Nim at 20 ms is decided by the oracle: the same games either way.
    assert_eq!(resumed.score, whole.score);

    // Everything recorded: nothing is played, no engine started.
    let (again, printed) = play_all(&config);
    assert!(printed.contains(&"Resuming: 6 games already recorded, 0 to play".to_owned()));
    assert_eq!(again.score, whole.score);

    // Another match's file: refused, left as it was.
    let before = std::fs::read_to_string(&part_path).expect("records");
    let refusals = [
        (
            nim_match("agon:name=a", "agon:player=random,name=c", 6),
            "played by",
        ),
        (
            MatchConfig {
                time: TimeControl::Clock {
                    base_ms: 1_000,
                    inc_ms: 0,
                },
                ..nim_match("agon:name=a", "agon:player=random,name=b", 6)
            },
            "other settings (time: ",
        ),
        (
            MatchConfig {
                seed: 8,
                ..nim_match("agon:name=a", "agon:player=random,name=b", 6)
            },
            "other settings (seed: ",
        ),
        (
            nim_match("agon:name=a", "agon:player=random,name=b", 2),
            "not one of this run's games",
        ),
    ];
    assert!(
        before.lines().any(|l| l.starts_with("# match {")),
        "the resumed run wrote the match's header: {before}"
    );
    for (mut other, why) in refusals {
        other.out = Some(part_path.clone());
        let error = run_match(&other, &mut Vec::new()).expect_err("another match's file");
        assert!(
            error.contains(why) && error.contains("never overwritten"),
            "{error}"
        );
        assert_eq!(
            std::fs::read_to_string(&part_path).expect("records"),
            before
        );
    }

    // A file written before matches had a header is checked by its records.
    let headerless = dir.join("headerless.txt");
    std::fs::write(&headerless, &part_text).expect("writes");
    let mut clocked = MatchConfig {
        time: TimeControl::Clock {
            base_ms: 1_000,
            inc_ms: 0,
        },
        ..nim_match("agon:name=a", "agon:player=random,name=b", 6)
    };
    clocked.out = Some(headerless.clone());
    let error = run_match(&clocked, &mut Vec::new()).expect_err("another kind of clock");
    assert!(error.contains("another kind of time control"), "{error}");
}
