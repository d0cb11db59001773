//! `specpress serve`: one process serving every function's routes.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use specpress_api::engine::Engines;
use specpress_api::{AppState, Config};
use specpress_domain::ports::OrgStore as _;
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org};
use specpress_domain::{DomainError, Result};
use time::OffsetDateTime;

use specpress_api::pagination::MIN_CURSOR_KEY_BYTES;

use crate::backend::{Backend, BackendOptions, prepare_data_dir};

/// Options of `specpress serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Interface to bind (127.0.0.1 by default).
    pub host: IpAddr,
    /// Port (0 picks a free one).
    pub port: u16,
    /// Storage selection.
    pub backend: BackendOptions,
    /// Base of public URLs; defaults to `http://HOST:PORT`.
    pub public_url: Option<String>,
    /// `SPECPRESS_ORG_TOKEN`: an operator-chosen organization token.
    pub org_token: Option<String>,
    /// Request body limit.
    pub max_body_bytes: usize,
    /// Largest API document.
    pub max_document_bytes: usize,
    /// Publish Specpress's own API reference as the documentation `specpress-api` ([`crate::self_doc`]).
    pub self_doc: bool,
    /// `--bootstrap`: on a DynamoDB table, establish the default organization and publish the reference as on the
    /// embedded store ([`StartWrites`]); without it nothing is written to a table at start.
    pub bootstrap: bool,
}

/// What a start may write before serving: on its embedded store (its own data directory), the default
/// organization (created on first start, its token replaced by `SPECPRESS_ORG_TOKEN`) and Specpress's own
/// reference, as always. On a DynamoDB table (`SPECPRESS_TABLE`: one that a deployed stack or someone else may
/// use) nothing, unless the operator asks with `--bootstrap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartWrites {
    /// Establish the default organization, and publish the reference when publishing is on.
    Bootstrap,
    /// Write nothing: the table is used as it is.
    Nothing,
}

impl StartWrites {
    /// The writes of a start on the embedded store (`embedded`) or a table, with or without `--bootstrap`.
    pub fn of(embedded: bool, bootstrap: bool) -> StartWrites {
        if embedded || bootstrap {
            StartWrites::Bootstrap
        } else {
            StartWrites::Nothing
        }
    }
}

/// File in the data directory holding the pagination cursor key of `specpress serve`.
pub const CURSOR_KEY_FILE: &str = "cursor.key";

fn key_problem(file: &Path, problem: impl std::fmt::Display) -> DomainError {
    DomainError::unexpected(format!("cursor key file {}: {problem}", file.display()))
}

/// The cursor key kept in `data_dir`: read from [`CURSOR_KEY_FILE`], or generated on first start (32 random bytes as
/// 64 hex characters) and written there with mode 0600, created exclusively so two processes starting together end
/// up with the same key. The key is never logged or printed.
pub fn data_dir_cursor_key(data_dir: &Path) -> Result<Vec<u8>> {
    use std::io::Write as _;
    let file = data_dir.join(CURSOR_KEY_FILE);
    let key: [u8; 32] = rand::random();
    let text: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    match options.open(&file) {
        Ok(mut f) => {
            f.write_all(text.as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(|e| key_problem(&file, e))?;
            return Ok(text.into_bytes());
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(key_problem(&file, e)),
    }
    #[cfg(unix)]
    {
        // A key readable by others is made private again (it lets anyone who reads it forge cursors).
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file)
            .map_err(|e| key_problem(&file, e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| key_problem(&file, e))?;
        }
    }
    let stored = std::fs::read_to_string(&file).map_err(|e| key_problem(&file, e))?;
    let stored = stored.trim();
    if stored.len() < MIN_CURSOR_KEY_BYTES {
        return Err(key_problem(
            &file,
            format!(
                "holds {} bytes, fewer than the {} a key needs; delete it to generate a new one (cursors issued \
                 before then stop working)",
                stored.len(),
                MIN_CURSOR_KEY_BYTES
            ),
        ));
    }
    Ok(stored.as_bytes().to_vec())
}

/// Installs the pagination cursor key before anything is served: `SPECPRESS_CURSOR_KEY` when set (refused at start
/// when too short), else the key kept in the data directory, so cursors survive restarts.
fn install_cursor_key(configured: Option<&str>, data_dir: &Path) -> Result<()> {
    let key = match configured {
        Some(k) => k.as_bytes().to_vec(),
        None => data_dir_cursor_key(data_dir)?,
    };
    specpress_api::pagination::install_cursor_key(&key).map_err(|problem| {
        DomainError::unexpected(format!(
            "{}: {problem}",
            specpress_api::pagination::CURSOR_KEY_ENV
        ))
    })
}

/// Where public URLs point: the configured base, or (`SPECPRESS_TRUST_FORWARDED_HOST=true` without a public URL:
/// `serve` behind a proxy that sets the forwarding headers) each request's own, or the address listened on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrls {
    /// The HTTP routes' base ([`Config::public_url`]): empty when derived from each request.
    pub routes: String,
    /// What the banner shows and what has no request to derive from (webhook payloads, the published reference's
    /// `servers`): the configured base, else the address listened on.
    pub shown: String,
}

