//! Learned evaluation: the network file format and its integer inference.
//!
//! The network is the small "NNUE" shape that the strongest Ataxx engines
//! use: sparse inputs (the game's features, [`LearnedEvaluation::active_inputs`](crate::game::LearnedEvaluation::active_inputs), seen
//! from the side to move) → one hidden layer of at most [`MAX_HIDDEN`] units
//! with a squared clipped ReLU → one output, the score for the side to move
//! in the classic evaluation's units. The output layer may come in several
//! *buckets*, one per stage of the game ([`LearnedEvaluation::bucket`](crate::game::LearnedEvaluation::bucket)): the
//! hidden layer is shared and each position is read by its stage's output
//! weights, so the network can weigh the same features differently in the
//! opening and the endgame at no cost in speed.
//!
//! Integers throughout: the first layer's weights and biases are `i16`
//! scaled by [`QA`], the output weights `i16` scaled by [`QB`]. A position's
//! accumulator (bias plus the rows of its active inputs) is summed from
//! scratch: in Ataxx a move changes up to ten squares and so up to forty
//! 2×2 windows, as many as a position has, so an incremental update would
//! not save work there. The sums run in saturating `i16` lanes (a game with
//! many active inputs cannot wrap a sum past the clip) the compiler vectorises
//! (in slices of a fixed width, so the accumulator stays in registers);
//! on x86-64 the same code is also compiled for AVX2 and chosen at run time
//! when the CPU has it.
//!
//! File format (all little-endian), written by `agon train`:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `AGONNET2` (`AGONNET1`: one bucket, no bucket field) |
//! | 1 + n | game name length, then the name (e.g. `ataxx`) |
//! | 4 | inputs (u32) |
//! | 4 | hidden units (u32, 1 to 256) |
//! | 4 | output buckets `b` (u32, 1 to [`MAX_BUCKETS`]; not in `AGONNET1`) |
//! | 4 | output scale (i32): evaluation units per unit of float output |
//! | 2 × inputs × hidden | first-layer weights (i16), one row per input |
//! | 2 × hidden | hidden biases (i16) |
//! | 2 × b × hidden | output weights (i16, at most ±127: [`MAX_OUTPUT_WEIGHT`]), one row per bucket |
//! | 4 × b | output biases (i32, scaled by `QA × QB`), one per bucket |
//! | 8 | FNV-1a 64 hash of every byte before it |
//!
//! A network of one bucket is written as `AGONNET1`, which builds from
//! before buckets read too.
//!
//! Anything else (a foreign or truncated file, a wrong checksum, sizes that
//! do not match the game) is refused with a message saying why.

use crate::game::Game;
use std::sync::{Arc, Mutex, OnceLock};

/// Magic bytes that start a network file with output buckets (the version
/// is its last byte).
pub const MAGIC: &[u8; 8] = b"AGONNET2";
/// Magic bytes of a network file of one output bucket (the first format).
pub const MAGIC_ONE_BUCKET: &[u8; 8] = b"AGONNET1";
/// Most output buckets a network may have.
pub const MAX_BUCKETS: usize = 16;
/// Scale of the first layer's weights and of the clipped activation: a
/// hidden value of 1.0 is `QA`.
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 64;
/// Largest hidden layer. With output weights of at most
/// [`MAX_OUTPUT_WEIGHT`] the output sum `Σ clamp(acc)² × w` stays below
/// `256 × 255² × 127 < 2³¹`.
pub const MAX_HIDDEN: usize = 256;
/// First-layer size above which the search caches evaluations: the 1 MiB
/// second-level cache of the machines we measure on. With a match running
/// beside (as in a tournament), Ataxx's 256-unit network (1.5 MB) searched
/// 7–10 % more nodes per second with the cache, the 128-unit one (0.75 MB)
/// 5–13 % fewer.
pub const LARGE_FIRST_LAYER_BYTES: usize = 1 << 20;
/// Largest output weight (±1.98 × [`QB`]): an activation (at most [`QA`])
/// times a weight then fits an `i16`, which halves the output layer's
/// multiplications (see [`Network::evaluate_portable`]).
pub const MAX_OUTPUT_WEIGHT: u16 = 127;
/// Largest input count a file may declare.
pub const MAX_INPUTS: usize = 1 << 16;

/// A loaded network, ready to evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    game: String,
    inputs: usize,
    hidden: usize,
    buckets: usize,
    scale: i32,
    input_weights: Vec<i16>,
    hidden_bias: Vec<i16>,
    output_weights: Vec<i16>,
    output_bias: Vec<i32>,
}

