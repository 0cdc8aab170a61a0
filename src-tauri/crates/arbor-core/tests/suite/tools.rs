//! The built-in tools as a model drives them, and what the model hears back
//! when its calls are wrong.

use super::*;
use arbor_protocol::AgentStatus;
use serde_json::json;

#[tokio::test]
async fn write_read_edit_glob_grep_and_bash_work_in_the_workspace() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({"rules": [{"match": {"first_user_contains": "make notes"}, "turns": [
                {"tool_calls": [{"name": "Write", "input": {"file_path": "notes/todo.md", "content": "- buy milk\n- fix bug\n"}}]},
                {"tool_calls": [{"name": "Read", "input": {"file_path": "notes/todo.md"}}]},
                {"tool_calls": [{"name": "Edit", "input": {"file_path": "notes/todo.md", "old_string": "fix bug", "new_string": "fix the parser bug"}}]},
                {"tool_calls": [{"name": "Glob", "input": {"pattern": "**/*.md"}}, {"name": "Grep", "input": {"pattern": "parser", "output_mode": "content"}}]},
                {"tool_calls": [{"name": "Bash", "input": {"command": "wc -l < notes/todo.md && cat notes/todo.md"}}]},
                {"text": "Summary: {{last_tool_result}}"}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("make notes").await;
        let f = run.finished();
        assert_eq!(f.status, AgentStatus::Completed, "{api:?}: {:?}", run.outputs());
        assert_eq!(read(&h.path("notes/todo.md")), "- buy milk\n- fix the parser bug\n");
        let outs = run.outputs();
        assert!(outs.iter().all(|(_, err)| !err), "{outs:?}");
        assert!(outs[1].0.contains("1\t- buy milk"), "Read numbers lines: {}", outs[1].0);
        assert!(outs[3].0.contains("notes/todo.md"), "Glob: {}", outs[3].0);
        assert!(outs[4].0.contains("fix the parser bug"), "Grep: {}", outs[4].0);
        assert!(outs[5].0.starts_with('2'), "Bash: {}", outs[5].0);
        assert!(f.result.contains("fix the parser bug"), "the model saw the last tool result: {}", f.result);
        assert_eq!(f.files_modified, vec!["notes/todo.md".to_string()]);
    }
}

#[tokio::test]
async fn bad_calls_give_the_model_clear_errors_and_the_run_goes_on() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [
                {"name": "Read", "raw_arguments": "{\"file_path\": \"a.txt\""},
                {"name": "Teleport", "input": {"to": "mars"}},
                {"name": "Read", "input": {"file_path": "binary.bin"}},
                {"name": "Read", "input": {"file_path": "../outside.txt"}},
                {"name": "Write", "input": {"file_path": "/etc/arbor-should-not-exist", "content": "x"}},
                {"name": "Edit", "input": {"file_path": "a.txt"}}
            ]},
            {"text": "I could not do much."}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path("binary.bin"), [0xffu8, 0xfe, 0x00, 0x80, 0x81]).expect("write");
    let run = h.run("try things").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let outs = run.outputs();
    assert_eq!(outs.len(), 6);
    assert!(outs.iter().all(|(_, err)| *err), "{outs:?}");
    assert!(
        outs[0].0.starts_with("Invalid arguments for Read") && outs[0].0.contains("not valid JSON"),
        "{}",
        outs[0].0
    );
    assert!(outs[1].0.contains("Unknown tool: Teleport") && outs[1].0.contains("Read"), "{}", outs[1].0);
    assert!(outs[2].0.contains("not text") && outs[2].0.contains("NUL"), "{}", outs[2].0);
    assert!(outs[3].0.contains("outside the workspace"), "{}", outs[3].0);
    assert!(outs[4].0.contains("outside the workspace"), "{}", outs[4].0);
    assert!(!std::path::Path::new("/etc/arbor-should-not-exist").exists());
    assert!(outs[5].0.contains("Invalid input for Edit"), "{}", outs[5].0);
    let results = tool_results(&run.requests[1]);
    assert_eq!(results.len(), 6, "every call got its result");
    assert_eq!(
        run.requests[1].body["messages"][1]["content"][0]["input"],
        json!({}),
        "bad JSON is replayed as an empty object"
    );
}
