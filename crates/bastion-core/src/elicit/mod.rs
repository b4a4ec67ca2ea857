//! Elicitation mediation, pure part (issue 6 §1, §2, §4, §6; MCP 2025-11-25
//! "Elicitation").
//!
//! The gateway calls [`review_request`] on the `params` of every server `elicitation/create`
//! (and every elicitation entry of a stateless-era `input_required` result):
//!
//! * **form mode** (`mode` absent or `"form"`): `requestedSchema` must be a flat object of
//!   the allowed primitive kinds within [`FormLimits`] ([`schema::parse_form`],
//!   `elicitation_schema_refused`), and no property or the message may ask for a secret
//!   ([`sensitive::scan_form`], `sensitive_form_field`). A refused form never reaches
//!   the host; the server gets a policy error ([`refusal_error`]). The host's answer to
//!   an allowed form is checked with [`answer::validate_answer`] against
//!   [`ElicitationReview::form`] before it is forwarded.
//! * **URL mode** (`mode: "url"`): `elicitationId`, `url`, `message` are required; the
//!   URL goes through the URL gate ([`crate::url_gate::assess`], purpose navigate). A
//!   blocked URL is never shown; otherwise the host gets [`url_mode::rewrite_params`]
//!   (message prefixed with the server and the registrable domain and a warning line per
//!   flag, `url` normalized).
//! * in both modes, hidden characters (bidi controls, tags, zero-width, terminal escapes)
//!   in the message or the form's labels are reported ([`crate::unicode::scan_hidden`]).
//! * a mode the host did not declare in its `elicitation` capability
//!   ([`DeclaredModes`]; an empty object means form only) is refused
//!   (`elicitation_mode_not_declared`; legacy era: -32602 to the server).
//!
//! [`flow`] is the URL elicitation state machine; [`required`] handles -32042
//! `URLElicitationRequiredError` and the one-retry rule; [`stateless`] the 2026-07-28
//! `input_required` results; `mcp-bastion check elicitation`
//! is [`check_elicitation`].
//!
//! # Gateway integration (the order of calls)
//! 1. **Handshake**: read the host's `capabilities.elicitation` with
//!    [`DeclaredModes::from_capability`], narrow it by policy (e.g. `url: false`), forward
//!    the narrowed capability to the server and keep it in [`ElicitPolicy::modes`].
//! 2. **`elicitation/create` from the server** (legacy): [`review_request`] on its
//!    `params` (`base` = `/params`). `block` → answer the server with [`refusal_error`]
//!    (or -32602 when the only finding is `elicitation_mode_not_declared`), show nothing,
//!    write a consent-ledger decision "refused by policy". Otherwise forward: form mode
//!    unchanged, URL mode with [`url_mode::rewrite_params`]; for URL mode create a
//!    [`flow::UrlFlow`] (`url` = [`crate::url_gate::UrlAssessment::normalized`]) and call
//!    [`flow::UrlFlow::show`].
//! 3. **Host answer**: form mode → [`validate_answer`] with [`ElicitationReview::form`];
//!    an `Err` is not forwarded (the server gets an error). URL mode →
//!    [`flow::UrlFlow::answer`], write the ledger decision (accepted / declined /
//!    cancelled; an accept is consent to navigate only), read it back, then forward and
//!    call [`flow::UrlFlow::await_out_of_band`].
//! 4. **`notifications/elicitation/complete`**: [`flow::judge_completion`] with the flow
//!    found by `elicitationId` for this server; forward only on `Ok`, otherwise drop and
//!    audit [`flow::FlowError::reason`]; on `Ok` also call
//!    [`required::Requirement::completed`] for a requirement waiting on that id. Call
//!    [`flow::UrlFlow::expire_if_due`] on a timer.
//! 5. **-32042 from the server**: [`required::review_required_error`] on the error
//!    object, forward its `error`; record a [`required::Requirement`] with
//!    [`required::request_digest`] of the original request and `kept_ids`; on a later
//!    host request with the same digest call [`required::Requirement::begin_retry`]
//!    (refuse with reason `retry_not_eligible` on `Err`) and
//!    [`required::Requirement::finish_retry`] when it is answered.
//! 6. **Stateless era**: [`stateless::review_input_requests`] on an `input_required`
//!    result; keep its `forms` to validate `inputResponses` on the retry.

