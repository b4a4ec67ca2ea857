//! One `packages[]` entry of a registry `server.json` (MCP Registry `server.schema.json`,
//! definition `Package`): registry type, identifier, exact version, file hash, OCI
//! reference, and the command-line parts (`runtimeHint`, `runtimeArguments`,
//! `packageArguments`).

use super::high;
use super::shell::{ShellField, first_metachar};
use super::versions::{VersionClass, VersionGrammar, classify};
use crate::finding::{Code, Finding, pointer_push};
use crate::url_gate::{UrlPolicy, assess};
use serde_json::Value;

/// The registry types the MCP Registry accepts (`Package.registryType`).
pub const REGISTRY_TYPES: &[&str] = &["npm", "pypi", "nuget", "oci", "mcpb"];

/// Transport types of a package (`StdioTransport`, `StreamableHttpTransport`,
/// `SseTransport`).
const TRANSPORT_TYPES: &[&str] = &["stdio", "streamable-http", "sse"];

/// Checks the package at `path` (`/packages/N`) and appends findings.
pub(crate) fn check_package(pkg: &Value, path: &str, findings: &mut Vec<Finding>) {
    let Some(obj) = pkg.as_object() else {
        findings.push(high(
            Code::ServerJsonMalformed,
            path,
            "a package must be a JSON object".into(),
        ));
        return;
    };
    let registry = match obj.get("registryType") {
        Some(Value::String(t)) if REGISTRY_TYPES.contains(&t.as_str()) => Some(t.as_str()),
        Some(Value::String(t)) => {
            findings.push(high(
                Code::PackageRegistryTypeNotAllowed,
                &pointer_push(path, "registryType"),
                format!(
                    "registryType `{}` is not one of {}; publish through a supported registry",
                    t.escape_debug(),
                    REGISTRY_TYPES.join(", ")
                ),
            ));
            None
        }
        _ => {
            findings.push(high(
                Code::ServerJsonMalformed,
                &pointer_push(path, "registryType"),
                "a package needs a string registryType (npm, pypi, nuget, oci or mcpb)".into(),
            ));
            None
        }
    };
    let identifier = check_identifier(obj.get("identifier"), path, registry, findings);
    check_transport(obj.get("transport"), path, findings);
    if let Some(base) = obj.get("registryBaseUrl") {
        check_url(base, &pointer_push(path, "registryBaseUrl"), findings);
    }
    check_sha256(
        obj.get("fileSha256"),
        path,
        registry == Some("mcpb"),
        findings,
    );
    let version = obj.get("version");
    match registry {
        Some("npm") => check_version(version, path, VersionGrammar::SemVer, true, findings),
        Some("pypi") => check_version(version, path, VersionGrammar::Pep440, true, findings),
        Some("nuget") => check_version(version, path, VersionGrammar::NuGet, true, findings),
        Some("mcpb") => check_version(version, path, VersionGrammar::SemVer, false, findings),
        Some("oci") => {
            if let Some(id) = identifier {
                check_oci(id, version, path, findings);
            }
        }
        _ => {}
    }
    if let Some(hint) = obj.get("runtimeHint") {
        let at = pointer_push(path, "runtimeHint");
        match hint.as_str() {
            Some(text) => shell(text, ShellField::Program, &at, "runtimeHint", findings),
            None => findings.push(high(
                Code::ServerJsonMalformed,
                &at,
                "runtimeHint must be a string".into(),
            )),
        }
    }
    for member in ["runtimeArguments", "packageArguments"] {
        if let Some(args) = obj.get(member) {
            check_arguments(args, &pointer_push(path, member), member, findings);
        }
    }
}

fn check_identifier<'a>(
    id: Option<&'a Value>,
    path: &str,
    registry: Option<&str>,
    findings: &mut Vec<Finding>,
) -> Option<&'a str> {
    let at = pointer_push(path, "identifier");
    let Some(text) = id.and_then(Value::as_str) else {
        findings.push(high(
            Code::ServerJsonMalformed,
            &at,
            "a package needs a string identifier (package name, image reference or URL)".into(),
        ));
        return None;
    };
    if text.is_empty() || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        findings.push(high(
            Code::PackageIdentifierInvalid,
            &at,
            format!(
                "identifier `{}` is empty or holds whitespace or control characters",
                text.escape_debug()
            ),
        ));
        return None;
    }
    if registry == Some("mcpb") {
        // An MCPB package is a direct download: the identifier is its URL.
        check_url(&Value::String(text.to_owned()), &at, findings);
    }
    Some(text)
}

