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

use serde_json::json;
use specpress_spec::{Arr, Kind, Location, Obj, V};

use crate::change::{Crumb, NodeKind, Status};
use crate::engine::{Engine, MAX_INLINE_DEPTH, MAX_SCHEMA_VISITS};
use crate::nav::{FxBuild, FxSet};
use crate::rules::{CHECKS, Role, RuleId, S};

/// `m.get(key)` that first tries `near`, the entry of `m` at the position of `key` in the
/// other version's map (read by a walk alongside it): two versions of a document usually
/// list properties in the same order, and a lookup compares keys.
fn get_at<'m>(m: Obj<'m>, near: Option<(&'m str, V<'m>)>, key: &str) -> Option<V<'m>> {
    match near {
        Some((k, v)) if k == key => Some(v),
        _ => m.get(key),
    }
}

/// Whether a key of `from` is missing from `other`.
fn missing_any(from: Obj<'_>, other: Obj<'_>) -> bool {
    let mut near = other.iter();
    from.keys().any(|k| get_at(other, near.next(), k).is_none())
}

/// Deep equality that walks objects in key order when both sides list their keys in the same
/// order (the usual case between two versions of one document), and falls back to lookups
/// otherwise (a lookup per key).
fn same(a: V<'_>, b: V<'_>) -> bool {
    same_kind(a.kind(), b.kind())
}

/// [`same`] on values already read; leaves (most members) are compared without a call.
fn same_kind(a: Kind<'_>, b: Kind<'_>) -> bool {
    let child = |v: V<'_>, w: V<'_>| match (v.kind(), w.kind()) {
        (x @ (Kind::Object(_) | Kind::Array(_)), y) => same_kind(x, y),
        (x, y) => same_leaf(x, y),
    };
    match (a, b) {
        (Kind::Object(x), Kind::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            let mut in_order = true;
            let mut ys = y.iter();
            for (ka, va) in x.iter() {
                let Some((kb, vb)) = ys.next() else { break };
                if ka != kb {
                    in_order = false;
                    break;
                }
                if !child(va, vb) {
                    return false;
                }
            }
            in_order || x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Kind::Array(x), Kind::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| child(v, w))
        }
        (x, y) => same_leaf(x, y),
    }
}

/// Equality of two values of which one at least is not a container (`V`'s own equality,
/// without reading each value's kind again).
#[inline]
fn same_leaf(a: Kind<'_>, b: Kind<'_>) -> bool {
    match (a, b) {
        (Kind::String(x), Kind::String(y)) => x == y,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Number(x), Kind::Number(y)) => x == y,
        (Kind::Null, Kind::Null) => true,
        _ => false,
    }
}

/// The values of `from` that `other` does not hold, in the order of `from`. Strings (most
/// enum values) are looked up in a set, other values compared one by one.
fn not_in<'v>(from: &[V<'v>], other: &[V<'v>]) -> Vec<V<'v>> {
    if other.len() <= 8 {
        return from
            .iter()
            .filter(|v| !other.contains(v))
            .copied()
            .collect();
    }
    let mut strings = FxSet::with_capacity_and_hasher(other.len(), FxBuild::default());
    let mut rest = Vec::new();
    for v in other {
        match v.as_str() {
            Some(s) => {
                strings.insert(s);
            }
            None => rest.push(*v),
        }
    }
    from.iter()
        .filter(|v| match v.as_str() {
            Some(s) => !strings.contains(s),
            None => !rest.contains(v),
        })
        .copied()
        .collect()
}

/// Deep equality of two subtrees that also holds no `$ref` (so nothing outside them can
/// differ either).
pub(crate) fn same_without_refs(a: V<'_>, b: V<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Object(x), Kind::Object(y)) => {
            x.len() == y.len()
                && !x.contains_key("$ref")
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_without_refs(va, vb))
        }
        (Kind::Array(x), Kind::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(v, w)| same_without_refs(v, w))
        }
        (x, y) => same_leaf(x, y),
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

/// Type facts of one schema.
struct Types<'v> {
    set: BTreeSet<&'v str>,
    nullable: bool,
}

