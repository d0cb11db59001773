//! Where data lives: the embedded engine in a data directory, or a real/moto DynamoDB table from the environment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use specpress_domain::Result;
use specpress_local::embedded::{Embedded, Storage};
use specpress_store_dynamodb::DynamoStore;

/// Table name used inside the embedded engine.
pub const EMBEDDED_TABLE: &str = "specpress";

/// A connected store, keeping the embedded engine (if any) alive.
pub struct Backend {
    /// The store.
    pub store: Arc<DynamoStore>,
    embedded: Option<Embedded>,
    /// Human description for the banner.
    pub description: String,
}

/// How to pick the backend.
#[derive(Debug, Clone)]
pub struct BackendOptions {
    /// Data directory of the embedded engine.
    pub data_dir: PathBuf,
    /// `SPECPRESS_TABLE`: when set, use DynamoDB from the standard AWS environment instead.
    pub table: Option<String>,
    /// Create the table (with GSIs and TTL) if missing; for moto and first local runs against AWS.
    pub create_table: bool,
}

impl Backend {
    /// Connects according to the options.
    pub async fn connect(opts: &BackendOptions) -> Result<Backend> {
        match &opts.table {
            Some(table) => {
                let conf = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
                let client = aws_sdk_dynamodb::Client::new(&conf);
                if opts.create_table {
                    specpress_store_dynamodb::schema::ensure_table(&client, table).await?;
                }
                let endpoint = std::env::var("AWS_ENDPOINT_URL").unwrap_or_else(|_| "AWS".into());
                Ok(Backend {
                    store: Arc::new(DynamoStore::new(client, table.clone())),
                    embedded: None,
                    description: format!("DynamoDB table {table} at {endpoint}"),
                })
            }
            None => {
                let file = db_file(&opts.data_dir);
                let embedded = Embedded::start(Storage::File(&file)).await?;
                let store = embedded.store(EMBEDDED_TABLE).await?;
                Ok(Backend {
                    store: Arc::new(store),
                    embedded: Some(embedded),
                    description: format!("embedded DynamoDB engine, data in {}", file.display()),
                })
            }
        }
    }

    /// The store is the embedded engine in the data directory (not a DynamoDB table named by `SPECPRESS_TABLE`).
    pub fn is_embedded(&self) -> bool {
        self.embedded.is_some()
    }

    /// Stops the embedded engine cleanly (flushes SQLite).
    pub async fn close(mut self) {
        if let Some(e) = self.embedded.take() {
            e.stop().await;
        }
    }
}

/// The SQLite file inside a data directory.
pub fn db_file(data_dir: &Path) -> PathBuf {
    data_dir.join("specpress.db")
}
