//! A topic page: one `x-topics` guide, its Markdown content rendered (template `pages/topic.html`).

use specpress_apispec::Location;

use askama::Template;

use crate::html::Html;
use crate::markdown::{self, MAX_TOPIC_BYTES};
use crate::schema::Ctx;
use crate::site::resolve_value;
use crate::tpl;

use super::str_at;

#[derive(Template)]
#[template(path = "pages/topic.html", escape = "engine")]
struct TopicPage<'a> {
    title: &'a str,
    content: Option<Html>,
}

pub(super) fn topic(c: &mut Ctx<'_>, i: u32) -> Option<Html> {
    let doc = c.doc;
    let loc = Location::root(specpress_apispec::FileId::ROOT)
        .child("x-topics")
        .index(i as usize);
    let t = resolve_value(doc, &loc, doc.value(&loc)?)?;
    let title = str_at(t, "title").unwrap_or("Topic");
    let content_loc = match doc.resolve(&loc) {
        Ok((l, _)) => l.child("content"),
        Err(_) => loc.child("content"),
    };
    let content = doc
        .resolve(&content_loc)
        .ok()
        .and_then(|(_, v)| v.as_str())
        .or_else(|| str_at(t, "content"));
    let page = TopicPage {
        title,
        content: content.map(|text| markdown::render(text, 2, MAX_TOPIC_BYTES)),
    };
    Some(tpl::render(&page, 4096))
}
