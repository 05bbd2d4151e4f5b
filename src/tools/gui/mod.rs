//! `agon gui`: a local web board for every game. The server listens on
//! loopback only and serves one page embedded in the binary (no CDN, no
//! build step, works offline) and a small JSON API:
//!
//! | request | effect |
//! |---|---|
//! | `GET /api/config` | the games and their options, the engines |
//! | `GET /api/state` | the game in progress (a reload resumes it) |
//! | `GET /api/events` | Server-Sent Events: the state after every change |
//! | `POST /api/new` | a new game: game, options, position, seats, limit |
//! | `POST /api/move` | a person's move, as text |
//! | `POST /api/takeback`, `/api/resign`, `/api/analysis` | as named |
//! | `POST /api/review` | an engine values every position of the finished game |
//! | `GET /api/pgn` | the finished game as PGN |
//!
//! The rules live here, not in the page: every move is checked by Agon's
//! game library ([`table`]), engines move under the referee of `agon
//! match`. Security: only requests whose `Host` is this server's own
//! loopback address and whose `Origin`, when sent, is this page are
//! served (another web page, or a DNS-rebinding host name, cannot drive a
//! local engine); only the embedded files are served, by exact name; and
//! the only processes ever started are the configured engines.

mod http;
mod page;
pub mod table;

