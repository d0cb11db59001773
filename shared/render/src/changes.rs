//! The portal's change pages: a documentation's changelog, one release's changes, a comparison of two versions, a
//! public diff, and a hub's combined changelog. They all show a diff as the diff engine's `DiffItem[]` tree (the JSON
//! that `GET /versions/{id}` returns as `diff_details` and the diffs API as `details`), read back here with a lenient
//! shape: the pages render what the engine produced and what was stored, whatever its age.
//!
//! Every name in a diff comes from a document: it is written with [`Out::text`] (escaped). Links into the reference
//! pages come from the caller ([`Linker`]), which knows the documentation's URLs; this module knows nothing of HTTP.
//!
//! Bounds: a change page shows at most [`MAX_NODES`] items of the tree, [`MAX_DEPTH`] levels deep, and says where
//! the rest is (the `.json` variant); a changelog entry lists at most [`ENTRY_ITEMS`] top-level items per group.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

#[cfg(test)]
use crate::html::Html;
use crate::html::Out;
use crate::{Layout, PageContext, layout};

/// Items of a diff tree shown on one page (every level together).
pub const MAX_NODES: usize = 2_000;
/// Levels of a diff tree shown below a top-level item.
pub const MAX_DEPTH: usize = 10;
/// Top-level items listed per group in a changelog entry (the change page has them all).
pub const ENTRY_ITEMS: usize = 8;
/// Messages shown per item.
const MAX_MESSAGES: usize = 8;

#[derive(Debug, Clone, Deserialize)]
struct Item {
    #[serde(default)]
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    breaking: bool,
    #[serde(default)]
    previous: Option<Value>,
    #[serde(default)]
    current: Option<Value>,
    #[serde(default)]
    children: Vec<Item>,
    #[serde(default)]
    changes: Vec<Message>,
    #[serde(rename = "ref", default)]
    reference: Option<String>,
    #[serde(default)]
    affected: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Message {
    #[serde(default)]
    message: String,
    #[serde(default)]
    level: String,
}

/// A diff as the pages show it: the top-level items of a `DiffItem[]` tree.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    items: Vec<Item>,
}

/// How many top-level changes of each group a diff has. An item is counted once: in `breaking` when it is
/// breaking, else under its status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub breaking: usize,
    pub added: usize,
    pub modified: usize,
    pub removed: usize,
}

impl Counts {
    /// The number of top-level changes.
    pub fn total(&self) -> usize {
        self.breaking + self.added + self.modified + self.removed
    }
}

/// The groups a change page shows, in order: breaking changes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Breaking,
    Added,
    Modified,
    Removed,
}

impl Group {
    const ALL: [Group; 4] = [
        Group::Breaking,
        Group::Added,
        Group::Modified,
        Group::Removed,
    ];

    fn of(item: &Item) -> Group {
        if item.breaking {
            return Group::Breaking;
        }
        match item.status.as_str() {
            "added" => Group::Added,
            "removed" => Group::Removed,
            _ => Group::Modified,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Group::Breaking => "Breaking changes",
            Group::Added => "Added",
            Group::Modified => "Modified",
            Group::Removed => "Removed",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Group::Breaking => "breaking",
            Group::Added => "added",
            Group::Modified => "modified",
            Group::Removed => "removed",
        }
    }
}

impl Changes {
    /// Reads a `DiffItem[]` JSON text (`null` reads as no change). An error when it is not an array of objects.
    pub fn parse(details: &str) -> Result<Changes, String> {
        let items: Option<Vec<Item>> =
            serde_json::from_str(details).map_err(|e| format!("diff details: {e}"))?;
        Ok(Changes {
            items: items.unwrap_or_default(),
        })
    }

    /// Reads a `DiffItem[]` JSON value.
    pub fn from_value(details: Value) -> Result<Changes, String> {
        let items: Option<Vec<Item>> =
            serde_json::from_value(details).map_err(|e| format!("diff details: {e}"))?;
        Ok(Changes {
            items: items.unwrap_or_default(),
        })
    }

    /// No structural change (a content-only change has no items).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Any breaking top-level change.
    pub fn breaking(&self) -> bool {
        self.items.iter().any(|i| i.breaking)
    }

    /// Top-level changes per group.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for i in &self.items {
            match Group::of(i) {
                Group::Breaking => c.breaking += 1,
                Group::Added => c.added += 1,
                Group::Modified => c.modified += 1,
                Group::Removed => c.removed += 1,
            }
        }
        c
    }

    /// One line per top-level change, breaking ones first (`Breaking: removed GET /pets/{id}`), at most `max`, then
    /// `… and N more`: the text of a feed entry.
    pub fn headlines(&self, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut shown = 0;
        for g in Group::ALL {
            for i in self.items.iter().filter(|i| Group::of(i) == g) {
                if shown == max {
                    continue;
                }
                shown += 1;
                out.push(match g {
                    Group::Breaking => format!("Breaking: {} {}", status_word(&i.status), i.name),
                    _ => format!("{}: {}", g.title(), i.name),
                });
            }
        }
        if self.items.len() > shown {
            out.push(format!("… and {} more", self.items.len() - shown));
        }
        out
    }
}

