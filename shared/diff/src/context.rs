//! The state of one diff run: the two documents as the walk reads them, what it found so far,
//! the shared components still to compare, and the memo tables. The comparisons themselves
//! are methods on [`Context`] in [`crate::structure`] (operations, parameters, bodies,
//! security, servers, AsyncAPI) and [`crate::schema`] (schemas); this module also holds the
//! helpers every comparison reports changes with.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;
use specpress_apispec::{Document, Location};

use crate::change::{Change, Crumb, NodeKind, Owner, Status};
use crate::memo::{LastEdge, PairMemo, PointerPair, RefPairKey};
use crate::nav::{FxBuild, FxMap, FxSet, Nav};
use crate::options::DiffOptions;
use crate::rules::{Level, Role, RuleId, SchemaCheck, StructureRule};

/// Upper bound on schema node pairs visited in one diff (a budget against hostile input).
pub(crate) const MAX_SCHEMA_VISITS: usize = 4_000_000;

/// Upper bound on inline (non-component) schema nesting followed in one walk.
pub(crate) const MAX_INLINE_DEPTH: usize = 96;

/// A use of a shared component from an owner (operation or another component).
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    /// Where the use sits under `from`: a range of [`Findings::edge_crumbs`] (the link item, if
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

pub(crate) fn opt_eq(a: Option<&str>, b: Option<&str>) -> bool {
    a.unwrap_or("").trim() == b.unwrap_or("").trim()
}

pub(crate) fn sv(s: Option<&str>) -> Option<Value> {
    s.map(|s| Value::String(s.to_string()))
}

/// The previous and the current version of something.
pub(crate) type Versions<'v, T> = (&'v T, &'v T);

/// Where a change was found: (previous, current) location.
pub(crate) type At<'l> = (Option<&'l Location>, Option<&'l Location>);

/// One document of the pair, as the walk reads it.
pub(crate) struct Version<'a> {
    pub document: &'a Document,
    /// Pointer lookups and `$ref` resolution, cached.
    pub nav: Nav<'a>,
    /// The named schemas (`components/schemas`, `definitions`) by location.
    pub schema_names: FxMap<&'a Location, &'a str>,
}

impl<'a> Version<'a> {
    fn new(document: &'a Document) -> Self {
        Version {
            document,
            nav: Nav::new(document),
            schema_names: document
                .model()
                .schemas
                .iter()
                .map(|(n, l)| (l, n.as_str()))
                .collect(),
        }
    }
}

/// A place that reached a schema pair: its owner, its crumbs, and the shared visit it lies in
/// (the innermost pair being compared then, by its key in [`Findings::shared_index`]).
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub owner: usize,
    pub crumbs: Vec<Crumb>,
    pub within: Option<(usize, Role)>,
}

/// An inline schema pair (not a shared component) that its first comparison found something
/// in: where that comparison was, what it found (the changes and edges recorded during it), and
/// the other places that reached the pair in the same role and were given nothing, the pair
/// being compared once (the pair memo). Which place comes first follows the walk, so the
/// documents' key order; change ids start at the first of them in a fixed order instead (see
/// [`crate::ids`]).
#[derive(Clone, Debug)]
pub(crate) struct SharedVisit {
    pub first: Site,
    pub changes: std::ops::Range<usize>,
    pub edges: std::ops::Range<usize>,
    pub others: Vec<Site>,
}

/// What the walk found: the roots of the tree (operations, shared components, servers, …),
/// the changes, and the uses of shared components. [`crate::tree`] arranges them.
#[derive(Default)]
pub(crate) struct Findings<'a> {
    pub owners: Vec<Owner<'a>>,
    pub changes: Vec<Change>,
    pub edges: Vec<Edge>,
    /// The crumbs of every edge, one after the other (see [`Edge::crumbs`]).
    pub edge_crumbs: Vec<Crumb>,
    /// Changes emitted so far, ignored ones included.
    pub emitted: usize,
    /// The inline schema pairs compared once for several places (see [`SharedVisit`]).
    pub shared: Vec<SharedVisit>,
    /// [`Findings::shared`] by pair (its index in the pair memo, and its role).
    pub shared_index: FxMap<(usize, Role), usize>,
    /// The pairs being compared, innermost last.
    pub visiting: Vec<(usize, Role)>,
    /// Places recorded in [`SharedVisit::others`] so far.
    pub sites: usize,
}

