//! Board geometry of Dots and Boxes: line numbering, which lines bound each
//! box, and the board symmetries as bit permutations. One [`Geometry`] per
//! size, built once and shared.

use std::sync::OnceLock;

/// Largest number of box rows or columns.
pub const MAX_SIDE: usize = 5;

/// Lines per lookup of a symmetry table: 4 keeps the eight tables of a
/// square board in 10 KiB, within the first-level cache (bytes, 128 KiB,
/// were slower).
const CHUNK_BITS: usize = 4;

/// One symmetry's lookup table, chunk by chunk.
type SymmetryTable = [[u64; 1 << CHUNK_BITS]; 64 / CHUNK_BITS];

/// Marks "no box" in [`Geometry::line_boxes`].
pub const NO_BOX: u8 = u8::MAX;

/// Slots of [`SymmetricKeys`]: the most symmetries a board has.
const KEY_SLOTS: usize = 8;

/// A position's line set under every board symmetry, each with the corner
/// rule applied ([`Geometry::corners_first`]): their minimum is
/// [`Geometry::canonical`]. A search keeps them up to date one line at a
/// time ([`Geometry::keys_with`]: an OR per symmetry) instead of mapping
/// the whole position at every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymmetricKeys {
    /// One image per symmetry; a rectangle's four are repeated to fill the
    /// eight slots, which leaves the minimum unchanged.
    images: [u64; KEY_SLOTS],
}

/// The fixed facts of an `rows × cols` board.
#[derive(Debug)]
pub struct Geometry {
    /// Rows of boxes.
    pub rows: usize,
    /// Columns of boxes.
    pub cols: usize,
    /// Number of lines.
    pub lines: usize,
    /// Number of boxes.
    pub boxes: usize,
    /// All lines drawn.
    pub full: u64,
    /// The four lines of each box (box `r * cols + c`, row `r` from the bottom).
    pub box_lines: Vec<u64>,
    /// The (up to two) boxes each line bounds, [`NO_BOX`] for none.
    pub line_boxes: Vec<[u8; 2]>,
    /// The two dots of each line as `(file, rank)`, lower/left dot first.
    pub line_dots: Vec<[(u8, u8); 2]>,
    /// Symmetries (identity first) as lookup tables by chunks of
    /// [`CHUNK_BITS`] lines: `syms[s][chunk][value]` holds the image of
    /// `value << (CHUNK_BITS * chunk)`.
    syms: Vec<SymmetryTable>,
    /// The image of each line under each symmetry (`images[s][line]`).
    images: Vec<[u8; 64]>,
    /// The inverse permutations: `preimages[s][images[s][l]] == l`.
    preimages: Vec<[u8; 64]>,
    /// The two border lines of each corner box (lower index first). They
    /// are interchangeable: both join the box to the outside, so a position
    /// with only one of them drawn has the value of the one with the other.
    corner_pairs: Vec<(u8, u8)>,
    /// For each line, its corner pair (lower index first) if it is a
    /// corner box's border line.
    corner_pair_of: [Option<(u8, u8)>; 64],
    /// The symmetries as line permutations that send the lower line of a
    /// corner pair to the lower line of the image pair (the geometric image
    /// composed with a swap of the pair, which the corner rule allows).
    /// They commute with [`Geometry::corners_first`], so the images of a
    /// normalised line set stay normalised. Rectangles repeat their four.
    key_images: [[u8; 64]; KEY_SLOTS],
}

