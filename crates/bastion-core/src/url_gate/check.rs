//! `mcp-bastion check url`: the URL gate on one input of the corpus shapes, with the
//! network simulated (DNS answers, redirect chain) and the OAuth issuer checks.

use super::gate::non_public_severity;
use super::oauth::{judge_as_metadata, judge_resource_metadata};
use super::{UrlAssessment, UrlPolicy, UrlPurpose, address, assess};
use crate::finding::{Code, Finding, Report, Severity, pointer_push};
use serde_json::{Map, Value, json};
use std::net::IpAddr;

/// Why a `check url` input could not be judged (the input, not the URL, is wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlInputError {
    /// A required member is missing or has the wrong type.
    #[error("`{field}` must be {want}")]
    Field {
        /// The member.
        field: &'static str,
        /// What it must be.
        want: &'static str,
    },
    /// A simulated DNS answer is not an IP address.
    #[error("dns_answers_in_order[{index}] `{value}` is not an IPv4 or IPv6 address")]
    DnsAnswer {
        /// Position in the list.
        index: usize,
        /// The text given.
        value: String,
    },
}

/// Contexts whose URL a user opens in a browser ([`UrlPurpose::Navigate`]); every other
/// context is something software fetches ([`UrlPurpose::Fetch`]).
pub const NAVIGATE_CONTEXTS: &[&str] = &[
    "oauth_authorization_endpoint",
    "authorization_endpoint",
    "oauth_redirect_after_consent",
    "elicitation_url",
    "url_elicitation",
    "link",
    "open_url",
    "navigation",
];

/// The purpose a `context` name implies (see [`NAVIGATE_CONTEXTS`]).
pub fn purpose_of(context: &str) -> UrlPurpose {
    if NAVIGATE_CONTEXTS.contains(&context) {
        UrlPurpose::Navigate
    } else {
        UrlPurpose::Fetch
    }
}

/// The member `field` of `input` viewed by `view` (`Value::as_str`, `Value::as_object`).
fn member<'a, T: ?Sized>(
    input: &'a Value,
    field: &'static str,
    view: fn(&'a Value) -> Option<&'a T>,
    want: &'static str,
) -> Result<&'a T, UrlInputError> {
    input
        .get(field)
        .and_then(view)
        .ok_or(UrlInputError::Field { field, want })
}

fn text<'a>(input: &'a Value, field: &'static str) -> Result<&'a str, UrlInputError> {
    member(input, field, Value::as_str, "a string")
}

/// Reads an optional `policy` member: `{allow_loopback_http?, trusted_domains?,
/// consented_hosts?, max_len?}` over [`UrlPolicy::default`].
fn policy_of(input: &Value, purpose: UrlPurpose) -> Result<UrlPolicy, UrlInputError> {
    let mut p = UrlPolicy::default().with_purpose(purpose);
    let Some(given) = input.get("policy") else {
        return Ok(p);
    };
    let strings = |v: Option<&Value>, field| -> Result<Vec<String>, UrlInputError> {
        let Some(v) = v else { return Ok(Vec::new()) };
        v.as_array()
            .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_owned)).collect())
            .ok_or(UrlInputError::Field {
                field,
                want: "an array of strings",
            })
    };
    p.trusted_domains = strings(given.get("trusted_domains"), "policy.trusted_domains")?;
    p.consented_hosts = strings(given.get("consented_hosts"), "policy.consented_hosts")?;
    if let Some(v) = given.get("allow_loopback_http") {
        p.allow_loopback_http = v.as_bool().ok_or(UrlInputError::Field {
            field: "policy.allow_loopback_http",
            want: "a boolean",
        })?;
    }
    if let Some(v) = given.get("max_len") {
        p.max_len =
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(UrlInputError::Field {
                    field: "policy.max_len",
                    want: "a non-negative integer",
                })?;
    }
    Ok(p)
}

