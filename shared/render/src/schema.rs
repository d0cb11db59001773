//! Schemas as expandable trees, read in place from the document (`$ref`s followed on demand),
//! and examples (the document's own, else generated from the schema), all within budgets.

use std::collections::HashSet;

use serde_json::{Map as JsonMap, Value};
use specpress_spec::{Document, Kind, Location, V};

use crate::html::{Html, Out};
use crate::markdown;
use crate::site::Site;

/// Deepest nesting of a tree shown on a page; deeper levels link to schema pages.
pub(crate) const MAX_TREE_DEPTH: usize = 8;
/// Property rows on one page (every tree together). Past it, rows become "see ..." links.
pub(crate) const MAX_PAGE_ROWS: usize = 800;
/// Properties read for one schema: a page shows at most 1,600 rows anyway, and reading a
/// schema of a million properties again for each use would cost more than the page.
const MAX_PROPERTIES: usize = 2000;
/// `allOf` members followed to flatten one schema (nested `allOf`s included).
const MAX_ALLOF: usize = 64;
/// Enum values listed for one schema.
const MAX_ENUM: usize = 60;
/// Bytes of one example shown; longer ones are cut with a note.
pub(crate) const MAX_EXAMPLE_BYTES: usize = 8 * 1024;
/// Values in a generated example.
const MAX_GENERATED_NODES: usize = 250;

/// Which side of an exchange a schema is read for: `readOnly` properties are left out of
/// requests, `writeOnly` ones out of responses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Mode {
    Request,
    Response,
    Neutral,
}

/// The per-page state of the schema renderer.
pub(crate) struct Ctx<'a> {
    pub doc: &'a Document,
    pub site: &'a Site,
    pub base: &'a str,
    rows: usize,
    max_rows: usize,
    /// Named schemas already expanded on this page (in a mode): later uses link instead.
    expanded: HashSet<(u32, Mode)>,
    /// Descriptions rendered on this page (schemas repeat the same ones many times).
    markdown: std::collections::HashMap<&'a str, Html>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(doc: &'a Document, site: &'a Site, base: &'a str) -> Ctx<'a> {
        Ctx {
            doc,
            site,
            base,
            rows: 0,
            max_rows: MAX_PAGE_ROWS,
            expanded: HashSet::new(),
            markdown: std::collections::HashMap::new(),
        }
    }

    /// A description of a schema row, rendered once per page.
    fn description(&mut self, text: &'a str, out: &mut Out) {
        out.raw("<div class=\"md\">");
        match self.markdown.get(text) {
            Some(h) => {
                out.html(h);
            }
            None => {
                let h = markdown::render(text, 6, markdown::MAX_MARKDOWN_BYTES);
                out.html(&h);
                self.markdown.insert(text, h);
            }
        }
        out.raw("</div>");
    }

    /// True when the page's row budget is spent.
    pub(crate) fn exhausted(&self) -> bool {
        self.rows >= self.max_rows
    }
}

/// One property of a flattened object.
struct Prop<'a> {
    name: &'a str,
    loc: Location,
    required: bool,
}

/// A schema with its `$ref`s followed and its `allOf` members merged.
#[derive(Default)]
pub(crate) struct Flat<'a> {
    /// Where the schema is (after following the first `$ref`s).
    pub loc: Option<Location>,
    /// The named (component) schema it is, if it is one.
    pub named: Option<u32>,
    types: Vec<&'a str>,
    pub nullable: bool,
    format: Option<&'a str>,
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    pub deprecated: bool,
    read_only: bool,
    write_only: bool,
    props: Vec<Prop<'a>>,
    required: Vec<&'a str>,
    items: Option<Location>,
    tuple: Vec<Location>,
    additional: Option<Location>,
    closed: bool,
    pattern_props: Vec<(&'a str, Location)>,
    one_of: Vec<Location>,
    any_of: Vec<Location>,
    discriminator: Option<V<'a>>,
    not: Option<Location>,
    /// Every merged schema object, own first: constraints and examples are read from them.
    facets: Vec<V<'a>>,
    /// A `$ref` could not be followed (or the schema is not an object).
    pub broken: bool,
}

