//! Arranges the flat change list into the Bump.sh `DiffItem` tree.

use serde::Serialize;
use serde_json::{Map, Value};
use specpress_slug::slug_into;

use crate::change::{Crumb, NodeKind, Place, Status};
use crate::context::Findings;
use crate::nav::FxSet;
use crate::rules::{Level, Side};

/// Why a node is breaking (Bump.sh `breaking_details`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct BreakingDetails {
    /// The first breaking rule, as a snake_case key (`removed_not_deprecated` for a removed
    /// operation, as Bump.sh reports it).
    pub message_key: String,
    /// The attributes whose change is breaking (`type`, `required`, `path`, …).
    pub breaking_attributes: Vec<String>,
}

/// One classified change attached to a node (our addition to the Bump.sh shape).
#[derive(Clone, Debug, Serialize)]
pub struct ItemChange {
    /// The change's stable id (see `docs/diff-rules.md`).
    pub id: String,
    /// Stable rule id from the catalogue.
    pub rule: &'static str,
    /// Effective level.
    pub level: Level,
    /// The side the change is judged from.
    pub side: Side,
    /// False for content-only changes.
    pub structural: bool,
    /// Human message.
    pub message: String,
    /// For a breaking change: what a client must do, as Markdown (see `crate::migration`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration: Option<String>,
    /// Where the change is in the current document (`None` when it is not there: a removal
    /// of something whose parent is gone too).
    pub location: Option<Place>,
    /// Where it was in the previous document (`None` for an addition).
    pub previous_location: Option<Place>,
}

/// A node of the diff tree, serialized exactly as Bump.sh's `DiffItem` plus `changes`,
/// `affected`, `ref` and `level`.
#[derive(Clone, Debug, Serialize)]
pub struct DiffItem {
    pub id: String,
    pub name: String,
    pub status: Status,
    #[serde(rename = "type")]
    pub item_type: String,
    pub breaking: bool,
    /// Highest level found in this node and below.
    pub level: Level,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaking_details: Option<BreakingDetails>,
    pub children: Vec<DiffItem>,
    /// The changes found at this very node.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ItemChange>,
    /// For a shared component: the operations that use it (directly or through other
    /// components).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affected: Vec<String>,
    /// For a use of a shared component that changed or leads to a breaking change: the `id`
    /// of the component's root item (its `breaking` and `level` are this item's).
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Text label of the node (`Query parameter`, `Body attribute`, …), for the renderers.
    #[serde(skip)]
    pub label: String,
    /// True when one of this node's own changes (not its children's, nor those of the
    /// component a link points at) is breaking.
    #[serde(skip)]
    pub own_breaking: bool,
    /// True when the node only groups its children (a request body with no change of its
    /// own): the text rendering skips its line, as bump-cli does.
    #[serde(skip)]
    pub transparent: bool,
}

struct Node {
    crumb: Option<Crumb>,
    changes: Vec<usize>,
    link: Option<usize>,
    children: Vec<Node>,
}

impl Node {
    fn new(crumb: Option<Crumb>) -> Self {
        Node {
            crumb,
            changes: Vec::new(),
            link: None,
            children: Vec::new(),
        }
    }

    fn at(&mut self, crumbs: &[Crumb]) -> &mut Node {
        let mut node = self;
        for c in crumbs {
            let i = match node
                .children
                .iter()
                .position(|n| n.crumb.as_ref() == Some(c) && n.link.is_none())
            {
                Some(i) => i,
                None => {
                    node.children.push(Node::new(Some(c.clone())));
                    node.children.len() - 1
                }
            };
            node = &mut node.children[i];
        }
        node
    }
}

fn label(kind: NodeKind, in_parameter: bool) -> String {
    match kind {
        NodeKind::Parameter(p) => {
            let s = match p {
                specpress_apispec::ParameterIn::Path => "Path parameter",
                specpress_apispec::ParameterIn::Query => "Query parameter",
                specpress_apispec::ParameterIn::Header => "Header parameter",
                specpress_apispec::ParameterIn::Cookie => "Cookie parameter",
            };
            s.into()
        }
        NodeKind::Body => "Body".into(),
        NodeKind::MediaType => "Media type".into(),
        NodeKind::Response => "Response".into(),
        NodeKind::Header => "Header".into(),
        NodeKind::Property if in_parameter => "Attribute".into(),
        NodeKind::Property => "Body attribute".into(),
        NodeKind::AdditionalProperties => "Additional properties".into(),
        NodeKind::Items => "Items".into(),
        NodeKind::Variant => "Variant".into(),
        NodeKind::Condition => "Keyword".into(),
        NodeKind::SchemaLink => "Schema".into(),
        NodeKind::Security => "Security".into(),
        NodeKind::Server => "Server".into(),
        NodeKind::Variable => "Variable".into(),
        NodeKind::Callback => "Callback".into(),
        NodeKind::Message => "Message".into(),
        NodeKind::MessageHeaders => "Headers".into(),
        NodeKind::ChannelParameter => "Parameter".into(),
        NodeKind::Flow => "Flow".into(),
    }
}

