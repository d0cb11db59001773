//! The site shell every page shares (header with branch switcher and portal links, optional
//! left navigation, main, footer), and the API navigation of a [`Site`].

use askama::Template;

use crate::html::{Html, push_href};
use crate::site::Site;
use crate::tpl::{self, Href};
use crate::{PageContext, PageRef};

/// A page to wrap in the shell. Other page kinds of the portal (changelog, diffs, hubs, search
/// results) build their main content as [`Html`] (with [`crate::escape`], [`crate::markdown`]
/// or their own askama templates) and call [`layout`].
pub struct Layout<'a> {
    /// The page title (text; the documentation name is appended in `<title>`).
    pub title: &'a str,
    /// `<meta name="description">` (text), if any.
    pub description: Option<&'a str>,
    /// The main content.
    pub body: &'a Html,
    /// The left navigation ([`Site::sidebar`]), or none for a full-width page.
    pub sidebar: Option<&'a Html>,
}

#[derive(Template)]
#[template(path = "layout.html")]
struct Shell<'a> {
    ctx: &'a PageContext<'a>,
    full_title: String,
    description: Option<&'a str>,
    home_href: String,
    current_branch: &'a str,
    /// The version's publication time as a reader reads it.
    published: String,
    body: &'a Html,
    sidebar: Option<&'a Html>,
}

/// Wraps a page body in the site shell: a whole HTML document.
pub fn layout(ctx: &PageContext<'_>, page: &Layout<'_>) -> String {
    let mut home_href = String::new();
    push_href(&mut home_href, ctx.base, "");
    let full_title = if page.title.is_empty() || page.title == ctx.doc_name {
        ctx.doc_name.to_string()
    } else if ctx.doc_name.is_empty() {
        page.title.to_string()
    } else {
        format!("{} · {}", page.title, ctx.doc_name)
    };
    let shell = Shell {
        ctx,
        full_title,
        description: page.description,
        home_href,
        current_branch: ctx
            .branches
            .iter()
            .find(|b| b.current)
            .map(|b| b.name)
            .unwrap_or("branches"),
        published: ctx
            .version
            .map(|v| crate::human_time(v.published_at))
            .unwrap_or_default(),
        body: page.body,
        sidebar: page.sidebar,
    };
    let mut out = String::with_capacity(
        page.body.as_str().len() + page.sidebar.map_or(0, |s| s.as_str().len()) + 2048,
    );
    // Rendering into a String cannot fail: the template's values are plain strings.
    let _ = shell.render_into(&mut out);
    out
}

/// The left navigation (template `sidebar.html`).
#[derive(Template)]
#[template(path = "sidebar.html", escape = "engine")]
struct Sidebar<'a> {
    nav: Vec<Nav<'a>>,
}

/// A step of the walk of the navigation.
enum Nav<'a> {
    /// `<ul class="nav">` opens.
    List,
    EndList,
    Link {
        href: Href<'a>,
        /// The current page.
        current: bool,
        deprecated: bool,
        /// The method or action badge: its class and text.
        badge: Option<(&'static str, &'static str)>,
        text: &'a str,
    },
    /// A group opens (its summary and the list of its links).
    Group {
        open: bool,
        title: &'a str,
        /// How many operations.
        n: usize,
    },
    /// The group's list of links closes (its sub-groups follow).
    EndGroup,
    /// The group closes.
    EndDetails,
}

impl Site {
    /// The left navigation of this documentation, with `current` marked and its group open.
    /// Portal pages about the same documentation (its changelog) may show it too.
    pub fn sidebar(&self, base: &str, current: Option<PageRef>) -> Html {
        let mut nav = Vec::with_capacity(self.pages.len() + 3 * self.groups.len() + 8);
        nav.push(Nav::List);
        self.nav_link(&mut nav, base, 0, current, Some("Overview"));
        for &t in &self.topics {
            self.nav_link(&mut nav, base, t, current, None);
        }
        nav.push(Nav::EndList);
        for &g in &self.root_groups {
            self.nav_group(&mut nav, base, g, current, 0);
        }
        if let Some(s) = self.schemas_index {
            nav.push(Nav::List);
            self.nav_link(&mut nav, base, s, current, None);
            nav.push(Nav::EndList);
        }
        tpl::render(&Sidebar { nav }, self.pages.len() * 110)
    }

    fn group_contains(&self, g: u32, page: u32, depth: usize) -> bool {
        let group = &self.groups[g as usize];
        group.page == Some(page)
            || group.items.contains(&page)
            || group.items.iter().any(|&i| {
                matches!(self.pages[i as usize].target, crate::site::Target::Operation(o)
                    if self.callback_pages.get(o as usize).is_some_and(|c| c.contains(&page)))
            })
            || (depth < 8
                && group
                    .children
                    .iter()
                    .any(|&c| self.group_contains(c, page, depth + 1)))
    }

    fn nav_group<'a>(
        &'a self,
        nav: &mut Vec<Nav<'a>>,
        base: &'a str,
        g: u32,
        current: Option<PageRef>,
        depth: usize,
    ) {
        if depth > 8 {
            return;
        }
        let group = &self.groups[g as usize];
        nav.push(Nav::Group {
            open: current.is_some_and(|c| self.group_contains(g, c.0, 0)),
            title: &group.title,
            n: group.items.len(),
        });
        if let Some(p) = group.page {
            self.nav_link(nav, base, p, current, Some("Overview"));
        }
        for &i in &group.items {
            self.nav_link(nav, base, i, current, None);
        }
        nav.push(Nav::EndGroup);
        for &c in &group.children {
            self.nav_group(nav, base, c, current, depth + 1);
        }
        nav.push(Nav::EndDetails);
    }

    fn nav_link<'a>(
        &'a self,
        nav: &mut Vec<Nav<'a>>,
        base: &'a str,
        id: u32,
        current: Option<PageRef>,
        label: Option<&'a str>,
    ) {
        let p = &self.pages[id as usize];
        nav.push(Nav::Link {
            href: Href {
                base,
                path: &p.path,
            },
            current: current.is_some_and(|c| c.0 == id),
            deprecated: p.deprecated,
            badge: p
                .badge
                .filter(|_| label.is_none())
                .map(|b| (b, badge_text(b))),
            text: label.unwrap_or(&p.title),
        });
    }
}

/// The text of a method or action badge.
pub(crate) fn badge_text(b: &str) -> &'static str {
    match b {
        "get" => "GET",
        "post" => "POST",
        "put" => "PUT",
        "patch" => "PATCH",
        "delete" => "DEL",
        "head" => "HEAD",
        "options" => "OPT",
        "trace" => "TRACE",
        "query" => "QUERY",
        "send" => "SEND",
        "receive" => "RECV",
        _ => "OTHER",
    }
}
