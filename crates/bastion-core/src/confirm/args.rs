//! Argument rules of the confirmation policy (issue 5 §1): a path argument must stay
//! under a prefix, a URL argument's host must be in a list. A violated rule denies the
//! call (`argument_rule_violated`).
//!
//! Paths are checked lexically (the core does no I/O, DESIGN §2): `\` is read as a
//! separator too (the server may run on Windows), empty and `.` segments are dropped,
//! `..` removes the previous segment (at the root it stays at the root, as POSIX does),
//! and the result must start with every segment of one prefix (segment-wise, so
//! `/home/me/project-evil` is not under `/home/me/project`). Relative paths, `~`, drive
//! letters and percent-encoded dots or separators (`%2e`, `%2f`, `%5c`) are refused: where
//! they lead depends on the server. `file:` URLs are read as their decoded path.
//! Symlinks inside a prefix are not seen (no filesystem access): sandbox the server
//! for that.
//!
//! Hosts are parsed with the `url` crate (WHATWG URL Standard): IDNA to punycode,
//! lowercase, IPv4/IPv6 canonical forms, userinfo ignored (`https://ok.example@evil.example`
//! has host `evil.example`). An entry `example.com` matches exactly that host (a trailing
//! dot ignored); subdomains only through an explicit `*.example.com` entry (which does
//! not match `example.com` itself).

use crate::finding::pointer_push;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One `[[servers.NAME.tools."PATTERN".args]]` entry. Build it with [`ArgRule::new`] or
/// deserialize it and let [`super::Policy::new`] compile it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgRule {
    /// The argument: a top-level member name, or an RFC 6901 JSON Pointer (starting with
    /// `/`) into the arguments object.
    pub name: String,
    /// Absolute path prefixes; the argument (a string or an array of strings) must stay
    /// under one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub under: Vec<String>,
    /// Allowed URL hosts (`example.com`, `*.example.com` for subdomains, IP literals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_in: Vec<String>,
    #[serde(skip)]
    prefixes: Vec<Vec<String>>,
    #[serde(skip)]
    hosts: Vec<HostEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostEntry {
    Exact(String),
    Subdomains(String),
}

/// Why an argument rule is invalid (config error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgRuleError {
    /// `name` is empty.
    #[error("an argument rule needs a non-empty `name`")]
    EmptyName,
    /// Neither `under` nor `host_in`.
    #[error("argument rule `{0}` has no constraint; give `under` and/or `host_in`")]
    NoConstraint(String),
    /// An `under` prefix is not absolute.
    #[error(
        "argument rule `{name}`: `under` prefix `{prefix}` must be an absolute path (starting with /)"
    )]
    RelativePrefix {
        /// The rule's argument name.
        name: String,
        /// The prefix.
        prefix: String,
    },
    /// A `host_in` entry is not a host.
    #[error(
        "argument rule `{name}`: `host_in` entry `{entry}` is not a host name or IP address: {detail}"
    )]
    BadHost {
        /// The rule's argument name.
        name: String,
        /// The entry.
        entry: String,
        /// The parser's message.
        detail: String,
    },
}

/// One violated rule: where, and why (a sentence for the finding message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// JSON Pointer relative to the arguments object.
    pub(crate) pointer: String,
    /// Why.
    pub(crate) why: String,
}

impl ArgRule {
    /// A compiled rule.
    ///
    /// # Errors
    /// [`ArgRuleError`] as for config loading.
    pub fn new(name: &str, under: &[&str], host_in: &[&str]) -> Result<Self, ArgRuleError> {
        let mut rule = Self {
            name: name.to_owned(),
            under: under.iter().map(|s| (*s).to_owned()).collect(),
            host_in: host_in.iter().map(|s| (*s).to_owned()).collect(),
            ..Self::default()
        };
        rule.compile()?;
        Ok(rule)
    }

