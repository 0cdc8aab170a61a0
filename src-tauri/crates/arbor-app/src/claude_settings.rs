//! Claude Code's settings files, read unchanged: their `hooks` and their
//! `permissions`. The person's own (`~/.claude/settings.json`, Arbor's config
//! dir's `settings.json`) always load. A workspace's (`.claude/settings.json`,
//! `.claude/settings.local.json`) load its hooks and `allow` rules only from
//! the text a person trusted (`trust.rs`), since hooks run outside the agents'
//! sandbox and an allow rule lets calls run unasked; its `deny` and `ask`
//! rules only tighten, and always load.

use crate::env::Environment;
use arbor_core::hooks::{self, Hook, HookSet};
use arbor_core::permissions::PermissionRules;
use arbor_protocol::HookOrigin;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A permission rule of a settings file, as a front end lists it under Active rules.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
pub struct SettingsRule {
    pub decision: arbor_protocol::ApprovalChoice,
    /// As written: `Bash(npm run test:*)`.
    pub rule: String,
    pub source: String,
}

impl SettingsRule {
    pub fn of(rules: &PermissionRules) -> Vec<SettingsRule> {
        rules
            .rules()
            .iter()
            .map(|r| SettingsRule {
                decision: r.decision.into(),
                rule: r.text.clone(),
                source: r.source.display().to_string(),
            })
            .collect()
    }
}

/// `policy` with the settings files' `defaultMode`s applied (Claude Code's modes on
/// Arbor's policy): a mode that tightens always; one that loosens only from the person's
/// own settings and only when `explicit` is false (no `--approve` nor a choice made for
/// this session). A mode Arbor does not know is reported.
pub fn with_default_modes(
    mut policy: arbor_core::ApprovalPolicy,
    modes: &[(String, HookOrigin)],
    explicit: bool,
    problems: &mut Vec<String>,
) -> arbor_core::ApprovalPolicy {
    use arbor_protocol::PermissionMode;
    for (mode, origin) in modes {
        let Ok(parsed) = serde_json::from_value::<PermissionMode>(Value::String(mode.clone())) else {
            problems.push(format!(
                "defaultMode \"{}\" is not a mode Arbor knows; ignored",
                arbor_protocol::text::quote(mode, 40)
            ));
            continue;
        };
        let loosens = matches!(parsed, PermissionMode::AcceptEdits | PermissionMode::BypassPermissions);
        if loosens && explicit {
            continue;
        }
        policy = policy.for_child(parsed, *origin == HookOrigin::User);
    }
    policy
}

/// Where a session's settings files are found.
pub struct Sources<'a> {
    pub env: &'a crate::env::Environment,
    pub config_dir: Option<&'a Path>,
    pub data_dir: Option<&'a Path>,
    pub workspace: &'a Path,
}

/// What the launch asks beside the files.
pub struct Applying {
    /// `--agent`, or the app's choice; None: the settings' `agent`.
    pub main_type: Option<String>,
    /// The approval mode was chosen for this launch (`--approve`): a loosening `defaultMode` gives way.
    pub explicit: bool,
    /// The scripted demo: its policy is its own.
    pub demo: bool,
}

/// What the settings gave a session, for its front end.
pub struct Applied {
    /// What could not be used, in words.
    pub warnings: Vec<String>,
    /// The permission rules in force (Active rules).
    pub rules: Vec<SettingsRule>,
}

impl Sources<'_> {
    /// Puts the settings files' hooks, permission rules, `defaultMode` and `agent` into `config`:
    /// the person's own files always; the workspace's hooks and allow rules from `trusted`
    /// (the text a person trusted), its deny and ask rules as they are now.
    pub fn apply(
        &self,
        config: &mut arbor_core::SessionConfig,
        trusted: Option<crate::trust::Trusted>,
        asked: Applying,
    ) -> Applied {
        let mut files = user_files(self.env, self.config_dir);
        let workspace_trusted = trusted.is_some();
        files.extend(trusted.map(|t| t.settings).unwrap_or_default());
        let (hooks, mut warnings) = set(&files);
        for p in &warnings {
            tracing::warn!("hooks: {p}");
        }
        warnings = warnings.into_iter().map(|p| format!("hooks: {p}")).collect();
        config.main_agent.agent_type = asked.main_type.or_else(|| main_agent(&files));
        config.hooks = hooks;
        config.hook_transcripts = self.data_dir.map(|d| d.join("hook-transcripts"));
        config.hook_env = self.env.for_hooks();
        if !workspace_trusted {
            files.extend(workspace_files(self.workspace));
        }
        let home = self.env.dir("HOME");
        let (rules, modes, mut problems) = permissions(&files, self.workspace, home.as_deref(), workspace_trusted);
        if !asked.demo {
            config.approval = with_default_modes(config.approval.clone(), &modes, asked.explicit, &mut problems);
        }
        warnings.extend(problems.into_iter().map(|p| format!("permissions: {p}")));
        let listed = SettingsRule::of(&rules);
        config.permissions = rules;
        Applied { warnings, rules: listed }
    }
}

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

