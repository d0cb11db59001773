//! The headless-Chromium check of public pages (tests/browser/check.js: axe-core WCAG 2.1 AA, JavaScript on and
//! off, light and dark, desktop and phone, no CSP report, page error or failed request), for the tests of
//! what a person looks at.

use std::path::PathBuf;
use std::process::Command;

/// Chromium and the harness's Node modules (`specpress_testkit`'s `Tool::Chromium` and `Tool::NodeModules`): a test
/// that calls this is marked `#[cfg_attr(any(missing_chromium, missing_node_modules), ignore = ...)]`, and panics
/// here when it runs without them.
pub fn tools() -> (PathBuf, PathBuf) {
    (
        specpress_testkit::tool(specpress_testkit::Tool::Chromium),
        specpress_testkit::tool(specpress_testkit::Tool::NodeModules),
    )
}

/// Runs the check on `urls` (each must answer 200), screenshots cut at `max_height` pixels and copied into
/// `SPECPRESS_SCREENSHOTS` when it is set. Panics with the harness's report when a page fails; answers how many
/// screenshots this check took.
pub fn check(tools: &(PathBuf, PathBuf), urls: &[String], max_height: u32) -> usize {
    let pages: Vec<(String, u16)> = urls.iter().map(|u| (u.clone(), 200)).collect();
    check_statuses(tools, &pages, max_height)
}

/// [`check`] of pages answered with the given statuses (error pages are looked at too).
pub fn check_statuses(
    tools: &(PathBuf, PathBuf),
    pages: &[(String, u16)],
    max_height: u32,
) -> usize {
    let tmp = crate::temp_dir();
    let mut cmd = Command::new("node");
    cmd.arg(crate::repo_root().join("tests/browser/check.js"))
        .arg("--out")
        .arg(tmp.path())
        .arg("--max-height")
        .arg(max_height.to_string());
    for (url, status) in pages {
        cmd.arg("--expect").arg(status.to_string()).arg(url);
    }
    let out = cmd
        .env("SPECPRESS_CHROMIUM", &tools.0)
        .env("SPECPRESS_NODE_MODULES", &tools.1)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser check failed:\n{stdout}\n{stderr}"
    );
    let shots: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "png"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(keep) = std::env::var_os("SPECPRESS_SCREENSHOTS").map(PathBuf::from) {
        let _ = std::fs::create_dir_all(&keep);
        for shot in &shots {
            if let Some(name) = shot.file_name() {
                let _ = std::fs::copy(shot, keep.join(name));
            }
        }
    }
    shots.len()
}
