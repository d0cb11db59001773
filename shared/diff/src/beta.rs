//! Elements below stable: Bump.sh's `x-beta: true` convention and the `x-stability-level`
//! extension (`draft`, `alpha`, `beta`, `stable`). An operation, webhook, parameter, request
//! body, response, schema property, named schema, AsyncAPI channel, operation or message marked
//! `x-beta: true`, or with an `x-stability-level` below `stable`, carries no compatibility
//! promise.
//!
//! The rule, applied to every change as it is recorded ([`Context::emit`]):
//!
//! - A change is *unstable* when the element it touches, or any element enclosing it, is
//!   below stable **in the previous version** (the contract clients had). Its removal and its
//!   changes are then reported as usual, but never at level breaking: what would be breaking
//!   is a warning whose message ends with `(beta: not breaking)` (or `alpha`, `draft`: the
//!   level of the element that decided it).
//! - An element that becomes beta (`x-beta`) in the current version is still judged normally
//!   in this diff (clients relied on it as stable until now); the change of marking is noted
//!   (`beta-started`, info). An element that leaves beta is noted too (`beta-ended`, info);
//!   its later changes are judged normally.
//! - A change of `x-stability-level` is judged by the level it leaves the element at: lowering
//!   it (`stable` → `beta`, `beta` → `alpha`, …) withdraws a promise and is breaking
//!   (`stability-level-lowered`), unless an element enclosing it is itself below stable in the
//!   previous version; raising it is noted (`stability-level-raised`, info). A missing
//!   `x-stability-level`, and a value that is none of the four, count as `stable`; an element
//!   also marked `x-beta: true` is at most `beta` (so moving from `x-beta: true` to
//!   `x-stability-level: beta` changes nothing).
//! - A change inside a shared component is judged where it is reported, at the component: it
//!   is unstable when the component or the element inside it is marked, not because some
//!   operation using it is.
//!
//! The enclosing elements are read from the change's location in the previous document (its
//! JSON pointer's ancestors, each `$ref` of them followed once), plus the change's owner
//! (the operation, or for an AsyncAPI operation its channel too), for changes that exist in
//! the current version only (an added required parameter of a beta operation).

use specpress_apispec::{FileId, Location, V};

use crate::change::Crumb;
use crate::context::{At, Context, Versions};
use crate::nav::Nav;
use crate::rules::StructureRule;
use crate::stability::Stability;

/// The extension that marks an element as beta.
const X_BETA: &str = "x-beta";

/// The extension that gives an element's stability level.
const X_STABILITY_LEVEL: &str = "x-stability-level";

/// The markings of one element in one version.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Marks {
    /// `x-beta: true`.
    pub beta: bool,
    /// `x-stability-level` (`stable` when missing or unknown).
    pub level: Stability,
}

impl Default for Marks {
    fn default() -> Self {
        Marks {
            beta: false,
            level: Stability::Stable,
        }
    }
}

impl Marks {
    /// The element's level: its `x-stability-level`, at most `beta` when it is `x-beta`.
    pub(crate) fn effective(self) -> Stability {
        if self.beta {
            self.level.min(Stability::Beta)
        } else {
            self.level
        }
    }
}

impl<'a> Nav<'a> {
    /// The markings of a value that may be a `$ref` (the local value wins, the `$ref` followed
    /// once).
    pub(crate) fn marks(&mut self, file: FileId, v: V<'a>) -> Marks {
        if !v.is_object() {
            return Marks::default();
        }
        let beta = self.flag(file, v, X_BETA);
        let local = v.get(X_STABILITY_LEVEL);
        let level = match local {
            Some(l) => l.as_str(),
            None => match v.get("$ref").and_then(V::as_str) {
                Some(r) => self
                    .follow(file, r)
                    .and_then(|(_, t)| t.get(X_STABILITY_LEVEL))
                    .and_then(V::as_str),
                None => None,
            },
        };
        Marks {
            beta,
            level: level.map_or(Stability::Stable, Stability::parse),
        }
    }

    /// The markings of the value at `at` (none when there is no value there).
    fn marks_at(&mut self, at: &Location) -> Marks {
        match self.lookup(at) {
            Some(v) => self.marks(at.file, v),
            None => Marks::default(),
        }
    }
}

