//! `cargo run -p specpress-render --release --example render-dump -- OUT_DIR`: writes every output of the rendering
//! engine for every document of the corpus, one file per output, so that a refactoring that must not change
//! behaviour is checked byte for byte (`diff -r` of the folder written before and the one written after).
//!
//! For each document (`<OUT_DIR>/<document>/`):
//! - `index.txt`: the page index (page, kind, path, title), the lookup of every path and of its trailing-slash
//!   form, the lookup of each operation by method and path;
//! - `html/<page>.html`: every page of the site in a full portal context (branches, version, links, search form,
//!   alternates), plus `html-bare/<page>.html` for the home page and a sample of pages in a bare context;
//! - `md/<page>.md`: the Markdown variant of every page; `llms.txt`; `sidebar.html` (no current page);
//! - `search/`: the index's figures, then for each query of [`QUERIES`] the hits (kind, title, context, path,
//!   badge, score, approximate) and the results page, and a hub's results page.
//!
//! For each pair of [`PAIRS`] (`<OUT_DIR>/changes/<pair>/`), the diff engine's details between the two documents
//! (both directions) rendered as every change page: changelog (every kind of release, with and without a branch,
//! with a pager), change page, compare page (form alone, with result, with a problem), public diff page, hub page,
//! and the Atom and RSS feeds, plus the counts and headlines.
//!
//! One difference between two runs of the same engine is taken out: the order of the two attributes the sanitizer
//! adds to an `<img>` (see [`IMG_ATTRIBUTES`]).
//!
//! Corpus folder from `SPECPRESS_CORPUS` (default `<repo>/../shared/corpus`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use specpress_alloc as _;
use specpress_apispec::{Document, Limits};
use specpress_render::changes::{
    self, ChangePage, Changelog, Changes, ComparePage, DiffPage, HubApi, HubPage, Pager, Release,
    ReleaseChanges, VersionOption, VersionRef,
};
use specpress_render::feed::{self, Feed, FeedEntry};
use specpress_render::search::{self, MAX_RESULTS};
use specpress_render::{
    Alternate, BranchLink, Lookup, MarkdownContext, NavLink, PageContext, SearchIndex, SearchPage,
    SearchResult, Site, VersionInfo, asset_urls, assets,
};

/// Queries of the results pages: words, prefixes, typos, several words, paths, misses, and queries that are not
/// searched (empty, too long, no word).
const QUERIES: &[&str] = &[
    "",
    "   ",
    "repository",
    "repositories",
    "list pull requests",
    "pull",
    "repo",
    "issue comment",
    "reposListForOrg",
    "/repos/{owner}/{repo}/issues",
    "webhook",
    "repositroy",
    "colaborators",
    "vacinations",
    "secret scanning alert",
    "created_at",
    "per_page",
    "login",
    "id",
    "customer",
    "payment intent",
    "subscriptoin",
    "zzzzzzzz",
    "a b",
    "the quick brown fox jumps over",
    "GET",
    "pod",
    "namespace status",
    "chat completion",
    "assistant",
    "streetlight",
    "lumens",
    "message",
    "channel",
    "<script>alert(1)</script>",
    "x",
    "ééé ÜBER straße",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

/// Pairs (previous, current) whose diff is rendered as change pages.
const PAIRS: &[(&str, &str)] = &[
    (
        "openapi-3.0/stripe-2022-02-08.json",
        "openapi-3.0/stripe-2022-04-12.json",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "asyncapi/slack-rtm-3.0.0.yml",
        "asyncapi/slack-rtm-3.1.0.yml",
    ),
];

const BASE: &str = "/doc/pets";
const TODAY: &str = "2026-01-01";

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            corpus_files(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
        {
            out.push(path);
        }
    }
    Ok(())
}

fn load(path: &Path) -> Result<Document, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let limits = Limits {
        max_bytes: 64 << 20,
        ..Default::default()
    };
    Ok(specpress_apispec::parse_owned(text, Vec::new(), &limits)?)
}

