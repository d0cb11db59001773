//! What a release changed, told to people (issue 38): the change notes that Slack and Teams messages, release mails
//! and digests show, breaking changes first with their migration notes and acceptances (issue 39), and the filters
//! that choose which releases (and which of their changes) a subscription or a follower receives.

use serde::{Deserialize, Serialize};

/// One change of a release as a notification shows it. Every text is the document's (hostile): the presenter
/// (mail templates, Block Kit, Adaptive Card) escapes it for its format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeNote {
    /// The change's stable id (issue 39), when it has one.
    pub id: Option<String>,
    /// `breaking`, `warning` or `info`.
    pub level: String,
    /// Where: the operation or element (`GET /pets/{id}`, `schema Pet`, `channel user/signedup`).
    pub place: String,
    /// The change, one sentence.
    pub message: String,
    /// For a breaking change: what a client must do (Markdown).
    pub migration: Option<String>,
    /// The owner's reason, when the documentation accepted this breaking change.
    pub accepted: Option<String>,
}

impl ChangeNote {
    /// Whether it is breaking (accepted or not: an accepted change keeps its level where people look).
    pub fn is_breaking(&self) -> bool {
        self.level == "breaking"
    }
}
