//! Stable change ids: every change gets an id that is the same for the same change whatever
//! the documents' key order, their syntax (JSON or YAML), whether a schema is a shared
//! component used through `$ref` or written in place, and how the document is split into
//! files; and, the walk being deterministic, the same on every re-diff. The rule, for readers,
//! is in `docs/diff-rules.md` ([`crate::rules::catalogue_markdown`]).
//!
//! An id is the first 16 hex digits of the SHA-256 of a description of the change, made of:
//!
//! - its **rule** id and its status; a content-only schema change (a description, a title, an
//!   example: reported once for a schema however many roles it is used in, in the role met
//!   first) is described by its check without the role (`schema-description-changed`);
//! - the **semantic path** of what it is about: where it starts (an operation by method and
//!   path template with the parameter names erased, `GET /pets/{}`; a webhook by method and
//!   name; a callback by its operation, name, method and expression; an AsyncAPI operation by
//!   action and channel; a channel, server, security scheme or named schema by name), then one
//!   step per node below it (a parameter by `in` and name, a header's name in lower case, the
//!   request body, a media type, a response by status code, a property by name, items,
//!   additional properties, a composition member, a flow, a server variable, ...). Never a
//!   JSON pointer: where a `$ref` points, which file holds what, and the order of keys play no
//!   part;
//! - its **values** when they are plain (a string, a number, a boolean, or a list of them,
//!   taken as a set: enum values, types, scopes), so that a different edit of the same element
//!   is a different change. Schema values (an added `not`, a `default` object) are left out:
//!   they could hold `$ref`s.
//!
//! A change inside a shared component is reported once, at the component. Its path starts at
//! the component's first use: among the paths from an operation (or another element that is
//! not a component) down to the component, through the components in between, the one with
//! the fewest steps, then the first in the steps' order. A schema written in place at that use
//! has the same path, so the same id. A component that no compared element uses starts its
//! own path (`schema Name`). A content-only change takes the first use over every role of its
//! component.
//!
//! In a Swagger 2.0 document a body's or response's schema is one for every media type of
//! `consumes`/`produces` (compared once, under the first): changes inside it are described
//! without the media type, so reordering `produces` changes no id.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};
use specpress_apispec::{ParameterIn, SpecVersion};

use crate::change::{Change, Crumb, NodeKind, Owner};
use crate::context::Findings;
use crate::nav::FxMap;
use crate::rules::RuleId;

/// Hex digits kept of the hash (64 bits).
const ID_LEN: usize = 16;

/// One step of a semantic path: what kind of node, and its name.
type Step = (&'static str, Arc<str>);

/// The fewest steps first, then the steps in order: a total order under which a path extended
/// by the same steps keeps its rank (so the first use is found by Dijkstra's algorithm).
fn shortlex<T: Ord>(a: &[T], b: &[T]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// A path waiting in the queue of the search for first uses: its steps by rank (see
/// [`Graph::steps`]), and its node.
#[derive(PartialEq, Eq)]
struct Queued(Vec<u32>, usize);

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        shortlex(&self.0, &other.0).then(self.1.cmp(&other.1))
    }
}

/// Where an owner that is not a shared component starts a path.
fn anchor(o: &Owner<'_>) -> String {
    match o.item_type {
        "endpoint" | "webhook" => match o.matcher() {
            Some(m) => format!("{} {m}", o.item_type),
            None => format!("{} {}", o.item_type, o.name),
        },
        // `<operation> callback `<name>` <METHOD> <expression>`: the declaring operation by its
        // template (parameter names erased), then the rest of the title.
        "callback" => {
            let rest = o.name.split_once(" callback `").map_or("", |(_, r)| r);
            let declaring = o.matcher.as_deref().unwrap_or(&o.name);
            format!("callback {declaring} `{rest}")
        }
        // AsyncAPI operations: the action and channel template, and the id (which adds the
        // message discriminator).
        "operation" => match &o.matcher {
            Some(m) => format!("operation {m} {}", o.id),
            None => format!("operation {} {}", o.name, o.id),
        },
        other => format!("{other} {}", o.name),
    }
}