impl PublicUrls {
    /// The public URLs of a server listening on `listen` (`http://ADDR:PORT`), configured with `configured`.
    pub fn of(configured: Option<&str>, trust_forwarded_host: bool, listen: &str) -> PublicUrls {
        match configured.map(|u| u.trim_end_matches('/').to_owned()) {
            Some(base) if !base.is_empty() => PublicUrls {
                routes: base.clone(),
                shown: base,
            },
            _ if trust_forwarded_host => PublicUrls {
                routes: String::new(),
                shown: listen.to_owned(),
            },
            _ => PublicUrls {
                routes: listen.to_owned(),
                shown: listen.to_owned(),
            },
        }
    }
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn run(opts: ServeOptions) -> Result<()> {
    // The data directory also keeps the cursor and webhook keys when the data itself is in a DynamoDB table.
    // The configuration: the environment, then the options of the command line.
    let mut config = Config::local_from_env().map_err(DomainError::unexpected)?;
    config.table = opts.backend.table.clone();
    config.max_body_bytes = opts.max_body_bytes;
    config.max_document_bytes = opts.max_document_bytes;
    prepare_data_dir(&opts.backend.data_dir)?;
    install_cursor_key(config.cursor_key.as_deref(), &opts.backend.data_dir)?;
    let backend = Backend::connect(&opts.backend).await?;
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(opts.host, opts.port))
        .await
        .map_err(|e| {
            DomainError::unexpected(format!("cannot listen on {}:{}: {e}", opts.host, opts.port))
        })?;
    let addr = listener.local_addr().map_err(DomainError::unexpected)?;
    let urls = PublicUrls::of(
        opts.public_url.as_deref(),
        config.trust_forwarded_host,
        &format!("http://{addr}"),
    );
    let base = urls.shown.clone();
    // Webhook payloads have no request to take a host from: they name the shown base.
    config.public_url = urls.shown.clone();
    let writes = StartWrites::of(backend.is_embedded(), opts.bootstrap);
    let boot = match writes {
        StartWrites::Bootstrap => Some(
            bootstrap_default_org(
                backend.store.as_ref(),
                "Local",
                opts.org_token.as_deref(),
                OffsetDateTime::now_utc(),
            )
            .await?,
        ),
        StartWrites::Nothing => None,
    };
    Engines::warm_up().await?;
    // Webhooks: deploys publish to the (persistent) queue; consumers and the outbox sweeper run in-process.
    let hooks = crate::webhooks_local::LocalWebhooks::start_with(
        &config,
        &backend.store,
        &opts.backend.data_dir,
    )
    .await?;
    config.public_url = urls.routes.clone();
    let state = AppState::from_config(&config, hooks.store.clone())
        .with_publisher(hooks.service.publisher.clone());
    let app = crate::app_with_webhooks(state.clone(), hooks.service.clone());
    let self_doc = match &boot {
        Some(boot) if opts.self_doc => Some(
            crate::self_doc::publish(
                state.store.as_ref(),
                state.publisher.as_ref(),
                state.engine.as_ref(),
                org_of(boot),
                &base,
                OffsetDateTime::now_utc(),
            )
            .await,
        ),
        _ => None,
    };
    if let Some(table) = &opts.backend.table {
        let existing = match &boot {
            Some(_) => None,
            None => backend.store.get_default_org().await?,
        };
        let notice = TableNotice {
            table,
            boot: boot.as_ref(),
            self_doc: self_doc.as_ref(),
            self_doc_on: opts.self_doc,
            org_token_given: opts.org_token.is_some(),
            existing_default: existing,
        };
        for line in notice.lines() {
            eprintln!("specpress serve: {line}");
        }
    }
    let listen = format!("http://{addr}");
    print_banner(
        Banner {
            listen: &listen,
            urls: &urls,
            storage: &backend.description,
        },
        boot.as_ref(),
        self_doc,
    );
    tracing::info!(%addr, "listening");
    // Peer addresses feed the per-client rate limit of the diff routes.
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await
    .map_err(DomainError::unexpected)?;
    hooks.stop().await;
    backend.close().await;
    Ok(())
}

