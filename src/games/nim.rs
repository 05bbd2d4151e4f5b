//! Nim (RULES.md §3): heaps of objects, take any number from one heap.
//!
//! Perfect play by nim-sum, for normal and misère play, at any heap count and
//! size (heaps are `u64`). Position `<h1>/<h2>/…/<hn> <side>`, move
//! `<heap>:<count>` with heaps numbered from 1.

use crate::game::{
    Game, GameOptions, OptionKind, OptionSpec, Outcome, Player, Proven, SolveBudget, Solved,
    parse_check, parse_counter, split_fields,
};

/// Nim's options: the start heaps and the play convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NimOptions {
    /// Heaps of the start position (`Heaps`, e.g. `3/4/5`).
    pub heaps: Vec<u64>,
    /// Misère play: whoever takes the last object loses (`Misere`).
    pub misere: bool,
}

impl Default for NimOptions {
    fn default() -> Self {
        NimOptions {
            heaps: vec![3, 4, 5],
            misere: false,
        }
    }
}

impl GameOptions for NimOptions {
    fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                name: "Heaps",
                kind: OptionKind::Text,
                default: "3/4/5".into(),
            },
            OptionSpec {
                name: "Misere",
                kind: OptionKind::Check,
                default: "false".into(),
            },
        ]
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name.to_ascii_lowercase().as_str() {
            "heaps" => self.heaps = parse_heaps(value)?,
            "misere" => self.misere = parse_check("Misere", value)?,
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }
}

/// Parses `3/4/5`: one or more heap sizes separated by `/`.
fn parse_heaps(text: &str) -> Result<Vec<u64>, String> {
    crate::game::split_list("Heaps", text, '/')
        .map_err(|e| format!("{e}; heaps are sizes separated by '/', e.g. 3/4/5"))?
        .into_iter()
        .map(|field| parse_counter::<u64>(field, "heap size"))
        .collect()
}

/// A move: remove `count` (≥ 1) objects from heap `heap` (0-based inside,
/// written 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimMove {
    /// Heap index, 0-based.
    pub heap: u32,
    /// Objects removed, at least 1.
    pub count: u64,
}

/// A Nim position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nim {
    heaps: Vec<u64>,
    side: Player,
    misere: bool,
    hash: u64,
}

const SIDE_KEY: u64 = 0x5A17_3C4B_9E1D_2F60;

