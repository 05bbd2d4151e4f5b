//! `agon train`: fits the learned evaluation ([`crate::network`]) to
//! training records ([`Record`]) and quantises it into a network file.
//!
//! The float model is the network's shape in `f32`: `acc = b1 + Σ W1[i]`
//! over the active inputs, `out = b2[k] + Σ w2[k] · screlu(acc)` with `k`
//! the position's output bucket ([`Game::network_bucket`]), evaluation
//! `out × scale`. The loss is the mean squared error between
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

use crate::game::{Game, LearnedEvaluation};
use crate::network::{MAX_BUCKETS, MAX_HIDDEN, Network, NetworkParts, QA, QB};
use crate::tools::datagen::record::Record;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Largest absolute value of a first-layer weight, hidden bias or output
/// weight after each step (keeps the quantised sums inside `i16`/`i32`).
pub const WEIGHT_LIMIT: f32 = 1.98;
/// Adam's first-moment decay.
const BETA1: f32 = 0.9;
/// Adam's second-moment decay.
const BETA2: f32 = 0.999;
/// Adam's denominator guard.
const EPSILON: f32 = 1e-8;
/// Width of the partial sums in the output dot product: eight `f32` lanes
/// fill an AVX2 register, and independent lanes let the compiler vectorise
/// a sum it may not reorder.
const LANES: usize = 8;
/// Hidden columns per block in the row sums: 32 `f32` are four AVX2
/// registers, few enough to stay in registers across the rows.
const BLOCK: usize = 32;
/// Records parsed per parallel task in [`samples`].
const PARSE_CHUNK: usize = 1 << 14;
/// First-layer parameters per parallel task of the optimizer step.
const ADAM_CHUNK: usize = 1 << 14;
/// Samples per parallel task when computing a loss.
const LOSS_CHUNK: usize = 1 << 12;

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
}

/// `Ok` when `low ≤ value ≤ high` (and not NaN), else an error naming it.
fn in_range(name: &str, value: f32, low: f32, high: f32) -> Result<(), String> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(format!("{name} {value} (must be from {low} to {high})"))
    }
}

/// The logistic function, mapping a score to a win probability.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record: `lambda · sigmoid(score / scale) +
/// (1 − lambda) · (result + 1) / 2`, a win probability for the side to move.
pub fn target(record: &Record, config: &TrainConfig) -> f32 {
    let from_score = sigmoid(f32::from(record.score) / config.scale);
    let from_result = (f32::from(record.result) + 1.0) / 2.0;
    config.lambda * from_score + (1.0 - config.lambda) * from_result
}

/// One training sample, borrowed from [`Samples`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<'a> {
    /// The active input indices.
    pub inputs: &'a [u16],
    /// The output bucket of the position.
    pub bucket: usize,
    /// The target win probability for the side to move.
    pub target: f32,
}

/// Many samples in flat arrays: millions of small `Vec`s would cost an
/// allocation and 24 bytes of header each, more than their ~36 inputs.
/// Samples come in groups, one per record (the images of its position,
/// adjacent), so that the validation split can keep a record's images
/// together: an image held out while its twin is trained on would make the
/// validation loss look better than the network generalises.
///
/// With image maps ([`Game::image_input_maps`]) only each record's first
/// image is stored and sample `s` is image `s % n` of stored sample
/// `s / n` (`n` maps), its inputs mapped when read ([`Samples::get`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    /// Every sample's inputs, one after another.
    inputs: Vec<u16>,
    /// Where each sample's inputs start, plus the end of the last one.
    starts: Vec<usize>,
    /// Each sample's target.
    targets: Vec<f32>,
    /// Each sample's output bucket.
    buckets: Vec<u8>,
    /// Where each record's stored samples start, plus the end of the last
    /// one.
    records: Vec<usize>,
    /// The image maps when only first images are stored.
    maps: Option<Arc<Vec<Vec<u16>>>>,
}

impl Default for Samples {
    fn default() -> Samples {
        Samples::new()
    }
}

