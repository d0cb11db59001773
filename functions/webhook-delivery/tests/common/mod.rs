//! Test harness: the embedded DynamoDB engine, the persistent local queue or moto's SQS, the real event path, and
//! a real subscriber (tests/webhook_receiver.py) that verifies every delivery with the official Standard Webhooks
//! library and checks X-Bump-Signature-256 on its own.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use specpress_domain::model::{Bundle, Documentation, Version};
use specpress_domain::ports::MessageQueue;
use specpress_domain::ports::SpecEngine;
use specpress_domain::token::Principal;
use specpress_domain::usecases::delivery::DeliveryService;
use specpress_domain::usecases::deploy::{DeployInput, DeployOutcome, deploy};
use specpress_domain::usecases::manage::{Bootstrap, bootstrap_default_org, create_doc};
use specpress_domain::usecases::outbox::QueuePublisher;
use specpress_domain::usecases::webhooks as uc;
use specpress_domain::webhooks::{SecretSealer, Subscription};
use specpress_engines::Engines;
use specpress_local::LocalQueue;
use specpress_local::embedded::{Embedded, Storage};
use specpress_store_dynamodb::DynamoStore;
use specpress_webhook::RetryPolicy;
use specpress_workers::sender::FetchSender;
use specpress_workers::{BatchOptions, run_consumer};
use time::OffsetDateTime;
use tokio::sync::watch;

/// The shared API corpus (`specpress_testkit::corpus()`): the tests that read it are ignored outside CI when it is
/// missing.
pub fn corpus_dir() -> PathBuf {
    specpress_testkit::corpus()
}

/// One corpus document's text.
pub fn corpus_file(dir: &Path, relative: &str) -> String {
    std::fs::read_to_string(dir.join(relative)).expect("corpus document")
}

/// One delivery as the receiver saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Bytes of the body as received.
    pub size: usize,
    pub webhook_id: String,
    pub timestamp: i64,
    pub received_at: f64,
    pub body: Value,
    pub std_ok: Vec<u64>,
    pub bump_ok: Vec<u64>,
    pub answered: u16,
    /// What the receiver found wrong in a Slack or Teams body (Block Kit models, Adaptive Cards 1.5 schema).
    pub problems: Vec<String>,
    /// Whether a signature header came with it.
    pub signed: bool,
}

/// The Python receiver process (started by the e2e harness), with a client for its control API.
pub struct Receiver {
    /// Dropping it stops the receiver.
    process: specpress_e2e::WebhookReceiver,
    pub base: String,
    http: reqwest::Client,
}

