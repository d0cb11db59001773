//! Validation: the official JSON Schemas of each specification, plus the semantic rules they
//! cannot express.
//!
//! The schemas are vendored data files (see `schemas/README.md`), compiled once per process
//! with `jsonschema` built without its HTTP/file resolvers, so validating can never fetch
//! anything. A fast `is_valid` pass runs first; detailed errors are only collected for an
//! invalid document. For `oneOf`/`anyOf` failures (a Reference Object *or* a Schema, ...) the
//! branch that came closest is reported instead of a bare "not valid under any of the
//! schemas".
//!
//! OpenAPI 3.2 has no published JSON Schema in the vendored packages: it gets the semantic
//! rules only.

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::model::{Location, OperationKind, ParameterIn, SpecVersion};
use crate::normalize::{normalize_template, template_params};
use crate::tree::schema::TreeJson;
use crate::tree::{Builder, Kind, Tree, V};
use crate::{Diagnostic, Document};

struct Bundled {
    name: &'static str,
    text: &'static str,
}

const SCHEMAS: [Bundled; 12] = [
    Bundled {
        name: "OpenAPI 2.0",
        text: include_str!("../schemas/openapi/v2.0.json"),
    },
    Bundled {
        name: "OpenAPI 3.0",
        text: include_str!("../schemas/openapi/v3.0.json"),
    },
    Bundled {
        name: "OpenAPI 3.1",
        text: include_str!("../schemas/openapi/v3.1.json"),
    },
    Bundled {
        name: "AsyncAPI 2.0.0",
        text: include_str!("../schemas/asyncapi/2.0.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.1.0",
        text: include_str!("../schemas/asyncapi/2.1.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.2.0",
        text: include_str!("../schemas/asyncapi/2.2.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.3.0",
        text: include_str!("../schemas/asyncapi/2.3.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.4.0",
        text: include_str!("../schemas/asyncapi/2.4.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.5.0",
        text: include_str!("../schemas/asyncapi/2.5.0.json"),
    },
    Bundled {
        name: "AsyncAPI 2.6.0",
        text: include_str!("../schemas/asyncapi/2.6.0.json"),
    },
    Bundled {
        name: "AsyncAPI 3.0.0",
        text: include_str!("../schemas/asyncapi/3.0.0.json"),
    },
    Bundled {
        name: "AsyncAPI 3.1.0",
        text: include_str!("../schemas/asyncapi/3.1.0.json"),
    },
];

static COMPILED: [OnceLock<Result<Validator<TreeJson>, String>>; 12] =
    [const { OnceLock::new() }; 12];

fn schema_index(doc: &Document) -> Option<usize> {
    Some(match doc.version() {
        SpecVersion::OpenApi20 => 0,
        SpecVersion::OpenApi30 => 1,
        SpecVersion::OpenApi31 => 2,
        SpecVersion::OpenApi32 => return None,
        SpecVersion::AsyncApi2 { minor } => 3 + usize::from(minor.min(6)),
        SpecVersion::AsyncApi30 => {
            if doc.spec_version_string().starts_with("3.1") {
                11
            } else {
                10
            }
        }
    })
}

fn compiled(i: usize) -> &'static Result<Validator<TreeJson>, String> {
    COMPILED[i].get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMAS[i].text)
            .map_err(|e| format!("bundled schema is not JSON: {e}"))?;
        jsonschema::options_for::<TreeJson>()
            .build(&schema)
            .map_err(|e| format!("bundled schema does not compile: {e}"))
    })
}

/// Compiles every bundled JSON Schema once for this process (otherwise each is compiled on
/// first use). Call it at start-up to keep the first validation fast; errors name the schema.
pub fn warm_up() -> Result<(), String> {
    for (i, bundled) in SCHEMAS.iter().enumerate() {
        if let Err(e) = compiled(i) {
            return Err(format!("{}: {e}", bundled.name));
        }
    }
    Ok(())
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// Is this branch only "it is not a Reference Object" (a `required: $ref` failure)?
fn is_ref_branch(errors: &[ValidationError<'static>]) -> bool {
    errors.len() == 1
        && matches!(errors[0].kind(), ValidationErrorKind::Required { property } if property.as_str() == Some("$ref"))
}

/// The most useful errors under a failed `oneOf`/`anyOf`: ignoring "not a Reference Object"
/// branches, prefer a branch whose discriminating fields matched (no `enum`/`const` failure,
/// e.g. Swagger's `in: query` against the body-parameter branch), then the one that matched
/// furthest (deepest error), then the one with fewest errors.
fn best_branch<'c>(
    context: &'c [Vec<ValidationError<'static>>],
) -> Option<&'c [ValidationError<'static>]> {
    context
        .iter()
        .filter(|b| !b.is_empty() && !is_ref_branch(b))
        .max_by_key(|b| {
            let mismatch = b.iter().any(|e| {
                matches!(
                    e.kind(),
                    ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. }
                )
            });
            let depth = b
                .iter()
                .map(|e| e.instance_path().as_str().len())
                .max()
                .unwrap_or(0);
            (!mismatch, depth, usize::MAX - b.len())
        })
        .map(Vec::as_slice)
}

