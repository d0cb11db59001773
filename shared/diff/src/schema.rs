//! Schema comparison: recursive through `$ref`s, composition keywords, items, properties,
//! additionalProperties and the JSON Schema 2020-12 keywords of OpenAPI 3.1.
//!
//! Termination and "report once": a `$ref` pair that lands on the same named component on
//! both sides is never followed inline. The component is queued once per role and compared
//! once, its changes are owned by the component, and the use site only records an edge (which
//! later becomes a link item and the component's list of affected operations). Every other
//! schema pair is memoized by (previous location, current location, role), so circular inline
//! references terminate as well, and inline nesting is capped at [`MAX_INLINE_DEPTH`].

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use specpress_spec::Location;

/// An empty list, for schemas without a composition keyword.
static EMPTY_LIST: Vec<Value> = Vec::new();
/// An empty object, for schemas without `properties`.
static EMPTY_MAP: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

use crate::change::{Crumb, NodeKind, Status};
use crate::engine::{Engine, MAX_INLINE_DEPTH, MAX_SCHEMA_VISITS};
use crate::nav::{get, vget};
use crate::rules::{CHECKS, Role, RuleId, S};

/// `get(m, key)` that first tries `near`, the entry of `m` at the position of `key` in the
/// other version's map (read by a walk alongside it): two versions of a document usually
/// list properties in the same order, and a large map's lookup hashes the key.
fn get_at<'m>(
    m: &'m Map<String, Value>,
    near: Option<(&'m String, &'m Value)>,
    key: &str,
) -> Option<&'m Value> {
    match near {
        Some((k, v)) if k == key => Some(v),
        _ => get(m, key),
    }
}

/// Whether a key of `from` is missing from `other`.
fn missing_any(from: &Map<String, Value>, other: &Map<String, Value>) -> bool {
    let mut near = other.iter();
    from.keys().any(|k| get_at(other, near.next(), k).is_none())
}

/// Deep equality that walks objects in key order when both sides list their keys in the same
/// order (the usual case between two versions of one document), and falls back to lookups
/// otherwise; `serde_json`'s own equality hashes every key.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let mut in_order = true;
            for ((ka, va), (kb, vb)) in x.iter().zip(y.iter()) {
                if ka != kb {
                    in_order = false;
                    break;
                }
                if !same(va, vb) {
                    return false;
                }
            }
            in_order
                || x.iter()
                    .all(|(k, v)| crate::nav::get(y, k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// Deep equality of two subtrees that also holds no `$ref` (so nothing outside them can
/// differ either).
pub(crate) fn same_without_refs(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && get(x, "$ref").is_none()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_without_refs(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| same_without_refs(v, w))
        }
        _ => a == b,
    }
}

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

/// Deepest `allOf` nesting flattened inside one `allOf` member (`$ref` cycles end here too).
const MAX_ALLOF_NESTING: usize = 16;

/// What an `allOf` member contributes, nested `allOf`s flattened: its properties (name,
/// location, schema), the union of its `required` entries, and whether it holds nothing but
/// properties (`type: object`, `properties`, `required`, `allOf`, `description`, `title`).
struct MemberParts<'a> {
    properties: Vec<(&'a str, Location, &'a Value)>,
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

/// Type facts of one schema.
struct Types<'v> {
    set: BTreeSet<&'v str>,
    nullable: bool,
}

fn types(m: &Map<String, Value>) -> Types<'_> {
    let mut set = BTreeSet::new();
    let mut nullable = false;
    match get(m, "type") {
        Some(Value::String(t)) if t == "null" => nullable = true,
        Some(Value::String(t)) => {
            set.insert(t.as_str());
        }
        Some(Value::Array(ts)) => {
            for t in ts.iter().filter_map(Value::as_str) {
                if t == "null" {
                    nullable = true;
                } else {
                    set.insert(t);
                }
            }
        }
        _ => {}
    }
    if get(m, "nullable").and_then(Value::as_bool) == Some(true)
        || get(m, "x-nullable").and_then(Value::as_bool) == Some(true)
    {
        nullable = true;
    }
    Types { set, nullable }
}

fn covers(wide: &BTreeSet<&str>, narrow: &BTreeSet<&str>) -> bool {
    narrow
        .iter()
        .all(|t| wide.contains(t) || (*t == "integer" && wide.contains("number")))
}

fn join(set: &BTreeSet<&str>) -> String {
    set.iter().copied().collect::<Vec<_>>().join(", ")
}

/// An upper or lower numeric bound: (value, exclusive).
fn bound(m: &Map<String, Value>, plain: &str, exclusive: &str) -> Option<(f64, bool)> {
    let inclusive = get(m, plain).and_then(Value::as_f64);
    match get(m, exclusive) {
        // JSON Schema 2020-12 / 3.1: a number.
        Some(Value::Number(n)) => {
            let e = n.as_f64()?;
            match inclusive {
                Some(i) if plain == "maximum" && i < e => Some((i, false)),
                Some(i) if plain == "minimum" && i > e => Some((i, false)),
                _ => Some((e, true)),
            }
        }
        // Draft 4 / OpenAPI 3.0: a boolean modifying the plain bound.
        Some(Value::Bool(b)) => inclusive.map(|i| (i, *b)),
        _ => inclusive.map(|i| (i, false)),
    }
}

fn fmt_bound(b: Option<(f64, bool)>) -> String {
    match b {
        None => "none".into(),
        Some((v, true)) => format!("{v} (exclusive)"),
        Some((v, false)) => format!("{v}"),
    }
}

