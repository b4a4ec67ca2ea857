//! `mcp-bastion check http-request`: the gate on one request of the corpus shape
//! `{transport?: "http", method, path, headers, raw?, raw_prefix?, policy?}`.
//!
//! * `headers`: an object (`{"Host": "127.0.0.1:8931"}`, a value may be an array for a
//!   repeated field) or an array of `[name, value]` pairs (a JSON object cannot repeat a
//!   name that differs only in case).
//! * `raw`: the complete body; `raw_prefix`: the first body bytes, the rest unread.
//! * `policy` (optional): `{listen?: "127.0.0.1:8931", allowed_hosts?: [..],
//!   allowed_origins?: [..], token?: "..", endpoint?: "/mcp", max_body_bytes?: n}`.
//!   Without it the policy is the default listener policy on `127.0.0.1:8931` with the
//!   body cap `max_host_frame_bytes` of the configuration, and the bearer token is not
//!   checked (there is none to compare with); give `token` to check it.
//!
//! The request is decided as the listener does: first on the request line and headers
//! alone (stage `headers`), then, if that passes, with the body (stage `body`). Output:
//! `{"action": "allow"}` or `{"action": "refuse", "status": 403, "status_text":
//! "Forbidden", "reason": "<code>", "stage": "headers|body"}`, plus the `policy` applied.

use super::policy::{DEFAULT_CHECK_PORT, ListenerPolicy, token_digest};
use super::request::{BodySeen, HttpRequestView};
use super::{HttpDecision, decide};
use crate::Limits;
#[cfg(test)]
use crate::finding::Verdict;
use crate::finding::{Finding, Report};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// Why a `check http-request` input could not be judged (the input, not the request, is
/// wrong; exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpInputError {
    /// A member is missing or has the wrong type.
    #[error("`{field}` must be {want}")]
    Field {
        /// The member.
        field: &'static str,
        /// What it must be.
        want: &'static str,
    },
    /// The transport is not `http`.
    #[error(
        "`transport` is `{0}`; check http-request judges `http` requests (use `check message` for stdio)"
    )]
    Transport(String),
    /// A policy setting was refused.
    #[error("policy: {0}")]
    Policy(#[from] super::ListenerPolicyError),
}

fn field(field: &'static str, want: &'static str) -> HttpInputError {
    HttpInputError::Field { field, want }
}

/// The header lines of the input, in order.
fn header_lines(headers: Option<&Value>) -> Result<Vec<(String, String)>, HttpInputError> {
    let want = "an object of header names to strings (or arrays of strings), or an array of [name, value] pairs";
    let mut lines = Vec::new();
    match headers {
        None => {}
        Some(Value::Object(map)) => {
            for (name, value) in map {
                match value {
                    Value::String(v) => lines.push((name.clone(), v.clone())),
                    Value::Array(vs) => {
                        for v in vs {
                            let v = v.as_str().ok_or_else(|| field("headers", want))?;
                            lines.push((name.clone(), v.to_owned()));
                        }
                    }
                    _ => return Err(field("headers", want)),
                }
            }
        }
        Some(Value::Array(pairs)) => {
            for pair in pairs {
                match pair.as_array().map(Vec::as_slice) {
                    Some([Value::String(n), Value::String(v)]) => {
                        lines.push((n.clone(), v.clone()));
                    }
                    _ => return Err(field("headers", want)),
                }
            }
        }
        Some(_) => return Err(field("headers", want)),
    }
    Ok(lines)
}

fn strings<'a>(policy: &'a Value, name: &'static str) -> Result<Vec<&'a str>, HttpInputError> {
    match policy.get(name) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().ok_or_else(|| field(name, "an array of strings")))
            .collect(),
        Some(_) => Err(field(name, "an array of strings")),
    }
}

/// The listener policy of the input (`policy` member) or the default one.
fn policy_of(input: &Value, limits: &Limits) -> Result<ListenerPolicy, HttpInputError> {
    let empty = json!({});
    let given = input.get("policy").unwrap_or(&empty);
    if !given.is_object() {
        return Err(field("policy", "an object"));
    }
    let bind = match given.get("listen") {
        None => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), DEFAULT_CHECK_PORT),
        Some(v) => v
            .as_str()
            .and_then(|s| s.parse::<SocketAddr>().ok())
            .ok_or_else(|| {
                field(
                    "policy.listen",
                    "an IP address and port such as 127.0.0.1:8931",
                )
            })?,
    };
    let mut policy = ListenerPolicy::new(bind, token_digest(""), limits).without_auth();
    match given.get("token") {
        None => {}
        Some(Value::String(t)) => policy = policy.with_bearer_token(t)?,
        Some(_) => return Err(field("policy.token", "a string")),
    }
    for host in strings(given, "allowed_hosts")? {
        policy = policy.allow_host(host)?;
    }
    for origin in strings(given, "allowed_origins")? {
        policy = policy.allow_origin(origin)?;
    }
    match given.get("endpoint") {
        None => {}
        Some(Value::String(e)) => policy = policy.with_endpoint(e)?,
        Some(_) => return Err(field("policy.endpoint", "a string")),
    }
    match given.get("max_body_bytes") {
        None => {}
        Some(v) => {
            let n = v
                .as_u64()
                .ok_or_else(|| field("policy.max_body_bytes", "a number of bytes"))?;
            policy = policy.with_max_body_bytes(n);
        }
    }
    Ok(policy)
}

fn text<'a>(input: &'a Value, name: &'static str) -> Result<&'a str, HttpInputError> {
    input
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| field(name, "a string"))
}

