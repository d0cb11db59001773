//! The HTML body of every page kind, one module per kind: home, topic, tag (navigation group),
//! operation (paths, webhooks, callbacks), schemas, AsyncAPI channels and operations; the
//! sections several kinds share (servers, authentication, examples, lists of operations and
//! groups) and the request samples (`samples`). [`Site::render`] picks the body of a page and wraps it in the
//! site shell. Each body is an askama template of `templates/pages/` (see `tpl`), whose values
//! are escaped; every other document string goes through `Out::text`/`attr` (schema trees),
//! `markdown::render` or `url_or_text`.

mod asyncapi;
mod examples;
mod home;
mod lists;
mod operation;
pub(crate) mod samples;
mod schemas;
mod security;
mod servers;
mod tag;
mod topic;
mod try_it;

use specpress_apispec::{Document, V};

use crate::html::{Html, Out, url_or_text};
use crate::markdown::{self, MAX_MARKDOWN_BYTES};
use crate::schema::Ctx;
use crate::site::{Site, Target};
use crate::{Layout, PageContext, PageRef, RenderedPage, layout};

/// Examples shown per media type or message.
const MAX_EXAMPLES: usize = 3;

impl Site {
    /// Renders one page as a whole HTML document. `doc` must be the document the site was built
    /// from; a page the document no longer has renders as a short "not available" page.
    pub fn render(&self, doc: &Document, page: &PageRef, ctx: &PageContext<'_>) -> RenderedPage {
        self.render_page(doc, page, ctx, None)
    }

    /// [`Site::render`] with `last` (a section the engine made: the page's history) closing the body.
    pub(crate) fn render_page(
        &self,
        doc: &Document,
        page: &PageRef,
        ctx: &PageContext<'_>,
        last: Option<Html>,
    ) -> RenderedPage {
        let id = page.0 as usize;
        let mut sctx = Ctx::new(doc, self, ctx.base);
        let (title, body) = match self.pages.get(id) {
            Some(p) => {
                let body = match &p.target {
                    Target::Home => home::home(&mut sctx, ctx),
                    Target::Topic(i) => topic::topic(&mut sctx, *i),
                    Target::Group(g) => tag::tag(&mut sctx, *g),
                    Target::Operation(i) => operation::operation_page(&mut sctx, *i, ctx.try_it),
                    Target::Callback(o, c) => operation::callback_page(&mut sctx, *o, *c),
                    Target::SchemasIndex => schemas::schemas_index(&mut sctx),
                    Target::Schema(i) => schemas::schema_page(&mut sctx, *i),
                    Target::Channel(i) => asyncapi::channel_page(&mut sctx, *i),
                    Target::MessageOperation(i) => asyncapi::message_page(&mut sctx, *i),
                    Target::Message(i) => asyncapi::lone_message_page(&mut sctx, *i),
                };
                let body = match (body, last) {
                    (Some(mut body), Some(last)) => {
                        body.push_html(&last);
                        body
                    }
                    (body, _) => body.unwrap_or_else(unavailable),
                };
                (p.title.clone(), body)
            }
            None => ("Not found".to_string(), unavailable()),
        };
        let sidebar = self.sidebar(ctx.base, Some(*page));
        let html = layout(
            ctx,
            &Layout {
                title: &title,
                description: None,
                body: &body,
                sidebar: Some(&sidebar),
            },
        );
        RenderedPage { html, title }
    }
}

fn unavailable() -> Html {
    Html(
        "<h1>Not available</h1><p>This page is not part of this version of the documentation.</p>"
            .to_string(),
    )
}

/// Markdown from the document, rendered and sanitized (headings from `<h{min_heading}>`).
fn md(text: &str, min_heading: u8) -> Html {
    markdown::render(text, min_heading, MAX_MARKDOWN_BYTES)
}

fn str_at<'d>(v: V<'d>, key: &str) -> Option<&'d str> {
    v.get(key).and_then(V::as_str)
}

/// A description's first line as plain text (its Markdown syntax dropped), for cards and lists.
fn first_line(s: &str, max: usize) -> String {
    markdown::first_line_plain(s, max)
}

/// The link (or text) of an `externalDocs` object, labelled with its description, when it has a URL.
fn external_docs(ed: Option<V<'_>>) -> Option<Html> {
    let url = str_at(ed?, "url")?;
    let mut out = Out::new();
    url_or_text(&mut out, url, str_at(ed?, "description"));
    Some(out.finish())
}
