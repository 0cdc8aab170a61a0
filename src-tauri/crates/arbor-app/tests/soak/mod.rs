//! The randomized soak: a seeded scenario (a random tree of agents up to depth 3
//! with up to 20 children in parallel, foreground and background, random tool
//! calls of every class, approvals answered in random order with random scopes
//! or never, random cancels and delegations, random provider faults) driven
//! through the real runtime and recorder against the scripted model server, then
//! checked: no mutating call ran without an approval or a rule that covers it,
//! and none ran that was refused; every request resolved once, by its own agent;
//! every agent's events in contract order, seq gap-free; every agent ended; no
//! process left behind; the store equal to the stream. A seed replays the same
//! scenario exactly. Shared by the suite's test and `cargo bench --bench soak`.

use arbor_app::record::{Problem, Recorder};
use arbor_core::provider::{AnthropicConfig, AnthropicProvider, ApiKey, OpenAiConfig, OpenAiProvider, Provider};
use arbor_core::provider::{RetryPolicy, Timeouts};
use arbor_core::{ApprovalPolicy, Limits, Session, SessionConfig};
use arbor_protocol::{
    AgentEvent, AgentId, AgentStates, ApprovalAnswer, ApprovalOutcome, ApprovalPreview, ApprovalResolved,
    ApprovalScope, Command, DecidedBy, DelegateRequest, EventKind, SpawnEdit,
};
use arbor_store::{NewSession, Store};
use arbor_testkit::{Scenario, ScriptedServer};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// What one scenario did and what it broke.
pub struct Outcome {
    pub agents: usize,
    pub events: usize,
    pub violations: Vec<String>,
}

/// One agent of the scripted tree: its tag (in its prompt, so the server routes by it) and its turns.
struct AgentPlan {
    tag: String,
    turns: Vec<Value>,
}

struct Plan {
    agents: Vec<AgentPlan>,
    /// Tags of agents a person delegates during the run.
    delegations: Vec<String>,
}

const MARK: &str = "soakmark";

fn plan(rng: &mut fastrand::Rng, seed: u64) -> Plan {
    let mut agents = Vec::new();
    let mut next = 0usize;
    let main = build(rng, seed, "MAIN".to_string(), 0, &mut agents, &mut next);
    agents.push(main);
    let delegations = (0..rng.usize(0..=2))
        .map(|d| {
            let tag = format!("DELEGATED{d}");
            let a = build(rng, seed, tag.clone(), 2, &mut agents, &mut next);
            agents.push(a);
            tag
        })
        .collect();
    Plan { agents, delegations }
}

/// The plan of one agent at `depth`, pushing its descendants' plans into `all`.
fn build(
    rng: &mut fastrand::Rng,
    seed: u64,
    tag: String,
    depth: u32,
    all: &mut Vec<AgentPlan>,
    next: &mut usize,
) -> AgentPlan {
    let mut turns = Vec::new();
    for turn in 0..rng.usize(0..=3) {
        let mut calls = Vec::new();
        for i in 0..rng.usize(1..=3) {
            let file = format!("{MARK}-{tag}-{turn}-{i}.txt");
            calls.push(match rng.u8(0..10) {
                0 => json!({"name": "Read", "input": {"file_path": "seed.txt"}}),
                1 => json!({"name": "Glob", "input": {"pattern": "*.txt"}}),
                2 => json!({"name": "Grep", "input": {"pattern": "soak", "output_mode": "count"}}),
                3 | 4 => json!({"name": "Write", "input": {"file_path": file, "content": "x"}}),
                5 => json!({"name": "Bash", "input": {"command": format!("echo ran > {file}")}}),
                6 => json!({"name": "Bash", "input": {"command": format!("sleep 0.{}; echo {MARK}-{seed}", rng.u8(1..9))}}),
                7 => json!({"name": "Edit", "input": {"file_path": "seed.txt", "old_string": "soak", "new_string": "soak"}}),
                8 => json!({"name": "ListAgents", "input": {}}),
                _ => json!({"name": "TaskOutput", "input": {"task_id": "agent-0000dead", "block": false}}),
            });
        }
        // Children: parallel Task calls in one response, foreground or background.
        if depth < 3 && rng.u8(0..3) == 0 {
            let n = if depth == 0 { rng.usize(1..=20) } else { rng.usize(1..=3) };
            for _ in 0..n {
                *next += 1;
                let child_tag = format!("C{}", *next);
                let child = build(rng, seed, child_tag.clone(), depth + 1, all, next);
                all.push(child);
                calls.push(json!({"name": "Task", "input": {
                    "description": format!("Child {child_tag}"),
                    "prompt": format!("SOAK-{child_tag}: do your part"),
                    "run_in_background": rng.bool(),
                }}));
            }
        }
        let mut t = json!({"tool_calls": calls});
        fault(rng, &mut t);
        turns.push(t);
    }
    let mut last = json!({"text": format!("{tag} is done")});
    fault(rng, &mut last);
    turns.push(last);
    AgentPlan { tag, turns }
}