/// The quantised parameters of a network, as the trainer produces them.
#[derive(Clone, Debug)]
pub struct NetworkParts {
    /// The game whose inputs the network reads ([`Game::NAME`]).
    pub game: String,
    /// Number of inputs.
    pub inputs: usize,
    /// Number of hidden units.
    pub hidden: usize,
    /// Number of output buckets ([`LearnedEvaluation::bucket`](crate::game::LearnedEvaluation::bucket)).
    pub buckets: usize,
    /// Evaluation units per unit of the float output.
    pub scale: i32,
    /// `inputs × hidden` first-layer weights, one row of `hidden` per input.
    pub input_weights: Vec<i16>,
    /// `hidden` biases.
    pub hidden_bias: Vec<i16>,
    /// `buckets × hidden` output weights, one row of `hidden` per bucket.
    pub output_weights: Vec<i16>,
    /// One output bias per bucket, scaled by `QA × QB`.
    pub output_bias: Vec<i32>,
}

impl Network {
    /// A network from its parts, or why they do not fit together.
    pub fn from_parts(parts: NetworkParts) -> Result<Network, String> {
        if parts.game.is_empty() || parts.game.len() > 255 {
            return Err("network: the game name must have 1 to 255 bytes".into());
        }
        if parts.hidden == 0 || parts.hidden > MAX_HIDDEN {
            return Err(format!(
                "network: {} hidden units (1 to {MAX_HIDDEN})",
                parts.hidden
            ));
        }
        if parts.inputs == 0 || parts.inputs > MAX_INPUTS {
            return Err(format!(
                "network: {} inputs (1 to {MAX_INPUTS})",
                parts.inputs
            ));
        }
        if parts.buckets == 0 || parts.buckets > MAX_BUCKETS {
            return Err(format!(
                "network: {} output buckets (1 to {MAX_BUCKETS})",
                parts.buckets
            ));
        }
        if parts.scale <= 0 {
            return Err(format!(
                "network: output scale {} (must be positive)",
                parts.scale
            ));
        }
        if parts.input_weights.len() != parts.inputs * parts.hidden
            || parts.hidden_bias.len() != parts.hidden
            || parts.output_weights.len() != parts.buckets * parts.hidden
            || parts.output_bias.len() != parts.buckets
        {
            return Err("network: layer sizes do not match inputs × hidden × buckets".into());
        }
        if let Some(w) = parts
            .output_weights
            .iter()
            .find(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(format!(
                "network: output weight {w} (at most ±{MAX_OUTPUT_WEIGHT})"
            ));
        }
        Ok(Network {
            game: parts.game,
            inputs: parts.inputs,
            hidden: parts.hidden,
            buckets: parts.buckets,
            scale: parts.scale,
            input_weights: parts.input_weights,
            hidden_bias: parts.hidden_bias,
            output_weights: parts.output_weights,
            output_bias: parts.output_bias,
        })
    }

    /// A copy of the quantised parameters ([`Network::from_parts`]'s
    /// input), for a trainer that starts from this network.
    pub fn to_parts(&self) -> NetworkParts {
        NetworkParts {
            game: self.game.clone(),
            inputs: self.inputs,
            hidden: self.hidden,
            buckets: self.buckets,
            scale: self.scale,
            input_weights: self.input_weights.clone(),
            hidden_bias: self.hidden_bias.clone(),
            output_weights: self.output_weights.clone(),
            output_bias: self.output_bias.clone(),
        }
    }

    /// The game whose inputs this network reads.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Evaluation units per unit of the output before the sigmoid.
    pub fn scale(&self) -> i32 {
        self.scale
    }

    /// Number of output buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Whether the first layer is larger than [`LARGE_FIRST_LAYER_BYTES`]:
    /// then an evaluation costs more than a probe of the search's
    /// evaluation cache.
    pub fn is_large(&self) -> bool {
        self.input_weights.len() * std::mem::size_of::<i16>() > LARGE_FIRST_LAYER_BYTES
    }

