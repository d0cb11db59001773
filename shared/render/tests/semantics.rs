//! What the pages say about schemas, operations and the URL scheme, on small hand-written
//! documents.

mod common;

use common::{BRANCHES, Fixture, LINKS, parse};
use serde_json::json;
use specpress_render::{Lookup, McpScope, McpServer, PageKind, Site};

fn render(doc_json: &serde_json::Value, path: &str) -> String {
    let doc = parse(&serde_json::to_string(doc_json).expect("json"));
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Test");
    let Lookup::Page(p) = site.lookup(path) else {
        panic!(
            "no page at {path}: {:?}",
            site.pages().map(|p| p.path.to_string()).collect::<Vec<_>>()
        );
    };
    site.render(&doc, &p, &ctx).html
}

fn petstore() -> serde_json::Value {
    json!({
        "openapi": "3.0.3",
        "info": { "title": "Pets", "version": "1.0.0" },
        "servers": [ { "url": "https://{region}.pets.example/v1", "variables": { "region": { "default": "eu" } } } ],
        "tags": [ { "name": "pets", "description": "Everything about pets" }, { "name": "store" } ],
        "paths": {
            "/pets/{petId}": {
                "parameters": [ { "name": "petId", "in": "path", "required": true, "schema": { "type": "integer", "example": 42 } } ],
                "put": {
                    "tags": ["pets"], "summary": "Update a pet", "operationId": "updatePet",
                    "parameters": [ { "name": "dryRun", "in": "query", "required": true, "schema": { "type": "boolean" } } ],
                    "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Pet" } } } },
                    "responses": {
                        "200": { "description": "The pet", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Pet" } } } },
                        "404": { "description": "No such pet" }
                    },
                    "security": [ { "key": [] } ]
                },
                "get": { "tags": ["pets"], "summary": "Get a pet", "responses": { "200": { "description": "ok",
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Shape" } } } } } }
            },
            "/pets-{petId}": { "get": { "tags": ["store"], "responses": { "200": { "description": "ok" } } } },
            "/pets/{id}/toys": { "get": { "responses": { "200": { "description": "ok" } } } }
        },
        "components": {
            "securitySchemes": { "key": { "type": "apiKey", "in": "header", "name": "X-Api-Key" } },
            "schemas": {
                "Pet": {
                    "allOf": [
                        { "$ref": "#/components/schemas/Base" },
                        { "type": "object", "required": ["name"], "properties": {
                            "name": { "type": "string", "minLength": 1, "maxLength": 40 },
                            "secret": { "type": "string", "writeOnly": true },
                            "tag": { "type": "string", "nullable": true, "enum": ["a", "b"] },
                            "parent": { "$ref": "#/components/schemas/Pet" }
                        } }
                    ]
                },
                "Base": { "type": "object", "properties": { "id": { "type": "integer", "readOnly": true, "format": "int64" } } },
                "Shape": {
                    "oneOf": [ { "$ref": "#/components/schemas/Circle" }, { "$ref": "#/components/schemas/Square" } ],
                    "discriminator": { "propertyName": "kind", "mapping": { "circle": "#/components/schemas/Circle" } }
                },
                "Circle": { "type": "object", "properties": { "kind": { "type": "string" }, "radius": { "type": "number", "minimum": 0 } } },
                "Square": { "type": "object", "properties": { "kind": { "type": "string" }, "side": { "type": "number" } } }
            }
        }
    })
}

