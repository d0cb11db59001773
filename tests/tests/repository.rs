//! Issue 36: what a newcomer meets in the repository. The README is the front door (at most 300 lines, its tour runs
//! as written from a fresh clone), no file names a path of the machine it was written on, and scripts live in
//! `scripts/`, not inside the docs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

/// The files git tracks, relative to the root.
fn tracked() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The fenced blocks of a Markdown text written in one of `languages`, each with the line it starts at.
fn blocks_in(text: &str, languages: &[&str]) -> Vec<(usize, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, &str, Vec<String>)> = None;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(language)) => open = Some((n + 1, language.trim(), Vec::new())),
            (Some(_), Some(_)) => {
                if let Some((start, language, lines)) = open.take()
                    && languages.contains(&language)
                {
                    blocks.push((start, lines));
                }
            }
            (Some((_, _, lines)), None) => lines.push(line.to_owned()),
            (None, None) => {}
        }
    }
    blocks
}

/// Languages a script is written in.
const SCRIPTS: [&str; 7] = [
    "sh",
    "bash",
    "shell",
    "console",
    "python",
    "js",
    "javascript",
];

#[test]
fn the_readme_is_at_most_300_lines() {
    let lines = readme().lines().count();
    assert!(lines <= 300, "README.md has {lines} lines (at most 300)");
}

#[test]
fn every_file_the_readme_tour_names_is_in_the_repository_and_bump_runs_as_the_tour_defines_it() {
    let text = readme();
    let mut wrong = Vec::new();
    let mut named = 0;
    for (start, block) in blocks_in(&text, &SCRIPTS) {
        for (i, line) in block.iter().enumerate() {
            let at = start + i + 1;
            // The tour defines `BUMP` (the pinned bump-cli through npx): a bare `bump` is not on a fresh machine.
            if line.trim_start().starts_with("bump ") {
                wrong.push(format!("README.md:{at}: `bump` instead of `$BUMP`: {line}"));
            }
            for word in line.split_whitespace() {
                if word.starts_with("tests/fixtures/") || word.starts_with("scripts/") {
                    named += 1;
                    if !root().join(word).exists() {
                        wrong.push(format!("README.md:{at}: {word} is not in the repository"));
                    }
                }
            }
        }
    }
    assert!(
        named >= 5,
        "the tour names only {named} repository files: did its blocks move?"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_tracked_file_names_a_path_of_the_machine_it_was_written_on() {
    // Built from pieces, so that this file does not name them itself.
    let patterns = [
        ["/", "work", "/"].concat(),
        ["/", "root", "/"].concat(),
        ["/", "home", "/"].concat(),
        ["/", "Users", "/"].concat(),
    ];
    let mut found = Vec::new();
    let files = tracked();
    assert!(files.len() > 100, "git lists only {} files", files.len());
    for file in &files {
        let Ok(text) = std::fs::read_to_string(root().join(file)) else {
            continue; // binary (screenshots) or removed from the work tree
        };
        for (n, line) in text.lines().enumerate() {
            if patterns.iter().any(|p| line.contains(p.as_str())) {
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn docs_hold_no_script_longer_than_a_command_listing() {
    let mut long = Vec::new();
    let dir = root().join("docs");
    for entry in std::fs::read_dir(&dir).expect("docs/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("doc");
        for (start, block) in blocks_in(&text, &SCRIPTS) {
            if block.len() > 40 {
                long.push(format!(
                    "{}:{start}: a block of {} lines (a script belongs in scripts/)",
                    path.display(),
                    block.len()
                ));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}
