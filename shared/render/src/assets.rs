//! The embedded static assets: one stylesheet and one optional script, served under names that
//! carry a hash of their content (so they can be cached for a year).

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

// The "Try it" panels' rules and script (pages/try_it.rs) ride along with the site's own: one file of each.
const CSS: &str = concat!(
    include_str!("../assets/site.css"),
    include_str!("../assets/try.css")
);
const JS: &str = concat!(
    include_str!("../assets/site.js"),
    include_str!("../assets/try.js")
);

/// One static file.
#[derive(Clone, Debug)]
pub struct Asset {
    /// File name with a content hash: `site.3f9a1c2b.css`.
    pub name: String,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

/// Where the pages find the assets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssetUrls {
    pub stylesheet: String,
    pub script: String,
}

fn hashed(stem: &str, ext: &str, bytes: &[u8]) -> String {
    let h = Sha256::digest(bytes);
    format!("{stem}.{}.{ext}", hex::encode(&h[..5]))
}

/// The assets the pages link to (the stylesheet first, then the script).
pub fn assets() -> &'static [Asset] {
    static ASSETS: OnceLock<Vec<Asset>> = OnceLock::new();
    ASSETS.get_or_init(|| {
        vec![
            Asset {
                name: hashed("site", "css", CSS.as_bytes()),
                content_type: "text/css; charset=utf-8",
                bytes: CSS.as_bytes(),
            },
            Asset {
                name: hashed("site", "js", JS.as_bytes()),
                content_type: "text/javascript; charset=utf-8",
                bytes: JS.as_bytes(),
            },
        ]
    })
}

/// The asset hrefs under `prefix` (a URL path without trailing slash, e.g. `/static`).
pub fn asset_urls(prefix: &str) -> AssetUrls {
    let a = assets();
    let prefix = prefix.trim_end_matches('/');
    AssetUrls {
        stylesheet: format!("{prefix}/{}", a[0].name),
        script: format!("{prefix}/{}", a[1].name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_names_carry_a_content_hash_and_the_script_stays_small() {
        let a = assets();
        assert!(a[0].name.starts_with("site.") && a[0].name.ends_with(".css"));
        assert_eq!(a[0].name.len(), "site.0123456789.css".len());
        assert!(
            a[1].bytes.len() <= 24 * 1024,
            "script is {} bytes",
            a[1].bytes.len()
        );
        let u = asset_urls("/static/");
        assert_eq!(u.stylesheet, format!("/static/{}", a[0].name));
        assert_eq!(u.script, format!("/static/{}", a[1].name));
    }
}
