//! External ACP agents as nodes of the tree: Zed's Claude Code adapter
//! (`@zed-industries/claude-agent-acp`, pinned in tests/acp-client and installed by
//! scripts/test.sh) started by a Task call, running Claude Code on the scripted
//! model server. Its output streams into its node, its Write asks in Arbor's inbox
//! and runs only once approved, the file change is its node's, its result reaches
//! the parent, and a Stop cancels it and leaves no process behind. An agent file in
//! a workspace that is not trusted starts nothing.

use super::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Zed's adapter; its absence is a failure that says how to install it, never a skip.
fn claude_agent_acp() -> PathBuf {
    let bin =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/acp-client/node_modules/.bin/claude-agent-acp");
    assert!(
        bin.exists(),
        "claude-agent-acp is not at {}: run `npm --prefix tests/acp-client ci` (scripts/test.sh does)",
        bin.display()
    );
    bin
}

struct Tree {
    root: tempfile::TempDir,
    server: ScriptedServer,
    /// Set in the external agent's environment: its processes can be found by it.
    mark: String,
}

impl Tree {
    /// A person's own agent type `claude` that is Claude Code over ACP, and the scripted server:
    /// the main agent delegates `task` to it; Claude Code writes `cc.md` and says "cc done".
    async fn new(task: &str) -> Self {
        let acp = format!(
            "  command: {}\n  env:\n    ANTHROPIC_BASE_URL: ${{ANTHROPIC_BASE_URL}}\n    \
             ANTHROPIC_API_KEY: ${{ANTHROPIC_API_KEY}}\n    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: \"1\"\n    \
             DISABLE_AUTOUPDATER: \"1\"\n",
            claude_agent_acp().display()
        );
        Self::with_agent("claude", &acp, task).await
    }

