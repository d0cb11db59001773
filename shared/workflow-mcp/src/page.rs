//! `GET /mcp/{server}`: the page of a workflow MCP server (its tools, their inputs and outputs, the client
//! configuration), rendered by `specpress_render::workflows`. It shows what the deployed document says, never a
//! secret or a token. An unknown server is a 404 page; so is a private server to anyone without its token or the
//! organization's (`Authorization`), whose credential is checked under the failed-credential limit.

use axum::extract::{Path, State};
use axum::http::{Extensions, HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use specpress_api::auth::{CredentialLimit, presented_token};
use specpress_render::workflows::{DeployedWorkflows, WorkflowServerPage, workflow_server_page};
use specpress_render::{Html, escape, neutral_owned, site_page};
use time::format_description::well_known::Rfc3339;

use crate::WorkflowState;

fn html(status: StatusCode, body: String) -> Response {
    let mut resp = (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        neutral_owned(body),
    )
        .into_response();
    specpress_api::security::add_security_headers(
        resp.headers_mut(),
        specpress_api::security::PAGE_CSP,
    );
    resp
}

fn message(st: &WorkflowState, status: StatusCode, title: &str, text: &str) -> Response {
    let body = Html::trusted(format!("<h1>{}</h1><p>{}</p>", escape(title), escape(text)));
    html(status, site_page(&st.assets, title, &body, None))
}

/// The page.
pub async fn page(
    State(st): State<WorkflowState>,
    Path(key): Path<String>,
    headers: HeaderMap,
    extensions: Extensions,
) -> Response {
    let credential = headers
        .contains_key(header::AUTHORIZATION)
        .then(|| presented_token(&headers));
    let limit = CredentialLimit::of(&st.app, &extensions);
    if let Some(token) = &credential
        && let Err(retry) = limit.admit(token.as_deref())
    {
        let mut resp = message(
            &st,
            StatusCode::TOO_MANY_REQUESTS,
            "Too many attempts",
            "Too many tokens that are not valid came from your network. Try again later.",
        );
        specpress_api::limit::set_retry_after(&mut resp, retry);
        return resp;
    }
    let found = match crate::open::public(&st, &key, credential.clone().flatten().as_deref()).await
    {
        Ok(Ok(found)) => found,
        Ok(Err(credential_failed)) => {
            if let Some(token) = &credential
                && (credential_failed || token.is_none())
            {
                limit.failed(token.as_deref());
            }
            return message(
                &st,
                StatusCode::NOT_FOUND,
                "MCP server not found",
                "There is no MCP server at this address.",
            );
        }
        Err(()) => {
            return message(
                &st,
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "This page could not be shown. Try again in a moment.",
            );
        }
    };
    let (server, current) = found;
    let slug = server.slug.to_string();
    let href = format!("/mcp/{slug}");
    let origin = specpress_api::urls::public_base(&st.app.config, &headers);
    let endpoint = format!("{}{href}", origin.trim_end_matches('/'));
    let version_id;
    let deployed_at;
    let deployed = match &current {
        Some((version, set)) => {
            version_id = version.id.to_string();
            deployed_at = version.created_at.format(&Rfc3339).unwrap_or_default();
            Some(DeployedWorkflows {
                version_id: &version_id,
                deployed_at: &deployed_at,
                set,
            })
        }
        None => None,
    };
    let page = workflow_server_page(&WorkflowServerPage {
        assets: &st.assets,
        href: &href,
        name: &server.name,
        description: server.description.as_deref(),
        slug: &slug,
        endpoint: &endpoint,
        token: true,
        deployed,
    });
    html(StatusCode::OK, page)
}
