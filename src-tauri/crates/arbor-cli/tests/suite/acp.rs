//! `arbor acp` driven by the official ACP TypeScript SDK (`@agentclientprotocol/sdk`,
//! pinned in tests/acp-client and installed by scripts/test.sh) over stdio, on the
//! scripted model server: initialize, a new session, a prompt with streamed updates,
//! permission requests answered each way, a subagent announced as a child session
//! with its permission request under its own id, cancel, list, and a stored session
//! loaded (replayed) and continued.

use super::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

fn scenario() -> String {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "child.md", "content": "from the child"}}]},
            {"text": "checked"}
        ]},
        {"match": {"first_user_contains": "CHILD2:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "kid.md", "content": "never"}}]},
            {"text": "not reached"}
        ]},
        {"match": {"first_user_contains": "KID:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Task", "input": {
                "description": "Write kid", "prompt": "CHILD2: write kid.md", "subagent_type": "general-purpose"}}]},
            {"text": "went on without it"}
        ]},
        {"match": {"first_user_contains": "TWICE:"}, "repeat_last": true, "turns": [
            {"tool_calls": [
                {"name": "Write", "input": {"file_path": "one.md", "content": "one"}},
                {"name": "Write", "input": {"file_path": "two.md", "content": "two"}}
            ]},
            {"text": "both written"}
        ]},
        {"match": {"first_user_contains": "CANCEL:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "cancel.md", "content": "never"}}]},
            {"text": "not reached"}
        ]},
        {"match": {"first_user_contains": "MAIN:"}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "mcp__editors__echo", "input": {"message": "hello from the editor's server"}}]},
            {"tool_calls": [{"name": "Write", "input": {"file_path": "notes.md", "content": "hello from main"}}]},
            {"tool_calls": [{"name": "Task", "input": {
                "description": "Check notes", "prompt": "CHILD: check the notes", "subagent_type": "general-purpose"}}]},
            {"text": "all done"}
        ]}
    ]})
    .to_string()
}

/// The npm reference MCP server, as the editor's own server for the session.
fn everything() -> String {
    let bin =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp/node_modules/.bin/mcp-server-everything");
    assert!(bin.exists(), "run `npm --prefix tests/mcp ci` (scripts/test.sh does)");
    bin.to_string_lossy().into_owned()
}

/// The driver's folder; the SDK missing is a failure that says how to install it, never a skip.
fn driver() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/acp-client");
    assert!(
        dir.join("node_modules/@agentclientprotocol/sdk/package.json").exists(),
        "the ACP SDK is not installed in {}: run `npm --prefix tests/acp-client ci` (scripts/test.sh does)",
        dir.display()
    );
    dir.join("drive.mjs")
}

struct Editor {
    root: tempfile::TempDir,
    base_url: String,
}

impl Editor {
    fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    /// One flow of the driver; what it saw.
    async fn drive(&self, flow: &str, answers: &[&str], session: Option<&str>) -> Value {
        let root = self.root.path();
        let mut c = Command::new("node");
        c.arg(driver())
            .args([flow, env!("CARGO_BIN_EXE_arbor"), self.ws().to_str().unwrap()])
            .args(session)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", root.join("home"))
            .env("CLAUDE_CONFIG_DIR", root.join("home/.claude"))
            .env("ARBOR_DATA_DIR", root.join("data"))
            .env("ANTHROPIC_BASE_URL", &self.base_url)
            .env("ANTHROPIC_API_KEY", "sk-ant-arbor-test-dummy")
            .env("ACP_ANSWERS", serde_json::to_string(answers).unwrap())
            .env("ACP_MCP", json!([{"name": "editors", "command": everything(), "args": [], "env": []}]).to_string())
            .current_dir(root)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let out = tokio::time::timeout(Duration::from_secs(150), c.output()).await.expect("in time").unwrap();
        assert!(out.status.success(), "drive.mjs {flow}: {}\n{}\n{}", out.status, text(&out.stdout), text(&out.stderr));
        let seen: Value = serde_json::from_str(text(&out.stdout).trim()).expect("the driver prints JSON");
        if let Ok(dir) = std::env::var("ACP_TEST_DUMP") {
            std::fs::write(format!("{dir}/{flow}.json"), serde_json::to_string_pretty(&seen).unwrap()).unwrap();
        }
        assert_eq!(seen["arborExit"], 0, "arbor acp exits 0 when the editor closes it: {}", text(&out.stderr));
        seen
    }
}

fn updates_of<'a>(seen: &'a Value, kind: &str) -> Vec<&'a Value> {
    seen["updates"].as_array().unwrap().iter().filter(|u| u["update"]["sessionUpdate"] == kind).collect()
}

