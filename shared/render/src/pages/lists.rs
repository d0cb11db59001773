//! The lists several pages share: cards of navigation groups and lists of operations
//! (templates `pages/group_cards.html`, `pages/ops_list.html`).

use askama::Template;

use crate::html::Html;
use crate::schema::Ctx;
use crate::shell::badge_text;
use crate::site::Target;
use crate::tpl;

use super::{first_line, str_at};

#[derive(Template)]
#[template(path = "pages/group_cards.html", escape = "engine")]
struct GroupCards<'a> {
    cards: Vec<GroupCard<'a>>,
}

struct GroupCard<'a> {
    title: &'a str,
    /// The group's page, if it has one.
    href: Option<String>,
    /// How many operations.
    n: usize,
    /// The first line of the tag's description.
    description: Option<String>,
}

#[derive(Template)]
#[template(path = "pages/ops_list.html", escape = "engine")]
struct OpsList<'a> {
    items: Vec<OpItem<'a>>,
}

struct OpItem<'a> {
    badge: Option<&'static str>,
    badge_text: &'static str,
    href: String,
    title: &'a str,
    /// The operation's path or the channel's address.
    path: Option<&'a str>,
    deprecated: bool,
}

/// The cards (`<li>`) of navigation groups.
pub(super) fn group_cards(c: &Ctx<'_>, groups: &[u32]) -> Html {
    let site = c.site;
    let cards: Vec<GroupCard<'_>> = groups
        .iter()
        .map(|&g| {
            let group = &site.groups[g as usize];
            GroupCard {
                title: &group.title,
                href: group
                    .page
                    .map(|p| tpl::href(c.base, &site.pages[p as usize].path)),
                n: group.items.len(),
                description: group
                    .tag
                    .and_then(|t| c.doc.root().get("tags")?.at(t as usize))
                    .and_then(|t| str_at(t, "description"))
                    .map(|d| first_line(d, 200)),
            }
        })
        .collect();
    tpl::render(&GroupCards { cards }, 256 * groups.len())
}

/// A list (`<ul class="ops">`) of operation pages.
pub(super) fn ops_list(c: &Ctx<'_>, items: &[u32]) -> Html {
    let site = c.site;
    let items: Vec<OpItem<'_>> = items
        .iter()
        .map(|&p| {
            let page = &site.pages[p as usize];
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
            OpItem {
                badge: page.badge,
                badge_text: page.badge.map(badge_text).unwrap_or(""),
                href: tpl::href(c.base, &page.path),
                title: &page.title,
                path,
                deprecated: page.deprecated,
            }
        })
        .collect();
    let size = 160 * items.len() + 32;
    tpl::render(&OpsList { items }, size)
}
