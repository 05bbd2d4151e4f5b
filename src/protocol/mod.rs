//! The text protocol: UGI (the UCI-style protocol of cutegames) and UAI (for
//! Ataxx tools). [`run`] is the input loop; [`engine::Engine`] runs the
//! commands; [`session`] adapts each game; [`output`] serialises lines.

pub mod engine;
pub mod output;
pub mod session;

use engine::{Engine, Flow};
use output::Output;
use std::io::BufRead;

/// Longest input line accepted; longer lines are read to their end and
/// rejected as one bad line, so a flood of bytes cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads commands from `input` until `quit` or end of input, writing to
/// `out`. A line that is not UTF-8 or is too long is answered with an
/// error and skipped; it never ends the loop.
pub fn run(input: impl BufRead, out: Output) {
    let mut engine = Engine::new(out.clone());
    let mut input = input;
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line(&mut input, &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                out.error(&format!("cannot read input: {e}"));
                break;
            }
        }
        if line.len() > MAX_LINE_BYTES {
            out.error(&format!(
                "input line longer than {MAX_LINE_BYTES} bytes ignored"
            ));
            continue;
        }
        match std::str::from_utf8(&line) {
            Ok(text) => {
                if engine.handle_line(text) == Flow::Quit {
                    return;
                }
            }
            Err(_) => out.error("input line is not valid UTF-8; ignored"),
        }
    }
    engine.finish_at_end_of_input();
}

/// Reads one line (without its end) into `line`, keeping at most
/// `MAX_LINE_BYTES + 1` bytes of it. Returns the number of bytes consumed,
/// 0 at end of input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(consumed);
        }
        let (chunk, found_end) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (&buffer[..=i], true),
            None => (buffer, false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        consumed += used;
        input.consume(used);
        if found_end {
            while matches!(line.last(), Some(b'\n' | b'\r')) {
                line.pop();
            }
            return Ok(consumed);
        }
    }
}
