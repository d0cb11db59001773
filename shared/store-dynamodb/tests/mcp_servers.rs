//! MCP servers over the embedded engine (in-process and over its HTTP server): the use cases of
//! `usecases::mcp_servers` with the DynamoDB adapter. Secrets round-trip sealed, only for their server and name; the
//! runtime read opens for the organization's token or the server's current token, and not for a rotated-out one; a
//! private server's page opens for those tokens only and answers everyone else as an unknown server does, after the
//! same storage requests.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use specpress_domain::DomainError;
use specpress_domain::mcp::{PageAccess, ValidatedWorkflow, WorkflowSummary};
use specpress_domain::model::Visibility;
use specpress_domain::model::{Bundle, Reference};
use specpress_domain::ports::McpServerStore;
use specpress_domain::token::Principal;
use specpress_domain::usecases::manage;
use specpress_domain::usecases::mcp_servers::{self as uc, DeployOutcome};
use specpress_domain::webhooks::SecretSealer;
use specpress_local::embedded::{Embedded, Storage, Transport};
use specpress_store_dynamodb::DynamoStore;
use time::OffsetDateTime;

async fn embedded(transport: Transport) -> (Embedded, DynamoStore) {
    let e = Embedded::start_with(Storage::Memory, transport)
        .await
        .expect("embedded engine starts");
    let store = e.store("specpress").await.expect("table created");
    (e, store)
}

fn bundle(title: &str) -> Bundle {
    Bundle {
        definition: format!("arazzo: 1.0.1\ninfo:\n  title: {title}\n"),
        references: vec![Reference {
            location: "./petstore-openapi.yaml".into(),
            content: "openapi: 3.1.0\n".into(),
            name: Some("petstore".into()),
        }],
    }
}

/// A stand-in for the workflow engine: the model is opaque bytes to the domain.
async fn accept(b: Bundle) -> specpress_domain::Result<(Bundle, ValidatedWorkflow)> {
    let title = b
        .definition
        .lines()
        .find_map(|l| l.trim().strip_prefix("title: "))
        .unwrap_or("Untitled")
        .to_owned();
    let model = format!("{{\"title\":{title:?}}}").into_bytes();
    Ok((
        b,
        ValidatedWorkflow {
            model,
            title,
            format: "arazzo".into(),
            format_version: "1.0.1".into(),
            workflows: vec![WorkflowSummary {
                id: "findPet".into(),
                summary: Some("Find a pet".into()),
            }],
            schemes: vec!["api_key".into(), "oauth".into()],
        },
    ))
}

async fn org(store: &DynamoStore) -> (Principal, String) {
    let (o, token) = manage::create_org(store, "Acme", OffsetDateTime::now_utc())
        .await
        .unwrap();
    (
        Principal {
            org_id: o.id,
            scope: specpress_domain::token::Scope::Org,
        },
        token.secret,
    )
}