/// Merges `{attribute: value}` objects for `previous`/`current`.
fn attr_value(into: &mut Option<Value>, attribute: &str, v: &Option<Value>) {
    let Some(v) = v else { return };
    let obj = into.get_or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(m) = obj {
        m.entry(attribute.to_string()).or_insert_with(|| v.clone());
    }
}

/// Facts computed over the component graph.
///
/// Which uses of shared components become link items: a use by an owner that is shown (an
/// operation, or a component that is itself an item) of a component that has a change of its
/// own or leads to a breaking change. A component is shown (becomes an item) when it has a
/// change of its own or leads to a breaking change; in the second case it may hold nothing but
/// links. So a breaking flag can always be followed, link by link, down to the change that
/// causes it; a change of a lower level reached only through unchanged components is found at
/// its own component, whose `affected` list names the operations.
pub(crate) struct Graph {
    /// Per owner: it has a change of its own.
    pub own_changed: Vec<bool>,
    /// Per owner: it or a component it reaches has a breaking change.
    pub breaking: Vec<bool>,
    /// Per owner: it may become an item (every operation-like owner; a shared component with
    /// a change of its own or that leads to a breaking change).
    pub shown: Vec<bool>,
    /// Per owner: the highest level of a change reachable from it through its own tree and
    /// its link items (the `level` of its item, and of every link item pointing at it).
    pub level: Vec<Level>,
    /// Per component with a change of its own: the operations that reach it (empty for the
    /// others).
    pub affected: Vec<Vec<String>>,
}

impl Graph {
    /// Whether the use of `to` by `from` becomes a link item.
    pub(crate) fn links(&self, from: usize, to: usize) -> bool {
        from != to && self.shown[from] && (self.own_changed[to] || self.breaking[to])
    }
}

/// Adjacency lists of `n` nodes in one buffer: node `x`'s neighbours are
/// `targets[start[x]..start[x + 1]]`, in the order the pairs were given.
struct Adjacency {
    start: Vec<usize>,
    targets: Vec<usize>,
}

impl Adjacency {
    fn new(n: usize, pairs: impl Iterator<Item = (usize, usize)> + Clone) -> Self {
        let mut start = vec![0usize; n + 1];
        for (x, _) in pairs.clone() {
            start[x + 1] += 1;
        }
        for x in 0..n {
            start[x + 1] += start[x];
        }
        let mut next = start.clone();
        let mut targets = vec![0usize; start[n]];
        for (x, y) in pairs {
            targets[next[x]] = y;
            next[x] += 1;
        }
        Adjacency { start, targets }
    }

    /// The same lists, each sorted and without repeats.
    fn sorted_distinct(mut self) -> Self {
        let n = self.start.len().saturating_sub(1);
        let mut start = Vec::with_capacity(n + 1);
        let mut targets = Vec::with_capacity(self.targets.len());
        start.push(0);
        for x in 0..n {
            if let Some(list) = self.targets.get_mut(self.start[x]..self.start[x + 1]) {
                list.sort_unstable();
                let mut last = None;
                for &y in list.iter() {
                    if last != Some(y) {
                        targets.push(y);
                        last = Some(y);
                    }
                }
            }
            start.push(targets.len());
        }
        Adjacency { start, targets }
    }

