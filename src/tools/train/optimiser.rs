//! The optimiser: per-thread gradient buffers filled by backpropagation
//! ([`Gradient`]), and Adam's step with its moments ([`Adam`]), clipped so
//! that the quantised network cannot overflow.

use super::model::FloatNetwork;
use super::rows::{add_assign, scatter_rows};
use super::samples::{Sample, Samples, sigmoid};
use rayon::prelude::*;

/// Largest absolute value of a first-layer weight, hidden bias or output
/// weight after each step (keeps the quantised sums inside `i16`/`i32`).
pub const WEIGHT_LIMIT: f32 = 1.98;
/// Adam's first-moment decay.
const BETA1: f32 = 0.9;
/// Adam's second-moment decay.
const BETA2: f32 = 0.999;
/// Adam's denominator guard.
const EPSILON: f32 = 1e-8;
/// First-layer parameters per parallel task of the optimizer step.
const ADAM_CHUNK: usize = 1 << 14;

/// One thread's gradient buffers, with the first-layer rows it touched.
pub(super) struct Gradient {
    /// `inputs × hidden`; zero outside the touched rows.
    input_weights: Vec<f32>,
    /// One per hidden unit.
    hidden_bias: Vec<f32>,
    /// `buckets × hidden`, one row per bucket.
    output_weights: Vec<f32>,
    /// One per bucket.
    output_bias: Vec<f32>,
    /// Whether each first-layer row is in `rows`.
    touched: Vec<bool>,
    /// The first-layer rows with a nonzero gradient, in first-touch order.
    rows: Vec<u32>,
    /// Scratch: a sample's hidden sums.
    acc: Vec<f32>,
    /// Scratch: the loss's derivative by each hidden sum.
    acc_gradient: Vec<f32>,
    /// Scratch: the samples of the current part, copied together.
    gathered: Samples,
    /// Scratch: the inputs of a sample made by an image map.
    scratch: Vec<u16>,
}

impl Gradient {
    /// Zero buffers for a network of this shape.
    pub(super) fn new(inputs: usize, hidden: usize, buckets: usize) -> Gradient {
        Gradient {
            input_weights: vec![0.0; inputs * hidden],
            hidden_bias: vec![0.0; hidden],
            output_weights: vec![0.0; buckets * hidden],
            output_bias: vec![0.0; buckets],
            touched: vec![false; inputs],
            rows: Vec::new(),
            acc: vec![0.0; hidden],
            acc_gradient: vec![0.0; hidden],
            gathered: Samples::new(),
            scratch: Vec::new(),
        }
    }

