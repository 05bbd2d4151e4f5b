//! CTOR's secret squares (RULES.md §6, option `Secrets`): each side's five
//! hidden squares, what is public about them (used squares, squares chosen
//! this turn and those still open for substitution), the option values that
//! tell an engine its own squares, and the engine's own choice of squares.
//!
//! Position-string field (a sixth field, present exactly when secrets are
//! played): `<used by x>/<used by o>/<chosen>/<pending>`, each a
//! comma-separated list of squares in increasing order or `-`:
//! - *used*: the side's secret squares already used up (public once used);
//! - *chosen*: squares the side to move has put a chip on in this turn (any
//!   of them may be a secret square of the other side);
//! - *pending*: squares the other side chose in the turn just ended that the
//!   side to move may still substitute (`s<sq>`, in increasing order, before
//!   any other operation of its turn).
//!
//! The unused squares themselves are never written: they come from the
//! options `SecretX`/`SecretO`, which each engine gets for its own side only.

use rand::RngExt;

/// How many secret squares each side has.
pub const SECRET_COUNT: u32 = 5;

/// The secret-square state of a position. All empty when secrets are off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SecretState {
    /// Whether this game is played with secret squares.
    pub on: bool,
    /// Whether each side's squares are known to this position (then its due
    /// substitutions are generated, and only those are legal).
    pub known: [bool; 2],
    /// Each side's unused secret squares, where known.
    pub unused: [u128; 2],
    /// Each side's used secret squares (public).
    pub used: [u128; 2],
    /// Squares the side to move chose in this turn.
    pub chosen: u128,
    /// Squares the other side chose in the turn just ended, still open for
    /// substitution by the side to move.
    pub pending: u128,
    /// Squares known not to be an unused secret of each side: chosen by the
    /// other side without a substitution following. Observation, not part
    /// of the position string or the hash.
    pub cleared: [u128; 2],
    /// The expectation model of each side's squares, in positions a search
    /// made (`HiddenInfo expect`).
    pub risk: [Option<Risk>; 2],
}

/// A side's hidden secret squares taken in expectation: each candidate
/// square is secret with the same probability, and each substitution that
/// may happen is credited to that side by its expected value instead of
/// being played. The search then sees the risk of every square it
/// chooses without sampling, and without dividing its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Risk {
    /// Squares that may still be one of them.
    pub candidates: u128,
    /// How many of them are left unused.
    pub left: u32,
    /// Value credited so far for substitutions that may have happened, in
    /// centi-chips for `side`.
    pub expected: i32,
}

impl Risk {
    /// The expected value for `side` of substitutions at `squares`, where
    /// `chip_of_other` are the chips of the other side (a substitution there
    /// swings two chips, on an empty square one).
    pub fn value(&self, squares: u128, chip_of_other: u128) -> i32 {
        let open = squares & self.candidates;
        if open == 0 || self.left == 0 {
            return 0;
        }
        let swings = 2 * (open & chip_of_other).count_ones() + (open & !chip_of_other).count_ones();
        let value =
            100 * swings as i64 * i64::from(self.left) / i64::from(self.candidates.count_ones());
        value as i32
    }
}

impl SecretState {
    /// Secret squares `side` (0 = x, 1 = o) has used.
    pub fn used_count(&self, side: usize) -> u32 {
        self.used[side].count_ones()
    }

    /// Whether `side` may still have a substitution.
    pub fn has_unused(&self, side: usize) -> bool {
        self.used_count(side) < SECRET_COUNT
    }

    /// The one substitution due now for `side` to move when its squares
    /// are known (the lowest pending square among its unused ones).
    pub fn due(&self, side: usize) -> Option<u8> {
        if !self.on || !self.known[side] || !self.has_unused(side) {
            return None;
        }
        let due = self.pending & self.unused[side];
        (due != 0).then(|| due.trailing_zeros() as u8)
    }

    /// Squares `side` to move may substitute when its squares are unknown
    /// here (every pending square not used before), empty when they are
    /// known.
    pub fn possible(&self, side: usize) -> u128 {
        if !self.on || self.known[side] || !self.has_unused(side) {
            return 0;
        }
        self.pending & !self.used[side]
    }

    /// Whether `s<sq>` is legal for `side` to move.
    pub fn may_substitute(&self, side: usize, sq: u8) -> bool {
        match self.due(side) {
            Some(due) => due == sq,
            None => self.possible(side) & (1u128 << sq) != 0,
        }
    }

