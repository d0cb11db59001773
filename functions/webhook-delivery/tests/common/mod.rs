//! Test harness: the embedded DynamoDB engine, the persistent local queue or moto's SQS, the real event path, and
//! a real subscriber (tests/webhook_receiver.py) that verifies every delivery with the official Standard Webhooks
//! library and checks X-Bump-Signature-256 on its own.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_api::engine::Engines;
use specpress_domain::engine::SpecEngine;
use specpress_domain::model::{Bundle, Documentation, Version};
use specpress_domain::token::Principal;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org, create_doc};
use specpress_domain::usecases::webhooks as uc;
use specpress_domain::webhooks::{MessageQueue, SecretSealer, Subscription};
use specpress_queue_sqs::sender::FetchSender;
use specpress_queue_sqs::{BatchOptions, run_consumer};
use specpress_store_dynamodb::embedded::{Embedded, Storage};
use specpress_store_dynamodb::{DynamoStore, LocalQueue};
use specpress_webhook::RetryPolicy;
use time::OffsetDateTime;
use tokio::sync::watch;

/// Fails under CI=true, otherwise prints a loud skip notice; returns `None` so the test returns early.
pub fn unavailable<T>(what: &str) -> Option<T> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("required test dependency missing under CI=true: {what}");
    }
    eprintln!("\n!!!!! SKIPPED: {what} !!!!!\n");
    None
}

/// One delivery as the receiver saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub webhook_id: String,
    pub timestamp: i64,
    pub received_at: f64,
    pub body: Value,
    pub std_ok: Vec<u64>,
    pub bump_ok: Vec<u64>,
    pub answered: u16,
}

/// The Python receiver process (started by the e2e harness), with a client for its control API.
pub struct Receiver {
    /// Dropping it stops the receiver.
    process: specpress_e2e::WebhookReceiver,
    pub base: String,
    http: reqwest::Client,
}

