//! Match statistics, computed the way cutechess-cli computes them so that
//! numbers from `agon match` and from cutechess can be compared directly:
//! the Elo difference from the mean score, its 95 % error margin from the
//! standard deviation of the per-game score, the likelihood of superiority
//! from wins and losses, and a sequential probability ratio test.
//!
//! The SPRT uses the BayesElo-free logistic model (fishtest's and
//! OpenBench's simple GSPRT on game results): the score `s` under a
//! hypothesis of `elo` is `1 / (1 + 10^(-elo/400))` and the log-likelihood
//! ratio is `N (s1 - s0) (2 mu - s0 - s1) / (2 var)`, with `mu` and `var` the
//! observed mean and variance of the per-game score. Its bounds are Wald's:
//! `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.

/// Wins, losses and draws of the first player of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games the first player won.
    pub wins: u32,
    /// Games the first player lost.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
}

impl Score {
    /// A score from its three counts.
    pub fn new(wins: u32, losses: u32, draws: u32) -> Score {
        Score {
            wins,
            losses,
            draws,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Mean score per game, 0 to 1 (one half with no game).
    pub fn mean(&self) -> f64 {
        if self.games() == 0 {
            return 0.5; // no game, no lead (a match stopped before its first)
        }
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games())
    }

    /// Variance of the score of one game around the mean.
    pub fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        let mu = self.mean();
        let (w, l, d) = (
            f64::from(self.wins) / n,
            f64::from(self.losses) / n,
            f64::from(self.draws) / n,
        );
        w * (1.0 - mu).powi(2) + l * mu.powi(2) + d * (0.5 - mu).powi(2)
    }

    /// Elo difference implied by the mean score (±inf at 0 % or 100 %).
    pub fn elo(&self) -> f64 {
        elo_from_score(self.mean())
    }

    /// Half the width of the 95 % confidence interval of [`Score::elo`].
    pub fn elo_margin(&self) -> f64 {
        let mu = self.mean();
        let stdev = self.variance().sqrt() / f64::from(self.games()).sqrt();
        interval_margin(mu, stdev)
    }

    /// Likelihood of superiority, in percent (50 without decisive games,
    /// where cutechess prints `nan`).
    pub fn los(&self) -> f64 {
        let decisive = f64::from(self.wins) + f64::from(self.losses);
        if decisive == 0.0 {
            return 50.0;
        }
        let lead = f64::from(self.wins) - f64::from(self.losses);
        100.0 * (0.5 + 0.5 * erf(lead / (2.0 * decisive).sqrt()))
    }

    /// Share of drawn games, in percent.
    pub fn draw_ratio(&self) -> f64 {
        100.0 * f64::from(self.draws) / f64::from(self.games())
    }

    /// Adds one game result seen from the first player: +1, 0 or -1.
    pub fn add(&mut self, sign: i32) {
        match sign.signum() {
            1 => self.wins += 1,
            -1 => self.losses += 1,
            _ => self.draws += 1,
        }
    }
}

/// Half the width, in Elo, of the 95 % interval of a mean score `mu` with
/// standard error `stdev`. An interval reaching past 0 % or 100 % has an
/// infinite margin (cutechess computes `nan` there).
fn interval_margin(mu: f64, stdev: f64) -> f64 {
    let low = (mu + phi_inv(0.025) * stdev).clamp(0.0, 1.0);
    let high = (mu + phi_inv(0.975) * stdev).clamp(0.0, 1.0);
    let margin = (elo_from_score(high) - elo_from_score(low)) / 2.0;
    // A 0 % or 100 % score: both ends infinite, the margin too.
    if margin.is_nan() {
        f64::INFINITY
    } else {
        margin
    }
}

/// Results by opening pair (the fastchess convention): each opening played
/// with both colours is one pair, and the first player's points in it, 0 to
/// 2 in half points, are counted in five classes. Pairs are far less noisy
/// than games when openings are unbalanced, so the error margin and the
/// SPRT over pairs are the sharper ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs with 0, ½, 1, 1½ and 2 points for the first player.
    pub pairs: [u32; 5],
}

impl Pentanomial {
    /// Adds a pair from its two game results seen from the first player
    /// (+1, 0 or -1 each).
    pub fn add_pair(&mut self, first: i32, second: i32) {
        let half_points = (first.signum() + 1) + (second.signum() + 1);
        self.pairs[half_points as usize] += 1;
    }

    /// Pairs counted.
    pub fn count(&self) -> u32 {
        self.pairs.iter().sum()
    }

