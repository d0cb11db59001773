//! Readers following by email (issue 38) over HTTP, on a real server (127.0.0.1, the embedded DynamoDB engine, the
//! site, deploy and readers routers): the form on documentation, hub and operation pages; double opt-in with a
//! one-button confirmation page; one-click unsubscribe without `Origin` nor cookie; the owner's masked list; 503
//! without mail; a private documentation followed only by a signed-in reader. The mailer is the domain's port
//! answered by a recorder (the transports are `shared/mail`'s).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use specpress_api::{ApiConfig, AppState};
use specpress_domain::ports::{Mail, MailContent, Mailer, Store};
use specpress_domain::usecases::manage;
use specpress_domain::webhooks::SecretSealer;
use specpress_local::embedded::{Embedded, Storage};
use time::OffsetDateTime;

#[derive(Default)]
struct Recorder(Mutex<Vec<Mail>>);

#[async_trait]
impl Mailer for Recorder {
    async fn send(&self, mail: &Mail) -> specpress_domain::Result<()> {
        self.0.lock().unwrap().push(mail.clone());
        Ok(())
    }
    fn describe(&self) -> String {
        "recorder".into()
    }
}

struct Server {
    base: String,
    http: reqwest::Client,
    token: String,
    mails: Arc<Recorder>,
    _db: Embedded,
}

const PETS: &str = r#"{"openapi":"3.0.3","info":{"title":"Pets","version":"1.0"},"paths":{"/pets/{id}":{"get":{"operationId":"getPet","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}"#;

async fn start(with_mail: bool) -> Server {
    let db = Embedded::start(Storage::Memory)
        .await
        .expect("embedded engine");
    let store: Arc<dyn Store> = Arc::new(db.store("specpress").await.expect("table"));
    let engine = Arc::new(specpress_engines::Engines::default());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let mails = Arc::new(Recorder::default());
    let mut state = AppState::new(store.clone(), ApiConfig::new(base.clone()));
    state.sealer = Some(SecretSealer::new(&[5u8; 32]));
    if with_mail {
        state.mailer = Some(mails.clone());
    }
    let app = specpress_api::with_common_layers(
        specpress_site::router(state.clone())
            .merge(specpress_api_readers::router(state.clone()))
            .merge(specpress_api_deploy::router(state, engine)),
    );
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    let (_, token) = manage::create_org(&*store, "Acme", OffsetDateTime::now_utc())
        .await
        .expect("org");
    Server {
        base,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        token: token.secret,
        mails,
        _db: db,
    }
}

impl Server {
    async fn api(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("Authorization", format!("Token {}", self.token));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.expect("API answers");
        let s = r.status().as_u16();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str) -> (u16, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET");
        (r.status().as_u16(), r.text().await.unwrap_or_default())
    }

    /// A form post as a browser on the site's pages sends it (`Origin` = the site).
    async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("POST");
        (r.status().as_u16(), r.text().await.unwrap_or_default())
    }

    /// A post with no `Origin`, no cookie, and the one-click body (RFC 8058), as a mail provider sends it.
    async fn one_click(&self, url: &str) -> (u16, String) {
        let r = self
            .http
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
            .send()
            .await
            .expect("POST");
        (r.status().as_u16(), r.text().await.unwrap_or_default())
    }

    fn take(&self) -> Vec<Mail> {
        std::mem::take(&mut *self.mails.0.lock().unwrap())
    }
}

fn confirm_url(mail: &Mail) -> String {
    match &mail.content {
        MailContent::Confirm(c) => c.confirm_url.clone(),
        other => panic!("not a confirmation: {other:?}"),
    }
}

