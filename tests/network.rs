//! The learned evaluation: the trainer fits a known target, the network
//! file survives a round trip and refuses damaged or foreign bytes, the
//! quantised network agrees with the float one in every output bucket,
//! positions are read by their stage's bucket, and the search's cache of a
//! large network's values answers that network's values only.

use agon::game::{Game, GameState};
use agon::games::ataxx::Ataxx;
use agon::network::{Network, NetworkParts, QA, QB};
use agon::search::Limits;
use agon::search::alphabeta::AlphaBeta;
use agon::tools::datagen::record::Record;
use agon::tools::train::{self, FloatNetwork, Samples, TrainConfig};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::{Arc, OnceLock};

/// Evaluation units per unit of network output.
const SCALE: f32 = 400.0;

/// `count` positions from random games (uniform legal moves from the
/// start, at most 100 plies each, the start itself left out).
fn random_positions(count: usize, seed: u64) -> Vec<Ataxx> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let options = <Ataxx as Game>::Options::default();
    let mut positions = Vec::with_capacity(count);
    let mut moves = Vec::new();
    while positions.len() < count {
        let mut position = Ataxx::start(&options);
        for _ in 0..100 {
            position.generate_moves(&mut moves);
            if moves.is_empty() || positions.len() == count {
                break;
            }
            position.play(moves[rng.random_range(0..moves.len())]);
            positions.push(position.clone());
        }
    }
    positions
}

/// Own pieces minus the opponent's, for the side to move.
fn material(position: &Ataxx) -> i32 {
    let side = position.side_to_move();
    position.pieces(side).count_ones() as i32 - position.pieces(side.other()).count_ones() as i32
}

/// Records whose score is 100 per piece of material (the result is
/// ignored with lambda 1).
fn material_records(positions: &[Ataxx]) -> Vec<Record> {
    positions
        .iter()
        .map(|position| Record {
            fen: position.fen(),
            score: (100 * material(position)) as i16,
            result: 0,
        })
        .collect()
}

/// Output buckets of the test network: each bucket sees about a quarter
/// of the positions, so each must learn material on its own.
const BUCKETS: usize = 4;

/// A small, fast configuration that targets the score alone.
fn small_config() -> TrainConfig {
    TrainConfig {
        hidden: 16,
        buckets: BUCKETS,
        epochs: 5,
        batch: 512,
        learning_rate: 0.01,
        final_lr_share: 0.1,
        lambda: 1.0,
        scale: SCALE,
        validation_share: 0.1,
        seed: 7,
        threads: 1,
        symmetries: false,
        start: None,
    }
}

/// The samples of `positions` under `config`.
fn material_samples(positions: &[Ataxx], config: &TrainConfig) -> Samples {
    train::samples::<Ataxx>(&material_records(positions), config).expect("samples")
}

/// The network trained on material once for every test, with its report.
fn trained() -> &'static (FloatNetwork, Vec<String>) {
    static TRAINED: OnceLock<(FloatNetwork, Vec<String>)> = OnceLock::new();
    TRAINED.get_or_init(|| {
        let config = small_config();
        let samples = material_samples(&random_positions(100_000, 1), &config);
        let mut lines = Vec::new();
        let network = train::train_float::<Ataxx>(&samples, &config, &mut |line| {
            lines.push(line.to_string())
        })
        .expect("training");
        (network, lines)
    })
}

/// Mean squared error of always predicting the mean target.
fn mean_prediction_loss(samples: &Samples) -> f64 {
    let targets: Vec<f64> = samples.to_vec().iter().map(|s| f64::from(s.2)).collect();
    let mean = targets.iter().sum::<f64>() / targets.len() as f64;
    targets.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / targets.len() as f64
}

#[test]
fn trainer_fits_material() {
    let (network, lines) = trained();
    assert_eq!(
        lines.len(),
        small_config().epochs,
        "one report line per epoch"
    );
    assert!(lines[0].contains("validation loss"), "{}", lines[0]);
    let held_out = material_samples(&random_positions(2000, 2), &small_config());
    let baseline = mean_prediction_loss(&held_out);
    let loss = network.loss(&held_out);
    // Seen: baseline 0.0478, trained 0.00075 (1/63).
    assert!(
        loss < baseline / 20.0,
        "held-out loss {loss:.6} against {baseline:.6} for the mean\n{}",
        lines.join("\n")
    );
}

