//! A bounded reader of `text/event-stream` bodies (WHATWG HTML §9.2.6 "Interpreting an
//! event stream"), for MCP answers from a remote server. Only what MCP uses is kept:
//! the `data` lines of each event, joined with LF; `event`, `id`, `retry` and comments
//! are read past. Lines end with CRLF, LF or CR. Unlike general-purpose parsers it never
//! holds more than `max` bytes of one event: an event growing past it is cut off and
//! reported as [`Event::TooLarge`] with its first bytes (the caller refuses it as an
//! over-limit frame), and the rest of it is skipped.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Event {
    /// The event's data (its `data` lines joined with LF).
    Data(Vec<u8>),
    /// An event whose data exceeded the limit: its first bytes (at most 64 KiB).
    TooLarge(Vec<u8>),
}

/// Prefix kept of an over-limit event (enough to read a JSON-RPC `id` from).
const PREFIX: usize = 64 * 1024;

/// Incremental parser state.
pub(crate) struct EventParser {
    max: usize,
    /// The current line, without its terminator.
    line: Vec<u8>,
    /// The current event's data so far.
    data: Vec<u8>,
    /// The current event has at least one `data` field.
    has_data: bool,
    /// The current event went over `max`: its remaining lines are skipped.
    oversized: bool,
    /// The previous byte was CR (a following LF ends nothing more).
    after_cr: bool,
    /// Bytes of the stream seen so far, up to 3 (a leading UTF-8 BOM is skipped).
    seen: usize,
}

impl EventParser {
    /// A parser for events of at most `max` data bytes.
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            oversized: false,
            after_cr: false,
            seen: 0,
        }
    }

    /// Feeds `chunk`; returns the events it completed.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        let mut chunk = chunk;
        // A UTF-8 BOM at the very start of the stream is not part of the first line.
        while self.seen < 3 && !chunk.is_empty() {
            if chunk[0] == [0xEF, 0xBB, 0xBF][self.seen] && self.line.len() == self.seen {
                self.line.push(chunk[0]);
                self.seen += 1;
                chunk = &chunk[1..];
                if self.seen == 3 {
                    self.line.clear();
                }
            } else {
                self.seen = 3;
            }
        }
        for &b in chunk {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    self.end_line(&mut out);
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() <= self.max + 16 {
                        self.line.push(b);
                    } else if !self.oversized {
                        self.overflow(&mut out);
                    }
                }
            }
        }
        out
    }

    fn end_line(&mut self, out: &mut Vec<Event>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            // Blank line: dispatch.
            if self.has_data && !self.oversized {
                out.push(Event::Data(std::mem::take(&mut self.data)));
            }
            self.data.clear();
            self.has_data = false;
            self.oversized = false;
            return;
        }
        if self.oversized || line.first() == Some(&b':') {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (&line[..], &[][..]),
        };
        if field == b"data" {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.has_data = true;
            self.data.extend_from_slice(value);
            if self.data.len() > self.max {
                self.overflow(out);
            }
        }
    }

    /// Reports the current event as too large and skips the rest of it.
    fn overflow(&mut self, out: &mut Vec<Event>) {
        let mut prefix = std::mem::take(&mut self.data);
        if prefix.is_empty() {
            let line = std::mem::take(&mut self.line);
            if let Some(rest) = line.strip_prefix(b"data:") {
                prefix = rest.strip_prefix(b" ").unwrap_or(rest).to_vec();
            }
        }
        prefix.truncate(PREFIX);
        out.push(Event::TooLarge(prefix));
        self.line.clear();
        self.has_data = false;
        self.oversized = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(events: Vec<Event>) -> Vec<String> {
        events
            .into_iter()
            .map(|e| match e {
                Event::Data(d) => String::from_utf8(d).unwrap(),
                Event::TooLarge(p) => format!("TOO LARGE {}", String::from_utf8_lossy(&p)),
            })
            .collect()
    }

    #[test]
    fn events_across_chunks_and_line_endings() {
        let mut p = EventParser::new(1024);
        let mut got = data(p.push(b"event: message\r\ndata: {\"a\""));
        got.extend(data(
            p.push(b":1}\r\n\r\n: comment\nid: 7\ndata:x\ndata: y\r\rdata: z"),
        ));
        got.extend(data(p.push(b"\n\n")));
        assert_eq!(got, ["{\"a\":1}", "x\ny", "z"]);
        // An event without data dispatches nothing; a trailing partial event neither.
        assert!(p.push(b"event: ping\n\ndata: partial").is_empty());
    }

    #[test]
    fn a_leading_bom_is_skipped_once() {
        let mut p = EventParser::new(1024);
        let mut got = data(p.push(b"\xEF\xBB"));
        got.extend(data(p.push(b"\xBFdata: 1\n\n\xEF\xBB\xBFdata: 2\n\n")));
        // Only the stream's first bytes: a later BOM is part of its line (a field name
        // that is not `data`).
        assert_eq!(got, ["1"]);
        let mut p = EventParser::new(1024);
        assert_eq!(data(p.push(b"data: x\n\n")), ["x"]);
    }

    #[test]
    fn oversized_events_are_cut_off_and_skipped() {
        let mut p = EventParser::new(16);
        let got = data(p.push(b"data: {\"id\":5,\"result\":\"0123456789\"}\n\ndata: ok\n\n"));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].starts_with("TOO LARGE {\"id\":5"), "{got:?}");
        assert_eq!(got[1], "ok");
        // A single line that never ends is cut off without being buffered whole.
        let mut p = EventParser::new(16);
        let long = vec![b'x'; 10_000];
        let mut got = data(p.push(b"data: "));
        got.extend(data(p.push(&long)));
        assert_eq!(got.len(), 1);
        assert!(p.line.len() <= 16 + 17);
    }
}
