//! Frame I/O over async pipes: a reader that enforces the frame limit and the
//! partial-frame read timeout, and outboxes whose queues are bounded in bytes.

use bastion_core::frame::{FrameDecoder, FrameEvent};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Instant;

/// Bytes read per `read` call at most: the buffer starts at [`FIRST_CHUNK`] and doubles
/// up to this while reads fill it, so an idle peer (a `serve` session waiting for its
/// host) holds a small buffer and a large transfer still moves in large reads.
const READ_CHUNK: usize = 128 * 1024;
/// The read buffer's first size, bytes.
const FIRST_CHUNK: usize = 8 * 1024;

/// What [`FrameReader::next`] yields.
#[derive(Debug)]
pub(crate) enum ReadEvent {
    /// A complete frame (newline removed).
    Frame(Vec<u8>),
    /// A frame over the limit, discarded while reading.
    Oversized { bytes: usize, prefix: Vec<u8> },
    /// A partial frame that did not complete within the read timeout, discarded.
    PartialTimeout { bytes: usize, prefix: Vec<u8> },
    /// End of stream.
    Eof,
}

/// Reads frames from a pipe with a bounded buffer.
pub(crate) struct FrameReader<R> {
    inner: R,
    dec: FrameDecoder,
    buf: Vec<u8>,
    ready: VecDeque<FrameEvent>,
    /// Reused output vector of the decoder.
    scratch: Vec<FrameEvent>,
    partial_since: Option<Instant>,
    read_timeout: Duration,
    /// The rest of a line already reported as [`ReadEvent::PartialTimeout`] is being
    /// discarded up to its newline: no second timeout (and answer) for the same line.
    dropping: bool,
    eof: bool,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub(crate) fn new(inner: R, limit: usize, read_timeout: Duration) -> Self {
        Self {
            inner,
            dec: FrameDecoder::new(limit),
            buf: vec![0; FIRST_CHUNK],
            ready: VecDeque::new(),
            scratch: Vec::new(),
            partial_since: None,
            read_timeout,
            dropping: false,
            eof: false,
        }
    }

    /// `true` when frames already read wait to be taken (no read call needed).
    pub(crate) fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    pub(crate) async fn next(&mut self) -> std::io::Result<ReadEvent> {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return Ok(match ev {
                    FrameEvent::Frame(f) => ReadEvent::Frame(f),
                    FrameEvent::Oversized { bytes, prefix } => {
                        ReadEvent::Oversized { bytes, prefix }
                    }
                });
            }
            if self.eof {
                return Ok(ReadEvent::Eof);
            }
            let n = match self.partial_since {
                Some(since) => {
                    if let Ok(r) = tokio::time::timeout_at(
                        since + self.read_timeout,
                        self.inner.read(&mut self.buf),
                    )
                    .await
                    {
                        r?
                    } else {
                        let prefix = self.dec.partial().to_vec();
                        let bytes = self.dec.discard_partial();
                        self.partial_since = None;
                        self.dropping = true;
                        return Ok(ReadEvent::PartialTimeout { bytes, prefix });
                    }
                }
                None => self.inner.read(&mut self.buf).await?,
            };
            if n == 0 {
                self.eof = true;
                self.ready.extend(self.dec.finish());
                continue;
            }
            let full = n == self.buf.len();
            if self.dropping && memchr::memchr(b'\n', &self.buf[..n]).is_some() {
                self.dropping = false;
            }
            let mut out = std::mem::take(&mut self.scratch);
            self.dec.push(&self.buf[..n], &mut out);
            self.ready.extend(out.drain(..));
            self.scratch = out;
            if full && self.buf.len() < READ_CHUNK {
                self.buf.resize(self.buf.len() * 2, 0);
            }
            if self.dropping {
                // Still inside the dropped line: nothing to time out.
            } else if self.dec.has_partial() {
                if self.partial_since.is_none() || !self.ready.is_empty() {
                    // A new frame started in this chunk (or the previous one finished).
                    self.partial_since = Some(Instant::now());
                }
            } else {
                self.partial_since = None;
            }
        }
    }
}

/// Bytes that may wait in one outbox before senders are held back.
const OUTBOX_BUDGET: usize = 1024 * 1024;

/// Bytes of Bastion's own answers (refusals, error responses) that may wait in one
/// outbox besides [`OUTBOX_BUDGET`]. Answers take this separate share so the task that
/// reads a peer never waits behind a large frame queued for that peer: a server blocked
/// writing its output while Bastion waits to write to it would otherwise deadlock.
const REPLY_BUDGET: usize = 64 * 1024;