impl<'a> Flat<'a> {
    /// The merged properties: name, location, required (for the search index and the Markdown pages).
    pub(crate) fn properties(&self) -> impl Iterator<Item = (&'a str, &Location, bool)> + '_ {
        self.props.iter().map(|p| (p.name, &p.loc, p.required))
    }

    /// The item schema of an array (the first tuple member for tuples).
    pub(crate) fn item_schema(&self) -> Option<&Location> {
        self.items.as_ref().or(self.tuple.first())
    }

    /// The types written (`null` folded into [`Flat::nullable`]).
    pub(crate) fn type_names(&self) -> &[&'a str] {
        &self.types
    }

    /// `format`, if any.
    pub(crate) fn format_name(&self) -> Option<&'a str> {
        self.format
    }

    /// The `enum` values, if any.
    pub(crate) fn enum_values(&self) -> Option<V<'a>> {
        self.facet("enum")
    }

    fn facet(&self, key: &str) -> Option<V<'a>> {
        self.facets.iter().find_map(|v| v.get(key))
    }

    fn has_children(&self) -> bool {
        !self.props.is_empty()
            || self.additional.is_some()
            || !self.pattern_props.is_empty()
            || !self.one_of.is_empty()
            || !self.any_of.is_empty()
            || !self.tuple.is_empty()
    }

    fn is_array(&self) -> bool {
        self.types.contains(&"array") || (self.types.is_empty() && self.items.is_some())
    }
}

