//! Hostile documents: markup, handlers, script URLs and attribute-breaking quotes in every field
//! that reaches a page. Every rendered page is parsed with an HTML parser (scraper, on html5ever)
//! and nothing executable may be in it: no script element but the site's own external one, no
//! `on*` attribute, no `javascript:`/`data:`/`vbscript:` URL, no iframe/object/embed/form/style/
//! base/frame element, no style attribute, no image from anywhere but https.

mod common;

use common::{BRANCHES, Fixture, LINKS, parse};
use scraper::{Html as Parsed, Selector};
use serde_json::{Value, json};
use specpress_render::{McpScope, McpServer, NavLink, PageContext, Site};

/// Markup that tries every way out of text, attributes and `<details>`.
const P: &str = "\"'><script>alert(1)</script><img src=x onerror=alert(2)><iframe src=\"javascript:alert(3)\"></iframe><style>*{color:red}</style><form action=\"https://evil.example\"><input name=q></form></details></summary><a href=\"javascript:alert(4)\" onclick=\"alert(5)\">x</a><svg onload=alert(6)></svg><object data=\"x\"></object><embed src=\"x\"><base href=\"https://evil.example/\"><p style=\"position:fixed\">s</p>";
/// The same in Markdown.
const MD: &str = "# Title <script>alert(7)</script>\n\n[click](javascript:alert(8)) ![i](data:image/png;base64,AAAA) ![t](http://tracker.example/p.gif) <img src=\"https://ok.example/i.png\" onerror=\"alert(9)\">\n\n<details><summary>s</summary></details></details></main><iframe src=\"https://evil.example\"></iframe>\n\n```html\n<script>alert(10)</script>\n```\n\n<a href=\"vbscript:msgbox\">v</a> <a href=\" javascript:alert(11)\">w</a> <a href=\"JaVaScRiPt&colon;alert(12)\">z</a>";
const BAD_URL: &str = "javascript:alert(13)";
const DATA_URL: &str = "data:text/html,<script>alert(14)</script>";

fn k(suffix: &str) -> String {
    format!("{P}{suffix}")
}