/// What a start on a DynamoDB table says on stderr: what it wrote to the table and what it did not.
pub struct TableNotice<'a> {
    /// The table.
    pub table: &'a str,
    /// The default organization, when the start established it (`--bootstrap`).
    pub boot: Option<&'a Bootstrap>,
    /// What publishing the reference did, when it was tried.
    pub self_doc: Option<&'a Result<crate::self_doc::SelfDoc>>,
    /// Publishing the reference is on (`--no-self-doc` and `SPECPRESS_SELF_DOC=false` turn it off).
    pub self_doc_on: bool,
    /// `SPECPRESS_ORG_TOKEN` was set.
    pub org_token_given: bool,
    /// Without `--bootstrap`: the table's default organization, if it has one (read, never written).
    pub existing_default: Option<specpress_domain::model::OrgId>,
}

impl TableNotice<'_> {
    /// The notice, one sentence a line.
    pub fn lines(&self) -> Vec<String> {
        use crate::self_doc::SelfDoc;
        let t = self.table;
        let Some(boot) = self.boot else {
            let mut lines = vec![format!(
                "DynamoDB table {t} used as it is: nothing was written to it at start (no organization created, no \
                 token changed, nothing published)."
            )];
            lines.push(match self.existing_default {
                Some(org) => format!(
                    "The table's default organization is {org}; its tokens, and those of every organization in the \
                     table, work as they are."
                ),
                None => "The table has no default organization; the tokens of its organizations (specpress admin \
                         mint-org-token creates one) work as they are."
                    .to_owned(),
            });
            if self.org_token_given {
                lines.push("SPECPRESS_ORG_TOKEN was not applied.".to_owned());
            }
            if self.self_doc_on {
                lines.push(
                    "Specpress's own API reference was not published (it is served at /api/v1/openapi.json)."
                        .to_owned(),
                );
            }
            lines.push(
                "Start with --bootstrap to create a default organization when the table has none (or give it \
                 SPECPRESS_ORG_TOKEN) and to publish the reference."
                    .to_owned(),
            );
            return lines;
        };
        let mut lines = vec![match boot {
            Bootstrap::Minted(org, _) | Bootstrap::CreatedWithGiven(org) => format!(
                "--bootstrap: created the default organization {} in DynamoDB table {t}.",
                org.id
            ),
            Bootstrap::Rotated(id) => format!(
                "--bootstrap: replaced the token of the default organization {id} of DynamoDB table {t} by \
                 SPECPRESS_ORG_TOKEN (the previous one no longer works)."
            ),
            Bootstrap::Unchanged(id) | Bootstrap::Existing(id) => format!(
                "--bootstrap: DynamoDB table {t} already has the default organization {id}; it was left as it is."
            ),
        }];
        lines.push(match self.self_doc {
            None => "Specpress's own API reference was not published (publishing is off).".to_owned(),
            Some(Ok(SelfDoc::Published)) => format!(
                "--bootstrap: published a version of Specpress's own API reference as the documentation `{}`.",
                specpress_openapi::SLUG
            ),
            Some(Ok(SelfDoc::Unchanged)) => format!(
                "Specpress's own API reference `{}` is already published as it is; nothing was published.",
                specpress_openapi::SLUG
            ),
            Some(Ok(SelfDoc::SlugTaken)) => format!(
                "Specpress's own API reference was not published: the slug `{}` belongs to another documentation.",
                specpress_openapi::SLUG
            ),
            Some(Err(e)) => format!("Specpress's own API reference could not be published ({e})."),
        });
        lines
    }
}