/// A crumb as a step (`None` for a media type that plays no part, see the module's doc).
fn step(c: &Crumb, skip_media_types: bool) -> Option<Step> {
    let tag = match c.kind {
        NodeKind::Parameter(ParameterIn::Path) => "path-parameter",
        NodeKind::Parameter(ParameterIn::Query) => "query-parameter",
        NodeKind::Parameter(ParameterIn::Header) => "header-parameter",
        NodeKind::Parameter(ParameterIn::Cookie) => "cookie-parameter",
        NodeKind::Body => "body",
        NodeKind::MediaType if skip_media_types => return None,
        NodeKind::MediaType => "media-type",
        NodeKind::Response => "response",
        NodeKind::Header => "header",
        NodeKind::Property => "property",
        NodeKind::Items => "items",
        NodeKind::AdditionalProperties => "additional-properties",
        NodeKind::Variant => "variant",
        NodeKind::Condition => "condition",
        NodeKind::SchemaLink => "schema",
        NodeKind::Security => "security",
        NodeKind::Server => "server",
        NodeKind::Variable => "variable",
        NodeKind::Callback => "callback",
        NodeKind::Message => "message",
        NodeKind::MessageHeaders => "message-headers",
        NodeKind::ChannelParameter => "channel-parameter",
        NodeKind::Flow => "flow",
    };
    // Header names are matched case-insensitively.
    let name = if matches!(
        c.kind,
        NodeKind::Header | NodeKind::Parameter(ParameterIn::Header)
    ) && c.name.chars().any(|ch| ch.is_uppercase())
    {
        Arc::from(c.name.to_lowercase())
    } else {
        c.name.clone()
    };
    Some((tag, name))
}

/// The nodes paths are searched over: the owners (`0..owners`), then the shared visits. Steps
/// are numbered by their order (kind, then name), so that paths compare as lists of numbers.
struct Graph {
    owners: usize,
    /// Per node, its edges out: (target node, the steps from the node to the target).
    out: Vec<Vec<(usize, Vec<u32>)>>,
    /// Per node, its path if it starts one (an owner that is not a shared component).
    roots: Vec<Option<u32>>,
    /// The steps by number.
    steps: Vec<Step>,
    /// Per change, the innermost shared visit it was found in.
    change_visit: Vec<Option<usize>>,
}

/// Distinct steps, numbered as they come, then renumbered in order.
#[derive(Default)]
struct Interner {
    index: FxMap<Step, u32>,
    list: Vec<Step>,
}

impl Interner {
    fn id(&mut self, s: Step) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.index.insert(s.clone(), i);
        self.list.push(s);
        i
    }

    /// The steps in order, and each first number's place in it.
    fn ranked(self) -> (Vec<Step>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.list.len() as u32).collect();
        let list = self.list;
        order.sort_unstable_by(|&a, &b| {
            let (x, y) = (&list[a as usize], &list[b as usize]);
            (x.0, &*x.1).cmp(&(y.0, &*y.1))
        });
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let sorted = order.iter().map(|&i| list[i as usize].clone()).collect();
        (sorted, rank)
    }
}

/// For each of `count` indices, the innermost of the (nested) `ranges` that holds it.
fn innermost(ranges: &[std::ops::Range<usize>], count: usize) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&k| !ranges[k].is_empty())
        .collect();
    // Outer ranges first; of two equal ranges the later one (kept after the visit it holds)
    // is the outer one.
    order.sort_unstable_by_key(|&k| (ranges[k].start, Reverse(ranges[k].end), Reverse(k)));
    let mut out = vec![None; count];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        while stack.last().is_some_and(|&k| ranges[k].end <= i) {
            stack.pop();
        }
        while let Some(&k) = order.get(next)
            && ranges[k].start == i
        {
            stack.push(k);
            next += 1;
        }
        *slot = stack.last().copied();
    }
    out
}

