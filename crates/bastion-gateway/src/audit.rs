//! The audit sink: a bounded queue in front of the store, drained in batches by one
//! writer task. Senders wait when the queue is full (back-pressure), so no event is
//! dropped silently; a store failure is reported on stderr once per outage.
//!
//! While the store is failing (locked beyond its busy timeout, read-only, disk full),
//! [`AuditSink::refuses_calls`] is `true` and the relay refuses `tools/call` with reason
//! `audit_unavailable` (issue 9 §3): a call that cannot be audited does not run. The
//! first successful write ends the outage. [`AuditSink::fail_open`] (config
//! `[audit] fail_closed = false`) keeps forwarding calls during an outage instead.

use bastion_store::{AuditEvent, Store};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Queue capacity, events.
const CAPACITY: usize = 4 * 1024;
/// Events written per transaction at most.
const BATCH: usize = 2048;
/// How long the writer lets events accumulate after the first one arrives, so that a
/// busy gateway writes a few transactions per second instead of one per message.
const LINGER: std::time::Duration = std::time::Duration::from_millis(100);
/// Batches smaller than this wait [`LINGER`] for more events; larger ones are written at
/// once.
const LINGER_BELOW: usize = 64;

/// Cloneable handle that records audit events for one server name.
#[derive(Debug, Clone)]
pub struct AuditSink {
    tx: mpsc::Sender<AuditEvent>,
    server: Arc<str>,
    /// This process's [`crate::instance_id`].
    instance: Arc<str>,
    /// `true` from a failed write until the next successful one.
    unavailable: Arc<AtomicBool>,
    /// Refuse tool calls while `unavailable` (default `true`).
    fail_closed: bool,
}

impl AuditSink {
    /// Starts the writer on `store`, on a blocking thread of the calling runtime
    /// (building the batched statements costs about as much as relaying the messages; a
    /// gateway's relay thread must not carry it); events recorded through the returned
    /// sink are stamped with `server` and this process's [`crate::instance_id`]. The writer ends when every sink clone is dropped,
    /// after writing what is queued; the returned handle completes then.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub fn start(store: Store, server: &str) -> (Self, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<AuditEvent>(CAPACITY);
        let unavailable = Arc::new(AtomicBool::new(false));
        let health = unavailable.clone();
        let sink = Self {
            tx,
            server: server.into(),
            instance: crate::instance_id().into(),
            unavailable,
            fail_closed: true,
        };
        let runtime = tokio::runtime::Handle::current();
        // The writer's own work runs on this thread; the store's tasks and timers stay
        // on the runtime that opened it.
        let handle = tokio::task::spawn_blocking(move || {
            runtime.block_on(write_events(store, rx, &health));
        });
        (sink, handle)
    }

    /// Keeps forwarding tool calls while the store cannot be written (config
    /// `[audit] fail_closed = false`); the outage is still reported on stderr.
    #[must_use]
    pub fn fail_open(mut self) -> Self {
        self.fail_closed = false;
        self
    }

    /// `true` while the last write to the store failed and the sink fails closed: the
    /// relay then refuses `tools/call` with reason `audit_unavailable`.
    pub fn refuses_calls(&self) -> bool {
        self.fail_closed && self.unavailable.load(Ordering::Acquire)
    }

    /// [`AuditSink::record`] for a thread outside the runtime: blocks while the queue is
    /// full. Must not be called from an async task.
    pub fn record_blocking(&self, mut event: AuditEvent) {
        self.stamp(&mut event);
        let _ = self.tx.blocking_send(event);
    }

    fn stamp(&self, event: &mut AuditEvent) {
        event.server = self.server.to_string();
        if event.instance.is_none() {
            event.instance = Some(self.instance.to_string());
        }
        if event.time_ms == 0 {
            event.time_ms = crate::now_ms();
        }
    }

    /// [`AuditSink::record`] without waiting: `Err` gives `event` back (stamped) when
    /// the queue is full, so the caller can keep it elsewhere rather than wait (a task
    /// that may be dropped while waiting would lose it). A closed queue (shutting down)
    /// counts as recorded.
    ///
    /// # Errors
    /// The event itself, when the queue is full.
    #[allow(clippy::result_large_err)]
    pub fn try_record(&self, mut event: AuditEvent) -> Result<(), AuditEvent> {
        self.stamp(&mut event);
        match self.tx.try_send(event) {
            Err(mpsc::error::TrySendError::Full(event)) => Err(event),
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => Ok(()),
        }
    }

    /// Records one event (its `server`, its `instance` when unset and, when 0,
    /// `time_ms` are filled in). Waits while the queue is full.
    pub async fn record(&self, mut event: AuditEvent) {
        self.stamp(&mut event);
        // A closed queue means the gateway is shutting down; nothing to do then.
        let _ = self.tx.send(event).await;
    }
}

/// The writer loop: drains the queue in batches into the store until every sender is
/// gone. A store failure is reported on stderr once per outage and sets `unavailable`
/// until a write succeeds again.
async fn write_events(store: Store, mut rx: mpsc::Receiver<AuditEvent>, unavailable: &AtomicBool) {
    let mut failing = false;
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        // Light load: let a few more events arrive so one transaction carries
        // them. Under load the queue already holds a batch's worth: write at
        // once, or the linger itself would cap the gateway's message rate.
        if batch.len() < LINGER_BELOW {
            // The writer has this thread to itself (see `start`): no runtime timer needed,
            // so a runtime shutting down cannot interrupt it.
            std::thread::sleep(LINGER);
            while batch.len() < BATCH {
                match rx.try_recv() {
                    Ok(e) => batch.push(e),
                    Err(_) => break,
                }
            }
        }
        match store.record_audit_batch(&batch).await {
            Ok(()) => {
                if failing {
                    eprintln!(
                        "mcp-bastion: audit store {} is writable again",
                        store.location()
                    );
                }
                failing = false;
                unavailable.store(false, Ordering::Release);
            }
            Err(e) => {
                unavailable.store(true, Ordering::Release);
                if !failing {
                    // The database's own words (`database or disk is full`, `disk I/O
                    // error`, `attempt to write a readonly database`) say what to fix.
                    let cause = std::error::Error::source(&e)
                        .map(|c| format!(": {c}"))
                        .unwrap_or_default();
                    eprintln!(
                        "mcp-bastion: cannot write the audit log ({e}{cause}); {} event(s) lost, will retry with the next ones; until it is writable again tool calls are refused (reason audit_unavailable) unless `[audit] fail_closed = false`",
                        batch.len()
                    );
                }
                failing = true;
            }
        }
        batch.clear();
    }
}
