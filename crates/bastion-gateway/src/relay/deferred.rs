//! Audit work of results (instruction scan, frame digest) off the relay's critical
//! path: small results' work waits until the reader runs out of frames (so the answer
//! is written first), large results' work and pipelined batches go to one worker thread
//! through a queue bounded in jobs and bytes.

use super::Relay;
use crate::audit::AuditSink;
use bastion_store::AuditEvent;
use std::sync::{Arc, PoisonError};

/// Result frames up to this size get their audit work (instruction scan, digest) on the
/// relay thread right after forwarding; larger ones on the audit worker thread, bytes.
pub(super) const INLINE_AUDIT_BYTES: usize = 16 * 1024;

/// A piece of audit work: computes the finished event.
pub(super) type Job = Box<dyn FnOnce() -> AuditEvent + Send>;

/// Audit work for the worker thread: computes finished events, in order.
pub(super) type Work = Box<dyn FnOnce() -> Vec<AuditEvent> + Send>;

/// One worker thread for the audit work of results (instruction scan, digest), fed
/// through a queue bounded in jobs and in the bytes they hold: the relay thread forwards
/// and moves on; when the worker falls behind, the relay waits (back-pressure). One
/// thread keeps per-thread buffers and allocator arenas to one set. The thread starts
/// with the first piece of work: a relay whose results all stay small (audited on the
/// relay thread) never starts one, which matters for `serve`, with a relay per host
/// session.
pub(super) struct Deferred {
    tx: tokio::sync::mpsc::Sender<(Work, tokio::sync::OwnedSemaphorePermit)>,
    budget: Arc<tokio::sync::Semaphore>,
    /// The worker's end of the queue and its audit sink, until the thread starts.
    idle: std::sync::Mutex<Option<(Queue, AuditSink)>>,
}

/// The worker's end of the queue.
type Queue = tokio::sync::mpsc::Receiver<(Work, tokio::sync::OwnedSemaphorePermit)>;

/// Small-result audit jobs that may wait for [`Relay::run_inline_jobs`]; when this many
/// wait, the reader has not run out of frames for a while (pipelined load) and they go to
/// the worker thread as one piece of work.
const INLINE_JOBS: usize = 256;

impl Relay {
    /// Keeps the audit work of a small result until the reader runs out of frames;
    /// hands the waiting jobs to the worker thread when [`INLINE_JOBS`] are waiting.
    pub(super) async fn audit_inline(&self, job: Job) {
        let full = {
            let mut jobs = self
                .inline_jobs
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            jobs.push(job);
            (jobs.len() >= INLINE_JOBS).then(|| std::mem::take(&mut *jobs))
        };
        if let Some(jobs) = full {
            let bytes = jobs.len() * INLINE_AUDIT_BYTES / 4;
            let work: Work = Box::new(move || jobs.into_iter().filter_map(run_job).collect());
            for event in self.deferred.run(work, bytes).await.unwrap_or_default() {
                self.audit.record(event).await;
            }
        }
    }

    /// `true` when small-result audit work waits.
    pub(crate) fn has_inline_jobs(&self) -> bool {
        !self
            .inline_jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// Runs the waiting small-result audit jobs and records their events, in order.
    pub(crate) async fn run_inline_jobs(&self) {
        let jobs = std::mem::take(
            &mut *self
                .inline_jobs
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for event in jobs.into_iter().filter_map(run_job) {
            self.audit.record(event).await;
        }
    }
}

/// Runs one job; a panic in it (a bug) loses that job's event only, and says so.
fn run_job(job: Job) -> Option<AuditEvent> {
    let event = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).ok();
    if event.is_none() {
        eprintln!(
            "mcp-bastion: the audit work of a result failed inside mcp-bastion (a bug); its audit event is missing"
        );
    }
    event
}

/// Jobs that may wait for the worker.
const DEFERRED_JOBS: usize = 64;
/// Frame bytes the waiting jobs may hold, bytes. A job also holds the frame's parsed
/// tree, which is about the frame's size for text and can be many times it for a frame
/// of many small members, and that is not counted. 1 MiB is 15 results of 64 KiB: enough
/// to keep the worker busy while the relay reads on (the worker is the slower of the
/// two). With 2 MiB the gateway's peak RSS in the harness's pipelined 64 KiB phase was
/// about 2.5 MiB higher.
const DEFERRED_BYTES: usize = 1024 * 1024;

impl Deferred {
    pub(super) fn start(audit: AuditSink) -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel(DEFERRED_JOBS);
        Self {
            tx,
            budget: Arc::new(tokio::sync::Semaphore::new(DEFERRED_BYTES)),
            idle: std::sync::Mutex::new(Some((rx, audit))),
        }
    }

    /// Starts the worker thread unless it runs already. When the thread cannot be
    /// started, the queue's end is dropped, so every job runs on the relay thread.
    fn ensure_worker(&self) {
        let Some((mut rx, audit)) = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("bastion-audit".into())
            .spawn(move || {
                while let Some((work, permit)) = rx.blocking_recv() {
                    // A panic in one piece of work (a bug) must not end the thread: later
                    // results would then be audited on the relay thread.
                    let events =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                            .unwrap_or_else(|_| {
                                eprintln!(
                                    "mcp-bastion: the audit work of a result failed inside mcp-bastion (a bug); its audit events are missing"
                                );
                                Vec::new()
                            });
                    drop(permit);
                    for event in events {
                        audit.record_blocking(event);
                    }
                }
            });
        if let Err(e) = spawned {
            eprintln!(
                "mcp-bastion: cannot start the audit worker thread ({e}); results are audited inline"
            );
        }
    }

    /// Queues `job`, which holds `bytes` of frame data, waiting while the queue is full;
    /// runs it here when the worker is gone and returns its events in that case.
    pub(super) async fn run(&self, job: Work, bytes: usize) -> Option<Vec<AuditEvent>> {
        self.ensure_worker();
        let want = u32::try_from(bytes.clamp(1, DEFERRED_BYTES)).unwrap_or(u32::MAX);
        let Ok(permit) = self.budget.clone().acquire_many_owned(want).await else {
            return Some(job());
        };
        match self.tx.send((job, permit)).await {
            Ok(()) => None,
            Err(tokio::sync::mpsc::error::SendError((job, _))) => Some(job()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_worker_thread_starts_with_the_first_piece_of_work_and_audits_it() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("audit.db").display());
        let store = bastion_store::Store::open(&url).await.unwrap();
        let (sink, writer) = AuditSink::start(store.clone(), "deferred");
        let deferred = Deferred::start(sink.clone());
        let idle = |d: &Deferred| d.idle.lock().unwrap().is_some();
        assert!(idle(&deferred), "a thread before any work");
        let work: Work = Box::new(|| {
            vec![AuditEvent {
                direction: "server_to_host".into(),
                verdict: "allow".into(),
                bytes: 70_000,
                ..AuditEvent::default()
            }]
        });
        assert!(
            deferred.run(work, 70_000).await.is_none(),
            "the work went to the worker, not back to the relay"
        );
        assert!(!idle(&deferred), "the worker runs now");
        // The worker ends with the queue, then the writer with the last sink.
        drop(deferred);
        drop(sink);
        writer.await.unwrap();
        let events = store
            .audit_events(&bastion_store::AuditQuery::default())
            .await
            .unwrap();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].bytes, 70_000);
    }
}