impl Graph {
    /// The graph of the places that lead to the `wanted` nodes (the only ones the search needs).
    fn new(found: &Findings<'_>, skip_media_types: bool, wanted: &mut Vec<bool>) -> Self {
        let owners = found.owners.len();
        let shared = &found.shared;
        let nodes = owners + shared.len();
        wanted.resize(nodes, false);
        let ranges: Vec<_> = shared.iter().map(|v| v.changes.clone()).collect();
        let change_visit = innermost(&ranges, found.changes.len());
        // The shared visits that hold a change are wanted too.
        for k in change_visit.iter().flatten() {
            wanted[owners + k] = true;
        }
        // Every link (from, to, crumbs below `from`): a place inside a shared visit is taken
        // from that visit.
        let visit_of = |key: Option<(usize, crate::rules::Role)>| {
            key.and_then(|k| found.shared_index.get(&k).copied())
        };
        fn from<'c>(
            shared: &[crate::context::SharedVisit],
            owners: usize,
            (owner, crumbs, within): (usize, &'c [Crumb], Option<usize>),
        ) -> (usize, &'c [Crumb]) {
            match within {
                Some(k) => {
                    let depth = shared[k].first.crumbs.len();
                    (owners + k, crumbs.get(depth..).unwrap_or(&[]))
                }
                None => (owner, crumbs),
            }
        }
        let mut links: Vec<(usize, usize, &[Crumb])> = Vec::new();
        for (k, v) in shared.iter().enumerate() {
            for site in std::iter::once(&v.first).chain(&v.others) {
                let place = (site.owner, &site.crumbs[..], visit_of(site.within));
                let (node, crumbs) = from(shared, owners, place);
                links.push((node, owners + k, crumbs));
            }
        }
        let ranges: Vec<_> = shared.iter().map(|v| v.edges.clone()).collect();
        let edge_visit = innermost(&ranges, found.edges.len());
        for (e, within) in found.edges.iter().zip(edge_visit) {
            if e.from != e.to {
                let (node, crumbs) = from(shared, owners, (e.from, found.edge_path(e), within));
                links.push((node, e.to, crumbs));
            }
        }
        // The nodes that lead to a wanted one.
        let mut into: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for &(x, y, _) in &links {
            if x != y {
                into[y].push(x);
            }
        }
        let mut stack: Vec<usize> = (0..nodes).filter(|&i| wanted[i]).collect();
        while let Some(x) = stack.pop() {
            for &x in &into[x] {
                if !wanted[x] {
                    wanted[x] = true;
                    stack.push(x);
                }
            }
        }
        let relevant: &[bool] = wanted;
        let mut names = Interner::default();
        let mut out: Vec<Vec<(usize, Vec<u32>)>> = vec![Vec::new(); nodes];
        for (x, y, crumbs) in links {
            if x != y
                && relevant[x]
                && relevant[y]
                && (y >= owners || found.owners[y].role.is_some())
            {
                let steps = crumbs
                    .iter()
                    .filter_map(|c| step(c, skip_media_types))
                    .map(|s| names.id(s))
                    .collect();
                out[x].push((y, steps));
            }
        }
        let mut roots: Vec<Option<u32>> = vec![None; nodes];
        for (i, o) in found.owners.iter().enumerate() {
            if o.role.is_none() && !out[i].is_empty() {
                roots[i] = Some(names.id(("", Arc::from(anchor(o)))));
            }
        }
        let (steps, rank) = names.ranked();
        for edges in &mut out {
            for (_, path) in edges {
                for s in path.iter_mut() {
                    *s = rank[*s as usize];
                }
            }
        }
        for r in roots.iter_mut().flatten() {
            *r = rank[*r as usize];
        }
        Graph {
            owners,
            out,
            roots,
            steps,
            change_visit,
        }
    }