#[test]
fn operation_paths_are_method_and_path_slugs_and_operation_ids_redirect_to_them() {
    let doc = parse(&petstore().to_string());
    let site = Site::build(&doc);
    assert!(matches!(
        site.lookup("operation/operation-put-pets-petid"),
        Lookup::Page(_)
    ));
    assert_eq!(
        site.lookup("operation/updatePet"),
        Lookup::Redirect("operation/operation-put-pets-petid".into())
    );
    // `/pets/{petId}` GET and `/pets-{petId}` GET share a slug: the first in the model's order keeps it,
    // the other gets a suffix derived from its own method and path (stable whatever else is added).
    let gets: Vec<String> = site
        .pages()
        .filter(|p| {
            p.kind == PageKind::Operation
                && p.path.starts_with("operation/operation-get-pets-petid")
        })
        .map(|p| p.path.to_string())
        .collect();
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert!(
        gets.contains(&"operation/operation-get-pets-petid".to_string()),
        "{gets:?}"
    );
    let again = Site::build(&doc);
    let again: Vec<String> = again.pages().map(|p| p.path.to_string()).collect();
    let first: Vec<String> = site.pages().map(|p| p.path.to_string()).collect();
    assert_eq!(first, again, "paths are deterministic");
    assert_eq!(
        site.lookup("tag/pets"),
        Lookup::Page(site.lookup("tag/pets").page().expect("tag"))
    );
    assert_eq!(
        site.lookup("schema/Pet/"),
        Lookup::Redirect("schema/Pet".into())
    );
}

trait PageOf {
    fn page(&self) -> Option<specpress_render::PageRef>;
}
impl PageOf for Lookup {
    fn page(&self) -> Option<specpress_render::PageRef> {
        match self {
            Lookup::Page(p) => Some(*p),
            _ => None,
        }
    }
}

#[test]
fn all_of_is_merged_read_only_is_hidden_from_requests_and_write_only_from_responses() {
    let html = render(&petstore(), "operation/operation-put-pets-petid");
    let request = &html[html.find("id=\"request-body\"").expect("request body")
        ..html.find("id=\"responses\"").expect("responses")];
    let response = &html[html.find("id=\"responses\"").expect("responses")..];
    // allOf: properties of both members, `name` required.
    assert!(
        request.contains("<code class=\"pn\">name</code>"),
        "{request}"
    );
    assert!(request.contains("<code class=\"pn\">name</code> <span class=\"pt\">string</span> <span class=\"b rq\">required</span>"));
    assert!(response.contains("<code class=\"pn\">id</code>"));
    assert!(
        !request.contains("<code class=\"pn\">id</code>"),
        "readOnly id in the request"
    );
    assert!(request.contains("<code class=\"pn\">secret</code>"));
    assert!(
        !response.contains("<code class=\"pn\">secret</code>"),
        "writeOnly secret in the response"
    );
    // Constraints, enum, nullable.
    assert!(
        request.contains("min length <code>1</code>")
            && request.contains("max length <code>40</code>")
    );
    assert!(request.contains("<span class=\"b\">nullable</span>"));
    assert!(request.contains("one of <code>&quot;a&quot;</code>, <code>&quot;b&quot;</code>"));
    // Recursion is cut with a link to the schema page.
    assert!(
        request.contains("Recursive: see <a href=\"/doc/pets/schema/Pet\">Pet</a>"),
        "{request}"
    );
    // Parameters: path-level merged, required flags, example; curl sample fills them.
    assert!(
        html.contains("<code class=\"pn\">petId</code>")
            && html.contains("<code class=\"pn\">dryRun</code>")
    );
    assert!(
        html.contains("--url &#39;https://eu.pets.example/v1/pets/42?dryRun=true&#39;"),
        "curl"
    );
    assert!(html.contains("--header &#39;X-Api-Key: YOUR_API_KEY&#39;"));
    assert!(html.contains("id=\"response-404\""));
}

#[test]
fn one_of_is_shown_as_alternatives_with_the_discriminator() {
    let doc = parse(&petstore().to_string());
    let site = Site::build(&doc);
    let page = site
        .operation_page(&doc, "GET", "/pets/{petId}")
        .expect("page");
    let path = site.info(page).path.to_string();
    // `/pets-{petId}` sorts first (normalized `/pets-{}` < `/pets/{}`) and keeps the plain slug.
    assert!(
        path.starts_with("operation/operation-get-pets-petid-"),
        "{path}"
    );
    let html = render(&petstore(), &path);
    assert!(
        html.contains("One of (told apart by <code>kind</code>: <code>circle</code> → Circle)"),
        "{html}"
    );
    assert!(html.contains("Option 1: Circle") && html.contains("Option 2: Square"));
    assert!(html.contains("<code class=\"pn\">radius</code>") && html.contains("≥ <code>0</code>"));
}