impl Receiver {
    pub fn start() -> Option<Receiver> {
        let process = specpress_e2e::webhook_receiver()?;
        Some(Receiver {
            base: process.base.clone(),
            process,
            http: reqwest::Client::new(),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Registers the secrets a path verifies with and the answers it gives, in order (then 200).
    pub async fn configure(&self, path: &str, secrets: &[&str], script: Value, delay_ms: u64) {
        let r = self
            .http
            .post(self.url("/_config"))
            .json(
                &json!({"path": path, "secrets": secrets, "script": script, "delay_ms": delay_ms}),
            )
            .send()
            .await
            .expect("configure receiver");
        assert!(r.status().is_success());
    }

    pub async fn log(&self) -> Vec<Received> {
        let v: Value = self
            .http
            .get(self.url("/_log"))
            .send()
            .await
            .expect("log")
            .json()
            .await
            .expect("json");
        v.as_array()
            .expect("array")
            .iter()
            .map(|e| Received {
                path: e["path"].as_str().unwrap_or_default().to_owned(),
                webhook_id: e["webhook_id"].as_str().unwrap_or_default().to_owned(),
                timestamp: e["timestamp"]
                    .as_str()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0),
                received_at: e["received_at"].as_f64().unwrap_or(0.0),
                body: serde_json::from_str(e["body"].as_str().unwrap_or("null"))
                    .unwrap_or(Value::Null),
                std_ok: e["std_ok"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default(),
                bump_ok: e["bump_ok"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default(),
                answered: e["answered"].as_u64().unwrap_or(0) as u16,
            })
            .collect()
    }

    /// Deliveries to `path`.
    pub async fn at(&self, path: &str) -> Vec<Received> {
        self.log()
            .await
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// Waits until `path` has received `n` deliveries (or the timeout), and returns them.
    pub async fn wait_for(&self, path: &str, n: usize, timeout: Duration) -> Vec<Received> {
        let until = Instant::now() + timeout;
        loop {
            let got = self.at(path).await;
            if got.len() >= n || Instant::now() >= until {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// Every delivery passed both signature checks with at least one registered secret.
pub fn assert_all_verified(got: &[Received]) {
    for r in got {
        assert!(
            !r.std_ok.is_empty(),
            "Standard Webhooks signature rejected: {r:?}"
        );
        assert!(
            !r.bump_ok.is_empty(),
            "X-Bump-Signature-256 rejected: {r:?}"
        );
    }
}

pub fn openapi(title: &str, description: &str, paths: &[&str]) -> String {
    let mut p = serde_json::Map::new();
    for path in paths {
        p.insert(
            (*path).into(),
            json!({"get": {"responses": {"200": {"description": "ok"}}}}),
        );
    }
    json!({"openapi": "3.0.3", "info": {"title": title, "version": "1.0.0", "description": description}, "paths": p})
        .to_string()
}

/// The event path over the embedded engine.
pub struct World {
    pub embedded: Embedded,
    pub store: Arc<DynamoStore>,
    pub queue: Arc<dyn MessageQueue>,
    pub service: DeliveryService,
    pub principal: Principal,
    pub receiver: Receiver,
    shutdown: Option<watch::Sender<bool>>,
}

pub fn sealer() -> SecretSealer {
    SecretSealer::new(&[42u8; 32])
}

impl World {
    /// A world with the given retry policy; `queue` defaults to the persistent local queue on the same table.
    /// `publish` wires the queue into the store (the deploy's inline send).
    pub async fn new(
        policy: RetryPolicy,
        queue: Option<Arc<dyn MessageQueue>>,
        publish: Option<Arc<dyn MessageQueue>>,
    ) -> Option<World> {
        let receiver = Receiver::start()?;
        let embedded = Embedded::start(Storage::Memory)
            .await
            .expect("embedded engine");
        let base = embedded.store("specpress").await.expect("table");
        let local: Arc<dyn MessageQueue> = Arc::new(LocalQueue::new(
            base.client().clone(),
            base.table(),
            "webhooks",
            Duration::from_secs(30),
            20,
        ));
        let queue = queue.unwrap_or(local);
        let store = Arc::new(base.with_event_queue(publish.unwrap_or_else(|| queue.clone())));
        let engine: Arc<dyn SpecEngine> = Arc::new(Engines::default());
        let service = DeliveryService {
            store: store.clone(),
            engine,
            queue: queue.clone(),
            sender: Arc::new(FetchSender::new(true).expect("sender")),
            sealer: sealer(),
            policy,
            public_base_url: "http://docs.test".into(),
        };
        let principal =
            match bootstrap_default_org(store.as_ref(), "T", None, OffsetDateTime::now_utc())
                .await
                .expect("org")
            {
                Bootstrap::Minted(org, _) => Principal {
                    org_id: org.id,
                    scope: specpress_domain::token::Scope::Org,
                },
                other => panic!("unexpected bootstrap {other:?}"),
            };
        Some(World {
            embedded,
            store,
            queue,
            service,
            principal,
            receiver,
            shutdown: None,
        })
    }

    /// Starts the in-process consumer over the world's queue.
    pub fn start_consumer(&mut self) {
        let (tx, rx) = watch::channel(false);
        let options = BatchOptions {
            concurrency: 8,
            per_message_budget: Duration::from_secs(20),
            delete_done: true,
            ..BatchOptions::default()
        };
        tokio::spawn(run_consumer(
            self.service.clone(),
            self.queue.clone(),
            options,
            rx,
        ));
        self.shutdown = Some(tx);
    }

    pub async fn doc(&self, slug: &str) -> Documentation {
        create_doc(
            self.store.as_ref(),
            &self.principal,
            slug,
            Some(slug),
            None,
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("create doc")
        .0
    }

    pub async fn deploy(
        &self,
        doc: &Documentation,
        definition: String,
        branch: Option<&str>,
    ) -> Version {
        let input = DeployInput {
            documentation: doc.slug.to_string(),
            bundle: Bundle {
                definition,
                references: vec![],
            },
            branch_name: branch.map(str::to_owned),
            ..DeployInput::default()
        };
        match deploy(
            self.store.as_ref(),
            self.service.engine.as_ref(),
            &self.principal,
            input,
            OffsetDateTime::now_utc(),
        )
        .await
        .expect("deploy")
        {
            DeployOutcome::Created { version, .. } => version,
            DeployOutcome::Unchanged { .. } => panic!("deploy unchanged"),
        }
    }

    /// Subscribes the receiver path; returns the subscription and its secret.
    pub async fn subscribe(
        &self,
        doc: &Documentation,
        path: &str,
        branches: Option<Vec<String>>,
    ) -> (Subscription, String) {
        let input = uc::CreateSubscription {
            url: self.receiver.url(path),
            description: None,
            branches,
        };
        let v = uc::create(&self.service, &self.principal, doc.slug.as_str(), input)
            .await
            .expect("subscribe");
        (v.subscription, v.secret.expect("secret shown on creation"))
    }

    /// Subscribes `doc` at receiver `path` (every branch) and scripts that endpoint with the new secret: it answers
    /// `script` (`[[status, headers], …]`, then 200) at once. Returns the subscription and its secret.
    pub async fn subscribe_scripted(
        &self,
        doc: &Documentation,
        path: &str,
        script: Value,
    ) -> (Subscription, String) {
        let (sub, secret) = self.subscribe(doc, path, None).await;
        self.receiver.configure(path, &[&secret], script, 0).await;
        (sub, secret)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
    }
}
