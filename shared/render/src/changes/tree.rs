//! A diff's items as HTML: the whole tree grouped (breaking changes first) within the page budgets, the markers and
//! names of one item, and what a release without a tree says instead.

use std::collections::HashMap;

use super::{
    Changes, Group, Item, Linker, MAX_DEPTH, MAX_MESSAGES, MAX_NODES, Message, ReleaseChanges,
};
use crate::html::Out;

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
pub(super) fn markers(out: &mut Out, item: &Item) {
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
pub(super) fn item_name(out: &mut Out, item: &Item, link: Linker<'_>) {
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

pub(super) fn plain_state(out: &mut Out, changes: &ReleaseChanges<'_>) -> bool {
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

pub(super) fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

pub(super) fn time_el(out: &mut Out, rfc3339: &str) {
    out.raw("<time datetime=\"")
        .attr(rfc3339)
        .raw("\">")
        .text(&crate::human_time(rfc3339))
        .raw("</time>");
}

/// Renders a diff tree grouped (breaking first), every level, within the page budgets. `heading` is the level of
/// the group headings.
pub(super) fn tree(out: &mut Out, changes: &Changes, heading: u8, link: Linker<'_>) {
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
pub(super) fn shown_changes(
    out: &mut Out,
    changes: &ReleaseChanges<'_>,
    heading: u8,
    link: Linker<'_>,
) {
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

/// The tree as HTML, for tests of the fragments.
#[cfg(test)]
fn tree_html(changes: &Changes) -> crate::html::Html {
    let mut out = Out::new();
    tree(&mut out, changes, 2, &super::no_links);
    out.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::Counts;
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
