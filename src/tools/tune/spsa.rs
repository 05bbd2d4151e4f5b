//! SPSA as OpenBench runs it, and its state file.
//!
//! Each iteration `k` (from 1) perturbs every parameter at once by `±c_k`
//! (the signs drawn from the seed and `k`, so a resumed run draws the same
//! ones), plays a pair of games between `θ + c_kΔ` and `θ − c_kΔ`, and
//! moves each parameter by `r_k · c_k · (wins − losses) · Δ`, the wins and
//! losses of `θ + c_kΔ` in the pair. With `N` iterations planned,
//! `A = a_ratio · N`:
//!
//! - `c_k = c / k^γ` with `c = c_end · N^γ`, so the last `c_k` is `c_end`;
//! - `a_k = a / (A + k)^α` with `a = r_end · c_end² · (A + N)^α`, and
//!   `r_k = a_k / c_k²`, so the last `r_k` is `r_end`.
//!
//! Shards (`--shard I/N`) tune from the same state at once, each on its
//! own iterations `k ≡ I (mod N)`, moving its own copy of θ; `--merge`
//! adds every shard's moves to the values they started from (each pair's
//! move estimates the gradient there), so a round of shards is one batch
//! of SPSA iterations.

use super::params::Param;

/// SPSA's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Iterations (game pairs) planned.
    pub iterations: u64,
    /// Decay of the learning rate.
    pub alpha: f64,
    /// Decay of the perturbation.
    pub gamma: f64,
    /// `A` as a share of the iterations.
    pub a_ratio: f64,
}

impl Schedule {
    /// OpenBench's defaults for `iterations` pairs.
    pub fn new(iterations: u64) -> Schedule {
        Schedule {
            iterations: iterations.max(1),
            alpha: 0.602,
            gamma: 0.101,
            a_ratio: 0.1,
        }
    }

    /// `c_k` of `param`.
    pub fn c(&self, param: &Param, k: u64) -> f64 {
        let n = self.iterations as f64;
        param.c_end * n.powf(self.gamma) / (k.max(1) as f64).powf(self.gamma)
    }

    /// `r_k` of `param`.
    pub fn r(&self, param: &Param, k: u64) -> f64 {
        let n = self.iterations as f64;
        let big_a = self.a_ratio * n;
        let a = param.r_end * param.c_end * param.c_end * (big_a + n).powf(self.alpha);
        let a_k = a / (big_a + k.max(1) as f64).powf(self.alpha);
        let c_k = self.c(param, k);
        a_k / (c_k * c_k)
    }
}

/// The results of one pair for the `θ + c_kΔ` side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairResult {
    /// Games it won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games it lost.
    pub losses: u32,
}

/// One iteration: its perturbation and the two parameter sets it plays.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The iteration number (from 1).
    pub k: u64,
    /// `Δ`: +1 or −1 per parameter.
    pub flips: Vec<f64>,
    /// `c_k` per parameter.
    pub c: Vec<f64>,
    /// `r_k` per parameter.
    pub r: Vec<f64>,
}

/// Where a run stands: what it tunes, how, and how far it got. Written
/// after every pair ([`Spsa::to_text`]) so that a stopped run resumes.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    /// The game tuned.
    pub game: String,
    /// Seeds the perturbations (and the games' random choices).
    pub seed: u64,
    /// The constants.
    pub schedule: Schedule,
    /// The parameters at their current values.
    pub params: Vec<Param>,
    /// Part `I` of `N` when sharded.
    pub shard: Option<(u64, u64)>,
    /// Iterations done before this round (by every shard of earlier
    /// rounds).
    pub base_pairs: u64,
    /// The values this round started from.
    pub base: Vec<f64>,
    /// Pairs played in this round (by this shard).
    pub played: u64,
    /// Wins, draws and losses of the `+` side over every pair.
    pub score: [u64; 3],
}

impl Spsa {
    /// A fresh run of `params`.
    pub fn new(game: &str, seed: u64, schedule: Schedule, params: Vec<Param>) -> Spsa {
        Spsa {
            game: game.to_owned(),
            seed,
            schedule,
            base: params.iter().map(|p| p.value).collect(),
            params,
            shard: None,
            base_pairs: 0,
            played: 0,
            score: [0; 3],
        }
    }

    /// Iterations done in all (this round's by this shard included).
    pub fn pairs(&self) -> u64 {
        self.base_pairs + self.played
    }

