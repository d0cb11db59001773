//! The published documentation, end to end against the real `specpress serve`: rendered pages at the public URLs
//! the API hands out, their headers, validators and compression, branches and promotion, previews, and errors.

use reqwest::blocking::Client;
use serde_json::json;
use specpress_e2e::fixtures;
use specpress_e2e::site::{Site, header};

const ORG: &str = "pages-tests-organization-token-42";

fn petstore() -> String {
    std::fs::read_to_string(fixtures().join("petstore.yaml")).unwrap()
}
fn petstore_v2() -> String {
    std::fs::read_to_string(fixtures().join("petstore-v2.yaml")).unwrap()
}

/// Every `href`/`src` value of a page.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].replace("&amp;", "&"));
            }
        }
    }
    out
}

#[test]
fn a_deployed_documentation_is_served_as_rendered_pages_with_strict_security_headers() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    let b = site.deploy("pets", None, petstore());
    let public = b["doc_public_url"].as_str().unwrap();
    let r = site.http.get(public).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let h = r.headers().clone();
    let home = r.text().unwrap();
    assert!(header(&h, "content-type").starts_with("text/html"));
    assert_eq!(
        header(&h, "content-security-policy"),
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' https: data:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    );
    assert_eq!(header(&h, "x-content-type-options"), "nosniff");
    assert_eq!(
        header(&h, "referrer-policy"),
        "strict-origin-when-cross-origin"
    );
    assert_eq!(header(&h, "x-frame-options"), "DENY");
    assert!(
        home.contains("<main") && home.contains("Petstore"),
        "{home}"
    );
    // No inline script: every script element has a src.
    for (i, _) in home.match_indices("<script") {
        let tag = &home[i..i + home[i..].find('>').unwrap()];
        assert!(tag.contains(" src=\""), "inline script: {tag}");
    }
    // Every internal link of the home page answers (pages, assets), and operation pages exist. The MCP server it
    // links is an endpoint for MCP clients (POST), not a page (tests/tests/machine.rs checks the link).
    let internal: Vec<String> = links(&home)
        .into_iter()
        .filter(|l| l.starts_with('/') && !l.ends_with("/mcp"))
        .collect();
    assert!(
        links(&home).contains(&"/doc/pets/mcp".to_owned()),
        "the MCP server is linked"
    );
    assert!(
        internal
            .iter()
            .any(|l| l.starts_with("/doc/pets/operation/")),
        "{internal:?}"
    );
    for l in &internal {
        let (s, h, _) = site.get(l);
        assert_eq!(s, 200, "{l}");
        if l.starts_with("/static/") {
            assert_eq!(
                header(&h, "cache-control"),
                "public, max-age=31536000, immutable",
                "{l}"
            );
        }
    }
    // An operation page shows its parameters and responses.
    let op = internal
        .iter()
        .find(|l| l.starts_with("/doc/pets/operation/operation-get-pets"))
        .expect("GET /pets has a page");
    let (_, _, page) = site.get(op);
    assert!(page.contains("limit") && page.contains("200"), "{page}");
    // The definition stays available to tools.
    let (s, h, text) = site.get("/doc/pets.yaml");
    assert_eq!(s, 200);
    assert!(header(&h, "content-type").starts_with("application/yaml"));
    assert_eq!(text, petstore());
}

#[test]
fn pages_carry_an_etag_answer_304_and_change_with_a_deploy() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    site.deploy("pets", None, petstore());
    let (_, h, _) = site.get("/doc/pets");
    let etag = header(&h, "etag").to_owned();
    assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
    let r = site
        .http
        .get(site.url("/doc/pets"))
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 304);
    site.deploy("pets", None, petstore_v2());
    let r = site
        .http
        .get(site.url("/doc/pets"))
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "a deploy changes the page");
    assert_ne!(header(r.headers(), "etag"), etag);
    assert!(r.text().unwrap().contains("2.0.0"));
}

