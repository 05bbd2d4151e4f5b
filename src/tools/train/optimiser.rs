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
