//! `agon match --player … --tournament …`: tournaments of several players
//! with tiny deterministic players (Nim's random and baseline players,
//! depth-limited searches), their records, standings, resume and merge.

mod common;

use agon::tools::matches::ratings::Anchor;
use agon::tools::matches::record::GameRecord;
use agon::tools::matches::spec::PlayerSpec;
use agon::tools::matches::stats::{Score, elo_line, fixed};
use agon::tools::matches::tournament::{
    Format, MergeConfig, TournamentConfig, TournamentReport, merge, run_tournament,
};
use agon::tools::matches::{MatchConfig, TimeControl, run_match};
use common::{agon, nim_match, scratch};
use std::path::{Path, PathBuf};

const OPENINGS: [&str; 3] = ["3/4/5 x", "2/5/6 x", "1/4/6/7 x"];

/// A Nim tournament of these players over three openings; none of them
/// looks at the clock (random and baseline players, a depth-1 search).
fn nim_tournament(spec_texts: &[&str]) -> TournamentConfig {
    let players: Vec<PlayerSpec> = spec_texts
        .iter()
        .map(|p| PlayerSpec::parse(p).expect("valid player"))
        .collect();
    TournamentConfig {
        settings: MatchConfig {
            time: TimeControl::movetime(1_000),
            openings: OPENINGS.iter().map(|o| (*o).to_owned()).collect(),
            concurrency: 2,
            seed: 11,
            ..nim_match(spec_texts[0], spec_texts[1], 0)
        },
        players,
        format: Format::RoundRobin,
        rounds: 1,
        games_per_pairing: None,
        standings: None,
        anchor: Anchor::First,
        prior_draws: 0.0,
    }
}

const THREE: [&str; 3] = [
    "agon:player=random,name=rand",
    "agon:player=baseline,name=base",
    "agon:search=alphabeta,depth=1,name=ab1",
];

fn play(config: &TournamentConfig) -> (TournamentReport, String) {
    let mut out = Vec::new();
    let report = run_tournament(config, &mut out).expect("the tournament runs");
    (report, String::from_utf8(out).expect("utf-8"))
}

/// The game numbers of the `Finished game N` lines.
fn finished(text: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| l.strip_prefix("Finished game "))
        .map(|l| {
            l.split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("number")
        })
        .collect()
}

fn records_in(path: &Path) -> Vec<GameRecord> {
    std::fs::read_to_string(path)
        .expect("written")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| GameRecord::parse(l).expect("a record"))
        .collect()
}

#[test]
fn a_round_robin_plays_its_schedule_and_writes_records_pgn_and_standings() {
    let dir = scratch("round-robin");
    let mut config = nim_tournament(&THREE);
    config.rounds = 2;
    config.settings.out = Some(dir.join("games.txt"));
    config.settings.pgn = Some(dir.join("games.pgn"));
    config.settings.report_every = 6;
    config.standings = Some(dir.join("standings.json"));
    let (report, text) = play(&config);
    // 3 pairings × 2 rounds × 6 games (3 openings, both colours).
    assert_eq!(report.records.len(), 36);
    assert_eq!(report.played, 36);
    let mut numbers = finished(&text);
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=36).collect::<Vec<_>>());
    // The standings every 6 games (5 times) and at the end.
    assert_eq!(
        text.matches("Ratings by maximum likelihood").count(),
        6,
        "{text}"
    );
    assert!(text.contains("Crosstable"), "{text}");
    // Every pair played 12 games, 6 with each colour, each opening 4 times.
    let names = ["rand", "base", "ab1"];
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let games: Vec<&GameRecord> = report
            .records
            .iter()
            .filter(|r| {
                r.players.contains(&names[a].to_owned()) && r.players.contains(&names[b].to_owned())
            })
            .collect();
        assert_eq!(games.len(), 12);
        assert_eq!(games.iter().filter(|r| r.players[0] == names[a]).count(), 6);
        for opening in OPENINGS {
            assert_eq!(
                games.iter().filter(|r| r.start == opening).count(),
                4,
                "{opening}"
            );
        }
    }
    let table = &report.standings.table;
    assert_eq!(table.games(), 36);
    for i in 0..3 {
        assert_eq!(table.total(i).games(), 24);
    }
    // The records file: every game once, in a file --merge reads back.
    let written = records_in(&dir.join("games.txt"));
    assert_eq!(written.len(), 36);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).expect("pgn");
    assert_eq!(pgn.matches("[Result ").count(), 36);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("standings.json")).expect("json"))
            .expect("valid json");
    assert_eq!(json["games"], 36);
    assert_eq!(json["planned_games"], 36);
    assert_eq!(json["tournament"]["players"], serde_json::json!(names));
    let players = json["players"].as_array().expect("players");
    assert_eq!(players.len(), 3);
    assert_eq!(players[0]["rank"], 1);
    let points: f64 = players
        .iter()
        .map(|p| p["points"].as_f64().expect("points"))
        .sum();
    assert_eq!(points, 36.0);
}

