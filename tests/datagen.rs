//! `agon datagen`: the record format, reproducible self-play whatever the
//! thread count, appending runs, and records that describe real games.

use agon::game::Game;
use agon::games::ataxx::Ataxx;
use agon::games::yote::Yote;
use agon::tools::datagen::record::{Record, parse_records};
use agon::tools::datagen::{DatagenConfig, generate};

fn small_config(threads: usize) -> DatagenConfig {
    DatagenConfig {
        soft_nodes: 300,
        games: 6,
        threads,
        max_plies: 120,
        ..DatagenConfig::default()
    }
}

fn run<G: Game>(config: &DatagenConfig) -> Vec<u8> {
    let start = G::start(&G::Options::default());
    let mut out = Vec::new();
    let summary = generate(&start, config, &mut out, &mut |_| {}).expect("datagen runs");
    assert_eq!(summary.games, config.games, "every game found an opening");
    assert_eq!(summary.results.iter().sum::<u64>(), summary.games);
    let records = parse_records(&out).expect("its own output parses");
    assert_eq!(records.len() as u64, summary.positions);
    out
}

#[test]
fn records_round_trip_and_damage_is_an_error() {
    let records = vec![
        Record {
            fen: "x5o/7/7/7/7/7/o5x x 0 1".into(),
            score: -1234,
            result: -1,
        },
        Record {
            fen: String::new(),
            score: i16::MAX,
            result: 1,
        },
    ];
    let mut bytes = Vec::new();
    records.iter().for_each(|r| r.write_to(&mut bytes));
    assert_eq!(parse_records(&bytes).expect("parses"), records);
    for cut in 1..bytes.len() {
        if cut == bytes.len() - 6 {
            continue; // exactly the first record: a valid stream
        }
        assert!(
            parse_records(&bytes[..cut]).is_err(),
            "cut at {cut} accepted"
        );
    }
    let mut bad_marker = bytes.clone();
    bad_marker[0] = b'x';
    assert!(parse_records(&bad_marker).is_err());
    let mut bad_result = bytes.clone();
    let first_len = 3 + records[0].fen.len() + 2;
    bad_result[first_len] = 7;
    assert!(parse_records(&bad_result).is_err());
}

#[test]
fn self_play_is_reproducible_whatever_the_threads() {
    let one = run::<Ataxx>(&small_config(1));
    let two = run::<Ataxx>(&small_config(2));
    assert_eq!(one, two, "the same records in the same order");
    let other_seed = run::<Ataxx>(&DatagenConfig {
        seed: 2,
        ..small_config(1)
    });
    assert_ne!(one, other_seed, "the seed changes the openings");
}

/// The records of single games (seeds 1 to 3) of `G`, with each game's
/// summary results (x won, o won, drawn).
fn single_games<G: Game>() -> Vec<(Vec<Record>, [u64; 3])> {
    (1..=3)
        .map(|seed| {
            let config = DatagenConfig {
                games: 1,
                seed,
                ..small_config(1)
            };
            let start = G::start(&G::Options::default());
            let mut out = Vec::new();
            let summary = generate(&start, &config, &mut out, &mut |_| {}).expect("runs");
            (parse_records(&out).expect("parses"), summary.results)
        })
        .collect()
}

/// Checks one game's records against its result: live positions of the
/// game, no proven score, and every record's result the game's from its
/// side to move's view.
fn check_game<G: Game>(records: &[Record], results: [u64; 3]) {
    assert!(
        records.len() > 5,
        "a game gives positions: {}",
        records.len()
    );
    for record in records {
        let position = G::from_fen(&record.fen, &Default::default()).expect("parses");
        assert!(position.outcome().is_none(), "finished: {}", record.fen);
        assert!(
            !agon::search::is_proven(i32::from(record.score)),
            "{record:?}"
        );
        let side = position.side_to_move().index();
        let expected = match results {
            [1, 0, 0] => [1, -1][side],
            [0, 1, 0] => [-1, 1][side],
            [0, 0, 1] => 0,
            other => panic!("one game, one result: {other:?}"),
        };
        assert_eq!(record.result, expected, "{record:?} in a game {results:?}");
    }
}

#[test]
fn records_are_live_positions_with_their_game_result() {
    for (records, results) in single_games::<Ataxx>() {
        check_game::<Ataxx>(&records, results);
    }
    for (records, results) in single_games::<Yote>() {
        check_game::<Yote>(&records, results);
    }
}

#[test]
fn runs_append_to_a_data_file() {
    let path = std::env::temp_dir().join(format!("agon-datagen-{}.bin", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let start = Ataxx::start(&Default::default());
    let config = small_config(1);
    for _ in 0..2 {
        let summary = agon::tools::datagen::run(&start, &config, &path, false);
        assert!(summary.is_ok(), "{summary:?}");
    }
    let bytes = std::fs::read(&path).expect("read data");
    let once = run::<Ataxx>(&config);
    assert_eq!(bytes.len(), 2 * once.len());
    assert_eq!(&bytes[..once.len()], &once[..]);
    assert_eq!(&bytes[once.len()..], &once[..]);
    let _ = std::fs::remove_file(&path);
}
