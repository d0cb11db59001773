//! Reading a schema: its `$ref`s followed, its `allOf` members merged and a `null` alternative
//! folded into `nullable`, as one [`Flat`] view the trees, examples, search and Markdown read.

use specpress_apispec::{Document, Kind, Location, V};

use super::{MAX_ALLOF, MAX_PROPERTIES, MAX_TREE_DEPTH};

/// One property of a flattened object.
#[derive(Debug, Clone)]
pub struct Prop<'a> {
    pub name: &'a str,
    pub loc: Location,
    pub required: bool,
}

/// A schema with its `$ref`s followed and its `allOf` members merged.
#[derive(Default)]
pub struct Flat<'a> {
    /// Where the schema is (after following the first `$ref`s).
    pub loc: Option<Location>,
    /// The named (component) schema it is, if it is one: what the caller's index of named schemas
    /// says of its location (see [`flatten_named`]; always `None` from [`flatten`]).
    pub named: Option<u32>,
    pub types: Vec<&'a str>,
    pub nullable: bool,
    pub format: Option<&'a str>,
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    pub deprecated: bool,
    /// Marked `x-beta: true` (Bump.sh's convention): shown as a badge.
    pub beta: bool,
    pub read_only: bool,
    pub write_only: bool,
    pub props: Vec<Prop<'a>>,
    pub required: Vec<&'a str>,
    pub items: Option<Location>,
    pub tuple: Vec<Location>,
    pub additional: Option<Location>,
    pub closed: bool,
    pub pattern_props: Vec<(&'a str, Location)>,
    pub one_of: Vec<Location>,
    pub any_of: Vec<Location>,
    pub discriminator: Option<V<'a>>,
    pub not: Option<Location>,
    /// Every merged schema object, own first: constraints and examples are read from them.
    pub facets: Vec<V<'a>>,
    /// A `$ref` could not be followed (or the schema is not an object).
    pub broken: bool,
}

impl<'a> Flat<'a> {
    /// The merged properties: name, location, required (for the search index and the Markdown pages).
    pub fn properties(&self) -> impl Iterator<Item = (&'a str, &Location, bool)> + '_ {
        self.props.iter().map(|p| (p.name, &p.loc, p.required))
    }

    /// The item schema of an array (the first tuple member for tuples).
    pub fn item_schema(&self) -> Option<&Location> {
        self.items.as_ref().or(self.tuple.first())
    }

    /// The types written (`null` folded into [`Flat::nullable`]).
    pub fn type_names(&self) -> &[&'a str] {
        &self.types
    }

    /// `format`, if any.
    pub fn format_name(&self) -> Option<&'a str> {
        self.format
    }

    /// The `enum` values, if any.
    pub fn enum_values(&self) -> Option<V<'a>> {
        self.facet("enum")
    }

    /// The first merged schema object's `key` (own first). Inline: the label and tree modules
    /// read up to twenty facets per row.
    #[inline]
    pub fn facet(&self, key: &str) -> Option<V<'a>> {
        self.facets.iter().find_map(|v| v.get(key))
    }

    #[inline]
    pub fn has_children(&self) -> bool {
        !self.props.is_empty()
            || self.additional.is_some()
            || !self.pattern_props.is_empty()
            || !self.one_of.is_empty()
            || !self.any_of.is_empty()
            || !self.tuple.is_empty()
    }

    #[inline]
    pub fn is_array(&self) -> bool {
        self.types.contains(&"array") || (self.types.is_empty() && self.items.is_some())
    }
}

/// Reads the schema at `loc`: follows `$ref`s, merges `allOf` members, and folds a `null`
/// alternative of `oneOf`/`anyOf` into `nullable`.
pub fn flatten<'a>(doc: &'a Document, loc: &Location) -> Flat<'a> {
    flatten_named(doc, loc, &|_| None)
}

/// [`flatten`], with [`Flat::named`] set from `index`, the caller's numbering of the named
/// schemas by location (the site's schema pages).
pub fn flatten_named<'a>(
    doc: &'a Document,
    loc: &Location,
    index: &dyn Fn(&Location) -> Option<u32>,
) -> Flat<'a> {
    let mut flat = Flat::default();
    let mut seen: Vec<Location> = Vec::new();
    let Ok((rloc, _)) = doc.resolve(loc) else {
        flat.broken = true;
        return flat;
    };
    flat.named = index(&rloc);
    flat.loc = Some(rloc.clone());
    gather(doc, &rloc, &mut flat, 0, &mut seen);
    // `anyOf: [X, {type: null}]` (and oneOf): X, nullable.
    for alts in [&mut flat.one_of, &mut flat.any_of] {
        let before = alts.len();
        alts.retain(|l| !is_null_schema(doc, l));
        if alts.len() != before {
            flat.nullable = true;
        }
    }
    let single = match (flat.one_of.len(), flat.any_of.len()) {
        (1, 0) => flat.one_of.pop(),
        (0, 1) => flat.any_of.pop(),
        _ => None,
    };
    if let Some(only) = single
        && let Ok((oloc, _)) = doc.resolve(&only)
    {
        if flat.props.is_empty() && flat.types.is_empty() && flat.named.is_none() {
            flat.named = index(&oloc);
        }
        gather(doc, &oloc, &mut flat, 1, &mut seen);
    }
    let required = std::mem::take(&mut flat.required);
    for p in &mut flat.props {
        p.required = required.contains(&p.name);
    }
    flat
}