/// Reads the schema at `loc`: follows `$ref`s, merges `allOf` members, and folds a `null`
/// alternative of `oneOf`/`anyOf` into `nullable`.
pub(crate) fn flatten<'a>(ctx: &Ctx<'a>, loc: &Location) -> Flat<'a> {
    let mut flat = Flat::default();
    let mut seen: Vec<Location> = Vec::new();
    let Ok((rloc, _)) = ctx.doc.resolve(loc) else {
        flat.broken = true;
        return flat;
    };
    flat.named = ctx.site.schema_index(&rloc);
    flat.loc = Some(rloc.clone());
    gather(ctx, &rloc, &mut flat, 0, &mut seen);
    // `anyOf: [X, {type: null}]` (and oneOf): X, nullable.
    for alts in [&mut flat.one_of, &mut flat.any_of] {
        let before = alts.len();
        alts.retain(|l| !is_null_schema(ctx.doc, l));
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
        && let Ok((oloc, _)) = ctx.doc.resolve(&only)
    {
        if flat.props.is_empty() && flat.types.is_empty() && flat.named.is_none() {
            flat.named = ctx.site.schema_index(&oloc);
        }
        gather(ctx, &oloc, &mut flat, 1, &mut seen);
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
    ctx: &Ctx<'a>,
    at: &Location,
    flat: &mut Flat<'a>,
    depth: usize,
    seen: &mut Vec<Location>,
) {
    if seen.len() >= MAX_ALLOF || seen.contains(at) {
        return;
    }
    seen.push(at.clone());
    let doc: &'a Document = ctx.doc;
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
                gather(ctx, &mloc, flat, depth + 1, seen);
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

/// The type label of a schema, e.g. `string (date-time)`, `array of Pet`, `integer | string`.
/// With `links` false (inside a `<summary>`, which must hold no link), schema names are text.
pub(crate) fn type_label(ctx: &Ctx<'_>, flat: &Flat<'_>, out: &mut Out, depth: usize, links: bool) {
    if let Some(i) = flat.named
        && !flat.is_array()
    {
        if links {
            schema_link(ctx, i, out);
        } else {
            out.raw("<span class=\"sn\">")
                .text(ctx.site.schema_page(i).1)
                .raw("</span>");
        }
        let kind = if flat.types.is_empty() {
            if !flat.props.is_empty() {
                Some("object")
            } else {
                None
            }
        } else {
            flat.types.first().copied()
        };
        if let Some(k) = kind {
            out.raw(" <span class=\"tk\">").text(k).raw("</span>");
        }
        return;
    }
    if flat.is_array() {
        out.raw("array");
        if let Some(items) = &flat.items
            && depth < 3
        {
            let inner = flatten(ctx, items);
            out.raw(" of ");
            if inner.named.is_none() && inner.types == ["object"]
                || (inner.types.is_empty() && !inner.props.is_empty() && inner.named.is_none())
            {
                out.raw("objects");
            } else {
                type_label(ctx, &inner, out, depth + 1, links);
            }
        }
        return;
    }
    if flat.types.is_empty() {
        out.raw(if !flat.props.is_empty() || flat.additional.is_some() {
            "object"
        } else if !flat.one_of.is_empty() {
            "one of"
        } else if !flat.any_of.is_empty() {
            "any of"
        } else {
            "any"
        });
    } else {
        for (i, t) in flat.types.iter().enumerate() {
            if i > 0 {
                out.raw(" | ");
            }
            out.text(t);
        }
    }
    if let Some(f) = flat.format {
        out.raw(" <span class=\"tf\">(").text(f).raw(")</span>");
    }
}

pub(crate) fn schema_link(ctx: &Ctx<'_>, i: u32, out: &mut Out) {
    let (path, name) = ctx.site.schema_page(i);
    out.link_open(ctx.base, path).text(name).raw("</a>");
}

/// A value shown inline (enum values, defaults): compact JSON, cut at 200 bytes.
pub(crate) fn inline_value(v: V<'_>, out: &mut Out) {
    let mut s = String::new();
    let _ = write_json(v, &mut s, None, 0, 200);
    out.raw("<code>").text(&s).raw("</code>");
}

/// The constraints, enum, default and example of a schema, as one line of chips.
fn constraints(flat: &Flat<'_>, out: &mut Out) {
    let mut any = false;
    let mut chip = |out: &mut Out| {
        if !any {
            out.raw("<p class=\"pc\">");
            any = true;
        }
    };
    let num = |k: &str| flat.facet(k).filter(|v| v.is_number());
    let emit = |out: &mut Out, label: &str, v: V<'_>| {
        out.raw("<span class=\"c\">").raw(label);
        inline_value(v, out);
        out.raw("</span> ");
    };
    for (key, label) in [
        ("minimum", "≥ "),
        ("maximum", "≤ "),
        ("multipleOf", "multiple of "),
        ("minLength", "min length "),
        ("maxLength", "max length "),
        ("minItems", "min items "),
        ("maxItems", "max items "),
        ("minProperties", "min properties "),
        ("maxProperties", "max properties "),
    ] {
        if let Some(v) = num(key) {
            let label = match (
                key,
                flat.facet("exclusiveMinimum"),
                flat.facet("exclusiveMaximum"),
            ) {
                ("minimum", Some(e), _) if e.as_bool() == Some(true) => "> ",
                ("maximum", _, Some(e)) if e.as_bool() == Some(true) => "< ",
                _ => label,
            };
            chip(out);
            emit(out, label, v);
        }
    }
    // 2020-12: exclusive bounds are numbers.
    if let Some(v) = num("exclusiveMinimum") {
        chip(out);
        emit(out, "> ", v);
    }
    if let Some(v) = num("exclusiveMaximum") {
        chip(out);
        emit(out, "< ", v);
    }
    if let Some(p) = flat.facet("pattern").and_then(V::as_str) {
        chip(out);
        out.raw("<span class=\"c\">pattern <code>")
            .text(p)
            .raw("</code></span> ");
    }
    if flat.facet("uniqueItems").and_then(V::as_bool) == Some(true) {
        chip(out);
        out.raw("<span class=\"c\">unique items</span> ");
    }
    for key in ["contentMediaType", "contentEncoding"] {
        if let Some(s) = flat.facet(key).and_then(V::as_str) {
            chip(out);
            out.raw("<span class=\"c\">")
                .text(key)
                .raw(" <code>")
                .text(s)
                .raw("</code></span> ");
        }
    }
    if flat.closed {
        chip(out);
        out.raw("<span class=\"c\">no other properties</span> ");
    }
    if let Some(c) = flat.facet("const") {
        chip(out);
        emit(out, "always ", c);
    }
    if let Some(d) = flat.facet("default") {
        chip(out);
        emit(out, "default ", d);
    }
    if let Some(e) = flat.facet("enum").and_then(V::as_array) {
        chip(out);
        out.raw("<span class=\"c\">one of ");
        for (i, v) in e.iter().take(MAX_ENUM).enumerate() {
            if i > 0 {
                out.raw(", ");
            }
            inline_value(v, out);
        }
        if e.len() > MAX_ENUM {
            out.raw(" and ").num(e.len() - MAX_ENUM).raw(" more");
        }
        out.raw("</span> ");
    }
    let example = flat.facet("example").or_else(|| {
        flat.facet("examples")
            .and_then(V::as_array)
            .and_then(|a| a.get(0))
    });
    if let Some(x) = example
        && !x.is_object()
        && !x.is_array()
    {
        chip(out);
        emit(out, "example ", x);
    }
    if any {
        out.raw("</p>");
    }
}

fn badges(flat: &Flat<'_>, required: bool, out: &mut Out) {
    if required {
        out.raw(" <span class=\"b rq\">required</span>");
    }
    if flat.nullable {
        out.raw(" <span class=\"b\">nullable</span>");
    }
    if flat.read_only {
        out.raw(" <span class=\"b\">read-only</span>");
    }
    if flat.write_only {
        out.raw(" <span class=\"b\">write-only</span>");
    }
    if flat.deprecated {
        out.raw(" <span class=\"b dp\">deprecated</span>");
    }
}

/// The whole tree of the schema at `loc`, read for `mode`.
pub(crate) fn tree<'a>(ctx: &mut Ctx<'a>, loc: &Location, mode: Mode) -> Html {
    let mut out = Out::new();
    let flat = flatten(ctx, loc);
    out.raw("<div class=\"schema\"><p class=\"st\">");
    type_label(ctx, &flat, &mut out, 0, true);
    badges(&flat, false, &mut out);
    out.raw("</p>");
    if let Some(d) = flat.description {
        out.raw("<div class=\"md\">")
            .html(&markdown::render(d, 5, markdown::MAX_MARKDOWN_BYTES))
            .raw("</div>");
    }
    constraints(&flat, &mut out);
    let mut stack: Vec<Location> = flat.loc.iter().cloned().collect();
    if let Some(i) = flat.named {
        ctx.expanded.insert((i, mode));
    }
    children(ctx, &flat, mode, 0, &mut stack, &mut out);
    out.raw("</div>");
    out.finish()
}