/// Reports `e`, or for a failed `oneOf`/`anyOf` the errors of its closest branch (recursing a
/// bounded number of levels).
fn explain(e: &ValidationError<'_>, level: usize, push: &mut dyn FnMut(&ValidationError<'_>)) {
    if level < 8
        && let ValidationErrorKind::OneOfNotValid { context }
        | ValidationErrorKind::AnyOf { context } = e.kind()
        && let Some(branch) = best_branch(context)
    {
        for x in branch.iter().take(3) {
            explain(x, level + 1, push);
        }
        return;
    }
    push(e);
}

fn message(e: &ValidationError<'_>, name: &str) -> String {
    let masked = e.masked_with("the value").to_string();
    let detail = match e.kind() {
        ValidationErrorKind::Type { .. }
        | ValidationErrorKind::Enum { .. }
        | ValidationErrorKind::Constant { .. } => {
            format!("{masked} (found {})", short(e.instance()))
        }
        _ => masked,
    };
    format!("{name} schema: {detail}")
}

fn schema_diagnostics(doc: &Document, out: &mut Vec<Diagnostic>) {
    let Some(i) = schema_index(doc) else { return };
    let validator = match compiled(i) {
        Ok(v) => v,
        Err(e) => {
            out.push(Diagnostic::new("internal", format!("cannot validate: {e}")));
            return;
        }
    };
    // AsyncAPI 2.x's schemas only hold for a dereferenced document (their `oneOf: [Reference,
    // Parameter]` matches both for a `$ref` object), as the AsyncAPI parser validates it; the
    // documents are small, so validate an inlined copy within a budget, else the raw tree.
    // (3.x schemas require some fields, such as `operation.channel`, to stay references.)
    let inlined = if matches!(doc.version(), SpecVersion::AsyncApi2 { .. }) {
        inline_refs(doc, doc.limits.max_nodes.min(INLINE_BUDGET))
    } else {
        None
    };
    let root = inlined.as_ref().map_or(doc.root(), Tree::root);
    if validator.is_valid(root) {
        return;
    }
    let max = doc.limits.max_errors.max(1);
    let name = SCHEMAS[i].name;
    let push = |e: &ValidationError<'_>, out: &mut Vec<Diagnostic>| {
        let pointer = e.instance_path().as_str().to_string();
        let loc = Location {
            file: crate::FileId::ROOT,
            pointer,
        };
        let loc = if inlined.is_some() {
            doc.canonical(loc.clone()).unwrap_or(loc)
        } else {
            loc
        };
        let d = at(doc, &loc, "schema", message(e, name));
        if !out
            .iter()
            .any(|o| o.pointer == d.pointer && o.message == d.message)
        {
            out.push(d);
        }
    };
    for e in validator.iter_errors(root) {
        if out.len() >= max {
            break;
        }
        explain(&e, 0, &mut |x| push(x, out));
    }
}

/// Most nodes an inlined AsyncAPI copy may have.
const INLINE_BUDGET: usize = 200_000;
/// Deepest nesting an inlined copy may reach (the walk recurses, so it is capped).
const INLINE_DEPTH: usize = 256;

/// A copy of the root with every `$ref` replaced by its target; a ref that would re-enter a
/// target being inlined (a cycle) is kept as a ref. `None` when over budget or too deep.
fn inline_refs(doc: &Document, budget: usize) -> Option<Tree> {
    let mut nodes = 0usize;
    let mut active: Vec<Location> = Vec::new();
    let mut out = Builder::new(0);
    let root = inline(
        doc,
        doc.root(),
        Location::root(crate::FileId::ROOT),
        &mut Inlining {
            active: &mut active,
            nodes: &mut nodes,
            budget,
            out: &mut out,
        },
        0,
    )?;
    Some(out.finish(root))
}

struct Inlining<'a> {
    active: &'a mut Vec<Location>,
    nodes: &'a mut usize,
    budget: usize,
    out: &'a mut Builder,
}

fn inline(
    doc: &Document,
    v: V<'_>,
    here: Location,
    st: &mut Inlining,
    depth: usize,
) -> Option<u32> {
    *st.nodes += 1;
    if *st.nodes > st.budget || depth > INLINE_DEPTH {
        return None;
    }
    match v.kind() {
        Kind::Object(m) => {
            if crate::refs::ref_of(v).is_some() {
                let Ok((target, tv)) = doc.resolve(&here) else {
                    return Some(copy(st.out, v));
                };
                if st.active.contains(&target) {
                    return Some(copy(st.out, v));
                }
                st.active.push(target.clone());
                let out = inline(doc, tv, target, st, depth + 1);
                st.active.pop();
                return out;
            }
            let mark = st.out.mark();
            for (k, c) in m.iter() {
                let id = inline(doc, c, here.child(k), st, depth + 1)?;
                st.out.push_member(k, id);
            }
            st.out.close_object(mark).ok()
        }
        Kind::Array(a) => {
            let mark = st.out.mark();
            for (i, c) in a.iter().enumerate() {
                let id = inline(doc, c, here.index(i), st, depth + 1)?;
                st.out.push_item(id);
            }
            Some(st.out.close_array(mark))
        }
        _ => Some(copy(st.out, v)),
    }
}

