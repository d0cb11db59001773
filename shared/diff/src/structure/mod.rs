//! The comparison of everything but schemas, by what it compares: operations (and callbacks),
//! parameters, bodies and responses, security, servers, AsyncAPI operations, messages and
//! channels. Schemas are compared in [`crate::schema`]; every comparison reports through the
//! helpers of [`crate::context`].

mod asyncapi;
mod bodies;
mod matching;
mod operations;
mod parameters;
mod presence;
mod security;
mod servers;

use specpress_apispec::{ApiModel, Location};

use crate::context::Context;

impl<'a> Context<'a> {
    /// Runs the whole comparison.
    pub(crate) fn run(&mut self) {
        let previous: &'a ApiModel = self.previous.document.model();
        let current: &'a ApiModel = self.current.document.model();
        // Room for the usual sizes up front (growing these by doubling copies them over and
        // over on large documents).
        let ops = previous.operations.len() + current.operations.len();
        self.found.owners.reserve(ops + current.schemas.len());
        self.found.edges.reserve(4 * ops);
        self.operations((previous, current));
        self.message_operations(previous, current);
        self.channels(previous, current);
        self.servers_doc(&previous.servers, &current.servers);
        self.security_schemes(&previous.security_schemes, &current.security_schemes);
        self.api_security(previous, current);
        self.component_schemas((previous, current));
        self.drain_components();
    }

    /// Compares the shared components queued so far, and those they queue in turn.
    fn drain_components(&mut self) {
        while let Some(i) = self.components.queue.pop_front() {
            let Some(pair) = self.components.pairs.get_mut(i) else {
                continue;
            };
            // Each pair is queued once, when it is created, and only its owner is read after
            // this: its locations move out instead of being copied.
            let (owner, role) = (pair.owner, pair.role);
            let files = (pair.previous.file, pair.current.file);
            let previous = std::mem::replace(&mut pair.previous, Location::root(files.0));
            let current = std::mem::replace(&mut pair.current, Location::root(files.1));
            let mut crumbs = Vec::new();
            self.schema_resolved(owner, &mut crumbs, role, &previous, &current, 0);
        }
    }
}
