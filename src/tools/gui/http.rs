//! Just enough HTTP/1.1 for a page served on loopback: one request per
//! connection (`Connection: close`), bodies by `Content-Length` only, and
//! hard limits on every size and wait, so that a malformed or hostile
//! request ends with an error status rather than a hang or a panic.

use std::io::{BufRead, Read, Write};

/// Longest request line plus headers accepted.
const MAX_HEAD: usize = 16 * 1024;
/// Largest request body accepted (moves, options and position strings are
/// small; a Nim position with many huge heaps still fits).
pub const MAX_BODY: usize = 256 * 1024;

/// A parsed request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// Header names (lower-case) and values.
    pub headers: Vec<(String, String)>,
    /// The body (empty without `Content-Length`).
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lower-case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request could not be read: the status to answer and a message.
#[derive(Debug)]
pub struct BadRequest {
    /// HTTP status code.
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

fn bad(status: u16, message: &str) -> BadRequest {
    BadRequest {
        status,
        message: message.to_owned(),
    }
}

/// Reads one request. I/O errors (a closed or timed-out socket) are
/// reported as status 400.
pub fn read_request(reader: &mut impl BufRead) -> Result<Request, BadRequest> {
    let mut head = Vec::new();
    // Read line by line until the blank line ending the headers.
    loop {
        let before = head.len();
        let read = reader
            .by_ref()
            .take((MAX_HEAD + 1 - head.len()) as u64)
            .read_until(b'\n', &mut head)
            .map_err(|e| bad(400, &format!("cannot read the request: {e}")))?;
        if read == 0 {
            return Err(bad(400, "connection closed before the request ended"));
        }
        if head.len() > MAX_HEAD {
            return Err(bad(431, "request headers too large"));
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let head = std::str::from_utf8(&head).map_err(|_| bad(400, "request head is not UTF-8"))?;
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or_default();
    let mut words = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(bad(400, "malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(bad(505, "only HTTP/1.x is served"));
    }
    let path = target
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| bad(400, "malformed header line"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request {
        method: method.to_owned(),
        path,
        headers,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Err(bad(501, "chunked request bodies are not accepted"));
    }
    if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| bad(400, "malformed Content-Length"))?;
        if length > MAX_BODY {
            return Err(bad(413, "request body too large"));
        }
        let mut body = vec![0; length];
        reader
            .read_exact(&mut body)
            .map_err(|e| bad(400, &format!("cannot read the request body: {e}")))?;
        request.body = body;
    }
    Ok(request)
}

/// The reason phrase of the statuses this server answers.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// Headers sent with every answer: nothing is cached, nothing sniffed, the
/// page may not be framed, and it may load and contact only its own origin
/// (it works offline and cannot leak the game elsewhere).
const COMMON_HEADERS: &str = "Cache-Control: no-store\r\n\
X-Content-Type-Options: nosniff\r\n\
X-Frame-Options: DENY\r\n\
Referrer-Policy: no-referrer\r\n\
Content-Security-Policy: default-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n";

/// Writes a whole answer and ends the connection.
pub fn respond(
    out: &mut impl Write,
    status: u16,
    content_type: &str,
    extra_headers: &str,
    body: &[u8],
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{COMMON_HEADERS}{extra_headers}Connection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    // One write, as for events (see `write_event`).
    let mut answer = head.into_bytes();
    answer.extend_from_slice(body);
    out.write_all(&answer)?;
    out.flush()
}

/// Starts a Server-Sent Events stream; events follow with [`write_event`].
pub fn start_events(out: &mut impl Write) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{COMMON_HEADERS}Connection: close\r\n\r\n"
    );
    out.write_all(head.as_bytes())?;
    out.flush()
}

/// Writes one event of a stream (`data` must be one line, as JSON is), in
/// one write: on a socket without Nagle's delay each write leaves at once,
/// and the page can use the event only once all of it has arrived.
pub fn write_event(out: &mut impl Write, data: &str) -> std::io::Result<()> {
    let mut event = Vec::with_capacity(data.len() + 8);
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(data.as_bytes());
    event.extend_from_slice(b"\n\n");
    out.write_all(&event)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_post_with_a_body() {
        let raw = b"POST /api/move?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Length: 4\r\n\r\nabcdEXTRA";
        let request = read_request(&mut &raw[..]).expect("valid");
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/api/move");
        assert_eq!(request.header("host"), Some("127.0.0.1:9"));
        assert_eq!(request.body, b"abcd");
    }

    #[test]
    fn refuses_malformed_requests() {
        for raw in [
            &b"GET /\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\nno colon\r\n\r\n",
            b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n",
            b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
            b"GET / HTTP/1.1\r\n",
            b"",
        ] {
            assert!(read_request(&mut &raw[..]).is_err(), "{raw:?}");
        }
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(read_request(&mut huge.as_bytes()).unwrap_err().status, 431);
    }
}