fn status_word(status: &str) -> &'static str {
    match status {
        "added" => "added",
        "removed" => "removed",
        _ => "modified",
    }
}

fn status_title(status: &str) -> &'static str {
    match status {
        "added" => "Added",
        "removed" => "Removed",
        _ => "Modified",
    }
}

fn status_class(status: &str) -> &'static str {
    match status {
        "added" => "add",
        "removed" => "rem",
        _ => "mod",
    }
}

/// Turns an operation named by a diff into the href of its reference page, when the documentation has one. Given
/// the item's type (`endpoint`, `webhook`, ...), HTTP method (upper case) and path template as the document writes
/// them.
pub type Linker<'a> = &'a dyn Fn(&str, &str, &str) -> Option<String>;

/// A linker that links nothing (a public diff has no reference pages).
pub fn no_links(_: &str, _: &str, _: &str) -> Option<String> {
    None
}

fn endpoint_of(item: &Item) -> Option<(&str, &str)> {
    let side = item.current.as_ref().or(item.previous.as_ref())?;
    let verb = side.get("verb")?.as_str()?;
    let path = side.get("path")?.as_str()?;
    Some((verb, path))
}

fn item_href(item: &Item, link: Linker<'_>) -> Option<String> {
    if item.status == "removed" {
        return None;
    }
    let (verb, path) = endpoint_of(item)?;
    link(&item.kind, &verb.to_ascii_uppercase(), path)
}

fn kind_label(kind: &str) -> &str {
    match kind {
        "endpoint" => "",
        "webhook" => "webhook ",
        "callback" => "callback ",
        "operation" => "",
        "channel" => "channel ",
        "schema" => "schema ",
        "parameter" => "parameter ",
        "response" => "response ",
        "body" => "body ",
        "property" => "property ",
        "header" => "header ",
        "message" => "message ",
        "security" => "security ",
        "server" => "server ",
        _ => "",
    }
}

/// The status and breaking markers of an item: text first, colour second (never colour alone).
fn markers(out: &mut Out, item: &Item) {
    out.raw("<span class=\"cs ")
        .raw(status_class(&item.status))
        .raw("\">")
        .raw(status_title(&item.status))
        .raw("</span>");
    if item.breaking {
        out.raw(" <span class=\"cs brk\">Breaking</span>");
    }
}

/// The name of a top-level item, linked to its reference page when there is one.
fn item_name(out: &mut Out, item: &Item, link: Linker<'_>) {
    let label = kind_label(&item.kind);
    if !label.is_empty() {
        out.raw("<span class=\"ck\">").raw(label).raw("</span>");
    }
    match item_href(item, link) {
        Some(href) => {
            out.raw("<a href=\"")
                .attr(&href)
                .raw("\"><code>")
                .text(&item.name)
                .raw("</code></a>");
        }
        None => {
            out.raw("<code>").text(&item.name).raw("</code>");
        }
    }
}

/// What a page knows about one release's changes.
#[derive(Debug, Clone, Copy)]
pub enum ReleaseChanges<'a> {
    /// The first version of its branch: nothing to compare with.
    First,
    /// The version it followed is gone (an expired temporary baseline) or could not be compared.
    Unavailable,
    /// Nothing changed at all.
    Unchanged,
    /// Only descriptions, examples, summaries or other texts changed (these changes, for the pages that show them).
    ContentOnly(&'a Changes),
    /// Structural changes.
    Changes(&'a Changes),
}

impl ReleaseChanges<'_> {
    /// Any breaking change.
    pub fn breaking(&self) -> bool {
        matches!(self, ReleaseChanges::Changes(c) if c.breaking())
    }

    /// A plain-text summary (feed entries): what kind of release it is and its changes, one per line.
    pub fn summary_text(&self, max_lines: usize) -> String {
        match self {
            ReleaseChanges::First => "First published version.".into(),
            ReleaseChanges::Unavailable => {
                "The changes of this version cannot be shown (the version it followed is no longer available)."
                    .into()
            }
            ReleaseChanges::Unchanged => "No change to the definition.".into(),
            ReleaseChanges::ContentOnly(_) => {
                "Content-only release: descriptions, examples or other texts changed; the API's structure did not."
                    .into()
            }
            ReleaseChanges::Changes(c) => c.headlines(max_lines).join("\n"),
        }
    }
}

