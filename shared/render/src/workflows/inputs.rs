//! The inputs tree of a tool: its JSON Schema as written (no `$ref` followed), in rows like the reference pages'
//! schema trees (the same classes), within the depth, row and byte budgets of the page.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{
    Budget, MAX_CODE, MAX_ENUM, MAX_NAME, MAX_PAGE_ROWS, MAX_SCHEMA_DEPTH, MAX_SHORT_DESCRIPTION,
    MAX_TREE_ROWS, MAX_VALUE, PAGE_BUDGET_BYTES, md, short,
};
use crate::html::{Html, Out, truncate};

/// The tree of a tool's inputs schema.
pub(super) fn inputs_tree(schema: &Value, budget: &mut Budget) -> Html {
    let mut t = Tree {
        out: Out::new(),
        rows: 0,
        budget: &mut *budget,
    };
    if !has_children(schema, 0) && is_plain_object(schema) {
        t.out.raw("<p>This tool takes no inputs.</p>");
    } else {
        t.out.raw("<div class=\"schema\"><p class=\"st\">");
        type_label(schema, &mut t.out, 0);
        badges(schema, false, &mut t.out);
        t.out.raw("</p>");
        if let Some(d) = str_of(schema, "description") {
            t.out
                .raw("<div class=\"md\">")
                .html(&md(d, 5, MAX_SHORT_DESCRIPTION))
                .raw("</div>");
        }
        constraints(schema, &mut t.out);
        t.children(schema, 0);
        t.out.raw("</div>");
    }
    let html = t.out.finish();
    budget.spend(html.as_str().len());
    html
}

struct Tree<'b> {
    out: Out,
    rows: usize,
    budget: &'b mut Budget,
}

enum RowName<'n> {
    /// A property name (document text, shown as code).
    Code(&'n str),
    /// A label of this crate around document text.
    Label(&'n str),
}

fn obj(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    obj(v)?.get(key)?.as_str().filter(|s| !s.trim().is_empty())
}

fn non_empty_map<'v>(v: &'v Value, key: &str) -> Option<&'v Map<String, Value>> {
    obj(v)?.get(key)?.as_object().filter(|m| !m.is_empty())
}

fn non_empty_list<'v>(v: &'v Value, key: &str) -> Option<&'v Vec<Value>> {
    obj(v)?.get(key)?.as_array().filter(|a| !a.is_empty())
}

