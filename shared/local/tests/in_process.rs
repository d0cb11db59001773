//! The in-process transport of the embedded engine answers as dynoxide's HTTP server does: every test runs the
//! same SDK calls over both transports against ONE database and compares what the SDK parsed (results, error
//! codes, messages, cancellation reasons, returned items).

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};
use specpress_local::embedded::{Embedded, Storage, Transport};
use specpress_local::in_process::handle;

const TABLE: &str = "specpress";

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// One engine served over HTTP, with an SDK client for each transport.
async fn both() -> (Embedded, Client, Client) {
    let e = Embedded::start_with(Storage::Memory, Transport::Http)
        .await
        .expect("engine starts");
    e.store(TABLE).await.expect("table created");
    let http = e.client().await;
    let local = e.in_process_client().await;
    (e, http, local)
}

fn transports(http: &Client, local: &Client) -> [(&'static str, Client); 2] {
    [("http", http.clone()), ("in-process", local.clone())]
}

/// Creates table `tbl` (hash key `pk`, a string) through raw `handle` calls.
fn create_tbl(db: &dynoxide::Database) {
    let create =
        br#"{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(
        handle(db, Some("DynamoDB_20120810.CreateTable"), create).0,
        200
    );
}

/// `(code, message)` of an SDK error.
fn code_and_message<E: ProvideErrorMetadata>(e: &E) -> (Option<String>, Option<String>) {
    (e.code().map(str::to_owned), e.message().map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_through_one_transport_are_read_back_identically_through_the_other() {
    let (_e, http, local) = both().await;
    for (name, writer) in transports(&http, &local) {
        let pk = format!("ITEM#{name}");
        writer
            .put_item()
            .table_name(TABLE)
            .item("pk", s(&pk))
            .item("sk", s("A"))
            .item("n", AttributeValue::N("42".into()))
            .item("b", AttributeValue::B(vec![0u8, 1, 2, 255].into()))
            .item(
                "l",
                AttributeValue::L(vec![s("x"), AttributeValue::Bool(true)]),
            )
            .send()
            .await
            .expect("put");
        writer
            .update_item()
            .table_name(TABLE)
            .key("pk", s(&pk))
            .key("sk", s("A"))
            .update_expression("SET n = n + :one")
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
            .await
            .expect("update");
        let mut seen = Vec::new();
        for (_, reader) in transports(&http, &local) {
            let got = reader
                .get_item()
                .table_name(TABLE)
                .key("pk", s(&pk))
                .key("sk", s("A"))
                .consistent_read(true)
                .send()
                .await
                .expect("get")
                .item
                .expect("item present");
            assert_eq!(got.get("n"), Some(&AttributeValue::N("43".into())));
            let q = reader
                .query()
                .table_name(TABLE)
                .key_condition_expression("pk = :pk")
                .expression_attribute_values(":pk", s(&pk))
                .send()
                .await
                .expect("query");
            assert_eq!(q.count, 1);
            seen.push((got, q.items));
        }
        assert_eq!(seen[0], seen[1], "both transports read the same item");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_condition_is_the_same_error_with_the_same_old_item_on_both() {
    let (_e, http, local) = both().await;
    local
        .put_item()
        .table_name(TABLE)
        .item("pk", s("K"))
        .item("sk", s("S"))
        .item("v", s("old"))
        .send()
        .await
        .expect("put");
    let mut answers = Vec::new();
    for (name, client) in transports(&http, &local) {
        let err = client
            .put_item()
            .table_name(TABLE)
            .item("pk", s("K"))
            .item("sk", s("S"))
            .item("v", s("new"))
            .condition_expression("attribute_not_exists(pk)")
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await
            .expect_err("the condition fails")
            .into_service_error();
        assert!(
            err.is_conditional_check_failed_exception(),
            "{name}: {err:?}"
        );
        let item = match &err {
            aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(
                c,
            ) => c.item().cloned(),
            _ => None,
        };
        assert_eq!(
            item.as_ref().and_then(|i| i.get("v")),
            Some(&s("old")),
            "{name}: the old item comes back"
        );
        answers.push((code_and_message(&err), item));
    }
    assert_eq!(answers[0], answers[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_transaction_gives_one_reason_per_action_and_writes_nothing_on_both() {
    let (_e, http, local) = both().await;
    let mut answers = Vec::new();
    for (name, client) in transports(&http, &local) {
        let put = |pk: String| {
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(TABLE)
                        .item("pk", s(&pk))
                        .item("sk", s("T"))
                        .build()
                        .unwrap(),
                )
                .build()
        };
        let check = TransactWriteItem::builder()
            .condition_check(
                ConditionCheck::builder()
                    .table_name(TABLE)
                    .key("pk", s("ABSENT"))
                    .key("sk", s("T"))
                    .condition_expression("attribute_exists(pk)")
                    .build()
                    .unwrap(),
            )
            .build();
        let err = client
            .transact_write_items()
            .transact_items(put(format!("TX1#{name}")))
            .transact_items(check)
            .transact_items(put(format!("TX2#{name}")))
            .send()
            .await
            .expect_err("the transaction is cancelled")
            .into_service_error();
        let TransactWriteItemsError::TransactionCanceledException(tc) = &err else {
            panic!("{name}: expected TransactionCanceledException, got {err:?}");
        };
        let reasons: Vec<(Option<String>, Option<String>)> = tc
            .cancellation_reasons()
            .iter()
            .map(|r| (r.code().map(str::to_owned), r.message().map(str::to_owned)))
            .collect();
        let codes: Vec<Option<&str>> = reasons.iter().map(|r| r.0.as_deref()).collect();
        assert_eq!(
            codes,
            [Some("None"), Some("ConditionalCheckFailed"), Some("None")],
            "{name}"
        );
        for pk in [format!("TX1#{name}"), format!("TX2#{name}")] {
            let got = client
                .get_item()
                .table_name(TABLE)
                .key("pk", s(&pk))
                .key("sk", s("T"))
                .consistent_read(true)
                .send()
                .await
                .expect("get");
            assert!(
                got.item.is_none(),
                "{name}: a cancelled transaction wrote {pk}"
            );
        }
        answers.push((code_and_message(&err), reasons));
    }
    assert_eq!(answers[0], answers[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_and_missing_table_errors_are_word_for_word_the_servers() {
    let (_e, http, local) = both().await;
    let mut answers = Vec::new();
    for (_, client) in transports(&http, &local) {
        let missing = client
            .get_item()
            .table_name("no-such-table")
            .key("pk", s("K"))
            .key("sk", s("S"))
            .send()
            .await
            .expect_err("no table")
            .into_service_error();
        assert!(missing.is_resource_not_found_exception(), "{missing:?}");
        let empty_key = client
            .put_item()
            .table_name(TABLE)
            .item("pk", s(""))
            .item("sk", s("S"))
            .send()
            .await
            .expect_err("empty key")
            .into_service_error();
        let too_large = client
            .put_item()
            .table_name(TABLE)
            .item("pk", s("BIG"))
            .item("sk", s("S"))
            .item("data", AttributeValue::B(vec![7u8; 401 * 1024].into()))
            .send()
            .await
            .expect_err("over 400 KB")
            .into_service_error();
        let bad_expression = client
            .query()
            .table_name(TABLE)
            .key_condition_expression("pk = :pk AND")
            .expression_attribute_values(":pk", s("K"))
            .send()
            .await
            .expect_err("syntax error")
            .into_service_error();
        for e in [
            code_and_message(&empty_key),
            code_and_message(&too_large),
            code_and_message(&bad_expression),
        ] {
            assert_eq!(e.0.as_deref(), Some("ValidationException"), "{e:?}");
        }
        answers.push([
            code_and_message(&missing),
            code_and_message(&empty_key),
            code_and_message(&too_large),
            code_and_message(&bad_expression),
        ]);
    }
    assert_eq!(answers[0], answers[1]);
}

#[tokio::test]
async fn raw_requests_get_dynamodb_error_json() {
    let db = dynoxide::Database::memory().expect("db");
    let json = |(status, body): (u16, Vec<u8>)| {
        let v: serde_json::Value = serde_json::from_slice(&body).expect("JSON body");
        (status, v)
    };
    let (status, v) = json(handle(&db, None, b"{}"));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazon.coral.service#UnknownOperationException"
    );
    let (status, v) = json(handle(
        &db,
        Some("DynamoDB_20120810.NoSuchOperation"),
        b"{}",
    ));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazon.coral.service#UnknownOperationException"
    );
    let (status, v) = json(handle(&db, Some("DynamoDB_20120810.GetItem"), b"{not json"));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazon.coral.service#SerializationException"
    );
    let (status, v) = json(handle(&db, Some("DynamoDB_20120810.GetItem"), b""));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazon.coral.service#SerializationException"
    );
    let (status, v) = json(handle(
        &db,
        Some("DynamoDB_20120810.GetItem"),
        br#"{"TableName":"tbl","Key":{"pk":{"S":"k"}}}"#,
    ));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    );
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");

    create_tbl(&db);
    let tx = br#"{"TransactItems":[
        {"Put":{"TableName":"tbl","Item":{"pk":{"S":"a"}}}},
        {"ConditionCheck":{"TableName":"tbl","Key":{"pk":{"S":"b"}},"ConditionExpression":"attribute_exists(pk)"}}]}"#;
    let (status, v) = json(handle(
        &db,
        Some("DynamoDB_20120810.TransactWriteItems"),
        tx,
    ));
    assert_eq!(status, 400);
    assert_eq!(
        v["__type"],
        "com.amazonaws.dynamodb.v20120810#TransactionCanceledException"
    );
    assert!(
        v["Message"]
            .as_str()
            .is_some_and(|m| m.contains("ConditionalCheckFailed")),
        "{v}"
    );
    let codes: Vec<&str> = v["CancellationReasons"]
        .as_array()
        .expect("reasons")
        .iter()
        .filter_map(|r| r["Code"].as_str())
        .collect();
    assert_eq!(codes, ["None", "ConditionalCheckFailed"]);
    let (status, v) = json(handle(
        &db,
        Some("DynamoDB_20120810.GetItem"),
        br#"{"TableName":"tbl","Key":{"pk":{"S":"a"}},"ConsistentRead":true}"#,
    ));
    assert_eq!(status, 200);
    assert!(
        v.get("Item").is_none(),
        "the cancelled put wrote nothing: {v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_reopening_the_data_file_without_a_clean_stop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("data.db");
    {
        let e = Embedded::start(Storage::File(&file)).await.expect("engine");
        assert_eq!(e.transport(), Transport::InProcess);
        let client = e.store(TABLE).await.expect("table").client().clone();
        for i in 0..20 {
            client
                .put_item()
                .table_name(TABLE)
                .item("pk", s(&format!("K#{i}")))
                .item("sk", s("S"))
                .send()
                .await
                .expect("put");
        }
        // Dropped without stop(): as after a crash, only what SQLite committed remains.
        std::mem::forget(e);
        std::mem::forget(client);
    }
    let e = Embedded::start(Storage::File(&file))
        .await
        .expect("reopened");
    let client = e.store(TABLE).await.expect("table").client().clone();
    let n = client
        .scan()
        .table_name(TABLE)
        .consistent_read(true)
        .send()
        .await
        .expect("scan")
        .count;
    assert_eq!(n, 20);
}

/// The in-process transport drops `ClientRequestToken` (an answer cannot be lost in-process, and the engine would keep
/// every token for ten minutes and scan them all on each transaction). So a transaction sent twice with one token runs
/// twice: the second, whose condition the first made false, is cancelled instead of replaying the first's success.
/// The engine itself, given the token, replays.
#[tokio::test]
async fn in_process_transactions_keep_no_idempotency_token() {
    let db = dynoxide::Database::memory().expect("db");
    create_tbl(&db);
    let put_once = |pk: &str| {
        format!(
            r#"{{"ClientRequestToken":"token-{pk}","TransactItems":[
            {{"Put":{{"TableName":"tbl","Item":{{"pk":{{"S":"{pk}"}}}},"ConditionExpression":"attribute_not_exists(pk)"}}}}]}}"#
        )
    };
    let target = Some("DynamoDB_20120810.TransactWriteItems");
    let body = put_once("a");
    assert_eq!(handle(&db, target, body.as_bytes()).0, 200);
    let (status, again) = handle(&db, target, body.as_bytes());
    let again: serde_json::Value = serde_json::from_slice(&again).expect("JSON body");
    assert_eq!(status, 400, "{again}");
    assert_eq!(
        again["__type"],
        "com.amazonaws.dynamodb.v20120810#TransactionCanceledException"
    );

    // The engine's own behaviour with the token, for contrast: the re-sent transaction replays the success.
    let request: dynoxide::actions::transact_write_items::TransactWriteItemsRequest =
        serde_json::from_str(&put_once("b")).expect("request");
    assert!(request.client_request_token.is_some());
    db.transact_write_items(request.clone())
        .expect("first commit");
    db.transact_write_items(request)
        .expect("the engine replays a known token");
}