impl Geometry {
    /// The shared geometry of a size (`rows`, `cols` in `1..=5`).
    pub fn get(rows: usize, cols: usize) -> &'static Geometry {
        static ALL: [OnceLock<Geometry>; MAX_SIDE * MAX_SIDE] =
            [const { OnceLock::new() }; MAX_SIDE * MAX_SIDE];
        let r = rows.clamp(1, MAX_SIDE);
        let c = cols.clamp(1, MAX_SIDE);
        ALL[(r - 1) * MAX_SIDE + (c - 1)].get_or_init(|| Geometry::build(r, c))
    }

    /// Number of horizontal lines; vertical lines are numbered after them.
    pub fn horizontal(&self) -> usize {
        (self.rows + 1) * self.cols
    }

    /// The line between two adjacent dots, given as `(file, rank)`, in
    /// either order; `None` when they are not adjacent or off the board.
    pub fn line_between(&self, a: (usize, usize), b: (usize, usize)) -> Option<usize> {
        let (lo, hi) = if (a.1, a.0) <= (b.1, b.0) {
            (a, b)
        } else {
            (b, a)
        };
        if hi.0 > self.cols || hi.1 > self.rows {
            return None;
        }
        if lo.1 == hi.1 && lo.0 + 1 == hi.0 {
            Some(lo.1 * self.cols + lo.0)
        } else if lo.0 == hi.0 && lo.1 + 1 == hi.1 {
            Some(self.horizontal() + lo.1 * (self.cols + 1) + lo.0)
        } else {
            None
        }
    }

    /// Number of drawn sides of box `b`.
    #[inline]
    pub fn sides(&self, lines: u64, b: usize) -> u32 {
        (lines & self.box_lines[b]).count_ones()
    }

    /// Number of completed boxes.
    pub fn completed(&self, lines: u64) -> u32 {
        self.box_lines.iter().filter(|&&m| lines & m == m).count() as u32
    }

    /// Boxes that drawing `line` completes (given the lines drawn before).
    #[inline]
    pub fn completes(&self, lines: u64, line: usize) -> u32 {
        let after = lines | 1 << line;
        self.line_boxes[line]
            .iter()
            .filter(|&&b| {
                b != NO_BOX && after & self.box_lines[b as usize] == self.box_lines[b as usize]
            })
            .count() as u32
    }

    /// The smallest image of `lines` under the board symmetries, a key
    /// shared by symmetric positions.
    pub fn canonical(&self, lines: u64) -> u64 {
        self.canonical_with_symmetry(lines).0
    }

    /// [`Geometry::canonical`] and the symmetry that maps `lines` onto it
    /// (the first one when several do), for [`Geometry::to_canonical`].
    pub fn canonical_with_symmetry(&self, lines: u64) -> (u64, usize) {
        self.canonical_of(&self.keys(lines))
    }

    /// The [`SymmetricKeys`] of `lines`, computed from scratch.
    pub fn keys(&self, lines: u64) -> SymmetricKeys {
        let normalised = self.corners_first(lines);
        let mut images = [0u64; KEY_SLOTS];
        for (image, perm) in images.iter_mut().zip(&self.key_images) {
            let mut rest = normalised;
            while rest != 0 {
                let line = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                *image |= 1 << perm[line];
            }
        }
        SymmetricKeys { images }
    }

    /// The keys of `lines | 1 << line` from `keys`, those of `lines` (in
    /// which `line` is undrawn).
    #[inline]
    pub fn keys_with(&self, keys: &SymmetricKeys, lines: u64, line: usize) -> SymmetricKeys {
        // In the normalised set a corner pair's first drawn line is always
        // the lower one, its second the higher.
        let normalised = match self.corner_pair_of[line] {
            Some((a, b)) if lines >> a & 1 == 1 || lines >> b & 1 == 1 => b,
            Some((a, _)) => a,
            None => line as u8,
        } as usize;
        let mut images = keys.images;
        for (image, perm) in images.iter_mut().zip(&self.key_images) {
            *image |= 1 << perm[normalised];
        }
        SymmetricKeys { images }
    }

    /// The canonical key of a position from its keys, and the first
    /// symmetry giving it (as [`Geometry::canonical_with_symmetry`]).
    #[inline]
    pub fn canonical_of(&self, keys: &SymmetricKeys) -> (u64, usize) {
        let least = keys.images.iter().copied().fold(u64::MAX, u64::min);
        let sym = keys.images.iter().position(|&k| k == least).unwrap_or(0);
        (least, sym)
    }

    /// How many symmetries the board has: 8 for a square, 4 for a
    /// rectangle (the identity is symmetry 0).
    pub fn symmetry_count(&self) -> usize {
        self.syms.len()
    }

    /// The image of the line set `lines` under symmetry `sym`, which must
    /// be below [`Geometry::symmetry_count`].
    #[inline]
    pub fn image(&self, sym: usize, lines: u64) -> u64 {
        let chunks = self.lines.div_ceil(CHUNK_BITS);
        let mask = (1 << CHUNK_BITS) - 1;
        let table = &self.syms[sym];
        (0..chunks).fold(0u64, |acc, chunk| {
            acc | table[chunk][(lines >> (CHUNK_BITS * chunk)) as usize & mask]
        })
    }

    /// `lines` with each corner box that has one border line drawn
    /// having the first of the two: an equivalent position (see
    /// `corner_pairs`).
    #[inline]
    pub fn corners_first(&self, mut lines: u64) -> u64 {
        for &(a, b) in &self.corner_pairs {
            if lines >> b & 1 == 1 && lines >> a & 1 == 0 {
                lines ^= 1 << a | 1 << b;
            }
        }
        lines
    }

    /// The other border line of a corner box bordered by `line`, if any.
    pub fn corner_partner(&self, line: usize) -> Option<usize> {
        let (a, b) = self.corner_pair_of[line]?;
        Some(if line == a as usize { b } else { a } as usize)
    }

    /// The image of `line` under symmetry `sym`.
    #[inline]
    pub fn to_canonical(&self, sym: usize, line: usize) -> usize {
        self.images[sym][line] as usize
    }

    /// The line whose image under symmetry `sym` is `line`.
    #[inline]
    pub fn from_canonical(&self, sym: usize, line: usize) -> usize {
        self.preimages[sym][line] as usize
    }

    fn build(rows: usize, cols: usize) -> Geometry {
        let h = (rows + 1) * cols;
        let lines = h + rows * (cols + 1);
        let boxes = rows * cols;
        let mut box_lines = vec![0u64; boxes];
        let mut line_boxes = vec![[NO_BOX; 2]; lines];
        for r in 0..rows {
            for c in 0..cols {
                let b = r * cols + c;
                let sides = [
                    r * cols + c,
                    (r + 1) * cols + c,
                    h + r * (cols + 1) + c,
                    h + r * (cols + 1) + c + 1,
                ];
                for l in sides {
                    box_lines[b] |= 1 << l;
                    let slot = if line_boxes[l][0] == NO_BOX { 0 } else { 1 };
                    line_boxes[l][slot] = b as u8;
                }
            }
        }
        let mut line_dots = Vec::with_capacity(lines);
        for y in 0..=rows {
            for x in 0..cols {
                line_dots.push([(x as u8, y as u8), (x as u8 + 1, y as u8)]);
            }
        }
        for y in 0..rows {
            for x in 0..=cols {
                line_dots.push([(x as u8, y as u8), (x as u8, y as u8 + 1)]);
            }
        }
        let mut geometry = Geometry {
            rows,
            cols,
            lines,
            boxes,
            full: if lines == 64 {
                u64::MAX
            } else {
                (1u64 << lines) - 1
            },
            box_lines,
            line_boxes,
            line_dots,
            syms: Vec::new(),
            images: Vec::new(),
            preimages: Vec::new(),
            corner_pairs: Vec::new(),
            corner_pair_of: [None; 64],
            key_images: [[0; 64]; KEY_SLOTS],
        };
        geometry.corner_pairs = geometry.corner_border_pairs();
        for &(a, b) in &geometry.corner_pairs {
            if a != b {
                geometry.corner_pair_of[a as usize] = Some((a, b));
                geometry.corner_pair_of[b as usize] = Some((a, b));
            }
        }
        geometry.images = geometry.line_images();
        geometry.key_images = geometry.corner_preserving_images();
        geometry.preimages = geometry
            .images
            .iter()
            .map(|image| {
                let mut inverse = [0u8; 64];
                for (line, &to) in image.iter().enumerate().take(geometry.lines) {
                    inverse[to as usize] = line as u8;
                }
                inverse
            })
            .collect();
        geometry.syms = geometry.symmetry_tables();
        geometry
    }

    /// [`Geometry::key_images`]: each symmetry's line image, with the two
    /// lines of an image corner pair exchanged where the geometric image
    /// sends the lower line to the higher one.
    fn corner_preserving_images(&self) -> [[u8; 64]; KEY_SLOTS] {
        let mut perms = [[0u8; 64]; KEY_SLOTS];
        for (slot, perm) in perms.iter_mut().enumerate() {
            let image = &self.images[slot % self.images.len()];
            *perm = *image;
            for &(a, b) in &self.corner_pairs {
                if image[a as usize] > image[b as usize] {
                    perm.swap(a as usize, b as usize);
                }
            }
        }
        perms
    }

    /// Lookup tables of every symmetry of the board (4 for rectangles, 8
    /// for squares).
    fn symmetry_tables(&self) -> Vec<SymmetryTable> {
        self.images
            .iter()
            .map(|image| {
                let mut table = [[0u64; 1 << CHUNK_BITS]; 64 / CHUNK_BITS];
                for (chunk, row) in table.iter_mut().enumerate() {
                    for (value, out) in row.iter_mut().enumerate() {
                        *out = (0..CHUNK_BITS)
                            .filter(|bit| value >> bit & 1 == 1)
                            .map(|bit| CHUNK_BITS * chunk + bit)
                            .filter(|&l| l < self.lines)
                            .fold(0u64, |acc, l| acc | 1 << image[l]);
                    }
                }
                table
            })
            .collect()
    }

    /// The border line pairs of the corner boxes of boards of two rows and
    /// columns or more (a box of a one-wide board has three border lines).
    fn corner_border_pairs(&self) -> Vec<(u8, u8)> {
        if self.rows < 2 || self.cols < 2 {
            return Vec::new();
        }
        let border = |line: usize| self.line_boxes[line].contains(&NO_BOX);
        let corners = [
            0,
            self.cols - 1,
            (self.rows - 1) * self.cols,
            self.rows * self.cols - 1,
        ];
        corners
            .iter()
            .map(|&b| {
                let mut pair =
                    (0..self.lines).filter(|&l| self.box_lines[b] >> l & 1 == 1 && border(l));
                let first = pair.next().unwrap_or(0) as u8;
                (first, pair.next().unwrap_or(first as usize) as u8)
            })
            .collect()
    }

    /// Where every symmetry of the board (4 for rectangles, 8 for squares)
    /// sends each line.
    fn line_images(&self) -> Vec<[u8; 64]> {
        let count = if self.cols == self.rows { 8 } else { 4 };
        (0..count)
            .map(|sym| {
                let mut image = [0u8; 64];
                for (line, [a, b]) in self.line_dots.iter().enumerate() {
                    let a = self.map_dot(sym, a.0 as usize, a.1 as usize);
                    let b = self.map_dot(sym, b.0 as usize, b.1 as usize);
                    image[line] = self.line_between(a, b).unwrap_or(0) as u8;
                }
                image
            })
            .collect()
    }

    /// The image of dot `(x, y)` under symmetry `sym` (0–3 reflections,
    /// 4–7 the diagonal ones, square boards only).
    fn map_dot(&self, sym: usize, x: usize, y: usize) -> (usize, usize) {
        let (w, h) = (self.cols, self.rows);
        let (x, y) = if sym >= 4 { (y, x) } else { (x, y) };
        let (w, h) = if sym >= 4 { (h, w) } else { (w, h) };
        match sym % 4 {
            0 => (x, y),
            1 => (w - x, y),
            2 => (x, h - y),
            _ => (w - x, h - y),
        }
    }
}
