//! The rule catalogue: every kind of change the engine can report, with a stable kebab-case id,
//! a default level, the side it is judged from, and an example pair of documents.
//!
//! There is exactly one table of rules: [`STRUCTURE`] (structure of operations, parameters, bodies,
//! responses, security, servers, messages, channels) plus [`SCHEMA_CHECKS`] (schema checks), which is
//! multiplied by the schema [`Role`]s (`request-body-…`, `response-body-…`, …) to give one rule
//! per (role, check). [`catalogue`] joins them; `docs/diff-rules.md` is generated from it
//! ([`catalogue_markdown`]) and a test fails when the document is stale.

use std::sync::OnceLock;

use serde::Serialize;

mod schema_checks;
mod structure;

pub(crate) use schema_checks::{SCHEMA_CHECKS, SchemaCheck};
pub(crate) use structure::{STRUCTURE, StructureRule};

/// How serious a change is for existing clients.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth knowing, cannot break a client.
    Info,
    /// May break some clients (or clients that validate strictly).
    Warning,
    /// Breaks existing clients.
    Breaking,
}

impl Level {
    /// `breaking`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Breaking => "breaking",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "breaking" | "error" => Ok(Level::Breaking),
            "warning" | "warn" => Ok(Level::Warning),
            "info" => Ok(Level::Info),
            other => Err(format!(
                "unknown level `{other}` (expected breaking, warning or info)"
            )),
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which way data flows for the thing that changed, seen from the API's clients.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Sent by clients, read by the API (judged contravariantly).
    Request,
    /// Produced by the API, read by clients (judged covariantly).
    Response,
    /// AsyncAPI: a message the application receives (judged like a request).
    Receive,
    /// AsyncAPI: a message the application sends (judged like a response).
    Send,
    /// Neither (servers, security schemes, metadata).
    Both,
}

impl Side {
    fn as_str(self) -> &'static str {
        match self {
            Side::Request => "request",
            Side::Response => "response",
            Side::Receive => "receive",
            Side::Send => "send",
            Side::Both => "-",
        }
    }
}

/// The document family an example is written for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Template {
    /// `openapi: 3.0.3`
    OpenApi30,
    /// `openapi: 3.1.0`
    OpenApi31,
    /// `swagger: '2.0'`
    Swagger2,
    /// `asyncapi: 2.6.0`
    AsyncApi26,
    /// `asyncapi: 3.0.0`
    AsyncApi30,
}

impl Template {
    /// The header lines every example document of this family starts with.
    pub fn header(self) -> &'static str {
        match self {
            Template::OpenApi30 => "openapi: 3.0.3\ninfo: {title: Example, version: '1'}\n",
            Template::OpenApi31 => "openapi: 3.1.0\ninfo: {title: Example, version: '1'}\n",
            Template::Swagger2 => "swagger: '2.0'\ninfo: {title: Example, version: '1'}\n",
            Template::AsyncApi26 => "asyncapi: 2.6.0\ninfo: {title: Example, version: '1'}\n",
            Template::AsyncApi30 => "asyncapi: 3.0.0\ninfo: {title: Example, version: '1'}\n",
        }
    }
}

/// A pair of complete example documents that triggers a rule.
#[derive(Clone, Debug)]
pub struct Example {
    pub template: Template,
    pub previous: String,
    pub current: String,
}

/// One entry of the catalogue.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Stable kebab-case id.
    pub id: String,
    /// Default level (options may override it).
    pub level: Level,
    /// The side the change is judged from.
    pub side: Side,
    /// Family, for the documentation (`endpoints`, `parameters`, `request-body`, …).
    pub family: &'static str,
    /// False for content-only changes (descriptions, summaries, examples, titles).
    pub structural: bool,
    /// The attribute a change of this rule touches (`type`, `required`, `path`, …).
    pub attribute: &'static str,
    /// One sentence describing the change.
    pub summary: String,
    /// True for schema rules (`<role>-<check>`), false for structure rules.
    pub schema: bool,
    /// An example pair of documents that produces this rule.
    pub example: Example,
}

/// Expands the `@R` shorthand of the examples (a minimal `responses` object).
fn expand(fragment: &str) -> String {
    fragment.replace("@R", "responses: {'200': {description: ok}}")
}

/// Where a schema sits, which decides both the rule-id prefix and how a change is judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Role {
    RequestParameter,
    RequestBody,
    ResponseBody,
    ResponseHeader,
    MessageReceived,
    MessageSent,
    ChannelParameter,
    /// A parameter of a callback request: sent by the API, read by the subscriber.
    CallbackParameter,
}

