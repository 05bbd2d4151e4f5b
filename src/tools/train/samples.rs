//! Training samples: records turned into the active inputs of their
//! positions (and of the positions' symmetric images), with a target win
//! probability each, stored flat; and the split of the records into
//! training and validation.

use super::config::TrainConfig;
use crate::game::{Game, LearnedEvaluation};
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
/// With image maps ([`LearnedEvaluation::image_input_maps`]) only each record's first
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
    /// alone, and `maps` make the others (see [`LearnedEvaluation::image_input_maps`]).
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

/// The learned-evaluation hooks of `G`; an error for a game without them.
pub(super) fn learned<G: Game>() -> Result<&'static dyn LearnedEvaluation<G>, String> {
    G::learned().ok_or_else(|| format!("{} has no network inputs", G::NAME))
}

#[cfg(test)]
mod tests {
    use super::super::testing::random_records;
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::games::dots::Dots;
    use rand::SeedableRng;

    fn ataxx() -> &'static dyn LearnedEvaluation<Ataxx> {
        Ataxx::learned().expect("Ataxx has a learned evaluation")
    }

    /// The active inputs of `position`, sorted (a sample made by an image
    /// map lists the same inputs in another order).
    fn sorted_inputs<G: Game>(position: &G) -> Vec<u16> {
        let mut active = Vec::new();
        G::learned()
            .expect("the game has a learned evaluation")
            .active_inputs(position, &mut active);
        active.sort_unstable();
        active
    }

    #[test]
    fn the_sigmoid_maps_scores_to_win_probabilities() {
        assert_eq!(sigmoid(0.0), 0.5);
        for x in [0.25f32, 1.0, 3.0] {
            assert!((sigmoid(x) + sigmoid(-x) - 1.0).abs() < 1e-6);
            assert!(sigmoid(x) > 0.5 && sigmoid(x) < 1.0);
        }
        assert!((sigmoid(1.0) - 0.731_058_6).abs() < 1e-6);
    }

    #[test]
    fn the_target_blends_the_result_and_the_score() {
        let record = |score, result| Record {
            fen: String::new(),
            score,
            result,
        };
        let with_lambda = |lambda| TrainConfig {
            lambda,
            scale: 400.0,
            ..TrainConfig::default()
        };
        // Lambda 0: the result alone, as a probability.
        assert_eq!(target(&record(400, -1), &with_lambda(0.0)), 0.0);
        assert_eq!(target(&record(400, 0), &with_lambda(0.0)), 0.5);
        assert_eq!(target(&record(-400, 1), &with_lambda(0.0)), 1.0);
        // Lambda 1: the score alone, through the sigmoid.
        assert_eq!(target(&record(400, -1), &with_lambda(1.0)), sigmoid(1.0));
        assert_eq!(target(&record(-800, 1), &with_lambda(1.0)), sigmoid(-2.0));
        // In between, the weighted mean.
        let blend = target(&record(400, -1), &with_lambda(0.25));
        assert!((blend - 0.25 * sigmoid(1.0)).abs() < 1e-7, "{blend}");
    }

    #[test]
    fn an_ataxx_record_gives_its_eight_images() {
        let records = random_records::<Ataxx>(40, 1);
        let config = TrainConfig {
            buckets: 4,
            threads: 2,
            ..TrainConfig::default()
        };
        let all = samples::<Ataxx>(&records, &config).expect("samples");
        assert_eq!((all.records(), all.len()), (40, 320));
        let mut scratch = Vec::new();
        let mut inputs = 0;
        for (index, record) in records.iter().enumerate() {
            let range = all.samples_of_record(index);
            assert_eq!(range, index * 8..index * 8 + 8);
            let position = Ataxx::from_fen(&record.fen, &Default::default()).unwrap();
            let images = position.symmetric_images();
            assert_eq!(images.len(), 8);
            for (number, image) in range.zip(&images) {
                let sample = all.get(number, &mut scratch);
                let mut made = sample.inputs.to_vec();
                made.sort_unstable();
                assert_eq!(made, sorted_inputs(image), "{}: image {number}", record.fen);
                assert_eq!(sample.bucket, ataxx().bucket(image, 4));
                assert_eq!(sample.target, target(record, &config));
                inputs += made.len();
            }
        }
        assert_eq!(all.total_inputs(), inputs);
        // Without symmetries: the recorded position alone, as it reads.
        let plain_config = TrainConfig {
            symmetries: false,
            ..config
        };
        let plain = samples::<Ataxx>(&records, &plain_config).expect("samples");
        assert_eq!((plain.records(), plain.len()), (40, 40));
        for (index, record) in records.iter().enumerate() {
            let position = Ataxx::from_fen(&record.fen, &Default::default()).unwrap();
            let mut active = Vec::new();
            ataxx().active_inputs(&position, &mut active);
            assert_eq!(plain.get(index, &mut scratch).inputs, active.as_slice());
        }
    }

    #[test]
    fn a_game_without_image_maps_stores_every_image() {
        assert!(
            Dots::learned()
                .expect("dots has inputs")
                .image_input_maps()
                .is_none()
        );
        let records = random_records::<Dots>(30, 2);
        let samples = samples::<Dots>(&records, &TrainConfig::default()).expect("samples");
        let mut scratch = Vec::new();
        let mut total = 0;
        for (index, record) in records.iter().enumerate() {
            let position = Dots::from_fen(&record.fen, &Default::default()).unwrap();
            let images = position.symmetric_images();
            assert!(images.len() > 1, "a square board has symmetries");
            let range = samples.samples_of_record(index);
            assert_eq!(range.len(), images.len());
            for (number, image) in range.zip(&images) {
                let mut active = Vec::new();
                Dots::learned()
                    .expect("dots has inputs")
                    .active_inputs(image, &mut active);
                assert_eq!(samples.get(number, &mut scratch).inputs, active.as_slice());
            }
            total += images.len();
        }
        assert_eq!(samples.len(), total);
    }

    #[test]
    fn image_maps_that_disagree_with_the_images_are_refused() {
        let records = random_records::<Ataxx>(5, 3);
        let mut maps = ataxx().image_input_maps().expect("Ataxx maps its inputs");
        assert_eq!(check_image_maps::<Ataxx>(&records, &maps), Ok(()));
        // Send an active input of the first record's position where an
        // inactive one should go in the second image: as the maps are
        // permutations, that image then has an input the real one lacks.
        let mut active = Vec::new();
        let position = Ataxx::from_fen(&records[0].fen, &Default::default()).unwrap();
        ataxx().active_inputs(&position, &mut active);
        let on = usize::from(active[0]);
        let off = (0..maps[1].len())
            .find(|&i| !active.contains(&(i as u16)))
            .expect("an inactive input");
        maps[1].swap(on, off);
        assert_eq!(
            check_image_maps::<Ataxx>(&records, &maps),
            Err("ataxx: the image maps disagree with the symmetric images".into())
        );
        let mut short = ataxx().image_input_maps().unwrap();
        short.pop();
        assert!(check_image_maps::<Ataxx>(&records, &short).is_err());
    }

    #[test]
    fn a_record_that_does_not_parse_is_named() {
        let mut records = random_records::<Ataxx>(3, 4);
        records[2].fen = "not a position".into();
        let error = samples::<Ataxx>(&records, &TrainConfig::default()).unwrap_err();
        assert!(error.starts_with("record 2: 'not a position': "), "{error}");
    }

    #[test]
    fn the_split_keeps_every_image_of_a_record_on_one_side() {
        let records = random_records::<Ataxx>(50, 5);
        let samples = samples::<Ataxx>(&records, &TrainConfig::default()).expect("samples");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let (train, validation) = split_by_record(&samples, 0.2, &mut rng);
        // A fifth of the 50 records, eight images each.
        assert_eq!((train.len(), validation.len()), (320, 80));
        let side = |sample: u32| validation.contains(&sample);
        for record in 0..samples.records() {
            let mut range = samples.samples_of_record(record).map(|s| s as u32);
            let first = side(range.next().unwrap());
            assert!(range.all(|s| side(s) == first), "record {record} straddles");
        }
        let mut all: Vec<u32> = train.iter().chain(&validation).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..400).collect::<Vec<u32>>());
        // The same seed gives the same split; no share holds nothing out.
        let again = split_by_record(&samples, 0.2, &mut Xoshiro256PlusPlus::seed_from_u64(6));
        assert_eq!(again, (train, validation));
        let (_, none) = split_by_record(&samples, 0.0, &mut rng);
        assert!(none.is_empty());
    }

    #[test]
    fn samples_outside_the_network_are_refused() {
        let mut samples = Samples::new();
        samples.push(&[0, 5], 0.25);
        assert_eq!(samples.check(6, 1), Ok(()));
        assert_eq!(
            samples.check(5, 1),
            Err("sample 0: input 5 is not below 5".into())
        );
        assert_eq!(
            samples.check(6, 2),
            Err(
                "no sample falls in output bucket 1 of 2 (the game has fewer stages, \
                 or the data misses one): use fewer --buckets"
                    .into()
            )
        );
        samples.push_record([(&[1u16][..], 2)], 0.5);
        assert_eq!(
            samples.check(6, 2),
            Err("sample 1: output bucket 2 is not below 2".into())
        );
        samples.push(&[2], 1.5);
        assert_eq!(
            samples.check(6, 3),
            Err("sample 2: target 1.5 is not from 0 to 1".into())
        );
    }

    #[test]
    fn appended_samples_keep_their_records() {
        let mut first = Samples::new();
        first.push_record([(&[1u16, 2][..], 0), (&[3u16][..], 1)], 0.25);
        let mut second = Samples::new();
        second.push(&[4, 5, 6], 0.75);
        second.push(&[], 0.5);
        first.append(&second);
        assert_eq!(
            first.to_vec(),
            vec![
                (vec![1, 2], 0, 0.25),
                (vec![3], 1, 0.25),
                (vec![4, 5, 6], 0, 0.75),
                (vec![], 0, 0.5),
            ]
        );
        assert_eq!(
            (first.records(), first.len(), first.total_inputs()),
            (3, 4, 6)
        );
        assert_eq!(first.samples_of_record(0), 0..2);
        assert_eq!(first.samples_of_record(2), 3..4);
        first.clear();
        assert!(first.is_empty());
        assert_eq!((first.records(), first.len()), (0, 0));
        assert_eq!(first, Samples::new());
    }
}
