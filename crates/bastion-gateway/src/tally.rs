//! Folding of refusal floods in the audit log: whoever can make Bastion refuse things
//! fast (a client reaching `serve`'s port without a token, a wrapped server writing
//! answers to ids nobody asked) could otherwise write one audit row per refusal and fill
//! the store's disk.
//!
//! Within each second (from the first refusal after the previous second ended), the first
//! [`REFUSALS_PER_SECOND`] refusals are recorded one row each, as before; the rest are
//! counted per method, verdict, reason and finding codes and recorded once the second is
//! over, one row per group with [`AuditEvent::count`] refusals and their total `bytes`,
//! stamped with the time of the group's first refusal. The audit keeps saying what
//! happened and how often; a flood costs at most `REFUSALS_PER_SECOND` + one row per
//! group and second (fewer when the ticker waited for the audit queue: the groups of
//! the seconds it missed are merged). Whoever holds a [`Tally`] runs a ticker that takes
//! the rows of ended seconds out ([`Tally::drain_due`]) and, at the end, the rest
//! ([`Tally::flush_all`]).

use bastion_store::AuditEvent;
use std::collections::BTreeMap;

/// Gate refusals recorded one row each per second, at most.
pub(crate) const REFUSALS_PER_SECOND: u32 = 50;

/// Length of a window, ms.
const WINDOW_MS: i64 = 1_000;

/// Groups folded per window at most: a client can vary the method and which of the
/// gate's rules its requests break (and so the codes); past this, further refusals of
/// the window fold into one overflow row per direction (kind, method and reason `*`, no
/// codes).
const MAX_GROUPS: usize = 64;

/// Folded rows of ended windows waiting for the ticker at most (when the audit queue
/// is full the ticker waits, and windows go on ending); past this, further groups merge
/// into the overflow row.
const MAX_DUE: usize = 4 * MAX_GROUPS;

/// What a folded group is keyed by: direction, message kind, method, verdict, reason,
/// codes.
type Key = (
    String,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Vec<String>,
);

/// The refusal tally of one listener or one relay (behind a mutex).
///
/// Only the owner's ticker takes folded rows out ([`Tally::drain_due`],
/// [`Tally::flush_all`]): whoever records a refusal takes out at most that refusal's own
/// row, so a request handler that is dropped while it waits for room in the audit queue
/// cannot take other refusals' counts with it.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Start of the current window (unix ms); 0 before the first refusal.
    window_start_ms: i64,
    /// Refusals recorded one row each in the current window.
    recorded: u32,
    /// Refusals past the rate in the current window, per group: the first event of the
    /// group (count and bytes accumulated into it).
    folded: BTreeMap<Key, AuditEvent>,
    /// Groups of ended windows the ticker has not recorded yet, merged per group.
    due: BTreeMap<Key, AuditEvent>,
}

impl Tally {
    /// Takes one refusal `event` at `now_ms` (unix ms): returns it when the current
    /// window's rate allows a row of its own; otherwise it is folded into its group (the
    /// ticker records the group once the window is over) and `None` is returned.
    pub(crate) fn take(&mut self, mut event: AuditEvent, now_ms: i64) -> Option<AuditEvent> {
        self.roll(now_ms);
        // A folded row carries the time of its group's first refusal, not the time the
        // ticker records it.
        if event.time_ms == 0 {
            event.time_ms = now_ms;
        }
        if self.window_start_ms == 0 {
            self.window_start_ms = now_ms;
        }
        if self.recorded < REFUSALS_PER_SECOND {
            self.recorded += 1;
            return Some(event);
        }
        fold(&mut self.folded, event, MAX_GROUPS);
        None
    }

    /// Keeps a refusal row the audit queue had no room for (a full queue) with the
    /// due rows, for the ticker to record (merged into its group there).
    pub(crate) fn defer(&mut self, event: AuditEvent) {
        fold(&mut self.due, event, MAX_DUE);
    }

    /// Moves the groups of the current window to the due rows once the window is over
    /// at `now_ms` (the next window starts empty).
    fn roll(&mut self, now_ms: i64) {
        // The clock set back (unix time, not monotonic) also ends the window: otherwise
        // no window would end, and nothing be recorded, until the clock caught up.
        let elapsed = now_ms - self.window_start_ms;
        if self.window_start_ms == 0 || (0..WINDOW_MS).contains(&elapsed) {
            return;
        }
        self.window_start_ms = 0;
        self.recorded = 0;
        self.end_window();
    }

    fn end_window(&mut self) {
        for event in std::mem::take(&mut self.folded).into_values() {
            fold(&mut self.due, event, MAX_DUE);
        }
    }

    /// The folded rows of every window over at `now_ms`, to record now (the ticker).
    /// `true` when no refusal is folded and no folded row waits: the ticker has nothing
    /// to do until a refusal is folded.
    pub(crate) fn is_idle(&self) -> bool {
        self.folded.is_empty() && self.due.is_empty()
    }

    pub(crate) fn drain_due(&mut self, now_ms: i64) -> Vec<AuditEvent> {
        self.roll(now_ms);
        std::mem::take(&mut self.due).into_values().collect()
    }

    /// Every folded row, whatever the time (the listener or the relay is stopping).
    pub(crate) fn flush_all(&mut self) -> Vec<AuditEvent> {
        self.window_start_ms = 0;
        self.recorded = 0;
        self.end_window();
        std::mem::take(&mut self.due).into_values().collect()
    }
}

