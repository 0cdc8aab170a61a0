//! The one API as both front ends use it: keys and settings, typed errors, the
//! demo with a delegation, persist-before-display with review and export, resume.

use arbor_app::keys::{KeySource, MemoryStore};
use arbor_app::mcp::McpListing;
use arbor_app::sessions::StartRequest;
use arbor_app::settings::Settings;
use arbor_app::transcripts::{ExportFormat, HistoryQuery};
use arbor_app::{
    AppErrorKind, Environment, Host, HostConfig, LaunchSpec, Launched, ProviderKind, SessionEvents, Start,
};
use arbor_protocol::{AgentId, Command, CommandReply, EventKind, SessionId};
use arbor_testkit::ScriptedServer;
use std::path::Path;

/// A host over `dir` with an environment of its own: what the machine running
/// the test has set (an API key, say) cannot change what it sees.
pub fn host(dir: &Path) -> Host {
    host_with(dir, Environment::default())
}

pub fn host_with(dir: &Path, env: Environment) -> Host {
    Host::new(HostConfig {
        env,
        settings_file: Some(dir.join("config/settings.json")),
        config_dir: Some(dir.join("config")),
        secrets: Box::new(MemoryStore::default()),
        default_workspace: dir.to_path_buf(),
        scratch_dir: dir.join("scratch"),
        data_dir: Some(dir.join("data")),
    })
}

/// A host over `dir` with a key for Anthropic, pointed at the scripted server.
pub async fn ready_host(dir: &Path, server: &ScriptedServer) -> Host {
    let host = host(dir);
    host.set_api_key(ProviderKind::Anthropic, "sk-test".into()).unwrap();
    let mut settings = host.settings();
    settings.anthropic.base_url = Some(server.anthropic_base_url());
    host.save_settings(settings).unwrap();
    host
}

/// A new session in `dir` on the scripted Anthropic server.
pub fn start_request(dir: &Path, prompt: &str) -> StartRequest {
    StartRequest {
        workspace: dir.display().to_string(),
        provider: ProviderKind::Anthropic,
        model: String::new(),
        prompt: prompt.into(),
        agent_type: None,
    }
}

fn demo() -> LaunchSpec {
    LaunchSpec { start: Start::Demo, ..LaunchSpec::default() }
}

#[test]
fn a_saved_key_makes_the_provider_ready_and_never_reaches_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let before = host.state();
    let anthropic = before.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap();
    assert!(!anthropic.ready);
    assert_eq!(anthropic.key_source, KeySource::None);

    let after = host.set_api_key(ProviderKind::Anthropic, "sk-ant-SECRET-123".into()).unwrap();
    let anthropic = after.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap();
    assert!(anthropic.ready);
    assert_eq!(anthropic.key_source, KeySource::Keyring);

    let mut settings = after.settings.clone();
    settings.limits.max_parallel = 7;
    host.save_settings(settings).unwrap();
    let saved = std::fs::read_to_string(dir.path().join("config/settings.json")).unwrap();
    assert!(saved.contains("\"max_parallel\": 7"));
    assert!(!saved.contains("SECRET"), "keys never go into the settings file");
    assert!(!serde_json::to_string(&host.state()).unwrap().contains("SECRET"), "nor back to the UI");

    let cleared = host.clear_api_key(ProviderKind::Anthropic).unwrap();
    assert!(!cleared.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap().ready);
}