#[test]
fn a_gauntlet_pairs_only_the_first_player() {
    let mut config = nim_tournament(&[
        THREE[2],
        THREE[0],
        THREE[1],
        "agon:player=random,name=rand2",
    ]);
    config.format = Format::Gauntlet;
    config.games_per_pairing = Some(2);
    config.rounds = 3;
    let (report, _) = play(&config);
    assert_eq!(report.records.len(), 18);
    for record in &report.records {
        assert!(record.players.contains(&"ab1".to_owned()), "{record:?}");
    }
    // Two games per pairing per round go through the openings in turn.
    let starts: Vec<&str> = report
        .records
        .iter()
        .filter(|r| r.players.contains(&"base".to_owned()))
        .map(|r| r.start.as_str())
        .collect();
    assert_eq!(
        starts,
        [
            OPENINGS[0],
            OPENINGS[0],
            OPENINGS[1],
            OPENINGS[1],
            OPENINGS[2],
            OPENINGS[2]
        ]
    );
}

/// A tournament of two players is the match between them: the same games
/// (same seeds, openings and colours), and the second player's rating is
/// minus the Elo difference `agon match` prints.
#[test]
fn two_players_rate_as_the_match_scores() {
    let config = nim_tournament(&[THREE[0], THREE[1]]);
    let (report, text) = play(&config);
    let mut matched = config.settings.clone();
    matched.games = 6;
    let mut out = Vec::new();
    let match_report = run_match(&matched, &mut out).expect("the match runs");
    assert_eq!(report.records, match_report.records);
    let score: Score = match_report.score;
    assert!(
        score.wins > 0 && score.losses > 0,
        "a mixed result: {score:?}"
    );
    let rating = report.standings.ratings[1];
    assert!(
        (rating.elo + score.elo()).abs() < 1e-9,
        "{} vs {}",
        rating.elo,
        score.elo()
    );
    // Printed to one decimal like the match's Elo line.
    let match_text = String::from_utf8(out).expect("utf-8");
    let elo = fixed(-score.elo(), 1);
    assert!(match_text.contains(&elo_line(&score)));
    assert!(
        text.lines().any(|l| l.contains("base") && l.contains(&elo)),
        "{text}"
    );
}

