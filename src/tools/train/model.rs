//! The float model ([`FloatNetwork`]): the network's shape in `f32`, its
//! forward pass and loss, and the conversions to and from the quantised
//! [`Network`] that the file stores.

use super::config::TrainConfig;
use super::rows::gather_rows;
use super::samples::{Samples, sigmoid};
use crate::network::{MAX_HIDDEN, Network, NetworkParts, QA, QB};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// Width of the partial sums in the output dot product: eight `f32` lanes
/// fill an AVX2 register, and independent lanes let the compiler vectorise
/// a sum it may not reorder.
const LANES: usize = 8;
/// Samples per parallel task when computing a loss.
pub(super) const LOSS_CHUNK: usize = 1 << 12;

/// The network in floating point, as it is trained.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The game whose inputs it reads.
    game: String,
    /// Number of inputs.
    inputs: usize,
    /// Number of hidden units.
    pub(super) hidden: usize,
    /// Number of output buckets.
    buckets: usize,
    /// Evaluation units per unit of output.
    scale: f32,
    /// `inputs × hidden`, one row per input.
    pub(super) input_weights: Vec<f32>,
    /// One per hidden unit.
    pub(super) hidden_bias: Vec<f32>,
    /// `buckets × hidden`, one row per bucket.
    pub(super) output_weights: Vec<f32>,
    /// One per bucket.
    pub(super) output_bias: Vec<f32>,
}

impl FloatNetwork {
    /// A fresh network: first-layer weights uniform in ±1/√`mean_active`
    /// (so a hidden sum starts with a spread of about 0.6, inside the
    /// activation's bend), output weights uniform in ±1/√`hidden`, biases 0.
    pub(super) fn random(
        game: &str,
        inputs: usize,
        config: &TrainConfig,
        mean_active: f32,
        rng: &mut Xoshiro256PlusPlus,
    ) -> FloatNetwork {
        let hidden = config.hidden;
        let first = 1.0 / mean_active.max(1.0).sqrt();
        let second = 1.0 / (hidden as f32).sqrt();
        let mut uniform = |bound: f32, n: usize| -> Vec<f32> {
            (0..n).map(|_| rng.random_range(-bound..bound)).collect()
        };
        FloatNetwork {
            game: game.to_string(),
            inputs,
            hidden,
            buckets: config.buckets,
            scale: config.scale,
            input_weights: uniform(first, inputs * hidden),
            hidden_bias: vec![0.0; hidden],
            output_weights: uniform(second, config.buckets * hidden),
            output_bias: vec![0.0; config.buckets],
        }
    }

