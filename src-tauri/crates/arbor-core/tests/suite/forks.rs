//! Forked subagents (`Task` with `fork: true`): the child starts from its
//! parent's conversation, system prompt and tools byte for byte, so its first
//! request is its parent's last one plus the task, and reads the parent's
//! whole prefix from the provider's cache. Tools it may not use (Task past the
//! depth limit) stay in its list and are refused when called.

use super::*;
use arbor_protocol::{AgentStatus, Fork};
use arbor_testkit::cache::CacheReplay;
use serde_json::{Value, json};

/// The main agent reads a file, forks a child on a side task, then answers; the
/// child tries to delegate (past the depth limit), then answers.
fn forking(task: Value) -> Value {
    json!({ "name": "forks", "rules": [
        { "match": { "last_tool_result_contains": "depth limit" }, "repeat_last": true, "turns": [
            { "text": "FORK-RESULT: the notes hold 42 readings." }
        ] },
        // Played by the assistant messages in the conversation: the fork's first request holds its parent's one.
        { "match": { "last_user_contains": "FORK-SIDE" }, "turns": [
            { "text": "unused" },
            { "tool_calls": [ { "name": "Task", "input": { "prompt": "deeper", "description": "Deeper" } } ] }
        ] },
        { "match": { "first_user_contains": "FORK-MAIN" }, "turns": [
            { "tool_calls": [ { "name": "Bash", "input": { "command": "cat notes.txt" } } ] },
            { "tool_calls": [ { "name": "Task", "input": task } ] },
            { "text": "MAIN-DONE: {{last_tool_result}}" }
        ] }
    ] })
}

fn fork_task() -> Value {
    json!({ "prompt": "FORK-SIDE: count the readings in the notes you read.", "description": "Count readings", "fork": true })
}

/// The request's messages as the provider's wire format holds them.
fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// A message without the cache marks Arbor moves to the latest turns.
fn unmarked(message: &Value) -> Value {
    let mut m = message.clone();
    if let Some(blocks) = m["content"].as_array_mut() {
        for b in blocks {
            if let Some(o) = b.as_object_mut() {
                o.remove("cache_control");
            }
        }
    }
    m
}

