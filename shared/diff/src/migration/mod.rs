//! Migration notes: for every breaking change, Markdown saying what a client must do, generated
//! from both versions of the document. The JSON output carries it (`changes[].migration`), so
//! every reader of a diff (the API's diffs, version diffs, webhook details, the site's change
//! pages, MCP, notification mails) shows the same note.
//!
//! A note says, in order: where the element is (its operation or shared schema and the path below
//! it), what changed (the rule's summary), its old and new rule (the change's values, or that it
//! appeared or disappeared), and what to do (one sentence per rule, `actions`). Then what shows
//! it: for a request-side change, the request before and after in the site's eight languages
//! (the samples engine, `specpress_samples`; the current curl sample alone when the change leaves
//! the request the same); for a response-side change, the response example before and after; for
//! a removed operation, its deprecation notice and the operations left on the same path or
//! resource. A change in a shared schema shows the schema's example before and after and, on the
//! request side, the requests of the first operation using it.
//!
//! Only breaking changes get a note (the cost of a diff without any is one pass over its
//! changes), each at most [`MAX_NOTE_BYTES`]; every document string in it is code (`markdown`).

mod actions;
mod element;
mod evidence;
mod markdown;

use std::collections::HashMap;

use specpress_samples::Mode;

use crate::change::{Change, NodeKind, Owner};
use crate::context::Context;
use crate::rules::{Level, Rule, Side};
use crate::tree::Graph;
use evidence::{Evidence, OperationPair};
use markdown::Md;

/// Bytes of one note at most (samples and examples are left out past it, and the note says so).
pub const MAX_NOTE_BYTES: usize = 16 * 1024;
/// Operations named as using a changed shared schema.
const MAX_AFFECTED: usize = 5;

/// Writes the note of every breaking change of the run into the change.
pub(crate) fn attach(cx: &mut Context<'_>, graph: &Graph) {
    if !cx.found.changes.iter().any(|c| c.level == Level::Breaking) {
        return;
    }
    let mut evidence = Evidence::new(cx.previous.document, cx.current.document);
    let owners = &cx.found.owners;
    // The operation owners by name, for the operations that use a shared schema.
    let mut by_name: Option<HashMap<&str, usize>> = None;
    for change in cx.found.changes.iter_mut() {
        if change.level != Level::Breaking {
            continue;
        }
        let affected = graph
            .affected
            .get(change.owner)
            .map_or(&[][..], Vec::as_slice);
        let by_name = by_name.get_or_insert_with(|| {
            owners
                .iter()
                .enumerate()
                .filter(|(_, o)| o.endpoint.is_some())
                .map(|(i, o)| (o.name.as_str(), i))
                .collect()
        });
        let first_use = affected
            .iter()
            .find_map(|name| by_name.get(name.as_str()))
            .and_then(|&i| owners.get(i))
            .and_then(|o| o.endpoint);
        let note = note(change, owners, affected, first_use, &mut evidence);
        change.migration = Some(note);
    }
}

/// The note of one breaking change.
fn note(
    change: &Change,
    owners: &[Owner<'_>],
    affected: &[String],
    first_use: Option<OperationPair<'_>>,
    evidence: &mut Evidence<'_>,
) -> String {
    let rule: &'static Rule = change.rule.rule();
    let mut md = Md::default();
    let Some(owner) = owners.get(change.owner) else {
        return md.finish();
    };
    element::write(&mut md, owner, &change.crumbs);
    md.text("**What changed:** ").text(&rule.summary).end();
    element::before_after(
        &mut md,
        change,
        rule.attribute,
        (evidence.previous, evidence.current),
    );
    md.text("**What to do:** ").text(action(rule)).end();
    if let Some(role) = owner.role {
        if !affected.is_empty() {
            md.text("**Used by:** ")
                .code_list(affected.iter().map(String::as_str), MAX_AFFECTED)
                .text(".")
                .end();
        }
        let mode = if sends(role.side()) {
            Mode::Request
        } else {
            Mode::Response
        };
        evidence.write_schema(&mut md, &owner.name, mode);
    }
    match rule.id.as_str() {
        "endpoint-removed" | "endpoint-removed-before-sunset" | "webhook-removed" => {
            if let Some((Some(removed), _)) = owner.endpoint {
                evidence.write_removed_operation(&mut md, removed);
            }
            return md.finish();
        }
        "message-operation-removed" => {
            evidence.write_removed_message_operation(&mut md, change);
            return md.finish();
        }
        _ => {}
    }
    // A change under a callback is about the requests the API sends: no sample shows it.
    if change.crumbs.iter().any(|c| c.kind == NodeKind::Callback) {
        return md.finish();
    }
    // The operation whose requests show the change: the owner's, else the first one using the
    // shared schema, else (a change of the whole document) the first one of both versions.
    let ops = owner.endpoint.or(first_use).or_else(|| {
        matches!(owner.item_type, "server" | "security" | "security_scheme")
            .then(|| first_in_both(evidence))
            .flatten()
    });
    match rule.side {
        Side::Request | Side::Both => {
            if let Some(ops) = ops {
                evidence.write_requests(&mut md, ops);
            }
        }
        Side::Response => {
            if let Some(ops) = owner.endpoint {
                evidence.write_response(&mut md, ops, &change.crumbs);
            }
        }
        Side::Receive | Side::Send => {}
    }
    md.finish()
}

/// The rule's sentence: its own, else its side's.
fn action(rule: &'static Rule) -> &'static str {
    let own = if rule.schema {
        let check = rule
            .id
            .strip_prefix(rule.family)
            .and_then(|s| s.strip_prefix('-'))
            .unwrap_or(&rule.id);
        actions::schema(check, sends(rule.side))
    } else {
        actions::structure(&rule.id)
    };
    own.unwrap_or_else(|| actions::generic(rule.side))
}

/// Whether clients write the data of this side (requests, messages the application receives).
fn sends(side: Side) -> bool {
    matches!(side, Side::Request | Side::Receive)
}

/// For a change of the whole document (its servers, security): the first operation present in
/// both versions, whose requests show it.
fn first_in_both<'d>(evidence: &Evidence<'d>) -> Option<OperationPair<'d>> {
    let current = &evidence.current.model().operations;
    evidence
        .previous
        .model()
        .operations
        .iter()
        .find_map(|(key, before)| current.get(key).map(|after| (Some(before), Some(after))))
}