/// A top-level object of a settings file (`hooks`, `permissions`); Err in words when
/// the file is not JSON.
pub fn section(file: &SettingsText, key: &str) -> Result<Value, String> {
    if file.text.trim().is_empty() {
        return Ok(Value::Null);
    }
    let v: Value = serde_json::from_str(&file.text)
        .map_err(|e| format!("{} is not valid JSON ({e}); its {key} were not loaded", file.path.display()))?;
    Ok(v.get(key).cloned().unwrap_or(Value::Null))
}

/// The hooks of `files`, and what could not be used, in words.
pub fn load(files: &[SettingsText]) -> (Vec<Hook>, Vec<String>) {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for f in files {
        match section(f, "hooks") {
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

/// The `agent` the settings name for the main agent (the last file that names one wins:
/// the workspace's over the person's).
pub fn main_agent(files: &[SettingsText]) -> Option<String> {
    files
        .iter()
        .filter_map(|f| serde_json::from_str::<Value>(&f.text).ok())
        .filter_map(|v| {
            v.get("agent").and_then(Value::as_str).map(str::trim).filter(|a| !a.is_empty()).map(str::to_string)
        })
        .next_back()
}

/// The permission rules of `files`. A workspace's `allow` rules are left out unless
/// `workspace_allows` (it is trusted). Also each file's `defaultMode` as written, and
/// what could not be used.
pub fn permissions(
    files: &[SettingsText],
    workspace: &Path,
    home: Option<&Path>,
    workspace_allows: bool,
) -> (PermissionRules, Vec<(String, HookOrigin)>, Vec<String>) {
    let mut rules = Vec::new();
    let mut modes = Vec::new();
    let mut problems = Vec::new();
    for f in files {
        match section(f, "permissions") {
            Ok(v) => {
                let loaded = arbor_core::permissions::parse(
                    &v,
                    &f.path,
                    f.origin,
                    &arbor_core::permissions::arbor_tool,
                    (workspace, home),
                );
                rules.extend(loaded.rules.into_iter().filter(|r| {
                    workspace_allows || f.origin == HookOrigin::User || r.decision != arbor_core::Decision::Allow
                }));
                modes.extend(loaded.default_mode.map(|m| (m, f.origin)));
                problems.extend(loaded.problems);
            }
            Err(why) => problems.push(why),
        }
    }
    (PermissionRules::new(rules), modes, problems)
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

    #[test]
    fn default_modes_map_to_the_policy_a_workspace_only_tightening_an_explicit_choice_kept() {
        use arbor_core::approval::Decision;
        use arbor_core::tools::ToolClass;
        let base = arbor_core::ApprovalPolicy::default;
        let user = |m: &str| (m.to_string(), HookOrigin::User);
        let ws = |m: &str| (m.to_string(), HookOrigin::Workspace);
        let mut problems = Vec::new();
        let p = with_default_modes(base(), &[user("bypassPermissions")], false, &mut problems);
        assert_eq!(p.decide("Bash", ToolClass::Mutating), Decision::Allow);
        let p = with_default_modes(base(), &[ws("bypassPermissions")], false, &mut problems);
        assert_eq!(p.decide("Bash", ToolClass::Mutating), Decision::Ask, "a workspace never loosens");
        let p = with_default_modes(base(), &[user("acceptEdits")], true, &mut problems);
        assert_eq!(p.decide("Edit", ToolClass::Mutating), Decision::Ask, "--approve ask was chosen for this run");
        let p = with_default_modes(base(), &[ws("plan")], true, &mut problems);
        assert_eq!(p.decide("Write", ToolClass::Mutating), Decision::Deny, "tightening always applies");
        assert!(problems.is_empty());
        with_default_modes(base(), &[user("yolo")], false, &mut problems);
        assert!(problems[0].contains("\"yolo\" is not a mode Arbor knows"), "{problems:?}");
    }
}
