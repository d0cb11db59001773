use std::time::Duration;

use clap::Args as _;

use super::*;

/// An environment of these variables only (the logging tests read variables this way).
pub(crate) fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

/// Every setting: its variable and its option, as the one declaration gives them.
fn declared() -> Vec<(String, String)> {
    Config::augment_args(Command::new("t"))
        .get_arguments()
        .filter_map(|a| {
            Some((
                a.get_env()?.to_string_lossy().into_owned(),
                a.get_long()?.to_owned(),
            ))
        })
        .collect()
}

/// The configuration of a process given these variables, each as its declared option (the variables of the process
/// itself are not read): the values take the same parsers as they would from the environment.
fn given(runtime: Runtime, pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let settings = declared();
    let args: Vec<String> = pairs
        .iter()
        .map(|(name, value)| {
            let long = settings
                .iter()
                .find(|(variable, _)| variable == name)
                .map(|(_, long)| long.clone())
                .unwrap_or_else(|| panic!("{name} is not a setting"));
            format!("--{long}={value}")
        })
        .collect();
    Config::parse(runtime, args, Environment::Ignored)
}

fn valid(pairs: &[(&str, &str)]) -> Config {
    match given(Runtime::Lambda, pairs) {
        Ok(c) => c,
        Err(e) => panic!("{pairs:?} refused: {e}"),
    }
}

fn refused(pairs: &[(&str, &str)]) -> ConfigError {
    match given(Runtime::Lambda, pairs) {
        Ok(c) => panic!("{pairs:?} accepted: {c:?}"),
        Err(e) => e,
    }
}

#[test]
fn every_setting_is_declared_once_with_the_documented_variable() {
    let mut variables: Vec<String> = declared().into_iter().map(|(v, _)| v).collect();
    variables.sort();
    let before = variables.len();
    variables.dedup();
    assert_eq!(before, variables.len(), "a variable declared twice");
    assert_eq!(
        variables,
        [
            "SPECPRESS_ALLOW_LOOPBACK_URLS",
            "SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS",
            "SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES",
            "SPECPRESS_AUTH_FAILURE_BURST",
            "SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE",
            "SPECPRESS_CURSOR_KEY",
            "SPECPRESS_DEAD_LETTER_QUEUE_URL",
            "SPECPRESS_DIFF_MAX_BODY_BYTES",
            "SPECPRESS_DIFF_RATE_BURST",
            "SPECPRESS_DIFF_RATE_PER_MINUTE",
            "SPECPRESS_LOCAL_FUNCTION_TIMEOUT",
            "SPECPRESS_MAIL_FROM",
            "SPECPRESS_MAX_BODY_BYTES",
            "SPECPRESS_MAX_DOCUMENT_BYTES",
            "SPECPRESS_MCP_BURST",
            "SPECPRESS_MCP_RATE_PER_MINUTE",
            "SPECPRESS_OUTBOX_GRACE_SECS",
            "SPECPRESS_PAGE_CACHE_BYTES",
            "SPECPRESS_PUBLIC_URL",
            "SPECPRESS_QUEUE_URL",
            "SPECPRESS_SEARCH_CACHE_BYTES",
            "SPECPRESS_SES_CONFIGURATION_SET",
            "SPECPRESS_SMTP_URL",
            "SPECPRESS_TABLE",
            "SPECPRESS_TRUST_FORWARDED_HOST",
            "SPECPRESS_TRY_BURST",
            "SPECPRESS_TRY_RATE_PER_MINUTE",
            "SPECPRESS_WEBHOOK_RETRY_SCALE",
            "SPECPRESS_WEBHOOK_SECRET_KEY",
        ]
    );
}

