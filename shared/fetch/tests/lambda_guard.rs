//! Inside AWS Lambda `allow_loopback` is ignored: loopback there is the runtime API
//! (127.0.0.1:9001). Runs in a child process so `AWS_LAMBDA_RUNTIME_API` is set from the start.

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
