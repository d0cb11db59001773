//! A navigation group's page (a tag, the untagged operations, a path prefix): its description,
//! its sub-groups and its operations (template `pages/tag.html`).

use askama::Template;

use crate::html::Html;
use crate::schema::Ctx;
use crate::tpl::{self, Link};

use super::lists::{group_cards, ops_list};
use super::{external_docs, md, str_at};

#[derive(Template)]
#[template(path = "pages/tag.html", escape = "engine")]
struct TagPage<'a> {
    title: &'a str,
    /// The group this one is part of, when it has a page.
    parent: Option<Link<'a>>,
    description: Option<Html>,
    external_docs: Option<Html>,
    /// The cards of the sub-groups, if any.
    sections: Option<Html>,
    /// The list of the group's operations, if any.
    operations: Option<Html>,
}

pub(super) fn tag(c: &mut Ctx<'_>, g: u32) -> Option<Html> {
    let site = c.site;
    let group = site.groups.get(g as usize)?;
    let parent = group.parent.and_then(|parent| {
        let pg = &site.groups[parent as usize];
        pg.page.map(|pp| Link {
            href: tpl::href(c.base, &site.pages[pp as usize].path),
            text: &pg.title,
        })
    });
    let tag = group
        .tag
        .and_then(|t| c.doc.root().get("tags")?.at(t as usize));
    let page = TagPage {
        title: &group.title,
        parent,
        description: tag.and_then(|t| str_at(t, "description")).map(|d| md(d, 2)),
        external_docs: external_docs(tag.and_then(|t| t.get("externalDocs"))),
        sections: (!group.children.is_empty()).then(|| group_cards(c, &group.children)),
        operations: (!group.items.is_empty()).then(|| ops_list(c, &group.items)),
    };
    Some(tpl::render(&page, 4096))
}
