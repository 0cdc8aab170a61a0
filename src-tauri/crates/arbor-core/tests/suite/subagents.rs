//! Subagents through the session: what a child is given and what comes back of
//! it, on both wire formats. Also the helpers the other `subagents_*` files
//! share: reading children, statuses and tool results out of events and requests.

use super::*;
use arbor_core::AgentDefinition;
use arbor_core::definitions::PermissionMode;
use arbor_protocol::{AgentEvent, AgentStarted, AgentStatus, EventKind};
use serde_json::{Value, json};

pub const BOTH: [Api; 2] = [Api::Anthropic, Api::OpenAi];

/// Every subagent's `agent_started`, in event order: (its id, the payload).
pub fn children(events: &[AgentEvent]) -> Vec<(AgentId, AgentStarted)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentStarted(s) if s.parent_id.is_some() => Some((e.agent_id.clone(), s.clone())),
            _ => None,
        })
        .collect()
}

/// The subagent labelled `description`.
pub fn child(events: &[AgentEvent], description: &str) -> (AgentId, AgentStarted) {
    children(events)
        .into_iter()
        .find(|(_, s)| s.description == description)
        .unwrap_or_else(|| panic!("no child described {description:?}"))
}

/// The statuses `id` went through, as its agent_status events said.
pub fn statuses(events: &[AgentEvent], id: &AgentId) -> Vec<AgentStatus> {
    events
        .iter()
        .filter(|e| e.agent_id == *id)
        .filter_map(|e| match &e.kind {
            EventKind::AgentStatus(s) => Some(s.status),
            _ => None,
        })
        .collect()
}

/// `id`'s (last) agent_finished and its seq.
pub fn finished_of(events: &[AgentEvent], id: &AgentId) -> (u64, AgentFinished) {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) if e.agent_id == *id => Some((e.seq, f.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{id} did not finish"))
}

/// The ids of the calls of `tool` that `agent` made, in order.
pub fn calls_of(events: &[AgentEvent], agent: &AgentId, tool: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.agent_id == *agent)
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) if c.tool_name == tool => Some(c.call_id.clone()),
            _ => None,
        })
        .collect()
}

/// The tool_output of one call: (content, is_error, seq).
pub fn output_of(events: &[AgentEvent], call_id: &str) -> (String, bool, u64) {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolOutput(o) if o.call_id == call_id => Some((o.content.clone(), o.is_error, e.seq)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no output for call {call_id}"))
}

/// The requests whose first user message contains `needle` (one agent's requests,
/// when every agent's prompt carries its own tag), in arrival order.
pub fn requests_of<'a>(requests: &'a [RecordedRequest], needle: &str) -> Vec<&'a RecordedRequest> {
    requests.iter().filter(|r| r.first_user_text.contains(needle)).collect()
}

/// The names of the tools a request offered, for either API, sorted.
pub fn tool_names(req: &RecordedRequest) -> Vec<String> {
    let tools = req.body["tools"].as_array().cloned().unwrap_or_default();
    let mut names: Vec<String> = tools
        .iter()
        .filter_map(|t| t["name"].as_str().or_else(|| t["function"]["name"].as_str()).map(str::to_string))
        .collect();
    names.sort();
    names
}

/// The JSON of a request's last message, for substring checks.
pub fn last_message(req: &RecordedRequest) -> String {
    req.body["messages"].as_array().and_then(|m| m.last()).map(Value::to_string).unwrap_or_default()
}

/// Anthropic only: (tool_use_id, is_error) of every tool_result block in the last message.
pub fn error_flags(req: &RecordedRequest) -> Vec<(String, bool)> {
    assert_eq!(req.api, Api::Anthropic);
    let last = req.body["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default();
    last["content"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| (b["tool_use_id"].as_str().unwrap_or("").to_string(), b["is_error"] == true))
        .collect()
}

/// The ids a session seeded with `seed` gives its agents, in the order it draws
/// them: the main agent first, then one per subagent started. Lets a scenario
/// name an agent (TaskOutput, TaskStop) before the session exists; every test
/// that relies on it checks the prediction against the real ids.
pub fn predicted_ids(seed: u64, subagents: usize) -> Vec<AgentId> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let _session = rng.u64(..);
    (0..=subagents).map(|_| AgentId::from_suffix(rng.u32(..))).collect()
}

