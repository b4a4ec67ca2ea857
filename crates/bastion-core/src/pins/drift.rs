//! Launch-config drift (issue 3 §4): what changed between the approved and the current
//! way of starting a server, as [`Code::DescriptorChanged`] findings.
//!
//! Severity: `high` (withhold until re-approved) for another command or URL, an argument
//! added, removed, changed or reordered, a package spec that is no longer pinned to an
//! exact version (`pkg@latest`, `pkg`, `pkg@^1`, `pkg>=1`), and any change to a
//! loader/preload variable ([`LOADER_VARIABLES`]); `warn` (flag) for a pinned package
//! version moving to another pinned version (`pkg@1.0.15` → `pkg@1.0.16`, `pkg==0.6.2` →
//! `pkg==0.6.3`), other env variables added, removed or changed, and a new server name.
//! Env values never appear in messages.

use super::identity::{LaunchConfig, LaunchFingerprint};
use crate::finding::{Code, Finding, Severity, pointer_push};
use crate::pins::diff::show_text;

/// Environment variables that make an interpreter or the dynamic loader run extra code
/// (preload libraries, `--require` hooks, startup files, module search paths) or pick
/// another program (`PATH`). Compared ASCII case-insensitively (Windows env names are).
pub const LOADER_VARIABLES: &[&str] = &[
    "NODE_OPTIONS",
    "NODE_PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "BASH_ENV",
    "ENV",
    "PATH",
];

/// Whether `name` is one of [`LOADER_VARIABLES`].
pub fn is_loader_variable(name: &str) -> bool {
    LOADER_VARIABLES
        .iter()
        .any(|v| v.eq_ignore_ascii_case(name))
}

/// Findings for every difference between the `approved` and the `current` launch config
/// of one server; empty when they launch the same thing. Paths are JSON Pointers into
/// `current` (`/command`, `/args/1`, `/env/NODE_OPTIONS`, `/url`, `/name`), or into
/// `approved` for removed arguments. Env values are compared by digest and never shown.
pub fn drift(approved: &LaunchConfig, current: &LaunchConfig) -> Vec<Finding> {
    let mut out = Vec::new();
    if approved.name != current.name {
        out.push(finding(
            Severity::Warn,
            "/name",
            format!(
                "server name changed: `{}` → `{}`",
                show_text(&approved.name),
                show_text(&current.name)
            ),
        ));
    }
    out.extend(drift_fingerprints(
        &approved.fingerprint(),
        &current.fingerprint(),
    ));
    out
}

/// [`drift`] on stored fingerprints (env values as digests), as the store keeps them.
pub fn drift_fingerprints(
    approved: &LaunchFingerprint,
    current: &LaunchFingerprint,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if approved.command != current.command {
        out.push(finding(
            Severity::High,
            "/command",
            format!(
                "command changed: {} → {}",
                opt(approved.command.as_deref()),
                opt(current.command.as_deref())
            ),
        ));
    }
    if approved.url != current.url {
        out.push(finding(
            Severity::High,
            "/url",
            format!(
                "URL changed: {} → {}",
                opt(approved.url.as_deref()),
                opt(current.url.as_deref())
            ),
        ));
    }
    args(&approved.args, &current.args, &mut out);
    env(approved, current, &mut out);
    out
}

fn finding(severity: Severity, path: &str, message: String) -> Finding {
    Finding::new(Code::DescriptorChanged, severity, path, message)
}

fn opt(v: Option<&str>) -> String {
    v.map_or_else(|| "(none)".to_owned(), |s| format!("`{}`", shown_arg(s)))
}

/// An argument for messages: escaped, shortened, and with the value of a
/// `--token=...`-style option redacted.
fn shown_arg(arg: &str) -> String {
    if let Some((opt, _)) = arg.split_once('=') {
        let lower = opt.to_ascii_lowercase();
        if [
            "token",
            "secret",
            "password",
            "passwd",
            "key",
            "auth",
            "credential",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            return format!("{}=<redacted>", show_text(opt));
        }
    }
    show_text(arg)
}

fn args(old: &[String], new: &[String], out: &mut Vec<Finding>) {
    if old == new {
        return;
    }
    let mut sorted_old = old.to_vec();
    let mut sorted_new = new.to_vec();
    sorted_old.sort();
    sorted_new.sort();
    if sorted_old == sorted_new {
        out.push(finding(
            Severity::High,
            "/args",
            format!("arguments reordered: [{}] → [{}]", list(old), list(new)),
        ));
        return;
    }
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (mid_old, mid_new) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let paired = mid_old.len().min(mid_new.len());
    for i in 0..paired {
        let path = pointer_push("/args", &(prefix + i).to_string());
        out.push(changed_arg(&mid_old[i], &mid_new[i], &path));
    }
    for (i, a) in mid_old.iter().enumerate().skip(paired) {
        out.push(finding(
            Severity::High,
            &pointer_push("/args", &(prefix + i).to_string()),
            format!("argument {} removed: `{}`", prefix + i, shown_arg(a)),
        ));
    }
    for (i, a) in mid_new.iter().enumerate().skip(paired) {
        out.push(finding(
            Severity::High,
            &pointer_push("/args", &(prefix + i).to_string()),
            format!("argument {} added: `{}`", prefix + i, shown_arg(a)),
        ));
    }
}

