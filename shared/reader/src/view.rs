//! A documentation on one branch, as a reader opened it: its published branches (the switcher), the branch shown
//! and its head. Every output about one documentation (pages, Markdown, feeds, search, machine files, MCP) starts
//! here, so they all answer the same way for an unknown documentation or branch.

use specpress_domain::model::{Branch, Documentation, Slug, VersionId};
use specpress_domain::urls;
use specpress_domain::usecases::public::PublicDoc;

use crate::error::{Missing, Read};

/// What the branch segment of a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchInUrl {
    /// The documentation's default branch: its pages live at the documentation's own URLs (answer with a temporary
    /// redirect there: the default may change).
    Default,
    /// Another branch.
    Named(Slug),
}

/// Reads the branch segment of a URL (`/doc/{doc}/branches/{branch}`): `Missing::Branch` when it cannot be a branch.
pub fn branch_in_url(doc: &Documentation, segment: &str) -> Read<BranchInUrl> {
    let slug = specpress_domain::branch_rules::slug_from_path(segment).ok_or(Missing::Branch)?;
    Ok(if slug == doc.default_branch {
        BranchInUrl::Default
    } else {
        BranchInUrl::Named(slug)
    })
}

/// A documentation on one branch, as a reader opened it.
#[derive(Debug, Clone)]
pub struct DocView {
    /// The documentation.
    pub doc: Documentation,
    /// Its branches that have a published version, the default one first, then by slug.
    pub branches: Vec<Branch>,
    /// The branch shown.
    pub branch: Branch,
    /// `true` when the URL named the branch (`/doc/{doc}/branches/{branch}`), `false` for the default branch.
    pub named: bool,
    /// The URL path of this documentation root on this branch: `/doc/pets` or `/doc/pets/branches/next`.
    pub base: String,
    /// URL path of the documentation's root (its default branch) on the request's hostname, no trailing slash
    /// (`/doc/pets`; `` at the root of its own hostname): fixed when the view is opened, inside the request.
    pub root: String,
    /// The branch's published head.
    head: VersionId,
    /// The documentation is private (on its own or through its hub): its outputs are never indexed nor shared.
    pub private: bool,
}

impl DocView {
    /// The view of `doc` on `branch` (`None`: its default branch) among its `branches` (as stored, any order).
    pub(crate) fn new(
        doc: PublicDoc,
        mut branches: Vec<Branch>,
        branch: Option<Slug>,
    ) -> Read<DocView> {
        let PublicDoc { doc, private, .. } = doc;
        branches.retain(|b| b.head.is_some());
        branches.sort_by(|a, b| {
            let not_default = |x: &Branch| x.name.slug() != &doc.default_branch;
            not_default(a)
                .cmp(&not_default(b))
                .then_with(|| a.name.slug().as_str().cmp(b.name.slug().as_str()))
        });
        let wanted = branch.as_ref().unwrap_or(&doc.default_branch);
        let found = branches
            .iter()
            .find(|b| b.name.slug() == wanted)
            .and_then(|b| Some((b.clone(), b.head.as_ref()?.version_id)));
        let Some((current, head)) = found else {
            return Err(if branch.is_some() {
                Missing::Branch.into()
            } else {
                Missing::NothingPublished.into()
            });
        };
        let base = match &branch {
            Some(b) => format!("{}/branches/{b}", urls::doc_path(&doc.slug)),
            None => urls::doc_path(&doc.slug),
        };
        let root = urls::doc_path(&doc.slug);
        Ok(DocView {
            root,
            doc,
            branches,
            branch: current,
            named: branch.is_some(),
            base,
            head,
            private,
        })
    }

    /// The head version id of the branch shown.
    pub fn head(&self) -> VersionId {
        self.head
    }

    /// The URL path of a branch's documentation root (the default branch's is the documentation's own).
    pub fn branch_href(&self, slug: &Slug) -> String {
        if slug == &self.doc.default_branch {
            urls::href(self.root.clone())
        } else {
            format!("{}/branches/{slug}", self.root)
        }
    }

    /// The display name of a branch of this documentation (its slug when it has no published version).
    pub fn branch_name(&self, slug: &Slug) -> String {
        self.branches
            .iter()
            .find(|b| b.name.slug() == slug)
            .map_or_else(|| slug.to_string(), |b| b.name.name().to_owned())
    }

    /// Feeds a validator with everything the chrome shows about the documentation (name, branches, base).
    pub fn fingerprint(&self, mut update: impl FnMut(&[u8])) {
        update(self.base.as_bytes());
        update(self.doc.name.as_bytes());
        for b in &self.branches {
            update(b.name.name().as_bytes());
            update(&[0]);
            update(b.name.slug().as_str().as_bytes());
            update(&[u8::from(b.name.slug() == &self.doc.default_branch)]);
        }
    }
}
