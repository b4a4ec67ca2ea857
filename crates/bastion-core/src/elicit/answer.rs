//! Validation of the host's answer to an allowed form (MCP 2025-11-25 "Elicitation
//! §Response": `action` is `accept`, `decline` or `cancel`; with `accept`, `content`
//! maps field names to a string, number, boolean or array of strings that must match the
//! requested schema). An invalid answer is not forwarded (issue 6 §2).
//!
//! Formats: `email` must be one `local@domain` with a domain the WHATWG host parser
//! accepts as a name with a dot; `uri` an absolute URL (`url` crate); `date` and
//! `date-time` RFC 3339, checked by `jsonschema` format validation.

use super::schema::{FieldKind, FormSchema, TextFormat};
use serde_json::{Value, json};
use std::sync::LazyLock;

/// Why the host's answer does not match the form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// The result is not an object with `action` accept/decline/cancel.
    #[error("the answer needs `action` \"accept\", \"decline\" or \"cancel\"")]
    BadAction,
    /// `accept` without an object `content`, or `content` with decline/cancel.
    #[error("`content` must be an object with \"accept\" and absent otherwise")]
    BadContent,
    /// A key the form did not ask for.
    #[error("field `{0}` was not requested by the form")]
    UnknownField(String),
    /// A required field is missing.
    #[error("required field `{0}` is missing")]
    MissingRequired(String),
    /// Wrong JSON type.
    #[error("field `{field}` must be {expected}")]
    WrongType {
        /// Field name.
        field: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A value outside the enum.
    #[error("field `{0}` holds a value that is not one of its choices")]
    NotAChoice(String),
    /// A string that does not have its format.
    #[error("field `{field}` is not a valid {format}")]
    Format {
        /// Field name.
        field: String,
        /// `email`, `uri`, `date` or `date-time`.
        format: &'static str,
    },
    /// Length, range or item count outside the schema's bounds.
    #[error("field `{0}` is outside the bounds the form set (length, range or number of choices)")]
    OutOfBounds(String),
}

fn format_validator(format: &str) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({"type": "string", "format": format}))
        .expect("static schema")
}

static DATE: LazyLock<jsonschema::Validator> = LazyLock::new(|| format_validator("date"));
static DATE_TIME: LazyLock<jsonschema::Validator> = LazyLock::new(|| format_validator("date-time"));

fn format_ok(format: TextFormat, s: &str) -> bool {
    match format {
        TextFormat::Email => s.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && !s.chars().any(|c| c.is_whitespace() || c.is_control())
                && matches!(url::Host::parse(domain), Ok(url::Host::Domain(d)) if d.contains('.'))
        }),
        TextFormat::Uri => url::Url::parse(s).is_ok(),
        TextFormat::Date => DATE.is_valid(&json!(s)),
        TextFormat::DateTime => DATE_TIME.is_valid(&json!(s)),
    }
}

const fn format_name(f: TextFormat) -> &'static str {
    match f {
        TextFormat::Email => "email",
        TextFormat::Uri => "uri",
        TextFormat::Date => "date",
        TextFormat::DateTime => "date-time",
    }
}

/// Validates an `elicitation/create` result from the host against the form it answers.
///
/// # Errors
/// The first [`AnswerError`] found, in field order.
pub fn validate_answer(form: &FormSchema, result: &Value) -> Result<(), AnswerError> {
    let action = result.get("action").and_then(Value::as_str);
    match action {
        Some("accept") => {
            let content = result
                .get("content")
                .and_then(Value::as_object)
                .ok_or(AnswerError::BadContent)?;
            validate_content(form, content)
        }
        Some("decline" | "cancel") if result.get("content").is_none() => Ok(()),
        Some("decline" | "cancel") => Err(AnswerError::BadContent),
        _ => Err(AnswerError::BadAction),
    }
}

/// Validates the `content` of an accepted form: no unrequested keys, every required
/// field present, every value of its field's type, choices, format and bounds.
///
/// # Errors
/// The first [`AnswerError`] found.
pub fn validate_content(
    form: &FormSchema,
    content: &serde_json::Map<String, Value>,
) -> Result<(), AnswerError> {
    if let Some(k) = content
        .keys()
        .find(|k| !form.fields.iter().any(|f| &f.name == *k))
    {
        return Err(AnswerError::UnknownField(k.clone()));
    }
    if let Some(r) = form.required.iter().find(|r| !content.contains_key(*r)) {
        return Err(AnswerError::MissingRequired(r.clone()));
    }
    for field in &form.fields {
        let Some(v) = content.get(&field.name) else {
            continue;
        };
        let name = || field.name.clone();
        let wrong = |expected| AnswerError::WrongType {
            field: field.name.clone(),
            expected,
        };
        match &field.kind {
            FieldKind::Text {
                min_len,
                max_len,
                format,
            } => {
                let s = v.as_str().ok_or_else(|| wrong("a string"))?;
                let n = s.chars().count() as u64;
                if min_len.is_some_and(|m| n < m) || max_len.is_some_and(|m| n > m) {
                    return Err(AnswerError::OutOfBounds(name()));
                }
                if let Some(f) = format
                    && !format_ok(*f, s)
                {
                    return Err(AnswerError::Format {
                        field: name(),
                        format: format_name(*f),
                    });
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let x = v.as_f64().ok_or_else(|| wrong("a number"))?;
                if *integer && !(v.is_i64() || v.is_u64()) {
                    return Err(wrong("an integer"));
                }
                if minimum.is_some_and(|m| x < m) || maximum.is_some_and(|m| x > m) {
                    return Err(AnswerError::OutOfBounds(name()));
                }
            }
            FieldKind::Boolean => {
                v.as_bool().ok_or_else(|| wrong("a boolean"))?;
            }
            FieldKind::SingleChoice { values } => {
                let s = v.as_str().ok_or_else(|| wrong("a string"))?;
                if !values.iter().any(|c| c == s) {
                    return Err(AnswerError::NotAChoice(name()));
                }
            }
            FieldKind::MultiChoice {
                values,
                min_items,
                max_items,
            } => {
                let items = v.as_array().ok_or_else(|| wrong("an array of strings"))?;
                let n = items.len() as u64;
                if min_items.is_some_and(|m| n < m) || max_items.is_some_and(|m| n > m) {
                    return Err(AnswerError::OutOfBounds(name()));
                }
                for item in items {
                    let s = item.as_str().ok_or_else(|| wrong("an array of strings"))?;
                    if !values.iter().any(|c| c == s) {
                        return Err(AnswerError::NotAChoice(name()));
                    }
                }
            }
        }
    }
    Ok(())
}