    /// Records the substitution of `sq` by `side`.
    pub fn substitute(&mut self, side: usize, sq: u8) {
        let bit = 1u128 << sq;
        self.used[side] |= bit;
        self.unused[side] &= !bit;
        // Increasing order: this square and every lower one are settled.
        self.pending &= !((bit << 1).wrapping_sub(1));
    }

    /// Records an operation other than a substitution by `side`, putting a
    /// chip on `target` (none for `end`): the pending squares not
    /// substituted are now known not to be secret, and `target` is chosen.
    pub fn operate(&mut self, side: usize, target: Option<u8>) {
        if self.pending != 0 {
            self.cleared[side] |= self.pending;
            self.pending = 0;
        }
        if let Some(sq) = target {
            self.chosen |= 1u128 << sq;
        }
    }

    /// The turn passes: what was chosen becomes pending for the other side.
    pub fn pass_turn(&mut self) {
        self.pending = self.chosen;
        self.chosen = 0;
    }

    /// The hash of the secret state (zero when off): the known unused
    /// squares matter to the legal moves, so determinised searches of
    /// different samples never share table entries.
    pub fn key(&self) -> u64 {
        if !self.on {
            return 0;
        }
        let known = u64::from(self.known[0]) | u64::from(self.known[1]) << 1;
        mask_key(self.unused[0], 1)
            ^ mask_key(self.unused[1], 2)
            ^ mask_key(self.used[0], 3)
            ^ mask_key(self.used[1], 4)
            ^ mask_key(self.chosen, 5)
            ^ mask_key(self.pending, 6)
            ^ mix(0x5EC2_E75E ^ known)
            ^ risk_key(self.risk[0], 7)
            ^ risk_key(self.risk[1], 8)
    }

    /// The position-string field.
    pub fn field(&self) -> String {
        [self.used[0], self.used[1], self.chosen, self.pending]
            .map(square_list)
            .join("/")
    }

    /// Reads the position-string field for a board of `squares` squares.
    pub fn parse_field(field: &str, squares: u32) -> Result<[u128; 4], String> {
        let parts: Vec<&str> = field.split('/').collect();
        if parts.len() != 4 {
            return Err(format!(
                "secret-square field '{field}' must be <used by x>/<used by o>/<chosen>/<pending>"
            ));
        }
        let mut masks = [0u128; 4];
        for (mask, part) in masks.iter_mut().zip(&parts) {
            *mask = parse_square_list(part, squares)?;
        }
        if masks[..2]
            .iter()
            .any(|used| used.count_ones() > SECRET_COUNT)
        {
            return Err(format!(
                "a side has at most {SECRET_COUNT} secret squares to use"
            ));
        }
        Ok(masks)
    }
}

/// One side's secret squares as an option value (`SecretX`, `SecretO`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SecretChoice {
    /// Not known to this engine (`-`).
    #[default]
    Unknown,
    /// These five squares (given, or picked by the engine for `auto`).
    Squares {
        /// The squares, bit = square − 1.
        mask: u128,
        /// Whether the engine picked them (`auto`): they are picked anew
        /// when the board size changes.
        auto: bool,
    },
}

impl SecretChoice {
    /// Reads an option value: `-`, `auto`, or five distinct squares like
    /// `3,17,22,40,61`, for a board of `squares` squares. The error never
    /// repeats the squares (an engine's squares are never printed).
    pub fn parse(name: &str, value: &str, squares: u32) -> Result<SecretChoice, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "-" | "" => return Ok(SecretChoice::Unknown),
            "auto" => {
                return Ok(SecretChoice::Squares {
                    mask: choose_squares(squares, &mut rand::rng()),
                    auto: true,
                });
            }
            _ => {}
        }
        let usage = format!(
            "{name} takes five distinct squares 1 to {squares} separated by commas, '-' or 'auto'"
        );
        let mut mask = 0u128;
        let mut count = 0;
        for part in crate::game::split_list(name, value.trim(), ',').map_err(|_| usage.clone())? {
            let number: u32 =
                crate::game::parse_counter(part, "square").map_err(|_| usage.clone())?;
            if number == 0 || number > squares {
                return Err(usage);
            }
            mask |= 1u128 << (number - 1);
            count += 1;
        }
        if count != SECRET_COUNT || mask.count_ones() != SECRET_COUNT {
            return Err(usage);
        }
        Ok(SecretChoice::Squares { mask, auto: false })
    }

    /// The squares, if known.
    pub fn mask(&self) -> Option<u128> {
        match self {
            SecretChoice::Unknown => None,
            SecretChoice::Squares { mask, .. } => Some(*mask),
        }
    }

    /// The choice on a board of `squares` squares: `auto` squares are
    /// picked anew, given squares beyond the board are an error.
    pub fn resized(self, name: &str, squares: u32) -> Result<SecretChoice, String> {
        match self {
            SecretChoice::Squares { auto: true, .. } => SecretChoice::parse(name, "auto", squares),
            SecretChoice::Squares { mask, .. } if mask >> squares != 0 => Err(format!(
                "{name} has a square beyond {squares}; set {name} again for this size"
            )),
            other => Ok(other),
        }
    }

    /// As `query secrets` writes it: the squares or `-`.
    pub fn text(&self) -> String {
        self.mask().map_or_else(|| "-".to_owned(), square_list)
    }
}

