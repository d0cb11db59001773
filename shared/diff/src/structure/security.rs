//! Security: the effective requirements of an operation or of the document (alternatives
//! and scopes), and the security schemes (type, HTTP scheme, API key, bearer format, OpenID
//! URL, OAuth2 flows and scopes).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use specpress_spec::{ApiModel, Location, Map, SecurityRequirement, SecurityScheme};

use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{Context, sv};
use crate::rules::StructureRule;
use crate::slug::slug;

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

impl<'a> Context<'a> {
    /// Compares effective security requirements (`api` = the document-level ones).
    pub(super) fn security_requirements(
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
        let pick = |e: StructureRule, a: StructureRule| if api { a } else { e };
        let p_open = p_anon || p.is_empty();
        let c_open = c_anon || c.is_empty();
        if p_open && !c_open {
            self.base(
                pick(
                    StructureRule::EndpointSecurityAdded,
                    StructureRule::ApiSecurityAdded,
                ),
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
                pick(
                    StructureRule::EndpointSecurityRemoved,
                    StructureRule::ApiSecurityRemoved,
                ),
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
                        StructureRule::EndpointSecurityAlternativeAdded,
                        StructureRule::ApiSecurityAlternativeAdded,
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
                                pick(
                                    StructureRule::EndpointSecurityScopeAdded,
                                    StructureRule::ApiSecurityScopeAdded,
                                ),
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
                                        StructureRule::EndpointSecurityScopeRemoved,
                                        StructureRule::ApiSecurityScopeRemoved,
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
                        StructureRule::EndpointSecurityAlternativeRemoved,
                        StructureRule::ApiSecurityAlternativeRemoved,
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

    pub(super) fn api_security(&mut self, pm: &'a ApiModel, cm: &'a ApiModel) {
        if pm.security == cm.security {
            return;
        }
        // Only operations that inherit the document-level security are affected; if every
        // operation declares its own, the document-level change has no effect but is still
        // reported once here.
        let owner = self.found.add_owner(Owner {
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

    pub(super) fn security_schemes(
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
                    (StructureRule::SecuritySchemeAdded, Status::Added),
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
                    StructureRule::SecuritySchemeTypeChanged,
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
                    (
                        StructureRule::SecuritySchemeHttpSchemeChanged,
                        "HTTP scheme",
                        "",
                    ),
                    owner,
                    &[],
                    (&p.scheme, &c.scheme),
                    at,
                );
            }
            if p.location != c.location || p.name != c.name {
                self.base(
                    StructureRule::SecuritySchemeApiKeyChanged,
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
                    StructureRule::SecuritySchemeBearerFormatChanged,
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
                    StructureRule::SecuritySchemeOpenIdUrlChanged,
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
                        (StructureRule::SecuritySchemeOauthFlowAdded, Status::Added),
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
                                StructureRule::SecuritySchemeOauthScopeAdded,
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
                                StructureRule::SecuritySchemeOauthScopeRemoved,
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
                        (
                            StructureRule::SecuritySchemeOauthFlowRemoved,
                            Status::Removed,
                        ),
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
                    (StructureRule::SecuritySchemeRemoved, Status::Removed),
                    owner,
                    &[],
                    format!("security scheme `{name}` was removed"),
                    (Some(&p.source), None),
                );
            }
        }
    }

    fn scheme_owner(&mut self, name: &str, status: Status) -> usize {
        self.found.add_owner(Owner {
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
}