    /// The file contents of this network (see the module doc).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + 2 * self.input_weights.len());
        let bucketed = self.buckets > 1;
        out.extend_from_slice(if bucketed { MAGIC } else { MAGIC_ONE_BUCKET });
        out.push(self.game.len() as u8);
        out.extend_from_slice(self.game.as_bytes());
        out.extend_from_slice(&(self.inputs as u32).to_le_bytes());
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        if bucketed {
            out.extend_from_slice(&(self.buckets as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.scale.to_le_bytes());
        for layer in [&self.input_weights, &self.hidden_bias, &self.output_weights] {
            for w in layer.iter() {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        for bias in &self.output_bias {
            out.extend_from_slice(&bias.to_le_bytes());
        }
        let checksum = fnv1a(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads a network file's contents, or says why it is not one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let mut reader = Reader { bytes, at: 0 };
        let magic = reader.take(MAGIC.len())?;
        let bucketed = match magic {
            m if m == MAGIC => true,
            m if m == MAGIC_ONE_BUCKET => false,
            _ => return Err("not an Agon network file (bad magic bytes)".into()),
        };
        let name_len = reader.take(1)?[0] as usize;
        let game = std::str::from_utf8(reader.take(name_len)?)
            .map_err(|_| "network file: the game name is not UTF-8".to_string())?
            .to_string();
        let inputs = reader.u32()? as usize;
        let hidden = reader.u32()? as usize;
        let buckets = if bucketed { reader.u32()? as usize } else { 1 };
        let scale = reader.u32()? as i32;
        if hidden == 0 || hidden > MAX_HIDDEN || inputs == 0 || inputs > MAX_INPUTS {
            return Err(format!(
                "network file: {inputs} inputs and {hidden} hidden units are out of range"
            ));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!(
                "network file: {buckets} output buckets (1 to {MAX_BUCKETS})"
            ));
        }
        let input_weights = reader.i16s(inputs * hidden)?;
        let hidden_bias = reader.i16s(hidden)?;
        let output_weights = reader.i16s(buckets * hidden)?;
        let output_bias = (0..buckets)
            .map(|_| reader.u32().map(|b| b as i32))
            .collect::<Result<Vec<i32>, String>>()?;
        let body = reader.at;
        let stored = u64::from_le_bytes(reader.take(8)?.try_into().expect("8 bytes"));
        if reader.at != bytes.len() {
            return Err(format!(
                "network file: {} bytes after the end",
                bytes.len() - reader.at
            ));
        }
        if stored != fnv1a(&bytes[..body]) {
            return Err("network file: checksum mismatch (damaged file)".into());
        }
        Network::from_parts(NetworkParts {
            game,
            inputs,
            hidden,
            buckets,
            scale,
            input_weights,
            hidden_bias,
            output_weights,
            output_bias,
        })
    }

    /// Reads a network file for game `G`, or says why it cannot be used.
    pub fn load_for<G: Game>(path: &str) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let network = Network::from_bytes(&bytes).map_err(|e| format!("'{path}': {e}"))?;
        network
            .check_fits::<G>()
            .map_err(|e| format!("'{path}': {e}"))?;
        Ok(network)
    }

    /// Whether this network reads the inputs of game `G`.
    pub fn check_fits<G: Game>(&self) -> Result<(), String> {
        if self.game != G::NAME {
            return Err(format!("the network is for {}, not {}", self.game, G::NAME));
        }
        match G::learned().map(|learned| learned.inputs()) {
            Some(n) if n == self.inputs => Ok(()),
            Some(n) => Err(format!(
                "the network has {} inputs, {} has {n}",
                self.inputs,
                G::NAME
            )),
            None => Err(format!("{} has no network inputs", G::NAME)),
        }
    }

    /// The score for the side to move of a position whose active inputs
    /// are `active` (each below [`Network::inputs`]; others are ignored),
    /// read by output bucket `bucket` (the last one if it is past them).
    pub fn evaluate(&self, active: &[u16], bucket: usize) -> i32 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, as checked just above.
                return unsafe { self.evaluate_avx2(active, bucket) };
            }
        }
        self.evaluate_portable(active, bucket)
    }

    /// The score of `position` for its side to move; `scratch` holds its
    /// inputs meanwhile. 0 for a game without a learned evaluation (a
    /// network for it cannot be loaded: see [`Network::check_fits`]).
    pub fn evaluate_position<G: Game>(&self, position: &G, scratch: &mut Vec<u16>) -> i32 {
        let Some(learned) = G::learned() else {
            return 0;
        };
        scratch.clear();
        learned.active_inputs(position, scratch);
        self.evaluate(scratch, learned.bucket(position, self.buckets))
    }

    /// [`Network::evaluate`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&self, active: &[u16], bucket: usize) -> i32 {
        self.evaluate_portable(active, bucket)
    }

    /// [`Network::evaluate`] in portable code (vectorised by the compiler
    /// for whatever the target has). The hidden layer is summed in slices
    /// of a width known at compile time, so that a slice's accumulator
    /// stays in vector registers while the rows of the active inputs are
    /// added (with a run-time width it went through the stack: a load and
    /// a store per row, half the evaluation's time).
    #[inline(always)]
    pub fn evaluate_portable(&self, active: &[u16], bucket: usize) -> i32 {
        let bucket = bucket.min(self.buckets - 1);
        let output_weights = &self.output_weights[bucket * self.hidden..][..self.hidden];
        let mut sum = 0i32;
        let mut start = 0;
        while start < self.hidden {
            let left = self.hidden - start;
            let (part, width) = match left {
                128.. => (self.slice_sum::<128>(active, output_weights, start), 128),
                64.. => (self.slice_sum::<64>(active, output_weights, start), 64),
                32.. => (self.slice_sum::<32>(active, output_weights, start), 32),
                16.. => (self.slice_sum::<16>(active, output_weights, start), 16),
                _ => (self.slice_sum::<1>(active, output_weights, start), 1),
            };
            sum = sum.wrapping_add(part);
            start += width;
        }
        let output = i64::from(sum / QA + self.output_bias[bucket]);
        (output * i64::from(self.scale) / i64::from(QA * QB)) as i32
    }

    /// `Σ clamp(acc)² × w` over hidden units `start..start + W`, with the
    /// output weights `output_weights` (one bucket's).
    #[inline(always)]
    fn slice_sum<const W: usize>(
        &self,
        active: &[u16],
        output_weights: &[i16],
        start: usize,
    ) -> i32 {
        let hidden = self.hidden;
        let mut acc = [0i16; W];
        acc.copy_from_slice(&self.hidden_bias[start..start + W]);
        for &input in active {
            let input = input as usize;
            if input >= self.inputs {
                continue;
            }
            let at = input * hidden + start;
            let row: &[i16; W] = self.input_weights[at..at + W]
                .try_into()
                .expect("a slice of W weights");
            for (a, &w) in acc.iter_mut().zip(row) {
                *a = a.saturating_add(w);
            }
        }
        let mut sum = 0i32;
        for (&a, &w) in acc.iter().zip(&output_weights[start..start + W]) {
            // clipped × w fits an i16 (255 × 127); multiplying that by
            // clipped again into i32 is the multiply-add of 16-bit pairs
            // the vector units have.
            let clipped = a.clamp(0, QA as i16);
            let weighted = clipped.wrapping_mul(w);
            sum = sum.wrapping_add(i32::from(weighted) * i32::from(clipped));
        }
        sum
    }
}

