//! Targets for the detectors that read JSON inputs: descriptors, output schemas, the
//! URL gate, elicitation requests and tool-call confirmation.

use crate::checks::{json, text};
use bastion_core::check::{self, CheckKind};
use bastion_core::detect::{DescriptorKind, scan_descriptor};
use bastion_core::elicit::{ElicitPolicy, FormLimits, check_elicitation, schema::parse_form};
use bastion_core::era::Era;
use bastion_core::schema::{OutputValidator, SchemaLimits, prewalk};
use bastion_core::url_gate::{UrlPolicy, assess, check_url};
use bastion_core::{Limits, Verdict};
use serde_json::Value;

/// Every descriptor detector (all five kinds) and `check descriptor`: findings point
/// inside the descriptor, carry a message, and scanning is deterministic.
///
/// # Panics
/// When a property fails.
pub fn descriptor(data: &[u8]) {
    let Some(value) = json(data) else {
        return;
    };
    for kind in [
        DescriptorKind::Tool,
        DescriptorKind::Prompt,
        DescriptorKind::Resource,
        DescriptorKind::ResourceTemplate,
        DescriptorKind::ServerInstructions,
    ] {
        let findings = scan_descriptor(kind, &value, "/d");
        for f in &findings {
            assert!(
                f.path.starts_with("/d"),
                "finding path {:?} outside /d",
                f.path
            );
            assert!(!f.message.is_empty());
        }
        assert_eq!(
            scan_descriptor(kind, &value, "/d"),
            findings,
            "not deterministic"
        );
    }
    if let Ok(report) = check::run(CheckKind::Descriptor, &value, &Limits::default()) {
        let high = report
            .findings
            .iter()
            .any(|f| f.severity >= bastion_core::Severity::High);
        assert_eq!(
            high,
            report.verdict == Verdict::Block,
            "verdict {:?}",
            report.verdict
        );
    }
}

/// outputSchema pre-walk and validation: `{outputSchema, result}` or a bare schema. A
/// schema the pre-walk refuses never compiles; a compiled one checks any result without
/// panicking; `check result` agrees.
///
/// # Panics
/// When a property fails.
pub fn output_schema(data: &[u8]) {
    let Some(value) = json(data) else {
        return;
    };
    let (schema, result) = match (value.get("outputSchema"), value.get("result")) {
        (Some(s), Some(r)) => (s, Some(r)),
        _ => (&value, None),
    };
    let limits = SchemaLimits::default();
    let walked = prewalk(schema, &limits);
    for era in [Era::Legacy, Era::Stateless] {
        match OutputValidator::compile_with(era, schema, &limits) {
            Ok(validator) => {
                assert!(walked.is_ok(), "compiled a schema the pre-walk refuses");
                if let Some(r) = result {
                    let _ = validator.check(r);
                }
            }
            Err(refusal) => {
                let _ = refusal.finding("/outputSchema");
            }
        }
    }
    if result.is_some() {
        let _ = check::run(CheckKind::Result, &value, &Limits::default());
    }
}

/// URL gate: any text under every purpose; the normalized URL is a fixed point naming
/// the same host, address and registrable domain; `check url` on JSON inputs.
///
/// # Panics
/// When a property fails.
pub fn url_gate(data: &[u8]) {
    if let Some(value) = json(data).filter(Value::is_object) {
        let _ = check_url(&value);
    }
    let raw = text(data);
    for policy in [
        UrlPolicy::default(),
        UrlPolicy::navigate().with_loopback_http(true),
    ] {
        let first = assess(&raw, &policy, "/u");
        // The gate refuses a normalized form that reads differently when parsed again
        // and reports none; that is known of `file:` URLs only (rust-url #1101). Any
        // other scheme doing it is a new non-idempotent class to look at, not a pass.
        if first
            .findings
            .iter()
            .any(|f| f.message.contains("when parsed again"))
        {
            assert!(
                reads_as_file_scheme(&raw),
                "a non-file URL whose normalized form reparses differently: {:?}",
                first.findings
            );
        }
        // Percent-encoding can grow a URL past the length limit; such a form is
        // refused as too long on a second look, which is right.
        let Some(norm) = first
            .normalized
            .as_ref()
            .filter(|n| n.len() <= policy.max_len)
        else {
            continue;
        };
        let second = assess(norm, &policy, "/u");
        assert_eq!(
            second.normalized.as_ref(),
            Some(norm),
            "normalization not idempotent"
        );
        assert_eq!(second.host_ascii, first.host_ascii);
        assert_eq!(second.registrable_domain, first.registrable_domain);
        assert_eq!(second.ip, first.ip);
        assert_eq!(second.address_class, first.address_class);
    }
}

/// `true` when `raw` parses (WHATWG URL Standard, `url` crate) as a `file:` URL.
fn reads_as_file_scheme(raw: &str) -> bool {
    url::Url::parse(raw).is_ok_and(|u| u.scheme() == "file")
}

/// Elicitation schema rules and `check elicitation`: deterministic, and a request whose
/// form parsing reports a `high` finding is never forwarded as allowed.
///
/// # Panics
/// When a property fails.
pub fn elicitation(data: &[u8]) {
    let Some(value) = json(data) else {
        return;
    };
    if let Some(schema) = value.pointer("/params/requestedSchema") {
        let (_, findings) = parse_form(schema, &FormLimits::default(), "/params/requestedSchema");
        for f in &findings {
            assert!(
                f.path.starts_with("/params/requestedSchema"),
                "{:?}",
                f.path
            );
        }
    }
    let policy = ElicitPolicy::default();
    let Ok(report) = check_elicitation(&value, &policy, "server") else {
        return;
    };
    let again = check_elicitation(&value, &policy, "server").ok();
    assert_eq!(again.as_ref(), Some(&report), "not deterministic");
    let high = report
        .findings
        .iter()
        .any(|f| f.severity >= bastion_core::Severity::High);
    if high {
        assert_eq!(
            report.verdict,
            Verdict::Block,
            "high finding but {:?}",
            report.verdict
        );
    }
}

/// Tool-call confirmation (`check confirmation`): deterministic (the digest binds the
/// user's approval to exactly this call), and a confirmation view is produced whenever
/// the call must be asked about.
///
/// # Panics
/// When a property fails.
pub fn confirmation(data: &[u8]) {
    let Some(value) = json(data) else {
        return;
    };
    let Ok(report) = check::run(CheckKind::Confirmation, &value, &Limits::default()) else {
        return;
    };
    let again = check::run(CheckKind::Confirmation, &value, &Limits::default()).ok();
    assert_eq!(again.as_ref(), Some(&report), "not deterministic");
    if report.verdict == Verdict::Flag {
        assert!(report.output.is_some(), "asks without a confirmation view");
    }
}