    /// The iteration number of this round's `j`-th pair (from 0): shard
    /// `I` of `N` plays `base + I, base + I + N, …`.
    pub fn iteration(&self, j: u64) -> u64 {
        let (index, count) = self.shard.unwrap_or((1, 1));
        self.base_pairs + index + count * j
    }

    /// Whether this round's `j`-th pair is still within the plan.
    pub fn planned(&self, j: u64) -> bool {
        self.iteration(j) <= self.schedule.iterations
    }

    /// Pairs this round (this shard) still has to play.
    pub fn remaining(&self) -> u64 {
        let (index, count) = self.shard.unwrap_or((1, 1));
        let Some(room) = self
            .schedule
            .iterations
            .checked_sub(self.base_pairs + index)
        else {
            return 0;
        };
        (room / count + 1).saturating_sub(self.played)
    }

    /// Iteration `k`'s perturbation.
    pub fn trial(&self, k: u64) -> Trial {
        let flips = (0..self.params.len())
            .map(|i| {
                if mix(self.seed, k, i as u64) & 1 == 0 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        Trial {
            k,
            flips,
            c: self.params.iter().map(|p| self.schedule.c(p, k)).collect(),
            r: self.params.iter().map(|p| self.schedule.r(p, k)).collect(),
        }
    }

    /// The option values of the `+` side (`sign` 1.0) or the `−` side
    /// (`sign` −1.0) of `trial`, as engines get them.
    pub fn side(&self, trial: &Trial, sign: f64) -> Vec<(String, String)> {
        self.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let value = p.value + sign * trial.c[i] * trial.flips[i];
                (p.name.clone(), p.option_value(value))
            })
            .collect()
    }

    /// Moves the parameters by one pair's result.
    pub fn apply(&mut self, trial: &Trial, result: PairResult) {
        let gain = f64::from(result.wins) - f64::from(result.losses);
        for (i, param) in self.params.iter_mut().enumerate() {
            let step = trial.r[i] * trial.c[i] * gain * trial.flips[i];
            param.value = (param.value + step).clamp(param.min, param.max);
        }
        self.played += 1;
        self.score[0] += u64::from(result.wins);
        self.score[1] += u64::from(result.draws);
        self.score[2] += u64::from(result.losses);
    }

    /// The state file's text; `command` is recorded as a comment so that
    /// whoever finds the file knows how to continue it.
    pub fn to_text(&self, command: &str) -> String {
        let mut text = String::from("# agon tune state: continue with --state on this file\n");
        text.push_str(&format!("# command: {command}\n"));
        text.push_str(&format!("game {}\n", self.game));
        text.push_str(&format!("seed {}\n", self.seed));
        let s = &self.schedule;
        text.push_str(&format!("iterations {}\n", s.iterations));
        text.push_str(&format!(
            "constants alpha {} gamma {} a-ratio {}\n",
            s.alpha, s.gamma, s.a_ratio
        ));
        if let Some((index, count)) = self.shard {
            text.push_str(&format!("shard {index}/{count}\n"));
        }
        text.push_str(&format!("base-pairs {}\n", self.base_pairs));
        text.push_str(&format!("played {}\n", self.played));
        let [w, d, l] = self.score;
        text.push_str(&format!("score {w} {d} {l}\n"));
        for (param, base) in self.params.iter().zip(&self.base) {
            text.push_str(&format!("param {}\n", param.line()));
            text.push_str(&format!("base {base}\n"));
        }
        text
    }

