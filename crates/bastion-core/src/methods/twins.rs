//! Twin member names in the objects MCP defines below `params`/`result`/`error`: two
//! names of one content block, descriptor, annotations object, message, icon or
//! elicitation that differ only by case (`text`/`Text`, `destructiveHint`/
//! `DestructiveHint`, `key` and KELVIN SIGN + `ey`).
//!
//! The strict parser refuses such twins in the envelope and in `params`/`result`/`error`
//! ([`crate::json`]). Deeper it cannot tell an MCP object from data: a tool's
//! `arguments`, `structuredContent`, an elicitation answer's `content` (the user's form
//! fields) may hold `name` and `Name`. This module knows, per method, where the MCP
//! objects are (MCP 2025-11-25 and 2026-07-28 `schema.ts`), and checks only those. In
//! them a decoder that matches names ignoring case (Go's `encoding/json`, or
//! case-insensitive .NET and Jackson settings) reads one of the twins, often the later
//! one, which is not necessarily the one Bastion inspected: a `Text` after a cleaned
//! `text`, a `URL` after a reviewed `url`.
//!
//! Free-form members inside them are not entered: `_meta`, `inputSchema`,
//! `outputSchema`, `requestedSchema`, `structuredContent`, a `tool_use` block's `input`,
//! `experimental` and `extensions` capabilities.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// Two names of one MCP object that name the same member for a decoder ignoring case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Twin {
    /// JSON Pointer (RFC 6901) of the object, from the checked `result`/`params`/`error`.
    pub(super) path: String,
    /// The name that came first.
    pub(super) earlier: String,
    /// The name that came later.
    pub(super) name: String,
    /// `earlier` is not in the object: `name` is another spelling of that member.
    pub(super) lone: bool,
}

impl std::fmt::Display for Twin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        let (earlier, name) = (
            crate::unicode::escape_for_display(&self.earlier),
            crate::unicode::escape_for_display(&self.name),
        );
        if self.lone {
            write!(
                f,
                "the object at {path} spells the member {earlier:?} as {name:?}"
            )
        } else {
            write!(
                f,
                "the object at {path} has members {earlier:?} and {name:?}, which differ only by case"
            )
        }
    }
}

/// Objects with more members than this are checked through an index of folded names.
const SCAN_MEMBERS: usize = 16;

/// The fold two names are compared by: each character mapped through its uppercase and
/// then its lowercase form where each is one character (`K` KELVIN SIGN to `k`, `ſ` to
/// `s`, `A` to `a`), which is what decoders that ignore case compare (Go's
/// `strings.EqualFold`, simple case folding); `ß` stays `ß`, accents stay.
fn fold(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        return if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(name)
        };
    }
    Cow::Owned(
        name.chars()
            .map(|c| {
                let up = single(c.to_uppercase(), c);
                single(up.to_lowercase(), up)
            })
            .collect(),
    )
}

/// The one character `mapped` yields, or `c` when it yields more (`ß` to `SS`).
fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

/// The first pair of twin names of `map` (earlier, later), in member order. Each name is
/// folded once.
fn twins_in(map: &Map<String, Value>) -> Option<(&str, &str)> {
    if map.len() <= SCAN_MEMBERS {
        let folded: Vec<(Cow<'_, str>, &str)> = map.keys().map(|k| (fold(k), k.as_str())).collect();
        for (i, (later, name)) in folded.iter().enumerate() {
            if let Some((_, earlier)) = folded[..i].iter().find(|(f, _)| f == later) {
                return Some((earlier, name));
            }
        }
        return None;
    }
    let mut seen: HashMap<Cow<'_, str>, &str> = HashMap::with_capacity(map.len());
    for name in map.keys() {
        if let Some(earlier) = seen.insert(fold(name), name) {
            return Some((earlier, name));
        }
    }
    None
}

/// One step of the path to the object being checked.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// The walk: the path so far; the first twin found ends it.
struct Walk<'v> {
    path: Vec<Step<'v>>,
}

type Found = Result<(), Twin>;