/// The rows under a schema: its properties, additional and pattern properties, tuple items,
/// alternatives, or those of its array items.
fn children<'a>(
    ctx: &mut Ctx<'a>,
    flat: &Flat<'a>,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) {
    if flat.is_array() && !flat.has_children() {
        if let Some(items) = &flat.items {
            let inner = flatten(ctx, items);
            if inner.has_children() && !inner.loc.as_ref().is_some_and(|l| stack.contains(l)) {
                if let Some(l) = &inner.loc {
                    stack.push(l.clone());
                }
                if let Some(i) = inner.named {
                    ctx.expanded.insert((i, mode));
                }
                children(ctx, &inner, mode, depth, stack, out);
                if inner.loc.is_some() {
                    stack.pop();
                }
            }
        }
        return;
    }
    if !flat.has_children() {
        return;
    }
    out.raw("<ul class=\"ps\">");
    for p in &flat.props {
        if !row(
            ctx,
            Name::Code(p.name),
            &p.loc,
            p.required,
            mode,
            depth,
            stack,
            out,
        ) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    for (i, l) in flat.tuple.iter().enumerate() {
        let label = format!("item {i}");
        if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    for (pattern, l) in &flat.pattern_props {
        let label = format!("names matching {pattern}");
        if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
            more(ctx, flat, out);
            out.raw("</ul>");
            return;
        }
    }
    if let Some(a) = &flat.additional
        && !row(
            ctx,
            Name::Label("any other property name"),
            a,
            false,
            mode,
            depth,
            stack,
            out,
        )
    {
        more(ctx, flat, out);
        out.raw("</ul>");
        return;
    }
    for (word, alts) in [("One of", &flat.one_of), ("Any of", &flat.any_of)] {
        if alts.is_empty() {
            continue;
        }
        out.raw("<li class=\"alts\"><p class=\"ah\">").raw(word);
        discriminator(flat, out);
        out.raw(":</p><ul class=\"ps\">");
        for (i, l) in alts.iter().enumerate() {
            let label = alternative_label(ctx, l, i);
            if !row(ctx, Name::Label(&label), l, false, mode, depth, stack, out) {
                more(ctx, flat, out);
                out.raw("</ul></li></ul>");
                return;
            }
        }
        out.raw("</ul></li>");
    }
    out.raw("</ul>");
}

