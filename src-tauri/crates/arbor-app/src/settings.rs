//! The user's settings (`<config dir>/settings.json`): provider base URLs and
//! models, limits, approval choices per tool, the last workspace. Never keys:
//! those live in the keyring. A file that cannot be read is reported and left
//! untouched; the app runs on defaults until the user saves.

use arbor_core::approval::Decision;
use arbor_core::{ApprovalPolicy, Limits};
use arbor_protocol::Budget;
pub use arbor_protocol::{ApprovalChoice, ProviderKind, SandboxMode, SandboxRequest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct ProviderSettings {
    /// None: the environment's base URL variable, else the vendor's endpoint.
    pub base_url: Option<String>,
    pub default_model: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct LimitSettings {
    pub max_parallel: u32,
    pub max_depth: u32,
    pub max_subagents: u32,
    pub subagent_max_turns: u32,
    pub main_max_turns: u32,
    /// Sessions that may run side by side; past it, the oldest finished one is closed.
    pub max_live_sessions: u32,
}

impl Default for LimitSettings {
    fn default() -> Self {
        let l = Limits::default();
        Self {
            max_parallel: u32::try_from(l.max_parallel).unwrap_or(5),
            max_depth: l.max_depth,
            max_subagents: l.max_subagents,
            subagent_max_turns: l.subagent_max_turns,
            main_max_turns: 100,
            max_live_sessions: 8,
        }
    }
}

/// Budgets sessions start with (design.md §3.4b).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct BudgetSettings {
    /// The session's: the main agent's budget, covering the whole tree.
    pub session: Budget,
    /// Every subagent's, unless its type, its Task call or a person says otherwise.
    pub subagent: Budget,
    /// The spawn-rate guard: new subagents a minute the models may start (0: no guard).
    pub max_spawns_per_minute: u32,
}

impl Default for BudgetSettings {
    fn default() -> Self {
        Self {
            session: Budget::default(),
            subagent: Budget::default(),
            max_spawns_per_minute: Limits::default().max_spawns_per_minute,
        }
    }
}

/// How long to wait for a model before giving up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct TimeoutSettings {
    /// A model's stream may go this long without data (providers send pings while they think).
    pub idle_seconds: u32,
    /// The most time one model turn may take, retries included.
    pub retry_budget_seconds: u32,
}

impl Default for TimeoutSettings {
    fn default() -> Self {
        Self { idle_seconds: 120, retry_budget_seconds: 300 }
    }
}

/// Agents' context windows and when they compact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct ContextSettings {
    /// Every model's window in tokens (a local server's `-c`, say); None: each model's own.
    pub window: Option<u64>,
    /// Compact when an agent's next request would fill this share of its window.
    pub compact_at_percent: u8,
    /// The model that writes compaction summaries (a cheaper one, on the agent's provider);
    /// None: the agent's own.
    pub summary_model: Option<String>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        let c = arbor_core::ContextConfig::default();
        Self { window: c.window, compact_at_percent: c.compact_at_percent, summary_model: c.summary_model }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct Settings {
    /// None: the first provider that is ready.
    pub default_provider: Option<ProviderKind>,
    pub anthropic: ProviderSettings,
    pub openai: ProviderSettings,
    pub limits: LimitSettings,
    pub timeouts: TimeoutSettings,
    /// Per tool name; tools not listed follow their class's default.
    pub approvals: BTreeMap<String, ApprovalChoice>,
    pub last_workspace: Option<String>,
    pub sandbox: SandboxSettings,
    pub budgets: BudgetSettings,
    pub context: ContextSettings,
}

/// The sandbox sessions start with (the main agent's; subagents start from it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct SandboxSettings {
    pub mode: SandboxMode,
    /// Commands may open network connections.
    pub network: bool,
    /// Directories commands may also write to (absolute, or `~/…`).
    pub write: Vec<String>,
    /// Commands the sandbox holds run without asking a person.
    pub run_sandboxed_without_asking: bool,
}