/// The allowed values (enum ∪ const), if restricted.
fn allowed(m: &Map<String, Value>) -> Option<Vec<&Value>> {
    let mut out: Option<Vec<&Value>> = None;
    if let Some(Value::Array(vs)) = get(m, "enum") {
        out = Some(vs.iter().collect());
    }
    if let Some(c) = get(m, "const") {
        out.get_or_insert_with(Vec::new).push(c);
    }
    out
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        let mut cut = 57;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

fn names(list: &[&Value]) -> String {
    list.iter().map(|v| short(v)).collect::<Vec<_>>().join(", ")
}

/// The `properties` of a schema (empty when it has none).
fn props_of(m: &Map<String, Value>) -> &Map<String, Value> {
    get(m, "properties")
        .and_then(Value::as_object)
        .unwrap_or(&EMPTY_MAP)
}

fn required_set(m: &Map<String, Value>) -> BTreeSet<&str> {
    get(m, "required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
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

/// How a member of allOf/oneOf/anyOf is matched across versions: by the component a `$ref`
/// points to, else by position among the inline members.
fn member_keys(list: &[Value]) -> Vec<String> {
    let mut inline = 0usize;
    list.iter()
        .map(|v| match vget(v, "$ref").and_then(Value::as_str) {
            Some(r) => format!("ref:{}", r.rsplit('/').next().unwrap_or(r)),
            None => {
                inline += 1;
                format!("inline:{}", inline - 1)
            }
        })
        .collect()
}

impl<'a> Engine<'a> {
    /// Compares the schemas at two locations (either may be a `$ref`).
    pub(crate) fn schema(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        p: &Location,
        c: &Location,
        depth: usize,
    ) {
        self.schema_at(owner, crumbs, role, p, c, depth, false);
    }

    /// Compares a queued component pair (its own definition, not a use of it).
    pub(crate) fn schema_resolved(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        p: &Location,
        c: &Location,
        depth: usize,
    ) {
        self.schema_at(owner, crumbs, role, p, c, depth, true);
    }

    #[allow(clippy::too_many_arguments)]
    fn schema_at(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        p: &Location,
        c: &Location,
        depth: usize,
        definition: bool,
    ) {
        // The same pair again (Swagger 2.0 gives every media type of a body or response the
        // same schema location): when its outcome was just an edge, only the edge is new.
        if let Some(to) = self.last_edge.hit(p, c, role, depth, definition) {
            self.link(owner, to, crumbs);
            return;
        }
        let (Some(praw), Some(craw)) = (self.pn.lookup(p), self.cn.lookup(c)) else {
            return;
        };
        let (pref, cref) = (
            vget(praw, "$ref").and_then(Value::as_str),
            vget(craw, "$ref").and_then(Value::as_str),
        );
        // A use of a named component seen before (the same `$ref` strings in the same role):
        // only the edge is new.
        let pure = |v: &Value| v.as_object().is_some_and(|m| m.len() == 1);
        let memo = match (pref, cref) {
            (Some(a), Some(b)) if !definition && pure(praw) && pure(craw) => {
                Some((p.file, a, c.file, b, role))
            }
            _ => None,
        };
        if let Some(to) = memo.as_ref().and_then(|k| self.ref_links.get(k)).copied() {
            self.last_edge.set(p, c, role, depth, definition, to);
            self.link(owner, to, crumbs);
            return;
        }
        // Borrowed unless a `$ref` was followed: most inline schemas need no copy of their
        // location until they enter the pair memo.
        let resolved = (
            match pref {
                Some(r) => self.pn.follow(p.file, r).map(|(l, v)| (Here::Shared(l), v)),
                None => Some((Here::Borrowed(p), praw)),
            },
            match cref {
                Some(r) => self.cn.follow(c.file, r).map(|(l, v)| (Here::Shared(l), v)),
                None => Some((Here::Borrowed(c), craw)),
            },
        );
        let (Some((pl, pv)), Some((cl, cv))) = resolved else {
            return;
        };
        // OpenAPI 3.1 lets a `$ref` carry sibling keywords (`description`, `deprecated`, …):
        // they belong to this use site, not to the referenced definition.
        let siblings = pref.is_some()
            && cref.is_some()
            && (praw.as_object().is_some_and(|m| m.len() > 1)
                || craw.as_object().is_some_and(|m| m.len() > 1));
        if siblings {
            self.ref_siblings(owner, crumbs, role, p, praw, c, craw);
        }
        let is_self = definition && *pl == *p && *cl == *c;
        let mut named = false;
        let shared = if is_self {
            None
        } else if let (Some(&pn), Some(&cn)) =
            (self.p_names.get(pl.as_ref()), self.c_names.get(cl.as_ref()))
        {
            named = true;
            (pn == cn).then_some(Cow::Borrowed(cn))
        } else if depth == 0
            && pl.pointer == cl.pointer
            && pl.file == cl.file
            && shared_pointer(&pl.pointer)
        {
            // The schema of a shared parameter, response, header or message: compared once,
            // reported at its definition.
            Some(Cow::Owned(pl.pointer.trim_start_matches('/').to_string()))
        } else {
            None
        };
        if let Some(name) = shared {
            let to = self.component(&name, role, &pl, &cl);
            if named && let Some(k) = memo {
                self.ref_links.insert(k, to);
            }
            if !siblings {
                self.last_edge.set(p, c, role, depth, definition, to);
            }
            self.link(owner, to, crumbs);
            return;
        }
        if depth > MAX_INLINE_DEPTH {
            return;
        }
        if self.visits >= MAX_SCHEMA_VISITS {
            self.truncated = true;
            return;
        }
        let bit = 1u8 << (role as u8);
        let (index, cached) = match self.pairs.find(&pl, &cl) {
            Some(i) => {
                let Some(state) = self.pairs.state(i) else {
                    return;
                };
                if state.roles & bit != 0 {
                    return;
                }
                state.roles |= bit;
                (i, state.unchanged.clone())
            }
            None => {
                let state = crate::engine::PairState {
                    roles: bit,
                    unchanged: None,
                };
                let i = self
                    .pairs
                    .insert(pl.as_ref().clone(), cl.as_ref().clone(), state);
                (i, None)
            }
        };
        self.visits += 1;
        // Fast path: identical subtrees hold no change of their own; only the shared
        // definitions they use must still be linked (and compared, once).
        if pl.file == cl.file
            && self.link_refs(owner, crumbs, role, &pl, &cl, pv, cv, (index, cached))
        {
            return;
        }
        self.compare(owner, crumbs, role, &pl, pv, &cl, cv, depth);
    }

    /// Compares the keywords written next to a `$ref` on both sides.
    #[allow(clippy::too_many_arguments)]
    fn ref_siblings(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        role: Role,
        p: &Location,
        praw: &Value,
        c: &Location,
        craw: &Value,
    ) {
        let (pa, ca) = (vget(praw, "description"), vget(craw, "description"));
        if pa != ca {
            self.check(
                role,
                S::DescriptionChanged,
                owner,
                crumbs,
                Status::Modified,
                "description changed".into(),
                pa.cloned(),
                ca.cloned(),
                p,
                c,
            );
        }
        let (pa, ca) = (vget(praw, "title"), vget(craw, "title"));
        if pa != ca {
            self.check(
                role,
                S::TitleChanged,
                owner,
                crumbs,
                Status::Modified,
                "title changed".into(),
                pa.cloned(),
                ca.cloned(),
                p,
                c,
            );
        }
        let flag =
            |v: &Value, k: &str| crate::nav::vget(v, k).and_then(Value::as_bool) == Some(true);
        if !flag(praw, "deprecated") && flag(craw, "deprecated") {
            self.check(
                role,
                S::PropertyDeprecated,
                owner,
                crumbs,
                Status::Modified,
                "deprecated".into(),
                Some(false.into()),
                Some(true.into()),
                p,
                c,
            );
        }
        if flag(praw, "nullable") != flag(craw, "nullable") {
            let (s, msg) = if flag(craw, "nullable") {
                (S::BecameNullable, "became nullable")
            } else {
                (S::BecameNotNullable, "is no longer nullable")
            };
            self.check(
                role,
                s,
                owner,
                crumbs,
                Status::Modified,
                msg.into(),
                Some(flag(praw, "nullable").into()),
                Some(flag(craw, "nullable").into()),
                p,
                c,
            );
        }
        let (pa, ca) = (vget(praw, "default"), vget(craw, "default"));
        if pa != ca {
            self.check(
                role,
                S::DefaultChanged,
                owner,
                crumbs,
                Status::Modified,
                "default changed".into(),
                pa.cloned(),
                ca.cloned(),
                p,
                c,
            );
        }
    }

    /// For an unchanged subtree: records an edge to every named component its `$ref`s use.
    /// Returns false (the caller then walks the subtree) if the subtrees differ or a `$ref`
    /// lands anywhere but on a named component. The answer is cached per location pair, so a
    /// component used in several roles is compared and scanned once.
    #[allow(clippy::too_many_arguments)]
    fn link_refs(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        role: Role,
        pl: &Location,
        cl: &Location,
        pv: &'a Value,
        cv: &'a Value,
        (index, cached): (usize, Option<Option<crate::engine::ComponentRefs>>),
    ) -> bool {
        let targets = match cached {
            Some(cached) => cached,
            None => {
                let found = if same(pv, cv) {
                    self.ref_targets(pl, cl, pv).map(std::rc::Rc::new)
                } else {
                    None
                };
                if let Some(state) = self.pairs.state(index) {
                    state.unchanged = Some(found.clone());
                }
                found
            }
        };
        let Some(targets) = targets else {
            return false;
        };
        for (name, pt, ct) in targets.iter() {
            let to = self.component(name, role, pt, ct);
            if to != owner {
                self.link(owner, to, crumbs);
            }
        }
        true
    }

    /// The named components the `$ref`s of an unchanged subtree land on, or `None` if one
    /// lands elsewhere.
    fn ref_targets(
        &mut self,
        pl: &Location,
        cl: &Location,
        value: &'a Value,
    ) -> Option<Vec<(String, Location, Location)>> {
        let mut stack: Vec<&'a Value> = vec![value];
        let mut targets: Vec<(String, Location, Location)> = Vec::new();
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = get(m, "$ref") {
                        let (pt, _) = self.pn.follow(pl.file, r)?;
                        let (ct, _) = self.cn.follow(cl.file, r)?;
                        match (self.p_names.get(&*pt), self.c_names.get(&*ct)) {
                            (Some(a), Some(b)) if a == b => {
                                targets.push((b.to_string(), (*pt).clone(), (*ct).clone()))
                            }
                            _ => return None,
                        }
                    }
                    stack.extend(m.values());
                }
                Value::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
        Some(targets)
    }

    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        role: Role,
        s: S,
        owner: usize,
        crumbs: &[Crumb],
        status: Status,
        message: String,
        previous: Option<Value>,
        current: Option<Value>,
        pl: &Location,
        cl: &Location,
    ) {
        if !CHECKS[s as usize].structural && !self.content_seen.insert((s, pl.clone(), cl.clone()))
        {
            return;
        }
        self.emit(
            RuleId::schema(role, s),
            owner,
            crumbs,
            status,
            message,
            previous,
            current,
            Some(pl),
            Some(cl),
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        p: &Location,
        c: &Location,
        crumb: Option<Crumb>,
        depth: usize,
    ) {
        let pushed = crumb.is_some();
        if let Some(cr) = crumb {
            crumbs.push(cr);
        }
        self.schema(owner, crumbs, role, p, c, depth + 1);
        if pushed {
            crumbs.pop();
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn compare(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        pl: &Location,
        pv: &'a Value,
        cl: &Location,
        cv: &'a Value,
        depth: usize,
    ) {
        let contra = role.contravariant();
        let (pm, cm) = match (pv, cv) {
            (Value::Object(pm), Value::Object(cm)) => (pm, cm),
            _ => {
                // Boolean schemas (3.1): `true` accepts everything, `false` nothing.
                if pv != cv {
                    self.check(
                        role,
                        S::TypeChanged,
                        owner,
                        crumbs,
                        Status::Modified,
                        format!("schema changed from `{}` to `{}`", short(pv), short(cv)),
                        Some(pv.clone()),
                        Some(cv.clone()),
                        pl,
                        cl,
                    );
                }
                return;
            }
        };
        macro_rules! emit {
            ($s:expr, $msg:expr, $p:expr, $c:expr) => {
                self.check(
                    role,
                    $s,
                    owner,
                    crumbs,
                    Status::Modified,
                    $msg,
                    $p,
                    $c,
                    pl,
                    cl,
                )
            };
        }
        // Content-only keywords.
        for (key, s) in [
            ("description", S::DescriptionChanged),
            ("title", S::TitleChanged),
        ] {
            let (a, b) = (get(pm, key), get(cm, key));
            if a != b {
                emit!(s, format!("{key} changed"), a.cloned(), b.cloned());
            }
        }
        if get(pm, "example") != get(cm, "example") || get(pm, "examples") != get(cm, "examples") {
            emit!(
                S::ExampleChanged,
                "example changed".into(),
                get(pm, "example").or(get(pm, "examples")).cloned(),
                get(cm, "example").or(get(cm, "examples")).cloned()
            );
        }
        let dep =
            |m: &Map<String, Value>| get(m, "deprecated").and_then(Value::as_bool) == Some(true);
        if !dep(pm) && dep(cm) {
            emit!(
                S::PropertyDeprecated,
                "deprecated".into(),
                Some(false.into()),
                Some(true.into())
            );
        }
        // Types and nullability.
        let (pt, ct) = (types(pm), types(cm));
        if !pt.set.is_empty() && !ct.set.is_empty() && pt.set != ct.set {
            let s = if covers(&ct.set, &pt.set) {
                S::TypeGeneralized
            } else if covers(&pt.set, &ct.set) {
                S::TypeNarrowed
            } else {
                S::TypeChanged
            };
            emit!(
                s,
                format!(
                    "type changed from `{}` to `{}`",
                    join(&pt.set),
                    join(&ct.set)
                ),
                Some(json!(pt.set)),
                Some(json!(ct.set))
            );
        }
        if pt.nullable != ct.nullable {
            let s = if ct.nullable {
                S::BecameNullable
            } else {
                S::BecameNotNullable
            };
            emit!(
                s,
                if ct.nullable {
                    "became nullable".into()
                } else {
                    "is no longer nullable".into()
                },
                Some(pt.nullable.into()),
                Some(ct.nullable.into())
            );
        }
        // A keyword set, removed or changed, its values shown by `$show` in the messages.
        macro_rules! set_unset {
            ($key:literal, $a:expr, $b:expr, $show:expr, $changed:expr, $set:expr, $unset:expr) => {
                match ($a, $b) {
                    (Some(a), Some(b)) if a != b => emit!(
                        $changed,
                        format!("{} changed from {} to {}", $key, $show(a), $show(b)),
                        Some(json!(a)),
                        Some(json!(b))
                    ),
                    (None, Some(b)) => emit!(
                        $set,
                        format!("{} {} was set", $key, $show(b)),
                        None,
                        Some(json!(b))
                    ),
                    (Some(a), None) => emit!(
                        $unset,
                        format!("{} {} was removed", $key, $show(a)),
                        Some(json!(a)),
                        None
                    ),
                    _ => {}
                }
            };
        }
        let quoted = |v: &str| format!("`{v}`");
        let str_of = |m: &'a Map<String, Value>, key: &str| get(m, key).and_then(Value::as_str);
        let num_of = |m: &'a Map<String, Value>, key: &str| get(m, key).and_then(Value::as_f64);
        // Format.
        set_unset!(
            "format",
            str_of(pm, "format"),
            str_of(cm, "format"),
            quoted,
            S::FormatChanged,
            S::FormatSet,
            S::FormatUnset
        );
        // Enum / const.
        match (allowed(pm), allowed(cm)) {
            (Some(a), Some(b)) => {
                let added: Vec<&Value> = b.iter().filter(|v| !a.contains(v)).copied().collect();
                let removed: Vec<&Value> = a.iter().filter(|v| !b.contains(v)).copied().collect();
                if !added.is_empty() {
                    emit!(
                        S::EnumValueAdded,
                        format!("enum values added: {}", names(&added)),
                        None,
                        Some(json!(added))
                    );
                }
                if !removed.is_empty() {
                    emit!(
                        S::EnumValueRemoved,
                        format!("enum values removed: {}", names(&removed)),
                        Some(json!(removed)),
                        None
                    );
                }
            }
            (None, Some(b)) => emit!(
                S::EnumSet,
                format!("values restricted to: {}", names(&b)),
                None,
                Some(json!(b))
            ),
            (Some(a), None) => emit!(
                S::EnumUnset,
                "values are no longer restricted".into(),
                Some(json!(a)),
                None
            ),
            (None, None) => {}
        }
        // Numeric bounds: an upper bound tightens when it decreases, a lower one when it
        // increases (or, at the same value, when it becomes exclusive).
        for (key, exclusive, upper, (tighter, looser, set, unset)) in [
            (
                "maximum",
                "exclusiveMaximum",
                true,
                (S::MaxDecreased, S::MaxIncreased, S::MaxSet, S::MaxUnset),
            ),
            (
                "minimum",
                "exclusiveMinimum",
                false,
                (S::MinIncreased, S::MinDecreased, S::MinSet, S::MinUnset),
            ),
        ] {
            let (pb, cb) = (bound(pm, key, exclusive), bound(cm, key, exclusive));
            if pb == cb {
                continue;
            }
            let s = match (pb, cb) {
                (None, Some(_)) => set,
                (Some(_), None) => unset,
                (Some((a, ae)), Some((b, be))) => {
                    let moved_in = if upper { b < a } else { b > a };
                    if moved_in || (b == a && be && !ae) {
                        tighter
                    } else {
                        looser
                    }
                }
                (None, None) => looser,
            };
            emit!(
                s,
                format!("{key} changed from {} to {}", fmt_bound(pb), fmt_bound(cb)),
                pb.map(|b| json!(b.0)),
                cb.map(|b| json!(b.0))
            );
        }
        // Length / count bounds.
        for (key, dec, inc, set, unset) in [
            (
                "maxLength",
                S::MaxLengthDecreased,
                S::MaxLengthIncreased,
                Some(S::MaxLengthSet),
                Some(S::MaxLengthUnset),
            ),
            (
                "maxItems",
                S::MaxItemsDecreased,
                S::MaxItemsIncreased,
                Some(S::MaxItemsSet),
                Some(S::MaxItemsUnset),
            ),
            (
                "maxProperties",
                S::MaxPropertiesDecreased,
                S::MaxPropertiesIncreased,
                Some(S::MaxPropertiesSet),
                Some(S::MaxPropertiesUnset),
            ),
        ] {
            let (a, b) = (
                get(pm, key).and_then(Value::as_f64),
                get(cm, key).and_then(Value::as_f64),
            );
            let s = match (a, b) {
                (Some(a), Some(b)) if b < a => Some(dec),
                (Some(a), Some(b)) if b > a => Some(inc),
                (None, Some(_)) => set,
                (Some(_), None) => unset,
                _ => None,
            };
            if let Some(s) = s {
                emit!(
                    s,
                    format!(
                        "{key} changed from {} to {}",
                        a.map_or("none".into(), |v| v.to_string()),
                        b.map_or("none".into(), |v| v.to_string())
                    ),
                    a.map(|v| json!(v)),
                    b.map(|v| json!(v))
                );
            }
        }
        for (key, inc, dec) in [
            ("minLength", S::MinLengthIncreased, S::MinLengthDecreased),
            ("minItems", S::MinItemsIncreased, S::MinItemsDecreased),
            (
                "minProperties",
                S::MinPropertiesIncreased,
                S::MinPropertiesDecreased,
            ),
        ] {
            let a = get(pm, key).and_then(Value::as_f64).unwrap_or(0.0);
            let b = get(cm, key).and_then(Value::as_f64).unwrap_or(0.0);
            if a != b {
                emit!(
                    if b > a { inc } else { dec },
                    format!("{key} changed from {a} to {b}"),
                    Some(json!(a)),
                    Some(json!(b))
                );
            }
        }
        // Pattern, multipleOf, uniqueItems, default, discriminator, content encoding.
        set_unset!(
            "pattern",
            str_of(pm, "pattern"),
            str_of(cm, "pattern"),
            quoted,
            S::PatternChanged,
            S::PatternSet,
            S::PatternUnset
        );
        set_unset!(
            "multipleOf",
            num_of(pm, "multipleOf"),
            num_of(cm, "multipleOf"),
            |v: f64| v.to_string(),
            S::MultipleOfChanged,
            S::MultipleOfSet,
            S::MultipleOfUnset
        );
        let unique =
            |m: &Map<String, Value>| get(m, "uniqueItems").and_then(Value::as_bool) == Some(true);
        if unique(pm) != unique(cm) {
            let s = if unique(cm) {
                S::UniqueItemsSet
            } else {
                S::UniqueItemsUnset
            };
            emit!(
                s,
                "uniqueItems changed".into(),
                Some(unique(pm).into()),
                Some(unique(cm).into())
            );
        }
        if get(pm, "default") != get(cm, "default") {
            emit!(
                S::DefaultChanged,
                format!(
                    "default changed from {} to {}",
                    get(pm, "default").map_or("none".into(), short),
                    get(cm, "default").map_or("none".into(), short)
                ),
                get(pm, "default").cloned(),
                get(cm, "default").cloned()
            );
        }
        if let (Some(pd), Some(cd)) = (get(pm, "discriminator"), get(cm, "discriminator")) {
            let prop = |d: &Value| d.get("propertyName").cloned();
            let mapping_removed = pd
                .get("mapping")
                .and_then(Value::as_object)
                .map(|pmap| {
                    let cmap = cd.get("mapping").and_then(Value::as_object);
                    pmap.keys()
                        .any(|k| cmap.is_none_or(|cmap| !cmap.contains_key(k)))
                })
                .unwrap_or(false);
            if prop(pd) != prop(cd) || mapping_removed {
                emit!(
                    S::DiscriminatorChanged,
                    "discriminator property or mapping changed".into(),
                    Some(pd.clone()),
                    Some(cd.clone())
                );
            }
        }
        for key in ["contentMediaType", "contentEncoding"] {
            if get(pm, key) != get(cm, key) {
                emit!(
                    S::ContentMediaTypeChanged,
                    format!("{key} changed"),
                    get(pm, key).cloned(),
                    get(cm, key).cloned()
                );
            }
        }
        // Objects.
        self.properties(owner, crumbs, role, pl, pm, cl, cm, depth);
        for key in ["additionalProperties", "unevaluatedProperties"] {
            let open = |v: Option<&Value>| !matches!(v, Some(Value::Bool(false)));
            let (a, b) = (get(pm, key), get(cm, key));
            if open(a) && !open(b) {
                emit!(
                    S::AdditionalPropertiesNarrowed,
                    format!("{key} are no longer allowed"),
                    a.cloned(),
                    b.cloned()
                );
            } else if !open(a) && open(b) {
                emit!(
                    S::AdditionalPropertiesWidened,
                    format!("{key} are now allowed"),
                    a.cloned(),
                    b.cloned()
                );
            } else if matches!(a, Some(Value::Object(_))) && matches!(b, Some(Value::Object(_))) {
                self.child(
                    owner,
                    crumbs,
                    role,
                    &pl.child(key),
                    &cl.child(key),
                    Some(Crumb::new(NodeKind::AdditionalProperties, key)),
                    depth,
                );
            }
        }
        if let (Some(Value::Object(_)), Some(Value::Object(_))) = (
            get(pm, "dependentRequired").or(get(pm, "dependencies")),
            get(cm, "dependentRequired").or(get(cm, "dependencies")),
        ) {}
        let dr = |m: &'a Map<String, Value>| -> BTreeSet<(String, String)> {
            get(m, "dependentRequired")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .flat_map(|(k, v)| {
                            v.as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(Value::as_str)
                                .map(move |d| (k.clone(), d.to_string()))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let (pdr, cdr) = (dr(pm), dr(cm));
        if cdr.difference(&pdr).next().is_some() {
            emit!(
                S::DependentRequiredAdded,
                "dependentRequired constraints were added".into(),
                get(pm, "dependentRequired").cloned(),
                get(cm, "dependentRequired").cloned()
            );
        }
        if pdr.difference(&cdr).next().is_some() {
            emit!(
                S::DependentRequiredRemoved,
                "dependentRequired constraints were removed".into(),
                get(pm, "dependentRequired").cloned(),
                get(cm, "dependentRequired").cloned()
            );
        }
        for (key, added, removed) in [
            (
                "dependentSchemas",
                S::DependentSchemaAdded,
                S::DependentSchemaRemoved,
            ),
            (
                "patternProperties",
                S::PatternPropertyAdded,
                S::PatternPropertyRemoved,
            ),
        ] {
            let a = get(pm, key)
                .and_then(Value::as_object)
                .unwrap_or(&EMPTY_MAP);
            let b = get(cm, key)
                .and_then(Value::as_object)
                .unwrap_or(&EMPTY_MAP);
            for (k, v) in a {
                if b.contains_key(k) {
                    self.child(
                        owner,
                        crumbs,
                        role,
                        &pl.child(key).child(k),
                        &cl.child(key).child(k),
                        Some(Crumb::new(NodeKind::Property, format!("{key}[{k}]"))),
                        depth,
                    );
                } else {
                    crumbs.push(Crumb::new(NodeKind::Property, format!("{key}[{k}]")));
                    self.check(
                        role,
                        removed,
                        owner,
                        crumbs,
                        Status::Removed,
                        format!("{key} entry `{k}` was removed"),
                        Some(v.clone()),
                        None,
                        &pl.child(key).child(k),
                        cl,
                    );
                    crumbs.pop();
                }
            }
            for (k, v) in b {
                if a.contains_key(k) {
                    continue;
                }
                crumbs.push(Crumb::new(NodeKind::Property, format!("{key}[{k}]")));
                self.check(
                    role,
                    added,
                    owner,
                    crumbs,
                    Status::Added,
                    format!("{key} entry `{k}` was added"),
                    None,
                    Some(v.clone()),
                    pl,
                    &cl.child(key).child(k),
                );
                crumbs.pop();
            }
        }
        // Arrays.
        match (get(pm, "items"), get(cm, "items")) {
            (Some(Value::Array(a)), Some(Value::Array(b))) => self.tuple(
                owner,
                crumbs,
                role,
                pl,
                cl,
                "items",
                a.len(),
                b.len(),
                depth,
            ),
            (Some(a), Some(b)) if !a.is_array() && !b.is_array() => self.child(
                owner,
                crumbs,
                role,
                &pl.child("items"),
                &cl.child("items"),
                Some(Crumb::new(NodeKind::Items, "items")),
                depth,
            ),
            _ => {}
        }
        let tuple_len = |m: &Map<String, Value>| {
            get(m, "prefixItems")
                .and_then(Value::as_array)
                .map(Vec::len)
        };
        match (tuple_len(pm), tuple_len(cm)) {
            (Some(a), Some(b)) => {
                self.tuple(owner, crumbs, role, pl, cl, "prefixItems", a, b, depth)
            }
            (None, Some(b)) if b > 0 => emit!(
                S::TupleItemAdded,
                format!("{b} positional items were added"),
                None,
                get(cm, "prefixItems").cloned()
            ),
            (Some(a), None) if a > 0 => emit!(
                S::TupleItemRemoved,
                format!("{a} positional items were removed"),
                get(pm, "prefixItems").cloned(),
                None
            ),
            _ => {}
        }
        for key in ["contains", "propertyNames", "unevaluatedItems"] {
            if let (Some(Value::Object(_)), Some(Value::Object(_))) = (get(pm, key), get(cm, key)) {
                self.child(
                    owner,
                    crumbs,
                    role,
                    &pl.child(key),
                    &cl.child(key),
                    Some(Crumb::new(NodeKind::Condition, key)),
                    depth,
                );
            }
        }
        // Composition.
        for (key, added, removed) in [
            ("allOf", S::AllOfAdded, S::AllOfRemoved),
            ("oneOf", S::OneOfAdded, S::OneOfRemoved),
            ("anyOf", S::AnyOfAdded, S::AnyOfRemoved),
        ] {
            let a = get(pm, key)
                .and_then(Value::as_array)
                .unwrap_or(&EMPTY_LIST);
            let b = get(cm, key)
                .and_then(Value::as_array)
                .unwrap_or(&EMPTY_LIST);
            if a.is_empty() && b.is_empty() {
                continue;
            }
            let (ak, bk) = (member_keys(a), member_keys(b));
            for (j, k) in bk.iter().enumerate() {
                let label = k.split_once(':').map_or(k.as_str(), |x| x.1);
                let label = if k.starts_with("inline:") {
                    format!("{key}[{label}]")
                } else {
                    label.to_string()
                };
                match ak.iter().position(|x| x == k) {
                    Some(i) => self.child(
                        owner,
                        crumbs,
                        role,
                        &pl.child(key).index(i),
                        &cl.child(key).index(j),
                        Some(Crumb::new(NodeKind::Variant, label)),
                        depth,
                    ),
                    // A new allOf member that only takes over inline properties is a
                    // refactoring: those properties are compared where they moved.
                    None if key == "allOf"
                        && b.get(j).is_some_and(|member| {
                            let (pp, cp) = (props_of(pm), props_of(cm));
                            self.member_only_moves(false, cl, member, cp, pp, &required_set(pm))
                        }) => {}
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
                    && a.get(i).is_some_and(|member| {
                        let (pp, cp) = (props_of(pm), props_of(cm));
                        self.member_only_moves(true, pl, member, pp, cp, &required_set(cm))
                    })
                {
                    continue;
                }
                let label = k.split_once(':').map_or(k.as_str(), |x| x.1);
                let label = if k.starts_with("inline:") {
                    format!("{key}[{label}]")
                } else {
                    label.to_string()
                };
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
        match (get(pm, "not").is_some(), get(cm, "not").is_some()) {
            (false, true) => emit!(
                S::NotAdded,
                "a `not` exclusion was added".into(),
                None,
                get(cm, "not").cloned()
            ),
            (true, false) => emit!(
                S::NotRemoved,
                "the `not` exclusion was removed".into(),
                get(pm, "not").cloned(),
                None
            ),
            _ => {}
        }
        match (get(pm, "if").is_some(), get(cm, "if").is_some()) {
            (false, true) => emit!(
                S::ConditionalAdded,
                "an if/then/else condition was added".into(),
                None,
                get(cm, "if").cloned()
            ),
            (true, false) => emit!(
                S::ConditionalRemoved,
                "the if/then/else condition was removed".into(),
                get(pm, "if").cloned(),
                None
            ),
            (true, true) => {
                for key in ["if", "then", "else"] {
                    if pm.contains_key(key) && cm.contains_key(key) {
                        self.child(
                            owner,
                            crumbs,
                            role,
                            &pl.child(key),
                            &cl.child(key),
                            Some(Crumb::new(NodeKind::Condition, key)),
                            depth,
                        );
                    }
                }
            }
            (false, false) => {}
        }
        let _ = contra;
    }

    #[allow(clippy::too_many_arguments)]
    fn tuple(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        pl: &Location,
        cl: &Location,
        key: &str,
        a: usize,
        b: usize,
        depth: usize,
    ) {
        for i in 0..a.min(b) {
            self.child(
                owner,
                crumbs,
                role,
                &pl.child(key).index(i),
                &cl.child(key).index(i),
                Some(Crumb::new(NodeKind::Items, format!("{key}[{i}]"))),
                depth,
            );
        }
        if b > a {
            self.check(
                role,
                S::TupleItemAdded,
                owner,
                crumbs,
                Status::Modified,
                format!("{} positional items were added", b - a),
                Some(json!(a)),
                Some(json!(b)),
                pl,
                cl,
            );
        } else if a > b {
            self.check(
                role,
                S::TupleItemRemoved,
                owner,
                crumbs,
                Status::Modified,
                format!("{} positional items were removed", a - b),
                Some(json!(a)),
                Some(json!(b)),
                pl,
                cl,
            );
        }
    }

    /// Properties declared by the `allOf` members of a schema (a member that is a `$ref` is
    /// followed, and a member's own `allOf` flattened): name, location and value of the
    /// property schema, and whether the member requires it. Used to see a property moved
    /// between the schema and a member.
    fn allof_properties(
        &mut self,
        previous: bool,
        at: &Location,
        m: &'a Map<String, Value>,
    ) -> Vec<(&'a str, Location, &'a Value, bool)> {
        let Some(Value::Array(members)) = get(m, "allOf") else {
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
        member: &'a Value,
        depth: usize,
        parts: &mut MemberParts<'a>,
    ) {
        let nav = if previous { &mut self.pn } else { &mut self.cn };
        let resolved = match vget(member, "$ref").and_then(Value::as_str) {
            Some(r) => nav.follow(at.file, r).map(|(l, v)| ((*l).clone(), v)),
            None => Some((at, member)),
        };
        let Some((loc, Value::Object(obj))) = resolved else {
            parts.only_properties = false;
            return;
        };
        parts.required.extend(required_set(obj));
        if let Some(Value::Object(props)) = get(obj, "properties") {
            let ploc = loc.child("properties");
            for (name, v) in props {
                parts.properties.push((name.as_str(), ploc.child(name), v));
            }
        }
        parts.only_properties &= obj.iter().all(|(k, v)| match k.as_str() {
            "properties" | "required" | "description" | "title" => true,
            "allOf" => v.is_array(),
            "type" => v.as_str() == Some("object"),
            _ => false,
        });
        if let Some(Value::Array(nested)) = get(obj, "allOf") {
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
        member: &'a Value,
        here: &Map<String, Value>,
        there: &Map<String, Value>,
        there_required: &BTreeSet<&str>,
    ) -> bool {
        let mut parts = MemberParts::default();
        self.member_parts(previous, at.clone(), member, 0, &mut parts);
        parts.only_properties
            && !parts.properties.is_empty()
            && parts
                .properties
                .iter()
                .all(|(k, _, _)| there.contains_key(*k) && !here.contains_key(*k))
            && parts.required.iter().all(|r| there_required.contains(r))
    }

    /// A property present on both sides (possibly moved between the schema and an `allOf`
    /// member): required-ness as clients experience it, read/write-only, then its schema.
    #[allow(clippy::too_many_arguments)]
    fn matched_property(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        name: &str,
        (pat, pval, preq): (&Location, &'a Value, bool),
        (cat, cval, creq): (&Location, &'a Value, bool),
        depth: usize,
    ) {
        let contra = role.contravariant();
        let (pf, cf) = (pat.file, cat.file);
        // Required as clients experience it: a read-only property is never sent in a request,
        // a write-only one never returned in a response.
        // `readOnly` and `writeOnly` of each side, each side's `$ref` followed once.
        let (p_ro, p_wo) = self.pn.access(pf, pval);
        let (c_ro, c_wo) = self.cn.access(cf, cval);
        let effective =
            |required: bool, ro: bool, wo: bool| required && !(contra && ro) && (contra || !wo);
        let creq_eff = effective(creq, c_ro, c_wo);
        let preq_eff = effective(preq, p_ro, p_wo);
        crumbs.push(Crumb::new(NodeKind::Property, name));
        let required = match (preq_eff, creq_eff) {
            (false, true) => Some((S::PropertyBecameRequired, "required", false)),
            (true, false) => Some((S::PropertyBecameOptional, "optional", true)),
            _ => None,
        };
        let read_only = (!p_ro && c_ro).then_some((S::PropertyBecameReadOnly, "read-only", false));
        let write_only =
            (!p_wo && c_wo).then_some((S::PropertyBecameWriteOnly, "write-only", false));
        for (s, became, was) in [required, read_only, write_only].into_iter().flatten() {
            self.check(
                role,
                s,
                owner,
                crumbs,
                Status::Modified,
                format!("property `{name}` became {became}"),
                Some(was.into()),
                Some((!was).into()),
                pat,
                cat,
            );
        }
        self.schema(owner, crumbs, role, pat, cat, depth + 1);
        crumbs.pop();
    }

    #[allow(clippy::too_many_arguments)]
    fn properties(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        pl: &Location,
        pm: &'a Map<String, Value>,
        cl: &Location,
        cm: &'a Map<String, Value>,
        depth: usize,
    ) {
        let contra = role.contravariant();
        let (pp, cp) = (props_of(pm), props_of(cm));
        let (preq, creq) = (required_set(pm), required_set(cm));
        if pp.is_empty() && cp.is_empty() && preq == creq {
            return;
        }
        let ppl = pl.child("properties");
        let cpl = cl.child("properties");
        let (pf, cf) = (pl.file, cl.file);
        // Properties that moved between the inline schema and an `allOf` member are compared
        // where they now live, not reported as removed and added.
        let p_moved = if missing_any(cp, pp) {
            self.allof_properties(true, pl, pm)
        } else {
            Vec::new()
        };
        let c_moved = if missing_any(pp, cp) {
            self.allof_properties(false, cl, cm)
        } else {
            Vec::new()
        };
        let effective = |nav: &mut crate::nav::Nav<'a>, file, v: &'a Value, required: bool| {
            required
                && !(contra && nav.flag(file, v, "readOnly"))
                && (contra || !nav.flag(file, v, "writeOnly"))
        };
        let mut p_near = pp.iter();
        // One buffer for each side's property location, rewritten for each property.
        let mut cat = Location {
            file: cl.file,
            pointer: String::with_capacity(cpl.pointer.len() + 32),
        };
        let mut pat = Location {
            file: pl.file,
            pointer: String::with_capacity(ppl.pointer.len() + 32),
        };
        for (name, cval) in cp {
            let near = p_near.next();
            cpl.child_into(name, &mut cat);
            let creq_here = creq.contains(name.as_str());
            if get_at(pp, near, name).is_none() {
                if let Some((_, mloc, mval, mreq)) = p_moved.iter().find(|x| x.0 == name) {
                    let previous = (mloc, *mval, *mreq || preq.contains(name.as_str()));
                    self.matched_property(
                        owner,
                        crumbs,
                        role,
                        name,
                        previous,
                        (&cat, cval, creq_here),
                        depth,
                    );
                    continue;
                }
                let creq_eff = effective(&mut self.cn, cf, cval, creq_here);
                crumbs.push(Crumb::new(NodeKind::Property, name.as_str()));
                let s = if creq_eff {
                    S::RequiredPropertyAdded
                } else {
                    S::PropertyAdded
                };
                let what = if creq_eff { "required" } else { "optional" };
                self.check(
                    role,
                    s,
                    owner,
                    crumbs,
                    Status::Added,
                    format!("{what} property `{name}` was added"),
                    None,
                    None,
                    &ppl.child(name),
                    &cat,
                );
                crumbs.pop();
                continue;
            }
            let Some(pval) = get_at(pp, near, name) else {
                continue;
            };
            ppl.child_into(name, &mut pat);
            self.matched_property(
                owner,
                crumbs,
                role,
                name,
                (&pat, pval, preq.contains(name.as_str())),
                (&cat, cval, creq_here),
                depth,
            );
        }
        let mut c_near = cp.iter();
        for (name, pval) in pp {
            if get_at(cp, c_near.next(), name).is_some() {
                continue;
            }
            let pat = ppl.child(name);
            if let Some((_, mloc, mval, mreq)) = c_moved.iter().find(|x| x.0 == name) {
                let current = (mloc, *mval, *mreq || creq.contains(name.as_str()));
                self.matched_property(
                    owner,
                    crumbs,
                    role,
                    name,
                    (&pat, pval, preq.contains(name.as_str())),
                    current,
                    depth,
                );
                continue;
            }
            // A property that was never visible on this side cannot be missed when it goes.
            if (contra && self.pn.flag(pf, pval, "readOnly"))
                || (!contra && self.pn.flag(pf, pval, "writeOnly"))
            {
                continue;
            }
            let s = if self.pn.flag(pf, pval, "deprecated") {
                S::DeprecatedPropertyRemoved
            } else {
                S::PropertyRemoved
            };
            crumbs.push(Crumb::new(NodeKind::Property, name.as_str()));
            self.check(
                role,
                s,
                owner,
                crumbs,
                Status::Removed,
                format!("property `{name}` was removed"),
                None,
                None,
                &pat,
                &cpl.child(name),
            );
            crumbs.pop();
        }
        // `required` entries naming properties declared elsewhere (allOf members, …).
        for (names, s, became, was) in [
            (
                creq.difference(&preq),
                S::PropertyBecameRequired,
                "required",
                false,
            ),
            (
                preq.difference(&creq),
                S::PropertyBecameOptional,
                "optional",
                true,
            ),
        ] {
            for name in names {
                if get(cp, name).is_some() || get(pp, name).is_some() {
                    continue;
                }
                crumbs.push(Crumb::new(NodeKind::Property, *name));
                self.check(
                    role,
                    s,
                    owner,
                    crumbs,
                    Status::Modified,
                    format!("property `{name}` became {became}"),
                    Some(was.into()),
                    Some((!was).into()),
                    &ppl.child(name),
                    &cpl.child(name),
                );
                crumbs.pop();
            }
        }
    }
}