/// Zobrist-like key of one heap: a strong mix of its index and size, so that
/// sizes up to `u64::MAX` need no table.
fn heap_key(index: usize, size: u64) -> u64 {
    let mut z = size ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Nim {
    fn new(heaps: Vec<u64>, side: Player, misere: bool) -> Nim {
        let mut nim = Nim {
            heaps,
            side,
            misere,
            hash: 0,
        };
        nim.hash = nim.hash_from_scratch();
        nim
    }

    /// The heap sizes.
    pub fn heaps(&self) -> &[u64] {
        &self.heaps
    }

    fn nim_sum(&self) -> u64 {
        self.heaps.iter().fold(0, |acc, &h| acc ^ h)
    }

    /// Whether the side to move wins with perfect play.
    pub fn is_winning(&self) -> bool {
        let big_heaps = self.heaps.iter().filter(|&&h| h > 1).count();
        if self.misere && big_heaps == 0 {
            // Only heaps of 0 and 1 left: players alternate taking single
            // objects; the mover wins when an even number of ones remain.
            let ones = self.heaps.iter().filter(|&&h| h == 1).count();
            return ones % 2 == 0;
        }
        self.nim_sum() != 0
    }

    /// The move perfect play chooses in a winning position.
    fn winning_move(&self) -> Option<NimMove> {
        let sum = self.nim_sum();
        let big_heaps = self.heaps.iter().filter(|&&h| h > 1).count();
        if self.misere && big_heaps <= 1 {
            return self.misere_endgame_move();
        }
        let (heap, &size) = self.heaps.iter().enumerate().find(|&(_, &h)| h ^ sum < h)?;
        Some(NimMove {
            heap: heap as u32,
            count: size - (size ^ sum),
        })
    }

    /// Misère play with at most one heap above 1: leave an odd number of
    /// heaps of size 1 and nothing bigger.
    fn misere_endgame_move(&self) -> Option<NimMove> {
        let ones = self.heaps.iter().filter(|&&h| h == 1).count();
        match self.heaps.iter().position(|&h| h > 1) {
            Some(big) => {
                let size = self.heaps[big];
                // Reduce the big heap to 1 when that makes the ones odd,
                // otherwise empty it.
                let keep = if ones % 2 == 0 { 1 } else { 0 };
                Some(NimMove {
                    heap: big as u32,
                    count: size - keep,
                })
            }
            None if ones % 2 == 0 && ones > 0 => {
                let heap = self.heaps.iter().position(|&h| h == 1)?;
                Some(NimMove {
                    heap: heap as u32,
                    count: 1,
                })
            }
            None => None,
        }
    }

    /// The delaying move of a lost position: one object from the largest heap.
    fn delaying_move(&self) -> Option<NimMove> {
        let (heap, _) = self
            .heaps
            .iter()
            .enumerate()
            .filter(|&(_, &h)| h > 0)
            .max_by_key(|&(i, &h)| (h, std::cmp::Reverse(i)))?;
        Some(NimMove {
            heap: heap as u32,
            count: 1,
        })
    }
}

impl Game for Nim {
    type Move = NimMove;
    type Options = NimOptions;
    const NAME: &'static str = "nim";

    /// Heap in the top byte, count below; `None` for heaps past 255 or
    /// counts of 2^24 and more.
    fn move_code(mv: NimMove) -> Option<u32> {
        (mv.heap < 256 && mv.count < 1 << 24).then_some(mv.heap << 24 | mv.count as u32)
    }

    fn move_from_code(code: u32) -> Option<NimMove> {
        let count = (code & 0xFF_FFFF) as u64;
        (count > 0).then_some(NimMove {
            heap: code >> 24,
            count,
        })
    }

    fn start(options: &NimOptions) -> Nim {
        Nim::new(options.heaps.clone(), Player::X, options.misere)
    }

    fn from_fen(fen: &str, options: &NimOptions) -> Result<Nim, String> {
        let fields = split_fields(fen, 2, "<h1>/<h2>/…/<hn> <side>")?;
        let heaps = parse_heaps(fields[0])?;
        let side = Player::parse(fields[1])?;
        Ok(Nim::new(heaps, side, options.misere))
    }

    fn fen(&self) -> String {
        let heaps: Vec<String> = self.heaps.iter().map(u64::to_string).collect();
        format!("{} {}", heaps.join("/"), self.side.to_char())
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn generate_moves(&self, moves: &mut Vec<NimMove>) {
        moves.clear();
        for (heap, &size) in self.heaps.iter().enumerate() {
            moves.extend((1..=size).map(|count| NimMove {
                heap: heap as u32,
                count,
            }));
        }
    }

    fn play(&mut self, mv: NimMove) {
        let heap = mv.heap as usize;
        let old = self.heaps[heap];
        let new = old - mv.count;
        self.heaps[heap] = new;
        self.hash ^= heap_key(heap, old) ^ heap_key(heap, new) ^ SIDE_KEY;
        self.side = self.side.other();
    }

    fn end_reason(&self) -> Option<&'static str> {
        self.outcome().map(|_| "last object taken")
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.heaps.iter().any(|&h| h > 0) {
            return None;
        }
        // The player who is not to move took the last object.
        let last_taker = self.side.other();
        Some(if self.misere {
            Outcome::Win(self.side)
        } else {
            Outcome::Win(last_taker)
        })
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let side = if self.side == Player::O { SIDE_KEY } else { 0 };
        self.heaps
            .iter()
            .enumerate()
            .fold(side, |acc, (i, &h)| acc ^ heap_key(i, h))
    }

    fn evaluate(&self) -> i32 {
        if self.is_winning() { 100 } else { -100 }
    }

    fn parse_move(&self, text: &str) -> Result<NimMove, String> {
        let (heap, count) = text
            .split_once(':')
            .ok_or_else(|| format!("nim move '{text}' must be <heap>:<count>"))?;
        let heap: u64 = parse_counter(heap, "heap number")?;
        let count: u64 = parse_counter(count, "count")?;
        if heap == 0 || heap > self.heaps.len() as u64 {
            return Err(format!(
                "heap {heap} does not exist (heaps are 1 to {})",
                self.heaps.len()
            ));
        }
        if count == 0 {
            return Err("a nim move takes at least one object".into());
        }
        Ok(NimMove {
            heap: (heap - 1) as u32,
            count,
        })
    }

    fn move_to_string(&self, mv: NimMove) -> String {
        format!("{}:{}", mv.heap + 1, mv.count)
    }

    fn is_legal(&self, mv: NimMove) -> bool {
        self.heaps
            .get(mv.heap as usize)
            .is_some_and(|&size| mv.count >= 1 && mv.count <= size)
    }

    fn count_moves(&self) -> u64 {
        // Saturates at u64::MAX, which perft therefore refuses as a count.
        self.heaps
            .iter()
            .fold(0u64, |acc, &h| acc.saturating_add(h))
    }

    fn solve(&self, _budget: &SolveBudget) -> Option<Solved<NimMove>> {
        if self.outcome().is_some() {
            return None;
        }
        if self.is_winning() {
            let best = self.winning_move()?;
            Some(Solved {
                best,
                value: Proven::Win(None),
                margin: None,
            })
        } else {
            let best = self.delaying_move()?;
            Some(Solved {
                best,
                value: Proven::Loss(None),
                margin: None,
            })
        }
    }

    fn diagram(&self) -> String {
        let mut out = String::new();
        for (i, &h) in self.heaps.iter().enumerate() {
            let bar = if h <= 40 {
                "|".repeat(h as usize)
            } else {
                "|".repeat(40) + "…"
            };
            out.push_str(&format!("heap {:>2}: {:>20} {}\n", i + 1, h, bar));
        }
        let rule = if self.misere { "misère" } else { "normal" };
        out.push_str(&format!(
            "{} to move, {rule} play, nim-sum {}\n",
            self.side.to_char(),
            self.nim_sum()
        ));
        out
    }
}