    /// The agent type `name`, an external agent started as `acp` (its YAML, less the mark's
    /// variable, which is added), delegated `task` by the main agent.
    async fn with_agent(name: &str, acp: &str, task: &str) -> Self {
        let root = tempfile::tempdir().unwrap();
        for d in ["ws", "home/.config/arbor/agents", "home/.claude", "data"] {
            std::fs::create_dir_all(root.path().join(d)).unwrap();
        }
        let ws = root.path().join("ws");
        let mark = format!("arbor-acp-test-{}-{}", std::process::id(), root.path().display());
        let acp = if acp.contains("  env:\n") {
            acp.replace("  env:\n", &format!("  env:\n    ARBOR_TEST_MARK: \"{mark}\"\n"))
        } else {
            format!("{acp}  env:\n    ARBOR_TEST_MARK: \"{mark}\"\n")
        };
        let file = format!("---\nname: {name}\ndescription: An external agent.\nacp:\n{acp}---\n");
        std::fs::write(root.path().join(format!("home/.config/arbor/agents/{name}.md")), file).unwrap();
        let scenario = json!({"rules": [
            {"match": {"first_user_contains": "CC-TASK:"}, "repeat_last": true, "turns": [
                {"tool_calls": [{"name": "Write", "input": {"file_path": ws.join("cc.md"), "content": "from claude code"}}]},
                {"text": "cc done"}
            ]},
            {"match": {"first_user_contains": "MAIN:"}, "repeat_last": true, "turns": [
                {"tool_calls": [{"name": "Task", "input": {
                    "description": "Claude writes", "prompt": format!("CC-TASK: {task}"), "subagent_type": name}}]},
                {"text": "main done"}
            ]},
            // Claude Code's side requests (titles and the like).
            {"match": {}, "repeat_last": true, "turns": [{"text": "ok"}]}
        ]});
        let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
        Self { root, server, mark }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// `arbor run --json --approve ask` in the workspace; `on` may answer any event with a stdin line.
    async fn run(&self, mut on: impl FnMut(&Value) -> Option<Value>) -> Vec<Value> {
        let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"));
        c.args(["run", "--json", "--approve", "ask", "MAIN: delegate"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("CLAUDE_CONFIG_DIR", self.path("home/.claude"))
            .env("ARBOR_DATA_DIR", self.path("data"))
            .env("ANTHROPIC_BASE_URL", self.server.anthropic_base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-arbor-test-dummy")
            .current_dir(self.path("ws"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = c.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = Vec::new();
        let read_all = async {
            while let Some(line) = lines.next_line().await.unwrap() {
                let e: Value = serde_json::from_str(&line).unwrap();
                if let Some(answer) = on(&e) {
                    stdin.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
                }
                seen.push(e);
            }
        };
        tokio::time::timeout(Duration::from_secs(150), read_all).await.expect("the run ends");
        let out = child.wait_with_output().await.unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let broken = arbor_testkit::violations(
            &seen.iter().map(|e| serde_json::from_value(e.clone()).unwrap()).collect::<Vec<_>>(),
            true,
        );
        assert!(broken.is_empty(), "the event contracts hold for an external node: {broken:?}");
        seen
    }

    /// Processes whose environment carries this test's mark.
    fn processes_left(&self) -> Vec<String> {
        let mut left = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            if environ.split(|b| *b == 0).any(|v| v == format!("ARBOR_TEST_MARK={}", self.mark).as_bytes()) {
                left.push(std::fs::read_to_string(entry.path().join("cmdline")).unwrap_or_default().replace('\0', " "));
            }
        }
        left
    }
}

fn node_of(events: &[Value]) -> String {
    let started = events
        .iter()
        .find(|e| e["type"] == "agent_started" && e["provider"] == arbor_protocol::ACP_PROVIDER)
        .expect("the external node started");
    started["agent_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn claude_code_runs_as_a_node_asks_in_arbors_inbox_and_its_write_is_its_own() {
    let tree = Tree::new("write cc.md").await;
    let cc = tree.path("ws/cc.md");
    let mut asked = 0;
    let events = tree
        .run(|e| {
            if e["type"] != "approval_request" {
                return None;
            }
            asked += 1;
            // Nothing written before the person said yes.
            assert!(!cc.exists(), "written before it was approved");
            Some(json!({"type": "approval", "request_id": e["request_id"], "approved": true}))
        })
        .await;
    let node = node_of(&events);
    let started = events.iter().find(|e| e["type"] == "agent_started" && e["agent_id"] == node.as_str()).unwrap();
    assert!(started["model"].as_str().unwrap().contains("claude-agent-acp"), "{started}");
    assert_eq!(started["subagent_type"], "claude");
    assert_eq!(asked, 1);
    let request = events.iter().find(|e| e["type"] == "approval_request").unwrap();
    assert_eq!(request["agent_id"], node.as_str(), "asked in Arbor's inbox as the node");
    assert_eq!(request["tool_name"], "Write");
    assert_eq!(request["agent_path"], json!(["main", "Claude writes"]));
    assert_eq!(request["preview"]["kind"], "file", "{request}");
    assert_eq!(request["preview"]["after"], "from claude code");
    let offered: Vec<(&str, bool, &str)> = request["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap(), o["approved"].as_bool().unwrap(), o["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(
        offered,
        [("Always Allow", true, "agent"), ("Allow", true, "once"), ("Reject", false, "once")],
        "Claude Code's own answers"
    );
    assert_eq!(std::fs::read_to_string(&cc).unwrap(), "from claude code");
    // The change is the node's; its output streamed into it; its usage counts.
    assert!(
        events.iter().any(|e| e["type"] == "file_changed" && e["agent_id"] == node.as_str() && e["path"] == "cc.md"),
        "the file change is attributed to the node"
    );
    assert!(events.iter().any(|e| e["type"] == "response_chunk" && e["agent_id"] == node.as_str()));
    assert!(
        events.iter().any(|e| e["type"] == "tool_call" && e["agent_id"] == node.as_str() && e["tool_name"] == "Write")
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "usage" && e["agent_id"] == node.as_str() && e["input_tokens"].as_u64() > Some(0))
    );
    let end = events.iter().find(|e| e["type"] == "agent_finished" && e["agent_id"] == node.as_str()).unwrap();
    assert_eq!((end["status"].as_str(), end["result"].as_str()), (Some("completed"), Some("cc done")));
    // Its result is the parent's Task result.
    let task = events.iter().find(|e| e["type"] == "tool_call" && e["tool_name"] == "Task").unwrap();
    let result = events.iter().find(|e| e["type"] == "tool_output" && e["call_id"] == task["call_id"]).unwrap();
    assert!(result["content"].as_str().unwrap().contains("cc done"), "{result}");
    assert!(tree.processes_left().is_empty(), "{:?}", tree.processes_left());
}

#[tokio::test]
async fn stopping_an_external_agent_cancels_it_and_leaves_no_process() {
    let tree = Tree::new("write cc.md").await;
    let events = tree
        .run(|e| {
            // Stopped while its Write waits for the person.
            (e["type"] == "approval_request").then(|| json!({"type": "cancel", "agent_id": e["agent_id"]}))
        })
        .await;
    let node = node_of(&events);
    let end = events.iter().find(|e| e["type"] == "agent_finished" && e["agent_id"] == node.as_str()).unwrap();
    assert_eq!(end["status"], "cancelled", "{end}");
    assert_eq!(end["stopped_by"], "person");
    let resolved = events.iter().find(|e| e["type"] == "approval_resolved").unwrap();
    assert_eq!(resolved["outcome"], "withdrawn", "the pending request went away with it");
    assert!(!tree.path("ws/cc.md").exists());
    // The parent goes on.
    assert!(events.iter().any(|e| e["type"] == "response" && e["content"] == "main done"));
    let mut left = tree.processes_left();
    for _ in 0..30 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = tree.processes_left();
    }
    assert!(left.is_empty(), "its processes are gone: {left:?}");
}

#[tokio::test]
async fn a_workspaces_acp_agent_waits_for_trust() {
    let tree = Tree::new("write cc.md").await;
    // The same type, but from the workspace, and running a command that would leave a mark.
    std::fs::remove_file(tree.path("home/.config/arbor/agents/claude.md")).unwrap();
    let marker = tree.path("ran");
    let script = tree.path("agent.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(tree.path("ws/.claude/agents")).unwrap();
    std::fs::write(
        tree.path("ws/.claude/agents/claude.md"),
        format!("---\nname: claude\ndescription: d\nacp:\n  command: {}\n---\n", script.display()),
    )
    .unwrap();
    let events = tree.run(|_| None).await;
    let task = events.iter().find(|e| e["type"] == "tool_call" && e["tool_name"] == "Task").unwrap();
    let result = events.iter().find(|e| e["type"] == "tool_output" && e["call_id"] == task["call_id"]).unwrap();
    let said = result["content"].as_str().unwrap();
    assert!(said.contains("not trusted"), "{said}");
    assert!(!marker.exists(), "nothing of the workspace ran before trust");
}

/// The testkit's scripted ACP agent (built with the workspace's binaries).
fn scripted_acp() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(|d| d.parent()).unwrap().join("arbor-scripted-acp");
    assert!(bin.exists(), "{} is missing: build it with `cargo build -p arbor-testkit --bins`", bin.display());
    bin
}

async fn scripted(mode: &str) -> Tree {
    let acp = format!("  command: {}\n  args: [{mode}]\n", scripted_acp().display());
    Tree::with_agent("scripted", &acp, "do it").await
}

fn finished<'a>(events: &'a [Value], node: &str) -> &'a Value {
    events.iter().find(|e| e["type"] == "agent_finished" && e["agent_id"] == node).expect("the node finished")
}

#[tokio::test]
async fn a_scripted_acp_agent_writes_through_arbors_fs_and_reports_its_usage() {
    let tree = scripted("ok").await;
    let events = tree
        .run(|e| {
            (e["type"] == "approval_request")
                .then(|| json!({"type": "approval", "request_id": e["request_id"], "approved": true}))
        })
        .await;
    let node = node_of(&events);
    assert_eq!(std::fs::read_to_string(tree.path("ws/out.md")).unwrap(), "scripted");
    // The card offers the agent's own answers, in its words, each as the answer it is in Arbor.
    let asked = events.iter().find(|e| e["type"] == "approval_request").expect("its Write asked");
    assert_eq!(
        asked["options"],
        json!([
            {"name": "Allow", "approved": true, "scope": "once"},
            {"name": "Reject", "approved": false, "scope": "once"}
        ])
    );
    assert!(
        events.iter().any(|e| e["type"] == "file_changed" && e["agent_id"] == node.as_str() && e["path"] == "out.md")
    );
    let end = finished(&events, &node);
    assert_eq!(
        (end["status"].as_str(), end["result"].as_str()),
        (Some("completed"), Some("scripted done")),
        "its last message is its result"
    );
    let usage = events.iter().find(|e| e["type"] == "usage" && e["agent_id"] == node.as_str()).unwrap();
    assert_eq!((usage["input_tokens"].as_u64(), usage["output_tokens"].as_u64()), (Some(10), Some(5)));
    // Its plan is the node's, whole each time, where it came in its stream.
    let mine = |t: &str| events.iter().position(|e| e["type"] == t && e["agent_id"] == node.as_str());
    let plans: Vec<Vec<(String, String)>> = events
        .iter()
        .filter(|e| e["type"] == "plan" && e["agent_id"] == node.as_str())
        .map(|e| {
            let entries = e["entries"].as_array().expect("a plan lists its steps");
            entries
                .iter()
                .map(|s| (s["content"].as_str().unwrap().into(), s["status"].as_str().unwrap().into()))
                .collect()
        })
        .collect();
    let step = |c: &str, s: &str| (c.to_string(), s.to_string());
    assert_eq!(
        plans,
        vec![
            vec![step("Write out.md", "in_progress"), step("Check out.md", "pending")],
            vec![step("Write out.md", "completed"), step("Check out.md", "completed")],
        ]
    );
    assert!(mine("plan") < mine("tool_call"), "the first plan came before the Write, as the agent sent it");
}

#[tokio::test]
async fn an_acp_agent_that_crashes_mid_turn_fails_its_node_with_its_last_words() {
    let tree = scripted("crash").await;
    let events = tree.run(|_| None).await;
    let node = node_of(&events);
    let end = finished(&events, &node);
    assert_eq!(end["status"], "failed", "{end}");
    let error = end["error"].as_str().unwrap();
    assert!(error.contains("exited with code 3") && error.contains("boom: a simulated crash"), "{error}");
    // What it said before it died is kept, and the parent goes on.
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "response" && e["agent_id"] == node.as_str() && e["content"] == "about to crash")
    );
    assert!(events.iter().any(|e| e["type"] == "response" && e["content"] == "main done"));
}

#[tokio::test]
async fn garbage_on_an_acp_agents_stdout_is_skipped_and_the_turn_goes_on() {
    let tree = scripted("garbage").await;
    let events = tree
        .run(|e| {
            (e["type"] == "approval_request")
                .then(|| json!({"type": "approval", "request_id": e["request_id"], "approved": true}))
        })
        .await;
    let node = node_of(&events);
    assert_eq!(finished(&events, &node)["status"], "completed");
    assert!(tree.path("ws/out.md").exists());
}

#[tokio::test]
async fn a_permission_asked_after_cancel_is_answered_cancelled_without_asking_anyone() {
    let tree = scripted("late").await;
    let events = tree
        .run(|e| {
            (e["type"] == "response_chunk" && e["content"] == "waiting for a cancel")
                .then(|| json!({"type": "cancel", "agent_id": e["agent_id"]}))
        })
        .await;
    let node = node_of(&events);
    assert_eq!(finished(&events, &node)["status"], "cancelled");
    assert!(!events.iter().any(|e| e["type"] == "approval_request"), "nobody was asked");
    let answer = std::fs::read_to_string(tree.path("ws/late-answer.txt")).expect("the agent asked after the cancel");
    assert_eq!(answer, "cancelled");
}

#[tokio::test]
async fn an_acp_agent_that_hangs_is_stopped_and_killed() {
    let tree = scripted("hang").await;
    let started = std::time::Instant::now();
    let events = tree
        .run(|e| {
            (e["type"] == "response_chunk" && e["content"] == "hanging")
                .then(|| json!({"type": "cancel", "agent_id": e["agent_id"]}))
        })
        .await;
    let node = node_of(&events);
    assert_eq!(finished(&events, &node)["status"], "cancelled");
    assert!(started.elapsed() < Duration::from_secs(30), "stopped within its grace, not the run's timeout");
    assert!(tree.processes_left().is_empty(), "{:?}", tree.processes_left());
}

#[tokio::test]
async fn an_acp_agents_commands_run_in_arbors_sandbox_through_its_terminal() {
    let tree = scripted("terminal").await;
    let started = std::time::Instant::now();
    let events = tree.run(|_| None).await;
    // Its command left `sleep 30` holding its pipes: its exit is known when it exits.
    assert!(started.elapsed() < Duration::from_secs(20), "waited for what it left behind: {:?}", started.elapsed());
    let node = node_of(&events);
    assert_eq!(finished(&events, &node)["status"], "completed");
    let output = events
        .iter()
        .find(|e| e["type"] == "tool_output" && e["agent_id"] == node.as_str() && e["call_id"] == "t1")
        .expect("the command's result");
    let text = output["content"].as_str().unwrap();
    assert!(text.contains("from-terminal"), "its output is the call's result: {text}");
    assert!(text.contains("key: none"), "no provider key reaches its commands: {text}");
    // Inside its working tree it writes, and the change is the node's; outside, the sandbox refuses.
    assert_eq!(std::fs::read_to_string(tree.path("ws/made.txt")).unwrap(), "made\n");
    assert!(
        events.iter().any(|e| e["type"] == "file_changed" && e["agent_id"] == node.as_str() && e["path"] == "made.txt")
    );
    // (Its /tmp is the sandbox's own, so the write may succeed there; it never lands outside.)
    assert!(!tree.path("outside.txt").exists(), "the sandbox kept it in its tree: {text}");
}

#[tokio::test]
async fn an_isolated_acp_agent_works_in_a_worktree_of_its_own() {
    let tree = scripted("ok").await;
    let file = tree.path("home/.config/arbor/agents/scripted.md");
    let text = std::fs::read_to_string(&file).unwrap().replacen("acp:\n", "isolation: worktree\nacp:\n", 1);
    std::fs::write(&file, text).unwrap();
    let ws = tree.path("ws");
    std::fs::write(ws.join("README.md"), "the project\n").unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "."],
        &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"],
    ] {
        let ok = std::process::Command::new("git").args(args).current_dir(&ws).status().unwrap().success();
        assert!(ok, "git {args:?}");
    }
    let events = tree
        .run(|e| {
            (e["type"] == "approval_request")
                .then(|| json!({"type": "approval", "request_id": e["request_id"], "approved": true}))
        })
        .await;
    let node = node_of(&events);
    assert_eq!(finished(&events, &node)["status"], "completed");
    // Its write landed in its worktree, committed on its branch, not in the person's tree.
    assert!(!ws.join("out.md").exists(), "the person's tree is untouched");
    let ready = events
        .iter()
        .find(|e| e["type"] == "worktree" && e["agent_id"] == node.as_str() && e["state"] == "ready")
        .expect("its worktree is ready to merge");
    let files: Vec<&str> = ready["files"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(files, ["out.md"], "{ready}");
}