    /// Reads a state file.
    pub fn from_text(text: &str) -> Result<Spsa, String> {
        let mut state = Spsa::new("", 0, Schedule::new(1), Vec::new());
        let (mut game, mut iterations) = (None, None);
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |e: String| format!("line {}: {e}", number + 1);
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let rest = rest.trim();
            let integer = |text: &str| {
                text.parse::<u64>().map_err(|_| {
                    at(format!(
                        "'{key}' needs a non-negative integer, not '{text}'"
                    ))
                })
            };
            match key {
                "game" => game = Some(rest.to_owned()),
                "seed" => state.seed = integer(rest)?,
                "iterations" => iterations = Some(integer(rest)?),
                "constants" => state.schedule = read_constants(rest).map_err(at)?,
                "shard" => {
                    let (i, n) = crate::tools::matches::parse_shard(rest).map_err(at)?;
                    state.shard = Some((i as u64, n as u64));
                }
                "base-pairs" => state.base_pairs = integer(rest)?,
                "played" => state.played = integer(rest)?,
                "score" => {
                    let numbers: Vec<u64> = rest
                        .split_whitespace()
                        .map(integer)
                        .collect::<Result<_, _>>()?;
                    state.score = numbers
                        .try_into()
                        .map_err(|_| at("'score' needs wins, draws and losses".into()))?;
                }
                "param" => state.params.push(Param::parse(rest).map_err(at)?),
                "base" => {
                    if state.base.len() + 1 != state.params.len() {
                        return Err(at("'base' must follow its 'param' line".into()));
                    }
                    let value: f64 = rest
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite())
                        .ok_or_else(|| at(format!("'base' needs a number, not '{rest}'")))?;
                    state.base.push(value);
                }
                other => return Err(at(format!("unknown key '{other}'"))),
            }
        }
        state.game = game.ok_or("the state names no game")?;
        state.schedule.iterations = iterations.ok_or("the state gives no iterations")?.max(1);
        if state.params.is_empty() || state.base.len() != state.params.len() {
            return Err("the state needs every parameter with its base value".into());
        }
        Ok(state)
    }

    /// Whether `other` is a run of the same tuning (game, seed, plan and
    /// parameter names), for resuming and merging; the reason if not.
    pub fn same_run(&self, other: &Spsa) -> Result<(), String> {
        let names = |s: &Spsa| s.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        if self.game != other.game {
            return Err(format!("game {} against {}", self.game, other.game));
        }
        if self.seed != other.seed {
            return Err(format!("seed {} against {}", self.seed, other.seed));
        }
        if self.schedule != other.schedule {
            return Err(format!(
                "{} iterations against {} (or other SPSA constants)",
                self.schedule.iterations, other.schedule.iterations
            ));
        }
        if names(self) != names(other) {
            return Err("other parameters".into());
        }
        Ok(())
    }
}

fn read_constants(text: &str) -> Result<Schedule, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut schedule = Schedule::new(1);
    for pair in words.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("constants come as name value pairs: '{text}'"));
        };
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("constant {name} needs a number, not '{value}'"))?;
        match *name {
            "alpha" => schedule.alpha = value,
            "gamma" => schedule.gamma = value,
            "a-ratio" => schedule.a_ratio = value,
            other => return Err(format!("unknown constant '{other}'")),
        }
    }
    Ok(schedule)
}

/// Combines the states of one round's shards: every shard's moves added to
/// the values the round started from, the pairs and scores summed; the
/// result is an unsharded state at the start of the next round. Refused
/// unless every state is a shard of the same run and round, each part once.
pub fn merge(states: &[Spsa]) -> Result<Spsa, String> {
    let first = states.first().ok_or("nothing to merge")?;
    let count = match first.shard {
        Some((_, count)) => count,
        None => return Err("the first state is not a shard (--shard I/N)".into()),
    };
    let mut seen = Vec::new();
    for (i, state) in states.iter().enumerate() {
        first
            .same_run(state)
            .map_err(|why| format!("state {} is another tuning: {why}", i + 1))?;
        let Some((index, n)) = state.shard else {
            return Err(format!("state {} is not a shard", i + 1));
        };
        if n != count {
            return Err(format!("state {} is a shard of {n}, not of {count}", i + 1));
        }
        if state.base_pairs != first.base_pairs || state.base != first.base {
            return Err(format!(
                "state {} started from another round (base values or pairs differ)",
                i + 1
            ));
        }
        if seen.contains(&index) {
            return Err(format!("shard {index}/{count} is given twice"));
        }
        seen.push(index);
    }
    let mut merged = first.clone();
    merged.shard = None;
    merged.played = 0;
    merged.base_pairs = first.base_pairs + states.iter().map(|s| s.played).sum::<u64>();
    merged.score = [0; 3];
    for state in states {
        for (total, part) in merged.score.iter_mut().zip(state.score) {
            *total += part;
        }
    }
    for (i, param) in merged.params.iter_mut().enumerate() {
        let moved: f64 = states.iter().map(|s| s.params[i].value - s.base[i]).sum();
        param.value = (first.base[i] + moved).clamp(param.min, param.max);
    }
    merged.base = merged.params.iter().map(|p| p.value).collect();
    Ok(merged)
}

/// A well-mixed 64-bit hash of three numbers (SplitMix64's finaliser).
fn mix(seed: u64, k: u64, i: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(k.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_add(i.wrapping_mul(0x94D0_49BB_1331_11EB))
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
