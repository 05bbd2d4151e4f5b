//! Helpers shared by the game and tool tests.
//!
//! Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

/// The squares of a position string's board field (`/`-separated rows from
/// the top, numbers — `10` included — for runs of empty squares) as
/// `board[rank][file]` with rank 0 at the bottom; empty squares are `'.'`.
pub fn board_from_text(field: &str, files: usize, ranks: usize) -> Vec<Vec<char>> {
    let mut board = vec![vec!['.'; files]; ranks];
    for (row, text) in field.split('/').enumerate() {
        let mut file = 0;
        let mut run = 0;
        for c in text.chars() {
            match c.to_digit(10) {
                Some(n) => run = run * 10 + n as usize,
                None => {
                    file += std::mem::take(&mut run);
                    board[ranks - 1 - row][file] = c;
                    file += 1;
                }
            }
        }
    }
    board
}

/// A square as a network input digit: 1 for the side to move's stone, 2
/// for the other side's, 0 for anything else.
pub fn side_digit(square: char, mover: char) -> usize {
    match square {
        c if c == mover => 1,
        'x' | 'o' => 2,
        _ => 0,
    }
}

/// Checks a game's network inputs against `expected` (a slow reading of the
/// position) in the positions of `games` random games from `start`, each
/// stopped after a random number of plies below `max_plies`; returns how
/// many positions were checked.
pub fn check_inputs_in_random_games<G: agon::game::Game>(
    start: &G,
    games: usize,
    max_plies: usize,
    rng: &mut rand_xoshiro::Xoshiro256PlusPlus,
    expected: impl Fn(&G) -> Vec<u16>,
) -> usize {
    use rand::RngExt;
    let mut checked = 0;
    for _ in 0..games {
        let mut game = start.clone();
        let mut moves = Vec::new();
        for _ in 0..rng.random_range(0..max_plies) {
            game.generate_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())]);
            let mut active = Vec::new();
            G::learned()
                .expect("the game has a learned evaluation")
                .active_inputs(&game, &mut active);
            assert_eq!(active, expected(&game), "{}", game.fen());
            checked += 1;
        }
    }
    checked
}

/// The network `G` ships, checked: the embedded file loads, fits the
/// game's inputs, and is what the engine uses.
pub fn shipped_network<G: agon::game::Game>() -> agon::network::Network {
    let bytes = G::learned()
        .and_then(|learned| learned.embedded_network())
        .expect("the game ships a network");
    let network = agon::network::Network::from_bytes(bytes).expect("the shipped file loads");
    network
        .check_fits::<G>()
        .expect("it reads the game's inputs");
    assert!(agon::network::embedded::<G>().is_some());
    network
}

/// What `network` says of `position`, from its side to move's view.
pub fn network_score<G: agon::game::Game>(network: &agon::network::Network, position: &G) -> i32 {
    network.evaluate_position(position, &mut Vec::new())
}

/// A fresh scratch directory for one test, named after the test binary's
/// process and `name`.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("agon-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Runs the `agon` binary: whether it succeeded, its output and errors.
pub fn agon(args: &[&str]) -> (bool, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .output()
        .expect("agon runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A Nim match between two built-in players (`agon:…` specs): 20 ms per
/// move, no openings, one game at a time, seed 7, nothing written.
pub fn nim_match(p1: &str, p2: &str, games: usize) -> agon::tools::matches::MatchConfig {
    use agon::tools::matches::spec::PlayerSpec;
    agon::tools::matches::MatchConfig {
        game: "nim".into(),
        options: Vec::new(),
        players: [
            PlayerSpec::parse(p1).expect("valid p1"),
            PlayerSpec::parse(p2).expect("valid p2"),
        ],
        games,
        time: agon::tools::matches::TimeControl::movetime(20),
        nodes: None,
        openings: Vec::new(),
        concurrency: 1,
        out: None,
        sprt: None,
        seed: 7,
        max_plies: None,
        adjudication: agon::tools::matches::adjudication::Adjudication::default(),
        progress: false,
        handshake_timeout: std::time::Duration::from_secs(10),
        verbose: false,
        report_every: 0,
        pgn: None,
        shard: None,
        stop: None,
    }
}