fn hostile_openapi() -> Value {
    let schema = json!({
        "type": "object",
        "title": P,
        "description": MD,
        "required": [k("prop")],
        "properties": {
            k("prop"): {
                "type": "string", "description": MD, "enum": [P, BAD_URL], "default": P,
                "example": P, "pattern": P, "format": P, "x-ext": P
            },
            k("nested"): {
                "type": "object", "properties": { k("inner"): { "type": "integer", "description": P } },
                "additionalProperties": { "type": "string", "description": P }
            },
            k("choice"): {
                "oneOf": [ { "$ref": format!("#/components/schemas/{}", "Hostile~1Name") }, { "title": P, "type": "string" } ],
                "discriminator": { "propertyName": P, "mapping": { P: "#/components/schemas/Hostile~1Name" } }
            },
            k("self"): { "$ref": "#/components/schemas/Safe" }
        },
        "example": { P: P, "url": BAD_URL }
    });
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": P, "version": P, "summary": P, "description": MD,
            "termsOfService": BAD_URL,
            "contact": { "name": P, "url": BAD_URL, "email": format!("a@b.c\" onclick=\"{P}") },
            "license": { "name": P, "url": DATA_URL }
        },
        "externalDocs": { "url": "vbscript:msgbox(1)", "description": P },
        "servers": [
            { "url": format!("https://{{{P}}}.example/{P}"), "description": MD,
              "variables": { P: { "default": P, "enum": [P, BAD_URL] } } },
            { "url": BAD_URL }
        ],
        "tags": [
            { "name": P, "description": MD, "externalDocs": { "url": BAD_URL, "description": P }, "x-displayName": P },
            { "name": k("child"), "parent": P, "summary": P }
        ],
        "x-topics": [
            { "title": P, "content": MD },
            { "title": k("2"), "content": P }
        ],
        "security": [ { P: [P] } ],
        "paths": {
            format!("/{P}/{{id}}"): {
                "parameters": [ { "name": "id", "in": "path", "required": true, "description": MD, "schema": { "type": "string", "example": P } } ],
                "get": {
                    "operationId": P,
                    "summary": P,
                    "description": MD,
                    "tags": [P, k("child")],
                    "deprecated": true,
                    "x-sunset": P,
                    "x-extension": { P: [P, BAD_URL] },
                    "externalDocs": { "url": DATA_URL, "description": P },
                    "parameters": [
                        { "name": P, "in": "query", "required": true, "description": MD, "example": P,
                          "schema": { "type": "string", "enum": [P], "default": P } },
                        { "name": k("h"), "in": "header", "description": P,
                          "examples": { P: { "summary": P, "value": P } },
                          "schema": { "type": "array", "items": { "type": "string", "enum": [P] } } },
                        { "name": k("c"), "in": "cookie", "schema": { "$ref": "#/components/schemas/Hostile~1Name" } }
                    ],
                    "requestBody": {
                        "description": MD,
                        "required": true,
                        "content": {
                            "application/json": {
                                "schema": { "$ref": "#/components/schemas/Hostile~1Name" },
                                "examples": { P: { "summary": P, "description": MD, "value": { P: P } },
                                              "ext": { "externalValue": BAD_URL } }
                            },
                            format!("text/{P}"): { "schema": { "type": "string", "description": P }, "example": P }
                        }
                    },
                    "responses": {
                        "200": {
                            "description": MD,
                            "headers": { P: { "description": MD, "schema": { "type": "string", "example": P } } },
                            "content": { "application/json": { "schema": schema.clone(), "example": { P: P } } }
                        },
                        "default": { "description": P }
                    },
                    "callbacks": {
                        P: { P: { "post": { "summary": P, "description": MD,
                            "requestBody": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Hostile~1Name" } } } },
                            "responses": { "200": { "description": P } } } } }
                    },
                    "security": [ { P: [P] }, {} ]
                }
            },
            "/plain": { "post": { "summary": "Plain", "responses": { "204": { "description": "ok" } } } }
        },
        "webhooks": {
            P: { "post": { "summary": P, "description": MD, "operationId": k("hook"),
                "requestBody": { "content": { "application/json": { "schema": schema } } },
                "responses": { "200": { "description": P } } } }
        },
        "components": {
            "schemas": {
                "Hostile/Name": {
                    "type": "object", "description": MD,
                    "properties": {
                        P: { "type": ["string", "null"], "description": MD, "readOnly": true },
                        "again": { "$ref": "#/components/schemas/Hostile~1Name" },
                        "list": { "type": "array", "items": { "$ref": "#/components/schemas/Safe" } }
                    }
                },
                "Safe": { "type": "object", "properties": { "name": { "type": "string", "const": P } } },
                P: { "type": "string", "enum": [P], "description": MD }
            },
            "securitySchemes": {
                P: { "type": "oauth2", "description": MD, "flows": {
                    "authorizationCode": { "authorizationUrl": BAD_URL, "tokenUrl": DATA_URL, "refreshUrl": P,
                        "scopes": { P: P } } } },
                "key": { "type": "apiKey", "in": "header", "name": P },
                "oidc": { "type": "openIdConnect", "openIdConnectUrl": BAD_URL },
                "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": P }
            }
        }
    })
}

fn hostile_asyncapi_2() -> Value {
    json!({
        "asyncapi": "2.6.0",
        "info": { "title": P, "version": P, "description": MD, "license": { "name": P, "url": BAD_URL } },
        "servers": { P: { "url": format!("{P}.example:9092"), "protocol": P, "protocolVersion": P, "description": MD,
            "bindings": { P: { P: P } } } },
        "channels": {
            format!("{P}/{{id}}"): {
                "description": MD,
                "parameters": { "id": { "description": MD, "schema": { "type": "string", "enum": [P] }, "location": P } },
                "bindings": { "kafka": { P: P } },
                "subscribe": {
                    "operationId": P, "summary": P, "description": MD,
                    "bindings": { "kafka": { "clientId": { "type": "string", "enum": [P] } } },
                    "message": {
                        "name": P, "title": P, "summary": P, "description": MD, "contentType": P,
                        "correlationId": { "location": P, "description": P },
                        "headers": { "type": "object", "properties": { P: { "type": "string", "description": MD } } },
                        "payload": { "type": "object", "properties": { P: { "type": "string", "enum": [P], "description": MD } } },
                        "examples": [ { "name": P, "summary": P, "headers": { P: P }, "payload": { P: P } } ],
                        "bindings": { "kafka": { "key": { "type": "string", "description": P } } }
                    }
                },
                "publish": { "summary": P, "message": { "payload": { "type": "string", "description": P } } }
            }
        }
    })
}