/// Runs `check url` on `input` (shapes in `corpus/README.md`):
///
/// * `{context, url, dns_answers_in_order?, redirect_chain?, policy?}`: the gate on
///   `url` (path `/url`) with the purpose implied by `context` ([`purpose_of`]); every
///   simulated DNS answer through [`judge_resolved`] (paths `/dns_answers_in_order/N`);
///   every redirect hop through the gate (paths `/redirect_chain/N`), a hop to another
///   registrable domain is `redirect_cross_site` (warn). Output: the assessment JSON
///   ([`UrlAssessment::to_json`]) plus `purpose`.
/// * `{context: "as_metadata", issuer_identifier, metadata_url, metadata}`:
///   RFC 8414 authorization-server metadata: identifier and metadata URL through the
///   gate, `metadata_url` a well-known URL of the identifier (§3.1), `metadata.issuer`
///   identical to the identifier (§3.3), every endpoint through the gate.
/// * `{context: "resource_metadata", resource, metadata_url, metadata}`: RFC 9728
///   protected-resource metadata ([`judge_resource_metadata`]).
/// * `{context: "authorization_response", expected_issuer, callback_query,
///   iss_required?}`: RFC 9207 `iss` check.
///
/// # Errors
/// [`UrlInputError`] when a member is missing or of the wrong type, or a DNS answer is
/// not an IP address.
pub fn check_url(input: &Value) -> Result<Report, UrlInputError> {
    let context = input.get("context").and_then(Value::as_str).unwrap_or("");
    match context {
        "as_metadata" => check_metadata(input, "issuer_identifier", judge_as_metadata),
        "resource_metadata" => check_metadata(input, "resource", judge_resource_metadata),
        "authorization_response" => check_authorization_response(input),
        _ => check_plain(input, purpose_of(context)),
    }
}

fn check_plain(input: &Value, purpose: UrlPurpose) -> Result<Report, UrlInputError> {
    let policy = policy_of(input, purpose)?;
    let url = text(input, "url")?;
    let first = assess(url, &policy, "/url");
    let mut findings = first.findings.clone();
    if let Some(answers) = input.get("dns_answers_in_order") {
        let answers = answers.as_array().ok_or(UrlInputError::Field {
            field: "dns_answers_in_order",
            want: "an array of IP address strings",
        })?;
        let mut ips = Vec::with_capacity(answers.len());
        for (index, a) in answers.iter().enumerate() {
            let s = a.as_str().unwrap_or_default();
            ips.push(s.parse::<IpAddr>().map_err(|_| UrlInputError::DnsAnswer {
                index,
                value: s.chars().take(64).collect(),
            })?);
        }
        findings.extend(judge_resolved(
            &first,
            &ips,
            &policy,
            "/dns_answers_in_order",
        ));
    }
    if let Some(chain) = input.get("redirect_chain") {
        let chain = chain.as_array().ok_or(UrlInputError::Field {
            field: "redirect_chain",
            want: "an array of URL strings",
        })?;
        let mut previous = first.clone();
        for (i, hop) in chain.iter().enumerate() {
            let hop = hop.as_str().ok_or(UrlInputError::Field {
                field: "redirect_chain",
                want: "an array of URL strings",
            })?;
            let path = pointer_push("/redirect_chain", &i.to_string());
            let next = assess(hop, &policy, &path);
            findings.extend(next.findings.iter().cloned());
            findings.extend(judge_redirect(&previous, &next, &path));
            previous = next;
        }
    }
    let mut output = first.to_json();
    output["purpose"] = json!(purpose.as_str());
    Ok(Report::from_findings(findings, false, Some(output)))
}

fn site(a: &UrlAssessment) -> Option<&str> {
    a.registrable_domain.as_deref().or(a.host_ascii.as_deref())
}

/// Judges one redirect hop beyond what [`assess`] says about its target: a hop from
/// `from` to another registrable domain (or another host, for IP literals and single
/// labels) than `to` is `redirect_cross_site` (warn) at `path`. The target itself must
/// also pass [`assess`]; the gateway's fetcher calls both for every hop it follows, as
/// `check url` does for a simulated `redirect_chain`.
pub fn judge_redirect(from: &UrlAssessment, to: &UrlAssessment, path: &str) -> Option<Finding> {
    let (a, b) = (site(from)?, site(to)?);
    (a != b).then(|| {
        Finding::new(
            Code::RedirectCrossSite,
            Severity::Warn,
            path,
            format!("the redirect leaves `{a}` for another site, `{b}`"),
        )
    })
}

