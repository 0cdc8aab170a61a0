//! Sessions longer than the model's window, against a scripted server that
//! refuses longer requests with each provider's own error: the agent compacts
//! its conversation and goes on, never parting a call from its result; what
//! cannot be made to fit fails saying so. The transcript keeps everything.

use super::*;
use arbor_protocol::{AgentStatus, CompactTrigger, ContextCompacted};
use serde_json::{Value, json};

const SUMMARY_SYSTEM: &str = "You summarize a software agent's conversation";

fn both() -> [Api; 2] {
    [Api::Anthropic, Api::OpenAi]
}

/// A turn per file: `cat part-NN.txt`, chosen by the last result read (so the
/// turn played does not depend on how many assistant messages a compacted
/// conversation still holds), then an answer; `text` is what the model says
/// with each call. The summary request gets a summary.
fn reading(files: usize, window: u64, text: &str) -> Value {
    let mut rules = vec![json!({
        "match": { "system_contains": SUMMARY_SYSTEM },
        "turns": [ { "text": "SUMMARY: the parts read so far hold the measurements; keep reading in order." } ],
        "repeat_last": true
    })];
    for i in 1..=files {
        let next = if i == files {
            json!({ "text": "DONE: every part was read." })
        } else {
            json!({ "text": text, "tool_calls": [ { "name": "Bash", "input": { "command": format!("cat part-{:02}.txt", i + 1) } } ] })
        };
        rules.push(json!({
            "match": { "last_tool_result_contains": format!("END-OF-{i:02}") },
            "turns": [ next ],
            "repeat_last": true
        }));
    }
    // Last: the first request (with OpenAI the task stays the last user message; results are `tool` messages).
    rules.push(json!({
        "match": { "first_user_contains": "COMPACT-READ" },
        "turns": [ { "text": text, "tool_calls": [ { "name": "Bash", "input": { "command": "cat part-01.txt" } } ] } ],
        "repeat_last": true
    }));
    json!({ "name": "compaction", "context_window": window, "rules": rules })
}

fn write_parts(h: &Harness, files: usize, bytes: usize) {
    for i in 1..=files {
        let line = format!("part {i:02} measurement within tolerance\n");
        let mut text = line.repeat(bytes / line.len());
        text.push_str(&format!("END-OF-{i:02}\n"));
        std::fs::write(h.path(&format!("part-{i:02}.txt")), text).expect("part");
    }
}

