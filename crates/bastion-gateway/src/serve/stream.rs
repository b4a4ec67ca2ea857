//! The event streams of the listener's responses: one `text/event-stream` event per
//! JSON-RPC message (WHATWG HTML §9.2), and the bounded channel (messages and bytes) that
//! carries them from a session's router to a response body.

use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Messages buffered per event stream before a slow reader loses unsolicited ones.
pub(super) const STREAM_BUFFER: usize = 64;
/// Bytes of unsolicited messages buffered at most on one event stream, and on all of a
/// session's streams together ([`Budget`]); an answer to a stream's own request is always
/// delivered.
pub(super) const STREAM_BYTES: usize = 8 * 1024 * 1024;

/// A session's budget for unsolicited messages: [`STREAM_BYTES`] permits, one per byte,
/// that each queued message holds until its stream's reader takes it or the stream is
/// dropped. It counts every stream of the session, answered and replaced ones included,
/// whose reader has not taken what was queued on it.
pub(super) struct Budget(Arc<Semaphore>);

impl Default for Budget {
    fn default() -> Self {
        Self(Arc::new(Semaphore::new(STREAM_BYTES)))
    }
}

/// One queued event and the share of its session's [`Budget`] it holds (none for an
/// answer, which is always delivered).
struct Queued {
    event: Event,
    _share: Option<OwnedSemaphorePermit>,
}

/// The sending side of one event stream, with the bytes it holds unread.
pub(super) struct Outlet {
    tx: mpsc::Sender<Queued>,
    queued: Arc<AtomicUsize>,
    budget: Arc<Semaphore>,
}

/// The receiving side of one event stream (what the HTTP response body reads).
pub(super) struct Inlet {
    rx: mpsc::Receiver<Queued>,
    queued: Arc<AtomicUsize>,
    /// Whether the answer that ends the stream was taken.
    answered: bool,
    /// Run when the stream is dropped before its answer was taken (the client left).
    on_abandon: Option<Box<dyn FnOnce() + Send>>,
}

impl Drop for Inlet {
    fn drop(&mut self) {
        if !self.answered
            && let Some(hook) = self.on_abandon.take()
        {
            hook();
        }
    }
}

/// A stream holding at most `capacity` events, drawing on the session's `budget` for
/// unsolicited ones.
pub(super) fn stream_channel(capacity: usize, budget: &Budget) -> (Outlet, Inlet) {
    let (tx, rx) = mpsc::channel(capacity);
    let queued = Arc::new(AtomicUsize::new(0));
    (
        Outlet {
            tx,
            queued: queued.clone(),
            budget: budget.0.clone(),
        },
        Inlet {
            rx,
            queued,
            answered: false,
            on_abandon: None,
        },
    )
}

impl Outlet {
    /// Queues an unsolicited `event` unless the stream is full (count or bytes), the
    /// session's budget is used up, or the stream is gone.
    pub(super) fn try_push(&self, event: &Event) -> bool {
        let n = event.len();
        let Some(share) = u32::try_from(n)
            .ok()
            .and_then(|n| self.budget.clone().try_acquire_many_owned(n).ok())
        else {
            return false;
        };
        let item = Queued {
            event: event.clone(),
            _share: Some(share),
        };
        if self.queued.fetch_add(n, Ordering::AcqRel) + n > STREAM_BYTES
            || self.tx.try_send(item).is_err()
        {
            self.queued.fetch_sub(n, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// Queues the answer that ends this stream, outside any budget: at once when the
    /// stream has room (the usual case), else as soon as it has.
    pub(super) fn send_answer(self, event: Event) {
        self.queued.fetch_add(event.len(), Ordering::AcqRel);
        let item = Queued {
            event,
            _share: None,
        };
        if let Err(mpsc::error::TrySendError::Full(item)) = self.tx.try_send(item) {
            tokio::spawn(async move {
                let _ = self.tx.send(item).await;
            });
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl Inlet {
    /// Bytes of events queued on this stream and not yet read.
    #[cfg(test)]
    pub(super) fn queued_bytes(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// The next event, `None` once the stream has ended; its budget share is given back.
    pub(super) async fn recv(&mut self) -> Option<Event> {
        let item = self.rx.recv().await?;
        self.queued.fetch_sub(item.event.len(), Ordering::AcqRel);
        self.answered |= item.event.answer;
        Some(item.event)
    }

    /// Runs `hook` if this stream is dropped before its answer was taken (its HTTP
    /// client went away, or the response was never sent).
    pub(super) fn on_abandon(&mut self, hook: impl FnOnce() + Send + 'static) {
        self.on_abandon = Some(Box::new(hook));
    }
}

/// What [`sse_event`] puts before the message.
const SSE_PREFIX: &[u8] = b"event: message\ndata: ";
/// What it puts after.
const SSE_SUFFIX: &[u8] = b"\n\n";

/// One server-sent event (`text/event-stream`, WHATWG HTML §9.2): one JSON-RPC message,
/// marked when it is the answer that ends its `POST` stream.
#[derive(Clone)]
pub(super) struct Event {
    sse: bytes::Bytes,
    answer: bool,
}

impl Event {
    /// Bytes of the event as sent.
    pub(super) fn len(&self) -> usize {
        self.sse.len()
    }

    /// The event as sent on an event stream.
    pub(super) fn into_sse(self) -> bytes::Bytes {
        self.sse
    }

    /// The message alone (one line of JSON, no CR), when this event is the answer that
    /// ends its `POST` stream: the listener can then send it as `application/json`.
    pub(super) fn answer_json(&self) -> Option<bytes::Bytes> {
        self.answer.then(|| {
            self.sse
                .slice(SSE_PREFIX.len()..self.sse.len() - SSE_SUFFIX.len())
        })
    }

    pub(super) fn answering(mut self) -> Self {
        self.answer = true;
        self
    }
}

/// `event: message` with the JSON text as its single `data` line. The relay writes one
/// message per line, but JSON whitespace may hold a CR, which ends a line for an event
/// stream parser (WHATWG HTML §9.2.6) and would cut the message: such a message is
/// re-serialized without whitespace.
pub(super) fn sse_event(line: &[u8]) -> Event {
    let compact;
    let line = if memchr::memchr(b'\r', line).is_some() {
        compact = serde_json::from_slice::<Value>(line)
            .and_then(|v| serde_json::to_vec(&v))
            .unwrap_or_else(|_| line.iter().copied().filter(|&b| b != b'\r').collect());
        &compact[..]
    } else {
        line
    };
    let mut out = Vec::with_capacity(SSE_PREFIX.len() + line.len() + SSE_SUFFIX.len());
    out.extend_from_slice(SSE_PREFIX);
    out.extend_from_slice(line);
    out.extend_from_slice(SSE_SUFFIX);
    Event {
        sse: out.into(),
        answer: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_single_data_lines() {
        assert_eq!(
            &sse_event(br#"{"a":1}"#).into_sse()[..],
            b"event: message\ndata: {\"a\":1}\n\n"
        );
        // A CR as JSON whitespace would end the data line early for an SSE parser.
        let cr = sse_event(b"\r{\"a\":\r1}");
        assert_eq!(cr.answer_json(), None, "not marked as an answer");
        assert_eq!(
            &cr.clone().into_sse()[..],
            b"event: message\ndata: {\"a\":1}\n\n"
        );
        // The answer alone, as the body of an `application/json` response.
        assert_eq!(
            cr.answering().answer_json().as_deref(),
            Some(&b"{\"a\":1}"[..])
        );
    }
}
