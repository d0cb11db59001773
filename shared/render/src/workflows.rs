//! The public page of a workflow MCP server: a workflow document (Arazzo, Flower) deployed to an MCP server, each
//! workflow an MCP tool. The page tells a reader (or the person wiring an agent) what the server is, where it
//! answers, the client configuration to copy, and, per tool, its inputs (the JSON Schema as a tree), its outputs
//! and the steps it runs (templates `workflows/page.html` and `workflows/tool.html`).
//!
//! Everything from the document and from the server's owner is untrusted: text is cut, neutralized
//! ([`crate::neutral`]) and escaped by the templates; Markdown goes through the crate's sanitizer. The page is
//! bounded whatever the document holds: tools, steps, outputs, schema rows and depth, and the bytes of the page
//! (see the constants below); past a budget a note says what is not shown. `workflows/inputs` writes the inputs
//! trees.

mod inputs;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use askama::Template;
use specpress_workflow::{Format, Operation, Target, Workflow, WorkflowSet};

use self::inputs::inputs_tree;
use crate::html::{Html, truncate};
use crate::{AssetUrls, Layout, PageContext, markdown, tpl};

/// Tools given a section (and an entry in the contents); the others are counted.
pub const MAX_TOOLS: usize = 200;
/// Steps shown for one tool.
pub const MAX_STEPS: usize = 100;
/// Outputs shown for one tool.
pub const MAX_OUTPUTS: usize = 100;
/// Nesting of an inputs tree shown (levels of properties).
pub const MAX_SCHEMA_DEPTH: usize = 8;
/// Property rows of one tool's inputs.
pub const MAX_TREE_ROWS: usize = 400;
/// Property rows on the page (every tool together).
pub const MAX_PAGE_ROWS: usize = 1600;
/// Bytes of page content past which the remaining tools, steps, outputs and rows are not shown (a note says so).
/// Every single item is itself bounded, so a whole page stays under about three times this.
pub const PAGE_BUDGET_BYTES: usize = 1024 * 1024;
/// Tools a tool runs first (Arazzo `dependsOn`), listed.
const MAX_DEPENDS: usize = 10;
/// Enum values listed for one property.
const MAX_ENUM: usize = 60;
/// Origins the tools call, listed.
const MAX_ORIGINS: usize = 20;
/// A name (tool, step, output, property), as shown.
const MAX_NAME: usize = 128;
/// A summary, as shown.
const MAX_SUMMARY: usize = 300;
/// An expression, a path or a URL, as shown.
const MAX_CODE: usize = 512;
/// A value shown inline (enum value, default, example): compact JSON.
const MAX_VALUE: usize = 200;
/// Markdown of the server's, the document's and a tool's description.
const MAX_DESCRIPTION: usize = 16 * 1024;
/// Markdown of a step's or a property's description.
const MAX_SHORT_DESCRIPTION: usize = 2 * 1024;

/// What the page of a workflow MCP server shows.
#[derive(Clone, Copy, Debug)]
pub struct WorkflowServerPage<'a> {
    /// The stylesheet and script of the shell.
    pub assets: &'a AssetUrls,
    /// This page's URL path on the site (`/mcp/{slug}`), URL-safe: the header's name links to it.
    pub href: &'a str,
    /// The server's display name (untrusted).
    pub name: &'a str,
    /// The server's description, Markdown (untrusted: sanitized).
    pub description: Option<&'a str>,
    /// The server's slug: its name in the client configuration and in the deploy command.
    pub slug: &'a str,
    /// The MCP endpoint's absolute URL (`https://host/mcp/{slug}`), URL-safe.
    pub endpoint: &'a str,
    /// A client sends `Authorization: Bearer <token>` (the configuration carries a placeholder, never a token).
    /// Always true for workflow servers today.
    pub token: bool,
    /// The deployed version and its workflows; `None` when nothing was deployed yet.
    pub deployed: Option<DeployedWorkflows<'a>>,
}

/// The version of a workflow document deployed to the server.
#[derive(Clone, Copy, Debug)]
pub struct DeployedWorkflows<'a> {
    /// The version's id.
    pub version_id: &'a str,
    /// When it was deployed, RFC 3339.
    pub deployed_at: &'a str,
    /// The validated document: one tool per workflow.
    pub set: &'a WorkflowSet,
}

