//! [`OutputValidator`]: one compiled `outputSchema`, checked against many results.

use super::bounds::{SchemaLimits, prewalk};
use super::error::{Refusal, shown};
use crate::era::Era;
use crate::finding::{Code, Finding, Severity};
use crate::json::Member;
use jsonschema::{PatternOptions, Retrieve, Uri};
use serde_json::Value;

/// Most `output_schema_mismatch` findings reported for one result; one more finding says
/// how many were left out.
pub const MAX_ERRORS: usize = 16;

/// Every `output_schema_mismatch` message starts with this; the rest is the error
/// (`<JSON Pointer>: <what is wrong>`), which [`super::mismatch_result`] quotes.
pub(super) const MISMATCH_PREFIX: &str =
    "structuredContent does not match the tool's outputSchema: ";

/// A retriever that refuses every URI: compiling never fetches anything (no network, no
/// files). The pre-walk already refuses non-local references; this is the second wall.
struct RefuseAll;

impl Retrieve for RefuseAll {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "mcp-bastion never fetches schemas (`{}`)",
            shown(uri.as_str(), 80)
        )
        .into())
    }
}

/// A tool's `outputSchema`, bounded, compiled once and used for every result of the tool
/// (MCP 2025-11-25 "Tools §Output Schema": servers MUST return `structuredContent` that
/// conforms to it; clients SHOULD validate).
///
/// Compiled with jsonschema, offline (every reference must be local, a retriever that
/// refuses everything stands behind that), with the dialect taken from `$schema`
/// (JSON Schema 2020-12 when absent, as MCP specifies), `format` as an annotation only
/// (JSON Schema 2020-12 Validation §7.2.1), and `pattern`/`patternProperties` run by the
/// linear-time `regex` engine (no look-around, no backreferences, no catastrophic
/// backtracking; JSON Schema 2020-12 Validation §6.3.3 names ECMA-262 regexes, which are
/// translated).
pub struct OutputValidator {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for OutputValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputValidator")
            .field("draft", &self.validator.draft())
            .finish_non_exhaustive()
    }
}

/// The era rule on the schema root, checked before anything else (cheap, O(1)).
///
/// - [`Era::Legacy`] (MCP ≤ 2025-11-25): the root must be an object with
///   `"type": "object"`, because `structuredContent` is a JSON object there.
/// - [`Era::Stateless`] (MCP 2026-07-28): any schema root (object or boolean schema).
///
/// # Errors
/// [`Refusal::RootNotObject`] or [`Refusal::NotASchema`].
pub fn check_root(era: Era, schema: &Value) -> Result<(), Refusal> {
    match (era, schema) {
        (Era::Legacy, Value::Object(map)) => {
            if map.member("type").and_then(Value::as_str) == Some("object") {
                Ok(())
            } else {
                Err(Refusal::RootNotObject)
            }
        }
        (Era::Legacy, Value::Bool(_)) => Err(Refusal::RootNotObject),
        (Era::Stateless, Value::Object(_) | Value::Bool(_)) => Ok(()),
        _ => Err(Refusal::NotASchema),
    }
}

/// `true` when `result` is a final, non-error `tools/call` result, the only kind that is
/// validated: not `isError: true` (tool errors carry no promise about their structure),
/// not a 2026-07-28 `resultType: "input_required"` result, not a task-augmented
/// `CreateTaskResult` (a `task` without `content`). Any other `resultType` is validated,
/// so an unknown value cannot switch validation off.
pub fn is_validated_result(result: &Value) -> bool {
    if result.member("isError") == Some(&Value::Bool(true)) {
        return false;
    }
    if result.member("resultType").and_then(Value::as_str) == Some("input_required") {
        return false;
    }
    !(result.member("task").is_some() && result.member("content").is_none())
}

impl OutputValidator {
    /// [`OutputValidator::compile_with`] with the default [`SchemaLimits`].
    ///
    /// # Errors
    /// A [`Refusal`] when the schema breaks the era rule, a bound, or does not compile.
    pub fn compile(era: Era, schema: &Value) -> Result<Self, Refusal> {
        Self::compile_with(era, schema, &SchemaLimits::default())
    }

