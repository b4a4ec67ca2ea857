//! Newline-delimited framing for the stdio transport (MCP 2025-11-25 "Transports §stdio":
//! messages are delimited by newlines and MUST NOT contain embedded newlines).
//!
//! [`FrameDecoder`] is sans-I/O: the caller feeds whatever bytes it read and receives
//! complete frames. The frame limit is enforced while reading: once a line grows past
//! it, the decoder keeps only a short prefix (for id recovery) and counts the rest until
//! the newline, so a 64 MiB line never occupies more than `limit + PREFIX_KEEP` bytes.

use memchr::memchr;

/// How many leading bytes of an oversized frame are kept for recovering its `id`.
pub const PREFIX_KEEP: usize = 64 * 1024;

/// Bytes a partial frame must hold before its buffer grows straight to the size of the
/// last large frame (see `FrameDecoder::extend`).
const GROW_AT_ONCE_FROM: usize = 64 * 1024;

/// One event produced by [`FrameDecoder::push`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameEvent {
    /// A complete frame, newline removed (a trailing CR is kept; JSON treats it as
    /// whitespace).
    Frame(Vec<u8>),
    /// A frame longer than the limit, discarded while reading.
    Oversized {
        /// Total length of the discarded frame, bytes, newline excluded.
        bytes: usize,
        /// Its first bytes (at most [`PREFIX_KEEP`]).
        prefix: Vec<u8>,
    },
}

/// Incremental splitter of a byte stream into frames of at most `limit` bytes.
#[derive(Debug)]
pub struct FrameDecoder {
    limit: usize,
    buf: Vec<u8>,
    /// Set while the rest of a line is being discarded.
    discarding: Option<Discard>,
    /// Length of the last frame that arrived in more than one piece, bytes: the room a
    /// frame that outgrows its buffer is given at once (see [`FrameDecoder::extend`]).
    last_assembled: usize,
}

/// State of a line being discarded up to its newline.
#[derive(Debug)]
struct Discard {
    /// Bytes of the line seen so far.
    seen: usize,
    /// First bytes of the line (at most [`PREFIX_KEEP`]).
    prefix: Vec<u8>,
    /// `false` for the rest of a line dropped by `discard_partial` (already reported).
    report: bool,
}

