//! What a note shows besides its words: the requests before and after (request-side changes, in
//! the site's languages, from the samples engine), the response examples before and after
//! (response-side changes), and for a removed operation its deprecation notice and the
//! operations on the same path or resource that remain.
//!
//! Work is shared across the notes of one diff: each operation's pair of requests, and its
//! samples, are built once however many breaking changes it has.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;
use specpress_apispec::{Document, Location, MediaType, Operation};
use specpress_samples::{LANGUAGES, Mode, Request, body_example, languages, schema};

use super::MAX_NOTE_BYTES;
use super::markdown::Md;
use crate::change::{Change, Crumb, NodeKind};
use crate::options::normalize_template;

/// Operations offered as alternatives to a removed one.
const MAX_ALTERNATIVES: usize = 5;
/// Bytes kept free at the end of a note for the sentence saying what was left out.
const RESERVE: usize = 600;
/// Bytes of one example (pretty JSON) shown; a larger one is cut with a note.
const MAX_EXAMPLE_BYTES: usize = 3 * 1024;

/// The operation of both versions an owner stands for (either may be missing).
pub(crate) type OperationPair<'a> = (Option<&'a Operation>, Option<&'a Operation>);

/// The requests of one operation before and after, and their samples, each written the first time a note shows it.
pub(crate) struct Requests {
    same: bool,
    before: Request,
    after: Request,
    /// Per language of [`LANGUAGES`]: the samples before and after.
    samples: Vec<Option<(String, String)>>,
}

impl Requests {
    fn sample(&mut self, i: usize) -> &(String, String) {
        let language = LANGUAGES[i.min(LANGUAGES.len() - 1)];
        let (before, after) = (&self.before, &self.after);
        self.samples[i]
            .get_or_insert_with(|| ((language.generate)(before), (language.generate)(after)))
    }
}

/// A shared schema's examples before and after.
type SchemaExamples = Rc<(Option<Value>, Option<Value>)>;

/// The shared state of the notes of one diff.
pub(crate) struct Evidence<'a> {
    pub previous: &'a Document,
    pub current: &'a Document,
    requests: HashMap<(usize, usize), Requests>,
    /// A shared schema's examples before and after, by name and mode.
    schemas: HashMap<(String, Mode), SchemaExamples>,
    /// The current version's operations with their normalized paths (built for the first removed one).
    paths: Option<Vec<(String, &'a Operation)>>,
}

impl<'a> Evidence<'a> {
    pub(crate) fn new(previous: &'a Document, current: &'a Document) -> Self {
        Evidence {
            previous,
            current,
            requests: HashMap::new(),
            schemas: HashMap::new(),
            paths: None,
        }
    }

    /// The requests of an operation present in both versions (built once per pair).
    fn requests(&mut self, before: &Operation, after: &Operation) -> &mut Requests {
        let key = (
            before as *const Operation as usize,
            after as *const Operation as usize,
        );
        let (previous, current) = (self.previous, self.current);
        self.requests.entry(key).or_insert_with(|| {
            let before = Request::of(previous, before);
            let after = Request::of(current, after);
            Requests {
                same: before == after,
                before,
                after,
                samples: vec![None; LANGUAGES.len()],
            }
        })
    }

    /// The requests before and after, language by language while the note has room (the current curl request
    /// alone when the two are the same). A language that does not fit ends the list (the others are as large: each
    /// writes the same body), and the note names the ones left out.
    pub(crate) fn write_requests(&mut self, md: &mut Md, (before, after): OperationPair<'_>) {
        let (Some(before), Some(after)) = (before, after) else {
            return;
        };
        let r = self.requests(before, after);
        if r.same {
            md.text("**Request** (the same in both versions, as the documentation shows it):")
                .end();
            let mark = md.len();
            let curl = languages::curl(&r.after);
            md.fence("sh", &curl);
            if md.len() > MAX_NOTE_BYTES - RESERVE {
                md.truncate(mark);
                md.text("*(left out: too large for this note; the operation's page shows it)*")
                    .end();
            }
            return;
        }
        md.text("**Request before and after**, in each language the documentation shows:")
            .end();
        let mut left_out: Vec<&'static str> = Vec::new();
        for (i, language) in LANGUAGES.iter().enumerate() {
            if !left_out.is_empty() {
                left_out.push(language.label);
                continue;
            }
            let mark = md.len();
            let (b, a) = r.sample(i);
            md.text("*").text(language.label).text(", before:*").end();
            md.fence(language.fence, b);
            md.text("*").text(language.label).text(", after:*").end();
            md.fence(language.fence, a);
            if md.len() > MAX_NOTE_BYTES - RESERVE {
                md.truncate(mark);
                left_out.push(language.label);
            }
        }
        if !left_out.is_empty() {
            md.text("*Left out to keep this note within its size:* ");
            for (i, label) in left_out.iter().enumerate() {
                md.text(if i == 0 { "" } else { ", " }).text(label);
            }
            md.text(". *The operation's page shows them.*").end();
        }
    }