fn plain_state(out: &mut Out, changes: &ReleaseChanges<'_>) -> bool {
    let text = match changes {
        ReleaseChanges::First => {
            "First published version: there is nothing earlier to compare it with."
        }
        ReleaseChanges::Unavailable => {
            "The changes of this version cannot be shown: the version it followed is no longer available."
        }
        ReleaseChanges::Unchanged => "No change to the definition.",
        ReleaseChanges::ContentOnly(_) => {
            "Content-only release: descriptions, examples or other texts changed; the API's structure did not."
        }
        ReleaseChanges::Changes(_) => return false,
    };
    out.raw("<p class=\"cstate\">").raw(text).raw("</p>");
    true
}

/// One entry of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Release<'a> {
    /// The change page of this version (URL-safe).
    pub href: &'a str,
    /// The version id.
    pub id: &'a str,
    /// The API's own version (`info.version`, untrusted).
    pub api_version: &'a str,
    /// The definition's title (untrusted).
    pub title: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// For a hub's combined changelog: the documentation's name (untrusted) and URL.
    pub doc: Option<(&'a str, &'a str)>,
    pub changes: ReleaseChanges<'a>,
}

/// Renders a changelog entry: heading, date, markers, and its changes grouped (top-level items only).
fn release_entry(out: &mut Out, r: &Release<'_>, n: usize, heading: u8, link: Linker<'_>) {
    let h = heading.clamp(2, 5);
    out.raw("<article class=\"rel")
        .raw(if r.changes.breaking() { " brk" } else { "" })
        .raw("\" aria-labelledby=\"r")
        .num(n)
        .raw("\"><h")
        .num(h)
        .raw(" id=\"r")
        .num(n)
        .raw("\">");
    if let Some((name, _)) = r.doc {
        out.text(name).raw(" ");
    }
    out.raw("<a href=\"").attr(r.href).raw("\">");
    if r.api_version.trim().is_empty() {
        out.raw("Version ").text(short_id(r.id));
    } else {
        out.text(r.api_version);
    }
    out.raw("</a>");
    if r.changes.breaking() {
        out.raw(" <span class=\"cs brk\">Breaking</span>");
    }
    out.raw("</h").num(h).raw("><ul class=\"meta\"><li>");
    time_el(out, r.published_at);
    out.raw("</li><li>").text(r.title).raw("</li>");
    if let Some((_, href)) = r.doc {
        out.raw("<li><a href=\"")
            .attr(href)
            .raw("\">Documentation</a></li>");
    }
    out.raw("</ul>");
    if let ReleaseChanges::Changes(c) = r.changes {
        if c.is_empty() {
            out.raw("<p class=\"cstate\">No structural change.</p>");
        }
        for g in Group::ALL {
            let items: Vec<&Item> = c.items.iter().filter(|i| Group::of(i) == g).collect();
            if items.is_empty() {
                continue;
            }
            out.raw("<p class=\"cg\"><span class=\"cgt ")
                .raw(g.key())
                .raw("\">")
                .raw(g.title())
                .raw("</span> <span class=\"n\">(")
                .num(items.len())
                .raw(")</span></p><ul class=\"chg compact\">");
            for item in items.iter().take(ENTRY_ITEMS) {
                out.raw("<li>");
                markers(out, item);
                out.raw(" ");
                item_name(out, item, link);
                out.raw("</li>");
            }
            if items.len() > ENTRY_ITEMS {
                out.raw("<li class=\"more\"><a href=\"")
                    .attr(r.href)
                    .raw("\">and ")
                    .num(items.len() - ENTRY_ITEMS)
                    .raw(" more</a></li>");
            }
            out.raw("</ul>");
        }
    } else {
        plain_state(out, &r.changes);
    }
    out.raw("</article>");
}

fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

fn time_el(out: &mut Out, rfc3339: &str) {
    out.raw("<time datetime=\"")
        .attr(rfc3339)
        .raw("\">")
        .text(&crate::human_time(rfc3339))
        .raw("</time>");
}