async fn published(s: &Server) {
    let (st, b) = s
        .api(
            reqwest::Method::POST,
            "/api/v1/hubs",
            Some(json!({"name": "Vets", "slug": "vets"})),
        )
        .await;
    assert_eq!(st, 201, "{b}");
    let (st, b) = s
        .api(
            reqwest::Method::POST,
            "/api/v1/docs",
            Some(json!({"name": "Pets", "slug": "pets", "hub": "vets"})),
        )
        .await;
    assert_eq!(st, 201, "{b}");
    let (st, b) = s
        .api(
            reqwest::Method::POST,
            "/api/v1/versions",
            Some(json!({"documentation": "pets", "definition": PETS})),
        )
        .await;
    assert_eq!(st, 201, "{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_follows_from_the_page_confirms_with_one_click_and_unsubscribes_in_one_post() {
    let s = start(true).await;
    published(&s).await;

    // The form is on the documentation's home, its hub's page, and its operation page (with the operation).
    let (st, home) = s.get("/doc/pets").await;
    assert_eq!(st, 200);
    assert!(home.contains(r#"action="/doc/pets/follow""#), "{home}");
    assert!(home.contains(r#"name="email" type="email""#));
    let (_, hub) = s.get("/hub/vets").await;
    assert!(hub.contains(r#"action="/hub/vets/follow""#));
    let op_href = home
        .split("href=\"")
        .map(|h| h.split('"').next().unwrap_or(""))
        .find(|h| h.starts_with("/doc/pets/operation/"))
        .expect("an operation page link")
        .to_owned();
    let (st, op) = s.get(&op_href).await;
    assert_eq!(st, 200);
    assert!(
        op.contains(r#"<input type="hidden" name="operation" value="GET /pets/{id}">"#),
        "{op}"
    );

    // A cross-site post is refused; a post from the page is answered "check your email".
    let r = s
        .http
        .post(format!("{}/doc/pets/follow", s.base))
        .header("Origin", "https://evil.example")
        .body("email=a%40example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    // A cadence other than release, daily or weekly is a 422 page naming them; nothing is sent.
    let (st, page) = s
        .post_form(
            "/doc/pets/follow",
            &[("email", "reader@example.com"), ("cadence", "hourly")],
        )
        .await;
    assert_eq!(st, 422, "{page}");
    assert!(page.contains("release, daily or weekly"), "{page}");
    assert!(s.take().is_empty());
    let (st, page) = s
        .post_form(
            "/doc/pets/follow",
            &[
                ("email", "Reader@Example.com"),
                ("cadence", "release"),
                ("operation", "GET /pets/{id}"),
            ],
        )
        .await;
    assert_eq!(st, 200, "{page}");
    assert!(page.contains("Check your email"));
    assert!(
        !page.contains("reader@example.com"),
        "the answer never repeats the address"
    );
    let mails = s.take();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "reader@example.com");
    let confirm = confirm_url(&mails[0]);
    assert!(
        confirm.starts_with(&format!("{}/doc/pets/follow/confirm/", s.base)),
        "{confirm}"
    );

    // The owner sees it pending, masked.
    let (st, list) = s
        .api(reqwest::Method::GET, "/api/v1/docs/pets/subscribers", None)
        .await;
    assert_eq!(st, 200, "{list}");
    assert_eq!(list["subscribers"][0]["address"], "r***@e***.com");
    assert_eq!(list["subscribers"][0]["state"], "pending");
    assert_eq!(list["subscribers"][0]["operation"], "GET /pets/{id}");
    assert_eq!(list["counts"]["by_state"]["pending"], 1);

    // Opening the link (what a mail scanner does) confirms nothing: it shows one button posting to itself.
    let path = confirm.strip_prefix(&s.base).unwrap().to_owned();
    let (st, page) = s.get(&path).await;
    assert_eq!(st, 200);
    assert_eq!(page.matches("<button").count(), 1, "{page}");
    assert!(page.contains(&format!(r#"action="{path}""#)));
    let (_, list) = s
        .api(reqwest::Method::GET, "/api/v1/docs/pets/subscribers", None)
        .await;
    assert_eq!(list["subscribers"][0]["state"], "pending");
    let (st, page) = s.post_form(&path, &[]).await;
    assert_eq!(st, 200, "{page}");
    let (_, list) = s
        .api(reqwest::Method::GET, "/api/v1/docs/pets/subscribers", None)
        .await;
    assert_eq!(list["subscribers"][0]["state"], "confirmed");
    assert_eq!(list["counts"]["by_state"]["confirmed"], 1);
    // Single use.
    let (st, _) = s.post_form(&path, &[]).await;
    assert_eq!(st, 404);

    // The manage page (linked from the confirmation) masks the address and offers unsubscribing.
    let token = path.rsplit('/').next().unwrap();
    let manage_href = page
        .split("href=\"")
        .filter_map(|h| h.split('"').next())
        .find(|h| h.starts_with("../manage/"))
        .unwrap_or("")
        .to_owned();
    assert!(manage_href.starts_with("../manage/"), "{page}");
    let manage_token = manage_href.trim_start_matches("../manage/");
    assert_ne!(
        manage_token, token,
        "the confirmation token is not the manage token"
    );
    let (st, manage) = s
        .get(&format!("/doc/pets/follow/manage/{manage_token}"))
        .await;
    assert_eq!(st, 200);
    assert!(manage.contains("r***@e***.com"), "{manage}");
    assert!(!manage.contains("reader@example.com"));

    // One-click unsubscribe: no Origin, no cookie.
    let unsubscribe = format!("{}/doc/pets/follow/unsubscribe/{manage_token}", s.base);
    let (st, page) = s.one_click(&unsubscribe).await;
    assert_eq!(st, 200, "{page}");
    let (_, list) = s
        .api(reqwest::Method::GET, "/api/v1/docs/pets/subscribers", None)
        .await;
    assert_eq!(list["counts"]["total"], 0, "{list}");
    let (st, _) = s.one_click(&unsubscribe).await;
    assert_eq!(st, 200, "a second one-click post answers the same");
    let (st, _) = s
        .get(&format!("/doc/pets/follow/manage/{manage_token}"))
        .await;
    assert_eq!(st, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_lists_and_removes_followers_and_the_form_cannot_probe_or_bomb_an_address() {
    let s = start(true).await;
    published(&s).await;
    // Three confirmation mails a day at most; every answer is the same page. (The client's limit allows a burst of
    // three posts, so the fourth is 429.) A weekly digest is asked for, and the confirmation says so.
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(
            s.post_form(
                "/hub/vets/follow",
                &[("email", "jane@example.org"), ("cadence", "weekly")],
            )
            .await,
        );
    }
    assert!(
        answers
            .iter()
            .all(|(st, p)| *st == 200 && p == &answers[0].1)
    );
    let sent = s.take();
    assert_eq!(sent.len(), 3);
    match &sent[0].content {
        MailContent::Confirm(c) => assert!(c.scope.starts_with("A weekly digest"), "{}", c.scope),
        other => panic!("not a confirmation: {other:?}"),
    }
    let (st, _) = s
        .post_form("/hub/vets/follow", &[("email", "jane@example.org")])
        .await;
    assert_eq!(st, 429);

    let (st, list) = s
        .api(reqwest::Method::GET, "/api/v1/hubs/vets/subscribers", None)
        .await;
    assert_eq!(st, 200, "{list}");
    assert_eq!(list["counts"]["total"], 1);
    assert_eq!(list["subscribers"][0]["address"], "j***@e***.org");
    assert_eq!(list["subscribers"][0]["scope"], "hub");
    assert_eq!(list["subscribers"][0]["cadence"], "weekly");
    let id = list["subscribers"][0]["id"].as_str().unwrap().to_owned();
    // Not a follower of the documentation: 404 there.
    let (st, _) = s
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/docs/pets/subscribers/{id}"),
            None,
        )
        .await;
    assert_eq!(st, 404);
    let (st, _) = s
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/hubs/vets/subscribers/{id}"),
            None,
        )
        .await;
    assert_eq!(st, 204);
    let (_, list) = s
        .api(reqwest::Method::GET, "/api/v1/hubs/vets/subscribers", None)
        .await;
    assert_eq!(list["counts"]["total"], 0);
    let (st, _) = s
        .api(
            reqwest::Method::DELETE,
            &format!("/api/v1/hubs/vets/subscribers/{id}"),
            None,
        )
        .await;
    assert_eq!(st, 404);
    let (st, _) = s
        .api(reqwest::Method::GET, "/api/v1/docs/nope/subscribers", None)
        .await;
    assert_eq!(st, 404);
    let r = s
        .http
        .get(format!("{}/api/v1/docs/pets/subscribers", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_mail_the_form_answers_503_and_a_private_documentation_is_followed_only_signed_in()
{
    let s = start(false).await;
    published(&s).await;
    let (st, page) = s
        .post_form("/doc/pets/follow", &[("email", "a@example.com")])
        .await;
    assert_eq!(st, 503);
    assert!(page.contains("not available"), "{page}");

    let s = start(true).await;
    published(&s).await;
    let (st, b) = s
        .api(
            reqwest::Method::PATCH,
            "/api/v1/docs/pets",
            Some(json!({"visibility": "private"})),
        )
        .await;
    assert_eq!(st, 200, "{b}");
    let (st, _) = s
        .post_form("/doc/pets/follow", &[("email", "a@example.com")])
        .await;
    assert_eq!(
        st, 404,
        "an anonymous reader cannot follow a private documentation"
    );
    let r = s
        .http
        .post(format!("{}/doc/pets/follow", s.base))
        .header("Origin", &s.base)
        .header("Authorization", format!("Token {}", s.token))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("email=a%40example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(s.take().len(), 1);
    // A malformed form is a 422 page; it sends nothing.
    let (st, _) = s.post_form("/hub/vets/follow", &[("email", "nope")]).await;
    assert_eq!(st, 422);
    assert!(s.take().is_empty());
}
