//! The protocol loop: handshake, options, positions, queries, searches and
//! every kind of bad input. Most tests drive the engine in-process; the last
//! ones run the real binary to check bytes, end of input and exit status.

use agon::protocol::engine::{Engine, Flow};
use agon::protocol::output::{Output, SharedBuffer};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Driver {
    engine: Engine,
    out: SharedBuffer,
}

impl Driver {
    fn new() -> Driver {
        let (output, out) = Output::capture();
        Driver {
            engine: Engine::new(output),
            out,
        }
    }

    /// Sends one line and returns what it printed synchronously.
    fn send(&mut self, line: &str) -> Vec<String> {
        self.out.clear();
        assert_eq!(self.engine.handle_line(line), Flow::Continue, "{line}");
        self.out.lines()
    }

    /// Sends `go …` and waits for `bestmove`; returns every line.
    fn search(&mut self, line: &str) -> Vec<String> {
        self.out.clear();
        self.engine.handle_line(line);
        self.wait_bestmove(Duration::from_secs(20))
    }

    fn wait_bestmove(&mut self, timeout: Duration) -> Vec<String> {
        self.wait_line("bestmove", timeout)
    }

    /// Waits until a line starting with `prefix` is out; returns every line.
    fn wait_line(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let start = Instant::now();
        loop {
            let lines = self.out.lines();
            if lines.iter().any(|l| l.starts_with(prefix)) {
                return lines;
            }
            assert!(start.elapsed() < timeout, "no {prefix}: {lines:?}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Sends `perft …` and waits for its `nodes` line or its error.
    fn perft(&mut self, line: &str) -> Vec<String> {
        self.out.clear();
        self.engine.handle_line(line);
        let start = Instant::now();
        loop {
            let lines = self.out.lines();
            if lines
                .iter()
                .any(|l| l.starts_with("nodes") || l.starts_with("info string"))
            {
                return lines;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "{lines:?}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn answer(&mut self, query: &str) -> String {
        let lines = self.send(query);
        assert_eq!(lines.len(), 1, "{query}: {lines:?}");
        lines[0].clone()
    }
}

fn is_error(lines: &[String]) -> bool {
    lines.len() == 1 && lines[0].starts_with("info string error: ")
}

fn nim_driver() -> Driver {
    let mut d = Driver::new();
    assert!(d.send("setoption name Game value nim").is_empty());
    d
}

#[test]
fn handshake_announces_options_and_can_repeat() {
    let mut d = Driver::new();
    let first = d.send("ugi");
    assert!(first[0].starts_with("id name Agon"));
    assert!(first[1].starts_with("id author"));
    assert_eq!(first.last().map(String::as_str), Some("ugiok"));
    for option in [
        "Game",
        "Hash",
        "Threads",
        "Search",
        "MoveOverhead",
        "Heaps",
        "Misere",
    ] {
        let prefix = format!("option name {option} type ");
        assert!(
            first.iter().any(|l| l.starts_with(&prefix)),
            "missing {option}"
        );
    }
    assert!(first.iter().any(|l| l
        == "option name Search type combo default auto var auto var alphabeta var mcts var turns"));
    // `Size` is `4x4` for dots and `8` for ctor: it used to announce
    // `4x4`, invalid for ctor; the empty default restores each game's own.
    assert!(
        first
            .iter()
            .any(|l| l == "option name Size type string default <empty>"),
        "{first:?}"
    );
    assert!(d.send("setoption name Size value 10").is_empty());
    assert!(d.send("setoption name Size value 3x3").is_empty());
    d.send("setoption name Game value ctor");
    assert_eq!(
        d.answer("query fen"),
        "response 10/10/10/10/10/10/10/10/10/10 x 1 0/0/0/0 0"
    );
    assert!(d.send("setoption name Size value <empty>").is_empty());
    assert_eq!(
        d.answer("query fen"),
        "response 8/8/8/8/8/8/8/8 x 1 0/0/0/0 0"
    );
    d.send("setoption name Game value dots");
    assert!(d.answer("query fen").starts_with("response 4x4 "));
    d.send("setoption name Game value nim");
    assert_eq!(d.send("ugi"), first, "ugi again changes nothing");
    assert_eq!(d.send("isready"), vec!["readyok"]);
    assert!(d.send("").is_empty(), "blank lines are ignored");
}

#[test]
fn a_nim_game_end_to_end() {
    let mut d = nim_driver();
    d.send("uginewgame");
    d.send("position startpos");
    let mut moves: Vec<String> = Vec::new();
    while d.answer("query gameover") == "response false" {
        let lines = d.search("go movetime 50");
        let best = lines.last().expect("bestmove line").clone();
        let words: Vec<&str> = best.split(' ').collect();
        assert_eq!(
            words.len(),
            2,
            "final line is exactly 'bestmove <move>': {best}"
        );
        moves.push(words[1].to_owned());
        assert!(
            d.send(&format!("position startpos moves {}", moves.join(" ")))
                .is_empty()
        );
    }
    // Perfect play from 3/4/5 (nim-sum 2): the first player takes the last object.
    assert_eq!(d.answer("query result"), "response p1win");
    assert_eq!(d.answer("query moves"), "response");
    assert_eq!(d.answer("query fen"), "response 0/0/0 o");
    assert_eq!(d.answer("query p1turn"), "response false");
}

#[test]
fn go_in_a_finished_game_answers_none() {
    let mut d = nim_driver();
    d.send("position fen 0/0/0 x");
    let lines = d.send("go depth 3");
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("info string error: "));
    assert_eq!(lines[1], "bestmove (none)");
}

#[test]
fn both_searches_run_on_nim() {
    let mut d = nim_driver();
    d.send("position fen 2/3/4 x");
    d.send("setoption name Search value alphabeta");
    let lines = d.search("go depth 4");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 4 ")),
        "{lines:?}"
    );
    let best = lines.last().expect("bestmove");
    // 2^3^4 = 5: the only winning moves leave nim-sum 0: 3:3 (4->1).
    assert_eq!(best, "bestmove 3:3");
}

#[test]
fn bad_options_leave_everything_as_it_was() {
    let mut d = nim_driver();
    d.send("position fen 1/2 x");
    for bad in [
        "setoption name Hash value 0",
        "setoption name Hash value 99999999999999999999",
        "setoption name Hash value many",
        "setoption name Threads value -1",
        "setoption name Search value minimax",
        "setoption name Game value chess",
        "setoption name Wibble value 3",
        "setoption name Heaps value 3/x",
        "setoption name Misere value maybe",
        "setoption name",
        "setoption value 3",
        "setoption",
    ] {
        assert!(is_error(&d.send(bad)), "no error for '{bad}'");
    }
    assert_eq!(d.answer("query fen"), "response 1/2 x", "position kept");
    assert!(d.send("setoption name Heaps value 1/1").is_empty());
    assert_eq!(
        d.answer("query fen"),
        "response 1/1 x",
        "a game option resets to its start"
    );
}

#[test]
fn bad_positions_and_moves_keep_the_previous_position() {
    let mut d = nim_driver();
    d.send("position fen 3/4/5 x moves 1:1");
    for bad in [
        "position",
        "position fen",
        "position startpos extra",
        "position fen 3/4/5",
        "position fen 3/4/5 q",
        "position startpos moves 1:1 2:9",
        "position startpos moves 1:1 e2e4",
        "position startpos moves 1:3 2:4 3:5 1:1",
        "position fen 0/0/0 x moves 1:1",
        "position startpos moves 99999999999999999999999:1",
    ] {
        assert!(is_error(&d.send(bad)), "no error for '{bad}'");
    }
    let lines = d.send("position startpos moves 1:1 2:9");
    assert!(
        lines[0].contains("move 2 '2:9'"),
        "the error names the move and its index: {lines:?}"
    );
    assert_eq!(d.answer("query fen"), "response 2/4/5 o");
}

#[test]
fn malformed_go_does_not_search() {
    let mut d = nim_driver();
    for bad in [
        "go depth",
        "go depth x",
        "go depth 0",
        "go depth 65",
        "go movetime -1",
        "go wibble",
        "go btime 10",
    ] {
        assert!(is_error(&d.send(bad)), "no error for '{bad}'");
    }
    std::thread::sleep(Duration::from_millis(20));
    assert!(!d.out.lines().iter().any(|l| l.starts_with("bestmove")));
}

#[test]
fn perft_command_divides_and_totals() {
    let mut d = nim_driver();
    let lines = d.perft("perft 2");
    assert_eq!(lines.len(), 13);
    assert_eq!(lines[0], "1:1: 11");
    assert_eq!(
        lines[12], "nodes 113",
        "144 minus the 31 objects the first moves take"
    );
    for bad in ["perft", "perft 0", "perft 65", "perft x", "perft 2 3"] {
        assert!(is_error(&d.send(bad)), "no error for '{bad}'");
    }
    d.send("setoption name Heaps value 1000000/1");
    assert!(is_error(&d.send("perft 1")), "too many moves to list");
    assert!(is_error(&d.send("query moves")));
}

#[test]
fn perft_runs_like_a_search_and_stops() {
    // It used to block the engine: `isready` answered after 21 s on
    // Mū Tōrere depth 36, and `stop` was ignored.
    let mut d = Driver::new();
    d.send("setoption name Game value mutorere");
    d.out.clear();
    d.engine.handle_line("perft 40");
    let start = Instant::now();
    d.engine.handle_line("isready");
    assert!(d.out.lines().iter().any(|l| l == "readyok"));
    assert!(is_error(&d.send("go depth 1")), "one job at a time");
    assert!(is_error(&d.send("perft 2")), "one job at a time");
    d.engine.handle_line("stop");
    assert!(start.elapsed() < Duration::from_secs(2));
    let lines = d.out.lines();
    assert_eq!(
        lines.last().map(String::as_str),
        Some("info string perft stopped")
    );
    assert!(!lines.iter().any(|l| l.starts_with("nodes")), "{lines:?}");
    let lines = d.perft("perft 2");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("nodes 2"),
        "{lines:?}"
    );
}

#[test]
fn unknown_and_garbage_lines_are_errors() {
    let mut d = nim_driver();
    d.send("position fen 1/2/3 x");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    for _ in 0..300 {
        let length = rng.random_range(1..60);
        let line: String = (0..length)
            .map(|_| char::from(rng.random_range(0x21u8..0x7f)))
            .collect();
        let lines = d.send(&line);
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "{line}: {lines:?}"
        );
    }
    d.engine.stop_search();
    assert_eq!(d.answer("query fen"), "response 1/2/3 x");
    assert!(is_error(&d.send("query")));
    assert!(is_error(&d.send("query wibble")));
    assert!(is_error(&d.send("xyzzy")));
}

#[test]
fn isready_and_stop_during_infinite_search() {
    let mut d = nim_driver();
    d.send("setoption name Search value alphabeta");
    d.send("setoption name Heaps value 7/7/7/7/7");
    d.send("position startpos");
    d.out.clear();
    d.engine.handle_line("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    d.engine.handle_line("isready");
    assert!(d.out.lines().iter().any(|l| l == "readyok"));
    assert!(!d.out.lines().iter().any(|l| l.starts_with("bestmove")));
    assert!(is_error(&d.send("go depth 1")), "one search at a time");
    let start = Instant::now();
    d.engine.handle_line("stop");
    // stop waits for the search thread, so bestmove is already out.
    let waited = start.elapsed();
    let lines = d.out.lines();
    assert!(
        lines.last().is_some_and(|l| l.starts_with("bestmove ")),
        "{lines:?}"
    );
    assert!(waited < Duration::from_millis(500), "stop took {waited:?}");
    assert!(
        d.send("stop").is_empty(),
        "stop without a search is harmless"
    );
}

fn run_binary(input: &[u8]) -> (i32, String) {
    run_command(Command::new(env!("CARGO_BIN_EXE_agon")), input)
}

/// Runs `command` with `input` on its standard input (written from a
/// thread, so a large input cannot deadlock against the output); returns
/// the exit status and standard output.
fn run_command(mut command: Command, input: &[u8]) -> (i32, String) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("the command ends");
    writer.join().expect("writer");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn binary_survives_random_bytes_and_exits_cleanly_at_eof() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let mut input = Vec::new();
    input.extend_from_slice(b"setoption name Game value nim\n");
    for _ in 0..200 {
        let length = rng.random_range(0..80);
        input.extend((0..length).map(|_| rng.random::<u8>()));
        input.push(b'\n');
    }
    input.extend_from_slice(b"\xff\xfe\xfd not utf-8\n");
    input.extend_from_slice(&[b'9'; 5000]);
    input.extend_from_slice(b"\nsetoption name Hash value 184467440737095516160000\n");
    input.extend_from_slice(b"position fen 1/2 x\nquery fen\nisready\n");
    input.extend_from_slice(b"go depth 2"); // truncated last line, no newline
    let (code, stdout) = run_binary(&input);
    assert_eq!(code, 0);
    assert!(stdout.contains("input line is not valid UTF-8"));
    assert!(stdout.contains("response 1/2 x"));
    assert!(stdout.contains("readyok"));
    assert!(
        stdout.trim_end().ends_with("bestmove 2:1"),
        "the last line still runs: {stdout}"
    );
    let bestmoves = stdout.lines().filter(|l| l.starts_with("bestmove")).count();
    assert!(bestmoves >= 1, "{stdout}");
}

#[test]
fn binary_quits_on_quit_and_on_empty_input() {
    assert_eq!(run_binary(b"").0, 0);
    let (code, stdout) = run_binary(b"ugi\nquit\nisready\n");
    assert_eq!(code, 0);
    assert!(stdout.contains("ugiok"));
    assert!(!stdout.contains("readyok"), "nothing after quit");
}

#[test]
fn binary_rejects_a_huge_line() {
    let mut input = vec![b'a'; (1 << 20) + 10];
    input.extend_from_slice(b"\nisready\n");
    let (code, stdout) = run_binary(&input);
    assert_eq!(code, 0);
    assert!(stdout.contains("longer than"));
    assert!(stdout.contains("readyok"));
}

/// Runs the binary with its address space limited to `kib` KiB.
fn run_binary_limited(input: &[u8], kib: u64) -> (i32, String) {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\""))
        .arg(env!("CARGO_BIN_EXE_agon"));
    run_command(command, input)
}