#[tokio::test]
async fn bad_requests_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let nobody = SessionId("sess-none".into());
    let e = host.send(&nobody, Command::Cancel { agent_id: AgentId("agent-0001".into()) }).unwrap_err();
    assert_eq!(e.kind, AppErrorKind::NoSession);
    let e = host.start_session(start_request(&dir.path().join("missing"), "hi")).await.err().unwrap();
    assert_eq!(e.kind, AppErrorKind::Workspace);
    let mut bad = Settings::default();
    bad.limits.max_parallel = 0;
    assert_eq!(host.save_settings(bad).unwrap_err().kind, AppErrorKind::Settings);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_runs_its_subagents_and_a_delegation_reaches_the_main_agent() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let Launched { info, mut events } = host.launch(demo()).await.unwrap();
    assert!(info.demo);
    assert_eq!(host.state().sessions[0].session_id, info.session_id);
    let mut children = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while children.len() < 2 {
        let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
        match &ev.kind {
            EventKind::AgentStarted(s) if s.parent_id.is_some() => children.push(s.description.clone()),
            EventKind::ApprovalRequest(r) => {
                host.send(
                    &info.session_id,
                    Command::ResolveApproval(arbor_protocol::ApprovalAnswer::new(
                        r.request_id.clone(),
                        true,
                        arbor_protocol::ApprovalScope::Once,
                    )),
                )
                .unwrap();
            }
            _ => {}
        }
    }
    // Parallel Task calls start in any order.
    children.sort();
    assert_eq!(children, ["Find TODOs", "Review the tests"]);
    // An agent type written after the session started, loaded by Settings → Reload (the catalog
    // command): the running session may start it from now on.
    let agents = std::path::Path::new(&info.workspace).join(".arbor/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("late-reviewer.md"),
        "---\nname: late-reviewer\ndescription: Reviews what changed\n---\nYou review changes.\n",
    )
    .unwrap();
    let report = host.catalog(Some(info.workspace.clone()));
    assert!(report.definitions.iter().any(|t| t.name == "late-reviewer"), "{:?}", report.problems);
    let offered = host.state().sessions[0].agent_types.clone();
    assert!(offered.iter().any(|t| t.name == "late-reviewer"), "the running session offers it: {offered:?}");
    let reply = host
        .send(
            &info.session_id,
            Command::Delegate(arbor_protocol::DelegateRequest {
                parent_id: info.main_agent_id.clone(),
                prompt: "look around".into(),
                description: Some("Look around".into()),
                subagent_type: Some("late-reviewer".into()),
                model: None,
                max_turns: Some(1),
                tools: None,
                permission_mode: None,
                sandbox: None,
                isolation: None,
                budget: None,
            }),
        )
        .unwrap();
    let CommandReply::Delegated { agent_id: delegated } = reply else { panic!("{reply:?}") };
    loop {
        let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
        if let EventKind::AgentStarted(s) = &ev.kind
            && ev.agent_id == delegated
        {
            assert_eq!(s.parent_id.as_ref(), Some(&info.main_agent_id));
            assert_eq!(s.description, "Look around");
            assert_eq!(s.subagent_type.as_deref(), Some("late-reviewer"));
            break;
        }
    }
    host.close_session(&info.session_id);
    assert!(host.state().sessions.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_joining_a_running_session_reads_the_store_up_to_where_its_frames_begin() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let Launched { info, mut events } = host.launch(demo()).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    // The demo stops at its first question: the session is running, a call waits.
    let asked = loop {
        let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
        if matches!(ev.kind, EventKind::ApprovalRequest(_)) {
            break ev;
        }
    };
    let through = asked.seq;
    let all = host.live_view(info.session_id.clone(), u64::MAX).await.unwrap();
    assert_eq!(all.runs, arbor_app::transcripts::SessionRuns::Here);
    assert!(all.events.iter().any(|e| e.seq == through), "the waiting call is in the view: {:?}", all.events);
    // Up to an earlier event: nothing after it, though the store holds more.
    let earlier = through - 1;
    let view = host.live_view(info.session_id.clone(), earlier).await.unwrap();
    assert!(
        view.events.iter().all(|e| e.seq <= earlier),
        "{:?}",
        view.events.iter().map(|e| e.seq).collect::<Vec<_>>()
    );
    assert!(!view.events.is_empty());
    assert!(view.events.windows(2).all(|w| w[0].seq < w[1].seq), "in order, once each");
    host.close_session(&info.session_id);
    // A session this process no longer runs has nothing to join.
    let gone = host.live_view(info.session_id.clone(), through).await.unwrap_err();
    assert_eq!(gone.kind, arbor_app::AppErrorKind::NoSession);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_is_stored_before_it_is_shown_and_the_session_can_be_reviewed_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let Launched { info, mut events } = host.launch(demo()).await.unwrap();
    let store = host.store().unwrap();
    let mut shown = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
        // Persist before display: what reaches a front end is in the file already.
        assert!(store.last_seq(&info.session_id).unwrap() >= ev.seq, "event {} shown before it was stored", ev.seq);
        if let EventKind::ApprovalRequest(r) = &ev.kind {
            host.send(
                &info.session_id,
                Command::ResolveApproval(arbor_protocol::ApprovalAnswer::new(
                    r.request_id.clone(),
                    true,
                    arbor_protocol::ApprovalScope::Once,
                )),
            )
            .unwrap();
        }
        let done = ev.agent_id == info.main_agent_id && matches!(ev.kind, EventKind::AgentFinished(_));
        shown.push(ev);
        if done {
            break;
        }
    }
    let listed = host.sessions(HistoryQuery::default()).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, info.session_id);
    assert_eq!(listed[0].first_prompt, arbor_app::demo::PROMPT);
    let started = shown.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted(_))).count();
    assert!(started >= 3, "the main agent and its subagents");
    assert_eq!(listed[0].agent_count as usize, started);
    let past = host.open_session(info.session_id.clone()).await.unwrap();
    assert_eq!(past.detail.agents.len(), started);
    // The review's usage figures are the live derivation's, for every agent and the session.
    let ids: Vec<AgentId> = events.states().agents().iter().map(|a| a.id.clone()).collect();
    let live = events.states().usage_update(&ids);
    assert_eq!(past.usage.agents.len(), live.agents.len());
    for a in &live.agents {
        let stored = past.usage.agents.iter().find(|p| p.agent_id == a.agent_id).expect("every agent");
        assert_eq!((stored.own.tokens, stored.subtree.tokens), (a.own.tokens, a.subtree.tokens), "{}", a.agent_id);
    }
    assert_eq!(past.usage.session.tokens, live.session.tokens);
    assert_eq!(listed[0].usage.tokens, live.session.tokens);
    assert!(past.events.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(
        past.events.iter().any(|e| matches!(e.kind, EventKind::AgentStarted(_)) && e.agent_id != info.main_agent_id)
    );
    let hits = host.search("TODO".into()).await.unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.session_id == info.session_id && !h.agent_path.is_empty()));

    let json_path = dir.path().join("session.json");
    host.export(info.session_id.clone(), None, ExportFormat::Json, json_path.display().to_string()).await.unwrap();
    let back: arbor_protocol::SessionExport =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(back.events, shown, "the export holds exactly the events that were shown");
    let md_path = dir.path().join("session.md");
    host.export(info.session_id.clone(), None, ExportFormat::Markdown, md_path.display().to_string()).await.unwrap();
    let md = std::fs::read_to_string(&md_path).unwrap();
    for a in &past.detail.agents {
        assert!(md.contains(&a.description), "the Markdown names {}", a.description);
    }
    let bad = host.export(info.session_id.clone(), None, ExportFormat::Json, "/nonexistent/dir/x.json".into()).await;
    assert_eq!(bad.unwrap_err().kind, AppErrorKind::Export);
    assert_eq!(host.open_session(SessionId("sess-nope".into())).await.unwrap_err().kind, AppErrorKind::NotFound);
    host.close_session(&info.session_id);
}

