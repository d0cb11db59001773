//! The embedded DynamoDB-compatible engine: dynoxide (SQLite-backed) served in-process on 127.0.0.1, so the store
//! talks to it through the same `aws-sdk-dynamodb` code path as in AWS.

use std::path::Path;

use specpress_domain::{DomainError, Result};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::DynamoStore;

/// A running embedded engine. Dropping it stops the server.
pub struct Embedded {
    endpoint: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded")
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

impl Embedded {
    /// Starts the engine on an ephemeral 127.0.0.1 port.
    pub async fn start(storage: Storage<'_>) -> Result<Self> {
        let db = match storage {
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
        .map_err(|e| DomainError::unexpected(format!("cannot open the embedded database: {e}")))?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(DomainError::unexpected)?;
        let addr = listener.local_addr().map_err(DomainError::unexpected)?;
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let stop = async move {
                let _ = rx.await;
            };
            if let Err(e) = dynoxide::server::serve_with_shutdown(listener, db, stop).await {
                tracing::error!(error = %e, "embedded database server stopped");
            }
        });
        Ok(Embedded {
            endpoint: format!("http://{addr}"),
            shutdown: Some(tx),
            task: Some(task),
        })
    }

    /// The HTTP endpoint (`http://127.0.0.1:PORT`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A store over a table on this engine, creating the table if needed.
    pub async fn store(&self, table: &str) -> Result<DynamoStore> {
        let client = crate::client_for_endpoint(&self.endpoint).await;
        crate::schema::ensure_table(&client, table).await?;
        Ok(DynamoStore::new(client, table))
    }

    /// Stops the server and waits for it to finish (flushes SQLite).
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
