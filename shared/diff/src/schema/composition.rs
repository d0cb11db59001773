//! Composition: `allOf`, `oneOf` and `anyOf` members (matched by the component they
//! reference, else by position; an `allOf` member that only takes over properties the other
//! side declares inline is a refactoring, not a new member), `not`, and `if`/`then`/`else`.

use std::collections::BTreeSet;

use specpress_apispec::{Arr, Location, Obj, V};

use super::Pair;
use super::values::{array, props_of, required_set};
use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::rules::SchemaCheck;

/// The composition keywords and their member rules (added, removed).
const COMPOSITION: [(&str, SchemaCheck, SchemaCheck); 3] = [
    ("allOf", SchemaCheck::AllOfAdded, SchemaCheck::AllOfRemoved),
    ("oneOf", SchemaCheck::OneOfAdded, SchemaCheck::OneOfRemoved),
    ("anyOf", SchemaCheck::AnyOfAdded, SchemaCheck::AnyOfRemoved),
];

/// A keyword reported as added or removed as a whole, its subschemas compared when both sides
/// have it.
struct Whole {
    key: &'static str,
    added: (SchemaCheck, &'static str),
    removed: (SchemaCheck, &'static str),
    /// The keywords compared one level down when both sides have `key`.
    inside: &'static [&'static str],
}

const WHOLES: [Whole; 2] = [
    Whole {
        key: "not",
        added: (SchemaCheck::NotAdded, "a `not` exclusion was added"),
        removed: (SchemaCheck::NotRemoved, "the `not` exclusion was removed"),
        inside: &[],
    },
    Whole {
        key: "if",
        added: (
            SchemaCheck::ConditionalAdded,
            "an if/then/else condition was added",
        ),
        removed: (
            SchemaCheck::ConditionalRemoved,
            "the if/then/else condition was removed",
        ),
        inside: &["if", "then", "else"],
    },
];

/// The crumb label of a member key (`inline:0` of `allOf` is `allOf[0]`, `ref:Pet` is `Pet`).
fn member_label(key: &str, member: &str) -> String {
    let label = member.split_once(':').map_or(member, |x| x.1);
    if member.starts_with("inline:") {
        format!("{key}[{label}]")
    } else {
        label.to_string()
    }
}

/// Deepest `allOf` nesting flattened inside one `allOf` member (`$ref` cycles end here too).
const MAX_ALLOF_NESTING: usize = 16;

/// What an `allOf` member contributes, nested `allOf`s flattened: its properties (name,
/// location, schema), the union of its `required` entries, and whether it holds nothing but
/// properties (`type: object`, `properties`, `required`, `allOf`, `description`, `title`).
struct MemberParts<'a> {
    properties: Vec<(&'a str, Location, V<'a>)>,
    required: BTreeSet<&'a str>,
    only_properties: bool,
}

impl Default for MemberParts<'_> {
    fn default() -> Self {
        MemberParts {
            properties: Vec::new(),
            required: BTreeSet::new(),
            only_properties: true,
        }
    }
}

/// How a member of allOf/oneOf/anyOf is matched across versions: by the component a `$ref`
/// points to, else by position among the inline members.
fn member_keys(list: Arr<'_>) -> Vec<String> {
    let mut inline = 0usize;
    list.iter()
        .map(|v| match v.get("$ref").and_then(V::as_str) {
            Some(r) => format!("ref:{}", r.rsplit('/').next().unwrap_or(r)),
            None => {
                inline += 1;
                format!("inline:{}", inline - 1)
            }
        })
        .collect()
}

impl<'a> Context<'a> {
    /// The members of each [`COMPOSITION`] keyword: matched ones compared, the others added or
    /// removed (unless an `allOf` member only moves properties).
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn composition(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let (pl, cl) = (pair.previous_at, pair.current_at);
        let (owner, role, depth) = (pair.owner, pair.role, pair.depth);
        for (key, added, removed) in COMPOSITION {
            let (a, b) = (array(pair.previous, key), array(pair.current, key));
            if a.is_empty() && b.is_empty() {
                continue;
            }
            let (ak, bk) = (member_keys(a), member_keys(b));
            for (j, k) in bk.iter().enumerate() {
                let label = member_label(key, k);
                match ak.iter().position(|x| x == k) {
                    Some(i) => {
                        let (previous, current) = (pl.child(key).index(i), cl.child(key).index(j));
                        let crumb = Some(Crumb::new(NodeKind::Variant, label));
                        self.child(owner, crumbs, role, &previous, &current, crumb, depth);
                    }
                    // A new allOf member that only takes over inline properties is a
                    // refactoring: those properties are compared where they moved.
                    None if key == "allOf"
                        && b.get(j)
                            .is_some_and(|member| self.only_moves(pair, false, member)) => {}
                    None => {
                        crumbs.push(Crumb::new(NodeKind::Variant, label.as_str()));
                        self.check(
                            role,
                            added,
                            owner,
                            crumbs,
                            Status::Added,
                            format!("{key} member `{label}` was added"),
                            None,
                            None,
                            pl,
                            &cl.child(key).index(j),
                        );
                        crumbs.pop();
                    }
                }
            }
            for (i, k) in ak.iter().enumerate() {
                if bk.contains(k) {
                    continue;
                }
                if key == "allOf"
                    && a.get(i)
                        .is_some_and(|member| self.only_moves(pair, true, member))
                {
                    continue;
                }
                let label = member_label(key, k);
                crumbs.push(Crumb::new(NodeKind::Variant, label.as_str()));
                self.check(
                    role,
                    removed,
                    owner,
                    crumbs,
                    Status::Removed,
                    format!("{key} member `{label}` was removed"),
                    None,
                    None,
                    &pl.child(key).index(i),
                    cl,
                );
                crumbs.pop();
            }
        }
    }