    /// The response examples before and after, for a change under a response (its status and
    /// media type read from the path; the first media type when the path names none).
    pub(crate) fn write_response(&self, md: &mut Md, ops: OperationPair<'_>, crumbs: &[Crumb]) {
        let Some(status) = crumbs.iter().position(|c| c.kind == NodeKind::Response) else {
            return;
        };
        let code = &crumbs[status].name;
        let media = crumbs[status..]
            .iter()
            .find(|c| c.kind == NodeKind::MediaType)
            .map(|c| &*c.name);
        let (before, after) = (media_of(ops.0, code, media), media_of(ops.1, code, media));
        let before = before
            .map(|m| body_example(self.previous, m.schema.as_ref(), &m.source, Mode::Response));
        let after =
            after.map(|m| body_example(self.current, m.schema.as_ref(), &m.source, Mode::Response));
        self.write_examples(md, "Response example", before, after);
    }

    /// The examples of a shared schema before and after, as it is sent (`mode`).
    pub(crate) fn write_schema(&mut self, md: &mut Md, name: &str, mode: Mode) {
        let example = |doc: &Document| -> Option<Value> {
            let at: &Location = doc.model().schemas.get(name)?;
            Some(schema::generate(doc, at, mode))
        };
        let key = (name.to_string(), mode);
        let pair = match self.schemas.get(&key) {
            Some(p) => p.clone(),
            None => {
                let p = Rc::new((example(self.previous), example(self.current)));
                self.schemas.insert(key, p.clone());
                p
            }
        };
        let label = if mode == Mode::Request {
            "Example of the schema as sent"
        } else {
            "Example of the schema as received"
        };
        self.write_examples(md, label, pair.0.clone(), pair.1.clone());
    }

    /// Two examples as JSON blocks (one when they are equal); a side that has none says so.
    fn write_examples(
        &self,
        md: &mut Md,
        label: &'static str,
        before: Option<Value>,
        after: Option<Value>,
    ) {
        if before.is_none() && after.is_none() {
            return;
        }
        let mark = md.len();
        if before == after {
            md.text("**")
                .text(label)
                .text("** (the same in both versions):")
                .end();
            example_block(md, before.as_ref());
        } else {
            md.text("**").text(label).text(", before:**").end();
            example_block(md, before.as_ref());
            md.text("**").text(label).text(", after:**").end();
            example_block(md, after.as_ref());
        }
        if md.len() > MAX_NOTE_BYTES - RESERVE {
            md.truncate(mark);
            md.text("*(")
                .text(label)
                .text(": too large for this note; the reference pages show it)*")
                .end();
        }
    }

    /// For a removed HTTP operation: its deprecation notice as the previous version gave it, and
    /// the operations of the current version on the same path or resource.
    pub(crate) fn write_removed_operation(&mut self, md: &mut Md, removed: &Operation) {
        deprecation(md, removed.deprecated, removed.sunset.as_deref());
        if let Some(s) = removed.summary.as_deref().filter(|s| !s.trim().is_empty()) {
            md.text("Its summary was ").code(s).text(".").end();
        }
        let current = self.current;
        let paths = self.paths.get_or_insert_with(|| {
            current
                .model()
                .operations
                .values()
                .map(|op| (normalize_template(&op.key.path), op))
                .collect()
        });
        let alternatives = alternatives(removed, paths);
        if alternatives.is_empty() {
            md.text("**Alternatives:** the current version has no other operation on this path or resource.")
                .end();
            return;
        }
        md.text(
            "**Alternatives** (operations of the current version on the same path or resource):",
        )
        .end();
        for (op, why) in alternatives {
            md.text("- ")
                .code(&format!("{} {}", op.key.method, op.path))
                .text(why);
            if let Some(s) = op.summary.as_deref().filter(|s| !s.trim().is_empty()) {
                md.text(": ").code(s);
            }
            md.text("\n");
        }
        md.end();
    }

