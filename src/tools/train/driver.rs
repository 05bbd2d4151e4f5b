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
    let inputs = super::samples::learned::<G>()?.inputs();
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

#[cfg(test)]
mod tests {
    use super::super::testing::random_records;
    use super::*;
    use crate::games::ataxx::Ataxx;
    use crate::network::NetworkParts;
    use crate::tools::datagen::record::write_records;
    use std::sync::Arc;

    /// A quick run on Ataxx: few hidden units, small batches, two threads.
    fn quick_config() -> TrainConfig {
        TrainConfig {
            hidden: 8,
            buckets: 2,
            epochs: 3,
            batch: 64,
            learning_rate: 0.01,
            validation_share: 0.1,
            seed: 11,
            threads: 2,
            ..TrainConfig::default()
        }
    }

    /// The samples of 200 seeded Ataxx records.
    fn quick_samples(config: &TrainConfig) -> Samples {
        samples::<Ataxx>(&random_records::<Ataxx>(200, 7), config).expect("samples")
    }

    #[test]
    fn an_epoch_report_reads_as_one_line() {
        let mut report = EpochReport {
            epoch: 2,
            epochs: 5,
            train_loss: 0.123_456_78,
            validation_loss: Some(0.1),
            learning_rate: 0.000_75,
            samples_per_second: 12_345.6,
        };
        assert_eq!(
            report.to_string(),
            "epoch 2/5: train loss 0.123457, validation loss 0.100000, lr 0.000750, \
             12346 samples/s"
        );
        report.validation_loss = None;
        assert!(report.to_string().contains("validation loss -, "));
    }

    #[test]
    fn the_validation_report_gives_each_buckets_loss() {
        // Zero weights: every position scores 0, a probability of one half.
        let network = Network::from_parts(NetworkParts {
            game: "test".into(),
            inputs: 4,
            hidden: 2,
            buckets: 3,
            scale: 400,
            input_weights: vec![0; 8],
            hidden_bias: vec![0; 2],
            output_weights: vec![0; 6],
            output_bias: vec![0; 3],
        })
        .expect("a valid network");
        let mut samples = Samples::new();
        samples.push_record([(&[0u16][..], 0)], 0.5);
        samples.push_record([(&[1u16][..], 2)], 1.0);
        samples.push_record([(&[2u16][..], 2)], 0.0);
        samples.push_record([(&[3u16][..], 0)], 0.5);
        let lines = validation_report(&network, 0.1, &samples, &[0, 1, 2, 3]);
        assert_eq!(
            lines,
            [
                "quantised network: validation loss 0.125000 (float 0.100000)",
                "validation loss by output bucket: 0: 0.000000 (2 samples), \
                 1: - (0 samples), 2: 0.250000 (2 samples)",
            ]
        );
        // One bucket: no line by bucket; only the validation samples count.
        let one = Network::from_parts(NetworkParts {
            buckets: 1,
            output_weights: vec![0; 2],
            output_bias: vec![0],
            ..network.to_parts()
        })
        .expect("a valid network");
        assert_eq!(
            validation_report(&one, 0.2, &samples, &[1]),
            ["quantised network: validation loss 0.250000 (float 0.200000)"]
        );
    }

    #[test]
    fn epochs_follow_the_schedule_and_lower_the_loss() {
        let config = quick_config();
        let samples = quick_samples(&config);
        let inputs = Ataxx::learned()
            .map(|l| l.inputs())
            .expect("Ataxx has inputs");
        let pool = config.thread_pool().unwrap();
        let mut trainer = Trainer::new("ataxx", inputs, &samples, &config, 2).expect("a run");
        // 20 of the 200 records held out, eight images each.
        assert_eq!((trainer.train.len(), trainer.validation.len()), (1440, 160));
        let before = trainer.network.loss_of(&samples, &trainer.validation);
        let reports: Vec<EpochReport> = (0..3).map(|e| pool.install(|| trainer.epoch(e))).collect();
        for (epoch, report) in reports.iter().enumerate() {
            assert_eq!((report.epoch, report.epochs), (epoch + 1, 3));
            assert_eq!(report.learning_rate, config.learning_rate_at(epoch));
        }
        let after = reports[2].validation_loss.expect("held-out samples");
        assert!(after < before, "validation loss {before} → {after}");
        assert!(reports[2].train_loss < reports[0].train_loss);
    }