async fn until_finished(events: &mut SessionEvents, main: &AgentId) -> Vec<arbor_protocol::AgentEvent> {
    let mut got = Vec::new();
    loop {
        let ev = tokio::time::timeout(std::time::Duration::from_secs(20), events.recv()).await.unwrap().unwrap();
        let end = ev.agent_id == *main && matches!(ev.kind, EventKind::AgentFinished(_));
        got.push(ev);
        if end {
            return got;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_session_resumes_with_its_history_and_its_seq_carried_on() {
    let scenario = arbor_testkit::Scenario::from_json(
        &serde_json::json!({ "name": "resume-host", "rules": [
            { "match": { "first_user_contains": "REMEMBER" },
              "turns": [ { "text": "noted the number" }, { "text": "it was {{first_user}}" } ] }
        ]})
        .to_string(),
    )
    .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let Launched { info, mut events } = host.start_session(start_request(dir.path(), "REMEMBER 42")).await.unwrap();
    let first = until_finished(&mut events, &info.main_agent_id).await;
    let before = events.states().total_usage();
    assert!(before.total_tokens() > 0, "the scripted server reports usage");
    // A live session is continued as it is, not launched twice; once closed, it is continued from the store.
    let twice = host.resume_session(info.session_id.clone(), None).await.err().unwrap();
    assert_eq!(twice.kind, AppErrorKind::Session, "{}", twice.message);
    host.close_and_settle(&info.session_id).await;
    let Launched { info: again, events: mut more } =
        host.resume_session(info.session_id.clone(), Some("what was it?".into())).await.unwrap();
    // The resumed session's agents start as stored: usage goes on from there, not from zero.
    assert_eq!(more.states().total_usage(), before);
    assert_eq!(again.session_id, info.session_id);
    assert_eq!(again.main_agent_id, info.main_agent_id);
    let second = until_finished(&mut more, &info.main_agent_id).await;
    assert_eq!(second[0].seq, first.last().unwrap().seq + 1);
    let EventKind::AgentFinished(f) = &second.last().unwrap().kind else { panic!() };
    assert_eq!(f.result, "it was REMEMBER 42", "the second turn ran on the stored history");
    let listed = host.sessions(HistoryQuery::default()).await.unwrap();
    assert_eq!(listed.len(), 1, "the same session, not a new one");
    assert_eq!(listed[0].event_count as usize, first.len() + second.len());
    let after = more.states().total_usage();
    assert!(after.total_tokens() > before.total_tokens());
    assert_eq!(listed[0].usage.tokens, after.total_tokens(), "the store and the live derivation agree");
    host.close_session(&info.session_id);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_while_a_session_runs_needs_no_runtime_and_ends_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let host = std::sync::Arc::new(host(dir.path()));
    let Launched { info, mut events } = host.launch(demo()).await.unwrap();
    // The window's exit handler runs on the event loop's thread, outside any runtime.
    let quitting = host.clone();
    let stopped = std::thread::spawn(move || quitting.close_all().len()).join().expect("closing did not panic");
    assert_eq!(stopped, 1, "the running session was closed");
    let rest = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        let mut n = 0;
        while events.recv().await.is_some() {
            n += 1;
        }
        n
    })
    .await
    .expect("the events end once the agents have");
    assert!(events.settle(std::time::Duration::from_secs(10)).await, "the writer finished");
    let stored = host.store().unwrap().session(&info.session_id).unwrap();
    assert!(stored.session.ended_at.is_some(), "marked ended after {rest} more events");
    assert!(host.send(&info.session_id, Command::Cancel { agent_id: info.main_agent_id }).is_err());
}

#[test]
fn keys_and_base_urls_come_from_the_environment_the_binary_passed() {
    let dir = tempfile::tempdir().unwrap();
    let anthropic = |state: arbor_app::host::AppState| {
        state.providers.into_iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap()
    };
    let bare = host(dir.path());
    let p = anthropic(bare.state());
    assert!(!p.ready, "no key anywhere");
    assert_eq!(p.key_var, "ANTHROPIC_API_KEY");

    let keyed = host_with(dir.path(), Environment::default().with("ANTHROPIC_API_KEY", "sk-env-SECRET"));
    let p = anthropic(keyed.state());
    assert!(p.ready);
    assert_eq!(p.key_source, KeySource::Environment);
    assert!(!format!("{:?}", keyed.env()).contains("SECRET"), "Debug shows names only");

    // A local server on the Anthropic route (llama.cpp, a proxy) takes no key, as on the OpenAI route.
    let local = host_with(dir.path(), Environment::default().with("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"));
    let p = anthropic(local.state());
    assert!(p.ready, "{p:?}");
    assert_eq!(p.key_source, KeySource::NotNeeded);
    assert_eq!(p.base_url, "http://127.0.0.1:9/");
}

/// A session whose writing process died is offered at the next start, and is
/// no longer once dismissed (or continued).
#[test]
fn start_up_offers_the_sessions_the_last_run_left_interrupted() {
    use arbor_protocol::{AgentEvent, AgentStarted, AgentStatus, StatusChanged};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data").join(arbor_store::Store::FILE_NAME);
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let store = arbor_store::Store::open(&db).unwrap();
    let id = SessionId("sess-died".into());
    // Its owner's claim goes with it when it dies (here: when dropped below).
    let claim = store.claim(&id).unwrap();
    let new = arbor_store::NewSession {
        id: id.clone(),
        workspace: dir.path().display().to_string(),
        first_prompt: "half done".into(),
        provider: "anthropic".into(),
        model: "m".into(),
        started_at: 1_000,
        client: None,
    };
    store.begin_session(&new, &claim).unwrap();
    let main = AgentId("agent-0001".into());
    let ev =
        |seq: u64, kind: EventKind| AgentEvent { agent_id: main.clone(), session_id: id.clone(), seq, ts: 1_000, kind };
    let started = AgentStarted {
        parent_id: None,
        parent_call_id: None,
        depth: 0,
        description: "main".into(),
        subagent_type: None,
        model: "m".into(),
        provider: "anthropic".into(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    };
    store
        .append(&[
            ev(1, EventKind::AgentStarted(started)),
            ev(2, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Running })),
        ])
        .unwrap();
    drop((store, claim));
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    rusqlite::Connection::open(&db).unwrap().execute("UPDATE sessions SET owner_pid = ?1", [pid]).unwrap();

    let host = host(dir.path());
    let offered = host.state().interrupted;
    assert_eq!(offered.len(), 1);
    assert_eq!((offered[0].id.as_str(), offered[0].first_prompt.as_str()), ("sess-died", "half done"));
    assert_eq!(offered[0].status, arbor_protocol::SessionStatus::Interrupted);
    host.dismiss_interrupted();
    assert!(host.state().interrupted.is_empty());
    drop(host);
    assert!(super::host::host(dir.path()).state().interrupted.is_empty(), "offered once: it was recovered then");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_settings_context_window_is_every_agents_and_says_so() {
    let scenario = arbor_testkit::Scenario::from_json(
        &serde_json::json!({ "name": "window-host", "rules": [ { "match": {}, "turns": [ { "text": "done" } ] } ]})
            .to_string(),
    )
    .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let host = ready_host(dir.path(), &server).await;
    let mut settings = host.settings();
    settings.context.window = Some(32_768);
    host.save_settings(settings).unwrap();
    let Launched { info, mut events } = host.start_session(start_request(dir.path(), "hello")).await.unwrap();
    let run = until_finished(&mut events, &info.main_agent_id).await;
    let window = run.iter().find_map(|e| match &e.kind {
        EventKind::ContextWindow(w) => Some(*w),
        _ => None,
    });
    assert_eq!(window.map(|w| (w.tokens, w.source)), Some((32_768, arbor_protocol::WindowSource::Configured)));
    host.close_session(&info.session_id);
    server.shutdown().await;
}

/// Runs `task` while `fifo`, a FIFO a file it reads is made into, holds it (as a file
/// on a dead network mount would), on a runtime of one worker: true when another task
/// still ran meanwhile. The FIFO is then answered with `{}`, and `task` ends.
async fn runs_beside_a_hung_read<T: Send + 'static>(
    fifo: &Path,
    task: impl std::future::Future<Output = T> + Send + 'static,
) -> (bool, T) {
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(fifo).status().unwrap().success());
    let task = tokio::spawn(task);
    // Opening the FIFO to write returns once the task has opened it to read; its read
    // then waits for the writer to close.
    let (opened, writer) = std::sync::mpsc::channel();
    let path = fifo.to_path_buf();
    std::thread::spawn(move || opened.send(std::fs::OpenOptions::new().write(true).open(path)));
    let mut writer = writer.recv_timeout(std::time::Duration::from_secs(30)).expect("the task opens the file").unwrap();
    let probe = tokio::spawn(async { "ran" });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !probe.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let ran = probe.is_finished();
    // Answered before the caller asserts, so a failure does not leave the worker blocked.
    std::io::Write::write_all(&mut writer, b"{}").unwrap();
    drop(writer);
    let done = tokio::time::timeout(std::time::Duration::from_secs(30), task).await.unwrap().unwrap();
    (ran, done)
}