#[test]
fn a_hash_the_system_refuses_is_an_error_not_an_abort() {
    // `Hash 65536` under a 2 GiB address space used to abort the process
    // (`memory allocation of 68719476672 bytes failed`, exit 134).
    let input = b"setoption name Hash value 65536\nisready\ngo depth 3\n";
    let (code, stdout) = run_binary_limited(input, 2 << 20);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains(
            "info string error: cannot allocate a 65536 MiB hash table; the search keeps a "
        ),
        "{stdout}"
    );
    assert!(stdout.contains("readyok"), "{stdout}");
    let best = stdout
        .lines()
        .find(|l| l.starts_with("bestmove"))
        .unwrap_or("");
    assert!(
        best.len() > "bestmove ".len() && !best.contains("(none)"),
        "{stdout}"
    );
    // MCTS grows its tree on demand and stops where memory ends.
    let input = b"setoption name Search value mcts\nsetoption name Hash value 65536\nisready\ngo nodes 2000\n";
    let (code, stdout) = run_binary_limited(input, 2 << 20);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("readyok") && stdout.contains("bestmove "),
        "{stdout}"
    );
}

#[test]
fn ataxx_is_the_default_game() {
    let mut d = Driver::new();
    let lines = d.send("position startpos moves zz");
    assert!(
        lines[0].starts_with("info string error: move 1 'zz' is not a legal ataxx move here"),
        "{lines:?}"
    );
    assert_eq!(d.answer("query fen"), "response x5o/7/7/7/7/7/o5x x 0 1");
    assert_eq!(d.answer("query p1turn"), "response true");
    let lines = d.perft("perft 2");
    assert_eq!(lines.last().map(String::as_str), Some("nodes 256"));
    let moves = d.answer("query moves");
    assert_eq!(
        moves.split(' ').count(),
        17,
        "response and 16 moves: {moves}"
    );
}