fn list(args: &[String]) -> String {
    args.iter()
        .map(|a| format!("`{}`", shown_arg(a)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn changed_arg(old: &str, new: &str, path: &str) -> Finding {
    if let (Some(a), Some(b)) = (PackageSpec::parse(old), PackageSpec::parse(new))
        && a.name == b.name
    {
        let name = show_text(a.name);
        return match (a.exact_version(), b.exact_version()) {
            (Some(v1), Some(v2)) => finding(
                Severity::Warn,
                path,
                format!(
                    "package `{name}` version changed: {} → {} (`{}` → `{}`)",
                    show_text(v1),
                    show_text(v2),
                    show_text(old),
                    show_text(new)
                ),
            ),
            (_, None) => finding(
                Severity::High,
                path,
                format!(
                    "package `{name}` is not pinned to an exact version: `{}` → `{}` (every launch may run a different release)",
                    show_text(old),
                    show_text(new)
                ),
            ),
            (None, Some(v2)) => finding(
                Severity::Warn,
                path,
                format!(
                    "package `{name}` now pinned to {}: `{}` → `{}`",
                    show_text(v2),
                    show_text(old),
                    show_text(new)
                ),
            ),
        };
    }
    finding(
        Severity::High,
        path,
        format!(
            "argument changed: `{}` → `{}`",
            shown_arg(old),
            shown_arg(new)
        ),
    )
}

/// A package spec as `npx`/`bunx`/`pnpm dlx` (`name@version`, `@scope/name@version`) or
/// `uvx`/`pip` (`name==version`, `name>=version`, `name[extra]==version`) take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PackageSpec<'a> {
    /// Package name, without version.
    pub(crate) name: &'a str,
    /// The version part after `@` or the comparison operator, with the operator for pip
    /// specs (`==0.6.2`, `>=1`, `1.0.15`, `latest`); `None` without a version.
    pub(crate) version: Option<&'a str>,
}

impl<'a> PackageSpec<'a> {
    /// Parses `arg`, `None` for options (`-y`), paths, URLs and other arguments.
    pub(crate) fn parse(arg: &'a str) -> Option<Self> {
        if arg.starts_with(['-', '.', '/']) || arg.contains("://") {
            return None;
        }
        // pip style: name[extras] then an operator (==, >=, <=, ~=, !=, <, >) and a version.
        if let Some(pos) = arg.find(['=', '<', '>', '~', '!']) {
            let (name, version) = arg.split_at(pos);
            let operator = ["===", "==", ">=", "<=", "~=", "!=", "<", ">"]
                .iter()
                .any(|op| version.starts_with(op));
            let bare = name.split_once('[').map_or(name, |(n, _)| n);
            return (operator && is_package_name(bare)).then_some(Self {
                name: bare,
                version: Some(version),
            });
        }
        // npm style: [@scope/]name[@version]
        let (scope, rest) = match arg.strip_prefix('@') {
            Some(rest) => {
                let (scope, rest) = rest.split_once('/')?;
                (Some(scope), rest)
            }
            None => (None, arg),
        };
        let (bare, version) = match rest.split_once('@') {
            Some((n, v)) => (n, Some(v)),
            None => (rest, None),
        };
        let valid = is_package_name(bare) && scope.is_none_or(is_package_name);
        let name_len = arg.len() - rest.len() + bare.len();
        valid.then_some(Self {
            name: &arg[..name_len],
            version,
        })
    }

    /// The version when it names exactly one release: `1.0.15`, `v2.3.0`, `==0.6.2`
    /// (digits and dots, optional `v` and pre-release/build suffix); `None` for `latest`,
    /// tags, ranges (`^1`, `~1.2`, `>=1`, `1.x`) and a missing version.
    pub(crate) fn exact_version(&self) -> Option<&'a str> {
        let v = self.version?;
        let v = v
            .strip_prefix("==")
            .or_else(|| (!v.starts_with(['<', '>', '=', '~', '!'])).then_some(v))?;
        let core = v.strip_prefix('v').unwrap_or(v);
        let core = core.split(['-', '+']).next().unwrap_or(core);
        let exact = !core.is_empty()
            && core
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        exact.then_some(v)
    }
}

fn is_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
}

fn env(old: &LaunchFingerprint, new: &LaunchFingerprint, out: &mut Vec<Finding>) {
    let names = old
        .env
        .keys()
        .chain(new.env.keys())
        .collect::<std::collections::BTreeSet<_>>();
    for name in names {
        let path = pointer_push("/env", name);
        let shown = show_text(name);
        let loader = is_loader_variable(name);
        let why = if loader {
            " (loader/preload variable: it can make the server run other code)"
        } else {
            ""
        };
        let (severity, what) = match (old.env.get(name), new.env.get(name)) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(_), Some(_)) => (loader, "value changed (value not shown)"),
            (None, Some(_)) => (loader, "added"),
            (Some(_), None) => (false, "removed"),
            (None, None) => continue,
        };
        let (severity, why) = if severity {
            (Severity::High, why)
        } else {
            (Severity::Warn, "")
        };
        out.push(finding(
            severity,
            &path,
            format!("env `{shown}` {what}{why}"),
        ));
    }
}
