//! Standings of a tournament: the crosstable and ratings by maximum
//! likelihood over every game, as Ordo or BayesElo compute them from a
//! PGN (without BayesElo's prior and draw model).
//!
//! The model is the logistic Elo one `agon match` uses for two players:
//! player `i` scores `p_ij = 1 / (1 + 10^((r_j − r_i) / 400))` on average
//! against `j`, a draw counting half a point. The ratings maximise the
//! likelihood `Σ s_ij ln p_ij + (n_ij − s_ij) ln(1 − p_ij)` over all pairs
//! (`s_ij` points of `i` in `n_ij` games against `j`), that is, they make
//! every player's expected score equal to its actual one. They are found
//! by the minorisation–maximisation iteration of the Bradley–Terry model
//! (Zermelo's, Hunter 2004), which never decreases the likelihood. With two
//! players the difference is exactly `agon match`'s Elo figure,
//! `−400 log10(1/score − 1)`.
//!
//! `--prior-draws D` adds `D` virtual draws to every pair that played (as
//! BayesElo's prior of two draws), which keeps every rating finite; by
//! default there are none and the ratings are the plain maximum.
//!
//! A player who scored every point (or none) of its games has an infinite
//! rating; it is set aside and the others are rated among themselves.
//! Ratings are shifted so that the first player (or the mean of the
//! finite ratings) is at 0. The error margins are 95 % intervals (1.96
//! standard errors) from the curvature of the log-likelihood at its
//! maximum: the covariance of the ratings is the inverse of the observed
//! information `k² Σ n_ij p_ij (1 − p_ij)` (with `k = ln 10 / 400`) with the
//! anchor held fixed, each game counted as one Bernoulli trial (draws make
//! the true spread somewhat smaller, so the margins are on the safe side).
//! With the first player as anchor its margin is 0 and the others' are
//! those of their difference to it.

use super::stats::fixed;

/// Which rating is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The first player's (the gauntlet's player, say).
    First,
    /// The mean of the finite ratings.
    Mean,
}

/// Parses `--prior-draws`: a number of virtual draws, 0 or more.
pub fn parse_prior_draws(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!(
            "--prior-draws takes a number of draws, 0 or more, not '{text}'"
        )),
    }
}

impl Anchor {
    /// Parses `first` or `mean`.
    pub fn parse(text: &str) -> Result<Anchor, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "first" => Ok(Anchor::First),
            "mean" => Ok(Anchor::Mean),
            _ => Err(format!("--anchor takes first or mean, not '{text}'")),
        }
    }
}

/// One player's results against one opponent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

impl Cell {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    fn add(&mut self, other: &Cell) {
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
    }
}

/// Every player's results against every other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crosstable {
    /// The players' names, in the tournament's order.
    pub names: Vec<String>,
    /// `cells[i][j]`: player `i`'s results against player `j`.
    pub cells: Vec<Vec<Cell>>,
}

impl Crosstable {
    /// An empty crosstable of these players.
    pub fn new(names: Vec<String>) -> Crosstable {
        let n = names.len();
        Crosstable {
            names,
            cells: vec![vec![Cell::default(); n]; n],
        }
    }

    /// Adds one game between players `a` and `b`: `sign` +1 when `a` won,
    /// −1 when `b` won, 0 for a draw.
    pub fn add(&mut self, a: usize, b: usize, sign: i32) {
        let (to_a, to_b) = (&mut Cell::default(), &mut Cell::default());
        match sign.signum() {
            1 => (to_a.wins, to_b.losses) = (1, 1),
            -1 => (to_a.losses, to_b.wins) = (1, 1),
            _ => (to_a.draws, to_b.draws) = (1, 1),
        }
        self.cells[a][b].add(to_a);
        self.cells[b][a].add(to_b);
    }

    /// Player `i`'s results against everyone.
    pub fn total(&self, i: usize) -> Cell {
        let mut total = Cell::default();
        for cell in &self.cells[i] {
            total.add(cell);
        }
        total
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        (0..self.names.len())
            .map(|i| self.total(i).games())
            .sum::<u32>()
            / 2
    }
}

/// The rating of one player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo, relative to the anchor; ±inf for a player who scored every
    /// point or none, NaN for one without a game.
    pub elo: f64,
    /// Half the width of the 95 % interval (inf where it cannot be had).
    pub margin: f64,
}

