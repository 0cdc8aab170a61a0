//! The scenario format: rules that route a request by its content, and the
//! model turns each rule plays. Unknown fields are rejected so a typo in a
//! scenario file fails loudly instead of silently changing a test.

use crate::TestkitError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A whole scripted conversation set, usually read from
/// `tests/scenarios/<name>.json`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Play a local server (llama.cpp, Ollama): requests need no API key.
    #[serde(default)]
    pub keyless: bool,
    /// The model's context window, in the server's tokens (a request's characters
    /// over four): a longer request gets the provider's real refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    pub rules: Vec<Rule>,
}

/// Plays `turns` for every request that satisfies `matcher`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    #[serde(rename = "match", default)]
    pub matcher: Match,
    /// Replay the last turn when the conversation has more assistant
    /// messages than there are turns.
    #[serde(default)]
    pub repeat_last: bool,
    pub turns: Vec<Turn>,
}

/// Conditions on the request; all given ones must hold (substring tests).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_user_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user_contains: Option<String>,
    /// The last tool result's text: a rule for the turn after a given call,
    /// however many assistant messages the conversation holds (after a compaction, fewer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_result_contains: Option<String>,
    /// The request's `model`, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// One model response.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// May contain `{{last_tool_result}}` and `{{first_user}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_first: Option<FailFirst>,
    /// Always answer with this HTTP error status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default)]
    pub delay_ms: u64,
    /// The stream's pace: event n goes out n × this after the first (a backlog is sent at once).
    #[serde(default)]
    pub chunk_delay_ms: u64,
    /// Send exactly this many SSE events, then break the connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_after_events: Option<usize>,
    /// End the stream with an in-stream error instead of a clean stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_event: Option<ErrorEvent>,
    /// OpenAI only: repeat each tool call's id and name in every delta, as
    /// llama-cpp-python and some other compatible servers do.
    #[serde(default)]
    pub repeat_tool_header: bool,
    /// Either API's vocabulary; translated for the other one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// Generated deterministically when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// Serialized as the arguments; `{}` when neither this nor `raw_arguments` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// Sent verbatim, to imitate malformed model output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_arguments: Option<String>,
}

impl ToolCallSpec {
    /// The arguments string as the model would stream it.
    pub fn arguments(&self) -> String {
        match (&self.raw_arguments, &self.input) {
            (Some(raw), _) => raw.clone(),
            (None, Some(input)) => input.to_string(),
            (None, None) => "{}".to_string(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FailFirst {
    pub status: u16,
    pub times: u32,
    /// Seconds, sent as the `retry-after` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorEvent {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Scenario {
    pub fn from_json(s: &str) -> Result<Self, TestkitError> {
        Self::parse(s, "<string>")
    }

    pub fn from_file(p: &Path) -> Result<Self, TestkitError> {
        let text = std::fs::read_to_string(p).map_err(|source| TestkitError::Io { path: p.to_path_buf(), source })?;
        Self::parse(&text, &p.display().to_string())
    }

    /// Reads `<scenarios_dir>/<name>.json`.
    pub fn load(name: &str) -> Result<Self, TestkitError> {
        Self::from_file(&Self::scenarios_dir().join(format!("{name}.json")))
    }

    /// `$ARBOR_SCENARIOS_DIR` when set, else the repository's `tests/scenarios`.
    pub fn scenarios_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("ARBOR_SCENARIOS_DIR") {
            return PathBuf::from(dir);
        }
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        // The crate lives at <repo>/src-tauri/crates/arbor-testkit.
        let repo = manifest.ancestors().nth(3).unwrap_or(manifest);
        repo.join("tests").join("scenarios")
    }

    fn parse(text: &str, file: &str) -> Result<Self, TestkitError> {
        let scenario: Scenario =
            serde_json::from_str(text).map_err(|source| TestkitError::Json { file: file.to_string(), source })?;
        scenario.check().map_err(|message| TestkitError::Scenario { file: file.to_string(), message })?;
        Ok(scenario)
    }

    /// Semantic checks serde cannot express.
    pub(crate) fn check(&self) -> Result<(), String> {
        for (r, rule) in self.rules.iter().enumerate() {
            if rule.turns.is_empty() {
                return Err(format!("rule {r} has no turns"));
            }
            for (t, turn) in rule.turns.iter().enumerate() {
                let at = format!("rule {r} turn {t}");
                for call in &turn.tool_calls {
                    if call.input.is_some() && call.raw_arguments.is_some() {
                        return Err(format!("{at}: tool call {} has both input and raw_arguments", call.name));
                    }
                    if call.name.is_empty() {
                        return Err(format!("{at}: a tool call has an empty name"));
                    }
                }
                if let Some(status) = turn.status
                    && !(400..=599).contains(&status)
                {
                    return Err(format!("{at}: status {status} is not an HTTP error status"));
                }
                if let Some(fail) = &turn.fail_first
                    && !(400..=599).contains(&fail.status)
                {
                    return Err(format!("{at}: fail_first.status {} is not an HTTP error status", fail.status));
                }
            }
        }
        Ok(())
    }
}
