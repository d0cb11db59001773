//! Writes every page of a document as static files:
//! `cargo run -p specpress-render --release --example render -- <document> <outdir> [base]`.
//! Each page goes to `<outdir>/<path>/index.html` (the home page to `<outdir>/index.html`), the
//! assets to `<outdir>/static/`. `base` (default: the absolute path of `outdir`, so the files
//! open from disk) is the URL path the pages link under.

use std::path::{Path, PathBuf};
use std::time::Instant;

use specpress_render::{PageContext, Site, asset_urls, assets};

use specpress_alloc as _;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(outdir)) = (args.first(), args.get(1)) else {
        eprintln!("usage: render <document> <outdir> [base]");
        std::process::exit(2);
    };
    let outdir = PathBuf::from(outdir);
    if let Err(e) = run(Path::new(input), &outdir, args.get(2).map(String::as_str)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(input: &Path, outdir: &Path, base: Option<&str>) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(input)?;
    let t = Instant::now();
    let limits = specpress_apispec::Limits {
        max_bytes: 64 << 20,
        ..Default::default()
    };
    let doc = specpress_apispec::parse_owned(text, Vec::new(), &limits)?;
    let parsed = t.elapsed();
    let t = Instant::now();
    let site = Site::build(&doc);
    let built = t.elapsed();
    std::fs::create_dir_all(outdir.join("static"))?;
    let base = match base {
        Some(b) => b.trim_end_matches('/').to_string(),
        None => std::fs::canonicalize(outdir)?
            .to_string_lossy()
            .trim_end_matches('/')
            .to_string(),
    };
    let urls = asset_urls(&format!("{base}/static"));
    for a in assets() {
        std::fs::write(outdir.join("static").join(&a.name), a.bytes)?;
    }
    let ctx = PageContext {
        base: &base,
        doc_name: doc.title(),
        branches: &[],
        version: None,
        assets: &urls,
        links: &[],
        search_action: None,
        alternates: &[],
        noindex: true,
        session_href: None,
        mcp: None,
        try_it: Default::default(),
        release: None,
        since: None,
        follow: None,
    };
    let t = Instant::now();
    let (mut count, mut bytes) = (0usize, 0usize);
    for info in site.pages() {
        let page = site.render(&doc, &info.page, &ctx);
        let dir = if info.path.is_empty() {
            outdir.to_path_buf()
        } else {
            outdir.join(info.path)
        };
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("index.html"), &page.html)?;
        count += 1;
        bytes += page.html.len();
    }
    println!(
        "{}: parsed in {:.1} ms, site built in {:.1} ms, {count} pages ({:.1} MB) rendered and written in {:.0} ms",
        input.display(),
        parsed.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
