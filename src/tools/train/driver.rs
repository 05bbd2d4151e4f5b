//! The driver: `agon train`'s run from record files to a network file,
//! the epoch loop over shuffled batches, and the per-epoch and validation
//! reports.

use super::config::TrainConfig;
use super::model::{FloatNetwork, LOSS_CHUNK};
use super::optimiser::{Adam, Gradient};
use super::samples::{Samples, samples, sigmoid, split_by_record};
use crate::game::Game;
use crate::network::Network;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::time::Instant;

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
    config.check_start::<G>()?;
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
    config.check_start::<G>()?;
    let inputs = G::network_inputs().ok_or(format!("{} has no network inputs", G::NAME))?;
    if samples.is_empty() {
        return Err("no training samples".into());
    }
    samples.check(inputs, config.buckets)?;
    let pool = config.thread_pool()?;
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
    /// by [`TrainConfig::check_start`]), with the records split into
    /// training and validation by a seeded shuffle (each with all its
    /// samples); one gradient buffer per thread.
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