/// A start held by Claude Code's settings file holds only itself: other tasks run
/// meanwhile, and the start goes on once the file answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_start_held_by_a_hung_settings_file_leaves_the_runtime_working() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("claude");
    let env = Environment::default().with("CLAUDE_CONFIG_DIR", &claude.display().to_string());
    let host = std::sync::Arc::new(host_with(dir.path(), env));
    let starting = host.clone();
    let (ran, started) =
        runs_beside_a_hung_read(&claude.join("settings.json"), async move { starting.launch(demo()).await }).await;
    assert!(ran, "a start blocked on a file held the runtime's only worker");
    let session = started.unwrap().info.session_id;
    assert!(host.state().sessions.iter().any(|s| s.session_id == session));
    host.close_and_settle(&session).await;
}

/// So does a start held by the workspace's `CLAUDE.md`, which the session reads as it
/// starts (once: its subagents take the instructions from there).
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_start_held_by_a_hung_instruction_file_leaves_the_runtime_working() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    let host = std::sync::Arc::new(host(dir.path()));
    let starting = host.clone();
    let spec = LaunchSpec { workspace: Some(workspace.clone()), ..demo() };
    let (ran, started) =
        runs_beside_a_hung_read(&workspace.join("CLAUDE.md"), async move { starting.launch(spec).await }).await;
    assert!(ran, "a start blocked on a file held the runtime's only worker");
    let session = started.unwrap().info.session_id;
    host.close_and_settle(&session).await;
}