#[test]
fn a_stopped_tournament_resumes_without_playing_a_game_twice() {
    let dir = scratch("resume");
    let path = dir.join("games.txt");
    let mut config = nim_tournament(&THREE);
    config.settings.out = Some(path.clone());
    let (whole, _) = play(&config);
    // As if killed after 7 games, in the middle of writing the 8th.
    let text = std::fs::read_to_string(&path).expect("written");
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().filter(|l| l.starts_with('#')).count();
    lines.truncate(header + 8);
    let last = lines.pop().expect("eighth");
    let kept: Vec<usize> = lines[header..]
        .iter()
        .map(|l| GameRecord::parse(l).expect("record").number)
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n" + &last[..10]).expect("truncate");
    let (resumed, text) = play(&config);
    assert!(
        text.contains("Resuming: 7 games already recorded, 11 to play"),
        "{text}"
    );
    let mut again = finished(&text);
    again.sort_unstable();
    let expected: Vec<usize> = (1..=18).filter(|n| !kept.contains(n)).collect();
    assert_eq!(again, expected, "only the missing games are played");
    assert_eq!(resumed.played, 11);
    // Every game once in the file; the same games as the whole run (the
    // players are deterministic), so the same standings.
    let mut numbers: Vec<usize> = records_in(&path).iter().map(|r| r.number).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=18).collect::<Vec<_>>());
    assert_eq!(resumed.records, whole.records);
    assert_eq!(resumed.standings.table, whole.standings.table);
    // The file was rewritten through a temporary one, renamed over it.
    assert!(!dir.join("games.txt.tmp").exists());
    // Once complete, nothing is left to play.
    let (done, text) = play(&config);
    assert_eq!(done.played, 0);
    assert!(finished(&text).is_empty());
    // Another tournament's file is refused and left as it was.
    let before = std::fs::read_to_string(&path).expect("file");
    let mut other = config.clone();
    other.settings.seed = 12;
    let error = run_tournament(&other, &mut Vec::new()).expect_err("refused");
    assert!(
        error.contains("another tournament") && error.contains("seed"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("file"), before);
    // So is a file that is no tournament's.
    std::fs::write(&path, "hello\n").expect("write");
    let error = run_tournament(&config, &mut Vec::new()).expect_err("refused");
    assert!(error.contains("never overwritten"), "{error}");
}

#[test]
fn shards_merge_into_the_whole_and_mismatches_are_refused() {
    let dir = scratch("shards");
    let mut config = nim_tournament(&THREE);
    config.rounds = 2;
    config.settings.out = Some(dir.join("whole.txt"));
    let (whole, _) = play(&config);
    let mut parts = Vec::new();
    for i in 1..=2 {
        let mut shard = config.clone();
        shard.settings.shard = Some((i, 2));
        let path = dir.join(format!("shard{i}.txt"));
        shard.settings.out = Some(path.clone());
        let (report, _) = play(&shard);
        assert_eq!(report.played, 18);
        // Every pairing plays in every shard, 6 games each.
        let table = &report.standings.table;
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            assert_eq!(table.cells[a][b].games(), 6, "shard {i}: {a} against {b}");
        }
        parts.push(path);
    }
    let merge_of = |files: &[PathBuf]| {
        let config = MergeConfig {
            files: files.to_vec(),
            out: Some(dir.join("merged.txt")),
            pgn: None,
            standings: Some(dir.join("merged.json")),
            anchor: Anchor::First,
            prior_draws: 0.0,
        };
        let mut out = Vec::new();
        merge(&config, &mut out).map(|s| (s, String::from_utf8(out).expect("utf-8")))
    };
    let (standings, text) = merge_of(&parts).expect("merges");
    assert!(
        text.starts_with("Merged 36 games of the tournament's 36 from 2 files"),
        "{text}"
    );
    assert_eq!(standings.table, whole.standings.table);
    assert_eq!(standings.ratings, whole.standings.ratings);
    assert_eq!(records_in(&dir.join("merged.txt")), whole.records);
    // One shard alone: its games, the rest missing.
    let (_, text) = merge_of(&parts[..1]).expect("merges");
    assert!(text.contains("(18 missing)"), "{text}");
    // The same game twice.
    let error = merge_of(&[parts[0].clone(), parts[0].clone()]).expect_err("refused");
    assert!(error.contains("recorded twice"), "{error}");
    // Another tournament (other players).
    let mut other = config.clone();
    other.players[2] = PlayerSpec::parse("agon:search=alphabeta,depth=2,name=ab2").expect("valid");
    other.settings.out = Some(dir.join("other.txt"));
    other.settings.shard = Some((2, 2));
    play(&other);
    let error = merge_of(&[parts[0].clone(), dir.join("other.txt")]).expect_err("refused");
    assert!(
        error.contains("not from the same tournament") && error.contains("players"),
        "{error}"
    );
    // A record moved to another game number no longer fits the schedule.
    let text = std::fs::read_to_string(&parts[0]).expect("shard");
    let tampered = text.replacen("\n1\t", "\n3\t", 1);
    std::fs::write(dir.join("tampered.txt"), tampered).expect("write");
    let error = merge_of(&[dir.join("tampered.txt")]).expect_err("refused");
    assert!(error.contains("game 3 is nim between"), "{error}");
    // A file that is not a tournament's.
    std::fs::write(dir.join("plain.txt"), "# nothing\n").expect("write");
    let error = merge_of(&[dir.join("plain.txt")]).expect_err("refused");
    assert!(error.contains("not a tournament's record file"), "{error}");
}