/// The default organization, however it was established.
fn org_of(boot: &Bootstrap) -> specpress_domain::model::OrgId {
    match boot {
        Bootstrap::Minted(org, _) | Bootstrap::CreatedWithGiven(org) => org.id,
        Bootstrap::Unchanged(id) | Bootstrap::Rotated(id) | Bootstrap::Existing(id) => *id,
    }
}

/// Where the server is: the address it listens on, its public URLs and its storage.
struct Banner<'a> {
    listen: &'a str,
    urls: &'a PublicUrls,
    storage: &'a str,
}

/// The start-up banner on stdout; its last line is always `Listening on http://ADDR:PORT` (the address itself,
/// whatever the public URLs are: scripts and the test harness wait for it).
fn print_banner(
    banner: Banner<'_>,
    boot: Option<&Bootstrap>,
    self_doc: Option<Result<crate::self_doc::SelfDoc>>,
) {
    let Banner {
        listen,
        urls,
        storage,
    } = banner;
    let base = urls.shown.as_str();
    println!("Specpress is listening on {listen} ({storage})");
    if urls.routes.is_empty() {
        println!(
            "Public URLs name each request's X-Forwarded-Host and X-Forwarded-Proto \
             (SPECPRESS_TRUST_FORWARDED_HOST=true), else its Host."
        );
    } else if base != listen {
        println!("Public URLs: {base}");
    }
    let Some(boot) = boot else {
        println!("Organization: none created or changed (the table is used as it is).");
        println!("Listening on {listen}");
        return;
    };
    match boot {
        Bootstrap::Minted(_, token) => {
            let t = &token.secret;
            println!();
            println!("Organization token (shown ONCE; only its SHA-256 is stored):");
            println!("  {t}");
            println!();
            println!("Publish a document with the official bump-cli, unchanged:");
            println!(
                "  # create a hub once (bump-cli accepts --auto-create only together with --hub)"
            );
            println!(
                "  curl -s -X POST {base}/api/v1/hubs -H 'Authorization: Token {t}' -H 'Content-Type: application/json' -d '{{\"name\":\"My hub\",\"slug\":\"my-hub\"}}'"
            );
            println!(
                "  BUMP_HOST={base} npx bump-cli deploy openapi.yaml --doc my-api --hub my-hub --auto-create --token {t}"
            );
            println!("  # or create the documentation first, then deploy to it");
            println!(
                "  curl -s -X POST {base}/api/v1/docs -H 'Authorization: Token {t}' -H 'Content-Type: application/json' -d '{{\"name\":\"My API\",\"slug\":\"my-api\"}}'"
            );
            println!(
                "  BUMP_HOST={base} npx bump-cli deploy openapi.yaml --doc my-api --token {t}"
            );
            println!(
                "  BUMP_HOST={base} npx bump-cli deploy openapi.yaml --doc my-api --token {t} --dry-run"
            );
            println!();
            println!(
                "Lost it? Stop the server and restart it with SPECPRESS_ORG_TOKEN=<a new secret> to replace it."
            );
        }
        Bootstrap::CreatedWithGiven(_) | Bootstrap::Unchanged(_) => {
            println!("Organization token: the one given in SPECPRESS_ORG_TOKEN.");
        }
        Bootstrap::Rotated(_) => {
            println!(
                "Organization token replaced by the one given in SPECPRESS_ORG_TOKEN (the previous one no longer works)."
            );
        }
        Bootstrap::Existing(_) => {
            println!(
                "Organization token: the one printed on first start (set SPECPRESS_ORG_TOKEN to replace it)."
            );
        }
    }
    print_self_doc(base, self_doc);
    println!("Listening on {listen}");
}

