//! The text, Markdown and HTML renderings of a diff tree (JSON is the tree itself).
//!
//! Every rendering counts the same thing as a breaking change: one change of level breaking
//! (one `changes[]` entry of the JSON whose `level` is `breaking`), reported once, at the node
//! where it was found. Text and Markdown mark one line per breaking change (`[Breaking] `,
//! `**[Breaking]** `; a node carrying two gets a second line for the second), HTML puts one
//! badge in each breaking change's entry, and the Markdown headline counts them. The
//! `breaking` flag of a node (JSON `breaking`, HTML `breaking` class, the Markdown 🚨 of an
//! item, the text's "leads to breaking changes" on a link line) says that a breaking change
//! lies under it: in its own changes, its children, or the component a link points at.

use std::fmt::Write;

use crate::change::Status;
use crate::rules::Level;
use crate::tree::DiffItem;

/// Markdown output above this size is cut (GitHub refuses comments over 65,536 characters).
pub(crate) const MARKDOWN_BUDGET: usize = 60_000;

/// Said of a link to a shared component that leads to a breaking change.
const LEADS: &str = " (leads to breaking changes)";

/// The lines a node renders as, each `(marked as a breaking change, details)`: one line
/// listing its changes (details only for a modified node), marked when one of them is
/// breaking; and one more marked line for each further breaking change, with its message. A
/// link to a component says whether the component leads to a breaking change.
fn lines(item: &DiffItem) -> Vec<(bool, String)> {
    if item.reference.is_some() {
        return vec![(
            false,
            if item.breaking {
                LEADS.into()
            } else {
                String::new()
            },
        )];
    }
    let breaking: Vec<usize> = (0..item.changes.len())
        .filter(|&i| item.changes[i].level == Level::Breaking)
        .collect();
    let further = breaking.get(1..).unwrap_or(&[]);
    let first = if item.status != Status::Modified {
        String::new()
    } else {
        let msgs: Vec<&str> = (0..item.changes.len())
            .filter(|i| !further.contains(i))
            .map(|i| item.changes[i].message.as_str())
            .collect();
        if msgs.is_empty() {
            String::new()
        } else {
            format!(" ({})", msgs.join("; "))
        }
    };
    let mut out = Vec::with_capacity(1 + further.len());
    out.push((!breaking.is_empty(), first));
    for &i in further {
        out.push((true, format!(" ({})", item.changes[i].message)));
    }
    out
}

/// The number of breaking changes in the items (each counted once, at its node).
pub(crate) fn breaking_changes(items: &[DiffItem]) -> usize {
    items
        .iter()
        .map(|i| {
            i.changes
                .iter()
                .filter(|c| c.level == Level::Breaking)
                .count()
                + breaking_changes(&i.children)
        })
        .sum()
}

fn child_line(item: &DiffItem) -> String {
    let status = item.status.as_str();
    match item.item_type.as_str() {
        "body" => format!("{} {status}", item.label),
        _ => format!("{} {status}: {}", item.label, item.name),
    }
}

// ------------------------------------------------------------------------------ text

/// `Modified: GET /x` lines, two-space nesting, `[Breaking] ` on the line of each breaking
/// change.
pub(crate) fn text(items: &[DiffItem]) -> String {
    let mut out = String::new();
    for item in items {
        for (marked, details) in lines(item) {
            let prefix = if marked { "[Breaking] " } else { "" };
            let _ = writeln!(
                out,
                "{prefix}{}: {}{}{details}",
                item.status.title(),
                item.label,
                item.name,
            );
        }
        if !item.affected.is_empty() {
            let _ = writeln!(out, "  Used by {} operation(s)", item.affected.len());
        }
        for child in &item.children {
            text_child(&mut out, child, 1);
        }
    }
    out
}

fn text_child(out: &mut String, item: &DiffItem, depth: usize) {
    if item.transparent {
        for child in &item.children {
            text_child(out, child, depth);
        }
        return;
    }
    for (marked, details) in lines(item) {
        let prefix = if marked { "[Breaking] " } else { "" };
        let _ = writeln!(
            out,
            "{}{prefix}{}{details}",
            "  ".repeat(depth),
            child_line(item),
        );
    }
    for child in &item.children {
        text_child(out, child, depth + 1);
    }
}