/// The page of a workflow MCP server: a whole HTML document in the site shell.
pub fn workflow_server_page(ctx: &WorkflowServerPage<'_>) -> String {
    let name = short(ctx.name, MAX_SUMMARY);
    let slug = short(ctx.slug, MAX_NAME);
    let mut budget = Budget::default();
    let body = PageBody {
        name: name.clone(),
        description: ctx
            .description
            .filter(|d| !d.trim().is_empty())
            .map(|d| md(d, 2, MAX_DESCRIPTION)),
        endpoint: short(ctx.endpoint, MAX_CODE),
        config: crate::mcp::client_config(&short(ctx.endpoint, MAX_CODE), &slug, ctx.token),
        token: ctx.token,
        placeholder: crate::mcp::TOKEN_PLACEHOLDER,
        deploy_command: format!("bump deploy workflow.yaml --mcp-server {slug}"),
        slug,
        deployed: ctx.deployed.map(|d| deployed_view(&d, &mut budget)),
    };
    let body = tpl::render(&body, 8192 + budget.bytes);
    let shell = PageContext {
        base: ctx.href,
        doc_name: &name,
        branches: &[],
        version: None,
        assets: ctx.assets,
        links: &[],
        search_action: None,
        alternates: &[],
        noindex: false,
        session_href: None,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    };
    let summary = format!(
        "MCP server {name}: its tools, their inputs and outputs, and how to connect an AI agent."
    );
    crate::layout(
        &shell,
        &Layout {
            title: &name,
            description: Some(&summary),
            body: &body,
            sidebar: None,
        },
    )
}

/// What the page has spent: bytes of content and schema rows.
#[derive(Default)]
struct Budget {
    bytes: usize,
    rows: usize,
}

impl Budget {
    fn left(&self) -> bool {
        self.bytes < PAGE_BUDGET_BYTES
    }

    fn spend(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// `s` as shown: cut to `max` bytes (with "…"), control and bidi characters neutralized.
fn short(s: &str, max: usize) -> Cow<'_, str> {
    let (cut, was_cut) = truncate(s, max);
    let n = crate::neutral(cut);
    if was_cut {
        Cow::Owned(format!("{n}…"))
    } else {
        n
    }
}

/// Sanitized Markdown of neutralized text, at most `cap` bytes of it read.
fn md(s: &str, min_heading: u8, cap: usize) -> Html {
    let (cut, _) = truncate(s, cap.saturating_add(1));
    markdown::render(&crate::neutral(cut), min_heading, cap)
}

/// Bytes `s` takes once escaped.
fn esc_len(s: &str) -> usize {
    s.len()
        + s.bytes()
            .map(|b| match b {
                b'&' => 4,
                b'<' | b'>' => 3,
                b'"' | b'\'' => 5,
                _ => 0,
            })
            .sum::<usize>()
}

#[derive(Template)]
#[template(path = "workflows/page.html", escape = "engine")]
struct PageBody<'a> {
    name: Cow<'a, str>,
    description: Option<Html>,
    slug: Cow<'a, str>,
    endpoint: Cow<'a, str>,
    config: String,
    token: bool,
    placeholder: &'static str,
    deploy_command: String,
    deployed: Option<DeployedView<'a>>,
}

struct DeployedView<'a> {
    version_id: Cow<'a, str>,
    deployed_at: Cow<'a, str>,
    deployed_human: String,
    format: String,
    title: Cow<'a, str>,
    description: Option<Html>,
    origins: Vec<Cow<'a, str>>,
    more_origins: usize,
    tool_count: usize,
    toc: Vec<TocEntry<'a>>,
    more_tools: usize,
    sections: Vec<Html>,
}

struct TocEntry<'a> {
    anchor: String,
    name: Cow<'a, str>,
    summary: Option<Cow<'a, str>>,
}

fn format_label(f: &Format) -> String {
    match f {
        Format::Arazzo { version } => format!("Arazzo {}", short(version, 32)),
        Format::Flower { version } => format!("Flower {}", short(version, 32)),
    }
}