#[tokio::test]
async fn a_fork_childs_first_request_starts_with_its_parents_and_reads_it_from_cache() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(forking(fork_task()), api).await;
        std::fs::write(h.path("notes.txt"), "reading 1 within tolerance\n".repeat(400)).expect("notes");
        let run = h.run("FORK-MAIN: read notes.txt, then fork a child to count its readings.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        assert!(run.text().contains("MAIN-DONE: FORK-RESULT: the notes hold 42 readings."), "{api:?}");

        let child = run
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::AgentStarted(s) if s.parent_id.is_some() => Some((e.agent_id.clone(), s.clone())),
                _ => None,
            })
            .expect("a child started");
        // Shown as a fork: it carries its parent's task, call and result.
        assert_eq!(child.1.fork, Some(Fork { messages: 3 }), "{api:?}");
        let finished = run.events.iter().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) if e.agent_id == child.0 => Some(f.clone()),
            _ => None,
        });
        assert_eq!(finished.expect("the fork finished").status, AgentStatus::Completed, "{api:?}");

        let requests: Vec<&Value> = run.requests.iter().map(|r| &r.body).collect();
        let parent = requests[1];
        // The parent waits for its child: the third request is the fork's first.
        let fork = requests[2];
        assert!(fork.to_string().contains("count the readings"), "{api:?}");
        // The same system prompt and tools, byte for byte.
        assert_eq!(fork.get("system"), parent.get("system"), "{api:?}");
        assert_eq!(fork["tools"], parent["tools"], "{api:?}");
        // Its messages start with every one of its parent's; only the task follows.
        let (theirs, ours) = (messages(parent), messages(fork));
        assert!(ours.len() >= theirs.len(), "{api:?}");
        let last = theirs.len() - 1;
        for (i, m) in theirs.iter().enumerate() {
            match (api, i == last) {
                // Anthropic: the task joins the parent's last user turn, after its blocks.
                (Api::Anthropic, true) => {
                    let mine = unmarked(&ours[i])["content"].as_array().cloned().unwrap_or_default();
                    let parents = unmarked(m)["content"].as_array().cloned().unwrap_or_default();
                    assert_eq!(mine[..parents.len()], parents[..], "{api:?}");
                    assert!(
                        mine[parents.len()..]
                            .iter()
                            .any(|b| b["text"].as_str().is_some_and(|t| t.contains("FORK-SIDE")))
                    );
                }
                _ => assert_eq!(unmarked(&ours[i]), unmarked(m), "{api:?}: message {i}"),
            }
        }
        if api == Api::OpenAi {
            let task = ours.last().expect("the task");
            assert_eq!(task["role"], "user");
            assert!(task["content"].as_str().is_some_and(|t| t.starts_with("FORK-SIDE")), "{api:?}: {task}");
            // Byte for byte: the parent's request is a prefix of the fork's (automatic prefix caching).
            let (p, f) = (serde_json::to_string(&theirs).expect("json"), serde_json::to_string(&ours).expect("json"));
            assert!(f.starts_with(&p[..p.len() - 1]), "{api:?}");
        } else {
            // Replaying Anthropic's caching rules: the fork's first request reads what its parent wrote.
            let mut cache = CacheReplay::default();
            let billed: Vec<_> = requests.iter().map(|b| cache.bill(b)).collect();
            let first = &billed[2];
            assert!(first.read * 10 >= first.sent() * 9, "{api:?}: {first:?}");
        }

        // Past the depth limit the fork still has Task in its list, and calling it is refused.
        let refused = run.events.iter().find_map(|e| match &e.kind {
            EventKind::ToolOutput(o) if e.agent_id == child.0 => Some(o.clone()),
            _ => None,
        });
        let refused = refused.expect("the fork's Task call was answered");
        assert!(refused.is_error && refused.content.contains("depth limit"), "{api:?}: {refused:?}");
        assert_eq!(run.events.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted(_))).count(), 2, "{api:?}");
    }
}

#[tokio::test]
async fn a_fork_that_would_change_its_model_or_type_is_refused_saying_why() {
    for (field, value) in [("subagent_type", "code-reviewer"), ("model", "claude-opus-4-1")] {
        let mut task = fork_task();
        task[field] = json!(value);
        let h = Harness::new(forking(task), Api::Anthropic).await;
        std::fs::write(h.path("notes.txt"), "reading\n").expect("notes");
        let run = h.run("FORK-MAIN: read notes.txt, then fork a child to count its readings.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed);
        let outputs = run.outputs();
        let (text, is_error) = &outputs[1];
        assert!(*is_error && text.contains("a fork is a copy of you") && text.contains(field), "{field}: {text}");
        assert_eq!(run.events.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted(_))).count(), 1);
    }
}

/// The parent reads three parts and forks; the fork reads five more, talking at
/// length, until it must summarize at its threshold of the window it shares.
fn forking_then_compacting() -> Value {
    let talk = "Reading on, noting each measurement as it comes. ".repeat(70);
    let cat = |i: usize| json!({ "text": talk, "tool_calls": [ { "name": "Bash", "input": { "command": format!("cat part-{i:02}.txt") } } ] });
    let after = |i: usize, turn: Value| json!({ "match": { "last_tool_result_contains": format!("END-OF-{i:02}") }, "turns": [turn], "repeat_last": true });
    let mut rules = vec![json!({ "match": { "system_contains": "You summarize" }, "repeat_last": true,
        "turns": [ { "text": "SUMMARY: parts 1 to 5 read, all within tolerance." } ] })];
    // The fork's reads first: with OpenAI its task stays the last user message.
    rules.extend((4..8).map(|i| after(i, cat(i + 1))));
    rules.push(after(8, json!({ "text": "FORK-DONE: parts 4 to 8 are within tolerance." })));
    rules.push(json!({ "match": { "last_user_contains": "FORK-SIDE" }, "turns": [cat(4)], "repeat_last": true }));
    rules.extend((1..3).map(|i| after(i, cat(i + 1))));
    rules.push(after(3, json!({ "tool_calls": [ { "name": "Task", "input": { "fork": true, "description": "Read on",
        "prompt": "FORK-SIDE: read part-04.txt to part-08.txt in order and say whether any is out of tolerance." } } ] })));
    rules.push(json!({ "match": { "last_tool_result_contains": "FORK-DONE" }, "turns": [ { "text": "MAIN-DONE" } ], "repeat_last": true }));
    rules.push(json!({ "match": { "first_user_contains": "FORK-MAIN" }, "turns": [cat(1)], "repeat_last": true }));
    json!({ "name": "fork-compaction", "rules": rules })
}

