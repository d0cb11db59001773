//! A diff's items as HTML: the whole tree grouped (breaking changes first) within the page budgets, the markers and
//! names of one item, and what a release without a tree says instead.

use std::collections::HashMap;

use super::migrate::Notes;
use super::{Changes, Group, Item, Linker, MAX_DEPTH, MAX_MESSAGES, MAX_NODES, ReleaseChanges};
use askama::Template;

use crate::html::{Html, Out};
use crate::tpl;

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

/// The head of an item as the templates show it (`changes/macros.html`): its markers and its name.
pub(super) struct ItemHead<'a> {
    pub(super) class: &'static str,
    pub(super) status: &'static str,
    pub(super) breaking: bool,
    /// "webhook ", "schema ", ... or "".
    pub(super) kind: &'a str,
    pub(super) name: &'a str,
    /// The item's reference page (top-level items), if it has one.
    pub(super) href: Option<String>,
    /// Why its breaking changes were accepted (changelog entries only; the tree shows each change's own).
    pub(super) accepted: Option<String>,
}

impl<'a> ItemHead<'a> {
    pub(super) fn new(item: &'a Item, link: Option<Linker<'_>>) -> ItemHead<'a> {
        ItemHead {
            class: status_class(&item.status),
            status: status_title(&item.status),
            breaking: item.breaking,
            kind: kind_label(&item.kind),
            name: &item.name,
            href: link.and_then(|l| item_href(item, l)),
            accepted: None,
        }
    }
}

/// A message of an item, with its level's class and label when it is breaking or a warning.
pub(super) struct MessageView<'a> {
    pub(super) level: Option<(&'static str, &'static str)>,
    pub(super) text: &'a str,
    /// The anchor index of its migration note in the "How to migrate" section, when it has one there.
    pub(super) note: Option<usize>,
    /// Why the change was accepted, when it was (it keeps its level).
    pub(super) accepted: Option<&'a str>,
}

/// What a release without a diff tree says instead (template `changes/state.html`).
#[derive(Template)]
#[template(path = "changes/state.html", escape = "engine")]
pub(super) struct StateView {
    state: State,
}

pub(super) enum State {
    First,
    Unavailable,
    Unchanged,
    ContentOnly,
    NoStructuralChange,
    /// A public diff without structural change.
    NothingDetected,
}

/// The state of a release that has no tree to show (all but [`ReleaseChanges::Changes`]).
pub(super) fn plain_state_of(changes: &ReleaseChanges<'_>) -> Option<State> {
    Some(match changes {
        ReleaseChanges::First => State::First,
        ReleaseChanges::Unavailable => State::Unavailable,
        ReleaseChanges::Unchanged => State::Unchanged,
        ReleaseChanges::ContentOnly(_) => State::ContentOnly,
        ReleaseChanges::Changes(_) => return None,
    })
}

/// A state as HTML (`<p class="cstate">`).
pub(super) fn state_html(state: State) -> Html {
    tpl::render(&StateView { state }, 128)
}

pub(super) fn plain_state(out: &mut Out, changes: &ReleaseChanges<'_>) -> bool {
    match plain_state_of(changes) {
        Some(state) => {
            out.html(&state_html(state));
            true
        }
        None => false,
    }
}

pub(super) fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

#[derive(Template)]
#[template(path = "changes/tree.html", escape = "engine")]
struct TreeView<'a> {
    h: u8,
    groups: Vec<GroupView<'a>>,
    /// Items not shown (page budget, depth).
    cut: usize,
    /// The "How to migrate" section.
    migrate: Html,
}

struct GroupView<'a> {
    key: &'static str,
    title: &'static str,
    /// Top-level items of the group, shown or not.
    count: usize,
    items: Vec<TopItem<'a>>,
}

struct TopItem<'a> {
    /// The item's index among the top-level items (its anchor `c{index}`).
    index: usize,
    head: ItemHead<'a>,
    messages: Vec<MessageView<'a>>,
    /// How many operations the change affects.
    affected: usize,
    nodes: Vec<Node<'a>>,
}

/// A step of the walk of an item's descendants.
enum Node<'a> {
    /// A sub-list opens.
    Open,
    /// An item starts: its head, the anchor of the shared change it refers to, its messages.
    Item {
        head: ItemHead<'a>,
        shared: Option<usize>,
        messages: Vec<MessageView<'a>>,
    },
    /// The item ends.
    End,
    /// The sub-list closes.
    Close,
}

