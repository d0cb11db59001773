//! Follows the breaking flags of a diff's JSON details down to their causes, and counts the
//! breaking changes each rendering shows. Shared by the corpus test and the focused tests
//! (each uses part of it).
#![allow(dead_code)]

use serde_json::Value;
use specpress_diff::DiffReport;

/// One node of the JSON details (an item at any depth).
pub struct Node<'v> {
    /// `root name > type name > …`, for messages.
    pub path: String,
    pub item: &'v Value,
    /// Its `breaking` flag.
    pub flagged: bool,
    /// The highest level among its own `changes`.
    pub own_level: u8,
    /// The nodes its flag may come from: its children, and the root item its `ref` names.
    pub next: Vec<usize>,
}

fn rank(level: &Value) -> u8 {
    match level.as_str() {
        Some("breaking") => 2,
        Some("warning") => 1,
        _ => 0,
    }
}

/// Every node of the details, with `ref` links resolved to the root item of that id. A `ref`
/// naming no root item is returned in the second list (by path).
pub fn flatten(details: &Value) -> (Vec<Node<'_>>, Vec<String>) {
    fn walk<'v>(
        v: &'v Value,
        path: String,
        out: &mut Vec<Node<'v>>,
        refs: &mut Vec<(usize, &'v str)>,
    ) -> usize {
        let i = out.len();
        let own_level = v["changes"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| rank(&c["level"]))
            .max()
            .unwrap_or(0);
        out.push(Node {
            path: path.clone(),
            item: v,
            flagged: v["breaking"] == true,
            own_level,
            next: Vec::new(),
        });
        if let Some(r) = v["ref"].as_str() {
            refs.push((i, r));
        }
        for child in v["children"].as_array().into_iter().flatten() {
            let label = format!(
                "{path} > {} {}",
                child["type"].as_str().unwrap_or(""),
                child["name"].as_str().unwrap_or("")
            );
            let j = walk(child, label, out, refs);
            out[i].next.push(j);
        }
        i
    }
    let mut out = Vec::new();
    let mut refs = Vec::new();
    let mut roots = std::collections::HashMap::new();
    for root in details.as_array().into_iter().flatten() {
        let name = format!(
            "{} {}",
            root["type"].as_str().unwrap_or(""),
            root["name"].as_str().unwrap_or("")
        );
        let i = walk(root, name, &mut out, &mut refs);
        roots.insert(root["id"].as_str().unwrap_or(""), i);
    }
    let mut dangling = Vec::new();
    for (i, r) in refs {
        match roots.get(r) {
            Some(&j) => out[i].next.push(j),
            None => dangling.push(out[i].path.clone()),
        }
    }
    (out, dangling)
}

/// Per node: the highest level of a change reachable from it through children and `ref`
/// links (least fixed point: a cycle of links leads nowhere by itself).
pub fn reachable_levels(nodes: &[Node<'_>]) -> Vec<u8> {
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &j in &n.next {
            into[j].push(i);
        }
    }
    let mut level = vec![0u8; nodes.len()];
    for threshold in [2u8, 1] {
        let mut stack: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].own_level >= threshold && level[i] < threshold)
            .collect();
        for &i in &stack {
            level[i] = threshold;
        }
        while let Some(x) = stack.pop() {
            for &i in &into[x] {
                if level[i] < threshold {
                    level[i] = threshold;
                    stack.push(i);
                }
            }
        }
    }
    level
}

/// What [`check`] found wrong with a diff's flags and levels.
#[derive(Debug, Default)]
pub struct Trace {
    /// Nodes in all.
    pub nodes: usize,
    /// Nodes flagged `breaking`.
    pub flagged: usize,
    /// Flagged nodes from which no change of level breaking can be reached (paths).
    pub unexplained: Vec<String>,
    /// Nodes from which a breaking change can be reached, not flagged (paths).
    pub unflagged: Vec<String>,
    /// Nodes whose `level` is not the highest level reachable from them (paths).
    pub wrong_level: Vec<String>,
    /// `ref`s naming no root item (paths).
    pub dangling: Vec<String>,
}

impl Trace {
    pub fn is_sound(&self) -> bool {
        self.unexplained.is_empty()
            && self.unflagged.is_empty()
            && self.wrong_level.is_empty()
            && self.dangling.is_empty()
    }
}

/// Follows every flag of the report's JSON details down to a change of level breaking.
pub fn check(report: &DiffReport) -> Trace {
    let details = report.details();
    let (nodes, dangling) = flatten(&details);
    let reach = reachable_levels(&nodes);
    let mut t = Trace {
        nodes: nodes.len(),
        dangling,
        ..Trace::default()
    };
    for (n, &r) in nodes.iter().zip(&reach) {
        t.flagged += usize::from(n.flagged);
        if n.flagged && r < 2 {
            t.unexplained.push(n.path.clone());
        }
        if !n.flagged && r == 2 {
            t.unflagged.push(n.path.clone());
        }
        if rank(&n.item["level"]) != r {
            t.wrong_level
                .push(format!("{} ({} vs {r})", n.path, n.item["level"]));
        }
    }
    t
}

/// The number of breaking changes each rendering shows.
#[derive(Debug, PartialEq, Eq)]
pub struct Counts {
    /// `changes[]` entries of level breaking in the JSON details.
    pub json: usize,
    /// Lines of the text rendering marked `[Breaking] `.
    pub text: usize,
    /// The number in the Markdown headline (0 without one).
    pub markdown_headline: usize,
    /// Breaking badges of the HTML rendering.
    pub html: usize,
    /// `DiffReport::counts().breaking`.
    pub report: usize,
}

pub fn counts(report: &DiffReport) -> Counts {
    let details = report.details();
    let json = flatten(&details)
        .0
        .iter()
        .flat_map(|n| n.item["changes"].as_array().into_iter().flatten())
        .filter(|c| c["level"] == "breaking")
        .count();
    let text = report
        .text()
        .lines()
        .filter(|l| l.trim_start().starts_with("[Breaking] "))
        .count();
    let md = report.markdown();
    let markdown_headline = md
        .strip_prefix("**")
        .and_then(|rest| rest.split_once(" breaking change"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    let html = report
        .html()
        .matches("<span class=\"specpress-diff__badge breaking\">")
        .count();
    Counts {
        json,
        text,
        markdown_headline,
        html,
        report: report.counts().breaking,
    }
}