    /// Mean score per game, 0 to 1, and the variance of a pair's per-game
    /// score (a pair of `k` half points scores `k / 4`).
    fn moments(&self) -> (f64, f64) {
        let n = f64::from(self.count());
        let share = |k: usize| f64::from(self.pairs[k]) / n;
        let mu: f64 = (0..5).map(|k| share(k) * k as f64 / 4.0).sum();
        let var = (0..5)
            .map(|k| share(k) * (k as f64 / 4.0 - mu).powi(2))
            .sum();
        (mu, var)
    }

    /// Elo difference from the pairs' mean score.
    pub fn elo(&self) -> f64 {
        elo_from_score(self.moments().0)
    }

    /// Half the width of the 95 % interval of [`Pentanomial::elo`]
    /// (infinite with a single pair: no spread can be seen in one).
    pub fn elo_margin(&self) -> f64 {
        if self.count() < 2 {
            return f64::INFINITY;
        }
        let (mu, var) = self.moments();
        interval_margin(mu, (var / f64::from(self.count())).sqrt())
    }

    /// `Ptnml(0-2): [a, b, c, d, e], pairs N, Elo E +/- M`, as fastchess
    /// prints the counts (nothing before the first pair).
    pub fn line(&self) -> Option<String> {
        if self.count() == 0 {
            return None;
        }
        let [a, b, c, d, e] = self.pairs;
        Some(format!(
            "Ptnml(0-2): [{a}, {b}, {c}, {d}, {e}], pairs {}, Elo {} +/- {}",
            self.count(),
            fixed(self.elo(), 1),
            fixed(self.elo_margin(), 1)
        ))
    }
}

/// The results of a match by game number (from 1), seen from the first
/// player; games `2k − 1` and `2k` are the pair of one opening.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Results {
    by_number: std::collections::BTreeMap<usize, i32>,
    /// Running totals, kept as games come in (a match reads them after
    /// every game).
    score: Score,
    pairs: Pentanomial,
}

impl Results {
    /// Records game `number`'s result for the first player (+1, 0, -1).
    /// Returns false (and changes nothing) if that game is already in.
    pub fn add(&mut self, number: usize, sign: i32) -> bool {
        match self.by_number.entry(number) {
            std::collections::btree_map::Entry::Occupied(_) => return false,
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(sign.signum());
            }
        }
        self.score.add(sign);
        // The pair is complete when its partner (1 ↔ 2, 3 ↔ 4, …) is in.
        let partner = if number % 2 == 1 {
            number.checked_add(1)
        } else {
            number.checked_sub(1).filter(|&n| n > 0)
        };
        if let Some(&other) = partner.and_then(|p| self.by_number.get(&p)) {
            let (first, second) = if number % 2 == 1 {
                (sign, other)
            } else {
                (other, sign)
            };
            self.pairs.add_pair(first, second);
        }
        true
    }

    /// Wins, losses and draws over every game.
    pub fn score(&self) -> Score {
        self.score
    }

    /// The pairs whose two games are both in (a lone game of a pair, at
    /// the end of an odd or early-stopped match, is left out).
    pub fn pentanomial(&self) -> Pentanomial {
        self.pairs
    }

    /// Game numbers missing below the highest one in (a shard left out of
    /// a merge, a game lost to an SPRT stop).
    pub fn missing(&self) -> Vec<usize> {
        let last = self.by_number.keys().next_back().copied().unwrap_or(0);
        (1..=last)
            .filter(|n| !self.by_number.contains_key(n))
            .collect()
    }
}

/// Elo difference for a mean score `p` (logistic model).
pub fn elo_from_score(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Mean score expected at an Elo difference (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The inverse error function, with the same closed-form approximation as
/// cutechess (Winitzki's), so that margins agree to the printed digit.
pub fn erf_inv(x: f64) -> f64 {
    // cutechess writes pi as 3.1415926535897; the 1e-14 difference never
    // shows in the printed digits.
    let pi = std::f64::consts::PI;
    let a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi));
    let y = (1.0 - x * x).ln();
    let z = 2.0 / (pi * a) + y / 2.0;
    let root = ((z * z - y / a).sqrt() - z).sqrt();
    if x < 0.0 { -root } else { root }
}

/// Quantile function of the standard normal law.
pub fn phi_inv(p: f64) -> f64 {
    std::f64::consts::SQRT_2 * erf_inv(2.0 * p - 1.0)
}

/// The error function (Numerical Recipes' Chebyshev fit of erfc, fractional
/// error below 1.2e-7; plenty for percentages printed to one decimal). The
/// standard library has no stable `erf`.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

/// Formats like C's `%.Nf`, but writes `inf`, `-inf` and `nan` as glibc
/// does (cutechess prints those for 100 % scores or no decisive game).
pub fn fixed(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        "nan".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        let text = format!("{value:.decimals$}");
        // printf (and so cutechess) keeps the sign of a negative value that
        // rounds to zero, printing `Elo difference: -0.0` for an even
        // score; a zero is written without one here.
        match text.strip_prefix('-') {
            Some(digits) if digits.bytes().all(|b| b == b'0' || b == b'.') => digits.to_owned(),
            _ => text,
        }
    }
}