fn compactions(run: &Run) -> Vec<&ContextCompacted> {
    run.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ContextCompacted(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// The server's count of a request (characters over four), as it refuses them.
fn request_tokens(r: &RecordedRequest) -> u64 {
    r.body.to_string().len() as u64 / 4
}

#[tokio::test]
async fn a_forty_turn_session_in_a_small_window_completes_by_clearing_old_results() {
    for api in both() {
        let window = 16_000;
        let h = Harness::new(reading(40, window, "Next part."), api).await;
        write_parts(&h, 40, 4_000);
        let run = h.run("COMPACT-READ: read part-01.txt to part-40.txt in order, one per turn.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        assert!(run.text().contains("DONE: every part was read."));
        let done = compactions(&run);
        assert!(done.len() >= 2, "{api:?}: {} compactions", done.len());
        // The first when the provider refused (its refusal names the window), the rest at the
        // threshold of the window it named.
        assert_eq!(done[0].trigger, CompactTrigger::Overflow);
        assert!(done[0].before_tokens > window, "{api:?}: {:?}", done[0]);
        assert!(done[1..].iter().all(|c| c.trigger == CompactTrigger::Threshold), "{api:?}: {done:?}");
        for c in &done {
            assert_eq!(c.window_tokens, Some(window), "{api:?}: the refusal names the window");
            assert!(c.after_tokens < window * 6 / 10 + 500, "{api:?}: {c:?}");
            assert!(c.cleared_results > 0 && c.summarized_messages == 0 && c.summary.is_none(), "{api:?}: {c:?}");
        }
        // One refusal, followed by one compacted request; every other request fit.
        let refused = run.requests.iter().filter(|r| r.status == 400).count();
        assert_eq!(refused, 1, "{api:?}");
        assert!(run.requests.iter().filter(|r| r.status == 200).all(|r| request_tokens(r) <= window));
        // No request parted a call from its result: the server validates pairs (a 400 of
        // its own would have failed the run), and all forty results are in the transcript whole.
        let outputs = run.outputs();
        assert_eq!(outputs.len(), 40);
        for (i, (content, is_error)) in outputs.iter().enumerate() {
            assert!(!is_error && content.contains(&format!("END-OF-{:02}", i + 1)) && content.len() > 4_000);
        }
        // What the model was sent last: the latest results whole, older ones as markers.
        let last = run.requests.last().expect("requests").body.to_string();
        assert!(last.contains("END-OF-40") && last.contains("Arbor cleared this output"), "{api:?}");
        assert!(last.contains("COMPACT-READ"), "{api:?}: the task is kept");
    }
}

#[tokio::test]
async fn a_conversation_too_long_to_clear_is_summarized_keeping_the_task_and_the_latest_turns() {
    for api in both() {
        let window = 16_000;
        // Long words with each call, and short results: clearing results cannot make room.
        let talk = "Reading on. ".repeat(300);
        let h = Harness::new(reading(20, window, &talk), api).await;
        write_parts(&h, 20, 100);
        let run = h.run("COMPACT-READ: read part-01.txt to part-20.txt in order, one per turn.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        let done = compactions(&run);
        assert!(!done.is_empty(), "{api:?}");
        let c = done[0];
        assert!(c.summarized_messages > 0, "{api:?}: {c:?}");
        assert!(c.summary.as_deref().is_some_and(|s| s.starts_with("SUMMARY:")), "{api:?}: {c:?}");
        assert!(c.usage.as_ref().is_some_and(|u| u.output_tokens > 0), "{api:?}: the summary's cost");
        // The summary request quoted the conversation; the request after it starts with
        // the task and the summary, then the latest turns verbatim.
        let at = run.requests.iter().position(|r| r.system_text.contains(SUMMARY_SYSTEM)).expect("summary request");
        assert!(run.requests[at].body.to_string().contains("cat part-01.txt"), "{api:?}");
        let next = &run.requests[at + 1];
        assert!(next.first_user_text.contains("COMPACT-READ") && next.first_user_text.contains("SUMMARY:"), "{api:?}");
        assert_eq!(next.status, 200, "{api:?}");
        // The summary's usage counts toward the agent's.
        let usage_events = run.events.iter().filter(|e| matches!(e.kind, EventKind::Usage(_))).count();
        let model_requests = run.requests.iter().filter(|r| r.status == 200).count();
        assert_eq!(usage_events, model_requests, "{api:?}: every answered request, the summary's too, is usage");
        // …but a summary is not one of the agent's turns: the derived count is the run's own.
        let mut states = arbor_protocol::AgentStates::default();
        for e in &run.events {
            states.apply(e);
        }
        let main = states.get(run.session.main_agent_id()).expect("main");
        assert_eq!(main.turns, run.finished().turns, "{api:?}");
        assert!(main.turns < model_requests as u32, "{api:?}");
    }
}

#[tokio::test]
async fn the_summary_is_written_by_the_chosen_model_or_the_agents_own_when_that_fails() {
    for (chosen, writer) in [("claude-haiku-4-5", "claude-haiku-4-5"), ("no-such-model", "claude-sonnet-4-5")] {
        let mut scenario = reading(20, 16_000, &"Reading on. ".repeat(300));
        // A model the provider does not serve: refused as Anthropic refuses an unknown model.
        scenario["rules"].as_array_mut().expect("rules").insert(
            0,
            json!({
                "match": { "system_contains": SUMMARY_SYSTEM, "model": "no-such-model" }, "turns": [ { "status": 404 } ]
            }),
        );
        let h = Harness::new(scenario, Api::Anthropic).await;
        write_parts(&h, 20, 100);
        let mut config = h.config();
        config.context.summary_model = Some(chosen.into());
        let run = h.run_with(config, "COMPACT-READ: read part-01.txt to part-20.txt in order, one per turn.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{chosen}: {:?}", run.finished().error);
        let summaries: Vec<(&str, u16)> = run
            .requests
            .iter()
            .filter(|r| r.system_text.contains(SUMMARY_SYSTEM))
            .map(|r| (r.body["model"].as_str().unwrap_or_default(), r.status))
            .collect();
        assert_eq!(summaries.first().map(|s| s.0), Some(chosen), "{chosen}: {summaries:?}");
        assert!(summaries.iter().any(|&(m, status)| m == writer && status == 200), "{chosen}: {summaries:?}");
        // The agent's own requests stay on its model.
        let own = run.requests.iter().filter(|r| !r.system_text.contains(SUMMARY_SYSTEM));
        assert!(own.clone().all(|r| r.body["model"] == "claude-sonnet-4-5"), "{chosen}");
        let c = compactions(&run)[0];
        assert!(c.summary.as_deref().is_some_and(|s| s.starts_with("SUMMARY:")), "{chosen}: {c:?}");
    }
}

#[tokio::test]
async fn a_latest_turn_longer_than_the_window_fails_saying_what_to_do() {
    for api in both() {
        // Its first output alone (capped at 30,000 bytes for the model) is more than the window holds.
        let h = Harness::new(reading(2, 6_000, "Next part."), api).await;
        write_parts(&h, 2, 100_000);
        let run = h.run("COMPACT-READ: read part-01.txt to part-02.txt in order, one per turn.").await;
        let f = run.finished();
        assert_eq!(f.status, AgentStatus::Failed, "{api:?}");
        let error = f.error.as_deref().unwrap_or_default();
        assert!(error.contains("longer than the model's context window"), "{api:?}: {error}");
        assert!(error.contains("larger window"), "{api:?}: {error}");
        assert!(compactions(&run).is_empty(), "{api:?}");
    }
}

#[tokio::test]
async fn an_agent_that_failed_on_its_window_compacts_when_resumed_and_goes_on() {
    for api in both() {
        let talk = "Reading on. ".repeat(300);
        let mut scenario = reading(20, 16_000, &talk);
        // The first summary fails (a refusal, not retried): the agent fails on its window.
        scenario["rules"][0]["turns"][0]["fail_first"] = json!({ "times": 1, "status": 400 });
        let h = Harness::new(scenario, api).await;
        write_parts(&h, 20, 100);
        let (session, mut events) = h.start(h.config(), "COMPACT-READ: read part-01.txt to part-20.txt in order.");
        let main = session.main_agent_id().clone();
        let first = until_finished(&mut events, &main).await;
        let failed = first.iter().rev().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) => Some(f.clone()),
            _ => None,
        });
        let failed = failed.expect("finished");
        assert_eq!(failed.status, AgentStatus::Failed, "{api:?}");
        assert!(failed.error.as_deref().is_some_and(|e| e.contains("could not be compacted")), "{api:?}: {failed:?}");
        session.submit(Command::Resume { agent_id: main.clone(), text: None }).expect("resume");
        let second = until_finished(&mut events, &main).await;
        let done = second.iter().rev().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) => Some(f.clone()),
            _ => None,
        });
        assert_eq!(done.map(|f| f.status), Some(AgentStatus::Completed), "{api:?}");
        assert!(second.iter().any(|e| matches!(&e.kind, EventKind::ContextCompacted(c) if c.summarized_messages > 0)));
    }
}

