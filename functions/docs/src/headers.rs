//! What every public response carries, the static assets, and the HTML error pages.
//!
//! The security headers every answer of every function carries come from `specpress_api::security` (the common
//! layers); the public pages only put their own Content-Security-Policy first ([`CSP`]).

use axum::extract::{Path, Request};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Where the pages find their stylesheet and script.
pub const STATIC_PREFIX: &str = "/static";

/// The Content-Security-Policy of every public page ([`specpress_api::security::PAGE_CSP`]).
pub const CSP: &str = specpress_api::security::PAGE_CSP;

/// Adds the security headers to every public response, with the pages' [`CSP`] (the router alone, as tests mount
/// it, carries them too; the common layers then find them set).
pub async fn public_headers(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    specpress_api::security::add_security_headers(resp.headers_mut(), CSP);
    resp
}

/// `GET /static/{file}`: an embedded asset, cached for a year (its name changes with its content).
pub async fn asset(Path(file): Path<String>) -> Response {
    match specpress_render::assets().iter().find(|a| a.name == file) {
        Some(a) => (
            [
                (header::CONTENT_TYPE, a.content_type),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            a.bytes,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A page of the site's own (not of a documentation) in the site shell, never indexed: error pages, the sign-in page.
pub fn shell(
    assets: &specpress_render::AssetUrls,
    title: &str,
    body: &specpress_render::Html,
) -> String {
    specpress_render::site_page(assets, title, body, crate::request::session_href())
}

/// An HTML error page in the site's shell (the reader may be a person): the status, a title and a sentence. A 404
/// page also offers to sign in (private documentation answers a reader who may not see it with this same page).
pub fn error_page(
    assets: &specpress_render::AssetUrls,
    status: StatusCode,
    title: &str,
    message: &str,
) -> Response {
    let mut markup = format!(
        "<h1>{}</h1><p>{}</p>",
        specpress_render::escape(title),
        specpress_render::escape(message)
    );
    if status == StatusCode::NOT_FOUND {
        markup.push_str(&format!(
            "<p>If it is private documentation, <a href=\"{}\">sign in</a> with a token that reaches it.</p>",
            specpress_render::escape(&crate::request::sign_in_href())
        ));
    }
    let html = shell(assets, title, &specpress_render::Html::trusted(markup));
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}