/// Formats like Qt's `arg(value, 0, 'g', 3)`: three significant digits,
/// trailing zeros dropped (`2.94`, `-0.143`, `12.5`).
pub fn significant3(value: f64) -> String {
    if !value.is_finite() {
        return fixed(value, 0);
    }
    if value == 0.0 {
        return "0".to_owned();
    }
    let exponent = value.abs().log10().floor() as i32;
    if !(-5..3).contains(&exponent) {
        return format!("{value:.2e}");
    }
    let decimals = (2 - exponent).max(0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// `Score of P1 vs P2: W - L - D  [0.550] N`, as cutechess-cli prints it.
pub fn score_line(first: &str, second: &str, score: &Score) -> String {
    format!(
        "Score of {first} vs {second}: {} - {} - {}  [{}] {}",
        score.wins,
        score.losses,
        score.draws,
        fixed(score.mean(), 3),
        score.games()
    )
}

/// `Elo difference: E +/- M, LOS: L %, DrawRatio: D %`, as cutechess-cli
/// prints it.
pub fn elo_line(score: &Score) -> String {
    format!(
        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
        fixed(score.elo(), 1),
        fixed(score.elo_margin(), 1),
        fixed(score.los(), 1),
        fixed(score.draw_ratio(), 1)
    )
}

/// Which hypothesis an SPRT accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    /// The Elo difference is at most `elo0`.
    H0,
    /// The Elo difference is at least `elo1`.
    H1,
}

/// The parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// The state of an SPRT after some games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStatus {
    /// Log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// Accept H0 at or below this.
    pub lower: f64,
    /// Accept H1 at or above this.
    pub upper: f64,
    /// The decision, once a bound is crossed.
    pub decision: Option<Hypothesis>,
}

