//! Side by side with Claude Code 2.1.330 (npm, pinned in tests/claude-code and
//! installed by scripts/test.sh): the same `settings.json` hooks, one session
//! through each against the scripted server. Each hook records its stdin; for
//! PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart and
//! SubagentStop the keys and the JSON types of their values match, and a
//! PreToolUse hook's exit 2 blocks the call in both, its stderr reaching the model.

use super::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

const COMPARED: [&str; 6] = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop"];

/// Keys Claude Code sends for what Arbor has no such thing as: its reasoning-effort setting.
const CLAUDE_CODE_ONLY: [&str; 1] = ["effort"];

/// The pinned Claude Code; its absence is a failure that says how to install it, never a skip.
fn claude_code() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/claude-code/node_modules/.bin/claude");
    let version = std::process::Command::new(&bin).arg("--version").output();
    let got = version.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    assert!(
        got.starts_with("2.1.330"),
        "Claude Code 2.1.330 is not at {} (got {got:?}): run `npm --prefix tests/claude-code ci` (scripts/test.sh does)",
        bin.display()
    );
    bin
}

/// The main agent: a command, a foreground subagent, a command the hook refuses, an answer.
fn scenario(subagent_tool: &str) -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD-CHECK"}, "turns": [{"text": "child done"}], "repeat_last": true},
        {"match": {"first_user_contains": "MAIN:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "echo hi", "description": "Say hi"}}]},
            {"tool_calls": [{"name": subagent_tool, "input": {
                "description": "Check", "prompt": "CHILD-CHECK: say done", "subagent_type": "general-purpose",
                "run_in_background": false}}]},
            {"tool_calls": [{"name": "Bash", "input": {"command": "rm -rf keep", "description": "Remove"}}]},
            {"text": "all done"}
        ]}
    ]})
}

/// A throwaway root: `home/.claude/settings.json` with a recording hook on every event,
/// the workspace (with `keep/`, which the refused command would remove) and the log dir.
struct Root {
    dir: tempfile::TempDir,
}

impl Root {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["home/.claude", "ws/keep", "log", "data"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let record = root.join("record.sh");
        std::fs::write(
            &record,
            format!(
                "#!/bin/sh\ninput=$(cat)\n( flock 9; printf '%s\\n' \"$input\" >> '{0}/'\"$1\".jsonl ) 9>> '{0}/'\"$1\".lock\n\
                 case \"$1:$input\" in PreToolUse:*'rm -rf'*) echo 'rm -rf is not allowed' >&2; exit 2;; esac\nexit 0\n",
                root.join("log").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&record, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let hooks: serde_json::Map<String, serde_json::Value> = arbor_protocol::HookEvent::ALL
            .iter()
            .map(|e| {
                let cmd = format!("{} {}", record.display(), e.as_str());
                (e.as_str().to_string(), json!([{"matcher": "*", "hooks": [{"type": "command", "command": cmd}]}]))
            })
            .collect();
        std::fs::write(root.join("home/.claude/settings.json"), json!({"hooks": hooks}).to_string()).unwrap();
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// What the hooks of `event` received, in order.
    fn received(&self, event: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path(&format!("log/{event}.jsonl")))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("a hook's stdin is JSON"))
            .collect()
    }

    /// A clean environment for either client: this root's HOME, the scripted server.
    fn command(&self, bin: &std::path::Path, base_url: &str) -> Command {
        let mut c = Command::new(bin);
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("CLAUDE_CONFIG_DIR", self.path("home/.claude"))
            .env("SHELL", "/bin/bash")
            .env("TERM", "dumb")
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", self.dir.path())
            .env("ANTHROPIC_BASE_URL", base_url)
            .env("ANTHROPIC_API_KEY", "sk-ant-arbor-test-dummy")
            .current_dir(self.path("ws"))
            .stdin(Stdio::null())
            .kill_on_drop(true);
        c
    }
}

async fn run(mut c: Command, who: &str) -> Output {
    let out = tokio::time::timeout(Duration::from_secs(180), c.output()).await.expect("finished in time").unwrap();
    assert!(out.status.success(), "{who} failed: {}\n{}\n{}", out.status, text(&out.stdout), text(&out.stderr));
    out
}

/// `{key: JSON type}` of a hook's stdin, less `skip`.
fn shape(v: &serde_json::Value, skip: &[&str]) -> std::collections::BTreeMap<String, &'static str> {
    let kind = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    };
    v.as_object()
        .expect("an object")
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), kind(v)))
        .collect()
}

