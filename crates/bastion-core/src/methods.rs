//! Structural checks of known MCP messages, using `rmcp` 3.x model types as read-only
//! views (the raw `Value` is never replaced by the typed model, so unknown fields are
//! kept). Sources: MCP 2025-11-25 and 2026-07-28 schemas (`schema.ts`), as modelled by
//! the official Rust SDK.

use crate::json::Member;
use rmcp::model;
use serde_json::Value;

mod twins;

/// A known message whose structure does not match the MCP schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} of `{method}` does not match the MCP schema: {detail}")]
pub struct StructureError {
    /// `result`, `params` or `error`.
    pub what: &'static str,
    /// The method concerned.
    pub method: String,
    /// What the typed view reported.
    pub detail: String,
}

/// Strings longer than this many bytes are shortened in the copy a typed view reads: the
/// structure does not depend on their length, and copying megabytes of text into a model
/// type only to drop it costs time and memory. A multiple of 4 keeps base64 valid.
const VIEW_STRING_BYTES: usize = 1024;

fn has_long_string(v: &Value) -> bool {
    match v {
        Value::String(s) => s.len() > VIEW_STRING_BYTES,
        Value::Array(items) => items.iter().any(has_long_string),
        Value::Object(map) => map.values().any(has_long_string),
        _ => false,
    }
}

/// `v` with every long string cut to its first [`VIEW_STRING_BYTES`] (on a char boundary).
fn skeleton(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > VIEW_STRING_BYTES => {
            let mut cut = VIEW_STRING_BYTES;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            Value::String(s[..cut].to_owned())
        }
        Value::Array(items) => Value::Array(items.iter().map(skeleton).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect())
        }
        other => other.clone(),
    }
}

/// Values (nodes) of a `structuredContent` tree up to which the typed view reads it as it
/// is: copying the rest of the result would cost more than copying a tree this small.
const SMALL_TREE_NODES: usize = 64;

/// Whether `v` has more than `budget` values (itself included); stops counting there.
fn has_more_nodes(v: &Value, budget: &mut usize) -> bool {
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    match v {
        Value::Array(items) => items.iter().any(|i| has_more_nodes(i, budget)),
        Value::Object(map) => map.values().any(|i| has_more_nodes(i, budget)),
        _ => false,
    }
}

/// A `tools/call` result whose `structuredContent` has more than [`SMALL_TREE_NODES`]
/// values, with that
/// member replaced by `{}` and long strings of the others cut ([`skeleton`]); `None` when
/// there is no such member. The schema leaves `structuredContent` free (any JSON value,
/// MCP 2025-11-25 "Tools §Structured Content"; it is checked against the tool's
/// `outputSchema` elsewhere), so the typed view only needs it present, and copying a
/// large tree into the model cost as much as parsing it (a 1.5 MB nested value: 178 ms).
fn without_structured_content(result: &Value) -> Option<Value> {
    let map = result.as_object()?;
    if !map
        .member("structuredContent")
        .is_some_and(|s| has_more_nodes(s, &mut SMALL_TREE_NODES.clone()))
    {
        return None;
    }
    Some(Value::Object(
        map.iter()
            .map(|(k, v)| {
                let v = if k == "structuredContent" {
                    Value::Object(serde_json::Map::new())
                } else {
                    skeleton(v)
                };
                (k.clone(), v)
            })
            .collect(),
    ))
}

fn view<T: serde::de::DeserializeOwned>(
    what: &'static str,
    method: &str,
    value: &Value,
) -> Result<(), StructureError> {
    let shortened;
    let value = if has_long_string(value) {
        shortened = skeleton(value);
        &shortened
    } else {
        value
    };
    T::deserialize(value).map(drop).map_err(|e| StructureError {
        what,
        method: method.to_owned(),
        detail: e.to_string(),
    })
}

fn fail(what: &'static str, method: &str, detail: &str) -> StructureError {
    StructureError {
        what,
        method: method.to_owned(),
        detail: detail.to_owned(),
    }
}

