//! The process environment, captured once by a binary at its edge and passed
//! in: no library code reads environment variables. Values may be keys, so
//! `Debug` shows the names only.

use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Default)]
pub struct Environment {
    vars: BTreeMap<String, String>,
}

impl Environment {
    /// From the process's variables (`std::env::vars()`), or a test's own.
    pub fn capture(vars: impl IntoIterator<Item = (String, String)>) -> Self {
        Self { vars: vars.into_iter().collect() }
    }

    /// A variable's value, trimmed; None when unset or blank.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    /// A variable naming a directory.
    pub fn dir(&self, name: &str) -> Option<PathBuf> {
        self.get(name).map(PathBuf::from)
    }

    /// The raw value, for `${VAR}` in MCP configs (which may want an empty one).
    pub fn raw(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    /// What a hook command runs with: every variable but the providers' keys (`*_API_KEY`),
    /// which no hook needs.
    pub fn for_hooks(&self) -> Vec<(String, String)> {
        self.vars.iter().filter(|(k, _)| !k.ends_with("_API_KEY")).map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// With one more variable set (tests, and a binary's own defaults).
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_string(), value.to_string());
        self
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment").field("names", &self.vars.keys().collect::<Vec<_>>()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_get_every_variable_but_the_providers_keys() {
        let env = Environment::capture([
            ("PATH".to_string(), "/bin".to_string()),
            ("ANTHROPIC_API_KEY".to_string(), "sk-ant-secret".to_string()),
            ("OPENAI_API_KEY".to_string(), "sk-secret".to_string()),
            ("GITHUB_TOKEN".to_string(), "ghp".to_string()),
        ]);
        let names: Vec<String> = env.for_hooks().into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["GITHUB_TOKEN", "PATH"], "a hook is the person's command: their other variables are theirs");
    }
}