#[test]
fn ataxx_game_options_and_positions() {
    let mut d = Driver::new();
    assert!(d.send("setoption name Rules value standard").is_empty());
    assert!(d.send("setoption name NoMoveRule value pass").is_empty());
    assert!(is_error(&d.send("setoption name Rules value chess")));
    // x has no move on this board and o has one: under standard rules x passes.
    d.send("position fen xoo4/ooo4/ooo4/7/7/7/7 x 0 1");
    assert_eq!(d.answer("query moves"), "response 0000");
    assert!(
        d.send("position fen xoo4/ooo4/ooo4/7/7/7/7 x 0 1 moves 0000")
            .is_empty()
    );
    assert_eq!(d.answer("query p1turn"), "response false");
    assert!(
        is_error(&d.send("position startpos moves g1 g2 1:1")),
        "a nim move in ataxx"
    );
    let lines = d.send("position startpos moves g2 a2 g3 zz");
    assert!(lines[0].contains("move 4 'zz'"), "{lines:?}");
    let lines = d.send("d");
    assert!(
        lines
            .iter()
            .any(|l| l == "Fen: xoo4/ooo4/ooo4/7/7/7/7 o 1 1"),
        "errors kept the position: {lines:?}"
    );
}

#[test]
fn uai_session_with_black_moving_first() {
    let mut d = Driver::new();
    d.send("setoption name Rules value seed");
    let lines = d.send("uai");
    assert_eq!(lines.last().map(String::as_str), Some("uaiok"));
    assert_eq!(d.send("isready"), vec!["readyok"]);
    d.send("uainewgame");
    d.send("position startpos moves g2");
    assert_eq!(d.answer("query fen"), "response x5o/7/7/7/7/6x/o5x o 0 1");
    let lines = d.search("go btime 1000 wtime 1000 binc 10 winc 10");
    let best = lines.last().expect("bestmove");
    let mv = best.strip_prefix("bestmove ").expect("bestmove line");
    assert!(
        d.send(&format!("position startpos moves g2 {mv}"))
            .is_empty(),
        "{mv} is legal"
    );
    assert!(
        is_error(&d.send("go p1time 1000")),
        "UGI clock names are not UAI"
    );
    // uai switched Ataxx to standard rules: repetition does not end games.
    assert!(
        d.send("position startpos moves g1e3 a1c3 e3g1 c3a1 g1e3 a1c3 e3g1 c3a1")
            .is_empty()
    );
    assert_eq!(d.answer("query gameover"), "response false");
}

