//! Servers: document servers matched by URL (then by origin, a changed base path), added and
//! removed; protocol, description and variables (defaults and allowed values); the servers of
//! an operation.

use std::collections::HashSet;

use serde_json::json;
use specpress_spec::{Location, Server};

use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::Context;
use crate::rules::StructureRule;
use crate::slug::slug;

impl<'a> Context<'a> {
    fn origin_and_path(url: &str) -> (&str, &str) {
        let after_scheme = url.find("://").map(|i| i + 3).unwrap_or(0);
        match url[after_scheme..].find('/') {
            Some(i) => url.split_at(after_scheme + i),
            None => (url, ""),
        }
    }

    pub(super) fn servers_doc(&mut self, prev: &'a [Server], cur: &'a [Server]) {
        let root = Location::root(specpress_spec::FileId::ROOT);
        let mut used_prev: HashSet<usize> = HashSet::new();
        let mut used_cur: HashSet<usize> = HashSet::new();
        let server_owner = |e: &mut Self, url: &str, status: Status| {
            e.found.add_owner(Owner {
                item_type: "server",
                id: format!("server-{}", slug(url)),
                name: url.to_string(),
                status,
                previous: None,
                current: None,
                endpoint: None,
                matcher: None,
                role: None,
            })
        };
        // Exact URL matches.
        for (ci, c) in cur.iter().enumerate() {
            if let Some(pi) = prev
                .iter()
                .enumerate()
                .position(|(pi, p)| !used_prev.contains(&pi) && p.url == c.url)
            {
                used_prev.insert(pi);
                used_cur.insert(ci);
                let p = &prev[pi];
                if p != c {
                    let owner = server_owner(self, &c.url, Status::Modified);
                    self.server(owner, &[], p, c);
                }
            }
        }
        // Same origin, different path: the base path changed.
        for (ci, c) in cur.iter().enumerate() {
            if used_cur.contains(&ci) {
                continue;
            }
            let (co, cp) = Self::origin_and_path(&c.url);
            if let Some(pi) = (0..prev.len())
                .find(|pi| !used_prev.contains(pi) && Self::origin_and_path(&prev[*pi].url).0 == co)
            {
                used_prev.insert(pi);
                used_cur.insert(ci);
                let p = &prev[pi];
                let owner = server_owner(self, &c.url, Status::Modified);
                let pp = Self::origin_and_path(&p.url).1;
                self.base(
                    StructureRule::ServerBasePathChanged,
                    owner,
                    &[],
                    Status::Modified,
                    format!("base path changed from `{pp}` to `{cp}`"),
                    Some(pp.into()),
                    Some(cp.into()),
                    (Some(&root), Some(&root)),
                );
                self.server(owner, &[], p, c);
            }
        }
        for (ci, c) in cur.iter().enumerate() {
            if !used_cur.contains(&ci) {
                let owner = server_owner(self, &c.url, Status::Added);
                self.base(
                    StructureRule::ServerAdded,
                    owner,
                    &[],
                    Status::Added,
                    format!("server `{}` was added", c.url),
                    None,
                    Some(c.url.clone().into()),
                    (None, Some(&root)),
                );
            }
        }
        for (pi, p) in prev.iter().enumerate() {
            if !used_prev.contains(&pi) {
                let owner = server_owner(self, &p.url, Status::Removed);
                self.base(
                    StructureRule::ServerRemoved,
                    owner,
                    &[],
                    Status::Removed,
                    format!("server `{}` was removed", p.url),
                    Some(p.url.clone().into()),
                    None,
                    (Some(&root), None),
                );
            }
        }
    }

    fn server(&mut self, owner: usize, crumbs: &[Crumb], p: &Server, c: &Server) {
        let root = Location::root(specpress_spec::FileId::ROOT);
        let at = (Some(&root), Some(&root));
        if p.protocol.is_some() && c.protocol.is_some() && p.protocol != c.protocol {
            self.option_changed(
                (StructureRule::ServerProtocolChanged, "protocol", ""),
                owner,
                crumbs,
                (&p.protocol, &c.protocol),
                at,
            );
        }
        self.text(
            (StructureRule::ServerDescriptionChanged, "description"),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        for (name, cv) in &c.variables {
            let mut vc = crumbs.to_vec();
            vc.push(Crumb::new(NodeKind::Variable, name.as_str()));
            match p.variables.get(name) {
                None => self.presence(
                    (StructureRule::ServerVariableAdded, Status::Added),
                    owner,
                    &vc,
                    format!("server variable `{name}` was added"),
                    at,
                ),
                Some(pv) => {
                    if pv.default != cv.default {
                        self.option_changed(
                            (StructureRule::ServerVariableDefaultChanged, "default", ""),
                            owner,
                            &vc,
                            (&pv.default, &cv.default),
                            at,
                        );
                    }
                    if !pv.enumeration.is_empty() || !cv.enumeration.is_empty() {
                        let removed: Vec<&String> = pv
                            .enumeration
                            .iter()
                            .filter(|v| !cv.enumeration.is_empty() && !cv.enumeration.contains(v))
                            .collect();
                        let added: Vec<&String> = cv
                            .enumeration
                            .iter()
                            .filter(|v| !pv.enumeration.is_empty() && !pv.enumeration.contains(v))
                            .collect();
                        if !removed.is_empty() || (pv.enumeration.is_empty()) {
                            let removed_msg = if pv.enumeration.is_empty() {
                                "values are now restricted".to_string()
                            } else {
                                format!("values removed: {removed:?}")
                            };
                            self.base(
                                StructureRule::ServerVariableEnumValueRemoved,
                                owner,
                                &vc,
                                Status::Modified,
                                removed_msg,
                                Some(json!(removed)),
                                None,
                                at,
                            );
                        }
                        if !added.is_empty() {
                            self.base(
                                StructureRule::ServerVariableEnumValueAdded,
                                owner,
                                &vc,
                                Status::Modified,
                                format!("values added: {added:?}"),
                                None,
                                Some(json!(added)),
                                at,
                            );
                        }
                    }
                }
            }
        }
        for name in p.variables.keys() {
            if !c.variables.contains_key(name) {
                let mut vc = crumbs.to_vec();
                vc.push(Crumb::new(NodeKind::Variable, name.as_str()));
                self.presence(
                    (StructureRule::ServerVariableRemoved, Status::Removed),
                    owner,
                    &vc,
                    format!("server variable `{name}` was removed"),
                    at,
                );
            }
        }
    }

    pub(super) fn endpoint_servers(
        &mut self,
        owner: usize,
        prev: &[Server],
        cur: &[Server],
        at: (Option<&Location>, Option<&Location>),
    ) {
        for c in cur {
            let crumbs = [Crumb::new(NodeKind::Server, c.url.as_str())];
            match prev.iter().find(|p| p.url == c.url) {
                None => self.presence(
                    (StructureRule::EndpointServerAdded, Status::Added),
                    owner,
                    &crumbs,
                    format!("server `{}` was added", c.url),
                    at,
                ),
                Some(p) if p != c => self.server(owner, &crumbs, p, c),
                Some(_) => {}
            }
        }
        for p in prev {
            if !cur.iter().any(|c| c.url == p.url) {
                let crumbs = [Crumb::new(NodeKind::Server, p.url.as_str())];
                self.presence(
                    (StructureRule::EndpointServerRemoved, Status::Removed),
                    owner,
                    &crumbs,
                    format!("server `{}` was removed", p.url),
                    at,
                );
            }
        }
    }
}