    #[test]
    fn a_run_depends_on_the_seed_and_the_threads_only() {
        let config = quick_config();
        let samples = quick_samples(&config);
        let run = |config: &TrainConfig| train_float::<Ataxx>(&samples, config, &mut |_| {});
        let first = run(&config).expect("training");
        assert_eq!(run(&config).expect("training"), first);
        let reseeded = TrainConfig {
            seed: 12,
            ..config.clone()
        };
        assert_ne!(run(&reseeded).expect("training"), first);
    }

    #[test]
    fn a_starting_network_keeps_the_split_and_its_weights() {
        let config = quick_config();
        let samples = quick_samples(&config);
        let start = Arc::new(train::<Ataxx>(&samples, &config, &mut |_| {}).expect("training"));
        let inputs = Ataxx::learned()
            .map(|l| l.inputs())
            .expect("Ataxx has inputs");
        let fresh = Trainer::new("ataxx", inputs, &samples, &config, 2).expect("a run");
        let continued = TrainConfig {
            start: Some(start.clone()),
            ..config.clone()
        };
        let going_on = Trainer::new("ataxx", inputs, &samples, &continued, 2).expect("a run");
        assert_eq!(going_on.train, fresh.train);
        assert_eq!(going_on.validation, fresh.validation);
        assert_eq!(going_on.network, FloatNetwork::from_quantised(&start));
        assert_ne!(going_on.network, fresh.network);
    }

    #[test]
    fn nothing_to_train_on_is_refused() {
        let config = quick_config();
        let error = train::<Ataxx>(&Samples::new(), &config, &mut |_| {}).unwrap_err();
        assert_eq!(error, "no training samples");
        // One record, held out whole (its eight images with it).
        let one = samples::<Ataxx>(&random_records::<Ataxx>(1, 3), &config).expect("samples");
        assert_eq!(one.len(), 8);
        let all_held_out = TrainConfig {
            buckets: 1,
            validation_share: 0.9,
            ..config
        };
        let error = train::<Ataxx>(&one, &all_held_out, &mut |_| {}).unwrap_err();
        assert_eq!(
            error,
            "no samples left for training after the validation split"
        );
    }

    #[test]
    fn run_reads_every_file_and_writes_the_network() {
        let dir = std::env::temp_dir().join(format!("agon-train-driver-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = [dir.join("a.bin"), dir.join("b.bin")];
        for (path, seed) in data.iter().zip([1, 2]) {
            let mut file = std::fs::File::create(path).unwrap();
            write_records(&mut file, &random_records::<Ataxx>(60, seed)).unwrap();
        }
        let out = dir.join("out.net");
        // The first 60 plies of a game may not reach the second stage.
        let config = TrainConfig {
            epochs: 1,
            buckets: 1,
            ..quick_config()
        };
        let mut lines = Vec::new();
        run::<Ataxx>(&data, &out, &config, &mut |line| {
            lines.push(line.to_string())
        })
        .expect("a run");
        assert_eq!(lines[0], "120 records from 2 file(s)");
        let inputs = Ataxx::learned()
            .map(|l| l.inputs())
            .expect("Ataxx has inputs");
        let written = format!(
            "wrote {} ({inputs} inputs, 8 hidden, 1 output bucket(s))",
            out.display()
        );
        assert_eq!(lines.last(), Some(&written));
        let network = Network::load_for::<Ataxx>(&out.to_string_lossy()).expect("a network");
        assert_eq!((network.hidden(), network.buckets()), (8, 1));
        // A missing file and an unwritable output are named.
        let missing = dir.join("missing.bin");
        let error =
            run::<Ataxx>(std::slice::from_ref(&missing), &out, &config, &mut |_| {}).unwrap_err();
        assert!(error.starts_with(&format!("cannot read '{}'", missing.display())));
        let nowhere = dir.join("no-such-dir").join("out.net");
        let error = run::<Ataxx>(&data, &nowhere, &config, &mut |_| {}).unwrap_err();
        assert!(error.starts_with(&format!("cannot write '{}'", nowhere.display())));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