#[test]
fn every_default_is_the_documented_one() {
    let c = valid(&[("SPECPRESS_TABLE", "t")]);
    assert_eq!(c.runtime, Runtime::Lambda);
    assert_eq!(c.table(), Some("t"));
    assert_eq!(c.public_url, "");
    assert!(!c.trust_forwarded_host);
    assert_eq!(c.max_body_bytes, 64 * 1024 * 1024);
    assert_eq!(c.max_document_bytes, 32 * 1024 * 1024);
    assert_eq!(c.queue_url, None);
    assert_eq!(c.cursor_key, None);
    assert_eq!(c.webhooks.outbox_grace, Duration::from_secs(30));
    assert_eq!(c.webhooks.outbox_grace, DEFAULT_OUTBOX_GRACE);
    assert_eq!(c.webhooks.retry_scale, None);
    assert!(!c.webhooks.allow_loopback_urls);
    assert_eq!(c.webhooks.local_function_timeout, 60);
    assert_eq!(c.diffs.max_body_bytes.get(), None);
    assert_eq!(c.diffs.rate_per_minute, 120);
    assert_eq!(c.diffs.rate_burst, 30);
    assert_eq!(c.diffs.anonymous_max_days, 30);
    assert_eq!(c.diffs.anonymous_quota_bytes, 1 << 30);
    assert_eq!(c.docs.page_cache_bytes, 256 * 1024 * 1024);
    assert_eq!(c.docs.search_cache_bytes, 64 * 1024 * 1024);
    assert_eq!((c.docs.mcp_rate_per_minute, c.docs.mcp_burst), (300, 60));
    assert_eq!((c.docs.try_rate_per_minute, c.docs.try_burst), (60, 20));
    assert_eq!(c.auth.failure_rate_per_minute, 10);
    assert_eq!(c.auth.failure_burst, 10);
    // The default configuration is the declarations' defaults, nothing set.
    let d = Config::default();
    assert_eq!(d.runtime, Runtime::Local);
    assert_eq!(d.table(), None);
    assert_eq!(
        Config {
            runtime: Runtime::Lambda,
            storage: c.storage.clone(),
            ..d
        },
        c
    );
}

#[test]
fn values_are_trimmed_and_a_public_url_loses_its_trailing_slash() {
    let c = valid(&[
        ("SPECPRESS_TABLE", " t "),
        ("SPECPRESS_PUBLIC_URL", " https://docs.example/ "),
        ("SPECPRESS_MAX_BODY_BYTES", " 1000 "),
        ("SPECPRESS_OUTBOX_GRACE_SECS", "0.5"),
        ("SPECPRESS_WEBHOOK_RETRY_SCALE", "0.001"),
    ]);
    assert_eq!(c.table(), Some("t"));
    assert_eq!(c.public_url, "https://docs.example");
    assert_eq!(c.max_body_bytes, 1000);
    assert_eq!(c.webhooks.outbox_grace, Duration::from_millis(500));
    assert_eq!(c.webhooks.retry_scale, Some(0.001));
}

#[test]
fn the_try_it_proxy_limit_is_read_and_tolerates_malformed_values() {
    assert_eq!((DEFAULT_TRY_RATE_PER_MINUTE, DEFAULT_TRY_BURST), (60, 20));
    let c = valid(&[
        ("SPECPRESS_TRY_RATE_PER_MINUTE", "0"),
        ("SPECPRESS_TRY_BURST", "5"),
    ]);
    assert_eq!((c.docs.try_rate_per_minute, c.docs.try_burst), (0, 5));
    let c = valid(&[
        ("SPECPRESS_TRY_RATE_PER_MINUTE", "often"),
        ("SPECPRESS_TRY_BURST", "0"),
    ]);
    assert_eq!((c.docs.try_rate_per_minute, c.docs.try_burst), (60, 20));
}

#[test]
fn the_failed_credential_limit_is_read_and_tolerates_malformed_values() {
    let c = valid(&[
        ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "0"),
        ("SPECPRESS_AUTH_FAILURE_BURST", "3"),
    ]);
    assert_eq!(
        (c.auth.failure_rate_per_minute, c.auth.failure_burst),
        (0, 3)
    );
    let c = valid(&[
        ("SPECPRESS_AUTH_FAILURE_RATE_PER_MINUTE", "often"),
        ("SPECPRESS_AUTH_FAILURE_BURST", "0"),
    ]);
    assert_eq!(c.auth, Config::default().auth);
}