    /// A path's steps.
    fn path(&self, ranks: &[u32]) -> Vec<Step> {
        ranks
            .iter()
            .filter_map(|&r| self.steps.get(r as usize).cloned())
            .collect()
    }

    /// The first path from an element that is not a shared component to each node of the
    /// graph (see the module's doc); `None` where none leads.
    fn first_paths(&self) -> Vec<Option<Vec<u32>>> {
        let n = self.out.len();
        let mut best: Vec<Option<Vec<u32>>> = vec![None; n];
        let mut queue: BinaryHeap<Reverse<Queued>> = BinaryHeap::new();
        for (i, root) in self.roots.iter().enumerate() {
            if let Some(r) = root {
                best[i] = Some(vec![*r]);
                queue.push(Reverse(Queued(vec![*r], i)));
            }
        }
        while let Some(Reverse(Queued(path, x))) = queue.pop() {
            if best[x].as_ref() != Some(&path) {
                continue;
            }
            for (y, steps) in &self.out[x] {
                let y = *y;
                if self.roots[y].is_some() {
                    continue;
                }
                // Compared before anything is copied: most uses are not better.
                let better = match &best[y] {
                    None => true,
                    Some(b) => {
                        let len = path.len() + steps.len();
                        len < b.len() || (len == b.len() && path.iter().chain(steps).lt(b.iter()))
                    }
                };
                if better {
                    let mut next = Vec::with_capacity(path.len() + steps.len());
                    next.extend_from_slice(&path);
                    next.extend_from_slice(steps);
                    best[y] = Some(next.clone());
                    queue.push(Reverse(Queued(next, y)));
                }
            }
        }
        best
    }
}

/// A plain value as canonical text: a scalar as JSON, a list of scalars as the sorted JSON of
/// its items; `None` for anything else.
fn plain(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) => {
            let mut texts: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::Array(_) | Value::Object(_) => return None,
                    scalar => texts.push(scalar.to_string()),
                }
            }
            texts.sort_unstable();
            texts.dedup();
            Some(format!("[{}]", texts.join(",")))
        }
        Value::Object(_) => None,
        scalar => Some(scalar.to_string()),
    }
}

/// Appends one field of a description, its length first (no field can be mistaken for two).
fn field(out: &mut String, text: &str) {
    out.push_str(&text.len().to_string());
    out.push(':');
    out.push_str(text);
    out.push('\n');
}

/// The description of a change that its id hashes (see the module's doc).
fn describe(c: &Change, start: &[Step], crumbs: &[Crumb], skip_media_types: bool) -> String {
    let rule = c.rule.rule();
    let mut out = String::with_capacity(256);
    out.push_str("specpress-change-id 1\n");
    match content_check(c.rule) {
        Some(suffix) => field(&mut out, &format!("schema-{suffix}")),
        None => field(&mut out, &rule.id),
    }
    field(&mut out, c.status.as_str());
    let skip = skip_media_types && rule.schema;
    let steps = start
        .iter()
        .cloned()
        .chain(crumbs.iter().filter_map(|cr| step(cr, skip)));
    for (tag, name) in steps {
        field(&mut out, tag);
        field(&mut out, &name);
    }
    out.push_str("values\n");
    for v in [&c.previous, &c.current] {
        match v.as_ref().and_then(plain) {
            Some(text) => field(&mut out, &text),
            None => out.push_str("-\n"),
        }
    }
    out
}

/// The role-free suffix of a content-only schema rule (`description-changed`), else `None`.
fn content_check(rule: RuleId) -> Option<&'static str> {
    let r = rule.rule();
    if r.schema && !r.structural {
        rule.schema_check_suffix()
    } else {
        None
    }
}

/// The id of a description.
fn hash(description: &str) -> String {
    let digest = Sha256::digest(description.as_bytes());
    let mut id = hex::encode(&digest[..ID_LEN / 2]);
    id.truncate(ID_LEN);
    id
}