/// Renders a diff tree grouped (breaking first), every level, within the page budgets. `heading` is the level of
/// the group headings.
pub(super) fn tree(out: &mut Out, changes: &Changes, heading: u8, link: Linker<'_>) {
    // Anchors of top-level items, so that a use of a shared component links to the component's entry.
    let anchors: HashMap<&str, usize> = changes
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.id.as_str(), i))
        .collect();
    let mut budget = MAX_NODES;
    let mut cut = 0usize;
    let mut notes = Notes::default();
    let mut groups = Vec::new();
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
        let mut shown = Vec::new();
        for &(index, item) in &items {
            if budget == 0 {
                cut += 1;
                notes.skip(std::slice::from_ref(item));
                continue;
            }
            budget -= 1;
            let top_messages = messages(item, (&item.name, None), &mut notes);
            let mut nodes = Vec::new();
            let mut walk = Walk {
                budget: &mut budget,
                cut: &mut cut,
                anchors: &anchors,
                nodes: &mut nodes,
                notes: &mut notes,
                top: &item.name,
            };
            walk.children(&item.children, 1);
            shown.push(TopItem {
                index,
                head: ItemHead::new(item, Some(link)),
                messages: top_messages,
                affected: item.affected.len(),
                nodes,
            });
        }
        groups.push(GroupView {
            key: g.key(),
            title: g.title(),
            count: items.len(),
            items: shown,
        });
    }
    let h = heading.clamp(2, 5);
    let view = TreeView {
        h,
        groups,
        cut,
        migrate: notes.section(h),
    };
    out.html(&tpl::render(&view, 16384));
}

/// An item's messages (the first [`MAX_MESSAGES`] that say something), each breaking one's migration note taken
/// into `notes` (`at`: the top-level item's name, and the kind and name of this item when it is below it).
pub(super) fn messages<'a>(
    item: &'a Item,
    at: (&'a str, Option<(&'a str, &'a str)>),
    notes: &mut Notes<'a>,
) -> Vec<MessageView<'a>> {
    let mut shown = 0usize;
    let mut out = Vec::new();
    for m in &item.changes {
        if m.message.is_empty() || shown == MAX_MESSAGES {
            // A note whose message is not shown is still counted (the JSON has it).
            notes.skip_message(m);
            continue;
        }
        shown += 1;
        out.push(MessageView {
            level: match m.level.as_str() {
                "breaking" => Some(("brk", "Breaking")),
                "warning" => Some(("warn", "Warning")),
                _ => None,
            },
            text: &m.message,
            note: notes.add(at.0, at.1, m),
            accepted: m.accepted_reason(),
        });
    }
    out
}

/// The walk of a top-level item's descendants into [`Node`]s, within the page budget.
struct Walk<'w, 'a> {
    budget: &'w mut usize,
    cut: &'w mut usize,
    anchors: &'w HashMap<&'a str, usize>,
    nodes: &'w mut Vec<Node<'a>>,
    notes: &'w mut Notes<'a>,
    /// The top-level item's name.
    top: &'a str,
}

impl<'a> Walk<'_, 'a> {
    fn children(&mut self, items: &'a [Item], depth: usize) {
        if items.is_empty() {
            return;
        }
        if depth > MAX_DEPTH {
            *self.cut += count(items);
            self.notes.skip(items);
            return;
        }
        self.nodes.push(Node::Open);
        for item in items {
            if *self.budget == 0 {
                *self.cut += 1 + count(&item.children);
                self.notes.skip(std::slice::from_ref(item));
                continue;
            }
            *self.budget -= 1;
            let head = ItemHead::new(item, None);
            let at = (self.top, Some((head.kind.trim_end(), head.name)));
            self.nodes.push(Node::Item {
                messages: messages(item, at, self.notes),
                head,
                shared: item
                    .reference
                    .as_deref()
                    .and_then(|r| self.anchors.get(r).copied()),
            });
            self.children(&item.children, depth + 1);
            self.nodes.push(Node::End);
        }
        self.nodes.push(Node::Close);
    }
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
            out.html(&state_html(State::NoStructuralChange));
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

#[cfg(test)]
mod migrate_tests {
    use super::super::{Changes, MAX_NOTES, no_links};
    use super::*;

