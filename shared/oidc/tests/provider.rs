//! The relying party against a real OpenID provider run locally: npm `oidc-provider` (tests/oidc/provider.mjs) on
//! 127.0.0.1, its development login driven over HTTP as a browser would (cookies, forms, no redirect followed
//! blindly). Node resolves the package from `SPECPRESS_NODE_MODULES` or `<repo>/.tools/npm/node_modules`
//! (scripts/install-tools.sh installs it there), found through `specpress_testkit::Tool::NodeModules`: when it is
//! missing, the tests fail under `CI=true` and are reported as ignored otherwise.

use specpress_domain::mcp::SecretValue;
use specpress_domain::sso::{LoginSecrets, ProviderConfig};
use specpress_oidc::{OidcClient, OidcError};
use specpress_testkit::oidc::OidcProvider;

const CLIENT_ID: &str = "specpress";
const CLIENT_SECRET: &str = "a-client-secret-long-enough-for-hs256";
const REDIRECT: &str = "http://127.0.0.1:9/sign-in/oidc/callback";

/// A running provider (the test kit's), with this file's client and accounts.
struct Provider(OidcProvider);

impl std::ops::Deref for Provider {
    type Target = OidcProvider;
    fn deref(&self) -> &OidcProvider {
        &self.0
    }
}

impl Provider {
    /// Starts the provider (the tools' Node modules must hold `oidc-provider`).
    fn start() -> Provider {
        let accounts = serde_json::json!({
            "ann@example.com": {"groups": ["readers", "staff"]},
            "bob@example.com": {"email_verified": false},
        });
        Provider(OidcProvider::start(
            &serde_json::json!({
                "clients": [{"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "redirect_uris": [REDIRECT]}],
                "accounts": accounts,
            })
            .to_string(),
        ))
    }

    /// Signs with a new key from now on; its `kid`.
    fn rotate(&mut self) -> String {
        self.0.rotate()
    }

    fn config(&self, groups_claim: Option<&str>) -> ProviderConfig {
        ProviderConfig {
            issuer: self.issuer.clone(),
            client_id: CLIENT_ID.into(),
            client_secret: SecretValue::new(CLIENT_SECRET.into()),
            groups_claim: groups_claim.map(str::to_owned),
        }
    }
}

/// What the provider sent the browser back to the redirect URI with.
struct Callback {
    code: String,
    state: String,
    iss: Option<String>,
}

fn query_of(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Drives the provider's development login and consent as a browser: follows each redirect by hand, fills the
/// login form with `login`, confirms the consent, and stops at the redirect back to Specpress.
async fn browser_login(provider: &Provider, authorization_url: &str, login: &str) -> Callback {
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let base = url::Url::parse(&provider.issuer).unwrap();
    let mut next = url::Url::parse(authorization_url).unwrap();
    for _ in 0..12 {
        let r = browser.get(next.clone()).send().await.unwrap();
        let status = r.status();
        if status.is_redirection() {
            let location = r.headers()["location"].to_str().unwrap().to_owned();
            let target = next.join(&location).unwrap();
            if target.as_str().starts_with(REDIRECT) {
                return Callback {
                    code: query_of(&target, "code").expect("a code"),
                    state: query_of(&target, "state").expect("the state"),
                    iss: query_of(&target, "iss"),
                };
            }
            next = target;
            continue;
        }
        assert_eq!(status, 200, "at {next}");
        let page = r.text().await.unwrap();
        // An interaction page: the login form first, then the consent.
        let form: Vec<(&str, &str)> = if page.contains(r#"name="prompt" value="login""#) {
            vec![("prompt", "login"), ("login", login), ("password", "any")]
        } else {
            vec![("prompt", "consent")]
        };
        let r = browser
            .post(base.join(next.path()).unwrap())
            .form(&form)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_redirection(), "form answered {}", r.status());
        next = next
            .join(r.headers()["location"].to_str().unwrap())
            .unwrap();
    }
    panic!("the provider never sent the browser back");
}

fn client() -> OidcClient {
    OidcClient::new(true).expect("client")
}

#[tokio::test]
#[cfg_attr(
    missing_node_modules,
    ignore = "needs the tools' Node modules with oidc-provider (scripts/install-tools.sh)"
)]
async fn a_reader_signs_in_through_a_real_provider_with_pkce_state_and_nonce() {
    let p = Provider::start();
    let oidc = client();
    let config = p.config(Some("groups"));
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let parsed = url::Url::parse(&url).unwrap();
    assert!(url.starts_with(&format!("{}/auth?", p.issuer)), "{url}");
    assert_eq!(query_of(&parsed, "response_type").as_deref(), Some("code"));
    assert_eq!(query_of(&parsed, "client_id").as_deref(), Some(CLIENT_ID));
    assert_eq!(query_of(&parsed, "redirect_uri").as_deref(), Some(REDIRECT));
    assert_eq!(
        query_of(&parsed, "code_challenge_method").as_deref(),
        Some("S256")
    );
    assert_eq!(query_of(&parsed, "state"), Some(secrets.state.clone()));
    assert_eq!(query_of(&parsed, "nonce"), Some(secrets.nonce.clone()));
    let scopes = query_of(&parsed, "scope").unwrap();
    let scopes: Vec<&str> = scopes.split(' ').collect();
    assert!(
        scopes.contains(&"openid") && scopes.contains(&"email") && scopes.contains(&"groups"),
        "{scopes:?}"
    );
    assert!(
        !url.contains(&secrets.pkce_verifier),
        "the verifier never leaves"
    );
    assert!(
        secrets.state.len() >= 16 && secrets.nonce.len() >= 16 && secrets.pkce_verifier.len() >= 43
    );

    let back = browser_login(&p, &url, "ann@example.com").await;
    assert_eq!(back.state, secrets.state, "the provider returns the state");
    assert_eq!(back.iss.as_deref(), Some(p.issuer.as_str()));
    let who = oidc
        .identity(&config, REDIRECT, &secrets, &back.code)
        .await
        .unwrap();
    assert_eq!(who.subject, "ann@example.com");
    assert_eq!(who.email.as_deref(), Some("ann@example.com"));
    assert!(who.email_verified);
    assert_eq!(who.groups, ["readers", "staff"]);

    // An address the provider has not verified is reported as such; without a groups claim, no groups.
    let plain = p.config(None);
    let (url, secrets) = oidc.authorization(&plain, REDIRECT).await.unwrap();
    assert!(
        !query_of(&url::Url::parse(&url).unwrap(), "scope")
            .unwrap()
            .contains("groups")
    );
    let back = browser_login(&p, &url, "bob@example.com").await;
    let who = oidc
        .identity(&plain, REDIRECT, &secrets, &back.code)
        .await
        .unwrap();
    assert_eq!(who.email.as_deref(), Some("bob@example.com"));
    assert!(!who.email_verified);
    assert!(who.groups.is_empty());
}

