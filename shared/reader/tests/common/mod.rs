//! What the reader tests share: a count of the storage requests the SDK sends.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// Records the DynamoDB operation of every request the SDK sends.
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<String>>>);

impl Requests {
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

impl Intercept for Requests {
    fn name(&self) -> &'static str {
        "requests"
    }

    fn read_before_transmit(
        &self,
        ctx: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = ctx
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or("")
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_owned();
        self.0.lock().expect("not poisoned").push(target);
        Ok(())
    }
}

/// An organization on the embedded engine whose storage requests are counted: the setup every reader test shares.
pub struct World {
    /// Keeps the engine running for the test.
    _engine: specpress_local::embedded::Embedded,
    pub requests: Requests,
    pub store: Arc<dyn specpress_domain::ports::Store>,
    /// The organization's own principal.
    pub p: specpress_domain::token::Principal,
    pub now: time::OffsetDateTime,
}

impl World {
    pub async fn start() -> World {
        use specpress_local::embedded::{Embedded, Storage, Transport};
        let engine = Embedded::start_with(Storage::Memory, Transport::InProcess)
            .await
            .expect("engine starts");
        let requests = Requests::default();
        let base = engine.in_process_client().await;
        let conf = base
            .config()
            .to_builder()
            .interceptor(requests.clone())
            .build();
        let client = aws_sdk_dynamodb::Client::from_conf(conf);
        specpress_store_dynamodb::schema::ensure_table(&client, "specpress")
            .await
            .expect("table");
        let store: Arc<dyn specpress_domain::ports::Store> = Arc::new(
            specpress_store_dynamodb::DynamoStore::new(client, "specpress"),
        );
        let now = time::OffsetDateTime::now_utc();
        let (org, _) = specpress_domain::usecases::manage::create_org(store.as_ref(), "Org", now)
            .await
            .expect("org");
        let p = specpress_domain::token::Principal {
            org_id: org.id,
            scope: specpress_domain::token::Scope::Org,
        };
        World {
            _engine: engine,
            requests,
            store,
            p,
            now,
        }
    }
}
