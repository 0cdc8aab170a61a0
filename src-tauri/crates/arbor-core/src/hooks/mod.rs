//! Claude Code's hooks: commands a person's (or a trusted workspace's)
//! settings run at points of an agent's life, given JSON on stdin, answering
//! with an exit code and JSON on stdout. This module holds what a hook is and
//! which hooks match; [`run`] starts one command, [`answer`] reads what it
//! said, and the agent loop fires them (`agent::hooked`).

pub(crate) mod answer;
pub(crate) mod run;

use arbor_protocol::{HookEvent, HookOrigin};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What Claude Code waits for a hook when its entry names no `timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The most a settings entry's `timeout` may ask for (a hook that hangs must not hold an agent all day).
const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// One hook command, as a settings file or an agent file defines it.
#[derive(Debug, Clone)]
pub struct Hook {
    pub event: HookEvent,
    /// As written; None for a hook that matches everything (no matcher, `""` or `*`).
    pub matcher: Option<String>,
    pattern: Option<Pattern>,
    pub command: String,
    pub timeout: Duration,
    /// The file it is defined in.
    pub source: PathBuf,
    pub origin: HookOrigin,
}

/// How a matcher matches: Claude Code's rule, names joined by `|` match exactly,
/// anything else is a regular expression searched for in the name.
#[derive(Debug, Clone)]
enum Pattern {
    Names(Vec<String>),
    Regex(regex::Regex),
}

impl Hook {
    /// Whether it runs for `subject` (a tool name, an agent type, a trigger); a hook of an
    /// event that has no subject (Stop, UserPromptSubmit) runs whatever its matcher says.
    pub fn matches(&self, subject: Option<&str>) -> bool {
        match (&self.pattern, subject) {
            (None, _) | (_, None) => true,
            (Some(Pattern::Names(names)), Some(s)) => names.iter().any(|n| n == s),
            (Some(Pattern::Regex(r)), Some(s)) => r.is_match(s),
        }
    }
}

impl PartialEq for Hook {
    /// Alike when defined alike (the compiled matcher follows from the written one).
    fn eq(&self, other: &Self) -> bool {
        (self.event, &self.matcher, &self.command, self.timeout, &self.source, self.origin)
            == (other.event, &other.matcher, &other.command, other.timeout, &other.source, other.origin)
    }
}

/// Every hook an agent runs: the session's (settings files) and its type's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookSet {
    hooks: Vec<Arc<Hook>>,
}

impl HookSet {
    pub fn new(hooks: Vec<Hook>) -> Self {
        Self { hooks: hooks.into_iter().map(Arc::new).collect() }
    }

    pub fn hooks(&self) -> impl Iterator<Item = &Hook> {
        self.hooks.iter().map(|h| h.as_ref())
    }

    /// These and `more` (an agent type's hooks over the session's).
    pub fn with(&self, more: &HookSet) -> HookSet {
        let mut hooks = self.hooks.clone();
        hooks.extend(more.hooks.iter().cloned());
        HookSet { hooks }
    }

    /// Whether any hook of `event` is defined at all (whatever it matches).
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }

    /// The hooks of `event` that match `subject`, each command once (as Claude Code
    /// runs a command two files name once).
    pub(crate) fn matching(&self, event: HookEvent, subject: Option<&str>) -> Vec<Arc<Hook>> {
        let mut out: Vec<Arc<Hook>> = Vec::new();
        for h in self.hooks.iter().filter(|h| h.event == event && h.matches(subject)) {
            if !out.iter().any(|o| o.command == h.command) {
                out.push(h.clone());
            }
        }
        out
    }
}

/// Where a session's agents' transcripts are written for their hooks
/// (`transcript_path`): `<dir>/<session>-<run>/<agent>.jsonl` under a directory the front
/// end gives (in the data dir), or under a temporary one made when a hook first needs
/// it. The files are copies of what the store keeps: they go with the session.
pub(crate) struct TranscriptDir {
    given: Option<PathBuf>,
    session: String,
    temp: std::sync::OnceLock<Option<tempfile::TempDir>>,
}

impl TranscriptDir {
    /// For a run of `session`: a directory of this run's own (a session continued in the
    /// same process while its last run winds down must not lose its files to that run's end).
    pub(crate) fn new(given: Option<PathBuf>, session: &str) -> Self {
        let run = format!("{session}-{:08x}", fastrand::u32(..));
        Self { given, session: run, temp: std::sync::OnceLock::new() }
    }

    fn dir(&self) -> Option<PathBuf> {
        let root = match &self.given {
            Some(dir) => dir.clone(),
            None => self
                .temp
                .get_or_init(|| tempfile::Builder::new().prefix("arbor-hooks-").tempdir().ok())
                .as_ref()?
                .path()
                .to_path_buf(),
        };
        Some(root.join(&self.session))
    }

    /// The file of `agent`'s transcript, its directory made (the person's alone); None
    /// when no directory can be made.
    pub(crate) fn file(&self, agent: &str) -> Option<PathBuf> {
        let dir = self.dir()?;
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).ok()?;
        Some(dir.join(format!("{agent}.jsonl")))
    }
}

impl Drop for TranscriptDir {
    fn drop(&mut self) {
        // A temporary root goes with its TempDir; under a given one, only this run's directory.
        if let Some(given) = &self.given {
            let _ = std::fs::remove_dir_all(given.join(&self.session));
        }
    }
}

/// Reads the `hooks` object of a Claude Code settings file (or an agent file's
/// `hooks:` front matter): `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
/// "command", "command": "…", "timeout": 30}]}]}`. What cannot be used is left
/// out and said in the second list, in words for the person; the rest loads.
pub fn parse(hooks: &Value, source: &std::path::Path, origin: HookOrigin) -> (Vec<Hook>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let at = source.display();
    let Some(events) = hooks.as_object() else {
        if !hooks.is_null() {
            problems.push(format!("{at}: \"hooks\" is not an object; no hook of it loads"));
        }
        return (out, problems);
    };
    for (name, groups) in events {
        let Some(event) = HookEvent::parse(name) else {
            problems.push(format!("{at}: hooks for \"{}\" are not run: Arbor has no such hook event", clip(name)));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            problems.push(format!("{at}: hooks.{name} is not a list"));
            continue;
        };
        for group in groups {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::trim).unwrap_or_default();
            let pattern = match pattern(matcher) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!(
                        "{at}: hooks.{name}: the matcher \"{}\" is not a valid pattern: {e}",
                        clip(matcher)
                    ));
                    continue;
                }
            };
            let Some(commands) = group.get("hooks").and_then(Value::as_array) else {
                problems.push(format!("{at}: hooks.{name}: an entry without a \"hooks\" list"));
                continue;
            };
            for entry in commands {
                let kind = entry.get("type").and_then(Value::as_str).unwrap_or("command");
                if kind != "command" {
                    problems.push(format!(
                        "{at}: hooks.{name}: a \"{}\" hook is not run: Arbor runs command hooks",
                        clip(kind)
                    ));
                    continue;
                }
                let Some(command) = entry.get("command").and_then(Value::as_str).filter(|c| !c.trim().is_empty())
                else {
                    problems.push(format!("{at}: hooks.{name}: a command hook without a command"));
                    continue;
                };
                let timeout = match entry.get("timeout") {
                    None | Some(Value::Null) => DEFAULT_TIMEOUT,
                    Some(t) => match t.as_f64().filter(|s| s.is_finite() && *s > 0.0) {
                        Some(secs) => Duration::from_secs_f64(secs).min(MAX_TIMEOUT),
                        None => {
                            problems.push(format!(
                                "{at}: hooks.{name}: the timeout {} is not a number of seconds; 60 s applies",
                                clip(&t.to_string())
                            ));
                            DEFAULT_TIMEOUT
                        }
                    },
                };
                out.push(Hook {
                    event,
                    matcher: (!matcher.is_empty() && matcher != "*").then(|| matcher.to_string()),
                    pattern: pattern.clone(),
                    command: command.to_string(),
                    timeout,
                    source: source.to_path_buf(),
                    origin,
                });
            }
        }
    }
    (out, problems)
}