/// Maximum-likelihood ratings of the crosstable's players (see the module
/// documentation), with the anchor's rating at 0 (and `prior_draws`
/// virtual draws added to every pair that played, 0 for the plain
/// maximum), and whether the
/// iteration converged (it does unless some group of players scored every
/// point against the rest).
pub fn ratings(table: &Crosstable, anchor: Anchor, prior_draws: f64) -> (Vec<Rating>, bool) {
    let n = table.names.len();
    // The prior's virtual draws go to every pair that played.
    let prior = |i: usize, j: usize| {
        if table.cells[i][j].games() > 0 {
            prior_draws
        } else {
            0.0
        }
    };
    let points = |i: usize, j: usize| table.cells[i][j].points() + prior(i, j) / 2.0;
    let games = |i: usize, j: usize| f64::from(table.cells[i][j].games()) + prior(i, j);
    // Set aside, one at a time, players who scored all or nothing among
    // those still rated: their ratings are infinite.
    let mut elo = vec![0.0; n];
    let mut rated: Vec<usize> = Vec::new();
    let mut active: Vec<bool> = (0..n).map(|i| table.total(i).games() > 0).collect();
    for (i, a) in active.iter().enumerate() {
        if !a {
            elo[i] = f64::NAN;
        }
    }
    loop {
        let among = |i: usize, active: &[bool]| {
            (0..n)
                .filter(|&j| active[j])
                .fold((0.0, 0.0), |(s, g), j| (s + points(i, j), g + games(i, j)))
        };
        // The top first: with results in a strict order (every player
        // beat everyone below it) each is set aside in turn, best first,
        // and the last is rated alone.
        let extreme = [f64::INFINITY, f64::NEG_INFINITY]
            .into_iter()
            .find_map(|value| {
                (0..n)
                    .filter(|&i| active[i])
                    .find(|&i| {
                        let (s, g) = among(i, &active);
                        g > 0.0 && if value > 0.0 { s >= g } else { s <= 0.0 }
                    })
                    .map(|i| (i, value))
            });
        match extreme {
            Some((i, value)) => {
                elo[i] = value;
                active[i] = false;
            }
            None => break,
        }
    }
    // Players without a game among those left have nothing to be rated
    // by (unless one alone is left: it is then the one finite rating).
    let left: Vec<usize> = (0..n).filter(|&i| active[i]).collect();
    for &i in &left {
        let alone = (0..n).all(|j| !active[j] || games(i, j) == 0.0);
        if alone && left.len() > 1 {
            elo[i] = f64::NAN;
        } else {
            rated.push(i);
        }
    }
    // Minorisation–maximisation on gamma = 10^(r / 400).
    let mut gamma = vec![1.0f64; n];
    // One player alone is at 0 with nothing to iterate.
    let mut converged = rated.len() < 2;
    for _ in 0..if converged { 0 } else { 200_000 } {
        let mut change = 0.0f64;
        for &i in &rated {
            let s: f64 = rated.iter().map(|&j| points(i, j)).sum();
            let d: f64 = rated
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| games(i, j) / (gamma[i] + gamma[j]))
                .sum();
            let next = s / d;
            change = change.max((next / gamma[i]).ln().abs());
            gamma[i] = next;
        }
        // Keep the scale fixed (the likelihood only sees differences).
        let mean_log = rated.iter().map(|&i| gamma[i].ln()).sum::<f64>() / rated.len() as f64;
        for &i in &rated {
            gamma[i] /= mean_log.exp();
        }
        if change < 1e-13 {
            converged = true;
            break;
        }
    }
    for &i in &rated {
        elo[i] = 400.0 * gamma[i].log10();
    }
    let covariance = covariance(&rated, &elo, &games);
    // Shift to the anchor and take the anchor's variance out.
    let first_rated = rated.first() == Some(&0);
    let margins: Vec<f64> = match (anchor, first_rated) {
        (Anchor::First, true) => {
            let shift = elo[0];
            for &i in &rated {
                elo[i] -= shift;
            }
            (0..n)
                .map(|i| match rated.iter().position(|&r| r == i) {
                    Some(a) => {
                        let var = covariance[a][a] + covariance[0][0] - 2.0 * covariance[a][0];
                        1.96 * var.max(0.0).sqrt()
                    }
                    None => f64::INFINITY,
                })
                .collect()
        }
        // The mean of the rated players (also when the first player's
        // rating is infinite and cannot anchor).
        _ => {
            let m = rated.len() as f64;
            let shift = rated.iter().map(|&i| elo[i]).sum::<f64>() / m.max(1.0);
            for &i in &rated {
                elo[i] -= shift;
            }
            // Var(r_a − mean) = C_aa − 2 mean_b C_ab + mean_bc C_bc.
            let row_mean: Vec<f64> = covariance
                .iter()
                .map(|row| row.iter().sum::<f64>() / m)
                .collect();
            let all_mean = row_mean.iter().sum::<f64>() / m;
            (0..n)
                .map(|i| match rated.iter().position(|&r| r == i) {
                    Some(a) => {
                        let var = covariance[a][a] - 2.0 * row_mean[a] + all_mean;
                        1.96 * var.max(0.0).sqrt()
                    }
                    None => f64::INFINITY,
                })
                .collect()
        }
    };
    let ratings = (0..n)
        .map(|i| Rating {
            elo: elo[i],
            margin: margins[i],
        })
        .collect();
    (ratings, converged)
}

