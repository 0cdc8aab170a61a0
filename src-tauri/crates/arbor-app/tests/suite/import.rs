//! Claude Code's own transcripts (recorded by its CLI 2.1.330, tests/fixtures/claude-code)
//! imported as read-only sessions: the tree linked by the Agent calls, every text,
//! thinking, call, result and usage; a malformed line reported and skipped; importing
//! again adds nothing, a session that grew is updated; nothing is written to the source.

use super::host::host;
use arbor_app::import::ImportOutcome;
use arbor_protocol::{AgentStatus, EventKind, SessionId, SessionSource};
use std::path::{Path, PathBuf};

const SESSION: &str = "7f3c2a10-5b6e-4d8a-9c1f-2e4b6d8f0a13";
const PROJECT: &str = "-home-user-demo-project";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/claude-code/projects")
}

/// A copy of the fixtures to change, and every file's bytes to compare later.
fn copy(to: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![fixtures()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(fixtures()).unwrap().to_path_buf();
            if p.is_dir() {
                std::fs::create_dir_all(to.join(&rel)).unwrap();
                stack.push(p);
            } else {
                std::fs::copy(&p, to.join(&rel)).unwrap();
                files.push((to.join(&rel), std::fs::read(&p).unwrap()));
            }
        }
    }
    files
}

#[tokio::test]
async fn a_claude_code_session_becomes_a_tree_with_every_subagents_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let report = host.import_claude_code(Some(fixtures())).await.unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.sessions.len(), 2);
    assert!(report.sessions.iter().all(|s| s.outcome == ImportOutcome::Added));
    assert!(report.skipped.get("api-request").is_some_and(|n| *n > 0), "bookkeeping is counted: {:?}", report.skipped);

    let store = host.store().unwrap();
    let id = SessionId(format!("cc-{SESSION}"));
    let detail = store.session(&id).unwrap();
    assert_eq!(detail.session.source, SessionSource::ClaudeCode);
    assert_eq!(detail.session.workspace, "/home/user/demo-project");
    assert!(detail.session.first_prompt.starts_with("FIXTURE-MAIN: count the lines"));
    assert_eq!(detail.session.status, arbor_protocol::SessionStatus::Completed);
    let [main, a, b] = &detail.agents[..] else { panic!("{:?}", detail.agents) };
    assert!(arbor_protocol::AgentId::is_valid(main.id.as_str()) && main.parent_id.is_none());
    let mut kids = [a, b];
    kids.sort_by_key(|k| k.description.clone());
    assert_eq!(kids.map(|k| k.description.as_str()), ["Count lines", "Write notes"]);
    let events = store.events(&id, None).unwrap();
    for kid in kids {
        assert_eq!(kid.parent_id.as_ref(), Some(&main.id));
        assert_eq!(kid.subagent_type.as_deref(), Some("general-purpose"));
        assert_eq!(kid.status, AgentStatus::Completed);
        // The parent's Agent call that started it is the one named in its meta.json.
        let call = kid.parent_call_id.as_deref().unwrap();
        let started_by = events.iter().find_map(|e| match &e.kind {
            EventKind::ToolCall(c) if c.call_id == call => {
                Some((e.agent_id.clone(), c.tool_name.clone(), c.tool_args["description"].clone()))
            }
            _ => None,
        });
        assert_eq!(started_by, Some((main.id.clone(), "Agent".into(), serde_json::json!(kid.description))));
    }
    // The main agent: 3 responses, usage counted once per response, thinking and its final Markdown.
    assert_eq!((main.turns, main.usage.input_tokens, main.usage.output_tokens), (3, 10_400, 280));
    assert_eq!((main.usage.cache_read_tokens, main.usage.cache_write_tokens), (24_700, 13_000));
    let of = |agent: &arbor_protocol::AgentId, pick: fn(&EventKind) -> Option<String>| -> Vec<String> {
        events.iter().filter(|e| e.agent_id == *agent).filter_map(|e| pick(&e.kind)).collect()
    };
    let thoughts = of(&main.id, |k| match k {
        EventKind::Thoughts(t) => Some(t.content.clone()),
        _ => None,
    });
    assert!(thoughts[0].starts_with("Two independent jobs"), "{thoughts:?}");
    assert!(main.result.as_deref().unwrap_or("").contains("## Summary"));
    // What the parent never saw: each child's own calls and their results.
    let count = kids.iter().find(|k| k.description == "Count lines").unwrap();
    let calls = of(&count.id, |k| match k {
        EventKind::ToolCall(c) => Some(c.tool_name.clone()),
        _ => None,
    });
    assert_eq!(calls, ["Read", "Bash"]);
    let outputs = of(&count.id, |k| match k {
        EventKind::ToolOutput(o) => Some(o.content.clone()),
        _ => None,
    });
    assert!(outputs[0].contains("apple") && outputs[1].contains("5 data.txt"), "{outputs:?}");
    // The parent gets the child's report, without Claude Code's hand-back frame.
    let hand_back = of(&main.id, |k| match k {
        EventKind::ToolOutput(o) => Some(o.content.clone()),
        _ => None,
    });
    assert!(hand_back.contains(&"data.txt has 5 lines (wc -l printed: 5 data.txt).".to_string()), "{hand_back:?}");
    // Attachments the model saw are kept as entries, not dropped.
    let entries = of(&main.id, |k| match k {
        EventKind::ImportedEntry(e) => Some(e.kind.clone()),
        _ => None,
    });
    assert!(
        entries.contains(&"attachment: environment".to_string()) && entries.contains(&"attachment: date".to_string()),
        "{entries:?}"
    );
    // Costs: the session's total is Claude Code's, shared out by response.
    let cost = detail.session.usage.usage.cost_usd.unwrap();
    assert!((cost - 0.1914).abs() < 0.001, "{cost}");
    // The log keeps Arbor's contracts: gap-free seq, started first, each call's output after it.
    let broken = arbor_testkit::violations(&events, true);
    assert!(broken.is_empty(), "{broken:?}");
    // Search, the timeline and the export work on it as on any session.
    assert!(store.search("SUBAGENT-COUNT", 10).unwrap().iter().any(|h| h.session_id == id));
    let timeline = store.timeline(&id).unwrap();
    assert_eq!(timeline.lanes.len(), 3);
    let md = store.export_markdown(&id, None).unwrap();
    assert!(
        md.contains("### main › Write notes") && md.contains("<summary>Imported: attachment: environment</summary>")
    );
    // Read-only: it cannot be continued.
    let refused = host.resume_session(id.clone(), Some("go on".into())).await.err().expect("refused");
    assert!(refused.message.contains("imported from Claude Code"), "{}", refused.message);
}