#[tokio::test]
#[cfg_attr(
    missing_node_modules,
    ignore = "needs the tools' Node modules with oidc-provider (scripts/install-tools.sh)"
)]
async fn a_code_needs_its_verifier_its_nonce_the_right_secret_and_works_once() {
    let p = Provider::start();
    let oidc = client();
    let config = p.config(None);
    let refused = |r: Result<_, OidcError>| matches!(r, Err(OidcError::Refused(_)));

    // Another PKCE verifier: the token endpoint refuses the code.
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    let wrong_verifier = LoginSecrets {
        pkce_verifier: "x".repeat(64),
        ..secrets.clone()
    };
    assert!(refused(
        oidc.identity(&config, REDIRECT, &wrong_verifier, &back.code)
            .await
    ));

    // Another nonce: the ID token is refused.
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    let wrong_nonce = LoginSecrets {
        nonce: "not-the-nonce-of-this-sign-in".into(),
        ..secrets.clone()
    };
    let e = oidc
        .identity(&config, REDIRECT, &wrong_nonce, &back.code)
        .await;
    assert!(
        matches!(&e, Err(OidcError::Refused(m)) if m.contains("nonce")),
        "{e:?}"
    );

    // The right verifier and nonce, but a wrong client secret: refused by the token endpoint.
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    let mut bad_secret = config.clone();
    bad_secret.client_secret = SecretValue::new("not-the-secret".into());
    assert!(refused(
        oidc.identity(&bad_secret, REDIRECT, &secrets, &back.code)
            .await
    ));

    // A fresh code works once, and only once.
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    oidc.identity(&config, REDIRECT, &secrets, &back.code)
        .await
        .unwrap();
    assert!(refused(
        oidc.identity(&config, REDIRECT, &secrets, &back.code).await
    ));
}

#[tokio::test]
#[cfg_attr(
    missing_node_modules,
    ignore = "needs the tools' Node modules with oidc-provider (scripts/install-tools.sh)"
)]
async fn rotated_signing_keys_are_fetched_again_when_a_token_names_an_unknown_kid() {
    let mut p = Provider::start();
    let oidc = client();
    let config = p.config(None);
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    oidc.identity(&config, REDIRECT, &secrets, &back.code)
        .await
        .unwrap();
    // The provider now signs with a key the relying party's remembered keys do not hold.
    let kid = p.rotate();
    assert!(kid.starts_with("test-key-2-"));
    let (url, secrets) = oidc.authorization(&config, REDIRECT).await.unwrap();
    let back = browser_login(&p, &url, "ann@example.com").await;
    let who = oidc
        .identity(&config, REDIRECT, &secrets, &back.code)
        .await
        .unwrap();
    assert_eq!(who.subject, "ann@example.com");
}

#[tokio::test]
#[cfg_attr(
    missing_node_modules,
    ignore = "needs the tools' Node modules with oidc-provider (scripts/install-tools.sh)"
)]
async fn the_issuer_must_be_the_document_s_and_loopback_needs_the_switch() {
    let p = Provider::start();
    let mut other = p.config(None);
    other.issuer = format!("{}/", p.issuer);
    let e = client().authorization(&other, REDIRECT).await.unwrap_err();
    assert!(
        matches!(&e, OidcError::Provider(m) if m.contains("discovery")),
        "{e:?}"
    );
    // Without SPECPRESS_ALLOW_LOOPBACK_URLS the provider on 127.0.0.1 is never contacted.
    let strict = OidcClient::new(false).unwrap();
    let e = strict
        .authorization(&p.config(None), REDIRECT)
        .await
        .unwrap_err();
    assert!(
        matches!(&e, OidcError::Provider(m) if m.contains("loopback")),
        "{e:?}"
    );
}