fn hostile_asyncapi_3() -> Value {
    json!({
        "asyncapi": "3.0.0",
        "info": { "title": P, "version": P, "description": MD },
        "servers": { "prod": { "host": format!("{P}.example"), "pathname": P, "protocol": "mqtt", "description": P } },
        "channels": {
            "lights": {
                "address": format!("lights/{{id}}/{P}"),
                "title": P,
                "description": MD,
                "parameters": { "id": { "description": MD, "enum": [P], "default": P, "location": P } },
                "messages": { "m": { "$ref": "#/components/messages/Hostile" } }
            }
        },
        "operations": {
            P: { "action": "receive", "channel": { "$ref": "#/channels/lights" }, "summary": P, "description": MD,
                 "messages": [ { "$ref": "#/channels/lights/messages/m" } ] },
            "send": { "action": "send", "channel": { "$ref": "#/channels/lights" }, "title": P }
        },
        "components": {
            "messages": {
                "Hostile": { "name": P, "title": P, "description": MD,
                    "payload": { "$ref": "#/components/schemas/Payload" },
                    "examples": [ { "name": P, "payload": { P: BAD_URL } } ] }
            },
            "schemas": {
                "Payload": { "type": "object", "properties": { P: { "type": "string", "description": MD, "examples": [P] } } }
            }
        }
    })
}

fn selector(s: &str) -> Selector {
    Selector::parse(s).expect("selector")
}

fn bad_url(u: &str) -> bool {
    let cleaned: String = u
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    cleaned.starts_with("javascript:")
        || cleaned.starts_with("data:")
        || cleaned.starts_with("vbscript:")
}

/// Asserts that nothing executable reached `html`.
fn assert_inert(html: &str, ctx: &PageContext<'_>, what: &str) {
    let page = Parsed::parse_document(html);
    let scripts: Vec<_> = page.select(&selector("script")).collect();
    assert_eq!(scripts.len(), 1, "{what}: script elements");
    assert_eq!(
        scripts[0].value().attr("src"),
        Some(ctx.assets.script.as_str()),
        "{what}"
    );
    assert!(
        scripts[0].text().next().is_none(),
        "{what}: the script element has content"
    );
    for bad in [
        "iframe",
        "object",
        "embed",
        "form",
        "style",
        "base",
        "frame",
        "frameset",
        "svg",
        "math",
        "input",
        "textarea",
        "button",
        "select",
        "applet",
        "link[rel=import]",
        "meta[http-equiv]",
    ] {
        assert_eq!(
            page.select(&selector(bad)).count(),
            0,
            "{what}: <{bad}> element"
        );
    }
    for link in page.select(&selector("link")) {
        let rel = link.value().attr("rel").unwrap_or("");
        assert!(
            rel == "stylesheet" || rel == "alternate",
            "{what}: link rel {rel}"
        );
        if rel == "stylesheet" {
            assert_eq!(
                link.value().attr("href"),
                Some(ctx.assets.stylesheet.as_str()),
                "{what}"
            );
        }
    }
    for el in page.select(&selector("*")) {
        for (name, value) in el.value().attrs() {
            let n = name.to_ascii_lowercase();
            assert!(
                !n.starts_with("on"),
                "{what}: attribute {n}={value:?} on <{}>",
                el.value().name()
            );
            assert!(
                n != "style",
                "{what}: style attribute on <{}>",
                el.value().name()
            );
            assert!(n != "srcdoc" && n != "formaction", "{what}: {n}");
            if matches!(
                n.as_str(),
                "href"
                    | "src"
                    | "action"
                    | "xlink:href"
                    | "cite"
                    | "background"
                    | "poster"
                    | "data"
            ) {
                assert!(
                    !bad_url(value),
                    "{what}: {n}={value:?} on <{}>",
                    el.value().name()
                );
            }
        }
        if el.value().name() == "img" {
            let src = el.value().attr("src").unwrap_or("");
            assert!(src.starts_with("https://"), "{what}: img src {src:?}");
        }
        if el.value().name() == "a"
            && let Some(href) = el.value().attr("href")
            && (href.starts_with("http://") || href.starts_with("https://"))
        {
            // Document links carry the rel; the site's own are relative.
            assert_eq!(
                el.value().attr("rel"),
                Some("noopener noreferrer nofollow"),
                "{what}: {href}"
            );
        }
    }
}

fn render_everything(doc_json: &Value, label: &str) -> usize {
    let text = serde_json::to_string_pretty(doc_json).expect("json");
    let doc = parse(&text);
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let links = [
        NavLink {
            label: P,
            href: "/doc/pets/changes",
            current: true,
        },
        LINKS[0],
    ];
    let mut ctx = fx.ctx(BRANCHES, &links, P);
    let mcp_url = format!("https://docs.example.com/doc/x/mcp{P}");
    ctx.mcp = Some(McpServer {
        href: "/doc/x/mcp",
        url: Some(&mcp_url),
        name: P,
        scope: McpScope::Documentation,
        token: true,
    });
    let mut reached = 0;
    let mut pages = 0;
    for p in site.pages() {
        let page = site.render(&doc, &p.page, &ctx);
        assert_inert(&page.html, &ctx, &format!("{label} {}", p.path));
        // The hostile text is on the page, as text.
        let parsed = Parsed::parse_document(&page.html);
        let text: String = parsed.root_element().text().collect();
        if text.contains("<script>alert(1)</script>") {
            reached += 1;
        }
        pages += 1;
    }
    assert!(reached > 0, "{label}: the hostile text reached no page");
    assert_eq!(
        reached, pages,
        "{label}: every page shows some document text"
    );
    pages
}