fn outcome(decision: &HttpDecision, stage: &str) -> Value {
    match decision.refusal {
        None => json!({"action": "allow"}),
        Some(r) => json!({
            "action": "refuse",
            "status": r.status.code(),
            "status_text": r.status.reason_phrase(),
            "reason": r.reason.as_str(),
            "stage": stage,
        }),
    }
}

/// Runs `check http-request` on one input (shape in the module docs).
///
/// # Errors
/// [`HttpInputError`] when the input lacks `method`/`path`, has malformed `headers`, a
/// `transport` other than `http`, or a `policy` setting the listener would refuse.
pub fn check_http_request(input: &Value, limits: &Limits) -> Result<Report, HttpInputError> {
    if let Some(t) = input.get("transport") {
        let t = t.as_str().ok_or_else(|| field("transport", "a string"))?;
        if t != "http" {
            return Err(HttpInputError::Transport(t.to_owned()));
        }
    }
    let policy = policy_of(input, limits)?;
    let method = text(input, "method")?;
    let target = text(input, "path")?;
    let lines = header_lines(input.get("headers"))?;
    let headers: Vec<(&str, &[u8])> = lines
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect();
    let body = match (input.get("raw"), input.get("raw_prefix")) {
        (Some(_), Some(_)) => return Err(field("raw", "absent when `raw_prefix` is given")),
        (Some(raw), None) => BodySeen::Complete(
            raw.as_str()
                .ok_or_else(|| field("raw", "a string"))?
                .as_bytes(),
        ),
        (None, Some(p)) => BodySeen::Prefix(
            p.as_str()
                .ok_or_else(|| field("raw_prefix", "a string"))?
                .as_bytes(),
        ),
        (None, None) => BodySeen::NotRead,
    };
    let mut view = HttpRequestView {
        method,
        target,
        headers: &headers,
        body: BodySeen::NotRead,
    };
    let on_headers = decide(&policy, &view);
    view.body = body;
    let on_body = decide(&policy, &view);
    let (decision, stage) = if on_headers.is_allowed() {
        (&on_body, "body")
    } else {
        (&on_headers, "headers")
    };
    let mut findings: Vec<Finding> = on_headers.findings.clone();
    for f in on_body.findings.iter().cloned() {
        if !findings
            .iter()
            .any(|g| g.code == f.code && g.path == f.path)
        {
            findings.push(f);
        }
    }
    let mut output = outcome(decision, stage);
    output["policy"] = json!({
        "listen": policy.bind().to_string(),
        "allowed_hosts": policy.allowed_hosts(),
        "allowed_origins": policy.allowed_origins(),
        "token_required": policy.requires_token(),
        "endpoint": policy.endpoint(),
        "max_body_bytes": policy.max_body_bytes(),
    });
    debug_assert_eq!(decision.is_allowed(), findings.is_empty());
    Ok(Report::from_findings(findings, false, Some(output)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &Value) -> Result<Report, HttpInputError> {
        check_http_request(input, &Limits::default())
    }

    #[test]
    fn malformed_inputs_are_input_errors() {
        let base = json!({"method": "POST", "path": "/mcp", "headers": {}});
        for (patch, want) in [
            (json!({"transport": "stdio"}), "`transport` is `stdio`"),
            (json!({"method": 5}), "`method` must be a string"),
            (json!({"headers": "Host: x"}), "`headers` must be"),
            (json!({"headers": [["Host"]]}), "`headers` must be"),
            (json!({"headers": {"Host": 1}}), "`headers` must be"),
            (
                json!({"raw": "{}", "raw_prefix": "{"}),
                "`raw` must be absent",
            ),
            (
                json!({"policy": {"listen": "localhost:1"}}),
                "`policy.listen`",
            ),
            (
                json!({"policy": {"allowed_origins": ["null"]}}),
                "allowed origin `null`",
            ),
            (json!({"policy": {"token": ""}}), "bearer token"),
            (json!({"policy": {"endpoint": "mcp"}}), "endpoint `mcp`"),
        ] {
            let mut input = base.clone();
            for (k, v) in patch.as_object().unwrap() {
                input[k] = v.clone();
            }
            let e = run(&input).unwrap_err().to_string();
            assert!(e.contains(want), "{patch}: {e}");
        }
    }

    #[test]
    fn repeated_fields_can_be_written_both_ways() {
        let as_array = json!({"method": "GET", "path": "/mcp",
            "headers": {"Host": ["127.0.0.1:8931", "evil.example:8931"], "Accept": "text/event-stream"}});
        let as_pairs = json!({"method": "GET", "path": "/mcp",
            "headers": [["Host", "127.0.0.1:8931"], ["HOST", "evil.example:8931"], ["Accept", "text/event-stream"]]});
        for input in [as_array, as_pairs] {
            let r = run(&input).unwrap();
            assert_eq!(r.verdict, Verdict::Block);
            assert_eq!(r.findings[0].code.as_str(), "http_duplicate_header");
            assert_eq!(r.output.unwrap()["status"], 400);
        }
    }

    #[test]
    fn the_default_policy_is_reported() {
        let r =
            run(&json!({"method": "DELETE", "path": "/mcp", "headers": {"Host": "[::1]:8931"}}))
                .unwrap();
        assert_eq!(r.verdict, Verdict::Allow);
        let out = r.output.unwrap();
        assert_eq!(out["action"], "allow");
        assert_eq!(out["policy"]["listen"], "127.0.0.1:8931");
        assert_eq!(out["policy"]["token_required"], false);
        assert_eq!(
            out["policy"]["allowed_origins"],
            json!([
                "http://127.0.0.1:8931",
                "http://localhost:8931",
                "http://[::1]:8931"
            ])
        );
    }
}
