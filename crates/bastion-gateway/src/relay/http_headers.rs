//! HTTP upstreams only (`wrap --url`): tools whose `x-mcp-header` declarations break the
//! 2026-07-28 rules (SEP-2243) are withheld from the host for the session.

use super::{Ev, Relay, S2H};
use crate::pending::HostRequest;
use bastion_core::finding::{Code, Verdict};
use bastion_core::lists::ListShape;
use serde_json::Value;
use std::collections::HashSet;

impl Relay {
    /// HTTP upstreams only: the listed tools whose `x-mcp-header` declarations break the
    /// 2026-07-28 rules ([`bastion_core::http_gate::param_header_findings`]), withheld
    /// for the session (calls refused `blocked_descriptor`) and audited.
    pub(super) async fn header_review(
        &self,
        req: &HostRequest,
        shape: ListShape,
        result: &Value,
        items: &[bastion_core::lists::ItemOutcome],
    ) -> HashSet<String> {
        let mut bad = HashSet::new();
        if !self.http_upstream || shape.member != "tools" {
            return bad;
        }
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for (tool, item) in tools.zip(items) {
            if item.verdict == Verdict::Block {
                continue;
            }
            let Some(schema) = tool.get("inputSchema") else {
                continue;
            };
            let findings = bastion_core::http_gate::param_header_findings(schema, "/inputSchema");
            if findings.is_empty() {
                continue;
            }
            {
                let mut st = self.state();
                st.withheld
                    .entry("tools")
                    .or_default()
                    .insert(item.key.clone());
                st.tools.remove(&item.key);
                st.tool_pins.remove(&item.key);
                st.tool_facts.remove(&item.key);
            }
            let ev = Ev::new(S2H, "descriptor", Verdict::Block, 0)
                .method(&req.method)
                .target(Some(&item.key))
                .id(&req.raw_id)
                .reason(Code::McpHeaderInvalid.as_str())
                .codes(&findings);
            self.audit.record(ev.0).await;
            eprintln!(
                "mcp-bastion[{}]: withheld tool {:?} ({}: {})",
                self.name,
                item.key,
                Code::McpHeaderInvalid.as_str(),
                findings[0].message
            );
            bad.insert(item.key.clone());
        }
        bad
    }
}
