//! `GET /mcp/{server}`: the public page of a workflow MCP server (its tools, their inputs and outputs, the client
//! configuration), rendered by `specpress_render::workflows`. Public like documentation pages: it shows what the
//! deployed document says, never a secret or a token. An unknown server is a 404 page.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
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
) -> Response {
    let found = match crate::open::public(&st, &key).await {
        Ok(Some(found)) => found,
        Ok(None) => {
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