async fn servers_deploy_rotate_and_open_for_the_right_credentials_only(store: DynamoStore) {
    let now = OffsetDateTime::now_utc();
    let sealer = SecretSealer::new(&[9u8; 32]);
    let (p, org_token) = org(&store).await;
    let (other_p, other_org_token) = org(&store).await;

    // GIVEN a server auto-created by its first deploy, then deployed again unchanged
    let first = uc::deploy(&store, &p, "pets", bundle("Pet workflows"), accept, now)
        .await
        .unwrap();
    let DeployOutcome::Created { server, version } = first else {
        panic!("created expected");
    };
    assert_eq!(server.name, "Pet workflows");
    let again = uc::deploy(&store, &p, "pets", bundle("Pet workflows"), accept, now)
        .await
        .unwrap();
    assert!(matches!(again, DeployOutcome::Unchanged(_)));
    // Another organization does not see it, and cannot take its slug.
    assert!(matches!(
        uc::resolve(&store, &other_p, "pets").await,
        Err(DomainError::NotFound(_))
    ));
    assert!(matches!(
        uc::create(&store, &other_p, "Pets", Some("pets"), None, now).await,
        Err(DomainError::Invalid { .. })
    ));

    // WHEN a secret is stored
    uc::put_secret(&store, &sealer, &p, "pets", "api_key", "s3cr3t-key", now)
        .await
        .unwrap();
    let stored = store.list_mcp_secrets(server.id).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert!(
        !stored[0].sealed.windows(6).any(|w| w == b"s3cr3t"),
        "sealed at rest"
    );
    let listing = uc::secrets(&store, &p, "pets").await.unwrap();
    assert!(listing.secrets[0].used_by_current_version);
    assert_eq!(listing.missing, vec!["oauth".to_owned()]);

    // THEN the runtime opens it with the organization's token, not with another organization's or a wrong one
    let view = uc::open_runtime(&store, &sealer, "pets", &org_token)
        .await
        .unwrap()
        .expect("the organization's token opens the runtime");
    assert_eq!(
        view.secrets.get("api_key").map(|v| v.expose()),
        Some("s3cr3t-key")
    );
    assert!(
        !format!("{view:?}").contains("s3cr3t"),
        "Debug hides values"
    );
    let current = view.current.expect("a current version");
    assert_eq!(current.id, version.id);
    assert_eq!(&*current.model, br#"{"title":"Pet workflows"}"#);
    for wrong in [other_org_token.as_str(), "sp_mcp_wrong", ""] {
        assert!(
            uc::open_runtime(&store, &sealer, "pets", wrong)
                .await
                .unwrap()
                .is_none()
        );
    }
    assert!(
        uc::open_runtime(&store, &sealer, "nope", &org_token)
            .await
            .unwrap()
            .is_none()
    );

    // AND the server's own token opens it until it is rotated; then only the new one does
    let created = uc::create(&store, &p, "Second", None, None, now)
        .await
        .unwrap();
    let old = created.1.secret;
    assert!(
        uc::open_runtime(&store, &sealer, "second", &old)
            .await
            .unwrap()
            .is_some()
    );
    let new = uc::rotate_token(&store, &p, "second", now)
        .await
        .unwrap()
        .secret;
    assert!(
        uc::open_runtime(&store, &sealer, "second", &old)
            .await
            .unwrap()
            .is_none(),
        "the rotated-out token stops working"
    );
    let by_id = created.0.id.to_string();
    assert!(
        uc::open_runtime(&store, &sealer, &by_id, &new)
            .await
            .unwrap()
            .is_some()
    );
    let PageAccess::Shown(public) = uc::open_page(&store, "pets", None).await.unwrap() else {
        panic!("a public server's page is anyone's");
    };
    assert_eq!(public.current.map(|c| c.id), Some(version.id));

    // A sealed value copied onto another server does not open there.
    let copied = specpress_domain::mcp::StoredMcpSecret {
        name: "api_key".into(),
        sealed: stored[0].sealed.clone(),
        updated_at: now,
    };
    store.put_mcp_secret(&created.0, &copied).await.unwrap();
    assert!(
        uc::open_runtime(&store, &sealer, "second", &new)
            .await
            .is_err(),
        "a sealed value is bound to its server"
    );

    // A new document is a new version, newest first; deleting removes versions and secrets.
    let later = now + time::Duration::seconds(1);
    uc::deploy(&store, &p, "pets", bundle("Pet workflows 2"), accept, later)
        .await
        .unwrap();
    let (_, versions) = uc::versions(&store, &p, "pets").await.unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[1].id, version.id);
    uc::delete(&store, &p, "pets").await.unwrap();
    assert!(store.list_mcp_secrets(server.id).await.unwrap().is_empty());
    assert!(store.list_mcp_versions(server.id).await.unwrap().is_empty());
    assert!(
        uc::open_runtime(&store, &sealer, "pets", &org_token)
            .await
            .unwrap()
            .is_none()
    );
    // The slug is free again.
    uc::create(&store, &other_p, "Pets", Some("pets"), None, now)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mcp_servers_over_the_embedded_engine() {
    let (_e, store) = embedded(Transport::InProcess).await;
    servers_deploy_rotate_and_open_for_the_right_credentials_only(store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mcp_servers_over_the_embedded_engine_over_http() {
    let (_e, store) = embedded(Transport::Http).await;
    servers_deploy_rotate_and_open_for_the_right_credentials_only(store).await;
}

/// Records the DynamoDB operation of every request the SDK sends.
#[derive(Debug, Clone, Default)]
struct Requests(Arc<Mutex<Vec<String>>>);

impl Requests {
    fn take(&self) -> Vec<String> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_private_servers_page_opens_for_its_tokens_only_and_is_an_unknown_server_to_everyone_else()
 {
    // GIVEN a store whose storage requests are counted, a private server and a public one
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
    let store = DynamoStore::new(client, "specpress");
    let now = OffsetDateTime::now_utc();
    let (p, org_token) = org(&store).await;
    let (_, other_org_token) = org(&store).await;
    let (hidden, hidden_token) = uc::create(&store, &p, "Hidden", Some("hidden"), None, now)
        .await
        .unwrap();
    uc::deploy(&store, &p, "hidden", bundle("Hidden"), accept, now)
        .await
        .unwrap();
    let made_private = uc::update(
        &store,
        &p,
        "hidden",
        uc::UpdateServer {
            visibility: Some("private".into()),
            ..uc::UpdateServer::default()
        },
        now,
    )
    .await
    .unwrap();
    assert_eq!(made_private.visibility, Visibility::Private);
    assert!(matches!(
        uc::update(
            &store,
            &p,
            "hidden",
            uc::UpdateServer {
                visibility: Some("secret".into()),
                ..uc::UpdateServer::default()
            },
            now,
        )
        .await,
        Err(DomainError::Invalid { .. })
    ));
    uc::create(&store, &p, "Shown", Some("shown"), None, now)
        .await
        .unwrap();
    let hidden_id = hidden.id.to_string();

    // WHEN its page is asked for without a token, or with one that does not open it, and an unknown server's alike
    let mut seen = Vec::new();
    for (key, credential) in [
        ("no-such-server", None),
        ("hidden", None),
        (hidden_id.as_str(), None),
        ("no-such-server", Some("wrong-token-0000000000000")),
        ("hidden", Some("wrong-token-0000000000000")),
        ("no-such-server", Some(other_org_token.as_str())),
        ("hidden", Some(other_org_token.as_str())),
    ] {
        requests.take();
        let access = uc::open_page(&store, key, credential).await.unwrap();
        let PageAccess::NotFound { credential_failed } = access else {
            panic!("{key} {credential:?}: shown");
        };
        let wrong = credential.is_some_and(|c| c.starts_with("wrong"));
        assert_eq!(credential_failed, wrong, "{key} {credential:?}");
        seen.push(((key, credential.is_some()), requests.take()));
    }

    // THEN each answer is an unknown server's, after the same storage requests as the unknown server's
    for ((key, with), got) in &seen {
        let (_, want) = seen
            .iter()
            .find(|((k, w), _)| *k == "no-such-server" && w == with)
            .expect("the unknown server's");
        assert_eq!(got, want, "{key} with a credential: {with}");
    }
    // AND its own token and its organization's open it, and a public server's page is anyone's
    for token in [hidden_token.secret.as_str(), org_token.as_str()] {
        assert!(matches!(
            uc::open_page(&store, "hidden", Some(token)).await.unwrap(),
            PageAccess::Shown(_)
        ));
    }
    assert!(matches!(
        uc::open_page(&store, "shown", None).await.unwrap(),
        PageAccess::Shown(_)
    ));
}
