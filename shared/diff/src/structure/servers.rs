//! Servers: document servers matched by URL (then by origin, a changed base path), added and
//! removed; protocol, description and variables (defaults and allowed values); the servers of
//! an operation.

use std::collections::HashSet;

use serde_json::json;
use specpress_apispec::{Location, Server, ServerVariable};
use specpress_slug::slug;

use super::matching::{Entry, entries};
use super::presence::{ENDPOINT_SERVER, SERVER_VARIABLE};
use crate::change::{Crumb, NodeKind, Owner, Status};
use crate::context::{At, Context};
use crate::rules::StructureRule;

/// A URL split before the path: (`https://host:port`, `/base/path`).
fn origin_and_path(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

/// The document's servers matched so far, by index on each side.
#[derive(Default)]
struct Matched {
    previous: HashSet<usize>,
    current: HashSet<usize>,
}

impl<'a> Context<'a> {
    fn server_owner(&mut self, url: &str, status: Status) -> usize {
        let id = format!("server-{}", slug(url));
        self.found
            .add_owner(Owner::root("server", id, url.to_string(), status))
    }

    /// The document's servers: matched by URL, then by origin (a changed base path); the
    /// others added or removed.
    pub(super) fn servers_doc(&mut self, previous: &'a [Server], current: &'a [Server]) {
        let root = Location::root(specpress_apispec::FileId::ROOT);
        let mut matched = Matched::default();
        // Exact URL matches.
        for (ci, after) in current.iter().enumerate() {
            let same_url =
                |(pi, p): &(usize, &Server)| !matched.previous.contains(pi) && p.url == after.url;
            if let Some((pi, before)) = previous.iter().enumerate().find(same_url) {
                matched.previous.insert(pi);
                matched.current.insert(ci);
                if before != after {
                    let owner = self.server_owner(&after.url, Status::Modified);
                    self.server(owner, &[], before, after);
                }
            }
        }
        self.base_paths(previous, current, &mut matched);
        for (ci, after) in current.iter().enumerate() {
            if !matched.current.contains(&ci) {
                let owner = self.server_owner(&after.url, Status::Added);
                self.structure_change(
                    StructureRule::ServerAdded,
                    owner,
                    &[],
                    Status::Added,
                    format!("server `{}` was added", after.url),
                    None,
                    Some(after.url.clone().into()),
                    (None, Some(&root)),
                );
            }
        }
        for (pi, before) in previous.iter().enumerate() {
            if !matched.previous.contains(&pi) {
                let owner = self.server_owner(&before.url, Status::Removed);
                self.structure_change(
                    StructureRule::ServerRemoved,
                    owner,
                    &[],
                    Status::Removed,
                    format!("server `{}` was removed", before.url),
                    Some(before.url.clone().into()),
                    None,
                    (Some(&root), None),
                );
            }
        }
    }

    /// Servers not matched by URL but by origin: the base path changed.
    fn base_paths(&mut self, previous: &'a [Server], current: &'a [Server], matched: &mut Matched) {
        let root = Location::root(specpress_apispec::FileId::ROOT);
        for (ci, after) in current.iter().enumerate() {
            if matched.current.contains(&ci) {
                continue;
            }
            let (origin, path) = origin_and_path(&after.url);
            let Some(pi) = (0..previous.len()).find(|pi| {
                !matched.previous.contains(pi) && origin_and_path(&previous[*pi].url).0 == origin
            }) else {
                continue;
            };
            matched.previous.insert(pi);
            matched.current.insert(ci);
            let before = &previous[pi];
            let owner = self.server_owner(&after.url, Status::Modified);
            let previous_path = origin_and_path(&before.url).1;
            let message = format!("base path changed from `{previous_path}` to `{path}`");
            let values = (Some(previous_path.into()), Some(path.into()));
            let rule = StructureRule::ServerBasePathChanged;
            self.modified(
                rule,
                owner,
                &[],
                message,
                values,
                (Some(&root), Some(&root)),
            );
            self.server(owner, &[], before, after);
        }
    }

    /// Two versions of a server: protocol, description, variables.
    fn server(&mut self, owner: usize, crumbs: &[Crumb], previous: &Server, current: &Server) {
        let root = Location::root(specpress_apispec::FileId::ROOT);
        let at = (Some(&root), Some(&root));
        let protocols = (&previous.protocol, &current.protocol);
        if protocols.0.is_some() && protocols.1.is_some() && protocols.0 != protocols.1 {
            let rule = (StructureRule::ServerProtocolChanged, "protocol", "");
            self.option_changed(rule, owner, crumbs, protocols, at);
        }
        self.text(
            (StructureRule::ServerDescriptionChanged, "description"),
            owner,
            crumbs,
            (
                previous.description.as_deref(),
                current.description.as_deref(),
            ),
            at,
        );
        for entry in entries(&previous.variables, &current.variables) {
            let mut crumbs = crumbs.to_vec();
            match entry {
                Entry::Added(name, _) => {
                    crumbs.push(Crumb::new(NodeKind::Variable, name.as_str()));
                    self.appeared(&SERVER_VARIABLE, owner, &crumbs, name, at);
                }
                Entry::Removed(name, _) => {
                    crumbs.push(Crumb::new(NodeKind::Variable, name.as_str()));
                    self.disappeared(&SERVER_VARIABLE, owner, &crumbs, name, at);
                }
                Entry::Both(name, before, after) => {
                    crumbs.push(Crumb::new(NodeKind::Variable, name.as_str()));
                    self.server_variable(owner, &crumbs, (before, after), at);
                }
            }
        }
    }

    /// Two versions of a server variable: default and allowed values.
    fn server_variable(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): (&ServerVariable, &ServerVariable),
        at: At<'_>,
    ) {
        if previous.default != current.default {
            let rule = (StructureRule::ServerVariableDefaultChanged, "default", "");
            let defaults = (&previous.default, &current.default);
            self.option_changed(rule, owner, crumbs, defaults, at);
        }
        let (before, after) = (&previous.enumeration, &current.enumeration);
        if before.is_empty() && after.is_empty() {
            return;
        }
        let removed: Vec<&String> = before
            .iter()
            .filter(|v| !after.is_empty() && !after.contains(v))
            .collect();
        let added: Vec<&String> = after
            .iter()
            .filter(|v| !before.is_empty() && !before.contains(v))
            .collect();
        if !removed.is_empty() || before.is_empty() {
            let message = if before.is_empty() {
                "values are now restricted".to_string()
            } else {
                format!("values removed: {removed:?}")
            };
            let rule = StructureRule::ServerVariableEnumValueRemoved;
            self.modified(
                rule,
                owner,
                crumbs,
                message,
                (Some(json!(removed)), None),
                at,
            );
        }
        if !added.is_empty() {
            let message = format!("values added: {added:?}");
            let rule = StructureRule::ServerVariableEnumValueAdded;
            self.modified(rule, owner, crumbs, message, (None, Some(json!(added))), at);
        }
    }

    /// The servers of two matched operations, by URL.
    pub(super) fn endpoint_servers(
        &mut self,
        owner: usize,
        previous: &[Server],
        current: &[Server],
        at: At<'_>,
    ) {
        for after in current {
            let crumbs = [Crumb::new(NodeKind::Server, after.url.as_str())];
            match previous.iter().find(|p| p.url == after.url) {
                None => self.appeared(&ENDPOINT_SERVER, owner, &crumbs, &after.url, at),
                Some(before) if before != after => self.server(owner, &crumbs, before, after),
                Some(_) => {}
            }
        }
        for before in previous {
            if !current.iter().any(|c| c.url == before.url) {
                let crumbs = [Crumb::new(NodeKind::Server, before.url.as_str())];
                self.disappeared(&ENDPOINT_SERVER, owner, &crumbs, &before.url, at);
            }
        }
    }
}