/// Listing MCP servers held by the person's `mcp.json` holds only itself too.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn an_mcp_listing_held_by_a_hung_file_leaves_the_runtime_working() {
    let dir = tempfile::tempdir().unwrap();
    let host = std::sync::Arc::new(host(dir.path()));
    let listing = McpListing { fresh: false, trust_workspace: false };
    let asking = host.clone();
    let workspace = Some(dir.path().display().to_string());
    let (ran, report) = runs_beside_a_hung_read(&dir.path().join("config/mcp.json"), async move {
        asking.mcp_servers(workspace, &[], listing).await
    })
    .await;
    assert!(ran, "a listing blocked on a file held the runtime's only worker");
    assert!(report.servers.is_empty(), "an empty file names no server: {:?}", report.problems);
}

/// A keyring whose first read waits until the test lets it go (an unlock prompt nobody
/// has answered yet); the keys themselves are kept in memory.
struct KeyringHeldOnce {
    reached: std::sync::Mutex<Option<std::sync::mpsc::Sender<()>>>,
    go: std::sync::Mutex<Option<std::sync::mpsc::Receiver<()>>>,
    keys: MemoryStore,
}

impl arbor_app::keys::SecretStore for KeyringHeldOnce {
    fn status(&self) -> Result<(), arbor_app::keys::KeyringError> {
        let reached = self.reached.lock().unwrap().take();
        if let Some(reached) = reached {
            reached.send(()).unwrap();
            let go = self.go.lock().unwrap().take().unwrap();
            go.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        }
        Ok(())
    }
    fn get(&self, kind: ProviderKind) -> Result<Option<String>, arbor_app::keys::KeyringError> {
        self.keys.get(kind)
    }
    fn set(&self, kind: ProviderKind, key: &str) -> Result<(), arbor_app::keys::KeyringError> {
        self.keys.set(kind, key)
    }
    fn delete(&self, kind: ProviderKind) -> Result<(), arbor_app::keys::KeyringError> {
        self.keys.delete(kind)
    }
}

