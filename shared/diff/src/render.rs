//! The text, Markdown and HTML renderings of a diff tree (JSON is the tree itself).

use std::fmt::Write;

use crate::change::Status;
use crate::tree::DiffItem;

/// Markdown output above this size is cut (GitHub refuses comments over 65,536 characters).
pub(crate) const MARKDOWN_BUDGET: usize = 60_000;

fn details(item: &DiffItem) -> String {
    if item.status != Status::Modified || item.changes.is_empty() {
        return String::new();
    }
    let msgs: Vec<&str> = item.changes.iter().map(|c| c.message.as_str()).collect();
    format!(" ({})", msgs.join("; "))
}

fn child_line(item: &DiffItem) -> String {
    let status = item.status.as_str();
    match item.item_type.as_str() {
        "body" => format!("{} {status}", item.label),
        _ => format!("{} {status}: {}", item.label, item.name),
    }
}

// ------------------------------------------------------------------------------ text

/// `Modified: GET /x` lines, two-space nesting, `[Breaking] ` on breaking lines.
pub(crate) fn text(items: &[DiffItem]) -> String {
    let mut out = String::new();
    for item in items {
        let prefix = if item.own_breaking { "[Breaking] " } else { "" };
        let _ = writeln!(
            out,
            "{prefix}{}: {}{}{}",
            item.status.title(),
            item.label,
            item.name,
            details(item)
        );
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
    let prefix = if item.own_breaking { "[Breaking] " } else { "" };
    let _ = writeln!(
        out,
        "{}{prefix}{}{}",
        "  ".repeat(depth),
        child_line(item),
        details(item)
    );
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
    let breaking = items.iter().filter(|i| i.breaking).count();
    if breaking > 0 {
        let _ = writeln!(
            out,
            "**{breaking} breaking change{}** out of {} changed item{}.\n",
            if breaking == 1 { "" } else { "s" },
            items.len(),
            if items.len() == 1 { "" } else { "s" }
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
    // Groups with breaking items first (stable: Added, Removed, Modified otherwise).
    groups.sort_by_key(|(_, v)| !v.iter().any(|i| i.breaking));
    let total = items.len();
    let mut written = 0usize;
    'groups: for (status, mut group) in groups {
        group.sort_by_key(|i| !i.breaking);
        let _ = writeln!(out, "## {} ({})\n", status.title(), group.len());
        for item in group {
            if out.len() > MARKDOWN_BUDGET {
                break 'groups;
            }
            let badge = if item.breaking {
                " 🚨 **Breaking**"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "* {}`{}`{badge}{}",
                md_escape(&item.label),
                md_escape(&item.name),
                md_details(item)
            );
            if !item.affected.is_empty() {
                let shown: Vec<String> = item
                    .affected
                    .iter()
                    .take(10)
                    .map(|a| format!("`{}`", md_escape(a)))
                    .collect();
                let more = item.affected.len().saturating_sub(10);
                let _ = writeln!(
                    out,
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
                md_child(&mut out, child, 1);
            }
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

fn md_details(item: &DiffItem) -> String {
    let d = details(item);
    if d.is_empty() {
        d
    } else {
        format!(" —{}", md_escape(d.trim_start()))
    }
}

fn md_child(out: &mut String, item: &DiffItem, depth: usize) {
    if item.transparent {
        for child in &item.children {
            md_child(out, child, depth);
        }
        return;
    }
    let badge = if item.own_breaking {
        "**[Breaking]** "
    } else {
        ""
    };
    let status = item.status.as_str();
    let line = match item.item_type.as_str() {
        "body" => format!("{} {status}", item.label),
        _ => format!("{} {status}: `{}`", item.label, md_escape(&item.name)),
    };
    let _ = writeln!(
        out,
        "{}* {badge}{line}{}",
        "  ".repeat(depth),
        md_details(item)
    );
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
        if item.own_breaking || item.breaking {
            out.push_str("<span class=\"specpress-diff__badge breaking\">Breaking</span> ");
        }
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
        let _ = write!(
            out,
            "<li class=\"specpress-diff__change {}\" data-rule=\"{}\">{}</li>",
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
        if child.own_breaking {
            out.push_str("<span class=\"specpress-diff__badge breaking\">Breaking</span> ");
        }
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
