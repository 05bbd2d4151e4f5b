//! `agon gui`'s HTTP API, through the real binary on a free port: whole
//! games of every game played through it and checked against the rules,
//! engines (the built-in one, and scripted ones that lie or crash), the
//! security checks, and the page's files.

use agon::game::{Game, GameOptions, GameState, Outcome, Player};
use agon::games::{GameVisitor, visit_game};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `agon gui`, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agon"))
            .args(["gui", "--no-open", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("agon gui starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("a line");
        let port = line
            .trim()
            .strip_prefix("agon gui: http://127.0.0.1:")
            .and_then(|rest| rest.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("a URL line, not '{line}'"));
        Server { child, port }
    }

    /// Sends a raw request; returns the status and the body.
    fn raw(&self, request: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        stream.write_all(request.as_bytes()).expect("sends");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("reads");
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a status line in '{answer}'"));
        let body = answer
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_owned());
        (status, body)
    }

    fn request(&self, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
        self.raw(&format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        ))
    }

    fn get(&self, path: &str) -> Value {
        let (status, body) = self.request("GET", path, "", "");
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).expect("JSON")
    }

    /// A POST that must succeed; the new state.
    fn post(&self, path: &str, body: Value) -> Value {
        let (status, text) = self.try_post(path, body.clone());
        assert_eq!(status, 200, "POST {path} {body}: {text}");
        serde_json::from_str(&text).expect("JSON")
    }

    fn try_post(&self, path: &str, body: Value) -> (u16, String) {
        let origin = format!("Origin: http://127.0.0.1:{}\r\n", self.port);
        self.request("POST", path, &origin, &body.to_string())
    }

    /// Waits until a person is to move or the game is over.
    fn wait_for_person(&self, deadline: Duration) -> Value {
        self.wait_for("a person to move", deadline, |state| {
            let side = if state["side"] == "x" { 0 } else { 1 };
            let person = state["players"][side]["kind"] == "person";
            !state["result"].is_null() || (person && state["thinking"].is_null())
        })
    }

    /// Opens the event stream (its lines are read with this timeout).
    fn events(&self, timeout: Duration) -> BufReader<TcpStream> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        stream.set_read_timeout(Some(timeout)).expect("timeout");
        write!(
            stream,
            "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            self.port
        )
        .expect("sends");
        BufReader::new(stream)
    }

    /// Follows the event stream until a state satisfies `done`, and
    /// returns it (as `/api/state` gives it). Polling instead would take
    /// time from the server and the page that the tests measure.
    fn wait_for(&self, what: &str, deadline: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + deadline;
        let mut reader = self.events(deadline);
        let mut line = String::new();
        let mut last = Value::Null;
        loop {
            line.clear();
            let read = reader.read_line(&mut line);
            assert!(
                matches!(read, Ok(n) if n > 0) && Instant::now() < until,
                "never {what}: {last}"
            );
            if let Some(json) = line.strip_prefix("data: ") {
                let mut state: Value = serde_json::from_str(json).expect("JSON event");
                if let Some(fields) = state.as_object_mut() {
                    fields.remove("sent_at_ms");
                }
                if done(&state) {
                    return state;
                }
                last = state;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A small deterministic generator (splitmix64) for choosing moves.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Replays a finished game's record with the library and returns the
/// rules' verdict: the winner (`x`, `o`, `draw`) and the reason.
struct Verdict<'a> {
    state: &'a Value,
    secrets: [String; 2],
}

impl GameVisitor for Verdict<'_> {
    type Output = Option<(String, String)>;
    fn visit<G: Game>(self) -> Self::Output {
        let mut options = G::Options::default();
        for pair in self.state["options"].as_array().expect("options") {
            options
                .set(pair[0].as_str()?, pair[1].as_str()?)
                .expect("valid option");
        }
        if let Some(names) = options.hidden_option_names() {
            for side in [Player::X, Player::O] {
                options
                    .set(names[side.index()], &self.secrets[side.index()])
                    .expect("squares");
            }
        }
        let start = G::from_fen(self.state["start"].as_str()?, &options).expect("start");
        let mut game = GameState::new(start);
        for text in self.state["moves"].as_array()? {
            let mv = game.position.parse_move(text.as_str()?).expect("move");
            assert!(game.position.is_legal(mv), "{text} is legal");
            game.play(mv);
        }
        let winner = match game.outcome()? {
            Outcome::Win(Player::X) => "x",
            Outcome::Win(Player::O) => "o",
            Outcome::Draw => "draw",
        };
        Some((winner.to_owned(), game.end_reason()?.to_owned()))
    }
}

fn rules_verdict(state: &Value, secrets: [String; 2]) -> Option<(String, String)> {
    let game = state["game"].as_str().expect("game").to_owned();
    visit_game(&game, Verdict { state, secrets }).expect("a game")
}

/// Whether the page's server plays `mv` for a person when it is their only
/// legal move (a pass, CTOR's due substitution or a turn's end).
fn is_played_for_person(variant: &Value, mv: &Value) -> bool {
    let mv = mv.as_str().unwrap_or_default();
    match variant["game"].as_str() {
        Some("ataxx") => mv == "0000",
        Some("ctor") => mv == "end" || mv.starts_with('s'),
        _ => false,
    }
}

/// The games played, with options that keep them short where they can.
fn variants() -> Vec<Value> {
    vec![
        json!({"game": "ataxx", "options": {"Rules": "standard"}}),
        json!({"game": "ataxx", "options": {"Rules": "seed", "NoMoveRule": "pass"}}),
        json!({"game": "dots", "options": {"Size": "3x3"}}),
        json!({"game": "nim", "options": {"Heaps": "3/4/5", "Misere": true}}),
        json!({"game": "mutorere"}),
        json!({"game": "yote"}),
        json!({"game": "ctor", "options": {"Size": "8", "Team": 2}}),
        json!({"game": "ctor", "options": {"Secrets": true},
               "secrets": {"x": "1,2,3,4,5"}}),
    ]
}

#[test]
fn every_game_is_played_to_its_end_by_persons_through_the_api() {
    let server = Server::start(&[]);
    let mut rng = Rng(54);
    for variant in variants() {
        let mut request = variant.clone();
        request["players"] = json!([{"kind": "person"}, {"kind": "person"}]);
        let mut state = server.post("/api/new", request);
        let secrets = state["secrets"].clone();
        if variant["game"] == "ctor" && variant["options"]["Secrets"] == true {
            assert_eq!(secrets["x"], "1,2,3,4,5", "x's own squares shown");
            assert!(secrets["o"].is_string(), "o's dealt squares shown to o");
        }
        let mut chosen = 0;
        let mut forced = 0;
        while state["result"].is_null() {
            let legal = state["legal"].as_array().expect("legal moves").clone();
            assert!(!legal.is_empty(), "moves while the game goes on: {state}");
            // A pass-like move the person has no choice about has been
            // played for them, never left to click.
            if legal.len() == 1 {
                assert!(!is_played_for_person(&variant, &legal[0]), "{state}");
            }
            let plies = state["moves"].as_array().expect("moves").len();
            if chosen == 3 {
                // Refused: a move that is not legal, and one for an old
                // position; the game is unchanged.
                let (status, body) =
                    server.try_post("/api/move", json!({"move": "zz9", "ply": plies}));
                assert_eq!(status, 400, "{body}");
                assert!(body.contains("\"error\""), "{body}");
                let (status, _) =
                    server.try_post("/api/move", json!({"move": legal[0], "ply": plies + 1}));
                assert_eq!(status, 400);
                assert_eq!(
                    server.get("/api/state"),
                    state,
                    "a refused move changes nothing"
                );
            }
            let mv = &legal[rng.below(legal.len())];
            state = server.post("/api/move", json!({"move": mv, "ply": plies}));
            chosen += 1;
            let flags = state["forced"].as_array().expect("forced flags");
            forced += flags[plies + 1..]
                .iter()
                .filter(|f| f == &&json!(true))
                .count();
            assert!(chosen < 5_000, "{variant}: the game never ended");
        }
        // A reload shows the same finished game.
        assert_eq!(server.get("/api/state"), state);
        let secret = |side: &str| secrets[side].as_str().unwrap_or_default().to_owned();
        let verdict = rules_verdict(&state, [secret("x"), secret("o")]).expect("over by the rules");
        assert_eq!(state["result"]["winner"], verdict.0, "{variant}");
        assert_eq!(state["result"]["reason"], verdict.1, "{variant}");
        let (status, _) = server.try_post("/api/move", json!({"move": "end"}));
        assert_eq!(status, 400, "no move after the end");
        let (status, pgn) = server.request("GET", "/api/pgn", "", "");
        assert_eq!(status, 200);
        let plies = state["moves"].as_array().expect("moves").len();
        assert_eq!(plies, chosen + forced, "{variant}: {state}");
        assert!(pgn.contains(&format!("[PlyCount \"{plies}\"]")), "{pgn}");
        if variant["game"] == "ctor" {
            assert!(
                forced > 0,
                "{variant}: a turn ends by itself once nothing else is left"
            );
        }
    }
}

#[test]
fn moves_without_a_choice_are_played_for_the_person() {
    let server = Server::start(&[]);
    let moves = |state: &Value| state["moves"].clone();
    // x's only piece is walled in: x passes at once, and again after o's
    // move; taking back goes to before o's move (the pass would come back).
    let walled = "7/7/7/7/ooo4/ooo4/xoo4 x 0 1";
    let pass = json!({"NoMoveRule": "pass"});
    let state = server.post(
        "/api/new",
        json!({"game": "ataxx", "fen": walled, "options": pass}),
    );
    assert_eq!(moves(&state), json!(["0000"]), "{state}");
    assert_eq!(state["forced"], json!([true]));
    assert_eq!(state["side"], "o");
    let (status, _) = server.try_post("/api/takeback", json!({}));
    assert_eq!(status, 400, "nothing chosen to take back");
    let state = server.post("/api/move", json!({"move": "d4", "ply": 1}));
    assert_eq!(moves(&state), json!(["0000", "d4", "0000"]), "{state}");
    assert_eq!(state["forced"], json!([true, false, true]));
    let state = server.post("/api/takeback", json!({}));
    assert_eq!(moves(&state), json!(["0000"]));
    // Against the engine: the pass, then the engine's move.
    server.post(
        "/api/new",
        json!({"game": "ataxx", "fen": walled, "options": pass, "limit": {"kind": "depth", "depth": 2},
               "players": [{"kind": "person"}, {"kind": "engine", "engine": "agon"}]}),
    );
    let state = server.wait_for("the engine's move", Duration::from_secs(20), |s| {
        s["moves"].as_array().is_some_and(|m| m.len() >= 2)
    });
    assert_eq!(state["moves"][0], "0000");
    assert_eq!(state["forced"][0], true);
    assert_eq!(state["forced"][1], false);

    // CTOR: a turn with nothing left but its end ends; o's chips on x's
    // secret squares make x's substitutions due, and they are played.
    let state = server.post(
        "/api/new",
        json!({"game": "ctor", "options": {"Secrets": true},
               "secrets": {"x": "1,2,3,4,5", "o": "60,61,62,63,64"}}),
    );
    assert_eq!(moves(&state), json!([]));
    let state = server.post("/api/move", json!({"move": "10"}));
    assert_eq!(moves(&state), json!(["10", "end"]), "{state}");
    assert_eq!(state["forced"], json!([false, true]));
    server.post("/api/move", json!({"move": "1"}));
    let state = server.post("/api/move", json!({"move": "2"}));
    let played: Vec<&str> = state["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(played[..6], ["10", "end", "1", "2", "end", "s1"], "{state}");
    assert_eq!(state["forced"][5], true, "{state}");
    assert!(played.contains(&"s2"), "{state}");
    assert_eq!(state["side"], "x");
}

#[test]
fn every_game_against_the_built_in_engine_ends_with_the_rules_result() {
    let server = Server::start(&[]);
    let mut rng = Rng(7);
    for (index, variant) in variants().into_iter().enumerate() {
        let mut request = variant.clone();
        // The person plays x in even variants, o in odd ones.
        let engine = json!({"kind": "engine", "engine": "agon", "options": {"Hash": 8}});
        request["players"] = if index % 2 == 0 {
            json!([{"kind": "person"}, engine])
        } else {
            json!([engine, {"kind": "person"}])
        };
        request["limit"] = json!({"kind": "movetime", "ms": 10});
        if index % 2 == 1
            && let Some(squares) = request["secrets"]["x"].take().as_str()
        {
            request["secrets"]["o"] = json!(squares);
        }
        let started = server.post("/api/new", request);
        let secrets = started["secrets"].clone();
        let mut state = server.wait_for_person(Duration::from_secs(30));
        let mut plies = 0;
        while state["result"].is_null() {
            let legal = state["legal"].as_array().expect("legal moves").clone();
            let mv = &legal[rng.below(legal.len())];
            let ply = state["moves"].as_array().expect("moves").len();
            server.post("/api/move", json!({"move": mv, "ply": ply}));
            state = server.wait_for_person(Duration::from_secs(30));
            plies += 1;
            assert!(plies < 3_000, "{variant}: the game never ended");
        }
        let names = &state["names"];
        assert!(names.as_array().expect("names").contains(&json!("agon")));
        // The engine's hidden squares are never shown to its opponent.
        let engine_side = if index % 2 == 0 { "o" } else { "x" };
        assert!(secrets[engine_side].is_null(), "{secrets}");
        // Once the game is over, both sides' squares are shown.
        let end_secrets = &state["secrets"];
        if !secrets.as_object().expect("secrets").is_empty() {
            assert!(end_secrets[engine_side].is_string(), "{end_secrets}");
        }
        let square = |side: &str| end_secrets[side].as_str().unwrap_or_default().to_owned();
        let known = [square("x"), square("o")];
        let verdict = rules_verdict(&state, known);
        let reason = state["result"]["reason"].as_str().expect("a reason");
        match verdict {
            Some((winner, rule)) => {
                assert_eq!(state["result"]["winner"], winner, "{variant}: {state}");
                assert_eq!(reason, rule, "{variant}");
            }
            None => panic!("{variant}: ended by '{reason}', not by the rules: {state}"),
        }
    }
}

/// Writes an executable UGI engine script that `on_go` decides the answer
/// of.
fn script_engine(name: &str, on_go: &str) -> String {
    let dir = std::env::temp_dir().join(format!("agon-gui-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    ugi) echo 'id name {name}'; echo ugiok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).expect("script written");
    path.to_string_lossy().into_owned()
}

/// Ctrl+C or a plain `kill` of `agon gui` ends it with its engines, also
/// one that is thinking (and would outlive a closed input).
#[cfg(unix)]
#[test]
fn a_signal_ends_the_server_and_its_engines() {
    for (signal, name) in [(libc::SIGTERM, "term"), (libc::SIGINT, "int")] {
        let dir = std::env::temp_dir().join(format!("agon-gui-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let pid_file = dir.join(format!("thinker-{name}.pid"));
        let _ = std::fs::remove_file(&pid_file);
        let thinker = script_engine(
            &format!("thinker-{name}"),
            // Thinks for a minute without reading its input.
            &format!("echo $$ > {}; exec sleep 60", pid_file.display()),
        );
        let mut server = Server::start(&["--engine", &format!("thinker=ugi:/bin/sh {thinker}")]);
        server.post(
            "/api/new",
            json!({"game": "nim", "players": [{"kind": "engine", "engine": "thinker"}, {"kind": "person"}],
                   "limit": {"kind": "movetime", "ms": 60_000}}),
        );
        let until = Instant::now() + Duration::from_secs(10);
        let engine: i32 = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                break pid;
            }
            assert!(Instant::now() < until, "the engine never thought");
            std::thread::sleep(Duration::from_millis(20));
        };
        // SAFETY: signals the server this test started.
        unsafe { libc::kill(server.child.id() as i32, signal) };
        let until = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = server.child.try_wait().expect("waits") {
                break status;
            }
            assert!(Instant::now() < until, "the server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(130), "{name}");
        // Killed means no such process, or a zombie left for init to reap
        // (which a container's first process may never do).
        let gone = |pid: i32| {
            // SAFETY: signal 0 only asks whether the process exists.
            let exists = unsafe { libc::kill(pid, 0) } == 0;
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
            });
            !exists || zombie
        };
        let until = Instant::now() + Duration::from_secs(5);
        while !gone(engine) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(gone(engine), "engine {engine} outlived the server ({name})");
    }
}

#[test]
fn engines_that_lie_or_crash_forfeit_and_modes_start_and_stop() {
    let liar = script_engine("liar", "echo 'bestmove z9'");
    let crasher = script_engine("crasher", "exit 3");
    let sleeper = script_engine("sleeper", ":");
    let server = Server::start(&[
        "--engine",
        &format!("liar=ugi:/bin/sh {liar}"),
        "--engine",
        &format!("crasher=ugi:/bin/sh {crasher}"),
        "--engine",
        &format!("sleeper=ugi:/bin/sh {sleeper}"),
    ]);
    let config = server.get("/api/config");
    let engines: Vec<&str> = config["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(engines, ["agon", "liar", "crasher", "sleeper"]);
    assert_eq!(config["games"].as_array().expect("games").len(), 6);
    let cases = [
        ("liar", "o forfeits: illegal move"),
        ("crasher", "o forfeits: crash"),
        // Silent past its move time and the referee's margin.
        ("sleeper", "o forfeits: timeout"),
    ];
    for (name, reason) in cases {
        server.post(
            "/api/new",
            json!({"game": "ataxx", "players": [{"kind": "person"},
                   {"kind": "engine", "engine": name}],
                   "limit": {"kind": "movetime", "ms": 50}}),
        );
        server.post("/api/move", json!({"move": "f1"}));
        let state = server.wait_for_person(Duration::from_secs(10));
        assert_eq!(state["result"]["winner"], "x", "{state}");
        let shown = state["result"]["reason"].as_str().expect("reason");
        assert!(shown.starts_with(reason), "{shown}");
    }

    // Engine against engine, on a clock, watched to the end.
    server.post(
        "/api/new",
        json!({"game": "mutorere", "players": [{"kind": "engine", "engine": "agon"},
               {"kind": "engine", "engine": "agon"}],
               "limit": {"kind": "clock", "base_ms": 5000, "inc_ms": 50}}),
    );
    let state = server.wait_for_person(Duration::from_secs(60));
    assert!(!state["result"].is_null(), "{state}");
    let clocks = state["clocks"].as_array().expect("clocks");
    assert!(clocks.iter().all(|c| c.as_u64().is_some()));

    // A review values every position of the finished game.
    let plies = state["moves"].as_array().expect("moves").len();
    server.post(
        "/api/review",
        json!({"engine": {"engine": "agon"}, "ms": 10}),
    );
    let until = Instant::now() + Duration::from_secs(60);
    let review = loop {
        let review = server.get("/api/state")["review"].clone();
        assert!(review["error"].is_null(), "{review}");
        if review["done"] == review["total"] {
            break review;
        }
        assert!(
            Instant::now() < until,
            "the review did not finish: {review}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(review["total"], plies + 1);
    assert_eq!(review["marks"].as_array().expect("marks").len(), plies);
    assert_eq!(
        review["values"][plies],
        json!({"end": state["result"]["winner"]})
    );
    let (status, _) = server.try_post("/api/review", json!({"engine": {"engine": "nobody"}}));
    assert_eq!(status, 400);

    // Take back in person against engine: back to the person's turn.
    server.post(
        "/api/new",
        json!({"game": "nim", "players": [{"kind": "person"}, {"kind": "engine", "engine": "agon"}],
               "limit": {"kind": "depth", "depth": 3}}),
    );
    server.post("/api/move", json!({"move": "3:1"}));
    let state = server.wait_for_person(Duration::from_secs(10));
    assert_eq!(state["moves"].as_array().expect("moves").len(), 2);
    let state = server.post("/api/takeback", json!({}));
    assert_eq!(state["moves"], json!([]));
    assert_eq!(state["fen"], "3/4/5 x");

    // Analysis: updates arrive, follow a move, and stop.
    server.post(
        "/api/new",
        json!({"game": "ataxx",
        "analysis": {"engine": "agon", "options": {"Hash": 8}}}),
    );
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let state = server.get("/api/state");
        let info = &state["analysis"]["info"];
        if info["depth"].as_u64().unwrap_or(0) >= 3 {
            // The line's first moves come with who plays them (Ataxx: in
            // turn, x first), for the board to draw.
            let pv = info["pv"].as_array().expect("a line");
            let sides = info["pv_sides"].as_array().expect("its sides");
            assert_eq!(sides.len(), pv.len().min(4), "{info}");
            assert!(sides.len() >= 2, "{info}");
            for (i, side) in sides.iter().enumerate() {
                assert_eq!(side, ["x", "o"][i % 2], "{info}");
            }
            break;
        }
        assert!(Instant::now() < until, "no analysis: {state}");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.post("/api/move", json!({"move": "g2"}));
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let state = server.get("/api/state");
        let info = &state["analysis"]["info"];
        if info["ply"] == 1 && info["depth"].as_u64().is_some() {
            break;
        }
        assert!(
            Instant::now() < until,
            "the analysis did not follow: {state}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let state = server.post("/api/analysis", json!({"engine": null}));
    assert!(state["analysis"].is_null());

    // A person's clock runs out: the game is lost on time, with no move.
    server.post(
        "/api/new",
        json!({"game": "ataxx", "limit": {"kind": "clock", "base_ms": 300, "inc_ms": 0}}),
    );
    std::thread::sleep(Duration::from_millis(700));
    let state = server.get("/api/state");
    assert_eq!(state["result"]["winner"], "o", "{state}");
    let reason = state["result"]["reason"].as_str().expect("reason");
    assert!(reason.starts_with("x forfeits: loss on time"), "{reason}");
    assert_eq!(state["clocks"][0], 0);

    // Blockers come with a position string.
    let state = server.post(
        "/api/new",
        json!({"game": "ataxx", "options": {"Rules": "standard"},
               "fen": "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1"}),
    );
    assert_eq!(state["fen"], "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1");
    let (status, _) = server.try_post("/api/move", json!({"move": "a7c5"}));
    assert_eq!(status, 400, "c5 is blocked");
    server.post("/api/move", json!({"move": "a7b5"}));

    // Resigning ends the game for the person.
    let state = server.post("/api/resign", json!({"side": "o"}));
    assert_eq!(
        state["result"],
        json!({"winner": "x", "reason": "o resigns"})
    );
}

#[test]
fn foreign_origins_paths_and_malformed_requests_are_refused() {
    let server = Server::start(&[]);
    let port = server.port;
    // Another web page cannot read or drive the game.
    for (method, path) in [
        ("GET", "/api/state"),
        ("POST", "/api/new"),
        ("GET", "/api/events"),
    ] {
        let (status, body) = server.request(
            method,
            path,
            "Origin: http://evil.example\r\n",
            r#"{"game":"nim"}"#,
        );
        assert_eq!(status, 403, "{method} {path}: {body}");
    }
    // Nor through a host name that resolves to loopback (DNS rebinding).
    let (status, _) = server.raw(&format!(
        "GET /api/state HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n"
    ));
    assert_eq!(status, 403);
    // The page's own origin is served, under either loopback name.
    let (status, _) = server.request(
        "GET",
        "/api/state",
        &format!("Origin: http://localhost:{port}\r\n"),
        "",
    );
    assert_eq!(status, 200);
    // Only the embedded files, by exact name.
    for path in [
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/src/main.rs",
        "/etc/passwd",
        "/page/index.html",
        "/api/../../Cargo.toml",
        "/api/nothing",
    ] {
        let (status, _) = server.request("GET", path, "", "");
        assert_eq!(status, 404, "{path}");
    }
    let (status, page) = server.request("GET", "/", "", "");
    assert_eq!(status, 200);
    assert!(page.contains("<html"), "{page}");
    // Malformed requests get a clear message, and the server lives on.
    for (body, expected) in [
        ("{", "malformed JSON"),
        (r#"{"game":"chess"}"#, "unknown game"),
        (r#"{"game":"ataxx","fen":"x5o/7 x"}"#, "position"),
        (r#"{"game":"nim","options":{"Heaps":"a/b"}}"#, "heap"),
        (
            r#"{"game":"ataxx","options":{"Rules":"x\nquit"}}"#,
            "cannot be set",
        ),
        (
            r#"{"game":"ataxx","players":[{"kind":"engine","engine":"/bin/sh"}]}"#,
            "no engine named",
        ),
        (
            r#"{"game":"ctor","options":{"SecretO":"1,2,3,4,5"}}"#,
            "SecretO",
        ),
        (
            r#"{"game":"ataxx","limit":{"kind":"movetime","ms":0}}"#,
            "movetime",
        ),
    ] {
        let (status, answer) = server.try_post(
            "/api/new",
            serde_json::from_str(body).unwrap_or(json!(body)),
        );
        let answer = if body == "{" {
            server.request("POST", "/api/new", "", "{").1
        } else {
            assert_eq!(status, 400, "{body}: {answer}");
            answer
        };
        let error: Value = serde_json::from_str(&answer).expect("JSON error");
        let message = error["error"].as_str().expect("an error message");
        assert!(message.contains(expected), "{body}: {message}");
    }
    for raw in [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
    ] {
        let (status, _) = server.raw(raw);
        assert!((400..500).contains(&status), "{raw}");
    }
    let (status, _) = server.request("GET", "/api/pgn", "", "");
    assert_eq!(status, 400, "no PGN before the end");
    assert_eq!(server.get("/api/state")["game"], "ataxx");
}

#[test]
fn the_event_stream_sends_the_state() {
    let server = Server::start(&[]);
    let mut reader = server.events(Duration::from_secs(10));
    let mut data = Vec::new();
    let mut line = String::new();
    while data.len() < 2 {
        line.clear();
        reader.read_line(&mut line).expect("reads");
        if let Some(json) = line.strip_prefix("data: ") {
            data.push(serde_json::from_str::<Value>(json).expect("JSON event"));
            if data.len() == 1 {
                server.post("/api/move", json!({"move": "f2"}));
            }
        }
    }
    assert_eq!(data[0]["moves"], json!([]));
    assert_eq!(data[1]["moves"], json!(["f2"]));
}

/// A WebDriver session in headless Chromium, through chromedriver's HTTP
/// JSON API (a few lines of std-only client, like [`Server::raw`]).
struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    /// Starts chromedriver and a headless Chromium; `None` (with one line
    /// saying why) when they are not installed, unless `CI` is set: there
    /// a missing browser fails the test.
    fn start() -> Option<Browser> {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists());
        let driver = "/usr/bin/chromedriver";
        let (Some(chromium), true) = (chromium, std::path::Path::new(driver).exists()) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: chromium and chromedriver must be installed (apt-get install chromium chromium-driver)"
            );
            println!("skipping the browser test: chromium or chromedriver is not installed");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let mut browser = Browser {
            driver: child,
            port,
            session: String::new(),
        };
        let until = Instant::now() + Duration::from_secs(20);
        while browser.call("GET", "/status", None).is_err() {
            assert!(Instant::now() < until, "chromedriver did not answer");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile =
            std::env::temp_dir().join(format!("agon-gui-chromium-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1100,1000",
            &format!("--user-data-dir={}", profile.display()),
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let answer = browser
            .call("POST", "/session", Some(capabilities))
            .expect("a browser session");
        browser.session = answer["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        // Waits run in the page (see `wait_until`), up to a minute or two.
        browser.command("POST", "/timeouts", Some(json!({"script": 300_000})));
        Some(browser)
    }

    /// One WebDriver command; its `value`, or the error it reports.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| e.to_string())?;
        // chromedriver keeps connections open: read the head, then exactly
        // Content-Length bytes.
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("connection closed".into());
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .ok_or("no Content-Length")?;
        let mut body = vec![0; length];
        reader.read_exact(&mut body).map_err(|e| e.to_string())?;
        let body = String::from_utf8_lossy(&body);
        let body = body.as_ref();
        let value: Value = serde_json::from_str(body).map_err(|e| format!("{e}: {body}"))?;
        if head.split(' ').nth(1) != Some("200") {
            return Err(value["value"].to_string());
        }
        Ok(value["value"].clone())
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body)
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    fn open(&self, url: &str) {
        self.command("POST", "/url", Some(json!({"url": url})));
    }

    /// Runs a script in the page and returns its value.
    fn script(&self, script: &str) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Clicks the element `selector` finds, as a person's mouse would.
    fn click(&self, selector: &str) {
        for _ in 0..3 {
            let found = self.command(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": selector})),
            );
            let id = found[ELEMENT].as_str().expect("an element").to_owned();
            let path = format!("/session/{}/element/{id}/click", self.session);
            match self.call("POST", &path, Some(json!({}))) {
                Ok(_) => return,
                // Redrawn between finding and clicking (the engine's line
                // moved its hint): find it again, as an eye would.
                Err(e) if e.contains("stale element") => continue,
                Err(e) => panic!("clicking {selector}: {e}"),
            }
        }
        panic!("clicking {selector}: the element kept being redrawn");
    }

    /// Saves a PNG screenshot of the window.
    fn screenshot(&self, path: &std::path::Path) {
        // Clicks scroll the page; the picture shows it from the top.
        self.script("window.scrollTo(0, 0); return true");
        let data = self.command("GET", "/screenshot", None);
        let png = base64_decode(data.as_str().expect("base64"));
        std::fs::write(path, png).expect("screenshot written");
    }

    /// Saves a PNG of the element `selector` finds (the board and its
    /// players, for the README).
    fn element_screenshot(&self, selector: &str, path: &std::path::Path) {
        // chromedriver crops a scrolled page's element at the wrong place.
        self.script("window.scrollTo(0, 0); return true");
        let found = self.command(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": selector})),
        );
        let id = found[ELEMENT].as_str().expect("an element").to_owned();
        let data = self.command("GET", &format!("/element/{id}/screenshot"), None);
        let png = base64_decode(data.as_str().expect("base64"));
        std::fs::write(path, png).expect("screenshot written");
    }

    /// Waits until `script` returns true. The page checks it itself every
    /// few milliseconds: a WebDriver round trip as often would take the
    /// page's time that the test measures.
    fn wait_until(&self, script: &str, what: &str, timeout: Duration) {
        let waiter = format!(
            "const done = arguments[0]; const until = performance.now() + {};
             const test = () => {{ {script} }};
             const check = () => {{
               let ok = false;
               try {{ ok = test() === true; }} catch (e) {{}}
               if (ok || performance.now() > until) done(ok); else setTimeout(check, 5);
             }};
             check();",
            timeout.as_millis()
        );
        let shown = self.command(
            "POST",
            "/execute/async",
            Some(json!({"script": waiter, "args": []})),
        );
        if shown != json!(true) {
            let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-failure.png");
            self.screenshot(&shot);
            let seen = self.script(
                "return [document.body.dataset.ply, document.getElementById('message').textContent, document.getElementById('status').textContent]",
            );
            panic!(
                "the page never showed {what} (it shows {seen}; {})",
                shot.display()
            );
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for v in text.bytes().filter_map(value) {
        buffer = (buffer << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}

/// The clicks (CSS selectors) a person makes on the board for a move.
fn clicks_for(game: &str, mv: &str) -> Vec<String> {
    let square = |s: &str| format!("#board [data-sq=\"{s}\"]");
    let special = |m: &str| vec![format!("#special [data-move=\"{m}\"]")];
    match game {
        "ataxx" if mv == "0000" => special(mv),
        "ataxx" if mv.len() == 4 => vec![square(&mv[..2]), square(&mv[2..])],
        "ataxx" => vec![square(mv)],
        "dots" | "nim" => vec![format!("#board [data-move=\"{mv}\"]")],
        "mutorere" => vec![format!("#board [data-point=\"{}\"]", &mv[..1])],
        "yote" if mv.starts_with('@') => vec![square(&mv[1..])],
        "yote" => {
            let mut clicks = vec![square(&mv[..2]), square(&mv[2..4])];
            if let Some(removed) = mv.get(5..) {
                clicks.push(square(removed));
            }
            clicks
        }
        "ctor" if mv == "end" || mv.starts_with('s') => special(mv),
        "ctor" => {
            if let Some(sq) = mv.strip_prefix('x') {
                vec![square(sq)]
            } else if let Some((from, to)) = mv.split_once('-') {
                vec![square(from), square(to)]
            } else if let Some((pair, to)) = mv.split_once('@') {
                let (a, b) = pair.split_once('+').expect("a landing");
                vec![square(a), square(b), square(to)]
            } else {
                vec![square(mv)]
            }
        }
        _ => panic!("no clicks for {game} {mv}"),
    }
}

/// The number of moves the engines played in a game's state.
fn count_engine_moves(state: &Value) -> usize {
    state["movers"]
        .as_array()
        .expect("movers")
        .iter()
        .filter(|&m| state["players"][usize::from(m != "x")]["kind"] == "engine")
        .count()
}

/// Sets up a game with the page's own form and starts it.
fn start_in_page(browser: &Browser, game: &str, options: &Value, mode: &str, movetime: u32) {
    let previous = browser.script("return document.body.dataset.id || ''");
    let set_options: String = options
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(name, value)| {
                    format!(
                        "{{const i = document.querySelector('[data-option=\"{name}\"]'); if (i.type === 'checkbox') i.checked = {value}; else i.value = {}; i.dispatchEvent(new Event('change'));}}",
                        json!(value.as_str().map_or(value.to_string(), str::to_owned))
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    browser.script(&format!(
        "const g = document.getElementById('game'); g.value = '{game}'; g.dispatchEvent(new Event('change'));
         {set_options}
         const m = document.getElementById('mode'); m.value = '{mode}'; m.dispatchEvent(new Event('change'));
         document.getElementById('person-side').value = 'x';
         document.getElementById('opt-hash').value = '8';
         const l = document.getElementById('limit'); l.value = 'movetime'; l.dispatchEvent(new Event('change'));
         document.getElementById('limit-ms').value = '{movetime}';"
    ));
    browser.click("#start");
    browser.wait_until(
        &format!("return (document.body.dataset.id || '') !== {previous}"),
        "the new game",
        Duration::from_secs(10),
    );
}

#[test]
fn a_browser_plays_every_game_against_the_engine_by_clicking() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let server = Server::start(&[]);
    browser.open(&format!("http://127.0.0.1:{}/", server.port));
    browser.wait_until(
        "return document.body.dataset.ply === '0' && document.querySelector('#board svg') !== null",
        "the board",
        Duration::from_secs(20),
    );
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-screenshots");
    std::fs::create_dir_all(&shots).expect("screenshot directory");
    let mut rng = Rng(2026);
    let games = [
        ("ataxx", json!({"Rules": "standard"})),
        ("dots", json!({"Size": "3x3"})),
        ("nim", json!({"Heaps": "3/4/5"})),
        ("mutorere", json!({})),
        ("yote", json!({})),
        ("ctor", json!({"Secrets": true})),
    ];
    let (mut engine_moves, mut before_reload) = (0, 0);
    for (game, options) in games {
        start_in_page(&browser, game, &options, "pe", 20);
        let mut moves_clicked = 0;
        // The board's picture (for the README) is taken in the middle of
        // the game, where there is something to see.
        let shot_at = match game {
            "nim" => 1,
            "ctor" => 12,
            _ => 4,
        };
        let board_shot = shots.join(format!("{game}-board.png"));
        let mut shot_taken = false;
        loop {
            let state = server.wait_for_person(Duration::from_secs(30));
            let ply = state["moves"].as_array().expect("moves").len();
            browser.wait_until(
                &format!("return document.body.dataset.ply === '{ply}'"),
                &format!("ply {ply}"),
                Duration::from_secs(10),
            );
            if !state["result"].is_null() {
                break;
            }
            if game == "ataxx" && moves_clicked == 2 {
                // A reload resumes the game where it is (and measures
                // only the moves after it).
                before_reload = count_engine_moves(&state);
                browser.open(&format!("http://127.0.0.1:{}/", server.port));
                browser.wait_until(
                    &format!("return document.body.dataset.ply === '{ply}' && document.querySelector('#board svg') !== null"),
                    "the game after a reload",
                    Duration::from_secs(10),
                );
            }
            if moves_clicked == shot_at {
                browser.element_screenshot("#board", &board_shot);
                shot_taken = true;
            }
            let legal = state["legal"].as_array().expect("legal").clone();
            let mv = legal[rng.below(legal.len())]
                .as_str()
                .expect("a move")
                .to_owned();
            for selector in clicks_for(game, &mv) {
                browser.click(&selector);
            }
            server.wait_for(
                &format!("{game}: {mv} played by clicking"),
                Duration::from_secs(5),
                |state| state["moves"].as_array().is_some_and(|m| m.len() > ply),
            );
            moves_clicked += 1;
            assert!(moves_clicked < 2_000, "{game}: no end");
        }
        let state = server.get("/api/state");
        engine_moves += count_engine_moves(&state);
        let secrets = &state["secrets"];
        let square = |side: &str| secrets[side].as_str().unwrap_or_default().to_owned();
        let (winner, reason) =
            rules_verdict(&state, [square("x"), square("o")]).expect("ended by the rules");
        assert_eq!(state["result"]["winner"], winner, "{game}");
        assert_eq!(state["result"]["reason"], reason, "{game}");
        browser.wait_until(
            &format!("return document.getElementById('result').dataset.winner === '{winner}'"),
            &format!("{game}'s result"),
            Duration::from_secs(5),
        );
        browser.screenshot(&shots.join(format!("{game}.png")));
        if !shot_taken {
            browser.element_screenshot("#board", &board_shot);
        }
        if game == "dots" {
            // One click reviews the game: every position valued, the moves
            // marked.
            browser.script("document.getElementById('review-ms').value = '20'; return true");
            browser.click("#review");
            browser.wait_until(
                "const p = document.getElementById('review-progress'); return !p.hidden && p.max > 0 && p.value === p.max",
                "the finished review",
                Duration::from_secs(60),
            );
            browser.screenshot(&shots.join("dots-review.png"));
        }
        println!("{game}: {moves_clicked} moves clicked, {winner} ({reason})");
    }

    let engine_moves = engine_moves - before_reload;
    // From the server's reading of the engine's bestmove to the end of the
    // frame that shows it, for every engine move of the six games (drawn
    // alone or with the moves after it).
    browser.wait_until(
        &format!("return window.agonLatency.engine.length === {engine_moves}"),
        &format!("the latency of all {engine_moves} engine moves"),
        Duration::from_secs(5),
    );
    let steps = browser.script("return window.agonLatency.steps");
    std::fs::write(shots.join("latency.json"), steps.to_string()).expect("written");
    let steps = steps.as_array().expect("latencies");
    let total = |s: &Value| s["total"].as_f64().expect("a total");
    let mut sorted: Vec<f64> = browser
        .script("return window.agonLatency.engine")
        .as_array()
        .expect("latencies")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    sorted.sort_unstable_by(f64::total_cmp);
    assert!(!sorted.is_empty(), "no engine move measured");
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
    let worst = steps
        .iter()
        .max_by(|a, b| total(a).total_cmp(&total(b)))
        .expect("a move");
    let parts = ["server", "wire", "parse", "draw", "wait", "paint"];
    let describe = |s: &Value| -> String {
        parts
            .iter()
            .map(|p| format!("{p} {:.1}", s[p].as_f64().unwrap_or(f64::NAN)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let medians: Value = parts
        .iter()
        .map(|p| {
            let mut v: Vec<f64> = steps.iter().filter_map(|s| s[p].as_f64()).collect();
            v.sort_unstable_by(f64::total_cmp);
            (p.to_string(), json!(v[v.len() / 2]))
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    println!(
        "engine move to board: median {:.0} ms, 90th percentile {:.0} ms, worst {:.0} ms over {} moves ({} with their steps)\n  median steps (ms): {}\n  worst move's steps (ms): {}",
        at(0.5),
        at(0.9),
        at(1.0),
        engine_moves,
        steps.len(),
        describe(&medians),
        describe(worst),
    );

    let clicks: Vec<f64> = browser
        .script("return window.agonLatency.click")
        .as_array()
        .expect("click latencies")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    let worst_click = clicks.iter().copied().fold(0.0, f64::max);
    println!(
        "person's click to their move drawn: worst {worst_click:.0} ms over {} moves",
        clicks.len()
    );

    // A pass the person has no choice about is played without a click and
    // said so: x's only piece is walled in, set up through the page.
    start_in_page(&browser, "ataxx", &json!({"NoMoveRule": "pass"}), "pp", 20);
    browser.script(
        "document.getElementById('fen').value = '7/7/7/7/ooo4/ooo4/xoo4 x 0 1'; return true",
    );
    browser.click("#set");
    browser.wait_until(
        "const item = document.querySelector('#moves li.forced');
         return document.body.dataset.ply === '1' && item !== null && item.textContent.includes('0000')
           && document.getElementById('summary').textContent.includes('x 0000: played automatically')
           && document.querySelector('#special button') === null",
        "the pass played for the person",
        Duration::from_secs(10),
    );
    browser.element_screenshot("#play", &shots.join("forced-pass.png"));

    // The set-up's board editor: blockers toggled by clicks, a piece
    // placed, the side to move chosen; the server sets the position up.
    start_in_page(&browser, "ataxx", &json!({"Rules": "standard"}), "pp", 20);
    browser.click("#edit");
    for (tool, squares) in [("-", &["c3", "e5", "b6", "b6"][..]), ("x", &["d4"])] {
        browser.click(&format!("#editor [data-tool=\"{tool}\"]"));
        for square in squares {
            browser.click(&format!("#editor [data-edit-sq=\"{square}\"]"));
        }
    }
    browser.script(
        "const s = document.getElementById('editor-side'); s.value = 'o'; s.dispatchEvent(new Event('change')); return true",
    );
    browser.element_screenshot("#position-box", &shots.join("editor.png"));
    let edited = "x5o/7/4-2/3x3/2-4/7/o5x o 0 1";
    assert_eq!(
        browser.script("return document.getElementById('fen').value"),
        json!(edited),
        "the editor's position string"
    );
    let previous = server.get("/api/state")["id"].clone();
    browser.click("#set");
    let state = server.wait_for("the edited position", Duration::from_secs(10), |s| {
        s["id"] != previous
    });
    assert_eq!(state["start"], edited, "{state}");
    assert_eq!(state["side"], "o");
    assert!(
        !state["legal"].as_array().expect("legal").iter().any(|m| m
            .as_str()
            .is_some_and(|m| m.ends_with("c3") || m.ends_with("e5"))),
        "nothing moves onto a blocker: {state}"
    );
    browser.wait_until(
        &format!(
            "return document.getElementById('editor').hidden && document.getElementById('fen').value === '{edited}'
               && document.querySelectorAll('#board .square.blocked').length === 2"
        ),
        "the edited position on the board",
        Duration::from_secs(10),
    );
    browser.element_screenshot("#play", &shots.join("edited.png"));

    // An engine against itself, watched to the end.
    start_in_page(&browser, "mutorere", &json!({}), "ee", 10);
    browser.wait_until(
        "return document.getElementById('result').dataset.winner !== undefined",
        "the engine game's result",
        Duration::from_secs(60),
    );

    // Analysis: the line and its depth update while the engine thinks.
    start_in_page(&browser, "ataxx", &json!({}), "an", 20);
    browser.wait_until(
        "return Number(document.getElementById('analysis').dataset.updates || 0) >= 5",
        "analysis updates",
        Duration::from_secs(30),
    );
    let updates = || {
        browser
            .script("return Number(document.getElementById('analysis').dataset.updates || 0)")
            .as_u64()
            .unwrap_or_default()
    };
    // The engine's line on the board: its first moves numbered, in each
    // side's colour.
    browser.wait_until(
        "const marks = [...document.querySelectorAll('#board [data-pv]')].map((m) => m.dataset.pv);
         return ['1', '2', '3'].every((n) => marks.includes(n))
           && document.querySelector('#board .pv-badge.pv-x') !== null
           && document.querySelector('#board .pv-badge.pv-o') !== null",
        "the line's first three moves on the board",
        Duration::from_secs(30),
    );
    browser.element_screenshot("#board", &shots.join("analysis-board.png"));
    // Every game draws the line's moves its own way (a solved position's
    // line is its first move; CTOR's 'end' is counted, not drawn).
    for (game, options, shown) in [
        ("dots", json!({"Size": "3x3"}), 1),
        ("nim", json!({"Heaps": "3/4/5"}), 1),
        ("mutorere", json!({}), 1),
        ("yote", json!({}), 3),
        ("ctor", json!({}), 2),
    ] {
        start_in_page(&browser, game, &options, "an", 20);
        browser.wait_until(
            &format!(
                "const marks = [...document.querySelectorAll('#board [data-pv]')].map((m) => m.dataset.pv);
                 return marks.includes('1') && new Set(marks).size >= {shown}"
            ),
            &format!("{game}: the line's first {shown} moves on the board"),
            Duration::from_secs(30),
        );
        browser.element_screenshot("#board", &shots.join(format!("analysis-{game}.png")));
    }
    start_in_page(&browser, "ataxx", &json!({}), "an", 20);
    browser.wait_until(
        "return Number(document.getElementById('analysis').dataset.updates || 0) >= 5",
        "analysis updates",
        Duration::from_secs(30),
    );
    let (before, started) = (updates(), Instant::now());
    std::thread::sleep(Duration::from_secs(2));
    let rate = (updates() - before) as f64 / started.elapsed().as_secs_f64();
    let clicked = Instant::now();
    browser.click("#board [data-sq=\"f2\"]");
    browser.wait_until(
        "return document.body.dataset.ply === '1'",
        "the move played during the analysis",
        Duration::from_secs(10),
    );
    let in_page = browser.script("const c = window.agonLatency.click; return c[c.length - 1]");
    println!(
        "analysis: {rate:.1} updates/s; a click during it drawn after {:.0} ms in the page ({} ms with WebDriver's round trips)",
        in_page.as_f64().expect("a click measured"),
        clicked.elapsed().as_millis()
    );
    browser.wait_until(
        "return Number(document.getElementById('analysis').dataset.updates || 0) >= 2",
        "the analysis following the move",
        Duration::from_secs(30),
    );
    browser.screenshot(&shots.join("analysis.png"));

    // A phone-sized window: the board comes first and fits the width.
    browser.command(
        "POST",
        "/window/rect",
        Some(json!({"width": 390, "height": 844})),
    );
    let fits = browser.script(
        "const b = document.querySelector('#board svg').getBoundingClientRect(); return b.width > 300 && b.right <= window.innerWidth;",
    );
    browser.screenshot(&shots.join("phone.png"));
    assert_eq!(fits, json!(true), "the board fits a phone's width");
}