/// A subagent type with the parent's everything but its own system prompt.
pub fn agent_type(name: &str, system_prompt: &str) -> AgentDefinition {
    AgentDefinition {
        name: name.to_string(),
        description: format!("{name}, for tests"),
        system_prompt: system_prompt.to_string(),
        tools: arbor_core::ToolFilter::default(),
        model: None,
        provider: None,
        max_turns: None,
        permission_mode: PermissionMode::Default,
        mcp_servers: Vec::new(),
        color: None,
        approve_spawn: false,
        sandbox: None,
        isolation: Default::default(),
        budget: Default::default(),
        context: Default::default(),
        hooks: Default::default(),
        acp: None,
        file: None,
        source: None,
    }
}

/// A Task call as a scenario writes it.
pub fn task(id: &str, description: &str, prompt: &str) -> Value {
    json!({"id": id, "name": "Task", "input": {"description": description, "prompt": prompt}})
}

/// A parent that starts two children in one response; each child answers from its prompt.
fn two_children() -> Value {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD-A"}, "turns": [{"text": "result of A"}]},
        {"match": {"first_user_contains": "CHILD-B"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
            {"text": "result of B"}
        ]},
        {"match": {}, "turns": [
            {"tool_calls": [
                {"name": "Task", "input": {"description": "Do A", "prompt": "CHILD-A: do a"}},
                {"name": "Task", "input": {"description": "Do B", "prompt": "CHILD-B: do b"}}
            ]},
            {"text": "both done"}
        ]}
    ]})
}

#[tokio::test]
async fn two_children_run_and_only_their_last_texts_reach_the_parent() {
    for api in BOTH {
        let h = Harness::new(two_children(), api).await;
        let run = h.run("PARENT: split the work").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        assert_eq!(children(&run.events).len(), 2);
        let parent_req = run.requests.iter().rfind(|r| r.first_user_text.contains("PARENT")).expect("parent");
        let results = tool_results(parent_req);
        assert_eq!(results.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(), vec!["result of A", "result of B"]);
        assert_eq!(read(&h.path("b.txt")), "B");
        let agents = run.session.agents();
        let by = |d: &str| agents.iter().find(|a| a.description == d).expect("agent");
        assert_eq!(by("Do B").files_modified, vec!["b.txt".to_string()], "files are the child's own");
        assert!(by("Do A").files_modified.is_empty() && by("main").files_modified.is_empty());
        let (main, a, b) = (by("main"), by("Do A"), by("Do B"));
        assert!(a.usage.output_tokens > 0 && b.usage.output_tokens > 0);
        assert_eq!(
            main.subtree_usage.output_tokens,
            main.usage.output_tokens + a.usage.output_tokens + b.usage.output_tokens,
            "usage rolls up per subtree"
        );
        assert_eq!(b.subtree_usage, b.usage);
        assert_eq!((a.turns, b.turns, main.turns), (1, 2, 2));
        // Each child says which call started it: the tree shows them in call order, whichever started first.
        for (_, started) in children(&run.events) {
            let call = run.events.iter().find_map(|e| match &e.kind {
                EventKind::ToolCall(c) if Some(&c.call_id) == started.parent_call_id.as_ref() => Some(e.seq),
                _ => None,
            });
            assert_eq!(started.call_seq, call, "{api:?} {}", started.description);
        }
        let seq_of =
            |d: &str| children(&run.events).into_iter().find(|(_, s)| s.description == d).and_then(|(_, s)| s.call_seq);
        assert!(seq_of("Do A") < seq_of("Do B"), "{api:?}: in call order");
    }
}