fn print_self_doc(base: &str, outcome: Option<Result<crate::self_doc::SelfDoc>>) {
    use crate::self_doc::SelfDoc;
    let slug = specpress_openapi::SLUG;
    match outcome {
        None => {}
        Some(Ok(SelfDoc::Published)) => {
            println!("Specpress's own API reference: {base}/doc/{slug} (this version published)")
        }
        Some(Ok(SelfDoc::Unchanged)) => {
            println!("Specpress's own API reference: {base}/doc/{slug}")
        }
        Some(Ok(SelfDoc::SlugTaken)) => println!(
            "Specpress's own API reference is not published: a documentation with the slug `{slug}` that Specpress \
             did not create exists, and is left as it is. The reference is served at {base}/api/v1/openapi.json; \
             start with --no-self-doc to silence this."
        ),
        Some(Err(e)) => {
            tracing::error!(error = %e, "publishing Specpress's own API reference failed");
            println!(
                "Specpress's own API reference could not be published ({e}); it is served at \
                 {base}/api/v1/openapi.json."
            );
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::self_doc::SelfDoc;
    use specpress_domain::model::OrgId;

    #[test]
    fn only_the_embedded_store_or_an_explicit_bootstrap_writes_at_start() {
        assert_eq!(StartWrites::of(true, false), StartWrites::Bootstrap);
        assert_eq!(StartWrites::of(true, true), StartWrites::Bootstrap);
        assert_eq!(StartWrites::of(false, true), StartWrites::Bootstrap);
        assert_eq!(StartWrites::of(false, false), StartWrites::Nothing);
    }

    #[test]
    fn public_urls_follow_requests_only_when_forwarding_headers_are_trusted_and_none_is_configured()
    {
        let listen = "http://127.0.0.1:3000";
        assert_eq!(
            PublicUrls::of(None, false, listen),
            PublicUrls {
                routes: listen.into(),
                shown: listen.into()
            }
        );
        assert_eq!(
            PublicUrls::of(None, true, listen),
            PublicUrls {
                routes: String::new(),
                shown: listen.into()
            }
        );
        let configured = PublicUrls::of(Some("https://docs.example/"), true, listen);
        assert_eq!(configured.routes, "https://docs.example");
        assert_eq!(configured.shown, "https://docs.example");
    }

    #[test]
    fn a_start_on_a_table_without_bootstrap_says_it_wrote_nothing_and_what_was_left_undone() {
        let org = OrgId::new();
        let notice = TableNotice {
            table: "prod-table",
            boot: None,
            self_doc: None,
            self_doc_on: true,
            org_token_given: true,
            existing_default: Some(org),
        };
        let text = notice.lines().join("\n");
        assert!(
            text.contains("DynamoDB table prod-table used as it is"),
            "{text}"
        );
        assert!(text.contains("no organization created"), "{text}");
        assert!(text.contains(&org.to_string()), "{text}");
        assert!(
            text.contains("SPECPRESS_ORG_TOKEN was not applied"),
            "{text}"
        );
        assert!(text.contains("reference was not published"), "{text}");
        assert!(text.contains("--bootstrap"), "{text}");
        let quiet = TableNotice {
            org_token_given: false,
            self_doc_on: false,
            existing_default: None,
            ..notice
        };
        let text = quiet.lines().join("\n");
        assert!(
            !text.contains("SPECPRESS_ORG_TOKEN was not applied"),
            "{text}"
        );
        assert!(text.contains("has no default organization"), "{text}");
    }

    #[test]
    fn a_bootstrapped_start_on_a_table_says_what_it_created_and_published() {
        let org = specpress_domain::model::Organization {
            id: OrgId::new(),
            name: "Local".into(),
            created_at: OffsetDateTime::now_utc(),
        };
        let boot = Bootstrap::CreatedWithGiven(org.clone());
        let published: Result<SelfDoc> = Ok(SelfDoc::Published);
        let notice = TableNotice {
            table: "t",
            boot: Some(&boot),
            self_doc: Some(&published),
            self_doc_on: true,
            org_token_given: true,
            existing_default: None,
        };
        let text = notice.lines().join("\n");
        assert!(
            text.contains(&format!("created the default organization {}", org.id)),
            "{text}"
        );
        assert!(
            text.contains("published a version of Specpress's own API reference"),
            "{text}"
        );
        let kept = Bootstrap::Existing(org.id);
        let text = TableNotice {
            boot: Some(&kept),
            self_doc: None,
            ..notice
        }
        .lines()
        .join("\n");
        assert!(text.contains("was left as it is"), "{text}");
        assert!(
            text.contains("was not published (publishing is off)"),
            "{text}"
        );
    }
}
