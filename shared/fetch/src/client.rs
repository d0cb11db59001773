//! [`SafeClient`]: the HTTP side of the crate (reqwest with the filtering resolver), behind the default `client`
//! feature. One redirect loop ([`SafeClient::get`] and [`SafeClient::send`] share it) applies the rules of the
//! crate at every hop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, LOCATION};
use http::{HeaderMap, HeaderValue, StatusCode};
use url::{Host, Url};

use crate::resolver::{DnsRefusal, DnsResolve, FilteringResolver, SystemResolver};
use crate::{
    ALLOW_LOOPBACK_ENV, FetchError, FetchPolicy, MAX_URL_LEN, Origin, TimeoutPhase, check_parsed,
    check_url, redirect, running_in_lambda,
};

/// A downloaded document.
#[derive(Debug, Clone)]
pub struct FetchedBody {
    /// Final status (after redirects).
    pub status: StatusCode,
    /// Final response headers.
    pub headers: HeaderMap,
    /// The decompressed body, at most `max_body_bytes`.
    pub bytes: Bytes,
    /// The URL the body came from (after redirects).
    pub final_url: Url,
    /// The body was cut at `max_body_bytes` ([`SafeClient::send_truncating`] only; every other call refuses a
    /// longer body with [`FetchError::BodyTooLarge`]).
    pub truncated: bool,
}

impl FetchedBody {
    /// `Err(FetchError::HttpStatus)` unless the status is 2xx.
    pub fn error_for_status(self) -> Result<Self, FetchError> {
        if self.status.is_success() {
            Ok(self)
        } else {
            Err(FetchError::HttpStatus {
                status: self.status.as_u16(),
            })
        }
    }
}

/// The result of one webhook POST that got an HTTP answer.
#[derive(Debug, Clone)]
pub struct PostOutcome {
    /// Response status.
    pub status: StatusCode,
    /// Response headers (e.g. `Retry-After`).
    pub headers: HeaderMap,
    /// The first `response_prefix_bytes` of the (decompressed) response body, best effort: a
    /// body that fails or stalls mid-way keeps what arrived.
    pub body_prefix: Bytes,
    /// Time from sending the request to receiving the response headers.
    pub latency: Duration,
}

/// One request of [`SafeClient::send`]: any method, the caller's headers and body.
#[derive(Clone, PartialEq, Eq)]
pub struct Outbound {
    /// An HTTP method token (`GET`, `POST`, ...).
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Bytes>,
}

/// Headers and bodies may carry credentials: only the method and URL are shown.
impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound")
            .field("method", &self.method)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// Headers the HTTP stack owns: a caller's value would desynchronise the framing or the target.
const STACK_HEADERS: [&str; 8] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "proxy-connection",
];

/// What a body longer than `max_body_bytes` gets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BodyCap {
    /// [`FetchError::BodyTooLarge`].
    Refuse,
    /// Cut at the cap ([`FetchedBody::truncated`]).
    Truncate,
}

/// The hardened client. Cheap to clone (shares the connection pool); build it once per process.
#[derive(Clone)]
pub struct SafeClient {
    client: reqwest::Client,
    resolver: Arc<FilteringResolver>,
    policy: FetchPolicy,
}

impl std::fmt::Debug for SafeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeClient")
            .field("policy", &self.policy)
            .finish()
    }
}

fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(e) = source {
        parts.push(e.to_string());
        source = e.source();
    }
    parts.join(": ")
}

fn find_refusal<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a DnsRefusal> {
    let mut current: Option<&'a (dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(r) = e.downcast_ref::<DnsRefusal>() {
            return Some(r);
        }
        current = e.source();
    }
    None
}

fn refusal_to_error(r: &DnsRefusal) -> FetchError {
    match r {
        DnsRefusal::Blocked { host, ip, class } => FetchError::BlockedAddress {
            host: host.clone(),
            ip: *ip,
            class: *class,
            literal: false,
        },
        DnsRefusal::NoAddress { host, detail } => FetchError::Dns {
            host: host.clone(),
            detail: detail.clone(),
        },
    }
}

impl SafeClient {
    /// A client with the system resolver.
    pub fn new(policy: FetchPolicy) -> Result<Self, FetchError> {
        Self::with_resolver(policy, Arc::new(SystemResolver))
    }

