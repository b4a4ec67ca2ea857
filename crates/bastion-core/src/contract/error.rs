//! Why a contract artifact could not be read or produced. A manifest that parses but
//! breaks a rule is not an error here: invariant breaches are [`crate::Finding`]s, hash
//! mismatches are [`super::Mismatch`]es, signature and approval refusals are
//! [`super::Refusal`]s: values the CLI reports with exit code 1.

use crate::json::ParseError;
use crate::pins::CanonicalError;

/// A contract artifact (source, reviewed manifest, key, signature, receipt, approvers
/// file) is unreadable or malformed: exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// Not strict JSON (invalid UTF-8, syntax, duplicate member, too deep).
    #[error("{what} is not strict JSON: {source}")]
    Json {
        /// Which artifact ("source manifest", "signature envelope", ...).
        what: &'static str,
        /// What the strict parser reported.
        source: ParseError,
    },
    /// The `format` member is missing or names another artifact or version.
    #[error("{what} has {}; expected format \"{expected}\"", describe_format(.found.as_deref()))]
    Format {
        /// Which artifact.
        what: &'static str,
        /// The format this build reads.
        expected: &'static str,
        /// What the file says (`None`: no `format` string).
        found: Option<String>,
    },
    /// The JSON does not have the artifact's shape (missing or unknown member, wrong type).
    #[error("{what} is malformed: {detail}")]
    Shape {
        /// Which artifact.
        what: &'static str,
        /// The deserializer's message (names the member).
        detail: String,
    },
    /// A value has no RFC 8785 canonical form.
    #[error("cannot hash {what}: {source}")]
    Canonical {
        /// Which artifact.
        what: &'static str,
        /// Why.
        source: CanonicalError,
    },
    /// A field value is out of range (bad key length, bad commit id, bad base64, ...).
    #[error("{what}: {detail}")]
    Invalid {
        /// Which artifact and member.
        what: &'static str,
        /// What is wrong and what is expected.
        detail: String,
    },
}

fn describe_format(found: Option<&str>) -> String {
    found.map_or_else(
        || "no format member".to_owned(),
        |f| format!("format {f:?}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        let e = ContractError::Format {
            what: "signature envelope",
            expected: "mcp-bastion-signature/1",
            found: Some("x/1".into()),
        };
        assert_eq!(
            e.to_string(),
            "signature envelope has format \"x/1\"; expected format \"mcp-bastion-signature/1\""
        );
        let none = ContractError::Format {
            what: "key file",
            expected: "k/1",
            found: None,
        };
        assert_eq!(
            none.to_string(),
            "key file has no format member; expected format \"k/1\""
        );
    }
}
