//! Any release as it was (`/doc/{doc}/v/{version}`) and what "since your last visit" reads
//! (`/doc/{doc}/compare.json`), end to end against the real `specpress serve`: the banner, the canonical link to the
//! latest release, `noindex`, links that stay inside the release, the branch forms, the 404s; and in headless
//! Chromium, a reader's return after a deploy: the banner and the navigation's marks, with axe.

use serde_json::Value;
use specpress_e2e::fixtures;
use specpress_e2e::site::{Site, header};

const ORG: &str = "releases-tests-organization-token-42";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

/// Every `href` value of a page, decoded from its HTML escaping.
fn hrefs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("href=\"") {
        rest = &rest[i + 6..];
        if let Some(end) = rest.find('"') {
            out.push(rest[..end].replace("&amp;", "&").replace("&#38;", "&"));
        }
    }
    out
}

/// The part of a page between two markers.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let i = html
        .find(start)
        .unwrap_or_else(|| panic!("no {start}: {html}"));
    let rest = &html[i..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// A documentation `pets` with two releases on its default branch (petstore 1.0.0, then 2.0.0: `GET /pets`
/// changed, `GET /pets/{id}` removed, `POST /pets` added) and one on `next`: (site, [v1, v2], next's release).
fn world() -> (Site, [String; 2], String) {
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets API", None);
    let v1 = site.deploy("pets", None, fixture("petstore.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let v2 = site.deploy("pets", None, fixture("petstore-v2.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let next = site.deploy("pets", Some("next"), fixture("petstore.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    (site, [v1, v2], next)
}

#[test]
fn an_earlier_release_is_served_as_it_was_with_its_banner_canonical_to_the_latest_and_noindex() {
    let (site, [v1, v2], _) = world();
    let base = format!("/doc/pets/v/{v1}");
    let (s, h, home) = site.get(&base);
    assert_eq!(s, 200, "{home}");
    assert_eq!(header(&h, "x-robots-tag"), "noindex");
    assert!(home.contains(r#"<meta name="robots" content="noindex">"#));
    let canonical = format!(
        r#"<link rel="canonical" href="{}/doc/pets">"#,
        site.server.base_url
    );
    assert!(home.contains(&canonical), "{home}");
    let banner = between(&home, "<div class=\"relbar\"", "</div>");
    assert!(
        banner.contains(
            "You are reading an earlier release: <strong>1.0.0</strong>, published <time"
        ),
        "{banner}"
    );
    assert!(banner.contains(r#"<a href="/doc/pets">This page in the latest release</a>"#));
    assert!(
        banner
            .replace("&#38;", "&")
            .contains(&format!(r#"href="/doc/pets/compare?from={v1}&to={v2}""#)),
        "{banner}"
    );
    // The release's own pages: the navigation and the reference stay inside it; GET /pets/{id} is there.
    let nav = between(&home, "<nav id=\"nav\"", "</nav>");
    let nav_links = hrefs(nav);
    assert!(nav_links.len() >= 3, "{nav}");
    assert!(
        nav_links.iter().all(|l| l.starts_with(&base)),
        "every navigation link stays in the release: {nav_links:?}"
    );
    let one = nav_links
        .iter()
        .find(|l| l.starts_with(&format!("{base}/operation/operation-get-pets-")))
        .expect("GET /pets/{id} is in release 1.0.0");
    let (s, h, page) = site.get(one);
    assert_eq!(s, 200);
    assert_eq!(header(&h, "x-robots-tag"), "noindex");
    // That page is not in the latest release: the banner says so and links the latest release's home.
    assert!(
        page.contains(
            r#"This page is not in the latest release: <a href="/doc/pets">the latest release</a>"#
        ),
        "{}",
        between(&page, "<div class=\"relbar\"", "</div>")
    );
    // GET /pets is in both: the banner links the same page in the latest release, the canonical link too.
    let list = nav_links
        .iter()
        .find(|l| l.as_str() == format!("{base}/operation/operation-get-pets"))
        .expect("GET /pets");
    let (_, _, page) = site.get(list);
    assert!(page.contains(
        r#"<a href="/doc/pets/operation/operation-get-pets">This page in the latest release</a>"#
    ));
    assert!(page.contains(&format!(
        r#"<link rel="canonical" href="{}/doc/pets/operation/operation-get-pets">"#,
        site.server.base_url
    )));
    // As it was: `limit` was optional in 1.0.0 (required in 2.0.0), and no POST /pets yet.
    assert!(!nav.contains("operation-post-pets"), "{nav}");
    assert!(
        !page.contains(r#"id="since""#),
        "a release page records nothing"
    );
    // Its search and its header's reference link stay inside; the changelog is the branch's.
    let top = between(&page, "<header", "</header>");
    assert!(top.contains(&format!(r#"action="{base}/search""#)), "{top}");
    assert!(
        top.contains(&format!(r#"<a href="{base}">Reference</a>"#)),
        "{top}"
    );
    assert!(
        top.contains(r#"<a href="/doc/pets/changes">Changelog</a>"#),
        "{top}"
    );
    let (s, h, results) = site.get(&format!("{base}/search?q=pet"));
    assert_eq!(s, 200);
    assert_eq!(header(&h, "x-robots-tag"), "noindex");
    let found: Vec<String> = hrefs(between(&results, "<main", "</main>"))
        .into_iter()
        .filter(|l| l.contains("/operation/"))
        .collect();
    assert!(!found.is_empty(), "{results}");
    assert!(found.iter().all(|l| l.starts_with(&base)), "{found:?}");
    let (s, _, json) = site.get(&format!("{base}/search.json?q=pet"));
    assert_eq!(s, 200);
    assert!(json.contains(&format!("{base}/operation/")), "{json}");
    // Markdown and the definition.
    let (s, h, md) = site.get(&format!("{base}.md"));
    assert_eq!(s, 200);
    assert!(header(&h, "content-type").starts_with("text/markdown"));
    assert_eq!(header(&h, "x-robots-tag"), "noindex");
    // Document text is Markdown-escaped.
    assert!(
        md.starts_with("> An earlier release 1\\.0\\.0, published "),
        "{md}"
    );
    let (s, _, md) = site.get(&format!("{list}.md"));
    assert_eq!(s, 200);
    assert!(
        md.contains(&format!("{base}/")),
        "links of the .md stay in the release: {md}"
    );
    let (s, h, def) = site.get(&format!("{base}.yaml"));
    assert_eq!(s, 200);
    assert_eq!(header(&h, "x-robots-tag"), "noindex");
    assert_eq!(def, fixture("petstore.yaml"));
    // The latest release at its own address: named the latest, no compare link, canonical to its usual address.
    let (s, _, latest) = site.get(&format!("/doc/pets/v/{v2}"));
    assert_eq!(s, 200);
    let banner = between(&latest, "<div class=\"relbar\"", "</div>");
    assert!(
        banner.contains("This is the latest release: <strong>2.0.0</strong>"),
        "{banner}"
    );
    assert!(!banner.contains("compare"), "{banner}");
}

#[test]
fn operation_histories_link_each_release_s_page_and_the_latest_pages_carry_the_since_data() {
    let (site, [v1, v2], _) = world();
    let (_, _, page) = site.get("/doc/pets/operation/operation-get-pets");
    let history = between(&page, "<section class=\"history\"", "</section>");
    for v in [&v1, &v2] {
        assert!(
            history.contains(&format!(
                r#"href="/doc/pets/v/{v}/operation/operation-get-pets""#
            )),
            "{history}"
        );
    }
    let since = between(&page, "<div id=\"since\"", "</div>");
    assert!(since.contains(" hidden "), "{since}");
    assert!(since.contains(r#"data-key="/doc/pets""#), "{since}");
    assert!(
        since.contains(&format!(r#"data-release="{v2}""#)),
        "{since}"
    );
    assert!(
        since.contains(r#"data-changes="/doc/pets/compare.json""#),
        "{since}"
    );
    // The same page of an earlier release shows its history as it was then.
    let (_, _, old) = site.get(&format!("/doc/pets/v/{v1}/operation/operation-get-pets"));
    let history = between(&old, "<section class=\"history\"", "</section>");
    assert!(!history.contains(&v2), "{history}");
}

#[test]
fn unknown_releases_and_other_branches_forms_answer_404_pages_or_redirects() {
    let (site, [v1, _], next) = world();
    site.create_doc("cats", "Cats", None);
    let cat = site.deploy("cats", None, fixture("petstore.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    for missing in [
        "/doc/pets/v/not-a-version".to_owned(),
        "/doc/pets/v/00000000-0000-4000-8000-000000000000".to_owned(),
        format!("/doc/pets/v/{cat}"),
        format!("/doc/nobody/v/{v1}"),
        format!("/doc/pets/v/{v1}/operation/no-such-page"),
        format!("/doc/pets/v/{v1}/search.json/x"),
    ] {
        let (s, h, body) = site.get(&missing);
        assert_eq!(s, 404, "{missing}: {body}");
        assert!(
            header(&h, "content-type").starts_with("text/html"),
            "{missing}"
        );
        assert!(body.contains("<h1>"), "the site's 404 page: {body}");
    }
    // The definition form's 404 is JSON, like the latest's.
    let (s, h, _) = site.get("/doc/pets/v/00000000-0000-4000-8000-000000000000.json");
    assert_eq!(s, 404);
    assert!(header(&h, "content-type").starts_with("application/json"));
    // A release of `next` lives under its branch; the default branch's named form goes to the plain one.
    let (s, h, _) = site.get(&format!("/doc/pets/v/{next}/operation/operation-get-pets"));
    assert_eq!(s, 307);
    assert_eq!(
        header(&h, "location"),
        format!("/doc/pets/branches/next/v/{next}/operation/operation-get-pets")
    );
    for other in ["main", "next", "no-such-branch"] {
        let (s, h, _) = site.get(&format!("/doc/pets/branches/{other}/v/{v1}?q=1"));
        assert_eq!(s, 307, "{other}");
        assert_eq!(header(&h, "location"), format!("/doc/pets/v/{v1}?q=1"));
    }
    let (s, _, page) = site.get(&format!("/doc/pets/branches/next/v/{next}"));
    assert_eq!(s, 200);
    assert!(page.contains("This is the latest release"), "{page}");
    let nav = hrefs(between(&page, "<nav id=\"nav\"", "</nav>"));
    assert!(
        nav.iter()
            .all(|l| l.starts_with(&format!("/doc/pets/branches/next/v/{next}"))),
        "{nav:?}"
    );
}

#[test]
fn the_compare_json_lists_the_pages_changed_added_and_removed_between_two_releases() {
    let (site, [v1, v2], _) = world();
    let (s, h, body) = site.get(&format!("/doc/pets/compare.json?from={v1}&to={v2}"));
    assert_eq!(s, 200, "{body}");
    assert!(header(&h, "content-type").starts_with("application/json"));
    assert!(!header(&h, "etag").is_empty());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["from"]["id"], v1.as_str());
    assert_eq!(v["from"]["api_version"], "1.0.0");
    assert_eq!(v["to"]["api_version"], "2.0.0");
    assert_eq!(
        v["compare_href"],
        format!("/doc/pets/compare?from={v1}&to={v2}")
    );
    assert!(v["counts"]["breaking"].as_u64().unwrap() >= 1, "{v}");
    let pages = v["pages"].as_array().unwrap();
    let find = |name: &str| {
        pages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {v}"))
    };
    let list = find("GET /pets");
    assert_eq!(list["status"], "modified");
    assert_eq!(list["breaking"], true);
    assert_eq!(list["href"], "/doc/pets/operation/operation-get-pets");
    let added = find("POST /pets");
    assert_eq!(added["status"], "added");
    assert_eq!(added["href"], "/doc/pets/operation/operation-post-pets");
    let removed = find("GET /pets/{id}");
    assert_eq!(removed["status"], "removed");
    assert!(removed["href"].is_null());
    // Both the same: nothing changed. Missing or unknown versions: JSON errors.
    let (s, _, body) = site.get(&format!("/doc/pets/compare.json?from={v2}&to={v2}"));
    assert_eq!(s, 200);
    let same: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(same["pages"], serde_json::json!([]));
    let (s, h, _) = site.get(&format!("/doc/pets/compare.json?from={v1}"));
    assert_eq!(s, 400);
    assert!(header(&h, "content-type").starts_with("application/json"));
    let (s, _, _) = site.get(&format!(
        "/doc/pets/compare.json?from={v1}&to=00000000-0000-4000-8000-000000000000"
    ));
    assert_eq!(s, 404);
}

/// Release 1.1.0 of the petstore: `GET /pets` changed (`limit` becomes required) and `POST /pets` added, nothing
/// else.
fn petstore_one_changed_one_added() -> String {
    fixture("petstore.yaml")
        .replace("version: 1.0.0", "version: 1.1.0")
        .replace("required: false", "required: true")
        .replace(
            "  /pets/{id}:\n",
            "    post:\n      operationId: createPet\n      summary: Add a pet\n      requestBody:\n        content:\n          application/json:\n            schema:\n              $ref: '#/components/schemas/Pet'\n      responses:\n        '201':\n          description: Created\n  /pets/{id}:\n",
        )
}

/// Runs tests/browser/since.js with `args`; panics with its report when it fails. Screenshots go to `out` and are
/// copied into `SPECPRESS_SCREENSHOTS` when it is set.
fn since_js(
    tools: &(std::path::PathBuf, std::path::PathBuf),
    out: &std::path::Path,
    args: &[&str],
) {
    let run = std::process::Command::new("node")
        .arg(specpress_e2e::repo_root().join("tests/browser/since.js"))
        .arg("--out")
        .arg(out)
        .args(args)
        .env("SPECPRESS_CHROMIUM", &tools.0)
        .env("SPECPRESS_NODE_MODULES", &tools.1)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    println!("{stdout}");
    assert!(
        run.status.success(),
        "since.js {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    if let Some(keep) = std::env::var_os("SPECPRESS_SCREENSHOTS").map(std::path::PathBuf::from) {
        let _ = std::fs::create_dir_all(&keep);
        for shot in std::fs::read_dir(out).into_iter().flatten().flatten() {
            if shot.path().extension().is_some_and(|x| x == "png") {
                let _ = std::fs::copy(shot.path(), keep.join(shot.file_name()));
            }
        }
    }
}

#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn a_returning_reader_sees_what_changed_since_the_last_visit_and_release_pages_pass_axe_in_headless_chromium()
 {
    let tools = specpress_e2e::browser::tools();
    let site = Site::start(ORG);
    site.create_doc("pets", "Pets API", None);
    let v1 = site.deploy("pets", None, fixture("petstore.yaml"))["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let tmp = specpress_e2e::temp_dir();
    let state = tmp.path().join("storage.json");
    let state = state.to_str().expect("path");
    let out = tmp.path().join("shots");
    let page = site.url("/doc/pets/operation/operation-get-pets");
    since_js(&tools, &out, &["--state", state, "first", &page]);
    site.deploy("pets", None, petstore_one_changed_one_added());
    since_js(
        &tools,
        &out,
        &[
            "--state",
            state,
            "return",
            &page,
            &v1,
            "/doc/pets/operation/operation-get-pets",
            "/doc/pets/operation/operation-post-pets",
        ],
    );
    // The release pages, their banner and their history, with and without JavaScript.
    let pages = [
        format!("/doc/pets/v/{v1}"),
        format!("/doc/pets/v/{v1}/operation/operation-get-pets"),
        "/doc/pets/operation/operation-get-pets".to_owned(),
    ];
    let urls: Vec<String> = pages.iter().map(|p| site.url(p)).collect();
    let pngs = specpress_e2e::browser::check(&tools, &urls, 1400);
    assert_eq!(pngs, pages.len() * 5, "screenshots taken");
}
