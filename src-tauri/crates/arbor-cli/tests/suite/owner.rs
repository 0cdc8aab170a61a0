//! One owner per session across processes, and an honest close: `arbor resume`
//! of a session another process runs is refused and sends nothing; a killed
//! owner's session is taken over; a call waiting for an answer when SIGTERM,
//! SIGHUP or SIGKILL ended its process is asked again on resume and runs once
//! approved; and no process ever stores an event twice.

use super::*;
use std::time::Duration;
use tokio::process::{Child, ChildStdin};

const WAIT: Duration = Duration::from_secs(30);

async fn asking_cli() -> Cli {
    let scenario: Scenario = serde_json::from_value(serde_json::json!({ "name": "ask", "rules": [
        { "match": { "first_user_contains": "WRITE-ONE" }, "turns": [
            { "text": "writing", "tool_calls": [
                { "name": "Write", "input": { "file_path": "out.txt", "content": "written once\n" } } ] },
            { "text": "all written" } ] }
    ]}))
    .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() }
}

/// A running `arbor` in `--json --approve ask` mode, its answers on stdin.
struct Live {
    child: Child,
    stdin: ChildStdin,
    out: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    events: Vec<Value>,
}

impl Live {
    fn start(cli: &Cli, args: &[&str]) -> Live {
        let mut child =
            cli.cmd(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap()).lines();
        Live { child, stdin, out, events: Vec::new() }
    }

    /// Events until one of `type`; returns it.
    async fn until(&mut self, kind: &str) -> Value {
        loop {
            let line = tokio::time::timeout(WAIT, self.out.next_line()).await.expect("an event in time").unwrap();
            let Some(line) = line else { panic!("arbor ended before a {kind}: {:?}", self.events) };
            let ev: Value = serde_json::from_str(&line).unwrap();
            self.events.push(ev.clone());
            if ev["type"] == kind {
                return ev;
            }
        }
    }

    async fn answer(&mut self, request: &Value, approved: bool) {
        let line = serde_json::json!({"type": "approval", "request_id": request["request_id"], "approved": approved});
        self.stdin.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Waits for the process to exit; its exit status and stderr.
    async fn end(mut self) -> (std::process::ExitStatus, String) {
        while let Ok(Ok(Some(line))) = tokio::time::timeout(WAIT, self.out.next_line()).await {
            self.events.push(serde_json::from_str(&line).unwrap());
        }
        let status = tokio::time::timeout(WAIT, self.child.wait()).await.expect("arbor exits").unwrap();
        let mut err = String::new();
        tokio::io::AsyncReadExt::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err).await.unwrap();
        (status, err)
    }
}

/// The stored events of `id`, checked gap-free from 1: nothing stored twice, nothing lost.
async fn stored(cli: &Cli, id: &str) -> (Value, Vec<Value>) {
    let shown = cli.run(&["show", id, "--format", "json"]).await;
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let mut rows = json_events(&shown.stdout);
    let header = rows.remove(0);
    for (i, e) in rows.iter().enumerate() {
        assert_eq!(e["seq"].as_u64(), Some(i as u64 + 1), "gap-free and never twice: {e}");
    }
    (header, rows)
}

fn no_store_trouble(stderr: &str) {
    assert!(
        !stderr.contains("already stored") && !stderr.contains("not being saved"),
        "no event is written twice, no write refused: {stderr}"
    );
}

