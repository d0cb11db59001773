//! The reader's portal around the reference pages, end to end against the real `specpress serve` and the real
//! bump-cli: changelogs (per branch, paginated), change pages and their `.json` variants (what `diff_public_url` and
//! webhook `details_url` point at), the compare page, feeds (parsed with feed-rs), public diff pages, hub pages.

use serde_json::{Value, json};
use specpress_e2e::site::{Site, header};
use specpress_e2e::{bump, bump_cli, fixtures};

const ORG: &str = "portal-tests-organization-token-42";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

/// Version 3 of the petstore: version 2 with only descriptions changed (a content-only release).
fn petstore_v3() -> String {
    fixture("petstore-v2.yaml")
        .replace("version: 2.0.0", "version: 2.0.1")
        .replace(
            "description: A small pet store.",
            "description: A small pet store, now better described.",
        )
        .replace(
            "description: A list of pets",
            "description: Every pet, in pages",
        )
}

/// What the portal's tests read of a site, beyond the shared harness.
trait Portal {
    fn page(&self, p: &str) -> String;
    fn feed(&self, p: &str, media: &str) -> feed_rs::model::Feed;
    fn versions(&self, doc: &str, branch: Option<&str>) -> Vec<String>;
}

impl Portal for Site {
    fn page(&self, p: &str) -> String {
        let (s, h, body) = self.get(p);
        assert_eq!(s, 200, "{p}: {body}");
        assert!(header(&h, "content-type").starts_with("text/html"), "{p}");
        assert!(
            header(&h, "content-security-policy").contains("script-src 'self'"),
            "{p}: the pages' security headers"
        );
        body
    }
    fn feed(&self, p: &str, media: &str) -> feed_rs::model::Feed {
        let (s, h, body) = self.get(p);
        assert_eq!(s, 200, "{p}: {body}");
        assert!(header(&h, "content-type").starts_with(media), "{p}");
        feed_rs::parser::parse(body.as_bytes()).unwrap_or_else(|e| panic!("{p}: {e}\n{body}"))
    }
    /// The published versions of a documentation's branch, newest first.
    fn versions(&self, doc: &str, branch: Option<&str>) -> Vec<String> {
        let q = branch.map(|b| format!("&branch={b}")).unwrap_or_default();
        let (s, b) = self.api(
            reqwest::Method::GET,
            &format!("/api/v1/docs/{doc}/versions?limit=100{q}"),
            None,
        );
        assert_eq!(s, 200, "{b}");
        b.as_array()
            .unwrap()
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_owned())
            .collect()
    }
}

/// The text of the first element with `class="{class}"` that contains `needle`, up to its `</article>`.
fn article_with<'a>(html: &'a str, needle: &str) -> &'a str {
    for (i, _) in html.match_indices("<article") {
        let end = html[i..].find("</article>").map_or(html.len(), |e| i + e);
        if html[i..end].contains(needle) {
            return &html[i..end];
        }
    }
    panic!("no entry with {needle}: {html}")
}