#[test]
fn seed_rules_end_a_game_on_third_repetition() {
    let mut d = Driver::new();
    assert!(
        d.send("position startpos moves g1e3 a1c3 e3g1 c3a1 g1e3 a1c3 e3g1 c3a1")
            .is_empty()
    );
    assert_eq!(d.answer("query gameover"), "response true");
    assert_eq!(d.answer("query result"), "response draw", "2 pieces each");
    let lines = d.send("position startpos moves g1e3 a1c3 e3g1 c3a1 g1e3 a1c3 e3g1 c3a1 g1e3");
    assert!(
        lines[0].contains("move 9 'g1e3': the game is already over"),
        "{lines:?}"
    );
}

#[test]
fn a_command_right_after_bestmove_finds_the_search_finished() {
    let mut d = Driver::new();
    for _ in 0..100 {
        d.out.clear();
        d.engine.handle_line("go depth 1");
        d.wait_bestmove(Duration::from_secs(10));
        // As a runner does: the next command follows the bestmove at once.
        d.out.clear();
        d.engine.handle_line("go depth 1");
        let lines = d.wait_bestmove(Duration::from_secs(10));
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        d.engine.stop_search();
    }
}

#[test]
fn many_searches_stopped_at_random_moments() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000);
    for (game, search) in [
        ("ataxx", "mcts"),
        ("ataxx", "alphabeta"),
        ("dots", "mcts"),
        ("yote", "mcts"),
    ] {
        let mut d = Driver::new();
        d.send(&format!("setoption name Game value {game}"));
        d.send(&format!("setoption name Search value {search}"));
        d.send("setoption name Threads value 2");
        d.send("setoption name Hash value 8");
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..40 {
            d.send(&format!("position startpos moves {}", moves.join(" ")));
            if d.answer("query gameover") == "response true" {
                moves.clear();
                continue;
            }
            d.out.clear();
            d.engine.handle_line("go infinite");
            std::thread::sleep(Duration::from_micros(rng.random_range(0..3000)));
            d.engine.handle_line("stop");
            let lines = d.out.lines();
            let best = lines.last().expect("bestmove after stop");
            let mv = best.strip_prefix("bestmove ").expect("bestmove line");
            moves.push(mv.to_owned());
            let check = d.send(&format!("position startpos moves {}", moves.join(" ")));
            assert!(check.is_empty(), "{game}/{search}: illegal {mv}: {check:?}");
        }
    }
}

#[test]
fn alphabeta_on_several_threads_stops_at_once_and_answers_a_legal_move() {
    let (output, out) = Output::capture();
    let mut d = Driver {
        engine: Engine::new(output),
        out,
    };
    for line in [
        "setoption name Game value ataxx",
        "setoption name Search value alphabeta",
        "setoption name Threads value 2",
        "setoption name Hash value 8",
        "isready",
        "position startpos moves f2",
    ] {
        d.send(line);
    }
    d.out.clear();
    d.engine.handle_line("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    d.engine.handle_line("stop");
    let waited = start.elapsed();
    let lines = d.out.lines();
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("bestmove after stop")
        .to_owned();
    assert!(waited < Duration::from_millis(100), "stop took {waited:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth")),
        "{lines:?}"
    );
    // The move is legal: playing it is accepted.
    assert!(
        d.send(&format!("position startpos moves f2 {best}"))
            .is_empty()
    );
    // A clock-limited search on two threads ends by itself.
    let lines = d.search("go p1time 2000 p2time 2000 p1inc 20 p2inc 20");
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
}

