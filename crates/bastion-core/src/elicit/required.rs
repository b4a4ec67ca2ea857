//! `URLElicitationRequiredError` (-32042, legacy era; MCP 2025-11-25 "Elicitation §URL
//! Elicitation Required Error") and the retry rule of issue 6 §7.
//!
//! * [`review_required_error`]: every URL elicitation inside `error.data.elicitations`
//!   goes through the same review as an `elicitation/create` in URL mode; refused ones are
//!   removed, the rest rewritten ([`super::url_mode::rewrite_params`]); when none remain
//!   the host gets a plain policy error instead (no URL reaches it).
//! * [`request_digest`]: the digest of the original request that the requirement is
//!   recorded with (method and params without `_meta`, RFC 8785 canonical JSON, SHA-256),
//!   the same for a retry with a new JSON-RPC id.
//! * [`Requirement`]: the host may retry the original request at most once per
//!   requirement, after a completion or after expiry, with the same digest; a retry
//!   before that, a second retry, or one with another digest is refused with reason
//!   `retry_not_eligible`, so the business operation cannot run twice.

use super::{ElicitMode, ElicitPolicy, review_request, url_mode};
use crate::envelope::codes;
use crate::finding::{Finding, Severity, pointer_push};
use crate::pins::{CanonicalError, canonical_json, sha256_hex};
use serde_json::{Value, json};

/// JSON-RPC error code of `URLElicitationRequiredError` (MCP 2025-11-25).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// The result of reviewing a -32042 error.
#[derive(Debug, Clone, PartialEq)]
pub struct RequiredReview {
    /// Findings of every elicitation, paths `/data/elicitations/N/...`.
    pub findings: Vec<Finding>,
    /// Indices (in the server's list) of the elicitations kept.
    pub kept: Vec<usize>,
    /// `elicitationId`s of the elicitations kept (what the requirement waits for).
    pub kept_ids: Vec<String>,
    /// The error object (`{code, message, data}`) to send to the host: the -32042 error
    /// with only the kept elicitations, rewritten; or, when none is left, a plain
    /// `-32051` policy error with `data.reason = "policy_denied"`.
    pub error: Value,
}

/// Reviews the `error` object (`{code, message, data: {elicitations: [...]}}`) of a
/// -32042 answer from `server` (module docs). Elicitations that are not URL mode are
/// removed too.
pub fn review_required_error(error: &Value, policy: &ElicitPolicy, server: &str) -> RequiredReview {
    let list = error
        .pointer("/data/elicitations")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut findings = Vec::new();
    let mut kept = Vec::new();
    let mut kept_ids = Vec::new();
    let mut rewritten = Vec::new();
    for (i, params) in list.iter().enumerate() {
        let base = pointer_push("/data/elicitations", &i.to_string());
        let review = review_request(params, policy, &base);
        let is_url = review.mode == Some(ElicitMode::Url);
        if !is_url {
            findings.push(Finding::new(
                crate::finding::Code::MalformedMessage,
                Severity::High,
                base.clone(),
                "an URLElicitationRequiredError may only carry URL-mode elicitations",
            ));
        }
        let blocked = review.verdict == crate::finding::Verdict::Block;
        findings.extend(review.findings.iter().cloned());
        if let (true, false, Some(url)) = (is_url, blocked, review.url.as_ref()) {
            kept.push(i);
            if let Some(id) = params.get("elicitationId").and_then(Value::as_str) {
                kept_ids.push(id.to_owned());
            }
            rewritten.push(url_mode::rewrite_params(params, server, url));
        }
    }
    let error = if rewritten.is_empty() {
        let mut data = json!({"reason": "policy_denied", "server": server});
        crate::envelope::mark_data(&mut data);
        json!({
            "code": codes::POLICY_REFUSED,
            "message": "The server asked you to complete a step in your browser, but mcp-bastion refused the link it gave.",
            "data": data,
        })
    } else {
        let mut out = error.clone();
        out["data"]["elicitations"] = Value::Array(rewritten);
        out
    };
    RequiredReview {
        findings,
        kept,
        kept_ids,
        error,
    }
}

/// Digest of an original request for the requirement ledger: SHA-256 (hex) of the
/// RFC 8785 canonical JSON of `{"method", "params"}` with `params._meta` removed (it
/// carries per-attempt data such as progress tokens). The JSON-RPC id is not part of it.
///
/// # Errors
/// [`CanonicalError`] for values RFC 8785 cannot represent (see [`canonical_json`]).
pub fn request_digest(method: &str, params: Option<&Value>) -> Result<String, CanonicalError> {
    let mut params = params.cloned().unwrap_or(Value::Null);
    if let Some(obj) = params.as_object_mut() {
        obj.remove("_meta");
    }
    let text = canonical_json(&json!({"method": method, "params": params}))?;
    Ok(sha256_hex(text.as_bytes()))
}

/// Where a requirement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequirementState {
    /// Waiting for a completion of one of its elicitations, or for expiry.
    AwaitingCompletion,
    /// A completion arrived, or the deadline passed: one retry may go.
    RetryEligible,
    /// The one retry was forwarded and is in flight.
    RetryInFlight,
    /// The retry was answered; nothing more may go.
    Consumed,
}

/// A refused retry of the original request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetryError {
    /// Not eligible now (before completion/expiry, in flight, consumed, or another
    /// request). Audit and refusal reason `retry_not_eligible`.
    #[error(
        "the retry is not eligible ({why}); the original operation may run at most once per requirement"
    )]
    NotEligible {
        /// Why, for the message.
        why: &'static str,
    },
}

impl RetryError {
    /// Stable refusal reason: `retry_not_eligible`.
    pub const fn reason(&self) -> &'static str {
        "retry_not_eligible"
    }
}

