//! `agon tune`: SPSA against a synthetic match, state files, shards, and
//! the command line with real games.

use agon::tools::tune::spsa::{PairResult, Schedule, Spsa, merge};
use agon::tools::tune::{PairPlayer, RunConfig, params::parse_params, run};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const AGON: &str = env!("CARGO_BIN_EXE_agon");

/// A match whose expected score is a known smooth function of the two
/// parameters: strength `−((x − 30)/10)² − ((y + 10)/10)²`, the `+` side
/// winning each game with the logistic of the strength difference, drawing
/// a fifth of the time. Repeatable: the games' luck comes from `k`.
struct Synthetic {
    /// Stop the run (as Ctrl+C would) once this many pairs were played.
    stop_after: Option<(u64, Arc<AtomicBool>)>,
    played: AtomicU64,
}

fn strength(values: &[(String, String)]) -> f64 {
    let value = |i: usize| values[i].1.parse::<f64>().unwrap();
    -((value(0) - 30.0) / 10.0).powi(2) - ((value(1) + 10.0) / 10.0).powi(2)
}

impl PairPlayer for Synthetic {
    fn play_pair(
        &self,
        k: u64,
        plus: &[(String, String)],
        minus: &[(String, String)],
    ) -> Result<Option<PairResult>, String> {
        if let Some((after, stop)) = &self.stop_after
            && self.played.fetch_add(1, Ordering::SeqCst) >= *after
        {
            stop.store(true, Ordering::SeqCst);
            return Ok(None);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(k);
        let p_plus = 1.0 / (1.0 + (-(strength(plus) - strength(minus))).exp());
        let mut result = PairResult::default();
        for _ in 0..2 {
            if rng.random::<f64>() < 0.2 {
                result.draws += 1;
            } else if rng.random::<f64>() < p_plus {
                result.wins += 1;
            } else {
                result.losses += 1;
            }
        }
        Ok(Some(result))
    }
}

fn synthetic_start(pairs: u64) -> Spsa {
    let params =
        parse_params("X, float, 0, -100, 100, 4, 0.05\nY, float, 20, -100, 100, 4, 0.05").unwrap();
    Spsa::new("ataxx", 7, Schedule::new(pairs), params)
}

fn temp_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tune");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn config(state: &Path, stop: Option<Arc<AtomicBool>>) -> RunConfig {
    RunConfig {
        state_path: state.to_path_buf(),
        command: "test".into(),
        concurrency: 1,
        report_every: 0,
        max_pairs: None,
        progress: false,
        stop,
    }
}

fn synthetic(stop_after: Option<(u64, Arc<AtomicBool>)>) -> Synthetic {
    Synthetic {
        stop_after,
        played: AtomicU64::new(0),
    }
}

