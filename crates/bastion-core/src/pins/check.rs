//! `mcp-bastion check drift`: the corpus `rug_pull` input shapes as a [`Report`].

use super::canonical::{CanonicalError, descriptor_hash};
use super::compare::{Change, CurrentItem, PinError, compare};
use super::diff::{Diff, Highlight, HighlightKind, diff};
use super::drift::drift;
use super::identity::{DescriptorKey, LaunchConfig, ServerIdentity, kind_name};
use crate::detect::DescriptorKind;
use crate::finding::{Code, Finding, Report, Severity};
use serde_json::{Value, json};

/// Why a `check drift` input could not be compared (exit code 2: the input is wrong, not
/// the server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DriftInputError {
    /// The input is not `{"approved": ..., "current": ...}`.
    #[error("drift input must be an object with `approved` and `current`; missing `{0}`")]
    Missing(&'static str),
    /// `approved` and `current` are not the same shape.
    #[error(
        "`approved` is {approved} but `current` is {current}; both must be descriptors, lists of descriptors, instructions strings or launch configs"
    )]
    MismatchedShapes {
        /// Shape of `approved`.
        approved: &'static str,
        /// Shape of `current`.
        current: &'static str,
    },
    /// `kind` or `mode` has an unknown value.
    #[error("unknown {member} `{value}`")]
    UnknownOption {
        /// `kind` or `mode`.
        member: &'static str,
        /// The value given.
        value: String,
    },
    /// A launch config is malformed (e.g. `args` not a list of strings).
    #[error("`{side}` is not a launch config {{name, command, args, env, url}}: {detail}")]
    BadLaunchConfig {
        /// `approved` or `current`.
        side: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A descriptor has no key or no canonical form.
    #[error("`{path}`: {source}")]
    BadDescriptor {
        /// JSON Pointer of the descriptor in the input.
        path: String,
        /// Why.
        source: PinError,
    },
}

impl From<(String, CanonicalError)> for DriftInputError {
    fn from((path, e): (String, CanonicalError)) -> Self {
        Self::BadDescriptor {
            path,
            source: PinError::Canonical(e),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Descriptor,
    List,
    Instructions,
    Launch,
}

impl Shape {
    fn of(v: &Value) -> Option<Self> {
        match v {
            Value::Array(_) => Some(Self::List),
            Value::String(_) => Some(Self::Instructions),
            Value::Object(m) => {
                let descriptor_member = [
                    "inputSchema",
                    "outputSchema",
                    "uri",
                    "uriTemplate",
                    "description",
                    "arguments",
                    "annotations",
                ]
                .iter()
                .any(|k| m.contains_key(*k));
                let launch =
                    m.contains_key("command") || (m.contains_key("url") && !descriptor_member);
                Some(if launch {
                    Self::Launch
                } else {
                    Self::Descriptor
                })
            }
            _ => None,
        }
    }

    const fn noun(shape: Option<Self>) -> &'static str {
        match shape {
            Some(Self::Descriptor) => "a descriptor",
            Some(Self::List) => "a list",
            Some(Self::Instructions) => "an instructions string",
            Some(Self::Launch) => "a launch config",
            None => "neither",
        }
    }
}

/// Runs `check drift` on `{"approved", "current", "kind"?, "mode"?, "trigger"?}` where
/// `approved` and `current` are both
/// - one descriptor: identical canonical hash → `allow`; any other change → `block`
///   (one `descriptor_changed` finding per [`Highlight`], severity `high`), except changes
///   confined to `annotations` → `flag` (`warn`);
/// - a list of descriptors, matched by [`DescriptorKey`] ([`compare`]): changed and
///   renamed items as above (a rename is `high`), new items `info` in `mode: "tofu"`
///   (default) and `high` in `"strict"`, removed items `info`;
/// - a server `instructions` string: any change is `high`;
/// - a launch config `{name, command, args, env, url?}`: [`drift`]'s findings.
///
/// `kind` (`tool`, `prompt`, `resource`, `resource_template`) fixes the descriptor kind;
/// without it each descriptor's kind is inferred (`uriTemplate` → template, `uri` →
/// resource, `arguments` without `inputSchema` → prompt, otherwise tool). `trigger` (what
/// prompted the re-list, e.g. `notifications/tools/list_changed`) is echoed. Finding
/// paths point into `/current` (or `/approved` for what only it has). `output` is the
/// diff as JSON: hashes, changes and [`Diff`]s (launch configs with env values as digests).
///
/// # Errors
/// [`DriftInputError`] when the input does not have one of these shapes.
pub fn check_drift(input: &Value) -> Result<Report, DriftInputError> {
    let approved = input
        .get("approved")
        .ok_or(DriftInputError::Missing("approved"))?;
    let current = input
        .get("current")
        .ok_or(DriftInputError::Missing("current"))?;
    let kind = match input.get("kind").and_then(Value::as_str) {
        None => None,
        Some(k) => Some(parse_kind(k)?),
    };
    let strict = match input.get("mode").and_then(Value::as_str) {
        None | Some("tofu") => false,
        Some("strict") => true,
        Some(other) => {
            return Err(DriftInputError::UnknownOption {
                member: "mode",
                value: other.to_owned(),
            });
        }
    };
    let (sa, sc) = (Shape::of(approved), Shape::of(current));
    let mut ctx = Ctx {
        approved,
        current,
        findings: Vec::new(),
    };
    let mut output = match (sa, sc) {
        (Some(Shape::Launch), Some(Shape::Launch)) => ctx.launch()?,
        (Some(Shape::List), Some(Shape::List)) => ctx.list(kind, strict)?,
        (
            Some(Shape::Descriptor | Shape::Instructions),
            Some(Shape::Descriptor | Shape::Instructions),
        ) if sa == sc => {
            let k = if sa == Some(Shape::Instructions) {
                DescriptorKind::ServerInstructions
            } else {
                kind.unwrap_or_else(|| infer_kind(current, approved))
            };
            ctx.single(k, approved, current, "", "")?
        }
        _ => {
            return Err(DriftInputError::MismatchedShapes {
                approved: Shape::noun(sa),
                current: Shape::noun(sc),
            });
        }
    };
    if let Some(trigger) = input.get("trigger") {
        output["trigger"] = trigger.clone();
    }
    Ok(Report::from_findings(ctx.findings, false, Some(output)))
}

fn parse_kind(name: &str) -> Result<DescriptorKind, DriftInputError> {
    serde_json::from_value(Value::String(name.to_owned())).map_err(|_| {
        DriftInputError::UnknownOption {
            member: "kind",
            value: name.to_owned(),
        }
    })
}

/// The kind a descriptor looks like (see [`check_drift`]); `fallback` is consulted when
/// `v` has no telling member.
fn infer_kind(v: &Value, fallback: &Value) -> DescriptorKind {
    let has = |d: &Value, k: &str| d.get(k).is_some();
    for d in [v, fallback] {
        if has(d, "uriTemplate") {
            return DescriptorKind::ResourceTemplate;
        }
        if has(d, "uri") {
            return DescriptorKind::Resource;
        }
        if has(d, "inputSchema") || has(d, "outputSchema") {
            return DescriptorKind::Tool;
        }
        if has(d, "arguments") {
            return DescriptorKind::Prompt;
        }
    }
    DescriptorKind::Tool
}

struct Ctx<'a> {
    approved: &'a Value,
    current: &'a Value,
    findings: Vec<Finding>,
}