#[test]
fn nullable_is_read_in_every_dialect() {
    for (version, schema) in [
        ("3.0.3", json!({ "type": "string", "nullable": true })),
        ("3.1.0", json!({ "type": ["string", "null"] })),
        (
            "3.1.0",
            json!({ "anyOf": [ { "type": "string" }, { "type": "null" } ] }),
        ),
    ] {
        let doc = json!({
            "openapi": version, "info": { "title": "N", "version": "1" },
            "paths": { "/x": { "get": { "responses": { "200": { "description": "ok", "content": { "application/json": {
                "schema": { "type": "object", "properties": { "v": schema } } } } } } } } }
        });
        let html = render(&doc, "operation/operation-get-x");
        assert!(html.contains("<code class=\"pn\">v</code> <span class=\"pt\">string</span> <span class=\"b\">nullable</span>"), "{version}: {html}");
    }
    let swagger = json!({
        "swagger": "2.0", "info": { "title": "N", "version": "1" },
        "paths": { "/x": { "post": {
            "parameters": [ { "name": "body", "in": "body", "schema": { "type": "object", "properties": { "v": { "type": "string", "x-nullable": true } } } } ],
            "responses": { "200": { "description": "ok" } } } } }
    });
    let html = render(&swagger, "operation/operation-post-x");
    assert!(
        html.contains("id=\"request-body\""),
        "Swagger body parameter is a request body"
    );
    assert!(html.contains("<code class=\"pn\">v</code> <span class=\"pt\">string</span> <span class=\"b\">nullable</span>"), "{html}");
}

#[test]
fn a_schema_page_lists_the_operations_that_use_it_directly_or_through_other_schemas() {
    let html = render(&petstore(), "schema/Base");
    assert!(html.contains("1 operation uses this schema"), "{html}");
    assert!(html.contains("href=\"/doc/pets/operation/operation-put-pets-petid\""));
    let html = render(&petstore(), "schema/Circle");
    assert!(
        html.contains("href=\"/doc/pets/operation/operation-get-pets-petid-"),
        "{html}"
    );
}

#[test]
fn a_pathological_schema_gives_a_bounded_page_with_links_to_schema_pages() {
    // 3,000 properties, each an object of 50 properties: far more than a page shows.
    let mut props = serde_json::Map::new();
    for i in 0..3000 {
        props.insert(
            format!("p{i}"),
            json!({ "$ref": "#/components/schemas/Wide" }),
        );
    }
    let mut wide = serde_json::Map::new();
    for i in 0..50 {
        wide.insert(format!("w{i}"), json!({ "type": "object", "properties": { "deep": { "$ref": "#/components/schemas/Deep" } } }));
    }
    let doc = json!({
        "openapi": "3.0.3", "info": { "title": "Big", "version": "1" },
        "paths": { "/big": { "get": { "responses": { "200": { "description": "ok", "content": { "application/json": {
            "schema": { "$ref": "#/components/schemas/Huge" } } } } } } } },
        "components": { "schemas": {
            "Huge": { "type": "object", "properties": props },
            "Wide": { "type": "object", "properties": wide },
            "Deep": { "type": "object", "properties": { "next": { "$ref": "#/components/schemas/Deep" }, "v": { "type": "string" } } }
        } }
    });
    let t = std::time::Instant::now();
    let html = render(&doc, "operation/operation-get-big");
    assert!(html.len() < 1_500_000, "{} bytes", html.len());
    assert!(
        html.contains("Shown above on this page: see <a href=\"/doc/pets/schema/Wide\">Wide</a>")
    );
    assert!(t.elapsed().as_secs() < 5);
    let schema = render(&doc, "schema/Huge");
    assert!(schema.len() < 1_500_000, "{} bytes", schema.len());
}

