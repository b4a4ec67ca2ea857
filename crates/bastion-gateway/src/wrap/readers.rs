//! Reading the two pipes of a `wrap` session: each frame is handed to the relay behind
//! its panic boundary ([`Relay::contain`]), frames cut short while reading (over the
//! limit, past the read timeout) are refused, and the small results' audit work runs
//! once the server's reader has no frame left (after the writers had their turn).

use crate::io::{FrameReader, ReadEvent};
use crate::relay::{HOST_TO_SERVER, Relay, SERVER_TO_HOST};
use bastion_core::finding::Code;
use bastion_core::json;
use std::pin::Pin;
use std::sync::Arc;
use tokio::io::AsyncRead;

/// `next` (the handling of one frame) in `slot`'s box, pinned: boxed for the first frame and
/// the allocation reused for every later one. A frame's handling is a future of several
/// KB (`on_host_frame` about 7 KB, `on_server_frame` 4 KB): a fresh allocation that size
/// per frame made the allocator consolidate its free lists each time, and a future passed
/// to [`Relay::contain`] by value was copied once more into each wrapper inside it.
fn reuse_slot<F: Future>(slot: &mut Option<Pin<Box<F>>>, next: F) -> Pin<&mut F> {
    match slot {
        Some(held) => {
            held.set(next);
            held.as_mut()
        }
        None => slot.insert(Box::pin(next)).as_mut(),
    }
}

/// Lets the tasks that are ready now (the writer a forwarded frame woke) run once, then
/// resumes: the task wakes itself and returns `Pending` once, so the scheduler queues it
/// behind them. Unlike `tokio::task::yield_now`, which on the current-thread runtime
/// resumes only after the I/O driver has been polled, this costs no `epoll_wait` call:
/// one system call less per answered frame.
#[derive(Default)]
struct YieldOnce {
    yielded: bool,
}

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.yielded {
            return std::task::Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// Reads the host's frames and hands each to the relay, behind the panic boundary
/// ([`Relay::contain`]): a bug in a check refuses that one frame, and reading goes on.
pub(super) async fn read_host<R: AsyncRead + Unpin>(
    relay: &Arc<Relay>,
    mut reader: FrameReader<R>,
) {
    let mut slot = None;
    loop {
        match reader.next().await {
            Ok(ReadEvent::Frame(f)) => {
                let f_len = f.len();
                let handling = reuse_slot(&mut slot, relay.on_host_frame(f));
                relay.contain(HOST_TO_SERVER, f_len, handling).await;
            }
            Ok(ReadEvent::Oversized { bytes, prefix }) => {
                let handling = async { relay.host_oversized(bytes, json::recover(&prefix)).await };
                relay.contain(HOST_TO_SERVER, bytes, handling).await;
            }
            Ok(ReadEvent::PartialTimeout { bytes, prefix }) => {
                let handling =
                    async { relay.host_read_timeout(bytes, json::recover(&prefix)).await };
                relay.contain(HOST_TO_SERVER, bytes, handling).await;
            }
            Ok(ReadEvent::Eof) | Err(_) => return,
        }
    }
}

/// Reads the server's frames and hands each to the relay, behind the panic boundary
/// ([`Relay::contain`]).
pub(super) async fn read_server<R: AsyncRead + Unpin>(relay: &Relay, mut reader: FrameReader<R>) {
    let mut slot = None;
    loop {
        match reader.next().await {
            Ok(ReadEvent::Frame(f)) => {
                let f_len = f.len();
                let handling = reuse_slot(&mut slot, relay.on_server_frame(f));
                relay.contain(SERVER_TO_HOST, f_len, handling).await;
                if !reader.has_ready() && relay.has_inline_jobs() {
                    // Let the writers send what was forwarded before the audit work.
                    YieldOnce::default().await;
                    relay.run_inline_jobs().await;
                }
            }
            Ok(ReadEvent::Oversized { bytes, prefix }) => {
                let detail = format!("a frame of {bytes} bytes exceeds the limit");
                server_cut_short(relay, Code::FrameTooLarge, &detail, &prefix, bytes).await;
            }
            Ok(ReadEvent::PartialTimeout { bytes, prefix }) => {
                let detail =
                    format!("a frame stayed incomplete ({bytes} bytes) beyond the read timeout");
                server_cut_short(relay, Code::ReadTimeout, &detail, &prefix, bytes).await;
            }
            Ok(ReadEvent::Eof) | Err(_) => {
                relay.run_inline_jobs().await;
                return;
            }
        }
    }
}

/// A server frame discarded while reading (`code`): what its `prefix` tells is
/// recovered and the frame is refused, behind the panic boundary.
pub(super) async fn server_cut_short(
    relay: &Relay,
    code: Code,
    detail: &str,
    prefix: &[u8],
    bytes: usize,
) {
    let handling = async {
        let rec = json::recover(prefix);
        relay.server_rejected(code, detail, &rec, bytes).await;
    };
    relay.contain(SERVER_TO_HOST, bytes, handling).await;
}

#[cfg(test)]
mod tests {
    use super::YieldOnce;
    use std::sync::{Arc, Mutex};

    /// A task woken before the yield (as the host's writer is by a forwarded answer) runs
    /// before the yielding task resumes, and the yield ends without another wake-up.
    #[test]
    fn yield_once_lets_a_task_woken_before_it_run_first() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let notify = Arc::new(tokio::sync::Notify::new());
        rt.block_on(async {
            let writer = tokio::spawn({
                let (order, notify) = (order.clone(), notify.clone());
                async move {
                    notify.notified().await;
                    order.lock().unwrap().push("writer");
                }
            });
            let reader = tokio::spawn({
                let (order, notify) = (order.clone(), notify.clone());
                async move {
                    notify.notify_one();
                    YieldOnce::default().await;
                    order.lock().unwrap().push("reader");
                }
            });
            reader.await.unwrap();
            writer.await.unwrap();
        });
        assert_eq!(*order.lock().unwrap(), ["writer", "reader"]);
    }
}