    /// Adds the gradients of the samples numbered in `part`, each weighted
    /// by `weight` (one over the batch size, for a mean), and returns their
    /// summed loss.
    pub(super) fn accumulate(
        &mut self,
        network: &FloatNetwork,
        samples: &Samples,
        part: &[u32],
        weight: f32,
    ) -> f64 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, as checked just above.
                return unsafe { self.accumulate_avx2(network, samples, part, weight) };
            }
        }
        self.accumulate_portable(network, samples, part, weight)
    }

    /// [`Gradient::accumulate`] compiled for AVX2 (twice the lanes of the
    /// x86-64 baseline; no FMA, so the results are the same bit for bit).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn accumulate_avx2(
        &mut self,
        network: &FloatNetwork,
        samples: &Samples,
        part: &[u32],
        weight: f32,
    ) -> f64 {
        self.accumulate_portable(network, samples, part, weight)
    }

    /// [`Gradient::accumulate`] in portable code.
    #[inline(always)]
    fn accumulate_portable(
        &mut self,
        network: &FloatNetwork,
        samples: &Samples,
        part: &[u32],
        weight: f32,
    ) -> f64 {
        // Copy the part's samples together first: they are scattered over
        // the whole arena, and in this loop, unlike in the dependent
        // gradient work, the processor can wait for many misses at once.
        let mut gathered = std::mem::take(&mut self.gathered);
        gathered.clear();
        let mut scratch = std::mem::take(&mut self.scratch);
        for &index in part {
            let sample = samples.get(index as usize, &mut scratch);
            gathered.push_sample(sample.inputs, sample.bucket, sample.target);
        }
        self.scratch = scratch;
        let mut loss = 0.0f64;
        for sample in gathered.stored_samples() {
            loss += self.add_sample(network, sample, weight);
        }
        self.gathered = gathered;
        loss
    }

    /// Adds one sample's gradient and returns its loss.
    #[inline(always)]
    fn add_sample(&mut self, network: &FloatNetwork, sample: Sample<'_>, weight: f32) -> f64 {
        network.accumulate(sample.inputs, &mut self.acc);
        let probability = sigmoid(network.output(&self.acc, sample.bucket));
        let error = probability - sample.target;
        // d(error²)/d(out), through the sigmoid.
        let out_gradient = 2.0 * error * probability * (1.0 - probability) * weight;
        self.output_bias[sample.bucket] += out_gradient;
        self.add_hidden(network, out_gradient, sample.bucket);
        self.add_rows(sample.inputs);
        f64::from(error * error)
    }

    /// The output weights' (of `bucket`) and hidden biases' gradients, and
    /// the hidden sums' gradient into `acc_gradient`, for an output
    /// gradient `g`.
    #[inline(always)]
    fn add_hidden(&mut self, network: &FloatNetwork, g: f32, bucket: usize) {
        let width = network.hidden;
        let hidden = self
            .acc
            .iter()
            .zip(network.bucket_weights(bucket))
            .zip(self.output_weights[bucket * width..][..width].iter_mut())
            .zip(self.hidden_bias.iter_mut())
            .zip(self.acc_gradient.iter_mut());
        for ((((&a, &w), w_grad), b_grad), a_grad) in hidden {
            let clipped = a.clamp(0.0, 1.0);
            *w_grad += g * clipped * clipped;
            // screlu'(a) = 2a inside (0, 1), 0 outside.
            let slope = if a > 0.0 && a < 1.0 { 2.0 * a } else { 0.0 };
            *a_grad = g * w * slope;
            *b_grad += *a_grad;
        }
    }

    /// Adds `acc_gradient` to the first-layer rows of `inputs`.
    #[inline(always)]
    fn add_rows(&mut self, inputs: &[u16]) {
        for &input in inputs {
            let input = usize::from(input);
            if !self.touched[input] {
                self.touched[input] = true;
                self.rows.push(input as u32);
            }
        }
        let rows = inputs.iter().map(|&input| usize::from(input));
        scatter_rows(&mut self.input_weights, &self.acc_gradient, rows);
    }

    /// Adds `other`'s gradients to these.
    pub(super) fn absorb(&mut self, other: &Gradient) {
        let hidden = self.hidden_bias.len();
        for &row in &other.rows {
            let row = row as usize;
            if !self.touched[row] {
                self.touched[row] = true;
                self.rows.push(row as u32);
            }
            let range = row * hidden..(row + 1) * hidden;
            add_assign(
                &mut self.input_weights[range.clone()],
                &other.input_weights[range],
            );
        }
        add_assign(&mut self.hidden_bias, &other.hidden_bias);
        add_assign(&mut self.output_weights, &other.output_weights);
        add_assign(&mut self.output_bias, &other.output_bias);
    }

    /// Back to zero, touching only the rows that were used.
    pub(super) fn clear(&mut self) {
        let hidden = self.hidden_bias.len();
        for &row in &self.rows {
            let row = row as usize;
            self.touched[row] = false;
            self.input_weights[row * hidden..(row + 1) * hidden].fill(0.0);
        }
        self.rows.clear();
        self.hidden_bias.fill(0.0);
        self.output_weights.fill(0.0);
        self.output_bias.fill(0.0);
    }
}

/// Adam's two moment estimates for every parameter.
pub(super) struct Adam {
    /// First moments, laid out like the network.
    first: Moments,
    /// Second moments.
    second: Moments,
    /// Steps taken (for the bias correction).
    steps: i32,
}

/// One value per network parameter.
struct Moments {
    /// One per first-layer weight.
    input_weights: Vec<f32>,
    /// One per hidden bias.
    hidden_bias: Vec<f32>,
    /// One per output weight.
    output_weights: Vec<f32>,
    /// One per output bias.
    output_bias: Vec<f32>,
}