    /// The float network a quantised one stands for: each integer divided
    /// by its layer's factor (the inverse of [`FloatNetwork::quantise`],
    /// exact up to the rounding the file kept).
    pub fn from_quantised(network: &Network) -> FloatNetwork {
        let parts = network.to_parts();
        let to_f32 = |layer: &[i16], factor: i32| -> Vec<f32> {
            layer
                .iter()
                .map(|&w| f32::from(w) / factor as f32)
                .collect()
        };
        FloatNetwork {
            game: parts.game,
            inputs: parts.inputs,
            hidden: parts.hidden,
            buckets: parts.buckets,
            scale: parts.scale as f32,
            input_weights: to_f32(&parts.input_weights, QA),
            hidden_bias: to_f32(&parts.hidden_bias, QA),
            output_weights: to_f32(&parts.output_weights, QB),
            output_bias: parts
                .output_bias
                .iter()
                .map(|&b| (f64::from(b) / f64::from(QA * QB)) as f32)
                .collect(),
        }
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Fills `acc` (length `hidden`) with the hidden sums of `active`.
    /// Inputs out of range are skipped, as [`Network::evaluate`] does.
    #[inline(always)]
    pub(super) fn accumulate(&self, active: &[u16], acc: &mut [f32]) {
        acc.copy_from_slice(&self.hidden_bias);
        let rows = active
            .iter()
            .map(|&input| usize::from(input))
            .filter(|&input| input < self.inputs);
        gather_rows(acc, &self.input_weights, rows);
    }

    /// The output weights of `bucket`.
    #[inline(always)]
    pub(super) fn bucket_weights(&self, bucket: usize) -> &[f32] {
        &self.output_weights[bucket * self.hidden..][..self.hidden]
    }

    /// The float output for hidden sums `acc`, by output bucket `bucket`.
    #[inline(always)]
    pub(super) fn output(&self, acc: &[f32], bucket: usize) -> f32 {
        self.output_bias[bucket] + screlu_dot(acc, self.bucket_weights(bucket))
    }

    /// The score for the side to move of a position whose active inputs
    /// are `active`, read by output bucket `bucket` (the last one if it is
    /// past them), in evaluation units (what [`Network::evaluate`] computes
    /// in integers).
    pub fn evaluate(&self, active: &[u16], bucket: usize) -> f32 {
        self.raw_output(active, bucket.min(self.buckets - 1)) * self.scale
    }

    /// The float output (evaluation / scale) for `active`.
    fn raw_output(&self, active: &[u16], bucket: usize) -> f32 {
        let mut acc = [0.0f32; MAX_HIDDEN];
        let acc = &mut acc[..self.hidden];
        self.accumulate(active, acc);
        self.output(acc, bucket)
    }

    /// The mean squared error of `sigmoid(output)` against the targets of
    /// `samples` (0 when there are none).
    pub fn loss(&self, samples: &Samples) -> f64 {
        let all: Vec<u32> = (0..samples.len() as u32).collect();
        self.loss_of(samples, &all)
    }

    /// The mean loss over the samples numbered in `indices`. Partial sums
    /// of fixed chunks, added in order, keep it independent of threads.
    pub(super) fn loss_of(&self, samples: &Samples, indices: &[u32]) -> f64 {
        if indices.is_empty() {
            return 0.0;
        }
        let sums: Vec<f64> = indices
            .par_chunks(LOSS_CHUNK)
            .map(|chunk| {
                let mut scratch = Vec::new();
                chunk
                    .iter()
                    .map(|&index| {
                        let sample = samples.get(index as usize, &mut scratch);
                        let bucket = sample.bucket.min(self.buckets - 1);
                        let output = self.raw_output(sample.inputs, bucket);
                        let error = sigmoid(output) - sample.target;
                        f64::from(error * error)
                    })
                    .sum::<f64>()
            })
            .collect();
        sums.iter().sum::<f64>() / indices.len() as f64
    }

    /// The quantised network (`round(W1 × QA)`, `round(b1 × QA)`,
    /// `round(w2 × QB)`, `round(b2 × QA × QB)` per bucket), as the file
    /// stores it.
    pub fn quantise(&self) -> Result<Network, String> {
        // `as` saturates, so a value past the integer range (impossible
        // after clipping) cannot wrap around.
        let to_i16 = |layer: &[f32], factor: i32| -> Vec<i16> {
            layer
                .iter()
                .map(|&w| (w * factor as f32).round() as i16)
                .collect()
        };
        Network::from_parts(NetworkParts {
            game: self.game.clone(),
            inputs: self.inputs,
            hidden: self.hidden,
            buckets: self.buckets,
            scale: self.scale as i32,
            input_weights: to_i16(&self.input_weights, QA),
            hidden_bias: to_i16(&self.hidden_bias, QA),
            output_weights: to_i16(&self.output_weights, QB),
            output_bias: self
                .output_bias
                .iter()
                .map(|&b| (f64::from(b) * f64::from(QA * QB)).round() as i32)
                .collect(),
        })
    }
}

/// `Σ screlu(acc[j]) · weights[j]`, in [`LANES`] independent partial sums.
#[inline(always)]
fn screlu_dot(acc: &[f32], weights: &[f32]) -> f32 {
    let screlu = |a: f32| {
        let clipped = a.clamp(0.0, 1.0);
        clipped * clipped
    };
    let mut lanes = [0.0f32; LANES];
    let acc_chunks = acc.chunks_exact(LANES);
    let weight_chunks = weights.chunks_exact(LANES);
    let tail: f32 = acc_chunks
        .remainder()
        .iter()
        .zip(weight_chunks.remainder())
        .map(|(&a, &w)| screlu(a) * w)
        .sum();
    for (a, w) in acc_chunks.zip(weight_chunks) {
        for lane in 0..LANES {
            lanes[lane] += screlu(a[lane]) * w[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}