/// Copies `v` (a reference kept as it is, or a scalar) into `out`.
fn copy(out: &mut Builder, v: V<'_>) -> u32 {
    out.value(&v.to_value())
}

fn at(doc: &Document, loc: &Location, code: &'static str, message: String) -> Diagnostic {
    Diagnostic {
        code,
        message,
        file: doc.file_name(loc.file).map(str::to_string),
        pointer: loc.pointer.clone(),
        line: None,
        column: None,
    }
}

/// Reports each operationId used again, naming where it was first used.
fn duplicate_operation_ids<'m>(
    doc: &Document,
    operations: impl Iterator<Item = (Option<&'m str>, &'m Location)>,
    out: &mut Vec<Diagnostic>,
) {
    let mut ids: HashMap<&str, &Location> = HashMap::new();
    for (id, source) in operations {
        if let Some(id) = id
            && let Some(first) = ids.insert(id, source)
        {
            out.push(at(
                doc,
                &source.child("operationId"),
                "duplicate-operation-id",
                format!(
                    "operationId '{id}' is also used at {}; operationIds must be unique",
                    first.pointer
                ),
            ));
        }
    }
}

fn semantic(doc: &Document, out: &mut Vec<Diagnostic>) {
    let model = doc.model();
    // Duplicate operationIds (OpenAPI operations, AsyncAPI 2.x operations).
    let ops = model.operations.values();
    duplicate_operation_ids(
        doc,
        ops.map(|o| (o.operation_id.as_deref(), &o.source)),
        out,
    );
    if let SpecVersion::AsyncApi2 { .. } = doc.version() {
        let ops = model.message_operations.values();
        duplicate_operation_ids(
            doc,
            ops.map(|o| (o.operation_id.as_deref(), &o.source)),
            out,
        );
    }
    // Path templates and path parameters.
    for op in model
        .operations
        .values()
        .filter(|o| o.key.kind == OperationKind::Path)
    {
        let names = template_params(&op.path);
        for name in &names {
            let declared = op
                .parameters
                .iter()
                .any(|p| p.location == ParameterIn::Path && p.name == *name);
            if !declared {
                out.push(at(
                    doc,
                    &op.source,
                    "missing-path-parameter",
                    format!(
                        "the path '{}' has the template parameter '{{{name}}}' but {} {} declares no path parameter named '{name}'",
                        op.path, op.key.method, op.path
                    ),
                ));
            }
        }
        for p in op
            .parameters
            .iter()
            .filter(|p| p.location == ParameterIn::Path)
        {
            if !names.contains(&p.name.as_str()) {
                out.push(at(
                    doc,
                    &p.source,
                    "unknown-path-parameter",
                    format!(
                        "path parameter '{}' does not appear in the path template '{}'",
                        p.name, op.path
                    ),
                ));
            }
        }
    }
    // Paths that differ only in parameter names are the same path: an error when they
    // declare the same method (one of the two operations could never be matched).
    if let Some(paths) = doc.root().get("paths").and_then(V::as_object) {
        let mut seen: HashMap<String, (&str, V)> = HashMap::new();
        for (p, item) in paths.iter().filter(|(k, _)| !k.starts_with("x-")) {
            if let Some((first, first_item)) = seen.insert(normalize_template(p), (p, item)) {
                for m in crate::normalize::HTTP_METHODS {
                    if item.get(m).is_some() && first_item.get(m).is_some() {
                        out.push(at(
                            doc,
                            &Location::root(crate::FileId::ROOT).child("paths").child(p).child(m),
                            "ambiguous-path",
                            format!(
                                "the paths '{first}' and '{p}' differ only in parameter names and both declare {}: a request cannot tell them apart",
                                m.to_ascii_uppercase()
                            ),
                        ));
                    }
                }
            }
        }
    }
    // AsyncAPI channel address parameters must be declared.
    if doc.version().family() == crate::SpecFamily::AsyncApi {
        for ch in model.channels.values() {
            for name in template_params(&ch.address) {
                if !ch.parameters.contains_key(name) {
                    out.push(at(
                        doc,
                        &ch.source,
                        "missing-channel-parameter",
                        format!("the channel address '{}' uses '{{{name}}}' but the channel declares no parameter '{name}'", ch.address),
                    ));
                }
            }
        }
    }
}

/// All diagnostics: schema first, then semantic rules.
pub(crate) fn run(doc: &Document) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    schema_diagnostics(doc, &mut out);
    semantic(doc, &mut out);
    out
}
