//! The lists several pages share: cards of navigation groups and lists of operations.

use crate::html::Out;
use crate::schema::Ctx;
use crate::shell::badge_text;
use crate::site::Target;

use super::{first_line, str_at};

pub(super) fn group_card(c: &Ctx<'_>, out: &mut Out, g: u32) {
    let site = c.site;
    let group = &site.groups[g as usize];
    out.raw("<li>");
    match group.page {
        Some(p) => {
            out.link_open(c.base, &site.pages[p as usize].path)
                .text(&group.title)
                .raw("</a>");
        }
        None => {
            out.raw("<strong>").text(&group.title).raw("</strong>");
        }
    }
    let n = group.items.len();
    out.raw(" <span class=\"note\">")
        .num(n)
        .raw(if n == 1 { " operation" } else { " operations" })
        .raw("</span>");
    let desc = group
        .tag
        .and_then(|t| c.doc.root().get("tags")?.at(t as usize))
        .and_then(|t| str_at(t, "description"));
    if let Some(d) = desc {
        out.raw("<p>").text(&first_line(d, 200)).raw("</p>");
    }
    out.raw("</li>");
}

pub(super) fn ops_list(c: &Ctx<'_>, out: &mut Out, items: &[u32]) {
    let site = c.site;
    out.raw("<ul class=\"ops\">");
    for &p in items {
        let page = &site.pages[p as usize];
        out.raw("<li>");
        if let Some(b) = page.badge {
            out.raw("<span class=\"m ")
                .raw(b)
                .raw("\">")
                .raw(badge_text(b))
                .raw("</span>");
        }
        out.link_open(c.base, &page.path)
            .text(&page.title)
            .raw("</a>");
        let path = match page.target {
            Target::Operation(i) => c
                .doc
                .model()
                .operations
                .get_index(i as usize)
                .map(|(_, o)| o.path.as_str()),
            Target::MessageOperation(i) => c
                .doc
                .model()
                .message_operations
                .get_index(i as usize)
                .map(|(_, o)| o.channel_address.as_str()),
            _ => None,
        };
        if let Some(p) = path {
            out.raw("<code>").text(p).raw("</code>");
        }
        if page.deprecated {
            out.raw("<span class=\"b dp\">deprecated</span>");
        }
        out.raw("</li>");
    }
    out.raw("</ul>");
}
