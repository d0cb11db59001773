//! Embed mode (issue 40): a page asked with `?embed=1` is meant to be shown inside a frame of the owner's own site.
//!
//! - It is rendered without the site's header and sidebar (the shell's `<header class="top">` and its
//!   `<nav class="side">`, both fixed markup of the shell around escaped text), full width.
//! - Its links and forms keep `embed=1` (every root-relative `href` and `action` but the static assets, a hidden
//!   field in each form, and a redirect's `Location`), so a reader stays in embed mode inside the frame.
//! - Its `Content-Security-Policy` lists exactly the documentation's (or hub's) `embed_origins` in
//!   `frame-ancestors` (`'none'` when it has none, as every other page), and `X-Frame-Options: DENY` is left out
//!   when there are origins (it cannot name several; browsers that know `frame-ancestors` follow it). The origins
//!   are only given on an answer the reader may see (2xx, 3xx): a 404 of a private documentation stays `'none'`.
//! - A session started in embed mode (a sign-in posted from a framed page) gets a cookie a framed page can send:
//!   `SameSite=None; Secure` instead of `SameSite=Lax`. Outside embed mode sessions are unchanged.
//!
//! Pages outside embed mode are untouched.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use specpress_domain::embed::EmbedOrigins;
use specpress_domain::model::{DocId, DocOrHub, Slug};
use specpress_domain::ports::Store;

use std::sync::Arc;

/// The query pair that asks for embed mode.
const EMBED_PAIR: &str = "embed=1";
/// Largest page rewritten (pages are far smaller; anything larger is answered as it is).
const MAX_PAGE_BYTES: usize = 16 * 1024 * 1024;

/// Whether a query asks for embed mode.
pub fn wants_embed(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|p| p == EMBED_PAIR))
}

/// The middleware (inside the security headers, which then keep what it set).
pub async fn embed(State(store): State<Arc<dyn Store>>, req: Request, next: Next) -> Response {
    if !wants_embed(req.uri().query()) {
        return next.run(req).await;
    }
    let subject = subject_path(req.uri().path(), req.uri().query());
    let resp = next.run(req).await;
    let origins = if resp.status().is_success() || resp.status().is_redirection() {
        match subject {
            Some(path) => origins_of(&*store, &path).await,
            None => EmbedOrigins::default(),
        }
    } else {
        EmbedOrigins::default()
    };
    embedded(resp, &origins).await
}

/// The path whose documentation or hub a request is about: its own, or the sign-in page's `next`.
fn subject_path(path: &str, query: Option<&str>) -> Option<String> {
    if path == crate::request::SIGN_IN_PATH {
        return query.and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "next")
                .map(|(_, v)| v.split('?').next().unwrap_or_default().to_owned())
        });
    }
    Some(path.to_owned())
}

/// The embed origins of the documentation or hub a site path names (none when it names neither, or when it is
/// unknown).
async fn origins_of(store: &dyn Store, path: &str) -> EmbedOrigins {
    let key_of = |rest: &str| {
        let end = rest.find(['/', '.']).unwrap_or(rest.len());
        rest[..end].to_owned()
    };
    let found = if let Some(rest) = path.strip_prefix("/doc/") {
        let key = key_of(rest);
        let doc = match DocId::parse(&key) {
            Some(id) => store.get_doc_public(id).await,
            None => match Slug::parse(&key) {
                Ok(slug) => store.doc_by_public_slug(&slug).await,
                Err(_) => Ok(None),
            },
        };
        doc.ok().flatten().map(|d| (d.org_id, DocOrHub::Doc(d.id)))
    } else if let Some(rest) = path.strip_prefix("/hub/") {
        match Slug::parse(&key_of(rest)) {
            Ok(slug) => store
                .hub_by_public_slug(&slug)
                .await
                .ok()
                .flatten()
                .map(|h| (h.org_id, DocOrHub::Hub(h.id))),
            Err(_) => None,
        }
    } else {
        None
    };
    let Some((org, of)) = found else {
        return EmbedOrigins::default();
    };
    match store.reader_settings(org, of).await {
        Ok(Some(s)) => s.embed_origins,
        Ok(None) => EmbedOrigins::default(),
        Err(e) => {
            tracing::warn!(error = %e, "embed origins unavailable: framing refused");
            EmbedOrigins::default()
        }
    }
}

