//! The site shell every page shares (header with branch switcher and portal links, optional
//! left navigation, main, footer), and the API navigation of a [`Site`].

use askama::Template;

use crate::html::{Html, Out, push_href};
use crate::site::Site;
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
    /// The release a release page shows, as its banner names it (its API version, else its short id).
    release_label: String,
    /// Its publication time as a reader reads it.
    release_published: String,
}

/// A page of the site's own (not of a documentation: an error page, the sign-in page) in the shell, never indexed.
/// `session_href` is the sign-out link of a signed-in reader.
pub fn site_page(
    assets: &crate::AssetUrls,
    title: &str,
    body: &Html,
    session_href: Option<&str>,
) -> String {
    let ctx = PageContext {
        base: "",
        doc_name: "",
        branches: &[],
        version: None,
        assets,
        links: &[],
        search_action: None,
        alternates: &[],
        noindex: true,
        session_href,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    };
    layout(
        &ctx,
        &Layout {
            title,
            description: None,
            body,
            sidebar: None,
        },
    )
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
        release_label: ctx.release.map(release_label).unwrap_or_default(),
        release_published: ctx
            .release
            .map(|r| crate::human_time(r.published_at))
            .unwrap_or_default(),
    };
    let mut out = String::with_capacity(
        page.body.as_str().len() + page.sidebar.map_or(0, |s| s.as_str().len()) + 2048,
    );
    // Rendering into a String cannot fail: the template's values are plain strings.
    let _ = shell.render_into(&mut out);
    out
}

/// How a release banner names its release: the API version it declared, else `version` and its id's first
/// characters.
fn release_label(r: crate::ReleaseBanner<'_>) -> String {
    if r.api_version.trim().is_empty() {
        format!("version {}", r.id.chars().take(8).collect::<String>())
    } else {
        r.api_version.to_owned()
    }
}

impl Site {
    /// The left navigation of this documentation, with `current` marked and its group open.
    /// Portal pages about the same documentation (its changelog) may show it too.
    pub fn sidebar(&self, base: &str, current: Option<PageRef>) -> Html {
        let mut out = Out::new();
        out.s.reserve(self.pages.len() * 110);
        out.raw("<ul class=\"nav\">");
        self.nav_link(&mut out, base, 0, current, Some("Overview"));
        for &t in &self.topics {
            self.nav_link(&mut out, base, t, current, None);
        }
        out.raw("</ul>");
        for &g in &self.root_groups {
            self.nav_group(&mut out, base, g, current, 0);
        }
        if let Some(s) = self.schemas_index {
            out.raw("<ul class=\"nav\">");
            self.nav_link(&mut out, base, s, current, None);
            out.raw("</ul>");
        }
        out.finish()
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

    fn nav_group(&self, out: &mut Out, base: &str, g: u32, current: Option<PageRef>, depth: usize) {
        if depth > 8 {
            return;
        }
        let group = &self.groups[g as usize];
        let open = current.is_some_and(|c| self.group_contains(g, c.0, 0));
        out.raw(if open {
            "<details class=\"ng\" open><summary>"
        } else {
            "<details class=\"ng\"><summary>"
        })
        .text(&group.title)
        .raw(" <span class=\"n\">")
        .num(group.items.len())
        .raw("</span></summary><ul class=\"nav\">");
        if let Some(p) = group.page {
            self.nav_link(out, base, p, current, Some("Overview"));
        }
        for &i in &group.items {
            self.nav_link(out, base, i, current, None);
        }
        out.raw("</ul>");
        for &c in &group.children {
            self.nav_group(out, base, c, current, depth + 1);
        }
        out.raw("</details>");
    }

    fn nav_link(
        &self,
        out: &mut Out,
        base: &str,
        id: u32,
        current: Option<PageRef>,
        label: Option<&str>,
    ) {
        let p = &self.pages[id as usize];
        out.raw("<li><a href=\"");
        push_href(&mut out.s, base, &p.path);
        out.raw("\"");
        if current.is_some_and(|c| c.0 == id) {
            out.raw(" aria-current=\"page\"");
        }
        if p.deprecated {
            out.raw(" class=\"dep\"");
        }
        out.raw(">");
        if let Some(b) = p.badge
            && label.is_none()
        {
            out.raw("<span class=\"m ")
                .raw(b)
                .raw("\">")
                .raw(badge_text(b))
                .raw("</span> ");
        }
        out.text(label.unwrap_or(&p.title)).raw("</a></li>");
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