#[test]
fn promoting_a_branch_changes_what_the_documentation_url_shows_at_once() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    site.deploy("pets", None, petstore());
    site.deploy("pets", Some("Next"), petstore_v2());
    let (_, _, main) = site.get("/doc/pets");
    assert!(
        main.contains("1.0.0") && !main.contains("2.0.0"),
        "main shows v1"
    );
    // The branch switcher lists both branches, with real links.
    assert!(main.contains("href=\"/doc/pets/branches/next\""), "{main}");
    let (s, _, next) = site.get("/doc/pets/branches/next");
    assert_eq!(s, 200);
    assert!(next.contains("2.0.0"));
    // The default branch's own URL form redirects to the documentation's URL.
    let (s, h, _) = site.get("/doc/pets/branches/main");
    assert_eq!((s, header(&h, "location")), (307, "/doc/pets"));

    let (s, _) = site.api(
        reqwest::Method::PATCH,
        "/api/v1/docs/pets/branches/next/set_default",
        None,
    );
    assert_eq!(s, 204);
    let (_, _, now) = site.get("/doc/pets");
    assert!(
        now.contains("2.0.0") && !now.contains("1.0.0"),
        "the documentation URL follows the promotion at once"
    );
    let (s, _, old) = site.get("/doc/pets/branches/main");
    assert_eq!(s, 200);
    assert!(old.contains("1.0.0"));
}

#[test]
fn pages_are_compressed_when_the_reader_accepts_it() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    site.deploy("pets", None, petstore());
    let (_, _, plain) = site.get("/doc/pets");
    // A client that leaves the encoding to the test (reqwest decodes and hides it when its features are on).
    let raw = Client::builder()
        .no_brotli()
        .no_gzip()
        .no_deflate()
        .build()
        .unwrap();
    for encoding in ["br", "gzip"] {
        let r = raw
            .get(site.url("/doc/pets"))
            .header("Accept-Encoding", encoding)
            .send()
            .unwrap();
        assert_eq!(header(r.headers(), "content-encoding"), encoding);
        let bytes = r.bytes().unwrap();
        assert!(
            bytes.len() < plain.len() / 2,
            "{encoding}: {} bytes",
            bytes.len()
        );
    }
}

#[test]
fn unknown_documentations_branches_and_pages_answer_404_pages() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    // Nothing published yet.
    let (s, h, body) = site.get("/doc/pets");
    assert_eq!(s, 404);
    assert!(header(&h, "content-type").starts_with("text/html"));
    assert!(body.contains("no published version"), "{body}");
    site.deploy("pets", None, petstore());
    for p in [
        "/doc/nothing-here",
        "/doc/pets/branches/nope",
        "/doc/pets/operation/operation-get-nothing",
        "/doc/pets/schema/Nope",
    ] {
        let (s, h, _) = site.get(p);
        assert_eq!(s, 404, "{p}");
        assert!(header(&h, "content-type").starts_with("text/html"), "{p}");
        assert!(!header(&h, "content-security-policy").is_empty(), "{p}");
    }
}

#[test]
fn a_preview_is_rendered_as_pages_that_are_never_cached_or_indexed() {
    let site = Site::start(ORG);
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/previews",
        Some(json!({"definition": petstore()})),
    );
    assert_eq!(s, 201, "{b}");
    let url = b["public_url"].as_str().unwrap();
    let r = site.http.get(url).send().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(header(r.headers(), "cache-control"), "no-store");
    let html = r.text().unwrap();
    assert!(
        html.contains("noindex") && html.contains("Petstore"),
        "{html}"
    );
    let id = b["id"].as_str().unwrap();
    assert!(html.contains(&format!("href=\"/preview/{id}/operation/")));
}

