//! `specpress serve`: one process serving every function's routes.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use specpress_api::engine::Engines;
use specpress_api::{AppState, Config};
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
    let base = opts
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    config.public_url = base.trim_end_matches('/').to_owned();

    let boot = bootstrap_default_org(
        backend.store.as_ref(),
        "Local",
        opts.org_token.as_deref(),
        OffsetDateTime::now_utc(),
    )
    .await?;
    Engines::warm_up().await?;
    // Webhooks: deploys publish to the (persistent) queue; consumers and the outbox sweeper run in-process.
    let hooks = crate::webhooks_local::LocalWebhooks::start_with(
        &config,
        &backend.store,
        &opts.backend.data_dir,
    )
    .await?;
    let state = AppState::from_config(&config, hooks.store.clone())
        .with_publisher(hooks.service.publisher.clone());
    let app = crate::app_with_webhooks(state.clone(), hooks.service.clone());
    let self_doc = if opts.self_doc {
        Some(
            crate::self_doc::publish(
                state.store.as_ref(),
                state.publisher.as_ref(),
                state.engine.as_ref(),
                org_of(&boot),
                &base,
                OffsetDateTime::now_utc(),
            )
            .await,
        )
    } else {
        None
    };

    print_banner(&base, &backend.description, &boot, self_doc);
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

/// The default organization, however it was established.
fn org_of(boot: &Bootstrap) -> specpress_domain::model::OrgId {
    match boot {
        Bootstrap::Minted(org, _) | Bootstrap::CreatedWithGiven(org) => org.id,
        Bootstrap::Unchanged(id) | Bootstrap::Rotated(id) | Bootstrap::Existing(id) => *id,
    }
}

fn print_banner(
    base: &str,
    storage: &str,
    boot: &Bootstrap,
    self_doc: Option<Result<crate::self_doc::SelfDoc>>,
) {
    println!("Specpress is listening on {base} ({storage})");
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
    println!("Listening on {base}");
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