/// The declared types, `null` left out (it reads as "nullable").
fn types(v: &Value) -> Vec<&str> {
    match obj(v).and_then(|o| o.get("type")) {
        Some(Value::String(s)) if s != "null" => vec![s.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .take(8)
            .filter_map(Value::as_str)
            .filter(|s| *s != "null")
            .collect(),
        _ => Vec::new(),
    }
}

fn nullable(v: &Value) -> bool {
    let in_types = match obj(v).and_then(|o| o.get("type")) {
        Some(Value::Array(a)) => a.iter().take(8).any(|t| t.as_str() == Some("null")),
        _ => false,
    };
    in_types
        || obj(v)
            .and_then(|o| o.get("nullable"))
            .and_then(Value::as_bool)
            == Some(true)
}

fn is_array(v: &Value) -> bool {
    let t = types(v);
    t == ["array"] || (t.is_empty() && obj(v).is_some_and(|o| o.contains_key("items")))
}

/// An object schema that declares nothing about its properties.
fn is_plain_object(v: &Value) -> bool {
    let t = types(v);
    (t.is_empty() || t == ["object"])
        && obj(v).is_none_or(|o| !o.contains_key("$ref") && !o.contains_key("items"))
}

const ALTERNATIVES: [(&str, &str); 3] = [
    ("oneOf", "One of"),
    ("anyOf", "Any of"),
    ("allOf", "All of"),
];

/// Whether the schema has rows under it (properties, additional or pattern properties, alternatives, or those of
/// its array items).
fn has_children(v: &Value, depth: usize) -> bool {
    if depth > MAX_SCHEMA_DEPTH {
        return false;
    }
    non_empty_map(v, "properties").is_some()
        || non_empty_map(v, "patternProperties").is_some()
        || obj(v)
            .and_then(|o| o.get("additionalProperties"))
            .is_some_and(|a| a.as_object().is_some_and(|m| !m.is_empty()))
        || ALTERNATIVES
            .iter()
            .any(|(k, _)| non_empty_list(v, k).is_some())
        || (is_array(v)
            && obj(v)
                .and_then(|o| o.get("items"))
                .is_some_and(|i| has_children(i, depth + 1)))
}

impl Tree<'_> {
    /// The rows under a schema at `depth`.
    fn children(&mut self, v: &Value, depth: usize) {
        if depth >= MAX_SCHEMA_DEPTH {
            return;
        }
        let own = non_empty_map(v, "properties").is_some()
            || non_empty_map(v, "patternProperties").is_some()
            || ALTERNATIVES
                .iter()
                .any(|(k, _)| non_empty_list(v, k).is_some());
        if !own && is_array(v) {
            if let Some(items) = obj(v).and_then(|o| o.get("items")) {
                self.children(items, depth + 1);
            }
            return;
        }
        if !has_children(v, depth) {
            return;
        }
        self.out.raw("<ul class=\"ps\">");
        if !self.rows_of(v, depth) {
            self.more();
        }
        self.out.raw("</ul>");
    }

    /// Writes the rows of `v`; false when a budget stopped them.
    fn rows_of(&mut self, v: &Value, depth: usize) -> bool {
        let required: Vec<&str> = obj(v)
            .and_then(|o| o.get("required"))
            .and_then(Value::as_array)
            .map(|a| a.iter().take(10_000).filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = non_empty_map(v, "properties") {
            for (name, p) in props {
                let req = required.contains(&name.as_str());
                if !self.row(RowName::Code(name), p, req, depth) {
                    return false;
                }
            }
        }
        if let Some(props) = non_empty_map(v, "patternProperties") {
            for (pattern, p) in props {
                let label = format!("names matching {}", short(pattern, MAX_CODE));
                if !self.row(RowName::Label(&label), p, false, depth) {
                    return false;
                }
            }
        }
        if let Some(a) = obj(v).and_then(|o| o.get("additionalProperties"))
            && a.as_object().is_some_and(|m| !m.is_empty())
            && !self.row(RowName::Label("any other property name"), a, false, depth)
        {
            return false;
        }
        for (key, word) in ALTERNATIVES {
            let Some(alts) = non_empty_list(v, key) else {
                continue;
            };
            self.out
                .raw("<li class=\"alts\"><p class=\"ah\">")
                .raw(word)
                .raw(":</p><ul class=\"ps\">");
            for (i, a) in alts.iter().enumerate() {
                let label = match str_of(a, "title") {
                    Some(t) => format!("Option {}: {}", i + 1, short(t, MAX_NAME)),
                    None => format!("Option {}", i + 1),
                };
                if !self.row(RowName::Label(&label), a, false, depth) {
                    self.out.raw("</ul></li>");
                    return false;
                }
            }
            self.out.raw("</ul></li>");
        }
        true
    }

    fn more(&mut self) {
        self.out
            .raw("<li class=\"more\">More inputs are not shown here (page size limit).</li>");
    }

    /// One row and the rows under it; false when a budget is spent (nothing written).
    fn row(&mut self, name: RowName<'_>, v: &Value, required: bool, depth: usize) -> bool {
        if self.rows >= MAX_TREE_ROWS
            || self.budget.rows >= MAX_PAGE_ROWS
            || self.budget.bytes.saturating_add(self.out.len()) >= PAGE_BUDGET_BYTES
        {
            return false;
        }
        self.rows += 1;
        self.budget.rows += 1;
        let expandable = has_children(v, depth + 1);
        let open = expandable && depth + 1 < MAX_SCHEMA_DEPTH;
        self.out.raw("<li class=\"p\">");
        // The first nesting is open: a tool's inputs are what a reader comes for; deeper levels fold.
        self.out.raw(match (open, depth) {
            (true, 0) => "<details open><summary>",
            (true, _) => "<details><summary>",
            (false, _) => "<div class=\"ph\">",
        });
        match name {
            RowName::Code(n) => {
                self.out
                    .raw("<code class=\"pn\">")
                    .text(&short(n, MAX_NAME))
                    .raw("</code>");
            }
            RowName::Label(l) => {
                self.out.raw("<span class=\"pl\">").text(l).raw("</span>");
            }
        }
        self.out.raw(" <span class=\"pt\">");
        type_label(v, &mut self.out, 0);
        self.out.raw("</span>");
        badges(v, required, &mut self.out);
        self.out.raw(if open { "</summary>" } else { "</div>" });
        if let Some(d) = str_of(v, "description") {
            self.out
                .raw("<div class=\"md\">")
                .html(&md(d, 6, MAX_SHORT_DESCRIPTION))
                .raw("</div>");
        }
        constraints(v, &mut self.out);
        if expandable && !open {
            self.out
                .raw("<p class=\"cut\">Nested deeper than this page shows.</p>");
        }
        if open {
            self.children(v, depth + 1);
            self.out.raw("</details>");
        }
        self.out.raw("</li>");
        true
    }
}

/// The type label of a schema: `string (date-time)`, `array of objects`, `integer | string`, a `$ref` as written.
fn type_label(v: &Value, out: &mut Out, depth: usize) {
    let Some(o) = obj(v) else {
        out.raw(if v.as_bool() == Some(false) {
            "nothing"
        } else {
            "any"
        });
        return;
    };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        out.raw("<span class=\"sn\">")
            .text(&short(r, MAX_CODE))
            .raw("</span>");
        return;
    }
    if is_array(v) {
        out.raw("array");
        if let Some(items) = o.get("items")
            && depth < 3
        {
            out.raw(" of ");
            if has_children(items, MAX_SCHEMA_DEPTH)
                && obj(items).is_some_and(|i| i.contains_key("properties"))
            {
                out.raw("objects");
            } else {
                type_label(items, out, depth + 1);
            }
        }
        return;
    }
    let t = types(v);
    if t.is_empty() {
        out.raw(
            if o.contains_key("properties") || o.contains_key("additionalProperties") {
                "object"
            } else if o.contains_key("oneOf") {
                "one of"
            } else if o.contains_key("anyOf") {
                "any of"
            } else if o.contains_key("allOf") {
                "all of"
            } else {
                "any"
            },
        );
    } else {
        for (i, ty) in t.iter().enumerate() {
            if i > 0 {
                out.raw(" | ");
            }
            out.text(&short(ty, 32));
        }
    }
    if let Some(f) = str_of(v, "format") {
        out.raw(" <span class=\"tf\">(")
            .text(&short(f, 64))
            .raw(")</span>");
    }
}