fn types(m: Obj<'_>) -> Types<'_> {
    let mut set = BTreeSet::new();
    let mut nullable = false;
    match m.get("type").map(V::kind) {
        Some(Kind::String("null")) => nullable = true,
        Some(Kind::String(t)) => {
            set.insert(t);
        }
        Some(Kind::Array(ts)) => {
            for t in ts.iter().filter_map(V::as_str) {
                if t == "null" {
                    nullable = true;
                } else {
                    set.insert(t);
                }
            }
        }
        _ => {}
    }
    if m.get("nullable").and_then(V::as_bool) == Some(true)
        || m.get("x-nullable").and_then(V::as_bool) == Some(true)
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
fn bound(m: Obj<'_>, plain: &str, exclusive: &str) -> Option<(f64, bool)> {
    let inclusive = m.get(plain).and_then(V::as_f64);
    match m.get(exclusive).map(V::kind) {
        // JSON Schema 2020-12 / 3.1: a number.
        Some(Kind::Number(n)) => {
            let e = n.as_f64();
            match inclusive {
                Some(i) if plain == "maximum" && i < e => Some((i, false)),
                Some(i) if plain == "minimum" && i > e => Some((i, false)),
                _ => Some((e, true)),
            }
        }
        // Draft 4 / OpenAPI 3.0: a boolean modifying the plain bound.
        Some(Kind::Bool(b)) => inclusive.map(|i| (i, b)),
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
fn allowed(m: Obj<'_>) -> Option<Vec<V<'_>>> {
    let mut out: Option<Vec<V<'_>>> = None;
    if let Some(vs) = m.get("enum").and_then(V::as_array) {
        out = Some(vs.iter().collect());
    }
    if let Some(c) = m.get("const") {
        out.get_or_insert_with(Vec::new).push(c);
    }
    out
}

fn short(v: V<'_>) -> String {
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

fn names(list: &[V<'_>]) -> String {
    list.iter()
        .map(|v| short(*v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `properties` of a schema (empty when it has none).
fn props_of(m: Obj<'_>) -> Obj<'_> {
    m.get("properties")
        .and_then(V::as_object)
        .unwrap_or_else(|| Obj::empty())
}

fn required_set(m: Obj<'_>) -> BTreeSet<&str> {
    m.get("required")
        .and_then(V::as_array)
        .map(|a| a.iter().filter_map(V::as_str).collect())
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
            praw.get("$ref").and_then(V::as_str),
            craw.get("$ref").and_then(V::as_str),
        );
        // A use of a named component seen before (the same `$ref` strings in the same role):
        // only the edge is new.
        let pure = |v: V<'_>| v.as_object().is_some_and(|m| m.len() == 1);
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
        praw: V<'_>,
        c: &Location,
        craw: V<'_>,
    ) {
        let (pa, ca) = (praw.get("description"), craw.get("description"));
        if pa != ca {
            self.check(
                role,
                S::DescriptionChanged,
                owner,
                crumbs,
                Status::Modified,
                "description changed".into(),
                pa.map(V::to_value),
                ca.map(V::to_value),
                p,
                c,
            );
        }
        let (pa, ca) = (praw.get("title"), craw.get("title"));
        if pa != ca {
            self.check(
                role,
                S::TitleChanged,
                owner,
                crumbs,
                Status::Modified,
                "title changed".into(),
                pa.map(V::to_value),
                ca.map(V::to_value),
                p,
                c,
            );
        }
        let flag = |v: V<'_>, k: &str| v.get(k).and_then(V::as_bool) == Some(true);
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
        let (pa, ca) = (praw.get("default"), craw.get("default"));
        if pa != ca {
            self.check(
                role,
                S::DefaultChanged,
                owner,
                crumbs,
                Status::Modified,
                "default changed".into(),
                pa.map(V::to_value),
                ca.map(V::to_value),
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
        pv: V<'a>,
        cv: V<'a>,
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
        value: V<'a>,
    ) -> Option<Vec<(String, Location, Location)>> {
        let mut stack: Vec<V<'a>> = vec![value];
        let mut targets: Vec<(String, Location, Location)> = Vec::new();
        while let Some(v) = stack.pop() {
            match v.kind() {
                Kind::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(V::as_str) {
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
                Kind::Array(a) => stack.extend(a.iter()),
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
        previous: Option<serde_json::Value>,
        current: Option<serde_json::Value>,
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
        pv: V<'a>,
        cl: &Location,
        cv: V<'a>,
        depth: usize,
    ) {
        let contra = role.contravariant();
        let (pm, cm) = match (pv.kind(), cv.kind()) {
            (Kind::Object(pm), Kind::Object(cm)) => (pm, cm),
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
                        Some(pv.to_value()),
                        Some(cv.to_value()),
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
            let (a, b) = (pm.get(key), cm.get(key));
            if a != b {
                emit!(
                    s,
                    format!("{key} changed"),
                    a.map(V::to_value),
                    b.map(V::to_value)
                );
            }
        }
        if pm.get("example") != cm.get("example") || pm.get("examples") != cm.get("examples") {
            emit!(
                S::ExampleChanged,
                "example changed".into(),
                pm.get("example").or(pm.get("examples")).map(V::to_value),
                cm.get("example").or(cm.get("examples")).map(V::to_value)
            );
        }
        let dep = |m: Obj<'_>| m.get("deprecated").and_then(V::as_bool) == Some(true);
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
        let str_of = |m: Obj<'a>, key: &str| m.get(key).and_then(V::as_str);
        let num_of = |m: Obj<'a>, key: &str| m.get(key).and_then(V::as_f64);
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
                let (added, removed) = (not_in(&b, &a), not_in(&a, &b));
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
                pm.get(key).and_then(V::as_f64),
                cm.get(key).and_then(V::as_f64),
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
            let a = pm.get(key).and_then(V::as_f64).unwrap_or(0.0);
            let b = cm.get(key).and_then(V::as_f64).unwrap_or(0.0);
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
        let unique = |m: Obj<'_>| m.get("uniqueItems").and_then(V::as_bool) == Some(true);
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
        if pm.get("default") != cm.get("default") {
            emit!(
                S::DefaultChanged,
                format!(
                    "default changed from {} to {}",
                    pm.get("default").map_or("none".into(), short),
                    cm.get("default").map_or("none".into(), short)
                ),
                pm.get("default").map(V::to_value),
                cm.get("default").map(V::to_value)
            );
        }
        if let (Some(pd), Some(cd)) = (pm.get("discriminator"), cm.get("discriminator")) {
            let prop = |d: V<'a>| d.get("propertyName");
            let mapping_removed = pd
                .get("mapping")
                .and_then(V::as_object)
                .map(|pmap| {
                    let cmap = cd.get("mapping").and_then(V::as_object);
                    pmap.keys()
                        .any(|k| cmap.is_none_or(|cmap| !cmap.contains_key(k)))
                })
                .unwrap_or(false);
            if prop(pd) != prop(cd) || mapping_removed {
                emit!(
                    S::DiscriminatorChanged,
                    "discriminator property or mapping changed".into(),
                    Some(pd.to_value()),
                    Some(cd.to_value())
                );
            }
        }
        for key in ["contentMediaType", "contentEncoding"] {
            if pm.get(key) != cm.get(key) {
                emit!(
                    S::ContentMediaTypeChanged,
                    format!("{key} changed"),
                    pm.get(key).map(V::to_value),
                    cm.get(key).map(V::to_value)
                );
            }
        }
        // Objects.
        self.properties(owner, crumbs, role, pl, pm, cl, cm, depth);
        for key in ["additionalProperties", "unevaluatedProperties"] {
            let open = |v: Option<V<'a>>| v.and_then(V::as_bool) != Some(false);
            let (a, b) = (pm.get(key), cm.get(key));
            if open(a) && !open(b) {
                emit!(
                    S::AdditionalPropertiesNarrowed,
                    format!("{key} are no longer allowed"),
                    a.map(V::to_value),
                    b.map(V::to_value)
                );
            } else if !open(a) && open(b) {
                emit!(
                    S::AdditionalPropertiesWidened,
                    format!("{key} are now allowed"),
                    a.map(V::to_value),
                    b.map(V::to_value)
                );
            } else if a.is_some_and(V::is_object) && b.is_some_and(V::is_object) {
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
        let dr = |m: Obj<'a>| -> BTreeSet<(String, String)> {
            m.get("dependentRequired")
                .and_then(V::as_object)
                .map(|o| {
                    o.iter()
                        .flat_map(|(k, v)| {
                            v.as_array()
                                .into_iter()
                                .flat_map(Arr::iter)
                                .filter_map(V::as_str)
                                .map(move |d| (k.to_string(), d.to_string()))
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
                pm.get("dependentRequired").map(V::to_value),
                cm.get("dependentRequired").map(V::to_value)
            );
        }
        if pdr.difference(&cdr).next().is_some() {
            emit!(
                S::DependentRequiredRemoved,
                "dependentRequired constraints were removed".into(),
                pm.get("dependentRequired").map(V::to_value),
                cm.get("dependentRequired").map(V::to_value)
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
            let a = pm
                .get(key)
                .and_then(V::as_object)
                .unwrap_or_else(|| Obj::empty());
            let b = cm
                .get(key)
                .and_then(V::as_object)
                .unwrap_or_else(|| Obj::empty());
            for (k, v) in a.iter() {
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
                        Some(v.to_value()),
                        None,
                        &pl.child(key).child(k),
                        cl,
                    );
                    crumbs.pop();
                }
            }
            for (k, v) in b.iter() {
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
                    Some(v.to_value()),
                    pl,
                    &cl.child(key).child(k),
                );
                crumbs.pop();
            }
        }
        // Arrays.
        match (pm.get("items").map(V::kind), cm.get("items").map(V::kind)) {
            (Some(Kind::Array(a)), Some(Kind::Array(b))) => self.tuple(
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
            (Some(a), Some(b)) if !matches!(a, Kind::Array(_)) && !matches!(b, Kind::Array(_)) => {
                self.child(
                    owner,
                    crumbs,
                    role,
                    &pl.child("items"),
                    &cl.child("items"),
                    Some(Crumb::new(NodeKind::Items, "items")),
                    depth,
                )
            }
            _ => {}
        }
        let tuple_len = |m: Obj<'_>| m.get("prefixItems").and_then(V::as_array).map(Arr::len);
        match (tuple_len(pm), tuple_len(cm)) {
            (Some(a), Some(b)) => {
                self.tuple(owner, crumbs, role, pl, cl, "prefixItems", a, b, depth)
            }
            (None, Some(b)) if b > 0 => emit!(
                S::TupleItemAdded,
                format!("{b} positional items were added"),
                None,
                cm.get("prefixItems").map(V::to_value)
            ),
            (Some(a), None) if a > 0 => emit!(
                S::TupleItemRemoved,
                format!("{a} positional items were removed"),
                pm.get("prefixItems").map(V::to_value),
                None
            ),
            _ => {}
        }
        for key in ["contains", "propertyNames", "unevaluatedItems"] {
            if pm.get(key).is_some_and(V::is_object) && cm.get(key).is_some_and(V::is_object) {
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
            let a = pm
                .get(key)
                .and_then(V::as_array)
                .unwrap_or_else(|| Arr::empty());
            let b = cm
                .get(key)
                .and_then(V::as_array)
                .unwrap_or_else(|| Arr::empty());
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
        match (pm.get("not").is_some(), cm.get("not").is_some()) {
            (false, true) => emit!(
                S::NotAdded,
                "a `not` exclusion was added".into(),
                None,
                cm.get("not").map(V::to_value)
            ),
            (true, false) => emit!(
                S::NotRemoved,
                "the `not` exclusion was removed".into(),
                pm.get("not").map(V::to_value),
                None
            ),
            _ => {}
        }
        match (pm.get("if").is_some(), cm.get("if").is_some()) {
            (false, true) => emit!(
                S::ConditionalAdded,
                "an if/then/else condition was added".into(),
                None,
                cm.get("if").map(V::to_value)
            ),
            (true, false) => emit!(
                S::ConditionalRemoved,
                "the if/then/else condition was removed".into(),
                pm.get("if").map(V::to_value),
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
        let nav = if previous { &mut self.pn } else { &mut self.cn };
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

    /// A property present on both sides (possibly moved between the schema and an `allOf`
    /// member): required-ness as clients experience it, read/write-only, then its schema.
    #[allow(clippy::too_many_arguments)]
    fn matched_property(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        role: Role,
        name: &str,
        (pat, pval, preq): (&Location, V<'a>, bool),
        (cat, cval, creq): (&Location, V<'a>, bool),
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
        pm: Obj<'a>,
        cl: &Location,
        cm: Obj<'a>,
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
        let effective = |nav: &mut crate::nav::Nav<'a>, file, v: V<'a>, required: bool| {
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
        for (name, cval) in cp.iter() {
            let near = p_near.next();
            cpl.child_into(name, &mut cat);
            let creq_here = creq.contains(name);
            if get_at(pp, near, name).is_none() {
                if let Some((_, mloc, mval, mreq)) = p_moved.iter().find(|x| x.0 == name) {
                    let previous = (mloc, *mval, *mreq || preq.contains(name));
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
                crumbs.push(Crumb::new(NodeKind::Property, name));
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
                (&pat, pval, preq.contains(name)),
                (&cat, cval, creq_here),
                depth,
            );
        }
        let mut c_near = cp.iter();
        for (name, pval) in pp.iter() {
            if get_at(cp, c_near.next(), name).is_some() {
                continue;
            }
            let pat = ppl.child(name);
            if let Some((_, mloc, mval, mreq)) = c_moved.iter().find(|x| x.0 == name) {
                let current = (mloc, *mval, *mreq || creq.contains(name));
                self.matched_property(
                    owner,
                    crumbs,
                    role,
                    name,
                    (&pat, pval, preq.contains(name)),
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
            crumbs.push(Crumb::new(NodeKind::Property, name));
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
                if cp.contains_key(name) || pp.contains_key(name) {
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
