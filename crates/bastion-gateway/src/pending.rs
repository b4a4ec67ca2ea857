//! Request correlation: host requests waiting for the server's answer (with deadlines),
//! server requests waiting for the host's answer.

use bastion_core::envelope::Id;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use tokio::time::Instant;

/// Maps that never held more than this many requests at once keep their table.
const KEPT_REQUESTS: usize = 1024;

/// Gives back most of `map`'s table once it holds under an eighth of the most it held
/// since its table was last sized (`high`): a burst of pipelined requests has been
/// answered. A `HashMap` never shrinks by itself, so 10,000 requests in flight once would
/// hold their table (about 4 MB here) for the rest of the session. The decision reads the
/// high-water mark, not `capacity()`, which removals that leave tombstones lower while
/// the table stays as large. The map keeps room for twice what it holds, so a steady
/// load does not shrink and regrow it; maps that never held more than
/// [`KEPT_REQUESTS`] are left alone.
fn give_back<K: Eq + Hash, V>(map: &mut HashMap<K, V>, high: &mut usize) {
    if *high > KEPT_REQUESTS && map.len() < *high / 8 {
        map.shrink_to(map.len() * 2);
        *high = map.len();
    }
}

/// A host request forwarded to the server.
#[derive(Debug, Clone)]
pub(crate) struct HostRequest {
    pub(crate) method: String,
    /// `tools/call` tool name, `prompts/get` name or `resources/read` uri.
    pub(crate) target: Option<String>,
    /// The id exactly as the host sent it.
    pub(crate) raw_id: Value,
    pub(crate) deadline: Instant,
    seq: u64,
    /// `true` when the request carried a `cursor`: a later page of a list.
    pub(crate) continuation: bool,
    /// The `tools/call` frame as forwarded, kept (a few hundred bytes, not a parsed tree)
    /// so a -32042 answer can record the request's digest.
    pub(crate) frame: Option<std::sync::Arc<[u8]>>,
    /// The digest of the -32042 requirement this request is the one retry of.
    pub(crate) requirement: Option<String>,
    /// Bastion's own request (a `tools/list` of its own, see `relay::own_list`): its
    /// answer, error or timeout goes to the waiting task, never to the host.
    pub(crate) own: bool,
    /// The host cancelled it (`notifications/cancelled`, forwarded to the server): a
    /// late answer is still routed, but no answer is due any more (MCP 2025-11-25
    /// "Cancellation"), so its deadline, the server's exit or the host leaving drop it
    /// quietly: no error to the host, no second cancellation to the server.
    pub(crate) cancelled: bool,
}

/// What a host request carries besides its method and id (see [`HostRequest`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestExtra {
    pub(crate) continuation: bool,
    pub(crate) frame: Option<std::sync::Arc<[u8]>>,
    pub(crate) requirement: Option<String>,
    pub(crate) own: bool,
}

/// Both directions' pending maps and the deadline index.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    host: HashMap<Id, HostRequest>,
    server: HashMap<Id, String>,
    deadlines: BTreeMap<(Instant, u64), Id>,
    seq: u64,
    /// The most requests `host` / `server` held since their tables were last sized.
    host_high: usize,
    server_high: usize,
}

impl Pending {
    pub(crate) fn host_len(&self) -> usize {
        self.host.len()
    }

    pub(crate) fn server_len(&self) -> usize {
        self.server.len()
    }

    pub(crate) fn host_contains(&self, id: &Id) -> bool {
        self.host.contains_key(id)
    }

    /// Registers a host request; returns the new earliest deadline.
    pub(crate) fn add_host(
        &mut self,
        id: Id,
        method: String,
        target: Option<String>,
        raw_id: Value,
        deadline: Instant,
        extra: RequestExtra,
    ) -> Option<Instant> {
        self.seq += 1;
        let seq = self.seq;
        self.deadlines.insert((deadline, seq), id.clone());
        self.host.insert(
            id,
            HostRequest {
                method,
                target,
                raw_id,
                deadline,
                seq,
                continuation: extra.continuation,
                frame: extra.frame,
                requirement: extra.requirement,
                own: extra.own,
                cancelled: false,
            },
        );
        self.host_high = self.host_high.max(self.host.len());
        self.next_deadline()
    }

    /// Marks pending host request `id` cancelled by the host ([`HostRequest::cancelled`])
    /// and lets go of the frame kept for it (no -32042 answer will need its digest).
    pub(crate) fn cancel_host(&mut self, id: &Id) {
        if let Some(req) = self.host.get_mut(id) {
            req.frame = None;
            req.cancelled = true;
        }
    }

    pub(crate) fn take_host(&mut self, id: &Id) -> Option<HostRequest> {
        let req = self.host.remove(id)?;
        self.deadlines.remove(&(req.deadline, req.seq));
        give_back(&mut self.host, &mut self.host_high);
        Some(req)
    }