fn discriminator(flat: &Flat<'_>, out: &mut Out) {
    let Some(d) = flat.discriminator else { return };
    if let Some(name) = d.get("propertyName").and_then(V::as_str) {
        out.raw(" (told apart by <code>").text(name).raw("</code>");
        if let Some(m) = d.get("mapping").and_then(V::as_object)
            && !m.is_empty()
        {
            out.raw(": ");
            for (i, (k, v)) in m.iter().take(MAX_ENUM).enumerate() {
                if i > 0 {
                    out.raw(", ");
                }
                out.raw("<code>").text(k).raw("</code> → ");
                let target = v.as_str().unwrap_or("");
                out.text(target.rsplit('/').next().unwrap_or(target));
            }
        }
        out.raw(")");
    }
}

fn alternative_label(ctx: &Ctx<'_>, l: &Location, i: usize) -> String {
    let name = ctx.doc.resolve(l).ok().and_then(|(rl, v)| {
        ctx.site
            .schema_index(&rl)
            .map(|n| ctx.site.schema_page(n).1.to_string())
            .or_else(|| v.get("title").and_then(V::as_str).map(str::to_string))
    });
    match name {
        Some(n) => format!("Option {}: {n}", i + 1),
        None => format!("Option {}", i + 1),
    }
}

fn more(ctx: &Ctx<'_>, flat: &Flat<'_>, out: &mut Out) {
    out.raw("<li class=\"more\">More properties are not shown here (page size limit)");
    if let Some(i) = flat.named {
        out.raw(": see ");
        schema_link(ctx, i, out);
    }
    out.raw(".</li>");
}

enum Name<'n> {
    /// A property name (document text, shown as code).
    Code(&'n str),
    /// A label this crate wrote around document text (escaped too).
    Label(&'n str),
}

/// One row; false when the page's row budget is spent (nothing written).
#[allow(clippy::too_many_arguments)]
fn row<'a>(
    ctx: &mut Ctx<'a>,
    name: Name<'_>,
    loc: &Location,
    required: bool,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) -> bool {
    // The first level of a tree is always shown (up to twice the budget, against a schema of
    // thousands of properties); the budget cuts deeper levels.
    if (depth > 0 && ctx.exhausted()) || ctx.rows >= 2 * ctx.max_rows {
        return false;
    }
    let flat = flatten(ctx, loc);
    row_of(ctx, name, flat, required, None, mode, depth, stack, out)
}

/// A parameter or header: its own name, description and flags over its schema's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn field_row<'a>(
    ctx: &mut Ctx<'a>,
    name: &str,
    schema: Option<&Location>,
    required: bool,
    deprecated: bool,
    description: Option<&'a str>,
    extra: &Html,
    mode: Mode,
    out: &mut Out,
) {
    let mut flat = match schema {
        Some(l) => flatten(ctx, l),
        None => Flat::default(),
    };
    flat.deprecated |= deprecated;
    flat.read_only = false;
    flat.write_only = false;
    let mut stack = Vec::new();
    let before = out.len();
    row_of(
        ctx,
        Name::Code(name),
        flat,
        required,
        description,
        mode,
        0,
        &mut stack,
        out,
    );
    if !extra.is_empty() && out.s.ends_with("</li>") && out.len() > before {
        out.s.truncate(out.s.len() - "</li>".len());
        out.html(extra).raw("</li>");
    }
}

