//! Keeping histories and continuing a stored session: the journal receives each
//! agent's conversation as it grows, a resumed session carries its events' `seq`
//! on and sends the model the whole earlier history, and an interrupted subagent
//! resumes with its unfinished tool calls closed.

use super::*;
use arbor_core::{Journal, ResumeState, ResumedAgent};
use arbor_protocol::{AgentStarted, AgentStatus, AssistantBlock, Message, SessionId, UserBlock};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Mutex;

/// A journal that applies each delta the way the store does.
#[derive(Default)]
struct Kept(Mutex<HashMap<AgentId, Vec<Message>>>);

impl Journal for Kept {
    fn history(&self, _session: &SessionId, agent: &AgentId, start: usize, messages: &[Message]) {
        let mut all = self.0.lock().unwrap();
        let h = all.entry(agent.clone()).or_default();
        assert!(start <= h.len(), "a delta starts at most at the end of what was kept");
        h.truncate(start);
        h.extend_from_slice(messages);
    }
}

impl Kept {
    fn of(&self, agent: &AgentId) -> Vec<Message> {
        self.0.lock().unwrap().get(agent).cloned().unwrap_or_default()
    }
}

fn scenario() -> serde_json::Value {
    json!({ "name": "resume", "rules": [
        { "match": { "first_user_contains": "CHILD-TASK" }, "turns": [ { "text": "child says 42" } ] },
        { "match": { "first_user_contains": "FIRST" }, "turns": [
            { "text": "delegating", "tool_calls": [ { "name": "Task", "input": { "description": "Count", "prompt": "CHILD-TASK: count" } } ] },
            { "text": "first answer" },
            { "text": "second answer" }
        ] }
    ]})
}

/// The stored form of a finished run, as the store would hand it back: each agent
/// as the protocol's one derivation leaves it, with its kept history.
fn state_from(events: &[AgentEvent], kept: &Kept, main: &AgentId) -> ResumeState {
    let mut states = arbor_protocol::AgentStates::default();
    for e in events {
        states.apply(e);
    }
    let agents: Vec<ResumedAgent> = states
        .agents()
        .iter()
        .map(|a| ResumedAgent { state: a.clone(), history: kept.of(&a.id), calls: Vec::new() })
        .collect();
    ResumeState {
        session_id: events[0].session_id.clone(),
        main_agent_id: main.clone(),
        last_seq: events.last().unwrap().seq,
        agents,
    }
}

#[tokio::test]
async fn the_journal_keeps_each_agents_history_and_a_resumed_session_continues_it() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(scenario(), api).await;
        let kept = Arc::new(Kept::default());
        let mut config = h.config();
        config.journal = Some(kept.clone());
        let run = h.run_with(config, "FIRST: go").await;
        let main = run.session.main_agent_id().clone();
        // Every agent's task and messages are events too: the main prompt and the child's task.
        let prompts: Vec<(AgentId, String)> = run
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::UserMessage(t) => Some((e.agent_id.clone(), t.content.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(prompts.len(), 2, "{prompts:?}");
        assert_eq!(prompts[0], (main.clone(), "FIRST: go".to_string()));
        assert_eq!(prompts[1].1, "CHILD-TASK: count");
        let child = prompts[1].0.clone();

        let main_history = kept.of(&main);
        assert_eq!(main_history.len(), 4, "{main_history:#?}");
        assert_eq!(main_history[0], Message::user_text("FIRST: go"));
        assert!(
            matches!(&main_history[2], Message::User { content } if matches!(&content[0], UserBlock::ToolResult { content, .. } if content.contains("child says 42")))
        );
        assert_eq!(main_history[3].assistant_text(), "first answer");
        assert_eq!(kept.of(&child).len(), 2);
        run.session.shutdown();

        // Resume: the same ids, seq carried on, the model sees the whole history.
        let state = state_from(&run.events, &kept, &main);
        let last_seq = state.last_seq;
        let mut config = h.config();
        config.journal = Some(kept.clone());
        let (session, mut events) = Session::resume(config, state).unwrap();
        assert_eq!(session.main_agent_id(), &main);
        assert_eq!(session.status(&child), Some(AgentStatus::Completed));
        session.submit(Command::SendMessage { agent_id: None, text: "SECOND: and now?".into() }).unwrap();
        let more = until_finished(&mut events, &main).await;
        assert_eq!(more[0].seq, last_seq + 1, "events go on from the stored ones");
        assert!(more.windows(2).all(|w| w[1].seq == w[0].seq + 1));
        assert!(matches!(&more[0].kind, EventKind::UserMessage(t) if t.content == "SECOND: and now?"));
        assert!(!more.iter().any(|e| matches!(e.kind, EventKind::AgentStarted(_))), "no agent is announced again");
        assert!(
            matches!(&more.last().unwrap().kind, EventKind::AgentFinished(f) if f.result == "second answer"),
            "the server played the third turn: it saw the two earlier answers"
        );
        let last = h.requests().last().unwrap().clone();
        let messages = last.body["messages"].as_array().unwrap().clone();
        let user_and_assistant = messages.iter().filter(|m| m["role"] != "system").count();
        assert!(user_and_assistant >= 5, "{api:?}: the earlier history is sent again: {messages:#?}");
        assert!(last.body.to_string().contains("first answer"));
        let history = kept.of(&main);
        assert_eq!(history.len(), 6, "the journal goes on: + the new prompt and answer: {history:#?}");
        session.shutdown();
    }
}

