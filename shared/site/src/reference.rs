//! A reference page of an opened documentation, as HTML or as Markdown: the page lookup (alias and trailing-slash
//! redirects, a missing page), its validator and its rendering on the CPU gate. The HTML routes and the `.md`
//! routes both present through here, from one open view and one loaded head.

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use specpress_api::ApiConfig;
use specpress_domain::model::{TryIt, Version};
use specpress_engines::cpu::CpuGate;
use specpress_reader::{DocView, Library, Loaded, Missing};
use specpress_render::history::{HistoryKind, PageHistory};
use specpress_render::{Lookup, PageKind, PageRef};

use crate::chrome::Chrome;
use crate::error::{Page, PageError};
use crate::respond::{
    Validator, html_page, moved_permanently, not_modified, origin_of, revalidated, types,
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
pub fn lookup(loaded: &Loaded, base: &str, path: &str, form: Form) -> Result<PageRef, PageError> {
    match loaded.site.lookup(path) {
        Lookup::Page(p) => Ok(p),
        Lookup::Redirect(to) => {
            let target = if to.is_empty() {
                format!("{base}{}", form.suffix())
            } else {
                format!("{base}/{to}{}", form.suffix())
            };
            Err(PageError::answered(moved_permanently(&target)))
        }
        Lookup::NotFound => Err(Missing::Page.into()),
    }
}

/// What presenting a page reads: the reader layer (the branch's history) and the HTTP settings (the public origin
/// the home page's MCP configuration is written on).
#[derive(Clone, Copy)]
pub struct Presenter<'a> {
    pub library: &'a Library,
    pub config: &'a ApiConfig,
}

impl Presenter<'_> {
    /// A page of the head of `view`, already loaded, in `form`.
    pub async fn present(
        self,
        headers: &HeaderMap,
        view: &DocView,
        head: (Arc<Loaded>, Version),
        page: &str,
        form: Form,
    ) -> Page {
        let (loaded, version) = head;
        let page_ref = lookup(&loaded, &view.base, page, form)?;
        // The validator: the version, the page, and everything else the page shows (name, branches), for this
        // build.
        let mut v = Validator::of_view(view).add(version.id.to_string());
        if form == Form::Markdown {
            v = v.add("md\0");
        }
        // The HTML home page shows the MCP client configuration, on the request's public origin.
        let origin = (form == Form::Html && loaded.site.info(page_ref).kind == PageKind::Home)
            .then(|| origin_of(self.config, headers));
        if let Some(o) = &origin {
            v = v.add("origin\0").add(o);
        }
        // An operation, schema or channel page shows its history, from the branch's index (read once per head).
        let subject = (form == Form::Html)
            .then(|| loaded.site.history_subject(&loaded.doc, &page_ref))
            .flatten();
        let history = match &subject {
            Some(s) => {
                let index = self.library.branch_history(view, &version).await?;
                // An index left incomplete (releases still to digest) shows less than a later one: another
                // validator.
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
        // An operation page's "Follow changes" form follows that operation.
        let operation = subject
            .filter(|s| s.kind == HistoryKind::Operation)
            .map(|s| s.name);
        let answer = render(
            view,
            (loaded, version),
            page_ref,
            form,
            (origin, history, operation),
            &etag,
        )
        .await?;
        Ok(with_csp(answer, csp))
    }

    /// A page of `view`'s head in `form`: loads the head (from the cache), then [`Presenter::present`].
    pub async fn page(self, headers: &HeaderMap, view: &DocView, page: &str, form: Form) -> Page {
        let head = self.library.load_head(view).await?;
        self.present(headers, view, head, page, form).await
    }
}

/// The Content-Security-Policy of an operation page of a `direct` documentation (see [`crate::csp`]). `None` for
/// every other page, which keeps [`crate::assets::CSP`].
fn page_csp(view: &DocView, loaded: &Loaded, page: PageRef) -> Option<String> {
    let operation = loaded.site.info(page).kind == PageKind::Operation;
    (operation && view.doc.try_it == TryIt::Direct).then(|| {
        crate::csp::with_connect(&specpress_reader::origins::server_origins(
            loaded.doc.model(),
        ))
    })
}

/// `resp` with its own Content-Security-Policy when one is given (also on a 304: a cache updates the stored
/// headers with the revalidation's).
fn with_csp(mut resp: Response, csp: Option<String>) -> Response {
    if let Some(v) = csp.and_then(|c| axum::http::HeaderValue::from_str(&c).ok()) {
        resp.headers_mut()
            .insert(axum::http::header::CONTENT_SECURITY_POLICY, v);
    }
    resp
}

/// The page in `form`, rendered on the CPU gate.
async fn render(
    view: &DocView,
    (loaded, version): (Arc<Loaded>, Version),
    page_ref: PageRef,
    form: Form,
    (origin, history, operation): (Option<String>, Option<PageHistory>, Option<String>),
    etag: &str,
) -> Page {
    match form {
        Form::Html => {
            let mut chrome = Chrome::of_view(view, Some(&version));
            if let Some(o) = &origin {
                chrome.mcp = chrome.mcp.map(|m| m.on(o));
            }
            if let Some((_, op)) = chrome.follow.as_mut() {
                *op = operation;
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
                .await?;
            Ok(html_page(html, etag))
        }
        Form::Markdown => {
            let base = view.base.clone();
            let text =
                specpress_reader::markdown::page(loaded, page_ref, base, view, &version).await?;
            Ok(revalidated(types::MARKDOWN, text, etag))
        }
    }
}