/// One queued frame (newline included) and the share of the byte budget it holds until
/// written. Shared, so a caller can keep reading a large frame (to digest it) without a
/// copy.
pub(crate) struct Outgoing {
    bytes: Arc<Vec<u8>>,
    _permit: OwnedSemaphorePermit,
}

/// Outcome of [`Outbox::send_within`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Queued for writing.
    Queued,
    /// No room within the wait: the peer is not reading.
    Full,
    /// The writer is gone: the peer closed its end.
    Closed,
}

/// Sending side of a bounded (by bytes) frame queue to one pipe.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: mpsc::Sender<Outgoing>,
    budget: Arc<Semaphore>,
    replies: Arc<Semaphore>,
}

impl Outbox {
    pub(crate) fn new() -> (Self, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(4096);
        (
            Self {
                tx,
                budget: Arc::new(Semaphore::new(OUTBOX_BUDGET)),
                replies: Arc::new(Semaphore::new(REPLY_BUDGET)),
            },
            rx,
        )
    }

    /// Queues `frame` without waiting; returns `false` (dropping it) when the queue or its
    /// byte budget is full or the writer is gone. For messages that may be lost, such as
    /// `notifications/cancelled` to a server that stopped reading.
    pub(crate) fn try_send(&self, mut frame: Vec<u8>) -> bool {
        frame.push(b'\n');
        let want = u32::try_from(frame.len().min(OUTBOX_BUDGET)).unwrap_or(u32::MAX);
        let Ok(permit) = self.budget.clone().try_acquire_many_owned(want) else {
            return false;
        };
        self.tx
            .try_send(Outgoing {
                bytes: Arc::new(frame),
                _permit: permit,
            })
            .is_ok()
    }

    /// Queues one of Bastion's own answers (a newline is appended) without waiting: from
    /// the separate [`REPLY_BUDGET`] share when it fits there, so it is written in order
    /// with everything else but never waits behind a large queued frame; otherwise (that
    /// share is used up, or the answer is larger than it) from the main byte budget, as
    /// far as that has room now. When neither has room, or the writer is gone, the frame
    /// comes back (without the newline) with [`Sent::Full`] or [`Sent::Closed`], so the
    /// caller can wait with [`Outbox::send`] or audit the loss.
    pub(crate) fn try_send_reply(&self, mut frame: Vec<u8>) -> Result<(), (Vec<u8>, Sent)> {
        if self.tx.is_closed() {
            return Err((frame, Sent::Closed));
        }
        let len = frame.len() + 1;
        let permit = u32::try_from(len)
            .ok()
            .and_then(|want| self.replies.clone().try_acquire_many_owned(want).ok())
            .or_else(|| {
                let want = u32::try_from(len.min(OUTBOX_BUDGET)).ok()?;
                self.budget.clone().try_acquire_many_owned(want).ok()
            });
        let Some(permit) = permit else {
            return Err((frame, Sent::Full));
        };
        frame.push(b'\n');
        self.tx
            .try_send(Outgoing {
                bytes: Arc::new(frame),
                _permit: permit,
            })
            .map_err(|e| {
                let why = match e {
                    mpsc::error::TrySendError::Full(_) => Sent::Full,
                    mpsc::error::TrySendError::Closed(_) => Sent::Closed,
                };
                let mut frame = Arc::try_unwrap(e.into_inner().bytes).unwrap_or_default();
                frame.pop();
                (frame, why)
            })
    }

    /// Queues `frame`, waiting at most `wait` for room. A peer that does not read for that
    /// long gets [`Sent::Full`] instead of holding the caller (and everything queued behind
    /// it) indefinitely.
    pub(crate) async fn send_within(&self, frame: Vec<u8>, wait: std::time::Duration) -> Sent {
        if self.tx.is_closed() {
            return Sent::Closed;
        }
        match tokio::time::timeout(wait, self.send(frame)).await {
            Ok(true) => Sent::Queued,
            Ok(false) => Sent::Closed,
            Err(_) => Sent::Full,
        }
    }

    /// Queues `frame` (a newline is appended). Waits while the budget is used up.
    /// Returns `false` when the writer is gone (the peer closed its end).
    pub(crate) async fn send(&self, mut frame: Vec<u8>) -> bool {
        // A frame serialized here grew by doubling; the queue counts its length, so a
        // large spare half would wait uncounted. Given back before it queues.
        let spare = frame.capacity() - frame.len();
        if spare > 4096 && spare > frame.len() / 8 {
            frame.shrink_to(frame.len() + 1);
        }
        frame.push(b'\n');
        self.send_shared(Arc::new(frame)).await
    }