#[test]
fn dots_go_solves_only_where_the_solver_is_predicted_to_finish() {
    let mut d = Driver::new();
    d.send("setoption name Game value dots");
    d.send("setoption name Threads value 2");
    // 28 undrawn lines, 18 of them safe: predicted well under a second.
    d.send("position fen 4x4 0011100000010000001001001000001001011100 0 0 x");
    let lines = d.search("go movetime 8000");
    assert!(
        lines
            .iter()
            .any(|l| l == "info string solved: win for the side to move, final margin 2"),
        "{lines:?}"
    );
    let best = lines
        .last()
        .expect("bestmove")
        .trim_start_matches("bestmove ");
    assert!(["a4b4", "a5b5", "a2a3"].contains(&best), "{best}");
    // From empty the solve would take far longer than the move: the search
    // answers, on time, without trying it.
    d.send("position startpos");
    let start = Instant::now();
    let lines = d.search("go movetime 300");
    assert!(start.elapsed() < Duration::from_secs(3), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string solved")),
        "{lines:?}"
    );
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ")));
}

/// A small Ataxx network with seeded random weights, written to a file.
fn random_ataxx_network(path: &std::path::Path, seed: u64, inputs: usize) {
    use agon::network::{Network, NetworkParts};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let hidden = 16;
    let mut weights =
        |n: usize| -> Vec<i16> { (0..n).map(|_| rng.random_range(-60..=60)).collect() };
    let parts = NetworkParts {
        game: "ataxx".into(),
        inputs,
        hidden,
        buckets: 1,
        scale: 400,
        input_weights: weights(inputs * hidden),
        hidden_bias: weights(hidden),
        output_weights: weights(hidden),
        output_bias: vec![0],
    };
    let network = Network::from_parts(parts).expect("consistent parts");
    std::fs::write(path, network.to_bytes()).expect("write network");
}

