//! Accepted changes: a documentation's producer says a breaking change was announced and agreed on, so that it no
//! longer fails CI (`bump diff --fail-on-breaking`), while every reader still sees it as breaking, with the reason.
//!
//! A change is named by its stable id (the diff engine's `id` of each `changes[]` entry: 16 lower-case hex digits,
//! the same for the same change across re-diffs, key order, JSON/YAML and inlining). An acceptance may expire: from
//! `expires_at` on it counts no more. The set is replaced as a whole (`PUT .../accepted_changes`) and bounded
//! ([`MAX_ACCEPTED`] entries, reasons of at most [`MAX_REASON_CHARS`] characters), so it fits one stored item.
//!
//! [`annotate`] applies a set to a diff's `DiffItem[]` JSON: each accepted change entry gains
//! `accepted: {reason, expires_at}`, nothing else changes (levels, `breaking` flags of items), and the answer says
//! whether a breaking change is left that no live acceptance covers: the `breaking` flag CI reads.

use std::collections::HashMap;

use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::{DomainError, Result};

/// Most entries of one documentation's set.
pub const MAX_ACCEPTED: usize = 200;
/// Longest reason, in characters.
pub const MAX_REASON_CHARS: usize = 300;
/// Hex digits of a change id (the diff engine's ids).
pub const CHANGE_ID_LEN: usize = 16;

/// One accepted change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedChange {
    /// The change's stable id (16 lower-case hex digits).
    pub id: String,
    /// Why it was accepted (the producer's words: document-like text, escaped wherever it is shown).
    pub reason: String,
    /// When it entered the set (kept when a later `PUT` keeps it).
    pub accepted_at: OffsetDateTime,
    /// From when it counts no more.
    pub expires_at: Option<OffsetDateTime>,
}

impl AcceptedChange {
    /// Whether the acceptance has expired at `now`.
    pub fn expired(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
}

/// A documentation's accepted changes, in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AcceptedChanges {
    /// The entries (ids unique).
    pub changes: Vec<AcceptedChange>,
}

impl AcceptedChanges {
    /// No entry.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The acceptances still in force at `now`, by change id.
    pub fn live(&self, now: OffsetDateTime) -> HashMap<&str, &AcceptedChange> {
        self.changes
            .iter()
            .filter(|c| !c.expired(now))
            .map(|c| (c.id.as_str(), c))
            .collect()
    }
}

impl AcceptedChanges {
    /// What the live acceptances at `now` are, as a text that changes whenever they do (an entry added, removed,
    /// reworded or expired): part of the validators (ETags) of the pages that show them. Empty without any.
    pub fn live_key(&self, now: OffsetDateTime) -> String {
        let mut out = String::new();
        for c in self.changes.iter().filter(|c| !c.expired(now)) {
            out.push_str(&c.id);
            out.push('\0');
            out.push_str(&c.reason);
            out.push('\0');
            if let Some(e) = c.expires_at {
                out.push_str(&e.unix_timestamp().to_string());
            }
            out.push('\n');
        }
        out
    }
}

/// One entry as a client sends it (`{id, reason, expires_at?}`), before validation.
#[derive(Debug, Clone, Default)]
pub struct AcceptedInput {
    pub id: Option<String>,
    pub reason: Option<String>,
    pub expires_at: Option<String>,
}

