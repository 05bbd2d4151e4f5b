//! `agon train`: fits the learned evaluation ([`crate::network`]) to
//! training records
//! ([`Record`](crate::tools::datagen::record::Record)) and quantises it
//! into a network file.
//!
//! The float model is the network's shape in `f32`: `acc = b1 + Σ W1[i]`
//! over the active inputs, `out = b2[k] + Σ w2[k] · screlu(acc)` with `k`
//! the position's output bucket
//! ([`LearnedEvaluation::bucket`](crate::game::LearnedEvaluation::bucket)),
//! evaluation `out × scale`. The loss is the mean squared error between
//! `sigmoid(out)` and a target that blends the search score (as a win
//! probability, `sigmoid(score / scale)`) with the game's result, so the
//! network learns in "probability space" where a won position at +2000 and
//! one at +3000 are nearly the same.
//!
//! Training is mini-batch Adam. A batch is split into one part per thread;
//! each thread sums its part's gradients into its own buffers, which are
//! then added in a fixed order, so a run depends on the seed and the thread
//! count only. The first layer is sparse: a sample touches only the rows of
//! its active inputs, so each buffer remembers which rows it touched and
//! only those are added and zeroed.
//!
//! Weights are clipped after every step so that the quantised integers
//! (see [`crate::network`]) cannot overflow: a first-layer row or bias is
//! at most `1.98 × QA` in `i16`, an output weight at most `1.98 × QB`.
//!
//! The parts, each in its own file, lower ones first (a file imports only
//! those above it):
//!
//! - `config`: [`TrainConfig`] and its checks;
//! - `samples`: records turned into [`Samples`] (with their symmetric
//!   images) and the split by record;
//! - `rows`: the row sums that the forward pass and the gradient share;
//! - `model`: the float network, its loss and its quantisation;
//! - `optimiser`: the gradients and Adam;
//! - `driver`: the epoch loop, the reports, [`train`] and [`run`].

mod config;
mod driver;
mod model;
mod optimiser;
mod rows;
mod samples;
#[cfg(test)]
mod testing;

pub use config::TrainConfig;
pub use driver::{EpochReport, run, train, train_float};
pub use model::FloatNetwork;
pub use optimiser::WEIGHT_LIMIT;
pub use samples::{Sample, Samples, samples, sigmoid, split_by_record, target};
