//! `POST /mcp/{server}`: the client's limit, then its credential, then what the credential opens, then the SDK.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use specpress_api::auth::CredentialLimit;
use tower::ServiceExt;
use tracing::instrument;

use crate::WorkflowState;
use crate::tools::Scope;

fn refusal(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "message": message }))).into_response()
}

/// The one answer to a missing or wrong credential, and to a server that does not exist.
fn unauthorized() -> Response {
    let mut resp = refusal(
        StatusCode::UNAUTHORIZED,
        "This MCP server needs a valid token: the organization's or the server's own, sent as \
         `Authorization: Bearer <token>`.",
    );
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"specpress\""),
    );
    resp
}

fn too_many(retry: std::time::Duration, what: &str) -> Response {
    let mut resp = refusal(StatusCode::TOO_MANY_REQUESTS, what);
    specpress_api::limit::set_retry_after(&mut resp, retry);
    resp
}

/// The MCP endpoint of a workflow MCP server.
#[instrument(skip_all)]
pub async fn mcp(
    State(st): State<WorkflowState>,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    let client = specpress_api::limit::client_of(req.extensions());
    if let Some(limiter) = &st.limit
        && let Err(retry) = limiter.check(&client)
    {
        return too_many(
            retry,
            "Too many requests to this MCP server; retry after the time in Retry-After.",
        );
    }
    // The failed-credential limit (specpress_api::auth): a guessable credential is refused before it is checked
    // once the client's budget is spent; a token in the minted format never is.
    let limit = CredentialLimit::of(&st.app, req.extensions());
    let presented = req.headers().contains_key(header::AUTHORIZATION);
    let token = specpress_api::auth::presented_token(req.headers());
    if presented && let Err(retry) = limit.admit(token.as_deref()) {
        return too_many(
            retry,
            "Too many failed credential checks from this client; retry after the time in Retry-After.",
        );
    }
    let Some(token) = token else {
        if presented {
            limit.failed(None);
        }
        return unauthorized();
    };
    let opened = match crate::open::runtime(&st, &key, &token).await {
        Ok(Some(o)) => o,
        Ok(None) => {
            limit.failed(Some(&token));
            return unauthorized();
        }
        Err(()) => {
            return refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The MCP server could not be opened; try again.",
            );
        }
    };
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(Scope {
        set: opened.set,
        secrets: opened.secrets,
        client: st.client.clone(),
        budget: st.budget.clone(),
    });
    match st
        .mcp
        .as_ref()
        .clone()
        .oneshot(Request::from_parts(parts, body))
        .await
    {
        Ok(resp) => resp.map(axum::body::Body::new),
        Err(never) => match never {},
    }
}