fn deployed_view<'a>(d: &DeployedWorkflows<'a>, budget: &mut Budget) -> DeployedView<'a> {
    let set = d.set;
    let anchors = Anchors::of(&set.workflows);
    let mut toc = Vec::new();
    let mut sections = Vec::new();
    for (i, w) in set.workflows.iter().take(MAX_TOOLS).enumerate() {
        let anchor = anchors.get(i);
        let summary = w
            .summary
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| short(s, MAX_SUMMARY));
        let name = short(&w.id, MAX_NAME);
        budget.spend(64 + esc_len(&name) + summary.as_deref().map_or(0, esc_len));
        toc.push(TocEntry {
            anchor: anchor.to_owned(),
            name: name.clone(),
            summary: summary.clone(),
        });
        let section = tool_section(w, anchor, name, summary, &anchors, budget);
        budget.spend(section.as_str().len());
        sections.push(section);
    }
    let description = set
        .description
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| md(s, 3, MAX_DESCRIPTION));
    budget.spend(description.as_ref().map_or(0, |h| h.as_str().len()));
    DeployedView {
        version_id: short(d.version_id, MAX_NAME),
        deployed_at: short(d.deployed_at, 64),
        deployed_human: crate::human_time(&short(d.deployed_at, 64)),
        format: format_label(&set.format),
        title: short(&set.title, MAX_SUMMARY),
        description,
        origins: set
            .allowed_origins
            .iter()
            .take(MAX_ORIGINS)
            .map(|o| short(o, MAX_CODE))
            .collect(),
        more_origins: set.allowed_origins.len().saturating_sub(MAX_ORIGINS),
        tool_count: set.workflows.len(),
        toc,
        more_tools: set.workflows.len().saturating_sub(MAX_TOOLS),
        sections,
    }
}

/// The in-page anchors of the tools given a section: `tool-{slug of the id}`, unique (a later tool whose slug is
/// taken, or empty, gets its position appended).
struct Anchors<'w> {
    ids: Vec<String>,
    by_id: HashMap<&'w str, usize>,
}

impl<'w> Anchors<'w> {
    fn of(workflows: &'w [Workflow]) -> Anchors<'w> {
        let mut taken = HashSet::new();
        let mut ids = Vec::new();
        let mut by_id = HashMap::new();
        for (i, w) in workflows.iter().take(MAX_TOOLS).enumerate() {
            let slug = crate::site::slug(&w.id);
            let mut id = if slug.is_empty() {
                format!("tool-{}", i + 1)
            } else {
                format!("tool-{slug}")
            };
            let mut n = i + 1;
            while taken.contains(&id) {
                id = format!("tool-{slug}-{n}");
                n += MAX_TOOLS;
            }
            taken.insert(id.clone());
            ids.push(id);
            by_id.entry(w.id.as_str()).or_insert(i);
        }
        Anchors { ids, by_id }
    }

    fn get(&self, i: usize) -> &str {
        self.ids.get(i).map_or("", String::as_str)
    }

    /// The anchor of the tool `id`, when it has a section on the page.
    fn of_tool(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(|&i| self.get(i))
    }
}

/// A reference to another tool: a link to its section when it has one.
struct ToolRef<'a> {
    anchor: Option<&'a str>,
    name: Cow<'a, str>,
}

impl<'a> ToolRef<'a> {
    fn new(id: &'a str, anchors: &'a Anchors<'_>) -> ToolRef<'a> {
        ToolRef {
            anchor: anchors.of_tool(id),
            name: short(id, MAX_NAME),
        }
    }
}

#[derive(Template)]
#[template(path = "workflows/tool.html", escape = "engine")]
struct ToolSection<'a> {
    anchor: &'a str,
    name: Cow<'a, str>,
    summary: Option<Cow<'a, str>>,
    description: Option<Html>,
    /// `None` when the page's budget was spent before this tool: only its name and summary are shown.
    details: Option<ToolDetails<'a>>,
}

struct ToolDetails<'a> {
    /// Arazzo `dependsOn`.
    depends_on: Vec<ToolRef<'a>>,
    more_depends: usize,
    inputs: Html,
    outputs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    more_outputs: usize,
    steps: Vec<StepView<'a>>,
    more_steps: usize,
}

struct StepView<'a> {
    id: Cow<'a, str>,
    description: Option<Html>,
    http: Option<HttpCall<'a>>,
    tool: Option<ToolRef<'a>>,
}

struct HttpCall<'a> {
    badge: &'static str,
    method: Cow<'a, str>,
    path: Cow<'a, str>,
    /// The first server URL an Arazzo path is joined to.
    server: Option<Cow<'a, str>>,
    source: Option<Cow<'a, str>>,
    operation_id: Option<Cow<'a, str>>,
}