fn pattern(matcher: &str) -> Result<Option<Pattern>, regex::Error> {
    if matcher.is_empty() || matcher == "*" {
        return Ok(None);
    }
    let plain = matcher.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|'));
    if plain {
        return Ok(Some(Pattern::Names(matcher.split('|').map(str::to_string).collect())));
    }
    regex::RegexBuilder::new(matcher).size_limit(1 << 20).build().map(|r| Some(Pattern::Regex(r)))
}

/// A name or value from a file, short enough to echo.
fn clip(s: &str) -> String {
    arbor_protocol::text::quote(s, 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(v: Value) -> (Vec<Hook>, Vec<String>) {
        parse(&v, std::path::Path::new("/w/.claude/settings.json"), HookOrigin::Workspace)
    }

    #[test]
    fn matchers_match_as_claude_codes_do() {
        let (hooks, problems) = load(json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]},
                {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "b", "timeout": 5}]},
                {"matcher": "mcp__.*__write.*", "hooks": [{"type": "command", "command": "c"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "d"}]},
                {"hooks": [{"type": "command", "command": "e"}]}
            ]
        }));
        assert!(problems.is_empty(), "{problems:?}");
        let names = |tool: &str| {
            HookSet::new(hooks.clone())
                .matching(HookEvent::PreToolUse, Some(tool))
                .iter()
                .map(|h| h.command.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names("Bash"), ["a", "d", "e"]);
        assert_eq!(names("BashOutput"), ["d", "e"], "a plain name matches exactly");
        assert_eq!(names("Write"), ["b", "d", "e"]);
        assert_eq!(names("mcp__fs__write_file"), ["c", "d", "e"]);
        assert_eq!(hooks[1].timeout, Duration::from_secs(5));
        assert_eq!(hooks[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(hooks[3].matcher, None);
    }

    #[test]
    fn what_cannot_be_used_is_said_and_the_rest_loads() {
        let (hooks, problems) = load(json!({
            "PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}],
            "Teleport": [{"hooks": [{"type": "command", "command": "y"}]}],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "?"}, {"type": "command", "command": "z", "timeout": "soon"}]}],
            "PostToolUse": "no"
        }));
        assert_eq!(hooks.len(), 1);
        assert_eq!((hooks[0].command.as_str(), hooks[0].timeout), ("z", DEFAULT_TIMEOUT));
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("Teleport") && p.contains("no such hook event")));
        assert!(problems.iter().any(|p| p.contains("\"prompt\" hook is not run")));
        assert!(problems.iter().all(|p| p.starts_with("/w/.claude/settings.json")));
    }

    #[test]
    fn a_command_two_files_name_runs_once() {
        let (mut a, _) = load(json!({"Stop": [{"hooks": [{"type": "command", "command": "same"}]}]}));
        let (b, _) = load(json!({"Stop": [{"hooks": [{"type": "command", "command": "same"}]}]}));
        a.extend(b);
        assert_eq!(HookSet::new(a).matching(HookEvent::Stop, None).len(), 1);
    }
}
