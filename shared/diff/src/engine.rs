//! The comparison walk: operations, parameters, bodies, responses, security, servers, AsyncAPI
//! operations/messages/channels. Schemas are compared in [`crate::schema`].

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use serde_json::{Value, json};
use specpress_spec::{
    ApiModel, Channel, Direction, Document, FileId, Location, Map, MediaType, Message,
    MessageOperation, Operation, OperationKind, Parameter, ParameterIn, RequestBody, Response,
    SecurityRequirement, SecurityScheme, Server,
};

use crate::change::{Change, Crumb, NodeKind, Owner, Status};
use crate::nav::{FxBuild, FxMap, FxSet};
use crate::options::{DiffOptions, normalize_template};
use crate::rules::{B, Role, RuleId, S};

/// Upper bound on schema node pairs visited in one diff (a budget against hostile input).
pub(crate) const MAX_SCHEMA_VISITS: usize = 4_000_000;
/// Upper bound on inline (non-component) schema nesting followed in one walk.
pub(crate) const MAX_INLINE_DEPTH: usize = 96;

/// A use of a shared component from an owner (operation or another component).
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    /// Where the use sits under `from`: a range of [`Engine::edge_crumbs`] (the link item, if
    /// the edge becomes one, sits there).
    pub crumbs: std::ops::Range<usize>,
}

/// A shared component compared in one role (its locations are moved out when it is
/// compared; only `owner` is read after that).
#[derive(Clone, Debug)]
pub(crate) struct ComponentPair {
    pub owner: usize,
    pub previous: Location,
    pub current: Location,
    pub role: Role,
}

/// The named components an unchanged subtree uses: (name, previous, current location).
pub(crate) type ComponentRefs = std::rc::Rc<Vec<(String, Location, Location)>>;

/// What is known about one schema location pair.
#[derive(Default)]
pub(crate) struct PairState {
    /// Bit set of the roles the pair was compared in.
    pub roles: u8,
    /// `None` until computed; then `Some(None)` if the subtrees differ (or use a `$ref` that is
    /// not a named component), `Some(Some(components))` if they are identical.
    pub unchanged: Option<Option<ComponentRefs>>,
}

/// Every schema location pair seen, with its [`PairState`]: a hash table keyed by the two
/// locations that is searched with borrowed locations (a pair is copied only when it is new)
/// and hands out stable indices, so a state found once is updated without a second search.
#[derive(Default)]
pub(crate) struct PairMemo {
    /// Hash of a pair → index of the last entry with that hash (the others are chained
    /// through [`PairEntry::next`]).
    heads: FxMap<u64, u32>,
    entries: Vec<PairEntry>,
}

struct PairEntry {
    previous: Location,
    current: Location,
    state: PairState,
    /// The previous entry with the same hash (`u32::MAX`: none).
    next: u32,
}

impl PairMemo {
    fn hash(previous: &Location, current: &Location) -> u64 {
        use std::hash::Hasher;
        // File, length and the last bytes of each pointer: pointers share long beginnings
        // and differ at the end (entries with the same hash still compare whole pairs).
        let mut h = crate::nav::FxHasher::default();
        for at in [previous, current] {
            let bytes = at.pointer.as_bytes();
            h.write_u32(at.file.0);
            h.write_usize(bytes.len());
            h.write(bytes.get(bytes.len().saturating_sub(24)..).unwrap_or(bytes));
        }
        h.finish()
    }

    fn with_capacity(n: usize) -> Self {
        PairMemo {
            heads: FxMap::with_capacity_and_hasher(n, crate::nav::FxBuild::default()),
            entries: Vec::with_capacity(n),
        }
    }

    /// The index of a pair, if seen.
    pub(crate) fn find(&self, previous: &Location, current: &Location) -> Option<usize> {
        let mut i = *self.heads.get(&Self::hash(previous, current))?;
        while let Some(e) = self.entries.get(i as usize) {
            if e.previous == *previous && e.current == *current {
                return Some(i as usize);
            }
            i = e.next;
        }
        None
    }

    /// Adds a pair not seen before; returns its index.
    pub(crate) fn insert(
        &mut self,
        previous: Location,
        current: Location,
        state: PairState,
    ) -> usize {
        let i = self.entries.len();
        let slot = self
            .heads
            .entry(Self::hash(&previous, &current))
            .or_insert(u32::MAX);
        let next = std::mem::replace(slot, i as u32);
        self.entries.push(PairEntry {
            previous,
            current,
            state,
            next,
        });
        i
    }

    pub(crate) fn state(&mut self, i: usize) -> Option<&mut PairState> {
        self.entries.get_mut(i).map(|e| &mut e.state)
    }
}

/// Key of [`Engine::ref_links`].
pub(crate) type RefPairKey<'a> = (FileId, &'a str, FileId, &'a str, Role);

/// The last schema location pair (with role, depth and kind of call) whose comparison only
/// recorded an edge to a shared component, and that component's owner. Comparing the same
/// pair again has the same outcome, so it only needs the edge. The buffers are reused, so
/// remembering a pair allocates nothing once they have grown.
#[derive(Default)]
pub(crate) struct LastEdge {
    /// (file, pointer) of the previous and current location; `None` files until set.
    previous: (Option<FileId>, String),
    current: (Option<FileId>, String),
    role: Option<Role>,
    depth: usize,
    definition: bool,
    to: usize,
}

impl LastEdge {
    pub(crate) fn hit(
        &self,
        previous: &Location,
        current: &Location,
        role: Role,
        depth: usize,
        definition: bool,
    ) -> Option<usize> {
        let same = |mine: &(Option<FileId>, String), theirs: &Location| {
            mine.0 == Some(theirs.file) && mine.1 == theirs.pointer
        };
        (self.role == Some(role)
            && self.depth == depth
            && self.definition == definition
            && same(&self.previous, previous)
            && same(&self.current, current))
        .then_some(self.to)
    }

    pub(crate) fn set(
        &mut self,
        previous: &Location,
        current: &Location,
        role: Role,
        depth: usize,
        definition: bool,
        to: usize,
    ) {
        for (mine, theirs) in [(&mut self.previous, previous), (&mut self.current, current)] {
            mine.0 = Some(theirs.file);
            mine.1.clear();
            mine.1.push_str(&theirs.pointer);
        }
        self.role = Some(role);
        self.depth = depth;
        self.definition = definition;
        self.to = to;
    }
}

/// State of one diff run.
pub(crate) struct Engine<'a> {
    pub p: &'a Document,
    pub c: &'a Document,
    pub options: &'a DiffOptions,
    pub pn: crate::nav::Nav<'a>,
    pub cn: crate::nav::Nav<'a>,
    pub p_names: FxMap<&'a Location, &'a str>,
    pub c_names: FxMap<&'a Location, &'a str>,
    pub owners: Vec<Owner<'a>>,
    pub changes: Vec<Change>,
    pub edges: Vec<Edge>,
    /// The crumbs of every edge, one after the other (see [`Edge::crumbs`]).
    pub edge_crumbs: Vec<Crumb>,
    pub components: Vec<ComponentPair>,
    pub component_index: FxMap<Role, FxMap<String, usize>>,
    pub queue: VecDeque<usize>,
    /// Every schema location pair seen: the roles it was compared in, and (once known)
    /// whether it is unchanged, with the named components its `$ref`s use.
    pub pairs: PairMemo,
    pub content_seen: FxSet<(S, Location, Location)>,
    /// Pure `$ref` pairs (previous file and ref, current file and ref, role) already known to
    /// land on the same named component: the component's owner.
    pub ref_links: FxMap<RefPairKey<'a>, usize>,
    /// Parameter schema pairs already checked for equality (shared parameters recur in
    /// every operation that uses them).
    pub param_same: FxMap<PointerPair<'a>, bool>,
    /// The last schema pair whose comparison came down to an edge.
    pub last_edge: LastEdge,
    /// Parameter pairs (previous source, current source, inverted) whose comparison found
    /// nothing: no change (ignored ones included) and no edge. A parameter's model is a
    /// function of its source, and every memo its comparison consults answers the same the
    /// next time, so comparing the pair again would find nothing either. Shared
    /// (`$ref`erenced) parameters recur in every operation that uses them.
    pub clean_params: FxSet<(PointerPair<'a>, bool)>,
    /// Changes emitted so far, ignored ones included.
    pub emitted: usize,
    /// Crumb names taken from the models (media types, statuses, parameter and header
    /// names), shared: they recur in every operation.
    pub names: FxMap<&'a str, std::sync::Arc<str>>,

    /// True while comparing a callback operation: the request is sent by the API and the
    /// response by the subscriber, so bodies are judged the other way round.
    pub inverted: bool,
    pub visits: usize,
    pub truncated: bool,
    pub today: String,
}

fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    slug_into(&mut out, s);
    out
}

/// Each byte's slug form: ASCII alphanumerics lower-cased, 0 for every other byte (separators
/// and the bytes of non-ASCII characters).
static SLUG_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() {
            table[i] = b.to_ascii_lowercase();
        }
        i += 1;
    }
    table
};