fn tool_section<'a>(
    w: &'a Workflow,
    anchor: &'a str,
    name: Cow<'a, str>,
    summary: Option<Cow<'a, str>>,
    anchors: &'a Anchors<'_>,
    budget: &mut Budget,
) -> Html {
    let full = budget.left();
    let description = if full {
        w.description
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .map(|s| md(s, 4, MAX_DESCRIPTION))
    } else {
        None
    };
    if let Some(d) = &description {
        budget.spend(d.as_str().len());
    }
    let details = full.then(|| tool_details(w, anchors, budget));
    let section = ToolSection {
        anchor,
        name,
        summary,
        description,
        details,
    };
    tpl::render(&section, 2048)
}

fn tool_details<'a>(
    w: &'a Workflow,
    anchors: &'a Anchors<'_>,
    budget: &mut Budget,
) -> ToolDetails<'a> {
    let depends_on: Vec<ToolRef<'a>> = w
        .depends_on
        .iter()
        .take(MAX_DEPENDS)
        .map(|id| ToolRef::new(id, anchors))
        .collect();
    budget.spend(depends_on.iter().map(|r| 64 + 2 * esc_len(&r.name)).sum());
    let inputs = inputs_tree(&w.inputs, budget);
    let mut outputs = Vec::new();
    for (k, v) in w.outputs.iter().take(MAX_OUTPUTS) {
        if !budget.left() {
            break;
        }
        let (k, v) = (short(k, MAX_NAME), short(v, MAX_CODE));
        budget.spend(48 + esc_len(&k) + esc_len(&v));
        outputs.push((k, v));
    }
    let mut steps = Vec::new();
    for s in w.steps.iter().take(MAX_STEPS) {
        if !budget.left() {
            break;
        }
        let step = step_view(s, anchors);
        budget.spend(
            160 + esc_len(&step.id)
                + step.description.as_ref().map_or(0, |d| d.as_str().len())
                + step.http.as_ref().map_or(0, |h| {
                    esc_len(&h.path)
                        + h.server.as_deref().map_or(0, esc_len)
                        + h.source.as_deref().map_or(0, esc_len)
                        + h.operation_id.as_deref().map_or(0, esc_len)
                })
                + step.tool.as_ref().map_or(0, |t| 2 * esc_len(&t.name)),
        );
        steps.push(step);
    }
    ToolDetails {
        more_depends: w.depends_on.len() - depends_on.len(),
        depends_on,
        inputs,
        more_outputs: w.outputs.len() - outputs.len(),
        outputs,
        more_steps: w.steps.len() - steps.len(),
        steps,
    }
}

fn step_view<'a>(s: &'a specpress_workflow::Step, anchors: &'a Anchors<'_>) -> StepView<'a> {
    let (http, tool) = match &s.target {
        Target::Operation(op) => (Some(http_call(op)), None),
        Target::Workflow { workflow_id } => (None, Some(ToolRef::new(workflow_id, anchors))),
    };
    StepView {
        id: short(&s.id, MAX_NAME),
        description: s
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
            .map(|d| md(d, 5, MAX_SHORT_DESCRIPTION)),
        http,
        tool,
    }
}

fn http_call(op: &Operation) -> HttpCall<'_> {
    let upper = op.method.to_ascii_uppercase();
    HttpCall {
        badge: crate::site::method_badge(&upper),
        method: short(&op.method, 16),
        path: short(&op.path, MAX_CODE),
        server: op.servers.first().map(|s| short(&s.url, MAX_CODE)),
        source: op.source.as_deref().map(|s| short(s, MAX_NAME)),
        operation_id: op.operation_id.as_deref().map(|s| short(s, MAX_NAME)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_unique_and_url_safe() {
        let mk = |id: &str| Workflow {
            id: id.to_owned(),
            summary: None,
            description: None,
            inputs: serde_json::json!({"type": "object"}),
            outputs: Default::default(),
            depends_on: Vec::new(),
            steps: Vec::new(),
            success_actions: Vec::new(),
            failure_actions: Vec::new(),
        };
        let ws: Vec<Workflow> = [
            "Get Pet",
            "get-pet",
            "get_pet",
            "\"<>",
            "",
            "tool-get-pet-2",
        ]
        .into_iter()
        .map(mk)
        .collect();
        let a = Anchors::of(&ws);
        let ids: Vec<&str> = (0..ws.len()).map(|i| a.get(i)).collect();
        let unique: HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        for id in &ids {
            assert!(id.starts_with("tool-"), "{id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
                "{id}"
            );
        }
        assert_eq!(a.of_tool("get-pet"), Some(ids[1]));
        assert_eq!(a.of_tool("missing"), None);
    }
}