/// The answer in embed mode: headers, cookie, redirect and page.
async fn embedded(resp: Response, origins: &EmbedOrigins) -> Response {
    let (mut parts, body) = resp.into_parts();
    frame_headers(&mut parts.headers, origins);
    embed_cookie(&mut parts.headers);
    if let Some(loc) = parts
        .headers
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .filter(|l| l.starts_with('/') && !l.starts_with("//"))
        .map(|l| with_embed(l, "&"))
        && let Ok(v) = HeaderValue::from_str(&loc)
    {
        parts.headers.insert(header::LOCATION, v);
    }
    let html = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    if !html || parts.status == StatusCode::NOT_MODIFIED {
        return Response::from_parts(parts, body);
    }
    let bytes = match axum::body::to_bytes(body, MAX_PAGE_BYTES).await {
        Ok(b) => b,
        Err(_) => return Response::from_parts(parts, Body::empty()),
    };
    let page = match std::str::from_utf8(&bytes) {
        Ok(text) => embed_page(text),
        Err(_) => return Response::from_parts(parts, Body::from(bytes)),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page))
}

/// `frame-ancestors` naming the origins (the page's own policy kept otherwise), and no `X-Frame-Options: DENY`
/// when there are origins.
fn frame_headers(h: &mut HeaderMap, origins: &EmbedOrigins) {
    let csp = h
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
        .unwrap_or(crate::assets::CSP)
        .to_owned();
    let framed = frame_ancestors(&csp, origins);
    if let Ok(v) = HeaderValue::from_str(&framed) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    if origins.is_empty() {
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    } else {
        h.remove(header::X_FRAME_OPTIONS);
    }
}

/// `csp` with its `frame-ancestors` directive naming `origins` (added when it has none).
pub fn frame_ancestors(csp: &str, origins: &EmbedOrigins) -> String {
    let wanted = format!("frame-ancestors {}", origins.frame_ancestors());
    let mut found = false;
    let mut directives: Vec<String> = csp
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            if d.split_whitespace().next() == Some("frame-ancestors") {
                found = true;
                wanted.clone()
            } else {
                d.to_owned()
            }
        })
        .collect();
    if !found {
        directives.push(wanted);
    }
    directives.join("; ")
}

/// A session cookie set in embed mode: `SameSite=None; Secure`, so the framed pages can send it.
fn embed_cookie(h: &mut HeaderMap) {
    let cookies: Vec<HeaderValue> = h.get_all(header::SET_COOKIE).iter().cloned().collect();
    if cookies.is_empty() {
        return;
    }
    h.remove(header::SET_COOKIE);
    for c in cookies {
        let changed = c.to_str().ok().map(|text| {
            let mut out = text.replace("SameSite=Lax", "SameSite=None");
            if !out
                .split(';')
                .any(|a| a.trim().eq_ignore_ascii_case("secure"))
            {
                out.push_str("; Secure");
            }
            out
        });
        match changed.and_then(|t| HeaderValue::from_str(&t).ok()) {
            Some(v) => h.append(header::SET_COOKIE, v),
            None => h.append(header::SET_COOKIE, c),
        };
    }
}

/// A site path with `embed=1` added to its query (before any fragment); `amp` joins it to an existing query (`&`
/// in a header, `&amp;` in HTML).
fn with_embed(link: &str, amp: &str) -> String {
    let (path, fragment) = match link.find('#') {
        Some(i) => link.split_at(i),
        None => (link, ""),
    };
    let query = path.split_once('?').map(|(_, q)| q);
    if wants_embed(query.map(|q| q.replace("&amp;", "&")).as_deref()) {
        return link.to_owned();
    }
    let sep = if query.is_some() { amp } else { "?" };
    format!("{path}{sep}{EMBED_PAIR}{fragment}")
}

/// The page without the shell's header and sidebar, its links and forms keeping `embed=1`.
pub fn embed_page(html: &str) -> String {
    let mut page = cut(html, "<header class=\"top\">", "</header>\n");
    page = cut(&page, "<nav id=\"nav\" class=\"side\"", "</nav>\n");
    page = page.replacen("<div class=\"wrap\">", "<div class=\"wrap full\">", 1);
    let page = keep_embed(&page, "href=\"");
    let page = keep_embed(&page, "action=\"");
    add_form_field(&page)
}

/// `html` without the first `start` and what follows it up to and including the first `end` after it.
fn cut(html: &str, start: &str, end: &str) -> String {
    let Some(from) = html.find(start) else {
        return html.to_owned();
    };
    let Some(len) = html[from..].find(end) else {
        return html.to_owned();
    };
    format!("{}{}", &html[..from], &html[from + len + end.len()..])
}

