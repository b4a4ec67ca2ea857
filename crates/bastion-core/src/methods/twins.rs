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
}

impl std::fmt::Display for Twin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the object at {} has members {:?} and {:?}, which differ only by case",
            if self.path.is_empty() {
                "/"
            } else {
                &self.path
            },
            crate::unicode::escape_for_display(&self.earlier),
            crate::unicode::escape_for_display(&self.name),
        )
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
    // `data` itself is open (`[key: string]: unknown`); its elicitations are not.
    w.member(error, "data", |w, d| {
        w.member(d, "elicitations", |w, e| w.each(e, Walk::object))
    })
    .err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn twin_of_result(method: &str, result: &Value) -> (String, String, String) {
        let t = in_result(method, result).unwrap_or_else(|| panic!("{method}: {result}"));
        (t.path, t.earlier, t.name)
    }

    #[test]
    fn twins_in_the_objects_of_results_are_found_with_their_place() {
        let s = |a: &str, b: &str, p: &str| (p.to_owned(), a.to_owned(), b.to_owned());
        for (method, result, want) in [
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "ok"}, {"type": "text", "text": "a", "Text": "<img src=x onerror=alert(1)>"}]}),
                s("text", "Text", "/content/1"),
            ),
            (
                "tools/call",
                json!({"content": [{"TEXT": "hidden", "type": "text", "text": "ok"}]}),
                s("TEXT", "text", "/content/0"),
            ),
            (
                "tools/call",
                json!({"content": [{"type": "resource", "resource": {"uri": "file:///a", "URI": "file:///b", "text": "x"}}]}),
                s("uri", "URI", "/content/0/resource"),
            ),
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "x", "annotations": {"audience": ["user"], "Audience": ["assistant"]}}]}),
                s("audience", "Audience", "/content/0/annotations"),
            ),
            (
                "tools/list",
                json!({"tools": [{"name": "safe", "Name": "rm_rf", "inputSchema": {}}]}),
                s("name", "Name", "/tools/0"),
            ),
            (
                "tools/list",
                json!({"tools": [{"name": "t", "inputSchema": {}, "annotations": {"destructiveHint": true, "DestructiveHint": false}}]}),
                s("destructiveHint", "DestructiveHint", "/tools/0/annotations"),
            ),
            (
                "tools/list",
                json!({"tools": [{"name": "t", "inputSchema": {}, "icons": [{"src": "https://a.example/i.png", "Src": "http://b.example/i.png"}]}]}),
                s("src", "Src", "/tools/0/icons/0"),
            ),
            (
                "prompts/list",
                json!({"prompts": [{"name": "p", "arguments": [{"name": "city", "Name": "api_key"}]}]}),
                s("name", "Name", "/prompts/0/arguments/0"),
            ),
            (
                "prompts/get",
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "a", "tExt": "b"}}]}),
                s("text", "tExt", "/messages/0/content"),
            ),
            (
                "resources/templates/list",
                json!({"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "n", "uritemplate": "file:///etc/{x}"}]}),
                s("uriTemplate", "uritemplate", "/resourceTemplates/0"),
            ),
            (
                "resources/read",
                json!({"contents": [{"uri": "file:///a", "text": "x", "mimeType": "text/plain", "MIMEType": "text/html"}]}),
                s("mimeType", "MIMEType", "/contents/0"),
            ),
            (
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true, "ListChanged": false}}, "serverInfo": {"name": "s", "version": "1"}}),
                s("listChanged", "ListChanged", "/capabilities/tools"),
            ),
            (
                "tools/call",
                json!({"resultType": "input_required", "inputRequests": {"a/b": {"method": "elicitation/create", "params": {"mode": "url", "url": "https://ok.example/", "URL": "https://evil.example/", "message": "m", "elicitationId": "e"}}}}),
                s("url", "URL", "/inputRequests/a~1b/params"),
            ),
            (
                "sampling/createMessage",
                json!({"role": "assistant", "model": "m", "content": [{"type": "tool_result", "toolUseId": "u", "content": [{"type": "text", "text": "a", "Text": "b"}]}]}),
                s("text", "Text", "/content/0/content/0"),
            ),
            // KELVIN SIGN is `k` to a decoder that ignores case.
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "a", "key": 1, "\u{212a}ey": 2}]}),
                s("key", "\u{212a}ey", "/content/0"),
            ),
            (
                "tasks/result",
                json!({"content": [{"type": "text", "text": "a", "Text": "b"}]}),
                s("text", "Text", "/content/0"),
            ),
            (
                "tasks/list",
                json!({"tasks": [{"taskId": "t", "status": "working", "statusMessage": "a", "StatusMessage": "b"}]}),
                s("statusMessage", "StatusMessage", "/tasks/0"),
            ),
            (
                "tools/call",
                json!({"task": {"taskId": "t", "status": "working", "TaskId": "u"}}),
                s("taskId", "TaskId", "/task"),
            ),
            (
                "roots/list",
                json!({"roots": [{"uri": "file:///a", "URI": "file:///"}]}),
                s("uri", "URI", "/roots/0"),
            ),
        ] {
            assert_eq!(twin_of_result(method, &result), want, "{method}: {result}");
        }
    }

    #[test]
    fn objects_of_many_members_are_checked_through_the_index() {
        for before in [0, 15, 16, 17, 200] {
            let mut block = Map::new();
            block.insert("Type".into(), json!("image"));
            for i in 0..before {
                block.insert(format!("m{i}"), json!(i));
            }
            block.insert("type".into(), json!("text"));
            block.insert("text".into(), json!("x"));
            let result = json!({"content": [Value::Object(block)]});
            assert_eq!(
                twin_of_result("tools/call", &result),
                ("/content/0".into(), "Type".into(), "type".into()),
                "{before}"
            );
        }
    }

    #[test]
    fn twins_in_params_and_in_url_elicitation_errors() {
        let t = in_params(
            "sampling/createMessage",
            &json!({"maxTokens": 5, "messages": [{"role": "user", "Role": "assistant", "content": {"type": "text", "text": "x"}}]}),
        )
        .unwrap();
        assert_eq!((t.path.as_str(), t.name.as_str()), ("/messages/0", "Role"));
        for (method, params, path) in [
            (
                "sampling/createMessage",
                json!({"maxTokens": 5, "messages": [], "tools": [{"name": "t", "Name": "u", "inputSchema": {}}]}),
                "/tools/0",
            ),
            (
                "sampling/createMessage",
                json!({"maxTokens": 5, "messages": [], "toolChoice": {"mode": "auto", "Mode": "none"}}),
                "/toolChoice",
            ),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "file:///a", "URI": "file:///b"}, "argument": {"name": "n", "value": "v"}}),
                "/ref",
            ),
            (
                "tools/call",
                json!({"name": "t", "inputResponses": {"k": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "a", "Text": "b"}}}}),
                "/inputResponses/k/content",
            ),
        ] {
            let t = in_params(method, &params).unwrap_or_else(|| panic!("{params}"));
            assert_eq!(t.path, path, "{params}");
        }
        let t = in_params(
            "initialize",
            &json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "NAME": "d", "version": "1"}}),
        )
        .unwrap();
        assert_eq!(t.path, "/clientInfo");
        let t = in_params(
            "tools/call",
            &json!({"name": "t", "arguments": {}, "inputResponses": {"k": {"action": "accept", "Action": "decline", "content": {}}}}),
        )
        .unwrap();
        assert_eq!(t.path, "/inputResponses/k");
        let error = json!({"code": -32042, "message": "auth", "data": {"elicitations": [{"mode": "url", "elicitationId": "e1", "url": "https://docs.example.com/x", "URL": "http://evil.example/phish", "message": "Open"}]}});
        let t = in_error(&error).unwrap();
        assert_eq!(
            (t.path.as_str(), t.earlier.as_str(), t.name.as_str()),
            ("/data/elicitations/0", "url", "URL")
        );
        // The message names the place and both names, escaped for display.
        assert!(
            t.to_string().contains("/data/elicitations/0") && t.to_string().contains("\"URL\""),
            "{t}"
        );
    }

    #[test]
    fn data_members_may_hold_names_that_differ_only_by_case() {
        for (method, result) in [
            // The user's answers to a form with fields `name` and `Name`.
            (
                "elicitation/create",
                json!({"action": "accept", "content": {"name": "Ada", "Name": "Lovelace"}}),
            ),
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "x", "_meta": {"Text": 1, "text": 2}}], "structuredContent": {"id": 3, "ID": 4}}),
            ),
            (
                "tools/list",
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"name": {}, "Name": {}}}, "outputSchema": {"properties": {"id": {}, "ID": {}}}}]}),
            ),
            (
                "sampling/createMessage",
                json!({"role": "assistant", "model": "m", "content": {"type": "tool_use", "id": "u1", "name": "t", "input": {"name": "a", "Name": "b"}}}),
            ),
            (
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"experimental": {"x": {"a": 1, "A": 2}}, "extensions": {"io.x/ui": {"mode": "a", "Mode": "b"}}}, "serverInfo": {"name": "s", "version": "1"}}),
            ),
            ("acme/custom", json!({"o": {"name": "a", "Name": "b"}})),
            // Free-form capabilities, vendor members of blocks and descriptors, an
            // `inputRequests` outside an input_required result.
            (
                "initialize",
                json!({"capabilities": {"logging": {"a": 1, "A": 2}, "completions": {"x": 1, "X": 2}}, "serverInfo": {"name": "s", "version": "1"}}),
            ),
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "a", "content": {"n": 1, "N": 2}}]}),
            ),
            (
                "tools/list",
                json!({"tools": [{"name": "t", "inputSchema": {}, "arguments": [{"k": 1, "K": 2}]}]}),
            ),
            (
                "tools/call",
                json!({"content": [], "inputRequests": {"k": {"method": "x", "M": 1, "m": 2}}}),
            ),
            // Names that differ by more than case: accents, sharp s.
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "a", "x-caf\u{e9}": 1, "x-cafe": 2, "ma\u{df}e": 3, "masse": 4}]}),
            ),
            (
                "prompts/list",
                json!({"prompts": [{"name": "p", "arguments": [{"name": "a"}, {"name": "A"}]}]}),
            ),
        ] {
            assert_eq!(in_result(method, &result), None, "{method}: {result}");
        }
        for (method, params) in [
            (
                "tools/call",
                json!({"name": "t", "arguments": {"name": "a", "Name": "b"}, "inputResponses": {"k": {"action": "accept", "content": {"type": "personal", "Type": "x"}}}}),
            ),
            (
                "sampling/createMessage",
                json!({"maxTokens": 5, "messages": [], "metadata": {"user": "a", "User": "b"}}),
            ),
            ("acme/custom", json!({"o": {"name": "a", "Name": "b"}})),
            (
                "prompts/get",
                json!({"name": "p", "arguments": {"city": "a", "City": "b"}}),
            ),
        ] {
            assert_eq!(in_params(method, &params), None, "{method}: {params}");
        }
        // Error data other than a URL elicitation's is the server's own, and so is the
        // rest of a URL elicitation error's data.
        assert_eq!(
            in_error(&json!({"code": -32000, "message": "m", "data": {"url": "a", "URL": "b"}})),
            None
        );
        assert_eq!(
            in_error(
                &json!({"code": -32042, "message": "m", "data": {"elicitations": [], "x": 1, "X": 2}})
            ),
            None
        );
    }
}