/// The anchor actually used: the first player unless its rating is
/// infinite (or it has no game), then the mean.
pub fn effective_anchor(ratings: &[Rating], anchor: Anchor) -> Anchor {
    match ratings.first() {
        Some(first) if anchor == Anchor::First && first.elo.is_finite() => Anchor::First,
        _ => Anchor::Mean,
    }
}

/// The covariance of the rated players' ratings (indexed like `rated`),
/// with the first of them held at 0: the inverse of the observed
/// information without its row and column. Infinite where the information
/// is singular (a player cut off from the others).
fn covariance(rated: &[usize], elo: &[f64], games: &dyn Fn(usize, usize) -> f64) -> Vec<Vec<f64>> {
    let m = rated.len();
    let mut cov = vec![vec![0.0; m]; m];
    if m < 2 {
        return cov;
    }
    let k = std::f64::consts::LN_10 / 400.0;
    let mut info = vec![vec![0.0; m]; m];
    for a in 0..m {
        for b in 0..m {
            if a == b {
                continue;
            }
            let (i, j) = (rated[a], rated[b]);
            let p = 1.0 / (1.0 + 10f64.powf((elo[j] - elo[i]) / 400.0));
            let w = k * k * games(i, j) * p * (1.0 - p);
            info[a][b] -= w;
            info[a][a] += w;
        }
    }
    // The information of ratings 1..m, rating 0 fixed.
    let reduced: Vec<Vec<f64>> = info[1..].iter().map(|row| row[1..].to_vec()).collect();
    match invert(reduced) {
        Some(inverse) => {
            for a in 1..m {
                for b in 1..m {
                    cov[a][b] = inverse[a - 1][b - 1];
                }
            }
        }
        None => {
            for row in cov.iter_mut().skip(1) {
                row.iter_mut().for_each(|c| *c = f64::INFINITY);
            }
        }
    }
    cov
}