#[allow(clippy::too_many_arguments)]
fn row_of<'a>(
    ctx: &mut Ctx<'a>,
    name: Name<'_>,
    flat: Flat<'a>,
    required: bool,
    description: Option<&'a str>,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    out: &mut Out,
) -> bool {
    if (mode == Mode::Request && flat.read_only) || (mode == Mode::Response && flat.write_only) {
        return true;
    }
    ctx.rows += 1;
    let recursive = flat.loc.as_ref().is_some_and(|l| stack.contains(l));
    let expandable = flat.has_children()
        || (flat.is_array()
            && flat
                .items
                .as_ref()
                .is_some_and(|i| flatten(ctx, i).has_children()));
    let already = flat
        .named
        .is_some_and(|i| ctx.expanded.contains(&(i, mode)));
    let open = expandable && !recursive && !already && depth + 1 < MAX_TREE_DEPTH;
    out.raw("<li class=\"p\">");
    if open {
        out.raw("<details><summary>");
    } else {
        out.raw("<div class=\"ph\">");
    }
    match name {
        Name::Code(n) => {
            out.raw("<code class=\"pn\">").text(n).raw("</code>");
        }
        Name::Label(l) => {
            out.raw("<span class=\"pl\">").text(l).raw("</span>");
        }
    }
    out.raw(" <span class=\"pt\">");
    type_label(ctx, &flat, out, 0, !open);
    out.raw("</span>");
    badges(&flat, required, out);
    if open {
        out.raw("</summary>");
        let named = flat.named.or_else(|| {
            flat.items
                .as_ref()
                .filter(|_| flat.is_array())
                .and_then(|i| flatten(ctx, i).named)
        });
        if let Some(i) = named {
            out.raw("<p class=\"sl\">Schema ");
            schema_link(ctx, i, out);
            out.raw("</p>");
        }
    } else {
        out.raw("</div>");
    }
    if let Some(d) = description.or(flat.description) {
        ctx.description(d, out);
    }
    constraints(&flat, out);
    if expandable && !open {
        out.raw("<p class=\"cut\">");
        if recursive {
            out.raw("Recursive");
        } else if already {
            out.raw("Shown above on this page");
        } else {
            out.raw("Nested deeper than this page shows");
        }
        match flat
            .named
            .or_else(|| flat.items.as_ref().and_then(|i| flatten(ctx, i).named))
        {
            Some(i) => {
                out.raw(": see ");
                schema_link(ctx, i, out);
                out.raw(".");
            }
            None => {
                out.raw(".");
            }
        }
        out.raw("</p>");
    }
    if open {
        if let Some(i) = flat.named {
            ctx.expanded.insert((i, mode));
        }
        let pushed = flat.loc.clone();
        if let Some(l) = &pushed {
            stack.push(l.clone());
        }
        children(ctx, &flat, mode, depth + 1, stack, out);
        if pushed.is_some() {
            stack.pop();
        }
        out.raw("</details>");
    }
    out.raw("</li>");
    true
}

// ------------------------------------------------------------------------------------ JSON

/// Writes `v` as JSON (pretty with `indent`, else compact) into `out`, stopping after `max`
/// bytes. Returns false when it was cut.
pub(crate) fn write_json(
    v: V<'_>,
    out: &mut String,
    indent: Option<usize>,
    level: usize,
    max: usize,
) -> bool {
    if out.len() > max {
        return false;
    }
    let nl = |out: &mut String, level: usize| {
        if let Some(n) = indent {
            out.push('\n');
            for _ in 0..n * level {
                out.push(' ');
            }
        }
    };
    match v.kind() {
        Kind::Null => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::Number(n) => out.push_str(&n.to_string()),
        Kind::String(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Kind::Array(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return true;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                if !write_json(x, out, indent, level + 1, max) {
                    return false;
                }
            }
            nl(out, level);
            out.push(']');
        }
        Kind::Object(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return true;
            }
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(if indent.is_some() { ": " } else { ":" });
                if !write_json(x, out, indent, level + 1, max) {
                    return false;
                }
            }
            nl(out, level);
            out.push('}');
        }
    }
    out.len() <= max
}

/// An example value as a `<pre>` block, cut at [`MAX_EXAMPLE_BYTES`]. Strings are shown as they
/// are (an XML or text example is a string).
pub(crate) fn example_block(v: V<'_>, out: &mut Out) {
    let mut s = String::new();
    let complete = match v.as_str() {
        Some(text) => {
            let (t, cut) = crate::html::truncate(text, MAX_EXAMPLE_BYTES);
            s.push_str(t);
            !cut
        }
        None => write_json(v, &mut s, Some(2), 0, MAX_EXAMPLE_BYTES),
    };
    code_block(&s, "json", !complete, out);
}

/// A code block the optional script gives a copy button.
pub(crate) fn code_block(text: &str, lang: &str, cut: bool, out: &mut Out) {
    out.raw("<pre class=\"code\" data-lang=\"")
        .attr(lang)
        .raw("\"><code>")
        .text(text);
    if cut {
        out.raw("\n… (cut: the full example is in the document)");
    }
    out.raw("</code></pre>");
}

// ------------------------------------------------------------------------- Generated examples

/// Whether the schema at `loc` carries its own example (`example`, or a non-empty `examples` list), which
/// [`generate`] then gives as it is rather than building one.
pub(crate) fn has_own_example(ctx: &Ctx<'_>, loc: &Location) -> bool {
    let flat = flatten(ctx, loc);
    flat.facet("example").is_some()
        || flat
            .facet("examples")
            .and_then(V::as_array)
            .is_some_and(|a| a.get(0).is_some())
}

