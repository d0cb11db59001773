//! The site's own: its static assets (`GET /static/{file}`), the headers of every public answer, its shell and its
//! error pages.
//!
//! The security headers every answer of every function carries come from `specpress_api::security` (the common
//! layers); the public routes put the pages' Content-Security-Policy ([`CSP`]) first
//! (`specpress_api::readers::public_headers`).

use std::sync::{Arc, LazyLock};

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use specpress_render::AssetUrls;

/// Where the pages find their stylesheet and script.
pub const STATIC_PREFIX: &str = "/static";

/// The Content-Security-Policy of every public page ([`specpress_api::security::PAGE_CSP`]).
pub const CSP: &str = specpress_api::security::PAGE_CSP;

/// The URLs of the embedded assets (content-hashed names under [`STATIC_PREFIX`]): the same for the whole process,
/// so one handle serves every page and every error page.
pub fn urls() -> Arc<AssetUrls> {
    static URLS: LazyLock<Arc<AssetUrls>> =
        LazyLock::new(|| Arc::new(specpress_render::asset_urls(STATIC_PREFIX)));
    URLS.clone()
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
pub fn shell(title: &str, body: &specpress_render::Html) -> String {
    specpress_render::site_page(&urls(), title, body, crate::request::session_href())
}

/// An HTML error page in the site's shell (the reader may be a person): the status, a title and a sentence. A 404
/// page also offers to sign in (private documentation answers a reader who may not see it with this same page).
pub fn error_page(status: StatusCode, title: &str, message: &str) -> Response {
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
    let html = shell(title, &specpress_render::Html::trusted(markup));
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