use crate::games::{GAME_NAMES, visit_game};
use crate::tools::matches::spec::{Dialect, ExternalSpec, PlayerKind, PlayerSpec};
use http::{Request, respond};
use serde_json::{Value, json};
use std::io::{BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use table::{Controller, Create, EngineChoice, Limit, NewGame, OptionSpecs, Seat};

/// Most connections served at once; more wait in the listen queue.
const MAX_CONNECTIONS: usize = 64;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an idle event stream sends a comment (so a closed page is
/// noticed and its thread ends).
const KEEPALIVE: Duration = Duration::from_secs(15);
/// The name of the built-in engine.
pub const BUILTIN_ENGINE: &str = "agon";

/// An engine the page may choose: a name and the command that runs it,
/// fixed when the server starts.
#[derive(Clone, Debug)]
pub struct EngineEntry {
    /// The name the page shows and sends.
    pub name: String,
    /// How to run it.
    pub spec: ExternalSpec,
}

/// What `agon gui` is started with.
#[derive(Clone, Debug)]
pub struct GuiConfig {
    /// The port to listen on; 0 picks a free one.
    pub port: u16,
    /// The engines, the built-in one first.
    pub engines: Vec<EngineEntry>,
    /// Open the page in the default browser.
    pub open: bool,
}

/// The engines' niceness under `agon gui` unless `--engine-nice` says
/// otherwise: a searching engine takes a whole core, and on a small
/// machine the browser then drew an engine's move up to twice as late.
pub const ENGINE_NICENESS: i32 = 10;

impl GuiConfig {
    /// The configuration for `agon gui`: the built-in engine (this program,
    /// `agon_program`, in UGI mode) and the `--engine NAME=ugi:CMD` ones,
    /// every one run at `niceness` (0 to 19) below this program.
    pub fn new(
        port: u16,
        agon_program: PathBuf,
        engine_args: &[String],
        open: bool,
        niceness: i32,
    ) -> Result<GuiConfig, String> {
        if !(0..=19).contains(&niceness) {
            return Err(format!("--engine-nice takes 0 to 19, not {niceness}"));
        }
        let mut engines = vec![EngineEntry {
            name: BUILTIN_ENGINE.to_owned(),
            spec: ExternalSpec {
                dialect: Dialect::Ugi,
                program: agon_program.to_string_lossy().into_owned(),
                args: vec!["ugi".to_owned()],
                options: Vec::new(),
                niceness,
                nodes: None,
            },
        }];
        for arg in engine_args {
            let (name, command) = arg.split_once('=').ok_or_else(|| {
                format!("--engine takes NAME=ugi:CMD or NAME=uai:CMD, not '{arg}'")
            })?;
            let name = name.trim();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            {
                return Err(format!(
                    "engine name '{name}' must be letters, digits, '-', '_' or '.'"
                ));
            }
            if engines.iter().any(|e| e.name == name) {
                return Err(format!("engine name '{name}' is given twice"));
            }
            let spec = PlayerSpec::parse(command)?;
            let PlayerKind::External(mut spec) = spec.kind else {
                return Err(format!(
                    "--engine {name}: the command must start with ugi: or uai:, not '{command}'"
                ));
            };
            spec.niceness = niceness;
            engines.push(EngineEntry {
                name: name.to_owned(),
                spec,
            });
        }
        Ok(GuiConfig {
            port,
            engines,
            open,
        })
    }
}

/// Tells event streams that the game changed.
#[derive(Default)]
pub struct Notifier {
    version: Mutex<u64>,
    changed: Condvar,
}

impl Notifier {
    /// Announces a change.
    pub fn bump(&self) {
        let mut version = self.version.lock().unwrap_or_else(|e| e.into_inner());
        *version += 1;
        self.changed.notify_all();
    }

    fn current(&self) -> u64 {
        *self.version.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the version differs from `seen` or `timeout` passes;
    /// the version then.
    fn wait(&self, seen: u64, timeout: Duration) -> u64 {
        let version = self.version.lock().unwrap_or_else(|e| e.into_inner());
        let (version, _) = self
            .changed
            .wait_timeout_while(version, timeout, |v| *v == seen)
            .unwrap_or_else(|e| e.into_inner());
        *version
    }
}

/// The running server.
pub struct Gui {
    listener: TcpListener,
    shared: Arc<Shared>,
}

struct Shared {
    port: u16,
    engines: Vec<EngineEntry>,
    game: Mutex<Arc<dyn Controller>>,
    notifier: Arc<Notifier>,
    games_started: AtomicU64,
    connections: AtomicUsize,
}

impl Gui {
    /// Binds 127.0.0.1 on the configured port (0: a free one) and sets up a
    /// first game (Ataxx, person against person: no engine runs until the
    /// page asks for one).
    pub fn bind(config: &GuiConfig) -> Result<Gui, String> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, config.port)))
            .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", config.port))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?
            .port();
        let notifier = Arc::new(Notifier::default());
        let first = NewGame {
            options: Vec::new(),
            fen: None,
            seats: [Seat::Person, Seat::Person],
            limit: DEFAULT_LIMIT,
            hidden: [None, None],
            analysis: None,
            id: 1,
            seed: seed_now(),
        };
        let game = visit_game(
            GAME_NAMES[0],
            Create {
                request: first,
                notifier: Arc::clone(&notifier),
            },
        )??;
        Ok(Gui {
            listener,
            shared: Arc::new(Shared {
                port,
                engines: config.engines.clone(),
                game: Mutex::new(game),
                notifier,
                games_started: AtomicU64::new(1),
                connections: AtomicUsize::new(0),
            }),
        })
    }

    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.shared.port)
    }

    /// Serves until the process ends, a thread per connection.
    pub fn serve(self) {
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else { continue };
            let shared = Arc::clone(&self.shared);
            if shared.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                shared.connections.fetch_sub(1, Ordering::SeqCst);
                let mut stream = stream;
                let _ = respond(
                    &mut stream,
                    503,
                    "application/json",
                    "",
                    error_body("too many connections").as_bytes(),
                );
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("gui-http".into())
                .spawn(move || {
                    handle(&shared, stream);
                    shared.connections.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                self.shared.connections.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

/// `agon gui`: binds, prints the URL, opens the browser unless told not
/// to, and serves.
pub fn run(config: &GuiConfig) -> Result<(), String> {
    let gui = Gui::bind(config)?;
    stop_engines_on_signal();
    let url = gui.url();
    println!("agon gui: {url}");
    let _ = std::io::stdout().flush();
    if config.open {
        open_browser(&url);
    }
    gui.serve();
    Ok(())
}

/// Ctrl+C or SIGTERM ends `agon gui` with its engines: they ignore the
/// terminal's Ctrl+C (the match tool's rule, see `matches::interrupt`), and
/// one left with a closed input may go on running, so they are killed
/// before the process exits (status 130).
fn stop_engines_on_signal() {
    let requested = crate::tools::matches::interrupt::install();
    let watcher = std::thread::Builder::new()
        .name("gui-signal".into())
        .spawn(move || {
            while !requested.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
            }
            crate::tools::matches::external::kill_all_engines();
            std::process::exit(130);
        });
    // Without the watcher a signal leaves the engines to end by themselves
    // on their closed input, as before.
    drop(watcher);
}

/// Opens `url` in the default browser, if one is configured; a failure
/// only means the person opens the printed URL themselves.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

fn seed_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn error_body(message: &str) -> String {
    json!({ "error": message }).to_string()
}

/// Reads one request and answers it.
fn handle(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut out = stream;
    let request = match http::read_request(&mut BufReader::new(read_half)) {
        Ok(request) => request,
        Err(bad) => {
            let _ = respond(
                &mut out,
                bad.status,
                "application/json",
                "",
                error_body(&bad.message).as_bytes(),
            );
            return;
        }
    };
    if let Err(why) = check_origin(shared.port, &request) {
        let _ = respond(
            &mut out,
            403,
            "application/json",
            "",
            error_body(&why).as_bytes(),
        );
        return;
    }
    if request.method == "GET" && request.path == "/api/events" {
        events(shared, &mut out);
        return;
    }
    let (status, content_type, headers, body) = route(shared, &request);
    let _ = respond(&mut out, status, content_type, &headers, &body);
}

/// Refuses a request not addressed to this server by its loopback name
/// (DNS rebinding) or sent by another origin's page.
fn check_origin(port: u16, request: &Request) -> Result<(), String> {
    let allowed_hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    match request.header("host") {
        Some(host) if allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) => {}
        Some(host) => return Err(format!("host '{host}' is not this server")),
        None => return Err("a Host header is required".into()),
    }
    if let Some(origin) = request.header("origin") {
        let own = allowed_hosts
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")));
        if !own {
            return Err(format!("origin '{origin}' may not use this server"));
        }
    }
    Ok(())
}

/// Streams the state after every change until the page goes away.
fn events(shared: &Shared, out: &mut TcpStream) {
    // Writes must not block forever on a stalled page; reads never happen.
    if http::start_events(out).is_err() {
        return;
    }
    let mut seen = shared.notifier.current();
    if http::write_event(out, &event_state(shared)).is_err() {
        return;
    }
    loop {
        let version = shared.notifier.wait(seen, KEEPALIVE);
        let written = if version == seen {
            out.write_all(b": keep-alive\n\n")
                .and_then(|()| out.flush())
        } else {
            seen = version;
            http::write_event(out, &event_state(shared))
        };
        if written.is_err() {
            return;
        }
    }
}

/// The state as an event sends it, stamped with when it is sent (the page
/// measures each step of a move's way to the board).
fn event_state(shared: &Shared) -> String {
    let mut state = current(shared).state();
    state["sent_at_ms"] = json!(table::unix_ms());
    state.to_string()
}

fn current(shared: &Shared) -> Arc<dyn Controller> {
    Arc::clone(&shared.game.lock().unwrap_or_else(|e| e.into_inner()))
}

type Answer = (u16, &'static str, String, Vec<u8>);

fn json_answer(result: Result<Value, String>) -> Answer {
    match result {
        Ok(value) => (
            200,
            "application/json",
            String::new(),
            value.to_string().into_bytes(),
        ),
        Err(message) => (
            400,
            "application/json",
            String::new(),
            error_body(&message).into_bytes(),
        ),
    }
}

fn route(shared: &Shared, request: &Request) -> Answer {
    let path = request.path.as_str();
    if !path.starts_with("/api/") {
        if request.method != "GET" {
            return (
                405,
                "text/plain",
                String::new(),
                b"method not allowed".to_vec(),
            );
        }
        return match page::file(path) {
            Some((content_type, body)) => (200, content_type, String::new(), body.to_vec()),
            None => (404, "text/plain", String::new(), b"not found".to_vec()),
        };
    }
    let post = request.method == "POST";
    let body = || -> Result<Value, String> {
        if request.body.is_empty() {
            return Ok(json!({}));
        }
        serde_json::from_slice(&request.body).map_err(|e| format!("malformed JSON: {e}"))
    };
    let game = current(shared);
    match (post, path) {
        (false, "/api/config") => json_answer(Ok(config_json(shared))),
        (false, "/api/state") => json_answer(Ok(game.state())),
        (false, "/api/pgn") => match game.pgn() {
            Ok(pgn) => (
                200,
                "application/x-chess-pgn; charset=utf-8",
                "Content-Disposition: attachment; filename=\"agon.pgn\"\r\n".to_owned(),
                pgn.into_bytes(),
            ),
            Err(message) => json_answer(Err(message)),
        },
        (true, "/api/new") => json_answer(body().and_then(|b| new_game(shared, &b))),
        (true, "/api/move") => json_answer(body().and_then(|b| {
            let text = b["move"].as_str().ok_or("'move' must be a string")?;
            let ply = match &b["ply"] {
                Value::Null => None,
                ply => Some(ply.as_u64().ok_or("'ply' must be a number")? as usize),
            };
            game.play(text, ply)?;
            Ok(game.state())
        })),
        (true, "/api/takeback") => json_answer(game.take_back().map(|()| game.state())),
        (true, "/api/resign") => json_answer(body().and_then(|b| {
            let side = match b["side"].as_str() {
                None => None,
                Some("x") => Some(crate::game::Player::X),
                Some("o") => Some(crate::game::Player::O),
                Some(other) => return Err(format!("side must be x or o, not '{other}'")),
            };
            game.resign(side)?;
            Ok(game.state())
        })),
        (true, "/api/analysis") => json_answer(body().and_then(|b| {
            let choice = match &b["engine"] {
                Value::Null => None,
                engine => Some(engine_choice(shared, engine)?),
            };
            game.set_analysis(choice)?;
            Ok(game.state())
        })),
        (true, "/api/review") => json_answer(body().and_then(|b| {
            let engine = engine_choice(shared, &b["engine"])?;
            let ms = match &b["ms"] {
                Value::Null => DEFAULT_REVIEW_MS,
                ms => number(ms, "review time per position", 1, 60_000)?,
            };
            game.review(engine, ms)?;
            Ok(game.state())
        })),
        (_, "/api/config" | "/api/state" | "/api/pgn" | "/api/new" | "/api/move")
        | (_, "/api/takeback" | "/api/resign" | "/api/analysis" | "/api/review") => (
            405,
            "application/json",
            String::new(),
            error_body("wrong method for this request").into_bytes(),
        ),
        _ => (
            404,
            "application/json",
            String::new(),
            error_body("no such request").into_bytes(),
        ),
    }
}

fn config_json(shared: &Shared) -> Value {
    let games: Vec<Value> = GAME_NAMES
        .iter()
        .filter_map(|name| visit_game(name, OptionSpecs).ok())
        .collect();
    let engines: Vec<Value> = shared
        .engines
        .iter()
        .map(|e| {
            json!({
                "name": e.name,
                "protocol": match e.spec.dialect { Dialect::Ugi => "ugi", Dialect::Uai => "uai" },
            })
        })
        .collect();
    json!({"games": games, "engines": engines, "version": env!("CARGO_PKG_VERSION")})
}

/// Option names and values as the page sends them: `[["Name", "value"], …]`
/// or `{"Name": "value", …}`. No line breaks (they would start another
/// protocol command), no `Game` (the server sets it).
fn option_pairs(value: &Value) -> Result<Vec<(String, String)>, String> {
    let pairs: Vec<(String, String)> = match value {
        Value::Null => Vec::new(),
        Value::Object(map) => map
            .iter()
            .map(|(name, value)| Ok((name.clone(), scalar_text(value)?)))
            .collect::<Result<_, String>>()?,
        Value::Array(items) => items
            .iter()
            .map(|item| match item.as_array().map(Vec::as_slice) {
                Some([name, value]) => Ok((
                    name.as_str()
                        .ok_or("an option name must be a string")?
                        .to_owned(),
                    scalar_text(value)?,
                )),
                _ => Err("options must be [name, value] pairs".to_owned()),
            })
            .collect::<Result<_, String>>()?,
        _ => return Err("options must be an object or a list of pairs".into()),
    };
    for (name, value) in &pairs {
        let clean = |t: &str| !t.chars().any(char::is_control);
        if name.trim().is_empty()
            || !clean(name)
            || !clean(value)
            || name.contains(" value ")
            || name.trim().eq_ignore_ascii_case("game")
        {
            return Err(format!("option '{name}' cannot be set from the page"));
        }
    }
    Ok(pairs)
}

fn scalar_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err("an option value must be text, a number or true/false".into()),
    }
}

