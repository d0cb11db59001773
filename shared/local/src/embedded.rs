//! The embedded DynamoDB-compatible engine: dynoxide (SQLite-backed) in this process, reached through the same
//! `aws-sdk-dynamodb` code path as in AWS.
//!
//! By default the SDK's requests go to the engine through [`InProcessClient`](crate::in_process::InProcessClient),
//! a transport that hands each JSON request to dynoxide's `Database` directly (no TCP, no HTTP parsing). With
//! [`Transport::Http`] the engine is also served by dynoxide's own HTTP server on an ephemeral 127.0.0.1 port and
//! the stores send their requests over it (as every store did before the in-process transport; kept for tests that
//! compare the two and for tools that need an endpoint).

use std::path::Path;

use aws_smithy_runtime_api::client::stalled_stream_protection::StalledStreamProtectionConfig;
use specpress_domain::{DomainError, Result};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::in_process::InProcessClient;
use specpress_store_dynamodb::DynamoStore;

/// Endpoint the SDK is configured with in in-process mode. Never connected to (the transport answers every
/// request itself); the SDK's endpoint resolution needs a URL, and `.invalid` cannot resolve anywhere.
const IN_PROCESS_ENDPOINT: &str = "http://dynoxide.in-process.invalid";

/// How stores reach the engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transport {
    /// Requests handed to the engine in-process (the default).
    #[default]
    InProcess,
    /// dynoxide's HTTP server on 127.0.0.1, reached over TCP.
    Http,
}

/// A running embedded engine.
///
/// The SQLite database stays open while this value or any store created from it is alive (every store holds a
/// handle of the engine); each committed write is in SQLite's write-ahead log before the call returns, so a
/// process that is killed loses nothing that was acknowledged. Dropping it (or [`Embedded::stop`]) stops the HTTP
/// server in [`Transport::Http`] mode.
pub struct Embedded {
    db: dynoxide::Database,
    transport: Transport,
    endpoint: Option<String>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded")
            .field("transport", &self.transport)
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

/// Where the embedded engine keeps its data.
#[derive(Debug, Clone, Copy)]
pub enum Storage<'a> {
    /// In memory (tests).
    Memory,
    /// A SQLite file (created if missing), so data survives restarts.
    File(&'a Path),
}

fn open(storage: Storage<'_>) -> Result<dynoxide::Database> {
    match storage {
        Storage::Memory => dynoxide::Database::memory(),
        Storage::File(p) => {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(DomainError::unexpected)?;
            }
            let path = p
                .to_str()
                .ok_or_else(|| DomainError::unexpected("data path is not UTF-8"))?;
            dynoxide::Database::new(path)
        }
    }
    .map_err(|e| DomainError::unexpected(format!("cannot open the embedded database: {e}")))
}

impl Embedded {
    /// Opens the engine, reached in-process.
    pub async fn start(storage: Storage<'_>) -> Result<Self> {
        Self::start_with(storage, Transport::InProcess).await
    }

    /// Opens the engine, reached through `transport` (for [`Transport::Http`], serving it on an ephemeral
    /// 127.0.0.1 port).
    pub async fn start_with(storage: Storage<'_>, transport: Transport) -> Result<Self> {
        let db = open(storage)?;
        let mut embedded = Embedded {
            db: db.clone(),
            transport,
            endpoint: None,
            shutdown: None,
            task: None,
        };
        if transport == Transport::Http {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(DomainError::unexpected)?;
            let addr = listener.local_addr().map_err(DomainError::unexpected)?;
            let (tx, rx) = oneshot::channel::<()>();
            embedded.task = Some(tokio::spawn(async move {
                let stop = async move {
                    let _ = rx.await;
                };
                if let Err(e) = dynoxide::server::serve_with_shutdown(listener, db, stop).await {
                    tracing::error!(error = %e, "embedded database server stopped");
                }
            }));
            embedded.shutdown = Some(tx);
            embedded.endpoint = Some(format!("http://{addr}"));
        }
        Ok(embedded)
    }

    /// The HTTP endpoint (`http://127.0.0.1:PORT`) in [`Transport::Http`] mode; `None` in-process.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// How stores reach this engine.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// An SDK client for this engine, through its transport.
    pub async fn client(&self) -> aws_sdk_dynamodb::Client {
        match &self.endpoint {
            Some(endpoint) => specpress_store_dynamodb::client_for_endpoint(endpoint).await,
            None => self.in_process_client().await,
        }
    }

    /// An SDK client for this engine over the in-process transport, whatever the engine's own transport.
    pub async fn in_process_client(&self) -> aws_sdk_dynamodb::Client {
        // The request never leaves the process, so two things the SDK does for a network are pure overhead here:
        // SigV4 signing (a canonical request, an HMAC chain and a SHA-256 of the body per call; with no credentials
        // and `allow_no_auth`, the request goes unsigned) and the stalled-stream throughput checks on the bodies.
        let conf = specpress_store_dynamodb::local_config_loader(IN_PROCESS_ENDPOINT)
            .no_credentials()
            .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
            .http_client(InProcessClient::new(self.db.clone()))
            .load()
            .await;
        let conf = aws_sdk_dynamodb::config::Builder::from(&conf)
            .allow_no_auth()
            .build();
        aws_sdk_dynamodb::Client::from_conf(conf)
    }

    /// A store over a table on this engine, creating the table if needed.
    pub async fn store(&self, table: &str) -> Result<DynamoStore> {
        let client = self.client().await;
        specpress_store_dynamodb::schema::ensure_table(&client, table).await?;
        Ok(DynamoStore::new(client, table))
    }

    /// Stops the HTTP server (if any) and waits for it to finish. The database itself closes when the last store
    /// using it is dropped.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