/// The active inputs of `count` random positions, each with its output
/// bucket among [`BUCKETS`].
fn random_actives(count: usize, seed: u64) -> Vec<(Vec<u16>, usize)> {
    random_positions(count, seed)
        .iter()
        .map(|position| {
            let mut active = Vec::new();
            learned().active_inputs(position, &mut active);
            (active, learned().bucket(position, BUCKETS))
        })
        .collect()
}

/// The largest and the mean absolute difference of `a` and `b` over
/// `actives`.
fn differences(
    actives: &[(Vec<u16>, usize)],
    a: impl Fn(&[u16], usize) -> f64,
    b: impl Fn(&[u16], usize) -> f64,
) -> (f64, f64) {
    let errors: Vec<f64> = actives
        .iter()
        .map(|(x, bucket)| (a(x, *bucket) - b(x, *bucket)).abs())
        .collect();
    let worst = errors.iter().copied().fold(0.0, f64::max);
    (worst, errors.iter().sum::<f64>() / errors.len() as f64)
}

#[test]
fn quantised_network_agrees_with_float() {
    let (float, _) = trained();
    let network = float.quantise().expect("quantise");
    network.check_fits::<Ataxx>().expect("fits Ataxx");
    let actives = random_actives(3000, 3);
    let buckets: std::collections::HashSet<usize> = actives.iter().map(|a| a.1).collect();
    assert_eq!(buckets.len(), BUCKETS, "every bucket is compared");
    let (worst, mean) = differences(
        &actives,
        |x, b| f64::from(network.evaluate(x, b)),
        |x, b| f64::from(float.evaluate(x, b)),
    );
    // Seen: worst 17.6, mean 5.6 units (scale 400, 100 per piece). Nearly
    // all of it is the output weights' rounding: a step of 1/QB is 6.25
    // units for a saturated hidden unit, and those errors are the same in
    // every position, so they add up rather than average out.
    assert!(worst <= 30.0 && mean <= 10.0, "worst {worst}, mean {mean}");
}

/// A network file's weights read back as floats (an independent reader of
/// the documented format), to check the integer inference against.
struct Dequantised {
    hidden: usize,
    scale: f64,
    input_weights: Vec<f64>,
    hidden_bias: Vec<f64>,
    output_weights: Vec<f64>,
    output_bias: Vec<f64>,
}

impl Dequantised {
    fn read(bytes: &[u8]) -> Dequantised {
        let bucketed = &bytes[..8] == b"AGONNET2";
        let mut at = 8 + 1 + bytes[8] as usize;
        let mut take = |n: usize| {
            at += n;
            &bytes[at - n..at]
        };
        let mut u32_at = || u32::from_le_bytes(take(4).try_into().unwrap());
        let (inputs, hidden) = (u32_at() as usize, u32_at() as usize);
        let buckets = if bucketed { u32_at() as usize } else { 1 };
        let scale = f64::from(u32_at());
        let mut i16s = |n: usize, factor: i32| -> Vec<f64> {
            take(2 * n)
                .chunks_exact(2)
                .map(|b| f64::from(i16::from_le_bytes([b[0], b[1]])) / f64::from(factor))
                .collect()
        };
        let input_weights = i16s(inputs * hidden, QA);
        let hidden_bias = i16s(hidden, QA);
        let output_weights = i16s(buckets * hidden, QB);
        let output_bias = (0..buckets)
            .map(|_| {
                let bias = i32::from_le_bytes(take(4).try_into().unwrap());
                f64::from(bias) / f64::from(QA * QB)
            })
            .collect();
        Dequantised {
            hidden,
            scale,
            input_weights,
            hidden_bias,
            output_weights,
            output_bias,
        }
    }

