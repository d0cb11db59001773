//! Parameters: matched by location and name (path parameters by position, headers
//! case-insensitively), moved between locations, added, removed, and compared (required,
//! style, explode, allowEmptyValue, allowReserved, deprecation, description, schema). The
//! rules of a request parameter and of a callback request parameter (sent by the API, so
//! judged the other way round) are two rows of one table.

use specpress_apispec::{Location, Parameter, ParameterIn};

use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::memo::PointerPair;
use crate::rules::{Role, StructureRule};

/// The rules of a parameter in one direction.
struct ParameterRules {
    added_optional: StructureRule,
    added_required: StructureRule,
    removed_optional: StructureRule,
    removed_required: StructureRule,
    became_required: StructureRule,
    became_optional: StructureRule,
    allow_empty_added: StructureRule,
    allow_empty_removed: StructureRule,
    /// `allowReserved` going from the first value to the second hurts whoever reads the
    /// parameter: the rule and the message.
    reserved: ((bool, bool), StructureRule, &'static str),
    /// The role its schema is compared in.
    role: Role,
}

/// A parameter of a request clients send.
const REQUEST: ParameterRules = ParameterRules {
    added_optional: StructureRule::RequestParameterAdded,
    added_required: StructureRule::RequestRequiredParameterAdded,
    removed_optional: StructureRule::RequestParameterRemoved,
    removed_required: StructureRule::RequestParameterRemoved,
    became_required: StructureRule::RequestParameterBecameRequired,
    became_optional: StructureRule::RequestParameterBecameOptional,
    allow_empty_added: StructureRule::RequestParameterAllowEmptyValueAdded,
    allow_empty_removed: StructureRule::RequestParameterAllowEmptyValueRemoved,
    reserved: (
        (true, false),
        StructureRule::RequestParameterAllowReservedRemoved,
        "reserved characters are no longer allowed unencoded",
    ),
    role: Role::RequestParameter,
};

/// A parameter of a callback request: the API sends it and subscribers read it. A new one,
/// required or not, does not affect subscribers that do not read it; a removed one is judged
/// like a response header.
const CALLBACK: ParameterRules = ParameterRules {
    added_optional: StructureRule::CallbackParameterAdded,
    added_required: StructureRule::CallbackParameterAdded,
    removed_optional: StructureRule::CallbackParameterRemoved,
    removed_required: StructureRule::CallbackRequiredParameterRemoved,
    became_required: StructureRule::CallbackParameterBecameRequired,
    became_optional: StructureRule::CallbackParameterBecameOptional,
    allow_empty_added: StructureRule::CallbackParameterAllowEmptyValueAdded,
    allow_empty_removed: StructureRule::CallbackParameterAllowEmptyValueRemoved,
    reserved: (
        (false, true),
        StructureRule::CallbackParameterAllowReservedAdded,
        "reserved characters may now be sent unencoded",
    ),
    role: Role::CallbackParameter,
};

fn in_name(location: ParameterIn) -> &'static str {
    match location {
        ParameterIn::Path => "path",
        ParameterIn::Query => "query",
        ParameterIn::Header => "header",
        ParameterIn::Cookie => "cookie",
    }
}

/// How parameters match: path parameters by position, headers case-insensitively, others by
/// location and name.
#[inline]
fn same_parameter(a: &Parameter, b: &Parameter) -> bool {
    a.location == b.location
        && match (a.location, a.path_index, b.path_index) {
            (ParameterIn::Path, Some(i), Some(j)) => i == j,
            (ParameterIn::Header, _, _) => a.name.eq_ignore_ascii_case(&b.name),
            _ => a.name == b.name,
        }
}

/// The parameter matching `x` in `list` (operations have few parameters: linear matching
/// beats hashing here).
#[inline]
fn find<'p>(list: &'p [Parameter], x: &Parameter) -> Option<&'p Parameter> {
    list.iter().find(|y| same_parameter(x, y))
}

