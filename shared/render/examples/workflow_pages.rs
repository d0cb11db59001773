//! Writes the public pages of a workflow MCP server that `tests/workflows.rs` checks (a set of two workflows, a
//! hostile set, a server with nothing deployed) into a folder, to look at them in a browser:
//!
//! ```sh
//! cargo run -p specpress-render --example workflow_pages -- DIR
//! ```
//!
//! writes `DIR/workflow-page.html`, `DIR/workflow-page-hostile.html` and `DIR/workflow-page-empty.html` (they link
//! their style sheet and script under `/static/`, as served).

#[path = "../tests/workflow_pages/mod.rs"]
mod workflow_pages;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: cargo run -p specpress-render --example workflow_pages -- DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for (file, html) in workflow_pages::pages() {
        let path = dir.join(format!("{file}.html"));
        if let Err(e) = std::fs::write(&path, html) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}