/// The node's subagent (its `subagent_update`): a node under it.
fn kid_of(events: &[Value], node: &str) -> String {
    let started = events
        .iter()
        .find(|e| e["type"] == "agent_started" && e["parent_id"] == node)
        .expect("the external agent's subagent is a node under it");
    assert_eq!(started["description"], "Kid helper");
    assert_eq!(started["provider"], arbor_protocol::ACP_PROVIDER);
    started["agent_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_acp_agents_subagent_is_a_node_under_it_asking_as_itself() {
    let tree = scripted("kids").await;
    let events = tree
        .run(|e| {
            (e["type"] == "approval_request")
                .then(|| json!({"type": "approval", "request_id": e["request_id"], "approved": true}))
        })
        .await;
    let node = node_of(&events);
    let kid = kid_of(&events, &node);
    let request = events.iter().find(|e| e["type"] == "approval_request").unwrap();
    assert_eq!(request["agent_id"], kid.as_str(), "its permission request is its own card");
    assert_eq!(request["agent_path"], json!(["main", "Claude writes", "Kid helper"]));
    assert_eq!(std::fs::read_to_string(tree.path("ws/kid.md")).unwrap(), "from the kid");
    assert!(
        events.iter().any(|e| e["type"] == "file_changed" && e["agent_id"] == kid.as_str() && e["path"] == "kid.md")
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "response_chunk" && e["agent_id"] == kid.as_str() && e["content"] == "kid working")
    );
    let end = finished(&events, &kid);
    assert_eq!((end["status"].as_str(), end["result"].as_str()), (Some("completed"), Some("kid done")));
    assert_eq!(finished(&events, &node)["result"], "parent done");
}

