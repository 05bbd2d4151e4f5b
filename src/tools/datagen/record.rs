//! The training-record format written by `agon datagen` and read by
//! `agon train`.
//!
//! A data file is a plain sequence of records, so that files from several
//! runs can be merged by appending one to another (`cat a b > c`, or
//! `datagen --out` on an existing file). Each record, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | marker `0xA6` (catches a file that is not a record stream) |
//! | 2 | length `n` of the position string (u16) |
//! | n | the position string (`query fen`, UTF-8) |
//! | 2 | search score for the side to move (i16, the game's evaluation units) |
//! | 1 | final result for the side to move: 1 win, 0 draw, −1 loss (i8) |
//!
//! The position string, not a game-specific packing, keeps the format the
//! same for every game and the data readable by any tool; the game is the
//! one `agon train --game` names, and a position that does not parse as it
//! is an error.

use std::io::{Read, Write};

/// First byte of every record.
pub const MARKER: u8 = 0xA6;

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position (as `query fen` prints it).
    pub fen: String,
    /// The search score for the side to move.
    pub score: i16,
    /// The game's result for the side to move: 1, 0 or −1.
    pub result: i8,
}

impl Record {
    /// Appends this record's bytes to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let fen = self.fen.as_bytes();
        let len = u16::try_from(fen.len()).unwrap_or(u16::MAX);
        out.push(MARKER);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&fen[..len as usize]);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.push(self.result as u8);
    }
}

/// Writes `records` to `out`.
pub fn write_records(out: &mut impl Write, records: &[Record]) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    for record in records {
        record.write_to(&mut bytes);
    }
    out.write_all(&bytes)
}

/// Reads every record of a byte stream, or says where it is not one.
pub fn read_records(input: &mut impl Read) -> Result<Vec<Record>, String> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read training data: {e}"))?;
    parse_records(&bytes)
}

/// Parses a whole record stream.
pub fn parse_records(bytes: &[u8]) -> Result<Vec<Record>, String> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let bad = |what: &str| format!("training data: {what} at byte {at}");
        if bytes[at] != MARKER {
            return Err(bad("not a record (bad marker)"));
        }
        let Some(len_bytes) = bytes.get(at + 1..at + 3) else {
            return Err(bad("truncated record"));
        };
        let len = u16::from_le_bytes([len_bytes[0], len_bytes[1]]) as usize;
        let start = at + 3;
        let Some(tail) = bytes.get(start..start + len + 3) else {
            return Err(bad("truncated record"));
        };
        let fen = std::str::from_utf8(&tail[..len])
            .map_err(|_| bad("position string not UTF-8"))?
            .to_string();
        let score = i16::from_le_bytes([tail[len], tail[len + 1]]);
        let result = tail[len + 2] as i8;
        if !(-1..=1).contains(&result) {
            return Err(bad("result not 1, 0 or -1"));
        }
        records.push(Record { fen, score, result });
        at = start + len + 3;
    }
    Ok(records)
}