    fn of(&self, x: usize) -> &[usize] {
        match (self.start.get(x), self.start.get(x + 1)) {
            (Some(&a), Some(&b)) => self.targets.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

pub(crate) fn graph(e: &Findings<'_>) -> Graph {
    let n = e.owners.len();
    let mut changed = vec![false; n];
    let mut breaking = vec![false; n];
    let mut level = vec![Level::Info; n];
    for c in &e.changes {
        changed[c.owner] = true;
        if c.level == Level::Breaking {
            breaking[c.owner] = true;
        }
        level[c.owner] = level[c.owner].max(c.level);
    }
    let own_changed = changed.clone();
    // The component graph in compressed form (one buffer per direction, not one list per
    // owner): `out` lists each owner's distinct targets in increasing order, `into` each
    // owner's sources.
    let out = Adjacency::new(
        n,
        e.edges
            .iter()
            .filter(|edge| edge.from != edge.to)
            .map(|edge| (edge.from, edge.to)),
    )
    .sorted_distinct();
    // Propagate "reaches a change" backwards along edges: a breadth-first walk over the
    // reversed edges from every owner with a change of its own (each node enters once, so
    // cycles terminate and the cost is linear in the edges).
    let into = Adjacency::new(
        n,
        (0..n).flat_map(|from| out.of(from).iter().map(move |&to| (to, from))),
    );
    let spread = |flags: &mut Vec<bool>, follow: &dyn Fn(usize, usize) -> bool| {
        let mut queue: Vec<usize> = (0..n).filter(|&i| flags[i]).collect();
        while let Some(x) = queue.pop() {
            for &from in into.of(x) {
                if !flags[from] && follow(from, x) {
                    flags[from] = true;
                    queue.push(from);
                }
            }
        }
    };
    spread(&mut changed, &|_, _| true);
    spread(&mut breaking, &|_, _| true);
    let shown: Vec<bool> = (0..n)
        .map(|i| e.owners[i].role.is_none() || own_changed[i] || breaking[i])
        .collect();
    // The level of an item is the highest level reachable through its links: every owner
    // with a change of its own at `warning` or above passes it back along the uses that
    // become link items (`breaking` needs no such walk: every use of a component that leads
    // to a breaking change from a shown owner is a link, so it is the same set).
    let mut warning: Vec<bool> = level.iter().map(|&l| l >= Level::Warning).collect();
    spread(&mut warning, &|from, to| {
        from != to && shown[from] && (own_changed[to] || breaking[to])
    });
    for i in 0..n {
        level[i] = if breaking[i] {
            Level::Breaking
        } else if warning[i] {
            Level::Warning
        } else {
            Level::Info
        };
    }
    // The operations reaching each component, as bit sets over the operations that reach a
    // change (a forward data flow over the edges among owners that reach a change, each
    // owner revisited only when its set grew): one walk of the graph for all operations,
    // rather than one per operation through the same components.
    let ops: Vec<usize> = (0..n)
        .filter(|&i| {
            changed[i]
                && matches!(
                    e.owners[i].item_type,
                    "endpoint" | "webhook" | "operation" | "channel" | "callback"
                )
        })
        .collect();
    let words = ops.len().div_ceil(64);
    // A set per component that reaches a change (the only owners the flow enters).
    let mut set = vec![u32::MAX; n];
    let mut sets = 0usize;
    for x in 0..n {
        if changed[x] && e.owners[x].role.is_some() {
            set[x] = sets as u32;
            sets += 1;
        }
    }
    let mut reached = vec![0u64; sets * words];
    let mut queued = vec![false; n];
    let mut queue: Vec<usize> = Vec::new();
    for (k, &i) in ops.iter().enumerate() {
        for &y in out.of(i) {
            if set[y] == u32::MAX {
                continue;
            }
            reached[set[y] as usize * words + k / 64] |= 1 << (k % 64);
            if !queued[y] {
                queued[y] = true;
                queue.push(y);
            }
        }
    }
    while let Some(x) = queue.pop() {
        queued[x] = false;
        let sx = set[x] as usize;
        for &y in out.of(x) {
            if set[y] == u32::MAX || y == x {
                continue;
            }
            let sy = set[y] as usize;
            let mut grew = false;
            for w in 0..words {
                let add = reached[sx * words + w] & !reached[sy * words + w];
                if add != 0 {
                    reached[sy * words + w] |= add;
                    grew = true;
                }
            }
            if grew && !queued[y] {
                queued[y] = true;
                queue.push(y);
            }
        }
    }
    // Only a component with a change of its own lists the operations (a component shown
    // only because it leads to a breaking change holds links, and the operations are listed
    // at the components whose changes they reach), in the order of the operations.
    let mut affected: Vec<Vec<String>> = vec![Vec::new(); n];
    for x in (0..n).filter(|&x| own_changed[x] && set[x] != u32::MAX) {
        let sx = set[x] as usize;
        let bits = reached.get(sx * words..(sx + 1) * words).unwrap_or(&[]);
        let list = &mut affected[x];
        list.reserve(bits.iter().map(|b| b.count_ones() as usize).sum());
        for (w, &b) in bits.iter().enumerate() {
            let mut b = b;
            while b != 0 {
                let k = w * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                list.push(e.owners[ops[k]].name.clone());
            }
        }
    }
    Graph {
        own_changed,
        breaking,
        shown,
        level,
        affected,
    }
}

/// Builds the item list: operations first, then AsyncAPI operations, channels, servers,
/// security, then shared components.
pub(crate) fn build(e: &Findings<'_>, g: &mut Graph) -> Vec<DiffItem> {
    let n = e.owners.len();
    // The root nodes of the owners that have something to show, created on first use
    // (most owners have nothing): `slot[owner]` indexes `roots`.
    let mut slot: Vec<u32> = vec![u32::MAX; n];
    let mut roots: Vec<Node> = Vec::new();
    let mut root = |owner: usize, roots: &mut Vec<Node>| -> usize {
        if slot[owner] == u32::MAX {
            slot[owner] = roots.len() as u32;
            roots.push(Node::new(None));
        }
        slot[owner] as usize
    };
    for (i, c) in e.changes.iter().enumerate() {
        let r = root(c.owner, &mut roots);
        roots[r].at(&c.crumbs).changes.push(i);
    }
    // The item ids of the components linked to, each derived once.
    let mut link_ids: Vec<Option<String>> = vec![None; n];
    let mut linked: FxSet<(usize, usize, &[Crumb])> =
        FxSet::with_capacity_and_hasher(e.edges.len().min(4096), Default::default());
    for edge in &e.edges {
        // Operations and shown components link to the shared definitions they use directly
        // that changed themselves or lead to a breaking change (see [`Graph`]); a change is
        // reported at its own definition, whose `affected` list names the operations (no
        // change is repeated at every use site).
        if !g.links(edge.from, edge.to) {
            continue;
        }
        if !linked.insert((edge.from, edge.to, e.edge_path(edge))) {
            continue;
        }
        let target = &e.owners[edge.to];
        if link_ids[edge.to].is_none() {
            link_ids[edge.to] = Some(target.item_id().into_owned());
        }
        let r = root(edge.from, &mut roots);
        let parent = roots[r].at(e.edge_path(edge));
        let mut link = Node::new(Some(Crumb::new(NodeKind::SchemaLink, target.name.as_str())));
        link.link = Some(edge.to);
        parent.children.push(link);
    }
    let order = |t: &str| match t {
        "endpoint" | "webhook" | "callback" => 0,
        "operation" => 1,
        "channel" => 2,
        "server" => 3,
        "security" | "security_scheme" => 4,
        _ => 5,
    };
    // Only owners with something to show become items (a root is created for a change or a
    // link): sort just those (the sort is stable, so the order is the same as sorting every
    // owner and skipping the others).
    let mut idx: Vec<usize> = (0..n).filter(|&i| slot[i] != u32::MAX).collect();
    // Operations sorted by path then method, so removed and added ones sit among the rest.
    let sort_key = |i: usize| {
        let o = &e.owners[i];
        // An endpoint's key straight from its operation: `<normalized path> <METHOD>`, what
        // splitting its matcher (`<METHOD> <normalized path>`) gives, without building it.
        if let (None, Some((p, c)), None) = (&o.matcher, o.endpoint, o.role)
            && let Some(op) = c.or(p)
            && !op.key.method.contains(' ')
        {
            let mut key = crate::options::normalize_template(&op.key.path);
            key.push(' ');
            key.push_str(&op.key.method);
            return key;
        }
        match (o.matcher(), o.role) {
            (Some(m), None) => match m.split_once(' ') {
                Some((method, path)) => format!("{path} {method}"),
                None => m.to_string(),
            },
            _ => format!("{i:010}"),
        }
    };
    idx.sort_by_cached_key(|&i| (order(e.owners[i].item_type), sort_key(i)));
    let mut items = Vec::new();
    for i in idx {
        let Some(root) = roots.get_mut(slot[i] as usize) else {
            continue;
        };
        let root = std::mem::replace(root, Node::new(None));
        if root.changes.is_empty() && root.children.is_empty() {
            continue;
        }
        let o = &e.owners[i];
        let id = o.item_id();
        let mut item = to_item(e, g, &link_ids, &root, &id, false);
        item.id = id.into_owned();
        item.name = o.name.clone();
        item.item_type = o.item_type.to_string();
        item.label = match o.item_type {
            "endpoint" | "operation" => String::new(),
            "webhook" => "webhook ".into(),
            "schema" => "schema ".into(),
            "server" => "server ".into(),
            "security_scheme" => "security scheme ".into(),
            "security" => "document ".into(),
            "channel" => "channel ".into(),
            other => format!("{other} "),
        };
        if o.status != Status::Modified {
            item.status = o.status;
        }
        let (previous, current) = o.values();
        if previous.is_some() || current.is_some() {
            item.previous = previous;
            item.current = current;
        }
        if let Some(role) = o.role {
            // Each owner becomes one item at most: its list can move.
            item.affected = std::mem::take(&mut g.affected[i]);
            item.label = format!("schema ({}) ", role.prefix().replace('-', " "));
        }
        // The flag and level come from the tree alone (own changes, children and links), so
        // each can be followed down to its cause; they agree with the graph's.
        debug_assert_eq!(item.breaking, g.breaking[i], "{}", o.name);
        debug_assert_eq!(item.level, g.level[i], "{}", o.name);
        item.transparent = false;
        items.push(item);
    }
    items
}

fn to_item(
    e: &Findings<'_>,
    g: &Graph,
    link_ids: &[Option<String>],
    node: &Node,
    parent_id: &str,
    in_param: bool,
) -> DiffItem {
    let (kind, name) = match &node.crumb {
        Some(c) => (Some(c.kind), String::from(&*c.name)),
        None => (None, String::new()),
    };
    let id = match &node.crumb {
        Some(c) => {
            let kind = c.kind.item_type();
            let mut id = String::with_capacity(parent_id.len() + kind.len() + c.name.len() + 2);
            id.push_str(parent_id);
            id.push('-');
            id.push_str(kind);
            id.push('-');
            slug_into(&mut id, &c.name);
            id
        }
        None => parent_id.to_string(),
    };
    let child_in_param = in_param
        || matches!(
            kind,
            Some(NodeKind::Parameter(_) | NodeKind::Header | NodeKind::ChannelParameter)
        );
    if let Some(target) = node.link {
        let t = &e.owners[target];
        // What the linked component's item says: it leads to a breaking change (its own, or
        // through its links), and the highest level it leads to.
        let breaking = g.breaking[target];
        return DiffItem {
            id,
            name,
            status: Status::Modified,
            item_type: "schema".into(),
            breaking,
            level: g.level[target],
            previous: None,
            current: None,
            breaking_details: None,
            children: Vec::new(),
            changes: Vec::new(),
            affected: Vec::new(),
            reference: Some(match link_ids.get(target) {
                Some(Some(id)) => id.clone(),
                _ => t.item_id().into_owned(),
            }),
            label: "Schema".into(),
            own_breaking: false,
            transparent: false,
        };
    }
    let changes = || node.changes.iter().map(|&i| &e.changes[i]);
    let mut status = Status::Modified;
    for c in changes() {
        if c.status != Status::Modified {
            status = c.status;
        }
    }
    let mut previous = None;
    let mut current = None;
    let mut level = Level::Info;
    let mut own_breaking = false;
    let mut details: Option<BreakingDetails> = None;
    let mut item_changes = Vec::with_capacity(node.changes.len());
    for c in changes() {
        let rule = c.rule.rule();
        attr_value(&mut previous, rule.attribute, &c.previous);
        attr_value(&mut current, rule.attribute, &c.current);
        level = level.max(c.level);
        if c.level == Level::Breaking {
            own_breaking = true;
            let d = details.get_or_insert_with(|| BreakingDetails {
                message_key: match rule.id.as_str() {
                    "endpoint-removed" => "removed_not_deprecated".into(),
                    other => other.replace('-', "_"),
                },
                breaking_attributes: Vec::new(),
            });
            if !d.breaking_attributes.iter().any(|a| a == rule.attribute) {
                d.breaking_attributes.push(rule.attribute.to_string());
            }
        }
        item_changes.push(ItemChange {
            id: c.id.clone(),
            rule: c.rule_id(),
            level: c.level,
            side: rule.side,
            structural: rule.structural,
            message: c.message.clone(),
            migration: c.migration.clone(),
            location: c.place.clone(),
            previous_location: c.previous_place.clone(),
        });
    }
    let children: Vec<DiffItem> = node
        .children
        .iter()
        .map(|n| to_item(e, g, link_ids, n, &id, child_in_param))
        .collect();
    let mut breaking = own_breaking;
    for ch in &children {
        level = level.max(ch.level);
        breaking |= ch.breaking;
    }
    DiffItem {
        id,
        name,
        status,
        item_type: kind.map_or("endpoint", NodeKind::item_type).to_string(),
        breaking,
        level,
        previous,
        current,
        breaking_details: details,
        children,
        changes: item_changes,
        affected: Vec::new(),
        reference: None,
        label: kind.map_or(String::new(), |k| label(k, in_param)),
        own_breaking,
        transparent: kind == Some(NodeKind::Body) && node.changes.is_empty(),
    }
}