/// All roles, in catalogue order.
pub(crate) const ROLES: [Role; 8] = [
    Role::RequestParameter,
    Role::RequestBody,
    Role::ResponseBody,
    Role::ResponseHeader,
    Role::MessageReceived,
    Role::MessageSent,
    Role::ChannelParameter,
    Role::CallbackParameter,
];

impl Role {
    /// The rule-id prefix.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Role::RequestParameter => "request-parameter",
            Role::RequestBody => "request-body",
            Role::ResponseBody => "response-body",
            Role::ResponseHeader => "response-header",
            Role::MessageReceived => "message-received",
            Role::MessageSent => "message-sent",
            Role::ChannelParameter => "channel-parameter",
            Role::CallbackParameter => "callback-parameter",
        }
    }

    /// True when data in this role is written by clients and read by the API (contravariant).
    pub(crate) fn contravariant(self) -> bool {
        matches!(
            self,
            Role::RequestParameter
                | Role::RequestBody
                | Role::MessageReceived
                | Role::ChannelParameter
        )
    }

    pub(crate) fn side(self) -> Side {
        match self {
            Role::RequestParameter | Role::RequestBody | Role::ChannelParameter => Side::Request,
            Role::ResponseBody | Role::ResponseHeader | Role::CallbackParameter => Side::Response,
            Role::MessageReceived => Side::Receive,
            Role::MessageSent => Side::Send,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Describes the schema's place, for summaries.
    fn noun(self) -> &'static str {
        match self {
            Role::RequestParameter => "a request parameter's schema",
            Role::RequestBody => "a request body schema",
            Role::ResponseBody => "a response body schema",
            Role::ResponseHeader => "a response header's schema",
            Role::MessageReceived => "the payload or headers of a message the application receives",
            Role::MessageSent => "the payload or headers of a message the application sends",
            Role::ChannelParameter => "a channel parameter's schema",
            Role::CallbackParameter => {
                "a callback request parameter's schema (sent by the API to subscribers)"
            }
        }
    }
}

/// A rule's index in the [`catalogue`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub(crate) u16);

impl RuleId {
    pub(crate) fn structure(rule: StructureRule) -> RuleId {
        RuleId(rule as u16)
    }
    pub(crate) fn schema(role: Role, check: SchemaCheck) -> RuleId {
        RuleId((STRUCTURE.len() + role.index() * SCHEMA_CHECKS.len() + check as usize) as u16)
    }
    /// The catalogue entry.
    pub fn rule(self) -> &'static Rule {
        &catalogue()[self.0 as usize]
    }
    /// The stable id.
    pub fn id(self) -> &'static str {
        &self.rule().id
    }
    /// For a schema rule, its check's suffix without the role (`type-changed`).
    pub(crate) fn schema_check_suffix(self) -> Option<&'static str> {
        let i = (self.0 as usize).checked_sub(STRUCTURE.len())?;
        SCHEMA_CHECKS.get(i % SCHEMA_CHECKS.len()).map(|c| c.suffix)
    }
}

/// Wraps a schema snippet into a complete example document for a role.
fn schema_example(role: Role, schema: &str) -> (Template, String) {
    match role {
        Role::RequestParameter => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      parameters:\n        - name: p\n          in: query\n          schema: {schema}\n      {}\n",
                expand("@R")
            ),
        ),
        Role::RequestBody => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {schema}\n      {}\n",
                expand("@R")
            ),
        ),
        Role::ResponseBody => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {schema}\n"
            ),
        ),
        Role::ResponseHeader => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          headers:\n            X-A:\n              schema: {schema}\n"
            ),
        ),
        Role::MessageReceived => (
            Template::AsyncApi26,
            format!(
                "channels:\n  a:\n    publish:\n      message:\n        name: m\n        payload: {schema}\n"
            ),
        ),
        Role::MessageSent => (
            Template::AsyncApi26,
            format!(
                "channels:\n  a:\n    subscribe:\n      message:\n        name: m\n        payload: {schema}\n"
            ),
        ),
        Role::CallbackParameter => (
            Template::OpenApi31,
            format!(
                "paths:\n  /a:\n    post:\n      callbacks:\n        done:\n          '{{$request.body#/url}}':\n            post:\n              parameters:\n                - name: p\n                  in: query\n                  schema: {schema}\n              {}\n      {}\n",
                expand("@R"),
                expand("@R")
            ),
        ),
        Role::ChannelParameter => (
            Template::AsyncApi26,
            format!(
                "channels:\n  'a/{{p}}':\n    parameters:\n      p:\n        schema: {schema}\n"
            ),
        ),
    }
}