const BRANCHES: &[BranchLink<'static>] = &[
    BranchLink {
        name: "main",
        href: "/doc/pets",
        current: true,
        default: true,
    },
    BranchLink {
        name: "next <b>",
        href: "/doc/pets/branches/next",
        current: false,
        default: false,
    },
];

const LINKS: &[NavLink<'static>] = &[
    NavLink {
        label: "Changelog",
        href: "/doc/pets/changes",
        current: false,
    },
    NavLink {
        label: "Hub",
        href: "/hub/main",
        current: true,
    },
];

const ALTERNATES: &[Alternate<'static>] = &[
    Alternate {
        href: "/doc/pets.json",
        media_type: "application/json",
        title: "Definition (JSON)",
    },
    Alternate {
        href: "/doc/pets/changes.atom",
        media_type: "application/atom+xml",
        title: "Changelog",
    },
];

fn full_ctx<'a>(urls: &'a specpress_render::AssetUrls, doc_name: &'a str) -> PageContext<'a> {
    PageContext {
        base: BASE,
        doc_name,
        branches: BRANCHES,
        version: Some(VersionInfo {
            id: "v-123",
            published_at: "2026-11-25T10:00:00.123Z",
            api_version: "1.0.0 <i>",
        }),
        assets: urls,
        links: LINKS,
        search_action: Some("/doc/pets/search"),
        alternates: ALTERNATES,
        noindex: false,
        session_href: None,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    }
}

fn bare_ctx(urls: &specpress_render::AssetUrls) -> PageContext<'_> {
    PageContext {
        base: "",
        doc_name: "",
        branches: &[],
        version: None,
        assets: urls,
        links: &[],
        search_action: None,
        alternates: &[],
        noindex: true,
        session_href: None,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    }
}

/// The two attributes the sanitizer adds to an `<img>`, in the order of one run and of the other: ammonia keeps
/// them in a `HashMap` whose order is drawn at random per process, so two runs of the same engine can write them
/// either way round.
const IMG_ATTRIBUTES: [&str; 2] = [
    " referrerpolicy=\"no-referrer\" loading=\"lazy\"",
    " loading=\"lazy\" referrerpolicy=\"no-referrer\"",
];

/// Writes one output, the sanitizer's `<img>` attributes put in one order (the only difference between two runs
/// of the same engine).
fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if text.contains(IMG_ATTRIBUTES[0]) {
        return std::fs::write(path, text.replace(IMG_ATTRIBUTES[0], IMG_ATTRIBUTES[1]));
    }
    std::fs::write(path, text)
}

fn lookup_text(l: &Lookup) -> String {
    match l {
        Lookup::Page(p) => format!("page {p:?}"),
        Lookup::Redirect(to) => format!("redirect {to}"),
        Lookup::NotFound => "not found".to_string(),
    }
}

/// The page index and the lookups.
fn index_dump(doc: &Document, site: &Site) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "pages {}", site.page_count());
    for info in site.pages() {
        let _ = writeln!(
            out,
            "{:?}\t{:?}\t{}\t{}",
            info.page, info.kind, info.path, info.title
        );
        assert_eq!(site.info(info.page).path, info.path);
    }
    for info in site.pages() {
        let slash = format!("{}/", info.path);
        let _ = writeln!(
            out,
            "lookup {:?} -> {}; {:?} -> {}",
            info.path,
            lookup_text(&site.lookup(info.path)),
            slash,
            lookup_text(&site.lookup(&slash)),
        );
    }
    for op in doc.model().operations.values() {
        let found = site.operation_page(doc, &op.key.method.to_ascii_uppercase(), &op.path);
        let _ = writeln!(
            out,
            "operation {} {} -> {:?}",
            op.key.method, op.path, found
        );
    }
    for p in ["no/such/page", "", "/", "schemas", "op/x"] {
        let _ = writeln!(out, "lookup {p:?} -> {}", lookup_text(&site.lookup(p)));
    }
    out
}