/// The desktop reads the app state beside a save (a keyring kept that read waiting):
/// the read that began first answers last, with the settings from before the save,
/// and its number says so, so the page keeps the save's answer.
#[test]
fn an_app_state_read_before_a_save_is_numbered_below_the_saves_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (reached, on_reached) = std::sync::mpsc::channel();
    let (go, on_go) = std::sync::mpsc::channel();
    let secrets = KeyringHeldOnce {
        reached: std::sync::Mutex::new(Some(reached)),
        go: std::sync::Mutex::new(Some(on_go)),
        keys: MemoryStore::default(),
    };
    let host = std::sync::Arc::new(Host::new(HostConfig {
        env: Environment::default(),
        settings_file: Some(dir.path().join("config/settings.json")),
        config_dir: Some(dir.path().join("config")),
        secrets: Box::new(secrets),
        default_workspace: dir.path().to_path_buf(),
        scratch_dir: dir.path().join("scratch"),
        data_dir: Some(dir.path().join("data")),
    }));
    let reading = host.clone();
    let first = std::thread::spawn(move || reading.state());
    on_reached.recv_timeout(std::time::Duration::from_secs(30)).expect("the read reaches the keyring");
    let mut settings = host.settings();
    settings.default_provider = Some(ProviderKind::Openai);
    let saved = host.save_settings(settings).unwrap();
    go.send(()).unwrap();
    let first = first.join().unwrap();
    assert_eq!(first.settings.default_provider, None, "the first read saw the settings before the save");
    assert_eq!(saved.settings.default_provider, Some(ProviderKind::Openai));
    assert!(first.taken < saved.taken, "{} before {}", first.taken, saved.taken);
    assert!(host.state().taken > saved.taken, "each answer numbered after the last");
}

/// Saves side by side (the desktop runs its commands at once) each land whole: none
/// fails on another's temporary file, and the file ends as memory does.
#[test]
fn settings_saved_side_by_side_each_land_and_the_file_ends_as_memory_does() {
    let dir = tempfile::tempdir().unwrap();
    let host = std::sync::Arc::new(host(dir.path()));
    let savers: Vec<_> = (0..4)
        .map(|t| {
            let host = host.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let mut settings = host.settings();
                    settings.last_workspace = Some(format!("/w/{t}/{i}"));
                    host.save_settings(settings).map_err(|e| e.message)?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for saver in savers {
        saver.join().unwrap().unwrap();
    }
    let file = Settings::load(&dir.path().join("config/settings.json")).unwrap();
    assert_eq!(file.last_workspace, host.settings().last_workspace);
}
