//! The TXT resolver against a real DNS server on 127.0.0.1 (`tests/dns/zone.py`, Python's `dnslib`), named the
//! way `SPECPRESS_DNS_RESOLVER` names it. The zone is a JSON file the server reads on every query, so a test changes
//! records between lookups as an owner changes DNS.
//!
//! Python is the tools' (`specpress_testkit::Tool::Python`; scripts/install-tools.sh installs `dnslib` there): when
//! it or `dnslib` is missing, the tests fail under `CI=true` and are reported as ignored otherwise.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::json;
use specpress_dns::DnsTxt;
use specpress_domain::DomainError;
use specpress_domain::model::Visibility;
use specpress_domain::ports::TxtResolver;
use specpress_domain::token::{Principal, Scope};
use specpress_domain::usecases::readers::Target;
use specpress_domain::usecases::{hostnames, manage};
use time::OffsetDateTime;

/// A running zone server; killed when dropped.
struct Zone {
    child: Child,
    file: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Zone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Zone {
    fn set(&self, zone: serde_json::Value) {
        let tmp = self.file.with_extension("tmp");
        std::fs::write(&tmp, zone.to_string()).unwrap();
        std::fs::rename(&tmp, &self.file).unwrap();
    }

    fn resolver(&self) -> DnsTxt {
        DnsTxt::from_env_value(Some(&format!("127.0.0.1:{}", self.port))).unwrap()
    }
}

/// Starts the zone server on the tools' Python with `dnslib` (`specpress_testkit::Tool::Python`).
fn zone(initial: serde_json::Value) -> Zone {
    let python = specpress_testkit::python_with("dnslib");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("zone.json");
    std::fs::write(&file, initial.to_string()).unwrap();
    let script: &Path = &specpress_testkit::repo_root().join("tests/dns/zone.py");
    let mut child = Command::new(python)
        .arg(script)
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("zone server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("PORT ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("zone server did not start: {line:?}"));
    Zone {
        child,
        file,
        port,
        _dir: dir,
    }
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with dnslib (scripts/install-tools.sh)"
)]
async fn txt_records_are_read_joined_and_never_cached() {
    let z = zone(json!({
        "_specpress.docs.example.com.": {"TXT": [["specpress-verification=", "abc"], ["v=spf1 -all"]]},
        "_specpress.a.example.com.": {"A": ["192.0.2.1"]},
    }));
    let dns = z.resolver();
    assert_eq!(
        dns.txt_records("_specpress.docs.example.com")
            .await
            .unwrap(),
        ["specpress-verification=abc", "v=spf1 -all"]
    );
    // Case does not matter to DNS; a trailing dot is accepted.
    assert_eq!(
        dns.txt_records("_SPECPRESS.Docs.Example.com.")
            .await
            .unwrap()
            .len(),
        2
    );
    // No such name, and a name with other records only: nothing, not a failure.
    assert!(
        dns.txt_records("_specpress.none.example.com")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        dns.txt_records("_specpress.a.example.com")
            .await
            .unwrap()
            .is_empty()
    );
    // A value longer than one character string arrives whole.
    let long: Vec<String> = (0..3).map(|i| format!("{i}").repeat(255)).collect();
    z.set(json!({"_specpress.docs.example.com.": {"TXT": [long]}}));
    let got = dns
        .txt_records("_specpress.docs.example.com")
        .await
        .unwrap();
    assert_eq!(
        got,
        [long.concat()],
        "the change is seen at once: nothing cached"
    );
}

#[tokio::test]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with dnslib (scripts/install-tools.sh)"
)]
async fn failures_are_told_apart_from_absent_records() {
    let z = zone(json!({
        "_specpress.broken.example.com.": {"rcode": "SERVFAIL"},
        "_specpress.refusing.example.com.": {"rcode": "REFUSED"},
        "_specpress.silent.example.com.": {"drop": true},
    }));
    let dns = z.resolver();
    for name in [
        "_specpress.broken.example.com",
        "_specpress.refusing.example.com",
    ] {
        let e = dns.txt_records(name).await.unwrap_err();
        assert!(e.0.contains("answered with an error"), "{name}: {e}");
    }
    let started = std::time::Instant::now();
    let e = dns
        .txt_records("_specpress.silent.example.com")
        .await
        .unwrap_err();
    assert!(
        e.0.contains("did not answer in time") || e.0.contains("timed out"),
        "{e}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(11),
        "bounded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    missing_python_tools,
    ignore = "needs the tools' Python with dnslib (scripts/install-tools.sh)"
)]
async fn a_hostname_is_verified_through_a_dns_server() {
    let z = zone(json!({}));
    let dns = z.resolver();
    let e = specpress_local::embedded::Embedded::start_with(
        specpress_local::embedded::Storage::Memory,
        specpress_local::embedded::Transport::InProcess,
    )
    .await
    .unwrap();
    let store = e.store("specpress").await.unwrap();
    let now = OffsetDateTime::now_utc();
    let (o, _) = manage::create_org(&store, "Acme", now).await.unwrap();
    let p = Principal {
        org_id: o.id,
        scope: Scope::Org,
    };
    let (hub, _) = manage::create_hub(
        &store,
        &p,
        "Docs",
        Some("docs"),
        None,
        Visibility::Public,
        now,
    )
    .await
    .unwrap();
    let target = Target::Hub(hub.slug.as_str());
    let d = hostnames::set_domain(&store, &p, target, "developers.example.com", now)
        .await
        .unwrap();
    let err = hostnames::verify_domain(&store, &dns, &p, target, now)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, DomainError::Invalid { .. }) && err.to_string().contains("No TXT record"),
        "{err}"
    );
    z.set(json!({"_specpress.developers.example.com.": {"TXT": [[d.value]]}}));
    let verified = hostnames::verify_domain(&store, &dns, &p, target, now)
        .await
        .unwrap();
    assert!(verified.is_verified());
    assert!(
        hostnames::site_for_host(&store, "developers.example.com")
            .await
            .unwrap()
            .is_some()
    );
    z.set(json!({"_specpress.developers.example.com.": {"rcode": "SERVFAIL"}}));
    let other = hostnames::set_domain(&store, &p, target, "api.example.com", now)
        .await
        .unwrap();
    z.set(json!({"_specpress.api.example.com.": {"rcode": "SERVFAIL"}}));
    let err = hostnames::verify_domain(&store, &dns, &p, target, now)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("lookup of the TXT records at _specpress.api.example.com failed"),
        "{err}"
    );
    assert!(!other.is_verified());
}
