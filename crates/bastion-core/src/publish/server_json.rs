//! `mcp-bastion check server-json`: the publisher's review of a registry `server.json`
//! before it is published (issue 7 item 7; seed AID-H-034.004-G005).
//!
//! Shape: MCP Registry `server.schema.json` (definition `ServerDetail`): `name`,
//! `description`, `version` (required), `packages[]` (`registryType`, `identifier`,
//! `version`, `fileSha256`, `runtimeHint`, `runtimeArguments`, `packageArguments`,
//! `transport`, `registryBaseUrl`), `remotes[]` (`type`, `url`).
//!
//! | rule | code | severity |
//! |---|---|---|
//! | required member missing or of the wrong type | `server_json_malformed` | high |
//! | `name` not `reverse.dns.namespace/name` (schema pattern `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3..=200, at least two namespace labels, no empty or hyphen-edged label) | `server_name_invalid` | high |
//! | `name` in mixed case (look-alike of the lowercase name) | `server_name_invalid` | warn |
//! | `registryType` not npm, pypi, nuget, oci, mcpb | `package_registry_type_not_allowed` | high |
//! | `identifier` empty, blanks or controls | `package_identifier_invalid` | high |
//! | version `latest`/dist-tag, range, wildcard, missing (npm, pypi, nuget) or not of the registry's grammar ([`super::versions`]); also the server's own `version` | `version_not_exact` | high |
//! | mcpb without `fileSha256`, or any `fileSha256` not 64 lowercase hex | `package_sha256_missing` | high |
//! | oci without digest or exact tag | `oci_reference_not_pinned` | high |
//! | shell metacharacter in `runtimeHint` or argument ([`super::shell`]) | `shell_metacharacter` | high |
//! | `remotes[].url`, `registryBaseUrl`, mcpb URL: the URL gate as a fetched URL (https only, no userinfo, no credentials, public host) | `url_*`, `private_address` | as the gate |
//!
//! This is a publisher gate, not the registry's schema validator: it does not prove
//! namespace ownership, fetch packages or check that a hash matches the file.

use super::package::{check_package, check_url, not_exact};
use super::versions::VersionGrammar;
use crate::finding::{Code, Finding, Report, Severity, pointer_push};
use serde_json::Value;

/// Longest server name (`ServerDetail.name.maxLength`).
pub const MAX_NAME_LEN: usize = 200;
/// Shortest server name (`ServerDetail.name.minLength`).
pub const MIN_NAME_LEN: usize = 3;

/// Why a `server.json` could not be reviewed at all (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerJsonError {
    /// The document is not a JSON object.
    #[error("a server.json must be a JSON object with name, description and version")]
    NotAnObject,
}

/// Top-level members of a registry `server.json` (server.schema.json 2025-12-11, and the
/// `status` of earlier versions).
const KNOWN_MEMBERS: &[&str] = &[
    "$schema",
    "name",
    "title",
    "description",
    "version",
    "websiteUrl",
    "repository",
    "icons",
    "packages",
    "remotes",
    "status",
    "_meta",
];