/// The inverse of a symmetric positive-definite matrix by Gauss–Jordan
/// elimination with partial pivoting; `None` when it is singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() <= scale * 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for j in 0..n {
            a[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..n {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// A tournament's standings: the crosstable and the ratings.
#[derive(Clone, Debug)]
pub struct Standings {
    /// Results of every pair.
    pub table: Crosstable,
    /// One rating per player, in the tournament's order.
    pub ratings: Vec<Rating>,
    /// The anchor asked for.
    pub anchor: Anchor,
    /// Whether the likelihood's maximum was found.
    pub converged: bool,
    /// Virtual draws added to every pair that played (0: none).
    pub prior_draws: f64,
}

impl Standings {
    /// The standings of a crosstable.
    pub fn new(table: Crosstable, anchor: Anchor, prior_draws: f64) -> Standings {
        let (ratings, converged) = ratings(&table, anchor, prior_draws);
        Standings {
            table,
            ratings,
            anchor,
            converged,
            prior_draws,
        }
    }

    /// How the ratings were computed, for the printed header.
    fn method_text(&self) -> String {
        let prior = if self.prior_draws > 0.0 {
            format!(
                ", {} virtual draws added to each pairing that played",
                self.prior_draws
            )
        } else {
            String::new()
        };
        format!("Elo, {}{prior}", self.anchor_text())
    }

    /// Players by rating, best first (ties, and unrated players last, in
    /// the tournament's order).
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.ratings.len()).collect();
        let key = |i: usize| {
            let e = self.ratings[i].elo;
            if e.is_nan() { f64::NEG_INFINITY } else { e }
        };
        // Infinite ratings tie; their points order them.
        let points = |i: usize| self.table.total(i).points();
        order.sort_by(|&a, &b| {
            key(b)
                .total_cmp(&key(a))
                .then(points(b).total_cmp(&points(a)))
                .then(a.cmp(&b))
        });
        order
    }

    fn anchor_text(&self) -> String {
        match effective_anchor(&self.ratings, self.anchor) {
            Anchor::First => format!("{} at 0", self.table.names[0]),
            Anchor::Mean => "the mean at 0".to_owned(),
        }
    }

    /// The printed standings: the ratings table, then the crosstable.
    pub fn lines(&self) -> Vec<String> {
        let table = &self.table;
        let order = self.ranking();
        let width = table
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut lines = vec![format!(
            "Ratings by maximum likelihood over {} games ({}; +/- is a 95 % interval from the likelihood's curvature){}",
            table.games(),
            self.method_text(),
            if self.converged {
                ""
            } else {
                " — not converged: a group of players won every game against the rest"
            }
        )];
        lines.push(format!(
            "{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>7}  {:>6}  {:>4}  {:>4}  {:>4}",
            "Rank", "Name", "Elo", "+/-", "Games", "Points", "Score", "W", "L", "D"
        ));
        for (rank, &i) in order.iter().enumerate() {
            let total = table.total(i);
            let rating = self.ratings[i];
            let score = if total.games() == 0 {
                "-".to_owned()
            } else {
                format!(
                    "{}%",
                    fixed(100.0 * total.points() / f64::from(total.games()), 1)
                )
            };
            lines.push(format!(
                "{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>7}  {:>6}  {:>4}  {:>4}  {:>4}",
                rank + 1,
                table.names[i],
                fixed(rating.elo, 1),
                fixed(rating.margin, 1),
                total.games(),
                fixed(total.points(), 1),
                score,
                total.wins,
                total.losses,
                total.draws
            ));
        }
        lines.push(
            "Crosstable (points of the row's player against the column's, of games played; columns by rank):"
                .to_owned(),
        );
        let cell_width = order
            .iter()
            .flat_map(|&i| order.iter().map(move |&j| (i, j)))
            .map(|(i, j)| cell_text(&table.cells[i][j]).chars().count())
            .max()
            .unwrap_or(1)
            .max(3);
        let mut header = format!("{:>4}  {:<width$}", "", "");
        for rank in 1..=order.len() {
            header.push_str(&format!("  {rank:>cell_width$}"));
        }
        lines.push(header);
        for (rank, &i) in order.iter().enumerate() {
            let mut line = format!("{:>4}  {:<width$}", rank + 1, table.names[i]);
            for &j in &order {
                let text = if i == j {
                    "-".to_owned()
                } else {
                    cell_text(&table.cells[i][j])
                };
                line.push_str(&format!("  {text:>cell_width$}"));
            }
            lines.push(line);
        }
        lines
    }

    /// The standings as JSON (`--standings FILE`).
    pub fn json(&self, about: serde_json::Value) -> serde_json::Value {
        let table = &self.table;
        let number = |x: f64| {
            if x.is_finite() {
                serde_json::json!(x)
            } else if x.is_nan() {
                serde_json::Value::Null
            } else {
                serde_json::json!(if x > 0.0 { "inf" } else { "-inf" })
            }
        };
        let cell = |c: &Cell| {
            serde_json::json!({
                "games": c.games(), "points": c.points(),
                "wins": c.wins, "losses": c.losses, "draws": c.draws,
            })
        };
        let players: Vec<serde_json::Value> = self
            .ranking()
            .into_iter()
            .enumerate()
            .map(|(rank, i)| {
                let total = table.total(i);
                let mut entry = cell(&total);
                entry["rank"] = serde_json::json!(rank + 1);
                entry["name"] = serde_json::json!(table.names[i]);
                entry["elo"] = number(self.ratings[i].elo);
                entry["margin"] = number(self.ratings[i].margin);
                entry["against"] = (0..table.names.len())
                    .filter(|&j| j != i)
                    .map(|j| {
                        let mut c = cell(&table.cells[i][j]);
                        c["opponent"] = serde_json::json!(table.names[j]);
                        c
                    })
                    .collect();
                entry
            })
            .collect();
        serde_json::json!({
            "tournament": about,
            "games": table.games(),
            "rating": {
                "method": "maximum likelihood, logistic Elo model, draws half a point",
                "anchor": self.anchor_text(),
                "margin": "95 % interval, 1.96 standard errors from the log-likelihood's curvature",
                "converged": self.converged,
                "prior_draws": self.prior_draws,
            },
            "players": players,
        })
    }
}

