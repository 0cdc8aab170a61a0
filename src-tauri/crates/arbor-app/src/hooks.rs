//! Where a session's hooks come from: Claude Code's settings files, read
//! unchanged. The person's own (`~/.claude/settings.json`, Arbor's config
//! dir's `settings.json`) always load; a workspace's (`.claude/settings.json`,
//! `.claude/settings.local.json`) only from the text a person trusted
//! (`trust.rs`), since hooks run outside the agents' sandbox.

use crate::env::Environment;
use arbor_core::hooks::{self, Hook, HookSet};
use arbor_protocol::HookOrigin;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A settings file as read: where, whose, and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsText {
    pub path: PathBuf,
    pub origin: HookOrigin,
    pub text: String,
}

/// Claude Code's user settings dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_dir(env: &Environment) -> Option<PathBuf> {
    env.dir("CLAUDE_CONFIG_DIR").or_else(|| env.dir("HOME").map(|h| h.join(".claude")))
}

/// The person's own settings files that exist: Claude Code's, then Arbor's.
pub fn user_files(env: &Environment, config_dir: Option<&Path>) -> Vec<SettingsText> {
    let candidates = [claude_dir(env).map(|d| d.join("settings.json")), config_dir.map(|d| d.join("settings.json"))];
    candidates.into_iter().flatten().filter_map(|p| read(&p, HookOrigin::User)).collect()
}

/// The workspace's settings files that exist (shared, then local), as they are now.
pub fn workspace_files(workspace: &Path) -> Vec<SettingsText> {
    ["settings.json", "settings.local.json"]
        .into_iter()
        .filter_map(|name| read(&workspace.join(".claude").join(name), HookOrigin::Workspace))
        .collect()
}

fn read(path: &Path, origin: HookOrigin) -> Option<SettingsText> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(SettingsText { path: path.to_path_buf(), origin, text })
}

/// The `hooks` object of a settings file; Err in words when the file is not JSON.
pub fn hooks_value(file: &SettingsText) -> Result<Value, String> {
    if file.text.trim().is_empty() {
        return Ok(Value::Null);
    }
    let v: Value = serde_json::from_str(&file.text)
        .map_err(|e| format!("{} is not valid JSON ({e}); its hooks were not loaded", file.path.display()))?;
    Ok(v.get("hooks").cloned().unwrap_or(Value::Null))
}

/// The hooks of `files`, and what could not be used, in words.
pub fn load(files: &[SettingsText]) -> (Vec<Hook>, Vec<String>) {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for f in files {
        match hooks_value(f) {
            Ok(v) => {
                let (found, bad) = hooks::parse(&v, &f.path, f.origin);
                all.extend(found);
                problems.extend(bad);
            }
            Err(why) => problems.push(why),
        }
    }
    (all, problems)
}

/// The hooks as one set.
pub fn set(files: &[SettingsText]) -> (HookSet, Vec<String>) {
    let (hooks, problems) = load(files);
    (HookSet::new(hooks), problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_persons_files_and_the_workspaces_load_with_their_origin_and_a_bad_file_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let config = dir.path().join("config");
        let ws = dir.path().join("ws");
        for d in [home.join(".claude"), config.clone(), ws.join(".claude")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let hook =
            |cmd: &str| format!(r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{cmd}"}}]}}]}}}}"#);
        std::fs::write(home.join(".claude/settings.json"), hook("claude-user")).unwrap();
        std::fs::write(config.join("settings.json"), hook("arbor-user")).unwrap();
        std::fs::write(ws.join(".claude/settings.json"), hook("shared")).unwrap();
        std::fs::write(ws.join(".claude/settings.local.json"), "{ not json").unwrap();
        let env = Environment::default().with("HOME", &home.display().to_string());
        let mut files = user_files(&env, Some(&config));
        files.extend(workspace_files(&ws));
        let (hooks, problems) = load(&files);
        let got: Vec<_> = hooks.iter().map(|h| (h.command.as_str(), h.origin)).collect();
        assert_eq!(
            got,
            [("claude-user", HookOrigin::User), ("arbor-user", HookOrigin::User), ("shared", HookOrigin::Workspace)]
        );
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("settings.local.json is not valid JSON"), "{problems:?}");
        let env = env.with("CLAUDE_CONFIG_DIR", &dir.path().join("elsewhere").display().to_string());
        assert_eq!(user_files(&env, None).len(), 0, "CLAUDE_CONFIG_DIR is where Claude Code's settings are");
    }
}
