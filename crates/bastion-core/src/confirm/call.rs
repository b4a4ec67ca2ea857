//! The `tools/call` being decided, read from its `params` (MCP 2025-11-25
//! `CallToolRequest`): the tool name and the arguments, copied or moved out of the
//! parsed request.

use crate::json::Member;
use serde_json::{Map, Value};

/// A `tools/call` request's `params`, the part the decision and digest look at.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// `params.name`.
    pub name: String,
    /// `params.arguments` (absent is kept apart from `{}` for the digest).
    pub arguments: Option<Map<String, Value>>,
}

/// Why `params` is not a `tools/call` params object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// Not an object with a string `name`.
    #[error("tools/call params must be an object with a string `name`")]
    NoName,
    /// `arguments` present but not an object.
    #[error("tools/call `arguments` must be an object (MCP CallToolRequest)")]
    ArgumentsNotObject,
}

impl ToolCall {
    /// Reads `params` of a `tools/call` request (MCP 2025-11-25 `CallToolRequest`).
    ///
    /// # Errors
    /// [`CallError`] when `name` is missing or `arguments` is not an object.
    pub fn from_params(params: &Value) -> Result<Self, CallError> {
        let mut call = Self::from_params_without_arguments(params)?;
        call.arguments = params
            .member("arguments")
            .and_then(Value::as_object)
            .cloned();
        Ok(call)
    }

    /// [`ToolCall::from_params`] that moves `arguments` out of `params` instead of
    /// copying them: `params.arguments` is then `{}`, in its place among the members, until
    /// [`ToolCall::restore_arguments`] puts the arguments back. A large argument (a file's
    /// content) is not copied for a call the policy lets through.
    ///
    /// # Errors
    /// [`CallError`] as [`ToolCall::from_params`]; `params` is left unchanged then.
    pub fn take_from_params(params: &mut Value) -> Result<Self, CallError> {
        let mut call = Self::from_params_without_arguments(params)?;
        if let Some(Value::Object(m)) = params.as_object_mut().and_then(|p| p.get_mut("arguments"))
        {
            call.arguments = Some(std::mem::take(m));
        }
        Ok(call)
    }

    /// Puts a copy of this call's arguments back into `params` (the `params` it was
    /// taken from with [`ToolCall::take_from_params`]), so that `params` is again what
    /// the host sent.
    pub fn restore_arguments(&self, params: &mut Value) {
        if let Some(arguments) = &self.arguments
            && let Some(slot) = params.as_object_mut().and_then(|p| p.get_mut("arguments"))
        {
            *slot = Value::Object(arguments.clone());
        }
    }

    /// `name`, with `arguments` checked (absent or an object) but not read.
    fn from_params_without_arguments(params: &Value) -> Result<Self, CallError> {
        let name = params
            .member("name")
            .and_then(Value::as_str)
            .ok_or(CallError::NoName)?
            .to_owned();
        match params.member("arguments") {
            None | Some(Value::Object(_)) => Ok(Self {
                name,
                arguments: None,
            }),
            Some(_) => Err(CallError::ArgumentsNotObject),
        }
    }
}