// -------------------------------------------------------------------------- markdown

fn md_escape(s: &str) -> String {
    s.replace('`', "'")
}

/// Grouped by Added / Removed / Modified with counts, breaking groups and items first.
pub(crate) fn markdown(items: &[DiffItem]) -> String {
    let mut out = String::new();
    if items.is_empty() {
        out.push_str("No changes.\n");
        return out;
    }
    let breaking = breaking_changes(items);
    if breaking > 0 {
        // The breaking changes, and how many items lead to one (their own, or through the
        // components they link to).
        let flagged = items.iter().filter(|i| i.breaking).count();
        let _ = writeln!(
            out,
            "**{breaking} breaking change{}** ({flagged} of {} changed item{} lead{} to one).\n",
            if breaking == 1 { "" } else { "s" },
            items.len(),
            if items.len() == 1 { "" } else { "s" },
            if flagged == 1 { "s" } else { "" },
        );
    }
    let mut groups: Vec<(Status, Vec<&DiffItem>)> =
        [Status::Added, Status::Removed, Status::Modified]
            .into_iter()
            .map(|s| {
                (
                    s,
                    items.iter().filter(|i| i.status == s).collect::<Vec<_>>(),
                )
            })
            .filter(|(_, v)| !v.is_empty())
            .collect();
    // Groups with breaking items first (stable: Added, Removed, Modified otherwise); in a
    // group, the items holding breaking changes themselves first, then those leading to one
    // through their links, so a cut never hides the changes behind the links shown.
    groups.sort_by_key(|(_, v)| !v.iter().any(|i| i.breaking));
    let total = items.len();
    let mut written = 0usize;
    'groups: for (status, mut group) in groups {
        group
            .sort_by_cached_key(|i| (breaking_changes(std::slice::from_ref(*i)) == 0, !i.breaking));
        let _ = writeln!(out, "## {} ({})\n", status.title(), group.len());
        for item in group {
            // Each item whole or not at all (but the first, cut at a line, rather than
            // nothing), so the comment stays under the budget.
            let mut entry = String::new();
            // The flag (a breaking change lies under the item) once, the markers per change.
            let mut flag = if item.breaking { " 🚨" } else { "" };
            for (marked, details) in lines(item) {
                let _ = writeln!(
                    entry,
                    "* {}{}`{}`{flag}{}",
                    if marked { "**[Breaking]** " } else { "" },
                    md_escape(&item.label),
                    md_escape(&item.name),
                    md_details(&details)
                );
                flag = "";
            }
            if !item.affected.is_empty() {
                let shown: Vec<String> = item
                    .affected
                    .iter()
                    .take(10)
                    .map(|a| format!("`{}`", md_escape(a)))
                    .collect();
                let more = item.affected.len().saturating_sub(10);
                let _ = writeln!(
                    entry,
                    "  * Used by {}{}",
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                );
            }
            for child in &item.children {
                md_child(&mut entry, child, 1);
            }
            if out.len() + entry.len() > MARKDOWN_BUDGET {
                if written > 0 {
                    break 'groups;
                }
                let mut room = MARKDOWN_BUDGET.saturating_sub(out.len()).min(entry.len());
                while !entry.is_char_boundary(room) {
                    room -= 1;
                }
                let cut = entry[..room].rfind('\n').map_or(0, |i| i + 1);
                entry.truncate(cut);
                out.push_str(&entry);
                written += 1;
                break 'groups;
            }
            out.push_str(&entry);
            written += 1;
        }
        out.push('\n');
    }
    if written < total {
        let _ = writeln!(
            out,
            "\n_…and {} more changed items not shown here; see the full diff._",
            total - written
        );
    }
    out
}

fn md_details(details: &str) -> String {
    if details.is_empty() {
        String::new()
    } else {
        format!(" —{}", md_escape(details.trim_start()))
    }
}

