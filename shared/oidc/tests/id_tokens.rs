//! ID token checks a certified provider never lets one see: a provider on 127.0.0.1 that answers the token endpoint
//! with the ID token each test crafts (signed with real RSA keys through openidconnect's own signing code), so every
//! check of the relying party is seen refusing (expired, issued in the future, another audience or issuer, no or
//! another nonce, an unknown key, a forged signature, no signature) and accepting within the clock skew.

use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{Duration, Utc};
use openidconnect::core::{
    CoreGenderClaim, CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm,
    CoreRsaPrivateSigningKey,
};
use openidconnect::{
    AdditionalClaims, Audience, EndUserEmail, IdToken, IdTokenClaims, IssuerUrl, JsonWebKeyId,
    Nonce, PrivateSigningKey, StandardClaims, SubjectIdentifier,
};
use rsa::pkcs1::EncodeRsaPrivateKey;
use serde::{Deserialize, Serialize};
use specpress_domain::mcp::SecretValue;
use specpress_domain::sso::{LoginSecrets, ProviderConfig};
use specpress_oidc::{OidcClient, OidcError};

const CLIENT: &str = "specpress";
const REDIRECT: &str = "http://127.0.0.1:9/sign-in/oidc/callback";
const NONCE: &str = "the-nonce-of-this-sign-in";

/// A claim beside the standard ones: the groups, as any JSON value.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Extra {
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<serde_json::Value>,
}
impl AdditionalClaims for Extra {}

type TestIdToken =
    IdToken<Extra, CoreGenderClaim, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm>;

/// RSA keys are slow to make in a debug build: two, once per test binary.
fn rsa_pem(i: usize) -> String {
    static KEYS: OnceLock<Vec<String>> = OnceLock::new();
    KEYS.get_or_init(|| {
        (0..2)
            .map(|_| {
                let key = rsa::RsaPrivateKey::new(&mut rand08::thread_rng(), 2048).unwrap();
                key.to_pkcs1_pem(rsa::pkcs8::LineEnding::LF)
                    .unwrap()
                    .to_string()
            })
            .collect()
    })[i]
        .clone()
}

fn signing_key(pem: usize, kid: &str) -> CoreRsaPrivateSigningKey {
    CoreRsaPrivateSigningKey::from_pem(&rsa_pem(pem), Some(JsonWebKeyId::new(kid.into()))).unwrap()
}

#[derive(Default)]
struct Shared {
    jwks: Vec<CoreJsonWebKey>,
    id_token: String,
}

/// The provider: discovery, keys and a token endpoint answering the ID token set last.
struct Forge {
    issuer: String,
    shared: Arc<Mutex<Shared>>,
}

async fn forge() -> Forge {
    let shared = Arc::new(Mutex::new(Shared::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let doc = serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/auth"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "email", "groups"],
    });
    let app = Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(move || async move { Json(doc) }),
        )
        .route(
            "/jwks",
            get(|State(s): State<Arc<Mutex<Shared>>>| async move {
                Json(serde_json::json!({"keys": s.lock().unwrap().jwks}))
            }),
        )
        .route(
            "/token",
            post(|State(s): State<Arc<Mutex<Shared>>>| async move {
                Json(serde_json::json!({
                    "access_token": "an-access-token",
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "id_token": s.lock().unwrap().id_token,
                }))
            }),
        )
        .with_state(Arc::clone(&shared));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Forge { issuer, shared }
}

/// What a test changes of a well-formed ID token.
struct Claims {
    issuer: String,
    audiences: Vec<String>,
    expires_in: Duration,
    issued_in: Duration,
    nonce: Option<String>,
    groups: Option<serde_json::Value>,
}

impl Forge {
    fn claims(&self) -> Claims {
        Claims {
            issuer: self.issuer.clone(),
            audiences: vec![CLIENT.into()],
            expires_in: Duration::minutes(5),
            issued_in: Duration::zero(),
            nonce: Some(NONCE.into()),
            groups: None,
        }
    }