#[test]
fn tags_nest_by_parent_and_documents_without_tags_group_by_path() {
    let doc = json!({
        "openapi": "3.2.0", "info": { "title": "T", "version": "1" },
        "tags": [ { "name": "animals" }, { "name": "cats", "parent": "animals" } ],
        "paths": {
            "/cats": { "get": { "tags": ["cats"], "responses": { "200": { "description": "ok" } } } },
            "/other": { "get": { "responses": { "200": { "description": "ok" } } } }
        }
    });
    let html = render(&doc, "tag/animals");
    assert!(
        html.contains("<h2>Sections</h2>") && html.contains("href=\"/doc/pets/tag/cats\""),
        "{html}"
    );
    let html = render(&doc, "tag/cats");
    assert!(html.contains("Part of <a href=\"/doc/pets/tag/animals\">animals</a>"));
    let home = render(&doc, "");
    assert!(
        home.contains("Other operations"),
        "untagged operations have their own group"
    );
    let untagged = json!({
        "openapi": "3.0.3", "info": { "title": "T", "version": "1" },
        "paths": {
            "/cats": { "get": { "responses": { "200": { "description": "ok" } } } },
            "/cats/{id}": { "get": { "responses": { "200": { "description": "ok" } } } },
            "/dogs": { "get": { "responses": { "200": { "description": "ok" } } } }
        }
    });
    let html = render(&untagged, "tag/cats");
    assert!(html.contains("<h1>/cats</h1>"), "{html}");
    assert_eq!(html.matches("<li><span class=\"m get\">").count(), 2);
}

#[test]
fn topics_webhooks_and_callbacks_have_pages() {
    let doc = json!({
        "openapi": "3.1.0", "info": { "title": "T", "version": "1" },
        "x-topics": [ { "title": "Getting started", "content": "# Hello\n\nRead *this*." } ],
        "paths": { "/subscribe": { "post": {
            "callbacks": { "onEvent": { "{$request.body#/url}": { "post": { "summary": "Event", "responses": { "200": { "description": "ok" } } } } } },
            "responses": { "200": { "description": "ok" } } } } },
        "webhooks": { "newPet": { "post": { "summary": "New pet", "responses": { "200": { "description": "ok" } } } } }
    });
    let topic = render(&doc, "topic/getting-started");
    assert!(
        topic.contains("<h2>Hello</h2>") && topic.contains("<em>this</em>"),
        "{topic}"
    );
    let hook = render(&doc, "webhook/webhook-post-newpet");
    assert!(hook.contains("Webhook <code>newPet</code>"), "{hook}");
    let cb = render(&doc, "callback/operation-post-subscribe/onevent");
    assert!(
        cb.contains("Callback <code>onEvent</code>") && cb.contains("{$request.body#/url}"),
        "{cb}"
    );
    let home = render(&doc, "");
    assert!(
        home.contains("href=\"/doc/pets/topic/getting-started\"")
            && home.contains("href=\"/doc/pets/webhook/webhook-post-newpet\"")
    );
}

#[test]
fn the_shell_has_the_branch_switcher_changelog_link_landmarks_and_the_external_assets() {
    let html = render(&petstore(), "");
    assert!(html.contains("<a class=\"skip\" href=\"#main\">Skip to content</a>"));
    assert!(
        html.contains("<nav aria-label=\"Branches\">")
            && html.contains("href=\"/doc/pets/branches/next\"")
    );
    assert!(html.contains("<a href=\"/doc/pets/changes\">Changelog</a>"));
    assert!(
        html.contains("<main id=\"main\"")
            && html.contains("<nav id=\"nav\" class=\"side\" aria-label=\"API reference\">")
    );
    assert!(
        !html.contains("<style")
            && !html.contains(" style=")
            && html.matches("<script").count() == 1
    );
    assert!(html.contains(" aria-current=\"page\">Overview</a>"));
}

