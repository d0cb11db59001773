//! Following `$ref`s on demand: where a `$ref` string points ([`Document::ref_target`]), where
//! a chain of them ends ([`Document::resolve`]), and the direct location behind a pointer that
//! walks through reference objects ([`Document::canonical`]).

use crate::Document;
use crate::diagnostic::RefError;
use crate::model::{FileId, Location};
use crate::pointer;
use crate::refs::{self, ref_of};
use crate::tree::V;

impl Document {
    /// the target, repeat). Returns the final location and value.
    pub fn resolve(&self, at: &Location) -> Result<(Location, V<'_>), RefError> {
        let mut here = at.clone();
        let mut seen: Vec<Location> = Vec::new();
        loop {
            let v = self.value(&here).ok_or_else(|| RefError::Unresolved {
                reference: self.describe(&here),
                used_at: self.describe(at),
                reason: "there is no value at this location".into(),
            })?;
            let Some(r) = ref_of(v) else {
                return Ok((here, v));
            };
            if seen.len() >= self.limits.max_ref_chain {
                return Err(RefError::TooLong {
                    used_at: self.describe(at),
                    limit: self.limits.max_ref_chain,
                });
            }
            let next = self
                .ref_target(here.file, r)
                .map_err(|e| e.used_at(self.describe(&here)))?;
            seen.push(here);
            if seen.contains(&next) {
                let chain = seen
                    .iter()
                    .map(|l| self.describe(l))
                    .collect::<Vec<_>>()
                    .join(" -> ");
                return Err(RefError::Cycle {
                    used_at: self.describe(at),
                    chain: format!("{chain} -> {}", self.describe(&next)),
                });
            }
            here = next;
        }
    }

    /// Where a `$ref` string written in file `from` points. The pointer is returned as
    /// written; when it walks through another `$ref` on the way (`#/a/b` where `/a` is a
    /// reference object), the location returned is the canonical one behind it.
    pub fn ref_target(&self, from: FileId, reference: &str) -> Result<Location, RefError> {
        let used_at = || self.file_name(from).unwrap_or("").to_string();
        let (file_part, pointer) =
            refs::split_ref(reference).map_err(|reason| RefError::Forbidden {
                reference: refs::shorten(reference),
                used_at: used_at(),
                reason,
            })?;
        let file = if file_part.is_empty() {
            from
        } else {
            let base = self
                .files
                .get(from.0 as usize)
                .map(|f| f.key.as_str())
                .unwrap_or("");
            let key =
                refs::resolve_against(file_part, base).map_err(|reason| RefError::Forbidden {
                    reference: refs::shorten(reference),
                    used_at: used_at(),
                    reason,
                })?;
            *self.index.get(&key).ok_or_else(|| RefError::Unresolved {
                reference: refs::shorten(reference),
                used_at: used_at(),
                reason: format!("the file '{}' is not among the references sent (Specpress never fetches files or URLs)", refs::shorten(&key)),
            })?
        };
        let loc = Location { file, pointer };
        self.canonical(loc).map_err(|reason| RefError::Unresolved {
            reference: refs::shorten(reference),
            used_at: used_at(),
            reason,
        })
    }

    /// Makes a location direct: if its pointer walks through reference objects, jump through
    /// them (bounded by [`Limits::max_ref_chain`]). Errors when a token does not exist.
    pub(crate) fn canonical(&self, loc: Location) -> Result<Location, String> {
        let Some(file) = self.files.get(loc.file.0 as usize) else {
            return Err("unknown file".into());
        };
        if file.value.root().pointer(&loc.pointer).is_some() {
            return Ok(loc);
        }
        let tokens = pointer::tokens(&loc.pointer).ok_or("invalid JSON pointer")?;
        let mut here = Location::root(loc.file);
        let mut hops = 0usize;
        for (i, tok) in tokens.iter().enumerate() {
            let mut v = self.value(&here).ok_or("no value")?;
            // Walk through reference objects that do not have the token themselves.
            while let Some(r) = ref_of(v) {
                if v.get(tok.as_str()).is_some() {
                    break;
                }
                hops += 1;
                if hops > self.limits.max_ref_chain {
                    return Err(format!("more than {} $ref hops", self.limits.max_ref_chain));
                }
                let (f, p) = refs::split_ref(r)?;
                let file = if f.is_empty() {
                    here.file
                } else {
                    let base = &self.files[here.file.0 as usize].key;
                    let key = refs::resolve_against(f, base)?;
                    *self
                        .index
                        .get(&key)
                        .ok_or_else(|| format!("the file '{key}' is not among the references"))?
                };
                here = Location { file, pointer: p };
                v = self
                    .value(&here)
                    .ok_or_else(|| format!("there is no value at '{}'", here.pointer))?;
            }
            let exists = v.step(tok).is_some();
            if !exists {
                let at = pointer::from_tokens(&tokens[..=i]);
                return Err(format!(
                    "there is no value at '{at}' in {}",
                    self.file_name(loc.file).unwrap_or("the definition")
                ));
            }
            here = here.child(tok);
        }
        Ok(here)
    }
}