/// Whether `id` has the form of a change id.
pub fn is_change_id(id: &str) -> bool {
    id.len() == CHANGE_ID_LEN && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Validates a new set: every entry's id (the form of a change id, unique), reason (not blank, at most
/// [`MAX_REASON_CHARS`]) and `expires_at` (RFC 3339, in the future), at most [`MAX_ACCEPTED`] entries. The first
/// problem is a 422 naming its place (`changes[2].reason`). An entry already in `current` keeps its `accepted_at`;
/// the others are accepted at `now`.
pub fn validate(
    input: Vec<AcceptedInput>,
    current: &AcceptedChanges,
    now: OffsetDateTime,
) -> Result<AcceptedChanges> {
    if input.len() > MAX_ACCEPTED {
        return Err(DomainError::invalid(
            "changes",
            format!(
                "at most {MAX_ACCEPTED} accepted changes per documentation ({} given)",
                input.len()
            ),
        ));
    }
    let mut out: Vec<AcceptedChange> = Vec::with_capacity(input.len());
    for (i, entry) in input.into_iter().enumerate() {
        let field = |name: &str| format!("changes[{i}].{name}");
        let id = entry.id.as_deref().map(str::trim).unwrap_or_default();
        if id.is_empty() {
            return Err(DomainError::invalid(&field("id"), "id is required"));
        }
        if !is_change_id(id) {
            return Err(DomainError::invalid(
                &field("id"),
                format!(
                    "id is not a change id ({CHANGE_ID_LEN} lower-case hexadecimal digits, as the `id` of a change \
                     in a diff's details)"
                ),
            ));
        }
        if out.iter().any(|c| c.id == id) {
            return Err(DomainError::invalid(
                &field("id"),
                "id is given twice (each change is accepted once)",
            ));
        }
        let reason = entry.reason.as_deref().map(str::trim).unwrap_or_default();
        if reason.is_empty() {
            return Err(DomainError::invalid(
                &field("reason"),
                "reason is required: say why the change is accepted",
            ));
        }
        if reason.chars().count() > MAX_REASON_CHARS {
            return Err(DomainError::invalid(
                &field("reason"),
                format!("reason is longer than {MAX_REASON_CHARS} characters"),
            ));
        }
        let expires_at = match entry.expires_at.as_deref().map(str::trim) {
            None => None,
            Some(text) => {
                let at = OffsetDateTime::parse(text, &Rfc3339).map_err(|_| {
                    DomainError::invalid(
                        &field("expires_at"),
                        "expires_at is not an RFC 3339 date-time (as 2027-01-31T00:00:00Z)",
                    )
                })?;
                if at <= now {
                    return Err(DomainError::invalid(
                        &field("expires_at"),
                        "expires_at is in the past",
                    ));
                }
                Some(at)
            }
        };
        let accepted_at = current
            .changes
            .iter()
            .find(|c| c.id == id)
            .map_or(now, |c| c.accepted_at);
        out.push(AcceptedChange {
            id: id.to_owned(),
            reason: reason.to_owned(),
            accepted_at,
            expires_at,
        });
    }
    Ok(AcceptedChanges { changes: out })
}

/// The `accepted` member of an accepted change entry: `{reason, expires_at}` (`expires_at` RFC 3339 or `null`).
pub fn accepted_json(c: &AcceptedChange) -> Value {
    let mut m = Map::new();
    m.insert("reason".into(), Value::String(c.reason.clone()));
    m.insert(
        "expires_at".into(),
        c.expires_at
            .and_then(|e| e.format(&Rfc3339).ok())
            .map_or(Value::Null, Value::String),
    );
    Value::Object(m)
}

/// What [`annotate`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotated {
    /// A breaking change no live acceptance covers: what fails CI.
    pub breaking: bool,
    /// Change entries marked accepted.
    pub accepted: usize,
}

