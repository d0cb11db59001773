//! "Where it is used": for each named schema, the operation pages that reference it, directly or
//! through other schemas. One walk of each named schema and of each operation's own schemas (refs
//! are recorded, not followed), then a reachability pass per operation over the schema graph.

use std::collections::HashMap;

use specpress_apispec::{Document, FileId, Kind, Location, Operation, V};

use crate::site::Site;

/// Keys whose values are data, never schemas.
fn is_data_key(k: &str) -> bool {
    matches!(k, "example" | "examples" | "enum" | "const" | "default")
}

#[derive(Clone)]
enum Target {
    Named(u32),
    Other(Location),
    Broken,
}

struct Walker<'d> {
    doc: &'d Document,
    site: &'d Site,
    /// `$ref` string (per file) -> named schema it leads into, if any.
    cache: HashMap<(FileId, &'d str), Target>,
    /// Unnamed `$ref` targets already walked in the current walk.
    visited: Vec<Location>,
}

impl<'d> Walker<'d> {
    /// The named schema a location is, or is inside of (`#/components/schemas/A/properties/b`).
    // Always inlined into `compute`, as it was before the crate's modules were split: left out of line (as the new
    // codegen units had it) its `rfind` was not turned into a `memrchr` and `compute` took 4% more instructions.
    #[inline(always)]
    fn named_at(&self, loc: &Location) -> Option<u32> {
        let mut p = loc.pointer.as_str();
        loop {
            if let Some(i) = self.site.schema_index(&Location {
                file: loc.file,
                pointer: p.to_string(),
            }) {
                return Some(i);
            }
            match p.rfind('/') {
                Some(cut) if cut > 0 => p = &p[..cut],
                _ => return None,
            }
        }
    }

    /// Records every named schema referenced inside the value at `loc`.
    fn walk(&mut self, loc: &Location, out: &mut Vec<u32>) {
        let Some(v) = self.doc.value(loc) else { return };
        let file = loc.file;
        let mut stack: Vec<V<'d>> = vec![v];
        let mut steps = 0usize;
        while let Some(v) = stack.pop() {
            steps += 1;
            if steps > 200_000 {
                return;
            }
            match v.kind() {
                Kind::Object(o) => {
                    if let Some(r) = o.get("$ref").and_then(V::as_str) {
                        let doc = self.doc;
                        let entry = match self.cache.get(&(file, r)) {
                            Some(e) => e.clone(),
                            None => {
                                let e = match doc.ref_target(file, r) {
                                    Ok(t) => match self.named_at(&t) {
                                        Some(n) => Target::Named(n),
                                        None => Target::Other(t),
                                    },
                                    Err(_) => Target::Broken,
                                };
                                self.cache.insert((file, r), e.clone());
                                e
                            }
                        };
                        let named = match entry {
                            Target::Named(n) => Some(n),
                            Target::Other(t) => {
                                if !self.visited.contains(&t) && self.visited.len() < 256 {
                                    self.visited.push(t.clone());
                                    self.walk(&t, out);
                                }
                                None
                            }
                            Target::Broken => None,
                        };
                        if let Some(n) = named
                            && !out.contains(&n)
                        {
                            out.push(n);
                        }
                    }
                    for (k, child) in o.iter() {
                        if !is_data_key(k) && (child.is_object() || child.is_array()) {
                            stack.push(child);
                        }
                    }
                }
                Kind::Array(a) => {
                    stack.extend(a.iter().filter(|c| c.is_object() || c.is_array()));
                }
                _ => {}
            }
        }
    }
}

fn operation_roots(op: &Operation, out: &mut Vec<Location>) {
    for p in &op.parameters {
        out.extend(p.schema.iter().cloned());
        out.extend(p.content.values().filter_map(|m| m.schema.clone()));
    }
    if let Some(b) = &op.request_body {
        out.extend(b.content.values().filter_map(|m| m.schema.clone()));
    }
    for r in op.responses.values() {
        out.extend(r.content.values().filter_map(|m| m.schema.clone()));
        out.extend(r.headers.values().filter_map(|h| h.schema.clone()));
    }
    for cbs in op.callbacks.values() {
        for cb in cbs {
            operation_roots(cb, out);
        }
    }
}

/// For each named schema (model order), the pages of the operations that use it.
pub(crate) fn compute(doc: &Document, site: &Site) -> Vec<Vec<u32>> {
    let model = doc.model();
    let n = site.schema_count();
    let mut w = Walker {
        doc,
        site,
        cache: HashMap::new(),
        visited: Vec::new(),
    };
    let mut deps: Vec<Vec<u32>> = Vec::with_capacity(n);
    for (i, loc) in model.schemas.values().enumerate() {
        let mut out = Vec::new();
        w.visited.clear();
        w.walk(loc, &mut out);
        out.retain(|&x| x as usize != i);
        deps.push(out);
    }
    let mut users: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut roots = Vec::new();
    for (i, op) in model.operations.values().enumerate() {
        roots.clear();
        operation_roots(op, &mut roots);
        let mut direct = Vec::new();
        for r in &roots {
            if let Some(n) = w.named_at(r)
                && !direct.contains(&n)
            {
                direct.push(n);
            }
            w.visited.clear();
            w.walk(r, &mut direct);
        }
        users.push((site.op_pages[i], direct));
    }
    for (i, op) in model.message_operations.values().enumerate() {
        let mut direct = Vec::new();
        for m in op.messages.values() {
            for r in m.payload.iter().chain(m.headers.iter()) {
                if let Some(n) = w.named_at(r)
                    && !direct.contains(&n)
                {
                    direct.push(n);
                }
                w.visited.clear();
                w.walk(r, &mut direct);
            }
        }
        users.push((site.message_pages[i], direct));
    }
    let mut used_by: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut stamp = vec![u32::MAX; n];
    let mut queue = Vec::new();
    for (k, (page, direct)) in users.iter().enumerate() {
        queue.clear();
        for &d in direct {
            if stamp[d as usize] != k as u32 {
                stamp[d as usize] = k as u32;
                queue.push(d);
            }
        }
        while let Some(s) = queue.pop() {
            used_by[s as usize].push(*page);
            for &d in &deps[s as usize] {
                if stamp[d as usize] != k as u32 {
                    stamp[d as usize] = k as u32;
                    queue.push(d);
                }
            }
        }
    }
    used_by
}
