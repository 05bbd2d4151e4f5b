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
    /// Output buckets (1 to [`MAX_BUCKETS`], see [`Game::network_bucket`]).
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