#[tokio::test]
async fn an_interrupted_subagent_resumes_with_its_unfinished_calls_closed_and_reports_to_its_parent() {
    let h = Harness::new(
        json!({ "name": "resume-child", "rules": [
            { "match": { "first_user_contains": "CHILD-TASK" }, "turns": [ { "text": "(its first turn, before the process died)" }, { "text": "child finished after all" } ] },
            { "match": { "first_user_contains": "FIRST" }, "turns": [ { "text": "noted" }, { "text": "noted again" } ] }
        ]}),
        Api::Anthropic,
    )
    .await;
    let session_id = SessionId("sess-00000000000000aa".into());
    let main = AgentId("agent-0000aaaa".into());
    let child = AgentId("agent-0000bbbb".into());
    let started = |parent: Option<&AgentId>, depth, description: &str| AgentStarted {
        parent_id: parent.cloned(),
        parent_call_id: parent.map(|_| "call-1".to_string()),
        depth,
        description: description.into(),
        subagent_type: parent.map(|_| "general-purpose".to_string()),
        model: "claude-sonnet-4-5".into(),
        provider: "anthropic".into(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    };
    let agent = |id: &AgentId, started: AgentStarted, status, history| {
        let mut state = arbor_protocol::StoredAgent::new(id.clone(), &started, 1);
        state.status = status;
        state.turns = 1;
        ResumedAgent { state, history, calls: Vec::new() }
    };
    let state = ResumeState {
        session_id,
        main_agent_id: main.clone(),
        last_seq: 40,
        agents: vec![
            agent(&main, started(None, 0, "main"), AgentStatus::Running, vec![Message::user_text("FIRST: go")]),
            agent(
                &child,
                started(Some(&main), 1, "Count"),
                AgentStatus::Running,
                vec![
                    Message::user_text("CHILD-TASK: count"),
                    Message::Assistant {
                        content: vec![AssistantBlock::ToolUse {
                            id: "toolu_1".into(),
                            name: "Bash".into(),
                            input: json!({ "command": "sleep 100" }),
                        }],
                    },
                ],
            ),
        ],
    };
    let (session, mut events) = Session::resume(h.config(), state).unwrap();
    assert_eq!(session.status(&child), Some(AgentStatus::Interrupted), "what was running when the process died");
    assert_eq!(session.status(&main), Some(AgentStatus::Interrupted));
    session.submit(Command::Resume { agent_id: child.clone(), text: None }).unwrap();
    let got = collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::TaskNotification(_))).await.unwrap();
    let req = h.requests().into_iter().find(|r| r.first_user_text.contains("CHILD-TASK")).unwrap();
    let body = req.body.to_string();
    assert!(body.contains("did not finish"), "the unfinished call has a result: {body}");
    assert!(body.contains("Continue the task where you left off"), "{body}");
    // Arbor wrote that request, not the person: the transcript says so.
    assert!(got.iter().any(|e| e.agent_id == child
        && matches!(&e.kind, EventKind::UserMessage(m) if m.from == arbor_protocol::MessageFrom::Arbor
            && m.content.contains("Continue the task"))));
    assert!(got.iter().any(|e| e.agent_id == child
        && matches!(&e.kind, EventKind::AgentFinished(f) if f.status == AgentStatus::Completed && f.result == "child finished after all")));
    assert!(matches!(&got.last().unwrap().kind, EventKind::TaskNotification(n) if n.task_id == child));
    // A running agent is not resumed, it is messaged.
    let e = session.submit(Command::Resume { agent_id: AgentId("agent-00000000".into()), text: None }).unwrap_err();
    assert!(e.to_string().contains("no agent"), "{e}");
    session.shutdown();
}