#[test]
fn a_lambda_without_a_table_or_with_a_malformed_limit_fails_naming_the_variable() {
    let missing = valid(&[])
        .require_table()
        .map(str::to_owned)
        .expect_err("required");
    assert_eq!(missing.name, "SPECPRESS_TABLE");
    for (name, value) in [
        ("SPECPRESS_MAX_BODY_BYTES", "lots"),
        ("SPECPRESS_MAX_DOCUMENT_BYTES", "-1"),
        ("SPECPRESS_WEBHOOK_RETRY_SCALE", "fast"),
        ("SPECPRESS_OUTBOX_GRACE_SECS", "-5"),
        ("SPECPRESS_OUTBOX_GRACE_SECS", "1e300"),
        ("SPECPRESS_TABLE", ""),
    ] {
        let e = refused(&[(name, value)]);
        assert_eq!(e.name, name, "{value:?}: {e}");
        assert!(e.to_string().contains(name), "{e}");
        assert!(e.problem.starts_with("must be"), "{e}");
    }
}

#[test]
fn tuning_knobs_ignore_malformed_and_out_of_range_values() {
    let c = valid(&[
        ("SPECPRESS_DIFF_RATE_PER_MINUTE", "many"),
        ("SPECPRESS_DIFF_MAX_BODY_BYTES", "huge"),
        ("SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS", "0"),
        ("SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES", " 5000 "),
        ("SPECPRESS_PAGE_CACHE_BYTES", "big"),
        ("SPECPRESS_LOCAL_FUNCTION_TIMEOUT", "901"),
    ]);
    assert_eq!(c.webhooks.local_function_timeout, 60);
    assert_eq!(c.diffs.rate_per_minute, DEFAULT_DIFF_RATE_PER_MINUTE);
    assert_eq!(c.diffs.max_body_bytes.get(), None);
    assert_eq!(c.diffs.anonymous_max_days, DEFAULT_ANONYMOUS_DIFF_MAX_DAYS);
    assert_eq!(c.diffs.anonymous_quota_bytes, 5000);
    assert_eq!(c.docs.page_cache_bytes, DEFAULT_PAGE_CACHE_BYTES);
    let c = valid(&[("SPECPRESS_DIFF_MAX_BODY_BYTES", "1024")]);
    assert_eq!(c.diffs.max_body_bytes.get(), Some(1024));
}

#[test]
fn the_anonymous_settings_take_days_and_bytes_in_range_and_fall_back_to_the_defaults() {
    let days = |v: &str| {
        valid(&[("SPECPRESS_ANONYMOUS_DIFF_MAX_DAYS", v)])
            .diffs
            .anonymous_max_days
    };
    let bytes = |v: &str| {
        valid(&[("SPECPRESS_ANONYMOUS_DIFF_QUOTA_BYTES", v)])
            .diffs
            .anonymous_quota_bytes
    };
    assert_eq!((days("7"), bytes(" 5000 ")), (7, 5000));
    assert_eq!(days("3660"), MAX_ANONYMOUS_DIFF_DAYS);
    for bad in ["0", "-1", "3661", "thirty", "", "1.5"] {
        assert_eq!(days(bad), 30, "days {bad:?}");
    }
    for bad in ["0", "-1", "1 GiB", "", "1.5", "18446744073709551616"] {
        assert_eq!(bytes(bad), 1 << 30, "bytes {bad:?}");
    }
}

