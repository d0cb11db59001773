//! Schema comparison: recursive through `$ref`s, composition keywords, items, properties,
//! additionalProperties and the JSON Schema 2020-12 keywords of OpenAPI 3.1.
//!
//! Termination and "report once": a `$ref` pair that lands on the same named component on
//! both sides is never followed inline. The component is queued once per role and compared
//! once, its changes are owned by the component, and the use site only records an edge (which
//! later becomes a link item and the component's list of affected operations). Every other
//! schema pair is memoized by (previous location, current location, role), so circular inline
//! references terminate as well, and inline nesting is capped at [`MAX_INLINE_DEPTH`].
//!
//! This module resolves a pair and decides whether to compare it ([`Context::schema`]); the
//! keywords are compared by what they constrain: [`keywords`] (annotations, type, format,
//! enum, bounds and other value constraints), [`properties`] (properties, required,
//! additional, pattern and dependent properties), [`arrays`] (items, tuples, contains, …) and
//! [`composition`] (`allOf`/`oneOf`/`anyOf`, `not`, `if`/`then`/`else`). Their recursion into
//! subschemas comes back through [`Context::child`].

mod arrays;
mod composition;
mod keywords;
mod properties;
mod values;

use std::borrow::Cow;

use serde_json::Value;
use specpress_apispec::{Kind, Location, Obj, V};

pub(crate) use values::same_without_refs;

use crate::change::{Crumb, Status};
use crate::context::{Context, MAX_INLINE_DEPTH, MAX_SCHEMA_VISITS};
use crate::memo::{ComponentRefs, PairState};
use crate::rules::{Role, RuleId, SCHEMA_CHECKS, SchemaCheck};

/// A schema location: the caller's, or one a `$ref` led to (shared with the navigation
/// cache).
enum Here<'l> {
    Borrowed(&'l Location),
    Shared(std::rc::Rc<Location>),
}

impl std::ops::Deref for Here<'_> {
    type Target = Location;
    fn deref(&self) -> &Location {
        match self {
            Here::Borrowed(l) => l,
            Here::Shared(l) => l,
        }
    }
}

impl AsRef<Location> for Here<'_> {
    fn as_ref(&self) -> &Location {
        self
    }
}

/// Pointers of reusable definitions (OpenAPI 3 / AsyncAPI components, Swagger 2.0
/// `parameters`, `responses` and `definitions`).
fn shared_pointer(pointer: &str) -> bool {
    [
        "/components/",
        "/parameters/",
        "/responses/",
        "/definitions/",
    ]
    .iter()
    .any(|p| pointer.starts_with(p))
}

/// Two schema objects under comparison, where they are, and where their changes go.
#[derive(Clone, Copy)]
pub(super) struct Pair<'n, 'a> {
    /// The owner the changes are reported at.
    pub owner: usize,
    pub role: Role,
    /// Inline nesting depth (against [`MAX_INLINE_DEPTH`]).
    pub depth: usize,
    pub previous_at: &'n Location,
    pub current_at: &'n Location,
    pub previous: Obj<'a>,
    pub current: Obj<'a>,
}

/// A schema pair as found: the locations asked for, their values (possibly `$ref`s), and how
/// the pair is reached.
struct Request<'n, 'a> {
    previous: &'n Location,
    current: &'n Location,
    previous_raw: V<'a>,
    current_raw: V<'a>,
    role: Role,
    depth: usize,
    /// A queued component's own definition, not a use of it.
    definition: bool,
}

impl<'a> Context<'a> {
    /// Compares the schemas at two locations (either may be a `$ref`).
    pub(crate) fn schema(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        previous: &Location,
        current: &Location,
        depth: usize,
    ) {
        self.schema_at(owner, crumbs, role, (previous, current), depth, false);
    }

    /// Compares a queued component pair (its own definition, not a use of it).
    pub(crate) fn schema_resolved(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        previous: &Location,
        current: &Location,
        depth: usize,
    ) {
        self.schema_at(owner, crumbs, role, (previous, current), depth, true);
    }