#[tokio::test]
async fn a_fork_that_compacts_keeps_its_own_task_as_well_as_its_parents() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(forking_then_compacting(), api).await;
        for i in 1..=8 {
            let text = format!("{}END-OF-{i:02}\n", format!("part {i:02} within tolerance\n").repeat(40));
            std::fs::write(h.path(&format!("part-{i:02}.txt")), text).expect("part");
        }
        let mut config = h.config();
        config.context = arbor_core::ContextConfig { window: Some(16_000), ..Default::default() };
        let run = h.run_with(config, "FORK-MAIN: read part-01.txt to part-03.txt, then fork the rest.").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: {:?}", run.finished().error);
        assert!(run.text().contains("MAIN-DONE"), "{api:?}");
        let main = run.session.main_agent_id().clone();
        let summarized: Vec<&AgentId> = run
            .events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::ContextCompacted(c) if c.summary.is_some()))
            .map(|e| &e.agent_id)
            .collect();
        assert!(!summarized.is_empty() && summarized.iter().all(|id| **id != main), "{api:?}: the fork summarized");
        // The request after the fork's summary starts with its parent's task and its own, then the summary.
        let at = run.requests.iter().position(|r| r.system_text.contains("You summarize")).expect("summary request");
        let next = &run.requests[at + 1];
        let body = next.body.to_string();
        let (parents, own, summary) =
            (body.find("FORK-MAIN"), body.find("FORK-SIDE: read part-04"), body.find("SUMMARY: parts 1 to 5"));
        assert!(parents < own && own < summary && parents.is_some(), "{api:?}: {parents:?} {own:?} {summary:?}");
    }
}

#[tokio::test]
async fn a_spawn_card_for_a_fork_says_it_is_one_and_what_it_starts_from() {
    let h = Harness::new(forking(fork_task()), Api::Anthropic).await;
    std::fs::write(h.path("notes.txt"), "reading\n").expect("notes");
    let mut config = h.config();
    config.approval.ask_before_spawning();
    let (session, mut events) = h.start(config, "FORK-MAIN: read notes.txt, then fork a child to count its readings.");
    let ev = arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request")
        .await
        .expect("the spawn card");
    let EventKind::ApprovalRequest(req) = ev.kind else { unreachable!() };
    let Some(arbor_protocol::ApprovalPreview::Spawn(plan)) = &req.preview else { panic!("{:?}", req.preview) };
    // The person approving sees that the child gets the conversation so far.
    assert_eq!(plan.fork, Some(Fork { messages: 3 }));
    assert!(plan.prompt.starts_with("FORK-SIDE"));
    let answer = arbor_protocol::ApprovalAnswer::new(&req.request_id, true, arbor_protocol::ApprovalScope::Once);
    session.submit(Command::ResolveApproval(answer)).expect("answer");
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let started = rest.iter().find_map(|e| match &e.kind {
        EventKind::AgentStarted(s) if s.parent_id.is_some() => Some(s.fork),
        _ => None,
    });
    assert_eq!(started, Some(Some(Fork { messages: 3 })));
}
