//! A bounded reader of `text/event-stream` bodies (WHATWG HTML §9.2.6 "Interpreting an
//! event stream"), for MCP answers from a remote server. Only what MCP uses is kept:
//! the `data` lines of each event, joined with LF, and the stream's last event ID and
//! reconnection time (`id`, `retry`: for resuming a dropped stream with `Last-Event-ID`,
//! MCP 2025-11-25 Transports §Resumability); `event` and comments are read past. Lines end with CRLF, LF or CR. Unlike general-purpose parsers it never
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
    /// The last event ID buffer (`id` field), kept across events.
    id_buffer: Option<String>,
    /// The last event ID as of the last dispatched event.
    last_id: Option<String>,
    /// The reconnection time the server asked for (`retry` field), in ms.
    retry_ms: Option<u64>,
}

/// Longest `id` value kept (it goes back in a header): longer ones are ignored.
const MAX_ID: usize = 1024;

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
            id_buffer: None,
            last_id: None,
            retry_ms: None,
        }
    }

    /// The stream's last event ID (WHATWG: set when an event is dispatched, including
    /// events without data, and kept until the server sets another); only IDs that can
    /// go back as a `Last-Event-ID` field value (visible ASCII and spaces, at most 1 KiB).
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref().filter(|id| !id.is_empty())
    }

    /// Starts a new connection's stream (WHATWG: an event not finished when a stream
    /// ends is discarded; a new stream starts with no partial line, may start with a
    /// BOM): everything but the last event ID and the reconnection time is reset.
    pub(crate) fn reset_stream(&mut self) {
        *self = Self {
            id_buffer: self.last_id.clone(),
            last_id: self.last_id.take(),
            retry_ms: self.retry_ms,
            ..Self::new(self.max)
        };
    }

    /// The reconnection time the server set with `retry` (ms), if any.
    pub(crate) fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
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
            // Blank line: dispatch (the last event ID is set even without data).
            self.last_id.clone_from(&self.id_buffer);
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
        if field == b"id" {
            // WHATWG: an id containing NULL is ignored; one we could not send back is too.
            if let Ok(id) = std::str::from_utf8(value)
                && id.len() <= MAX_ID
                && id.bytes().all(|b| (0x20..0x7f).contains(&b))
            {
                self.id_buffer = Some(id.to_owned());
            }
            return;
        }
        if field == b"retry" {
            if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                self.retry_ms = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            return;
        }
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

    #[test]
    fn the_last_event_id_and_retry_are_kept_for_a_resume() {
        let mut p = EventParser::new(1024);
        // A priming event: an id and empty data (which the callers skip) sets the id.
        assert_eq!(data(p.push(b"id: e0\ndata:\n\n")), [""]);
        assert_eq!(p.last_event_id(), Some("e0"));
        assert_eq!(data(p.push(b"retry: 250\nid: e1\ndata: one\n\n")), ["one"]);
        assert_eq!((p.last_event_id(), p.retry_ms()), (Some("e1"), Some(250)));
        // An event without an id keeps the last one; an id not yet dispatched is not it.
        assert_eq!(data(p.push(b"data: two\n\nid: e3\n")), ["two"]);
        assert_eq!(p.last_event_id(), Some("e1"));
        // Ids that could not go back in a header, and bad retry values, are ignored.
        p.push(b"\nid: a\x00b\nid: caf\xc3\xa9\nretry: 1s\ndata: x\n\n");
        assert_eq!((p.last_event_id(), p.retry_ms()), (Some("e3"), Some(250)));
        // An empty id resets it.
        p.push(b"id\ndata: y\n\n");
        assert_eq!(p.last_event_id(), None);
    }

    #[test]
    fn a_new_stream_drops_the_unfinished_event_and_keeps_the_last_id() {
        let mut p = EventParser::new(1024);
        p.push(b"retry: 70\nid: e1\ndata: one\n\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"meth");
        p.reset_stream();
        assert_eq!((p.last_event_id(), p.retry_ms()), (Some("e1"), Some(70)));
        // The next stream (with a BOM) is read from scratch; an event without an id
        // keeps e1 as the last id.
        assert_eq!(data(p.push(b"\xEF\xBB\xBFdata: two\n\n")), ["two"]);
        assert_eq!(p.last_event_id(), Some("e1"));
    }

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