impl<'v> Walk<'v> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            match step {
                Step::Key(k) => crate::finding::pointer_push_onto(&mut out, k),
                Step::Index(i) => crate::finding::pointer_push_onto(&mut out, &i.to_string()),
            }
        }
        out
    }

    /// Checks `v` itself, when it is an object.
    fn object(&mut self, v: &'v Value) -> Found {
        let Some(map) = v.as_object() else {
            return Ok(());
        };
        match twins_in(map) {
            None => Ok(()),
            Some((earlier, name)) => Err(Twin {
                path: self.pointer(),
                earlier: earlier.to_owned(),
                name: name.to_owned(),
                lone: false,
            }),
        }
    }

    /// Runs `check` on member `key` of `v`, if there is one.
    fn member(
        &mut self,
        v: &'v Value,
        key: &'static str,
        check: impl FnOnce(&mut Self, &'v Value) -> Found,
    ) -> Found {
        let Some(child) = v.as_object().and_then(|m| m.get(key)) else {
            return Ok(());
        };
        self.path.push(Step::Key(key));
        check(self, child)?;
        self.path.pop();
        Ok(())
    }

    /// Runs `check` on every item of the array `v`, or on `v` when it is an object (MCP
    /// allows one block or an array of blocks in places).
    fn each(&mut self, v: &'v Value, check: impl Fn(&mut Self, &'v Value) -> Found) -> Found {
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.path.push(Step::Index(i));
                    check(self, item)?;
                    self.path.pop();
                }
                Ok(())
            }
            Value::Object(_) => check(self, v),
            _ => Ok(()),
        }
    }

    /// Runs `check` on every member value of the object `v` (maps keyed by the
    /// server's or host's own ids).
    fn values(&mut self, v: &'v Value, check: impl Fn(&mut Self, &'v Value) -> Found) -> Found {
        if let Some(map) = v.as_object() {
            for (k, item) in map {
                self.path.push(Step::Key(k));
                check(self, item)?;
                self.path.pop();
            }
        }
        Ok(())
    }

    fn icons(&mut self, v: &'v Value) -> Found {
        self.each(v, Self::object)
    }

    /// A content block (text, image, audio, `resource_link`, embedded resource,
    /// sampling `tool_use`/`tool_result`).
    fn block(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        self.member(v, "annotations", Self::object)?;
        self.member(v, "resource", |w, r| {
            w.object(r)?;
            w.member(r, "annotations", Self::object)
        })?;
        self.member(v, "icons", Self::icons)?;
        // A sampling tool result carries blocks itself; other blocks' extra members are
        // the server's own.
        if v.get("type").and_then(Value::as_str) == Some("tool_result") {
            self.member(v, "content", |w, c| w.each(c, Self::block))?;
        }
        Ok(())
    }

    /// A tool, resource or resource template descriptor.
    fn descriptor(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        self.member(v, "annotations", Self::object)?;
        self.member(v, "icons", Self::icons)?;
        self.member(v, "execution", Self::object)
    }

    /// A prompt descriptor and its `PromptArgument`s.
    fn prompt(&mut self, v: &'v Value) -> Found {
        self.descriptor(v)?;
        self.member(v, "arguments", |w, a| {
            if a.is_array() {
                w.each(a, Self::object)
            } else {
                Ok(())
            }
        })
    }

    /// A prompt or sampling message.
    fn message(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        self.member(v, "content", |w, c| w.each(c, Self::block))
    }

    /// `serverInfo`/`clientInfo` (an `Implementation`).
    fn implementation(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        self.member(v, "icons", Self::icons)
    }

    /// `capabilities`: the object, and the list capabilities whose `listChanged` Bastion
    /// reads and rewrites (the others, `logging` and `completions` among them, are
    /// free-form objects in the schema).
    fn capabilities(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        for cap in ["tools", "prompts", "resources"] {
            self.member(v, cap, Self::object)?;
        }
        Ok(())
    }

    /// `sampling/createMessage` params.
    fn sampling(&mut self, v: &'v Value) -> Found {
        self.member(v, "messages", |w, m| w.each(m, Self::message))?;
        self.member(v, "tools", |w, t| w.each(t, Self::descriptor))?;
        self.member(v, "toolChoice", Self::object)?;
        self.member(v, "modelPreferences", |w, p| {
            w.object(p)?;
            w.member(p, "hints", |w, h| w.each(h, Self::object))
        })
    }

    /// A result the host answers a server request with (2026-07-28 `inputResponses`
    /// values): the object, and the blocks of a sampling result or the roots of a roots
    /// result; an elicitation answer's `content` is the user's data.
    fn answer(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        if v.get("action").is_none() {
            self.member(v, "content", |w, c| w.each(c, Self::block))?;
        }
        self.member(v, "roots", |w, r| w.each(r, Self::object))
    }

    /// 2026-07-28 `inputRequests`: server requests by the server's keys.
    fn input_requests(&mut self, v: &'v Value) -> Found {
        self.values(v, |w, req| {
            w.object(req)?;
            w.member(req, "params", |w, p| {
                w.object(p)?;
                w.sampling(p)
            })
        })
    }
}

