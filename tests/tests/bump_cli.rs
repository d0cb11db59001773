//! End-to-end: the real bump-cli (2.11) against `specpress serve`, unchanged, via `BUMP_HOST`.

use reqwest::blocking::Client;
use serde_json::{Value, json};
use std::path::Path;

use specpress_e2e::{CliRun, Server, bump, bump_cli, fixtures, temp_dir};

const ORG_TOKEN: &str = "e2e-organization-token-0123456789";

struct Ctx {
    server: Server,
    _dir: tempfile::TempDir,
    http: Client,
}

impl Ctx {
    fn start() -> Ctx {
        let dir = temp_dir();
        let server = Server::start(dir.path(), &[("SPECPRESS_ORG_TOKEN", ORG_TOKEN)]);
        Ctx {
            server,
            _dir: dir,
            http: Client::new(),
        }
    }
    fn url(&self, path: &str) -> String {
        format!("{}{}", self.server.base_url, path)
    }
    fn post(&self, path: &str, token: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(self.url(path))
            .header("Authorization", format!("Token {token}"))
            .json(&body)
            .send()
            .expect("request");
        let status = r.status().as_u16();
        (status, r.json().unwrap_or(Value::Null))
    }
    fn get(&self, path: &str, token: &str) -> (u16, Value) {
        let r = self
            .http
            .get(self.url(path))
            .header("Authorization", format!("Token {token}"))
            .send()
            .expect("request");
        let status = r.status().as_u16();
        (status, r.json().unwrap_or(Value::Null))
    }
    fn create_hub(&self, slug: &str) -> String {
        let (s, b) = self.post(
            "/api/v1/hubs",
            ORG_TOKEN,
            json!({"name": slug, "slug": slug}),
        );
        assert_eq!(s, 201, "{b}");
        b["token"].as_str().unwrap().to_owned()
    }
    fn create_doc(&self, slug: &str) -> String {
        let (s, b) = self.post(
            "/api/v1/docs",
            ORG_TOKEN,
            json!({"name": slug, "slug": slug}),
        );
        assert_eq!(s, 201, "{b}");
        b["token"].as_str().unwrap().to_owned()
    }
    /// Runs `bump <command> <file> <flags…> --doc <doc> --token <token>` against this server.
    fn bump_doc(
        &self,
        cli: &Path,
        command: &str,
        file: &str,
        doc: &str,
        token: &str,
        flags: &[&str],
    ) -> CliRun {
        let mut args = vec![command, file];
        args.extend_from_slice(flags);
        args.extend(["--doc", doc, "--token", token]);
        bump(cli, &self.server.base_url, &args)
    }
    fn doc_slugs(&self, hub: &str) -> Vec<(String, String)> {
        let (s, b) = self.get(&format!("/api/v1/docs?hub={hub}"), ORG_TOKEN);
        assert_eq!(s, 200, "{b}");
        b.as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["slug"].as_str().unwrap().into(),
                    d["name"].as_str().unwrap().into(),
                )
            })
            .collect()
    }
}