impl Samples {
    /// No samples.
    pub fn new() -> Samples {
        Samples {
            inputs: Vec::new(),
            starts: vec![0],
            targets: Vec::new(),
            buckets: Vec::new(),
            records: vec![0],
            maps: None,
        }
    }

    /// No samples; each record pushed will be its position's first image
    /// alone, and `maps` make the others (see [`Game::image_input_maps`]).
    fn with_image_maps(maps: Vec<Vec<u16>>) -> Samples {
        Samples {
            maps: Some(Arc::new(maps)),
            ..Samples::new()
        }
    }

    /// Samples per stored sample: the number of image maps, else 1.
    fn images(&self) -> usize {
        self.maps.as_ref().map_or(1, |maps| maps.len())
    }

    /// Room for `samples` samples of `inputs` inputs in total, or an error
    /// when the memory cannot be had (a large data file with eight images
    /// per record can ask for gigabytes).
    pub fn try_with_capacity(samples: usize, inputs: usize) -> Result<Samples, String> {
        Samples::new().try_reserve(samples, inputs)
    }

    /// These (empty) samples with room for `samples` stored samples of
    /// `inputs` stored inputs in total, or an error.
    fn try_reserve(self, samples: usize, inputs: usize) -> Result<Samples, String> {
        let mut all = self;
        let too_big = |_| {
            format!("not enough memory for {samples} training samples ({inputs} inputs in all)")
        };
        all.inputs.try_reserve_exact(inputs).map_err(too_big)?;
        all.starts.try_reserve_exact(samples).map_err(too_big)?;
        all.targets.try_reserve_exact(samples).map_err(too_big)?;
        all.buckets.try_reserve_exact(samples).map_err(too_big)?;
        Ok(all)
    }

    /// Adds a record of one sample, read by output bucket 0.
    pub fn push(&mut self, inputs: &[u16], target: f32) {
        self.push_record([(inputs, 0)], target);
    }

    /// Adds a record with one sample per entry of `images` (the inputs of
    /// each image of its position, and its output bucket), all with the
    /// same target.
    pub fn push_record<'a>(
        &mut self,
        images: impl IntoIterator<Item = (&'a [u16], usize)>,
        target: f32,
    ) {
        for (inputs, bucket) in images {
            self.push_sample(inputs, bucket, target);
        }
        self.records.push(self.targets.len());
    }

    /// Adds one sample to the record being built.
    fn push_sample(&mut self, inputs: &[u16], bucket: usize, target: f32) {
        self.inputs.extend_from_slice(inputs);
        self.starts.push(self.inputs.len());
        self.targets.push(target);
        self.buckets.push(bucket.min(MAX_BUCKETS - 1) as u8);
    }

    /// Removes every sample, keeping the memory.
    pub fn clear(&mut self) {
        self.inputs.clear();
        self.starts.clear();
        self.starts.push(0);
        self.targets.clear();
        self.buckets.clear();
        self.records.clear();
        self.records.push(0);
    }

    /// Adds every sample of `other` (stored the same way), in order.
    pub fn append(&mut self, other: &Samples) {
        debug_assert_eq!(self.maps, other.maps);
        let base = self.inputs.len();
        self.inputs.extend_from_slice(&other.inputs);
        self.starts
            .extend(other.starts[1..].iter().map(|&start| base + start));
        self.targets.extend_from_slice(&other.targets);
        self.buckets.extend_from_slice(&other.buckets);
        let base = *self.records.last().unwrap_or(&0);
        self.records
            .extend(other.records[1..].iter().map(|&start| base + start));
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.targets.len() * self.images()
    }

    /// Number of records (each one sample, or one per image of its
    /// position).
    pub fn records(&self) -> usize {
        self.records.len() - 1
    }

