//! Per-rule level overrides and the ignore list.

use std::collections::HashMap;

use crate::rules::{Level, RuleId, find_rule};

/// A configuration mistake (unknown rule id, malformed entry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("unknown rule id `{0}` (see docs/diff-rules.md for the catalogue)")]
    UnknownRule(String),
    #[error("invalid level override `{0}`: expected RULE=breaking|warning|info")]
    BadOverride(String),
    #[error("invalid operation `{0}` in an ignore entry: expected `METHOD /path`")]
    BadOperation(String),
}

#[derive(Clone, Debug)]
struct Ignore {
    rule: RuleId,
    /// `GET /pets/{}` (normalized), or `None` for every operation.
    operation: Option<String>,
}

/// How a diff is classified: level overrides and ignored rules.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    levels: HashMap<RuleId, Level>,
    ignores: Vec<Ignore>,
    today: Option<String>,
}

/// `GET /pets/{petId}` → `GET /pets/{}`; `send user/{id}/signup` → `SEND user/{}/signup`.
pub(crate) fn normalize_operation(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let (method, path) = spec.split_once(char::is_whitespace)?;
    let path = path.trim();
    if method.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!(
        "{} {}",
        method.to_ascii_uppercase(),
        normalize_template(path)
    ))
}

/// Replaces every `{name}` of a path or channel template by `{}`.
pub(crate) fn normalize_template(path: &str) -> String {
    // Byte by byte (braces are ASCII, so never part of a multi-byte character), copying the
    // text between parameters in whole runs.
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    // Start of the text not yet copied (when outside a parameter).
    let mut run = 0;
    for (i, b) in path.bytes().enumerate() {
        match b {
            b'{' => {
                if !in_param {
                    out.push_str(path.get(run..i).unwrap_or(""));
                }
                in_param = true;
                out.push_str("{}");
            }
            b'}' if in_param => {
                in_param = false;
                run = i + 1;
            }
            _ => {}
        }
    }
    if !in_param {
        out.push_str(path.get(run..).unwrap_or(""));
    }
    out
}

impl DiffOptions {
    /// Defaults: catalogue levels, nothing ignored.
    pub fn new() -> Self {
        Self::default()
    }

    /// Changes the level of one rule.
    pub fn set_level(&mut self, rule: &str, level: Level) -> Result<&mut Self, OptionsError> {
        let id = find_rule(rule).ok_or_else(|| OptionsError::UnknownRule(rule.to_string()))?;
        self.levels.insert(id, level);
        Ok(self)
    }

    /// Parses `RULE=LEVEL` and applies it.
    pub fn apply_override(&mut self, entry: &str) -> Result<&mut Self, OptionsError> {
        let (rule, level) = entry
            .split_once('=')
            .ok_or_else(|| OptionsError::BadOverride(entry.to_string()))?;
        let level: Level = level
            .parse()
            .map_err(|_| OptionsError::BadOverride(entry.to_string()))?;
        self.set_level(rule.trim(), level)
    }

    /// Ignores a rule everywhere (`operation = None`) or for one operation (`GET /pets/{id}`,
    /// path parameter names do not matter; for AsyncAPI `SEND channel/{id}`).
    pub fn ignore(
        &mut self,
        rule: &str,
        operation: Option<&str>,
    ) -> Result<&mut Self, OptionsError> {
        let id = find_rule(rule).ok_or_else(|| OptionsError::UnknownRule(rule.to_string()))?;
        let operation = match operation {
            Some(op) => Some(
                normalize_operation(op)
                    .ok_or_else(|| OptionsError::BadOperation(op.to_string()))?,
            ),
            None => None,
        };
        self.ignores.push(Ignore {
            rule: id,
            operation,
        });
        Ok(self)
    }

    /// Parses `RULE` or `RULE@METHOD /path` and applies it.
    pub fn apply_ignore(&mut self, entry: &str) -> Result<&mut Self, OptionsError> {
        match entry.split_once('@') {
            Some((rule, op)) => self.ignore(rule.trim(), Some(op)),
            None => self.ignore(entry.trim(), None),
        }
    }

    /// Fixes "today" (`YYYY-MM-DD`) for sunset-date rules; defaults to the system clock.
    pub fn with_today(mut self, date: &str) -> Self {
        self.today = Some(date.to_string());
        self
    }

    pub(crate) fn today(&self) -> String {
        self.today.clone().unwrap_or_else(today_utc)
    }

    pub(crate) fn level(&self, rule: RuleId) -> Level {
        self.levels
            .get(&rule)
            .copied()
            .unwrap_or_else(|| rule.rule().level)
    }

    /// Whether any rule is ignored (else [`DiffOptions::ignored`] is always false).
    pub(crate) fn has_ignores(&self) -> bool {
        !self.ignores.is_empty()
    }

    pub(crate) fn ignored(&self, rule: RuleId, operation: Option<&str>) -> bool {
        self.ignores.iter().any(|i| {
            i.rule == rule
                && match (&i.operation, operation) {
                    (None, _) => true,
                    (Some(want), Some(have)) => want == have,
                    (Some(_), None) => false,
                }
        })
    }
}

/// Today's date in UTC as `YYYY-MM-DD`.
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Civil-from-days (proleptic Gregorian), after H. Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_normalized_by_runs_match_the_character_definition() {
        fn by_chars(path: &str) -> String {
            let mut out = String::new();
            let mut in_param = false;
            for ch in path.chars() {
                match ch {
                    '{' => {
                        in_param = true;
                        out.push_str("{}");
                    }
                    '}' if in_param => in_param = false,
                    _ if in_param => {}
                    c => out.push(c),
                }
            }
            out
        }
        for path in [
            "/pets/{petId}/toys/{toy}",
            "/a/{b{c}d}/e}",
            "/ünï/{çødé}/tail",
            "/open/{unclosed",
            "}{}{x}",
            "",
            "/plain",
        ] {
            assert_eq!(normalize_template(path), by_chars(path), "{path:?}");
        }
    }

    #[test]
    fn operation_specs_are_normalized_like_operation_keys() {
        assert_eq!(
            normalize_operation("get /pets/{petId}/toys/{toy}").as_deref(),
            Some("GET /pets/{}/toys/{}")
        );
        assert_eq!(normalize_operation("GET"), None);
    }

    #[test]
    fn unknown_rules_are_rejected_with_their_name() {
        let mut o = DiffOptions::new();
        let err = o.apply_ignore("no-such-rule").unwrap_err();
        assert_eq!(err, OptionsError::UnknownRule("no-such-rule".into()));
        assert!(o.apply_override("endpoint-removed=loud").is_err());
        assert!(o.apply_override("endpoint-removed=warning").is_ok());
    }

    #[test]
    fn today_is_an_iso_date() {
        let t = today_utc();
        assert_eq!(t.len(), 10);
        assert!(t.as_str() > "2024-01-01");
    }
}
