//! Command line: `specpress serve`, `specpress admin mint-org-token`, `specpress diff`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::NonEmptyStringValueParser;
use clap::{ArgAction, Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use specpress_config::settings::{strict, switch};
use specpress_config::{Config, Storage};
use specpress_domain::usecases::manage::create_org;
use specpress_local_server::backend::{Backend, BackendOptions};
use specpress_local_server::data_dir;
use time::OffsetDateTime;

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
    Serve(Box<ServeArgs>),
    /// Operator commands against the configured storage.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Compare two API documents and classify every change.
    Diff(specpress_diff::cli::DiffCommand),
}

/// Where the embedded engine keeps its data (and every start its keys).
#[derive(Debug, Args)]
struct DataDirArgs {
    /// Data directory of the embedded engine, and of the keys a start generates (the data itself is in the table
    /// when SPECPRESS_TABLE is set).
    #[arg(long, default_value = ".specpress", env = "SPECPRESS_DATA_DIR")]
    data_dir: PathBuf,
    /// Create the table with its indexes and TTL if it does not exist (moto, first local run).
    #[arg(long)]
    create_table: bool,
}

impl DataDirArgs {
    fn options(&self, storage: &Storage) -> BackendOptions {
        BackendOptions {
            data_dir: self.data_dir.clone(),
            table: storage.table.clone(),
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
    /// Publish Specpress's own API reference as the documentation `specpress-api` (`false` turns it off; it is
    /// still served at /api/v1/openapi.json).
    #[arg(
        long,
        env = "SPECPRESS_SELF_DOC",
        value_name = "true|false",
        action = ArgAction::Set,
        default_value = "true",
        value_parser = strict(switch, "`true` or `false`")
    )]
    self_doc: bool,
    /// Do not publish Specpress's own API reference (as --self-doc false).
    #[arg(long)]
    no_self_doc: bool,
    /// The default organization's token: given on a start that creates the organization, or replacing its token.
    #[arg(
        long,
        env = "SPECPRESS_ORG_TOKEN",
        hide_env_values = true,
        value_parser = NonEmptyStringValueParser::new()
    )]
    org_token: Option<String>,
    /// On a DynamoDB table (SPECPRESS_TABLE): create the default organization when the table has none (or give it
    /// SPECPRESS_ORG_TOKEN) and publish Specpress's own API reference, as every start on the embedded store does.
    /// Without it a start writes nothing to the table and says so on stderr.
    #[arg(long)]
    bootstrap: bool,
    #[command(flatten)]
    data: DataDirArgs,
    /// Every setting of the Lambda functions, as an option or its variable.
    #[command(flatten)]
    config: Config,
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
        data: DataDirArgs,
        #[command(flatten)]
        storage: Storage,
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
    /// The command line of this process, its settings' variables read as every Specpress process reads them
    /// ([`specpress_config::env_command`]); on a bad option or value, prints clap's error and exits.
    pub fn from_env_and_args() -> Cli {
        Cli::try_from_args(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    /// The command line `args` (the program name first), with the environment read as
    /// [`Cli::from_env_and_args`] reads it.
    pub fn try_from_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = specpress_config::env_command(Cli::command()).try_get_matches_from(args)?;
        Cli::from_arg_matches(&matches)
    }

    /// The options of `specpress serve`, when that is the command.
    pub fn serve_options(&self) -> Option<ServeOptions> {
        let Command::Serve(a) = &self.command else {
            return None;
        };
        Some(ServeOptions {
            host: a.host,
            port: a.port,
            backend: a.data.options(&a.config.storage),
            config: a.config.clone(),
            org_token: a.org_token.clone(),
            self_doc: a.self_doc && !a.no_self_doc,
            bootstrap: a.bootstrap,
        })
    }

    /// Runs the chosen command.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Diff(d) => d.run(),
            Command::Serve(_) => {
                if let Err(e) = init_tracing() {
                    eprintln!("specpress serve: {e}");
                    return ExitCode::FAILURE;
                }
                let Some(opts) = self.serve_options() else {
                    return ExitCode::FAILURE;
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
            Command::Admin(AdminCommand::MintOrgToken {
                name,
                data,
                storage,
            }) => {
                if let Err(e) = init_tracing() {
                    eprintln!("specpress admin mint-org-token: {e}");
                    return ExitCode::FAILURE;
                }
                let result = runtime().map_err(|e| e.to_string()).and_then(|rt| {
                    rt.block_on(async {
                        if storage.table.is_none() {
                            data_dir::prepare(&data.data_dir).map_err(describe)?;
                        }
                        let backend = Backend::connect(&data.options(&storage))
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