/// The whole catalogue: structure rules first, then one rule per (role, schema check).
pub fn catalogue() -> &'static [Rule] {
    static CATALOGUE: OnceLock<Vec<Rule>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut rules = Vec::with_capacity(STRUCTURE.len() + ROLES.len() * SCHEMA_CHECKS.len());
        for b in STRUCTURE {
            rules.push(Rule {
                id: b.id.to_string(),
                level: b.level,
                side: b.side,
                family: b.family,
                structural: b.structural,
                attribute: b.attribute,
                summary: b.summary.to_string(),
                schema: false,
                example: Example {
                    template: b.template,
                    previous: format!("{}{}\n", b.template.header(), expand(b.previous)),
                    current: format!("{}{}\n", b.template.header(), expand(b.current)),
                },
            });
        }
        for role in ROLES {
            for c in SCHEMA_CHECKS {
                let (template, previous) = schema_example(role, c.previous);
                let (_, current) = schema_example(role, c.current);
                rules.push(Rule {
                    id: format!("{}-{}", role.prefix(), c.suffix),
                    level: if role.contravariant() { c.contra } else { c.co },
                    side: role.side(),
                    family: role.prefix(),
                    structural: c.structural,
                    attribute: c.attribute,
                    summary: format!("{} in {}.", c.summary, role.noun()),
                    schema: true,
                    example: Example {
                        template,
                        previous: format!("{}{}", template.header(), previous),
                        current: format!("{}{}", template.header(), current),
                    },
                });
            }
        }
        rules
    })
}

/// Looks a rule up by its id.
pub fn find_rule(id: &str) -> Option<RuleId> {
    catalogue()
        .iter()
        .position(|r| r.id == id)
        .map(|i| RuleId(i as u16))
}

