//! Secrets in a run: put into the request by the operation's security requirement ([`inject`]); the
//! [`Redactor`](super::Redactor) keeps them out of everything else.

use base64::Engine as _;

use super::{RunError, Secrets};
use crate::model::{Operation, ParamIn, SchemeKind, WorkflowSet};

/// Applies the first security alternative of `op` whose schemes all have secrets: **the secret wins**, a header,
/// query parameter or cookie the document set with the same name is dropped. Returns the headers that carry a
/// secret. A requirement no alternative of which can be met fails with the first missing scheme.
pub(super) fn inject(
    set: &WorkflowSet,
    secrets: &dyn Secrets,
    op: &Operation,
    step_id: &str,
    headers: &mut Vec<(String, String)>,
    query: &mut Vec<(String, String)>,
    cookies: &mut Vec<(String, String)>,
) -> Result<Vec<String>, RunError> {
    let fail = |m: String| RunError::step(step_id, m);
    let mut secret_headers = Vec::new();
    if !op.security.is_empty() {
        let complete = op.security.iter().find(|alternative| {
            alternative.iter().all(|name| {
                set.schemes.iter().any(|s| &s.name == name)
                    && secrets.get(name).is_some_and(|s| !s.is_empty())
            })
        });
        let Some(alternative) = complete else {
            let missing = op
                .security
                .first()
                .and_then(|alt| {
                    alt.iter().find(|name| {
                        !(set.schemes.iter().any(|s| &s.name == *name)
                            && secrets.get(name).is_some_and(|s| !s.is_empty()))
                    })
                })
                .cloned()
                .unwrap_or_default();
            return Err(RunError::MissingSecret { scheme: missing });
        };
        for name in alternative {
            let (Some(scheme), Some(secret)) = (
                set.schemes.iter().find(|s| &s.name == name),
                secrets.get(name),
            ) else {
                continue;
            };
            match &scheme.kind {
                SchemeKind::ApiKey { location, param } => match location {
                    ParamIn::Header => {
                        headers.retain(|(k, _)| !k.eq_ignore_ascii_case(param));
                        headers.push((param.clone(), secret.to_string()));
                        secret_headers.push(param.clone());
                    }
                    ParamIn::Query => {
                        query.retain(|(k, _)| k != param);
                        query.push((param.clone(), secret.to_string()));
                    }
                    ParamIn::Cookie => {
                        cookies.retain(|(k, _)| k != param);
                        cookies.push((param.clone(), secret.to_string()));
                        secret_headers.push("Cookie".into());
                    }
                    ParamIn::Path => {
                        return Err(fail(format!(
                            "the security scheme `{name}` puts its key in the path"
                        )));
                    }
                },
                SchemeKind::Bearer => {
                    headers.retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
                    headers.push(("Authorization".into(), format!("Bearer {secret}")));
                    secret_headers.push("Authorization".into());
                }
                SchemeKind::Basic => {
                    headers.retain(|(k, _)| !k.eq_ignore_ascii_case("authorization"));
                    let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
                    headers.push(("Authorization".into(), format!("Basic {b64}")));
                    secret_headers.push("Authorization".into());
                }
            }
        }
    }
    Ok(secret_headers)
}