/// Every page as HTML and as Markdown, the llms.txt and the sidebar.
fn pages_dump(dir: &Path, doc: &Document, site: &Site) -> std::io::Result<usize> {
    let urls = asset_urls("/static");
    let doc_name = format!("{} <docs>", doc.title());
    let ctx = full_ctx(&urls, &doc_name);
    let bare = bare_ctx(&urls);
    let md_ctx = MarkdownContext {
        base: "https://docs.example.com/doc/pets",
        doc_name: &doc_name,
        version: Some(("1.0.0 [x]", "2026-11-25T10:00:00Z")),
        mcp: None,
    };
    let md_bare = MarkdownContext {
        base: "",
        doc_name: "",
        version: None,
        mcp: None,
    };
    let mut count = 0;
    for (n, info) in site.pages().enumerate() {
        let page = site.render(doc, &info.page, &ctx);
        write(
            &dir.join(format!("html/{n:05}.html")),
            &format!("{}\n{}", page.title, page.html),
        )?;
        write(
            &dir.join(format!("md/{n:05}.md")),
            &site.render_markdown(doc, &info.page, &md_ctx),
        )?;
        count += 2;
        if n % 97 == 0 {
            write(
                &dir.join(format!("html-bare/{n:05}.html")),
                &site.render(doc, &info.page, &bare).html,
            )?;
            write(
                &dir.join(format!("md-bare/{n:05}.md")),
                &site.render_markdown(doc, &info.page, &md_bare),
            )?;
            count += 2;
        }
    }
    write(&dir.join("llms.txt"), &site.llms_txt(doc, &md_ctx))?;
    write(&dir.join("llms-bare.txt"), &site.llms_txt(doc, &md_bare))?;
    write(&dir.join("sidebar.html"), site.sidebar(BASE, None).as_str())?;
    Ok(count + 3)
}

/// The search index's figures, each query's hits and results page, and a hub's results page.
fn search_dump(dir: &Path, doc: &Document, site: &Site) -> std::io::Result<usize> {
    let index = SearchIndex::build(doc, site);
    let urls = asset_urls("/static");
    let doc_name = format!("{} <docs>", doc.title());
    let ctx = full_ctx(&urls, &doc_name);
    let mut count = 1;
    write(
        &dir.join("search/index.txt"),
        &format!(
            "entries {} empty {} terms {} truncated {} bytes {}\n",
            index.len(),
            index.is_empty(),
            index.term_count(),
            index.truncated(),
            index.size_bytes()
        ),
    )?;
    for (q, query) in QUERIES.iter().enumerate() {
        let mut hits = format!("query {query:?} words {:?}\n", search::query_words(query));
        let (found, error) = match index.search(site, query, MAX_RESULTS) {
            Ok(f) => (f, None),
            Err(e) => (Default::default(), Some(e)),
        };
        let _ = writeln!(
            hits,
            "total {} partial {} error {error:?}",
            found.total, found.partial
        );
        for h in &found.hits {
            let _ = writeln!(
                hits,
                "{:?}\t{}\t{}\t{}\t{:?}\t{:?}\t{}\t{}",
                h.kind,
                h.title,
                h.context,
                h.path,
                h.badge,
                h.score,
                h.approximate,
                h.href(BASE)
            );
        }
        write(&dir.join(format!("search/{q:02}.txt")), &hits)?;
        let results: Vec<SearchResult<'_>> = found
            .hits
            .iter()
            .map(|h| SearchResult::of(h, BASE, None))
            .collect();
        let html = specpress_render::search_page(
            &ctx,
            &SearchPage {
                query,
                action: "/doc/pets/search",
                scope: "this documentation",
                results: &results,
                total: found.total,
                partial: found.partial,
                error,
            },
        );
        write(&dir.join(format!("search/{q:02}.html")), &html)?;
        count += 2;
    }
    // A hub's results: three results of another query, with the API's name.
    let found = index.search(site, "list", 3).unwrap_or_default();
    let results: Vec<SearchResult<'_>> = found
        .hits
        .iter()
        .map(|h| SearchResult::of(h, "", Some("Pets <api>")))
        .collect();
    let html = specpress_render::search_page(
        &bare_ctx(&urls),
        &SearchPage {
            query: "list",
            action: "/hub/main/search",
            scope: "the <Main> hub",
            results: &results,
            total: found.total + 100,
            partial: true,
            error: None,
        },
    );
    write(&dir.join("search/hub.html"), &html)?;
    Ok(count + 1)
}