impl Receiver {
    /// Starts it with the tools' Python (`specpress_testkit::Tool::Python`: the tests that start one are ignored
    /// outside CI without it).
    pub fn start() -> Receiver {
        let process = specpress_e2e::webhook_receiver();
        Receiver {
            base: process.base.clone(),
            process,
            http: reqwest::Client::new(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Registers the secrets a path verifies with and the answers it gives, in order (then 200).
    pub async fn configure(&self, path: &str, secrets: &[&str], script: Value, delay_ms: u64) {
        self.configure_kind(path, secrets, script, delay_ms, "standard")
            .await;
    }

    /// [`Receiver::configure`] for a path standing for a `kind` endpoint: `standard` (signatures verified), `slack`
    /// (unsigned Block Kit messages, validated by `slack_sdk`) or `teams` (unsigned Adaptive Cards, validated against
    /// the 1.5 schema).
    pub async fn configure_kind(
        &self,
        path: &str,
        secrets: &[&str],
        script: Value,
        delay_ms: u64,
        kind: &str,
    ) {
        let r = self
            .http
            .post(self.url("/_config"))
            .json(
                &json!({"path": path, "secrets": secrets, "script": script, "delay_ms": delay_ms, "kind": kind}),
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
                size: e["body"].as_str().map_or(0, str::len),
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
                problems: e["problems"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|p| p.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
                signed: e["signed"].as_bool().unwrap_or(false),
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

/// How a [`World`] is built.
#[derive(Default)]
pub struct Setup {
    /// The retry policy (the default schedule when `None`).
    pub policy: Option<RetryPolicy>,
    /// The webhook queue; the persistent local queue on the same table when `None`.
    pub queue: Option<Arc<dyn MessageQueue>>,
    /// The queue the deploy sends committed events to; `queue` when `None`.
    pub publish: Option<Arc<dyn MessageQueue>>,
    /// Keep the table on this moto server instead of the embedded engine (`queue` must then be given).
    pub moto_dynamodb: Option<String>,
    /// Per-document size limit of the engine (the GitHub corpus documents are 12-13 MB, above the 5 MiB default).
    pub max_document_bytes: Option<usize>,
    /// An interceptor on the store's DynamoDB client (fault injection on the wire).
    pub dynamodb_interceptor: Option<aws_sdk_dynamodb::config::SharedInterceptor>,
}

impl World {
    /// A world with the given retry policy; `queue` defaults to the persistent local queue on the same table.
    /// `publish` is the queue the deploys publish to after their commit.
    pub async fn new(
        policy: RetryPolicy,
        queue: Option<Arc<dyn MessageQueue>>,
        publish: Option<Arc<dyn MessageQueue>>,
    ) -> World {
        World::build(Setup {
            policy: Some(policy),
            queue,
            publish,
            ..Setup::default()
        })
        .await
    }

    /// A world as `setup` describes it.
    pub async fn build(setup: Setup) -> World {
        let receiver = Receiver::start();
        let embedded = Embedded::start(Storage::Memory)
            .await
            .expect("embedded engine");
        let base = match &setup.moto_dynamodb {
            Some(endpoint) => {
                let client = specpress_store_dynamodb::client_for_endpoint(endpoint).await;
                let table = format!(
                    "specpress-webhooks-{}-{}",
                    std::process::id(),
                    OffsetDateTime::now_utc().unix_timestamp_nanos()
                );
                specpress_store_dynamodb::schema::ensure_table(&client, &table)
                    .await
                    .expect("moto table");
                DynamoStore::new(client, table)
            }
            None => embedded.store("specpress").await.expect("table"),
        };
        let base = match setup.dynamodb_interceptor {
            Some(interceptor) => {
                let config = base
                    .client()
                    .config()
                    .to_builder()
                    .interceptor(interceptor)
                    .build();
                DynamoStore::new(aws_sdk_dynamodb::Client::from_conf(config), base.table())
            }
            None => base,
        };
        let queue = match setup.queue {
            Some(q) => q,
            None => Arc::new(LocalQueue::new(
                base.client().clone(),
                base.table(),
                "webhooks",
                Duration::from_secs(30),
                20,
            )),
        };
        let store = Arc::new(base);
        let publisher = Arc::new(QueuePublisher(
            setup.publish.unwrap_or_else(|| queue.clone()),
        ));
        let limits = specpress_apispec::Limits {
            max_bytes: setup
                .max_document_bytes
                .unwrap_or(specpress_apispec::Limits::default().max_bytes),
            ..specpress_apispec::Limits::default()
        };
        let engine: Arc<dyn SpecEngine> = Arc::new(Engines::new(limits));
        let service = DeliveryService {
            store: store.clone(),
            engine,
            queue: queue.clone(),
            publisher,
            sender: Arc::new(FetchSender::new(true).expect("sender")),
            sealer: sealer(),
            policy: setup.policy.unwrap_or_default(),
            public_base_url: "http://docs.test".into(),
            mailer: None,
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
        World {
            embedded,
            store,
            queue,
            service,
            principal,
            receiver,
            shutdown: None,
        }
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
            specpress_domain::model::Visibility::Public,
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
            self.service.publisher.as_ref(),
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
            ..uc::CreateSubscription::default()
        };
        let v = uc::create(&self.service, &self.principal, doc.slug.as_str(), input)
            .await
            .expect("subscribe");
        (v.subscription, v.secret.expect("secret shown on creation"))
    }

    /// Subscribes `doc` at receiver `path` with a filter and a format (`standard`, `slack`, `teams`); the receiver
    /// path verifies what the format calls for.
    pub async fn subscribe_filtered(
        &self,
        doc: &Documentation,
        path: &str,
        filter: Value,
        format: &str,
    ) -> Subscription {
        let input = uc::CreateSubscription {
            url: self.receiver.url(path),
            filter: Some(serde_json::from_value(filter).expect("filter")),
            format: Some(format.to_owned()),
            ..uc::CreateSubscription::default()
        };
        let v = uc::create(&self.service, &self.principal, doc.slug.as_str(), input)
            .await
            .expect("subscribe");
        let secret = v.secret.expect("secret shown on creation");
        self.receiver
            .configure_kind(path, &[&secret], json!([]), 0, format)
            .await;
        v.subscription
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

/// A pair of corpus documents deployed one after the other: the second deploy's event carries their diff.
pub struct CorpusPair {
    pub slug: &'static str,
    pub previous: &'static str,
    pub current: &'static str,
}

pub const STRIPE_2022: CorpusPair = CorpusPair {
    slug: "stripe",
    previous: "openapi-3.0/stripe-2022-02-08.json",
    current: "openapi-3.0/stripe-2022-04-12.json",
};

pub const GITHUB: CorpusPair = CorpusPair {
    slug: "github",
    previous: "openapi-3.0/github-api-22.0.0.json",
    current: "openapi-3.0/github-api-23.0.2.json",
};

pub const KUBERNETES: CorpusPair = CorpusPair {
    slug: "kubernetes",
    previous: "swagger-2.0/kubernetes-1.35.json",
    current: "swagger-2.0/kubernetes-1.36.json",
};

pub const OPENAI: CorpusPair = CorpusPair {
    slug: "openai",
    previous: "openapi-3.1/openai-2026-08-12.json",
    current: "openapi-3.1/openai-2026-08-21.json",
};

pub const STRIPE_2023: CorpusPair = CorpusPair {
    slug: "stripe-2023",
    previous: "openapi-3.0/stripe-2023-09-11.yaml",
    current: "openapi-3.0/stripe-2023-09-12.yaml",
};

/// Room for the GitHub documents (13.0 MB) in the engine's per-document limit.
pub const CORPUS_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// What a deployed pair left to check: the delivery of the second version as received, and the full diff.
pub struct DeployedPair {
    pub doc: Documentation,
    pub subscription: Subscription,
    pub second: Version,
    /// The diff the engine computes for the pair (what the details link serves in full).
    pub full: specpress_domain::ports::DiffSummary,
}

/// Subscribes the receiver at `path` to a new documentation, then deploys the pair through the deploy use case
/// (validation, storage, the commit with its event).
pub async fn deploy_pair(w: &World, pair: &CorpusPair, path: &str) -> DeployedPair {
    let dir = corpus_dir();
    let doc = w.doc(pair.slug).await;
    let (subscription, _) = w.subscribe_scripted(&doc, path, json!([])).await;
    let (previous, current) = (
        corpus_file(&dir, pair.previous),
        corpus_file(&dir, pair.current),
    );
    let bundle = |definition: &str| Bundle {
        definition: definition.to_owned(),
        references: vec![],
    };
    let full = w
        .service
        .engine
        .diff(&bundle(&previous), &bundle(&current))
        .await
        .expect("the pair diffs");
    w.deploy(&doc, previous, None).await;
    let second = w.deploy(&doc, current, None).await;
    DeployedPair {
        doc,
        subscription,
        second,
        full,
    }
}

/// The size of a top-level item's summary in a truncated payload, as `docs/webhooks.md` describes it: without its
/// `children` and `affected`, marked `truncated` when they were not empty; past 1 KiB, only its identity members.
fn summary_size(item: &Value) -> usize {
    let Some(object) = item.as_object() else {
        return 0;
    };
    let cut = ["children", "affected"].iter().any(|k| {
        object
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    });
    let mut summary: serde_json::Map<String, Value> = object
        .iter()
        .filter(|(k, _)| *k != "children" && *k != "affected")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    summary.insert("children".into(), json!([]));
    if cut {
        summary.insert("truncated".into(), json!(true));
    }
    let full = Value::Object(summary.clone()).to_string().len();
    if full <= specpress_domain::usecases::delivery::MAX_SUMMARY_ITEM_BYTES {
        return full;
    }
    let identity = [
        "id",
        "name",
        "status",
        "type",
        "breaking",
        "level",
        "breaking_details",
        "ref",
        "children",
    ];
    summary.retain(|k, _| identity.contains(&k.as_str()));
    summary.insert("truncated".into(), json!(true));
    Value::Object(summary).to_string().len()
}

/// Largest body a delivery may carry (the bound `docs/webhooks.md` documents).
pub const PAYLOAD_BOUND: usize = specpress_domain::usecases::delivery::MAX_PAYLOAD_BYTES;

/// Checks the delivery of a deployed pair's second version: received once, signed, within the bound, marked
/// truncated with its link and counts, and listed by the deliveries API with those exact bytes. Returns its size and
/// its `details_summary`.
pub async fn assert_large_diff_delivered(
    w: &World,
    path: &str,
    d: &DeployedPair,
) -> (usize, Value) {
    let got = w.receiver.at(path).await;
    assert_eq!(
        got.len(),
        2,
        "both versions delivered, each once: {:?}",
        got.iter().map(|g| g.size).collect::<Vec<_>>()
    );
    assert_all_verified(&got);
    let second = got
        .iter()
        .find(|g| g.body["version"]["id"] == json!(d.second.id.to_string()))
        .expect("the second version's delivery");
    assert!(
        second.size <= PAYLOAD_BOUND,
        "payload of {} bytes is over the bound",
        second.size
    );
    let diff = &second.body["diff"];
    let public_url = diff["public_url"].as_str().expect("public_url");
    assert_eq!(diff["details_url"], json!(format!("{public_url}.json")));
    assert_eq!(diff["details_truncated"], json!(true), "marked truncated");
    assert_eq!(diff["breaking"], json!(d.full.breaking));
    let all = d.full.details.as_array().expect("full details");
    let summary = &diff["details_summary"];
    assert_eq!(summary["total_items"], json!(all.len()));
    let breaking = all.iter().filter(|i| i["breaking"] == json!(true)).count();
    assert_eq!(summary["breaking_items"], json!(breaking));
    let details = diff["details"].as_array().expect("details");
    assert_eq!(summary["included_items"], json!(details.len()));
    assert!(
        !details.is_empty() && details.len() < all.len(),
        "a bounded selection of the top-level items"
    );
    // Every included item is a top-level item of the full diff, in the full diff's order, without children.
    let mut position = 0;
    for item in details {
        let found = all[position..]
            .iter()
            .position(|a| a["id"] == item["id"])
            .expect("an item of the full diff, in order");
        position += found + 1;
        assert_eq!(item["children"], json!([]));
    }
    // Breaking items come first when the budget is shared out: every one is listed, or (when they do not all fit:
    // an operation that reaches a breaking change through the schemas it uses is flagged too, so the Stripe 2022,
    // GitHub and Kubernetes pairs have 484, 153 and 228) each one left out was larger than the room the non-breaking
    // items listed after them take.
    let included_breaking = details
        .iter()
        .filter(|i| i["breaking"] == json!(true))
        .count();
    eprintln!(
        "{path}: {included_breaking} of {breaking} breaking items listed, {} items in all",
        details.len()
    );
    if included_breaking < breaking {
        let listed: Vec<&Value> = details.iter().map(|i| &i["id"]).collect();
        let after: usize = details
            .iter()
            .filter(|i| i["breaking"] != json!(true))
            .map(|i| i.to_string().len())
            .sum();
        for left_out in all
            .iter()
            .filter(|i| i["breaking"] == json!(true) && !listed.contains(&&i["id"]))
        {
            assert!(
                summary_size(left_out) + 1 > after,
                "{} left out, while {after} bytes of non-breaking items are listed",
                left_out["id"]
            );
        }
    }
    // The attempt is recorded right after the receiver answered.
    let until = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = specpress_domain::usecases::webhooks::deliveries(
            &w.service,
            &w.principal,
            d.doc.slug.as_str(),
            &d.subscription.id.to_string(),
        )
        .await
        .expect("deliveries");
        let finished = log
            .iter()
            .all(|l| l.status != specpress_domain::webhooks::DeliveryStatus::Pending);
        if finished || Instant::now() >= until {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(log.len(), 2, "the deliveries API lists both");
    let listed = log
        .iter()
        .find(|l| {
            serde_json::from_str::<Value>(&l.payload)
                .is_ok_and(|p| p["version"]["id"] == json!(d.second.id.to_string()))
        })
        .expect("the second version's delivery is listed");
    assert_eq!(
        listed.status,
        specpress_domain::webhooks::DeliveryStatus::Delivered
    );
    assert_eq!(
        listed.payload.len(),
        second.size,
        "the stored bytes were sent"
    );
    (second.size, summary.clone())
}

/// Makes DynamoDB refuse every delivery item as it refused the issue's: each `PutItem` of a `DELIVERY#` item is
/// padded on the wire (before signing) with a 450 KB attribute, so the engine itself (dynoxide or moto) answers
/// `ValidationException: Item size has exceeded the maximum allowed size`. Counts the refused writes.
#[derive(Debug, Default)]
pub struct OversizeDeliveries {
    pub refused: std::sync::atomic::AtomicUsize,
}

impl aws_sdk_dynamodb::config::Intercept for OversizeDeliveries {
    fn name(&self) -> &'static str {
        "OversizeDeliveries"
    }

    fn modify_before_signing(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<
            '_,
        >,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let request = context.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.PutItem") {
            return Ok(());
        }
        let Some(mut body) = request
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        else {
            return Ok(());
        };
        let is_delivery = body["Item"]["pk"]["S"]
            .as_str()
            .is_some_and(|pk| pk.starts_with("DELIVERY#"));
        if !is_delivery {
            return Ok(());
        }
        body["Item"]["padding"] = json!({"S": "x".repeat(450_000)});
        let bytes = serde_json::to_vec(&body)?;
        request
            .headers_mut()
            .insert("content-length", bytes.len().to_string());
        *request.body_mut() = bytes.into();
        self.refused
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }
}

/// Lends an interceptor to the store's client while the test keeps reading its counters.
#[derive(Debug)]
pub struct ArcInterceptor(pub Arc<OversizeDeliveries>);

impl aws_sdk_dynamodb::config::Intercept for ArcInterceptor {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn modify_before_signing(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<
            '_,
        >,
        components: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        self.0.modify_before_signing(context, components, cfg)
    }
}

/// The production engine, counting the diffs it computes.
pub struct CountingEngine {
    pub inner: Arc<dyn SpecEngine>,
    pub diffs: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl SpecEngine for CountingEngine {
    async fn check(
        &self,
        bundle: &Bundle,
    ) -> specpress_domain::Result<specpress_domain::model::Analysis> {
        self.inner.check(bundle).await
    }
    async fn diff(
        &self,
        previous: &Bundle,
        current: &Bundle,
    ) -> specpress_domain::Result<specpress_domain::ports::DiffSummary> {
        self.diffs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.diff(previous, current).await
    }
}

/// The world's service with its engine counting diffs.
pub fn counting(w: &World) -> (DeliveryService, Arc<CountingEngine>) {
    let engine = Arc::new(CountingEngine {
        inner: w.service.engine.clone(),
        diffs: Default::default(),
    });
    let service = DeliveryService {
        engine: engine.clone(),
        ..w.service.clone()
    };
    (service, engine)
}

/// Log lines, captured from the process-wide subscriber [`capture_logs`] installs.
#[derive(Clone, Default)]
pub struct Logs(Arc<std::sync::Mutex<Vec<u8>>>);

impl Logs {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("logs")).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("logs").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs a process-wide subscriber writing every log line (warn and above, no colours) into the returned
/// buffer. Call it once per test process (nextest runs each test in its own).
pub fn capture_logs() -> Logs {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).expect("one subscriber per test process");
    logs
}