/// Renders a diff tree grouped (breaking first), every level, within the page budgets. `heading` is the level of
/// the group headings.
fn tree(out: &mut Out, changes: &Changes, heading: u8, link: Linker<'_>) {
    let h = heading.clamp(2, 5);
    // Anchors of top-level items, so that a use of a shared component links to the component's entry.
    let anchors: HashMap<&str, usize> = changes
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.id.as_str(), i))
        .collect();
    let mut budget = MAX_NODES;
    let mut cut = 0usize;
    for g in Group::ALL {
        let items: Vec<(usize, &Item)> = changes
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| Group::of(i) == g)
            .collect();
        if items.is_empty() {
            continue;
        }
        out.raw("<section class=\"cgs ")
            .raw(g.key())
            .raw("\" aria-labelledby=\"g-")
            .raw(g.key())
            .raw("\"><h")
            .num(h)
            .raw(" id=\"g-")
            .raw(g.key())
            .raw("\"><span class=\"cgt ")
            .raw(g.key())
            .raw("\">")
            .raw(g.title())
            .raw("</span> <span class=\"n\">(")
            .num(items.len())
            .raw(")</span></h")
            .num(h)
            .raw("><ul class=\"chg\">");
        for (idx, item) in items {
            if budget == 0 {
                cut += 1;
                continue;
            }
            budget -= 1;
            out.raw("<li class=\"ci\" id=\"c").num(idx).raw("\">");
            markers(out, item);
            out.raw(" ");
            item_name(out, item, link);
            messages(out, item);
            if !item.affected.is_empty() {
                out.raw("<p class=\"note\">Used by ")
                    .num(item.affected.len())
                    .raw(if item.affected.len() == 1 {
                        " operation.</p>"
                    } else {
                        " operations.</p>"
                    });
            }
            children(out, &item.children, 1, &mut budget, &mut cut, &anchors);
            out.raw("</li>");
        }
        out.raw("</ul></section>");
    }
    if cut > 0 {
        out.raw("<p class=\"more\">")
            .num(cut)
            .raw(" more changes are not shown here (page size limit): the JSON variant of this page has them all.</p>");
    }
}

fn messages(out: &mut Out, item: &Item) {
    let shown: Vec<&Message> = item
        .changes
        .iter()
        .filter(|m| !m.message.is_empty())
        .take(MAX_MESSAGES)
        .collect();
    if shown.is_empty() {
        return;
    }
    out.raw("<ul class=\"cm\">");
    for m in shown {
        out.raw("<li>");
        match m.level.as_str() {
            "breaking" => {
                out.raw("<span class=\"lv brk\">Breaking:</span> ");
            }
            "warning" => {
                out.raw("<span class=\"lv warn\">Warning:</span> ");
            }
            _ => {}
        }
        out.text(&m.message).raw("</li>");
    }
    out.raw("</ul>");
}

fn children(
    out: &mut Out,
    items: &[Item],
    depth: usize,
    budget: &mut usize,
    cut: &mut usize,
    anchors: &HashMap<&str, usize>,
) {
    if items.is_empty() {
        return;
    }
    if depth > MAX_DEPTH {
        *cut += count(items);
        return;
    }
    out.raw("<ul class=\"chg sub\">");
    for item in items {
        if *budget == 0 {
            *cut += 1 + count(&item.children);
            continue;
        }
        *budget -= 1;
        out.raw("<li>");
        markers(out, item);
        out.raw(" <span class=\"ck\">")
            .raw(kind_label(&item.kind))
            .raw("</span><code>")
            .text(&item.name)
            .raw("</code>");
        if let Some(r) = item.reference.as_deref()
            && let Some(i) = anchors.get(r)
        {
            out.raw(" <a class=\"cref\" href=\"#c")
                .num(*i)
                .raw("\">see the shared change</a>");
        }
        messages(out, item);
        children(out, &item.children, depth + 1, budget, cut, anchors);
        out.raw("</li>");
    }
    out.raw("</ul>");
}

fn count(items: &[Item]) -> usize {
    // Iterative: a hostile tree is not walked recursively without a bound.
    let mut n = 0usize;
    let mut stack: Vec<&[Item]> = vec![items];
    while let Some(level) = stack.pop() {
        n += level.len();
        for i in level {
            if !i.children.is_empty() {
                stack.push(&i.children);
            }
        }
    }
    n
}

/// The changes of a change, compare or diff page: the tree, or what kind of release it is (and, for a content-only
/// one, the texts that changed).
fn shown_changes(out: &mut Out, changes: &ReleaseChanges<'_>, heading: u8, link: Linker<'_>) {
    match changes {
        ReleaseChanges::Changes(c) if !c.is_empty() => tree(out, c, heading, link),
        ReleaseChanges::Changes(_) => {
            out.raw("<p class=\"cstate\">No structural change.</p>");
        }
        ReleaseChanges::ContentOnly(c) => {
            plain_state(out, changes);
            tree(out, c, heading, link);
        }
        other => {
            plain_state(out, other);
        }
    }
}

/// Previous and next pages of a changelog.
#[derive(Debug, Clone, Copy)]
pub struct Pager<'a> {
    /// 1-based.
    pub page: u64,
    pub pages: u64,
    /// Href of the newer page, if any (URL-safe).
    pub newer: Option<&'a str>,
    /// Href of the older page, if any (URL-safe).
    pub older: Option<&'a str>,
}

