//! A reference page of an opened documentation, as HTML or as Markdown: the page lookup (alias and trailing-slash
//! redirects, a missing page), its validator and its rendering on the CPU gate. The HTML routes and the `.md`
//! routes both present through here, from one open view and one loaded head.

use std::sync::Arc;

use axum::http::HeaderMap;
use specpress_domain::model::{TryIt, Version};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{DocView, Loaded, Missing, ReadError};
use specpress_render::history::PageHistory;
use specpress_render::{Lookup, MarkdownContext, PageKind, PageRef};

use crate::DocsState;
use crate::respond::{
    Answer, Chrome, Validator, html_page, missing, moved_permanently, not_modified, origin_from,
    page_error, revalidated, rfc3339_seconds, types,
};

/// The two forms of a reference page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Html,
    Markdown,
}

impl Form {
    fn suffix(self) -> &'static str {
        match self {
            Form::Html => "",
            Form::Markdown => ".md",
        }
    }
}

/// The page at `path` of a site, or the answer already due (a redirect to its canonical path, a 404 page).
// The error is the answer itself, made once per request: boxing it would only add an allocation.
#[allow(clippy::result_large_err)]
pub fn lookup(
    st: &DocsState,
    loaded: &Loaded,
    base: &str,
    path: &str,
    form: Form,
) -> Result<PageRef, axum::response::Response> {
    match loaded.site.lookup(path) {
        Lookup::Page(p) => Ok(p),
        Lookup::Redirect(to) => {
            let target = if to.is_empty() {
                format!("{base}{}", form.suffix())
            } else {
                format!("{base}/{to}{}", form.suffix())
            };
            Err(moved_permanently(&target))
        }
        Lookup::NotFound => Err(missing(st, Missing::Page)),
    }
}

/// A page of the head of `view`, already loaded, in `form`.
pub async fn present(
    st: &DocsState,
    headers: &HeaderMap,
    view: &DocView,
    head: (Arc<Loaded>, Version),
    page: &str,
    form: Form,
) -> Answer {
    let (loaded, version) = head;
    let page_ref = lookup(st, &loaded, &view.base, page, form)?;
    // The validator: the version, the page, and everything else the page shows (name, branches), for this build.
    let mut v = Validator::of_view(view).add(version.id.to_string());
    if form == Form::Markdown {
        v = v.add("md\0");
    }
    // The HTML home page shows the MCP client configuration, on the request's public origin.
    let origin = (form == Form::Html && loaded.site.info(page_ref).kind == PageKind::Home)
        .then(|| origin_from(st, headers));
    if let Some(o) = &origin {
        v = v.add("origin\0").add(o);
    }
    // An operation, schema or channel page shows its history, from the branch's index (read once per head).
    let subject = (form == Form::Html)
        .then(|| loaded.site.history_subject(&loaded.doc, &page_ref))
        .flatten();
    let history = match &subject {
        Some(s) => {
            let index = st
                .library
                .branch_history(view, &version)
                .await
                .map_err(|e| page_error(st, e))?;
            // An index left incomplete (releases still to digest) shows less than a later one: another validator.
            v = v.add(if index.complete { "h\0" } else { "h-\0" });
            Some(crate::history::page_history(view, &index, s))
        }
        None => None,
    };
    let csp = (form == Form::Html)
        .then(|| page_csp(view, &loaded, page_ref))
        .flatten();
    let etag = v
        .add("try\0")
        .add(view.doc.try_it.as_str())
        .add(page)
        .etag();
    if let Some(r) = not_modified(headers, &etag) {
        return Ok(with_csp(r, csp));
    }
    let answer = render(
        st,
        view,
        (loaded, version),
        page_ref,
        form,
        (origin, history),
        &etag,
    )
    .await?;
    Ok(with_csp(answer, csp))
}

/// The Content-Security-Policy of an operation page of a `direct` documentation: the pages' own, with the origins
/// of the document's servers in `connect-src`, so the reader's browser may send the operation's request
/// (docs/try-it.md). `None` for every other page, which keeps [`crate::headers::CSP`].
fn page_csp(view: &DocView, loaded: &Loaded, page: PageRef) -> Option<String> {
    let operation = loaded.site.info(page).kind == PageKind::Operation;
    (operation && view.doc.try_it == TryIt::Direct).then(|| {
        crate::try_it::origins::csp_with_connect(&crate::try_it::origins::server_origins(
            loaded.doc.model(),
        ))
    })
}

/// `resp` with its own Content-Security-Policy when one is given (also on a 304: a cache updates the stored
/// headers with the revalidation's).
fn with_csp(mut resp: axum::response::Response, csp: Option<String>) -> axum::response::Response {
    if let Some(v) = csp.and_then(|c| axum::http::HeaderValue::from_str(&c).ok()) {
        resp.headers_mut()
            .insert(axum::http::header::CONTENT_SECURITY_POLICY, v);
    }
    resp
}

/// The page in `form`, rendered on the CPU gate.
async fn render(
    st: &DocsState,
    view: &DocView,
    (loaded, version): (Arc<Loaded>, Version),
    page_ref: PageRef,
    form: Form,
    (origin, history): (Option<String>, Option<PageHistory>),
    etag: &str,
) -> Answer {
    match form {
        Form::Html => {
            let mut chrome = Chrome::of_view(st, view, Some(&version));
            if let Some(o) = &origin {
                chrome.mcp = chrome.mcp.map(|m| m.on(o));
            }
            let html = CpuGate::shared()
                .run(move || {
                    chrome.with(|ctx| {
                        loaded
                            .site
                            .render_with_history(&loaded.doc, &page_ref, ctx, history.as_ref())
                            .html
                    })
                })
                .await
                .map_err(|e| page_error(st, ReadError::Failed(e)))?;
            Ok(html_page(html, etag))
        }
        Form::Markdown => {
            let text = markdown(loaded, page_ref, view.base.clone(), view, &version)
                .await
                .map_err(|e| page_error(st, ReadError::Failed(e)))?;
            Ok(revalidated(types::MARKDOWN, text, etag))
        }
    }
}

/// A page of `view`'s head as Markdown, its links on `base` (the `.md` routes: the documentation's path; the MCP
/// tools: its absolute URL), rendered on the CPU gate.
pub async fn markdown(
    loaded: Arc<Loaded>,
    page: PageRef,
    base: String,
    view: &DocView,
    version: &Version,
) -> Result<String, specpress_domain::DomainError> {
    let name = view.doc.name.clone();
    let api_version = version.analysis.api_version.clone();
    let published = rfc3339_seconds(version.created_at);
    CpuGate::shared()
        .run(move || {
            loaded.site.render_markdown(
                &loaded.doc,
                &page,
                &MarkdownContext {
                    base: &base,
                    doc_name: &name,
                    version: Some((&api_version, &published)),
                    mcp: None,
                },
            )
        })
        .await
}

/// A page of `view`'s head in `form`: loads the head (from the cache), then [`present`].
pub async fn page(
    st: &DocsState,
    headers: &HeaderMap,
    view: &DocView,
    page: &str,
    form: Form,
) -> Answer {
    let head = st
        .library
        .load_head(view)
        .await
        .map_err(|e| page_error(st, e))?;
    present(st, headers, view, head, page, form).await
}