    /// Validates and normalizes `under` and `host_in` once.
    pub(crate) fn compile(&mut self) -> Result<(), ArgRuleError> {
        if self.name.is_empty() {
            return Err(ArgRuleError::EmptyName);
        }
        if self.under.is_empty() && self.host_in.is_empty() {
            return Err(ArgRuleError::NoConstraint(self.name.clone()));
        }
        self.prefixes = self
            .under
            .iter()
            .map(|p| {
                normalize_path(p).map_err(|_| ArgRuleError::RelativePrefix {
                    name: self.name.clone(),
                    prefix: p.clone(),
                })
            })
            .collect::<Result<_, _>>()?;
        self.hosts = self
            .host_in
            .iter()
            .map(|e| {
                let (wild, base) = match e.strip_prefix("*.") {
                    Some(b) => (true, b),
                    None => (false, e.as_str()),
                };
                let host = canonical_host_entry(base).map_err(|detail| ArgRuleError::BadHost {
                    name: self.name.clone(),
                    entry: e.clone(),
                    detail,
                })?;
                Ok(if wild {
                    HostEntry::Subdomains(host)
                } else {
                    HostEntry::Exact(host)
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// The violations of this rule by `arguments` (empty when it holds or the argument is
    /// absent: the rule constrains what is sent).
    pub(crate) fn violations(&self, arguments: &Map<String, Value>) -> Vec<Violation> {
        let (pointer, value) = if self.name.starts_with('/') {
            let whole = Value::Object(arguments.clone());
            match whole.pointer(&self.name) {
                Some(v) => (self.name.clone(), v.clone()),
                None => return Vec::new(),
            }
        } else {
            match arguments.get(&self.name) {
                Some(v) => (pointer_push("", &self.name), v.clone()),
                None => return Vec::new(),
            }
        };
        let mut out = Vec::new();
        match &value {
            Value::String(s) => self.check_one(s, &pointer, &mut out),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let p = pointer_push(&pointer, &i.to_string());
                    match item {
                        Value::String(s) => self.check_one(s, &p, &mut out),
                        _ => out.push(not_a_string(&self.name, p)),
                    }
                }
            }
            _ => out.push(not_a_string(&self.name, pointer)),
        }
        out
    }

    fn check_one(&self, s: &str, pointer: &str, out: &mut Vec<Violation>) {
        let shown = crate::unicode::escape_for_display(s);
        let shown: String = shown.chars().take(200).collect();
        if !self.prefixes.is_empty() {
            match path_of(s) {
                Err(why) => out.push(Violation {
                    pointer: pointer.to_owned(),
                    why: format!("argument `{}` = \"{shown}\" {why}", self.name),
                }),
                Ok(segs) if !self.prefixes.iter().any(|p| segs.starts_with(p)) => {
                    out.push(Violation {
                        pointer: pointer.to_owned(),
                        why: format!(
                            "argument `{}` = \"{shown}\" resolves to /{} which is not under {}",
                            self.name,
                            segs.join("/"),
                            self.under.join(", ")
                        ),
                    });
                }
                Ok(_) => {}
            }
        }
        if !self.hosts.is_empty() {
            match url_host(s) {
                Err(why) => out.push(Violation {
                    pointer: pointer.to_owned(),
                    why: format!("argument `{}` = \"{shown}\" {why}", self.name),
                }),
                Ok(host) if !self.hosts.iter().any(|e| host_matches(e, &host)) => {
                    out.push(Violation {
                        pointer: pointer.to_owned(),
                        why: format!(
                            "argument `{}` points at host {host}, which is not in {}",
                            self.name,
                            self.host_in.join(", ")
                        ),
                    });
                }
                Ok(_) => {}
            }
        }
    }
}

fn not_a_string(name: &str, pointer: String) -> Violation {
    Violation {
        pointer,
        why: format!(
            "argument `{name}` is not a string (or array of strings), so its rule cannot be checked"
        ),
    }
}

/// The normalized segments of an absolute path (module docs).
fn normalize_path(path: &str) -> Result<Vec<String>, &'static str> {
    if path.chars().any(char::is_control) {
        return Err("holds control characters");
    }
    let lower = path.to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00"]
        .iter()
        .any(|e| lower.contains(e))
    {
        return Err("holds percent-encoded dots or separators, which the server may decode");
    }
    let unified = path.replace('\\', "/");
    if !unified.starts_with('/') {
        return Err(
            "is a relative path; only absolute paths can be shown to stay under the prefix",
        );
    }
    let mut segs: Vec<String> = Vec::new();
    for seg in unified.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s.to_owned()),
        }
    }
    Ok(segs)
}

/// A path argument's segments: a plain path, or the decoded path of a `file:` URL.
fn path_of(s: &str) -> Result<Vec<String>, &'static str> {
    // `get`: the fifth byte may fall inside a multi-byte character (fuzz regression).
    if s.len() > 5 && s.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("file:")) {
        let url = url::Url::parse(s).map_err(|_| "is not a valid file: URL")?;
        if url
            .host_str()
            .is_some_and(|h| !h.is_empty() && h != "localhost")
        {
            return Err("is a file: URL on another host");
        }
        let decoded = percent_decode(url.path());
        return normalize_path(&decoded);
    }
    normalize_path(s)
}

/// Percent-decodes a URL path (invalid UTF-8 replaced, so it cannot match a prefix by
/// accident).
fn percent_decode(path: &str) -> String {
    percent_encoding::percent_decode_str(path)
        .decode_utf8_lossy()
        .into_owned()
}

/// The canonical host of a URL argument.
fn url_host(s: &str) -> Result<String, &'static str> {
    let url = url::Url::parse(s.trim()).map_err(|_| "is not an absolute URL")?;
    match url.host() {
        None => Err("is a URL without a host"),
        Some(url::Host::Domain(d)) => Ok(d.trim_end_matches('.').to_owned()),
        Some(url::Host::Ipv4(ip)) => Ok(ip.to_string()),
        Some(url::Host::Ipv6(ip)) => Ok(ip.to_string()),
    }
}

/// A `host_in` entry in the form [`url_host`] produces.
fn canonical_host_entry(entry: &str) -> Result<String, String> {
    let bare = entry.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        return Ok(ip.to_string());
    }
    match url::Host::parse(entry) {
        Ok(url::Host::Domain(d)) if !d.is_empty() => Ok(d.trim_end_matches('.').to_owned()),
        Ok(url::Host::Domain(_)) => Err("empty host".into()),
        Ok(url::Host::Ipv4(ip)) => Ok(ip.to_string()),
        Ok(url::Host::Ipv6(ip)) => Ok(ip.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

fn host_matches(entry: &HostEntry, host: &str) -> bool {
    match entry {
        HostEntry::Exact(h) => host == h,
        HostEntry::Subdomains(base) => host
            .strip_suffix(base.as_str())
            .is_some_and(|rest| rest.len() > 1 && rest.ends_with('.')),
    }
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
