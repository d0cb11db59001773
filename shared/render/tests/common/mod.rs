//! Helpers shared by the renderer's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use specpress_render::{AssetUrls, BranchLink, NavLink, PageContext, VersionInfo, asset_urls};

/// The shared corpus (`specpress_testkit::corpus()`: `SPECPRESS_CORPUS`, default `<repo>/../shared/corpus`). A test
/// that reads it is marked `#[cfg_attr(missing_corpus, ignore = ...)]`; when it is missing anyway it panics.
pub fn corpus_dir() -> PathBuf {
    specpress_testkit::corpus()
}

/// Every document of the corpus, sorted.
pub fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "json" | "yaml" | "yml"))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn load(path: &Path) -> specpress_apispec::Document {
    let text = std::fs::read_to_string(path).expect("read corpus document");
    let limits = specpress_apispec::Limits {
        max_bytes: 64 << 20,
        ..Default::default()
    };
    specpress_apispec::parse_owned(text, Vec::new(), &limits)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn parse(text: &str) -> specpress_apispec::Document {
    specpress_apispec::parse(text, &[], &specpress_apispec::Limits::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

pub struct Fixture {
    pub assets: AssetUrls,
}

pub const BASE: &str = "/doc/pets";

impl Fixture {
    pub fn new() -> Fixture {
        Fixture {
            assets: asset_urls("/static"),
        }
    }

    /// A context with two branches, a version and a changelog link.
    pub fn ctx<'a>(
        &'a self,
        branches: &'a [BranchLink<'a>],
        links: &'a [NavLink<'a>],
        doc_name: &'a str,
    ) -> PageContext<'a> {
        PageContext {
            base: BASE,
            doc_name,
            branches,
            version: Some(VersionInfo {
                id: "v-123",
                published_at: "2026-11-25T10:00:00Z",
                api_version: "1.0.0",
            }),
            assets: &self.assets,
            links,
            search_action: None,
            alternates: &[],
            noindex: false,
            session_href: None,
            mcp: None,
            try_it: Default::default(),
            release: None,
            since: None,
            follow: None,
        }
    }
}

pub const BRANCHES: &[BranchLink<'static>] = &[
    BranchLink {
        name: "main",
        href: "/doc/pets",
        current: true,
        default: true,
    },
    BranchLink {
        name: "next",
        href: "/doc/pets/branches/next",
        current: false,
        default: false,
    },
];

pub const LINKS: &[NavLink<'static>] = &[NavLink {
    label: "Changelog",
    href: "/doc/pets/changes",
    current: false,
}];
