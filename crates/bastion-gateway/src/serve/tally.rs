//! Folding of the listener's gate refusals in the audit log (review finding: anyone who
//! can reach the port, without a token, could otherwise write one audit row per request
//! and fill the store's disk).
//!
//! Within each second (from the first refusal after the previous second ended), the first
//! [`REFUSALS_PER_SECOND`] refusals are recorded one row each, as before; the rest are
//! counted per method, verdict, reason and finding codes and recorded once the second is
//! over, one row per group with [`AuditEvent::count`] refusals and their total `bytes`.
//! The audit keeps saying what happened and how often; a flood costs at most
//! `REFUSALS_PER_SECOND` + one row per group and second.

use super::Shared;
use bastion_store::AuditEvent;
use std::collections::BTreeMap;
use std::sync::Weak;
use std::time::Duration;

/// Gate refusals recorded one row each per second, at most.
pub(super) const REFUSALS_PER_SECOND: u32 = 50;

/// Length of a window, ms.
const WINDOW_MS: i64 = 1_000;

/// Groups folded per window at most: a client can vary the method and which of the
/// gate's rules its requests break (and so the codes); past this, further refusals of
/// the window fold into one overflow row (method, reason `*`, no codes).
const MAX_GROUPS: usize = 64;

/// What a folded group is keyed by: method, verdict, reason, codes.
type Key = (Option<String>, String, Option<String>, Vec<String>);

/// The refusal tally of one listener (behind a mutex in the listener's shared state).
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Start of the current window (unix ms); 0 before the first refusal.
    window_start_ms: i64,
    /// Refusals recorded one row each in the current window.
    recorded: u32,
    /// Refusals past the rate in the current window, per group: the first event of the
    /// group (count and bytes accumulated into it).
    folded: BTreeMap<Key, AuditEvent>,
}

impl Tally {
    /// Takes one refusal `event` at `now_ms` (unix ms): returns the rows to record now,
    /// the folded groups of a window that has ended first, then `event` itself when the
    /// current window's rate allows it (otherwise it is folded).
    pub(super) fn take(&mut self, event: AuditEvent, now_ms: i64) -> Vec<AuditEvent> {
        let mut out = self.flush_due(now_ms);
        if self.window_start_ms == 0 {
            self.window_start_ms = now_ms;
        }
        if self.recorded < REFUSALS_PER_SECOND {
            self.recorded += 1;
            out.push(event);
            return out;
        }
        let mut key: Key = (
            event.method.clone(),
            event.verdict.clone(),
            event.reason.clone(),
            event.codes.clone(),
        );
        if !self.folded.contains_key(&key) && self.folded.len() >= MAX_GROUPS {
            key = (
                Some("*".to_owned()),
                event.verdict.clone(),
                Some("*".to_owned()),
                Vec::new(),
            );
        }
        if let Some(group) = self.folded.get_mut(&key) {
            group.count = group.count.saturating_add(event.count.max(1));
            group.bytes = group.bytes.saturating_add(event.bytes);
        } else {
            let mut group = event;
            group.method.clone_from(&key.0);
            group.reason.clone_from(&key.2);
            group.codes.clone_from(&key.3);
            self.folded.insert(key, group);
        }
        out
    }

    /// The folded groups of the current window once it is over at `now_ms` (the next
    /// window starts empty); nothing before.
    pub(super) fn flush_due(&mut self, now_ms: i64) -> Vec<AuditEvent> {
        if self.window_start_ms == 0 || now_ms - self.window_start_ms < WINDOW_MS {
            return Vec::new();
        }
        self.window_start_ms = 0;
        self.recorded = 0;
        self.flush_all()
    }

    /// Every folded group, whatever the time (the listener is stopping).
    pub(super) fn flush_all(&mut self) -> Vec<AuditEvent> {
        std::mem::take(&mut self.folded).into_values().collect()
    }
}

