//! Tests of `twins.rs`: every place walked, and data that must pass.

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
    // But not another spelling of `elicitations`, beside it or alone: Bastion reviews
    // `elicitations` only.
    for data in [
        json!({"elicitations": [], "Elicitations": [{"mode": "url", "url": "https://evil.example/"}]}),
        json!({"ELICITATIONS": [{"mode": "url", "url": "https://evil.example/"}]}),
    ] {
        let t = in_error(&json!({"code": -32042, "message": "m", "data": data})).unwrap();
        assert_eq!(
            (t.path.as_str(), t.earlier.as_str()),
            ("/data", "elicitations")
        );
        let shown = t.to_string();
        if t.lone {
            assert!(
                shown.contains("spells the member \"elicitations\" as \"ELICITATIONS\""),
                "{shown}"
            );
        } else {
            assert!(shown.contains("which differ only by case"), "{shown}");
        }
    }
}