#[tokio::test]
async fn a_question_about_a_call_that_ended_goes_away_before_its_result() {
    let tree = scripted("abandon").await;
    // Nobody answers: the agent gives the call up itself.
    let events = tree.run(|_| None).await;
    let node = node_of(&events);
    let resolved = events.iter().position(|e| e["type"] == "approval_resolved" && e["agent_id"] == node.as_str());
    let output = events.iter().position(|e| e["type"] == "tool_output" && e["call_id"] == "a1");
    let (resolved, output) = (resolved.expect("the question was withdrawn"), output.expect("the call's result"));
    assert_eq!(events[resolved]["outcome"], "withdrawn");
    assert!(resolved < output, "withdrawn before the call's result (run() checks every contract too)");
    assert_eq!(finished(&events, &node)["result"], "gave up");
}

#[tokio::test]
async fn stopping_an_acp_agents_subagent_cancels_its_session_only() {
    let tree = scripted("kids").await;
    let events = tree
        .run(|e| (e["type"] == "approval_request").then(|| json!({"type": "cancel", "agent_id": e["agent_id"]})))
        .await;
    let node = node_of(&events);
    let kid = kid_of(&events, &node);
    let end = finished(&events, &kid);
    assert_eq!((end["status"].as_str(), end["stopped_by"].as_str()), (Some("cancelled"), Some("person")), "{end}");
    assert_eq!(
        std::fs::read_to_string(tree.path("ws/kid-cancelled.txt")).unwrap(),
        "cancelled",
        "session/cancel of its session"
    );
    assert!(!tree.path("ws/kid.md").exists());
    // Its parent goes on.
    assert_eq!(finished(&events, &node)["status"], "completed");
}

