//! Array keywords and the other single-subschema applicators: `items` (a schema, or a tuple in
//! draft 4 form), `prefixItems` (positional items added or removed), and `contains`,
//! `propertyNames`, `unevaluatedItems` compared one level down.

use serde_json::json;
use specpress_apispec::{Arr, Kind, V};

use super::Pair;
use super::values::has_schema;
use crate::change::{Crumb, NodeKind};
use crate::context::Context;
use crate::rules::SchemaCheck;

/// Keywords holding one subschema, compared one level down when both sides have one.
const APPLICATORS: [&str; 3] = ["contains", "propertyNames", "unevaluatedItems"];

impl<'a> Context<'a> {
    /// `items`: a tuple (array form) compared position by position, else the item schemas.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn items(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let kinds = (
            pair.previous.get("items").map(V::kind),
            pair.current.get("items").map(V::kind),
        );
        match kinds {
            (Some(Kind::Array(a)), Some(Kind::Array(b))) => {
                self.tuple(pair, crumbs, "items", (a.len(), b.len()))
            }
            (Some(a), Some(b)) if !matches!(a, Kind::Array(_)) && !matches!(b, Kind::Array(_)) => {
                self.child_at(pair, crumbs, "items", Crumb::new(NodeKind::Items, "items"))
            }
            _ => {}
        }
    }

    /// `prefixItems`: compared position by position, or added or removed as a whole.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn prefix_items(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        let (previous, current) = (pair.previous, pair.current);
        let lengths = (
            previous
                .get("prefixItems")
                .and_then(V::as_array)
                .map(Arr::len),
            current
                .get("prefixItems")
                .and_then(V::as_array)
                .map(Arr::len),
        );
        match lengths {
            (Some(a), Some(b)) => self.tuple(pair, crumbs, "prefixItems", (a, b)),
            (None, Some(b)) if b > 0 => {
                let message = format!("{b} positional items were added");
                let values = (None, current.get("prefixItems").map(V::to_value));
                self.changed(pair, crumbs, SchemaCheck::TupleItemAdded, message, values);
            }
            (Some(a), None) if a > 0 => {
                let message = format!("{a} positional items were removed");
                let values = (previous.get("prefixItems").map(V::to_value), None);
                self.changed(pair, crumbs, SchemaCheck::TupleItemRemoved, message, values);
            }
            _ => {}
        }
    }

    /// A tuple of `a` items against one of `b`: the common positions compared, the others
    /// reported added or removed.
    fn tuple(
        &mut self,
        pair: &Pair<'_, 'a>,
        crumbs: &mut Vec<Crumb>,
        key: &str,
        (a, b): (usize, usize),
    ) {
        let (owner, role, depth) = (pair.owner, pair.role, pair.depth);
        for i in 0..a.min(b) {
            let previous = pair.previous_at.child(key).index(i);
            let current = pair.current_at.child(key).index(i);
            let crumb = Crumb::new(NodeKind::Items, format!("{key}[{i}]"));
            self.child(owner, crumbs, role, &previous, &current, Some(crumb), depth);
        }
        let values = (Some(json!(a)), Some(json!(b)));
        if b > a {
            let message = format!("{} positional items were added", b - a);
            self.changed(pair, crumbs, SchemaCheck::TupleItemAdded, message, values);
        } else if a > b {
            let message = format!("{} positional items were removed", a - b);
            self.changed(pair, crumbs, SchemaCheck::TupleItemRemoved, message, values);
        }
    }

    /// The [`APPLICATORS`] present as schemas on both sides.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn applicators(&mut self, pair: &Pair<'_, 'a>, crumbs: &mut Vec<Crumb>) {
        for key in APPLICATORS {
            if has_schema(pair.previous, key) && has_schema(pair.current, key) {
                self.child_at(pair, crumbs, key, Crumb::new(NodeKind::Condition, key));
            }
        }
    }
}
