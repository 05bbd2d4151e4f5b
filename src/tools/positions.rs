//! Position files, shared by `agon match --openings` and `agon analyse`.
//!
//! One position per line, in the game's own position-string notation,
//! optionally followed by EPD-style operations, each introduced by `;`:
//!
//! ```text
//! # Nim: heaps 1, 2, 3 are lost for the side to move
//! 1/2/3 x ; value loss ; id nim-zero
//! 3/4/5 x ; bm 1:2 ; value win
//! ```
//!
//! `#` starts a comment that runs to the end of the line; blank lines are
//! skipped. An operation is an opcode followed by operands separated by
//! spaces; double quotes around operands are removed (`id "a b"`). Whether a
//! position string is valid is decided by the game, so the line numbers are
//! kept for its error messages.

/// One operation after `;`: `bm 1:2 2:3` has opcode `bm` and two operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The opcode, lower-cased (`bm`, `am`, `value`, `id`, `depth`, …).
    pub opcode: String,
    /// The operands, in order.
    pub operands: Vec<String>,
}

/// A position line of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionLine {
    /// Line number in the file, from 1.
    pub line: usize,
    /// The position string, with surrounding blanks removed.
    pub fen: String,
    /// The operations after the position, in order.
    pub operations: Vec<Operation>,
}

impl PositionLine {
    /// The operands of the first operation called `opcode`, if any.
    pub fn operation(&self, opcode: &str) -> Option<&[String]> {
        self.operations
            .iter()
            .find(|op| op.opcode == opcode)
            .map(|op| op.operands.as_slice())
    }
}

/// A line that could not be read, with its number and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// Line number in the file, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses a whole file: every non-blank, non-comment line gives either a
/// position or an error; nothing is dropped silently.
pub fn parse_positions(text: &str) -> Vec<Result<PositionLine, LineError>> {
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| parse_line(index + 1, line))
        .collect()
}

/// Parses one line; `None` for a blank or comment-only line.
pub fn parse_line(number: usize, line: &str) -> Option<Result<PositionLine, LineError>> {
    let content = match line.find('#') {
        Some(at) => &line[..at],
        None => line,
    };
    if content.trim().is_empty() {
        return None;
    }
    let mut parts = content.split(';');
    let fen = parts.next().unwrap_or_default().trim();
    if fen.is_empty() {
        return Some(Err(LineError {
            line: number,
            message: "no position before ';'".into(),
        }));
    }
    let mut operations = Vec::new();
    for part in parts {
        match parse_operation(part) {
            Ok(Some(op)) => operations.push(op),
            Ok(None) => {}
            Err(message) => {
                return Some(Err(LineError {
                    line: number,
                    message,
                }));
            }
        }
    }
    Some(Ok(PositionLine {
        line: number,
        fen: fen.split_whitespace().collect::<Vec<_>>().join(" "),
        operations,
    }))
}

/// Parses `opcode operand…`; `None` for an empty operation (`;;` or a
/// trailing `;`).
fn parse_operation(text: &str) -> Result<Option<Operation>, String> {
    let mut words = text.split_whitespace();
    let Some(opcode) = words.next() else {
        return Ok(None);
    };
    if !opcode
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!("bad operation name '{opcode}'"));
    }
    let rest: Vec<&str> = words.collect();
    let joined = rest.join(" ");
    // A quoted operand ("a b") is one operand without its quotes.
    let operands = if joined.len() >= 2 && joined.starts_with('"') && joined.ends_with('"') {
        vec![joined[1..joined.len() - 1].to_owned()]
    } else {
        rest.iter()
            .map(|w| w.trim_matches('"').to_owned())
            .collect()
    };
    Ok(Some(Operation {
        opcode: opcode.to_ascii_lowercase(),
        operands,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_positions_operations_and_comments() {
        let text = "# header\n\n3/4/5 x ; bm 1:2 2:3 ; id \"a b\" # note\n  1/2/3   o  \n";
        let lines = parse_positions(text);
        assert_eq!(lines.len(), 2);
        let first = lines[0].as_ref().expect("first line parses");
        assert_eq!(first.line, 3);
        assert_eq!(first.fen, "3/4/5 x");
        assert_eq!(
            first.operation("bm"),
            Some(&["1:2".to_owned(), "2:3".to_owned()][..])
        );
        assert_eq!(first.operation("id"), Some(&["a b".to_owned()][..]));
        let second = lines[1].as_ref().expect("second line parses");
        assert_eq!((second.line, second.fen.as_str()), (4, "1/2/3 o"));
        assert!(second.operations.is_empty());
    }

    #[test]
    fn reports_bad_lines_with_their_number() {
        let lines = parse_positions("3/4/5 x\n ; bm 1:1\n1/1 x ; b@d 3\n1/1 x ;;\n");
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1].as_ref().map_err(|e| e.line), Err(2));
        assert_eq!(lines[2].as_ref().map_err(|e| e.line), Err(3));
        assert!(lines[3].is_ok());
    }
}