/// Where a visit started: its pair, and how many changes and edges there were.
pub(crate) struct VisitStart {
    key: (usize, Role),
    changes: usize,
    edges: usize,
    sites: usize,
}

impl<'a> Findings<'a> {
    /// Records a use of the shared component `to` from `owner` at `crumbs` (appended to one
    /// buffer: no allocation per edge). Edges from operations and from shared components alike
    /// may become link items (see [`crate::tree::build`]), so each keeps where it sits.
    #[inline]
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

    /// A pair starts being compared.
    #[inline]
    pub(crate) fn visit_started(&mut self, key: (usize, Role)) -> VisitStart {
        self.visiting.push(key);
        VisitStart {
            key,
            changes: self.changes.len(),
            edges: self.edges.len(),
            sites: self.sites,
        }
    }

    /// The pair of `start` was compared (by `owner` at `crumbs`): kept when it found something
    /// (a change, an edge, or a place that reached an earlier shared pair: that place is then
    /// as shared as this pair).
    #[inline]
    pub(crate) fn visit_ended(&mut self, start: VisitStart, owner: usize, crumbs: &[Crumb]) {
        self.visiting.pop();
        if self.changes.len() == start.changes
            && self.edges.len() == start.edges
            && self.sites == start.sites
        {
            return;
        }
        let first = Site {
            owner,
            crumbs: crumbs.to_vec(),
            within: self.visiting.last().copied(),
        };
        self.shared_index.insert(start.key, self.shared.len());
        self.shared.push(SharedVisit {
            first,
            changes: start.changes..self.changes.len(),
            edges: start.edges..self.edges.len(),
            others: Vec::new(),
        });
    }

    /// A pair already compared in this role was reached again, by `owner` at `crumbs`.
    #[inline]
    pub(crate) fn reached_again(&mut self, key: (usize, Role), owner: usize, crumbs: &[Crumb]) {
        let Some(&i) = self.shared_index.get(&key) else {
            return;
        };
        let site = Site {
            owner,
            crumbs: crumbs.to_vec(),
            within: self.visiting.last().copied(),
        };
        if let Some(s) = self.shared.get_mut(i) {
            s.others.push(site);
            self.sites += 1;
        }
    }

    #[inline]
    pub(crate) fn add_owner(&mut self, owner: Owner<'a>) -> usize {
        self.owners.push(owner);
        self.owners.len() - 1
    }
}

/// The shared components met so far, each compared once per role.
#[derive(Default)]
pub(crate) struct Components {
    pub pairs: Vec<ComponentPair>,
    /// Role → component name → index in `pairs`.
    pub index: FxMap<Role, FxMap<String, usize>>,
    /// Indices in `pairs` still to compare.
    pub queue: VecDeque<usize>,
}

/// What the walk remembers so that nothing is compared or reported twice.
pub(crate) struct Memo<'a> {
    /// Every schema location pair seen: the roles it was compared in, and (once known)
    /// whether it is unchanged, with the named components its `$ref`s use.
    pub pairs: PairMemo,
    /// Content-only schema changes already reported at a location pair (a pair compared in
    /// several roles reports them once).
    pub content_seen: FxSet<(SchemaCheck, Location, Location)>,
    /// Named schema location pairs whose stability level change was already reported (a
    /// pair compared in several roles reports it once).
    pub levels_seen: FxSet<(Location, Location)>,
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
    /// Crumb names taken from the models (media types, statuses, parameter and header
    /// names), shared: they recur in every operation.
    pub names: FxMap<&'a str, Arc<str>>,
}

