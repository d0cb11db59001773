//! Keywords that constrain a value itself: annotations (description, title, examples,
//! deprecation), type and nullability, format, enum/const, numeric bounds, lengths and counts,
//! pattern, multipleOf, uniqueItems, default, discriminator and content encoding. Where
//! keywords follow one pattern (set, changed or removed; a bound raised or lowered) their
//! rules are rows of a table.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use specpress_apispec::{Kind, Obj, V};

use super::Pair;
use super::values::{is_true, names, not_in, short};
use crate::change::Crumb;
use crate::context::Context;
use crate::rules::SchemaCheck;

/// A keyword whose value is a string or a number, reported when set, changed or removed.
pub(super) struct SetUnset {
    key: &'static str,
    /// Read as a number (else as a string, shown in backquotes).
    number: bool,
    changed: SchemaCheck,
    set: SchemaCheck,
    unset: SchemaCheck,
}

pub(super) const FORMAT: SetUnset = SetUnset {
    key: "format",
    number: false,
    changed: SchemaCheck::FormatChanged,
    set: SchemaCheck::FormatSet,
    unset: SchemaCheck::FormatUnset,
};

const PATTERN: SetUnset = SetUnset {
    key: "pattern",
    number: false,
    changed: SchemaCheck::PatternChanged,
    set: SchemaCheck::PatternSet,
    unset: SchemaCheck::PatternUnset,
};

const MULTIPLE_OF: SetUnset = SetUnset {
    key: "multipleOf",
    number: true,
    changed: SchemaCheck::MultipleOfChanged,
    set: SchemaCheck::MultipleOfSet,
    unset: SchemaCheck::MultipleOfUnset,
};

/// The value of a [`SetUnset`] keyword.
#[derive(Clone, Copy, PartialEq)]
enum Scalar<'v> {
    Text(&'v str),
    Number(f64),
}

impl Scalar<'_> {
    #[inline(always)]
    fn read<'v>(m: Obj<'v>, row: &SetUnset) -> Option<Scalar<'v>> {
        let v = m.get(row.key)?;
        if row.number {
            v.as_f64().map(Scalar::Number)
        } else {
            v.as_str().map(Scalar::Text)
        }
    }

    fn show(self) -> String {
        match self {
            Scalar::Text(s) => format!("`{s}`"),
            Scalar::Number(n) => n.to_string(),
        }
    }

    fn value(self) -> Value {
        match self {
            Scalar::Text(s) => json!(s),
            Scalar::Number(n) => json!(n),
        }
    }
}

/// A numeric bound: an upper one tightens when it decreases, a lower one when it increases
/// (or, at the same value, when it becomes exclusive).
struct Bound {
    key: &'static str,
    exclusive: &'static str,
    upper: bool,
    tighter: SchemaCheck,
    looser: SchemaCheck,
    set: SchemaCheck,
    unset: SchemaCheck,
}

const BOUNDS: [Bound; 2] = [
    Bound {
        key: "maximum",
        exclusive: "exclusiveMaximum",
        upper: true,
        tighter: SchemaCheck::MaxDecreased,
        looser: SchemaCheck::MaxIncreased,
        set: SchemaCheck::MaxSet,
        unset: SchemaCheck::MaxUnset,
    },
    Bound {
        key: "minimum",
        exclusive: "exclusiveMinimum",
        upper: false,
        tighter: SchemaCheck::MinIncreased,
        looser: SchemaCheck::MinDecreased,
        set: SchemaCheck::MinSet,
        unset: SchemaCheck::MinUnset,
    },
];

/// A maximum length or count: lowered, raised, set or removed.
struct Maximum {
    key: &'static str,
    decreased: SchemaCheck,
    increased: SchemaCheck,
    set: SchemaCheck,
    unset: SchemaCheck,
}

const MAXIMUMS: [Maximum; 3] = [
    Maximum {
        key: "maxLength",
        decreased: SchemaCheck::MaxLengthDecreased,
        increased: SchemaCheck::MaxLengthIncreased,
        set: SchemaCheck::MaxLengthSet,
        unset: SchemaCheck::MaxLengthUnset,
    },
    Maximum {
        key: "maxItems",
        decreased: SchemaCheck::MaxItemsDecreased,
        increased: SchemaCheck::MaxItemsIncreased,
        set: SchemaCheck::MaxItemsSet,
        unset: SchemaCheck::MaxItemsUnset,
    },
    Maximum {
        key: "maxProperties",
        decreased: SchemaCheck::MaxPropertiesDecreased,
        increased: SchemaCheck::MaxPropertiesIncreased,
        set: SchemaCheck::MaxPropertiesSet,
        unset: SchemaCheck::MaxPropertiesUnset,
    },
];