/// Checks the `result` of a response to a request of `method` (server → host for host
/// requests, host → server for server requests). Unknown methods pass.
///
/// A 2026-07-28 result with `resultType: "input_required"` is checked as an
/// `InputRequiredResult` (at least one of `inputRequests`/`requestState`).
///
/// # Errors
/// [`StructureError`] naming the method and what does not match.
// Sampling and roots are deprecated in 2026-07-28 (SEP-2577) but live in the legacy era.
#[allow(deprecated)]
pub fn check_result(method: &str, result: &Value) -> Result<(), StructureError> {
    const R: &str = "result";
    if let Some(twin) = twins::in_result(method, result) {
        return Err(fail(R, method, &twin.to_string()));
    }
    if let Some(rt) = result.member("resultType") {
        let rt = rt
            .as_str()
            .ok_or_else(|| fail(R, method, "resultType must be a string"))?;
        if rt == "input_required" {
            if result.member("inputRequests").is_none() && result.member("requestState").is_none() {
                return Err(fail(
                    R,
                    method,
                    "input_required result carries neither inputRequests nor requestState",
                ));
            }
            return view::<model::InputRequiredResult>(R, method, result);
        }
    }
    match method {
        "initialize" => view::<model::InitializeResult>(R, method, result),
        "server/discover" => view::<model::DiscoverResult>(R, method, result),
        "tools/list" => view::<model::ListToolsResult>(R, method, result),
        "tools/call" => {
            if result.member("task").is_some() && result.member("content").is_none() {
                // Task-augmented call (2025-11-25 tasks): a CreateTaskResult.
                return Ok(());
            }
            if !result.member("content").is_some_and(Value::is_array) {
                return Err(fail(R, method, "content must be an array"));
            }
            if let Some(light) = without_structured_content(result) {
                return view::<model::CallToolResult>(R, method, &light);
            }
            view::<model::CallToolResult>(R, method, result)
        }
        "prompts/list" => view::<model::ListPromptsResult>(R, method, result),
        "prompts/get" => view::<model::GetPromptResult>(R, method, result),
        "resources/list" => view::<model::ListResourcesResult>(R, method, result),
        "resources/templates/list" => view::<model::ListResourceTemplatesResult>(R, method, result),
        "resources/read" => view::<model::ReadResourceResult>(R, method, result),
        "completion/complete" => view::<model::CompleteResult>(R, method, result),
        "sampling/createMessage" => view::<model::CreateMessageResult>(R, method, result),
        "elicitation/create" => view::<model::ElicitResult>(R, method, result),
        "roots/list" => view::<model::ListRootsResult>(R, method, result),
        _ => Ok(()),
    }
}

/// Checks the `params` of a request of `method`. Unknown methods pass.
///
/// # Errors
/// [`StructureError`] naming the method and what does not match.
#[allow(deprecated)]
pub fn check_request_params(method: &str, params: Option<&Value>) -> Result<(), StructureError> {
    const P: &str = "params";
    let empty = Value::Object(serde_json::Map::new());
    let params_or_empty = params.unwrap_or(&empty);
    if let Some(twin) = twins::in_params(method, params_or_empty) {
        return Err(fail(P, method, &twin.to_string()));
    }
    match method {
        "initialize" => view::<model::InitializeRequestParams>(P, method, params_or_empty),
        "tools/call" => {
            if !params_or_empty.member("name").is_some_and(Value::is_string) {
                return Err(fail(P, method, "name must be a string"));
            }
            if params_or_empty
                .member("arguments")
                .is_some_and(|a| !a.is_object())
            {
                return Err(fail(P, method, "arguments must be an object"));
            }
            view::<model::CallToolRequestParams>(P, method, params_or_empty)
        }
        "prompts/get" => view::<model::GetPromptRequestParams>(P, method, params_or_empty),
        "resources/read" => view::<model::ReadResourceRequestParams>(P, method, params_or_empty),
        "sampling/createMessage" => {
            view::<model::CreateMessageRequestParams>(P, method, params_or_empty)
        }
        "elicitation/create" => view::<model::ElicitRequestParams>(P, method, params_or_empty),
        _ => Ok(()),
    }
}