fn engine_choice(shared: &Shared, value: &Value) -> Result<EngineChoice, String> {
    let name = value["engine"]
        .as_str()
        .or(value.as_str())
        .ok_or("an engine is chosen by its name")?;
    let entry = shared
        .engines
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| format!("no engine named '{name}'"))?;
    Ok(EngineChoice {
        entry: entry.clone(),
        options: option_pairs(&value["options"])?,
    })
}

fn number(value: &Value, what: &str, min: u64, max: u64) -> Result<u64, String> {
    let n = value
        .as_u64()
        .ok_or_else(|| format!("{what} must be a whole number"))?;
    if !(min..=max).contains(&n) {
        return Err(format!("{what} must be from {min} to {max}, not {n}"));
    }
    Ok(n)
}

/// A review's time per position when the page gives none, ms.
const DEFAULT_REVIEW_MS: u64 = 300;

/// The limit when the page gives none: a second per engine move.
const DEFAULT_LIMIT: Limit = Limit::MoveTime(1000);

fn parse_limit(value: &Value) -> Result<Limit, String> {
    if value.is_null() {
        return Ok(DEFAULT_LIMIT);
    }
    match value["kind"].as_str().unwrap_or("movetime") {
        "movetime" => Ok(Limit::MoveTime(number(
            &value["ms"],
            "movetime",
            1,
            3_600_000,
        )?)),
        "clock" => Ok(Limit::Clock {
            base_ms: number(&value["base_ms"], "clock base", 1, 86_400_000)?,
            inc_ms: number(&value["inc_ms"], "increment", 0, 3_600_000)?,
        }),
        "seed30" => Ok(Limit::Seed30),
        "depth" => Ok(Limit::Depth(number(
            &value["depth"],
            "depth",
            1,
            crate::search::alphabeta::MAX_DEPTH as u64,
        )? as u32)),
        "nodes" => Ok(Limit::Nodes(number(
            &value["nodes"],
            "nodes",
            1,
            1_000_000_000_000,
        )?)),
        other => Err(format!(
            "limit must be movetime, clock, seed30, depth or nodes, not '{other}'"
        )),
    }
}