fn check_transport(transport: Option<&Value>, path: &str, findings: &mut Vec<Finding>) {
    let at = pointer_push(path, "transport");
    let kind = transport
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str);
    match kind {
        Some(k) if TRANSPORT_TYPES.contains(&k) => {
            if k != "stdio"
                && transport
                    .and_then(|t| t.get("url"))
                    .and_then(Value::as_str)
                    .is_none()
            {
                findings.push(high(
                    Code::ServerJsonMalformed,
                    &pointer_push(&at, "url"),
                    format!("a {k} transport needs a string url"),
                ));
            }
        }
        _ => findings.push(high(
            Code::ServerJsonMalformed,
            &at,
            "a package needs a transport object whose type is stdio, streamable-http or sse".into(),
        )),
    }
}

/// Runs a URL through the URL gate as a URL software fetches ([`UrlPolicy::default`]);
/// template variables (`{tenant}`) are replaced by a letter first.
pub(crate) fn check_url(url: &Value, path: &str, findings: &mut Vec<Finding>) {
    let Some(text) = url.as_str() else {
        findings.push(high(
            Code::ServerJsonMalformed,
            path,
            "a URL member must be a string".into(),
        ));
        return;
    };
    let filled = super::shell::fill_template_variables(text);
    findings.extend(assess(&filled, &UrlPolicy::default(), path).findings);
}

fn check_sha256(value: Option<&Value>, path: &str, required: bool, findings: &mut Vec<Finding>) {
    let at = pointer_push(path, "fileSha256");
    match value {
        None if required => findings.push(high(
            Code::PackageSha256Missing,
            &at,
            "an mcpb package needs fileSha256 (SHA-256 of the bundle, 64 lowercase hex digits) so clients can verify the download".into(),
        )),
        None => {}
        Some(Value::String(s)) if super::ui_content::is_sha256(s) => {}
        Some(_) => findings.push(high(
            Code::PackageSha256Missing,
            &at,
            "fileSha256 must be 64 lowercase hex digits (SHA-256 of the package file)".into(),
        )),
    }
}

fn check_version(
    version: Option<&Value>,
    path: &str,
    grammar: VersionGrammar,
    required: bool,
    findings: &mut Vec<Finding>,
) {
    let at = pointer_push(path, "version");
    match version {
        None if required => findings.push(high(
            Code::VersionNotExact,
            &at,
            "the package has no version; pin one exact version".into(),
        )),
        None => {}
        Some(Value::String(v)) => {
            if let Some(why) = not_exact(v, grammar) {
                findings.push(high(Code::VersionNotExact, &at, why));
            }
        }
        Some(_) => findings.push(high(
            Code::ServerJsonMalformed,
            &at,
            "version must be a string".into(),
        )),
    }
}

/// Why `v` is not one exact version under `grammar`, or `None` when it is.
pub(crate) fn not_exact(v: &str, grammar: VersionGrammar) -> Option<String> {
    let v_shown = v.escape_debug();
    match classify(v, grammar) {
        VersionClass::Exact => None,
        VersionClass::DistTag => Some(format!(
            "version `{v_shown}` is a movable tag; pin one exact version"
        )),
        VersionClass::Range => Some(format!(
            "version `{v_shown}` is a range or wildcard; pin one exact version"
        )),
        VersionClass::Invalid => Some(format!(
            "version `{v_shown}` is not a version of this registry ({grammar:?}); pin one exact version"
        )),
    }
}

