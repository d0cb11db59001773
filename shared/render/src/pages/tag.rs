//! A navigation group's page (a tag, the untagged operations, a path prefix): its description,
//! its sub-groups and its operations.

use crate::html::{Html, Out};
use crate::schema::Ctx;

use super::lists::{group_card, ops_list};
use super::{external_docs_kv, md, str_at};

pub(super) fn tag(c: &mut Ctx<'_>, g: u32) -> Option<Html> {
    let site = c.site;
    let group = site.groups.get(g as usize)?;
    let mut out = Out::new();
    out.raw("<h1>").text(&group.title).raw("</h1>");
    if let Some(parent) = group.parent {
        let pg = &site.groups[parent as usize];
        if let Some(pp) = pg.page {
            out.raw("<p class=\"note\">Part of ")
                .link_open(c.base, &site.pages[pp as usize].path)
                .text(&pg.title)
                .raw("</a>.</p>");
        }
    }
    let tag = group
        .tag
        .and_then(|t| c.doc.root().get("tags")?.at(t as usize));
    if let Some(t) = tag {
        if let Some(d) = str_at(t, "description") {
            md(&mut out, d, 2);
        }
        if let Some(ed) = t.get("externalDocs") {
            let mut kv = Out::new();
            external_docs_kv(&mut kv, ed);
            if kv.len() > 0 {
                out.raw("<dl class=\"kv\">").html(&kv.finish()).raw("</dl>");
            }
        }
    }
    if !group.children.is_empty() {
        out.raw("<h2>Sections</h2><ul class=\"cards\">");
        for &ch in &group.children {
            group_card(c, &mut out, ch);
        }
        out.raw("</ul>");
    }
    if !group.items.is_empty() {
        out.raw("<h2>Operations</h2>");
        ops_list(c, &mut out, &group.items);
    }
    Some(out.finish())
}