/// The catalogue as a Markdown document (the content of `docs/diff-rules.md`).
pub fn catalogue_markdown() -> String {
    let rules = catalogue();
    let count = |l: Level| rules.iter().filter(|r| r.level == l).count();
    let mut out = String::new();
    out.push_str("# Diff rules\n\n");
    out.push_str("<!-- Generated from shared/diff/src/rules/ by `SPECPRESS_REGENERATE_DOCS=1 cargo test -p specpress-diff --test rules_doc`. Do not edit. -->\n\n");
    out.push_str(&format!(
        "{} rules: {} breaking, {} warning, {} info. Levels are defaults; `specpress diff --level RULE=LEVEL` and \
         `--ignore RULE[@METHOD /path]` (or `DiffOptions`) change them.\n\n",
        rules.len(),
        count(Level::Breaking),
        count(Level::Warning),
        count(Level::Info)
    ));
    out.push_str(
        "Schema rules are named `<role>-<check>`. The role says where the schema sits and how it is judged: data \
         clients send (`request-parameter`, `request-body`, `channel-parameter`, and `message-received` for a message \
         the application receives) is judged contravariantly, so narrowing breaks; data the API produces \
         (`response-body`, `response-header`, `callback-parameter` for a parameter of a callback request the API sends, and `message-sent` for a message the application sends) is judged \
         covariantly, so widening or removing breaks. A change inside a shared component is reported once, at the \
         component, with the list of affected operations. Content-only rules (descriptions, summaries, titles, \
         examples) are marked `content`: they never make a diff structural.\n\n",
    );
    out.push_str(
        "A breaking change is one change of level breaking, reported once, at the node where it was found. \
         Every rendering counts the same thing: the Markdown headline, the text's `[Breaking] ` lines (one per \
         breaking change), the HTML's breaking badges and the JSON's `changes[]` entries whose `level` is \
         `breaking`. The JSON `breaking` flag of an item says that a breaking change lies under it (its own \
         changes, its children, or the shared component a `schema` link item points at through `ref`), so it can \
         always be followed down to that change; an operation using a component that leads to a breaking change, \
         directly or through components that did not change, is flagged and links to it.\n\n",
    );
    out.push_str(
        "Every breaking change carries a migration note (the JSON's `changes[].migration`, Markdown): where the \
         element is, its old and new rule, what a client must do, and the requests or response examples before and \
         after, or for a removed operation its deprecation notice and the alternatives on its path or resource. \
         [migration-notes.md](migration-notes.md) says what a note contains.\n\n",
    );
    out.push_str(
        "Every JSON `changes[]` entry carries an `id`, `location` and `previous_location`. The `id` (16 hex \
         digits) is the same for the same change whatever the documents' key order, their syntax (JSON or YAML), \
         whether a schema is a shared component used through `$ref` or written in place, and how the document \
         is split into files, and the same on every re-diff: it hashes the rule id, the status, the semantic \
         path of the element (an operation by method and path template, then a parameter by `in` and name, a \
         media type, a response by status code, a property by name, ...; never a JSON pointer) and the plain \
         values changed (enum values, types, limits). A change inside a shared component starts its path at the \
         component's first use (the shortest path from an operation, then the first in order), so the same \
         schema written in place there has the same id. `location` is `{file, line, column}` in the current \
         document (`file` is `null` for the main definition, else a referenced file by the name its `$ref`s \
         give it; line and column from 1, the column in characters, at the element's key or item); \
         `previous_location` is the same in the previous document; each is `null` where the element is not \
         in that document. `specpress diff A B --format github` prints them as GitHub Actions annotations: \
         `::error` for each breaking change, `::warning` for each warning and deprecation, with the file as \
         given on the command line.\n\n",
    );
    out.push_str(
        "Beta elements (`x-beta: true`, Bump.sh's convention) carry no compatibility promise. A change is beta when \
         the element it touches, or an element enclosing it (operation, webhook, parameter, request body, response, \
         schema property, named schema, AsyncAPI channel, operation or message), is marked `x-beta: true` in the \
         **previous** version, the contract clients had. A beta change is reported like any other, under its own \
         rule id, but never at level breaking: what would be breaking becomes a warning whose message ends with \
         `(beta: not breaking)` (after `--level` overrides). An element that becomes beta is still judged normally \
         in that diff (clients relied on it as stable until then) and the marking is noted (`beta-started`); an \
         element that leaves beta is noted (`beta-ended`) and judged normally from the next diff on. A change in a \
         shared component is judged at the component: it is beta when the component, or the element inside it, is \
         marked, not because a beta operation uses it. The documents' root `x-beta` marks nothing.\n\n",
    );
    out.push_str(
        "Stability levels (`x-stability-level`: `draft`, `alpha`, `beta`, `stable`, lowest first) work the same \
         way on the same elements: a change to an element whose level, or the level of an element enclosing it, \
         is below `stable` in the **previous** version is never breaking; what would be breaking becomes a \
         warning whose message ends with `(draft: not breaking)`, `(alpha: not breaking)` or `(beta: not \
         breaking)`. A missing `x-stability-level`, and any value other than the four (in any case), count as \
         `stable`; an element also marked `x-beta: true` is at most `beta`. Lowering the level \
         (`stability-level-lowered`: `stable` → `beta`, `beta` → `alpha`, ...; adding `x-stability-level: beta` to \
         an element without one is a lowering from `stable`) withdraws a promise clients relied on and is \
         breaking, its message naming both levels, unless an element enclosing it is itself below `stable` in the \
         previous version; raising it is noted (`stability-level-raised`, info), and the element's changes in \
         that diff are still judged at its previous level. Moving from `x-beta: true` to `x-stability-level: \
         beta` changes no level and reports only `beta-ended`. As for `x-beta`, a schema marked below `stable` \
         makes the changes inside it not breaking wherever it is used (a named schema is judged at the \
         component), but a stable operation using a schema does not become unstable, nor does an unstable \
         operation make a shared schema's changes unstable.\n\n",
    );
    let mut families: Vec<&str> = Vec::new();
    for r in rules {
        if !families.contains(&r.family) {
            families.push(r.family);
        }
    }
    for family in families {
        out.push_str(&format!(
            "\n## {family}\n\n| rule id | level | side | kind | what changed | example (previous → current) |\n|---|---|---|---|---|---|\n"
        ));
        for (i, r) in rules.iter().enumerate().filter(|(_, r)| r.family == family) {
            let example = if i < STRUCTURE.len() {
                let b = &STRUCTURE[i];
                format!(
                    "`{}` → `{}`",
                    md_cell(&expand(b.previous)),
                    md_cell(&expand(b.current))
                )
            } else {
                let c = &SCHEMA_CHECKS[(i - STRUCTURE.len()) % SCHEMA_CHECKS.len()];
                format!("`{}` → `{}`", md_cell(c.previous), md_cell(c.current))
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                r.id,
                r.level,
                r.side.as_str(),
                if r.structural {
                    "structural"
                } else {
                    "content"
                },
                md_cell(&r.summary),
                example
            ));
        }
    }
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id.clone()), "duplicate rule id {}", r.id);
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                r.id
            );
        }
    }

    #[test]
    fn rule_id_helpers_index_the_catalogue() {
        assert_eq!(
            RuleId::structure(StructureRule::EndpointRemoved).id(),
            "endpoint-removed"
        );
        assert_eq!(
            RuleId::schema(Role::ResponseBody, SchemaCheck::PropertyRemoved).id(),
            "response-body-property-removed"
        );
        assert_eq!(
            RuleId::schema(Role::ResponseBody, SchemaCheck::PropertyRemoved)
                .rule()
                .level,
            Level::Breaking
        );
        assert_eq!(
            RuleId::schema(Role::RequestBody, SchemaCheck::PropertyRemoved)
                .rule()
                .level,
            Level::Warning
        );
        assert_eq!(
            find_rule("message-sent-property-removed").map(|r| r.rule().level),
            Some(Level::Breaking)
        );
    }
}