    /// A client with a custom DNS source (tests make names resolve to chosen addresses). The
    /// answers still go through the address filter.
    pub fn with_resolver(
        policy: FetchPolicy,
        resolver: Arc<dyn DnsResolve>,
    ) -> Result<Self, FetchError> {
        let mut policy = policy;
        if policy.allow_loopback && running_in_lambda() {
            // Safety net for a misconfigured deployment: inside Lambda, loopback hosts the
            // runtime API (127.0.0.1:9001), which hands out invocation events and accepts
            // responses. Local development never runs here.
            tracing::warn!(
                "{ALLOW_LOOPBACK_ENV} is ignored inside AWS Lambda; loopback stays refused"
            );
            policy.allow_loopback = false;
        }
        let filtering = Arc::new(FilteringResolver {
            inner: resolver,
            allow_loopback: policy.allow_loopback,
        });
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::clone(&filtering))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .retry(reqwest::retry::never())
            .referer(false)
            .connect_timeout(policy.connect_timeout)
            .user_agent(concat!("Specpress/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::ClientSetup {
                detail: error_chain(&e),
            })?;
        Ok(Self {
            client,
            resolver: filtering,
            policy,
        })
    }

    /// The policy this client enforces (`allow_loopback` is `false` inside AWS Lambda whatever
    /// was asked).
    pub fn policy(&self) -> &FetchPolicy {
        &self.policy
    }

    /// [`check_url`] under this client's policy.
    pub fn check_url(&self, url: &str) -> Result<Url, FetchError> {
        check_url(url, &self.policy)
    }

    /// [`check_url`] plus a DNS check of host names through the filtering resolver, for early
    /// feedback at registration. This is advisory (DNS can change later): every request is
    /// checked again when it connects.
    pub async fn check_url_resolved(&self, url: &str) -> Result<Url, FetchError> {
        let url = self.check_url(url)?;
        if let Some(Host::Domain(d)) = url.host() {
            let lookup = self.resolver.resolve_checked(d);
            match tokio::time::timeout(self.policy.connect_timeout, lookup).await {
                Ok(Ok(_)) => {}
                Ok(Err(r)) => return Err(refusal_to_error(&r)),
                Err(_) => {
                    return Err(FetchError::Timeout {
                        phase: TimeoutPhase::Connect,
                        after: self.policy.connect_timeout,
                    });
                }
            }
        }
        Ok(url)
    }

    fn map_error(&self, err: reqwest::Error, url: &Url) -> FetchError {
        // The HTTP stack's messages name the URL, whose query may carry a credential (an API key in the query, a
        // webhook receiver's token): the details that reach logs never do.
        let err = err.without_url();
        if let Some(r) = find_refusal(&err) {
            return refusal_to_error(r);
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        if err.is_timeout() {
            return FetchError::Timeout {
                phase: if err.is_connect() {
                    TimeoutPhase::Connect
                } else {
                    TimeoutPhase::Total
                },
                after: if err.is_connect() {
                    self.policy.connect_timeout
                } else {
                    self.policy.total_timeout
                },
            };
        }
        if err.is_connect() {
            return FetchError::Connect {
                host,
                detail: error_chain(&err),
            };
        }
        FetchError::Transport {
            detail: error_chain(&err),
        }
    }

    /// Downloads `url` (GET), following at most `max_redirects` re-checked redirects, within
    /// the total timeout, with the body capped after decompression. Any final status is
    /// returned; see [`FetchedBody::error_for_status`].
    pub async fn get(&self, url: &str) -> Result<FetchedBody, FetchError> {
        let request = Outbound {
            method: "GET".to_owned(),
            url: url.to_owned(),
            headers: Vec::new(),
            body: None,
        };
        self.within_budget(self.exchange(request, None, BodyCap::Refuse))
            .await
    }

    /// Runs `work` within the total timeout.
    async fn within_budget(
        &self,
        work: impl std::future::Future<Output = Result<FetchedBody, FetchError>>,
    ) -> Result<FetchedBody, FetchError> {
        let budget = self.policy.total_timeout;
        match tokio::time::timeout(budget, work).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout {
                phase: TimeoutPhase::Total,
                after: budget,
            }),
        }
    }

    fn next_hop(&self, current: &Url, location: Option<&HeaderValue>) -> Result<Url, FetchError> {
        let location =
            location
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| FetchError::BadRedirect {
                    reason: "redirect without a readable Location".to_owned(),
                })?;
        if location.len() > MAX_URL_LEN {
            return Err(FetchError::BadRedirect {
                reason: "redirect Location too long".to_owned(),
            });
        }
        let next = current
            .join(location)
            .map_err(|_| FetchError::BadRedirect {
                reason: "redirect Location is not a valid URL".to_owned(),
            })?;
        let next = check_parsed(next, &self.policy)?;
        if current.scheme() == "https" && next.scheme() == "http" {
            return Err(FetchError::BadRedirect {
                reason: "redirect from https to http".to_owned(),
            });
        }
        Ok(next)
    }

    async fn read_body(
        &self,
        mut response: reqwest::Response,
        final_url: Url,
        cap: BodyCap,
    ) -> Result<FetchedBody, FetchError> {
        let limit = self.policy.max_body_bytes;
        // Without content coding the declared length is the body length: refuse early. With
        // content coding the HTTP stack decompresses and hides the length; the streaming count
        // below is the real guard.
        if let Some(declared) = response.content_length()
            && declared > limit
            && cap == BodyCap::Refuse
        {
            return Err(FetchError::BodyTooLarge { limit });
        }
        let status = response.status();
        let headers = response.headers().clone();
        let mut body: Vec<u8> = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.map_error(e, &final_url))?
        {
            let new_len = u64::try_from(body.len().saturating_add(chunk.len())).unwrap_or(u64::MAX);
            if new_len > limit {
                if cap == BodyCap::Refuse {
                    return Err(FetchError::BodyTooLarge { limit });
                }
                let room = usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .saturating_sub(body.len());
                body.extend_from_slice(&chunk[..room.min(chunk.len())]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(FetchedBody {
            status,
            headers,
            bytes: Bytes::from(body),
            final_url,
            truncated,
        })
    }

    /// Sends one request of any method to a URL on one of `allowed_origins` (see [`Origin`]), following at
    /// most `max_redirects` redirects that stay on them (each re-checked like a new URL; 303, and 301/302 of a
    /// request other than GET/HEAD, continue as a GET without body, as browsers do), within the total timeout,
    /// the body capped after decompression. Any final status is returned. The rules of the module apply to every
    /// hop; a URL or redirect off the allowed origins is [`FetchError::OriginNotAllowed`] before any connection,
    /// and a hop to another of them carries none of the request's credentials ([`redirect`]).
    pub async fn send(
        &self,
        request: Outbound,
        allowed_origins: &[String],
    ) -> Result<FetchedBody, FetchError> {
        self.send_with(request, allowed_origins, BodyCap::Refuse)
            .await
    }

    /// [`SafeClient::send`], but a body longer than `max_body_bytes` is cut there (its first `max_body_bytes`
    /// bytes, [`FetchedBody::truncated`] set) instead of refused: for showing an answer to a person (the "Try it"
    /// proxy), where the start of a large answer is still worth reading. The download stops at the cap.
    pub async fn send_truncating(
        &self,
        request: Outbound,
        allowed_origins: &[String],
    ) -> Result<FetchedBody, FetchError> {
        self.send_with(request, allowed_origins, BodyCap::Truncate)
            .await
    }

    async fn send_with(
        &self,
        request: Outbound,
        allowed_origins: &[String],
        cap: BodyCap,
    ) -> Result<FetchedBody, FetchError> {
        self.within_budget(self.exchange(request, Some(allowed_origins), cap))
            .await
    }

    /// The one redirect loop: sends `request`, and while the answer is a redirect (and `max_redirects` allows one
    /// more), checks the next hop like a new URL (and against `allowed_origins` when given), drops the caller's
    /// credentials when it leaves the origin ([`redirect`]), and sends again: 307 and 308 keep the method and body,
    /// 303 (and 301/302 of a request other than GET/HEAD) continue as a GET without body, as browsers do.
    async fn exchange(
        &self,
        request: Outbound,
        allowed_origins: Option<&[String]>,
        cap: BodyCap,
    ) -> Result<FetchedBody, FetchError> {
        let allowed = |url: &Url| -> Result<(), FetchError> {
            let origin = Origin::of(url);
            match allowed_origins {
                Some(list) if !origin.is_among(list) => Err(FetchError::OriginNotAllowed {
                    origin: origin.into_string(),
                }),
                _ => Ok(()),
            }
        };
        let mut method = http::Method::from_bytes(request.method.as_bytes()).map_err(|_| {
            FetchError::InvalidUrl {
                reason: format!("`{}` is not an HTTP method", request.method),
            }
        })?;
        let mut headers = HeaderMap::new();
        for (name, value) in &request.headers {
            let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                FetchError::InvalidUrl {
                    reason: format!("`{name}` is not a valid header name"),
                }
            })?;
            if STACK_HEADERS.contains(&name.as_str()) {
                continue;
            }
            let value = HeaderValue::from_str(value).map_err(|_| FetchError::InvalidUrl {
                reason: format!("the value of header `{name}` is not valid in HTTP"),
            })?;
            headers.append(name, value);
        }
        let mut body = request.body;
        let mut current = self.check_url(&request.url)?;
        allowed(&current)?;
        // What the caller's query string carried: never repeated to another origin.
        let sent_query = redirect::query_values(&current);
        let mut hops = 0u32;
        loop {
            let mut builder = self
                .client
                .request(method.clone(), current.clone())
                .headers(headers.clone());
            if let Some(b) = &body {
                builder = builder.body(b.clone());
            }
            let response = builder
                .send()
                .await
                .map_err(|e| self.map_error(e, &current))?;
            let status = response.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) || self.policy.max_redirects == 0 {
                return self.read_body(response, current, cap).await;
            }
            hops += 1;
            if hops > self.policy.max_redirects {
                return Err(FetchError::TooManyRedirects {
                    max: self.policy.max_redirects,
                });
            }
            let mut next = self.next_hop(&current, response.headers().get(LOCATION))?;
            allowed(&next)?;
            if Origin::of(&next) != Origin::of(&current) {
                redirect::keep_safe_headers(&mut headers);
                redirect::drop_repeated_query(&mut next, &sent_query);
            }
            let keeps_method = matches!(status, 307 | 308)
                || (matches!(status, 301 | 302)
                    && (method == http::Method::GET || method == http::Method::HEAD));
            if !keeps_method {
                method = http::Method::GET;
                body = None;
                headers.remove(CONTENT_TYPE);
            }
            current = next;
        }
    }

    /// POSTs `body` to `url` with `headers` (a JSON content type is added unless given), never
    /// following redirects, within `timeout` (webhooks: 15 s). Any HTTP answer is an `Ok`
    /// outcome (the caller classifies the status); refusals, DNS, connect and timeout failures
    /// are errors.
    pub async fn post_json(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: impl Into<Bytes>,
        timeout: Duration,
    ) -> Result<PostOutcome, FetchError> {
        let url = self.check_url(url)?;
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let mut request = self
            .client
            .post(url.clone())
            .headers(headers.clone())
            .body(body.into());
        if !headers.contains_key(CONTENT_TYPE) {
            request = request.header(CONTENT_TYPE, "application/json");
        }
        let mut response = match tokio::time::timeout_at(deadline, request.send()).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(self.map_error(e, &url)),
            Err(_) => {
                return Err(FetchError::Timeout {
                    phase: TimeoutPhase::Total,
                    after: timeout,
                });
            }
        };
        let latency = started.elapsed();
        let status = response.status();
        let response_headers = response.headers().clone();
        let cap = self.policy.response_prefix_bytes;
        let mut prefix: Vec<u8> = Vec::new();
        // Best effort: the status is what the delivery log needs; a stalled or broken body keeps
        // what arrived before the deadline.
        while prefix.len() < cap {
            match tokio::time::timeout_at(deadline, response.chunk()).await {
                Ok(Ok(Some(chunk))) => {
                    let take = chunk.len().min(cap - prefix.len());
                    prefix.extend_from_slice(&chunk[..take]);
                }
                Ok(Ok(None)) | Ok(Err(_)) | Err(_) => break,
            }
        }
        Ok(PostOutcome {
            status,
            headers: response_headers,
            body_prefix: Bytes::from(prefix),
            latency,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_hops_resolve_relative_locations_and_refuse_downgrades() {
        let client = SafeClient::new(FetchPolicy::default()).expect("client");
        let here = Url::parse("https://docs.example.com/v1/openapi.yaml").expect("url");
        let next = client
            .next_hop(&here, Some(&HeaderValue::from_static("../v2/openapi.yaml")))
            .expect("relative hop");
        assert_eq!(next.as_str(), "https://docs.example.com/v2/openapi.yaml");
        assert!(matches!(
            client.next_hop(
                &here,
                Some(&HeaderValue::from_static("http://docs.example.com/x"))
            ),
            Err(FetchError::BadRedirect { .. })
        ));
        assert!(matches!(
            client.next_hop(
                &here,
                Some(&HeaderValue::from_static("https://u:p@docs.example.com/"))
            ),
            Err(FetchError::UserInfo)
        ));
        assert!(matches!(
            client.next_hop(&here, None),
            Err(FetchError::BadRedirect { .. })
        ));
        let plain = Url::parse("http://docs.example.com/").expect("url");
        assert!(
            client
                .next_hop(
                    &plain,
                    Some(&HeaderValue::from_static("https://docs.example.com/"))
                )
                .is_ok(),
            "upgrades are fine"
        );
    }
}
