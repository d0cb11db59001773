//! Runs of workflows built in code (model types) over an in-memory transport that records requests and answers
//! from a script.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Value, json};
use specpress_workflow::model::*;
use specpress_workflow::run::{
    Budget, RunError, Transport, TransportError, WireRequest, WireResponse, run,
};

type Handler =
    Box<dyn Fn(&WireRequest, usize) -> Result<WireResponse, TransportError> + Send + Sync>;

/// A transport that records each request and answers with a closure (given the request and its 0-based number).
struct Fake {
    handler: Handler,
    delay: Duration,
    log: Mutex<Vec<WireRequest>>,
}

impl Fake {
    fn new(
        handler: impl Fn(&WireRequest, usize) -> Result<WireResponse, TransportError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        Fake {
            handler: Box::new(handler),
            delay: Duration::ZERO,
            log: Mutex::new(Vec::new()),
        }
    }

    fn requests(&self) -> Vec<WireRequest> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Transport for Fake {
    async fn send(&self, req: WireRequest) -> Result<WireResponse, TransportError> {
        let n = match self.log.lock() {
            Ok(mut log) => {
                log.push(req.clone());
                log.len() - 1
            }
            Err(_) => return Err(TransportError::Failed("poisoned".into())),
        };
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        (self.handler)(&req, n)
    }
}

fn json_answer(status: u16, body: Value) -> Result<WireResponse, TransportError> {
    Ok(WireResponse {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    })
}

fn header<'a>(req: &'a WireRequest, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn body_json(req: &WireRequest) -> Value {
    req.body
        .as_deref()
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or(Value::Null)
}

fn op(method: &str, path: &str) -> Operation {
    Operation {
        source: Some("api".into()),
        operation_id: None,
        method: method.into(),
        path: path.into(),
        servers: vec![ServerUrl {
            url: "https://api.example.com/v1".into(),
            variables: IndexMap::new(),
        }],
        parameters: vec![],
        body_media_types: vec!["application/json".into()],
        security: vec![],
    }
}

fn step(id: &str, operation: Operation) -> Step {
    Step {
        id: id.into(),
        description: None,
        target: Target::Operation(Box::new(operation)),
        parameters: vec![],
        body: None,
        success_criteria: vec![],
        on_success: vec![],
        on_failure: vec![],
        outputs: IndexMap::new(),
    }
}

fn param(name: &str, location: ParamIn, value: Value) -> StepParameter {
    StepParameter {
        name: name.into(),
        location: Some(location),
        value,
    }
}

fn outputs(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn workflow(id: &str, steps: Vec<Step>) -> Workflow {
    Workflow {
        id: id.into(),
        summary: None,
        description: None,
        inputs: json!({"type": "object"}),
        outputs: IndexMap::new(),
        depends_on: vec![],
        steps,
        success_actions: vec![],
        failure_actions: vec![],
    }
}

fn set(workflows: Vec<Workflow>) -> WorkflowSet {
    WorkflowSet {
        format: Format::Arazzo {
            version: "1.0.1".into(),
        },
        title: "Pets".into(),
        description: None,
        workflows,
        allowed_origins: vec!["https://api.example.com".into()],
        schemes: vec![
            SecurityScheme {
                name: "basic".into(),
                kind: SchemeKind::Basic,
            },
            SecurityScheme {
                name: "bearer".into(),
                kind: SchemeKind::Bearer,
            },
            SecurityScheme {
                name: "cookieKey".into(),
                kind: SchemeKind::ApiKey {
                    location: ParamIn::Cookie,
                    param: "session".into(),
                },
            },
            SecurityScheme {
                name: "headerKey".into(),
                kind: SchemeKind::ApiKey {
                    location: ParamIn::Header,
                    param: "X-Api-Key".into(),
                },
            },
            SecurityScheme {
                name: "queryKey".into(),
                kind: SchemeKind::ApiKey {
                    location: ParamIn::Query,
                    param: "api_key".into(),
                },
            },
        ],
    }
}

fn secrets(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn criterion(context: Option<&str>, condition: &str, kind: CriterionKind) -> Criterion {
    Criterion {
        context: context.map(str::to_string),
        condition: condition.into(),
        kind,
    }
}

fn action(kind: ActionKind, criteria: Vec<Criterion>) -> Action {
    Action {
        name: None,
        kind,
        criteria,
    }
}

#[tokio::test]
async fn a_second_step_uses_the_first_steps_output_in_its_path_and_body() {
    // GIVEN find-pet returning an id, then adopt-pet posting to /pets/{id}/adopt with it
    let mut find = step("find", op("GET", "/pets"));
    find.parameters = vec![
        param("name", ParamIn::Query, json!("$inputs.name")),
        param("limit", ParamIn::Query, json!("$inputs.size")),
    ];
    find.outputs = outputs(&[("petId", "$response.body#/items/0/id")]);
    let mut adopt = step("adopt", op("POST", "/pets/{petId}/adopt"));
    adopt.parameters = vec![param(
        "petId",
        ParamIn::Path,
        json!("$steps.find.outputs.petId"),
    )];
    adopt.body = Some(StepBody {
        content_type: None,
        payload: json!({"pet": "$steps.find.outputs.petId", "note": "for {$inputs.name}", "owner": {"name": "x"}}),
        replacements: vec![("/owner/name".into(), json!("$inputs.owner"))],
    });
    adopt.outputs = outputs(&[("adoption", "$response.body#/adoption")]);
    let mut wf = workflow("adopt-pet", vec![find, adopt]);
    wf.inputs = json!({"type": "object", "properties": {"name": {"type": "string"}, "owner": {"type": "string"},
        "size": {"type": "integer", "default": 20}}});
    wf.outputs = outputs(&[
        ("adoptionId", "$steps.adopt.outputs.adoption"),
        ("status", "$statusCode"),
    ]);
    let transport = Fake::new(|req, n| match n {
        0 => json_answer(200, json!({"items": [{"id": "p/1"}]})),
        _ => json_answer(201, json!({"adoption": 42, "got": req.url})),
    });

    // WHEN it runs
    let outcome = run(
        &set(vec![wf]),
        "adopt-pet",
        json!({"name": "Rex Dog", "owner": "Ann"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN step 2 went to the encoded id with the body built from step 1
    let outcome = outcome.expect("the run succeeds");
    assert_eq!(
        outcome.outputs,
        json!({"adoptionId": 42, "status": 201})
            .as_object()
            .cloned()
            .unwrap_or_default()
    );
    let requests = transport.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(
        requests[0].url,
        "https://api.example.com/v1/pets?name=Rex%20Dog&limit=20"
    );
    assert_eq!(requests[1].method, "POST");
    assert_eq!(
        requests[1].url,
        "https://api.example.com/v1/pets/p%2F1/adopt"
    );
    assert_eq!(
        header(&requests[1], "content-type"),
        Some("application/json")
    );
    assert_eq!(
        body_json(&requests[1]),
        json!({"pet": "p/1", "note": "for Rex Dog", "owner": {"name": "Ann"}})
    );
    assert_eq!(outcome.steps.len(), 2);
    assert!(outcome.steps.iter().all(|s| s.succeeded && s.attempts == 1));
    assert_eq!(outcome.steps[1].status, Some(201));
}

#[tokio::test]
async fn parameters_are_placed_and_encoded_in_query_header_cookie_and_path() {
    // GIVEN a step with one parameter of each place, some needing encoding, one null (not sent)
    let mut s = step("search", op("GET", "/shops/{shop}/items"));
    s.parameters = vec![
        param("shop", ParamIn::Path, json!("a b/c?")),
        param("q", ParamIn::Query, json!("x&y=z")),
        param("tag", ParamIn::Query, json!(["a", "b"])),
        param("limit", ParamIn::Query, json!(10)),
        param("absent", ParamIn::Query, json!("$inputs.absent")),
        param("X-Trace", ParamIn::Header, json!("t-{$inputs.n}")),
        param("pref", ParamIn::Cookie, json!("dark mode")),
        param("lang", ParamIn::Cookie, json!("fr")),
    ];
    let wf = workflow("search", vec![s]);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "search",
        json!({"n": 7}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN each value is where it belongs, encoded for its place
    assert!(result.is_ok(), "{result:?}");
    let req = &transport.requests()[0];
    assert_eq!(
        req.url,
        "https://api.example.com/v1/shops/a%20b%2Fc%3F/items?q=x%26y%3Dz&tag=a&tag=b&limit=10"
    );
    assert_eq!(header(req, "X-Trace"), Some("t-7"));
    assert_eq!(header(req, "Cookie"), Some("pref=dark%20mode; lang=fr"));
    assert_eq!(req.body, None);
}

#[tokio::test]
async fn api_key_bearer_and_basic_secrets_are_injected_and_the_secret_wins() {
    // GIVEN one step per scheme; the bearer step tries to set its own Authorization header
    let secured = |id: &str, scheme: &str| {
        let mut o = op("GET", &format!("/{id}"));
        o.security = vec![vec!["missing".into()], vec![scheme.into()]];
        step(id, o)
    };
    let mut bearer = secured("bearer", "bearer");
    bearer.parameters = vec![param(
        "Authorization",
        ParamIn::Header,
        json!("Bearer attacker"),
    )];
    let steps = vec![
        secured("header", "headerKey"),
        secured("query", "queryKey"),
        secured("cookie", "cookieKey"),
        bearer,
        secured("basic", "basic"),
    ];
    let wf = workflow("all", steps);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));
    let vault = secrets(&[
        ("headerKey", "hk-1"),
        ("queryKey", "q k"),
        ("cookieKey", "ck"),
        ("bearer", "tok"),
        ("basic", "user:pass"),
    ]);

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "all",
        json!({}),
        &vault,
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN each request carries its credential, in its place
    assert!(result.is_ok(), "{result:?}");
    let r = transport.requests();
    assert_eq!(header(&r[0], "X-Api-Key"), Some("hk-1"));
    assert_eq!(r[1].url, "https://api.example.com/v1/query?api_key=q%20k");
    assert_eq!(header(&r[2], "Cookie"), Some("session=ck"));
    assert_eq!(header(&r[3], "Authorization"), Some("Bearer tok"));
    assert_eq!(
        r[3].headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .count(),
        1
    );
    assert_eq!(header(&r[4], "Authorization"), Some("Basic dXNlcjpwYXNz"));
}

#[tokio::test]
async fn a_missing_secret_names_the_scheme_and_sends_nothing() {
    // GIVEN an operation that needs a bearer token, and no secret
    let mut o = op("GET", "/me");
    o.security = vec![vec!["bearer".into()]];
    let wf = workflow("me", vec![step("me", o)]);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "me",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN
    assert_eq!(
        result.err(),
        Some(RunError::MissingSecret {
            scheme: "bearer".into()
        })
    );
    assert!(transport.requests().is_empty());
}

#[tokio::test]
async fn a_request_to_an_origin_outside_the_document_is_refused() {
    // GIVEN a step whose URL is another origin, and one whose URL comes from an input
    let mut evil = op("GET", "https://evil.example.net/steal");
    evil.servers = vec![];
    let mut from_input = op("GET", "{$inputs.base}/steal");
    from_input.servers = vec![];
    let s = set(vec![
        workflow("evil", vec![step("first", evil)]),
        workflow("input", vec![step("second", from_input)]),
    ]);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));

    // WHEN they run
    let evil = run(
        &s,
        "evil",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;
    let input = run(
        &s,
        "input",
        json!({"base": "https://evil.example.net"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN nothing is sent
    assert_eq!(
        evil.err().map(|e| e.to_string()),
        Some("step `first` failed: refused: https://evil.example.net is not one of this document's servers".into())
    );
    let message = input.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with("step `second` failed: refused:"),
        "{message}"
    );
    assert!(transport.requests().is_empty());
}

#[tokio::test]
async fn a_flower_url_template_encodes_its_pieces() {
    // GIVEN an absolute URL template with an input in the path
    let mut o = op("GET", "https://api.example.com/pets/{$inputs.id}/toys");
    o.servers = vec![];
    let mut s = set(vec![workflow("toys", vec![step("toys", o)])]);
    s.format = Format::Flower {
        version: "0.1".into(),
    };
    let transport = Fake::new(|_, _| json_answer(200, json!([])));

    // WHEN it runs with an id holding a slash
    let result = run(
        &s,
        "toys",
        json!({"id": "a/../b"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN the id stays one path segment
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        transport.requests()[0].url,
        "https://api.example.com/pets/a%2F..%2Fb/toys"
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_action_retries_up_to_its_limit_then_the_failure_names_the_step() {
    // GIVEN an API that always answers 503 and a retry of 2 after 1 s
    let mut s = step("flaky", op("GET", "/flaky"));
    s.on_failure = vec![action(
        ActionKind::Retry {
            after_secs: 1.0,
            limit: 2,
        },
        vec![criterion(None, "$statusCode == 503", CriterionKind::Simple)],
    )];
    let wf = workflow("flaky", vec![s]);
    let transport = Fake::new(|_, _| {
        Ok(WireResponse {
            status: 503,
            headers: vec![],
            body: b"busy, try later".to_vec(),
        })
    });
    let started = tokio::time::Instant::now();

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "flaky",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN three tries, two waits, and an error naming the step, its status and the answer
    assert_eq!(transport.requests().len(), 3);
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert_eq!(
        result.err().map(|e| e.to_string()),
        Some("step `flaky` failed: the API answered 503: busy, try later".into())
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_recovers_from_a_transient_failure_and_is_reported_as_one_visit() {
    // GIVEN an API that fails once (network), then answers
    let mut s = step("flaky", op("GET", "/flaky"));
    s.on_failure = vec![action(
        ActionKind::Retry {
            after_secs: 60.0,
            limit: 3,
        },
        vec![],
    )];
    s.outputs = outputs(&[("v", "$response.body#/v")]);
    let mut wf = workflow("flaky", vec![s]);
    wf.outputs = outputs(&[("v", "$steps.flaky.outputs.v")]);
    let transport = Fake::new(|_, n| match n {
        0 => Err(TransportError::Failed("connection reset".into())),
        _ => json_answer(200, json!({"v": "ok"})),
    });

    // WHEN it runs
    let outcome = run(
        &set(vec![wf]),
        "flaky",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN
    assert_eq!(outcome.outputs.get("v"), Some(&json!("ok")));
    assert_eq!(outcome.steps.len(), 1);
    assert_eq!(outcome.steps[0].attempts, 2);
    assert_eq!(outcome.steps[0].status, Some(200));
}

#[tokio::test]
async fn an_endless_goto_loop_ends_at_the_step_run_limit() {
    // GIVEN a step that always goes back to itself
    let mut s = step("poll", op("GET", "/status"));
    s.on_success = vec![action(
        ActionKind::Goto {
            step_id: Some("poll".into()),
            workflow_id: None,
        },
        vec![],
    )];
    let wf = workflow("poll", vec![s]);
    let transport = Fake::new(|_, _| json_answer(200, json!({"status": "pending"})));
    let budget = Budget {
        max_step_runs: 5,
        ..Budget::default()
    };

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "poll",
        json!({}),
        &secrets(&[]),
        &transport,
        &budget,
    )
    .await;

    // THEN it stops, naming the step
    match result {
        Err(RunError::Budget(m)) => {
            assert!(m.contains("limit of 5 step runs at step `poll`"), "{m}")
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
    assert_eq!(transport.requests().len(), 5);
}

#[tokio::test]
async fn a_goto_with_criteria_polls_until_done_then_goes_on() {
    // GIVEN a poll step that loops while pending (action criteria), then a final step
    let mut poll = step("poll", op("GET", "/job"));
    poll.on_success = vec![action(
        ActionKind::Goto {
            step_id: Some("poll".into()),
            workflow_id: None,
        },
        vec![criterion(
            None,
            "$response.body#/status == 'pending'",
            CriterionKind::Simple,
        )],
    )];
    let mut fetch = step("fetch", op("GET", "/job/result"));
    fetch.outputs = outputs(&[("r", "$response.body")]);
    let mut wf = workflow("job", vec![poll, fetch]);
    wf.outputs = outputs(&[("result", "$steps.fetch.outputs.r")]);
    let transport = Fake::new(|req, n| match (req.url.ends_with("/result"), n) {
        (true, _) => json_answer(200, json!("done!")),
        (false, 0 | 1) => json_answer(200, json!({"status": "pending"})),
        (false, _) => json_answer(200, json!({"status": "done"})),
    });

    // WHEN it runs
    let outcome = run(
        &set(vec![wf]),
        "job",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN three polls, then the result
    assert_eq!(transport.requests().len(), 4);
    assert_eq!(outcome.outputs.get("result"), Some(&json!("done!")));
    assert_eq!(
        outcome
            .steps
            .iter()
            .map(|s| s.id.as_str())
            .collect::<Vec<_>>(),
        ["poll", "poll", "poll", "fetch"]
    );
}

#[tokio::test]
async fn success_criteria_of_each_kind_decide_whether_a_step_succeeded() {
    // GIVEN steps with simple, regex and JSONPath criteria that hold
    let mut simple = step("simple", op("GET", "/a"));
    simple.success_criteria = vec![criterion(
        None,
        "$statusCode == 200 && $response.body#/status == 'done' && $response.header.X-Rate < 10",
        CriterionKind::Simple,
    )];
    let mut regex = step("regex", op("GET", "/b"));
    regex.success_criteria = vec![criterion(
        Some("$response.body#/status"),
        "^do(ne)?$",
        CriterionKind::Regex,
    )];
    let mut jsonpath = step("jsonpath", op("GET", "/c"));
    jsonpath.success_criteria = vec![criterion(
        Some("$response.body"),
        "$[?count(@.pets[*]) > 0]",
        CriterionKind::JsonPath,
    )];
    let answer = || {
        Ok(WireResponse {
            status: 200,
            headers: vec![
                (
                    "content-type".into(),
                    "application/json; charset=utf-8".into(),
                ),
                ("X-Rate".into(), "5".into()),
            ],
            body: json!({"status": "done", "pets": [{"id": 1}]})
                .to_string()
                .into_bytes(),
        })
    };
    let ok = Fake::new(move |_, _| answer());
    let wf = workflow("crit", vec![simple, regex, jsonpath]);
    let result = run(
        &set(vec![wf.clone()]),
        "crit",
        json!({}),
        &secrets(&[]),
        &ok,
        &Budget::default(),
    )
    .await;
    assert!(result.is_ok(), "{result:?}");

    // WHEN the JSONPath criterion does not hold (no pets)
    let none = Fake::new(|_, _| json_answer(200, json!({"status": "done", "pets": []})));
    let mut wf2 = wf.clone();
    wf2.steps[0].success_criteria.clear();
    let result = run(
        &set(vec![wf2]),
        "crit",
        json!({}),
        &secrets(&[]),
        &none,
        &Budget::default(),
    )
    .await;

    // THEN the 200 answer is still a failure of that step
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.starts_with(
            "step `jsonpath` failed: the API answered 200 but the success criteria did not hold"
        ),
        "{message}"
    );

    // AND a step without criteria fails on a 404
    let missing = Fake::new(|_, _| json_answer(404, json!({"error": "no such pet"})));
    let wf3 = workflow("plain", vec![step("get", op("GET", "/x"))]);
    let result = run(
        &set(vec![wf3]),
        "plain",
        json!({}),
        &secrets(&[]),
        &missing,
        &Budget::default(),
    )
    .await;
    assert_eq!(
        result.err().map(|e| e.to_string()),
        Some(r#"step `get` failed: the API answered 404: {"error":"no such pet"}"#.into())
    );
}

#[tokio::test]
async fn outputs_and_errors_are_redacted_when_the_api_echoes_the_secret() {
    // GIVEN an API that echoes the request headers and URL in its body
    let echo = |req: &WireRequest, _| {
        let headers: serde_json::Map<String, Value> = req
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json_answer(
            200,
            json!({"headers": headers, "url": req.url, "nested": [{"k": format!("key was {}", req.url)}]}),
        )
    };
    let mut basic = op("GET", "/echo");
    basic.security = vec![vec!["basic".into(), "queryKey".into()]];
    let mut s = step("echo", basic);
    s.outputs = outputs(&[
        ("body", "$response.body"),
        ("sent", "$request.header.Authorization"),
        ("url", "$url"),
    ]);
    let mut wf = workflow("echo", vec![s]);
    wf.outputs = outputs(&[
        ("all", "$steps.echo.outputs.body"),
        ("sent", "$steps.echo.outputs.sent"),
        ("url", "$steps.echo.outputs.url"),
    ]);
    let transport = Fake::new(echo);
    let vault = secrets(&[("basic", "alice:s3cr3t"), ("queryKey", "k/ey")]);

    // WHEN it runs
    let outcome = run(
        &set(vec![wf.clone()]),
        "echo",
        json!({}),
        &vault,
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN no secret, nor a value derived from it, is in the outputs
    let text = serde_json::to_string(&outcome.outputs).unwrap_or_default();
    for leaked in ["s3cr3t", "YWxpY2U6czNjcjN0", "k/ey", "k%2Fey"] {
        assert!(!text.contains(leaked), "{leaked} leaked in {text}");
    }
    assert_eq!(outcome.outputs.get("sent"), Some(&json!("[redacted]")));
    assert!(text.contains("[redacted]"));
    // (the request did carry them)
    assert_eq!(
        header(&transport.requests()[0], "Authorization"),
        Some("Basic YWxpY2U6czNjcjN0")
    );

    // AND an error excerpt of an echoing API is redacted too
    let failing = Fake::new(|req: &WireRequest, _| {
        json_answer(
            500,
            json!({"auth": header(req, "authorization").unwrap_or(""), "url": req.url}),
        )
    });
    let result = run(
        &set(vec![wf]),
        "echo",
        json!({}),
        &vault,
        &failing,
        &Budget::default(),
    )
    .await;
    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("step `echo` failed: the API answered 500"),
        "{message}"
    );
    assert!(
        !message.contains("s3cr3t")
            && !message.contains("YWxpY2U6czNjcjN0")
            && !message.contains("k%2Fey"),
        "{message}"
    );
}

#[tokio::test]
async fn inputs_invalid_against_the_schema_are_refused_before_any_request() {
    // GIVEN a workflow needing an integer `id`
    let mut wf = workflow("get", vec![step("get", op("GET", "/x"))]);
    wf.inputs =
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]});
    let transport = Fake::new(|_, _| json_answer(200, json!({})));

    // WHEN it runs with a string id, then with none and a huge value
    let bad = run(
        &set(vec![wf.clone()]),
        "get",
        json!({"id": "seven"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;
    let huge = "x".repeat(100_000);
    let missing = run(
        &set(vec![wf]),
        "get",
        json!({"other": huge}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN the messages point at the problem, briefly
    match bad {
        Err(RunError::InvalidInputs(m)) => {
            assert!(m.len() == 1 && m[0].starts_with("/id: "), "{m:?}")
        }
        other => panic!("expected invalid inputs, got {other:?}"),
    }
    match missing {
        Err(RunError::InvalidInputs(m)) => {
            assert!(m.iter().any(|x| x.contains("id")), "{m:?}");
            assert!(m.iter().all(|x| x.len() < 400), "{m:?}");
        }
        other => panic!("expected invalid inputs, got {other:?}"),
    }
    assert!(transport.requests().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_run_past_its_deadline_ends_with_a_budget_error() {
    // GIVEN an API that takes 60 s to answer and a 25 s deadline
    let wf = workflow("slow", vec![step("slow", op("GET", "/slow"))]);
    let mut transport = Fake::new(|_, _| json_answer(200, json!({})));
    transport.delay = Duration::from_secs(60);

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "slow",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN
    match result {
        Err(RunError::Budget(m)) => assert!(m.contains("deadline") && m.contains("`slow`"), "{m}"),
        other => panic!("expected a budget error, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_retry_wait_longer_than_what_remains_ends_the_run() {
    // GIVEN a 5 s deadline and a retry after 8 s (capped at 10 s)
    let mut s = step("s", op("GET", "/s"));
    s.on_failure = vec![action(
        ActionKind::Retry {
            after_secs: 8.0,
            limit: 5,
        },
        vec![],
    )];
    let wf = workflow("w", vec![s]);
    let transport = Fake::new(|_, _| json_answer(500, json!({})));
    let budget = Budget {
        deadline: Duration::from_secs(5),
        ..Budget::default()
    };

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "w",
        json!({}),
        &secrets(&[]),
        &transport,
        &budget,
    )
    .await;

    // THEN it stops at once instead of waiting
    match result {
        Err(RunError::Budget(m)) => assert!(m.contains("retry step `s`"), "{m}"),
        other => panic!("expected a budget error, got {other:?}"),
    }
    assert_eq!(transport.requests().len(), 1);
}

#[tokio::test]
async fn a_step_can_call_another_workflow_and_dependencies_run_first() {
    // GIVEN login (a dependency) and lookup (called by a step with an input)
    let mut login_step = step("token", op("POST", "/login"));
    login_step.outputs = outputs(&[("token", "$response.body#/token")]);
    let mut login = workflow("login", vec![login_step]);
    login.outputs = outputs(&[("token", "$steps.token.outputs.token")]);
    let mut get = step("get", op("GET", "/pets/{id}"));
    get.parameters = vec![param("id", ParamIn::Path, json!("$inputs.id"))];
    get.outputs = outputs(&[("name", "$response.body#/name")]);
    let mut lookup = workflow("lookup", vec![get]);
    lookup.inputs = json!({"type": "object", "required": ["id"]});
    lookup.outputs = outputs(&[("name", "$steps.get.outputs.name")]);
    let mut call = step("call", op("GET", "/unused"));
    call.target = Target::Workflow {
        workflow_id: "lookup".into(),
    };
    call.parameters = vec![StepParameter {
        name: "id".into(),
        location: None,
        value: json!("$inputs.petId"),
    }];
    let mut main = workflow("main", vec![call]);
    main.depends_on = vec!["login".into()];
    main.outputs = outputs(&[
        ("name", "$steps.call.outputs.name"),
        ("token", "$workflows.login.outputs.token"),
    ]);
    let transport = Fake::new(|req, _| {
        if req.url.ends_with("/login") {
            json_answer(200, json!({"token": "t1"}))
        } else {
            json_answer(200, json!({"name": "Rex"}))
        }
    });

    // WHEN main runs
    let outcome = run(
        &set(vec![login, lookup, main]),
        "main",
        json!({"petId": 9}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN
    assert_eq!(
        outcome.outputs,
        json!({"name": "Rex", "token": "t1"})
            .as_object()
            .cloned()
            .unwrap_or_default()
    );
    let urls: Vec<String> = transport.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(
        urls,
        [
            "https://api.example.com/v1/login",
            "https://api.example.com/v1/pets/9"
        ]
    );
    let ids: Vec<&str> = outcome.steps.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["login/token", "lookup/get", "call"]);
}

#[tokio::test]
async fn a_form_body_is_url_encoded_and_an_end_action_stops_the_workflow() {
    // GIVEN a form post that ends the workflow, then a step that must not run
    let mut o = op("POST", "/token");
    o.body_media_types = vec!["application/x-www-form-urlencoded".into()];
    let mut s = step("token", o);
    s.body = Some(StepBody {
        content_type: None,
        payload: json!({"grant_type": "password", "username": "$inputs.user", "scope": ["a b", "c"]}),
        replacements: vec![],
    });
    s.on_success = vec![action(ActionKind::End, vec![])];
    let wf = workflow("token", vec![s, step("never", op("GET", "/never"))]);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));

    // WHEN it runs
    let result = run(
        &set(vec![wf]),
        "token",
        json!({"user": "a&b"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN
    assert!(result.is_ok(), "{result:?}");
    let requests = transport.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        header(&requests[0], "Content-Type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        String::from_utf8(requests[0].body.clone().unwrap_or_default()).unwrap_or_default(),
        "grant_type=password&username=a%26b&scope=a%20b&scope=c"
    );
}

#[tokio::test]
async fn a_header_with_a_line_break_or_a_forbidden_name_is_refused() {
    // GIVEN an input that would inject a header
    let mut s = step("s", op("GET", "/s"));
    s.parameters = vec![param("X-Note", ParamIn::Header, json!("$inputs.note"))];
    let mut host = step("h", op("GET", "/h"));
    host.parameters = vec![param("Host", ParamIn::Header, json!("evil.example.net"))];
    let transport = Fake::new(|_, _| json_answer(200, json!({})));
    let s = set(vec![workflow("s", vec![s]), workflow("h", vec![host])]);

    // WHEN they run
    let injected = run(
        &s,
        "s",
        json!({"note": "a\r\nX-Evil: 1"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;
    let host = run(
        &s,
        "h",
        json!({}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await;

    // THEN nothing is sent
    assert!(
        matches!(injected, Err(RunError::Step { ref step, .. }) if step == "s"),
        "{injected:?}"
    );
    assert!(
        matches!(host, Err(RunError::Step { ref step, .. }) if step == "h"),
        "{host:?}"
    );
    assert!(transport.requests().is_empty());
}

#[tokio::test]
async fn an_unknown_workflow_and_a_too_large_answer_are_errors() {
    let wf = workflow("big", vec![step("big", op("GET", "/big"))]);
    let transport = Fake::new(|_, _| json_answer(200, json!("x".repeat(2000))));
    let budget = Budget {
        max_response_bytes: 1000,
        ..Budget::default()
    };
    let s = set(vec![wf]);

    let unknown = run(&s, "nope", json!({}), &secrets(&[]), &transport, &budget).await;
    let big = run(&s, "big", json!({}), &secrets(&[]), &transport, &budget).await;

    assert_eq!(
        unknown.err(),
        Some(RunError::UnknownWorkflow("nope".into()))
    );
    assert_eq!(
        big.err().map(|e| e.to_string()),
        Some("step `big` failed: the answer is larger than 1000 bytes".into())
    );
}

#[tokio::test]
async fn a_loaded_arazzo_document_runs_end_to_end() {
    // GIVEN the loader's Arazzo fixture (create with a bearer token, then fetch with an API key)
    let references = vec![specpress_workflow::load::Reference {
        location: "./petstore.yaml".into(),
        content: include_str!("fixtures/petstore.yaml").into(),
        name: Some("petstore".into()),
    }];
    let set =
        specpress_workflow::load::load(include_str!("fixtures/adopt.arazzo.yaml"), &references)
            .expect("the fixture loads");
    let transport = Fake::new(|req, _| match req.method.as_str() {
        "POST" => json_answer(201, json!({"id": "p 1"})),
        _ => json_answer(200, json!({"id": "p 1", "name": "Rex"})),
    });
    let vault = secrets(&[("bearer", "tok"), ("apiKey", "key")]);

    // WHEN createAndFetch runs
    let outcome = run(
        &set,
        "createAndFetch",
        json!({"name": "Rex"}),
        &vault,
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN
    assert_eq!(
        outcome.outputs.get("pet"),
        Some(&json!({"id": "p 1", "name": "Rex"}))
    );
    let r = transport.requests();
    assert_eq!(r.len(), 2);
    assert_eq!(
        body_json(&r[0]),
        json!({"name": "Rex", "tag": "pet of Rex"})
    );
    assert!(r[1].url.ends_with("/pets/p%201"), "{}", r[1].url);
    assert_eq!(header(&r[0], "Authorization"), Some("Bearer tok"));
    assert_eq!(header(&r[1], "X-API-Key"), Some("key"));
}

#[tokio::test]
async fn a_loaded_flower_document_runs_end_to_end() {
    // GIVEN the loader's Flower fixture: get (goto adopt on 200), adopt
    let set = specpress_workflow::load::load(include_str!("fixtures/pets.flower.yaml"), &[])
        .expect("the fixture loads");
    let transport = Fake::new(|req, _| match req.method.as_str() {
        "GET" => json_answer(200, json!({"id": "a b"})),
        _ => json_answer(201, json!({"status": "adopted"})),
    });

    // WHEN adopt runs
    let outcome = run(
        &set,
        "adopt",
        json!({"petId": "a b", "token": "t"}),
        &secrets(&[]),
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN
    assert_eq!(outcome.outputs.get("status"), Some(&json!("adopted")));
    let r = transport.requests();
    assert_eq!(
        r[0].url,
        "https://api.example.com/v1/pets/a%20b?verbose=true"
    );
    assert_eq!(header(&r[0], "Authorization"), Some("Bearer t"));
    assert_eq!(body_json(&r[1]), json!({"petId": "a b"}));
}

/// An answer with a content type and a text body.
fn text_answer(
    status: u16,
    content_type: &str,
    body: String,
) -> Result<WireResponse, TransportError> {
    Ok(WireResponse {
        status,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: body.into_bytes(),
    })
}

/// Every piece of `secret` of at least `min` characters.
fn pieces(secret: &str, min: usize) -> Vec<&str> {
    (min..=secret.len())
        .flat_map(|len| (0..=secret.len() - len).map(move |s| &secret[s..s + len]))
        .collect()
}

#[tokio::test]
async fn a_secret_the_api_echoes_as_a_json_number_never_reaches_the_outputs() {
    // GIVEN an API key that is a number, and an API that answers it back as a JSON number
    let mut numeric = op("GET", "/pin");
    numeric.security = vec![vec!["queryKey".into()]];
    let mut s = step("pin", numeric);
    s.outputs = outputs(&[("pin", "$response.body#/pin"), ("all", "$response.body")]);
    let mut wf = workflow("pin", vec![s]);
    wf.outputs = outputs(&[
        ("pin", "$steps.pin.outputs.pin"),
        ("all", "$steps.pin.outputs.all"),
    ]);
    let transport = Fake::new(|req: &WireRequest, _| {
        let key = req.url.rsplit("api_key=").next().unwrap_or("0");
        json_answer(
            200,
            serde_json::from_str(&format!("{{\"pin\": {key}, \"list\": [{key}]}}"))
                .unwrap_or_default(),
        )
    });

    // WHEN it runs
    let outcome = run(
        &set(vec![wf]),
        "pin",
        json!({}),
        &secrets(&[("queryKey", "918273645")]),
        &transport,
        &Budget::default(),
    )
    .await
    .expect("the run succeeds");

    // THEN the number is not there
    let text = serde_json::to_string(&outcome.outputs).unwrap_or_default();
    assert!(!text.contains("918273645"), "{text}");
    assert_eq!(outcome.outputs.get("pin"), Some(&json!("[redacted]")));
}

#[tokio::test]
async fn a_failure_excerpt_of_a_page_that_escapes_the_secret_holds_none_of_it() {
    // GIVEN a Basic credential and an API key, and an API whose error page (not JSON) writes them back escaped as
    // frameworks do: `\/` and `\u00XX` (a JavaScript string), HTML entities, percent-encoding, the password alone
    let mut both = op("GET", "/fail");
    both.security = vec![vec!["basic".into(), "queryKey".into()]];
    let wf = workflow("fail", vec![step("fail", both)]);
    let key = "k/ey+QS3cr3t";
    let page = |req: &WireRequest| {
        let url = req.url.replace('/', "\\/");
        format!(
            "<html><script>var u = \"{url}\"; var k = \"k\\u002fey\\u002bQS3cr3t\";</script>\
             <p>key k&#x2F;ey&#43;QS3cr3t, k%2fey%2bQS3cr3t, k&sol;ey&plus;QS3cr3t</p>\
             <p>password: s3cr3t-pw</p><p>auth: {}</p></html>",
            header(req, "authorization").unwrap_or("")
        )
    };
    let transport = Fake::new(move |req: &WireRequest, _| text_answer(500, "text/html", page(req)));

    // WHEN it runs
    let message = run(
        &set(vec![wf]),
        "fail",
        json!({}),
        &secrets(&[("basic", "alice:s3cr3t-pw"), ("queryKey", key)]),
        &transport,
        &Budget::default(),
    )
    .await
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();

    // THEN the excerpt is there, and no spelling of a secret
    assert!(message.contains("the API answered 500"), "{message}");
    for p in pieces(key, 6).into_iter().chain(pieces("s3cr3t-pw", 6)) {
        assert!(!message.contains(p), "{p} in {message}");
    }
    for encoded in [
        "k\\u002fey",
        "k&#x2F;ey",
        "k%2fey",
        "k&sol;ey",
        "YWxpY2U6czNjcjN0LXB3",
    ] {
        assert!(!message.contains(encoded), "{encoded} in {message}");
    }
}

#[tokio::test]
async fn a_refused_url_never_shows_a_piece_of_a_key_in_its_query_whatever_the_inputs_length() {
    // GIVEN a server URL the run refuses (user information) and a key sent in the query, after an input the caller
    // chooses the length of
    let key = "QSECRET_abcdef123456";
    let mut refused_url = op("GET", "/items");
    refused_url.servers = vec![ServerUrl {
        url: "https://user@api.example.com".into(),
        variables: IndexMap::new(),
    }];
    refused_url.security = vec![vec!["queryKey".into()]];
    let mut s = step("list", refused_url);
    s.parameters = vec![param("q", ParamIn::Query, json!("$inputs.q"))];
    let wf = workflow("list", vec![s]);
    let transport = Fake::new(|_, _| json_answer(200, json!({})));
    for len in 0..120 {
        // WHEN it runs with an input of each length
        let message = run(
            &set(vec![wf.clone()]),
            "list",
            json!({"q": "x".repeat(len)}),
            &secrets(&[("queryKey", key)]),
            &transport,
            &Budget::default(),
        )
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        // THEN it is refused, and no piece of the key is in the message
        assert!(message.contains("refused"), "{len}: {message}");
        for p in pieces(key, 4) {
            assert!(!message.contains(p), "{len}: {p} in {message}");
        }
    }
    assert!(transport.requests().is_empty());
}

#[tokio::test]
async fn an_api_that_cuts_what_it_echoes_never_gives_away_a_piece_of_a_key_whatever_the_cut() {
    // GIVEN an API that echoes the first N characters of the URL it was called with (N chosen by the caller)
    let key = "QSECRET_abcdef123456";
    let mut echo = op("GET", "/echo");
    echo.security = vec![vec!["queryKey".into()]];
    let mut s = step("echo", echo);
    s.parameters = vec![param("n", ParamIn::Query, json!("$inputs.n"))];
    s.outputs = outputs(&[("echo", "$response.body#/echo")]);
    let mut wf = workflow("echo", vec![s]);
    wf.outputs = outputs(&[("echo", "$steps.echo.outputs.echo")]);
    let transport = Fake::new(|req: &WireRequest, _| {
        let n: usize = req
            .url
            .split("n=")
            .nth(1)
            .and_then(|r| r.split('&').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let cut: String = req.url.chars().take(n).collect();
        json_answer(200, json!({ "echo": cut }))
    });
    for n in 0..90 {
        // WHEN the caller chooses every cut
        let outcome = run(
            &set(vec![wf.clone()]),
            "echo",
            json!({"n": n}),
            &secrets(&[("queryKey", key)]),
            &transport,
            &Budget::default(),
        )
        .await
        .expect("the run succeeds");
        // THEN what comes back never holds a piece of the key
        let text = serde_json::to_string(&outcome.outputs).unwrap_or_default();
        for p in pieces(key, 4) {
            assert!(!text.contains(p), "{n}: {p} in {text}");
        }
    }
}