/// An example generated from the schema at `loc` (bounded in size and depth).
pub(crate) fn generate(ctx: &Ctx<'_>, loc: &Location, mode: Mode) -> Value {
    let mut budget = MAX_GENERATED_NODES;
    let mut stack = Vec::new();
    gen_value(ctx, loc, mode, 0, &mut stack, &mut budget).unwrap_or(Value::Null)
}

fn gen_value(
    ctx: &Ctx<'_>,
    loc: &Location,
    mode: Mode,
    depth: usize,
    stack: &mut Vec<Location>,
    budget: &mut usize,
) -> Option<Value> {
    if *budget == 0 || depth > MAX_TREE_DEPTH {
        return None;
    }
    *budget -= 1;
    let flat = flatten(ctx, loc);
    if flat.loc.as_ref().is_some_and(|l| stack.contains(l)) {
        return None;
    }
    for key in ["example", "const", "default"] {
        if let Some(v) = flat.facet(key) {
            return Some(bounded_value(v, budget));
        }
    }
    if let Some(v) = flat
        .facet("examples")
        .and_then(V::as_array)
        .and_then(|a| a.get(0))
        .or_else(|| {
            flat.facet("enum")
                .and_then(V::as_array)
                .and_then(|a| a.get(0))
        })
    {
        return Some(bounded_value(v, budget));
    }
    let pushed = flat.loc.clone();
    if let Some(l) = &pushed {
        stack.push(l.clone());
    }
    let out = if flat.is_array() {
        let mut items = Vec::new();
        if let Some(i) = &flat.items
            && let Some(v) = gen_value(ctx, i, mode, depth + 1, stack, budget)
        {
            items.push(v);
        }
        Some(Value::Array(items))
    } else if !flat.props.is_empty() || flat.types.contains(&"object") {
        let mut m = JsonMap::new();
        for p in &flat.props {
            let pf = flatten(ctx, &p.loc);
            if (mode == Mode::Request && pf.read_only) || (mode == Mode::Response && pf.write_only)
            {
                continue;
            }
            if let Some(v) = gen_value(ctx, &p.loc, mode, depth + 1, stack, budget) {
                m.insert(p.name.to_string(), v);
            }
            if *budget == 0 {
                break;
            }
        }
        Some(Value::Object(m))
    } else if let Some(first) = flat.one_of.first().or_else(|| flat.any_of.first()) {
        gen_value(ctx, first, mode, depth + 1, stack, budget)
    } else {
        Some(scalar_example(&flat))
    };
    if pushed.is_some() {
        stack.pop();
    }
    out
}

fn scalar_example(flat: &Flat<'_>) -> Value {
    let t = flat.types.first().copied().unwrap_or("string");
    match t {
        "integer" => flat
            .facet("minimum")
            .and_then(V::as_i64)
            .map_or(Value::from(0), Value::from),
        "number" => flat
            .facet("minimum")
            .and_then(V::as_f64)
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::from(0.0), Value::Number),
        "boolean" => Value::Bool(true),
        "null" | "never" => Value::Null,
        _ => Value::String(
            match flat.format {
                Some("date-time") => "2024-01-01T12:00:00Z",
                Some("date") => "2024-01-01",
                Some("time") => "12:00:00Z",
                Some("email") => "user@example.com",
                Some("uri" | "url" | "uri-reference") => "https://example.com",
                Some("uuid") => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                Some("ipv4") => "192.0.2.1",
                Some("ipv6") => "2001:db8::1",
                Some("hostname") => "example.com",
                Some("byte") => "U3BlY3ByZXNz",
                Some("binary") => "<binary>",
                _ => "string",
            }
            .to_string(),
        ),
    }
}

/// A copy of `v` that stops after the remaining budget of values.
fn bounded_value(v: V<'_>, budget: &mut usize) -> Value {
    if *budget == 0 {
        return Value::Null;
    }
    *budget -= 1;
    match v.kind() {
        Kind::Array(a) => {
            let mut out = Vec::new();
            for x in a.iter() {
                if *budget == 0 {
                    break;
                }
                out.push(bounded_value(x, budget));
            }
            Value::Array(out)
        }
        Kind::Object(m) => {
            let mut out = JsonMap::new();
            for (k, x) in m.iter() {
                if *budget == 0 {
                    break;
                }
                out.insert(k.to_string(), bounded_value(x, budget));
            }
            Value::Object(out)
        }
        _ => v.to_value(),
    }
}