/// Judges the addresses a host name resolved to (DNS rebinding defence): every answer
/// must be a public address, since a client may connect to any of them and a resolver
/// may answer differently between the check and the connection. A non-public answer is
/// `private_address` (high to fetch, warn to navigate; loopback with
/// `allow_loopback_http` warn), and a public first answer followed by a non-public one
/// is also `dns_rebinding`. Paths are `path/N`. The gateway connects only to an address
/// judged here (pinning the validated address).
///
/// `url` is the assessment of the URL whose host was resolved; nothing is reported for
/// an IP-literal host (it was judged by [`assess`]).
pub fn judge_resolved(
    url: &UrlAssessment,
    answers: &[IpAddr],
    policy: &UrlPolicy,
    path: &str,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if url.ip.is_some() {
        return findings;
    }
    let host = url.host_ascii.as_deref().unwrap_or("the host");
    let mut seen_public = false;
    let mut rebinding = None;
    for (i, ip) in answers.iter().enumerate() {
        let c = address::classify(*ip);
        let at = pointer_push(path, &i.to_string());
        if c.class.is_non_public() {
            let loopback = c.class == address::AddressClass::Loopback;
            findings.push(Finding::new(
                Code::PrivateAddress,
                non_public_severity(policy, loopback),
                at.clone(),
                format!(
                    "`{host}` resolves to {ip}, a {} address; no request may go there",
                    c.class.as_str()
                ),
            ));
            if seen_public && rebinding.is_none() {
                rebinding = Some((at, *ip));
            }
        } else {
            seen_public = true;
        }
    }
    if let Some((at, ip)) = rebinding {
        findings.push(Finding::new(
            Code::DnsRebinding,
            non_public_severity(policy, false),
            at,
            format!(
                "`{host}` first resolved to a public address and then to {ip}: DNS rebinding; connect only to the address that was checked"
            ),
        ));
    }
    findings
}

/// A metadata document check (`context: "as_metadata"` with subject member
/// `issuer_identifier`, judged by [`judge_as_metadata`]; `"resource_metadata"` with
/// `resource`, judged by [`judge_resource_metadata`]): `{<subject>, metadata_url,
/// metadata, policy?}`. Output: the subject and the normalized metadata URL.
fn check_metadata(
    input: &Value,
    subject: &'static str,
    judge: fn(&str, &str, &Map<String, Value>, &UrlPolicy) -> Vec<Finding>,
) -> Result<Report, UrlInputError> {
    let fetch = policy_of(input, UrlPurpose::Fetch)?;
    let id = text(input, subject)?;
    let metadata_url = text(input, "metadata_url")?;
    let findings = judge(
        id,
        metadata_url,
        member(input, "metadata", Value::as_object, "an object")?,
        &fetch,
    );
    let normalized = assess(metadata_url, &fetch, "")
        .normalized
        .unwrap_or_else(|| metadata_url.to_owned());
    let mut output = Map::new();
    output.insert(subject.to_owned(), json!(id));
    output.insert("metadata_url".to_owned(), json!(normalized));
    Ok(Report::from_findings(
        findings,
        false,
        Some(Value::Object(output)),
    ))
}

/// RFC 9207 §2.4: the `iss` of an authorization response must equal the issuer the
/// request went to (mix-up defence), and must be present when the server advertises
/// `authorization_response_iss_parameter_supported` (input `iss_required: true`).
fn check_authorization_response(input: &Value) -> Result<Report, UrlInputError> {
    let expected = text(input, "expected_issuer")?;
    let query = text(input, "callback_query")?;
    let required = input
        .get("iss_required")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let (findings, iss) = super::oauth::judge_authorization_response(expected, query, required);
    Ok(Report::from_findings(
        findings,
        false,
        Some(json!({"expected_issuer": expected, "iss": iss})),
    ))
}