    /// The sample numbers of record `record` (panics when out of range).
    pub fn samples_of_record(&self, record: usize) -> std::ops::Range<usize> {
        let n = self.images();
        self.records[record] * n..self.records[record + 1] * n
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Number of inputs of all samples together.
    pub fn total_inputs(&self) -> usize {
        self.inputs.len() * self.images()
    }

    /// Sample `index` (panics when out of range, like slice indexing); an
    /// image made by a map has its inputs written to `scratch`.
    pub fn get<'a>(&'a self, index: usize, scratch: &'a mut Vec<u16>) -> Sample<'a> {
        let Some(maps) = &self.maps else {
            return self.stored(index);
        };
        let n = maps.len();
        let stored = self.stored(index / n);
        let map = &maps[index % n];
        scratch.clear();
        scratch.extend(stored.inputs.iter().map(|&i| map[usize::from(i)]));
        Sample {
            inputs: scratch,
            ..stored
        }
    }

    /// Stored sample `index`: with image maps, record `index`'s first image.
    fn stored(&self, index: usize) -> Sample<'_> {
        Sample {
            inputs: &self.inputs[self.starts[index]..self.starts[index + 1]],
            bucket: usize::from(self.buckets[index]),
            target: self.targets[index],
        }
    }

    /// The stored samples in order (with image maps, the first images).
    fn stored_samples(&self) -> impl Iterator<Item = Sample<'_>> + '_ {
        (0..self.targets.len()).map(|index| self.stored(index))
    }

    /// Every sample in order, each with its own inputs (a test's view:
    /// training reads samples by number with [`Samples::get`]).
    pub fn to_vec(&self) -> Vec<(Vec<u16>, usize, f32)> {
        let mut scratch = Vec::new();
        (0..self.len())
            .map(|index| {
                let sample = self.get(index, &mut scratch);
                (sample.inputs.to_vec(), sample.bucket, sample.target)
            })
            .collect()
    }

    /// Whether every input is below `inputs`, every bucket below
    /// `buckets` and every target a probability, or which sample is not;
    /// and whether every bucket has samples (one without would keep its
    /// random initial weights and misjudge every position of its stage).
    fn check(&self, inputs: usize, buckets: usize) -> Result<(), String> {
        let mut seen = 0u32;
        if let Some(maps) = &self.maps {
            if maps.iter().any(|map| map.len() != inputs) {
                return Err(format!("an image map does not cover the {inputs} inputs"));
            }
            if let Some(bad) = maps.iter().flatten().find(|&&i| usize::from(i) >= inputs) {
                return Err(format!("image map: input {bad} is not below {inputs}"));
            }
        }
        for (index, sample) in self.stored_samples().enumerate() {
            if let Some(&bad) = sample.inputs.iter().find(|&&i| usize::from(i) >= inputs) {
                return Err(format!("sample {index}: input {bad} is not below {inputs}"));
            }
            if sample.bucket >= buckets {
                return Err(format!(
                    "sample {index}: output bucket {} is not below {buckets}",
                    sample.bucket
                ));
            }
            seen |= 1 << sample.bucket;
            if !(0.0..=1.0).contains(&sample.target) {
                return Err(format!(
                    "sample {index}: target {} is not from 0 to 1",
                    sample.target
                ));
            }
        }
        if let Some(empty) = (0..buckets).find(|b| seen >> b & 1 == 0) {
            return Err(format!(
                "no sample falls in output bucket {empty} of {buckets} \
                 (the game has fewer stages, or the data misses one): use fewer --buckets"
            ));
        }
        Ok(())
    }
}