/// State of one diff run.
pub(crate) struct Context<'a> {
    /// The document compared from.
    pub previous: Version<'a>,
    /// The document compared to.
    pub current: Version<'a>,
    pub options: &'a DiffOptions,
    /// `YYYY-MM-DD`, for the sunset-date rules.
    pub today: String,
    pub found: Findings<'a>,
    pub components: Components,
    pub memo: Memo<'a>,
    /// True while comparing a callback operation: the request is sent by the API and the
    /// response by the subscriber, so bodies are judged the other way round.
    pub inverted: bool,
    /// Schema pairs compared so far (against [`MAX_SCHEMA_VISITS`]).
    pub visits: usize,
    /// True when the walk hit its budget and stopped early.
    pub truncated: bool,
}

impl<'a> Context<'a> {
    pub(crate) fn new(
        previous: &'a Document,
        current: &'a Document,
        options: &'a DiffOptions,
    ) -> Self {
        // Room for the usual number of entries of the memo tables up front (growing a map
        // re-hashes every key in it): about one per operation or named schema.
        let model = current.model();
        let shared = model.operations.len() + model.schemas.len() + 64;
        Context {
            previous: Version::new(previous),
            current: Version::new(current),
            options,
            today: options.today(),
            found: Findings::default(),
            components: Components::default(),
            memo: Memo {
                pairs: PairMemo::with_capacity(2 * shared),
                content_seen: FxSet::default(),
                levels_seen: FxSet::default(),
                ref_links: FxMap::default(),
                param_same: FxMap::with_capacity_and_hasher(shared, FxBuild::default()),
                last_edge: LastEdge::default(),
                clean_params: FxSet::with_capacity_and_hasher(shared, FxBuild::default()),
                names: FxMap::default(),
            },
            inverted: false,
            visits: 0,
            truncated: false,
        }
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
        self.found.emitted += 1;
        if self.options.has_ignores() {
            let matcher = self.found.owners.get(owner).and_then(|o| o.matcher());
            if self.options.ignored(rule, matcher.as_deref()) {
                return;
            }
        }
        let mut level = self.options.level(rule);
        let mut message = message;
        // Elements below stable carry no compatibility promise: what would break is a warning,
        // said why (`(beta: not breaking)`; the rule is `Context::unstable`'s).
        if level == Level::Breaking {
            let lowered = rule == RuleId::structure(StructureRule::StabilityLevelLowered);
            if let Some(stability) = self.unstable(lowered, owner, crumbs, previous_at) {
                level = Level::Warning;
                message.push_str(&format!(" ({stability}: not breaking)"));
            }
        }
        let subject = self
            .found
            .owners
            .get(owner)
            .map(|o| o.name.clone())
            .unwrap_or_default();
        self.found.changes.push(Change {
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
            migration: None,
            // Given once the walk is over (`crate::ids`, `crate::places`).
            id: String::new(),
            place: None,
            previous_place: None,
        });
    }