    /// A breaking change at a parameter with a note (whose code holds hostile text), and one at the top level.
    const DETAILS: &str = r#"[
      {"id":"get-pets","name":"GET /pets <b>","status":"modified","type":"endpoint","breaking":true,
       "current":{"path":"/pets","verb":"GET"},
       "children":[{"id":"p","name":"limit","status":"modified","type":"parameter","breaking":true,
                    "changes":[{"message":"parameter `limit` became required","level":"breaking",
                                "migration":"**Where:** operation `GET /pets`\n\n**What to do:** Send it.\n\n```sh\ncurl --url '<script>alert(1)</script>'\n```\n"}],
                    "children":[]}]},
      {"id":"get-pets-id","name":"GET /pets/{id}","status":"removed","type":"endpoint","breaking":true,
       "previous":{"path":"/pets/{id}","verb":"GET"},
       "changes":[{"message":"the operation was removed","level":"breaking","migration":"**Alternatives:** none."},
                  {"message":"a warning","level":"warning","migration":"not a breaking change: not shown"}],
       "children":[]}
    ]"#;

    fn page(details: &str) -> String {
        let c = Changes::parse(details).expect("details");
        let mut out = Out::new();
        tree(&mut out, &c, 2, &no_links);
        out.finish().into_string()
    }

    #[test]
    fn the_page_shows_how_to_migrate_with_each_note_linked_from_its_change() {
        let html = page(DETAILS);
        let section = html.find(">How to migrate</h2>").expect(&html);
        assert!(html.find("Breaking changes").expect("groups") < section);
        assert!(
            html.contains("became required <a class=\"mref\" href=\"#m0\">How to migrate</a>"),
            "{html}"
        );
        assert!(html.contains("id=\"m0\"><h3><code>GET /pets &lt;b&gt;</code> › <span class=\"ck\">parameter</span> <code>limit</code></h3>"), "{html}");
        assert!(
            html.contains("<strong>What to do:</strong> Send it."),
            "{html}"
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>"),
            "{html}"
        );
        assert!(html.contains("id=\"m1\""), "{html}");
        assert!(!html.contains("not a breaking change"), "{html}");
        assert!(!html.contains("id=\"m2\""), "{html}");
    }

    #[test]
    fn an_accepted_change_stays_breaking_and_shows_its_reason_escaped_in_the_tree_the_note_and_the_headlines()
     {
        let details = DETAILS.replace(
            r#""level":"breaking","migration":"**Alternatives:** none.""#,
            r#""level":"breaking","accepted":{"reason":"agreed <i>in</i> March & more","expires_at":null},"migration":"**Alternatives:** none.""#,
        );
        let html = page(&details);
        let reason = "(accepted: agreed &lt;i&gt;in&lt;/i&gt; March &amp; more)";
        assert!(
            html.contains(&format!("<span class=\"lv brk\">Breaking:</span> the operation was removed <span class=\"acc\">{reason}</span>")),
            "beside the change: {html}"
        );
        assert!(
            html.contains(&format!(
                "the operation was removed <span class=\"acc\">{reason}</span></p>"
            )),
            "in its note: {html}"
        );
        assert_eq!(
            html.matches("class=\"acc\"").count(),
            2,
            "only the accepted change: {html}"
        );
        let c = Changes::parse(&details).expect("details");
        assert_eq!(c.counts().breaking, 2, "still counted as breaking");
        assert_eq!(
            c.headlines(10),
            vec![
                "Breaking: modified GET /pets <b>",
                "Breaking: removed GET /pets/{id} (accepted: agreed <i>in</i> March & more)",
            ]
        );
        let md = c.migration_markdown();
        assert!(
            md.contains("Accepted: agreed \\<i\\>in\\</i\\> March \\& more\n\n**Alternatives:**"),
            "{md}"
        );
    }

    #[test]
    fn a_diff_without_notes_has_no_section() {
        let html = page(&DETAILS.replace("\"migration\"", "\"other\""));
        assert!(!html.contains("How to migrate"), "{html}");
    }

    #[test]
    fn notes_past_the_page_budget_are_counted_not_shown() {
        let mut items = Vec::new();
        for i in 0..(MAX_NOTES + 7) {
            items.push(serde_json::json!({"id": format!("i{i}"), "name": format!("GET /p{i}"), "status": "removed",
                "type": "endpoint", "breaking": true,
                "changes": [{"message": "removed", "level": "breaking", "migration": "Stop calling it."}], "children": []}));
        }
        let html = page(&serde_json::Value::Array(items).to_string());
        assert_eq!(html.matches("class=\"mign\"").count(), MAX_NOTES);
        assert!(
            html.contains("7 more migration notes are not shown here"),
            "{html}"
        );
    }

    #[test]
    fn the_markdown_form_has_a_how_to_migrate_section_with_escaped_headings() {
        let c = Changes::parse(DETAILS).expect("details");
        let md = c.migration_markdown();
        assert!(md.starts_with("## How to migrate\n\n### GET /pets \\<b\\> › parameter limit\n\nparameter \\`limit\\` became required\n\n**Where:**"), "{md}");
        assert!(
            md.contains(
                "### GET /pets/\\{id\\}\n\nthe operation was removed\n\n**Alternatives:** none."
            ),
            "{md}"
        );
        assert!(!md.contains("not shown"), "{md}");
        assert_eq!(
            Changes::parse("[]").expect("empty").migration_markdown(),
            ""
        );
    }
}