/// Turns records into samples for game `G`: each position is read with the
/// default options and its active inputs collected, and with
/// `config.symmetries` those of every other image of it
/// ([`Game::symmetric_images`]) as well; the target is [`target`]. A record
/// that does not parse is an error naming its index.
pub fn samples<G: Game>(records: &[Record], config: &TrainConfig) -> Result<Samples, String> {
    config.check()?;
    let pool = thread_pool(config.threads)?;
    // Where the game maps inputs to images, each record keeps its first
    // image only: an eighth of the memory on a square board.
    let learned = learned::<G>()?;
    let empty = match learned.image_input_maps().filter(|_| config.symmetries) {
        Some(maps) => {
            check_image_maps::<G>(records, &maps)?;
            Samples::with_image_maps(maps)
        }
        None => Samples::new(),
    };
    let parts: Vec<Result<Samples, String>> = pool.install(|| {
        records
            .par_chunks(PARSE_CHUNK)
            .enumerate()
            .map(|(chunk, part)| samples_of::<G>(part, chunk * PARSE_CHUNK, config, empty.clone()))
            .collect()
    });
    // In order, so that the first bad record is the one reported.
    let mut parts_ok = Vec::with_capacity(parts.len());
    for part in parts {
        parts_ok.push(part?);
    }
    let total_samples = parts_ok.iter().map(|p| p.targets.len()).sum();
    let total_inputs = parts_ok.iter().map(|p| p.inputs.len()).sum();
    let mut all = empty.try_reserve(total_samples, total_inputs)?;
    // Each part is freed once copied, so the samples are in memory about
    // once, not twice (the whole set can be most of the machine's memory).
    for part in parts_ok.drain(..) {
        all.append(&part);
    }
    Ok(all)
}

/// The samples of `records`, the first of which is record number `first`.
/// `out` is empty, and with image maps only first images are made.
fn samples_of<G: Game>(
    records: &[Record],
    first: usize,
    config: &TrainConfig,
    mut out: Samples,
) -> Result<Samples, String> {
    let learned = learned::<G>()?;
    let options = G::Options::default();
    let mut images: Vec<Vec<u16>> = Vec::new();
    for (offset, record) in records.iter().enumerate() {
        let position = G::from_fen(&record.fen, &options)
            .map_err(|e| format!("record {}: '{}': {e}", first + offset, record.fen))?;
        let positions = if config.symmetries && out.maps.is_none() {
            position.symmetric_images()
        } else {
            vec![position]
        };
        images.resize_with(positions.len(), Vec::new);
        for (image, active) in positions.iter().zip(&mut images) {
            active.clear();
            learned.active_inputs(image, active);
        }
        let buckets = positions.iter().map(|p| learned.bucket(p, config.buckets));
        let images = images.iter().map(Vec::as_slice).zip(buckets);
        out.push_record(images, target(record, config));
    }
    Ok(out)
}

/// The learned-evaluation hooks of `G`; an error for a game without them.
fn learned<G: Game>() -> Result<&'static dyn LearnedEvaluation<G>, String> {
    G::learned().ok_or_else(|| format!("{} has no network inputs", G::NAME))
}

/// Whether `maps` make the images of the first record that parses as
/// [`Game::symmetric_images`] does (same inputs, same bucket): a game whose
/// maps went wrong would train on wrong samples without a sign.
fn check_image_maps<G: Game>(records: &[Record], maps: &[Vec<u16>]) -> Result<(), String> {
    let options = G::Options::default();
    let Some(position) = records
        .iter()
        .find_map(|r| G::from_fen(&r.fen, &options).ok())
    else {
        return Ok(());
    };
    let learned = learned::<G>()?;
    let images = position.symmetric_images();
    let mut first = Vec::new();
    learned.active_inputs(&position, &mut first);
    let agree = images.len() == maps.len()
        && images.iter().zip(maps).all(|(image, map)| {
            let mut made: Vec<u16> = first.iter().map(|&i| map[usize::from(i)]).collect();
            let mut real = Vec::new();
            learned.active_inputs(image, &mut real);
            made.sort_unstable();
            real.sort_unstable();
            made == real
                && (1..=MAX_BUCKETS)
                    .all(|b| learned.bucket(image, b) == learned.bucket(&position, b))
        });
    if agree {
        Ok(())
    } else {
        Err(format!(
            "{}: the image maps disagree with the symmetric images",
            G::NAME
        ))
    }
}

/// A thread pool of `threads` workers (0: one per core).
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start the training threads: {e}"))
}

/// The network in floating point, as it is trained.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The game whose inputs it reads.
    game: String,
    /// Number of inputs.
    inputs: usize,
    /// Number of hidden units.
    hidden: usize,
    /// Number of output buckets.
    buckets: usize,
    /// Evaluation units per unit of output.
    scale: f32,
    /// `inputs × hidden`, one row per input.
    input_weights: Vec<f32>,
    /// One per hidden unit.
    hidden_bias: Vec<f32>,
    /// `buckets × hidden`, one row per bucket.
    output_weights: Vec<f32>,
    /// One per bucket.
    output_bias: Vec<f32>,
}

