//! SSRF refusals: every refused address form (reliability.md §5.3 items 6-7), literal
//! spellings, schemes, user info, and host names whose DNS answers are internal.

mod common;

use std::time::Duration;

use common::StubResolver;
use specpress_fetch::{AddressClass, FetchError, FetchPolicy, SafeClient, check_url};

fn policy(allow_loopback: bool) -> FetchPolicy {
    FetchPolicy {
        allow_loopback,
        connect_timeout: Duration::from_millis(500),
        total_timeout: Duration::from_secs(2),
        ..FetchPolicy::default()
    }
}

/// URL, normalised address, expected class.
const REFUSED_LITERALS: &[(&str, &str, AddressClass)] = &[
    // Lambda runtime API and loopback spellings.
    (
        "http://127.0.0.1:9001/2018-06-01/runtime/invocation/next",
        "127.0.0.1",
        AddressClass::Loopback,
    ),
    ("http://127.1/", "127.0.0.1", AddressClass::Loopback),
    ("http://0x7f000001/", "127.0.0.1", AddressClass::Loopback),
    ("http://017700000001/", "127.0.0.1", AddressClass::Loopback),
    ("http://2130706433/", "127.0.0.1", AddressClass::Loopback),
    (
        "http://127.255.255.254/",
        "127.255.255.254",
        AddressClass::Loopback,
    ),
    ("http://[::1]/", "::1", AddressClass::Loopback),
    // Cloud metadata, every spelling.
    (
        "http://169.254.169.254/latest/meta-data/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://2852039166/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://0251.0376.0251.0376/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://0xa9fea9fe/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://0xa9.0xfe.0xa9.0xfe/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://169.254.43518/",
        "169.254.169.254",
        AddressClass::LinkLocal,
    ),
    (
        "http://[::ffff:169.254.169.254]/",
        "::ffff:169.254.169.254",
        AddressClass::Ipv4Embedded,
    ),
    (
        "http://[::ffff:a9fe:a9fe]/",
        "::ffff:169.254.169.254",
        AddressClass::Ipv4Embedded,
    ),
    (
        "http://[::ffff:127.0.0.1]/",
        "::ffff:127.0.0.1",
        AddressClass::Ipv4Embedded,
    ),
    (
        "http://[::169.254.169.254]/",
        "::169.254.169.254",
        AddressClass::Ipv4Embedded,
    ),
    (
        "http://[::ffff:0:a9fe:a9fe]/",
        "::ffff:0:a9fe:a9fe",
        AddressClass::Ipv4Embedded,
    ),
    (
        "http://[fd00:ec2::254]/",
        "fd00:ec2::254",
        AddressClass::UniqueLocal,
    ),
    ("http://[fc00::1]/", "fc00::1", AddressClass::UniqueLocal),
    ("http://[fe80::1]/", "fe80::1", AddressClass::LinkLocal),
    ("http://[fec0::1]/", "fec0::1", AddressClass::Private),
    // Unspecified.
    ("http://0/", "0.0.0.0", AddressClass::Unspecified),
    ("http://0.0.0.0:8080/", "0.0.0.0", AddressClass::Unspecified),
    ("http://[::]/", "::", AddressClass::Unspecified),
    // RFC 1918 and CGNAT, including a Redis port.
    ("http://10.0.0.1:6379/", "10.0.0.1", AddressClass::Private),
    ("http://172.16.0.1/", "172.16.0.1", AddressClass::Private),
    (
        "http://172.31.255.255/",
        "172.31.255.255",
        AddressClass::Private,
    ),
    ("http://192.168.1.1/", "192.168.1.1", AddressClass::Private),
    (
        "http://100.64.0.1/",
        "100.64.0.1",
        AddressClass::SharedAddressSpace,
    ),
    (
        "http://100.127.255.255/",
        "100.127.255.255",
        AddressClass::SharedAddressSpace,
    ),
    // Multicast, broadcast, reserved.
    ("http://224.0.0.1/", "224.0.0.1", AddressClass::Multicast),
    (
        "http://239.255.255.250/",
        "239.255.255.250",
        AddressClass::Multicast,
    ),
    ("http://[ff02::1]/", "ff02::1", AddressClass::Multicast),
    (
        "http://255.255.255.255/",
        "255.255.255.255",
        AddressClass::Broadcast,
    ),
    ("http://240.0.0.1/", "240.0.0.1", AddressClass::Reserved),
    ("http://192.0.0.8/", "192.0.0.8", AddressClass::Reserved),
    ("http://[100::1]/", "100::1", AddressClass::Reserved),
    ("http://[5f00::1]/", "5f00::1", AddressClass::Reserved),
    ("http://[4000::1]/", "4000::1", AddressClass::Reserved),
    // Documentation and benchmarking.
    (
        "http://192.0.2.1/",
        "192.0.2.1",
        AddressClass::Documentation,
    ),
    (
        "http://198.51.100.7/",
        "198.51.100.7",
        AddressClass::Documentation,
    ),
    (
        "http://203.0.113.9/",
        "203.0.113.9",
        AddressClass::Documentation,
    ),
    (
        "http://[2001:db8::1]/",
        "2001:db8::1",
        AddressClass::Documentation,
    ),
    ("http://[3fff::1]/", "3fff::1", AddressClass::Documentation),
    (
        "http://198.18.0.1/",
        "198.18.0.1",
        AddressClass::Benchmarking,
    ),
    (
        "http://198.19.255.255/",
        "198.19.255.255",
        AddressClass::Benchmarking,
    ),
    (
        "http://[2001:2::1]/",
        "2001:2::1",
        AddressClass::Benchmarking,
    ),
    // Translation and tunnelling forms.
    (
        "http://[64:ff9b::a9fe:a9fe]/",
        "64:ff9b::a9fe:a9fe",
        AddressClass::Nat64,
    ),
    (
        "http://[64:ff9b:1::a00:1]/",
        "64:ff9b:1::a00:1",
        AddressClass::Nat64,
    ),
    (
        "http://[2002:a9fe:a9fe::1]/",
        "2002:a9fe:a9fe::1",
        AddressClass::Tunnel,
    ),
    (
        "http://[2001::5efe:a9fe:a9fe]/",
        "2001::5efe:a9fe:a9fe",
        AddressClass::Tunnel,
    ),
    ("http://192.88.99.1/", "192.88.99.1", AddressClass::Tunnel),
];