impl<'a> Context<'a> {
    /// The level below stable (if any) that keeps a change of `owner` found at `previous_at`
    /// (in the previous document) from breaking. A lowered stability level (`lowered`) is
    /// judged by the elements enclosing the lowered one only: its parent's ancestors, and the
    /// owner when the element lies under it (its crumbs are not empty).
    pub(crate) fn unstable(
        &mut self,
        lowered: bool,
        owner: usize,
        crumbs: &[Crumb],
        previous_at: Option<&Location>,
    ) -> Option<Stability> {
        if !lowered || !crumbs.is_empty() {
            let owned = self.found.owners.get(owner).and_then(|o| o.unstable);
            if owned.is_some() {
                return owned;
            }
        }
        let at = previous_at?;
        if lowered {
            let mut parent = at.clone();
            parent
                .pointer
                .truncate(parent.pointer.rfind('/').unwrap_or(0));
            self.unstable_within(&parent)
        } else {
            self.unstable_within(at)
        }
    }

    /// The level below stable of the element at `at` in the previous document, or of the
    /// nearest one enclosing it that is below stable. The document root is not an element:
    /// `x-beta` or `x-stability-level` there marks nothing.
    pub(crate) fn unstable_within(&mut self, at: &Location) -> Option<Stability> {
        let mut here = at.clone();
        while !here.pointer.is_empty() {
            if let Some(level) = self.previous_unstable(&here) {
                return Some(level);
            }
            let parent = here.pointer.rfind('/').unwrap_or(0);
            here.pointer.truncate(parent);
        }
        None
    }

    /// The level of the value at `at` in the previous document when it is below stable (its
    /// `$ref` followed once).
    pub(crate) fn previous_unstable(&mut self, at: &Location) -> Option<Stability> {
        let level = self.previous.nav.marks_at(at).effective();
        (level < Stability::Stable).then_some(level)
    }

    /// The element at the two locations entered or left beta, or its stability level changed:
    /// noted (see [`Context::marked`]); `subject` names it ("the operation", "parameter `x`").
    pub(crate) fn beta_marking(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (previous, current): Versions<'_, Location>,
    ) {
        let marks = (
            self.previous.nav.marks_at(previous),
            self.current.nav.marks_at(current),
        );
        self.marked(owner, crumbs, subject, marks, (previous, current));
    }

    /// [`Context::beta_marking`] with the markings already read (`marks`: previous,
    /// current): `beta-started` or `beta-ended` when `x-beta` changed, `stability-level-lowered`
    /// or `stability-level-raised` when `x-stability-level` changed the element's level.
    pub(crate) fn marked(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (before, after): (Marks, Marks),
        (previous, current): Versions<'_, Location>,
    ) {
        let at: At<'_> = (Some(previous), Some(current));
        let beta = match (before.beta, after.beta) {
            (false, true) => Some((StructureRule::BetaStarted, "became beta")),
            (true, false) => Some((StructureRule::BetaEnded, "is no longer beta")),
            _ => None,
        };
        if let Some((rule, what)) = beta {
            let message = format!("{subject} {what}");
            self.flag(rule, owner, crumbs, message, (before.beta, after.beta), at);
        }
        self.level_marked(owner, crumbs, subject, (before, after), at);
    }

    /// A named schema whose `x-stability-level` changed its level (see
    /// [`Context::level_marked`]): noted once per pair of locations, whatever the roles it is
    /// compared in. Its `x-beta` is read, not noted (as before stability levels).
    pub(crate) fn schema_level(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        (previous, current): Versions<'_, Location>,
    ) {
        let Some(&name) = self.previous.schema_names.get(previous) else {
            return;
        };
        if !self.current.schema_names.contains_key(current) {
            return;
        }
        let marks = (
            self.previous.nav.marks_at(previous),
            self.current.nav.marks_at(current),
        );
        if marks.0.level == marks.1.level
            || !(self.memo.levels_seen).insert((previous.clone(), current.clone()))
        {
            return;
        }
        let subject = format_args!("schema `{name}`");
        self.level_marked(
            owner,
            crumbs,
            subject,
            marks,
            (Some(previous), Some(current)),
        );
    }

    /// `stability-level-lowered` or `stability-level-raised` when `x-stability-level` changed
    /// the element's level (`before`, `after`: its markings in each version).
    fn level_marked(
        &mut self,
        owner: usize,
        crumbs: &[Crumb],
        subject: std::fmt::Arguments<'_>,
        (before, after): (Marks, Marks),
        at: At<'_>,
    ) {
        if before.level == after.level {
            return;
        }
        let (from, to) = (before.effective(), after.effective());
        let (rule, what) = match from.cmp(&to) {
            std::cmp::Ordering::Greater => (StructureRule::StabilityLevelLowered, "lowered"),
            std::cmp::Ordering::Less => (StructureRule::StabilityLevelRaised, "raised"),
            std::cmp::Ordering::Equal => return,
        };
        let message = format!("{subject}: stability level {what} from `{from}` to `{to}`");
        let values = (Some(from.as_str().into()), Some(to.as_str().into()));
        self.modified(rule, owner, crumbs, message, values, at);
    }
}