#[test]
fn other_pages_reuse_the_shell_with_or_without_the_api_navigation() {
    let doc = parse(&petstore().to_string());
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let ctx = fx.ctx(BRANCHES, LINKS, "Pets <docs>");
    let body = specpress_render::Html::trusted(format!(
        "<h1>Changelog</h1>{}",
        specpress_render::markdown("A **breaking** change <script>x()</script>", 2)
    ));
    let sidebar = site.sidebar(common::BASE, None);
    for nav in [None, Some(&sidebar)] {
        let html = specpress_render::layout(
            &ctx,
            &specpress_render::Layout {
                title: "Changelog",
                description: Some("What changed"),
                body: &body,
                sidebar: nav,
            },
        );
        assert!(
            html.contains("<title>Changelog · Pets &#60;docs&#62;</title>"),
            "{html}"
        );
        assert!(html.contains("<strong>breaking</strong>") && !html.contains("<script>x()"));
        assert!(html.contains("<meta name=\"description\" content=\"What changed\">"));
        assert_eq!(html.contains("aria-label=\"API reference\""), nav.is_some());
        assert_eq!(html.contains("<div class=\"wrap full\">"), nav.is_none());
    }
}

#[test]
fn every_page_links_its_mcp_server_and_the_home_page_shows_a_client_configuration() {
    let doc = parse(&serde_json::to_string(&petstore()).expect("json"));
    let site = Site::build(&doc);
    let fx = Fixture::new();
    let mut ctx = fx.ctx(BRANCHES, LINKS, "Test");
    let url = "https://docs.example.com/doc/pets/mcp";
    ctx.mcp = Some(McpServer {
        href: "/doc/pets/mcp",
        url: Some(url),
        name: "pets",
        scope: McpScope::Documentation,
        token: false,
    });
    let config = "{\n  &quot;mcpServers&quot;: {\n    &quot;pets&quot;: {\n      &quot;url&quot;: &quot;https://docs.example.com/doc/pets/mcp&quot;\n    }\n  }\n}";
    for p in site.pages() {
        let html = site.render(&doc, &p.page, &ctx).html;
        assert!(
            html.contains("For AI agents: <a href=\"/doc/pets/mcp\">MCP server</a>"),
            "{}: {html}",
            p.path
        );
        if p.kind == PageKind::Home {
            assert!(html.contains("<h2 id=\"ai-agent\">Use with an AI agent</h2>"));
            assert!(
                html.contains(&format!(
                    "<pre class=\"code\" data-lang=\"json\"><code>{config}</code></pre>"
                )),
                "{html}"
            );
            assert!(!html.contains("Authorization"), "{html}");
        }
    }
    // A private documentation: a placeholder header, never a token.
    ctx.mcp = ctx.mcp.map(|m| McpServer { token: true, ..m });
    let home = site.render(&doc, &site.pages().next().expect("home").page, &ctx);
    assert!(
        home.html
            .contains("&quot;Authorization&quot;: &quot;Bearer &lt;your token&gt;&quot;"),
        "{}",
        home.html
    );
    // Other pages (an operation, a schema) link the server but show no configuration; without an absolute URL the
    // home page shows none either; a page about no server (a preview) links none.
    ctx.mcp = ctx.mcp.map(|m| McpServer { url: None, ..m });
    for p in site.pages() {
        let html = site.render(&doc, &p.page, &ctx).html;
        assert!(html.contains("href=\"/doc/pets/mcp\""), "{}", p.path);
        assert!(!html.contains("mcpServers"), "{}", p.path);
        assert!(!html.contains("#ai-agent"), "{}", p.path);
    }
    ctx.mcp = None;
    let html = site
        .render(&doc, &site.pages().next().expect("home").page, &ctx)
        .html;
    assert!(!html.contains("MCP"), "{html}");
}