    fn evaluate(&self, active: &[u16], bucket: usize) -> f64 {
        let mut acc = self.hidden_bias.clone();
        for &input in active {
            let row = &self.input_weights[input as usize * self.hidden..][..self.hidden];
            acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
        }
        let hidden: f64 = acc
            .iter()
            .zip(&self.output_weights[bucket * self.hidden..][..self.hidden])
            .map(|(a, w)| a.clamp(0.0, 1.0).powi(2) * w)
            .sum();
        (self.output_bias[bucket] + hidden) * self.scale
    }
}

#[test]
fn integer_inference_matches_the_file_weights() {
    let network = trained().0.quantise().expect("quantise");
    assert_eq!(network.buckets(), BUCKETS);
    let dequantised = Dequantised::read(&network.to_bytes());
    let actives = random_actives(3000, 3);
    let (worst, _) = differences(
        &actives,
        |x, b| f64::from(network.evaluate(x, b)),
        |x, b| dequantised.evaluate(x, b),
    );
    // Only the two integer divisions truncate: below 1 unit for the last,
    // scale / (QA × QB) ≈ 0.025 for the other. Seen: 1.016.
    assert!(worst < 1.03, "worst {worst}");
}

/// Ataxx's image maps are permutations of the inputs that send each
/// position's active inputs to exactly its images' (positions of random
/// games, with and without blocked squares), and an image keeps its
/// bucket: the trainer relies on both to store one image per record.
#[test]
fn ataxx_image_maps_make_every_images_inputs() {
    let maps = learned().image_input_maps().expect("Ataxx maps its inputs");
    let inputs = Ataxx::learned()
        .map(|l| l.inputs())
        .expect("Ataxx has a network");
    assert_eq!(maps.len(), 8);
    for map in &maps {
        let mut seen = vec![false; inputs];
        for &to in map {
            seen[usize::from(to)] = true;
        }
        assert!(seen.iter().all(|&s| s), "a map is not a permutation");
    }
    let options = <Ataxx as Game>::Options::default();
    let blocked = Ataxx::from_fen("x5o/1-3-1/7/2-1-2/7/1-3-1/o5x x 0 1", &options).unwrap();
    let mut positions = random_positions(2000, 12);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    let mut moves = Vec::new();
    let mut position = blocked.clone();
    for _ in 0..1000 {
        position.generate_moves(&mut moves);
        if moves.is_empty() {
            position = blocked.clone();
            continue;
        }
        position.play(moves[rng.random_range(0..moves.len())]);
        positions.push(position.clone());
    }
    for position in &positions {
        let mut first = Vec::new();
        learned().active_inputs(position, &mut first);
        for (image, map) in position.symmetric_images().iter().zip(&maps) {
            let mut made: Vec<u16> = first.iter().map(|&i| map[usize::from(i)]).collect();
            let mut real = Vec::new();
            learned().active_inputs(image, &mut real);
            made.sort_unstable();
            real.sort_unstable();
            assert_eq!(made, real, "{}", position.fen());
            assert_eq!(learned().bucket(image, 8), learned().bucket(position, 8));
        }
    }
}