#[test]
fn the_sealing_key_must_be_32_base64_bytes_and_never_shows() {
    use base64::Engine as _;
    let good = base64::engine::general_purpose::STANDARD.encode([1u8; 32]);
    let c = valid(&[("SPECPRESS_WEBHOOK_SECRET_KEY", &good)]);
    assert_eq!(c.webhooks.secret_key().expect("key"), [1u8; 32]);
    assert!(!format!("{c:?}").contains(&good));
    let short = base64::engine::general_purpose::STANDARD.encode([1u8; 16]);
    for bad in [short.as_str(), "not base64!"] {
        let c = valid(&[("SPECPRESS_WEBHOOK_SECRET_KEY", bad)]);
        assert_eq!(
            c.webhooks.secret_key().expect_err("refused").name,
            "SPECPRESS_WEBHOOK_SECRET_KEY"
        );
    }
    let none = valid(&[]);
    assert!(none.webhooks.secret_key().is_err());
    assert!(none.require_queue_url().is_err());
}

#[test]
fn forwarded_hosts_are_trusted_only_when_said_so_and_a_misspelt_switch_stops_the_start() {
    for (value, trusted) in [("true", true), (" TRUE ", true), ("false", false)] {
        let c = valid(&[("SPECPRESS_TRUST_FORWARDED_HOST", value)]);
        assert_eq!(c.trust_forwarded_host, trusted, "{value:?}");
    }
    for value in ["1", "yes", "on"] {
        let e = refused(&[("SPECPRESS_TRUST_FORWARDED_HOST", value)]);
        assert_eq!(e.name, "SPECPRESS_TRUST_FORWARDED_HOST", "{value}");
    }
}

#[test]
fn loopback_urls_need_the_exact_word_true() {
    for (value, allowed) in [
        ("true", true),
        (" TRUE ", true),
        ("1", false),
        ("yes", false),
    ] {
        let c = given(Runtime::Local, &[("SPECPRESS_ALLOW_LOOPBACK_URLS", value)]).expect("valid");
        assert_eq!(c.webhooks.allow_loopback_urls, allowed, "{value}");
    }
}

#[test]
fn smtp_urls_are_checked_at_start_and_their_password_never_shows() {
    for url in [
        "smtp://127.0.0.1:2525",
        "smtp://mail.example.com:587?tls=required",
        "smtp://mail.example.com?tls=opportunistic",
        "smtps://user:s3cret@mail.example.com:465",
        "smtp://[::1]:2525",
    ] {
        let c = valid(&[("SPECPRESS_SMTP_URL", url)]);
        assert_eq!(c.mail.smtp_url.as_deref(), Some(url));
        assert!(!format!("{c:?}").contains("s3cret"), "{url}");
    }
    for url in [
        "http://mail.example.com",
        "smtp://",
        "smtp://host:notaport",
        "smtp://host:0",
        "smtp://host?tls=sometimes",
        "mail.example.com:25",
    ] {
        let e = refused(&[("SPECPRESS_SMTP_URL", url)]);
        assert_eq!(e.name, "SPECPRESS_SMTP_URL", "{url}");
        assert!(e.problem.contains("smtp://"), "{url}: {}", e.problem);
    }
    assert_eq!(valid(&[]).mail, MailSettings::default());
}

#[test]
fn a_mail_sender_must_be_an_address_with_an_optional_name() {
    for from in [
        "Specpress <docs@example.com>",
        "docs@example.com",
        "<docs@mail.example.co.uk>",
        "specpress@localhost",
    ] {
        let c = valid(&[("SPECPRESS_MAIL_FROM", from)]);
        assert_eq!(c.mail.mail_from.as_deref(), Some(from));
    }
    for from in [
        "docs",
        "docs@",
        "@example.com",
        "Specpress <docs@example.com",
        "Spec\"press <docs@example.com>",
        "docs example@example.com",
        "docs@exa mple.com",
        "docs@example",
        "docs@-example.com",
    ] {
        let e = refused(&[("SPECPRESS_MAIL_FROM", from)]);
        assert_eq!(e.name, "SPECPRESS_MAIL_FROM", "{from}");
    }
}
