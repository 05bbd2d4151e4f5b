//! What `agon train` is asked for ([`TrainConfig`]), the checks that
//! refuse a setting before any work is done, and the learning-rate
//! schedule.

use crate::game::Game;
use crate::network::{MAX_BUCKETS, MAX_HIDDEN, Network};
use std::sync::Arc;

/// What `agon train` is asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Hidden units (1 to [`MAX_HIDDEN`]).
    pub hidden: usize,
    /// Output buckets (1 to [`MAX_BUCKETS`], see [`LearnedEvaluation::bucket`](crate::game::LearnedEvaluation::bucket)).
    pub buckets: usize,
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per optimizer step.
    pub batch: usize,
    /// Adam's learning rate in the first epoch.
    pub learning_rate: f32,
    /// The learning rate of the last epoch as a share of the first; the
    /// epochs in between follow a cosine curve.
    pub final_lr_share: f32,
    /// Weight of the search score in the target (the result gets the rest).
    pub lambda: f32,
    /// Evaluation units per unit of float output (a whole number).
    pub scale: f32,
    /// Share of the records held out (with all their samples) to measure
    /// the validation loss.
    pub validation_share: f32,
    /// Seed of the initial weights, the split and the shuffles.
    pub seed: u64,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Whether each record also gives a sample for every other image of
    /// its position under the board's symmetries
    /// ([`Game::symmetric_images`]).
    pub symmetries: bool,
    /// A network to start from instead of random weights (`agon train
    /// --init`): training goes on from where it stopped, on new data or
    /// at a lower rate. It must fit the game and have `hidden`, `buckets`
    /// and `scale` as configured.
    pub start: Option<Arc<Network>>,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            hidden: 128,
            buckets: 1,
            epochs: 20,
            batch: 16384,
            learning_rate: 0.001,
            final_lr_share: 0.1,
            lambda: 0.5,
            scale: 400.0,
            validation_share: 0.05,
            seed: 1,
            threads: 0,
            symmetries: true,
            start: None,
        }
    }
}

impl TrainConfig {
    /// Whether every field is usable, or which one is not.
    pub fn check(&self) -> Result<(), String> {
        if self.hidden == 0 || self.hidden > MAX_HIDDEN {
            return Err(format!("hidden units {} (1 to {MAX_HIDDEN})", self.hidden));
        }
        if self.buckets == 0 || self.buckets > MAX_BUCKETS {
            return Err(format!(
                "output buckets {} (1 to {MAX_BUCKETS})",
                self.buckets
            ));
        }
        if self.epochs == 0 || self.batch == 0 {
            return Err("epochs and batch size must be at least 1".into());
        }
        in_range("learning rate", self.learning_rate, f32::MIN_POSITIVE, 1.0)?;
        in_range("final learning-rate share", self.final_lr_share, 0.0, 1.0)?;
        in_range("lambda", self.lambda, 0.0, 1.0)?;
        in_range("validation share", self.validation_share, 0.0, 0.99)?;
        // The file stores the scale as an integer; a fraction would make
        // the float and quantised networks disagree.
        if !(1.0..=1e6).contains(&self.scale) || self.scale.fract() != 0.0 {
            return Err(format!("scale {} (a whole number from 1)", self.scale));
        }
        Ok(())
    }

    /// The learning rate of `epoch` (from 0): a cosine from
    /// `learning_rate` down to `learning_rate × final_lr_share`.
    pub fn learning_rate_at(&self, epoch: usize) -> f32 {
        if self.epochs < 2 {
            return self.learning_rate;
        }
        let progress = epoch as f32 / (self.epochs - 1) as f32;
        let cosine = 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
        self.learning_rate * (self.final_lr_share + (1.0 - self.final_lr_share) * cosine)
    }

    /// A thread pool of `threads` workers (0: one per core): the samples
    /// are made and the network trained in it.
    pub(super) fn thread_pool(&self) -> Result<rayon::ThreadPool, String> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| format!("cannot start the training threads: {e}"))
    }

    /// Whether training can go on from the configured starting network (if
    /// any): it must fit game `G` ([`Network::check_fits`]) and have the
    /// configured shape and scale (a different scale would change what every
    /// output means).
    pub(super) fn check_start<G: Game>(&self) -> Result<(), String> {
        let Some(start) = &self.start else {
            return Ok(());
        };
        start
            .check_fits::<G>()
            .map_err(|e| format!("starting network: {e}"))?;
        let mismatch = |what: &str, has: String, wanted: String| {
            Err(format!(
                "starting network: {what} {has}, the training wants {wanted}"
            ))
        };
        if start.hidden() != self.hidden {
            return mismatch(
                "hidden units",
                start.hidden().to_string(),
                self.hidden.to_string(),
            );
        }
        if start.buckets() != self.buckets {
            return mismatch(
                "output buckets",
                start.buckets().to_string(),
                self.buckets.to_string(),
            );
        }
        if start.scale() as f32 != self.scale {
            return mismatch("scale", start.scale().to_string(), self.scale.to_string());
        }
        Ok(())
    }
}