/// A minimum length or count (0 when absent): raised or lowered.
struct Minimum {
    key: &'static str,
    increased: SchemaCheck,
    decreased: SchemaCheck,
}

const MINIMUMS: [Minimum; 3] = [
    Minimum {
        key: "minLength",
        increased: SchemaCheck::MinLengthIncreased,
        decreased: SchemaCheck::MinLengthDecreased,
    },
    Minimum {
        key: "minItems",
        increased: SchemaCheck::MinItemsIncreased,
        decreased: SchemaCheck::MinItemsDecreased,
    },
    Minimum {
        key: "minProperties",
        increased: SchemaCheck::MinPropertiesIncreased,
        decreased: SchemaCheck::MinPropertiesDecreased,
    },
];

/// Type facts of one schema.
struct Types<'v> {
    set: BTreeSet<&'v str>,
    nullable: bool,
}

fn type_facts(m: Obj<'_>) -> Types<'_> {
    let mut set = BTreeSet::new();
    let mut nullable = false;
    match m.get("type").map(V::kind) {
        Some(Kind::String("null")) => nullable = true,
        Some(Kind::String(t)) => {
            set.insert(t);
        }
        Some(Kind::Array(ts)) => {
            for t in ts.iter().filter_map(V::as_str) {
                if t == "null" {
                    nullable = true;
                } else {
                    set.insert(t);
                }
            }
        }
        _ => {}
    }
    if m.get("nullable").and_then(V::as_bool) == Some(true)
        || m.get("x-nullable").and_then(V::as_bool) == Some(true)
    {
        nullable = true;
    }
    Types { set, nullable }
}

fn covers(wide: &BTreeSet<&str>, narrow: &BTreeSet<&str>) -> bool {
    narrow
        .iter()
        .all(|t| wide.contains(t) || (*t == "integer" && wide.contains("number")))
}

fn join(set: &BTreeSet<&str>) -> String {
    set.iter().copied().collect::<Vec<_>>().join(", ")
}

/// An upper or lower numeric bound: (value, exclusive).
fn bound(m: Obj<'_>, plain: &str, exclusive: &str) -> Option<(f64, bool)> {
    let inclusive = m.get(plain).and_then(V::as_f64);
    match m.get(exclusive).map(V::kind) {
        // JSON Schema 2020-12 / 3.1: a number.
        Some(Kind::Number(n)) => {
            let e = n.as_f64();
            match inclusive {
                Some(i) if plain == "maximum" && i < e => Some((i, false)),
                Some(i) if plain == "minimum" && i > e => Some((i, false)),
                _ => Some((e, true)),
            }
        }
        // Draft 4 / OpenAPI 3.0: a boolean modifying the plain bound.
        Some(Kind::Bool(b)) => inclusive.map(|i| (i, b)),
        _ => inclusive.map(|i| (i, false)),
    }
}

fn fmt_bound(b: Option<(f64, bool)>) -> String {
    match b {
        None => "none".into(),
        Some((v, true)) => format!("{v} (exclusive)"),
        Some((v, false)) => format!("{v}"),
    }
}

/// The allowed values (enum ∪ const), if restricted.
fn allowed(m: Obj<'_>) -> Option<Vec<V<'_>>> {
    let mut out: Option<Vec<V<'_>>> = None;
    if let Some(vs) = m.get("enum").and_then(V::as_array) {
        out = Some(vs.iter().collect());
    }
    if let Some(c) = m.get("const") {
        out.get_or_insert_with(Vec::new).push(c);
    }
    out
}

impl<'a> Context<'a> {
    /// Content-only keywords (description, title, examples) and deprecation.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn annotations(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        let (previous, current) = (pair.previous, pair.current);
        for (key, check) in [
            ("description", SchemaCheck::DescriptionChanged),
            ("title", SchemaCheck::TitleChanged),
        ] {
            let (a, b) = (previous.get(key), current.get(key));
            if a != b {
                let values = (a.map(V::to_value), b.map(V::to_value));
                self.changed(pair, crumbs, check, format!("{key} changed"), values);
            }
        }
        if previous.get("example") != current.get("example")
            || previous.get("examples") != current.get("examples")
        {
            let values = (
                (previous.get("example").or(previous.get("examples"))).map(V::to_value),
                (current.get("example").or(current.get("examples"))).map(V::to_value),
            );
            let message = "example changed".into();
            self.changed(pair, crumbs, SchemaCheck::ExampleChanged, message, values);
        }
        if !is_true(previous, "deprecated") && is_true(current, "deprecated") {
            let values = (Some(false.into()), Some(true.into()));
            let check = SchemaCheck::PropertyDeprecated;
            self.changed(pair, crumbs, check, "deprecated".into(), values);
        }
    }

    /// Types (widened, narrowed or changed) and nullability.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn types(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        let (previous, current) = (type_facts(pair.previous), type_facts(pair.current));
        if !previous.set.is_empty() && !current.set.is_empty() && previous.set != current.set {
            let check = if covers(&current.set, &previous.set) {
                SchemaCheck::TypeGeneralized
            } else if covers(&previous.set, &current.set) {
                SchemaCheck::TypeNarrowed
            } else {
                SchemaCheck::TypeChanged
            };
            let message = format!(
                "type changed from `{}` to `{}`",
                join(&previous.set),
                join(&current.set)
            );
            let values = (Some(json!(previous.set)), Some(json!(current.set)));
            self.changed(pair, crumbs, check, message, values);
        }
        if previous.nullable != current.nullable {
            let (check, message) = if current.nullable {
                (SchemaCheck::BecameNullable, "became nullable")
            } else {
                (SchemaCheck::BecameNotNullable, "is no longer nullable")
            };
            let values = (
                Some(previous.nullable.into()),
                Some(current.nullable.into()),
            );
            self.changed(pair, crumbs, check, message.into(), values);
        }
    }

    /// A [`SetUnset`] keyword set, removed or changed.
    // Three calls, each with a constant row: inlined (a call each cost 0.4% of a diff).
    #[inline(always)]
    pub(super) fn set_unset(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb], row: &SetUnset) {
        let key = row.key;
        let read = (
            Scalar::read(pair.previous, row),
            Scalar::read(pair.current, row),
        );
        let (check, message, values) = match read {
            (Some(a), Some(b)) if a != b => (
                row.changed,
                format!("{key} changed from {} to {}", a.show(), b.show()),
                (Some(a.value()), Some(b.value())),
            ),
            (None, Some(b)) => (
                row.set,
                format!("{key} {} was set", b.show()),
                (None, Some(b.value())),
            ),
            (Some(a), None) => (
                row.unset,
                format!("{key} {} was removed", a.show()),
                (Some(a.value()), None),
            ),
            _ => return,
        };
        self.changed(pair, crumbs, check, message, values);
    }

    /// `enum` and `const`: values allowed added or removed, a restriction set or lifted.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn allowed_values(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        match (allowed(pair.previous), allowed(pair.current)) {
            (Some(a), Some(b)) => {
                let (added, removed) = (not_in(&b, &a), not_in(&a, &b));
                if !added.is_empty() {
                    let message = format!("enum values added: {}", names(&added));
                    let values = (None, Some(json!(added)));
                    self.changed(pair, crumbs, SchemaCheck::EnumValueAdded, message, values);
                }
                if !removed.is_empty() {
                    let message = format!("enum values removed: {}", names(&removed));
                    let values = (Some(json!(removed)), None);
                    self.changed(pair, crumbs, SchemaCheck::EnumValueRemoved, message, values);
                }
            }
            (None, Some(b)) => {
                let message = format!("values restricted to: {}", names(&b));
                let values = (None, Some(json!(b)));
                self.changed(pair, crumbs, SchemaCheck::EnumSet, message, values);
            }
            (Some(a), None) => {
                let message = "values are no longer restricted".into();
                let values = (Some(json!(a)), None);
                self.changed(pair, crumbs, SchemaCheck::EnumUnset, message, values);
            }
            (None, None) => {}
        }
    }

    /// Numeric bounds ([`BOUNDS`]), maximum lengths and counts ([`MAXIMUMS`]), minimum ones
    /// ([`MINIMUMS`]).
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn bounds(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        let (previous, current) = (pair.previous, pair.current);
        for row in &BOUNDS {
            let (pb, cb) = (
                bound(previous, row.key, row.exclusive),
                bound(current, row.key, row.exclusive),
            );
            if pb == cb {
                continue;
            }
            let check = match (pb, cb) {
                (None, Some(_)) => row.set,
                (Some(_), None) => row.unset,
                (Some((a, ae)), Some((b, be))) => {
                    let moved_in = if row.upper { b < a } else { b > a };
                    if moved_in || (b == a && be && !ae) {
                        row.tighter
                    } else {
                        row.looser
                    }
                }
                (None, None) => row.looser,
            };
            let message = format!(
                "{} changed from {} to {}",
                row.key,
                fmt_bound(pb),
                fmt_bound(cb)
            );
            let values = (pb.map(|b| json!(b.0)), cb.map(|b| json!(b.0)));
            self.changed(pair, crumbs, check, message, values);
        }
        for row in &MAXIMUMS {
            let (a, b) = (
                previous.get(row.key).and_then(V::as_f64),
                current.get(row.key).and_then(V::as_f64),
            );
            let check = match (a, b) {
                (Some(a), Some(b)) if b < a => row.decreased,
                (Some(a), Some(b)) if b > a => row.increased,
                (None, Some(_)) => row.set,
                (Some(_), None) => row.unset,
                _ => continue,
            };
            let show = |v: Option<f64>| v.map_or("none".into(), |v| v.to_string());
            let message = format!("{} changed from {} to {}", row.key, show(a), show(b));
            let values = (a.map(|v| json!(v)), b.map(|v| json!(v)));
            self.changed(pair, crumbs, check, message, values);
        }
        for row in &MINIMUMS {
            let a = previous.get(row.key).and_then(V::as_f64).unwrap_or(0.0);
            let b = current.get(row.key).and_then(V::as_f64).unwrap_or(0.0);
            if a != b {
                let check = if b > a { row.increased } else { row.decreased };
                let message = format!("{} changed from {a} to {b}", row.key);
                self.changed(
                    pair,
                    crumbs,
                    check,
                    message,
                    (Some(json!(a)), Some(json!(b))),
                );
            }
        }
    }

    /// Pattern, multipleOf, uniqueItems, default, discriminator, content encoding.
    // Called once, from `compare`: inlined there.
    #[inline]
    pub(super) fn value_constraints(&mut self, pair: &Pair<'_, 'a>, crumbs: &[Crumb]) {
        let (previous, current) = (pair.previous, pair.current);
        self.set_unset(pair, crumbs, &PATTERN);
        self.set_unset(pair, crumbs, &MULTIPLE_OF);
        let unique = (
            is_true(previous, "uniqueItems"),
            is_true(current, "uniqueItems"),
        );
        if unique.0 != unique.1 {
            let check = if unique.1 {
                SchemaCheck::UniqueItemsSet
            } else {
                SchemaCheck::UniqueItemsUnset
            };
            let values = (Some(unique.0.into()), Some(unique.1.into()));
            self.changed(pair, crumbs, check, "uniqueItems changed".into(), values);
        }
        let (a, b) = (previous.get("default"), current.get("default"));
        if a != b {
            let message = format!(
                "default changed from {} to {}",
                a.map_or("none".into(), short),
                b.map_or("none".into(), short)
            );
            let values = (a.map(V::to_value), b.map(V::to_value));
            self.changed(pair, crumbs, SchemaCheck::DefaultChanged, message, values);
        }
        if let (Some(a), Some(b)) = (previous.get("discriminator"), current.get("discriminator"))
            && discriminator_changed(a, b)
        {
            let message = "discriminator property or mapping changed".into();
            let values = (Some(a.to_value()), Some(b.to_value()));
            self.changed(
                pair,
                crumbs,
                SchemaCheck::DiscriminatorChanged,
                message,
                values,
            );
        }
        for key in ["contentMediaType", "contentEncoding"] {
            let (a, b) = (previous.get(key), current.get(key));
            if a != b {
                let values = (a.map(V::to_value), b.map(V::to_value));
                let check = SchemaCheck::ContentMediaTypeChanged;
                self.changed(pair, crumbs, check, format!("{key} changed"), values);
            }
        }
    }
}

/// A discriminator whose property changed or whose mapping lost an entry.
fn discriminator_changed(previous: V<'_>, current: V<'_>) -> bool {
    let mapping_removed = previous
        .get("mapping")
        .and_then(V::as_object)
        .map(|before| {
            let after = current.get("mapping").and_then(V::as_object);
            before
                .keys()
                .any(|k| after.is_none_or(|after| !after.contains_key(k)))
        })
        .unwrap_or(false);
    previous.get("propertyName") != current.get("propertyName") || mapping_removed
}