impl FloatNetwork {
    /// A fresh network: first-layer weights uniform in ±1/√`mean_active`
    /// (so a hidden sum starts with a spread of about 0.6, inside the
    /// activation's bend), output weights uniform in ±1/√`hidden`, biases 0.
    fn random(
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
    fn accumulate(&self, active: &[u16], acc: &mut [f32]) {
        acc.copy_from_slice(&self.hidden_bias);
        let rows = active
            .iter()
            .map(|&input| usize::from(input))
            .filter(|&input| input < self.inputs);
        gather_rows(acc, &self.input_weights, rows);
    }

    /// The output weights of `bucket`.
    #[inline(always)]
    fn bucket_weights(&self, bucket: usize) -> &[f32] {
        &self.output_weights[bucket * self.hidden..][..self.hidden]
    }

    /// The float output for hidden sums `acc`, by output bucket `bucket`.
    #[inline(always)]
    fn output(&self, acc: &[f32], bucket: usize) -> f32 {
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
    fn loss_of(&self, samples: &Samples, indices: &[u32]) -> f64 {
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

/// `acc[j] += row[j]`.
#[inline(always)]
fn add_assign(acc: &mut [f32], row: &[f32]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a += w;
    }
}

/// `acc += Σ matrix[row]` over `rows` (row-major, rows as wide as `acc`).
///
/// Column block by column block: a block of sums stays in registers while
/// every row is added to it, instead of going through memory once per row.
#[inline(always)]
fn gather_rows(acc: &mut [f32], matrix: &[f32], rows: impl Iterator<Item = usize> + Clone) {
    let width = acc.len();
    let full = width - width % BLOCK;
    for first in (0..full).step_by(BLOCK) {
        let target: &mut [f32; BLOCK] = (&mut acc[first..first + BLOCK]).try_into().expect("block");
        let mut sums = *target;
        for row in rows.clone() {
            let start = row * width + first;
            let source: &[f32; BLOCK] = matrix[start..start + BLOCK].try_into().expect("block");
            for (sum, &value) in sums.iter_mut().zip(source) {
                *sum += value;
            }
        }
        *target = sums;
    }
    if full < width {
        for row in rows {
            add_assign(
                &mut acc[full..],
                &matrix[row * width + full..(row + 1) * width],
            );
        }
    }
}

/// `matrix[row] += delta` for every row in `rows` (row-major, rows as wide
/// as `delta`), a block of `delta` held in registers as in [`gather_rows`].
#[inline(always)]
fn scatter_rows(matrix: &mut [f32], delta: &[f32], rows: impl Iterator<Item = usize> + Clone) {
    let width = delta.len();
    let full = width - width % BLOCK;
    for first in (0..full).step_by(BLOCK) {
        let block: [f32; BLOCK] = delta[first..first + BLOCK].try_into().expect("block");
        for row in rows.clone() {
            let start = row * width + first;
            let target: &mut [f32; BLOCK] = (&mut matrix[start..start + BLOCK])
                .try_into()
                .expect("block");
            for (value, &d) in target.iter_mut().zip(&block) {
                *value += d;
            }
        }
    }
    if full < width {
        for row in rows {
            add_assign(
                &mut matrix[row * width + full..(row + 1) * width],
                &delta[full..],
            );
        }
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

/// One thread's gradient buffers, with the first-layer rows it touched.
struct Gradient {
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
    fn new(inputs: usize, hidden: usize, buckets: usize) -> Gradient {
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
    fn accumulate(
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
    fn absorb(&mut self, other: &Gradient) {
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
    fn clear(&mut self) {
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
struct Adam {
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
    fn new(inputs: usize, hidden: usize, buckets: usize) -> Adam {
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
    fn step(&mut self, network: &mut FloatNetwork, gradient: &Gradient, rate: f32) {
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

/// What one epoch measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch, from 1.
    pub epoch: usize,
    /// Number of epochs.
    pub epochs: usize,
    /// Mean training loss over the epoch (before each step).
    pub train_loss: f64,
    /// Loss on the held-out samples after the epoch (`None` without any).
    pub validation_loss: Option<f64>,
    /// The epoch's learning rate.
    pub learning_rate: f32,
    /// Training samples per second (optimizer steps included).
    pub samples_per_second: f64,
}

impl std::fmt::Display for EpochReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let validation = match self.validation_loss {
            Some(loss) => format!("{loss:.6}"),
            None => "-".to_string(),
        };
        write!(
            f,
            "epoch {}/{}: train loss {:.6}, validation loss {validation}, lr {:.6}, {:.0} samples/s",
            self.epoch, self.epochs, self.train_loss, self.learning_rate, self.samples_per_second
        )
    }
}

/// Trains a network for game `G` on `samples` and returns it quantised.
/// `report` receives one line per epoch ([`EpochReport`]'s text).
pub fn train<G: Game>(
    samples: &Samples,
    config: &TrainConfig,
    report: &mut dyn FnMut(&str),
) -> Result<Network, String> {
    let trained = train_held_out::<G>(samples, config, report)?;
    let network = trained.network.quantise()?;
    if let Some(float_loss) = trained.validation_loss {
        let lines = trained
            .pool
            .install(|| validation_report(&network, float_loss, samples, &trained.validation));
        for line in lines {
            report(&line);
        }
    }
    Ok(network)
}

/// What the validation samples say of the written network: its loss after
/// quantisation beside the float one's (`float_loss`, the last epoch's:
/// what rounding the weights cost), and with several output buckets each
/// bucket's loss (which stage of the game the network judges worst).
fn validation_report(
    network: &Network,
    float_loss: f64,
    samples: &Samples,
    validation: &[u32],
) -> Vec<String> {
    let buckets = network.buckets();
    let scale = network.scale() as f32;
    // Per bucket: samples and squared error; fixed chunks added in order,
    // so the figures do not depend on threads.
    let chunk_sums = |chunk: &[u32]| -> Vec<(usize, f64)> {
        let mut sums = vec![(0usize, 0.0f64); buckets];
        let mut scratch = Vec::new();
        for &index in chunk {
            let sample = samples.get(index as usize, &mut scratch);
            let bucket = sample.bucket.min(buckets - 1);
            let output = network.evaluate(sample.inputs, bucket) as f32 / scale;
            let error = sigmoid(output) - sample.target;
            sums[bucket].0 += 1;
            sums[bucket].1 += f64::from(error * error);
        }
        sums
    };
    let parts: Vec<_> = validation.par_chunks(LOSS_CHUNK).map(chunk_sums).collect();
    let mut sums = vec![(0usize, 0.0f64); buckets];
    for part in parts {
        for (sum, add) in sums.iter_mut().zip(part) {
            *sum = (sum.0 + add.0, sum.1 + add.1);
        }
    }
    let (count, total) = sums.iter().fold((0, 0.0), |t, s| (t.0 + s.0, t.1 + s.1));
    let mut lines = vec![format!(
        "quantised network: validation loss {:.6} (float {float_loss:.6})",
        total / count.max(1) as f64
    )];
    if buckets > 1 {
        let parts: Vec<String> = sums
            .iter()
            .enumerate()
            .map(|(b, &(n, sum))| match n {
                0 => format!("{b}: - (0 samples)"),
                n => format!("{b}: {:.6} ({n} samples)", sum / n as f64),
            })
            .collect();
        lines.push(format!(
            "validation loss by output bucket: {}",
            parts.join(", ")
        ));
    }
    lines
}

/// `agon train`: reads every record file in `data` (record files merge by
/// concatenation, so their order only changes the shuffle), trains on
/// them and writes the quantised network to `out`. `report` receives the
/// progress lines.
pub fn run<G: Game>(
    data: &[std::path::PathBuf],
    out: &std::path::Path,
    config: &TrainConfig,
    report: &mut dyn FnMut(&str),
) -> Result<(), String> {
    // Before the records are read: a wrong starting network is cheap to
    // tell and would otherwise cost the minutes that reading takes.
    check_start::<G>(config)?;
    let mut records = Vec::new();
    for path in data {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let mut part = crate::tools::datagen::record::parse_records(&bytes)
            .map_err(|e| format!("'{}': {e}", path.display()))?;
        records.append(&mut part);
    }
    report(&format!(
        "{} records from {} file(s)",
        records.len(),
        data.len()
    ));
    let samples = samples::<G>(&records, config)?;
    drop(records);
    let network = train::<G>(&samples, config, report)?;
    std::fs::write(out, network.to_bytes())
        .map_err(|e| format!("cannot write '{}': {e}", out.display()))?;
    report(&format!(
        "wrote {} ({} inputs, {} hidden, {} output bucket(s))",
        out.display(),
        network.inputs(),
        network.hidden(),
        network.buckets()
    ));
    Ok(())
}

/// [`train`] without the quantisation: the float network itself.
pub fn train_float<G: Game>(
    samples: &Samples,
    config: &TrainConfig,
    report: &mut dyn FnMut(&str),
) -> Result<FloatNetwork, String> {
    train_held_out::<G>(samples, config, report).map(|trained| trained.network)
}

/// What [`train_held_out`] leaves for the report after training.
struct Trained {
    network: FloatNetwork,
    /// The validation sample numbers.
    validation: Vec<u32>,
    /// The last epoch's validation loss (none without validation samples).
    validation_loss: Option<f64>,
    /// The pool of `--threads` the training ran in.
    pool: rayon::ThreadPool,
}

/// [`train_float`], also returning what the validation report needs.
fn train_held_out<G: Game>(
    samples: &Samples,
    config: &TrainConfig,
    report: &mut dyn FnMut(&str),
) -> Result<Trained, String> {
    config.check()?;
    check_start::<G>(config)?;
    let inputs = learned::<G>()?.inputs();
    if samples.is_empty() {
        return Err("no training samples".into());
    }
    samples.check(inputs, config.buckets)?;
    let pool = thread_pool(config.threads)?;
    let threads = pool.current_num_threads();
    let mut trainer = Trainer::new(G::NAME, inputs, samples, config, threads)?;
    let mut validation_loss = None;
    for epoch in 0..config.epochs {
        // The epoch runs in the pool; the report (not `Send`) outside it.
        let line = pool.install(|| trainer.epoch(epoch));
        report(&line.to_string());
        validation_loss = line.validation_loss;
    }
    Ok(Trained {
        network: trainer.network,
        validation: trainer.validation,
        validation_loss,
        pool,
    })
}

/// Whether training can go on from the configured starting network (if
/// any): it must fit game `G` ([`Network::check_fits`]) and have the
/// configured shape and scale (a different scale would change what every
/// output means).
fn check_start<G: Game>(config: &TrainConfig) -> Result<(), String> {
    let Some(start) = &config.start else {
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
    if start.hidden() != config.hidden {
        return mismatch(
            "hidden units",
            start.hidden().to_string(),
            config.hidden.to_string(),
        );
    }
    if start.buckets() != config.buckets {
        return mismatch(
            "output buckets",
            start.buckets().to_string(),
            config.buckets.to_string(),
        );
    }
    if start.scale() as f32 != config.scale {
        return mismatch("scale", start.scale().to_string(), config.scale.to_string());
    }
    Ok(())
}

/// Splits the sample numbers into training and validation: a random share
/// `validation_share` of the records is held out, each with all its
/// samples (images of one position never straddle the split).
pub fn split_by_record(
    samples: &Samples,
    validation_share: f32,
    rng: &mut Xoshiro256PlusPlus,
) -> (Vec<u32>, Vec<u32>) {
    let mut records: Vec<usize> = (0..samples.records()).collect();
    records.shuffle(rng);
    let held_out = (records.len() as f64 * f64::from(validation_share)).round() as usize;
    let held_out = records.split_off(records.len() - held_out.min(records.len()));
    let numbers = |records: &[usize]| -> Vec<u32> {
        records
            .iter()
            .flat_map(|&record| samples.samples_of_record(record))
            .map(|sample| sample as u32)
            .collect()
    };
    (numbers(&records), numbers(&held_out))
}

/// A training run's state.
struct Trainer<'a> {
    /// The samples.
    samples: &'a Samples,
    /// The run's settings.
    config: &'a TrainConfig,
    /// The network being trained.
    network: FloatNetwork,
    /// The optimizer's moments.
    adam: Adam,
    /// One gradient per thread.
    gradients: Vec<Gradient>,
    /// The training samples' numbers, reshuffled every epoch.
    train: Vec<u32>,
    /// The held-out samples' numbers.
    validation: Vec<u32>,
    /// The source of every random choice.
    rng: Xoshiro256PlusPlus,
}

impl<'a> Trainer<'a> {
    /// A run from random weights (or from the starting network, checked
    /// by [`check_start`]), with the records split into training and
    /// validation by a seeded shuffle (each with all its samples); one
    /// gradient buffer per thread.
    fn new(
        game: &str,
        inputs: usize,
        samples: &'a Samples,
        config: &'a TrainConfig,
        threads: usize,
    ) -> Result<Trainer<'a>, String> {
        // Sample numbers are kept as `u32` (half the memory of `usize`).
        u32::try_from(samples.len()).map_err(|_| "too many samples")?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(config.seed);
        let mean_active = samples.total_inputs() as f32 / samples.len() as f32;
        // Drawn either way, so that the split and the shuffles are the same
        // with and without a starting network.
        let random = FloatNetwork::random(game, inputs, config, mean_active, &mut rng);
        let network = config
            .start
            .as_deref()
            .map_or(random, FloatNetwork::from_quantised);
        let (train, validation) = split_by_record(samples, config.validation_share, &mut rng);
        if train.is_empty() {
            return Err("no samples left for training after the validation split".into());
        }
        Ok(Trainer {
            samples,
            config,
            network,
            adam: Adam::new(inputs, config.hidden, config.buckets),
            gradients: (0..threads)
                .map(|_| Gradient::new(inputs, config.hidden, config.buckets))
                .collect(),
            train,
            validation,
            rng,
        })
    }

    /// One pass over the shuffled training samples.
    fn epoch(&mut self, epoch: usize) -> EpochReport {
        let rate = self.config.learning_rate_at(epoch);
        let mut order = std::mem::take(&mut self.train);
        order.shuffle(&mut self.rng);
        let start = Instant::now();
        let mut loss = 0.0;
        for batch in order.chunks(self.config.batch) {
            loss += self.step(batch, rate);
        }
        let seconds = start.elapsed().as_secs_f64().max(1e-9);
        let report = EpochReport {
            epoch: epoch + 1,
            epochs: self.config.epochs,
            train_loss: loss / order.len() as f64,
            validation_loss: (!self.validation.is_empty())
                .then(|| self.network.loss_of(self.samples, &self.validation)),
            learning_rate: rate,
            samples_per_second: order.len() as f64 / seconds,
        };
        self.train = order;
        report
    }

    /// One optimizer step on `batch`; returns the batch's summed loss.
    fn step(&mut self, batch: &[u32], rate: f32) -> f64 {
        let part = batch.len().div_ceil(self.gradients.len());
        let weight = 1.0 / batch.len() as f32;
        let (network, samples) = (&self.network, self.samples);
        let losses: Vec<f64> = self
            .gradients
            .par_iter_mut()
            .zip(batch.par_chunks(part))
            .map(|(gradient, part)| gradient.accumulate(network, samples, part, weight))
            .collect();
        let (total, others) = self.gradients.split_first_mut().expect("one thread");
        for other in others {
            total.absorb(other);
            other.clear();
        }
        self.adam.step(&mut self.network, total, rate);
        total.clear();
        losses.iter().sum()
    }
}
