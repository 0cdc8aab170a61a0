//! Budgets, the timeline and imported transcripts, end to end in the real
//! webview: a subtree budget's meter on its node and its stop; the timeline of
//! a session whose parallel subagents run, one waiting for approval; a Claude
//! Code session imported from History and read as a tree with its subagent's
//! own transcript.

use crate::harness::App;
use arbor_testkit::{Scenario, ScriptedServer};
use serde_json::json;
use std::path::PathBuf;

fn review_scenario() -> Scenario {
    let spend = |text: &str| {
        json!({"text": text, "usage": {"input_tokens": 8000}, "chunk_delay_ms": 20,
               "tool_calls": [{"name": "Glob", "input": {"pattern": "*.md"}}]})
    };
    Scenario::from_json(
        &json!({"rules": [
            {"match": {"first_user_contains": "RV-READ"}, "turns": [
                {"text": "Reading the readme.", "chunk_delay_ms": 30, "tool_calls": [{"name": "Read", "input": {"file_path": "README.md"}}]},
                {"text": "The readme has a title and nothing else.", "chunk_delay_ms": 30}
            ]},
            {"match": {"first_user_contains": "RV-WRITE"}, "turns": [
                {"text": "Writing the notes.", "tool_calls": [{"name": "Write", "input": {"file_path": "notes.md", "content": "# Notes\n"}}]},
                {"text": "Notes written."}
            ]},
            {"match": {"first_user_contains": "RV-BUDGET"}, "repeat_last": true, "turns": [
                spend("Surveying, step one."), spend("Surveying, step two."), spend("Surveying on.")
            ]},
            {"match": {"first_user_contains": "REVIEW-START"}, "turns": [
                {"text": "Three subagents, in parallel.", "tool_calls": [
                    {"name": "Task", "input": {"description": "Read the code", "prompt": "RV-READ: read"}},
                    {"name": "Task", "input": {"description": "Write notes", "prompt": "RV-WRITE: write"}},
                    {"name": "Task", "input": {"description": "Budgeted survey", "prompt": "RV-BUDGET: survey", "max_tokens": 20000}}
                ]},
                {"text": "All three reported back."}
            ]}
        ]})
        .to_string(),
    )
    .unwrap()
}

/// The rows of the timeline's text alternative: (agent, status, waited for you).
async fn timeline_rows(app: &App) -> Vec<(String, String, String)> {
    let script = "return Array.from(document.querySelectorAll('[data-testid=timeline-summary] tbody tr')).map(r => \
                  [r.querySelector('th').textContent, r.children[1].textContent, r.children[3].textContent])";
    serde_json::from_value(app.client.execute(script, vec![]).await.unwrap()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_budget_meter_stops_its_subtree_and_the_timeline_shows_parallel_work_and_a_wait_for_approval() {
    let server = ScriptedServer::start(review_scenario()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    app.find("[data-testid=prompt-input]").await.send_keys("REVIEW-START: three at once").await.unwrap();
    app.click("[data-testid=send]").await;

    // The budgeted child stops before a request that would pass its 20,000 tokens; its meter says so.
    let budgeted = app.node_status("Budgeted survey", "budget_exhausted").await;
    let meter =
        app.find(&format!("[data-testid=tree-node][data-agent-id='{budgeted}'] [data-testid=tree-budget]")).await;
    assert_eq!(meter.attr("data-tone").await.unwrap().as_deref(), Some("exhausted"));
    let aria = app
        .find(&format!("[data-testid=tree-node][data-agent-id='{budgeted}'] [role=meter]"))
        .await
        .attr("aria-label")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(aria.contains("tokens"), "the meter names its limit: {aria}");
    app.wait_count("count-budget", 1).await;
    app.node("Budgeted survey").await.click().await.unwrap();
    app.wait_text("[data-testid=budget-stop-reason]", "16,000 of 20,000 tokens").await;
    app.screenshot("budget-exhausted").await;

    // While "Write notes" waits for approval, the timeline shows all four agents in tree order.
    app.find("[data-testid=approval]").await;
    app.click("[data-testid=timeline-view-tab]").await;
    app.find("[data-testid=timeline-canvas]").await;
    let rows = app
        .wait("four agents on the timeline", || async {
            let rows = timeline_rows(&app).await;
            (rows.len() == 4).then_some(rows)
        })
        .await;
    // In the tree's order, which is the order the main agent made its calls (they start in any order).
    let names: Vec<String> = rows.iter().skip(1).map(|r| r.0.trim().to_string()).collect();
    let tree: Vec<String> = app.rows().await.into_iter().skip(1).map(|(_, d, _)| d.trim().to_string()).collect();
    assert_eq!(names, tree);
    assert_eq!(names, ["Read the code", "Write notes", "Budgeted survey"]);
    assert_eq!(rows[0].0.trim(), "Main agent");
    app.screenshot("timeline-waiting").await;

    // Approved: the wait is counted for that agent and the session.
    app.click("[data-testid=approve]").await;
    app.node_status("main", "completed").await;
    let rows = app
        .wait("the wait counted", || async {
            let rows = timeline_rows(&app).await;
            let write = rows.iter().find(|r| r.0.trim() == "Write notes")?;
            // Counted once answered: "0 ms" before.
            (!write.2.trim().starts_with("0") && !write.2.trim().is_empty()).then(|| rows.clone())
        })
        .await;
    let main = &rows[0];
    assert_eq!(main.2.trim(), "0ms", "the main agent never waited for you: {rows:?}");
    app.screenshot("timeline").await;
    app.client.set_window_size(1024, 700).await.unwrap();
    app.screenshot("timeline-1024x700").await;
    app.client.set_window_size(1440, 900).await.unwrap();
    app.screenshot("timeline-1440x900").await;
    app.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_claude_code_session_is_imported_from_history_and_read_as_a_tree() {
    let server = ScriptedServer::start(review_scenario()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code/projects");

    app.click("[data-testid=history-button]").await;
    app.click("[data-testid=import-open]").await;
    app.find("[data-testid=import-dir]").await.send_keys(&fixtures.display().to_string()).await.unwrap();
    app.click("[data-testid=import-run]").await;
    app.wait_text("[data-testid=import-summary]", "2 added").await;
    app.screenshot("import-report").await;
    let link = app.wait_containing("[data-testid=import-session]", "FIXTURE-MAIN").await;
    link.click().await.unwrap();

    // A tree: the main agent and its two subagents, and a badge saying where it came from.
    app.wait_text("[data-testid=review-source]", "Claude Code").await;
    let main = app.node("main").await;
    let main_id = main.attr("data-agent-id").await.unwrap().unwrap();
    for label in ["Count lines", "Write notes"] {
        let node = app.node(label).await;
        assert_eq!(node.attr("data-parent-id").await.unwrap().as_deref(), Some(main_id.as_str()), "{label} under main");
    }
    // The subagent's own transcript, which its parent never saw: its calls and their output.
    app.node("Count lines").await.click().await.unwrap();
    app.wait_text("[data-testid=output]", "wc -l data.txt").await;
    app.wait_text("[data-testid=output]", "5 data.txt").await;
    app.screenshot("imported-claude-code").await;
    // Read-only: nothing offers to continue it.
    app.find("[data-testid=imported-note]").await;
    assert!(app.all("[data-testid=continue-form]").await.is_empty(), "an import cannot be continued");
    app.close().await;
    server.shutdown().await;
}