/// The pages as the server sends them (its headers, CSP included), in a real headless Chromium: home, operation,
/// schema, tag and branch pages of real documents (OpenAPI 3.1 and AsyncAPI 3), and a beta operation's page (its
/// badges) and history page, pass axe-core (WCAG 2.1 AA) with JavaScript on and off, light and dark, desktop and
/// phone, with no CSP report, page error or failed request.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules, missing_corpus),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh) and the API corpus (SPECPRESS_CORPUS)"
)]
fn the_served_pages_pass_axe_in_headless_chromium_with_no_csp_report() {
    let tools = specpress_e2e::browser::tools();
    let site = Site::start(ORG);
    site.create_doc("streetlights", "Streetlights", None);
    let corpus = specpress_e2e::corpus();
    let text = std::fs::read_to_string(corpus.join("openapi-3.1/openai-2026-08-21.yaml")).unwrap();
    site.create_doc("openai", "OpenAI", None);
    site.deploy("openai", None, text);
    site.deploy("openai", Some("next"), petstore());
    let async_text =
        std::fs::read_to_string(corpus.join("asyncapi/streetlights-kafka-3.1.0.yml")).unwrap();
    site.deploy("streetlights", None, async_text);
    // Real page paths, taken from the home pages' own links.
    let (_, _, home) = site.get("/doc/openai");
    let pick = |prefix: &str| {
        links(&home)
            .into_iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} link on the home page"))
    };
    let (_, _, async_home) = site.get("/doc/streetlights");
    let channel = links(&async_home)
        .into_iter()
        .find(|l| l.starts_with("/doc/streetlights/channel/"))
        .expect("a channel link");
    // A beta operation with a beta property, changed once: its badges (light and dark), its history section and
    // its history page.
    site.create_doc("beta", "Beta", None);
    let beta = petstore()
        .replacen(
            "summary: List pets",
            "summary: List pets\n      x-beta: true",
            1,
        )
        .replacen(
            "        tag:\n          type: string",
            "        tag:\n          type: string\n          x-beta: true",
            1,
        );
    site.deploy("beta", None, &beta);
    site.deploy(
        "beta",
        None,
        beta.replacen("version: 1.0.0", "version: 1.1.0", 1)
            .replacen("required: false", "required: true", 1),
    );
    let (_, _, beta_page) = site.get("/doc/beta/operation/operation-get-pets");
    assert!(
        beta_page.contains("<span class=\"b beta\">beta</span>"),
        "the badge is shown"
    );
    let paths = [
        "/doc/beta/operation/operation-get-pets".to_owned(),
        "/doc/beta/history/operation/operation-get-pets".to_owned(),
        "/doc/openai".to_owned(),
        pick("/doc/openai/operation/"),
        pick("/doc/openai/tag/"),
        "/doc/openai/schemas".to_owned(),
        "/doc/openai/schema/CreateChatCompletionRequest".to_owned(),
        "/doc/openai/branches/next".to_owned(),
        "/doc/streetlights".to_owned(),
        channel,
    ];
    let urls: Vec<String> = paths.iter().map(|p| site.url(p)).collect();
    let pngs = specpress_e2e::browser::check(&tools, &urls, 6000);
    assert_eq!(pngs, urls.len() * 5, "screenshots taken");
}

/// The `<section class="history">` of a page, its tags stripped and its spaces collapsed.
fn history_text(page: &str) -> String {
    let Some(start) = page.find("<section class=\"history\"") else {
        return String::new();
    };
    let end = page[start..]
        .find("</section>")
        .map_or(page.len(), |e| start + e);
    let mut text = String::new();
    let mut in_tag = false;
    for c in page[start..end].chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn operation_and_schema_pages_show_their_history_linked_to_the_change_pages() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    // 1.0.0, then 2.0.0 (GET /pets: `limit` becomes required; GET /pets/{id} removed; Pet loses properties), then
    // 1.0.0 again (both undone).
    let mut ids = Vec::new();
    for text in [petstore(), petstore_v2(), petstore()] {
        let b = site.deploy("pets", None, text);
        ids.push(b["id"].as_str().expect("version id").to_owned());
    }
    let (_, _, home) = site.get("/doc/pets");
    let page_of = |prefix: &str| -> String {
        let l = links(&home)
            .into_iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no link {prefix}* on the home page"));
        let (s, _, page) = site.get(&l);
        assert_eq!(s, 200, "{l}");
        page
    };
    let list = page_of("/doc/pets/operation/operation-get-pets");
    let one = links(&home)
        .into_iter()
        .find(|l| l.starts_with("/doc/pets/operation/operation-get-pets-"))
        .expect("GET /pets/{id} has a page");
    let (_, _, one) = site.get(&one);

    // GET /pets: there from the first release, changed in both later ones, the second time breaking.
    let h = history_text(&list);
    assert!(
        h.starts_with("History In the documentation since 1.0.0"),
        "{h}"
    );
    assert!(h.contains("the first release of this branch"), "{h}");
    let changed = h.find("Changed in 1.0.0").expect("the third release");
    let broke = h
        .find("Changed Breaking in 2.0.0")
        .expect("the second release");
    assert!(changed < broke, "newest first: {h}");
    for id in &ids[1..] {
        assert!(
            list.contains(&format!("href=\"/doc/pets/changes/{id}\"")),
            "linked to the change page of {id}"
        );
    }
    // Every linked change page answers.
    for id in &ids[1..] {
        let (s, _, _) = site.get(&format!("/doc/pets/changes/{id}"));
        assert_eq!(s, 200);
    }

    // GET /pets/{id}: removed (breaking) by 2.0.0 and added again by the third release.
    let h = history_text(&one);
    assert!(h.contains("Added in 1.0.0"), "{h}");
    assert!(h.contains("Removed Breaking in 2.0.0"), "{h}");
    assert!(
        !h.contains("since"),
        "an element added later has no 'since': {h}"
    );

    // The schema Pet changed in both releases.
    let (s, _, pet) = site.get("/doc/pets/schema/Pet");
    assert_eq!(s, 200);
    let h = history_text(&pet);
    assert!(h.contains("in 2.0.0") && h.contains("in 1.0.0"), "{h}");

    // A fourth release that changes nothing of GET /pets leaves its history as it was, on a new validator.
    let (_, headers, _) = site.get(
        &links(&home)
            .into_iter()
            .find(|l| l.starts_with("/doc/pets/operation/operation-get-pets"))
            .expect("link"),
    );
    let before = header(&headers, "etag").to_owned();
    let mut v3 = petstore();
    v3 = v3.replace("version: 1.0.0", "version: 3.0.0");
    site.deploy("pets", None, v3);
    let (_, headers, again) = site.get(
        &links(&home)
            .into_iter()
            .find(|l| l.starts_with("/doc/pets/operation/operation-get-pets"))
            .expect("link"),
    );
    assert_ne!(header(&headers, "etag"), before);
    assert_eq!(history_text(&again), history_text(&list));
}