    /// The only pending host request, when there is exactly one.
    pub(crate) fn sole_host(&self) -> Option<Id> {
        (self.host.len() == 1)
            .then(|| self.host.keys().next().cloned())
            .flatten()
    }

    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.keys().next().map(|(t, _)| *t)
    }

    /// Removes and returns every host request whose deadline is at or before `now`.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<HostRequest> {
        let mut out = Vec::new();
        while let Some(entry) = self.deadlines.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let id = entry.remove();
            if let Some(req) = self.host.remove(&id) {
                out.push(req);
            }
        }
        give_back(&mut self.host, &mut self.host_high);
        out
    }

    /// Every pending host request, in no particular order.
    pub(crate) fn host_requests(&self) -> impl Iterator<Item = &HostRequest> {
        self.host.values()
    }

    /// Removes and returns every host request.
    pub(crate) fn drain_host(&mut self) -> Vec<HostRequest> {
        self.deadlines.clear();
        let all = self.host.drain().map(|(_, r)| r).collect();
        give_back(&mut self.host, &mut self.host_high);
        all
    }

    pub(crate) fn add_server(&mut self, id: Id, method: String) -> bool {
        if self.server.contains_key(&id) {
            return false;
        }
        self.server.insert(id, method);
        self.server_high = self.server_high.max(self.server.len());
        true
    }

    pub(crate) fn take_server(&mut self, id: &Id) -> Option<String> {
        let method = self.server.remove(id);
        give_back(&mut self.server, &mut self.server_high);
        method
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_request_lets_go_of_its_frame_and_stays_pending() {
        let mut p = Pending::default();
        let id = Id::Int(7);
        let frame: std::sync::Arc<[u8]> = vec![b'x'; 1 << 20].into();
        let extra = RequestExtra {
            frame: Some(frame),
            ..RequestExtra::default()
        };
        p.add_host(
            id.clone(),
            "tools/call".into(),
            Some("slow".into()),
            Value::from(7),
            Instant::now(),
            extra,
        );
        p.cancel_host(&id);
        p.cancel_host(&Id::Int(8));
        let req = p
            .take_host(&id)
            .expect("still pending: the answer is still routed");
        assert!(req.frame.is_none() && req.cancelled);
    }

    /// The ids 0..n in a scrambled order (answers arrive out of order, which leaves
    /// tombstones in the table).
    fn scrambled(n: i128) -> Vec<i128> {
        let mut ids: Vec<i128> = (0..n).collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in (1..ids.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ids.swap(i, usize::try_from(x % (i as u64 + 1)).unwrap());
        }
        ids
    }

    fn add(p: &mut Pending, i: i128) {
        p.add_host(
            Id::Int(i),
            "tools/call".into(),
            None,
            Value::Null,
            Instant::now(),
            RequestExtra::default(),
        );
        assert!(p.add_server(Id::Int(i), "sampling/createMessage".into()));
    }

    #[test]
    fn a_drained_burst_gives_its_table_back_and_a_steady_load_keeps_it() {
        // Sizes around the table's steps, answered in a scrambled order.
        for n in [1_100, 1_792, 2_000, 3_584, 10_000] {
            let mut p = Pending::default();
            for i in 0..n {
                add(&mut p, i);
            }
            let order = scrambled(n);
            let (first, rest) = order.split_at(usize::try_from(n * 3 / 4).unwrap());
            // Down to a quarter: the table stays (no shrinking and regrowing under load).
            let full = p.host.capacity() + p.host.len();
            for i in first {
                assert!(p.take_host(&Id::Int(*i)).is_some());
                assert!(p.take_server(&Id::Int(*i)).is_some());
            }
            assert_eq!(p.host_high, usize::try_from(n).unwrap(), "{n}");
            assert!(p.host.capacity() + p.host.len() <= full);
            for i in rest {
                assert!(p.take_host(&Id::Int(*i)).is_some());
                assert!(p.take_server(&Id::Int(*i)).is_some());
                let len = p.host.len();
                if len + 1 == usize::try_from(n / 8).unwrap() {
                    // Just below an eighth: the table was sized again (`capacity` of a
                    // fresh table has no tombstones in it), with room for about twice
                    // what is left.
                    assert_eq!(p.host_high, len, "{n}");
                    assert_eq!(p.server_high, len, "{n}");
                    assert!(
                        p.host.capacity() <= 4 * len + 64,
                        "{n}: {} slots for {len}",
                        p.host.capacity()
                    );
                }
            }
            // Drained: a small table is left, whatever the order.
            assert!(p.host.capacity() < 1024, "{n}: {}", p.host.capacity());
            assert!(p.server.capacity() < 1024, "{n}: {}", p.server.capacity());
        }
        // Deadlines passing drain it the same way.
        let mut p = Pending::default();
        for i in 0..5_000 {
            add(&mut p, i);
        }
        assert_eq!(p.expire(Instant::now()).len(), 5_000);
        assert_eq!(p.host.capacity(), 0);
        // A map that never held more than KEPT_REQUESTS keeps its table.
        let mut p = Pending::default();
        for i in 0..1_000 {
            add(&mut p, i);
        }
        for i in scrambled(1_000) {
            assert!(p.take_host(&Id::Int(i)).is_some());
        }
        assert!(p.host.capacity() > 0);
    }
}
