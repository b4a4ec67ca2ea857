//! The listener's ticker for the [`crate::tally::Tally`] of its gate refusals.

use super::Shared;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// The ticker: records the folded refusals of each ended second, also when no further
/// refusal comes (checked every 250 ms). When `stop` is notified it records every
/// folded row and ends; it is awaited, never aborted, so no row it took out is lost.
pub(super) async fn flush_refusals(shared: Weak<Shared>, stop: Arc<Notify>) {
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        let stopping = tokio::select! {
            _ = tick.tick() => false,
            () = stop.notified() => true,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let rows = if stopping {
            shared.refusals().flush_all()
        } else {
            shared.refusals().drain_due(crate::now_ms())
        };
        for row in rows {
            shared.audit.record(row).await;
        }
        if stopping {
            return;
        }
    }
}

/// Records every folded row left, whatever the time: after the sessions have ended, for
/// refusals that requests still running folded after the ticker stopped.
pub(super) async fn flush_at_shutdown(shared: &Shared) {
    let rows = shared.refusals().flush_all();
    for row in rows {
        shared.audit.record(row).await;
    }
}
