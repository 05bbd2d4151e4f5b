//! The board field of position strings on square grids (Ataxx, Yoté,
//! CTOR): rows from the top, separated by `/`; a run of digits is one number
//! counting empty squares (`10` is ten squares); any other character must be
//! one of the game's piece letters.

/// Reads a board field of `rows` rows of `width` squares. Returns the rows
/// from the top, each square `None` (empty) or its piece letter, which is
/// one of `pieces`.
pub fn parse_board(
    field: &str,
    width: usize,
    rows: usize,
    pieces: &str,
) -> Result<Vec<Vec<Option<char>>>, String> {
    let texts: Vec<&str> = field.split('/').collect();
    if texts.len() != rows {
        return Err(format!(
            "board needs {rows} rows separated by '/', got {}",
            texts.len()
        ));
    }
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            parse_row(text, width, pieces).map_err(|e| format!("row {} from the top: {e}", i + 1))
        })
        .collect()
}

fn parse_row(text: &str, width: usize, pieces: &str) -> Result<Vec<Option<char>>, String> {
    let mut squares = Vec::with_capacity(width);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(digit) = c.to_digit(10) {
            let mut run = digit as usize;
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                // Stop growing once too long; the length check reports it.
                run = (run * 10 + d as usize - '0' as usize).min(width + 1);
            }
            if run == 0 {
                return Err("an empty-square count of 0".into());
            }
            squares.extend(std::iter::repeat_n(None, run));
        } else if pieces.contains(c) {
            squares.push(Some(c));
        } else {
            return Err(format!(
                "unexpected character '{c}' (expected one of '{pieces}', digits or '/')"
            ));
        }
        if squares.len() > width {
            return Err(format!("more than {width} squares"));
        }
    }
    if squares.len() != width {
        return Err(format!("{} squares, needs {width}", squares.len()));
    }
    Ok(squares)
}

/// Writes a board field of `rows` rows of `width` squares;
/// `square(row_from_top, column)` gives each square's piece letter.
pub fn write_board(
    width: usize,
    rows: usize,
    square: impl Fn(usize, usize) -> Option<char>,
) -> String {
    let mut out = String::new();
    for row in 0..rows {
        if row > 0 {
            out.push('/');
        }
        let mut run = 0;
        for column in 0..width {
            match square(row, column) {
                None => run += 1,
                Some(piece) => {
                    if run > 0 {
                        out.push_str(&run.to_string());
                        run = 0;
                    }
                    out.push(piece);
                }
            }
        }
        if run > 0 {
            out.push_str(&run.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_runs_of_several_digits() {
        let rows = parse_board("x9/10/o8x", 10, 3, "xo").expect("valid");
        assert_eq!(rows[0][0], Some('x'));
        assert!(rows[1].iter().all(Option::is_none));
        assert_eq!(rows[2][9], Some('x'));
        let text = write_board(10, 3, |r, c| rows[r][c]);
        assert_eq!(text, "x9/10/o8x");
    }

    #[test]
    fn rejects_bad_fields() {
        for bad in [
            "x9/10",
            "x9/10/o8x/",
            "x9/11/o8x",
            "x9/0x9/o8x",
            "x9/10/o8y",
            "x9/1/o8x",
            "x99999999999999999999/10/10",
        ] {
            assert!(parse_board(bad, 10, 3, "xo").is_err(), "{bad}");
        }
        assert_eq!(parse_board("05/5", 5, 2, "x").map(|r| r[0].len()), Ok(5));
    }
}