/// Reviews one `server.json` document. The report has no output value.
///
/// # Errors
/// [`ServerJsonError::NotAnObject`] when `doc` is not an object; everything else is a
/// finding.
pub fn check_server_json(doc: &Value) -> Result<Report, ServerJsonError> {
    let obj = doc.as_object().ok_or(ServerJsonError::NotAnObject)?;
    let mut findings = Vec::new();
    // A misspelt member (`packges`) would otherwise hide the packages from every check.
    for key in obj.keys().filter(|k| !KNOWN_MEMBERS.contains(&k.as_str())) {
        findings.push(Finding::new(
            Code::ServerJsonMalformed,
            Severity::Warn,
            crate::finding::pointer_push("", key),
            format!(
                "`{}` is not a server.json member (registry server.schema.json); a misspelt member is not checked",
                key.escape_debug()
            ),
        ));
    }
    match obj.get("name") {
        Some(Value::String(name)) => check_name(name, &mut findings),
        _ => findings.push(malformed("/name", "a server.json needs a string name")),
    }
    if !matches!(obj.get("description"), Some(Value::String(d)) if !d.is_empty()) {
        findings.push(malformed(
            "/description",
            "a server.json needs a non-empty string description",
        ));
    }
    match obj.get("version") {
        Some(Value::String(v)) => {
            if let Some(why) = not_exact(v, VersionGrammar::Free) {
                findings.push(Finding::new(
                    Code::VersionNotExact,
                    Severity::High,
                    "/version",
                    format!("server {why}"),
                ));
            }
        }
        _ => findings.push(malformed(
            "/version",
            "a server.json needs a string version",
        )),
    }
    match obj.get("packages") {
        None => {}
        Some(Value::Array(pkgs)) => {
            for (i, pkg) in pkgs.iter().enumerate() {
                check_package(pkg, &format!("/packages/{i}"), &mut findings);
            }
        }
        Some(_) => findings.push(malformed("/packages", "packages must be an array")),
    }
    match obj.get("remotes") {
        None => {}
        Some(Value::Array(remotes)) => {
            for (i, remote) in remotes.iter().enumerate() {
                check_remote(remote, &format!("/remotes/{i}"), &mut findings);
            }
        }
        Some(_) => findings.push(malformed("/remotes", "remotes must be an array")),
    }
    Ok(Report::from_findings(findings, false, None))
}

fn malformed(path: &str, message: &str) -> Finding {
    Finding::new(Code::ServerJsonMalformed, Severity::High, path, message)
}

fn check_remote(remote: &Value, path: &str, findings: &mut Vec<Finding>) {
    match remote.get("type").and_then(Value::as_str) {
        Some("streamable-http" | "sse") => {}
        _ => findings.push(malformed(
            &pointer_push(path, "type"),
            "a remote needs type streamable-http or sse",
        )),
    }
    match remote.get("url") {
        Some(url) => check_url(url, &pointer_push(path, "url"), findings),
        None => findings.push(malformed(
            &pointer_push(path, "url"),
            "a remote needs a string url",
        )),
    }
}

/// `namespace/name`, the namespace in reverse-DNS form (`io.github.user`, `com.example`).
fn check_name(name: &str, findings: &mut Vec<Finding>) {
    let shown = name.escape_debug();
    let problem = name_problem(name);
    if let Some(why) = problem {
        findings.push(Finding::new(
            Code::ServerNameInvalid,
            Severity::High,
            "/name",
            format!("server name `{shown}` {why}; use `reverse.dns.namespace/server-name` such as `io.github.user/weather`"),
        ));
    } else if name.chars().any(|c| c.is_ascii_uppercase()) {
        findings.push(Finding::new(
            Code::ServerNameInvalid,
            Severity::Warn,
            "/name",
            format!("server name `{shown}` mixes upper and lower case, so it can pass for another publisher's lowercase name; publish it in lowercase"),
        ));
    }
}

fn name_problem(name: &str) -> Option<&'static str> {
    if !(MIN_NAME_LEN..=MAX_NAME_LEN).contains(&name.len()) {
        return Some("must be 3 to 200 characters long");
    }
    let Some((namespace, server)) = name.split_once('/') else {
        return Some("has no `/` between namespace and server name");
    };
    if server.contains('/') {
        return Some("has more than one `/`");
    }
    if server.is_empty()
        || !server
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Some("has a server part that is empty or not letters, digits, `.`, `_`, `-`");
    }
    let labels: Vec<&str> = namespace.split('.').collect();
    if labels.len() < 2 {
        return Some("has a namespace that is not in reverse-DNS form (no dot)");
    }
    let label_ok = |l: &&str| {
        !l.is_empty()
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    if !labels.iter().all(label_ok) {
        return Some(
            "has a namespace label that is empty, edged with `-` or not letters, digits and `-`",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::name_problem;

    #[test]
    fn names() {
        for ok in [
            "io.github.user/weather",
            "com.example/mcp.server_v2",
            "io.github.my-org/x",
        ] {
            assert_eq!(name_problem(ok), None, "{ok}");
        }
        for bad in [
            "weather",
            "weather/server",
            "io.github.user/a/b",
            "io..github/x",
            "io.github.-user/x",
            "io.github.user/",
            "io.github.user/wea ther",
            "io.github.us\u{0435}r/x",
            "a/",
        ] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
    }
}
