//! Object keywords: `properties` and `required` (a property moved between the schema and an
//! `allOf` member is compared where it now lives; required-ness is judged as clients see it,
//! read-only properties never sent, write-only ones never returned),
//! `additionalProperties`/`unevaluatedProperties`, `dependentRequired`, and the entries of
//! `dependentSchemas` and `patternProperties`.

use std::collections::BTreeSet;

use specpress_apispec::{Arr, Location, Obj, V};

use super::Pair;
use super::values::{get_at, missing_any, object, props_of, required_set};
use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::nav::Nav;
use crate::rules::SchemaCheck;

/// One side of a property: where its schema is, the schema, and whether it is required.
type PropertySide<'l, 'a> = (&'l Location, V<'a>, bool);

/// Maps of subschemas keyed by name whose entries are matched by key: entries on both sides
/// are compared, the others reported added or removed.
const KEYED_SUBSCHEMAS: [(&str, SchemaCheck, SchemaCheck); 2] = [
    (
        "dependentSchemas",
        SchemaCheck::DependentSchemaAdded,
        SchemaCheck::DependentSchemaRemoved,
    ),
    (
        "patternProperties",
        SchemaCheck::PatternPropertyAdded,
        SchemaCheck::PatternPropertyRemoved,
    ),
];

/// Whether a side of a property is required as clients experience it (`contra`: the schema is
/// read by the API, so a read-only property is never sent; else a write-only one is never
/// returned).
fn effective<'a>(
    nav: &mut Nav<'a>,
    contra: bool,
    at: &Location,
    value: V<'a>,
    required: bool,
) -> bool {
    required
        && !(contra && nav.flag(at.file, value, "readOnly"))
        && (contra || !nav.flag(at.file, value, "writeOnly"))
}

impl<'a> Context<'a> {
    /// `properties` and `required`. (Here and below a `p…` name is of the previous side, a
    /// `c…` name of the current one: `pp`/`cp` the properties, `preq`/`creq` the required
    /// names, `ppl`/`cpl` the location of `properties`, `pat`/`cat` a property's.)
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn properties(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let (previous, current) = (pair.previous, pair.current);
        let (pp, cp) = (props_of(previous), props_of(current));
        let (preq, creq) = (required_set(previous), required_set(current));
        if pp.is_empty() && cp.is_empty() && preq == creq {
            return;
        }
        let ppl = pair.previous_at.child("properties");
        let cpl = pair.current_at.child("properties");
        // Properties that moved between the inline schema and an `allOf` member are compared
        // where they now live, not reported as removed and added.
        let p_moved = if missing_any(cp, pp) {
            self.allof_properties(true, pair.previous_at, previous)
        } else {
            Vec::new()
        };
        let contra = pair.role.contravariant();
        let mut p_near = pp.iter();
        // One buffer for each side's property location, rewritten for each property.
        let mut cat = Location {
            file: pair.current_at.file,
            pointer: String::with_capacity(cpl.pointer.len() + 32),
        };
        let mut pat = Location {
            file: pair.previous_at.file,
            pointer: String::with_capacity(ppl.pointer.len() + 32),
        };
        for (name, cval) in cp.iter() {
            let near = p_near.next();
            cpl.child_into(name, &mut cat);
            let creq_here = creq.contains(name);
            if get_at(pp, near, name).is_none() {
                if let Some((_, mloc, mval, mreq)) = p_moved.iter().find(|x| x.0 == name) {
                    let previous = (mloc, *mval, *mreq || preq.contains(name));
                    let current = (&cat, cval, creq_here);
                    self.matched_property(pair, crumbs, name, previous, current);
                    continue;
                }
                let creq_eff = effective(&mut self.current.nav, contra, &cat, cval, creq_here);
                crumbs.push(Crumb::new(NodeKind::Property, name));
                let check = if creq_eff {
                    SchemaCheck::RequiredPropertyAdded
                } else {
                    SchemaCheck::PropertyAdded
                };
                let what = if creq_eff { "required" } else { "optional" };
                self.check(
                    pair.role,
                    check,
                    pair.owner,
                    crumbs,
                    Status::Added,
                    format!("{what} property `{name}` was added"),
                    None,
                    None,
                    &ppl.child(name),
                    &cat,
                );
                crumbs.pop();
                continue;
            }
            let Some(pval) = get_at(pp, near, name) else {
                continue;
            };
            ppl.child_into(name, &mut pat);
            let sides = ((&pat, pval, preq.contains(name)), (&cat, cval, creq_here));
            self.matched_property(pair, crumbs, name, sides.0, sides.1);
        }
        self.removed_properties(pair, crumbs, (&ppl, &cpl), (&preq, &creq));
        self.required_elsewhere(pair, crumbs, (&ppl, &cpl), (&preq, &creq));
    }