fn badges(v: &Value, required: bool, out: &mut Out) {
    let flag = |k: &str| obj(v).and_then(|o| o.get(k)).and_then(Value::as_bool) == Some(true);
    if required {
        out.raw(" <span class=\"b rq\">required</span>");
    }
    if nullable(v) {
        out.raw(" <span class=\"b\">nullable</span>");
    }
    if flag("readOnly") {
        out.raw(" <span class=\"b\">read-only</span>");
    }
    if flag("writeOnly") {
        out.raw(" <span class=\"b\">write-only</span>");
    }
    if flag("deprecated") {
        out.raw(" <span class=\"b dp\">deprecated</span>");
    }
}

/// A value shown inline: compact JSON, cut at [`MAX_VALUE`] bytes, neutralized, as code.
fn inline_value(v: &Value, out: &mut Out) {
    let text = match v {
        Value::String(s) => {
            let json = serde_json::to_string(&*short(s, MAX_VALUE)).unwrap_or_default();
            Cow::Owned(json)
        }
        _ => Cow::Owned(bounded_json(v, MAX_VALUE)),
    };
    out.raw("<code>")
        .text(&crate::neutral(&text))
        .raw("</code>");
}

/// Compact JSON of `v`, stopped after `max` bytes (with "…"): a huge value is never written out whole.
fn bounded_json(v: &Value, max: usize) -> String {
    struct Capped {
        buf: Vec<u8>,
        max: usize,
    }
    impl std::io::Write for Capped {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let room = self.max.saturating_sub(self.buf.len());
            if room == 0 {
                return Err(std::io::Error::other("full"));
            }
            let n = room.min(b.len());
            self.buf.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Capped {
        buf: Vec::with_capacity(64),
        max: max + 1,
    };
    let complete = serde_json::to_writer(&mut w, v).is_ok() && w.buf.len() <= max;
    let valid = match std::str::from_utf8(&w.buf) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&w.buf[..e.valid_up_to()]).unwrap_or_default(),
    };
    if complete {
        valid.to_owned()
    } else {
        let (cut, _) = truncate(valid, max);
        format!("{cut}…")
    }
}