/// One requirement recorded from a -32042 answer (issue 6 §7). Time in ms since the
/// Unix epoch, passed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// [`request_digest`] of the original request.
    pub digest: String,
    /// The elicitation ids whose completion makes the retry eligible.
    pub elicitation_ids: Vec<String>,
    /// State.
    pub state: RequirementState,
    /// Deadline after which a retry is eligible without completion (the user may retry
    /// by hand after an expired flow).
    pub expires_ms: u64,
}

impl Requirement {
    /// A requirement waiting for completion, expiring `ttl_ms` after `now_ms`.
    pub fn new(digest: String, elicitation_ids: Vec<String>, now_ms: u64, ttl_ms: u64) -> Self {
        Self {
            digest,
            elicitation_ids,
            state: RequirementState::AwaitingCompletion,
            expires_ms: now_ms.saturating_add(ttl_ms),
        }
    }

    /// A completion for `elicitation_id` was accepted (see [`super::flow::judge_completion`]);
    /// whether it made the retry eligible.
    pub fn completed(&mut self, elicitation_id: &str) -> bool {
        if self.state == RequirementState::AwaitingCompletion
            && self.elicitation_ids.iter().any(|e| e == elicitation_id)
        {
            self.state = RequirementState::RetryEligible;
            return true;
        }
        false
    }

    /// The host sends a request with `digest` at `now_ms`: `Ok` means forward it as the
    /// one retry (the state becomes in flight).
    ///
    /// # Errors
    /// [`RetryError::NotEligible`] for another digest, before completion and expiry, while
    /// the retry is in flight, or after it was answered.
    pub fn begin_retry(&mut self, digest: &str, now_ms: u64) -> Result<(), RetryError> {
        if digest != self.digest {
            return Err(RetryError::NotEligible {
                why: "another request",
            });
        }
        if self.state == RequirementState::AwaitingCompletion && now_ms >= self.expires_ms {
            self.state = RequirementState::RetryEligible;
        }
        match self.state {
            RequirementState::RetryEligible => {
                self.state = RequirementState::RetryInFlight;
                Ok(())
            }
            RequirementState::AwaitingCompletion => Err(RetryError::NotEligible {
                why: "the browser step has not completed yet",
            }),
            RequirementState::RetryInFlight => Err(RetryError::NotEligible {
                why: "a retry is already in flight",
            }),
            RequirementState::Consumed => Err(RetryError::NotEligible {
                why: "the retry was already answered",
            }),
        }
    }

    /// The retry's answer arrived: nothing more may go.
    pub fn finish_retry(&mut self) {
        if self.state == RequirementState::RetryInFlight {
            self.state = RequirementState::Consumed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_error_is_filtered() {
        let err = json!({"code": -32042, "message": "Authorization required", "data": {"elicitations": [
            {"mode": "url", "elicitationId": "a", "url": "https://pay.example.com/x?token=abc", "message": "m"},
            {"mode": "url", "elicitationId": "b", "url": "https://pay.example.com/start", "message": "Open"},
            {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}
        ]}});
        let r = review_required_error(&err, &ElicitPolicy::default(), "billing");
        assert_eq!(r.kept, vec![1]);
        assert_eq!(r.kept_ids, vec!["b"]);
        assert_eq!(r.error["code"], -32042);
        let kept = r.error["data"]["elicitations"].as_array().unwrap();
        assert_eq!(kept.len(), 1);
        assert!(
            kept[0]["message"]
                .as_str()
                .unwrap()
                .starts_with("mcp-bastion: the server \"billing\"")
        );
        let only_bad = json!({"code": -32042, "message": "x", "data": {"elicitations": [
            {"mode": "url", "elicitationId": "a", "url": "javascript:alert(1)", "message": "m"}]}});
        let r = review_required_error(&only_bad, &ElicitPolicy::default(), "billing");
        assert_eq!(r.error["code"], -32051);
        assert_eq!(r.error["data"]["reason"], "policy_denied");
        assert_eq!(r.error["data"]["gateway"], crate::envelope::GATEWAY_MARK);
        assert!(!r.error.to_string().contains("javascript"));
    }

    #[test]
    fn digest_ignores_id_and_meta() {
        let a = request_digest(
            "tools/call",
            Some(&json!({"name": "pay", "arguments": {"n": 1}, "_meta": {"progressToken": 1}})),
        )
        .unwrap();
        let b = request_digest(
            "tools/call",
            Some(&json!({"arguments": {"n": 1}, "name": "pay"})),
        )
        .unwrap();
        let c = request_digest(
            "tools/call",
            Some(&json!({"name": "pay", "arguments": {"n": 2}})),
        )
        .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn one_retry_per_requirement() {
        let mut r = Requirement::new("d".into(), vec!["e".into()], 0, 1_000);
        assert!(r.begin_retry("d", 10).is_err(), "before completion");
        assert!(!r.completed("other"));
        assert!(r.completed("e"));
        assert_eq!(
            r.begin_retry("x", 20).unwrap_err().reason(),
            "retry_not_eligible"
        );
        assert_eq!(r.begin_retry("d", 20), Ok(()));
        assert!(
            r.begin_retry("d", 21).is_err(),
            "second retry while in flight"
        );
        r.finish_retry();
        assert_eq!(r.state, RequirementState::Consumed);
        assert!(
            r.begin_retry("d", 30).is_err(),
            "after the retry was answered"
        );
        let mut r = Requirement::new("d".into(), vec!["e".into()], 0, 1_000);
        assert_eq!(r.begin_retry("d", 1_000), Ok(()), "eligible after expiry");
    }
}