#[test]
fn spsa_converges_near_the_optimum_of_a_synthetic_match() {
    let state = temp_path("converges.state");
    let end = run(
        synthetic_start(3_000),
        &synthetic(None),
        &config(&state, None),
        &mut Vec::new(),
    )
    .unwrap();
    let (x, y) = (end.params[0].value, end.params[1].value);
    assert!(
        (x - 30.0).abs() < 6.0 && (y + 10.0).abs() < 6.0,
        "ended at {x:.2} {y:.2}"
    );
    assert_eq!(end.played, 3_000);
    let read = Spsa::from_text(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(read, end, "the state file holds the end exactly");
}

#[test]
fn a_run_stopped_and_resumed_ends_as_an_uninterrupted_one() {
    let whole = run(
        synthetic_start(400),
        &synthetic(None),
        &config(&temp_path("whole.state"), None),
        &mut Vec::new(),
    )
    .unwrap();
    let state = temp_path("stopped.state");
    let stop = Arc::new(AtomicBool::new(false));
    let mut out = Vec::new();
    let stopped = run(
        synthetic_start(400),
        &synthetic(Some((150, Arc::clone(&stop)))),
        &config(&state, Some(stop)),
        &mut out,
    )
    .unwrap();
    assert_eq!(stopped.played, 150);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("interrupted after 150 pairs")
    );
    // A new process: only the state file carries over.
    let saved = Spsa::from_text(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved, stopped);
    let resumed = run(
        saved,
        &synthetic(None),
        &config(&state, None),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(resumed, whole);
}

#[test]
fn shards_of_a_round_merge_into_their_moves_added_up() {
    let start = synthetic_start(1_000);
    let shards: Vec<Spsa> = (1..=3)
        .map(|index| {
            let mut part = start.clone();
            part.shard = Some((index, 3));
            let mut config = config(&temp_path(&format!("shard{index}.state")), None);
            config.max_pairs = Some(40);
            run(part, &synthetic(None), &config, &mut Vec::new()).unwrap()
        })
        .collect();
    // Each shard played its own iterations: 1, 4, 7, … for the first.
    assert_eq!(shards[1].iteration(0), 2);
    assert_eq!(shards[2].iteration(1), 6);
    let merged = merge(&shards).unwrap();
    assert_eq!(merged.base_pairs, 120);
    assert_eq!(merged.shard, None);
    for i in 0..2 {
        let moved: f64 = shards
            .iter()
            .map(|s| s.params[i].value - start.params[i].value)
            .sum();
        assert!((merged.params[i].value - (start.params[i].value + moved)).abs() < 1e-9);
    }
    let score: u64 = merged.score.iter().sum();
    assert_eq!(score, 240, "every game of every shard counted");
    // Refusals: a shard twice, another run, a state that is not a shard.
    assert!(
        merge(&[shards[0].clone(), shards[0].clone()])
            .unwrap_err()
            .contains("twice")
    );
    let mut other = shards[1].clone();
    other.seed = 8;
    assert!(
        merge(&[shards[0].clone(), other])
            .unwrap_err()
            .contains("another tuning")
    );
    assert!(
        merge(std::slice::from_ref(&start))
            .unwrap_err()
            .contains("not a shard")
    );
    let mut later = shards[2].clone();
    later.base_pairs = 5;
    assert!(
        merge(&[shards[0].clone(), later])
            .unwrap_err()
            .contains("another round")
    );
}

fn agon(args: &[&str]) -> std::process::Output {
    Command::new(AGON).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn write_params_lists_the_games_tunables_at_their_values() {
    let out = agon(&["tune", "--game", "ataxx", "--write-params", "-"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let params = parse_params(&text(&out.stdout)).unwrap();
    let width = params.iter().find(|p| p.name == "Tune.aspiration_width");
    assert_eq!(width.map(|p| p.value), Some(12.0));
    assert!(
        params.iter().all(|p| p.name != "Tune.nmp_base"),
        "Ataxx has no null move"
    );
}

#[test]
fn bad_parameters_are_refused_before_any_game() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tune");
    std::fs::create_dir_all(&dir).unwrap();
    for (line, why) in [
        (
            "Tune.rfp_base, int, 0, -900, 400, 8, 0.002",
            "must be from -200 to 400",
        ),
        (
            "Tune.nmp_base, int, 2, 1, 8, 1, 0.002",
            "does not apply to ataxx",
        ),
        ("Tune.nonsense, int, 2, 1, 8, 1, 0.002", "unknown tunable"),
    ] {
        let params = dir.join("bad.params");
        std::fs::write(&params, format!("{line}\n")).unwrap();
        let state = temp_path("bad.state");
        let out = agon(&[
            "tune",
            "--game",
            "ataxx",
            "--params",
            params.to_str().unwrap(),
            "--games",
            "4",
            "--nodes",
            "100",
            "--state",
            state.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{line}");
        assert!(
            text(&out.stderr).contains(why),
            "{line}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_real_run_resumes_from_its_state_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tune");
    std::fs::create_dir_all(&dir).unwrap();
    let params = dir.join("real.params");
    std::fs::write(
        &params,
        "Tune.fp_base, int, 64, 0, 600, 8, 0.002\nTune.eval_scale, int, 100, 25, 400, 5, 0.002\n",
    )
    .unwrap();
    let state = temp_path("real.state");
    let (params, state_arg) = (params.to_str().unwrap(), state.to_str().unwrap());
    let common = [
        "tune",
        "--game",
        "ataxx",
        "--nodes",
        "300",
        "--state",
        state_arg,
        "--max-plies",
        "40",
        "--openings",
        "positions/openings-ataxx.txt",
        "--no-progress",
    ];
    let first: Vec<&str> = common
        .iter()
        .copied()
        .chain(["--params", params, "--games", "8", "--pairs", "2"])
        .collect();
    let out = agon(&first);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let saved = Spsa::from_text(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!((saved.played, saved.score.iter().sum::<u64>()), (2, 4));
    // Resumed from the state alone (its parameters and plan).
    let out = agon(&common);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let done = Spsa::from_text(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(done.played, 4, "the plan's four pairs, two of them before");
    assert!(text(&out.stdout).contains("pairs 4/4"));
    // Another plan is another run.
    let other: Vec<&str> = common.iter().copied().chain(["--games", "20"]).collect();
    let out = agon(&other);
    assert!(
        text(&out.stderr).contains("another run"),
        "{}",
        text(&out.stderr)
    );
}

/// The nodes of `go depth 9` on Ataxx's start position after `setup`.
fn nodes_after(setup: &str) -> u64 {
    let out = agon_with_input(&format!("ugi\n{setup}position startpos\ngo depth 9\n"));
    assert!(!out.contains("error"), "{out}");
    let last = out
        .lines()
        .rfind(|l| l.starts_with("info depth 9 "))
        .unwrap()
        .to_owned();
    let words: Vec<&str> = last.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "nodes").unwrap();
    words[at + 1].parse().unwrap()
}

#[test]
fn tunables_at_their_defaults_search_the_same_tree_and_others_do_not() {
    let listed = agon_with_input("ugi\nquery tunables\n");
    let defaults: String = listed
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                ["tunable", "name", name, "value", value, ..] => {
                    Some(format!("setoption name {name} value {value}\n"))
                }
                _ => None,
            }
        })
        .collect();
    assert!(defaults.lines().count() >= 30, "{listed}");
    let plain = nodes_after("");
    assert_eq!(nodes_after(&defaults), plain);
    let wider = nodes_after("setoption name Tune.fp_base value 300\n");
    assert_ne!(wider, plain, "the option reaches the search");
}

fn agon_with_input(input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(AGON)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    text(&child.wait_with_output().unwrap().stdout)
}

#[test]
fn bad_tune_options_are_refused_and_change_nothing() {
    let out = agon_with_input(
        "ugi\nsetoption name Tune.fp_base value 80\nsetoption name Tune.fp_base value 9999\n\
         setoption name Tune.nmp_base value 2\nsetoption name Tune.nope value 1\n\
         setoption name Tune.fp_base value\nquery tunables\n",
    );
    for why in [
        "option Tune.fp_base must be from 0 to 600, not 9999",
        "Tune.nmp_base does not apply to ataxx",
        "unknown tunable 'Tune.nope'",
        "option Tune.fp_base takes an integer",
    ] {
        assert!(
            out.contains(&format!("info string error: {why}")),
            "{why}: {out}"
        );
    }
    assert!(
        out.contains("tunable name Tune.fp_base value 80 min 0 max 600 step 8"),
        "{out}"
    );
    assert!(
        !out.contains("option name Tune."),
        "never announced after ugi: {out}"
    );
}
