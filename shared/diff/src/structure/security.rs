//! Security: the effective requirements of an operation or of the document (alternatives
//! and scopes; the rules of both are rows of one table), and the security schemes (type, HTTP
//! scheme, API key, bearer format, OpenID URL, OAuth2 flows and scopes).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use specpress_apispec::{ApiModel, Location, Map, SecurityRequirement, SecurityScheme};
use specpress_slug::slug;

use super::matching::{Entry, entries};
use super::presence::{OAUTH_FLOW, SECURITY_SCHEME};
use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{At, Context, sv};
use crate::rules::StructureRule;

/// Normalized security: alternatives keyed by their sorted scheme names.
type NormSecurity = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The rules of a set of security requirements (an operation's or the document's).
struct RequirementRules {
    added: StructureRule,
    removed: StructureRule,
    alternative_added: StructureRule,
    alternative_removed: StructureRule,
    scope_added: StructureRule,
    scope_removed: StructureRule,
}

/// The effective requirements of an operation.
const ENDPOINT: RequirementRules = RequirementRules {
    added: StructureRule::EndpointSecurityAdded,
    removed: StructureRule::EndpointSecurityRemoved,
    alternative_added: StructureRule::EndpointSecurityAlternativeAdded,
    alternative_removed: StructureRule::EndpointSecurityAlternativeRemoved,
    scope_added: StructureRule::EndpointSecurityScopeAdded,
    scope_removed: StructureRule::EndpointSecurityScopeRemoved,
};

/// The document-level requirements.
const API: RequirementRules = RequirementRules {
    added: StructureRule::ApiSecurityAdded,
    removed: StructureRule::ApiSecurityRemoved,
    alternative_added: StructureRule::ApiSecurityAlternativeAdded,
    alternative_removed: StructureRule::ApiSecurityAlternativeRemoved,
    scope_added: StructureRule::ApiSecurityScopeAdded,
    scope_removed: StructureRule::ApiSecurityScopeRemoved,
};