/// The changelog page of a documentation (on one branch).
#[derive(Debug, Clone, Copy)]
pub struct Changelog<'a> {
    /// The branch's name (untrusted), shown when the page is about a branch other than the default one.
    pub branch: Option<&'a str>,
    /// Total number of published versions on the branch.
    pub total: u64,
    pub releases: &'a [Release<'a>],
    pub pager: Pager<'a>,
    /// Atom and RSS feeds of this changelog (URL-safe).
    pub atom_href: &'a str,
    pub rss_href: &'a str,
    /// The compare page (URL-safe).
    pub compare_href: &'a str,
}

/// Renders a changelog page.
pub fn changelog_page(ctx: &PageContext<'_>, page: &Changelog<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>Changelog</h1><p class=\"lead\">Every published version of ")
        .text(ctx.doc_name);
    if let Some(b) = page.branch {
        out.raw(" on the branch <strong>").text(b).raw("</strong>");
    }
    out.raw(", newest first (")
        .num(page.total)
        .raw(if page.total == 1 {
            " version).</p>"
        } else {
            " versions).</p>"
        });
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.atom_href)
        .raw("\">Atom feed</a></li><li><a href=\"")
        .attr(page.rss_href)
        .raw("\">RSS feed</a></li><li><a href=\"")
        .attr(page.compare_href)
        .raw("\">Compare two versions</a></li></ul>");
    if page.releases.is_empty() {
        out.raw("<p>No published version on this page.</p>");
    }
    for (n, r) in page.releases.iter().enumerate() {
        release_entry(&mut out, r, n, 2, link);
    }
    pager(&mut out, &page.pager);
    let body = out.finish();
    let title = match page.branch {
        Some(b) => format!("Changelog ({b})"),
        None => "Changelog".to_string(),
    };
    layout(
        ctx,
        &Layout {
            title: &title,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

fn pager(out: &mut Out, p: &Pager<'_>) {
    if p.newer.is_none() && p.older.is_none() {
        return;
    }
    out.raw("<nav class=\"pager\" aria-label=\"Changelog pages\">");
    if let Some(h) = p.newer {
        out.raw("<a href=\"")
            .attr(h)
            .raw("\" rel=\"prev\">Newer versions</a>");
    }
    out.raw(" <span>Page ")
        .num(p.page)
        .raw(" of ")
        .num(p.pages.max(1))
        .raw("</span> ");
    if let Some(h) = p.older {
        out.raw("<a href=\"")
            .attr(h)
            .raw("\" rel=\"next\">Older versions</a>");
    }
    out.raw("</nav>");
}

/// One side of a comparison or of a change page.
#[derive(Debug, Clone, Copy)]
pub struct VersionRef<'a> {
    pub id: &'a str,
    /// `info.version` (untrusted).
    pub api_version: &'a str,
    /// The branch's name (untrusted).
    pub branch: &'a str,
    /// RFC 3339.
    pub published_at: &'a str,
    /// Its change page (URL-safe), if it has one.
    pub href: Option<&'a str>,
}

fn version_label(out: &mut Out, v: &VersionRef<'_>) {
    let label = |out: &mut Out| {
        if v.api_version.trim().is_empty() {
            out.raw("version ").text(short_id(v.id));
        } else {
            out.text(v.api_version);
        }
    };
    match v.href {
        Some(h) => {
            out.raw("<a href=\"").attr(h).raw("\">");
            label(out);
            out.raw("</a>");
        }
        None => label(out),
    }
    out.raw(" (").text(v.branch).raw(", ");
    time_el(out, v.published_at);
    out.raw(")");
}

/// One release's change page.
#[derive(Debug, Clone, Copy)]
pub struct ChangePage<'a> {
    pub version: VersionRef<'a>,
    /// The definition's title (untrusted).
    pub title: &'a str,
    /// The version it is compared with.
    pub previous: Option<VersionRef<'a>>,
    pub changes: ReleaseChanges<'a>,
    /// The changelog (URL-safe).
    pub changelog_href: &'a str,
    /// The `.json` variant and the version's definition (URL-safe).
    pub json_href: &'a str,
    pub source_href: &'a str,
    /// The compare page preset with both versions (URL-safe), when there is a previous version.
    pub compare_href: Option<&'a str>,
    /// A temporary (unpublished) version: said so.
    pub temporary: bool,
}