/// A hostile summary for `GET /pets`: markup and a script, to be shown as text on every history page.
const HOSTILE_SUMMARY: &str = "List <script>alert(1)</script> pets & \"friends\"";

/// The petstore at release `n`: API version `1.0.{n}<img src=x onerror=alert(1)>` (document text, hostile), the
/// hostile summary on `GET /pets`, and the optional query parameters `q1` to `qn` there, so every release after the
/// first changes `GET /pets` (not breaking) and nothing else of it.
fn pets_release(n: usize) -> String {
    let extra: String = (1..=n)
        .map(|i| {
            format!("        - name: q{i}\n          in: query\n          required: false\n          schema:\n            type: string\n")
        })
        .collect();
    petstore()
        .replacen(
            "version: 1.0.0",
            &format!("version: '1.0.{n}<img src=x onerror=alert(1)>'"),
            1,
        )
        .replacen(
            "summary: List pets",
            &format!("summary: '{}'", HOSTILE_SUMMARY.replace('\'', "''")),
            1,
        )
        .replacen(
            "      parameters:\n        - name: limit\n",
            &format!("      parameters:\n{extra}        - name: limit\n"),
            1,
        )
}

/// The `<li>` entries of a page's `<ul class="hist">` list.
fn history_entries(page: &str) -> usize {
    let Some(start) = page.find("<ul class=\"hist\">") else {
        return 0;
    };
    let list = &page[start..];
    let end = list.find("</section>").unwrap_or(list.len());
    list[..end].matches("<li><span class=\"cs ").count()
}

/// The `href` of the link whose `rel` is `rel` (the pager's `prev` and `next`).
fn rel_link(page: &str, rel: &str) -> Option<String> {
    let tag = format!("\" rel=\"{rel}\"");
    let end = page.find(&tag)?;
    let start = page[..end].rfind("href=\"")? + "href=\"".len();
    Some(page[start..end].replace("&amp;", "&"))
}