impl FrameDecoder {
    /// A decoder for frames of at most `limit` bytes (newline excluded).
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            buf: Vec::new(),
            discarding: None,
            last_assembled: 0,
        }
    }

    /// `true` when part of a frame has been read but not its newline.
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.discarding.is_some()
    }

    /// The first bytes of the partial frame: what is buffered, or the kept prefix of an
    /// oversized frame being discarded (empty for the rest of a dropped line).
    pub fn partial(&self) -> &[u8] {
        match &self.discarding {
            Some(d) => &d.prefix,
            None => &self.buf,
        }
    }

    /// Bytes currently buffered (never more than `limit`).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Drops a partial frame (after `read_timeout_ms`); returns how many bytes it had.
    /// Bytes of that line that arrive later are discarded up to its newline.
    pub fn discard_partial(&mut self) -> usize {
        let seen = match self.discarding.take() {
            Some(d) => d.seen,
            None => self.buf.len(),
        };
        self.buf = Vec::new();
        // Whatever else of this line arrives belongs to the dropped frame.
        self.discarding = Some(Discard {
            seen,
            prefix: Vec::new(),
            report: false,
        });
        seen
    }

    /// Feeds `chunk`; complete frames and oversize events are appended to `out` in order.
    /// Empty and whitespace-only lines are skipped.
    pub fn push(&mut self, mut chunk: &[u8], out: &mut Vec<FrameEvent>) {
        while !chunk.is_empty() {
            let newline = memchr(b'\n', chunk);
            let piece = &chunk[..newline.unwrap_or(chunk.len())];
            if let Some(d) = self.discarding.as_mut() {
                d.seen += piece.len();
                if d.report {
                    let room = PREFIX_KEEP.saturating_sub(d.prefix.len());
                    d.prefix.extend_from_slice(&piece[..piece.len().min(room)]);
                }
            } else if self.buf.len() + piece.len() > self.limit {
                let seen = self.buf.len() + piece.len();
                let mut prefix = std::mem::take(&mut self.buf);
                prefix.truncate(PREFIX_KEEP);
                let room = PREFIX_KEEP.saturating_sub(prefix.len());
                prefix.extend_from_slice(&piece[..piece.len().min(room)]);
                // The buffer it came from may hold up to the frame limit.
                prefix.shrink_to_fit();
                self.discarding = Some(Discard {
                    seen,
                    prefix,
                    report: true,
                });
            } else if newline.is_some() && self.buf.is_empty() {
                // Fast path: the whole frame is inside this chunk. One spare byte: the
                // relay appends the newline when it forwards the frame.
                let mut frame = Vec::with_capacity(piece.len() + 1);
                frame.extend_from_slice(piece);
                emit(frame, out);
            } else {
                self.extend(piece);
            }
            let Some(nl) = newline else { break };
            chunk = &chunk[nl + 1..];
            if let Some(d) = self.discarding.take() {
                if d.report {
                    out.push(FrameEvent::Oversized {
                        bytes: d.seen,
                        prefix: d.prefix,
                    });
                }
            } else if !self.buf.is_empty() {
                let mut frame = std::mem::take(&mut self.buf);
                self.last_assembled = frame.len();
                fit(&mut frame);
                emit(frame, out);
            }
        }
    }

    /// Appends `piece` to the partial frame. Once the partial frame holds
    /// [`GROW_AT_ONCE_FROM`] bytes or more, a buffer that must grow to less than double
    /// grows at once to the length of the last frame assembled from pieces (plus the
    /// newline's byte) when that is larger and at most twice what is needed now: a peer
    /// that sends large frames usually sends several of a size, and each doubling copies
    /// the frame so far into fresh memory the kernel must fault in (a 1 MiB frame read
    /// 128 KiB at a time: three copies and about 1.8 MiB of new pages, against four
    /// copies and about 3.8 MiB by doubling alone). The spare room is never more than
    /// doubling would leave: the allocator usually hands back a block freed a moment ago,
    /// already resident, so a partial frame that stalls holds no more memory than it did
    /// (a review measured 50 decoders, each after a 4 MiB frame, stalled at 150 KB: 199
    /// MiB resident with the room of the last frame, 9.8 MiB by doubling). [`fit`] gives
    /// back what a smaller frame leaves spare. Below the threshold the buffer doubles as
    /// usual, so a small frame split across two reads is not given the room of a large
    /// one.
    fn extend(&mut self, piece: &[u8]) {
        let need = self.buf.len() + piece.len();
        if need > self.buf.capacity()
            && self.buf.len() >= GROW_AT_ONCE_FROM
            && self.last_assembled > need
            && self.last_assembled <= 2 * need
        {
            let want = self.last_assembled.min(self.limit) + 1;
            self.buf.reserve_exact(want - self.buf.len());
        }
        self.buf.extend_from_slice(piece);
    }

    /// End of stream: a final frame without newline is returned as a frame (or as
    /// oversized); `None` when nothing was pending.
    pub fn finish(&mut self) -> Option<FrameEvent> {
        if let Some(d) = self.discarding.take() {
            return d.report.then_some(FrameEvent::Oversized {
                bytes: d.seen,
                prefix: d.prefix,
            });
        }
        let mut buf = std::mem::take(&mut self.buf);
        fit(&mut buf);
        (!buf.iter().all(u8::is_ascii_whitespace)).then_some(FrameEvent::Frame(buf))
    }
}

