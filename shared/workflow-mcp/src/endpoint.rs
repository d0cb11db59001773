//! `POST /mcp/{server}`: the client's limit, then its credential, then what the credential opens, then the SDK.
//! Every refusal is JSON (the MCP kit's).

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use specpress_api::auth::CredentialLimit;
use specpress_api::readers::too_many_json;
use specpress_mcp::answer::refusal;
use tracing::instrument;

use crate::WorkflowState;
use crate::tools::Scope;

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

/// The MCP endpoint of a workflow MCP server.
#[instrument(skip_all)]
pub async fn mcp(
    State(st): State<WorkflowState>,
    Path(key): Path<String>,
    req: Request,
) -> Response {
    if let Err(refused) = st.limit.check(&req) {
        return refused;
    }
    // The failed-credential limit (specpress_api::auth): a guessable credential is refused before it is checked
    // once the client's budget is spent; a token in the minted format never is.
    let limit = CredentialLimit::of(&st.app, req.extensions());
    let presented = req.headers().contains_key(header::AUTHORIZATION);
    let token = specpress_api::auth::presented_token(req.headers());
    if presented && let Err(retry) = limit.admit(token.as_deref()) {
        return too_many_json(
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
    let scope = Scope {
        set: opened.set,
        secrets: opened.secrets,
        client: st.client.clone(),
        budget: st.budget.clone(),
    };
    specpress_mcp::serve(&st.mcp, scope, req).await
}