/// The record of `event` to compare: for the tool events, the first Bash call's.
fn first(records: &[serde_json::Value], event: &str) -> serde_json::Value {
    records
        .iter()
        .find(|r| !event.contains("ToolUse") || r["tool_name"] == "Bash")
        .cloned()
        .unwrap_or_else(|| panic!("no {event} hook ran"))
}

#[tokio::test]
async fn hooks_get_what_claude_codes_get_and_a_pre_tool_use_hook_blocks_in_both() {
    let cc = claude_code();

    let arbor_root = Root::new();
    let server = ScriptedServer::start(Scenario::from_json(&scenario("Task").to_string()).unwrap()).await.unwrap();
    let mut c = arbor_root.command(std::path::Path::new(env!("CARGO_BIN_EXE_arbor")), &server.anthropic_base_url());
    c.env("ARBOR_DATA_DIR", arbor_root.path("data")).args(["run", "--approve", "all", "MAIN: go"]);
    let out = run(c, "arbor").await;
    assert!(text(&out.stdout).contains("all done"), "{}", text(&out.stdout));
    let arbor_requests = server.requests();
    server.shutdown().await;

    let cc_root = Root::new();
    let server = ScriptedServer::start(Scenario::from_json(&scenario("Agent").to_string()).unwrap()).await.unwrap();
    let mut c = cc_root.command(&cc, &server.anthropic_base_url());
    c.env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .args(["-p", "MAIN: go", "--output-format", "json", "--tools", "Agent,Bash", "--allowedTools", "Agent,Bash"]);
    let out = run(c, "claude").await;
    assert!(text(&out.stdout).contains("\"is_error\":false"), "{}", text(&out.stdout));
    let cc_requests = server.requests();
    server.shutdown().await;

    for event in COMPARED {
        let ours = first(&arbor_root.received(event), event);
        let theirs = first(&cc_root.received(event), event);
        assert_eq!(
            shape(&ours, &[]),
            shape(&theirs, &CLAUDE_CODE_ONLY),
            "{event}: the keys and value types differ\narbor:       {ours}\nClaude Code: {theirs}"
        );
        assert_eq!(ours["hook_event_name"], theirs["hook_event_name"]);
    }
    // The values that mean the same in both.
    for (root, who) in [(&arbor_root, "arbor"), (&cc_root, "Claude Code")] {
        let pre = first(&root.received("PreToolUse"), "PreToolUse");
        assert_eq!(pre["tool_input"]["command"], "echo hi", "{who}");
        assert_eq!(first(&root.received("UserPromptSubmit"), "UserPromptSubmit")["prompt"], "MAIN: go", "{who}");
        let stop = first(&root.received("SubagentStop"), "SubagentStop");
        assert_eq!(
            (stop["agent_type"].as_str(), stop["last_assistant_message"].as_str()),
            (Some("general-purpose"), Some("child done")),
            "{who}"
        );
        assert_eq!(first(&root.received("Stop"), "Stop")["last_assistant_message"], "all done", "{who}");
        assert!(root.path("ws/keep").exists(), "{who}: the refused rm -rf never ran");
    }
    for (requests, who) in [(&arbor_requests, "arbor"), (&cc_requests, "Claude Code")] {
        assert!(
            requests.iter().any(|r| r.body.to_string().contains("rm -rf is not allowed")),
            "{who}: the hook's stderr reached the model"
        );
    }
}
