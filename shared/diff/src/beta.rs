//! Beta elements (Bump.sh's `x-beta: true` convention): an operation, webhook, parameter,
//! request body, response, schema property, named schema, AsyncAPI channel, operation or
//! message marked `x-beta: true` carries no compatibility promise.
//!
//! The rule, applied to every change as it is recorded ([`Context::emit`]):
//!
//! - A change is *beta* when the element it touches, or any element enclosing it, is marked
//!   `x-beta: true` **in the previous version** (the contract clients had). Its removal and its
//!   changes are then reported as usual, but never at level breaking: what would be breaking
//!   is a warning whose message ends with `(beta: not breaking)`.
//! - An element that becomes beta in the current version is still judged normally in this
//!   diff (clients relied on it as stable until now); the change of marking is noted
//!   (`beta-started`, info). An element that leaves beta is noted too (`beta-ended`, info); its
//!   later changes are judged normally.
//! - A change inside a shared component is judged where it is reported, at the component: it
//!   is beta when the component or the element inside it is marked, not because some operation
//!   using it is.
//!
//! The enclosing elements are read from the change's location in the previous document (its
//! JSON pointer's ancestors, each `$ref` of them followed once), plus the change's owner
//! (the operation, or for an AsyncAPI operation its channel too), for changes that exist in
//! the current version only (an added required parameter of a beta operation).

use specpress_apispec::Location;

use crate::change::Crumb;
use crate::context::{At, Context, Versions};
use crate::rules::StructureRule;

/// The extension that marks an element as beta.
const X_BETA: &str = "x-beta";

impl<'a> Context<'a> {
    /// Whether a change of `owner` found at `previous_at` (in the previous document) touches a
    /// beta element.
    pub(crate) fn beta(&mut self, owner: usize, previous_at: Option<&Location>) -> bool {
        if self.found.owners.get(owner).is_some_and(|o| o.beta) {
            return true;
        }
        previous_at.is_some_and(|at| self.beta_within(at))
    }

    /// Whether the element at `at` in the previous document, or one enclosing it, is marked
    /// beta. The document root is not an element: `x-beta` there marks nothing.
    pub(crate) fn beta_within(&mut self, at: &Location) -> bool {
        let mut here = at.clone();
        while !here.pointer.is_empty() {
            if self.previous_beta(&here) {
                return true;
            }
            let parent = here.pointer.rfind('/').unwrap_or(0);
            here.pointer.truncate(parent);
        }
        false
    }

    /// `x-beta: true` on the value at `at` in the previous document (its `$ref` followed once).
    pub(crate) fn previous_beta(&mut self, at: &Location) -> bool {
        let nav = &mut self.previous.nav;
        nav.lookup(at)
            .is_some_and(|v| v.is_object() && nav.flag(at.file, v, X_BETA))
    }

    /// `x-beta: true` on the value at `at` in the current document (its `$ref` followed once).
    fn current_beta(&mut self, at: &Location) -> bool {
        let nav = &mut self.current.nav;
        nav.lookup(at)
            .is_some_and(|v| v.is_object() && nav.flag(at.file, v, X_BETA))
    }

    /// The element at the two locations entered or left beta: noted (`beta-started`,
    /// `beta-ended`); `subject` names it ("the operation", "parameter `x`").
    pub(crate) fn beta_marking(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): Versions<'_, Location>,
    ) {
        let marked = (self.previous_beta(previous), self.current_beta(current));
        self.beta_marked(owner, crumbs, subject, marked, (previous, current));
    }

    /// [`Context::beta_marking`] with the markings already read (`marked`: previous,
    /// current).
    pub(crate) fn beta_marked(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        marked: (bool, bool),
        (previous, current): Versions<'_, Location>,
    ) {
        let (rule, what) = match marked {
            (false, true) => (StructureRule::BetaStarted, "became beta"),
            (true, false) => (StructureRule::BetaEnded, "is no longer beta"),
            _ => return,
        };
        let at: At<'_> = (Some(previous), Some(current));
        let message = format!("{subject} {what}");
        self.flag(rule, owner, crumbs, message, marked, at);
    }
}