    /// Records a change of a structure rule (see [`Context::emit`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn structure_change(
        &mut self,
        rule: StructureRule,
        owner: usize,
        crumbs: &[Crumb],
        status: Status,
        message: String,
        previous: Option<Value>,
        current: Option<Value>,
        at: (Option<&Location>, Option<&Location>),
    ) {
        self.emit(
            RuleId::structure(rule),
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
    pub(crate) fn modified(
        &mut self,
        rule: StructureRule,
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        (previous, current): (Option<Value>, Option<Value>),
        at: At<'_>,
    ) {
        let status = Status::Modified;
        self.structure_change(rule, owner, crumbs, status, message, previous, current, at);
    }

    /// A boolean that changed: a `Modified` change with both values.
    pub(crate) fn flag(
        &mut self,
        rule: StructureRule,
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        let values = (Some(previous.into()), Some(current.into()));
        self.modified(rule, owner, crumbs, message, values, at);
    }

    /// A text (description, summary, title) that changed other than by white space at its
    /// ends: "`what` changed", with both values.
    pub(crate) fn text(
        &mut self,
        (rule, what): (StructureRule, &str),
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (Option<&str>, Option<&str>),
        at: At<'_>,
    ) {
        if !opt_eq(previous, current) {
            let values = (sv(previous), sv(current));
            self.modified(rule, owner, crumbs, format!("{what} changed"), values, at);
        }
    }

    /// `required` switched on (`became_required`) or off (`became_optional`); `subject` names
    /// the thing ("parameter `x`", "the request body").
    pub(crate) fn required(
        &mut self,
        (became_required, became_optional): (StructureRule, StructureRule),
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        let (rule, became) = match (previous, current) {
            (false, true) => (became_required, "required"),
            (true, false) => (became_optional, "optional"),
            _ => return,
        };
        let message = format!("{subject} became {became}");
        self.flag(rule, owner, crumbs, message, (previous, current), at);
    }

    /// `deprecated` switched on; `subject` names the thing.
    pub(crate) fn deprecated(
        &mut self,
        rule: StructureRule,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): (bool, bool),
        at: At<'_>,
    ) {
        if !previous && current {
            let message = format!("{subject} was deprecated");
            self.flag(rule, owner, crumbs, message, (false, true), at);
        }
    }

    /// An optional string that changed (the caller decides when): "`what` changed from `a`
    /// to `rule`", `default` standing for an absent value.
    pub(crate) fn option_changed(
        &mut self,
        (rule, what, default): (StructureRule, &str, &str),
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
        self.modified(rule, owner, crumbs, message, values, at);
    }

    /// An identifier both sides declare (an operationId) that changed.
    pub(crate) fn renamed(
        &mut self,
        (rule, what): (StructureRule, &str),
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (&Option<String>, &Option<String>),
        at: At<'_>,
    ) {
        if previous.is_some() && current.is_some() && previous != current {
            self.option_changed((rule, what, ""), owner, crumbs, (previous, current), at);
        }
    }

    /// The operationId, summary and description of two matched operations (HTTP or AsyncAPI).
    pub(crate) fn operation_texts(
        &mut self,
        (id, summary, description): (StructureRule, StructureRule, StructureRule),
        owner: usize,
        previous: [&Option<String>; 3],
        current: [&Option<String>; 3],
        at: At<'_>,
    ) {
        let ids = (previous[0], current[0]);
        self.renamed((id, "operationId"), owner, &[], ids, at);
        let [summaries, descriptions] =
            [1, 2].map(|i| (previous[i].as_deref(), current[i].as_deref()));
        self.text((summary, "summary"), owner, &[], summaries, at);
        self.text((description, "description"), owner, &[], descriptions, at);
    }

    /// Something added or removed as a whole (`status`): the change carries no values.
    pub(crate) fn presence(
        &mut self,
        (rule, status): (StructureRule, Status),
        owner: usize,
        crumbs: &[Crumb],
        message: String,
        at: At<'_>,
    ) {
        self.structure_change(rule, owner, crumbs, status, message, None, None, at);
    }

    /// A crumb whose name comes from a model, sharing the name with earlier crumbs.
    pub(crate) fn crumb(&mut self, kind: NodeKind, name: &'a str) -> Crumb {
        let name = self
            .memo
            .names
            .entry(name)
            .or_insert_with(|| Arc::from(name))
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
        if let Some(&i) = self.components.index.get(&role).and_then(|m| m.get(name)) {
            return self.components.pairs[i].owner;
        }
        let owner = self.found.add_owner(Owner {
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
            // A component is judged at its own location: `x-beta` or `x-stability-level` on
            // it or inside it is read from the changes' locations (see `crate::beta`).
            unstable: None,
        });
        self.components.pairs.push(ComponentPair {
            owner,
            previous: previous.clone(),
            current: current.clone(),
            role,
        });
        let i = self.components.pairs.len() - 1;
        self.components
            .index
            .entry(role)
            .or_default()
            .insert(name.to_string(), i);
        self.components.queue.push_back(i);
        owner
    }
}