fn position(seen: &Value, pred: impl Fn(&Value) -> bool) -> Option<usize> {
    seen["updates"].as_array().unwrap().iter().position(pred)
}

#[tokio::test]
async fn an_editor_drives_arbor_over_acp_with_the_official_sdk() {
    let server = ScriptedServer::start(Scenario::from_json(&scenario()).unwrap()).await.unwrap();
    let root = tempfile::tempdir().unwrap();
    for d in ["ws", "home/.claude", "data"] {
        std::fs::create_dir_all(root.path().join(d)).unwrap();
    }
    let editor = Editor { root, base_url: server.anthropic_base_url() };

    // One turn: the main agent's Write allowed, its subagent's Write rejected.
    let seen = editor.drive("turn", &["allow_once", "reject_once"], None).await;
    let init = &seen["initialize"];
    assert_eq!(init["protocolVersion"], 1, "{init}");
    assert_eq!(init["agentInfo"]["name"], "arbor");
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(init["agentCapabilities"]["promptCapabilities"]["embeddedContext"], true);
    assert_eq!(init["agentCapabilities"]["mcpCapabilities"]["http"], true);
    for cap in ["list", "resume", "close"] {
        assert!(init["agentCapabilities"]["sessionCapabilities"][cap].is_object(), "{cap}: {init}");
    }
    let session = seen["sessionId"].as_str().unwrap().to_string();
    assert!(session.starts_with("sess-"), "{session}");
    assert_eq!(seen["stop"]["stopReason"], "end_turn", "{seen}");
    assert!(seen["stop"]["usage"]["inputTokens"].as_u64().unwrap() > 0, "{}", seen["stop"]);
    // A second prompt's usage is its own turn's, not the session's so far.
    assert_eq!(seen["stop2"]["stopReason"], "end_turn", "{}", seen["stop2"]);
    let (first, second) =
        (seen["stop"]["usage"]["totalTokens"].as_u64(), seen["stop2"]["usage"]["totalTokens"].as_u64());
    assert!(second.unwrap() > 0 && second < first, "the turn's own usage: {second:?} after {first:?}");

    // The editor's MCP server, given with session/new, served the main agent's call.
    assert!(
        updates_of(&seen, "tool_call_update").iter().any(|u| u["update"]["rawOutput"]
            .as_str()
            .is_some_and(|o| o.contains("Echo: hello from the editor's server"))),
        "the client's MCP server answered"
    );

    // The main agent's Write: asked under the main session, with its diff and four options.
    let perms = seen["permissions"].as_array().unwrap();
    assert_eq!(perms.len(), 2, "{perms:?}");
    let first = &perms[0]["params"];
    assert_eq!(first["sessionId"], session.as_str());
    assert!(first["toolCall"]["title"].as_str().unwrap().contains("Write notes.md"), "{first}");
    assert_eq!(first["toolCall"]["content"][0]["type"], "diff", "{first}");
    assert_eq!(first["toolCall"]["content"][0]["newText"], "hello from main");
    let kinds: Vec<&str> = first["options"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once", "reject_always"]);
    assert_eq!(std::fs::read_to_string(editor.ws().join("notes.md")).unwrap(), "hello from main");

    // The subagent: announced on the main session before any traffic of its own,
    // its permission request under its own session id, rejected: nothing written.
    let announced = position(&seen, |u| u["update"]["sessionUpdate"] == "subagent_update").expect("a subagent_update");
    let child = seen["updates"][announced]["update"]["sessionId"].as_str().unwrap().to_string();
    assert!(child.starts_with(&format!("{session}/agent-")), "{child}");
    assert_eq!(seen["updates"][announced]["sessionId"], session.as_str(), "announced on its parent's session");
    assert_eq!(seen["updates"][announced]["update"]["title"], "Check notes");
    let first_child_traffic = position(&seen, |u| u["sessionId"] == child.as_str()).expect("the child's own updates");
    assert!(announced < first_child_traffic, "announced first");
    assert!(
        perms[1]["afterUpdates"].as_u64().unwrap() as usize > announced,
        "the child's permission request comes after its announcement"
    );
    assert_eq!(perms[1]["params"]["sessionId"], child.as_str());
    assert!(perms[1]["params"]["toolCall"]["title"].as_str().unwrap().contains("Write child.md"));
    assert!(!editor.ws().join("child.md").exists(), "rejected: never written");
    // Its text under its own id; the Task call linked to it; its end as an idle state.
    assert!(
        updates_of(&seen, "agent_message_chunk").iter().any(|u| u["sessionId"] == child.as_str()),
        "the child's messages stream under its id"
    );
    assert!(
        updates_of(&seen, "tool_call_update").iter().any(|u| {
            u["sessionId"] == session.as_str() && u["update"]["_meta"]["arbor"]["subagentSessionId"] == child.as_str()
        }),
        "the Task call names the child session"
    );
    assert!(
        updates_of(&seen, "subagent_update")
            .iter()
            .any(|u| u["update"]["sessionId"] == child.as_str() && u["update"]["state"]["state"] == "idle"),
        "the child's end is reported"
    );
    // The main agent's answer streamed; its Write's call completed with the diff.
    let said: String = updates_of(&seen, "agent_message_chunk")
        .iter()
        .filter(|u| u["sessionId"] == session.as_str())
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect();
    assert!(said.contains("all done"), "{said}");
    assert!(updates_of(&seen, "tool_call").iter().any(|u| u["update"]["kind"] == "edit"), "the Write as an edit call");
    assert!(
        updates_of(&seen, "tool_call_update").iter().any(|u| u["update"]["status"] == "completed"),
        "a call completed"
    );
    // Listed, in its workspace.
    let listed = seen["list"]["sessions"].as_array().unwrap();
    assert!(
        listed.iter().any(|s| s["sessionId"] == session.as_str() && s["title"].as_str().unwrap().contains("MAIN:"))
    );

    // Stored like any session: the CLI's history shows it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["sessions", "--json", "--data-dir"])
        .arg(editor.root.path().join("data"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output()
        .unwrap();
    let listed: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let stored = listed.iter().find(|s| s["id"] == session.as_str()).expect("stored");
    assert_eq!(stored["client"], "arbor-test-client", "History says which editor drove it: {stored}");

    // Loaded in a new connection: the whole session replayed (the person's prompt, the
    // child announced again), then continued by the next prompt.
    let loaded = editor.drive("load", &[], Some(&session)).await;
    assert!(loaded["replayed"].as_u64().unwrap() > 0);
    assert!(
        updates_of(&loaded, "user_message_chunk")
            .iter()
            .any(|u| u["update"]["content"]["text"].as_str().unwrap_or_default().contains("MAIN: write the notes")),
        "the person's prompt replayed"
    );
    assert!(updates_of(&loaded, "subagent_update").iter().any(|u| u["update"]["sessionId"] == child.as_str()));
    assert_eq!(loaded["stop"]["stopReason"], "end_turn", "{loaded}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["show", &session, "--data-dir"])
        .arg(editor.root.path().join("data"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("AGAIN: one more thing"), "{}", text(&out.stdout));

    // Cancelled at its permission request: the turn stops as cancelled, nothing written.
    let cancelled = editor.drive("cancel", &["cancel"], None).await;
    assert_eq!(cancelled["stop"]["stopReason"], "cancelled", "{cancelled}");
    assert!(!editor.ws().join("cancel.md").exists());

    // A child session cancelled at its request: only its subtree stops; the main agent goes on.
    let kid = editor.drive("cancel-child", &["cancel-child"], None).await;
    assert_eq!(kid["stop"]["stopReason"], "end_turn", "{kid}");
    let child = kid["permissions"][0]["params"]["sessionId"].as_str().unwrap().to_string();
    assert!(child.contains("/agent-"), "{child}");
    assert!(
        updates_of(&kid, "subagent_update")
            .iter()
            .any(|u| u["update"]["sessionId"] == child.as_str() && u["update"]["state"]["stopReason"] == "cancelled"),
        "the child stopped as cancelled: {kid}"
    );
    let said: String = updates_of(&kid, "agent_message_chunk")
        .iter()
        .filter(|u| u["sessionId"] == kid["sessionId"])
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect();
    assert!(said.contains("went on without it"), "{said}");
    assert!(!editor.ws().join("kid.md").exists());

    // Two Writes ask at once; "always" for the first is a rule that answers the second, so
    // Arbor withdraws the question it left open in the editor (`$/cancel_request`).
    let twice = editor.drive("twice", &["allow_always", "hold"], None).await;
    assert_eq!(twice["stop"]["stopReason"], "end_turn", "{twice}");
    let asked: Vec<&str> = twice["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["params"]["toolCall"]["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(asked.len(), 2, "both asked before either was answered: {twice}");
    assert_eq!(twice["withdrawnInTurn"], json!([asked[1]]), "the open question was withdrawn in the turn: {twice}");
    assert_eq!(std::fs::read_to_string(editor.ws().join("two.md")).unwrap(), "two", "the rule let it run");
    server.shutdown().await;
}