fn new_game(shared: &Shared, body: &Value) -> Result<Value, String> {
    let name = body["game"].as_str().ok_or("'game' must be a game name")?;
    let name = GAME_NAMES
        .iter()
        .find(|g| g.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("unknown game '{name}' (games: {})", GAME_NAMES.join(", ")))?;
    let options = option_pairs(&body["options"])?;
    if let Some((name, _)) = options.iter().find(|(n, _)| {
        table::HIDDEN_OPTIONS
            .iter()
            .any(|h| h.eq_ignore_ascii_case(n))
    }) {
        return Err(format!(
            "{name} is not set as an option: a person chooses their own squares with 'secrets'"
        ));
    }
    let players = body["players"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let seat = |value: Option<&Value>| -> Result<Seat, String> {
        let Some(value) = value else {
            return Ok(Seat::Person);
        };
        match value["kind"].as_str().unwrap_or("person") {
            "person" => Ok(Seat::Person),
            "engine" => Ok(Seat::Engine(engine_choice(shared, value)?)),
            other => Err(format!("a player is a person or an engine, not '{other}'")),
        }
    };
    let seats = [seat(players.first())?, seat(players.get(1))?];
    for seat in &seats {
        if let Seat::Engine(choice) = seat
            && choice.entry.spec.dialect == Dialect::Uai
            && *name != "ataxx"
        {
            return Err(format!(
                "{} speaks UAI, which plays Ataxx only",
                choice.entry.name
            ));
        }
    }
    let limit = parse_limit(&body["limit"])?;
    let mut hidden = [None, None];
    for (index, side) in ["x", "o"].into_iter().enumerate() {
        match &body["secrets"][side] {
            Value::Null => {}
            Value::String(squares) if squares.trim().is_empty() || squares == "deal" => {}
            Value::String(squares) => {
                if !matches!(seats[index], Seat::Person) {
                    return Err(format!(
                        "{side} is an engine: its secret squares are dealt, never chosen by the page"
                    ));
                }
                hidden[index] = Some(squares.trim().to_owned());
            }
            _ => return Err("secret squares are given as text, e.g. \"3,17,22,40,61\"".into()),
        }
    }
    let fen = match &body["fen"] {
        Value::Null => None,
        Value::String(fen) if fen.trim().is_empty() => None,
        Value::String(fen) => Some(fen.clone()),
        _ => return Err("'fen' must be a position string".into()),
    };
    let analysis = match &body["analysis"] {
        Value::Null => None,
        value => Some(engine_choice(shared, value)?),
    };
    let id = shared.games_started.fetch_add(1, Ordering::SeqCst) + 1;
    let request = NewGame {
        options,
        fen,
        seats,
        limit,
        hidden,
        analysis,
        id,
        seed: seed_now(),
    };
    let game = visit_game(
        name,
        Create {
            request,
            notifier: Arc::clone(&shared.notifier),
        },
    )??;
    let old = std::mem::replace(
        &mut *shared.game.lock().unwrap_or_else(|e| e.into_inner()),
        Arc::clone(&game),
    );
    old.close();
    shared.notifier.bump();
    Ok(game.state())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> Request {
        Request {
            method: "GET".into(),
            path: "/api/state".into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
        }
    }

    #[test]
    fn only_this_pages_origin_and_host_are_served() {
        assert!(check_origin(8000, &request(&[("host", "127.0.0.1:8000")])).is_ok());
        assert!(
            check_origin(
                8000,
                &request(&[
                    ("host", "localhost:8000"),
                    ("origin", "http://localhost:8000")
                ])
            )
            .is_ok()
        );
        for headers in [
            &[("host", "evil.example:8000")][..],
            &[("host", "127.0.0.1:8001")],
            &[],
            &[
                ("host", "127.0.0.1:8000"),
                ("origin", "http://evil.example"),
            ],
            &[("host", "127.0.0.1:8000"), ("origin", "null")],
        ] {
            assert!(
                check_origin(8000, &request(headers)).is_err(),
                "{headers:?}"
            );
        }
    }

    #[test]
    fn engine_options_cannot_smuggle_commands() {
        assert!(option_pairs(&json!({"Threads": 2, "Search": "mcts"})).is_ok());
        assert!(option_pairs(&json!({"Hash": "1\ngo infinite"})).is_err());
        assert!(option_pairs(&json!({"Game": "nim"})).is_err());
        assert!(option_pairs(&json!([["a"]])).is_err());
    }

    #[test]
    fn engines_are_named_commands() {
        let config = GuiConfig::new(
            0,
            PathBuf::from("/bin/agon"),
            &["other=ugi:/usr/bin/eng --x".to_owned()],
            false,
            ENGINE_NICENESS,
        )
        .expect("valid");
        assert_eq!(config.engines.len(), 2);
        assert_eq!(config.engines[1].spec.args, vec!["--x".to_owned()]);
        assert!(
            config
                .engines
                .iter()
                .all(|e| e.spec.niceness == ENGINE_NICENESS)
        );
        for bad in ["x", "a b=ugi:e", "agon=ugi:e", "y=agon:depth=2"] {
            assert!(
                GuiConfig::new(0, PathBuf::from("a"), &[bad.to_owned()], false, 0).is_err(),
                "{bad}"
            );
        }
        for niceness in [-1, 20] {
            assert!(GuiConfig::new(0, PathBuf::from("a"), &[], false, niceness).is_err());
        }
    }
}