/// Whether anonymous access is allowed, and the alternatives.
fn normalize_security(requirements: &[SecurityRequirement]) -> (bool, NormSecurity) {
    let mut anonymous = requirements.is_empty();
    let mut out = NormSecurity::new();
    for r in requirements {
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

impl<'a> Context<'a> {
    /// Compares effective security requirements (`api`: the document-level ones).
    pub(super) fn security_requirements(
        &mut self,
        owner: usize,
        previous: Option<&Vec<SecurityRequirement>>,
        current: Option<&Vec<SecurityRequirement>>,
        api: bool,
        at: At<'_>,
    ) {
        let empty = Vec::new();
        let (p_anonymous, before) = normalize_security(previous.unwrap_or(&empty));
        let (c_anonymous, after) = normalize_security(current.unwrap_or(&empty));
        let (rules, crumbs) = if api {
            (&API, vec![])
        } else {
            (&ENDPOINT, vec![Crumb::new(NodeKind::Security, "security")])
        };
        let was_open = p_anonymous || before.is_empty();
        let is_open = c_anonymous || after.is_empty();
        if was_open && !is_open {
            let message = format!(
                "authentication is now required ({})",
                after.keys().cloned().collect::<Vec<_>>().join(" or ")
            );
            let values = (None, Some(json!(after.keys().collect::<Vec<_>>())));
            let (a, b) = values;
            self.structure_change(
                rules.added,
                owner,
                &crumbs,
                Status::Added,
                message,
                a,
                b,
                at,
            );
            return;
        }
        if !was_open && is_open {
            let message = "authentication is no longer required".into();
            let values = (Some(json!(before.keys().collect::<Vec<_>>())), None);
            let (a, b) = values;
            self.structure_change(
                rules.removed,
                owner,
                &crumbs,
                Status::Removed,
                message,
                a,
                b,
                at,
            );
            return;
        }
        for (key, schemes) in &after {
            match before.get(key) {
                None => {
                    let message = format!("security alternative `{key}` was added");
                    let values = (None, Some(key.clone().into()));
                    let rule = rules.alternative_added;
                    self.modified(rule, owner, &crumbs, message, values, at);
                }
                Some(previous) => {
                    for (scheme, scopes) in schemes {
                        let scopes = (previous.get(scheme), scopes);
                        self.scopes(rules, owner, &crumbs, scheme, scopes, at);
                    }
                }
            }
        }
        for key in before.keys() {
            if !after.contains_key(key) {
                let message = format!("security alternative `{key}` was removed");
                let values = (Some(key.clone().into()), None);
                let rule = rules.alternative_removed;
                self.modified(rule, owner, &crumbs, message, values, at);
            }
        }
    }

    /// The scopes a scheme of an alternative present on both sides requires.
    fn scopes(
        &mut self,
        rules: &RequirementRules,
        owner: usize,
        crumbs: &[Crumb],
        scheme: &str,
        (previous, current): (Option<&BTreeSet<String>>, &BTreeSet<String>),
        at: At<'_>,
    ) {
        let added: Vec<&String> = current
            .iter()
            .filter(|s| previous.is_none_or(|b| !b.contains(*s)))
            .collect();
        if !added.is_empty() {
            let message = format!("`{scheme}` now requires scopes {added:?}");
            let values = (None, Some(json!(added)));
            self.modified(rules.scope_added, owner, crumbs, message, values, at);
        }
        if let Some(previous) = previous {
            let removed: Vec<&String> = previous.iter().filter(|s| !current.contains(*s)).collect();
            if !removed.is_empty() {
                let message = format!("`{scheme}` no longer requires scopes {removed:?}");
                let values = (Some(json!(removed)), None);
                self.modified(rules.scope_removed, owner, crumbs, message, values, at);
            }
        }
    }

    /// The document-level security requirements.
    pub(super) fn api_security(&mut self, previous: &'a ApiModel, current: &'a ApiModel) {
        if previous.security == current.security {
            return;
        }
        // Only operations that inherit the document-level security are affected; if every
        // operation declares its own, the document-level change has no effect but is still
        // reported once here.
        let owner = Owner::root(
            "security",
            "security".into(),
            "security".into(),
            Status::Modified,
        );
        let owner = self.found.add_owner(owner);
        let root = Location::root(specpress_apispec::FileId::ROOT).child("security");
        self.security_requirements(
            owner,
            previous.security.as_ref(),
            current.security.as_ref(),
            true,
            (Some(&root), Some(&root)),
        );
    }

    /// The security schemes of the two documents, by name.
    pub(super) fn security_schemes(
        &mut self,
        previous: &'a Map<String, SecurityScheme>,
        current: &'a Map<String, SecurityScheme>,
    ) {
        for entry in entries(previous, current) {
            match entry {
                Entry::Added(name, after) => {
                    let owner = self.scheme_owner(name, Status::Added);
                    let at = (None, Some(&after.source));
                    self.appeared(&SECURITY_SCHEME, owner, &[], name, at);
                }
                Entry::Removed(name, before) => {
                    let owner = self.scheme_owner(name, Status::Removed);
                    let at = (Some(&before.source), None);
                    self.disappeared(&SECURITY_SCHEME, owner, &[], name, at);
                }
                Entry::Both(_, before, after) if before == after => {}
                Entry::Both(name, before, after) => {
                    let owner = self.scheme_owner(name, Status::Modified);
                    self.security_scheme(owner, before, after);
                }
            }
        }
    }

    /// Two versions of a security scheme that differ.
    fn security_scheme(
        &mut self,
        owner: usize,
        previous: &'a SecurityScheme,
        current: &'a SecurityScheme,
    ) {
        let at = (Some(&previous.source), Some(&current.source));
        if previous.scheme_type != current.scheme_type {
            let message = format!(
                "type changed from `{}` to `{}`",
                previous.scheme_type, current.scheme_type
            );
            let values = (
                Some(previous.scheme_type.clone().into()),
                Some(current.scheme_type.clone().into()),
            );
            let rule = StructureRule::SecuritySchemeTypeChanged;
            self.modified(rule, owner, &[], message, values, at);
            return;
        }
        let lower = |s: &Option<String>| s.as_deref().map(str::to_ascii_lowercase);
        if lower(&previous.scheme) != lower(&current.scheme) {
            self.option_changed(
                (
                    StructureRule::SecuritySchemeHttpSchemeChanged,
                    "HTTP scheme",
                    "",
                ),
                owner,
                &[],
                (&previous.scheme, &current.scheme),
                at,
            );
        }
        if previous.location != current.location || previous.name != current.name {
            let show = |s: &Option<String>| s.as_deref().unwrap_or("?").to_string();
            let message = format!(
                "API key moved from {} `{}` to {} `{}`",
                show(&previous.location),
                show(&previous.name),
                show(&current.location),
                show(&current.name)
            );
            let values = (
                Some(json!({"in": previous.location, "name": previous.name})),
                Some(json!({"in": current.location, "name": current.name})),
            );
            let rule = StructureRule::SecuritySchemeApiKeyChanged;
            self.modified(rule, owner, &[], message, values, at);
        }
        for (rule, message, (before, after)) in [
            (
                StructureRule::SecuritySchemeBearerFormatChanged,
                "bearer format changed",
                (&previous.bearer_format, &current.bearer_format),
            ),
            (
                StructureRule::SecuritySchemeOpenIdUrlChanged,
                "OpenID Connect URL changed",
                (&previous.open_id_connect_url, &current.open_id_connect_url),
            ),
        ] {
            if before != after {
                let values = (sv(before.as_deref()), sv(after.as_deref()));
                self.modified(rule, owner, &[], message.into(), values, at);
            }
        }
        for entry in entries(&previous.flows, &current.flows) {
            match entry {
                Entry::Added(flow, _) => {
                    let crumbs = [Crumb::new(NodeKind::Flow, flow.as_str())];
                    self.appeared(&OAUTH_FLOW, owner, &crumbs, flow, at);
                }
                Entry::Removed(flow, _) => {
                    let crumbs = [Crumb::new(NodeKind::Flow, flow.as_str())];
                    self.disappeared(&OAUTH_FLOW, owner, &crumbs, flow, at);
                }
                Entry::Both(flow, before, after) => {
                    let crumbs = [Crumb::new(NodeKind::Flow, flow.as_str())];
                    self.flow_scopes(owner, &crumbs, (before, after), at);
                }
            }
        }
    }

    /// The scopes of an OAuth2 flow both versions of a scheme have.
    fn flow_scopes(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (&'a Map<String, String>, &'a Map<String, String>),
        at: At<'_>,
    ) {
        let added: Vec<&String> = current
            .keys()
            .filter(|s| !previous.contains_key(*s))
            .collect();
        let removed: Vec<&String> = previous
            .keys()
            .filter(|s| !current.contains_key(*s))
            .collect();
        if !added.is_empty() {
            let message = format!("scopes added: {added:?}");
            let rule = StructureRule::SecuritySchemeOauthScopeAdded;
            self.modified(rule, owner, crumbs, message, (None, Some(json!(added))), at);
        }
        if !removed.is_empty() {
            let message = format!("scopes removed: {removed:?}");
            let rule = StructureRule::SecuritySchemeOauthScopeRemoved;
            self.modified(
                rule,
                owner,
                crumbs,
                message,
                (Some(json!(removed)), None),
                at,
            );
        }
    }

    fn scheme_owner(&mut self, name: &str, status: Status) -> usize {
        let id = format!("security-scheme-{}", slug(name));
        let owner = Owner::root("security_scheme", id, name.to_string(), status);
        self.found.add_owner(owner)
    }
}