/// A frame assembled from several reads grew by doubling, so up to half of its
/// allocation is spare; it then waits in queues bounded by its length (the outbox, the
/// audit worker), where the spare half would double what the bound admits. Gives the
/// spare capacity back (an in-place shrink in the allocator) and keeps one byte for the
/// newline the relay appends when it forwards the frame.
fn fit(frame: &mut Vec<u8>) {
    let want = frame.len() + 1;
    if frame.capacity() - frame.len() > frame.len() / 8 {
        frame.shrink_to(want);
    } else {
        frame.reserve_exact(1);
    }
}

fn emit(frame: Vec<u8>, out: &mut Vec<FrameEvent>) {
    if !frame.iter().all(u8::is_ascii_whitespace) {
        out.push(FrameEvent::Frame(frame));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_read_in_many_chunks_keeps_little_spare_capacity() {
        let mut dec = FrameDecoder::new(4 << 20);
        let mut out = Vec::new();
        let body = vec![b'x'; 1_100_000]; // just past 1 MiB: doubling would leave ~1 MB spare
        for piece in body.chunks(128 * 1024) {
            dec.push(piece, &mut out);
        }
        assert!(out.is_empty());
        dec.push(b"\n", &mut out);
        let [FrameEvent::Frame(frame)] = out.as_slice() else {
            panic!("one frame expected: {out:?}");
        };
        assert_eq!(frame.len(), body.len());
        assert!(
            frame.capacity() <= body.len() + body.len() / 8,
            "capacity {} for a frame of {} bytes",
            frame.capacity(),
            frame.len()
        );
        assert!(frame.capacity() > frame.len(), "room for the newline");
    }

    #[test]
    fn a_large_frame_after_one_of_its_size_grows_once() {
        let mut dec = FrameDecoder::new(4 << 20);
        let mut out = Vec::new();
        let body = vec![b'x'; 1_100_000];
        for piece in body.chunks(128 * 1024) {
            dec.push(piece, &mut out);
        }
        dec.push(b"\n", &mut out);
        assert_eq!(out.len(), 1);
        // The next frame of the same size: once its room is within double of what is
        // needed, the buffer grows straight to the whole frame and its newline, and no
        // later piece moves it: three growths (256 KiB, 512 KiB, the frame), not four.
        let mut capacities = Vec::new();
        for piece in body.chunks(128 * 1024) {
            dec.push(piece, &mut out);
            if capacities.last() != Some(&dec.buf.capacity()) {
                capacities.push(dec.buf.capacity());
            }
        }
        assert_eq!(
            capacities,
            [128 * 1024, 256 * 1024, 512 * 1024, body.len() + 1],
            "capacity after each growth"
        );
        dec.push(b"\n", &mut out);
        let FrameEvent::Frame(frame) = &out[1] else {
            panic!("a frame expected: {out:?}");
        };
        assert_eq!(
            (frame.len(), frame.capacity()),
            (body.len(), body.len() + 1)
        );
        // A smaller frame afterwards keeps little spare room, and a small frame split
        // across two reads is not given the room of a large one.
        let small = vec![b'y'; 300_000];
        for piece in small.chunks(128 * 1024) {
            dec.push(piece, &mut out);
        }
        dec.push(b"\n", &mut out);
        let FrameEvent::Frame(frame) = &out[2] else {
            panic!("a frame expected: {out:?}");
        };
        assert!(
            frame.capacity() <= small.len() + small.len() / 8,
            "{}",
            frame.capacity()
        );
        dec.push(b"{\"a\":", &mut out);
        assert!(dec.buf.capacity() < 1024, "{}", dec.buf.capacity());
    }

    #[test]
    fn a_final_frame_and_an_oversized_prefix_keep_little_spare_capacity() {
        let body = vec![b'x'; 1_100_000];
        let mut dec = FrameDecoder::new(4 << 20);
        let mut out = Vec::new();
        for piece in body.chunks(128 * 1024) {
            dec.push(piece, &mut out);
        }
        let Some(FrameEvent::Frame(last)) = dec.finish() else {
            panic!("the unterminated frame is returned at the end");
        };
        assert!(
            last.capacity() <= body.len() + body.len() / 8,
            "{}",
            last.capacity()
        );

        let mut dec = FrameDecoder::new(1 << 20);
        for piece in body.chunks(128 * 1024) {
            dec.push(piece, &mut out);
        }
        dec.push(b"\n", &mut out);
        let [FrameEvent::Oversized { prefix, .. }] = out.as_slice() else {
            panic!("one oversized event expected: {out:?}");
        };
        assert_eq!(prefix.len(), PREFIX_KEEP);
        assert!(prefix.capacity() < 2 * PREFIX_KEEP, "{}", prefix.capacity());
    }

    fn run(limit: usize, chunks: &[&[u8]]) -> Vec<FrameEvent> {
        let mut d = FrameDecoder::new(limit);
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
            assert!(d.buffered() <= limit);
        }
        out.extend(d.finish());
        out
    }

    fn frame(s: &str) -> FrameEvent {
        FrameEvent::Frame(s.as_bytes().to_vec())
    }

    #[test]
    fn splits_lines_across_chunks() {
        assert_eq!(
            run(100, &[b"{\"a\":1}\n{\"b\"", b":2}\n\n  \n{\"c\":3}"]),
            vec![frame("{\"a\":1}"), frame("{\"b\":2}"), frame("{\"c\":3}")]
        );
    }

    #[test]
    fn exactly_at_limit_passes_one_over_fails() {
        assert_eq!(run(5, &[b"12345\n"]), vec![frame("12345")]);
        let out = run(5, &[b"123", b"456\n", b"ok\n"]);
        assert_eq!(
            out[0],
            FrameEvent::Oversized {
                bytes: 6,
                prefix: b"123456".to_vec()
            }
        );
        assert_eq!(out[1], frame("ok"));
    }

    #[test]
    fn huge_line_is_never_buffered_whole() {
        let mut d = FrameDecoder::new(1024);
        let mut out = Vec::new();
        d.push(b"{\"id\":3,\"x\":\"", &mut out);
        let block = vec![b'A'; 1 << 20];
        for _ in 0..64 {
            d.push(&block, &mut out);
            assert!(d.buffered() <= 1024);
        }
        d.push(b"\"}\n{\"next\":1}\n", &mut out);
        match &out[0] {
            FrameEvent::Oversized { bytes, prefix } => {
                assert_eq!(*bytes, 13 + 64 * (1 << 20) + 2);
                assert_eq!(prefix.len(), PREFIX_KEEP);
                assert!(prefix.starts_with(b"{\"id\":3"));
            }
            other @ FrameEvent::Frame(_) => panic!("{other:?}"),
        }
        assert_eq!(out[1], frame("{\"next\":1}"));
    }

    #[test]
    fn discard_partial_drops_rest_of_line() {
        let mut d = FrameDecoder::new(100);
        let mut out = Vec::new();
        d.push(b"{\"half\":", &mut out);
        assert!(d.has_partial());
        assert_eq!(d.discard_partial(), 8);
        d.push(b"1}\n{\"ok\":1}\n", &mut out);
        assert_eq!(out, vec![frame("{\"ok\":1}")]);
    }

    #[test]
    fn partial_prefix_survives_an_oversized_frame() {
        let mut d = FrameDecoder::new(8);
        let mut out = Vec::new();
        d.push(b"{\"id\":77,\"method\":\"x\",\"params\":", &mut out);
        assert!(out.is_empty());
        assert!(d.partial().starts_with(b"{\"id\":77"));
        let seen = d.discard_partial();
        assert!(seen > 8);
        assert!(d.partial().is_empty());
        d.push(b"rest}\n{}\n", &mut out);
        assert_eq!(out, vec![frame("{}")]);
    }

    #[test]
    fn final_frame_without_newline() {
        assert_eq!(run(100, &[b"{\"a\":1}"]), vec![frame("{\"a\":1}")]);
        assert!(run(100, &[b"  "]).is_empty());
    }
}