/// Renders a release's change page.
pub fn change_page(ctx: &PageContext<'_>, page: &ChangePage<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<p class=\"crumbs\"><a href=\"")
        .attr(page.changelog_href)
        .raw("\">Changelog</a></p><h1>Changes in ");
    if page.version.api_version.trim().is_empty() {
        out.raw("version ").text(short_id(page.version.id));
    } else {
        out.text(page.version.api_version);
    }
    out.raw("</h1>");
    if page.changes.breaking() {
        out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> This release has breaking changes: existing clients may fail.</p>");
    }
    if page.temporary {
        out.raw("<p class=\"warn\">This version is not published: it was deployed for comparison and expires.</p>");
    }
    out.raw("<dl class=\"kv\"><dt>Title</dt><dd>")
        .text(page.title)
        .raw("</dd><dt>Version</dt><dd>");
    version_label(
        &mut out,
        &VersionRef {
            href: None,
            ..page.version
        },
    );
    out.raw(" <code>").text(page.version.id).raw("</code></dd>");
    if let Some(p) = &page.previous {
        out.raw("<dt>Compared with</dt><dd>");
        version_label(&mut out, p);
        out.raw("</dd>");
    }
    out.raw("</dl>");
    shown_changes(&mut out, &page.changes, 2, link);
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.json_href)
        .raw("\">These changes as JSON</a></li><li><a href=\"")
        .attr(page.source_href)
        .raw("\">Definition of this version</a></li>");
    if let Some(h) = page.compare_href {
        out.raw("<li><a href=\"")
            .attr(h)
            .raw("\">Compare with another version</a></li>");
    }
    out.raw("</ul>");
    let body = out.finish();
    let title = format!(
        "Changes in {}",
        if page.version.api_version.trim().is_empty() {
            short_id(page.version.id)
        } else {
            page.version.api_version
        }
    );
    layout(
        ctx,
        &Layout {
            title: &title,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

/// An entry of the compare form's lists.
#[derive(Debug, Clone, Copy)]
pub struct VersionOption<'a> {
    pub id: &'a str,
    /// Shown text (untrusted parts: branch name, `info.version`): escaped.
    pub label: &'a str,
}

/// The compare page: a GET form, and the result when both sides are given.
#[derive(Debug, Clone, Copy)]
pub struct ComparePage<'a> {
    /// The form's action (URL-safe).
    pub action: &'a str,
    /// Choices of the two lists, grouped by branch (the branch name, then its versions, newest first).
    pub options: &'a [(&'a str, Vec<VersionOption<'a>>)],
    pub from: Option<VersionRef<'a>>,
    pub to: Option<VersionRef<'a>>,
    /// The result, when both sides were given and found.
    pub changes: Option<ReleaseChanges<'a>>,
    /// A problem with the request, said on the page (unknown version...).
    pub problem: Option<&'a str>,
    /// The changelog (URL-safe).
    pub changelog_href: &'a str,
}