#[tokio::test]
async fn every_refused_address_form_is_refused_without_dns() {
    let dns = StubResolver::new(&[]);
    let client = SafeClient::with_resolver(policy(false), dns.clone()).expect("client");
    for (url, ip, class) in REFUSED_LITERALS {
        let expected_ip: std::net::IpAddr = ip.parse().expect("table ip");
        for result in [
            check_url(url, &policy(false)).map(|_| ()),
            client.get(url).await.map(|_| ()),
        ] {
            match result {
                Err(FetchError::BlockedAddress {
                    ip: got_ip,
                    class: got_class,
                    literal: true,
                    ..
                }) => {
                    assert_eq!(got_ip, expected_ip, "{url}: normalised address");
                    assert_eq!(got_class, *class, "{url}: class");
                }
                other => panic!("{url}: expected a literal BlockedAddress, got {other:?}"),
            }
        }
    }
    assert_eq!(dns.total(), 0, "literals must never reach DNS");
}

#[test]
fn allow_loopback_unlocks_plain_loopback_and_nothing_else() {
    let p = policy(true);
    for url in [
        "http://127.0.0.1:9001/x",
        "http://127.1/",
        "http://[::1]:8080/",
    ] {
        assert!(
            check_url(url, &p).is_ok(),
            "{url} should be allowed with allow_loopback"
        );
    }
    for (url, _, class) in REFUSED_LITERALS {
        if *class == AddressClass::Loopback {
            continue;
        }
        assert!(
            matches!(check_url(url, &p), Err(FetchError::BlockedAddress { .. })),
            "{url} must stay refused with allow_loopback"
        );
    }
}

#[test]
fn public_addresses_and_any_port_pass_the_check() {
    let p = policy(false);
    for url in [
        "https://example.com/openapi.yaml",
        "http://93.184.215.14/",
        "http://8.8.8.8:8443/hook",
        "http://[2606:4700:4700::1111]/",
        "https://example.com:6379/",
        "HTTPS://EXAMPLE.COM/Doc.json",
        "http://172.32.0.1/",
        "http://100.128.0.1/",
    ] {
        assert!(check_url(url, &p).is_ok(), "{url} should pass");
    }
}