#[tokio::test]
async fn a_session_another_process_runs_is_refused_and_a_killed_owners_is_taken_over() {
    let cli = asking_cli().await;
    let mut owner = Live::start(&cli, &["run", "--json", "--approve", "ask", "WRITE-ONE please"]);
    let request = owner.until("approval_request").await;
    let id = request["session_id"].as_str().unwrap().to_string();
    let sent = cli.server.requests().len();

    let refused = cli.run(&["resume", "--json", "--approve", "all", &id]).await;
    assert_eq!(refused.status.code(), Some(75), "EX_TEMPFAIL: {}", text(&refused.stderr));
    let err = text(&refused.stderr);
    let pid = owner.child.id().unwrap();
    assert!(err.contains("running in another Arbor process") && err.contains(&format!("pid {pid}")), "{err}");
    assert!(refused.stdout.is_empty(), "nothing was run");
    assert_eq!(cli.server.requests().len(), sent, "the refused resume sent no request");
    assert!(cli.file("out.txt").is_none());
    // Listing and showing it while it runs is fine: reading is not driving.
    assert!(cli.run(&["sessions"]).await.status.success());

    // SIGKILL: the owner's claim goes with it, and the next process takes the session over.
    owner.child.start_kill().unwrap();
    let (_, stderr) = owner.end().await;
    no_store_trouble(&stderr);
    let mut next = Live::start(&cli, &["resume", "--json", "--approve", "ask", &id]);
    let again = next.until("approval_request").await;
    assert_eq!(again["call_id"], request["call_id"], "the same call is asked again");
    next.answer(&again, true).await;
    let (status, stderr) = next.end().await;
    assert!(status.success(), "{stderr}");
    no_store_trouble(&stderr);
    assert_eq!(cli.file("out.txt").as_deref(), Some("written once\n"));
    let (header, events) = stored(&cli, &id).await;
    assert_eq!(header["session"]["status"], "completed", "{header}");
    let violations = arbor_testkit::violations(&serde_json::from_value::<Vec<_>>(Value::Array(events)).unwrap(), true);
    assert!(violations.is_empty(), "{violations:?}");
}

#[tokio::test]
async fn a_call_waiting_for_an_answer_is_asked_again_after_sigterm_sighup_or_sigkill_and_runs_once_approved() {
    for signal in ["TERM", "HUP", "KILL"] {
        let cli = asking_cli().await;
        let mut first = Live::start(&cli, &["run", "--json", "--approve", "ask", "WRITE-ONE please"]);
        let request = first.until("approval_request").await;
        let id = request["session_id"].as_str().unwrap().to_string();
        let pid = first.child.id().unwrap().to_string();
        assert!(std::process::Command::new("kill").args([&format!("-{signal}"), &pid]).status().unwrap().success());
        let (status, stderr) = first.end().await;
        no_store_trouble(&stderr);
        match signal {
            "TERM" => assert_eq!(status.code(), Some(143), "{stderr}"),
            "HUP" => assert_eq!(status.code(), Some(129), "{stderr}"),
            _ => assert_eq!(status.code(), None, "killed"),
        }
        if signal != "KILL" {
            assert!(stderr.contains(&format!("arbor resume {id}")), "says how to go on: {stderr}");
        }
        assert!(cli.file("out.txt").is_none(), "{signal}: nothing ran without an answer");

        // Stored as interrupted, the request withdrawn: never "stopped" or refused.
        let (header, events) = stored(&cli, &id).await;
        assert_eq!(header["session"]["status"], "interrupted", "{signal}: {header}");
        assert_eq!(header["agents"][0]["status"], "interrupted", "{signal}");
        assert!(
            events.iter().any(|e| e["type"] == "approval_resolved" && e["outcome"] == "withdrawn"),
            "{signal}: the card goes away"
        );
        assert!(!events.iter().any(|e| e["type"] == "tool_output"), "{signal}: the call was never refused");

        let mut resumed = Live::start(&cli, &["resume", "--json", "--approve", "ask", &id]);
        let again = resumed.until("approval_request").await;
        assert_eq!(again["call_id"], request["call_id"], "{signal}: the same call");
        assert_eq!(again["tool_args"], request["tool_args"], "{signal}");
        assert_ne!(again["request_id"], request["request_id"]);
        resumed.answer(&again, true).await;
        let output = resumed.until("tool_output").await;
        assert_eq!(output["call_id"], request["call_id"]);
        assert_eq!(output["is_error"], false, "{signal}: {output}");
        let (status, stderr) = resumed.end().await;
        assert!(status.success(), "{signal}: {stderr}");
        no_store_trouble(&stderr);
        assert_eq!(cli.file("out.txt").as_deref(), Some("written once\n"), "{signal}");
        let (header, events) = stored(&cli, &id).await;
        assert_eq!(header["session"]["status"], "completed", "{signal}: {header}");
        let finished = events.iter().rev().find(|e| e["type"] == "agent_finished").unwrap();
        assert_eq!(finished["result"], "all written");
        let events: Vec<arbor_protocol::AgentEvent> = serde_json::from_value(Value::Array(events)).unwrap();
        let broken = arbor_testkit::violations(&events, true);
        assert!(broken.is_empty(), "{signal}: {broken:?}");
    }
}
