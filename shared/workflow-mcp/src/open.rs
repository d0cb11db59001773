//! What a request opens: the server named in the URL, its current version's workflows (decoded once per version
//! and process: a version never changes) and, for the MCP endpoint, its secrets.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use specpress_domain::mcp::{CurrentVersion, McpServer, PageAccess};
use specpress_domain::usecases::mcp_servers;
use specpress_workflow::WorkflowSet;

use crate::WorkflowState;
use crate::secrets::SecretValues;

/// Decoded versions kept per process (a version's model is immutable; past this many the cache starts over).
const DECODED_VERSIONS: usize = 64;

static DECODED: LazyLock<Mutex<HashMap<String, Arc<WorkflowSet>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The workflows of a version.
pub(crate) fn workflows(version: &CurrentVersion) -> Result<Arc<WorkflowSet>, ()> {
    let key = version.id.to_string();
    if let Some(set) = DECODED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return Ok(Arc::clone(set));
    }
    let set: WorkflowSet = serde_json::from_slice(&version.model).map_err(|e| {
        tracing::error!(version = %key, error = %e, "a stored workflow model does not decode");
    })?;
    let set = Arc::new(set);
    let mut cache = DECODED.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.len() >= DECODED_VERSIONS {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&set));
    Ok(set)
}

/// What the MCP endpoint runs with.
pub(crate) struct Opened {
    pub set: Option<Arc<WorkflowSet>>,
    pub secrets: Arc<SecretValues>,
}

/// The server `key` names when `credential` opens it (`Ok(None)`: unknown server or wrong credential alike);
/// `Err` when storage failed (logged).
pub(crate) async fn runtime(
    st: &WorkflowState,
    key: &str,
    credential: &str,
) -> Result<Option<Opened>, ()> {
    let view = mcp_servers::open_runtime(st.app.store.as_ref(), &st.sealer, key, credential)
        .await
        .map_err(|e| tracing::error!(error = %e, "an MCP server could not be opened"))?;
    let Some(view) = view else {
        return Ok(None);
    };
    let set = match &view.current {
        Some(v) => Some(workflows(v)?),
        None => None,
    };
    let secrets = view
        .secrets
        .0
        .iter()
        .map(|(name, value)| (name.clone(), value.expose().to_owned()))
        .collect();
    Ok(Some(Opened {
        set,
        secrets: Arc::new(SecretValues::new(secrets)),
    }))
}

/// What the page of a server shows.
pub(crate) type Page = (McpServer, Option<(CurrentVersion, Arc<WorkflowSet>)>);

/// The server `key` names and its current workflows, for its page, as the caller presenting `credential` may see
/// it (`Ok(Err(credential_failed))`: unknown, or private to this caller).
pub(crate) async fn public(
    st: &WorkflowState,
    key: &str,
    credential: Option<&str>,
) -> Result<Result<Page, bool>, ()> {
    let access = mcp_servers::open_page(st.app.store.as_ref(), key, credential)
        .await
        .map_err(|e| tracing::error!(error = %e, "an MCP server page could not be read"))?;
    let view = match access {
        PageAccess::Shown(view) => *view,
        PageAccess::NotFound { credential_failed } => return Ok(Err(credential_failed)),
    };
    let current = match view.current {
        Some(v) => {
            let set = workflows(&v)?;
            Some((v, set))
        }
        None => None,
    };
    Ok(Ok((view.server, current)))
}
