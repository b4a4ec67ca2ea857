//! The server's messages that answer no host request are folded in the audit log past
//! [`crate::tally::REFUSALS_PER_SECOND`] a second: refusals (answers to ids nobody asked,
//! frames that fail the limits, the strict parse or the envelope, request methods sent as
//! notifications, refused server requests and elicitations, forged elicitation
//! completions, withheld `list_changed`, and Bastion's error answers to the server that
//! it did not read), and what is passed on without being asked for: notifications and
//! null-id errors. A server writing such frames as fast as it can would otherwise write
//! one audit row per frame (100,000 frames, 100,000 rows; 390,000 log notifications in 5
//! s were 39 MB). Messages that answer a host request keep a row each: that row names
//! the request.

use super::Relay;
use crate::tally::Tally;
use bastion_store::AuditEvent;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::Notify;

/// How often the ticker records the folded rows of ended seconds while any are folded.
const TICK: Duration = Duration::from_millis(250);

/// The relay's refusal tally and the wake-up of its ticker.
#[derive(Default)]
pub(super) struct Refusals {
    tally: Mutex<Tally>,
    /// Notified when a refusal is folded: an idle session's ticker sleeps until then.
    folded: Notify,
}

impl Relay {
    fn refusals(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.refusals
            .tally
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `event`, the event of a server frame that answers no host request: a row
    /// of its own while the second's rate allows, else folded into its group's row
    /// ([`crate::tally::Tally::take`]). Returns `true` when it got a row of its own:
    /// callers say so on stderr only then, so that a flood does not fill the log the
    /// host keeps of it either.
    pub(super) async fn record_unrequested(&self, event: AuditEvent) -> bool {
        let own = self.refusals().take(event, crate::now_ms());
        if let Some(event) = own {
            self.audit.record(event).await;
            true
        } else {
            self.refusals.folded.notify_one();
            false
        }
    }

    /// The ticker: records the folded rows of each ended second, also when no further
    /// refusal comes; runs for the session, waking every [`TICK`] only while refusals are
    /// folded (an idle session does not wake for it). It never waits for room in the
    /// audit queue (a row that finds it full goes back into the tally for the next tick),
    /// so it can be aborted between ticks without losing a row it took out.
    pub(crate) async fn record_folded_refusals(&self) {
        loop {
            if self.refusals().is_idle() {
                self.refusals.folded.notified().await;
            }
            tokio::time::sleep(TICK).await;
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

#[cfg(test)]
mod tests {
    use super::super::shown_method;

    #[test]
    fn methods_are_audited_and_printed_cut_to_their_limit() {
        assert_eq!(shown_method("tools/call"), "tools/call");
        let exact = "m".repeat(256);
        assert_eq!(shown_method(&exact), exact.as_str());
        let long = "m".repeat(1_000_000);
        let shown = shown_method(&long);
        assert_eq!(shown.len(), 256 + '…'.len_utf8());
        assert!(shown.ends_with('…'));
        // Cut on a character boundary: 255 ASCII bytes, then a 3-byte character.
        let wide = format!("{}€€", "a".repeat(255));
        assert_eq!(shown_method(&wide), format!("{}…", "a".repeat(255)));
    }
}
