//! [`Refusal`]: why an `outputSchema` is not used.

use crate::finding::{Code, Finding, Severity};

/// Why a tool's `outputSchema` is refused: it is not compiled and results of the tool are
/// not validated against it. A refusal is a value, reported as one `output_schema_refused`
/// finding (severity `warn`, see [`Refusal::finding`]); it is not an error of the caller.
///
/// Every `path` is an RFC 6901 JSON Pointer into the schema (`""` is the schema root).
/// Strings copied from the schema (references, patterns, details) are shown with hidden
/// characters escaped and clipped to 80 characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The root is neither a JSON object nor a boolean schema.
    #[error("the outputSchema is not a JSON Schema: its root must be a JSON object")]
    NotASchema,
    /// MCP 2025-11-25 (and earlier) requires the root to be `{"type": "object", ...}`.
    #[error(
        "in MCP 2025-11-25 an outputSchema root must be {{\"type\": \"object\"}}, as structuredContent is a JSON object"
    )]
    RootNotObject,
    /// The compact serialization exceeds [`super::SchemaLimits::max_bytes`].
    #[error("the outputSchema is larger than {limit} bytes serialized")]
    TooLarge {
        /// The limit, bytes.
        limit: usize,
    },
    /// Subschemas are nested deeper than [`super::SchemaLimits::max_depth`].
    #[error("the outputSchema nests subschemas deeper than {limit} levels at {path}")]
    TooDeep {
        /// The first subschema past the limit.
        path: String,
        /// The limit, levels (the root schema is level 1).
        limit: usize,
    },
    /// More subschemas than [`super::SchemaLimits::max_nodes`].
    #[error("the outputSchema has more than {limit} subschemas")]
    TooManyNodes {
        /// The limit, subschemas (the root counts).
        limit: usize,
    },
    /// More `allOf`/`anyOf`/`oneOf`/`not`/`if` keywords than
    /// [`super::SchemaLimits::max_compositions`].
    #[error(
        "the outputSchema uses more than {limit} composition keywords (allOf, anyOf, oneOf, not, if)"
    )]
    TooManyCompositions {
        /// The limit, keywords.
        limit: usize,
    },
    /// More `$ref`/`$dynamicRef`/`$recursiveRef` keywords than
    /// [`super::SchemaLimits::max_refs`].
    #[error("the outputSchema uses more than {limit} references ($ref, $dynamicRef)")]
    TooManyRefs {
        /// The limit, references.
        limit: usize,
    },
    /// A reference that does not start with `#` (same document): mcp-bastion never fetches
    /// schemas over the network or from files.
    #[error(
        "the outputSchema references `{reference}` at {path}; only references within the schema (starting with `#`) are allowed, nothing is fetched"
    )]
    NonLocalRef {
        /// Where the reference is.
        path: String,
        /// The reference, escaped and clipped.
        reference: String,
    },
    /// `$schema` names a dialect other than JSON Schema draft 4, 6, 7, 2019-09 or 2020-12.
    #[error(
        "the outputSchema declares the dialect `{uri}` at {path}; supported are JSON Schema 2020-12 (the MCP default), 2019-09, draft-07, draft-06 and draft-04"
    )]
    UnsupportedDialect {
        /// Where `$schema` is.
        path: String,
        /// The declared URI, escaped and clipped.
        uri: String,
    },
    /// A `pattern` or `patternProperties` regex longer than
    /// [`super::SchemaLimits::max_pattern_bytes`].
    #[error("the regular expression at {path} is {bytes} bytes long; at most {limit} are allowed")]
    PatternTooLong {
        /// Where the pattern is.
        path: String,
        /// Its length, bytes.
        bytes: usize,
        /// The limit, bytes.
        limit: usize,
    },
    /// More distinct regexes than [`super::SchemaLimits::max_patterns`].
    #[error("the outputSchema uses more than {limit} distinct regular expressions")]
    TooManyPatterns {
        /// The limit, distinct patterns.
        limit: usize,
    },
    /// A regex that the linear-time engine cannot run: look-around, backreferences, or a
    /// compiled form over the size limit (e.g. huge counted repetitions).
    #[error(
        "the regular expression `{pattern}` at {path} needs backtracking (look-around, backreferences) or is too large for the linear-time engine"
    )]
    UnsafePattern {
        /// Where the pattern is.
        path: String,
        /// The pattern, escaped and clipped.
        pattern: String,
    },
    /// The schema does not compile for another reason: it violates its dialect's
    /// meta-schema, or a local reference points nowhere.
    #[error("the outputSchema is not a valid JSON Schema at {path}: {detail}")]
    Invalid {
        /// Where the problem is.
        path: String,
        /// The validator's explanation, escaped and clipped.
        detail: String,
    },
}

impl Refusal {
    /// The JSON Pointer into the schema the refusal is about (`""` for the whole schema).
    pub fn path(&self) -> &str {
        match self {
            Self::TooDeep { path, .. }
            | Self::NonLocalRef { path, .. }
            | Self::UnsupportedDialect { path, .. }
            | Self::PatternTooLong { path, .. }
            | Self::UnsafePattern { path, .. }
            | Self::Invalid { path, .. } => path,
            _ => "",
        }
    }

    /// The `output_schema_refused` finding (severity `warn`) for a schema found at `base`
    /// (e.g. `/outputSchema`); its path is `base` followed by [`Refusal::path`].
    pub fn finding(&self, base: &str) -> Finding {
        Finding::new(
            Code::OutputSchemaRefused,
            Severity::Warn,
            format!("{base}{}", self.path()),
            format!("{self}; results of this tool are not validated against it"),
        )
    }
}

/// `s` with hidden characters escaped (`<U+XXXX>`), clipped to `max` characters with `…`.
pub(super) fn shown(s: &str, max: usize) -> String {
    let escaped = crate::unicode::escape_for_display(s);
    if escaped.chars().count() <= max {
        return escaped.into_owned();
    }
    let mut out: String = escaped.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_finding() {
        let r = Refusal::NonLocalRef {
            path: "/properties/a/$ref".into(),
            reference: "https://evil.example/s.json".into(),
        };
        let f = r.finding("/outputSchema");
        assert_eq!(f.code, Code::OutputSchemaRefused);
        assert_eq!(f.severity, Severity::Warn);
        assert_eq!(f.path, "/outputSchema/properties/a/$ref");
        assert!(
            f.message.starts_with(
                "the outputSchema references `https://evil.example/s.json` at /properties/a/$ref; only references within the schema"
            ),
            "{}",
            f.message
        );
        assert_eq!(
            Refusal::TooLarge { limit: 10 }.to_string(),
            "the outputSchema is larger than 10 bytes serialized"
        );
        assert_eq!(Refusal::RootNotObject.path(), "");
    }

    #[test]
    fn shown_escapes_and_clips() {
        assert_eq!(shown("a\u{202e}b", 80), "a<U+202E>b");
        assert_eq!(shown(&"x".repeat(100), 80), format!("{}…", "x".repeat(80)));
    }
}
