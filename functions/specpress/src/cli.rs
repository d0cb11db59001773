//! Command line: `specpress serve`, `specpress admin mint-org-token`, `specpress diff`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use specpress_domain::usecases::manage::create_org;
use time::OffsetDateTime;

use crate::backend::{Backend, BackendOptions, prepare_data_dir};
use crate::serve::{ServeOptions, run};

/// Specpress: publish API documents; compatible with the official bump-cli.
#[derive(Debug, Parser)]
#[command(name = "specpress", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve every route on one local process (embedded DynamoDB by default).
    Serve(ServeArgs),
    /// Operator commands against the configured storage.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Compare two API documents and classify every change.
    Diff(specpress_diff::cli::DiffCommand),
}

#[derive(Debug, Args)]
struct StorageArgs {
    /// Data directory of the embedded engine (ignored when SPECPRESS_TABLE is set).
    #[arg(long, default_value = ".specpress", env = "SPECPRESS_DATA_DIR")]
    data_dir: PathBuf,
    /// Use this DynamoDB table (real AWS, or moto via AWS_ENDPOINT_URL) instead of the embedded engine.
    #[arg(long, env = "SPECPRESS_TABLE")]
    table: Option<String>,
    /// Create the table with its indexes and TTL if it does not exist (moto, first local run).
    #[arg(long)]
    create_table: bool,
}

impl StorageArgs {
    fn options(&self) -> BackendOptions {
        BackendOptions {
            data_dir: self.data_dir.clone(),
            table: self.table.clone(),
            create_table: self.create_table,
        }
    }
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Port to listen on (0 picks a free port).
    #[arg(long, default_value_t = 3000, env = "SPECPRESS_PORT")]
    port: u16,
    /// Interface to listen on.
    #[arg(long, default_value = "127.0.0.1", env = "SPECPRESS_HOST")]
    host: IpAddr,
    /// Base of public URLs (default: http://HOST:PORT).
    #[arg(long, env = "SPECPRESS_PUBLIC_URL")]
    public_url: Option<String>,
    /// Request body limit in bytes (counted decompressed when a body is sent gzip-compressed).
    #[arg(long, default_value_t = specpress_api::DEFAULT_MAX_BODY_BYTES, env = "SPECPRESS_MAX_BODY_BYTES")]
    max_body_bytes: usize,
    /// Largest API document in bytes (the definition and each reference), checked before parsing.
    #[arg(long, default_value_t = specpress_api::DEFAULT_MAX_DOCUMENT_BYTES, env = "SPECPRESS_MAX_DOCUMENT_BYTES")]
    max_document_bytes: usize,
    /// Do not publish Specpress's own API reference as the documentation `specpress-api` (also
    /// SPECPRESS_SELF_DOC=false). It is still served at /api/v1/openapi.json.
    #[arg(long)]
    no_self_doc: bool,
    /// On a DynamoDB table (SPECPRESS_TABLE): create the default organization when the table has none (or give it
    /// SPECPRESS_ORG_TOKEN) and publish Specpress's own API reference, as every start on the embedded store does.
    /// Without it a start writes nothing to the table and says so on stderr.
    #[arg(long)]
    bootstrap: bool,
    #[command(flatten)]
    storage: StorageArgs,
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Create an organization and print its first token once (only the hash is stored). Run it with AWS credentials
    /// and SPECPRESS_TABLE set to bootstrap a deployed stack.
    MintOrgToken {
        /// Organization name.
        #[arg(long, default_value = "My organization")]
        name: String,
        #[command(flatten)]
        storage: StorageArgs,
    },
}

fn init_tracing() -> Result<(), String> {
    specpress_config::logging::init_tracing(specpress_config::Runtime::Local)
        .map_err(|e| e.to_string())
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

impl Cli {
    /// Runs the chosen command.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Diff(d) => d.run(),
            Command::Serve(a) => {
                if let Err(e) = init_tracing() {
                    eprintln!("specpress serve: {e}");
                    return ExitCode::FAILURE;
                }
                let self_doc = match crate::self_doc::enabled_from_env(
                    std::env::var(crate::self_doc::SELF_DOC_ENV).ok().as_deref(),
                ) {
                    Ok(on) => on && !a.no_self_doc,
                    Err(e) => {
                        eprintln!("specpress serve: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                let opts = ServeOptions {
                    host: a.host,
                    port: a.port,
                    backend: a.storage.options(),
                    public_url: a.public_url,
                    org_token: std::env::var("SPECPRESS_ORG_TOKEN")
                        .ok()
                        .filter(|t| !t.is_empty()),
                    max_body_bytes: a.max_body_bytes,
                    max_document_bytes: a.max_document_bytes,
                    self_doc,
                    bootstrap: a.bootstrap,
                };
                match runtime()
                    .map_err(|e| e.to_string())
                    .and_then(|rt| rt.block_on(run(opts)).map_err(describe))
                {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("specpress serve: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
            Command::Admin(AdminCommand::MintOrgToken { name, storage }) => {
                if let Err(e) = init_tracing() {
                    eprintln!("specpress admin mint-org-token: {e}");
                    return ExitCode::FAILURE;
                }
                let result = runtime().map_err(|e| e.to_string()).and_then(|rt| {
                    rt.block_on(async {
                        if storage.table.is_none() {
                            prepare_data_dir(&storage.data_dir).map_err(describe)?;
                        }
                        let backend = Backend::connect(&storage.options())
                            .await
                            .map_err(describe)?;
                        let r =
                            create_org(backend.store.as_ref(), &name, OffsetDateTime::now_utc())
                                .await;
                        backend.close().await;
                        r.map_err(describe)
                    })
                });
                match result {
                    Ok((org, token)) => {
                        println!("Organization {} ({}) created.", org.name, org.id);
                        println!("Organization token (shown ONCE; only its SHA-256 is stored):");
                        println!("{}", token.secret);
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("specpress admin mint-org-token: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
        }
    }
}

fn describe(e: specpress_domain::DomainError) -> String {
    use std::error::Error;
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}
