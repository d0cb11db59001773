//! The configuration read from the real process environment, as a Lambda function reads it: clap's `env`, blank
//! variables unset, values trimmed, the first malformed variable named, `SPECPRESS_TABLE` required.
//!
//! One test in its own binary: it sets and removes variables of this process, which no other thread reads meanwhile.

use specpress_config::{Config, Runtime};

/// Sets `pairs` (and removes `unset`) for the duration of `f`.
fn with_env<T>(pairs: &[(&str, &str)], unset: &[&str], f: impl FnOnce() -> T) -> T {
    // SAFETY: this binary's only test runs alone; no other thread reads or writes the environment meanwhile.
    unsafe {
        for name in unset {
            std::env::remove_var(name);
        }
        for (name, value) in pairs {
            std::env::set_var(name, value);
        }
    }
    let out = f();
    // SAFETY: as above.
    unsafe {
        for (name, _) in pairs {
            std::env::remove_var(name);
        }
    }
    out
}

#[test]
fn a_lambda_reads_its_settings_from_the_environment_and_fails_fast_naming_a_bad_variable() {
    // Variables the developer's shell may hold must not decide this test.
    let ours: Vec<String> = std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("SPECPRESS_"))
        .collect();
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();

    // GIVEN no table WHEN a Lambda reads its configuration THEN it names SPECPRESS_TABLE
    let e = with_env(&[], &ours, Config::from_env).expect_err("no table");
    assert_eq!(e.name, "SPECPRESS_TABLE");

    // GIVEN the template's variables, one blank and one padded
    let c = with_env(
        &[
            ("SPECPRESS_TABLE", " specpress-table "),
            ("SPECPRESS_PUBLIC_URL", ""),
            ("SPECPRESS_QUEUE_URL", "   "),
            ("SPECPRESS_MAX_BODY_BYTES", "1048576"),
            ("SPECPRESS_DIFF_RATE_PER_MINUTE", "many"),
            ("SPECPRESS_TRUST_FORWARDED_HOST", "TRUE"),
        ],
        &[],
        Config::from_env,
    )
    .expect("valid");
    // THEN each is read, a blank one is unset, a malformed tuning knob keeps its default
    assert_eq!(c.runtime, Runtime::Lambda);
    assert_eq!(c.table(), Some("specpress-table"));
    assert_eq!(c.public_url, "");
    assert_eq!(c.queue_url, None);
    assert_eq!(c.max_body_bytes, 1_048_576);
    assert_eq!(c.diffs.rate_per_minute, 120);
    assert!(c.trust_forwarded_host);

    // GIVEN a malformed strict value THEN the start fails naming its variable
    for (name, value) in [
        ("SPECPRESS_MAX_DOCUMENT_BYTES", "32MiB"),
        ("SPECPRESS_TRUST_FORWARDED_HOST", "yes"),
        ("SPECPRESS_OUTBOX_GRACE_SECS", "soon"),
    ] {
        let e = with_env(
            &[("SPECPRESS_TABLE", "t"), (name, value)],
            &[],
            Config::from_env,
        )
        .expect_err("refused");
        assert_eq!(e.name, name, "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("environment variable {name}: must be")),
            "{e}"
        );
    }

    // A local process reads the same variables, without requiring a table.
    let c = with_env(&[("SPECPRESS_MCP_BURST", "7")], &[], Config::local_from_env).expect("valid");
    assert_eq!(
        (c.runtime, c.table(), c.docs.mcp_burst),
        (Runtime::Local, None, 7)
    );
}