fn is_null_schema(doc: &Document, loc: &Location) -> bool {
    let Ok((_, v)) = doc.resolve(loc) else {
        return false;
    };
    let Some(o) = v.as_object() else { return false };
    match o.get("type").map(V::kind) {
        Some(Kind::String("null")) => true,
        Some(Kind::Array(a)) => a.len() == 1 && a.get(0).and_then(V::as_str) == Some("null"),
        _ => o
            .get("enum")
            .and_then(V::as_array)
            .is_some_and(|a| a.len() == 1 && a.get(0).is_some_and(V::is_null)),
    }
}

fn gather<'a>(
    doc: &'a Document,
    at: &Location,
    flat: &mut Flat<'a>,
    depth: usize,
    seen: &mut Vec<Location>,
) {
    if seen.len() >= MAX_ALLOF || seen.contains(at) {
        return;
    }
    seen.push(at.clone());
    let Some(v) = doc.value(at) else {
        flat.broken = true;
        return;
    };
    let Some(o) = v.as_object() else {
        // `true`/`false` schemas (JSON Schema 2020-12) accept anything / nothing.
        if v.as_bool() == Some(false) {
            flat.types.push("never");
        }
        return;
    };
    flat.facets.push(v);
    let s = |k: &str| o.get(k).and_then(V::as_str);
    match o.get("type").map(V::kind) {
        Some(Kind::String(t)) => push_type(flat, t),
        Some(Kind::Array(a)) => {
            for t in a.iter().filter_map(V::as_str) {
                push_type(flat, t);
            }
        }
        _ => {}
    }
    flat.format = flat.format.or(s("format"));
    flat.title = flat.title.or(s("title"));
    flat.description = flat.description.or(s("description"));
    let b = |k: &str| o.get(k).and_then(V::as_bool) == Some(true);
    flat.deprecated |= b("deprecated");
    flat.beta |= b("x-beta");
    flat.read_only |= b("readOnly");
    flat.write_only |= b("writeOnly");
    flat.nullable |= b("nullable") || b("x-nullable");
    if let Some(req) = o.get("required").and_then(V::as_array) {
        flat.required.extend(req.iter().filter_map(V::as_str));
    }
    if let Some(props) = o.get("properties").and_then(V::as_object) {
        let ploc = at.child("properties");
        // Keys of one object are unique (the parsers refuse duplicates): only merged members
        // need the check.
        let fresh = flat.props.is_empty();
        for name in props
            .keys()
            .take(MAX_PROPERTIES.saturating_sub(flat.props.len()))
        {
            if fresh || !flat.props.iter().any(|p| p.name == name) {
                flat.props.push(Prop {
                    name,
                    loc: ploc.child(name),
                    required: false,
                });
            }
        }
    }
    if let Some(pp) = o.get("patternProperties").and_then(V::as_object) {
        let ploc = at.child("patternProperties");
        for name in pp.keys() {
            flat.pattern_props.push((name, ploc.child(name)));
        }
    }
    match o.get("items").map(V::kind) {
        Some(Kind::Object(_)) if flat.items.is_none() => flat.items = Some(at.child("items")),
        // Draft 4-7 tuple form.
        Some(Kind::Array(a)) if flat.tuple.is_empty() => {
            flat.tuple = (0..a.len()).map(|i| at.child("items").index(i)).collect();
        }
        _ => {}
    }
    if let Some(a) = o.get("prefixItems").and_then(V::as_array)
        && flat.tuple.is_empty()
    {
        flat.tuple = (0..a.len())
            .map(|i| at.child("prefixItems").index(i))
            .collect();
    }
    match o.get("additionalProperties").map(V::kind) {
        Some(Kind::Object(m)) if !m.is_empty() && flat.additional.is_none() => {
            flat.additional = Some(at.child("additionalProperties"));
        }
        Some(Kind::Bool(false)) => flat.closed = true,
        _ => {}
    }
    if flat.discriminator.is_none() {
        flat.discriminator = o.get("discriminator");
    }
    for (key, list) in [("oneOf", &mut flat.one_of), ("anyOf", &mut flat.any_of)] {
        if let Some(a) = o.get(key).and_then(V::as_array) {
            list.extend((0..a.len()).map(|i| at.child(key).index(i)));
        }
    }
    if o.get("not").is_some_and(V::is_object) && flat.not.is_none() {
        flat.not = Some(at.child("not"));
    }
    if let Some(all) = o.get("allOf").and_then(V::as_array)
        && depth < MAX_TREE_DEPTH
    {
        for i in 0..all.len() {
            if let Ok((mloc, _)) = doc.resolve(&at.child("allOf").index(i)) {
                gather(doc, &mloc, flat, depth + 1, seen);
            }
        }
    }
}

fn push_type<'a>(flat: &mut Flat<'a>, t: &'a str) {
    if t == "null" {
        flat.nullable = true;
    } else if !flat.types.contains(&t) {
        flat.types.push(t);
    }
}