/// Records the `authorization` header of every request an SDK client is about to send.
#[derive(Debug, Clone, Default)]
struct AuthHeaders(std::sync::Arc<std::sync::Mutex<Vec<Option<String>>>>);

impl aws_smithy_runtime_api::client::interceptors::Intercept for AuthHeaders {
    fn name(&self) -> &'static str {
        "AuthHeaders"
    }

    fn read_before_transmit(
        &self,
        context: &aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef<'_>,
        _components: &aws_smithy_runtime_api::client::runtime_components::RuntimeComponents,
        _cfg: &mut aws_smithy_types::config_bag::ConfigBag,
    ) -> Result<(), aws_smithy_runtime_api::box_error::BoxError> {
        let header = context
            .request()
            .headers()
            .get("authorization")
            .map(str::to_owned);
        self.0.lock().map_err(|_| "poisoned")?.push(header);
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_requests_are_sent_unsigned_and_http_ones_signed() {
    let (_e, http, local) = both().await;
    for (name, client) in transports(&http, &local) {
        let seen = AuthHeaders::default();
        let client = Client::from_conf(
            client
                .config()
                .to_builder()
                .interceptor(seen.clone())
                .build(),
        );
        client
            .get_item()
            .table_name(TABLE)
            .key("pk", s("ITEM#none"))
            .key("sk", s("A"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{name}: get: {e:?}"));
        let headers = seen.0.lock().expect("lock").clone();
        assert_eq!(headers.len(), 1, "{name}: one request");
        match name {
            // Nothing leaves the process: no SigV4 work at all.
            "in-process" => assert_eq!(headers[0], None, "in-process request was signed"),
            _ => assert!(
                headers[0]
                    .as_deref()
                    .is_some_and(|h| h.starts_with("AWS4-HMAC-SHA256 ")),
                "{name}: {headers:?}"
            ),
        }
    }
}