/// Appends the slug of `s` to `out`.
pub(crate) fn slug_into(out: &mut String, s: &str) {
    // Byte by byte through a table, into a small buffer flushed as ASCII text: the bytes of a
    // non-ASCII character are not ASCII alphanumerics, and a run of separators becomes one
    // dash (none at either end), so this is the same as going by characters.
    let mut buf = [0u8; 64];
    let mut n = 0;
    let mut wrote = false;
    let mut dash = false;
    let flush = |out: &mut String, buf: &[u8]| {
        // Only ASCII bytes are ever buffered.
        if let Ok(text) = std::str::from_utf8(buf) {
            out.push_str(text);
        }
    };
    for &b in s.as_bytes() {
        let t = SLUG_BYTES[usize::from(b)];
        if t == 0 {
            dash = wrote;
            continue;
        }
        if n + 2 > buf.len() {
            flush(out, &buf[..n]);
            n = 0;
        }
        if dash {
            buf[n] = b'-';
            n += 1;
            dash = false;
        }
        buf[n] = t;
        n += 1;
        wrote = true;
    }
    flush(out, &buf[..n]);
}

pub(crate) fn item_slug(s: &str) -> String {
    slug(s)
}

fn opt_eq(a: Option<&str>, b: Option<&str>) -> bool {
    a.unwrap_or("").trim() == b.unwrap_or("").trim()
}

fn sv(s: Option<&str>) -> Option<Value> {
    s.map(|s| Value::String(s.to_string()))
}

fn in_name(p: ParameterIn) -> &'static str {
    match p {
        ParameterIn::Path => "path",
        ParameterIn::Query => "query",
        ParameterIn::Header => "header",
        ParameterIn::Cookie => "cookie",
    }
}

/// A lookup in a small model map (media types, response statuses) that first tries position
/// `i` (two versions of a document usually list them in the same order, and each key compared
/// costs a read of its text), then scans small maps, which beats hashing the key with the
/// map's SipHash.
fn small_get_near<'m, V>(m: &'m Map<String, V>, i: usize, key: &str) -> Option<&'m V> {
    if let Some((k, v)) = m.get_index(i)
        && k == key
    {
        return Some(v);
    }
    if m.len() <= 8 {
        m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        m.get(key)
    }
}

/// A (previous, current) pair of locations as a map key, hashed by file, length and the
/// last bytes of each pointer: the pointers of one document's parameters share long
/// prefixes (`/paths/<path>/parameters/…`) and differ at the end, so hashing every byte
/// buys nothing (equal keys still compare whole pointers).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct PointerPair<'a> {
    previous: (FileId, &'a str),
    current: (FileId, &'a str),
}

impl<'a> PointerPair<'a> {
    fn new(previous: &'a Location, current: &'a Location) -> Self {
        PointerPair {
            previous: (previous.file, previous.pointer.as_str()),
            current: (current.file, current.pointer.as_str()),
        }
    }
}

impl std::hash::Hash for PointerPair<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for (file, pointer) in [self.previous, self.current] {
            let bytes = pointer.as_bytes();
            state.write_u32(file.0);
            state.write_usize(bytes.len());
            state.write(bytes.get(bytes.len().saturating_sub(16)..).unwrap_or(bytes));
        }
    }
}

/// Finds the keys of one map, in order, in another that usually lists them in the same
/// order give or take a few added or removed (two versions of a document): the position the
/// last hit suggests is tried before the map's hashed lookup.
#[derive(Default)]
struct Near {
    /// Position in the searched map minus position in the walked one, at the last hit.
    shift: isize,
}

impl Near {
    /// The index of `key` (the `i`-th key of the map walked) in `m`.
    fn find<K: std::hash::Hash + Eq, V>(
        &mut self,
        m: &Map<K, V>,
        i: usize,
        key: &K,
    ) -> Option<usize> {
        let guess = i
            .checked_add_signed(self.shift)
            .filter(|&g| m.get_index(g).is_some_and(|(k, _)| k == key));
        let found = guess.or_else(|| m.get_index_of(key))?;
        self.shift = found as isize - i as isize;
        Some(found)
    }
}

fn is_success(status: &str) -> bool {
    matches!(status.as_bytes().first(), Some(b'1' | b'2' | b'3'))
}

/// Where a change was found: (previous, current) location.
type At<'l> = (Option<&'l Location>, Option<&'l Location>);

/// Normalized security: alternatives keyed by their sorted scheme names.
type NormSecurity = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn normalize_security(reqs: &[SecurityRequirement]) -> (bool, NormSecurity) {
    let mut anonymous = reqs.is_empty();
    let mut out = NormSecurity::new();
    for r in reqs {
        if r.is_empty() {
            anonymous = true;
            continue;
        }
        let mut names: Vec<&String> = r.keys().collect();
        names.sort();
        let key = names
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        let scopes = r
            .iter()
            .map(|(k, v)| (k.clone(), v.iter().cloned().collect::<BTreeSet<_>>()))
            .collect();
        out.insert(key, scopes);
    }
    (anonymous, out)
}

impl<'a> Engine<'a> {
    pub(crate) fn new(p: &'a Document, c: &'a Document, options: &'a DiffOptions) -> Self {
        let p_names = p
            .model()
            .schemas
            .iter()
            .map(|(n, l)| (l, n.as_str()))
            .collect();
        let c_names = c
            .model()
            .schemas
            .iter()
            .map(|(n, l)| (l, n.as_str()))
            .collect();
        // Room for the usual number of entries of the memo tables up front (growing a map
        // re-hashes every key in it): about one per operation or named schema.
        let shared = c.model().operations.len() + c.model().schemas.len() + 64;
        Engine {
            p,
            c,
            options,
            pn: crate::nav::Nav::new(p),
            cn: crate::nav::Nav::new(c),
            p_names,
            c_names,
            owners: Vec::new(),
            changes: Vec::new(),
            edges: Vec::new(),
            edge_crumbs: Vec::new(),
            components: Vec::new(),
            component_index: FxMap::default(),
            queue: VecDeque::new(),
            pairs: PairMemo::with_capacity(2 * shared),
            content_seen: FxSet::default(),
            ref_links: FxMap::default(),
            param_same: FxMap::with_capacity_and_hasher(shared, FxBuild::default()),
            last_edge: LastEdge::default(),
            clean_params: FxSet::with_capacity_and_hasher(shared, FxBuild::default()),
            emitted: 0,
            names: FxMap::default(),
            inverted: false,
            visits: 0,
            truncated: false,
            today: options.today(),
        }
    }

    /// Records a use of the shared component `to` from `owner` at `crumbs` (appended to one
    /// buffer: no allocation per edge). Edges from operations and from shared components alike
    /// may become link items (see [`crate::tree::build`]), so each keeps where it sits.
    pub(crate) fn link(&mut self, owner: usize, to: usize, crumbs: &[Crumb]) {
        let start = self.edge_crumbs.len();
        self.edge_crumbs.extend_from_slice(crumbs);
        let crumbs = start..self.edge_crumbs.len();
        self.edges.push(Edge {
            from: owner,
            to,
            crumbs,
        });
    }

    /// The crumbs of an edge.
    pub(crate) fn edge_path(&self, edge: &Edge) -> &[Crumb] {
        self.edge_crumbs.get(edge.crumbs.clone()).unwrap_or(&[])
    }

    pub(crate) fn add_owner(&mut self, owner: Owner<'a>) -> usize {
        self.owners.push(owner);
        self.owners.len() - 1
    }