/// OCI: the identifier (`registry/repo[:tag][@digest]`, OCI distribution spec grammar via
/// [`oci_spec::distribution::Reference`]) must carry a digest or an exact tag; a bare
/// repository takes its tag from `version`.
fn check_oci(id: &str, version: Option<&Value>, path: &str, findings: &mut Vec<Finding>) {
    let at = pointer_push(path, "identifier");
    let reference = match oci_spec::distribution::Reference::try_from(id) {
        Ok(r) => r,
        Err(e) => {
            findings.push(high(
                Code::OciReferenceNotPinned,
                &at,
                format!(
                    "`{}` is not an OCI image reference ({e})",
                    id.escape_debug()
                ),
            ));
            return;
        }
    };
    if reference.digest().is_some() {
        return;
    }
    // The parser fills in `latest` when no tag is written: tell the two apart by the text.
    let tag = reference
        .tag()
        .filter(|t| id.ends_with(&format!(":{t}")))
        .map(str::to_owned);
    let (tag, at) = match (tag, version.and_then(Value::as_str)) {
        (Some(t), _) => (t, at),
        (None, Some(v)) => (v.to_owned(), pointer_push(path, "version")),
        (None, None) => {
            findings.push(high(
                Code::OciReferenceNotPinned,
                &at,
                format!(
                    "image `{}` names no tag or digest and resolves to `latest`; add `@sha256:<digest>` or an exact tag",
                    id.escape_debug()
                ),
            ));
            return;
        }
    };
    if matches!(
        classify(&tag, VersionGrammar::Free),
        VersionClass::DistTag | VersionClass::Range | VersionClass::Invalid
    ) {
        findings.push(high(
            Code::OciReferenceNotPinned,
            &at,
            format!(
                "image tag `{}` is movable; pin `@sha256:<digest>` or an exact version tag",
                tag.escape_debug()
            ),
        ));
    } else if !full_version_tag(&tag) {
        // `:1`, `:1.4`, `:20-alpine`: registries conventionally move such tags to each
        // new release of that line. Only a digest is immutable; a full version tag is the
        // least a reviewer should accept without one.
        findings.push(crate::Finding::new(
            Code::OciReferenceNotPinned,
            crate::finding::Severity::Warn,
            &at,
            format!(
                "image tag `{}` names a release line, not one release (such tags are moved to each new release); pin `@sha256:<digest>` or a full version tag such as `1.4.0`",
                tag.escape_debug()
            ),
        ));
    }
}

/// `true` for a full `MAJOR.MINOR.PATCH` version tag (optionally `v`-prefixed, with a
/// semantic-version pre-release or build suffix).
fn full_version_tag(tag: &str) -> bool {
    semver::Version::parse(tag.strip_prefix('v').unwrap_or(tag)).is_ok()
}

fn shell(text: &str, field: ShellField, at: &str, what: &str, findings: &mut Vec<Finding>) {
    if let Some(c) = first_metachar(text, field) {
        findings.push(high(
            Code::ShellMetacharacter,
            at,
            format!(
                "{what} `{}` holds the shell metacharacter {:?}; give plain words the client passes without a shell",
                text.escape_debug(),
                c
            ),
        ));
    }
}

/// The string members of an argument that reach the command line.
const ARG_MEMBERS: &[&str] = &["name", "value", "default", "valueHint"];

fn check_arguments(args: &Value, path: &str, member: &str, findings: &mut Vec<Finding>) {
    let Some(list) = args.as_array() else {
        findings.push(high(
            Code::ServerJsonMalformed,
            path,
            format!("{member} must be an array of arguments"),
        ));
        return;
    };
    for (i, arg) in list.iter().enumerate() {
        let at = pointer_push(path, &i.to_string());
        check_input(arg, &at, member, findings);
        if let Some(vars) = arg.get("variables").and_then(Value::as_object) {
            for (name, var) in vars {
                let var_at = pointer_push(&pointer_push(&at, "variables"), name);
                check_input(var, &var_at, member, findings);
            }
        }
    }
}

fn check_input(input: &Value, at: &str, member: &str, findings: &mut Vec<Finding>) {
    for field in ARG_MEMBERS {
        if let Some(text) = input.get(field).and_then(Value::as_str) {
            let what = format!("{member} {field}");
            shell(
                text,
                ShellField::Argument,
                &pointer_push(at, field),
                &what,
                findings,
            );
        }
    }
    if let Some(choices) = input.get("choices").and_then(Value::as_array) {
        let base = pointer_push(at, "choices");
        for (j, choice) in choices.iter().enumerate() {
            if let Some(text) = choice.as_str() {
                let what = format!("{member} choice");
                shell(
                    text,
                    ShellField::Argument,
                    &pointer_push(&base, &j.to_string()),
                    &what,
                    findings,
                );
            }
        }
    }
}