/// The first twin in an MCP object of the `result` of a `method` request.
pub(super) fn in_result(method: &str, result: &Value) -> Option<Twin> {
    let mut w = Walk { path: Vec::new() };
    let found = (|| {
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            return w.member(result, "inputRequests", Walk::input_requests);
        }
        // A task-augmented call's CreateTaskResult (2025-11-25 tasks).
        w.member(result, "task", Walk::object)?;
        match method {
            "initialize" | "server/discover" => {
                w.member(result, "serverInfo", Walk::implementation)?;
                w.member(result, "capabilities", Walk::capabilities)
            }
            "tools/list" => w.member(result, "tools", |w, t| w.each(t, Walk::descriptor)),
            "prompts/list" => w.member(result, "prompts", |w, t| w.each(t, Walk::prompt)),
            "resources/list" => w.member(result, "resources", |w, t| w.each(t, Walk::descriptor)),
            "resources/templates/list" => w.member(result, "resourceTemplates", |w, t| {
                w.each(t, Walk::descriptor)
            }),
            // `tasks/result` answers with the result of the task's request.
            "tools/call" | "sampling/createMessage" | "tasks/result" => {
                w.member(result, "content", |w, c| w.each(c, Walk::block))
            }
            "tasks/list" => w.member(result, "tasks", |w, t| w.each(t, Walk::object)),
            "roots/list" => w.member(result, "roots", |w, r| w.each(r, Walk::object)),
            "prompts/get" => w.member(result, "messages", |w, m| w.each(m, Walk::message)),
            "resources/read" => w.member(result, "contents", |w, c| w.each(c, Walk::object)),
            "completion/complete" => w.member(result, "completion", Walk::object),
            // `elicitation/create`: `content` holds the user's answers, named after the
            // requested schema's properties.
            _ => Ok(()),
        }
    })();
    found.err()
}

/// The first twin in an MCP object of the `params` of a `method` request.
pub(super) fn in_params(method: &str, params: &Value) -> Option<Twin> {
    let mut w = Walk { path: Vec::new() };
    let found = (|| match method {
        "initialize" => {
            w.member(params, "clientInfo", Walk::implementation)?;
            w.member(params, "capabilities", Walk::capabilities)
        }
        "sampling/createMessage" => w.sampling(params),
        // 2026-07-28 retry: the host's answers by the server's keys (an elicitation
        // answer's `content` is the user's data and is not entered).
        "tools/call" | "prompts/get" | "resources/read" => {
            w.member(params, "inputResponses", |w, r| w.values(r, Walk::answer))
        }
        "completion/complete" => {
            w.member(params, "ref", Walk::object)?;
            w.member(params, "argument", Walk::object)
        }
        _ => Ok(()),
    })();
    found.err()
}

/// The first twin in an MCP object of a JSON-RPC `error`: the elicitations of a
/// `URLElicitationRequiredError` (-32042, MCP 2025-11-25), which Bastion reviews.
pub(super) fn in_error(error: &Value) -> Option<Twin> {
    if error.get("code").and_then(Value::as_i64)
        != Some(crate::elicit::required::URL_ELICITATION_REQUIRED)
    {
        return None;
    }
    let mut w = Walk { path: Vec::new() };
    // `data` itself is open (`[key: string]: unknown`); its elicitations are not, and
    // no other spelling of `elicitations` may stand beside or instead of it (Bastion
    // reviews `elicitations`; a host ignoring case could open the URLs of
    // `Elicitations`).
    w.member(error, "data", |w, d| {
        if let Some(map) = d.as_object()
            && let Some(other) = map
                .keys()
                .find(|k| k.as_str() != "elicitations" && fold(k) == "elicitations")
        {
            return Err(Twin {
                path: w.pointer(),
                earlier: "elicitations".to_owned(),
                name: other.clone(),
                lone: !map.contains_key("elicitations"),
            });
        }
        w.member(d, "elicitations", |w, e| w.each(e, Walk::object))
    })
    .err()
}

#[cfg(test)]
#[path = "twins_tests.rs"]
mod tests;
