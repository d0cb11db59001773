//! `specpress serve`: one process serving every function's routes.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use std::sync::Arc;

use specpress_api::{AppState, Config};
use specpress_domain::ports::OrgStore as _;
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org};
use specpress_domain::{DomainError, Result};
use specpress_engines::Engines;
use specpress_local_server::backend::{Backend, BackendOptions};
use specpress_local_server::data_dir;
use specpress_local_server::self_doc::{SelfDoc, publish};
use specpress_local_server::webhooks::LocalWebhooks;
use time::OffsetDateTime;

/// Options of `specpress serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Interface to bind (127.0.0.1 by default).
    pub host: IpAddr,
    /// Port (0 picks a free one).
    pub port: u16,
    /// Storage selection (its table is the configuration's).
    pub backend: BackendOptions,
    /// The configuration: the environment and the command line (the public URL defaults to `http://HOST:PORT`).
    pub config: Config,
    /// `SPECPRESS_ORG_TOKEN`: an operator-chosen organization token.
    pub org_token: Option<String>,
    /// Publish Specpress's own API reference as the documentation `specpress-api` ([`specpress_local_server::self_doc`]).
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

/// Installs the pagination cursor key before anything is served: `SPECPRESS_CURSOR_KEY` when set (refused at start
/// when too short), else the key kept in the data directory, so cursors survive restarts.
fn install_cursor_key(configured: Option<&str>, data_dir: &Path) -> Result<()> {
    let key = data_dir::cursor_key(configured, data_dir)?;
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
    let mut config = opts.config.clone();
    data_dir::prepare(&opts.backend.data_dir)?;
    install_cursor_key(config.cursor_key.as_deref(), &opts.backend.data_dir)?;
    let backend = Backend::connect(&opts.backend).await?;
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(opts.host, opts.port))
        .await
        .map_err(|e| {
            DomainError::unexpected(format!("cannot listen on {}:{}: {e}", opts.host, opts.port))
        })?;
    let addr = listener.local_addr().map_err(DomainError::unexpected)?;
    let urls = PublicUrls::of(
        Some(config.public_url.as_str()),
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
    let hooks = LocalWebhooks::start_with(&config, &backend.store, &opts.backend.data_dir).await?;
    config.public_url = urls.routes.clone();
    let state = AppState::from_config(&config, hooks.store.clone())
        .with_publisher(hooks.service.publisher.clone())
        .with_mailer(hooks.mailer.clone());
    // Deploys, validations and previews admit documents of the configured size.
    let engine = Arc::new(Engines::with_max_document_bytes(config.max_document_bytes));
    let app = crate::app_with_webhooks(state.clone(), engine.clone(), hooks.service.clone());
    let self_doc = match &boot {
        Some(boot) if opts.self_doc => Some(
            publish(
                state.store.as_ref(),
                state.publisher.as_ref(),
                engine.as_ref(),
                org_of(boot),
                &base,
                OffsetDateTime::now_utc(),
            )
            .await,
        ),
        _ => None,
    };
    if let Some(table) = config.table() {
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
            mail: &hooks.mailer.describe(),
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
    pub self_doc: Option<&'a Result<SelfDoc>>,
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
        use SelfDoc;
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
    /// Where mail goes (`Mailer::describe`).
    mail: &'a str,
}

/// The start-up banner on stdout; its last line is always `Listening on http://ADDR:PORT` (the address itself,
/// whatever the public URLs are: scripts and the test harness wait for it).
fn print_banner(banner: Banner<'_>, boot: Option<&Bootstrap>, self_doc: Option<Result<SelfDoc>>) {
    let Banner {
        listen,
        urls,
        storage,
        mail,
    } = banner;
    let base = urls.shown.as_str();
    println!("Specpress is listening on {listen} ({storage})");
    println!("mail: {mail}");
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

fn print_self_doc(base: &str, outcome: Option<Result<SelfDoc>>) {
    use SelfDoc;
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
