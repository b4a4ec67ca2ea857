//! Instruction-like text aimed at the model inside a descriptor string: combines the
//! signals of [`super::signals`] into findings.
//!
//! # Severity
//! A single weak signal never blocks. Signals are grouped (instruction, override,
//! concealment, tag, credential, exfiltration, shadowing); a group is *corroborated*
//! when another group is present in the same string.
//!
//! | signal | alone | corroborated |
//! |---|---|---|
//! | instruction-like phrase (`instruction_phrase`) | warn | warn (it corroborates the others) |
//! | override of earlier instructions | high | high |
//! | concealment from the user (`concealment_phrase`) | high | critical with credential/exfiltration |
//! | secrecy without naming the user | warn | high |
//! | pseudo tag (`pseudo_tag`) | warn (chat-role injection: high) | high |
//! | reading a specific secret (`credential_access`) | warn | high |
//! | reading a generic secret ("the password") | — | warn |
//! | sending conversation data out (`exfiltration_sink`) | warn | high |
//! | rerouting other tools (`tool_shadowing`) | high | critical with exfiltration/concealment |
//! | standing order about other tools | warn | warn |
//!
//! Server instructions address the model by design, so instruction-like phrases there
//! produce no finding and only corroborate credential and exfiltration signals.

use super::DescriptorKind;
use super::phrases::Sig;
use super::signals::{Signals, analyze_descriptor};
use crate::finding::{Code, Finding, Severity};

/// Signal groups that corroborate each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Instruction,
    Override,
    Conceal,
    Tag,
    Credential,
    Exfil,
    Shadow,
}

const INSTRUCTION_SIGS: &[Sig] = &[
    Sig::Address,
    Sig::AddressThird,
    Sig::RolePrefix,
    Sig::Coercion,
    Sig::Precondition,
    Sig::Standing,
    Sig::StandingImperative,
    Sig::Trigger,
    Sig::RunCommand,
    Sig::ToolCall,
    Sig::CredRequest,
    Sig::CredDemand,
    Sig::ShadowWeak,
];

const GROUPS: [Group; 7] = [
    Group::Instruction,
    Group::Override,
    Group::Conceal,
    Group::Tag,
    Group::Credential,
    Group::Exfil,
    Group::Shadow,
];

fn present(s: &Signals, g: Group) -> bool {
    match g {
        Group::Instruction => INSTRUCTION_SIGS.iter().any(|&x| s.has(x)),
        Group::Override => s.has(Sig::Override),
        Group::Conceal => s.has(Sig::ConcealStrong) || s.has(Sig::ConcealWeak),
        Group::Tag => s.has(Sig::PseudoTag) || s.has(Sig::ChatRole),
        Group::Credential => s.has(Sig::CredStrong),
        Group::Exfil => s.has(Sig::Exfil),
        Group::Shadow => s.has(Sig::Shadow),
    }
}

/// What one string is, for messages and kind-specific rules.
#[derive(Clone, Copy)]
pub(crate) struct Field<'a> {
    /// The descriptor kind.
    pub kind: DescriptorKind,
    /// JSON Pointer of the string.
    pub path: &'a str,
    /// Human label (`description`, `inputSchema.properties.region.enum[2]`).
    pub label: &'a dyn std::fmt::Display,
    /// The described tool's own name, if any.
    pub own_name: Option<&'a str>,
}

/// Scans one descriptor string and appends its findings.
///
/// Text smuggled in Unicode tag characters (U+E0020..U+E007E, invisible ASCII) is decoded
/// and scanned too, so the message says what the hidden text asks for; the hidden
/// characters themselves are reported by [`crate::unicode::scan_hidden`].
pub(crate) fn scan_text(text: &str, field: &Field<'_>, findings: &mut Vec<Finding>) {
    let signals = analyze_descriptor(text, field.own_name);
    assess(&signals, field, findings);
    let hidden: String = text
        .chars()
        .filter_map(|c| match u32::from(c) {
            v @ 0xE0020..=0xE007E => char::from_u32(v - 0xE0000),
            _ => None,
        })
        .collect();
    if hidden.trim().len() >= 4 {
        let label = format!("hidden Unicode tag text in {}", field.label);
        let inner = Field {
            label: &label,
            ..*field
        };
        assess(
            &analyze_descriptor(&hidden, field.own_name),
            &inner,
            findings,
        );
    }
}