/// Adds `event` (its `count` and `bytes`) to its group in `groups`; a new group past
/// `max` groups goes to the overflow group instead.
fn fold(groups: &mut BTreeMap<Key, AuditEvent>, event: AuditEvent, max: usize) {
    let mut key: Key = (
        event.direction.clone(),
        event.message_kind.clone(),
        event.method.clone(),
        event.verdict.clone(),
        event.reason.clone(),
        event.codes.clone(),
    );
    if !groups.contains_key(&key) && groups.len() >= max {
        key = (
            event.direction.clone(),
            Some("*".to_owned()),
            Some("*".to_owned()),
            event.verdict.clone(),
            Some("*".to_owned()),
            Vec::new(),
        );
    }
    if let Some(group) = groups.get_mut(&key) {
        group.count = group.count.saturating_add(event.count.max(1));
        group.bytes = group.bytes.saturating_add(event.bytes);
    } else {
        let mut group = event;
        group.count = group.count.max(1);
        group.message_kind.clone_from(&key.1);
        group.method.clone_from(&key.2);
        group.reason.clone_from(&key.4);
        group.codes.clone_from(&key.5);
        // The row stands for refusals of many requests and targets: the first one's
        // would mislead.
        group.request_id = None;
        group.tool = None;
        groups.insert(key, group);
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_DUE, MAX_GROUPS, REFUSALS_PER_SECOND, Tally, WINDOW_MS};
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
        // Nothing is due before the window ends.
        assert!(t.drain_due(start + WINDOW_MS - 1).is_empty());
        // The window ends: one row per group, counting every folded refusal.
        let folded = t.drain_due(start + WINDOW_MS);
        assert_eq!(folded.len(), 2, "{folded:?}");
        let total: i64 = folded.iter().map(|r| r.count).sum();
        assert_eq!(total + i64::from(REFUSALS_PER_SECOND), 10_000);
        for r in &folded {
            assert_eq!(r.bytes, 3 * r.count);
        }
        // A new window records at the rate again.
        let next = t.take(refusal("GET", "unauthorized", 0), start + WINDOW_MS + 1);
        assert!(next.is_some());
        assert!(t.flush_all().is_empty());
    }

    /// A request handler gets back at most its own refusal, never folded rows of other
    /// requests: a client that leaves while its handler waits for the audit queue
    /// would take those with it. They wait for the ticker, merged across windows.
    #[test]
    fn folded_rows_of_ended_windows_wait_for_the_ticker_not_for_the_next_refusal() {
        let mut t = Tally::default();
        for _ in 0..=REFUSALS_PER_SECOND {
            drop(t.take(refusal("POST", "unauthorized", 1), 5_000));
        }
        // The next window: the handler gets its own row only.
        let own = t.take(refusal("POST", "unauthorized", 1), 5_000 + WINDOW_MS);
        assert_eq!(own.map(|r| r.count), Some(1));
        // Another window's refusals past the rate fold into the same due row.
        for _ in 0..REFUSALS_PER_SECOND {
            drop(t.take(refusal("POST", "unauthorized", 1), 5_000 + WINDOW_MS));
        }
        let due = t.drain_due(5_000 + 2 * WINDOW_MS);
        assert_eq!(due.len(), 1, "{due:?}");
        assert_eq!(
            due[0].count, 2,
            "one folded refusal from each window: {due:?}"
        );
        assert!(t.drain_due(5_000 + 3 * WINDOW_MS).is_empty());
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

    /// A clock set back ends the current window (no refusals held back until it
    /// catches up); folded rows keep the time of their first refusal.
    #[test]
    fn a_clock_set_back_ends_the_window_and_rows_keep_their_first_time() {
        let mut t = Tally::default();
        for _ in 0..=REFUSALS_PER_SECOND {
            drop(t.take(refusal("POST", "unauthorized", 1), 50_000));
        }
        drop(t.take(refusal("POST", "unauthorized", 1), 50_400));
        let due = t.drain_due(50_000 - 3_600_000);
        assert_eq!(due.len(), 1, "{due:?}");
        assert_eq!(due[0].count, 2);
        assert_eq!(due[0].time_ms, 50_000);
        // The new window starts at the new time and records at the rate again.
        assert!(
            t.take(refusal("POST", "unauthorized", 1), 50_000 - 3_600_000)
                .is_some()
        );
    }

    /// A row of its own the audit queue had no room for waits for the ticker, counted
    /// with its group.
    #[test]
    fn a_deferred_row_is_recorded_by_the_ticker() {
        let mut t = Tally::default();
        let own = t.take(refusal("POST", "unauthorized", 4), 70_000).unwrap();
        t.defer(own);
        let due = t.drain_due(70_000);
        assert_eq!(due.len(), 1, "{due:?}");
        assert_eq!((due[0].count, due[0].bytes, due[0].time_ms), (1, 4, 70_000));
    }

    /// While the ticker waits (audit queue full), windows go on ending with new groups:
    /// the rows waiting for it stay bounded and keep every count.
    #[test]
    fn rows_waiting_for_a_stalled_ticker_stay_bounded() {
        let mut t = Tally::default();
        let mut total = 0i64;
        for w in 0..50i64 {
            let now = 20_000 + w * WINDOW_MS;
            for _ in 0..REFUSALS_PER_SECOND {
                drop(t.take(refusal("POST", "unauthorized", 0), now));
            }
            for g in 0..MAX_GROUPS {
                drop(t.take(refusal(&format!("M{w}-{g}"), "method_not_allowed", 0), now));
                total += 1;
            }
        }
        let due = t.drain_due(20_000 + 60 * WINDOW_MS);
        assert!(due.len() <= MAX_DUE + 1, "{}", due.len());
        assert_eq!(due.iter().map(|r| r.count).sum::<i64>(), total);
    }
}