#[tokio::test]
async fn an_acp_agents_own_process_runs_in_the_sandbox_only_when_its_file_asks_and_says_which() {
    for sandboxed in [false, true] {
        let tree = scripted("escape").await;
        if sandboxed {
            // The program must be visible inside the sandbox, whose /tmp is its own (a build
            // under /tmp, as CI's fresh clone is, is not): a copy in the working tree is.
            let inside = tree.path("ws/.agent/arbor-scripted-acp");
            std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
            std::fs::copy(scripted_acp(), &inside).unwrap();
            let file = tree.path("home/.config/arbor/agents/scripted.md");
            let text = std::fs::read_to_string(&file)
                .unwrap()
                .replacen("acp:\n", "sandbox: workspace\nacp:\n", 1)
                .replace(&scripted_acp().display().to_string(), &inside.display().to_string());
            std::fs::write(&file, text).unwrap();
        }
        let events = tree.run(|_| None).await;
        let node = node_of(&events);
        let started = events.iter().find(|e| e["type"] == "agent_started" && e["agent_id"] == node.as_str()).unwrap();
        assert!(started["external"]["command"].as_str().unwrap().contains("arbor-scripted-acp escape"), "{started}");
        if sandboxed {
            assert_eq!(started["external"]["sandbox"]["state"], "sandboxed", "said so: {started}");
            assert!(!tree.path("escaped.txt").exists(), "its own writes stay in its tree");
        } else {
            assert!(started["external"]["sandbox"].is_null(), "said so: outside the sandbox: {started}");
            assert!(tree.path("escaped.txt").exists(), "outside the sandbox, as said");
        }
        assert_eq!(finished(&events, &node)["status"], "completed");
    }
}

