//! The breaking changes of a release as `get_change` lists them: every `changes[]` entry of level `breaking` in the
//! diff's `DiffItem[]` tree (accepted changes already marked, see `specpress_reader::diffs::accepting`), with the
//! element it belongs to, its migration note and its acceptance; bounded in count and in bytes of notes.

use serde_json::Value;

use super::answer::{MAX_BREAKING_CHANGES, MAX_MIGRATION_BYTES, text};
use super::wire::{AcceptedNote, BreakingChange};

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The breaking changes of `details` in the tree's order, and how many were left out.
pub(super) fn breaking_changes(details: &str) -> (Vec<BreakingChange>, usize) {
    let Ok(Value::Array(top)) = serde_json::from_str::<Value>(details) else {
        return (Vec::new(), 0);
    };
    let mut out = Vec::new();
    let mut omitted = 0usize;
    let mut notes = 0usize;
    for item in &top {
        let name = str_of(item, "name");
        // Depth-first, in order, without recursion.
        let mut stack = vec![item];
        while let Some(node) = stack.pop() {
            for c in node
                .get("changes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if str_of(c, "level") != "breaking" {
                    continue;
                }
                if out.len() >= MAX_BREAKING_CHANGES {
                    omitted += 1;
                    continue;
                }
                let migration = c
                    .get("migration")
                    .and_then(Value::as_str)
                    .filter(|m| notes + m.len() <= MAX_MIGRATION_BYTES)
                    .map(text);
                notes += migration.as_ref().map_or(0, String::len);
                out.push(BreakingChange {
                    id: text(str_of(c, "id")),
                    item: text(name),
                    message: text(str_of(c, "message")),
                    migration,
                    accepted: c.get("accepted").map(|a| AcceptedNote {
                        reason: text(str_of(a, "reason")),
                        expires_at: a.get("expires_at").and_then(Value::as_str).map(text),
                    }),
                });
            }
            if let Some(children) = node.get("children").and_then(Value::as_array) {
                stack.extend(children.iter().rev());
            }
        }
    }
    (out, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaking_changes_come_with_their_item_note_and_acceptance_in_tree_order() {
        let details = r#"[
          {"name":"GET /pets","changes":[],"children":[
            {"name":"limit","changes":[
              {"id":"a1","level":"breaking","message":"became required","migration":"Send `limit`.",
               "accepted":{"reason":"announced","expires_at":null}},
              {"id":"b2","level":"info","message":"described"}],"children":[]}]},
          {"name":"DELETE /pets","changes":[{"id":"c3","level":"breaking","message":"removed"}],"children":[]}
        ]"#;
        let (list, omitted) = breaking_changes(details);
        assert_eq!(omitted, 0);
        assert_eq!(list.len(), 2);
        assert_eq!(
            (list[0].id.as_str(), list[0].item.as_str()),
            ("a1", "GET /pets")
        );
        assert_eq!(list[0].migration.as_deref(), Some("Send `limit`."));
        let accepted = list[0].accepted.as_ref().expect("accepted");
        assert_eq!(
            (accepted.reason.as_str(), accepted.expires_at.as_deref()),
            ("announced", None)
        );
        assert_eq!(
            (list[1].id.as_str(), list[1].item.as_str()),
            ("c3", "DELETE /pets")
        );
        assert!(list[1].migration.is_none() && list[1].accepted.is_none());
    }

    #[test]
    fn the_list_is_bounded_and_says_how_many_were_left_out() {
        let one = r#"{"id":"x","level":"breaking","message":"m"}"#;
        let details = format!(
            r#"[{{"name":"GET /a","children":[],"changes":[{}]}}]"#,
            vec![one; MAX_BREAKING_CHANGES + 5].join(",")
        );
        let (list, omitted) = breaking_changes(&details);
        assert_eq!((list.len(), omitted), (MAX_BREAKING_CHANGES, 5));
        let (none, left) = breaking_changes("not json");
        assert!(none.is_empty() && left == 0);
    }
}
