//! The loop itself, on both wire formats: streaming, turns, concurrency, call
//! order, limits, project instructions, continuation and steering.

use super::*;
use arbor_protocol::{AgentStatus, Command, EventKind};
use serde_json::json;

fn both() -> [Api; 2] {
    [Api::Anthropic, Api::OpenAi]
}

#[tokio::test]
async fn a_reply_streams_and_events_are_stamped_and_gap_free() {
    for api in both() {
        let h = Harness::new(
            json!({"rules": [{"match": {"first_user_contains": "hello"}, "turns": [
                {"thinking": "The user greets me; greet back.", "text": "Hello! I am a scripted model streaming this reply in pieces.",
                 "usage": {"input_tokens": 120, "output_tokens": 14, "cache_read_tokens": 100, "cache_write_tokens": 20}}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("hello there").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        assert_eq!(run.finished().result, "Hello! I am a scripted model streaming this reply in pieces.");
        assert_eq!(run.text(), run.finished().result);
        // Pieces sent at once are merged before they are numbered (a_fast_models_pieces_…).
        let chunks = run.types().iter().filter(|t| **t == "response_chunk").count();
        assert!(chunks >= 1, "the reply streams");
        let types = run.types();
        assert_eq!(types[0], "agent_started");
        assert!(types.contains(&"thoughts_chunk") && types.contains(&"thoughts") && types.contains(&"usage"));
        let main = run.session.main_agent_id().clone();
        assert!(arbor_protocol::AgentId::is_valid(main.as_str()));
        for (i, e) in run.events.iter().enumerate() {
            assert_eq!(e.seq, i as u64 + 1, "seq is gap-free from 1");
            assert_eq!(e.agent_id, main);
            assert_eq!(&e.session_id, run.session.id());
            assert!(e.ts > 1_600_000_000_000);
        }
        let usage = run.events.iter().find_map(|e| match &e.kind {
            EventKind::Usage(u) => Some(u.clone()),
            _ => None,
        });
        let usage = usage.expect("usage");
        assert_eq!(usage.output_tokens, 14);
        assert_eq!(usage.cache_read_tokens, 100);
        if api == Api::Anthropic {
            assert_eq!((usage.input_tokens, usage.cache_write_tokens), (120, 20));
        }
        assert!(usage.cost_usd.is_some_and(|c| c > 0.0), "a known model is priced");
        let req = &run.requests[0];
        match api {
            Api::Anthropic => {
                assert_eq!(req.header("x-api-key"), Some("test-key"));
                assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(req.body["system"][0]["cache_control"]["type"], "ephemeral");
                let tools = req.body["tools"].as_array().expect("tools");
                assert!(tools.last().expect("a tool")["cache_control"].is_object());
            }
            Api::OpenAi => {
                assert_eq!(req.header("authorization"), Some("Bearer test-key"));
                assert_eq!(req.body["stream_options"]["include_usage"], true);
            }
        }
    }
}

#[tokio::test]
async fn independent_tool_calls_run_concurrently_and_results_return_in_call_order() {
    // Each command waits for the other's file: run one after the other, both would time out.
    let a = "touch a.ready; for i in $(seq 100); do [ -e b.ready ] && break; sleep 0.05; done; [ -e b.ready ] && echo A-saw-B";
    let b = "touch b.ready; for i in $(seq 100); do [ -e a.ready ] && break; sleep 0.05; done; [ -e a.ready ] && echo B-saw-A";
    for api in both() {
        let h = Harness::new(
            json!({"rules": [{"match": {"first_user_contains": "both"}, "turns": [
                {"tool_calls": [
                    {"name": "Bash", "input": {"command": a}},
                    {"name": "Bash", "input": {"command": b}},
                    {"name": "Glob", "input": {"pattern": "*.ready"}}
                ]},
                {"text": "done"}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("run both").await;
        assert_eq!(run.finished().status, AgentStatus::Completed);
        let outs = run.outputs();
        assert_eq!(outs[0], ("A-saw-B".to_string(), false), "{api:?}");
        assert_eq!(outs[1], ("B-saw-A".to_string(), false));
        let results = tool_results(&run.requests[1]);
        assert_eq!(results.len(), 3);
        assert!(
            results[0].1.contains("A-saw-B") && results[1].1.contains("B-saw-A"),
            "paired in call order: {results:?}"
        );
        let call_ids: Vec<String> = run
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolCall(c) => Some(c.call_id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(results.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), call_ids);
        let streamed: String = run
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolOutputChunk(c) => Some(c.content.clone()),
                _ => None,
            })
            .collect();
        assert!(streamed.contains("A-saw-B") && streamed.contains("B-saw-A"), "Bash output is streamed");
    }
}

#[tokio::test]
async fn the_loop_stops_at_max_turns() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "repeat_last": true, "turns": [
            {"text": "again", "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.main_agent.max_turns = 3;
    let run = h.run_with(config, "loop forever").await;
    let f = run.finished();
    assert_eq!((f.status, f.turns), (AgentStatus::MaxTurns, 3));
    assert_eq!(run.requests.len(), 3, "no request after the limit");
    assert_eq!(run.session.status(run.session.main_agent_id()), Some(AgentStatus::MaxTurns));
}

#[tokio::test]
async fn project_instructions_reach_the_system_prompt() {
    let h = Harness::new(
        json!({"rules": [{"match": {"system_contains": "Always answer in haiku"}, "turns": [{"text": "ok"}]}]}),
        Api::OpenAi,
    )
    .await;
    std::fs::write(h.path("AGENTS.md"), "Always answer in haiku.").expect("write");
    let run = h.run("hi").await;
    assert_eq!(run.finished().status, AgentStatus::Completed, "the rule matched on the system prompt");
    let system = &run.requests[0].system_text;
    assert!(system.contains("AGENTS.md") && system.contains(&h.root().display().to_string()));
}

#[tokio::test]
async fn a_finished_main_agent_continues_with_its_history() {
    let h = Harness::new(
        json!({"rules": [{"match": {"first_user_contains": "first"}, "turns": [
            {"text": "first answer"},
            {"text": "second answer"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "first question");
    let main = session.main_agent_id().clone();
    until_finished(&mut events, &main).await;
    session.submit(Command::SendMessage { agent_id: None, text: "follow-up".into() }).expect("continue");
    let second = until_finished(&mut events, &main).await;
    assert!(!second.iter().any(|e| e.kind.type_name() == "agent_started"), "started once");
    let statuses: Vec<AgentStatus> = second
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentStatus(s) => Some(s.status),
            _ => None,
        })
        .collect();
    // Not still "completed" while its new run starts: queued at once, then running.
    assert_eq!(statuses, [AgentStatus::Queued, AgentStatus::Running, AgentStatus::Completed]);
    let reqs = h.requests();
    let msgs = reqs[1].body["messages"].as_array().expect("messages");
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[1]["content"][0]["text"], "first answer");
    assert_eq!(msgs[2]["content"][0]["text"], "follow-up");
}

#[tokio::test]
async fn thinking_signatures_are_sent_back_to_anthropic() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"thinking": "I should look.", "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]},
            {"text": "nothing here"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("look").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let assistant = &run.requests[1].body["messages"][1]["content"];
    assert_eq!(assistant[0]["type"], "thinking");
    assert!(assistant[0]["signature"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(assistant[1]["type"], "tool_use");
}

#[tokio::test]
async fn a_message_to_a_running_agent_joins_its_next_turn() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "for i in $(seq 200); do [ -e go ] && break; sleep 0.05; done; echo waited"}}]},
            {"text": "noted"}
        ]}]}),
        Api::OpenAi,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "work");
    let mut seen = arbor_testkit::collect_until(&mut events, WAIT, |e| e.kind.type_name() == "tool_call")
        .await
        .expect("tool call");
    session
        .submit(Command::SendMessage {
            agent_id: Some(session.main_agent_id().clone()),
            text: "also check the docs".into(),
        })
        .expect("steer");
    std::fs::write(h.path("go"), "").expect("go");
    seen.extend(until_finished(&mut events, session.main_agent_id()).await);
    let reqs = h.requests();
    let last = reqs[1].body["messages"].as_array().and_then(|m| m.last().cloned()).expect("last message");
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"], "also check the docs");
    // Announced when the agent took it (after the call it was busy with), not when it was sent:
    // a transcript never shows it above output produced before it was read.
    let types: Vec<&str> = seen.iter().map(|e| e.kind.type_name()).collect();
    let said = seen
        .iter()
        .position(|e| matches!(&e.kind, EventKind::UserMessage(m) if m.content == "also check the docs"))
        .expect("the message is announced");
    let output = types.iter().position(|t| *t == "tool_output").expect("tool output");
    let reply = types.iter().rposition(|t| *t == "response").expect("the reply to it");
    assert!(output < said && said < reply, "{types:?}");
    let EventKind::UserMessage(m) = &seen[said].kind else { unreachable!() };
    assert_eq!(m.from, arbor_protocol::MessageFrom::Person);
}

/// A model streaming 16 characters a millisecond: its pieces are merged per agent for
/// a moment before they get a seq (agent/pieces.rs), so the store writes a few events
/// where the model sent hundreds, each agent's text whole and in order, the contracts kept.
#[tokio::test]
async fn a_fast_models_pieces_are_merged_before_they_are_numbered() {
    for api in both() {
        let text = "sixteen chars, ".repeat(16 * 20);
        let thinking = "a thought of a model, streamed fast. ".repeat(40);
        let h = Harness::new(
            json!({"rules": [{"match": {"first_user_contains": "stream"}, "turns": [
                {"thinking": thinking, "text": text, "chunk_delay_ms": 1}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("stream fast").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        let sent = h.server.events_sent();
        let pieces = |kind: &str| -> Vec<String> {
            run.events
                .iter()
                .filter(|e| e.kind.type_name() == kind)
                .filter_map(|e| match &e.kind {
                    EventKind::ResponseChunk(t) | EventKind::ThoughtsChunk(t) => Some(t.content.clone()),
                    _ => None,
                })
                .collect()
        };
        let (said, thought) = (pieces("response_chunk"), pieces("thoughts_chunk"));
        assert_eq!(said.concat(), text, "{api:?}: the text whole and in order");
        assert_eq!(thought.concat(), thinking, "{api:?}");
        // 300 + 93 pieces of 16 characters, one a millisecond: a piece is held at most 16 ms,
        // so a few dozen events at most (fewer when pieces arrive together).
        assert!(sent >= 300 + 93, "{api:?}: the server sent {sent} events");
        assert!(said.len() + thought.len() <= 40, "{api:?}: {} events for {sent} pieces", said.len() + thought.len());
        let first_text = run.types().iter().position(|t| *t == "response_chunk").expect("a piece");
        let response = run.types().iter().position(|t| *t == "response").expect("the response");
        assert!(first_text < response, "{api:?}: pieces come before the whole");
        let v = arbor_testkit::contract::violations(&run.events, true);
        assert!(v.is_empty(), "{api:?}: {v:?}");
    }
}

#[tokio::test]
async fn a_tool_calls_input_streams_before_the_call_on_both_wire_formats() {
    for api in both() {
        let content = "line one of a file the model writes\n".repeat(20);
        let h = Harness::new(
            json!({"rules": [{"match": {"first_user_contains": "write"}, "turns": [
                {"text": "Writing it.", "tool_calls": [
                    {"name": "Write", "input": {"file_path": "notes.txt", "content": content}},
                    {"name": "Read", "input": {"file_path": "notes.txt"}}
                ]},
                {"text": "done"}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("write the notes").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        for (name, input) in [
            ("Write", json!({"file_path": "notes.txt", "content": content})),
            ("Read", json!({"file_path": "notes.txt"})),
        ] {
            let call = run
                .events
                .iter()
                .find_map(|e| match &e.kind {
                    EventKind::ToolCall(c) if c.tool_name == name => Some((e.seq, c.call_id.clone())),
                    _ => None,
                })
                .expect("the call");
            let chunks: Vec<(u64, &arbor_protocol::ToolInputChunk)> = run
                .events
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::ToolInputChunk(c) if c.call_id == call.1 => Some((e.seq, c)),
                    _ => None,
                })
                .collect();
            assert!(!chunks.is_empty(), "{api:?} {name}: the input streams");
            assert!(
                chunks.iter().all(|(seq, c)| *seq < call.0 && c.tool_name == name),
                "{api:?}: every piece before the call"
            );
            let streamed: String = chunks.iter().map(|(_, c)| c.content.as_str()).collect();
            let parsed: serde_json::Value = serde_json::from_str(&streamed).expect("the pieces make the input");
            assert_eq!(parsed, input, "{api:?}");
        }
        // The Write's first piece comes before the response is complete: the card shows while it streams.
        let first_piece = run.types().iter().position(|t| *t == "tool_input_chunk").expect("a piece");
        let usage = run.types().iter().position(|t| *t == "usage").expect("usage");
        assert!(first_piece < usage, "{api:?}");
        let v = arbor_testkit::contract::violations(&run.events, true);
        assert!(v.is_empty(), "{api:?}: {v:?}");
    }
}
