//! `mcp-bastion check elicitation`: one whole `elicitation/create` request judged as the
//! gateway judges it, with the action the gateway would take as output.

use super::{ElicitMode, ElicitPolicy, ElicitationReview, review_request, url_mode};
use crate::envelope::{codes, error_response};
use crate::finding::{Report, Verdict};
use serde_json::{Value, json};

/// Why a `check elicitation` input could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitInputError {
    /// Not a JSON-RPC request object with method `elicitation/create`.
    #[error("the input must be a JSON-RPC request with \"method\": \"elicitation/create\"")]
    NotAnElicitation,
}

/// The JSON-RPC error the server gets for a refused elicitation (DESIGN §4): code
/// `-32051` (policy refused), a sentence naming the first reason, and
/// `data: {"reason": "policy_denied", "finding": "<code>", "server": "<name>"}`. It says
/// the request was refused by policy; it is never a fake user decline. For a mode the
/// host did not declare, legacy era, the gateway sends -32602 instead (issue 6 §1).
pub fn refusal_error(id: Option<&Value>, server: &str, review: &ElicitationReview) -> Value {
    let first = review
        .findings
        .iter()
        .max_by_key(|f| f.severity)
        .map_or("policy_denied", |f| f.code.as_str());
    let bytes = error_response(
        id,
        codes::POLICY_REFUSED,
        &format!(
            "The elicitation request was refused by mcp-bastion policy ({first}); it was not shown to the user."
        ),
        json!({"reason": "policy_denied", "finding": first, "server": server}),
    );
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// Runs `check elicitation` on a whole request, with server name `server` for messages.
/// Output: `{"action": "refuse", "to": "server", "answer": <refusal_error>}` for a block,
/// else `{"action": "forward", "request": <the request as the host gets it>}` (URL mode:
/// params rewritten by [`url_mode::rewrite_params`]).
///
/// # Errors
/// [`ElicitInputError::NotAnElicitation`] when the input is not such a request.
pub fn check_elicitation(
    request: &Value,
    policy: &ElicitPolicy,
    server: &str,
) -> Result<Report, ElicitInputError> {
    if request.get("method").and_then(Value::as_str) != Some("elicitation/create") {
        return Err(ElicitInputError::NotAnElicitation);
    }
    let params = request.get("params").unwrap_or(&Value::Null);
    let review = review_request(params, policy, "/params");
    let output = if review.verdict == Verdict::Block {
        json!({"action": "refuse", "to": "server", "answer": refusal_error(request.get("id"), server, &review)})
    } else {
        let mut forwarded = request.clone();
        if let (Some(ElicitMode::Url), Some(url)) = (review.mode, &review.url) {
            forwarded["params"] = url_mode::rewrite_params(params, server, url);
        }
        json!({"action": "forward", "request": forwarded})
    };
    Ok(Report {
        verdict: review.verdict,
        findings: review.findings,
        output: Some(output),
    })
}