/// The engine's own choice of five secret squares on a board of `squares`
/// squares (`auto`): spread out, each as far as possible (torus
/// distance, the larger of the row and column steps) from those picked
/// before, starting from a random square, ties broken at random. (A
/// compact cross of five scored 8–17 against random squares at 100 ms per
/// operation: a chip gained inside one's own cluster adds little.)
pub fn choose_squares(squares: u32, rng: &mut impl rand::Rng) -> u128 {
    let n = if squares == 100 { 10 } else { 8 };
    let distance = |a: u32, b: u32| {
        let step = |x: u32, y: u32| {
            let d = x.abs_diff(y);
            d.min(n - d)
        };
        step(a / n, b / n).max(step(a % n, b % n))
    };
    let mut picked = vec![rng.random_range(0..squares)];
    while picked.len() < SECRET_COUNT as usize {
        let spread = |sq: u32| picked.iter().map(|&p| distance(sq, p)).min().unwrap_or(0);
        let best = (0..squares).map(spread).max().unwrap_or(0);
        let ties: Vec<u32> = (0..squares).filter(|&sq| spread(sq) == best).collect();
        picked.push(ties[rng.random_range(0..ties.len())]);
    }
    picked.iter().fold(0u128, |mask, &sq| mask | 1u128 << sq)
}

/// Five distinct squares drawn uniformly from a board of `squares` squares
/// (the referee's random choice).
pub fn random_squares(squares: u32, rng: &mut impl rand::Rng) -> u128 {
    sample_squares((1u128 << squares) - 1, SECRET_COUNT, rng)
}

/// `count` distinct squares drawn uniformly from `candidates` (all of them
/// when there are fewer).
pub fn sample_squares(candidates: u128, count: u32, rng: &mut impl rand::Rng) -> u128 {
    let mut left = candidates;
    let mut mask = 0u128;
    for _ in 0..count.min(candidates.count_ones()) {
        let pick = rng.random_range(0..left.count_ones());
        let mut rest = left;
        for _ in 0..pick {
            rest &= rest - 1;
        }
        let bit = rest & rest.wrapping_neg();
        mask |= bit;
        left &= !bit;
    }
    mask
}

/// Squares of a mask written 1-based, comma-separated, or `-`.
pub fn square_list(mask: u128) -> String {
    if mask == 0 {
        return "-".into();
    }
    let numbers: Vec<String> = (0..u128::BITS)
        .filter(|&sq| mask & (1u128 << sq) != 0)
        .map(|sq| (sq + 1).to_string())
        .collect();
    numbers.join(",")
}

fn parse_square_list(text: &str, squares: u32) -> Result<u128, String> {
    if text == "-" {
        return Ok(0);
    }
    let mut mask = 0u128;
    let mut last = 0;
    for part in text.split(',') {
        let number: u32 = crate::game::parse_counter(part, "secret-field square")?;
        if number == 0 || number > squares || number <= last {
            return Err(format!(
                "secret-field squares must be increasing, 1 to {squares}, not '{text}'"
            ));
        }
        last = number;
        mask |= 1u128 << (number - 1);
    }
    Ok(mask)
}

fn risk_key(risk: Option<Risk>, salt: u64) -> u64 {
    risk.map_or(0, |r| {
        mask_key(r.candidates, salt) ^ mix(u64::from(r.expected as u32) ^ salt << 40)
    })
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn mask_key(mask: u128, salt: u64) -> u64 {
    let low = mix(mask as u64 ^ salt.wrapping_mul(0xA24B_AED4_963E_E407));
    let high = mix((mask >> 64) as u64 ^ salt.wrapping_mul(0x9FB2_1C65_1E98_DF25));
    low ^ high.rotate_left(29)
}