/// `3.5/6`: points of games.
fn cell_text(cell: &Cell) -> String {
    if cell.games() == 0 {
        return ".".to_owned();
    }
    let points = cell.points();
    let points = if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    };
    format!("{points}/{}", cell.games())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::matches::stats::{Score, elo_from_score};

    /// A crosstable from `(a, b, wins of a, losses of a, draws)`.
    fn table(players: usize, results: &[(usize, usize, u32, u32, u32)]) -> Crosstable {
        let mut t = Crosstable::new((0..players).map(|i| format!("p{i}")).collect());
        for &(a, b, w, l, d) in results {
            for (count, sign) in [(w, 1), (l, -1), (d, 0)] {
                for _ in 0..count {
                    t.add(a, b, sign);
                }
            }
        }
        t
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn two_players_get_the_match_elo_difference() {
        for (w, l, d) in [
            (60, 40, 0),
            (30, 20, 50),
            (123, 100, 77),
            (10, 10, 5),
            (3, 7, 2),
        ] {
            let (r, converged) = ratings(&table(2, &[(0, 1, w, l, d)]), Anchor::First, 0.0);
            assert!(converged);
            let elo = Score::new(w, l, d).elo();
            assert_eq!(r[0].elo, 0.0);
            assert!(close(r[1].elo, -elo), "{w}/{l}/{d}: {} vs {elo}", r[1].elo);
            // Margin: 1.96 / (k sqrt(n p (1 − p))).
            let n = f64::from(w + l + d);
            let p = Score::new(w, l, d).mean();
            let k = std::f64::consts::LN_10 / 400.0;
            assert!(close(r[1].margin, 1.96 / (k * (n * p * (1.0 - p)).sqrt())));
            assert_eq!(r[0].margin, 0.0);
            // Mean anchor: ±half the difference, each with half the margin.
            let (m, _) = ratings(&table(2, &[(0, 1, w, l, d)]), Anchor::Mean, 0.0);
            assert!(close(m[0].elo, elo / 2.0) && close(m[1].elo, -elo / 2.0));
            assert!(close(m[0].margin, r[1].margin / 2.0));
        }
    }

    /// Worked by hand: gamma 4, 2, 1 (ratings 0, −120.41, −240.82) give
    /// expected scores 4/6 (p0–p1), 2/3 (p1–p2) and 4/5 (p0–p2); results in
    /// exactly those proportions (4 of 6, 4 of 6, 4 of 5 points) satisfy
    /// the likelihood equations, so they are the maximum.
    #[test]
    fn a_consistent_triangle_is_rated_by_hand() {
        let t = table(3, &[(0, 1, 3, 1, 2), (1, 2, 4, 2, 0), (0, 2, 3, 0, 2)]);
        let (r, converged) = ratings(&t, Anchor::First, 0.0);
        assert!(converged);
        let step = 400.0 * 2f64.log10();
        assert!(close(r[0].elo, 0.0) && close(r[1].elo, -step) && close(r[2].elo, -2.0 * step));
        let (m, _) = ratings(&t, Anchor::Mean, 0.0);
        assert!(close(m[0].elo, step) && close(m[1].elo, 0.0) && close(m[2].elo, -step));
    }

    /// A chain (p0–p1 and p1–p2 only) factorises: each link is a two-player
    /// match, and the variances of the ends add up.
    #[test]
    fn a_chain_is_two_matches() {
        let t = table(3, &[(0, 1, 3, 1, 0), (1, 2, 5, 1, 2)]);
        let (r, _) = ratings(&t, Anchor::First, 0.0);
        let first = elo_from_score(0.75);
        let second = elo_from_score(6.0 / 8.0);
        assert!(close(r[1].elo, -first));
        assert!(close(r[2].elo, -first - second));
        let k = std::f64::consts::LN_10 / 400.0;
        let var = |n: f64, p: f64| 1.0 / (k * k * n * p * (1.0 - p));
        assert!(close(r[1].margin, 1.96 * var(4.0, 0.75).sqrt()));
        assert!(close(
            r[2].margin,
            1.96 * (var(4.0, 0.75) + var(8.0, 0.75)).sqrt()
        ));
    }

    #[test]
    fn a_cycle_of_equal_wins_is_level() {
        let t = table(3, &[(0, 1, 3, 1, 0), (1, 2, 3, 1, 0), (2, 0, 3, 1, 0)]);
        let (r, _) = ratings(&t, Anchor::First, 0.0);
        assert!(r.iter().all(|x| close(x.elo, 0.0)), "{r:?}");
    }

    #[test]
    fn perfect_scores_and_absent_players_are_set_aside() {
        // p2 lost every game; p0 and p1 are rated between themselves; p3
        // never played.
        let t = table(4, &[(0, 1, 2, 1, 1), (0, 2, 2, 0, 0), (1, 2, 3, 0, 0)]);
        let (r, converged) = ratings(&t, Anchor::First, 0.0);
        assert!(converged);
        assert!(close(r[1].elo, -elo_from_score(2.5 / 4.0)));
        assert_eq!(r[2].elo, f64::NEG_INFINITY);
        assert!(r[3].elo.is_nan());
        let standings = Standings::new(t, Anchor::First, 0.0);
        assert_eq!(standings.ranking(), [0, 1, 2, 3]);
        let text = standings.lines().join("\n");
        assert!(text.contains("p0 at 0"), "{text}");
        assert!(text.contains("-inf"), "{text}");
        let json = standings.json(serde_json::Value::Null);
        assert_eq!(json["players"][2]["elo"], "-inf");
        assert_eq!(json["players"][3]["elo"], serde_json::Value::Null);
        assert_eq!(json["games"], 9);
    }

    /// Results in a strict order (each player beat everyone below it):
    /// no finite maximum; the players above the last are +inf, ranked by
    /// their points, and the last is the finite one.
    #[test]
    fn a_strict_order_is_set_aside_from_the_top() {
        let t = table(
            4,
            &[
                (0, 1, 2, 0, 0),
                (0, 2, 2, 0, 0),
                (3, 0, 2, 0, 0),
                (2, 1, 2, 0, 0),
                (3, 1, 2, 0, 0),
                (3, 2, 2, 0, 0),
            ],
        );
        let standings = Standings::new(t, Anchor::First, 0.0);
        let elo: Vec<f64> = standings.ratings.iter().map(|r| r.elo).collect();
        assert_eq!(elo, [f64::INFINITY, 0.0, f64::INFINITY, f64::INFINITY]);
        assert_eq!(standings.ranking(), [3, 0, 2, 1]);
        assert_eq!(
            effective_anchor(&standings.ratings, Anchor::First),
            Anchor::Mean
        );
    }

    /// Two virtual draws turn a 4–0 into 5 of 6 points.
    #[test]
    fn a_prior_of_draws_keeps_ratings_finite() {
        let t = table(3, &[(0, 1, 4, 0, 0), (1, 2, 1, 1, 0)]);
        let (r, converged) = ratings(&t, Anchor::First, 2.0);
        assert!(converged);
        assert!(close(r[1].elo, -elo_from_score(5.0 / 6.0)));
        assert!(close(r[2].elo, r[1].elo));
        let standings = Standings::new(t, Anchor::First, 2.0);
        assert!(standings.lines()[0].contains("2 virtual draws"));
        assert_eq!(
            standings.json(serde_json::Value::Null)["rating"]["prior_draws"],
            2.0
        );
    }

    #[test]
    fn the_crosstable_counts_both_sides() {
        let t = table(3, &[(0, 1, 1, 0, 1), (2, 0, 0, 1, 0)]);
        assert_eq!(
            t.cells[0][1],
            Cell {
                wins: 1,
                losses: 0,
                draws: 1
            }
        );
        assert_eq!(
            t.cells[1][0],
            Cell {
                wins: 0,
                losses: 1,
                draws: 1
            }
        );
        assert_eq!(t.total(0).points(), 2.5);
        assert_eq!(t.games(), 3);
        assert_eq!(cell_text(&t.cells[0][1]), "1.5/2");
        assert_eq!(cell_text(&t.cells[1][2]), ".");
        assert_eq!(Anchor::parse("Mean"), Ok(Anchor::Mean));
        assert!(Anchor::parse("median").is_err());
    }
}