/// The schema of a parameter: its `schema`, else the one of its `content`.
fn parameter_schema(parameter: &Parameter) -> Option<&Location> {
    parameter
        .schema
        .as_ref()
        .or_else(|| (parameter.content.values()).find_map(|media| media.schema.as_ref()))
}

/// The style a parameter is serialized with (its default depends on its location).
fn style(parameter: &Parameter) -> &str {
    let default = match parameter.location {
        ParameterIn::Query | ParameterIn::Cookie => "form",
        ParameterIn::Path | ParameterIn::Header => "simple",
    };
    parameter.style.as_deref().unwrap_or(default)
}

impl<'a> Context<'a> {
    fn parameter_rules(&self) -> &'static ParameterRules {
        if self.inverted { &CALLBACK } else { &REQUEST }
    }

    /// The parameters of two matched operations.
    pub(super) fn parameters(
        &mut self,
        owner: usize,
        previous: &'a [Parameter],
        current: &'a [Parameter],
    ) {
        let moved = self.moved_parameters(owner, previous, current);
        let was_moved = |name: &str| moved.iter().any(|m| m.eq_ignore_ascii_case(name));
        let rules = self.parameter_rules();
        // One crumb path for every matched parameter (each comparison leaves it as it got it).
        let mut crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for after in current {
            let kind = NodeKind::Parameter(after.location);
            match find(previous, after) {
                Some(before) => {
                    // A parameter is a function of its (resolved) source: a pair of shared
                    // parameters compared once without any finding has none in the next
                    // operation either (see `clean_params`).
                    let key = (
                        PointerPair::new(&before.source, &after.source),
                        self.inverted,
                    );
                    if self.memo.clean_params.contains(&key) {
                        continue;
                    }
                    let found_before = (self.found.emitted, self.found.edges.len());
                    let crumb = self.crumb(kind, &after.name);
                    crumbs.clear();
                    crumbs.push(crumb);
                    self.parameter(owner, &mut crumbs, before, after);
                    if (self.found.emitted, self.found.edges.len()) == found_before {
                        self.memo.clean_params.insert(key);
                    }
                }
                None if was_moved(&after.name) => {}
                None => {
                    let crumbs = [self.crumb(kind, &after.name)];
                    let (rule, what) = if after.required {
                        (rules.added_required, "required")
                    } else {
                        (rules.added_optional, "optional")
                    };
                    let message = format!(
                        "{what} {} parameter `{}` was added",
                        in_name(after.location),
                        after.name
                    );
                    let at = (None, Some(&after.source));
                    self.presence((rule, Status::Added), owner, &crumbs, message, at);
                }
            }
        }
        for before in previous {
            if find(current, before).is_some() || was_moved(&before.name) {
                continue;
            }
            let crumbs = [Crumb::new(
                NodeKind::Parameter(before.location),
                before.name.as_str(),
            )];
            let rule = if before.required {
                rules.removed_required
            } else {
                rules.removed_optional
            };
            let message = format!(
                "{} parameter `{}` was removed",
                in_name(before.location),
                before.name
            );
            let at = (Some(&before.source), None);
            self.presence((rule, Status::Removed), owner, &crumbs, message, at);
        }
    }

    /// Reports the non-path parameters that disappear from one location and appear in
    /// another (moved, not removed and added); returns their names.
    fn moved_parameters(
        &mut self,
        owner: usize,
        previous: &'a [Parameter],
        current: &'a [Parameter],
    ) -> Vec<&'a str> {
        let mut moved: Vec<&str> = Vec::new();
        for before in previous {
            if before.location == ParameterIn::Path || find(current, before).is_some() {
                continue;
            }
            let Some(after) = current.iter().find(|c| {
                c.location != ParameterIn::Path
                    && c.name.eq_ignore_ascii_case(&before.name)
                    && find(previous, c).is_none()
            }) else {
                continue;
            };
            moved.push(&before.name);
            let crumbs = [Crumb::new(
                NodeKind::Parameter(after.location),
                after.name.as_str(),
            )];
            let (from, to) = (in_name(before.location), in_name(after.location));
            let message = format!("parameter `{}` moved from {from} to {to}", before.name);
            let rule = StructureRule::RequestParameterLocationChanged;
            let at = (Some(&before.source), Some(&after.source));
            self.modified(
                rule,
                owner,
                &crumbs,
                message,
                (Some(from.into()), Some(to.into())),
                at,
            );
        }
        moved
    }

    /// Two matched parameters.
    fn parameter(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        previous: &'a Parameter,
        current: &'a Parameter,
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        let name = &current.name;
        // In a callback the API sends the request and subscribers read it, so the direction
        // of `required`, `allowEmptyValue`, `allowReserved` and the schema is reversed.
        let rules = self.parameter_rules();
        let sources = (&previous.source, &current.source);
        self.beta_marking(owner, crumbs, format_args!("parameter `{name}`"), sources);
        self.required(
            (rules.became_required, rules.became_optional),
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (previous.required, current.required),
            at,
        );
        let styles = (style(previous), style(current));
        if styles.0 != styles.1 {
            let message = format!("style changed from `{}` to `{}`", styles.0, styles.1);
            let values = (Some(styles.0.into()), Some(styles.1.into()));
            let rule = StructureRule::RequestParameterStyleChanged;
            self.modified(rule, owner, crumbs, message, values, at);
        }
        let explode = (
            previous.explode.unwrap_or(styles.0 == "form"),
            current.explode.unwrap_or(styles.1 == "form"),
        );
        if explode.0 != explode.1 && styles.0 == styles.1 {
            let message = format!("explode changed from {} to {}", explode.0, explode.1);
            let rule = StructureRule::RequestParameterExplodeChanged;
            self.flag(rule, owner, crumbs, message, explode, at);
        }
        let empty = (previous.allow_empty_value, current.allow_empty_value);
        if empty.0 != empty.1 {
            let rule = if empty.1 {
                rules.allow_empty_added
            } else {
                rules.allow_empty_removed
            };
            let message = format!("allowEmptyValue changed from {} to {}", empty.0, empty.1);
            self.flag(rule, owner, crumbs, message, empty, at);
        }
        // Unencoded reserved characters hurt whoever reads the parameter: the API when they
        // are no longer allowed in a request, subscribers when a callback may now send them.
        let (change, rule, message) = rules.reserved;
        if (previous.allow_reserved, current.allow_reserved) == change {
            self.flag(rule, owner, crumbs, message.into(), change, at);
        }
        self.deprecated(
            StructureRule::RequestParameterDeprecated,
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (previous.deprecated, current.deprecated),
            at,
        );
        self.text(
            (
                StructureRule::RequestParameterDescriptionChanged,
                "description",
            ),
            owner,
            crumbs,
            (
                previous.description.as_deref(),
                current.description.as_deref(),
            ),
            at,
        );
        let schemas = (parameter_schema(previous), parameter_schema(current));
        if let (Some(before), Some(after)) = schemas
            && !self.same_parameter_schemas(before, after)
        {
            self.schema(owner, crumbs, rules.role, before, after, 0);
        }
    }

    /// Whether two parameter schemas are equal and hold no `$ref` (most parameters are small
    /// inline schemas that did not change: their walk is skipped), remembered per pair.
    fn same_parameter_schemas(&mut self, previous: &'a Location, current: &'a Location) -> bool {
        let key = PointerPair::new(previous, current);
        if let Some(&same) = self.memo.param_same.get(&key) {
            return same;
        }
        let values = (
            self.previous.nav.lookup(previous),
            self.current.nav.lookup(current),
        );
        let same = match values {
            (Some(a), Some(b)) => crate::schema::same_without_refs(a, b),
            _ => false,
        };
        self.memo.param_same.insert(key, same);
        same
    }
}