/// The constraints, enum, default and example of a schema, as one line of chips.
fn constraints(v: &Value, out: &mut Out) {
    let Some(o) = obj(v) else { return };
    let mut any = false;
    let mut chip = |out: &mut Out| {
        if !any {
            out.raw("<p class=\"pc\">");
            any = true;
        }
    };
    let emit = |out: &mut Out, label: &str, v: &Value| {
        out.raw("<span class=\"c\">").raw(label);
        inline_value(v, out);
        out.raw("</span> ");
    };
    let exclusive = |k: &str| o.get(k).and_then(Value::as_bool) == Some(true);
    for (key, label) in [
        (
            "minimum",
            if exclusive("exclusiveMinimum") {
                "> "
            } else {
                "≥ "
            },
        ),
        (
            "maximum",
            if exclusive("exclusiveMaximum") {
                "< "
            } else {
                "≤ "
            },
        ),
        ("exclusiveMinimum", "> "),
        ("exclusiveMaximum", "< "),
        ("multipleOf", "multiple of "),
        ("minLength", "min length "),
        ("maxLength", "max length "),
        ("minItems", "min items "),
        ("maxItems", "max items "),
        ("minProperties", "min properties "),
        ("maxProperties", "max properties "),
    ] {
        if let Some(n) = o.get(key).filter(|n| n.is_number()) {
            chip(out);
            emit(out, label, n);
        }
    }
    if let Some(p) = str_of(v, "pattern") {
        chip(out);
        out.raw("<span class=\"c\">pattern <code>")
            .text(&short(p, MAX_CODE))
            .raw("</code></span> ");
    }
    if o.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
        chip(out);
        out.raw("<span class=\"c\">unique items</span> ");
    }
    if o.get("additionalProperties").and_then(Value::as_bool) == Some(false) {
        chip(out);
        out.raw("<span class=\"c\">no other properties</span> ");
    }
    if let Some(c) = o.get("const") {
        chip(out);
        emit(out, "always ", c);
    }
    if let Some(d) = o.get("default") {
        chip(out);
        emit(out, "default ", d);
    }
    if let Some(e) = o.get("enum").and_then(Value::as_array) {
        chip(out);
        out.raw("<span class=\"c\">one of ");
        for (i, x) in e.iter().take(MAX_ENUM).enumerate() {
            if i > 0 {
                out.raw(", ");
            }
            inline_value(x, out);
        }
        if e.len() > MAX_ENUM {
            out.raw(" and ").num(e.len() - MAX_ENUM).raw(" more");
        }
        out.raw("</span> ");
    }
    let example = o.get("example").or_else(|| {
        o.get("examples")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
    });
    if let Some(x) = example {
        chip(out);
        emit(out, "example ", x);
    }
    if any {
        out.raw("</p>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_value_is_cut_and_stays_text() {
        let v: Value = serde_json::json!({"a": "x".repeat(10_000)});
        let s = bounded_json(&v, 50);
        assert!(s.len() <= 50 + "…".len(), "{s}");
        assert!(s.ends_with('…'));
        assert_eq!(bounded_json(&serde_json::json!([1, 2]), 50), "[1,2]");
        let s = bounded_json(&serde_json::json!(["éééééééééé"]), 7);
        assert!(s.ends_with('…'), "{s}");
    }
}