#[tokio::test]
async fn an_agent_that_knows_its_window_compacts_at_its_threshold_before_any_refusal() {
    for api in both() {
        let window = 16_000;
        let h = Harness::new(reading(40, window, "Next part."), api).await;
        write_parts(&h, 40, 4_000);
        let mut config = h.config();
        config.context = arbor_core::ContextConfig { window: Some(window), ..Default::default() };
        let run = h.run_with(config, "COMPACT-READ: read part-01.txt to part-40.txt in order, one per turn.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        let done = compactions(&run);
        assert!(done.len() >= 2, "{api:?}");
        assert!(done.iter().all(|c| c.trigger == CompactTrigger::Threshold && c.window_tokens == Some(window)));
        assert!(run.requests.iter().all(|r| r.status == 200), "{api:?}: nothing was refused");
        assert!(
            run.requests.iter().all(|r| request_tokens(r) < window * 85 / 100),
            "{api:?}: none past the threshold by much"
        );
        // The window was announced as the person set it, and the agent's state says how full it is.
        let announced = run.events.iter().find_map(|e| match &e.kind {
            EventKind::ContextWindow(w) => Some(*w),
            _ => None,
        });
        assert_eq!(announced.map(|w| (w.tokens, w.source)), Some((window, arbor_protocol::WindowSource::Configured)));
        let mut states = arbor_protocol::AgentStates::default();
        for e in &run.events {
            states.apply(e);
        }
        let main = states.get(run.session.main_agent_id()).expect("main");
        assert!(main.context_used > 0 && main.context_used < window, "{api:?}: {}", main.context_used);
        assert_eq!(main.context_window.map(|w| w.tokens), Some(window));
    }
}

#[tokio::test]
async fn a_local_servers_own_window_is_known_before_the_first_request_and_never_hit() {
    let window = 16_000;
    let mut scenario = reading(30, window, "Next part.");
    // Played as llama.cpp's server: no key, and `GET /props` says the window it serves.
    scenario["keyless"] = json!(true);
    let h = Harness::new(scenario, Api::OpenAi).await;
    write_parts(&h, 30, 4_000);
    // A model no table knows: without the server's word, a guess of 128k.
    let mut config = h.config();
    config.main_agent.model = "smollm2".into();
    let run = h.run_with(config, "COMPACT-READ: read part-01.txt to part-30.txt in order, one per turn.").await;
    assert_eq!(run.finished().status, AgentStatus::Completed, "{:?}", run.finished().error);
    let first = run.events.iter().position(|e| matches!(e.kind, EventKind::ContextWindow(_)));
    let window_event = first.map(|i| &run.events[i].kind);
    assert!(
        matches!(window_event, Some(EventKind::ContextWindow(w)) if w.tokens == window && w.source == arbor_protocol::WindowSource::Provider),
        "{window_event:?}"
    );
    // Announced before any response: the first request was sent knowing it.
    let first_usage = run.events.iter().position(|e| matches!(e.kind, EventKind::Usage(_)));
    assert!(first < first_usage);
    let done = compactions(&run);
    assert!(!done.is_empty() && done.iter().all(|c| c.trigger == CompactTrigger::Threshold), "{done:?}");
    assert!(run.requests.iter().all(|r| r.status == 200), "nothing was refused");
}

#[tokio::test]
async fn a_subagent_compacts_at_its_types_own_window_while_its_parent_waits() {
    for api in both() {
        let window = 16_000;
        let mut scenario = reading(30, window, "Next part.");
        // The main agent delegates the reading and waits for it; then it answers with the child's result.
        let rules = scenario["rules"].as_array_mut().expect("rules");
        rules.insert(
            0,
            json!({ "match": { "last_tool_result_contains": "DONE: every part" },
            "turns": [ { "text": "MAIN: {{last_tool_result}}" } ], "repeat_last": true }),
        );
        rules.insert(
            1,
            json!({ "match": { "first_user_contains": "MAIN-DELEGATE" }, "turns": [ { "tool_calls": [ {
            "name": "Task", "input": { "subagent_type": "reader", "description": "Read the parts",
                "prompt": "COMPACT-READ: read part-01.txt to part-30.txt in order, one per turn." } } ] } ] }),
        );
        // The server enforces no window: the reader's type sets it (`contextWindow`, `compactAt`).
        scenario.as_object_mut().expect("scenario").remove("context_window");
        let h = Harness::new(scenario, api).await;
        write_parts(&h, 30, 4_000);
        let mut reader = super::subagents::agent_type("reader", "You read files in order.");
        reader.context =
            arbor_core::definitions::ContextOverride { window: Some(window), compact_at_percent: Some(70) };
        reader.max_turns = Some(40);
        let mut config = h.config();
        config.main_agent.max_turns = 5;
        config.agent_types = vec![reader];
        let run = h.run_with(config, "MAIN-DELEGATE: have a reader read the parts.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        assert!(run.text().contains("MAIN: DONE: every part was read."), "{api:?}");
        let main = run.session.main_agent_id().clone();
        let child = run
            .events
            .iter()
            .find_map(|e| {
                matches!(e.kind, EventKind::AgentStarted(_)).then(|| e.agent_id.clone()).filter(|id| *id != main)
            })
            .expect("the reader started");
        let theirs: Vec<&ContextCompacted> = run
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ContextCompacted(c) => Some((e.agent_id.clone(), c)),
                _ => None,
            })
            .map(|(id, c)| {
                assert_eq!(id, child, "{api:?}: only the reader compacts");
                c
            })
            .collect();
        // Its type's window and threshold, not the model's 200k nor the session's 80%.
        assert!(theirs.len() >= 2, "{api:?}: {}", theirs.len());
        assert!(theirs.iter().all(|c| c.trigger == CompactTrigger::Threshold && c.window_tokens == Some(window)));
        assert!(theirs.iter().all(|c| c.before_tokens >= window * 70 / 100 && c.before_tokens < window * 80 / 100));
        // While it compacted its parent was waiting on its Task call, which then got its result.
        let first =
            run.events.iter().position(|e| matches!(e.kind, EventKind::ContextCompacted(_))).expect("compacted");
        let result = run.events.iter().position(|e| e.agent_id == main && matches!(e.kind, EventKind::ToolOutput(_)));
        assert!(result.is_some_and(|r| r > first), "{api:?}");
    }
}

