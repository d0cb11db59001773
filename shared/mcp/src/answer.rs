//! How MCP routes refuse and how tools fail: one place for both servers.
//!
//! Every HTTP refusal of an MCP route (an unknown documentation, a missing credential, a client over its limit)
//! is JSON in the API's error shape, `{"message"}`, never an HTML page: an MCP client reads JSON. A 429 carries
//! `Retry-After`.
//!
//! A tool call that fails is either a tool error result (`isError`: arguments the tool cannot act on, so that the
//! model can correct its call, as the protocol asks for input errors and as the SDK answers malformed arguments) or
//! a JSON-RPC error (what was asked for does not exist, an internal failure): [`Fail`].

use std::borrow::Cow;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rmcp::ErrorData;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde_json::json;

/// What a client over its request limit reads.
pub const TOO_MANY_REQUESTS: &str =
    "Too many requests to this MCP server; retry after the time in Retry-After.";

/// A refusal in the API's error shape: `status` with `{"message": message}`.
pub fn refusal(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "message": message }))).into_response()
}

/// The 429 of a client over its request limit, with `Retry-After`.
pub fn too_many_requests(retry: Duration) -> Response {
    specpress_api::readers::too_many_json(retry, TOO_MANY_REQUESTS)
}

/// Why a tool call failed (see the module documentation).
#[derive(Debug)]
pub enum Fail {
    /// Arguments the tool cannot act on: a tool error result with this text.
    Arguments(String),
    /// A JSON-RPC error.
    Rpc(ErrorData),
}

impl From<ErrorData> for Fail {
    fn from(e: ErrorData) -> Self {
        Fail::Rpc(e)
    }
}

impl IntoCallToolResult for Fail {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        match self {
            Fail::Arguments(m) => Ok(tool_error(m)),
            Fail::Rpc(e) => Err(e),
        }
    }
}

/// A tool error result (`isError`) with `message` as its text.
pub fn tool_error(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message.into())]).into()
}

/// Arguments the tool cannot act on.
pub fn bad(message: impl Into<String>) -> Fail {
    Fail::Arguments(message.into())
}

/// What was asked for does not exist (JSON-RPC `-32002`, resource not found, naming what was asked).
pub fn not_found(message: impl Into<Cow<'static, str>>) -> Fail {
    Fail::Rpc(ErrorData::resource_not_found(message, None))
}

/// An internal failure (JSON-RPC `-32603`; details only in the log, written by the caller).
pub fn internal() -> Fail {
    Fail::Rpc(ErrorData::internal_error("internal error", None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_and_a_429_are_json_in_the_api_s_shape() {
        let r = refusal(StatusCode::NOT_FOUND, "Documentation does not exist");
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            r.headers()["content-type"].to_str().ok(),
            Some("application/json")
        );
        let r = too_many_requests(Duration::from_secs(3));
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(r.headers()["retry-after"], "3");
        assert_eq!(
            r.headers()["content-type"].to_str().ok(),
            Some("application/json")
        );
    }

    #[test]
    fn arguments_fail_as_a_tool_error_and_the_rest_as_a_json_rpc_error() {
        let r = bad("`query` is empty").into_call_tool_result();
        assert!(r.is_ok());
        let r = not_found("no such page").into_call_tool_result();
        assert!(r.is_err_and(|e| e.code.0 == -32002));
        let r = internal().into_call_tool_result();
        assert!(r.is_err_and(|e| e.code.0 == -32603));
    }
}