impl Moments {
    /// Zeros for a network of this shape.
    fn new(inputs: usize, hidden: usize, buckets: usize) -> Moments {
        Moments {
            input_weights: vec![0.0; inputs * hidden],
            hidden_bias: vec![0.0; hidden],
            output_weights: vec![0.0; buckets * hidden],
            output_bias: vec![0.0; buckets],
        }
    }
}

/// The step size and bias corrections of one Adam step.
#[derive(Clone, Copy)]
struct Step {
    /// The learning rate.
    rate: f32,
    /// `1 / (1 − β1^t)`.
    first_correction: f32,
    /// `1 / (1 − β2^t)`.
    second_correction: f32,
    /// The largest absolute value a parameter may take after the step.
    limit: f32,
}

impl Adam {
    /// Zero moments for a network of this shape.
    pub(super) fn new(inputs: usize, hidden: usize, buckets: usize) -> Adam {
        Adam {
            first: Moments::new(inputs, hidden, buckets),
            second: Moments::new(inputs, hidden, buckets),
            steps: 0,
        }
    }

    /// Moves `network` against `gradient` at learning rate `rate`, clipping
    /// all but the output bias to [`WEIGHT_LIMIT`] (which only the `i16`
    /// layers need). Every parameter moves, even with a zero gradient (its
    /// momentum carries on), as in standard Adam.
    pub(super) fn step(&mut self, network: &mut FloatNetwork, gradient: &Gradient, rate: f32) {
        self.steps += 1;
        let step = Step {
            rate,
            first_correction: 1.0 / (1.0 - BETA1.powi(self.steps)),
            second_correction: 1.0 / (1.0 - BETA2.powi(self.steps)),
            limit: WEIGHT_LIMIT,
        };
        let (first, second) = (&mut self.first, &mut self.second);
        network
            .input_weights
            .par_chunks_mut(ADAM_CHUNK)
            .zip(gradient.input_weights.par_chunks(ADAM_CHUNK))
            .zip(first.input_weights.par_chunks_mut(ADAM_CHUNK))
            .zip(second.input_weights.par_chunks_mut(ADAM_CHUNK))
            .for_each(|(((p, g), m), v)| adam_update(p, g, m, v, step));
        adam_update(
            &mut network.hidden_bias,
            &gradient.hidden_bias,
            &mut first.hidden_bias,
            &mut second.hidden_bias,
            step,
        );
        adam_update(
            &mut network.output_weights,
            &gradient.output_weights,
            &mut first.output_weights,
            &mut second.output_weights,
            step,
        );
        adam_update(
            &mut network.output_bias,
            &gradient.output_bias,
            &mut first.output_bias,
            &mut second.output_bias,
            Step {
                limit: f32::MAX,
                ..step
            },
        );
    }
}