/// With symmetries each record gives its position's eight images, with
/// the record's target, and the validation split keeps them together.
#[test]
fn symmetric_images_are_samples_of_one_record() {
    let positions = random_positions(200, 6);
    let plain = material_samples(&positions, &small_config());
    let config = TrainConfig {
        symmetries: true,
        ..small_config()
    };
    let samples = material_samples(&positions, &config);
    assert_eq!((plain.records(), plain.len()), (200, 200));
    assert_eq!((samples.records(), samples.len()), (200, 1600));
    // Ataxx keeps one image per record and maps its inputs to the others:
    // every sample must still be its image's inputs (in any order), with
    // the record's target and its bucket.
    let (all, plain) = (samples.to_vec(), plain.to_vec());
    for (record, position) in positions.iter().enumerate() {
        let range = samples.samples_of_record(record);
        assert_eq!(range.len(), 8);
        assert_eq!(all[range.start], plain[record]);
        for (sample, image) in range.zip(position.symmetric_images()) {
            let mut active = Vec::new();
            learned().active_inputs(&image, &mut active);
            active.sort_unstable();
            let mut made = all[sample].0.clone();
            made.sort_unstable();
            assert_eq!(made, active);
            assert_eq!(all[sample].1, plain[record].1);
            assert_eq!(all[sample].2, plain[record].2);
        }
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (train_part, validation) = train::split_by_record(&samples, 0.1, &mut rng);
    assert_eq!((train_part.len(), validation.len()), (1440, 160));
    let record_of = |sample: u32| (sample / 8) as usize;
    let held: std::collections::HashSet<usize> = validation.iter().map(|&s| record_of(s)).collect();
    assert_eq!(held.len(), 20);
    assert!(train_part.iter().all(|&s| !held.contains(&record_of(s))));
}

#[test]
fn training_is_reproducible_with_one_thread() {
    // Two buckets: these short random games rarely fill three quarters of
    // the board, which a fourth bucket would need.
    let config = TrainConfig {
        epochs: 2,
        buckets: 2,
        ..small_config()
    };
    let samples = material_samples(&random_positions(1000, 4), &config);
    let run = || {
        train::train::<Ataxx>(&samples, &config, &mut |_| {})
            .expect("training")
            .to_bytes()
    };
    assert_eq!(run(), run());
}

#[test]
fn training_reports_the_written_networks_validation_loss() {
    let config = TrainConfig {
        epochs: 2,
        buckets: 2,
        ..small_config()
    };
    let positions = random_positions(1000, 4);
    let samples = material_samples(&positions, &config);
    let mut lines = Vec::new();
    train::train::<Ataxx>(&samples, &config, &mut |line| lines.push(line.to_string()))
        .expect("training");
    let text = lines.join("\n");
    // After the epochs: the quantised network's loss beside the float one.
    let quantised = &lines[config.epochs];
    let figures: Vec<f64> = quantised
        .strip_prefix("quantised network: validation loss ")
        .unwrap_or_else(|| panic!("{text}"))
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|word| word.parse().ok())
        .collect();
    let [quantised_loss, float_loss] = figures[..] else {
        panic!("{text}")
    };
    assert!(float_loss > 0.0, "{text}");
    // Rounding moves scores by a few units: the losses differ in the
    // fourth decimal at most.
    assert!((quantised_loss - float_loss).abs() < 1e-3, "{text}");
    // Each bucket's loss and the samples it holds, which add up to the
    // validation share of the samples.
    let by_bucket = lines[config.epochs + 1]
        .strip_prefix("validation loss by output bucket: ")
        .unwrap_or_else(|| panic!("{text}"));
    let counts: Vec<usize> = by_bucket
        .split(" samples)")
        .filter_map(|part| part.rsplit('(').next()?.parse().ok())
        .collect();
    assert_eq!(counts.len(), 2, "{text}");
    // The buckets' losses, weighted by their samples, make the total.
    let losses: Vec<f64> = by_bucket
        .split(", ")
        .filter_map(|part| part.split(' ').nth(1)?.parse().ok())
        .collect();
    assert_eq!(losses.len(), 2, "{text}");
    let weighted = losses
        .iter()
        .zip(&counts)
        .map(|(l, &n)| l * n as f64)
        .sum::<f64>()
        / counts.iter().sum::<usize>() as f64;
    assert!((weighted - quantised_loss).abs() < 2e-6, "{text}");
    // The float figure is the last epoch's validation loss.
    let last_epoch = &lines[config.epochs - 1];
    let validation: f64 = last_epoch
        .split("validation loss ")
        .nth(1)
        .and_then(|rest| rest.split(',').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((validation - float_loss).abs() < 2e-6, "{text}");
    let held_out = counts.iter().sum::<usize>() as f64 / samples.len() as f64;
    assert!(
        (held_out - f64::from(config.validation_share)).abs() < 0.03,
        "{text}"
    );
    // One bucket: no breakdown.
    let one = TrainConfig {
        buckets: 1,
        ..config
    };
    let samples = material_samples(&positions, &one);
    let mut lines = Vec::new();
    train::train::<Ataxx>(&samples, &one, &mut |line| lines.push(line.to_string()))
        .expect("training");
    assert!(
        lines.iter().all(|l| !l.contains("by output bucket")),
        "{lines:?}"
    );
}

#[test]
fn bad_records_and_configs_are_refused() {
    let config = small_config();
    let mut records = material_records(&random_positions(3, 5));
    records[2].fen = "not a position".into();
    let error = train::samples::<Ataxx>(&records, &config).unwrap_err();
    assert!(error.starts_with("record 2:"), "{error}");
    let samples = material_samples(&random_positions(10, 5), &config);
    for bad in [
        TrainConfig {
            hidden: 0,
            ..small_config()
        },
        TrainConfig {
            hidden: 257,
            ..small_config()
        },
        TrainConfig {
            buckets: 0,
            ..small_config()
        },
        TrainConfig {
            buckets: 17,
            ..small_config()
        },
        TrainConfig {
            batch: 0,
            ..small_config()
        },
        TrainConfig {
            scale: 400.5,
            ..small_config()
        },
        TrainConfig {
            validation_share: 1.0,
            ..small_config()
        },
    ] {
        assert!(
            train::train::<Ataxx>(&samples, &bad, &mut |_| {}).is_err(),
            "{bad:?}"
        );
    }
    let mut foreign = Samples::new();
    foreign.push(&[2965], 0.5);
    assert!(train::train::<Ataxx>(&foreign, &config, &mut |_| {}).is_err());
    let mut past_the_buckets = Samples::new();
    past_the_buckets.push_record([(&[7u16][..], BUCKETS)], 0.5);
    let error = train::train::<Ataxx>(&past_the_buckets, &config, &mut |_| {}).unwrap_err();
    assert!(error.contains("bucket"), "{error}");
    // A float network reads such a sample by its last bucket, as inference does.
    assert!(trained().0.loss(&past_the_buckets).is_finite());
    // Data from one stage only: the other buckets would keep their random
    // weights, so training refuses it.
    let early: Vec<Ataxx> = random_positions(300, 5)
        .into_iter()
        .filter(|p| learned().bucket(p, BUCKETS) == 0)
        .collect();
    assert!(early.len() > 50);
    let error = train::train::<Ataxx>(&material_samples(&early, &config), &config, &mut |_| {})
        .unwrap_err();
    assert!(
        error.contains("no sample falls in output bucket 1"),
        "{error}"
    );
    assert!(train::train::<Ataxx>(&Samples::new(), &config, &mut |_| {}).is_err());
}

/// The parts of a tiny network with arbitrary weights (its file is
/// 100-odd bytes, so every cut and every flipped byte can be tried).
fn tiny_parts() -> NetworkParts {
    let (inputs, hidden) = (5, 3);
    NetworkParts {
        game: "ataxx".into(),
        inputs,
        hidden,
        buckets: 1,
        scale: 400,
        input_weights: (0..inputs * hidden).map(|i| i as i16 * 37 - 200).collect(),
        hidden_bias: vec![-5, 0, 300],
        output_weights: vec![64, -127, 3],
        output_bias: vec![-12345],
    }
}

/// The network of [`tiny_parts`].
fn tiny_network() -> Network {
    Network::from_parts(tiny_parts()).expect("tiny network")
}

/// [`tiny_network`] with a second output bucket.
fn tiny_bucketed_network() -> Network {
    Network::from_parts(NetworkParts {
        buckets: 2,
        output_weights: vec![64, -127, 3, -1, 90, 127],
        output_bias: vec![-12345, 678],
        ..tiny_parts()
    })
    .expect("tiny bucketed network")
}

#[test]
fn network_file_round_trips() {
    let trained = trained().0.quantise().expect("quantise");
    for network in [tiny_network(), tiny_bucketed_network(), trained] {
        let bytes = network.to_bytes();
        let magic: &[u8] = if network.buckets() == 1 {
            b"AGONNET1"
        } else {
            b"AGONNET2"
        };
        assert_eq!(&bytes[..8], magic, "one bucket keeps the first format");
        assert_eq!(Network::from_bytes(&bytes), Ok(network));
    }
}

#[test]
fn truncated_network_files_are_refused() {
    for bytes in [
        tiny_network().to_bytes(),
        tiny_bucketed_network().to_bytes(),
    ] {
        for cut in 0..bytes.len() {
            assert!(Network::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
    let bytes = tiny_network().to_bytes();
    let big = trained().0.quantise().expect("quantise").to_bytes();
    let cuts = (0..big.len()).step_by(997).chain(big.len() - 9..big.len());
    for cut in cuts {
        assert!(Network::from_bytes(&big[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Network::from_bytes(&longer).is_err());
}

#[test]
fn a_truncated_file_error_names_the_size_the_next_field_needs() {
    let bytes = trained().0.quantise().expect("quantise").to_bytes();
    let cut = bytes.len() / 2;
    let error = Network::from_bytes(&bytes[..cut]).expect_err("half a file");
    let needed: usize = error
        .rsplit(' ')
        .next()
        .and_then(|last| last.trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("no size at the end of {error:?}"));
    assert!(error.contains(&format!("({cut} bytes")), "{error}");
    assert!(needed > cut && needed <= bytes.len(), "{error}");
}

#[test]
fn damaged_network_files_are_refused() {
    for bytes in [
        tiny_network().to_bytes(),
        tiny_bucketed_network().to_bytes(),
    ] {
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                assert!(
                    Network::from_bytes(&damaged).is_err(),
                    "byte {at} ^ {flip:#x}"
                );
            }
        }
    }
}

/// Each position is read by the output bucket of its stage: with the
/// second bucket's output weights the first's negated, a position early in
/// the game and one late in it get the two opposite readings.
#[test]
fn positions_are_read_by_their_stage_bucket() {
    let parts = random_parts(11, 8, 60, 200);
    let negated: Vec<i16> = parts.output_weights.iter().map(|w| -w).collect();
    let network = Network::from_parts(NetworkParts {
        buckets: 2,
        output_weights: [parts.output_weights.clone(), negated].concat(),
        output_bias: vec![0, 0],
        ..parts
    })
    .expect("parts");
    let (mut early, mut late) = (0, 0);
    let mut scratch = Vec::new();
    for position in random_positions(400, 12) {
        let side = position.side_to_move();
        let pieces = position.pieces(side) | position.pieces(side.other());
        let filled = (pieces | position.blockers()).count_ones() as usize;
        let bucket = learned().bucket(&position, 2);
        assert_eq!(bucket, usize::from(filled * 2 >= 50), "{filled} filled");
        let mut active = Vec::new();
        learned().active_inputs(&position, &mut active);
        let (first, second) = (network.evaluate(&active, 0), network.evaluate(&active, 1));
        assert_eq!(first, -second, "the buckets' weights are opposite");
        let read = network.evaluate_position(&position, &mut scratch);
        assert_eq!(read, if bucket == 0 { first } else { second });
        if first != 0 {
            *[&mut early, &mut late][bucket] += 1;
        }
    }
    assert!(early > 20 && late > 20, "both stages seen: {early}, {late}");
}

/// An output weight past ±127 would overflow the `i16` product of an
/// activation and a weight that inference relies on: such a file is refused.
#[test]
fn output_weights_past_the_limit_are_refused() {
    for weight in [128, -128, i16::MAX, i16::MIN] {
        let mut parts = tiny_parts();
        parts.output_weights[1] = weight;
        let error = Network::from_parts(parts).unwrap_err();
        assert!(error.contains("output weight"), "{error}");
    }
    // At the limit, with every activation clipped to QA: the integer sum
    // is exact.
    let mut parts = tiny_parts();
    parts.hidden_bias = vec![QA as i16 + 10; 3];
    parts.input_weights.fill(0);
    parts.output_weights = vec![127, -127, 127];
    parts.output_bias = vec![0];
    let network = Network::from_parts(parts).expect("weights at the limit");
    let sum = 127 * QA * QA;
    let expected = (i64::from(sum / QA) * 400 / i64::from(QA * QB)) as i32;
    assert_eq!(network.evaluate(&[], 0), expected);
}

#[test]
fn foreign_files_are_refused() {
    let mut other_version = tiny_network().to_bytes();
    other_version[7] = b'3';
    let records = {
        let mut bytes = Vec::new();
        material_records(&random_positions(5, 6))[0].write_to(&mut bytes);
        bytes
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let noise: Vec<u8> = (0..4096).map(|_| rng.random::<u8>()).collect();
    for foreign in [
        other_version,
        records,
        noise,
        b"AGONNET".to_vec(),
        Vec::new(),
    ] {
        let error = Network::from_bytes(&foreign).unwrap_err();
        assert!(!error.is_empty());
    }
    let not_ataxx = Network::from_parts(NetworkParts {
        game: "nim".into(),
        ..tiny_parts()
    })
    .expect("parts");
    assert!(not_ataxx.check_fits::<Ataxx>().is_err());
    assert!(
        tiny_network().check_fits::<Ataxx>().is_err(),
        "5 inputs, not 2965"
    );
}

/// Training speed at the production size (run with `cargo test --release
/// --test network -- --ignored --nocapture`; `THREADS=n` for n threads).
#[test]
#[ignore]
fn training_speed() {
    let config = TrainConfig {
        hidden: 128,
        epochs: 3,
        lambda: 1.0,
        validation_share: 0.0,
        threads: std::env::var("THREADS").map_or(0, |t| t.parse().expect("THREADS")),
        ..TrainConfig::default()
    };
    let samples = material_samples(&random_positions(1_000_000, 8), &config);
    // On a shared machine the processor time per sample (with one thread;
    // idle workers spinning add to it with more) is steadier than the
    // wall-clock samples/s of the report lines.
    let cpu_before = process_cpu_seconds();
    let float = train::train_float::<Ataxx>(&samples, &config, &mut |line| println!("{line}"))
        .expect("training");
    let cpu = process_cpu_seconds() - cpu_before;
    let per_core = (samples.len() * config.epochs) as f64 / cpu;
    println!("{per_core:.0} samples per processor-second");
    let network = float.quantise().expect("quantise");
    let (worst, mean) = differences(
        &random_actives(3000, 3),
        |x, _| f64::from(network.evaluate(x, 0)),
        |x, _| f64::from(float.evaluate(x, 0)),
    );
    println!("quantised against float: worst {worst:.2}, mean {mean:.2} units");
}

/// Processor time used by this process so far, in seconds.
fn process_cpu_seconds() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// A random one-bucket Ataxx network of `hidden` units: first-layer
/// weights within ±`weight`, hidden biases from 0 to `bias`, output weights
/// anywhere in their range.
fn random_parts(seed: u64, hidden: usize, weight: i16, bias: i16) -> NetworkParts {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let inputs = Ataxx::learned()
        .map(|l| l.inputs())
        .expect("ataxx has network inputs");
    NetworkParts {
        game: "ataxx".into(),
        inputs,
        hidden,
        buckets: 1,
        scale: 200,
        input_weights: (0..inputs * hidden)
            .map(|_| rng.random_range(-weight..=weight))
            .collect(),
        hidden_bias: (0..hidden).map(|_| rng.random_range(0..=bias)).collect(),
        output_weights: (0..hidden).map(|_| rng.random_range(-127..=127)).collect(),
        output_bias: vec![0],
    }
}

/// A random Ataxx network as wide as the shipped one: 256 hidden units,
/// a first layer past `LARGE_FIRST_LAYER_BYTES`, so the search caches its
/// values.
fn large_network(seed: u64) -> Network {
    Network::from_parts(random_parts(seed, 256, 40, 100)).expect("large network")
}

/// The one-ply score straight from `network`: the best child by its
/// negated evaluation. `None` when a move ends the game (the search scores
/// that by the rules, not the network).
fn one_ply_score(position: &Ataxx, network: &Network) -> Option<i32> {
    let mut moves = Vec::new();
    position.generate_moves(&mut moves);
    let mut inputs = Vec::new();
    let mut best = None;
    for mv in moves {
        let mut child = position.clone();
        child.play(mv);
        if child.outcome().is_some() || child.side_to_move() == position.side_to_move() {
            return None;
        }
        let score = -network.evaluate_position(&child, &mut inputs);
        best = Some(best.map_or(score, |b: i32| b.max(score)));
    }
    best
}

#[test]
fn cached_evaluations_are_the_networks_own() {
    let (first, second) = (Arc::new(large_network(1)), Arc::new(large_network(2)));
    assert!(first.is_large(), "the search caches this network's values");
    let mut search = AlphaBeta::<Ataxx>::new(1).expect("table");
    let mut checked = 0;
    for position in random_positions(40, 9) {
        let (Some(want_first), Some(want_second)) = (
            one_ply_score(&position, &first),
            one_ply_score(&position, &second),
        ) else {
            continue;
        };
        let state = GameState::new(position.clone());
        let depth = |search: &mut AlphaBeta<Ataxx>, d| {
            search.search(&state, &Limits::depth(d), &mut |_| {}).score
        };
        // A deeper search first fills the cache with the children's values;
        // the one-ply search then reads them back.
        search.set_network(Some(first.clone()));
        depth(&mut search, 3);
        assert_eq!(depth(&mut search, 1), want_first, "{}", position.fen());
        // Another network: nothing cached from the first may be used.
        search.set_network(Some(second.clone()));
        assert_eq!(depth(&mut search, 1), want_second, "{}", position.fen());
        checked += 1;
    }
    assert!(
        checked >= 20,
        "only {checked} positions without a game-ending move"
    );
}

#[test]
fn a_quantised_network_read_back_as_floats_quantises_to_itself() {
    let (network, _) = trained();
    let quantised = network.quantise().expect("quantise");
    let again = FloatNetwork::from_quantised(&quantised)
        .quantise()
        .expect("quantise again");
    assert_eq!(again, quantised);
}

#[test]
fn training_goes_on_from_a_starting_network() {
    let (network, _) = trained();
    let start = Arc::new(network.quantise().expect("quantise"));
    let held_out = material_samples(&random_positions(2000, 2), &small_config());
    let starting_loss = FloatNetwork::from_quantised(&start).loss(&held_out);
    // One short epoch on other positions at a rate too small to move the
    // weights much: the result is still the trained network, far better
    // than the same epoch from random weights.
    let config = TrainConfig {
        epochs: 1,
        learning_rate: 1e-6,
        ..small_config()
    };
    let samples = material_samples(&random_positions(2000, 9), &config);
    let continued = |start: Option<Arc<Network>>| {
        let config = TrainConfig {
            start,
            ..config.clone()
        };
        train::train_float::<Ataxx>(&samples, &config, &mut |_| {})
            .expect("training")
            .loss(&held_out)
    };
    let from_start = continued(Some(start.clone()));
    let from_random = continued(None);
    assert!(
        (from_start - starting_loss).abs() < starting_loss / 10.0,
        "continued {from_start:.6}, start {starting_loss:.6}"
    );
    assert!(
        from_start < from_random / 10.0,
        "continued {from_start:.6}, from random weights {from_random:.6}"
    );
}

#[test]
fn a_starting_network_of_another_shape_is_refused() {
    let (network, _) = trained();
    let start = Some(Arc::new(network.quantise().expect("quantise")));
    let samples = material_samples(&random_positions(200, 3), &small_config());
    let wider = TrainConfig {
        hidden: 32,
        start: start.clone(),
        ..small_config()
    };
    let error = train::train::<Ataxx>(&samples, &wider, &mut |_| {}).unwrap_err();
    assert!(error.contains("hidden units 16"), "{error}");
    let rescaled = TrainConfig {
        scale: 200.0,
        start,
        ..small_config()
    };
    let error = train::train::<Ataxx>(&samples, &rescaled, &mut |_| {}).unwrap_err();
    assert!(error.contains("scale 400"), "{error}");
}

/// Ataxx's learned-evaluation hooks.
fn learned() -> &'static dyn agon::game::LearnedEvaluation<Ataxx> {
    Ataxx::learned().expect("Ataxx has a learned evaluation")
}
