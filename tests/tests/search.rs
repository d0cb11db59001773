//! Search, end to end against the real `specpress serve`: the GET form in every page's chrome, the results page of a
//! documentation (on its default branch and on another branch) and of a hub, ranking, typos, links into the reference
//! pages, hostile and out-of-bounds queries, and unknown documentations, branches and hubs.

use specpress_e2e::corpus;
use specpress_e2e::site::Site;

const ORG: &str = "search-tests-organization-token-42";

/// A small API where the same word is an operation, a parameter and a schema property, with hostile text in names,
/// summaries and descriptions.
const CLINIC: &str = include_str!("../fixtures/clinic.yaml");

/// A search request, as the form sends it.
trait Searching {
    fn search(&self, path: &str, q: &str) -> (u16, String);
}

impl Searching for Site {
    fn search(&self, path: &str, q: &str) -> (u16, String) {
        let r = self
            .http
            .get(format!("{}?q={}", self.url(path), encode(q)))
            .send()
            .unwrap();
        let status = r.status().as_u16();
        (status, r.text().unwrap_or_default())
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The page with askama's numeric entities for `<`, `>` and `"` written as named ones (still escaped).
fn unescaped_entities(html: &str) -> String {
    html.replace("&#60;", "&lt;")
        .replace("&#62;", "&gt;")
        .replace("&#34;", "&quot;")
}

/// One result of a results page: its link, its kind label and its visible text.
#[derive(Debug)]
struct Row {
    href: String,
    kind: String,
    text: String,
}

/// The results of a results page, in order (read from the `<ol class="results">` list).
fn results(html: &str) -> Vec<Row> {
    let Some(start) = html.find("<ol class=\"results\">") else {
        return Vec::new();
    };
    let list = &html[start..start + html[start..].find("</ol>").unwrap()];
    list.split("<li>")
        .skip(1)
        .map(|li| {
            let href = li
                .split("href=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("")
                .replace("&amp;", "&");
            let kind = li
                .split("<span class=\"rk\">")
                .nth(1)
                .and_then(|r| r.split("</span>").next())
                .unwrap_or("")
                .to_string();
            Row {
                href,
                kind,
                text: li.to_string(),
            }
        })
        .collect()
}

fn clinic_site() -> Site {
    let site = Site::start(ORG);
    site.create_doc("clinic", "Clinic", None);
    site.deploy("clinic", None, CLINIC);
    site
}

#[test]
fn every_documentation_page_carries_a_search_form_that_works_without_javascript() {
    let site = clinic_site();
    let (s, _, home) = site.get("/doc/clinic");
    assert_eq!(s, 200);
    assert!(
        home.contains(
            "<form class=\"search\" role=\"search\" method=\"get\" action=\"/doc/clinic/search\">"
        ),
        "{home}"
    );
    assert!(home.contains("name=\"q\""), "{home}");
    // The results page answers the form's GET with the query kept in its own form.
    let (s, page) = site.search("/doc/clinic/search", "vaccinations");
    assert_eq!(s, 200);
    assert!(page.contains("value=\"vaccinations\""), "{page}");
    assert!(
        page.contains("<h1>Search results for “vaccinations”</h1>"),
        "{page}"
    );
    // With no query: the form alone, no results, no error.
    let (s, _, empty) = site.get("/doc/clinic/search");
    assert_eq!(s, 200);
    assert!(results(&empty).is_empty());
    assert!(!empty.contains("class=\"notice\""), "{empty}");
}

#[test]
fn operations_rank_above_parameters_and_schema_properties_and_every_result_links_to_a_reference_page()
 {
    let site = clinic_site();
    let (s, page) = site.search("/doc/clinic/search", "vaccinations");
    assert_eq!(s, 200);
    let rows = results(&page);
    let kinds: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(rows[0].kind, "Operation", "{kinds:?}");
    assert!(rows[0].text.contains("List vaccinations"), "{rows:?}");
    assert_eq!(
        rows[0].href,
        "/doc/clinic/operation/operation-get-pets-petid-vaccinations"
    );
    let first_property = kinds
        .iter()
        .position(|k| *k == "Property")
        .expect("a property");
    assert!(first_property > 0, "{kinds:?}");
    assert!(
        rows[first_property].text.contains("Property of Pet"),
        "{rows:?}"
    );
    // Every link is a page of the documentation that answers 200.
    for r in &rows {
        assert!(r.href.starts_with("/doc/clinic"), "{r:?}");
        let (s, _, _) = site.get(&r.href);
        assert_eq!(s, 200, "{r:?}");
    }
    // A parameter is found by its name, snake_case as written, and ranks first when named exactly so.
    let rows = results(&site.search("/doc/clinic/search", "per_page").1);
    assert_eq!(rows[0].kind, "Parameter", "{rows:?}");
    assert!(
        rows[0]
            .text
            .contains("Query parameter of GET /pets/{petId}/vaccinations")
    );
    // A nested property of an inline object and an inline request body property.
    let rows = results(&site.search("/doc/clinic/search", "veterinarian").1);
    assert!(
        rows[0].text.contains("Property of Vaccination › clinic"),
        "{rows:?}"
    );
    assert_eq!(rows[0].href, "/doc/clinic/schema/Vaccination");
    let rows = results(&site.search("/doc/clinic/search", "home address").1);
    assert!(
        rows[0].text.contains("request body of POST /owners"),
        "{rows:?}"
    );
    // Several words must all match: "list vaccinations" finds the operation, not the other entries.
    let rows = results(&site.search("/doc/clinic/search", "list vaccinations").1);
    assert_eq!(rows.len(), 1, "{rows:?}");
}

#[test]
fn a_typo_or_a_prefix_still_finds_the_word() {
    let site = clinic_site();
    let (s, page) = site.search("/doc/clinic/search", "vacinations");
    assert_eq!(s, 200);
    let rows = results(&page);
    assert_eq!(rows[0].kind, "Operation · close match", "{rows:?}");
    assert!(rows[0].text.contains("List vaccinations"));
    // Two typos in a long word.
    let rows = results(&site.search("/doc/clinic/search", "veterinarain").1);
    assert!(!rows.is_empty());
    // As typed so far.
    let rows = results(&site.search("/doc/clinic/search", "vacc").1);
    assert_eq!(rows[0].kind, "Operation", "{rows:?}");
    // Nothing close.
    let (s, page) = site.search("/doc/clinic/search", "zzzzzz");
    assert_eq!(s, 200);
    assert!(results(&page).is_empty());
    assert!(page.contains("No results for “zzzzzz”."), "{page}");
}

#[test]
fn hostile_and_out_of_bounds_queries_are_escaped_or_refused_plainly() {
    let site = clinic_site();
    let hostile = "\"><script>alert(1)</script><img src=x onerror=alert(2)>";
    let (s, page) = site.search("/doc/clinic/search", hostile);
    assert_eq!(s, 200);
    // askama writes `<` as `&#60;`: read both spellings alike.
    let page = unescaped_entities(&page);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains("<img src=x"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    // A document's hostile text in the results is escaped too.
    let rows = results(&unescaped_entities(
        &site.search("/doc/clinic/search", "owner").1,
    ));
    assert!(
        rows.iter()
            .any(|r| r.text.contains("Create an owner &lt;img src=x")),
        "{rows:?}"
    );
    let rows = results(&site.search("/doc/clinic/search", "script").1);
    assert!(
        rows.iter().all(|r| !r.text.contains("<script>")),
        "{rows:?}"
    );
    // Too long: a 400 page saying why, with the query cut in the form.
    let long = "a".repeat(101);
    let (s, page) = site.search("/doc/clinic/search", &long);
    assert_eq!(s, 400);
    assert!(page.contains("too long"), "{page}");
    assert!(page.contains(&format!("value=\"{}\"", "a".repeat(100))));
    assert!(!page.contains(&long));
    // Nothing to search for: said plainly.
    let (s, page) = site.search("/doc/clinic/search", "?! /");
    assert_eq!(s, 200);
    assert!(page.contains("at least two letters or digits"), "{page}");
    // Malformed escapes and repeated parameters do not fail the page.
    let (s, _, _) = site.get("/doc/clinic/search?q=%FF%FE&q=second&x");
    assert_eq!(s, 200);
    // The results page carries the same security headers as every page.
    let r = site
        .http
        .get(site.url("/doc/clinic/search?q=pet"))
        .send()
        .unwrap();
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
}

#[test]
fn a_branch_is_searched_at_its_own_url_and_unknown_documentations_branches_and_hubs_are_404_pages()
{
    let site = clinic_site();
    let next = CLINIC.replace("List vaccinations", "List immunizations");
    site.deploy("clinic", Some("next"), &next);
    let (s, _, home) = site.get("/doc/clinic/branches/next");
    assert_eq!(s, 200);
    assert!(
        home.contains("action=\"/doc/clinic/branches/next/search\""),
        "{home}"
    );
    let rows = results(
        &site
            .search("/doc/clinic/branches/next/search", "immunizations")
            .1,
    );
    assert_eq!(
        rows[0].href,
        "/doc/clinic/branches/next/operation/operation-get-pets-petid-vaccinations"
    );
    assert!(results(&site.search("/doc/clinic/search", "immunizations").1).is_empty());
    // The default branch named explicitly redirects to the documentation's own search, query kept.
    let r = site
        .http
        .get(site.url("/doc/clinic/branches/main/search?q=pet"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 307);
    assert_eq!(r.headers()["location"], "/doc/clinic/search?q=pet");
    for path in [
        "/doc/nope/search?q=pet",
        "/doc/clinic/branches/nope/search?q=pet",
        "/hub/nope/search?q=pet",
    ] {
        let (s, _, page) = site.get(path);
        assert_eq!(s, 404, "{path}");
        assert!(page.contains("<main"), "{path}: {page}");
    }
}

#[test]
fn a_hub_search_merges_its_documentations_results_and_names_the_api_of_each() {
    let site = Site::start(ORG);
    site.create_hub("vets", "Vets");
    site.create_doc("clinic", "Clinic", Some("vets"));
    site.create_doc("farm", "Farm", Some("vets"));
    site.create_doc("outside", "Outside", None);
    site.deploy("clinic", None, CLINIC);
    site.deploy(
        "farm",
        None,
        CLINIC
            .replace("Clinic API", "Farm API")
            .replace("List vaccinations", "List herd vaccinations"),
    );
    site.deploy("outside", None, CLINIC);
    let (s, page) = site.search("/hub/vets/search", "vaccinations");
    assert_eq!(s, 200);
    assert!(page.contains("action=\"/hub/vets/search\""), "{page}");
    let rows = results(&page);
    let ops: Vec<&Row> = rows.iter().filter(|r| r.kind == "Operation").collect();
    assert_eq!(ops.len(), 2, "{rows:?}");
    assert!(
        ops.iter()
            .any(|r| r.href.starts_with("/doc/clinic/") && r.text.contains("in Clinic"))
    );
    assert!(
        ops.iter()
            .any(|r| r.href.starts_with("/doc/farm/") && r.text.contains("in Farm"))
    );
    // Operations of both APIs come before any property.
    let first_property = rows.iter().position(|r| r.kind == "Property").unwrap();
    assert!(first_property >= 2, "{rows:?}");
    // A documentation outside the hub is not searched.
    assert!(rows.iter().all(|r| !r.href.starts_with("/doc/outside")));
}

#[test]
#[cfg_attr(missing_corpus, ignore = "needs the API corpus (SPECPRESS_CORPUS)")]
fn searching_the_github_description_finds_the_operation_named_by_the_query_first() {
    let site = Site::start(ORG);
    site.create_doc("github", "GitHub", None);
    let definition =
        std::fs::read_to_string(corpus().join("openapi-3.0/github-api-23.0.2.json")).unwrap();
    site.deploy("github", None, &definition);
    let rows = results(&site.search("/doc/github/search", "list pull requests").1);
    assert!(rows[0].text.contains("List pull requests</a>"), "{rows:?}");
    assert_eq!(
        rows[0].href,
        "/doc/github/operation/operation-get-repos-owner-repo-pulls"
    );
    // A typo in each word.
    let rows = results(&site.search("/doc/github/search", "list pul requets").1);
    assert!(rows[0].text.contains("List pull requests"), "{rows:?}");
    // A property name: operations that carry the word in their own names come first, properties later.
    let (_, page) = site.search("/doc/github/search", "repository");
    let rows = results(&page);
    assert_eq!(rows.len(), 50, "results are bounded");
    assert!(page.contains("the first 50 are shown"), "{page}");
    assert_eq!(rows[0].kind, "Operation", "{rows:?}");
    let (s, _, _) = site.get(&rows[0].href);
    assert_eq!(s, 200);
}

/// What a person looks at, in a real headless Chromium: a documentation's results page (results, a close match,
/// nothing found, a refused query), a hub's results page, and the private-documentation pages around them (the
/// sign-in form, the 404 page that offers it) pass axe-core (WCAG 2.1 AA) with JavaScript on and off, light and
/// dark, desktop and phone, with no CSP report, page error or failed request.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn search_results_and_sign_in_pages_pass_axe_in_headless_chromium_with_and_without_javascript() {
    let tools = specpress_e2e::browser::tools();
    let site = Site::start(ORG);
    site.create_hub("vets", "Vets");
    site.create_doc("clinic", "Clinic", Some("vets"));
    site.deploy("clinic", None, CLINIC);
    let too_long = "x".repeat(150);
    let pages = [
        ("/doc/clinic/search?q=vaccinations".to_owned(), 200),
        ("/doc/clinic/search?q=vacinations".to_owned(), 200),
        ("/doc/clinic/search?q=zzzqqq".to_owned(), 200),
        (format!("/doc/clinic/search?q={too_long}"), 400),
        ("/hub/vets/search?q=owner".to_owned(), 200),
        ("/sign-in?next=%2Fdoc%2Fclinic".to_owned(), 200),
        ("/doc/no-such-documentation".to_owned(), 404),
    ];
    let urls: Vec<(String, u16)> = pages.iter().map(|(p, s)| (site.url(p), *s)).collect();
    let shots = specpress_e2e::browser::check_statuses(&tools, &urls, 1400);
    assert_eq!(shots, urls.len() * 5, "screenshots taken");
}

/// The `.json` twin of every search URL: the same results, in the same order, with the same words as the page,
/// document text as JSON strings (never markup), the same 400 for a refused query and the same 404 for what does
/// not exist; what the search fields read to suggest results as one types.
#[test]
fn every_search_has_a_json_twin_with_the_results_of_its_page() {
    let site = Site::start(ORG);
    site.create_hub("vets", "Vets");
    site.create_doc("clinic", "Clinic", Some("vets"));
    site.deploy("clinic", None, CLINIC);
    site.deploy("clinic", Some("next"), CLINIC);
    for (page, json) in [
        ("/doc/clinic/search", "/doc/clinic/search.json"),
        (
            "/doc/clinic/branches/next/search",
            "/doc/clinic/branches/next/search.json",
        ),
        ("/hub/vets/search", "/hub/vets/search.json"),
    ] {
        for q in ["vacinations", "owner", "zzzqqq"] {
            let (s, _, html) = site.get(&format!("{page}?q={q}"));
            assert_eq!(s, 200);
            let (s, headers, body) = site.get(&format!("{json}?q={q}"));
            assert_eq!(s, 200, "{json}?q={q}: {body}");
            assert!(
                specpress_e2e::site::header(&headers, "content-type")
                    .starts_with("application/json"),
                "{headers:?}"
            );
            assert!(!specpress_e2e::site::header(&headers, "etag").is_empty());
            let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
            let rows = results(&html);
            let got = v["results"].as_array().expect("results");
            assert_eq!(got.len(), rows.len(), "{json}?q={q}: {v}");
            for (row, r) in rows.iter().zip(got) {
                assert_eq!(r["href"].as_str(), Some(row.href.as_str()), "{v}");
                let kind = row.kind.split(" · ").next().unwrap_or_default();
                assert_eq!(r["kind_label"].as_str(), Some(kind), "{v}");
            }
            let summary = v["summary"].as_str().expect("summary");
            assert!(html.contains(summary), "{summary} is the page's summary");
            assert_eq!(v["query"], q);
        }
    }
    // Hostile document text stays text: the JSON carries it as a string, the script inserts it as text.
    let (_, _, body) = site.get("/doc/clinic/search.json?q=owner");
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert!(
        v["results"][0]["title"]
            .as_str()
            .is_some_and(|t| t.contains("<img src=x onerror=alert(1)>")),
        "{v}"
    );
    // Refused and unknown, as the pages are.
    let (s, _, body) = site.get(&format!("/doc/clinic/search.json?q={}", "x".repeat(150)));
    assert_eq!(s, 400);
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("too long")),
        "{v}"
    );
    assert_eq!(site.get("/doc/nothing-here/search.json?q=pets").0, 404);
    assert_eq!(site.get("/hub/nothing-here/search.json?q=pets").0, 404);
    assert_eq!(
        site.get("/doc/clinic/branches/nothing-here/search.json?q=pets")
            .0,
        404
    );
    // A revalidation with the ETag is a 304; the page's ETag is not the JSON's.
    let (_, headers, _) = site.get("/doc/clinic/search.json?q=owner");
    let etag = specpress_e2e::site::header(&headers, "etag").to_owned();
    let (_, page_headers, _) = site.get("/doc/clinic/search?q=owner");
    assert_ne!(etag, specpress_e2e::site::header(&page_headers, "etag"));
    let r = reqwest::blocking::Client::new()
        .get(site.url("/doc/clinic/search.json?q=owner"))
        .header("If-None-Match", &etag)
        .send()
        .expect("GET");
    assert_eq!(r.status().as_u16(), 304);
}

/// Typing in the header's search field suggests results (headless Chromium, light desktop and dark phone): a
/// listbox with the combobox's ARIA state, the operation first for a typo, a last entry to all results, no axe
/// violation with the list open, Escape closes it, ArrowDown and Enter open the chosen page.
#[test]
#[cfg_attr(
    any(missing_chromium, missing_node_modules),
    ignore = "needs Chromium and node with playwright-core and axe-core (scripts/install-tools.sh)"
)]
fn the_search_field_suggests_results_as_one_types_in_headless_chromium() {
    let tools = specpress_e2e::browser::tools();
    let site = clinic_site();
    let out = specpress_e2e::temp_dir();
    let keep = std::env::var_os("SPECPRESS_SCREENSHOTS").map(std::path::PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| out.path().to_path_buf());
    let run = std::process::Command::new("node")
        .arg(specpress_e2e::repo_root().join("tests/browser/suggest.js"))
        .arg("--out")
        .arg(&dir)
        .arg(site.url("/doc/clinic"))
        .arg("vacinations")
        .arg("List vaccinations")
        .arg("/doc/clinic/operation/operation-get-pets-petid-vaccinations")
        .env("SPECPRESS_CHROMIUM", &tools.0)
        .env("SPECPRESS_NODE_MODULES", &tools.1)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "suggestions check failed:\n{stdout}\n{stderr}"
    );
    assert!(dir.join("suggest--light-desktop.png").is_file());
    assert!(dir.join("suggest--dark-phone.png").is_file());
}
