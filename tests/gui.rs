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
        let until = Instant::now() + deadline;
        loop {
            let state = self.get("/api/state");
            let side = if state["side"] == "x" { 0 } else { 1 };
            let person = state["players"][side]["kind"] == "person";
            if !state["result"].is_null() || (person && state["thinking"].is_null()) {
                return state;
            }
            assert!(Instant::now() < until, "the engine did not move: {state}");
            std::thread::sleep(Duration::from_millis(5));
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
        let mut plies = 0;
        while state["result"].is_null() {
            let legal = state["legal"].as_array().expect("legal moves").clone();
            assert!(!legal.is_empty(), "moves while the game goes on: {state}");
            if plies == 3 {
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
            plies += 1;
            assert!(plies < 5_000, "{variant}: the game never ended");
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
        assert!(pgn.contains(&format!("[PlyCount \"{plies}\"]")), "{pgn}");
    }
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

#[test]
fn engines_that_lie_or_crash_forfeit_and_modes_start_and_stop() {
    let liar = script_engine("liar", "echo 'bestmove z9'");
    let crasher = script_engine("crasher", "exit 3");
    let server = Server::start(&[
        "--engine",
        &format!("liar=ugi:/bin/sh {liar}"),
        "--engine",
        &format!("crasher=ugi:/bin/sh {crasher}"),
    ]);
    let config = server.get("/api/config");
    let engines: Vec<&str> = config["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(engines, ["agon", "liar", "crasher"]);
    assert_eq!(config["games"].as_array().expect("games").len(), 6);
    let cases = [
        ("liar", "o forfeits: illegal move"),
        ("crasher", "o forfeits: crash"),
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
        if state["analysis"]["info"]["depth"].as_u64().unwrap_or(0) >= 3 {
            assert!(state["analysis"]["info"]["pv"].is_array(), "{state}");
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
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        server.port
    )
    .expect("sends");
    let mut reader = BufReader::new(stream);
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
