//! Hooks on the wire: Claude Code's hook events by their own names (as a
//! `settings.json` spells them), where a hook was defined, and one run of a
//! hook as an event (`hook_ran`): what ran, for what, and what it decided.

use serde::{Deserialize, Serialize};

/// When a hook runs: Claude Code's events, spelled as in its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
pub enum HookEvent {
    SessionStart,
    SessionEnd,
    UserPromptSubmit,
    PreToolUse,
    PermissionRequest,
    PostToolUse,
    PostToolUseFailure,
    Notification,
    Stop,
    SubagentStart,
    SubagentStop,
    PreCompact,
}

impl HookEvent {
    pub const ALL: [HookEvent; 12] = [
        Self::SessionStart,
        Self::SessionEnd,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::PermissionRequest,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::Notification,
        Self::Stop,
        Self::SubagentStart,
        Self::SubagentStop,
        Self::PreCompact,
    ];

    /// The name as settings and a hook's stdin (`hook_event_name`) spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PermissionRequest => "PermissionRequest",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::Notification => "Notification",
            Self::Stop => "Stop",
            Self::SubagentStart => "SubagentStart",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// Whose file defined a hook: what it may decide depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum HookOrigin {
    /// The person's own settings (`~/.claude/settings.json`, Arbor's config dir, the app's
    /// Settings) or agent files: it may let a call run that the policy would ask about.
    User,
    /// A workspace's `.claude/settings.json`, `settings.local.json` or agent file, run once
    /// the workspace is trusted: it may refuse, ask or add, never decide more loosely.
    Workspace,
}

/// What a hook's run decided, as Arbor applied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// Ran and decided nothing.
    Nothing,
    /// Let the tool call run without asking (PreToolUse, PermissionRequest).
    Allow,
    /// Refused the tool call.
    Deny,
    /// Had a person asked about the call, whatever the policy said.
    Ask,
    /// Blocked what it ran for: a prompt, the end of a turn, a tool's result.
    Block,
    /// Stopped the agent (`"continue": false`).
    Stop,
    /// Added context for the model.
    Context,
    /// Decided more loosely than the person's policy allows a workspace's hook to: not applied.
    Ignored,
    /// Failed (an exit code other than 0 and 2, output that is not the JSON it should be,
    /// or a command that could not start): shown, nothing decided.
    Failed,
    /// Still running at its timeout: killed, nothing decided.
    TimedOut,
}

/// One run of one hook command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct HookRan {
    pub hook_event: HookEvent,
    /// The settings or agent file it is defined in.
    pub source: String,
    pub origin: HookOrigin,
    /// Its matcher as written; None when it matches everything.
    #[serde(default)]
    pub matcher: Option<String>,
    /// The command as written (cut when very long).
    pub command: String,
    /// The tool call it ran for (PreToolUse, PermissionRequest, PostToolUse…).
    #[serde(default)]
    pub call_id: Option<String>,
    /// None when it was killed at its timeout or could not start.
    #[serde(default)]
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub decision: HookDecision,
    /// In words: its reason, its stderr on an error, its `systemMessage` (cut when long).
    #[serde(default)]
    pub message: Option<String>,
}

impl HookDecision {
    /// Each decision with its words: the UI's labels.
    pub const WORDS: [(HookDecision, &'static str); 10] = [
        (Self::Nothing, Self::Nothing.describe()),
        (Self::Allow, Self::Allow.describe()),
        (Self::Deny, Self::Deny.describe()),
        (Self::Ask, Self::Ask.describe()),
        (Self::Block, Self::Block.describe()),
        (Self::Stop, Self::Stop.describe()),
        (Self::Context, Self::Context.describe()),
        (Self::Ignored, Self::Ignored.describe()),
        (Self::Failed, Self::Failed.describe()),
        (Self::TimedOut, Self::TimedOut.describe()),
    ];

    /// In words, as a transcript line says it.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Nothing => "decided nothing",
            Self::Allow => "let the call run",
            Self::Deny => "refused the call",
            Self::Ask => "had you asked",
            Self::Block => "blocked",
            Self::Stop => "stopped the agent",
            Self::Context => "added context",
            Self::Ignored => "not applied",
            Self::Failed => "failed",
            Self::TimedOut => "timed out, killed",
        }
    }
}

impl HookRan {
    /// One line for a transcript, the CLI and an export: "PreToolUse hook `./guard.sh`
    /// (/w/.claude/settings.json): exit 2 after 12 ms, refused the call: rm -rf is not allowed".
    pub fn describe(&self) -> String {
        let exit = match self.exit_code {
            Some(code) => format!("exit {code}"),
            None => "no exit code".to_string(),
        };
        let mut line = format!(
            "{} hook `{}` ({}): {exit} after {} ms, {}",
            self.hook_event.as_str(),
            self.command,
            self.source,
            self.duration_ms,
            self.decision.describe()
        );
        if let Some(m) = &self.message {
            line.push_str(": ");
            line.push_str(m);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_are_claude_codes_and_a_run_reads_in_one_line() {
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.as_str()), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap(), serde_json::json!(e.as_str()));
        }
        let ran = HookRan {
            hook_event: HookEvent::PreToolUse,
            source: "/w/.claude/settings.json".into(),
            origin: HookOrigin::Workspace,
            matcher: Some("Bash".into()),
            command: "./guard.sh".into(),
            call_id: Some("c1".into()),
            exit_code: Some(2),
            duration_ms: 12,
            decision: HookDecision::Deny,
            message: Some("no rm -rf".into()),
        };
        assert_eq!(
            ran.describe(),
            "PreToolUse hook `./guard.sh` (/w/.claude/settings.json): exit 2 after 12 ms, refused the call: no rm -rf"
        );
    }
}