/// Every `href` value of a page, decoded from its HTML escaping.
fn hrefs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("href=\"") {
        rest = &rest[i + 6..];
        if let Some(end) = rest.find('"') {
            out.push(rest[..end].replace("&amp;", "&"));
        }
    }
    out
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn three_bump_cli_deploys_give_a_changelog_change_pages_json_feeds_compare_and_a_hub_page() {
    let cli = bump_cli();
    let site = Site::start(ORG);
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs",
        Some(json!({"name": "Payments", "slug": "payments"})),
    );
    assert_eq!(s, 201, "{b}");
    let base = site.server.base_url.clone();
    let v3_file = site.dir.path().join("petstore-v3.yaml");
    std::fs::write(&v3_file, petstore_v3()).unwrap();
    let v3_path = v3_file.to_str().unwrap();
    let mut printed = Vec::new();
    for file in ["petstore.yaml", "petstore-v2.yaml", v3_path] {
        let r = bump(
            &cli,
            &base,
            &[
                "deploy",
                file,
                "--doc",
                "pets",
                "--doc-name",
                "Pets API",
                "--hub",
                "payments",
                "--auto-create",
                "--token",
                ORG,
            ],
        );
        assert_eq!(r.code, 0, "{r:?}");
        let url = r
            .all()
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1"))
            .map(|w| w.trim_end_matches(['.', ',']).to_owned())
            .unwrap_or_else(|| panic!("no URL printed: {r:?}"));
        printed.push(url);
    }
    let ids = site.versions("pets", None);
    assert_eq!(ids.len(), 3);
    let (v3, v2, v1) = (&ids[0], &ids[1], &ids[2]);

    // The documentation's pages link to its changelog and advertise its feeds.
    let home = site.page(&printed[2]);
    assert!(home.contains("href=\"/doc/pets/changes\""), "{home}");
    assert!(
        home.contains(
            "<link rel=\"alternate\" type=\"application/atom+xml\" href=\"/doc/pets/changes.atom\""
        ) && home.contains("type=\"application/rss+xml\" href=\"/doc/pets/changes.rss\""),
        "{home}"
    );

    // The changelog: newest first, each entry with its kind of release, breaking ones marked in text.
    let log = site.page("/doc/pets/changes");
    let pos = |id: &str| log.find(&format!("/doc/pets/changes/{id}")).unwrap();
    assert!(pos(v3) < pos(v2) && pos(v2) < pos(v1), "newest first");
    let e2 = article_with(&log, &format!("changes/{v2}\""));
    assert!(
        e2.contains(">Breaking<"),
        "the breaking release is marked: {e2}"
    );
    assert!(
        e2.contains("GET /pets/{id}") && e2.contains("POST /pets"),
        "{e2}"
    );
    assert!(
        e2.find("Breaking changes").unwrap() < e2.find(">Added<").unwrap(),
        "breaking first: {e2}"
    );
    let e3 = article_with(&log, &format!("changes/{v3}\""));
    assert!(e3.contains("Content-only release"), "{e3}");
    assert!(!e3.contains(">Breaking<"), "{e3}");
    let e1 = article_with(&log, &format!("changes/{v1}\""));
    assert!(e1.contains("First published version"), "{e1}");
    assert!(
        log.contains("aria-current=\"page\">Changelog</a>"),
        "the header marks the changelog"
    );

    // diff_public_url (GET /versions/{id}) is the change page; its `.json` is the diff's details.
    let (s, v) = site.api(
        reqwest::Method::GET,
        &format!("/api/v1/versions/{v2}"),
        None,
    );
    assert_eq!(s, 200, "{v}");
    let public = v["diff_public_url"].as_str().unwrap().to_owned();
    assert_eq!(public, format!("{base}/doc/pets/changes/{v2}"));
    let change = site.page(&public);
    assert!(change.contains("<h1>Changes in 2.0.0</h1>"), "{change}");
    assert!(
        change.contains("This release has breaking changes"),
        "{change}"
    );
    assert!(
        change.contains("parameter `limit` became required"),
        "the messages of the tree: {change}"
    );
    assert!(
        change.contains(&format!("/doc/pets/changes/{v1}")),
        "links the version it followed"
    );
    // It links into the reference pages of the operations it names, and those links work.
    let op_links: Vec<String> = hrefs(&change)
        .into_iter()
        .filter(|h| h.starts_with("/doc/pets/operation/"))
        .collect();
    assert!(!op_links.is_empty(), "{change}");
    for l in &op_links {
        assert_eq!(site.get(l).0, 200, "{l}");
    }
    let (s, h, json_text) = site.get(&format!("{public}.json"));
    assert_eq!(s, 200);
    assert!(header(&h, "content-type").starts_with("application/json"));
    let details: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(
        details, v["diff_details"],
        "the same details as GET /versions/{{id}}"
    );
    // The contract's `/change/` form still lands there; the definition moved to `/versions/{v}/source`.
    let (s, h, _) = site.get(&format!("/doc/pets/change/{v2}"));
    assert_eq!(
        (s, header(&h, "location")),
        (308, format!("/doc/pets/changes/{v2}").as_str())
    );
    let (s, _, source) = site.get(&format!("/doc/pets/versions/{v2}/source"));
    assert_eq!((s, source), (200, fixture("petstore-v2.yaml")));
    // A first version's change page and details.
    assert!(
        site.page(&format!("/doc/pets/changes/{v1}"))
            .contains("First published version")
    );
    assert_eq!(site.get(&format!("/doc/pets/changes/{v1}.json")).2, "[]");
    // A content-only release says so, and lists the texts that changed.
    let v3_page = site.page(&format!("/doc/pets/changes/{v3}"));
    assert!(
        v3_page.contains("Content-only release") && v3_page.contains("description changed"),
        "{v3_page}"
    );
    let v3_json: Value =
        serde_json::from_str(&site.get(&format!("/doc/pets/changes/{v3}.json")).2).unwrap();
    let (_, v3_api) = site.api(
        reqwest::Method::GET,
        &format!("/api/v1/versions/{v3}"),
        None,
    );
    assert_eq!(v3_json, v3_api["diff_details"]);

    // Feeds: valid Atom and RSS with an entry per release, newest first, linking the change pages.
    for (path, media) in [
        ("/doc/pets/changes.atom", "application/atom+xml"),
        ("/doc/pets/changes.rss", "application/rss+xml"),
    ] {
        let feed = site.feed(path, media);
        assert_eq!(
            feed.title.as_ref().unwrap().content,
            "Pets API: changelog",
            "{path}"
        );
        assert_eq!(feed.entries.len(), 3, "{path}");
        let links: Vec<&str> = feed
            .entries
            .iter()
            .map(|e| e.links[0].href.as_str())
            .collect();
        assert_eq!(
            links,
            [v3, v2, v1].map(|id| format!("{base}/doc/pets/changes/{id}")),
            "{path}"
        );
        let second = &feed.entries[1];
        assert!(
            second
                .title
                .as_ref()
                .unwrap()
                .content
                .ends_with("(breaking)"),
            "{path}"
        );
        assert!(
            second
                .summary
                .as_ref()
                .unwrap()
                .content
                .contains("Breaking: removed GET /pets/{id}"),
            "{path}: {:?}",
            second.summary
        );
        assert!(
            feed.entries[0]
                .summary
                .as_ref()
                .unwrap()
                .content
                .contains("Content-only")
        );
        assert!(feed.entries[2].published.is_some());
    }

    // Compare any two versions (a GET form); an unknown version is a 404 that keeps the form.
    let cmp = site.page(&format!("/doc/pets/compare?from={v1}&to={v3}"));
    assert!(
        cmp.contains("<form class=\"cmp\" method=\"get\" action=\"/doc/pets/compare\">"),
        "{cmp}"
    );
    assert!(
        cmp.contains("GET /pets/{id}") && cmp.contains("Breaking changes"),
        "{cmp}"
    );
    assert!(cmp.contains(&format!("value=\"{v1}\" selected")), "{cmp}");
    let (s, _, body) = site.get(&format!(
        "/doc/pets/compare?from={v1}&to=3ef8f52f-9056-4113-840e-2f7183b90e06"
    ));
    assert_eq!(s, 404);
    assert!(
        body.contains("no such version") && body.contains("<select"),
        "{body}"
    );
    assert!(site.page("/doc/pets/compare").contains("Choose a version"));

    // The hub: the URL the API returns is a page listing its APIs and their latest releases, with feeds.
    let (s, hub) = site.api(reqwest::Method::GET, "/api/v1/hubs/payments", None);
    assert_eq!(s, 200, "{hub}");
    let hub_url = hub["url"].as_str().unwrap();
    assert_eq!(hub_url, format!("{base}/hub/payments"));
    let page = site.page(hub_url);
    assert!(page.contains("<h1>Payments</h1>"), "{page}");
    assert!(
        page.contains("<a href=\"/doc/pets\">Pets API</a>"),
        "{page}"
    );
    assert!(
        page.contains("<code>2.0.1</code>") && page.contains(">OpenAPI<"),
        "{page}"
    );
    assert!(
        page.contains("A small pet store, now better described."),
        "the API's description: {page}"
    );
    assert!(page.contains("Last release <time"), "{page}");
    assert!(
        page.contains(&format!("/doc/pets/changes/{v2}")),
        "the combined changelog: {page}"
    );
    assert!(
        page.contains("href=\"/hub/payments/changes.atom\""),
        "{page}"
    );
    for (path, media) in [
        ("/hub/payments/changes.atom", "application/atom+xml"),
        ("/hub/payments/changes.rss", "application/rss+xml"),
    ] {
        let feed = site.feed(path, media);
        assert_eq!(feed.entries.len(), 3, "{path}");
        assert!(
            feed.entries[0]
                .title
                .as_ref()
                .unwrap()
                .content
                .starts_with("Pets API 2.0.1"),
            "{path}"
        );
    }

    // A branch has its own changelog; the default branch's named form goes to the documentation's own.
    let r = bump(
        &cli,
        &base,
        &[
            "deploy",
            "petstore.yaml",
            "--doc",
            "pets",
            "--branch",
            "next",
            "--token",
            ORG,
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let next = site.page("/doc/pets/branches/next/changes");
    assert!(
        next.contains("on the branch <strong>next</strong>") && next.contains("(1 version)"),
        "{next}"
    );
    assert!(next.contains("First published version"), "{next}");
    let feed = site.feed(
        "/doc/pets/branches/next/changes.atom",
        "application/atom+xml",
    );
    assert_eq!(feed.entries.len(), 1);
    let (s, h, _) = site.get("/doc/pets/branches/main/changes");
    assert_eq!((s, header(&h, "location")), (307, "/doc/pets/changes"));
    // Comparing across branches.
    let next_id = &site.versions("pets", Some("next"))[0];
    let across = site.page(&format!("/doc/pets/compare?from={v3}&to={next_id}"));
    assert!(
        across.contains("(next, "),
        "the branch of each side is named: {across}"
    );
    assert!(across.contains("POST /pets"), "{across}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn a_public_diff_page_renders_what_bump_diff_compares_and_an_unknown_diff_is_a_404_page() {
    let cli = bump_cli();
    let site = Site::start(ORG);
    let r = bump(
        &cli,
        &site.server.base_url,
        &[
            "diff",
            "petstore.yaml",
            "petstore-v2.yaml",
            "--format",
            "text",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("/pets/{id}"), "{r:?}");
    // The request bump diff makes, whose public_url the API returns.
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/diffs",
        Some(json!({"previous_definition": fixture("petstore.yaml"), "definition": fixture("petstore-v2.yaml")})),
    );
    assert_eq!(s, 201, "{b}");
    let url = b["public_url"].as_str().unwrap();
    let (status, h, page) = site.get(url);
    assert_eq!(status, 200, "{page}");
    assert_eq!(header(&h, "cache-control"), "no-store");
    assert!(page.contains("<h1>Changes to Petstore</h1>"), "{page}");
    assert!(
        page.contains("These changes break existing clients"),
        "{page}"
    );
    assert!(
        page.contains("GET /pets/{id}") && page.contains(">Removed<"),
        "{page}"
    );
    assert!(
        page.contains("name=\"robots\" content=\"noindex\""),
        "{page}"
    );
    for l in hrefs(&page).iter().filter(|l| l.starts_with("/diff/")) {
        assert_eq!(site.get(l).0, 200, "{l}");
    }
    let (s, _, body) = site.get("/diff/3ef8f52f-9056-4113-840e-2f7183b90e06");
    assert_eq!(s, 404);
    assert!(
        body.contains("<main") && body.contains("Diff not found"),
        "{body}"
    );
    assert_eq!(site.get("/diff/not-an-id").0, 404);
}

#[test]
fn a_long_changelog_is_paged_by_real_links_and_unknown_pages_versions_and_documentations_are_404s()
{
    let site = Site::start(ORG);
    site.create_doc("pets", "pets", None);
    for i in 0..12 {
        let yaml = fixture("petstore.yaml").replace("version: 1.0.0", &format!("version: 1.0.{i}"));
        site.deploy("pets", None, yaml);
    }
    let first = site.page("/doc/pets/changes");
    assert_eq!(first.matches("<article").count(), 10);
    assert!(first.contains("(12 versions)"), "{first}");
    assert!(
        first.contains("<a href=\"/doc/pets/changes?page=2\" rel=\"next\">Older versions</a>"),
        "{first}"
    );
    assert!(!first.contains("rel=\"prev\""));
    let second = site.page("/doc/pets/changes?page=2");
    assert_eq!(second.matches("<article").count(), 2);
    assert!(
        second.contains("<a href=\"/doc/pets/changes\" rel=\"prev\">Newer versions</a>"),
        "{second}"
    );
    assert!(
        second.contains("First published version"),
        "the oldest is on the last page"
    );
    // A revalidation answers 304.
    let (_, h, _) = site.get("/doc/pets/changes");
    let etag = header(&h, "etag").to_owned();
    let r = site
        .http
        .get(site.url("/doc/pets/changes"))
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 304);
    for p in [
        "/doc/pets/changes?page=3",
        "/doc/pets/changes?page=0",
        "/doc/pets/changes?page=x",
        "/doc/nope/changes",
        "/doc/nope/changes.atom",
        "/doc/pets/branches/nope/changes",
        "/doc/pets/changes/3ef8f52f-9056-4113-840e-2f7183b90e06",
        "/doc/pets/changes/not-a-version",
        "/doc/nope/compare",
        "/hub/nope",
        "/hub/nope/changes.rss",
    ] {
        let (s, h, body) = site.get(p);
        assert_eq!(s, 404, "{p}");
        assert!(
            header(&h, "content-type").starts_with("text/html") && body.contains("<main"),
            "{p}: a 404 page"
        );
    }
    let (s, h, body) = site.get("/doc/pets/changes/3ef8f52f-9056-4113-840e-2f7183b90e06.json");
    assert_eq!(s, 404);
    assert!(
        header(&h, "content-type").starts_with("application/json"),
        "{body}"
    );
    // The id form of a documentation redirects to the slug form, path and query kept.
    let (_, doc) = site.api(reqwest::Method::GET, "/api/v1/docs", None);
    let id = doc[0]["id"].as_str().unwrap();
    let (s, h, _) = site.get(&format!("/doc/{id}/changes?page=2"));
    assert_eq!(
        (s, header(&h, "location")),
        (308, "/doc/pets/changes?page=2")
    );
}

#[test]
fn document_text_on_change_pages_and_feeds_is_escaped() {
    let site = Site::start(ORG);
    site.create_doc("pets", "pets", None);
    let hostile = |v: &str| {
        fixture("petstore.yaml")
            .replace("title: Petstore", "title: \"<script>alert(1)</script> &\"")
            .replace(
                "version: 1.0.0",
                &format!("version: \"{v}<img src=x onerror=alert(1)>\""),
            )
    };
    site.deploy("pets", None, hostile("1"));
    site.deploy(
        "pets",
        None,
        hostile("2").replace("/pets/{id}", "/pets/{id}/<b>x</b>"),
    );
    let log = site.page("/doc/pets/changes");
    assert!(
        !log.contains("<script>alert") && !log.contains("<img src=x"),
        "{log}"
    );
    assert!(
        log.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{log}"
    );
    let ids = site.versions("pets", None);
    let change = site.page(&format!("/doc/pets/changes/{}", ids[0]));
    assert!(
        !change.contains("<b>x</b>") && change.contains("&lt;b&gt;x&lt;/b&gt;"),
        "{change}"
    );
    for (path, media) in [
        ("/doc/pets/changes.atom", "application/atom+xml"),
        ("/doc/pets/changes.rss", "application/rss+xml"),
    ] {
        let feed = site.feed(path, media);
        let t = &feed.entries[0].title.as_ref().unwrap().content;
        // Atom's title is text; RSS readers read an RSS title as HTML, so there the text comes HTML-escaped (no
        // markup a reader would render), and decoded once it is the same text.
        let text = if media.contains("rss") {
            assert!(!t.contains('<'), "RSS title as markup: {t}");
            t.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        } else {
            t.clone()
        };
        assert!(
            text.contains("2<img src=x onerror=alert(1)>"),
            "kept as text: {t}"
        );
    }
}

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn changelog_change_compare_diff_and_hub_pages_pass_axe_in_headless_chromium_with_and_without_javascript()
 {
    let tools = specpress_e2e::browser::tools();
    let site = Site::start(ORG);
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs",
        Some(json!({"name": "Payments", "slug": "payments", "description": "Every **payments** API."})),
    );
    assert_eq!(s, 201, "{b}");
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/docs",
        Some(json!({"name": "Pets API", "slug": "pets", "hub": "payments"})),
    );
    assert_eq!(s, 201, "{b}");
    for file in [
        fixture("petstore.yaml"),
        fixture("petstore-v2.yaml"),
        petstore_v3(),
    ] {
        site.deploy("pets", None, file);
    }
    site.deploy("pets", Some("next"), fixture("petstore.yaml"));
    let ids = site.versions("pets", None);
    let (s, d) = site.api(
        reqwest::Method::POST,
        "/api/v1/diffs",
        Some(json!({"previous_definition": fixture("petstore.yaml"), "definition": fixture("petstore-v2.yaml")})),
    );
    assert_eq!(s, 201, "{d}");
    let pages = [
        "/doc/pets/changes".to_owned(),
        format!("/doc/pets/changes/{}", ids[1]),
        format!("/doc/pets/compare?from={}&to={}", ids[2], ids[0]),
        format!("/diff/{}", d["id"].as_str().unwrap()),
        "/hub/payments".to_owned(),
    ];
    let urls: Vec<String> = pages.iter().map(|p| site.url(p)).collect();
    let pngs = specpress_e2e::browser::check(&tools, &urls, 1400);
    assert_eq!(pngs, pages.len() * 5, "screenshots taken");
}