impl Ctx<'_> {
    /// `/current<rel>` when `current` has something there, else `/approved<rel>`.
    fn locate(&self, rel: &str) -> String {
        if self.current.pointer(rel).is_some() || self.approved.pointer(rel).is_none() {
            format!("/current{rel}")
        } else {
            format!("/approved{rel}")
        }
    }

    fn push(&mut self, severity: Severity, rel: &str, message: String) {
        let path = self.locate(rel);
        self.findings.push(Finding::new(
            Code::DescriptorChanged,
            severity,
            path,
            message,
        ));
    }

    fn launch(&mut self) -> Result<Value, DriftInputError> {
        let parse = |side: &'static str, v: &Value| {
            serde_json::from_value::<LaunchConfig>(v.clone()).map_err(|e| {
                DriftInputError::BadLaunchConfig {
                    side,
                    detail: e.to_string(),
                }
            })
        };
        let a = parse("approved", self.approved)?;
        let c = parse("current", self.current)?;
        for f in drift(&a, &c) {
            self.push(f.severity, &f.path, f.message);
        }
        let (fa, fc) = (a.fingerprint(), c.fingerprint());
        let identity = |cfg: &LaunchConfig, side| {
            ServerIdentity::of(cfg).map_err(|e| DriftInputError::from((side, e)))
        };
        Ok(json!({
            "shape": "launch_config",
            "approved_identity": identity(&a, "/approved".to_owned())?,
            "current_identity": identity(&c, "/current".to_owned())?,
            // Entries only: the findings above are the highlights of a launch config.
            "diff": Diff {
                highlights: Vec::new(),
                ..diff(&fa.to_value(), &fc.to_value())
            },
        }))
    }

    /// One descriptor pair at `rel_old`/`rel_new` (pointers below `/approved`, `/current`).
    fn single(
        &mut self,
        kind: DescriptorKind,
        old: &Value,
        new: &Value,
        rel_old: &str,
        rel_new: &str,
    ) -> Result<Value, DriftInputError> {
        let hash = |v: &Value, side: &str, rel: &str| {
            descriptor_hash(v).map_err(|e| DriftInputError::from((format!("/{side}{rel}"), e)))
        };
        let (ho, hn) = (
            hash(old, "approved", rel_old)?,
            hash(new, "current", rel_new)?,
        );
        let d = if ho == hn {
            Diff::default()
        } else {
            diff(old, new)
        };
        let label = DescriptorKey::of(kind, old)
            .or_else(|_| DescriptorKey::of(kind, new))
            .map_or_else(|_| kind_name(kind).to_owned(), |k| k.to_string());
        if ho != hn && d.highlights.is_empty() {
            // Canonical forms differ but no member does (cannot happen for values with a
            // canonical form); never let a changed hash pass silently.
            self.push(
                Severity::High,
                rel_new,
                format!(
                    "{} changed since approval (canonical hash differs)",
                    kind_name(kind)
                ),
            );
        }
        let annotations_only = d.annotations_only();
        for h in &d.highlights {
            let severity = if annotations_only && h.kind == HighlightKind::AnnotationChanged {
                Severity::Warn
            } else {
                Severity::High
            };
            let rel = if h.new.is_none() && h.old.is_some() {
                (rel_old, true)
            } else {
                (rel_new, false)
            };
            self.push_highlight(severity, rel, h, &label);
        }
        Ok(json!({
            "shape": "descriptor",
            "kind": kind_name(kind),
            "approved_hash": ho,
            "current_hash": hn,
            "diff": d,
        }))
    }

    fn push_highlight(
        &mut self,
        severity: Severity,
        (base, old_side): (&str, bool),
        h: &Highlight,
        label: &str,
    ) {
        let rel = format!("{base}{}", h.path);
        let path = if old_side {
            format!("/approved{rel}")
        } else {
            self.locate(&rel)
        };
        self.findings.push(Finding::new(
            Code::DescriptorChanged,
            severity,
            path,
            format!("{label} changed since approval: {}", h.message),
        ));
    }

    fn list(
        &mut self,
        kind: Option<DescriptorKind>,
        strict: bool,
    ) -> Result<Value, DriftInputError> {
        let empty = Vec::new();
        let olds = self.approved.as_array().unwrap_or(&empty);
        let news = self.current.as_array().unwrap_or(&empty);
        let items = |side: &str, list: &[Value]| -> Result<Vec<CurrentItem>, DriftInputError> {
            list.iter()
                .enumerate()
                .map(|(i, d)| {
                    let k = kind.unwrap_or_else(|| infer_kind(d, d));
                    CurrentItem::of(k, d).map_err(|source| DriftInputError::BadDescriptor {
                        path: format!("/{side}/{i}"),
                        source,
                    })
                })
                .collect()
        };
        let pinned: Vec<_> = items("approved", olds)?
            .iter()
            .map(CurrentItem::pin)
            .collect();
        let current = items("current", news)?;
        let changes = compare(&pinned, &current);
        let index_of = |key: &DescriptorKey| pinned.iter().position(|p| &p.key == key);
        let mut diffs = Vec::new();
        for (i, change) in changes.iter().enumerate() {
            let rel_new = format!("/{i}");
            match change {
                Change::Unchanged { .. } => {}
                Change::New { key, .. } => {
                    let (sev, how) = if strict {
                        (Severity::High, "awaits approval (strict mode)")
                    } else {
                        (
                            Severity::Info,
                            "will be pinned on first clean sight (tofu mode)",
                        )
                    };
                    self.push(sev, &rel_new, format!("new {key} {how}"));
                }
                Change::Changed { key, .. } => {
                    let j = index_of(key).unwrap_or_default();
                    let out =
                        self.single(key.kind, &olds[j], &news[i], &format!("/{j}"), &rel_new)?;
                    diffs.push(json!({ "key": key, "diff": out["diff"] }));
                }
                Change::Renamed { from, to, .. } => {
                    let j = index_of(from).unwrap_or_default();
                    self.push(
                        Severity::High,
                        &format!("{rel_new}/{}", key_member_token(to.kind)),
                        format!("{from} was renamed to {to} (same definition under a new key)"),
                    );
                    diffs
                        .push(json!({ "key": to, "from": from, "diff": diff(&olds[j], &news[i]) }));
                }
                Change::Removed { key, .. } => {
                    let j = index_of(key).unwrap_or_default();
                    let path = format!("/approved/{j}");
                    self.findings.push(Finding::new(
                        Code::DescriptorChanged,
                        Severity::Info,
                        path,
                        format!("{key} is no longer published (recorded)"),
                    ));
                }
            }
        }
        Ok(json!({ "shape": "list", "changes": changes, "diffs": diffs }))
    }
}

fn key_member_token(kind: DescriptorKind) -> &'static str {
    super::identity::key_member(kind).unwrap_or("")
}