    /// The properties of the previous side missing from the current one: removed, or moved
    /// into an `allOf` member of the current side.
    fn removed_properties(
        &mut self,
        pair: &Pair<'_, 'a>,
        crumbs: &mut Vec<Crumb>,
        (ppl, cpl): (&Location, &Location),
        (preq, creq): (&BTreeSet<&str>, &BTreeSet<&str>),
    ) {
        let (previous, current) = (pair.previous, pair.current);
        let (pp, cp) = (props_of(previous), props_of(current));
        let c_moved = if missing_any(pp, cp) {
            self.allof_properties(false, pair.current_at, current)
        } else {
            Vec::new()
        };
        let contra = pair.role.contravariant();
        let pf = pair.previous_at.file;
        let mut c_near = cp.iter();
        for (name, pval) in pp.iter() {
            if get_at(cp, c_near.next(), name).is_some() {
                continue;
            }
            let pat = ppl.child(name);
            if let Some((_, mloc, mval, mreq)) = c_moved.iter().find(|x| x.0 == name) {
                let current = (mloc, *mval, *mreq || creq.contains(name));
                let previous = (&pat, pval, preq.contains(name));
                self.matched_property(pair, crumbs, name, previous, current);
                continue;
            }
            let nav = &mut self.previous.nav;
            // A property that was never visible on this side cannot be missed when it goes.
            if (contra && nav.flag(pf, pval, "readOnly"))
                || (!contra && nav.flag(pf, pval, "writeOnly"))
            {
                continue;
            }
            let check = if nav.flag(pf, pval, "deprecated") {
                SchemaCheck::DeprecatedPropertyRemoved
            } else {
                SchemaCheck::PropertyRemoved
            };
            crumbs.push(Crumb::new(NodeKind::Property, name));
            self.check(
                pair.role,
                check,
                pair.owner,
                crumbs,
                Status::Removed,
                format!("property `{name}` was removed"),
                None,
                None,
                &pat,
                &cpl.child(name),
            );
            crumbs.pop();
        }
    }

    /// `required` entries naming properties declared elsewhere (allOf members, …).
    fn required_elsewhere(
        &mut self,
        pair: &Pair<'_, 'a>,
        crumbs: &mut Vec<Crumb>,
        (ppl, cpl): (&Location, &Location),
        (preq, creq): (&BTreeSet<&str>, &BTreeSet<&str>),
    ) {
        let (pp, cp) = (props_of(pair.previous), props_of(pair.current));
        for (names, check, became, was) in [
            (
                creq.difference(preq),
                SchemaCheck::PropertyBecameRequired,
                "required",
                false,
            ),
            (
                preq.difference(creq),
                SchemaCheck::PropertyBecameOptional,
                "optional",
                true,
            ),
        ] {
            for name in names {
                if cp.contains_key(name) || pp.contains_key(name) {
                    continue;
                }
                crumbs.push(Crumb::new(NodeKind::Property, *name));
                self.check(
                    pair.role,
                    check,
                    pair.owner,
                    crumbs,
                    Status::Modified,
                    format!("property `{name}` became {became}"),
                    Some(was.into()),
                    Some((!was).into()),
                    &ppl.child(name),
                    &cpl.child(name),
                );
                crumbs.pop();
            }
        }
    }

    /// A property present on both sides (possibly moved between the schema and an `allOf`
    /// member): required-ness as clients experience it, read/write-only, then its schema.
    fn matched_property(
        &mut self,
        pair: &Pair<'_, 'a>,
        crumbs: &mut Vec<Crumb>,
        name: &str,
        (pat, pval, preq): PropertySide<'_, 'a>,
        (cat, cval, creq): PropertySide<'_, 'a>,
    ) {
        let (owner, role) = (pair.owner, pair.role);
        let contra = role.contravariant();
        // Required as clients experience it: a read-only property is never sent in a request,
        // a write-only one never returned in a response.
        // `readOnly` and `writeOnly` of each side, each side's `$ref` followed once.
        let (p_ro, p_wo) = self.previous.nav.access(pat.file, pval);
        let (c_ro, c_wo) = self.current.nav.access(cat.file, cval);
        let effective =
            |required: bool, ro: bool, wo: bool| required && !(contra && ro) && (contra || !wo);
        let creq_eff = effective(creq, c_ro, c_wo);
        let preq_eff = effective(preq, p_ro, p_wo);
        crumbs.push(Crumb::new(NodeKind::Property, name));
        // `x-beta` and `x-stability-level` of each side from the values at hand (each side's
        // `$ref` followed once).
        let marks = (
            self.previous.nav.marks(pat.file, pval),
            self.current.nav.marks(cat.file, cval),
        );
        let subject = format_args!("property `{name}`");
        self.marked(owner, crumbs, subject, marks, (pat, cat));
        let required = match (preq_eff, creq_eff) {
            (false, true) => Some((SchemaCheck::PropertyBecameRequired, "required", false)),
            (true, false) => Some((SchemaCheck::PropertyBecameOptional, "optional", true)),
            _ => None,
        };
        let read_only =
            (!p_ro && c_ro).then_some((SchemaCheck::PropertyBecameReadOnly, "read-only", false));
        let write_only =
            (!p_wo && c_wo).then_some((SchemaCheck::PropertyBecameWriteOnly, "write-only", false));
        for (check, became, was) in [required, read_only, write_only].into_iter().flatten() {
            self.check(
                role,
                check,
                owner,
                crumbs,
                Status::Modified,
                format!("property `{name}` became {became}"),
                Some(was.into()),
                Some((!was).into()),
                pat,
                cat,
            );
        }
        self.schema(owner, crumbs, role, pat, cat, pair.depth + 1);
        crumbs.pop();
    }