#[tokio::test]
async fn a_child_sees_only_its_prompt_and_the_parent_sees_only_its_last_text() {
    for api in BOTH {
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "CHILD-ISO"}, "turns": [
                    {"text": "CHILD-MIDWAY looking around", "tool_calls": [{"name": "Read", "input": {"file_path": "secret.txt"}}]},
                    {"text": "child final answer"}
                ]},
                {"match": {}, "turns": [
                    {"text": "PARENT-NOTE: delegating", "tool_calls": [
                        {"name": "Task", "input": {"description": "Isolated child", "prompt": "CHILD-ISO: read secret.txt"}}
                    ]},
                    {"text": "parent done"}
                ]}
            ]}),
            api,
        )
        .await;
        std::fs::write(h.path("secret.txt"), "CHILD-ONLY-CONTENT").expect("write");
        let run = h.run("PARENT-PROMPT: delegate the reading").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        let kids = requests_of(&run.requests, "CHILD-ISO");
        let parents = requests_of(&run.requests, "PARENT-PROMPT");
        assert_eq!((kids.len(), parents.len()), (2, 2), "{api:?}");

        let first = kids[0];
        let conversation: Vec<_> = first.body["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["role"] != "system" && m["role"] != "developer")
            .collect();
        assert_eq!(conversation.len(), 1, "{api:?}: one message, the prompt");
        assert_eq!(first.first_user_text, "CHILD-ISO: read secret.txt");
        for k in &kids {
            let body = k.body.to_string();
            assert!(
                !body.contains("PARENT-PROMPT") && !body.contains("PARENT-NOTE"),
                "no parent message reaches the child"
            );
            assert_eq!(k.system_text, parents[0].system_text, "general-purpose inherits the system prompt");
            assert_eq!(k.body["model"], parents[0].body["model"], "and the model");
        }
        assert!(kids[1].body.to_string().contains("CHILD-ONLY-CONTENT"), "the child read the file itself");
        let mut inherited = tool_names(parents[0]);
        inherited.retain(|n| !["Task", "TaskOutput", "TaskStop", "ListAgents"].contains(&n.as_str()));
        assert_eq!(tool_names(first), inherited, "and the tools, minus the subagent tools at the depth limit");

        let task_call = calls_of(&run.events, run.session.main_agent_id(), "Task").remove(0);
        assert_eq!(tool_results(parents[1]), vec![(task_call, "child final answer".to_string())]);
        let parent_body = parents[1].body.to_string();
        assert!(
            !parent_body.contains("CHILD-MIDWAY") && !parent_body.contains("CHILD-ONLY-CONTENT"),
            "nothing of the child's history but its last text enters the parent's context"
        );
    }
}

