//! The reader settings a `PATCH /api/v1/docs/{doc}` or `PATCH /api/v1/hubs/{hub}` body may carry (issue 40):
//! `sso_readers` (`true` or `false`) and `embed_origins` (a list of at most 20 https origins), and how an answer
//! shows them. Both routes read them the same way through [`ReaderSettingsPatch`], so the same mistake gets the same
//! 422 on either; every value is checked before anything is changed.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use specpress_domain::DomainError;
use specpress_domain::embed::{EmbedOrigins, MAX_EMBED_ORIGINS};
use specpress_domain::ports::Store;
use specpress_domain::readers::ReaderSettings;
use specpress_domain::token::Principal;
use specpress_domain::usecases::readers::{self, Target};
use time::OffsetDateTime;

use crate::Result;

/// A member of a `PATCH` body that is present, even as `null`, is `Some` (absent is `None`, with
/// `#[serde(default, deserialize_with = "specpress_api::reader_settings::present")]`).
pub fn present<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The reader settings a `PATCH` changes, checked: `None` leaves a setting as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReaderSettingsPatch {
    /// `sso_readers`.
    pub sso_readers: Option<bool>,
    /// `embed_origins`, normalized.
    pub embed_origins: Option<EmbedOrigins>,
}

impl ReaderSettingsPatch {
    /// Reads the members as the body gave them (`None` when absent): a 422 naming the member when `sso_readers` is
    /// not a boolean, or `embed_origins` not a list of at most 20 https origins.
    pub fn parse(sso_readers: Option<&Value>, embed_origins: Option<&Value>) -> Result<Self> {
        let sso_readers = match sso_readers {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                return Err(DomainError::invalid(
                    "sso_readers",
                    "sso_readers must be true or false",
                )
                .into());
            }
        };
        let embed_origins = match embed_origins {
            None => None,
            Some(Value::Array(items)) => {
                let mut given = Vec::with_capacity(items.len().min(MAX_EMBED_ORIGINS + 1));
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => given.push(s.clone()),
                        _ => {
                            return Err(DomainError::invalid(
                                "embed_origins",
                                format!(
                                    "embed_origins[{i}] must be a string such as \"https://www.example.com\""
                                ),
                            )
                            .into());
                        }
                    }
                }
                Some(EmbedOrigins::parse("embed_origins", &given)?)
            }
            Some(_) => {
                return Err(DomainError::invalid(
                    "embed_origins",
                    format!(
                        "embed_origins must be a list of at most {MAX_EMBED_ORIGINS} https origins, such as [\"https://www.example.com\"] ([] for none)"
                    ),
                )
                .into());
            }
        };
        Ok(ReaderSettingsPatch {
            sso_readers,
            embed_origins,
        })
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.sso_readers.is_none() && self.embed_origins.is_none()
    }

    /// Applies it to what `target` names (organization token, or the hub's token for the hub and its
    /// documentations; 403 for a documentation token) and answers the settings as stored.
    pub async fn apply(
        &self,
        store: &dyn Store,
        p: &Principal,
        target: Target<'_>,
        now: OffsetDateTime,
    ) -> Result<ReaderSettings> {
        let origins = self.embed_origins.as_ref().map(|o| o.as_slice().to_vec());
        Ok(readers::update_reader_settings(
            store,
            p,
            target,
            self.sso_readers,
            origins.as_deref(),
            now,
        )
        .await?)
    }
}

/// The reader settings in an answer (`GET` and `PATCH` of one documentation or hub).
#[derive(Debug, Clone, Serialize)]
pub struct ReaderSettingsOut {
    /// Readers signed in through the organization's OpenID provider may read it while it is private.
    pub sso_readers: bool,
    /// The origins that may frame its pages in embed mode.
    pub embed_origins: Vec<String>,
}

impl From<ReaderSettings> for ReaderSettingsOut {
    fn from(s: ReaderSettings) -> Self {
        ReaderSettingsOut {
            sso_readers: s.sso_readers,
            embed_origins: s.embed_origins.as_slice().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(r: Result<ReaderSettingsPatch>) -> String {
        match r {
            Err(e) => format!("{e:?}"),
            Ok(p) => panic!("accepted: {p:?}"),
        }
    }

    #[test]
    fn absent_members_change_nothing_and_present_ones_are_read() {
        assert!(ReaderSettingsPatch::parse(None, None).unwrap().is_empty());
        let p = ReaderSettingsPatch::parse(
            Some(&json!(true)),
            Some(&json!([
                "https://WWW.Example.com:443",
                "https://partner.example.org"
            ])),
        )
        .unwrap();
        assert_eq!(p.sso_readers, Some(true));
        assert_eq!(
            p.embed_origins.unwrap().as_slice(),
            ["https://www.example.com", "https://partner.example.org"]
        );
        let cleared = ReaderSettingsPatch::parse(None, Some(&json!([]))).unwrap();
        assert!(cleared.embed_origins.unwrap().is_empty());
    }

    #[test]
    fn wrong_values_are_refused_naming_the_member() {
        let m = message(ReaderSettingsPatch::parse(Some(&json!("yes")), None));
        assert!(m.contains("sso_readers must be true or false"), "{m}");
        let m = message(ReaderSettingsPatch::parse(Some(&Value::Null), None));
        assert!(m.contains("sso_readers"), "{m}");
        let m = message(ReaderSettingsPatch::parse(
            None,
            Some(&json!("https://a.example")),
        ));
        assert!(m.contains("embed_origins must be a list"), "{m}");
        let m = message(ReaderSettingsPatch::parse(None, Some(&json!([1]))));
        assert!(m.contains("embed_origins[0] must be a string"), "{m}");
        let m = message(ReaderSettingsPatch::parse(
            None,
            Some(&json!(["http://a.example"])),
        ));
        assert!(m.contains("only https origins"), "{m}");
        let many: Vec<String> = (0..21).map(|i| format!("https://a{i}.example")).collect();
        let m = message(ReaderSettingsPatch::parse(None, Some(&json!(many))));
        assert!(m.contains("at most 20"), "{m}");
    }
}
