//! The check every `$ref` gets when a document is read: its string is acceptable, its target
//! exists, and the chain it starts reaches a value within [`Limits::max_ref_chain`] hops
//! without a cycle. One iterative walk over every file; what was found good is remembered, so
//! the many uses of one component cost one check.
//!
//! [`Limits::max_ref_chain`]: crate::Limits::max_ref_chain

use crate::Document;
use crate::diagnostic::{Collector, Diagnostic, RefError};
use crate::model::{FileId, Location};
use crate::pointer;
use crate::tree::{Kind, V};

use super::ref_of;

/// One step of the walk's path: a member or an item.
#[derive(Clone, Copy)]
enum Tok<'a> {
    Key(&'a str),
    Index(usize),
}

/// The JSON pointer of a path (written only when a `$ref` needs it).
fn tokens_pointer(path: &[Tok]) -> String {
    let size: usize = path
        .iter()
        .map(|t| match t {
            Tok::Key(k) => k.len() + 1,
            Tok::Index(_) => 4,
        })
        .sum();
    let mut p = String::with_capacity(size);
    for t in path {
        match t {
            Tok::Key(k) => pointer::push_token(&mut p, k),
            Tok::Index(i) => pointer::push_index(&mut p, *i),
        }
    }
    p
}

/// Keys whose values are literal data, never containing references to resolve.
fn is_literal_key(k: &str) -> bool {
    matches!(k, "example" | "enum" | "const" | "default")
}

impl Document {
    /// Walks every file once (iteratively), checking each `$ref`: its string is acceptable,
    /// its target exists, and the chain it starts ends on a value within
    /// [`Limits::max_ref_chain`] hops without a cycle.
    pub(crate) fn check_refs(&self, errors: &mut Collector) {
        let mut count = 0usize;
        // Seeded foldhash (hashbrown's default): SipHash was a tenth of parsing a document with
        // thousands of `$ref`s.
        let mut good: hashbrown::HashSet<Location> = hashbrown::HashSet::new();
        // Targets of the `$ref` strings already resolved, by file: the same string recurs
        // in every place that uses a component.
        let mut targets: hashbrown::HashMap<(FileId, &str), Location> = hashbrown::HashMap::new();
        for (fi, file) in self.files.iter().enumerate() {
            let fid = FileId(fi as u32);
            // (value, depth, token) with an explicit path of tokens.
            let mut stack: Vec<(V, usize, Option<Tok>)> = vec![(file.value.root(), 0, None)];
            let mut path: Vec<Tok> = Vec::new();
            while let Some((v, depth, token)) = stack.pop() {
                path.truncate(depth.saturating_sub(1));
                if let Some(t) = token {
                    path.push(t);
                }
                match v.kind() {
                    Kind::Object(m) => {
                        if let Some(r) = m.get("$ref").and_then(V::as_str) {
                            count += 1;
                            if count > self.limits.max_refs {
                                errors.push(Diagnostic::new(
                                    "too-many-refs",
                                    format!(
                                        "the document has more than {} $refs",
                                        self.limits.max_refs
                                    ),
                                ));
                                return;
                            }
                            if let Err(e) =
                                self.check_ref_use(fid, r, &path, &mut targets, &mut good)
                            {
                                errors.push(Diagnostic {
                                    code: e.code(),
                                    message: e.to_string(),
                                    file: file.name.clone(),
                                    pointer: tokens_pointer(&path) + "/$ref",
                                    line: None,
                                    column: None,
                                });
                                if errors.full() {
                                    return;
                                }
                            }
                        }
                        for (k, child) in m.iter().rev() {
                            if child.is_object() || child.is_array() {
                                if is_literal_key(k) {
                                    continue;
                                }
                                stack.push((child, depth + 1, Some(Tok::Key(k))));
                            }
                        }
                    }
                    Kind::Array(a) => {
                        for (i, child) in a.iter().enumerate().rev() {
                            if child.is_object() || child.is_array() {
                                stack.push((child, depth + 1, Some(Tok::Index(i))));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Checks one use of the `$ref` string `r`, written at `path` in file `fid`. `targets` remembers where each string
    /// first led, `good` every location known to end on a value.
    fn check_ref_use<'d>(
        &'d self,
        fid: FileId,
        r: &'d str,
        path: &[Tok],
        targets: &mut hashbrown::HashMap<(FileId, &'d str), Location>,
        good: &mut hashbrown::HashSet<Location>,
    ) -> Result<(), RefError> {
        let known = targets.get(&(fid, r));
        // The same string already led to a value: nothing to check, and no pointer to write for this use (most
        // `$ref`s of a document repeat one another).
        if known.is_some_and(|t| good.contains(t)) {
            return Ok(());
        }
        let known = known.cloned();
        let here = Location {
            file: fid,
            pointer: tokens_pointer(path),
        };
        if let Some(target) = self.check_chain(here, r, known, good)? {
            targets.insert((fid, r), target);
        }
        Ok(())
    }

    /// Checks the chain a `$ref` written at `here` starts (`known`: its first target, when
    /// the same string was resolved before). Returns the first target when it was resolved
    /// here (to remember it).
    fn check_chain(
        &self,
        here: Location,
        first: &str,
        known: Option<Location>,
        good: &mut hashbrown::HashSet<Location>,
    ) -> Result<Option<Location>, RefError> {
        let used_at = || self.describe(&here);
        let (mut target, resolved) = match known {
            Some(t) => (t, None),
            None => {
                let t = self
                    .ref_target(here.file, first)
                    .map_err(|e| e.used_at(used_at()))?;
                (t.clone(), Some(t))
            }
        };
        // Described only for an error: the success path allocates nothing for it.
        let mut chain = vec![here];
        loop {
            if good.contains(&target) {
                break;
            }
            let v = self.value(&target).ok_or_else(|| RefError::Unresolved {
                reference: first.to_string(),
                used_at: self.describe(&chain[0]),
                reason: "there is no value at the target".into(),
            })?;
            let Some(r) = ref_of(v) else { break };
            if chain.contains(&target) {
                let mut names: Vec<String> = chain.iter().map(|l| self.describe(l)).collect();
                names.push(self.describe(&target));
                return Err(RefError::Cycle {
                    used_at: self.describe(&chain[0]),
                    chain: names.join(" -> "),
                });
            }
            if chain.len() >= self.limits.max_ref_chain {
                return Err(RefError::TooLong {
                    used_at: self.describe(&chain[0]),
                    limit: self.limits.max_ref_chain,
                });
            }
            let next = self
                .ref_target(target.file, r)
                .map_err(|e| e.used_at(self.describe(&target)))?;
            chain.push(target);
            target = next;
        }
        // Every location of a chain that ended on a value is known good.
        good.insert(target);
        for l in chain.into_iter().skip(1) {
            good.insert(l);
        }
        Ok(resolved)
    }
}