/// Reads fields from a byte slice, failing cleanly at its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            // Name the size the next field needs, not where it starts: a
            // file cut inside a weight block is far longer than the header.
            return Err(format!(
                "network file truncated ({} bytes, the next field needs {})",
                self.bytes.len(),
                self.at.saturating_add(n)
            ));
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, String> {
        let bytes = self.take(n.checked_mul(2).ok_or("network file: size overflow")?)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect())
    }
}

/// The 64-bit FNV-1a hash (the file checksum).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The embedded network for `position`'s variant: none where the game's
/// shipped network was not trained for it
/// ([`LearnedEvaluation::embedded_network_fits`](crate::game::LearnedEvaluation::embedded_network_fits)).
pub fn embedded_for<G: Game>(position: &G) -> Option<Arc<Network>> {
    let learned = G::learned()?;
    embedded::<G>().filter(|_| learned.embedded_network_fits(position))
}

/// The network embedded in the binary for game `G`, parsed once.
pub fn embedded<G: Game>() -> Option<Arc<Network>> {
    type Cache = Mutex<Vec<(&'static str, Option<Arc<Network>>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, network)) = cache.iter().find(|(name, _)| *name == G::NAME) {
        return network.clone();
    }
    // A shipped file that does not load is a build defect; the tests load
    // every embedded network, so here it only means "no network".
    let network = G::learned()
        .and_then(|learned| learned.embedded_network())
        .and_then(|bytes| Network::from_bytes(bytes).ok())
        .filter(|n| n.check_fits::<G>().is_ok())
        .map(Arc::new);
    cache.push((G::NAME, network.clone()));
    network
}
