//! Inside AWS Lambda `allow_loopback` is ignored: loopback there is the runtime API
//! (127.0.0.1:9001). Under a local emulator (`cargo lambda watch`) it works. Each case runs in a child process so
//! `AWS_LAMBDA_RUNTIME_API` is set from the start.

use std::process::Command;

use specpress_fetch::{AddressClass, FetchError, FetchPolicy, SafeClient};

const CHILD_FLAG: &str = "SPECPRESS_FETCH_LAMBDA_CHILD";

#[test]
fn allow_loopback_is_ignored_inside_lambda() {
    if std::env::var_os(CHILD_FLAG).is_some() {
        let client = SafeClient::new(FetchPolicy {
            allow_loopback: true,
            ..FetchPolicy::default()
        })
        .expect("client");
        assert!(!client.policy().allow_loopback);
        let err = client
            .check_url("http://127.0.0.1:9001/2018-06-01/runtime/invocation/next")
            .expect_err("runtime API refused");
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
        println!("loopback refused in lambda");
        return;
    }
    // Outside Lambda the switch works.
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
        let client = SafeClient::new(FetchPolicy {
            allow_loopback: true,
            ..FetchPolicy::default()
        })
        .expect("client");
        assert!(client.check_url("http://127.0.0.1:8080/").is_ok());
    }
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "allow_loopback_is_ignored_inside_lambda",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_FLAG, "1")
        .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("loopback refused in lambda"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn only_a_local_emulator_is_told_apart_from_lambda() {
    use specpress_fetch::is_real_lambda;
    // Not in Lambda at all.
    assert!(!is_real_lambda(None, None));
    // AWS Lambda: host:port and the execution environment, both reserved variables.
    assert!(is_real_lambda(
        Some("127.0.0.1:9001"),
        Some("AWS_Lambda_provided.al2023")
    ));
    assert!(is_real_lambda(Some("127.0.0.1:9001"), None));
    // cargo lambda watch: a URL with a path, no execution environment.
    assert!(!is_real_lambda(
        Some("http://127.0.0.1:9000/.rt/docs"),
        None
    ));
    // An execution environment, or a URL without a path, is Lambda: fail closed.
    assert!(is_real_lambda(
        Some("http://127.0.0.1:9000/.rt/docs"),
        Some("AWS_Lambda_provided.al2023")
    ));
    assert!(is_real_lambda(Some("http://127.0.0.1:9001/"), None));
    assert!(is_real_lambda(Some("http://127.0.0.1:9001"), None));
}

#[test]
fn allow_loopback_works_under_the_local_emulator() {
    if std::env::var_os(CHILD_FLAG).is_some() {
        let client = SafeClient::new(FetchPolicy {
            allow_loopback: true,
            ..FetchPolicy::default()
        })
        .expect("client");
        assert!(client.policy().allow_loopback);
        assert!(client.check_url("http://127.0.0.1:8080/hook").is_ok());
        println!("loopback allowed under the emulator");
        return;
    }
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "allow_loopback_works_under_the_local_emulator",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_FLAG, "1")
        .env(
            "AWS_LAMBDA_RUNTIME_API",
            "http://127.0.0.1:9000/.rt/webhook-delivery",
        )
        .env_remove("AWS_EXECUTION_ENV")
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("loopback allowed under the emulator"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
