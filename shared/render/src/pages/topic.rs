//! A topic page: one `x-topics` guide, its Markdown content rendered.

use specpress_spec::Location;

use crate::html::{Html, Out};
use crate::markdown::{self, MAX_TOPIC_BYTES};
use crate::schema::Ctx;
use crate::site::resolve_value;

use super::str_at;

pub(super) fn topic(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let loc = Location::root(specpress_spec::FileId::ROOT)
        .child("x-topics")
        .index(i as usize);
    let t = resolve_value(doc, &loc, doc.value(&loc)?)?;
    let title = str_at(t, "title").unwrap_or("Topic");
    let mut out = Out::new();
    out.raw("<h1>").text(title).raw("</h1>");
    let content_loc = match doc.resolve(&loc) {
        Ok((l, _)) => l.child("content"),
        Err(_) => loc.child("content"),
    };
    let content = doc
        .resolve(&content_loc)
        .ok()
        .and_then(|(_, v)| v.as_str())
        .or_else(|| str_at(t, "content"));
    if let Some(text) = content {
        out.raw("<div class=\"md\">")
            .html(&markdown::render(text, 2, MAX_TOPIC_BYTES))
            .raw("</div>");
    }
    Some(out.finish())
}