fn assess(s: &Signals, field: &Field<'_>, findings: &mut Vec<Finding>) {
    let instructions_kind = field.kind == DescriptorKind::ServerInstructions;
    let corroborated = |g: Group| {
        GROUPS.iter().any(|&h| {
            h != g
                && present(s, h)
                && (h != Group::Instruction
                    || !instructions_kind
                    || matches!(g, Group::Credential | Group::Exfil))
        })
    };
    let label = field.label;
    let mut push = |code: Code, severity: Severity, message: String| {
        findings.push(Finding::new(code, severity, field.path, message));
    };
    let conceal = present(s, Group::Conceal);
    let exfil = present(s, Group::Exfil);
    let cred = present(s, Group::Credential);

    if let Some(ev) = s.evidence(Sig::Override) {
        push(
            Code::InstructionPhrase,
            Severity::High,
            format!(
                "{label} tells the model to disregard its earlier instructions (\"{ev}\"); remove it or do not use this server."
            ),
        );
    } else if !instructions_kind
        && let Some(ev) = INSTRUCTION_SIGS
            .iter()
            .filter(|&&x| x != Sig::ShadowWeak)
            .find_map(|&x| s.evidence(x))
    {
        push(
            Code::InstructionPhrase,
            Severity::Warn,
            format!(
                "{label} addresses the model with an instruction (\"{ev}\"); descriptor text should describe, not command."
            ),
        );
    }

    if let Some(ev) = s.evidence(Sig::ConcealStrong) {
        let sev = if cred || exfil {
            Severity::Critical
        } else {
            Severity::High
        };
        push(
            Code::ConcealmentPhrase,
            sev,
            format!("{label} asks the model to hide something from the user (\"{ev}\")."),
        );
    } else if let Some(ev) = s.evidence(Sig::ConcealWeak) {
        let sev = if corroborated(Group::Conceal) {
            Severity::High
        } else {
            Severity::Warn
        };
        push(
            Code::ConcealmentPhrase,
            sev,
            format!(
                "{label} asks for secrecy (\"{ev}\"); instructions kept from the user are a poisoning sign."
            ),
        );
    }

    if let Some(ev) = s.evidence(Sig::ChatRole) {
        push(
            Code::PseudoTag,
            Severity::High,
            format!(
                "{label} injects a chat-template role marker (\"{ev}\") to speak to the model as the system."
            ),
        );
    } else if let Some(ev) = s.evidence(Sig::PseudoTag) {
        if corroborated(Group::Tag) {
            push(
                Code::PseudoTag,
                Severity::High,
                format!(
                    "{label} wraps instructions for the model in the tag-like marker \"{ev}\"."
                ),
            );
        } else {
            push(
                Code::PseudoTag,
                Severity::Warn,
                format!(
                    "{label} contains the tag-like marker \"{ev}\" that addresses the model out of band."
                ),
            );
        }
    }

    if let Some(ev) = s.evidence(Sig::CredStrong) {
        let sev = if exfil && conceal {
            Severity::Critical
        } else if corroborated(Group::Credential) {
            Severity::High
        } else {
            Severity::Warn
        };
        push(
            Code::CredentialAccess,
            sev,
            format!("{label} asks the model to {ev}, a local secret."),
        );
    } else if let Some(ev) = s.evidence(Sig::CredWeak)
        && corroborated(Group::Credential)
    {
        push(
            Code::CredentialAccess,
            Severity::Warn,
            format!("{label} asks the model to {ev} as part of an instruction."),
        );
    }

    if let Some(ev) = s.evidence(Sig::Exfil) {
        let sev = if cred && conceal {
            Severity::Critical
        } else if corroborated(Group::Exfil) {
            Severity::High
        } else {
            Severity::Warn
        };
        push(
            Code::ExfiltrationSink,
            sev,
            format!("{label} asks the model to {ev}."),
        );
    }

    if let Some(ev) = s.evidence(Sig::Shadow) {
        let sev = if exfil || conceal {
            Severity::Critical
        } else {
            Severity::High
        };
        push(
            Code::ToolShadowing,
            sev,
            format!("{label} changes how other tools or servers are used (\"{ev}\")."),
        );
    } else if let Some(ev) = s.evidence(Sig::ShadowWeak).filter(|_| !instructions_kind) {
        push(
            Code::ToolShadowing,
            Severity::Warn,
            format!("{label} gives a standing order about other tools (\"{ev}\")."),
        );
    }
}

/// A `default`, `const`, `examples` or `enum` value that is a URL left open for data to be
/// appended (`https://host/collect?d=`), or carrying a data placeholder
/// (`https://host/?q={conversation}`): an exfiltration sink prepared in advance.
pub(crate) fn scan_open_url(text: &str, field: &Field<'_>, findings: &mut Vec<Finding>) {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return;
    };
    if t.chars().any(char::is_whitespace) {
        return;
    }
    let open_end = t.ends_with(['=', '?', '&']);
    let placeholder = ["{", "<", "$"].iter().any(|p| rest.contains(p))
        && [
            "message",
            "history",
            "conversation",
            "chat",
            "prompt",
            "context",
            "secret",
            "token",
            "key",
            "password",
            "data",
        ]
        .iter()
        .any(|w| rest.contains(w));
    if !(open_end || placeholder) {
        return;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority
        .rsplit('@')
        .next()
        .unwrap_or("")
        .split(':')
        .next()
        .unwrap_or("");
    let host: String = host.chars().take(60).collect();
    findings.push(Finding::new(
        Code::ExfiltrationSink,
        Severity::Warn,
        field.path,
        format!(
            "{} is a URL on {host} left open for data to be appended; check what the model is told to put there.",
            field.label
        ),
    ));
}

#[cfg(test)]
#[path = "instruction_tests.rs"]
mod tests;