/// Marks each change entry of a `DiffItem[]` tree that a live acceptance covers with `accepted: {reason,
/// expires_at}` (any level: an accepted change that is not breaking is marked too), and says whether a breaking
/// change (`level: "breaking"`) is left unaccepted. Levels and the items' `breaking` flags are kept: readers still
/// see an accepted change as breaking. Iterative (an explicit stack, no recursion): a tree of any shape and depth is
/// walked safely, and every node of it, so no breaking change escapes the count.
pub fn annotate(details: &mut Value, accepted: &AcceptedChanges, now: OffsetDateTime) -> Annotated {
    let live = accepted.live(now);
    let mut out = Annotated::default();
    let mut stack: Vec<&mut Value> = vec![details];
    while let Some(node) = stack.pop() {
        match node {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(item) => {
                if let Some(Value::Array(changes)) = item.get_mut("changes") {
                    for change in changes.iter_mut() {
                        let Value::Object(change) = change else {
                            continue;
                        };
                        let breaking =
                            change.get("level").and_then(Value::as_str) == Some("breaking");
                        let hit = change
                            .get("id")
                            .and_then(Value::as_str)
                            .and_then(|id| live.get(id).copied());
                        match hit {
                            Some(a) => {
                                change.insert("accepted".into(), accepted_json(a));
                                out.accepted += 1;
                            }
                            None => out.breaking |= breaking,
                        }
                    }
                }
                if let Some(children @ Value::Array(_)) = item.get_mut("children") {
                    stack.push(children);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::Duration;

    const A: &str = "0123456789abcdef";
    const B: &str = "fedcba9876543210";

    fn now() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
    }

    fn entry(id: &str, reason: &str, expires_at: Option<&str>) -> AcceptedInput {
        AcceptedInput {
            id: Some(id.into()),
            reason: Some(reason.into()),
            expires_at: expires_at.map(Into::into),
        }
    }

    fn field_of(e: DomainError) -> (String, String) {
        match e {
            DomainError::Invalid { field, message, .. } => (field, message),
            other => panic!("expected a 422, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_set_is_taken_and_kept_entries_keep_their_acceptance_time() {
        let earlier = now() - Duration::days(3);
        let current = AcceptedChanges {
            changes: vec![AcceptedChange {
                id: A.into(),
                reason: "old".into(),
                accepted_at: earlier,
                expires_at: None,
            }],
        };
        let set = validate(
            vec![
                entry(A, " announced in March ", None),
                entry(B, "v2 clients only", Some("2030-01-01T00:00:00Z")),
            ],
            &current,
            now(),
        )
        .unwrap();
        assert_eq!(set.changes[0].accepted_at, earlier);
        assert_eq!(set.changes[0].reason, "announced in March");
        assert_eq!(set.changes[1].accepted_at, now());
        assert!(set.changes[1].expires_at.is_some());
    }

    #[test]
    fn each_bad_entry_is_a_422_naming_its_place() {
        let cases = [
            (entry("xyz", "r", None), "changes[0].id"),
            (entry("0123456789ABCDEF", "r", None), "changes[0].id"),
            (entry(A, "   ", None), "changes[0].reason"),
            (
                entry(A, &"x".repeat(MAX_REASON_CHARS + 1), None),
                "changes[0].reason",
            ),
            (entry(A, "r", Some("tomorrow")), "changes[0].expires_at"),
            (
                entry(A, "r", Some("2020-01-01T00:00:00Z")),
                "changes[0].expires_at",
            ),
            (AcceptedInput::default(), "changes[0].id"),
        ];
        for (input, want) in cases {
            let (field, _) =
                field_of(validate(vec![input], &AcceptedChanges::default(), now()).unwrap_err());
            assert_eq!(field, want);
        }
        let twice = validate(
            vec![entry(A, "r", None), entry(A, "s", None)],
            &Default::default(),
            now(),
        );
        assert_eq!(field_of(twice.unwrap_err()).0, "changes[1].id");
        let many: Vec<_> = (0..=MAX_ACCEPTED)
            .map(|i| entry(&format!("{i:016x}"), "r", None))
            .collect();
        assert_eq!(
            field_of(validate(many, &Default::default(), now()).unwrap_err()).0,
            "changes"
        );
        let reason = "é".repeat(MAX_REASON_CHARS);
        assert!(
            validate(vec![entry(A, &reason, None)], &Default::default(), now()).is_ok(),
            "characters, not bytes"
        );
    }

    fn tree() -> Value {
        json!([
            {"id": "get-pets", "breaking": true, "changes": [], "children": [
                {"id": "p", "breaking": true, "children": [], "changes": [
                    {"id": A, "level": "breaking", "message": "required"},
                    {"id": "1111111111111111", "level": "info", "message": "described"}
                ]}
            ]},
            {"id": "delete-pets", "breaking": true, "children": [], "changes": [
                {"id": B, "level": "breaking", "message": "removed"}
            ]}
        ])
    }

    fn set(entries: &[(&str, Option<OffsetDateTime>)]) -> AcceptedChanges {
        AcceptedChanges {
            changes: entries
                .iter()
                .map(|(id, expires_at)| AcceptedChange {
                    id: (*id).into(),
                    reason: format!("<b>{id}</b>"),
                    accepted_at: now() - Duration::days(1),
                    expires_at: *expires_at,
                })
                .collect(),
        }
    }

    #[test]
    fn breaking_stays_until_every_breaking_change_is_accepted_and_levels_are_kept() {
        let mut t = tree();
        let r = annotate(&mut t, &set(&[(A, None)]), now());
        assert_eq!(
            r,
            Annotated {
                breaking: true,
                accepted: 1
            }
        );
        assert_eq!(
            t[0]["children"][0]["changes"][0]["accepted"]["reason"],
            format!("<b>{A}</b>")
        );
        assert_eq!(t[0]["children"][0]["changes"][0]["level"], "breaking");
        assert_eq!(t[0]["breaking"], true);

        let mut t = tree();
        let r = annotate(
            &mut t,
            &set(&[(A, None), (B, Some(now() + Duration::hours(1)))]),
            now(),
        );
        assert_eq!(
            r,
            Annotated {
                breaking: false,
                accepted: 2
            }
        );
        assert_eq!(
            t[1]["changes"][0]["accepted"]["expires_at"],
            "2027-01-15T09:00:00Z"
        );
        assert_eq!(
            t[1]["breaking"], true,
            "the item stays breaking for readers"
        );
    }

    #[test]
    fn an_expired_acceptance_counts_no_more() {
        let mut t = tree();
        let r = annotate(&mut t, &set(&[(A, None), (B, Some(now()))]), now());
        assert_eq!(
            r,
            Annotated {
                breaking: true,
                accepted: 1
            }
        );
        assert!(t[1]["changes"][0].get("accepted").is_none());
    }

    #[test]
    fn a_tree_without_breaking_changes_is_not_breaking_and_odd_shapes_are_walked_safely() {
        let mut t = json!([{"changes": [{"id": "1111111111111111", "level": "info"}, 3, null], "children": "x"}, 7]);
        assert_eq!(
            annotate(&mut t, &AcceptedChanges::default(), now()),
            Annotated::default()
        );
        let mut deep = json!([]);
        for _ in 0..500 {
            deep = json!([{"children": deep, "changes": [{"id": A, "level": "breaking"}]}]);
        }
        let r = annotate(&mut deep, &AcceptedChanges::default(), now());
        assert!(r.breaking);
    }
}