#[test]
fn a_hostile_openapi_31_document_renders_nothing_executable_on_any_page() {
    let pages = render_everything(&hostile_openapi(), "openapi");
    // Home, 2 topics, tags, 2 operations, a callback, a webhook, schemas.
    assert!(pages >= 10, "{pages}");
}

#[test]
fn a_hostile_asyncapi_2_document_renders_nothing_executable_on_any_page() {
    let pages = render_everything(&hostile_asyncapi_2(), "asyncapi 2");
    assert!(pages >= 4, "{pages}");
}

#[test]
fn a_hostile_asyncapi_3_document_renders_nothing_executable_on_any_page() {
    let pages = render_everything(&hostile_asyncapi_3(), "asyncapi 3");
    assert!(pages >= 4, "{pages}");
}

#[test]
fn hostile_names_give_url_safe_page_paths_that_look_up() {
    let text = serde_json::to_string(&hostile_openapi()).expect("json");
    let doc = parse(&text);
    let site = Site::build(&doc);
    for p in site.pages() {
        assert!(
            p.path
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_')),
            "{:?}",
            p.path
        );
        assert_eq!(site.lookup(p.path), specpress_render::Lookup::Page(p.page));
    }
}

#[test]
fn portal_context_strings_are_escaped_in_the_shell() {
    let doc = parse(r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}"#);
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let branches = [specpress_render::BranchLink {
        name: P,
        href: "/doc/x",
        current: true,
        default: true,
    }];
    let links = [NavLink {
        label: P,
        href: "/doc/x/changes",
        current: false,
    }];
    let mut ctx = fx.ctx(&branches, &links, P);
    let version = specpress_render::VersionInfo {
        id: P,
        published_at: P,
        api_version: P,
    };
    ctx.version = Some(version);
    let alternates = [specpress_render::Alternate {
        href: "/doc/x.json",
        media_type: P,
        title: P,
    }];
    ctx.alternates = &alternates;
    let home = site.pages().next().expect("home");
    let html = site.render(&doc, &home.page, &ctx).html;
    assert_inert(&html, &ctx, "shell");
    let parsed = Parsed::parse_document(&html);
    let title: String = parsed
        .select(&selector("title"))
        .flat_map(|t| t.text())
        .collect();
    assert_eq!(title, format!("T · {P}"));
    let brand: String = parsed
        .select(&selector(".brand a"))
        .flat_map(|t| t.text())
        .collect();
    assert_eq!(brand, P);
}

#[test]
fn a_hostile_name_or_origin_stays_text_inside_its_json_string_in_the_mcp_client_configuration() {
    let doc = parse(r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}"#);
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let mut ctx = fx.ctx(BRANCHES, LINKS, P);
    let url = format!("https://{P}/doc/x/mcp");
    for scope in [McpScope::Documentation, McpScope::Hub] {
        ctx.mcp = Some(McpServer {
            href: "/doc/x/mcp",
            url: Some(&url),
            name: P,
            scope,
            token: true,
        });
        let home = site.pages().next().expect("home");
        let html = site.render(&doc, &home.page, &ctx).html;
        assert_inert(&html, &ctx, "mcp configuration");
        let parsed = Parsed::parse_document(&html);
        let blocks: Vec<String> = parsed
            .select(&selector("main pre.code code"))
            .map(|c| c.text().collect())
            .collect();
        assert_eq!(blocks.len(), 1, "{html}");
        // The text of the block is the JSON configuration, with the hostile strings as values, nothing more.
        let config: Value = serde_json::from_str(&blocks[0]).expect("JSON configuration");
        let servers = config["mcpServers"].as_object().expect("mcpServers");
        assert_eq!(servers.len(), 1, "{config}");
        assert_eq!(servers[P]["url"], url.as_str());
        assert_eq!(
            servers[P]["headers"]["Authorization"],
            "Bearer <your token>"
        );
        let link = parsed
            .select(&selector("footer a"))
            .find(|a| a.text().collect::<String>() == "MCP server")
            .expect("the footer's MCP link");
        assert_eq!(link.value().attr("href"), Some("/doc/x/mcp"));
    }
}