pub mod answer;
mod check;
pub mod flow;
pub mod form;
pub mod required;
pub mod schema;
pub mod sensitive;
pub mod stateless;
mod terms;
#[cfg(test)]
mod tests;
pub mod url_mode;

pub use answer::{AnswerError, validate_answer};
pub use check::{ElicitInputError, check_elicitation, refusal_error};
pub use schema::{FormLimits, FormSchema};

use crate::finding::{Code, Finding, Severity, Verdict, pointer_push};
use crate::url_gate::{UrlAssessment, UrlPolicy, UrlPurpose, assess};
use serde_json::Value;

/// The elicitation modes the host declared (`capabilities.elicitation`, MCP 2025-11-25
/// "Elicitation §Capabilities"): `{}` means form only, `{"form": {}, "url": {}}` both.
/// Bastion may narrow them by policy (e.g. URL mode off) before forwarding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredModes {
    /// Form mode declared.
    pub form: bool,
    /// URL mode declared.
    pub url: bool,
}

impl Default for DeclaredModes {
    /// Both modes (what `check elicitation` judges with, having no handshake).
    fn default() -> Self {
        Self {
            form: true,
            url: true,
        }
    }
}

impl DeclaredModes {
    /// Reads a host's `capabilities.elicitation` value; `None` when the host declared no
    /// elicitation support at all (no mode).
    pub fn from_capability(elicitation: Option<&Value>) -> Self {
        match elicitation.and_then(Value::as_object) {
            None => Self {
                form: false,
                url: false,
            },
            Some(o) if o.get("form").is_none() && o.get("url").is_none() => Self {
                form: true,
                url: false,
            },
            Some(o) => Self {
                form: o.get("form").is_some(),
                url: o.get("url").is_some(),
            },
        }
    }
}

/// What the elicitation review allows.
///
/// # Defaults
/// [`UrlPolicy::navigate`] for URLs, [`FormLimits::default`], both modes declared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElicitPolicy {
    /// URL gate policy for URL mode (its purpose is forced to navigate).
    pub url: UrlPolicy,
    /// Form schema limits.
    pub form: FormLimits,
    /// Modes the host declared, narrowed by policy.
    pub modes: DeclaredModes,
}

impl Default for ElicitPolicy {
    fn default() -> Self {
        Self {
            url: UrlPolicy::navigate(),
            form: FormLimits::default(),
            modes: DeclaredModes::default(),
        }
    }
}

/// The mode of an elicitation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElicitMode {
    /// Form mode (`mode` absent or `"form"`).
    Form,
    /// URL mode.
    Url,
}

/// The review of one `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationReview {
    /// `block`: never shown, the server gets [`refusal_error`]; `flag`/`allow`: shown.
    pub verdict: Verdict,
    /// Every finding; paths under the `base` given to [`review_request`].
    pub findings: Vec<Finding>,
    /// The mode, when it could be read.
    pub mode: Option<ElicitMode>,
    /// Form mode: the parsed schema to validate the host's answer with.
    pub form: Option<FormSchema>,
    /// URL mode: the URL gate's assessment (normalized URL, domains).
    pub url: Option<UrlAssessment>,
}

fn malformed(path: String, what: &str) -> Finding {
    Finding::new(
        Code::MalformedMessage,
        Severity::High,
        path,
        format!("the elicitation request is malformed: {what}"),
    )
}