    fn publish(&self, keys: &[&CoreRsaPrivateSigningKey]) {
        self.shared.lock().unwrap().jwks = keys.iter().map(|k| k.as_verification_key()).collect();
    }

    fn answer(&self, c: Claims, key: &CoreRsaPrivateSigningKey) {
        let now = Utc::now();
        let standard = StandardClaims::new(SubjectIdentifier::new("ann".into()))
            .set_email(Some(EndUserEmail::new("ann@example.com".into())))
            .set_email_verified(Some(true));
        let claims = IdTokenClaims::new(
            IssuerUrl::new(c.issuer).unwrap(),
            c.audiences.into_iter().map(Audience::new).collect(),
            now + c.expires_in,
            now + c.issued_in,
            standard,
            Extra { groups: c.groups },
        )
        .set_nonce(c.nonce.map(Nonce::new));
        let token = TestIdToken::new(
            claims,
            key,
            CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
            None,
            None,
        )
        .unwrap();
        self.answer_raw(token.to_string());
    }

    fn answer_raw(&self, token: String) {
        self.shared.lock().unwrap().id_token = token;
    }

    fn config(&self, groups: Option<&str>) -> ProviderConfig {
        ProviderConfig {
            issuer: self.issuer.clone(),
            client_id: CLIENT.into(),
            client_secret: SecretValue::new("a-client-secret".into()),
            groups_claim: groups.map(str::to_owned),
        }
    }
}

fn secrets() -> LoginSecrets {
    LoginSecrets {
        state: "state".into(),
        nonce: NONCE.into(),
        pkce_verifier: "v".repeat(43),
    }
}

fn oidc() -> OidcClient {
    OidcClient::new(true).unwrap()
}

async fn refused(oidc: &OidcClient, f: &Forge, what: &str) -> String {
    match oidc
        .identity(&f.config(None), REDIRECT, &secrets(), "code")
        .await
    {
        Err(OidcError::Refused(m)) => m,
        other => panic!("{what}: not refused: {other:?}"),
    }
}

#[tokio::test]
async fn expiry_and_issue_time_are_checked_with_a_small_clock_skew() {
    let f = forge().await;
    let key = signing_key(0, "k1");
    f.publish(&[&key]);
    let oidc = oidc();
    // Well within its life, and expired 30 s ago (inside the skew): accepted.
    for expires_in in [Duration::minutes(5), Duration::seconds(-30)] {
        let mut c = f.claims();
        c.expires_in = expires_in;
        f.answer(c, &key);
        let who = oidc
            .identity(&f.config(None), REDIRECT, &secrets(), "code")
            .await
            .unwrap();
        assert_eq!((who.subject.as_str(), who.email_verified), ("ann", true));
    }
    let mut c = f.claims();
    c.expires_in = Duration::minutes(-5);
    f.answer(c, &key);
    assert!(refused(&oidc, &f, "expired").await.contains("expired"));
    // Issued 30 s ahead of our clock: accepted; ten minutes ahead: refused.
    let mut c = f.claims();
    c.issued_in = Duration::seconds(30);
    f.answer(c, &key);
    oidc.identity(&f.config(None), REDIRECT, &secrets(), "code")
        .await
        .unwrap();
    let mut c = f.claims();
    c.issued_in = Duration::minutes(10);
    c.expires_in = Duration::minutes(20);
    f.answer(c, &key);
    assert!(refused(&oidc, &f, "future iat").await.contains("future"));
}