/// Closing a session (the window, a signal) stops nobody: its agents end
/// interrupted, a call waiting for a person is withdrawn without a result, and
/// when the session is continued that same call is asked again and runs.
#[tokio::test]
async fn a_call_waiting_for_a_person_when_the_session_closes_is_asked_again_on_resume_and_runs() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({ "name": "ask-again", "rules": [
                { "match": { "first_user_contains": "WRITE-IT" }, "turns": [
                    { "text": "writing", "tool_calls": [
                        { "name": "Read", "input": { "file_path": "seen.txt" } },
                        { "name": "Write", "input": { "file_path": "out.txt", "content": "approved content\n" } } ] },
                    { "text": "written after all" } ] }
            ]}),
            api,
        )
        .await;
        std::fs::write(h.path("seen.txt"), "already here\n").unwrap();
        let kept = Arc::new(Kept::default());
        let mut config = h.config();
        config.approval = arbor_core::ApprovalPolicy::default();
        config.journal = Some(kept.clone());
        let (session, mut events) = h.start(config, "WRITE-IT please");
        let main = session.main_agent_id().clone();
        let mut first =
            collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::ApprovalRequest(_))).await.unwrap();
        let EventKind::ApprovalRequest(asked) = first.last().unwrap().kind.clone() else { unreachable!() };
        let (call_id, preview) = (asked.call_id.clone(), asked.preview.clone());
        // The Read runs meanwhile (reads are allowed): its output is in the events, not yet in the history.
        let read_done = |e: &AgentEvent| matches!(&e.kind, EventKind::ToolOutput(o) if o.call_id != call_id);
        if !first.iter().any(read_done) {
            first.extend(collect_until(&mut events, WAIT, read_done).await.unwrap());
        }
        session.shutdown();
        first.extend(until_finished(&mut events, &main).await);
        let end = first.iter().rev().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) => Some(f.clone()),
            _ => None,
        });
        let end = end.unwrap();
        assert_eq!((end.status, end.stopped_by), (AgentStatus::Interrupted, None), "{api:?}: nobody stopped it");
        assert!(first.iter().any(|e| matches!(&e.kind, EventKind::ApprovalResolved(r)
            if r.outcome == arbor_protocol::ApprovalOutcome::Withdrawn)));
        assert!(
            !first.iter().any(|e| matches!(&e.kind, EventKind::ToolOutput(o) if o.call_id == call_id)),
            "{api:?}: the unanswered call has no output: it was never refused"
        );
        assert!(
            matches!(kept.of(&main).last(), Some(Message::Assistant { .. })),
            "{api:?}: its history leaves the calls open"
        );

        // Continued from what the store holds: the same call is asked again, with its preview.
        let mut state = state_from(&first, &kept, &main);
        state.agents[0].calls = first.iter().filter(|e| e.agent_id == main).cloned().collect();
        let mut config = h.config();
        config.approval = arbor_core::ApprovalPolicy::default();
        let (session, mut events) = Session::resume(config, state).unwrap();
        assert_eq!(session.status(&main), Some(AgentStatus::Interrupted));
        session.submit(Command::Resume { agent_id: main.clone(), text: None }).unwrap();
        let mut second =
            collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::ApprovalRequest(_))).await.unwrap();
        let EventKind::ApprovalRequest(again) = &second.last().unwrap().kind else { unreachable!() };
        assert_eq!(again.call_id, call_id, "{api:?}: the same call");
        assert_ne!(again.request_id, asked.request_id);
        assert_eq!(again.preview, preview, "{api:?}: the same card");
        assert!(!h.path("out.txt").exists(), "nothing ran before the answer");
        let answer = arbor_protocol::ApprovalAnswer::new(&again.request_id, true, arbor_protocol::ApprovalScope::Once);
        session.submit(Command::ResolveApproval(answer)).unwrap();
        second.extend(until_finished(&mut events, &main).await);
        assert!(matches!(&second.last().unwrap().kind, EventKind::AgentFinished(f)
            if f.status == AgentStatus::Completed && f.result == "written after all"));
        assert_eq!(std::fs::read_to_string(h.path("out.txt")).unwrap(), "approved content\n", "{api:?}");
        // The model read both results, the Read's as it was stored, before Arbor's request to go on.
        let last = h.requests().into_iter().last().unwrap();
        let results = tool_results(&last);
        assert_eq!(results.len(), 2, "{api:?}: {results:?}");
        assert!(results.iter().any(|(_, c)| c.contains("already here")), "{results:?}");
        assert!(last.body.to_string().contains("Continue the task where you left off"));
        // Both runs together keep every contract: each request resolved once, every call ended once.
        let all: Vec<AgentEvent> = first.into_iter().chain(second).collect();
        let broken = arbor_testkit::violations(&all, true);
        assert!(broken.is_empty(), "{api:?}: {broken:?}");
        session.shutdown();
    }
}
