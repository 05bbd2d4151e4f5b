//! Where the engine writes its lines: stdout in production, a shared buffer
//! in tests. Each line is written and flushed under one lock, so lines from
//! the search thread and the input thread never interleave.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// A cloneable, thread-safe line writer.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// Writes to standard output.
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Writes to any sink.
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    /// An output that collects lines in memory, and the buffer to read.
    pub fn capture() -> (Output, SharedBuffer) {
        let buffer = SharedBuffer::default();
        (Output::new(Box::new(buffer.clone())), buffer)
    }

    /// Writes one line and flushes. A broken pipe is ignored: the reader is
    /// gone and there is nobody left to tell.
    pub fn line(&self, text: &str) {
        let mut sink = match self.sink.lock() {
            Ok(sink) => sink,
            Err(poisoned) => poisoned.into_inner(),
        };
        // One write per line, so that a reader never sees half a line.
        let mut line = String::with_capacity(text.len() + 1);
        line.push_str(text);
        line.push('\n');
        let _ = sink.write_all(line.as_bytes());
        let _ = sink.flush();
    }

    /// Writes `info string error: <message>`, control characters escaped
    /// (`\x01`): an error often quotes the input that caused it, and raw
    /// control bytes (or a line end) would garble the reader's terminal or
    /// split the line.
    pub fn error(&self, message: &str) {
        self.line(&format!("info string error: {}", escape_controls(message)));
    }
}

/// An in-memory sink shared between the engine and a test.
#[derive(Clone, Default)]
pub struct SharedBuffer {
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl SharedBuffer {
    /// Everything written so far, as lines.
    pub fn lines(&self) -> Vec<String> {
        let bytes = match self.bytes.lock() {
            Ok(bytes) => bytes.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Forgets what was written.
    pub fn clear(&self) {
        if let Ok(mut bytes) = self.bytes.lock() {
            bytes.clear();
        }
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.bytes.lock() {
            Ok(mut bytes) => bytes.extend_from_slice(buf),
            Err(poisoned) => poisoned.into_inner().extend_from_slice(buf),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `text` with every control character written `\xNN`.
pub fn escape_controls(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && (c as u32) < 0x100 {
            escaped.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            escaped.push(c);
        }
    }
    escaped
}