/// Sometimes a provider fault on this turn: overload or rate limit first, a stall, or a broken stream.
fn fault(rng: &mut fastrand::Rng, turn: &mut Value) {
    match rng.u8(0..12) {
        0 => {
            let status = [429, 529, 500][rng.usize(0..3)];
            turn["fail_first"] = json!({"status": status, "times": rng.u32(1..=2)});
        }
        1 => turn["delay_ms"] = json!(rng.u64(10..200)),
        2 => turn["delay_ms"] = json!(700),
        3 => turn["cut_after_events"] = json!(rng.usize(1..4)),
        _ => {}
    }
}

fn scenario(plan: &Plan) -> Scenario {
    let rules: Vec<Value> = plan
        .agents
        .iter()
        .map(|a| json!({"match": {"first_user_contains": format!("SOAK-{}:", a.tag)}, "repeat_last": true, "turns": a.turns}))
        .collect();
    Scenario::from_json(&json!({"name": "soak", "rules": rules}).to_string()).expect("a well-formed scenario")
}

fn provider(openai: bool, server: &ScriptedServer) -> Arc<dyn Provider> {
    let timeouts = Timeouts {
        connect: Duration::from_secs(2),
        response: Duration::from_millis(500),
        idle: Duration::from_millis(500),
    };
    let key = Some(ApiKey::new("soak-key"));
    if openai {
        Arc::new(
            OpenAiProvider::new(OpenAiConfig { base_url: server.openai_base_url(), api_key: key, timeouts })
                .expect("provider"),
        )
    } else {
        Arc::new(
            AnthropicProvider::new(AnthropicConfig {
                base_url: server.anthropic_base_url(),
                api_key: key,
                timeouts,
                ..Default::default()
            })
            .expect("provider"),
        )
    }
}

