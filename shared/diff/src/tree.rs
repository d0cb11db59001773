//! Arranges the flat change list into the Bump.sh `DiffItem` tree.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::change::{Crumb, NodeKind, Status};
use crate::engine::{Engine, slug_into};
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
    /// For a use of a changed shared component: the `id` of the component's root item.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Text label of the node (`Query parameter`, `Body attribute`, …), for the renderers.
    #[serde(skip)]
    pub label: String,
    /// True when this node's own changes (not its children's) are breaking.
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
                specpress_spec::ParameterIn::Path => "Path parameter",
                specpress_spec::ParameterIn::Query => "Query parameter",
                specpress_spec::ParameterIn::Header => "Header parameter",
                specpress_spec::ParameterIn::Cookie => "Cookie parameter",
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
pub(crate) struct Graph {
    /// Per owner: it has a change of its own.
    pub own_changed: Vec<bool>,
    /// Per owner: it has a breaking change of its own.
    pub own_breaking: Vec<bool>,
    /// Per owner: it or a component it reaches has a change.
    #[allow(dead_code)]
    pub changed: Vec<bool>,
    /// Per owner: it or a component it reaches has a breaking change.
    pub breaking: Vec<bool>,
    /// Per owner with a change of its own: the operations that reach it (empty for the
    /// others, which never become items).
    pub affected: Vec<Vec<String>>,
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

pub(crate) fn graph(e: &Engine<'_>) -> Graph {
    let n = e.owners.len();
    let mut changed = vec![false; n];
    let mut breaking = vec![false; n];
    for c in &e.changes {
        changed[c.owner] = true;
        if c.level == Level::Breaking {
            breaking[c.owner] = true;
        }
    }
    let own_changed = changed.clone();
    let own_breaking = breaking.clone();
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
    for flags in [&mut changed, &mut breaking] {
        let mut queue: Vec<usize> = (0..n).filter(|&i| flags[i]).collect();
        while let Some(x) = queue.pop() {
            for &from in into.of(x) {
                if !flags[from] {
                    flags[from] = true;
                    queue.push(from);
                }
            }
        }
    }
    let mut affected: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut seen = vec![usize::MAX; n];
    let mut stack: Vec<usize> = Vec::new();
    for (i, o) in e.owners.iter().enumerate() {
        if !matches!(
            o.item_type,
            "endpoint" | "webhook" | "operation" | "channel" | "callback"
        ) || !changed[i]
        {
            continue;
        }
        // Only owners that reach a change can lead to one: the walk stays among them.
        stack.clear();
        stack.extend(out.of(i).iter().copied().filter(|&y| changed[y]));
        while let Some(x) = stack.pop() {
            if seen[x] == i {
                continue;
            }
            seen[x] = i;
            // Only a component with a change of its own becomes an item (operations link
            // to it; nothing links to the others), so only its list is ever read.
            if own_changed[x] {
                affected[x].push(o.name.clone());
            }
            stack.extend(
                out.of(x)
                    .iter()
                    .copied()
                    .filter(|&y| seen[y] != i && changed[y]),
            );
        }
    }
    Graph {
        own_changed,
        own_breaking,
        changed,
        breaking,
        affected,
    }
}

/// Builds the item list: operations first, then AsyncAPI operations, channels, servers,
/// security, then shared components.
pub(crate) fn build(e: &Engine<'_>, g: &mut Graph) -> Vec<DiffItem> {
    let n = e.owners.len();
    let mut roots: Vec<Node> = (0..n).map(|_| Node::new(None)).collect();
    for (i, c) in e.changes.iter().enumerate() {
        roots[c.owner].at(&c.crumbs).changes.push(i);
    }
    // The item ids of the components linked to, each derived once.
    let mut link_ids: Vec<Option<String>> = vec![None; n];
    let mut linked: FxSet<(usize, usize, &[Crumb])> =
        FxSet::with_capacity_and_hasher(e.edges.len().min(4096), Default::default());
    for edge in &e.edges {
        // Operations link to the shared definitions they use directly and that changed
        // themselves; what changed deeper is reported at its own definition, whose
        // `affected` list names the operations (no change is repeated at every use site).
        if edge.from == edge.to || !g.own_changed[edge.to] || e.owners[edge.from].role.is_some() {
            continue;
        }
        if !linked.insert((edge.from, edge.to, e.edge_path(edge))) {
            continue;
        }
        let target = &e.owners[edge.to];
        if link_ids[edge.to].is_none() {
            link_ids[edge.to] = Some(target.item_id().into_owned());
        }
        let parent = roots[edge.from].at(e.edge_path(edge));
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
    // Only owners with something to show become items: sort just those (the sort is stable,
    // so the order is the same as sorting every owner and skipping the empty ones).
    let mut idx: Vec<usize> = (0..n)
        .filter(|&i| !roots[i].changes.is_empty() || !roots[i].children.is_empty())
        .collect();
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
        let root = std::mem::replace(&mut roots[i], Node::new(None));
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
        item.breaking = item.breaking || g.breaking[i];
        if item.breaking && item.level < Level::Breaking {
            item.level = Level::Breaking;
        }
        item.transparent = false;
        items.push(item);
    }
    items
}

fn to_item(
    e: &Engine<'_>,
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
        let breaking = g.own_breaking[target];
        return DiffItem {
            id,
            name,
            status: Status::Modified,
            item_type: "schema".into(),
            breaking,
            level: if breaking {
                Level::Breaking
            } else {
                Level::Info
            },
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
            own_breaking: breaking,
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
            rule: c.rule_id(),
            level: c.level,
            side: rule.side,
            structural: rule.structural,
            message: c.message.clone(),
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