/// The score of the last `info` line of a search from a cleared table.
fn searched_score(d: &mut Driver, go: &str) -> String {
    d.send("uginewgame");
    let lines = d.search(go);
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let at = info.find("score ").expect("a score");
    info[at..]
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn eval_file_loads_a_network_and_a_bad_file_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("agon-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let good = dir.join("good.net");
    random_ataxx_network(&good, 7, 2965);
    let wrong_inputs = dir.join("wrong.net");
    random_ataxx_network(&wrong_inputs, 7, 100);
    let truncated = dir.join("truncated.net");
    let bytes = std::fs::read(&good).expect("read");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let foreign = dir.join("foreign.net");
    std::fs::write(&foreign, b"#!/bin/sh\necho not a network\n").expect("write");

    let mut d = Driver::new();
    d.send("setoption name Search value alphabeta");
    d.send("position startpos");
    let go = "go depth 4";
    assert!(d.send("setoption name Eval value classic").is_empty());
    let classic = searched_score(&mut d, go);
    assert!(d.send("setoption name Eval value auto").is_empty());
    let set = format!("setoption name EvalFile value {}", good.display());
    assert!(d.send(&set).is_empty(), "a good file is accepted");
    let loaded = searched_score(&mut d, go);
    assert_ne!(loaded, classic, "the loaded network evaluates");
    for bad in [
        &wrong_inputs,
        &truncated,
        &foreign,
        &dir.join("missing.net"),
    ] {
        let lines = d.send(&format!("setoption name EvalFile value {}", bad.display()));
        assert!(
            is_error(&lines),
            "no error for {}: {lines:?}",
            bad.display()
        );
        assert_eq!(
            searched_score(&mut d, go),
            loaded,
            "{} changed the network",
            bad.display()
        );
    }
    assert!(is_error(&d.send("setoption name Eval value neural")));
    assert!(d.send("setoption name Eval value classic").is_empty());
    assert_eq!(
        searched_score(&mut d, go),
        classic,
        "Eval classic ignores the file"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// CTOR's shipped network learned from 8×8 games with one player a team:
/// `Eval auto` uses it there (the scores differ from `Eval classic`) and
/// evaluates 10×10 and team play classically (the same scores).
#[test]
fn ctor_uses_its_shipped_network_only_where_it_learned() {
    let cases = [
        ("8", "1", "8/1o6/3o4/8/8/8/x7/8 x 3 0/0/0/0 0", true),
        (
            "10",
            "1",
            "10/1o8/3o6/10/10/10/x9/10/10/10 x 3 0/0/0/0 0",
            false,
        ),
        ("8", "3", "8/1o6/3o4/8/8/8/x7/8 x 4 0/0/0/0 0", false),
    ];
    for (size, team, fen, network) in cases {
        let mut d = Driver::new();
        for line in [
            "setoption name Game value ctor",
            "setoption name Search value alphabeta",
            &format!("setoption name Size value {size}"),
            &format!("setoption name Team value {team}"),
        ] {
            assert!(d.send(line).is_empty(), "{line}");
        }
        d.send(&format!("position fen {fen}"));
        let go = "go depth 4";
        let auto = searched_score(&mut d, go);
        assert!(d.send("setoption name Eval value classic").is_empty());
        let classic = searched_score(&mut d, go);
        assert_eq!(
            auto != classic,
            network,
            "size {size} team {team}: {auto} / {classic}"
        );
    }
}

/// Two engines, each told only its own CTOR secret squares, play a game
/// through a loop that only forwards moves (as a generic runner does):
/// every substitution is found by the engine that owns the square, and no
/// line either engine prints — `info` lines, `bestmove`, `query fen`, the
/// diagram — shows an unused secret square, except `query secrets`.
#[test]
fn ctor_secret_squares_through_a_forwarding_runner_never_leak() {
    for hidden in ["expect", "sample", "ignore"] {
        secret_game_through_a_forwarding_runner(hidden, ["SecretX", "SecretO"]);
    }
    // A runner that sets one option per engine for the whole match, while
    // the engines change sides: `SecretMine`.
    secret_game_through_a_forwarding_runner("expect", ["SecretMine", "SecretMine"]);
}

fn secret_game_through_a_forwarding_runner(hidden: &str, own_option: [&str; 2]) {
    let secrets = ["1,10,19,28,37", "4,13,22,31,40"];
    let mut engines = [Driver::new(), Driver::new()];
    for (side, engine) in engines.iter_mut().enumerate() {
        for line in [
            "setoption name Game value ctor",
            "setoption name Secrets value true",
            "setoption name Team value 2",
            &format!("setoption name HiddenInfo value {hidden}"),
        ] {
            assert!(engine.send(line).is_empty(), "{line}");
        }
        let own = own_option[side];
        assert!(
            engine
                .send(&format!("setoption name {own} value {}", secrets[side]))
                .is_empty()
        );
        let told = engine.answer("query secrets");
        let expected = match (own, side) {
            ("SecretMine", _) => format!("response x - o - mine {}", secrets[side]),
            (_, 0) => format!("response x {} o -", secrets[0]),
            _ => format!("response x - o {}", secrets[1]),
        };
        assert_eq!(told, expected);
    }
    let squares = |list: &str| -> Vec<String> { list.split(',').map(str::to_owned).collect() };
    let own: [Vec<String>; 2] = [squares(secrets[0]), squares(secrets[1])];
    let mut moves: Vec<String> = Vec::new();
    let mut used: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut substitutions = 0;
    for _ in 0..160 {
        let position = if moves.is_empty() {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        for engine in engines.iter_mut() {
            assert!(engine.send(&position).is_empty(), "{position}");
        }
        if engines[0].answer("query gameover") == "response true" {
            break;
        }
        let side = usize::from(engines[0].answer("query p1turn") == "response false");
        let mut printed = engines[side].search("go depth 2");
        let best = printed
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("bestmove")
            .to_owned();
        for engine in engines.iter_mut() {
            printed.extend(engine.send("query fen"));
            printed.extend(engine.send("d"));
        }
        // What may be public once this move is played.
        if let Some(square) = best.strip_prefix('s') {
            assert!(own[side].contains(&square.to_owned()), "false claim {best}");
            used[side].push(square.to_owned());
            substitutions += 1;
        }
        for line in &printed {
            for (owner, list) in own.iter().enumerate() {
                if used[owner].len() < 5 {
                    assert!(!line.contains(secrets[owner]), "leak in '{line}'");
                }
                for square in list.iter().filter(|q| !used[owner].contains(q)) {
                    let token = format!("s{square}");
                    assert!(
                        !line.split_whitespace().any(|w| w == token),
                        "unused secret {square} in '{line}'"
                    );
                }
            }
            if let Some(fen) = line.strip_prefix("response ").filter(|f| f.contains('/')) {
                let field = fen.split_whitespace().nth(5).expect("secret field");
                let parts: Vec<&str> = field.split('/').collect();
                for owner in 0..2 {
                    let listed = parts[owner]
                        .split(',')
                        .filter(|q| *q != "-")
                        .filter(|q| !used[owner].iter().any(|u| u == q))
                        .filter(|q| best != format!("s{q}"))
                        .count();
                    assert_eq!(listed, 0, "unused square listed as used in '{line}'");
                }
            }
        }
        moves.push(best);
    }
    assert!(
        substitutions >= 2,
        "{hidden}: only {substitutions} substitutions in {moves:?}"
    );
}

/// The `time` of the last `info` line before `bestmove`.
fn last_info_time(lines: &[String]) -> u64 {
    last_info_field(lines, "time")[0]
        .parse()
        .expect("a number of ms")
}

#[test]
fn hash_is_made_at_setoption_not_inside_the_next_search() {
    // `setoption name Hash value 1024` then `go movetime 50` at once used to
    // report `time 1437`: the table was made inside the search's time. The
    // largest table this test can afford to fill quickly:
    let mut d = Driver::new();
    d.send("ugi");
    d.send("setoption name Hash value 256");
    let lines = d.search("go movetime 50");
    let time = last_info_time(&lines);
    assert!(time <= 150, "the search took {time} ms: {lines:?}");
    // The same for a new game chosen with `Game`, whose table is made then.
    d.send("setoption name Game value yote");
    let lines = d.search("go movetime 50");
    let time = last_info_time(&lines);
    assert!(time <= 150, "the search took {time} ms: {lines:?}");
}

#[test]
fn an_empty_value_is_a_string_options_default_and_an_error_elsewhere() {
    let mut d = Driver::new();
    d.send("setoption name Rules value standard");
    let before = d.send("query fen");
    // `Rules` (combo), `Misere` (check), `Team` (spin) and the engine's
    // options need a value: an empty one used to reset `Rules` silently.
    for name in [
        "Rules", "Misere", "Team", "Hash", "Threads", "Search", "Game",
    ] {
        for empty in [
            format!("setoption name {name} value"),
            format!("setoption name {name}"),
            format!("setoption name {name} value <empty>"),
        ] {
            let out = d.send(&empty);
            assert_eq!(out.len(), 1, "{empty}: {out:?}");
            assert!(
                out[0].starts_with(&format!("info string error: option {name} needs a value")),
                "{empty}: {out:?}"
            );
        }
    }
    assert_eq!(d.send("query fen"), before, "nothing changed");
    d.send("setoption name Rules value STANDARD");
    assert_eq!(d.send("query fen"), before);
    // String options: an empty value is their default.
    d.send("setoption name Game value nim");
    assert!(d.send("setoption name Heaps value 2/2").is_empty());
    assert_eq!(d.send("query fen"), ["response 2/2 x"]);
    assert!(d.send("setoption name Heaps value").is_empty());
    assert_eq!(d.send("query fen"), ["response 3/4/5 x"]);
    d.send("setoption name Game value ctor");
    d.send("setoption name SecretX value 1,2,3,4,5");
    assert!(d.send("setoption name SecretX value <empty>").is_empty());
    assert_eq!(d.send("query secrets"), ["response x - o -"]);
}

#[test]
fn every_option_value_is_read_by_one_parser_per_kind() {
    let mut d = Driver::new();
    let error = |out: Vec<String>| out.len() == 1 && out[0].starts_with("info string error:");
    // Integers: digits, leading zeros allowed, no sign.
    assert!(error(d.send("setoption name Threads value +2")));
    assert!(error(d.send("setoption name Hash value 8.0")));
    assert!(d.send("setoption name Hash value 08").is_empty());
    d.send("setoption name Game value ctor");
    assert!(d.send("setoption name Team value 02").is_empty());
    let mut two = agon::games::ctor::CtorOptions::default();
    let mut zero_two = two;
    agon::game::GameOptions::set(&mut two, "Team", "2").expect("valid");
    agon::game::GameOptions::set(&mut zero_two, "Team", "02").expect("valid");
    assert_eq!(zero_two, two, "Team 02 is Team 2");
    assert_ne!(two, agon::games::ctor::CtorOptions::default());
    assert!(error(d.send("setoption name Team value +2")));
    assert!(d.send("setoption name Size value 010").is_empty());
    assert!(d.send("query fen")[0].starts_with("response 10/"));
    // Words in any case.
    assert!(d.send("setoption name Game value DOTS").is_empty());
    assert!(d.send("setoption name Size value 2X3").is_empty());
    assert!(d.send("query fen")[0].starts_with("response 2x3 "));
    assert!(d.send("setoption name Game value NIM").is_empty());
    assert!(d.send("setoption name Misere value TRUE").is_empty());
    // Lists: blanks around items ignored, no empty item.
    assert!(d.send("setoption name Heaps value 3 / 4 / 5").is_empty());
    assert_eq!(d.send("query fen"), ["response 3/4/5 x"]);
    assert!(error(d.send("setoption name Heaps value 3/4/")));
    assert!(error(d.send("setoption name Heaps value 3//4")));
    d.send("setoption name Game value ctor");
    assert!(
        d.send("setoption name SecretX value 1, 2, 3, 4, 5")
            .is_empty()
    );
    assert!(error(d.send("setoption name SecretX value 1,2,3,4,5,")));
    assert!(error(d.send("setoption name SecretX value 1,2,3,4,+5")));
    assert!(d.send("setoption name SecretO value AUTO").is_empty());
    // A game's error names the game once.
    let out = d.send("setoption name Team value 4");
    assert_eq!(
        out,
        ["info string error: ctor: option Team must be from 1 to 3, not 4"]
    );
}

#[test]
fn error_lines_escape_control_bytes() {
    let mut d = Driver::new();
    let out = d.send("foo\u{1}\u{2}bar");
    assert_eq!(
        out,
        ["info string error: unknown command 'foo\\x01\\x02bar'"]
    );
}

#[test]
fn a_long_iteration_shows_its_progress_and_nothing_follows_bestmove() {
    // A GUI's analysis used to stand still for seconds while one alpha-beta
    // iteration ran: the last completed line is repeated every 200 ms with
    // the nodes and time so far.
    let mut d = Driver::new();
    d.send("setoption name Search value alphabeta");
    d.send("position startpos");
    d.send("go infinite");
    std::thread::sleep(Duration::from_millis(2_500));
    // Not `send`, which would clear the lines printed so far.
    d.engine.handle_line("stop");
    let lines = d.wait_bestmove(Duration::from_secs(5));
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    let field = |line: &str, name: &str| -> String {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|&w| w == name).expect("a field");
        words[at + 1].to_owned()
    };
    let line_part = |line: &str| line.split(" pv ").nth(1).unwrap_or("").to_owned();
    let progress = infos.windows(2).any(|pair| {
        field(pair[0], "depth") == field(pair[1], "depth")
            && field(pair[0], "score") == field(pair[1], "score")
            && line_part(pair[0]) == line_part(pair[1])
            && field(pair[1], "nodes").parse::<u64>().unwrap()
                > field(pair[0], "nodes").parse::<u64>().unwrap()
    });
    assert!(progress, "no progress line: {lines:?}");
    // A progress line never repeats an iteration after a deeper one's line
    // (it once could, printed between a report and its being kept).
    let depths: Vec<u32> = infos
        .iter()
        .map(|l| field(l, "depth").parse().unwrap())
        .collect();
    assert!(depths.windows(2).all(|d| d[0] <= d[1]), "{depths:?}");
    assert!(
        lines.last().is_some_and(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    // Nothing after `bestmove`, even a moment later.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(d.out.lines().last(), lines.last());
}

/// The words of the last `info depth` line after `field` (e.g. `pv`).
fn last_info_field(lines: &[String], field: &str) -> Vec<String> {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line: {lines:?}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|&w| w == field).expect(field);
    words[at + 1..].iter().map(|w| w.to_string()).collect()
}

fn best_move(lines: &[String]) -> String {
    let last = lines.last().expect("a bestmove line");
    last.strip_prefix("bestmove ").expect("bestmove").to_owned()
}

/// With `Tune.turn_plan 1`, on a clock, CTOR's search over whole turns
/// spends the turn's whole budget on its first operation and plays the
/// rest of the turn from that search at once: each later `go` answers the
/// line's next operation with no search (`nodes 0`), until `end`. A
/// position that leaves the plan, or a fixed move time, is searched again;
/// so is every operation by default.
#[test]
fn ctor_on_a_clock_plays_the_rest_of_the_turn_from_its_first_search() {
    let fen = "8/1o1o4/8/x7/8/o2x4/8/8 x 5 0/0/0/0 0";
    let clock = "go p1time 6000 p2time 6000 p1inc 0 p2inc 0";
    let mut d = Driver::new();
    assert!(d.send("setoption name Game value ctor").is_empty());
    d.send(&format!("position fen {fen}"));
    let first = d.search(clock);
    let planned = last_info_field(&first, "pv");
    d.send(&format!("position fen {fen} moves {}", planned[0]));
    let second = d.search(clock);
    assert!(last_info_field(&second, "nodes")[0] != "0", "{second:?}");

    assert!(d.send("setoption name Tune.turn_plan value 1").is_empty());
    d.send("uginewgame");
    d.send(&format!("position fen {fen}"));
    let started = Instant::now();
    let first = d.search(clock);
    // The turn's plan: a thirtieth of the clock less the overhead, about
    // 200 ms; an even share of six operations would be 33 ms.
    assert!(started.elapsed() >= Duration::from_millis(120), "{first:?}");
    assert!(last_info_field(&first, "nodes")[0] != "0");
    let planned = last_info_field(&first, "pv");
    assert_eq!(best_move(&first), planned[0]);
    let end = planned
        .iter()
        .position(|m| m == "end")
        .expect("the turn ends");
    let mut played = vec![planned[0].clone()];
    for step in 1..=end {
        d.send(&format!("position fen {fen} moves {}", played.join(" ")));
        let lines = d.search(clock);
        assert_eq!(best_move(&lines), planned[step], "{lines:?}");
        assert_eq!(last_info_field(&lines, "nodes")[0], "0", "{lines:?}");
        assert_eq!(last_info_field(&lines, "pv"), planned[step..], "{lines:?}");
        played.push(planned[step].clone());
    }
    // The opponent's turn is searched (the plan is spent).
    d.send(&format!("position fen {fen} moves {}", played.join(" ")));
    let answer = d.search(clock);
    assert!(last_info_field(&answer, "nodes")[0] != "0", "{answer:?}");

    // A fixed move time searches every operation.
    d.send("uginewgame");
    d.send(&format!("position fen {fen}"));
    let first = d.search("go movetime 50");
    let planned = last_info_field(&first, "pv");
    d.send(&format!("position fen {fen} moves {}", planned[0]));
    let second = d.search("go movetime 50");
    assert!(last_info_field(&second, "nodes")[0] != "0", "{second:?}");

    // Another first operation than the plan's: searched again.
    d.send("uginewgame");
    d.send(&format!("position fen {fen}"));
    let first = d.search(clock);
    let planned = best_move(&first);
    d.send(&format!("position fen {fen}"));
    let moves = d.answer("query moves");
    let other = moves
        .split_whitespace()
        .find(|m| *m != planned && *m != "end")
        .expect("another operation");
    d.send(&format!("position fen {fen} moves {other}"));
    let lines = d.search(clock);
    assert!(last_info_field(&lines, "nodes")[0] != "0", "{lines:?}");
}

/// `Search auto` in CTOR searches whole turns with one player a team (its
/// line at `go depth 1` is a whole turn, through `end`) and plays
/// alpha-beta with teams of 3, where the turn search lost (two operations
/// at `go depth 2`, one a ply).
#[test]
fn ctor_auto_searches_whole_turns_only_where_that_played_better() {
    let fen = "8/1o1o4/8/x7/8/o2x4/8/8 x 5 0/0/0/0 0";
    for (team, go, whole_turn) in [("1", "go depth 1", true), ("3", "go depth 2", false)] {
        let mut d = Driver::new();
        assert!(d.send("setoption name Game value ctor").is_empty());
        assert!(
            d.send(&format!("setoption name Team value {team}"))
                .is_empty()
        );
        d.send(&format!("position fen {fen}"));
        let pv = last_info_field(&d.search(go), "pv");
        if whole_turn {
            assert!(
                pv.len() > 2 && pv.last().is_some_and(|m| m == "end"),
                "{pv:?}"
            );
        } else {
            assert!(pv.len() <= 2, "{pv:?}");
        }
    }
}