fn document_dump(
    out: &Path,
    corpus: &Path,
    path: &Path,
) -> Result<usize, Box<dyn std::error::Error>> {
    let rel = path
        .strip_prefix(corpus)
        .unwrap_or(path)
        .display()
        .to_string();
    let dir = out.join(slug(&rel));
    let doc = load(path)?;
    let site = Site::build(&doc);
    write(&dir.join("index.txt"), &index_dump(&doc, &site))?;
    let mut count = 1;
    count += pages_dump(&dir, &doc, &site)?;
    count += search_dump(&dir, &doc, &site)?;
    eprintln!("{rel}: {count} outputs");
    Ok(count)
}

fn time(s: &str) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}

/// Every change page of one diff between two documents, `head` being the later one (its pages are linked).
fn changes_dump(
    dir: &Path,
    details: serde_json::Value,
    head: &Document,
) -> Result<usize, Box<dyn std::error::Error>> {
    let site = Site::build(head);
    let link = |kind: &str, verb: &str, path: &str| {
        if !matches!(kind, "endpoint" | "webhook") {
            return None;
        }
        let page = site.operation_page(head, verb, path)?;
        Some(format!("{BASE}/{}", site.info(page).path))
    };
    let text = serde_json::to_string(&details)?;
    let c = Changes::from_value(details)?;
    let parsed = Changes::parse(&text)?;
    let empty = Changes::parse("null")?;
    let counts = c.counts();
    let mut summary = format!(
        "empty {} breaking {} counts {counts:?} total {}\nparsed counts {:?}\n",
        c.is_empty(),
        c.breaking(),
        counts.total(),
        parsed.counts()
    );
    for max in [0, 3, 100_000] {
        let _ = writeln!(summary, "headlines {max}:\n{}", c.headlines(max).join("\n"));
    }
    let kinds = [
        ("changes", ReleaseChanges::Changes(&c)),
        ("content", ReleaseChanges::ContentOnly(&c)),
        ("empty", ReleaseChanges::Changes(&empty)),
        ("first", ReleaseChanges::First),
        ("unavailable", ReleaseChanges::Unavailable),
        ("unchanged", ReleaseChanges::Unchanged),
    ];
    for (name, k) in &kinds {
        let _ = writeln!(
            summary,
            "{name}: breaking {}\n{}",
            k.breaking(),
            k.summary_text(5)
        );
    }
    write(&dir.join("summary.txt"), &summary)?;
    let mut count = 1;

    let urls = asset_urls("/static");
    let ctx = full_ctx(&urls, "Pets <docs>");
    let ids = [
        "0190aaaa-1111-7000-8000-000000000001",
        "0190aaaa-1111-7000-8000-000000000002",
        "0190aaaa-1111-7000-8000-000000000003",
        "0190aaaa-1111-7000-8000-000000000004",
        "0190aaaa-1111-7000-8000-000000000005",
        "short",
    ];
    let releases: Vec<Release<'_>> = kinds
        .iter()
        .zip(ids)
        .enumerate()
        .map(|(i, ((_, k), id))| Release {
            href: "/doc/pets/changes/v1",
            id,
            api_version: if i % 2 == 0 { "2.0.<b>" } else { " " },
            title: "Pets & <co>",
            published_at: if i == 3 {
                "yesterday"
            } else {
                "2026-11-25T13:01:18.103Z"
            },
            doc: (i % 3 == 1).then_some(("Pets <api>", "/doc/pets")),
            changes: *k,
        })
        .collect();
    for (name, branch, pager) in [
        (
            "changelog",
            None,
            Pager {
                page: 1,
                pages: 1,
                newer: None,
                older: None,
            },
        ),
        (
            "changelog-branch",
            Some("next <b>"),
            Pager {
                page: 2,
                pages: 3,
                newer: Some("/doc/pets/changes?page=1"),
                older: Some("/doc/pets/changes?page=3"),
            },
        ),
    ] {
        for (suffix, shown) in [("", &releases[..]), ("-none", &releases[..0])] {
            let html = changes::changelog_page(
                &ctx,
                &Changelog {
                    branch,
                    total: shown.len() as u64,
                    releases: shown,
                    pager,
                    atom_href: "/doc/pets/changes.atom",
                    rss_href: "/doc/pets/changes.rss",
                    compare_href: "/doc/pets/compare",
                },
                &link,
            );
            write(&dir.join(format!("{name}{suffix}.html")), &html)?;
            count += 1;
        }
    }
    let version = VersionRef {
        id: "0190aaaa-1111-7000-8000-000000000002",
        api_version: "2.0 <b>",
        branch: "main",
        published_at: "2026-11-25T13:01:18Z",
        href: Some("/doc/pets/changes/v2"),
    };
    let previous = VersionRef {
        id: "0190aaaa-1111-7000-8000-000000000001",
        api_version: "",
        branch: "next <b>",
        published_at: "2026-10-01T00:00:00Z",
        href: None,
    };
    for (name, k) in &kinds {
        for (suffix, prev, temporary) in [("", Some(previous), false), ("-alone", None, true)] {
            let html = changes::change_page(
                &ctx,
                &ChangePage {
                    version,
                    title: "Pets & <co>",
                    previous: prev,
                    changes: *k,
                    changelog_href: "/doc/pets/changes",
                    json_href: "/doc/pets/changes/v2.json",
                    source_href: "/doc/pets/versions/v2.json",
                    compare_href: prev.map(|_| "/doc/pets/compare?from=a&to=b"),
                    temporary,
                },
                &link,
            );
            write(&dir.join(format!("change-{name}{suffix}.html")), &html)?;
            let html = changes::diff_page(
                &ctx,
                &DiffPage {
                    title: "Pets <api>",
                    changes: *k,
                    previous_href: "/diffs/d1/previous.json",
                    current_href: "/diffs/d1/current.json",
                    expires_at: (!temporary).then_some("2026-12-01T00:00:00Z"),
                },
            );
            write(&dir.join(format!("diff-{name}{suffix}.html")), &html)?;
            count += 2;
        }
    }
    let options = vec![
        (
            "main",
            vec![
                VersionOption {
                    id: version.id,
                    label: "2.0 <b> (main)",
                },
                VersionOption {
                    id: "0190aaaa-1111-7000-8000-000000000009",
                    label: "1.9",
                },
            ],
        ),
        (
            "next <b>",
            vec![VersionOption {
                id: previous.id,
                label: "next <b>",
            }],
        ),
    ];
    for (name, from, to, k, problem) in [
        ("form", None, None, None, None),
        (
            "problem",
            Some(previous),
            None,
            None,
            Some("No version <x>."),
        ),
        (
            "result",
            Some(previous),
            Some(version),
            Some(kinds[0].1),
            None,
        ),
        (
            "content",
            Some(version),
            Some(previous),
            Some(kinds[1].1),
            None,
        ),
        (
            "unlisted",
            Some(VersionRef {
                id: "old-version-id",
                ..previous
            }),
            Some(version),
            Some(kinds[5].1),
            None,
        ),
    ] {
        let html = changes::compare_page(
            &ctx,
            &ComparePage {
                action: "/doc/pets/compare",
                options: &options,
                from,
                to,
                changes: k,
                problem,
                changelog_href: "/doc/pets/changes",
            },
            &link,
        );
        write(&dir.join(format!("compare-{name}.html")), &html)?;
        count += 1;
    }
    let apis = [
        HubApi {
            name: "Pets <api>",
            href: "/doc/pets",
            description: Some("# Pets\n\nThe *pets* API. <script>alert(1)</script>"),
            api_version: Some("2.0"),
            kind: Some("OpenAPI"),
            released_at: Some("2026-11-25T13:01:18Z"),
        },
        HubApi {
            name: "Empty",
            href: "/doc/empty",
            description: None,
            api_version: None,
            kind: None,
            released_at: None,
        },
        HubApi {
            name: "Blank",
            href: "/doc/blank",
            description: Some("  "),
            api_version: Some(" "),
            kind: Some("AsyncAPI"),
            released_at: None,
        },
    ];
    for (suffix, apis, releases) in [
        ("", &apis[..], &releases[..]),
        ("-empty", &apis[..0], &releases[..0]),
    ] {
        let html = changes::hub_page(
            &ctx,
            &HubPage {
                name: "Main <hub>",
                description: Some(
                    "The **main** hub [link](https://example.com) <img src=x onerror=y>",
                ),
                apis,
                releases,
                atom_href: "/hub/main/changes.atom",
                rss_href: "/hub/main/changes.rss",
            },
        );
        write(&dir.join(format!("hub{suffix}.html")), &html)?;
        count += 1;
    }
    let entries: Vec<FeedEntry> = kinds
        .iter()
        .zip(ids)
        .enumerate()
        .map(|(i, ((name, k), id))| FeedEntry {
            title: format!("Pets <{name}> \u{1} {i}"),
            url: format!("https://docs.example.com/doc/pets/changes/{id}"),
            id: format!("urn:uuid:{id}"),
            published: time("2026-11-25T13:01:18.5Z") - time::Duration::days(i as i64),
            summary: k.summary_text(12),
        })
        .collect();
    for (suffix, entries) in [("", &entries[..]), ("-empty", &entries[..0])] {
        let f = Feed {
            title: "Pets & <docs>",
            subtitle: "Every version \u{0} of Pets",
            self_url: "https://docs.example.com/doc/pets/changes.atom",
            page_url: "https://docs.example.com/doc/pets/changes",
            updated: time("2026-11-25T13:01:18.5Z"),
            entries,
        };
        write(&dir.join(format!("feed{suffix}.atom")), &feed::atom(&f))?;
        write(&dir.join(format!("feed{suffix}.rss")), &feed::rss(&f))?;
        count += 2;
    }
    Ok(count)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: dump OUT_DIR");
        std::process::exit(2);
    };
    let corpus = std::env::var_os("SPECPRESS_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    if !corpus.join("README.md").is_file() {
        eprintln!("corpus folder {} not found", corpus.display());
        std::process::exit(1);
    }
    std::fs::create_dir_all(&out)?;
    let mut count = 0;
    let mut listing = String::new();
    for a in assets() {
        let _ = writeln!(listing, "{} {} {}", a.name, a.content_type, a.bytes.len());
    }
    let _ = writeln!(listing, "{:?}", asset_urls("/static"));
    for t in ["2026-11-25T13:01:18.103Z", "2026-11-25T13:01:18+02:00", ""] {
        let _ = writeln!(listing, "{t:?} -> {}", specpress_render::human_time(t));
    }
    write(&out.join("assets.txt"), &listing)?;
    count += 1;

    let mut files = Vec::new();
    corpus_files(&corpus, &mut files)?;
    files.sort();
    for path in &files {
        count += document_dump(&out, &corpus, path)?;
    }
    for (previous, current) in PAIRS {
        let p = load(&corpus.join(previous))?;
        let c = load(&corpus.join(current))?;
        let options = specpress_diff::DiffOptions::new().with_today(TODAY);
        let name = format!("{}--{}", slug(previous), slug(current));
        let dir = out.join("changes").join(&name);
        let forward = specpress_diff::diff(&p, &c, &options).details();
        count += changes_dump(&dir.join("fwd"), forward, &c)?;
        let backward = specpress_diff::diff(&c, &p, &options).details();
        count += changes_dump(&dir.join("rev"), backward, &p)?;
        eprintln!("{name}");
    }
    eprintln!(
        "{} documents, {count} outputs written to {}",
        files.len(),
        out.display()
    );
    Ok(())
}