#[test]
fn other_schemes_user_info_and_malformed_urls_are_refused() {
    let p = policy(false);
    for url in [
        "gopher://example.com:70/_x",
        "file:///proc/self/environ",
        "ftp://example.com/x",
        "javascript:alert(1)",
        "data:text/plain,hi",
        "ws://example.com/",
    ] {
        assert!(
            matches!(
                check_url(url, &p),
                Err(FetchError::UnsupportedScheme { .. })
            ),
            "{url}"
        );
    }
    for url in [
        "https://user:pass@example.com/",
        "https://user@example.com/",
        "http://:pass@example.com/",
        "http://169.254.169.254@example.com/",
    ] {
        assert_eq!(
            check_url(url, &p).err(),
            Some(FetchError::UserInfo),
            "{url}"
        );
    }
    let long = format!("https://example.com/{}", "a".repeat(9000));
    for url in [
        "",
        "not a url",
        "/relative/path",
        "http://",
        long.as_str(),
        "http://exa mple.com/",
    ] {
        assert!(
            matches!(check_url(url, &p), Err(FetchError::InvalidUrl { .. })),
            "{url:?}"
        );
    }
}

#[tokio::test]
async fn host_names_resolving_to_internal_addresses_are_refused_at_connect() {
    let dns = StubResolver::new(&[
        ("metadata.test", &["169.254.169.254"]),
        ("internal.test", &["10.0.0.5"]),
        ("imds6.test", &["fd00:ec2::254"]),
        ("mapped.test", &["::ffff:10.0.0.1"]),
        ("mixed.test", &["93.184.215.14", "192.168.0.10"]),
        ("localhost", &["127.0.0.1", "::1"]),
    ]);
    let client = SafeClient::with_resolver(policy(false), dns.clone()).expect("client");
    for (host, class) in [
        ("metadata.test", AddressClass::LinkLocal),
        ("internal.test", AddressClass::Private),
        ("imds6.test", AddressClass::UniqueLocal),
        ("mapped.test", AddressClass::Ipv4Embedded),
        ("mixed.test", AddressClass::Private),
        ("localhost", AddressClass::Loopback),
    ] {
        let url = format!("http://{host}:9001/latest/meta-data/");
        let err = client.get(&url).await.expect_err("must be refused");
        match &err {
            FetchError::BlockedAddress {
                class: got,
                literal: false,
                ..
            } => assert_eq!(*got, class, "{host}"),
            other => panic!("{host}: expected BlockedAddress, got {other:?}"),
        }
        // The user learns what was refused, not where the name points.
        let message = err.user_message();
        assert!(
            message.contains(host) && message.contains("non-public"),
            "{message}"
        );
        assert!(
            !message.contains("169.254") && !message.contains("10.0.0"),
            "{message}"
        );
        assert!(err.detail().contains("ip="), "{}", err.detail());
        assert!(err.is_refusal());
        // The registration-time check refuses the same names.
        assert!(matches!(
            client.check_url_resolved(&url).await,
            Err(FetchError::BlockedAddress { .. })
        ));
    }
}

#[tokio::test]
async fn unknown_host_is_a_dns_error_with_a_safe_message() {
    let client = SafeClient::with_resolver(policy(false), StubResolver::new(&[])).expect("client");
    let err = client
        .get("http://nowhere.test/x")
        .await
        .expect_err("fails");
    assert!(matches!(err, FetchError::Dns { .. }), "{err:?}");
    assert_eq!(
        err.user_message(),
        "URL host `nowhere.test` could not be resolved"
    );
    assert!(err.detail().contains("stub"));
}

#[test]
fn literal_refusal_message_names_the_class() {
    let err = check_url("http://2852039166/", &policy(false)).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "URL host `169.254.169.254` is a link-local address; only public internet addresses are allowed"
    );
}

#[tokio::test]
async fn system_resolver_refuses_localhost() {
    // Real resolver: `localhost` resolves to loopback through /etc/hosts.
    let client = SafeClient::new(policy(false)).expect("client");
    let err = client
        .get("http://localhost:9/")
        .await
        .expect_err("refused");
    assert!(
        matches!(
            err,
            FetchError::BlockedAddress {
                class: AddressClass::Loopback,
                ..
            }
        ),
        "{err:?}"
    );
}