fn md_child(out: &mut String, item: &DiffItem, depth: usize) {
    if item.transparent {
        for child in &item.children {
            md_child(out, child, depth);
        }
        return;
    }
    let status = item.status.as_str();
    let line = match item.item_type.as_str() {
        "body" => format!("{} {status}", item.label),
        _ => format!("{} {status}: `{}`", item.label, md_escape(&item.name)),
    };
    for (marked, details) in lines(item) {
        let _ = writeln!(
            out,
            "{}* {}{line}{}",
            "  ".repeat(depth),
            if marked { "**[Breaking]** " } else { "" },
            md_details(&details)
        );
    }
    for child in &item.children {
        md_child(out, child, depth + 1);
    }
}

// ------------------------------------------------------------------------------ html

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A self-contained fragment: nested lists with classes a page can style.
pub(crate) fn html(items: &[DiffItem]) -> String {
    let mut out = String::from("<div class=\"specpress-diff\">\n");
    if items.is_empty() {
        out.push_str("<p class=\"specpress-diff__empty\">No changes.</p>\n</div>\n");
        return out;
    }
    out.push_str("<ul class=\"specpress-diff__items changelog-event__diff\">\n");
    for item in items {
        let cls = format!(
            "specpress-diff__item specpress-diff__root changelog-event__diff-operation {}{}",
            item.status.as_str(),
            if item.breaking { " breaking" } else { "" }
        );
        let _ = write!(
            out,
            "<li class=\"{cls}\" id=\"{}\" data-type=\"{}\" data-level=\"{}\">",
            esc(&item.id),
            esc(&item.item_type),
            item.level
        );
        let _ = write!(
            out,
            "{}: {}<code class=\"code-inline root\">{}</code>",
            item.status.title(),
            esc(&item.label),
            esc(&item.name)
        );
        html_details(&mut out, item);
        if !item.affected.is_empty() {
            let _ = write!(
                out,
                "<p class=\"specpress-diff__affected\">Used by {} operation(s): {}</p>",
                item.affected.len(),
                item.affected
                    .iter()
                    .map(|a| format!("<code>{}</code>", esc(a)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        html_children(&mut out, &item.children);
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</div>\n");
    out
}

fn html_details(out: &mut String, item: &DiffItem) {
    if item.changes.is_empty() {
        return;
    }
    out.push_str("<ul class=\"specpress-diff__changes\">");
    for c in &item.changes {
        // One badge per breaking change.
        let badge = if c.level == Level::Breaking {
            "<span class=\"specpress-diff__badge breaking\">Breaking</span> "
        } else {
            ""
        };
        let _ = write!(
            out,
            "<li class=\"specpress-diff__change {}\" data-rule=\"{}\">{badge}{}</li>",
            c.level,
            esc(c.rule),
            esc(&c.message)
        );
    }
    out.push_str("</ul>");
}

fn html_children(out: &mut String, children: &[DiffItem]) {
    if children.is_empty() {
        return;
    }
    out.push_str("<ul class=\"specpress-diff__children\">");
    for child in children {
        let _ = write!(
            out,
            "<li class=\"specpress-diff__item {}{}\" data-type=\"{}\">",
            child.status.as_str(),
            if child.breaking { " breaking" } else { "" },
            esc(&child.item_type)
        );
        if child.item_type == "body" {
            let _ = write!(out, "{} {}", esc(&child.label), child.status.as_str());
        } else if let Some(r) = &child.reference {
            let _ = write!(
                out,
                "{} {}: <a href=\"#{}\"><code>{}</code></a>",
                esc(&child.label),
                child.status.as_str(),
                esc(r),
                esc(&child.name)
            );
            if child.breaking {
                out.push_str(
                    " <span class=\"specpress-diff__leads breaking\">leads to breaking changes</span>",
                );
            }
        } else {
            let _ = write!(
                out,
                "{} {}: <code>{}</code>",
                esc(&child.label),
                child.status.as_str(),
                esc(&child.name)
            );
        }
        html_details(out, child);
        html_children(out, &child.children);
        out.push_str("</li>");
    }
    out.push_str("</ul>");
}
