//! The server's refusals that answer no request (answers to ids nobody asked, frames that
//! fail the limits, the strict parse or the envelope, request methods sent as
//! notifications) are folded in the audit log past [`crate::tally::REFUSALS_PER_SECOND`]
//! a second: a server writing such frames as fast as it can would otherwise write one
//! audit row per frame (100,000 frames, 100,000 rows). Refusals that answer a host request
//! keep a row each: that row names the request.

use super::Relay;
use bastion_store::AuditEvent;
use std::sync::PoisonError;
use std::time::Duration;

/// How often the ticker records the folded rows of ended seconds.
const TICK: Duration = Duration::from_millis(250);

impl Relay {
    fn refusals(&self) -> std::sync::MutexGuard<'_, crate::tally::Tally> {
        self.refusals.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `event`, a refusal of a server frame that answers no request: a row of
    /// its own while the second's rate allows, else folded into its group's row
    /// ([`crate::tally::Tally::take`]).
    pub(super) async fn record_refusal(&self, event: AuditEvent) {
        let own = self.refusals().take(event, crate::now_ms());
        if let Some(event) = own {
            self.audit.record(event).await;
        }
    }

    /// The ticker: records the folded rows of each ended second, also when no further
    /// refusal comes; runs for the session. It never waits for room in the audit queue
    /// (a row that finds it full goes back into the tally for the next tick), so it can
    /// be aborted between ticks without losing a row it took out.
    pub(crate) async fn record_folded_refusals(&self) {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let rows = self.refusals().drain_due(crate::now_ms());
            for row in rows {
                if let Err(row) = self.audit.try_record(row) {
                    self.refusals().defer(row);
                }
            }
        }
    }

    /// Records every folded row left, whatever the time (the session is ending).
    pub(crate) async fn flush_refusals(&self) {
        let rows = self.refusals().flush_all();
        for row in rows {
            self.audit.record(row).await;
        }
    }
}
