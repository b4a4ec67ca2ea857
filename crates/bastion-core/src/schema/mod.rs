//! Tool `outputSchema` validation (MCP 2025-11-25 "Tools §Output Schema" and
//! "Tools §Structured Content"; MCP 2026-07-28; JSON Schema 2020-12).
//!
//! A tool may declare an `outputSchema`; its non-error results must then carry
//! `structuredContent` that conforms to it. Bastion checks that before the host sees the
//! result: a result that does not conform is withheld and replaced by a tool error
//! ([`mismatch_result`]), so the host never receives data that breaks the tool's contract.
//!
//! The schema itself comes from an untrusted server, so before anything is compiled it is
//! bounded ([`SchemaLimits`], [`prewalk`]): size, depth, subschema count, composition and
//! reference counts, references local only (`#...`: nothing is ever fetched), regex
//! length and count. It is then compiled once ([`OutputValidator`], [`OutputSchemaCache`])
//! with jsonschema, offline, dialect from `$schema` (2020-12 by default), `format` as
//! annotation, and regexes run by the linear-time `regex` engine. A schema that fails any
//! of this is refused ([`Refusal`], finding `output_schema_refused`, warn) and not used.
//!
//! | situation | finding | severity |
//! |---|---|---|
//! | non-error result without `structuredContent` | `output_schema_mismatch` at `/structuredContent` | high |
//! | `structuredContent` does not conform | `output_schema_mismatch` per error, at `/structuredContent/...` | high |
//! | `isError: true`, `input_required`, task result | none: not validated | |
//! | schema over a bound, remote reference, unsafe regex, invalid | `output_schema_refused` at `/outputSchema/...` | warn |
//! | legacy era (≤ 2025-11-25) and the root is not `"type": "object"` | `output_schema_refused` | warn |
//! | text in the schema addressing the model, hidden characters | as for descriptors ([`crate::detect::scan_schema_strings`]) | at most warn |
//!
//! A gateway keeps one [`OutputSchemaCache`], calls
//! [`OutputSchemaCache::get_or_compile`] then [`OutputValidator::check`] per result, and
//! answers with [`mismatch_result`] when that returns findings; `check result` with an
//! `{outputSchema, result}` input runs [`check_structured`].

mod bounds;
mod cache;
mod error;
mod validator;

#[cfg(test)]
mod tests;

pub use bounds::{SchemaLimits, prewalk};
pub use cache::{OutputSchemaCache, schema_hash};
pub use error::Refusal;
pub use validator::{MAX_ERRORS, OutputValidator, check_root, is_validated_result};

use crate::era::Era;
use crate::finding::{Code, Finding, Severity};
use serde_json::{Value, json};

/// Everything `check result` reports about one result and the `outputSchema` of its tool:
/// instruction and hidden-character findings in the schema's strings
/// ([`crate::detect::scan_schema_strings`], paths under `/outputSchema`, severity capped
/// at `warn`: they flag the result, while withholding the tool itself is the descriptor
/// scan's decision at `tools/list`, where the same text weighs in full), then either the
/// schema's [`Refusal`] (`output_schema_refused`, warn, path under `/outputSchema`) or
/// the result's `output_schema_mismatch` findings ([`OutputValidator::check`], high,
/// paths relative to the result: `/structuredContent...`).
///
/// Compiles the schema each time: a caller that sees many results uses
/// [`OutputSchemaCache`] and [`OutputValidator::check`] instead.
pub fn check_structured(era: Era, schema: &Value, result: &Value) -> Vec<Finding> {
    let mut findings = crate::detect::scan_schema_strings(schema, "/outputSchema");
    for f in &mut findings {
        f.severity = f.severity.min(Severity::Warn);
    }
    match OutputValidator::compile(era, schema) {
        Ok(validator) => findings.extend(validator.check(result)),
        Err(refusal) => findings.push(refusal.finding("/outputSchema")),
    }
    findings
}

/// The `tools/call` result sent to the host in place of one whose `structuredContent`
/// does not match the tool's `outputSchema`: a tool error (`isError: true`, MCP
/// 2025-11-25 "Tools §Error Handling") naming the first `output_schema_mismatch` of
/// `findings`:
///
/// ```json
/// {"content": [{"type": "text", "text": "mcp-bastion withheld this result: its structuredContent does not match the tool's outputSchema (/structuredContent/temperature: value is not of type \"number\")"}], "isError": true}
/// ```
pub fn mismatch_result(findings: &[Finding]) -> Value {
    let first = findings
        .iter()
        .find(|f| f.code == Code::OutputSchemaMismatch)
        .map_or("no details", |f| {
            f.message
                .strip_prefix(validator::MISMATCH_PREFIX)
                .unwrap_or(&f.message)
        });
    json!({
        "content": [{
            "type": "text",
            "text": format!("mcp-bastion withheld this result: its structuredContent does not match the tool's outputSchema ({first})"),
        }],
        "isError": true,
    })
}