    /// Checks the era rule ([`check_root`]) and the bounds ([`super::prewalk`]), then
    /// compiles `schema`.
    ///
    /// # Errors
    /// A [`Refusal`] when the schema breaks the era rule or a bound, uses a regex the
    /// linear-time engine cannot run ([`Refusal::UnsafePattern`]), or is not a valid
    /// schema of its dialect ([`Refusal::Invalid`]).
    pub fn compile_with(era: Era, schema: &Value, limits: &SchemaLimits) -> Result<Self, Refusal> {
        check_root(era, schema)?;
        Self::compile_unchecked_root(schema, limits)
    }

    /// Bounds and compile, without the era rule (the cache checks it per call).
    pub(super) fn compile_unchecked_root(
        schema: &Value,
        limits: &SchemaLimits,
    ) -> Result<Self, Refusal> {
        prewalk(schema, limits)?;
        let patterns = PatternOptions::regex()
            .size_limit(limits.regex_size_limit)
            .dfa_size_limit(limits.regex_dfa_size_limit);
        let validator = jsonschema::options()
            .with_retriever(RefuseAll)
            .should_validate_formats(false)
            .with_pattern_options(patterns)
            .build(schema)
            .map_err(|e| build_refusal(&e, schema))?;
        Ok(Self { validator })
    }

    /// The `output_schema_mismatch` findings (severity `high`) for one `tools/call`
    /// result; empty when it conforms or is not validated ([`is_validated_result`]).
    ///
    /// Paths are relative to the result: `/structuredContent` when it is missing, else
    /// `/structuredContent` followed by each error's instance path. Messages name the
    /// error without echoing values (at most 80 characters of it, hidden characters
    /// escaped). At most [`MAX_ERRORS`] errors are listed, then one finding counts the
    /// rest.
    pub fn check(&self, result: &Value) -> Vec<Finding> {
        if !is_validated_result(result) {
            return Vec::new();
        }
        let Some(structured) = result.member("structuredContent") else {
            return vec![mismatch(
                "/structuredContent",
                "structuredContent is missing from a non-error result",
            )];
        };
        if self.validator.is_valid(structured) {
            return Vec::new();
        }
        let mut findings = Vec::new();
        let mut more = 0usize;
        for error in self.validator.iter_errors(structured) {
            if findings.len() == MAX_ERRORS {
                more += 1;
                continue;
            }
            let path = format!("/structuredContent{}", error.instance_path().as_str());
            let what = shown(&error.masked().to_string(), 80);
            findings.push(mismatch(&path, &format!("{}: {what}", shown(&path, 80))));
        }
        if more > 0 {
            findings.push(mismatch(
                "/structuredContent",
                &format!("{more} more validation error(s) not listed"),
            ));
        }
        if findings.is_empty() {
            // `is_valid` and `iter_errors` disagree only on an engine failure (a regex
            // panic caught by jsonschema): fail closed.
            findings.push(mismatch(
                "/structuredContent",
                "/structuredContent: the validator could not decide",
            ));
        }
        findings
    }

    /// `true` when `instance` conforms to the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }
}

fn mismatch(path: &str, detail: &str) -> Finding {
    Finding::new(
        Code::OutputSchemaMismatch,
        Severity::High,
        path,
        format!("{MISMATCH_PREFIX}{detail}"),
    )
}

/// A compile error as a refusal: a regex that does not compile is unsafe, anything else
/// invalid. The error's instance path is the location inside the schema.
fn build_refusal(error: &jsonschema::ValidationError<'_>, schema: &Value) -> Refusal {
    let path = error.instance_path().as_str().to_owned();
    let last = path.rsplit('/').next().unwrap_or("");
    let under_pattern_properties = path.rsplit_once('/').is_some_and(|(head, _)| {
        head.ends_with("/patternProperties") || head == "/patternProperties"
    });
    if error.kind().keyword() == "format" && (last == "pattern" || under_pattern_properties) {
        let pattern = if last == "pattern" {
            schema
                .pointer(&path)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        } else {
            last.replace("~1", "/").replace("~0", "~")
        };
        return Refusal::UnsafePattern {
            path,
            pattern: shown(&pattern, 80),
        };
    }
    Refusal::Invalid {
        path,
        detail: shown(&error.to_string(), 80),
    }
}
