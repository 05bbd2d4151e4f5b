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

    /// Mean score per game, 0 to 1 (NaN with no game).
    pub fn mean(&self) -> f64 {
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
        let low = mu + phi_inv(0.025) * stdev;
        let high = mu + phi_inv(0.975) * stdev;
        (elo_from_score(high) - elo_from_score(low)) / 2.0
    }

    /// Likelihood of superiority, in percent (NaN without decisive games).
    pub fn los(&self) -> f64 {
        let decisive = f64::from(self.wins) + f64::from(self.losses);
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
        // Like printf, a negative value that rounds to zero keeps its sign:
        // cutechess prints `Elo difference: -0.0` for an even score.
        format!("{value:.decimals$}")
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

    /// The test's state after `score`.
    pub fn status(&self, score: &Score) -> SprtStatus {
        let llr = self.llr(score);
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
    fn fixed_prints_special_values_like_glibc() {
        assert_eq!(fixed(f64::INFINITY, 1), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 1), "-inf");
        assert_eq!(fixed(f64::NAN, 1), "nan");
        assert_eq!(fixed(-0.0001, 1), "-0.0");
        assert_eq!(fixed(0.55, 3), "0.550");
    }
}
