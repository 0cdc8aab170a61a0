//! Several live sessions in one host: each runs beside the others with its own
//! approvals, answered through the one API by session; closing one interrupts
//! only its agents (and leaves its question for a continue); the cap on live
//! sessions closes the oldest finished one, never one at work.

use super::host::{ready_host, start_request};
use arbor_app::transcripts::SessionRuns;
use arbor_app::{AppErrorKind, Host, Launched, SessionEvents};
use arbor_protocol::{AgentStatus, ApprovalAnswer, ApprovalScope, Command, EventKind};
use arbor_testkit::ScriptedServer;
use std::time::Duration;

fn scenario() -> arbor_testkit::Scenario {
    // Each WRITE-<name> prompt writes <name>.txt, asking first.
    let writes = ["A", "B", "BUSY", "THIRD"].map(|name| {
        serde_json::json!({ "match": { "first_user_contains": format!("WRITE-{name}") }, "turns": [
            { "text": "writing", "tool_calls": [
                { "name": "Write", "input": { "file_path": format!("WRITE-{name}.txt"), "content": "x\n" } } ] },
            { "text": "written" } ] })
    });
    let mut rules = writes.to_vec();
    rules.push(
        serde_json::json!({ "match": { "first_user_contains": "QUICK" }, "turns": [ { "text": "done at once" } ] }),
    );
    arbor_testkit::Scenario::from_json(&serde_json::json!({ "name": "live", "rules": rules }).to_string()).unwrap()
}

async fn start(host: &Host, dir: &std::path::Path, prompt: &str) -> Launched {
    host.start_session(start_request(dir, prompt)).await.unwrap()
}

/// Events until `pred`; returns the matching one.
async fn until(events: &mut SessionEvents, pred: impl Fn(&EventKind) -> bool) -> EventKind {
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(20), events.recv()).await.unwrap().unwrap();
        if pred(&ev.kind) {
            return ev.kind;
        }
    }
}

async fn request(events: &mut SessionEvents) -> String {
    match until(events, |k| matches!(k, EventKind::ApprovalRequest(_))).await {
        EventKind::ApprovalRequest(r) => r.request_id,
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_run_side_by_side_each_answered_by_its_own_id_and_closed_alone() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let Launched { info: a, events: mut a_events } = start(&host, dir.path(), "WRITE-A").await;
    let a_request = request(&mut a_events).await;
    // A new session starts beside the first, which keeps waiting for its answer.
    let Launched { info: b, events: mut b_events } = start(&host, dir.path(), "WRITE-B").await;
    let b_request = request(&mut b_events).await;
    let live: Vec<_> = host.state().sessions.into_iter().map(|s| s.session_id).collect();
    assert_eq!(live, [a.session_id.clone(), b.session_id.clone()], "both live, in the order they started");

    // An answer goes to its own session only.
    let wrong =
        host.send(&b.session_id, Command::ResolveApproval(ApprovalAnswer::new(&a_request, true, ApprovalScope::Once)));
    assert_eq!(wrong.unwrap_err().kind, AppErrorKind::Session, "B has no such request");
    host.send(&a.session_id, Command::ResolveApproval(ApprovalAnswer::new(&a_request, true, ApprovalScope::Once)))
        .unwrap();
    let end = until(&mut a_events, |k| matches!(k, EventKind::AgentFinished(_))).await;
    assert!(matches!(end, EventKind::AgentFinished(f) if f.status == AgentStatus::Completed && f.result == "written"));
    assert!(dir.path().join("WRITE-A.txt").is_file());

    assert_eq!(host.open_session(b.session_id.clone()).await.unwrap().runs, SessionRuns::Here);
    // Closing B interrupts it (nobody stopped it) and leaves A alone.
    host.close_and_settle(&b.session_id).await;
    assert_eq!(host.open_session(b.session_id.clone()).await.unwrap().runs, SessionRuns::Stored);
    let stored = host.store().unwrap().session(&b.session_id).unwrap();
    assert_eq!(stored.agents[0].status, AgentStatus::Interrupted);
    assert!(!dir.path().join("WRITE-B.txt").exists());
    assert_eq!(host.state().sessions.len(), 1);
    let e = host.send(&b.session_id, Command::Cancel { agent_id: b.main_agent_id.clone() }).unwrap_err();
    assert_eq!(e.kind, AppErrorKind::NoSession);
    host.send(&a.session_id, Command::SendMessage { agent_id: None, text: "QUICK: and?".into() }).unwrap();

    // Continued, B asks its question again, and A still runs beside it.
    let Launched { events: mut b_again, .. } = host.resume_session(b.session_id.clone(), None).await.unwrap();
    let asked = request(&mut b_again).await;
    assert_ne!(asked, b_request);
    host.send(&b.session_id, Command::ResolveApproval(ApprovalAnswer::new(&asked, true, ApprovalScope::Once))).unwrap();
    until(&mut b_again, |k| matches!(k, EventKind::AgentFinished(f) if f.status == AgentStatus::Completed)).await;
    assert!(dir.path().join("WRITE-B.txt").is_file(), "the approved call ran");
    assert_eq!(host.close_all().len(), 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_the_oldest_finished_session_closes_and_one_at_work_is_never_closed() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let mut settings = host.settings();
    settings.limits.max_live_sessions = 2;
    host.save_settings(settings).unwrap();
    let Launched { info: busy, events: mut busy_events } = start(&host, dir.path(), "WRITE-BUSY").await;
    request(&mut busy_events).await;
    let Launched { info: quick, events: mut quick_events } = start(&host, dir.path(), "QUICK one").await;
    until(&mut quick_events, |k| matches!(k, EventKind::AgentFinished(_))).await;
    // Two live, one finished: a third closes the finished one.
    let Launched { info: third, events: mut third_events } = start(&host, dir.path(), "WRITE-THIRD").await;
    let live: Vec<_> = host.state().sessions.into_iter().map(|s| s.session_id).collect();
    assert_eq!(live, [busy.session_id.clone(), third.session_id.clone()], "{:?}", quick.session_id);
    request(&mut third_events).await;
    // Both at work: a fourth is refused, and says why.
    let refused = host.start_session(start_request(dir.path(), "QUICK two")).await.err().unwrap();
    assert_eq!(refused.kind, AppErrorKind::Session);
    assert!(refused.message.contains("Live sessions"), "{}", refused.message);
    assert_eq!(host.state().sessions.len(), 2);
    host.close_all();
    server.shutdown().await;
}

/// A session whose claim another process holds is shown as running there, and
/// is not continued here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_another_process_runs_is_shown_as_running_there_and_not_continued() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let Launched { info, mut events } = start(&host, dir.path(), "QUICK look").await;
    until(&mut events, |k| matches!(k, EventKind::AgentFinished(_))).await;
    host.close_and_settle(&info.session_id).await;
    // Another process takes the session's claim (the kernel's lock on its file).
    let lock = dir.path().join("data/arbor.db.owners").join(format!("{}.lock", info.session_id));
    let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint(flush=True)\ntime.sleep(30)";
    let mut other = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&lock)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(other.stdout.take().unwrap()), &mut ready).unwrap();
    let past = host.open_session(info.session_id.clone()).await.unwrap();
    assert!(matches!(past.runs, SessionRuns::Elsewhere { .. }), "{:?}", past.runs);
    let refused = host.resume_session(info.session_id.clone(), Some("QUICK again".into())).await.err().unwrap();
    assert_eq!(refused.kind, AppErrorKind::Owned, "{}", refused.message);
    other.kill().unwrap();
    other.wait().unwrap();
    assert_eq!(host.open_session(info.session_id.clone()).await.unwrap().runs, SessionRuns::Stored);
    server.shutdown().await;
}

