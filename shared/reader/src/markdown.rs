//! A reference page as Markdown: what the `.md` form of a page shows and what the MCP servers' `get_pages` returns.

use std::sync::Arc;

use specpress_domain::DomainError;
use specpress_domain::model::Version;
use specpress_engines::cpu::CpuGate;
use specpress_render::{MarkdownContext, PageRef};

use crate::{DocView, Loaded, rfc3339_seconds};

/// `page` of `view`'s head (`loaded`, the version `version`) as Markdown, its links on `base` (the `.md` routes:
/// the documentation's path; the MCP tools: its absolute URL), rendered on the CPU gate.
pub async fn page(
    loaded: Arc<Loaded>,
    page: PageRef,
    base: String,
    view: &DocView,
    version: &Version,
) -> Result<String, DomainError> {
    let name = view.doc.name.clone();
    let api_version = version.analysis.api_version.clone();
    let published = rfc3339_seconds(version.created_at);
    CpuGate::shared()
        .run(move || {
            loaded.site.render_markdown(
                &loaded.doc,
                &page,
                &MarkdownContext {
                    base: &base,
                    doc_name: &name,
                    version: Some((&api_version, &published)),
                    mcp: None,
                },
            )
        })
        .await
}
