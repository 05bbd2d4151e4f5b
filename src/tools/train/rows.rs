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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Small whole numbers as `f32`, whose sums are exact in any order, so
    /// that the blocked sums must equal the plain ones bit for bit.
    fn whole_numbers(n: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<f32> {
        (0..n).map(|_| rng.random_range(-8i8..=8) as f32).collect()
    }

    /// Widths below, at and past a block, with and without a tail.
    const WIDTHS: [usize; 6] = [1, 7, BLOCK, BLOCK + 13, 2 * BLOCK, 2 * BLOCK + 6];

    #[test]
    fn gathered_rows_are_the_rows_summed() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for width in WIDTHS {
            let matrix = whole_numbers(10 * width, &mut rng);
            let start = whole_numbers(width, &mut rng);
            // A repeated row counts twice, as a repeated input does.
            let rows = [3usize, 0, 9, 3];
            let mut acc = start.clone();
            gather_rows(&mut acc, &matrix, rows.iter().copied());
            for (j, &sum) in acc.iter().enumerate() {
                let plain = start[j] + rows.iter().map(|&r| matrix[r * width + j]).sum::<f32>();
                assert_eq!(sum, plain, "width {width}, column {j}");
            }
        }
    }

    #[test]
    fn scattered_rows_each_get_the_delta() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for width in WIDTHS {
            let before = whole_numbers(6 * width, &mut rng);
            let delta = whole_numbers(width, &mut rng);
            let rows = [5usize, 1, 5];
            let mut matrix = before.clone();
            scatter_rows(&mut matrix, &delta, rows.iter().copied());
            for (at, &value) in matrix.iter().enumerate() {
                let (row, column) = (at / width, at % width);
                let times = rows.iter().filter(|&&r| r == row).count() as f32;
                assert_eq!(value, before[at] + times * delta[column], "width {width}");
            }
        }
    }

    #[test]
    fn add_assign_adds_elementwise() {
        let mut acc = vec![1.0, 2.0, 3.0];
        add_assign(&mut acc, &[0.5, -2.0, 4.0]);
        assert_eq!(acc, [1.5, 0.0, 7.0]);
    }
}