/// Changes whose descriptions are equal are told apart: by the element that owns them (a shared
/// component's name: the uses of the components of an unchanged schema are all recorded where
/// that schema is, so two components can share their first use), and when that is not enough,
/// by their locations in the documents.
fn disambiguate(found: &Findings<'_>, descriptions: &mut [String]) {
    for round in 0..2 {
        let mut groups: FxMap<&str, Vec<usize>> = FxMap::default();
        for (i, d) in descriptions.iter().enumerate() {
            groups.entry(d.as_str()).or_default().push(i);
        }
        let repeated: Vec<usize> = groups
            .into_values()
            .filter(|g| g.len() > 1)
            .flatten()
            .collect();
        if repeated.is_empty() {
            return;
        }
        for i in repeated {
            let c = &found.changes[i];
            let d = &mut descriptions[i];
            if round == 0 {
                let o = &found.owners[c.owner];
                d.push_str("owner\n");
                field(d, &o.name);
            } else {
                d.push_str("at\n");
                for at in [&c.previous_at, &c.current_at] {
                    match at {
                        Some(at) => field(d, &format!("{}#{}", at.file.0, at.pointer)),
                        None => d.push_str("-\n"),
                    }
                }
            }
        }
    }
}

/// Gives every change its id.
pub(crate) fn assign(found: &mut Findings<'_>, versions: (SpecVersion, SpecVersion)) {
    let skip_media_types =
        versions.0 == SpecVersion::OpenApi20 || versions.1 == SpecVersion::OpenApi20;
    // The owners of each component, over its roles (for content-only changes).
    let mut by_name: FxMap<&str, Vec<usize>> = FxMap::default();
    for (i, o) in found.owners.iter().enumerate() {
        if o.role.is_some() {
            by_name.entry(o.name.as_str()).or_default().push(i);
        }
    }
    // The components whose first use is needed: those with a change, and for a content-only
    // change, the component in every role.
    let mut wanted = vec![false; found.owners.len()];
    for c in &found.changes {
        let o = &found.owners[c.owner];
        if o.role.is_none() {
            continue;
        }
        wanted[c.owner] = true;
        if content_check(c.rule).is_some() {
            for &i in by_name.get(o.name.as_str()).map_or(&[][..], Vec::as_slice) {
                wanted[i] = true;
            }
        }
    }
    let graph = Graph::new(found, skip_media_types, &mut wanted);
    let uses = graph.first_paths();
    let mut descriptions = Vec::with_capacity(found.changes.len());
    for (c, visit) in found.changes.iter().zip(&graph.change_visit) {
        let o = &found.owners[c.owner];
        // Inside a shared visit: from the visit's first place, with the crumbs below it.
        if let Some(k) = *visit
            && let Some(start) = &uses[graph.owners + k]
        {
            let depth = found.shared[k].first.crumbs.len();
            let crumbs = c.crumbs.get(depth..).unwrap_or(&[]);
            descriptions.push(describe(c, &graph.path(start), crumbs, skip_media_types));
            continue;
        }
        let start: Vec<Step> = if o.role.is_none() {
            vec![("", Arc::from(anchor(o)))]
        } else {
            let candidates: &[usize] = if content_check(c.rule).is_some() {
                by_name.get(o.name.as_str()).map_or(&[], Vec::as_slice)
            } else {
                std::slice::from_ref(&c.owner)
            };
            candidates
                .iter()
                .filter_map(|&i| uses[i].as_ref())
                .min_by(|a, b| shortlex(a, b))
                .map(|ranks| graph.path(ranks))
                .unwrap_or_else(|| vec![("schema", Arc::from(o.name.as_str()))])
        };
        descriptions.push(describe(c, &start, &c.crumbs, skip_media_types));
    }
    disambiguate(found, &mut descriptions);
    let ids: Vec<String> = descriptions.iter().map(|d| hash(d)).collect();
    for (c, id) in found.changes.iter_mut().zip(ids) {
        c.id = id;
    }
}
