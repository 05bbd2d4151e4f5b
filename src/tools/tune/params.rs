//! The parameters SPSA tunes, in OpenBench's input format: one per line,
//! `NAME, int, VALUE, MIN, MAX, C_END, R_END` (or `float`), where `C_END`
//! is the perturbation and `R_END` the learning rate the run ends with.
//! `#` starts a comment. `agon tune --write-params` writes a game's
//! tunables in this form.

use crate::tuning::SearchTuning;

/// The learning rate OpenBench proposes when none is given.
pub const DEFAULT_R_END: f64 = 0.002;

/// One tuned parameter and where it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The engine option it sets (`Tune.rfp_base`).
    pub name: String,
    /// Whether engines get it rounded to an integer.
    pub integer: bool,
    /// The current value (fractional while tuning, even for integers).
    pub value: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// The perturbation at the end of the run.
    pub c_end: f64,
    /// The learning rate at the end of the run.
    pub r_end: f64,
}

impl Param {
    /// Parses one line of the format.
    pub fn parse(line: &str) -> Result<Param, String> {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, kind, value, min, max, c_end, r_end] = fields[..] else {
            return Err(format!(
                "expected NAME, int|float, VALUE, MIN, MAX, C_END, R_END, not '{line}'"
            ));
        };
        let integer = match kind {
            "int" => true,
            "float" => false,
            other => return Err(format!("type must be int or float, not '{other}'")),
        };
        let number = |what: &str, text: &str| -> Result<f64, String> {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{name}: {what} must be a number, not '{text}'"))
        };
        let param = Param {
            name: name.to_owned(),
            integer,
            value: number("value", value)?,
            min: number("min", min)?,
            max: number("max", max)?,
            c_end: number("c_end", c_end)?,
            r_end: number("r_end", r_end)?,
        };
        param.check()?;
        Ok(param)
    }

    fn check(&self) -> Result<(), String> {
        let name = &self.name;
        if name.is_empty() || name.contains(char::is_whitespace) || name.contains('=') {
            return Err(format!("'{name}' is not an option name"));
        }
        if self.min >= self.max {
            return Err(format!("{name}: min must be below max"));
        }
        if !(self.min..=self.max).contains(&self.value) {
            return Err(format!(
                "{name}: value {} is outside {}..{}",
                self.value, self.min, self.max
            ));
        }
        if self.c_end <= 0.0 || self.r_end <= 0.0 {
            return Err(format!("{name}: c_end and r_end must be above 0"));
        }
        Ok(())
    }

    /// The line of the format (the value with every digit it has, so that
    /// a state file read back continues exactly).
    pub fn line(&self) -> String {
        let kind = if self.integer { "int" } else { "float" };
        format!(
            "{}, {kind}, {}, {}, {}, {}, {}",
            self.name, self.value, self.min, self.max, self.c_end, self.r_end
        )
    }

    /// What an engine is given for `value`: within range, rounded for an
    /// integer.
    pub fn sent(&self, value: f64) -> f64 {
        let value = value.clamp(self.min, self.max);
        if self.integer { value.round() } else { value }
    }

    /// `value` as the option's text.
    pub fn option_value(&self, value: f64) -> String {
        let sent = self.sent(value);
        if self.integer {
            format!("{}", sent as i64)
        } else {
            format!("{sent}")
        }
    }
}

/// Reads a parameters file: every line a [`Param`]; blank lines and `#`
/// comments skipped; a name given twice is an error.
pub fn parse_params(text: &str) -> Result<Vec<Param>, String> {
    let mut params: Vec<Param> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let param = Param::parse(line).map_err(|e| format!("line {}: {e}", number + 1))?;
        if params
            .iter()
            .any(|p| p.name.eq_ignore_ascii_case(&param.name))
        {
            return Err(format!(
                "line {}: {} is listed twice",
                number + 1,
                param.name
            ));
        }
        params.push(param);
    }
    if params.is_empty() {
        return Err("no parameter to tune".into());
    }
    Ok(params)
}

/// The tunables of a search table at their values, as a parameters file
/// lists them (each with its step as `c_end` and [`DEFAULT_R_END`]).
pub fn tunables_of(tuning: &SearchTuning) -> Vec<Param> {
    tuning
        .tunables()
        .map(|(tunable, value)| Param {
            name: format!("Tune.{}", tunable.name),
            integer: true,
            value: f64::from(value),
            min: f64::from(tunable.min),
            max: f64::from(tunable.max),
            c_end: f64::from(tunable.step),
            r_end: DEFAULT_R_END,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_ones_are_refused() {
        let text = "# a comment\nTune.rfp_base, int, 12.375, -200, 400, 8, 0.002\n\nX, float, 0.5, 0, 1, 0.05, 0.002 # why\n";
        let params = parse_params(text).unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[0].value, 12.375);
        assert!(!params[1].integer);
        for param in &params {
            assert_eq!(&Param::parse(&param.line()).unwrap(), param);
        }
        assert_eq!(params[0].option_value(12.5), "13");
        assert_eq!(params[0].option_value(1e9), "400");
        for bad in [
            "Tune.a, int, 5, 0, 10, 1",
            "Tune.a, long, 5, 0, 10, 1, 0.002",
            "Tune.a, int, 50, 0, 10, 1, 0.002",
            "Tune.a, int, 5, 10, 0, 1, 0.002",
            "Tune.a, int, 5, 0, 10, 0, 0.002",
            "Tune.a, int, x, 0, 10, 1, 0.002",
            "Tune a, int, 5, 0, 10, 1, 0.002",
        ] {
            assert!(parse_params(bad).is_err(), "{bad}");
        }
        assert!(parse_params("A, int, 1, 0, 2, 1, 0.1\na, int, 1, 0, 2, 1, 0.1").is_err());
        assert!(parse_params("# nothing\n").is_err());
    }

    #[test]
    fn a_games_tunables_make_a_valid_file() {
        let params = tunables_of(&SearchTuning::DEFAULT);
        let text: String = params.iter().map(|p| p.line() + "\n").collect();
        assert_eq!(parse_params(&text).unwrap(), params);
        assert!(
            params
                .iter()
                .any(|p| p.name == "Tune.rfp_per_depth" && p.value == 90.0)
        );
    }
}
