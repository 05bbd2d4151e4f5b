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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Three inputs, two hidden units, two buckets; every weight a few
    /// binary digits so that the hand computations below are exact.
    fn tiny() -> FloatNetwork {
        FloatNetwork {
            game: "test".into(),
            inputs: 3,
            hidden: 2,
            buckets: 2,
            scale: 100.0,
            input_weights: vec![0.5, -0.25, 0.25, 0.75, -1.0, 0.5],
            hidden_bias: vec![0.25, 0.0],
            output_weights: vec![1.0, -0.5, 0.5, 2.0],
            output_bias: vec![0.125, -0.25],
        }
    }

    #[test]
    fn the_forward_pass_matches_a_hand_computation() {
        let network = tiny();
        // Inputs 0, 1: acc = (0.25 + 0.5 + 0.25, 0 − 0.25 + 0.75) = (1, 0.5),
        // screlu = (1, 0.25); bucket 0: 0.125 + 1 − 0.125 = 1.
        assert_eq!(network.evaluate(&[0, 1], 0), 100.0);
        // Bucket 1: −0.25 + 0.5 + 0.5 = 0.75.
        assert_eq!(network.evaluate(&[0, 1], 1), 75.0);
        // Input 2: acc = (−0.75, 0.5), the first unit clipped to 0;
        // 0.125 + 0 − 0.5 × 0.25 = 0.
        assert_eq!(network.evaluate(&[2], 0), 0.0);
        // Inputs 0, 0, 1: acc = (1.5, 0.25), the first clipped to 1;
        // 0.125 + 1 − 0.5 × 0.0625 = 1.09375.
        assert_eq!(network.evaluate(&[0, 0, 1], 0), 109.375);
        // No inputs: the biases alone, (0.25, 0): −0.25 + 0.5 × 0.0625.
        assert_eq!(network.evaluate(&[], 1), -21.875);
        // An input past the network is skipped, a bucket past the last
        // reads the last.
        assert_eq!(network.evaluate(&[0, 7, 1], 0), 100.0);
        assert_eq!(network.evaluate(&[0, 1], 9), 75.0);
    }

    #[test]
    fn the_loss_is_the_mean_squared_error_of_the_probabilities() {
        let network = tiny();
        let mut samples = Samples::new();
        samples.push(&[0, 1], 1.0);
        samples.push_record([(&[0u16, 1][..], 1)], 0.25);
        samples.push(&[2], 0.5);
        // Outputs 1, 0.75 and 0 (see the forward pass above).
        let errors = [sigmoid(1.0) - 1.0, sigmoid(0.75) - 0.25, 0.0];
        let expected = errors.iter().map(|e| f64::from(e * e)).sum::<f64>() / 3.0;
        assert!((network.loss(&samples) - expected).abs() < 1e-9);
        assert_eq!(network.loss_of(&samples, &[2]), 0.0);
        assert_eq!(network.loss(&Samples::new()), 0.0);
    }

    #[test]
    fn the_output_sum_is_the_plain_sum() {
        let screlu = |a: f32| a.clamp(0.0, 1.0).powi(2);
        for n in [0, 3, LANES, LANES + 5, 45] {
            let acc: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1.5).collect();
            let weights: Vec<f32> = (0..n).map(|i| (i as f32 * 0.61).cos()).collect();
            let plain: f32 = acc.iter().zip(&weights).map(|(&a, &w)| screlu(a) * w).sum();
            let lanes = screlu_dot(&acc, &weights);
            assert!((lanes - plain).abs() < 1e-5, "{n}: {lanes} against {plain}");
        }
    }

    #[test]
    fn random_weights_are_seeded_and_bounded() {
        let config = TrainConfig {
            hidden: 25,
            buckets: 3,
            ..TrainConfig::default()
        };
        let draw = |seed| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            FloatNetwork::random("test", 40, &config, 16.0, &mut rng)
        };
        let network = draw(1);
        assert_eq!(network, draw(1));
        assert_ne!(network, draw(2));
        assert_eq!((network.inputs(), network.hidden()), (40, 25));
        // ±1/√16 and ±1/√25.
        assert!(network.input_weights.iter().all(|w| w.abs() < 0.25));
        assert!(network.output_weights.iter().all(|w| w.abs() <= 0.2));
        assert!(network.input_weights.iter().any(|w| w.abs() > 0.2));
        assert!(
            network
                .hidden_bias
                .iter()
                .chain(&network.output_bias)
                .all(|&b| b == 0.0)
        );
        assert_eq!(network.output_weights.len(), 75);
    }

    /// A float network of 300 inputs, 40 hidden units (a block and a
    /// tail) and 3 buckets, biases included.
    fn random_float(seed: u64) -> (FloatNetwork, Xoshiro256PlusPlus) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let config = TrainConfig {
            hidden: 40,
            buckets: 3,
            scale: 400.0,
            ..TrainConfig::default()
        };
        let mut network = FloatNetwork::random("test", 300, &config, 20.0, &mut rng);
        for bias in &mut network.hidden_bias {
            *bias = rng.random_range(-0.3..0.5);
        }
        for bias in &mut network.output_bias {
            *bias = rng.random_range(-1.0..1.0);
        }
        (network, rng)
    }

    /// The most that rounding the weights of `network` to the file's steps
    /// can move its float output for `active` in bucket `bucket`: each
    /// hidden sum moves by at most half a step (1/QA) per row and bias,
    /// a clipped square by twice that, and an output weight or bias by
    /// half its step.
    fn rounding_bound(network: &FloatNetwork, active: &[u16], bucket: usize) -> f64 {
        let (qa, qb) = (f64::from(QA), f64::from(QB));
        let acc_error = (active.len() + 1) as f64 * 0.5 / qa;
        let weights = network.bucket_weights(bucket);
        let hidden: f64 = weights
            .iter()
            .map(|&w| 2.0 * acc_error * (f64::from(w.abs()) + 0.5 / qb) + 0.5 / qb)
            .sum();
        hidden + 0.5 / (qa * qb)
    }

    #[test]
    fn a_quantised_network_read_back_evaluates_as_the_float_one() {
        let (float, mut rng) = random_float(3);
        let bytes = float.quantise().expect("quantise").to_bytes();
        let network = Network::from_bytes(&bytes).expect("a network file");
        let dequantised = FloatNetwork::from_quantised(&network);
        let scale = f64::from(float.scale);
        let truncation = 1.0 + scale / f64::from(QA * QB);
        let mut total = 0.0;
        for _ in 0..500 {
            let active: Vec<u16> = (0..20).map(|_| rng.random_range(0..300)).collect();
            let bucket = rng.random_range(0..3);
            let integer = f64::from(network.evaluate(&active, bucket));
            // The integer inference computes the rounded weights' output,
            // up to its two truncating divisions.
            let rounded = f64::from(dequantised.evaluate(&active, bucket));
            assert!(
                (integer - rounded).abs() <= truncation + 1e-2,
                "{integer} {rounded}"
            );
            // And the rounded weights move the float output no more than
            // rounding can.
            let exact = f64::from(float.evaluate(&active, bucket));
            let bound = rounding_bound(&float, &active, bucket) * scale + truncation;
            assert!(
                (integer - exact).abs() <= bound,
                "{integer} {exact} {bound}"
            );
            total += (integer - exact).abs();
        }
        // On average far inside the bound: the roundings do not line up.
        assert!(total / 500.0 < 10.0, "mean error {}", total / 500.0);
    }

    #[test]
    fn a_quantised_network_read_as_floats_quantises_to_the_same_bytes() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let (inputs, hidden, buckets) = (50, 20, 2);
        let mut i16s = |n: usize, bound: i16| -> Vec<i16> {
            (0..n).map(|_| rng.random_range(-bound..=bound)).collect()
        };
        let mut input_weights = i16s(inputs * hidden, 505);
        // The extremes of the type survive too.
        input_weights[0] = i16::MIN;
        input_weights[1] = i16::MAX;
        let parts = NetworkParts {
            game: "test".into(),
            inputs,
            hidden,
            buckets,
            scale: 250,
            input_weights,
            hidden_bias: i16s(hidden, 505),
            output_weights: i16s(buckets * hidden, 127),
            output_bias: vec![-1_234_567, 98_765],
        };
        let network = Network::from_parts(parts).expect("a valid network");
        let float = FloatNetwork::from_quantised(&network);
        assert_eq!((float.inputs(), float.hidden(), float.buckets), (50, 20, 2));
        assert_eq!(
            float.quantise().expect("quantise").to_bytes(),
            network.to_bytes()
        );
    }
}