    /// `additionalProperties` and `unevaluatedProperties`: closed, opened, or both schemas
    /// compared.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn additional_properties(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        for key in ["additionalProperties", "unevaluatedProperties"] {
            let open = |v: Option<V<'a>>| v.and_then(V::as_bool) != Some(false);
            let (a, b) = (pair.previous.get(key), pair.current.get(key));
            let values = || (a.map(V::to_value), b.map(V::to_value));
            if open(a) && !open(b) {
                let message = format!("{key} are no longer allowed");
                let check = SchemaCheck::AdditionalPropertiesNarrowed;
                self.changed(pair, crumbs, check, message, values());
            } else if !open(a) && open(b) {
                let message = format!("{key} are now allowed");
                let check = SchemaCheck::AdditionalPropertiesWidened;
                self.changed(pair, crumbs, check, message, values());
            } else if a.is_some_and(V::is_object) && b.is_some_and(V::is_object) {
                let crumb = Crumb::new(NodeKind::AdditionalProperties, key);
                self.child_at(pair, crumbs, key, crumb);
            }
        }
    }

    /// `dependentRequired` constraints added or removed.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn dependent_required(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        let constraints = |m: Obj<'a>| -> BTreeSet<(String, String)> {
            m.get("dependentRequired")
                .and_then(V::as_object)
                .map(|o| {
                    o.iter()
                        .flat_map(|(k, v)| {
                            v.as_array()
                                .into_iter()
                                .flat_map(Arr::iter)
                                .filter_map(V::as_str)
                                .map(move |d| (k.to_string(), d.to_string()))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let (previous, current) = (constraints(pair.previous), constraints(pair.current));
        let values = || {
            (
                pair.previous.get("dependentRequired").map(V::to_value),
                pair.current.get("dependentRequired").map(V::to_value),
            )
        };
        if current.difference(&previous).next().is_some() {
            let message = "dependentRequired constraints were added".into();
            let check = SchemaCheck::DependentRequiredAdded;
            self.changed(pair, crumbs, check, message, values());
        }
        if previous.difference(&current).next().is_some() {
            let message = "dependentRequired constraints were removed".into();
            let check = SchemaCheck::DependentRequiredRemoved;
            self.changed(pair, crumbs, check, message, values());
        }
    }

    /// The entries of [`KEYED_SUBSCHEMAS`]: compared when on both sides, else added or removed.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn keyed_subschemas(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let (pl, cl) = (pair.previous_at, pair.current_at);
        for (key, added, removed) in KEYED_SUBSCHEMAS {
            let (a, b) = (object(pair.previous, key), object(pair.current, key));
            for (k, v) in a.iter() {
                let crumb = Crumb::new(NodeKind::Property, format!("{key}[{k}]"));
                if b.contains_key(k) {
                    let (previous, current) = (pl.child(key).child(k), cl.child(key).child(k));
                    let (owner, role, depth) = (pair.owner, pair.role, pair.depth);
                    self.child(owner, crumbs, role, &previous, &current, Some(crumb), depth);
                } else {
                    crumbs.push(crumb);
                    self.check(
                        pair.role,
                        removed,
                        pair.owner,
                        crumbs,
                        Status::Removed,
                        format!("{key} entry `{k}` was removed"),
                        Some(v.to_value()),
                        None,
                        &pl.child(key).child(k),
                        cl,
                    );
                    crumbs.pop();
                }
            }
            for (k, v) in b.iter() {
                if a.contains_key(k) {
                    continue;
                }
                crumbs.push(Crumb::new(NodeKind::Property, format!("{key}[{k}]")));
                self.check(
                    pair.role,
                    added,
                    pair.owner,
                    crumbs,
                    Status::Added,
                    format!("{key} entry `{k}` was added"),
                    None,
                    Some(v.to_value()),
                    pl,
                    &cl.child(key).child(k),
                );
                crumbs.pop();
            }
        }
    }
}