#[tokio::test]
async fn a_malformed_line_is_reported_the_rest_imports_and_importing_again_adds_only_what_is_new() {
    let src = tempfile::tempdir().unwrap();
    let files = copy(src.path());
    let session_file = src.path().join(PROJECT).join(format!("{SESSION}.jsonl"));
    let mut text = std::fs::read_to_string(&session_file).unwrap();
    let lines = text.lines().count();
    text.push_str("{\"type\": \"user\", \"message\": {\"content\": \"cut short\n");
    std::fs::write(&session_file, &text).unwrap();
    let snapshot =
        || -> Vec<(PathBuf, Vec<u8>)> { files.iter().map(|(p, _)| (p.clone(), std::fs::read(p).unwrap())).collect() };
    let untouched = |before: &[(PathBuf, Vec<u8>)]| {
        for (path, bytes) in before {
            assert!(&std::fs::read(path).unwrap() == bytes, "{} was changed by the import", path.display());
        }
        assert_eq!(walk_count(src.path()), files.len(), "nothing was added to Claude Code's folder");
    };
    let before = snapshot();

    let data = tempfile::tempdir().unwrap();
    let host = host(data.path());
    let first = host.import_claude_code(Some(src.path().to_path_buf())).await.unwrap();
    assert_eq!(first.problems.len(), 1, "{:?}", first.problems);
    let p = &first.problems[0];
    assert_eq!((p.file.as_str(), p.line), (session_file.display().to_string().as_str(), Some(lines as u32 + 1)));
    assert!(p.message.contains("not JSON"), "{}", p.message);
    let added = first.sessions.iter().find(|s| s.session_id.as_str().ends_with(SESSION)).unwrap();
    assert_eq!(added.outcome, ImportOutcome::Added);
    assert!(added.events > 50, "the rest imported");

    untouched(&before);
    let again = host.import_claude_code(Some(src.path().to_path_buf())).await.unwrap();
    assert!(
        again.sessions.iter().all(|s| s.outcome == ImportOutcome::Unchanged && s.events == 0),
        "{:?}",
        again.sessions
    );
    assert_eq!(host.store().unwrap().sessions(&Default::default()).unwrap().len(), 2);

    // The session grows (a second prompt and its answer): the next import updates it, once.
    let qa =
        std::fs::read_to_string(src.path().join(PROJECT).join("c4e8a1b2-3d5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl")).unwrap();
    let mut grown = text.clone();
    for line in qa.lines().filter(|l| l.contains("\"type\":\"user\"") || l.contains("\"type\":\"assistant\"")) {
        let mut row: serde_json::Value = serde_json::from_str(line).unwrap();
        row["timestamp"] = serde_json::json!("2026-11-24T04:00:00.000Z");
        grown.push_str(&format!("{row}\n"));
    }
    std::fs::write(&session_file, grown).unwrap();
    let before = snapshot();
    let third = host.import_claude_code(Some(src.path().to_path_buf())).await.unwrap();
    let updated = third.sessions.iter().find(|s| s.session_id.as_str().ends_with(SESSION)).unwrap();
    assert_eq!(updated.outcome, ImportOutcome::Updated);
    assert!(updated.events > added.events);
    let store = host.store().unwrap();
    assert_eq!(store.sessions(&Default::default()).unwrap().len(), 2, "updated in place, not added twice");
    let main = store.session(&updated.session_id).unwrap().agents.into_iter().find(|a| a.parent_id.is_none()).unwrap();
    assert_eq!(main.status, AgentStatus::Completed);
    assert!(
        store.search("jsonl", 50).unwrap().iter().any(|h| h.session_id == updated.session_id),
        "the new answer is searchable"
    );
    let md = store.export_markdown(&updated.session_id, None).unwrap();
    assert!(md.contains("in 2 runs"), "the second prompt is a second run");

    untouched(&before);
}

fn walk_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| if p.is_dir() { walk_count(&p) } else { 1 })
        .sum()
}