    /// Compares a subschema pair one level down, under `crumb` if given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn child(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        previous: &Location,
        current: &Location,
        crumb: Option<Crumb>,
        depth: usize,
    ) {
        let pushed = crumb.is_some();
        if let Some(cr) = crumb {
            crumbs.push(cr);
        }
        self.schema(owner, crumbs, role, previous, current, depth + 1);
        if pushed {
            crumbs.pop();
        }
    }

    /// Resolves a pair: an edge when it lands on a shared component (compared once, on its
    /// own), else the pair is compared here.
    fn schema_at(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        (previous, current): (&Location, &Location),
        depth: usize,
        definition: bool,
    ) {
        // The same pair again (Swagger 2.0 gives every media type of a body or response the
        // same schema location): when its outcome was just an edge, only the edge is new.
        let last_edge = &self.memo.last_edge;
        if let Some(to) = last_edge.hit(previous, current, role, depth, definition) {
            self.found.link(owner, to, crumbs);
            return;
        }
        let (Some(previous_raw), Some(current_raw)) = (
            self.previous.nav.lookup(previous),
            self.current.nav.lookup(current),
        ) else {
            return;
        };
        let request = Request {
            previous,
            current,
            previous_raw,
            current_raw,
            role,
            depth,
            definition,
        };
        self.resolve_and_compare(owner, crumbs, &request);
    }

    fn resolve_and_compare(&mut self, owner: usize, crumbs: &mut Vec<Crumb>, r: &Request<'_, 'a>) {
        let (role, depth, definition) = (r.role, r.depth, r.definition);
        let (previous_ref, current_ref) = (
            r.previous_raw.get("$ref").and_then(V::as_str),
            r.current_raw.get("$ref").and_then(V::as_str),
        );
        // A use of a named component seen before (the same `$ref` strings in the same role):
        // only the edge is new.
        let pure = |v: V<'_>| v.as_object().is_some_and(|m| m.len() == 1);
        let memo = match (previous_ref, current_ref) {
            (Some(a), Some(b)) if !definition && pure(r.previous_raw) && pure(r.current_raw) => {
                Some((r.previous.file, a, r.current.file, b, role))
            }
            _ => None,
        };
        if let Some(to) = memo
            .as_ref()
            .and_then(|k| self.memo.ref_links.get(k))
            .copied()
        {
            let last_edge = &mut self.memo.last_edge;
            last_edge.set(r.previous, r.current, role, depth, definition, to);
            self.found.link(owner, to, crumbs);
            return;
        }
        // Borrowed unless a `$ref` was followed: most inline schemas need no copy of their
        // location until they enter the pair memo.
        let resolved = (
            match previous_ref {
                Some(to) => (self.previous.nav.follow(r.previous.file, to))
                    .map(|(l, v)| (Here::Shared(l), v)),
                None => Some((Here::Borrowed(r.previous), r.previous_raw)),
            },
            match current_ref {
                Some(to) => {
                    (self.current.nav.follow(r.current.file, to)).map(|(l, v)| (Here::Shared(l), v))
                }
                None => Some((Here::Borrowed(r.current), r.current_raw)),
            },
        );
        let (Some((previous_at, previous)), Some((current_at, current))) = resolved else {
            return;
        };
        // OpenAPI 3.1 lets a `$ref` carry sibling keywords (`description`, `deprecated`, …):
        // they belong to this use site, not to the referenced definition.
        let siblings = previous_ref.is_some()
            && current_ref.is_some()
            && (r.previous_raw.as_object().is_some_and(|m| m.len() > 1)
                || r.current_raw.as_object().is_some_and(|m| m.len() > 1));
        if siblings {
            self.ref_siblings(owner, crumbs, r);
        }
        let is_self = definition && *previous_at == *r.previous && *current_at == *r.current;
        let (shared, named) = if is_self {
            (None, false)
        } else {
            self.shared_component(&previous_at, &current_at, depth)
        };
        if let Some(name) = shared {
            let to = self.component(&name, role, &previous_at, &current_at);
            if named && let Some(k) = memo {
                self.memo.ref_links.insert(k, to);
            }
            if !siblings {
                let last_edge = &mut self.memo.last_edge;
                last_edge.set(r.previous, r.current, role, depth, definition, to);
            }
            self.found.link(owner, to, crumbs);
            return;
        }
        let at = (previous_at.as_ref(), current_at.as_ref());
        self.visit(owner, crumbs, role, at, (previous, current), depth);
    }

    /// The shared component a resolved pair is (a named schema on both sides, or the schema
    /// of a shared parameter, response, header or message at the top of a walk), and whether
    /// it is a named schema pair (even one whose names differ: then it is compared inline).
    fn shared_component<'n>(
        &self,
        previous_at: &Location,
        current_at: &'n Location,
        depth: usize,
    ) -> (Option<Cow<'n, str>>, bool)
    where
        'a: 'n,
    {
        let names = (
            self.previous.schema_names.get(previous_at),
            self.current.schema_names.get(current_at),
        );
        if let (Some(&previous), Some(&current)) = names {
            return (
                (previous == current).then_some(Cow::Borrowed(current)),
                true,
            );
        }
        if depth == 0
            && previous_at.pointer == current_at.pointer
            && previous_at.file == current_at.file
            && shared_pointer(&previous_at.pointer)
        {
            // The schema of a shared parameter, response, header or message: compared once,
            // reported at its definition.
            let name = previous_at.pointer.trim_start_matches('/').to_string();
            return (Some(Cow::Owned(name)), false);
        }
        (None, false)
    }

    /// Compares a resolved inline pair once per role, within the walk's budgets; identical
    /// subtrees only link the shared components they use. A pair reached again is not compared
    /// again: the place that reached it is recorded with what its first comparison found (see
    /// [`crate::context::SharedVisit`]).
    fn visit(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        (previous_at, current_at): (&Location, &Location),
        (previous, current): (V<'a>, V<'a>),
        depth: usize,
    ) {
        if depth > MAX_INLINE_DEPTH {
            return;
        }
        if self.visits >= MAX_SCHEMA_VISITS {
            self.truncated = true;
            return;
        }
        let bit = 1u8 << (role as u8);
        let (index, cached) = match self.memo.pairs.find(previous_at, current_at) {
            Some(i) => {
                let Some(state) = self.memo.pairs.state(i) else {
                    return;
                };
                if state.roles & bit != 0 {
                    self.found.reached_again((i, role), owner, crumbs);
                    return;
                }
                state.roles |= bit;
                (i, state.unchanged.clone())
            }
            None => {
                let state = PairState {
                    roles: bit,
                    unchanged: None,
                };
                let i = (self.memo.pairs).insert(previous_at.clone(), current_at.clone(), state);
                (i, None)
            }
        };
        self.visits += 1;
        let start = self.found.visit_started((index, role));
        let at = (previous_at, current_at);
        self.visit_pair(
            owner,
            crumbs,
            role,
            at,
            (previous, current),
            depth,
            (index, cached),
        );
        self.found.visit_ended(start, owner, crumbs);
    }

    /// [`Context::visit`] of a pair met for the first time in its role.
    #[allow(clippy::too_many_arguments)]
    fn visit_pair(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        at: (&Location, &Location),
        (previous, current): (V<'a>, V<'a>),
        depth: usize,
        (index, cached): (usize, Option<Option<ComponentRefs>>),
    ) {
        let (previous_at, current_at) = at;
        // Fast path: identical subtrees hold no change of their own; only the shared
        // definitions they use must still be linked (and compared, once).
        if previous_at.file == current_at.file
            && self.link_refs(
                owner,
                crumbs,
                role,
                at,
                (previous, current),
                (index, cached),
            )
        {
            return;
        }
        let (Kind::Object(previous), Kind::Object(current)) = (previous.kind(), current.kind())
        else {
            // Boolean schemas (3.1): `true` accepts everything, `false` nothing.
            self.boolean_schemas(owner, crumbs, role, at, (previous, current));
            return;
        };
        let pair = Pair {
            owner,
            role,
            depth,
            previous_at,
            current_at,
            previous,
            current,
        };
        self.compare(&pair, crumbs);
    }

    /// Two schemas of which one at least is a boolean (`true` accepts everything, `false`
    /// nothing).
    fn boolean_schemas(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        role: Role,
        (previous_at, current_at): (&Location, &Location),
        (previous, current): (V<'a>, V<'a>),
    ) {
        if previous != current {
            self.check(
                role,
                SchemaCheck::TypeChanged,
                owner,
                crumbs,
                Status::Modified,
                format!(
                    "schema changed from `{}` to `{}`",
                    values::short(previous),
                    values::short(current)
                ),
                Some(previous.to_value()),
                Some(current.to_value()),
                previous_at,
                current_at,
            );
        }
    }

    /// Compares two schema objects keyword by keyword, in the order the changes are reported.
    /// Kept out of line so that the keyword families (`#[inline]`, one call each) are inlined
    /// here, as when they were one function, rather than left as calls from the resolution
    /// above (too large to take them in): 0.5-1% of the instructions of a diff (callgrind).
    #[inline(never)]
    fn compare(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let at = (pair.previous_at, pair.current_at);
        self.schema_level(pair.owner, crumbs, at);
        self.annotations(pair, crumbs);
        self.types(pair, crumbs);
        self.set_unset(pair, crumbs, &keywords::FORMAT);
        self.allowed_values(pair, crumbs);
        self.bounds(pair, crumbs);
        self.value_constraints(pair, crumbs);
        self.properties(pair, crumbs);
        self.additional_properties(pair, crumbs);
        self.dependent_required(pair, crumbs);
        self.keyed_subschemas(pair, crumbs);
        self.items(pair, crumbs);
        self.prefix_items(pair, crumbs);
        self.applicators(pair, crumbs);
        self.composition(pair, crumbs);
        self.exclusion_and_condition(pair, crumbs);
    }

    /// Compares the keywords written next to a `$ref` on both sides.
    fn ref_siblings(&mut self, owner: usize, crumbs: &[Crumb], r: &Request<'_, 'a>) {
        let (previous, current) = (r.previous_raw, r.current_raw);
        let report = |e: &mut Self, check, message: &str, values: (Option<Value>, _)| {
            e.check(
                r.role,
                check,
                owner,
                crumbs,
                Status::Modified,
                message.into(),
                values.0,
                values.1,
                r.previous,
                r.current,
            );
        };
        for (key, check, message) in [
            (
                "description",
                SchemaCheck::DescriptionChanged,
                "description changed",
            ),
            ("title", SchemaCheck::TitleChanged, "title changed"),
        ] {
            let (a, b) = (previous.get(key), current.get(key));
            if a != b {
                report(
                    self,
                    check,
                    message,
                    (a.map(V::to_value), b.map(V::to_value)),
                );
            }
        }
        let flag = |v: V<'_>, k: &str| v.get(k).and_then(V::as_bool) == Some(true);
        if !flag(previous, "deprecated") && flag(current, "deprecated") {
            let values = (Some(false.into()), Some(true.into()));
            report(self, SchemaCheck::PropertyDeprecated, "deprecated", values);
        }
        let nullable = (flag(previous, "nullable"), flag(current, "nullable"));
        if nullable.0 != nullable.1 {
            let (check, message) = if nullable.1 {
                (SchemaCheck::BecameNullable, "became nullable")
            } else {
                (SchemaCheck::BecameNotNullable, "is no longer nullable")
            };
            report(
                self,
                check,
                message,
                (Some(nullable.0.into()), Some(nullable.1.into())),
            );
        }
        let (a, b) = (previous.get("default"), current.get("default"));
        if a != b {
            let values = (a.map(V::to_value), b.map(V::to_value));
            report(self, SchemaCheck::DefaultChanged, "default changed", values);
        }
    }

    /// For an unchanged subtree: records an edge to every named component its `$ref`s use.
    /// Returns false (the caller then walks the subtree) if the subtrees differ or a `$ref`
    /// lands anywhere but on a named component. The answer is cached per location pair, so a
    /// component used in several roles is compared and scanned once.
    fn link_refs(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        role: Role,
        at: (&Location, &Location),
        (previous, current): (V<'a>, V<'a>),
        (index, cached): (usize, Option<Option<ComponentRefs>>),
    ) -> bool {
        let targets = match cached {
            Some(cached) => cached,
            None => {
                let found = if values::same(previous, current) {
                    self.ref_targets(at, previous).map(std::rc::Rc::new)
                } else {
                    None
                };
                if let Some(state) = self.memo.pairs.state(index) {
                    state.unchanged = Some(found.clone());
                }
                found
            }
        };
        let Some(targets) = targets else {
            return false;
        };
        for (name, previous_target, current_target) in targets.iter() {
            let to = self.component(name, role, previous_target, current_target);
            if to != owner {
                self.found.link(owner, to, crumbs);
            }
        }
        true
    }

    /// The named components the `$ref`s of an unchanged subtree land on, or `None` if one
    /// lands elsewhere.
    fn ref_targets(
        &mut self,
        (previous_at, current_at): (&Location, &Location),
        value: V<'a>,
    ) -> Option<Vec<(String, Location, Location)>> {
        let mut stack: Vec<V<'a>> = vec![value];
        let mut targets: Vec<(String, Location, Location)> = Vec::new();
        while let Some(v) = stack.pop() {
            match v.kind() {
                Kind::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(V::as_str) {
                        let (previous, _) = self.previous.nav.follow(previous_at.file, r)?;
                        let (current, _) = self.current.nav.follow(current_at.file, r)?;
                        let names = (
                            self.previous.schema_names.get(&*previous),
                            self.current.schema_names.get(&*current),
                        );
                        match names {
                            (Some(a), Some(b)) if a == b => targets.push((
                                b.to_string(),
                                (*previous).clone(),
                                (*current).clone(),
                            )),
                            _ => return None,
                        }
                    }
                    stack.extend(m.values());
                }
                Kind::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        Some(targets)
    }

    /// Reports a schema check (a content-only one once per location pair).
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        role: Role,
        check: SchemaCheck,
        owner: usize,
        crumbs: &[Crumb],
        status: Status,
        message: String,
        previous: Option<Value>,
        current: Option<Value>,
        previous_at: &Location,
        current_at: &Location,
    ) {
        if !SCHEMA_CHECKS[check as usize].structural
            && !(self.memo.content_seen).insert((check, previous_at.clone(), current_at.clone()))
        {
            return;
        }
        self.emit(
            RuleId::schema(role, check),
            owner,
            crumbs,
            status,
            message,
            previous,
            current,
            Some(previous_at),
            Some(current_at),
        );
    }

    /// Reports a `Modified` schema check at a pair.
    #[inline]
    fn changed(
        &mut self,
        pair: &Pair<'_, 'a>,
        crumbs: &[Crumb],
        check: SchemaCheck,
        message: String,
        (previous, current): (Option<Value>, Option<Value>),
    ) {
        self.check(
            pair.role,
            check,
            pair.owner,
            crumbs,
            Status::Modified,
            message,
            previous,
            current,
            pair.previous_at,
            pair.current_at,
        );
    }

    /// Compares the subschemas under `key` of both sides (when both are objects), one level
    /// down under `crumb`.
    #[inline]
    fn child_at(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>, key: &str, crumb: Crumb) {
        let (previous, current) = (pair.previous_at.child(key), pair.current_at.child(key));
        let (owner, role, depth) = (pair.owner, pair.role, pair.depth);
        self.child(owner, crumbs, role, &previous, &current, Some(crumb), depth);
    }
}