/// Adam's update of `params` with gradients `grads` and moments `m`, `v`,
/// clipped to the step's limit.
#[inline(always)]
fn adam_update(params: &mut [f32], grads: &[f32], m: &mut [f32], v: &mut [f32], step: Step) {
    let each = params
        .iter_mut()
        .zip(grads)
        .zip(m.iter_mut())
        .zip(v.iter_mut());
    for (((p, &g), m), v) in each {
        *m = BETA1 * *m + (1.0 - BETA1) * g;
        *v = BETA2 * *v + (1.0 - BETA2) * g * g;
        let m_hat = *m * step.first_correction;
        let v_hat = *v * step.second_correction;
        *p = (*p - step.rate * m_hat / (v_hat.sqrt() + EPSILON)).clamp(-step.limit, step.limit);
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::TrainConfig;
    use super::*;
    use crate::network::{MAX_OUTPUT_WEIGHT, QA, QB};
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    const INPUTS: usize = 6;
    const HIDDEN: usize = 5;
    const BUCKETS: usize = 2;

    /// A seeded network of `INPUTS`, `HIDDEN` and `BUCKETS`, its biases
    /// drawn too so that every parameter has a gradient to check.
    fn small_network(seed: u64) -> FloatNetwork {
        let config = TrainConfig {
            hidden: HIDDEN,
            buckets: BUCKETS,
            scale: 100.0,
            ..TrainConfig::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut network = FloatNetwork::random("test", INPUTS, &config, 2.0, &mut rng);
        for bias in &mut network.hidden_bias {
            *bias = rng.random_range(0.0..0.6);
        }
        for bias in &mut network.output_bias {
            *bias = rng.random_range(-0.5..0.5);
        }
        network
    }

    /// Six samples over both buckets that touch every input.
    fn small_samples() -> Samples {
        let list: [(&[u16], usize, f32); 6] = [
            (&[0, 3], 0, 0.9),
            (&[1, 2, 5], 1, 0.2),
            (&[4], 0, 0.5),
            (&[0, 1, 4], 1, 0.7),
            (&[2, 3], 1, 0.05),
            (&[5, 0], 0, 0.4),
        ];
        let mut samples = Samples::new();
        for (inputs, bucket, target) in list {
            samples.push_record([(inputs, bucket)], target);
        }
        samples
    }

    /// The four layers one after another, in `f64`.
    fn flat(layers: [&[f32]; 4]) -> Vec<f64> {
        layers
            .iter()
            .flat_map(|l| l.iter().map(|&p| f64::from(p)))
            .collect()
    }

    fn network_parameters(n: &FloatNetwork) -> Vec<f64> {
        flat([
            &n.input_weights,
            &n.hidden_bias,
            &n.output_weights,
            &n.output_bias,
        ])
    }

    fn gradient_parameters(g: &Gradient) -> Vec<f64> {
        flat([
            &g.input_weights,
            &g.hidden_bias,
            &g.output_weights,
            &g.output_bias,
        ])
    }

    /// A sample's hidden sums and output for the parameters `p` (laid out
    /// as [`network_parameters`]), in `f64` from the model's definition.
    fn forward(p: &[f64], sample: Sample<'_>) -> (Vec<f64>, f64) {
        let (w1, rest) = p.split_at(INPUTS * HIDDEN);
        let (b1, rest) = rest.split_at(HIDDEN);
        let (w2, b2) = rest.split_at(BUCKETS * HIDDEN);
        let sums: Vec<f64> = (0..HIDDEN)
            .map(|j| {
                let rows = sample
                    .inputs
                    .iter()
                    .map(|&i| w1[usize::from(i) * HIDDEN + j]);
                b1[j] + rows.sum::<f64>()
            })
            .collect();
        let weights = &w2[sample.bucket * HIDDEN..][..HIDDEN];
        let out = b2[sample.bucket]
            + sums
                .iter()
                .zip(weights)
                .map(|(&a, &w)| a.clamp(0.0, 1.0).powi(2) * w)
                .sum::<f64>();
        (sums, out)
    }

    /// The mean of `(sigmoid(out) − target)²` over `samples` in `f64`.
    fn reference_loss(p: &[f64], samples: &Samples) -> f64 {
        let mut scratch = Vec::new();
        let total: f64 = (0..samples.len())
            .map(|s| {
                let sample = samples.get(s, &mut scratch);
                let (_, out) = forward(p, sample);
                (1.0 / (1.0 + (-out).exp()) - f64::from(sample.target)).powi(2)
            })
            .sum();
        total / samples.len() as f64
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let network = small_network(1);
        let samples = small_samples();
        let n = samples.len();
        let p = network_parameters(&network);
        // The hidden sums are away from the activation's kinks (where a
        // finite difference straddles two slopes) and on both sides of
        // its bend, so that the clipped case is checked too.
        let mut scratch = Vec::new();
        let sums: Vec<f64> = (0..n)
            .flat_map(|s| forward(&p, samples.get(s, &mut scratch)).0)
            .collect();
        assert!(
            sums.iter()
                .all(|a| a.abs() > 1e-3 && (a - 1.0).abs() > 1e-3)
        );
        assert!(sums.iter().any(|&a| a > 0.0 && a < 1.0));
        assert!(sums.iter().any(|&a| !(0.0..=1.0).contains(&a)));

        let mut gradient = Gradient::new(INPUTS, HIDDEN, BUCKETS);
        let all: Vec<u32> = (0..n as u32).collect();
        let loss = gradient.accumulate(&network, &samples, &all, 1.0 / n as f32);
        assert!((loss / n as f64 - reference_loss(&p, &samples)).abs() < 1e-6);
        let mut rows = gradient.rows.clone();
        rows.sort_unstable();
        assert_eq!(rows, [0, 1, 2, 3, 4, 5]);

        let analytic = gradient_parameters(&gradient);
        let h = 1e-6;
        let mut checked = 0;
        for k in 0..p.len() {
            let mut moved = p.clone();
            moved[k] = p[k] + h;
            let up = reference_loss(&moved, &samples);
            moved[k] = p[k] - h;
            let down = reference_loss(&moved, &samples);
            let numeric = (up - down) / (2.0 * h);
            if numeric.abs() < 1e-8 {
                // A weight into a unit that every sample clips.
                assert!(analytic[k].abs() < 1e-7, "{k}: {} not 0", analytic[k]);
            } else {
                let relative = (analytic[k] - numeric).abs() / numeric.abs();
                assert!(relative < 1e-3, "{k}: {} against {numeric}", analytic[k]);
                checked += 1;
            }
        }
        assert!(
            checked >= p.len() / 2,
            "only {checked} of {} checked",
            p.len()
        );
    }

    #[test]
    fn gradients_of_parts_add_up_and_clear_to_zero() {
        let network = small_network(2);
        let samples = small_samples();
        let mut whole = Gradient::new(INPUTS, HIDDEN, BUCKETS);
        let whole_loss = whole.accumulate(&network, &samples, &[0, 1, 2, 3, 4, 5], 0.25);
        let mut first = Gradient::new(INPUTS, HIDDEN, BUCKETS);
        let mut second = Gradient::new(INPUTS, HIDDEN, BUCKETS);
        let loss = first.accumulate(&network, &samples, &[0, 1, 3, 4, 5], 0.25)
            + second.accumulate(&network, &samples, &[2], 0.25);
        assert_eq!(second.rows, [4]);
        first.absorb(&second);
        assert!((loss - whole_loss).abs() < 1e-9);
        let (sum, expected) = (gradient_parameters(&first), gradient_parameters(&whole));
        for (k, (a, b)) in sum.iter().zip(&expected).enumerate() {
            assert!((a - b).abs() < 1e-7, "{k}: {a} against {b}");
        }
        // Cleared, a buffer is as good as new.
        first.clear();
        assert!(gradient_parameters(&first).iter().all(|&g| g == 0.0));
        assert!(first.rows.is_empty() && first.touched.iter().all(|&t| !t));
        let mut fresh = Gradient::new(INPUTS, HIDDEN, BUCKETS);
        first.accumulate(&network, &samples, &[1, 4], 0.5);
        fresh.accumulate(&network, &samples, &[1, 4], 0.5);
        assert_eq!(gradient_parameters(&first), gradient_parameters(&fresh));
        assert_eq!(first.rows, fresh.rows);
    }

    /// Two inputs, one hidden unit, one bucket, with these parameters.
    fn one_unit(input_weights: [f32; 2], hidden_bias: f32, output: [f32; 2]) -> FloatNetwork {
        let config = TrainConfig {
            hidden: 1,
            buckets: 1,
            ..TrainConfig::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let mut network = FloatNetwork::random("test", 2, &config, 1.0, &mut rng);
        network.input_weights = input_weights.to_vec();
        network.hidden_bias = vec![hidden_bias];
        network.output_weights = vec![output[0]];
        network.output_bias = vec![output[1]];
        network
    }

    /// A gradient of [`one_unit`]'s shape with these values.
    fn one_unit_gradient(input_weights: [f32; 2], hidden_bias: f32, output: [f32; 2]) -> Gradient {
        let mut gradient = Gradient::new(2, 1, 1);
        gradient.input_weights = input_weights.to_vec();
        gradient.hidden_bias = vec![hidden_bias];
        gradient.output_weights = vec![output[0]];
        gradient.output_bias = vec![output[1]];
        gradient
    }

    #[test]
    fn adam_steps_as_computed_by_hand() {
        let mut network = one_unit([0.3, -0.2], 0.1, [0.5, 0.0]);
        let mut adam = Adam::new(2, 1, 1);
        // Step 1: m = 0.1 g, v = 0.001 g², corrected back to g and g², so
        // each parameter with a gradient moves by the rate against its
        // sign, and one without stays.
        adam.step(
            &mut network,
            &one_unit_gradient([0.5, 0.0], -2.0, [0.0, 0.0]),
            0.01,
        );
        let close = |a: f32, b: f64| (f64::from(a) - b).abs() < 1e-6;
        assert!(close(network.input_weights[0], 0.29));
        assert!(close(network.input_weights[1], -0.2));
        assert!(close(network.hidden_bias[0], 0.11));
        assert_eq!(network.output_weights[0], 0.5);
        // Step 2 at rate 0.005, corrections 1 / (1 − 0.9²) and
        // 1 / (1 − 0.999²):
        // - first weight (g 0.5 then 0): m = 0.045, v = 0.000 249 75,
        //   m̂ = 0.236 842, v̂ = 0.124 937: moves on by 0.003 350 3;
        // - second weight (g 0 then 0.25): m = 0.025, v = 0.000 062 5,
        //   m̂ = 0.131 579, v̂ = 0.031 266: moves by 0.003 720 7;
        // - hidden bias (g −2 then −1): m = −0.28, v = 0.004 996,
        //   m̂ = −1.473 684, v̂ = 2.499 250: moves by 0.004 660 9.
        adam.step(
            &mut network,
            &one_unit_gradient([0.0, 0.25], -1.0, [0.0, 0.0]),
            0.005,
        );
        assert!(close(network.input_weights[0], 0.286_649_7));
        assert!(close(network.input_weights[1], -0.203_720_7));
        assert!(close(network.hidden_bias[0], 0.114_660_9));
        assert_eq!(network.output_weights[0], 0.5);
        assert_eq!(adam.steps, 2);
    }

    #[test]
    fn clipping_keeps_the_quantised_layers_in_range() {
        let mut network = one_unit([1.97, -1.97], 1.975, [1.97, 1.97]);
        let mut adam = Adam::new(2, 1, 1);
        let push_out = one_unit_gradient([-1.0, 1.0], -1.0, [-1.0, -1.0]);
        adam.step(&mut network, &push_out, 0.5);
        assert_eq!(network.input_weights, [WEIGHT_LIMIT, -WEIGHT_LIMIT]);
        assert_eq!(network.hidden_bias, [WEIGHT_LIMIT]);
        assert_eq!(network.output_weights, [WEIGHT_LIMIT]);
        // The output bias is an `i32` in the file: it needs no limit.
        assert!((network.output_bias[0] - 2.47).abs() < 1e-6);
        let parts = network.quantise().expect("in range").to_parts();
        let first_limit = (WEIGHT_LIMIT * QA as f32).round() as i16;
        assert_eq!(parts.input_weights, [first_limit, -first_limit]);
        assert_eq!(parts.hidden_bias, [first_limit]);
        let output_limit = (WEIGHT_LIMIT * QB as f32).round() as i16;
        assert_eq!(parts.output_weights, [output_limit]);
        assert!(output_limit.unsigned_abs() <= MAX_OUTPUT_WEIGHT);

        // Large random steps never take a weight past the limit.
        let mut network = small_network(3);
        let mut adam = Adam::new(INPUTS, HIDDEN, BUCKETS);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for _ in 0..20 {
            let mut gradient = Gradient::new(INPUTS, HIDDEN, BUCKETS);
            for layer in [
                &mut gradient.input_weights,
                &mut gradient.hidden_bias,
                &mut gradient.output_weights,
            ] {
                layer
                    .iter_mut()
                    .for_each(|g| *g = rng.random_range(-1.0..1.0));
            }
            adam.step(&mut network, &gradient, 1.0);
        }
        let clipped = [
            &network.input_weights,
            &network.hidden_bias,
            &network.output_weights,
        ];
        assert!(
            clipped
                .iter()
                .all(|l| l.iter().all(|w| w.abs() <= WEIGHT_LIMIT))
        );
        assert!(
            clipped
                .iter()
                .any(|l| l.iter().any(|w| w.abs() == WEIGHT_LIMIT))
        );
        assert!(network.quantise().is_ok());
    }
}
