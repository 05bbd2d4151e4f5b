//! Helpers shared by the game tests.

/// The squares of a position string's board field (`/`-separated rows from
/// the top, digits for runs of empty squares) as `board[rank][file]` with
/// rank 0 at the bottom; empty squares are `'.'`.
pub fn board_from_text(field: &str, files: usize, ranks: usize) -> Vec<Vec<char>> {
    let mut board = vec![vec!['.'; files]; ranks];
    for (row, text) in field.split('/').enumerate() {
        let mut file = 0;
        for c in text.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as usize,
                None => {
                    board[ranks - 1 - row][file] = c;
                    file += 1;
                }
            }
        }
    }
    board
}

/// A square as a network input digit: 1 for the side to move's stone, 2
/// for the other side's, 0 for anything else.
pub fn side_digit(square: char, mover: char) -> usize {
    match square {
        c if c == mover => 1,
        'x' | 'o' => 2,
        _ => 0,
    }
}
