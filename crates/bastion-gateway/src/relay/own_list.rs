//! Bastion's own `tools/list` for a `tools/call` of a tool the host has not listed in
//! this session (a client that keeps a list across sessions, a stateless-era host, a
//! conformance suite): the server's answer goes through the same descriptor pipeline as
//! a host's listing (detectors, pinning, contract, `x-mcp-header` review) and is never
//! forwarded to the host. Only then is the call decided, against the descriptor that
//! pipeline kept (or refused as withheld).
//!
//! One own listing runs at a time; calls that arrived before a listing completed do not
//! start another. A listing that fails (error answer, refused frame, timeout, server
//! gone) leaves the tool unlisted, so the call is asked as before ("not listed by the
//! server in this session").
//!
//! Requests carry ids `mcp-bastion-<nonce>-<n>` (MCP 2025-11-25 "Tools §Listing Tools",
//! pagination §Cursors); the host never sees them.

use super::approve::{HeldCall, OWN_ID_PREFIX};
use super::{Ev, Relay};
use crate::pending::{HostRequest, RequestExtra};
use bastion_core::envelope::Id;
use bastion_core::finding::{Finding, Verdict};
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// Refusal reason of a call of a tool the server does not list.
const TOOL_NOT_LISTED: &str = "tool_not_listed";

/// Pages of one own listing at most: a server that pages without end is cut off here
/// (the listing then counts as failed).
const MAX_PAGES: usize = 32;

/// Serializes Bastion's own listings and counts the completed ones.
#[derive(Debug, Default)]
pub(super) struct OwnListing {
    lock: tokio::sync::Mutex<()>,
    completed: AtomicU64,
}

impl Relay {
    /// Whether a `tools/call` of `name` needs Bastion's own listing first: the tool is
    /// neither listed nor withheld in this session. Returns the number of own listings
    /// completed so far (pass it to [`Relay::list_tools_on_own_behalf`]) when it does.
    pub(super) fn needs_own_listing(&self, name: &str) -> Option<u64> {
        let st = self.state();
        let unknown =
            !st.tools.contains_key(name) && st.withheld_reason("tools/call", name).is_none();
        unknown.then(|| self.own_listing.completed.load(Ordering::Acquire))
    }

    /// Lists the server's tools on Bastion's own behalf, every page, unless a listing
    /// completed since `seen` was read. `meta` is the calling host's `_meta` (the
    /// 2026-07-28 era carries its protocol version there), sent along unchanged.
    /// Returns `true` when a complete listing went through the pipeline.
    pub(super) async fn list_tools_on_own_behalf(&self, seen: u64, meta: Option<&Value>) -> bool {
        let _one_at_a_time = self.own_listing.lock.lock().await;
        #[cfg(feature = "failpoints")]
        fail::fail_point!("relay::own_listing");
        if self.own_listing.completed.load(Ordering::Acquire) != seen {
            return true;
        }
        let mut cursor: Option<String> = None;
        for page in 0..MAX_PAGES {
            match self.own_list_page(cursor.as_deref(), page > 0, meta).await {
                Some(Some(next)) => cursor = Some(next),
                Some(None) => {
                    self.own_listing.completed.fetch_add(1, Ordering::AcqRel);
                    return true;
                }
                None => return false,
            }
        }
        false
    }

    /// Sends one page request and waits for its outcome: `Some(next cursor)` when the
    /// server's answer went through the pipeline, `None` when it failed. The request's
    /// deadline (`request_timeout_ms`) bounds the wait.
    async fn own_list_page(
        &self,
        cursor: Option<&str>,
        continuation: bool,
        meta: Option<&Value>,
    ) -> Option<Option<String>> {
        let n = self.own_seq.fetch_add(1, Ordering::Relaxed);
        let id = format!("{OWN_ID_PREFIX}{:x}-l{n}", self.own_nonce);
        let mut params = Map::new();
        if let Some(c) = cursor {
            params.insert("cursor".into(), Value::String(c.to_owned()));
        }
        if let Some(m) = meta {
            params.insert("_meta".into(), m.clone());
        }
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.state().own_lists.insert(id.clone(), tx);
        let extra = RequestExtra {
            continuation,
            own: true,
            ..RequestExtra::default()
        };
        self.forward_request(
            serde_json::to_vec(&frame).unwrap_or_default(),
            Id::Str(id.clone()),
            Value::String(id),
            "tools/list".into(),
            None,
            extra,
        )
        .await;
        rx.await.ok()
    }

    /// After a complete own listing: a call of a tool the server does not list (and
    /// that was not withheld) is refused with reason `tool_not_listed` and never
    /// forwarded: a server's unlisted tools were never checked, and an injected
    /// instruction could name one. Returns `true` when it refused.
    pub(super) async fn refuse_unlisted(&self, held: &HeldCall) -> bool {
        let Some(name) = held.params.get("name").and_then(Value::as_str) else {
            return false;
        };
        {
            let st = self.state();
            if st.tools.contains_key(name) || st.withheld_reason("tools/call", name).is_some() {
                return false;
            }
        }
        if self.withdrawn(held).await {
            return true;
        }
        self.audit
            .record(held.event(Verdict::Block, TOOL_NOT_LISTED).0)
            .await;
        let message = format!(
            "Tool {name:?} is not among the tools server {:?} lists; mcp-bastion does not forward calls of unlisted tools",
            self.name
        );
        self.refuse_held(held, &message, TOOL_NOT_LISTED).await;
        true
    }

    /// The server answered one of Bastion's own pages and the descriptor pipeline ran
    /// on it: the waiter learns the next cursor. Audited as the gateway's
    /// (`gateway_tools_list`, with the list's verdict and findings).
    pub(super) async fn own_page_answered(
        &self,
        req: &HostRequest,
        result: &Value,
        verdict: Verdict,
        findings: &[Finding],
        bytes: usize,
    ) {
        let next = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let ev = Ev::new("gateway", "result", verdict, bytes)
            .method(&req.method)
            .id(&req.raw_id)
            .reason("gateway_tools_list")
            .codes(findings);
        self.audit.record(ev.0).await;
        if let Value::String(id) = &req.raw_id
            && let Some(tx) = self.state().own_lists.remove(id)
        {
            let _ = tx.send(next);
        }
    }

    /// One of Bastion's own pages failed (`reason`: the server's error answer, a refused
    /// frame, a timeout, the server gone): the waiter is released with no listing.
    pub(super) async fn own_page_failed(&self, req: &HostRequest, reason: &str, bytes: usize) {
        let ev = Ev::new("gateway", "result", Verdict::Block, bytes)
            .method(&req.method)
            .id(&req.raw_id)
            .reason(reason);
        self.audit.record(ev.0).await;
        if let Value::String(id) = &req.raw_id {
            self.state().own_lists.remove(id);
        }
    }
}