    /// Whether an `allOf` member of one side (`previous`) only takes over properties the other
    /// side declares inline.
    fn only_moves(&mut self, pair: &Pair<'_, 'a>, previous: bool, member: V<'a>) -> bool {
        let (pp, cp) = (props_of(pair.previous), props_of(pair.current));
        if previous {
            let required = required_set(pair.current);
            self.member_only_moves(true, pair.previous_at, member, pp, cp, &required)
        } else {
            let required = required_set(pair.previous);
            self.member_only_moves(false, pair.current_at, member, cp, pp, &required)
        }
    }

    /// The [`WHOLES`]: `not` and `if` added or removed, or compared inside.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn exclusion_and_condition(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let (previous, current) = (pair.previous, pair.current);
        for row in &WHOLES {
            let key = row.key;
            match (previous.get(key), current.get(key)) {
                (None, Some(b)) => {
                    let (check, message) = row.added;
                    let values = (None, Some(b.to_value()));
                    self.changed(pair, crumbs, check, message.into(), values);
                }
                (Some(a), None) => {
                    let (check, message) = row.removed;
                    let values = (Some(a.to_value()), None);
                    self.changed(pair, crumbs, check, message.into(), values);
                }
                (Some(_), Some(_)) => {
                    for &key in row.inside {
                        if previous.contains_key(key) && current.contains_key(key) {
                            let crumb = Crumb::new(NodeKind::Condition, key);
                            self.child_at(pair, crumbs, key, crumb);
                        }
                    }
                }
                (None, None) => {}
            }
        }
    }

    /// Properties declared by the `allOf` members of a schema (a member that is a `$ref` is
    /// followed, and a member's own `allOf` flattened): name, location and value of the
    /// property schema, and whether the member requires it. Used to see a property moved
    /// between the schema and a member.
    pub(super) fn allof_properties(
        &mut self,
        previous: bool,
        at: &Location,
        m: Obj<'a>,
    ) -> Vec<(&'a str, Location, V<'a>, bool)> {
        let Some(members) = m.get("allOf").and_then(V::as_array) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, member) in members.iter().enumerate() {
            let mut parts = MemberParts::default();
            let loc = at.child("allOf").index(i);
            self.member_parts(previous, loc, member, 0, &mut parts);
            let required = &parts.required;
            out.extend(
                parts
                    .properties
                    .into_iter()
                    .map(|(name, loc, v)| (name, loc, v, required.contains(name))),
            );
        }
        out
    }

    /// Gathers what an `allOf` member contributes into `parts`: its properties and `required`
    /// entries, through `$ref`s and nested `allOf`s (to [`MAX_ALLOF_NESTING`] levels), and
    /// whether it holds nothing else.
    fn member_parts(
        &mut self,
        previous: bool,
        at: Location,
        member: V<'a>,
        depth: usize,
        parts: &mut MemberParts<'a>,
    ) {
        let nav = if previous {
            &mut self.previous.nav
        } else {
            &mut self.current.nav
        };
        let resolved = match member.get("$ref").and_then(V::as_str) {
            Some(r) => nav.follow(at.file, r).map(|(l, v)| ((*l).clone(), v)),
            None => Some((at, member)),
        };
        let Some((loc, Some(obj))) = resolved.map(|(l, v)| (l, v.as_object())) else {
            parts.only_properties = false;
            return;
        };
        parts.required.extend(required_set(obj));
        if let Some(props) = obj.get("properties").and_then(V::as_object) {
            let ploc = loc.child("properties");
            for (name, v) in props.iter() {
                parts.properties.push((name, ploc.child(name), v));
            }
        }
        parts.only_properties &= obj.iter().all(|(k, v)| match k {
            "properties" | "required" | "description" | "title" => true,
            "allOf" => v.is_array(),
            "type" => v.as_str() == Some("object"),
            _ => false,
        });
        if let Some(nested) = obj.get("allOf").and_then(V::as_array) {
            if depth >= MAX_ALLOF_NESTING {
                parts.only_properties = false;
                return;
            }
            for (i, n) in nested.iter().enumerate() {
                let nloc = loc.child("allOf").index(i);
                self.member_parts(previous, nloc, n, depth + 1, parts);
            }
        }
    }

    /// Whether an `allOf` member only holds properties the other side declares inline (a
    /// refactoring that moves them, not a new constraint): its properties (nested `allOf`s
    /// included) are all declared inline on the other side and not on this one, it requires
    /// nothing the other side did not, and it has no other keyword than `type: object`,
    /// `properties`, `required`, `allOf`, `description` and `title`.
    fn member_only_moves(
        &mut self,
        previous: bool,
        at: &Location,
        member: V<'a>,
        here: Obj<'_>,
        there: Obj<'_>,
        there_required: &BTreeSet<&str>,
    ) -> bool {
        let mut parts = MemberParts::default();
        self.member_parts(previous, at.clone(), member, 0, &mut parts);
        parts.only_properties
            && !parts.properties.is_empty()
            && parts
                .properties
                .iter()
                .all(|(k, _, _)| there.contains_key(k) && !here.contains_key(k))
            && parts.required.iter().all(|r| there_required.contains(r))
    }
}