/// Quitting with agents at work interrupts them (nobody stopped them) and offers
/// the session at the next start, as a crash's is; one that was idle is not offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_with_agents_at_work_offers_the_session_at_the_next_start() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let Launched { info: busy, events: mut busy_events } = start(&host, dir.path(), "WRITE-BUSY").await;
    request(&mut busy_events).await;
    let Launched { info: idle, events: mut idle_events } = start(&host, dir.path(), "QUICK one").await;
    until(&mut idle_events, |k| matches!(k, EventKind::AgentFinished(_))).await;
    let writers = host.close_all();
    for w in &writers {
        assert!(w.settle(Duration::from_secs(10)).await);
    }
    drop(host);
    let next = super::host::host(dir.path());
    let offered: Vec<_> = next.state().interrupted.into_iter().map(|s| s.id).collect();
    assert_eq!(offered, std::slice::from_ref(&busy.session_id), "the idle {} is not offered", idle.session_id);
    let stored = next.store().unwrap().session(&busy.session_id).unwrap();
    assert!(stored.agents.iter().all(|a| a.status == AgentStatus::Interrupted), "{:?}", stored.agents);
    drop(next);
    // Offered once: the start after that has nothing to offer.
    assert!(super::host::host(dir.path()).state().interrupted.is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn quitting_runs_every_live_sessions_session_end_hooks() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    // The person's own settings file (the app's): a SessionEnd hook, beside what the app saved.
    let file = dir.path().join("config/settings.json");
    let mut settings: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // The hooks run at once: each writes a file of its own (appending to one could interleave).
    let log = dir.path().join("ended");
    std::fs::create_dir_all(&log).unwrap();
    settings["hooks"] = serde_json::json!({"SessionEnd": [{"hooks": [
        {"type": "command", "command": format!("cat > '{}/'$$.json", log.display())}
    ]}]});
    std::fs::write(&file, settings.to_string()).unwrap();
    let mut a = start(&host, dir.path(), "QUICK one").await;
    let mut b = start(&host, dir.path(), "QUICK two").await;
    for events in [&mut a.events, &mut b.events] {
        until(events, |k| matches!(k, EventKind::AgentFinished(_))).await;
    }
    host.end_all_hooks("other").await;
    let ended: Vec<serde_json::Value> = std::fs::read_dir(&log)
        .unwrap()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f.unwrap().path()).unwrap()).unwrap())
        .collect();
    let mut sessions: Vec<&str> = ended.iter().map(|e| e["session_id"].as_str().unwrap()).collect();
    sessions.sort_unstable();
    let mut expected = vec![a.info.session_id.as_str(), b.info.session_id.as_str()];
    expected.sort_unstable();
    assert_eq!(sessions, expected, "one SessionEnd per live session");
    assert!(ended.iter().all(|e| e["hook_event_name"] == "SessionEnd" && e["reason"] == "other"));
}