/// Runs scenario `seed` in a fresh workspace under `dir`.
pub async fn run(seed: u64, dir: &Path) -> Outcome {
    let mut rng = fastrand::Rng::with_seed(seed);
    let plan = plan(&mut rng, seed);
    let server = ScriptedServer::start(scenario(&plan)).await.expect("scripted server");
    let workspace = dir.join(format!("ws-{seed}"));
    std::fs::create_dir_all(&workspace).expect("workspace");
    std::fs::write(workspace.join("seed.txt"), "soak\n").expect("seed file");
    let openai = rng.bool();
    let name = if openai { "openai" } else { "anthropic" };
    let mut config = SessionConfig::new(&workspace, name, provider(openai, &server), "claude-sonnet-4-5");
    config.approval = ApprovalPolicy::default();
    // Some runs ask before every spawn, and the person may edit the child.
    if rng.u8(0..4) == 0 {
        config.approval.ask_before_spawning();
    }
    config.limits = Limits { max_parallel: rng.usize(1..=8), max_depth: 3, max_subagents: 1000, ..Limits::default() };
    config.retry = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(40),
        budget: Duration::from_secs(5),
    };
    config.seed = Some(seed);
    let store = Arc::new(Store::open(&dir.join(format!("store-{seed}.db"))).expect("store"));
    let recorder = Recorder::new();
    config.journal = Some(recorder.journal());
    let (session, events) = Session::start(config).expect("session");
    let new = NewSession {
        id: session.id().clone(),
        workspace: workspace.display().to_string(),
        first_prompt: "SOAK-MAIN: go".into(),
        provider: name.into(),
        model: "claude-sonnet-4-5".into(),
        started_at: 0,
        client: None,
    };
    let claim = store.claim(&new.id).expect("a new session is nobody's");
    let (mut events, writing) =
        recorder.record(store.clone(), new, claim, events, Problem::default()).expect("recorder");
    let main = session.main_agent_id().clone();
    session.submit(Command::SendMessage { agent_id: None, text: "SOAK-MAIN: go".into() }).expect("prompt");

    let mut log: Vec<AgentEvent> = Vec::new();
    let mut states = AgentStates::default();
    let mut delegations = plan.delegations.clone();
    let mut cancels = rng.usize(0..=2);
    let mut main_done = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut violations = Vec::new();
    let mut stopped = false;
    loop {
        // Quiet for a while: what is left waits for answers nobody gives. The person stops it all.
        let ev = match tokio::time::timeout(Duration::from_millis(1500), events.recv()).await {
            Ok(Some(ev)) => ev,
            Ok(None) => break,
            Err(_) if !stopped => {
                stopped = true;
                let _ = session.submit(Command::Cancel { agent_id: main.clone() });
                for a in states.agents().iter().filter(|a| a.parent_id.is_none() && a.id != main) {
                    let _ = session.submit(Command::Cancel { agent_id: a.id.clone() });
                }
                continue;
            }
            Err(_) => {
                let left: Vec<String> = states
                    .agents()
                    .iter()
                    .filter(|a| !a.status.is_terminal())
                    .map(|a| format!("{} ({}, {}, under {:?})", a.id, a.description, a.status.as_str(), a.parent_id))
                    .collect();
                violations.push(format!(
                    "seed {seed}: agents still run 1.5 s after the person stopped them all: {}",
                    left.join("; ")
                ));
                break;
            }
        };
        if tokio::time::Instant::now() > deadline {
            violations.push(format!("seed {seed}: the run did not end within 60 s"));
            break;
        }
        states.apply(&ev);
        if let EventKind::ApprovalRequest(r) = &ev.kind {
            // Answered now, a little later, or never (then a cancel or the end withdraws it).
            let never = rng.u8(0..8) == 0;
            if !never {
                let mut answer = ApprovalAnswer::new(
                    r.request_id.clone(),
                    rng.u8(0..3) != 0,
                    ApprovalScope::ALL[rng.usize(0..ApprovalScope::ALL.len())],
                );
                if !answer.approved && rng.bool() {
                    answer.reason = Some("the soak says no".into());
                }
                if let Some(ApprovalPreview::Spawn(plan)) = &r.preview
                    && answer.approved
                    && rng.bool()
                {
                    let tools: Vec<String> = plan.tools.iter().filter(|_| rng.u8(0..3) != 0).cloned().collect();
                    // An edit is for this spawn only.
                    answer.scope = ApprovalScope::Once;
                    answer.edit = Some(SpawnEdit {
                        prompt: rng.bool().then(|| format!("{}\n(edited by the person)", plan.prompt)),
                        model: None,
                        tools: rng.bool().then_some(tools),
                        max_turns: rng.bool().then(|| rng.u32(1..=4)),
                    });
                }
                let later = Duration::from_millis(rng.u64(0..30));
                let s = session.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(later).await;
                    // Already withdrawn (its agent was stopped) is an answer refused, not a violation.
                    let _ = s.submit(Command::ResolveApproval(answer));
                });
            }
        }
        // Some rules are revoked a moment after they are set.
        if let EventKind::ApprovalResolved(ApprovalResolved { rule: Some(rule), .. }) = &ev.kind
            && rng.u8(0..3) == 0
        {
            let (s, rule_id) = (session.clone(), rule.rule_id.clone());
            let later = Duration::from_millis(rng.u64(0..30));
            tokio::spawn(async move {
                tokio::time::sleep(later).await;
                let _ = s.submit(Command::RevokeRule { rule_id });
            });
        }
        if ev.agent_id == main && matches!(ev.kind, EventKind::AgentFinished(_)) {
            main_done = true;
        }
        let n = log.len();
        log.push(ev);
        // Once the person has stopped everything, they start nothing new.
        if n > 20 && !stopped && rng.u8(0..40) == 0 {
            if cancels > 0 {
                cancels -= 1;
                let agents = states.agents();
                let victim = agents[rng.usize(0..agents.len())].id.clone();
                let _ = session.submit(Command::Cancel { agent_id: victim });
            } else if let Some(tag) = delegations.pop() {
                let agents = states.agents();
                let parent = agents[rng.usize(0..agents.len())].id.clone();
                let _ = session.submit(Command::Delegate(DelegateRequest {
                    parent_id: parent,
                    prompt: format!("SOAK-{tag}: a person's extra task"),
                    description: Some(format!("Delegated {tag}")),
                    subagent_type: None,
                    model: None,
                    max_turns: None,
                    tools: None,
                    permission_mode: None,
                    sandbox: None,
                    isolation: None,
                    budget: None,
                }));
            }
        }
        if main_done && states.is_idle() {
            break;
        }
    }
    session.shutdown();
    drop(session);
    // What the shutdown itself emits (stopping what was still queued).
    while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
        states.apply(&ev);
        log.push(ev);
    }
    if !writing.settle(Duration::from_secs(10)).await {
        violations.push(format!("seed {seed}: the writer did not finish"));
    }
    violations.extend(arbor_testkit::violations(&log, true).into_iter().map(|v| format!("seed {seed}: {v}")));
    violations.extend(authorization(&log, &workspace).into_iter().map(|v| format!("seed {seed}: {v}")));
    violations.extend(leftover_processes(seed).await.into_iter().map(|v| format!("seed {seed}: {v}")));
    match store.export(
        &log.first().map(|e| e.session_id.clone()).unwrap_or_else(|| arbor_protocol::SessionId(String::new())),
        None,
    ) {
        Ok(stored) if stored.events == log => {}
        Ok(stored) => {
            let first =
                stored.events.iter().zip(&log).position(|(a, b)| a != b).unwrap_or(log.len().min(stored.events.len()));
            violations.push(format!(
                "seed {seed}: the store holds {} events, the stream carried {}; first difference at {first}: stored {:?} / shown {:?}",
                stored.events.len(),
                log.len(),
                stored.events.get(first).map(|e| serde_json::to_string(e).unwrap_or_default()),
                log.get(first).map(|e| serde_json::to_string(e).unwrap_or_default()),
            ))
        }
        Err(e) => violations.push(format!("seed {seed}: the store cannot export the session: {e}")),
    }
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&workspace);
    Outcome { agents: states.agents().len(), events: log.len(), violations }
}