#[tokio::test]
async fn a_child_is_announced_with_its_place_in_the_tree_and_every_status_change() {
    for api in BOTH {
        let (provider, task_id) = match api {
            Api::Anthropic => ("anthropic", "toolu_task_announce"),
            Api::OpenAi => ("openai", "call_task_announce"),
        };
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "CHILD-ANN"}, "turns": [{"text": "announced"}]},
                {"match": {}, "turns": [{"tool_calls": [task(task_id, "Announce me", "CHILD-ANN: hi")]}, {"text": "ok"}]}
            ]}),
            api,
        )
        .await;
        let run = h.run("PARENT: start one").await;
        let main = run.session.main_agent_id().clone();
        let kids = children(&run.events);
        assert_eq!(kids.len(), 1, "{api:?}");
        let (id, started) = &kids[0];
        assert!(AgentId::is_valid(id.as_str()) && *id != main, "a fresh id: {id}");
        // Its place among its siblings: the seq of the call that started it.
        let call_seq = run.events.iter().find_map(|e| match &e.kind {
            EventKind::ToolCall(c) if c.call_id == task_id => Some(e.seq),
            _ => None,
        });
        assert!(call_seq.is_some());
        assert_eq!(
            *started,
            AgentStarted {
                parent_id: Some(main.clone()),
                parent_call_id: Some(task_id.to_string()),
                depth: 1,
                description: "Announce me".into(),
                subagent_type: Some("general-purpose".into()),
                model: "claude-sonnet-4-5".into(),
                provider: provider.into(),
                background: false,
                call_seq,
                fork: None,
                external: None,
            }
        );
        assert_eq!(statuses(&run.events, id), vec![AgentStatus::Queued, AgentStatus::Running, AgentStatus::Completed]);
        // Its task reads as its parent's, the main agent's prompt as the person's.
        let from = |agent: &AgentId| {
            run.events.iter().find_map(|e| match &e.kind {
                EventKind::UserMessage(m) if e.agent_id == *agent => Some(m.from),
                _ => None,
            })
        };
        assert_eq!(from(id), Some(arbor_protocol::MessageFrom::Parent));
        assert_eq!(from(&main), Some(arbor_protocol::MessageFrom::Person));
        let seq = |pred: &dyn Fn(&AgentEvent) -> bool| run.events.iter().find(|e| pred(e)).expect("event").seq;
        let call = seq(&|e| matches!(&e.kind, EventKind::ToolCall(c) if c.call_id == task_id));
        let born = seq(&|e| e.agent_id == *id);
        let (done, finished) = finished_of(&run.events, id);
        let (out, is_error, answered) = output_of(&run.events, task_id);
        assert!(call < born && born < done && done < answered, "call, child, its end, the call's output");
        assert_eq!((out.as_str(), is_error, finished.result.as_str()), ("announced", false, "announced"));
        let summary = run.session.agents().into_iter().find(|a| a.id == *id).expect("in the registry");
        assert_eq!((summary.parent_id, summary.depth, summary.status), (Some(main), 1, AgentStatus::Completed));
        assert_eq!(summary.turns, 1);
        assert!(summary.usage.output_tokens > 0 && summary.finished_at.is_some());
    }
}

#[tokio::test]
async fn an_empty_child_answer_reads_as_no_result_text() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-MUTE"}, "turns": [{"thinking": "nothing worth saying"}]},
            {"match": {}, "turns": [{"tool_calls": [task("toolu_mute", "Mute child", "CHILD-MUTE: say nothing")]}, {"text": "ok"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("PARENT: ask the mute one").await;
    let parent = requests_of(&run.requests, "PARENT")[1];
    assert_eq!(tool_results(parent), vec![("toolu_mute".to_string(), "(no result text)".to_string())]);
    assert_eq!(error_flags(parent), vec![("toolu_mute".to_string(), false)]);
}

#[tokio::test]
async fn a_long_result_is_cut_for_the_parent_and_kept_whole_in_the_registry() {
    let long: String = (0..300).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-LONG"}, "turns": [{"text": long}]},
            {"match": {}, "turns": [{"tool_calls": [task("toolu_long", "Long child", "CHILD-LONG: write a lot")]}, {"text": "ok"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.result_chars = 100;
    let run = h.run_with(config, "PARENT: ask for a lot").await;
    let parent = requests_of(&run.requests, "PARENT")[1];
    let (_, got) = tool_results(parent).remove(0);
    assert!(got.starts_with(&long[..100]), "{got}");
    assert!(!got.contains(&long[..101]), "cut at 100 characters: {got}");
    assert!(got.contains("[Result truncated: the first 100 of 300 characters"), "{got}");
    let (id, _) = child(&run.events, "Long child");
    let kept = run.session.agents().into_iter().find(|a| a.id == id).and_then(|a| a.result);
    assert_eq!(kept.as_deref(), Some(long.as_str()), "the registry keeps the full text");
    assert_eq!(finished_of(&run.events, &id).1.result, long, "and so does agent_finished");
}