#[test]
fn a_long_history_is_paged_fifty_releases_a_page_linked_from_the_section() {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets", None);
    // 56 releases: GET /pets is in the first and changed by each of the 55 others.
    for n in 0..=55 {
        site.deploy("pets", None, pets_release(n));
    }
    let op = "/doc/pets/operation/operation-get-pets";
    let all = "/doc/pets/history/operation/operation-get-pets";
    // The first reader digests the releases within a time budget per request; an incomplete index is shown but
    // not kept, and the next request goes on.
    let mut page = String::new();
    for _ in 0..30 {
        let (s, _, p) = site.get(op);
        assert_eq!(s, 200);
        page = p;
        if history_text(&page).contains("45 earlier changes") {
            break;
        }
    }
    // The section: the ten newest, no numbers, and a link to the rest.
    let h = history_text(&page);
    assert!(
        h.contains("45 earlier changes are on the full history"),
        "{h}"
    );
    assert_eq!(history_entries(&page), 10, "{h}");
    assert!(!page.contains("<ol class=\"hist\""), "no numbered list");
    assert!(page.contains(&format!("href=\"{all}\"")), "{h}");

    // Page 1: the fifty newest, newest first, and the next page.
    let (s, headers, one) = site.get(all);
    assert_eq!(s, 200);
    assert!(header(&headers, "content-type").starts_with("text/html"));
    assert!(!header(&headers, "etag").is_empty());
    assert_eq!(history_entries(&one), 50);
    let h = history_text(&one);
    assert!(
        h.contains("(55 changes)") && h.contains("Page 1 of 2"),
        "{h}"
    );
    // (Each version is followed by its escaped markup: `1.0.55&lt;img ...`.)
    let newest = h.find("in 1.0.55&lt;img").expect("the newest release");
    let older = h.find("in 1.0.6&lt;img").expect("the fiftieth newest");
    assert!(newest < older, "newest first: {h}");
    assert!(!h.contains("in 1.0.5&lt;img"), "on the next page: {h}");
    assert_eq!(rel_link(&one, "prev"), None);
    let next = rel_link(&one, "next").expect("a next page");
    assert_eq!(next, format!("{all}?page=2"));
    assert!(
        one.contains(&format!("href=\"{op}\"")),
        "the reference page is linked"
    );

    // Page 2: the five oldest changes, and the way back.
    let (s, _, two) = site.get(&next);
    assert_eq!(s, 200);
    assert_eq!(history_entries(&two), 5);
    let h = history_text(&two);
    assert!(
        h.contains("Page 2 of 2") && h.contains("in 1.0.1&lt;img"),
        "{h}"
    );
    assert!(
        h.contains("In the documentation since 1.0.0&lt;img"),
        "there from the first release: {h}"
    );
    assert_eq!(rel_link(&two, "prev").as_deref(), Some(all));
    assert_eq!(rel_link(&two, "next"), None);
    let (s, _, _) = site.get(&format!("{all}?page=1"));
    assert_eq!(s, 200);

    // Document text is text: the summary, the versions.
    for p in [&page, &one, &two] {
        assert!(!p.contains("<script>alert(1)"), "the summary is escaped");
        assert!(!p.contains("<img src=x"), "the versions are escaped");
    }
    assert!(
        one.contains(
            "History of List &lt;script&gt;alert(1)&lt;/script&gt; pets &amp; &quot;friends&quot;"
        ),
        "{}",
        history_text(&one)
    );

    // Out of range, malformed, unknown subjects and pages without a history: 404 pages.
    for missing in [
        format!("{all}?page=3"),
        format!("{all}?page=0"),
        format!("{all}?page=two"),
        "/doc/pets/history/operation/nope".to_owned(),
        "/doc/pets/history/schema/Nope".to_owned(),
        "/doc/pets/history/schemas".to_owned(),
        "/doc/pets/history/".to_owned(),
        "/doc/nope/history/operation/operation-get-pets".to_owned(),
        "/doc/pets/branches/nope/history/operation/operation-get-pets".to_owned(),
    ] {
        let (s, h, body) = site.get(&missing);
        assert_eq!(s, 404, "{missing}");
        assert!(
            header(&h, "content-type").starts_with("text/html"),
            "{missing}"
        );
        assert!(body.contains("<h1"), "{missing}");
    }
    // An alias goes to the canonical path, the query kept; the default branch's named form to the plain URL.
    let (s, h, _) = site.get("/doc/pets/history/operation/listPets?page=2");
    assert_eq!(s, 308);
    assert_eq!(header(&h, "location"), format!("{all}?page=2"));
    let (s, h, _) = site.get("/doc/pets/branches/main/history/operation/operation-get-pets?page=2");
    assert_eq!(s, 307);
    assert_eq!(header(&h, "location"), format!("{all}?page=2"));
    // The schema's history page answers too, and a named branch has its own.
    let (s, _, pet) = site.get("/doc/pets/history/schema/Pet");
    assert_eq!(s, 200);
    assert!(
        history_text(&pet).contains("Unchanged since"),
        "{}",
        history_text(&pet)
    );
    site.deploy("pets", Some("next"), pets_release(0));
    let (s, _, next) = site.get("/doc/pets/branches/next/history/operation/operation-get-pets");
    assert_eq!(s, 200);
    let h = history_text(&next);
    assert!(
        h.contains("(0 changes)") && h.contains("Unchanged since"),
        "{h}"
    );
    // A private documentation's history is hidden from anonymous readers like its other pages.
    let (s, b) = site.api(
        reqwest::Method::PATCH,
        "/api/v1/docs/pets",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    let (s, _, _) = site.get(all);
    assert_eq!(s, 404);
}