/// Every mutating call that left a mark ran with a person's yes or a rule's,
/// as its `tool_output.decided_by` says (the contract checks that a rule said
/// so was announced before, covers the call, and was not revoked before it);
/// every call a person or a rule refused left none.
fn authorization(log: &[AgentEvent], workspace: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut requests: HashMap<String, (AgentId, String)> = HashMap::new(); // request → (agent, call)
    let mut answers: HashMap<(AgentId, String), ApprovalOutcome> = HashMap::new(); // (agent, call) → outcome
    let mut decided: HashMap<(AgentId, String), Option<DecidedBy>> = HashMap::new(); // (agent, call) → output's
    for e in log {
        match &e.kind {
            EventKind::ApprovalRequest(r) => {
                requests.insert(r.request_id.clone(), (e.agent_id.clone(), r.call_id.clone()));
            }
            EventKind::ApprovalResolved(r) => {
                if let Some(key) = requests.get(&r.request_id) {
                    answers.insert(key.clone(), r.outcome);
                }
            }
            EventKind::ToolOutput(o) => {
                decided.insert((e.agent_id.clone(), o.call_id.clone()), o.decided_by.clone());
            }
            _ => {}
        }
    }
    for e in log {
        let EventKind::ToolCall(c) = &e.kind else { continue };
        let mark = match c.tool_name.as_str() {
            "Write" => c.tool_args["file_path"].as_str().map(str::to_string),
            "Bash" => {
                c.tool_args["command"].as_str().and_then(|cmd| cmd.strip_prefix("echo ran > ")).map(str::to_string)
            }
            _ => None,
        };
        let Some(mark) = mark else { continue };
        if !workspace.join(&mark).exists() {
            continue;
        }
        let key = (e.agent_id.clone(), c.call_id.clone());
        let allowed = match (answers.get(&key), decided.get(&key)) {
            (Some(outcome), _) => outcome.is_approved(),
            (None, Some(Some(DecidedBy::Rule { rule }))) => rule.approved,
            _ => false,
        };
        if !allowed {
            out.push(format!(
                "{} {} {} ran without a yes (answer {:?}, decided by {:?})",
                e.agent_id,
                c.tool_name,
                c.call_id,
                answers.get(&key),
                decided.get(&key)
            ));
        }
    }
    out
}

/// Commands the scenario started that are still running once it ended.
async fn leftover_processes(seed: u64) -> Vec<String> {
    let marker = format!("{MARK}-{seed}");
    let mut found = Vec::new();
    // Killing is asynchronous: give the process groups a moment to go.
    for _ in 0..20 {
        found.clear();
        if let Ok(dir) = std::fs::read_dir("/proc") {
            for entry in dir.flatten() {
                let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else { continue };
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                // Seed 1's marker is a prefix of seed 11's: only a whole marker counts.
                let needle = format!("echo {marker}");
                let ours = cmd
                    .match_indices(&needle)
                    .any(|(i, _)| !cmd[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()));
                if ours {
                    found.push(format!("process {} still runs: {}", entry.file_name().to_string_lossy(), cmd.trim()));
                }
            }
        }
        if found.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    found
}