    /// Queues a frame that already ends with its newline, shared with the caller.
    pub(crate) async fn send_shared(&self, frame: Arc<Vec<u8>>) -> bool {
        let want = u32::try_from(frame.len().min(OUTBOX_BUDGET)).unwrap_or(u32::MAX);
        let Ok(permit) = self.budget.clone().acquire_many_owned(want).await else {
            return false;
        };
        self.tx
            .send(Outgoing {
                bytes: frame,
                _permit: permit,
            })
            .await
            .is_ok()
    }
}

/// Writes queued frames to `w`, flushing whenever the queue runs empty. Ends when every
/// outbox is dropped or `close` fires (after writing what is queued), or on a write
/// error (the peer is gone).
pub(crate) async fn write_frames<W: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<Outgoing>,
    w: W,
    close: Arc<tokio::sync::Notify>,
) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(64 * 1024, w);
    loop {
        let next = tokio::select! {
            biased;
            m = rx.recv() => m,
            () = close.notified() => {
                while let Ok(m) = rx.try_recv() {
                    w.write_all(&m.bytes).await?;
                }
                None
            }
        };
        let Some(first) = next else { break };
        w.write_all(&first.bytes).await?;
        drop(first);
        while let Ok(m) = rx.try_recv() {
            w.write_all(&m.bytes).await?;
        }
        w.flush().await?;
    }
    w.flush().await?;
    w.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_pass_a_full_outbox_until_their_own_share_is_used_up() {
        let (outbox, mut rx) = Outbox::new();
        // A frame as large as the whole budget, not yet written: other senders wait.
        assert!(outbox.send(vec![b'x'; OUTBOX_BUDGET]).await);
        let waiting = outbox.send_within(b"{}".to_vec(), std::time::Duration::from_millis(20));
        assert_eq!(waiting.await, Sent::Full);
        // Answers still go out, in order behind it, up to their own 64 KiB.
        let answer = vec![b'a'; 1023];
        let mut queued = 0;
        let refused = loop {
            match outbox.try_send_reply(answer.clone()) {
                Ok(()) => queued += 1,
                Err(back) => break back,
            }
        };
        assert_eq!(queued, REPLY_BUDGET / 1024);
        assert_eq!(
            refused,
            (answer.clone(), Sent::Full),
            "a refused answer is given back unchanged"
        );
        assert_eq!(rx.recv().await.unwrap().bytes.len(), OUTBOX_BUDGET + 1);
        let first = rx.recv().await.unwrap();
        assert_eq!(first.bytes.len(), 1024);
        assert_eq!(first.bytes.last(), Some(&b'\n'));
        drop(first);
        // A written answer frees its share again.
        assert!(outbox.try_send_reply(answer).is_ok());
    }

    #[tokio::test]
    async fn answers_use_the_main_budget_when_their_share_is_used_up_or_too_small() {
        let (outbox, mut rx) = Outbox::new();
        // 200 KiB of answers the peer has not read yet: more than the answers' share,
        // well within the main budget, so none is dropped.
        for _ in 0..200 {
            assert!(outbox.try_send_reply(vec![b'a'; 1023]).is_ok());
        }
        // An answer larger than the whole share goes out too.
        assert!(outbox.try_send_reply(vec![b'b'; REPLY_BUDGET * 2]).is_ok());
        for _ in 0..200 {
            assert_eq!(rx.recv().await.unwrap().bytes.len(), 1024);
        }
        assert_eq!(rx.recv().await.unwrap().bytes.len(), REPLY_BUDGET * 2 + 1);
        // The writer gone: the answer comes back as `Closed`, not `Full`.
        drop(rx);
        assert_eq!(
            outbox.try_send_reply(b"{}".to_vec()),
            Err((b"{}".to_vec(), Sent::Closed))
        );
    }

    #[tokio::test]
    async fn a_queued_frame_gives_back_the_spare_half_of_its_allocation() {
        let (outbox, mut rx) = Outbox::new();
        let mut frame = Vec::with_capacity(2 << 20);
        frame.resize(600_000, b'x');
        assert!(outbox.send(frame).await);
        let queued = rx.recv().await.unwrap();
        assert_eq!(queued.bytes.len(), 600_001);
        assert!(
            queued.bytes.capacity() < 700_000,
            "{}",
            queued.bytes.capacity()
        );
    }
}