#[tokio::test]
async fn a_refusal_that_names_the_window_teaches_it_to_the_agent() {
    let h = Harness::new(reading(20, 16_000, "Next part."), Api::Anthropic).await;
    write_parts(&h, 20, 4_000);
    let run = h.run("COMPACT-READ: read part-01.txt to part-20.txt in order, one per turn.").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let windows: Vec<_> = run
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ContextWindow(w) => Some(*w),
            _ => None,
        })
        .collect();
    // The model's table says 200k; the provider's refusal said 16k, and later compactions came at the threshold.
    assert_eq!(windows.first().map(|w| w.source), Some(arbor_protocol::WindowSource::Model));
    let done = compactions(&run);
    assert_eq!(done.first().map(|c| c.trigger), Some(CompactTrigger::Overflow));
    assert!(done.iter().skip(1).all(|c| c.trigger == CompactTrigger::Threshold), "{done:?}");
    assert_eq!(run.requests.iter().filter(|r| r.status == 400).count(), 1, "refused once, then known");
}

#[tokio::test]
async fn a_long_output_reaches_the_model_as_head_and_tail_and_the_transcript_whole() {
    for api in both() {
        let h = Harness::new(reading(1, 100_000, "Next part."), api).await;
        write_parts(&h, 1, 100_000);
        let run = h.run("COMPACT-READ: read part-01.txt.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        let (output, _) = &run.outputs()[0];
        assert!(output.len() > 99_000 && output.contains("END-OF-01"), "{api:?}: the event keeps it whole");
        let last = run.requests.last().expect("requests").body.to_string();
        assert!(last.contains("bytes of this output left out") && last.contains("END-OF-01"), "{api:?}: head and tail");
        assert!(last.len() < 60_000, "{api:?}: {} bytes sent", last.len());
    }
}

/// A session reading parts in order, whose main agent a person asks to compact after its third result.
async fn compacted_by_hand(h: &Harness, config: SessionConfig) -> (Session, EventStream, arbor_protocol::AgentId) {
    let (session, mut events) = h.start(config, "COMPACT-READ: read part-01.txt to part-08.txt in order.");
    let main = session.main_agent_id().clone();
    collect_until(
        &mut events,
        WAIT,
        |e| matches!(&e.kind, EventKind::ToolOutput(o) if o.content.contains("END-OF-03")),
    )
    .await
    .expect("third result");
    session.submit(Command::Compact { agent_id: main.clone() }).expect("compact");
    (session, events, main)
}

#[tokio::test]
async fn a_person_compacts_a_running_agent_before_its_next_request() {
    for api in both() {
        let h = Harness::new(reading(8, 1_000_000, "Next part."), api).await;
        write_parts(&h, 8, 2_000);
        // After its third result, a person asks; an unknown agent is refused.
        let (session, mut events, main) = compacted_by_hand(&h, h.config()).await;
        let unknown = session.submit(Command::Compact { agent_id: arbor_protocol::AgentId("agent-00000000".into()) });
        assert!(unknown.is_err(), "{api:?}");
        let rest = until_finished(&mut events, &main).await;
        let done: Vec<&ContextCompacted> = rest
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ContextCompacted(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(done.len(), 1, "{api:?}: once, as asked");
        assert_eq!(done[0].trigger, CompactTrigger::Manual);
        assert!(done[0].summarized_messages > 0 && done[0].summary.is_some(), "{api:?}: {:?}", done[0]);
        assert!(
            rest.iter().any(|e| matches!(&e.kind, EventKind::AgentFinished(f) if f.status == AgentStatus::Completed))
        );
    }
}

#[tokio::test]
async fn pre_compact_hooks_run_before_a_compaction_with_claude_codes_trigger() {
    let h = Harness::new(reading(8, 1_000_000, "Next part."), Api::Anthropic).await;
    write_parts(&h, 8, 2_000);
    let log = h.dir.path().join("precompact.jsonl");
    let mut config = h.config();
    let (hooks, _) = arbor_core::hooks::parse(
        &json!({"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": format!("cat >> '{}'", log.display())}]}]}),
        std::path::Path::new("/home/me/.claude/settings.json"),
        arbor_protocol::HookOrigin::User,
    );
    config.hooks = arbor_core::hooks::HookSet::new(hooks);
    let (_session, mut events, main) = compacted_by_hand(&h, config).await;
    let rest = until_finished(&mut events, &main).await;
    let ran = rest.iter().position(
        |e| matches!(&e.kind, EventKind::HookRan(r) if r.hook_event == arbor_protocol::HookEvent::PreCompact),
    );
    let compacted = rest.iter().position(|e| matches!(e.kind, EventKind::ContextCompacted(_)));
    assert!(ran.is_some() && ran < compacted, "the hook ran, before the compaction");
    let stdin: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!((stdin["trigger"].as_str(), stdin["custom_instructions"].as_str()), (Some("manual"), Some("")));
    assert!(std::fs::read_to_string(stdin["transcript_path"].as_str().unwrap()).unwrap().contains("END-OF-03"));
}
