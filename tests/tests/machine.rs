//! Pages for machines, end to end against the real `specpress serve`: the Markdown variant of reference pages
//! (`{page URL}.md`), `llms.txt` of a documentation and of a hub, the sitemap of a documentation and the sitemap index
//! of a hub (parsed as XML), with document text escaped and unknown names answered 404.

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::json;
use specpress_e2e::site::{Site, header};

const ORG: &str = "machine-tests-organization-token-42";

/// A small API where the same word is an operation, a parameter and a schema property, with hostile text in names,
/// summaries and descriptions.
const CLINIC: &str = include_str!("../fixtures/clinic.yaml");

fn clinic_site() -> Site {
    let site = Site::start(ORG);
    site.create_doc("clinic", "Clinic", None);
    site.deploy("clinic", None, CLINIC);
    site
}

/// The targets of the Markdown links `[text](target)` of a text.
fn md_links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|r| r.split(')').next())
        .map(str::to_string)
        .collect()
}

/// The text of every `<name>` element of an XML document, parsed by quick-xml (which fails on malformed XML).
fn xml_texts(xml: &str, name: &str) -> Vec<String> {
    let mut reader = Reader::from_str(xml);
    let mut out = Vec::new();
    let mut inside = false;
    let mut root = None;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => {
                let n = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if root.is_none() {
                    let ns = e
                        .attributes()
                        .filter_map(Result::ok)
                        .find(|a| a.key.as_ref() == b"xmlns")
                        .map(|a| String::from_utf8_lossy(&a.value).into_owned());
                    assert_eq!(
                        ns.as_deref(),
                        Some("http://www.sitemaps.org/schemas/sitemap/0.9")
                    );
                    root = Some(n.clone());
                }
                inside = n == name;
            }
            Event::Text(t) if inside => out.push(t.decode().unwrap().into_owned()),
            Event::End(_) => inside = false,
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

#[test]
fn every_reference_page_has_a_markdown_variant_with_document_text_escaped() {
    let site = clinic_site();
    let (s, h, home) = site.get("/doc/clinic.md");
    let ct = header(&h, "content-type");
    assert_eq!(s, 200);
    assert_eq!(ct, "text/markdown; charset=utf-8");
    assert!(home.starts_with("# Clinic API\n"), "{home}");
    assert!(
        home.contains("(/doc/clinic/operation/operation-get-pets-petid-vaccinations.md)"),
        "{home}"
    );
    let (s, _, op) = site.get("/doc/clinic/operation/operation-get-pets-petid-vaccinations.md");
    assert_eq!(s, 200);
    assert!(op.contains("**GET** `/pets/{petId}/vaccinations`"), "{op}");
    assert!(op.contains("| `per_page` | query | integer | no |"), "{op}");
    assert!(
        op.contains("[Vaccination](/doc/clinic/schema/Vaccination.md)"),
        "{op}"
    );
    // Hostile text is escaped for Markdown: no raw tag, no link or image can come from the document.
    let (_, _, owner) = site.get("/doc/clinic/operation/operation-post-owners.md");
    assert!(
        owner.contains("Create an owner \\<img src\\=x onerror\\=alert\\(1\\)\\>"),
        "{owner}"
    );
    let (_, _, pet) = site.get("/doc/clinic/schema/Pet.md");
    assert!(
        pet.contains("`<script>alert(1)</script>`"),
        "in a code span: {pet}"
    );
    for text in [&home, &op, &owner, &pet] {
        // `\<` is a literal `<` in Markdown: only an unescaped one could open a tag.
        assert!(!text.replace("\\<", "").contains("<img src"), "{text}");
        assert!(!text.contains("\n<script"), "{text}");
    }
    // Every link of the home page's Markdown answers 200 with Markdown.
    for link in md_links(&home) {
        if link.ends_with(".md") {
            let (s, h, _) = site.get(&link);
            let ct = header(&h, "content-type");
            assert_eq!((s, ct), (200, "text/markdown; charset=utf-8"), "{link}");
        }
    }
    // A branch's pages, the default branch named (redirected), an alias (redirected), unknown pages.
    site.deploy(
        "clinic",
        Some("next"),
        CLINIC.replace("Clinic API", "Clinic API next"),
    );
    let (s, _, next) = site.get("/doc/clinic/branches/next.md");
    assert_eq!(s, 200);
    assert!(next.starts_with("# Clinic API next\n"), "{next}");
    assert!(
        next.contains("(/doc/clinic/branches/next/schemas.md)"),
        "{next}"
    );
    let r = site
        .http
        .get(site.url("/doc/clinic/branches/main/schema/Pet.md"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 307);
    assert_eq!(r.headers()["location"], "/doc/clinic/schema/Pet.md");
    let r = site
        .http
        .get(site.url("/doc/clinic/operation/listVaccinations.md"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 308);
    assert_eq!(
        r.headers()["location"],
        "/doc/clinic/operation/operation-get-pets-petid-vaccinations.md"
    );
    for path in [
        "/doc/clinic/schema/Nope.md",
        "/doc/nope.md",
        "/doc/nope/schema/Pet.md",
        "/doc/clinic/branches/nope.md",
    ] {
        let (s, _, _) = site.get(path);
        assert_eq!(s, 404, "{path}");
    }
}

#[test]
fn llms_txt_lists_every_page_with_its_markdown_url_and_the_sitemap_every_page_with_its_publication_time()
 {
    let site = clinic_site();
    let (s, h, llms) = site.get("/doc/clinic/llms.txt");
    let ct = header(&h, "content-type");
    assert_eq!(s, 200);
    assert_eq!(ct, "text/plain; charset=utf-8");
    assert!(
        llms.starts_with("# Clinic\n\n> API reference of Clinic API, version 1\\.0\\.0"),
        "{llms}"
    );
    let origin = &site.server.base_url;
    let links: Vec<String> = md_links(&llms)
        .into_iter()
        .filter(|l| l.ends_with(".md"))
        .collect();
    assert!(
        links.contains(&format!(
            "{origin}/doc/clinic/operation/operation-get-pets-petid-vaccinations.md"
        )),
        "{llms}"
    );
    assert!(
        llms.contains(": GET /pets/\\{petId\\}/vaccinations\n"),
        "{llms}"
    );
    for l in &links {
        assert!(l.starts_with(&format!("{origin}/doc/clinic")), "{l}");
        let (s, _, _) = site.get(l);
        assert_eq!(s, 200, "{l}");
    }
    let (s, h, xml) = site.get("/doc/clinic/sitemap.xml");
    let ct = header(&h, "content-type");
    assert_eq!(s, 200);
    assert_eq!(ct, "application/xml; charset=utf-8");
    let locs = xml_texts(&xml, "loc");
    let lastmods = xml_texts(&xml, "lastmod");
    // The same pages as llms.txt, as HTML URLs.
    assert_eq!(locs.len(), links.len(), "{xml}\n{llms}");
    assert_eq!(locs[0], format!("{origin}/doc/clinic"));
    for loc in &locs {
        let (s, h, _) = site.get(loc);
        let ct = header(&h, "content-type");
        assert_eq!((s, ct.starts_with("text/html")), (200, true), "{loc}");
    }
    assert_eq!(lastmods.len(), locs.len());
    let published =
        time::OffsetDateTime::parse(&lastmods[0], &time::format_description::well_known::Rfc3339)
            .unwrap();
    assert!((time::OffsetDateTime::now_utc() - published).whole_minutes() < 10);
    assert!(lastmods.iter().all(|l| l == &lastmods[0]));
    // Unknown documentations: 404.
    assert_eq!(site.get("/doc/nope/llms.txt").0, 404);
    assert_eq!(site.get("/doc/nope/sitemap.xml").0, 404);
}

#[test]
fn a_hub_has_an_llms_txt_of_its_apis_and_a_sitemap_index_of_their_sitemaps() {
    let site = Site::start(ORG);
    let (s, b) = site.api(
        reqwest::Method::POST,
        "/api/v1/hubs",
        Some(json!({"name": "Vets <b>", "slug": "vets"})),
    );
    assert_eq!(s, 201, "{b}");
    for (slug, hub) in [
        ("clinic", Some("vets")),
        ("farm", Some("vets")),
        ("outside", None),
        ("empty", Some("vets")),
    ] {
        site.create_doc(slug, slug, hub);
    }
    site.deploy("clinic", None, CLINIC);
    site.deploy("farm", None, CLINIC.replace("Clinic API", "Farm API"));
    site.deploy("outside", None, CLINIC);
    let origin = &site.server.base_url;
    let (s, _, xml) = site.get("/hub/vets/sitemap.xml");
    assert_eq!(s, 200);
    assert!(xml.contains("<sitemapindex"), "{xml}");
    let locs = xml_texts(&xml, "loc");
    assert_eq!(
        locs,
        vec![
            format!("{origin}/doc/clinic/sitemap.xml"),
            format!("{origin}/doc/farm/sitemap.xml")
        ]
    );
    for loc in &locs {
        assert_eq!(site.get(loc).0, 200);
    }
    let (s, _, llms) = site.get("/hub/vets/llms.txt");
    assert_eq!(s, 200);
    assert!(llms.starts_with("# Vets \\<b\\>\n"), "{llms}");
    assert!(
        llms.contains(&format!(
            "[clinic]({origin}/doc/clinic/llms.txt): Clinic API, version 1\\.0\\.0"
        )),
        "{llms}"
    );
    assert!(
        llms.contains(&format!("[farm]({origin}/doc/farm/llms.txt): Farm API")),
        "{llms}"
    );
    assert!(
        !llms.contains("outside") && !llms.contains("empty"),
        "{llms}"
    );
    assert_eq!(site.get("/hub/nope/llms.txt").0, 404);
    assert_eq!(site.get("/hub/nope/sitemap.xml").0, 404);
}

/// The `href` of every `<a>` of a page.
fn hrefs(html: &str) -> Vec<String> {
    html.split("<a href=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .map(str::to_string)
        .collect()
}

/// Issue 28, discovery of the MCP servers: every page of a documentation (on every branch: its own server) and of a
/// hub links its MCP URL, `llms.txt` names it by its absolute URL, and the home page of a documentation and a hub's
/// page show a client configuration on the request's public origin (a token placeholder when private).
#[test]
fn every_page_links_its_mcp_server_llms_txt_names_it_and_the_home_page_shows_a_client_configuration()
 {
    let site = Site::start(ORG);
    site.create_hub("vets", "Vets");
    site.create_doc("clinic", "Clinic", Some("vets"));
    site.deploy("clinic", None, CLINIC);
    site.deploy(
        "clinic",
        Some("next"),
        CLINIC.replace("Clinic API", "Clinic API next"),
    );
    let origin = &site.server.base_url;
    // Every reference page of the default branch, its changelog and search: `/doc/clinic/mcp`.
    let (_, _, home) = site.get("/doc/clinic");
    let mut pages: Vec<String> = hrefs(&home)
        .into_iter()
        .filter(|h| h.starts_with("/doc/clinic/") && !h.ends_with("/mcp"))
        .filter(|h| !h.contains("/branches/"))
        .collect();
    pages.sort();
    pages.dedup();
    assert!(pages.iter().any(|p| p.contains("/operation/")), "{pages:?}");
    assert!(
        pages.contains(&"/doc/clinic/changes".to_owned()),
        "{pages:?}"
    );
    pages.extend([
        "/doc/clinic/schema/Pet".to_owned(),
        "/doc/clinic/search?q=pet".to_owned(),
    ]);
    for p in &pages {
        let (s, _, html) = site.get(p);
        assert_eq!(s, 200, "{p}");
        assert!(
            hrefs(&html).contains(&"/doc/clinic/mcp".to_owned()),
            "{p}: {html}"
        );
    }
    // A branch's pages: the branch's own server.
    for p in [
        "/doc/clinic/branches/next",
        "/doc/clinic/branches/next/schema/Pet",
    ] {
        let (s, _, html) = site.get(p);
        assert_eq!(s, 200, "{p}");
        let links = hrefs(&html);
        assert!(
            links.contains(&"/doc/clinic/branches/next/mcp".to_owned()),
            "{p}: {html}"
        );
        assert!(!links.contains(&"/doc/clinic/mcp".to_owned()), "{p}");
    }
    // The home page: the client configuration, with the absolute URL; the other pages have none.
    let config = format!(
        "<code>{{\n  &quot;mcpServers&quot;: {{\n    &quot;clinic&quot;: {{\n      &quot;url&quot;: &quot;{origin}/doc/clinic/mcp&quot;\n    }}\n  }}\n}}</code>"
    );
    assert!(home.contains("Use with an AI agent"), "{home}");
    assert!(home.contains(&config), "{home}");
    assert!(!home.contains("Authorization"), "{home}");
    let (_, _, next) = site.get("/doc/clinic/branches/next");
    assert!(
        next.contains(&format!(
            "&quot;url&quot;: &quot;{origin}/doc/clinic/branches/next/mcp&quot;"
        )),
        "{next}"
    );
    let (_, _, schema) = site.get("/doc/clinic/schema/Pet");
    assert!(!schema.contains("mcpServers"), "{schema}");
    let local = {
        let r = site.http.get(site.url("/doc/clinic")).send().unwrap();
        header(r.headers(), "etag").to_owned()
    };
    // llms.txt: the absolute URL, and the tools.
    let (_, _, llms) = site.get("/doc/clinic/llms.txt");
    assert!(
        llms.contains(&format!(
            "## MCP server\n\n- [MCP server]({origin}/doc/clinic/mcp): "
        )),
        "{llms}"
    );
    assert!(llms.contains("`get_definition`"), "{llms}");
    let (_, _, hub_llms) = site.get("/hub/vets/llms.txt");
    assert!(
        hub_llms.contains(&format!("- [MCP server]({origin}/hub/vets/mcp): ")),
        "{hub_llms}"
    );
    // A hub's page and search: `/hub/vets/mcp`; the page shows the configuration.
    for p in ["/hub/vets", "/hub/vets/search?q=pet"] {
        let (s, _, html) = site.get(p);
        assert_eq!(s, 200, "{p}");
        assert!(
            hrefs(&html).contains(&"/hub/vets/mcp".to_owned()),
            "{p}: {html}"
        );
    }
    let (_, _, hub) = site.get("/hub/vets");
    assert!(
        hub.contains(&format!(
            "&quot;vets&quot;: {{\n      &quot;url&quot;: &quot;{origin}/hub/vets/mcp&quot;"
        )),
        "{hub}"
    );
    // Private: the configuration carries a placeholder header (and the page's validator changes).
    let (s, b) = site.api(
        reqwest::Method::PATCH,
        "/api/v1/docs/clinic",
        Some(json!({"visibility": "private"})),
    );
    assert_eq!(s, 200, "{b}");
    let r = site
        .http
        .get(site.url("/doc/clinic"))
        .header("Authorization", format!("Token {ORG}"))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_ne!(header(r.headers(), "etag"), local);
    let private = r.text().unwrap();
    assert!(
        private.contains("&quot;Authorization&quot;: &quot;Bearer &lt;your token&gt;&quot;"),
        "{private}"
    );
    assert!(!private.contains(ORG), "{private}");
}