    /// Records one change (unless ignored), with its effective level.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn emit(
        &mut self,
        rule: RuleId,
        owner: usize,
        crumbs: &[Crumb],
        status: Status,
        message: String,
        previous: Option<Value>,
        current: Option<Value>,
        previous_at: Option<&Location>,
        current_at: Option<&Location>,
    ) {
        self.emitted += 1;
        if self.options.has_ignores() {
            let matcher = self.owners.get(owner).and_then(|o| o.matcher());
            if self.options.ignored(rule, matcher.as_deref()) {
                return;
            }
        }
        let level = self.options.level(rule);
        let subject = self
            .owners
            .get(owner)
            .map(|o| o.name.clone())
            .unwrap_or_default();
        self.changes.push(Change {
            rule,
            level,
            message,
            owner,
            subject,
            crumbs: crumbs.to_vec(),
            status,
            previous,
            current,
            previous_at: previous_at.cloned(),
            current_at: current_at.cloned(),
        });
    }

    /// Shorthand for a base rule.
    #[allow(clippy::too_many_arguments)]
    fn base(
        &mut self,
        b: B,
        owner: usize,
        crumbs: &[Crumb],
        status: Status,
        message: String,
        previous: Option<Value>,
        current: Option<Value>,
        at: (Option<&Location>, Option<&Location>),
    ) {
        self.emit(
            RuleId::base(b),
            owner,
            crumbs,
            status,
            message,
            previous,
            current,
            at.0,
            at.1,
        );
    }

    /// A `Modified` change with its two values.
    fn modified(
        &mut self,
        b: B,
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        (previous, current): (Option<Value>, Option<Value>),
        at: At<'_>,
    ) {
        let status = Status::Modified;
        self.base(b, owner, crumbs, status, message, previous, current, at);
    }

    /// A boolean that changed: a `Modified` change with both values.
    fn flag(
        &mut self,
        b: B,
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        let values = (Some(previous.into()), Some(current.into()));
        self.modified(b, owner, crumbs, message, values, at);
    }

    /// A text (description, summary, title) that changed other than by white space at its
    /// ends: "`what` changed", with both values.
    fn text(
        &mut self,
        (b, what): (B, &str),
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (Option<&str>, Option<&str>),
        at: At<'_>,
    ) {
        if !opt_eq(previous, current) {
            let values = (sv(previous), sv(current));
            self.modified(b, owner, crumbs, format!("{what} changed"), values, at);
        }
    }

    /// `required` switched on (`became_required`) or off (`became_optional`); `subject` names
    /// the thing ("parameter `x`", "the request body").
    fn required(
        &mut self,
        (became_required, became_optional): (B, B),
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        let (b, became) = match (previous, current) {
            (false, true) => (became_required, "required"),
            (true, false) => (became_optional, "optional"),
            _ => return,
        };
        let message = format!("{subject} became {became}");
        self.flag(b, owner, crumbs, message, (previous, current), at);
    }

    /// `deprecated` switched on; `subject` names the thing.
    fn deprecated(
        &mut self,
        b: B,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        if !previous && current {
            let message = format!("{subject} was deprecated");
            self.flag(b, owner, crumbs, message, (false, true), at);
        }
    }

    /// An optional string that changed (the caller decides when): "`what` changed from `a`
    /// to `b`", `default` standing for an absent value.
    fn option_changed(
        &mut self,
        (b, what, default): (B, &str, &str),
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (&Option<String>, &Option<String>),
        at: At<'_>,
    ) {
        let message = format!(
            "{what} changed from `{}` to `{}`",
            previous.as_deref().unwrap_or(default),
            current.as_deref().unwrap_or(default)
        );
        let values = (sv(previous.as_deref()), sv(current.as_deref()));
        self.modified(b, owner, crumbs, message, values, at);
    }

    /// An identifier both sides declare (an operationId) that changed.
    fn renamed(
        &mut self,
        (b, what): (B, &str),
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (&Option<String>, &Option<String>),
        at: At<'_>,
    ) {
        if previous.is_some() && current.is_some() && previous != current {
            self.option_changed((b, what, ""), owner, crumbs, (previous, current), at);
        }
    }

    /// The operationId, summary and description of two matched operations (HTTP or AsyncAPI).
    fn operation_texts(
        &mut self,
        (id, summary, description): (B, B, B),
        owner: usize,
        p: [&Option<String>; 3],
        c: [&Option<String>; 3],
        at: At<'_>,
    ) {
        self.renamed((id, "operationId"), owner, &[], (p[0], c[0]), at);
        let [summaries, descriptions] = [1, 2].map(|i| (p[i].as_deref(), c[i].as_deref()));
        self.text((summary, "summary"), owner, &[], summaries, at);
        self.text((description, "description"), owner, &[], descriptions, at);
    }

    /// Something added or removed as a whole (`status`): the change carries no values.
    fn presence(
        &mut self,
        (b, status): (B, Status),
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        at: At<'_>,
    ) {
        self.base(b, owner, crumbs, status, message, None, None, at);
    }

    /// Runs the whole comparison.
    pub(crate) fn run(&mut self) {
        let pm: &'a ApiModel = self.p.model();
        let cm: &'a ApiModel = self.c.model();
        // Room for the usual sizes up front (growing these by doubling copies them over and
        // over on large documents).
        let ops = pm.operations.len() + cm.operations.len();
        self.owners.reserve(ops + cm.schemas.len());
        self.edges.reserve(4 * ops);
        self.operations(pm, cm);
        self.message_operations(pm, cm);
        self.channels(pm, cm);
        self.servers_doc(&pm.servers, &cm.servers);
        self.security_schemes(&pm.security_schemes, &cm.security_schemes);
        self.api_security(pm, cm);
        self.component_schemas(pm, cm);
        self.drain_components();
    }

    fn drain_components(&mut self) {
        while let Some(i) = self.queue.pop_front() {
            let Some(pair) = self.components.get_mut(i) else {
                continue;
            };
            // Each pair is queued once, when it is created, and only its owner is read after
            // this: its locations move out instead of being copied.
            let (owner, role) = (pair.owner, pair.role);
            let (pf, cf) = (pair.previous.file, pair.current.file);
            let previous = std::mem::replace(&mut pair.previous, Location::root(pf));
            let current = std::mem::replace(&mut pair.current, Location::root(cf));
            let mut crumbs = Vec::new();
            self.schema_resolved(owner, &mut crumbs, role, &previous, &current, 0);
        }
    }

    /// A crumb whose name comes from a model, sharing the name with earlier crumbs.
    fn crumb(&mut self, kind: NodeKind, name: &'a str) -> Crumb {
        let name = self
            .names
            .entry(name)
            .or_insert_with(|| std::sync::Arc::from(name))
            .clone();
        Crumb { kind, name }
    }

    /// The owner of a shared component compared in `role`, created (and queued) on first use.
    pub(crate) fn component(
        &mut self,
        name: &str,
        role: Role,
        previous: &Location,
        current: &Location,
    ) -> usize {
        if let Some(&i) = self.component_index.get(&role).and_then(|m| m.get(name)) {
            return self.components[i].owner;
        }
        let owner = self.add_owner(Owner {
            item_type: "schema",
            // Derived from the name and role by `Owner::item_id` when it becomes an item.
            id: String::new(),
            name: name.to_string(),
            status: Status::Modified,
            previous: None,
            current: None,
            endpoint: None,
            matcher: None,
            role: Some(role),
        });
        self.components.push(ComponentPair {
            owner,
            previous: previous.clone(),
            current: current.clone(),
            role,
        });
        let i = self.components.len() - 1;
        self.component_index
            .entry(role)
            .or_default()
            .insert(name.to_string(), i);
        self.queue.push_back(i);
        owner
    }

    // ----------------------------------------------------------------- operations

    /// The owner of an operation; `previous` is the matched operation of the previous
    /// document, if any (else `op` is on one side only, as `status` says).
    fn endpoint_owner(
        &mut self,
        op: &'a Operation,
        previous: Option<&'a Operation>,
        status: Status,
    ) -> usize {
        let webhook = op.key.kind == OperationKind::Webhook;
        let endpoint = match (status, previous) {
            (Status::Added, _) => (None, Some(op)),
            (Status::Removed, _) => (Some(op), None),
            (Status::Modified, Some(p)) => (Some(p), Some(op)),
            (Status::Modified, None) => (Some(op), Some(op)),
        };
        self.add_owner(Owner {
            item_type: if webhook { "webhook" } else { "endpoint" },
            id: String::new(),
            name: {
                let mut name = String::with_capacity(op.key.method.len() + 1 + op.path.len());
                name.push_str(&op.key.method);
                name.push(' ');
                name.push_str(&op.path);
                name
            },
            status,
            previous: None,
            current: None,
            endpoint: Some(endpoint),
            // Derived from `endpoint` when an ignore rule needs it (`Owner::matcher`).
            matcher: None,
            role: None,
        })
    }

    fn operations(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        // The previous operations matched by a current one (by index): the removed ones are
        // the others, found without hashing every key a second time.
        let mut matched = vec![false; pm.operations.len()];
        let mut near = Near::default();
        for (ci, (key, c)) in cm.operations.iter().enumerate() {
            let found = near.find(&pm.operations, ci, key).and_then(|i| {
                if let Some(m) = matched.get_mut(i) {
                    *m = true;
                }
                pm.operations.get_index(i).map(|(_, p)| p)
            });
            match found {
                Some(p) => {
                    let owner = self.endpoint_owner(c, Some(p), Status::Modified);
                    self.operation(owner, pm, cm, p, c);
                }
                None => {
                    let owner = self.endpoint_owner(c, None, Status::Added);
                    let b = if key.kind == OperationKind::Webhook {
                        B::WebhookAdded
                    } else {
                        B::EndpointAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &[],
                        format!("{} {} was added", c.key.method, c.path),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for (i, (key, p)) in pm.operations.iter().enumerate() {
            if matched.get(i).copied().unwrap_or(false) {
                continue;
            }
            let owner = self.endpoint_owner(p, None, Status::Removed);
            let (b, why) = if key.kind == OperationKind::Webhook {
                (B::WebhookRemoved, "")
            } else if !p.deprecated {
                (B::EndpointRemoved, " without prior deprecation")
            } else {
                match p.sunset.as_deref() {
                    Some(s) if s.get(..10).unwrap_or(s) > self.today.as_str() => {
                        (B::EndpointRemovedBeforeSunset, " before its sunset date")
                    }
                    _ => (B::EndpointRemovedAfterDeprecation, " after deprecation"),
                }
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &[],
                format!("{} {} was removed{why}", p.key.method, p.path),
                (Some(&p.source), None),
            );
        }
    }

    fn operation(
        &mut self,
        owner: usize,
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        p: &'a Operation,
        c: &'a Operation,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        if p.deprecated != c.deprecated {
            let (b, msg) = if c.deprecated {
                (B::EndpointDeprecated, "the operation was deprecated")
            } else {
                (
                    B::EndpointReactivated,
                    "the operation is no longer deprecated",
                )
            };
            self.base(
                b,
                owner,
                &[],
                Status::Modified,
                msg.into(),
                Some(p.deprecated.into()),
                Some(c.deprecated.into()),
                at,
            );
        }
        if p.sunset.is_some() && c.sunset.is_some() && p.sunset != c.sunset {
            self.base(
                B::EndpointSunsetChanged,
                owner,
                &[],
                Status::Modified,
                format!(
                    "sunset date changed from {} to {}",
                    p.sunset.as_deref().unwrap_or(""),
                    c.sunset.as_deref().unwrap_or("")
                ),
                sv(p.sunset.as_deref()),
                sv(c.sunset.as_deref()),
                at,
            );
        }
        self.operation_texts(
            (
                B::OperationIdChanged,
                B::OperationSummaryChanged,
                B::OperationDescriptionChanged,
            ),
            owner,
            [&p.operation_id, &p.summary, &p.description],
            [&c.operation_id, &c.summary, &c.description],
            at,
        );
        if p.tags != c.tags {
            self.base(
                B::OperationTagsChanged,
                owner,
                &[],
                Status::Modified,
                format!("tags changed from {:?} to {:?}", p.tags, c.tags),
                Some(json!(p.tags)),
                Some(json!(c.tags)),
                at,
            );
        }
        if p.path != c.path && p.key.kind == OperationKind::Path {
            self.base(
                B::PathParameterRenamed,
                owner,
                &[],
                Status::Modified,
                format!("path template changed from `{}` to `{}`", p.path, c.path),
                Some(p.path.clone().into()),
                Some(c.path.clone().into()),
                at,
            );
        }
        self.parameters(owner, &p.parameters, &c.parameters);
        self.request_body(owner, p.request_body.as_ref(), c.request_body.as_ref());
        self.responses(owner, &p.responses, &c.responses);
        if p.security.is_some() || c.security.is_some() {
            let ps = p.security.as_ref().or(pm.security.as_ref());
            let cs = c.security.as_ref().or(cm.security.as_ref());
            self.security_requirements(owner, ps, cs, false, at);
        }
        if let (Some(ps), Some(cs)) = (&p.servers, &c.servers) {
            self.endpoint_servers(owner, ps, cs, at);
        }
        if !self.inverted {
            self.callbacks(owner, pm, cm, &p.callbacks, &c.callbacks, at);
        }
    }

    /// Compares an operation of a callback present on both sides, as its own tree root under
    /// the operation that declares it. The callback request is sent by the API and read by the
    /// subscriber, so its body is judged like a response; the subscriber's response body like
    /// a request.
    fn callback_operation(
        &mut self,
        parent: usize,
        name: &str,
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        p: &'a Operation,
        c: &'a Operation,
    ) {
        let (parent_name, matcher) = match self.owners.get(parent) {
            Some(o) => (o.name.clone(), o.matcher().map(|m| m.into_owned())),
            None => (String::new(), None),
        };
        let title = format!(
            "{parent_name} callback `{name}` {} {}",
            c.key.method, c.path
        );
        let owner = self.add_owner(Owner {
            item_type: "callback",
            id: slug(&title),
            name: title,
            status: Status::Modified,
            previous: None,
            current: None,
            endpoint: None,
            matcher,
            role: None,
        });
        self.inverted = true;
        self.operation(owner, pm, cm, p, c);
        self.inverted = false;
    }

    /// How parameters match: path parameters by position, headers case-insensitively, others
    /// by location and name.
    fn same_param(a: &Parameter, b: &Parameter) -> bool {
        a.location == b.location
            && match (a.location, a.path_index, b.path_index) {
                (ParameterIn::Path, Some(i), Some(j)) => i == j,
                (ParameterIn::Header, _, _) => a.name.eq_ignore_ascii_case(&b.name),
                _ => a.name == b.name,
            }
    }

    fn param_schema(p: &Parameter) -> Option<&Location> {
        p.schema
            .as_ref()
            .or_else(|| p.content.values().find_map(|m| m.schema.as_ref()))
    }

    fn parameters(&mut self, owner: usize, prev: &'a [Parameter], cur: &'a [Parameter]) {
        // Operations have few parameters: linear matching beats hashing here.
        let find =
            |list: &'a [Parameter], x: &Parameter| list.iter().find(|y| Self::same_param(x, y));
        let mut moved: Vec<&str> = Vec::new();
        // A non-path parameter that disappears from one location and appears in another moved.
        for p in prev {
            if p.location == ParameterIn::Path || find(cur, p).is_some() {
                continue;
            }
            if let Some(c) = cur.iter().find(|c| {
                c.location != ParameterIn::Path
                    && c.name.eq_ignore_ascii_case(&p.name)
                    && find(prev, c).is_none()
            }) {
                moved.push(&p.name);
                let crumbs = [Crumb::new(NodeKind::Parameter(c.location), c.name.as_str())];
                self.base(
                    B::RequestParameterLocationChanged,
                    owner,
                    &crumbs,
                    Status::Modified,
                    format!(
                        "parameter `{}` moved from {} to {}",
                        p.name,
                        in_name(p.location),
                        in_name(c.location)
                    ),
                    Some(in_name(p.location).into()),
                    Some(in_name(c.location).into()),
                    (Some(&p.source), Some(&c.source)),
                );
            }
        }
        let was_moved =
            |name: &str, moved: &[&str]| moved.iter().any(|m| m.eq_ignore_ascii_case(name));
        // One crumb path for every matched parameter (each comparison leaves it as it got it).
        let mut param_crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for c in cur {
            let kind = NodeKind::Parameter(c.location);
            match find(prev, c) {
                Some(p) => {
                    // A parameter is a function of its (resolved) source: a pair of shared
                    // parameters compared once without any finding has none in the next
                    // operation either (see `clean_params`).
                    let key = (PointerPair::new(&p.source, &c.source), self.inverted);
                    if self.clean_params.contains(&key) {
                        continue;
                    }
                    let before = (self.emitted, self.edges.len());
                    let crumb = self.crumb(kind, &c.name);
                    param_crumbs.clear();
                    param_crumbs.push(crumb);
                    self.parameter(owner, &mut param_crumbs, p, c);
                    if (self.emitted, self.edges.len()) == before {
                        self.clean_params.insert(key);
                    }
                }
                None if was_moved(&c.name, &moved) => {}
                None => {
                    let crumbs = [self.crumb(kind, &c.name)];
                    let (b, msg) = match (self.inverted, c.required) {
                        // A callback request is sent by the API: subscribers that do not read
                        // a new parameter are unaffected, required or not.
                        (true, true) => (B::CallbackParameterAdded, "required"),
                        (true, false) => (B::CallbackParameterAdded, "optional"),
                        (false, true) => (B::RequestRequiredParameterAdded, "required"),
                        (false, false) => (B::RequestParameterAdded, "optional"),
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!(
                            "{msg} {} parameter `{}` was added",
                            in_name(c.location),
                            c.name
                        ),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for p in prev {
            if find(cur, p).is_some() || was_moved(&p.name, &moved) {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Parameter(p.location), p.name.as_str())];
            // Subscribers may read what a callback request carried: its removal is judged
            // like a response header's.
            let b = match (self.inverted, p.required) {
                (true, true) => B::CallbackRequiredParameterRemoved,
                (true, false) => B::CallbackParameterRemoved,
                (false, _) => B::RequestParameterRemoved,
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("{} parameter `{}` was removed", in_name(p.location), p.name),
                (Some(&p.source), None),
            );
        }
    }

    fn parameter(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        p: &'a Parameter,
        c: &'a Parameter,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        let name = &c.name;
        // In a callback the API sends the request and subscribers read it, so the direction
        // of `required`, `allowEmptyValue`, `allowReserved` and the schema is reversed.
        let inverted = self.inverted;
        self.required(
            if inverted {
                (
                    B::CallbackParameterBecameRequired,
                    B::CallbackParameterBecameOptional,
                )
            } else {
                (
                    B::RequestParameterBecameRequired,
                    B::RequestParameterBecameOptional,
                )
            },
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (p.required, c.required),
            at,
        );
        let default_style = |x: &Parameter| match x.location {
            ParameterIn::Query | ParameterIn::Cookie => "form",
            ParameterIn::Path | ParameterIn::Header => "simple",
        };
        let ps = p.style.as_deref().unwrap_or(default_style(p));
        let cs = c.style.as_deref().unwrap_or(default_style(c));
        if ps != cs {
            self.base(
                B::RequestParameterStyleChanged,
                owner,
                crumbs,
                Status::Modified,
                format!("style changed from `{ps}` to `{cs}`"),
                Some(ps.into()),
                Some(cs.into()),
                at,
            );
        }
        let pe = p.explode.unwrap_or(ps == "form");
        let ce = c.explode.unwrap_or(cs == "form");
        if pe != ce && ps == cs {
            self.base(
                B::RequestParameterExplodeChanged,
                owner,
                crumbs,
                Status::Modified,
                format!("explode changed from {pe} to {ce}"),
                Some(pe.into()),
                Some(ce.into()),
                at,
            );
        }
        if p.allow_empty_value != c.allow_empty_value {
            let b = match (inverted, c.allow_empty_value) {
                (false, true) => B::RequestParameterAllowEmptyValueAdded,
                (false, false) => B::RequestParameterAllowEmptyValueRemoved,
                (true, true) => B::CallbackParameterAllowEmptyValueAdded,
                (true, false) => B::CallbackParameterAllowEmptyValueRemoved,
            };
            self.base(
                b,
                owner,
                crumbs,
                Status::Modified,
                format!(
                    "allowEmptyValue changed from {} to {}",
                    p.allow_empty_value, c.allow_empty_value
                ),
                Some(p.allow_empty_value.into()),
                Some(c.allow_empty_value.into()),
                at,
            );
        }
        // Unencoded reserved characters hurt whoever reads the parameter: the API when
        // they are no longer allowed in a request, subscribers when a callback may now send
        // them.
        match (inverted, p.allow_reserved, c.allow_reserved) {
            (false, true, false) => self.flag(
                B::RequestParameterAllowReservedRemoved,
                owner,
                crumbs,
                "reserved characters are no longer allowed unencoded".into(),
                (true, false),
                at,
            ),
            (true, false, true) => self.flag(
                B::CallbackParameterAllowReservedAdded,
                owner,
                crumbs,
                "reserved characters may now be sent unencoded".into(),
                (false, true),
                at,
            ),
            _ => {}
        }
        self.deprecated(
            B::RequestParameterDeprecated,
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (p.deprecated, c.deprecated),
            at,
        );
        self.text(
            (B::RequestParameterDescriptionChanged, "description"),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        if let (Some(ps), Some(cs)) = (Self::param_schema(p), Self::param_schema(c)) {
            // Most parameters are small inline schemas that did not change: skip the walk.
            let key = PointerPair::new(ps, cs);
            let unchanged = match self.param_same.get(&key) {
                Some(&same) => same,
                None => {
                    let same = match (self.pn.lookup(ps), self.cn.lookup(cs)) {
                        (Some(a), Some(b)) => crate::schema::same_without_refs(a, b),
                        _ => false,
                    };
                    self.param_same.insert(key, same);
                    same
                }
            };
            if !unchanged {
                let role = if inverted {
                    Role::CallbackParameter
                } else {
                    Role::RequestParameter
                };
                self.schema(owner, crumbs, role, ps, cs, 0);
            }
        }
    }

    fn media_crumb(
        &mut self,
        prev: &Map<String, MediaType>,
        cur: &Map<String, MediaType>,
        key: &'a str,
    ) -> Option<Crumb> {
        (prev.len() > 1 || cur.len() > 1).then(|| self.crumb(NodeKind::MediaType, key))
    }

    fn request_body(
        &mut self,
        owner: usize,
        p: Option<&'a RequestBody>,
        c: Option<&'a RequestBody>,
    ) {
        let body = Crumb::new(NodeKind::Body, "body");
        // In a callback the API sends the request body and subscribers read it: adding one
        // is harmless to them, taking it away (or making it optional) is not.
        let inverted = self.inverted;
        match (p, c) {
            (None, None) => {}
            (None, Some(c)) => {
                let (b, what) = match (inverted, c.required) {
                    (true, true) => (B::CallbackBodyAdded, "a required"),
                    (true, false) => (B::CallbackBodyAdded, "an optional"),
                    (false, true) => (B::RequestRequiredBodyAdded, "a required"),
                    (false, false) => (B::RequestBodyAdded, "an optional"),
                };
                self.presence(
                    (b, Status::Added),
                    owner,
                    &[body],
                    format!("{what} request body was added"),
                    (None, Some(&c.source)),
                );
            }
            (Some(p), None) => self.presence(
                (
                    if inverted {
                        B::CallbackBodyRemoved
                    } else {
                        B::RequestBodyRemoved
                    },
                    Status::Removed,
                ),
                owner,
                &[body],
                "the request body was removed".into(),
                (Some(&p.source), None),
            ),
            (Some(p), Some(c)) => {
                let at = (Some(&p.source), Some(&c.source));
                let crumbs = vec![body];
                self.required(
                    if inverted {
                        (B::CallbackBodyBecameRequired, B::CallbackBodyBecameOptional)
                    } else {
                        (B::RequestBodyBecameRequired, B::RequestBodyBecameOptional)
                    },
                    owner,
                    &crumbs,
                    format_args!("the request body"),
                    (p.required, c.required),
                    at,
                );
                self.text(
                    (B::RequestBodyDescriptionChanged, "description"),
                    owner,
                    &crumbs,
                    (p.description.as_deref(), c.description.as_deref()),
                    at,
                );
                let mut crumbs = crumbs;
                self.content(owner, &mut crumbs, &p.content, &c.content, true);
            }
        }
    }

    /// Media types of a request body or response. `base` is the crumb path of the body or
    /// response; it is extended for each media type and left as it was given.
    fn content(
        &mut self,
        owner: usize,
        base: &mut Vec<Crumb>,
        prev: &'a Map<String, MediaType>,
        cur: &'a Map<String, MediaType>,
        request: bool,
    ) {
        let request = request != self.inverted;
        let depth = base.len();
        // The schema pair compared under the previous media type. Swagger 2.0 gives every
        // media type of a body or response the same schema: it is compared once, under the
        // first, where its changes and its links to shared components are reported (comparing
        // it again would find no change, the pair being memoized, but would repeat every link
        // under every media type).
        let mut last: Option<(&Location, &Location)> = None;
        for (i, (mt, c)) in cur.iter().enumerate() {
            base.truncate(depth);
            match small_get_near(prev, i, mt) {
                None => {
                    let crumb = self.crumb(NodeKind::MediaType, mt);
                    base.push(crumb);
                    let b = if request {
                        B::RequestBodyMediaTypeAdded
                    } else {
                        B::ResponseMediaTypeAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        base,
                        format!("media type `{mt}` was added"),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    if let Some(mc) = self.media_crumb(prev, cur, mt) {
                        base.push(mc);
                    }
                    let at = (Some(&p.source), Some(&c.source));
                    match (&p.schema, &c.schema) {
                        (Some(ps), Some(cs)) => {
                            if last == Some((ps, cs)) {
                                continue;
                            }
                            last = Some((ps, cs));
                            let role = if request {
                                Role::RequestBody
                            } else {
                                Role::ResponseBody
                            };
                            self.schema(owner, base, role, ps, cs, 0);
                        }
                        (None, Some(_)) => {
                            let b = if request {
                                B::RequestBodySchemaAdded
                            } else {
                                B::ResponseBodySchemaAdded
                            };
                            self.base(
                                b,
                                owner,
                                base,
                                Status::Modified,
                                format!("media type `{mt}` now declares a schema"),
                                None,
                                None,
                                at,
                            );
                        }
                        (Some(_), None) => {
                            let b = if request {
                                B::RequestBodySchemaRemoved
                            } else {
                                B::ResponseBodySchemaRemoved
                            };
                            self.base(
                                b,
                                owner,
                                base,
                                Status::Modified,
                                format!("media type `{mt}` no longer declares a schema"),
                                None,
                                None,
                                at,
                            );
                        }
                        (None, None) => {}
                    }
                }
            }
        }
        for (i, (mt, p)) in prev.iter().enumerate() {
            if small_get_near(cur, i, mt).is_some() {
                continue;
            }
            base.truncate(depth);
            let crumb = self.crumb(NodeKind::MediaType, mt);
            base.push(crumb);
            let b = if request {
                B::RequestBodyMediaTypeRemoved
            } else {
                B::ResponseMediaTypeRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                base,
                format!("media type `{mt}` was removed"),
                (Some(&p.source), None),
            );
        }
        base.truncate(depth);
    }

    fn responses(
        &mut self,
        owner: usize,
        prev: &'a Map<String, Response>,
        cur: &'a Map<String, Response>,
    ) {
        // One crumb path for every response (each comparison leaves it as it got it).
        let mut crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for (i, (status, c)) in cur.iter().enumerate() {
            let crumb = self.crumb(NodeKind::Response, status);
            crumbs.clear();
            crumbs.push(crumb);
            match small_get_near(prev, i, status) {
                Some(p) => self.response(owner, &mut crumbs, p, c),
                None => {
                    let b = if is_success(status) {
                        B::ResponseSuccessStatusAdded
                    } else {
                        B::ResponseNonSuccessStatusAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!("response `{status}` was added"),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for (i, (status, p)) in prev.iter().enumerate() {
            if small_get_near(cur, i, status).is_some() {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Response, status.as_str())];
            let b = if is_success(status) {
                B::ResponseSuccessStatusRemoved
            } else {
                B::ResponseNonSuccessStatusRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("response `{status}` was removed"),
                (Some(&p.source), None),
            );
        }
    }

    fn response(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        p: &'a Response,
        c: &'a Response,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        self.text(
            (B::ResponseDescriptionChanged, "description"),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        self.content(owner, crumbs, &p.content, &c.content, false);
        if p.headers.is_empty() && c.headers.is_empty() {
            return;
        }
        let lower = |m: &'a Map<String, specpress_spec::Header>| {
            m.iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), (k, v)))
                .collect::<Map<_, _>>()
        };
        let ph = lower(&p.headers);
        let ch = lower(&c.headers);
        for (k, (name, c)) in &ch {
            let mut hc = crumbs.clone();
            hc.push(Crumb::new(NodeKind::Header, name.as_str()));
            match ph.get(k) {
                None => self.presence(
                    (B::ResponseHeaderAdded, Status::Added),
                    owner,
                    &hc,
                    format!("header `{name}` was added"),
                    (None, Some(&c.source)),
                ),
                Some((_, p)) => {
                    let at = (Some(&p.source), Some(&c.source));
                    self.required(
                        (
                            B::ResponseHeaderBecameRequired,
                            B::ResponseHeaderBecameOptional,
                        ),
                        owner,
                        &hc,
                        format_args!("header `{name}`"),
                        (p.required, c.required),
                        at,
                    );
                    self.deprecated(
                        B::ResponseHeaderDeprecated,
                        owner,
                        &hc,
                        format_args!("header `{name}`"),
                        (p.deprecated, c.deprecated),
                        at,
                    );
                    self.text(
                        (B::ResponseHeaderDescriptionChanged, "description"),
                        owner,
                        &hc,
                        (p.description.as_deref(), c.description.as_deref()),
                        at,
                    );
                    if let (Some(ps), Some(cs)) = (&p.schema, &c.schema) {
                        self.schema(owner, &mut hc, Role::ResponseHeader, ps, cs, 0);
                    }
                }
            }
        }
        for (k, (name, p)) in &ph {
            if ch.contains_key(k) {
                continue;
            }
            let mut hc = crumbs.clone();
            hc.push(Crumb::new(NodeKind::Header, name.as_str()));
            let b = if p.required {
                B::ResponseRequiredHeaderRemoved
            } else {
                B::ResponseHeaderRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &hc,
                format!("header `{name}` was removed"),
                (Some(&p.source), None),
            );
        }
    }

    /// Compares effective security requirements (`api` = the document-level ones).
    fn security_requirements(
        &mut self,
        owner: usize,
        prev: Option<&Vec<SecurityRequirement>>,
        cur: Option<&Vec<SecurityRequirement>>,
        api: bool,
        at: (Option<&Location>, Option<&Location>),
    ) {
        let empty = Vec::new();
        let (p_anon, p) = normalize_security(prev.unwrap_or(&empty));
        let (c_anon, c) = normalize_security(cur.unwrap_or(&empty));
        let crumbs = if api {
            vec![]
        } else {
            vec![Crumb::new(NodeKind::Security, "security")]
        };
        let pick = |e: B, a: B| if api { a } else { e };
        let p_open = p_anon || p.is_empty();
        let c_open = c_anon || c.is_empty();
        if p_open && !c_open {
            self.base(
                pick(B::EndpointSecurityAdded, B::ApiSecurityAdded),
                owner,
                &crumbs,
                Status::Added,
                format!(
                    "authentication is now required ({})",
                    c.keys().cloned().collect::<Vec<_>>().join(" or ")
                ),
                None,
                Some(json!(c.keys().collect::<Vec<_>>())),
                at,
            );
            return;
        }
        if !p_open && c_open {
            self.base(
                pick(B::EndpointSecurityRemoved, B::ApiSecurityRemoved),
                owner,
                &crumbs,
                Status::Removed,
                "authentication is no longer required".into(),
                Some(json!(p.keys().collect::<Vec<_>>())),
                None,
                at,
            );
            return;
        }
        for (k, cs) in &c {
            match p.get(k) {
                None => self.base(
                    pick(
                        B::EndpointSecurityAlternativeAdded,
                        B::ApiSecurityAlternativeAdded,
                    ),
                    owner,
                    &crumbs,
                    Status::Modified,
                    format!("security alternative `{k}` was added"),
                    None,
                    Some(k.clone().into()),
                    at,
                ),
                Some(ps) => {
                    for (scheme, scopes) in cs {
                        let before = ps.get(scheme);
                        let added: Vec<&String> = scopes
                            .iter()
                            .filter(|s| before.is_none_or(|b| !b.contains(*s)))
                            .collect();
                        if !added.is_empty() {
                            self.base(
                                pick(B::EndpointSecurityScopeAdded, B::ApiSecurityScopeAdded),
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!("`{scheme}` now requires scopes {added:?}"),
                                None,
                                Some(json!(added)),
                                at,
                            );
                        }
                        if let Some(before) = before {
                            let removed: Vec<&String> =
                                before.iter().filter(|s| !scopes.contains(*s)).collect();
                            if !removed.is_empty() {
                                self.base(
                                    pick(
                                        B::EndpointSecurityScopeRemoved,
                                        B::ApiSecurityScopeRemoved,
                                    ),
                                    owner,
                                    &crumbs,
                                    Status::Modified,
                                    format!("`{scheme}` no longer requires scopes {removed:?}"),
                                    Some(json!(removed)),
                                    None,
                                    at,
                                );
                            }
                        }
                    }
                }
            }
        }
        for k in p.keys() {
            if !c.contains_key(k) {
                self.base(
                    pick(
                        B::EndpointSecurityAlternativeRemoved,
                        B::ApiSecurityAlternativeRemoved,
                    ),
                    owner,
                    &crumbs,
                    Status::Modified,
                    format!("security alternative `{k}` was removed"),
                    Some(k.clone().into()),
                    None,
                    at,
                );
            }
        }
    }

    fn api_security(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        if pm.security == cm.security {
            return;
        }
        // Only operations that inherit the document-level security are affected; if every
        // operation declares its own, the document-level change has no effect but is still
        // reported once here.
        let owner = self.add_owner(Owner {
            item_type: "security",
            id: "security".into(),
            name: "security".into(),
            status: Status::Modified,
            previous: None,
            current: None,
            endpoint: None,
            matcher: None,
            role: None,
        });
        let root = Location::root(specpress_spec::FileId::ROOT).child("security");
        self.security_requirements(
            owner,
            pm.security.as_ref(),
            cm.security.as_ref(),
            true,
            (Some(&root), Some(&root)),
        );
    }

    fn security_schemes(
        &mut self,
        prev: &'a Map<String, SecurityScheme>,
        cur: &'a Map<String, SecurityScheme>,
    ) {
        for (name, c) in cur {
            let status = if prev.contains_key(name) {
                Status::Modified
            } else {
                Status::Added
            };
            let Some(p) = prev.get(name) else {
                let owner = self.scheme_owner(name, status);
                self.presence(
                    (B::SecuritySchemeAdded, Status::Added),
                    owner,
                    &[],
                    format!("security scheme `{name}` was added"),
                    (None, Some(&c.source)),
                );
                continue;
            };
            if p == c {
                continue;
            }
            let owner = self.scheme_owner(name, status);
            let at = (Some(&p.source), Some(&c.source));
            if p.scheme_type != c.scheme_type {
                self.base(
                    B::SecuritySchemeTypeChanged,
                    owner,
                    &[],
                    Status::Modified,
                    format!(
                        "type changed from `{}` to `{}`",
                        p.scheme_type, c.scheme_type
                    ),
                    Some(p.scheme_type.clone().into()),
                    Some(c.scheme_type.clone().into()),
                    at,
                );
                continue;
            }
            let lower = |s: &Option<String>| s.as_deref().map(str::to_ascii_lowercase);
            if lower(&p.scheme) != lower(&c.scheme) {
                self.option_changed(
                    (B::SecuritySchemeHttpSchemeChanged, "HTTP scheme", ""),
                    owner,
                    &[],
                    (&p.scheme, &c.scheme),
                    at,
                );
            }
            if p.location != c.location || p.name != c.name {
                self.base(
                    B::SecuritySchemeApiKeyChanged,
                    owner,
                    &[],
                    Status::Modified,
                    format!(
                        "API key moved from {} `{}` to {} `{}`",
                        p.location.as_deref().unwrap_or("?"),
                        p.name.as_deref().unwrap_or("?"),
                        c.location.as_deref().unwrap_or("?"),
                        c.name.as_deref().unwrap_or("?")
                    ),
                    Some(json!({"in": p.location, "name": p.name})),
                    Some(json!({"in": c.location, "name": c.name})),
                    at,
                );
            }
            if p.bearer_format != c.bearer_format {
                self.base(
                    B::SecuritySchemeBearerFormatChanged,
                    owner,
                    &[],
                    Status::Modified,
                    "bearer format changed".into(),
                    sv(p.bearer_format.as_deref()),
                    sv(c.bearer_format.as_deref()),
                    at,
                );
            }
            if p.open_id_connect_url != c.open_id_connect_url {
                self.base(
                    B::SecuritySchemeOpenIdUrlChanged,
                    owner,
                    &[],
                    Status::Modified,
                    "OpenID Connect URL changed".into(),
                    sv(p.open_id_connect_url.as_deref()),
                    sv(c.open_id_connect_url.as_deref()),
                    at,
                );
            }
            for (flow, cscopes) in &c.flows {
                let crumbs = [Crumb::new(NodeKind::Flow, flow.as_str())];
                match p.flows.get(flow) {
                    None => self.presence(
                        (B::SecuritySchemeOauthFlowAdded, Status::Added),
                        owner,
                        &crumbs,
                        format!("OAuth2 flow `{flow}` was added"),
                        at,
                    ),
                    Some(pscopes) => {
                        let added: Vec<&String> = cscopes
                            .keys()
                            .filter(|s| !pscopes.contains_key(*s))
                            .collect();
                        let removed: Vec<&String> = pscopes
                            .keys()
                            .filter(|s| !cscopes.contains_key(*s))
                            .collect();
                        if !added.is_empty() {
                            self.base(
                                B::SecuritySchemeOauthScopeAdded,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!("scopes added: {added:?}"),
                                None,
                                Some(json!(added)),
                                at,
                            );
                        }
                        if !removed.is_empty() {
                            self.base(
                                B::SecuritySchemeOauthScopeRemoved,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!("scopes removed: {removed:?}"),
                                Some(json!(removed)),
                                None,
                                at,
                            );
                        }
                    }
                }
            }
            for flow in p.flows.keys() {
                if !c.flows.contains_key(flow) {
                    let crumbs = [Crumb::new(NodeKind::Flow, flow.as_str())];
                    self.presence(
                        (B::SecuritySchemeOauthFlowRemoved, Status::Removed),
                        owner,
                        &crumbs,
                        format!("OAuth2 flow `{flow}` was removed"),
                        at,
                    );
                }
            }
        }
        for (name, p) in prev {
            if !cur.contains_key(name) {
                let owner = self.scheme_owner(name, Status::Removed);
                self.presence(
                    (B::SecuritySchemeRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("security scheme `{name}` was removed"),
                    (Some(&p.source), None),
                );
            }
        }
    }

    fn scheme_owner(&mut self, name: &str, status: Status) -> usize {
        self.add_owner(Owner {
            item_type: "security_scheme",
            id: format!("security-scheme-{}", slug(name)),
            name: name.to_string(),
            status,
            previous: None,
            current: None,
            endpoint: None,
            matcher: None,
            role: None,
        })
    }

    // ----------------------------------------------------------------- servers

    fn origin_and_path(url: &str) -> (&str, &str) {
        let after_scheme = url.find("://").map(|i| i + 3).unwrap_or(0);
        match url[after_scheme..].find('/') {
            Some(i) => url.split_at(after_scheme + i),
            None => (url, ""),
        }
    }

    fn servers_doc(&mut self, prev: &'a [Server], cur: &'a [Server]) {
        let root = Location::root(specpress_spec::FileId::ROOT);
        let mut used_prev: HashSet<usize> = HashSet::new();
        let mut used_cur: HashSet<usize> = HashSet::new();
        let server_owner = |e: &mut Self, url: &str, status: Status| {
            e.add_owner(Owner {
                item_type: "server",
                id: format!("server-{}", slug(url)),
                name: url.to_string(),
                status,
                previous: None,
                current: None,
                endpoint: None,
                matcher: None,
                role: None,
            })
        };
        // Exact URL matches.
        for (ci, c) in cur.iter().enumerate() {
            if let Some(pi) = prev
                .iter()
                .enumerate()
                .position(|(pi, p)| !used_prev.contains(&pi) && p.url == c.url)
            {
                used_prev.insert(pi);
                used_cur.insert(ci);
                let p = &prev[pi];
                if p != c {
                    let owner = server_owner(self, &c.url, Status::Modified);
                    self.server(owner, &[], p, c);
                }
            }
        }
        // Same origin, different path: the base path changed.
        for (ci, c) in cur.iter().enumerate() {
            if used_cur.contains(&ci) {
                continue;
            }
            let (co, cp) = Self::origin_and_path(&c.url);
            if let Some(pi) = (0..prev.len())
                .find(|pi| !used_prev.contains(pi) && Self::origin_and_path(&prev[*pi].url).0 == co)
            {
                used_prev.insert(pi);
                used_cur.insert(ci);
                let p = &prev[pi];
                let owner = server_owner(self, &c.url, Status::Modified);
                let pp = Self::origin_and_path(&p.url).1;
                self.base(
                    B::ServerBasePathChanged,
                    owner,
                    &[],
                    Status::Modified,
                    format!("base path changed from `{pp}` to `{cp}`"),
                    Some(pp.into()),
                    Some(cp.into()),
                    (Some(&root), Some(&root)),
                );
                self.server(owner, &[], p, c);
            }
        }
        for (ci, c) in cur.iter().enumerate() {
            if !used_cur.contains(&ci) {
                let owner = server_owner(self, &c.url, Status::Added);
                self.base(
                    B::ServerAdded,
                    owner,
                    &[],
                    Status::Added,
                    format!("server `{}` was added", c.url),
                    None,
                    Some(c.url.clone().into()),
                    (None, Some(&root)),
                );
            }
        }
        for (pi, p) in prev.iter().enumerate() {
            if !used_prev.contains(&pi) {
                let owner = server_owner(self, &p.url, Status::Removed);
                self.base(
                    B::ServerRemoved,
                    owner,
                    &[],
                    Status::Removed,
                    format!("server `{}` was removed", p.url),
                    Some(p.url.clone().into()),
                    None,
                    (Some(&root), None),
                );
            }
        }
    }

    fn server(&mut self, owner: usize, crumbs: &[Crumb], p: &Server, c: &Server) {
        let root = Location::root(specpress_spec::FileId::ROOT);
        let at = (Some(&root), Some(&root));
        if p.protocol.is_some() && c.protocol.is_some() && p.protocol != c.protocol {
            self.option_changed(
                (B::ServerProtocolChanged, "protocol", ""),
                owner,
                crumbs,
                (&p.protocol, &c.protocol),
                at,
            );
        }
        self.text(
            (B::ServerDescriptionChanged, "description"),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        for (name, cv) in &c.variables {
            let mut vc = crumbs.to_vec();
            vc.push(Crumb::new(NodeKind::Variable, name.as_str()));
            match p.variables.get(name) {
                None => self.presence(
                    (B::ServerVariableAdded, Status::Added),
                    owner,
                    &vc,
                    format!("server variable `{name}` was added"),
                    at,
                ),
                Some(pv) => {
                    if pv.default != cv.default {
                        self.option_changed(
                            (B::ServerVariableDefaultChanged, "default", ""),
                            owner,
                            &vc,
                            (&pv.default, &cv.default),
                            at,
                        );
                    }
                    if !pv.enumeration.is_empty() || !cv.enumeration.is_empty() {
                        let removed: Vec<&String> = pv
                            .enumeration
                            .iter()
                            .filter(|v| !cv.enumeration.is_empty() && !cv.enumeration.contains(v))
                            .collect();
                        let added: Vec<&String> = cv
                            .enumeration
                            .iter()
                            .filter(|v| !pv.enumeration.is_empty() && !pv.enumeration.contains(v))
                            .collect();
                        if !removed.is_empty() || (pv.enumeration.is_empty()) {
                            let removed_msg = if pv.enumeration.is_empty() {
                                "values are now restricted".to_string()
                            } else {
                                format!("values removed: {removed:?}")
                            };
                            self.base(
                                B::ServerVariableEnumValueRemoved,
                                owner,
                                &vc,
                                Status::Modified,
                                removed_msg,
                                Some(json!(removed)),
                                None,
                                at,
                            );
                        }
                        if !added.is_empty() {
                            self.base(
                                B::ServerVariableEnumValueAdded,
                                owner,
                                &vc,
                                Status::Modified,
                                format!("values added: {added:?}"),
                                None,
                                Some(json!(added)),
                                at,
                            );
                        }
                    }
                }
            }
        }
        for name in p.variables.keys() {
            if !c.variables.contains_key(name) {
                let mut vc = crumbs.to_vec();
                vc.push(Crumb::new(NodeKind::Variable, name.as_str()));
                self.presence(
                    (B::ServerVariableRemoved, Status::Removed),
                    owner,
                    &vc,
                    format!("server variable `{name}` was removed"),
                    at,
                );
            }
        }
    }

    fn endpoint_servers(
        &mut self,
        owner: usize,
        prev: &[Server],
        cur: &[Server],
        at: (Option<&Location>, Option<&Location>),
    ) {
        for c in cur {
            let crumbs = [Crumb::new(NodeKind::Server, c.url.as_str())];
            match prev.iter().find(|p| p.url == c.url) {
                None => self.presence(
                    (B::EndpointServerAdded, Status::Added),
                    owner,
                    &crumbs,
                    format!("server `{}` was added", c.url),
                    at,
                ),
                Some(p) if p != c => self.server(owner, &crumbs, p, c),
                Some(_) => {}
            }
        }
        for p in prev {
            if !cur.iter().any(|c| c.url == p.url) {
                let crumbs = [Crumb::new(NodeKind::Server, p.url.as_str())];
                self.presence(
                    (B::EndpointServerRemoved, Status::Removed),
                    owner,
                    &crumbs,
                    format!("server `{}` was removed", p.url),
                    at,
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn callbacks(
        &mut self,
        owner: usize,
        pm: &'a ApiModel,
        cm: &'a ApiModel,
        prev: &'a Map<String, Vec<Operation>>,
        cur: &'a Map<String, Vec<Operation>>,
        at: (Option<&Location>, Option<&Location>),
    ) {
        for (name, cops) in cur {
            let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
            match prev.get(name) {
                None => self.presence(
                    (B::CallbackAdded, Status::Added),
                    owner,
                    &crumbs,
                    format!("callback `{name}` was added"),
                    at,
                ),
                Some(pops) => {
                    for c in cops {
                        if let Some(p) = pops.iter().find(|p| p.key == c.key) {
                            self.callback_operation(owner, name, pm, cm, p, c);
                        } else {
                            self.base(
                                B::CallbackOperationAdded,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!("callback operation {} {} was added", c.key.method, c.path),
                                None,
                                None,
                                (at.0, Some(&c.source)),
                            );
                        }
                    }
                    for p in pops {
                        if !cops.iter().any(|c| c.key == p.key) {
                            self.base(
                                B::CallbackOperationRemoved,
                                owner,
                                &crumbs,
                                Status::Modified,
                                format!(
                                    "callback operation {} {} was removed",
                                    p.key.method, p.path
                                ),
                                None,
                                None,
                                (Some(&p.source), at.1),
                            );
                        }
                    }
                }
            }
        }
        for name in prev.keys() {
            if !cur.contains_key(name) {
                let crumbs = [Crumb::new(NodeKind::Callback, name.as_str())];
                self.presence(
                    (B::CallbackRemoved, Status::Removed),
                    owner,
                    &crumbs,
                    format!("callback `{name}` was removed"),
                    at,
                );
            }
        }
    }

    // ----------------------------------------------------------------- components

    fn component_schemas(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        let mut near = Near::default();
        for (i, (name, loc)) in cm.schemas.iter().enumerate() {
            if near.find(&pm.schemas, i, name).is_none() {
                let owner = self.add_owner(Owner {
                    item_type: "schema",
                    id: format!("schema-{}", slug(name)),
                    name: name.clone(),
                    status: Status::Added,
                    previous: None,
                    current: None,
                    endpoint: None,
                    matcher: None,
                    role: None,
                });
                self.presence(
                    (B::ComponentSchemaAdded, Status::Added),
                    owner,
                    &[],
                    format!("schema `{name}` was added"),
                    (None, Some(loc)),
                );
            }
        }
        let mut near = Near::default();
        for (i, (name, loc)) in pm.schemas.iter().enumerate() {
            if near.find(&cm.schemas, i, name).is_none() {
                let owner = self.add_owner(Owner {
                    item_type: "schema",
                    id: format!("schema-{}", slug(name)),
                    name: name.clone(),
                    status: Status::Removed,
                    previous: None,
                    current: None,
                    endpoint: None,
                    matcher: None,
                    role: None,
                });
                self.presence(
                    (B::ComponentSchemaRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("schema `{name}` was removed"),
                    (Some(loc), None),
                );
            }
        }
    }

    // ----------------------------------------------------------------- AsyncAPI

    fn message_operation_owner(&mut self, op: &MessageOperation, status: Status) -> usize {
        let verb = match op.key.direction {
            Direction::Send => "SEND",
            Direction::Receive => "RECEIVE",
        };
        let name = format!("{verb} {}", op.channel_address);
        let value = json!({"channel": op.channel_address, "action": verb.to_ascii_lowercase(), "deprecated": op.deprecated});
        self.add_owner(Owner {
            item_type: "operation",
            id: slug(&format!(
                "{name} {}",
                op.key.discriminator.as_deref().unwrap_or("")
            )),
            name,
            status,
            previous: (status != Status::Added).then(|| value.clone()),
            current: (status != Status::Removed).then_some(value),
            endpoint: None,
            matcher: Some(format!("{verb} {}", normalize_template(&op.key.channel))),
            role: None,
        })
    }

    fn message_operations(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        for (key, c) in &cm.message_operations {
            match pm.message_operations.get(key) {
                None => {
                    let owner = self.message_operation_owner(c, Status::Added);
                    self.presence(
                        (B::MessageOperationAdded, Status::Added),
                        owner,
                        &[],
                        "the operation was added".into(),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    let owner = self.message_operation_owner(c, Status::Modified);
                    self.message_operation(owner, p, c);
                }
            }
        }
        for (key, p) in &pm.message_operations {
            if cm.message_operations.contains_key(key) {
                continue;
            }
            let owner = self.message_operation_owner(p, Status::Removed);
            let b = if p.deprecated {
                B::MessageOperationRemovedAfterDeprecation
            } else {
                B::MessageOperationRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &[],
                "the operation was removed".into(),
                (Some(&p.source), None),
            );
        }
    }

    fn message_operation(
        &mut self,
        owner: usize,
        p: &'a MessageOperation,
        c: &'a MessageOperation,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        self.deprecated(
            B::MessageOperationDeprecated,
            owner,
            &[],
            format_args!("the operation"),
            (p.deprecated, c.deprecated),
            at,
        );
        self.operation_texts(
            (
                B::MessageOperationIdChanged,
                B::MessageOperationSummaryChanged,
                B::MessageOperationDescriptionChanged,
            ),
            owner,
            [&p.operation_id, &p.summary, &p.description],
            [&c.operation_id, &c.summary, &c.description],
            at,
        );
        if p.security.is_some() || c.security.is_some() {
            self.security_requirements(owner, p.security.as_ref(), c.security.as_ref(), false, at);
        }
        let send = c.key.direction == Direction::Send;
        let role = if send {
            Role::MessageSent
        } else {
            Role::MessageReceived
        };
        for (name, cmsg) in &c.messages {
            let crumbs = vec![Crumb::new(NodeKind::Message, name.as_str())];
            match p.messages.get(name) {
                Some(pmsg) => self.message(owner, crumbs, role, pmsg, cmsg),
                None => {
                    let b = if send {
                        B::SentMessageAdded
                    } else {
                        B::ReceivedMessageAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!("message `{name}` was added"),
                        (None, Some(&cmsg.source)),
                    );
                }
            }
        }
        for (name, pmsg) in &p.messages {
            if c.messages.contains_key(name) {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Message, name.as_str())];
            let b = if send {
                B::SentMessageRemoved
            } else {
                B::ReceivedMessageRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("message `{name}` was removed"),
                (Some(&pmsg.source), None),
            );
        }
    }

    fn message(
        &mut self,
        owner: usize,
        mut crumbs: Vec<Crumb>,
        role: Role,
        p: &'a Message,
        c: &'a Message,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        if p.content_type != c.content_type {
            self.option_changed(
                (B::MessageContentTypeChanged, "content type", "default"),
                owner,
                &crumbs,
                (&p.content_type, &c.content_type),
                at,
            );
        }
        if p.schema_format != c.schema_format {
            self.option_changed(
                (B::MessageSchemaFormatChanged, "schema format", "default"),
                owner,
                &crumbs,
                (&p.schema_format, &c.schema_format),
                at,
            );
        }
        if p.correlation_id != c.correlation_id {
            self.base(
                B::MessageCorrelationIdChanged,
                owner,
                &crumbs,
                Status::Modified,
                "correlation id changed".into(),
                sv(p.correlation_id.as_deref()),
                sv(c.correlation_id.as_deref()),
                at,
            );
        }
        self.deprecated(
            B::MessageDeprecated,
            owner,
            &crumbs,
            format_args!("the message"),
            (p.deprecated, c.deprecated),
            at,
        );
        if !opt_eq(p.description.as_deref(), c.description.as_deref())
            || !opt_eq(p.summary.as_deref(), c.summary.as_deref())
            || !opt_eq(p.title.as_deref(), c.title.as_deref())
        {
            self.base(
                B::MessageDescriptionChanged,
                owner,
                &crumbs,
                Status::Modified,
                "title, summary or description changed".into(),
                sv(p.description.as_deref()),
                sv(c.description.as_deref()),
                at,
            );
        }
        match (&p.payload, &c.payload) {
            (Some(pp), Some(cp)) => {
                if p.schema_format == c.schema_format {
                    self.schema(owner, &mut crumbs, role, pp, cp, 0);
                }
            }
            (None, Some(_)) => self.base(
                B::MessagePayloadAdded,
                owner,
                &crumbs,
                Status::Modified,
                "the message now declares a payload schema".into(),
                None,
                None,
                at,
            ),
            (Some(_), None) => self.base(
                B::MessagePayloadRemoved,
                owner,
                &crumbs,
                Status::Modified,
                "the message no longer declares a payload schema".into(),
                None,
                None,
                at,
            ),
            (None, None) => {}
        }
        if let (Some(ph), Some(ch)) = (&p.headers, &c.headers) {
            crumbs.push(Crumb::new(NodeKind::MessageHeaders, "headers"));
            self.schema(owner, &mut crumbs, role, ph, ch, 0);
        }
    }

    fn channels(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        let channel_owner = |e: &mut Self, ch: &Channel, status: Status| {
            e.add_owner(Owner {
                item_type: "channel",
                id: format!("channel-{}", slug(&ch.address)),
                name: ch.address.clone(),
                status,
                previous: None,
                current: None,
                endpoint: None,
                matcher: None,
                role: None,
            })
        };
        for (key, c) in &cm.channels {
            match pm.channels.get(key) {
                None => {
                    let owner = channel_owner(self, c, Status::Added);
                    self.presence(
                        (B::ChannelAdded, Status::Added),
                        owner,
                        &[],
                        format!("channel `{}` was added", c.address),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    let owner = channel_owner(self, c, Status::Modified);
                    let at = (Some(&p.source), Some(&c.source));
                    self.text(
                        (B::ChannelDescriptionChanged, "description"),
                        owner,
                        &[],
                        (p.description.as_deref(), c.description.as_deref()),
                        at,
                    );
                    for (name, cs) in &c.parameters {
                        let mut crumbs =
                            vec![Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                        match p.parameters.get(name) {
                            None => self.presence(
                                (B::ChannelParameterAdded, Status::Added),
                                owner,
                                &crumbs,
                                format!("channel parameter `{name}` was added"),
                                at,
                            ),
                            Some(ps) => {
                                if let (Some(ps), Some(cs)) = (ps, cs) {
                                    self.schema(
                                        owner,
                                        &mut crumbs,
                                        Role::ChannelParameter,
                                        ps,
                                        cs,
                                        0,
                                    );
                                }
                            }
                        }
                    }
                    for name in p.parameters.keys() {
                        if !c.parameters.contains_key(name) {
                            let crumbs = [Crumb::new(NodeKind::ChannelParameter, name.as_str())];
                            self.presence(
                                (B::ChannelParameterRemoved, Status::Removed),
                                owner,
                                &crumbs,
                                format!("channel parameter `{name}` was removed"),
                                at,
                            );
                        }
                    }
                }
            }
        }
        for (key, p) in &pm.channels {
            if !cm.channels.contains_key(key) {
                let owner = channel_owner(self, p, Status::Removed);
                self.presence(
                    (B::ChannelRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("channel `{}` was removed", p.address),
                    (Some(&p.source), None),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The character-by-character definition of a slug.
    fn slug_by_chars(s: &str) -> String {
        let mut out = String::new();
        let mut dash = false;
        for ch in s.chars() {
            if ch.is_ascii_alphanumeric() {
                out.push(ch.to_ascii_lowercase());
                dash = false;
            } else if !dash && !out.is_empty() {
                out.push('-');
                dash = true;
            }
        }
        while out.ends_with('-') {
            out.pop();
        }
        out
    }

    #[test]
    fn slugs_built_byte_by_byte_match_the_character_definition() {
        for s in [
            "GET /pets/{id}",
            "  Leading and trailing  ",
            "Ünïcödé names — with dashes",
            "日本語",
            "a日b",
            "x--y__z",
            // Longer than the slug buffer, with separators at and around its edge.
            "GET /apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale/Status-Subresource__v2",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk-lmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "",
            "-",
            "Schema.Name/v1",
        ] {
            assert_eq!(slug(s), slug_by_chars(s), "{s:?}");
            let mut appended = String::from("prefix-");
            slug_into(&mut appended, s);
            assert_eq!(appended, format!("prefix-{}", slug_by_chars(s)), "{s:?}");
        }
    }
}