impl Sprt {
    /// Parses `ELO0,ELO1` with the given error levels.
    pub fn parse(text: &str, alpha: f64, beta: f64) -> Result<Sprt, String> {
        let usage = || format!("--sprt takes ELO0,ELO1 (e.g. 0,10), not '{text}'");
        let (elo0, elo1) = text.split_once(',').ok_or_else(usage)?;
        let elo0: f64 = elo0.trim().parse().map_err(|_| usage())?;
        let elo1: f64 = elo1.trim().parse().map_err(|_| usage())?;
        if !(elo0.is_finite() && elo1.is_finite()) || elo0 >= elo1 {
            return Err(format!("--sprt needs ELO0 < ELO1, not '{text}'"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("SPRT {name} must be between 0 and 0.5, not {p}"));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The log-likelihood ratio after `score` (0 before the results vary).
    ///
    /// When every game so far had the same result the observed variance is
    /// 0; half a game is then added to each of wins, losses and draws (the
    /// Jeffreys prior cutechess always adds), so that a one-sided match
    /// still ends.
    pub fn llr(&self, score: &Score) -> f64 {
        if score.games() == 0 {
            return 0.0;
        }
        let (mut n, mut mu, mut var) = (f64::from(score.games()), score.mean(), score.variance());
        if var <= 0.0 {
            let (w, l, d) = (
                f64::from(score.wins) + 0.5,
                f64::from(score.losses) + 0.5,
                f64::from(score.draws) + 0.5,
            );
            n = w + l + d;
            mu = (w + d / 2.0) / n;
            var = (w * (1.0 - mu).powi(2) + l * mu.powi(2) + d * (0.5 - mu).powi(2)) / n;
        }
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    /// The log-likelihood ratio over opening pairs (the same GSPRT with
    /// each pair's per-game score as one observation; as for games, half a
    /// pair is added to each class while the pairs do not vary yet).
    pub fn llr_pairs(&self, pairs: &Pentanomial) -> f64 {
        if pairs.count() == 0 {
            return 0.0;
        }
        let counts: [f64; 5] = if pairs.moments().1 > 0.0 {
            pairs.pairs.map(f64::from)
        } else {
            pairs.pairs.map(|c| f64::from(c) + 0.5)
        };
        let n: f64 = counts.iter().sum();
        let mu: f64 = (0..5).map(|k| counts[k] * k as f64 / 4.0).sum::<f64>() / n;
        let var = (0..5)
            .map(|k| counts[k] * (k as f64 / 4.0 - mu).powi(2))
            .sum::<f64>()
            / n;
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    /// The test's state over opening pairs, which is how `agon match`
    /// decides.
    pub fn status_pairs(&self, pairs: &Pentanomial) -> SprtStatus {
        self.decide(self.llr_pairs(pairs))
    }

    /// The test's state after `score` (per game, as cutechess computes it).
    pub fn status(&self, score: &Score) -> SprtStatus {
        self.decide(self.llr(score))
    }

    fn decide(&self, llr: f64) -> SprtStatus {
        let lower = (self.beta / (1.0 - self.alpha)).ln();
        let upper = ((1.0 - self.beta) / self.alpha).ln();
        let decision = if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        };
        SprtStatus {
            llr,
            lower,
            upper,
            decision,
        }
    }
}

impl SprtStatus {
    /// `SPRT: llr 2.95 (100.2%), lbound -2.94, ubound 2.94 - H1 was
    /// accepted`, as cutechess-cli prints it (the percentage is the LLR over
    /// the upper bound).
    pub fn line(&self) -> String {
        let mut line = format!(
            "SPRT: llr {} ({}%), lbound {}, ubound {}",
            significant3(self.llr),
            fixed(self.llr / self.upper * 100.0, 1),
            significant3(self.lower),
            significant3(self.upper)
        );
        match self.decision {
            Some(Hypothesis::H0) => line.push_str(" - H0 was accepted"),
            Some(Hypothesis::H1) => line.push_str(" - H1 was accepted"),
            None => {}
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn erf_matches_reference_values() {
        // math.erf in Python 3.
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 2e-7));
        assert!(close(erf(-1.3), -0.934_007_944_940_652_4, 2e-7));
        assert!(close(erf(2.2), 0.998_137_153_702_018_2, 2e-7));
        assert!(erf(0.0).abs() < 2e-7);
    }

    #[test]
    fn significant_digits_like_qt() {
        assert_eq!(significant3(2.944_438_979), "2.94");
        assert_eq!(significant3(-2.944_438_979), "-2.94");
        assert_eq!(significant3(0.556_343), "0.556");
        assert_eq!(significant3(-0.0959), "-0.0959");
        assert_eq!(significant3(12.51), "12.5");
        assert_eq!(significant3(0.1), "0.1");
        assert_eq!(significant3(0.0), "0");
    }

    #[test]
    fn fixed_prints_special_values_like_glibc_but_zero_unsigned() {
        assert_eq!(fixed(f64::INFINITY, 1), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 1), "-inf");
        assert_eq!(fixed(f64::NAN, 1), "nan");
        assert_eq!(fixed(-0.0001, 1), "0.0");
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(-0.06, 1), "-0.1");
        assert_eq!(fixed(0.55, 3), "0.550");
    }
}

#[cfg(test)]
mod pair_tests {
    use super::*;

    #[test]
    fn pairs_are_counted_by_opening() {
        let mut results = Results::default();
        // Pair 1: win and draw (1½ points); pair 2: loss and win (1);
        // game 5 has no partner yet.
        for (number, sign) in [(1, 1), (2, 0), (3, -1), (4, 1), (5, 1)] {
            assert!(results.add(number, sign));
        }
        assert!(!results.add(3, 1), "a game counts once");
        assert_eq!(results.score(), Score::new(3, 1, 1));
        assert_eq!(results.pentanomial().pairs, [0, 0, 1, 1, 0]);
        assert_eq!(results.pentanomial().count(), 2);
    }

    #[test]
    fn small_matches_print_no_nan() {
        let even = Score::new(1, 1, 0);
        assert_eq!(fixed(even.elo_margin(), 1), "inf");
        assert_eq!(fixed(Score::new(0, 0, 2).los(), 1), "50.0");
        let mut pairs = Pentanomial::default();
        pairs.add_pair(1, -1);
        let line = pairs.line().expect("one pair");
        assert!(!line.contains("nan"), "{line}");
        assert_eq!(
            line,
            "Ptnml(0-2): [0, 0, 1, 0, 0], pairs 1, Elo 0.0 +/- inf"
        );
    }

    #[test]
    fn the_pair_sprt_accepts_a_one_sided_match() {
        let sprt = Sprt::parse("0,10", 0.05, 0.05).expect("valid");
        let mut pairs = Pentanomial::default();
        let mut decided = None;
        for n in 1..200 {
            pairs.add_pair(1, 0);
            if let Some(h) = sprt.status_pairs(&pairs).decision {
                decided = Some((n, h));
                break;
            }
        }
        let (n, h) = decided.expect("decides");
        assert_eq!(h, Hypothesis::H1);
        assert!(n < 60, "took {n} pairs");
        // Even pairs push towards H0.
        let mut even = Pentanomial::default();
        for _ in 0..400 {
            even.add_pair(1, -1);
            even.add_pair(0, 0);
        }
        assert_eq!(sprt.status_pairs(&even).decision, Some(Hypothesis::H0));
    }
}