/// Every root-relative value of the attribute opened by `attr` (`href="`) with `embed=1`, but the static assets'.
fn keep_embed(html: &str, attr: &str) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 20);
    let mut rest = html;
    while let Some(i) = rest.find(attr) {
        let start = i + attr.len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let Some(end) = rest.find('"') else { break };
        let value = &rest[..end];
        if value.starts_with('/')
            && !value.starts_with("//")
            && !value.starts_with(crate::assets::STATIC_PREFIX)
        {
            out.push_str(&with_embed(value, "&amp;"));
        } else {
            out.push_str(value);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A hidden `embed=1` field in every form (a `GET` form's action loses its query).
fn add_form_field(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(i) = rest.find("<form ") {
        let Some(close) = rest[i..].find('>') else {
            break;
        };
        let end = i + close + 1;
        out.push_str(&rest[..end]);
        out.push_str("<input type=\"hidden\" name=\"embed\" value=\"1\">");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_pair_asks_for_embed_mode() {
        assert!(wants_embed(Some("embed=1")));
        assert!(wants_embed(Some("q=a&embed=1")));
        assert!(!wants_embed(Some("embed=0")));
        assert!(!wants_embed(Some("xembed=1")));
        assert!(!wants_embed(None));
    }

    #[test]
    fn links_keep_embed_mode_and_the_shell_loses_its_header_and_sidebar() {
        let html = "<head><link rel=\"stylesheet\" href=\"/static/site.css\"></head><body>\
            <header class=\"top\"><a href=\"/doc/p\">P</a></header>\n<div class=\"wrap\">\
            <nav id=\"nav\" class=\"side\" aria-label=\"API reference\">\n<a href=\"/doc/p/x\">x</a></nav>\n\
            <main id=\"main\"><a href=\"/doc/p/changes?page=2#top\">c</a> <a href=\"#frag\">f</a> \
            <a href=\"https://example.com/\">e</a><form class=\"search\" method=\"get\" action=\"/doc/p/search\">\
            </form></main></div></body>";
        let out = embed_page(html);
        assert!(
            !out.contains("<header") && !out.contains("class=\"side\""),
            "{out}"
        );
        assert!(out.contains("<div class=\"wrap full\">"));
        assert!(out.contains("href=\"/static/site.css\""));
        assert!(
            out.contains("href=\"/doc/p/changes?page=2&amp;embed=1#top\""),
            "{out}"
        );
        assert!(out.contains("href=\"#frag\"") && out.contains("href=\"https://example.com/\""));
        assert!(out.contains(
            "action=\"/doc/p/search?embed=1\"><input type=\"hidden\" name=\"embed\" value=\"1\">"
        ));
    }

    #[test]
    fn frame_ancestors_names_exactly_the_origins() {
        let origins = EmbedOrigins::parse(
            "embed_origins",
            &["https://a.example".into(), "https://b.example:8443".into()],
        )
        .unwrap();
        let csp = frame_ancestors(crate::assets::CSP, &origins);
        assert!(
            csp.ends_with("frame-ancestors https://a.example https://b.example:8443"),
            "{csp}"
        );
        assert_eq!(csp.matches("frame-ancestors").count(), 1);
        assert!(
            frame_ancestors("default-src 'none'", &EmbedOrigins::default())
                .ends_with("; frame-ancestors 'none'")
        );
        let mut h = HeaderMap::new();
        frame_headers(&mut h, &origins);
        assert!(h.get(header::X_FRAME_OPTIONS).is_none());
        frame_headers(&mut h, &EmbedOrigins::default());
        assert_eq!(h.get(header::X_FRAME_OPTIONS).unwrap(), "DENY");
    }

    #[test]
    fn embed_sessions_are_sent_from_frames_and_redirects_stay_embedded() {
        let mut h = HeaderMap::new();
        h.append(
            header::SET_COOKIE,
            HeaderValue::from_static("sp_session=x; Path=/; HttpOnly; SameSite=Lax"),
        );
        embed_cookie(&mut h);
        assert_eq!(
            h.get(header::SET_COOKIE).unwrap(),
            "sp_session=x; Path=/; HttpOnly; SameSite=None; Secure"
        );
        assert_eq!(with_embed("/doc/p?x=1", "&"), "/doc/p?x=1&embed=1");
        assert_eq!(with_embed("/doc/p?embed=1", "&"), "/doc/p?embed=1");
    }
}
