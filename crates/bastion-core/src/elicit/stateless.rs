//! Stateless era (2026-07-28): `resultType: "input_required"` results carry
//! `inputRequests`, an object of keyed requests (`{method, params}`) the host answers in
//! `inputResponses` on a retry (issue 6 §8). Every `elicitation/create` entry is judged
//! exactly like a legacy `elicitation/create` ([`super::review_request`]); a refused entry
//! makes the whole result an error to the host; URL-mode entries are rewritten as in
//! [`super::url_mode`]. `requestState` is not touched (the caller forwards it byte for
//! byte). Entries of other methods (`sampling/createMessage`, `roots/list`) are reported
//! in [`InputRequestsReview::other`] for the caller's own rules; they are not judged here.

use super::{ElicitMode, ElicitPolicy, FormSchema, review_request, url_mode};
use crate::finding::{Finding, Verdict, pointer_push};
use serde_json::Value;

/// The review of one `input_required` result.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequestsReview {
    /// `block` when any elicitation entry is refused (the result becomes an error).
    pub verdict: Verdict,
    /// Findings, paths `/inputRequests/<key>/params/...`.
    pub findings: Vec<Finding>,
    /// Form schemas of the accepted form entries, by key: what the host's
    /// `inputResponses` are validated against on the retry ([`super::validate_answer`]).
    pub forms: Vec<(String, FormSchema)>,
    /// Keys of entries with another method, not judged here.
    pub other: Vec<String>,
    /// The result as the host gets it when not blocked (URL-mode entries rewritten).
    pub rewritten: Value,
}

/// Reviews the `inputRequests` of a 2026-07-28 `input_required` `result` from `server`.
pub fn review_input_requests(
    result: &Value,
    policy: &ElicitPolicy,
    server: &str,
) -> InputRequestsReview {
    let mut review = InputRequestsReview {
        verdict: Verdict::Allow,
        findings: Vec::new(),
        forms: Vec::new(),
        other: Vec::new(),
        rewritten: result.clone(),
    };
    let Some(entries) = result.get("inputRequests").and_then(Value::as_object) else {
        return review;
    };
    for (key, entry) in entries {
        if entry.get("method").and_then(Value::as_str) != Some("elicitation/create") {
            review.other.push(key.clone());
            continue;
        }
        let base = pointer_push(&pointer_push("/inputRequests", key), "params");
        let params = entry.get("params").unwrap_or(&Value::Null);
        let r = review_request(params, policy, &base);
        review.verdict = review.verdict.max(r.verdict);
        review.findings.extend(r.findings.iter().cloned());
        if let Some(form) = r.form {
            review.forms.push((key.clone(), form));
        }
        if let (Some(ElicitMode::Url), Some(url)) = (r.mode, &r.url)
            && r.verdict != Verdict::Block
        {
            review.rewritten["inputRequests"][key]["params"] =
                url_mode::rewrite_params(params, server, url);
        }
    }
    review
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_are_judged_like_legacy_requests() {
        let result = json!({"resultType": "input_required", "requestState": "opaque==", "inputRequests": {
            "name": {"method": "elicitation/create", "params": {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}}},
            "site": {"method": "elicitation/create", "params": {"mode": "url", "elicitationId": "e", "url": "https://docs.example.com/x", "message": "Open"}},
            "llm": {"method": "sampling/createMessage", "params": {"messages": []}}
        }});
        let r = review_input_requests(&result, &ElicitPolicy::default(), "srv");
        assert_eq!(r.verdict, Verdict::Allow, "{:?}", r.findings);
        assert_eq!(r.other, vec!["llm"]);
        assert_eq!(r.forms.len(), 1);
        assert_eq!(r.rewritten["requestState"], "opaque==");
        assert!(
            r.rewritten["inputRequests"]["site"]["params"]["message"]
                .as_str()
                .unwrap()
                .starts_with("mcp-bastion: the server \"srv\"")
        );

        let bad = json!({"resultType": "input_required", "inputRequests": {
            "k": {"method": "elicitation/create", "params": {"message": "Key?", "requestedSchema": {"type": "object", "properties": {"api_key": {"type": "string"}}}}}
        }});
        let r = review_input_requests(&bad, &ElicitPolicy::default(), "srv");
        assert_eq!(r.verdict, Verdict::Block);
        assert_eq!(
            r.findings[0].path,
            "/inputRequests/k/params/requestedSchema/properties/api_key"
        );
    }
}
