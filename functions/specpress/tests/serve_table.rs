//! `specpress serve` pointed at an existing DynamoDB table (issue 31, defect 7): without `--bootstrap` it writes
//! nothing to the table at start (no organization, no token, no published reference) and says so on stderr; with
//! `--bootstrap` it creates the default organization and publishes its own reference, and says that too.
//!
//! The table is on moto server (`SPECPRESS_TEST_MOTO_ENDPOINT`, started by scripts/test.sh; `specpress_testkit`):
//! without it the test fails under `CI=true` and is reported as ignored otherwise.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use specpress_domain::model::Slug;
use specpress_domain::ports::{DocStore, OrgStore};
use specpress_store_dynamodb::DynamoStore;

/// Every item of the table, as `pk|sk` keys, sorted (the table is small).
async fn keys(client: &aws_sdk_dynamodb::Client, table: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            let s = |k: &str| {
                item.get(k)
                    .and_then(|v| v.as_s().ok())
                    .cloned()
                    .unwrap_or_default()
            };
            out.push(format!("{}|{}", s("pk"), s("sk")));
        }
        match page.last_evaluated_key() {
            Some(k) if !k.is_empty() => start = Some(k.clone()),
            _ => break,
        }
    }
    out.sort();
    out
}

/// A `specpress serve` run on `table`: what it printed until it listened (stdout), and all of stderr once stopped.
struct Run {
    stdout: Vec<String>,
    stderr: String,
}

/// Starts `specpress serve --port 0` on `table` at `endpoint` with `args`, waits until it listens, stops it with
/// SIGTERM and answers what it printed.
fn serve_once(endpoint: &str, table: &str, args: &[&str]) -> Run {
    let dir = tempfile::tempdir().expect("data dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_specpress"));
    cmd.args(["serve", "--port", "0", "--data-dir"])
        .arg(dir.path())
        .args(args)
        .env("SPECPRESS_TABLE", table)
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        // What someone pointing serve at their table would have set: a token of their choosing, publishing on.
        .env(
            "SPECPRESS_ORG_TOKEN",
            "a-token-the-operator-chose-for-local-use",
        )
        .env_remove("SPECPRESS_SELF_DOC")
        .env_remove("SPECPRESS_QUEUE_URL")
        .env_remove("SPECPRESS_PUBLIC_URL")
        .env("SPECPRESS_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The child is waited for below on every path.
    #[allow(clippy::zombie_processes)]
    let mut child: Child = cmd.spawn().expect("specpress serve starts");
    let mut err = child.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stdout = Vec::new();
    let listening = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => {
                let done = line.starts_with("Listening on ");
                stdout.push(line);
                if done {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let stop = Instant::now() + Duration::from_secs(20);
    while Instant::now() < stop && matches!(child.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    let stderr = stderr.join().unwrap_or_default();
    assert!(
        listening,
        "specpress serve did not listen; stdout {stdout:#?}, stderr {stderr}"
    );
    Run { stdout, stderr }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    missing_moto,
    ignore = "needs a moto server (SPECPRESS_TEST_MOTO_ENDPOINT)"
)]
async fn serve_on_an_existing_table_writes_nothing_unless_asked_to_bootstrap_and_says_what_it_did()
{
    let endpoint = specpress_testkit::moto_endpoint();
    // GIVEN an existing table with one organization, made as a deployed stack's operator makes it
    let client = specpress_store_dynamodb::client_for_endpoint(&endpoint).await;
    let table = format!("specpress-serve-{}", uuid::Uuid::new_v4().simple());
    specpress_store_dynamodb::schema::ensure_table(&client, &table)
        .await
        .expect("table created");
    let store = DynamoStore::new(client.clone(), table.clone());
    let (acme, _) = specpress_domain::usecases::manage::create_org(
        &store,
        "Acme",
        time::OffsetDateTime::now_utc(),
    )
    .await
    .expect("organization");
    let before = keys(&client, &table).await;

    // WHEN serve starts on it without --bootstrap
    let run = {
        let (e, t) = (endpoint.clone(), table.clone());
        tokio::task::spawn_blocking(move || serve_once(&e, &t, &[]))
            .await
            .expect("run")
    };

    // THEN not one item of the table changed: no organization, no token, no published reference
    assert_eq!(
        keys(&client, &table).await,
        before,
        "a start without --bootstrap wrote to the table; stderr: {}",
        run.stderr
    );
    assert_eq!(store.get_default_org().await.expect("read"), None);
    // and stderr says so plainly: what it did not do, and how to ask for it.
    for said in [
        &format!("DynamoDB table {table} used as it is: nothing was written to it at start"),
        "no organization created",
        "SPECPRESS_ORG_TOKEN was not applied",
        "Specpress's own API reference was not published",
        "--bootstrap",
    ] {
        assert!(
            run.stderr.contains(said),
            "{said:?} not in stderr: {}",
            run.stderr
        );
    }
    assert!(
        !run.stdout.iter().any(|l| l.contains("Organization token")),
        "no token is announced: {:#?}",
        run.stdout
    );

    // WHEN the operator asks explicitly
    let run = {
        let (e, t) = (endpoint.clone(), table.clone());
        tokio::task::spawn_blocking(move || serve_once(&e, &t, &["--bootstrap"]))
            .await
            .expect("run")
    };

    // THEN the default organization is created (beside Acme, untouched) and the reference is published in it
    let org = store
        .get_default_org()
        .await
        .expect("read")
        .expect("a default organization");
    assert_ne!(org, acme.id);
    assert!(store.get_org(acme.id).await.expect("read").is_some());
    let slug = Slug::parse(specpress_openapi::SLUG).expect("slug");
    let doc = store
        .doc_by_public_slug(&slug)
        .await
        .expect("read")
        .expect("the reference's documentation");
    assert_eq!(doc.org_id, org);
    // and stderr says what was written.
    for said in [
        &format!("--bootstrap: created the default organization {org} in DynamoDB table {table}"),
        "--bootstrap: published a version of Specpress's own API reference",
    ] {
        assert!(
            run.stderr.contains(said),
            "{said:?} not in stderr: {}",
            run.stderr
        );
    }
}
