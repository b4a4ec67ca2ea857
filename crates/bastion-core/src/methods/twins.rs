//! Twin member names in the objects MCP defines below `params`/`result`/`error`: two
//! names of one content block, descriptor, annotations object, message, icon or
//! elicitation that differ only by case or Unicode case folding (`text`/`Text`,
//! `destructiveHint`/`DestructiveHint`).
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

use crate::json::fold_key;
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

/// The fold two names are compared by: ASCII lowercase for ASCII names, NFKC and
/// Unicode case folding otherwise ([`fold_key`]).
fn fold(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(name)
        }
    } else {
        fold_key(name)
    }
}

/// The first pair of twin names of `map` (earlier, later), in member order.
fn twins_in(map: &Map<String, Value>) -> Option<(&str, &str)> {
    if map.len() <= SCAN_MEMBERS {
        let names: Vec<&String> = map.keys().collect();
        for (i, later) in names.iter().enumerate() {
            for earlier in &names[..i] {
                let same = if earlier.is_ascii() && later.is_ascii() {
                    earlier.eq_ignore_ascii_case(later)
                } else {
                    fold(earlier) == fold(later)
                };
                if same {
                    return Some((earlier, later));
                }
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
        self.member(v, "content", |w, c| w.each(c, Self::block))
    }

    /// A tool, prompt, resource or resource template descriptor.
    fn descriptor(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        self.member(v, "annotations", Self::object)?;
        self.member(v, "icons", Self::icons)?;
        self.member(v, "execution", Self::object)?;
        // A prompt's arguments are an array of PromptArgument objects (a tool call's
        // `arguments` object is data and never reaches here).
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

    /// `capabilities`: the object and each capability object but the free-form ones.
    fn capabilities(&mut self, v: &'v Value) -> Found {
        self.object(v)?;
        let Some(map) = v.as_object() else {
            return Ok(());
        };
        for (k, cap) in map {
            if k != "experimental" && k != "extensions" {
                self.path.push(Step::Key(k));
                self.object(cap)?;
                self.path.pop();
            }
        }
        Ok(())
    }

    /// `sampling/createMessage` params.
    fn sampling(&mut self, v: &'v Value) -> Found {
        self.member(v, "messages", |w, m| w.each(m, Self::message))?;
        self.member(v, "modelPreferences", |w, p| {
            w.object(p)?;
            w.member(p, "hints", |w, h| w.each(h, Self::object))
        })
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
        w.member(result, "inputRequests", Walk::input_requests)?;
        match method {
            "initialize" | "server/discover" => {
                w.member(result, "serverInfo", Walk::implementation)?;
                w.member(result, "capabilities", Walk::capabilities)
            }
            "tools/list" => w.member(result, "tools", |w, t| w.each(t, Walk::descriptor)),
            "prompts/list" => w.member(result, "prompts", |w, t| w.each(t, Walk::descriptor)),
            "resources/list" => w.member(result, "resources", |w, t| w.each(t, Walk::descriptor)),
            "resources/templates/list" => w.member(result, "resourceTemplates", |w, t| {
                w.each(t, Walk::descriptor)
            }),
            "tools/call" | "sampling/createMessage" => {
                w.member(result, "content", |w, c| w.each(c, Walk::block))
            }
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
            w.member(params, "inputResponses", |w, r| w.values(r, Walk::object))
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
    w.member(error, "data", |w, d| {
        w.object(d)?;
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
            // Fullwidth letters fold onto ASCII (NFKC).
            (
                "tools/call",
                json!({"content": [{"type": "text", "text": "a", "\u{ff54}\u{ff45}\u{ff58}\u{ff54}": "b"}]}),
                s("text", "\u{ff54}\u{ff45}\u{ff58}\u{ff54}", "/content/0"),
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
        // Error data other than a URL elicitation's is the server's own.
        assert_eq!(
            in_error(&json!({"code": -32000, "message": "m", "data": {"url": "a", "URL": "b"}})),
            None
        );
    }
}
