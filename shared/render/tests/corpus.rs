//! Every corpus document renders: every operation, webhook and channel has a page and a place in
//! the navigation, every listed path looks up to its page, aliases redirect, sampled operation
//! pages show all their parameters, response codes and top-level schema properties (checked
//! against the document), and every page of GitHub stays under the size budget.

mod common;

use std::io::Write;

use common::{BRANCHES, Fixture, LINKS, corpus_dir, corpus_files, load};
use specpress_apispec::{Document, Location, OperationKind, V};
use specpress_render::{Lookup, PageKind, Site, escape};

/// The gzipped size budget of one page.
const MAX_GZIPPED: usize = 100 * 1024;

fn gzipped_len(s: &str) -> usize {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = e.write_all(s.as_bytes());
    e.finish().map(|v| v.len()).unwrap_or(usize::MAX)
}

/// Top-level property names of the schema at `loc` as the document spells them (own `properties`
/// and those of `allOf` members, one level of `anyOf`/`oneOf` with a null alternative), without
/// the ones a reader of `side` does not see.
fn top_properties(doc: &Document, loc: &Location, side: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 6 {
        return;
    }
    let Ok((rloc, v)) = doc.resolve(loc) else {
        return;
    };
    if let Some(props) = v.get("properties").and_then(V::as_object) {
        for name in props.keys() {
            let hidden = doc
                .resolve(&rloc.child("properties").child(name))
                .ok()
                .is_some_and(|(_, p)| {
                    let flag = |k: &str| p.get(k).and_then(V::as_bool) == Some(true);
                    (side == "request" && flag("readOnly"))
                        || (side == "response" && flag("writeOnly"))
                });
            if !hidden && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
    }
    if let Some(all) = v.get("allOf").and_then(V::as_array) {
        for i in 0..all.len() {
            top_properties(doc, &rloc.child("allOf").index(i), side, out, depth + 1);
        }
    }
    if v.get("type").and_then(V::as_str) == Some("array") && v.get("items").is_some() {
        top_properties(doc, &rloc.child("items"), side, out, depth + 1);
    }
}

fn check_document(path: &std::path::Path, render_all: bool) {
    let name = path.display().to_string();
    let doc = load(path);
    let site = Site::build(&doc);
    let model = doc.model();
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Corpus <doc>");
    let pages: Vec<_> = site.pages().collect();
    assert_eq!(
        pages.len(),
        site.page_count(),
        "{name}: pages() lists each page once"
    );

    // Lookups of every listed path return that page.
    for p in &pages {
        assert_eq!(
            site.lookup(p.path),
            Lookup::Page(p.page),
            "{name}: lookup of {:?}",
            p.path
        );
        if !p.path.is_empty() {
            assert_eq!(
                site.lookup(&format!("{}/", p.path)),
                Lookup::Redirect(p.path.to_string()),
                "{name}: trailing slash of {:?}",
                p.path
            );
        }
    }
    assert_eq!(site.lookup("operation/no-such-page-here"), Lookup::NotFound);

    // Every operation, webhook, channel and AsyncAPI operation has a page, and the navigation
    // of the home page links to each operation.
    let home = pages
        .iter()
        .find(|p| p.kind == PageKind::Home)
        .expect("home page");
    let sidebar = site.sidebar(common::BASE, Some(home.page)).into_string();
    let count = |k: PageKind| pages.iter().filter(|p| p.kind == k).count();
    let paths = model
        .operations
        .keys()
        .filter(|k| k.kind == OperationKind::Path)
        .count();
    assert_eq!(count(PageKind::Operation), paths, "{name}: operation pages");
    assert_eq!(
        count(PageKind::Webhook),
        model.operations.len() - paths,
        "{name}: webhook pages"
    );
    assert_eq!(
        count(PageKind::Channel),
        model.channels.len(),
        "{name}: channel pages"
    );
    assert_eq!(
        count(PageKind::MessageOperation),
        model.message_operations.len(),
        "{name}"
    );
    assert_eq!(
        count(PageKind::Schema),
        model.schemas.len(),
        "{name}: schema pages"
    );
    for p in &pages {
        if matches!(
            p.kind,
            PageKind::Operation | PageKind::Webhook | PageKind::MessageOperation
        ) {
            let href = format!("href=\"{}/{}\"", common::BASE, p.path);
            assert!(
                sidebar.contains(&href),
                "{name}: {} missing from the navigation",
                p.path
            );
        }
    }

    // operationId aliases redirect to the canonical page.
    for op in model.operations.values() {
        let Some(id) = &op.operation_id else { continue };
        let dir = if op.key.kind == OperationKind::Path {
            "operation"
        } else {
            "webhook"
        };
        let alias = format!("{dir}/{id}");
        let page = site
            .operation_page(&doc, &op.key.method, &op.path)
            .expect("operation page");
        let canonical = site.info(page).path.to_string();
        match site.lookup(&alias) {
            Lookup::Redirect(to) => assert_eq!(to, canonical, "{name}: alias {alias}"),
            Lookup::Page(p) => assert_eq!(
                site.info(p).path,
                alias,
                "{name}: {alias} is another page's path"
            ),
            Lookup::NotFound => panic!("{name}: alias {alias} not found"),
        }
    }

    // Render: every page of the document (GitHub) or a sample of each kind.
    let mut sampled_ops = 0;
    for (i, p) in pages.iter().enumerate() {
        let sample = render_all
            || i % 9 == 0
            || matches!(
                p.kind,
                PageKind::Home | PageKind::Channel | PageKind::MessageOperation
            );
        if !sample {
            continue;
        }
        let page = site.render(&doc, &p.page, &ctx);
        assert!(
            page.html.starts_with("<!DOCTYPE html>"),
            "{name}: {}",
            p.path
        );
        assert!(page.html.contains("</html>"), "{name}: {}", p.path);
        let gz = gzipped_len(&page.html);
        assert!(
            gz <= MAX_GZIPPED,
            "{name}: {} is {gz} bytes gzipped",
            p.path
        );
        if p.kind == PageKind::Operation && (i % 3 == 0 || render_all && i % 17 == 0) {
            sampled_ops += 1;
            check_operation_page(&doc, &site, p.page, &page.html, &name);
        }
    }
    assert!(
        sampled_ops > 0 || paths == 0,
        "{name}: no operation page was checked"
    );
}

/// The page shows every parameter, every response status, and the top-level properties of every
/// request and response body schema.
fn check_operation_page(
    doc: &Document,
    site: &Site,
    page: specpress_render::PageRef,
    html: &str,
    name: &str,
) {
    let info = site.info(page);
    let op = doc
        .model()
        .operations
        .values()
        .find(|o| site.operation_page(doc, &o.key.method, &o.path) == Some(page))
        .expect("operation of the page");
    for param in &op.parameters {
        let needle = format!("<code class=\"pn\">{}</code>", escape(&param.name));
        assert!(
            html.contains(&needle),
            "{name}: {} lacks parameter {}",
            info.path,
            param.name
        );
    }
    for status in op.responses.keys() {
        let needle = format!("id=\"response-{}\"", status.to_ascii_lowercase());
        assert!(
            html.contains(&needle),
            "{name}: {} lacks response {status}",
            info.path
        );
    }
    let mut bodies: Vec<(&Location, &str)> = Vec::new();
    if let Some(b) = &op.request_body {
        bodies.extend(
            b.content
                .values()
                .filter_map(|m| m.schema.as_ref())
                .map(|l| (l, "request")),
        );
    }
    for r in op.responses.values() {
        bodies.extend(
            r.content
                .values()
                .filter_map(|m| m.schema.as_ref())
                .map(|l| (l, "response")),
        );
    }
    for (loc, side) in bodies {
        let mut props = Vec::new();
        top_properties(doc, loc, side, &mut props, 0);
        for prop in props {
            let needle = format!("<code class=\"pn\">{}</code>", escape(&prop));
            assert!(
                html.contains(&needle),
                "{name}: {} lacks {side} property {prop}",
                info.path
            );
        }
    }
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn every_corpus_document_has_a_page_for_each_operation_channel_and_schema_and_they_render() {
    let dir = corpus_dir();
    let files = corpus_files(&dir);
    assert!(!files.is_empty(), "no document in {}", dir.display());
    for f in files {
        let all = f.to_string_lossy().contains("github-api-23");
        check_document(&f, all);
    }
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn asyncapi_2_subscribe_is_told_as_the_application_sending_and_publish_as_it_receiving() {
    let dir = corpus_dir();
    let doc = load(&dir.join("asyncapi/streetlights-kafka-2.5.0.yml"));
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Streetlights");
    let verbs: Vec<&str> = doc
        .model()
        .message_operations
        .values()
        .map(|op| op.source.pointer.rsplit('/').next().unwrap_or(""))
        .collect();
    let (mut subscribe, mut publish) = (0, 0);
    for p in site
        .pages()
        .filter(|p| p.kind == PageKind::MessageOperation)
    {
        let html = site.render(&doc, &p.page, &ctx).html;
        if html.contains("AsyncAPI 2 <code>subscribe</code>") {
            assert!(
                html.contains("sends this message.</strong> Your application receives it"),
                "{}",
                p.path
            );
            subscribe += 1;
        } else if html.contains("AsyncAPI 2 <code>publish</code>") {
            assert!(
                html.contains("receives this message.</strong> Your application sends it"),
                "{}",
                p.path
            );
            publish += 1;
        } else {
            panic!("{}: no direction told", p.path);
        }
    }
    assert_eq!(
        subscribe,
        verbs.iter().filter(|v| **v == "subscribe").count()
    );
    assert_eq!(publish, verbs.iter().filter(|v| **v == "publish").count());
    assert!(subscribe > 0 && publish > 0, "{verbs:?}");
}
