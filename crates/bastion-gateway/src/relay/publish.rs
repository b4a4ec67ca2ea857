//! `mcp-bastion publish` (issue 7 item 9): the gateway in front of the publisher's own
//! server. On top of contract enforcement ([`super::contract`]) and the sorted lists
//! every relay returns, it attaches the contract's cache hints to 2026-07-28 results
//! ([`bastion_core::publish::apply_cache_hint`]) and withholds the server's
//! `notifications/*/list_changed` while the contract it publishes is not the active one
//! (activated with the two-approver gate, `contract activate`).

use super::{Ev, Relay, S2H};
use crate::pending::HostRequest;
use bastion_core::contract::CachePolicy;
use bastion_core::era::Era;
use bastion_core::finding::Verdict;
use serde_json::Value;

/// What `publish` adds to a contract-enforcing relay.
#[derive(Debug, Clone, Default)]
pub struct PublishSetup {
    /// The signed contract's cache policy (`ttlMs`/`cacheScope` per method or URI).
    pub cache: CachePolicy,
    /// The signed contract is the active one of its server id (`contract activate`);
    /// when not, `list_changed` notifications are withheld.
    pub active: bool,
}

impl Relay {
    /// Puts the contract's cache hint on a result of `req` when the host speaks the
    /// 2026-07-28 era; returns whether `result` changed.
    pub(super) fn publish_hints(&self, req: &HostRequest, result: &mut Value) -> bool {
        let Some(publish) = &self.publish else {
            return false;
        };
        if self.state().era != Some(Era::Stateless) {
            return false;
        }
        bastion_core::publish::apply_cache_hint(
            &publish.cache,
            &req.method,
            req.target.as_deref(),
            result,
        )
    }

    /// Whether to withhold the server notification `method`: a `list_changed` while the
    /// published contract is not the active one. Audits and reports what it withholds.
    pub(super) async fn withhold_list_changed(&self, method: &str, bytes: usize) -> bool {
        let Some(publish) = &self.publish else {
            return false;
        };
        if publish.active || !method.ends_with("/list_changed") {
            return false;
        }
        let ev = Ev::new(S2H, "notification", Verdict::Block, bytes)
            .method(method)
            .reason("list_changed_withheld");
        if self.record_unrequested(ev.0).await {
            eprintln!(
                "mcp-bastion[{}]: withheld {}: the contract being published is not the active signed contract (run `mcp-bastion contract activate`)",
                self.name,
                super::shown_method(method)
            );
        }
        true
    }
}