/// Hidden-character findings ([`crate::unicode::scan_hidden`]: tags, bidi controls,
/// zero-width, terminal escapes, ...) in everything the host shows the user: `message`,
/// and in `requestedSchema` every `title`, `description`, `enumNames` entry and `oneOf` /
/// `anyOf` title. A form that hides or reorders text is not shown.
fn scan_shown_text(params: &Value, base: &str, findings: &mut Vec<Finding>) {
    if let Some(m) = params.get("message").and_then(Value::as_str) {
        crate::unicode::scan_hidden(m, &pointer_push(base, "message"), findings);
    }
    let Some(schema) = params.get("requestedSchema") else {
        return;
    };
    let mut stack = vec![(pointer_push(base, "requestedSchema"), schema, 0usize)];
    while let Some((path, v, depth)) = stack.pop() {
        match v {
            Value::Object(o) if depth < 8 => {
                for (k, child) in o {
                    let at = pointer_push(&path, k);
                    match (k.as_str(), child) {
                        ("title" | "description", Value::String(s)) => {
                            crate::unicode::scan_hidden(s, &at, findings);
                        }
                        _ => stack.push((at, child, depth + 1)),
                    }
                }
            }
            Value::Array(items) if depth < 8 => {
                let labels = path.ends_with("/enumNames");
                for (i, child) in items.iter().enumerate() {
                    let at = pointer_push(&path, &i.to_string());
                    match child {
                        Value::String(s) if labels => crate::unicode::scan_hidden(s, &at, findings),
                        _ => stack.push((at, child, depth + 1)),
                    }
                }
            }
            _ => {}
        }
    }
}

/// Reviews the `params` of an `elicitation/create` (module docs); finding paths are under
/// `base`, the pointer to `params` (e.g. `/params`). Pure.
pub fn review_request(params: &Value, policy: &ElicitPolicy, base: &str) -> ElicitationReview {
    let mut review = ElicitationReview {
        verdict: Verdict::Allow,
        findings: Vec::new(),
        mode: None,
        form: None,
        url: None,
    };
    let mode = match params.get("mode") {
        None => Some(ElicitMode::Form),
        Some(Value::String(m)) if m == "form" => Some(ElicitMode::Form),
        Some(Value::String(m)) if m == "url" => Some(ElicitMode::Url),
        Some(_) => None,
    };
    review.mode = mode;
    let f = &mut review.findings;
    if !params.is_object() {
        f.push(malformed(base.to_owned(), "`params` must be an object"));
    } else if mode.is_none() {
        f.push(malformed(
            pointer_push(base, "mode"),
            "`mode` must be \"form\" or \"url\"",
        ));
    }
    if params.get("message").and_then(Value::as_str).is_none() {
        f.push(malformed(
            pointer_push(base, "message"),
            "`message` must be a string",
        ));
    }
    let declared = match mode {
        Some(ElicitMode::Form) => policy.modes.form,
        Some(ElicitMode::Url) => policy.modes.url,
        None => true,
    };
    if !declared {
        f.push(Finding::new(
            Code::ElicitationModeNotDeclared,
            Severity::High,
            pointer_push(base, "mode"),
            "the server asks in an elicitation mode the host did not declare (or policy turned off); refused",
        ));
    }
    scan_shown_text(params, base, f);
    match mode {
        Some(ElicitMode::Form) => {
            let at = pointer_push(base, "requestedSchema");
            let (form, refusals) = match params.get("requestedSchema") {
                Some(s) => schema::parse_form(s, &policy.form, &at),
                None => (
                    FormSchema::default(),
                    vec![malformed(at, "form mode needs `requestedSchema`")],
                ),
            };
            let clean = refusals.is_empty();
            f.extend(refusals);
            f.extend(sensitive::scan_form(params, base));
            review.form = clean.then_some(form);
        }
        Some(ElicitMode::Url) => {
            if params
                .get("elicitationId")
                .and_then(Value::as_str)
                .is_none()
            {
                f.push(malformed(
                    pointer_push(base, "elicitationId"),
                    "URL mode needs a string `elicitationId`",
                ));
            }
            match params.get("url").and_then(Value::as_str) {
                Some(u) => {
                    let gate = policy.url.clone().with_purpose(UrlPurpose::Navigate);
                    let a = assess(u, &gate, &pointer_push(base, "url"));
                    f.extend(a.findings.iter().cloned());
                    review.url = Some(a);
                }
                None => f.push(malformed(
                    pointer_push(base, "url"),
                    "URL mode needs a string `url`",
                )),
            }
        }
        None => {}
    }
    review.verdict = Verdict::from_findings(&review.findings, false);
    review
}