/// Checks the `error` object of an error response. Only the elicitations of a
/// `URLElicitationRequiredError` (-32042, MCP 2025-11-25) are MCP objects Bastion reads;
/// they may not hold two members that differ only by case (`url` and `URL`).
///
/// # Errors
/// [`StructureError`] (`what` is `error`) naming `method`, the method of the request
/// the error answers.
pub fn check_error(method: &str, error: &Value) -> Result<(), StructureError> {
    match twins::in_error(error) {
        Some(twin) => Err(fail("error", method, &twin.to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_list_and_call() {
        let ok =
            json!({"tools":[{"name":"echo","inputSchema":{"type":"object"},"unknownField":1}]});
        assert!(check_result("tools/list", &ok).is_ok());
        assert!(
            check_result(
                "tools/list",
                &json!({"tools":[{"inputSchema":{"type":"object"}}]})
            )
            .is_err()
        );
        assert!(check_result("tools/list", &json!({"tools":{}})).is_err());
        assert!(
            check_result(
                "tools/call",
                &json!({"content":[{"type":"text","text":"hi"}]})
            )
            .is_ok()
        );
        assert!(
            check_result("tools/call", &json!({"content":[{"type":"text","text":5}]})).is_err()
        );
        assert!(check_result("tools/call", &json!({"isError":true})).is_err());
        assert!(
            check_result(
                "tools/call",
                &json!({"task":{"taskId":"t","status":"working"}})
            )
            .is_ok()
        );
    }

    #[test]
    fn long_strings_are_checked_by_type_not_copied() {
        let big = "x".repeat(1 << 20);
        assert!(
            check_result(
                "tools/call",
                &json!({"content":[{"type":"text","text": big}]})
            )
            .is_ok()
        );
        let v = json!({"content":[{"type":"text","text": 5}], "note": big});
        assert!(check_result("tools/call", &v).is_err());
        let s = skeleton(&json!({"a": "\u{e9}".repeat(600)}));
        assert!(s["a"].as_str().unwrap().len() <= VIEW_STRING_BYTES);
    }

    #[test]
    fn structured_content_is_read_as_present_not_copied() {
        let mut deep = json!("leaf");
        for _ in 0..40 {
            deep = json!([deep, {"a": 1}]);
        }
        let ok = json!({"content": [], "structuredContent": {"d": deep}});
        assert!(without_structured_content(&ok).is_some());
        assert!(check_result("tools/call", &ok).is_ok());
        // The rest of the result is still viewed: a bad block or flag is refused.
        let bad_block =
            json!({"content": [{"type": "text", "text": 5}], "structuredContent": {"a": 1}});
        assert!(check_result("tools/call", &bad_block).is_err());
        let bad_flag = json!({"content": [], "structuredContent": [1], "isError": "yes"});
        assert!(check_result("tools/call", &bad_flag).is_err());
        let bad_meta = json!({"content": [], "structuredContent": {}, "_meta": 5});
        assert!(check_result("tools/call", &bad_meta).is_err());
        assert!(check_result("tools/call", &json!({"content": [], "_meta": 5})).is_err());
        // A scalar or a small tree is viewed as it is.
        assert!(
            without_structured_content(&json!({"content": [], "structuredContent": 3})).is_none()
        );
        let small = json!({"content": [], "structuredContent": {"a": [1, 2, {"b": 3}]}});
        assert!(without_structured_content(&small).is_none());
        assert!(has_more_nodes(&json!([[1, 2], 3]), &mut 4));
        assert!(!has_more_nodes(&json!([[1, 2], 3]), &mut 5));
    }

    #[test]
    fn input_required() {
        let ir = json!({"resultType":"input_required","requestState":"opaque"});
        assert!(check_result("tools/call", &ir).is_ok());
        assert!(check_result("tools/call", &json!({"resultType":"input_required"})).is_err());
        assert!(check_result("tools/call", &json!({"resultType":7,"content":[]})).is_err());
    }

    #[test]
    fn requests() {
        assert!(
            check_request_params("tools/call", Some(&json!({"name":"x","arguments":{}}))).is_ok()
        );
        assert!(check_request_params("tools/call", Some(&json!({"name":1}))).is_err());
        assert!(
            check_request_params("tools/call", Some(&json!({"name":"x","arguments":[1]}))).is_err()
        );
        assert!(check_request_params("unknown/method", None).is_ok());
        let e = check_request_params("tools/call", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "params of `tools/call` does not match the MCP schema: name must be a string"
        );
    }
}
