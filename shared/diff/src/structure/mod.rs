//! The comparison of everything but schemas, by what it compares: operations (and callbacks),
//! parameters, bodies and responses, security, servers, AsyncAPI operations, messages and
//! channels. Schemas are compared in [`crate::schema`]; every comparison reports through the
//! helpers of [`crate::context`].

mod asyncapi;
mod bodies;
mod matching;
mod operations;
mod parameters;
mod security;
mod servers;

use specpress_spec::{ApiModel, Location};

use crate::context::Context;

impl<'a> Context<'a> {
    /// Runs the whole comparison.
    pub(crate) fn run(&mut self) {
        let pm: &'a ApiModel = self.previous.document.model();
        let cm: &'a ApiModel = self.current.document.model();
        // Room for the usual sizes up front (growing these by doubling copies them over and
        // over on large documents).
        let ops = pm.operations.len() + cm.operations.len();
        self.found.owners.reserve(ops + cm.schemas.len());
        self.found.edges.reserve(4 * ops);
        self.operations(pm, cm);
        self.message_operations(pm, cm);
        self.channels(pm, cm);
        self.servers_doc(&pm.servers, &cm.servers);
        self.security_schemes(&pm.security_schemes, &cm.security_schemes);
        self.api_security(pm, cm);
        self.component_schemas(pm, cm);
        self.drain_components();
    }

    fn drain_components(&mut self) {
        while let Some(i) = self.components.queue.pop_front() {
            let Some(pair) = self.components.pairs.get_mut(i) else {
                continue;
            };
            // Each pair is queued once, when it is created, and only its owner is read after
            // this: its locations move out instead of being copied.
            let (owner, role) = (pair.owner, pair.role);
            let (pf, cf) = (pair.previous.file, pair.current.file);
            let previous = std::mem::replace(&mut pair.previous, Location::root(pf));
            let current = std::mem::replace(&mut pair.current, Location::root(cf));
            let mut crumbs = Vec::new();
            self.schema_resolved(owner, &mut crumbs, role, &previous, &current, 0);
        }
    }
}
