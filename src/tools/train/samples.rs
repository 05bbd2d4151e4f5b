//! Training samples: records turned into the active inputs of their
//! positions (and of the positions' symmetric images), with a target win
//! probability each, stored flat; and the split of the records into
//! training and validation.

use super::config::TrainConfig;
use crate::game::Game;
use crate::network::MAX_BUCKETS;
use crate::tools::datagen::record::Record;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::sync::Arc;

/// Records parsed per parallel task in [`samples`].
const PARSE_CHUNK: usize = 1 << 14;

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
    pub(super) fn push_sample(&mut self, inputs: &[u16], bucket: usize, target: f32) {
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
    pub(super) fn stored_samples(&self) -> impl Iterator<Item = Sample<'_>> + '_ {
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
    pub(super) fn check(&self, inputs: usize, buckets: usize) -> Result<(), String> {
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
    let pool = config.thread_pool()?;
    // Where the game maps inputs to images, each record keeps its first
    // image only: an eighth of the memory on a square board.
    let empty = match G::image_input_maps().filter(|_| config.symmetries) {
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
            image.active_inputs(active);
        }
        let buckets = positions.iter().map(|p| p.network_bucket(config.buckets));
        let images = images.iter().map(Vec::as_slice).zip(buckets);
        out.push_record(images, target(record, config));
    }
    Ok(out)
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
    let images = position.symmetric_images();
    let mut first = Vec::new();
    position.active_inputs(&mut first);
    let agree = images.len() == maps.len()
        && images.iter().zip(maps).all(|(image, map)| {
            let mut made: Vec<u16> = first.iter().map(|&i| map[usize::from(i)]).collect();
            let mut real = Vec::new();
            image.active_inputs(&mut real);
            made.sort_unstable();
            real.sort_unstable();
            made == real
                && (1..=MAX_BUCKETS).all(|b| image.network_bucket(b) == position.network_bucket(b))
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