/// Records the folded refusals of each ended second, also when no further refusal comes
/// to push them out (checked every 250 ms); ends with the listener.
pub(super) async fn flush_refusals(shared: Weak<Shared>) {
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tick.tick().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let rows = shared.refusals().flush_due(crate::now_ms());
        for row in rows {
            shared.audit.record(row).await;
        }
    }
}

/// Records every folded group, whatever the time (the listener is stopping).
pub(super) async fn flush_at_shutdown(shared: &Shared) {
    let rows = shared.refusals().flush_all();
    for row in rows {
        shared.audit.record(row).await;
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_GROUPS, REFUSALS_PER_SECOND, Tally, WINDOW_MS};
    use bastion_store::AuditEvent;

    fn refusal(method: &str, reason: &str, bytes: i64) -> AuditEvent {
        AuditEvent {
            method: Some(method.to_owned()),
            verdict: "block".into(),
            reason: Some(reason.to_owned()),
            bytes,
            ..AuditEvent::default()
        }
    }

    #[test]
    fn a_flood_past_the_rate_folds_into_one_row_per_group_and_window() {
        let mut t = Tally::default();
        let start = 1_000_000;
        let mut rows = Vec::new();
        for i in 0..10_000 {
            let reason = if i % 2 == 0 {
                "unauthorized"
            } else {
                "origin_not_allowed"
            };
            rows.extend(t.take(refusal("POST", reason, 3), start + i / 100));
        }
        // Within the first window: only the rate's rows.
        assert_eq!(rows.len(), REFUSALS_PER_SECOND as usize);
        assert!(rows.iter().all(|r| r.count == 1));
        // The window ends: one row per group, counting every folded refusal.
        let folded = t.flush_due(start + WINDOW_MS);
        assert_eq!(folded.len(), 2, "{folded:?}");
        let total: i64 = folded.iter().map(|r| r.count).sum();
        assert_eq!(total + i64::from(REFUSALS_PER_SECOND), 10_000);
        for r in &folded {
            assert_eq!(r.bytes, 3 * r.count);
        }
        // A new window records at the rate again.
        let next = t.take(refusal("GET", "unauthorized", 0), start + WINDOW_MS + 1);
        assert_eq!(next.len(), 1);
        assert!(t.flush_all().is_empty());
    }

    #[test]
    fn folded_groups_of_an_ended_window_come_out_with_the_next_refusal() {
        let mut t = Tally::default();
        for _ in 0..=REFUSALS_PER_SECOND {
            drop(t.take(refusal("POST", "unauthorized", 1), 5_000));
        }
        let rows = t.take(refusal("POST", "unauthorized", 1), 5_000 + WINDOW_MS);
        assert_eq!(
            rows.len(),
            2,
            "the folded group, then this refusal: {rows:?}"
        );
        assert_eq!(rows[0].count, 1);
        assert_eq!(rows[1].count, 1);
        assert!(t.flush_due(5_000 + WINDOW_MS).is_empty());
    }

    #[test]
    fn varied_methods_and_codes_cannot_grow_the_groups_without_bound() {
        let mut t = Tally::default();
        for _ in 0..REFUSALS_PER_SECOND {
            drop(t.take(refusal("POST", "unauthorized", 0), 9_000));
        }
        for i in 0..10_000 {
            let mut r = refusal(&format!("M{}", i % 300), "method_not_allowed", 0);
            // Which of ten rules a request breaks: 1,024 code lists.
            r.codes = (0..10)
                .filter(|b| i >> b & 1 == 1)
                .map(|b| format!("rule_{b}"))
                .collect();
            drop(t.take(r, 9_000));
        }
        let folded = t.flush_all();
        assert!(folded.len() <= MAX_GROUPS + 1, "{}", folded.len());
        assert_eq!(folded.iter().map(|r| r.count).sum::<i64>(), 10_000);
        let overflow = folded
            .iter()
            .find(|r| r.method.as_deref() == Some("*"))
            .expect("an overflow row");
        assert_eq!(overflow.reason.as_deref(), Some("*"));
        assert!(overflow.codes.is_empty());
    }
}
