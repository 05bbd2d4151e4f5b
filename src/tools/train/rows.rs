//! Sums of rows of the first layer's row-major matrix, written so that
//! the compiler keeps a block of sums in vector registers: the forward
//! pass gathers the rows of a sample's active inputs, the gradient
//! scatters into them.

/// Hidden columns per block in the row sums: 32 `f32` are four AVX2
/// registers, few enough to stay in registers across the rows.
const BLOCK: usize = 32;

/// `acc[j] += row[j]`.
#[inline(always)]
pub(super) fn add_assign(acc: &mut [f32], row: &[f32]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a += w;
    }
}

/// `acc += Σ matrix[row]` over `rows` (row-major, rows as wide as `acc`).
///
/// Column block by column block: a block of sums stays in registers while
/// every row is added to it, instead of going through memory once per row.
#[inline(always)]
pub(super) fn gather_rows(
    acc: &mut [f32],
    matrix: &[f32],
    rows: impl Iterator<Item = usize> + Clone,
) {
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
pub(super) fn scatter_rows(
    matrix: &mut [f32],
    delta: &[f32],
    rows: impl Iterator<Item = usize> + Clone,
) {
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