/// A message to an external node while it works is its next run: a new session of the
/// program, told what it was asked and what it answered before the message.
#[tokio::test]
async fn a_message_to_an_external_node_reaches_it_with_what_was_said_before() {
    let tree = scripted("echo").await;
    let mut node: Option<String> = None;
    let mut sent = false;
    let events = tree
        .run(|e| {
            if e["type"] == "agent_started" && e["provider"] == "acp" {
                node = e["agent_id"].as_str().map(str::to_string);
            }
            let first_words = e["type"] == "response_chunk" && e["agent_id"].as_str() == node.as_deref();
            if first_words && !sent {
                sent = true;
                return Some(json!({"type": "message", "agent_id": node, "text": "FOLLOW-UP: add a title"}));
            }
            None
        })
        .await;
    let node = node_of(&events);
    let said: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "response" && e["agent_id"] == node.as_str())
        .filter_map(|e| e["content"].as_str())
        .collect();
    assert_eq!(said.len(), 2, "two runs, one per message: {said:?}");
    assert_eq!(said[0], "got: CC-TASK: do it", "its first run: the task alone");
    let (before, now) = said[1].split_once("\n\n---\n\n").expect("the earlier part, then the message");
    assert!(
        before.contains("[Told to you]\nCC-TASK: do it") && before.contains("[Your answer]\ngot: CC-TASK: do it"),
        "{before}"
    );
    assert_eq!(now, "FOLLOW-UP: add a title");
}
