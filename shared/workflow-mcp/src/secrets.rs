//! A server's opened secrets, by security scheme name, for one run. `Debug` shows the names only.

use std::collections::HashMap;

/// Secret values by scheme name.
#[derive(Default)]
pub struct SecretValues(HashMap<String, String>);

impl SecretValues {
    pub fn new(values: HashMap<String, String>) -> Self {
        SecretValues(values)
    }
}

impl std::fmt::Debug for SecretValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<&String> = self.0.keys().collect();
        names.sort();
        f.debug_struct("SecretValues")
            .field("names", &names)
            .finish_non_exhaustive()
    }
}

impl specpress_workflow::Secrets for SecretValues {
    fn get(&self, scheme: &str) -> Option<&str> {
        self.0.get(scheme).map(String::as_str)
    }
}