#[test]
fn the_command_line_runs_merges_and_refuses_bad_tournaments() {
    let dir = scratch("cli");
    let out = dir.join("t.txt");
    let standings = dir.join("s.json");
    let base = [
        "match",
        "--game",
        "nim",
        "--movetime",
        "1000",
        "--player",
        THREE[0],
        "--player",
        THREE[1],
        "--player",
        THREE[2],
    ];
    let mut args = base.to_vec();
    let (out_s, standings_s) = (out.to_string_lossy(), standings.to_string_lossy());
    args.extend([
        "--tournament",
        "gauntlet",
        "--anchor",
        "mean",
        "--rounds",
        "2",
    ]);
    args.extend(["--out", &out_s, "--standings", &standings_s]);
    let (ok, stdout, stderr) = agon(&args);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Tournament: gauntlet of 3 players, 8 games"),
        "{stdout}"
    );
    assert!(stdout.contains("the mean at 0"), "{stdout}");
    let (ok, stdout, stderr) = agon(&["match", "--merge", &out_s, "--anchor", "mean"]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("Merged 8 games"), "{stdout}");
    // --replay of a tournament's file gives its standings too.
    let (ok, stdout, _) = agon(&["match", "--replay", &out_s]);
    assert!(
        ok && stdout.contains("Ratings by maximum likelihood over 8 games"),
        "{stdout}"
    );
    // A player that cannot start stops the tournament before any game.
    let fresh = dir.join("fresh.txt");
    let fresh_s = fresh.to_string_lossy();
    let mut args = base.to_vec();
    args.extend(["--player", "ugi:/nonexistent/engine", "--out", &fresh_s]);
    let (ok, stdout, stderr) = agon(&args);
    assert!(!ok && stderr.contains("cannot play"), "{stderr}");
    assert!(!stdout.contains("Finished game"), "{stdout}");
    assert!(
        !fresh.exists(),
        "no record file for a tournament that did not start"
    );
    for (extra, message) in [
        (vec!["--games-per-pairing", "3"], "must be even"),
        (vec!["--tournament", "swiss"], "round-robin or gauntlet"),
        (vec!["--anchor", "median"], "first or mean"),
        (vec!["--prior-draws=-1"], "0 or more"),
        (vec!["--prior-draws", "many"], "0 or more"),
        (vec!["--player-option", "4:Hash=1"], "I from 1 to 3"),
        (vec!["--player-option", "1:Hash=1"], "built-in player"),
        (vec!["--rounds", "0"], "at least 1"),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        let (ok, _, stderr) = agon(&args);
        assert!(!ok && stderr.contains(message), "{message}: {stderr}");
    }
    let (ok, _, stderr) = agon(&[
        "match",
        "--game",
        "nim",
        "--movetime",
        "10",
        "--player",
        THREE[0],
    ]);
    assert!(!ok && stderr.contains("at least two players"), "{stderr}");
    // Mixing a tournament's records with a match's is refused.
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, "# agon match records\n").expect("write");
    let (ok, _, stderr) = agon(&["match", "--merge", &out_s, &plain.to_string_lossy()]);
    assert!(!ok && stderr.contains("not merged"), "{stderr}");
}