/// Renders the compare page.
pub fn compare_page(ctx: &PageContext<'_>, page: &ComparePage<'_>, link: Linker<'_>) -> String {
    let mut out = Out::new();
    out.raw("<p class=\"crumbs\"><a href=\"")
        .attr(page.changelog_href)
        .raw("\">Changelog</a></p><h1>Compare versions</h1>")
        .raw("<p class=\"lead\">What changed between any two published versions of ")
        .text(ctx.doc_name)
        .raw(", on the same branch or across branches.</p>");
    out.raw("<form class=\"cmp\" method=\"get\" action=\"")
        .attr(page.action)
        .raw("\">");
    for (name, label, current) in [
        ("from", "From (older)", page.from.map(|v| v.id)),
        ("to", "To (newer)", page.to.map(|v| v.id)),
    ] {
        out.raw("<p><label for=\"")
            .raw(name)
            .raw("\">")
            .raw(label)
            .raw("</label> <select id=\"")
            .raw(name)
            .raw("\" name=\"")
            .raw(name)
            .raw("\" required>");
        if current.is_none() {
            out.raw("<option value=\"\">Choose a version</option>");
        }
        let mut listed = false;
        for (branch, versions) in page.options {
            out.raw("<optgroup label=\"").attr(branch).raw("\">");
            for v in versions {
                let selected = current == Some(v.id);
                listed |= selected;
                out.raw("<option value=\"").attr(v.id).raw("\"");
                if selected {
                    out.raw(" selected");
                }
                out.raw(">").text(v.label).raw("</option>");
            }
            out.raw("</optgroup>");
        }
        if let Some(id) = current
            && !listed
        {
            // A version older than the lists go: kept selected.
            out.raw("<option value=\"")
                .attr(id)
                .raw("\" selected>")
                .text(id)
                .raw("</option>");
        }
        out.raw("</select></p>");
    }
    out.raw("<p><button type=\"submit\">Compare</button></p></form>");
    if let Some(p) = page.problem {
        out.raw("<p class=\"warn\" role=\"alert\">")
            .text(p)
            .raw("</p>");
    }
    if let (Some(from), Some(to), Some(changes)) = (&page.from, &page.to, &page.changes) {
        out.raw("<h2>From ");
        version_label(&mut out, from);
        out.raw(" to ");
        version_label(&mut out, to);
        out.raw("</h2>");
        if changes.breaking() {
            out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> Clients written for the first version may fail with the second.</p>");
        }
        shown_changes(&mut out, changes, 3, link);
    }
    let body = out.finish();
    layout(
        ctx,
        &Layout {
            title: "Compare versions",
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

/// A public diff (`POST /diffs`, `bump diff`): the two documents were uploaded, not published.
#[derive(Debug, Clone, Copy)]
pub struct DiffPage<'a> {
    /// `info.title` of the current document (untrusted).
    pub title: &'a str,
    pub changes: ReleaseChanges<'a>,
    /// The two documents as JSON (URL-safe).
    pub previous_href: &'a str,
    pub current_href: &'a str,
    /// RFC 3339, when the diff expires.
    pub expires_at: Option<&'a str>,
}

/// Renders a public diff's page.
pub fn diff_page(ctx: &PageContext<'_>, page: &DiffPage<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>Changes to ").text(page.title).raw("</h1>");
    if page.changes.breaking() {
        out.raw("<p class=\"brkn\"><span class=\"cs brk\">Breaking</span> These changes break existing clients.</p>");
    }
    match page.changes {
        ReleaseChanges::Changes(c) if !c.is_empty() => tree(&mut out, c, 2, &no_links),
        ReleaseChanges::Changes(_) | ReleaseChanges::Unchanged => {
            out.raw("<p class=\"cstate\">No structural changes detected.</p>");
        }
        other => shown_changes(&mut out, &other, 2, &no_links),
    }
    out.raw("<ul class=\"meta\"><li><a href=\"")
        .attr(page.previous_href)
        .raw("\">Previous document (JSON)</a></li><li><a href=\"")
        .attr(page.current_href)
        .raw("\">Current document (JSON)</a></li>");
    if let Some(e) = page.expires_at {
        out.raw("<li>Expires ");
        time_el(&mut out, e);
        out.raw("</li>");
    }
    out.raw("</ul>");
    let body = out.finish();
    let title = format!("Changes to {}", page.title);
    layout(
        ctx,
        &Layout {
            title: &title,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

/// One API of a hub.
#[derive(Debug, Clone, Copy)]
pub struct HubApi<'a> {
    /// Name (untrusted).
    pub name: &'a str,
    /// Documentation URL (URL-safe).
    pub href: &'a str,
    /// `info.description` (Markdown, untrusted), if any.
    pub description: Option<&'a str>,
    /// `info.version` (untrusted), when something is published.
    pub api_version: Option<&'a str>,
    /// `OpenAPI` or `AsyncAPI`.
    pub kind: Option<&'a str>,
    /// RFC 3339 of the last release.
    pub released_at: Option<&'a str>,
}

/// A hub's page: its APIs and their combined changelog.
#[derive(Debug, Clone, Copy)]
pub struct HubPage<'a> {
    /// Name (untrusted).
    pub name: &'a str,
    /// Description (Markdown, untrusted).
    pub description: Option<&'a str>,
    pub apis: &'a [HubApi<'a>],
    /// The latest releases of its APIs, newest first.
    pub releases: &'a [Release<'a>],
    pub atom_href: &'a str,
    pub rss_href: &'a str,
}

/// Longest hub or API description shown on a hub page (Markdown source).
const HUB_DESCRIPTION_BYTES: usize = 4 * 1024;

/// Renders a hub's page.
pub fn hub_page(ctx: &PageContext<'_>, page: &HubPage<'_>) -> String {
    let mut out = Out::new();
    out.raw("<h1>").text(page.name).raw("</h1>");
    if let Some(d) = page.description.filter(|d| !d.trim().is_empty()) {
        out.raw("<div class=\"md lead\">")
            .html(&crate::markdown::render(d, 2, HUB_DESCRIPTION_BYTES))
            .raw("</div>");
    }
    out.raw("<h2 id=\"apis\">APIs <span class=\"n\">(")
        .num(page.apis.len())
        .raw(")</span></h2>");
    if page.apis.is_empty() {
        out.raw("<p>This hub has no published API yet.</p>");
    } else {
        out.raw("<ul class=\"cards apis\">");
        for api in page.apis {
            out.raw("<li><h3><a href=\"")
                .attr(api.href)
                .raw("\">")
                .text(api.name)
                .raw("</a></h3><ul class=\"meta\">");
            if let Some(k) = api.kind {
                out.raw("<li><span class=\"b\">")
                    .text(k)
                    .raw("</span></li>");
            }
            match api.api_version {
                Some(v) if !v.trim().is_empty() => {
                    out.raw("<li>Version <code>").text(v).raw("</code></li>");
                }
                Some(_) => {}
                None => {
                    out.raw("<li>Nothing published yet</li>");
                }
            }
            if let Some(t) = api.released_at {
                out.raw("<li>Last release ");
                time_el(&mut out, t);
                out.raw("</li>");
            }
            out.raw("</ul>");
            if let Some(d) = api.description.filter(|d| !d.trim().is_empty()) {
                out.raw("<div class=\"md\">")
                    .html(&crate::markdown::render(d, 4, HUB_DESCRIPTION_BYTES))
                    .raw("</div>");
            }
            out.raw("</li>");
        }
        out.raw("</ul>");
    }
    out.raw("<h2 id=\"changes\">Latest changes</h2><ul class=\"meta\"><li><a href=\"")
        .attr(page.atom_href)
        .raw("\">Atom feed</a></li><li><a href=\"")
        .attr(page.rss_href)
        .raw("\">RSS feed</a></li></ul>");
    if page.releases.is_empty() {
        out.raw("<p>No release yet.</p>");
    }
    for (n, r) in page.releases.iter().enumerate() {
        release_entry(&mut out, r, n, 3, &no_links);
    }
    let body = out.finish();
    layout(
        ctx,
        &Layout {
            title: page.name,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}

/// The body of a page as [`Html`], for tests of the fragments.
#[cfg(test)]
fn tree_html(changes: &Changes) -> Html {
    let mut out = Out::new();
    tree(&mut out, changes, 2, &no_links);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DETAILS: &str = r#"[
      {"id":"get-pets","name":"GET /pets","status":"modified","type":"endpoint","breaking":true,
       "current":{"path":"/pets","verb":"GET"},
       "children":[{"id":"p","name":"limit","status":"modified","type":"parameter","breaking":true,
                    "changes":[{"message":"parameter `limit` became required","level":"breaking"}],"children":[]},
                   {"id":"r","name":"Pet","status":"modified","type":"schema","breaking":true,"ref":"schema-pet","children":[]}]},
      {"id":"post-pets","name":"POST /pets","status":"added","type":"endpoint","breaking":false,
       "current":{"path":"/pets","verb":"POST"},"children":[]},
      {"id":"get-pets-id","name":"GET /pets/{id}","status":"removed","type":"endpoint","breaking":true,
       "previous":{"path":"/pets/{id}","verb":"GET"},"children":[]},
      {"id":"schema-pet","name":"Pet <script>","status":"modified","type":"schema","breaking":false,"children":[]}
    ]"#;

    #[test]
    fn changes_are_grouped_with_breaking_ones_first_and_counted_once() {
        let c = Changes::parse(DETAILS).unwrap();
        assert_eq!(
            c.counts(),
            Counts {
                breaking: 2,
                added: 1,
                modified: 1,
                removed: 0
            }
        );
        assert_eq!(
            c.headlines(10),
            vec![
                "Breaking: modified GET /pets",
                "Breaking: removed GET /pets/{id}",
                "Added: POST /pets",
                "Modified: Pet <script>",
            ]
        );
        assert_eq!(c.headlines(1).last().unwrap(), "… and 3 more");
    }

    #[test]
    fn a_tree_marks_status_and_breaking_in_text_escapes_names_and_links_shared_changes() {
        let c = Changes::parse(DETAILS).unwrap();
        let link = |kind: &str, verb: &str, path: &str| {
            (kind == "endpoint").then(|| format!("/doc/x/op/{verb}{path}"))
        };
        let mut out = Out::new();
        tree(&mut out, &c, 2, &link);
        let html = out.finish().into_string();
        let breaking = html.find("Breaking changes").unwrap();
        let added = html.find(">Added<").unwrap();
        assert!(breaking < added, "{html}");
        assert!(html.contains("<span class=\"cs brk\">Breaking</span>"));
        assert!(html.contains("<a href=\"/doc/x/op/GET/pets\"><code>GET /pets</code></a>"));
        assert!(
            html.contains("<code>GET /pets/{id}</code>") && !html.contains("op/GET/pets/{id}"),
            "a removed operation has no page to link to: {html}"
        );
        assert!(html.contains("Pet &lt;script&gt;") && !html.contains("<script>"));
        assert!(html.contains("href=\"#c3\""), "{html}");
        assert!(html.contains("id=\"c3\""), "{html}");
    }

    #[test]
    fn a_huge_tree_is_cut_at_the_node_budget_and_says_so() {
        let mut items = Vec::new();
        for i in 0..(MAX_NODES + 50) {
            items.push(serde_json::json!({"id": format!("i{i}"), "name": format!("GET /p{i}"), "status": "added", "type": "endpoint", "breaking": false, "children": []}));
        }
        let c = Changes::from_value(Value::Array(items)).unwrap();
        let html = tree_html(&c).into_string();
        assert!(html.contains("50 more changes are not shown here"), "cut");
        assert_eq!(html.matches("<li class=\"ci\"").count(), MAX_NODES);
    }

    #[test]
    fn malformed_details_are_an_error_and_null_is_no_change() {
        assert!(Changes::parse("{\"a\":1}").is_err());
        assert!(Changes::parse("null").unwrap().is_empty());
        assert!(Changes::parse("[]").unwrap().is_empty());
    }
}