#[tokio::test]
async fn audience_issuer_and_nonce_must_be_this_sign_in_s() {
    let f = forge().await;
    let key = signing_key(0, "k1");
    f.publish(&[&key]);
    let oidc = oidc();
    type Change = Box<dyn Fn(&mut Claims)>;
    let cases: Vec<(&str, Change)> = vec![
        (
            "another audience",
            Box::new(|c| c.audiences = vec!["someone-else".into()]),
        ),
        (
            "an untrusted extra audience",
            Box::new(|c| c.audiences = vec![CLIENT.into(), "someone-else".into()]),
        ),
        (
            "another issuer",
            Box::new(|c| c.issuer = "https://idp.example.net".into()),
        ),
        ("no nonce", Box::new(|c| c.nonce = None)),
        (
            "another nonce",
            Box::new(|c| c.nonce = Some("replayed".into())),
        ),
    ];
    for (what, change) in cases {
        let mut c = f.claims();
        change(&mut c);
        f.answer(c, &key);
        refused(&oidc, &f, what).await;
    }
}

#[tokio::test]
async fn only_the_provider_s_keys_sign_and_an_unknown_key_is_looked_up_once_more() {
    let f = forge().await;
    let k1 = signing_key(0, "k1");
    let oidc = oidc();
    f.publish(&[&k1]);
    f.answer(f.claims(), &k1);
    oidc.identity(&f.config(None), REDIRECT, &secrets(), "code")
        .await
        .unwrap();
    // The provider rotates to k2: its keys are fetched again and the token is accepted.
    let k2 = signing_key(1, "k2");
    f.publish(&[&k2]);
    f.answer(f.claims(), &k2);
    oidc.identity(&f.config(None), REDIRECT, &secrets(), "code")
        .await
        .unwrap();
    // A key the provider does not publish, even after looking again: refused.
    let stranger = signing_key(0, "k-stranger");
    f.answer(f.claims(), &stranger);
    let m = refused(&oidc, &f, "unknown key").await;
    assert!(m.contains("No matching key"), "{m}");
    // A published key id over another key's signature: refused.
    let impostor = signing_key(0, "k2");
    f.answer(f.claims(), &impostor);
    refused(&oidc, &f, "forged signature").await;
    // No signature at all (`alg: none`), and a payload changed after signing.
    use base64::Engine as _;
    let b64 = |v: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let now = Utc::now().timestamp();
    let payload = serde_json::json!({
        "iss": f.issuer, "aud": CLIENT, "sub": "ann", "exp": now + 300, "iat": now, "nonce": NONCE,
    });
    f.answer_raw(format!(
        "{}.{}.",
        b64(serde_json::json!({"alg": "none"})),
        b64(payload.clone())
    ));
    refused(&oidc, &f, "alg none").await;
    f.answer(f.claims(), &k2);
    let genuine = f.shared.lock().unwrap().id_token.clone();
    let parts: Vec<&str> = genuine.split('.').collect();
    let mut tampered = payload;
    tampered["sub"] = "admin".into();
    f.answer_raw(format!("{}.{}.{}", parts[0], b64(tampered), parts[2]));
    refused(&oidc, &f, "tampered payload").await;
}

#[tokio::test]
async fn groups_are_read_from_the_configured_claim_of_the_verified_token() {
    let f = forge().await;
    let key = signing_key(0, "k1");
    f.publish(&[&key]);
    let oidc = oidc();
    let cases = [
        (
            serde_json::json!(["readers", "staff", 7, ""]),
            vec!["readers", "staff"],
        ),
        (serde_json::json!("readers"), vec!["readers"]),
        (serde_json::json!({"readers": true}), vec![]),
        (serde_json::json!(42), vec![]),
    ];
    for (value, expected) in cases {
        let mut c = f.claims();
        c.groups = Some(value.clone());
        f.answer(c, &key);
        let who = oidc
            .identity(&f.config(Some("groups")), REDIRECT, &secrets(), "code")
            .await
            .unwrap();
        assert_eq!(who.groups, expected, "{value}");
    }
    // Without a configured claim, no groups are read.
    let mut c = f.claims();
    c.groups = Some(serde_json::json!(["readers"]));
    f.answer(c, &key);
    let who = oidc
        .identity(&f.config(None), REDIRECT, &secrets(), "code")
        .await
        .unwrap();
    assert!(who.groups.is_empty());
}