    /// For a removed AsyncAPI operation (found by where it was): its deprecation notice and the
    /// operations of the current version on the same channel.
    pub(crate) fn write_removed_message_operation(&self, md: &mut Md, change: &Change) {
        let Some(at) = change.previous_at.as_ref() else {
            return;
        };
        let Some(removed) = self
            .previous
            .model()
            .message_operations
            .values()
            .find(|o| &o.source == at)
        else {
            return;
        };
        deprecation(md, removed.deprecated, None);
        let same: Vec<String> = self
            .current
            .model()
            .message_operations
            .values()
            .filter(|o| o.key.channel == removed.key.channel)
            .take(MAX_ALTERNATIVES)
            .map(|o| format!("{:?} {}", o.key.direction, o.channel_address).to_ascii_uppercase())
            .collect();
        md.text("**Alternatives** (operations of the current version on the same channel): ")
            .code_list(same.iter().map(String::as_str), MAX_ALTERNATIVES)
            .text(".")
            .end();
    }
}

/// The media type of an operation's response `status` named `media`, else its first one.
fn media_of<'o>(
    op: Option<&'o Operation>,
    status: &str,
    media: Option<&str>,
) -> Option<&'o MediaType> {
    let r = op?.responses.get(status)?;
    match media {
        Some(m) => r.content.get(m),
        None => r.content.first().map(|(_, m)| m),
    }
}

/// What the previous version said of the removed operation's deprecation.
fn deprecation(md: &mut Md, deprecated: bool, sunset: Option<&str>) {
    md.text("**Deprecation notice:** ");
    match (deprecated, sunset) {
        (true, Some(date)) => {
            md.text("it was deprecated, to be removed on ")
                .code(date)
                .text(" (`x-sunset`), and was removed before that date.");
        }
        (true, None) => {
            md.text("it was deprecated in the previous version.");
        }
        (false, _) => {
            md.text("none: it was not deprecated in the previous version before its removal.");
        }
    }
    md.end();
}

/// A JSON example as a code block, cut at [`MAX_EXAMPLE_BYTES`]; `none` when a side has none.
fn example_block(md: &mut Md, v: Option<&Value>) {
    let Some(v) = v else {
        md.text("*(none in this version)*").end();
        return;
    };
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    if text.len() > MAX_EXAMPLE_BYTES {
        let mut end = MAX_EXAMPLE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n… (cut)");
    }
    md.fence("json", &text);
}

/// The operations of the current version (`paths`: each with its normalized path) a client of the removed operation
/// may turn to, best first: the same `operationId` (the operation moved), the same path with another method, then
/// the same resource (the path's parent collection, or the paths under it), then the same collection.
fn alternatives<'d>(
    removed: &Operation,
    paths: &[(String, &'d Operation)],
) -> Vec<(&'d Operation, &'static str)> {
    let path = normalize_template(&removed.key.path);
    let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
    let under = format!("{path}/");
    let mut out: Vec<(&'d Operation, &'static str)> = Vec::new();
    let mut take = |pred: &dyn Fn(&Operation, &str) -> bool, why: &'static str| {
        for (p, op) in paths {
            if out.len() >= MAX_ALTERNATIVES {
                return;
            }
            if op.key.kind != removed.key.kind || out.iter().any(|(o, _)| std::ptr::eq(*o, *op)) {
                continue;
            }
            if pred(op, p) {
                out.push((op, why));
            }
        }
    };
    if let Some(id) = removed.operation_id.as_deref() {
        take(
            &|op, _| op.operation_id.as_deref() == Some(id),
            " (same operationId)",
        );
    }
    take(&|_, p| p == path, " (same path)");
    if !parent.is_empty() {
        take(
            &|_, p| p == parent || p.starts_with(&under),
            " (same resource)",
        );
        take(
            &|_, p| p.rsplit_once('/').is_some_and(|(pp, _)| pp == parent),
            " (same collection)",
        );
    }
    out
}