impl SandboxSettings {
    /// As a request over the runtime's defaults.
    pub fn request(&self) -> SandboxRequest {
        SandboxRequest { mode: Some(self.mode), network: Some(self.network), write: Some(self.write.clone()) }
    }
}

/// The longest model name Settings takes (providers' names are far shorter).
const MODEL_NAME_MAX: usize = 200;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read the settings file {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("cannot save the settings file {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("{0}")]
    Invalid(String),
}

impl Settings {
    pub fn provider(&self, kind: ProviderKind) -> &ProviderSettings {
        match kind {
            ProviderKind::Anthropic => &self.anthropic,
            ProviderKind::Openai => &self.openai,
        }
    }

    /// Reads `path`; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(e) => return Err(SettingsError::Read { path: path.to_path_buf(), reason: e.to_string() }),
        };
        let settings: Settings = serde_json::from_str(&text)
            .map_err(|e| SettingsError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
        settings.validate()?;
        Ok(settings)
    }

    /// Writes to a temporary file beside `path`, then renames it over: a full
    /// disk or a crash leaves the old file whole.
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        self.validate()?;
        let err = |reason: String| SettingsError::Write { path: path.to_path_buf(), reason };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        let mut value = serde_json::to_value(self).map_err(|e| err(e.to_string()))?;
        // What the file holds besides Arbor's own settings (Claude Code's `hooks`, `permissions`,
        // `agent`, written by hand) is kept as it was.
        let before =
            std::fs::read_to_string(path).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        if let (Some(serde_json::Value::Object(before)), serde_json::Value::Object(now)) = (before, &mut value) {
            for (key, kept) in before {
                now.entry(key).or_insert(kept);
            }
        }
        let text = serde_json::to_string_pretty(&value).map_err(|e| err(e.to_string()))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(|e| err(e.to_string()))?;
        std::fs::rename(&tmp, path).map_err(|e| err(e.to_string()))
    }

    /// Values the runtime cannot honour are refused with the field named.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let l = &self.limits;
        let checks = [
            ("limits.max_parallel", l.max_parallel, 1, 64),
            ("limits.max_depth", l.max_depth, 0, 8),
            ("limits.max_subagents", l.max_subagents, 0, 1000),
            ("limits.subagent_max_turns", l.subagent_max_turns, 1, 1000),
            ("limits.main_max_turns", l.main_max_turns, 1, 1000),
            ("limits.max_live_sessions", l.max_live_sessions, 1, 64),
            ("timeouts.idle_seconds", self.timeouts.idle_seconds, 1, 3600),
            ("timeouts.retry_budget_seconds", self.timeouts.retry_budget_seconds, 1, 86_400),
            ("budgets.max_spawns_per_minute", self.budgets.max_spawns_per_minute, 0, 10_000),
            ("context.compact_at_percent", u32::from(self.context.compact_at_percent), 10, 100),
        ];
        for (field, value, min, max) in checks {
            if !(min..=max).contains(&value) {
                return Err(SettingsError::Invalid(format!("{field} must be between {min} and {max}, not {value}")));
            }
        }
        if let Some(w) = self.context.window.filter(|w| !(1_000..=100_000_000).contains(w)) {
            return Err(SettingsError::Invalid(format!(
                "context.window must be between 1000 and 100000000 tokens, or left empty for each model's own, not {w}"
            )));
        }
        if let Some(model) = self.context.summary_model.as_deref()
            && (model.chars().count() > MODEL_NAME_MAX || model.chars().any(char::is_control))
        {
            let shown: String = model.chars().take(40).filter(|c| !c.is_control()).collect();
            return Err(SettingsError::Invalid(format!(
                "context.summary_model must be a model's name (at most {MODEL_NAME_MAX} characters, one line), not {shown:?}…"
            )));
        }
        for (name, b) in [("budgets.session", &self.budgets.session), ("budgets.subagent", &self.budgets.subagent)] {
            if let Some(field) = b.invalid_field() {
                return Err(SettingsError::Invalid(format!(
                    "{name}.{field} must be above 0, or left empty for no limit"
                )));
            }
        }
        for (kind, p) in [("anthropic", &self.anthropic), ("openai", &self.openai)] {
            if let Some(url) = p.base_url.as_deref().filter(|u| !u.trim().is_empty())
                && !(url.starts_with("http://") || url.starts_with("https://"))
            {
                return Err(SettingsError::Invalid(format!(
                    "{kind}.base_url must start with http:// or https://, not {url:?}"
                )));
            }
        }
        Ok(())
    }

    pub fn runtime_limits(&self) -> Limits {
        let l = &self.limits;
        Limits {
            max_parallel: l.max_parallel as usize,
            max_depth: l.max_depth,
            max_subagents: l.max_subagents,
            subagent_max_turns: l.subagent_max_turns,
            max_spawns_per_minute: self.budgets.max_spawns_per_minute,
            subagent_budget: self.budgets.subagent.clone(),
            ..Limits::default()
        }
    }

    pub fn approval_policy(&self) -> ApprovalPolicy {
        ApprovalPolicy {
            per_tool: self.approvals.iter().map(|(tool, c)| (tool.clone(), Decision::from(*c))).collect(),
            ..ApprovalPolicy::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_gives_defaults_and_a_saved_file_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/settings.json");
        assert_eq!(Settings::load(&path).unwrap(), Settings::default());
        let mut s = Settings { default_provider: Some(ProviderKind::Openai), ..Settings::default() };
        s.openai.base_url = Some("http://127.0.0.1:11434/v1".into());
        s.limits.max_parallel = 3;
        s.approvals.insert("Bash".into(), ApprovalChoice::Deny);
        s.save(&path).unwrap();
        let back = Settings::load(&path).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.runtime_limits().max_parallel, 3);
        assert_eq!(back.approval_policy().per_tool.get("Bash"), Some(&Decision::Deny));
    }

    #[test]
    fn saving_keeps_what_else_the_file_holds_claude_codes_hooks_and_rules() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let hooks = serde_json::json!({"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]});
        let written = serde_json::json!({"hooks": hooks, "permissions": {"allow": ["Bash(ls)"]}, "agent": "reviewer"});
        std::fs::write(&path, written.to_string()).unwrap();
        let mut s = Settings::load(&path).unwrap();
        s.limits.max_parallel = 2;
        s.save(&path).unwrap();
        let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            (&saved["hooks"], &saved["permissions"]["allow"][0], &saved["agent"]),
            (&hooks, &"Bash(ls)".into(), &"reviewer".into())
        );
        assert_eq!(Settings::load(&path).unwrap().limits.max_parallel, 2);
    }

    #[test]
    fn a_broken_file_is_an_error_naming_it_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{ not json").unwrap();
        let err = Settings::load(&path).unwrap_err().to_string();
        assert!(err.contains("settings.json"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_field_named() {
        let mut s = Settings::default();
        s.limits.max_parallel = 0;
        assert!(s.validate().unwrap_err().to_string().contains("limits.max_parallel"));
        let mut s = Settings::default();
        s.anthropic.base_url = Some("ftp://x".into());
        assert!(s.validate().unwrap_err().to_string().contains("anthropic.base_url"));
        let mut s = Settings::default();
        s.context.compact_at_percent = 5;
        assert!(s.validate().unwrap_err().to_string().contains("context.compact_at_percent"));
        let mut s = Settings::default();
        s.context.window = Some(10);
        assert!(s.validate().unwrap_err().to_string().contains("context.window"));
        let mut s = Settings::default();
        s.context.summary_model = Some("m\n".repeat(300));
        let refused = s.validate().unwrap_err().to_string();
        assert!(refused.contains("context.summary_model") && refused.len() < 200, "{refused}");
        s.context.summary_model = Some("claude-haiku-4-5".into());
        assert!(s.validate().is_ok());
        s.context.window = Some(8_192);
        assert!(s.validate().is_ok());
    }
}