/// `Ok` when `low ≤ value ≤ high` (and not NaN), else an error naming it.
fn in_range(name: &str, value: f32, low: f32, high: f32) -> Result<(), String> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(format!("{name} {value} (must be from {low} to {high})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::network::NetworkParts;

    /// Why [`TrainConfig::check`] refuses the default configuration
    /// changed by `change`.
    fn refusal(change: impl FnOnce(&mut TrainConfig)) -> String {
        let mut config = TrainConfig::default();
        change(&mut config);
        config.check().expect_err("the change should be refused")
    }

    #[test]
    fn the_default_and_the_bounds_are_accepted() {
        assert_eq!(TrainConfig::default().check(), Ok(()));
        let edges = TrainConfig {
            hidden: MAX_HIDDEN,
            buckets: MAX_BUCKETS,
            epochs: 1,
            batch: 1,
            learning_rate: 1.0,
            final_lr_share: 0.0,
            lambda: 1.0,
            scale: 1.0,
            validation_share: 0.99,
            ..TrainConfig::default()
        };
        assert_eq!(edges.check(), Ok(()));
        let low = TrainConfig {
            hidden: 1,
            buckets: 1,
            lambda: 0.0,
            validation_share: 0.0,
            final_lr_share: 1.0,
            ..TrainConfig::default()
        };
        assert_eq!(low.check(), Ok(()));
    }

    #[test]
    fn out_of_range_values_are_refused_by_name() {
        let cases = [
            (refusal(|c| c.hidden = 0), "hidden units 0 (1 to 256)"),
            (refusal(|c| c.hidden = 257), "hidden units 257 (1 to 256)"),
            (refusal(|c| c.buckets = 0), "output buckets 0 (1 to 16)"),
            (refusal(|c| c.buckets = 17), "output buckets 17 (1 to 16)"),
            (
                refusal(|c| c.epochs = 0),
                "epochs and batch size must be at least 1",
            ),
            (
                refusal(|c| c.batch = 0),
                "epochs and batch size must be at least 1",
            ),
            (
                refusal(|c| c.learning_rate = 0.0),
                "learning rate 0 (must be from ",
            ),
            (
                refusal(|c| c.learning_rate = 1.5),
                "learning rate 1.5 (must be from ",
            ),
            (refusal(|c| c.learning_rate = f32::NAN), "learning rate NaN"),
            (
                refusal(|c| c.final_lr_share = -0.1),
                "final learning-rate share -0.1 (must be from 0 to 1)",
            ),
            (
                refusal(|c| c.lambda = 1.01),
                "lambda 1.01 (must be from 0 to 1)",
            ),
            (
                refusal(|c| c.validation_share = 0.995),
                "validation share 0.995 (must be from 0 to 0.99)",
            ),
            (
                refusal(|c| c.scale = 0.5),
                "scale 0.5 (a whole number from 1)",
            ),
            (
                refusal(|c| c.scale = 400.5),
                "scale 400.5 (a whole number from 1)",
            ),
            (
                refusal(|c| c.scale = 2e6),
                "scale 2000000 (a whole number from 1)",
            ),
        ];
        for (error, expected) in cases {
            assert!(
                error.contains(expected),
                "{error:?} should say {expected:?}"
            );
        }
    }

    #[test]
    fn the_learning_rate_falls_on_a_cosine() {
        let config = TrainConfig {
            epochs: 5,
            learning_rate: 0.01,
            final_lr_share: 0.1,
            ..TrainConfig::default()
        };
        let rates: Vec<f32> = (0..5).map(|e| config.learning_rate_at(e)).collect();
        // 0.01 × (0.1 + 0.9 × (1 + cos(π e / 4)) / 2).
        let expected = [0.01, 0.008_682, 0.0055, 0.002_318, 0.001];
        for (rate, want) in rates.iter().zip(expected) {
            assert!((rate - want).abs() < 1e-6, "{rates:?}");
        }
        let single = TrainConfig {
            epochs: 1,
            ..config
        };
        assert_eq!(single.learning_rate_at(0), 0.01);
    }

    #[test]
    fn the_pool_has_the_configured_threads() {
        let config = TrainConfig {
            threads: 3,
            ..TrainConfig::default()
        };
        assert_eq!(config.thread_pool().unwrap().current_num_threads(), 3);
    }

    /// An all-zero network for `game` of this shape.
    fn zero_network(game: &str, hidden: usize, buckets: usize, scale: i32) -> Arc<Network> {
        let inputs = Ataxx::learned()
            .map(|l| l.inputs())
            .expect("Ataxx has inputs");
        Arc::new(
            Network::from_parts(NetworkParts {
                game: game.to_string(),
                inputs,
                hidden,
                buckets,
                scale,
                input_weights: vec![0; inputs * hidden],
                hidden_bias: vec![0; hidden],
                output_weights: vec![0; buckets * hidden],
                output_bias: vec![0; buckets],
            })
            .expect("a valid network"),
        )
    }

    #[test]
    fn a_starting_network_must_fit_the_game_and_the_shape() {
        let config = TrainConfig {
            hidden: 16,
            buckets: 2,
            scale: 400.0,
            ..TrainConfig::default()
        };
        let starting = |start| TrainConfig {
            start: Some(start),
            ..config.clone()
        };
        assert_eq!(config.check_start::<Ataxx>(), Ok(()));
        let fits = starting(zero_network("ataxx", 16, 2, 400));
        assert_eq!(fits.check_start::<Ataxx>(), Ok(()));
        let cases = [
            (
                zero_network("dots", 16, 2, 400),
                "starting network: the network is for dots, not ataxx",
            ),
            (
                zero_network("ataxx", 8, 2, 400),
                "starting network: hidden units 8, the training wants 16",
            ),
            (
                zero_network("ataxx", 16, 1, 400),
                "starting network: output buckets 1, the training wants 2",
            ),
            (
                zero_network("ataxx", 16, 2, 300),
                "starting network: scale 300, the training wants 400",
            ),
        ];
        for (start, expected) in cases {
            assert_eq!(starting(start).check_start::<Ataxx>(), Err(expected.into()));
        }
    }
}
