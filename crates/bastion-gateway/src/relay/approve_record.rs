//! Records of tool-call confirmation (issue 5 §4, §5): "always for this tool" grants in
//! the store (bound to the tool's pin hash) and one decision record per confirmation
//! (action, tier, reasons, channel, answer, latency, digest; argument values only with
//! `[audit] log_arguments`, redacted).

use super::Relay;
use super::approve::{HeldCall, Outcome, identity_text};
use crate::confirm::ConfirmSetup;
use bastion_core::confirm::{ConfirmationRequest, Decision, ToolCall, redact_arguments};
use bastion_core::finding::Verdict;
use bastion_core::pins::canonical_json;
use bastion_store::ApprovalDecision;
use serde_json::Value;

impl Relay {
    pub(super) async fn store_grant(
        &self,
        setup: &ConfirmSetup,
        request: &ConfirmationRequest,
        tool: &str,
        channel: &str,
    ) {
        let (Some(store), Some(pin)) = (&setup.store, &request.binding.tool_pin) else {
            return;
        };
        let grant = bastion_store::Grant {
            id: 0,
            server_identity: identity_text(&request.binding.server),
            server_name: self.name.clone(),
            tool: tool.to_owned(),
            pin_hash: pin.clone(),
            source: channel.to_owned(),
            created_ms: crate::now_ms(),
            revoked_ms: None,
        };
        if let Err(e) = store.put_grant(&grant).await {
            eprintln!(
                "mcp-bastion[{}]: cannot store the grant for tool {tool:?} ({e}); it applies to this call only",
                self.name
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn record_decision(
        &self,
        setup: &ConfirmSetup,
        held: &HeldCall,
        call: &ToolCall,
        decision: &Decision,
        request: &ConfirmationRequest,
        outcome: &Outcome,
        refused: Option<&str>,
        latency_ms: i64,
    ) {
        let reasons: Vec<String> = decision
            .reasons
            .iter()
            .map(|f| f.code.as_str().to_owned())
            .collect();
        let verdict = if outcome.approved {
            Verdict::Allow
        } else {
            Verdict::Block
        };
        let mut ev = held.event(
            verdict,
            &refused.map_or_else(|| format!("confirmation_{}", outcome.answer), str::to_owned),
        );
        for f in &decision.reasons {
            ev = ev.code(f.code);
        }
        let mut event = ev.0;
        event.digest = Some(request.digest.clone());
        self.audit.record(event).await;
        let Some(store) = &setup.store else { return };
        let arguments = if setup.log_arguments {
            call.arguments
                .as_ref()
                .and_then(|a| canonical_json(&redact_arguments(&Value::Object(a.clone()))).ok())
        } else {
            None
        };
        let record = ApprovalDecision {
            time_ms: crate::now_ms(),
            server_name: self.name.clone(),
            server_identity: Some(identity_text(&request.binding.server)),
            tool: call.name.clone(),
            request_id: Some(held.raw_id.to_string()),
            digest: request.digest.clone(),
            action: decision.action.as_str().into(),
            tier: Some(decision.tier.as_str().into()),
            reasons,
            channel: Some(outcome.channel.into()),
            outcome: if outcome.approved {
                "approved"
            } else {
                "denied"
            }
            .into(),
            answer: Some(outcome.answer.clone()),
            latency_ms,
            arguments,
            ..ApprovalDecision::default()
        };
        if let Err(e) = store.record_decision(&record).await {
            eprintln!(
                "mcp-bastion[{}]: cannot record the confirmation decision ({e})",
                self.name
            );
        }
    }
}