fn public_url_in(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1"))
        .map(|w| w.trim_end_matches(['.', ',']).to_owned())
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn deploy_publishes_the_file_and_a_redeploy_reports_has_not_changed() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let doc_token = ctx.create_doc("petstore");
    let first = ctx.bump_doc(&cli, "deploy", "petstore.yaml", "petstore", &doc_token, &[]);
    assert_eq!(first.code, 0, "{first:?}");
    let url =
        public_url_in(&first.all()).unwrap_or_else(|| panic!("no public URL printed: {first:?}"));
    // The public URL is the rendered documentation; with `.yaml` it is the file as deployed.
    let page = ctx.http.get(&url).send().unwrap().text().unwrap();
    assert!(
        page.contains("<main") && page.contains("Petstore"),
        "{page}"
    );
    let served = ctx
        .http
        .get(format!("{url}.yaml"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert_eq!(
        served,
        std::fs::read_to_string(fixtures().join("petstore.yaml")).unwrap(),
        "the public URL with .yaml serves the file"
    );

    let again = ctx.bump_doc(&cli, "deploy", "petstore.yaml", "petstore", &doc_token, &[]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.all().contains("has not changed"), "{again:?}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn dry_run_exits_0_for_a_valid_document_and_122_with_the_errors_for_an_invalid_one() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let token = ctx.create_doc("petstore");
    let ok = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore.yaml",
        "petstore",
        &token,
        &["--dry-run"],
    );
    assert_eq!(ok.code, 0, "{ok:?}");
    let bad = ctx.bump_doc(
        &cli,
        "deploy",
        "invalid.yaml",
        "petstore",
        &token,
        &["--dry-run"],
    );
    assert_eq!(bad.code, 122, "{bad:?}");
    let text = bad.all();
    assert!(
        text.contains("raw_definition"),
        "the CLI shows our error attribute: {text}"
    );
    assert!(text.contains("line"), "errors are located: {text}");
    // Nothing was deployed by the dry runs.
    let real = ctx.bump_doc(&cli, "deploy", "petstore.yaml", "petstore", &token, &[]);
    assert!(!real.all().contains("has not changed"), "{real:?}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn deploy_to_a_branch_keeps_it_separate_from_the_default_branch() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let t = ctx.create_doc("petstore");
    let run =
        |file: &str, flags: &[&str]| ctx.bump_doc(&cli, "deploy", file, "petstore", &t, flags);
    assert_eq!(run("petstore.yaml", &[]).code, 0);
    let staged = run("petstore-v2.yaml", &["--branch", "staging"]);
    assert_eq!(staged.code, 0, "{staged:?}");
    assert!(!staged.all().contains("has not changed"));
    assert!(
        run("petstore-v2.yaml", &["--branch", "staging"])
            .all()
            .contains("has not changed")
    );
    let main = run("petstore-v2.yaml", &[]);
    assert!(
        !main.all().contains("has not changed"),
        "main still had v1: {main:?}"
    );
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn a_first_deploy_to_a_branch_makes_it_the_default_so_the_printed_url_shows_it() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    ctx.create_hub("team");
    // GIVEN a documentation whose first deploy goes to a branch (auto-created, or created empty beforehand)
    let auto = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore.yaml",
        "branch-first",
        ORG_TOKEN,
        &["--hub", "team", "--auto-create", "--branch", "feature-x"],
    );
    assert_eq!(auto.code, 0, "{auto:?}");
    ctx.create_doc("created-first");
    let created = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore.yaml",
        "created-first",
        ORG_TOKEN,
        &["--branch", "feature-x"],
    );
    assert_eq!(created.code, 0, "{created:?}");
    for (run, slug) in [(&auto, "branch-first"), (&created, "created-first")] {
        // THEN the URL bump-cli prints answers 200 with the release, and the branch is the default
        let url = printed_url(run);
        assert_eq!(url, format!("{}/doc/{slug}", ctx.server.base_url));
        let page = ctx.http.get(&url).send().unwrap();
        assert_eq!(page.status().as_u16(), 200, "{url}");
        let html = page.text().unwrap();
        assert!(
            html.contains("<main") && html.contains("Petstore"),
            "{html}"
        );
        let (status, doc) = ctx.get(&format!("/api/v1/docs/{slug}"), ORG_TOKEN);
        assert_eq!(
            (status, &doc["default_branch"]),
            (200, &json!("feature-x")),
            "{doc}"
        );
    }
    // AND a later deploy to another branch leaves the default where it is
    let other = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore-v2.yaml",
        "created-first",
        ORG_TOKEN,
        &["--branch", "other"],
    );
    assert_eq!(other.code, 0, "{other:?}");
    let (_, doc) = ctx.get("/api/v1/docs/created-first", ORG_TOKEN);
    assert_eq!(doc["default_branch"], json!("feature-x"), "{doc}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn auto_create_with_hub_and_doc_name_creates_the_documentation() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let hub_token = ctx.create_hub("platform");
    let r = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore.yaml",
        "new-api",
        ORG_TOKEN,
        &[
            "--doc-name",
            "New API",
            "--hub",
            "platform",
            "--auto-create",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    // A hub token may auto-create inside its hub too.
    let r2 = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore.yaml",
        "by-hub",
        &hub_token,
        &["--hub", "platform", "--auto-create"],
    );
    assert_eq!(r2.code, 0, "{r2:?}");
    // The public URL bump-cli prints names the documentation by slug, and leads to it.
    let printed = format!("{}/doc/by-hub", ctx.server.base_url);
    assert!(
        r2.stdout.contains(&printed) || r2.stderr.contains(&printed),
        "{r2:?}"
    );
    // Without --doc-name, the documentation is named after the document's info.title.
    assert_eq!(
        ctx.doc_slugs("platform"),
        vec![
            ("by-hub".to_owned(), "Petstore".to_owned()),
            ("new-api".to_owned(), "New API".to_owned())
        ]
    );
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn deploy_of_a_directory_auto_creates_one_documentation_per_file_in_the_hub() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    ctx.create_hub("shop");
    let r = bump(
        &cli,
        &ctx.server.base_url,
        &[
            "deploy",
            "dir",
            "--hub",
            "shop",
            "--auto-create",
            "--token",
            ORG_TOKEN,
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let slugs: Vec<String> = ctx.doc_slugs("shop").into_iter().map(|(s, _)| s).collect();
    assert_eq!(slugs, ["orders", "users"], "{r:?}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn a_multi_file_document_with_external_refs_deploys_and_validates() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let t = ctx.create_doc("multi");
    let dry = ctx.bump_doc(
        &cli,
        "deploy",
        "multi/openapi.yaml",
        "multi",
        &t,
        &["--dry-run"],
    );
    assert_eq!(dry.code, 0, "{dry:?}");
    let r = ctx.bump_doc(&cli, "deploy", "multi/openapi.yaml", "multi", &t, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let again = ctx.bump_doc(&cli, "deploy", "multi/openapi.yaml", "multi", &t, &[]);
    assert!(again.all().contains("has not changed"), "{again:?}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn diff_against_the_deployed_documentation_reports_the_changes() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let t = ctx.create_doc("petstore");
    assert_eq!(
        ctx.bump_doc(&cli, "deploy", "petstore.yaml", "petstore", &t, &[])
            .code,
        0
    );
    let d = ctx.bump_doc(&cli, "diff", "petstore-v2.yaml", "petstore", &t, &[]);
    let text = d.all();
    assert!(
        text.contains("/pets/{id}"),
        "the removed endpoint is reported: {d:?}"
    );
    let same = ctx.bump_doc(&cli, "diff", "petstore.yaml", "petstore", &t, &[]);
    assert_eq!(same.code, 0, "{same:?}");
    assert!(!same.all().contains("/pets/{id}"), "{same:?}");
    // diff versions are temporary: the head did not move.
    let redeploy = ctx.bump_doc(&cli, "deploy", "petstore.yaml", "petstore", &t, &[]);
    assert!(redeploy.all().contains("has not changed"), "{redeploy:?}");
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn preview_prints_a_public_url_that_renders_the_definition() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    let r = bump(&cli, &ctx.server.base_url, &["preview", "petstore.yaml"]);
    assert_eq!(r.code, 0, "{r:?}");
    let url = public_url_in(&r.all()).unwrap_or_else(|| panic!("no preview URL: {r:?}"));
    assert!(url.contains("/preview/"), "{url}");
    let served = ctx.http.get(&url).send().unwrap();
    assert_eq!(served.status().as_u16(), 200);
    let page = served.text().unwrap();
    assert!(
        page.contains("<main") && page.contains("Petstore"),
        "{page}"
    );
    let source = ctx.http.get(format!("{url}.yaml")).send().unwrap();
    assert_eq!(source.status().as_u16(), 200);
    assert!(source.text().unwrap().contains("title: Petstore"));
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn first_start_prints_a_working_token_once_and_data_survives_a_restart() {
    let cli = bump_cli();
    let dir = temp_dir();
    let first = Server::start(dir.path(), &[]);
    let token = first
        .minted_token()
        .unwrap_or_else(|| panic!("no token in banner: {:#?}", first.banner));
    assert!(token.starts_with("sp_org_"), "{token}");
    assert!(
        first
            .banner
            .iter()
            .any(|l| l.contains("npx bump-cli deploy") && l.contains(&token)),
        "{:#?}",
        first.banner
    );
    let http = Client::new();
    let r = http
        .post(format!("{}/api/v1/hubs", first.base_url))
        .header("Authorization", format!("Token {token}"))
        .json(&json!({"name": "Hub", "slug": "hub"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let d = bump(
        &cli,
        &first.base_url,
        &[
            "deploy",
            "petstore.yaml",
            "--doc",
            "kept",
            "--hub",
            "hub",
            "--auto-create",
            "--token",
            &token,
        ],
    );
    assert_eq!(d.code, 0, "{d:?}");
    first.stop();

    let second = Server::start(dir.path(), &[]);
    assert!(
        second.minted_token().is_none(),
        "the token is shown only once: {:#?}",
        second.banner
    );
    let again = bump(
        &cli,
        &second.base_url,
        &[
            "deploy",
            "petstore.yaml",
            "--doc",
            "kept",
            "--hub",
            "hub",
            "--token",
            &token,
        ],
    );
    assert!(
        again.all().contains("has not changed"),
        "data and token survived the restart: {again:?}"
    );
}

/// The URL bump-cli prints after a deploy.
fn printed_url(run: &CliRun) -> String {
    run.all()
        .split_whitespace()
        .find(|w| w.starts_with("http://") && w.contains("/doc/"))
        .map(|w| w.trim_end_matches(['.', ',']).to_owned())
        .unwrap_or_else(|| panic!("no documentation URL printed: {run:?}"))
}

#[test]
#[cfg_attr(missing_bump_cli, ignore = "needs bump-cli (scripts/install-tools.sh)")]
fn the_url_bump_cli_prints_shows_the_rendered_documentation_and_follows_a_promotion() {
    let cli = bump_cli();
    let ctx = Ctx::start();
    ctx.create_doc("pets");
    let r = ctx.bump_doc(&cli, "deploy", "petstore.yaml", "pets", ORG_TOKEN, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    let url = printed_url(&r);
    assert_eq!(url, format!("{}/doc/pets", ctx.server.base_url));
    let page = ctx.http.get(&url).send().unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().unwrap();
    assert!(
        html.contains("<main") && html.contains("1.0.0") && html.contains("/doc/pets/operation/"),
        "the rendered home page: {html}"
    );
    // A second version on a branch, then its promotion: the same URL shows it at once.
    let r = ctx.bump_doc(
        &cli,
        "deploy",
        "petstore-v2.yaml",
        "pets",
        ORG_TOKEN,
        &["--branch", "next"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        !ctx.http
            .get(&url)
            .send()
            .unwrap()
            .text()
            .unwrap()
            .contains("2.0.0")
    );
    let promoted = ctx
        .http
        .patch(ctx.url("/api/v1/docs/pets/branches/next/set_default"))
        .header("Authorization", format!("Token {ORG_TOKEN}"))
        .send()
        .unwrap();
    assert_eq!(promoted.status().as_u16(), 204);
    let html = ctx.http.get(&url).send().unwrap().text().unwrap();
    assert!(html.contains("2.0.0") && !html.contains("1.0.0"), "{html}");
}
